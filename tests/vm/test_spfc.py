#!/usr/bin/python3
"""SPFC end to end in the VM (docs/SPFC.md; spfc.md 3.10, 7.2 E1/E2 and
8.4 SC9 scaled): one switch, receivers r0 (the congested output) and r1
(idle), senders h0 (the victim port: a steady flow to r1 and a flow into
the incast) and h1..h4 (burst ports: line rate into r0), 5 Mbit/s.

  1. Bad input through real tc and raw netlink: `spfc-k 0`, thresholds
     beyond the buffer, an IRC_th below one frame, a window out of range,
     both IRC_th units: refused with a message, and every port's options
     the same before and after.
  2. The victim case under DT and under SPFC, same traffic, one run: h0
     streams to r1 from 1 s before the incast (as spfc.md's F1, stable
     before the burst), then for 5 s h0 also sends to r0 and h1..h4 send
     to r0. Zero lossless drops and every datagram delivered under both;
     the victim port's pauses and time paused in the incast window, the
     burst ports', and the victim flow's share of r1's link, printed side
     by side. Asserted: DT paused the victim port (the scenario makes a
     victim), h0's port became a Victim under SPFC and was never paused
     while a Victim (its X_off is the whole buffer, which the pool never
     reaches here). Its pauses and time paused against DT's are printed,
     not asserted: at the VM's scale they were fewer and shorter in most
     runs but not in all (docs/TESTING.md, "Checks between schemes");
     `make compare SCENARIO=spfc-victim` reports them.
  3. The penalty latch: h0 alone into r0, whose switch port runs at half
     the rate, with a 1 MB buffer: h0's departures (C/2) keep it a
     Victim while its bytes fill the shared region; it pauses anyway (a
     pause while Victim: the pool is full), turns Normal, drains to DT's
     X_on, resumes, is a Victim again; nothing is lost.
  4. The slow path and the oracle (spfc.md 6.3): losslessd adopts the
     switch with policy spfc and `mode = "daemon"`; h0 streams to r1 and
     its port becomes a Victim through the daemon's publications (the
     State Holder is the daemon's bit), the idle ports do not.
     `losslessctl scheme force DEV 3 victim` on an idle port shows in status
     and raises its threshold to the whole buffer, `auto` gives back DT's;
     bad ports, priorities and states are refused. With the daemon
     stopped, a block written straight into the map that names no port
     of the pool is refused and counted, and the forced state stays.
"""

import ctypes
import json
import mmap
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks, first_line  # noqa: E402
from fanin import all_options, build, drained, port_stats  # noqa: E402
from nltc import (LOSSLESS_SCHEME, TCA_LOSSLESS as A, TCA_LOSSLESS_SCHEME as S,  # noqa: E402
                  TCA_LOSSLESS_SPFC as F, attr, nest, qdisc_dump, qdisc_request, u8, u64,
                  uapi_defines)
from daemon_conf import losslessd_config  # noqa: E402
from incast import steady_util  # noqa: E402
from topology import Paths, Topology  # noqa: E402

EINVAL, ERANGE = 22, 34
MBIT = 5
BURST_PORTS = 4
SECONDS = 5
BUFFER = "2mb"
# Each sender's bytes in flight (its socket buffer): above DT's threshold
# (about 112 KB with five congested ingresses), small enough that the
# senders' backlog drains within seconds after the window.
SNDBUF = 350_000
# The latch: a shared region the Victim's backlog fills within SECONDS.
SMALL_BUFFER = "1mb"
POOL = f"pool sw0 buffer {BUFFER} lossless-prios 3 alpha 1/8 sw-delay 60ms"
# TC = 200 ms (4 x the VM's reaction and more, against TCG's late timers;
# spfc.md: TC >= 4 RTT) and K = 3: IRC_th = C x TC / 8 / K = 41,666 B per
# window; the victim port departs its r1 flow (about C/2) plus its share
# of r0, a burst port about C/8 to C/5.
SPFC = "scheme spfc spfc-window 200ms spfc-k 3"
PORT = 5000


