// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * SPFC, Selective PFC: PFC that spares victim ports (spfc.md sections 3
 * and 6.2; docs/SPFC.md). Over mmu.c's accounting, with DT's admission and
 * hysteresis (ll_dt_admit_lossless(), ll_dt_hysteresis()) and its own
 * threshold:
 *
 *   IRC      per lossless ingress (port, prio), the bytes (or packets,
 *            A4) that entered on it and left the switch (ll_mmu_release())
 *            in the current window of TC; windows are back-to-back,
 *            half-open and aligned to multiples of TC (3.2, 3.3, A5, A11);
 *   roll     at the port's first event in a new window (an arrival, a
 *            release, an evaluation) or at the port's timer, whichever
 *            comes first: last = the IRC of the window that just ended (0
 *            if more than one ended), SH := not paused and last >= IRC_th,
 *            IRC := 0 (W1-W13). The timer's deadline is the window's end
 *            while a roll there may move a Victim bit (an SH set; with
 *            WINDOW_END a count at IRC_th), so no state is more than a
 *            timer's latency stale; a roll that moves none only resets
 *            counts, which the telemetry reads as of its time;
 *   promote  IMMEDIATE (default): SH := 1 the moment IRC reaches IRC_th
 *            while not paused (D9), or at a RESUME if it already has (R9);
 *            LL_SPFC_F_WINDOW_END: only at a roll (A2);
 *   latch    a PAUSE clears SH and the pause wish holds it at 0 until the
 *            RESUME: the SH reset line (P5-P7, A3);
 *   state    Victim = spfc.md 3.5's truth table (ll_spfc_state()): SH set
 *            and no reset; or forced (the oracle of Fig. 4, or SPFC off);
 *   X_off    a Victim's is the whole buffer (A7), at least DT's T: it
 *            pauses only when its bytes find the shared region full and go
 *            to headroom (INV-2). Every other queue's is DT's alpha x free,
 *            whose S counts the Victims' bytes (Eq. 4). A paused queue is
 *            Normal, so its RESUME is judged on DT's T (INV-3, R4).
 * "Paused" is the MMU's pause wish (ll_mmu_xoff.want), set and cleared by
 * the hysteresis: the decision, not the frame (refreshes change nothing,
 * A27). With no Victim, SPFC is DT exactly (INV-5).
 *
 * A roll changes only the state; the port's timer re-evaluates the queues
 * whose state it changed, so a Victim demoted above DT's X_off pauses at
 * the window's end (the paper's MMU waits for its next arrival, which
 * takes headroom and pauses).
 *
 * Slow path (LL_SPFC_F_DAEMON, 6.3): the SH content is the daemon's
 * per-window bit (ll_spfc_publish()) instead of IRC's; the datapath keeps
 * the exact reset: a priority that paused ignores the daemon's bit until
 * the daemon publishes a window that ended after the port's latest
 * RESUME. IRC and the rolls go on (last_win is what the daemon reads).
 *
 * Integer only: one division per roll when more than one window ended;
 * the derived IRC_th (C_p x TC / 8 / K) costs ll_bytes_in_ns() and one
 * division when it is compared, unless IRC_th is given.
 */
#include "scheme.h"
#include "headroom.h"
#include "lossless.h"	/* the uapi: its netlink nest, the plane */

static const struct ll_spfc_params *params(const struct ll_mmu_pool *pool)
{
	return &pool->cfg.scheme_params.spfc;
}

static inline int has_flag(const struct ll_mmu_pool *pool, ll_u64 flag)
{
	return (params(pool)->flags & flag) != 0;
}

static ll_u32 popcount8(ll_u8 v)
{
	ll_u32 n = 0;

	for (; v; v &= (ll_u8)(v - 1))
		n++;
	return n;
}

/* SPFC's clock (ll_scheme_clock()). */
static inline ll_u64 clock_ns(struct ll_mmu_pool *pool, ll_u64 now_ns)
{
	return ll_scheme_clock(&pool->sch.spfc.now_ns, now_ns);
}

/* ------------------------------------------------------- configuration */

