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
