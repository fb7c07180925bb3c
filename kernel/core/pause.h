/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Pause gates: the receive side of PFC and PAUSE.
 *
 * A gate is either open or closed until a deadline. An XOFF (quanta > 0)
 * closes it until now + quanta * 512 bit times; a later XOFF restarts the
 * timer with its own value (802.3 Annex 31B: the newest frame wins, even a
 * shorter one); an XON (quanta 0) opens it at once; otherwise it opens by
 * itself at the deadline. A port has one gate per PFC priority, one port
 * gate (802.3x PAUSE, and port-level schemes) and free ones (below).
 * Callers own the clock: every function takes now_ns.
 */
#ifndef LL_PAUSE_H
#define LL_PAUSE_H

#include "ll_types.h"
#include "ctrl.h"

struct ll_pause_gate {
	ll_u64 until_ns;	/* valid while closed */
	ll_u64 closed_since_ns;	/* start of the current closed period */
	ll_u64 closed_ns_total;	/* closed time of finished periods */
	ll_u64 xoff_frames;	/* frames that closed or refreshed it */
	ll_u64 xon_frames;	/* frames with quanta 0 */
	ll_u8 closed;
};

enum ll_gate_event {
	LL_GATE_NONE = 0,	/* nothing changed (e.g. XON while open) */
	LL_GATE_CLOSED,		/* open -> closed */
	LL_GATE_REFRESHED,	/* closed, new deadline */
	LL_GATE_OPENED,		/* closed -> open (XON or expiry) */
};

/* Apply one received pause time. */
enum ll_gate_event ll_gate_apply(struct ll_pause_gate *g, ll_u64 now_ns,
				 ll_u32 quanta, ll_u64 rate_bps);

/* Open the gate if its deadline has passed; LL_GATE_OPENED if it did. */
enum ll_gate_event ll_gate_expire(struct ll_pause_gate *g, ll_u64 now_ns);

/* Total closed time up to now, including a period still running. */
ll_u64 ll_gate_closed_ns(const struct ll_pause_gate *g, ll_u64 now_ns);

/*
 * Gates by id: 0 .. 7 the PFC priorities, LL_GATE_PORT the port (802.3x
 * PAUSE, port-level schemes), LL_GATE_FREE .. LL_GATES - 1 free for a
 * scheme or the configuration (per-queue pauses, token gates). A kind of
 * control frame speaks of the gates from its table entry's gate base on
 * (ctrl.h); a queue is stopped by the gates of its mask (the qdisc's: its
 * PFC priorities by the priomap and the port gate, or the configuration's
 * TCA_LOSSLESS_GATES, as taprio's gate_mask).
 */
#define LL_GATE_PORT LL_PFC_PRIOS
#define LL_GATE_FREE (LL_GATE_PORT + 1)
#define LL_GATES 24

struct ll_port_pause {
	struct ll_pause_gate gates[LL_GATES];
};

/*
 * Apply a parsed control frame: value[i] to gate (the kind's gate base +
 * i) for every bit i of its gate mask. Returns a bitmask of gates whose
 * state changed open<->closed (bit LL_GATE_PORT for the port gate), so the
 * caller knows which queues to wake or stop.
 */
ll_u32 ll_port_pause_rx(struct ll_port_pause *p, ll_u64 now_ns,
			const struct ll_ctrl_msg *m, ll_u64 rate_bps);

/* Expire due gates; returns the bitmask of gates that opened. */
ll_u32 ll_port_pause_expire(struct ll_port_pause *p, ll_u64 now_ns);

/* Bitmask of closed gates (call ll_port_pause_expire first). */
ll_u32 ll_port_pause_closed_mask(const struct ll_port_pause *p);

/* Earliest deadline among closed gates, or 0 if every gate is open. */
ll_u64 ll_port_pause_next_deadline(const struct ll_port_pause *p);

