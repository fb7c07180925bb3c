// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* MAC control frame codec: see pfc.h for the layout. */
#include "pfc.h"

const ll_u8 ll_mac_ctrl_da[LL_ETH_ALEN] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01 };

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
static int ll_mac_ctrl_da_ok(const ll_u8 *da, const ll_u8 *port_addr)
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

enum ll_parse_result ll_mac_ctrl_parse(const ll_u8 *frame, ll_u32 len,
				       const ll_u8 *port_addr,
				       struct ll_mac_ctrl *out)
{
	ll_u16 opcode;
	int i;

	if (len < LL_ETH_HLEN)
		return LL_PARSE_TRUNCATED;
	if (get_be16(frame + 12) != LL_ETH_P_MAC_CONTROL)
		return LL_PARSE_NOT_MAC_CTRL;
	if (len < LL_ETH_HLEN + 2)
		return LL_PARSE_TRUNCATED;
	if (len > LL_MAC_CTRL_FRAME_MAX_BYTES)
		return LL_PARSE_OVERSIZE;
	if (!ll_mac_ctrl_da_ok(frame, port_addr))
		return LL_PARSE_BAD_DA;

	opcode = get_be16(frame + 14);
	for (i = 0; i < LL_ETH_ALEN; i++)
		out->src[i] = frame[LL_ETH_ALEN + i];
	for (i = 0; i < LL_PFC_PRIOS; i++)
		out->quanta[i] = 0;

	if (opcode == LL_MAC_CTRL_OP_PAUSE) {
		if (len < LL_PAUSE_FRAME_MIN_BYTES)
			return LL_PARSE_TRUNCATED;
		out->kind = LL_MAC_CTRL_PAUSE;
		out->enable_vector = 0;
		out->quanta[0] = get_be16(frame + 16);
		return LL_PARSE_OK;
	}
	if (opcode != LL_MAC_CTRL_OP_PFC)
		return LL_PARSE_BAD_OPCODE;
	if (len < LL_PFC_FRAME_MIN_BYTES)
		return LL_PARSE_TRUNCATED;
	if (frame[16] != 0)
		return LL_PARSE_RESERVED_SET;
	out->kind = LL_MAC_CTRL_PFC;
	out->enable_vector = frame[17];
	for (i = 0; i < LL_PFC_PRIOS; i++)
		out->quanta[i] = get_be16(frame + 18 + 2 * i);
	return LL_PARSE_OK;
}

ll_u32 ll_mac_ctrl_build(ll_u8 *buf, ll_u32 buf_len,
			 const struct ll_mac_ctrl *m)
{
	ll_u32 i;

	if (buf_len < LL_MAC_CTRL_FRAME_BYTES)
		return 0;
	if (m->kind != LL_MAC_CTRL_PAUSE && m->kind != LL_MAC_CTRL_PFC)
		return 0;
	for (i = 0; i < LL_MAC_CTRL_FRAME_BYTES; i++)
		buf[i] = 0;
	for (i = 0; i < LL_ETH_ALEN; i++) {
		buf[i] = ll_mac_ctrl_da[i];
		buf[LL_ETH_ALEN + i] = m->src[i];
	}
	put_be16(buf + 12, LL_ETH_P_MAC_CONTROL);
	if (m->kind == LL_MAC_CTRL_PAUSE) {
		put_be16(buf + 14, LL_MAC_CTRL_OP_PAUSE);
		put_be16(buf + 16, m->quanta[0]);
	} else {
		put_be16(buf + 14, LL_MAC_CTRL_OP_PFC);
		buf[17] = m->enable_vector;
		/* A time is only meaningful where its enable bit is set;
		 * the others go out as zero.
		 */
		for (i = 0; i < LL_PFC_PRIOS; i++)
			put_be16(buf + 18 + 2 * i,
				 (m->enable_vector & (1u << i)) ? m->quanta[i] : 0);
	}
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

ll_u64 ll_quanta_to_ns(ll_u32 quanta, ll_u64 rate_bps)
{
	ll_u64 bits_x1e9, ns;

	if (!rate_bps)
		return 0;
	/* No frame carries more than 0xFFFF quanta: saturate there, so that
	 * bits <= 2^25 and bits * 1e9 < 2^55 fits in 64 bits.
	 */
	if (quanta > LL_PAUSE_QUANTA_MAX)
		quanta = LL_PAUSE_QUANTA_MAX;
	bits_x1e9 = (ll_u64)quanta * LL_PAUSE_QUANTUM_BITS * LL_NSEC_PER_SEC;
	/* Round up without adding rate_bps - 1, which wraps for rates
	 * near 2^64.
	 */
	ns = ll_div_u64(bits_x1e9, rate_bps);
	return ns * rate_bps < bits_x1e9 ? ns + 1 : ns;
}

ll_u32 ll_ns_to_quanta(ll_u64 ns, ll_u64 rate_bps)
{
	ll_u64 bits_x1e9 = (ll_u64)LL_PAUSE_QUANTUM_BITS * LL_NSEC_PER_SEC;
	ll_u64 quanta;

	if (!ns)
		return 0;
	if (!rate_bps)
		return LL_PAUSE_QUANTA_MAX;
	/* Saturate first: then ns * rate <= 65535 * 512 * 1e9 < 2^55. */
	if (ns >= ll_quanta_to_ns(LL_PAUSE_QUANTA_MAX, rate_bps))
		return LL_PAUSE_QUANTA_MAX;
	quanta = ll_div_u64(ns * rate_bps + bits_x1e9 - 1, bits_x1e9);
	return quanta ? (ll_u32)quanta : 1;
}
