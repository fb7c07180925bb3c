#!/usr/bin/python3
"""ll-traffic's ECN handling over loopback (host test, no root needed).

usage: ecn_selftest.py PATH/TO/ll-traffic

- `send --ecn --dscp D` sends TOS byte D << 2 | ECT(0) (read back here with
  IP_RECVTOS), and without --ecn D << 2 | Not-ECT.
- `recv` counts per flow the packets that arrived with each ECN codepoint:
  ll-traffic's own senders, plus packets sent here with ECT(1) and with CE
  already set (a UDP socket may set any TOS byte), count exactly.
Exit 0 on success, 1 on a failed check (each printed), 77 if loopback UDP is
unavailable (ctest skips).
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from selftest import Checks, free_port, no_loopback_udp  # noqa: E402

MAGIC = 0x4C4C5446  # "LLTF", ll_traffic.cpp's header
DSCP = 24


def tos_of_sends(tool, extra, count=3):
    """The TOS bytes that `ll-traffic send EXTRA` puts on the wire."""
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", 0))
    rx.setsockopt(socket.IPPROTO_IP, socket.IP_RECVTOS, 1)
    rx.settimeout(5)
    port = rx.getsockname()[1]
    out = subprocess.run([tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--count", str(count),
                          "--size", "100"] + extra, check=True, capture_output=True, text=True).stdout
    tos = []
    for _ in range(count):
        _, anc, _, _ = rx.recvmsg(2048, socket.CMSG_SPACE(4))
        tos += [val[0] for level, kind, val in anc if level == socket.IPPROTO_IP and kind == socket.IP_TOS]
    rx.close()
    return json.loads(out), tos


def main():
    tool = sys.argv[1]
    check = Checks()

    if no_loopback_udp():
        return 77

    for extra, want, name in ((["--dscp", str(DSCP), "--ecn"], DSCP << 2 | 2, "--ecn: DSCP kept, ECT(0)"),
                              (["--dscp", str(DSCP)], DSCP << 2, "no --ecn: DSCP kept, Not-ECT")):
        rep, tos = tos_of_sends(tool, extra)
        check(tos == [want] * 3 and rep["ecn"] == ("--ecn" in extra), f"send {name}",
              f"TOS {[hex(t) for t in tos]}, want {hex(want)}; JSON ecn {rep['ecn']}")

    port = free_port()
    recv = subprocess.Popen([tool, "recv", "--port", str(port), "--idle-exit", "1", "--duration", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    recv.stderr.readline()  # "receiving on port N": bound
    send = [tool, "send", "--dst", "127.0.0.1", "--port", str(port), "--size", "100", "--dscp", str(DSCP)]
    subprocess.run(send + ["--flow", "1", "--count", "20", "--ecn"], check=True, capture_output=True)
    subprocess.run(send + ["--flow", "2", "--count", "10"], check=True, capture_output=True)
    # ECT(1) and CE straight from a socket, with ll-traffic's header.
    for flow, ecn, n in ((3, 1, 5), (4, 3, 7)):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, DSCP << 2 | ecn)
        for seq in range(n):
            s.sendto(struct.pack("=IIQQ", MAGIC, flow, seq, time.monotonic_ns()) + bytes(76),
                     ("127.0.0.1", port))
        s.close()
    res = json.loads(recv.communicate(timeout=30)[0])
    want = {"1": (20, 0, 20, 0, 0), "2": (10, 10, 0, 0, 0), "3": (5, 0, 0, 5, 0), "4": (7, 0, 0, 0, 7)}
    for flow, w in want.items():
        f = res["flows"].get(flow, {})
        got = tuple(f.get(k, -1) for k in ("received", "not_ect", "ect0", "ect1", "ce"))
        check(got == w, f"recv flow {flow}: (received, not_ect, ect0, ect1, ce)", f"got {got}, want {w}")
    return check.result("ll-traffic ECN")


if __name__ == "__main__":
    sys.exit(main())
