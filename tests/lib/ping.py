#!/usr/bin/python3
"""ICMP echo round-trip times, for the VM tests (the machines have no ping).

usage: ping.py DST_IPV4 [COUNT [INTERVAL_S]]

Sends COUNT echo requests (default 10) INTERVAL_S apart (default 0.05) from
a raw socket (root) and prints one JSON object: {"rtt_ms": [...], "lost": N}.
A round trip runs from just before sendto() to the kernel's receive
timestamp of the reply (SO_TIMESTAMPNS), so Python's own slowness on the
receive side does not count; on the send side it can only add to it.
"""
import json
import os
import select
import socket
import struct
import sys
import time

# Not in Python's socket module: SO_TIMESTAMPNS (struct timespec) on x86-64.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)

def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def main():
    dst = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.05
    ident = os.getpid() & 0xFFFF
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    rtts, lost = [], 0
    for seq in range(count):
        payload = b"lossless-ping-" + bytes(42)
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        pkt = struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq) + payload
        sent = time.time_ns()  # CLOCK_REALTIME, like SO_TIMESTAMPNS
        s.sendto(pkt, (dst, 0))
        deadline = time.monotonic() + 2.0
        got = None
        while got is None and time.monotonic() < deadline:
            r, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
            if not r:
                break
            data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(16))
            ihl = (data[0] & 0x0F) * 4
            typ, _, _, rid, rseq = struct.unpack_from("!BBHHH", data, ihl)
            if typ != 0 or rid != ident or rseq != seq:
                continue
            at = time.time_ns()
            for level, kind, val in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("=qq", val[:16])
                    at = sec * 1_000_000_000 + nsec
            got = (at - sent) / 1e6
        if got is None:
            lost += 1
        else:
            rtts.append(round(got, 3))
        time.sleep(interval)
    print(json.dumps({"rtt_ms": rtts, "lost": lost}))


if __name__ == "__main__":
    main()
