// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * DSH, Dynamic and Shared Headroom with two-level flow control (dsh.md;
 * docs/DSH.md). Over mmu.c's accounting:
 *
 *   partition  the port's insurance headroom Phi_i (its headroom_bytes)
 *              is carved once per port, not once per lossless priority
 *              (3.1, Eq. 9): the shared region grows by (N_q - 1) Phi_i;
 *   admission  lossless bytes past the reserve go to shared while the
 *              port's lossless shared bytes S_i fit N_q x T and the pool
 *              has room, there is no per-queue cap; else to the port's
 *              insurance (mmu.c's headroom region, limit Phi_i for the
 *              port); else they drop (3.6);
 *   queue      QOFF when shared(i,j) > X_qoff = T - tau, QON when
 *              shared(i,j) + delta < X_qoff (3.5, 3.8);
 *   port       POFF when the insurance holds bytes or S_i > X_poff =
 *              N_q x T, PON when the insurance is empty and S_i + delta <
 *              X_poff (3.8, A14);
 *   tau        0 when every lossless arrival of the port for more than
 *              the window went to one queue (Alg. 4, A9, A10), else
 *              phi_hat of the queue: Alg. 3 as corrected in 3.3;
 *   PFC        the pause wish of priority j is QOFF(j) OR POFF: section
 *              4's effective state, sent with mmu.c's frames (below).
 * T is DT's alpha x (B_s - S) with DSH's larger B_s; delta is the pool's
 * xon_offset_bytes, and a queue or port at or below xon_bytes never stays
 * paused, as in DT.
 *
 * Port-level pause on the wire (dsh.md section 6, A18). A port-level
 * pause is a standard 802.1Qbb PFC frame that pauses every lossless
 * priority of the port's upstream; never 802.3x PAUSE. A standard
 * receiver cannot tell it from queue-level pauses, so a port RESUME that
 * cleared every priority would wrongly resume queues still in QOFF.
 * Resolution: the state sent is the effective state eff(j) = QOFF(j) OR
 * POFF, through mmu.c's want bits. A frame goes out only when eff changes
 * (or for a refresh) and carries XOFF for every eff-paused priority, XON
 * for those turning on. So the port PAUSE enables every lossless priority
 * with the pause time; the port RESUME enables them all again with the
 * pause time for queues still in QOFF and 0 for the others; a queue
 * RESUME while in POFF sends nothing, and neither does a queue PAUSE.
 * Unmodified 802.1Qbb upstreams (NICs, switches, our own qdisc) need no
 * change.
 *
 * Integer only: the gradient is kept as a fraction of the port's line rate
 * in Q14, so phi_hat = g_hat / C x Phi_i (D = Phi_i / C) is one
 * multiply and one shift; the EWMA weights are shifts.
 */
#include "scheme.h"
#include "headroom.h"
#include "lossless.h"	/* the uapi: its netlink nest, the plane */

#define DSH_WINDOW_NS_DEFAULT LL_DSH_WINDOW_NS_DEFAULT	/* scheme.h */
#define DSH_WINDOW_NS_MAX LL_DSH_WINDOW_NS_MAX
#define DSH_EWMA_SHIFT_DEFAULT LL_DSH_EWMA_SHIFT_DEFAULT
#define DSH_EWMA_SHIFT_MAX LL_DSH_EWMA_SHIFT_MAX
#define DSH_GAIN_DEFAULT LL_DSH_GAIN_DEFAULT
#define DSH_GAIN_MAX LL_DSH_GAIN_MAX
#define DSH_Q_MAX 0xFFFFFFFFULL

static const struct ll_dsh_params *params(const struct ll_mmu_pool *pool)
{
	return &pool->cfg.scheme_params.dsh;
}

static ll_u64 window_ns(const struct ll_mmu_pool *pool)
{
	ll_u64 w = params(pool)->window_ns;

	return w ? w : DSH_WINDOW_NS_DEFAULT;
}

static ll_u32 ewma_shift(const struct ll_mmu_pool *pool)
{
	ll_u64 s = params(pool)->ewma_shift;

	return s ? (ll_u32)s : DSH_EWMA_SHIFT_DEFAULT;
}

static ll_u32 deviation_gain(const struct ll_mmu_pool *pool)
{
	ll_u64 k = params(pool)->deviation_gain;

	return k ? (ll_u32)k : DSH_GAIN_DEFAULT;
}

