#!/usr/bin/python3
"""The headroom's premise, measured (VM test).

A 2-port lossless switch: h0 sends priority 3 at SEND_MBIT through a
RATE_MBIT port to r, whose port runs at SLOW_MBIT, so the pool fills and
pauses h0 (its `lossless` qdisc honours PFC). Each XOFF's response (the
MMU's decision to the PFC frame built) is timed by the kernel, and a
priority whose headroom passes 90 % of its size, or drops a packet,
raises a warning: a counter and a rate-limited log line that names the
port.

  1. sized: headroom from sw-delay SW_DELAY (hundreds of KB at 100 Mbit/s):
     XOFFs timed, their response printed; no warning, no lossless drop,
     every datagram delivered;
  2. shrunk: the same port with `headroom 4kb` (4 packets: what one
     packet-time of response allows): the warning's counter and its log
     line, which names the port, the pool and the priority.

tests/vm/run-all.sh fails every other VM test whose run logs the warning.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from topology import Paths, Topology, announce, host_pair_via  # noqa: E402

RATE_MBIT, SLOW_MBIT, SEND_MBIT = 100, 20, 50
SW_DELAY = "30ms"
POOL = f"pool hp buffer 1mb lossless-prios 3 sw-delay {SW_DELAY}"
PORT = 5000
SECONDS = 3
WARNING = "raise sw-delay"


def xstats(host, dev):
    return json.loads(host.run(f"tc -s -j qdisc show dev {dev}"))[0]


def kmsg_since(marker):
    out = subprocess.run(["dmesg"], text=True, capture_output=True).stdout.splitlines()
    idx = max((i for i, line in enumerate(out) if marker in line), default=-1)
    return out[idx + 1:]


def phase(h0, r, r_ip, flow):
    """h0 sends priority 3 for SECONDS; returns (sent, received)."""
    rx = r.popen(f"{Paths.traffic} recv --port {PORT} --idle-exit 2 --duration 60")
    r.wait_udp(PORT)
    tx = h0.popen(f"{Paths.traffic} send --dst {r_ip} --port {PORT} --flow {flow} --prio 3 --dscp 24 "
                  f"--size 1000 --rate-mbit {SEND_MBIT} --duration {SECONDS} --sndbuf 4194304")
    sent = json.loads(tx.communicate(timeout=60)[0])["sent"]
    got = json.loads(rx.communicate(timeout=60)[0])["flows"].get(str(flow), {"received": 0})["received"]
    return sent, got


def main():
    c = Checks("headroom_premise")
    with Topology("hp") as t:
        sw, h0, r = t.switch("sw"), t.host("h0"), t.host("r")
        _, r_ip, l0, lr = host_pair_via(t, sw, h0, r)
        h0.run(f"tc qdisc add dev {l0['a_if']} root lossless rate {RATE_MBIT}mbit limit 20000")
        h0.run(f"{Paths.ingress} attach {l0['a_if']} --pin-dir /sys/fs/bpf/ll-{h0.ns}")
        up = l0["b_if"]     # the switch port whose upstream (h0) is paused
        for dev, mbit in ((up, RATE_MBIT), (lr["b_if"], SLOW_MBIT)):
            sw.run(f"tc qdisc add dev {dev} root handle 1: lossless rate {mbit}mbit {POOL}")
            sw.run(f"{Paths.ingress} attach {dev} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
        announce([h0, r])

        marker = f"test_headroom_premise: sized {time.monotonic_ns()}"
        with open("/dev/kmsg", "w") as f:
            f.write(marker + "\n")
        sent, got = phase(h0, r, r_ip, 1)
        st = xstats(sw, up)
        iq = st["ingress"][3]
        print(f"  sized: sent {sent} received {got}; XOFF responses {st['xoff_responses']} "
              f"last {st['xoff_response_last_ns'] / 1e3:.0f} us max {st['xoff_response_max_ns'] / 1e3:.0f} us; "
              f"headroom peak {iq['peak_headroom']} of {iq['headroom_size']} B; "
              f"pfc_tx {st['pfc_frames_tx']}", flush=True)
        c.ok(st["pfc_frames_tx"] > 0, "sized: the switch paused h0", f"{st['pfc_frames_tx']} frames")
        c.ok(st["xoff_responses"] > 0, "sized: the kernel timed the XOFF responses",
             f"{st['xoff_responses']}, max {st['xoff_response_max_ns'] / 1e3:.0f} us",
             measured=st["xoff_response_max_ns"] / 1e3)
        c.le(st["xoff_response_last_ns"], st["xoff_response_max_ns"], "sized: last <= max response", " ns")
        c.eq(st["headroom_warnings"], 0, "sized: no headroom warning")
        c.eq(st["pool_drops_lossless"], 0, "sized: no lossless drop")
        c.eq(got, sent, "sized: every datagram delivered")
        lines = [x for x in kmsg_since(marker) if WARNING in x]
        c.eq(len(lines), 0, "sized: no warning in the kernel log")

        # Shrunk: 4 KB of headroom, 3 frames of 1042 B (76 %); at 100 Mbit/s
        # one arrives every 83 us, so a response slower than about 250 us
        # overflows it (under TCG a response takes milliseconds).
        marker = f"test_headroom_premise: shrunk {time.monotonic_ns()}"
        with open("/dev/kmsg", "w") as f:
            f.write(marker + "\n")
        sw.run(f"tc qdisc change dev {up} root handle 1: lossless rate {RATE_MBIT}mbit {POOL} headroom 4kb")
        time.sleep(0.5)
        before = xstats(sw, up)
        sent, got = phase(h0, r, r_ip, 2)
        st = xstats(sw, up)
        iq = st["ingress"][3]
        warned = st["headroom_warnings"] - before["headroom_warnings"]
        print(f"  shrunk: sent {sent} received {got}; XOFF responses "
              f"{st['xoff_responses'] - before['xoff_responses']} max {st['xoff_response_max_ns'] / 1e3:.0f} us; "
              f"headroom peak {iq['peak_headroom']} of {iq['headroom_size']} B; warnings {warned}; "
              f"lossless drops {st['pool_drops_lossless'] - before['pool_drops_lossless']}", flush=True)
        c.eq(iq["headroom_size"], 4096, "shrunk: the port's headroom is 4 KB")
        c.ok(warned > 0, "shrunk: the headroom warning counted", f"{warned}")
        lines = [x for x in kmsg_since(marker) if WARNING in x]
        print("\n".join(f"    kernel: {x}" for x in lines[:3]), flush=True)
        c.ok(any(up in x and "pool hp" in x and "priority 3" in x for x in lines),
             "shrunk: the kernel log names the port, the pool and the priority",
             f"{len(lines)} lines")
    c.finish()


if __name__ == "__main__":
    main()
