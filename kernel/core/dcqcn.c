// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* DCQCN's NP and RP (dcqcn.h has the rules, the choices, the fixed point). */
#include "dcqcn.h"

void ll_dcqcn_params_default(struct ll_dcqcn_params *p,
			     ll_u64 line_rate_kbps)
{
	p->line_rate_kbps = line_rate_kbps;
	p->min_rate_kbps = LL_DCQCN_MIN_RATE_KBPS_DEFAULT;
	p->cnp_interval_ns = LL_DCQCN_CNP_INTERVAL_NS_DEFAULT;
	p->rate_timer_ns = LL_DCQCN_RATE_TIMER_NS_DEFAULT;
	p->alpha_timer_ns = LL_DCQCN_ALPHA_TIMER_NS_DEFAULT;
	p->byte_counter_bytes = LL_DCQCN_BYTE_COUNTER_DEFAULT;
	p->rai_kbps = LL_DCQCN_RAI_KBPS_DEFAULT;
	p->rhai_kbps = LL_DCQCN_RHAI_KBPS_DEFAULT;
	p->g_q24 = LL_DCQCN_G_Q24_DEFAULT;
	p->f_stages = LL_DCQCN_F_DEFAULT;
}

const char *ll_dcqcn_check(const struct ll_dcqcn_params *p)
{
	if (!p->line_rate_kbps || p->line_rate_kbps > LL_DCQCN_RATE_KBPS_MAX)
		return "dcqcn-line-rate must be above 0 and at most 1.6 Tbit/s";
	if (!p->min_rate_kbps)
		return "dcqcn-min-rate must be above 0";
	if (p->min_rate_kbps > p->line_rate_kbps)
		return "dcqcn-min-rate must be at most dcqcn-line-rate";
	if (!p->cnp_interval_ns || p->cnp_interval_ns > LL_NSEC_PER_SEC)
		return "dcqcn-cnp-interval must be above 0 and at most 1 s";
	if (!p->rate_timer_ns || p->rate_timer_ns > LL_NSEC_PER_SEC)
		return "dcqcn-rate-timer must be above 0 and at most 1 s";
	if (!p->alpha_timer_ns || p->alpha_timer_ns > LL_NSEC_PER_SEC)
		return "dcqcn-alpha-timer must be above 0 and at most 1 s";
	if (!p->byte_counter_bytes)
		return "dcqcn-byte-counter must be above 0";
	if (!p->g_q24 || p->g_q24 >= LL_DCQCN_Q24_ONE)
		return "dcqcn-g must be above 0 and below 1";
	if (!p->f_stages || p->f_stages > LL_DCQCN_F_MAX)
		return "dcqcn-f (fast recovery stages) must be 1 .. 64";
	if (p->rai_kbps > p->line_rate_kbps)
		return "dcqcn-rai must be at most dcqcn-line-rate";
	if (p->rhai_kbps > p->line_rate_kbps)
		return "dcqcn-rhai must be at most dcqcn-line-rate";
	return (const char *)0;
}

int ll_dcqcn_np_packet(struct ll_dcqcn_np_flow *f,
		       const struct ll_dcqcn_params *p, int ce, ll_u64 now_ns)
{
	if (!ce)
		return 0;
	/* A clock that goes back reads as within the interval. */
	if (f->sent && (now_ns < f->last_cnp_ns ||
			now_ns - f->last_cnp_ns < p->cnp_interval_ns))
		return 0;
	f->sent = 1;
	f->last_cnp_ns = now_ns;
	return 1;
}

void ll_dcqcn_rp_init(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p)
{
	rp->rc_kbps = p->line_rate_kbps;
	rp->rt_kbps = p->line_rate_kbps;
	rp->next_rate_ns = LL_DCQCN_NEVER;
	rp->next_alpha_ns = LL_DCQCN_NEVER;
	rp->bc_bytes = 0;
	rp->alpha_q24 = LL_DCQCN_Q24_ONE;
	rp->t_stage = 0;
	rp->bc_stage = 0;
	rp->pad = 0;
	rp->cnps = 0;
	rp->increases = 0;
}

enum ll_dcqcn_stage ll_dcqcn_rp_stage(const struct ll_dcqcn_rp *rp,
				      const struct ll_dcqcn_params *p)
{
	ll_u32 hi = rp->t_stage > rp->bc_stage ? rp->t_stage : rp->bc_stage;
	ll_u32 lo = rp->t_stage < rp->bc_stage ? rp->t_stage : rp->bc_stage;

	if (hi < p->f_stages)
		return LL_DCQCN_FAST_RECOVERY;
	if (lo < p->f_stages)
		return LL_DCQCN_ADDITIVE;
	return LL_DCQCN_HYPER;
}

