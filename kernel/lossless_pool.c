// SPDX-License-Identifier: GPL-2.0
/* Pools of the lossless qdisc: registry, admission and release, the PFC
 * frames a port sends, the plane's ops. See lossless_pool.h.
 */

#include <linux/err.h>
#include <linux/if_ether.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/ratelimit.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/inet_ecn.h>
#include <net/netlink.h>
#include <net/pkt_sched.h>

#include "core/ctrl.h"
#include "core/mode.h"
#include "core/scheme.h"
#include "lossless_pool.h"

#define LL_PLANE_SET_POOL (LOSSLESS_PLANE_SET_ALPHA | \
			   LOSSLESS_PLANE_SET_EGRESS_ALPHA | \
			   LOSSLESS_PLANE_SET_XON_OFFSET | \
			   LOSSLESS_PLANE_SET_RESERVED | \
			   LOSSLESS_PLANE_SET_HEADROOM | \
			   LOSSLESS_PLANE_SET_SCHEME | \
			   LOSSLESS_PLANE_SET_MODE | \
			   LOSSLESS_PLANE_SET_RESET_PEAKS | \
			   LOSSLESS_PLANE_SET_DRAIN)

/* All pools of all namespaces; changed and walked under RTNL only. */
static LIST_HEAD(ll_kpools);

int ll_alpha_from_u32(u32 v, struct ll_mmu_alpha *alpha)
{
	if (!(v >> 8) || v >> 24 || (v & 0xff) > LL_MMU_ALPHA_MAX_SHIFT)
		return -EINVAL;
	alpha->num = v >> 8;
	alpha->shift = v & 0xff;
	return 0;
}

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

static void ll_kpool_warn_work(struct work_struct *work);

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
	INIT_WORK(&kp->warn_work, ll_kpool_warn_work);
	ratelimit_state_init(&kp->warn_rs, 5 * HZ, 10);
	list_add(&kp->node, &ll_kpools);
	return kp;
}

static void ll_kpool_put(struct ll_kpool *kp)
{
	ASSERT_RTNL();
	if (!refcount_dec_and_test(&kp->refs))
		return;
	list_del(&kp->node);
	cancel_work_sync(&kp->warn_work);
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
	case LL_MMU_ERR_MODE:
		NL_SET_ERR_MSG_MOD(extack,
				   "the port's mode refuses its rate or the pool's MTU");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "pool rejected the port");
	}
}

void ll_kport_init(struct ll_kport *port, struct Qdisc *sch,
		   const struct ll_kport_ops *ops)
{
	port->cfg.sw_response_ns = LL_DEFAULT_SW_DELAY_NS;
	port->sch = sch;
	port->ops = ops;
}

int ll_kport_join(struct ll_kport *port, struct net *net, const char *name,
		  const struct ll_mmu_config *cfg, bool *created,
		  struct netlink_ext_ack *extack)
{
	struct ll_kpool *kp = ll_kpool_find(net, name);
	const char *mode_msg;
	enum ll_mmu_err err;
	u32 i;

	*created = !kp;
	if (kp) {
		refcount_inc(&kp->refs);
	} else {
		kp = ll_kpool_create(net, name, cfg, extack);
		if (IS_ERR(kp))
			return PTR_ERR(kp);
	}

	spin_lock_bh(&kp->lock);
	for (i = 0; i < LL_MMU_MAX_PORTS && kp->members[i]; i++)
		;
	err = i < LL_MMU_MAX_PORTS ?
	      ll_mmu_port_attach(kp->mmu, i, &port->cfg, ktime_get_ns()) :
	      LL_MMU_ERR_PORTS;
	if (err == LL_MMU_OK) {
		kp->members[i] = port;
		kp->ifindex[i] = qdisc_dev(port->sch)->ifindex;
		kp->by_ifindex[(u32)kp->ifindex[i] % LL_KPOOL_IFHASH] = i + 1;
		kp->nr_ports = max(kp->nr_ports, i + 1);
		port->pool = kp;
		port->index = i;
		/* A scheme of egress state retells its frames (PortFC): the
		 * others now; the new port when its qdisc first runs.
		 */
		if (kp->mmu->scheme_hooks & LL_SCHEME_HOOK_EGRESS)
			ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, ktime_get_ns()) &
					   ~BIT_ULL(i));
	}
	/* The core's own words, with the pool's MTU (not the device's). */
	mode_msg = err == LL_MMU_ERR_MODE ?
		   ll_mode_check(port->cfg.mode, &port->cfg.mode_params,
				 port->cfg.rate_bps, kp->mmu->cfg.mtu_bytes) :
		   NULL;
	if (err == LL_MMU_ERR_SCHEME_PORT)
		mode_msg = ll_scheme_ports_check(kp->mmu, &kp->mmu->cfg, i,
						 port->cfg.scheme_port);
	spin_unlock_bh(&kp->lock);
	if (err != LL_MMU_OK) {
		ll_attach_err(extack, err);
		if (mode_msg && extack)
			extack->_msg = mode_msg;	/* static */
		ll_kpool_put(kp);
		return -EINVAL;
	}
	return 0;
}