static inline int has_flag(const struct ll_mmu_pool *pool, ll_u64 flag)
{
	return (params(pool)->flags & flag) != 0;
}

static ll_u32 lossless_count(const struct ll_mmu_config *cfg)
{
	ll_u32 n = 0;
	ll_u8 m;

	for (m = cfg->lossless_mask; m; m &= (ll_u8)(m - 1))
		n++;
	return n;
}

/*
 * v / 2^shift with the magnitude rounded up: an EWMA step that never
 * stalls short of a constant input (it reaches it exactly) and never
 * overshoots it (|step| <= |v|).
 */
static ll_s32 ewma_step(ll_s32 v, ll_u32 shift)
{
	ll_s32 round = (1 << shift) - 1;

	return v >= 0 ? (v + round) >> shift : -((-v + round) >> shift);
}

/* ------------------------------------------------------- configuration */

static const char *dsh_check(const struct ll_mmu_config *cfg)
{
	const struct ll_dsh_params *d = &cfg->scheme_params.dsh;

	if (d->window_ns > DSH_WINDOW_NS_MAX)
		return "dsh: dsh-window above 10 s";
	if (d->ewma_shift > DSH_EWMA_SHIFT_MAX)
		return "dsh: dsh-ewma-shift above 8";
	if (d->deviation_gain > DSH_GAIN_MAX)
		return "dsh: dsh-gain above 16";
	if (d->flags & ~LL_DSH_F_ALL)
		return "dsh: unknown dsh-variant flags";
	/* Without shared headroom tau is 0: a static tau would mean nothing. */
	if ((d->flags & LL_DSH_F_NO_SHARED_HEADROOM) &&
	    (d->flags & LL_DSH_F_STATIC_TAU))
		return "dsh: dsh-variant no-shared-headroom and static-tau together";
	return (const char *)0;
}

/* Phi_i once per port (Eq. 9), if the pool has lossless priorities. */
ll_u64 ll_dsh_port_carve(const struct ll_mmu_config *cfg, ll_u64 h)
{
	if (!cfg->lossless_mask ||
	    (cfg->scheme_params.dsh.flags & LL_DSH_F_NO_INSURANCE))
		return 0;
	return h;
}

/* ----------------------------------------------------------- thresholds */

ll_u64 ll_dsh_port_shared(const struct ll_mmu_pool *pool, ll_u32 port)
{
	/* Lossy bytes of the port share the region but are never paused. */
	return pool->ports[port].lossless_shared_used;
}

/* X_poff = N_q x T, given T. */
static inline ll_u64 port_threshold(const struct ll_mmu_pool *pool, ll_u64 t)
{
	/* T < 2^57 (size <= 2^40, num < 2^16), times at most 8. */
	return lossless_count(&pool->cfg) * t;
}

ll_u64 ll_dsh_port_threshold(const struct ll_mmu_pool *pool)
{
	return port_threshold(pool, ll_dt_ingress_threshold(pool));
}

static inline int single_queue(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_dsh_port_state *st = &pool->ports[port].sch.dsh;
	ll_u64 now = pool->sch.dsh.now_ns;

	return st->has_prev && now > st->start_ns &&
	       now - st->start_ns > window_ns(pool);
}

static inline ll_u64 headroom_estimate(const struct ll_mmu_pool *pool,
				       ll_u32 port, ll_u32 prio)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_s64 g = (ll_s64)st->g_avg[prio] +
		   (ll_s64)deviation_gain(pool) * st->v_avg[prio];

	/* Eq. 7 and 8: phi_hat = g_hat x D = (g_hat / C) x Phi, in [0, Phi]. */
	if (g <= 0)
		return 0;
	if (g >= LL_DSH_ONE)
		return p->headroom_bytes;
	/* Phi <= 2^40 (the pool), g < 2^14: the product fits. */
	return (p->headroom_bytes * (ll_u64)g + LL_DSH_ONE - 1) >>
	       LL_DSH_ONE_SHIFT;
}

static inline ll_u64 tau(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio)
{
	if (has_flag(pool, LL_DSH_F_NO_SHARED_HEADROOM) ||
	    single_queue(pool, port))
		return 0;
	if (has_flag(pool, LL_DSH_F_STATIC_TAU))
		return pool->ports[port].headroom_bytes;
	return headroom_estimate(pool, port, prio);
}

