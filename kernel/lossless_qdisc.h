/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lossless qdisc's state (lossless_qdisc.c) as its PFC watchdog glue
 * (lossless_watchdog.c) shares it, and the functions between them.
 */
#ifndef LOSSLESS_QDISC_H
#define LOSSLESS_QDISC_H

#include <linux/timer.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "core/pause.h"
#include "core/pcn.h"
#include "core/shaper.h"
#include "core/watchdog.h"
#include "lossless_pool_nl.h"
#include "uapi/lossless.h"

struct ll_queue {
	struct qdisc_skb_head skbs;	/* the FIFO, unless child is set */
	/*
	 * A child qdisc grafted on the class (`tc qdisc add ... parent
	 * MAJOR:N fq`), host ports only: it holds the packets instead of the
	 * FIFO, e.g. sch_fq pacing each flow by its departure time, while the
	 * gates still decide when the queue may send.
	 */
	struct Qdisc *child;
	struct list_head alist;		/* on ll_sched.active while DWRR+backlog */
	u32 quantum_bytes;
	u32 deficit_bytes;
	u32 gate_mask;			/* gates that stop it (pause.h ids) */
	u32 gate_cfg;			/* TCA_LOSSLESS_GATES' entry; 0: derived */
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue qstats;
	/* NP-ECN (ecn-mode np-ecn): its PN state and what it decided. */
	struct ll_pcn_cp pcn;
	u64 np_ecn_marked;
	u64 np_ecn_exempt;
	u64 np_ecn_not_ect;
};

struct ll_sched {
	/* Parameters: written under sch_tree_lock, read locklessly by dump. */
	u64 rate_bps;
	u32 burst_bytes;
	u32 limit_pkts;
	u8 nqueues;
	u8 nstrict;
	bool burst_explicit;		/* else derived from the rate */
	bool catchup_explicit;		/* else derived from the rate */
	u32 catchup_bytes;
	u8 priomap[LOSSLESS_PRIOMAP_LEN];

	struct ll_shaper shaper;
	u64 wake_ns;			/* wake-up asked of the watchdog, 0: none */
	u64 wake_late_max_ns;
	u64 wake_late[LOSSLESS_LATENESS_BUCKETS];

	struct qdisc_skb_head ctrl;	/* locally sent MAC control frames */
	struct list_head active;	/* DWRR queues with backlog */
	struct ll_port_pause pause;
	struct ll_port_credit credit;	/* TOKENS frames' (pause.h) */
	u32 closed_mask;		/* cache of the gates' state ... */
	u64 next_open_ns;		/* ... valid until this deadline */
	struct qdisc_watchdog watchdog;

	u64 pfc_frames_rx;
	u64 pause_frames_rx;
	u64 ctrl_invalid;
	u64 throttled;
	u64 pause_blocked;

	/* Pool membership (pool NULL: a plain port, e.g. a host uplink). */
	struct ll_kport port;

	/* PFC watchdog: while off, both masks are 0 and the timer idle. */
	struct ll_wd wd;
	u64 wd_poll_ns;
	u32 wd_ignore_mask;		/* gates not honoured (storm) */
	u32 wd_drop_mask;		/* gates whose queues drop (storm) */
	struct timer_list wd_timer;
	struct Qdisc *sch;		/* for the timer */

	struct ll_queue queues[LOSSLESS_MAX_QUEUES];
};

/* Packets a queue holds: its FIFO's or its child qdisc's. */
static inline unsigned int ll_queue_qlen(const struct ll_queue *cl)
{
	return cl->child ? cl->child->q.qlen : cl->skbs.qlen;
}

/* lossless_qdisc.c */
u64 ll_now_ns(void);
/* Recompute the gate cache after the gates changed. */
void ll_gates_refresh(struct ll_sched *q);
/* Closed gates at now (expiring what is due), less those not honoured. */
u32 ll_gates_closed(struct ll_sched *q, u64 now);
/* Drop every packet of queue cl (rtnl: under RTNL, in a change). */
void ll_purge_queue(struct Qdisc *sch, struct ll_queue *cl, bool rtnl);

/* lossless_watchdog.c: the PFC watchdog's glue (core/watchdog.h). */
extern const struct nla_policy ll_wd_policy[TCA_LOSSLESS_WD_MAX + 1];
void ll_wd_timer(struct timer_list *t);
int ll_wd_parse(struct ll_sched *q, struct nlattr *opt,
		struct ll_wd_config *cfg, u64 *poll_ns,
		struct netlink_ext_ack *extack);
void ll_wd_apply(struct ll_sched *q, const struct ll_wd_config *cfg,
		 u64 poll_ns);
int ll_wd_dump(struct ll_sched *q, struct sk_buff *skb);
void ll_wd_stats(struct ll_sched *q, u64 now, u32 *action, u32 *storm_mask,
		 u32 *alarm_mask, struct tc_lossless_wd_stats *out);
bool ll_wd_reported(const struct ll_sched *q,
		    const struct tc_lossless_xstats *st);

#endif /* LOSSLESS_QDISC_H */