void ll_kport_leave(struct ll_kport *port)
{
	struct ll_kpool *kp = port->pool;

	if (!kp)
		return;
	spin_lock_bh(&kp->lock);
	/* Priorities still told XOFF upstream expire there by themselves
	 * within one pause time; the qdisc that could send XON is going.
	 */
	ll_mmu_port_detach(kp->mmu, port->index, ktime_get_ns());
	kp->members[port->index] = NULL;
	if (kp->by_ifindex[(u32)kp->ifindex[port->index] % LL_KPOOL_IFHASH] ==
	    port->index + 1)
		kp->by_ifindex[(u32)kp->ifindex[port->index] %
			       LL_KPOOL_IFHASH] = 0;
	kp->ifindex[port->index] = 0;
	while (kp->nr_ports && !kp->members[kp->nr_ports - 1])
		kp->nr_ports--;
	/* PortFC: the others resume what the leaving port asked for. */
	if (kp->mmu->scheme_hooks & LL_SCHEME_HOOK_EGRESS)
		ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, ktime_get_ns()));
	spin_unlock_bh(&kp->lock);
	ll_kpool_put(kp);
	port->pool = NULL;
}

/* Port of ifindex in the pool, or -1. Under kp->lock. */
static int ll_kpool_port_of(const struct ll_kpool *kp, int ifindex)
{
	u32 i = kp->by_ifindex[(u32)ifindex % LL_KPOOL_IFHASH];

	if (i && kp->ifindex[i - 1] == ifindex && kp->members[i - 1])
		return i - 1;
	for (i = 0; i < kp->nr_ports; i++)
		if (kp->ifindex[i] == ifindex && kp->members[i])
			return i;
	return -1;
}

/* Wake the qdisc of port so its dequeue sends a due PFC frame. Under
 * kp->lock, which keeps the member alive; a deactivated qdisc is skipped.
 */
static void ll_kpool_kick(struct ll_kpool *kp, u32 port)
{
	struct ll_kport *m = port < LL_MMU_MAX_PORTS ? kp->members[port] : NULL;
	struct Qdisc *root;

	/* Only the qdisc itself sends on its port: waking it avoids taking
	 * its lock from here (another port's lock may be held: ABBA).
	 */
	if (!m)
		return;
	set_bit(port, kp->xoff_pending);
	root = qdisc_root_sleeping(m->sch);
	if (!test_bit(__QDISC_STATE_DEACTIVATED, &root->state))
		__netif_schedule(root);
}

void ll_kpool_kick_mask(struct ll_kpool *kp, u64 mask)
{
	u32 i;

	for (i = 0; i < kp->nr_ports; i++)
		if (mask & BIT_ULL(i))
			ll_kpool_kick(kp, i);
}

/* ------------------------------------------------------- the packet path */

/* The headroom warnings raised since the last run, a log line each (rate
 * limited per pool; the counter, headroom_warnings, counts every one).
 * From a work item: the line is printed without the pool lock, which a
 * synchronous console would hold for milliseconds.
 */
static void ll_kpool_warn_work(struct work_struct *work)
{
	struct ll_kpool *kp = container_of(work, struct ll_kpool, warn_work);
	struct {
		char dev[IFNAMSIZ];
		u32 prio;
		u64 used, size, response_ns;
	} w[8];
	unsigned int n = 0, i;
	bool per_port;
	u64 ports;
	u32 p;

	spin_lock_bh(&kp->lock);
	per_port = ll_scheme_carves_per_port(&kp->mmu->cfg);
	ports = kp->warn_ports;
	kp->warn_ports = 0;
	for (i = 0; i < kp->nr_ports && n < ARRAY_SIZE(w); i++) {
		const struct ll_mmu_port *mp = &kp->mmu->ports[i];
		struct ll_kport *port = kp->members[i];
		u8 raised;

		if (!(ports & BIT_ULL(i)) || !port)
			continue;
		raised = ll_mmu_take_port_warnings(kp->mmu, i);
		for (p = 0; p < LL_PFC_PRIOS && n < ARRAY_SIZE(w); p++) {
			if (!(raised & BIT(p)))
				continue;
			strscpy(w[n].dev, qdisc_dev(port->sch)->name,
				sizeof(w[n].dev));
			w[n].prio = p;
			w[n].used = per_port ? mp->headroom_used :
					       mp->iq[p].headroom_used;
			w[n].size = per_port ?
				ll_scheme_port_carve(&kp->mmu->cfg,
						     mp->headroom_bytes) :
				mp->headroom_bytes;
			w[n].response_ns = mp->xoff.response_last_ns;
			n++;
		}
	}
	spin_unlock_bh(&kp->lock);
	for (i = 0; i < n; i++)
		if (__ratelimit(&kp->warn_rs))
			pr_warn("%s: pool %s: priority %u headroom at %llu of %llu bytes, past %u%% or overflowing: the PFC response took longer than its sw-delay allows (last XOFF response %llu us); raise sw-delay\n",
				w[i].dev, kp->name, w[i].prio, w[i].used,
				w[i].size, LL_MMU_HEADROOM_NEAR_PCT,
				div_u64(w[i].response_ns, NSEC_PER_USEC));
}

