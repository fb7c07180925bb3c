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
#define LOSSLESS_LATENESS_BUCKETS 20

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
	TCA_LOSSLESS_PLANE_FD,		/* u32: fd of the pool's plane map (set) */
	TCA_LOSSLESS_PLANE_ID,		/* u32: id of the plane map (dump only) */
	TCA_LOSSLESS_CATCHUP_BYTES,	/* u32: shaper catch-up bound */
	TCA_LOSSLESS_WATCHDOG,		/* nested TCA_LOSSLESS_WD_*: PFC watchdog */
	TCA_LOSSLESS_SCHEME,		/* nested TCA_LOSSLESS_SCHEME_*: the pool's */
	TCA_LOSSLESS_BACKLOG_NEED,	/* u32: frames netdev_max_backlog must hold
					 * for this pool (dump only)
					 */
	TCA_LOSSLESS_GATES,		/* u32[queues]: the gates that stop queue i
					 * (bit g: gate g < LOSSLESS_GATE_IDS); 0 or
					 * absent: its priorities' and the port's.
					 * Replaces the whole map; empty: all 0.
					 */
	TCA_LOSSLESS_MODE,		/* nested TCA_LOSSLESS_MODE_*: this port's */
	TCA_LOSSLESS_ECN_MODE,		/* u8: LOSSLESS_ECN_MODE_* (pool-wide) */
	TCA_LOSSLESS_NP_ECN_K_BYTES,	/* u32: NP-ECN marks above this many
					 * bytes behind the packet (pool-wide;
					 * 0, the paper's: any)
					 */
	TCA_LOSSLESS_SCHEME_PORT,	/* u8: this port's number in the
					 * pool's scheme (PortFC: its switch
					 * port, 0 .. n - 1); absent: the
					 * order it joined the pool
					 */
	__TCA_LOSSLESS_MAX
};

#define TCA_LOSSLESS_MAX (__TCA_LOSSLESS_MAX - 1)

/*
 * How the pool's ports mark CE (TCA_LOSSLESS_ECN_MODE): RED on the egress
 * queue's bytes at enqueue (the ecn thresholds; none while they are off),
 * or PCN's NP-ECN at dequeue (docs/PCN.md): an ECT packet of a lossless
 * priority is marked when its queue is not empty behind it, unless it sat
 * in the queue through a PAUSE of that queue.
 */
#define LOSSLESS_ECN_MODE_RED		0
#define LOSSLESS_ECN_MODE_NP_ECN	1

/* Gate ids (TCA_LOSSLESS_GATES): 0 .. 7 the PFC priorities, 8 the port
 * (802.3x PAUSE), 9 .. 23 free for schemes and frame kinds of our own.
 */
#define LOSSLESS_GATE_PORT 8
#define LOSSLESS_GATE_IDS 24

/*
 * The pool's MMU scheme (nested in TCA_LOSSLESS_SCHEME); docs/SCHEMES.md.
 * A message carrying TCA_LOSSLESS_SCHEME sets the whole scheme: its id and
 * its parameters, those not given taking their defaults. Parameters of a
 * scheme other than the id are refused. The id changes only while the
 * pool holds no packets; parameters at any time.
 */
enum {
	LOSSLESS_SCHEME_DT = 0,		/* PFC + Dynamic Threshold (default) */
	LOSSLESS_SCHEME_ST,		/* PFC + static threshold */
	LOSSLESS_SCHEME_DSH,		/* Dynamic and Shared Headroom */
	LOSSLESS_SCHEME_SPFC,		/* Selective PFC */
	LOSSLESS_SCHEME_PORTFC,		/* PortFC: per-port Pause/Resume (BCube) */
	__LOSSLESS_SCHEME_COUNT
};

#define LOSSLESS_SCHEME_MAX (__LOSSLESS_SCHEME_COUNT - 1)

enum {
	TCA_LOSSLESS_SCHEME_UNSPEC,
	TCA_LOSSLESS_SCHEME_ID,		/* u8: LOSSLESS_SCHEME_* */
	TCA_LOSSLESS_SCHEME_ST,		/* nested TCA_LOSSLESS_ST_* */
	TCA_LOSSLESS_SCHEME_DSH,	/* nested TCA_LOSSLESS_DSH_* */
	TCA_LOSSLESS_SCHEME_SPFC,	/* nested TCA_LOSSLESS_SPFC_* */
	TCA_LOSSLESS_SCHEME_PORTFC,	/* nested TCA_LOSSLESS_PORTFC_* */
	__TCA_LOSSLESS_SCHEME_MAX
};

#define TCA_LOSSLESS_SCHEME_MAX (__TCA_LOSSLESS_SCHEME_MAX - 1)

