/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared-buffer pools of the lossless qdisc: every qdisc naming the same
 * pool in one network namespace is a port of one software switch whose
 * buffer the core MMU (core/mmu.h) accounts. This is the registry, the
 * locking, the per-packet calls (admission, release, the PFC frames a
 * port sends upstream) and the pool's side of the plane. The pool's
 * netlink side is lossless_pool_nl.h.
 *
 * A member is a struct ll_kport embedded in its qdisc's private data; the
 * qdisc gives it ll_kport_ops for what only the qdisc knows. The pool
 * calls nothing else of the qdisc's, and the plane (lossless_plane.h)
 * nothing of the pool's but the ops it is given.
 */
#ifndef LOSSLESS_POOL_H
#define LOSSLESS_POOL_H

#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

#include "core/mmu.h"
#include "lossless_plane.h"

#define LL_POOL_NAME_LEN 16

/* Default software response of a Linux switch port: the time from the MMU
 * deciding to pause to the upstream's qdisc stopping (softirqs, qdisc
 * runs). Headroom covers rate x this; QEMU TCG needs more (sw-delay).
 */
#define LL_DEFAULT_SW_DELAY_NS (1 * NSEC_PER_MSEC)

struct ll_kport;

#define LL_KPOOL_IFHASH 64

struct ll_kpool {
	struct list_head node;		/* on the registry, under RTNL */
	refcount_t refs;		/* member qdiscs */
	possible_net_t net;
	char name[LL_POOL_NAME_LEN];
	/* Serialises every ll_mmu_*() call and the member table. */
	spinlock_t lock;
	struct ll_kport *members[LL_MMU_MAX_PORTS];
	int ifindex[LL_MMU_MAX_PORTS];
	/* ifindex % LL_KPOOL_IFHASH -> port + 1 (0: none): one look per
	 * packet instead of a scan of the table (a hint: checked, and on a
	 * collision the scan finds the port).
	 */
	u8 by_ifindex[LL_KPOOL_IFHASH];
	u32 nr_ports;			/* highest attached index + 1 */
	u32 tel_ports;			/* plane port slots written last time */
	struct ll_mmu_pool *mmu;
	struct ll_kplane *plane;	/* shared-state plane, or NULL */
	/* Bit p: a PFC frame may be due on port p (set by a kick, cleared
	 * by that port's poll), so a dequeue with nothing to send upstream
	 * does not take the pool lock to find out.
	 */
	DECLARE_BITMAP(xoff_pending, LL_MMU_MAX_PORTS);
	/* The plane's SET_MODE: each entry's port as it was, to undo a
	 * write that fails half-way (under lock; too big for the stack).
	 */
	struct ll_mmu_port_config mode_undo[LOSSLESS_PLANE_MODE_PORTS];
	/* Headroom warnings to log (ll_kpool_warn_work()): the ports, under
	 * lock, and the pool's own rate limit.
	 */
	struct work_struct warn_work;
	u64 warn_ports;
	struct ratelimit_state warn_rs;
};

/*
 * What the pool asks of a member's qdisc, under kp->lock (the member is
 * in the pool's table; its qdisc lock is not held: telemetry reads):
 *   plane_port     fill the qdisc's part of its plane port slot (counters,
 *                  shaper, lateness, watchdog); the pool wrote the rest;
 *   catchup_bytes  the burst the port may send after a late wake-up, for
 *                  the pool's backlog need.
 */
struct ll_kport_ops {
	void (*plane_port)(struct ll_kport *port, struct lossless_plane_port *out,
			   u64 now);
	u32 (*catchup_bytes)(const struct ll_kport *port);
};

/* Pool membership of one qdisc (pool NULL: a plain port, e.g. a host
 * uplink). Embedded in the qdisc; ll_kport_init() before anything else.
 */
struct ll_kport {
	struct ll_kpool *pool;
	u32 index;			/* port index in the pool */
	struct ll_mmu_port_config cfg;
	u64 xoff_next_ns;		/* next pause frame due (poll's answer) */
	u64 xoff_frames_tx;		/* uapi: pfc_frames_tx */
	u64 ecn_marks;
	u64 unaccounted;
	struct Qdisc *sch;		/* kicked when a pause frame is due */
	const struct ll_kport_ops *ops;
};

