/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The MMU's schemes: the algorithm that decides thresholds, hysteresis,
 * the admission region of lossless bytes and what happens on release and
 * on a port's timer, over the one accounting mmu.c keeps. This header has
 * the data only (parameters and per-scheme state, embedded in the pool's
 * structures by mmu.h); scheme.h has the hooks.
 *
 * Adding a scheme (docs/ARCHITECTURE.md, "How to add a scheme"): an id
 * below, its parameter struct in union ll_scheme_params, its state in the
 * state unions if it keeps any (sized by the compiler, budgets checked),
 * one file scheme_<name>.c with its hooks and its descriptor, one entry
 * in scheme.c's table.
 */
#ifndef LL_SCHEME_TYPES_H
#define LL_SCHEME_TYPES_H

#include "ll_types.h"
#include "portfc.h"	/* struct ll_portfc_eport */

/* tests/unit/extension_test.cpp adds a scheme through these two. */
#ifndef LL_SCHEME_EXTRA_IDS
#define LL_SCHEME_EXTRA_IDS
#endif
#ifndef LL_SCHEME_EXTRA_TABLE
#define LL_SCHEME_EXTRA_TABLE
#endif

enum ll_scheme_id {
	LL_SCHEME_DT = 0,	/* PFC + Dynamic Threshold + static headroom */
	LL_SCHEME_ST = 1,	/* PFC + static threshold (spfc.md 2.6) */
	LL_SCHEME_DSH = 2,	/* Dynamic and Shared Headroom (dsh.md) */
	LL_SCHEME_SPFC = 3,	/* Selective PFC (spfc.md) */
	LL_SCHEME_PORTFC = 4,	/* PortFC, per-port Pause/Resume (portfc.md) */
	LL_SCHEME_EXTRA_IDS	/* the unit tests' way in; empty otherwise */
	LL_SCHEME_CORE_COUNT,	/* every scheme the core implements */
};

/*
 * The schemes users can select: ids below LL_SCHEME_COUNT, the uapi's
 * __LOSSLESS_SCHEME_COUNT. tc (q_lossless_pool.c), the kernel's netlink and
 * plane code and the daemon accept only these. A scheme can land in the
 * core first, at or above this bound and below LL_SCHEME_CORE_COUNT, with
 * no name below, until its netlink, tc and daemon parts exist
 * (docs/ARCHITECTURE.md, "How to add a scheme"); today every scheme of the
 * core is selectable.
 */
#ifndef LL_SCHEME_COUNT
#define LL_SCHEME_COUNT 5
#endif

/*
 * ST: every lossless ingress (port, prio) pauses when its shared bytes
 * reach threshold_bytes; 0 = the shared region divided by the attached
 * ports (spfc.md 2.6's default B_shared / n_ports), recomputed as ports
 * come and go.
 */
struct ll_st_params {
	ll_u64 threshold_bytes;
};

/*
 * DSH (dsh.md sections 3-5; docs/DSH.md). The insurance headroom of a port
 * (Phi_i) is the port's headroom_bytes (struct ll_mmu_port_config: given,
 * or headroom.h's formula), carved once per port instead of once per
 * lossless priority. The queue and port resume offsets (delta_q, delta_p)
 * are the pool's xon_offset_bytes. Zero in every field is the paper's
 * evaluation setting.
 */
struct ll_dsh_params {
	ll_u64 window_ns;	/* Alg. 4 single-queue window; 0 = 10 ms */
	ll_u64 ewma_shift;	/* w_g = w_v = 2^-ewma_shift, 1..8; 0 = 2 */
	ll_u64 deviation_gain;	/* k of Eq. 7, 1..16; 0 = 4 */
	ll_u64 flags;		/* LL_DSH_F_*: the paper's ablations; 0 = DSH */
};

/* The paper's variants (dsh.md 3.10), for A/B runs. */
#define LL_DSH_F_NO_SHARED_HEADROOM	0x1ULL	/* tau = 0, per-queue cap T */
#define LL_DSH_F_NO_INSURANCE		0x2ULL	/* nothing carved: drops */
#define LL_DSH_F_STATIC_TAU		0x4ULL	/* tau = Phi, no estimator */
#define LL_DSH_F_ALL			0x7ULL

/*
 * SPFC (spfc.md sections 3 and 6.2; docs/SPFC.md). Every lossless ingress
 * (port, prio) counts the bytes that entered on it and left the switch
 * (IRC) over back-to-back windows of tc_ns; one that reaches the counting
 * number IRC_th and is not paused is a Victim: its X_off is the whole
 * buffer. Other queues, and a Victim that pauses anyway (until it
 * resumes), run DT. Zero in every field is the paper's default with the
 * window of a software switch.
 */
