// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Shared-buffer switch MMU: see mmu.h for the model and the rules. */
#include "mmu.h"
#include "headroom.h"
#include "scheme.h"
#include "mode.h"
#include "lossless.h"	/* the uapi: LOSSLESS_ECN_MODE_* */

_Static_assert(sizeof(struct ll_mmu_charge) == LL_MMU_CHARGE_BYTES,
	       "the charge record must fit 16 bytes of skb->cb");
_Static_assert(LL_MMU_MAX_PORTS <= 64, "port sets are u64 masks");
_Static_assert(LL_MMU_MAX_PORTS <= 256 && LL_MMU_MAX_QUEUES <= 256,
	       "charge records hold u8 indexes");

/* ------------------------------------------------------------- helpers */

static void raise_peak(ll_u64 *peak, ll_u64 v)
{
	if (v > *peak)
		*peak = v;
}

/* *x -= v, clamped at 0; returns 1 if it had to clamp. */
static ll_u32 sub_clamp(ll_u64 *x, ll_u64 v)
{
	if (v > *x) {
		*x = 0;
		return 1;
	}
	*x -= v;
	return 0;
}

static void zero_bytes(void *p, ll_u64 n)
{
	ll_u8 *b = p;

	while (n--)
		*b++ = 0;
}

static ll_u32 popcount8(ll_u8 v)
{
	ll_u32 n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/* Bits set in v, without a loop per bit (a scheme may read it per packet). */
static ll_u32 popcount64(ll_u64 v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
	return (ll_u32)((v * 0x0101010101010101ULL) >> 56);
}

static int port_ok(const struct ll_mmu_pool *pool, ll_u32 port)
{
	return port < pool->cfg.max_ports && pool->ports[port].attached;
}

static int is_lossless(const struct ll_mmu_pool *pool, ll_u32 prio)
{
	return (pool->cfg.lossless_mask >> prio) & 1;
}

static int alpha_ok(struct ll_mmu_alpha a)
{
	return a.num && a.shift <= LL_MMU_ALPHA_MAX_SHIFT;
}

/* -------------------------------------------------------- threshold policy */

ll_u64 ll_mmu_ingress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
				ll_u32 prio)
{
	if (!port_ok(pool, port) || prio >= LL_MMU_PRIOS)
		return 0;
	return ll_scheme_ingress_threshold(pool, port, prio);
}

ll_u64 ll_mmu_egress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			       ll_u32 queue)
{
	if (!port_ok(pool, port) || queue >= LL_MMU_MAX_QUEUES)
		return 0;
	return ll_scheme_egress_threshold(pool, port, queue);
}

/* ------------------------------------------------------ XOFF hysteresis */

void ll_mmu_want(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio, int on)
{
	struct ll_mmu_xoff *xo = &pool->ports[port].xoff;
	ll_u8 bit = (ll_u8)(1u << prio);

	/* A mode's port pauses by its mode's frames only (a scheme's
	 * publish or force through the control channel must not).
	 */
	if (pool->ports[port].mode)
		return;
	if (on && !(xo->want & bit)) {
		xo->want |= bit;
		pool->paused_count++;
	} else if (!on && (xo->want & bit)) {
		xo->want &= (ll_u8)~bit;
		pool->paused_count--;
		/* Withdrawn before it was told: nothing to time. */
		if (!(xo->want & ~xo->told))
			xo->decided_ns = 0;
	}
}

ll_u32 ll_mmu_attached_ports(const struct ll_mmu_pool *pool)
{
	return popcount64(pool->attached_mask);
}

/* The scheme's deadline on port, without a call for a scheme without one. */
static __always_inline ll_u64 port_deadline(const struct ll_mmu_pool *pool,
					    ll_u32 port)
{
	if (!(pool->scheme_hooks & LL_SCHEME_HOOK_TIMER))
		return LL_MMU_NEVER;
	return ll_scheme_port_deadline(pool, port);
}

/*
 * A port whose frames are its scheme's (LL_SCHEME_HOOK_FRAMES), not the
 * MMU's PFC: every port of such a pool but one with a mode. The hook bit
 * spares the others the lookup; the descriptor decides (a hooks mask with
 * every bit set, as the tests' check of skipped hooks has it, must not
 * silence a scheme's PFC).
 */
static int own_frames(const struct ll_mmu_pool *pool,
		      const struct ll_mmu_port *p)
{
	const struct ll_scheme_desc *d;

	if (!(pool->scheme_hooks & LL_SCHEME_HOOK_FRAMES) || p->mode)
		return 0;
	d = ll_scheme_lookup(pool->cfg.scheme);
	return d && d->frames_take;
}

static int xoff_due(const struct ll_mmu_port *p, ll_u64 now_ns)
{
	if (p->xoff.taken)
		return 0;
	if (p->mode)
		return p->mode_pending;
	if (p->xoff.want != p->xoff.told)
		return 1;
	return p->xoff.told && now_ns >= p->xoff.refresh_at_ns;
}

/* Evaluate every lossless queue of every attached port; mask of due ports. */
static ll_u64 evaluate_all(struct ll_mmu_pool *pool, ll_u64 now_ns)
{
	ll_u64 due = 0;
	ll_u32 port, prio;

	for (port = 0; port < pool->cfg.max_ports; port++) {
		struct ll_mmu_port *p = &pool->ports[port];

		if (!p->attached)
			continue;
		/* A mode's port is the mode's: no hysteresis of the scheme. */
		for (prio = 0; prio < LL_MMU_PRIOS && !p->mode; prio++)
			if (is_lossless(pool, prio))
				ll_scheme_evaluate(pool, port, prio, now_ns);
		/* A mode's slot due: its port's timer must run it. */
		if (xoff_due(p, now_ns) ||
		    (p->mode && now_ns >= p->mode_next_ns) ||
		    (own_frames(pool, p) && ll_mmu_ctrl_due(pool, port, now_ns)))
			due |= 1ULL << port;
	}
	return due;
}

/* ------------------------------------------------------ config, partition */

enum ll_mmu_err ll_mmu_config_check(const struct ll_mmu_config *cfg)
{
	if (!cfg->total_bytes || cfg->total_bytes > LL_MMU_MAX_TOTAL_BYTES)
		return LL_MMU_ERR_TOTAL;
	if (!cfg->max_ports || cfg->max_ports > LL_MMU_MAX_PORTS)
		return LL_MMU_ERR_PORTS;
	if (!cfg->mtu_bytes || cfg->mtu_bytes > LL_MMU_MAX_MTU_BYTES)
		return LL_MMU_ERR_MTU;
	if ((ll_u64)cfg->reserved_bytes * LL_MMU_PRIOS + cfg->mtu_bytes >
	    cfg->total_bytes)
		return LL_MMU_ERR_RESERVED;
	if (!alpha_ok(cfg->alpha) || !alpha_ok(cfg->egress_alpha))
		return LL_MMU_ERR_ALPHA;
	if (cfg->xon_offset_bytes > cfg->total_bytes ||
	    cfg->xon_bytes > cfg->total_bytes)
		return LL_MMU_ERR_XON;
	if (cfg->ecn.enabled &&
	    (cfg->ecn.kmin_bytes >= cfg->ecn.kmax_bytes ||
	     cfg->ecn.kmax_bytes > LL_MMU_MAX_TOTAL_BYTES ||
	     cfg->ecn.pmax > LL_ECN_PMAX_ONE))
		return LL_MMU_ERR_ECN;
	/* NP-ECN marks by the queue's own state: not beside RED. */
	if (cfg->ecn_mode > LOSSLESS_ECN_MODE_NP_ECN ||
	    (cfg->ecn_mode == LOSSLESS_ECN_MODE_NP_ECN && cfg->ecn.enabled))
		return LL_MMU_ERR_ECN;
	if (cfg->release_order > LL_MMU_RELEASE_TAGGED)
		return LL_MMU_ERR_RELEASE_ORDER;
	return ll_scheme_check(cfg);
}

