#!/usr/bin/python3
"""PortFC's deadlock scenario S-04 (portfc.md 10.3) on BCube(4,1): PFC
against PortFC (VM; `make portfc-deadlock`).

The ring S0_0 (16) - 0 - S1_0 (20) - 4 - S0_1 (17) - 5 - S1_1 (21) - 1 - 16
carries four long-lived four-hop flows, each through one relay server:

    f1 1 -> 4 via 0 (digit 0 first)     f2 0 -> 5 via 4 (digit 1 first)
    f3 4 -> 1 via 5 (digit 0 first)     f4 5 -> 0 via 1 (digit 1 first)

so every ring link carries two of them, plus a burst 2 -> 0 that congests
switch 16's port 0. Every sender sends as fast as its port (and its 256 KB
socket buffer) lets it. Each server's ring port carries its own flow and
the one it relays: twice its line rate, so every server pauses the switch
that feeds it, and each switch, paused, pauses the server before it.

  pfc     every switch a pool with PFC on priority 3 (scheme st, X_off
          30 KB), and every server a PFC switch of its own two ports (a
          pool): a relay that cannot send pauses the switch that feeds it.
          The relays keep the packets' priority (DSCP 24 is priority 3, as
          a PFC switch that trusts DSCP keeps it; bcube.BCube dscp_prio),
          so relayed bytes count in the relay's pool and the next switch's
          PFC frames stop them. The PFC watchdog runs on every port in
          detection mode only (`pfcwd alert`, `xoff-alarm 1s`: nothing in
          the datapath changes); its storms and XOFF alarms are recorded.
  portfc  every switch a PortFC pool, servers plain lossless ports with
          PortFC's queues; the servers pause nobody.

Nothing else differs: thresholds, buffer, rates and traffic are the same.
The PFC deadlock needs no tuning beyond that: the four flows at line rate
close the cyclic buffer dependency of the spec's figure 5 (section 5).

Progress: each ring flow's delivered bytes per window (the receivers'
buckets); a flow is stalled in a window that delivered nothing while its
sender was still sending. A run is deadlocked when the pools still hold
bytes 2 s after the senders stopped and the ring delivered nothing in the
3 s after they stopped. A sender blocked in send() 5 s past its end (its
queue paused, its socket buffer full) is killed and reported. At the end:
the watchdog's state on every port, the ring's queues still paused or
holding bytes (`tc -s class show`), and the frames sent in the 2 s after
the senders stopped (PFC's refreshes of the pauses). While the traffic
runs, a sampler reads every queue of every port every 50 ms (rtnetlink,
tcstats.py; its mean period is reported) and reports the longest pause it
can prove, and every queue paused longer than T_stuck (t_stuck_ms below).
Prints one
JSON line per run and a table; --plot draws the ring flows per window
(plot-deadlock.gp).

usage: deadlock.py [--schemes pfc portfc] [--seeds N] [--duration S]
                   [--rate RATE] [--window-ms W] [--out DIR] [--plot PNG]
       deadlock.py --plot-from DIR/deadlock.json [--plot PNG] [--plot-seed N]
"""

import argparse
import json
import os
import re
import shlex
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from bcube import BCube  # noqa: E402
from topology import Paths, Topology, ensure_modules  # noqa: E402
from tcstats import ClassReader  # noqa: E402

FLOWS = [(1, 4, 0), (0, 5, 1), (4, 1, 0), (5, 0, 1)]   # (src, dst, level corrected first)
BURST = (2, 0)
THRESH_KB = 30
# PFC's pools: a static threshold of PortFC's X_off, so that the two
# pause at the same queue lengths (spec 9.1: "PFC (ingress thresholds,
# same values)").
PFC_POOL = f"buffer 4mb lossless-prios 3 sw-delay 30ms scheme st st-threshold {THRESH_KB}kb"
# The PFC watchdog on every PFC port, detection only: `alert` counts a
# storm (paused by the peer, packets waiting, for pfcwd-detect) and keeps
# honouring the pause; the XOFF alarm is raised by a port whose MMU has
# told its upstream XOFF for xoff-alarm. Neither changes the datapath.
# pfcwd-restore is above the pause time of a PFC frame (65535 quanta, 671
# ms at 50 Mbit/s): a restore voids the peer's pause (docs/WATCHDOG.md),
# and with a shorter one a refresh that the VM's timers send late would let
# the watchdog open a gate that the pause still closes. So the watchdog
# opens nothing that would not have opened without it.
PFC_WD = "pfcwd alert pfcwd-detect 500ms pfcwd-restore 1s pfcwd-poll 100ms xoff-alarm 1s"
# DSCP 24 is priority 3 everywhere: at the PFC servers also for the packets
# they relay (bcube.BCube's dscp_prio: Linux's forwarding would put them in
# priority 0, which PFC never pauses).
DSCP_PRIO = {24: 3}
# The ring: its four servers and four switches (S0_0, S0_1, S1_0, S1_1).
RING_SERVERS = (0, 1, 4, 5)
RING_SWITCHES = (16, 17, 20, 21)
# T_stuck (spec 10.3 S-04): one pause time at the ports' rate, 65535
# quanta of 512 bit times (671 ms at 50 Mbit/s). PortFC's pauses are soft
# state: a pause whose Resume was lost ends by itself within one pause
# time (spec S-07, T_expire), so only a pause longer than that outlives
# every frame that set it. The spec asks "while its cause queue is <= its
# X_on"; the sampler does not see the cause (a switch queue up to two hops
# away), so a legitimately long pause counts too: stricter than the spec.


