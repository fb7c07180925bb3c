#!/usr/bin/python3
"""Cross-check our MAC control codec with scapy's (scapy.contrib.mac_control).

decode: frames built by ll_mac_ctrl_build (via ll_frames_gen) are read by
        scapy, every field is compared with the generator's intent, and
        scapy's own build of the same intent must equal our bytes exactly.
encode: frames built by scapy (valid ones of both kinds, and invalid ones:
        VLAN-tagged, wrong DA, other MAC control opcodes, reserved bits,
        wrong EtherType, truncated, oversize) are parsed by
        ll_mac_ctrl_parse (via ll_frames_parse, from a pcap and from hex
        on stdin); results and fields must match what scapy put in. With
        --tshark, Wireshark must decode the valid scapy frames the same way.
"""

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames_common as fc  # noqa: E402

try:
    from scapy.compat import raw
    from scapy.contrib.mac_control import (MACControlClassBasedFlowControl,
                                           MACControlGate, MACControlPause,
                                           MACControlRegisterReq,
                                           MACControlReport)
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
    from scapy.packet import Raw
    from scapy.utils import rdpcap, wrpcap
except ImportError as e:  # pragma: no cover
    print(f"scapy not available ({e}): skipped")
    sys.exit(fc.SKIP)


def scapy_pfc(vector, times):
    kw = {}
    for i in range(8):
        kw[f"c{i}_enabled"] = (vector >> i) & 1
        kw[f"c{i}_pause_time"] = times[i]
    return MACControlClassBasedFlowControl(**kw)


# ------------------------------------------------------------------ decode

def decode(args):
    pcap, intent = fc.generate(args.gen, args.workdir)
    chk = fc.Checker("scapy decodes ll_mac_ctrl_build frames")
    pkts = rdpcap(pcap)
    chk.eq("frame count", len(pkts), len(intent))
    for want, pkt in zip(intent, pkts):
        where = f"frame {want['index']} ({want['name']})"
        chk.eq(f"{where} length", len(pkt), want["length"])
        chk.eq(f"{where} hex", raw(pkt).hex(), want["hex"])
        chk.true(where, Ether in pkt, "not Ethernet")
        chk.eq(f"{where} src", pkt[Ether].src, want["src"])
        chk.eq(f"{where} type", pkt[Ether].type, 0x8808)
        if want["kind"] == "pfc":
            if MACControlClassBasedFlowControl not in pkt:
                chk.true(where, False, "not decoded as class based flow control")
                continue
            m = pkt[MACControlClassBasedFlowControl]
            chk.eq(f"{where} opcode", m._op_code, 0x0101)
            vector = sum(getattr(m, f"c{i}_enabled") << i for i in range(8))
            times = [getattr(m, f"c{i}_pause_time") for i in range(8)]
            chk.eq(f"{where} times", times, want["times"])
            if want["valid"]:
                chk.eq(f"{where} dst", pkt[Ether].dst, fc.MAC_CTRL_DA)
                chk.eq(f"{where} reserved", m._reserved, 0)
                chk.eq(f"{where} vector", vector, want["enable_vector"])
            elif want["name"] == "neg_reserved_set":
                chk.eq(f"{where} reserved", m._reserved, 1)
            # scapy builds the same intent to the same bytes.
            if want["valid"]:
                mine = Ether(dst=fc.MAC_CTRL_DA, src=want["src"]) / \
                    scapy_pfc(want["enable_vector"], want["times"])
                chk.eq(f"{where} scapy-built bytes", raw(mine).hex(),
                       want["hex"])
        else:
            if MACControlPause not in pkt:
                chk.true(where, False, "not decoded as PAUSE")
                continue
            m = pkt[MACControlPause]
            chk.eq(f"{where} dst", pkt[Ether].dst, fc.MAC_CTRL_DA)
            chk.eq(f"{where} opcode", m._op_code, 0x0001)
            chk.eq(f"{where} pause_time", m.pause_time, want["pause_time"])
            mine = Ether(dst=fc.MAC_CTRL_DA, src=want["src"]) / \
                MACControlPause(pause_time=want["pause_time"])
            chk.eq(f"{where} scapy-built bytes", raw(mine).hex(), want["hex"])
        if want["name"] == "neg_bad_da":
            chk.eq(f"{where} dst", pkt[Ether].dst, "01:80:c2:00:00:02")
    return chk.finish()


