/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * The lossless qdisc's userspace ABI: netlink options (TCA_OPTIONS nest),
 * extended stats, and the contract between the ingress BPF program and the
 * qdisc. Structs only ever grow at the end; readers copy min(len, sizeof).
 */
#ifndef _UAPI_LOSSLESS_H
#define _UAPI_LOSSLESS_H

#include <linux/types.h>

#define LOSSLESS_MAX_QUEUES 64
#define LOSSLESS_PRIOMAP_LEN 16		/* TC_PRIO_MAX + 1, like ets */
#define LOSSLESS_PFC_PRIOS 8

/* Limits enforced by the kernel policy (and checked early by tc). */
#define LOSSLESS_RATE_MIN_BPS 8000ULL		/* 8 kbit/s */
#define LOSSLESS_RATE_MAX_BPS 1600000000000ULL	/* 1.6 Tbit/s */
#define LOSSLESS_BURST_MIN_BYTES 64U
#define LOSSLESS_BURST_MAX_BYTES (1U << 30)
#define LOSSLESS_LIMIT_MAX_PKTS (1U << 20)
#define LOSSLESS_QUANTUM_MAX_BYTES (1U << 24)

enum {
	TCA_LOSSLESS_UNSPEC,
	TCA_LOSSLESS_RATE_BPS,		/* u64: port line rate, bits/s */
	TCA_LOSSLESS_BURST_BYTES,	/* u32: shaper bucket */
	TCA_LOSSLESS_QUEUES,		/* u8: number of data queues */
	TCA_LOSSLESS_STRICT,		/* u8: queues 0..n-1 are strict */
	TCA_LOSSLESS_PRIOMAP,		/* u8[16]: skb->priority -> queue */
	TCA_LOSSLESS_QUANTA,		/* u32[queues]: DWRR quantum, bytes */
	TCA_LOSSLESS_LIMIT_PKTS,	/* u32: per-queue limit */
	TCA_LOSSLESS_PAD,
	/* Shared-buffer switch MMU (a pool is all ports naming it). Pool-wide
	 * values apply to the pool whichever member sets them.
	 */
	TCA_LOSSLESS_POOL,		/* string: pool name, joins or creates */
	TCA_LOSSLESS_POOL_BYTES,	/* u64: pool buffer size (pool-wide) */
	TCA_LOSSLESS_ALPHA,		/* u32: DT alpha, num << 8 | shift */
	TCA_LOSSLESS_EGRESS_ALPHA,	/* u32: lossy egress DT alpha, same */
	TCA_LOSSLESS_LOSSLESS_PRIOS,	/* u8: bit p = priority p lossless */
	TCA_LOSSLESS_RESERVED_BYTES,	/* u32: per ingress (port, prio) */
	TCA_LOSSLESS_XON_OFFSET_BYTES,	/* u32: resume below T - this */
	TCA_LOSSLESS_CABLE_DELAY_NS,	/* u64: one-way, this port's link */
	TCA_LOSSLESS_SW_DELAY_NS,	/* u64: software response, both ends */
	TCA_LOSSLESS_HEADROOM_BYTES,	/* u32: override the computed one */
	TCA_LOSSLESS_ECN_KMIN_BYTES,	/* u32: RED marking, 0 = off */
	TCA_LOSSLESS_ECN_KMAX_BYTES,	/* u32 */
	TCA_LOSSLESS_ECN_PMAX,		/* u32: probability, 1/65536 units */
	__TCA_LOSSLESS_MAX
};

#define TCA_LOSSLESS_MAX (__TCA_LOSSLESS_MAX - 1)

enum {
	TC_LOSSLESS_XSTATS_QDISC = 1,
	TC_LOSSLESS_XSTATS_CLASS = 2,
};

/* Per-gate receive counters: gates 0..7 are PFC priorities, 8 the port
 * (802.3x PAUSE).
 */
#define LOSSLESS_GATES (LOSSLESS_PFC_PRIOS + 1)

struct tc_lossless_gate_stats {
	__u64 xoff_frames;	/* frames that closed or refreshed the gate */
	__u64 xon_frames;	/* frames with time 0 */
	__u64 paused_ns;	/* total closed time, including now */
};

/* One ingress (port, priority) of a pool member. */
struct tc_lossless_iq_stats {
	__u64 bytes;		/* queued anywhere, entered here */
	__u64 headroom_used;
	__u64 headroom_size;
	__u64 peak_bytes;
	__u64 peak_headroom;
	__u64 threshold;	/* Dynamic Threshold now */
	__u64 xoff_frames;	/* PFC XOFF sent upstream */
	__u64 xon_frames;
	__u64 paused_ns;	/* upstream told XOFF, including now */
	__u64 drops;
	__u32 paused;
	__u32 lossless;
};

struct tc_lossless_xstats {
	__u32 type;		/* TC_LOSSLESS_XSTATS_QDISC */
	__u32 paused_mask;	/* gates closed now (bit 8 = port) */
	__u64 pfc_frames_rx;	/* valid PFC frames applied */
	__u64 pause_frames_rx;	/* valid 802.3x PAUSE frames applied */
	__u64 ctrl_invalid;	/* control messages that failed re-validation */
	__u64 throttled;	/* dequeues deferred by the shaper */
	__u64 pause_blocked;	/* dequeues with only paused queues backlogged */
	__u64 rate_bps;		/* effective line rate */
	struct tc_lossless_gate_stats gates[LOSSLESS_GATES];
	/* Pool (switch MMU); all zero when the qdisc is in no pool. */
	__u32 pool_port;	/* this port's index in the pool */
	__u32 pool_ports;	/* ports attached to the pool */
	__u64 pool_total_bytes;
	__u64 pool_shared_size;
	__u64 pool_shared_used;
	__u64 pool_headroom_size;
	__u64 pool_headroom_used;
	__u64 pool_peak_shared;
	__u64 pool_peak_headroom;
	__u64 pool_drops_lossless;	/* must stay 0: a sizing bug */
	__u64 pool_drops_lossy;
	__u64 pfc_frames_tx;	/* PFC frames this port sent upstream */
	__u64 ecn_marks;	/* CE marks on this port's queues */
	__u64 unaccounted;	/* packets from outside the pool (local) */
	struct tc_lossless_iq_stats iq[LOSSLESS_PFC_PRIOS];
};

struct tc_lossless_class_xstats {
	__u32 type;		/* TC_LOSSLESS_XSTATS_CLASS */
	__u32 paused;		/* 1 while a gate of this queue is closed */
	__u32 gate_mask;	/* gates that stop this queue */
	__u32 strict;		/* 1 = strict, 0 = DWRR */
	__u32 quantum_bytes;
	__u32 limit_pkts;
	__u64 pause_frames_rx;	/* XOFF frames for this queue's gates */
	__u64 paused_ns;	/* sum of its gates' closed time */
};

/*
 * Ingress BPF -> qdisc. The TC ingress program validates a MAC control
 * frame, rewrites its EtherType to LOSSLESS_CTRL_ETHERTYPE, sets skb->mark
 * to LOSSLESS_CTRL_MARK and redirects it to its own port's egress. The
 * lossless qdisc consumes it in enqueue (under its own lock) and applies
 * it. Any other qdisc would send a frame with an unknown local
 * experimental EtherType (IEEE 802 0x88B5) to a reserved multicast address
 * that no bridge forwards: harmless, never a PAUSE reflected to the peer.
 */
#define LOSSLESS_CTRL_ETHERTYPE 0x88B5
#define LOSSLESS_CTRL_MARK 0x4c4c5043	/* "LLPC" */

#endif /* _UAPI_LOSSLESS_H */
