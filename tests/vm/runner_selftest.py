#!/usr/bin/python3
"""Host-side test of the VM suite's runner tools (ctest tools.vm_runner):
tests/vm/budget.sh's arithmetic over tests/vm/budgets, run-all.sh's usage
errors, and repeat-summary.py on made-up run logs (a check that failed in
one run is FLAKY and fails the summary; [measured X] is the spread's
value; a check made twice in a run is two rows)."""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUDGET = os.path.join(HERE, "budget.sh")
failed = []


def check(cond, what, detail=""):
    print(f"  [{'ok  ' if cond else 'FAIL'}] {what}" + (f"  ({detail})" if detail else ""))
    if not cond:
        failed.append(what)


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True)


def budgets():
    rows = {}
    with open(os.path.join(HERE, "budgets")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, measured = line.split()[:2]
                rows[name] = int(measured)
    return rows


def test_budget():
    rows = budgets()
    listed = run(BUDGET, "list").stdout.split()
    check(listed == [n for n in rows if n != "boot"], "list: every test of the file, not the boot", " ".join(listed))
    check(all(os.path.exists(os.path.join(HERE, n)) for n in listed), "every listed test exists")
    want = {n: max(45, (3 * m + 1) // 2) for n, m in rows.items()}
    got = {n: int(run(BUDGET, "test", n).stdout) for n in rows}
    wrong = {n: (got[n], want[n]) for n in rows if got[n] != want[n]}
    check(not wrong, "test NAME: 1.5 x the measured time, at least 45 s, for every line",
          f"got, want: {wrong}" if wrong else "")
    suite = int(run(BUDGET, "suite").stdout)
    check(suite == sum(want.values()), "suite: the boot's budget plus every test's", f"{suite}")
    check(suite * 2 >= 3 * sum(rows.values()), "suite: at least 1.5 x the measured sum",
          f"{suite} s vs {sum(rows.values())} s")
    two = int(run(BUDGET, "suite", "--repeat", "3", listed[0], listed[1]).stdout)
    check(two == want["boot"] + 3 * (want[listed[0]] + want[listed[1]]), "suite --repeat 3 A B", f"{two}")
    r = run(BUDGET, "test", "test_not_there.py")
    check(r.stdout.strip() == "600" and "not in" in r.stderr, "a test not in the file: 600 s, said", r.stderr.strip())
    r = run(BUDGET, "bogus")
    check(r.returncode == 2 and "budget.sh list" in r.stderr, "bad usage: exit 2 with the usage")


def test_run_all_usage():
    r = run(os.path.join(HERE, "run-all.sh"), "--repeat", "0")
    check(r.returncode == 2 and "--repeat wants a count" in r.stderr, "run-all.sh --repeat 0 is refused",
          r.stderr.strip())
    r = run(os.path.join(HERE, "run-all.sh"), "--bogus")
    check(r.returncode == 2 and "unknown option" in r.stderr, "run-all.sh --bogus is refused", r.stderr.strip())


LOG = """\
  [ok  ] the idle pool takes 'scheme dt'
  [ok  ] spfc: paused less  (time paused 0.96 s < 0.9 x 3.05 s) [measured {ratio}]
  [{mark}] dt: the victim port was paused  (XOFF {xoff}, 3.05 s)
  [ok  ] the idle pool takes 'scheme dt'
x: {verdict}
"""


def test_summary():
    with tempfile.TemporaryDirectory() as d:
        for run_no, (ratio, mark, xoff, verdict) in enumerate(
                [(0.31, "ok  ", 95, "PASS (4 checks)"), (0.68, "FAIL", 0, "FAIL (1 of 4 checks)"),
                 (0.5, "ok  ", 91, "PASS (4 checks)")], 1):
            with open(os.path.join(d, f"test_x.py.{run_no}.log"), "w") as f:
                f.write(LOG.format(ratio=ratio, mark=mark, xoff=xoff, verdict=verdict))
        r = run(os.path.join(HERE, "repeat-summary.py"), d)
        out = r.stdout
        print("\n".join("    | " + x for x in out.splitlines()))
        check(r.returncode == 1, "a failed run fails the summary", f"exit {r.returncode}")
        check("test_x.py: 2/3 runs passed" in out, "runs passed per test")
        check("FLAKY  2/3  dt: the victim port was paused" in out, "the check that failed once is FLAKY")
        check("min 0.31 median 0.5 max 0.68" in out, "the spread of [measured X]")
        check("min 0 median 91 max 95" in out, "else the detail's first number")
        check("3/3  the idle pool takes 'scheme dt' (#2)" in out, "a check made twice is two rows")
        os.remove(os.path.join(d, "test_x.py.2.log"))
        r = run(os.path.join(HERE, "repeat-summary.py"), d)
        check(r.returncode == 0 and "every run passed" in r.stdout, "all runs passed: exit 0")
    with tempfile.TemporaryDirectory() as d:
        r = run(os.path.join(HERE, "repeat-summary.py"), d)
        check(r.returncode == 1 and "no TEST.RUN.log" in r.stderr, "no logs: an error, not a pass")


def main():
    test_budget()
    test_run_all_usage()
    test_summary()
    print(f"vm_runner: {'FAIL' if failed else 'PASS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
