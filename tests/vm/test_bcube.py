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
  3. PortFC's switch (pool scheme portfc on every switch): an incast of
     servers 1, 2 and 3 into server 0 through switch 16 (row 0) fills its
     port 0's B queue; the switch counts the onset and sends PORTFC_B
     frames to its other ports; each sender's qdisc takes them into the gate
     of its b-slot for port 0 (class 1:5), which stops; the switch's pool
     drops nothing while the receiver gets the port's rate;
  4. the relayed pause: four-hop flows 5, 6, 7 -> 0 through relays 1, 2,
     3 into switch 16's port 0; its B onset is relayed by the servers to
     switches 21-23 (PORTFC_R), whose A-slots for that port stop, fill and
     pause the senders' a-slots: three hops, no drop anywhere;
  5. torn down: no namespace and no pinned map of it left.
"""

import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from bcube import BCube  # noqa: E402
from check import Checks  # noqa: E402
from topology import Paths, Topology, class_packets, ensure_modules, sh  # noqa: E402

RATE = "rate 100mbit"
XOFF, XON = 30000, 20000
SWITCH_POOL = ("buffer 4mb lossless-prios 0,1,2,3,4,5,6,7 scheme portfc portfc-n 4 "
               f"portfc-xoff-a {XOFF} portfc-xon-a {XON} portfc-xoff-b {XOFF} portfc-xon-b {XON}")


def find(obj, key):
    """The first value of key anywhere in a JSON tree, or None."""
    if isinstance(obj, dict):
        if key in obj:
            return obj[key]
        obj = list(obj.values())
    if isinstance(obj, list):
        for v in obj:
            got = find(v, key)
            if got is not None:
                return got
    return None


def class_block(host, dev, cls):
    text = host.run(f"tc -s class show dev {dev}")
    m = re.search(rf"class lossless {re.escape(cls)} .*?(?=\nclass |\Z)", text, re.S)
    return m.group(0) if m else ""


def send(bc, srcs, dst, port, seconds=3):
    """UDP from srcs to dst as fast as each sender's 256 KB socket buffer
    lets it (the qdiscs' pauses hold it back): (sent per sender, flows)."""
    rx = bc.server(dst)
    recv = rx.popen(f"{Paths.traffic} recv --port {port} --duration {seconds + 5} --idle-exit 1")
    rx.wait_udp(port)
    senders = [bc.server(i).popen(f"{Paths.traffic} send --dst {bc.addr(dst)} --port {port} "
                                  f"--flow {i} --duration {seconds} --rate-mbit 0 --sndbuf 262144")
               for i in srcs]
    sent = [json.loads(p.communicate()[0]) for p in senders]
    return sent, json.loads(recv.communicate()[0])["flows"]


def scheme_stat(host, dev, name):
    return (json.loads(host.run(f"tc -s -j qdisc show dev {dev}"))[0]
            .get("scheme_stats", {}).get(name, 0))


def class_pauses(host, dev, cls):
    m = re.search(r"pause_frames_rx (\d+)", class_block(host, dev, cls))
    return int(m.group(1)) if m else 0


def pool_drops(bc):
    return sum(q.get("pool_drops_lossless", 0) + q.get("pool_drops_lossy", 0)
               for h in bc.switches.values()
               for q in (json.loads(h.run(f"tc -s -j qdisc show dev {h.ifaces[0]}"))[0],))


def relayed(chk, bc):
    """Four-hop flows 5, 6, 7 -> 0, digit 1 first: through switches 21, 22,
    23 to relays 1, 2, 3, then switch 16's port 0 (its B queue). Its onset
    reaches the servers 1-3, which relay it to 21-23 (their A-slot for
    port 0 stops), whose A-slots then pause the senders' a-slots."""
    before = scheme_stat(bc.switches[16], "if0", "pauses_b")
    sent, flows = send(bc, (5, 6, 7), 0, 7001)
    chk.ok(scheme_stat(bc.switches[16], "if0", "pauses_b") > before,
           "four-hop incast: switch 16 port 0's B queue reached xoff-b")
    relays = [json.loads(bc.server(i).run(f"{Paths.ingress} --pin-dir "
                                          f"{bc.ingress_pin_dir(bc.server(i))} show --json"))
              for i in (1, 2, 3)]
    counts = [find(r, "portfc_relayed") for r in relays]
    chk.ok(all(c and c >= 1 for c in counts), "servers 1-3 relayed it (as PORTFC_R)",
           f"relayed {counts}")
    # Switch 21 + i - 1's port 0 faces relay i: its A-slot for port 0 (1:2).
    took = [class_pauses(bc.switches[20 + i], "if0", "1:2") for i in (1, 2, 3)]
    chk.ok(all(t >= 1 for t in took), "switches 21-23 stopped the A-slot feeding it (two hops up)",
           f"pause_frames_rx {took}")
    a_onsets = [scheme_stat(bc.switches[20 + i], "if0", "pauses_a") for i in (1, 2, 3)]
    senders = [class_pauses(bc.server(i), "if1", "1:2") for i in (5, 6, 7)]
    print(f"  switches 21-23 port 0 A onsets {a_onsets}; senders 5-7 a-slot pauses {senders}",
          flush=True)
    chk.ok(all(a >= 1 for a in a_onsets) and all(s >= 1 for s in senders),
           "their A-slots paused the senders' a-slot (three hops, no further)")
    received = sum(f["received"] for f in flows.values())
    chk.eq(received, sum(s["sent"] for s in sent), "every datagram sent arrived")
    chk.eq(pool_drops(bc), 0, "no switch pool dropped anything")


def incast(chk, bc):
    """Servers 1, 2, 3 (switch 16's ports 1-3) blast server 0 (its port 0)."""
    sw = bc.switches[16]
    rx = bc.server(0)
    recv = rx.popen(f"{Paths.traffic} recv --port 7000 --duration 8 --idle-exit 1")
    rx.wait_udp(7000)
    senders = [bc.server(i).popen(f"{Paths.traffic} send --dst {bc.addr(0)} --port 7000 "
                                  f"--flow {i} --duration 3 --rate-mbit 0 --sndbuf 262144")
               for i in (1, 2, 3)]
    sent = [json.loads(p.communicate()[0]) for p in senders]
    got = json.loads(recv.communicate()[0])
    qd = json.loads(sw.run("tc -s -j qdisc show dev if0"))[0]
    print(f"  switch 16 port 0: {json.dumps(qd.get('scheme_stats'))}", flush=True)
    pauses_b = find(qd, "pauses_b")
    chk.ok(pauses_b is not None and pauses_b >= 1, "switch 16 port 0's B queue reached xoff-b",
           f"pauses_b {pauses_b}")
    frames = []
    for dev in ("if1", "if2", "if3"):
        q = json.loads(sw.run(f"tc -s -j qdisc show dev {dev}"))[0]
        frames.append(find(q, "frames_b"))
    chk.ok(all(f and f >= 1 for f in frames), "and sent PORTFC_B frames on ports 1-3",
           f"frames_b {frames}")
    rx_frames = []
    for i in (1, 2, 3):
        m = re.search(r"pause_frames_rx (\d+)", class_block(bc.server(i), "if0", "1:5"))
        rx_frames.append(int(m.group(1)) if m else 0)
    chk.ok(all(f >= 1 for f in rx_frames), "servers 1-3: their b-slot for port 0 (1:5) took them",
           f"pause_frames_rx {rx_frames}")
    drops = qd.get("pool_drops_lossless"), qd.get("pool_drops_lossy")
    chk.eq(drops, (0, 0), "the switch's pool dropped nothing (lossless, lossy)")
    total = sum(s["sent"] for s in sent)
    received = sum(f["received"] for f in got["flows"].values())
    mbit = received * 1000 * 8 / 3 / 1e6
    print(f"  sent {[s['sent'] for s in sent]}, received {received} ({mbit:.1f} Mbit/s of payload)",
          flush=True)
    chk.eq(received, total, "every datagram sent arrived")


def main():
    chk = Checks("bcube")
    ensure_modules()
    with Topology("bc") as t:
        # The four-hop flows of the relayed incast correct digit 1 first.
        bc = BCube(t, 4, 1, qdisc=RATE, classify=True, switch_pool=SWITCH_POOL,
                   first=lambda s, d: 1 if d == 0 and s in (5, 6, 7) else 0)
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
        incast(chk, bc)
        relayed(chk, bc)
        prefix = t.prefix
    left = [ns for ns in sh("ip netns list").split() if ns.startswith(prefix)]
    pins = glob.glob(f"/sys/fs/bpf/portfc-{prefix}*")
    chk.ok(not left and not pins, "torn down: no namespace, no pinned map",
           f"namespaces {left[:3]}, pins {pins[:3]}")
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
