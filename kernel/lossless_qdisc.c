// SPDX-License-Identifier: GPL-2.0
/*
 * net/sched/sch_lossless: lossless Ethernet egress for a Linux port.
 *
 * Data queues (default 8, up to 64) fed through an skb->priority map,
 * served strict-priority then DWRR like sch_ets, behind a token-bucket
 * shaper that stands for the port's line rate (veth has none). Each queue
 * is gated by IEEE 802.1Qbb PFC priorities and 802.3x PAUSE received on
 * this port: the TC ingress program validates those frames and redirects
 * them here (see uapi/lossless.h), where enqueue applies them under the
 * qdisc lock. Pause expiry is timed by the qdisc watchdog at the exact
 * duration at the port rate. MAC control frames sent by this host use a
 * control band that is served first and never paused.
 *
 * The frame codec and pause-gate state machine live in core/, shared with
 * BPF, the daemon and the tests.
 */

#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "core/pfc.h"
#include "core/pause.h"
#include "uapi/lossless.h"

#define LL_DEFAULT_QUEUES 8
#define LL_DEFAULT_LIMIT_PKTS 1000
#define LL_BURST_DEFAULT_NS (100 * NSEC_PER_USEC)
#define LL_TIMER_SLACK_NS (10 * NSEC_PER_USEC)

/* Formatted extack messages arrived after 6.1; there, say it plainly. */
#ifdef NL_SET_ERR_MSG_FMT_MOD
#define LL_ERR(extack, plain, fmt, ...) \
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##__VA_ARGS__)
#else
#define LL_ERR(extack, plain, fmt, ...) NL_SET_ERR_MSG_MOD(extack, plain)
#endif

struct ll_queue {
	struct qdisc_skb_head skbs;
	struct list_head alist;		/* on ll_sched.active while DWRR+backlog */
	u32 quantum_bytes;
	u32 deficit_bytes;
	u32 gate_mask;			/* gates (PFC prio bits, port bit) */
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats;
};

struct ll_sched {
	/* Parameters: written under sch_tree_lock, read locklessly by dump. */
	u64 rate_bps;
	u32 burst_bytes;
	u32 limit_pkts;
	u8 nqueues;
	u8 nstrict;
	bool burst_explicit;		/* else derived from the rate */
	u8 priomap[LOSSLESS_PRIOMAP_LEN];

	struct psched_ratecfg rate;
	s64 tokens_ns;			/* shaper credit, may go negative */
	s64 buffer_ns;			/* bucket depth */
	u64 t_c_ns;			/* last credit update */

	struct qdisc_skb_head ctrl;	/* locally sent MAC control frames */
	struct list_head active;	/* DWRR queues with backlog */
	struct ll_port_pause pause;
	struct qdisc_watchdog watchdog;

	u64 pfc_frames_rx;
	u64 pause_frames_rx;
	u64 ctrl_invalid;
	u64 throttled;
	u64 pause_blocked;

	struct ll_queue queues[LOSSLESS_MAX_QUEUES];
};

/* Not const: 6.1's NLA_POLICY_FULL_RANGE takes a plain pointer. */
static struct netlink_range_validation ll_rate_range = {
	.min = LOSSLESS_RATE_MIN_BPS,
	.max = LOSSLESS_RATE_MAX_BPS,
};

static struct netlink_range_validation ll_burst_range = {
	.min = LOSSLESS_BURST_MIN_BYTES,
	.max = LOSSLESS_BURST_MAX_BYTES,
};

static struct netlink_range_validation ll_limit_range = {
	.min = 1,
	.max = LOSSLESS_LIMIT_MAX_PKTS,
};

