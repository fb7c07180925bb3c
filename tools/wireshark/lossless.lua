-- SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
--
-- Wireshark dissector (Lua, Wireshark 4.0 API) for the project's own
-- control frames: EtherType 0x88B6 (LL_ETH_P_LOSSLESS_CTRL, IEEE 802 local
-- experimental 2) with an opcode at octet 14 (kernel/core/ctrl.h). TOKENS
-- (0x0001), BifrostX's feedback frame:
--
--   14 opcode 0x0001   16 reserved octet, 0 (the layout's version)
--   17 priority mask e7..e0   18 credit[0..7]   34 link credit
--   36 lifetime (pause quanta; 0: metering ends)   38.. padding to 60
--
-- every field past 17 two octets big-endian, credits in 64-octet units;
-- a credit whose mask bit is clear is not meaningful (sent as 0).
--
-- PortFC's frames (docs/PORTFC.md): PORTFC_A (0x0002) and PORTFC_B
-- (0x0003) from a BCube switch, PORTFC_R (0x0004), a class-B frame a
-- server relays:
--
--   14 opcode   16 reserved octet, 0   17 slot mask s6..s0
--   18 pause time[0..6] in quanta (0: resume)   32.. padding to 60
-- Expert info flags what the core's ll_ctrl_parse() rejects and a
-- dissector can see: a reserved octet not 0, an unknown opcode, a frame
-- shorter than 38 octets, longer than 64, or to a group address other
-- than 01-80-C2-00-00-01.
--
--   tshark -X lua_script:tools/wireshark/lossless.lua -r capture.pcap
--   or: cp tools/wireshark/lossless.lua ~/.local/lib/wireshark/plugins/
--
-- A second protocol, lossless_cnp, is a post-dissector for the CNPs of
-- PCN and DCQCN (kernel/core/cnp.h, pcn.md 3.3): RoCEv2 CNPs (UDP port
-- 4791, BTH opcode 0x81) that Wireshark's InfiniBand dissector shows as a
-- BTH with 20 octets of unknown data. It adds the BTH's BECN bit and the
-- 16 PCN octets as fields (lossless.cnp.*):
--
--   12 RecRate u32 Mbps   16 flags: bit 0 congested, bit 1 rate_valid
--   17 version (1; 0: a plain RoCEv2 CNP, all 16 octets 0)
--   18 sequence number   20 the data flow's L4 source port
--   22 its destination port   24 its L4 protocol   25 three octets 0
--   28 ICRC (written 0, not checked)
--
-- (offsets in the UDP payload), and expert info for what the core's
-- ll_cnp_parse() refuses, and for an IP ECN that is not the one 3.3 says
-- a CNP carries (11 if congested, 00 if not: bleached or remarked).
--
-- tools/wireshark/README.md lists the fields; tests/frames/
-- check_tokens_tshark.py and check_cnp_tshark.py check this file against
-- the core's builders.

local ETHERTYPE = 0x88B6
local OP_TOKENS = 0x0001
local OP_PORTFC_A = 0x0002
local OP_PORTFC_B = 0x0003
local OP_PORTFC_R = 0x0004
local PORTFC_MIN_BYTES = 32     -- LL_CTRL_PORTFC_MIN_BYTES
local PORTFC_SLOTS = 7          -- LL_CTRL_PORTFC_SLOTS
local ETH_HLEN = 14
local TOKENS_MIN_BYTES = 38     -- LL_CTRL_TOKENS_MIN_BYTES: the whole PDU
local FRAME_MAX_BYTES = 64      -- 60 plus an FCS some drivers leave on
local CREDIT_UNIT = 64          -- LL_CTRL_CREDIT_UNIT_BYTES
local PRIOS = 8
local GROUP_DA = "0180c2000001"

local proto = Proto("lossless", "Lossless Ethernet control (0x88B6)")

local opcodes = { [OP_TOKENS] = "TOKENS", [OP_PORTFC_A] = "PORTFC_A",
                  [OP_PORTFC_B] = "PORTFC_B", [OP_PORTFC_R] = "PORTFC_R" }

local f = {
    opcode = ProtoField.uint16("lossless.opcode", "Opcode", base.HEX, opcodes),
    reserved = ProtoField.uint8("lossless.tokens.reserved",
        "Reserved (layout version)", base.HEX),
    mask = ProtoField.uint8("lossless.tokens.mask", "Priority mask", base.HEX),
    mask_bit = {},
    credit = {},
    credit_bytes = {},
    link_credit = ProtoField.uint16("lossless.tokens.link_credit",
        "Link credit", base.DEC),
    link_credit_bytes = ProtoField.uint32("lossless.tokens.link_credit.bytes",
        "Link credit (octets)", base.DEC),
    lifetime = ProtoField.uint16("lossless.tokens.lifetime",
        "Lifetime (quanta)", base.DEC),
    padding = ProtoField.bytes("lossless.padding", "Padding"),
    data = ProtoField.bytes("lossless.data", "Data"),
    pf_reserved = ProtoField.uint8("lossless.portfc.reserved",
        "Reserved (layout version)", base.HEX),
    pf_mask = ProtoField.uint8("lossless.portfc.mask", "Slot mask", base.HEX),
    pf_class = ProtoField.string("lossless.portfc.class", "Class"),
    pf_relayed = ProtoField.bool("lossless.portfc.relayed", "Relayed by a server"),
    pf_bit = {},
    pf_time = {},
}
for i = 0, PORTFC_SLOTS - 1 do
    f.pf_bit[i] = ProtoField.bool("lossless.portfc.mask.s" .. i,
        "Slot " .. i, 8, { "named", "not named" }, bit.lshift(1, i))
    f.pf_time[i] = ProtoField.uint16("lossless.portfc.time.t" .. i,
        "Pause time " .. i .. " (quanta)", base.DEC)
end
for i = 0, PRIOS - 1 do
    f.mask_bit[i] = ProtoField.bool("lossless.tokens.mask.p" .. i,
        "Priority " .. i, 8, { "credited", "not credited" }, bit.lshift(1, i))
    f.credit[i] = ProtoField.uint16("lossless.tokens.credit.c" .. i,
        "Credit " .. i, base.DEC)
    f.credit_bytes[i] = ProtoField.uint32("lossless.tokens.credit.c" .. i .. ".bytes",
        "Credit " .. i .. " (octets)", base.DEC)
end

local fields = { f.opcode, f.reserved, f.mask, f.link_credit,
                 f.link_credit_bytes, f.lifetime, f.padding, f.data,
                 f.pf_reserved, f.pf_mask, f.pf_class, f.pf_relayed }
for i = 0, PORTFC_SLOTS - 1 do
    fields[#fields + 1] = f.pf_bit[i]
    fields[#fields + 1] = f.pf_time[i]
end
for i = 0, PRIOS - 1 do
    fields[#fields + 1] = f.mask_bit[i]
    fields[#fields + 1] = f.credit[i]
    fields[#fields + 1] = f.credit_bytes[i]
end
proto.fields = fields

local ef = {
    reserved = ProtoExpert.new("lossless.tokens.reserved_not_zero",
        "Reserved octet not zero (unknown layout version): receivers reject the frame",
        expert.group.PROTOCOL, expert.severity.WARN),
    opcode = ProtoExpert.new("lossless.opcode.unknown",
        "Unknown opcode: receivers reject the frame",
        expert.group.UNDECODED, expert.severity.WARN),
    short = ProtoExpert.new("lossless.tokens.too_short",
        "Frame shorter than 38 octets: the TOKENS PDU is incomplete, receivers reject it",
        expert.group.MALFORMED, expert.severity.ERROR),
    long = ProtoExpert.new("lossless.too_long",
        "Frame longer than 64 octets: receivers reject it",
        expert.group.PROTOCOL, expert.severity.WARN),
    da = ProtoExpert.new("lossless.dst_invalid",
        "Group destination other than 01-80-C2-00-00-01: receivers reject the frame",
        expert.group.PROTOCOL, expert.severity.WARN),
}
ef.pf_reserved = ProtoExpert.new("lossless.portfc.reserved_not_zero",
    "Reserved octet not zero (unknown layout version): receivers reject the frame",
    expert.group.PROTOCOL, expert.severity.WARN)
ef.pf_short = ProtoExpert.new("lossless.portfc.too_short",
    "Frame shorter than 32 octets: the PortFC PDU is incomplete, receivers reject it",
    expert.group.MALFORMED, expert.severity.ERROR)
ef.pf_slot7 = ProtoExpert.new("lossless.portfc.slot7",
    "Mask bit 7 names no slot: receivers of any BCube refuse the frame",
    expert.group.PROTOCOL, expert.severity.WARN)
proto.experts = { ef.reserved, ef.opcode, ef.short, ef.long, ef.da,
                  ef.pf_reserved, ef.pf_short, ef.pf_slot7 }

local eth_dst = Field.new("eth.dst")

-- Octets of frame a control frame has before our tvb (untagged: 14).
local function frame_len(tvb)
    return ETH_HLEN + tvb:reported_len()
end

-- A 2-octet credit at off: its units, and the octets they stand for.
local function add_credit(tree, ufield, bfield, tvb, off, meaningful)
    local units = tvb(off, 2):uint()
    local item = tree:add(ufield, tvb(off, 2))
    item:append_text(" units (" .. units * CREDIT_UNIT .. " octets)")
    if not meaningful then
        item:append_text(" [not in the mask]")
    end
    local b = item:add(bfield, tvb(off, 2), units * CREDIT_UNIT)
    b:set_generated()
    return units
end

local function dissect_tokens(tvb, pinfo, tree, root)
    local len = tvb:len()
    local summary = "TOKENS"

    if len > 2 then
        local r = tvb(2, 1):uint()
        local item = tree:add(f.reserved, tvb(2, 1))
        if r ~= 0 then
            item:add_proto_expert_info(ef.reserved)
        end
    end
    local mask = nil
    if len > 3 then
        mask = tvb(3, 1):uint()
        local m = tree:add(f.mask, tvb(3, 1))
        for i = 0, PRIOS - 1 do
            m:add(f.mask_bit[i], tvb(3, 1))
        end
        summary = summary .. string.format(" mask 0x%02x", mask)
    end
    for i = 0, PRIOS - 1 do
        local off = 4 + 2 * i
        if off + 2 <= len then
            local on = mask ~= nil and bit.band(mask, bit.lshift(1, i)) ~= 0
            local u = add_credit(tree, f.credit[i], f.credit_bytes[i], tvb, off, on)
            if on then
                summary = summary .. " c" .. i .. "=" .. u
            end
        end
    end
    if 22 <= len then
        local u = add_credit(tree, f.link_credit, f.link_credit_bytes, tvb, 20, true)
        summary = summary .. " link=" .. u
    end
    if 24 <= len then
        local life = tvb(22, 2):uint()
        local item = tree:add(f.lifetime, tvb(22, 2))
        if life == 0 then
            item:append_text(" (metering ends)")
        end
        summary = summary .. " lifetime=" .. life
    end
    if len > 24 then
        tree:add(f.padding, tvb(24))
    end
    if frame_len(tvb) < TOKENS_MIN_BYTES then
        root:add_proto_expert_info(ef.short)
        summary = summary .. " [short]"
    end
    pinfo.cols.info:set(summary)
end

-- PORTFC_A, _B, _R: the slots named and their pause times.
local function dissect_portfc(tvb, pinfo, tree, root, op)
    local len = tvb:len()
    local name = opcodes[op]
    local summary = name

    tree:add(f.pf_class, tvb(0, 2), op == OP_PORTFC_A and "A" or "B")
    tree:add(f.pf_relayed, tvb(0, 2), op == OP_PORTFC_R)
    if len > 2 then
        local item = tree:add(f.pf_reserved, tvb(2, 1))
        if tvb(2, 1):uint() ~= 0 then
            item:add_proto_expert_info(ef.pf_reserved)
        end
    end
    local mask = nil
    if len > 3 then
        mask = tvb(3, 1):uint()
        local m = tree:add(f.pf_mask, tvb(3, 1))
        for i = 0, PORTFC_SLOTS - 1 do
            m:add(f.pf_bit[i], tvb(3, 1))
        end
        if bit.band(mask, 0x80) ~= 0 then
            m:add_proto_expert_info(ef.pf_slot7)
        end
    end
    for i = 0, PORTFC_SLOTS - 1 do
        local off = 4 + 2 * i
        if off + 2 <= len then
            local on = mask ~= nil and bit.band(mask, bit.lshift(1, i)) ~= 0
            local t = tvb(off, 2):uint()
            local item = tree:add(f.pf_time[i], tvb(off, 2))
            if not on then
                item:append_text(" [not in the mask]")
            elseif t == 0 then
                item:append_text(" (resume)")
                summary = summary .. " s" .. i .. "=resume"
            else
                summary = summary .. " s" .. i .. "=" .. t
            end
        end
    end
    if len > 18 then
        tree:add(f.padding, tvb(18))
    end
    if frame_len(tvb) < PORTFC_MIN_BYTES then
        root:add_proto_expert_info(ef.pf_short)
        summary = summary .. " [short]"
    end
    pinfo.cols.info:set(summary)
end

function proto.dissector(tvb, pinfo, tree)
    pinfo.cols.protocol:set("LOSSLESS")
    local root = tree:add(proto, tvb())
    local len = tvb:len()

    -- The destination: 01-80-C2-00-00-01 or a unicast address (the
    -- receiving port's, which only the receiver knows).
    local ok, dst = pcall(function()
        local fi = eth_dst()
        return fi and fi.range:bytes():tohex():lower()
    end)
    if ok and dst and #dst == 12 and dst ~= GROUP_DA and
            bit.band(tonumber(dst:sub(1, 2), 16), 1) == 1 then
        root:add_proto_expert_info(ef.da)
    end
    if frame_len(tvb) > FRAME_MAX_BYTES then
        root:add_proto_expert_info(ef.long)
    end

    if len < 2 then
        pinfo.cols.info:set("[no opcode]")
        root:add_proto_expert_info(ef.short)
        return len
    end
    local op = tvb(0, 2):uint()
    local opitem = root:add(f.opcode, tvb(0, 2))
    if op == OP_TOKENS then
        dissect_tokens(tvb, pinfo, root, root)
    elseif op == OP_PORTFC_A or op == OP_PORTFC_B or op == OP_PORTFC_R then
        dissect_portfc(tvb, pinfo, root, root, op)
    else
        opitem:add_proto_expert_info(ef.opcode)
        pinfo.cols.info:set(string.format("Unknown opcode 0x%04x", op))
        if len > 2 then
            root:add(f.data, tvb(2))
        end
    end
    return len
end

DissectorTable.get("ethertype"):add(ETHERTYPE, proto)

-- ------------------------------------------------------------------ CNP

local CNP_PORT = 4791           -- RoCEv2
local CNP_OPCODE = 0x81
local CNP_BYTES = 32            -- LL_CNP_BYTES: BTH 12, PCN 16, ICRC 4

local cnp = Proto("lossless_cnp", "Lossless CNP (PCN/DCQCN fields of a RoCEv2 CNP)")

local cnp_flags = {
    congested = ProtoField.bool("lossless.cnp.congested", "Congested", 8,
        { "decrease", "increase" }, 0x01),
    rate_valid = ProtoField.bool("lossless.cnp.rate_valid", "Rate valid", 8,
        { "RecRate is a receive rate", "no rate (DCQCN)" }, 0x02),
}
local cf = {
    opcode = ProtoField.uint8("lossless.cnp.opcode", "BTH opcode", base.HEX,
        { [CNP_OPCODE] = "CNP" }),
    becn = ProtoField.bool("lossless.cnp.becn", "BTH BECN", 8, nil, 0x40),
    fecn = ProtoField.bool("lossless.cnp.fecn", "BTH FECN", 8, nil, 0x80),
    dest_qp = ProtoField.uint24("lossless.cnp.dest_qp", "DestQP (flow tag)", base.HEX),
    rec_rate = ProtoField.uint32("lossless.cnp.rec_rate_mbps", "RecRate (Mbps)", base.DEC),
    flags = ProtoField.uint8("lossless.cnp.flags", "Flags", base.HEX),
    congested = cnp_flags.congested,
    rate_valid = cnp_flags.rate_valid,
    version = ProtoField.uint8("lossless.cnp.version", "Version", base.DEC,
        { [0] = "plain RoCEv2 CNP", [1] = "PCN" }),
    seq = ProtoField.uint16("lossless.cnp.seq", "Sequence number", base.DEC),
    sport = ProtoField.uint16("lossless.cnp.sport", "Data flow's source port", base.DEC),
    dport = ProtoField.uint16("lossless.cnp.dport", "Data flow's destination port", base.DEC),
    l4proto = ProtoField.uint8("lossless.cnp.proto", "Data flow's L4 protocol", base.DEC),
    reserved = ProtoField.bytes("lossless.cnp.reserved", "Reserved (0)"),
    icrc = ProtoField.uint32("lossless.cnp.icrc", "ICRC (not checked)", base.HEX),
    ip_ecn = ProtoField.uint8("lossless.cnp.ip_ecn", "IP ECN of the CNP", base.DEC,
        { [0] = "Not-ECT", [1] = "ECT(1)", [2] = "ECT(0)", [3] = "CE" }),
}
cnp.fields = { cf.opcode, cf.becn, cf.fecn, cf.dest_qp, cf.rec_rate, cf.flags,
               cf.congested, cf.rate_valid, cf.version, cf.seq, cf.sport,
               cf.dport, cf.l4proto, cf.reserved, cf.icrc, cf.ip_ecn }

local cef = {
    short = ProtoExpert.new("lossless.cnp.too_short",
        "CNP shorter than 32 octets: receivers reject it",
        expert.group.MALFORMED, expert.severity.ERROR),
    long = ProtoExpert.new("lossless.cnp.too_long",
        "CNP longer than 32 octets: receivers reject it",
        expert.group.PROTOCOL, expert.severity.WARN),
    bth = ProtoExpert.new("lossless.cnp.bth_invalid",
        "BTH not a CNP's (SE M PadCnt TVer 0, P_Key 0xFFFF, BECN only, A 0, PSN 0): receivers reject it",
        expert.group.PROTOCOL, expert.severity.WARN),
    version = ProtoExpert.new("lossless.cnp.version_unknown",
        "Unknown CNP layout version: receivers reject it",
        expert.group.PROTOCOL, expert.severity.WARN),
    reserved = ProtoExpert.new("lossless.cnp.reserved_not_zero",
        "Reserved bits not zero: receivers reject the CNP",
        expert.group.PROTOCOL, expert.severity.WARN),
    rate = ProtoExpert.new("lossless.cnp.rate_invalid",
        "RecRate 0 with rate_valid, or a rate without it: receivers reject the CNP",
        expert.group.PROTOCOL, expert.severity.WARN),
    ecn = ProtoExpert.new("lossless.cnp.ecn_mismatch",
        "IP ECN is not the congested flag's (11 or 00): bleached or remarked; the flag wins",
        expert.group.PROTOCOL, expert.severity.WARN),
}
cnp.experts = { cef.short, cef.long, cef.bth, cef.version, cef.reserved, cef.rate, cef.ecn }

local udp_dport = Field.new("udp.dstport")
local udp_len = Field.new("udp.length")
local ip_ecn = Field.new("ip.dsfield.ecn")

-- The last (innermost) occurrence of a field, or nil.
local function last(field)
    local all = { field() }
    return all[#all]
end

function cnp.dissector(tvb, pinfo, tree)
    local d = last(udp_dport)
    if not d or d.value ~= CNP_PORT then
        return
    end
    local off = d.offset + 6            -- the UDP payload
    local avail = tvb:len() - off
    local ulen = last(udp_len)
    local len = avail
    if ulen and ulen.value >= 8 and ulen.value - 8 < avail then
        len = ulen.value - 8            -- without Ethernet padding
    end
    if len < 1 or tvb(off, 1):uint() ~= CNP_OPCODE then
        return
    end
    local p = tvb(off, len)
    local root = tree:add(cnp, p)
    root:add(cf.opcode, p(0, 1))
    if len < CNP_BYTES then
        root:add_proto_expert_info(cef.short)
        return
    end
    if len > CNP_BYTES then
        root:add_proto_expert_info(cef.long)
    end
    local bth_ok = p(1, 1):uint() == 0 and p(2, 2):uint() == 0xFFFF and
        p(4, 1):uint() == 0x40 and p(8, 1):uint() == 0 and p(9, 3):uint() == 0
    root:add(cf.fecn, p(4, 1))
    root:add(cf.becn, p(4, 1))
    root:add(cf.dest_qp, p(5, 3))
    if not bth_ok then
        root:add_proto_expert_info(cef.bth)
    end
    local rate = p(12, 4):uint()
    local flags = p(16, 1):uint()
    local version = p(17, 1):uint()
    root:add(cf.rec_rate, p(12, 4))
    local fl = root:add(cf.flags, p(16, 1))
    fl:add(cf.congested, p(16, 1))
    fl:add(cf.rate_valid, p(16, 1))
    local vi = root:add(cf.version, p(17, 1))
    root:add(cf.seq, p(18, 2))
    root:add(cf.sport, p(20, 2))
    root:add(cf.dport, p(22, 2))
    root:add(cf.l4proto, p(24, 1))
    root:add(cf.reserved, p(25, 3))
    root:add(cf.icrc, p(28, 4))
    local congested = bit.band(flags, 1)
    local valid = bit.band(flags, 2) ~= 0
    if version == 0 then
        if p(12, 16):bytes():tohex() ~= string.rep("00", 16) then
            root:add_proto_expert_info(cef.reserved)
        end
    elseif version ~= 1 then
        vi:add_proto_expert_info(cef.version)
    elseif bit.band(flags, 0xFC) ~= 0 or p(25, 3):uint() ~= 0 then
        root:add_proto_expert_info(cef.reserved)
    elseif valid ~= (rate ~= 0) then
        root:add_proto_expert_info(cef.rate)
    end
    local e = last(ip_ecn)
    if e then
        local ei = root:add(cf.ip_ecn, e.range, e.value)
        ei:set_generated()
        -- A plain CNP (a NIC's) has no flag to agree with.
        if version == 1 and e.value ~= (congested == 1 and 3 or 0) then
            ei:add_proto_expert_info(cef.ecn)
        end
    end
    local summary = version == 0 and "CNP (plain RoCEv2)" or
        string.format("CNP%s seq=%d %s%s", congested == 1 and " congested" or "",
            p(18, 2):uint(), valid and ("rate=" .. rate .. " Mbps ") or "",
            string.format("flow %d->%d/%d", p(20, 2):uint(), p(22, 2):uint(),
                p(24, 1):uint()))
    pinfo.cols.info:append(" " .. summary)
end

register_postdissector(cnp)
