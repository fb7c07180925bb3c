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
 * With "pool NAME", the qdiscs of one switch share a buffer accounted by
 * the core MMU (the pool's scheme, docs/SCHEMES.md): every packet is
 * admitted on enqueue and released on dequeue or purge, charged to its
 * ingress (port, priority) and egress (port, queue). When an ingress
 * crosses Xoff, the MMU marks a PFC frame due on that port; the port's own
 * qdisc is woken and sends it from its control band, ahead of all data,
 * and refreshes it from its watchdog until Xon.
 *
 * This file keeps the queues, the shaper and the gates; the PFC watchdog's
 * glue is lossless_watchdog.c (its core in core/watchdog.c), the state
 * both share lossless_qdisc.h. The pool is lossless_pool.c (admission, release, the PFC frames to
 * send, the plane's ops), its netlink side lossless_pool_nl.c (options,
 * dump, stats); the qdisc reaches both through its struct ll_kport, and
 * the pool calls back only through the ll_kport_ops it is given. The
 * frame codec, pause gates and MMU live in core/, shared with BPF, the
 * daemon and the tests.
 */

#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/dsfield.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "core/ctrl.h"
#include "core/headroom.h"
#include "core/pause.h"
#include "core/shaper.h"
#include "core/watchdog.h"
#include "lossless_qdisc.h"

#define LL_DEFAULT_QUEUES 8
#define LL_DEFAULT_LIMIT_PKTS 1000
#define LL_TIMER_SLACK_NS (10 * NSEC_PER_USEC)

/* Formatted extack messages arrived after 6.1; there, say it plainly. */
#ifdef NL_SET_ERR_MSG_FMT_MOD
#define LL_ERR(extack, plain, fmt, ...) \
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##__VA_ARGS__)
#else
#define LL_ERR(extack, plain, fmt, ...) NL_SET_ERR_MSG_MOD(extack, plain)
#endif

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
	[TCA_LOSSLESS_CATCHUP_BYTES] = NLA_POLICY_FULL_RANGE(NLA_U32, &ll_burst_range),
	[TCA_LOSSLESS_WATCHDOG] = NLA_POLICY_NESTED(ll_wd_policy),
	[TCA_LOSSLESS_QUEUES] = NLA_POLICY_RANGE(NLA_U8, 1, LOSSLESS_MAX_QUEUES),
	[TCA_LOSSLESS_STRICT] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_MAX_QUEUES),
	[TCA_LOSSLESS_PRIOMAP] = NLA_POLICY_EXACT_LEN(LOSSLESS_PRIOMAP_LEN),
	[TCA_LOSSLESS_QUANTA] = { .type = NLA_BINARY,
				  .len = LOSSLESS_MAX_QUEUES * sizeof(u32) },
	[TCA_LOSSLESS_LIMIT_PKTS] = NLA_POLICY_FULL_RANGE(NLA_U32, &ll_limit_range),
	[TCA_LOSSLESS_POOL] = { .type = NLA_NUL_STRING, .len = LL_POOL_NAME_LEN - 1 },
	[TCA_LOSSLESS_POOL_BYTES] = { .type = NLA_U64 },
	[TCA_LOSSLESS_ALPHA] = { .type = NLA_U32 },
	[TCA_LOSSLESS_EGRESS_ALPHA] = { .type = NLA_U32 },
	[TCA_LOSSLESS_LOSSLESS_PRIOS] = { .type = NLA_U8 },
	[TCA_LOSSLESS_RESERVED_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_XON_OFFSET_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_CABLE_DELAY_NS] = { .type = NLA_U64 },
	[TCA_LOSSLESS_SW_DELAY_NS] = { .type = NLA_U64 },
	[TCA_LOSSLESS_HEADROOM_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_ECN_KMIN_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_ECN_KMAX_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_ECN_PMAX] = { .type = NLA_U32 },	/* checked by the core */
	[TCA_LOSSLESS_PLANE_FD] = { .type = NLA_U32 },
	[TCA_LOSSLESS_PLANE_ID] = { .type = NLA_REJECT,
				    .reject_message = "plane id is read-only; give a map fd" },
	[TCA_LOSSLESS_SCHEME] = NLA_POLICY_NESTED(ll_scheme_policy),
	[TCA_LOSSLESS_MODE] = NLA_POLICY_NESTED(ll_mode_policy),
	[TCA_LOSSLESS_BACKLOG_NEED] = { .type = NLA_REJECT,
					.reject_message = "backlog need is read-only" },
	[TCA_LOSSLESS_GATES] = { .type = NLA_BINARY,
				 .len = LOSSLESS_MAX_QUEUES * sizeof(u32) },
	[TCA_LOSSLESS_ECN_MODE] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_ECN_MODE_NP_ECN),
	[TCA_LOSSLESS_NP_ECN_K_BYTES] = { .type = NLA_U32 },
	[TCA_LOSSLESS_SCHEME_PORT] = NLA_POLICY_MAX(NLA_U8, LL_MMU_MAX_PORTS - 1),
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

/* Gates that stop queue i: the configuration's (TCA_LOSSLESS_GATES), or
 * the PFC priorities the priomap sends to it and the port gate. PFC
 * priority p is skb->priority p (0..7).
 */
/* The packet a queue would send next, or NULL: a child may hold packets
 * none of which is due yet (sch_fq's earliest departure times); its own
 * watchdog schedules the root again when one is.
 */
static struct sk_buff *ll_queue_peek(struct ll_queue *cl)
{
	if (cl->child)
		return cl->child->ops->peek(cl->child);
	return cl->skbs.head;
}