/*
 * Whether a partition (reserved_size + headroom_size out of total) leaves
 * a usable shared pool that still holds the shared bytes in use.
 */
static enum ll_mmu_err partition_check(const struct ll_mmu_pool *pool,
				       ll_u64 total, ll_u64 reserved_size,
				       ll_u64 headroom_size, ll_u32 mtu)
{
	ll_u64 carved = reserved_size + headroom_size;

	if (carved > total || total - carved < mtu)
		return LL_MMU_ERR_NO_SPACE;
	if (total - carved < pool->shared_used)
		return LL_MMU_ERR_BUSY;
	return LL_MMU_OK;
}

static void partition_set(struct ll_mmu_pool *pool, ll_u64 reserved_size,
			  ll_u64 headroom_size)
{
	pool->reserved_size = reserved_size;
	pool->headroom_size = headroom_size;
	pool->shared_size = pool->cfg.total_bytes - reserved_size - headroom_size;
}

static ll_u64 sweep_step(const struct ll_mmu_config *cfg)
{
	ll_u64 step = ll_div_u64((ll_u64)cfg->mtu_bytes << cfg->alpha.shift,
				 cfg->alpha.num);

	return step > cfg->mtu_bytes ? step : cfg->mtu_bytes;
}

static ll_u16 xoff_quanta(const struct ll_mmu_config *cfg)
{
	return cfg->xoff_quanta ? cfg->xoff_quanta : LL_PAUSE_QUANTA_MAX;
}

static void xoff_timing(struct ll_mmu_port *p, ll_u16 quanta)
{
	ll_u64 half = ll_quanta_to_ns(quanta, p->rate_bps) / 2;

	p->xoff.quanta = quanta;
	p->xoff.refresh_ns = half ? half : 1;
}

enum ll_mmu_err ll_mmu_pool_init(struct ll_mmu_pool *pool,
				 const struct ll_mmu_config *cfg)
{
	enum ll_mmu_err err = ll_mmu_config_check(cfg);

	if (err)
		return err;
	zero_bytes(pool, LL_MMU_POOL_BYTES(cfg->max_ports));
	pool->cfg = *cfg;
	pool->scheme_hooks = ll_scheme_hooks(cfg->scheme);
	partition_set(pool, 0, 0);
	pool->sweep_step = sweep_step(cfg);
	return LL_MMU_OK;
}

int ll_mmu_pool_idle(const struct ll_mmu_pool *pool)
{
	ll_u32 port;

	if (pool->reserved_used || pool->shared_used || pool->headroom_used)
		return 0;
	for (port = 0; port < pool->cfg.max_ports; port++)
		if (pool->ports[port].egress_bytes)
			return 0;
	return 1;
}

/*
 * A mode's timer sleeps while its port is idle, and the mode restarts
 * (its start()) at the next arrival: an idle port costs no wake-ups, and
 * a restart's state (F at its bound, for Bifrost) holds whatever the
 * upstream sent meanwhile.
 */
static void mode_sleep(struct ll_mmu_port *p, ll_u8 why)
{
	p->mode_asleep = why;	/* enum ll_mode_start */
	p->mode_next_ns = LL_MMU_NEVER;
}

/* The running mode takes p's parameters, or the pool's new MTU. */
static void mode_reconfigure(const struct ll_mmu_pool *pool,
			     struct ll_mmu_port *p)
{
	const struct ll_mode_desc *d = ll_mode_lookup(p->mode);

	/* A loop that has not started (asleep since attach or a restart)
	 * starts from the parameters it has then.
	 */
	if (d && p->mode_asleep != LL_MODE_START_RESTART)
		d->reconfigure(&p->mode_st, &p->mode_params, p->rate_bps,
			       pool->cfg.mtu_bytes);
}

enum ll_mmu_err ll_mmu_pool_reconfigure(struct ll_mmu_pool *pool,
					const struct ll_mmu_config *cfg)
{
	enum ll_mmu_err err = ll_mmu_config_check(cfg);
	ll_u64 headroom_sum = 0, mode_sum = 0, reserved_size, headroom_size;
	ll_u32 port, prio, old_mtu;

	if (err)
		return err;
	if (cfg->max_ports != pool->cfg.max_ports)
		return LL_MMU_ERR_PORTS;
	if (ll_scheme_ports_check(pool, cfg, LL_MMU_MAX_PORTS, 0))
		return LL_MMU_ERR_SCHEME_PORT;
	if ((cfg->lossless_mask != pool->cfg.lossless_mask ||
	     cfg->release_order != pool->cfg.release_order ||
	     cfg->scheme != pool->cfg.scheme) && !ll_mmu_pool_idle(pool))
		return LL_MMU_ERR_BUSY;
	for (port = 0; port < pool->cfg.max_ports; port++) {
		const struct ll_mmu_port *p = &pool->ports[port];

		if (!p->attached)
			continue;
		for (prio = 0; prio < LL_MMU_PRIOS; prio++)
			if (p->iq[prio].reserved_used > cfg->reserved_bytes)
				return LL_MMU_ERR_BUSY;
		if (p->mode) {
			/* Its check and buffer depend on the MTU. */
			ll_u64 h = ll_mode_buffer(p->mode, &p->mode_params,
						  p->rate_bps, cfg->mtu_bytes);

			if (ll_mode_check(p->mode, &p->mode_params,
					  p->rate_bps, cfg->mtu_bytes))
				return LL_MMU_ERR_MODE;
			if (p->headroom_used > h)
				return LL_MMU_ERR_BUSY;
			mode_sum += h;
			continue;
		}
		headroom_sum += p->headroom_bytes;
		/* A scheme's carve may change with its parameters (DSH). */
		if (p->headroom_used >
		    ll_scheme_port_carve(cfg, p->headroom_bytes))
			return LL_MMU_ERR_BUSY;
	}
	reserved_size = (ll_u64)popcount64(pool->attached_mask) * LL_MMU_PRIOS *
			cfg->reserved_bytes;
	headroom_size = ll_scheme_port_carve(cfg, headroom_sum) + mode_sum;
	err = partition_check(pool, cfg->total_bytes, reserved_size,
			      headroom_size, cfg->mtu_bytes);
	if (err)
		return err;

	if (cfg->scheme != pool->cfg.scheme) {
		/* Idle (checked above): the new scheme starts from zero. */
		zero_bytes(&pool->sch, sizeof(pool->sch));
		for (port = 0; port < pool->cfg.max_ports; port++) {
			struct ll_mmu_port *p = &pool->ports[port];

			zero_bytes(&p->sch, sizeof(p->sch));
			for (prio = 0; prio < LL_MMU_PRIOS; prio++)
				zero_bytes(&p->iq[prio].sch,
					   sizeof(p->iq[prio].sch));
		}
	}
	old_mtu = pool->cfg.mtu_bytes;
	pool->cfg = *cfg;
	pool->cfg_gen++;
	pool->scheme_hooks = ll_scheme_hooks(cfg->scheme);
	partition_set(pool, reserved_size, headroom_size);
	pool->sweep_step = sweep_step(cfg);
	for (port = 0; port < pool->cfg.max_ports; port++) {
		struct ll_mmu_port *p = &pool->ports[port];
		ll_u8 gone;

		if (!p->attached)
			continue;
		xoff_timing(p, xoff_quanta(cfg));
		if (p->mode && cfg->mtu_bytes != old_mtu) {
			p->headroom_bytes = ll_mode_buffer(p->mode,
							   &p->mode_params,
							   p->rate_bps,
							   cfg->mtu_bytes);
			mode_reconfigure(pool, p);	/* the new MTU */
		}
		/* Priorities that stopped being lossless resume. */
		gone = p->xoff.want & (ll_u8)~cfg->lossless_mask;
		p->xoff.want &= cfg->lossless_mask;
		pool->paused_count -= popcount8(gone);
	}
	evaluate_all(pool, 0);
	return LL_MMU_OK;
}