def bad_input(c, sw, ports):
    port = list(ports)[1]
    before = all_options(sw, ports)
    tc_cases = [("scheme spfc spfc-k 0", "spfc-k"),
                ("scheme spfc spfc-k 1001", "spfc-k"),
                ("scheme spfc spfc-k 2.5", "spfc-k"),
                ("scheme spfc spfc-victim-threshold 4mb", "spfc-victim-threshold"),
                ("scheme spfc spfc-irc-th 100", "spfc-irc-th below one frame"),
                ("scheme spfc spfc-window 5us", "spfc-window"),
                ("scheme spfc spfc-window 2s", "spfc-window"),
                ("scheme spfc spfc-irc-th 100000 spfc-irc-th-packets 10", "spfc-irc-th"),
                ("scheme spfc spfc-mode bogus", "spfc-mode"),
                ("scheme st spfc-k 3", "spfc")]
    for args, msg in tc_cases:
        r = sw.run(f"tc qdisc change dev {port} root lossless {args}", check=False)
        c.ok(r.returncode != 0 and msg in r.stderr, f"tc refuses '{args}'", first_line(r.stderr))
    idx = sw.link_info(port)["ifindex"]
    spfc = u8(LOSSLESS_SCHEME["spfc"])
    total = next(iter(port_stats(sw).values()))["pool_total_bytes"]
    nl_cases = [
        ("spfc k 1001", [attr(F["k"], u64(1001))], "out of range"),
        ("a victim threshold one byte beyond the buffer", [attr(F["victim_threshold"], u64(total + 1))],
         "spfc: spfc-victim-threshold above the buffer"),
        ("an IRC_th of 100 B", [attr(F["irc_th"], u64(100))], "spfc: spfc-irc-th below one frame"),
        ("a window of 5 us", [attr(F["tc"], u64(5000))], "spfc: spfc-window outside 10 us .. 1 s"),
        ("a window of 2 s", [attr(F["tc"], u64(2_000_000_000))], "out of range"),
        ("both IRC_th units", [attr(F["irc_th"], u64(100_000)), attr(F["irc_th_packets"], u64(10))],
         "spfc: spfc-irc-th and spfc-irc-th-packets together"),
        ("an unknown spfc-mode flag", [attr(F["flags"], u64(0x40))], ""),
    ]
    for what, params, msg in nl_cases:
        err, text = qdisc_request(idx, "lossless",
                                  [nest(A["scheme"], attr(S["id"], spfc), nest(S["spfc"], *params))],
                                  change=True, ns=sw.ns)
        c.ok(err in (EINVAL, ERANGE) and text and msg in text, f"kernel refuses {what}",
             f"errno {err}: '{text}'")
    c.eq(all_options(sw, ports), before, "every port's options are the same after the refusals")


def default_window(c, sw, ports):
    """`scheme spfc` without spfc-window: the window is 4 round trips of the
    port that sets it, 4 x 2 x (cable-delay + sw-delay), as losslessd's rule
    (TC >= RTT) wants; not the 1 ms floor."""
    port = list(ports)[1]
    change(c, sw, ports, "scheme spfc")
    sw_ms = int(re.search(r"sw-delay (\d+)ms", POOL).group(1))
    show = sw.run(f"tc qdisc show dev {port}")
    m = re.search(r"spfc-window (\S+)", show)
    c.eq(m.group(1) if m else None, f"{4 * 2 * sw_ms}ms",
         "scheme spfc without a window: 4 round trips of the port (4 x 2 x sw-delay)")


def change(c, sw, ports, args):
    r = sw.run(f"tc qdisc change dev {list(ports)[1]} root lossless {args}", check=False)
    c.ok(r.returncode == 0, f"the idle pool takes '{args}'", first_line(r.stderr) if r.returncode else "")
    q = next(iter(port_stats(sw).values()))
    print(f"  {args}: buffer {q['pool_total_bytes']} B, shared {q['pool_shared_size']} B, "
          f"headroom {q['pool_headroom_size']} B", flush=True)


