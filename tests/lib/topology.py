"""Network topologies in namespaces for the VM tests and the demo.

A Topology declares hosts (network namespaces) and links (veth pairs), builds
them, and tears everything down on exit, also when a test fails:

    with Topology("pfc") as t:
        a, b = t.host("a"), t.host("b")
        t.link(a, b)                      # a.if0 10.0.0.1 <-> b.if0 10.0.0.2
        a.run("tc qdisc add dev if0 root lossless rate 100mbit")
        proc = b.popen("ll-traffic recv --port 5000")

Paths to the project's binaries come from Paths (build dir from LL_BUILD_DIR).

Link delay. `t.link(a, b, delay="2ms")` makes the link behave like a long
cable: every frame takes 2 ms more, one way, in each direction. The ends
carry the `lossless` qdisc as root, so netem cannot be root there. Instead a
delayed link is a "wire" network namespace between the two ends:

    a.ifN --veth-- [wire ns: wa  ==mirred==>  wb (root netem delay D)] --veth-- b.ifM
                   [           wa (root netem delay D)  <==mirred==  wb]

In the wire namespace (named PREFIX + "wire" + the link's number), a
matchall filter on the ingress of each wire device redirects every frame to
the egress of the other one (`mirred egress redirect`), whose root qdisc is
`netem delay D limit 1000000`. So a->b frames are delayed on wb and b->a
frames on wa. There is no bridge in the wire on purpose: a bridge never
forwards 01-80-C2-00-00-01 (PFC, PAUSE) frames; mirred passes every frame
as it is, PFC, ARP and data alike, MAC addresses untouched. The wire has no
IPv6 and no address, so it sends nothing of its own. What the ends see is
the same as for a direct link: the interface names, addresses, MTU, MAC
addresses and the returned link dict (its keys "delay" and "wire" name the
delay and the wire namespace; None for a direct link). netem needs the
guest modules sch_netem, cls_matchall, act_mirred and sch_ingress
(tests/vm/run-all.sh loads them). The wire namespace is deleted with the
others on exit, taking both veth pairs with it. Host names "wire<N>" are
refused.
"""

import ctypes
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import time

# A netem time: a number and a unit (netem reads a bare number as us).
DELAY_RE = re.compile(r"^[0-9]+(\.[0-9]+)?(ns|us|usec|ms|msec|s|sec)$")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Paths:
    build = os.environ.get("LL_BUILD_DIR", os.path.join(ROOT, "build"))
    # LL_MODULE_KO: another build of it (make check-kdebug's, for the debug kernel)
    module = os.environ.get("LL_MODULE_KO", os.path.join(ROOT, "kernel", "sch_lossless.ko"))
    tc_lib = os.path.join(build, "tc-plugins")
    traffic = os.path.join(build, "tests", "tools", "ll-traffic")
    ingress = os.path.join(build, "daemon", "lossless-ingress")
    cc = os.path.join(build, "daemon", "lossless-cc")
    portfc = os.path.join(build, "daemon", "lossless-portfc")
    flows = os.path.join(build, "tests", "tools", "ll-flows")
    losslessd = os.path.join(build, "daemon", "losslessd")
    ctl = os.path.join(build, "daemon", "losslessctl")
    python = "/usr/bin/python3"  # Debian's, which has scapy
    pause_sender = os.path.join(ROOT, "tests", "lib", "pause_sender.py")
    ping = os.path.join(ROOT, "tests", "lib", "ping.py")
    bcube_probe = os.path.join(ROOT, "tests", "lib", "bcube_probe.py")


def ensure_modules():
    """For scripts run in the VM without tests/vm/run-all.sh (the benches):
    the guest modules the topologies need, and the freshly built
    sch_lossless.ko unless it is loaded already."""
    sh("modprobe -a veth bridge sch_ingress cls_bpf sch_tbf sch_netem cls_matchall act_mirred sch_fq")
    with open("/proc/modules") as f:
        if not any(line.startswith("sch_lossless ") for line in f):
            sh(f"insmod {Paths.module}")


