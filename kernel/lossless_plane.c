// SPDX-License-Identifier: GPL-2.0
/* The shared-state plane of a pool: see lossless_plane.h. */

#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core/scheme.h"
#include "lossless_plane.h"
#include "lossless_pool.h"

#define LL_PLANE_SET_ALL (LOSSLESS_PLANE_SET_ALPHA | \
			  LOSSLESS_PLANE_SET_EGRESS_ALPHA | \
			  LOSSLESS_PLANE_SET_XON_OFFSET | \
			  LOSSLESS_PLANE_SET_RESERVED | \
			  LOSSLESS_PLANE_SET_INTERVAL | \
			  LOSSLESS_PLANE_SET_HEADROOM | \
			  LOSSLESS_PLANE_SET_SCHEME)

static enum hrtimer_restart ll_kplane_tick(struct hrtimer *timer);

struct ll_kplane *ll_kplane_get(u32 fd, struct netlink_ext_ack *extack)
{
	struct ll_kplane *pl;
	struct bpf_map *map;
	u32 key;

	map = bpf_map_get(fd);
	if (IS_ERR(map)) {
		NL_SET_ERR_MSG_MOD(extack, "plane: not a BPF map file descriptor");
		return ERR_CAST(map);
	}
	if (map->map_type != BPF_MAP_TYPE_ARRAY || map->key_size != sizeof(u32) ||
	    map->value_size < sizeof(struct lossless_plane_tel) ||
	    map->max_entries < LOSSLESS_PLANE_ENTRIES) {
		NL_SET_ERR_MSG_MOD(extack,
				   "plane: the map must be an array with u32 keys, 2 entries and values of at least sizeof(struct lossless_plane_tel)");
		bpf_map_put(map);
		return ERR_PTR(-EINVAL);
	}
	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl) {
		bpf_map_put(map);
		return ERR_PTR(-ENOMEM);
	}
	pl->map = map;
	/* Array values live as long as the map; we hold a reference. */
	key = LOSSLESS_PLANE_CTL;
	pl->ctl = map->ops->map_lookup_elem(map, &key);
	key = LOSSLESS_PLANE_TEL;
	pl->tel = map->ops->map_lookup_elem(map, &key);
	pl->interval_us = LOSSLESS_PLANE_INTERVAL_DEFAULT_US;
	hrtimer_init(&pl->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	pl->timer.function = ll_kplane_tick;
	return pl;
}

void ll_kplane_free(struct ll_kplane *pl)
{
	if (!pl)
		return;
	hrtimer_cancel(&pl->timer);
	bpf_map_put(pl->map);
	kfree(pl);
}

void ll_kplane_start(struct ll_kplane *pl, struct ll_kpool *kp)
{
	pl->kp = kp;
	hrtimer_start(&pl->timer, 0, HRTIMER_MODE_REL_SOFT);
}

u32 ll_kplane_id(const struct ll_kplane *pl)
{
	return pl->map->id;
}

static int ll_plane_alpha(u32 v, struct ll_mmu_alpha *alpha)
{
	if (!(v >> 8) || v >> 24 || (v & 0xff) > LL_MMU_ALPHA_MAX_SHIFT)
		return -EINVAL;
	alpha->num = v >> 8;
	alpha->shift = v & 0xff;
	return 0;
}

/* Apply a control entry, all or nothing. Under kp->lock. */
static int ll_plane_apply(struct ll_kplane *pl, const struct lossless_plane_ctl *c,
			  u64 now)
{
	struct ll_kpool *kp = pl->kp;
	struct ll_mmu_config cfg = kp->mmu->cfg, old = kp->mmu->cfg;
	u32 old_headroom[LOSSLESS_PLANE_PORTS];
	int port[LOSSLESS_PLANE_PORTS];
	u32 nhead = c->set & LOSSLESS_PLANE_SET_HEADROOM ? LOSSLESS_PLANE_PORTS : 0;
	u32 i, done = 0;
	int err = 0;

	if (c->magic != LOSSLESS_PLANE_MAGIC || c->version != LOSSLESS_PLANE_VERSION)
		return -EPROTO;
	if (c->set & ~LL_PLANE_SET_ALL)
		return -EOPNOTSUPP;
	if ((c->set & LOSSLESS_PLANE_SET_ALPHA) && ll_plane_alpha(c->alpha, &cfg.alpha))
		return -EINVAL;
	if ((c->set & LOSSLESS_PLANE_SET_EGRESS_ALPHA) &&
	    ll_plane_alpha(c->egress_alpha, &cfg.egress_alpha))
		return -EINVAL;
	if (c->set & LOSSLESS_PLANE_SET_XON_OFFSET)
		cfg.xon_offset_bytes = c->xon_offset_bytes;
	if (c->set & LOSSLESS_PLANE_SET_RESERVED)
		cfg.reserved_bytes = c->reserved_bytes;
	if ((c->set & LOSSLESS_PLANE_SET_INTERVAL) &&
	    (c->interval_us < LOSSLESS_PLANE_INTERVAL_MIN_US ||
	     c->interval_us > LOSSLESS_PLANE_INTERVAL_MAX_US))
		return -ERANGE;
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
		struct Qdisc *sch;
		enum ll_mmu_err e;

		if (port[i] < 0)
			continue;
		sch = kp->members[port[i]];
		old_headroom[i] = kp->mmu->ports[port[i]].headroom_bytes;
		e = ll_qdisc_plane_headroom(sch, kp, port[i],
					    c->headroom[i].headroom_bytes, now);
		if (e != LL_MMU_OK) {
			err = e == LL_MMU_ERR_BUSY ? -EBUSY : -EINVAL;
			break;
		}
	}
	if (err) {
		/* Undo the ports already changed, then the pool. */
		for (i = 0; i < done; i++)
			if (port[i] >= 0)
				ll_qdisc_plane_headroom(kp->members[port[i]], kp,
							port[i], old_headroom[i],
							now);
		ll_mmu_pool_reconfigure(kp->mmu, &old);
		return err;
	}
	if (c->set & LOSSLESS_PLANE_SET_INTERVAL)
		pl->interval_us = c->interval_us;
	ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, now));
	return 0;
}

