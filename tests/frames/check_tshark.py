#!/usr/bin/python3
"""Wireshark's MAC control dissector decodes our frames as intended.

Frames built by ll_mac_ctrl_build (via ll_frames_gen) are written to a
pcap, decoded by tshark, and every field is compared with the intent the
generator recorded. The generator's negative controls (bad DA, reserved
vector octet set) must be flagged by Wireshark's expert info, and no valid
frame may carry any expert info. Our own parser must read the same pcap
back to the intent, and reject the negative controls.

Wireshark 4.0 field names (tshark -G fields): macc.opcode,
macc.pause_time, macc.cbfc.enbv, macc.cbfc.enbv.c0..c7,
macc.cbfc.pause_time.c0..c7, macc.dst_address_invalid,
macc.cbfc.enbv.not_zero.
"""

import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frames_common as fc  # noqa: E402

FIELDS = (["frame.len", "frame.protocols", "eth.dst", "eth.src", "eth.type",
           "macc.opcode", "macc.pause_time", "macc.cbfc.enbv"]
          + [f"macc.cbfc.enbv.c{i}" for i in range(8)]
          + [f"macc.cbfc.pause_time.c{i}" for i in range(8)]
          + ["_ws.malformed", "_ws.expert.message"])


def check_valid(chk, where, row, want):
    chk.eq(f"{where} frame.len", row["frame.len"], str(want["length"]))
    chk.eq(f"{where} protocols", row["frame.protocols"], "eth:ethertype:macc")
    chk.eq(f"{where} eth.dst", row["eth.dst"], fc.MAC_CTRL_DA)
    chk.eq(f"{where} eth.src", row["eth.src"], want["src"])
    chk.eq(f"{where} eth.type", fc.hexint(row["eth.type"]), 0x8808)
    chk.eq(f"{where} macc.opcode", fc.hexint(row["macc.opcode"]), want["opcode"])
    chk.eq(f"{where} _ws.malformed", row["_ws.malformed"], "")
    chk.eq(f"{where} expert info", row["_ws.expert.message"], "")
    if want["kind"] == "pfc":
        chk.eq(f"{where} opcode is PFC", want["opcode"], 0x0101)
        chk.eq(f"{where} macc.cbfc.enbv", fc.hexint(row["macc.cbfc.enbv"]),
               want["enable_vector"])
        for i in range(8):
            bit = (want["enable_vector"] >> i) & 1
            chk.eq(f"{where} macc.cbfc.enbv.c{i}",
                   row[f"macc.cbfc.enbv.c{i}"], str(bit))
            chk.eq(f"{where} macc.cbfc.pause_time.c{i}",
                   row[f"macc.cbfc.pause_time.c{i}"], str(want["times"][i]))
        chk.eq(f"{where} macc.pause_time", row["macc.pause_time"], "")
    else:
        chk.eq(f"{where} opcode is PAUSE", want["opcode"], 0x0001)
        chk.eq(f"{where} macc.pause_time", row["macc.pause_time"],
               str(want["pause_time"]))
        chk.eq(f"{where} macc.cbfc.enbv", row["macc.cbfc.enbv"], "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", required=True)
    ap.add_argument("--parse", required=True)
    ap.add_argument("--tshark", default="tshark")
    ap.add_argument("--workdir", required=True)
    args = ap.parse_args()

    tshark = shutil.which(args.tshark)
    if not tshark:
        print("tshark not found: skipped")
        return fc.SKIP

    pcap, intent = fc.generate(args.gen, args.workdir)
    chk = fc.Checker("tshark decodes ll_mac_ctrl_build frames")
    rows = fc.tshark_fields(tshark, pcap, FIELDS)
    chk.eq("frame count", len(rows), len(intent))

    for want, row in zip(intent, rows):
        where = f"frame {want['index']} ({want['name']})"
        if want["valid"]:
            check_valid(chk, where, row, want)
        else:
            chk.true(where, row["_ws.expert.message"] != "",
                     f"negative control ({want['corruption']}) not flagged")

    # The negative controls, and only they, raise expert info; each one
    # for its own reason.
    number = {w["name"]: w["index"] + 1 for w in intent}
    negatives = sorted(w["index"] + 1 for w in intent if not w["valid"])
    chk.eq("frames with expert info",
           fc.tshark_matching(tshark, pcap, "_ws.expert || _ws.malformed"),
           negatives)
    chk.eq("frames with a bad DA",
           fc.tshark_matching(tshark, pcap, "macc.dst_address_invalid"),
           [number["neg_bad_da"]])
    chk.eq("frames with reserved ENBV bits",
           fc.tshark_matching(tshark, pcap, "macc.cbfc.enbv.not_zero"),
           [number["neg_reserved_set"]])
    chk.eq("PFC frames", fc.tshark_matching(tshark, pcap, "macc.opcode == 0x0101"),
           sorted(w["index"] + 1 for w in intent if w["kind"] == "pfc"))
    chk.eq("PAUSE frames", fc.tshark_matching(tshark, pcap, "macc.opcode == 0x0001"),
           sorted(w["index"] + 1 for w in intent if w["kind"] == "pause"))

    # Our parser on the same file.
    parsed = fc.parse_with_ours(args.parse, pcap=pcap)
    chk.eq("parsed frame count", len(parsed), len(intent))
    neg_result = {"neg_bad_da": "bad-destination",
                  "neg_reserved_set": "reserved-bits-set"}
    for want, got in zip(intent, parsed):
        where = f"ll_mac_ctrl_parse frame {want['index']} ({want['name']})"
        exp = fc.expected_parse(want) or {"result": neg_result[want["name"]]}
        fc.compare_parse(chk, where, got, exp)
    return chk.finish()


if __name__ == "__main__":
    sys.exit(main())
