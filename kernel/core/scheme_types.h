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
	LL_SCHEME_COUNT,
};

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

/* One member per scheme that has parameters; zeroed = its defaults. */
union ll_scheme_params {
	struct ll_st_params st;
	ll_u64 raw[8];		/* the union's size, for every scheme to come */
};

/*
 * Per-scheme state, zeroed when its owner is created (pool init, port
 * attach). DT and ST keep none; the members of the schemes to come
 * (SPFC's departure counters, DSH's insurance headroom, ...) go here.
 */
union ll_scheme_pool_state {
	ll_u64 raw[2];
};

union ll_scheme_port_state {
	ll_u64 raw[2];
};

/* Eight of these per port: kept small (a port stays under 3 KB). */
union ll_scheme_iq_state {
	ll_u64 raw[1];
};

#endif /* LL_SCHEME_TYPES_H */