/* The pool marks CE by PCN's NP-ECN at dequeue (TCA_LOSSLESS_ECN_MODE). */
static inline bool ll_kport_np_ecn(const struct ll_kport *port)
{
	return port->pool &&
	       READ_ONCE(port->pool->mmu->cfg.ecn_mode) ==
	       LOSSLESS_ECN_MODE_NP_ECN;
}

/* NP-ECN's K (TCA_LOSSLESS_NP_ECN_K_BYTES): only with ll_kport_np_ecn(). */
static inline u32 ll_kport_np_ecn_k(const struct ll_kport *port)
{
	return READ_ONCE(port->pool->mmu->cfg.np_ecn_k_bytes);
}

/* The MMU charge travels with the packet in the qdisc cb. */
static inline struct ll_mmu_charge *ll_skb_charge(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct ll_mmu_charge) > QDISC_CB_PRIV_LEN);
	BUILD_BUG_ON(sizeof(struct ll_mmu_charge) != LL_MMU_CHARGE_BYTES);
	return (struct ll_mmu_charge *)qdisc_skb_cb(skb)->data;
}

/* DT alpha as netlink and the plane carry it, num << 8 | shift. Decoding
 * returns -EINVAL (alpha untouched) unless num is 1..65535 and shift at
 * most LL_MMU_ALPHA_MAX_SHIFT.
 */
int ll_alpha_from_u32(u32 v, struct ll_mmu_alpha *alpha);

static inline u32 ll_alpha_to_u32(struct ll_mmu_alpha alpha)
{
	return alpha.num << 8 | alpha.shift;
}

/* Defaults of a new pool for a device of this MTU. */
void ll_kpool_default_config(struct ll_mmu_config *cfg, unsigned int mtu);

/*
 * Give the pool its plane (replacing and freeing the old one) and start
 * it. RTNL, not under kp->lock.
 */
void ll_kpool_set_plane(struct ll_kpool *kp, struct ll_kplane *pl);

/* Kick every port of a mask (from ll_mmu_sweep()). Under kp->lock. */
void ll_kpool_kick_mask(struct ll_kpool *kp, u64 mask);

/*
 * Frames one CPU's input backlog must hold for this pool (the
 * TCA_LOSSLESS_BACKLOG_NEED dump). Under kp->lock.
 */
u32 ll_kpool_backlog_need(struct ll_kpool *kp);

/*
 * The ingress (port, priority) stats of port, for tc's xstats and the
 * plane's port slot alike. Under kp->lock.
 */
void ll_kpool_premise_stats(struct ll_kpool *kp, u32 port,
			    struct tc_lossless_xstats *st);
void ll_kpool_iq_stats(struct ll_kpool *kp, u32 port, u64 now,
		       struct tc_lossless_iq_stats *iq);

/*
 * The scheme's telemetry of port (scheme.h's ll_scheme_get_port_stats()), for
 * tc's xstats and the plane's scheme slot alike: false, and out zeroed
 * (scheme 0), if the pool's scheme has none. prio2 (8 values, or NULL):
 * the second per-priority value, which only the plane carries. Under
 * kp->lock.
 */
bool ll_kpool_scheme_stats(struct ll_kpool *kp, u32 port, u64 now,
			   struct tc_lossless_scheme_stats *out, __u32 *prio2);

/* The port's mode telemetry (zero without a mode). Under kp->lock. */
void ll_kpool_mode_stats(struct ll_kpool *kp, u32 port,
			 struct tc_lossless_mode_stats *out);

/* The port's link went down (a reset): its mode starts over. */
void ll_kport_restart(struct ll_kport *port, u64 now);

/*
 * The pool totals tc's xstats and the plane's telemetry both carry, as
 * X(field, source in struct ll_mmu_pool_stats): the same fields, named
 * pool_FIELD in the xstats and FIELD in the plane. One list for both, so
 * a total added to one cannot be forgotten in the other.
 */