int ll_dsh_single_queue(const struct ll_mmu_pool *pool, ll_u32 port)
{
	return single_queue(pool, port);
}

ll_u64 ll_dsh_headroom_estimate(const struct ll_mmu_pool *pool, ll_u32 port,
				ll_u32 prio)
{
	return headroom_estimate(pool, port, prio);
}

ll_u64 ll_dsh_tau(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio)
{
	return tau(pool, port, prio);
}

/* X_qoff given T (DT's alpha x free, which every evaluation reads once). */
static inline ll_u64 queue_threshold(const struct ll_mmu_pool *pool,
				     ll_u32 port, ll_u32 prio, ll_u64 t)
{
	ll_u64 m = tau(pool, port, prio);

	return t > m ? t - m : 0;
}

ll_u64 ll_dsh_queue_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			      ll_u32 prio)
{
	return queue_threshold(pool, port, prio, ll_dt_ingress_threshold(pool));
}

/* ------------------------------------------------------------ admission */

enum ll_mmu_region ll_dsh_admit_lossless(const struct ll_mmu_pool *pool,
					 ll_u32 port, ll_u32 prio,
					 ll_u32 bytes)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	ll_u64 t = ll_dt_ingress_threshold(pool);

	/* The port gate, not a queue cap (A11); the pool guard (INV-3). */
	if (pool->shared_used + bytes <= pool->shared_size &&
	    ll_dsh_port_shared(pool, port) + bytes <= port_threshold(pool, t) &&
	    (!has_flag(pool, LL_DSH_F_NO_SHARED_HEADROOM) ||
	     p->iq[prio].shared_used + bytes <= t))
		return LL_MMU_REGION_SHARED;
	if (p->headroom_used + bytes <=
	    ll_dsh_port_carve(&pool->cfg, p->headroom_bytes))
		return LL_MMU_REGION_HEADROOM;
	return LL_MMU_REGION_NONE;
}

/* ------------------------------------------------------------ estimator */

/*
 * Net growth dq over dt_ns as a fraction of what the port's link carries
 * in dt_ns, Q14, clamped to [-1, 1]: a queue cannot grow faster than its
 * upstream link; faster apparent growth is arrivals batched by software,
 * and g >= C means phi_hat = Phi anyway.
 */
static ll_s32 gradient_q14(ll_s64 dq, ll_u64 dt_ns, ll_u64 rate_bps)
{
	ll_u64 mag = dq < 0 ? (ll_u64)-dq : (ll_u64)dq;	/* < 2^33 */
	ll_u64 link;
	ll_s32 x;

	/* An unchanged queue (each arrival into an empty one, uncongested):
	 * 0 without the division, which a software switch pays per packet.
	 */
	if (!mag)
		return 0;
	link = ll_bytes_in_ns(rate_bps, dt_ns);	/* >= 1 */
	if (mag >= link)
		x = LL_DSH_ONE;
	else
		x = (ll_s32)ll_div_u64(mag << LL_DSH_ONE_SHIFT, link);
	return dq < 0 ? -x : x;
}

/*
 * Alg. 3 on an arrival to (port, prio), corrected (dsh.md 3.3, A2, A4):
 * the deviation against the old g_avg, then g_avg += w (g - g_avg) and
 * v_avg += w (|g - g_avg| - v_avg). The first arrival only takes a sample.
 * q is the queue's bytes in every region (A6); dt at least 1 ns (A5).
 */
static void estimate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		     ll_u64 now_ns)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_dsh_port_state *st = &p->sch.dsh;
	struct ll_mmu_iq *iq = &p->iq[prio];
	struct ll_dsh_iq_state *s = &iq->sch.dsh;
	ll_u64 qlen = iq->reserved_used + iq->shared_used + iq->headroom_used;
	ll_u32 q = qlen > DSH_Q_MAX ? (ll_u32)DSH_Q_MAX : (ll_u32)qlen;
	ll_u32 t = (ll_u32)now_ns;
	ll_u8 bit = (ll_u8)(1u << prio);

	if (st->est_valid & bit) {
		ll_u32 shift = ewma_shift(pool);
		ll_u32 dt = t - s->t_prev_ns;	/* modulo 2^32 */
		ll_s32 g, err, abs_err;

		g = gradient_q14((ll_s64)q - (ll_s64)s->q_prev_bytes,
				 dt ? dt : 1, p->rate_bps);
		err = g - st->g_avg[prio];		/* [-2, 2] x ONE */
		abs_err = err < 0 ? -err : err;
		/* Convex steps: g_avg stays in [-1, 1], v_avg in [0, 2]. */
		st->g_avg[prio] = (ll_s16)(st->g_avg[prio] +
					   ewma_step(err, shift));
		st->v_avg[prio] = (ll_u16)(st->v_avg[prio] +
					   ewma_step(abs_err - st->v_avg[prio],
						     shift));
	}
	st->est_valid |= bit;
	s->q_prev_bytes = q;
	s->t_prev_ns = t;
}

