// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Bifrost as a port mode (mode.h; docs/BIFROST.md): the port's lossless
 * ingress is one controlled queue of bifrost.h, its buffer H, its frame a
 * standard PFC frame with the slot's pause time for every lossless
 * priority, or (bifrost-frame tokens: BifrostX, bifrost.md 2.10) a
 * TOKENS frame every slot with the link's token c^ and each priority's
 * (Alg. 2), which the upstream's credit gates split (pause.h). The slot
 * update itself is bifrost.c's.
 */
#include "mode.h"
#include "lossless.h"	/* the uapi: its netlink nest */

#define BIFROST_SLOTS_PER_RTT 16

ll_u64 ll_bifrost_mode_slot_ns(const union ll_mode_params *mp)
{
	return mp->bifrost.slot_ns ? mp->bifrost.slot_ns :
	       mp->bifrost.rtt_ns / BIFROST_SLOTS_PER_RTT;
}

/* The frames' names: the value 0, then bit 0 (LL_PARAM_FLAGS). */
static const char *const bifrost_frames[] = { "pfc", "tokens", (void *)0 };

static const struct ll_param bifrost_params[] = {
	{
		.tc = "bifrost-rtt", .arg = "TIME",
		.help = "an upper bound of the control loop's round trip: the link's, both ends' software and queueing (required)",
		.unit = LL_PARAM_TIME, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 1, .max = LL_BIFROST_RTT_NS_MAX,
		.nl_attr = TCA_LOSSLESS_BIFROST_RTT_NS,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 0,
	},
	{
		.tc = "bifrost-slot", .arg = "TIME",
		.help = "the slot T: one pause frame per slot at most (default: rtt / 16)",
		.unit = LL_PARAM_TIME, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 1, .max = LL_BIFROST_RTT_NS_MAX / 2,
		.nl_attr = TCA_LOSSLESS_BIFROST_SLOT_NS,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 1,
	},
	{
		.tc = "bifrost-jitter", .arg = "TIME",
		.help = "J, the lateness a slot may have, accounted ahead in F and the buffer (default: one slot)",
		.unit = LL_PARAM_TIME, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 1, .max = LL_NSEC_PER_SEC,
		.nl_attr = TCA_LOSSLESS_BIFROST_JITTER_NS,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 2,
	},
	{
		.tc = "bifrost-buffer", .arg = "SIZE",
		.help = "H, the port's buffer, at least rate x (rtt + 2 slot + 2 jitter) (default: that + a slot + k MTU)",
		.unit = LL_PARAM_SIZE, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 1, .max = 1ULL << 40,
		.nl_attr = TCA_LOSSLESS_BIFROST_BUFFER_BYTES,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 3,
	},
	{
		.tc = "bifrost-k", .arg = "N",
		.help = "the leak deduction's period in slots, 1 .. 1024 (default 1)",
		.unit = LL_PARAM_COUNT, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 1, .max = LL_BIFROST_LEAK_PERIOD_MAX,
		.nl_attr = TCA_LOSSLESS_BIFROST_LEAK_PERIOD,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 4,
	},
	{
		.tc = "bifrost-frame", .arg = "pfc|tokens",
		.help = "pfc: a PFC pause per slot (Bifrost); tokens: a token frame per slot, the link's token split among the priorities upstream (BifrostX) (default pfc)",
		.unit = LL_PARAM_FLAGS, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 0, .max = LOSSLESS_BIFROST_FRAME_TOKENS,
		.nl_attr = TCA_LOSSLESS_BIFROST_FRAME,
		.nl_nest = TCA_LOSSLESS_MODE_BIFROST, .nl_len = 8, .word = 5,
		.names = bifrost_frames,
	},
};

enum bifrost_stat {
	BF_SLOTS, BF_FRAMES, BF_FULL_PAUSES, BF_PAUSE_NS, BF_MISSED_SLOTS,
	BF_LATE_GRANT, BF_LEAK, BF_BREACHES, BF_MAX_QUEUE, BF_MAX_LF,
	BF_MIN_MARGIN, BF_RESTARTS, BF_MAX_LATE, BF_WAKES, BF_RTT,
};

