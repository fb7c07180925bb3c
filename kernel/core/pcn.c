// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* PCN's CP, NP and RP (pcn.h has the rules and the fixed point). */
#include "pcn.h"

/* bytes * 8000 stays in a u64 up to this many bytes in one window. */
#define PCN_WINDOW_BYTES_MAX (~0ULL / 8000)

void ll_pcn_params_default(struct ll_pcn_params *p, ll_u64 line_rate_kbps)
{
	p->period_ns = LL_PCN_PERIOD_NS_DEFAULT;
	p->line_rate_kbps = line_rate_kbps;
	p->min_rate_kbps = LL_PCN_MIN_RATE_KBPS_DEFAULT;
	p->rp_idle_ns = LL_PCN_IDLE_NS_DEFAULT;
	p->np_idle_ns = LL_PCN_IDLE_NS_DEFAULT;
	p->theta_pct = LL_PCN_THETA_PCT_DEFAULT;
	p->w_min_q24 = LL_PCN_W_MIN_Q24_DEFAULT;
	p->w_max_q24 = LL_PCN_W_MAX_Q24_DEFAULT;
}

const char *ll_pcn_check(const struct ll_pcn_params *p)
{
	if (!p->period_ns || p->period_ns > LL_PCN_PERIOD_NS_MAX)
		return "pcn-period (T) must be above 0 and at most 1 s";
	if (!p->theta_pct || p->theta_pct > 100)
		return "pcn-theta must be 1 .. 100 (percent of a window's packets CE)";
	if (!p->w_min_q24)
		return "pcn-w-min must be above 0";
	if (p->w_max_q24 > LL_PCN_Q24_ONE)
		return "pcn-w-max must be at most 1";
	if (p->w_min_q24 >= LL_PCN_Q24_ONE)
		return "pcn-w-min must be below 1";
	if (p->w_min_q24 > p->w_max_q24)
		return "pcn-w-min must be at most pcn-w-max";
	if (!p->line_rate_kbps || p->line_rate_kbps > LL_PCN_RATE_KBPS_MAX)
		return "pcn-line-rate must be above 0 and at most 1.6 Tbit/s";
	if (!p->min_rate_kbps)
		return "pcn-min-rate must be above 0 (a flow at 0 never gets a CNP again)";
	if (p->min_rate_kbps > p->line_rate_kbps)
		return "pcn-min-rate must be at most pcn-line-rate";
	if (p->np_idle_ns && p->np_idle_ns <= p->period_ns)
		return "pcn-np-idle must be 0 (never) or above pcn-period (T)";
	if (p->rp_idle_ns && p->rp_idle_ns <= p->period_ns)
		return "pcn-rp-idle must be 0 (never) or above pcn-period (T)";
	return (const char *)0;
}

int ll_pcn_cp_resume(struct ll_pcn_cp *cp, ll_u32 qlen_pkts)
{
	if (!cp->paused)
		return 0;	/* spurious: PN stays (CP-5) */
	cp->paused = 0;
	/* Overwrite: the packets waiting now are exactly those held (CP-4). */
	cp->pn_pkts = qlen_pkts;
	return 1;
}

enum ll_pcn_cp_verdict ll_pcn_cp_dequeue(struct ll_pcn_cp *cp, int lossless,
					 ll_u64 backlog_after_bytes,
					 ll_u32 k_bytes, ll_u8 ecn)
{
	if (!lossless)
		return LL_PCN_CP_NOT_LOSSLESS;	/* A23: never starve ECN-TCP */
	if (cp->pn_pkts) {
		cp->pn_pkts--;
		return LL_PCN_CP_EXEMPT_PN;
	}
	/* Above K (0 in the paper), the departing packet not counted (A1). */
	if (backlog_after_bytes <= k_bytes)
		return LL_PCN_CP_NO_QUEUE;
	if ((ecn & LL_ECN_CE) == LL_ECN_NOT_ECT)
		return LL_PCN_CP_NOT_ECT;
	return LL_PCN_CP_MARK;
}

ll_u32 ll_pcn_rate_mbps(ll_u64 bytes, ll_u64 elapsed_ns)
{
	ll_u64 mbps;

	if (!elapsed_ns)
		return bytes ? (ll_u32)LL_PCN_REC_RATE_MBPS_MAX : 1;
	if (bytes > PCN_WINDOW_BYTES_MAX)
		return (ll_u32)LL_PCN_REC_RATE_MBPS_MAX;
	/* bits per ns are Gbit/s; x 1000 is Mbit/s. Round to nearest (A9). */
	mbps = ll_div_u64(bytes * 8000 + elapsed_ns / 2, elapsed_ns);
	if (mbps > LL_PCN_REC_RATE_MBPS_MAX)
		return (ll_u32)LL_PCN_REC_RATE_MBPS_MAX;
	return mbps ? (ll_u32)mbps : 1;
}

int ll_pcn_congested(ll_u32 ce_pkts, ll_u32 pkts, ll_u32 theta_pct)
{
	if (!pkts)
		return 0;
	return (ll_u64)ce_pkts * 100 >= (ll_u64)theta_pct * pkts;
}

