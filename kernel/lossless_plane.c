// SPDX-License-Identifier: GPL-2.0
/* The shared-state plane: see lossless_plane.h. */

#include <linux/bpf.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "lossless_plane.h"

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
	/* The value is at least a telemetry's size: the block fits. */
	BUILD_BUG_ON(sizeof(struct lossless_plane_ctl) >
		     LOSSLESS_PLANE_CHANNEL_OFFSET);
	BUILD_BUG_ON(LOSSLESS_PLANE_CHANNEL_OFFSET +
		     sizeof(struct lossless_plane_channel) >
		     sizeof(struct lossless_plane_tel));
	BUILD_BUG_ON(offsetof(struct lossless_plane_channel, payload) % 8);
	pl->chan = (void *)((char *)pl->ctl + LOSSLESS_PLANE_CHANNEL_OFFSET);
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

void ll_kplane_start(struct ll_kplane *pl, const struct ll_kplane_ops *ops,
		     void *owner, spinlock_t *lock)
{
	pl->ops = ops;
	pl->owner = owner;
	pl->lock = lock;
	hrtimer_start(&pl->timer, 0, HRTIMER_MODE_REL_SOFT);
}

u32 ll_kplane_id(const struct ll_kplane *pl)
{
	return pl->map->id;
}

/* Check the plane's part of a control entry, then have the owner apply
 * its part, all or nothing. Under the owner's lock.
 */
static int ll_plane_apply(struct ll_kplane *pl, const struct lossless_plane_ctl *c,
			  u64 now)
{
	int err;

	if (c->magic != LOSSLESS_PLANE_MAGIC || c->version != LOSSLESS_PLANE_VERSION)
		return -EPROTO;
	if (c->set & ~(pl->ops->set | LOSSLESS_PLANE_SET_INTERVAL))
		return -EOPNOTSUPP;
	if ((c->set & LOSSLESS_PLANE_SET_INTERVAL) &&
	    (c->interval_us < LOSSLESS_PLANE_INTERVAL_MIN_US ||
	     c->interval_us > LOSSLESS_PLANE_INTERVAL_MAX_US))
		return -ERANGE;
	err = pl->ops->apply(pl->owner, c, now);
	if (err)
		return err;
	if (c->set & LOSSLESS_PLANE_SET_INTERVAL)
		pl->interval_us = c->interval_us;
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

/* The scheme control channel's block (uapi: struct lossless_plane_channel):
 * taken once its seq is even, new and the same after the copy as before
 * it, so a write in progress is never applied half-way; then checked here
 * and applied by the owner, all or nothing. Under the owner's lock.
 */
static void ll_plane_channel(struct ll_kplane *pl, u64 now)
{
	struct lossless_plane_channel *w = &pl->chan_cur;
	u64 seq = READ_ONCE(pl->chan->seq);
	int err;

	if (!seq || (seq & 1) || seq == pl->chan_seq)
		return;
	smp_rmb();	/* seq before the fields: pairs with the writer's */
	memcpy(w, pl->chan, sizeof(*w));
	smp_rmb();	/* the fields before seq again */
	if (READ_ONCE(pl->chan->seq) != seq)
		return;		/* written meanwhile: the next tick */
	w->seq = seq;
	pl->chan_seq = seq;
	if (w->magic != LOSSLESS_PLANE_MAGIC ||
	    w->version != LOSSLESS_PLANE_VERSION)
		err = -EPROTO;
	else if (w->len > sizeof(w->payload))
		err = -EMSGSIZE;
	else if (!pl->ops->channel)
		err = -EOPNOTSUPP;
	else
		err = pl->ops->channel(pl->owner, w->scheme, w->payload, w->len,
				       now);
	pl->chan_error = err;
	if (err)
		pl->chan_refused++;
	else
		pl->chan_applied++;
}

static void ll_plane_snapshot(struct ll_kplane *pl, u64 now)
{
	struct lossless_plane_tel *t = pl->tel;
	u64 seq = READ_ONCE(t->seq) | 1;

	WRITE_ONCE(t->seq, seq);
	smp_wmb();	/* odd seq before the fields: pairs with the reader's */
	t->magic = LOSSLESS_PLANE_MAGIC;
	t->version = LOSSLESS_PLANE_VERSION;
	t->time_ns = now;
	t->snapshots = ++pl->snapshots;
	t->applied_gen = pl->applied_gen;
	t->apply_error = pl->apply_error;
	t->interval_us = pl->interval_us;
	t->channel_applied_seq = pl->chan_seq;
	t->channel_apply_error = pl->chan_error;
	t->channel_pad = 0;
	t->channel_applied = pl->chan_applied;
	t->channel_refused = pl->chan_refused;
	pl->ops->snapshot(pl->owner, t, now);
	smp_wmb();	/* the fields before the even seq */
	WRITE_ONCE(t->seq, seq + 1);
}

static enum hrtimer_restart ll_kplane_tick(struct hrtimer *timer)
{
	struct ll_kplane *pl = container_of(timer, struct ll_kplane, timer);
	u64 now = ktime_get_ns();

	/* Soft timer: softirq context, like the qdisc paths that take the
	 * owner's (the pool's) lock, so a plain spin_lock suffices.
	 */
	spin_lock(pl->lock);
	ll_plane_control(pl, now);
	ll_plane_channel(pl, now);
	ll_plane_snapshot(pl, now);
	spin_unlock(pl->lock);
	hrtimer_forward_now(timer, ns_to_ktime((u64)pl->interval_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}
