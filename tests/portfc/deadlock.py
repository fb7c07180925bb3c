#!/usr/bin/python3
"""PortFC's deadlock scenario S-04 (portfc.md 10.3) on BCube(4,1): PFC
against PortFC (VM; `make portfc-deadlock`, a short form in test_bcube).

The ring S0_0 (16) - 0 - S1_0 (20) - 4 - S0_1 (17) - 5 - S1_1 (21) - 1 - 16
carries four long-lived four-hop flows, each through one relay server:

    f1 1 -> 4 via 0 (digit 0 first)     f2 0 -> 5 via 4 (digit 1 first)
    f3 4 -> 1 via 5 (digit 0 first)     f4 5 -> 0 via 1 (digit 1 first)

so every ring link carries two of them, plus a burst 2 -> 0 that congests
switch 16's port 0. Every sender sends as fast as its port (and its 256 KB
socket buffer) lets it.

  pfc     every switch a pool with PFC on priority 3 (scheme dt), and
          every server a PFC switch of its own two ports (a pool): a
          relay that cannot send pauses the switch that feeds it;
  portfc  every switch a PortFC pool, servers plain lossless ports with
          PortFC's queues; the servers pause nobody.

Progress: each ring flow's delivered bytes per window (the receivers'
buckets); a flow is stalled in a window that delivered nothing while its
sender was still sending. After the senders stop, a deadlocked network
still holds bytes in its pools and delivers nothing. Prints one JSON line
per run and a table.

usage: deadlock.py [--schemes pfc portfc] [--seeds N] [--duration S]
                   [--rate RATE] [--window-ms W] [--out DIR]
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from bcube import BCube  # noqa: E402
from topology import Paths, Topology, ensure_modules  # noqa: E402

FLOWS = [(1, 4, 0), (0, 5, 1), (4, 1, 0), (5, 0, 1)]   # (src, dst, level corrected first)
BURST = (2, 0)
THRESH_KB = 30
# PFC's pools: a static threshold of PortFC's X_off, so that the two
# pause at the same queue lengths (spec 9.1: "PFC (ingress thresholds,
# same values)").
PFC_POOL = f"buffer 4mb lossless-prios 3 sw-delay 30ms scheme st st-threshold {THRESH_KB}kb"


def first_of(src, dst):
    for s, d, f in FLOWS:
        if (s, d) == (src, dst):
            return f
    return 0


def build(t, scheme, rate, pfc_pool):
    common = pfc_pool
    if scheme == "pfc":
        return BCube(t, 4, 1, qdisc=f"rate {rate}", first=first_of, ingress=True,
                     switch_pool=common, server_pool=common)
    pool = (f"buffer 4mb lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4 "
            f"portfc-xoff-a {THRESH_KB}kb portfc-xon-a {THRESH_KB * 2 // 3}kb "
            f"portfc-xoff-b {THRESH_KB}kb portfc-xon-b {THRESH_KB * 2 // 3}kb")
    return BCube(t, 4, 1, qdisc=f"rate {rate}", first=first_of, classify=True, switch_pool=pool)


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


def run(scheme, seed, duration, rate, window_ms):
    with Topology(f"dl{scheme[:2]}{seed}") as t:
        bc = build(t, scheme, rate, PFC_POOL)
        recvs = {}
        port = 7100
        for i, (s, d, _) in enumerate(FLOWS):
            recvs[i] = bc.server(d).popen(f"{Paths.traffic} recv --port {port + i} "
                                          f"--duration {duration + 8} --idle-exit 3 "
                                          f"--bucket-ms {window_ms}")
        recvs["burst"] = bc.server(BURST[1]).popen(f"{Paths.traffic} recv --port {port + 9} "
                                                   f"--duration {duration + 8} --idle-exit 3")
        for i, (s, d, _) in enumerate(FLOWS):
            bc.server(d).wait_udp(port + i)
        bc.server(BURST[1]).wait_udp(port + 9)
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
        sent = [json.loads(p.communicate()[0]) for p in snd]
        json.loads(burst.communicate()[0])
        held_end = pools(bc)
        time.sleep(2)
        held_later = pools(bc)
        got = {k: json.loads(p.communicate()[0]) for k, p in recvs.items()}
        where = drops(bc)
    windows = []
    for i in range(len(FLOWS)):
        b = got[i]["bucket_wire_bytes"]
        # Windows while the flow's sender sent (from the common start).
        skip = max(0, int((start - got[i]["bucket_start_ns"]) / (window_ms * 1e6)) + 1)
        n = int(duration * 1000 / window_ms) - 1
        windows.append(b[skip:skip + n] + [0] * max(0, n - len(b[skip:skip + n])))
    stalled = [sum(1 for x in w if x == 0) for w in windows]
    delivered = [sum(f["received"] for f in got[i]["flows"].values()) for i in range(len(FLOWS))]
    return {"scheme": scheme, "seed": seed, "window_ms": window_ms,
            "windows": len(windows[0]), "stalled_windows": stalled,
            "delivered": delivered, "sent": [s["sent"] for s in sent],
            "held_at_end": sum(held_end.values()), "held_2s_later": sum(held_later.values()),
            "lost": [s["sent"] - d for s, d in zip(sent, delivered)], "drops": where,
            "held_by": {k: v for k, v in held_later.items() if v}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemes", nargs="+", default=["pfc", "portfc"])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--duration", type=float, default=6)
    ap.add_argument("--rate", default="50mbit")
    ap.add_argument("--window-ms", type=int, default=500)
    ap.add_argument("--out")
    a = ap.parse_args()
    ensure_modules()
    rows = []
    for seed in range(1, a.seeds + 1):
        for scheme in a.schemes:
            r = run(scheme, seed, a.duration, a.rate, a.window_ms)
            print(json.dumps(r), flush=True)
            rows.append(r)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "deadlock.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
