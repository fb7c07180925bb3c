#!/usr/bin/python3
"""One ICMP echo to each of many destinations, for BCube's reachability.

usage: bcube_probe.py DST_IPV4 [DST_IPV4 ...]

Sends one echo request to every destination at once from a raw socket
(root), waits up to 3 s for the replies and prints one JSON object:
{"DST": TTL of its reply, or null if none came}. The reply's TTL counts the
relays on its way back: 64 for a neighbour, 63 through one relay server.
"""
import json
import os
import select
import socket
import struct
import sys
import time


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


def main():
    dsts = sys.argv[1:]
    ident = os.getpid() & 0xFFFF
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    for seq, dst in enumerate(dsts):
        payload = b"bcube-probe"
        hdr = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
        s.sendto(struct.pack("!BBHHH", 8, 0, checksum(hdr + payload), ident, seq) + payload,
                 (dst, 0))
    got = {d: None for d in dsts}
    deadline = time.monotonic() + 3.0
    while any(v is None for v in got.values()) and time.monotonic() < deadline:
        r, _, _ = select.select([s], [], [], max(0.0, deadline - time.monotonic()))
        if not r:
            break
        data, (src, _) = s.recvfrom(2048)
        ihl = (data[0] & 0x0F) * 4
        typ, _, _, rid, rseq = struct.unpack_from("!BBHHH", data, ihl)
        if typ == 0 and rid == ident and rseq < len(dsts) and dsts[rseq] == src:
            got[src] = data[8]
    print(json.dumps(got))


if __name__ == "__main__":
    main()
