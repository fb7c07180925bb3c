#!/usr/bin/python3
"""Bogus qdisc options are rejected with clear messages, and the qdisc and
its traffic carry on (VM test).

Two layers are checked: the kernel (raw RTM_NEWQDISC, so its netlink policy
and extack messages are what answers) and tc with the q_lossless.so plugin.
"""

import json
import os
import subprocess
import sys

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
    b.wait_udp(6000)  # a fixed sleep lost the race once under load
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
    c.ok(r.returncode != 0 and 'option "reserved" needs "pool NAME"' in r.stderr,
         "pool options without a pool are refused by tc, naming the option",
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


def needs_pool_messages(c, a):
    """On a qdisc without a pool (if0), every option that needs one is
    refused by the kernel with a message naming it: raw netlink, and tc
    change (which passes them on: it may address a pool member)."""
    idx = a.link_info("if0")["ifindex"]
    cases = [("buffer", [attr(A["buffer"], u64(2 << 20))]),
             ("alpha", [attr(A["alpha"], u32(1 << 8 | 3))]),
             ("egress-alpha", [attr(A["egress_alpha"], u32(1 << 8))]),
             ("lossless-prios", [attr(A["lossless_prios"], u8(0x08))]),
             ("reserved", [attr(A["reserved"], u32(2000))]),
             ("xon-offset", [attr(A["xon_offset"], u32(3036))]),
             ("cable-delay", [attr(A["cable_delay"], u64(1000))]),
             ("sw-delay", [attr(A["sw_delay"], u64(10**6))]),
             ("headroom", [attr(A["headroom"], u32(50000))]),
             ("ecn", [attr(A["ecn_kmin"], u32(1000)), attr(A["ecn_kmax"], u32(2000)),
                      attr(A["ecn_pmax"], u32(100))]),
             ("plane", [attr(A["plane_fd"], u32(0))])]
    for name, opts in cases:
        err, msg = qdisc_request(idx, "lossless", opts, change=True, ns=a.ns)
        c.ok(err == EINVAL and msg == f'sch_lossless: option "{name}" needs "pool NAME"',
             f"kernel refuses {name} without a pool, naming it", f"errno {err}: '{msg}'")
    r = a.run("tc qdisc change dev if0 root lossless sw-delay 2ms", check=False)
    c.ok(r.returncode != 0 and 'option "sw-delay" needs "pool NAME"' in r.stderr,
         "tc change without a pool: the kernel's message names the option",
         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")


def pool_join(c, t, a, b):
    """A qdisc joining a pool with pool-wide options applies them to the
    whole pool, all or nothing (docs/CONFIGURATION.md, Scope)."""
    t.link(a, b)  # if2
    t.link(a, b)  # if3
    ports = ["if1", "if2", "if3"]

    def opts(dev):
        return json.loads(a.run(f"tc -j qdisc show dev {dev}"))[0]["options"]

    def totals(devs):
        return {d: json.loads(a.run(f"tc -s -j qdisc show dev {d}"))[0].get("pool_total_bytes")
                for d in devs}

    for d in ports[:2]:
        a.run(f"tc qdisc add dev {d} root lossless rate 10mbit pool pj buffer 2mb")
    c.eq({d: opts(d).get("buffer") for d in ports[:2]}, {d: 2 << 20 for d in ports[:2]},
         "two ports join pool pj with buffer 2mb")
    a.run("tc qdisc add dev if3 root lossless rate 10mbit pool pj buffer 3mb")
    c.eq({d: opts(d).get("buffer") for d in ports}, {d: 3 << 20 for d in ports},
         "a third port joining with buffer 3mb moves the whole pool to 3 MiB (tc qdisc show)")
    c.eq(totals(ports), {d: 3 << 20 for d in ports}, "tc -s: the pool's buffer is 3 MiB on every port")

    # A join whose pool options the pool cannot take: refused, nothing
    # changed, not even the plane it brings (nor its pin, made by tc).
    a.run("tc qdisc del dev if3 root")
    before = {d: opts(d) for d in ports[:2]}
    pin = "/sys/fs/bpf/ll-test-join/plane"
    subprocess.run("rm -rf /sys/fs/bpf/ll-test-join", shell=True, check=True)
    r = a.run(f"tc qdisc add dev if3 root lossless rate 10mbit pool pj buffer 64kb alpha 1/2 "
              f"plane {pin}", check=False)
    c.ok(r.returncode != 0, "a join whose buffer cannot hold the pool's partition is refused",
         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
    after = {d: opts(d) for d in ports[:2]}
    c.ok(after == before, "and leaves the pool as it was on every port (buffer, alpha, no plane)",
         "; ".join(f"{d}: buffer {o.get('buffer')} alpha {o.get('alpha')} plane id {o.get('plane_id')}"
                   for d, o in after.items()))
    c.ok("lossless" not in a.run("tc qdisc show dev if3"), "and installs nothing on the new port")
    c.ok(not os.path.exists(pin) and not os.path.exists(os.path.dirname(pin)),
         "and leaves no plane pinned", pin)
    for d in ports[:2]:
        a.run(f"tc qdisc del dev {d} root")


def portfc_numbers(c, a):
    """A PortFC switch's ports are its BCube ports 0 .. n-1, each once:
    scheme-port n or a taken number is refused on join, and a radix that
    leaves a port outside on change, each with the scheme's message."""
    pool = ("pool pf buffer 4mb lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4")
    a.run(f"tc qdisc add dev if1 root lossless rate 10mbit scheme-port 2 {pool}")
    for number, what, text in ((4, "scheme-port 4 on a radix-4 switch", "must be below portfc-n"),
                               (2, "a second port numbered 2", "the same scheme-port")):
        r = a.run(f"tc qdisc add dev if2 root lossless rate 10mbit scheme-port {number} {pool}",
                  check=False)
        c.ok(r.returncode != 0 and text in r.stderr, f"portfc: {what} is refused with the reason",
             r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
    r = a.run("tc qdisc change dev if1 root lossless pool pf scheme portfc portfc-n 2", check=False)
    c.ok(r.returncode != 0 and "must be below portfc-n" in r.stderr,
         "portfc: portfc-n 2 with port 2 in the pool is refused",
         r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
    opts = json.loads(a.run("tc -j qdisc show dev if1"))[0]["options"]
    c.ok(opts.get("portfc_n") == 4 and opts.get("scheme_port") == 2
         and "lossless" not in a.run("tc qdisc show dev if2"),
         "portfc: the refusals changed nothing", json.dumps(opts)[:300])
    a.run("tc qdisc add dev if2 root lossless rate 10mbit scheme-port 3 "
          "pool pf buffer 4mb lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4")
    c.ok("lossless" in a.run("tc qdisc show dev if2"), "portfc: a free number below n joins")
    for d in ("if1", "if2"):
        a.run(f"tc qdisc del dev {d} root")


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
        needs_pool_messages(c, a)
        pool_join(c, t, a, b)
        portfc_numbers(c, a)

        # A valid change still works after all that.
        a.run("tc qdisc change dev if0 root lossless limit 800")
        after = json.loads(a.run("tc -j qdisc show dev if0"))[0]["options"]
        c.eq(after.get("limit"), 800, "a valid change applies")
    c.finish()


if __name__ == "__main__":
    main()
