#!/usr/bin/python3
"""The pool's MMU scheme, end to end with tc (VM test): `scheme NAME` and
its parameters, the refusals, a scheme change under load, the static
threshold scheme ST on an incast next to the baseline DT, and the
netdev_max_backlog warning (docs/SCHEMES.md, docs/MMU.md).
"""

import json
import os
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks, first_line  # noqa: E402
from incast import BACKLOG_SYSCTL, build, qstats, size_backlog, traffic  # noqa: E402
from nltc import (LOSSLESS_SCHEME, TCA_LOSSLESS as A, TCA_LOSSLESS_SCHEME as S,  # noqa: E402
                  TCA_LOSSLESS_ST as ST, attr, nest, qdisc_request, u8, u64)
from topology import Topology  # noqa: E402

EINVAL, ERANGE = 22, 34
MBIT = 5
SENDERS = 3
ST_THRESHOLD = 100_000
POOL = "pool sw0 buffer 2mb lossless-prios 3 alpha 1/8 sw-delay 60ms"


def options(sw, dev):
    return qstats(sw, dev)["options"]


def schemes(sw, ports):
    return {p: options(sw, p).get("scheme") for p in ports}


def tc_refusals(c, sw, port):
    """The plugin's messages, before anything reaches the kernel."""
    cases = [("scheme bogus", 'invalid scheme "bogus": one of dt, st'),
             ("st-threshold 10kb", 'option "st-threshold" needs "scheme st"'),
             ("scheme dt st-threshold 10kb", 'parameter of scheme st, not dt')]
    for args, msg in cases:
        r = sw.run(f"tc qdisc change dev {port} root lossless {args}", check=False)
        c.ok(r.returncode != 0 and msg in r.stderr, f"tc refuses '{args}'", first_line(r.stderr))


def kernel_refusals(c, sw, port):
    """The kernel's policy and extack messages, raw netlink."""
    idx = sw.link_info(port)["ifindex"]
    cases = [
        ("an unknown scheme id", [nest(A["scheme"], attr(S["id"], u8(9)))], "out of range"),
        ("a scheme without its id", [nest(A["scheme"], nest(S["st"], attr(ST["threshold"], u64(1))))],
         "scheme needs its name"),
        ("st parameters for scheme dt",
         [nest(A["scheme"], attr(S["id"], u8(LOSSLESS_SCHEME["dt"])),
               nest(S["st"], attr(ST["threshold"], u64(1000))))],
         "st parameters given for another scheme"),
        ("an st-threshold above the buffer",
         [nest(A["scheme"], attr(S["id"], u8(LOSSLESS_SCHEME["st"])),
               nest(S["st"], attr(ST["threshold"], u64(3 << 20))))],
         "st-threshold above the buffer"),
        ("a backlog need (read-only)", [attr(A["backlog_need"], u8(1) + b"\0\0\0")], "read-only"),
    ]
    for what, opts, msg in cases:
        err, text = qdisc_request(idx, "lossless", opts, change=True, ns=sw.ns)
        c.ok(err in (EINVAL, ERANGE) and msg in text, f"kernel refuses {what}",
             f"errno {err}: '{text}'")


def set_scheme(c, sw, ports, args, name):
    res = sw.run(f"tc qdisc change dev {ports[1]} root lossless {args}", check=False)
    c.ok(res.returncode == 0, f"an idle pool takes '{args}'",
         first_line(res.stderr) if res.returncode else "")
    c.eq(schemes(sw, ports), {p: name for p in ports}, f"every port of the pool runs {name}")


def change_under_load(c, sw, r, r_ip, bottleneck, senders, ports):
    """A scheme change while the pool holds packets is refused (the schemes'
    state would not describe them), and the traffic carries on."""
    done = {}
    th = threading.Thread(target=lambda: done.update(
        res=traffic(sw, r, r_ip, bottleneck, senders, 4, MBIT, None, idle_exit=1)))
    th.start()
    held, deadline = 0, time.monotonic() + 20
    while held < 100_000 and time.monotonic() < deadline and th.is_alive():
        held = qstats(sw, bottleneck)["backlog"]
        time.sleep(0.1)
    res = sw.run(f"tc qdisc change dev {ports[1]} root lossless scheme dt", check=False)
    th.join()
    c.ok(held >= 100_000, "the pool held packets when the change was tried", f"{held} B queued")
    c.ok(res.returncode != 0 and "the scheme changes only while the pool holds no packets"
         in res.stderr, "a scheme change under load is refused", first_line(res.stderr))
    c.eq(schemes(sw, ports), {p: "st" for p in ports}, "and every port keeps st")
    sends, rres, _ = done["res"]
    sent = sum(s["sent"] for s in sends)
    got = sum(f["received"] for f in rres["flows"].values())
    c.eq(sent - got, 0, "the traffic around the refusal lost nothing")


def thresholds(sw, ports):
    return {p: qstats(sw, p)["ingress"][3]["threshold"] for p in ports}