def ingress3(st, devs, hosts):
    """(XOFF, paused s) of priority 3 summed over the hosts' switch ports."""
    qs = [st[devs[h]]["ingress"][3] for h in hosts]
    return sum(q["xoff_frames"] for q in qs), sum(q["paused_time"] for q in qs) / 1e9


def victim_traffic(sw, rx, tx, ports, seconds=SECONDS):
    """h0 streams to r1 (the victim flow) from 1 s before the incast; then
    for `seconds` h0 also sends to r0 and h1.. send to r0, all at line rate
    (the uplinks pace; a socket buffer of SNDBUF bounds each sender's bytes
    in flight, above DT's threshold, so the tail drains in seconds).
    Returns the pause counters of the incast window, the victim flow's
    utilisation of r1 in it and the delivery counts."""
    devs = {v: k for k, v in ports.items()}
    recvs = [r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 3 --duration {seconds * 4 + 60} "
                     f"--bucket-ms 100") for r, _, _ in rx]
    for r, _, _ in rx:
        r.wait_udp(PORT)
    (_, r0_ip, _), (_, r1_ip, _) = rx
    cmd = f"{Paths.traffic} send --port {PORT} --prio 3 --dscp 24 --size 1000 --sndbuf {SNDBUF}"
    h0 = tx[0][0]
    procs = [h0.popen(f"{cmd} --duration {seconds + 1.5} --dst {r1_ip} --flow 100")]
    time.sleep(1.0)
    before = port_stats(sw)
    lo = time.monotonic_ns()
    procs += [h.popen(f"{cmd} --duration {seconds} --dst {r0_ip} --flow {i}") for i, (h, _, _) in enumerate(tx)]
    time.sleep(max(0.0, lo / 1e9 + seconds - time.monotonic()))
    hi = time.monotonic_ns()
    after = port_stats(sw)
    sends = [json.loads(p.communicate(timeout=seconds * 4 + 60)[0]) for p in procs]
    res = [json.loads(p.communicate(timeout=seconds * 4 + 120)[0]) for p in recvs]
    drained(sw)
    final = port_stats(sw)
    burst = [f"h{i}" for i in range(1, len(tx))]
    m = {}
    for key, hosts in (("victim", ["h0"]), ("burst", burst)):
        x1, p1 = ingress3(after, devs, hosts)
        x0, p0 = ingress3(before, devs, hosts)
        m[f"xoff_{key}"], m[f"paused_{key}"] = x1 - x0, (p1 - p0) / len(hosts)
    m["window_s"] = (hi - lo) / 1e9
    m["victim_util"], _ = steady_util(res[1], lo, hi, MBIT)
    m["sent"] = sum(s["sent"] for s in sends)
    m["got"] = sum(f["received"] for r in res for f in r["flows"].values())
    m["drops"] = max(q["pool_drops_lossless"] for q in final.values())
    q0 = final[devs["h0"]]
    m["ss"] = q0.get("scheme_stats", {})
    m["ss_burst"] = [final[devs[h]].get("scheme_stats", {}) for h in burst]
    m["peak_headroom"] = max(q["ingress"][3]["peak_headroom"] for q in final.values())
    m["headroom_size"] = q0["ingress"][3]["headroom_size"]
    m["wake_late_ms"] = {ports[d]: round(q.get("wake_late_max", 0) / 1e6) for d, q in final.items()}
    return m


def spfc_line(m):
    ss = m["ss"]
    if ss.get("scheme") != "spfc":
        return ""
    return (f"; victim port (totals): to_victim {ss.get('to_victim')} to_normal {ss.get('to_normal')} "
            f"victim_time {ss.get('victim_time', 0) / 1e9:.2f} s pauses_normal {ss.get('pauses_normal')} "
            f"pauses_victim {ss.get('pauses_victim')} trigger_peak {ss.get('trigger_peak')} B; burst ports: "
            f"to_victim {sum(x.get('to_victim', 0) for x in m['ss_burst'])} pauses_victim "
            f"{sum(x.get('pauses_victim', 0) for x in m['ss_burst'])} victim_time "
            f"{sum(x.get('victim_time', 0) for x in m['ss_burst']) / 1e9:.2f} s")


