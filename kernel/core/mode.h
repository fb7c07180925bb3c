/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The port-mode seam (docs/ARCHITECTURE.md, "Port modes"). A pool's
 * scheme decides for every port; a mode decides for one port's lossless
 * ingress, beside it: Bifrost on a long-haul port among short ones that
 * keep the pool's scheme. What a mode changes, and what mmu.c does for it
 * with no code per mode:
 *   buffer     the port carves the mode's buffer H out of the shared
 *              pool as its headroom (one H for the port, not one per
 *              priority); its lossless bytes are charged there, bounded
 *              by H, and never reach the pool's scheme (no threshold,
 *              hysteresis or event hook sees them);
 *   frames     what the port sends upstream is the mode's: the port's
 *              timer runs the mode's slot on the mode's own schedule
 *              (ll_mmu_ctrl_next_deadline() includes it) and the frame
 *              it decides goes out by the same take/complete path as
 *              PFC's (ll_mmu_ctrl_take()), from the control band;
 *   restart    the mode restarts (its state from its parameters) at
 *              the first arrival after attach, a change of the port's
 *              rate, the port's link going down and up
 *              (ll_mmu_port_restart()) or an idle spell: the port's timer
 *              sleeps while the mode says it is idle (idle()), and an
 *              arrival wakes it; a restart while the port holds bytes
 *              starts the loop at once. New parameters or a new MTU at
 *              the same rate reconfigure the running loop (reconfigure()).
 * A mode never runs per packet: its hooks run at configuration time, on
 * the port's timer and for telemetry, so they go through the descriptor.
 * Every hook runs under the pool lock, like the rest of mmu.h.
 */
#ifndef LL_MODE_H
#define LL_MODE_H

#include "mode_types.h"
#include "ctrl.h"
#include "param.h"
#include "scheme_types.h"	/* struct ll_scheme_stat_desc */

/* What a mode's start follows (the first start's state is zero). */
enum ll_mode_start {
	LL_MODE_START_RESTART = 1,	/* attach, link up, new rate, params, MTU */
	LL_MODE_START_WAKE = 2,		/* an idle spell */
};

struct ll_mode_desc {
	const char *name;	/* what users type: tc's "mode NAME" */
	const char *title;	/* one line */
	const char *doc;	/* its page */
	/*
	 * Its parameters, row i = word i of union ll_mode_params = netlink
	 * attribute i + 1 of its nest (nl_nest in TCA_LOSSLESS_MODE; the
	 * nest's attribute n_params + 1 is its pad).
	 */
	const struct ll_param *params;
	ll_u32 n_params;
	ll_u16 nl_nest;		/* TCA_LOSSLESS_MODE_<NAME> */
	ll_u16 nl_pad;
	/*
	 * Its telemetry: stats[i] names ll_mode_port_stats.ctr[i],
	 * prio_stats[v] its per-priority values prio[v][0..7].
	 */
	const struct ll_scheme_stat_desc *stats;
	ll_u32 n_stats;
	const struct ll_scheme_stat_desc *prio_stats;
	ll_u32 n_prio_stats;
	/* Why mp is refused on a port of rate_bps, for the user, or NULL. */
	const char *(*check)(const union ll_mode_params *mp, ll_u64 rate_bps,
			     ll_u32 mtu_bytes);
	/* The buffer the port carves (mp passed the check). */
	ll_u64 (*buffer)(const union ll_mode_params *mp, ll_u64 rate_bps,
			 ll_u32 mtu_bytes);
	/*
	 * (Re)start st at now_ns, the port's receive counter at rx_bytes:
	 * at a sleeping port's first arrival, after what why says (enum
	 * ll_mode_start). st is zero the first time; later starts keep the
	 * counters and count themselves by why.
	 */
	void (*start)(union ll_mode_state *st, const union ll_mode_params *mp,
		      ll_u64 rate_bps, ll_u32 mtu_bytes, ll_u64 now_ns,
		      ll_u64 rx_bytes, ll_u32 why);
	/*
	 * New parameters (or MTU) at the same rate: st keeps its loop's
	 * state and the next slot uses them (a rate change restarts).
	 */
	void (*reconfigure)(union ll_mode_state *st,
			    const union ll_mode_params *mp, ll_u64 rate_bps,
			    ll_u32 mtu_bytes);
	/*
	 * 1 if the mode needs no slot until the port's next arrival: it
	 * holds no byte (queue_bytes), none arrived since its last slot
	 * (rx_bytes) and its last frame left the upstream free. The port's
	 * timer sleeps then, and the next arrival restarts the mode.
	 */
	int (*idle)(const union ll_mode_state *st, ll_u64 queue_bytes,
		    ll_u64 rx_bytes);
	/* When its next slot is due (absolute ns). */
	ll_u64 (*next_ns)(const union ll_mode_state *st);
	/*
	 * The slot due at next_ns(), run at now_ns: queue_bytes the port's
	 * lossless bytes held (prio_bytes[p]: priority p's part),
	 * rx_bytes its lossless bytes ever arrived.
	 * Returns 1 and fills msg (its kind of ctrl.h's table; gates for the
	 * priorities in lossless_mask) when a frame goes out.
	 */
	int (*slot)(union ll_mode_state *st, const union ll_mode_params *mp,
		    ll_u64 now_ns, ll_u64 queue_bytes, const ll_u64 *prio_bytes,
		    ll_u64 rx_bytes, ll_u8 lossless_mask,
		    struct ll_ctrl_msg *msg);
	/* Its telemetry into out (ctr, late_hist, prio; mode is the caller's). */
	void (*port_stats)(const union ll_mode_state *st, ll_u64 queue_bytes,
			   struct ll_mode_port_stats *out);
};

/* The descriptors, each in its mode's file, for mode.c's table. */
extern const struct ll_mode_desc ll_mode_bifrost;

/* Bifrost's slot T in force for mp: bifrost-slot, or its default. */
ll_u64 ll_bifrost_mode_slot_ns(const union ll_mode_params *mp);

/* The descriptor of a mode (1 .. LL_MODE_COUNT - 1), or NULL. */
const struct ll_mode_desc *ll_mode_lookup(ll_u32 id);

/* Name of a mode id ("bifrost"; "none" for 0), or NULL. */
const char *ll_mode_name(ll_u32 id);

/* Id of a mode's name ("none" is 0), or -1. */
int ll_mode_by_name(const char *name);

/*
 * Why a port of rate_bps cannot run mode with mp, for the user (naming
 * tc's keywords), or NULL: an unknown mode, parameter words beyond the
 * mode's rows, the mode's own check.
 */
const char *ll_mode_check(ll_u32 mode, const union ll_mode_params *mp,
			  ll_u64 rate_bps, ll_u32 mtu_bytes);

/* The buffer such a port carves (0: no mode, or refused). */
ll_u64 ll_mode_buffer(ll_u32 mode, const union ll_mode_params *mp,
		      ll_u64 rate_bps, ll_u32 mtu_bytes);

#endif /* LL_MODE_H */
