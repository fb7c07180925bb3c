// SPDX-License-Identifier: GPL-2.0
/*
 * The lossless qdisc's PFC watchdog glue (docs/WATCHDOG.md): its netlink
 * options, its timer's poll of the gates and queues, its reports and
 * stats. The detection itself is core/watchdog.c's, shared with the tests.
 */

#include <linux/jiffies.h>
#include <linux/netdevice.h>

#include "lossless_qdisc.h"

static struct netlink_range_validation ll_wd_time_range = {
	.min = LOSSLESS_WD_TIME_MIN_NS,
	.max = LOSSLESS_WD_TIME_MAX_NS,
};

static struct netlink_range_validation ll_wd_alarm_range = {
	.min = 0,
	.max = LOSSLESS_WD_XOFF_ALARM_MAX_NS,
};

const struct nla_policy ll_wd_policy[TCA_LOSSLESS_WD_MAX + 1] = {
	[TCA_LOSSLESS_WD_ACTION] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_WD_DROP),
	[TCA_LOSSLESS_WD_DETECT_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ll_wd_time_range),
	[TCA_LOSSLESS_WD_RESTORE_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ll_wd_time_range),
	[TCA_LOSSLESS_WD_POLL_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ll_wd_time_range),
	[TCA_LOSSLESS_WD_XOFF_ALARM_NS] = NLA_POLICY_FULL_RANGE(NLA_U64, &ll_wd_alarm_range),
};

static const char *const ll_wd_action_names[] = {
	[LL_WD_OFF] = "off",
	[LL_WD_ALERT] = "alert",
	[LL_WD_FORWARD] = "forward",
	[LL_WD_DROP] = "drop",
};

static void ll_wd_masks(struct ll_sched *q)
{
	q->wd_ignore_mask = ll_wd_ignore_mask(&q->wd);
	q->wd_drop_mask = ll_wd_drop_mask(&q->wd);
}

static void ll_wd_report(struct Qdisc *sch, const struct ll_wd_change *ch)
{
	struct ll_sched *q = qdisc_priv(sch);
	struct net_device *dev = qdisc_dev(sch);
	u32 p;

	for (p = 0; p < LL_PFC_PRIOS; p++) {
		if (ch->stormed & BIT(p))
			netdev_warn(dev, "PFC storm on priority %u: paused with packets waiting for %llu ms; action %s\n",
				    p, div_u64(q->wd.cfg.detect_ns, NSEC_PER_MSEC),
				    ll_wd_action_names[q->wd.cfg.action]);
		if ((ch->restored & BIT(p)) &&
		    q->wd.cfg.action == LL_WD_ALERT)
			netdev_info(dev, "PFC storm on priority %u ended: no XOFF for %llu ms and the last pause ran out\n",
				    p, div_u64(q->wd.cfg.restore_ns, NSEC_PER_MSEC));
		else if (ch->restored & BIT(p))
			netdev_info(dev, "PFC storm on priority %u ended: no XOFF for %llu ms, pause honoured again\n",
				    p, div_u64(q->wd.cfg.restore_ns, NSEC_PER_MSEC));
		if (ch->alarmed & BIT(p))
			netdev_warn(dev, "priority %u: XOFF sent upstream for over %llu ms (a PFC deadlock?)\n",
				    p, div_u64(q->wd.cfg.xoff_alarm_ns, NSEC_PER_MSEC));
	}
}