static u32 ll_gate_mask_of(const struct ll_sched *q, u32 i)
{
	u32 mask = BIT(LL_GATE_PORT);
	u32 p;

	if (q->queues[i].gate_cfg)
		return q->queues[i].gate_cfg;
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

u64 ll_now_ns(void)
{
	return ktime_get_ns();
}

/* NP-ECN's PN (pcn.md 2.1): a queue whose gates closed is paused; one
 * whose gates all opened again (a RESUME, or the pause's end) exempts
 * the packets it holds now from marking.
 */
static void ll_np_ecn_gates(struct ll_sched *q, u32 was_closed)
{
	u32 i;

	for (i = 0; i < q->nqueues; i++) {
		struct ll_queue *cl = &q->queues[i];
		bool was = cl->gate_mask & was_closed;
		bool is = cl->gate_mask & q->closed_mask;

		if (is && !was)
			ll_pcn_cp_pause(&cl->pcn);
		else if (was && !is)
			ll_pcn_cp_resume(&cl->pcn, ll_queue_qlen(cl));
	}
}

/* Recompute the gate cache after the gates changed. */
void ll_gates_refresh(struct ll_sched *q)
{
	u32 was_closed = q->closed_mask;

	q->closed_mask = ll_port_pause_closed_mask(&q->pause);
	q->next_open_ns = ll_port_pause_next_deadline(&q->pause);
	/* In every mode: np-ecn switched on during a pause still knows it. */
	if (unlikely(was_closed != q->closed_mask))
		ll_np_ecn_gates(q, was_closed);
}

/* NP-ECN at dequeue (pcn.md 2.1, A1): skb left cl, whose backlog no
 * longer counts it.
 */
static void ll_np_ecn_dequeue(struct ll_sched *q, struct ll_queue *cl,
			      struct sk_buff *skb)
{
	int ds = skb_get_dsfield(skb);
	u8 ecn = ds < 0 ? LL_ECN_NOT_ECT : ds & INET_ECN_MASK;
	bool lossless = ll_kport_lossless(&q->port, skb->priority);

	switch (ll_pcn_cp_dequeue(&cl->pcn, lossless, cl->qstats.backlog,
				  ll_kport_np_ecn_k(&q->port), ecn)) {
	case LL_PCN_CP_MARK:
		if (INET_ECN_set_ce(skb))
			cl->np_ecn_marked++;
		break;
	case LL_PCN_CP_EXEMPT_PN:
		cl->np_ecn_exempt++;
		break;
	case LL_PCN_CP_NOT_ECT:
		cl->np_ecn_not_ect++;
		break;
	default:
		break;
	}
}

/* Closed gates at now. With no pause in force (the common case) this is
 * one test, not a walk over the nine gates.
 */
u32 ll_gates_closed(struct ll_sched *q, u64 now)
{
	if (q->closed_mask && now >= q->next_open_ns) {
		ll_port_pause_expire(&q->pause, now);
		ll_gates_refresh(q);
	}
	/* A priority in PFC storm under forward or drop is not honoured. */
	return q->closed_mask & ~q->wd_ignore_mask;
}

/* A credit frame (TOKENS): its link credit is split among the priorities
 * it names in our service order (queues by index, strict ones first),
 * each share bounded by what the priority's queue holds now (Alg. 3).
 */
static void ll_apply_credit(struct ll_sched *q, const struct ll_ctrl_msg *m,
			    u64 now)
{
	u64 backlog[LL_CREDIT_GATES] = {};
	u8 order[LL_CREDIT_GATES];
	u32 i, p, n = 0, seen = 0;

	for (i = 0; i < q->nqueues; i++) {
		const struct ll_queue *cl = &q->queues[i];

		for (p = 0; p < LL_CREDIT_GATES; p++) {
			if (!(cl->gate_mask & BIT(p)) || (seen & BIT(p)))
				continue;
			seen |= BIT(p);
			order[n++] = p;
			backlog[p] = cl->qstats.backlog;
		}
	}
	ll_port_credit_rx(&q->credit, now, m, READ_ONCE(q->rate_bps), order, n,
			  backlog);
}

/* Apply a MAC control frame redirected to us by the ingress program. It is
 * validated again: the qdisc trusts no one with its gates.
 */
static void ll_apply_ctrl(struct Qdisc *sch, struct sk_buff *skb, u16 type)
{
	struct ll_sched *q = qdisc_priv(sch);
	u8 frame[LL_MAC_CTRL_FRAME_MAX_BYTES];
	struct ll_ctrl_msg m;
	u32 len = min_t(u32, skb->len, sizeof(frame));
	u64 now;

	if (skb->len > sizeof(frame) || skb_copy_bits(skb, 0, frame, len)) {
		q->ctrl_invalid++;
		return;
	}
	/* The ingress program hid the MAC control EtherType only. */
	if (type == LOSSLESS_CTRL_ETHERTYPE) {
		frame[12] = LL_ETH_P_MAC_CONTROL >> 8;
		frame[13] = LL_ETH_P_MAC_CONTROL & 0xff;
	}
	/* To 01-80-C2-00-00-01 or to this port's own address (802.3 31B). */
	if (ll_ctrl_parse(frame, len, qdisc_dev(sch)->dev_addr, &m) !=
	    LL_PARSE_OK) {
		q->ctrl_invalid++;
		return;
	}
	now = ll_now_ns();
	if (ll_ctrl_kind(m.kind)->credit) {
		ll_apply_credit(q, &m, now);
		return;
	}
	if (m.kind == LL_CTRL_PFC)
		q->pfc_frames_rx++;
	else
		q->pause_frames_rx++;
	ll_port_pause_rx(&q->pause, now, &m, READ_ONCE(q->rate_bps));
	/* A pause frame for a metered priority: its downstream speaks PFC
	 * again, the newest frame wins (pause.h).
	 */
	if (m.kind == LL_CTRL_PFC && unlikely(q->credit.metered))
		ll_port_credit_end(&q->credit, m.gate_mask);
	ll_gates_refresh(q);
	if (m.kind == LL_CTRL_PFC && ll_wd_enabled(&q->wd.cfg)) {
		u32 p, xoff = 0;

		for (p = 0; p < LL_PFC_PRIOS; p++)
			if ((m.gate_mask & BIT(p)) && m.value[p])
				xoff |= BIT(p);
		ll_wd_xoff_rx(&q->wd, xoff, now);
	}
	/* Whatever changed, the dequeue that follows this enqueue (or the
	 * watchdog) re-evaluates the gates; a closed gate just stops its
	 * queues, an opened one lets them go at once.
	 */
}

/* Queue the pause frames the pool built for this port
 * (ll_kport_xoff_frames()) in the control band, ahead of all data.
 */
static void ll_ctrl_queue_frames(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct sk_buff *next;

	for (; skb; skb = next) {
		next = skb->next;
		qdisc_skb_cb(skb)->pkt_len = skb->len;
		__qdisc_enqueue_tail(skb, &q->ctrl);
		sch->qstats.backlog += skb->len;
		sch->q.qlen++;
	}
}

static u16 ll_frame_ethertype(const struct sk_buff *skb)
{
	__be16 type, *p;

	p = skb_header_pointer(skb, 2 * ETH_ALEN, sizeof(type), &type);
	return p ? ntohs(*p) : 0;
}

/* In a pool, the MMU bounds a lossless priority in bytes and pauses its
 * upstream before it fills: the packet limit must not drop what the MMU
 * is keeping lossless. It still bounds lossy priorities and plain ports.
 */
static bool ll_limit_exempt(const struct ll_sched *q, const struct sk_buff *skb)
{
	return ll_kport_lossless(&q->port, skb->priority);
}

/* Into cl's child qdisc (host ports: no pool, no MMU charge). */
static int ll_enqueue_child(struct Qdisc *sch, struct ll_queue *cl,
			    struct sk_buff *skb, struct sk_buff **to_free)
{
	struct ll_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int err;

	err = qdisc_enqueue(skb, cl->child, to_free);
	if (unlikely(err != NET_XMIT_SUCCESS)) {
		if (net_xmit_drop_count(err)) {
			cl->qstats.drops++;
			qdisc_qstats_drop(sch);
		}
		return err;
	}
	if (!ll_queue_is_strict(q, cl - q->queues) && list_empty(&cl->alist)) {
		list_add_tail(&cl->alist, &q->active);
		cl->deficit_bytes = cl->quantum_bytes;
	}
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

static int ll_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		      struct sk_buff **to_free)
{
	struct ll_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	u16 type = ll_frame_ethertype(skb);
	struct ll_queue *cl;

	/* A data packet pays the EtherType's three compares, nothing more. */
	if (unlikely(type == LOSSLESS_CTRL_ETHERTYPE || ll_ctrl_ethertype(type))) {
		/*
		 * From the ingress program: a received control frame to apply
		 * (MAC control ones under the hidden EtherType; 0x8808 itself
		 * is a frame this host sends).
		 */
		if (skb->mark == LOSSLESS_CTRL_MARK &&
		    type != LL_ETH_P_MAC_CONTROL) {
			ll_apply_ctrl(sch, skb, type);
			consume_skb(skb);
			return NET_XMIT_SUCCESS;
		}
		/* A control frame this host sends: the control band. */
		if (type != LOSSLESS_CTRL_ETHERTYPE) {
			if (q->ctrl.qlen >= q->limit_pkts)
				return qdisc_drop(skb, sch, to_free);
			__qdisc_enqueue_tail(skb, &q->ctrl);
			goto enqueued;
		}
	}

	cl = &q->queues[ll_classify(sch, skb)];
	if (unlikely(cl->gate_mask & q->wd_drop_mask)) {
		/* PFC storm, action drop: not a lossless drop of the MMU. */
		q->wd.prio[__ffs(cl->gate_mask & q->wd_drop_mask)].dropped++;
		cl->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (cl->child)
		return ll_enqueue_child(sch, cl, skb, to_free);
	if (cl->skbs.qlen >= q->limit_pkts && !ll_limit_exempt(q, skb)) {
		cl->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	if (q->port.pool) {
		if (!ll_kport_admit(&q->port, skb, cl - q->queues, len)) {
			cl->qstats.drops++;
			return qdisc_drop(skb, sch, to_free);
		}
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

/* Pick the next data queue to serve and its next packet (*next), or NULL.
 * Strict queues first in index order, then DWRR among the active ones;
 * closed gates are skipped without touching their deficit, and so are
 * children holding no packet that is due (*held is set then).
 */
static struct ll_queue *ll_pick(struct ll_sched *q, u32 closed,
				struct sk_buff **next, bool *held)
{
	u64 waiting = 0;	/* children whose packets are not due */
	struct ll_queue *cl;
	u32 i;

	for (i = 0; i < q->nstrict; i++) {
		cl = &q->queues[i];
		if (!ll_queue_qlen(cl) || (cl->gate_mask & closed))
			continue;
		*next = ll_queue_peek(cl);
		if (*next)
			return cl;
		*held = true;
	}
	for (;;) {
		struct ll_queue *first = NULL;

		list_for_each_entry(cl, &q->active, alist) {
			if (!(cl->gate_mask & closed) &&
			    !(waiting & BIT_ULL(cl - q->queues))) {
				first = cl;
				break;
			}
		}
		if (!first)
			return NULL;
		*next = ll_queue_peek(first);
		if (!*next) {
			waiting |= BIT_ULL(first - q->queues);
			*held = true;
			continue;
		}
		if (qdisc_pkt_len(*next) <= first->deficit_bytes)
			return first;
		first->deficit_bytes += first->quantum_bytes;
		list_move_tail(&first->alist, &q->active);
	}
}

/* The first dequeue at or after the wake-up asked of the watchdog: how
 * late it runs (timer, softirq, qdisc run) is what the catch-up bound and
 * the headroom's software delay must cover.
 */
static void ll_wake_record(struct ll_sched *q, u64 now)
{
	u64 late;

	if (!q->wake_ns || now < q->wake_ns)
		return;
	late = now - q->wake_ns;
	q->wake_ns = 0;
	q->wake_late[ll_lateness_bucket(late)]++;
	if (late > q->wake_late_max_ns)
		q->wake_late_max_ns = late;
}

/* Whether cl may send on its metered gates; leases end here. */
static bool ll_credit_fits(struct ll_sched *q, struct ll_queue *cl, u64 now)
{
	if (ll_port_credit_expire(&q->credit, now) &&
	    !(cl->gate_mask & q->credit.metered))
		return true;
	return ll_port_credit_fits(&q->credit, cl->gate_mask, now);
}

static struct sk_buff *ll_dequeue(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct sk_buff *skb, *frames, *next = NULL;
	struct ll_queue *cl = NULL;
	u64 now, wait, wake = LL_MMU_NEVER;
	bool held = false;
	u32 closed;

	/* Nothing queued and no PFC frame possibly due: the common empty
	 * call after the last packet costs no clock read.
	 */
	if (!sch->q.qlen && ll_kport_xoff_idle(&q->port)) {
		q->wake_ns = 0;		/* as below: no wake-up is due */
		return NULL;
	}
	now = ll_now_ns();
	ll_wake_record(q, now);
	if (q->port.pool) {
		wake = ll_kport_xoff_frames(&q->port, now, &frames);
		ll_ctrl_queue_frames(sch, frames);
	}
	if (!sch->q.qlen)
		goto idle;
	closed = ll_gates_closed(q, now);

	if (q->ctrl.qlen) {
		next = q->ctrl.head;
	} else {
		cl = ll_pick(q, closed, &next, &held);
		/* A metered queue sends within its credit only (pause.h). */
		while (unlikely(cl && (cl->gate_mask & q->credit.metered)) &&
		       !ll_credit_fits(q, cl, now)) {
			closed |= cl->gate_mask & q->credit.metered;
			cl = ll_pick(q, closed, &next, &held);
		}
		if (!cl) {
			/* Backlog exists but every backlogged queue is paused
			 * (or a child's packets are not due: its watchdog
			 * wakes us): sleep until the first gate opens by
			 * itself (an XON arrives through enqueue, which runs
			 * dequeue again).
			 */
			if (!held)
				q->pause_blocked++;
			if (q->next_open_ns)
				wake = min(wake, q->next_open_ns);
			/* Metering without a downstream ends at its lease;
			 * new credit arrives through enqueue.
			 */
			if (q->credit.metered)
				wake = min(wake, ll_port_credit_next_deadline(
							 &q->credit));
			ll_shaper_idle(&q->shaper, now);
			goto idle;
		}
	}

	wait = ll_shaper_take(&q->shaper, qdisc_pkt_len(next), now);
	if (wait) {
		q->throttled++;
		wake = min(wake, wait);
		goto idle;
	}

	if (!cl)
		skb = __qdisc_dequeue_head(&q->ctrl);
	else if (cl->child)
		skb = qdisc_dequeue_peeked(cl->child);
	else
		skb = __qdisc_dequeue_head(&cl->skbs);
	if (cl) {
		if (unlikely(cl->gate_mask & q->credit.metered))
			ll_port_credit_charge(&q->credit, cl->gate_mask,
					      qdisc_pkt_len(skb));
		if (!cl->child)		/* a child keeps its own backlog */
			cl->qstats.backlog -= qdisc_pkt_len(skb);
		if (ll_kport_np_ecn(&q->port))
			ll_np_ecn_dequeue(q, cl, skb);
		_bstats_update(&cl->bstats, qdisc_pkt_len(skb), 1);
		if (!ll_queue_is_strict(q, cl - q->queues)) {
			cl->deficit_bytes -= qdisc_pkt_len(skb);
			if (!ll_queue_qlen(cl))
				list_del_init(&cl->alist);
		}
		ll_kport_release(&q->port, skb, now);
	}
	sch->qstats.backlog -= qdisc_pkt_len(skb);
	sch->q.qlen--;
	if (!sch->q.qlen)
		ll_shaper_idle(&q->shaper, now);
	qdisc_bstats_update(sch, skb);
	return skb;

idle:
	if (!sch->q.qlen && q->shaper.busy)
		ll_shaper_idle(&q->shaper, now);
	if (wake != LL_MMU_NEVER) {
		q->wake_ns = max(wake, now);
		qdisc_watchdog_schedule_range_ns(&q->watchdog, q->wake_ns,
						 LL_TIMER_SLACK_NS);
	} else {
		/* Nothing to wake for: a timer still armed for an earlier
		 * deadline (a scheme's window that no longer matters) fires
		 * for nothing, and is no late wake-up when the qdisc next
		 * runs, maybe seconds later.
		 */
		q->wake_ns = 0;
	}
	return NULL;
}

/* Empty a queue, releasing its MMU charges. Under RTNL (tc change) the
 * packets are freed after the lock, as qdiscs do; from the watchdog timer
 * (softirq) they are dropped at once and counted as drops.
 */
void ll_purge_queue(struct Qdisc *sch, struct ll_queue *cl, bool rtnl)
{
	unsigned int pkts = ll_queue_qlen(cl), bytes = cl->qstats.backlog;
	struct ll_sched *q = qdisc_priv(sch);

	if (!pkts)
		return;
	if (!list_empty(&cl->alist))
		list_del_init(&cl->alist);
	if (cl->child) {
		/* Reset it; the tree's counters (ours too) follow, drops
		 * counted.
		 */
		if (!rtnl)
			cl->qstats.drops += pkts;
		qdisc_purge_queue(cl->child);
		goto purged;
	}
	ll_kport_release_list(&q->port, cl->skbs.head);
	if (rtnl) {
		rtnl_kfree_skbs(cl->skbs.head, cl->skbs.tail);
	} else {
		kfree_skb_list(cl->skbs.head);
		cl->qstats.drops += pkts;
		sch->qstats.drops += pkts;
	}
	ll_skb_head_init(&cl->skbs);
	cl->qstats.backlog = 0;
	sch->q.qlen -= pkts;
	sch->qstats.backlog -= bytes;
	qdisc_tree_reduce_backlog(sch, pkts, bytes);
purged:
	ll_pcn_cp_drop(&cl->pcn, 0);
	if (!sch->q.qlen)
		ll_shaper_idle(&q->shaper, ll_now_ns());
}

/* The qdisc's part of its plane port slot (ll_kport_ops): under the pool
 * lock, not ours.
 */
static void ll_port_plane(struct ll_kport *port, struct lossless_plane_port *out,
			  u64 now)
{
	struct ll_sched *q = container_of(port, struct ll_sched, port);
	struct Qdisc *sch = q->sch;
	u32 i;

	/* Counters the qdisc writes under its own lock: telemetry reads. */
	out->paused_mask = READ_ONCE(q->closed_mask);
	out->rate_bps = READ_ONCE(q->rate_bps);
	out->tx_packets = u64_stats_read(&sch->bstats.packets);
	out->tx_bytes = u64_stats_read(&sch->bstats.bytes);
	out->qdisc_drops = READ_ONCE(sch->qstats.drops);
	out->pfc_frames_rx = READ_ONCE(q->pfc_frames_rx);
	out->pause_frames_rx = READ_ONCE(q->pause_frames_rx);
	out->catchup_bytes = READ_ONCE(q->catchup_bytes);
	out->shaper_lost_ns = READ_ONCE(q->shaper.lost_ns);
	out->wake_late_max_ns = READ_ONCE(q->wake_late_max_ns);
	for (i = 0; i < LOSSLESS_LATENESS_BUCKETS; i++)
		out->wake_late[i] = READ_ONCE(q->wake_late[i]);
	ll_wd_stats(q, now, &out->wd_action, &out->wd_storm_mask,
		    &out->wd_alarm_mask, out->wd);
}

static u32 ll_port_catchup(const struct ll_kport *port)
{
	const struct ll_sched *q = container_of(port, struct ll_sched, port);

	return READ_ONCE(q->catchup_bytes);
}

static const struct ll_kport_ops ll_kport_ops = {
	.plane_port	= ll_port_plane,
	.catchup_bytes	= ll_port_catchup,
};

static void ll_reset(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);
	u64 now = ll_now_ns();
	u32 i;

	for (i = 0; i < LOSSLESS_MAX_QUEUES; i++) {
		struct ll_queue *cl = &q->queues[i];

		ll_kport_release_list(&q->port, cl->skbs.head);
		rtnl_kfree_skbs(cl->skbs.head, cl->skbs.tail);
		ll_skb_head_init(&cl->skbs);
		if (cl->child)
			qdisc_reset(cl->child);
		INIT_LIST_HEAD(&cl->alist);
		cl->qstats.backlog = 0;
		cl->deficit_bytes = 0;
		ll_pcn_cp_reset(&cl->pcn);
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
	ll_gates_refresh(q);
	/* Nor does a downstream's metering: its next TOKENS frame restarts
	 * it.
	 */
	ll_port_credit_end(&q->credit, q->credit.metered);
	ll_shaper_reset(&q->shaper, now);
	q->wake_ns = 0;
	qdisc_watchdog_cancel(&q->watchdog);
	/* Nor does what the port told its upstream, whose own reset ended
	 * the pause: a mode starts over (bifrost.md 5), a pause still wanted
	 * is told again at the next arrival.
	 */
	ll_kport_restart(&q->port, now);
}

static u64 ll_device_rate_bps(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(dev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN || !ks.base.speed)
		return 0;
	return (u64)ks.base.speed * 1000 * 1000;
}

/* A u32 per queue (quanta, gates): its entries into out; the count (0
 * without the attribute), or -EINVAL for more than nqueues or a length
 * that is no multiple of 4.
 */
static int ll_queue_array(const struct nlattr *attr, u8 nqueues, u32 *out)
{
	int bytes;

	if (!attr)
		return 0;
	bytes = nla_len(attr);
	if (bytes % sizeof(u32) || bytes / sizeof(u32) > nqueues)
		return -EINVAL;
	memcpy(out, nla_data(attr), bytes);
	return bytes / sizeof(u32);
}

static int ll_change(struct Qdisc *sch, struct nlattr *opt,
		     struct netlink_ext_ack *extack)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	struct nlattr *tb[TCA_LOSSLESS_MAX + 1] = {};
	u32 quanta[LOSSLESS_MAX_QUEUES], gates[LOSSLESS_MAX_QUEUES];
	u8 priomap[LOSSLESS_PRIOMAP_LEN];
	u32 frame_bytes = dev->mtu + dev->hard_header_len;
	u32 nquanta = 0, ngates = 0, limit, burst, catchup, i;
	struct ll_wd_config wd_cfg;
	u64 wd_poll_ns = 0;
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
		  nla_get_u8(tb[TCA_LOSSLESS_QUEUES]) :
		  (q->nqueues ?: LL_DEFAULT_QUEUES);
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

	err = ll_queue_array(tb[TCA_LOSSLESS_QUANTA], nqueues, quanta);
	if (err < 0) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_LOSSLESS_QUANTA],
				    "quanta must be a u32 array with at most one entry per queue");
		return err;
	}
	nquanta = err;
	for (i = 0; i < nquanta; i++) {
		if (!quanta[i] || quanta[i] > LOSSLESS_QUANTUM_MAX_BYTES) {
			LL_ERR(extack,
			       "every quantum must be 1..16777216 bytes",
			       "quantum of queue %u must be 1..%u bytes",
			       i, LOSSLESS_QUANTUM_MAX_BYTES);
			return -EINVAL;
		}
	}

	BUILD_BUG_ON(LL_GATES != LOSSLESS_GATE_IDS);
	BUILD_BUG_ON(LL_GATE_PORT != LOSSLESS_GATE_PORT);
	err = ll_queue_array(tb[TCA_LOSSLESS_GATES], nqueues, gates);
	if (err < 0) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_LOSSLESS_GATES],
				    "gates must be a u32 array with at most one entry per queue");
		return err;
	}
	ngates = err;
	for (i = 0; i < ngates; i++) {
		if (gates[i] >> LL_GATES) {
			LL_ERR(extack,
			       "a gate mask names a gate above 23",
			       "gate mask 0x%x of queue %u names a gate above %u",
			       gates[i], i, LL_GATES - 1);
			return -EINVAL;
		}
	}

	if (tb[TCA_LOSSLESS_BURST_BYTES])
		burst = nla_get_u32(tb[TCA_LOSSLESS_BURST_BYTES]);
	else if (q->burst_explicit)
		burst = q->burst_bytes;
	else	/* two full frames, or 100 us at the rate if that is more */
		burst = ll_shaper_default_burst_bytes(rate, frame_bytes);
	if (tb[TCA_LOSSLESS_CATCHUP_BYTES])
		catchup = nla_get_u32(tb[TCA_LOSSLESS_CATCHUP_BYTES]);
	else if (q->catchup_explicit)
		catchup = q->catchup_bytes;
	else	/*
		 * sw-delay at the rate (core/shaper.h): sw-delay is how late
		 * this machine's software may run (timers, softirqs), which
		 * the headroom already assumes; a wake-up that late then
		 * costs no rate. Under QEMU TCG the latest wake-up per test
		 * run was 5-40 ms (the tests set sw-delay 60ms there);
		 * docs/CONFIGURATION.md, "Shaper".
		 */
		catchup = ll_shaper_default_catchup_bytes(rate,
				tb[TCA_LOSSLESS_SW_DELAY_NS] ?
				nla_get_u64(tb[TCA_LOSSLESS_SW_DELAY_NS]) :
				q->port.cfg.sw_response_ns, burst);
	/* Below the burst it would mean nothing: the bucket holds that. */
	catchup = max(catchup, burst);

	if (tb[TCA_LOSSLESS_WATCHDOG]) {
		err = ll_wd_parse(q, tb[TCA_LOSSLESS_WATCHDOG], &wd_cfg,
				  &wd_poll_ns, extack);
		if (err)
			return err;
	}

	for (i = nqueues; i < q->nqueues; i++) {
		if (q->queues[i].child) {
			LL_ERR(extack,
			       "a queue to remove has a child qdisc: delete it first",
			       "queue %u (class %x:%x) has a child qdisc: delete it first",
			       i, TC_H_MAJ(sch->handle) >> 16, i + 1);
			return -EBUSY;
		}
	}

	/* nqueues is 0 until init's ll_change() has succeeded. */
	err = ll_kport_change(&q->port, tb, rate, catchup, !q->nqueues, extack);
	if (err)
		return err;

	sch_tree_lock(sch);
	old_nqueues = q->nqueues;
	for (i = nqueues; i < old_nqueues; i++)
		ll_purge_queue(sch, &q->queues[i], true);
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
		if (tb[TCA_LOSSLESS_GATES])
			WRITE_ONCE(cl->gate_cfg, i < ngates ? gates[i] : 0);
		else if (i >= old_nqueues)
			WRITE_ONCE(cl->gate_cfg, 0);
		cl->gate_mask = ll_gate_mask_of(q, i);
		INIT_LIST_HEAD(&cl->alist);
		if (!ll_queue_is_strict(q, i) && ll_queue_qlen(cl)) {
			list_add_tail(&cl->alist, &q->active);
			cl->deficit_bytes = cl->quantum_bytes;
		}
	}
	WRITE_ONCE(q->rate_bps, rate);
	WRITE_ONCE(q->burst_bytes, burst);
	WRITE_ONCE(q->catchup_bytes, catchup);
	q->burst_explicit |= !!tb[TCA_LOSSLESS_BURST_BYTES];
	q->catchup_explicit |= !!tb[TCA_LOSSLESS_CATCHUP_BYTES];
	ll_shaper_config(&q->shaper, rate, burst, catchup);
	if (tb[TCA_LOSSLESS_WATCHDOG])
		ll_wd_apply(q, &wd_cfg, wd_poll_ns);
	sch_tree_unlock(sch);
	ll_kport_check_backlog(&q->port, extack);
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
	q->limit_pkts = LL_DEFAULT_LIMIT_PKTS;
	q->sch = sch;
	ll_kport_init(&q->port, sch, &ll_kport_ops);
	timer_setup(&q->wd_timer, ll_wd_timer, 0);
	q->wd.cfg.detect_ns = LOSSLESS_WD_DETECT_DEFAULT_NS;
	q->wd.cfg.restore_ns = LOSSLESS_WD_RESTORE_DEFAULT_NS;
	q->wd_poll_ns = LOSSLESS_WD_POLL_DEFAULT_NS;
	for (i = 0; i < LOSSLESS_PRIOMAP_LEN; i++)
		q->priomap[i] = i < LL_DEFAULT_QUEUES ? i : 0;

	err = ll_change(sch, opt, extack);
	if (err)
		return err;
	ll_shaper_reset(&q->shaper, ll_now_ns());
	return 0;
}