/* ECT(0) or ECT(1): a packet ECN marking may turn into CE. */
static bool ll_skb_ect(struct sk_buff *skb)
{
	int ds = skb_get_dsfield(skb);

	return ds >= 0 && ((ds & INET_ECN_MASK) == INET_ECN_ECT_0 ||
			   (ds & INET_ECN_MASK) == INET_ECN_ECT_1);
}

/* The PFC priority of a packet is its skb->priority (0..7), which the
 * ingress program set from PCP or DSCP.
 */
bool ll_kport_admit(struct ll_kport *port, struct sk_buff *skb, u32 queue,
		    unsigned int len)
{
	struct ll_kpool *kp = port->pool;
	enum ll_mmu_verdict v;
	u64 now = 0;
	int in_port;
	u32 prio;

	spin_lock(&kp->lock);
	in_port = ll_kpool_port_of(kp, skb->skb_iif);
	if (in_port < 0) {
		/* Not from a switch port (local traffic): not accounted. */
		ll_skb_charge(skb)->region = LL_MMU_REGION_NONE;
		port->unaccounted++;
		spin_unlock(&kp->lock);
		return true;
	}
	/* A clock read per packet costs: only for a scheme that reads it,
	 * and only for the classes its hooks watch. Without one, a PFC
	 * refresh falls due on the port's own timer, and the kick below is
	 * for a changed wish, which needs no time.
	 */
	prio = skb->priority & (LL_PFC_PRIOS - 1);
	/* A port mode's arrival asks whether its slot is overdue. */
	if (ll_scheme_admit_needs_clock(kp->mmu, prio) ||
	    kp->mmu->ports[in_port].mode)
		now = ktime_get_ns();
	v = ll_mmu_admit(kp->mmu, in_port, prio, port->index, queue, len, now,
			 ll_skb_charge(skb));
	/* A headroom past 90 %, or the drop of a full one: logged later. */
	if (unlikely(kp->mmu->warn_mask)) {
		kp->warn_ports |= ll_mmu_take_warnings(kp->mmu);
		schedule_work(&kp->warn_work);
	}
	if (!ll_mmu_admitted(v)) {
		spin_unlock(&kp->lock);
		return false;
	}
	/* Only a lossless admission, or a scheme's hook run for a lossy one,
	 * changes a pause wish; a refresh falls due on the port's own timer.
	 */
	if ((ll_skb_charge(skb)->lossless || ll_scheme_hooks_for(kp->mmu, 0)) &&
	    ll_mmu_admit_due(kp->mmu, in_port, now)) {
		/* The clock of an XOFF decision, once: the premise. */
		if (!kp->mmu->ports[in_port].xoff.decided_ns)
			ll_mmu_xoff_decided(kp->mmu, in_port,
					    now ? : ktime_get_ns());
		ll_kpool_kick(kp, in_port);
	}
	/* A scheme's frames due on other ports (PortFC's egress onsets). */
	if (unlikely(kp->mmu->kick_mask))
		ll_kpool_kick_mask(kp, ll_mmu_take_kicks(kp->mmu));
	/* Only ECT packets are asked about, so the MMU's count and ours are
	 * marks made here (not Not-ECT packets, not CE from upstream).
	 */
	if (ll_mmu_ecn_active(kp->mmu) && ll_skb_ect(skb) &&
	    ll_mmu_ecn_mark(kp->mmu, port->index, queue, get_random_u32()) &&
	    INET_ECN_set_ce(skb))
		port->ecn_marks++;
	spin_unlock(&kp->lock);
	return true;
}

void ll_kpool_release(struct ll_kpool *kp, struct ll_mmu_charge *charge,
		      u64 now, bool departed)
{
	u32 ev;

	spin_lock(&kp->lock);
	ev = departed ? ll_mmu_release(kp->mmu, charge, now) :
			ll_mmu_purge(kp->mmu, charge, now);
	/* A frame due, or the scheme's timer of the port due earlier than
	 * the port last asked: its qdisc runs and re-arms its timer.
	 */
	if (ev & (LL_MMU_EV_PFC_DUE | LL_MMU_EV_TIMER))
		ll_kpool_kick(kp, charge->in_port);
	if (ev & LL_MMU_EV_SWEEP)
		ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, now));
	if (unlikely(kp->mmu->kick_mask))
		ll_kpool_kick_mask(kp, ll_mmu_take_kicks(kp->mmu));
	spin_unlock(&kp->lock);
}