static const struct nla_policy ll_policy[TCA_LOSSLESS_MAX + 1] = {
	[TCA_LOSSLESS_RATE_BPS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ll_rate_range),
	[TCA_LOSSLESS_BURST_BYTES] = NLA_POLICY_FULL_RANGE(NLA_U32, &ll_burst_range),
	[TCA_LOSSLESS_QUEUES] = NLA_POLICY_RANGE(NLA_U8, 1, LOSSLESS_MAX_QUEUES),
	[TCA_LOSSLESS_STRICT] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_MAX_QUEUES),
	[TCA_LOSSLESS_PRIOMAP] = NLA_POLICY_EXACT_LEN(LOSSLESS_PRIOMAP_LEN),
	[TCA_LOSSLESS_QUANTA] = { .type = NLA_BINARY,
				  .len = LOSSLESS_MAX_QUEUES * sizeof(u32) },
	[TCA_LOSSLESS_LIMIT_PKTS] = NLA_POLICY_FULL_RANGE(NLA_U32, &ll_limit_range),
};

static void ll_skb_head_init(struct qdisc_skb_head *qh)
{
	qh->head = NULL;
	qh->tail = NULL;
	qh->qlen = 0;
}

static bool ll_queue_is_strict(const struct ll_sched *q, u32 i)
{
	return i < q->nstrict;
}

/* Gates that stop queue i: the PFC priorities the priomap sends to it,
 * and the port gate. PFC priority p is skb->priority p (0..7).
 */
static u32 ll_gate_mask_of(const struct ll_sched *q, u32 i)
{
	u32 mask = BIT(LL_GATE_PORT);
	u32 p;

	for (p = 0; p < LL_PFC_PRIOS; p++)
		if (q->priomap[p] == i)
			mask |= BIT(p);
	return mask;
}

static u32 ll_classify(struct Qdisc *sch, const struct sk_buff *skb)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 prio = skb->priority;

	/* skb->priority of major:minor with our handle picks class minor. */
	if (TC_H_MAJ(prio) == sch->handle && TC_H_MIN(prio) &&
	    TC_H_MIN(prio) <= q->nqueues)
		return TC_H_MIN(prio) - 1;
	return q->priomap[prio & TC_PRIO_MAX];
}

static u64 ll_now_ns(void)
{
	return ktime_get_ns();
}

/* Apply a MAC control frame redirected to us by the ingress program. It is
 * validated again: the qdisc trusts no one with its gates.
 */
static void ll_apply_ctrl(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ll_sched *q = qdisc_priv(sch);
	u8 frame[LL_MAC_CTRL_FRAME_MAX_BYTES];
	struct ll_mac_ctrl m;
	u32 len = min_t(u32, skb->len, sizeof(frame));

	if (skb->len > sizeof(frame) || skb_copy_bits(skb, 0, frame, len)) {
		q->ctrl_invalid++;
		return;
	}
	frame[12] = LL_ETH_P_MAC_CONTROL >> 8;
	frame[13] = LL_ETH_P_MAC_CONTROL & 0xff;
	if (ll_mac_ctrl_parse(frame, len, &m) != LL_PARSE_OK) {
		q->ctrl_invalid++;
		return;
	}
	if (m.kind == LL_MAC_CTRL_PFC)
		q->pfc_frames_rx++;
	else
		q->pause_frames_rx++;
	ll_port_pause_rx(&q->pause, ll_now_ns(), &m, READ_ONCE(q->rate_bps));
	/* Whatever changed, the dequeue that follows this enqueue (or the
	 * watchdog) re-evaluates the gates; a closed gate just stops its
	 * queues, an opened one lets them go at once.
	 */
}

static u16 ll_frame_ethertype(const struct sk_buff *skb)
{
	__be16 type, *p;

	p = skb_header_pointer(skb, 2 * ETH_ALEN, sizeof(type), &type);
	return p ? ntohs(*p) : 0;
}

