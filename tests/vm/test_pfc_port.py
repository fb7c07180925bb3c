#!/usr/bin/python3
"""A port whose egress qdisc is `lossless` honours PFC and PAUSE (VM test).

Hosts A and B are joined by a veth. A's egress is `lossless rate 100mbit`
with the ingress BPF program on the same port; A sends UDP on priorities 3
and 0 to B. B crafts MAC control frames with tests/lib/mac_frames.py (an
implementation independent of ours, equal to scapy's frames on the host:
tests/frames/check_sender_frames.py) and sends them to A:

  1. PFC XOFF for priority 3, refreshed, then XON     -> stops, resumes on XON
  2. PFC XOFF for priority 3 left to expire           -> resumes by itself
  3. 802.3x PAUSE                                     -> both priorities stop

Stop bound (how long after B sends XOFF a priority-3 packet may still reach B):
  shaper burst (packets the shaper may release back to back, burst_bytes*8/rate)
  + one maximum frame on the wire (1514*8/rate)
  + the software response: B's send -> A's ingress BPF -> qdisc enqueue, and A's
    dequeue -> B's socket. Natively that is tens of microseconds; under QEMU TCG
    one guest context switch can take milliseconds, so the budget is 20 ms
    (LL_SW_BUDGET_MS overrides). At 100 Mbit/s: 242 us + 121 us + 20 ms.
Expiry (65535 quanta = 335.5 ms, long enough that TCG's scheduling jitter
stays well inside the tolerance): the arrival gap B sees (last packet before the pause to first after)
must be the pause duration (quanta x 512 bit times at 100 Mbit/s) within 10%;
measuring from B's send time instead would add the frame's delivery latency.
"""

import json
import os
import re
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from check import Checks  # noqa: E402
from nltc import TCA_LOSSLESS, attr, qdisc_request  # noqa: E402
from topology import Paths, Topology, class_packets  # noqa: E402

RATE_BPS = 100_000_000
QUANTUM_NS = 512 * 1e9 / RATE_BPS  # 5120 ns at 100 Mbit/s
SW_BUDGET_NS = float(os.environ.get("LL_SW_BUDGET_MS", "20")) * 1e6
PKT = 1000          # UDP payload
FLOW_MBIT = 8       # per priority: 1000 packets/s, well under the line rate
PORT = 5000



def pfc(at, name, prio, quanta):
    times = [0] * 8
    times[prio] = quanta
    return {"at": at, "name": name, "kind": "pfc", "vector": 1 << prio, "times": times}


def tc_json(host, what):
    return json.loads(host.run(f"tc -s -j {what}"))