/* ---------------------------------------------------------------- ports */

ll_u64 ll_mmu_port_headroom(const struct ll_mmu_pool *pool,
			    const struct ll_mmu_port_config *pc)
{
	struct ll_headroom_params hp = {
		.rate_bps = pc->rate_bps,
		.cable_delay_ns = pc->cable_delay_ns,
		.sw_response_ns = pc->sw_response_ns,
		.mtu_bytes = pool->cfg.mtu_bytes,
		.queued_bytes = pc->queued_bytes,
		.shaper_burst_bytes = pc->shaper_burst_bytes,
	};

	if (pc->headroom_bytes)
		return pc->headroom_bytes;
	return ll_headroom_bytes(&hp);
}

static enum ll_mmu_err port_config_check(const struct ll_mmu_pool *pool,
					 const struct ll_mmu_port_config *pc,
					 ll_u64 *headroom)
{
	if (!pc->rate_bps || pc->rate_bps > LL_HEADROOM_MAX_RATE_BPS)
		return LL_MMU_ERR_RATE;
	if (pc->scheme_port > LL_MMU_MAX_PORTS)
		return LL_MMU_ERR_PORT;
	if (pc->cable_delay_ns > LL_HEADROOM_MAX_DELAY_NS ||
	    pc->sw_response_ns > LL_HEADROOM_MAX_DELAY_NS)
		return LL_MMU_ERR_DELAY;
	if (pc->mode) {
		if (ll_mode_check(pc->mode, &pc->mode_params, pc->rate_bps,
				  pool->cfg.mtu_bytes))
			return LL_MMU_ERR_MODE;
		*headroom = ll_mode_buffer(pc->mode, &pc->mode_params,
					   pc->rate_bps, pool->cfg.mtu_bytes);
	} else {
		*headroom = ll_mmu_port_headroom(pool, pc);
	}
	if (*headroom < 2ULL * pool->cfg.mtu_bytes)
		return LL_MMU_ERR_HEADROOM;
	if (*headroom > pool->cfg.total_bytes)
		return LL_MMU_ERR_NO_SPACE;
	return LL_MMU_OK;
}

/* The headroom a port carves: a mode's buffer once, else the scheme's. */
static ll_u64 port_carve(const struct ll_mmu_config *cfg, ll_u32 mode,
			 ll_u64 headroom)
{
	return mode ? headroom : ll_scheme_port_carve(cfg, headroom);
}

/* An arrival on a sleeping mode's port: its timer runs at once (admit's
 * kick arms it), its first slot a slot later (mode_timer()).
 */
static void mode_wake(const struct ll_mmu_pool *pool, struct ll_mmu_port *p,
		      ll_u64 now_ns)
{
	const struct ll_mode_desc *d = ll_mode_lookup(p->mode);

	if (d)
		d->start(&p->mode_st, &p->mode_params, p->rate_bps,
			 pool->cfg.mtu_bytes, now_ns, p->mode_rx_bytes,
			 p->mode_asleep);
	p->mode_asleep = 0;
	p->mode_next_ns = now_ns;
}

/*
 * The mode's loop starts again from its parameters (a new rate, a link
 * down and up): at the next arrival if the port holds nothing, else now
 * (its first slot T later, F at its bound, as at init), so that a port
 * with bytes held is never left without its loop. A frame not yet taken
 * spoke for the old loop: dropped.
 */
static void mode_restart(const struct ll_mmu_pool *pool,
			 struct ll_mmu_port *p, ll_u64 now_ns)
{
	p->mode_pending = 0;
	mode_sleep(p, LL_MODE_START_RESTART);
	if (p->headroom_used)
		mode_wake(pool, p, now_ns);
}

static int mode_params_equal(const union ll_mode_params *a,
			     const union ll_mode_params *b)
{
	ll_u32 i;

	for (i = 0; i < LL_MODE_PARAM_WORDS; i++)
		if (a->raw[i] != b->raw[i])
			return 0;
	return 1;
}

/*
 * Port p takes mode pc->mode (maybe none) with pc's parameters; the mode
 * restarts at the next arrival. Whoever paused the upstream before hands
 * over with a resume: a scheme's pauses get a resume frame from the
 * mode's first frame, a mode's last pause one from the scheme (told).
 */
static void mode_set(struct ll_mmu_pool *pool, struct ll_mmu_port *p,
		     const struct ll_mmu_port_config *pc, ll_u64 now_ns)
{
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u32 i;

	if (pc->mode != p->mode) {
		/* The old mode's last pause, or a resume it had not sent
		 * yet: one XON from the next owner ends either.
		 */
		if (p->mode) {
			p->xoff.told = mask;
			for (i = 0; i < LL_MMU_PRIOS; i++)
				if (mask & (1u << i))
					p->iq[i].paused_since_ns = now_ns;
		}
		zero_bytes(&p->mode_st, sizeof(p->mode_st));
		p->mode_pending = 0;
	}
	p->mode = (ll_u8)pc->mode;
	p->mode_params = pc->mode_params;
	if (!p->mode)
		return;
	pool->paused_count -= popcount8(p->xoff.want);
	p->xoff.want = 0;
	if (p->xoff.told) {
		zero_bytes(&p->mode_frame, sizeof(p->mode_frame));
		p->mode_frame.kind = LL_CTRL_PFC;
		p->mode_frame.gate_mask = p->xoff.told;
		for (i = 0; i < LL_MMU_PRIOS; i++)
			if ((p->xoff.told & (1u << i)) &&
			    now_ns > p->iq[i].paused_since_ns)
				p->iq[i].paused_ns_total +=
					now_ns - p->iq[i].paused_since_ns;
		p->xoff.told = 0;
		p->mode_pending = 1;
	}
	mode_sleep(p, LL_MODE_START_RESTART);
}

