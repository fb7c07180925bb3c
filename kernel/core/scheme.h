/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The scheme seam: the hooks mmu.c calls where an algorithm decides, and
 * the services the MMU gives a scheme. Each hook is one switch on the
 * pool's scheme id (scheme.c), so the core stays callable from BPF (no
 * function pointers) and a scheme is one file (scheme_<name>.c).
 *
 * What a scheme decides:
 *   threshold    the X_off threshold of a lossless ingress (port, prio)
 *                and the lossy admission threshold of an egress queue;
 *   admission    where lossless bytes beyond the reserve go (shared,
 *                headroom, a scheme's own region) or that they drop;
 *   hysteresis   whether a lossless ingress wants its upstream paused
 *                (ll_mmu_want() sets the bit the PFC generator reads);
 *   carve        the headroom a port takes out of the shared region;
 *   events       an arrival about to be decided (a scheme brings its
 *                state up to now), admitted / released bytes (counters,
 *                estimators);
 *   timer        a per-port deadline: the port's qdisc timer runs the
 *                scheme's tick at it (windows, slots).
 * Accounting (regions, counters, charges, PFC frames) stays in mmu.c.
 *
 * Every hook runs under the pool lock, like the rest of mmu.h.
 */
#ifndef LL_SCHEME_H
#define LL_SCHEME_H

#include "mmu.h"

#define LL_SCHEME_NAME_MAX 8

/*
 * Name of a selectable scheme id ("dt", "st"), or NULL: the names users
 * type, so NULL for a scheme the core has but users cannot select yet
 * (LL_SCHEME_COUNT, scheme_types.h).
 */
const char *ll_scheme_name(ll_u32 id);

/* Id of a selectable scheme's name, or -1. */
int ll_scheme_by_name(const char *name);

/*
 * Validate the scheme id (any the core implements, LL_SCHEME_CORE_COUNT)
 * and its parameters in cfg (LL_MMU_ERR_SCHEME, LL_MMU_ERR_SCHEME_PARAMS).
 */
enum ll_mmu_err ll_scheme_check(const struct ll_mmu_config *cfg);

ll_u64 ll_scheme_ingress_threshold(const struct ll_mmu_pool *pool,
				   ll_u32 port, ll_u32 prio);
ll_u64 ll_scheme_egress_threshold(const struct ll_mmu_pool *pool,
				  ll_u32 port, ll_u32 queue);

/*
 * Region for bytes of a lossless (port, prio) that the reserve did not
 * take: LL_MMU_REGION_SHARED, LL_MMU_REGION_HEADROOM (or a scheme's own
 * region), or LL_MMU_REGION_NONE to drop (a lossless drop: a sizing bug).
 */
enum ll_mmu_region ll_scheme_admit_lossless(const struct ll_mmu_pool *pool,
					    ll_u32 port, ll_u32 prio,
					    ll_u32 bytes, ll_u64 now_ns);

/* Re-evaluate the pause wish of a lossless (port, prio). */
void ll_scheme_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
			ll_u64 now_ns);

/*
 * Headroom bytes a port of headroom h (ll_mmu_port.headroom_bytes) carves
 * out of the pool: the most its queues together may hold in the headroom
 * region (mmu.c refuses a change that would leave more in use).
 */
ll_u64 ll_scheme_port_carve(const struct ll_mmu_config *cfg, ll_u64 h);

/*
 * Before ll_mmu_admit() decides on a valid arrival at (port, prio): the
 * scheme brings its state up to now_ns, so that the thresholds and the
 * admission see it fresh (SPFC's window roll).
 */
void ll_scheme_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		       ll_u64 now_ns);

/* After ll_mmu_admit() charged, and after ll_mmu_release() uncharged. */
void ll_scheme_admitted(struct ll_mmu_pool *pool,
			const struct ll_mmu_charge *charge, ll_u64 now_ns);
void ll_scheme_released(struct ll_mmu_pool *pool,
			const struct ll_mmu_charge *charge, ll_u64 now_ns);

/* The scheme's next deadline on port (LL_MMU_NEVER: none), and its tick. */
ll_u64 ll_scheme_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port);
void ll_scheme_port_tick(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns);

/* ------------------------------------------ services of the MMU to schemes */

/* Set (on != 0) or clear the pause wish of (port, prio), counting it. */
void ll_mmu_want(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio, int on);

/* Attached ports. */
ll_u32 ll_mmu_attached_ports(const struct ll_mmu_pool *pool);

/* -------------------------------------- the schemes (scheme_<name>.c) */

/*
 * DT, the baseline (scheme_dt.c). Its hysteresis and admission chain take
 * the threshold as an argument: ST (and SPFC) reuse them with their own.
 */
ll_u64 ll_dt_ingress_threshold(const struct ll_mmu_pool *pool);
ll_u64 ll_dt_egress_threshold(const struct ll_mmu_pool *pool);
enum ll_mmu_region ll_dt_admit_lossless(const struct ll_mmu_pool *pool,
					ll_u32 port, ll_u32 prio,
					ll_u32 bytes, ll_u64 threshold);
void ll_dt_hysteresis(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 threshold);

/* ST (scheme_st.c). */
enum ll_mmu_err ll_st_check(const struct ll_mmu_config *cfg);
ll_u64 ll_st_threshold(const struct ll_mmu_pool *pool);

/*
 * DSH (scheme_dsh.c, dsh.md; docs/DSH.md). The headroom region is the
 * port's insurance (Phi_i = the port's headroom_bytes, carved once per
 * port): iq.headroom_used is a queue's insurance bytes, port.headroom_used
 * the port's. The pause wish of a lossless priority is its queue-level
 * pause OR the port-level pause (the effective state of dsh.md section 4).
 * Times are the pool's clock: the latest now_ns any hook was given.
 */
