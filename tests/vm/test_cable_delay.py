#!/usr/bin/python3
"""Long cables: links with a real propagation delay (VM test).

The wire: two hosts joined by a direct link and by a link with a one-way
delay of LL_CABLE_DELAY (2 ms by default; Topology.link(delay=...), a
wire namespace with mirred and netem). Expected:
  - the delayed link's dict has the same keys as a direct one, and the
    ends see each other's real MAC addresses (ARP resolved across it);
  - the round trip across it takes at least 2 x the delay, and across the
    direct link less (so the measurement can tell the difference);
  - data, and PFC frames in both directions, cross it: exactly the frames
    sent arrive and are applied by the other end's qdisc;
  - after the tear-down no namespace or interface of the test is left.

The incast: LL_CABLE_SENDERS (4) hosts send lossless priority 3 to one
host through a lossless switch whose every link has that delay, and
whose switch ports say so with `cable-delay`. Expected:
  - the round trip host -> switch -> host takes at least 4 x the delay;
  - every port's headroom is exactly the formula of docs/MMU.md with the
    cable terms, and its peak use stays within it;
  - zero loss; the switch sends PFC and every frame crosses its cable and
    is applied by the host; the bottleneck stays busy; every pool counter
    is back to 0 afterwards.
"""

import json
import math
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from incast import MBIT, POOL, qstats, run_incast, summary  # noqa: E402
from topology import Paths, Topology, ping, sh  # noqa: E402

DELAY = os.environ.get("LL_CABLE_DELAY", "2ms")
SENDERS = int(os.environ.get("LL_CABLE_SENDERS", "4"))
SECONDS = float(os.environ.get("LL_CABLE_SECONDS", "8"))
SW_DELAY = re.search(r"sw-delay (\S+)", POOL).group(1)
MTU = 1500 + 14 + 4  # the pool's MTU: device MTU + Ethernet header + one VLAN tag


def ns_of(t):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", t)
    return round(float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)])


def headroom(rate_bps, cable_ns, sw_ns, mtu=MTU):
    """kernel/core/headroom.h with the values tc gives: peer quanta from the
    rate table (1 up to 100 Mbit/s), no queued bytes, no rounding."""
    quanta = 1 if rate_bps <= 100_000_000 else None
    assert quanta, "extend the quanta table for this rate"
    # (9): the shaper's catch-up, by default sw-delay at the rate, at least
    # the burst (2 frames at these rates).
    catchup = max(math.ceil(rate_bps * sw_ns / 8e9), 2 * (1500 + 14))
    return (3 * mtu + math.ceil(rate_bps * 2 * cable_ns / 8e9) + 64 + quanta * 64
            + math.ceil(rate_bps * sw_ns / 8e9) + catchup)


