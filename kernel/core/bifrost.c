// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Bifrost's per-slot update and BifrostX's tokens: see bifrost.h. */
#include "bifrost.h"
#include "headroom.h"
#include "pfc.h"

#define BITS_PER_BYTE_NS (8ULL * LL_NSEC_PER_SEC)

ll_u64 ll_bifrost_buffer_min(const struct ll_bifrost_config *cfg)
{
	struct ll_bifrost_config c = *cfg;

	c.buffer_bytes = 0;
	if (ll_bifrost_check(&c))
		return 0;
	return ll_bytes_in_ns(c.rate_bps, c.rtt_ns) +
	       2 * ll_bytes_in_ns(c.rate_bps, c.slot_ns) +
	       2 * ll_bytes_in_ns(c.rate_bps, c.jitter_ns);
}

ll_u64 ll_bifrost_buffer_default(const struct ll_bifrost_config *cfg)
{
	ll_u64 least = ll_bifrost_buffer_min(cfg);

	/* One slot more (the paper's testbed) and k MTU of leak headroom. */
	return least ? least + ll_bytes_in_ns(cfg->rate_bps, cfg->slot_ns) +
		       (ll_u64)cfg->leak_period * cfg->mtu_bytes : 0;
}

const char *ll_bifrost_check(const struct ll_bifrost_config *cfg)
{
	ll_u64 slot_bytes;

	if (!cfg->rate_bps || cfg->rate_bps > LL_HEADROOM_MAX_RATE_BPS)
		return "bifrost needs the link's rate, at most 1.6 Tbit/s";
	if (!cfg->rtt_ns || cfg->rtt_ns > LL_BIFROST_RTT_NS_MAX)
		return "bifrost-rtt must be above 0 and at most 2 s";
	if (!cfg->slot_ns || cfg->slot_ns >= (cfg->rtt_ns + 1) / 2)
		return "bifrost-slot must be above 0 and below the one-way delay (bifrost-rtt / 2)";
	if (cfg->jitter_ns > LL_NSEC_PER_SEC)
		return "bifrost-jitter must be at most 1 s";
	if (!cfg->leak_period || cfg->leak_period > LL_BIFROST_LEAK_PERIOD_MAX)
		return "bifrost-k must be 1 .. 1024";
	if (!cfg->mtu_bytes || cfg->mtu_bytes > LL_HEADROOM_MAX_MTU_BYTES)
		return "bifrost needs the link's MTU, at most 1 MiB";
	slot_bytes = ll_bytes_in_ns(cfg->rate_bps, cfg->slot_ns);
	if (slot_bytes + ll_bytes_in_ns(cfg->rate_bps, cfg->jitter_ns) >
	    LL_BIFROST_SLOT_BYTES_MAX)
		return "bifrost-slot plus bifrost-jitter is above 65535 pause quanta at this rate";
	if (cfg->buffer_bytes &&
	    cfg->buffer_bytes < ll_bytes_in_ns(cfg->rate_bps, cfg->rtt_ns) +
				2 * slot_bytes +
				2 * ll_bytes_in_ns(cfg->rate_bps, cfg->jitter_ns))
		return "bifrost-buffer is below rate x (rtt + 2 x slot + 2 x jitter), the least Bifrost is lossless with";
	return (const char *)0;
}

void ll_bifrost_init(struct ll_bifrost *b, const struct ll_bifrost_config *cfg,
		     ll_u64 now_ns, ll_u64 rx_bytes)
{
	ll_u8 *z = (ll_u8 *)b;
	ll_u32 i;

	for (i = 0; i < sizeof(*b); i++)	/* no libc in the core */
		z[i] = 0;
	b->rate_bps = cfg->rate_bps;
	b->slot_ns = cfg->slot_ns;
	b->jitter_ns = cfg->jitter_ns;
	/* R4: the guard covers a late next slot and a frame behind an MTU. */
	b->guard_ns = cfg->jitter_ns ?
		      cfg->jitter_ns + ll_div_u64((ll_u64)cfg->mtu_bytes *
						  BITS_PER_BYTE_NS +
						  cfg->rate_bps - 1,
						  cfg->rate_bps) : 0;
	b->window_ns = cfg->rtt_ns + cfg->slot_ns + cfg->jitter_ns;
	b->bdp_bytes = ll_bytes_in_ns(cfg->rate_bps, cfg->rtt_ns);
	b->slot_bytes = ll_bytes_in_ns(cfg->rate_bps, cfg->slot_ns);
	b->jitter_bytes = ll_bytes_in_ns(cfg->rate_bps, cfg->jitter_ns);
	b->f_max_bytes = b->bdp_bytes + b->slot_bytes + b->jitter_bytes;
	b->buffer_bytes = cfg->buffer_bytes ? cfg->buffer_bytes :
			  ll_bifrost_buffer_default(cfg);
	b->leak_period = cfg->leak_period ? cfg->leak_period : 1;
	b->leak_countdown = b->leak_period;
	b->probe_min_bytes = 2 * (ll_u64)cfg->mtu_bytes;
	b->f_bytes = b->f_max_bytes;		/* Alg. 1 line 1 */
	b->rx_prev = rx_bytes;
	b->next_ns = now_ns + cfg->slot_ns;
	b->last_ns = now_ns;
	b->stats.min_margin_bytes = (ll_s64)b->buffer_bytes -
				    (ll_s64)b->f_max_bytes;
}