static const char *spfc_check(const struct ll_mmu_config *cfg)
{
	const struct ll_spfc_params *s = &cfg->scheme_params.spfc;

	if (s->tc_ns &&
	    (s->tc_ns < LL_SPFC_TC_NS_MIN || s->tc_ns > LL_SPFC_TC_NS_MAX))
		return "spfc: spfc-window outside 10 us .. 1 s";
	/* Never below one frame (B5): a tiny IRC_th makes every queue a Victim. */
	if (s->irc_th_bytes && s->irc_th_bytes < cfg->mtu_bytes)
		return "spfc: spfc-irc-th below one frame (the pool's MTU)";
	if (s->irc_th_bytes > LL_SPFC_IRC_TH_MAX)
		return "spfc: spfc-irc-th above 4294967295 bytes";
	if (s->irc_th_packets > LL_SPFC_IRC_TH_MAX)
		return "spfc: spfc-irc-th-packets above 4294967295";
	if (s->irc_th_packets && s->irc_th_bytes)
		return "spfc: spfc-irc-th and spfc-irc-th-packets together (give one)";
	if (s->victim_threshold_bytes > cfg->total_bytes)
		return "spfc: spfc-victim-threshold above the buffer";
	if (s->flags & ~LL_SPFC_F_ALL)
		return "spfc: unknown spfc-mode flags";
	/* K sizes the derived IRC_th only; with a given one it does nothing. */
	if (s->k > LL_SPFC_K_MAX)
		return "spfc: spfc-k above 1000";
	return (const char *)0;
}

ll_u64 ll_spfc_window_for_rtt_ns(ll_u64 rtt_ns)
{
	/* 4 x rtt below 2^64 for any rtt up to the maximum window. */
	if (rtt_ns >= LL_SPFC_TC_NS_MAX / 4)
		return LL_SPFC_TC_NS_MAX;
	return 4 * rtt_ns > LL_SPFC_TC_NS_DEFAULT ? 4 * rtt_ns :
						      LL_SPFC_TC_NS_DEFAULT;
}

ll_u64 ll_spfc_irc_threshold(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_spfc_params *s = params(pool);
	ll_u64 th;

	if (s->irc_th_packets)
		return s->irc_th_packets;
	if (s->irc_th_bytes)
		return s->irc_th_bytes;
	/* (C_p / 8) x TC / K, at least one frame (B5), at most IRC's range. */
	th = ll_div_u64(ll_bytes_in_ns(pool->ports[port].rate_bps,
				       ll_spfc_tc_ns(pool)),
			s->k ? s->k : LL_SPFC_K_DEFAULT);
	if (th < pool->cfg.mtu_bytes)
		th = pool->cfg.mtu_bytes;
	return th < LL_SPFC_IRC_TH_MAX ? th : LL_SPFC_IRC_TH_MAX;
}

/*
 * IRC_th of port as the packet path compares it: computed once per
 * configuration (three divisions otherwise, on every departure).
 */
static ll_u32 irc_th(struct ll_mmu_pool *pool, ll_u32 port)
{
	struct ll_spfc_port_state *st = &pool->ports[port].sch.spfc;

	if (!st->irc_th || st->irc_th_gen != pool->cfg_gen) {
		st->irc_th = (ll_u32)ll_spfc_irc_threshold(pool, port);
		st->irc_th_gen = pool->cfg_gen;
	}
	return st->irc_th;
}

/* ------------------------------------------------------- state, threshold */

static inline ll_u8 victims(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_spfc_port_state *st = &p->sch.spfc;
	ll_u8 reset = p->xoff.want, sh = st->sh;

	if (has_flag(pool, LL_SPFC_F_DAEMON)) {
		reset |= st->hold;
		sh = st->daemon_sh;
	}
	return ll_spfc_state(reset, sh, st->force_victim, st->force_normal) &
	       pool->cfg.lossless_mask;
}

ll_u8 ll_spfc_victims(const struct ll_mmu_pool *pool, ll_u32 port)
{
	return victims(pool, port);
}

ll_u64 ll_spfc_victim_threshold(const struct ll_mmu_pool *pool)
{
	ll_u64 v = params(pool)->victim_threshold_bytes;
	ll_u64 t = ll_dt_ingress_threshold(pool);

	if (!v)
		v = pool->cfg.total_bytes;
	return v > t ? v : t;
}