enum {
	TCA_LOSSLESS_ST_UNSPEC,
	TCA_LOSSLESS_ST_THRESHOLD_BYTES, /* u64: 0 = shared / attached ports */
	TCA_LOSSLESS_ST_PAD,
	__TCA_LOSSLESS_ST_MAX
};

#define TCA_LOSSLESS_ST_MAX (__TCA_LOSSLESS_ST_MAX - 1)

/* DSH (docs/DSH.md); every attribute 0 or absent: its default. */
#define LOSSLESS_DSH_F_NO_SHARED_HEADROOM	0x1ULL
#define LOSSLESS_DSH_F_NO_INSURANCE		0x2ULL
#define LOSSLESS_DSH_F_STATIC_TAU		0x4ULL

enum {
	TCA_LOSSLESS_DSH_UNSPEC,
	TCA_LOSSLESS_DSH_WINDOW_NS,	/* u64: single-queue window; 0 = 10 ms */
	TCA_LOSSLESS_DSH_EWMA_SHIFT,	/* u64: w = 2^-shift, 1..8; 0 = 2 */
	TCA_LOSSLESS_DSH_DEVIATION_GAIN, /* u64: k of Eq. 7, 1..16; 0 = 4 */
	TCA_LOSSLESS_DSH_FLAGS,		/* u64: LOSSLESS_DSH_F_*; 0 = DSH */
	TCA_LOSSLESS_DSH_PAD,
	__TCA_LOSSLESS_DSH_MAX
};

#define TCA_LOSSLESS_DSH_MAX (__TCA_LOSSLESS_DSH_MAX - 1)

/* SPFC (docs/SPFC.md); every attribute 0 or absent: its default. */
#define LOSSLESS_SPFC_F_WINDOW_END	0x1ULL	/* promote at a window's end */
#define LOSSLESS_SPFC_F_DAEMON		0x2ULL	/* the daemon's Victim bit */

enum {
	TCA_LOSSLESS_SPFC_UNSPEC,
	TCA_LOSSLESS_SPFC_TC_NS,	/* u64: window TC; 0 = 1 ms */
	TCA_LOSSLESS_SPFC_IRC_TH_BYTES,	/* u64: IRC_th; 0 = C x TC / 8 / K */
	TCA_LOSSLESS_SPFC_IRC_TH_PACKETS, /* u64: IRC_th in packets; 0 = bytes */
	TCA_LOSSLESS_SPFC_VICTIM_THRESHOLD_BYTES, /* u64: 0 = the buffer */
	TCA_LOSSLESS_SPFC_FLAGS,	/* u64: LOSSLESS_SPFC_F_* */
	TCA_LOSSLESS_SPFC_K,		/* u64: K, 1..1000; 0 = 5 */
	TCA_LOSSLESS_SPFC_PAD,
	__TCA_LOSSLESS_SPFC_MAX
};

#define TCA_LOSSLESS_SPFC_MAX (__TCA_LOSSLESS_SPFC_MAX - 1)

/*
 * PortFC (docs/PORTFC.md): the BCube radix, and the thresholds of an
 * egress port's A-slots (their sum) and B queue; 0 or absent: 24 and 16
 * MTU (6 and 4 times a BDP of 4 MTU).
 */
enum {
	TCA_LOSSLESS_PORTFC_UNSPEC,
	TCA_LOSSLESS_PORTFC_N,		/* u64: BCube radix n, 2 .. 8 (required) */
	TCA_LOSSLESS_PORTFC_XOFF_A_BYTES, /* u64: A-slots' sum pauses at this */
	TCA_LOSSLESS_PORTFC_XON_A_BYTES,  /* u64: ... resumes at this */
	TCA_LOSSLESS_PORTFC_XOFF_B_BYTES, /* u64: the B queue pauses at this */
	TCA_LOSSLESS_PORTFC_XON_B_BYTES,  /* u64: ... resumes at this */
	TCA_LOSSLESS_PORTFC_PAD,
	__TCA_LOSSLESS_PORTFC_MAX
};

#define TCA_LOSSLESS_PORTFC_MAX (__TCA_LOSSLESS_PORTFC_MAX - 1)

/*
 * A port's mode (nested in TCA_LOSSLESS_MODE; docs/ARCHITECTURE.md, "Port
 * modes"): an algorithm that decides for this port's lossless ingress
 * alone, beside the pool's scheme, which keeps deciding for the others.
 * The port carves the mode's buffer out of the pool and its lossless
 * bytes are charged there; what it sends upstream is the mode's. A message
 * carrying TCA_LOSSLESS_MODE sets the whole mode: its id and parameters,
 * those not given taking their defaults. The id changes only while the
 * port holds no lossless bytes. LOSSLESS_MODE_NONE: the pool's scheme.
 */