# A process costs about 60 ms to start under TCG and a shell with nsenter
# in front of it 220 ms more (tests/vm: 300 ms for `nsenter sh -c ip ...`
# against 60 ms for ip alone): most of a topology's set-up, which runs tens
# of commands per host (docs/TESTING.md). So a command that needs no shell
# runs as its own argv, entering the host's network namespace itself
# between fork and exec; only one with shell syntax goes through sh.
_NEEDS_SHELL = re.compile(r"[|&;<>$`()*?\[\]~\n]")
_CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)


def _argv(cmd):
    """cmd as an argv if it needs no shell (no pipe, redirection, expansion,
    list or variable assignment), else None."""
    if _NEEDS_SHELL.search(cmd):
        return None
    argv = shlex.split(cmd)
    return argv if argv and "=" not in argv[0] else None


def _enter_netns(ns):
    """A preexec_fn: the child joins network namespace ns (and keeps the
    mount namespace, so /sys/fs/bpf, as nsenter --net does)."""
    def enter():
        fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
        try:
            if _libc.setns(fd, _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), f"setns into {ns}")
        finally:
            os.close(fd)
    return enter


def _spawn(cmd, ns, env=None, **kw):
    """Popen of cmd in network namespace ns (None: the root's): its own
    argv when it needs no shell, else sh -c under nsenter."""
    full_env = dict(os.environ, TC_LIB_DIR=Paths.tc_lib)
    if env:
        full_env.update(env)
    argv = _argv(cmd)
    if argv is not None:
        try:
            return subprocess.Popen(argv, text=True, env=full_env,
                                    preexec_fn=_enter_netns(ns) if ns else None, **kw)
        except FileNotFoundError:
            pass  # the shell says "not found" and exits 127, as callers expect
    if ns:
        cmd = f"nsenter --net=/run/netns/{ns} {cmd}"
    return subprocess.Popen(cmd, shell=True, text=True, env=full_env, **kw)