void ll_bifrost_reconfigure(struct ll_bifrost *b,
			    const struct ll_bifrost_config *cfg)
{
	struct ll_bifrost old = *b;

	ll_bifrost_init(b, cfg, old.last_ns, old.rx_prev);
	b->f_bytes = old.f_bytes;
	b->next_ns = old.next_ns;
	b->last_pause_ns = old.last_pause_ns;
	b->slot = old.slot;
	b->guarded = old.guarded;
	b->probe_ns = old.probe_ns;
	b->probe_last_rx_ns = old.probe_last_rx_ns;
	b->probe_ready = old.probe_ready;
	b->probe_quiet = old.probe_quiet;
	if (old.leak_countdown < b->leak_countdown)
		b->leak_countdown = old.leak_countdown;
	if (old.stats.min_margin_bytes < b->stats.min_margin_bytes)
		b->stats.min_margin_bytes = old.stats.min_margin_bytes;
	old.stats.min_margin_bytes = b->stats.min_margin_bytes;
	b->stats = old.stats;
}

/* Bucket of a lateness: 0 below 1 us, then one per power of two. */
static ll_u32 late_bucket(ll_u64 late_ns)
{
	ll_u64 us = ll_div_u64(late_ns, 1000);
	ll_u32 i = 0;

	while (us && i < LL_BIFROST_LATE_BUCKETS - 1) {
		us >>= 1;
		i++;
	}
	return i;
}

/* p for a grant: 0 for a full slot, T + g for none, else T - c^ / R_s. */
static ll_u64 pause_for(const struct ll_bifrost *b, ll_u64 token)
{
	if (token >= b->slot_bytes)
		return 0;
	if (!token)
		return b->slot_ns + b->guard_ns;
	/* token < B = ceil(R_s T), so its time is below T: p >= 1. */
	return b->slot_ns - ll_div_u64(token * BITS_PER_BYTE_NS, b->rate_bps);
}

/*
 * The loop's round trip, measured with no traffic of its own. After a
 * window of slots that each granted two MTU or more, the upstream sent a
 * packet in every slot (given data to send): a full pause then starts a
 * probe (its frame leaves now). Arrivals go on for one RTT, then stop;
 * two slots in a row without any end it (one can be a short grant's gap,
 * and packets are whole), and the last slot that saw bytes gives an
 * upper bound of the RTT within a slot. A late slot or a restart abandons
 * it (time is unsure), and so does a grant in its first two slots (its
 * bytes could follow the others without a gap); a later grant's bytes
 * come an RTT after it, past the gap the probe waits for. A probe longer
 * than four of F's windows is given up. A sample cut short (an upstream
 * with nothing more to send) lowers no maximum.
 */
static void rtt_probe(struct ll_bifrost *b, ll_u64 now_ns, ll_u64 r,
		      ll_u64 token, int unsure)
{
	struct ll_bifrost_stats *s = &b->stats;
	ll_u64 window_slots = ll_div_u64(b->window_ns + b->slot_ns - 1,
					 b->slot_ns);

	if (b->probe_ns && (unsure || now_ns - b->probe_ns > 4 * b->window_ns ||
			    (token && now_ns - b->probe_ns < 2 * b->slot_ns)))
		b->probe_ns = 0;
	if (unsure) {
		b->probe_ready = 0;
		return;
	}
	if (token && !b->probe_ns) {
		if (token >= b->probe_min_bytes && b->probe_ready < 0xFFFFFFFFu)
			b->probe_ready++;
		return;
	}
	if (!b->probe_ns) {
		if (r && b->probe_ready >= window_slots) {
			b->probe_ns = now_ns;
			b->probe_last_rx_ns = now_ns;
			b->probe_quiet = 0;
		}
		b->probe_ready = 0;
		return;
	}
	if (r) {
		b->probe_last_rx_ns = now_ns;
		b->probe_quiet = 0;
		return;
	}
	if (++b->probe_quiet < 2)
		return;
	if (b->probe_last_rx_ns > b->probe_ns) {
		ll_u64 rtt = b->probe_last_rx_ns - b->probe_ns;

		s->rtt_samples++;
		if (rtt > s->rtt_max_ns)
			s->rtt_max_ns = rtt;
	}
	b->probe_ns = 0;
}