ll_u64 ll_spfc_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio)
{
	if ((victims(pool, port) >> prio) & 1)
		return ll_spfc_victim_threshold(pool);
	return ll_dt_ingress_threshold(pool);
}

/*
 * Count the port's transitions since its Victim bits were `before`, log
 * them, and bring the time in Victim up to the pool's clock.
 */
static void account(struct ll_mmu_pool *pool, ll_u32 port, ll_u8 before)
{
	struct ll_spfc_port_state *st = &pool->ports[port].sch.spfc;
	ll_u8 after = ll_spfc_victims(pool, port);
	ll_u8 changed = (ll_u8)(before ^ after);
	ll_u64 now = pool->sch.spfc.now_ns;
	ll_u32 prio;

	st->to_victim += popcount8((ll_u8)(after & ~before));
	st->to_normal += popcount8((ll_u8)(before & ~after));
	for (prio = 0; changed; prio++, changed >>= 1) {
		enum ll_spfc_event type = (after >> prio) & 1 ?
					  LL_SPFC_EV_TO_VICTIM :
					  LL_SPFC_EV_TO_NORMAL;

		if (changed & 1)
			ll_scheme_log_event(pool, port, prio, type,
					    ll_scheme_iq_bytes(pool, port, prio),
					    now);
	}
	if (after != st->victims) {
		if (now > st->victims_ns_at)
			st->victim_ns += popcount8(st->victims) *
					 (now - st->victims_ns_at);
		st->victims_ns_at = now;
		st->victims = after;
	}
}

/*
 * Windows of port that ended by now_ns and were not rolled yet: 0, 1, or
 * 2 for "more than one" (the last one then counted nothing).
 */
static ll_u32 windows_ended(const struct ll_mmu_pool *pool, ll_u32 port,
			    ll_u64 now_ns)
{
	const struct ll_spfc_port_state *st = &pool->ports[port].sch.spfc;

	if (!ll_spfc_window_ended(pool, st, now_ns))
		return 0;
	return now_ns - st->win_start_ns < 2 * ll_spfc_tc_ns(pool) ? 1 : 2;
}

/* The telemetry, by name (the descriptor's tables use the same enums). */
enum spfc_stat {
	SPFC_TO_VICTIM,
	SPFC_TO_NORMAL,
	SPFC_VICTIM_TIME,
	SPFC_PAUSES_NORMAL,
	SPFC_PAUSES_VICTIM,
	SPFC_TRIGGER_PEAK,
	SPFC_IRC_THRESHOLD,
	SPFC_STATS
};

enum spfc_mask {
	SPFC_MASK_VICTIM,
	SPFC_MASK_SH,
	SPFC_MASK_FORCED_VICTIM,
	SPFC_MASK_FORCED_NORMAL,
	SPFC_MASKS
};

enum spfc_prio_stat { SPFC_LAST_WINDOW, SPFC_IRC, SPFC_PRIO_STATS };

static void spfc_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			    ll_u64 now_ns, struct ll_scheme_port_stats *out)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_spfc_port_state *st = &p->sch.spfc;
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u8 sh = has_flag(pool, LL_SPFC_F_DAEMON) ? st->daemon_sh : st->sh;
	ll_u32 ended = windows_ended(pool, port, now_ns), prio;

	out->masks = (ll_u32)ll_spfc_victims(pool, port) << (8 * SPFC_MASK_VICTIM) |
		     (ll_u32)(sh & mask) << (8 * SPFC_MASK_SH) |
		     (ll_u32)(st->force_victim & mask) << (8 * SPFC_MASK_FORCED_VICTIM) |
		     (ll_u32)(st->force_normal & mask) << (8 * SPFC_MASK_FORCED_NORMAL);
	out->ctr[SPFC_TO_VICTIM] = st->to_victim;
	out->ctr[SPFC_TO_NORMAL] = st->to_normal;
	out->ctr[SPFC_VICTIM_TIME] = st->victim_ns;
	if (now_ns > st->victims_ns_at)
		out->ctr[SPFC_VICTIM_TIME] += popcount8(st->victims) *
					      (now_ns - st->victims_ns_at);
	out->ctr[SPFC_PAUSES_NORMAL] = st->pauses_normal;
	out->ctr[SPFC_PAUSES_VICTIM] = st->pauses_victim;
	out->ctr[SPFC_TRIGGER_PEAK] = st->trigger_peak;
	out->ctr[SPFC_IRC_THRESHOLD] = ll_spfc_irc_threshold(pool, port);
	/* The counts as of now_ns, as the roll the next event makes leaves
	 * them (the port's timer runs only when a roll moves a state).
	 */
	for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
		const struct ll_spfc_iq_state *q = &p->iq[prio].sch.spfc;

		if (!((mask >> prio) & 1))
			continue;
		out->prio[SPFC_LAST_WINDOW][prio] = ended == 0 ? q->last_win :
						    ended == 1 ? q->irc : 0;
		out->prio[SPFC_IRC][prio] = ended ? 0 : q->irc;
	}
}

