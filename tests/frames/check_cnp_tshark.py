#!/usr/bin/python3
"""tshark decodes the core's CNPs as RoCE CNPs, and our Lua dissector
shows their PCN fields.

CNPs of PCN and DCQCN (kernel/core/cnp.h, pcn.md 3.3) built by the core's
ll_cnp_frame_build (via ll_cnp_gen) are written to a pcap and decoded by
tshark. Wireshark's own dissectors must see IPv4 with DSCP and ECN 11
(congested) or 00 (not), UDP to 4791, and an InfiniBand BTH with opcode
0x81 (129), P_Key 0xFFFF, the BECN bit (octet 4 = 0x40; Wireshark 4.0
shows it as the BTH's reserved octet), the DestQP and PSN 0. With the
tree's Lua dissector (tools/wireshark/lossless.lua, -X lua_script:) every
PCN field (lossless.cnp.*) must be what the generator intended.

The frames' bytes are also compared with the layout written out here by
hand (struct), independently of both the core and the dissectors. The
negative controls (version 2, a reserved flag bit, a reserved octet set,
RecRate 0 with rate_valid, IP ECN bleached to 00 while congested) must
each raise their own expert field, no valid frame may raise any, and the
core's ll_cnp_parse must refuse each payload for the reason the generator
wrote down by hand (the bleached one is a valid payload: only the IP
header disagrees).
"""

import argparse
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames_common as fc  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LUA = os.path.join(ROOT, "tools", "wireshark", "lossless.lua")

CNP_PORT = 4791
FRAME_BYTES = 74          # 14 + 20 + 8 + 32 (pcn.md 3.2)
DST_MAC = "02:00:5e:30:00:01"

IB = ["infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m",
      "infiniband.bth.padcnt", "infiniband.bth.tver", "infiniband.bth.p_key",
      "infiniband.reserved", "infiniband.bth.destqp", "infiniband.bth.a",
      "infiniband.bth.psn"]
CNP = ["lossless.cnp.opcode", "lossless.cnp.fecn", "lossless.cnp.becn",
       "lossless.cnp.dest_qp", "lossless.cnp.rec_rate_mbps",
       "lossless.cnp.flags", "lossless.cnp.congested",
       "lossless.cnp.rate_valid", "lossless.cnp.version", "lossless.cnp.seq",
       "lossless.cnp.sport", "lossless.cnp.dport", "lossless.cnp.proto",
       "lossless.cnp.reserved", "lossless.cnp.icrc", "lossless.cnp.ip_ecn"]
FIELDS = (["frame.len", "frame.protocols", "eth.dst", "ip.src", "ip.dst",
           "ip.dsfield.dscp", "ip.dsfield.ecn", "ip.len", "ip.proto",
           "udp.srcport", "udp.dstport", "udp.length"]
          + IB + CNP + ["_ws.malformed", "_ws.expert.message"])

# The expert field each negative control must raise.
NEG_EXPERT = {
    "neg_version_2": "lossless.cnp.version_unknown",
    "neg_flags_reserved": "lossless.cnp.reserved_not_zero",
    "neg_zeros_set": "lossless.cnp.reserved_not_zero",
    "neg_rate_0_valid": "lossless.cnp.rate_invalid",
    "neg_ecn_bleached": "lossless.cnp.ecn_mismatch",
}


def lua_args(lua):
    return ["-X", f"lua_script:{lua}"]


def ip4(text):
    return bytes(int(x) for x in text.split("."))


def wire_bytes(w):
    """The frame by cnp.h's layout and 3.3's IPv4/UDP, written here by hand."""
    flags = (1 if w["congested"] else 0) | (2 if w["rate_valid"] else 0)
    bth = struct.pack(">BBHB", 0x81, 0, 0xFFFF, 0x40) \
        + w["dest_qp"].to_bytes(3, "big") + bytes(4)
    if w["version"] == 0:
        body = bytes(16)
    else:
        body = struct.pack(">IBBHHHB3x", w["rec_rate_mbps"], flags, 1,
                           w["seq"], w["sport"], w["dport"], w["proto"])
    payload = bth + body + bytes(4)
    udp = struct.pack(">HHHH", w["udp_sport"], CNP_PORT, 8 + len(payload), 0)
    tos = (w["dscp"] << 2) | (3 if w["congested"] else 0)
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, tos, 20 + len(udp) + len(payload),
                      0, 0x4000, 64, 17, 0, ip4(w["src_ip"]), ip4(w["dst_ip"]))
    s = sum(struct.unpack(">10H", hdr))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    hdr = hdr[:10] + struct.pack(">H", ~s & 0xFFFF) + hdr[12:]
    eth = bytes.fromhex(DST_MAC.replace(":", "")) \
        + bytes.fromhex("02005e3001") + bytes([w["index"]]) + b"\x08\x00"
    return eth + hdr + udp + payload