static int ll_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		      struct sk_buff **to_free)
{
	struct ll_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	u16 type = ll_frame_ethertype(skb);
	struct ll_queue *cl;

	if (type == LOSSLESS_CTRL_ETHERTYPE && skb->mark == LOSSLESS_CTRL_MARK) {
		ll_apply_ctrl(sch, skb);
		consume_skb(skb);
		return NET_XMIT_SUCCESS;
	}

	if (type == LL_ETH_P_MAC_CONTROL) {
		if (q->ctrl.qlen >= q->limit_pkts)
			return qdisc_drop(skb, sch, to_free);
		__qdisc_enqueue_tail(skb, &q->ctrl);
		goto enqueued;
	}

	cl = &q->queues[ll_classify(sch, skb)];
	if (cl->skbs.qlen >= q->limit_pkts) {
		cl->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	__qdisc_enqueue_tail(skb, &cl->skbs);
	cl->qstats.backlog += len;
	if (!ll_queue_is_strict(q, cl - q->queues) && cl->skbs.qlen == 1) {
		list_add_tail(&cl->alist, &q->active);
		cl->deficit_bytes = cl->quantum_bytes;
	}
enqueued:
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/* Pick the next data queue to serve, or NULL. Strict queues first in index
 * order, then DWRR among the active ones; closed gates are skipped without
 * touching their deficit.
 */
static struct ll_queue *ll_pick(struct ll_sched *q, u32 closed)
{
	struct ll_queue *cl;
	u32 i;

	for (i = 0; i < q->nstrict; i++) {
		cl = &q->queues[i];
		if (cl->skbs.qlen && !(cl->gate_mask & closed))
			return cl;
	}
	for (;;) {
		struct ll_queue *first = NULL;

		list_for_each_entry(cl, &q->active, alist) {
			if (!(cl->gate_mask & closed)) {
				first = cl;
				break;
			}
		}
		if (!first)
			return NULL;
		if (qdisc_pkt_len(first->skbs.head) <= first->deficit_bytes)
			return first;
		first->deficit_bytes += first->quantum_bytes;
		list_move_tail(&first->alist, &q->active);
	}
}

/* Charge the shaper for len bytes at now; on shortage return the time at
 * which it will have the credit, else 0.
 */
static u64 ll_shaper_take(struct ll_sched *q, unsigned int len, u64 now)
{
	s64 cost = psched_l2t_ns(&q->rate, len);
	s64 toks = min_t(s64, q->tokens_ns + (s64)(now - q->t_c_ns), q->buffer_ns);

	/* A frame larger than the bucket goes when the bucket is full. */
	if (toks < min(cost, q->buffer_ns))
		return now + min(cost, q->buffer_ns) - toks;
	q->tokens_ns = toks - cost;
	q->t_c_ns = now;
	return 0;
}

static struct sk_buff *ll_dequeue(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct qdisc_skb_head *head = NULL;
	struct ll_queue *cl = NULL;
	struct sk_buff *skb;
	u64 now, wait;
	u32 closed;

	if (!sch->q.qlen)
		return NULL;
	now = ll_now_ns();
	ll_port_pause_expire(&q->pause, now);
	closed = ll_port_pause_closed_mask(&q->pause);

	if (q->ctrl.qlen) {
		head = &q->ctrl;
	} else {
		cl = ll_pick(q, closed);
		if (!cl) {
			/* Backlog exists but every backlogged queue is paused:
			 * sleep until the first gate opens by itself (an XON
			 * arrives through enqueue, which runs dequeue again).
			 */
			u64 deadline = ll_port_pause_next_deadline(&q->pause);

			q->pause_blocked++;
			if (deadline)
				qdisc_watchdog_schedule_range_ns(&q->watchdog,
								 deadline,
								 LL_TIMER_SLACK_NS);
			return NULL;
		}
		head = &cl->skbs;
	}

	wait = ll_shaper_take(q, qdisc_pkt_len(head->head), now);
	if (wait) {
		q->throttled++;
		qdisc_watchdog_schedule_range_ns(&q->watchdog, wait,
						 LL_TIMER_SLACK_NS);
		return NULL;
	}

	skb = __qdisc_dequeue_head(head);
	if (cl) {
		cl->qstats.backlog -= qdisc_pkt_len(skb);
		_bstats_update(&cl->bstats, qdisc_pkt_len(skb), 1);
		if (!ll_queue_is_strict(q, cl - q->queues)) {
			cl->deficit_bytes -= qdisc_pkt_len(skb);
			if (!cl->skbs.qlen)
				list_del(&cl->alist);
		}
	}
	sch->qstats.backlog -= qdisc_pkt_len(skb);
	sch->q.qlen--;
	qdisc_bstats_update(sch, skb);
	return skb;
}

static void ll_purge_queue(struct Qdisc *sch, struct ll_queue *cl)
{
	unsigned int pkts = cl->skbs.qlen, bytes = cl->qstats.backlog;

	if (!pkts)
		return;
	if (!list_empty(&cl->alist))
		list_del_init(&cl->alist);
	rtnl_kfree_skbs(cl->skbs.head, cl->skbs.tail);
	ll_skb_head_init(&cl->skbs);
	cl->qstats.backlog = 0;
	sch->q.qlen -= pkts;
	sch->qstats.backlog -= bytes;
	qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

static void ll_reset(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);
	u64 now = ll_now_ns();
	u32 i;

	for (i = 0; i < LOSSLESS_MAX_QUEUES; i++) {
		struct ll_queue *cl = &q->queues[i];

		rtnl_kfree_skbs(cl->skbs.head, cl->skbs.tail);
		ll_skb_head_init(&cl->skbs);
		INIT_LIST_HEAD(&cl->alist);
		cl->qstats.backlog = 0;
		cl->deficit_bytes = 0;
	}
	INIT_LIST_HEAD(&q->active);
	rtnl_kfree_skbs(q->ctrl.head, q->ctrl.tail);
	ll_skb_head_init(&q->ctrl);
	sch->qstats.backlog = 0;
	sch->q.qlen = 0;
	/* A pause does not outlive a reset (e.g. link down): open all gates,
	 * keeping their counters.
	 */
	for (i = 0; i < LL_GATES; i++) {
		struct ll_pause_gate *g = &q->pause.gates[i];

		if (g->closed) {
			g->until_ns = min(g->until_ns, now);
			ll_gate_expire(g, now);
		}
	}
	q->tokens_ns = q->buffer_ns;
	q->t_c_ns = now;
	qdisc_watchdog_cancel(&q->watchdog);
}

static u64 ll_device_rate_bps(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(dev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN || !ks.base.speed)
		return 0;
	return (u64)ks.base.speed * 1000 * 1000;
}

static int ll_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct nlattr *tb[TCA_LOSSLESS_MAX + 1] = {};
	u32 quanta[LOSSLESS_MAX_QUEUES];
	u8 priomap[LOSSLESS_PRIOMAP_LEN];
	u32 frame_bytes = dev->mtu + dev->hard_header_len;
	u32 nquanta = 0, limit, burst, i;
	u8 nqueues, nstrict, old_nqueues;
	u64 rate;
	int err;

	if (opt) {
		err = nla_parse_nested(tb, TCA_LOSSLESS_MAX, opt, ll_policy,
				       extack);
		if (err < 0)
			return err;
	}

	rate = tb[TCA_LOSSLESS_RATE_BPS] ?
	       nla_get_u64(tb[TCA_LOSSLESS_RATE_BPS]) : q->rate_bps;
	if (!rate) {
		rate = ll_device_rate_bps(dev);
		if (!rate) {
			NL_SET_ERR_MSG_MOD(extack,
					   "rate is required: the device reports no link speed");
			return -EINVAL;
		}
	}
	nqueues = tb[TCA_LOSSLESS_QUEUES] ?
		  nla_get_u8(tb[TCA_LOSSLESS_QUEUES]) : q->nqueues;
	nstrict = tb[TCA_LOSSLESS_STRICT] ?
		  nla_get_u8(tb[TCA_LOSSLESS_STRICT]) : q->nstrict;
	if (nstrict > nqueues) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_LOSSLESS_STRICT],
				    "strict must not exceed the number of queues");
		return -EINVAL;
	}
	limit = tb[TCA_LOSSLESS_LIMIT_PKTS] ?
		nla_get_u32(tb[TCA_LOSSLESS_LIMIT_PKTS]) : q->limit_pkts;

	if (tb[TCA_LOSSLESS_PRIOMAP]) {
		memcpy(priomap, nla_data(tb[TCA_LOSSLESS_PRIOMAP]), sizeof(priomap));
	} else if (!tb[TCA_LOSSLESS_QUEUES]) {
		memcpy(priomap, q->priomap, sizeof(priomap));
	} else {
		/* New queue count without a map: identity, the rest to 0. */
		for (i = 0; i < LOSSLESS_PRIOMAP_LEN; i++)
			priomap[i] = i < nqueues ? i : 0;
	}
	for (i = 0; i < LOSSLESS_PRIOMAP_LEN; i++) {
		if (priomap[i] >= nqueues) {
			LL_ERR(extack,
			       "priomap maps a priority to a queue that does not exist",
			       "priomap entry %u maps to queue %u, but there are only %u queues",
			       i, priomap[i], nqueues);
			return -EINVAL;
		}
	}

	if (tb[TCA_LOSSLESS_QUANTA]) {
		int bytes = nla_len(tb[TCA_LOSSLESS_QUANTA]);

		if (bytes % sizeof(u32) || bytes / sizeof(u32) > nqueues) {
			NL_SET_ERR_MSG_ATTR(extack, tb[TCA_LOSSLESS_QUANTA],
					    "quanta must be a u32 array with at most one entry per queue");
			return -EINVAL;
		}
		nquanta = bytes / sizeof(u32);
		memcpy(quanta, nla_data(tb[TCA_LOSSLESS_QUANTA]), bytes);
		for (i = 0; i < nquanta; i++) {
			if (!quanta[i] || quanta[i] > LOSSLESS_QUANTUM_MAX_BYTES) {
				LL_ERR(extack,
				       "every quantum must be 1..16777216 bytes",
				       "quantum of queue %u must be 1..%u bytes",
				       i, LOSSLESS_QUANTUM_MAX_BYTES);
				return -EINVAL;
			}
		}
	}

	if (tb[TCA_LOSSLESS_BURST_BYTES])
		burst = nla_get_u32(tb[TCA_LOSSLESS_BURST_BYTES]);
	else if (q->burst_explicit)
		burst = q->burst_bytes;
	else	/* two full frames, or 100 us at the rate if that is more */
		burst = clamp_t(u64, div64_u64(rate * LL_BURST_DEFAULT_NS,
					       8 * NSEC_PER_SEC),
				2 * frame_bytes, LOSSLESS_BURST_MAX_BYTES);

	sch_tree_lock(sch);
	old_nqueues = q->nqueues;
	for (i = nqueues; i < old_nqueues; i++)
		ll_purge_queue(sch, &q->queues[i]);
	/* Queues that change between strict and DWRR leave or join the active
	 * list; rebuild it from the backlog.
	 */
	INIT_LIST_HEAD(&q->active);
	WRITE_ONCE(q->nqueues, nqueues);
	WRITE_ONCE(q->nstrict, nstrict);
	WRITE_ONCE(q->limit_pkts, limit);
	memcpy(q->priomap, priomap, sizeof(priomap));
	for (i = 0; i < nqueues; i++) {
		struct ll_queue *cl = &q->queues[i];

		if (i < nquanta)
			WRITE_ONCE(cl->quantum_bytes, quanta[i]);
		else if (!cl->quantum_bytes || i >= old_nqueues)
			WRITE_ONCE(cl->quantum_bytes, psched_mtu(dev));
		cl->gate_mask = ll_gate_mask_of(q, i);
		INIT_LIST_HEAD(&cl->alist);
		if (!ll_queue_is_strict(q, i) && cl->skbs.qlen) {
			list_add_tail(&cl->alist, &q->active);
			cl->deficit_bytes = cl->quantum_bytes;
		}
	}
	WRITE_ONCE(q->rate_bps, rate);
	WRITE_ONCE(q->burst_bytes, burst);
	q->burst_explicit |= !!tb[TCA_LOSSLESS_BURST_BYTES];
	psched_ratecfg_precompute(&q->rate,
				  &(struct tc_ratespec){ .linklayer = TC_LINKLAYER_ETHERNET },
				  div_u64(rate, 8));
	q->buffer_ns = psched_l2t_ns(&q->rate, burst);
	q->tokens_ns = min(q->tokens_ns, q->buffer_ns);
	sch_tree_unlock(sch);
	return 0;
}

