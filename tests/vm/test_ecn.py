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
  3. `ecn-mode np-ecn` (PCN's NP-ECN at dequeue, docs/PCN.md): refused
     beside RED with a message, nothing changed; its threshold K
     (`np-ecn-k`) given on one port shows on another, then goes back to
     the paper's 0; then with `ecn off` the
     same traffic while the receiver PAUSEs the switch's port to it for
     one second in the middle:
       - the ECT flows arrive CE-marked, and the CE packets the receiver
         counts equal, exactly, the np-ecn marks of the port's queues;
       - the RESUME exempts the packets queued then (PN): exempt > 0;
       - the Not-ECT flow's would-be marks are counted (not-ect), it gets
         no CE; RED marks nothing; zero loss.
"""

import json
import os
import re
import subprocess
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


NP_ECN_RE = re.compile(r"np-ecn marked (\d+) exempt (\d+) not-ect (\d+)")


def np_ecn_counters(sw, port):
    """The port's queues' NP-ECN counters summed: (marked, exempt,
    not_ect), from tc -s class (iproute2 6.1 has no JSON for classes; a
    queue that decided nothing shows no line)."""
    rows = [tuple(int(x) for x in m.groups()) for m in NP_ECN_RE.finditer(sw.run(f"tc -s class show dev {port}"))]
    return tuple(sum(r[k] for r in rows) for k in range(3))


def np_ecn(c, sw, r, r_ip, bottleneck, senders, sw_ports):
    other = sw_ports[-1]
    before_opts = qstats(sw, other)["options"]
    out = sw.run(f"tc qdisc change dev {bottleneck} root handle 1: lossless ecn-mode np-ecn", check=False)
    c.ok(out.returncode != 0 and "give ecn off with it" in out.stderr,
         "np-ecn: refused beside RED, with a message", out.stderr.strip()[:120])
    c.eq(qstats(sw, other)["options"], before_opts, "np-ecn: a refusal changed nothing")
    sw.run(f"tc qdisc change dev {bottleneck} root handle 1: lossless ecn off ecn-mode np-ecn")
    opts = qstats(sw, other)["options"]
    c.ok(opts.get("ecn_mode") == "np-ecn" and "ecn_kmin" not in opts, "np-ecn: on in the whole pool",
         f"{other}: ecn_mode {opts.get('ecn_mode')}")
    # Its threshold K: pool-wide, shown while not 0; back to the paper's 0
    # for the traffic below.
    sw.run(f"tc qdisc change dev {bottleneck} root handle 1: lossless np-ecn-k 20kb")
    c.eq(qstats(sw, other)["options"].get("np_ecn_k"), 20480, "np-ecn-k: set on one port, the pool's")
    sw.run(f"tc qdisc change dev {bottleneck} root handle 1: lossless np-ecn-k 0")
    c.eq(qstats(sw, other)["options"].get("np_ecn_k"), None, "np-ecn-k 0: the paper's K, not shown")
    # The receiver PAUSEs the switch's port to it (priority 3) for 1 s.
    r_if = next(x["ifname"] for x in r.json("ip -j link show") if x["ifname"] != "lo")
    r_mac = r.link_info(r_if)["address"]
    q = min(65535, round(1.0 * MBIT * 1e6 / 512) + 1)
    plan = [{"at": SECONDS / 3, "name": "xoff", "kind": "pfc", "vector": 1 << 3,
             "times": [0, 0, 0, q, 0, 0, 0, 0]},
            {"at": SECONDS / 3 + 1, "name": "xon", "kind": "pfc", "vector": 1 << 3, "times": [0] * 8}]
    before = counters(sw, sw_ports)
    before_np = np_ecn_counters(sw, bottleneck)
    pauser = r.popen(f"{Paths.python} {Paths.pause_sender} {r_if} {r_mac} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if pauser.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + pauser.communicate()[1])
    recv = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 5 --duration {SECONDS * 10 + 60}")
    r.wait_udp(PORT)
    procs = [h.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {i} --prio 3 --dscp 24 "
                     f"--size {PAYLOAD} --duration {SECONDS} --sndbuf {SNDBUF}"
                     + (" --ecn" if i in ECT_FLOWS else ""))
             for i, (h, _) in enumerate(senders)]
    pauser.communicate("go\n", timeout=60)
    sends = [json.loads(p.communicate(timeout=SECONDS * 10 + 60)[0]) for p in procs]
    res = json.loads(recv.communicate(timeout=SECONDS * 10 + 120)[0])
    st, marks = common_checks(c, "np-ecn", sw, sw_ports, sends, res, before)
    after_np = np_ecn_counters(sw, bottleneck)
    marked, exempt, not_ect = (a - b for a, b in zip(after_np, before_np))
    ce = {i: flow(res, i)["ce"] for i in range(3)}
    print(f"  np-ecn at {bottleneck}: marked {marked}, exempt (PN) {exempt}, not-ect {not_ect}; "
          f"received CE per flow {ce}, of {[flow(res, i)['received'] for i in range(3)]}", flush=True)
    c.eq(sum(ce.values()), marked, "np-ecn: CE packets received == the port's np-ecn marks")
    for i in ECT_FLOWS:
        f = flow(res, i)
        c.ok(0 < f["ce"] <= f["received"], f"np-ecn: ECT flow h{i} got CE marks", f"{f['ce']} of {f['received']}")
        c.eq(f["ect0"] + f["ce"], f["received"], f"np-ecn: ECT flow h{i}: every packet ECT(0) or CE")
    c.ok(exempt > 0, "np-ecn: the RESUME exempted the packets queued then (PN)", f"{exempt}")
    f2 = flow(res, NOT_ECT_FLOW)
    c.eq((f2["ce"], f2["not_ect"]), (0, f2["received"]), "np-ecn: the Not-ECT flow got no CE")
    c.ok(0 < not_ect <= f2["received"], "np-ecn: the Not-ECT flow's would-be marks counted",
         f"{not_ect} of {f2['received']}")
    c.eq(sum(marks.values()), 0, "np-ecn: RED marked nothing (ecn_marks)")


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

        print("ecn-mode np-ecn (tc qdisc change on the bottleneck port, pool-wide):")
        np_ecn(c, sw, r, r_ip, bottleneck, senders, sw_ports)
    c.finish()


if __name__ == "__main__":
    main()
