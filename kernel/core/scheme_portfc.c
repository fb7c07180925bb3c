// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * PortFC as a BCube switch's pool scheme (portfc.md section 4; docs/
 * PORTFC.md). The switch watches its egress ports, not its ingress: each
 * port's A-slots (queues 1 .. n-1, their sum) and B queue (queue n) as the
 * MMU counts them, with two flags (portfc.h's detector). A flag that
 * changes makes a frame due on every other port: PORTFC_A or PORTFC_B,
 * the state of all the switch's egress ports compacted by the receiving
 * port (ll_portfc_tell()), so the server there closes or opens the gates
 * of the queues that feed the congested one. A frame in force is sent
 * again halfway through its pause time, like PFC's: a lost Resume costs
 * one pause time, never a queue stopped for good (spec 7, A12).
 *
 * No ingress PFC: the lossless bytes of a PortFC switch go to the shared
 * region up to its end, then to the headroom, then drop (counted, a
 * sizing bug: portfc.md 4.10 sizes the pool). Every priority is lossless:
 * the classifier makes a packet's queue its priority. A port's number in
 * the BCube is its scheme_port (tc's scheme-port), or its pool index; a
 * port numbered n or above takes no part.
 */
#include "scheme.h"
#include "lossless.h"	/* the uapi: its netlink nest, the plane */

static ll_u32 portfc_n(const struct ll_mmu_pool *pool)
{
	return (ll_u32)pool->cfg.scheme_params.portfc.n;
}

static ll_u64 def_bytes(const struct ll_mmu_config *cfg, ll_u64 given,
			ll_u64 mtus)
{
	return given ? given : mtus * cfg->mtu_bytes;
}

static void thresholds(const struct ll_mmu_config *cfg,
		       struct ll_portfc_thresholds *t)
{
	const struct ll_portfc_params *pp = &cfg->scheme_params.portfc;

	t->xoff_a_bytes = def_bytes(cfg, pp->xoff_a_bytes,
				    LL_PORTFC_XOFF_MTU_DEFAULT);
	t->xon_a_bytes = def_bytes(cfg, pp->xon_a_bytes,
				   LL_PORTFC_XON_MTU_DEFAULT);
	t->xoff_b_bytes = def_bytes(cfg, pp->xoff_b_bytes,
				    LL_PORTFC_XOFF_MTU_DEFAULT);
	t->xon_b_bytes = def_bytes(cfg, pp->xon_b_bytes,
				   LL_PORTFC_XON_MTU_DEFAULT);
}

static const char *portfc_check(const struct ll_mmu_config *cfg)
{
	const struct ll_portfc_params *pp = &cfg->scheme_params.portfc;
	struct ll_portfc_thresholds t;

	if (pp->n < LL_PORTFC_MIN_N || pp->n > LL_PORTFC_MAX_N)
		return "portfc: portfc-n (the BCube radix) must be 2 to 8";
	/* The classifier makes a packet's queue its priority: all count. */
	if (cfg->lossless_mask != 0xFF)
		return "portfc: every priority must be lossless (lossless-prios 0,1,2,3,4,5,6,7)";
	thresholds(cfg, &t);
	if (t.xoff_a_bytes > cfg->total_bytes ||
	    t.xoff_b_bytes > cfg->total_bytes)
		return "portfc: a threshold above the buffer";
	return ll_portfc_thresholds_check(&t, cfg->mtu_bytes);
}

/*
 * A switch's ports are its BCube ports 0 .. n - 1, one each: the
 * detector tells port t's server about congested port p by slot(p, t),
 * which two ports of one number, or a number >= n, would break.
 */
static const char *portfc_ports_check(const struct ll_mmu_pool *pool,
				      const struct ll_mmu_config *cfg,
				      ll_u32 port, ll_u32 scheme_port)
{
	ll_u32 n = (ll_u32)cfg->scheme_params.portfc.n, i, num;
	ll_u64 seen = 0;

	for (i = 0; i < pool->cfg.max_ports && i < LL_MMU_MAX_PORTS; i++) {
		const struct ll_mmu_port *p = &pool->ports[i];

		if (i == port)
			num = scheme_port ? scheme_port - 1u : i;
		else if (p->attached)
			num = p->scheme_port ? p->scheme_port - 1u : i;
		else
			continue;
		if (num >= n)
			return "portfc: a port's scheme-port (or, without one, its index in the pool) must be below portfc-n: a BCube switch has ports 0 .. n-1";
		if (seen & (1ULL << num))
			return "portfc: two ports of the pool have the same scheme-port: each BCube port number once";
		seen |= 1ULL << num;
	}
	return (const char *)0;
}

ll_u32 ll_portfc_port_number(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_mmu_port *p = &pool->ports[port];

	return p->scheme_port ? p->scheme_port - 1u : port;
}

/* Port's detector against its egress queues now; returns its events. */
static ll_u32 detect_port(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_mmu_port *p = &pool->ports[port];
	ll_u32 n = portfc_n(pool), q;
	ll_u64 sum_a = 0;

	/* Before the pool's first sweep (a pool the module has not swept
	 * yet, the unit tests' pools): the thresholds now.
	 */
	if (!pool->sch.portfc.t.xoff_a_bytes)
		thresholds(&pool->cfg, &pool->sch.portfc.t);
	for (q = 1; q < n; q++)
		sum_a += p->eq[q].bytes;
	return ll_portfc_detect(&p->sch.portfc.e, &pool->sch.portfc.t, sum_a,
				p->eq[n].bytes);
}

/* Port's flags into the pool's masks, by its BCube number. */
static void set_up(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_portfc_pool_state *ps = &pool->sch.portfc;
	const struct ll_portfc_eport *e = &pool->ports[port].sch.portfc.e;
	ll_u32 bp = ll_portfc_port_number(pool, port);
	ll_u8 bit;

	if (bp >= portfc_n(pool))
		return;
	bit = (ll_u8)(1u << bp);
	ps->up_a = (ll_u8)(e->up_a ? ps->up_a | bit : ps->up_a & ~bit);
	ps->up_b = (ll_u8)(e->up_b ? ps->up_b | bit : ps->up_b & ~bit);
}

/* The ring's record of a port's onsets and reliefs (ev: its events). */
static void log_events(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 ev,
		       ll_u64 now_ns)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	ll_u64 a = p->sch.portfc.e.sum_a_bytes, b = p->sch.portfc.e.b_bytes;

	if (ev & LL_PORTFC_EV_PAUSE_A)
		ll_scheme_log_event(pool, port, 0xff, LL_PORTFC_EVT_PAUSE_A, a,
				    now_ns);
	if (ev & LL_PORTFC_EV_RESUME_A)
		ll_scheme_log_event(pool, port, 0xff, LL_PORTFC_EVT_RESUME_A, a,
				    now_ns);
	if (ev & LL_PORTFC_EV_PAUSE_B)
		ll_scheme_log_event(pool, port, 0xff, LL_PORTFC_EVT_PAUSE_B, b,
				    now_ns);
	if (ev & LL_PORTFC_EV_RESUME_B)
		ll_scheme_log_event(pool, port, 0xff, LL_PORTFC_EVT_RESUME_B, b,
				    now_ns);
}

void ll_portfc_egress(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	ll_u32 ev;

	/* Admissions come without a clock: events take the latest one. */
	now_ns = ll_scheme_clock(&pool->sch.portfc.now_ns, now_ns);
	if (ll_portfc_port_number(pool, port) >= portfc_n(pool))
		return;
	ev = detect_port(pool, port);
	if (!ev)
		return;
	set_up(pool, port);
	/* Every other attached port has a frame due. */
	pool->kick_mask |= pool->attached_mask & ~(1ULL << port);
	log_events(pool, port, ev, now_ns);
}

/*
 * After a change of thresholds, ports or their numbers: every attached
 * port's flags from its queues, the masks from the flags, and a frame
 * due wherever what a port told may be stale.
 */
static void portfc_resync(struct ll_mmu_pool *pool, ll_u64 now_ns)
{
	ll_u32 port;

	now_ns = ll_scheme_clock(&pool->sch.portfc.now_ns, now_ns);
	thresholds(&pool->cfg, &pool->sch.portfc.t);
	pool->sch.portfc.up_a = 0;
	pool->sch.portfc.up_b = 0;
	for (port = 0; port < pool->cfg.max_ports; port++) {
		if (!pool->ports[port].attached ||
		    ll_portfc_port_number(pool, port) >= portfc_n(pool))
			continue;
		log_events(pool, port, detect_port(pool, port), now_ns);
		set_up(pool, port);
	}
	pool->kick_mask |= pool->attached_mask;
}

/* What port should tell of a class now (O(n): the pool's masks). */
static ll_u8 want(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 cls)
{
	const struct ll_portfc_pool_state *ps = &pool->sch.portfc;
	ll_u32 n = portfc_n(pool), t = ll_portfc_port_number(pool, port);

	return t < n ? ll_portfc_tell(cls ? ps->up_b : ps->up_a, n, t) : 0;
}

/* A frame of class cls is due: a change, or a pause to refresh. */
static int due_cls(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 cls,
		   ll_u64 now_ns)
{
	const struct ll_portfc_port_state *st = &pool->ports[port].sch.portfc;
	ll_u8 told = cls ? st->told_b : st->told_a;

	if (want(pool, port, cls) != told)
		return 1;
	return told && now_ns >= (cls ? st->refresh_b_ns : st->refresh_a_ns);
}

static int portfc_frames_due(const struct ll_mmu_pool *pool, ll_u32 port,
			     ll_u64 now_ns)
{
	return due_cls(pool, port, 0, now_ns) || due_cls(pool, port, 1, now_ns);
}

static int portfc_frames_take(struct ll_mmu_pool *pool, ll_u32 port,
			      ll_u64 now_ns, struct ll_ctrl_msg *msg)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_portfc_port_state *st = &p->sch.portfc;
	ll_u32 cls = due_cls(pool, port, 0, now_ns) ? 0 : 1, i;
	ll_u8 w = want(pool, port, cls), told = cls ? st->told_b : st->told_a;
	ll_u8 vector = (ll_u8)((w ^ told) | w);

	for (i = 0; i < sizeof(*msg); i++)
		((ll_u8 *)msg)[i] = 0;
	msg->kind = cls ? LL_CTRL_PORTFC_B : LL_CTRL_PORTFC_A;
	msg->gate_mask = vector;
	for (i = 0; i < LL_PORTFC_MAX_SLOTS; i++)
		if (w & (1u << i))
			msg->value[i] = p->xoff.quanta;
	st->taken_cls = (ll_u8)(1 + cls);
	st->taken_vector = vector;
	st->taken_xoff = w;
	return 1;
}

