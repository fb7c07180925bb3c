#!/usr/bin/python3
"""Incast through a lossless software switch: zero loss (VM test).

8 hosts send UDP at line rate on lossless priority 3 (DSCP 24) to one host
through a Linux bridge whose 9 ports all carry `lossless ... pool sw0`. All
links run at LL_INCAST_MBIT (5 Mbit/s by default: what QEMU TCG sustains
for 9 namespaces on 2 cores; 8 x 5 Mbit/s offered into one 5 Mbit/s
port). The switch buffer (2 MB) is far smaller than the excess offered
(7 x 5 Mbit/s x 10 s = 43.75 MB), so only PFC can keep it lossless:

  - every packet sent is received (per-sender sequence numbers);
  - the switch sent PFC and the hosts' qdiscs honoured it;
  - the bottleneck port is >= 95% utilised while the senders run;
  - peak headroom use on every port <= its computed headroom;
  - no MMU drop, and every pool counter is back to 0 afterwards.

The control: the same incast with a tail-drop FIFO at the
same line rate on the switch (tbf) loses packets.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from topology import Paths, Topology, announce  # noqa: E402

MBIT = int(os.environ.get("LL_INCAST_MBIT", "5"))
SENDERS = int(os.environ.get("LL_INCAST_SENDERS", "8"))
SECONDS = float(os.environ.get("LL_INCAST_SECONDS", "10"))
PAYLOAD = 1000
# A UDP packet stays charged to its socket until freed, wherever it waits in
# the namespaces: with the default send buffer each sender would block after
# ~200 KB in flight and no switch could overflow. 4 MB per sender makes the
# network, not the sockets, hold the excess (PFC here, tail drop in the FIFO).
SNDBUF = 4 << 20
WIRE = PAYLOAD + 8 + 20 + 14  # UDP + IPv4 + Ethernet: what the shaper counts
# sw-delay: the software response the headroom must cover. Natively a
# Linux bridge answers in well under 1 ms; under QEMU TCG with 9 busy
# namespaces on 2 vCPUs softirqs fall to ksoftirqd and packets wait in
# veth's per-CPU backlog (the "cable" of a veth link), so it is sized for
# that (LL_INCAST_SW_DELAY overrides).
SW_DELAY = os.environ.get("LL_INCAST_SW_DELAY", "60ms")
POOL = f"pool sw0 buffer 2mb lossless-prios 3 alpha 1/8 sw-delay {SW_DELAY}"
PORT = 5000


def build(t, switch_qdisc):
    sw = t.switch("sw")
    r = t.host("r")
    lr = t.link(r, sw)
    r_ip = lr["a_ip"]
    senders = []
    for i in range(SENDERS):
        h = t.host(f"h{i}")
        lk = t.link(h, sw)
        # Re-address into r's subnet: one L2 domain through the bridge.
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add 10.0.0.{10 + i}/24 dev {lk['a_if']}")
        h.run(f"ip neigh replace {r_ip} lladdr {lr['a_mac']} dev {lk['a_if']} nud permanent")
        r.run(f"ip neigh replace 10.0.0.{10 + i} lladdr {lk['a_mac']} dev {lr['a_if']} nud permanent")
        # The host's uplink: line rate, honours the switch's PFC.
        # Large enough to hold all the sender's socket lets it queue.
        h.run(f"tc qdisc add dev {lk['a_if']} root lossless rate {MBIT}mbit limit 20000")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        senders.append((h, lk))
    announce([r] + [h for h, _ in senders])
    sw_ports = [lr["b_if"]] + [lk["b_if"] for _, lk in senders]
    for p in sw_ports:
        sw.run(f"tc qdisc add dev {p} root handle 1: {switch_qdisc}")
        sw.run(f"{Paths.ingress} attach {p} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
    return sw, r, r_ip, lr["b_if"], senders, sw_ports


def run_incast(t, switch_qdisc):
    sw, r, r_ip, bottleneck, senders, sw_ports = build(t, switch_qdisc)
    recv = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 5 --duration {SECONDS * 4 + 60}")
    time.sleep(0.5)
    procs = [h.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {i} --prio 3 --dscp 24 "
                     f"--size {PAYLOAD} --duration {SECONDS} --sndbuf {SNDBUF}")
             for i, (h, _) in enumerate(senders)]
    # Utilisation of the bottleneck in steady state: its sent-bytes counter
    # sampled 1.5 s after the start and 1.5 s before the senders stop.
    time.sleep(1.5)
    first = sent_bytes(sw, bottleneck)
    time.sleep(max(1.0, SECONDS - 3.0))
    last = sent_bytes(sw, bottleneck)
    util = (last[1] - first[1]) * 8 / (MBIT * 1e6 * (last[0] - first[0]))
    sends = [json.loads(p.communicate(timeout=SECONDS * 4 + 60)[0]) for p in procs]
    res = json.loads(recv.communicate(timeout=SECONDS * 4 + 120)[0])
    return sw, senders, sw_ports, bottleneck, sends, res, util


def sent_bytes(host, dev):
    """(time, bytes sent) of dev's root qdisc; the time is the middle of the
    tc call, which takes a while under TCG."""
    t0 = time.monotonic()
    b = qstats(host, dev)["bytes"]
    return (t0 + time.monotonic()) / 2, b


def qstats(host, dev):
    return json.loads(host.run(f"tc -s -j qdisc show dev {dev}"))[0]


def summary(name, sends, res, pauses, util):
    sent = sum(s["sent"] for s in sends)
    got = sum(f["received"] for f in res["flows"].values())
    print(f"  {name:9s} sent {sent:8d}  received {got:8d}  lost {sent - got:7d}  "
          f"pauses {pauses:6d}  bottleneck {util * 100:5.1f}%")
    return sent, got


def main():
    c = Checks("incast")
    print(f"  {SENDERS} senders -> 1 receiver at {MBIT} Mbit/s for {SECONDS:.0f} s, switch: {POOL}")
    with Topology("inc") as t:
        sw, senders, sw_ports, bottleneck, sends, res, util = run_incast(
            t, f"lossless rate {MBIT}mbit {POOL}")
        st = {p: qstats(sw, p) for p in sw_ports}
        pfc_tx = sum(s.get("pfc_frames_tx", 0) for s in st.values())
        sent, got = summary("lossless", sends, res, pfc_tx, util)

        for i, s in enumerate(sends):
            f = res["flows"].get(str(i), {"received": 0, "missing": s["sent"]})
            c.eq(f["received"], s["sent"], f"sender {i}: received == sent")
            c.eq(f["missing"], 0, f"sender {i}: no sequence gaps")
        c.eq(res["socket_drops"], 0, "receiver socket dropped nothing")
        c.eq(sum(s["drops"] for s in st.values()), 0, "switch qdiscs dropped nothing")
        any_port = st[bottleneck]
        c.eq(any_port.get("pool_drops_lossless"), 0, "MMU: no lossless drop")
        c.eq(any_port.get("pool_ports"), SENDERS + 1, "every switch port is in the pool")
        c.ok(pfc_tx > 0, "the switch sent PFC upstream", f"{pfc_tx} frames")
        honoured = sum(qstats(h, lk["a_if"])["pfc_frames_rx"] for h, lk in senders)
        c.ok(honoured > 0, "the hosts' qdiscs received and applied PFC", f"{honoured} frames")
        c.ge(round(util, 3), 0.95, "bottleneck utilisation while senders run")
        for p, s in st.items():
            iq = s["ingress"][3]
            c.le(iq["peak_headroom"], iq["headroom_size"],
                 f"port {p}: peak headroom <= computed headroom", " B")
        time.sleep(1)
        for p in sw_ports:
            s = qstats(sw, p)
            c.eq((s["pool_shared_used"], s["pool_headroom_used"], s["ingress"][3]["bytes"]),
                 (0, 0, 0), f"port {p}: pool counters back to 0")
        peak = max(s["pool_peak_headroom"] for s in st.values())
        print(f"  pool peak shared {any_port['pool_peak_shared']} B, peak headroom {peak} B "
              f"of {any_port['pool_headroom_size']} B")

    # The control: the same incast with a tail-drop FIFO at the same line
    # rate (tbf: a pfifo behind a shaper) and the same buffer per port.
    with Topology("inc") as t:
        _, _, _, _, sends, res, util = run_incast(
            t, f"tbf rate {MBIT}mbit burst 3028 limit 2mb")
        sent, got = summary("fifo", sends, res, 0, util)
        c.ok(got < sent, "control: a FIFO switch at the same rate loses packets", f"{sent - got} lost")
    c.finish()


if __name__ == "__main__":
    main()
