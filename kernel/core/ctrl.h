/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Control frames: the hop-by-hop frames a port receives from its
 * downstream to pause, resume or credit its gates, and sends upstream.
 * One table (ctrl.c) names every kind with its EtherType, opcode, shortest
 * PDU, gates and layout; parse and build dispatch through it, giving one
 * generic message: the kind, the gates it speaks of, and a value per gate
 * (a pause time in quanta, or a credit). The ingress program, the qdisc's
 * control band, the frame fuzzer and the frame cross-checks read kinds
 * from here: a new kind is one entry of the table (ctrl.c), whose layout
 * columns are its codec.
 *
 * Every kind shares the envelope of IEEE 802.3 MAC control frames: to
 * 01-80-C2-00-00-01 (which no bridge forwards) or to the receiving port's
 * own unicast address (802.3 Annex 31B), untagged, at most 64 octets (60
 * plus an FCS some drivers leave on). A kind with an opcode has it at
 * octet 14; one without (LL_CTRL_NO_OPCODE) has its own EtherType and its
 * PDU starts there. The core is compiled into BPF programs: the table is
 * plain data, no pointers and no dispatch through them.
 */
#ifndef LL_CTRL_H
#define LL_CTRL_H

#include "pfc.h"

#define LL_CTRL_NO_OPCODE 0xFFFFu
#define LL_CTRL_NONE_OFF 0xFFu	/* a layout field the kind has not */
/* Values a message carries: the PFC priorities' gates and the port's. */
#define LL_CTRL_GATES (LL_PFC_PRIOS + 1)
/* A credit's unit on the wire: octets per unit (one pause quantum). */
#define LL_CTRL_CREDIT_UNIT_BYTES 64

/*
 * Kinds of our own use EtherType 0x88B6 (IEEE 802 local experimental 2)
 * with an opcode at 14; never LOSSLESS_CTRL_ETHERTYPE (0x88B5), under
 * which the ingress program hides 0x8808.
 */
#define LL_ETH_P_LOSSLESS_CTRL 0x88B6

/*
 * Opcodes under LL_ETH_P_LOSSLESS_CTRL. TOKENS: a credit per priority
 * and for the link, with their lifetime (BifrostX's feedback frame,
 * docs/BIFROST.md "The token frame"):
 *   14 opcode 0x0001  16 reserved octet (0: the layout's version)
 *   17 priority mask e7..e0  18 credit[0..7]  34 link credit
 *   36 lifetime (quanta), every field 2 octets big-endian past 17,
 *   credits in LL_CTRL_CREDIT_UNIT_BYTES units.
 */
#define LL_CTRL_OP_TOKENS 0x0001
#define LL_CTRL_TOKENS_MIN_BYTES 38

/*
 * PORTFC_A, PORTFC_B, PORTFC_R (portfc.h, docs/PORTFC.md): a BCube
 * switch's class-A and class-B state of its other egress ports, and a
 * server's relay of a class-B frame to the switch two hops up:
 *   14 opcode 0x0002 (A), 0x0003 (B), 0x0004 (R, relayed B)
 *   16 reserved octet (0: the layout's version)  17 slot mask s6..s0
 *   18 pause time[0..6] in quanta, 0 resumes, 2 octets big-endian each.
 * Slot i of the frame a switch sends on port t is its port
 * ll_portfc_unslot(i, t). 32 octets.
 */
#define LL_CTRL_OP_PORTFC_A 0x0002
#define LL_CTRL_OP_PORTFC_B 0x0003
#define LL_CTRL_OP_PORTFC_R 0x0004
#define LL_CTRL_PORTFC_MIN_BYTES 32
#define LL_CTRL_PORTFC_SLOTS 7

/*
 * LL_CTRL_EXTRA_IDS and LL_CTRL_EXTRA_KINDS (ctrl.c's table) are the unit
 * tests' way in (tests/unit/extension_test.cpp): empty otherwise.
 */
#ifndef LL_CTRL_EXTRA_IDS
#define LL_CTRL_EXTRA_IDS
#endif
#ifndef LL_CTRL_EXTRA_KINDS
#define LL_CTRL_EXTRA_KINDS
#endif

enum ll_ctrl_kind {
	LL_CTRL_NONE = 0,
	LL_CTRL_PFC,		/* 802.1Qbb: pauses priorities */
	LL_CTRL_PAUSE,		/* 802.3x: pauses the whole port */
	LL_CTRL_TOKENS,		/* credits per priority and link (BifrostX) */
	LL_CTRL_PORTFC_A,	/* PortFC: a switch's class-A state */
	LL_CTRL_PORTFC_B,	/* PortFC: a switch's class-B state */
	LL_CTRL_PORTFC_R,	/* PortFC: class B relayed by a server */
	LL_CTRL_EXTRA_IDS	/* the unit tests' way in; empty otherwise */
	LL_CTRL_KIND_COUNT,	/* kinds are 1 .. this - 1 */
};

