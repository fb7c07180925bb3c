#!/usr/bin/python3
"""A host's `lossless` uplink with a child qdisc per class (VM test).

PCN's and DCQCN's reaction point paces each flow by its earliest departure
time (skb->tstamp); sch_fq holds each flow until then without blocking the
others. On a host, fq is grafted on the lossless class of the paced
priority: the class's gates (PFC) still decide when the queue may send, fq
decides which of its flows' packets are due.

Phase 1, the child qdisc (host A -> host B over one veth, A's egress
`lossless rate 50mbit` with the ingress program):
  - `tc qdisc add dev if0 parent 1:4 fq` is shown as the class's leaf; a
    queue count that would remove the class is refused while it has one;
  - fq's per-flow pacing works under the lossless parent: two flows of
    priority 3 offered at 8 Mbit/s each leave at fq's maxrate (2 Mbit/s)
    each, priority 0 (FIFO) at its 8 Mbit/s: fq's watchdog wakes the
    root when a paced packet is due;
  - PFC still stops the class: an XOFF for priority 3 held for 1 s stops
    both paced flows (what fq holds waits), priority 0 keeps flowing, XON
    resumes them; nothing is lost anywhere (received == sent, no drops);
  - deleting the child returns the class to its FIFO;
  - a pool's port refuses a child, with the extack message.
"""

import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from topology import Paths, Topology  # noqa: E402

PKT = 1000
OFFER_MBIT = 8
FQ_MAXRATE_MBIT = 2
PORT3, PORT3B, PORT0 = 5003, 5004, 5000


def pfc(at, name, prio, quanta):
    times = [0] * 8
    times[prio] = quanta
    return {"at": at, "name": name, "kind": "pfc", "vector": 1 << prio, "times": times}


def class_leaf(host, dev, classid):
    for line in host.run(f"tc class show dev {dev}").splitlines():
        if line.startswith(f"class lossless {classid} "):
            m = re.search(r"leaf (\S+)", line)
            return m.group(1) if m else None
    raise RuntimeError(f"no class {classid} on {dev}")


def rate_mbit(flow, paused_ns=0):
    """Over the flow's arrivals, less the time it was paused."""
    span = flow["last_ns"] - flow["first_ns"] - paused_ns
    return flow["bytes"] * 8e3 / span if span > 0 else 0.0


