#!/usr/bin/env python3
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
"""Writes the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/.

The seeds are small files in the tree; this script is how they were made
(run it again after changing it: it rewrites every seed it knows and leaves
other files alone). Frames are built here by hand from the layouts in
kernel/core/pfc.h and ctrl.h, independently of the core's builder.
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

GROUP = bytes.fromhex("0180c2000001")
SRC = bytes.fromhex("02004c4c0001")
PORT = bytes.fromhex("02004c4c0002")   # a unicast port address
ZERO = bytes(6)                        # lo's address (BPF_PROG_TEST_RUN's device)


def pause(quanta, da=GROUP, pad=60):
    f = da + SRC + struct.pack(">HHH", 0x8808, 0x0001, quanta)
    return f + bytes(max(0, pad - len(f)))


def pfc(vector, times, da=GROUP, reserved=0, pad=60):
    t = list(times) + [0] * (8 - len(times))
    f = da + SRC + struct.pack(">HHBB8H", 0x8808, 0x0101, reserved, vector, *t)
    return f + bytes(max(0, pad - len(f)))


def tokens(mask, credits, link, lifetime, da=GROUP, reserved=0, op=0x0001, pad=60):
    """TOKENS (ctrl.h): 0x88B6, opcode, reserved octet, priority mask,
    credit[0..7], link credit, lifetime; credits in 64-octet units."""
    c = list(credits) + [0] * (8 - len(credits))
    f = da + SRC + struct.pack(">HHBB8HHH", 0x88B6, op, reserved, mask, *c,
                               link, lifetime)
    return f + bytes(max(0, pad - len(f)))


def cnp(rate=100000, flags=0x03, version=1, seq=1, sport=49152, dport=4791,
        proto=17, qp=0x000102, opcode=0x81, bth1=0, pkey=0xFFFF, becn=0x40,
        psn=0, zeros=b"\0\0\0", icrc=0, pad=32):
    """A CNP's UDP payload (cnp.h, pcn.md 3.3): BTH, PCN's 16 octets,
    ICRC."""
    bth = struct.pack(">BBHB", opcode, bth1, pkey, becn) + qp.to_bytes(3, "big") \
        + struct.pack(">I", psn)
    body = struct.pack(">IBBHHHB", rate, flags, version, seq, sport, dport, proto) + zeros
    p = bth + body + struct.pack(">I", icrc)
    return p[:pad] if pad < len(p) else p + bytes(pad - len(p))


def cnp_seeds():
    s = {
        "pcn-congested": cnp(),
        "pcn-increase": cnp(flags=0x02, rate=40000, seq=0xFFFF),
        "rate-1": cnp(rate=1, seq=0),
        "rate-max": cnp(rate=0xFFFFFFFF, proto=6, qp=0xFFFFFF),
        "dcqcn": cnp(rate=0, flags=0x01),
        "plain-roce": cnp(rate=0, flags=0, version=0, seq=0, sport=0, dport=0, proto=0),
        "icrc-set": cnp(icrc=0xDEADBEEF),
        "short-31": cnp(pad=31),
        "oversize-33": cnp(pad=33),
        "rc-send-only": cnp(opcode=0x04),
        "fecn": cnp(becn=0xC0),
        "no-becn": cnp(becn=0),
        "pkey": cnp(pkey=0x7FFF),
        "tver": cnp(bth1=1),
        "psn": cnp(psn=5),
        "version-2": cnp(version=2),
        "flags-reserved": cnp(flags=0x07),
        "zeros-set": cnp(zeros=b"\0\1\0"),
        "rate-0-valid": cnp(rate=0, flags=0x02),
        "rate-not-valid": cnp(flags=0x01),
        "plain-nonzero": cnp(rate=0, flags=0, version=0),
    }
    return {k + ".bin": v for k, v in s.items()}


def vlan(frame, pcp, tpid=0x8100, vid=10):
    return frame[:12] + struct.pack(">HH", tpid, (pcp << 13) | vid) + frame[12:]


def ipv4(dscp, da=PORT):
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, dscp << 2, 28, 0, 0, 64, 17, 0,
                     bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    udp = struct.pack(">HHHH", 1234, 5000, 8, 0)
    return da + SRC + struct.pack(">H", 0x0800) + ip + udp + bytes(18)


def ipv6(dscp, da=PORT):
    word = (6 << 28) | (dscp << 22)
    ip = struct.pack(">IHBB16s16s", word, 8, 17, 64, bytes(15) + b"\x01", bytes(15) + b"\x02")
    return da + SRC + struct.pack(">H", 0x86DD) + ip + struct.pack(">HHHH", 1, 2, 8, 0)


def arp():
    return b"\xff" * 6 + SRC + struct.pack(">H", 0x0806) + bytes(28) + bytes(18)


def portfc(mask, times, op=0x0002, da=GROUP, reserved=0, pad=60):
    """PORTFC_A/B/R (ctrl.h): 0x88B6, opcode 2/3/4, reserved octet, slot
    mask s6..s0, pause time[0..6] in quanta."""
    t = list(times) + [0] * (7 - len(times))
    f = da + SRC + struct.pack(">HHBB7H", 0x88B6, op, reserved, mask, *t)
    return f + bytes(max(0, pad - len(f)))


def frame_seeds(kind):
    if kind.startswith("portfc"):
        own = {"portfcA": 0x0002, "portfcB": 0x0003, "portfcR": 0x0004}[kind]
        s = {
            "pause-slot0": portfc(0x01, [0xFFFF], op=own),
            "resume-all": portfc(0x7F, [], op=own),
            "mixed": portfc(0x05, [100, 0, 200], op=own),
            "mask-bit7": portfc(0x80, [1, 2, 3, 4, 5, 6, 7], op=own),
            "masked-times-set": portfc(0x41, [1, 0x1234, 0x5678, 9, 9, 9, 2], op=own),
            "min-32": portfc(0x01, [5], pad=32, op=own),
            "short-31": portfc(0x01, [5], pad=32, op=own)[:31],
            "with-fcs-64": portfc(0x01, [5], op=own) + b"\xde\xad\xbe\xef",
            "oversize-65": portfc(0x01, [5], pad=65, op=own),
            "reserved-set": portfc(0x01, [5], reserved=1, op=own),
            "unicast-da": portfc(0x01, [5], da=PORT, op=own),
            "bad-opcode": portfc(0x01, [5], op=0x0005),
            "vlan-tagged": vlan(portfc(0x01, [5], op=own), 3),
        }
    elif kind == "pfc":
        s = {
            "xoff-prio3": pfc(0x08, [0, 0, 0, 0xFFFF]),
            "xon-all": pfc(0xFF, []),
            "mixed": pfc(0xA5, [1, 2, 3, 4, 5, 6, 7, 0xFFFF]),
            "disabled-times-set": pfc(0x01, [7, 0x1234, 0x5678, 9, 9, 9, 9, 9]),
            "min-34": pfc(0x08, [0, 0, 0, 100], pad=34),
            "short-33": pfc(0x08, [0, 0, 0, 100], pad=34)[:33],
            "with-fcs-64": pfc(0x08, [0, 0, 0, 100]) + b"\xde\xad\xbe\xef",
            "oversize-65": pfc(0x08, [0, 0, 0, 100], pad=65),
            "reserved-set": pfc(0x08, [0, 0, 0, 100], reserved=1),
            "unicast-da": pfc(0x08, [0, 0, 0, 100], da=PORT),
            "bad-da": pfc(0x08, [0, 0, 0, 100], da=bytes.fromhex("0180c2000002")),
            "vlan-tagged": vlan(pfc(0x08, [0, 0, 0, 100]), 3),
        }
    elif kind == "tokens":
        s = {
            "p3": tokens(0x08, [0, 0, 0, 0x0300], 0x0400, 16),
            "all-max": tokens(0xFF, [0xFFFF] * 8, 0xFFFF, 0xFFFF),
            "all-zero": tokens(0xFF, [], 0, 1),
            "metering-ends": tokens(0x00, [], 0, 0),
            "link-only": tokens(0x00, [], 7813, 100),
            "masked-credits-set": tokens(0x81, [1, 0x1234, 0x5678, 9, 9, 9, 9, 2], 500, 20),
            "min-38": tokens(0x08, [0, 0, 0, 100], 200, 10, pad=38),
            "short-37": tokens(0x08, [0, 0, 0, 100], 200, 10, pad=38)[:37],
            "with-fcs-64": tokens(0x08, [0, 0, 0, 100], 200, 10) + b"\xde\xad\xbe\xef",
            "oversize-65": tokens(0x08, [0, 0, 0, 100], 200, 10, pad=65),
            "reserved-set": tokens(0x08, [0, 0, 0, 100], 200, 10, reserved=1),
            "unicast-da": tokens(0x08, [0, 0, 0, 100], 200, 10, da=PORT),
            "bad-da": tokens(0x08, [0, 0, 0, 100], 200, 10, da=bytes.fromhex("0180c2000002")),
            "bad-opcode": tokens(0x08, [0, 0, 0, 100], 200, 10, op=0x00FF),
            "pfc-opcode": tokens(0x08, [0, 0, 0, 100], 200, 10, op=0x0101),
            "vlan-tagged": vlan(tokens(0x08, [0, 0, 0, 100], 200, 10), 3),
        }
    else:
        s = {
            "xoff": pause(0xFFFF),
            "xon": pause(0),
            "min-18": pause(7, pad=18),
            "short-17": pause(7, pad=18)[:17],
            "with-fcs-64": pause(300) + b"\xde\xad\xbe\xef",
            "oversize-100": pause(300, pad=100),
            "unicast-da": pause(300, da=PORT),
            "bad-da": pause(300, da=b"\xff" * 6),
            "bad-opcode": GROUP + SRC + struct.pack(">HHH", 0x8808, 0x0002, 1) + bytes(42),
            "no-opcode-15": pause(1)[:15],
            "vlan-tagged": vlan(pause(300), 0),
        }
    return {k + ".bin": v for k, v in s.items()}


def bpf_seeds():
    def cfg(mode=0, prio=0):
        return bytes([mode, prio])
    s = {
        "pfc": cfg() + pfc(0x08, [0, 0, 0, 0xFFFF]),
        "pfc-to-own-address": cfg() + pfc(0x08, [0, 0, 0, 5], da=ZERO),
        "pause": cfg() + pause(0xFFFF),
        "pause-short": cfg() + pause(1, pad=18)[:17],
        "pause-oversize": cfg() + pause(1, pad=200),
        "pfc-reserved": cfg() + pfc(0x01, [9], reserved=0x80),
        "pfc-unicast-other": cfg() + pfc(0x01, [9], da=PORT),
        "pfc-vlan": cfg() + vlan(pfc(0x08, [0, 0, 0, 1]), 3),
        "pfc-qinq": cfg() + vlan(vlan(pfc(0x08, [0, 0, 0, 1]), 3), 5, tpid=0x88A8),
        "tokens": cfg() + tokens(0x38, [0, 0, 0, 100, 200, 300], 500, 1000),
        "tokens-short": cfg() + tokens(0x08, [0, 0, 0, 100], 200, 10, pad=38)[:37],
        "tokens-version": cfg() + tokens(0x08, [0, 0, 0, 100], 200, 10, reserved=1),
        "tokens-vlan": cfg() + vlan(tokens(0x08, [0, 0, 0, 100], 200, 10), 3),
        "portfc-b": cfg() + portfc(0x05, [100, 0, 200], op=0x0003),
        "portfc-relayed": cfg() + portfc(0x02, [0, 0xFFFF], op=0x0004),
        "ipv4-ef": cfg() + ipv4(46),
        "ipv6-af31": cfg() + ipv6(26),
        "vlan-ipv4": cfg() + vlan(ipv4(10), 5),
        "qinq-ipv4": cfg() + vlan(vlan(ipv4(10), 2), 6, tpid=0x88A8),
        "vlan-short": cfg() + PORT + SRC + struct.pack(">HH", 0x8100, 0xA000),
        "arp": cfg() + arp(),
        "mode-dscp-vlan": cfg(2, 1) + vlan(ipv4(8), 7),
        "mode-pcp-ipv4": cfg(1, 9) + ipv4(46),
        "mode-unknown": cfg(200, 40) + ipv6(63),
    }
    return {k + ".bin": v for k, v in s.items()}


FULL_TOML = """\
[daemon]
pin-dir = "/sys/fs/bpf/lossless"
socket = "/run/lossless/losslessd.sock"
period = "1ms"
prometheus = "127.0.0.1:9464"