static const struct ll_scheme_stat_desc bifrost_stats[] = {
	[BF_SLOTS] = { "slots", LL_STAT_COUNT, "slots run" },
	[BF_FRAMES] = { "frames", LL_STAT_COUNT,
			"frames sent: pauses, resumes, tokens" },
	[BF_FULL_PAUSES] = { "full_pauses", LL_STAT_COUNT,
			     "slots that granted nothing" },
	[BF_PAUSE_NS] = { "pause", LL_STAT_NS,
			  "pause time asked of the upstream" },
	[BF_MISSED_SLOTS] = { "missed_slots", LL_STAT_COUNT,
			      "slots skipped, the timer was a slot late" },
	[BF_LATE_GRANT] = { "late_grant", LL_STAT_BYTES,
			    "bytes let through by slots later than the jitter" },
	[BF_LEAK] = { "leak", LL_STAT_BYTES,
		      "bytes received beyond what F held" },
	[BF_BREACHES] = { "breaches", LL_STAT_COUNT,
			  "slots that ended with L + F above H" },
	[BF_MAX_QUEUE] = { "max_queue", LL_STAT_BYTES, "max L" },
	[BF_MAX_LF] = { "max_lf", LL_STAT_BYTES, "max L + F" },
	[BF_MIN_MARGIN] = { "min_margin", LL_STAT_BYTES,
			    "min H - (L + F), 0 after a breach" },
	[BF_RESTARTS] = { "restarts", LL_STAT_COUNT,
			  "restarts: links up, rate changes, gaps of F's window" },
	[BF_MAX_LATE] = { "max_late", LL_STAT_NS,
			  "the slot loop's largest lateness (J should cover it)" },
	[BF_WAKES] = { "wakes", LL_STAT_COUNT,
		       "idle spells ended: the timer slept, an arrival restarted the loop" },
	[BF_RTT] = { "max_rtt", LL_STAT_NS,
		     "the loop's round trip measured: a full pause to the last arrival it stopped (max, within a slot; bifrost-rtt should be above it)" },
};

LL_BUILD_ASSERT(LL_ARRAY_SIZE(bifrost_stats) <= LL_MODE_STATS, bifrost_stats);

/* BifrostX's per-priority tokens (Alg. 2's c_i), as its frames sent them. */
enum { BF_PRIO_TOKENS, BF_PRIO_CUT };

static const struct ll_scheme_stat_desc bifrost_prio_stats[] = {
	[BF_PRIO_TOKENS] = { "tokens", LL_STAT_BYTES,
			     "the priority's tokens sent (c_i, summed; 0 with PFC frames)" },
	[BF_PRIO_CUT] = { "cut_slots", LL_STAT_COUNT,
			  "slots whose token was below a full slot: the priority's queue grew" },
};

LL_BUILD_ASSERT(LL_ARRAY_SIZE(bifrost_prio_stats) <= LL_MODE_PRIO_STATS,
		bifrost_prio_stats);

/*
 * With tokens each priority's gate may send one packet past its credit
 * (pause.h): the port's buffer holds one MTU per priority beyond the
 * loop's H.
 */
static ll_u64 tokens_extra(const union ll_mode_params *mp, ll_u32 mtu_bytes)
{
	return mp->bifrost.frame == LOSSLESS_BIFROST_FRAME_TOKENS ?
	       (ll_u64)LL_PFC_PRIOS * mtu_bytes : 0;
}

static void bifrost_config(const union ll_mode_params *mp, ll_u64 rate_bps,
			   ll_u32 mtu_bytes, struct ll_bifrost_config *c)
{
	const struct ll_bifrost_params *p = &mp->bifrost;

	c->rate_bps = rate_bps;
	c->rtt_ns = p->rtt_ns;
	c->slot_ns = ll_bifrost_mode_slot_ns(mp);
	c->jitter_ns = p->jitter_ns ? p->jitter_ns : c->slot_ns;
	/* The loop's H: bifrost-buffer less the gates' overdraft. */
	c->buffer_bytes = p->buffer_bytes;
	if (p->buffer_bytes)
		c->buffer_bytes = p->buffer_bytes > tokens_extra(mp, mtu_bytes) ?
				  p->buffer_bytes - tokens_extra(mp, mtu_bytes) : 1;
	c->leak_period = p->leak_period ? (ll_u32)p->leak_period : 1;
	c->mtu_bytes = mtu_bytes;
}

static const char *bifrost_check(const union ll_mode_params *mp,
				 ll_u64 rate_bps, ll_u32 mtu_bytes)
{
	struct ll_bifrost_config c;

	if (!mp->bifrost.rtt_ns)
		return "bifrost needs bifrost-rtt, the control loop's round trip";
	if (mp->bifrost.leak_period > LL_BIFROST_LEAK_PERIOD_MAX)
		return "bifrost-k must be 1 .. 1024";
	if (mp->bifrost.frame > LOSSLESS_BIFROST_FRAME_TOKENS)
		return "bifrost-frame must be pfc or tokens";
	bifrost_config(mp, rate_bps, mtu_bytes, &c);
	return ll_bifrost_check(&c);
}