def main():
    c = Checks("pfc_port")
    with Topology("pfc") as t:
        a, b = t.host("a"), t.host("b")
        link = t.link(a, b)
        a.run("tc qdisc add dev if0 root handle 1: lossless rate 100mbit")
        a.run(f"{Paths.ingress} attach if0")
        qd = tc_json(a, "qdisc show dev if0")[0]
        burst = qd["options"]["burst"]
        stop_bound_ns = burst * 8e9 / RATE_BPS + 1514 * 8e9 / RATE_BPS + SW_BUDGET_NS
        print(f"  burst {burst} B; stop bound {stop_bound_ns / 1e6:.3f} ms")

        q_long, q_exp, q_pause = 65535, 65535, 65535
        plan = [pfc(0.0, "xoff", 3, q_long)]
        plan += [pfc(0.1 * i, f"refresh{i}", 3, q_long) for i in range(1, 8)]
        plan += [pfc(0.8, "xon", 3, 0),
                 pfc(1.8, "xoff-expire", 3, q_exp),
                 {"at": 3.2, "name": "pause", "kind": "pause", "quanta": q_pause}]
        # Malformed frames while traffic flows: counted and dropped at ingress.
        src = link["b_mac"].replace(":", "")
        pfc_head = "0180c2000001" + src + "8808" + "0101"
        bad = {"truncated": pfc_head + "0008" + "ffff",                  # 22 bytes
               "reserved-bits-set": pfc_head + "0108" + "00" * 16 + "00" * 26,
               "unknown-opcode": "0180c2000001" + src + "8808" + "0002" + "00" * 44}
        plan += [{"at": 1.2 + 0.05 * i, "name": f"bad-{k}", "kind": "raw", "hex": h}
                 for i, (k, h) in enumerate(bad.items())]
        plan.sort(key=lambda step: step["at"])
        pauser = b.popen(f"{Paths.python} {Paths.pause_sender} if0 {link['b_mac']} '{json.dumps(plan)}'",
                         stdin=subprocess.PIPE)
        if pauser.stdout.readline().strip() != "ready":
            raise RuntimeError("pause sender failed: " + pauser.communicate()[1])

        recv = b.popen(f"{Paths.traffic} recv --port {PORT} --gap-ms 3 --idle-exit 2 --duration 60")
        b.wait_udp(PORT)
        duration = plan[-1]["at"] + 2.5
        senders = [a.popen(f"{Paths.traffic} send --dst {link['b_ip']} --port {PORT} --prio {p} "
                           f"--size {PKT} --rate-mbit {FLOW_MBIT} --duration {duration}")
                   for p in (3, 0)]
        time.sleep(0.7)  # traffic flowing
        out, err = pauser.communicate("go\n", timeout=60)
        sent_at = {e["name"]: e["sent_ns"] for e in json.loads(out.splitlines()[-1])}

        sends = [json.loads(p.communicate(timeout=30)[0]) for p in senders]
        r = json.loads(recv.communicate(timeout=30)[0])
        flows = r["flows"]
        f3, f0 = flows["3"], flows["0"]
        t0 = sent_at["xoff"]
        print("  frames sent (ms after the first XOFF):",
              {k: round((v - t0) / 1e6, 1) for k, v in sent_at.items()})
        for name, flow in (("3", f3), ("0", f0)):
            print(f"  priority {name} arrival gaps > 50 ms (start, length in ms):",
                  [(round((g0 - t0) / 1e6, 1), round((g1 - g0) / 1e6, 1))
                   for g0, g1 in flow["gaps"] if g1 - g0 > 50e6])

        def gap_after(flow, t_ns, within_ns):
            """The arrival gap under way within_ns after t_ns: the flow has
            stopped by then. It may have begun a little before t_ns when
            TCG stalled the sender just then; the pause is measured from
            t_ns to the gap's end, so such a stall cannot lengthen it."""
            found = [g for g in flow["gaps"] if g[0] <= t_ns + within_ns < g[1]]
            return found[0] if found else None

        # 1. XOFF ... XON
        g = gap_after(f3, sent_at["xoff"], stop_bound_ns)
        # A gap under way at XOFF + bound: nothing arrived from then on.
        if c.ok(g is not None, "priority 3 stops within the stop bound after XOFF",
                g and f"last arrival {(g[0] - sent_at['xoff']) / 1e6:.3f} ms after XOFF, "
                      f"bound {stop_bound_ns / 1e6:.3f} ms"):
            c.le(round((g[1] - sent_at["xon"]) / 1e6, 3), round(stop_bound_ns / 1e6, 3),
                 "priority 3 resumes on XON within the bound", " ms")
            c.ge(g[1], sent_at["xon"], "priority 3 stays paused until XON (refreshes hold it)")

        # 2. XOFF left to expire
        want_ns = q_exp * QUANTUM_NS
        g = gap_after(f3, sent_at["xoff-expire"], stop_bound_ns)
        if c.ok(g is not None, "priority 3 stops after the second XOFF"):
            c.within((g[1] - sent_at["xoff-expire"]) / 1e6, want_ns / 1e6, 0.10,
                     "priority 3 resumes by itself after quanta x 512 bit times (XOFF sent -> next arrival at B)",
                     " ms")

        # 3. 802.3x PAUSE stops every priority
        want_ns = q_pause * QUANTUM_NS
        for name, flow in (("3", f3), ("0", f0)):
            g = gap_after(flow, sent_at["pause"], stop_bound_ns)
            if c.ok(g is not None, f"PAUSE stops priority {name}"):
                c.within((g[1] - sent_at["pause"]) / 1e6, want_ns / 1e6, 0.10,
                         f"priority {name} resumes after the PAUSE time (PAUSE sent -> next arrival at B)",
                         " ms")

        # Priority 0 keeps flowing while priority 3 is paused.
        win0, win1 = sent_at["xoff"] + stop_bound_ns, sent_at["xon"]
        long_gaps = [g for g in f0["gaps"] if g[1] > win0 and g[0] < win1 and g[1] - g[0] > 50e6]
        c.eq(len(long_gaps), 0, "priority 0 has no gap > 50 ms during the priority-3 pause")

        # Nothing lost; counters match end to end.
        by_prio = {s["prio"]: s for s in sends}
        for p, flow in ((3, f3), (0, f0)):
            c.eq(by_prio[p]["send_errors"], 0, f"priority {p}: no local send errors")
            c.eq(flow["received"], by_prio[p]["sent"], f"priority {p}: received == sent")
            c.eq(flow["missing"], 0, f"priority {p}: no sequence gaps")
        c.eq(r["socket_drops"], 0, "receiver socket dropped nothing")

        qd = tc_json(a, "qdisc show dev if0")[0]
        c.eq(qd["drops"], 0, "qdisc drops")
        c.eq(qd["packets"], sum(s["sent"] for s in sends), "qdisc packets == packets sent")
        xs = qd  # tc -s -j puts the lossless xstats at the qdisc's top level
        n_pfc = sum(1 for step in plan if step["kind"] == "pfc")
        c.eq(xs["pfc_frames_rx"], n_pfc, "qdisc counted every PFC frame")
        c.eq(xs["pause_frames_rx"], 1, "qdisc counted the PAUSE frame")
        c.eq(xs["ctrl_invalid"], 0, "no invalid control messages reached the qdisc")
        gate3 = xs["gates"][3]
        c.eq(gate3["xoff_frames"], n_pfc - 1, "gate 3 XOFF frames")
        c.eq(gate3["xon_frames"], 1, "gate 3 XON frames")
        want_paused = (sent_at["xon"] - sent_at["xoff"]) + q_exp * QUANTUM_NS
        c.within(gate3["paused_time"] / 1e6, want_paused / 1e6, 0.10,
                 "gate 3 paused time matches the pauses sent", " ms")
        c.eq(xs["gates"][8]["paused_time"], int(q_pause * QUANTUM_NS), "port gate paused time is exact")
        classes = class_packets(a, "if0")
        c.eq(classes.get("1:4"), by_prio[3]["sent"], "class 1:4 (priority 3) packets")
        c.eq(classes.get("1:1"), by_prio[0]["sent"], "class 1:1 (priority 0) packets")

        ing = a.json(f"{Paths.ingress} show if0 --json")["ports"][0]["control"]
        c.eq(ing["pfc"], n_pfc, "ingress program counted every PFC frame")
        c.eq(ing["pause"], 1, "ingress program counted the PAUSE frame")
        for k in bad:
            c.eq(ing["errors"][k], 1, f"malformed frame ({k}) counted and dropped at ingress")

        own_address(c, a, b, link, xs, ing)
        configured_gates(c, a, b, link)
    c.finish()