def pfc_frame(sender, dev, src_mac):
    """One PFC XOFF for priority 3 (100 quanta) sent by tests/lib/pause_sender.py from sender's dev."""
    plan = [{"at": 0, "name": "xoff", "kind": "pfc", "vector": 1 << 3,
             "times": [0, 0, 0, 100, 0, 0, 0, 0]}]
    p = sender.popen(f"{Paths.python} {Paths.pause_sender} {dev} {src_mac} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + p.communicate()[1])
    p.communicate("go\n", timeout=60)


def leftovers(prefix):
    nss = [ln.split()[0] for ln in sh("ip netns list", check=False).stdout.splitlines()
           if ln.split() and ln.split()[0].startswith(prefix)]
    devs = [d["ifname"] for d in json.loads(sh("ip -j link show"))
            if d["ifname"].startswith(prefix)]
    return nss + devs


def wire(c):
    d = ns_of(DELAY)
    print(f"wire ({DELAY} one way):")
    with Topology("wire") as t:
        a, b = t.host("a"), t.host("b")
        direct = t.link(a, b)
        cable = t.link(a, b, delay=DELAY)
        c.eq(sorted(cable), sorted(direct), "a delayed link's dict has the keys of a direct one")
        c.eq((cable["a_mac"], cable["b_mac"]),
             (a.link_info(cable["a_if"])["address"], b.link_info(cable["b_if"])["address"]),
             "its MACs are the ends' own")
        # ARP across the wire: drop the static entries, let ARP resolve.
        a.run(f"ip neigh del {cable['b_ip']} dev {cable['a_if']}")
        b.run(f"ip neigh del {cable['a_ip']} dev {cable['b_if']}")
        p_cable = ping(a, cable["b_ip"], count=20)
        p_direct = ping(a, direct["b_ip"], count=20)
        neigh = a.json(f"ip -j neigh show {cable['b_ip']} dev {cable['a_if']}")
        c.eq([(n.get("lladdr"), "PERMANENT" in n.get("state", [])) for n in neigh],
             [(cable["b_mac"], False)], "ARP across the wire resolved b's MAC")
        c.eq((p_cable["lost"], p_direct["lost"]), (0, 0), "no echo lost on either link")
        rtt_c, rtt_d = min(p_cable["rtt_ms"] or [0]), min(p_direct["rtt_ms"] or [0])
        print(f"  round trip, min of 20: delayed link {rtt_c:.3f} ms, direct link {rtt_d:.3f} ms")
        c.ge(rtt_c, 2 * d / 1e6, "delayed link: round trip >= 2 x the delay", " ms")
        c.ok(rtt_d < 2 * d / 1e6, "direct link: round trip < 2 x the delay (the probe can tell)",
             f"{rtt_d} ms < {2 * d / 1e6} ms")

        # Data, classified priority 3 by DSCP 24.
        rx = b.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 2 --duration 60")
        b.wait_udp(5000)
        sent = a.json(f"{Paths.traffic} send --dst {cable['b_ip']} --port 5000 --flow 1 --prio 3 "
                      f"--dscp 24 --count 200 --rate-mbit 2")
        res = json.loads(rx.communicate(timeout=60)[0])
        f = res["flows"].get("1", {"received": 0, "missing": -1})
        c.eq((f["received"], f["missing"]), (sent["sent"], 0), "data crosses the wire: all received")

        # PFC both ways: each end's qdisc applies the frame the other sent.
        for h in (a, b):
            dev = cable["a_if"] if h is a else cable["b_if"]
            h.run(f"tc qdisc add dev {dev} root handle 1: lossless rate 100mbit")
            h.run(f"{Paths.ingress} attach {dev} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        pfc_frame(b, cable["b_if"], cable["b_mac"])
        pfc_frame(a, cable["a_if"], cable["a_mac"])
        time.sleep(0.2)
        for h, dev, name in ((a, cable["a_if"], "b -> a"), (b, cable["b_if"], "a -> b")):
            q = qstats(h, dev)
            c.eq((q["pfc_frames_rx"], q["pause_frames_rx"], q["ctrl_invalid"]), (1, 0, 0),
                 f"PFC {name}: the one frame sent crossed the wire and was applied")
        wire_ns = cable["wire"]
        tx = {dev: next(q["packets"] for q in wire_ns.json(f"tc -s -j qdisc show dev {dev}")
                        if q["kind"] == "netem") for dev in ("wa", "wb")}
        print(f"  the wire's netem qdiscs sent: wa (to a) {tx['wa']}, wb (to b) {tx['wb']} frames")
        c.ok(tx["wb"] >= sent["sent"] + 1, "the frames went through the wire's netem",
             f"wb sent {tx['wb']} >= {sent['sent'] + 1}")
    time.sleep(0.5)
    c.eq(leftovers("llwire-"), [], "nothing of the test is left after the tear-down")


def incast(c):
    d = ns_of(DELAY)
    rate = MBIT * 1_000_000
    want = headroom(rate, d, ns_of(SW_DELAY))
    qdisc = f"lossless rate {MBIT}mbit {POOL} cable-delay {DELAY}"
    print(f"incast over long cables: {SENDERS} senders -> 1 at {MBIT} Mbit/s for {SECONDS:.0f} s, "
          f"every link {DELAY} one way; switch: {qdisc}")
    rtt = {}

    def before(sw, r, r_ip, senders):
        rtt.update(ping(senders[0][0], r_ip, count=10))

    with Topology("cab") as t:
        sw, senders, sw_ports, bottleneck, sends, res, util = run_incast(
            t, qdisc, senders=SENDERS, seconds=SECONDS, delay=DELAY, before=before)
        st = {p: qstats(sw, p) for p in sw_ports}
        pfc_tx = sum(s.get("pfc_frames_tx", 0) for s in st.values())
        summary("lossless", sends, res, pfc_tx, util)

        r_min = min(rtt.get("rtt_ms") or [0])
        print(f"  round trip h0 -> switch -> r, min of 10: {r_min:.3f} ms")
        c.eq(rtt.get("lost"), 0, "echo h0 -> r: nothing lost")
        c.ge(r_min, 4 * d / 1e6, "round trip across two cables >= 4 x the delay", " ms")

        for i, s in enumerate(sends):
            f = res["flows"].get(str(i), {"received": 0, "missing": s["sent"]})
            c.eq((f["received"], f["missing"]), (s["sent"], 0), f"sender {i}: received == sent, no gaps")
        c.eq(res["socket_drops"], 0, "receiver socket dropped nothing")
        c.eq(sum(s["drops"] for s in st.values()), 0, "switch qdiscs dropped nothing")
        c.eq(st[bottleneck]["pool_drops_lossless"], 0, "MMU: no lossless drop")
        c.ok(pfc_tx > 0, "the switch sent PFC upstream", f"{pfc_tx} frames")
        # Exact: the switch's PFC frames all cross the cables (none is
        # lost or duplicated on the way) and the hosts apply each of them.
        honoured = sum(qstats(h, lk["a_if"])["pfc_frames_rx"] for h, lk in senders)
        c.eq(honoured, pfc_tx, "the hosts' qdiscs applied every PFC frame the switch sent")
        # The probe is two tc calls ~5 s apart, each taking a few hundred ms
        # under TCG with the wires' extra namespaces, so it is good to a few
        # per cent (94.8 .. 99.1 % seen). A port that PFC's 4 ms of
        # XON-to-data delay left idle would fall far below 90 %.
        c.ge(round(util, 3), 0.90, "bottleneck utilisation while senders run")
        print(f"  headroom per port: computed {want} B ({DELAY} cable; "
              f"{headroom(rate, 0, ns_of(SW_DELAY))} B without it)")
        for p, s in st.items():
            iq = s["ingress"][3]
            c.eq((s["options"].get("cable_delay"), iq["headroom_size"]), (d, want),
                 f"port {p}: cable-delay {DELAY} in the headroom")
            c.le(iq["peak_headroom"], iq["headroom_size"],
                 f"port {p}: peak headroom <= computed headroom", " B")
        peak = max(s["ingress"][3]["peak_headroom"] for s in st.values())
        print(f"  peak headroom use of a port: {peak} B of {want} B; pool peak shared "
              f"{st[bottleneck]['pool_peak_shared']} B, headroom {st[bottleneck]['pool_peak_headroom']} B")
        time.sleep(1)
        for p in sw_ports:
            s = qstats(sw, p)
            c.eq((s["pool_shared_used"], s["pool_headroom_used"], s["ingress"][3]["bytes"]),
                 (0, 0, 0), f"port {p}: pool counters back to 0")


def main():
    c = Checks("cable_delay")
    which = os.environ.get("LL_CABLE_PARTS", "wire incast").split()
    if "wire" in which:
        wire(c)
    if "incast" in which:
        incast(c)
    c.finish()


if __name__ == "__main__":
    main()