/* ------------------------------------------------------------- windows */

/* W1-W13 for every priority of the port (they share the window). */
static void roll_ended(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_spfc_port_state *st = &p->sch.spfc;
	ll_u64 tc = ll_spfc_tc_ns(pool), d, n, th;
	ll_u32 prio;

	d = now_ns - st->win_start_ns;
	n = d < 2 * tc ? 1 : ll_div_u64(d, tc);
	th = irc_th(pool, port);
	for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
		struct ll_spfc_iq_state *q = &p->iq[prio].sch.spfc;
		ll_u8 bit = (ll_u8)(1u << prio);
		ll_u32 last = n == 1 ? q->irc : 0;

		/* SH latches the last window; held at 0 while paused. */
		if (!(p->xoff.want & bit) && last >= th)
			st->sh |= bit;
		else
			st->sh &= (ll_u8)~bit;
		q->last_win = last;
		q->irc = 0;
	}
	st->win_start_ns += n * tc;
}

/* Roll the port's window if it ended; returns whether it did. */
static inline int roll(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	if (!ll_spfc_window_ended(pool, &pool->ports[port].sch.spfc, now_ns))
		return 0;
	roll_ended(pool, port, now_ns);
	return 1;
}

/* An arrival rolls an ended window; otherwise it changes nothing. */
void ll_spfc_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	ll_u8 before;

	now_ns = clock_ns(pool, now_ns);
	if (!ll_spfc_window_ended(pool, &pool->ports[port].sch.spfc, now_ns))
		return;
	before = victims(pool, port);
	roll_ended(pool, port, now_ns);
	account(pool, port, before);
}

/* D7-D10: the ingress-dequeue pulse. */
void ll_spfc_released(struct ll_mmu_pool *pool,
		      const struct ll_mmu_charge *charge, ll_u64 now_ns)
{
	ll_u32 port = charge->in_port, prio = charge->prio;
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_spfc_port_state *st = &p->sch.spfc;
	struct ll_spfc_iq_state *q = &p->iq[prio].sch.spfc;
	ll_u8 bit = (ll_u8)(1u << prio);
	ll_u8 before;
	ll_u64 irc;
	int changed;

	if (!charge->lossless)
		return;
	now_ns = clock_ns(pool, now_ns);
	/* Only a roll or a latch moves a Victim bit: the bits before are
	 * read only then.
	 */
	changed = ll_spfc_window_ended(pool, st, now_ns);
	before = changed ? victims(pool, port) : 0;
	if (changed)
		roll_ended(pool, port, now_ns);
	irc = (ll_u64)q->irc +
	      (params(pool)->irc_th_packets ? 1 : charge->bytes);
	q->irc = (ll_u32)(irc < LL_SPFC_IRC_TH_MAX ? irc : LL_SPFC_IRC_TH_MAX);
	if (!(st->sh & bit) && !has_flag(pool, LL_SPFC_F_WINDOW_END) &&
	    !(p->xoff.want & bit) && q->irc >= irc_th(pool, port)) {
		if (!changed)
			before = victims(pool, port);
		st->sh |= bit;
		changed = 1;
	}
	if (changed)
		account(pool, port, before);
}

