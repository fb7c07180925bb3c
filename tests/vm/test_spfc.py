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
     victim), h0's port became a Victim under SPFC and paused fewer
     times than under DT (its X_off is the whole buffer); the time
     paused is printed (less under SPFC in every run so far, by a
     smaller margin).
  3. The penalty latch: h0 alone into r0, whose switch port runs at half
     the rate, with a 1 MB buffer: h0's departures (C/2) keep it a
     Victim while its bytes fill the shared region; it pauses anyway (a
     pause while Victim: the pool is full), turns Normal, drains to DT's
     X_on, resumes, is a Victim again; nothing is lost.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks, first_line  # noqa: E402
from fanin import all_options, build, drained, port_stats  # noqa: E402
from nltc import (LOSSLESS_SCHEME, TCA_LOSSLESS as A, TCA_LOSSLESS_SCHEME as S,  # noqa: E402
                  TCA_LOSSLESS_SPFC as F, attr, nest, qdisc_request, u8, u64)
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


def main():
    c = Checks("spfc")
    with Topology("spfc") as t:
        sw, rx, tx, ports = build(t, f"lossless rate {MBIT}mbit {POOL}", 1 + BURST_PORTS, 2, MBIT)
        change(c, sw, ports, SPFC)
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
        # The pause count differs by 6-24 times in the runs so far, the
        # time paused by 1.6-2.2 times (the victim port turns Normal in a
        # window where its departures dip, and a Normal port's pauses
        # last): the count is asserted, the time printed (docs/SPFC.md).
        c.ok(sp["xoff_victim"] < dt["xoff_victim"], "spfc: the victim port paused fewer times than under dt",
             f"XOFF {sp['xoff_victim']} < {dt['xoff_victim']}; time paused {sp['paused_victim']:.2f} s "
             f"against {dt['paused_victim']:.2f} s")
        latch(c, sw, rx, tx, ports)
    c.finish()


if __name__ == "__main__":
    main()