/*
 * Credit gates: the receive side of a credit kind (ctrl.h; BifrostX's
 * tokens, docs/BIFROST.md). Its frame meters the priorities' gates it
 * names: from then on their queues send within the gate's credit, until
 * the credit's lifetime ends, then nothing. A packet goes while any
 * credit is left, and what it takes beyond is a debt the next credit
 * pays first: a gate sends at most its credits plus one packet, and no
 * slot loses the part of its credit smaller than a packet. A surplus
 * never carries over: each frame replaces it (spec X2). The frame's value for the port gate is the
 * link's credit, split among the named gates in the caller's service
 * order (strict priority), each share bounded by the gate's own credit
 * and its backlog (ll_credit_split(): bifrost.md's Alg. 3). Metering of
 * a gate ends when a pause frame speaks of it (the downstream speaks PFC
 * again: the newest frame wins) or when LL_CREDIT_LEASE lifetimes pass
 * with no credit frame (the downstream is gone: its gates would
 * otherwise stay shut for good). Only the PFC priorities' gates are
 * metered; a queue's other gates (the port's) stay pause gates.
 */
#define LL_CREDIT_GATES LL_PFC_PRIOS
#define LL_CREDIT_LEASE 16

struct ll_credit_gate {
	ll_s64 bytes;		/* credit left; below 0: a debt */
	ll_u64 until_ns;	/* the credit's end */
	ll_u64 lease_ns;	/* metering ends here unless renewed */
	ll_u64 frames;		/* credit frames that named it */
	ll_u64 granted_bytes;	/* its shares of the link credit, summed */
	ll_u64 blocked;		/* sends refused for want of credit */
};

struct ll_port_credit {
	ll_u32 metered;		/* bit g: gate g is metered */
	ll_u32 pad0;
	ll_u64 lease_min_ns;	/* the earliest lease of a metered gate */
	ll_u64 frames;		/* credit frames applied */
	ll_u64 lapses;		/* metering ended by a lease */
	struct ll_credit_gate gates[LL_CREDIT_GATES];
};

/*
 * Split link credit among n gates in order (index 0 first): out[i] =
 * min(backlog[i], credit[i], what is left). Returns what is left.
 */
ll_u64 ll_credit_split(ll_u64 link_credit, const ll_u64 *credit,
		       const ll_u64 *backlog, ll_u32 n, ll_u64 *out);

/*
 * Apply a credit kind's frame m at now_ns: order[0 .. n) the gates in
 * the caller's service order, backlog_bytes[g] the bytes gate g's queues
 * hold. A gate the frame names but order omits gets no credit. Returns
 * the gates whose metering began.
 */
ll_u32 ll_port_credit_rx(struct ll_port_credit *c, ll_u64 now_ns,
			 const struct ll_ctrl_msg *m, ll_u64 rate_bps,
			 const ll_u8 *order, ll_u32 n,
			 const ll_u64 *backlog_bytes);

/* End the metering of the gates in mask; returns those that were. */
ll_u32 ll_port_credit_end(struct ll_port_credit *c, ll_u32 mask);

/* End the metering whose lease has passed; returns those gates. */
ll_u32 ll_port_credit_expire(struct ll_port_credit *c, ll_u64 now_ns);

/* Earliest lease end among metered gates, or 0 if none is metered. */
ll_u64 ll_port_credit_next_deadline(const struct ll_port_credit *c);

/*
 * Whether a packet may go on every metered gate in mask at now_ns: each
 * has credit left (an expired credit is none). A refusal is counted
 * (blocked). The packet may take more than is left (a debt).
 */
int ll_port_credit_fits(struct ll_port_credit *c, ll_u32 mask, ll_u64 now_ns);

/* Charge len bytes to every metered gate in mask (the rest a debt). */
void ll_port_credit_charge(struct ll_port_credit *c, ll_u32 mask, ll_u32 len);

#endif /* LL_PAUSE_H */
