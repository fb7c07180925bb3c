/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared-state plane (uapi: struct lossless_plane_ctl and struct
 * lossless_plane_tel): a BPF array map the control plane creates and pins,
 * handed to its owner (a pool) by fd (TCA_LOSSLESS_PLANE_FD, the cls_bpf
 * pattern). A soft hrtimer per plane applies new control entries and
 * writes the telemetry snapshot; the packet path never touches the map.
 *
 * The plane owns the map, the timer, the two-tick read of the control
 * entry, the seqlock of the telemetry and the header fields of both
 * entries (magic, version, gen, time, interval). What the entries say
 * about the owner is the owner's: it gives ll_kplane_ops and its lock.
 */
#ifndef LOSSLESS_PLANE_H
#define LOSSLESS_PLANE_H

#include <linux/bpf.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <net/netlink.h>

#include "uapi/lossless.h"

/*
 * What the owner does with the entries, called under the owner's lock
 * from the timer (softirq context):
 *   set       the LOSSLESS_PLANE_SET_* bits apply() handles; the plane
 *             refuses others (-EOPNOTSUPP) but SET_INTERVAL, its own;
 *   apply     apply the owner's fields of a control entry whose header the
 *             plane has checked, all or nothing: 0 or -errno (the plane
 *             takes a new interval only after a 0);
 *   snapshot  write the owner's fields of the telemetry, inside the
 *             plane's seqlock;
 *   channel   apply a scheme control channel payload (uapi: struct
 *             lossless_plane_channel) whose header the plane has checked:
 *             scheme and len as the block says, all or nothing: 0 or
 *             -errno. NULL: refused (-EOPNOTSUPP).
 */
struct ll_kplane_ops {
	u32 set;
	int (*apply)(void *owner, const struct lossless_plane_ctl *c, u64 now);
	void (*snapshot)(void *owner, struct lossless_plane_tel *t, u64 now);
	int (*channel)(void *owner, u32 scheme, const void *payload, u32 len,
		       u64 now);
};

struct ll_kplane {
	struct bpf_map *map;		/* one reference, ours */
	struct lossless_plane_ctl *ctl;	/* values inside the map */
	struct lossless_plane_tel *tel;
	struct lossless_plane_ctl last;	/* ctl as read on the last tick */
	struct lossless_plane_ctl cur;	/* this tick's copy (off the stack) */
	struct lossless_plane_channel *chan;	/* inside the control value */
	struct lossless_plane_channel chan_cur;	/* its copy */
	const struct ll_kplane_ops *ops;	/* set by ll_kplane_start() */
	void *owner;
	spinlock_t *lock;		/* the owner's, around both ops */
	struct hrtimer timer;
	u64 applied_gen;
	u64 snapshots;
	s32 apply_error;
	u32 interval_us;
	u64 chan_seq;			/* the channel block's, last taken */
	u64 chan_applied;
	u64 chan_refused;
	s32 chan_error;
};

/*
 * Take the plane map behind fd (in the caller's fd table) and check its
 * layout. Returns the plane, or an ERR_PTR with an extack message.
 */
struct ll_kplane *ll_kplane_get(u32 fd, struct netlink_ext_ack *extack);

/* Stop the timer (waiting for a running tick) and drop the map. */
void ll_kplane_free(struct ll_kplane *pl);

/*
 * Start ticking for owner: every tick takes lock (a plain spin_lock: the
 * owner's other users of it run in softirq context or disable bottom
 * halves) around ops->apply and ops->snapshot. Call once the owner can
 * serve the ops, not under lock.
 */
void ll_kplane_start(struct ll_kplane *pl, const struct ll_kplane_ops *ops,
		     void *owner, spinlock_t *lock);

/* Map id for dumps. */
u32 ll_kplane_id(const struct ll_kplane *pl);

#endif /* LOSSLESS_PLANE_H */