void ll_spfc_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 now_ns)
{
	struct ll_mmu_port *p = &pool->ports[port];
	struct ll_spfc_port_state *st = &p->sch.spfc;
	ll_u8 bit = (ll_u8)(1u << prio);
	ll_u8 before, was, victim;
	int rolled;

	now_ns = clock_ns(pool, now_ns);
	before = victims(pool, port);
	rolled = roll(pool, port, now_ns);
	was = p->xoff.want & bit;
	victim = rolled ? victims(pool, port) & bit : before & bit;
	ll_dt_hysteresis(pool, port, prio,
			 victim ? ll_spfc_victim_threshold(pool) :
				  ll_dt_ingress_threshold(pool));
	if (!was && (p->xoff.want & bit)) {
		ll_u64 bytes = ll_scheme_iq_bytes(pool, port, prio);

		/* The PAUSE pulse resets SH; the wish holds the reset. */
		st->sh &= (ll_u8)~bit;
		st->hold |= bit;
		if (victim)
			st->pauses_victim++;
		else
			st->pauses_normal++;
		if (bytes > st->trigger_peak)
			st->trigger_peak = bytes;
		ll_scheme_log_event(pool, port, prio, LL_SPFC_EV_PAUSE, bytes,
				    now_ns);
	} else if (was && !(p->xoff.want & bit)) {
		/* RESUME releases the reset: IRC's output counts again. */
		st->resume_ns = now_ns;
		ll_scheme_log_event(pool, port, prio, LL_SPFC_EV_RESUME,
				    ll_scheme_iq_bytes(pool, port, prio), now_ns);
		if (!has_flag(pool, LL_SPFC_F_WINDOW_END) &&
		    p->iq[prio].sch.spfc.irc >= irc_th(pool, port))
			st->sh |= bit;
	} else if (!rolled) {
		return;		/* no Victim bit moved */
	}
	account(pool, port, before);
}

/* Re-evaluate the lossless priorities whose Victim bit is not `before`. */
static void evaluate_changed(struct ll_mmu_pool *pool, ll_u32 port,
			     ll_u8 before, ll_u64 now_ns)
{
	ll_u8 changed = (ll_u8)(before ^ ll_spfc_victims(pool, port));
	ll_u32 prio;

	for (prio = 0; changed; prio++, changed >>= 1)
		if (changed & 1)
			ll_spfc_evaluate(pool, port, prio, now_ns);
}

/* A PAUSE's trigger is an event, not a level: its peak starts again at 0. */
void ll_spfc_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port)
{
	pool->ports[port].sch.spfc.trigger_peak = 0;
}

void ll_spfc_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns)
{
	ll_u8 before = ll_spfc_victims(pool, port);

	now_ns = clock_ns(pool, now_ns);
	roll(pool, port, now_ns);
	account(pool, port, before);
	evaluate_changed(pool, port, before, now_ns);
}

/* ----------------------------------------------- oracle and slow path */

static int spfc_port_ok(const struct ll_mmu_pool *pool, ll_u32 port)
{
	return pool->cfg.scheme == LL_SCHEME_SPFC &&
	       port < pool->cfg.max_ports && pool->ports[port].attached;
}

int ll_spfc_force(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		  enum ll_spfc_forced state, ll_u64 now_ns)
{
	struct ll_spfc_port_state *st;
	ll_u8 bit, before;

	if (!spfc_port_ok(pool, port) || prio >= LL_MMU_PRIOS ||
	    state > LL_SPFC_FORCE_NORMAL)
		return -1;
	st = &pool->ports[port].sch.spfc;
	bit = (ll_u8)(1u << prio);
	now_ns = clock_ns(pool, now_ns);
	before = ll_spfc_victims(pool, port);
	st->force_victim &= (ll_u8)~bit;
	st->force_normal &= (ll_u8)~bit;
	if (state == LL_SPFC_FORCE_VICTIM)
		st->force_victim |= bit;
	else if (state == LL_SPFC_FORCE_NORMAL)
		st->force_normal |= bit;
	account(pool, port, before);
	evaluate_changed(pool, port, before, now_ns);
	return ll_mmu_ctrl_due(pool, port, now_ns);
}