void ll_dsh_admitted(struct ll_mmu_pool *pool,
		     const struct ll_mmu_charge *charge, ll_u64 now_ns)
{
	struct ll_mmu_port *p = &pool->ports[charge->in_port];
	struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_u32 prio = charge->prio;

	/* Lossy and control classes change neither the mode nor an estimate. */
	if (!charge->lossless)
		return;
	if (p->headroom_used > st->insurance_peak)
		st->insurance_peak = p->headroom_used < DSH_Q_MAX ?
				     (ll_u32)p->headroom_used : (ll_u32)DSH_Q_MAX;
	now_ns = ll_scheme_clock(&pool->sch.dsh.now_ns, now_ns);
	/* Alg. 4: the window restarts when another queue gets a packet. */
	if (!st->has_prev || st->prev_prio != prio) {
		st->has_prev = 1;
		st->prev_prio = (ll_u8)prio;
		st->start_ns = now_ns;
		st->ticked = 0;
	}
	if (!has_flag(pool, LL_DSH_F_NO_SHARED_HEADROOM | LL_DSH_F_STATIC_TAU))
		estimate(pool, charge->in_port, prio, now_ns);
}

/* ---------------------------------------------------- the state machines */

static void queue_eval(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		       ll_u64 t)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_u64 s = p->iq[prio].shared_used;
	ll_u8 bit = (ll_u8)(1u << prio);
	ll_u64 x;

	/* A queue at or below xon_bytes neither pauses nor stays paused. */
	if (!(st->qoff & bit) && s <= pool->cfg.xon_bytes)
		return;
	x = queue_threshold(pool, port, prio, t);
	if (!(st->qoff & bit)) {
		if (s > pool->cfg.xon_bytes && s > x) {
			st->qoff |= bit;
			st->qoff_pauses++;
			ll_scheme_log_event(pool, port, prio, LL_DSH_EV_QOFF,
					    ll_scheme_iq_bytes(pool, port, prio),
					    pool->sch.dsh.now_ns);
		}
	} else if (s <= pool->cfg.xon_bytes ||
		   s + pool->cfg.xon_offset_bytes < x) {
		st->qoff &= (ll_u8)~bit;
		ll_scheme_log_event(pool, port, prio, LL_DSH_EV_QON,
				    ll_scheme_iq_bytes(pool, port, prio),
				    pool->sch.dsh.now_ns);
	}
}

static void port_eval(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 t)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_u64 s = p->lossless_shared_used;
	ll_u64 x;

	if (!st->poff && !p->headroom_used && s <= pool->cfg.xon_bytes)
		return;
	x = port_threshold(pool, t);
	/* Insurance in use means POFF, as headroom in use means XOFF in DT. */
	if (!st->poff) {
		if (p->headroom_used ||
		    (s > pool->cfg.xon_bytes && s > x)) {
			st->poff = 1;
			st->poff_pauses++;
			ll_scheme_log_event(pool, port, 0xff, LL_DSH_EV_POFF,
					    s + p->headroom_used,
					    pool->sch.dsh.now_ns);
		}
	} else if (!p->headroom_used &&
		   (s <= pool->cfg.xon_bytes ||
		    s + pool->cfg.xon_offset_bytes < x)) {
		st->poff = 0;
		ll_scheme_log_event(pool, port, 0xff, LL_DSH_EV_PON, s,
				    pool->sch.dsh.now_ns);
	}
}