/*
 * A kind's entry: how it is recognised and where its fields are. Data
 * only (BPF programs read it: no pointers), so the codec is the layout:
 * an optional mask octet (without one, every gate of the kind), an
 * optional reserved octet that must be 0, and gates big-endian 16-bit
 * values from value_off on. A kind with a mask sends the values of its
 * set bits only (the others as 0), as PFC does; the mask octet covers a
 * kind's first eight gates, a ninth (the port gate) is always present.
 * A kind whose values are credits (credit: 1) rather than pause times
 * carries their lifetime in quanta at time_off (pause.h's credit gates).
 */
struct ll_ctrl_kind_desc {
	char name[8];		/* "pfc": stats, tools, dissectors */
	ll_u16 ethertype;
	ll_u16 opcode;		/* at 14; LL_CTRL_NO_OPCODE: none */
	ll_u8 min_bytes;	/* shortest frame holding the whole PDU */
	ll_u8 gate_base;	/* value[i] is for gate gate_base + i (pause.h) */
	ll_u8 gates;		/* values: 1 .. LL_CTRL_GATES */
	ll_u8 mask_off;		/* the gate mask's octet, or LL_CTRL_NONE_OFF */
	ll_u8 rsvd_off;		/* an octet that must be 0, or NONE_OFF */
	ll_u8 value_off;	/* the first value */
	ll_u8 time_off;		/* the credits' lifetime; 0: none */
	ll_u8 credit;		/* 1: values are credits, not pause times */
};


/* The entry of kind (1 .. LL_CTRL_KIND_COUNT - 1), or NULL. */
const struct ll_ctrl_kind_desc *ll_ctrl_kind(ll_u32 kind);

/*
 * Whether EtherType type is a control frame's (any kind's): every kind
 * has one of these two (tests/unit/codec_test.cpp checks the table), so
 * the qdisc's test per packet is two compares, not a walk of the table.
 */
static inline int ll_ctrl_ethertype(ll_u32 type)
{
	return type == LL_ETH_P_MAC_CONTROL || type == LL_ETH_P_LOSSLESS_CTRL;
}

/*
 * A decoded control frame. gate_mask: bit i set = value[i] speaks of gate
 * (the kind's gate base + i) (PFC: the class-enable vector, values in
 * quanta; PAUSE: bit 0, value[0] the port's pause time in quanta;
 * TOKENS: the priority mask and bit 8, credits in 64-octet units,
 * value[8] the link's, lifetime their lifetime in quanta).
 */
struct ll_ctrl_msg {
	ll_u8 src[LL_ETH_ALEN];
	ll_u8 kind;		/* enum ll_ctrl_kind */
	ll_u8 pad0;
	ll_u16 gate_mask;
	ll_u16 lifetime;	/* a credit kind's: quanta; 0 otherwise */
	ll_u16 value[LL_CTRL_GATES];
};

/* Parse results; every rejection has its own code so it can be counted. */
enum ll_parse_result {
	LL_PARSE_OK = 0,
	LL_PARSE_TRUNCATED,	/* shorter than the kind needs */
	LL_PARSE_OVERSIZE,	/* longer than a control frame */
	LL_PARSE_NOT_MAC_CTRL,	/* an EtherType of no kind */
	LL_PARSE_BAD_DA,	/* not 01-80-C2-00-00-01 nor the port's address */
	LL_PARSE_BAD_OPCODE,	/* an opcode of no kind */
	LL_PARSE_RESERVED_SET,	/* a reserved field is not zero */
	LL_PARSE_RESULT_COUNT,
};

extern const ll_u8 ll_mac_ctrl_da[LL_ETH_ALEN];

/*
 * Parse a frame that starts at its destination address. len is the frame
 * length without FCS. Only untagged frames are control frames: a VLAN
 * tag in front of the EtherType yields LL_PARSE_NOT_MAC_CTRL.
 *
 * The destination must be 01-80-C2-00-00-01 or, if port_addr is not NULL,
 * the receiving port's own unicast address port_addr (6 octets). NULL
 * accepts the reserved multicast address only.
 *
 * A frame shorter than the 60-octet minimum is accepted when it holds the
 * whole PDU (18 octets for PAUSE, 34 for PFC): software links (veth,
 * AF_PACKET senders) do not pad.
 */
enum ll_parse_result ll_ctrl_parse(const ll_u8 *frame, ll_u32 len,
				   const ll_u8 *port_addr,
				   struct ll_ctrl_msg *out);

/*
 * Build a minimum-size (60 octet) frame of m's kind into buf (buf_len >=
 * 60). Returns the frame length, or 0 if buf is too small or m's kind
 * unknown.
 */
ll_u32 ll_ctrl_build(ll_u8 *buf, ll_u32 buf_len, const struct ll_ctrl_msg *m);

/* Printable name of a parse result (for logs and stats). */
const char *ll_parse_result_name(enum ll_parse_result r);

#endif /* LL_CTRL_H */
