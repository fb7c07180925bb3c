#!/usr/bin/python3
"""Our Wireshark dissector decodes the core's TOKENS frames as intended.

TOKENS frames (EtherType 0x88B6, opcode 0x0001: BifrostX's feedback
frame, kernel/core/ctrl.h) built by ll_ctrl_build (via ll_frames_gen
--tokens) are written to a pcap and decoded by tshark with the tree's Lua
dissector (tools/wireshark/lossless.lua, loaded with -X lua_script:).
Every field is compared with the intent the generator recorded: opcode,
reserved octet, priority mask and its bits, credit[0..7] in units and
octets, the link credit in units and octets, the lifetime.

The builder's bytes are also compared with the layout written out here
by hand (struct), independently of both the core and the dissector.

The negative controls (reserved octet set, truncated to 37 octets, unknown
opcode, a group DA other than 01-80-C2-00-00-01) must be flagged by the
dissector's expert info, each for its own reason, and no valid frame may
carry any expert info. Our own parser (ll_frames_parse, given the
receiving port's address) must read the valid frames back to the intent,
the unicast one included, and reject each negative control as the
generator says it deserves.
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

CREDIT_UNIT = 64
ETHERTYPE = 0x88B6
OP_TOKENS = 0x0001
MIN_BYTES = 38

FIELDS = (["frame.len", "frame.protocols", "eth.dst", "eth.src", "eth.type",
           "lossless.opcode", "lossless.tokens.reserved",
           "lossless.tokens.mask"]
          + [f"lossless.tokens.mask.p{i}" for i in range(8)]
          + [f"lossless.tokens.credit.c{i}" for i in range(8)]
          + [f"lossless.tokens.credit.c{i}.bytes" for i in range(8)]
          + ["lossless.tokens.link_credit", "lossless.tokens.link_credit.bytes",
             "lossless.tokens.lifetime",
             "_ws.malformed", "_ws.expert.message"])

# The expert field each negative control must raise.
NEG_EXPERT = {
    "neg_reserved_set": "lossless.tokens.reserved_not_zero",
    "neg_truncated_37": "lossless.tokens.too_short",
    "neg_unknown_opcode": "lossless.opcode.unknown",
    "neg_bad_da": "lossless.dst_invalid",
}


def lua_args(lua):
    return ["-X", f"lua_script:{lua}"]


def wire_bytes(want):
    """The frame by ctrl.h's layout, written here by hand."""
    f = (bytes.fromhex(want["dst"].replace(":", ""))
         + bytes.fromhex(want["src"].replace(":", ""))
         + struct.pack(">HHBB8HHH", ETHERTYPE, OP_TOKENS, 0, want["mask"],
                       *want["credits"], want["link_credit"],
                       want["lifetime"]))
    return f + bytes(60 - len(f))


def check_valid(chk, where, row, want):
    chk.eq(f"{where} frame.len", row["frame.len"], str(want["length"]))
    chk.eq(f"{where} protocols", row["frame.protocols"],
           "eth:ethertype:lossless")
    chk.eq(f"{where} eth.dst", row["eth.dst"], want["dst"])
    chk.eq(f"{where} eth.src", row["eth.src"], want["src"])
    chk.eq(f"{where} eth.type", fc.hexint(row["eth.type"]), ETHERTYPE)
    chk.eq(f"{where} lossless.opcode", fc.hexint(row["lossless.opcode"]),
           want["opcode"])
    chk.eq(f"{where} opcode is TOKENS", want["opcode"], OP_TOKENS)
    chk.eq(f"{where} lossless.tokens.reserved",
           fc.hexint(row["lossless.tokens.reserved"]), 0)
    chk.eq(f"{where} lossless.tokens.mask",
           fc.hexint(row["lossless.tokens.mask"]), want["mask"])
    for i in range(8):
        bit = (want["mask"] >> i) & 1
        chk.eq(f"{where} lossless.tokens.mask.p{i}",
               row[f"lossless.tokens.mask.p{i}"], str(bit))
        chk.eq(f"{where} lossless.tokens.credit.c{i}",
               row[f"lossless.tokens.credit.c{i}"], str(want["credits"][i]))
        chk.eq(f"{where} lossless.tokens.credit.c{i}.bytes",
               row[f"lossless.tokens.credit.c{i}.bytes"],
               str(want["credits"][i] * CREDIT_UNIT))
    chk.eq(f"{where} lossless.tokens.link_credit",
           row["lossless.tokens.link_credit"], str(want["link_credit"]))
    chk.eq(f"{where} lossless.tokens.link_credit.bytes",
           row["lossless.tokens.link_credit.bytes"],
           str(want["link_credit"] * CREDIT_UNIT))
    chk.eq(f"{where} lossless.tokens.lifetime",
           row["lossless.tokens.lifetime"], str(want["lifetime"]))
    chk.eq(f"{where} _ws.malformed", row["_ws.malformed"], "")
    chk.eq(f"{where} expert info", row["_ws.expert.message"], "")
    chk.eq(f"{where} bytes by hand", want["hex"], wire_bytes(want).hex())