def sh(cmd, check=True, capture=True, env=None, timeout=120, ns=None, input=None):
    """Run a command in the VM's root namespace (or network namespace ns),
    with input on its stdin if given; return its stdout, or with
    check=False the CompletedProcess."""
    pipe = subprocess.PIPE if capture else None
    stdin = subprocess.PIPE if input is not None else None
    with _spawn(cmd, ns, env, stdin=stdin, stdout=pipe, stderr=pipe) as p:
        try:
            out, err = p.communicate(input=input, timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise
    r = subprocess.CompletedProcess(cmd, p.returncode, out, err)
    if check and r.returncode != 0:
        where = f" (in {ns})" if ns else ""
        raise RuntimeError(f"command failed ({r.returncode}){where}: {cmd}\n{r.stdout}{r.stderr}")
    return r if not check else r.stdout


class Host:
    def __init__(self, topo, name):
        self.topo = topo
        self.name = name
        self.ns = f"{topo.prefix}{name}"
        self.ifaces = []

    # Commands join only the host's network namespace (as nsenter --net):
    # ip netns exec would remount /sys and hide the pinned maps.
    def run(self, cmd, check=True, **kw):
        return sh(cmd, check=check, ns=self.ns, **kw)

    def json(self, cmd):
        return json.loads(self.run(cmd))

    def link_info(self, dev):
        """`ip -j link show` of dev in this host (/sys would show the root
        namespace's devices under nsenter)."""
        return self.json(f"ip -j link show dev {dev}")[0]

    def popen(self, cmd, **kw):
        if self.topo.ready_s is None:  # the first process of traffic: set-up is over
            self.topo.ready_s = time.monotonic() - self.topo.start_s
        p = _spawn(cmd, self.ns, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
        self.topo.procs.append(p)
        return p

    def wait_udp(self, port, timeout=30.0):
        """Wait until a UDP socket of this host is bound to port (a receiver
        started with popen is ready): a fixed sleep is not enough on a busy
        machine, and datagrams sent before the bind are lost."""
        if not wait_for(lambda: self.run(f"ss -Hun state all sport = :{port}",
                                         check=False).stdout.strip(), timeout, 0.05):
            raise RuntimeError(f"{self.name}: nothing bound to UDP port {port} after {timeout} s")

    def __repr__(self):
        return f"Host({self.name})"


class Topology:
    def __init__(self, name):
        self.prefix = f"ll{name}-"
        self.hosts = {}
        self.links = []
        self.procs = []
        self.subnet = 0
        Topology._made += 1
        self.mac_id = Topology._made % 256

    _made = 0  # topologies made by this process: each its own MAC addresses

    def mac(self, net, side):
        """The MAC address of side (1: a, 2: b) of link net: locally
        administered and fixed, so a link needs no query to learn it."""
        return f"02:4c:{self.mac_id:02x}:{net >> 8 & 255:02x}:{net & 255:02x}:{side:02x}"

    def __enter__(self):
        self.start_s = time.monotonic()
        self.ready_s = None
        self.cleanup()  # leftovers of an earlier, killed run
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        done_s = time.monotonic()
        self.cleanup()
        # Where a test's time goes (docs/TESTING.md): building namespaces,
        # links and qdiscs, against the traffic and the tear-down.
        used = done_s - self.start_s
        ready = self.ready_s if self.ready_s is not None else used
        print(f"  topology {self.prefix[2:-1]}: {len(self.hosts)} namespaces, set up in {ready:.1f} s, "
              f"used {used - ready:.1f} s, torn down in {time.monotonic() - done_s:.1f} s", flush=True)
        return False

    def cleanup(self):
        out = sh("ip netns list", check=False).stdout
        for line in out.splitlines():
            ns = line.split()[0] if line.split() else ""
            if ns.startswith(self.prefix):
                sh(f"ip netns del {shlex.quote(ns)}", check=False)
        # The programs' pinned maps (--pin-dir /sys/fs/bpf/ll-NS, llcc-NS):
        # bpffs is not per namespace, so they outlive the namespaces, and a
        # topology built again under the same names would reuse their
        # state (lossless-cc's flow rates and counters, one comparison
        # column's leaking into the next).
        for pin in glob.glob(f"/sys/fs/bpf/*-{glob.escape(self.prefix)}*"):
            shutil.rmtree(pin, ignore_errors=True)

    def host(self, name):
        if re.fullmatch(r"wire[0-9]+", name):
            raise ValueError(f"host name {name!r} is taken by the wires of delayed links")
        h = Host(self, name)
        sh(f"ip netns add {h.ns}")
        h.run("ip link set lo up")
        # No IPv6 on the links: its neighbour discovery would add packets to
        # counts. Set as the default, it holds for every veth created here.
        h.run("sysctl -qw net.ipv6.conf.default.disable_ipv6=1")
        self.hosts[name] = h
        return h

    def switch(self, name):
        """A Linux bridge in its own namespace; link() adds ports to it."""
        h = self.host(name)
        h.run("ip link add br0 up type bridge")
        h.is_switch = True
        return h

    def link(self, a, b, mtu=1500, delay=None):
        """veth between a and b on their own /24; returns a dict with a, b,
        a_if, b_if, a_ip, b_ip, a_mac, b_mac, delay and wire. With delay
        (a netem time such as "2ms": one way, each direction) the link runs
        through a wire namespace (see the module's docstring)."""
        if delay is not None and not DELAY_RE.match(str(delay)):
            raise ValueError(f"link delay {delay!r}: want a time with a unit, such as 2ms or 500us")
        ai, bi = f"if{len(a.ifaces)}", f"if{len(b.ifaces)}"
        net = self.subnet
        self.subnet += 1
        a_ip, b_ip = f"10.{net}.0.1", f"10.{net}.0.2"
        a_mac, b_mac = self.mac(net, 1), self.mac(net, 2)
        wire = None
        # A process costs 60-150 ms under TCG: each end is made in one
        # command, straight in its namespace with its address, and set up
        # in one `ip -batch`.
        if delay is None:
            sh(f"ip link add {ai} netns {a.ns} mtu {mtu} address {a_mac} type veth "
               f"peer name {bi} netns {b.ns} mtu {mtu} address {b_mac}")
        else:
            wire = self._wire(net, a, ai, a_mac, b, bi, b_mac, mtu, delay)
        both_hosts = not getattr(a, "is_switch", False) and not getattr(b, "is_switch", False)
        for h, i, ip, peer_ip, peer_mac in ((a, ai, a_ip, b_ip, b_mac), (b, bi, b_ip, a_ip, a_mac)):
            if getattr(h, "is_switch", False):
                batch = [f"link set {i} master br0 up"]
            else:
                batch = [f"addr add {ip}/24 dev {i}", f"link set {i} up"]
                if both_hosts:
                    # Static neighbours: ARP must not depend on a queue a test pauses.
                    batch.append(f"neigh replace {peer_ip} lladdr {peer_mac} dev {i} nud permanent")
            h.run("ip -batch -", input="\n".join(batch) + "\n")
            h.ifaces.append(i)
        link = {"a": a, "b": b, "a_if": ai, "b_if": bi, "a_ip": a_ip, "b_ip": b_ip,
                "a_mac": a_mac, "b_mac": b_mac, "delay": delay, "wire": wire}
        self.links.append(link)
        return link

    def _wire(self, net, a, ai, a_mac, b, bi, b_mac, mtu, delay):
        """The wire namespace of a delayed link: a.ai -- wa | wb -- b.bi,
        frames crossing from wa to wb and back by mirred, delayed by netem
        on the way out. Returns the wire's Host (not in self.hosts)."""
        w = Host(self, f"wire{net}")
        sh(f"ip netns add {w.ns}")
        # No IPv6 in the wire: it must not send frames of its own.
        w.run("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1")
        # Created straight in their namespaces: no temporary names in the root.
        for end, dev, mac, wdev in ((a, ai, a_mac, "wa"), (b, bi, b_mac, "wb")):
            sh(f"ip link add {dev} netns {end.ns} mtu {mtu} address {mac} type veth "
               f"peer name {wdev} netns {w.ns} mtu {mtu}")
        cmds = []
        for src, dst in (("wa", "wb"), ("wb", "wa")):
            cmds += [f"tc qdisc add dev {dst} root netem delay {delay} limit 1000000",
                     f"tc qdisc add dev {src} clsact",
                     f"tc filter add dev {src} ingress matchall action mirred egress redirect dev {dst}"]
        cmds += ["ip link set wa up", "ip link set wb up"]
        w.run("sh -c " + shlex.quote(" && ".join(cmds)))
        return w


def host_pair_via(t, sw, h1, h2):
    """Put h1 and h2 on one subnet through switch sw (one link each) with
    static neighbours; returns (h1_ip, h2_ip, h1_link, h2_link)."""
    l1, l2 = t.link(h1, sw), t.link(h2, sw)
    # Both host ends on one /24: re-address the second host into the first's.
    h2_if = l2["a_if"]
    h2.run(f"ip addr flush dev {h2_if}")
    ip1 = l1["a_ip"]
    ip2 = ip1.rsplit(".", 1)[0] + ".3"
    h2.run(f"ip addr add {ip2}/24 dev {h2_if}")
    h1.run(f"ip neigh replace {ip2} lladdr {l2['a_mac']} dev {l1['a_if']} nud permanent")
    h2.run(f"ip neigh replace {ip1} lladdr {l1['a_mac']} dev {h2_if} nud permanent")
    return ip1, ip2, l1, l2


def announce(hosts, broadcast="10.0.0.255"):
    """Each host sends one broadcast so every bridge learns where it is.
    Without it a host that only receives is unknown to the bridges, which
    then flood its traffic to every port (and into unrelated queues)."""
    for h in hosts:
        h.run(f"{Paths.traffic} send --dst {broadcast} --port 9 --count 1 --size 64")


def ping(host, dst_ip, count=10, interval=0.05):
    """ICMP echo from host to dst_ip (tests/lib/ping.py): a dict with the
    round-trip times in ms ("rtt_ms") and the number of lost probes."""
    return host.json(f"{Paths.python} {Paths.ping} {dst_ip} {count} {interval}")


def class_packets(host, dev):
    """Sent packets per class ("1:4") of dev's lossless qdisc, from
    `tc -s class show` (iproute2 6.1 has no JSON for classes)."""
    out, cur = {}, None
    for line in host.run(f"tc -s class show dev {dev}").splitlines():
        m = re.match(r"class lossless (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Sent \d+ bytes (\d+) pkt", line)
        if m and cur:
            out[cur] = int(m.group(1))
    return out


def wait_for(pred, timeout=5.0, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(step)
    return False
