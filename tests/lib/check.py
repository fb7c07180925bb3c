"""Tiny assertion collector for the VM tests: every check prints its
measured value, all checks run, and the test fails if any failed. A check
may name its one measured value (`measured=`, printed as [measured X]):
make check-repeat prints that value's spread over runs (else the detail's
first number)."""

import signal
import sys


def _over_budget(signum, frame):
    # run-all.sh's timeout: unwind, so that every Topology tears its
    # namespaces down and the next test starts clean.
    print("  [FAIL] killed: over the test's budget (run-all.sh)", flush=True)
    sys.exit(124)


def first_line(text):
    """The first line of a command's message, for a check's detail."""
    return text.strip().splitlines()[0] if text.strip() else "no message"


class Checks:
    def __init__(self, name):
        signal.signal(signal.SIGTERM, _over_budget)
        self.name = name
        self.failed = []
        self.count = 0

    def ok(self, cond, what, detail="", measured=None):
        self.count += 1
        mark = "ok  " if cond else "FAIL"
        print(f"  [{mark}] {what}" + (f"  ({detail})" if detail else "")
              + (f" [measured {measured:.4g}]" if measured is not None else ""), flush=True)
        if not cond:
            self.failed.append(what)
        return cond

    def eq(self, got, want, what):
        return self.ok(got == want, what, f"got {got}, want {want}")

    def le(self, got, limit, what, unit=""):
        return self.ok(got <= limit, what, f"{got}{unit} <= {limit}{unit}")

    def ge(self, got, limit, what, unit=""):
        return self.ok(got >= limit, what, f"{got}{unit} >= {limit}{unit}")

    def within(self, got, want, rel, what, unit=""):
        lo, hi = want * (1 - rel), want * (1 + rel)
        return self.ok(lo <= got <= hi, what,
                       f"{got:.3f}{unit} in [{lo:.3f}, {hi:.3f}]{unit}")

    def finish(self):
        if self.count == 0:
            print(f"{self.name}: FAIL (no checks ran)")
            sys.exit(1)
        if self.failed:
            print(f"{self.name}: FAIL ({len(self.failed)} of {self.count} checks)")
            sys.exit(1)
        print(f"{self.name}: PASS ({self.count} checks)")
        sys.exit(0)