int ll_spfc_publish(struct ll_mmu_pool *pool, ll_u32 port, ll_u8 victims,
		    ll_u64 window_end_ns, ll_u64 now_ns)
{
	struct ll_mmu_port *p;
	struct ll_spfc_port_state *st;
	ll_u8 before;

	if (!spfc_port_ok(pool, port))
		return -1;
	p = &pool->ports[port];
	st = &p->sch.spfc;
	now_ns = clock_ns(pool, now_ns);
	before = ll_spfc_victims(pool, port);
	roll(pool, port, now_ns);
	st->daemon_sh = victims & pool->cfg.lossless_mask;
	/* A window that ended after the RESUMEs ends their holds. */
	if (window_end_ns > st->resume_ns)
		st->hold &= p->xoff.want;
	account(pool, port, before);
	evaluate_changed(pool, port, before, now_ns);
	return ll_mmu_ctrl_due(pool, port, now_ns);
}

/* --------------------------------------------- the control channel */

/* Check one slot of the payload: 0 or -LL_E*; *port its member, -1 for
 * an unused slot.
 */
static int spfc_channel_check(const struct ll_mmu_pool *pool,
			      const ll_u32 *ids, ll_u32 nr_ids,
			      const struct lossless_plane_spfc_port *s,
			      ll_u64 *seen, int *port, ll_u64 now_ns)
{
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u32 i;

	*port = -1;
	if (!s->ifindex)
		return s->flags || s->victims || s->force_victim ||
		       s->force_normal || s->window_end_ns ? -LL_EINVAL : 0;
	for (i = 0; i < nr_ids; i++)
		if (ids[i] == s->ifindex && spfc_port_ok(pool, i))
			break;
	if (i == nr_ids)
		return -LL_ENODEV;
	*port = (int)i;
	if (*seen & (1ULL << i))
		return -LL_EINVAL;
	*seen |= 1ULL << i;
	if (s->flags & ~LOSSLESS_SPFC_PUB)
		return -LL_EINVAL;
	if (((s->force_victim | s->force_normal | s->victims) & ~mask) ||
	    (s->force_victim & s->force_normal))
		return -LL_EINVAL;
	if (!(s->flags & LOSSLESS_SPFC_PUB))
		return s->victims || s->window_end_ns ? -LL_EINVAL : 0;
	return s->window_end_ns > now_ns ? -LL_ERANGE : 0;
}

/* Force every priority of port whose forced state differs from the
 * wanted one: 1 if a frame is due on it.
 */
static int spfc_force_port(struct ll_mmu_pool *pool, ll_u32 port,
			   ll_u8 victim, ll_u8 normal, ll_u64 now_ns)
{
	const struct ll_spfc_port_state *st = &pool->ports[port].sch.spfc;
	ll_u8 diff = (st->force_victim ^ victim) | (st->force_normal ^ normal);
	enum ll_spfc_forced f;
	int due = 0;
	ll_u32 prio;

	for (prio = 0; prio < LL_MMU_PRIOS; prio++) {
		if (!(diff & (1u << prio)))
			continue;
		f = victim & (1u << prio) ? LL_SPFC_FORCE_VICTIM :
		    normal & (1u << prio) ? LL_SPFC_FORCE_NORMAL :
		    LL_SPFC_FORCE_AUTO;
		if (ll_spfc_force(pool, port, prio, f, now_ns) == 1)
			due = 1;
	}
	return due;
}

/* SPFC's payload (uapi struct lossless_spfc_channel), all or nothing: the
 * forced states it asks for (none for a port in no slot) and its
 * publications.
 */
static int spfc_channel(struct ll_mmu_pool *pool, const ll_u32 *ids,
			ll_u32 nr_ids, const void *payload, ll_u64 now_ns,
			ll_u64 *due)
{
	const struct lossless_spfc_channel *w = payload;
	int port[LOSSLESS_PLANE_PORTS];
	ll_u64 seen = 0;
	ll_u32 i;
	int err;

	for (i = 0; i < LOSSLESS_PLANE_PORTS; i++) {
		err = spfc_channel_check(pool, ids, nr_ids, &w->ports[i], &seen,
					 &port[i], now_ns);
		if (err)
			return err;
	}
	/* A member in no slot: nothing forced. */
	for (i = 0; i < nr_ids; i++)
		if (ids[i] && spfc_port_ok(pool, i) && !(seen & (1ULL << i)) &&
		    spfc_force_port(pool, i, 0, 0, now_ns))
			*due |= 1ULL << i;
	for (i = 0; i < LOSSLESS_PLANE_PORTS; i++) {
		const struct lossless_plane_spfc_port *s = &w->ports[i];
		int p = port[i];

		if (p < 0)
			continue;
		if (spfc_force_port(pool, (ll_u32)p, s->force_victim,
				    s->force_normal, now_ns))
			*due |= 1ULL << p;
		if ((s->flags & LOSSLESS_SPFC_PUB) &&
		    ll_spfc_publish(pool, (ll_u32)p, s->victims,
				    s->window_end_ns, now_ns) == 1)
			*due |= 1ULL << p;
	}
	return 0;
}