static ll_u64 bifrost_buffer(const union ll_mode_params *mp, ll_u64 rate_bps,
			     ll_u32 mtu_bytes)
{
	struct ll_bifrost_config c;

	bifrost_config(mp, rate_bps, mtu_bytes, &c);
	return mp->bifrost.buffer_bytes ? mp->bifrost.buffer_bytes :
	       ll_bifrost_buffer_default(&c) + tokens_extra(mp, mtu_bytes);
}

static void bifrost_start(union ll_mode_state *st,
			  const union ll_mode_params *mp, ll_u64 rate_bps,
			  ll_u32 mtu_bytes, ll_u64 now_ns, ll_u64 rx_bytes,
			  ll_u32 why)
{
	struct ll_bifrost_config c;
	struct ll_bifrost_stats kept = st->bifrost.loop.stats;
	ll_u32 i;
	int again = st->bifrost.loop.slot_ns != 0;	/* 0 only before the first */

	bifrost_config(mp, rate_bps, mtu_bytes, &c);
	ll_bifrost_init(&st->bifrost.loop, &c, now_ns, rx_bytes);
	/* The upstream is free (as at a wake or a restart, F at its bound):
	 * the first slot meters it; Delta L_i from empty queues.
	 */
	st->bifrost.released = 1;
	for (i = 0; i < LL_BIFROST_PRIOS; i++)
		st->bifrost.prio_prev[i] = 0;
	if (!again)
		return;
	/* The port's counters, across restarts; the margin from the new H. */
	if (kept.min_margin_bytes > st->bifrost.loop.stats.min_margin_bytes)
		kept.min_margin_bytes = st->bifrost.loop.stats.min_margin_bytes;
	st->bifrost.loop.stats = kept;
	if (why == LL_MODE_START_WAKE)
		st->bifrost.loop.stats.wakes++;
	else
		st->bifrost.loop.stats.restarts++;
}

static void bifrost_reconfigure(union ll_mode_state *st,
				const union ll_mode_params *mp,
				ll_u64 rate_bps, ll_u32 mtu_bytes)
{
	struct ll_bifrost_config c;

	bifrost_config(mp, rate_bps, mtu_bytes, &c);
	ll_bifrost_reconfigure(&st->bifrost.loop, &c);
}

static int bifrost_idle(const union ll_mode_state *st, ll_u64 queue_bytes,
			ll_u64 rx_bytes)
{
	const struct ll_bifrost *b = &st->bifrost.loop;

	return !queue_bytes && rx_bytes == b->rx_prev && st->bifrost.released;
}

static ll_u64 bifrost_next_ns(const union ll_mode_state *st)
{
	return ll_bifrost_next_ns(&st->bifrost.loop);
}

static ll_u16 token_units(ll_u64 bytes)
{
	ll_u64 units = bytes / LL_CTRL_CREDIT_UNIT_BYTES;	/* down: safe */

	return units > 0xFFFF ? 0xFFFF : (ll_u16)units;
}

/*
 * BifrostX's frame (Alg. 2): every slot, the link's token c^ and each
 * lossless priority's B - max(0, Delta L_i), valid for T + J. A slot
 * that finds the port quiet (nothing held, nothing arrived) and grants
 * a whole slot frees the upstream with a PFC resume instead, once, and
 * the port may sleep (idle()); its next arrival restarts the loop with
 * F at its bound, as a free upstream needs.
 */
static int bifrost_tokens(struct ll_bifrost_port *bp,
			  const struct ll_bifrost_decision *d, int quiet,
			  const ll_u64 *prio_bytes, ll_u8 lossless_mask,
			  struct ll_ctrl_msg *msg)
{
	const struct ll_bifrost *b = &bp->loop;
	ll_u64 token[LL_BIFROST_PRIOS];
	ll_u32 i;

	if (quiet && !d->quanta) {
		if (bp->released)
			return 0;
		bp->released = 1;
		msg->kind = LL_CTRL_PFC;
		msg->gate_mask = lossless_mask;
		return 1;
	}
	bp->released = 0;
	ll_bifrostx_tokens(b->slot_bytes, prio_bytes, bp->prio_prev,
			   LL_BIFROST_PRIOS, token);
	msg->kind = LL_CTRL_TOKENS;
	msg->gate_mask = (ll_u16)(lossless_mask | (1u << LL_PFC_PRIOS));
	for (i = 0; i < LL_BIFROST_PRIOS; i++) {
		if (!(lossless_mask & (1u << i)))
			continue;
		msg->value[i] = token_units(token[i]);
		bp->prio_tokens_bytes[i] += (ll_u64)msg->value[i] *
					    LL_CTRL_CREDIT_UNIT_BYTES;
		if (token[i] < b->slot_bytes)
			bp->prio_cut_slots[i]++;
	}
	msg->value[LL_PFC_PRIOS] = token_units(d->link_token_bytes);
	msg->lifetime = (ll_u16)ll_ns_to_quanta(b->slot_ns + b->jitter_ns,
						b->rate_bps);
	return 1;
}