# ------------------------------------------------------------------ encode

SRC = "02:5c:a9:00:00:01"
LLDP_DA = "01:80:c2:00:00:0e"


def ok_pfc(vector, times, src=SRC):
    return {"result": "ok", "kind": "pfc", "src": src,
            "enable_vector": vector, "quanta": list(times)}


def ok_pause(t, src=SRC):
    return {"result": "ok", "kind": "pause", "src": src,
            "enable_vector": 0, "quanta": [t] + [0] * 7}


def scapy_cases():
    """(name, frame bytes, expected parse) built with scapy."""
    e = Ether(dst=fc.MAC_CTRL_DA, src=SRC)
    cases = []

    def add(name, pkt, want, tshark_too=None):
        data = raw(pkt) if not isinstance(pkt, bytes) else pkt
        cases.append({"name": name, "bytes": data, "want": want,
                      "tshark": tshark_too})

    pfc_sets = [
        (0x88, [0, 0, 0, 0x1234, 0, 0, 0, 0xFFFF]),
        (0xFF, [0xFFFF] * 8),
        (0xFF, [1, 2, 3, 4, 5, 6, 7, 8]),
        (0x80, [0, 0, 0, 0, 0, 0, 0, 1]),
        (0x01, [0] * 8),
        (0x00, [0] * 8),
        (0x5A, [0, 0x100, 0, 0x300, 0x400, 0, 0x600, 0]),
    ]
    for p in range(8):
        t = [0] * 8
        t[p] = 0x0101 * (p + 1)
        pfc_sets.append((1 << p, t))
    for n, (v, t) in enumerate(pfc_sets):
        add(f"pfc_{n}_v{v:02x}", e / scapy_pfc(v, t), ok_pfc(v, t),
            tshark_too=("pfc", v, t))
    # A time in a disabled class: parse reports the wire value.
    add("pfc_disabled_class_time", e / scapy_pfc(0x01, [7, 100, 0, 0, 0, 0, 0, 0]),
        ok_pfc(0x01, [7, 100, 0, 0, 0, 0, 0, 0]))
    for t in (0, 1, 0x1234, 0xFFFF):
        add(f"pause_{t:04x}", e / MACControlPause(pause_time=t), ok_pause(t),
            tshark_too=("pause", t))

    pfc = raw(e / scapy_pfc(0x88, [0, 0, 0, 9, 0, 0, 0, 10]))
    pause = raw(e / MACControlPause(pause_time=42))
    add("pfc_unpadded_34", pfc[:34], ok_pfc(0x88, [0, 0, 0, 9, 0, 0, 0, 10]))
    add("pause_unpadded_18", pause[:18], ok_pause(42))
    add("pfc_with_fcs_64", pfc + bytes.fromhex("deadbeef"),
        ok_pfc(0x88, [0, 0, 0, 9, 0, 0, 0, 10]))
    add("pause_with_fcs_64", pause + bytes.fromhex("deadbeef"), ok_pause(42))

    # Rejections.
    add("pfc_truncated_33", pfc[:33], {"result": "truncated"})
    add("pause_truncated_17", pause[:17], {"result": "truncated"})
    add("pause_truncated_15", pause[:15], {"result": "truncated"})
    add("header_truncated_13", pause[:13], {"result": "truncated"})
    add("pfc_oversize_65",
        e / scapy_pfc(0x01, [1] + [0] * 7) / Raw(b"\x00" * 31),
        {"result": "oversize"})
    add("pfc_vlan_tagged",
        Ether(dst=fc.MAC_CTRL_DA, src=SRC) / Dot1Q(vlan=5, prio=3) /
        scapy_pfc(0x08, [0, 0, 0, 9, 0, 0, 0, 0]),
        {"result": "not-mac-control"})
    add("pause_qinq_tagged",
        Ether(dst=fc.MAC_CTRL_DA, src=SRC) / Dot1AD(vlan=7) /
        Dot1Q(vlan=5) / MACControlPause(pause_time=1),
        {"result": "not-mac-control"})
    add("pfc_lldp_da", Ether(dst=LLDP_DA, src=SRC) / scapy_pfc(0x01, [1] + [0] * 7),
        {"result": "bad-destination"})
    add("pause_unicast_da", Ether(dst="02:00:00:00:00:99", src=SRC) /
        MACControlPause(pause_time=1), {"result": "bad-destination"})
    # scapy's default Ether dst for these is broadcast, not 01-80-C2-00-00-01.
    add("pause_broadcast_da", Ether(src=SRC, dst="ff:ff:ff:ff:ff:ff") /
        MACControlPause(pause_time=1), {"result": "bad-destination"})
    add("mpcp_gate_0002", e / MACControlGate(timestamp=1),
        {"result": "unknown-opcode"})
    add("mpcp_report_0003", e / MACControlReport(timestamp=1),
        {"result": "unknown-opcode"})
    add("mpcp_register_req_0004", e / MACControlRegisterReq(timestamp=1),
        {"result": "unknown-opcode"})
    add("pfc_reserved_set", e / MACControlClassBasedFlowControl(
        _reserved=0x01, c0_enabled=1, c0_pause_time=1),
        {"result": "reserved-bits-set"})
    add("pfc_reserved_ff", e / MACControlClassBasedFlowControl(
        _reserved=0xFF, c7_enabled=1, c7_pause_time=1),
        {"result": "reserved-bits-set"})
    add("ipv4_udp", Ether(dst=fc.MAC_CTRL_DA, src=SRC) / IP() / UDP(),
        {"result": "not-mac-control"})
    return cases


