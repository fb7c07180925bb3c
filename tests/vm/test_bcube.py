#!/usr/bin/python3
"""BCube(4,1) of namespaces with PortFC's queues and classifier (VM test).

16 servers (namespaces with two ports and IP forwarding) and 8 switches
(bridges), cabled, addressed and routed by the core's plan
(`lossless-portfc plan`, tests/lib/bcube.py). Every port carries
`lossless` with PortFC's queues (5 on a switch port, 8 on a server port,
HQ strict, the plan's gates) and PortFC's egress classifier. Checks:

  1. every server reaches every other: one ICMP echo per pair (240), each
     reply back with the TTL of its path (64 for a neighbour, 63 through one
     relay server): digit-correcting paths through relays;
  2. every packet in the queue the plan gives it, counted twice, by the
     classifier (BPF) and by the qdisc's classes, which must agree per
     namespace; and the totals the plan predicts: each of the 480 probes
     and replies ends in a switch's B queue, the 288 of four-hop pairs
     pass a switch A-slot first and a relay server's RQ; sources put 288 in
     a-slots, 192 in b-slots; no packet unknown, misrouted or for itself;
  3. torn down: no namespace and no pinned map of it left.
"""

import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from bcube import BCube  # noqa: E402
from check import Checks  # noqa: E402
from topology import Paths, Topology, class_packets, ensure_modules, sh  # noqa: E402


def main():
    chk = Checks("bcube")
    ensure_modules()
    with Topology("bc") as t:
        bc = BCube(t, 4, 1, qdisc="rate 100mbit", classify=True)
        q = bc.plan["queues"]
        chk.eq((q["switch"], q["server"]), (5, 8), "queues per switch and server port (n+1, 2n)")

        # 1. Reachability, through the relays.
        wrong = []
        for i in range(16):
            others = [bc.addr(d) for d in range(16) if d != i]
            got = bc.server(i).json(f"{Paths.python} {Paths.bcube_probe} " + " ".join(others))
            for d in range(16):
                if d != i:
                    r, _ = bc.route_of(i, d)
                    if got[bc.addr(d)] != 65 - r["hops"]:
                        wrong.append((i, d, got[bc.addr(d)]))
        chk.ok(not wrong, "all 240 pairs answer with their path's TTL", f"wrong: {wrong[:5]}")

        # 2. Queues: the classifier's counts and the qdisc's agree, and the plan's totals.
        per_queue = {"server": [0] * 8, "switch": [0] * 5}
        disagree = []
        errors = {"unknown": 0, "misrouted": 0, "self": 0, "bad_port": 0}
        for role, hosts in (("server", bc.servers), ("switch", bc.switches)):
            for h in hosts.values():
                st = bc.classifier_stats(h)
                for key in errors:
                    errors[key] += st[key]
                qdisc = [0] * len(per_queue[role])
                for dev in h.ifaces:
                    for handle, pkts in class_packets(h, dev).items():
                        qdisc[int(handle.split(":")[1], 16) - 1] += pkts
                if qdisc != st["queue"][:len(qdisc)] or sum(st["queue"]) != sum(qdisc):
                    disagree.append((h.name, qdisc, st["queue"][:len(qdisc)]))
                per_queue[role] = [a + b for a, b in zip(per_queue[role], qdisc)]
        chk.ok(not disagree, "the qdiscs' classes count what the classifier chose, per namespace",
               f"{disagree[:3]}")
        chk.eq(errors, {"unknown": 0, "misrouted": 0, "self": 0, "bad_port": 0},
               "no packet unknown, misrouted, for itself or on a bad port")
        sw, srv = per_queue["switch"], per_queue["server"]
        print(f"  switch queues HQ, A0..A2, B: {sw}; server queues HQ, a0..a2, b0..b2, RQ: {srv}",
              flush=True)
        chk.eq(sw[4], 480, "switch B queues: every probe and reply ends there")
        chk.eq(sum(sw[1:4]), 288, "switch A-slots: the first switch of each four-hop packet")
        chk.eq(srv[7], 288, "server RQ: each four-hop packet relayed once")
        chk.eq(sum(srv[1:4]), 288, "server a-slots: four-hop packets at their source")
        chk.eq(sum(srv[4:7]), 192, "server b-slots: two-hop packets at their source")
        chk.eq(sw[0] + srv[0], 0, "nothing in HQ (no ARP, no control traffic)")
        prefix = t.prefix
    left = [ns for ns in sh("ip netns list").split() if ns.startswith(prefix)]
    pins = glob.glob(f"/sys/fs/bpf/portfc-{prefix}*")
    chk.ok(not left and not pins, "torn down: no namespace, no pinned map",
           f"namespaces {left[:3]}, pins {pins[:3]}")
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