/* One watchdog poll, under the qdisc lock. */
static void ll_wd_tick(struct Qdisc *sch, u64 now)
{
	struct ll_sched *q = qdisc_priv(sch);
	u32 prios = BIT(LL_PFC_PRIOS) - 1, old_ignore = q->wd_ignore_mask;
	struct ll_wd_view v = {};
	struct ll_wd_change ch;
	u32 i, p;

	ll_gates_closed(q, now);	/* expire what is due */
	v.paused_mask = q->closed_mask & prios;
	for (p = 0; p < LL_PFC_PRIOS; p++)
		if (v.paused_mask & BIT(p))
			v.closed_since_ns[p] = q->pause.gates[p].closed_since_ns;
	for (i = 0; i < q->nqueues; i++)
		if (ll_queue_qlen(&q->queues[i]))
			v.backlog_mask |= q->queues[i].gate_mask & prios;
	if (q->port.pool && q->wd.cfg.xoff_alarm_ns)
		v.told_xoff_mask = ll_kport_told_xoff(&q->port, now);
	ch = ll_wd_poll(&q->wd, &v, now);
	/* Restored after forward or drop: the peer has sent no XOFF for
	 * restore-time; a pause it sent before (up to 65535 quanta, 1.7 s at
	 * 20 Mbit/s), ignored so far, is void, or the priority would be found
	 * paused again and storm anew. Alert never ignored the pause, and
	 * restores only once it ran out: the datapath is the peer's.
	 */
	for (p = 0; p < LL_PFC_PRIOS; p++) {
		struct ll_pause_gate *g = &q->pause.gates[p];

		if ((ch.restored & old_ignore & BIT(p)) && g->closed) {
			g->until_ns = min(g->until_ns, now);
			ll_gate_expire(g, now);
		}
	}
	if (ch.restored)
		ll_gates_refresh(q);
	ll_wd_masks(q);
	ll_wd_report(sch, &ch);
	for (i = 0; i < q->nqueues && (ch.stormed & q->wd_drop_mask); i++) {
		struct ll_queue *cl = &q->queues[i];
		u32 hit = cl->gate_mask & ch.stormed & q->wd_drop_mask;

		if (hit && ll_queue_qlen(cl)) {
			q->wd.prio[__ffs(hit)].dropped += ll_queue_qlen(cl);
			ll_purge_queue(sch, cl, false);
		}
	}
	if (q->wd_ignore_mask != old_ignore || ch.restored)
		__netif_schedule(qdisc_root(sch));
}

static unsigned long ll_wd_period(const struct ll_sched *q)
{
	return max(1UL, nsecs_to_jiffies(q->wd_poll_ns));
}

void ll_wd_timer(struct timer_list *t)
{
	struct ll_sched *q = from_timer(q, t, wd_timer);
	struct Qdisc *sch = q->sch;
	spinlock_t *root_lock;	/* the qdisc tree's, as sch_pie's timer */

	rcu_read_lock();
	root_lock = qdisc_lock(qdisc_root_sleeping(sch));
	spin_lock(root_lock);
	if (ll_wd_enabled(&q->wd.cfg)) {
		ll_wd_tick(sch, ll_now_ns());
		mod_timer(&q->wd_timer, jiffies + ll_wd_period(q));
	}
	spin_unlock(root_lock);
	rcu_read_unlock();
}

/* The watchdog options over the current ones; nothing applied yet. */
int ll_wd_parse(struct ll_sched *q, struct nlattr *opt,
		struct ll_wd_config *cfg, u64 *poll_ns,
		struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_LOSSLESS_WD_MAX + 1];
	int err;

	*cfg = q->wd.cfg;
	*poll_ns = q->wd_poll_ns;
	err = nla_parse_nested(tb, TCA_LOSSLESS_WD_MAX, opt, ll_wd_policy,
			       extack);
	if (err < 0)
		return err;
	if (tb[TCA_LOSSLESS_WD_ACTION])
		cfg->action = nla_get_u8(tb[TCA_LOSSLESS_WD_ACTION]);
	if (tb[TCA_LOSSLESS_WD_DETECT_NS])
		cfg->detect_ns = nla_get_u64(tb[TCA_LOSSLESS_WD_DETECT_NS]);
	if (tb[TCA_LOSSLESS_WD_RESTORE_NS])
		cfg->restore_ns = nla_get_u64(tb[TCA_LOSSLESS_WD_RESTORE_NS]);
	if (tb[TCA_LOSSLESS_WD_POLL_NS])
		*poll_ns = nla_get_u64(tb[TCA_LOSSLESS_WD_POLL_NS]);
	if (tb[TCA_LOSSLESS_WD_XOFF_ALARM_NS])
		cfg->xoff_alarm_ns = nla_get_u64(tb[TCA_LOSSLESS_WD_XOFF_ALARM_NS]);
	if (*poll_ns > cfg->detect_ns || *poll_ns > cfg->restore_ns) {
		NL_SET_ERR_MSG_ATTR(extack, opt,
				    "watchdog poll must not exceed its detect and restore times");
		return -EINVAL;
	}
	if (cfg->xoff_alarm_ns && cfg->xoff_alarm_ns < *poll_ns) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_LOSSLESS_WD_XOFF_ALARM_NS] ?: opt,
				    "xoff-alarm must be at least the watchdog poll");
		return -EINVAL;
	}
	return 0;
}

