"""MAC control frames (802.3x PAUSE, 802.1Qbb PFC) built with struct, for
the VM tests' senders: a second implementation beside our C codec, written
from the standards' layouts. Under TCG scapy takes 11 s to import, once per
sender; tests/frames/check_sender_frames.py checks on the host that these
bytes equal scapy's for random frames, so scapy stays the reference.
"""
import struct

PFC_DA = "01:80:c2:00:00:01"
ETH_P_MAC_CONTROL = 0x8808
OP_PAUSE, OP_PFC = 0x0001, 0x0101
MIN_FRAME = 60  # without the FCS, which the NIC (here veth) does not send


def _mac(text):
    octets = bytes(int(x, 16) for x in text.split(":"))
    if len(octets) != 6:
        raise ValueError(f"not a MAC address: {text!r}")
    return octets


def _pad(frame):
    return frame + b"\0" * max(0, MIN_FRAME - len(frame))


def pfc(src, vector, times, dst=PFC_DA):
    """A PFC frame: class-enable vector (bit i: priority i) and 8 pause
    times in quanta."""
    if not 0 <= vector <= 0xFF or len(times) != 8 or not all(0 <= t <= 0xFFFF for t in times):
        raise ValueError(f"PFC vector {vector} / times {times} out of range")
    return _pad(_mac(dst) + _mac(src) + struct.pack("!HHH8H", ETH_P_MAC_CONTROL, OP_PFC,
                                                    vector, *times))


def pause(src, quanta, dst=PFC_DA):
    """An 802.3x PAUSE frame of quanta pause quanta."""
    if not 0 <= quanta <= 0xFFFF:
        raise ValueError(f"PAUSE quanta {quanta} out of range")
    return _pad(_mac(dst) + _mac(src) + struct.pack("!HHH", ETH_P_MAC_CONTROL, OP_PAUSE, quanta))


def from_step(step, src):
    """The frame of one pause_sender plan step."""
    if step["kind"] == "pfc":
        return pfc(src, step["vector"], step["times"], step.get("dst", PFC_DA))
    if step["kind"] == "pause":
        return pause(src, step["quanta"], step.get("dst", PFC_DA))
    if step["kind"] == "raw":  # bytes given as hex, sent as they are (malformed frames)
        return bytes.fromhex(step["hex"])
    raise ValueError(f"unknown step kind {step['kind']!r}")