enum {
	LOSSLESS_MODE_NONE = 0,		/* the pool's scheme (default) */
	LOSSLESS_MODE_BIFROST,		/* Bifrost (docs/BIFROST.md) */
	__LOSSLESS_MODE_COUNT
};

#define LOSSLESS_MODE_MAX (__LOSSLESS_MODE_COUNT - 1)

enum {
	TCA_LOSSLESS_MODE_UNSPEC,
	TCA_LOSSLESS_MODE_ID,		/* u8: LOSSLESS_MODE_* */
	TCA_LOSSLESS_MODE_BIFROST,	/* nested TCA_LOSSLESS_BIFROST_* */
	__TCA_LOSSLESS_MODE_MAX
};

#define TCA_LOSSLESS_MODE_MAX (__TCA_LOSSLESS_MODE_MAX - 1)

/* Bifrost (docs/BIFROST.md); an attribute 0 or absent: its default. */
enum {
	TCA_LOSSLESS_BIFROST_UNSPEC,
	TCA_LOSSLESS_BIFROST_RTT_NS,	/* u64: the loop's RTT bound, required */
	TCA_LOSSLESS_BIFROST_SLOT_NS,	/* u64: T; 0 = RTT / 16 */
	TCA_LOSSLESS_BIFROST_JITTER_NS,	/* u64: J, a slot's lateness; 0 = T */
	TCA_LOSSLESS_BIFROST_BUFFER_BYTES, /* u64: H; 0 = the default size */
	TCA_LOSSLESS_BIFROST_LEAK_PERIOD, /* u64: k, 1..1024; 0 = 1 */
	TCA_LOSSLESS_BIFROST_FRAME,	/* u64: LOSSLESS_BIFROST_FRAME_* */
	TCA_LOSSLESS_BIFROST_PAD,
	__TCA_LOSSLESS_BIFROST_MAX
};

#define TCA_LOSSLESS_BIFROST_MAX (__TCA_LOSSLESS_BIFROST_MAX - 1)

/*
 * What a Bifrost port sends upstream each slot: PFC frames with the
 * slot's pause time (Bifrost), or TOKENS frames with a credit per
 * priority and for the link (BifrostX; docs/BIFROST.md).
 */
#define LOSSLESS_BIFROST_FRAME_PFC 0
#define LOSSLESS_BIFROST_FRAME_TOKENS 1

/* PFC watchdog (nested in TCA_LOSSLESS_WATCHDOG); see docs/WATCHDOG.md. */
enum {
	LOSSLESS_WD_OFF = 0,
	LOSSLESS_WD_ALERT,
	LOSSLESS_WD_FORWARD,
	LOSSLESS_WD_DROP,
};

#define LOSSLESS_WD_TIME_MIN_NS 1000000ULL		/* 1 ms */
#define LOSSLESS_WD_TIME_MAX_NS 60000000000ULL	/* 60 s */
#define LOSSLESS_WD_DETECT_DEFAULT_NS 200000000ULL	/* SONiC's defaults */
#define LOSSLESS_WD_RESTORE_DEFAULT_NS 200000000ULL
#define LOSSLESS_WD_POLL_DEFAULT_NS 100000000ULL
#define LOSSLESS_WD_XOFF_ALARM_MAX_NS 3600000000000ULL	/* 1 h; 0 = off */

enum {
	TCA_LOSSLESS_WD_UNSPEC,
	TCA_LOSSLESS_WD_ACTION,		/* u8: LOSSLESS_WD_* */
	TCA_LOSSLESS_WD_DETECT_NS,	/* u64: paused with a backlog this long */
	TCA_LOSSLESS_WD_RESTORE_NS,	/* u64: no XOFF for this long */
	TCA_LOSSLESS_WD_POLL_NS,	/* u64: timer period, <= detect, restore */
	TCA_LOSSLESS_WD_XOFF_ALARM_NS,	/* u64: our XOFF this long; 0 = off */
	TCA_LOSSLESS_WD_PAD,
	__TCA_LOSSLESS_WD_MAX
};

#define TCA_LOSSLESS_WD_MAX (__TCA_LOSSLESS_WD_MAX - 1)

/* Per PFC priority of a port. Compact: a qdisc's dump message carries
 * tc_lossless_xstats (once, in TCA_STATS2's TCA_STATS_APP; no TCA_XSTATS)
 * and must fit one NLMSG_GOODSIZE dump skb, or a reader on a fresh socket
 * misses the qdisc.
 */