def run_case(c, sw, rx, tx, ports, name):
    m = victim_traffic(sw, rx, tx, ports)
    print(f"  {name}: incast window {m['window_s']:.2f} s: victim port h0 XOFF {m['xoff_victim']} paused "
          f"{m['paused_victim']:.2f} s; burst ports XOFF {m['xoff_burst']} paused {m['paused_burst']:.2f} s each "
          f"on average; victim flow {m['victim_util'] * 100:.0f} % of r1's link; datagrams sent {m['sent']} "
          f"received {m['got']}; peak headroom {m['peak_headroom']} of {m['headroom_size']} B; latest "
          f"wake-up by port (ms, since created) {m['wake_late_ms']}{spfc_line(m)}", flush=True)
    c.eq(m["sent"] - m["got"], 0, f"{name}: every datagram arrived")
    c.eq(m["drops"], 0, f"{name}: MMU: no lossless drop")
    return m


def latch(c, sw, rx, tx, ports):
    """A Victim that fills the whole buffer: h0 alone at line rate into r0,
    whose switch port runs at half the rate. h0's departures (C/2) keep it
    a Victim (IRC_th is C/3); its bytes grow until the shared region is
    full, the next packet takes headroom and the port pauses: the latch.
    It turns Normal, drains to DT's X_on, resumes, and is a Victim again."""
    devs = {v: k for k, v in ports.items()}
    change(c, sw, ports, f"buffer {SMALL_BUFFER}")
    r = sw.run(f"tc qdisc change dev {devs['r0']} root lossless rate {MBIT * 1000 // 2}kbit", check=False)
    c.ok(r.returncode == 0, "r0's switch port runs at half the rate", first_line(r.stderr) if r.returncode else "")
    before = port_stats(sw)[devs["h0"]].get("scheme_stats", {})
    (r0, r0_ip, _) = rx[0]
    recv = r0.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 3 --duration 120 --bucket-ms 100")
    r0.wait_udp(PORT)
    send = tx[0][0].popen(f"{Paths.traffic} send --port {PORT} --prio 3 --dscp 24 --size 1000 "
                          f"--sndbuf {4 << 20} --duration 3 --dst {r0_ip} --flow 0")
    sent = json.loads(send.communicate(timeout=120)[0])["sent"]
    got = sum(f["received"] for f in json.loads(recv.communicate(timeout=120)[0])["flows"].values())
    drained(sw)
    st = port_stats(sw)
    q0 = st[devs["h0"]]
    ss = q0.get("scheme_stats", {})
    d = {k: ss.get(k, 0) - before.get(k, 0) for k in ("to_victim", "to_normal", "pauses_normal", "pauses_victim")}
    print(f"  latch: shared region {q0['pool_shared_size']} B, h0 sent {sent} received {got}; h0's port: "
          f"XOFF {q0['ingress'][3]['xoff_frames']} (since created); in this run: to_victim {d['to_victim']} "
          f"to_normal {d['to_normal']} pauses_normal {d['pauses_normal']} pauses_victim {d['pauses_victim']}; "
          f"trigger_peak {ss.get('trigger_peak')} B", flush=True)
    c.ok(d["pauses_victim"] > 0, "the Victim paused anyway (the pool was full): the latch fired",
         f"pauses_victim +{d['pauses_victim']}")
    c.ok(d["to_normal"] >= d["pauses_victim"], "each latch turned it Normal",
         f"to_normal +{d['to_normal']} >= pauses_victim +{d['pauses_victim']}")
    c.ok(d["to_victim"] > 0, "and it was a Victim again after a RESUME", f"to_victim +{d['to_victim']}")
    c.eq(sent - got, 0, "latch: every datagram arrived")
    c.eq(max(q["pool_drops_lossless"] for q in st.values()), 0, "latch: MMU: no lossless drop")
    c.eq([p for p, q in st.items() if any(x["paused"] for x in q["ingress"])], [],
         "every ingress resumed at the end")