/* A new control entry is applied once it reads the same on two ticks in
 * a row: a write in progress (a syscall copies the value without a lock)
 * is never applied half-way.
 */
static void ll_plane_control(struct ll_kplane *pl, u64 now)
{
	struct lossless_plane_ctl *c = &pl->cur;

	memcpy(c, pl->ctl, sizeof(*c));
	if (c->gen == pl->applied_gen || memcmp(c, &pl->last, sizeof(*c))) {
		pl->last = *c;
		return;
	}
	pl->apply_error = ll_plane_apply(pl, c, now);
	pl->applied_gen = c->gen;
}

static void ll_plane_snapshot(struct ll_kplane *pl, u64 now)
{
	struct lossless_plane_tel *t = pl->tel;
	struct ll_kpool *kp = pl->kp;
	const struct ll_mmu_config *cfg = &kp->mmu->cfg;
	struct ll_mmu_pool_stats ps;
	u64 seq = READ_ONCE(t->seq) | 1;
	u32 i, nr = min_t(u32, kp->nr_ports, LOSSLESS_PLANE_PORTS);

	WRITE_ONCE(t->seq, seq);
	smp_wmb();	/* odd seq before the fields: pairs with the reader's */
	ll_mmu_get_pool_stats(kp->mmu, &ps);
	t->magic = LOSSLESS_PLANE_MAGIC;
	t->version = LOSSLESS_PLANE_VERSION;
	t->time_ns = now;
	t->snapshots = ++pl->snapshots;
	t->applied_gen = pl->applied_gen;
	t->apply_error = pl->apply_error;
	t->interval_us = pl->interval_us;
	strscpy(t->pool, kp->name, sizeof(t->pool));
	t->nr_ports = nr;
	t->lossless_mask = cfg->lossless_mask;
	t->alpha = cfg->alpha.num << 8 | cfg->alpha.shift;
	t->egress_alpha = cfg->egress_alpha.num << 8 | cfg->egress_alpha.shift;
	t->xon_offset_bytes = cfg->xon_offset_bytes;
	t->reserved_bytes = cfg->reserved_bytes;
	t->total_bytes = ps.total_bytes;
	t->reserved_size = ps.reserved_size;
	t->shared_size = ps.shared_size;
	t->headroom_size = ps.headroom_size;
	t->reserved_used = ps.reserved_used;
	t->shared_used = ps.shared_used;
	t->headroom_used = ps.headroom_used;
	t->peak_shared = ps.peak_shared;
	t->peak_headroom = ps.peak_headroom;
	t->admitted_packets = ps.ctr.admitted_packets;
	t->admitted_bytes = ps.ctr.admitted_bytes;
	t->drops_lossless = ps.ctr.drops_lossless;
	t->drops_lossy = ps.ctr.drops_lossy;
	t->paused_queues = ps.paused_queues;
	t->scheme.id = cfg->scheme;
	memcpy(&t->scheme.p, &cfg->scheme_params, sizeof(t->scheme.p));
	for (i = 0; i < max(nr, pl->tel_ports); i++) {
		struct lossless_plane_port *o = &t->ports[i];

		if (i < nr && kp->members[i])
			ll_qdisc_plane_port(kp->members[i], kp, i, o, now);
		else
			memset(o, 0, sizeof(*o));
	}
	pl->tel_ports = nr;
	smp_wmb();	/* the fields before the even seq */
	WRITE_ONCE(t->seq, seq + 1);
}

static enum hrtimer_restart ll_kplane_tick(struct hrtimer *timer)
{
	struct ll_kplane *pl = container_of(timer, struct ll_kplane, timer);
	struct ll_kpool *kp = pl->kp;
	u64 now = ktime_get_ns();

	/* Soft timer: softirq context, like the qdisc paths that take the
	 * pool lock, so a plain spin_lock suffices.
	 */
	spin_lock(&kp->lock);
	ll_plane_control(pl, now);
	ll_plane_snapshot(pl, now);
	spin_unlock(&kp->lock);
	hrtimer_forward_now(timer, ns_to_ktime((u64)pl->interval_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}