void ll_kport_release_list(struct ll_kport *port, struct sk_buff *skb)
{
	u64 now = ktime_get_ns();

	for (; skb; skb = skb->next)
		if (port->pool &&
		    ll_skb_charge(skb)->region != LL_MMU_REGION_NONE)
			ll_kpool_release(port->pool, ll_skb_charge(skb), now,
					 false);
}

/* Build the pause frames the MMU has due on this port (PFC or PAUSE, or
 * the kind the scheme's port_frame hook chose), for the qdisc's control
 * band. Returns when the next one is due (LL_MMU_NEVER: none).
 */
u64 ll_kport_ctrl_poll(struct ll_kport *port, u64 now, struct sk_buff **frames)
{
	struct net_device *dev = qdisc_dev(port->sch);
	struct ll_kpool *kp = port->pool;
	struct ll_ctrl_msg m = {};
	struct sk_buff *skb;
	u64 next;

	spin_lock(&kp->lock);
	clear_bit(port->index, kp->xoff_pending);
	/* The scheme's timer on this port, if it has one (scheme.h). */
	ll_mmu_port_timer(kp->mmu, port->index, now);
	while (ll_mmu_ctrl_take(kp->mmu, port->index, now, &m)) {
		const struct ll_ctrl_kind_desc *kind = ll_ctrl_kind(m.kind);

		skb = kind ? alloc_skb(LL_RESERVED_SPACE(dev) +
				       LL_MAC_CTRL_FRAME_BYTES, GFP_ATOMIC) :
			     NULL;
		if (skb) {
			skb_reserve(skb, LL_RESERVED_SPACE(dev));
			memcpy(m.src, dev->dev_addr, ETH_ALEN);
			ll_ctrl_build(skb_put(skb, LL_MAC_CTRL_FRAME_BYTES),
				      LL_MAC_CTRL_FRAME_BYTES, &m);
			skb_reset_mac_header(skb);
			skb->dev = dev;
			skb->protocol = htons(kind->ethertype);
			skb->priority = TC_PRIO_CONTROL;
			*frames = skb;
			frames = &skb->next;
			port->xoff_frames_tx++;
		}
		/* A failed allocation (or a scheme's bad kind, which the
		 * unit tests rule out) counts as a send failure and is
		 * retried at the next wake-up, not in this loop: memory
		 * does not come back under this lock.
		 */
		if (!ll_mmu_ctrl_complete(kp->mmu, port->index, !!skb, now) ||
		    !skb)
			break;
	}
	next = ll_mmu_ctrl_next_deadline(kp->mmu, port->index);
	spin_unlock(&kp->lock);
	return next;
}

u32 ll_kport_told_xoff(struct ll_kport *port, u64 now)
{
	struct ll_kpool *kp = port->pool;
	struct ll_mmu_iq_stats is;
	u32 p, mask = 0;

	spin_lock(&kp->lock);
	for (p = 0; p < LL_PFC_PRIOS; p++)
		if (!ll_mmu_get_iq_stats(kp->mmu, port->index, p, now, &is) &&
		    is.told_xoff)
			mask |= BIT(p);
	spin_unlock(&kp->lock);
	return mask;
}

/* ---------------------------------------------------------- stats, need */

/* The headroom's premise on port, for the plane's slot and tc's xstats;
 * zeroes for a detached port.
 */
static void ll_kpool_plane_premise(struct ll_kpool *kp, u32 port,
				   struct lossless_plane_premise *out)
{
	struct ll_mmu_premise_stats ps;

	memset(out, 0, sizeof(*out));
	if (ll_mmu_get_premise_stats(kp->mmu, port, &ps))
		return;
	out->xoff_response_last_ns = ps.response_last_ns;
	out->xoff_response_max_ns = ps.response_max_ns;
	out->xoff_responses = ps.responses;
	out->headroom_warnings = ps.headroom_warnings;
	out->headroom_near_mask = ps.headroom_near;
}

void ll_kpool_premise_stats(struct ll_kpool *kp, u32 port,
			    struct tc_lossless_xstats *st)
{
	struct lossless_plane_premise pr;

	ll_kpool_plane_premise(kp, port, &pr);
	st->xoff_response_last_ns = pr.xoff_response_last_ns;
	st->xoff_response_max_ns = pr.xoff_response_max_ns;
	st->xoff_responses = pr.xoff_responses;
	st->headroom_warnings = pr.headroom_warnings;
	st->headroom_near_mask = pr.headroom_near_mask;
}

