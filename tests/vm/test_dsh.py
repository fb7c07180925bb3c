#!/usr/bin/python3
"""DSH end to end in the VM (docs/DSH.md, dsh.md 8.3 scaled): one switch,
3 senders, 2 receivers, 5 Mbit/s, four lossless priorities, so that DT's
static headroom (one per port and lossless priority) takes most of the
buffer while DSH carves one insurance per port.

  1. Bad input through real tc and raw netlink: DSH parameters out of
     range or inconsistent are refused with a message, and every port's
     options are the same before and after.
  2. Head-of-line blocking (dsh.md 8.3 MB1, collapsed to one switch), the
     same flows under DT and under DSH in one run: the fan-in (3
     synchronised bursts to r0, twice, priority 3) and, on the same
     priority, a second, small fan-in: one short flow per sender to r1
     (the "victim" flows), all three at once, after the senders' bursts
     would have left at line rate. Under DT, r0's fan-in pauses the
     senders' priority 3 and their victim flows wait behind the paused
     fan-in bytes (r1 idles); DSH's larger shared region absorbs the
     fan-in, pauses less, and the victim flows go at once. Asserted: zero lossless drops and every
     datagram delivered under both, DT paused, DSH paused for less time,
     the victim flows' mean FCT under DSH below a fraction of DT's, and
     the mean FCT of all fan-in flows (both fan-ins, dsh.md 8.4 Fig. 18's
     metric) below a fraction of DT's (the margins are from measured
     runs, docs/DSH.md "Measured").
  3. The port-level pause: `dsh-variant no-shared-headroom` (a queue over
     T takes insurance and pauses the port, dsh.md 3.10) on a steady 3:1
     incast. The port-level PAUSE is sent (telemetry poff_pauses,
     insurance in use), honoured (the senders' uplinks closed the gates
     of lossless priorities 4-6, which carry nothing: only a port-level
     frame pauses them) and resumed (every gate open at the end, every
     datagram delivered, the insurance empty, no priority in POFF).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks, first_line  # noqa: E402
from fanin import all_options, build, drained, flow_groups, port_stats, uplink_stats  # noqa: E402
from incast import traffic  # noqa: E402
from nltc import (LOSSLESS_DSH_F, LOSSLESS_SCHEME, TCA_LOSSLESS as A,  # noqa: E402
                  TCA_LOSSLESS_DSH as D, TCA_LOSSLESS_SCHEME as S, attr, nest, qdisc_request, u8, u64)
from topology import Topology  # noqa: E402

EINVAL, ERANGE = 22, 34
MBIT = 5
SENDERS = 3
PRIOS = [3, 4, 5, 6]
# At 5 Mbit/s with sw-delay 60 ms a (port, priority) headroom is about
# 79 KB: DT carves 5 ports x 4 x 79 KB = 1.59 MB of the 2 MiB buffer
# (76 %), DSH 5 x 79 KB = 0.40 MB. The tests print the sizes tc reports.
POOL = "pool sw0 buffer 2mb lossless-prios 3,4,5,6 alpha 1/8 sw-delay 60ms"
# Each sender's burst: its ingress grows by about 2/3 of it (the bottleneck
# drains a third per sender), above DT's fixed point (shared / 7.33 with
# alpha 1/8 and three ingresses) and below DSH's.
BURST = 180_000
BURST_AT = [0.3, 2.3]
# The victim flows to r1 (on priority 3 too), a 3:1 fan-in of their own:
# every sender starts one VICTIM_AFTER[i] s after each burst, when its own
# burst (0.29 s at line rate) has left its uplink unless the switch paused
# it; 40 ms each at line rate alone, 120 ms for the three together
# (staggered by 0.15 s instead, they measured the same ratios: 0.11-0.28).
VICTIM = 25_000
VICTIM_AFTER = [0.5, 0.5, 0.5]
# DSH's victim mean FCT must be below this fraction of DT's (measured
# 0.11-0.28 in 7 runs started apart; started together 0.35-0.43 in 10
# runs, docs/TESTING.md; the three take 120 ms of r1 at line rate).
VICTIM_RATIO = 0.6
# Every fan-in flow of the run (the two fan-in events: the bursts to r0 and
# the small 3:1 fan-in to r1, the paper's Fig. 18 metric, the mean over all
# fan-in flows): DSH's mean below this fraction of DT's (measured 0.82-0.84
# in 10 runs;
# r0's own flows end when r0's link has drained them, paused or not).
ALL_RATIO = 0.92
# A pair of runs whose fan-in took more than DISTURBED x the drain time of
# r0's link was starved by the host (other jobs on a 2-core machine): it is
# run again, up to ATTEMPTS times in all; the checks take the last (the
# loss checks every attempt).
DISTURBED = 1.2
ATTEMPTS = 3


def bad_input(c, sw, ports):
    port = list(ports)[1]
    before = all_options(sw, ports)
    tc_cases = [("scheme dsh dsh-ewma-shift 9", "dsh-ewma-shift"),
                ("scheme dsh dsh-ewma-shift 0", "dsh-ewma-shift"),
                ("scheme dsh dsh-gain 17", "dsh-gain"),
                ("scheme dsh dsh-window 11s", "dsh-window"),
                ("scheme dsh dsh-window 0ms", "dsh-window"),
                ("scheme dsh dsh-variant no-shared-headroom,static-tau", "do not go together"),
                ("scheme dsh dsh-variant bogus", "dsh-variant"),
                ("scheme dt dsh-gain 2", "dsh"),
                ("scheme dsh headroom 2000", "2 MTU")]
    for args, msg in tc_cases:
        r = sw.run(f"tc qdisc change dev {port} root lossless {args}", check=False)
        c.ok(r.returncode != 0 and msg in r.stderr, f"tc refuses '{args}'", first_line(r.stderr))
    idx = sw.link_info(port)["ifindex"]
    dsh = u8(LOSSLESS_SCHEME["dsh"])
    nl_cases = [
        ("dsh ewma_shift 9", [attr(D["ewma_shift"], u64(9))], "out of range"),
        ("dsh deviation_gain 17", [attr(D["deviation_gain"], u64(17))], "out of range"),
        ("dsh window 10 s + 1 ns", [attr(D["window"], u64(10_000_000_001))], "out of range"),
        ("an unknown dsh flag", [attr(D["flags"], u64(0x80))], ""),
        ("no-shared-headroom with static-tau",
         [attr(D["flags"], u64(LOSSLESS_DSH_F["no_shared_headroom"] | LOSSLESS_DSH_F["static_tau"]))],
         "dsh: dsh-variant no-shared-headroom and static-tau together"),
    ]
    for what, params, msg in nl_cases:
        err, text = qdisc_request(idx, "lossless",
                                  [nest(A["scheme"], attr(S["id"], dsh), nest(S["dsh"], *params))],
                                  change=True, ns=sw.ns)
        c.ok(err in (EINVAL, ERANGE) and text and msg in text, f"kernel refuses {what}",
             f"errno {err}: '{text}'")
    c.eq(all_options(sw, ports), before, "every port's options are the same after the refusals")


def set_scheme(c, sw, ports, args):
    r = sw.run(f"tc qdisc change dev {list(ports)[1]} root lossless {args}", check=False)
    c.ok(r.returncode == 0, f"the idle pool takes '{args}'", first_line(r.stderr) if r.returncode else "")
    st = port_stats(sw)
    any_q = next(iter(st.values()))
    print(f"  {args}: buffer {any_q['pool_total_bytes']} B, shared {any_q['pool_shared_size']} B, "
          f"headroom {any_q['pool_headroom_size']} B "
          f"({100 * any_q['pool_headroom_size'] / any_q['pool_total_bytes']:.0f} % of the buffer), "
          f"T(empty) {any_q['ingress'][3]['threshold']} B", flush=True)
    return any_q


def fct_stats(fcts):
    """(mean, p99, max) of a list of FCTs (nearest rank), or Nones."""
    if not fcts:
        return None, None, None
    f = sorted(fcts)
    return sum(f) / len(f), f[min(len(f) - 1, max(0, -(-99 * len(f) // 100) - 1))], f[-1]


def fanin(sw, rx, tx, scheme):
    # The counters run on across scheme changes: the run's are the deltas.
    def counts(st):
        return (sum(q["ingress"][p]["xoff_frames"] for q in st.values() for p in PRIOS),
                sum(q["ingress"][p]["paused_time"] for q in st.values() for p in PRIOS) / 1e9,
                sum(q.get("pfc_frames_tx", 0) for q in st.values()),
                max(q["pool_drops_lossless"] for q in st.values()))
    before = counts(port_stats(sw))
    groups = [{"dst": 0, "size": BURST, "at": {i: BURST_AT for i in range(len(tx))}},
              {"dst": 1, "size": VICTIM,
               "at": {i: [round(b + VICTIM_AFTER[i], 3) for b in BURST_AT] for i in range(len(tx))}}]
    _, recvs, _, sent, got = flow_groups(sw, rx, tx, groups, MBIT)
    st = port_stats(sw)
    xoff, paused, pfc, drops = (a - b for a, b in zip(counts(st), before))
    peak = max(q["pool_peak_shared"] for q in st.values())
    flows = [f for res in recvs.values() for f in res["flows"]]
    fct = {g: [f["fct_ns"] / 1e6 for f in flows if f["sender"] // 100 == k and f["complete"]]
           for k, g in enumerate(("fan-in", "victim"))}
    fct["all"] = fct["fan-in"] + fct["victim"]
    stats = {g: fct_stats(v) for g, v in fct.items()}
    ss = [q.get("scheme_stats", {}) for q in st.values()]
    extra = ""
    if scheme == "dsh":
        extra = (f", qoff_pauses {sum(x.get('qoff_pauses', 0) for x in ss)}"
                 f", poff_pauses {sum(x.get('poff_pauses', 0) for x in ss)}"
                 f", insurance peak {max(x.get('insurance_peak', 0) for x in ss)} B")
    print(f"  {scheme}: datagrams sent {sent} received {got}; XOFF {xoff}, PFC frames {pfc}, "
          f"paused {paused:.3f} s, peak shared {peak} B (pool, since it was created){extra}", flush=True)
    for g in ("fan-in", "victim"):
        mean, p99, _ = stats[g]
        print(f"  {scheme}: {g} flows {len(fct[g])} FCT mean {mean or 0:.0f} ms p99 {p99 or 0:.0f} ms: "
              + " ".join(f"{v:.0f}" for v in sorted(fct[g])), flush=True)
    return {"xoff": xoff, "paused": paused, "pfc": pfc, "fct": stats, "lost": sent - got, "drops": drops,
            "flows": (len(fct["fan-in"]), len(fct["victim"]))}


def disturbed(res):
    """The schemes whose fan-in took longer than r0's link needs to drain it
    by more than DISTURBED: the host starved the VM (the fan-in's FCT is the
    drain time under any scheme, paused or not)."""
    wire = BURST + -(-BURST // 944) * (56 + 42)  # 944 data bytes per datagram, header and wire bytes
    drain_ms = SENDERS * wire * 8 / (MBIT * 1e6) * 1e3
    return [s for s, r in res.items() if (r["fct"]["fan-in"][2] or 1e9) > DISTURBED * drain_ms], drain_ms


def compare(c, attempts):
    """The checks: loss over every attempt, the rest on the last one."""
    dt, dsh = attempts[-1]["dt"], attempts[-1]["dsh"]
    want = SENDERS * len(BURST_AT)
    for scheme in ("dt", "dsh"):
        c.eq(sum(a[scheme]["lost"] for a in attempts), 0,
             f"{scheme}: every datagram of the fan-in and the victim flows arrived")
        c.eq(sum(a[scheme]["drops"] for a in attempts), 0, f"{scheme}: MMU: no lossless drop")
        c.eq(attempts[-1][scheme]["flows"], (want, want), f"{scheme}: every flow completed (fan-in, victim)")
    print(f"  DSH / DT: XOFF {dsh['xoff']} / {dt['xoff']}, PFC frames {dsh['pfc']} / {dt['pfc']}, paused "
          f"{dsh['paused']:.3f} / {dt['paused']:.3f} s", flush=True)
    for g in ("fan-in", "victim", "all"):
        (m1, p1, _), (m0, p0, _) = dsh["fct"][g], dt["fct"][g]
        if m0 and m1:
            print(f"  DSH / DT, {g} FCT: mean {m1:.0f} / {m0:.0f} ms ({m1 / m0:.2f}), "
                  f"p99 {p1:.0f} / {p0:.0f} ms ({p1 / p0:.2f})", flush=True)
    # DT's T under the bursts is 40-55 KB, each ingress grows by about
    # 120 KB; DSH's T stays above 150 KB (the numbers above). DT's pauses
    # hold each sender's burst in its uplink, and its victim flow behind
    # it: measured DSH / DT 0.11-0.28 (docs/DSH.md, "Measured").
    c.ok(dt["xoff"] > 0, "dt paused the fan-in (its static headroom leaves a small shared region)",
         f"XOFF {dt['xoff']}")
    c.ok(dsh["paused"] < dt["paused"], "DSH paused the same fan-in for less time than DT",
         f"{dsh['paused']:.3f} s < {dt['paused']:.3f} s",
         measured=dsh["paused"] / dt["paused"] if dt["paused"] else None)
    v1, v0 = dsh["fct"]["victim"][0], dt["fct"]["victim"][0]
    c.ok(v1 is not None and v0 is not None and v1 < VICTIM_RATIO * v0,
         f"head-of-line blocking: the victim flows' mean FCT under DSH is below {VICTIM_RATIO} x DT's",
         f"{v1 or 0:.0f} ms < {VICTIM_RATIO} x {v0 or 0:.0f} ms", measured=v1 / v0 if v1 and v0 else None)
    a1, a0 = dsh["fct"]["all"][0], dt["fct"]["all"][0]
    c.ok(a1 is not None and a0 is not None and a1 < ALL_RATIO * a0,
         f"the fan-in flows (both fan-ins) have a mean FCT under DSH below {ALL_RATIO} x DT's",
         f"{a1 or 0:.0f} ms < {ALL_RATIO} x {a0 or 0:.0f} ms", measured=a1 / a0 if a1 and a0 else None)


def port_level(c, sw, rx, tx, ports):
    """no-shared-headroom: a queue over T takes insurance and the port
    pauses every lossless priority of its upstream."""
    set_scheme(c, sw, ports, "scheme dsh dsh-variant no-shared-headroom")
    r, r_ip, rlk = rx[0]
    senders = [(h, lk) for h, _, lk in tx]
    up0 = {h.name: uplink_stats(h, lk) for h, _, lk in tx}
    # A small socket buffer: the senders' backlog drains in a few seconds.
    sends, res, util = traffic(sw, r, r_ip, rlk["b_if"], senders, 3, MBIT, None, sndbuf=300_000, idle_exit=1)
    drained(sw)
    st = port_stats(sw)
    sent = sum(s["sent"] for s in sends)
    got = sum(f["received"] for f in res["flows"].values())
    ss = {ports[d]: q.get("scheme_stats", {}) for d, q in st.items()}
    poff = sum(x.get("poff_pauses", 0) for x in ss.values())
    ins_peak = max(x.get("insurance_peak", 0) for x in ss.values())
    print(f"  port-level: sent {sent} received {got}, utilisation {util * 100:.0f} %; "
          + "; ".join(f"{n}: qoff {x.get('qoff_pauses')} poff {x.get('poff_pauses')} insurance peak "
                      f"{x.get('insurance_peak')} B" for n, x in sorted(ss.items()) if n.startswith("h")),
          flush=True)
    c.ok(poff > 0, "the switch decided port-level pauses (POFF)", f"poff_pauses {poff}")
    c.ok(ins_peak > 0, "bytes went to the insurance", f"insurance peak {ins_peak} B")
    idle_gates = {}
    for h, _, lk in tx:
        u = uplink_stats(h, lk)
        g = {x["gate"]: x for x in u["gates"]}
        g0 = {x["gate"]: x for x in up0[h.name]["gates"]}
        idle_gates[h.name] = {p: (g[p]["paused_time"] - g0[p]["paused_time"]) / 1e6 for p in (3, 4, 5, 6)}
        idle_gates[h.name]["xon4"] = g[4]["xon_frames"] - g0[4]["xon_frames"]
        idle_gates[h.name]["open"] = not any(g[p]["paused"] for p in (3, 4, 5, 6))
    print("  senders' gates, ms paused by priority (4-6 carry nothing): " +
          "; ".join(f"{n}: " + " ".join(f"p{p} {v[p]:.0f}" for p in (3, 4, 5, 6)) + f" xon4 {v['xon4']}"
                    for n, v in sorted(idle_gates.items())), flush=True)
    honoured = [n for n, v in idle_gates.items() if min(v[4], v[5], v[6]) > 0]
    c.ok(honoured, "honoured: a sender's idle lossless priorities were paused (a port-level frame)",
         f"{len(honoured)} of {len(tx)} senders")
    c.ok(all(v["open"] for v in idle_gates.values()), "resumed: every sender's gates are open at the end")
    c.eq(sent - got, 0, "every datagram arrived (the senders resumed)")
    c.eq(max(q["pool_drops_lossless"] for q in st.values()), 0, "MMU: no lossless drop")
    c.eq(sum(x.get("insurance_used", 0) for x in ss.values()), 0, "the insurance is empty at the end")
    c.eq([n for n, x in ss.items() if x.get("poff")], [], "no port is in POFF at the end")


def main():
    c = Checks("dsh")
    with Topology("dsh") as t:
        sw, rx, tx, ports = build(t, f"lossless rate {MBIT}mbit {POOL}", SENDERS, 2, MBIT)
        set_scheme(c, sw, ports, "scheme dsh")
        bad_input(c, sw, ports)
        attempts = []
        for attempt in range(1, ATTEMPTS + 1):
            res = {}
            attempts.append(res)
            for scheme in ("dt", "dsh"):
                set_scheme(c, sw, ports, f"scheme {scheme}")
                res[scheme] = fanin(sw, rx, tx, scheme)
            slow, drain_ms = disturbed(res)
            if not slow:
                break
            print(f"  attempt {attempt}: the fan-in under {', '.join(slow)} took more than {DISTURBED} x the "
                  f"{drain_ms:.0f} ms r0's link needs: the host starved the VM"
                  + ("; running the pair again" if attempt < ATTEMPTS else ""), flush=True)
        compare(c, attempts)
        port_level(c, sw, rx, tx, ports)
    c.finish()


if __name__ == "__main__":
    main()
