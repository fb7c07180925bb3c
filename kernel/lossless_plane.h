/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared-state plane of a pool (uapi: struct lossless_plane_ctl and
 * struct lossless_plane_tel): a BPF array map the control plane creates
 * and pins, handed to the pool by fd (TCA_LOSSLESS_PLANE_FD, the cls_bpf
 * pattern). A soft hrtimer per plane applies new control entries and
 * writes the telemetry snapshot; the packet path never touches the map.
 */
#ifndef LOSSLESS_PLANE_H
#define LOSSLESS_PLANE_H

#include <linux/bpf.h>
#include <linux/hrtimer.h>
#include <net/netlink.h>
#include <net/sch_generic.h>

#include "uapi/lossless.h"

struct ll_kpool;

struct ll_kplane {
	struct bpf_map *map;		/* one reference, ours */
	struct lossless_plane_ctl *ctl;	/* values inside the map */
	struct lossless_plane_tel *tel;
	struct lossless_plane_ctl last;	/* ctl as read on the last tick */
	struct lossless_plane_ctl cur;	/* this tick's copy (off the stack) */
	struct ll_kpool *kp;		/* set by ll_kpool_set_plane() */
	struct hrtimer timer;
	u64 applied_gen;
	u64 snapshots;
	s32 apply_error;
	u32 interval_us;
	u32 tel_ports;			/* port slots written last time */
};

/*
 * Take the plane map behind fd (in the caller's fd table) and check its
 * layout. Returns the plane, or an ERR_PTR with an extack message.
 */
struct ll_kplane *ll_kplane_get(u32 fd, struct netlink_ext_ack *extack);

/* Stop the timer (waiting for a running tick) and drop the map. */
void ll_kplane_free(struct ll_kplane *pl);

/* Start ticking for kp: call once kp->plane == pl, outside kp->lock. */
void ll_kplane_start(struct ll_kplane *pl, struct ll_kpool *kp);

/* Map id for dumps. */
u32 ll_kplane_id(const struct ll_kplane *pl);

/*
 * Provided by the qdisc (lossless_qdisc.c), called under kp->lock for
 * member sch, which is port of kp: fill its telemetry slot; set its
 * headroom (0 = computed), returning an enum ll_mmu_err. kp and port come
 * from the pool's table: a member is in the table before its qdisc has
 * finished joining (q->pool is set after ll_kpool_join() returns).
 */
void ll_qdisc_plane_port(struct Qdisc *sch, struct ll_kpool *kp, u32 port,
			 struct lossless_plane_port *out, u64 now);
int ll_qdisc_plane_headroom(struct Qdisc *sch, struct ll_kpool *kp, u32 port,
			    u32 headroom_bytes, u64 now);

#endif /* LOSSLESS_PLANE_H */
