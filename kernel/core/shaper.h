/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The port's line-rate shaper: a token bucket in nanoseconds of link time
 * that behaves like a link while the port has something to send.
 *
 * A software port has no wire clock: it sends when its timer (the qdisc
 * watchdog, then softirq) runs, and that is late by an amount the port does
 * not control (tens of us natively, milliseconds under QEMU TCG). A plain
 * token bucket whose depth is the burst loses the credit of every wake-up
 * later than the burst allows, so a backlogged port sends less than its
 * rate. Here the credit has two caps:
 *
 *   - while the port is backlogged ("busy": it has a packet it may send),
 *     credit accrues up to catchup_ns: after a late wake-up the port sends
 *     back to back until it has caught up with its virtual transmit clock,
 *     so over any window longer than the lateness it sends exactly its rate;
 *   - when it goes idle (nothing queued, or every backlogged queue paused),
 *     the credit is cut to burst_ns at once and grows no further: an idle
 *     or paused port gains at most `burst`, and a resume is not followed by
 *     a catch-up burst.
 *
 * So no window of length W sends more than rate x W + max(burst, catch-up)
 * bytes; the headroom formula counts that bound (headroom.h term 9).
 *
 * Cost of len bytes: (len * mult) >> shift ns, with mult and shift chosen
 * as the kernel's psched_ratecfg_precompute() does (relative error below
 * 2^-31). Integer only; the caller serialises (the qdisc lock).
 */
#ifndef LL_SHAPER_H
#define LL_SHAPER_H

#include "ll_types.h"

/* Lateness histogram: bucket 0 counts wake-ups less than 1024 ns late,
 * bucket i (1..LL_LATENESS_BUCKETS - 2) those in [2^(9+i), 2^(10+i)) ns,
 * the last one everything from 2^(8+LL_LATENESS_BUCKETS) ns (~268 ms) on.
 */
#define LL_LATENESS_BUCKETS 20

struct ll_shaper {
	ll_u64 rate_bps;
	ll_u32 mult;
	ll_u32 shift;
	ll_s64 tokens_ns;	/* credit at t_c_ns, may be negative */
	ll_u64 t_c_ns;
	ll_s64 burst_ns;	/* credit cap while idle */
	ll_s64 catchup_ns;	/* credit cap while busy, >= burst_ns */
	ll_u64 lost_ns;		/* credit cut while busy: lateness beyond catch-up */
	ll_u32 busy;
};

/*
 * Set rate, burst and catch-up (bytes; catch-up below burst counts as
 * burst). Keeps the credit, capped to the new bounds. rate_bps > 0.
 */
void ll_shaper_config(struct ll_shaper *s, ll_u64 rate_bps,
		      ll_u32 burst_bytes, ll_u32 catchup_bytes);

/* A full bucket (burst), idle, at now_ns. */
void ll_shaper_reset(struct ll_shaper *s, ll_u64 now_ns);

/* Link time of len bytes at the configured rate. */
static inline ll_u64 ll_shaper_len_ns(const struct ll_shaper *s, ll_u32 len)
{
	return ((ll_u64)len * s->mult) >> s->shift;
}

/*
 * The port wants to send len bytes at now_ns: 0 if it may (the credit is
 * charged and the port is busy from now on), else the time at which it
 * will have the credit. A frame larger than the bucket goes when the
 * bucket is full.
 */
ll_u64 ll_shaper_take(struct ll_shaper *s, ll_u32 len, ll_u64 now_ns);

/*
 * The port has nothing it may send at now_ns (empty, or every backlogged
 * queue paused): credit earned up to now counts, then it is cut to burst.
 */
void ll_shaper_idle(struct ll_shaper *s, ll_u64 now_ns);

/* Bucket of a lateness for the histogram above. */
ll_u32 ll_lateness_bucket(ll_u64 late_ns);

/* The default burst's time at the rate: 100 us. */
#define LL_SHAPER_BURST_DEFAULT_NS 100000ULL

/*
 * The qdisc's defaults, shared with losslessd --check (which sizes a
 * pool's headroom as the qdisc will): the burst is 100 us at rate_bps
 * (rounded down), at least two frames of frame_bytes (device MTU + link
 * header) and at most LOSSLESS_BURST_MAX_BYTES; the catch-up is sw-delay
 * at rate_bps, at most LOSSLESS_BURST_MAX_BYTES, and at least burst_bytes.
 * Headroom term (9) is the catch-up (headroom.h).
 */
ll_u32 ll_shaper_default_burst_bytes(ll_u64 rate_bps, ll_u32 frame_bytes);
ll_u32 ll_shaper_default_catchup_bytes(ll_u64 rate_bps, ll_u64 sw_delay_ns,
				       ll_u32 burst_bytes);

#endif /* LL_SHAPER_H */
