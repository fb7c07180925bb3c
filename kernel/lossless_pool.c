// SPDX-License-Identifier: GPL-2.0
/* Pool registry of the lossless qdisc: see lossless_pool.h. */

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netlink.h>

#include "lossless_pool.h"

/* All pools of all namespaces; changed and walked under RTNL only. */
static LIST_HEAD(ll_kpools);

void ll_kpool_default_config(struct ll_mmu_config *cfg, unsigned int mtu)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->total_bytes = 4 << 20;
	cfg->max_ports = LL_MMU_MAX_PORTS;
	cfg->mtu_bytes = mtu;
	cfg->reserved_bytes = mtu;
	cfg->xon_offset_bytes = 2 * mtu;
	cfg->alpha = (struct ll_mmu_alpha){ .num = 1, .shift = 3 };
	cfg->egress_alpha = (struct ll_mmu_alpha){ .num = 1, .shift = 0 };
	cfg->lossless_mask = BIT(3) | BIT(4);	/* RoCE's usual pair */
}

static struct ll_kpool *ll_kpool_find(struct net *net, const char *name)
{
	struct ll_kpool *kp;

	ASSERT_RTNL();
	list_for_each_entry(kp, &ll_kpools, node)
		if (net_eq(read_pnet(&kp->net), net) &&
		    !strncmp(kp->name, name, LL_POOL_NAME_LEN))
			return kp;
	return NULL;
}

static struct ll_kpool *ll_kpool_create(struct net *net, const char *name,
					const struct ll_mmu_config *cfg,
					struct netlink_ext_ack *extack)
{
	struct ll_kpool *kp;
	enum ll_mmu_err err;

	kp = kzalloc(sizeof(*kp), GFP_KERNEL);
	if (!kp)
		return ERR_PTR(-ENOMEM);
	kp->mmu = kvzalloc(LL_MMU_POOL_BYTES(cfg->max_ports), GFP_KERNEL);
	if (!kp->mmu) {
		kfree(kp);
		return ERR_PTR(-ENOMEM);
	}
	err = ll_mmu_pool_init(kp->mmu, cfg);
	if (err != LL_MMU_OK) {
		NL_SET_ERR_MSG_MOD(extack, "invalid pool configuration");
		kvfree(kp->mmu);
		kfree(kp);
		return ERR_PTR(-EINVAL);
	}
	refcount_set(&kp->refs, 1);
	write_pnet(&kp->net, net);
	strscpy(kp->name, name, sizeof(kp->name));
	spin_lock_init(&kp->lock);
	list_add(&kp->node, &ll_kpools);
	return kp;
}

static void ll_kpool_put(struct ll_kpool *kp)
{
	ASSERT_RTNL();
	if (!refcount_dec_and_test(&kp->refs))
		return;
	list_del(&kp->node);
	ll_kplane_free(kp->plane);	/* stops its timer first */
	kvfree(kp->mmu);
	kfree(kp);
}

static void ll_attach_err(struct netlink_ext_ack *extack, enum ll_mmu_err e)
{
	switch (e) {
	case LL_MMU_ERR_NO_SPACE:
		NL_SET_ERR_MSG_MOD(extack,
				   "pool too small: this port's reserve and headroom leave less than one MTU shared");
		break;
	case LL_MMU_ERR_BUSY:
		NL_SET_ERR_MSG_MOD(extack,
				   "pool busy: the change would cut below the bytes in use; retry when idle");
		break;
	case LL_MMU_ERR_PORTS:
		NL_SET_ERR_MSG_MOD(extack, "pool full: at most 64 ports");
		break;
	case LL_MMU_ERR_RATE:
		NL_SET_ERR_MSG_MOD(extack, "rate out of range for the pool");
		break;
	case LL_MMU_ERR_DELAY:
		NL_SET_ERR_MSG_MOD(extack, "cable-delay and sw-delay must be at most 1 s");
		break;
	case LL_MMU_ERR_HEADROOM:
		NL_SET_ERR_MSG_MOD(extack, "headroom must be at least 2 MTU");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "pool rejected the port");
	}
}

struct ll_kpool *ll_kpool_join(struct net *net, const char *name,
			       const struct ll_mmu_config *cfg,
			       struct Qdisc *sch,
			       const struct ll_mmu_port_config *pc,
			       u32 *port, bool *created,
			       struct netlink_ext_ack *extack)
{
	struct ll_kpool *kp = ll_kpool_find(net, name);
	enum ll_mmu_err err;
	u32 i;

	*created = !kp;
	if (kp) {
		refcount_inc(&kp->refs);
	} else {
		kp = ll_kpool_create(net, name, cfg, extack);
		if (IS_ERR(kp))
			return kp;
	}

	spin_lock_bh(&kp->lock);
	for (i = 0; i < LL_MMU_MAX_PORTS && kp->members[i]; i++)
		;
	err = i < LL_MMU_MAX_PORTS ?
	      ll_mmu_port_attach(kp->mmu, i, pc, ktime_get_ns()) :
	      LL_MMU_ERR_PORTS;
	if (err == LL_MMU_OK) {
		kp->members[i] = sch;
		kp->ifindex[i] = qdisc_dev(sch)->ifindex;
		kp->nr_ports = max(kp->nr_ports, i + 1);
	}
	spin_unlock_bh(&kp->lock);
	if (err != LL_MMU_OK) {
		ll_attach_err(extack, err);
		ll_kpool_put(kp);
		return ERR_PTR(-EINVAL);
	}
	*port = i;
	return kp;
}

void ll_kpool_set_plane(struct ll_kpool *kp, struct ll_kplane *pl)
{
	struct ll_kplane *old;

	ASSERT_RTNL();
	spin_lock_bh(&kp->lock);
	old = kp->plane;
	kp->plane = pl;
	spin_unlock_bh(&kp->lock);
	ll_kplane_free(old);
	ll_kplane_start(pl, kp);
}

void ll_kpool_leave(struct ll_kpool *kp, u32 port)
{
	spin_lock_bh(&kp->lock);
	/* Priorities still told XOFF upstream expire there by themselves
	 * within one pause time; the qdisc that could send XON is going.
	 */
	ll_mmu_port_detach(kp->mmu, port, ktime_get_ns());
	kp->members[port] = NULL;
	kp->ifindex[port] = 0;
	while (kp->nr_ports && !kp->members[kp->nr_ports - 1])
		kp->nr_ports--;
	spin_unlock_bh(&kp->lock);
	ll_kpool_put(kp);
}

int ll_kpool_port_of(const struct ll_kpool *kp, int ifindex)
{
	u32 i;

	for (i = 0; i < kp->nr_ports; i++)
		if (kp->ifindex[i] == ifindex && kp->members[i])
			return i;
	return -1;
}

void ll_kpool_kick(struct ll_kpool *kp, u32 port)
{
	struct Qdisc *sch = port < LL_MMU_MAX_PORTS ? kp->members[port] : NULL;

	/* Only the qdisc itself sends on its port: waking it avoids taking
	 * its lock from here (another port's lock may be held: ABBA).
	 */
	if (!sch)
		return;
	set_bit(port, kp->pfc_pending);
	if (!test_bit(__QDISC_STATE_DEACTIVATED, &qdisc_root_sleeping(sch)->state))
		__netif_schedule(qdisc_root_sleeping(sch));
}

void ll_kpool_kick_mask(struct ll_kpool *kp, u64 mask)
{
	u32 i;

	for (i = 0; i < kp->nr_ports; i++)
		if (mask & BIT_ULL(i))
			ll_kpool_kick(kp, i);
}