void ll_kpool_iq_stats(struct ll_kpool *kp, u32 port, u64 now,
		       struct tc_lossless_iq_stats *iq)
{
	struct ll_mmu_iq_stats is;
	u32 p;

	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		struct tc_lossless_iq_stats *o = &iq[p];

		if (ll_mmu_get_iq_stats(kp->mmu, port, p, now, &is))
			continue;
		o->bytes = is.bytes;
		o->headroom_used = is.headroom_used;
		o->headroom_size = is.headroom_size;
		o->peak_bytes = is.peak_bytes;
		o->peak_headroom = is.peak_headroom;
		o->threshold = is.threshold;
		o->xoff_frames = is.xoff_frames;
		o->xon_frames = is.xon_frames;
		o->paused_ns = is.paused_ns;
		o->drops = is.drops;
		o->paused = is.told_xoff;
		o->lossless = is.lossless;
	}
}

bool ll_kpool_scheme_stats(struct ll_kpool *kp, u32 port, u64 now,
			   struct tc_lossless_scheme_stats *out, __u32 *prio2)
{
	struct ll_scheme_port_stats ss;
	u32 i;

	BUILD_BUG_ON(LOSSLESS_SCHEME_STATS != LL_SCHEME_STATS);
	BUILD_BUG_ON(LOSSLESS_SCHEME_MASKS != LL_SCHEME_MASKS);
	BUILD_BUG_ON(LOSSLESS_PFC_PRIOS != LL_MMU_PRIOS);
	memset(out, 0, sizeof(*out));
	if (ll_scheme_get_port_stats(kp->mmu, port, now, &ss) != 1)
		return false;
	out->scheme = ss.scheme;
	out->masks = ss.masks;
	memcpy(out->ctr, ss.ctr, sizeof(out->ctr));
	for (i = 0; i < LOSSLESS_PFC_PRIOS; i++) {
		out->prio[i] = min_t(u64, ss.prio[0][i], U32_MAX);
		if (prio2)
			prio2[i] = min_t(u64, ss.prio[1][i], U32_MAX);
	}
	return true;
}

void ll_kpool_mode_stats(struct ll_kpool *kp, u32 port,
			 struct tc_lossless_mode_stats *out)
{
	struct ll_mode_port_stats ms;
	u32 i;

	memset(out, 0, sizeof(*out));
	if (ll_mmu_get_mode_stats(kp->mmu, port, &ms) || !ms.mode)
		return;
	out->mode = ms.mode;
	memcpy(out->ctr, ms.ctr, sizeof(out->ctr));
	BUILD_BUG_ON(sizeof(out->prio) != sizeof(ms.prio));
	memcpy(out->prio, ms.prio, sizeof(out->prio));
	for (i = 0; i < LOSSLESS_MODE_HIST; i++)
		out->late_hist[i] = min_t(u64, ms.late_hist[i], U32_MAX);
}

/* A link down and up: the port's mode starts over (mode.h). */
void ll_kport_restart(struct ll_kport *port, u64 now)
{
	struct ll_kpool *kp = port->pool;

	if (!kp)
		return;
	spin_lock_bh(&kp->lock);
	ll_mmu_port_restart(kp->mmu, port->index, now);
	spin_unlock_bh(&kp->lock);
	set_bit(port->index, kp->xoff_pending);
}

/* The pool's event ring, oldest first, into the plane. */
static void ll_kpool_plane_events(struct ll_kpool *kp,
				  struct lossless_plane_tel *t)
{
	const struct ll_scheme_events *r = &kp->mmu->events;
	u32 i;

	BUILD_BUG_ON(LOSSLESS_EVENTS != LL_SCHEME_EVENTS);
	BUILD_BUG_ON(LOSSLESS_EV_PORT != 0xff);
	t->events_total = r->total;
	for (i = 0; i < LOSSLESS_EVENTS; i++) {
		const struct ll_scheme_event *e = &r->ev[i];
		struct lossless_event *o = &t->events[i];

		o->time_ns = e->time_ns;
		o->bytes = e->bytes;
		o->shared_used = e->shared_used;
		o->ifindex = e->type && e->port < LL_MMU_MAX_PORTS ?
			     kp->ifindex[e->port] : 0;
		o->port = e->port;
		o->prio = e->prio;
		o->type = e->type;
		o->scheme = e->scheme;
	}
}

/*
 * Frames one CPU's input backlog (net.core.netdev_max_backlog) must hold
 * for this pool: what may be on its way into and out of its ports at once,
 * the headroom of every lossless ingress (what upstreams send after XOFF)
 * and every port's catch-up burst, in minimum-size frames. A veth delivers
 * into that backlog and drops beyond it, before any qdisc sees the frame.
 * Under kp->lock.
 */