enum ll_mmu_err ll_mmu_port_attach(struct ll_mmu_pool *pool, ll_u32 port,
				   const struct ll_mmu_port_config *pc,
				   ll_u64 now_ns)
{
	struct ll_mmu_port *p;
	enum ll_mmu_err err;
	ll_u64 headroom, reserved_size, headroom_size;
	ll_u16 gen;

	if (port >= pool->cfg.max_ports)
		return LL_MMU_ERR_PORT;
	p = &pool->ports[port];
	if (p->attached)
		return LL_MMU_ERR_ATTACHED;
	err = port_config_check(pool, pc, &headroom);
	if (err)
		return err;
	if (ll_scheme_ports_check(pool, &pool->cfg, port, pc->scheme_port))
		return LL_MMU_ERR_SCHEME_PORT;
	reserved_size = pool->reserved_size +
			(ll_u64)LL_MMU_PRIOS * pool->cfg.reserved_bytes;
	headroom_size = pool->headroom_size +
			port_carve(&pool->cfg, pc->mode, headroom);
	err = partition_check(pool, pool->cfg.total_bytes, reserved_size,
			      headroom_size, pool->cfg.mtu_bytes);
	if (err)
		return err;

	gen = p->gen;
	zero_bytes(p, sizeof(*p));
	p->gen = gen;
	p->rate_bps = pc->rate_bps;
	p->scheme_port = (ll_u8)pc->scheme_port;
	p->headroom_bytes = headroom;
	p->attached = 1;
	xoff_timing(p, xoff_quanta(&pool->cfg));
	mode_set(pool, p, pc, now_ns);
	pool->attached_mask |= 1ULL << port;
	partition_set(pool, reserved_size, headroom_size);
	return LL_MMU_OK;
}

enum ll_mmu_err ll_mmu_port_update(struct ll_mmu_pool *pool, ll_u32 port,
				   const struct ll_mmu_port_config *pc,
				   ll_u64 now_ns)
{
	struct ll_mmu_port *p;
	enum ll_mmu_err err;
	ll_u64 headroom, headroom_size;
	ll_u32 prio;
	int change = 0;		/* 1 mode, 2 rate, 3 its parameters */

	if (port >= pool->cfg.max_ports)
		return LL_MMU_ERR_PORT;
	p = &pool->ports[port];
	if (!p->attached)
		return LL_MMU_ERR_NOT_ATTACHED;
	err = port_config_check(pool, pc, &headroom);
	if (err)
		return err;
	if (ll_scheme_ports_check(pool, &pool->cfg, port, pc->scheme_port))
		return LL_MMU_ERR_SCHEME_PORT;
	/* A mode comes and goes only while the port holds no lossless
	 * bytes: its region and the scheme's would not describe them.
	 */
	if (pc->mode != p->mode) {
		for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
			const struct ll_mmu_iq *iq = &p->iq[prio];

			if (is_lossless(pool, prio) &&
			    iq->reserved_used + iq->shared_used +
			    iq->headroom_used)
				return LL_MMU_ERR_BUSY;
		}
	}
	for (prio = 0; prio < LL_MMU_PRIOS && !pc->mode; prio++)
		if (p->iq[prio].headroom_used > headroom)
			return LL_MMU_ERR_BUSY;
	/* The port's queues together (DSH's insurance is per port). */
	if (p->headroom_used > port_carve(&pool->cfg, pc->mode, headroom))
		return LL_MMU_ERR_BUSY;
	headroom_size = pool->headroom_size -
			port_carve(&pool->cfg, p->mode, p->headroom_bytes) +
			port_carve(&pool->cfg, pc->mode, headroom);
	err = partition_check(pool, pool->cfg.total_bytes, pool->reserved_size,
			      headroom_size, pool->cfg.mtu_bytes);
	if (err)
		return err;

	/* A new mode, or the scheme takes the port back; a new rate
	 * restarts the mode's loop (bifrost.md 5), new parameters apply to
	 * the running loop from its next slot (S11). Anything else (a
	 * headroom written for a scheme's port) leaves a mode as it is.
	 */
	if (pc->mode != p->mode)
		change = 1;
	else if (pc->mode && pc->rate_bps != p->rate_bps)
		change = 2;
	else if (pc->mode && !mode_params_equal(&pc->mode_params,
						&p->mode_params))
		change = 3;
	p->rate_bps = pc->rate_bps;
	p->scheme_port = (ll_u8)pc->scheme_port;
	p->headroom_bytes = headroom;
	pool->cfg_gen++;
	xoff_timing(p, p->xoff.quanta);
	partition_set(pool, pool->reserved_size, headroom_size);
	if (change == 1) {
		mode_set(pool, p, pc, now_ns);
	} else if (change) {
		p->mode_params = pc->mode_params;
		if (change == 2)
			mode_restart(pool, p, now_ns);
		else
			mode_reconfigure(pool, p);
	}
	evaluate_all(pool, now_ns);
	return LL_MMU_OK;
}

void ll_mmu_port_restart(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	if (!port_ok(pool, port) || !pool->ports[port].mode)
		return;
	mode_restart(pool, &pool->ports[port], now_ns);
}

ll_u8 ll_mmu_port_detach(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns)
{
	struct ll_mmu_port *p;
	ll_u8 told;
	ll_u16 gen;
	ll_u32 prio;

	(void)now_ns;
	if (!port_ok(pool, port))
		return 0;
	p = &pool->ports[port];
	for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
		const struct ll_mmu_iq *iq = &p->iq[prio];

		pool->ctr.orphaned_bytes += iq->reserved_used + iq->shared_used +
					    iq->headroom_used;
		pool->ctr.release_anomalies +=
			sub_clamp(&pool->reserved_used, iq->reserved_used) +
			sub_clamp(&pool->shared_used, iq->shared_used) +
			sub_clamp(&pool->headroom_used, iq->headroom_used);
	}
	pool->paused_count -= popcount8(p->xoff.want);
	partition_set(pool,
		      pool->reserved_size -
		      (ll_u64)LL_MMU_PRIOS * pool->cfg.reserved_bytes,
		      pool->headroom_size -
		      port_carve(&pool->cfg, p->mode, p->headroom_bytes));
	pool->attached_mask &= ~(1ULL << port);

	told = p->xoff.told;
	gen = p->gen;
	zero_bytes(p, sizeof(*p));
	p->gen = (ll_u16)(gen + 1);
	return told;
}

/* ------------------------------------------------------ admit and release */

/*
 * The premise's measure of (port, prio): its own headroom against its size,
 * or, under a scheme whose headroom is the port's (DSH's insurance), the
 * port's against its carve. The warning latches per priority, or per port
 * under such a scheme, until that measure is empty again.
 */
static int headroom_per_port(const struct ll_mmu_pool *pool)
{
	return ll_scheme_carves_per_port(&pool->cfg);
}

static int headroom_latched(const struct ll_mmu_port *p, ll_u32 prio,
			    int per_port)
{
	return per_port ? p->headroom_near != 0 :
			  (p->headroom_near >> prio) & 1;
}

/* Raise the warning of (port, prio) unless latched. */
static void headroom_warn(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
			  int per_port)
{
	struct ll_mmu_port *p = &pool->ports[port];
	ll_u8 bit = (ll_u8)(1u << prio);

	if (headroom_latched(p, prio, per_port))
		return;
	p->headroom_near |= bit;
	p->headroom_new |= bit;
	p->headroom_warnings++;
	pool->warn_mask |= 1ULL << port;
}

/* After a headroom admission (full 1) or a lossless drop (full 0): raise
 * the warning if the measure is past LL_MMU_HEADROOM_NEAR_PCT, or, for a
 * drop, holds anything (a drop with the measure empty is not the
 * headroom's). Off the common path: only arrivals that land in headroom,
 * or are dropped, come here.
 */
