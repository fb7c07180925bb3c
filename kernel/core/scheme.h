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
 *   events       admitted / released bytes (counters, estimators);
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

/* Name of a scheme id ("dt", "st"), or NULL if unknown. */
const char *ll_scheme_name(ll_u32 id);

/* Id of a name, or -1 if unknown. */
int ll_scheme_by_name(const char *name);

/* Validate the scheme id and its parameters in cfg (LL_MMU_ERR_SCHEME). */
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

/* Headroom bytes a port of per-queue headroom h carves out of the pool. */
ll_u64 ll_scheme_port_carve(const struct ll_mmu_config *cfg, ll_u64 h);

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

#endif /* LL_SCHEME_H */