static void ll_destroy(struct Qdisc *sch)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 i;

	/* The timer re-arms only while enabled: turn it off, then wait. */
	WRITE_ONCE(q->wd.cfg.action, LL_WD_OFF);
	WRITE_ONCE(q->wd.cfg.xoff_alarm_ns, 0);
	del_timer_sync(&q->wd_timer);

	qdisc_watchdog_cancel(&q->watchdog);
	local_bh_disable();	/* ll_reset() takes the pool lock without _bh */
	ll_reset(sch);
	local_bh_enable();
	for (i = 0; i < LOSSLESS_MAX_QUEUES; i++)
		qdisc_put(q->queues[i].child);
	ll_kport_leave(&q->port);
}

static int ll_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct ll_sched *q = qdisc_priv(sch);
	u8 nqueues = READ_ONCE(q->nqueues);
	u32 quanta[LOSSLESS_MAX_QUEUES], gates[LOSSLESS_MAX_QUEUES];
	struct nlattr *opts;
	bool gates_set = false;
	u32 i;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	for (i = 0; i < nqueues; i++) {
		quanta[i] = READ_ONCE(q->queues[i].quantum_bytes);
		gates[i] = READ_ONCE(q->queues[i].gate_cfg);
		gates_set |= !!gates[i];
	}
	if (nla_put_u64_64bit(skb, TCA_LOSSLESS_RATE_BPS, READ_ONCE(q->rate_bps),
			      TCA_LOSSLESS_PAD) ||
	    nla_put_u32(skb, TCA_LOSSLESS_BURST_BYTES, READ_ONCE(q->burst_bytes)) ||
	    nla_put_u32(skb, TCA_LOSSLESS_CATCHUP_BYTES, READ_ONCE(q->catchup_bytes)) ||
	    nla_put_u8(skb, TCA_LOSSLESS_QUEUES, nqueues) ||
	    nla_put_u8(skb, TCA_LOSSLESS_STRICT, READ_ONCE(q->nstrict)) ||
	    nla_put(skb, TCA_LOSSLESS_PRIOMAP, sizeof(q->priomap), q->priomap) ||
	    nla_put(skb, TCA_LOSSLESS_QUANTA, nqueues * sizeof(u32), quanta) ||
	    nla_put_u32(skb, TCA_LOSSLESS_LIMIT_PKTS, READ_ONCE(q->limit_pkts)))
		goto nla_put_failure;
	/* Only a map someone set: the default is the priomap's. */
	if (gates_set &&
	    nla_put(skb, TCA_LOSSLESS_GATES, nqueues * sizeof(u32), gates))
		goto nla_put_failure;
	if (q->port.pool && ll_kport_dump(&q->port, skb))
		goto nla_put_failure;
	if (ll_wd_dump(q, skb))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/* The xstats, once: TCA_STATS_APP in the TCA_STATS2 nest, as sch_cake
 * writes its own. gnet_stats_copy_app() would also copy them into
 * TCA_XSTATS for tc before 2.6.x, and the double copy once left the
 * scheme's block out of a fresh socket's NLMSG_GOODSIZE skb.
 */
