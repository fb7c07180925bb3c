/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Pause gates: the receive side of PFC and PAUSE.
 *
 * A gate is either open or closed until a deadline. An XOFF (quanta > 0)
 * closes it until now + quanta * 512 bit times; a later XOFF restarts the
 * timer with its own value (802.3 Annex 31B: the newest frame wins, even a
 * shorter one); an XON (quanta 0) opens it at once; otherwise it opens by
 * itself at the deadline. A port has one gate per PFC priority and one
 * port gate (802.3x PAUSE, and later port-level schemes such as DSH).
 * Callers own the clock: every function takes now_ns.
 */
#ifndef LL_PAUSE_H
#define LL_PAUSE_H

#include "ll_types.h"
#include "pfc.h"

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

/* Index of the port gate in ll_port_pause.gates[]. */
#define LL_GATE_PORT LL_PFC_PRIOS
#define LL_GATES (LL_PFC_PRIOS + 1)

struct ll_port_pause {
	struct ll_pause_gate gates[LL_GATES];
};

/*
 * Apply a parsed MAC control frame. Returns a bitmask of gates whose
 * state changed open<->closed (bit LL_GATE_PORT for the port gate), so the
 * caller knows which queues to wake or stop.
 */
ll_u32 ll_port_pause_rx(struct ll_port_pause *p, ll_u64 now_ns,
			const struct ll_mac_ctrl *m, ll_u64 rate_bps);

/* Expire due gates; returns the bitmask of gates that opened. */
ll_u32 ll_port_pause_expire(struct ll_port_pause *p, ll_u64 now_ns);

/* Bitmask of closed gates (call ll_port_pause_expire first). */
ll_u32 ll_port_pause_closed_mask(const struct ll_port_pause *p);

/* Earliest deadline among closed gates, or 0 if every gate is open. */
ll_u64 ll_port_pause_next_deadline(const struct ll_port_pause *p);

#endif /* LL_PAUSE_H */
