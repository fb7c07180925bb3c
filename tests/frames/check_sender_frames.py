#!/usr/bin/python3
"""The VM tests' frame builder (tests/lib/mac_frames.py) against scapy: for
random PFC and PAUSE frames (vectors, times, quanta, addresses), and the
edges of each field, its bytes must equal scapy's (padded to 60 octets).
The VM tests send mac_frames' frames because scapy takes 11 s to import
under TCG; this keeps scapy the reference for what they send.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import mac_frames  # noqa: E402

try:
    from scapy.compat import raw
    from scapy.contrib.mac_control import MACControlClassBasedFlowControl, MACControlPause
    from scapy.layers.l2 import Ether
except ImportError as e:  # pragma: no cover
    print(f"scapy not available ({e}): skipped")
    sys.exit(77)


def padded(frame):
    b = raw(frame)
    return b + b"\0" * max(0, 60 - len(b))


def scapy_pfc(src, dst, vector, times):
    kw = {f"c{i}_enabled": (vector >> i) & 1 for i in range(8)}
    kw.update({f"c{i}_pause_time": times[i] for i in range(8)})
    return padded(Ether(dst=dst, src=src) / MACControlClassBasedFlowControl(**kw))


def scapy_pause(src, dst, quanta):
    return padded(Ether(dst=dst, src=src) / MACControlPause(pause_time=quanta))


def mac(rng):
    return ":".join(f"{rng.randrange(256):02x}" for _ in range(6))


def main():
    rng = random.Random(int(os.environ.get("LL_SEED", "1")))
    cases = [("pfc", 0, [0] * 8), ("pfc", 0xFF, [0xFFFF] * 8), ("pfc", 1 << 3, [0, 0, 0, 65535, 0, 0, 0, 0]),
             ("pause", 0, None), ("pause", 0xFFFF, None)]
    cases += [("pfc", rng.randrange(256), [rng.randrange(65536) for _ in range(8)]) for _ in range(500)]
    cases += [("pause", rng.randrange(65536), None) for _ in range(500)]
    bad = 0
    for kind, value, times in cases:
        src = mac(rng)
        dst = mac_frames.PFC_DA if rng.random() < 0.5 else mac(rng)
        if kind == "pfc":
            ours = mac_frames.from_step({"kind": "pfc", "vector": value, "times": times, "dst": dst}, src)
            ref = scapy_pfc(src, dst, value, times)
        else:
            ours = mac_frames.from_step({"kind": "pause", "quanta": value, "dst": dst}, src)
            ref = scapy_pause(src, dst, value)
        if ours != ref:
            bad += 1
            if bad <= 5:
                print(f"MISMATCH {kind} {value} {times} dst {dst}:\n  ours  {ours.hex()}\n  scapy {ref.hex()}")
    for args in ((0x100, [0] * 8), (1, [0] * 7), (1, [0x10000] + [0] * 7)):
        try:
            mac_frames.pfc("02:00:00:00:00:01", *args)
            bad += 1
            print(f"MISMATCH: pfc{args} was accepted")
        except ValueError:
            pass
    print(f"{len(cases)} frames compared with scapy, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
