#!/usr/bin/python3
"""Benchmark: packets/s through a Linux bridge whose egress port carries
`lossless` (no pauses, ingress BPF on both ports) against pfifo_fast, in
the same VM run, alternating to spread the noise. Prints the ratio; the
target is >= 0.9. Not a pass/fail test: it prints numbers."""

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from topology import Paths, Topology, host_pair_via  # noqa: E402

SECONDS = float(os.environ.get("LL_BENCH_SECONDS", "4"))
ROUNDS = int(os.environ.get("LL_BENCH_ROUNDS", "5"))
SIZE = 64


def run_once(h1, h2, ip2, port):
    recv = h2.popen(f"{Paths.traffic} recv --port {port} --idle-exit 1 --duration {SECONDS + 10}")
    time.sleep(0.3)
    s = json.loads(h1.run(f"{Paths.traffic} send --dst {ip2} --port {port} --size {SIZE} "
                          f"--duration {SECONDS}"))
    r = json.loads(recv.communicate(timeout=60)[0])
    got = r["flows"].get("0", {}).get("received", 0)
    secs = (s["end_ns"] - s["start_ns"]) / 1e9
    return got / secs, s["sent"] - got


def main():
    with Topology("bench") as t:
        h1, h2, sw = t.host("h1"), t.host("h2"), t.switch("sw")
        _, ip2, l1, l2 = host_pair_via(t, sw, h1, h2)
        ports = (l1["b_if"], l2["b_if"])
        for p in ports:
            sw.run(f"{Paths.ingress} attach {p}")
        egress = l2["b_if"]
        results = {"pfifo_fast": [], "lossless": []}
        port = 7000
        for i in range(ROUNDS):
            for kind in ("pfifo_fast", "lossless"):
                sw.run(f"tc qdisc del dev {egress} root", check=False)
                if kind == "lossless":
                    sw.run(f"tc qdisc add dev {egress} root lossless rate 10gbit")
                else:
                    sw.run(f"tc qdisc add dev {egress} root pfifo_fast")
                pps, lost = run_once(h1, h2, ip2, port)
                port += 1
                results[kind].append(pps)
                print(f"  round {i + 1} {kind:10s} {pps:10.0f} pkt/s  ({lost} not received)", flush=True)
        # TCG speed drifts between rounds; each round's two runs are back to
        # back, so the per-round ratio is the fair comparison.
        ratios = [ll / base for base, ll in zip(results["pfifo_fast"], results["lossless"])]
        print(f"bridge pps ({ROUNDS} rounds, {SIZE}-byte UDP payload): "
              f"pfifo_fast median {statistics.median(results['pfifo_fast']):.0f}, "
              f"lossless median {statistics.median(results['lossless']):.0f}; "
              f"per-round ratios {', '.join(f'{r:.3f}' for r in ratios)}; "
              f"median ratio {statistics.median(ratios):.3f} (target >= 0.9)")


if __name__ == "__main__":
    main()