def expected_parse(want):
    """What ll_ctrl_parse must report for an intended TOKENS frame."""
    if not want["valid"]:
        return {"result": want["reject"]}
    return {"result": "ok", "kind": "tokens", "src": want["src"],
            "gate_mask": want["mask"] | 0x100, "credits": want["credits"],
            "link_credit": want["link_credit"], "lifetime": want["lifetime"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--parse", required=True)
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

    pcap, intent = fc.generate(args.gen, args.workdir, stem="tokens",
                               flags=["--tokens"])
    chk = fc.Checker("tshark (lossless.lua) decodes ll_ctrl_build TOKENS frames")
    chk.true("every frame is a TOKENS frame",
             all(w["kind"] == "tokens" for w in intent))
    chk.true("a unicast destination among the valid frames",
             any(w["valid"] and w["dst"] == w["port_addr"] for w in intent))
    chk.eq("negative controls", sorted(w["name"] for w in intent
                                       if not w["valid"]), sorted(NEG_EXPERT))
    rows = fc.tshark_fields(tshark, pcap, FIELDS, lua_args(args.lua))
    chk.eq("frame count", len(rows), len(intent))

    for want, row in zip(intent, rows):
        where = f"frame {want['index']} ({want['name']})"
        if want["valid"]:
            check_valid(chk, where, row, want)
        else:
            if want["name"] == "neg_truncated_37":
                chk.eq(f"{where} frame.len", row["frame.len"],
                       str(MIN_BYTES - 1))
            chk.eq(f"{where} protocols", row["frame.protocols"],
                   "eth:ethertype:lossless")
            chk.true(where, row["_ws.expert.message"] != "",
                     f"negative control ({want['corruption']}) not flagged")

    # The negative controls, and only they, raise expert info; each one
    # for its own reason.
    def match(display_filter):
        return fc.tshark_matching(tshark, pcap, display_filter, lua_args(args.lua))

    number = {w["name"]: w["index"] + 1 for w in intent}
    negatives = sorted(w["index"] + 1 for w in intent if not w["valid"])
    chk.eq("frames with expert info",
           match("_ws.expert || _ws.malformed"),
           negatives)
    for name, field in sorted(NEG_EXPERT.items()):
        chk.eq(f"frames with {field}",
               match(field), [number[name]])
    # Display filters on the fields select what the intent says.
    valid = [w for w in intent if w["valid"]]
    for i in range(8):
        chk.eq(f"frames crediting priority {i}",
               match(f"lossless.tokens.mask.p{i} == 1"
                               " && !_ws.expert"),
               sorted(w["index"] + 1 for w in valid if (w["mask"] >> i) & 1))
    chk.eq("frames ending metering (lifetime 0)",
           match("lossless.tokens.lifetime == 0 && !_ws.expert"),
           sorted(w["index"] + 1 for w in valid if w["lifetime"] == 0))
    chk.eq("frames with a link credit of 4 MiB - 64 octets",
           match("lossless.tokens.link_credit.bytes == 4194240"),
           sorted(w["index"] + 1 for w in intent
                  if w["link_credit"] == 0xFFFF))

    # Our parser on the same file, as the receiving port.
    port = intent[0]["port_addr"]
    parsed = fc.parse_with_ours(args.parse, pcap=pcap, port_addr=port)
    chk.eq("parsed frame count", len(parsed), len(intent))
    for want, got in zip(intent, parsed):
        where = f"ll_ctrl_parse frame {want['index']} ({want['name']})"
        fc.compare_parse(chk, where, got, expected_parse(want))
    # Without the port's address the unicast frame is someone else's.
    parsed = fc.parse_with_ours(args.parse, pcap=pcap)
    for want, got in zip(intent, parsed):
        if want["valid"] and want["dst"] == port:
            chk.eq(f"ll_ctrl_parse frame {want['index']} ({want['name']}) "
                   "without the port's address", got.get("result"),
                   "bad-destination")
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
