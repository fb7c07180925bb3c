/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * PortFC (docs/PORTFC.md; the paper's engineering spec is portfc.md):
 * per-port Pause/Resume in BCube(n, k), which cannot deadlock because
 * servers never detect congestion, relay queues are never paused and a
 * pause reaches at most three hops upstream.
 *
 * This file is the pure part, shared by the module, the BPF classifier,
 * the daemon and the tests: BCube addressing and digit-correcting paths
 * (spec section 2), the queue plan of every port and the classifier
 * (section 3), the switch egress detector with its two flags (Algorithms
 * 1 and 2, section 4.4), what a received frame closes and whether it is
 * relayed (Algorithms 3 and 4), and the headroom a port needs (4.10).
 *
 * Queues are numbered as the qdisc numbers them (class handle:queue+1):
 * queue 0 is the high-priority queue HQ (the qdisc's strict queue 0,
 * never paused), data queues follow in the spec's order shifted by one:
 *
 *   switch port   1 .. n-1 A-slots    n B               (n + 1 queues)
 *   server port   1 .. (k+1)(n-1) own traffic, hop class c at
 *                 1 + c(n-1) .. (c+1)(n-1), longest paths first (c = 0:
 *                 k+1 switch hops; c = k: one hop, the b-slots);
 *                 (k+1)(n-1) + 1 RQ, the relay queue ((k+1)(n-1) + 2)
 *
 * A slot is a port of the next-but-one switch with one impossible port
 * squeezed out (spec 3.3, the paper's numbering has a collision):
 * slot(e, ref) = e - (e > ref), e != ref.
 *
 * Frames (ctrl.h's table): a switch tells each port t the state of its
 * other egress ports p, class A (the A-slots' sum) in a PORTFC_A frame
 * and class B (the B queue) in a PORTFC_B frame, value slot(p, t) a
 * pause time in quanta (0: resume). Compacting by the receiving port t
 * makes the value's index the receiver's queue slot: a server on port t
 * of the switch has digit t there, and the switch two hops up, to which
 * the server relays class B as a PORTFC_R frame, has the same reference
 * t (its fixed digit). So no receiver translates anything: value i
 * closes gate LL_PORTFC_GATE_A(i) or LL_PORTFC_GATE_B(i), and a queue is
 * stopped by the gates its port's configuration gives it
 * (ll_portfc_queue_gates(): tc's gates QUEUE:GATE).
 */
#ifndef LL_PORTFC_H
#define LL_PORTFC_H

#include "ll_types.h"
#include "pause.h"

#define LL_PORTFC_MIN_N 2
#define LL_PORTFC_MAX_N 8		/* n - 1 slots fit a frame's mask octet */
#define LL_PORTFC_MAX_SLOTS (LL_PORTFC_MAX_N - 1)
#define LL_PORTFC_MAX_K 3		/* addressing; flow control: k = 1 */
/* Queues of a port: at most (k+1)(n-1)+2 for the largest BCube. */
#define LL_PORTFC_MAX_QUEUES ((LL_PORTFC_MAX_K + 1) * LL_PORTFC_MAX_SLOTS + 2)
#define LL_PORTFC_HQ 0			/* the high-priority queue */

/* The gates PortFC frames speak of (pause.h's free ids). */
#define LL_PORTFC_GATE_A(slot) (LL_GATE_FREE + (slot))
#define LL_PORTFC_GATE_B(slot) (LL_GATE_FREE + LL_PORTFC_MAX_SLOTS + (slot))
LL_BUILD_ASSERT(LL_GATE_FREE + 2 * LL_PORTFC_MAX_SLOTS <= LL_GATES,
		portfc_gates_fit);

/* A BCube(n, k): n^(k+1) servers, (k+1) n^k switches. */
struct ll_bcube {
	ll_u32 n;		/* switch radix, digit base */
	ll_u32 k;		/* levels 0 .. k */
};

/* Why (n, k) is refused, for the user, or NULL. */
const char *ll_bcube_check(const struct ll_bcube *b);

ll_u32 ll_bcube_servers(const struct ll_bcube *b);
ll_u32 ll_bcube_switches(const struct ll_bcube *b);	/* all levels */

/* Digit l of a server's address (base n). */
ll_u32 ll_bcube_digit(const struct ll_bcube *b, ll_u32 server, ll_u32 l);

/* The server with digit l of server set to v. */
ll_u32 ll_bcube_set_digit(const struct ll_bcube *b, ll_u32 server, ll_u32 l,
			  ll_u32 v);

/* Digits in which two servers differ: switch hops on a shortest path. */
ll_u32 ll_bcube_hamming(const struct ll_bcube *b, ll_u32 s, ll_u32 d);

/*
 * Switches: index i (0 .. n^k - 1) at level l is the server address
 * without digit l; its global id is servers + l n^k + i (the paper's
 * figure 6: BCube(4,1)'s level-0 switch of row r is 16 + r, level-1 of
 * column c 20 + c). Port p of switch (l, i) is cabled to the server with
 * digit l = p and the switch's digits elsewhere; that server's port l is
 * cabled to it.
 */
ll_u32 ll_bcube_switch_of(const struct ll_bcube *b, ll_u32 server, ll_u32 l);
ll_u32 ll_bcube_switch_server(const struct ll_bcube *b, ll_u32 l, ll_u32 i,
			      ll_u32 port);
/* k = 1: a level-l switch's fixed digit (at level 1 - l): its index. */

/*
 * The level a packet at server cur for dst corrects next on a shortest
 * path: the differing digits in the order first, first + 1, ... (mod
 * k + 1). k = 1 has the two paths of a two-hop packet: correct digit 0
 * first or digit 1 first (spec 2.4). Returns k + 1 when cur == dst.
 */
ll_u32 ll_bcube_next_level(const struct ll_bcube *b, ll_u32 cur, ll_u32 dst,
			   ll_u32 first);

/* ---------------------------------------------------------- queue plan */

/* slot(e, ref) = e - (e > ref); -1 if e == ref or e >= n. */
int ll_portfc_slot(ll_u32 n, ll_u32 e, ll_u32 ref);
/* Its inverse: the port of slot j (j < n - 1). */
ll_u32 ll_portfc_unslot(ll_u32 j, ll_u32 ref);

ll_u32 ll_portfc_switch_queues(const struct ll_bcube *b);	/* n + 1 */
ll_u32 ll_portfc_server_queues(const struct ll_bcube *b);	/* (k+1)(n-1)+2 */
static inline ll_u32 ll_portfc_switch_b(const struct ll_bcube *b)
{
	return b->n;
}

static inline ll_u32 ll_portfc_server_rq(const struct ll_bcube *b)
{
	return (b->k + 1) * (b->n - 1) + 1;
}

/* Why a packet was not classified as the plan says (counted). */
enum ll_portfc_class_err {
	LL_PORTFC_CLASS_OK = 0,
	LL_PORTFC_CLASS_UNKNOWN,	/* no BCube address (or out of range) */
	LL_PORTFC_CLASS_SELF,		/* for this very server / switch? */
	LL_PORTFC_CLASS_MISROUTED,	/* out of a port no shortest path uses */
};

/*
 * Where a classifier runs (a BCube port) and the packet it sees. At a
 * switch: its level and, k = 1, its fixed digit w (its index). At a
 * server: the level l of the port (the switch it is cabled to) and its
 * id. dst: the destination's server id, -1 for no BCube address;
 * relayed: a server forwards it (it arrived on a BCube port); hq: it
 * belongs in HQ (ARP, control frames, RoCE ACK/NAK/CNP).
 */
struct ll_portfc_where {
	struct ll_bcube b;
	ll_u32 level;
	ll_u32 node;
};

struct ll_portfc_pkt {
	ll_s32 dst;
	ll_u8 relayed;
	ll_u8 hq;
};

/*
 * The queue of a packet leaving a k = 1 switch (spec 3.4): HQ if hq; B if
 * dst sits on this switch (its digit at 1 - level is w); else the A-slot
 * slot(dst[1 - level], w), the port of dst on the switch the next server
 * relays through. No BCube address: B (never paused), *err says why.
 */
ll_u32 ll_portfc_classify_switch(const struct ll_portfc_where *at,
				 const struct ll_portfc_pkt *pkt,
				 enum ll_portfc_class_err *err);

/*
 * The queue of a packet leaving a server by its port (spec 3.4, the
 * general numbering of 3.2): HQ if hq; RQ if relayed; else the hop class
 * of its path and the slot of the next switch's egress port dst[l]. A
 * packet no shortest path sends out of this port (or for the server
 * itself, or to no BCube address) goes to RQ, never paused, and *err
 * says why.
 */
ll_u32 ll_portfc_classify_server(const struct ll_portfc_where *at,
				 const struct ll_portfc_pkt *pkt,
				 enum ll_portfc_class_err *err);

/*
 * The gates that stop a queue (a mask of pause.h's gate ids), the
 * port's configuration: at a server port facing a switch on which it
 * sits at port ref (its digit there), a-slots (every class but the last)
 * stop on the A gate of their slot, b-slots on the B gate; at a switch
 * port, A-slots stop on the B gate of their slot (a class-B pause the
 * server on that port relays). HQ, B and RQ are never stopped (0).
 */
ll_u32 ll_portfc_server_queue_gates(const struct ll_bcube *b, ll_u32 queue);
ll_u32 ll_portfc_switch_queue_gates(const struct ll_bcube *b, ll_u32 queue);

/*
 * The rank of a queue (spec 5.2): a pause only ever stops a queue of a
 * higher rank than the one that caused it. Switch B, HQ, server RQ: 0;
 * switch A-slots, b-slots: 1; a server's hop class c of a path of h
 * switch hops: h.
 */
ll_u32 ll_portfc_switch_queue_rank(const struct ll_bcube *b, ll_u32 queue);
ll_u32 ll_portfc_server_queue_rank(const struct ll_bcube *b, ll_u32 queue);

/* ------------------------------------------------ switch egress detector */

/* Thresholds in bytes: A on the A-slots' sum, B on the B queue. */
struct ll_portfc_thresholds {
	ll_u64 xoff_a_bytes;
	ll_u64 xon_a_bytes;
	ll_u64 xoff_b_bytes;
	ll_u64 xon_b_bytes;
};

/* Why thresholds are refused (0 < X_on < X_off, X_off >= 2 MTU), or NULL. */
const char *ll_portfc_thresholds_check(const struct ll_portfc_thresholds *t,
				       ll_u32 mtu_bytes);

/*
 * A switch egress port p: the bytes of its A-slots and of its B queue,
 * and whether the other ports were told to pause for either class. Two
 * flags, not the paper's one (spec 4.4.3: one shared flag loses a
 * Resume or a Pause).
 */
struct ll_portfc_eport {
	ll_u64 sum_a_bytes;
	ll_u64 b_bytes;
	ll_u64 pauses_a;	/* onsets */
	ll_u64 pauses_b;
	ll_u64 resumes_a;	/* reliefs */
	ll_u64 resumes_b;
	ll_u8 up_a;		/* the other ports were told: pause A */
	ll_u8 up_b;
};

/* What a change of an egress port asks for: a frame on every other port. */
#define LL_PORTFC_EV_PAUSE_A 0x1u
#define LL_PORTFC_EV_RESUME_A 0x2u
#define LL_PORTFC_EV_PAUSE_B 0x4u
#define LL_PORTFC_EV_RESUME_B 0x8u

/* bytes of queue joined port e (Algorithm 1): returns LL_PORTFC_EV_*. */
ll_u32 ll_portfc_enqueue(struct ll_portfc_eport *e,
			 const struct ll_portfc_thresholds *t,
			 const struct ll_bcube *b, ll_u32 queue, ll_u32 bytes);

/*
 * bytes of queue left port e (Algorithm 2; also a purge: a flushed
 * queue must resume its upstream too). Returns LL_PORTFC_EV_*.
 */
ll_u32 ll_portfc_dequeue(struct ll_portfc_eport *e,
			 const struct ll_portfc_thresholds *t,
			 const struct ll_bcube *b, ll_u32 queue, ll_u32 bytes);

/*
 * The same from bytes counted elsewhere (the MMU's egress queues): the
 * port's A-slots hold sum_a_bytes and its B queue b_bytes now. Onset at
 * >= X_off, relief at <= X_on, each class on its own flag. With new
 * thresholds and the same bytes, the flags follow at once (the scheme's
 * resync).
 */
ll_u32 ll_portfc_detect(struct ll_portfc_eport *e,
			const struct ll_portfc_thresholds *t,
			ll_u64 sum_a_bytes, ll_u64 b_bytes);

/*
 * What switch port t tells its server of a class: bit slot(p, t) for
 * every other port p of up_ports (bit p: p's flag of that class is up),
 * n ports.
 */
ll_u8 ll_portfc_tell(ll_u32 up_ports, ll_u32 n, ll_u32 t);

/* ---------------------------------------------------------- received */

enum ll_portfc_role {
	LL_PORTFC_ROLE_SERVER = 1,
	LL_PORTFC_ROLE_SWITCH = 2,
};

enum ll_portfc_rx {
	LL_PORTFC_RX_APPLY = 0,		/* close/open the gates it names */
	LL_PORTFC_RX_APPLY_RELAY,	/* and relay it as PORTFC_R (server, B) */
	LL_PORTFC_RX_BAD_SLOT,		/* a slot beyond n - 2: fc_bad */
	LL_PORTFC_RX_UNEXPECTED,	/* a kind this role never hears */
	LL_PORTFC_RX_NOT_PORTFC,	/* not a PortFC kind */
};

/*
 * Whether a parsed PortFC frame (ctrl.h's kinds PORTFC_A, _B, _R) is
 * taken by a port of role in a BCube of radix n (Algorithms 3 and 4 with
 * the spec's strict rules): servers hear A and B from their switch and
 * relay B; switches hear only R (a server's relay). Nothing else. Inline:
 * the ingress program runs it without linking this file.
 */
static inline enum ll_portfc_rx ll_portfc_rx_check(const struct ll_ctrl_msg *m,
						   ll_u32 role, ll_u32 n)
{
	ll_u32 slots;

	if (m->kind != LL_CTRL_PORTFC_A && m->kind != LL_CTRL_PORTFC_B &&
	    m->kind != LL_CTRL_PORTFC_R)
		return LL_PORTFC_RX_NOT_PORTFC;
	/* Servers hear their switch (A, B); switches a relay (R) only. */
	if (role == LL_PORTFC_ROLE_SERVER ? m->kind == LL_CTRL_PORTFC_R :
	    role != LL_PORTFC_ROLE_SWITCH || m->kind != LL_CTRL_PORTFC_R)
		return LL_PORTFC_RX_UNEXPECTED;
	if (n < LL_PORTFC_MIN_N || n > LL_PORTFC_MAX_N)
		return LL_PORTFC_RX_BAD_SLOT;
	slots = (1u << (n - 1)) - 1;
	if (m->gate_mask & ~slots)
		return LL_PORTFC_RX_BAD_SLOT;
	if (role == LL_PORTFC_ROLE_SERVER && m->kind == LL_CTRL_PORTFC_B)
		return LL_PORTFC_RX_APPLY_RELAY;
	return LL_PORTFC_RX_APPLY;
}

/* ------------------------------------------------------------ headroom */

/*
 * What a switch port's queues need beyond its thresholds (spec 4.10),
 * from the one-hop overshoot O1 (the PFC headroom of headroom.h for the
 * link: its terms are the same) and the two-hop overshoot O2 of a
 * relayed class-B pause (twice the cable and software terms, one more
 * frame stored and forwarded by the relay, and relay_queue_bytes the
 * relay's queue still sends): per port (n - 1) max(O1, O2); for the
 * pool, whose links deliver at most n overshoots in all,
 *   n (X_off + X^_off) + n max(O1, O2) + 2 n MTU (HQ's reserve).
 */
struct ll_portfc_need {
	ll_u64 o1_bytes;
	ll_u64 o2_bytes;
	ll_u64 port_headroom_bytes;	/* (n - 1) max(O1, O2) */
	ll_u64 pool_bytes;		/* the buffer the switch needs */
};

struct ll_headroom_params;

/* 0, or -1 for an input headroom.h refuses. */
int ll_portfc_need(const struct ll_bcube *b,
		   const struct ll_portfc_thresholds *t,
		   const struct ll_headroom_params *link,
		   ll_u64 relay_queue_bytes, struct ll_portfc_need *out);

#endif /* LL_PORTFC_H */
