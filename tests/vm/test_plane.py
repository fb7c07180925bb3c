#!/usr/bin/python3
"""The shared-state plane of a pool (VM test): the datapath publishes its
telemetry in a pinned BPF map that losslessctl reads, and takes run-time
parameters from it.

A 3:1 incast through a lossless bridge switch whose pool has a plane:
- the telemetry read from the map (losslessctl status --json) equals the
  qdiscs' own stats (tc -s) field by field once the traffic stops;
- losslessctl set changes alpha and a port's headroom through the map,
  the datapath confirms within 10 ms, tc shows the new values;
- refused changes (too large, unknown device) change nothing and say why;
- bad plane options get clear errors; a pool's map is released with it.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from incast import MBIT, POOL, qstats, run_incast  # noqa: E402
from nltc import TCA_LOSSLESS as A, attr, qdisc_request, u32  # noqa: E402
from topology import Topology  # noqa: E402

PIN_DIR = "/sys/fs/bpf/lossless/sw0"
PLANE = f"{PIN_DIR}/plane"
SENDERS = 3


def status(sw):
    return json.loads(sw.run("losslessctl --pool sw0 status --json"))["pools"][0]


def options(sw, dev):
    return json.loads(sw.run(f"tc -j qdisc show dev {dev}"))[0]["options"]


def telemetry_mismatches(sw, sw_ports):
    """(telemetry, differences between the map's snapshot and tc -s)."""
    tel = status(sw)
    by_dev = {p["dev"]: p for p in tel["ports"]}
    mismatches = []
    for dev in sw_ports:
        s, p = qstats(sw, dev), by_dev.get(dev, {})
        pairs = [("tx_packets", s["packets"], p.get("tx_packets")),
                 ("pfc_frames_tx", s["pfc_frames_tx"], p.get("pfc_frames_tx")),
                 ("pfc_frames_rx", s["pfc_frames_rx"], p.get("pfc_frames_rx")),
                 ("ecn_marks", s["ecn_marks"], p.get("ecn_marks"))]
        iq_tc, iq_pl = s["ingress"][3], p.get("prios", [{}] * 8)[3]
        for k in ("xoff_frames", "xon_frames", "peak_headroom", "headroom_size", "drops", "bytes"):
            pairs.append((f"prio 3 {k}", iq_tc[k], iq_pl.get(k)))
        mismatches += [f"{dev} {k}: tc {a} map {b}" for k, a, b in pairs if a != b]
    s = qstats(sw, sw_ports[0])
    for k_tc, k_pl in (("pool_peak_shared", "peak_shared"), ("pool_peak_headroom", "peak_headroom"),
                       ("pool_drops_lossless", "drops_lossless"), ("pool_shared_size", "shared_size"),
                       ("pool_headroom_size", "headroom_size"), ("pool_total_bytes", "total_bytes")):
        if s[k_tc] != tel[k_pl]:
            mismatches.append(f"pool {k_pl}: tc {s[k_tc]} map {tel[k_pl]}")
    return tel, mismatches


def telemetry_matches_tc(c, sw, sw_ports):
    # The map and tc are read one after the other: a stray frame (a host's
    # IPv6 or ARP, flooded by the bridge) between the two reads moves a
    # counter. A wrong counter differs every time; a race only sometimes.
    for _ in range(5):
        tel, mismatches = telemetry_mismatches(sw, sw_ports)
        if not mismatches:
            break
        time.sleep(0.2)
    by_dev = {p["dev"]: p for p in tel["ports"]}
    c.eq(sorted(by_dev), sorted(sw_ports), "the telemetry lists every port of the pool")
    c.eq(tel["pool"], "sw0", "telemetry names the pool")
    c.ok(not mismatches, "telemetry from the map == tc -s, every port and field",
         "; ".join(mismatches[:4]) or f"{len(sw_ports)} ports, 13 fields each + 6 pool fields")
    c.ok(tel["peak_headroom"] > 0 or tel["peak_shared"] > 0, "the incast filled the buffer",
         f"peak shared {tel['peak_shared']} B, peak headroom {tel['peak_headroom']} B")
    c.eq((tel["shared_used"], tel["headroom_used"], tel["drops_lossless"]), (0, 0, 0),
         "after the traffic: nothing held, no lossless drop (from the map)")
    return tel


def set_cmd(sw, args):
    r = sw.run(f"losslessctl --pool sw0 set {args}", check=False)
    return r.returncode, (r.stdout + r.stderr).strip()


def control(c, sw, sw_ports, tel):
    rc, out = set_cmd(sw, "alpha 1/2")
    m = re.search(r"in ([0-9.]+) ms", out)
    ms = float(m.group(1)) if m else 1e9
    c.ok(rc == 0 and ms <= 10, "set alpha 1/2: the datapath confirms within 10 ms", out)
    c.eq({options(sw, d).get("alpha") for d in sw_ports}, {"1/2"},
         "tc shows the new alpha on every port")
    c.eq(status(sw)["alpha"], "1/2", "and so does the telemetry")

    rc, out = set_cmd(sw, "reserved 4000000000")
    c.ok(rc == 1 and "refused" in out, "an impossible reserve is refused by the datapath", out)
    c.eq(options(sw, sw_ports[0]).get("alpha"), "1/2", "and changes nothing")
    rc, out = set_cmd(sw, "alpha 1/3")
    c.ok(rc == 2 and "NUM/DEN" in out, "a malformed alpha is refused before the map", out)
    rc, out = set_cmd(sw, "headroom lo 100000")
    c.ok(rc == 1 and "not a port" in out, "headroom of a device outside the pool is refused", out)

    dev = sw_ports[1]
    rc, out = set_cmd(sw, f"headroom {dev} 100000 alpha 1/4")
    c.ok(rc == 0, f"set headroom {dev} 100000 alpha 1/4 (one entry, both fields)", out)
    c.eq((options(sw, dev).get("headroom"), options(sw, dev).get("alpha")), (100000, "1/4"),
         "tc shows the port's new headroom and the pool's alpha")
    p = {q["dev"]: q for q in status(sw)["ports"]}[dev]
    c.eq((p["headroom_bytes"], p["prios"][3]["headroom_size"]), (100000, 100000),
         "the telemetry shows the new headroom")
    rc, out = set_cmd(sw, "interval 500us")
    c.eq((rc, status(sw)["interval_us"]), (0, 500), "the telemetry period can be changed")

    # A plane with no pool ticking it: set times out with a clear message.
    sw.run("mkdir -p /sys/fs/bpf/lossless/idle")
    r = sw.run("losslessctl --plane /sys/fs/bpf/lossless/idle/plane set alpha 1", check=False)
    c.ok(r.returncode == 1 and "cannot open" in r.stderr, "set on a plane that does not exist",
         r.stderr.strip())


def join_leave_stress(c, sw):
    """Ports join and leave a pool whose plane ticks every 100 us: the tick
    must never see a half-joined port (it once did: a NULL dereference)."""
    rc, out = set_cmd(sw, "interval 100us")
    c.eq(rc, 0, "telemetry every 100 us", )
    before = status(sw)["nr_ports"] if "nr_ports" in status(sw) else len(status(sw)["ports"])
    devs = [f"st{i}" for i in range(8)]
    for d in devs:
        sw.run(f"ip link add {d} type veth peer name {d}p")
        sw.run(f"ip link set {d} up")
    t0 = time.monotonic()
    rounds = 0
    while time.monotonic() - t0 < 20:
        for d in devs:
            sw.run(f"tc qdisc add dev {d} root lossless rate 5mbit pool sw0")
        for d in devs:
            sw.run(f"tc qdisc del dev {d} root")
        rounds += 1
    for d in devs:
        sw.run(f"ip link del {d}")
    after = len(status(sw)["ports"])
    c.eq(after, before, f"{rounds * len(devs)} joins and leaves under a 100 us tick: the pool "
                        "is back to its ports")
    set_cmd(sw, "interval 1ms")


def bad_options(c, t):
    h = t.host("bad")
    t.link(h, t.host("bad2"))
    cases = [
        ("rate 5mbit pool px plane /tmp/not-bpffs/plane", "bpffs"),
        ("rate 5mbit plane auto", "pool"),
        ("rate 5mbit pool px plane relative/path", "absolute path"),
        ("rate 5mbit pool px plane /sys/fs/bpf/ll-test-notplane", "is not a lossless plane map"),
    ]
    subprocess.run("bpftool map create /sys/fs/bpf/ll-test-notplane type hash key 4 value 8 "
                   "entries 4 name notplane", shell=True, check=True)
    try:
        for args, text in cases:
            r = h.run(f"tc qdisc add dev if0 root lossless {args}", check=False)
            c.ok(r.returncode != 0 and text in r.stderr, f"tc refuses '{args}'",
                 r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message")
        idx = h.link_info("if0")["ifindex"]
        with open("/dev/null") as f:
            err, msg = qdisc_request(idx, "lossless", [attr(A["pool"], b"px\0"),
                                                      attr(A["plane_fd"], u32(f.fileno()))],
                                     ns=h.ns)
        c.ok(err != 0 and "not a BPF map" in msg, "kernel refuses a plane fd that is not a map",
             f"errno {err}: '{msg}'")
        err, msg = qdisc_request(idx, "lossless", [attr(A["pool"], b"px\0"),
                                                  attr(A["plane_id"], u32(1))], ns=h.ns)
        c.ok(err != 0 and "read-only" in msg, "kernel refuses a plane id", f"errno {err}: '{msg}'")
        r = h.run("tc qdisc show dev if0")
        c.ok("lossless" not in r, "nothing was installed half-way", r.strip())
    finally:
        os.unlink("/sys/fs/bpf/ll-test-notplane")


def plane_pins(c, t):
    """tc creates and pins a missing plane map while it parses, before the
    kernel answers: a refused command must leave nothing pinned that tc
    made; an accepted one keeps its pin; a map pinned before is never
    removed (docs/CONFIGURATION.md, plane)."""
    h = t.host("pins")
    t.link(h, t.host("pins2"))
    root = "/sys/fs/bpf/ll-test-pins"
    subprocess.run(f"rm -rf {root}", shell=True, check=True)

    def add(args):
        return h.run(f"tc qdisc add dev if0 root lossless rate 5mbit pool pp {args}", check=False)

    def first_line(r):
        return r.stderr.strip().splitlines()[0] if r.stderr.strip() else "no message"

    try:
        # headroom 10: tc takes it (0 .. 2^32-1), the kernel refuses it (< 2 MTU).
        new = f"{root}/new/plane"
        r = add(f"headroom 10 plane {new}")
        c.ok(r.returncode != 0 and "headroom" in r.stderr, "the kernel refuses an add with a new plane",
             first_line(r))
        c.ok(not os.path.exists(new), "the refused add leaves no pin", new)
        c.ok(not os.path.exists(root), "nor the directories tc made for it", root)

        subprocess.run(f"mkdir -p {root}/dir", shell=True, check=True)
        r = add(f"headroom 10 plane {root}/dir/plane")
        c.ok(r.returncode != 0 and not os.path.exists(f"{root}/dir/plane") and os.path.isdir(f"{root}/dir"),
             "a directory that existed before stays; only the pin goes", first_line(r))

        kept = f"{root}/kept/plane"
        r = add(f"plane {kept}")
        c.ok(r.returncode == 0 and os.path.exists(kept), "an accepted add keeps its pin", first_line(r))
        kept_id = options(h, "if0").get("plane_id")
        h.run("tc qdisc del dev if0 root")
        r = add(f"headroom 10 plane {kept}")
        c.ok(r.returncode != 0 and os.path.exists(kept),
             "a map pinned before is never removed, even by a refused add", first_line(r))
        r = add(f"plane {kept}")
        c.eq((r.returncode, options(h, "if0").get("plane_id")), (0, kept_id),
             "and it is the same map afterwards")
        h.run("tc qdisc del dev if0 root")

        # tc -force -batch: each command's pin is settled before the next.
        batch = "/tmp/ll-test-pins.batch"
        with open(batch, "w") as f:
            f.write(f"qdisc add dev if0 root lossless rate 5mbit pool pp headroom 10 plane {root}/b1/plane\n"
                    f"qdisc add dev if0 root lossless rate 5mbit pool pp plane {root}/b2/plane\n"
                    f"qdisc change dev if0 root lossless alpha 0/8 plane {root}/b3/plane\n")
        r = h.run(f"tc -force -batch {batch}", check=False)
        got = [os.path.exists(f"{root}/b{i}/plane") for i in (1, 2, 3)]
        c.eq(got, [False, True, False],
             "tc -batch: refused, accepted, refused by tc -> pins of the accepted command only")
        os.unlink(batch)
        h.run("tc qdisc del dev if0 root", check=False)
    finally:
        subprocess.run(f"rm -rf {root}", shell=True, check=True)


def map_released(c, map_id):
    subprocess.run(f"rm -rf {PIN_DIR} /sys/fs/bpf/lossless/idle", shell=True, check=True)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        r = subprocess.run(f"bpftool map show id {map_id}", shell=True, capture_output=True)
        if r.returncode != 0:
            break
        time.sleep(0.1)
    c.ok(r.returncode != 0, "the pool released its map: unpinned, it is gone",
         f"map id {map_id}: {'gone' if r.returncode else 'still there'}")


def main():
    c = Checks("plane")
    subprocess.run(f"rm -rf {PIN_DIR}", shell=True, check=True)
    with Topology("pln") as t:
        sw, senders, sw_ports, bottleneck, sends, res, util = run_incast(
            t, f"lossless rate {MBIT}mbit {POOL} plane auto", senders=SENDERS, seconds=4)
        lost = sum(s["sent"] for s in sends) - sum(f["received"] for f in res["flows"].values())
        c.eq(lost, 0, f"{SENDERS}:1 incast with a plane: zero loss")
        ids = {options(sw, d).get("plane_id") for d in sw_ports}
        c.ok(len(ids) == 1 and None not in ids, "every port shows the pool's plane id", str(ids))
        map_id = ids.pop()
        time.sleep(0.5)
        tel = telemetry_matches_tc(c, sw, sw_ports)
        s1 = status(sw)["snapshots"]
        time.sleep(0.5)
        s2 = status(sw)["snapshots"]
        c.ge(s2 - s1, 100, "snapshots in 0.5 s at a 1 ms period (TCG timers are coarse)")
        table = sw.run("losslessctl status")
        c.ok("pool sw0" in table and bottleneck in table, "losslessctl status prints a table",
             table.splitlines()[0])
        print("\n".join("    " + ln for ln in table.splitlines()))
        control(c, sw, sw_ports, tel)
        join_leave_stress(c, sw)
    map_released(c, map_id)
    with Topology("plb") as t:
        bad_options(c, t)
        plane_pins(c, t)
    c.finish()


if __name__ == "__main__":
    main()