SOCK = "/run/lossless-spfc/losslessd.sock"
CONF = "/tmp/losslessd-spfc.toml"
ENODEV = 19
UAPI = uapi_defines()
PLANE_MAGIC, PLANE_VERSION, CHANNEL_OFFSET = (UAPI["LOSSLESS_PLANE_MAGIC"], UAPI["LOSSLESS_PLANE_VERSION"],
                                              UAPI["LOSSLESS_PLANE_CHANNEL_OFFSET"])


def ctl(sw, args, check=False):
    return sw.run(f"{Paths.ctl} --socket {SOCK} {args}", check=check)


def status(sw, plane):
    return json.loads(ctl(sw, f"--plane {plane} status --json", check=True))["pools"][0]


def wait_for(pred, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.1)
    return pred()


def write_raw_block(path, ifindex, force_victim):
    """Write a control channel block (kernel/uapi/lossless.h) for SPFC
    straight into the pinned plane map's mapping, as a buggy writer would:
    one slot of SPFC's payload."""
    libc = ctypes.CDLL(None, use_errno=True)
    name = ctypes.create_string_buffer(path.encode())
    attr = struct.pack("QII", ctypes.addressof(name), 0, 0) + bytes(128 - 16)
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = libc.syscall(321, 7, buf, len(attr))  # bpf(BPF_OBJ_GET)
    if fd < 0:
        raise OSError(ctypes.get_errno(), f"BPF_OBJ_GET {path}")
    try:
        m = mmap.mmap(fd, 2 * CHANNEL_OFFSET, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        seq = struct.unpack_from("Q", m, CHANNEL_OFFSET + 8)[0]
        seq = (seq | 1) + 1
        struct.pack_into("Q", m, CHANNEL_OFFSET + 8, seq - 1)
        payload = struct.pack("IBBBBQ", ifindex, 0, 0, force_victim, 0, 0) + bytes(16 * 63)
        body = struct.pack("IIQII", PLANE_MAGIC, PLANE_VERSION, seq - 1,
                           LOSSLESS_SCHEME["spfc"], len(payload)) + payload
        m[CHANNEL_OFFSET:CHANNEL_OFFSET + len(body)] = body
        struct.pack_into("Q", m, CHANNEL_OFFSET + 8, seq)
        m.close()
        return seq
    finally:
        os.close(fd)


def xstats_once(c, sw, port):
    """The scheme's telemetry reaches a fresh socket's first (smallest)
    dump skb whole: the xstats once, in TCA_STATS_APP, the whole struct
    (a pool member's ends with the mode's block and the premise's, after
    the scheme's: kernel/uapi/lossless.h), no TCA_XSTATS copy."""
    d = qdisc_dump(sw.link_info(port)["ifindex"], ns=sw.ns)
    c.ok(d is not None and d["app"] is not None, "a fresh socket's dump carries the spfc port's xstats",
         f"message {d and d['message_bytes']} B")
    if not d or not d["app"]:
        return
    # struct tc_lossless_scheme_stats: scheme, masks, ctr[], prio[]; then
    # struct tc_lossless_mode_stats (mode, pad, ctr[], late_hist[],
    # prio[][]) and the premise (four u64, two u32).
    block = 8 + 8 * UAPI["LOSSLESS_SCHEME_STATS"] + 4 * UAPI["LOSSLESS_PFC_PRIOS"]
    mode = (8 + 8 * UAPI["LOSSLESS_MODE_STATS"] + 4 * UAPI["LOSSLESS_MODE_HIST"]
            + 8 * UAPI["LOSSLESS_MODE_PRIO_STATS"] * UAPI["LOSSLESS_PFC_PRIOS"])
    tail = mode + 4 * 8 + 2 * 4
    scheme = struct.unpack_from("I", d["app"], len(d["app"]) - tail - block)[0]
    print(f"  xstats {len(d['app'])} B in a {d['message_bytes']} B message", flush=True)
    c.eq(scheme, LOSSLESS_SCHEME["spfc"], "the xstats carry spfc's block, before the mode's and the premise's")
    c.ok(d["xstats"] is None, "the xstats are sent once (no TCA_XSTATS copy)")


def slow_path_and_oracle(c, sw, rx, tx, ports):
    start = time.monotonic()
    devs = {v: k for k, v in ports.items()}
    change(c, sw, ports, f"buffer {BUFFER}")
    sw.run(f"tc qdisc change dev {devs['r0']} root lossless rate {MBIT}mbit")
    pin = f"/sys/fs/bpf/ll-{sw.ns}"  # where the switch's ingress maps are
    plane = f"{pin}/sw0/plane"
    subprocess.run(f"rm -rf /run/lossless-spfc {pin}/sw0", shell=True, check=True)
    table = '[pool.spfc]\nwindow = "200ms"\nk = 3\nmode = "daemon"'
    text = losslessd_config(SOCK, pin, list(ports), {"buffer": BUFFER, "lossless-prios": [3],
                                                     "alpha": "1/8", "sw-delay": "60ms"},
                            f"{MBIT}mbit", table)
    with open(CONF, "w") as f:
        f.write(text.replace('policy = "pfc-dt"', 'policy = "spfc"'))
    d = sw.popen(f"{Paths.losslessd} --config {CONF}")
    up = wait_for(lambda: ctl(sw, "daemon --json").returncode == 0, 20)
    c.ok(up, "losslessd (policy spfc, mode daemon) adopts the switch",
         f"in {time.monotonic() - start:.1f} s" if d.poll() is None else d.stderr.read()[:300])
    if not up:
        return
    c.ok(wait_for(lambda: status(sw, plane)["scheme_params"].get("mode") == 2),
         "the datapath runs spfc-mode daemon", str(status(sw, plane)["scheme_params"]))

    # The slow path: h0 streams to r1 at line rate (C per window, IRC_th
    # C/3); the idle ports see no departure.
    (r1, r1_ip, _) = rx[1]
    h0, idle = devs["h0"], devs["h1"]
    before = {p: q.get("scheme_stats", {}) for p, q in port_stats(sw).items()}
    t0 = status(sw, plane)
    recv = r1.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 1 --duration 60")
    r1.wait_udp(PORT)
    send = tx[0][0].popen(f"{Paths.traffic} send --port {PORT} --prio 3 --dscp 24 --size 1000 "
                          f"--sndbuf {SNDBUF} --duration 3 --dst {r1_ip} --flow 0")
    # Samples while it streams (a TCG stall can empty one window).
    samples = []
    while send.poll() is None and len(samples) < 40:
        time.sleep(0.25)
        samples.append(port_stats(sw)[h0].get("scheme_stats", {}))
    mid = next((x for x in samples if 3 in x.get("sh", [])), samples[len(samples) // 2] if samples else {})
    sent = json.loads(send.communicate(timeout=60)[0])["sent"]
    got = sum(f["received"] for f in json.loads(recv.communicate(timeout=60)[0])["flows"].values())
    after = {p: q.get("scheme_stats", {}) for p, q in port_stats(sw).items()}
    t1 = status(sw, plane)
    dmn = json.loads(ctl(sw, "daemon --json", check=True))["pools"][0].get("channel", {})
    dv = after[h0].get("to_victim", 0) - before[h0].get("to_victim", 0)
    di = after[idle].get("to_victim", 0) - before[idle].get("to_victim", 0)
    blocks = t1["channel_applied"] - t0["channel_applied"]
    sh_seen = sum(1 for x in samples if 3 in x.get("sh", []))
    print(f"  slow path: h0 -> r1 3 s, sent {sent} received {got}; the daemon's bit (sh) set in {sh_seen} "
          f"of {len(samples)} samples; h0's port mid-run victim "
          f"{mid.get('victim')} sh {mid.get('sh')} last_window {mid.get('last_window')} B "
          f"irc_threshold {mid.get('irc_threshold')} B; to_victim +{dv}, victim_time "
          f"+{(after[h0].get('victim_time', 0) - before[h0].get('victim_time', 0)) / 1e9:.2f} s; "
          f"idle port to_victim +{di}; blocks applied by the datapath +{blocks} (refused "
          f"{t1['channel_refused']}); daemon: {dmn.get('blocks_written')} written, "
          f"{dmn.get('blocks_refused')} refused", flush=True)
    # In mode daemon only the daemon's bit (or a forced state: none here)
    # makes a Victim.
    c.ok(dv > 0 and sh_seen > 0, "slow path: h0's port became a Victim by the daemon's bit",
         f"to_victim +{dv}, sh set in {sh_seen} of {len(samples)} samples")
    c.eq(di, 0, "slow path: an idle port did not")
    c.ok(blocks >= 10 and t1["channel_refused"] == 0 and dmn.get("blocks_refused") == 0,
         "slow path: the daemon published every window, nothing refused",
         f"+{blocks} applied, {t1['channel_refused']} refused")
    c.eq(sent - got, 0, "slow path: every datagram arrived")

    # The oracle, on the idle port.
    q = port_stats(sw)[idle]
    thr0, total = q["ingress"][3]["threshold"], q["pool_total_bytes"]
    r = ctl(sw, f"--pool sw0 scheme force {idle} 3 victim")
    c.ok(r.returncode == 0, f"scheme force {idle} 3 victim", (r.stdout + r.stderr).strip())
    q = port_stats(sw)[idle]
    thr1 = q["ingress"][3]["threshold"]
    forced = json.loads(ctl(sw, "daemon --json", check=True))["pools"][0]["channel"]["state"]["forced"]
    text = ctl(sw, f"--plane {plane} status", check=True)
    print(f"  oracle: {idle} priority 3 threshold {thr0} B -> {thr1} B forced Victim (buffer {total} B); "
          f"daemon: {forced}", flush=True)
    c.ok(3 in q.get("scheme_stats", {}).get("forced_victim", []) and 3 in q["scheme_stats"].get("victim", []),
         "oracle: the port's priority 3 is forced Victim (tc)", str(q.get("scheme_stats")))
    c.ok(thr1 == total and thr1 > thr0, "oracle: its threshold is the whole buffer",
         f"{thr0} -> {thr1}, buffer {total}")
    c.ok(any(f"{idle}" in line for line in text.splitlines()) and "forced_victim 3" in text,
         "oracle: losslessctl status shows it",
         next((ln.strip() for ln in text.splitlines() if "forced_victim 3" in ln), "no line"))
    c.eq(forced, [{"dev": idle, "prio": 3, "state": "victim"}], "oracle: losslessctl daemon lists it")
    for args, rc, msg in ((f"{idle} 9 victim", 2, "must be 0 .. 7"),
                          (f"{idle} 3 bogus", 2, "must be victim, normal or auto"),
                          (f"{idle} 2 victim", 1, "not lossless"),
                          ("nosuchdev 3 victim", 1, "no port \"nosuchdev\"")):
        b = ctl(sw, f"--pool sw0 scheme force {args}")
        c.ok(b.returncode == rc and msg in b.stderr, f"scheme force {args} is refused",
             f"exit {b.returncode}: {first_line(b.stderr)}")
    r = ctl(sw, f"--pool sw0 scheme force {idle} 3 auto")
    q = port_stats(sw)[idle]
    c.ok(r.returncode == 0 and q["ingress"][3]["threshold"] == thr0 and
         not q.get("scheme_stats", {}).get("forced_victim"),
         "oracle: auto gives back DT's threshold", f"{q['ingress'][3]['threshold']} B, exit {r.returncode}")

    # Without the daemon: losslessctl writes the map; a bad block is
    # refused, counted, and changes nothing.
    # The daemon by its pid (the shell around it may not pass SIGTERM on).
    pid = json.loads(ctl(sw, "daemon --json", check=True))["pid"]
    os.kill(pid, 15)
    d.wait(timeout=10)
    c.ok(wait_for(lambda: not os.path.exists(f"/proc/{pid}"), 10), "losslessd stopped", f"pid {pid}")
    r = sw.run(f"{Paths.ctl} --plane {plane} scheme force {idle} 3 normal", check=False)
    c.ok(r.returncode == 0, "scheme force --plane without the daemon", (r.stdout + r.stderr).strip())
    refused0 = status(sw, plane)["channel_refused"]
    seq = write_raw_block(plane, 999999, 1 << 3)
    ok = wait_for(lambda: status(sw, plane)["channel_applied_seq"] == seq, 5)
    t = status(sw, plane)
    ss = port_stats(sw)[idle].get("scheme_stats", {})
    c.ok(ok and t["channel_apply_error"] == -ENODEV and t["channel_refused"] == refused0 + 1,
         "a block naming no port of the pool is refused (ENODEV) and counted",
         f"seq {t['channel_applied_seq']} error {t['channel_apply_error']} refused {t['channel_refused']}")
    c.ok(3 in ss.get("forced_normal", []), "and the forced state stays", str(ss.get("forced_normal")))
    r = sw.run(f"{Paths.ctl} --plane {plane} scheme force {idle} 3 auto", check=False)
    c.ok(r.returncode == 0, "scheme force --plane auto", (r.stdout + r.stderr).strip())
    subprocess.run(f"rm -rf /run/lossless-spfc {pin}/sw0", shell=True, check=False)
    print(f"  slow path and oracle: {time.monotonic() - start:.1f} s", flush=True)


def main():
    c = Checks("spfc")
    with Topology("spfc") as t:
        sw, rx, tx, ports = build(t, f"lossless rate {MBIT}mbit {POOL}", 1 + BURST_PORTS, 2, MBIT)
        default_window(c, sw, ports)
        change(c, sw, ports, SPFC)
        xstats_once(c, sw, next(iter(ports)))
        bad_input(c, sw, ports)
        res = {}
        for name, args in (("dt", "scheme dt"), ("spfc", SPFC)):
            change(c, sw, ports, args)
            res[name] = run_case(c, sw, rx, tx, ports, name)
        dt, sp = res["dt"], res["spfc"]
        print(f"  victim port in the incast window, SPFC / DT: XOFF {sp['xoff_victim']} / {dt['xoff_victim']}, "
              f"paused {sp['paused_victim']:.2f} / {dt['paused_victim']:.2f} s; victim flow "
              f"{sp['victim_util'] * 100:.0f} / {dt['victim_util'] * 100:.0f} % of r1; burst ports paused "
              f"{sp['paused_burst']:.2f} / {dt['paused_burst']:.2f} s each", flush=True)
        c.ok(dt["xoff_victim"] > 0, "dt: the victim port was paused (the scenario makes a victim)",
             f"XOFF {dt['xoff_victim']}, {dt['paused_victim']:.2f} s")
        c.ok(sp["ss"].get("to_victim", 0) > 0, "spfc: the victim port became a Victim",
             f"to_victim {sp['ss'].get('to_victim')}, {sp['ss'].get('victim_time', 0) / 1e9:.2f} s as Victim")
        # The paper's direction, the victim port paused less than under DT,
        # does not hold in every run at the VM's scale (docs/TESTING.md,
        # 10 recorded runs): its XOFF count was 0.07-0.78 of DT's and tied
        # it (43 / 43) in one CI run, its time paused 0.31-1.03 of DT's.
        # A late timer starves its departures for a window, it turns
        # Normal, and a Normal port pauses as DT's does. So it is printed
        # here and reported by `make compare SCENARIO=spfc-victim`. What
        # held in every run is SPFC's rule itself: a Victim is not paused
        # while the pool has room (the latch below is the case where it
        # has none).
        print(f"  victim port, SPFC / DT (reported, not asserted): XOFF "
              f"{sp['xoff_victim'] / max(dt['xoff_victim'], 1):.2f}, time paused "
              f"{sp['paused_victim'] / max(dt['paused_victim'], 1e-9):.2f}", flush=True)
        c.eq(sp["ss"].get("pauses_victim"), 0, "spfc: the victim port was never paused while a Victim")
        latch(c, sw, rx, tx, ports)
        slow_path_and_oracle(c, sw, rx, tx, ports)
    c.finish()


if __name__ == "__main__":
    main()