static void headroom_watch(struct ll_mmu_pool *pool, ll_u32 port,
			   ll_u32 prio, int dropped)
{
	struct ll_mmu_port *p = &pool->ports[port];
	int per_port = headroom_per_port(pool);
	ll_u64 used, size;

	if (headroom_latched(p, prio, per_port))
		return;
	if (per_port) {
		used = p->headroom_used;
		size = ll_scheme_port_carve(&pool->cfg, p->headroom_bytes);
	} else {
		used = p->iq[prio].headroom_used;
		size = p->headroom_bytes;
	}
	if (dropped ? used > 0 :
		      used * 100 > size * LL_MMU_HEADROOM_NEAR_PCT)
		headroom_warn(pool, port, prio, per_port);
}

enum ll_mmu_verdict ll_mmu_admit(struct ll_mmu_pool *pool, ll_u32 in_port,
				 ll_u32 prio, ll_u32 eg_port, ll_u32 eg_queue,
				 ll_u32 bytes, ll_u64 now_ns,
				 struct ll_mmu_charge *charge)
{
	struct ll_mmu_port *pi, *po;
	struct ll_mmu_iq *iq;
	struct ll_mmu_eq *eq;
	enum ll_mmu_region region;
	ll_u32 hooks;
	int lossless, moded;

	zero_bytes(charge, sizeof(*charge));
	if (!port_ok(pool, in_port) || !port_ok(pool, eg_port) ||
	    prio >= LL_MMU_PRIOS || eg_queue >= LL_MMU_MAX_QUEUES || !bytes) {
		pool->ctr.drops_invalid++;
		return LL_MMU_DROP_INVALID;
	}
	lossless = is_lossless(pool, prio);
	pi = &pool->ports[in_port];
	po = &pool->ports[eg_port];
	iq = &pi->iq[prio];
	eq = &po->eq[eg_queue];
	/* A mode's lossless bytes: its buffer, never the scheme's. */
	moded = lossless && pi->mode;
	hooks = moded ? 0 : ll_scheme_hooks_for(pool, lossless);
	if (hooks & LL_SCHEME_HOOK_ARRIVAL)
		ll_scheme_arrival(pool, in_port, prio, now_ns);

	if (moded) {
		pi->mode_rx_bytes += bytes;
		if (pi->mode_asleep)
			mode_wake(pool, pi, now_ns);
		if (pi->headroom_used + bytes > pi->headroom_bytes) {
			iq->drops++;
			pool->ctr.drops_lossless++;
			return LL_MMU_DROP_LOSSLESS;
		}
		region = LL_MMU_REGION_HEADROOM;
	} else if (!lossless && pool->draining) {
		/* Draining: nothing new that no pause holds back. */
		iq->drops++;
		eq->drops++;
		pool->ctr.drops_lossy++;
		return LL_MMU_DROP_LOSSY;
	} else if (iq->reserved_used + bytes <= pool->cfg.reserved_bytes) {
		region = LL_MMU_REGION_RESERVED;
	} else if (lossless) {
		region = ll_scheme_admit_lossless(pool, in_port, prio, bytes,
						  now_ns);
		if (region == LL_MMU_REGION_NONE) {
			/* A packet the headroom did not hold: past 90 %
			 * by any measure (packets may be too big for the
			 * last tenth to hold one).
			 */
			headroom_watch(pool, in_port, prio, 1);
			iq->drops++;
			pool->ctr.drops_lossless++;
			return LL_MMU_DROP_LOSSLESS;
		}
	} else if (pool->shared_used + bytes <= pool->shared_size &&
		   eq->bytes + bytes <=
		   ll_scheme_egress_threshold(pool, eg_port, eg_queue)) {
		region = LL_MMU_REGION_SHARED;
	} else {
		iq->drops++;
		eq->drops++;
		pool->ctr.drops_lossy++;
		return LL_MMU_DROP_LOSSY;
	}

	switch (region) {
	case LL_MMU_REGION_RESERVED:
		iq->reserved_used += bytes;
		pool->reserved_used += bytes;
		break;
	case LL_MMU_REGION_SHARED:
		iq->shared_used += bytes;
		pi->shared_used += bytes;
		if (lossless)
			pi->lossless_shared_used += bytes;
		pool->shared_used += bytes;
		raise_peak(&pool->peak_shared, pool->shared_used);
		raise_peak(&pool->sweep_mark, pool->shared_used);
		break;
	default:
		iq->headroom_used += bytes;
		pi->headroom_used += bytes;
		pool->headroom_used += bytes;
		raise_peak(&iq->peak_headroom, iq->headroom_used);
		raise_peak(&pool->peak_headroom, pool->headroom_used);
		if (!moded)
			headroom_watch(pool, in_port, prio, 0);
		break;
	}
	raise_peak(&iq->peak_bytes,
		   iq->reserved_used + iq->shared_used + iq->headroom_used);
	eq->bytes += bytes;
	raise_peak(&eq->peak_bytes, eq->bytes);
	po->egress_bytes += bytes;
	pool->ctr.admitted_packets++;
	pool->ctr.admitted_bytes += bytes;

	charge->bytes = bytes;
	charge->in_gen = pi->gen;
	charge->eg_gen = po->gen;
	charge->in_port = (ll_u8)in_port;
	charge->prio = (ll_u8)prio;
	charge->eg_port = (ll_u8)eg_port;
	charge->eg_queue = (ll_u8)eg_queue;
	charge->region = (ll_u8)region;
	charge->lossless = (ll_u8)lossless;

	if (hooks & LL_SCHEME_HOOK_ADMITTED)
		ll_scheme_admitted(pool, charge, now_ns);
	if (pool->scheme_hooks & LL_SCHEME_HOOK_EGRESS)
		ll_scheme_egress(pool, eg_port, now_ns);
	if (lossless && !moded)
		ll_scheme_evaluate(pool, in_port, prio, now_ns);
	return (enum ll_mmu_verdict)region;
}

/*
 * Split bytes over the queue's regions per the release order. The
 * lossless mask does not change while bytes are held (reconfiguring it
 * needs an idle pool), so lossless says which port sum had the bytes.
 */
static void uncharge_ingress(struct ll_mmu_pool *pool, struct ll_mmu_port *p,
			     struct ll_mmu_iq *iq, ll_u64 bytes, ll_u8 region,
			     int lossless)
{
	ll_u64 h = 0, s = 0, r = 0;
	ll_u32 bad = 0;

	if (pool->cfg.release_order == LL_MMU_RELEASE_TAGGED) {
		if (region == LL_MMU_REGION_HEADROOM)
			h = bytes;
		else if (region == LL_MMU_REGION_SHARED)
			s = bytes;
		else
			r = bytes;
	} else {
		h = ll_min_u64(bytes, iq->headroom_used);
		s = ll_min_u64(bytes - h, iq->shared_used);
		r = bytes - h - s;
	}
	bad |= sub_clamp(&iq->headroom_used, h);
	bad |= sub_clamp(&iq->shared_used, s);
	bad |= sub_clamp(&iq->reserved_used, r);
	bad |= sub_clamp(&p->headroom_used, h);
	/* The warning's measure emptied: it re-arms. */
	if (h && p->headroom_near) {
		if (headroom_per_port(pool)) {
			if (!p->headroom_used)
				p->headroom_near = 0;
		} else if (!iq->headroom_used) {
			p->headroom_near &= (ll_u8)~(1u << (iq - p->iq));
		}
	}
	bad |= sub_clamp(&p->shared_used, s);
	if (lossless)
		bad |= sub_clamp(&p->lossless_shared_used, s);
	bad |= sub_clamp(&pool->headroom_used, h);
	bad |= sub_clamp(&pool->shared_used, s);
	bad |= sub_clamp(&pool->reserved_used, r);
	pool->ctr.release_anomalies += bad;
}

