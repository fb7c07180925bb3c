#!/usr/bin/python3
"""Lossless switch scenarios beyond the single incast (VM test).

Isolation: on one switch, h0 and h1 each send lossless priority 3 and
lossy priority 0 to r, so both priorities are congested on r's port. h2
sends lossless priority 3 to r2 at half the line rate: a port with room
to spare (at full line rate its queue would random-walk and pause). Expected:
  - priority 3 to r loses nothing;
  - priority 0 to r drops, by design (egress Dynamic Threshold);
  - the switch never pauses h2, whose port is not congested.

Two hops: h0 and h1 hang off switch 1, which links to switch 2; h2 and h3
hang off switch 2, and so does r. That is a 4:1 incast at switch 2's port
to r. Switch 2 must pause switch 1 and its own hosts, and switch 1 must
pass the pause on to h0 and h1, hop by hop, still with no loss, no port
using more headroom than it has, and the last hop (switch 2's port to r)
at line rate while it holds a backlog: >= 97 % of the rate and >= 0.98 x a
no-PFC control (the same network with tail-drop FIFOs, tbf, at the same
rate on every switch port), from the wire bytes r counted per 100 ms.
The two hops run at LL_TWO_HOP_MBIT (20 Mbit/s).
"""

import json
import os
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from incast import (ATTEMPTS, STEADY_SKIP_S, STEADY_TAIL_S, overloaded,  # noqa: E402
                    steady_util, within_catchup)
from topology import Paths, Topology, announce  # noqa: E402

MBIT = int(os.environ.get("LL_INCAST_MBIT", "5"))
TWO_HOP_MBIT = int(os.environ.get("LL_TWO_HOP_MBIT", "20"))
UTIL_MIN = 0.97
CONTROL_RATIO_MIN = 0.98
SECONDS = float(os.environ.get("LL_SCENARIO_SECONDS", "8"))
SNDBUF = 4 << 20
POOL = "pool sw0 buffer 2mb lossless-prios 3 alpha 1/8 sw-delay 60ms"