struct tc_lossless_wd_stats {
	__u8 storm;		/* 1 while in storm */
	__u8 xoff_alarm;	/* 1 while our XOFF has lasted past xoff-alarm */
	__u16 pad;
	__u32 storms;		/* storms detected */
	__u32 restores;		/* storms ended */
	__u32 xoff_alarms;	/* XOFF alarms raised */
	__u64 dropped;		/* packets dropped by the watchdog */
	__u64 storm_ns;		/* time in storm, including now */
	__u64 xoff_ns;		/* our XOFF upstream lasting now, 0 if none */
};

/*
 * The pool's scheme on one port (DSH, SPFC), in tc_lossless_xstats and
 * the plane. What each word means is the scheme's: names, units and help
 * are the scheme's descriptor's (kernel/core/scheme.h: stats for ctr,
 * masks, prio_stats for prio).
 */
#define LOSSLESS_SCHEME_STATS 7
#define LOSSLESS_SCHEME_MASKS 4

struct tc_lossless_scheme_stats {
	__u32 scheme;		/* the pool's LOSSLESS_SCHEME_*; 0: no telemetry */
	__u32 masks;		/* priority mask i in bits 8 i .. 8 i + 7 */
	__u64 ctr[LOSSLESS_SCHEME_STATS];
	__u32 prio[LOSSLESS_PFC_PRIOS];	/* the first per-priority value */
};

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

/*
 * A port's mode (TCA_LOSSLESS_MODE) on that port, in tc_lossless_xstats
 * and the plane. What each counter means is the mode's: names, units and
 * help are its descriptor's (kernel/core/mode.h).
 */
#define LOSSLESS_MODE_STATS 15
#define LOSSLESS_MODE_HIST 18
#define LOSSLESS_MODE_PRIO_STATS 2

struct tc_lossless_mode_stats {
	__u32 mode;		/* LOSSLESS_MODE_*; 0: no mode */
	__u32 pad;
	__u64 ctr[LOSSLESS_MODE_STATS];
	/* The slot loop's lateness, slots per bucket: bucket 0 < 1 us,
	 * bucket i in [2^(i-1), 2^i) us, the last one open (>= 65.5 ms).
	 */
	__u32 late_hist[LOSSLESS_MODE_HIST];
	/* Appended: its values per priority (prio_stats in the descriptor). */
	__u64 prio[LOSSLESS_MODE_PRIO_STATS][LOSSLESS_PFC_PRIOS];
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
	__u64 pfc_frames_tx;	/* pause frames sent upstream, any kind */
	__u64 ecn_marks;	/* CE marks on this port's queues */
	__u64 unaccounted;	/* packets from outside the pool (local) */
	struct tc_lossless_iq_stats iq[LOSSLESS_PFC_PRIOS];
	/* Shaper and timer (appended). */
	__u64 catchup_bytes;	/* credit a backlogged port may catch up */
	__u64 shaper_lost_ns;	/* credit cut while backlogged (late wake-ups) */
	__u64 wake_late_max_ns;	/* latest wake-up seen */
	/* Lateness of the qdisc's timed wake-ups, from the time asked for to
	 * the dequeue that ran: bucket 0 < 1024 ns, bucket i in
	 * [2^(9+i), 2^(10+i)) ns, the last one >= 2^28 ns.
	 */
	__u64 wake_late[LOSSLESS_LATENESS_BUCKETS];
	/* PFC watchdog (appended). Sent only while the watchdog is on or has
	 * counted something; without it the struct ends here (sizes of
	 * older kernels are handled the same way).
	 */
	__u32 wd_action;	/* LOSSLESS_WD_* */
	__u32 wd_storm_mask;	/* priorities in storm now */
	__u32 wd_alarm_mask;	/* priorities with the XOFF alarm raised */
	__u32 wd_pad;
	struct tc_lossless_wd_stats wd[LOSSLESS_PFC_PRIOS];
	/* The pool's scheme on this port (appended). Sent whenever the
	 * pool's scheme has telemetry (DSH, SPFC), the watchdog's part with
	 * it; its counters are named by the scheme's descriptor.
	 */
	struct tc_lossless_scheme_stats sch;
	/* This port's mode (appended). Sent whenever the port has a mode,
	 * with every part above.
	 */
	struct tc_lossless_mode_stats mode;
	/* The headroom's premise on this port (appended). Sent whenever the
	 * qdisc is in a pool, with every part above. xoff_response: from
	 * the MMU's XOFF decision to the PFC or PAUSE frame built for the
	 * wire, the first part of the software delay (sw-delay) the
	 * headroom is sized for; iq[].peak_headroom against headroom_size
	 * is what the whole loop took.
	 */
	__u64 xoff_response_last_ns;
	__u64 xoff_response_max_ns;	/* since the peaks' reset */
	__u64 xoff_responses;		/* XOFF decisions timed */
	__u64 headroom_warnings;	/* a priority's headroom past 90 % */
	__u32 headroom_near_mask;	/* priorities past it now */
	__u32 premise_pad;
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
	/*
	 * Credit gates (appended): a downstream's TOKENS frames meter this
	 * queue's priorities (BifrostX, docs/BIFROST.md). Sums over the
	 * queue's metered gates.
	 */
	__u32 credit_metered;	/* its gates metered now (bit = gate) */
	__u32 credit_pad;
	__u64 credit_bytes;	/* credit left now (0 once expired) */
	__u64 credit_frames;	/* TOKENS frames that named its gates */
	__u64 credit_granted_bytes; /* shares of the link credit, summed */
	__u64 credit_blocked;	/* dequeues refused for want of credit */
	/* NP-ECN (appended; ecn-mode np-ecn): what its dequeues decided. */
	__u64 np_ecn_marked;	/* set CE */
	__u64 np_ecn_exempt;	/* not marked: sat through a PAUSE (PN) */
	__u64 np_ecn_not_ect;	/* would be marked, but Not-ECT */
};