struct ll_spfc_params {
	ll_u64 tc_ns;		/* window TC; 0 = 1 ms; else 10 us .. 1 s */
	ll_u64 irc_th_bytes;	/* IRC_th for every port; 0 = C_p x TC / 8 / K */
	ll_u64 irc_th_packets;	/* IRC_th counting packets (spfc.md A4); 0 = bytes */
	ll_u64 victim_threshold_bytes;	/* a Victim's X_off; 0 = the whole buffer */
	ll_u64 flags;		/* LL_SPFC_F_*; 0 = the paper's SPFC */
	ll_u64 k;		/* K of the derived IRC_th, 1..1000; 0 = 5 */
};

/* SH latches only when a window ends (spfc.md A2's WINDOW_END). */
#define LL_SPFC_F_WINDOW_END	0x1ULL
/* Slow path (spfc.md 6.3): the daemon's per-window Victim bit, not IRC's. */
#define LL_SPFC_F_DAEMON	0x2ULL
#define LL_SPFC_F_ALL		0x3ULL

/*
 * PortFC (portfc.md; docs/PORTFC.md; portfc.h has its pure part): a BCube
 * switch's pool. Each egress port's A-slots (queues 1 .. n-1, their sum)
 * and B queue (n) have on/off thresholds; crossing one tells every other
 * port's server to pause (or resume) the queue that feeds this one, by
 * PortFC's own frames. No ingress PFC. 0 in a threshold: 24 and 16 MTU.
 */
struct ll_portfc_params {
	ll_u64 n;		/* BCube radix, 2 .. 8 (required) */
	ll_u64 xoff_a_bytes;
	ll_u64 xon_a_bytes;
	ll_u64 xoff_b_bytes;
	ll_u64 xon_b_bytes;
};

#define LL_PORTFC_XOFF_MTU_DEFAULT 24ULL
#define LL_PORTFC_XON_MTU_DEFAULT 16ULL

/* One member per scheme that has parameters; zeroed = its defaults. */
union ll_scheme_params {
	struct ll_st_params st;
	struct ll_dsh_params dsh;
	struct ll_spfc_params spfc;
	struct ll_portfc_params portfc;
	ll_u64 raw[8];		/* the union's size, for every scheme to come */
};

/*
 * DSH state. The estimator of a lossless ingress queue (Alg. 3, corrected
 * as dsh.md 3.3 says) works on the gradient as a fraction of the port's
 * line rate C in Q14 (LL_DSH_ONE = C): phi_hat = g_hat * D = g_hat / C *
 * Phi, since D = Phi / C, so no lookup table and no per-port rate
 * constant. Its last sample (qlen, time) is in the queue, its averages in
 * the port, so that the queue's part stays 8 bytes (a port under 3 KB).
 */
#define LL_DSH_ONE_SHIFT 14
#define LL_DSH_ONE (1 << LL_DSH_ONE_SHIFT)

struct ll_dsh_pool_state {
	ll_u64 now_ns;		/* latest time a hook was given (the clock) */
};

struct ll_dsh_port_state {
	ll_u64 start_ns;	/* Alg. 4 start_time */
	ll_s16 g_avg[8];	/* Eq. 5, Q14 of C, in [-1, 1] */
	ll_u16 v_avg[8];	/* Eq. 6, Q14 of C, in [0, 2] */
	ll_u8 prev_prio;	/* Alg. 4 prev_queue_id, valid if has_prev */
	ll_u8 has_prev;
	ll_u8 qoff;		/* bit p: queue-level pause (QOFF) */
	ll_u8 poff;		/* port-level pause (POFF) */
	ll_u8 est_valid;	/* bit p: the queue has a first sample */
	ll_u8 ticked;		/* the window's deadline was served */
	ll_u8 reserved0[2];
	/* Telemetry (ll_scheme_get_port_stats()). */
	ll_u32 qoff_pauses;	/* QOFF 0 -> 1, all priorities (wrap) */
	ll_u32 poff_pauses;	/* POFF 0 -> 1 (wrap) */
	ll_u32 insurance_peak;	/* highest insurance in use, bytes */
	ll_u32 shared_hr_peak;	/* highest shared headroom in use (saturated) */
};

struct ll_dsh_iq_state {
	ll_u32 q_prev_bytes;	/* qlen at the last arrival, saturated */
	ll_u32 t_prev_ns;	/* its time, low 32 bits (wraps: 4.29 s) */
};

