#!/usr/bin/python3
"""Demo: an 8:1 incast through a Linux bridge that is a lossless switch,
next to the same incast through a tail-drop FIFO switch at the same line
rate and buffer. Prints a comparison table."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
from incast import MBIT, POOL, SECONDS, SENDERS, qstats, run_incast, summary  # noqa: E402
from topology import Topology  # noqa: E402


def main():
    print(f"\n{SENDERS} hosts send UDP at line rate ({MBIT} Mbit/s each) to one host for "
          f"{SECONDS:.0f} s through one bridge.\n"
          f"Lossless switch ports: tc qdisc add dev PORT root lossless rate {MBIT}mbit {POOL}\n"
          f"FIFO switch ports:     tc qdisc add dev PORT root tbf rate {MBIT}mbit burst 3028 limit 2mb\n"
          f"(both runs take a while under QEMU: the senders' queues drain at the bottleneck rate)\n")
    rows = []
    for name, qdisc in (("lossless", f"lossless rate {MBIT}mbit {POOL}"),
                        ("fifo", f"tbf rate {MBIT}mbit burst 3028 limit 2mb")):
        with Topology("demo") as t:
            sw, _, sw_ports, _, sends, res, util = run_incast(t, qdisc)
            pauses = sum(qstats(sw, p).get("pfc_frames_tx", 0) for p in sw_ports) if name == "lossless" else 0
            rows.append((name, sends, res, pauses, util))
    print()
    for name, sends, res, pauses, util in rows:
        summary(name, sends, res, pauses, util)


if __name__ == "__main__":
    main()