static void portfc_frames_complete(struct ll_mmu_pool *pool, ll_u32 port,
				   int sent, ll_u64 at_ns)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_portfc_port_state *st = &p->sch.portfc;
	ll_u8 *told = st->taken_cls == 2 ? &st->told_b : &st->told_a;
	ll_u64 *refresh = st->taken_cls == 2 ? &st->refresh_b_ns :
					       &st->refresh_a_ns;

	if (!st->taken_cls)
		return;
	if (sent) {
		*told = (ll_u8)((*told & ~st->taken_vector) |
				(st->taken_xoff & st->taken_vector));
		if (st->taken_xoff)
			*refresh = at_ns + p->xoff.refresh_ns;
		if (st->taken_cls == 2)
			st->frames_b++;
		else
			st->frames_a++;
	}
	st->taken_cls = 0;
}

static ll_u64 portfc_frames_next_ns(const struct ll_mmu_pool *pool,
				    ll_u32 port)
{
	const struct ll_portfc_port_state *st = &pool->ports[port].sch.portfc;
	ll_u64 next = LL_MMU_NEVER;

	if (want(pool, port, 0) != st->told_a ||
	    want(pool, port, 1) != st->told_b)
		return 0;
	if (st->told_a)
		next = st->refresh_a_ns;
	if (st->told_b)
		next = ll_min_u64(next, st->refresh_b_ns);
	return next;
}