/*
 * SPFC state. Windows are aligned to multiples of TC from time 0 (spfc.md
 * 3.6), so every priority of a port shares one window start and a port's
 * priorities roll together: the same result as rolling each (port, prio)
 * on its own events. The bit masks are over priorities; "paused" is the
 * MMU's pause wish (ll_mmu_xoff.want), which is also the SH reset line.
 * The counts saturate at 2^32 - 1, IRC_th is at most that (the comparison
 * stays exact).
 */
struct ll_spfc_pool_state {
	ll_u64 now_ns;		/* latest time a hook was given (the clock) */
};

struct ll_spfc_port_state {
	ll_u64 win_start_ns;	/* start of the current window */
	ll_u64 resume_ns;	/* latest RESUME of a priority (slow path) */
	ll_u32 to_victim;	/* transitions of the effective state, */
	ll_u32 to_normal;	/* all priorities (wrap) */
	ll_u8 sh;		/* bit p: State Holder, "rate high" latched */
	ll_u8 hold;		/* bit p: slow path, reset held after RESUME */
	ll_u8 daemon_sh;	/* bit p: the daemon's Victim bit (slow path) */
	ll_u8 force_victim;	/* bit p: oracle, Victim whatever happens */
	ll_u8 force_normal;	/* bit p: SPFC off, always DT */
	ll_u8 victims;		/* Victim bits since victims_ns_at */
	ll_u8 reserved0[2];
	/* Telemetry (ll_scheme_get_port_stats()). */
	ll_u32 pauses_normal;	/* PAUSEs of a Normal queue (wrap) */
	ll_u32 pauses_victim;	/* PAUSEs of a Victim: the latch (wrap) */
	ll_u64 victim_ns;	/* time in Victim, summed over priorities */
	ll_u64 victims_ns_at;	/* when victim_ns was last brought up to date */
	ll_u64 trigger_peak;	/* most bytes a queue held at its PAUSE */
	/* IRC_th (ll_spfc_irc_threshold()) as of the pool's cfg_gen. */
	ll_u32 irc_th;		/* 0: not computed */
	ll_u32 irc_th_gen;
};

/*
 * PortFC state of a switch port: its egress detector (A and B flags and
 * their counts, portfc.h) and what it told its server of the other ports
 * (the vectors of its last A and B frames, when each is to be refreshed,
 * the frame claimed and not yet completed).
 */
struct ll_portfc_port_state {
	struct ll_portfc_eport e;	/* bytes as of the last change, flags */
	ll_u64 refresh_a_ns;	/* told A pauses are sent again here */
	ll_u64 refresh_b_ns;
	ll_u32 frames_a;	/* frames sent to this port's server (wrap) */
	ll_u32 frames_b;
	ll_u8 told_a;		/* slots told paused, class A */
	ll_u8 told_b;
	ll_u8 taken_cls;	/* 1 + the class of the claimed frame; 0: none */
	ll_u8 taken_vector;	/* its slots */
	ll_u8 taken_xoff;	/* those it paused */
	ll_u8 reserved0;
};

/* PortFC's pool: its clock, and its ports' flags by BCube port number. */
struct ll_portfc_pool_state {
	ll_u64 now_ns;		/* latest time a hook was given */
	ll_u8 up_a;		/* bit p: BCube port p's A flag is up */
	ll_u8 up_b;
	ll_u8 reserved0[6];
	/* The pool's thresholds, defaults applied, as of the last resync
	 * (every change of the pool sweeps): not derived per packet.
	 */
	struct ll_portfc_thresholds t;
};

struct ll_spfc_iq_state {
	ll_u32 irc;		/* IRC: departures this window (saturated) */
	ll_u32 last_win;	/* the last completed window's count */
};

/*
 * Per-scheme state, zeroed when its owner is created (pool init, port
 * attach) and when the scheme changes. DT and ST keep none. Each union is
 * as large as its largest member, so a scheme adds its struct and nothing
 * is sized by hand; the budgets below (a port under 3 KB, mmu.h) are
 * checked at compile time, and a scheme that outgrows one is refused by
 * the build, not silently shifted.
 */
#ifndef LL_SCHEME_EXTRA_POOL_STATE
#define LL_SCHEME_EXTRA_POOL_STATE
#endif
#ifndef LL_SCHEME_EXTRA_PORT_STATE
#define LL_SCHEME_EXTRA_PORT_STATE
#endif
#ifndef LL_SCHEME_EXTRA_IQ_STATE
#define LL_SCHEME_EXTRA_IQ_STATE
#endif