u32 ll_kpool_backlog_need(struct ll_kpool *kp)
{
	u64 bytes = kp->mmu->headroom_size;
	u32 i;

	for (i = 0; i < kp->nr_ports; i++) {
		const struct ll_kport *m = kp->members[i];

		if (m)
			bytes += m->ops->catchup_bytes(m);
	}
	return min_t(u64, DIV_ROUND_UP_ULL(bytes, ETH_ZLEN), INT_MAX);
}

/* ------------------------------------------------------------- the plane */

/* Set the headroom of member port (0 = computed): an enum ll_mmu_err.
 * kp and port come from the pool's table, as the plane's do.
 */
static int ll_kpool_set_headroom(struct ll_kpool *kp, u32 port,
				 u32 headroom_bytes, u64 now)
{
	struct ll_kport *m = kp->members[port];
	struct ll_mmu_port_config pc = m->cfg;
	enum ll_mmu_err e;

	pc.headroom_bytes = headroom_bytes;
	e = ll_mmu_port_update(kp->mmu, port, &pc, now);
	if (e == LL_MMU_OK)
		m->cfg = pc;
	return e;
}

/* Set the mode of member port (mode 0: none) to mode and params, as tc's
 * TCA_LOSSLESS_MODE does: an enum ll_mmu_err. The same mode and params
 * change nothing (a running mode keeps running).
 */
static int ll_kpool_set_mode(struct ll_kpool *kp, u32 port, u32 mode,
			     const union ll_mode_params *params, u64 now)
{
	struct ll_kport *m = kp->members[port];
	struct ll_mmu_port_config pc = m->cfg;
	enum ll_mmu_err e;

	pc.mode = mode;
	pc.mode_params = *params;
	if (!memcmp(&pc, &m->cfg, sizeof(pc)))
		return LL_MMU_OK;
	e = ll_mmu_port_update(kp->mmu, port, &pc, now);
	if (e == LL_MMU_OK)
		m->cfg = pc;
	return e;
}

static int ll_kpool_errno(enum ll_mmu_err e)
{
	switch (e) {
	case LL_MMU_OK:
		return 0;
	case LL_MMU_ERR_BUSY:
		return -EBUSY;
	case LL_MMU_ERR_NO_SPACE:
		return -ENOSPC;
	default:
		return -EINVAL;
	}
}

/* Check the modes of a control entry (SET_MODE) against the ports'
 * rates and the pool's MTU: port[i] is entry i's port, or -1.
 */
static int ll_kpool_plane_check_modes(struct ll_kpool *kp,
				      const struct lossless_plane_ctl *c,
				      u32 mtu_bytes, int *port)
{
	u64 seen = 0;
	u32 i;

	BUILD_BUG_ON(sizeof(c->mode[0].params) != sizeof(union ll_mode_params));
	BUILD_BUG_ON(LOSSLESS_MODE_MAX >= LL_MODE_COUNT);
	for (i = 0; i < LOSSLESS_PLANE_MODE_PORTS; i++) {
		const struct lossless_plane_port_mode *pm = &c->mode[i];
		union ll_mode_params mp;

		port[i] = -1;
		if (!pm->ifindex)
			continue;
		port[i] = ll_kpool_port_of(kp, pm->ifindex);
		if (port[i] < 0 || (seen & BIT_ULL(port[i])))
			return -ENODEV;
		seen |= BIT_ULL(port[i]);
		if (pm->mode >= LL_MODE_COUNT)
			return -EINVAL;
		memcpy(mp.raw, pm->params, sizeof(mp.raw));
		if (ll_mode_check(pm->mode, &mp, kp->members[port[i]]->cfg.rate_bps,
				  mtu_bytes))
			return -EINVAL;
	}
	return 0;
}

/* Apply the pool's part of a control entry, all or nothing. Under
 * kp->lock (the plane's tick).
 */
