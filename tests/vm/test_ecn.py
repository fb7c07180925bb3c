#!/usr/bin/python3
"""ECN end to end through a lossless switch (VM test).

A 3:1 incast on lossless priority 3 (DSCP 24) into one switch port: h0 and
h1 send ECN-capable packets (ll-traffic send --ecn: ECT(0)), h2 sends
Not-ECT packets; the receiver counts per flow the ECN codepoint each
packet arrived with (IP_RECVTOS).

  1. `ecn` off (the pool's default): no packet is marked, the ECT packets
     arrive ECT(0), the switch counts no ecn_marks, nothing is lost.
  2. `tc qdisc change ... ecn KMIN KMAX PMAX` on one port turns RED marking
     on for the whole pool; the same traffic again:
       - the ECT flows arrive with CE marks: some, not all (RED ramp);
       - the CE packets the receiver counts equal, exactly, the switch's
         ecn_marks summed over its ports;
       - the Not-ECT flow gets no CE and loses nothing (a lossless
         priority is paused, never dropped, ECN or not);
       - zero loss on every flow, no MMU drop.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from incast import MBIT, PAYLOAD, POOL, PORT, SNDBUF, build, qstats  # noqa: E402
from topology import Paths, Topology  # noqa: E402

SECONDS = float(os.environ.get("LL_ECN_SECONDS", "6"))
# Marking starts above 50 KB in the egress queue and reaches 20% at 1 MB: the
# congested queue (a few hundred KB under PFC) sits on the ramp, so the
# random draw decides and the counts are not trivially "all" or "none".
ECN = os.environ.get("LL_ECN", "50kb 1mb 0.2")
ECT_FLOWS, NOT_ECT_FLOW = (0, 1), 2


def run(sw, r, r_ip, senders):
    """One incast: h0, h1 with --ecn, h2 without; returns sends, recv."""
    recv = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 5 --duration {SECONDS * 10 + 60}")
    r.wait_udp(PORT)
    procs = [h.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {i} --prio 3 --dscp 24 "
                     f"--size {PAYLOAD} --duration {SECONDS} --sndbuf {SNDBUF}"
                     + (" --ecn" if i in ECT_FLOWS else ""))
             for i, (h, _) in enumerate(senders)]
    sends = [json.loads(p.communicate(timeout=SECONDS * 10 + 60)[0]) for p in procs]
    res = json.loads(recv.communicate(timeout=SECONDS * 10 + 120)[0])
    return sends, res


def flow(res, i):
    return res["flows"].get(str(i), {"received": 0, "missing": -1, "not_ect": 0, "ect0": 0,
                                     "ect1": 0, "ce": 0})


def counters(sw, sw_ports):
    """Per switch port: (PFC frames sent, ecn_marks) so far."""
    return {p: (s["pfc_frames_tx"], s["ecn_marks"]) for p, s in ((p, qstats(sw, p)) for p in sw_ports)}


def common_checks(c, tag, sw, sw_ports, sends, res, before):
    st = {p: qstats(sw, p) for p in sw_ports}
    for i, s in enumerate(sends):
        f = flow(res, i)
        c.eq((f["received"], f["missing"]), (s["sent"], 0), f"{tag}: flow {i} received == sent, no gaps")
        c.eq(f["not_ect"] + f["ect0"] + f["ect1"] + f["ce"], f["received"],
             f"{tag}: flow {i}: every packet's ECN codepoint counted")
    c.eq(res["socket_drops"], 0, f"{tag}: receiver socket dropped nothing")
    c.eq(sum(s["drops"] for s in st.values()), 0, f"{tag}: switch qdiscs dropped nothing")
    any_port = next(iter(st.values()))
    c.eq((any_port["pool_drops_lossless"], any_port["pool_drops_lossy"]), (0, 0), f"{tag}: no MMU drop")
    pfc = sum(s["pfc_frames_tx"] - before[p][0] for p, s in st.items())
    c.ok(pfc > 0, f"{tag}: the port was congested: the switch sent PFC", f"{pfc} frames")
    marks = {p: s["ecn_marks"] - before[p][1] for p, s in st.items()}
    return st, marks


def main():
    c = Checks("ecn")
    with Topology("ecn") as t:
        sw, r, r_ip, bottleneck, senders, sw_ports = build(t, f"lossless rate {MBIT}mbit {POOL}", senders=3)
        print(f"  3 senders -> 1 at {MBIT} Mbit/s for {SECONDS:.0f} s on priority 3; "
              f"h0, h1 ECT(0), h2 Not-ECT; switch: {POOL}")

        print("ecn off (default):")
        opts = qstats(sw, bottleneck)["options"]
        c.ok("ecn_kmin" not in opts, "the pool starts with ecn off (tc shows no ecn)",
             f"options: {sorted(opts)}")
        before = counters(sw, sw_ports)
        sends, res = run(sw, r, r_ip, senders)
        st, marks = common_checks(c, "off", sw, sw_ports, sends, res, before)
        print("  received per flow (not_ect, ect0, ce): "
              + ", ".join(f"h{i} ({flow(res, i)['not_ect']}, {flow(res, i)['ect0']}, {flow(res, i)['ce']})"
                          for i in range(3)))
        c.eq([flow(res, i)["ce"] for i in range(3)], [0, 0, 0], "off: no packet arrived CE")
        c.eq([flow(res, i)["ect0"] for i in ECT_FLOWS], [flow(res, i)["received"] for i in ECT_FLOWS],
             "off: the --ecn flows arrived ECT(0)")
        c.eq(flow(res, NOT_ECT_FLOW)["not_ect"], flow(res, NOT_ECT_FLOW)["received"],
             "off: the other flow arrived Not-ECT")
        c.eq(sum(marks.values()), 0, "off: the switch marked nothing")
        for h, lk in senders:
            iq = st[lk["b_if"]]["ingress"]
            c.ok(iq[3]["peak_bytes"] > 0 and iq[0]["peak_bytes"] == 0,
                 f"port {lk['b_if']}: ECT or not, the packets are priority 3 (DSCP 24)",
                 f"prio 3 peak {iq[3]['peak_bytes']} B, prio 0 peak {iq[0]['peak_bytes']} B")

        print(f"ecn {ECN} (tc qdisc change on the bottleneck port, pool-wide):")
        sw.run(f"tc qdisc change dev {bottleneck} root handle 1: lossless ecn {ECN}")
        other = sw_ports[-1]
        opts = qstats(sw, other)["options"]
        c.ok(opts.get("ecn_kmax", 0) > opts.get("ecn_kmin", -1), "ecn is on in the whole pool",
             f"{other}: kmin {opts.get('ecn_kmin')} kmax {opts.get('ecn_kmax')} pmax {opts.get('ecn_pmax')}")
        before = counters(sw, sw_ports)
        sends, res = run(sw, r, r_ip, senders)
        st, marks = common_checks(c, "on", sw, sw_ports, sends, res, before)
        ce = {i: flow(res, i)["ce"] for i in range(3)}
        print("  received per flow (received, not_ect, ect0, ce): "
              + ", ".join(f"h{i} ({flow(res, i)['received']}, {flow(res, i)['not_ect']}, "
                          f"{flow(res, i)['ect0']}, {flow(res, i)['ce']})" for i in range(3)))
        print(f"  ecn_marks per switch port: {marks}")
        for i in ECT_FLOWS:
            f = flow(res, i)
            c.ok(0 < f["ce"] < f["received"], f"on: ECT flow h{i} got CE marks, not on every packet",
                 f"{f['ce']} of {f['received']}")
            c.eq(f["ect0"] + f["ce"], f["received"], f"on: ECT flow h{i}: every packet ECT(0) or CE")
        c.eq(sum(ce.values()), sum(marks.values()),
             "on: CE packets received == ecn_marks of the switch (sum over ports)")
        c.eq(sum(marks.values()), marks[bottleneck], "on: only the congested port marked")
        f2 = flow(res, NOT_ECT_FLOW)
        c.eq((f2["ce"], f2["not_ect"]), (0, f2["received"]), "on: the Not-ECT flow got no CE")
    c.finish()


if __name__ == "__main__":
    main()