union ll_scheme_pool_state {
	struct ll_dsh_pool_state dsh;
	struct ll_spfc_pool_state spfc;
	struct ll_portfc_pool_state portfc;

	LL_SCHEME_EXTRA_POOL_STATE	/* the unit tests' way in */
};

union ll_scheme_port_state {
	struct ll_dsh_port_state dsh;
	struct ll_spfc_port_state spfc;
	struct ll_portfc_port_state portfc;

	LL_SCHEME_EXTRA_PORT_STATE
};

/* Eight of these per port: kept small (a port stays under 3 KB). */
union ll_scheme_iq_state {
	struct ll_dsh_iq_state dsh;
	struct ll_spfc_iq_state spfc;

	LL_SCHEME_EXTRA_IQ_STATE
};

#define LL_SCHEME_POOL_STATE_MAX_BYTES 64
#define LL_SCHEME_PORT_STATE_MAX_BYTES 128
#define LL_SCHEME_IQ_STATE_MAX_BYTES 8
LL_BUILD_ASSERT(sizeof(union ll_scheme_pool_state) <=
		LL_SCHEME_POOL_STATE_MAX_BYTES, pool_state_budget);
LL_BUILD_ASSERT(sizeof(union ll_scheme_port_state) <=
		LL_SCHEME_PORT_STATE_MAX_BYTES, port_state_budget);
LL_BUILD_ASSERT(sizeof(union ll_scheme_iq_state) <=
		LL_SCHEME_IQ_STATE_MAX_BYTES, iq_state_budget);

/*
 * A scheme's telemetry (scheme.h's ll_scheme_get_port_stats(), the uapi's
 * struct tc_lossless_scheme_stats): per port at most LL_SCHEME_STATS
 * counters, LL_SCHEME_MASKS priority masks and LL_SCHEME_PRIO_STATS
 * values per priority, each named by the scheme's descriptor (scheme.h,
 * struct ll_scheme_desc: stats, masks, prio_stats, indexed by the
 * scheme's own enum of them). tc, losslessctl and the Prometheus metrics
 * print them from the names, with no code per scheme: a counter is "NAME
 * VALUE" in tc, lossless_<scheme>_port_<name>[_total|_bytes|
 * _seconds_total] in Prometheus (by its unit).
 */
#define LL_SCHEME_STATS 7
#define LL_SCHEME_MASKS 4
#define LL_SCHEME_PRIO_STATS 2

enum ll_scheme_stat_unit {
	LL_STAT_COUNT = 1,	/* events, only grows (wraps at 2^32) */
	LL_STAT_BYTES,		/* a size or an occupancy in bytes, a gauge */
	LL_STAT_NS,		/* time, only grows, ns */
	LL_STAT_GAUGE,		/* a number that goes up and down */
};

struct ll_scheme_stat_desc {
	const char *name;	/* snake_case; NULL: not used */
	ll_u8 unit;		/* enum ll_scheme_stat_unit */
	const char *help;	/* one line */
};

/*
 * The pool's event ring (ll_scheme_log_event(); scheme.h): the latest
 * LL_SCHEME_EVENTS state changes of the scheme's queues and ports, for a
 * timeline. An event's type is its scheme's own number (from 1; 0 is an
 * empty slot), which that scheme's descriptor names (its events table,
 * indexed by its own enum); each entry records the scheme that logged it,
 * since a change of scheme does not clear the ring. The plane carries
 * them as they are (the uapi's struct lossless_event).
 */
#define LL_SCHEME_EVENTS 64

struct ll_scheme_event_desc {
	const char *name;	/* snake_case; NULL: not used */
	const char *help;	/* one line */
};

struct ll_scheme_event {
	ll_u64 time_ns;		/* the pool's clock */
	ll_u64 bytes;		/* the queue's bytes (port events: S_i + insurance) */
	ll_u64 shared_used;	/* the pool's S */
	ll_u8 port;
	ll_u8 prio;		/* 0xff: the port */
	ll_u8 type;		/* the scheme's own number; 0: empty */
	ll_u8 scheme;		/* enum ll_scheme_id of the scheme that logged it */
	ll_u8 reserved0[4];
};

struct ll_scheme_events {
	ll_u64 total;		/* events ever logged; the next is ev[total % N] */
	struct ll_scheme_event ev[LL_SCHEME_EVENTS];
};

#endif /* LL_SCHEME_TYPES_H */