/*
 * The shared-state plane of a pool: a BPF array map (u32 key,
 * LOSSLESS_PLANE_ENTRIES entries, value_size >= sizeof(struct
 * lossless_plane_tel)) given to the pool with TCA_LOSSLESS_PLANE_FD.
 *
 * Entry LOSSLESS_PLANE_CTL (control plane -> datapath) is written by
 * losslessd: when its gen differs from the last one applied and the entry
 * read the same on two consecutive ticks (so a write in progress is never
 * applied half-way), the pool applies the fields named in set, validated
 * exactly as the same tc options are. A refused entry changes nothing and
 * is reported in the telemetry (apply_error).
 *
 * Entry LOSSLESS_PLANE_TEL (datapath -> control plane) is rewritten every
 * interval_us by the pool: a snapshot guarded by seq, which is odd while
 * the snapshot is written. Read it, and retry if seq was odd or changed.
 * The packet path never touches the map: a plane costs one snapshot per
 * interval, whatever the packet rate.
 */
#define LOSSLESS_PLANE_CTL 0
#define LOSSLESS_PLANE_TEL 1
#define LOSSLESS_PLANE_ENTRIES 2
#define LOSSLESS_PLANE_MAGIC 0x4c4c504eU	/* "LLPN" */
#define LOSSLESS_PLANE_VERSION 10
#define LOSSLESS_PLANE_PORTS 64
#define LOSSLESS_PLANE_INTERVAL_MIN_US 100U
#define LOSSLESS_PLANE_INTERVAL_MAX_US 1000000U
#define LOSSLESS_PLANE_INTERVAL_DEFAULT_US 1000U

/* lossless_plane_ctl.set: the fields to apply. */
#define LOSSLESS_PLANE_SET_ALPHA	(1U << 0)
#define LOSSLESS_PLANE_SET_EGRESS_ALPHA	(1U << 1)
#define LOSSLESS_PLANE_SET_XON_OFFSET	(1U << 2)
#define LOSSLESS_PLANE_SET_RESERVED	(1U << 3)
#define LOSSLESS_PLANE_SET_INTERVAL	(1U << 4)
#define LOSSLESS_PLANE_SET_HEADROOM	(1U << 5)	/* headroom[] */
#define LOSSLESS_PLANE_SET_SCHEME	(1U << 6)	/* scheme: id, params */
#define LOSSLESS_PLANE_SET_MODE		(1U << 7)	/* mode[] (version 8) */
/* An action, not a field: once the entry is applied, the pool's peak
 * watermarks (pool shared and headroom, every ingress (port, priority) and
 * egress queue, the scheme's) restart from what is in use now, as SONiC's
 * `watermark clear` (losslessctl clear peaks). Alone in set, it changes
 * nothing else; with other fields, after they applied.
 */
#define LOSSLESS_PLANE_SET_RESET_PEAKS	(1U << 8)
/* Version 10: drain the pool (drain 1) or end the drain (drain 0), for a
 * change that needs an idle pool (the scheme's; losslessctl move-scheme):
 * while draining, every lossless queue of a port without a mode tells its
 * upstream XOFF and lossy arrivals are dropped. With SET_SCHEME in the same
 * entry, the scheme changes first (and must find the pool idle), then the
 * drain is set or ended; the telemetry's draining says which is in force.
 */
#define LOSSLESS_PLANE_SET_DRAIN	(1U << 9)