static void pcn_np_open(struct ll_pcn_np_flow *f, ll_u64 now_ns)
{
	f->win_start_ns = now_ns;
	f->bytes = 0;
	f->pkts = 0;
	f->ce_pkts = 0;
	f->not_ect_pkts = 0;
	f->active = 1;
}

int ll_pcn_np_packet(struct ll_pcn_np_flow *f, const struct ll_pcn_params *p,
		     const struct ll_pcn_np_pkt *pkt, struct ll_pcn_cnp *cnp)
{
	ll_u64 now_ns = pkt->now_ns;
	ll_u32 segs = pkt->segs ? pkt->segs : 1;
	ll_u64 elapsed_ns;
	int send = 0;

	if (!f->active) {
		pcn_np_open(f, now_ns);
	} else {
		elapsed_ns = now_ns > f->win_start_ns ?
			     now_ns - f->win_start_ns : 0;
		if (p->np_idle_ns && elapsed_ns >= p->np_idle_ns) {
			/*
			 * The flow was silent for an idle time: its last
			 * window says nothing about now, and the RP has
			 * restarted at L after its own idle time.
			 */
			f->stale_windows++;
			pcn_np_open(f, now_ns);
		} else if (elapsed_ns >= p->period_ns) {
			/*
			 * 7.3: the first packet after T closes the window
			 * over its real length, which for a slow flow is the
			 * inter-arrival time (2.2's slow-flow rule).
			 */
			cnp->congested = (ll_u8)ll_pcn_congested(f->ce_pkts,
								 f->pkts,
								 p->theta_pct);
			cnp->rec_rate_mbps = ll_pcn_rate_mbps(f->bytes,
							      elapsed_ns);
			send = 1;
			pcn_np_open(f, now_ns);
		}
	}
	if (f->bytes <= PCN_WINDOW_BYTES_MAX)
		f->bytes += pkt->bytes;
	/* Saturate: a window of 2^32 packets is not a real one. */
	if (f->pkts <= 0xFFFFFFFFU - segs) {
		f->pkts += segs;
		if (pkt->ecn == LL_ECN_CE)
			f->ce_pkts += segs;
		else if (pkt->ecn == LL_ECN_NOT_ECT)
			f->not_ect_pkts += segs;
	}
	return send;
}

void ll_pcn_rp_init(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		    ll_u64 now_ns)
{
	rp->rate_kbps = p->line_rate_kbps;
	rp->w_q24 = p->w_min_q24;
	rp->last_ns = now_ns;
	rp->pad = 0;
	rp->decreases = 0;
	rp->increases = 0;
	rp->idle_resets = 0;
}

int ll_pcn_rp_touch(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		    ll_u64 now_ns)
{
	int reset = p->rp_idle_ns && now_ns > rp->last_ns &&
		    now_ns - rp->last_ns >= p->rp_idle_ns;

	if (reset) {
		/* A20: a reused flow starts again as a new one, at L. */
		rp->rate_kbps = p->line_rate_kbps;
		rp->w_q24 = p->w_min_q24;
		rp->idle_resets++;
	}
	if (now_ns > rp->last_ns)
		rp->last_ns = now_ns;
	return reset;
}

/* min_rate <= rate <= L: the floor (A9) and the ceiling (RP-9). */
static ll_u64 pcn_clamp_rate(const struct ll_pcn_params *p, ll_u64 rate_kbps)
{
	return ll_max_u64(p->min_rate_kbps,
			  ll_min_u64(rate_kbps, p->line_rate_kbps));
}

void ll_pcn_rp_decrease(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
			ll_u32 rec_rate_mbps)
{
	ll_u64 rec_kbps = (ll_u64)rec_rate_mbps * 1000;

	/* Line 6: the receive rate less w_min; the min never raises it. */
	rec_kbps -= (rec_kbps * p->w_min_q24) >> 24;
	rp->rate_kbps = pcn_clamp_rate(p, ll_min_u64(rp->rate_kbps, rec_kbps));
	rp->w_q24 = p->w_min_q24;	/* line 7 */
	rp->decreases++;
}

void ll_pcn_rp_increase(struct ll_pcn_rp *rp, const struct ll_pcn_params *p)
{
	ll_u64 w = rp->w_q24;
	ll_u64 r = rp->rate_kbps;

	/* Line 10 with the old w; the floors can leave r 1 kbps above L. */
	r = r - ((r * w) >> 24) + ((p->line_rate_kbps * w) >> 24);
	rp->rate_kbps = pcn_clamp_rate(p, r);
	/* Line 11, also with the old w: w (1 + w_max - w), up to w_max. */
	rp->w_q24 = (ll_u32)((w * (LL_PCN_Q24_ONE - w + p->w_max_q24)) >> 24);
	rp->increases++;
}

void ll_pcn_rp_cnp(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		   int congested, ll_u32 rec_rate_mbps, ll_u64 now_ns)
{
	ll_pcn_rp_touch(rp, p, now_ns);
	if (congested)
		ll_pcn_rp_decrease(rp, p, rec_rate_mbps);
	else
		ll_pcn_rp_increase(rp, p);
}