/* ------------------------------------------------------------ telemetry */

enum portfc_stat {
	PORTFC_ST_PAUSES_A,
	PORTFC_ST_PAUSES_B,
	PORTFC_ST_RESUMES_A,
	PORTFC_ST_RESUMES_B,
	PORTFC_ST_FRAMES_A,
	PORTFC_ST_FRAMES_B,
	PORTFC_ST_PORT,
	PORTFC_STATS
};

enum portfc_mask {
	PORTFC_MASK_UP,		/* bit 0: A, bit 1: B */
	PORTFC_MASK_TOLD_A,	/* slots its server was told paused */
	PORTFC_MASK_TOLD_B,
	PORTFC_MASKS
};

static const struct ll_scheme_stat_desc portfc_stats[PORTFC_STATS] = {
	[PORTFC_ST_PAUSES_A] = { "pauses_a", LL_STAT_COUNT,
		"onsets of this egress port's A-slots (their sum reached xoff-a)" },
	[PORTFC_ST_PAUSES_B] = { "pauses_b", LL_STAT_COUNT,
		"onsets of this egress port's B queue (reached xoff-b)" },
	[PORTFC_ST_RESUMES_A] = { "resumes_a", LL_STAT_COUNT,
		"reliefs of its A-slots (their sum down to xon-a)" },
	[PORTFC_ST_RESUMES_B] = { "resumes_b", LL_STAT_COUNT,
		"reliefs of its B queue (down to xon-b)" },
	[PORTFC_ST_FRAMES_A] = { "frames_a", LL_STAT_COUNT,
		"PORTFC_A frames sent to this port's server" },
	[PORTFC_ST_FRAMES_B] = { "frames_b", LL_STAT_COUNT,
		"PORTFC_B frames sent to this port's server" },
	[PORTFC_ST_PORT] = { "bcube_port", LL_STAT_GAUGE,
		"this port's number on its BCube switch" },
};

