#!/usr/bin/python3
"""Demo: a port pausing and resuming under PFC, with its stats.

Host A sends UDP on priorities 3 and 0 through its `lossless` port (100
Mbit/s). Host B sends PFC and PAUSE frames (tests/lib/pause_sender.py). Every 100 ms the
demo prints what A's qdisc reports: packets sent per class, backlog, and
which gates are closed. Then the full `tc -s` output.
"""

import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "lib"))
from topology import Paths, Topology  # noqa: E402


def pfc(at, name, prio, quanta):
    times = [0] * 8
    times[prio] = quanta
    return {"at": at, "name": name, "kind": "pfc", "vector": 1 << prio, "times": times}


PLAN = [pfc(1.0, "PFC XOFF prio 3 (65535 quanta = 335 ms)", 3, 65535)]
PLAN += [pfc(1.0 + 0.25 * i, "PFC XOFF prio 3 refresh", 3, 65535) for i in range(1, 8)]
PLAN += [pfc(3.0, "PFC XON prio 3", 3, 0),
         pfc(4.5, "PFC XOFF prio 3 (65535 quanta), left to expire", 3, 65535),
         {"at": 6.5, "name": "802.3x PAUSE (65535 quanta = 335 ms): every priority", "kind": "pause",
          "quanta": 65535}]
RUN_SECONDS = 8.0


def snapshot(a):
    """Per class: packets sent, backlog, paused (one tc call: TCG is slow)."""
    out, cur = {}, None
    for line in a.run("tc -s class show dev if0").splitlines():
        words = line.split()
        if line.startswith("class lossless"):
            cur = out.setdefault(words[2], {})
        elif cur is None:
            continue
        elif words[:1] == ["Sent"]:
            cur["sent"] = int(words[3])
        elif words[:1] == ["backlog"]:
            cur["backlog"] = words[2]
        elif words[:1] == ["paused"]:
            cur["paused"] = words[1] == "yes"
    return out


def main():
    with Topology("demo") as t:
        a, b = t.host("a"), t.host("b")
        link = t.link(a, b)
        print("A: tc qdisc add dev if0 root handle 1: lossless rate 100mbit")
        a.run("tc qdisc add dev if0 root handle 1: lossless rate 100mbit")
        print("A: lossless-ingress attach if0   (receives PFC/PAUSE for the qdisc)")
        a.run(f"{Paths.ingress} attach if0")
        print("B: preparing PFC frames ...", flush=True)
        pauser = b.popen(f"{Paths.python} {Paths.pause_sender} if0 {link['b_mac']} '{json.dumps(PLAN)}'",
                         stdin=subprocess.PIPE)
        if pauser.stdout.readline().strip() != "ready":
            sys.exit("pause sender failed: " + pauser.communicate()[1])
        recv = b.popen(f"{Paths.traffic} recv --port 5000 --idle-exit 2 --duration 60")
        time.sleep(0.3)
        senders = [a.popen(f"{Paths.traffic} send --dst {link['b_ip']} --port 5000 --prio {p} "
                           f"--rate-mbit 8 --duration {RUN_SECONDS + 0.5}") for p in (3, 0)]
        print("\n   time   prio 3: sent  backlog  paused    prio 0: sent  paused   event")
        t0 = time.monotonic()
        pauser.stdin.write("go\n")
        pauser.stdin.flush()
        events = list(PLAN)
        while time.monotonic() - t0 < RUN_SECONDS:
            cl = snapshot(a)
            now = time.monotonic() - t0
            ev = []
            while events and events[0]["at"] <= now:
                name = events.pop(0)["name"]
                if not ev or ev[-1] != name:
                    ev.append(name)
            q3, q0 = cl.get("1:4", {}), cl.get("1:1", {})
            print(f"  {now:5.2f}s {q3.get('sent', 0):13d} {q3.get('backlog', '-'):>8s} "
                  f"{'PAUSED' if q3.get('paused') else '-':>7s} {q0.get('sent', 0):15d} "
                  f"{'PAUSED' if q0.get('paused') else '-':>7s}   {'; '.join(ev)}", flush=True)
        pauser.communicate(timeout=30)
        sends = [json.loads(p.communicate(timeout=30)[0]) for p in senders]
        r = json.loads(recv.communicate(timeout=30)[0])
        print("\nEnd to end:")
        for s in sends:
            got = r["flows"][str(s["prio"])]["received"]
            print(f"  priority {s['prio']}: sent {s['sent']}, received {got}, lost {s['sent'] - got}")
        print("\n$ tc -s qdisc show dev if0")
        print(a.run("tc -s qdisc show dev if0"))
        print("$ tc -s class show dev if0 | head -12")
        print("\n".join(a.run("tc -s class show dev if0").splitlines()[:12]))
        print("\n$ lossless-ingress show if0")
        print(a.run(f"{Paths.ingress} show if0"))


if __name__ == "__main__":
    main()