def incast(c, sw, r, r_ip, bottleneck, senders, ports, scheme):
    sends, res, util = traffic(sw, r, r_ip, bottleneck, senders, 4, MBIT, None, idle_exit=1)
    st = {p: qstats(sw, p) for p in ports}
    sent = sum(s["sent"] for s in sends)
    got = sum(f["received"] for f in res["flows"].values())
    pfc = sum(s.get("pfc_frames_tx", 0) for s in st.values())
    peak = max(s["ingress"][3]["peak_bytes"] for s in st.values())
    print(f"  {scheme}: sent {sent} received {got} PFC frames {pfc} peak ingress {peak} B "
          f"utilisation {util * 100:.1f}%", flush=True)
    c.eq(sent - got, 0, f"{scheme}: every lossless packet arrived")
    c.eq(sum(s["pool_drops_lossless"] for s in st.values()), 0, f"{scheme}: MMU: no lossless drop")
    c.ok(pfc > 0, f"{scheme}: the switch paused its upstreams", f"{pfc} PFC frames")
    return st, peak


def st_vs_dt(c, sw, r, r_ip, bottleneck, senders, ports):
    """ST pauses each ingress at its fixed threshold, whatever the others
    hold; DT's threshold is alpha x the free shared buffer. The first
    traffic of the pool: the peaks are ST's."""
    set_scheme(c, sw, ports, f"scheme st st-threshold {ST_THRESHOLD}", "st")
    c.eq({p: options(sw, p).get("st_threshold") for p in ports},
         {p: ST_THRESHOLD for p in ports}, "with its st-threshold")
    c.eq(set(thresholds(sw, ports).values()), {ST_THRESHOLD},
         "st: every lossless ingress reports the static threshold (idle)")
    st, peak = incast(c, sw, r, r_ip, bottleneck, senders, ports, "st")
    s0 = st[ports[0]]
    bound = ST_THRESHOLD + s0["ingress"][3]["headroom_size"] + \
        options(sw, ports[0]).get("reserved", 0)
    c.le(peak, bound, "st: no ingress held more than reserve + threshold + headroom", " B")
    c.eq(set(thresholds(sw, ports).values()), {ST_THRESHOLD}, "st: the threshold stayed put")
    change_under_load(c, sw, r, r_ip, bottleneck, senders, ports)
    # The default: the shared buffer over the ports.
    set_scheme(c, sw, ports, "scheme st", "st")
    shared = qstats(sw, ports[0])["pool_shared_size"]
    c.eq(set(thresholds(sw, ports).values()), {shared // len(ports)},
         "st without st-threshold: shared size / ports")
    set_scheme(c, sw, ports, "scheme dt", "dt")
    c.eq(set(thresholds(sw, ports).values()), {shared >> 3},
         "dt: an idle pool's threshold is alpha (1/8) x shared")
    incast(c, sw, r, r_ip, bottleneck, senders, ports, "dt")


def backlog_warning(c, sw, ports):
    """Below the pool's backlog-need, tc warns; the tests size it."""
    need = options(sw, ports[0]).get("backlog_need", 0)
    c.ok(need > 0, "tc -s shows the pool's backlog-need", f"{need} frames")
    with open(BACKLOG_SYSCTL) as f:
        saved = f.read().strip()
    with open(BACKLOG_SYSCTL, "w") as f:
        f.write("1000")
    r = sw.run(f"tc qdisc change dev {ports[0]} root lossless sw-delay 60ms", check=False)
    c.ok(r.returncode == 0 and "netdev_max_backlog" in r.stderr,
         "a change on a pool whose need exceeds netdev_max_backlog warns", first_line(r.stderr))
    size_backlog(sw, ports)
    r = sw.run(f"tc qdisc change dev {ports[0]} root lossless sw-delay 60ms", check=False)
    c.ok(r.returncode == 0 and "netdev_max_backlog" not in r.stderr,
         "sized, no warning", first_line(r.stderr) if r.stderr.strip() else "")
    if int(saved) > need:
        with open(BACKLOG_SYSCTL, "w") as f:
            f.write(saved)


def main():
    c = Checks("scheme")
    with Topology("sc") as t:
        sw, r, r_ip, bottleneck, senders, ports = build(
            t, f"lossless rate {MBIT}mbit {POOL}", SENDERS, mbit=MBIT)
        c.eq(schemes(sw, ports), {p: "dt" for p in ports}, "a new pool runs dt")
        tc_refusals(c, sw, ports[1])
        kernel_refusals(c, sw, ports[1])
        c.eq(schemes(sw, ports), {p: "dt" for p in ports}, "nothing changed on refusal")
        backlog_warning(c, sw, ports)
        st_vs_dt(c, sw, r, r_ip, bottleneck, senders, ports)
        print(json.dumps({"ports": ports}), flush=True)
    c.finish()


if __name__ == "__main__":
    main()
