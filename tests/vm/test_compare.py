#!/usr/bin/python3
"""The comparison bench on a short scenario (VM test; about a minute).

Runs tests/compare/run_compare.py's scenario "smoke" (3 senders, 1
receiver, 20 Mbit/s, WebSearch background and 3:1 incast bursts for 8 s)
with the baseline scheme only, and checks the bench itself:

  - every flow the senders generated arrived complete;
  - nothing was lost: the MMU's lossless drops, the switch qdiscs' drops
    and the datagrams sent but not received are all 0;
  - the PFC frames in the printed table (per port and total) are what
    `tc -s` on the switch says, read here separately before the teardown;
    and the incast made the switch send PFC;
  - FCTs are measured, positive, and above the ideal in the median of
    every flow class (a single small flow can beat the ideal: the shapers'
    catch-up, docs/COMPARE.md);
  - the JSON and the PNG were written.
"""

import json
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

    def hook(sw, ports):
        for dev in ports:
            read[dev] = json.loads(sw.run(f"tc -s -j qdisc show dev {dev}"))[0]

    out = tempfile.mkdtemp(prefix="ll-compare-")
    results, text = run_compare.run("smoke", ["dt"], out, overrides, hook)
    m = results["dt"]
    if not c.ok("error" not in m, "the scheme ran", m.get("error", "")):
        c.finish()

    c.eq(m["flows_complete"], m["flows"], "every flow arrived complete")
    c.ok(m["flows"] > 50, "the scenario generated flows", f"{m['flows']} flows")
    c.eq(m["drops_lossless_pool"], 0, "MMU: no lossless drop (tc -s drops lossless)")
    c.eq(m["switch_qdisc_drops"], 0, "the switch qdiscs dropped nothing")
    c.eq(m["datagrams_lost"], 0, "every datagram sent was received")
    c.eq(m["datagrams_missing_seq"], 0, "no sequence gap at the receiver")

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
    c.eq({k: v for k, v in table_pfc.items() if k != "total"}, tc_pfc,
         "the table's PFC frames per port == tc -s on the switch")
    c.eq(table_pfc.get("total"), sum(tc_pfc.values()), "the table's PFC total == the sum of tc -s")
    c.ok(sum(tc_pfc.values()) > 0, "the incast made the switch send PFC", f"{sum(tc_pfc.values())} frames")
    drops_tc = max(q.get("pool_drops_lossless", 0) for q in read.values())
    c.eq(drops_tc, m["drops_lossless_pool"], "the table's lossless drops == tc -s")

    fcts = [f["fct_ns"] for f in m["flow_list"] if f["complete"]]
    c.ok(fcts and min(fcts) > 0, "every FCT is positive", f"min {min(fcts) / 1e6:.3f} ms")
    for cls, st in sorted(m["fct"].items()):
        c.ok(st["slowdown_p50"] > 1, f"{cls}: median FCT above the ideal",
             f"slowdown p50 {st['slowdown_p50']:.2f}, p99 {st['slowdown_p99']:.2f}, "
             f"min {st['slowdown_min']:.2f}, n {st['n']}")
    for ext in ("json", "png"):
        path = os.path.join(out, f"smoke.{ext}")
        c.ok(os.path.getsize(path) > 1000, f"wrote {os.path.basename(path)}", f"{os.path.getsize(path)} B")
    c.finish()


if __name__ == "__main__":
    main()
