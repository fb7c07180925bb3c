"""BCube(n,k) of network namespaces, for PortFC (docs/PORTFC.md).

Servers are namespaces with k+1 ports and IP forwarding; switches are
bridges in their own namespaces, n ports each. The plan (cabling,
addresses, both shortest paths to every destination, each port's queues
and gates) is the core's, from `lossless-portfc plan`: nothing of BCube is
computed here.

    with Topology("bc") as t:
        bc = BCube(t, 4, 1, qdisc="rate 100mbit", classify=True)
        bc.server(15).run("...")

Names: server i is the host "s<i>", switch j (its BCube id) "w<j>". A
server's port l is if<l>, cabled to port s_l of its level-l switch, whose
port p is if<p>. Every server has one address (base + i) on each of its
ports and a /32 route to every other server: direct to a neighbour, via the
neighbour that corrects the first digit of the path's order otherwise.
first(src, dst) picks that order (the level corrected first; default 0,
digit 0 first); the relay then takes its own route. Bridges learn nothing
and flood nothing: each has a static FDB entry per port, and servers have
static neighbours, so no ARP or flooded frame adds to the counts.

With qdisc (tc-lossless options, e.g. "rate 100mbit"), every port gets
`lossless handle 1:` with PortFC's queue count, HQ strict (queue 0) and the
plan's gates; with switch_pool (pool options, e.g. "buffer 4mb scheme
portfc portfc-n 4"), a switch's ports also share its pool, named w<id>,
each with its BCube number (scheme-port). With classify, PortFC's
classifier and lossless-ingress on every port (the maps pinned per
namespace in /sys/fs/bpf/portfc-<namespace> and ll-<namespace>, removed
with the topology). For PFC instead (the baseline): classify False,
ingress True (PFC frames reach the qdiscs), the default 8 queues, and
server_pool to make each server a PFC switch of its own two ports.

dscp_prio ({DSCP: priority}, PFC only) keeps a relayed packet's priority
through the server, as a PFC switch's "trust DSCP" does: Linux's IP
forwarding sets a forwarded packet's skb->priority to rt_tos2priority(tos),
0 for DSCP 24, which undoes what the ingress program set from the DSCP. So
without it a PFC server relays lossless traffic in queue 0, lossy in its
pool and never stopped by a PFC frame for the traffic's priority. Each
server port gets a clsact egress filter (pref 10) per entry that sets the
priority from the DSCP again. PortFC's classifier sets every packet's
priority at egress itself.
"""

import json
import shlex

from topology import Paths, sh