static int ll_kpool_plane_apply(void *owner, const struct lossless_plane_ctl *c,
				u64 now)
{
	struct ll_kpool *kp = owner;
	struct ll_mmu_config cfg = kp->mmu->cfg, old = kp->mmu->cfg;
	u32 old_headroom[LOSSLESS_PLANE_PORTS];
	int port[LOSSLESS_PLANE_PORTS];
	u32 nhead = c->set & LOSSLESS_PLANE_SET_HEADROOM ? LOSSLESS_PLANE_PORTS : 0;
	u32 nmode = c->set & LOSSLESS_PLANE_SET_MODE ? LOSSLESS_PLANE_MODE_PORTS : 0;
	struct ll_mmu_port_config *old_port;
	int mport[LOSSLESS_PLANE_MODE_PORTS];
	u32 i, done = 0, mdone = 0;
	int err = 0;

	if ((c->set & LOSSLESS_PLANE_SET_DRAIN) && c->drain > 1)
		return -EINVAL;
	if ((c->set & LOSSLESS_PLANE_SET_ALPHA) &&
	    ll_alpha_from_u32(c->alpha, &cfg.alpha))
		return -EINVAL;
	if ((c->set & LOSSLESS_PLANE_SET_EGRESS_ALPHA) &&
	    ll_alpha_from_u32(c->egress_alpha, &cfg.egress_alpha))
		return -EINVAL;
	if (c->set & LOSSLESS_PLANE_SET_XON_OFFSET)
		cfg.xon_offset_bytes = c->xon_offset_bytes;
	if (c->set & LOSSLESS_PLANE_SET_RESERVED)
		cfg.reserved_bytes = c->reserved_bytes;
	if (c->set & LOSSLESS_PLANE_SET_SCHEME) {
		BUILD_BUG_ON(sizeof(c->scheme.p) != sizeof(cfg.scheme_params));
		if (c->scheme.id >= LL_SCHEME_COUNT)
			return -EINVAL;
		cfg.scheme = c->scheme.id;
		memcpy(&cfg.scheme_params, &c->scheme.p, sizeof(cfg.scheme_params));
	}
	if (ll_mmu_config_check(&cfg) != LL_MMU_OK)
		return -EINVAL;
	for (i = 0; i < nhead; i++) {
		port[i] = -1;
		if (!c->headroom[i].ifindex)
			continue;
		port[i] = ll_kpool_port_of(kp, c->headroom[i].ifindex);
		if (port[i] < 0)
			return -ENODEV;
	}
	if (nmode) {
		err = ll_kpool_plane_check_modes(kp, c, cfg.mtu_bytes, mport);
		if (err)
			return err;
	}

	if (memcmp(&cfg, &old, sizeof(cfg))) {
		switch (ll_mmu_pool_reconfigure(kp->mmu, &cfg)) {
		case LL_MMU_OK:
			break;
		case LL_MMU_ERR_BUSY:
			return -EBUSY;
		default:
			return -EINVAL;
		}
	}
	for (i = 0; i < nhead; i++, done = i) {
		enum ll_mmu_err e;

		if (port[i] < 0)
			continue;
		old_headroom[i] = kp->mmu->ports[port[i]].headroom_bytes;
		e = ll_kpool_set_headroom(kp, port[i],
					  c->headroom[i].headroom_bytes, now);
		if (e != LL_MMU_OK) {
			err = e == LL_MMU_ERR_BUSY ? -EBUSY : -EINVAL;
			break;
		}
	}
	old_port = nmode && !err ? kp->mode_undo : NULL;
	for (i = 0; old_port && i < nmode; i++, mdone = i) {
		const struct lossless_plane_port_mode *pm = &c->mode[i];
		union ll_mode_params mp;

		if (mport[i] < 0)
			continue;
		old_port[i] = kp->members[mport[i]]->cfg;
		memcpy(mp.raw, pm->params, sizeof(mp.raw));
		err = ll_kpool_errno(ll_kpool_set_mode(kp, mport[i], pm->mode,
						       &mp, now));
		if (err)
			break;
	}
	if (err) {
		/* Undo the modes and ports already changed, then the pool. */
		for (i = 0; i < mdone; i++)
			if (mport[i] >= 0)
				ll_kpool_set_mode(kp, mport[i], old_port[i].mode,
						  &old_port[i].mode_params, now);
		for (i = 0; i < done; i++)
			if (port[i] >= 0)
				ll_kpool_set_headroom(kp, port[i],
						      old_headroom[i], now);
		ll_mmu_pool_reconfigure(kp->mmu, &old);
		return err;
	}
	if (c->set & LOSSLESS_PLANE_SET_DRAIN)
		ll_kpool_kick_mask(kp, ll_mmu_set_draining(kp->mmu, c->drain,
							   now));
	else
		ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, now));
	if (c->set & LOSSLESS_PLANE_SET_RESET_PEAKS)
		ll_mmu_reset_peaks(kp->mmu);
	return 0;
}

/* Member port's telemetry slot: the pool's part, then its qdisc's. */
static void ll_kpool_plane_port(struct ll_kpool *kp, u32 port,
				struct lossless_plane_port *out, u64 now)
{
	struct ll_kport *m = kp->members[port];
	const struct ll_mmu_port *mp = &kp->mmu->ports[port];

	memset(out, 0, sizeof(*out));
	out->ifindex = kp->ifindex[port];
	/* Counters the qdisc writes under its own lock: telemetry reads. */
	out->pfc_frames_tx = READ_ONCE(m->xoff_frames_tx);
	out->ecn_marks = READ_ONCE(m->ecn_marks);
	out->egress_bytes = mp->egress_bytes;
	out->headroom_bytes = mp->headroom_bytes;
	ll_kpool_iq_stats(kp, port, now, out->iq);
	m->ops->plane_port(m, out, now);
}