def check_roce(chk, where, row, w, ecn):
    """What Wireshark's own dissectors must show: IPv4, UDP, RoCE CNP."""
    chk.eq(f"{where} frame.len", row["frame.len"], str(FRAME_BYTES))
    chk.eq(f"{where} protocols", row["frame.protocols"],
           "eth:ethertype:ip:udp:infiniband")
    chk.eq(f"{where} eth.dst", row["eth.dst"], DST_MAC)
    chk.eq(f"{where} ip.src", row["ip.src"], w["src_ip"])
    chk.eq(f"{where} ip.dst", row["ip.dst"], w["dst_ip"])
    chk.eq(f"{where} ip.dsfield.dscp", row["ip.dsfield.dscp"], str(w["dscp"]))
    chk.eq(f"{where} ip.dsfield.ecn", row["ip.dsfield.ecn"], str(ecn))
    chk.eq(f"{where} ip.len", row["ip.len"], "60")
    chk.eq(f"{where} ip.proto", row["ip.proto"], "17")
    chk.eq(f"{where} udp.srcport", row["udp.srcport"], str(w["udp_sport"]))
    chk.eq(f"{where} udp.dstport", row["udp.dstport"], str(CNP_PORT))
    chk.eq(f"{where} udp.length", row["udp.length"], "40")
    chk.eq(f"{where} bth.opcode (CNP)", row["infiniband.bth.opcode"], "129")
    for name in ("se", "m", "a"):
        chk.eq(f"{where} bth.{name}", row[f"infiniband.bth.{name}"], "0")
    chk.eq(f"{where} bth.padcnt", row["infiniband.bth.padcnt"], "0")
    chk.eq(f"{where} bth.tver", row["infiniband.bth.tver"], "0")
    chk.eq(f"{where} bth.p_key", row["infiniband.bth.p_key"], "65535")
    chk.eq(f"{where} bth octet 4 (BECN)", row["infiniband.reserved"], "40")
    chk.eq(f"{where} bth.destqp", fc.hexint(row["infiniband.bth.destqp"]),
           w["dest_qp"])
    chk.eq(f"{where} bth.psn", row["infiniband.bth.psn"], "0")


