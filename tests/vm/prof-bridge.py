#!/usr/bin/python3
"""The bridge bench's path under the TCG profiler (tests/prof/tcg-prof):
one sender -> bridge -> receiver path, its egress qdisc each KIND in turn,
a snapshot of the profile before and after each KIND's sending.

usage (host): tests/prof/tcg-prof run OUT -- tests/vm/prof-bridge.py OUT [KINDS] [SECONDS]
       then:  tests/prof/tcg-prof report OUT pfifo,dt,spfc,dsh

KINDS is a comma list of pfifo (pfifo_fast), a pool scheme with its
options ("dt", "spfc", "dsh", "spfc spfc-window 100ms"), portfc (a
BCube(4,1) switch's port 1 with PortFC's pool, queues, gates and egress
classifier, as bench-bridge.py's LL_BENCH_PORTFC) or portfc-bare (the
same without the classifier); default pfifo,dt,spfc,dsh. LL_BENCH_DSCP (default 24: priority 3, lossless) and
LL_BENCH_SPIN_US as in bench-bridge.py, but 0 by default here: a
busy-polling receiver's empty reads would count as the packets' (both
vCPUs are counted); a sleeping one's wake-ups do instead, and are printed.
64-byte UDP as fast as the sender goes, SECONDS (default 8) per kind."""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import bcube  # noqa: E402
from topology import Paths, Topology, announce, ensure_modules, host_pair_via  # noqa: E402

POOL = "lossless rate 10gbit pool bench buffer 16mb lossless-prios 3 scheme"


def qdisc_of(kind):
    if kind == "pfifo":
        return "pfifo_fast"
    if kind in ("portfc", "portfc-bare"):
        return bcube.switch_port()
    return POOL + " " + kind


def snapshot(out, name):
    """Ask the plugin for a snapshot and wait until it answered."""
    req = os.path.join(out, f"snap-{name}")
    open(req, "w").close()
    for _ in range(1000):
        if not os.path.exists(req):
            return
        time.sleep(0.01)
    sys.exit(f"prof-bridge: no answer to {req}: is the VM running under tcg-prof?")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    kinds = (sys.argv[2] if len(sys.argv) > 2 else "pfifo,dt,spfc,dsh").split(",")
    secs = float(sys.argv[3]) if len(sys.argv) > 3 else 8.0
    dscp = int(os.environ.get("LL_BENCH_DSCP", "24"))
    ensure_modules()
    counts = {}
    with Topology("prof") as t:
        h1, h2, sw = t.host("s0"), t.host("r0"), t.switch("sw0")
        ip1, ip2, l1, l2 = host_pair_via(t, sw, h1, h2)
        for p in (l1["b_if"], l2["b_if"]):
            sw.run(f"{Paths.ingress} attach {p}")
        sw.run(f"tc qdisc add dev {l1['b_if']} root {POOL} dt")
        announce([h1, h2], ip1.rsplit(".", 1)[0] + ".255")
        with open("/proc/kallsyms") as src, open(os.path.join(out, "kallsyms"), "w") as dst:
            dst.write(src.read())
        for port, kind in enumerate(kinds, 7000):
            name = kind.replace(" ", "_")
            sw.run(f"tc qdisc del dev {l2['b_if']} root", check=False)
            sw.run(f"tc qdisc add dev {l2['b_if']} root {qdisc_of(kind)}")
            bcube.switch_port_classifier(sw, l2["b_if"], ip2, f"/sys/fs/bpf/portfc-prof-{sw.ns}",
                                         kind == "portfc")
            r = h2.popen(f"taskset -c 1 {Paths.traffic} recv --port {port} --idle-exit 2 --duration 300 "
                         f"--spin-us {os.environ.get('LL_BENCH_SPIN_US', '0')}")
            h2.wait_udp(port)
            # The snapshot before the sender starts (its start, a few ms of
            # CPU, is then counted too): a sender started late would send
            # before it, and its packets would count without their cost.
            snapshot(out, f"{name}-begin")
            s = h1.popen(f"taskset -c 0 {Paths.traffic} send --dst {ip2} --port {port} --size 64 "
                         f"--dscp {dscp} --duration {secs} --start-ns {time.monotonic_ns() + 1_000_000_000}")
            sent = json.loads(s.communicate()[0])["sent"]
            snapshot(out, f"{name}-end")
            rep = json.loads(r.communicate()[0])
            got = rep["flows"].get("0", {}).get("received", 0)
            counts[name] = sent
            print(f"{kind}: {sent} sent, {got} received, {sent / secs:.0f} pkt/s (under the profiler), "
                  f"{1000 * rep['sleeps'] / max(1, sent):.0f} receiver wake-ups per 1000", flush=True)
    with open(os.path.join(out, "counts.json"), "w") as f:
        json.dump(counts, f)


if __name__ == "__main__":
    main()
