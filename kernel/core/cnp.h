/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The congestion notification packet (CNP) of PCN and DCQCN (pcn.md 3.2,
 * 3.3): a RoCEv2 CNP, so that captures decode as RoCE, with PCN's fields
 * in its 16 reserved octets. The codec covers the UDP payload; the caller
 * owns Ethernet, IP and UDP (ll_cnp_frame_build() writes a whole IPv4
 * frame for tests and tools). Offsets in the UDP payload:
 *
 *   BTH   0 opcode 0x81 (CNP)
 *         1 SE, M, PadCnt, TVer: all 0
 *         2 P_Key 0xFFFF
 *         4 FECN (bit 7) 0, BECN (bit 6) 1, bits 5..0 reserved 0
 *         5 DestQP, 24 bits (the flow's tag; 0 if none)
 *         8 A (bit 7) 0, bits 6..0 reserved 0
 *         9 PSN, 24 bits, 0
 *   PCN  12 RecRate, u32 big-endian, Mbps (1 .. 2^32 - 1)
 *        16 flags: bit 0 congested, bit 1 rate_valid, bits 7..2 0
 *        17 version: 1
 *        18 per-flow CNP sequence number, u16 big-endian (wrapping)
 *        20 the data flow's L4 source port, 22 its destination port
 *        24 the data flow's L4 protocol
 *        25 three octets 0
 *   ICRC 28 four octets: written 0, never checked (3.3)
 *
 * LL_CNP_BYTES (32) in all. Multi-octet fields are big-endian. A plain
 * RoCEv2 CNP (a NIC's, or any sender without PCN's fields) has 16 zero
 * octets at 12: it parses as version 0 with only dest_qp meaningful, and
 * congested = rate_valid = 0 (what its bytes say; DCQCN reacts to its
 * arrival). DCQCN's NP sends version 1 with rate_valid = 0 and RecRate
 * 0, so that the RP finds the flow by its ports.
 *
 * The IP header of a CNP carries ECN 11 (CE) if congested, 00 (Not-ECT)
 * if not, never ECT (3.3, A10): a switch cannot mark it, and bleaching
 * shows as a mismatch with the payload's flag, which wins.
 *
 * Integers only, bounds-checked, no allocation, loops bounded by
 * constants: the same code runs in the module, BPF programs and tests.
 */
#ifndef LL_CNP_H
#define LL_CNP_H

#include "ll_types.h"

#define LL_CNP_UDP_PORT 4791		/* RoCEv2's UDP destination port */
#define LL_CNP_BTH_OPCODE 0x81		/* the CNP's BTH opcode */
#define LL_CNP_PKEY 0xFFFF		/* the default partition */
#define LL_CNP_BTH_BECN 0x40		/* BTH octet 4 */
#define LL_CNP_BTH_BYTES 12
#define LL_CNP_PAYLOAD_BYTES 16		/* the reserved octets: PCN's */
#define LL_CNP_ICRC_BYTES 4
#define LL_CNP_BYTES (LL_CNP_BTH_BYTES + LL_CNP_PAYLOAD_BYTES + \
		      LL_CNP_ICRC_BYTES)
#define LL_CNP_VERSION 1		/* PCN's layout */
#define LL_CNP_VERSION_PLAIN 0		/* a plain RoCEv2 CNP: zeros */
#define LL_CNP_FLAG_CONGESTED 0x01
#define LL_CNP_FLAG_RATE_VALID 0x02
#define LL_CNP_QP_MASK 0xFFFFFFu
/* ip_ecn when the parser has not seen the IP header. */
#define LL_CNP_ECN_UNSEEN 0xFF

/* A whole IPv4 CNP frame (ll_cnp_frame_build): 74 octets (3.2). */
#define LL_CNP_IPV4_HLEN 20
#define LL_CNP_UDP_HLEN 8
#define LL_CNP_IPV4_FRAME_BYTES (14 + LL_CNP_IPV4_HLEN + LL_CNP_UDP_HLEN + \
				 LL_CNP_BYTES)

/* A decoded CNP. */
struct ll_cnp {
	ll_u32 rec_rate_mbps;	/* RecRate; 0 unless rate_valid */
	ll_u32 dest_qp;		/* 24 bits: the flow's tag */
	ll_u16 seq;		/* per-flow CNP sequence number */
	ll_u16 sport;		/* the data flow's L4 source port */
	ll_u16 dport;		/* ... destination port */
	ll_u8 proto;		/* ... L4 protocol */
	ll_u8 congested;	/* 1: decrease (the flag, a copy of IP CE) */
	ll_u8 rate_valid;	/* 1: rec_rate_mbps is a receive rate */
	ll_u8 version;		/* LL_CNP_VERSION, or _PLAIN (all else 0) */
	/*
	 * The ECN field of the CNP's IP header (LL_ECN_* of pcn.h, 0..3):
	 * the receiver's copy for A10's check. ll_cnp_parse() sets
	 * LL_CNP_ECN_UNSEEN (it sees the UDP payload only) and the caller
	 * that read the IP header stores it; builders ignore it.
	 */
	ll_u8 ip_ecn;
	ll_u8 pad;
};