static int charge_side_ok(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u16 gen)
{
	return port_ok(pool, port) && pool->ports[port].gen == gen;
}

static ll_u32 uncharge(struct ll_mmu_pool *pool, struct ll_mmu_charge *charge,
		       ll_u64 now_ns, int departed)
{
	ll_u8 region = charge->region;
	ll_u64 bytes = charge->bytes;
	ll_u32 ev = 0;

	if (region == LL_MMU_REGION_NONE)
		return 0;
	charge->region = LL_MMU_REGION_NONE;
	if (region >= LL_MMU_REGIONS || charge->prio >= LL_MMU_PRIOS ||
	    charge->eg_queue >= LL_MMU_MAX_QUEUES) {
		pool->ctr.release_anomalies++;
		return 0;
	}

	if (charge_side_ok(pool, charge->in_port, charge->in_gen)) {
		struct ll_mmu_port *pi = &pool->ports[charge->in_port];
		int lossless = is_lossless(pool, charge->prio);
		/* A mode's bytes are not the scheme's (admit). */
		int moded = lossless && pi->mode;
		/* Only the scheme's hooks and evaluation move its deadline:
		 * none runs for a lossy packet unless it asks.
		 */
		int watched = !moded && (lossless || charge->lossless ||
					 ll_scheme_hooks_for(pool, 0));
		ll_u64 deadline = watched ? port_deadline(pool, charge->in_port) :
					    LL_MMU_NEVER;

		uncharge_ingress(pool, pi, &pi->iq[charge->prio], bytes, region,
				 lossless);
		if (departed && !moded &&
		    (ll_scheme_hooks_for(pool, charge->lossless) &
		     LL_SCHEME_HOOK_RELEASED))
			ll_scheme_released(pool, charge, now_ns);
		if (lossless && !moded)
			ll_scheme_evaluate(pool, charge->in_port, charge->prio,
					   now_ns);
		if (xoff_due(pi, now_ns))
			ev |= LL_MMU_EV_PFC_DUE;
		if (watched && port_deadline(pool, charge->in_port) < deadline)
			ev |= LL_MMU_EV_TIMER;
	} else {
		pool->ctr.stale_releases++;
	}

	if (charge_side_ok(pool, charge->eg_port, charge->eg_gen)) {
		struct ll_mmu_port *po = &pool->ports[charge->eg_port];
		ll_u32 bad;

		bad = sub_clamp(&po->eq[charge->eg_queue].bytes, bytes);
		bad |= sub_clamp(&po->egress_bytes, bytes);
		pool->ctr.release_anomalies += bad;
		/* Departed or purged alike: the queue holds less. */
		if (pool->scheme_hooks & LL_SCHEME_HOOK_EGRESS)
			ll_scheme_egress(pool, charge->eg_port, now_ns);
	} else {
		pool->ctr.stale_releases++;
	}

	if (pool->paused_count &&
	    pool->shared_used + pool->sweep_step <= pool->sweep_mark)
		ev |= LL_MMU_EV_SWEEP;
	return ev;
}

ll_u32 ll_mmu_release(struct ll_mmu_pool *pool, struct ll_mmu_charge *charge,
		      ll_u64 now_ns)
{
	return uncharge(pool, charge, now_ns, 1);
}

ll_u32 ll_mmu_purge(struct ll_mmu_pool *pool, struct ll_mmu_charge *charge,
		    ll_u64 now_ns)
{
	return uncharge(pool, charge, now_ns, 0);
}

ll_u64 ll_mmu_sweep(struct ll_mmu_pool *pool, ll_u64 now_ns)
{
	ll_u64 due;

	/* A scheme of egress state reads the counters again (PortFC). */
	ll_scheme_resync(pool, now_ns);
	due = evaluate_all(pool, now_ns) | ll_mmu_take_kicks(pool);

	pool->sweep_mark = pool->shared_used;
	pool->ctr.sweeps++;
	return due;
}

ll_u64 ll_mmu_set_draining(struct ll_mmu_pool *pool, int on, ll_u64 now_ns)
{
	pool->draining = !!on;
	return ll_mmu_sweep(pool, now_ns);
}

/* ------------------------------------------------------- PFC generation */

/*
 * The mode's slot, if due: its frame replaces one not yet taken. An idle
 * port's mode sleeps instead (mode_sleep()).
 */
static void mode_timer(struct ll_mmu_pool *pool, struct ll_mmu_port *p,
		       ll_u64 now_ns)
{
	const struct ll_mode_desc *d = ll_mode_lookup(p->mode);
	ll_u64 prio_bytes[LL_MMU_PRIOS];
	struct ll_ctrl_msg m;
	ll_u32 i;

	if (!d || now_ns < p->mode_next_ns)
		return;
	if (now_ns < d->next_ns(&p->mode_st)) {
		/* Woken: the first slot is the mode's. */
		p->mode_next_ns = d->next_ns(&p->mode_st);
		return;
	}
	if (!p->mode_pending && !p->xoff.taken &&
	    d->idle(&p->mode_st, p->headroom_used, p->mode_rx_bytes)) {
		mode_sleep(p, LL_MODE_START_WAKE);
		return;
	}
	zero_bytes(&m, sizeof(m));
	for (i = 0; i < LL_MMU_PRIOS; i++)
		prio_bytes[i] = p->iq[i].headroom_used;
	if (d->slot(&p->mode_st, &p->mode_params, now_ns, p->headroom_used,
		    prio_bytes, p->mode_rx_bytes, pool->cfg.lossless_mask,
		    &m)) {
		p->mode_frame = m;
		p->mode_pending = 1;
	}
	p->mode_next_ns = d->next_ns(&p->mode_st);
}

int ll_mmu_port_timer(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	struct ll_mmu_port *p;

	if (!port_ok(pool, port))
		return 0;
	p = &pool->ports[port];
	if (p->mode)
		mode_timer(pool, p, now_ns);
	else if (now_ns >= port_deadline(pool, port))
		ll_scheme_port_tick(pool, port, now_ns);
	return ll_mmu_ctrl_due(pool, port, now_ns);
}

int ll_mmu_ctrl_due(const struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	const struct ll_mmu_port *p;

	if (!port_ok(pool, port))
		return 0;
	p = &pool->ports[port];
	/* A mode's slot overdue: an arrival kicks a port whose timer is not
	 * running (no slot since it came up idle).
	 */
	if (p->mode && !p->xoff.taken && now_ns >= p->mode_next_ns)
		return 1;
	if (own_frames(pool, p))
		return !p->xoff.taken &&
		       ll_scheme_frames_due(pool, port, now_ns);
	return xoff_due(p, now_ns);
}

int ll_mmu_admit_due(const struct ll_mmu_pool *pool, ll_u32 in_port,
		     ll_u64 now_ns)
{
	if (port_ok(pool, in_port) &&
	    own_frames(pool, &pool->ports[in_port]))
		return 0;
	return ll_mmu_ctrl_due(pool, in_port, now_ns);
}

/* A baseline port (PFC or PAUSE frames) wanting a pause it has not told. */
static int xoff_untold(const struct ll_mmu_pool *pool,
		       const struct ll_mmu_port *p)
{
	return !p->mode && !own_frames(pool, p) &&
	       (p->xoff.want & ~p->xoff.told);
}

