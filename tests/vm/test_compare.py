#!/usr/bin/python3
"""The comparison bench on a short scenario (VM test; about two minutes).

Runs tests/compare/run_compare.py's scenario "smoke" (3 senders, 1
receiver, 20 Mbit/s, WebSearch background and 3:1 incast bursts for 8 s)
with the baseline scheme only, through one switch and then through the
leaf-spine of bridges (--fabric leaf-spine: two leaves, two spines; h0
and h2 reach r0 through leaf0, spine0 and leaf1, h1 beside r0 on leaf1),
and checks the bench itself in both:

  - every flow the senders generated arrived complete;
  - nothing was lost: the MMU's lossless drops, the switch qdiscs' drops
    and the datagrams sent but not received are all 0;
  - the PFC frames in the printed table (per port and total) are what
    `tc -s` on the switch says, read here separately before the teardown;
    and the incast made the switch send PFC;
  - FCTs are measured, positive, and above the ideal in the median of
    every flow class (a single small flow can beat the ideal: the shapers'
    catch-up, docs/COMPARE.md);
  - the JSON and the PNG were written;
  - in the leaf-spine: the congestion tree reaches past the receiver's
    leaf (leaf1 pauses spine0; whether spine0 then pauses leaf0 is
    printed), every switch's ports are in the table, and the table's
    figures between switches are tc -s's.
"""

import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "compare"))
import run_compare  # noqa: E402
from check import Checks  # noqa: E402
from topology import Topology  # noqa: E402


def tc_knows_scheme():
    """Whether this tc and module take the `scheme` pool option."""
    with Topology("cmpprobe") as t:
        a, b = t.host("a"), t.host("b")
        lk = t.link(a, b)
        r = a.run(f"tc qdisc add dev {lk['a_if']} root lossless rate 20mbit pool probe buffer 4mb "
                  f"lossless-prios 3 scheme dt", check=False)
        return r.returncode == 0, (r.stderr or "").strip()


def main():
    c = Checks("compare")
    known, why = tc_knows_scheme()
    overrides = {}
    if not known:
        # The baseline is the default scheme: without the option, a pool
        # runs it all the same.
        print(f"  tc does not take `scheme dt` ({why.splitlines()[0] if why else '?'}): dt runs with no "
              f"scheme option", flush=True)
        overrides = {"dt": ""}
    read = {}

    def hook(switches, ports):
        read.clear()
        read.update(run_compare.switch_stats(switches))

    for fabric in ((), ("fabric=leaf-spine",)):
        read.clear()
        check_run(c, fabric, overrides, hook, read)
    c.finish()


def check_run(c, sets, overrides, hook, read):
    where = "leaf-spine: " if sets else ""
    out = tempfile.mkdtemp(prefix="ll-compare-")
    results, text = run_compare.run("smoke", ["dt"], out, overrides, hook, sets=sets)
    m = results["dt"]
    if not c.ok("error" not in m, f"{where}the scheme ran", m.get("error", "")):
        return

    def ok(cond, what, detail=""):
        return c.ok(cond, where + what, detail)

    def eq(got, want, what):
        return c.eq(got, want, where + what)

    eq(m["flows_complete"], m["flows"], "every flow arrived complete")
    ok(m["flows"] > 50, "the scenario generated flows", f"{m['flows']} flows")
    eq(m["drops_lossless_pool"], 0, "MMU: no lossless drop (tc -s drops lossless)")
    eq(m["switch_qdisc_drops"], 0, "the switch qdiscs dropped nothing")
    eq(m["datagrams_lost"], 0, "every datagram sent was received")
    eq(m["datagrams_missing_seq"], 0, "no sequence gap at the receiver")

    ports = m["ports"]
    by_dev = {p["dev"]: name for name, p in ports.items()}
    tc_pfc = {by_dev[dev]: q.get("pfc_frames_tx", 0) for dev, q in read.items()}
    table_pfc = {}
    for line in text.splitlines():
        hit = re.match(r"\s*PFC sent by port to (\S+)\s+(\d+)\s*$", line)
        if hit:
            table_pfc[hit.group(1)] = int(hit.group(2))
        hit = re.match(r"PFC frames sent, total \(tc -s\)\s+(\d+)\s*$", line)
        if hit:
            table_pfc["total"] = int(hit.group(1))
    eq({k: v for k, v in table_pfc.items() if k != "total"}, tc_pfc,
         "the table's PFC frames per port == tc -s on the switch")
    eq(table_pfc.get("total"), sum(tc_pfc.values()), "the table's PFC total == the sum of tc -s")
    ok(sum(tc_pfc.values()) > 0, "the incast made the switch send PFC", f"{sum(tc_pfc.values())} frames")
    pools = {}  # a pool's count is on each of its ports: once per switch
    for key, q in read.items():
        pools[key.split(":")[0] if ":" in key else ""] = q.get("pool_drops_lossless", 0)
    drops_tc = sum(pools.values())
    eq(drops_tc, m["drops_lossless_pool"], "the table's lossless drops == tc -s")

    fcts = [f["fct_ns"] for f in m["flow_list"] if f["complete"]]
    ok(fcts and min(fcts) > 0, "every FCT is positive", f"min {min(fcts) / 1e6:.3f} ms")
    for cls, st in sorted(m["fct"].items()):
        ok(st["slowdown_p50"] > 1, f"{cls}: median FCT above the ideal",
             f"slowdown p50 {st['slowdown_p50']:.2f}, p99 {st['slowdown_p99']:.2f}, "
             f"min {st['slowdown_min']:.2f}, n {st['n']}")
    name = "smoke-leaf-spine" if sets else "smoke"
    for ext in ("json", "png"):
        path = os.path.join(out, f"{name}.{ext}")
        ok(os.path.getsize(path) > 1000, f"wrote {os.path.basename(path)}", f"{os.path.getsize(path)} B")
    if sets:
        eq(sorted(m["pools"]), ["leaf0", "leaf1", "spine0", "spine1"], "a pool per switch")
        eq(len(m["ports"]), 4 + 8, "every switch port in the results: 4 hosts' and 2 x 2 x 2 between switches")
        fab = {n: p for n, p in m["ports"].items() if "@" in n}
        eq(m["fabric"]["pfc_tx"], sum(read[p["dev"]].get("pfc_frames_tx", 0) for p in fab.values()),
             "the PFC frames between switches == tc -s")
        ok(fab["spine0@leaf1"]["pfc_tx"] > 0, "leaf1 paused spine0 (the incast's path to r0)",
             f"{fab['spine0@leaf1']['pfc_tx']} frames")
        # Whether spine0 then pauses leaf0 depends on how much of the burst
        # spine0's pool absorbs (16 frames in one run): printed, not asserted.
        print(f"  leaf-spine: spine0 paused leaf0 with {fab['leaf0@spine0']['pfc_tx']} frames; between switches: "
              f"{m['fabric']}", flush=True)


if __name__ == "__main__":
    main()