static int bifrost_slot(union ll_mode_state *st, const union ll_mode_params *mp,
			ll_u64 now_ns, ll_u64 queue_bytes,
			const ll_u64 *prio_bytes, ll_u64 rx_bytes,
			ll_u8 lossless_mask, struct ll_ctrl_msg *msg)
{
	struct ll_bifrost_port *bp = &st->bifrost;
	struct ll_bifrost_decision d;
	int quiet = !queue_bytes && rx_bytes == bp->loop.rx_prev;
	ll_u32 i;

	ll_bifrost_slot(&bp->loop, now_ns, queue_bytes, rx_bytes, &d);
	if (mp->bifrost.frame == LOSSLESS_BIFROST_FRAME_TOKENS) {
		if (!bifrost_tokens(bp, &d, quiet, prio_bytes, lossless_mask,
				    msg))
			return 0;
		bp->frames++;
		return 1;
	}
	/* A PFC loop frees the upstream with a resume or a lapsed pause. */
	bp->released = !bp->loop.last_pause_ns && !bp->loop.guarded;
	if (!d.send)
		return 0;
	bp->frames++;
	msg->kind = LL_CTRL_PFC;
	msg->gate_mask = lossless_mask;
	for (i = 0; i < LL_PFC_PRIOS; i++)
		msg->value[i] = (lossless_mask & (1u << i)) ? (ll_u16)d.quanta : 0;
	return 1;
}

static void bifrost_port_stats(const union ll_mode_state *st,
			       ll_u64 queue_bytes,
			       struct ll_mode_port_stats *out)
{
	const struct ll_bifrost *b = &st->bifrost.loop;
	const struct ll_bifrost_stats *s = &b->stats;
	ll_u32 i;

	(void)queue_bytes;
	out->ctr[BF_SLOTS] = s->slots;
	out->ctr[BF_FRAMES] = st->bifrost.frames;
	out->ctr[BF_FULL_PAUSES] = s->full_pauses;
	out->ctr[BF_PAUSE_NS] = s->pause_ns_total;
	out->ctr[BF_MISSED_SLOTS] = s->missed_slots;
	out->ctr[BF_LATE_GRANT] = s->late_grant_bytes;
	out->ctr[BF_LEAK] = s->leak_bytes;
	out->ctr[BF_BREACHES] = s->breaches;
	out->ctr[BF_MAX_QUEUE] = s->max_queue_bytes;
	out->ctr[BF_MAX_LF] = s->max_lf_bytes;
	out->ctr[BF_MIN_MARGIN] = s->min_margin_bytes > 0 ?
				  (ll_u64)s->min_margin_bytes : 0;
	out->ctr[BF_RESTARTS] = s->restarts;
	out->ctr[BF_MAX_LATE] = s->max_late_ns;
	out->ctr[BF_WAKES] = s->wakes;
	out->ctr[BF_RTT] = s->rtt_max_ns;
	for (i = 0; i < LL_BIFROST_PRIOS; i++) {
		out->prio[BF_PRIO_TOKENS][i] = st->bifrost.prio_tokens_bytes[i];
		out->prio[BF_PRIO_CUT][i] = st->bifrost.prio_cut_slots[i];
	}
	/* The last bucket is open: the core's longer ones fold into it. */
	for (i = 0; i < LL_BIFROST_LATE_BUCKETS; i++)
		out->late_hist[i < LL_MODE_HIST ? i : LL_MODE_HIST - 1] +=
			s->late_hist[i];
}

const struct ll_mode_desc ll_mode_bifrost = {
	.name = "bifrost",
	.title = "Bifrost: one computed pause per slot, about one BDP of buffer",
	.doc = "docs/BIFROST.md",
	.params = bifrost_params,
	.n_params = LL_ARRAY_SIZE(bifrost_params),
	.nl_nest = TCA_LOSSLESS_MODE_BIFROST,
	.nl_pad = TCA_LOSSLESS_BIFROST_PAD,
	.stats = bifrost_stats,
	.n_stats = LL_ARRAY_SIZE(bifrost_stats),
	.prio_stats = bifrost_prio_stats,
	.n_prio_stats = LL_ARRAY_SIZE(bifrost_prio_stats),
	.check = bifrost_check,
	.buffer = bifrost_buffer,
	.start = bifrost_start,
	.reconfigure = bifrost_reconfigure,
	.idle = bifrost_idle,
	.next_ns = bifrost_next_ns,
	.slot = bifrost_slot,
	.port_stats = bifrost_port_stats,
};