def child_qdisc(c, t, a, b, link):
    a.run("tc qdisc add dev if0 root handle 1: lossless rate 50mbit")
    a.run(f"{Paths.ingress} attach if0")
    a.run(f"tc qdisc add dev if0 parent 1:4 handle 40: fq maxrate {FQ_MAXRATE_MBIT}mbit "
          "flow_limit 10000 limit 100000")
    c.eq(class_leaf(a, "if0", "1:4"), "40:", "class 1:4 shows the fq child as its leaf")
    c.eq(class_leaf(a, "if0", "1:1"), None, "class 1:1 keeps its FIFO")
    r = a.run("tc qdisc change dev if0 root lossless queues 2", check=False)
    c.ok(r.returncode != 0 and "has a child qdisc: delete it first" in r.stderr,
         "a queue count that removes class 1:4 is refused while it has a child",
         r.stderr.strip())

    plan = [pfc(1.5, "xoff", 3, 65535)]
    plan += [pfc(1.5 + 0.1 * i, f"refresh{i}", 3, 65535) for i in range(1, 10)]
    plan += [pfc(2.5, "xon", 3, 0)]
    pauser = b.popen(f"{Paths.python} {Paths.pause_sender} if0 {link['b_mac']} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if pauser.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + pauser.communicate()[1])
    recvs = {p: b.popen(f"{Paths.traffic} recv --port {p} --gap-ms 200 --idle-exit 2 --duration 60")
             for p in (PORT3, PORT3B, PORT0)}
    for p in recvs:
        b.wait_udp(p)
    duration = 5.0
    senders = {p: a.popen(f"{Paths.traffic} send --dst {link['b_ip']} --port {p} --flow {p} "
                          f"--prio {3 if p != PORT0 else 0} --size {PKT} --rate-mbit {OFFER_MBIT} "
                          f"--duration {duration}")
               for p in recvs}
    time.sleep(0.5)
    out, _ = pauser.communicate("go\n", timeout=60)
    sent_at = {e["name"]: e["sent_ns"] for e in json.loads(out.splitlines()[-1])}
    sends = {p: json.loads(s.communicate(timeout=60)[0]) for p, s in senders.items()}
    got = {p: json.loads(r.communicate(timeout=60)[0])["flows"][str(p)] for p, r in recvs.items()}

    for p in (PORT3, PORT3B):
        f = got[p]
        gaps = [g for g in f["gaps"] if g[0] <= sent_at["xoff"] + 0.1e9 < g[1]]
        c.ok(bool(gaps), f"priority 3 flow {p}: stops within 100 ms of the XOFF",
             gaps and f"gap {(gaps[0][1] - gaps[0][0]) / 1e6:.0f} ms")
        if gaps:
            c.ge(gaps[0][1], sent_at["xon"], f"priority 3 flow {p}: stays stopped until XON")
        # fq paces each flow at maxrate before and after the pause (its
        # backlog does not burst out at the XON); the pause is no time.
        paused = gaps[0][1] - gaps[0][0] if gaps else 0
        c.within(rate_mbit(f, paused), FQ_MAXRATE_MBIT, 0.15,
                 f"priority 3 flow {p}: paced by fq's maxrate under the lossless class", " Mbit/s")
    f0 = got[PORT0]
    c.within(rate_mbit(f0), OFFER_MBIT, 0.15, "priority 0 (FIFO) at its offered rate", " Mbit/s")
    long0 = [g for g in f0["gaps"] if g[1] > sent_at["xoff"] and g[0] < sent_at["xon"]]
    c.eq(len(long0), 0, "priority 0 has no gap > 200 ms during the priority-3 pause")
    for p in recvs:
        c.eq(got[p]["received"], sends[p]["sent"], f"flow {p}: received == sent")
        c.eq(got[p]["missing"], 0, f"flow {p}: no sequence gaps")
    qd = a.json("tc -s -j qdisc show dev if0")
    root = [q for q in qd if q["kind"] == "lossless"][0]
    fq = [q for q in qd if q["kind"] == "fq"][0]
    c.eq(root["drops"], 0, "lossless root: no drops")
    c.eq(fq["drops"], 0, "fq child: no drops")
    c.eq(fq["packets"], sends[PORT3]["sent"] + sends[PORT3B]["sent"],
         "fq child sent every priority-3 packet")
    c.eq(root["packets"], sum(s["sent"] for s in sends.values()), "root sent every packet")
    c.eq(root["qlen"], 0, "root queue empty at the end")

    a.run("tc qdisc del dev if0 parent 1:4")
    c.eq(class_leaf(a, "if0", "1:4"), None, "deleting the child returns class 1:4 to its FIFO")
    r = a.json(f"{Paths.traffic} send --dst {link['b_ip']} --port 5999 --prio 3 --size {PKT} "
               "--rate-mbit 8 --count 50")
    c.eq(r["sent"], 50, "the FIFO class sends again")
    a.run("tc qdisc change dev if0 root lossless queues 2")
    c.ok(True, "with the child gone the queue count may shrink")

    # A pool's port: the MMU accounts every packet at the FIFO.
    b.run("tc qdisc add dev if0 root handle 1: lossless rate 50mbit pool hostcc")
    r = b.run("tc qdisc add dev if0 parent 1:1 fq", check=False)
    c.ok(r.returncode != 0 and "child qdiscs are for ports without a pool" in r.stderr,
         "a pool's port refuses a child qdisc with a message", r.stderr.strip())


def main():
    c = Checks("host_cc")
    with Topology("hostcc") as t:
        a, b = t.host("a"), t.host("b")
        link = t.link(a, b)
        child_qdisc(c, t, a, b, link)
    c.finish()


if __name__ == "__main__":
    main()
