"""A switch with several receivers and senders, and synchronised bursts, for
the scheme VM tests (tests/vm/test_dsh.py, test_spfc.py).

build() makes one bridge switch sw whose ports all carry the given root
qdisc (a lossless pool), receivers r0.. (10.0.0.1..) and senders h0..
(10.0.0.10..) on one /24 with static neighbours; each sender's uplink
is `lossless rate R` (it honours the switch's PFC) with the ingress
program. bursts() runs ll-flows senders that share one t0, so their
flows start at the same instants (--incast-at), and returns what the
receivers got. port_stats() reads `tc -s -j` of every switch port.
"""

import json
import os
import signal
import subprocess
import time

from incast import size_backlog
from topology import Paths, announce

FLOWS = os.path.join(Paths.build, "tests", "tools", "ll-flows")
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
    r, r_ip, _ = rx[dst]
    lead = lead_s if lead_s is not None else 1.5 + 0.4 * len(tx)
    t0 = time.monotonic_ns() + int(lead * 1e9)
    recv = subprocess.Popen(f"exec nsenter --net=/run/netns/{r.ns} {FLOWS} recv --port {PORT} "
                            f"--duration 600 --bucket-ms 100 --t0-ns {t0}", shell=True, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    r.topo.procs.append(recv)
    line = recv.stderr.readline()
    if "receiving" not in line:
        raise RuntimeError(f"ll-flows recv did not start: {line.strip()}")
    duration = max(at) + 0.1
    procs = []
    for i, (h, _, _) in enumerate(tx):
        procs.append(h.popen(f"{FLOWS} send --dst {r_ip} --port {PORT} --rate-mbit {mbit} "
                             f"--duration {duration} --t0-ns {t0} --sender {i} --prio {prio} --dscp {dscp} "
                             f"--sndbuf {sndbuf} --incast-size {size} "
                             f"--incast-at {','.join(str(a) for a in at)} --max-drain 60"))
    sends = []
    for i, p in enumerate(procs):
        out, err = p.communicate(timeout=duration + lead + 120)
        if p.returncode:
            raise RuntimeError(f"sender h{i} failed ({p.returncode}): {err.strip()}")
        sends.append(json.loads(out))
    # The last bytes leave the switch after the senders are done.
    expect = sum(s["datagrams"] for s in sends)
    drained(sw)
    time.sleep(0.5)
    recv.send_signal(signal.SIGINT)
    out, err = recv.communicate(timeout=60)
    res = json.loads(out)
    got = sum(v["datagrams"] for v in res["senders"].values())
    return sends, res, t0, expect, got