int ll_bifrost_slot(struct ll_bifrost *b, ll_u64 now_ns, ll_u64 queue_bytes,
		    ll_u64 rx_bytes, struct ll_bifrost_decision *d)
{
	struct ll_bifrost_stats *s = &b->stats;
	ll_u64 late = now_ns > b->next_ns ? now_ns - b->next_ns : 0;
	ll_u64 missed = ll_div_u64(late, b->slot_ns);
	ll_u64 interval = now_ns - b->last_ns;
	ll_u64 covered = ll_max_u64(b->slot_ns, b->last_pause_ns);
	ll_u64 r = rx_bytes - b->rx_prev;	/* a 64-bit counter: wraps */
	ll_u64 h = b->buffer_bytes, extra = 0, f = b->f_bytes, lf, room, c;
	ll_u64 token, p, sum, f_new;
	/* A gap as long as F's window: the loop was idle (a port's timer
	 * runs only while its link carries traffic) or stopped; it restarts.
	 */
	int restart = interval > covered && interval - covered >= b->window_ns;
	ll_s64 margin;

	/* Absolute schedule: skip the slots missed, keep the phase. The
	 * lateness is the running loop's: a restart is counted apart.
	 */
	b->next_ns += (missed + 1) * b->slot_ns;
	if (restart) {
		s->restarts++;
	} else {
		s->missed_slots += missed;
		s->late_hist[late_bucket(late)]++;
		if (late > s->max_late_ns)
			s->max_late_ns = late;
	}
	b->rx_prev = rx_bytes;
	b->slot++;

	/*
	 * The upstream sent freely from the end of the last pause until this
	 * frame arrives. The last grant covered a slot (or the guarded
	 * pause's length); the rest, at line rate, is e, added to F before
	 * this grant is computed: up to R_s J of it the last grant kept room
	 * for, beyond J it is lateness the buffer was not sized for
	 * (late_grant_bytes). After a gap as long as F's window the whole
	 * window may be in flight: F starts again from its bound.
	 */
	if (interval > covered) {
		ll_u64 free_ns = interval - covered;

		if (restart) {
			/* What arrived (r) is past; F starts as at init. */
			f = b->f_max_bytes;
			r = 0;
		} else {
			f += ll_bytes_in_ns(b->rate_bps, free_ns);
			if (free_ns > b->jitter_ns)
				extra = ll_bytes_in_ns(b->rate_bps,
						       free_ns - b->jitter_ns);
		}
	}
	lf = queue_bytes + f;	/* r in both: the paper's order (2.6) */

	/*
	 * R1, and the jitter's bytes kept back: a grant may run up to J past
	 * its slot if the next one is late, so the room must hold c + R_s J.
	 * F records what ran past when the next slot sees it (e above), not
	 * ahead: F stays the bytes in flight, and the loop keeps its
	 * prediction (a bound F sits at would lose it, and the link's
	 * throughput with it).
	 */
	room = h > lf ? h - lf : 0;
	room = room > b->jitter_bytes ? room - b->jitter_bytes : 0;
	c = ll_min_u64(b->slot_bytes, room);
	token = c;
	if (--b->leak_countdown == 0) {				/* R2 */
		ll_u64 over = lf > h ? lf - h : 0;

		b->leak_countdown = b->leak_period;
		token = c > over ? c - over : 0;
	}
	p = pause_for(b, token);

	sum = f + c;						/* R3 */
	if (sum >= r) {
		f_new = sum - r;
	} else {
		f_new = 0;
		s->leak_bytes += r - sum;
	}
	b->f_bytes = ll_min_u64(f_new, b->f_max_bytes);

	rtt_probe(b, now_ns, r, token, restart || missed);

	d->grant_bytes = c;
	d->link_token_bytes = token;
	d->pause_ns = p;
	d->quanta = p ? ll_ns_to_quanta(p, b->rate_bps) : 0;
	d->missed_slots = missed > 255 ? 255 : (ll_u8)missed;
	/* A guarded pause outlasts the slot: a full grant must end it. */
	d->send = p > 0 || b->guarded;
	b->guarded = !token && b->guard_ns;

	s->slots++;
	s->late_grant_bytes += extra;
	if (d->send) {
		s->frames++;
		if (!p)
			s->resumes++;
		s->pause_ns_total += p;
	}
	if (!token)
		s->full_pauses++;
	if (queue_bytes > s->max_queue_bytes)
		s->max_queue_bytes = queue_bytes;
	lf = queue_bytes + b->f_bytes;
	if (lf > s->max_lf_bytes)
		s->max_lf_bytes = lf;
	margin = (ll_s64)h - (ll_s64)lf;
	if (margin < s->min_margin_bytes)
		s->min_margin_bytes = margin;
	if (lf > h)
		s->breaches++;

	b->last_ns = now_ns;
	b->last_pause_ns = p;
	return d->send;
}

void ll_bifrostx_tokens(ll_u64 slot_bytes, const ll_u64 *queue, ll_u64 *prev,
			ll_u32 n, ll_u64 *token)
{
	ll_u32 i;

	for (i = 0; i < n && i < LL_BIFROST_PRIOS; i++) {
		ll_u64 grew = queue[i] > prev[i] ? queue[i] - prev[i] : 0;

		token[i] = grew >= slot_bytes ? 0 : slot_bytes - grew;
		prev[i] = queue[i];
	}
}