class Net:
    """Hosts on one /24 across switches; every switch port lossless."""

    def __init__(self, t, mbit=MBIT, port_qdisc=None):
        """port_qdisc: every switch port's root qdisc (default: lossless in
        pool sw0 at mbit)."""
        self.t = t
        self.next_ip = 10
        self.mbit = mbit
        self.port_qdisc = port_qdisc or f"lossless rate {mbit}mbit {POOL}"

    def switch(self, name):
        return self.t.switch(name)

    def switch_port(self, sw, dev):
        sw.run(f"tc qdisc add dev {dev} root handle 1: {self.port_qdisc}")
        sw.run(f"{Paths.ingress} attach {dev} --pin-dir /sys/fs/bpf/ll-{sw.ns}")

    def trunk(self, sw_a, sw_b):
        lk = self.t.link(sw_a, sw_b)
        self.switch_port(sw_a, lk["a_if"])
        self.switch_port(sw_b, lk["b_if"])
        return lk

    def host(self, name, sw):
        h = self.t.host(name)
        lk = self.t.link(h, sw)
        dev = lk["a_if"]
        h.ip = f"10.0.0.{self.next_ip}"
        self.next_ip += 1
        h.dev, h.mac, h.sw_port = dev, lk["a_mac"], lk["b_if"]
        h.run(f"ip addr flush dev {dev}")
        h.run(f"ip addr add {h.ip}/24 dev {dev}")
        h.run(f"tc qdisc add dev {dev} root lossless rate {self.mbit}mbit limit 20000")
        h.run(f"{Paths.ingress} attach {dev} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        self.switch_port(sw, lk["b_if"])
        return h

    @staticmethod
    def neighbours(hosts):
        for a in hosts:
            for b in hosts:
                if a is not b:
                    a.run(f"ip neigh replace {b.ip} lladdr {b.mac} dev {a.dev} nud permanent")
        announce(hosts)


def qstats(host, dev):
    return json.loads(host.run(f"tc -s -j qdisc show dev {dev}"))[0]


def send(h, dst, port, flow, prio, dscp, rate_mbit=0, seconds=SECONDS):
    pace = f" --rate-mbit {rate_mbit}" if rate_mbit else ""
    return h.popen(f"{Paths.traffic} send --dst {dst.ip} --port {port} --flow {flow} --prio {prio} "
                   f"--dscp {dscp} --size 1000 --duration {seconds} --sndbuf {SNDBUF}{pace}")


def finish(procs, receivers):
    sends = [json.loads(p.communicate(timeout=SECONDS * 10 + 120)[0]) for p in procs]
    recvd = [json.loads(r.communicate(timeout=SECONDS * 10 + 180)[0]) for r in receivers]
    return sends, recvd


def received(recv, flow):
    return recv["flows"].get(str(flow), {"received": 0})["received"]


def isolation(c):
    print("isolation:")
    with Topology("iso") as t:
        n = Net(t)
        sw = n.switch("sw")
        h0, h1, h2, r, r2 = (n.host(x, sw) for x in ("h0", "h1", "h2", "r", "r2"))
        Net.neighbours([h0, h1, h2, r, r2])
        rx = r.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 5 --duration {SECONDS * 10 + 60}")
        rx2 = r2.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 5 --duration {SECONDS * 10 + 60}")
        r.wait_udp(5000)
        r2.wait_udp(5000)
        procs = [send(h0, r, 5000, 3, 3, 24), send(h0, r, 5000, 10, 0, 0),
                 send(h1, r, 5000, 13, 3, 24), send(h1, r, 5000, 11, 0, 0),
                 send(h2, r2, 5000, 23, 3, 24, MBIT / 2)]
        sends, (res, res2) = finish(procs, [rx, rx2])
        by_flow = {s["flow"]: s for s in sends}
        lossy_sent = by_flow[10]["sent"] + by_flow[11]["sent"]
        lossy_got = received(res, 10) + received(res, 11)
        ll_sent = by_flow[3]["sent"] + by_flow[13]["sent"]
        ll_got = received(res, 3) + received(res, 13)
        print(f"  lossless to r: sent {ll_sent} received {ll_got}; "
              f"lossy to r: sent {lossy_sent} received {lossy_got}; "
              f"lossless to r2: sent {by_flow[23]['sent']} received {received(res2, 23)}")
        c.eq(ll_got, ll_sent, "congested port: lossless priority 3 loses nothing")
        c.ok(lossy_got < lossy_sent, "congested port: lossy priority 0 drops (by design)",
             f"{lossy_sent - lossy_got} dropped")
        sw_r = qstats(sw, r.sw_port)
        c.ok(sw_r["pool_drops_lossy"] > 0, "the MMU counted the lossy drops",
             f"{sw_r['pool_drops_lossy']}")
        c.eq(sw_r["pool_drops_lossless"], 0, "the MMU dropped no lossless packet")
        c.eq(received(res2, 23), by_flow[23]["sent"], "uncongested port: priority 3 loses nothing")
        st2 = qstats(sw, h2.sw_port)
        iq = st2["ingress"][3]
        print(f"  pool shared {st2['pool_shared_size']} B, peak used {st2['pool_peak_shared']} B; "
              f"h2 ingress prio 3: peak {iq['peak_bytes']} B, threshold now {iq['threshold']} B")
        c.eq(st2["pfc_frames_tx"], 0, "h2 (uncongested) is never paused by the switch")
        c.eq(qstats(h2, h2.dev)["pfc_frames_rx"], 0, "h2's qdisc never received a pause")
        c.ok(qstats(sw, h0.sw_port)["pfc_frames_tx"] > 0, "h0 (lossless into the congestion) is paused",
             f"{qstats(sw, h0.sw_port)['pfc_frames_tx']} frames")


def two_hop_net(t, port_qdisc=None):
    n = Net(t, TWO_HOP_MBIT, port_qdisc)
    sw1, sw2 = n.switch("sw1"), n.switch("sw2")
    trunk = n.trunk(sw1, sw2)
    h0, h1 = n.host("h0", sw1), n.host("h1", sw1)
    h2, h3, r = n.host("h2", sw2), n.host("h3", sw2), n.host("r", sw2)
    Net.neighbours([h0, h1, h2, h3, r])
    return sw1, sw2, trunk, [h0, h1, h2, h3], r


def two_hop_traffic(sw2, senders, r):
    """The 4:1 incast; returns (sends, receiver report, utilisation of the
    last hop in the steady window, its backlog samples in bytes)."""
    rx = r.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 5 --duration {SECONDS * 10 + 60}"
                 " --bucket-ms 100")
    r.wait_udp(5000)
    start_ns = time.monotonic_ns()
    procs = [send(h, r, 5000, i, 3, 24) for i, h in enumerate(senders)]
    window = max(1.0, SECONDS - STEADY_SKIP_S - STEADY_TAIL_S)
    time.sleep(STEADY_SKIP_S + 0.2)
    backlog = []
    for _ in range(3):
        backlog.append(qstats(sw2, r.sw_port)["backlog"])
        time.sleep(window / 4)
    sends, (res,) = finish(procs, [rx])
    lo = start_ns + int(STEADY_SKIP_S * 1e9)
    util, buckets = steady_util(res, lo, lo + int(window * 1e9), TWO_HOP_MBIT)
    print(f"  last hop: {util * 100:.1f}% of {TWO_HOP_MBIT} Mbit/s over {len(buckets)} buckets "
          f"of 100 ms (min {min(buckets, default=0) * 100:.1f}%), backlog samples {backlog} B")
    return sends, res, util, backlog