def own_address(c, a, b, link, xs, ing):
    """IEEE 802.3 Annex 31B: a MAC control frame to the receiving port's
    own unicast address is valid. A PFC XOFF for priority 5 to A's own
    address pauses gate 5 until the XON (also to A's address) 200 ms
    later; the same frame to another unicast address is dropped at
    ingress as bad-destination and touches no gate."""
    plan = [dict(pfc(0.0, "own-xoff", 5, 65535), dst=link["a_mac"]),
            dict(pfc(0.05, "other-xoff", 6, 65535), dst="02:00:00:4c:4c:99"),
            dict(pfc(0.2, "own-xon", 5, 0), dst=link["a_mac"])]
    pauser = b.popen(f"{Paths.python} {Paths.pause_sender} if0 {link['b_mac']} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if pauser.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + pauser.communicate()[1])
    pauser.communicate("go\n", timeout=60)
    time.sleep(0.5)
    now = tc_json(a, "qdisc show dev if0")[0]
    g5, g6 = now["gates"][5], now["gates"][6]
    c.eq((g5["xoff_frames"], g5["xon_frames"]), (1, 1),
         "PFC to the port's own address: gate 5 took the XOFF and the XON")
    c.ok(0 < g5["paused_time"] <= 65535 * QUANTUM_NS + 1, "and was paused in between",
         f"paused_time {g5['paused_time'] / 1e6:.1f} ms")
    c.eq(g6["xoff_frames"], xs["gates"][6]["xoff_frames"], "PFC to another unicast address: no gate touched")
    c.eq(now["pfc_frames_rx"] - xs["pfc_frames_rx"], 2, "the qdisc counted the two frames to its address")
    c.eq(now["ctrl_invalid"], 0, "and found none invalid")
    after = a.json(f"{Paths.ingress} show if0 --json")["ports"][0]["control"]
    c.eq(after["pfc"] - ing["pfc"], 2, "the ingress program delivered the two frames to A's address")
    c.eq(after["errors"]["bad-destination"] - ing["errors"]["bad-destination"], 1,
         "and dropped the one to another address as bad-destination")


def class_gates(host, dev, cls):
    """(gates text, paused) of class cls from `tc -s class show`."""
    text = host.run(f"tc -s class show dev {dev}")
    block = text.split(f"class lossless {cls} ", 1)[1].split("class lossless ", 1)[0]
    m = re.search(r" gates (.*?)\s+paused (yes|no)", block)
    return (m.group(1).strip(), m.group(2) == "yes") if m else (None, None)


def configured_gates(c, a, b, link):
    """TCA_LOSSLESS_GATES: the gates that stop a queue come from the
    configuration when given. While priority 3's gate is held closed by
    refreshed XOFFs, queue 3 (class 1:4) configured with the port gate
    alone runs, and with the priomap's gates again (gates default) is
    paused; the map dumps as given, and the kernel refuses a gate above
    23 with a message."""
    plan = [pfc(0.1 * i, f"hold{i}", 3, 65535) for i in range(40)] + [pfc(4.0, "release", 3, 0)]
    pauser = b.popen(f"{Paths.python} {Paths.pause_sender} if0 {link['b_mac']} '{json.dumps(plan)}'",
                     stdin=subprocess.PIPE)
    if pauser.stdout.readline().strip() != "ready":
        raise RuntimeError("pause sender failed: " + pauser.communicate()[1])
    pauser.stdin.write("go\n")
    pauser.stdin.flush()
    time.sleep(0.3)
    a.run("tc qdisc change dev if0 root lossless gates 3:port")
    opts = tc_json(a, "qdisc show dev if0")[0]
    c.eq(opts["options"].get("gates"), [{"queue": 3, "gates": [8]}], "the gate map dumps as given")
    held = opts["paused_mask"] & (1 << 3)
    gates, paused = class_gates(a, "if0", "1:4")
    c.ok(held and gates == "port" and paused is False,
         "gates 3:port: queue 3 runs while priority 3's gate is closed",
         f"paused_mask 0x{opts['paused_mask']:x}, class 1:4 gates '{gates}', paused {paused}")
    a.run("tc qdisc change dev if0 root lossless gates default")
    opts = tc_json(a, "qdisc show dev if0")[0]
    gates, paused = class_gates(a, "if0", "1:4")
    c.ok(opts["paused_mask"] & (1 << 3) and gates == "prio 3 port" and paused is True,
         "gates default: queue 3 is stopped by priority 3 again",
         f"paused_mask 0x{opts['paused_mask']:x}, class 1:4 gates '{gates}', paused {paused}")
    c.eq(opts["options"].get("gates"), None, "and the map is no longer dumped")
    err, text = qdisc_request(ifindex_of(a, "if0"), "lossless",
                              [attr(TCA_LOSSLESS["gates"], struct.pack("=II", 0, 1 << 24))],
                              change=True, ns=a.ns)
    c.ok(err == 22 and "names a gate above 23" in text, "the kernel refuses gate 24 with a message",
         f"errno {err}: '{text}'")
    pauser.communicate(timeout=60)


def ifindex_of(host, dev):
    return host.link_info(dev)["ifindex"]


if __name__ == "__main__":
    main()