ll_u64 ll_dsh_shared_headroom(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	ll_u8 qoff = p->sch.dsh.qoff & pool->cfg.lossless_mask;
	ll_u64 sum = 0;
	ll_u32 prio;

	for (prio = 0; qoff; prio++, qoff >>= 1) {
		ll_u64 s = p->iq[prio].shared_used;
		ll_u64 x;

		if (!(qoff & 1))
			continue;
		x = ll_dsh_queue_threshold(pool, port, prio);
		if (s > x)
			sum += s - x;
	}
	return sum;
}

/* Telemetry: the peak of the shared headroom, after every evaluation. */
static void shared_headroom_peak(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_dsh_port_state *st = &pool->ports[port].sch.dsh;
	ll_u64 hr;

	if (!(st->qoff & pool->cfg.lossless_mask))
		return;
	hr = ll_dsh_shared_headroom(pool, port);
	if (hr > DSH_Q_MAX)
		hr = DSH_Q_MAX;
	if (hr > st->shared_hr_peak)
		st->shared_hr_peak = (ll_u32)hr;
}

void ll_dsh_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_dsh_port_state *st = &p->sch.dsh;

	st->insurance_peak = p->headroom_used < DSH_Q_MAX ?
			     (ll_u32)p->headroom_used : (ll_u32)DSH_Q_MAX;
	st->shared_hr_peak = 0;
	shared_headroom_peak(pool, port);
}

/* The telemetry, by name (the descriptor's tables use the same enums). */
enum dsh_stat {
	DSH_QOFF_PAUSES,
	DSH_POFF_PAUSES,
	DSH_INSURANCE_USED,
	DSH_INSURANCE_PEAK,
	DSH_SHARED_HR_USED,
	DSH_SHARED_HR_PEAK,
	DSH_PORT_SHARED,
	DSH_STATS
};

enum dsh_mask { DSH_MASK_QOFF, DSH_MASK_POFF, DSH_MASK_SINGLE_QUEUE, DSH_MASKS };
enum dsh_prio_stat { DSH_TAU, DSH_PHI_HAT, DSH_PRIO_STATS };

static void dsh_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			   ll_u64 now_ns, struct ll_scheme_port_stats *out)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u32 prio;

	(void)now_ns;
	out->masks = (ll_u32)(st->qoff & mask) << (8 * DSH_MASK_QOFF);
	if (st->poff)
		out->masks |= (ll_u32)mask << (8 * DSH_MASK_POFF);
	if (ll_dsh_single_queue(pool, port))
		out->masks |= (1u << st->prev_prio) << (8 * DSH_MASK_SINGLE_QUEUE);
	out->ctr[DSH_QOFF_PAUSES] = st->qoff_pauses;
	out->ctr[DSH_POFF_PAUSES] = st->poff_pauses;
	out->ctr[DSH_INSURANCE_USED] = p->headroom_used;
	out->ctr[DSH_INSURANCE_PEAK] = st->insurance_peak;
	out->ctr[DSH_SHARED_HR_USED] = ll_dsh_shared_headroom(pool, port);
	out->ctr[DSH_SHARED_HR_PEAK] = st->shared_hr_peak;
	out->ctr[DSH_PORT_SHARED] = ll_dsh_port_shared(pool, port);
	for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
		if (!((mask >> prio) & 1))
			continue;
		out->prio[DSH_TAU][prio] = ll_dsh_tau(pool, port, prio);
		out->prio[DSH_PHI_HAT][prio] =
			ll_dsh_headroom_estimate(pool, port, prio);
	}
}

/* The pause wish of every lossless priority: QOFF(j) OR POFF. */
static void apply(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_dsh_port_state *st = &p->sch.dsh;
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u8 eff, diff;
	ll_u32 prio;

	st->qoff &= mask;
	eff = (ll_u8)((st->qoff | (st->poff ? 0xFF : 0)) & mask);
	diff = (ll_u8)(eff ^ p->xoff.want);
	for (prio = 0; diff; prio++, diff >>= 1)
		if (diff & 1)
			ll_mmu_want(pool, port, prio, (eff >> prio) & 1);
}

void ll_dsh_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		     ll_u64 now_ns)
{
	ll_u64 t;

	ll_scheme_clock(&pool->sch.dsh.now_ns, now_ns);
	t = ll_dt_ingress_threshold(pool);
	queue_eval(pool, port, prio, t);
	port_eval(pool, port, t);
	apply(pool, port);
	shared_headroom_peak(pool, port);
}

