/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM'15), the baseline PCN is compared with (pcn.md
 * 8): its notification point and reaction point as pure functions over a
 * flow's state, driven by explicit events with the time. The switch side
 * (RED ECN marking between Kmin and Kmax) is the qdisc's existing marker.
 *
 * NP (paper 3.2): a CE-marked packet of a flow sends a CNP at once,
 * unless the flow already had one in the last cnp_interval_ns (50 us).
 *
 * RP (paper 3.3, Fig. 6; rates R_C current, R_T target):
 *   CNP:         R_T = R_C; R_C = R_C (1 - alpha / 2);
 *                alpha = (1 - g) alpha + g;
 *                the rate timer, the byte counter, both stage counters
 *                and the alpha timer restart.
 *   alpha timer: every alpha_timer_ns (K = 55 us) without a CNP,
 *                alpha = (1 - g) alpha.
 *   rate timer:  every rate_timer_ns (55 us), T++ and an increase.
 *   byte counter: every byte_counter_bytes sent (10 MB), BC++ and an
 *                increase.
 *   increase:    max(T, BC) < F:  fast recovery,  R_C = (R_T + R_C) / 2
 *                min(T, BC) < F:  additive,       R_T += R_AI, then FR
 *                otherwise:       hyper,          R_T += i R_HAI, then FR
 *                                 with i = min(T, BC) - F + 1
 *   (the stage is the larger counter's, the hyper stage the smaller's:
 *   the paper's "both counters" rule, as its ns-3 model computes it.)
 *
 * Choices where the paper is silent or its model differs:
 * - The cut uses alpha from before the CNP, then alpha is updated, in the
 *   paper's order (its ns-3 model updates alpha first).
 * - i for hyper increase is the ns-3 model's (QCN's HAI); the paper says
 *   only "R_HAI". The model's shorter timer and byte counter in hyper
 *   stage and its target-rate /8 clamp are left out (not in the paper).
 * - R_T and R_C never exceed the line rate; R_C never falls below
 *   min_rate_kbps (the model's MinRate). (R_T + R_C) / 2 is rounded up,
 *   so that R_C reaches R_T (and the line rate) exactly.
 * - Before the first CNP the flow is at line rate and its timers are
 *   off (next_*_ns = LL_DCQCN_NEVER): nothing to recover.
 * - alpha starts at 1 (the paper's initial value).
 * - A timer call at or after its expiry runs one expiry and rearms the
 *   timer one period after the scheduled time, or one period after now
 *   if the caller was a whole period late (the expiries missed are not
 *   replayed: a late timer slows recovery, never speeds it up).
 * - The byte counter runs at most LL_DCQCN_BC_STEPS_MAX stages per call;
 *   the rest of the bytes wait for the next call.
 *
 * Fixed point: rates u64 kbps, alpha and g Q24 in a u32 (1.0 = 1 << 24).
 *   cut:    R_C -= R_C * alpha >> 25
 *   alpha:  alpha = (alpha * ((1 << 24) - g) >> 24) + g   (CNP)
 *           alpha =  alpha * ((1 << 24) - g) >> 24        (alpha timer)
 * Products stay below 2^56 for rates up to 1.6 Tbit/s.
 */
#ifndef LL_DCQCN_H
#define LL_DCQCN_H

#include "ll_types.h"

#define LL_DCQCN_Q24_ONE (1U << 24)
#define LL_DCQCN_NEVER (~0ULL)
#define LL_DCQCN_BC_STEPS_MAX 8U
#define LL_DCQCN_RATE_KBPS_MAX 1600000000ULL	/* 1.6 Tbit/s */
#define LL_DCQCN_F_MAX 64U

/*
 * Defaults (pcn.md 8's DCQCN set; R_AI and R_HAI, which it does not list,
 * as the common NIC defaults of 5 and 50 Mbit/s, the former also the ns-3
 * model's AI step).
 */
#define LL_DCQCN_CNP_INTERVAL_NS_DEFAULT 50000ULL
#define LL_DCQCN_RATE_TIMER_NS_DEFAULT 55000ULL
#define LL_DCQCN_ALPHA_TIMER_NS_DEFAULT 55000ULL
#define LL_DCQCN_BYTE_COUNTER_DEFAULT 10000000ULL	/* 10 MB */
#define LL_DCQCN_G_Q24_DEFAULT (LL_DCQCN_Q24_ONE / 256)
#define LL_DCQCN_F_DEFAULT 5U
#define LL_DCQCN_RAI_KBPS_DEFAULT 5000ULL
#define LL_DCQCN_RHAI_KBPS_DEFAULT 50000ULL
#define LL_DCQCN_MIN_RATE_KBPS_DEFAULT 1000ULL

struct ll_dcqcn_params {
	ll_u64 line_rate_kbps;
	ll_u64 min_rate_kbps;
	ll_u64 cnp_interval_ns;		/* NP: at most one CNP per flow per */
	ll_u64 rate_timer_ns;		/* RP: the increase timer */
	ll_u64 alpha_timer_ns;		/* RP: K, alpha's decay period */
	ll_u64 byte_counter_bytes;	/* RP: B */
	ll_u64 rai_kbps;		/* R_AI */
	ll_u64 rhai_kbps;		/* R_HAI */
	ll_u32 g_q24;			/* g */
	ll_u32 f_stages;		/* F */
};

void ll_dcqcn_params_default(struct ll_dcqcn_params *p,
			     ll_u64 line_rate_kbps);

/* NULL if p is valid, else a message naming the parameter. */
const char *ll_dcqcn_check(const struct ll_dcqcn_params *p);

/* NP: one flow at the receiver. Zeroed: no CNP sent yet. */
struct ll_dcqcn_np_flow {
	ll_u64 last_cnp_ns;
	ll_u8 sent;		/* last_cnp_ns is valid */
	ll_u8 pad[7];
};

/*
 * A data packet of the flow arrives at now_ns, CE-marked or not. Returns
 * 1 if a CNP goes now: it is CE and no CNP went for the flow in the last
 * cnp_interval_ns.
 */
int ll_dcqcn_np_packet(struct ll_dcqcn_np_flow *f,
		       const struct ll_dcqcn_params *p, int ce, ll_u64 now_ns);

/* The RP's increase stages, for telemetry and tests. */
enum ll_dcqcn_stage {
	LL_DCQCN_FAST_RECOVERY = 0,
	LL_DCQCN_ADDITIVE,
	LL_DCQCN_HYPER,
};

/* RP: one flow at the sender. */
struct ll_dcqcn_rp {
	ll_u64 rc_kbps;		/* R_C: the rate to pace at */
	ll_u64 rt_kbps;		/* R_T */
	ll_u64 next_rate_ns;	/* the rate timer's expiry */
	ll_u64 next_alpha_ns;	/* the alpha timer's expiry */
	ll_u64 bc_bytes;	/* sent since the byte counter's last stage */
	ll_u32 alpha_q24;
	ll_u32 t_stage;		/* T: rate timer expiries since the CNP */
	ll_u32 bc_stage;	/* BC: byte counter stages since the CNP */
	ll_u32 pad;
	ll_u64 cnps;
	ll_u64 increases;
};

/* A new flow at line rate, alpha 1, timers off. */
void ll_dcqcn_rp_init(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p);

/* The stage the next increase runs in (the rule above). */
enum ll_dcqcn_stage ll_dcqcn_rp_stage(const struct ll_dcqcn_rp *rp,
				      const struct ll_dcqcn_params *p);

/* A CNP arrives at now_ns: the cut, alpha, the timers restart. */
void ll_dcqcn_rp_cnp(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p,
		     ll_u64 now_ns);

/*
 * The alpha timer at now_ns: if it expired (now_ns >= next_alpha_ns),
 * alpha decays once and the timer rearms; returns 1. Else 0.
 */
int ll_dcqcn_rp_alpha_timer(struct ll_dcqcn_rp *rp,
			    const struct ll_dcqcn_params *p, ll_u64 now_ns);

/*
 * The rate timer at now_ns: if it expired, T++ and one increase; the
 * timer rearms; returns 1. Else 0.
 */
int ll_dcqcn_rp_rate_timer(struct ll_dcqcn_rp *rp,
			   const struct ll_dcqcn_params *p, ll_u64 now_ns);

/*
 * The flow sent bytes: each byte_counter_bytes completed is BC++ and one
 * increase (at most LL_DCQCN_BC_STEPS_MAX per call). Returns the number
 * of increases. The counter runs only after a first CNP.
 */
ll_u32 ll_dcqcn_rp_sent(struct ll_dcqcn_rp *rp, const struct ll_dcqcn_params *p,
			ll_u64 bytes);

static inline ll_u64 ll_dcqcn_rp_next_rate_ns(const struct ll_dcqcn_rp *rp)
{
	return rp->next_rate_ns;
}

static inline ll_u64 ll_dcqcn_rp_next_alpha_ns(const struct ll_dcqcn_rp *rp)
{
	return rp->next_alpha_ns;
}

/* The earlier of the two timers: when the caller must call again. */
static inline ll_u64 ll_dcqcn_rp_next_ns(const struct ll_dcqcn_rp *rp)
{
	return ll_min_u64(rp->next_rate_ns, rp->next_alpha_ns);
}

#endif /* LL_DCQCN_H */
