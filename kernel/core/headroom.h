/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Static PFC headroom: the bytes that can still arrive on an ingress
 * (port, priority) after the switch decides to pause its upstream, so that
 * a lossless queue given this much headroom never drops.
 *
 *   H = 3 * mtu_bytes                                      (1)-(3)
 *     + rate_bps * 2 * cable_delay_ns / 8e9                (4)
 *     + LL_HEADROOM_PFC_FRAME_BYTES                        (5)
 *     + peer_response_quanta * 512 / 8                     (6)
 *     + rate_bps * sw_response_ns / 8e9                    (7)
 *     + queued_bytes                                       (8)
 *     + shaper_burst_bytes                                 (9)
 *   then rounded up to a multiple of round_bytes (if > 1).
 *
 * (1) our PFC frame may wait behind one frame already being sent on the
 *     reverse link (upstream direction): one MTU of time, at line rate;
 * (2) when the pause takes effect the upstream may have just started a
 *     frame, which it finishes: one MTU;
 * (3) the qdisc admits a frame when it has fully arrived (store and
 *     forward), so the frame that finds the threshold crossed can itself
 *     land in headroom: one MTU. A cell-based hardware MMU decides
 *     mid-frame and has no such term (dsh.md Eq. 1 has two MTUs);
 * (4) the pause travels up the cable while data keeps coming down it: two
 *     one-way propagation delays of line-rate data (the bytes on the wire);
 * (5) the PFC frame's own transmission time (64 octets with FCS);
 * (6) the upstream MAC's reaction time, capped by IEEE 802.3 Annex 31B
 *     (31B.3.7) in pause quanta of 512 bit times; a quantum is 64 bytes of
 *     line-rate data at any speed. SONiC: peer_response_time = quanta*512/8.
 *     0 selects the table for rate_bps (ll_peer_response_quanta());
 * (7) the software delays of a Linux switch and host: softirq and NAPI
 *     latency, qdisc lock and timer slack on both ends, from the moment the
 *     MMU decides to pause until the upstream's qdisc stops dequeueing.
 *     On a software switch this is the dominant term (dsh.md 7.3): 1 ms at
 *     100 Mbit/s is 12,500 bytes, at 10 Gbit/s 1.25 MB, where the cable
 *     terms of a 2 m veth are zero;
 * (8) bytes the upstream has already handed below its qdisc (driver ring,
 *     BQL limit) and cannot recall, plus the same on our reverse path.
 * (9) the upstream's shaper may send above its rate for a moment: after
 *     idling, its burst; after a late timer wake-up while backlogged, its
 *     catch-up (shaper.h). Either may fall inside the pause reaction, so
 *     the larger of the two is counted once, in bytes.
 *
 * mtu_bytes is the largest frame the MMU accounts (L2 header included;
 * 64 KiB if GSO packets are accounted unsegmented). Rates in bits/s, times
 * in ns, every term rounded up: the result never underestimates.
 */
#ifndef LL_HEADROOM_H
#define LL_HEADROOM_H

#include "ll_types.h"

#define LL_HEADROOM_PFC_FRAME_BYTES 64
/* Each delay input is at most 1 s: keeps every product inside 64 bits. */
#define LL_HEADROOM_MAX_DELAY_NS LL_NSEC_PER_SEC
/* Rates above 1.6 Tbit/s are rejected (uapi LOSSLESS_RATE_MAX_BPS). */
#define LL_HEADROOM_MAX_RATE_BPS 1600000000000ULL
#define LL_HEADROOM_MAX_MTU_BYTES (1U << 20)

struct ll_headroom_params {
	ll_u64 rate_bps;		/* upstream link rate */
	ll_u64 cable_delay_ns;		/* one-way propagation delay */
	ll_u64 sw_response_ns;		/* software pause reaction, both ends */
	ll_u32 mtu_bytes;		/* largest accounted frame */
	ll_u32 peer_response_quanta;	/* 0: ll_peer_response_quanta(rate) */
	ll_u32 queued_bytes;		/* unrecallable bytes below qdiscs */
	ll_u32 round_bytes;		/* round up to a multiple (cell); 0, 1: none */
	ll_u32 shaper_burst_bytes;	/* upstream max(burst, catch-up) */
};

/*
 * Upstream reaction time in pause quanta for a link rate, per IEEE 802.3
 * Annex 31B.3.7 and its amendments (the values SONiC's headroom scripts
 * use): <= 100M: 1, <= 1G: 2, <= 10G: 60, <= 25G: 80, <= 40G: 118,
 * <= 50G: 147, <= 100G: 394, <= 200G: 453, above: 905.
 */
ll_u32 ll_peer_response_quanta(ll_u64 rate_bps);

/*
 * Headroom in bytes per the formula above; 0 for invalid input (rate 0 or
 * above the maximum, mtu 0 or above the maximum, a delay above 1 s).
 */
ll_u64 ll_headroom_bytes(const struct ll_headroom_params *p);

/*
 * ceil(rate_bps * ns / 8e9): the bytes a link at rate_bps carries in ns.
 * Exact for rate_bps <= LL_HEADROOM_MAX_RATE_BPS and ns <= 2^31; outside
 * that range it saturates to ~0ULL (never an underestimate).
 */
ll_u64 ll_bytes_in_ns(ll_u64 rate_bps, ll_u64 ns);

#endif /* LL_HEADROOM_H */