static int ll_init(struct Qdisc *sch, struct nlattr *opt,
		   struct netlink_ext_ack *extack)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 i;
	int err;

	qdisc_watchdog_init_clockid(&q->watchdog, sch, CLOCK_MONOTONIC);
	INIT_LIST_HEAD(&q->active);
	ll_skb_head_init(&q->ctrl);
	for (i = 0; i < LOSSLESS_MAX_QUEUES; i++) {
		ll_skb_head_init(&q->queues[i].skbs);
		INIT_LIST_HEAD(&q->queues[i].alist);
		gnet_stats_basic_sync_init(&q->queues[i].bstats);
	}
	q->nqueues = LL_DEFAULT_QUEUES;
	q->limit_pkts = LL_DEFAULT_LIMIT_PKTS;
	for (i = 0; i < LOSSLESS_PRIOMAP_LEN; i++)
		q->priomap[i] = i < LL_DEFAULT_QUEUES ? i : 0;

	err = ll_change(sch, opt, extack);
	if (err)
		return err;
	q->tokens_ns = q->buffer_ns;
	q->t_c_ns = ll_now_ns();
	return 0;
}

static void ll_destroy(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	ll_reset(sch);
}

static int ll_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ll_sched *q = qdisc_priv(sch);
	u8 nqueues = READ_ONCE(q->nqueues);
	u32 quanta[LOSSLESS_MAX_QUEUES];
	struct nlattr *opts;
	u32 i;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	for (i = 0; i < nqueues; i++)
		quanta[i] = READ_ONCE(q->queues[i].quantum_bytes);
	if (nla_put_u64_64bit(skb, TCA_LOSSLESS_RATE_BPS, READ_ONCE(q->rate_bps),
			      TCA_LOSSLESS_PAD) ||
	    nla_put_u32(skb, TCA_LOSSLESS_BURST_BYTES, READ_ONCE(q->burst_bytes)) ||
	    nla_put_u8(skb, TCA_LOSSLESS_QUEUES, nqueues) ||
	    nla_put_u8(skb, TCA_LOSSLESS_STRICT, READ_ONCE(q->nstrict)) ||
	    nla_put(skb, TCA_LOSSLESS_PRIOMAP, sizeof(q->priomap), q->priomap) ||
	    nla_put(skb, TCA_LOSSLESS_QUANTA, nqueues * sizeof(u32), quanta) ||
	    nla_put_u32(skb, TCA_LOSSLESS_LIMIT_PKTS, READ_ONCE(q->limit_pkts)))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/* Called with the qdisc root lock held (gnet_stats_start_copy). */