void ll_dcqcn_rp_cnp(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p,
		     ll_u64 now_ns)
{
	ll_u64 rc = rp->rc_kbps;

	rp->rt_kbps = rc;
	/* R_C (1 - alpha / 2) with alpha from before this CNP (paper order). */
	rc -= (rc * rp->alpha_q24) >> 25;
	rp->rc_kbps = ll_max_u64(rc, p->min_rate_kbps);
	rp->alpha_q24 = (ll_u32)(((ll_u64)rp->alpha_q24 *
				  (LL_DCQCN_Q24_ONE - p->g_q24)) >> 24) +
			p->g_q24;
	rp->t_stage = 0;
	rp->bc_stage = 0;
	rp->bc_bytes = 0;
	rp->next_rate_ns = now_ns + p->rate_timer_ns;
	rp->next_alpha_ns = now_ns + p->alpha_timer_ns;
	rp->cnps++;
}

/* The next expiry of a periodic timer that fired at now_ns. */
static ll_u64 dcqcn_rearm(ll_u64 scheduled_ns, ll_u64 period_ns, ll_u64 now_ns)
{
	ll_u64 next = scheduled_ns + period_ns;

	return next > now_ns ? next : now_ns + period_ns;
}

int ll_dcqcn_rp_alpha_timer(struct ll_dcqcn_rp *rp,
			    const struct ll_dcqcn_params *p, ll_u64 now_ns)
{
	if (now_ns < rp->next_alpha_ns)
		return 0;
	rp->alpha_q24 = (ll_u32)(((ll_u64)rp->alpha_q24 *
				  (LL_DCQCN_Q24_ONE - p->g_q24)) >> 24);
	rp->next_alpha_ns = dcqcn_rearm(rp->next_alpha_ns, p->alpha_timer_ns,
					now_ns);
	return 1;
}

/* One increase event, after T or BC moved (the stage rule in dcqcn.h). */
static void dcqcn_increase(struct ll_dcqcn_rp *rp,
			   const struct ll_dcqcn_params *p)
{
	ll_u64 rt = rp->rt_kbps;
	ll_u32 lo;

	switch (ll_dcqcn_rp_stage(rp, p)) {
	case LL_DCQCN_FAST_RECOVERY:
		break;
	case LL_DCQCN_ADDITIVE:
		rt += p->rai_kbps;
		break;
	case LL_DCQCN_HYPER:
		lo = rp->t_stage < rp->bc_stage ? rp->t_stage : rp->bc_stage;
		/* i grows with the stages; cap it so i R_HAI stays small. */
		lo = lo - p->f_stages + 1;
		if (lo > LL_DCQCN_F_MAX)
			lo = LL_DCQCN_F_MAX;
		rt += (ll_u64)lo * p->rhai_kbps;
		break;
	}
	rp->rt_kbps = ll_min_u64(rt, p->line_rate_kbps);
	/*
	 * R_C <= R_T holds (a cut sets R_T to the old R_C); the average is
	 * rounded up so that R_C reaches R_T instead of stopping 1 below.
	 */
	rp->rc_kbps = (rp->rt_kbps + rp->rc_kbps + 1) / 2;
	rp->increases++;
}

int ll_dcqcn_rp_rate_timer(struct ll_dcqcn_rp *rp,
			   const struct ll_dcqcn_params *p, ll_u64 now_ns)
{
	if (now_ns < rp->next_rate_ns)
		return 0;
	if (rp->t_stage < 0xFFFFFFFFU)
		rp->t_stage++;
	dcqcn_increase(rp, p);
	rp->next_rate_ns = dcqcn_rearm(rp->next_rate_ns, p->rate_timer_ns,
				       now_ns);
	return 1;
}

ll_u32 ll_dcqcn_rp_sent(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p,
			ll_u64 bytes)
{
	ll_u32 n;

	if (rp->next_rate_ns == LL_DCQCN_NEVER)
		return 0;	/* no CNP yet: at line rate, nothing to count */
	rp->bc_bytes += bytes;
	for (n = 0; n < LL_DCQCN_BC_STEPS_MAX; n++) {
		if (rp->bc_bytes < p->byte_counter_bytes)
			break;
		rp->bc_bytes -= p->byte_counter_bytes;
		if (rp->bc_stage < 0xFFFFFFFFU)
			rp->bc_stage++;
		dcqcn_increase(rp, p);
	}
	return n;
}