static int ll_put_xstats(struct gnet_dump *d, const void *st, int len)
{
	if (!d->tail)	/* no TCA_STATS2 nest: the old layout only */
		return gnet_stats_copy_app(d, (void *)st, len);
	return nla_put_64bit(d->skb, TCA_STATS_APP, len, st, d->padattr);
}

/* Since 4.15 tc dumps stats without the qdisc lock: take it, as sch_fq
 * does, for a consistent snapshot (the gates expire here too). The dump
 * runs in process context under RTNL; the xstats (2 KiB) are too big for
 * the stack.
 */
static int ll_fill_xstats(struct Qdisc *sch, struct tc_lossless_xstats *st)
{
	struct ll_sched *q = qdisc_priv(sch);
	u64 now;
	u32 i;

	st->type = TC_LOSSLESS_XSTATS_QDISC;
	sch_tree_lock(sch);
	now = ll_now_ns();
	st->pfc_frames_rx = q->pfc_frames_rx;
	st->pause_frames_rx = q->pause_frames_rx;
	st->ctrl_invalid = q->ctrl_invalid;
	st->throttled = q->throttled;
	st->pause_blocked = q->pause_blocked;
	st->rate_bps = q->rate_bps;
	st->catchup_bytes = q->catchup_bytes;
	st->shaper_lost_ns = q->shaper.lost_ns;
	st->wake_late_max_ns = q->wake_late_max_ns;
	BUILD_BUG_ON(LOSSLESS_LATENESS_BUCKETS != LL_LATENESS_BUCKETS);
	memcpy(st->wake_late, q->wake_late, sizeof(st->wake_late));
	ll_wd_stats(q, now, &st->wd_action, &st->wd_storm_mask,
		    &st->wd_alarm_mask, st->wd);
	ll_port_pause_expire(&q->pause, now);
	ll_gates_refresh(q);
	st->paused_mask = q->closed_mask;
	/* The PFC and port gates; the free ones show in the class stats. */
	BUILD_BUG_ON(LOSSLESS_GATES > LL_GATES);
	for (i = 0; i < LOSSLESS_GATES; i++) {
		const struct ll_pause_gate *g = &q->pause.gates[i];

		st->gates[i].xoff_frames = g->xoff_frames;
		st->gates[i].xon_frames = g->xon_frames;
		st->gates[i].paused_ns = ll_gate_closed_ns(g, now);
	}
	if (q->port.pool)
		ll_kport_xstats(&q->port, st, now);
	sch_tree_unlock(sch);
	/* Sent once and whole (ll_put_xstats()), with the options it must
	 * fit a fresh socket's first NLMSG_GOODSIZE skb (3776 with 4 KiB
	 * pages): 2064 B with a mode's per-priority values and the premise,
	 * in a message of 2524 B for a Bifrost port (test_bifrost, 2484 B
	 * before the premise); room for blocks to come.
	 */
	BUILD_BUG_ON(sizeof(*st) > 2112);
	/* A pool member sends the premise at the end, so every part. */
	if (st->mode.mode || q->port.pool)
		return sizeof(*st);
	if (st->sch.scheme)
		return offsetof(typeof(*st), mode);
	if (!ll_wd_reported(q, st))
		return offsetof(typeof(*st), wd_action);
	return offsetof(typeof(*st), sch);
}

