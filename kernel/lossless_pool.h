/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared-buffer pools of the lossless qdisc: every qdisc naming the same
 * pool in one network namespace is a port of one software switch whose
 * buffer the core MMU (core/mmu.h) accounts. This is the registry and the
 * locking; the per-packet calls live in lossless_qdisc.c.
 */
#ifndef LOSSLESS_POOL_H
#define LOSSLESS_POOL_H

#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <net/sch_generic.h>

#include "core/mmu.h"
#include "lossless_plane.h"

#define LL_POOL_NAME_LEN 16

struct ll_kpool {
	struct list_head node;		/* on the registry, under RTNL */
	refcount_t refs;		/* member qdiscs */
	possible_net_t net;
	char name[LL_POOL_NAME_LEN];
	/* Serialises every ll_mmu_*() call and the member table. */
	spinlock_t lock;
	struct Qdisc *members[LL_MMU_MAX_PORTS];
	int ifindex[LL_MMU_MAX_PORTS];
	u32 nr_ports;			/* highest attached index + 1 */
	struct ll_mmu_pool *mmu;
	struct ll_kplane *plane;	/* shared-state plane, or NULL */
	/* Bit p: a PFC frame may be due on port p (set by ll_kpool_kick(),
	 * cleared by that port's poll), so a dequeue with nothing to send
	 * upstream does not take the pool lock to find out.
	 */
	DECLARE_BITMAP(pfc_pending, LL_MMU_MAX_PORTS);
};

/* Defaults of a new pool for a device of this MTU. */
void ll_kpool_default_config(struct ll_mmu_config *cfg, unsigned int mtu);

/*
 * Join pool NAME of net as port sch (ifindex of its device), creating it
 * with cfg if it does not exist. Returns the pool and sets *port, or an
 * ERR_PTR with an extack message. Caller holds RTNL.
 */
struct ll_kpool *ll_kpool_join(struct net *net, const char *name,
			       const struct ll_mmu_config *cfg,
			       struct Qdisc *sch,
			       const struct ll_mmu_port_config *pc,
			       u32 *port, bool *created,
			       struct netlink_ext_ack *extack);

/*
 * Give the pool its plane (replacing and freeing the old one) and start
 * it. RTNL, not under kp->lock.
 */
void ll_kpool_set_plane(struct ll_kpool *kp, struct ll_kplane *pl);

/* Leave: detach the port and drop the pool when it was the last. RTNL. */
void ll_kpool_leave(struct ll_kpool *kp, u32 port);

/* Port of ifindex in the pool, or -1. Under kp->lock. */
int ll_kpool_port_of(const struct ll_kpool *kp, int ifindex);

/* Wake the qdisc of port so its dequeue sends a due PFC frame. Under
 * kp->lock, which keeps the member alive; a deactivated qdisc is skipped.
 */
void ll_kpool_kick(struct ll_kpool *kp, u32 port);

/* Kick every port of a mask (from ll_mmu_sweep()). Under kp->lock. */
void ll_kpool_kick_mask(struct ll_kpool *kp, u64 mask);

#endif /* LOSSLESS_POOL_H */
