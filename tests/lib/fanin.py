"""A switch with several receivers and senders, and synchronised bursts, for
the scheme VM tests (tests/vm/test_dsh.py, test_spfc.py).

build() makes one bridge switch sw whose ports all carry the given root
qdisc (a lossless pool), receivers r0.. (10.0.0.1..) and senders h0..
(10.0.0.10..) on one /24 with static neighbours; each sender's uplink
is `lossless rate R` (it honours the switch's PFC) with the ingress
program. bursts() runs ll-flows senders that share one t0, so their
flows start at the same instants (--incast-at), and returns what the
receiver got; flow_groups() does the same for several groups of flows
(each its own receiver, sizes and start times per sender). port_stats() reads `tc -s -j` of every switch port.
"""

import json
import signal
import subprocess
import time

from incast import size_backlog
from topology import Paths, announce

FLOWS = Paths.flows
PORT = 5000


def build(t, switch_qdisc, senders, receivers=1, mbit=5, host_limit=20000):
    """Returns (sw, rx, tx, ports): rx and tx lists of (host, ip, link),
    ports {switch device: host name}."""
    sw = t.switch("sw")
    rx = [(h, f"10.0.0.{1 + j}", t.link(h, sw)) for j, h in
          enumerate(t.host(f"r{j}") for j in range(receivers))]
    tx = [(h, f"10.0.0.{10 + i}", t.link(h, sw)) for i, h in
          enumerate(t.host(f"h{i}") for i in range(senders))]
    for h, ip, lk in rx + tx:
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add {ip}/24 dev {lk['a_if']}")
    for h, ip, lk in tx:
        for r, rip, rlk in rx:
            h.run(f"ip neigh replace {rip} lladdr {rlk['a_mac']} dev {lk['a_if']} nud permanent")
            r.run(f"ip neigh replace {ip} lladdr {lk['a_mac']} dev {rlk['a_if']} nud permanent")
        h.run(f"tc qdisc add dev {lk['a_if']} root lossless rate {mbit}mbit limit {host_limit}")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")
    announce([h for h, _, _ in rx + tx])
    ports = {}
    for h, _, lk in rx + tx:
        sw.run(f"tc qdisc add dev {lk['b_if']} root handle 1: {switch_qdisc}")
        sw.run(f"{Paths.ingress} attach {lk['b_if']} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
        ports[lk["b_if"]] = h.name
    size_backlog(sw, list(ports))
    return sw, rx, tx, ports


def port_stats(sw):
    """tc -s -j of every lossless qdisc of the switch, by device."""
    return {q["dev"]: q for q in json.loads(sw.run("tc -s -j qdisc show"))
            if q.get("kind") == "lossless"}


def all_options(sw, ports):
    """The tc options of each of ports, to compare before and after."""
    return {p: q["options"] for p, q in port_stats(sw).items() if p in ports}


def uplink_stats(host, link):
    return json.loads(host.run(f"tc -s -j qdisc show dev {link['a_if']}"))[0]


def lossless_sum(q, prios, key):
    return sum(q["ingress"][p][key] for p in prios)


def drained(sw, timeout=30.0):
    """Wait until the switch's pool and queues are empty (True) or timeout."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        st = port_stats(sw)
        if all(q.get("pool_shared_used", 0) == 0 and q.get("pool_headroom_used", 0) == 0 and
               q.get("backlog", 0) == 0 for q in st.values()):
            return True
        time.sleep(0.3)
    return False


def bursts(sw, rx, tx, size, at, mbit, prio=3, dscp=24, dst=0, lead_s=None, sndbuf=4 << 20):
    """Every sender of tx starts one flow of size bytes to receiver dst at
    each time of at (s after a common t0). Returns (sends, recv, t0_ns,
    datagrams sent, datagrams received): the senders' and the receiver's
    ll-flows reports, once the switch has drained."""
    group = {"dst": dst, "size": size, "at": {i: at for i in range(len(tx))}}
    sends, recvs, t0, expect, got = flow_groups(sw, rx, tx, [group], mbit, prio, dscp, lead_s, sndbuf)
    return [sends[(0, i)] for i in range(len(tx))], recvs[dst], t0, expect, got


def flow_groups(sw, rx, tx, groups, mbit, prio=3, dscp=24, lead_s=None, sndbuf=4 << 20):
    """Several groups of flows from the senders of tx, all on one priority
    and one common t0. A group is a dict: "dst" (receiver index), "size"
    (bytes per flow), "at" ({sender index: [s after t0, ...]}: that sender
    starts one flow at each time), and optionally "sndbuf". Each (group,
    sender) is its own ll-flows process and socket (a queue pair: its
    socket buffer bounds what it holds in the sender's qdisc), with sender
    id 100 x group + sender index, so a flow of a receiver's report belongs
    to group sender // 100. Returns (sends {(group, sender): report},
    recvs {receiver index: report}, t0_ns, datagrams sent, datagrams
    received), once the switch has drained."""
    n_procs = sum(len(g["at"]) for g in groups)
    n_hosts = len({i for g in groups for i in g["at"]})
    lead = lead_s if lead_s is not None else 1.5 + 0.4 * n_hosts + 0.2 * (n_procs - n_hosts)
    t0 = time.monotonic_ns() + int(lead * 1e9)
    recv_procs = {}
    for d in sorted({g["dst"] for g in groups}):
        r = rx[d][0]
        recv = subprocess.Popen(f"exec nsenter --net=/run/netns/{r.ns} {FLOWS} recv --port {PORT} "
                                f"--duration 600 --bucket-ms 100 --t0-ns {t0}", shell=True, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        r.topo.procs.append(recv)
        line = recv.stderr.readline()
        if "receiving" not in line:
            raise RuntimeError(f"ll-flows recv on {r.name} did not start: {line.strip()}")
        recv_procs[d] = recv
    duration = max(max(a) for g in groups for a in g["at"].values()) + 0.1
    procs = {}
    for k, g in enumerate(groups):
        r_ip = rx[g["dst"]][1]
        for i, at in sorted(g["at"].items()):
            h = tx[i][0]
            procs[(k, i)] = h.popen(
                f"{FLOWS} send --dst {r_ip} --port {PORT} --rate-mbit {mbit} "
                f"--duration {duration} --t0-ns {t0} --sender {100 * k + i} --prio {prio} --dscp {dscp} "
                f"--sndbuf {g.get('sndbuf', sndbuf)} --incast-size {g['size']} "
                f"--incast-at {','.join(str(a) for a in at)} --max-drain 60")
    sends = {}
    for key, p in procs.items():
        out, err = p.communicate(timeout=duration + lead + 120)
        if p.returncode:
            raise RuntimeError(f"sender h{key[1]} of group {key[0]} failed ({p.returncode}): {err.strip()}")
        sends[key] = json.loads(out)
    # The last bytes leave the switch after the senders are done.
    expect = sum(s["datagrams"] for s in sends.values())
    drained(sw)
    time.sleep(0.5)
    recvs = {}
    for d, recv in recv_procs.items():
        recv.send_signal(signal.SIGINT)
        out, err = recv.communicate(timeout=60)
        recvs[d] = json.loads(out)
    got = sum(v["datagrams"] for res in recvs.values() for v in res["senders"].values())
    return sends, recvs, t0, expect, got