def t_stuck_ms(rate):
    units = {"gbit": 1e9, "mbit": 1e6, "kbit": 1e3, "bit": 1}
    for u, m in units.items():
        if rate.endswith(u):
            return 65535 * 512 / (float(rate[:-len(u)]) * m) * 1e3
    raise ValueError(f"rate {rate!r}: a number with gbit, mbit, kbit or bit")


def first_of(src, dst):
    for s, d, f in FLOWS:
        if (s, d) == (src, dst):
            return f
    return 0


def build(t, scheme, rate, pfc_pool, first=first_of):
    """BCube(4,1) with PFC (its watchdog detecting only) or PortFC; first
    picks each pair's path order (the level corrected first)."""
    common = pfc_pool
    if scheme == "pfc":
        return BCube(t, 4, 1, qdisc=f"rate {rate} {PFC_WD}", first=first, ingress=True,
                     switch_pool=common, server_pool=common, dscp_prio=DSCP_PRIO)
    pool = (f"buffer 4mb lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4 "
            f"portfc-xoff-a {THRESH_KB}kb portfc-xon-a {THRESH_KB * 2 // 3}kb "
            f"portfc-xoff-b {THRESH_KB}kb portfc-xon-b {THRESH_KB * 2 // 3}kb")
    return BCube(t, 4, 1, qdisc=f"rate {rate}", first=first, classify=True, switch_pool=pool)


def pools(bc):
    """Bytes held per pool (switches and, under PFC, servers)."""
    out = {}
    for h in list(bc.switches.values()) + list(bc.servers.values()):
        q = json.loads(h.run(f"tc -s -j qdisc show dev {h.ifaces[0]}"))[0]
        if "pool_shared_used" in q:
            out[h.name] = (q.get("pool_shared_used", 0) + q.get("pool_headroom_used", 0)
                           + q.get("pool_reserved_used", 0))
    return out


def drops(bc):
    """Where packets were dropped: per host, the qdiscs' drops and the
    pool's lossless and lossy drops (nonzero only)."""
    out = {}
    for h in list(bc.switches.values()) + list(bc.servers.values()):
        qd, ll, ly = 0, 0, 0
        for dev in h.ifaces:
            q = json.loads(h.run(f"tc -s -j qdisc show dev {dev}"))[0]
            qd += q.get("drops", 0)
            ll = max(ll, q.get("pool_drops_lossless", 0))
            ly = max(ly, q.get("pool_drops_lossy", 0))
        if qd or ll or ly:
            out[h.name] = {"qdisc": qd, "lossless": ll, "lossy": ly}
            if qd != ll + ly:
                # Which class dropped, and the pool's view of it.
                out[h.name]["classes"] = [
                    line.strip() for dev in h.ifaces
                    for line in h.run(f"tc -s class show dev {dev}").splitlines()
                    if "class lossless" in line or ("dropped" in line and "dropped 0" not in line)]
                out[h.name]["qdisc_text"] = h.run(f"tc -s qdisc show dev {h.ifaces[0]}")[:1500]
    return out


def ring_hosts(bc):
    return ([bc.server(i) for i in RING_SERVERS] + [bc.switches[j] for j in RING_SWITCHES])


def qdiscs(h):
    """Every lossless qdisc of host h, by device: one `tc -s -j qdisc show`."""
    return {q["dev"]: q for q in json.loads(h.run("tc -s -j qdisc show"))
            if q.get("kind") == "lossless"}