def check_pcn(chk, where, row, w):
    """What lossless.lua must show: every PCN field of the intent."""
    plain = w["version"] == 0
    flags = 0 if plain else (w["congested"] | (w["rate_valid"] << 1))
    want = {
        "lossless.cnp.opcode": "0x81",
        "lossless.cnp.fecn": "0",
        "lossless.cnp.becn": "1",
        "lossless.cnp.dest_qp": f"0x{w['dest_qp']:06x}",
        "lossless.cnp.rec_rate_mbps": str(0 if plain else w["rec_rate_mbps"]),
        "lossless.cnp.flags": f"0x{flags:02x}",
        "lossless.cnp.congested": str(flags & 1),
        "lossless.cnp.rate_valid": str(flags >> 1),
        "lossless.cnp.version": str(w["version"]),
        "lossless.cnp.seq": str(0 if plain else w["seq"]),
        "lossless.cnp.sport": str(0 if plain else w["sport"]),
        "lossless.cnp.dport": str(0 if plain else w["dport"]),
        "lossless.cnp.proto": str(0 if plain else w["proto"]),
        "lossless.cnp.reserved": "000000",
        "lossless.cnp.icrc": "0x00000000",
        "lossless.cnp.ip_ecn": str(w["ecn"]),
    }
    for k, v in want.items():
        chk.eq(f"{where} {k}", row[k], v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--lua", default=LUA,
                    help="the dissector (default: tools/wireshark/lossless.lua)")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    tshark = shutil.which(args.tshark)
    if not tshark:
        print("tshark not found: skipped")
        return fc.SKIP
    if not os.path.isfile(args.lua):
        raise SystemExit(f"no dissector at {args.lua}")

    pcap, intent = fc.generate(args.gen, args.workdir, stem="cnp")
    chk = fc.Checker("tshark decodes ll_cnp_frame_build CNPs as RoCE CNPs "
                     "(and lossless.lua their PCN fields)")
    valid = [w for w in intent if w["valid"]]
    chk.eq("negative controls", sorted(w["name"] for w in intent
                                       if not w["valid"]), sorted(NEG_EXPERT))
    chk.true("congested and not, PCN, DCQCN and plain among the valid CNPs",
             {(w["congested"], w["rate_valid"], w["version"]) for w in valid}
             >= {(1, 1, 1), (0, 1, 1), (1, 0, 1), (0, 0, 0)})
    chk.true("RecRate 1 and 2^32 - 1 among them",
             {1, 0xFFFFFFFF} <= {w["rec_rate_mbps"] for w in valid})

    # Wireshark's dissectors alone (no Lua), then with ours: ours must not
    # change what RoCE shows.
    plain_rows = fc.tshark_fields(tshark, pcap, ["frame.protocols"] + IB)
    rows = fc.tshark_fields(tshark, pcap, FIELDS, lua_args(args.lua))
    chk.eq("frame count", len(rows), len(intent))
    chk.eq("frame count without lua", len(plain_rows), len(intent))

    for w, row, prow in zip(intent, rows, plain_rows):
        where = f"frame {w['index']} ({w['name']})"
        for k in prow:
            chk.eq(f"{where} {k} without lua", prow[k], row[k])
        chk.eq(f"{where} ll_cnp_parse", w["parsed"], w["reject"])
        if w["valid"]:
            chk.eq(f"{where} ll_cnp_parse of a valid CNP", w["parsed"], "ok")
            chk.eq(f"{where} IP ECN by 3.3", w["ecn"],
                   3 if w["congested"] else 0)
            check_roce(chk, where, row, w, w["ecn"])
            check_pcn(chk, where, row, w)
            chk.eq(f"{where} _ws.malformed", row["_ws.malformed"], "")
            chk.eq(f"{where} expert info", row["_ws.expert.message"], "")
            chk.eq(f"{where} bytes by hand", w["hex"], wire_bytes(w).hex())
        else:
            check_roce(chk, where, row, w, w["ecn"])
            chk.true(where, row["_ws.expert.message"] != "",
                     f"negative control ({w['corruption']}) not flagged")

    def match(display_filter):
        return fc.tshark_matching(tshark, pcap, display_filter, lua_args(args.lua))

    number = {w["name"]: w["index"] + 1 for w in intent}
    chk.eq("frames with expert info", match("_ws.expert || _ws.malformed"),
           sorted(w["index"] + 1 for w in intent if not w["valid"]))
    for field in sorted(set(NEG_EXPERT.values())):
        chk.eq(f"frames with {field}", match(field),
               sorted(number[n] for n, f in NEG_EXPERT.items() if f == field))
    # Display filters on the fields select what the intent says.
    chk.eq("RoCE CNPs (infiniband.bth.opcode == 0x81)",
           match("infiniband.bth.opcode == 0x81"),
           [w["index"] + 1 for w in intent])
    chk.eq("congested CNPs", match("lossless.cnp.congested == 1 && !_ws.expert"),
           sorted(w["index"] + 1 for w in valid if w["congested"]))
    chk.eq("CNPs with a rate", match("lossless.cnp.rate_valid == 1 && !_ws.expert"),
           sorted(w["index"] + 1 for w in valid if w["rate_valid"]))
    chk.eq("CE CNPs", match("ip.dsfield.ecn == 3"),
           sorted(w["index"] + 1 for w in intent if w["ecn"] == 3))
    chk.eq("RecRate 2^32 - 1", match("lossless.cnp.rec_rate_mbps == 4294967295"),
           sorted(w["index"] + 1 for w in valid if w["rec_rate_mbps"] == 0xFFFFFFFF))
    chk.eq("plain RoCEv2 CNPs", match("lossless.cnp.version == 0"),
           sorted(w["index"] + 1 for w in valid if w["version"] == 0))
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