class BCube:
    def __init__(self, t, n, k, base="10.1.0.1", first=None, qdisc=None, classify=False,
                 switch_pool=None, server_pool=None, ingress=None, dscp_prio=None):
        self.t, self.n, self.k = t, n, k
        self.plan = json.loads(sh(f"{Paths.portfc} plan --n {n} --k {k} --base {base}"))
        self.first = first or (lambda src, dst: 0)
        self.servers = {s["id"]: t.host(f"s{s['id']}") for s in self.plan["servers"]}
        self.switches = {w["id"]: t.switch(f"w{w['id']}") for w in self.plan["switches"]}
        self._cable()
        self._route()
        if qdisc is not None:
            self._qdiscs(qdisc, switch_pool, server_pool, portfc=classify)
        if classify or ingress:
            self._programs(classify)
        if dscp_prio:
            self._dscp_prio(dscp_prio)

    def server(self, i):
        return self.servers[i]

    def addr(self, i):
        return self.plan["servers"][i]["addr"]

    def mac(self, server, level):
        return f"02:bc:{self.t.mac_id:02x}:{level:02x}:{server >> 8:02x}:{server & 255:02x}"

    def pin_dir(self, host):
        return f"/sys/fs/bpf/portfc-{host.ns}"

    def route_of(self, src, dst):
        """The path's first hop from src to dst: the plan's entry for the
        order first(src, dst) (or the only one of a neighbour)."""
        r = next(x for x in self.plan["servers"][src]["routes"] if x["dst"] == dst)
        want = self.first(src, dst)
        return r, next((p for p in r["paths"] if p["first"] == want), r["paths"][0])

    def _cable(self):
        for w in self.plan["switches"]:
            sw, level = self.switches[w["id"]], w["level"]
            batch = []
            for p in w["ports"]:
                s = p["server"]
                srv = self.servers[s]
                sh(f"ip link add if{level} netns {srv.ns} address {self.mac(s, level)} type veth "
                   f"peer name if{p['port']} netns {sw.ns}")
                batch += [f"link set if{p['port']} master br0 up",
                          f"link set dev if{p['port']} type bridge_slave learning off flood off "
                          f"mcast_flood off bcast_flood off"]
            sw.run("ip -batch -", input="\n".join(batch) + "\n")
            fdb = [f"fdb add {self.mac(p['server'], level)} dev if{p['port']} master static"
                   for p in w["ports"]]
            sw.run("bridge -batch -", input="\n".join(fdb) + "\n")
            sw.ifaces += [f"if{p['port']}" for p in w["ports"]]

    def _route(self):
        for s in self.plan["servers"]:
            srv, i = self.servers[s["id"]], s["id"]
            srv.run("sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 "
                    "net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.all.send_redirects=0 "
                    "net.ipv4.conf.all.accept_redirects=0")
            batch = []
            for port in s["ports"]:
                dev = f"if{port['level']}"
                batch += [f"addr add {s['addr']}/32 dev {dev}", f"link set {dev} up"]
                srv.ifaces.append(dev)
            for r in s["routes"]:
                _, p = self.route_of(i, r["dst"])
                dev = f"if{p['level']}"
                batch.append(f"neigh replace {p['next_addr']} lladdr {self.mac(p['next'], p['level'])} "
                             f"dev {dev} nud permanent")
                if r["hops"] == 1:
                    batch.append(f"route replace {r['dst_addr']}/32 dev {dev} src {s['addr']}")
                else:
                    batch.append(f"route replace {r['dst_addr']}/32 via {p['next_addr']} dev {dev} "
                                 f"onlink src {s['addr']}")
            srv.run("ip -batch -", input="\n".join(batch) + "\n")

    def _qdiscs(self, opts, switch_pool, server_pool, portfc):
        """lossless on every port: PortFC's queues and gates, or (portfc
        False) the default 8 queues, for PFC; the pools on request."""
        q, g = self.plan["queues"], self.plan["gates"]
        for hosts, queues, gates, pool_opts in (
                (self.servers, q["server"], g["server"], server_pool),
                (self.switches, q["switch"], g["switch"], switch_pool)):
            for h in hosts.values():
                cmds = []
                for dev in h.ifaces:
                    pool = ""
                    if pool_opts is not None:
                        number = f"scheme-port {dev[2:]} " if hosts is self.switches else ""
                        pool = f"pool {h.name} {number}{pool_opts} "
                    plan = f"queues {queues} strict 1 gates {gates} " if portfc else ""
                    cmds.append(f"qdisc add dev {dev} root handle 1: lossless {pool}{plan}{opts}")
                h.run("tc -batch -", input="\n".join(cmds) + "\n")

    def ingress_pin_dir(self, host):
        return f"/sys/fs/bpf/ll-{host.ns}"

    def _programs(self, classify):
        """The ingress program on every port; with classify, PortFC's
        classifier and each port's part in PortFC's frames too."""
        n, k = self.n, self.k
        base = self.plan["servers"][0]["addr"]
        for role, hosts in (("server", self.servers), ("switch", self.switches)):
            for ident, h in hosts.items():
                pin, ipin = shlex.quote(self.pin_dir(h)), shlex.quote(self.ingress_pin_dir(h))
                devs = " ".join(h.ifaces)
                cmds = [f"{Paths.ingress} --pin-dir {ipin} attach {dev}" for dev in h.ifaces]
                if not classify:
                    h.run("sh -ec " + shlex.quote(" >/dev/null && ".join(cmds) + " >/dev/null"))
                    continue
                if role == "server":
                    where = f"--server {ident}"
                else:
                    w = next(x for x in self.plan["switches"] if x["id"] == ident)
                    where = f"--switch {w['w']} --level {w['level']}"
                cmds += [f"{Paths.portfc} --pin-dir {pin} attach {devs} --n {n} --k {k} {where} "
                         f"--ingress-pin-dir {ipin}",
                         f"{Paths.portfc} --pin-dir {pin} addrs --n {n} --k {k} --base {base}"]
                h.run("sh -ec " + shlex.quote(" >/dev/null && ".join(cmds) + " >/dev/null"))

    def _dscp_prio(self, dscp_prio):
        """On every server port, a clsact egress filter per DSCP that sets
        skb->priority back to the DSCP's priority (see dscp_prio above).
        The guest loads no classifier on demand: u32 and skbedit first."""
        sh("modprobe -a cls_u32 act_skbedit")
        for h in self.servers.values():
            cmds = []
            for dev in h.ifaces:
                cmds.append(f"tc qdisc add dev {dev} clsact 2>/dev/null || true")
                for dscp, prio in sorted(dscp_prio.items()):
                    cmds.append(f"tc filter add dev {dev} egress pref 10 protocol ip u32 "
                                f"match ip dsfield {dscp << 2:#x} 0xfc action skbedit priority {prio}")
            h.run("sh -ec " + shlex.quote("\n".join(cmds)))

    def classifier_stats(self, host):
        return host.json(f"{Paths.portfc} --pin-dir {shlex.quote(self.pin_dir(host))} show --json")


def switch_port(rate="10gbit", buffer="64mb", pool="bench"):
    """tc options of a lone BCube(4,1) switch port 1 under PortFC (the
    benches' path: tests/vm/bench-bridge.py, prof-bridge.py): its pool of
    scheme portfc, the port's queues and gates from the plan. Every
    priority is lossless, so each port carves eight headrooms: hence the
    large buffer."""
    plan = json.loads(sh(f"{Paths.portfc} plan --n 4 --k 1"))
    return (f"handle 1: lossless rate {rate} pool {pool} scheme-port 1 buffer {buffer} "
            f"lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4 "
            f"queues {plan['queues']['switch']} strict 1 gates {plan['gates']['switch']}")


def switch_port_classifier(sw, dev, dst_addr, pin, on):
    """PortFC's classifier on dev, port 1 of switch 0 at level 0 whose
    server 1 is dst_addr (the plan's base is dst_addr - 1), or (on False)
    none; its maps pinned in pin."""
    pin = shlex.quote(pin)
    if not on:
        sw.run(f"{Paths.portfc} --pin-dir {pin} detach {dev}", check=False)
        return
    a, b, c, d = (int(x) for x in dst_addr.split("."))
    sw.run(f"{Paths.portfc} --pin-dir {pin} attach {dev} --n 4 --k 1 --switch 0 --level 0")
    sw.run(f"{Paths.portfc} --pin-dir {pin} addrs --n 4 --k 1 --base {a}.{b}.{c}.{d - 1}")