/* Member port's scheme slot. */
static void ll_kpool_plane_scheme_port(struct ll_kpool *kp, u32 port,
				       struct lossless_plane_scheme_port *out,
				       u64 now)
{
	memset(out->prio2, 0, sizeof(out->prio2));
	ll_kpool_scheme_stats(kp, port, now, &out->s, out->prio2);
}

/* The pool's part of the telemetry. Under kp->lock (the plane's tick). */
static void ll_kpool_plane_snapshot(void *owner, struct lossless_plane_tel *t,
				    u64 now)
{
	struct ll_kpool *kp = owner;
	const struct ll_mmu_config *cfg = &kp->mmu->cfg;
	struct ll_mmu_pool_stats ps;
	u32 i, nr = min_t(u32, kp->nr_ports, LOSSLESS_PLANE_PORTS);

	ll_mmu_get_pool_stats(kp->mmu, &ps);
	strscpy(t->pool, kp->name, sizeof(t->pool));
	t->nr_ports = nr;
	t->lossless_mask = cfg->lossless_mask;
	t->alpha = ll_alpha_to_u32(cfg->alpha);
	t->egress_alpha = ll_alpha_to_u32(cfg->egress_alpha);
	t->xon_offset_bytes = cfg->xon_offset_bytes;
	t->reserved_bytes = cfg->reserved_bytes;
#define LL_TOTAL(field, src)	(t->field = ps.src)
	LL_KPOOL_TOTALS(LL_TOTAL);
#undef LL_TOTAL
	t->reserved_size = ps.reserved_size;
	t->reserved_used = ps.reserved_used;
	t->admitted_packets = ps.ctr.admitted_packets;
	t->admitted_bytes = ps.ctr.admitted_bytes;
	t->paused_queues = ps.paused_queues;
	t->draining = READ_ONCE(kp->mmu->draining);
	t->scheme.id = cfg->scheme;
	memcpy(&t->scheme.p, &cfg->scheme_params, sizeof(t->scheme.p));
	for (i = 0; i < max(nr, kp->tel_ports); i++) {
		struct lossless_plane_port *o = &t->ports[i];

		if (i < nr && kp->members[i]) {
			ll_kpool_plane_port(kp, i, o, now);
			ll_kpool_plane_scheme_port(kp, i, &t->sch[i], now);
			ll_kpool_mode_stats(kp, i, &t->mode[i]);
			ll_kpool_plane_premise(kp, i, &t->premise[i]);
		} else {
			memset(o, 0, sizeof(*o));
			memset(&t->sch[i], 0, sizeof(t->sch[i]));
			memset(&t->mode[i], 0, sizeof(t->mode[i]));
			memset(&t->premise[i], 0, sizeof(t->premise[i]));
		}
	}
	kp->tel_ports = nr;
	ll_kpool_plane_events(kp, t);
}

static int ll_kpool_plane_channel(void *owner, u32 scheme,
				  const void *payload, u32 len, u64 now);

static const struct ll_kplane_ops ll_kpool_plane_ops = {
	.set		= LL_PLANE_SET_POOL,
	.apply		= ll_kpool_plane_apply,
	.snapshot	= ll_kpool_plane_snapshot,
	.channel	= ll_kpool_plane_channel,
};

void ll_kpool_set_plane(struct ll_kpool *kp, struct ll_kplane *pl)
{
	struct ll_kplane *old;

	ASSERT_RTNL();
	spin_lock_bh(&kp->lock);
	old = kp->plane;
	kp->plane = pl;
	kp->tel_ports = 0;	/* none written in the new map yet */
	spin_unlock_bh(&kp->lock);
	ll_kplane_free(old);
	ll_kplane_start(pl, &ll_kpool_plane_ops, kp, &kp->lock);
}

/* ------------------------------------------ the scheme control channel */

/* Apply a channel payload (the plane's channel op) through the pool's
 * scheme, which names ports by ifindex; kick the ports on which a frame
 * became due. Under kp->lock (the plane's tick).
 */
static int ll_kpool_plane_channel(void *owner, u32 scheme,
				  const void *payload, u32 len, u64 now)
{
	struct ll_kpool *kp = owner;
	u32 ids[LL_MMU_MAX_PORTS];
	u64 due;
	u32 i;
	int err;

	BUILD_BUG_ON(LL_EINVAL != EINVAL || LL_ENODEV != ENODEV ||
		     LL_ERANGE != ERANGE || LL_EMSGSIZE != EMSGSIZE ||
		     LL_EOPNOTSUPP != EOPNOTSUPP);
	for (i = 0; i < kp->nr_ports; i++)
		ids[i] = kp->members[i] ? (u32)kp->ifindex[i] : 0;
	err = ll_scheme_channel(kp->mmu, scheme, ids, kp->nr_ports, payload,
				len, now, &due);
	for (i = 0; due; i++, due >>= 1)
		if (due & 1)
			ll_kpool_kick(kp, i);
	return err;
}
