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
          f"FIFO switch ports:     tc qdisc add dev PORT root tbf rate {MBIT}mbit "
          f"burst CATCHUP limit 2mb\n"
          f"(CATCHUP: the lossless port's shaper catch-up, so both forgive the same timer lateness;\n"
          f"both runs take a while under QEMU: the senders' queues drain at the bottleneck rate)\n")
    rows = []
    catchup = None
    for name in ("lossless", "fifo"):
        qdisc = (f"lossless rate {MBIT}mbit {POOL}" if name == "lossless"
                 else f"tbf rate {MBIT}mbit burst {catchup} limit 2mb")
        with Topology("demo") as t:
            info = {}
            sw, _, sw_ports, bottleneck, sends, res, util = run_incast(t, qdisc, info=info)
            pauses = 0
            if name == "lossless":
                pauses = sum(qstats(sw, p).get("pfc_frames_tx", 0) for p in sw_ports)
                catchup = qstats(sw, bottleneck)["catchup"]
            rows.append((name, sends, res, pauses, util, min(info["backlog_samples"])))
    print("\nbottleneck: utilisation from the wire bytes the receiver counted per 100 ms in the steady\n"
          "window, while the bottleneck held a backlog (its smallest sampled backlog at the right)\n")
    for name, sends, res, pauses, util, backlog in rows:
        summary(name, sends, res, pauses, util)
        print(f"            smallest backlog sampled at the bottleneck: {backlog} B")


if __name__ == "__main__":
    main()