static int ll_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct tc_lossless_xstats st = {
		.type = TC_LOSSLESS_XSTATS_QDISC,
		.pfc_frames_rx = q->pfc_frames_rx,
		.pause_frames_rx = q->pause_frames_rx,
		.ctrl_invalid = q->ctrl_invalid,
		.throttled = q->throttled,
		.pause_blocked = q->pause_blocked,
		.rate_bps = q->rate_bps,
	};
	u64 now = ll_now_ns();
	u32 i;

	ll_port_pause_expire(&q->pause, now);
	st.paused_mask = ll_port_pause_closed_mask(&q->pause);
	for (i = 0; i < LL_GATES; i++) {
		const struct ll_pause_gate *g = &q->pause.gates[i];

		st.gates[i].xoff_frames = g->xoff_frames;
		st.gates[i].xon_frames = g->xon_frames;
		st.gates[i].paused_ns = ll_gate_closed_ns(g, now);
	}
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static struct ll_queue *ll_class(struct Qdisc *sch, unsigned long arg)
{
	struct ll_sched *q = qdisc_priv(sch);

	return &q->queues[arg - 1];
}

static unsigned long ll_class_find(struct Qdisc *sch, u32 classid)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 minor = TC_H_MIN(classid);

	return minor && minor <= q->nqueues ? minor : 0;
}