/* ------------------------------------------------------- the descriptor */

/* The flags' names: the value 0, then bit 0, 1, ... (LL_PARAM_FLAGS). */
static const char *const spfc_modes[] = {
	"irc", "window-end", "daemon", (void *)0,
};

/* struct ll_spfc_params, word by word (param.h). */
static const struct ll_param spfc_params[] = {
	{
		.tc = "spfc-window", .arg = "TIME", .key = "window",
		.ctl = "spfc.window",
		.help = "the window TC over which departures are counted; at least 4 round trips",
		.unit = LL_PARAM_TIME,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = LL_SPFC_TC_NS_MIN,
		.max = LL_SPFC_TC_NS_MAX, .def = LL_SPFC_TC_NS_DEFAULT,
		.nl_attr = TCA_LOSSLESS_SPFC_TC_NS,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 0,
	},
	{
		.tc = "spfc-irc-th", .arg = "SIZE", .key = "irc-th",
		.ctl = "spfc.irc-th",
		.help = "departures per window that make a queue a Victim, at least 1 MTU; 0: C x TC / 8 / K per port",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = 0, .max = LL_SPFC_IRC_TH_MAX,
		.def = 0, .nl_attr = TCA_LOSSLESS_SPFC_IRC_TH_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 1,
	},
	{
		.tc = "spfc-irc-th-packets", .arg = "N", .key = "irc-th-packets",
		.ctl = "spfc.irc-th-packets",
		.help = "IRC_th counted in packets (the paper's unit), not with spfc-irc-th; 0: count bytes",
		.unit = LL_PARAM_COUNT,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = 0, .max = LL_SPFC_IRC_TH_MAX,
		.def = 0, .nl_attr = TCA_LOSSLESS_SPFC_IRC_TH_PACKETS,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 2,
	},
	{
		.tc = "spfc-victim-threshold", .arg = "SIZE",
		.key = "victim-threshold", .ctl = "spfc.victim-threshold",
		.help = "shared bytes at which a Victim pauses (at least the Dynamic Threshold); 0: the whole buffer",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_SPFC_VICTIM_THRESHOLD_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 3,
	},
	{
		.tc = "spfc-mode", .arg = "MODE", .key = "mode",
		.ctl = "spfc.mode",
		.help = "irc: a queue turns Victim as its count reaches IRC_th; window-end: at a window's end; daemon: by the daemon's bit",
		.unit = LL_PARAM_FLAGS,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = 0, .max = LL_SPFC_F_ALL, .def = 0,
		.nl_attr = TCA_LOSSLESS_SPFC_FLAGS,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 4,
		.names = spfc_modes,
	},
	{
		.tc = "spfc-k", .arg = "N", .key = "k", .ctl = "spfc.k",
		.help = "K of the derived IRC_th = C x TC / (8 K) per port, an integer",
		.unit = LL_PARAM_COUNT,
		.flags = LL_PARAM_POLICY | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_SPFC, .min = 1, .max = LL_SPFC_K_MAX,
		.def = LL_SPFC_K_DEFAULT, .nl_attr = TCA_LOSSLESS_SPFC_K,
		.nl_nest = TCA_LOSSLESS_SCHEME_SPFC, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 5,
	},
};

_Static_assert(LL_ARRAY_SIZE(spfc_params) * sizeof(ll_u64) ==
	       sizeof(struct ll_spfc_params), "a row per word");
_Static_assert((ll_u64)LOSSLESS_SPFC_F_WINDOW_END == (ll_u64)LL_SPFC_F_WINDOW_END &&
	       (ll_u64)LOSSLESS_SPFC_F_DAEMON == (ll_u64)LL_SPFC_F_DAEMON,
	       "the uapi's flags are the core's");