static const char *const portfc_masks[PORTFC_MASKS] = {
	[PORTFC_MASK_UP] = "up",
	[PORTFC_MASK_TOLD_A] = "told_a",
	[PORTFC_MASK_TOLD_B] = "told_b",
};

static const struct ll_scheme_event_desc portfc_events[LL_PORTFC_EVTS] = {
	[LL_PORTFC_EVT_PAUSE_A] = { "pause_a",
		"an egress port's A-slots reached xoff-a: the other ports' servers pause them" },
	[LL_PORTFC_EVT_RESUME_A] = { "resume_a",
		"an egress port's A-slots fell to xon-a" },
	[LL_PORTFC_EVT_PAUSE_B] = { "pause_b",
		"an egress port's B queue reached xoff-b: servers pause, and relay to the switch two hops up" },
	[LL_PORTFC_EVT_RESUME_B] = { "resume_b",
		"an egress port's B queue fell to xon-b" },
};

static void portfc_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			      ll_u64 now_ns, struct ll_scheme_port_stats *out)
{
	const struct ll_portfc_port_state *st = &pool->ports[port].sch.portfc;

	(void)now_ns;
	out->ctr[PORTFC_ST_PAUSES_A] = st->e.pauses_a;
	out->ctr[PORTFC_ST_PAUSES_B] = st->e.pauses_b;
	out->ctr[PORTFC_ST_RESUMES_A] = st->e.resumes_a;
	out->ctr[PORTFC_ST_RESUMES_B] = st->e.resumes_b;
	out->ctr[PORTFC_ST_FRAMES_A] = st->frames_a;
	out->ctr[PORTFC_ST_FRAMES_B] = st->frames_b;
	out->ctr[PORTFC_ST_PORT] = ll_portfc_port_number(pool, port);
	out->masks = (ll_u32)(st->e.up_a | st->e.up_b << 1) |
		     (ll_u32)st->told_a << (8 * PORTFC_MASK_TOLD_A) |
		     (ll_u32)st->told_b << (8 * PORTFC_MASK_TOLD_B);
}