/*
 * The end of the window turns tau to 0 with no packet on the port: a
 * paused queue may then resume. The port's timer re-evaluates it once per
 * window; the other way (tau back to phi_hat) comes with an arrival.
 */
ll_u64 ll_dsh_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_dsh_port_state *st = &pool->ports[port].sch.dsh;

	if (!st->has_prev || st->ticked ||
	    !(st->qoff & pool->cfg.lossless_mask) ||
	    has_flag(pool, LL_DSH_F_NO_SHARED_HEADROOM))
		return LL_MMU_NEVER;
	return st->start_ns + window_ns(pool) + 1;	/* strict ">" (A10) */
}

void ll_dsh_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	ll_u64 t = ll_dt_ingress_threshold(pool);
	ll_u32 prio;

	ll_scheme_clock(&pool->sch.dsh.now_ns, now_ns);
	pool->ports[port].sch.dsh.ticked = 1;
	for (prio = 0; prio < LL_MMU_PRIOS; prio++)
		if ((pool->cfg.lossless_mask >> prio) & 1)
			queue_eval(pool, port, prio, t);
	port_eval(pool, port, t);
	apply(pool, port);
	shared_headroom_peak(pool, port);
}

/* ------------------------------------------------------- the descriptor */

/* The flags' names: the value 0, then bit 0, 1, ... (LL_PARAM_FLAGS). */
static const char *const dsh_variants[] = {
	"dsh", "no-shared-headroom", "no-insurance", "static-tau", (void *)0,
};

/* struct ll_dsh_params, word by word (param.h). */
static const struct ll_param dsh_params[] = {
	{
		.tc = "dsh-window", .arg = "TIME", .key = "window",
		.ctl = "dsh.window",
		.help = "single-queue window (Alg. 4): a port whose lossless packets all went to one priority this long gives it tau 0",
		.unit = LL_PARAM_TIME,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_DSH, .min = 1, .max = LL_DSH_WINDOW_NS_MAX,
		.def = LL_DSH_WINDOW_NS_DEFAULT,
		.nl_attr = TCA_LOSSLESS_DSH_WINDOW_NS,
		.nl_nest = TCA_LOSSLESS_SCHEME_DSH, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 0,
	},
	{
		.tc = "dsh-ewma-shift", .arg = "N", .key = "ewma-shift",
		.ctl = "dsh.ewma-shift",
		.help = "weight of the in-flight estimator's averages, w = 2^-N",
		.unit = LL_PARAM_COUNT,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_DSH, .min = 1, .max = LL_DSH_EWMA_SHIFT_MAX,
		.def = LL_DSH_EWMA_SHIFT_DEFAULT,
		.nl_attr = TCA_LOSSLESS_DSH_EWMA_SHIFT,
		.nl_nest = TCA_LOSSLESS_SCHEME_DSH, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 1,
	},
	{
		.tc = "dsh-gain", .arg = "N", .key = "gain",
		.ctl = "dsh.gain",
		.help = "deviation gain k of the estimator, g_hat = g_avg + k x v_avg",
		.unit = LL_PARAM_COUNT,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_DSH, .min = 1, .max = LL_DSH_GAIN_MAX,
		.def = LL_DSH_GAIN_DEFAULT,
		.nl_attr = TCA_LOSSLESS_DSH_DEVIATION_GAIN,
		.nl_nest = TCA_LOSSLESS_SCHEME_DSH, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 2,
	},
	{
		.tc = "dsh-variant", .arg = "VARIANT", .key = "variant",
		.ctl = "dsh.variant",
		.help = "dsh, or the paper's ablations: no-shared-headroom, no-insurance, static-tau (comma list)",
		.unit = LL_PARAM_FLAGS,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_DSH, .min = 0, .max = LL_DSH_F_ALL, .def = 0,
		.nl_attr = TCA_LOSSLESS_DSH_FLAGS,
		.nl_nest = TCA_LOSSLESS_SCHEME_DSH, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 3,
		.names = dsh_variants,
		.excl = LL_DSH_F_NO_SHARED_HEADROOM | LL_DSH_F_STATIC_TAU,
	},
};

_Static_assert(LL_ARRAY_SIZE(dsh_params) * sizeof(ll_u64) ==
	       sizeof(struct ll_dsh_params), "a row per word");
