#!/usr/bin/python3
"""Throughput and FCT on BCube(4,1): PortFC against PFC, one VM run
(`make portfc-fct`; docs/PORTFC.md, "Throughput and FCT against PFC").

The workload is a seeded permutation: each of the 16 servers sends to one
other server that differs from it in both digits, so every flow takes a
four-hop path through a relay (its path order, digit 0 or digit 1 first,
is drawn from the seed too). Each sender runs one `ll-flows send`
(tests/compare's flow tool) with

  - many short and medium flows: WebSearch sizes (divided by SIZE_SCALE),
    Poisson arrivals at LOAD of its line rate;
  - long flows: LONG_BYTES each, at the times LONG_AT (seconds after t0).

A relay's port carries its own flows and the ones it relays, so the
servers' ports are the bottlenecks, as in the paper's BCube experiments.
Both schemes are built as in deadlock.py (PFC: every switch and server a
PFC pool on priority 3, the watchdog detecting only; PortFC: the
switches' PortFC pools and the classifier everywhere) and run the same
flows (same seed). Per scheme it reports the flows' completion times
(p50/p99, short flows <= SMALL_MAX bytes, all background flows, long
flows), the aggregate throughput (bytes the receivers got over the time
from t0 to the last byte), pause frames sent, the pools' peak bytes,
lossless drops and lost bytes. Nothing is retransmitted: a flow whose
bytes were dropped, or that a deadlock holds, stays incomplete, and the
senders give up --max-drain after their last flow started.

Scaling to the VM (QEMU TCG, two CPUs, 24 namespaces): the whole BCube
forwards some 40 Mbit/s of packets at most (each crosses four ports, two
bridges and a relay), so the ports run at 4 Mbit/s and each sender offers
about a third of it: WebSearch at load 0.2 with the sizes divided by 40
(mean 43 KB, 86 ms at 4 Mbit/s) and two long flows of 300 KB in 10 s.
A relay's port then carries up to three such shares. A first try at
20 Mbit/s and twice the load (136 Mbit/s offered in all) overloaded the
VM: both schemes left most flows unfinished. X_off 30 KB, the PFC
headroom sized for 30 ms of software delay, as in deadlock.py. The paper
ran 100 Gbit/s ns-3 links with 1 us delay: times here are some 10^4 times
longer, and only ratios between the schemes compare with it.

usage: fct.py [--schemes pfc portfc] [--seeds N] [--duration S] [--rate MBIT]
              [--load L] [--sw-delay TIME] [--out DIR]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "compare"))
from deadlock import PFC_POOL, build, qdiscs  # noqa: E402
from run_compare import WORKLOADS, pct  # noqa: E402
from topology import Paths, Topology, ensure_modules  # noqa: E402

N = 16
PORT = 7300
SIZE_SCALE = 40
SMALL_MAX = 10_000          # "short": <= 10 KB as sent
LONG_BYTES = 300_000        # a long flow: 0.6 s of a 4 Mbit/s port alone
LONG_AT = (0.0, 5.0)
PAYLOAD = 1000


def permutation(seed):
    """dst[i] for every server i: a permutation in which every pair differs
    in both digits (a four-hop path), and each pair's path order."""
    rng = random.Random(seed)
    while True:
        dst = list(range(N))
        rng.shuffle(dst)
        if all(i % 4 != d % 4 and i // 4 != d // 4 for i, d in enumerate(dst)):
            break
    order = {(i, d): rng.randrange(2) for i, d in enumerate(dst)}
    return dst, order


def relays(dst, order):
    """The relay of each flow: the server that corrects the first digit."""
    out = {}
    for i, d in enumerate(dst):
        if order[(i, d)] == 0:      # digit 0 first
            out[i] = (i // 4) * 4 + d % 4
        else:
            out[i] = (d // 4) * 4 + i % 4
    return out


def host_totals(bc):
    """Frames sent (PFC or PortFC), pools' peak bytes, lossless drops
    (the pools'), and every qdisc's drops (a PortFC server has no pool:
    its queues' packet limit is all that bounds them)."""
    frames, peak, ll, qd = 0, 0, 0, 0
    where = {}      # host -> its pool's lossless drops, where there are any
    restores = {}   # host:dev -> watchdog restores, where there are any
    premise = {}    # host:dev -> (headroom warnings, max XOFF response ms)
    resp_max = 0
    for h in list(bc.switches.values()) + list(bc.servers.values()):
        pools = {}
        for dev, q in qdiscs(h).items():
            frames += q.get("pfc_frames_tx", 0)
            qd += q.get("drops", 0)
            if "pool_peak_shared" in q:
                pools[q["options"]["pool"]] = (q["pool_peak_shared"] + q.get("pool_peak_headroom", 0),
                                               q.get("pool_drops_lossless", 0))
            n = sum(p.get("restores", 0) for p in q.get("pfcwd", {}).get("prios", []))
            if n:
                restores[f"{h.name}:{dev}"] = n
            if q.get("headroom_warnings"):
                # The premise that failed: the headroom's warnings and
                # the port's slowest XOFF response (decision to frame).
                premise[f"{h.name}:{dev}"] = (q["headroom_warnings"],
                                              round(q["xoff_response_max_ns"] / 1e6, 1))
            resp_max = max(resp_max, q.get("xoff_response_max_ns", 0))
        peak += sum(p for p, _ in pools.values())
        d = sum(d for _, d in pools.values())
        ll += d
        if d:
            where[h.name] = d
    return frames, peak, ll, qd, where, restores, premise, resp_max


def run(scheme, seed, duration, rate, load, sw_delay=None):
    dst, order = permutation(seed)
    pfc_pool = PFC_POOL if not sw_delay else PFC_POOL.replace("sw-delay 30ms", f"sw-delay {sw_delay}")
    with Topology(f"fc{scheme[:2]}{seed}") as t:
        bc = build(t, scheme, f"{rate}mbit", pfc_pool, first=lambda s, d: order.get((s, d), 0))
        recvs = [bc.server(i).popen(f"{Paths.flows} recv --port {PORT} --duration {duration + 40} "
                                    f"--idle-exit 4 --bucket-ms 0") for i in range(N)]
        for i in range(N):
            bc.server(i).wait_udp(PORT)
        t0 = int(time.monotonic_ns()) + 1_000_000_000
        snds = []
        for i in range(N):
            snds.append(bc.server(i).popen(
                f"{Paths.flows} send --dst {bc.addr(dst[i])} --port {PORT} --rate-mbit {rate} "
                f"--duration {duration} --t0-ns {t0} --sender {i} --seed {seed * 1000 + i} "
                f"--cdf {WORKLOADS}/WebSearch_distribution.txt --load {load} --size-scale {SIZE_SCALE} "
                f"--incast-size {LONG_BYTES} --incast-at {','.join(str(x) for x in LONG_AT)} "
                f"--incast-dst {bc.addr(dst[i])} --prio 3 --dscp 24 --sndbuf 262144 "
                f"--payload {PAYLOAD} --max-drain 15 --retry-us 1000"))
        # A sender blocks in send() on a full socket buffer: under a PFC
        # deadlock for ever. One still running 10 s past its --max-drain is
        # killed, and its flows count as sent but incomplete.
        sends, blocked = [], []
        for i, p in enumerate(snds):
            try:
                out = p.communicate(timeout=max(1, t0 / 1e9 + duration + 25 - time.monotonic()))[0]
                sends.append(json.loads(out))
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
                blocked.append(i)
        got = [json.loads(p.communicate()[0]) for p in recvs]
        if blocked:
            # Their flows, from the same generator without sending.
            for i in blocked:
                sends.append(json.loads(bc.server(i).run(
                    f"{Paths.flows} send --dst {bc.addr(dst[i])} --port {PORT} --rate-mbit {rate} "
                    f"--duration {duration} --t0-ns {t0} --sender {i} --seed {seed * 1000 + i} "
                    f"--cdf {WORKLOADS}/WebSearch_distribution.txt --load {load} --size-scale {SIZE_SCALE} "
                    f"--incast-size {LONG_BYTES} --incast-at {','.join(str(x) for x in LONG_AT)} "
                    f"--incast-dst {bc.addr(dst[i])} --payload {PAYLOAD} --dry-run")) | {"abandoned": True})
        frames, peak, ll, qd, ll_where, wd_restores, premise, resp_max = host_totals(bc)
    flows = {}
    for s in sends:
        for f in s["flows"]:
            flows[(s["sender"], f["flow"])] = {"class": f["class"], "size": f["size"], "fct_ns": None,
                                               "received": 0, "last_ns": 0}
    for r in got:
        for f in r["flows"]:
            k = (f["sender"], f["flow"])
            if k in flows:
                flows[k]["received"] = f["bytes"]
                flows[k]["last_ns"] = f["last_ns"]
                if f["complete"]:
                    flows[k]["fct_ns"] = f["fct_ns"]
    fl = list(flows.values())

    def fcts(sel):
        v = [f["fct_ns"] / 1e6 for f in sel if f["fct_ns"] is not None]
        return {"n": len(sel), "complete": len(v), "p50_ms": pct(v, 50), "p99_ms": pct(v, 99),
                "mean_ms": sum(v) / len(v) if v else None}
    bg = [f for f in fl if f["class"] == "background"]
    longf = [f for f in fl if f["class"] == "incast"]
    received = sum(f["received"] for f in fl)
    offered = sum(f["size"] for f in fl)
    last = max((f["last_ns"] for f in fl if f["last_ns"]), default=t0)
    # Throughput over the sending period: bytes that arrived by its end.
    return {"scheme": scheme, "seed": seed, "rate_mbit": rate, "load": load, "duration_s": duration,
            "pfc_pool": pfc_pool if scheme == "pfc" else None,
            "permutation": dst, "relays": relays(dst, order),
            "flows": len(fl), "flows_complete": sum(1 for f in fl if f["fct_ns"] is not None),
            "short": fcts([f for f in bg if f["size"] <= SMALL_MAX]), "background": fcts(bg),
            "long": fcts(longf),
            "offered_bytes": offered, "received_bytes": received, "lost_bytes": offered - received,
            "throughput_mbit": received * 8 / max(1, last - t0) * 1e3,
            "span_s": (last - t0) / 1e9,
            "frames_tx": frames, "pool_peak_bytes": peak, "lossless_drops": ll, "qdisc_drops": qd,
            "lossless_drops_by_host": ll_where, "watchdog_restores": wd_restores,
            "headroom_warnings_by_port": premise, "xoff_response_max_ms": resp_max / 1e6,
            "abandoned": sum(1 for s in sends if s["abandoned"]), "senders_blocked": blocked}


def fmt(v, spec="{:.0f}"):
    return "-" if v is None else spec.format(v)


def table(rows):
    print(f"{'scheme':7} {'seed':>4} {'flows done':>11} {'short p50/p99 ms':>17} {'bg p50/p99 ms':>15} "
          f"{'long p50/p99 ms':>16} {'Mbit/s':>7} {'span s':>6} {'frames':>7} {'peak KB':>8} "
          f"{'ll drops':>8} {'q drops':>7} {'lost B':>9}")
    for r in rows:
        print(f"{r['scheme']:7} {r['seed']:>4} {r['flows_complete']:>5}/{r['flows']:<5} "
              f"{fmt(r['short']['p50_ms'])}/{fmt(r['short']['p99_ms']):>8} "
              f"{fmt(r['background']['p50_ms'])}/{fmt(r['background']['p99_ms']):>8} "
              f"{fmt(r['long']['p50_ms'])}/{fmt(r['long']['p99_ms']):>8} {r['throughput_mbit']:>7.1f} "
              f"{r['span_s']:>6.1f} {r['frames_tx']:>7} {r['pool_peak_bytes'] // 1024:>8} "
              f"{r['lossless_drops']:>8} {r['qdisc_drops']:>7} {r['lost_bytes']:>9}", flush=True)
        if r["lossless_drops_by_host"] or r["watchdog_restores"] or r["headroom_warnings_by_port"]:
            print(f"        lossless drops by host {r['lossless_drops_by_host']}; "
                  f"watchdog restores by port {r['watchdog_restores']}; headroom warnings "
                  f"(count, max XOFF response ms) by port {r['headroom_warnings_by_port']}; "
                  f"slowest XOFF response {r['xoff_response_max_ms']:.1f} ms", flush=True)
    by = {(r["scheme"], r["seed"]): r for r in rows}
    for seed in sorted({r["seed"] for r in rows}):
        a, b = by.get(("pfc", seed)), by.get(("portfc", seed))
        if not (a and b):
            continue

        def ratio(x, y):
            return f"{x / y:.2f}" if x and y else "-"
        print(f"seed {seed}: PFC / PortFC: short p99 {ratio(a['short']['p99_ms'], b['short']['p99_ms'])}, "
              f"background p50 {ratio(a['background']['p50_ms'], b['background']['p50_ms'])} "
              f"p99 {ratio(a['background']['p99_ms'], b['background']['p99_ms'])}, "
              f"long p50 {ratio(a['long']['p50_ms'], b['long']['p50_ms'])}; "
              f"PortFC / PFC throughput {ratio(b['throughput_mbit'], a['throughput_mbit'])}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schemes", nargs="+", default=["pfc", "portfc"])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--rate", type=int, default=4)
    ap.add_argument("--load", type=float, default=0.2)
    ap.add_argument("--sw-delay", help="PFC's headroom: the software delay it is sized for "
                    "(deadlock.py's 30ms unless given)")
    ap.add_argument("--out")
    a = ap.parse_args()
    ensure_modules()
    rows = []
    for seed in range(1, a.seeds + 1):
        for scheme in a.schemes:
            r = run(scheme, seed, a.duration, a.rate, a.load, a.sw_delay)
            print(json.dumps({k: v for k, v in r.items()}), flush=True)
            rows.append(r)
    table(rows)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "fct.json"), "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