def two_hop_checks(c, sw1, sw2, trunk, senders, r, sends, res, util, backlog):
    h0, h1 = senders[:2]
    total_sent = sum(s["sent"] for s in sends)
    total_got = sum(received(res, i) for i in range(4))
    print(f"  4:1 incast behind switch 2: sent {total_sent} received {total_got}")
    for i, s in enumerate(sends):
        c.eq(received(res, i), s["sent"], f"sender h{i}: received == sent")
    sw2_trunk = qstats(sw2, trunk["b_if"])
    sw1_trunk = qstats(sw1, trunk["a_if"])
    c.ok(sw2_trunk["pfc_frames_tx"] > 0, "switch 2 paused switch 1",
         f"{sw2_trunk['pfc_frames_tx']} frames")
    c.ok(sw1_trunk["pfc_frames_rx"] > 0, "switch 1's trunk port honoured it",
         f"{sw1_trunk['pfc_frames_rx']} frames")
    hop1 = sum(qstats(sw1, h.sw_port)["pfc_frames_tx"] for h in (h0, h1))
    c.ok(hop1 > 0, "switch 1 passed the pause on to its hosts", f"{hop1} frames")
    for name, sw in (("switch 1", sw1), ("switch 2", sw2)):
        s = qstats(sw, trunk["a_if"] if sw is sw1 else trunk["b_if"])
        c.eq(s["pool_drops_lossless"], 0, f"{name}: no lossless drop")
    ports = [(sw1, trunk["a_if"]), (sw2, trunk["b_if"])] + \
        [(sw1 if h in (h0, h1) else sw2, h.sw_port) for h in senders + [r]]
    for sw, dev in ports:
        iq = qstats(sw, dev)["ingress"][3]
        c.le(iq["peak_headroom"], iq["headroom_size"],
             f"{sw.name} {dev}: peak headroom <= its size", " B")
    c.ok(min(backlog) > 0, "the last hop held a backlog while measured", f"min {min(backlog)} B")
    c.ge(round(util, 4), UTIL_MIN, "last hop utilisation while backlogged")


def two_hops(c):
    print(f"two hops at {TWO_HOP_MBIT} Mbit/s:")
    for attempt in range(1, ATTEMPTS + 1):
        with Topology("hop") as t:
            sw1, sw2, trunk, senders, r = two_hop_net(t)
            sends, res, util, backlog = two_hop_traffic(sw2, senders, r)
            what = f"two hops attempt {attempt}"
            valid = overloaded({"backlog_samples": backlog}, what) and \
                within_catchup(qstats(sw2, r.sw_port), what)
            if valid or attempt == ATTEMPTS:
                two_hop_checks(c, sw1, sw2, trunk, senders, r, sends, res, util, backlog)
                catchup = qstats(sw2, r.sw_port)["catchup"]
                break
    # The control's bucket is as deep as the lossless port's catch-up: both
    # forgive the same timer lateness.
    with Topology("hop") as t:
        _, sw2, _, senders, r = two_hop_net(
            t, f"tbf rate {TWO_HOP_MBIT}mbit burst {catchup} limit 2mb")
        csends, cres, cutil, _ = two_hop_traffic(sw2, senders, r)
        csent = sum(s["sent"] for s in csends)
        cgot = sum(received(cres, i) for i in range(4))
        print(f"  control (tail-drop FIFOs): sent {csent} received {cgot}")
        c.ok(cgot < csent, "control: the FIFO switches lose packets", f"{csent - cgot} lost")
        ratio = util / cutil if cutil else 0.0
        c.ge(round(ratio, 4), CONTROL_RATIO_MIN, "last hop utilisation vs the no-PFC control")


def main():
    c = Checks("switch_scenarios")
    which = os.environ.get("LL_SCENARIOS", "isolation two_hops").split()
    if "isolation" in which:
        isolation(c)
    if "two_hops" in which:
        two_hops(c)
    c.finish()


if __name__ == "__main__":
    main()