_Static_assert((ll_u64)LOSSLESS_DSH_F_NO_SHARED_HEADROOM == (ll_u64)LL_DSH_F_NO_SHARED_HEADROOM &&
	       (ll_u64)LOSSLESS_DSH_F_NO_INSURANCE == (ll_u64)LL_DSH_F_NO_INSURANCE &&
	       (ll_u64)LOSSLESS_DSH_F_STATIC_TAU == (ll_u64)LL_DSH_F_STATIC_TAU,
	       "the uapi's flags are the core's");

static const struct ll_scheme_stat_desc dsh_stats[DSH_STATS] = {
	[DSH_QOFF_PAUSES] = { "qoff_pauses", LL_STAT_COUNT,
		"Queue-level pauses (QOFF) of the port's priorities." },
	[DSH_POFF_PAUSES] = { "poff_pauses", LL_STAT_COUNT,
		"Port-level pauses (POFF) of the port." },
	[DSH_INSURANCE_USED] = { "insurance_used", LL_STAT_BYTES,
		"Bytes in the port's insurance headroom now." },
	[DSH_INSURANCE_PEAK] = { "insurance_peak", LL_STAT_BYTES,
		"Highest insurance headroom use seen." },
	[DSH_SHARED_HR_USED] = { "shared_headroom_used", LL_STAT_BYTES,
		"Shared bytes above X_qoff of the queues in QOFF now." },
	[DSH_SHARED_HR_PEAK] = { "shared_headroom_peak", LL_STAT_BYTES,
		"Highest shared headroom use seen." },
	[DSH_PORT_SHARED] = { "port_shared", LL_STAT_BYTES,
		"Shared bytes of the port's lossless priorities (S_i)." },
};

static const char *const dsh_masks[DSH_MASKS] = {
	[DSH_MASK_QOFF] = "qoff",
	[DSH_MASK_POFF] = "poff",
	[DSH_MASK_SINGLE_QUEUE] = "single_queue",
};

static const struct ll_scheme_stat_desc dsh_prio_stats[DSH_PRIO_STATS] = {
	[DSH_TAU] = { "tau", LL_STAT_BYTES,
		"tau: the priority's shared headroom (X_qoff = T - tau)." },
	[DSH_PHI_HAT] = { "phi_hat", LL_STAT_BYTES,
		"phi_hat: the estimated in-flight bytes after a pause." },
};

static const struct ll_scheme_event_desc dsh_events[LL_DSH_EVENTS] = {
	[LL_DSH_EV_QOFF] = { "qoff",
		"A queue-level pause (QOFF) of the priority." },
	[LL_DSH_EV_QON] = { "qon",
		"The priority's queue-level pause ended (QON)." },
	[LL_DSH_EV_POFF] = { "poff",
		"A port-level pause (POFF) of the port (PRIO port)." },
	[LL_DSH_EV_PON] = { "pon",
		"The port's port-level pause ended (PON)." },
};

_Static_assert(DSH_STATS <= LL_SCHEME_STATS && DSH_MASKS <= LL_SCHEME_MASKS &&
	       DSH_PRIO_STATS <= LL_SCHEME_PRIO_STATS,
	       "the telemetry fits struct ll_scheme_port_stats");

const struct ll_scheme_desc ll_scheme_dsh = {
	.name = "dsh",
	.title = "Dynamic and Shared Headroom",
	.doc = "docs/DSH.md",
	.hooks = LL_SCHEME_HOOK_ADMITTED | LL_SCHEME_HOOK_TIMER |
		 LL_SCHEME_HOOK_CLOCK,
	.params = dsh_params,
	.n_params = LL_ARRAY_SIZE(dsh_params),
	.nl_nest = TCA_LOSSLESS_SCHEME_DSH,
	.nl_pad = TCA_LOSSLESS_DSH_PAD,
	.stats = dsh_stats,
	.n_stats = DSH_STATS,
	.masks = dsh_masks,
	.n_masks = DSH_MASKS,
	.prio_stats = dsh_prio_stats,
	.n_prio_stats = DSH_PRIO_STATS,
	.events = dsh_events,
	.n_events = LL_DSH_EVENTS,
	.headroom_peak_stat = 1 + DSH_INSURANCE_PEAK,
	.check = dsh_check,
	.port_carve = ll_dsh_port_carve,
	.port_tick = ll_dsh_port_tick,
	.reset_peaks = ll_dsh_reset_peaks,
	.port_stats = dsh_port_stats,
};
