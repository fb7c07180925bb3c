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
 * state unions if it keeps any, one file scheme_<name>.c with its hooks,
 * one case per hook in scheme.c.
 */
#ifndef LL_SCHEME_TYPES_H
#define LL_SCHEME_TYPES_H

#include "ll_types.h"

enum ll_scheme_id {
	LL_SCHEME_DT = 0,	/* PFC + Dynamic Threshold + static headroom */
	LL_SCHEME_ST = 1,	/* PFC + static threshold (spfc.md 2.6) */
	LL_SCHEME_DSH = 2,	/* Dynamic and Shared Headroom (dsh.md), core only */
	LL_SCHEME_SPFC = 3,	/* Selective PFC (spfc.md), core only */
	LL_SCHEME_CORE_COUNT,	/* every scheme the core implements */
};

/*
 * The schemes users can select: ids below LL_SCHEME_COUNT, the uapi's
 * __LOSSLESS_SCHEME_COUNT. tc (q_lossless.c), the kernel's netlink and
 * plane code and the daemon accept only these. DSH and SPFC are
 * implemented in the core and unit-tested, but not selectable until their
 * netlink, tc and daemon parts exist (docs/DSH.md, docs/SPFC.md): exposing
 * them raises this bound to LL_SCHEME_CORE_COUNT and adds their names below.
 */
#define LL_SCHEME_COUNT 2

/* The names users type (tc, TOML, losslessctl), indexed by id. */
#define LL_SCHEME_NAMES { [LL_SCHEME_DT] = "dt", [LL_SCHEME_ST] = "st" }
#define LL_SCHEME_NAMES_HELP "dt, st"

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
	ll_u64 irc_th_bytes;	/* IRC_th for every port; 0 = C_p x TC / 8 / 5 */
	ll_u64 irc_th_packets;	/* IRC_th counting packets (spfc.md A4); 0 = bytes */
	ll_u64 victim_threshold_bytes;	/* a Victim's X_off; 0 = the whole buffer */
	ll_u64 flags;		/* LL_SPFC_F_*; 0 = the paper's SPFC */
};

/* SH latches only when a window ends (spfc.md A2's WINDOW_END). */
#define LL_SPFC_F_WINDOW_END	0x1ULL
/* Slow path (spfc.md 6.3): the daemon's per-window Victim bit, not IRC's. */
#define LL_SPFC_F_DAEMON	0x2ULL
#define LL_SPFC_F_ALL		0x3ULL

/* One member per scheme that has parameters; zeroed = its defaults. */
union ll_scheme_params {
	struct ll_st_params st;
	struct ll_dsh_params dsh;
	struct ll_spfc_params spfc;
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
 * MMU's pause wish (ll_mmu_pfc.want), which is also the SH reset line.
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
	ll_u8 reserved0[3];
};

struct ll_spfc_iq_state {
	ll_u32 irc;		/* IRC: departures this window (saturated) */
	ll_u32 last_win;	/* the last completed window's count */
};

/*
 * Per-scheme state, zeroed when its owner is created (pool init, port
 * attach) and when the scheme changes. DT and ST keep none.
 */
union ll_scheme_pool_state {
	struct ll_dsh_pool_state dsh;
	struct ll_spfc_pool_state spfc;
	ll_u64 raw[2];
};

union ll_scheme_port_state {
	struct ll_dsh_port_state dsh;
	struct ll_spfc_port_state spfc;
	ll_u64 raw[6];
};

/* Eight of these per port: kept small (a port stays under 3 KB). */
union ll_scheme_iq_state {
	struct ll_dsh_iq_state dsh;
	struct ll_spfc_iq_state spfc;
	ll_u64 raw[1];
};

#endif /* LL_SCHEME_TYPES_H */