/*
 * The pool's scheme and its parameters (version 4), as TCA_LOSSLESS_SCHEME
 * sets them: the words of p a scheme does not use must be 0. The id
 * changes only while the pool holds no packets (-EBUSY otherwise).
 */
struct lossless_plane_scheme {
	__u32 id;		/* LOSSLESS_SCHEME_* */
	__u32 pad;
	union {
		struct {
			__u64 threshold_bytes;	/* 0: shared / ports */
		} st;
		struct {
			__u64 window_ns;
			__u64 ewma_shift;
			__u64 deviation_gain;
			__u64 flags;		/* LOSSLESS_DSH_F_* */
		} dsh;
		struct {
			__u64 tc_ns;
			__u64 irc_th_bytes;
			__u64 irc_th_packets;
			__u64 victim_threshold_bytes;
			__u64 flags;		/* LOSSLESS_SPFC_F_* */
			__u64 k;
		} spfc;
		struct {
			__u64 n;
			__u64 xoff_a_bytes;
			__u64 xon_a_bytes;
			__u64 xoff_b_bytes;
			__u64 xon_b_bytes;
		} portfc;
		__u64 raw[8];
	} p;
};

struct lossless_plane_headroom {
	__u32 ifindex;		/* a port of the pool; 0 = unused entry */
	__u32 headroom_bytes;	/* per lossless priority; 0 = computed */
};

/*
 * A port's mode (version 8), as TCA_LOSSLESS_MODE sets it: mode is a
 * LOSSLESS_MODE_* (0: none, the pool's scheme decides), params the words
 * of the mode's parameters (union ll_mode_params; word i is the mode's
 * row i, the words it does not use 0; 0 in a word takes its default).
 * SET_MODE changes the ports named in mode[] only, all of them or none:
 *   ENODEV  an ifindex that is no port of the pool, or a port twice;
 *   EINVAL  parameters the mode refuses at the port's rate and the pool's
 *           MTU (the core's ll_mode_check(); tc names why);
 *   EBUSY   a change of mode id while the port holds lossless bytes, or
 *           a buffer the pool cannot carve while it holds what it does;
 *   ENOSPC  a buffer that leaves the pool less than one MTU shared.
 * A change of parameters restarts (or reconfigures) the mode as tc's
 * does; an entry equal to what the port runs changes nothing. The entry
 * holds LOSSLESS_PLANE_MODE_PORTS slots, fewer than the pool's ports so
 * that the control entry stays below LOSSLESS_PLANE_CHANNEL_OFFSET: a
 * write changes at most that many ports.
 */
#define LOSSLESS_PLANE_MODE_PORTS 32
#define LOSSLESS_PLANE_MODE_PARAMS 8

struct lossless_plane_port_mode {
	__u32 ifindex;		/* a port of the pool; 0 = unused slot */
	__u32 mode;		/* LOSSLESS_MODE_*; 0 = none */
	__u64 params[LOSSLESS_PLANE_MODE_PARAMS];
};

struct lossless_plane_ctl {
	__u32 magic;		/* LOSSLESS_PLANE_MAGIC */
	__u32 version;		/* LOSSLESS_PLANE_VERSION */
	__u64 gen;		/* change it to have the entry applied */
	__u32 set;		/* LOSSLESS_PLANE_SET_* */
	__u32 alpha;		/* num << 8 | shift, as TCA_LOSSLESS_ALPHA */
	__u32 egress_alpha;
	__u32 xon_offset_bytes;
	__u32 reserved_bytes;
	__u32 interval_us;	/* telemetry period */
	struct lossless_plane_headroom headroom[LOSSLESS_PLANE_PORTS];
	struct lossless_plane_scheme scheme;
	/* Version 8: the ports' modes (LOSSLESS_PLANE_SET_MODE). */
	struct lossless_plane_port_mode mode[LOSSLESS_PLANE_MODE_PORTS];
	/* Version 10: 1 drains the pool, 0 ends it (LOSSLESS_PLANE_SET_DRAIN). */
	__u32 drain;
	__u32 drain_pad;
};

/*
 * The scheme control channel (version 7): one block for the run-time
 * commands of whatever scheme the pool runs (SPFC's: the slow path's
 * publications and the oracle's forced states, struct
 * lossless_spfc_channel below). It lives in the control entry's value at
 * LOSSLESS_PLANE_CHANNEL_OFFSET, apart from the parameters, so that a
 * command every window neither waits for nor delays a parameter change.
 * Written through the map's mapping under seq: odd while the writer
 * writes, then the next even value. On its next tick the datapath takes a
 * block whose seq is even, new and unchanged across its copy; the scheme
 * checks all of its payload and applies all of it, or the block is
 * refused whole with an errno (channel_apply_error in the telemetry;
 * counted in channel_refused):
 *   EPROTO      magic or version;
 *   EOPNOTSUPP  scheme is not the pool's, or the pool's takes no commands;
 *   EMSGSIZE    len is not the size of that scheme's payload;
 *   others      the scheme's own (below for SPFC).
 */
