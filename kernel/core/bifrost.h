/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Bifrost (bifrost.md; docs/BIFROST.md): the downstream of a long link
 * drives its upstream with one computed pause per slot instead of PFC's
 * thresholds. Every slot T it reads its queue L and the bytes r received
 * in the slot, keeps F, an upper bound on the bytes that can still arrive
 * within the next RTT + T, and grants c = min(B, H - L - F) bytes (B =
 * R_s T) by a pause of T - c / R_s, so that L + F stays within H >= Delta
 * + 2B (Delta = R_s RTT): about one BDP of buffer where PFC needs two.
 *
 * The per-slot update is the spec's normative form (bifrost.md 2.6):
 *   c := max(0, min(B, H - L - F))          (R1: a grant is never negative)
 *   c^ := max(0, c - max(0, L + F - H)) every k-th slot  (R2: positive
 *                                             over-grant only; a no-op
 *                                             after R1, kept as the paper)
 *   p := T - c^ / R_s, in [0, T]; T + g when c^ = 0 (R4: the guard g =
 *        J + MTU / R_s covers a late next slot and a frame that waits
 *        behind one MTU, so a full pause leaves no gap to leak)
 *   F := min(Delta + B + R_s J, max(0, F + e - r + c))   (R3: F >= 0)
 * Lateness (bifrost.md A4, 2.7): the upstream sends freely from the end
 * of its last pause until the next frame, so a grant runs past its slot
 * when the next slot is late. Every grant keeps R_s J of room back for
 * that (c <= H - L - F - R_s J), and the next slot adds what ran past, e
 * = R_s x (its lateness beyond the last pause), to F before its grant;
 * the part beyond J is counted (late_grant_bytes): the lateness the
 * buffer was not sized for. F is not charged R_s J ahead: it would sit at
 * its bound, stop predicting the bytes in flight and cost the link its
 * throughput under partial congestion (S4). After a gap as long as F's
 * window (RTT + T + J), F restarts from its bound. J must include every
 * delay of the slot loop and of the frame's way out (timer, softirq,
 * queueing).
 *
 * A frame goes out when p > 0 (quanta rounded up, R5/A10), and a resume
 * (time 0) when a guarded full pause ends in a full grant. The caller
 * owns the clock and the timer: it calls ll_bifrost_slot() at or after
 * ll_bifrost_next_ns(), on an absolute schedule t_0 + n T that never
 * drifts; slots missed entirely are counted and skipped (their time is in
 * the next slot's lateness).
 *
 * BifrostX (2.10): the link token c_max is c^ above, with L and r summed
 * over the port's priorities; per-priority tokens from the growth of each
 * priority's queue (Alg. 2) and the upstream's strict-priority split of
 * the link token (Alg. 3) are the last two functions.
 *
 * Integers only; bytes are L2 frame bytes, rates bits/s, times ns.
 */
#ifndef LL_BIFROST_H
#define LL_BIFROST_H

#include "ll_types.h"

/* A pause is 16-bit quanta of 64 bytes: a slot may carry at most this. */
#define LL_BIFROST_SLOT_BYTES_MAX (0xFFFFULL * 64)
#define LL_BIFROST_RTT_NS_MAX (2ULL * LL_NSEC_PER_SEC)
#define LL_BIFROST_LEAK_PERIOD_MAX 1024U
#define LL_BIFROST_PRIOS 8
/* Lateness histogram: bucket 0 < 1 us, bucket i in [2^(i-1), 2^i) us, the
 * last one open (from 2^18 us, 262 ms: TCG's timers reach tens of ms).
 */
#define LL_BIFROST_LATE_BUCKETS 20

struct ll_bifrost_config {
	ll_u64 rate_bps;	/* R_s: the link's (or its shaper's) rate */
	ll_u64 slot_ns;		/* T */
	ll_u64 rtt_ns;		/* an upper bound of the control loop's RTT */
	ll_u64 jitter_ns;	/* J: lateness a slot may have; the guard g */
	ll_u64 buffer_bytes;	/* H; 0: ll_bifrost_buffer_default() */
	ll_u32 leak_period;	/* k >= 1 */
	ll_u32 mtu_bytes;	/* largest frame on the link */
};

/* What one slot decided. */
struct ll_bifrost_decision {
	ll_u64 grant_bytes;	/* c, recorded in F */
	ll_u64 link_token_bytes; /* c^ (BifrostX's c_max) */
	ll_u64 pause_ns;	/* p; T + g for a guarded full pause */
	ll_u32 quanta;		/* p in quanta, rounded up; 0: resume */
	ll_u8 send;		/* a frame goes out (a pause, or a resume) */
	ll_u8 missed_slots;	/* slots skipped before this one (saturates) */
};

/* Counters since the last init (link up, rate change, reconfiguration). */
struct ll_bifrost_stats {
	ll_u64 slots;
	ll_u64 frames;		/* pauses and resumes sent */
	ll_u64 resumes;		/* of which time-0 frames */
	ll_u64 full_pauses;	/* c^ = 0 */
	ll_u64 pause_ns_total;	/* sum of p over pause frames */
	ll_u64 missed_slots;	/* skipped, the timer was late by >= T */
	ll_u64 restarts;	/* gaps of F's window or more (idle, stopped):
				 * not in the lateness or missed_slots; and
				 * the embedding's restarts (mode_bifrost.c)
				 */
	ll_u64 wakes;		/* the embedding's: idle spells ended */
	ll_u64 late_grant_bytes; /* e: sent beyond grants, slots late past J */
	ll_u64 leak_bytes;	/* received beyond what F held (R3 floor) */
	ll_u64 breaches;	/* slots that ended with L + F > H */
	ll_u64 max_queue_bytes;	/* max L */
	ll_u64 max_lf_bytes;	/* max L + F */
	ll_s64 min_margin_bytes; /* min H - (L + F) */
	ll_u64 max_late_ns;
	/*
	 * The loop's round trip as measured: from a full pause after a
	 * window of grants of two MTU or more (the upstream sending every
	 * slot) to the last slot that still saw bytes arrive, while every
	 * slot between paused fully (an upper bound within a slot;
	 * docs/BIFROST.md).
	 */
	ll_u64 rtt_max_ns;
	ll_u64 rtt_samples;
	ll_u64 late_hist[LL_BIFROST_LATE_BUCKETS];
};

struct ll_bifrost {
	/* Derived at init from the configuration. */
	ll_u64 rate_bps;
	ll_u64 slot_ns;
	ll_u64 jitter_ns;	/* J */
	ll_u64 guard_ns;	/* g = J + MTU / R_s; 0 without jitter */
	ll_u64 window_ns;	/* RTT + T + J: F's window */
	ll_u64 jitter_bytes;	/* R_s J, kept back by every grant */
	ll_u64 bdp_bytes;	/* Delta = R_s RTT, rounded up */
	ll_u64 slot_bytes;	/* B = R_s T, rounded up */
	ll_u64 f_max_bytes;	/* Delta + B + R_s J: F's bound */
	ll_u64 buffer_bytes;	/* H */
	ll_u32 leak_period;
	/* State. */
	ll_u32 leak_countdown;	/* slots to the next R2 deduction */
	ll_u64 f_bytes;		/* F */
	ll_u64 rx_prev;		/* the receive counter at the last slot */
	ll_u64 next_ns;		/* the next slot's scheduled time */
	ll_u64 last_ns;		/* when the last slot ran */
	ll_u64 last_pause_ns;	/* its p (0: no frame) */
	ll_u64 slot;		/* n: slots run since init */
	ll_u8 guarded;		/* the last frame was a guarded full pause */
	ll_u64 probe_ns;	/* the RTT probe's full pause, 0: none */
	ll_u64 probe_last_rx_ns; /* its last slot that saw arrivals */
	ll_u64 probe_min_bytes;	/* a grant that sends a packet per slot */
	ll_u32 probe_ready;	/* slots in a row that granted that */
	ll_u32 probe_quiet;	/* slots in a row the probe saw nothing */
	struct ll_bifrost_stats stats;
};

/*
 * Delta + 2B + 2 R_s J: the least buffer Theorem 1 holds with (C1), with
 * F's bound one jitter longer and every grant keeping R_s J back (above).
 * 0 if invalid.
 */
ll_u64 ll_bifrost_buffer_min(const struct ll_bifrost_config *cfg);

/*
 * The default H: Delta + 3B (the paper's testbed) + k MTU (its leak
 * headroom) + 2 R_s J (the lateness, above). 0 if invalid.
 */
ll_u64 ll_bifrost_buffer_default(const struct ll_bifrost_config *cfg);

/* NULL if cfg is valid, else why not, for the user. */
const char *ll_bifrost_check(const struct ll_bifrost_config *cfg);

/*
 * Start (or restart: link up, rate change) from the configuration, at
 * now_ns with the receive counter at rx_bytes: F at its bound, slot 0,
 * the first slot at now_ns + T, counters cleared. cfg must pass the check.
 */
void ll_bifrost_init(struct ll_bifrost *b, const struct ll_bifrost_config *cfg,
		     ll_u64 now_ns, ll_u64 rx_bytes);

/*
 * New parameters at the same rate (bifrost.md S11: they apply at the next
 * slot): the derived values from cfg, the loop's state kept (F, the
 * receive counter, the schedule, the last frame, the counters; F is not
 * cut to a smaller bound here, the next slot caps it). cfg must pass the
 * check.
 */
void ll_bifrost_reconfigure(struct ll_bifrost *b,
			    const struct ll_bifrost_config *cfg);

/* When the next slot is due (absolute, ns). */
static inline ll_u64 ll_bifrost_next_ns(const struct ll_bifrost *b)
{
	return b->next_ns;
}

/*
 * Run the slot due at ll_bifrost_next_ns(), at now_ns (not earlier), with
 * the controlled queue at queue_bytes and the receive counter at rx_bytes
 * (64 bits, wrapping; extend a narrower hardware counter first). Fills
 * d; returns d->send.
 */
int ll_bifrost_slot(struct ll_bifrost *b, ll_u64 now_ns, ll_u64 queue_bytes,
		    ll_u64 rx_bytes, struct ll_bifrost_decision *d);

/*
 * BifrostX, downstream (Alg. 2): token[i] = B - max(0, queue[i] -
 * prev[i]) for n priorities (at most LL_BIFROST_PRIOS; entries beyond
 * are not written), in [0, B]; prev[] takes queue[].
 */
void ll_bifrostx_tokens(ll_u64 slot_bytes, const ll_u64 *queue, ll_u64 *prev,
			ll_u32 n, ll_u64 *token);

/*
 * BifrostX, upstream (Alg. 3): the link token split in strict priority
 * order is pause.h's ll_credit_split(), run by the credit gates as each
 * token frame arrives.
 */

#endif /* LL_BIFROST_H */
