#!/usr/bin/python3
"""Summarises `make check-repeat`: the logs run-all.sh --log kept (one per
test and run, TEST.RUN.log) become, per test, the runs that passed and,
per check, its passes and the spread of its measured value: the value a
check printed as [measured X], else the first number of its detail.

  repeat-summary.py DIR

Exits 1 if any run of any test failed, so a flaky check fails the target.
"""

import os
import re
import statistics
import sys
from collections import OrderedDict

CHECK = re.compile(r"^\s*\[(ok  |FAIL)\] (.*?)(?:  \((.*)\))?(?: \[measured (\S+)\])?\s*$")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")
VERDICT = re.compile(r"^\S+: (PASS|FAIL)")


def parse(path):
    """(checks as [(name, passed, value)], the test's verdict or None)."""
    checks, verdict = [], None
    with open(path, errors="replace") as f:
        for line in f:
            m = CHECK.match(line)
            if m:
                mark, name, detail, measured = m.groups()
                value = measured
                if value is None and detail:
                    n = NUMBER.search(detail)
                    value = n.group(0) if n else None
                checks.append((name, mark == "ok  ", float(value) if value is not None else None))
                continue
            v = VERDICT.match(line)
            if v:
                verdict = v.group(1)
    return checks, verdict


def spread(values):
    if not values:
        return ""
    values = sorted(values)
    fmt = (lambda x: f"{x:.0f}") if all(v == int(v) and abs(v) >= 10 for v in values) else (lambda x: f"{x:.4g}")
    out = f"min {fmt(values[0])} median {fmt(statistics.median(values))} max {fmt(values[-1])}"
    out += f"; sorted: {' '.join(fmt(v) for v in values)}"
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    top = sys.argv[1]
    runs = {}
    for entry in os.listdir(top):
        m = re.match(r"^(.*)\.(\d+)\.log$", entry)
        if m:
            runs.setdefault(m.group(1), {})[int(m.group(2))] = os.path.join(top, entry)
    if not runs:
        print(f"repeat-summary.py: no TEST.RUN.log in {top}", file=sys.stderr)
        return 1
    bad = 0
    for test in sorted(runs):
        per_run = {n: parse(p) for n, p in sorted(runs[test].items())}
        n_runs = len(per_run)
        passed = sum(1 for checks, verdict in per_run.values() if verdict == "PASS")
        bad += n_runs - passed
        print(f"{test}: {passed}/{n_runs} runs passed")
        table = OrderedDict()
        for checks, _ in per_run.values():
            seen = {}
            for name, ok, value in checks:
                # A check made twice in one run (before and after a
                # change, say) is two rows.
                seen[name] = seen.get(name, 0) + 1
                key = name if seen[name] == 1 else f"{name} (#{seen[name]})"
                row = table.setdefault(key, {"runs": 0, "pass": 0, "values": []})
                row["runs"] += 1
                row["pass"] += ok
                if value is not None:
                    row["values"].append(value)
        for name, row in table.items():
            mark = "    " if row["pass"] == n_runs else "FLAKY" if row["pass"] else "FAIL"
            missing = f" (ran in {row['runs']})" if row["runs"] != n_runs else ""
            vals = row["values"]
            if vals and min(vals) == max(vals):
                tail = f"  (always {vals[0]:.4g})"
            elif vals:
                tail = f"\n{'':16}{spread(vals)}"
            else:
                tail = ""
            print(f"  {mark:5} {row['pass']:>2}/{n_runs}{missing}  {name}{tail}")
    print(f"check-repeat: {'every run passed' if not bad else f'{bad} failed run(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
