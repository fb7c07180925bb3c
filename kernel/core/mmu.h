/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Shared-buffer switch MMU for one pool (all ports of one software
 * switch): its accounting, admission and pause decisions, with the pool's
 * scheme (scheme.h; docs/SCHEMES.md lists them) deciding thresholds and
 * hysteresis through its hooks. The scheme dt is the baseline every
 * lossless paper compares to, PFC + Dynamic Threshold + static headroom
 * ("SIH", dsh.md section 2; spfc.md 2.5 and 2.7), and what is described
 * below.
 *
 * Memory model. The pool is a byte budget (total_bytes), not memory: the
 * packets live in the egress qdiscs, the MMU only counts them. It is split
 * into
 *   reserved  reserved_bytes per ingress (port, priority), every priority;
 *   headroom  headroom_bytes(port) per ingress (port, lossless priority),
 *             from the port's rate and delays (headroom.h) or given;
 *   shared    the rest, shared by all queues under Dynamic Threshold.
 * The partition covers attached ports only: attach carves the port's
 * reserve and headroom out of the shared pool, detach gives them back.
 *
 * Accounting, two views of the same bytes (spfc.md 2.2):
 *   ingress (port, prio): reserved_used, shared_used, headroom_used; their
 *     sum is the bytes that entered on the port with that priority and are
 *     still queued anywhere; PFC is decided on this view;
 *   egress (port, queue): bytes queued for that output queue; lossy
 *     admission (egress DT) and ECN are decided on this view.
 * Pool totals: reserved_used, shared_used (S), headroom_used.
 *
 * Admission of a packet of L bytes from ingress (i, p) to egress (o, q),
 * first region with room wins (dsh.md Algorithm 1 with "<="):
 *   1. reserved  if reserved_used(i,p) + L <= reserved_bytes
 *   lossless p:
 *   2. shared    if shared_used(i,p) + L <= T_in and S + L <= shared_size
 *   3. headroom  if headroom_used(i,p) + L <= headroom_bytes(i)
 *   4. drop      LL_MMU_DROP_LOSSLESS: never expected, a sizing bug signal
 *   lossy p:
 *   2. shared    if egress bytes(o,q) + L <= T_eg and S + L <= shared_size
 *   3. drop      LL_MMU_DROP_LOSSY: by design
 * with the Dynamic Threshold T = alpha * max(0, shared_size - S), alpha the
 * ingress alpha for T_in and the egress alpha for T_eg. The S guard keeps
 * the shared pool from overflowing for any alpha (alpha > 1 included).
 * Lossy bytes live in the same shared pool (there is no separate lossy
 * pool): egress DT bounds each lossy queue to alpha_eg / (1 + n alpha_eg)
 * of it, and their share lowers T_in like any other shared bytes.
 *
 * Alpha is num / 2^shift (struct ll_mmu_alpha): 1/16 = {1, 4}, 2 = {2, 0},
 * 3/4 = {3, 2}. One multiply and one shift, no division, exact for every
 * power of two and fine-grained enough for any fraction the papers use.
 *
 * Release order. A packet's bytes return to its ingress queue's regions
 * either in drain order (LL_MMU_RELEASE_DRAIN, default: headroom first,
 * then shared, then reserved; dsh.md 2.6 and spfc.md D3-D5, the HPCC and
 * SONiC MMUs) so the headroom empties and XON comes as early as possible,
 * or to the region it was admitted to (LL_MMU_RELEASE_TAGGED). Either way
 * every counter returns to 0 when every charge is released.
 *
 * PFC hysteresis per lossless ingress (port, prio), with T = T_in now:
 *   XOFF when headroom_used > 0, or shared_used > xon_bytes and
 *        shared_used >= T;
 *   XON  when headroom_used == 0 and (shared_used <= xon_bytes or
 *        shared_used + xon_offset_bytes < T).
 * The two conditions are disjoint, so the state cannot flap without a
 * change in the counters. xon_offset_bytes is the SONiC/ns-3 xon_offset
 * (DSH's delta; 2 MTU is a good value), xon_bytes the SONiC "xon" floor: a
 * queue at or below it never stays paused (0: only an empty one).
 *
 * PFC generation. The hysteresis sets a "want" bit per priority; the
 * frames actually sent set a "told" bit. A frame is due on a port when
 * want != told for a priority (a state change), or when a pause in force
 * is due for refresh. Every frame carries XOFF (xoff_quanta, default
 * 0xFFFF) for every priority the port wants paused and XON (0) for every
 * priority changing to on; other priorities are left out of the vector.
 * So all pauses of a port share one refresh deadline: the time of the last
 * frame carrying XOFF plus half the pause it announced (quanta to ns at the
 * port's rate, halved): the upstream is refreshed halfway through, a
 * timer late by up to half the pause still loses nothing.
 * Frames are claimed with ll_mmu_ctrl_take() and confirmed with
 * ll_mmu_ctrl_complete(): while one is claimed no other is handed out, and
 * a failed send is retried by the next take. No duplicates by design.
 *
 * T rises when other queues drain, which can end a pause without any event
 * on the paused queue: ll_mmu_sweep() re-evaluates every queue; call it
 * from the port timer and when ll_mmu_release() returns LL_MMU_EV_SWEEP.
 * The pause direction needs no sweep: the next arrival that finds T too low
 * goes to headroom and pauses.
 *
 * Concurrency: none inside. Every function that takes a non-const pool
 * must be called under the pool lock (one spinlock per pool in the
 * module). The const accessors read plain integers: under the lock they
 * are exact; without it they are telemetry (values may be mutually
 * inconsistent, and torn on 32-bit machines).
 *
 * Memory: the caller allocates LL_MMU_POOL_BYTES(max_ports) bytes (one
 * allocation; about 3.5 KB per port) and calls ll_mmu_pool_init(). Nothing
 * is allocated inside.
 *
 * Schemes. Thresholds, hysteresis, the admission region of lossless bytes,
 * the headroom a port carves, event and timer hooks are the pool's scheme's
 * (cfg.scheme; scheme.h): DT (this baseline, the default) and the others
 * of scheme.c's table, each one file. A
 * scheme sees every arrival before it is decided (SPFC's window roll).
 * Ports keep their shared and headroom sums (DSH's insurance in use);
 * every event takes now_ns (SPFC windows, DSH estimator); the PFC state
 * is per port with a priority vector (DSH's port-level pause is "want all
 * lossless").
 */
#ifndef LL_MMU_H
#define LL_MMU_H

#include "ll_types.h"
#include "ctrl.h"
#include "scheme_types.h"
#include "mode_types.h"

#define LL_MMU_MAX_PORTS 64		/* a port set fits a u64 mask */
#define LL_MMU_PRIOS LL_PFC_PRIOS	/* ingress priorities per port */
#define LL_MMU_MAX_QUEUES 64		/* egress queues per port (uapi) */
#define LL_MMU_MAX_TOTAL_BYTES (1ULL << 40)
#define LL_MMU_MAX_MTU_BYTES (1U << 20)
#define LL_MMU_ALPHA_MAX_SHIFT 32
#define LL_ECN_PMAX_ONE 65536U		/* probability 1.0 in ll_ecn_red.pmax */
#define LL_MMU_NEVER (~0ULL)		/* "no deadline" */

/* DT alpha = num / 2^shift; num 1..65535, shift 0..32. */
struct ll_mmu_alpha {
	ll_u16 num;
	ll_u8 shift;
};

/*
 * RED-style ECN marking on an egress queue's bytes q (for DCQCN's CP):
 * never when q <= kmin_bytes, always when q > kmax_bytes, in between with
 * probability pmax * (q - kmin) / (kmax - kmin). pmax in 1/65536 units
 * (0.2 = 13107, 1.0 = 65536). enabled = 0 (the default) never marks.
 */
struct ll_ecn_red {
	ll_u64 kmin_bytes;
	ll_u64 kmax_bytes;
	ll_u32 pmax;
	ll_u8 enabled;
};

enum ll_mmu_release_order {
	LL_MMU_RELEASE_DRAIN = 0,	/* headroom, shared, reserved */
	LL_MMU_RELEASE_TAGGED = 1,	/* the region admitted to */
};

struct ll_mmu_config {
	ll_u64 total_bytes;		/* pool budget, <= 2^40 */
	ll_u32 max_ports;		/* ports 0..max_ports-1, <= 64 */
	ll_u32 mtu_bytes;		/* largest accounted frame */
	ll_u32 reserved_bytes;		/* per ingress (port, prio) */
	ll_u32 xon_offset_bytes;	/* resume when shared + this < T */
	ll_u32 xon_bytes;		/* or when shared <= this */
	struct ll_mmu_alpha alpha;	/* ingress DT (lossless) */
	struct ll_mmu_alpha egress_alpha; /* egress DT (lossy) */
	ll_u8 lossless_mask;		/* bit p: priority p is lossless */
	ll_u8 release_order;		/* enum ll_mmu_release_order */
	ll_u16 xoff_quanta;		/* pause time sent; 0 = 0xFFFF */
	struct ll_ecn_red ecn;		/* default for ll_mmu_ecn_mark() */
	ll_u8 scheme;			/* enum ll_scheme_id; 0 = DT */
	ll_u8 ecn_mode;			/* LOSSLESS_ECN_MODE_*: RED, NP-ECN */
	union ll_scheme_params scheme_params;	/* the scheme's; 0 = defaults */
	ll_u32 np_ecn_k_bytes;		/* NP-ECN's K: mark above it (0: paper) */
};

struct ll_mmu_port_config {
	ll_u64 rate_bps;		/* link rate to the upstream */
	ll_u64 cable_delay_ns;		/* one-way propagation */
	ll_u64 sw_response_ns;		/* software reaction, both ends */
	ll_u32 queued_bytes;		/* unrecallable bytes (rings, BQL) */
	ll_u32 headroom_bytes;		/* 0: ll_headroom_bytes() */
	ll_u32 shaper_burst_bytes;	/* upstream shaper above rate (term 9) */
	/* The port's mode (mode.h), enum ll_mode_id; 0: the pool's scheme.
	 * With a mode, the port's headroom is the mode's buffer, once.
	 */
	ll_u32 mode;
	union ll_mode_params mode_params;
	/* The port's number in the scheme's numbering + 1; 0: its index. */
	ll_u32 scheme_port;
};

enum ll_mmu_err {
	LL_MMU_OK = 0,
	LL_MMU_ERR_TOTAL,		/* total_bytes 0 or above 2^40 */
	LL_MMU_ERR_PORTS,		/* max_ports 0 or above 64 */
	LL_MMU_ERR_MTU,			/* mtu_bytes 0 or above 1 MiB */
	LL_MMU_ERR_RESERVED,		/* one port's reserve leaves no shared pool */
	LL_MMU_ERR_ALPHA,		/* num 0 or shift above 32 */
	LL_MMU_ERR_XON,			/* xon offset or floor above the pool */
	LL_MMU_ERR_ECN,			/* kmin >= kmax or pmax above 1.0 */
	LL_MMU_ERR_RELEASE_ORDER,	/* unknown release order */
	LL_MMU_ERR_PORT,		/* port index out of range */
	LL_MMU_ERR_ATTACHED,		/* port already attached */
	LL_MMU_ERR_NOT_ATTACHED,	/* port not attached */
	LL_MMU_ERR_RATE,		/* rate 0 or above 1.6 Tbit/s */
	LL_MMU_ERR_DELAY,		/* a delay above 1 s */
	LL_MMU_ERR_HEADROOM,		/* headroom below 2 MTU */
	LL_MMU_ERR_NO_SPACE,		/* reserve + headroom leave < 1 MTU shared */
	LL_MMU_ERR_BUSY,		/* would cut below bytes in use; retry idle */
	LL_MMU_ERR_SCHEME,		/* unknown scheme id */
	LL_MMU_ERR_SCHEME_PARAMS,	/* the scheme refused its parameters */
	LL_MMU_ERR_MODE,		/* the port's mode refused (ll_mode_check) */
	LL_MMU_ERR_SCHEME_PORT,		/* the scheme refused the ports' numbers */
	LL_MMU_ERR_COUNT,
};

/*
 * Regions; 0 means "not charged" so a zeroed charge record is inert.
 * The headroom region is the scheme's to bound: per (port, priority) for
 * DT and the schemes that keep its carve, per port for DSH (its insurance
 * headroom, scheme.h).
 * Values 4..7 are free for regions to come.
 */
enum ll_mmu_region {
	LL_MMU_REGION_NONE = 0,
	LL_MMU_REGION_RESERVED = 1,
	LL_MMU_REGION_SHARED = 2,
	LL_MMU_REGION_HEADROOM = 3,
	LL_MMU_REGIONS,
};

enum ll_mmu_verdict {
	LL_MMU_ADMIT_RESERVED = LL_MMU_REGION_RESERVED,
	LL_MMU_ADMIT_SHARED = LL_MMU_REGION_SHARED,
	LL_MMU_ADMIT_HEADROOM = LL_MMU_REGION_HEADROOM,
	LL_MMU_DROP_LOSSY = 8,		/* lossy: egress DT or pool full */
	LL_MMU_DROP_LOSSLESS,		/* lossless, headroom exhausted: a bug */
	LL_MMU_DROP_INVALID,		/* port not attached, index out of range */
};

static inline int ll_mmu_admitted(enum ll_mmu_verdict v)
{
	return v >= LL_MMU_ADMIT_RESERVED && v <= LL_MMU_ADMIT_HEADROOM;
}

/*
 * What admit charged, stored by the caller with the packet (skb->cb) and
 * handed back to ll_mmu_release(). 16 bytes. The generations tie it to
 * the port attachments it was made under: releasing it after a port was
 * detached un-charges only the side that is still attached.
 */
struct ll_mmu_charge {
	ll_u32 bytes;
	ll_u16 in_gen;
	ll_u16 eg_gen;
	ll_u8 in_port;
	ll_u8 prio;
	ll_u8 eg_port;
	ll_u8 eg_queue;
	ll_u8 region;			/* enum ll_mmu_region; 0 = nothing */
	ll_u8 lossless;
	ll_u16 reserved0;
};

#define LL_MMU_CHARGE_BYTES 16

/* Ingress (port, priority). Counters in bytes unless named otherwise. */
struct ll_mmu_iq {
	ll_u64 reserved_used;
	ll_u64 shared_used;
	ll_u64 headroom_used;
	ll_u64 peak_bytes;		/* peak of the sum of the three */
	ll_u64 peak_headroom;
	ll_u64 drops;			/* packets refused (lossy or lossless) */
	ll_u64 xoff_frames;		/* frames that paused the upstream */
	ll_u64 xoff_refreshes;		/* frames that renewed a pause */
	ll_u64 xon_frames;		/* frames that resumed it */
	ll_u64 paused_ns_total;		/* finished XOFF..XON periods */
	ll_u64 paused_since_ns;		/* start of the current one */
	union ll_scheme_iq_state sch;	/* the scheme's (scheme_types.h) */
};

/* Egress (port, queue). */
struct ll_mmu_eq {
	ll_u64 bytes;
	ll_u64 peak_bytes;
	ll_u64 drops;			/* lossy packets refused for this queue */
	ll_u64 ecn_marks;
};

/* The pause a port asks of its upstream, whatever frame carries it:
 * PFC or PAUSE by default, a scheme's own through its port_frame hook.
 */
struct ll_mmu_xoff {
	ll_u64 refresh_ns;		/* half the pause a frame announces */
	ll_u64 xoff_sent_ns;		/* last frame carrying XOFF */
	ll_u64 refresh_at_ns;		/* xoff_sent_ns + refresh_ns then */
	ll_u64 taken_ns;		/* when the claimed frame was taken */
	ll_u16 quanta;			/* XOFF pause time, quanta */
	ll_u8 want;			/* bit p: hysteresis says pause p */
	ll_u8 told;			/* bit p: the upstream was told XOFF */
	ll_u8 taken;			/* a frame is claimed, not completed */
	ll_u8 taken_vector;		/* its class-enable vector */
	ll_u8 taken_xoff;		/* its priorities carrying XOFF */
	ll_u8 reserved0;
	ll_u64 frames;			/* frames sent on this port */
	ll_u64 send_failures;		/* completions with sent = 0 */
	/*
	 * The headroom's premise, measured: from the MMU's XOFF decision
	 * (ll_mmu_xoff_decided(), else the take of the frame carrying it)
	 * to that frame built for the wire (ll_mmu_ctrl_complete()), the
	 * first part of headroom term (7). PFC and PAUSE frames only: a
	 * scheme's or a mode's own frames are theirs to measure.
	 */
	ll_u64 decided_ns;		/* an XOFF decided, not yet told; 0 none */
	ll_u64 response_last_ns;
	ll_u64 response_max_ns;
	ll_u64 responses;		/* XOFF decisions measured */
};

struct ll_mmu_port {
	ll_u64 rate_bps;
	ll_u64 headroom_bytes;		/* per lossless priority */
	ll_u64 shared_used;		/* sum over priorities */
	ll_u64 lossless_shared_used;	/* over lossless ones (DSH's S_i) */
	ll_u64 headroom_used;		/* sum over priorities */
	ll_u64 egress_bytes;		/* sum over its egress queues */
	ll_u16 gen;			/* bumped by detach */
	ll_u8 attached;
	ll_u8 scheme_port;		/* ll_mmu_port_config's */
	ll_u8 headroom_near;		/* bit p: prio p's warning is raised */
	ll_u8 headroom_new;		/* ... and not yet taken by the caller */
	ll_u8 reserved0[2];
	/* Times a lossless priority's headroom passed 90 % of its size
	 * (LL_MMU_HEADROOM_NEAR_PCT) or overflowed, once per filling: the
	 * premise it was sized on (sw-delay, the peer's response) nearly
	 * failed, or failed.
	 */
	ll_u64 headroom_warnings;
	struct ll_mmu_xoff xoff;
	union ll_scheme_port_state sch;	/* the scheme's (scheme_types.h) */
	/*
	 * Its mode (mode.h): the lossless bytes that ever arrived (the
	 * mode's receive counter; they are held in headroom_used, bounded by
	 * headroom_bytes), the frame its last slot decided and whether it is
	 * still to be taken.
	 */
	ll_u64 mode_rx_bytes;
	ll_u64 mode_next_ns;		/* its timer (LL_MMU_NEVER asleep) */
	ll_u8 mode;			/* enum ll_mode_id */
	ll_u8 mode_pending;
	ll_u8 mode_asleep;		/* enum ll_mode_start: at an arrival */
	ll_u8 reserved1[5];
	struct ll_ctrl_msg mode_frame;
	union ll_mode_params mode_params;
	union ll_mode_state mode_st;
	struct ll_mmu_iq iq[LL_MMU_PRIOS];
	struct ll_mmu_eq eq[LL_MMU_MAX_QUEUES];
};

/*
 * A port's budget: the pool is one allocation (kvzalloc) of up to 64 of
 * these.
 */
#define LL_MMU_PORT_MAX_BYTES 3840
LL_BUILD_ASSERT(sizeof(struct ll_mmu_port) <= LL_MMU_PORT_MAX_BYTES,
		port_budget);

/* Pool-wide event and error counters. */
struct ll_mmu_counters {
	ll_u64 admitted_packets;
	ll_u64 admitted_bytes;
	ll_u64 drops_lossless;		/* must stay 0 */
	ll_u64 drops_lossy;
	ll_u64 drops_invalid;
	ll_u64 stale_releases;		/* charges of a detached port */
	ll_u64 orphaned_bytes;		/* ingress bytes dropped by detach */
	ll_u64 release_anomalies;	/* underflow clamped: a caller bug */
	ll_u64 sweeps;
};

struct ll_mmu_pool {
	struct ll_mmu_config cfg;
	ll_u64 reserved_size;		/* partition of attached ports */
	ll_u64 headroom_size;
	ll_u64 shared_size;
	ll_u64 reserved_used;
	ll_u64 shared_used;		/* S */
	ll_u64 headroom_used;
	ll_u64 peak_shared;
	ll_u64 peak_headroom;
	ll_u64 attached_mask;
	ll_u64 sweep_mark;		/* highest S since the last sweep */
	ll_u64 sweep_step;		/* S drop worth a sweep: mtu / alpha */
	ll_u32 paused_count;		/* want bits set, pool-wide */
	ll_u32 scheme_hooks;		/* ll_scheme_hooks() of cfg.scheme */
	/* Changes with cfg and with any port's config: a scheme's cached
	 * values derived from them (SPFC's IRC_th) are stale when it does.
	 */
	ll_u32 cfg_gen;
	/* Draining (ll_mmu_set_draining()): every lossless queue wants XOFF
	 * and lossy arrivals are dropped, so that the pool empties.
	 */
	ll_u32 draining;
	/* Ports a scheme made a frame due on from another port's event
	 * (PortFC's egress detector): the caller kicks them and clears it
	 * (ll_mmu_take_kicks()).
	 */
	ll_u64 kick_mask;
	/* Ports whose headroom warning was raised since the caller last
	 * took them (ll_mmu_take_warnings()), for its log line.
	 */
	ll_u64 warn_mask;
	struct ll_mmu_counters ctr;
	union ll_scheme_pool_state sch;	/* the scheme's (scheme_types.h) */
	struct ll_scheme_events events;	/* the schemes' event ring */
	struct ll_mmu_port ports[];
};

#define LL_MMU_POOL_BYTES(max_ports) \
	(sizeof(struct ll_mmu_pool) + (max_ports) * sizeof(struct ll_mmu_port))

/* ------------------------------------------------------------ pool, ports */

/* Validate a configuration without touching a pool. */
enum ll_mmu_err ll_mmu_config_check(const struct ll_mmu_config *cfg);

/*
 * Initialise (zero) a pool of LL_MMU_POOL_BYTES(cfg->max_ports) bytes.
 * On error the pool is left untouched.
 */
enum ll_mmu_err ll_mmu_pool_init(struct ll_mmu_pool *pool,
				 const struct ll_mmu_config *cfg);

/*
 * Change a live pool's configuration. Any field may change except
 * max_ports; the partition is recomputed (ports keep their headroom) and
 * must still hold the bytes in use, shared and each port's headroom (else
 * LL_MMU_ERR_BUSY, nothing changed).
 * lossless_mask, release_order and scheme change only while nothing is
 * charged (the schemes' state would not describe the bytes held); a
 * scheme's parameters may change at any time.
 * PFC states are re-evaluated: check ll_mmu_ctrl_due() on every port.
 */
enum ll_mmu_err ll_mmu_pool_reconfigure(struct ll_mmu_pool *pool,
					const struct ll_mmu_config *cfg);

const char *ll_mmu_err_name(enum ll_mmu_err e);
const char *ll_mmu_verdict_name(enum ll_mmu_verdict v);

/*
 * Headroom a port would get: pc->headroom_bytes if set, else
 * ll_headroom_bytes() from pc and the pool MTU. 0 if the input is invalid.
 */
ll_u64 ll_mmu_port_headroom(const struct ll_mmu_pool *pool,
			    const struct ll_mmu_port_config *pc);

/*
 * Attach port (0..max_ports-1): zero its state and counters, carve its
 * reserve (8 priorities) and headroom (lossless priorities) out of the
 * shared pool. Fails if the shared pool would drop below one MTU
 * (LL_MMU_ERR_NO_SPACE) or below the bytes it holds (LL_MMU_ERR_BUSY).
 */
enum ll_mmu_err ll_mmu_port_attach(struct ll_mmu_pool *pool, ll_u32 port,
				   const struct ll_mmu_port_config *pc,
				   ll_u64 now_ns);

/*
 * Change an attached port's rate, delays or headroom (tc qdisc change).
 * LL_MMU_ERR_BUSY if a queue of the port holds more headroom than the new
 * size, or its queues together more than the scheme's carve of it, or the
 * shared pool would fall below its use; nothing changed then.
 */
enum ll_mmu_err ll_mmu_port_update(struct ll_mmu_pool *pool, ll_u32 port,
				   const struct ll_mmu_port_config *pc,
				   ll_u64 now_ns);

/*
 * Detach port, whatever it still holds: its ingress bytes leave the pool
 * totals at once (counted in orphaned_bytes), its egress counters are
 * zeroed, and its partition returns to the shared pool. Charges made
 * before are still released normally afterwards: the side that belonged
 * to the detached port is skipped (stale_releases), the other side is
 * un-charged. Release (purge) the packets queued on the port's own qdisc
 * too, before or after. Returns the priorities its upstream was told XOFF
 * and never XON: send it an XON for them if the device still exists.
 */
ll_u8 ll_mmu_port_detach(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns);

/*
 * Restart the port's mode from its parameters (a link down and up: the
 * mode's state describes a link that was not there) at the port's next
 * arrival. No-op without one.
 */
void ll_mmu_port_restart(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/*
 * The port's mode telemetry (mode.h); out->mode 0 when it has none.
 * Returns 0, or -1 for a port not attached.
 */
int ll_mmu_get_mode_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			  struct ll_mode_port_stats *out);

/* ------------------------------------------------------ admit and release */

/*
 * Admit bytes arriving on (in_port, prio) for egress (eg_port, eg_queue).
 * On admission, charge describes what was charged: store it with the
 * packet and pass it to ll_mmu_release() exactly once. On a drop, charge
 * is zeroed (releasing it is a no-op). Afterwards, check ll_mmu_admit_due()
 * for in_port and take the kick mask. Ingress ports that are not switch ports (local traffic)
 * need a pseudo-port attached for them.
 */
enum ll_mmu_verdict ll_mmu_admit(struct ll_mmu_pool *pool, ll_u32 in_port,
				 ll_u32 prio, ll_u32 eg_port, ll_u32 eg_queue,
				 ll_u32 bytes, ll_u64 now_ns,
				 struct ll_mmu_charge *charge);

#define LL_MMU_EV_PFC_DUE 0x1u	/* a frame is due on charge->in_port */
/*
 * A queue is paused and S fell by max(mtu, mtu / alpha) from its highest
 * point since the last sweep (T rose by about one MTU): ll_mmu_sweep().
 */
#define LL_MMU_EV_SWEEP 0x2u
/*
 * The scheme's deadline on charge->in_port came earlier (SPFC's window
 * starts counting departures): re-arm that port's timer (kick it).
 */
#define LL_MMU_EV_TIMER 0x4u

/*
 * Un-charge exactly what admit charged: a departure (dequeue). Zeroes
 * charge->region, so a second release of the same record is a no-op.
 * Returns LL_MMU_EV_* flags.
 */
ll_u32 ll_mmu_release(struct ll_mmu_pool *pool, struct ll_mmu_charge *charge,
		      ll_u64 now_ns);

/*
 * The same for a packet that never left (a purge, reset, destroy, drop
 * after admission): the bytes are un-charged alike, but the scheme is not
 * told of a departure (SPFC counts none, spfc.md B8).
 */
ll_u32 ll_mmu_purge(struct ll_mmu_pool *pool, struct ll_mmu_charge *charge,
		    ll_u64 now_ns);

/*
 * Re-evaluate the hysteresis of every lossless queue of every attached
 * port against the current thresholds. Returns the mask of ports with a
 * frame due now (state change or refresh).
 */
ll_u64 ll_mmu_sweep(struct ll_mmu_pool *pool, ll_u64 now_ns);

/* Ports to kick that a scheme made due from elsewhere; clears them. */
static inline ll_u64 ll_mmu_take_kicks(struct ll_mmu_pool *pool)
{
	ll_u64 m = pool->kick_mask;

	pool->kick_mask = 0;
	return m;
}

/*
 * The headroom warning: a lossless priority whose headroom holds more than
 * this share of its size (its own headroom_bytes, or the port's carve for a
 * scheme whose headroom is the port's, DSH), or that drops a packet while
 * it holds any, raises it, once until that headroom is empty again (per
 * priority; per port under such a scheme).
 */
#define LL_MMU_HEADROOM_NEAR_PCT 90

/* Ports whose headroom warning was raised; clears them. */
static inline ll_u64 ll_mmu_take_warnings(struct ll_mmu_pool *pool)
{
	ll_u64 m = pool->warn_mask;

	pool->warn_mask = 0;
	return m;
}

/* The priorities of port whose warning was raised since the last call. */
ll_u8 ll_mmu_take_port_warnings(struct ll_mmu_pool *pool, ll_u32 port);

/*
 * The caller's clock at an XOFF decision: an admission after which a frame
 * is due (ll_mmu_admit_due()). Recorded if port wants a pause it has not
 * told yet and none is being timed; the frame's completion measures the
 * response from it. Cheap: callers read the clock only when a frame is due.
 */
void ll_mmu_xoff_decided(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/* ------------------------------------------------------- PFC generation */

/*
 * The port's timer: run the scheme's tick if its deadline has come (the
 * deadline is part of ll_mmu_ctrl_next_deadline()). Call before taking
 * frames at every wake-up the deadline asked for. Returns 1 if a frame is
 * due on port afterwards.
 */
int ll_mmu_port_timer(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/*
 * 1 if a frame is due on port now (a change, or a refresh), or its mode's
 * slot is (the port's timer must run it).
 */
int ll_mmu_ctrl_due(const struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/*
 * ll_mmu_ctrl_due() after an admission on in_port, per packet: a scheme's
 * own frames (PortFC's) fall due through the kick mask (another port's
 * onset) and the port's timer, never by an arrival at the port itself,
 * so they are not asked (O(n) for PortFC): 0 for such a port.
 */
int ll_mmu_admit_due(const struct ll_mmu_pool *pool, ll_u32 in_port,
		     ll_u64 now_ns);

/*
 * Claim the frame due on port: fills frame (kind PFC, vector, quanta; src
 * left zero for the caller) and returns 1, or returns 0 if none is due or
 * one is already claimed. Every successful take must be followed by
 * ll_mmu_ctrl_complete() on that port.
 */
int ll_mmu_ctrl_take(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns,
		    struct ll_ctrl_msg *frame);

/*
 * Report the claimed frame's fate: sent != 0 records it as told to the
 * upstream (at the time it was taken); sent == 0 forgets it so the next
 * take retries. Returns 1 if another frame is due now.
 */
int ll_mmu_ctrl_complete(struct ll_mmu_pool *pool, ll_u32 port, int sent,
			ll_u64 now_ns);

/*
 * When the port's next frame is due: 0 if one is due already (a change is
 * pending), the refresh time if a pause is in force, LL_MMU_NEVER if none
 * (or a frame is claimed: its completion tells); or the scheme's deadline
 * on the port if earlier. Arm the port timer here.
 */
ll_u64 ll_mmu_ctrl_next_deadline(const struct ll_mmu_pool *pool, ll_u32 port);

/* Earliest ll_mmu_ctrl_next_deadline() over attached ports. */
ll_u64 ll_mmu_next_deadline(const struct ll_mmu_pool *pool);

/* ---------------------------------------------------- thresholds, ECN */

/*
 * alpha * (size - used), 0 if used >= size. Inline, as the thresholds
 * below: they run for every packet, and a call costs more than they do
 * under emulation (docs/MMU.md, Limitations).
 */
static inline ll_u64 ll_mmu_dt_threshold(ll_u64 size_bytes, ll_u64 used_bytes,
					 struct ll_mmu_alpha alpha)
{
	if (used_bytes >= size_bytes)
		return 0;
	/* size <= 2^40 and num < 2^16: the product fits in 64 bits. */
	return ((size_bytes - used_bytes) * alpha.num) >> alpha.shift;
}

/* Current X_off threshold of a lossless ingress queue (T_in). */
ll_u64 ll_mmu_ingress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
				ll_u32 prio);

/* Current lossy admission threshold of an egress queue (T_eg). */
ll_u64 ll_mmu_egress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			       ll_u32 queue);

/* 1 to mark CE; rnd is a uniform random u32 supplied by the caller. */
int ll_ecn_red_mark(const struct ll_ecn_red *red, ll_u64 queue_bytes,
		    ll_u32 rnd);

/*
 * The pool's ECN decision for an ECT packet to an egress queue at its
 * current bytes (the scheme's rule, LL_SCHEME_HOOK_ECN, or RED); counts
 * the marks in the queue's ecn_marks. 0 for an invalid port or queue.
 * Ask only while ll_mmu_ecn_active().
 */
int ll_mmu_ecn_mark(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 queue,
		    ll_u32 rnd);

/* ---------------------------------------------------------------- stats */

struct ll_mmu_pool_stats {
	ll_u64 total_bytes;
	ll_u64 reserved_size;
	ll_u64 headroom_size;
	ll_u64 shared_size;
	ll_u64 reserved_used;
	ll_u64 shared_used;
	ll_u64 headroom_used;
	ll_u64 peak_shared;
	ll_u64 peak_headroom;
	ll_u64 paused_queues;		/* lossless queues wanting XOFF */
	struct ll_mmu_counters ctr;
};

struct ll_mmu_iq_stats {
	ll_u64 bytes;			/* reserved + shared + headroom used */
	ll_u64 reserved_used;
	ll_u64 shared_used;
	ll_u64 headroom_used;
	ll_u64 headroom_size;
	ll_u64 peak_bytes;
	ll_u64 peak_headroom;
	ll_u64 threshold;		/* T now (ingress DT) */
	ll_u64 drops;
	ll_u64 xoff_frames;
	ll_u64 xoff_refreshes;
	ll_u64 xon_frames;
	ll_u64 paused_ns;		/* told-XOFF time, including now */
	ll_u8 paused;			/* hysteresis state (want) */
	ll_u8 told_xoff;		/* the upstream was told XOFF */
	ll_u8 lossless;
};

void ll_mmu_get_pool_stats(const struct ll_mmu_pool *pool,
			   struct ll_mmu_pool_stats *out);

/* 0 on success, -1 for an invalid or detached port or prio. */
int ll_mmu_get_iq_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			ll_u32 prio, ll_u64 now_ns,
			struct ll_mmu_iq_stats *out);

/* The headroom's premise on a port: its XOFF response and warnings. */
struct ll_mmu_premise_stats {
	ll_u64 response_last_ns;	/* XOFF decided -> frame built */
	ll_u64 response_max_ns;		/* since the peaks' reset */
	ll_u64 responses;
	ll_u64 headroom_warnings;	/* LL_MMU_HEADROOM_NEAR_PCT passed */
	ll_u8 headroom_near;		/* bit p: prio p's warning raised now */
};

/* 0 on success, -1 for an invalid or detached port. */
int ll_mmu_get_premise_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			     struct ll_mmu_premise_stats *out);

/* Bytes queued on egress (port, queue); 0 if invalid. */
ll_u64 ll_mmu_eq_bytes(const struct ll_mmu_pool *pool, ll_u32 port,
		       ll_u32 queue);

/* Restart the peak counters (pool, queues) from the current values. */
void ll_mmu_reset_peaks(struct ll_mmu_pool *pool);

/*
 * Drain the pool (on) or end the drain (off), for a change that needs an
 * idle pool (a scheme's, losslessctl move-scheme). While draining, every
 * lossless queue of every port without a mode wants XOFF whatever its
 * bytes, so the upstreams stop once their last frames are in the
 * headroom; lossy arrivals are dropped (counted as lossy drops); lossless
 * arrivals are admitted as ever. Ending it lets the scheme's hysteresis
 * decide again. Returns the mask of ports with a frame due now, as
 * ll_mmu_sweep() does.
 */
ll_u64 ll_mmu_set_draining(struct ll_mmu_pool *pool, int on, ll_u64 now_ns);

/* Nothing charged: the pool holds no packet. */
int ll_mmu_pool_idle(const struct ll_mmu_pool *pool);

#endif /* LL_MMU_H */
