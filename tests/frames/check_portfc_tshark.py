#!/usr/bin/python3
"""Our Wireshark dissector decodes the core's PortFC frames as intended.

PORTFC_A, PORTFC_B and PORTFC_R frames (EtherType 0x88B6, opcodes 2, 3, 4:
docs/PORTFC.md, kernel/core/ctrl.h) built by ll_ctrl_build (via
ll_frames_gen --portfc) are written to a pcap and decoded by tshark with
the tree's Lua dissector (tools/wireshark/lossless.lua). Every field is
compared with the intent the generator recorded: opcode, class, relayed,
reserved octet, slot mask and its bits, the seven pause times (0 outside
the mask, whatever the builder was given). The builder's bytes are also
compared with the layout written out here by hand (struct).

The negative controls (reserved octet set, cut to 31 octets, a group DA
other than 01-80-C2-00-00-01) must be flagged by the dissector's expert
info, and no valid frame may carry any. Our parser (ll_frames_parse)
reads the valid frames back to the intent and rejects each negative
control as the generator says it deserves.
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
ETHERTYPE = 0x88B6
OPCODES = {"portfcA": 2, "portfcB": 3, "portfcR": 4}
SLOTS = 7

FIELDS = (["frame.len", "frame.protocols", "eth.dst", "eth.src", "eth.type",
           "lossless.opcode", "lossless.portfc.class", "lossless.portfc.relayed",
           "lossless.portfc.reserved", "lossless.portfc.mask"]
          + [f"lossless.portfc.mask.s{i}" for i in range(SLOTS)]
          + [f"lossless.portfc.time.t{i}" for i in range(SLOTS)]
          + ["_ws.malformed", "_ws.expert.message"])

NEG_EXPERT = {
    "neg_reserved_set": "lossless.portfc.reserved_not_zero",
    "neg_truncated_31": "lossless.portfc.too_short",
    "neg_bad_da": "lossless.dst_invalid",
}


def lua_args(lua):
    return ["-X", f"lua_script:{lua}"]


def wire_bytes(want):
    """The frame by ctrl.h's layout, written here by hand."""
    f = (bytes.fromhex(want["dst"].replace(":", ""))
         + bytes.fromhex(want["src"].replace(":", ""))
         + struct.pack(">HHBB7H", ETHERTYPE, OPCODES[want["kind"]], 0, want["mask"],
                       *want["times"]))
    return f + bytes(60 - len(f))


def check_valid(chk, where, row, want):
    chk.eq(f"{where} frame.len", row["frame.len"], str(want["length"]))
    chk.eq(f"{where} protocols", row["frame.protocols"], "eth:ethertype:lossless")
    chk.eq(f"{where} eth.dst", row["eth.dst"], want["dst"])
    chk.eq(f"{where} eth.type", fc.hexint(row["eth.type"]), ETHERTYPE)
    chk.eq(f"{where} opcode", fc.hexint(row["lossless.opcode"]), OPCODES[want["kind"]])
    chk.eq(f"{where} opcode as generated", want["opcode"], OPCODES[want["kind"]])
    chk.eq(f"{where} class", row["lossless.portfc.class"],
           "A" if want["kind"] == "portfcA" else "B")
    chk.eq(f"{where} relayed", row["lossless.portfc.relayed"],
           "1" if want["kind"] == "portfcR" else "0")
    chk.eq(f"{where} reserved", fc.hexint(row["lossless.portfc.reserved"]), 0)
    chk.eq(f"{where} mask", fc.hexint(row["lossless.portfc.mask"]), want["mask"])
    for i in range(SLOTS):
        chk.eq(f"{where} mask.s{i}", row[f"lossless.portfc.mask.s{i}"],
               str((want["mask"] >> i) & 1))
        chk.eq(f"{where} time.t{i}", row[f"lossless.portfc.time.t{i}"], str(want["times"][i]))
    chk.eq(f"{where} _ws.malformed", row["_ws.malformed"], "")
    chk.eq(f"{where} expert info", row["_ws.expert.message"], "")
    chk.eq(f"{where} bytes by hand", want["hex"], wire_bytes(want).hex())


def expected_parse(want):
    if not want["valid"]:
        return {"result": want["reject"]}
    return {"result": "ok", "kind": want["kind"], "src": want["src"],
            "gate_mask": want["mask"], "quanta": want["times"] + [0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--parse", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--lua", default=LUA)
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    tshark = shutil.which(args.tshark)
    if not tshark:
        print("tshark not found: skipped")
        return fc.SKIP
    pcap, intent = fc.generate(args.gen, args.workdir, stem="portfc", flags=["--portfc"])
    chk = fc.Checker("tshark (lossless.lua) decodes ll_ctrl_build PortFC frames")
    chk.eq("every kind among the valid frames",
           sorted({w["kind"] for w in intent if w["valid"]}), sorted(OPCODES))
    chk.eq("negative controls", sorted(w["name"] for w in intent if not w["valid"]),
           sorted(NEG_EXPERT))
    rows = fc.tshark_fields(tshark, pcap, FIELDS, lua_args(args.lua))
    chk.eq("frame count", len(rows), len(intent))
    for want, row in zip(intent, rows):
        where = f"frame {want['index']} ({want['name']})"
        if want["valid"]:
            check_valid(chk, where, row, want)
        else:
            chk.true(where, row["_ws.expert.message"] != "",
                     f"negative control ({want['corruption']}) not flagged")

    def match(display_filter):
        return fc.tshark_matching(tshark, pcap, display_filter, lua_args(args.lua))

    number = {w["name"]: w["index"] + 1 for w in intent}
    chk.eq("frames with expert info", match("_ws.expert || _ws.malformed"),
           sorted(w["index"] + 1 for w in intent if not w["valid"]))
    for name, field in sorted(NEG_EXPERT.items()):
        chk.eq(f"frames with {field}", match(field), [number[name]])
    valid = [w for w in intent if w["valid"]]
    chk.eq("relayed frames", match("lossless.portfc.relayed == 1 && !_ws.expert"),
           sorted(w["index"] + 1 for w in valid if w["kind"] == "portfcR"))
    chk.eq("frames resuming slot 0",
           match("lossless.portfc.mask.s0 == 1 && lossless.portfc.time.t0 == 0 && !_ws.expert"),
           sorted(w["index"] + 1 for w in valid if w["mask"] & 1 and w["times"][0] == 0))

    port = intent[0]["port_addr"]
    parsed = fc.parse_with_ours(args.parse, pcap=pcap, port_addr=port)
    chk.eq("parsed frame count", len(parsed), len(intent))
    for want, got in zip(intent, parsed):
        fc.compare_parse(chk, f"ll_ctrl_parse frame {want['index']} ({want['name']})", got,
                         expected_parse(want))
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
