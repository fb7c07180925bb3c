// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The port's line-rate shaper: see shaper.h. */
#include "shaper.h"
#include "headroom.h"
#include "lossless.h"	/* the uapi: LOSSLESS_BURST_MAX_BYTES */

#define NSEC_PER_BYTE_AT_1BPS (8ULL * LL_NSEC_PER_SEC)

/* mult/shift as psched_ratecfg_precompute(): the largest factor that keeps
 * mult below 2^32, so len * mult fits 64 bits for any frame below 4 GiB.
 */
static void shaper_precompute(struct ll_shaper *s, ll_u64 rate_bps)
{
	ll_u64 rate_bytes = rate_bps >> 3 ? rate_bps >> 3 : 1;
	ll_u64 factor = LL_NSEC_PER_SEC;

	s->mult = 1;
	s->shift = 0;
	for (;;) {
		ll_u64 m = ll_div_u64(factor, rate_bytes);

		s->mult = (ll_u32)m;
		if ((m & (1ULL << 31)) || (factor & (1ULL << 63)))
			break;
		factor <<= 1;
		s->shift++;
	}
}

static ll_s64 shaper_bytes_ns(const struct ll_shaper *s, ll_u32 bytes)
{
	return (ll_s64)ll_shaper_len_ns(s, bytes);
}

static ll_s64 shaper_cap(const struct ll_shaper *s)
{
	return s->busy ? s->catchup_ns : s->burst_ns;
}

/* Credit at now_ns under the current state's cap; counts what a busy port
 * could not keep.
 */
static ll_s64 shaper_credit(struct ll_shaper *s, ll_u64 now_ns)
{
	ll_s64 toks = s->tokens_ns;
	ll_s64 cap = shaper_cap(s);

	if (now_ns > s->t_c_ns)
		toks += (ll_s64)(now_ns - s->t_c_ns);
	if (toks > cap) {
		if (s->busy)
			s->lost_ns += (ll_u64)(toks - cap);
		toks = cap;
	}
	return toks;
}

void ll_shaper_config(struct ll_shaper *s, ll_u64 rate_bps,
		      ll_u32 burst_bytes, ll_u32 catchup_bytes)
{
	s->rate_bps = rate_bps;
	shaper_precompute(s, rate_bps);
	s->burst_ns = shaper_bytes_ns(s, burst_bytes);
	s->catchup_ns = shaper_bytes_ns(s, catchup_bytes);
	if (s->catchup_ns < s->burst_ns)
		s->catchup_ns = s->burst_ns;
	if (s->tokens_ns > shaper_cap(s))
		s->tokens_ns = shaper_cap(s);
}

void ll_shaper_reset(struct ll_shaper *s, ll_u64 now_ns)
{
	s->busy = 0;
	s->tokens_ns = s->burst_ns;
	s->t_c_ns = now_ns;
}

ll_u64 ll_shaper_take(struct ll_shaper *s, ll_u32 len, ll_u64 now_ns)
{
	ll_s64 cost = shaper_bytes_ns(s, len);
	ll_s64 toks = shaper_credit(s, now_ns);
	ll_s64 need = cost < s->catchup_ns ? cost : s->catchup_ns;

	/* From here the port is backlogged: credit earned while idle was
	 * capped above; from now on it may accrue up to the catch-up bound.
	 */
	s->busy = 1;
	s->t_c_ns = now_ns;
	if (toks < need) {
		s->tokens_ns = toks;
		return now_ns + (ll_u64)(need - toks);
	}
	s->tokens_ns = toks - cost;
	return 0;
}

void ll_shaper_idle(struct ll_shaper *s, ll_u64 now_ns)
{
	ll_s64 toks = shaper_credit(s, now_ns);

	s->busy = 0;
	s->tokens_ns = toks < s->burst_ns ? toks : s->burst_ns;
	if (now_ns > s->t_c_ns)
		s->t_c_ns = now_ns;
}

ll_u32 ll_lateness_bucket(ll_u64 late_ns)
{
	ll_u32 b = 0;

	late_ns >>= 10;
	while (late_ns && b < LL_LATENESS_BUCKETS - 1) {
		late_ns >>= 1;
		b++;
	}
	return b;
}

ll_u32 ll_shaper_default_burst_bytes(ll_u64 rate_bps, ll_u32 frame_bytes)
{
	ll_u64 b = 2ULL * frame_bytes;
	ll_u64 at_rate;

	/* rate <= 1.6 Tbit/s: the product stays below 2^58. */
	if (rate_bps > LL_HEADROOM_MAX_RATE_BPS)
		rate_bps = LL_HEADROOM_MAX_RATE_BPS;
	at_rate = ll_div_u64(rate_bps * LL_SHAPER_BURST_DEFAULT_NS,
			     NSEC_PER_BYTE_AT_1BPS);
	if (at_rate > b)
		b = at_rate;
	return b > LOSSLESS_BURST_MAX_BYTES ? LOSSLESS_BURST_MAX_BYTES : (ll_u32)b;
}

ll_u32 ll_shaper_default_catchup_bytes(ll_u64 rate_bps, ll_u64 sw_delay_ns,
				       ll_u32 burst_bytes)
{
	ll_u64 c = ll_bytes_in_ns(rate_bps, sw_delay_ns);

	if (c > LOSSLESS_BURST_MAX_BYTES)
		c = LOSSLESS_BURST_MAX_BYTES;
	return c > burst_bytes ? (ll_u32)c : burst_bytes;
}