/* Under sch_tree_lock. */
void ll_wd_apply(struct ll_sched *q, const struct ll_wd_config *cfg,
		 u64 poll_ns)
{
	u32 old_ignore = q->wd_ignore_mask;

	ll_wd_configure(&q->wd, cfg, ll_now_ns());
	WRITE_ONCE(q->wd_poll_ns, poll_ns);
	ll_wd_masks(q);
	if (q->wd_ignore_mask != old_ignore)
		__netif_schedule(qdisc_root(q->sch));
	if (ll_wd_enabled(cfg))
		mod_timer(&q->wd_timer, jiffies + ll_wd_period(q));
	/* Off: the timer finds it off and stops by itself. */
}

int ll_wd_dump(struct ll_sched *q, struct sk_buff *skb)
{
	struct ll_wd_config c = q->wd.cfg;
	struct nlattr *nest;

	if (!ll_wd_enabled(&c))
		return 0;
	nest = nla_nest_start_noflag(skb, TCA_LOSSLESS_WATCHDOG);
	if (!nest ||
	    nla_put_u8(skb, TCA_LOSSLESS_WD_ACTION, c.action) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_WD_DETECT_NS, c.detect_ns,
			      TCA_LOSSLESS_WD_PAD) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_WD_RESTORE_NS, c.restore_ns,
			      TCA_LOSSLESS_WD_PAD) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_WD_POLL_NS,
			      READ_ONCE(q->wd_poll_ns), TCA_LOSSLESS_WD_PAD) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_WD_XOFF_ALARM_NS,
			      c.xoff_alarm_ns, TCA_LOSSLESS_WD_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* The watchdog's stats, for tc's xstats and the plane alike. */
void ll_wd_stats(struct ll_sched *q, u64 now, u32 *action, u32 *storm_mask,
		 u32 *alarm_mask, struct tc_lossless_wd_stats *out)
{
	u32 p;

	*action = READ_ONCE(q->wd.cfg.action);
	*storm_mask = READ_ONCE(q->wd.storm_mask);
	*alarm_mask = READ_ONCE(q->wd.alarm_mask);
	for (p = 0; p < LL_PFC_PRIOS; p++) {
		const struct ll_wd_prio *s = &q->wd.prio[p];

		out[p].storm = READ_ONCE(s->in_storm);
		out[p].xoff_alarm = READ_ONCE(s->xoff_alarm);
		out[p].storms = READ_ONCE(s->storms);
		out[p].restores = READ_ONCE(s->restores);
		out[p].dropped = READ_ONCE(s->dropped);
		out[p].storm_ns = ll_wd_storm_ns(s, now);
		out[p].xoff_alarms = READ_ONCE(s->xoff_alarms);
		out[p].xoff_ns = ll_wd_xoff_ns(s, now);
	}
}

/* Whether the watchdog has anything to report in the stats. */
bool ll_wd_reported(const struct ll_sched *q,
		    const struct tc_lossless_xstats *st)
{
	u32 p;

	if (ll_wd_enabled(&q->wd.cfg) || st->wd_storm_mask || st->wd_alarm_mask)
		return true;
	for (p = 0; p < LL_PFC_PRIOS; p++)
		if (st->wd[p].storms || st->wd[p].xoff_alarms || st->wd[p].dropped)
			return true;
	return false;
}