enum ll_mmu_err ll_dsh_check(const struct ll_mmu_config *cfg);
ll_u64 ll_dsh_port_carve(const struct ll_mmu_config *cfg, ll_u64 h);
enum ll_mmu_region ll_dsh_admit_lossless(const struct ll_mmu_pool *pool,
					 ll_u32 port, ll_u32 prio,
					 ll_u32 bytes);
void ll_dsh_admitted(struct ll_mmu_pool *pool,
		     const struct ll_mmu_charge *charge, ll_u64 now_ns);
void ll_dsh_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		     ll_u64 now_ns);
ll_u64 ll_dsh_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port);
void ll_dsh_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/* X_qoff = max(0, T - tau) of (port, prio): its ingress threshold. */
ll_u64 ll_dsh_queue_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			      ll_u32 prio);
/* X_poff = N_q x T, N_q the lossless priorities. */
ll_u64 ll_dsh_port_threshold(const struct ll_mmu_pool *pool);
/* S_i: shared bytes of port's lossless priorities. */
ll_u64 ll_dsh_port_shared(const struct ll_mmu_pool *pool, ll_u32 port);
/* tau of (port, prio) now: 0 in single-queue mode, else phi_hat. */
ll_u64 ll_dsh_tau(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio);
/* phi_hat = min(Phi, g_hat x D), rounded up (Eq. 8). */
ll_u64 ll_dsh_headroom_estimate(const struct ll_mmu_pool *pool, ll_u32 port,
				ll_u32 prio);
/* 1 if the port is in single-queue mode now (Alg. 4). */
int ll_dsh_single_queue(const struct ll_mmu_pool *pool, ll_u32 port);

/*
 * SPFC (scheme_spfc.c, spfc.md sections 3 and 6.2; docs/SPFC.md). Per
 * lossless ingress (port, prio): IRC counts the bytes (or packets) that
 * entered on it and were released, per window of TC; the State Holder
 * latches "IRC reached IRC_th"; the pause wish is the SH reset line. A
 * Victim's X_off is the whole buffer, everyone else's DT's. Windows roll
 * lazily on every event of the port and on the port's timer (its deadline
 * is the window's end while a count or a latch is set).
 */
#define LL_SPFC_TC_NS_DEFAULT 1000000ULL	/* 1 ms */
#define LL_SPFC_TC_NS_MIN 10000ULL		/* 10 us */
#define LL_SPFC_TC_NS_MAX 1000000000ULL		/* 1 s (spfc.md B2) */
#define LL_SPFC_K_DEFAULT 5ULL			/* K_spfc of the derived IRC_th */
#define LL_SPFC_IRC_TH_MAX 0xFFFFFFFFULL	/* the counters are 32 bits */

enum ll_spfc_forced {
	LL_SPFC_FORCE_AUTO = 0,		/* the detector decides */
	LL_SPFC_FORCE_VICTIM = 1,	/* oracle (Fig. 4): always Victim */
	LL_SPFC_FORCE_NORMAL = 2,	/* SPFC off on the queue: always DT */
};

/*
 * spfc.md 3.5's truth table, bitwise over priorities (pure): Victim bits
 * = force_victim | (~force_normal & ~reset & sh), reset the PAUSE-reset
 * line (paused, no RESUME yet), sh the State Holder's content.
 */
ll_u8 ll_spfc_state(ll_u8 reset, ll_u8 sh, ll_u8 force_victim,
		    ll_u8 force_normal);

enum ll_mmu_err ll_spfc_check(const struct ll_mmu_config *cfg);
void ll_spfc_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
void ll_spfc_released(struct ll_mmu_pool *pool,
		      const struct ll_mmu_charge *charge, ll_u64 now_ns);
void ll_spfc_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 now_ns);
ll_u64 ll_spfc_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port);
void ll_spfc_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);

/* The window TC in force (the parameter or its default). */
ll_u64 ll_spfc_tc_ns(const struct ll_mmu_pool *pool);
/* IRC_th of port in IRC's unit: the parameter, or C_p x TC / 8 / K. */
ll_u64 ll_spfc_irc_threshold(const struct ll_mmu_pool *pool, ll_u32 port);
/* A Victim's X_off: the whole buffer (or the parameter), at least DT's T. */
ll_u64 ll_spfc_victim_threshold(const struct ll_mmu_pool *pool);
/* Victim bits of port's priorities now (lossless ones only). */
ll_u8 ll_spfc_victims(const struct ll_mmu_pool *pool, ll_u32 port);
/* X_off of (port, prio): the Victim's threshold or DT's T. */
ll_u64 ll_spfc_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio);

/*
 * Force the state of a lossless (port, prio) (the oracle of spfc.md 6.3,
 * Fig. 4, or SPFC off on it), re-evaluating it. Runtime state, like the
 * counters: zeroed by attach and by a change of scheme. Returns 1 if a
 * frame is due on port, 0 if not, -1 for a bad port, prio or state.
 */
int ll_spfc_force(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		  enum ll_spfc_forced state, ll_u64 now_ns);

/*
 * Slow path (LL_SPFC_F_DAEMON, spfc.md 6.3): the daemon publishes port's
 * Victim bits for the window that ended at window_end_ns. The datapath
 * keeps the exact PAUSE reset: a priority that paused ignores the
 * daemon's bit until a window that ended after its RESUME. Returns as
 * ll_spfc_force().
 */
int ll_spfc_publish(struct ll_mmu_pool *pool, ll_u32 port, ll_u8 victims,
		    ll_u64 window_end_ns, ll_u64 now_ns);

#endif /* LL_SCHEME_H */
