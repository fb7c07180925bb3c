// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The table of control frames and its codec: see ctrl.h. */
#include "ctrl.h"
#include "portfc.h"

const ll_u8 ll_mac_ctrl_da[LL_ETH_ALEN] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };

/*
 * The kinds. PFC (802.1Qbb): a reserved octet, the class-enable vector,
 * eight times, for the priorities' gates. PAUSE (802.3x): one time, for
 * the port gate (pfc.h has both layouts). TOKENS (BifrostX): a reserved
 * octet, the priority mask, eight credits for the priorities' gates, the
 * link's for the port gate, their lifetime (ctrl.h). PORTFC_*: a
 * reserved octet, the slot mask, seven times, for PortFC's A gates (A) or
 * B gates (B, and R: a relayed B closes the same gates two hops up).
 */
static const struct ll_ctrl_kind_desc kinds[LL_CTRL_KIND_COUNT] = {
	[LL_CTRL_PFC] = {
		.name = "pfc", .ethertype = LL_ETH_P_MAC_CONTROL,
		.opcode = LL_MAC_CTRL_OP_PFC,
		.min_bytes = LL_PFC_FRAME_MIN_BYTES,
		.gate_base = 0, .gates = LL_PFC_PRIOS,
		.mask_off = 17, .rsvd_off = 16, .value_off = 18,
	},
	[LL_CTRL_PAUSE] = {
		.name = "pause", .ethertype = LL_ETH_P_MAC_CONTROL,
		.opcode = LL_MAC_CTRL_OP_PAUSE,
		.min_bytes = LL_PAUSE_FRAME_MIN_BYTES,
		.gate_base = LL_PFC_PRIOS, .gates = 1,
		.mask_off = LL_CTRL_NONE_OFF, .rsvd_off = LL_CTRL_NONE_OFF,
		.value_off = 16,
	},
	[LL_CTRL_TOKENS] = {
		.name = "tokens", .ethertype = LL_ETH_P_LOSSLESS_CTRL,
		.opcode = LL_CTRL_OP_TOKENS,
		.min_bytes = LL_CTRL_TOKENS_MIN_BYTES,
		.gate_base = 0, .gates = LL_PFC_PRIOS + 1,
		.mask_off = 17, .rsvd_off = 16, .value_off = 18,
		.time_off = 36, .credit = 1,
	},
	[LL_CTRL_PORTFC_A] = {
		.name = "portfcA", .ethertype = LL_ETH_P_LOSSLESS_CTRL,
		.opcode = LL_CTRL_OP_PORTFC_A,
		.min_bytes = LL_CTRL_PORTFC_MIN_BYTES,
		.gate_base = LL_PORTFC_GATE_A(0), .gates = LL_CTRL_PORTFC_SLOTS,
		.mask_off = 17, .rsvd_off = 16, .value_off = 18,
	},
	[LL_CTRL_PORTFC_B] = {
		.name = "portfcB", .ethertype = LL_ETH_P_LOSSLESS_CTRL,
		.opcode = LL_CTRL_OP_PORTFC_B,
		.min_bytes = LL_CTRL_PORTFC_MIN_BYTES,
		.gate_base = LL_PORTFC_GATE_B(0), .gates = LL_CTRL_PORTFC_SLOTS,
		.mask_off = 17, .rsvd_off = 16, .value_off = 18,
	},
	[LL_CTRL_PORTFC_R] = {
		.name = "portfcR", .ethertype = LL_ETH_P_LOSSLESS_CTRL,
		.opcode = LL_CTRL_OP_PORTFC_R,
		.min_bytes = LL_CTRL_PORTFC_MIN_BYTES,
		.gate_base = LL_PORTFC_GATE_B(0), .gates = LL_CTRL_PORTFC_SLOTS,
		.mask_off = 17, .rsvd_off = 16, .value_off = 18,
	},
	LL_CTRL_EXTRA_KINDS
};

LL_BUILD_ASSERT(LL_CTRL_PORTFC_SLOTS == LL_PORTFC_MAX_SLOTS, portfc_slots);

const struct ll_ctrl_kind_desc *ll_ctrl_kind(ll_u32 kind)
{
	return kind && kind < LL_CTRL_KIND_COUNT ? &kinds[kind] :
						    (const void *)0;
}

static ll_u16 get_be16(const ll_u8 *p)
{
	return (ll_u16)((p[0] << 8) | p[1]);
}

static void put_be16(ll_u8 *p, ll_u16 v)
{
	p[0] = (ll_u8)(v >> 8);
	p[1] = (ll_u8)v;
}

/* DA is 01-80-C2-00-00-01, or port_addr when that is a unicast address. */
static int da_ok(const ll_u8 *da, const ll_u8 *port_addr)
{
	int i, group = 1, port = port_addr && !(port_addr[0] & 1);

	for (i = 0; i < LL_ETH_ALEN; i++) {
		if (da[i] != ll_mac_ctrl_da[i])
			group = 0;
		if (port && da[i] != port_addr[i])
			port = 0;
	}
	return group || port;
}

