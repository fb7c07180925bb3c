#!/usr/bin/python3
"""Bogus qdisc options are rejected with clear messages, and the qdisc and
its traffic carry on (VM test).

Two layers are checked: the kernel (raw RTM_NEWQDISC, so its netlink policy
and extack messages are what answers) and tc with the q_lossless.so plugin.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from nltc import TCA_LOSSLESS as A, attr, qdisc_request, u8, u32, u64  # noqa: E402
from topology import Paths, Topology  # noqa: E402

EINVAL, ERANGE = 22, 34

KERNEL_CASES = [
    # (what, options, errnos accepted, message substring)
    ("rate 0", [attr(A["rate"], u64(0))], (EINVAL, ERANGE), "out of range"),
    ("rate above 1.6 Tbit/s", [attr(A["rate"], u64(2 * 10**12))], (EINVAL, ERANGE), "out of range"),
    ("queues 0", [attr(A["queues"], u8(0))], (EINVAL, ERANGE), "out of range"),
    ("queues 65 (too many)", [attr(A["queues"], u8(65))], (EINVAL, ERANGE), "out of range"),
    ("strict above queues", [attr(A["queues"], u8(4)), attr(A["strict"], u8(5))], (EINVAL,),
     "strict must not exceed"),
    ("priomap entry out of range", [attr(A["priomap"], bytes([0, 1, 2, 9] + [0] * 12))], (EINVAL,),
     "queue that does not exist"),
    ("priomap of the wrong length", [attr(A["priomap"], bytes(8))], (EINVAL, ERANGE), ""),
    ("more quanta than queues", [attr(A["queues"], u8(2)), attr(A["quanta"], u32(1500) * 3)], (EINVAL,),
     "at most one entry per queue"),
    ("quantum 0", [attr(A["quanta"], u32(0))], (EINVAL,), "quantum must be"),
    ("limit 0", [attr(A["limit"], u32(0))], (EINVAL, ERANGE), "out of range"),
    ("limit overflow (2^20 + 1)", [attr(A["limit"], u32((1 << 20) + 1))], (EINVAL, ERANGE), "out of range"),
    ("burst below 64 bytes", [attr(A["burst"], u32(10))], (EINVAL, ERANGE), "out of range"),
    ("unknown option", [attr(99, u32(1))], (EINVAL, ERANGE), "nknown attribute"),
]

TC_CASES = [
    # (arguments after "lossless", message substring from the plugin)
    ("rate 0", "rate"),
    ("rate 100mbit bogus 1", "bogus"),
    ("rate 100mbit priomap 0 1 2 9", "priomap"),
    ("rate 100mbit queues 65", "queues"),
    ("rate 100mbit limit 4294967296", "limit"),
    ("rate 100mbit queues 2 quanta 1500 1500 1500", "quanta"),
]


GOOD = "rate 100mbit queues 8 strict 2 limit 500"


def traffic_ok(c, a, b, link, what):
    recv = b.popen(f"{Paths.traffic} recv --port 6000 --idle-exit 3 --duration 20")
    time.sleep(0.3)
    s = json.loads(a.run(f"{Paths.traffic} send --dst {link['b_ip']} --port 6000 --prio 3 "
                         f"--count 500 --rate-mbit 20"))
    r = json.loads(recv.communicate(timeout=30)[0])
    got = r["flows"].get("3", {}).get("received", 0)
    if not c.eq(got, s["sent"], f"traffic carries on {what}"):
        print("   sender:", s, "\n   receiver:", json.dumps(r)[:600])
        print(a.run("tc -s qdisc show dev if0"))


def pool_options(c, t, a, b):
    """Pool-wide options: refused without a pool, applied by any member,
    all or nothing on change."""
    t.link(a, b)  # a second port on host a: if1
    r = a.run("tc qdisc add dev if1 root lossless rate 10mbit reserved 2000", check=False)
    c.ok(r.returncode != 0 and "pool" in r.stderr, "pool options without a pool are refused",
         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
    a.run("tc qdisc add dev if1 root lossless rate 10mbit pool p0 alpha 1/8")
    c.eq(json.loads(a.run("tc -j qdisc show dev if1"))[0]["options"].get("alpha"), "1/8",
         "the first port creates the pool with its alpha")
    a.run("tc qdisc del dev if0 root")
    a.run("tc qdisc add dev if0 root lossless rate 10mbit pool p0 alpha 1/4")
    c.eq(json.loads(a.run("tc -j qdisc show dev if1"))[0]["options"].get("alpha"), "1/4",
         "a port joining with alpha changes the pool for every port")
    before = json.loads(a.run("tc -j qdisc show dev if1"))[0]["options"]
    r = a.run("tc qdisc change dev if1 root lossless alpha 1/2 headroom 10", check=False)
    c.ok(r.returncode != 0, "a change whose port part is invalid is refused",
         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
    after = json.loads(a.run("tc -j qdisc show dev if1"))[0]["options"]
    c.eq(after.get("alpha"), before.get("alpha"), "and leaves the pool's alpha as it was")
    a.run("tc qdisc del dev if0 root")
    a.run("tc qdisc del dev if1 root")
    a.run(f"tc qdisc add dev if0 root handle 1: lossless {GOOD}")


def main():
    c = Checks("tc_options")
    with Topology("opt") as t:
        a, b = t.host("a"), t.host("b")
        link = t.link(a, b)
        a.run(f"tc qdisc add dev if0 root handle 1: lossless {GOOD}")
        before = json.loads(a.run("tc -j qdisc show dev if0"))[0]["options"]
        traffic_ok(c, a, b, link, "before bad options")

        idx = a.link_info("if0")["ifindex"]
        for what, opts, errnos, text in KERNEL_CASES:
            err, msg = qdisc_request(idx, "lossless", opts, change=True, ns=a.ns)
            c.ok(err in errnos and text in msg, f"kernel rejects {what}", f"errno {err}: '{msg}'")

        for args, text in TC_CASES:
            r = a.run(f"tc qdisc change dev if0 root lossless {args}", check=False)
            out = r.stdout + r.stderr
            c.ok(r.returncode != 0 and text in out, f"tc rejects '{args}'",
                 out.strip().splitlines()[0] if out.strip() else "no output")

        after = json.loads(a.run("tc -j qdisc show dev if0"))[0]["options"]
        c.eq(after, before, "rejected changes left the configuration as it was")
        traffic_ok(c, a, b, link, "after bad options")

        pool_options(c, t, a, b)

        # A valid change still works after all that.
        a.run("tc qdisc change dev if0 root lossless limit 800")
        after = json.loads(a.run("tc -j qdisc show dev if0"))[0]["options"]
        c.eq(after.get("limit"), 800, "a valid change applies")
    c.finish()


if __name__ == "__main__":
    main()
