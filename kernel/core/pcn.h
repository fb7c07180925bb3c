/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * PCN, Photonic Congestion Notification (pcn.md; Cheng et al., NSDI'20):
 * the three parts of its control loop as pure functions over state the
 * caller owns (a queue's, a flow's), for the qdisc, BPF and the tests.
 *
 * CP (pcn.md 2.1, A1): NP-ECN. At dequeue a packet is marked CE iff the
 * queue's backlog after removing it is above 0 (K = 0), unless it sat in
 * the queue through a PAUSE: on RESUME the queue's PN = its packet count
 * (overwritten, never added), and the next PN departures are exempt.
 *
 * NP (2.2, 7.3): per flow, lazy windows of T. The first packet after a
 * window of T or more closes it and opens the next one: a CNP goes with
 * congested = (ce * 100 >= theta * pkts) and the receive rate over the
 * window's real length (bytes * 8000 / elapsed_ns Mbps; for a slow flow
 * the inter-arrival time, the paper's slow-flow rule).
 *
 * RP (2.3, 7.2): Algorithm 1 in the fixed point of 7.2: rates u64 kbps,
 * the weight w Q24 in a u32 (1.0 = 1 << 24):
 *   decrease (line 6, 7): r = min(r, rec - (rec * w_min >> 24)); w = w_min
 *   increase (line 10):   r = r - (r * w >> 24) + (L * w >> 24)
 *            (line 11):   w = w * ((1 << 24) - w + w_max) >> 24
 * with line 11 after line 10, both with the old w. Products stay below
 * 2^55 for L up to 1.6 Tbit/s. Plus (pcn.md 4, A9, A20) a floor min_rate
 * on every result and a reset to L and w_min after an idle spell.
 *
 * Integers only, no allocation, no loops: the same code runs in the
 * kernel module, in BPF programs and in userspace.
 */
#ifndef LL_PCN_H
#define LL_PCN_H

#include "ll_types.h"

#define LL_PCN_Q24_ONE (1U << 24)
/* pcn.md 4's defaults: w_min 1/128, w_max 1/2, T 50 us, theta 95 %. */
#define LL_PCN_W_MIN_Q24_DEFAULT (LL_PCN_Q24_ONE / 128)
#define LL_PCN_W_MAX_Q24_DEFAULT (LL_PCN_Q24_ONE / 2)
#define LL_PCN_PERIOD_NS_DEFAULT 50000ULL
#define LL_PCN_THETA_PCT_DEFAULT 95U
#define LL_PCN_MIN_RATE_KBPS_DEFAULT 1000ULL	/* 1 Mbps, RecRate's unit */
#define LL_PCN_IDLE_NS_DEFAULT 1000000ULL	/* 1 ms, about 20 T (A20) */
/* 1.6 Tbit/s, the headroom code's bound on a link. */
#define LL_PCN_RATE_KBPS_MAX 1600000000ULL
#define LL_PCN_PERIOD_NS_MAX LL_NSEC_PER_SEC
#define LL_PCN_REC_RATE_MBPS_MAX 0xFFFFFFFFULL

/* The IP ECN field. */
#define LL_ECN_NOT_ECT 0U
#define LL_ECN_ECT1 1U
#define LL_ECN_ECT0 2U
#define LL_ECN_CE 3U

struct ll_pcn_params {
	ll_u64 period_ns;	/* T: the NP's window, the control period */
	ll_u64 line_rate_kbps;	/* L: the RP's start rate, increase target */
	ll_u64 min_rate_kbps;	/* the RP's floor (A9), > 0 */
	ll_u64 rp_idle_ns;	/* RP: idle this long restarts at L; 0 never */
	/*
	 * NP: a window whose next packet comes this long after it opened is
	 * stale: dropped without a CNP, and the packet opens a fresh window
	 * (A20). 0: never, every window is reported however long (7.3).
	 */
	ll_u64 np_idle_ns;
	ll_u32 theta_pct;	/* congested iff >= theta % of packets CE */
	ll_u32 w_min_q24;
	ll_u32 w_max_q24;
};

/* Defaults for a sender at line_rate_kbps. */
void ll_pcn_params_default(struct ll_pcn_params *p, ll_u64 line_rate_kbps);

/*
 * NULL if p is valid, else a message naming the parameter and the bound
 * it breaks, for the user.
 */
const char *ll_pcn_check(const struct ll_pcn_params *p);

/* CP: one (egress port, lossless priority) queue. */
struct ll_pcn_cp {
	ll_u32 pn_pkts;		/* departures still exempt (PN) */
	ll_u8 paused;		/* the peer has PAUSEd this queue */
};

/* What the CP decided for one departing packet, for its counters. */
enum ll_pcn_cp_verdict {
	LL_PCN_CP_MARK = 0,	/* set CE (a CE packet stays CE) */
	LL_PCN_CP_EXEMPT_PN,	/* it sat through a PAUSE: never marked */
	LL_PCN_CP_NOT_ECT,	/* would be marked, but Not-ECT (unmarkable) */
	LL_PCN_CP_NO_QUEUE,	/* the queue is empty after it: unmarked */
	LL_PCN_CP_NOT_LOSSLESS,	/* not a lossless class: NP-ECN skips it */
};

static inline void ll_pcn_cp_init(struct ll_pcn_cp *cp)
{
	cp->pn_pkts = 0;
	cp->paused = 0;
}

/* The peer PAUSEd the queue (a frame with quanta > 0, or a refresh). */
static inline void ll_pcn_cp_pause(struct ll_pcn_cp *cp)
{
	cp->paused = 1;
}

/*
 * The queue resumes: a RESUME frame (quanta 0) or the pause's expiry
 * (A3), with qlen_pkts packets waiting now. PN = qlen_pkts, overwritten
 * (CP-4). A RESUME while not paused changes nothing (CP-5). Returns 1 if
 * the queue was paused.
 */
int ll_pcn_cp_resume(struct ll_pcn_cp *cp, ll_u32 qlen_pkts);

/* Queue flush, qdisc reset, link down (CP-9). */
static inline void ll_pcn_cp_reset(struct ll_pcn_cp *cp)
{
	ll_pcn_cp_init(cp);
}

/*
 * A packet left the queue without being sent (a head drop, or a purge):
 * PN can never exceed the queue (2.1).
 */
static inline void ll_pcn_cp_drop(struct ll_pcn_cp *cp, ll_u32 qlen_pkts)
{
	if (cp->pn_pkts > qlen_pkts)
		cp->pn_pkts = qlen_pkts;
}

/*
 * NP-ECN at dequeue (2.1, A1): the packet with ECN field ecn leaves a
 * queue of a class that is (lossless != 0) or is not lossless; its bytes
 * are already removed: backlog_after_bytes is what stays queued. The
 * departing packet never counts itself (A1), else every packet would be
 * marked. It is marked when more than k_bytes stay: the paper's K is 0;
 * a software switch whose hosts send in bursts of their timers' lateness
 * needs K above those bursts (docs/PCN.md). The PN exemption comes first
 * and consumes PN whatever the packet (CP-7); a Not-ECT packet is
 * reported only where it would have been marked.
 */
enum ll_pcn_cp_verdict ll_pcn_cp_dequeue(struct ll_pcn_cp *cp, int lossless,
					 ll_u64 backlog_after_bytes,
					 ll_u32 k_bytes, ll_u8 ecn);

/* NP: one flow at the receiver. Zeroed: a flow not seen yet. */
struct ll_pcn_np_flow {
	ll_u64 win_start_ns;	/* when the open window started */
	ll_u64 bytes;		/* in the open window */
	ll_u32 pkts;
	ll_u32 ce_pkts;
	ll_u32 not_ect_pkts;	/* Not-ECT arrivals: ECN path broken (A12) */
	ll_u8 active;		/* a window is open */
	ll_u8 pad[3];
	ll_u64 stale_windows;	/* windows dropped by np_idle_ns */
};

/* A CNP to send: the flag and the receive rate (3.3's payload). */
struct ll_pcn_cnp {
	ll_u32 rec_rate_mbps;	/* 1 .. 2^32 - 1 */
	ll_u8 congested;	/* CE = 1: decrease; 0: increase */
};

/*
 * Mbps from bytes over elapsed_ns: bytes * 8000 / elapsed_ns rounded to
 * the nearest, floored at 1 (A9: a 0 would stall the flow) and saturated
 * at 2^32 - 1 (the field).
 */
ll_u32 ll_pcn_rate_mbps(ll_u64 bytes, ll_u64 elapsed_ns);

/*
 * The 95 % rule (A7): congested iff ce_pkts * 100 >= theta_pct * pkts,
 * exact in integers; 0 for an empty window.
 */
int ll_pcn_congested(ll_u32 ce_pkts, ll_u32 pkts, ll_u32 theta_pct);

/* One arriving data packet, for the NP. */
struct ll_pcn_np_pkt {
	ll_u64 now_ns;		/* arrival time; must not go backwards */
	ll_u32 bytes;		/* the pacer's byte basis (3.4) */
	ll_u32 segs;		/* gso_segs for a GRO skb, else 1 (0 = 1) */
	ll_u8 ecn;		/* its IP ECN field */
};

/*
 * A data packet of the flow arrives. If it closes a window (now_ns -
 * win_start_ns >= T), fills *cnp and returns 1: the caller sends that
 * CNP. The packet then opens the next window. 0: nothing to send. (Four
 * arguments: a BPF call takes at most five.)
 */
int ll_pcn_np_packet(struct ll_pcn_np_flow *f, const struct ll_pcn_params *p,
		     const struct ll_pcn_np_pkt *pkt, struct ll_pcn_cnp *cnp);

/* RP: one flow at the sender. */
struct ll_pcn_rp {
	ll_u64 rate_kbps;	/* sendRate */
	ll_u64 last_ns;		/* last activity (CNP or packet sent) */
	ll_u32 w_q24;		/* w */
	ll_u32 pad;
	ll_u64 decreases;	/* CNPs with CE = 1 applied */
	ll_u64 increases;	/* CNPs with CE = 0 applied */
	ll_u64 idle_resets;
};

/* A new flow (Algorithm 1 lines 1-2): rate L, w = w_min, at now_ns. */
void ll_pcn_rp_init(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		    ll_u64 now_ns);

/*
 * The flow is active at now_ns (a packet to send, a CNP): restart it
 * (ll_pcn_rp_init) if it was idle rp_idle_ns or longer (A20, RP-16).
 * Returns 1 if it restarted. ll_pcn_rp_cnp calls it first.
 */
int ll_pcn_rp_touch(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		    ll_u64 now_ns);

/* Algorithm 1's decrease, lines 6-7, and the floor. */
void ll_pcn_rp_decrease(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
			ll_u32 rec_rate_mbps);

/* Algorithm 1's increase, lines 10-11 (old w in both). */
void ll_pcn_rp_increase(struct ll_pcn_rp *rp, const struct ll_pcn_params *p);

/*
 * A CNP arrives at now_ns (its sequence number already checked by the
 * caller, A21): idle reset, then the decrease (congested) or the
 * increase. Afterwards min_rate <= rate <= L and w_min <= w <= w_max.
 */
void ll_pcn_rp_cnp(struct ll_pcn_rp *rp, const struct ll_pcn_params *p,
		   int congested, ll_u32 rec_rate_mbps, ll_u64 now_ns);

#endif /* LL_PCN_H */