/* Parse results; every refusal its own code, for counters. */
enum ll_cnp_result {
	LL_CNP_OK = 0,
	LL_CNP_TRUNCATED,	/* shorter than LL_CNP_BYTES */
	LL_CNP_OVERSIZE,	/* longer than LL_CNP_BYTES */
	LL_CNP_NOT_CNP,		/* BTH opcode not 0x81 */
	LL_CNP_BAD_BTH,		/* another BTH field not a CNP's (above) */
	LL_CNP_BAD_VERSION,	/* octet 17 neither 0 nor 1 */
	LL_CNP_RESERVED_SET,	/* flags bits 7..2, octets 25..27, or any
				 * octet of a version-0 payload, not 0
				 */
	LL_CNP_BAD_RATE,	/* RecRate 0 with rate_valid, or not 0
				 * without
				 */
	LL_CNP_RESULT_COUNT,
};

/*
 * Parse a CNP from its UDP payload p of len octets (the UDP length less
 * its 8-octet header): exactly LL_CNP_BYTES. Reads p[0 .. min(len, 32) - 1]
 * only. On LL_CNP_OK fills *out (ip_ecn = LL_CNP_ECN_UNSEEN); otherwise
 * *out is unspecified. The ICRC is not checked.
 */
enum ll_cnp_result ll_cnp_parse(const ll_u8 *p, ll_u32 len,
				struct ll_cnp *out);

/*
 * Write c as a CNP's UDP payload into buf (buf_len >= LL_CNP_BYTES): the
 * BTH, the 16 octets, an ICRC of 0. Returns LL_CNP_BYTES, or 0 if buf is
 * too small or c is not encodable: a version other than 0 or 1, a dest_qp
 * above 24 bits, a version-1 rate that rate_valid contradicts (0 with it,
 * not 0 without). A version-0 CNP writes zeros whatever the other fields;
 * congested and rate_valid are read as booleans. ip_ecn is ignored.
 */
ll_u32 ll_cnp_build(ll_u8 *buf, ll_u32 buf_len, const struct ll_cnp *c);

/* 3.3's ECN for the IP header of a CNP: CE if congested, else Not-ECT. */
static inline ll_u8 ll_cnp_ip_ecn(const struct ll_cnp *c)
{
	return c->congested ? 3 : 0;
}

/*
 * A10: whether the IP ECN field (c->ip_ecn, as the caller stored it)
 * agrees with the payload's congested flag. A disagreement (bleaching, or
 * a switch that remarked the CNP) is counted; the flag wins.
 */
static inline int ll_cnp_ecn_agrees(const struct ll_cnp *c)
{
	return c->ip_ecn == ll_cnp_ip_ecn(c);
}

/* Addresses of a whole IPv4 CNP frame (ll_cnp_frame_build). */
struct ll_cnp_ipv4_addr {
	ll_u8 dst_mac[6];	/* the next hop toward the data sender */
	ll_u8 src_mac[6];
	ll_u8 src_ip[4];	/* the data's destination */
	ll_u8 dst_ip[4];	/* the data's source */
	ll_u16 udp_sport;	/* flow hash, for ECMP entropy */
	ll_u8 dscp;		/* the CNP class (0..63) */
	ll_u8 ttl;		/* 0: 64 */
};

/*
 * Write a whole untagged IPv4 CNP frame into buf (buf_len >=
 * LL_CNP_IPV4_FRAME_BYTES): Ethernet (0x0800), IPv4 (no options, DF,
 * id 0, the header checksum, DSCP a->dscp, ECN ll_cnp_ip_ecn(c)), UDP
 * (a->udp_sport to 4791, checksum 0: optional over IPv4), then
 * ll_cnp_build(). Returns LL_CNP_IPV4_FRAME_BYTES, or 0 as ll_cnp_build()
 * or a DSCP above 63 would.
 */
ll_u32 ll_cnp_frame_build(ll_u8 *buf, ll_u32 buf_len,
			  const struct ll_cnp_ipv4_addr *a,
			  const struct ll_cnp *c);

/* Printable name of a parse result (for logs and counters). */
const char *ll_cnp_result_name(enum ll_cnp_result r);

#endif /* LL_CNP_H */