static int ll_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct tc_lossless_xstats *st = kzalloc(sizeof(*st), GFP_KERNEL);
	int err;

	if (!st)
		return -ENOMEM;
	err = ll_put_xstats(d, st, ll_fill_xstats(sch, st));
	kfree(st);
	return err;
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

/* NULL: the queue is its internal FIFO. */
static struct Qdisc *ll_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return ll_class(sch, arg)->child;
}

/* A child qdisc replaces the queue's FIFO (new NULL: back to the FIFO).
 * Host ports only: a pool charges and releases each packet at the FIFO,
 * and a child could hold or drop them where the MMU does not see it.
 */
static int ll_class_graft(struct Qdisc *sch, unsigned long arg,
			  struct Qdisc *new, struct Qdisc **old,
			  struct netlink_ext_ack *extack)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct ll_queue *cl = ll_class(sch, arg);

	if (new && q->port.pool) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a queue of a pool's port keeps its FIFO: child qdiscs are for ports without a pool");
		return -EOPNOTSUPP;
	}
	sch_tree_lock(sch);
	/* What the FIFO or the old child holds is dropped, as a graft does. */
	ll_purge_queue(sch, cl, true);
	*old = cl->child;
	cl->child = new;
	sch_tree_unlock(sch);
	return 0;
}

