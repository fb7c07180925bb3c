#!/usr/bin/python3
"""Incast through a lossless software switch: zero loss (VM test).

Run by `make line-rate`, not by make check: test_line_rate.py's one run of
its 8:1 incast at 20 Mbit/s makes every check of this one (per sender,
pool membership, PFC honoured, counters back to 0) on make check's budget.

8 hosts send UDP at line rate on lossless priority 3 (DSCP 24) to one host
through a Linux bridge whose 9 ports all carry `lossless ... pool sw0`. All
links run at LL_INCAST_MBIT (5 Mbit/s by default: what QEMU TCG sustains
for 9 namespaces on 2 cores; 8 x 5 Mbit/s offered into one 5 Mbit/s
port). The switch buffer (2 MB) is far smaller than the excess offered
(7 x 5 Mbit/s x 10 s = 43.75 MB), so only PFC can keep it lossless:

  - every packet sent is received (per-sender sequence numbers);
  - the switch sent PFC and the hosts' qdiscs honoured it;
  - the bottleneck port is >= 97% utilised while the senders run (wire
    bytes the receiver counted per 100 ms in the steady window), and at
    least 0.98 x the control's;
  - peak headroom use on every port <= its computed headroom;
  - no MMU drop, and every pool counter is back to 0 afterwards.

The control: the same incast with a tail-drop FIFO at the
same line rate on the switch (tbf) loses packets.
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from incast import (ATTEMPTS, MBIT, POOL, SECONDS, SENDERS, overloaded, qstats,  # noqa: E402
                    run_incast, summary, within_catchup)
from topology import Topology  # noqa: E402

def main():
    c = Checks("incast")
    print(f"  {SENDERS} senders -> 1 receiver at {MBIT} Mbit/s for {SECONDS:.0f} s, switch: {POOL}")
    for attempt in range(1, ATTEMPTS + 1):
        with Topology("inc") as t:
            info = {}
            sw, senders, sw_ports, bottleneck, sends, res, util = run_incast(
                t, f"lossless rate {MBIT}mbit {POOL}", info=info)
            valid = overloaded(info, f"lossless attempt {attempt}") and within_catchup(
                qstats(sw, bottleneck), f"lossless attempt {attempt}")
            if not valid and attempt < ATTEMPTS:
                continue
            c.ok(min(info["backlog_samples"]) > 0, "the bottleneck held a backlog while measured",
                 f"samples {info['backlog_samples']} B")
            st = {p: qstats(sw, p) for p in sw_ports}
            pfc_tx = sum(s.get("pfc_frames_tx", 0) for s in st.values())
            sent, got = summary("lossless", sends, res, pfc_tx, util)

            for i, s in enumerate(sends):
                f = res["flows"].get(str(i), {"received": 0, "missing": s["sent"]})
                c.eq(f["received"], s["sent"], f"sender {i}: received == sent")
                c.eq(f["missing"], 0, f"sender {i}: no sequence gaps")
            c.eq(res["socket_drops"], 0, "receiver socket dropped nothing")
            c.eq(sum(s["drops"] for s in st.values()), 0, "switch qdiscs dropped nothing")
            any_port = st[bottleneck]
            c.eq(any_port.get("pool_drops_lossless"), 0, "MMU: no lossless drop")
            c.eq(any_port.get("pool_ports"), SENDERS + 1, "every switch port is in the pool")
            c.ok(pfc_tx > 0, "the switch sent PFC upstream", f"{pfc_tx} frames")
            honoured = sum(qstats(h, lk["a_if"])["pfc_frames_rx"] for h, lk in senders)
            c.ok(honoured > 0, "the hosts' qdiscs received and applied PFC", f"{honoured} frames")
            c.ge(round(util, 3), 0.97, "bottleneck utilisation while senders run")
            util_pfc = util
            # Reaction: what arrives after the MMU decides XOFF lands in headroom,
            # so a port's peak headroom use is the bytes received after Xoff, and
            # at line-rate arrival bytes * 8 / rate bounds the time to stop.
            reactions = []
            for p, s in st.items():
                iq = s["ingress"][3]
                c.le(iq["peak_headroom"], iq["headroom_size"],
                     f"port {p}: peak headroom <= computed headroom", " B")
                if iq["xoff_frames"]:
                    reactions.append((iq["peak_headroom"], iq["peak_headroom"] * 8e6 / (MBIT * 1e6)))
            if reactions:
                worst = max(reactions)
                print(f"  reaction, Xoff to upstream stopped: at most {worst[0]} B received after Xoff "
                      f"= {worst[1]:.0f} us at {MBIT} Mbit/s (median over paused ports "
                      f"{sorted(r[1] for r in reactions)[len(reactions) // 2]:.0f} us); "
                      f"headroom per port {st[bottleneck]['ingress'][3]['headroom_size']} B")
            time.sleep(1)
            for p in sw_ports:
                s = qstats(sw, p)
                c.eq((s["pool_shared_used"], s["pool_headroom_used"], s["ingress"][3]["bytes"]),
                     (0, 0, 0), f"port {p}: pool counters back to 0")
            peak = max(s["pool_peak_headroom"] for s in st.values())
            catchup = any_port["catchup"]
            print(f"  pool peak shared {any_port['pool_peak_shared']} B, peak headroom {peak} B "
                  f"of {any_port['pool_headroom_size']} B")

            break

    # The control: the same incast with a tail-drop FIFO at the same line
    # rate (tbf: a pfifo behind a shaper) and the same buffer per port; its
    # bucket as deep as the lossless port's catch-up, so that both forgive
    # the same timer lateness.
    with Topology("inc") as t:
        _, _, _, _, sends, res, util = run_incast(
            t, f"tbf rate {MBIT}mbit burst {catchup} limit 2mb")
        sent, got = summary("fifo", sends, res, 0, util)
        c.ok(got < sent, "control: a FIFO switch at the same rate loses packets", f"{sent - got} lost")
        c.ge(round(util_pfc / util, 3) if util else 0.0, 0.98,
             "bottleneck utilisation under PFC vs the no-PFC control")
    c.finish()


if __name__ == "__main__":
    main()
