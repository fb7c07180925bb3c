/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * IEEE 802.3x PAUSE and 802.1Qbb PFC (MAC control) frames: build, strict
 * parse, and pause quanta <-> nanoseconds at a port rate.
 *
 * Frame layout (no FCS), both kinds to DA 01-80-C2-00-00-01 or to the
 * receiving port's own unicast address (IEEE 802.3 Annex 31B):
 *   0  DA[6]  6 SA[6]  12 EtherType 0x8808  14 opcode
 *   PAUSE (0x0001): 16 pause_time (quanta)
 *   PFC   (0x0101): 16 class-enable vector: reserved octet (must be 0), then
 *                   e7..e0; 18 time[0..7], 2 octets each
 *   zero padding up to the 60-octet minimum frame.
 * One quantum is 512 bit times at the port's rate.
 */
#ifndef LL_PFC_H
#define LL_PFC_H

#include "ll_types.h"

#define LL_ETH_ALEN 6
#define LL_ETH_HLEN 14
#define LL_ETH_P_MAC_CONTROL 0x8808
#define LL_ETH_P_8021Q 0x8100
#define LL_ETH_P_8021AD 0x88A8
#define LL_MAC_CTRL_OP_PAUSE 0x0001
#define LL_MAC_CTRL_OP_PFC 0x0101
#define LL_PFC_PRIOS 8
#define LL_PAUSE_QUANTUM_BITS 512
#define LL_PAUSE_QUANTA_MAX 0xFFFF

/* Shortest valid frames (no padding), the minimum frame size, and the
 * longest we accept (60 octets plus an FCS some drivers leave on).
 */
#define LL_PAUSE_FRAME_MIN_BYTES 18
#define LL_PFC_FRAME_MIN_BYTES 34
#define LL_MAC_CTRL_FRAME_BYTES 60
#define LL_MAC_CTRL_FRAME_MAX_BYTES 64

enum ll_mac_ctrl_kind {
	LL_MAC_CTRL_PAUSE = 1,	/* 802.3x: pauses the whole port */
	LL_MAC_CTRL_PFC = 2,	/* 802.1Qbb: pauses priorities */
};

/* A decoded MAC control frame. For PAUSE, quanta[0] holds pause_time and
 * enable_vector is 0.
 */
struct ll_mac_ctrl {
	ll_u8 src[LL_ETH_ALEN];
	ll_u8 kind;		/* enum ll_mac_ctrl_kind */
	ll_u8 enable_vector;	/* PFC: bit p set = time[p] is valid */
	ll_u16 quanta[LL_PFC_PRIOS];
};

/* Parse results; every rejection has its own code so it can be counted. */
enum ll_parse_result {
	LL_PARSE_OK = 0,
	LL_PARSE_TRUNCATED,	/* shorter than the opcode needs */
	LL_PARSE_OVERSIZE,	/* longer than a MAC control frame */
	LL_PARSE_NOT_MAC_CTRL,	/* EtherType is not 0x8808 */
	LL_PARSE_BAD_DA,	/* not 01-80-C2-00-00-01 nor the port's address */
	LL_PARSE_BAD_OPCODE,	/* a MAC control opcode we do not act on */
	LL_PARSE_RESERVED_SET,	/* PFC reserved vector octet is not zero */
	LL_PARSE_RESULT_COUNT,
};

extern const ll_u8 ll_mac_ctrl_da[LL_ETH_ALEN];

/*
 * Parse a frame that starts at its destination address. len is the frame
 * length without FCS. Only untagged frames are MAC control frames: a VLAN
 * tag in front of 0x8808 yields LL_PARSE_NOT_MAC_CTRL.
 *
 * The destination must be 01-80-C2-00-00-01 or, if port_addr is not NULL,
 * the receiving port's own unicast address port_addr (6 octets). NULL
 * accepts the reserved multicast address only.
 *
 * A frame shorter than the 60-octet minimum is accepted when it holds the
 * whole PDU (18 octets for PAUSE, 34 for PFC): software links (veth,
 * AF_PACKET senders) do not pad.
 */
enum ll_parse_result ll_mac_ctrl_parse(const ll_u8 *frame, ll_u32 len,
				       const ll_u8 *port_addr,
				       struct ll_mac_ctrl *out);

/*
 * Build a minimum-size (60 octet) frame into buf (buf_len >= 60).
 * Returns the frame length, or 0 if buf is too small or m is invalid.
 */
ll_u32 ll_mac_ctrl_build(ll_u8 *buf, ll_u32 buf_len,
			 const struct ll_mac_ctrl *m);

/* Printable name of a parse result (for logs and stats). */
const char *ll_parse_result_name(enum ll_parse_result r);

/* Pause duration of quanta at rate_bps, rounded up; 0 if rate_bps is 0.
 * Quanta above 0xFFFF (no frame carries them) count as 0xFFFF.
 */
ll_u64 ll_quanta_to_ns(ll_u32 quanta, ll_u64 rate_bps);

/* Fewest quanta that cover ns at rate_bps, capped at 0xFFFF; at least 1
 * for ns > 0 (0 means XON). 0xFFFF if rate_bps is 0.
 */
ll_u32 ll_ns_to_quanta(ll_u64 ns, ll_u64 rate_bps);

#endif /* LL_PFC_H */