void ll_mmu_xoff_decided(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	struct ll_mmu_port *p;

	if (!port_ok(pool, port))
		return;
	p = &pool->ports[port];
	if (!p->xoff.decided_ns && xoff_untold(pool, p))
		p->xoff.decided_ns = now_ns ? now_ns : 1;
}

int ll_mmu_ctrl_take(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns,
		    struct ll_ctrl_msg *frame)
{
	struct ll_mmu_xoff *xo;
	ll_u8 vector;
	ll_u32 i;

	if (!port_ok(pool, port))
		return 0;
	xo = &pool->ports[port].xoff;
	if (own_frames(pool, &pool->ports[port])) {
		if (xo->taken || !ll_scheme_frames_due(pool, port, now_ns) ||
		    !ll_scheme_frames_take(pool, port, now_ns, frame))
			return 0;
		xo->taken = 1;
		xo->taken_vector = 0;
		xo->taken_xoff = 0;
		xo->taken_ns = now_ns;
		return 1;
	}
	if (!xoff_due(&pool->ports[port], now_ns))
		return 0;
	if (pool->ports[port].mode) {
		/* The mode's frame, as its slot decided it. A failed send
		 * makes it pending again (ll_mmu_ctrl_complete()).
		 */
		*frame = pool->ports[port].mode_frame;
		pool->ports[port].mode_pending = 0;
		xo->taken = 1;
		xo->taken_vector = 0;
		xo->taken_xoff = 0;
		xo->taken_ns = now_ns;
		return 1;
	}
	/* A decision the caller did not time (a scheme's, a sweep's) is
	 * timed from here: the response then omits the wait for this run.
	 */
	if (!xo->decided_ns && (xo->want & ~xo->told))
		xo->decided_ns = now_ns ? now_ns : 1;
	/* Every change, and every pause still wanted (refreshed together). */
	vector = (ll_u8)((xo->want ^ xo->told) | xo->want);
	zero_bytes(frame, sizeof(*frame));
	frame->kind = LL_CTRL_PFC;
	frame->gate_mask = vector;
	for (i = 0; i < LL_PFC_PRIOS; i++)
		if (xo->want & (1u << i))
			frame->value[i] = xo->quanta;
	/* The baseline's frame; a scheme may send something else. */
	ll_scheme_port_frame(pool, port, now_ns, frame);
	xo->taken = 1;
	xo->taken_vector = vector;
	xo->taken_xoff = xo->want;
	xo->taken_ns = now_ns;
	return 1;
}

int ll_mmu_ctrl_complete(struct ll_mmu_pool *pool, ll_u32 port, int sent,
			ll_u64 now_ns)
{
	struct ll_mmu_port *p;
	struct ll_mmu_xoff *xo;
	ll_u64 at;
	ll_u32 i;

	if (!port_ok(pool, port))
		return 0;
	p = &pool->ports[port];
	xo = &p->xoff;
	if (!xo->taken)
		return ll_mmu_ctrl_due(pool, port, now_ns);
	xo->taken = 0;
	if (own_frames(pool, p)) {
		if (sent)
			xo->frames++;
		else
			xo->send_failures++;
		ll_scheme_frames_complete(pool, port, sent, xo->taken_ns);
		return ll_mmu_ctrl_due(pool, port, now_ns);
	}
	if (!sent) {
		xo->send_failures++;
		if (p->mode)
			p->mode_pending = 1;
		return xoff_due(p, now_ns);
	}
	at = xo->taken_ns;
	xo->frames++;
	if (xo->decided_ns &&
	    (xo->taken_xoff & xo->taken_vector & ~xo->told)) {
		ll_u64 r = now_ns > xo->decided_ns ? now_ns - xo->decided_ns : 0;

		xo->response_last_ns = r;
		raise_peak(&xo->response_max_ns, r);
		xo->responses++;
	}
	for (i = 0; i < LL_PFC_PRIOS; i++) {
		struct ll_mmu_iq *iq = &p->iq[i];
		ll_u8 bit = (ll_u8)(1u << i);

		if (!(xo->taken_vector & bit))
			continue;
		if (xo->taken_xoff & bit) {
			if (xo->told & bit) {
				iq->xoff_refreshes++;
			} else {
				iq->xoff_frames++;
				iq->paused_since_ns = at;
			}
		} else if (xo->told & bit) {
			iq->xon_frames++;
			if (at > iq->paused_since_ns)
				iq->paused_ns_total += at - iq->paused_since_ns;
		}
	}
	xo->told = (ll_u8)((xo->told & ~xo->taken_vector) |
			    (xo->taken_xoff & xo->taken_vector));
	/* Measured, or nothing to measure: a pause decided while this frame
	 * was out (its caller could not time it) counts from its own take.
	 */
	xo->decided_ns = 0;
	if (xo->taken_xoff) {
		/* Halfway through the pause this frame announced, whatever
		 * later changes of quanta or rate do to refresh_ns.
		 */
		xo->xoff_sent_ns = at;
		xo->refresh_at_ns = at + xo->refresh_ns;
	}
	return xoff_due(p, now_ns);
}

ll_u64 ll_mmu_ctrl_next_deadline(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_mmu_xoff *xo;
	ll_u64 next;

	if (!port_ok(pool, port))
		return LL_MMU_NEVER;
	xo = &pool->ports[port].xoff;
	if (pool->ports[port].mode) {
		if (!xo->taken && pool->ports[port].mode_pending)
			return 0;
		return pool->ports[port].mode_next_ns;
	}
	next = port_deadline(pool, port);
	if (xo->taken)
		return next;
	if (own_frames(pool, &pool->ports[port]))
		return ll_min_u64(next, ll_scheme_frames_next_ns(pool, port));
	if (xo->want != xo->told)
		return 0;
	if (xo->told)
		return ll_min_u64(next, xo->refresh_at_ns);
	return next;
}

ll_u64 ll_mmu_next_deadline(const struct ll_mmu_pool *pool)
{
	ll_u64 next = LL_MMU_NEVER;
	ll_u32 port;

	for (port = 0; port < pool->cfg.max_ports; port++)
		next = ll_min_u64(next, ll_mmu_ctrl_next_deadline(pool, port));
	return next;
}

/* ------------------------------------------------------------------ ECN */

int ll_ecn_red_mark(const struct ll_ecn_red *red, ll_u64 queue_bytes,
		    ll_u32 rnd)
{
	ll_u64 over, span, frac;

	if (!red->enabled || queue_bytes <= red->kmin_bytes)
		return 0;
	if (queue_bytes > red->kmax_bytes)
		return 1;
	/* kmin < queue_bytes <= kmax, so 0 < over <= span. */
	over = queue_bytes - red->kmin_bytes;
	span = red->kmax_bytes - red->kmin_bytes;
	while (span >> 47) {
		span >>= 1;
		over >>= 1;
	}
	frac = ll_div_u64(over << 16, span);		/* (0, 65536] */
	return (ll_u64)rnd < frac * red->pmax;		/* <= 2^32 */
}

int ll_mmu_ecn_mark(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 queue,
		    ll_u32 rnd)
{
	struct ll_mmu_eq *eq;

	if (!port_ok(pool, port) || queue >= LL_MMU_MAX_QUEUES)
		return 0;
	eq = &pool->ports[port].eq[queue];
	if (pool->scheme_hooks & LL_SCHEME_HOOK_ECN ?
	    !ll_scheme_ecn_mark(pool, port, queue, rnd) :
	    !ll_ecn_red_mark(&pool->cfg.ecn, eq->bytes, rnd))
		return 0;
	eq->ecn_marks++;
	return 1;
}

