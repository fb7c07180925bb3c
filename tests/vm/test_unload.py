#!/usr/bin/python3
"""Tear-down with traffic in flight (VM test).

A lossless switch with a pool is torn down while an incast runs: packets
are queued, the MMU holds charges across ports, PFC frames are due. The
namespaces are deleted (destroying every qdisc), then the module must
unload and load again, and the kernel must not have warned.
"""

import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from topology import Paths, Topology, announce  # noqa: E402

MODULE = Paths.module
POOL = "pool sw0 buffer 512kb lossless-prios 3 alpha 1/8 sw-delay 60ms"


def dmesg_problems():
    out = subprocess.run(["dmesg"], text=True, capture_output=True).stdout
    return [line for line in out.splitlines()
            if any(k in line for k in ("WARNING:", "BUG:", "Oops", "refcount_t", "leak"))]


def main():
    c = Checks("unload")
    before = dmesg_problems()
    t = Topology("unl")
    t.__enter__()
    sw, r = t.switch("sw"), t.host("r")
    lr = t.link(r, sw)
    ports, senders = [lr["b_if"]], []
    for i in range(4):
        h = t.host(f"h{i}")
        lk = t.link(h, sw)
        h.run(f"ip addr flush dev {lk['a_if']}")
        h.run(f"ip addr add 10.0.0.{10 + i}/24 dev {lk['a_if']}")
        h.run(f"ip neigh replace {lr['a_ip']} lladdr {lr['a_mac']} dev {lk['a_if']} nud permanent")
        h.run(f"tc qdisc add dev {lk['a_if']} root lossless rate 5mbit limit 20000")
        h.run(f"{Paths.ingress} attach {lk['a_if']} --pin-dir /sys/fs/bpf/ll-{h.ns}")
        ports.append(lk["b_if"])
        senders.append(h)
    for p in ports:
        sw.run(f"tc qdisc add dev {p} root handle 1: lossless rate 5mbit {POOL}")
        sw.run(f"{Paths.ingress} attach {p} --pin-dir /sys/fs/bpf/ll-{sw.ns}")
    announce([r] + senders)
    for i, h in enumerate(senders):
        h.popen(f"{Paths.traffic} send --dst {lr['a_ip']} --port 5000 --flow {i} --prio 3 --dscp 24 "
                f"--size 1000 --duration 30 --sndbuf {4 << 20}")
    time.sleep(3)
    q = sw.json(f"tc -s -j qdisc show dev {lr['b_if']}")[0]
    c.ok(q["pool_shared_used"] + q["pool_headroom_used"] > 0 or q["backlog"] > 0,
         "the switch holds packets when it is torn down",
         f"shared {q['pool_shared_used']} B, headroom {q['pool_headroom_used']} B, backlog {q['backlog']} B")
    c.ok(sum(sw.json(f"tc -s -j qdisc show dev {p}")[0]["pfc_frames_tx"] for p in ports[1:]) > 0,
         "PFC is active when it is torn down")
    # Tear down in flight: kill nothing first; deleting the namespaces
    # destroys the qdiscs with their queues and charges.
    t.__exit__(None, None, None)
    time.sleep(1)
    r = subprocess.run(["rmmod", "sch_lossless"], text=True, capture_output=True)
    c.eq(r.returncode, 0, f"rmmod after the tear-down {r.stderr.strip()}")
    r = subprocess.run(["insmod", MODULE], text=True, capture_output=True)
    c.eq(r.returncode, 0, f"insmod again {r.stderr.strip()}")
    new = [x for x in dmesg_problems() if x not in before]
    c.eq(new, [], "no kernel warnings")
    c.finish()


if __name__ == "__main__":
    main()
