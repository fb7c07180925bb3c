-- SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
--
-- Wireshark dissector (Lua, Wireshark 4.0 API) for the project's own
-- control frames: EtherType 0x88B6 (LL_ETH_P_LOSSLESS_CTRL, IEEE 802 local
-- experimental 2) with an opcode at octet 14 (kernel/core/ctrl.h). One
-- opcode so far, TOKENS (0x0001), BifrostX's feedback frame:
--
--   14 opcode 0x0001   16 reserved octet, 0 (the layout's version)
--   17 priority mask e7..e0   18 credit[0..7]   34 link credit
--   36 lifetime (pause quanta; 0: metering ends)   38.. padding to 60
--
-- every field past 17 two octets big-endian, credits in 64-octet units;
-- a credit whose mask bit is clear is not meaningful (sent as 0).
-- Expert info flags what the core's ll_ctrl_parse() rejects and a
-- dissector can see: a reserved octet not 0, an unknown opcode, a frame
-- shorter than 38 octets, longer than 64, or to a group address other
-- than 01-80-C2-00-00-01.
--
--   tshark -X lua_script:tools/wireshark/lossless.lua -r capture.pcap
--   or: cp tools/wireshark/lossless.lua ~/.local/lib/wireshark/plugins/
--
-- tools/wireshark/README.md lists the fields; tests/frames/
-- check_tokens_tshark.py checks this file against the core's builder.

local ETHERTYPE = 0x88B6
local OP_TOKENS = 0x0001
local ETH_HLEN = 14
local TOKENS_MIN_BYTES = 38     -- LL_CTRL_TOKENS_MIN_BYTES: the whole PDU
local FRAME_MAX_BYTES = 64      -- 60 plus an FCS some drivers leave on
local CREDIT_UNIT = 64          -- LL_CTRL_CREDIT_UNIT_BYTES
local PRIOS = 8
local GROUP_DA = "0180c2000001"

local proto = Proto("lossless", "Lossless Ethernet control (0x88B6)")

local opcodes = { [OP_TOKENS] = "TOKENS" }

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
}
for i = 0, PRIOS - 1 do
    f.mask_bit[i] = ProtoField.bool("lossless.tokens.mask.p" .. i,
        "Priority " .. i, 8, { "credited", "not credited" }, bit.lshift(1, i))
    f.credit[i] = ProtoField.uint16("lossless.tokens.credit.c" .. i,
        "Credit " .. i, base.DEC)
    f.credit_bytes[i] = ProtoField.uint32("lossless.tokens.credit.c" .. i .. ".bytes",
        "Credit " .. i .. " (octets)", base.DEC)
end

local fields = { f.opcode, f.reserved, f.mask, f.link_credit,
                 f.link_credit_bytes, f.lifetime, f.padding, f.data }
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
proto.experts = { ef.reserved, ef.opcode, ef.short, ef.long, ef.da }

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
