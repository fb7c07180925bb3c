// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ST, the static-threshold baseline of SPFC's paper (spfc.md 2.6): every
 * lossless ingress (port, prio) may hold a fixed amount of the shared
 * region, whatever the others hold. Admission, hysteresis and headroom
 * are DT's with that threshold; the pool-exhaustion rule still applies
 * (bytes that find no shared room go to headroom and pause).
 */
#include "scheme.h"

const char *ll_st_check_msg(const struct ll_mmu_config *cfg)
{
	if (cfg->scheme_params.st.threshold_bytes > cfg->total_bytes)
		return "st: st-threshold above the buffer";
	return (const char *)0;
}

enum ll_mmu_err ll_st_check(const struct ll_mmu_config *cfg)
{
	return ll_st_check_msg(cfg) ? LL_MMU_ERR_SCHEME_PARAMS : LL_MMU_OK;
}

/* The given threshold, or B_shared / attached ports. */
ll_u64 ll_st_threshold(const struct ll_mmu_pool *pool)
{
	ll_u64 ports = ll_mmu_attached_ports(pool);

	if (pool->cfg.scheme_params.st.threshold_bytes)
		return pool->cfg.scheme_params.st.threshold_bytes;
	return ll_div_u64(pool->shared_size, ports ? ports : 1);
}
