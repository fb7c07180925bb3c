#!/usr/bin/python3
"""Bifrost as a port mode in the VM (docs/BIFROST.md; bifrost.md 8.3 S2,
scaled): a switch whose long-haul port runs Bifrost beside short ports
under the pool's scheme (dt), in one pool.

The network, 5 Mbit/s everywhere:
    up --[long link: 20 ms one way, netem]-- sw:p_up   (mode bifrost)
    h1 --------------------------------------- sw:p_h1   (the pool's dt)
    h2 --------------------------------------- sw:p_h2   (the pool's dt)
    r  --------------------------------------- sw:p_r    (the bottleneck)
All three senders send lossless priority 3 to r at line rate for SECONDS,
so r's link is a 3:1 incast (the long-haul port and two short ports under
the pool's scheme); in the middle r stalls the switch's port to it
with a PFC XOFF for STALL_S (S2: the downstream's drain stops) and then
resumes it. The long link's delay dominates the VM's own (its RTT is 40 ms
of wire against a few ms of software): Delta = R_s x RTT_BOUND, T = SLOT,
J = JITTER, chosen from the lateness the VM's timers show (tens of ms).

  1. Bad input through tc: a mode without its RTT, a slot at the one-way
     delay, a buffer below the least, a pause time beyond 16-bit quanta,
     parameters of another mode: refused with a message naming the value,
     every port's options unchanged.
  2. The run: zero lossless drops on both kinds of port, every datagram
     delivered; Bifrost sent its frames and the upstream applied them; its
     queue stayed within H (max L <= H, no breach of L + F <= H); the dt
     ports paused their senders with PFC as always. The slot loop's lateness
     histogram and its largest lateness are printed beside J; a run whose
     lateness passed J says so (its zero loss was not the premise's).
  3. A link down and up restarts the mode at the next arrival: one more
     restart counted, the port's counters kept.
  4. BifrostX (bifrost-frame tokens): the long-haul port sends a TOKENS
     frame per slot; the upstream, strict priority 5 > 4 > 3, sends each
     priority within its share of the link's token. Three lossless
     priorities from the upstream (2, 1.5 and 2 Mbit/s of payload: more
     than the link), r stalls all three for TOKENS_STALL_S: zero lossless
     drops, every datagram delivered, the upstream metered by the frames,
     strict priority (the high and middle priorities send at their rates,
     the low one what is left), and once the port is quiet
     its upstream is freed (no queue metered any more).
The slot timer sleeps while the port is idle (its wakes are printed):
the run's restarts are those of a loop stopped for F's window, none when
the timers kept within J.
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks, first_line  # noqa: E402
from incast import BACKLOG_SYSCTL, PAYLOAD, qstats  # noqa: E402
from nltc import qdisc_dump  # noqa: E402
from topology import Paths, Topology, announce, wait_for  # noqa: E402

MBIT = 5
DELAY = "20ms"			# one way, the long link's wire
WIRE_MS = 20
SLOT_MS = 10
RTT_BOUND_MS = 150
RTT_BOUND = "150ms"		# the loop's RTT bound: 40 ms of wire + the VM's software
SLOT = "10ms"
JITTER = "100ms"		# the slot loop's lateness under TCG: tens of ms (printed)
JITTER_NS = 100_000_000
POOL = "pool sw0 buffer 2mb lossless-prios 3,4,5 alpha 1/8 sw-delay 60ms"
BIFROST = f"mode bifrost bifrost-rtt {RTT_BOUND} bifrost-slot {SLOT} bifrost-jitter {JITTER}"
SECONDS = 6.0
STALL_AT, STALL_S = 2.0, 1.0
PORT = 5000
QUANTA_MAX = 65535


def build(t):
    sw = t.switch("sw")
    r = t.host("r")
    lr = t.link(r, sw)
    r_ip = lr["a_ip"]
    senders = []
    for i, (name, delay) in enumerate((("up", DELAY), ("h1", None), ("h2", None))):
        h = t.host(name)
        lk = t.link(h, sw, delay=delay)
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add 10.0.0.{10 + i}/24 dev {lk['a_if']}")
        h.run(f"ip neigh replace {r_ip} lladdr {lr['a_mac']} dev {lk['a_if']} nud permanent")
        r.run(f"ip neigh replace 10.0.0.{10 + i} lladdr {lk['a_mac']} dev {lr['a_if']} nud permanent")
        # The upstream paces to R_s with a bucket of one MTU, and catches up
        # no more than that after a late wake-up, while its peer runs
        # Bifrost (the spec's "at most R_s T per slot"); both honour PFC.
        pace = " burst 1514 catchup 1514" if delay else ""
        h.run(f"tc qdisc add dev {lk['a_if']} root lossless rate {MBIT}mbit{pace} limit 20000")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        senders.append((h, lk))
    announce([r] + [h for h, _ in senders])
    ports = {"r": lr["b_if"], "up": senders[0][1]["b_if"], "h1": senders[1][1]["b_if"],
             "h2": senders[2][1]["b_if"]}
    for name, p in ports.items():
        mode = f" {BIFROST}" if name == "up" else ""
        sw.run(f"tc qdisc add dev {p} root handle 1: lossless rate {MBIT}mbit {POOL}{mode}")
        sw.run(f"{Paths.ingress} attach {p} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
    need = max(qstats(sw, p)["options"].get("backlog_need", 0) for p in ports.values())
    with open(BACKLOG_SYSCTL) as f:
        if int(f.read()) < need:
            with open(BACKLOG_SYSCTL, "w") as w:
                w.write(str(need))
    return sw, r, r_ip, lr, senders, ports


def options(sw, ports):
    return {n: qstats(sw, p)["options"] for n, p in ports.items()}


def bad_input(c, sw, ports):
    before = options(sw, ports)
    p = ports["up"]
    cases = [
        ("mode bifrost", "bifrost-rtt"),
        (f"mode bifrost bifrost-rtt {RTT_BOUND} bifrost-slot 75ms", "bifrost-slot"),
        (f"mode bifrost bifrost-rtt {RTT_BOUND} bifrost-buffer 50kb", "bifrost-buffer"),
        # 10 Gbit/s with T + J = 110 ms: far beyond 65535 quanta.
        (f"rate 10gbit mode bifrost bifrost-rtt {RTT_BOUND} bifrost-slot {SLOT}", "quanta"),
        (f"mode none bifrost-rtt {RTT_BOUND}", "a parameter of mode bifrost"),
        ("mode bifrostx", "invalid mode"),
    ]
    for args, msg in cases:
        r = sw.run(f"tc qdisc change dev {p} root lossless {args}", check=False)
        c.ok(r.returncode != 0 and msg in r.stderr, f"tc refuses '{args}'", first_line(r.stderr))
    c.eq(options(sw, ports), before, "every port's options are the same after the refusals")
    o = before["up"]
    c.ok(o.get("mode") == "bifrost" and o.get("bifrost_rtt") == 150_000_000,
         "the long-haul port shows its mode and RTT", f"{o.get('mode')} {o.get('bifrost_rtt')}")


def stall(r, lr):
    """r pauses the switch's port to it (priority 3) for STALL_S from
    STALL_AT after the returned process is told to start."""
    q = min(QUANTA_MAX, round(STALL_S * MBIT * 1e6 / 512) + 1)
    plan = [{"at": STALL_AT, "name": "xoff", "kind": "pfc", "vector": 1 << 3,
             "times": [0, 0, 0, q, 0, 0, 0, 0]},
            {"at": STALL_AT + STALL_S, "name": "xon", "kind": "pfc", "vector": 1 << 3,
             "times": [0] * 8}]
    p = r.popen(f"{Paths.python} {Paths.pause_sender} {lr['a_if']} {lr['a_mac']} '{json.dumps(plan)}'",
                stdin=subprocess.PIPE)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + p.communicate()[1])
    return p


def run(c, sw, r, r_ip, lr, senders, ports):
    recv = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 5 --duration {SECONDS * 4 + 60} "
                   f"--bucket-ms 100")
    r.wait_udp(PORT)
    pauser = stall(r, lr)
    procs = [h.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {i} --prio 3 --dscp 24 "
                     f"--size {PAYLOAD} --duration {SECONDS} --sndbuf {4 << 20}")
             for i, (h, _) in enumerate(senders)]
    pauser.communicate("go\n", timeout=60)
    sends = [json.loads(p.communicate(timeout=SECONDS * 4 + 60)[0]) for p in procs]
    res = json.loads(recv.communicate(timeout=SECONDS * 4 + 120)[0])
    wait_for(lambda: all(qstats(sw, p)["backlog"] == 0 for p in ports.values()), timeout=30)
    st = {n: qstats(sw, p) for n, p in ports.items()}
    ups = [qstats(h, lk["a_if"]) for h, lk in senders]

    sent = [s["sent"] for s in sends]
    got = [res["flows"].get(str(i), {}).get("received", 0) for i in range(len(senders))]
    drops = st["r"]["pool_drops_lossless"]
    ms = st["up"].get("mode_stats", {})
    h = st["up"]["ingress"][3]["headroom_size"]	# a mode's port: H
    hist = ms.get("late_hist", [])
    late_max_us = ms.get("max_late", 0) // 1000
    dt_xoff = [st[n]["ingress"][3]["xoff_frames"] for n in ("h1", "h2")]
    print(f"  sent {sent} received {got}; pool lossless drops {drops}", flush=True)
    print(f"  bifrost port: slots {ms.get('slots')} frames {ms.get('frames')} full_pauses "
          f"{ms.get('full_pauses')} pause {ms.get('pause', 0) / 1e6:.0f} ms missed_slots "
          f"{ms.get('missed_slots')}; max L {ms.get('max_queue')} B, max L+F {ms.get('max_lf')} B, "
          f"H {h} B, min margin {ms.get('min_margin')} B, breaches {ms.get('breaches')}, "
          f"late grants {ms.get('late_grant')} B, leak {ms.get('leak')} B, restarts {ms.get('restarts')}, "
          f"wakes from idle {ms.get('wakes')}", flush=True)
    print(f"  slot lateness (slots per bucket, us: <1, [1,2), [2,4), ...): {hist}; "
          f"largest {late_max_us} us; J {JITTER_NS // 1000} us", flush=True)
    per = MBIT * 1e6 * res["bucket_ns"] / 8e9
    print("  r's link busy per 100 ms (%): "
          + " ".join(f"{b / per * 100:.0f}" for b in res["bucket_wire_bytes"]), flush=True)
    print(f"  upstreams applied {[u.get('pfc_frames_rx', 0) for u in ups]} PFC frames (up, h1, h2); "
          f"dt port XOFF frames {dt_xoff}", flush=True)
    # A restart while traffic ran is the loop stopped for F's window (the
    # first start and the wakes from idle are not restarts).
    premise = late_max_us * 1000 < JITTER_NS and ms.get("restarts", 0) == 0
    if not premise:
        print(f"  the slot loop ran later than J ({late_max_us} us >= {JITTER_NS // 1000} us): the buffer "
              f"was not sized for this run's lateness (late grants {ms.get('late_grant')} B)", flush=True)

    c.eq(drops, 0, "MMU: no lossless drop (the Bifrost port and the dt ports)")
    c.eq(got, sent, "every datagram of the three senders arrived")
    ingress_drops = {n: st[n]["ingress"][3]["drops"] for n in ("up", "h1", "h2")}
    c.eq(ingress_drops, {"up": 0, "h1": 0, "h2": 0}, "no lossless drop on either kind of port (per ingress)")
    c.ok(ms.get("slots", 0) > 0 and ms.get("frames", 0) > 0, "Bifrost ran its slots and sent frames",
         f"slots {ms.get('slots')}, frames {ms.get('frames')}")
    # C4's form: at most one minimum-size frame per slot (84 B on the wire
    # with the preamble and gap); the share of the link the frames took.
    slot_s = 0.010
    overhead = ms.get("frames", 0) * 84 * 8 / (MBIT * 1e6 * slot_s * max(1, ms.get("slots", 0)))
    print(f"  control overhead: {overhead * 100:.2f} % of the link over the slots run "
          f"(at most {84 * 8 / (MBIT * 1e6 * slot_s) * 100:.2f} %: one frame per slot)", flush=True)
    c.le(ms.get("frames", 0), ms.get("slots", 0), "at most one frame per slot")
    c.ok(ms.get("full_pauses", 0) > 0, "the stall made Bifrost pause its upstream fully",
         f"{ms.get('full_pauses')} full pauses")
    c.ok(ups[0].get("pfc_frames_rx", 0) > 0, "the upstream applied Bifrost's frames across the long link",
         f"{ups[0].get('pfc_frames_rx', 0)}")
    c.le(ms.get("max_queue", 1 << 60), h, "Bifrost's queue stayed within H (max L <= H)", " B")
    if premise:
        c.eq(ms.get("breaches"), 0, "L + F stayed within H in every slot")
    c.ok(all(x > 0 for x in dt_xoff), "both dt ports paused their senders with PFC as always",
         f"{dt_xoff} XOFF frames")
    return ms


def restart(c, sw, ports, senders, r_ip, before):
    p = ports["up"]
    sw.run(f"ip link set {p} down")
    sw.run(f"ip link set {p} up")
    # The mode restarts at the port's next arrival.
    h = senders[0][0]
    h.run(f"{Paths.traffic} send --dst {r_ip} --port {PORT + 1} --flow 9 --prio 3 --dscp 24 "
          f"--size {PAYLOAD} --duration 0.3")
    wait_for(lambda: qstats(sw, p).get("mode_stats", {}).get("restarts", 0) > before.get("restarts", 0),
             timeout=10)
    ms = qstats(sw, p).get("mode_stats", {})
    c.eq(ms.get("restarts"), before.get("restarts", 0) + 1,
         "a link down and up restarts the mode at the next arrival (one restart)")
    c.ok(ms.get("slots", 0) >= before.get("slots", 1 << 60),
         "the port's counters survive the restart", f"slots {before.get('slots')} -> {ms.get('slots')}")


TOKENS_S = 3.0
TOKENS_STALL_AT, TOKENS_STALL_S = 1.0, 0.5
TOKENS_RATES = {5: 2.0, 4: 1.5, 3: 2.0}		# payload Mbit/s: high, middle, low
CREDIT_RE = re.compile(r"class lossless [0-9a-f]+:([0-9a-f]+) .*?credit (metered|off) left (\d+)b frames (\d+) "
                       r"granted (\d+)b blocked (\d+)", re.S)


def credit(host, dev):
    """The upstream's credit per queue (tc -s class; iproute2 6.1 has no
    JSON for classes): {queue: (metered, frames, granted_bytes, blocked)}."""
    out = host.run(f"tc -s class show dev {dev}")
    res = {}
    for block in out.split("class lossless ")[1:]:
        m = CREDIT_RE.match("class lossless " + block)
        if m:
            res[int(m.group(1), 16) - 1] = (m.group(2) == "metered", int(m.group(4)), int(m.group(5)),
                                        int(m.group(6)))
    return res


def tokens(c, sw, r, r_ip, lr, senders, ports):
    h, lk = senders[0]
    p = ports["up"]
    wait_for(lambda: qstats(sw, p)["backlog"] == 0, timeout=30)
    sw.run(f"tc qdisc change dev {p} root lossless {BIFROST} bifrost-frame tokens")
    o = qstats(sw, p)["options"]
    c.eq(o.get("bifrost_frame"), "tokens", "the long-haul port shows bifrost-frame tokens")
    # The upstream, and the switch's port to r: strict priority, priority
    # 7 first (queue 7 - p).
    strict = "queues 8 strict 8 priomap 7 6 5 4 3 2 1 0"
    h.run(f"tc qdisc replace dev {lk['a_if']} root lossless rate {MBIT}mbit burst 1514 catchup 1514 "
          f"limit 20000 {strict}")
    sw.run(f"tc qdisc change dev {ports['r']} root lossless {strict}")
    before = qstats(sw, p).get("mode_stats", {})
    port = PORT + 2
    recv = r.popen(f"{Paths.traffic} recv --port {port} --idle-exit 5 --duration {TOKENS_S * 4 + 60} "
                   f"--bucket-ms 100")
    r.wait_udp(port)
    q = min(QUANTA_MAX, round(TOKENS_STALL_S * MBIT * 1e6 / 512) + 1)
    plan = [{"at": TOKENS_STALL_AT, "name": "xoff", "kind": "pfc", "vector": 0x38,
             "times": [0, 0, 0, q, q, q, 0, 0]},
            {"at": TOKENS_STALL_AT + TOKENS_STALL_S, "name": "xon", "kind": "pfc", "vector": 0x38,
             "times": [0] * 8}]
    pauser = r.popen(f"{Paths.python} {Paths.pause_sender} {lr['a_if']} {lr['a_mac']} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if pauser.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + pauser.communicate()[1])
    procs = {prio: h.popen(f"{Paths.traffic} send --dst {r_ip} --port {port} --flow {prio} --prio {prio} "
                           f"--dscp {prio * 8} --size {PAYLOAD} --rate-mbit {rate} --duration {TOKENS_S} "
                           f"--sndbuf {256 << 10}")
             for prio, rate in TOKENS_RATES.items()}
    pauser.communicate("go\n", timeout=60)
    sends = {prio: json.loads(pr.communicate(timeout=TOKENS_S * 4 + 60)[0]) for prio, pr in procs.items()}
    res = json.loads(recv.communicate(timeout=TOKENS_S * 4 + 120)[0])
    wait_for(lambda: all(qstats(sw, x)["backlog"] == 0 for x in ports.values()), timeout=30)
    st = qstats(sw, p)
    ms = st.get("mode_stats", {})
    cr = credit(h, lk["a_if"])
    got = {prio: res["flows"].get(str(prio), {}).get("received", 0) for prio in TOKENS_RATES}
    sent = {prio: s["sent"] for prio, s in sends.items()}
    # Strict priority: how long after its sender stopped each flow's last
    # datagram arrived (one clock: the VM's monotonic one).
    lag_ms = {prio: (res["flows"].get(str(prio), {}).get("last_ns", 0) - sends[prio]["end_ns"]) / 1e6
              for prio in TOKENS_RATES}
    drops = qstats(sw, ports["r"])["pool_drops_lossless"]
    ingress_drops = {prio: st["ingress"][prio]["drops"] for prio in TOKENS_RATES}
    h_bytes = st["ingress"][3]["headroom_size"]
    slots = ms.get("slots", 0) - before.get("slots", 0)
    frames = ms.get("frames", 0) - before.get("frames", 0)
    print(f"  tokens: sent {sent} received {got} (by priority); pool lossless drops {drops}", flush=True)
    print(f"  tokens: slots {slots} frames {frames}; max L {ms.get('max_queue')} B of H {h_bytes} B, "
          f"breaches {ms.get('breaches')}, largest lateness {ms.get('max_late', 0) // 1000} us", flush=True)
    rtt_ms = ms.get("max_rtt", 0) / 1e6
    print(f"  tokens: the loop's round trip measured by the stall's full pauses: {rtt_ms:.1f} ms "
          f"(wire {2 * WIRE_MS} ms both ways, bifrost-rtt {RTT_BOUND})", flush=True)
    print(f"  tokens: last datagram after its sender stopped (ms): {lag_ms}", flush=True)
    ing = h.json(f"{Paths.ingress} show {lk['a_if']} --json --pin-dir /sys/fs/bpf/ll-{h.ns}")
    ing = ing["ports"][0]["control"]
    print(f"  tokens: the upstream's ingress program: {ing}", flush=True)
    print("  tokens: upstream credit per queue (metered, frames, granted B, blocked): "
          + ", ".join(f"q{k} {v}" for k, v in sorted(cr.items())), flush=True)
    # The probe's bound is a slot's wide: at least the wire less a slot,
    # and within bifrost-rtt (else losslessd would raise its alarm).
    if rtt_ms:
        c.ok(2 * WIRE_MS - SLOT_MS <= rtt_ms <= RTT_BOUND_MS,
             "tokens: the measured round trip is the wire's (within a slot) and within bifrost-rtt",
             f"{rtt_ms:.1f} ms")
    else:
        print("  tokens: no RTT sample in this run (no full pause after a window of grants)", flush=True)
    c.eq(drops, 0, "tokens: no lossless drop in the pool")
    c.eq(ingress_drops, {5: 0, 4: 0, 3: 0}, "tokens: no lossless drop on the long-haul port")
    c.eq(got, sent, "tokens: every datagram of the three priorities arrived")
    c.ok(frames > 0 and frames <= slots + 1, "tokens: a frame per slot at most, and frames sent",
         f"{frames} frames in {slots} slots")
    metered_frames = [cr.get(7 - prio, (False, 0, 0, 0))[1] for prio in (5, 4, 3)]
    c.ok(ing.get("tokens", 0) > 0 and ing.get("dropped", 1) == 0,
         "tokens: the upstream's ingress program passed the TOKENS frames on", f"{ing.get('tokens')}")
    c.ok(all(x > 0 for x in metered_frames), "tokens: the upstream applied TOKENS frames to all three queues",
         f"{metered_frames}")
    c.le(ms.get("max_queue", 1 << 60), h_bytes, "tokens: the port's queue stayed within H", " B")
    # Per priority (the mode's prio_stats): each frame carries a token of
    # at most B = R_s T per lossless priority, and the stall grew the
    # switch's queues, which cuts them.
    b_bytes = MBIT * 1000000 // 8 * SLOT_MS // 1000
    tok = {prio: ms["tokens"][prio] - before.get("tokens", [0] * 8)[prio] for prio in TOKENS_RATES}
    cut = {prio: ms["cut_slots"][prio] - before.get("cut_slots", [0] * 8)[prio] for prio in TOKENS_RATES}
    print(f"  tokens: per priority, tokens sent (B) {tok}, slots that cut them {cut}; B {b_bytes}", flush=True)
    c.ok(all(0 < tok[prio] <= frames * b_bytes for prio in TOKENS_RATES),
         "tokens: every priority's tokens were sent, at most B a frame", f"{tok} in {frames} frames")
    c.ok(sum(cut.values()) > 0, "tokens: the stall cut the priorities' tokens", f"{cut}")
    # The per-priority values still reach a fresh socket's first dump skb.
    d = qdisc_dump(sw.link_info(p)["ifindex"], ns=sw.ns)
    c.ok(d is not None and d["app"] is not None, "tokens: a fresh socket's dump carries the port's xstats",
         f"{d and len(d['app'] or b'')} B of xstats in a {d and d['message_bytes']} B message")
    # Strict priority: the high priority sent at its rate (a fair share,
    # 5/3 Mbit/s, would have held it back to 0.83), the middle one well
    # above the low one (a fair share gives low 0.83 and middle 1.0), the
    # low one what the link left (its sender blocked on backpressure). The
    # middle one's own rate is not asserted: on a loaded host its share
    # was 1.003 in one run and 0.873 in another (its sender starved of CPU
    # in the VM, 332 ms behind at the end), with strict priority intact.
    offered = {prio: rate * 1e6 * TOKENS_S / 8 / PAYLOAD for prio, rate in TOKENS_RATES.items()}
    share = {prio: round(sent[prio] / offered[prio], 3) for prio in TOKENS_RATES}
    print(f"  tokens: sent / offered by priority: {share}", flush=True)
    c.ok(share[5] >= 0.97 and share[4] >= share[3] + 0.3 and share[3] < 0.8,
         "tokens: strict priority (high at its rate, middle well above low, low with what was left)",
         f"{share}")
    # Quiet: the port frees its upstream with a PFC resume, metering ends.
    wait_for(lambda: not any(v[0] for v in credit(h, lk["a_if"]).values()), timeout=10)
    c.ok(not any(v[0] for v in credit(h, lk["a_if"]).values()),
         "tokens: a quiet port freed its upstream (no queue metered)")


def main():
    c = Checks("bifrost")
    with Topology("bifrost") as t:
        sw, r, r_ip, lr, senders, ports = build(t)
        o = qstats(sw, ports["up"])
        print(f"  long link: {MBIT} Mbit/s, {DELAY} one way; bifrost-rtt {RTT_BOUND}, slot {SLOT}, "
              f"jitter {JITTER}: H {o['ingress'][3]['headroom_size']} B; a dt port's headroom "
              f"{qstats(sw, ports['h1'])['ingress'][3]['headroom_size']} B", flush=True)
        bad_input(c, sw, ports)
        ms = run(c, sw, r, r_ip, lr, senders, ports)
        restart(c, sw, ports, senders, r_ip, ms)
        tokens(c, sw, r, r_ip, lr, senders, ports)
    c.finish()


if __name__ == "__main__":
    main()