#define LOSSLESS_PLANE_CHANNEL_OFFSET 4096
#define LOSSLESS_CHANNEL_PAYLOAD_MAX 2048

struct lossless_plane_channel {
	__u32 magic;		/* LOSSLESS_PLANE_MAGIC */
	__u32 version;		/* LOSSLESS_PLANE_VERSION */
	__u64 seq;		/* odd while written; a new even value: apply */
	__u32 scheme;		/* LOSSLESS_SCHEME_*: whose payload */
	__u32 len;		/* payload bytes */
	__u8 payload[LOSSLESS_CHANNEL_PAYLOAD_MAX];	/* 8-byte aligned */
};

/*
 * SPFC's payload (docs/SPFC.md, "The slow path and the oracle"): per port
 * of the pool, the daemon's per-window Victim bits (spfc-mode daemon) and
 * the oracle's forced states. Refused:
 *   ENODEV  an ifindex that is no port of the pool;
 *   EINVAL  a port twice, unknown flags, bits of priorities that are not
 *           lossless, a priority forced both ways, data in an unused slot
 *           or publication fields without the flag;
 *   ERANGE  a window that ends after now.
 * The payload is the whole desired state: a port of the pool in no slot
 * has no forced priority. A slot with LOSSLESS_SPFC_PUB publishes victims
 * for the window that ended at window_end_ns (the core's
 * ll_spfc_publish(): a priority that paused ignores it until a window
 * that ended after its RESUME); applying the same publication again
 * changes nothing.
 */
#define LOSSLESS_SPFC_PUB 0x1	/* victims, window_end_ns: a publication */

struct lossless_plane_spfc_port {
	__u32 ifindex;		/* a port of the pool; 0: unused slot */
	__u8 flags;		/* LOSSLESS_SPFC_PUB */
	__u8 victims;		/* the daemon's Victim bits, by priority */
	__u8 force_victim;	/* the oracle: priorities always Victim */
	__u8 force_normal;	/* priorities always Normal (SPFC off) */
	__u64 window_end_ns;	/* CLOCK_MONOTONIC end of the window judged */
};

struct lossless_spfc_channel {
	struct lossless_plane_spfc_port ports[LOSSLESS_PLANE_PORTS];
};

struct lossless_plane_port {
	__u32 ifindex;		/* 0: no port in this slot */
	__u32 paused_mask;	/* gates closed by PFC/PAUSE received */
	__u64 rate_bps;
	__u64 tx_packets;	/* the qdisc's sent counters */
	__u64 tx_bytes;
	__u64 qdisc_drops;
	__u64 pfc_frames_tx;
	__u64 pfc_frames_rx;
	__u64 pause_frames_rx;
	__u64 ecn_marks;
	__u64 egress_bytes;	/* accounted bytes queued on this port */
	__u64 headroom_bytes;	/* per lossless priority */
	struct tc_lossless_iq_stats iq[LOSSLESS_PFC_PRIOS];
	/* Shaper and timer, as in tc_lossless_xstats (version 2). */
	__u64 catchup_bytes;
	__u64 shaper_lost_ns;
	__u64 wake_late_max_ns;
	__u64 wake_late[LOSSLESS_LATENESS_BUCKETS];
	/* PFC watchdog, as in tc_lossless_xstats. */
	__u32 wd_action;
	__u32 wd_storm_mask;
	__u32 wd_alarm_mask;
	__u32 wd_pad;
	struct tc_lossless_wd_stats wd[LOSSLESS_PFC_PRIOS];
};

/* The scheme's telemetry of a port slot (as in tc's xstats, and more). */
struct lossless_plane_scheme_port {
	struct tc_lossless_scheme_stats s;
	__u32 prio2[LOSSLESS_PFC_PRIOS];	/* the second per-priority value */
};

/*
 * The pool's event ring: the latest LOSSLESS_EVENTS state changes of its
 * scheme's queues and ports, oldest overwritten first. An event's type is
 * the number the scheme that logged it gave it (from 1; 0: an empty
 * slot), and scheme is that scheme (LOSSLESS_SCHEME_*; a change of scheme
 * does not clear the ring): the names are the scheme's, in its descriptor
 * in the core (kernel/core/scheme_<name>.c), which losslessctl events
 * prints.
 */
#define LOSSLESS_EVENTS 64

#define LOSSLESS_EV_PORT 0xff		/* prio of a port's event */