/* The child went empty by itself (its own drops, a purge). */
static void ll_class_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
	struct ll_queue *cl = ll_class(sch, arg);

	if (!list_empty(&cl->alist))
		list_del_init(&cl->alist);
}

static int ll_class_dump(struct Qdisc *sch, unsigned long arg,
			 struct sk_buff *skb, struct tcmsg *tcm)
{
	struct ll_queue *cl = ll_class(sch, arg);

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = TC_H_MAKE(sch->handle, arg);
	tcm->tcm_info = cl->child ? cl->child->handle : 0;
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
	struct gnet_stats_queue qs;
	u64 now = ll_now_ns();

	ll_port_pause_expire(&q->pause, now);
	closed = ll_port_pause_closed_mask(&q->pause);
	st.paused = !!(cl->gate_mask & closed);
	for (g = 0; g < LL_GATES; g++) {
		if (!(cl->gate_mask & BIT(g)))
			continue;
		st.pause_frames_rx += q->pause.gates[g].xoff_frames;
		st.paused_ns += ll_gate_closed_ns(&q->pause.gates[g], now);
		if (g < LL_CREDIT_GATES) {
			const struct ll_credit_gate *cg = &q->credit.gates[g];
			bool metered = q->credit.metered & BIT(g);

			if (metered)
				st.credit_metered |= BIT(g);
			if (metered && now < cg->until_ns && cg->bytes > 0)
				st.credit_bytes += cg->bytes;
			st.credit_frames += cg->frames;
			st.credit_granted_bytes += cg->granted_bytes;
			st.credit_blocked += cg->blocked;
		}
	}
	st.np_ecn_marked = cl->np_ecn_marked;
	st.np_ecn_exempt = cl->np_ecn_exempt;
	st.np_ecn_not_ect = cl->np_ecn_not_ect;
	qs = cl->qstats;
	if (cl->child)
		qs.backlog = cl->child->qstats.backlog;
	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, ll_queue_qlen(cl)) < 0)
		return -1;
	return ll_put_xstats(d, &st, sizeof(st));
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
	.graft		= ll_class_graft,
	.leaf		= ll_class_leaf,
	.qlen_notify	= ll_class_qlen_notify,
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
	int err = ll_pool_nl_init();

	return err ? err : register_qdisc(&ll_qdisc_ops);
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