class Sampler(threading.Thread):
    """Every queue of the given hosts, every PERIOD_S while the traffic
    runs, from rtnetlink (tcstats.ClassReader: no process per read): each
    class's paused state and paused_ns (the time its gates were closed).
    A queue paused at two samples whose paused_ns grew by the whole time
    between them (less SLACK_NS) was paused without a break in between;
    consecutive such intervals make a lower bound of a continuous pause.
    (Each pausable queue here has one gate that closes: PortFC's a-, b-
    and A-slot gates, or PFC's priority 3; the port gate never closes.)"""
    SLACK_NS = 10_000_000
    PERIOD_S = 0.05

    def __init__(self, hosts):
        super().__init__(daemon=True)
        self.samples, self.stop, self.error = [], threading.Event(), None
        self.failed, self.read_ms = 0, []
        try:
            self.reader = ClassReader({h.name: (h.ns, h.ifaces) for h in hosts})
        except OSError as e:
            self.reader, self.error = None, str(e)

    def run(self):
        if self.reader is None:
            return
        try:
            while not self.stop.is_set():
                self.samples.append(self.reader.read())
                self.stop.wait(self.PERIOD_S)
        except (OSError, ValueError, struct.error) as e:
            self.error = str(e)
        finally:
            self.failed = self.reader.failed
            r = sorted(self.reader.read_ns)
            self.read_ms = [round(r[0] / 1e6, 1), round(r[len(r) // 2] / 1e6, 1), round(r[-1] / 1e6, 1)] if r else []
            self.reader.close()

    def longest(self, waiting=False):
        """Per key, the longest continuous pause the samples prove (ns),
        and the samples' mean period (ns). With waiting, only a pause with
        packets queued at both samples counts (a paused empty queue holds
        nobody up; the PFC watchdog's storm is judged so too)."""
        best, run_ns, periods = {}, {}, []
        for a, b in zip(self.samples, self.samples[1:]):
            for k, (t1, p1, pt1, q1) in b.items():
                if k not in a:
                    continue
                t0, p0, pt0, q0 = a[k]
                periods.append(t1 - t0)
                if (p0 and p1 and pt1 - pt0 >= (t1 - t0) - self.SLACK_NS
                        and (not waiting or (q0 and q1))):
                    run_ns[k] = run_ns.get(k, 0) + (t1 - t0)
                    best[k] = max(best.get(k, 0), run_ns[k])
                else:
                    run_ns[k] = 0
        return best, (sum(periods) / len(periods) if periods else 0)


def relay_frames(bc):
    """PortFC's frames as the ingress programs counted them, summed over
    the servers and over the switches: A, B and R frames taken, B relayed
    as R, relays that failed (the clone could not be sent), refused
    (a kind the role never hears). A lost or late Resume shows here."""
    out = {}
    for role, hosts in (("servers", bc.servers), ("switches", bc.switches)):
        tot = {"portfcA": 0, "portfcB": 0, "portfcR": 0, "relayed": 0, "relay_failed": 0,
               "refused": 0, "redirect_failed": 0}
        for h in hosts.values():
            r = h.run(f"{Paths.ingress} --pin-dir {shlex.quote(bc.ingress_pin_dir(h))} show --json",
                      check=False)
            if r.returncode:
                continue
            for port in json.loads(r.stdout)["ports"]:
                c = port["control"]
                for k in ("portfcA", "portfcB", "portfcR"):
                    tot[k] += c.get(k, 0)
                tot["relayed"] += c["portfc_relayed"]
                tot["relay_failed"] += c["portfc_relay_failed"]
                tot["refused"] += c["portfc_refused"]
                tot["redirect_failed"] += c["redirect_failed"]
        out[role] = tot
    return out


def watchdog(bc):
    """The PFC watchdog's state on every port where it has anything to say:
    the XOFF alarm (raised now, how often, how long) and storms."""
    out = {}
    for h in list(bc.switches.values()) + list(bc.servers.values()):
        for dev, q in qdiscs(h).items():
            wd = q.get("pfcwd")
            if not wd:
                continue
            p3 = wd["prios"][3]
            if wd["alarm_mask"] or wd["storm_mask"] or p3["xoff_alarms"] or p3["storms"]:
                out[f"{h.name}/{dev}"] = {
                    "alarm_now": bool(wd["alarm_mask"] & 8), "xoff_alarms": p3["xoff_alarms"],
                    "xoff_time_ms": round(p3["xoff_time"] / 1e6),
                    "storm_now": bool(wd["storm_mask"] & 8), "storms": p3["storms"],
                    "storm_time_ms": round(p3["storm_time"] / 1e6)}
    return out


def pfc_tx(bc):
    """PFC (or PortFC) frames sent so far, per host."""
    return {h.name: sum(q.get("pfc_frames_tx", 0) for q in qdiscs(h).values())
            for h in list(bc.switches.values()) + list(bc.servers.values())}


def class_state(hosts):
    """The ring's queues that hold packets or are paused now, from
    `tc -s class show` (Debian's tc 6.1 prints classes as text only)."""
    out = {}
    for h in hosts:
        for dev in h.ifaces:
            cur = None
            for line in h.run(f"tc -s class show dev {dev}").splitlines():
                m = re.match(r"class lossless (\S+)", line)
                if m:
                    cur = {"backlog_b": 0, "paused": False, "paused_ms": 0}
                    out[f"{h.name}/{dev}/{m.group(1)}"] = cur
                m = re.search(r"backlog (\d+)b", line)
                if m and cur is not None:
                    cur["backlog_b"] = int(m.group(1))
                m = re.search(r"paused (yes|no) pause_frames_rx (\d+) paused_time (\S+)", line)
                if m and cur is not None:
                    cur["paused"] = m.group(1) == "yes"
                    cur["pause_frames_rx"] = int(m.group(2))
                    cur["paused_ms"] = round(tc_time_ns(m.group(3)) / 1e6)
    return {k: v for k, v in out.items() if v["backlog_b"] or v["paused"]}


def tc_time_ns(text):
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    if not m:
        return 0
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]


def run(scheme, seed, duration, rate, window_ms):
    with Topology(f"dl{scheme[:2]}{seed}") as t:
        bc = build(t, scheme, rate, PFC_POOL)
        recvs = {}
        port = 7100
        for i, (s, d, _) in enumerate(FLOWS):
            recvs[i] = bc.server(d).popen(f"{Paths.traffic} recv --port {port + i} "
                                          f"--duration {duration + 10} --idle-exit 3 "
                                          f"--bucket-ms {window_ms}")
        recvs["burst"] = bc.server(BURST[1]).popen(f"{Paths.traffic} recv --port {port + 9} "
                                                   f"--duration {duration + 10} --idle-exit 3")
        for i, (s, d, _) in enumerate(FLOWS):
            bc.server(d).wait_udp(port + i)
        bc.server(BURST[1]).wait_udp(port + 9)
        sampler = Sampler(list(bc.servers.values()) + list(bc.switches.values()))
        start = int(time.monotonic_ns()) + 500_000_000
        snd = []
        for i, (s, d, _) in enumerate(FLOWS):
            snd.append(bc.server(s).popen(
                f"{Paths.traffic} send --dst {bc.addr(d)} --port {port + i} --flow {i + 1} "
                f"--prio 3 --dscp 24 --duration {duration} --rate-mbit 0 --sndbuf 262144 "
                f"--start-ns {start}"))
        # The burst: 1 s, from 1 s on, seeded length variation.
        burst = bc.server(BURST[0]).popen(
            f"{Paths.traffic} send --dst {bc.addr(BURST[1])} --port {port + 9} --flow 9 "
            f"--prio 3 --dscp 24 --duration {1 + (seed % 3) * 0.25} --rate-mbit 0 "
            f"--sndbuf 262144 --start-ns {start + 1_000_000_000 + seed * 37_000_000}")
        sampler.start()
        # A sender blocks in send() while its queue is paused and its socket
        # buffer full: in a deadlock, for ever. One still sending 5 s after
        # its end is killed and reported as blocked (it prints nothing).
        sent, blocked = [], []
        for p in snd + [burst]:
            try:
                out = p.communicate(timeout=max(1, start / 1e9 + duration + 5 - time.monotonic()))[0]
                sent.append(json.loads(out)["sent"])
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                sent.append(None)
                blocked.append(len(sent) - 1)
        sent = sent[:len(FLOWS)]
        sampler.stop.set()
        sampler.join()
        held_end, tx_end = pools(bc), pfc_tx(bc)
        time.sleep(2)
        held_later, tx_later = pools(bc), pfc_tx(bc)
        wd = watchdog(bc) if scheme == "pfc" else {}
        queues = class_state(ring_hosts(bc))
        frames = relay_frames(bc) if scheme == "portfc" else {}
        got = {k: json.loads(p.communicate()[0]) for k, p in recvs.items()}
        where = drops(bc)
    n = int(duration * 1000 / window_ms)
    window_bytes, windows = [], []
    for i in range(len(FLOWS)):
        b = got[i]["bucket_wire_bytes"]
        # Buckets from the common start: the senders' windows and 3 s more.
        first = int((start - got[i]["bucket_start_ns"]) // (window_ms * 1e6))
        nall = n + int(3000 / window_ms)
        row = [b[k] if 0 <= k < len(b) else 0 for k in range(first, first + nall)]
        window_bytes.append(row)
        windows.append(row[1:n])   # the first window is the warm-up
    stalled = [sum(1 for x in w if x == 0) for w in windows]
    ring = [sum(col) for col in zip(*windows)]
    run_zero, longest_zero = 0, 0
    for x in ring:
        run_zero = run_zero + 1 if x == 0 else 0
        longest_zero = max(longest_zero, run_zero)
    delivered = [sum(f["received"] for f in got[i]["flows"].values()) for i in range(len(FLOWS))]
    after = [sum(row[n:]) for row in window_bytes]
    longest, period = sampler.longest()
    longest_waiting, _ = sampler.longest(waiting=True)
    top = sorted(longest.items(), key=lambda kv: -kv[1])[:6]
    refresh = {k: tx_later[k] - tx_end[k] for k in tx_later if tx_later[k] - tx_end[k]}
    # Deadlocked: the pools still hold bytes 2 s after the senders stopped,
    # and the ring flows delivered nothing in the 3 s after they stopped.
    deadlocked = bool(sum(held_later.values()) and not sum(after))
    whole = [sum(col) for col in zip(*window_bytes)]
    moving = [k for k, x in enumerate(whole) if x]
    stopped_at = (moving[-1] + 1) * window_ms / 1000 if moving else 0.0
    return {"scheme": scheme, "seed": seed, "window_ms": window_ms, "duration_s": duration,
            "windows": len(windows[0]), "stalled_windows": stalled,
            "ring_zero_windows": sum(1 for x in ring if x == 0),
            "ring_longest_zero_ms": longest_zero * window_ms,
            "deadlocked": deadlocked, "ring_last_delivery_s": stopped_at,
            "delivered": delivered, "sent": sent,
            "senders_blocked": [("f%d" % (i + 1)) if i < len(FLOWS) else "burst" for i in blocked],
            "delivered_after_stop_bytes": after,
            "held_at_end": sum(held_end.values()), "held_2s_later": sum(held_later.values()),
            "lost": [None if s is None else s - d for s, d in zip(sent, delivered)], "drops": where,
            "held_by": {k: v for k, v in held_later.items() if v},
            "frames_sent_in_2s_after": refresh,
            "watchdog": wd, "alarm_ports": sorted(k for k, v in wd.items() if v["alarm_now"]),
            "queues_at_end": queues,
            "sample_period_ms": round(period / 1e6), "samples": len(sampler.samples),
            "sampler_error": sampler.error, "sampler_reads_failed": sampler.failed,
            "sampler_read_ms": sampler.read_ms,
            "longest_pause_ms": {k: round(v / 1e6) for k, v in top},
            "stuck_queues": sorted(k for k, v in longest.items() if v >= t_stuck_ms(rate) * 1e6),
            "stuck_waiting": sorted(k for k, v in longest_waiting.items()
                                    if v >= t_stuck_ms(rate) * 1e6),
            "longest_waiting_ms": max((round(v / 1e6) for v in longest_waiting.values()), default=0),
            "t_stuck_ms": round(t_stuck_ms(rate)), "portfc_frames": frames, "window_bytes": window_bytes}


def summary(rows):
    """One line per run: the numbers the doc quotes. stalled: windows
    without delivery per ring flow (the senders' time, after the first);
    zero ms: the longest time none of the four delivered; held 2s: bytes in
    the pools 2 s after the senders stopped; drops: lossless drops;
    alarms: ports with the XOFF alarm raised at the end (PFC); stuck: queues
    the sampler saw paused longer than T_stuck; longest: the longest
    such pause it saw (ms); w/pkts: queues paused longer than T_stuck
    with packets queued throughout; last s: the ring's last delivery, seconds after
    the senders started (they send for duration_s)."""
    print(f"{'scheme':7} {'seed':>4} {'delivered (4 ring flows)':>28} {'stalled':>12} {'zero ms':>7} "
          f"{'held 2s':>8} {'drops':>6} {'alarms':>6} {'stuck':>5} {'longest':>7} {'w/pkts':>6} {'last s':>6} dead")
    for r in rows:
        ll = sum(v.get("lossless", 0) for v in r["drops"].values())
        lp = max(r["longest_pause_ms"].values(), default=0)
        print(f"{r['scheme']:7} {r['seed']:>4} {'/'.join(map(str, r['delivered'])):>28} "
              f"{'/'.join(map(str, r['stalled_windows'])):>12} {r['ring_longest_zero_ms']:>7} "
              f"{r['held_2s_later']:>8} {ll:>6} {len(r['alarm_ports']):>6} {len(r['stuck_queues']):>5} "
              f"{lp:>7} {len(r['stuck_waiting']):>6} {r['ring_last_delivery_s']:>6.1f} "
              f"{'yes' if r['deadlocked'] else 'no'}", flush=True)


def plot(rows, png, seed=None):
    """docs/img/portfc-deadlock.png: the ring flows' delivery per window,
    PFC against PortFC, for one seed (the first that has both; the first
    seed where PFC deadlocked if any), drawn by plot-deadlock.gp."""
    by = {(r["scheme"], r["seed"]): r for r in rows}
    seeds = [s for s in sorted({r["seed"] for r in rows}) if ("pfc", s) in by and ("portfc", s) in by]
    if seed is None:
        dead = [s for s in seeds if by[("pfc", s)]["deadlocked"]]
        seed = (dead or seeds or [None])[0]
    if seed is None:
        raise SystemExit("plot: no seed with both schemes")
    data = os.path.splitext(png)[0] + f"-seed{seed}.dat"
    titles = {}
    with open(data, "w") as f:
        for scheme in ("pfc", "portfc"):
            r = by[(scheme, seed)]
            w = r["window_ms"]
            f.write(f"# {scheme} seed {seed}: t_s f1 f2 f3 f4 (Mbit/s per {w} ms window)\n")
            for k, col in enumerate(zip(*r["window_bytes"])):
                f.write(f"{k * w / 1000:.3f} " + " ".join(f"{b * 8 / w / 1000:.3f}" for b in col) + "\n")
            f.write("\n\n")
            ll = sum(v.get("lossless", 0) for v in r["drops"].values())
            titles[scheme] = (f"{'PFC' if scheme == 'pfc' else 'PortFC'}, seed {seed}: "
                              f"{r['held_2s_later']} bytes held 2 s after the senders stopped, "
                              f"{ll} lossless drops"
                              + (f", XOFF alarm on {len(r['alarm_ports'])} ports" if scheme == "pfc" else "")
                              + (", DEADLOCK" if r["deadlocked"] else ""))
    stop = by[("pfc", seed)]["duration_s"]
    gp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plot-deadlock.gp")
    args = (f"data='{data}'; png='{png}'; stop={stop}; "
            f"title_pfc='{titles['pfc']}'; title_portfc='{titles['portfc']}'")
    subprocess.run(["gnuplot", "-e", args, gp], check=True)
    print(f"plot: {png} (seed {seed}, data {data})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemes", nargs="+", default=["pfc", "portfc"])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--duration", type=float, default=6)
    ap.add_argument("--rate", default="50mbit")
    ap.add_argument("--window-ms", type=int, default=500)
    ap.add_argument("--out")
    ap.add_argument("--plot", metavar="PNG", help="draw the ring flows per window (plot-deadlock.gp)")
    ap.add_argument("--plot-from", metavar="JSON", help="only draw --plot from a run's deadlock.json")
    ap.add_argument("--plot-seed", type=int)
    a = ap.parse_args()
    if a.plot_from:
        with open(a.plot_from) as f:
            plot(json.load(f), a.plot or "docs/img/portfc-deadlock.png", a.plot_seed)
        return
    ensure_modules()
    rows = []
    for seed in range(1, a.seeds + 1):
        for scheme in a.schemes:
            r = run(scheme, seed, a.duration, a.rate, a.window_ms)
            print(json.dumps(r), flush=True)
            rows.append(r)
    summary(rows)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "deadlock.json"), "w") as f:
            json.dump(rows, f, indent=1)
    if a.plot:
        plot(rows, a.plot, a.plot_seed)


if __name__ == "__main__":
    main()