/* The kind of a frame of EtherType type with opcode op (if it has one). */
static ll_u32 kind_of(ll_u32 type, ll_u32 op)
{
	ll_u32 k;

	for (k = 1; k < LL_CTRL_KIND_COUNT; k++)
		if (kinds[k].ethertype == type &&
		    (kinds[k].opcode == LL_CTRL_NO_OPCODE ||
		     kinds[k].opcode == op))
			return k;
	return LL_CTRL_NONE;
}

/* The gates' mask of a kind with no mask in its frames: all of them. */
static ll_u16 all_gates(const struct ll_ctrl_kind_desc *d)
{
	return (ll_u16)((1u << d->gates) - 1);
}

/* The gates a frame's mask octet cannot name: always present. */
static ll_u16 unmasked_gates(const struct ll_ctrl_kind_desc *d)
{
	return (ll_u16)(all_gates(d) & ~0xFFu);
}

enum ll_parse_result ll_ctrl_parse(const ll_u8 *frame, ll_u32 len,
				   const ll_u8 *port_addr,
				   struct ll_ctrl_msg *out)
{
	const struct ll_ctrl_kind_desc *d;
	ll_u32 type, kind, i;

	if (len < LL_ETH_HLEN)
		return LL_PARSE_TRUNCATED;
	type = get_be16(frame + 12);
	if (!ll_ctrl_ethertype(type))
		return LL_PARSE_NOT_MAC_CTRL;
	if (len < LL_ETH_HLEN + 2)
		return LL_PARSE_TRUNCATED;
	if (len > LL_MAC_CTRL_FRAME_MAX_BYTES)
		return LL_PARSE_OVERSIZE;
	if (!da_ok(frame, port_addr))
		return LL_PARSE_BAD_DA;

	kind = kind_of(type, get_be16(frame + 14));
	if (kind == LL_CTRL_NONE)
		return LL_PARSE_BAD_OPCODE;
	d = &kinds[kind];
	if (len < d->min_bytes)
		return LL_PARSE_TRUNCATED;
	if (d->rsvd_off != LL_CTRL_NONE_OFF && frame[d->rsvd_off])
		return LL_PARSE_RESERVED_SET;
	for (i = 0; i < LL_ETH_ALEN; i++)
		out->src[i] = frame[LL_ETH_ALEN + i];
	out->kind = (ll_u8)kind;
	out->gate_mask = d->mask_off != LL_CTRL_NONE_OFF ?
			 (ll_u16)(frame[d->mask_off] | unmasked_gates(d)) :
			 all_gates(d);
	for (i = 0; i < LL_CTRL_GATES; i++)
		out->value[i] = i < d->gates ?
				get_be16(frame + d->value_off + 2 * i) : 0;
	out->lifetime = d->time_off ?
			get_be16(frame + d->time_off) : 0;
	return LL_PARSE_OK;
}

ll_u32 ll_ctrl_build(ll_u8 *buf, ll_u32 buf_len, const struct ll_ctrl_msg *m)
{
	const struct ll_ctrl_kind_desc *d = ll_ctrl_kind(m->kind);
	ll_u16 mask;
	ll_u32 i;

	if (buf_len < LL_MAC_CTRL_FRAME_BYTES || !d)
		return 0;
	for (i = 0; i < LL_MAC_CTRL_FRAME_BYTES; i++)
		buf[i] = 0;
	for (i = 0; i < LL_ETH_ALEN; i++) {
		buf[i] = ll_mac_ctrl_da[i];
		buf[LL_ETH_ALEN + i] = m->src[i];
	}
	put_be16(buf + 12, d->ethertype);
	if (d->opcode != LL_CTRL_NO_OPCODE)
		put_be16(buf + 14, d->opcode);
	mask = all_gates(d);
	if (d->mask_off != LL_CTRL_NONE_OFF) {
		/* A value is only meaningful where its bit is set; the
		 * others go out as zero.
		 */
		mask &= m->gate_mask | unmasked_gates(d);
		buf[d->mask_off] = (ll_u8)m->gate_mask;
	}
	for (i = 0; i < d->gates && i < LL_CTRL_GATES; i++)
		if (mask & (1u << i))
			put_be16(buf + d->value_off + 2 * i, m->value[i]);
	if (d->time_off)
		put_be16(buf + d->time_off, m->lifetime);
	return LL_MAC_CTRL_FRAME_BYTES;
}

const char *ll_parse_result_name(enum ll_parse_result r)
{
	switch (r) {
	case LL_PARSE_OK: return "ok";
	case LL_PARSE_TRUNCATED: return "truncated";
	case LL_PARSE_OVERSIZE: return "oversize";
	case LL_PARSE_NOT_MAC_CTRL: return "not-mac-control";
	case LL_PARSE_BAD_DA: return "bad-destination";
	case LL_PARSE_BAD_OPCODE: return "unknown-opcode";
	case LL_PARSE_RESERVED_SET: return "reserved-bits-set";
	default: return "invalid-result";
	}
}