/* struct ll_portfc_params, word by word (param.h). */
static const struct ll_param portfc_params[] = {
	{
		.tc = "portfc-n", .arg = "N", .key = "n", .ctl = "portfc.n",
		.help = "the BCube radix n: a switch port has n + 1 queues (HQ, n - 1 A-slots, B)",
		.unit = LL_PARAM_COUNT, .flags = LL_PARAM_POLICY,
		.scheme = LL_SCHEME_PORTFC, .min = 0, .max = LL_PORTFC_MAX_N,
		.def = 0, .nl_attr = TCA_LOSSLESS_PORTFC_N,
		.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 0,
	},
	{
		.tc = "portfc-xoff-a", .arg = "SIZE", .key = "xoff-a",
		.ctl = "portfc.xoff-a",
		.help = "an egress port's A-slots together pause their feeders at this; 0: 24 MTU",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_PORTFC, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_PORTFC_XOFF_A_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 1,
	},
	{
		.tc = "portfc-xon-a", .arg = "SIZE", .key = "xon-a",
		.ctl = "portfc.xon-a",
		.help = "... and resume them at this; 0: 16 MTU",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_PORTFC, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_PORTFC_XON_A_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 2,
	},
	{
		.tc = "portfc-xoff-b", .arg = "SIZE", .key = "xoff-b",
		.ctl = "portfc.xoff-b",
		.help = "an egress port's B queue pauses its feeders (and, relayed, the switch two hops up) at this; 0: 24 MTU",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_PORTFC, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_PORTFC_XOFF_B_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 3,
	},
	{
		.tc = "portfc-xon-b", .arg = "SIZE", .key = "xon-b",
		.ctl = "portfc.xon-b",
		.help = "... and resumes them at this; 0: 16 MTU",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_PORTFC, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_PORTFC_XON_B_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 4,
	},
};

_Static_assert(LL_ARRAY_SIZE(portfc_params) * sizeof(ll_u64) ==
	       sizeof(struct ll_portfc_params), "a row per word");

const struct ll_scheme_desc ll_scheme_portfc = {
	.name = "portfc",
	.title = "PortFC: per-port Pause/Resume for BCube",
	.doc = "docs/PORTFC.md",
	.hooks = LL_SCHEME_HOOK_EGRESS | LL_SCHEME_HOOK_FRAMES,
	.params = portfc_params,
	.n_params = LL_ARRAY_SIZE(portfc_params),
	.nl_nest = TCA_LOSSLESS_SCHEME_PORTFC,
	.nl_pad = TCA_LOSSLESS_PORTFC_PAD,
	.stats = portfc_stats,
	.n_stats = PORTFC_STATS,
	.masks = portfc_masks,
	.n_masks = PORTFC_MASKS,
	.events = portfc_events,
	.n_events = LL_PORTFC_EVTS,
	.check = portfc_check,
	.ports_check = portfc_ports_check,
	.port_stats = portfc_port_stats,
	.frames_due = portfc_frames_due,
	.frames_take = portfc_frames_take,
	.frames_complete = portfc_frames_complete,
	.frames_next_ns = portfc_frames_next_ns,
	.resync = portfc_resync,
};