[[pool]]
name = "sw0"
buffer = "2mb"
lossless-prios = [3]
policy = "pfc-dt"
alpha = "1/8"
egress-alpha = "1"
reserved = "1518b"
xon-offset = "3036b"
sw-delay = "1ms"
ecn = { kmin = "30kb", kmax = "100kb", pmax = 0.2 }

[[port]]
dev = "swp1"
pool = "sw0"
rate = "10gbit"
cable-delay = "500ns"
mtu = 1500
queues = 8
headroom = "0b"
ingress = "pcp-dscp"
default-prio = 0
"""


def config_seeds():
    s = {
        "full": FULL_TOML,
        "minimal": '[[pool]]\nname = "sw0"\npolicy = "pfc-dt"\n\n[[port]]\ndev = "swp1"\npool = "sw0"\n',
        "two-pools": (
            '[daemon]\nperiod = "500us"\nprometheus = "[::1]:9464"\n\n'
            '[[pool]]\nname = "a"\npolicy = "pfc-dt"\nbuffer = 1048576\nlossless_prios = []\n\n'
            '[[pool]]\nname = "b.1"\npolicy = "pfc-dt"\nalpha = "3/16"\nsw-delay = "20us"\n\n'
            '[[port]]\ndev = "eth0"\npool = "a"\nrate = "auto"\ncable_length = "100m"\n\n'
            '[[port]]\ndev = "eth1"\npool = "b.1"\nrate = "25gbit"\nqueues = 64\n'
            'ingress = "dscp"\ndefault_prio = 7\n\n'
            '[[port]]\ndev = "eth2"\npool = "b.1"\nrate = 100000000\nmtu = 9000\n'),
        "errors": (
            'bogus = 1\n[daemon]\nsocket = "relative"\nperiod = "5s"\n\n'
            '[[pool]]\nname = "bad name"\npolicy = "pfc-dtt"\nbuffer = "2zb"\nalpah = "1/3"\n'
            'ecn = { kmin = "100kb", kmax = "30kb" }\n\n'
            '[[port]]\ndev = "a/b"\npool = "nope"\nrate = "10gbps"\nqueues = 0\n'
            'cable_delay = "1ns"\ncable_length = "1m"\n'),
        "syntax-error": '[[pool]\nname = "sw0"\n',
        # [host_cc] (a host without pools): PCN with every key, DCQCN with
        # a key of the other algorithm and values ll_cc's check refuses.
        "host-cc": (
            '[host_cc]\nalgo = "pcn"\nports = ["eth0", "eth1"]\nline_rate = "25gbit"\n'
            'roles = "np,rp"\ncnp_prio = 6\ncnp_dscp = 48\nmin_rate = "1mbit"\n'
            'horizon = "200us"\nperiod = "50us"\ntheta = "95%"\nw_min = "1/128"\n'
            'w_max = 0.5\nrp_idle = "1ms"\nnp_idle = 0\ngc_idle = "10s"\n'
            'pin_dir = "/sys/fs/bpf/lossless_cc"\ntop_flows = 10\n'),
        "host-cc-errors": (
            '[host_cc]\nalgo = "dcqcn"\nports = ["eth0", "eth0", "a/b"]\nline_rate = "1mbit"\n'
            'w_min = "1/2"\ng = "0"\nf = 99\nrai = "10gbps"\nmin_rate = "1gbit"\n'
            'cnp_interval = "1h"\nbyte_counter = "1zb"\n'),
    }
    return {k + ".toml": v.encode() for k, v in s.items()}


def request_seeds():
    s = {
        "status": '{"cmd":"status"}\n',
        "config": '{"cmd":"config"}\n',
        "reload": '{"cmd":"reload"}\n',
        "set": '{"cmd":"set","pool":"sw0","key":"alpha","value":"1/4"}\n',
        "set-unicode": '{"cmd":"set","pool":"sw\\u00e9","key":"sw-delay","value":"5ms","x":[1,{"y":null}]}\n',
        "scheme": '{"cmd":"scheme","pool":"sw0","args":["force","swp1","3","victim"]}\n',
        "scheme-bad-args": '{"cmd":"scheme","pool":"sw0","args":["force",3,null]}\n',
        "unknown": '{"cmd":"stop"}\n',
        "empty-object": '{}\n',
        "array": '[{"cmd":"status"}]\n',
        "number-cmd": '{"cmd":1}\n',
        "null-pool": '{"cmd":"set","pool":null}\n',
        "truncated": '{"cmd":"sta',
    }
    return {k + ".json": v.encode() for k, v in s.items()}


def main():
    sets = {
        "frame_pfc": frame_seeds("pfc"),
        "frame_pause": frame_seeds("pause"),
        "frame_tokens": frame_seeds("tokens"),
        "frame_portfcA": frame_seeds("portfcA"),
        "frame_portfcB": frame_seeds("portfcB"),
        "frame_portfcR": frame_seeds("portfcR"),
        "frame_cnp": cnp_seeds(),
        "bpf_ingress": bpf_seeds(),
        "config": config_seeds(),
        "request": request_seeds(),
    }
    for target, files in sets.items():
        d = os.path.join(CORPUS, target)
        os.makedirs(d, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{target}: {len(files)} seeds")


if __name__ == "__main__":
    main()