static struct Qdisc *ll_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;	/* queues are internal FIFOs, not child qdiscs */
}

static int ll_class_dump(struct Qdisc *sch, unsigned long arg,
			 struct sk_buff *skb, struct tcmsg *tcm)
{
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = TC_H_MAKE(sch->handle, arg);
	tcm->tcm_info = 0;
	return 0;
}

static int ll_class_dump_stats(struct Qdisc *sch, unsigned long arg,
			       struct gnet_dump *d)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct ll_queue *cl = ll_class(sch, arg);
	u32 i = arg - 1, g, closed;
	struct tc_lossless_class_xstats st = {
		.type = TC_LOSSLESS_XSTATS_CLASS,
		.gate_mask = cl->gate_mask,
		.strict = ll_queue_is_strict(q, i),
		.quantum_bytes = cl->quantum_bytes,
		.limit_pkts = q->limit_pkts,
	};
	u64 now = ll_now_ns();

	ll_port_pause_expire(&q->pause, now);
	closed = ll_port_pause_closed_mask(&q->pause);
	st.paused = !!(cl->gate_mask & closed);
	for (g = 0; g < LL_GATES; g++) {
		if (!(cl->gate_mask & BIT(g)))
			continue;
		st.pause_frames_rx += q->pause.gates[g].xoff_frames;
		st.paused_ns += ll_gate_closed_ns(&q->pause.gates[g], now);
	}
	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &cl->qstats, cl->skbs.qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void ll_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 i;

	if (arg->stop)
		return;
	for (i = 0; i < q->nqueues; i++) {
		if (arg->count < arg->skip) {
			arg->count++;
			continue;
		}
		if (arg->fn(sch, i + 1, arg) < 0) {
			arg->stop = 1;
			break;
		}
		arg->count++;
	}
}