static const struct ll_scheme_stat_desc spfc_stats[SPFC_STATS] = {
	[SPFC_TO_VICTIM] = { "to_victim", LL_STAT_COUNT,
		"Transitions of a priority to Victim." },
	[SPFC_TO_NORMAL] = { "to_normal", LL_STAT_COUNT,
		"Transitions of a priority back to Normal." },
	[SPFC_VICTIM_TIME] = { "victim_time", LL_STAT_NS,
		"Time in Victim, summed over the priorities." },
	[SPFC_PAUSES_NORMAL] = { "pauses_normal", LL_STAT_COUNT,
		"PAUSEs of a priority while Normal." },
	[SPFC_PAUSES_VICTIM] = { "pauses_victim", LL_STAT_COUNT,
		"PAUSEs of a priority while Victim (the pool full)." },
	[SPFC_TRIGGER_PEAK] = { "trigger_peak", LL_STAT_BYTES,
		"Most bytes a priority held when it paused." },
	[SPFC_IRC_THRESHOLD] = { "irc_threshold", LL_STAT_GAUGE,
		"IRC_th of the port (bytes, or packets)." },
};

static const char *const spfc_masks[SPFC_MASKS] = {
	[SPFC_MASK_VICTIM] = "victim",
	[SPFC_MASK_SH] = "sh",
	[SPFC_MASK_FORCED_VICTIM] = "forced_victim",
	[SPFC_MASK_FORCED_NORMAL] = "forced_normal",
};

static const struct ll_scheme_stat_desc spfc_prio_stats[SPFC_PRIO_STATS] = {
	[SPFC_LAST_WINDOW] = { "last_window", LL_STAT_GAUGE,
		"IRC of the last complete window (bytes, or packets)." },
	[SPFC_IRC] = { "irc", LL_STAT_GAUGE,
		"IRC of the window in progress (bytes, or packets)." },
};

static const struct ll_scheme_event_desc spfc_events[LL_SPFC_EVENTS] = {
	[LL_SPFC_EV_PAUSE] = { "pause",
		"The priority's pause wish set (PAUSE; a Victim: the latch)." },
	[LL_SPFC_EV_RESUME] = { "resume",
		"The priority's pause wish cleared (RESUME)." },
	[LL_SPFC_EV_TO_VICTIM] = { "to_victim",
		"The priority's state went from Normal to Victim." },
	[LL_SPFC_EV_TO_NORMAL] = { "to_normal",
		"The priority's state went from Victim to Normal." },
};

_Static_assert(SPFC_STATS <= LL_SCHEME_STATS && SPFC_MASKS <= LL_SCHEME_MASKS &&
	       SPFC_PRIO_STATS <= LL_SCHEME_PRIO_STATS,
	       "the telemetry fits struct ll_scheme_port_stats");

const struct ll_scheme_desc ll_scheme_spfc = {
	.name = "spfc",
	.title = "Selective PFC",
	.doc = "docs/SPFC.md",
	.hooks = LL_SCHEME_HOOK_ARRIVAL | LL_SCHEME_HOOK_RELEASED |
		 LL_SCHEME_HOOK_TIMER | LL_SCHEME_HOOK_CLOCK,
	.params = spfc_params,
	.n_params = LL_ARRAY_SIZE(spfc_params),
	.nl_nest = TCA_LOSSLESS_SCHEME_SPFC,
	.nl_pad = TCA_LOSSLESS_SPFC_PAD,
	.stats = spfc_stats,
	.n_stats = SPFC_STATS,
	.masks = spfc_masks,
	.n_masks = SPFC_MASKS,
	.prio_stats = spfc_prio_stats,
	.n_prio_stats = SPFC_PRIO_STATS,
	.events = spfc_events,
	.n_events = LL_SPFC_EVENTS,
	.check = spfc_check,
	.port_tick = ll_spfc_port_tick,
	.reset_peaks = ll_spfc_reset_peaks,
	.port_stats = spfc_port_stats,
	.channel = spfc_channel,
	.channel_len = sizeof(struct lossless_spfc_channel),
};