def tshark_check_scapy(chk, tshark, pcap, cases):
    """Wireshark agrees with scapy on the valid scapy frames."""
    import check_tshark as ct
    rows = fc.tshark_fields(tshark, pcap, ct.FIELDS)
    chk.eq("tshark frame count", len(rows), len(cases))
    for c, row in zip(cases, rows):
        t = c["tshark"]
        if t is None:
            continue
        where = f"tshark on scapy frame {c['name']}"
        chk.eq(f"{where} expert", row["_ws.expert.message"], "")
        if t[0] == "pfc":
            chk.eq(f"{where} opcode", row["macc.opcode"], "0x0101")
            chk.eq(f"{where} enbv", fc.hexint(row["macc.cbfc.enbv"]), t[1])
            chk.eq(f"{where} times",
                   [row[f"macc.cbfc.pause_time.c{i}"] for i in range(8)],
                   [str(x) for x in t[2]])
        else:
            chk.eq(f"{where} opcode", row["macc.opcode"], "0x0001")
            chk.eq(f"{where} pause_time", row["macc.pause_time"], str(t[1]))


def encode(args):
    os.makedirs(args.workdir, exist_ok=True)
    cases = scapy_cases()
    chk = fc.Checker("ll_mac_ctrl_parse decodes scapy-built frames")
    pcap = os.path.join(args.workdir, "scapy.pcap")
    # Raw bytes (some are too short to dissect), LINKTYPE_ETHERNET.
    wrpcap(pcap, [c["bytes"] for c in cases], linktype=1)
    hex_path = os.path.join(args.workdir, "scapy.hex")
    with open(hex_path, "w") as f:
        for c in cases:
            f.write(c["bytes"].hex() + "\n")

    for c in cases:
        if c["want"]["result"] == "ok" and len(c["bytes"]) >= 60:
            chk.true(c["name"], len(c["bytes"]) in (60, 64),
                     f"scapy frame is {len(c['bytes'])} octets")

    by_pcap = fc.parse_with_ours(args.parse, pcap=pcap)
    by_hex = fc.parse_with_ours(args.parse,
                                hex_lines=[c["bytes"].hex() for c in cases])
    for source, parsed in (("pcap", by_pcap), ("hex", by_hex)):
        chk.eq(f"{source} frame count", len(parsed), len(cases))
        for i, (c, got) in enumerate(zip(cases, parsed)):
            where = f"{source} frame {i} ({c['name']})"
            chk.eq(f"{where} length", got.get("length"), len(c["bytes"]))
            fc.compare_parse(chk, where, got, c["want"])

    if args.tshark:
        tshark = shutil.which(args.tshark)
        if tshark:
            tshark_check_scapy(chk, tshark, pcap, cases)
        else:
            print("tshark not found: three-way check skipped")
    return chk.finish()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["decode", "encode"])
    ap.add_argument("--gen")
    ap.add_argument("--parse", required=True)
    ap.add_argument("--tshark")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()
    if args.mode == "decode":
        if not args.gen:
            ap.error("decode needs --gen")
        return decode(args)
    return encode(args)


if __name__ == "__main__":
    sys.exit(main())