struct lossless_event {
	__u64 time_ns;		/* CLOCK_MONOTONIC, as time_ns of the snapshot */
	__u64 bytes;		/* the queue's bytes; a port's: its lossless */
	__u64 shared_used;	/* the pool's shared bytes then */
	__u32 ifindex;		/* the port's device */
	__u8 port;		/* the port's index in the pool */
	__u8 prio;		/* or LOSSLESS_EV_PORT */
	__u8 type;		/* the scheme's own event number */
	__u8 scheme;		/* LOSSLESS_SCHEME_* that logged it (was pad) */
};

/*
 * The headroom's premise on a port slot (version 10), as tc_lossless_xstats
 * carries it: the XOFF response (from the MMU's XOFF decision to the frame
 * built for the wire) and the headroom warnings.
 */
struct lossless_plane_premise {
	__u64 xoff_response_last_ns;
	__u64 xoff_response_max_ns;	/* since the peaks' reset */
	__u64 xoff_responses;		/* XOFF decisions timed */
	__u64 headroom_warnings;	/* a priority's headroom past 90 % */
	__u32 headroom_near_mask;	/* priorities past it now */
	__u32 pad;
};

struct lossless_plane_tel {
	__u32 magic;		/* LOSSLESS_PLANE_MAGIC once written */
	__u32 version;
	__u64 seq;		/* odd while being written */
	__u64 time_ns;		/* CLOCK_MONOTONIC of this snapshot */
	__u64 snapshots;
	__u64 applied_gen;	/* last control gen applied or refused */
	__s32 apply_error;	/* 0, or -errno for that gen */
	__u32 interval_us;
	char pool[16];
	__u32 nr_ports;		/* ports[0 .. nr_ports - 1] are valid */
	__u32 lossless_mask;
	__u32 alpha;		/* num << 8 | shift */
	__u32 egress_alpha;
	__u32 xon_offset_bytes;
	__u32 reserved_bytes;
	__u64 total_bytes;
	__u64 reserved_size;
	__u64 shared_size;
	__u64 headroom_size;
	__u64 reserved_used;
	__u64 shared_used;
	__u64 headroom_used;
	__u64 peak_shared;
	__u64 peak_headroom;
	__u64 admitted_packets;
	__u64 admitted_bytes;
	__u64 drops_lossless;	/* must stay 0 */
	__u64 drops_lossy;
	__u64 paused_queues;
	struct lossless_plane_scheme scheme;	/* in force */
	struct lossless_plane_port ports[LOSSLESS_PLANE_PORTS];
	/* Version 5: the scheme's telemetry per port slot, and its events. */
	struct lossless_plane_scheme_port sch[LOSSLESS_PLANE_PORTS];
	__u64 events_total;	/* events ever logged; the latest is
				 * events[(events_total - 1) % LOSSLESS_EVENTS]
				 */
	struct lossless_event events[LOSSLESS_EVENTS];
	/* Version 7: the scheme control channel's block. */
	__u64 channel_applied_seq; /* the last block's seq applied or refused */
	__s32 channel_apply_error; /* 0, or -errno for that block */
	__u32 channel_pad;
	__u64 channel_applied;	/* blocks applied */
	__u64 channel_refused;	/* blocks refused */
	/*
	 * Version 8: each port slot's mode, as in tc's xstats (mode 0: none);
	 * version 9: with its per-priority values.
	 */
	struct tc_lossless_mode_stats mode[LOSSLESS_PLANE_PORTS];
	/* Version 10: 1 while the pool drains (LOSSLESS_PLANE_SET_DRAIN). */
	__u32 draining;
	__u32 draining_pad;
	/* Version 10: each port slot's headroom premise, as in tc's xstats. */
	struct lossless_plane_premise premise[LOSSLESS_PLANE_PORTS];
};

/*
 * Ingress BPF -> qdisc. The TC ingress program validates a control frame
 * (a kind of the core's table, kernel/core/ctrl.c), rewrites EtherType
 * 0x8808 (MAC control) to LOSSLESS_CTRL_ETHERTYPE, sets skb->mark to
 * LOSSLESS_CTRL_MARK and redirects it to its own port's egress. The
 * lossless qdisc consumes it in enqueue (under its own lock) and applies
 * it. Any other qdisc would send a frame with an unknown local
 * experimental EtherType (IEEE 802 0x88B5, or 0x88B6 of our own kinds) to
 * a reserved multicast address that no bridge forwards: harmless, never a
 * PAUSE reflected to the peer.
 */
#define LOSSLESS_CTRL_ETHERTYPE 0x88B5
#define LOSSLESS_CTRL_MARK 0x4c4c5043	/* "LLPC" */

#endif /* _UAPI_LOSSLESS_H */