static const struct Qdisc_class_ops ll_class_ops = {
	.leaf		= ll_class_leaf,
	.find		= ll_class_find,
	.walk		= ll_class_walk,
	.dump		= ll_class_dump,
	.dump_stats	= ll_class_dump_stats,
};

static struct Qdisc_ops ll_qdisc_ops __read_mostly = {
	.cl_ops		= &ll_class_ops,
	.id		= "lossless",
	.priv_size	= sizeof(struct ll_sched),
	.enqueue	= ll_enqueue,
	.dequeue	= ll_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= ll_init,
	.reset		= ll_reset,
	.destroy	= ll_destroy,
	.change		= ll_change,
	.dump		= ll_dump,
	.dump_stats	= ll_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init ll_module_init(void)
{
	return register_qdisc(&ll_qdisc_ops);
}

static void __exit ll_module_exit(void)
{
	unregister_qdisc(&ll_qdisc_ops);
}

module_init(ll_module_init);
module_exit(ll_module_exit);
MODULE_AUTHOR("lossless developers");
MODULE_DESCRIPTION("Lossless Ethernet egress: PFC-gated queues, DWRR, line-rate shaper");
MODULE_LICENSE("GPL");
/* 6.1 requests "sch_<kind>", newer kernels "net-sch-<kind>". */
MODULE_ALIAS("sch_lossless");
MODULE_ALIAS("net-sch-lossless");
