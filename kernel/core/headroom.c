// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Static PFC headroom: see headroom.h for the formula and its terms. */
#include "headroom.h"
#include "ctrl.h"

#define BITS_PER_BYTE_NS (8ULL * LL_NSEC_PER_SEC)	/* 8e9 < 2^33 */
#define BYTES_IN_NS_MAX_NS (1ULL << 31)

ll_u64 ll_bytes_in_ns(ll_u64 rate_bps, ll_u64 ns)
{
	ll_u64 q, r;

	if (rate_bps > LL_HEADROOM_MAX_RATE_BPS || ns > BYTES_IN_NS_MAX_NS)
		return ~0ULL;
	/* rate < 2^41 and ns < 2^22 (DSH's gap between two arrivals): the
	 * product fits 64 bits, one division.
	 */
	if (ns < (1ULL << 22))
		return ll_div_u64(rate_bps * ns + BITS_PER_BYTE_NS - 1,
				  BITS_PER_BYTE_NS);
	/*
	 * rate = q * 8e9 + r, so rate * ns / 8e9 = q * ns + r * ns / 8e9,
	 * with q <= 200 and r * ns + 8e9 < 8e9 * (2^31 + 1) < 2^64.
	 */
	q = ll_div_u64(rate_bps, BITS_PER_BYTE_NS);
	r = rate_bps - q * BITS_PER_BYTE_NS;
	return q * ns + ll_div_u64(r * ns + BITS_PER_BYTE_NS - 1,
				   BITS_PER_BYTE_NS);
}

#define GBPS 1000000000ULL

ll_u32 ll_peer_response_quanta(ll_u64 rate_bps)
{
	if (rate_bps <= GBPS / 10)
		return 1;
	if (rate_bps <= 1 * GBPS)
		return 2;
	if (rate_bps <= 10 * GBPS)
		return 60;
	if (rate_bps <= 25 * GBPS)
		return 80;
	if (rate_bps <= 40 * GBPS)
		return 118;
	if (rate_bps <= 50 * GBPS)
		return 147;
	if (rate_bps <= 100 * GBPS)
		return 394;
	if (rate_bps <= 200 * GBPS)
		return 453;
	return 905;
}

ll_u64 ll_headroom_bytes(const struct ll_headroom_params *p)
{
	ll_u64 bytes, quanta, rem;

	if (!p->rate_bps || p->rate_bps > LL_HEADROOM_MAX_RATE_BPS)
		return 0;
	if (!p->mtu_bytes || p->mtu_bytes > LL_HEADROOM_MAX_MTU_BYTES)
		return 0;
	if (p->cable_delay_ns > LL_HEADROOM_MAX_DELAY_NS ||
	    p->sw_response_ns > LL_HEADROOM_MAX_DELAY_NS)
		return 0;

	quanta = p->peer_response_quanta ? p->peer_response_quanta :
		 ll_peer_response_quanta(p->rate_bps);

	bytes = 3ULL * p->mtu_bytes;					/* (1)-(3) */
	bytes += ll_bytes_in_ns(p->rate_bps, 2 * p->cable_delay_ns);	/* (4) */
	bytes += LL_HEADROOM_PFC_FRAME_BYTES;				/* (5) */
	bytes += quanta * (LL_PAUSE_QUANTUM_BITS / 8);			/* (6) */
	bytes += ll_bytes_in_ns(p->rate_bps, p->sw_response_ns);	/* (7) */
	bytes += p->queued_bytes;					/* (8) */
	bytes += p->shaper_burst_bytes;					/* (9) */

	if (p->round_bytes > 1) {
		rem = bytes - ll_div_u64(bytes, p->round_bytes) * p->round_bytes;
		if (rem)
			bytes += p->round_bytes - rem;
	}
	return bytes;
}