#define LL_KPOOL_TOTALS(X)						\
	do {								\
		X(total_bytes, total_bytes);				\
		X(shared_size, shared_size);				\
		X(shared_used, shared_used);				\
		X(headroom_size, headroom_size);			\
		X(headroom_used, headroom_used);			\
		X(peak_shared, peak_shared);				\
		X(peak_headroom, peak_headroom);			\
		X(drops_lossless, ctr.drops_lossless);			\
		X(drops_lossy, ctr.drops_lossy);			\
	} while (0)

/* A member of no pool yet, of qdisc sch, with the default port config. */
void ll_kport_init(struct ll_kport *port, struct Qdisc *sch,
		   const struct ll_kport_ops *ops);

/*
 * Join pool NAME of net with port->cfg, creating the pool with cfg if it
 * does not exist. Sets port->pool and port->index, or returns -errno with
 * an extack message. Caller holds RTNL.
 */
int ll_kport_join(struct ll_kport *port, struct net *net, const char *name,
		  const struct ll_mmu_config *cfg, bool *created,
		  struct netlink_ext_ack *extack);

/* Leave the pool, if any, dropping it when it was the last. RTNL. */
void ll_kport_leave(struct ll_kport *port);

/*
 * Charge a data packet for egress queue of port to the pool; false if
 * the MMU refuses it. Pool members only, qdisc lock held.
 */
bool ll_kport_admit(struct ll_kport *port, struct sk_buff *skb, u32 queue,
		    unsigned int len);

void ll_kpool_release(struct ll_kpool *kp, struct ll_mmu_charge *charge,
		      u64 now, bool departed);

/*
 * Un-charge a packet the qdisc dequeued (a departure) and wake the ports
 * whose PFC state changed. Called with the qdisc lock held;
 * takes the pool lock.
 *
 * The packet paths (enqueue, dequeue, and reset/purge under the qdisc
 * lock) run with bottom halves disabled, so they take the pool lock
 * without _bh, like the plane's soft timer; process context takes it with
 * _bh, and the qdisc's destroy disables bottom halves around its reset.
 */
static inline void ll_kport_release(struct ll_kport *port,
				    struct sk_buff *skb, u64 now)
{
	if (port->pool && ll_skb_charge(skb)->region != LL_MMU_REGION_NONE)
		ll_kpool_release(port->pool, ll_skb_charge(skb), now, true);
}

/*
 * Un-charge a list of packets linked by ->next that did not leave (purge,
 * reset): not departures for the scheme (ll_mmu_purge()).
 */
void ll_kport_release_list(struct ll_kport *port, struct sk_buff *skb);

/* In a pool and priority prio (0..7) lossless there. */
static inline bool ll_kport_lossless(const struct ll_kport *port, u32 prio)
{
	return port->pool && (READ_ONCE(port->pool->mmu->cfg.lossless_mask) &
			      BIT(prio & (LL_PFC_PRIOS - 1)));
}

/* No PFC frame can be due on port (or it is in no pool): a dequeue with
 * nothing queued need not read the clock.
 */
static inline bool ll_kport_xoff_idle(const struct ll_kport *port)
{
	return !port->pool ||
	       (port->xoff_next_ns == LL_MMU_NEVER &&
		!test_bit(port->index, port->pool->xoff_pending));
}

u64 ll_kport_ctrl_poll(struct ll_kport *port, u64 now, struct sk_buff **frames);

/*
 * A pool member's dequeue, under its qdisc lock: the pause frames due on
 * the port, built and ready for the qdisc's control band (*frames, linked
 * by ->next, NULL if none). Returns when the port must run next for them
 * (LL_MMU_NEVER: no need). The pool lock only when a frame may be due: a
 * kick, or the refresh deadline the last poll returned.
 */
static inline u64 ll_kport_xoff_frames(struct ll_kport *port, u64 now,
				       struct sk_buff **frames)
{
	*frames = NULL;
	if (now >= port->xoff_next_ns ||
	    test_bit(port->index, port->pool->xoff_pending))
		port->xoff_next_ns = ll_kport_ctrl_poll(port, now, frames);
	return port->xoff_next_ns;
}

/* Priorities whose upstream this port's MMU has told XOFF. Pool members
 * only, from softirq context.
 */
u32 ll_kport_told_xoff(struct ll_kport *port, u64 now);

#endif /* LOSSLESS_POOL_H */
