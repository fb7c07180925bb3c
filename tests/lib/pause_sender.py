#!/usr/bin/python3
"""Send a timed plan of MAC control frames, for the VM tests and the demo.

usage: pause_sender.py IFACE SRC_MAC PLAN_JSON
PLAN_JSON is a list of steps, each {"at": seconds, "name": str, "kind": "pfc",
"vector": int, "times": [8 quanta]} or {"at", "name", "kind": "pause",
"quanta": int} or {"at", "name", "kind": "raw", "hex": str}. A pfc or pause step
may name its destination ("dst": a MAC address; default 01:80:c2:00:00:01).
The frames come from mac_frames.py (checked against scapy's on the host by
tests/frames/check_sender_frames.py) and are built first; the script prints
"ready", waits for a line on stdin, sends each frame at its time on a raw
packet socket and prints a JSON list of {"name", "sent_ns"}
(CLOCK_MONOTONIC).
"""
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mac_frames  # noqa: E402

iface, src, plan = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
frames = [mac_frames.from_step(step, src) for step in plan]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
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
