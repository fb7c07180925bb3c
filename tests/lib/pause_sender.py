#!/usr/bin/python3
"""Send a timed plan of MAC control frames built by scapy (an implementation
independent of ours), for the VM tests and the demo.

usage: pause_sender.py IFACE SRC_MAC PLAN_JSON
PLAN_JSON is a list of steps, each {"at": seconds, "name": str, "kind": "pfc",
"vector": int, "times": [8 quanta]} or {"at", "name", "kind": "pause",
"quanta": int} or {"at", "name", "kind": "raw", "hex": str}. A pfc or pause step
may name its destination ("dst": a MAC address; default 01:80:c2:00:00:01).
Frames are built first (scapy is slow under TCG); the script
prints "ready", waits for a line on stdin, sends each frame at its time and
prints a JSON list of {"name", "sent_ns"} (CLOCK_MONOTONIC).
"""
import json, sys, time
from scapy.all import conf, Ether
from scapy.contrib.mac_control import (MACControlPause,
                                       MACControlClassBasedFlowControl)
iface, src, plan = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
DA = "01:80:c2:00:00:01"
frames = []
for step in plan:  # build everything first: scapy is slow under TCG
    if step["kind"] == "pfc":
        vec, times = step["vector"], step["times"]
        kw = {f"c{i}_enabled": (vec >> i) & 1 for i in range(8)}
        kw.update({f"c{i}_pause_time": times[i] for i in range(8)})
        f = Ether(dst=step.get("dst", DA), src=src) / MACControlClassBasedFlowControl(**kw)
    elif step["kind"] == "pause":
        f = Ether(dst=step.get("dst", DA), src=src) / MACControlPause(pause_time=step["quanta"])
    else:  # "raw": bytes given as hex, sent as they are (malformed frames)
        frames.append(bytes.fromhex(step["hex"]))
        continue
    raw = bytes(f)
    frames.append(raw + b"\0" * max(0, 60 - len(raw)))
s = conf.L2socket(iface=iface)
print("ready", flush=True)
sys.stdin.readline()
t0 = time.monotonic()
log = []
for step, raw in zip(plan, frames):
    while time.monotonic() - t0 < step["at"]:
        time.sleep(0.0002)
    before = time.monotonic_ns()
    s.send(raw)
    log.append({"name": step["name"], "sent_ns": before})
print(json.dumps(log), flush=True)