/* ---------------------------------------------------------------- stats */

void ll_mmu_get_pool_stats(const struct ll_mmu_pool *pool,
			   struct ll_mmu_pool_stats *out)
{
	out->total_bytes = pool->cfg.total_bytes;
	out->reserved_size = pool->reserved_size;
	out->headroom_size = pool->headroom_size;
	out->shared_size = pool->shared_size;
	out->reserved_used = pool->reserved_used;
	out->shared_used = pool->shared_used;
	out->headroom_used = pool->headroom_used;
	out->peak_shared = pool->peak_shared;
	out->peak_headroom = pool->peak_headroom;
	out->paused_queues = pool->paused_count;
	out->ctr = pool->ctr;
}

int ll_mmu_get_iq_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			ll_u32 prio, ll_u64 now_ns,
			struct ll_mmu_iq_stats *out)
{
	const struct ll_mmu_port *p;
	const struct ll_mmu_iq *iq;
	ll_u8 bit;

	if (!port_ok(pool, port) || prio >= LL_MMU_PRIOS)
		return -1;
	p = &pool->ports[port];
	iq = &p->iq[prio];
	bit = (ll_u8)(1u << prio);
	out->reserved_used = iq->reserved_used;
	out->shared_used = iq->shared_used;
	out->headroom_used = iq->headroom_used;
	out->bytes = iq->reserved_used + iq->shared_used + iq->headroom_used;
	out->lossless = (ll_u8)is_lossless(pool, prio);
	out->headroom_size = out->lossless ? p->headroom_bytes : 0;
	out->peak_bytes = iq->peak_bytes;
	out->peak_headroom = iq->peak_headroom;
	out->threshold = ll_scheme_ingress_threshold(pool, port, prio);
	out->drops = iq->drops;
	out->xoff_frames = iq->xoff_frames;
	out->xoff_refreshes = iq->xoff_refreshes;
	out->xon_frames = iq->xon_frames;
	out->paused = !!(p->xoff.want & bit);
	out->told_xoff = !!(p->xoff.told & bit);
	out->paused_ns = iq->paused_ns_total;
	if (out->told_xoff && now_ns > iq->paused_since_ns)
		out->paused_ns += now_ns - iq->paused_since_ns;
	return 0;
}

int ll_mmu_get_mode_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			  struct ll_mode_port_stats *out)
{
	const struct ll_mmu_port *p;
	const struct ll_mode_desc *d;

	zero_bytes(out, sizeof(*out));
	if (!port_ok(pool, port))
		return -1;
	p = &pool->ports[port];
	d = ll_mode_lookup(p->mode);
	if (!d)
		return 0;
	out->mode = p->mode;
	d->port_stats(&p->mode_st, p->headroom_used, out);
	return 0;
}

ll_u64 ll_mmu_eq_bytes(const struct ll_mmu_pool *pool, ll_u32 port,
		       ll_u32 queue)
{
	if (!port_ok(pool, port) || queue >= LL_MMU_MAX_QUEUES)
		return 0;
	return pool->ports[port].eq[queue].bytes;
}

ll_u8 ll_mmu_take_port_warnings(struct ll_mmu_pool *pool, ll_u32 port)
{
	ll_u8 m;

	if (port >= pool->cfg.max_ports)
		return 0;
	m = pool->ports[port].headroom_new;
	pool->ports[port].headroom_new = 0;
	return m;
}

int ll_mmu_get_premise_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			     struct ll_mmu_premise_stats *out)
{
	const struct ll_mmu_port *p;

	zero_bytes(out, sizeof(*out));
	if (!port_ok(pool, port))
		return -1;
	p = &pool->ports[port];
	out->response_last_ns = p->xoff.response_last_ns;
	out->response_max_ns = p->xoff.response_max_ns;
	out->responses = p->xoff.responses;
	out->headroom_warnings = p->headroom_warnings;
	out->headroom_near = p->headroom_near;
	return 0;
}

void ll_mmu_reset_peaks(struct ll_mmu_pool *pool)
{
	ll_u32 port, i;

	pool->peak_shared = pool->shared_used;
	pool->peak_headroom = pool->headroom_used;
	for (port = 0; port < pool->cfg.max_ports; port++) {
		struct ll_mmu_port *p = &pool->ports[port];

		for (i = 0; i < LL_MMU_PRIOS; i++) {
			struct ll_mmu_iq *iq = &p->iq[i];

			iq->peak_headroom = iq->headroom_used;
			iq->peak_bytes = iq->reserved_used + iq->shared_used +
					 iq->headroom_used;
		}
		for (i = 0; i < LL_MMU_MAX_QUEUES; i++)
			p->eq[i].peak_bytes = p->eq[i].bytes;
		p->xoff.response_max_ns = p->xoff.response_last_ns;
		if (p->attached)
			ll_scheme_reset_peaks(pool, port);
	}
}

/* ---------------------------------------------------------------- names */

const char *ll_mmu_err_name(enum ll_mmu_err e)
{
	switch (e) {
	case LL_MMU_OK: return "ok";
	case LL_MMU_ERR_TOTAL: return "bad-total-size";
	case LL_MMU_ERR_PORTS: return "bad-max-ports";
	case LL_MMU_ERR_MTU: return "bad-mtu";
	case LL_MMU_ERR_RESERVED: return "reserve-too-large";
	case LL_MMU_ERR_ALPHA: return "bad-alpha";
	case LL_MMU_ERR_XON: return "bad-xon";
	case LL_MMU_ERR_ECN: return "bad-ecn";
	case LL_MMU_ERR_RELEASE_ORDER: return "bad-release-order";
	case LL_MMU_ERR_PORT: return "port-out-of-range";
	case LL_MMU_ERR_ATTACHED: return "port-attached";
	case LL_MMU_ERR_NOT_ATTACHED: return "port-not-attached";
	case LL_MMU_ERR_RATE: return "bad-rate";
	case LL_MMU_ERR_DELAY: return "bad-delay";
	case LL_MMU_ERR_HEADROOM: return "headroom-below-2-mtu";
	case LL_MMU_ERR_NO_SPACE: return "no-shared-pool-left";
	case LL_MMU_ERR_BUSY: return "bytes-in-use";
	case LL_MMU_ERR_SCHEME: return "unknown-scheme";
	case LL_MMU_ERR_SCHEME_PARAMS: return "bad-scheme-parameters";
	case LL_MMU_ERR_MODE: return "bad-port-mode";
	case LL_MMU_ERR_SCHEME_PORT: return "bad-scheme-port";
	default: return "invalid-error";
	}
}

const char *ll_mmu_verdict_name(enum ll_mmu_verdict v)
{
	switch (v) {
	case LL_MMU_ADMIT_RESERVED: return "reserved";
	case LL_MMU_ADMIT_SHARED: return "shared";
	case LL_MMU_ADMIT_HEADROOM: return "headroom";
	case LL_MMU_DROP_LOSSY: return "drop-lossy";
	case LL_MMU_DROP_LOSSLESS: return "drop-lossless";
	case LL_MMU_DROP_INVALID: return "drop-invalid";
	default: return "invalid-verdict";
	}
}
