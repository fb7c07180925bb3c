// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * ST, the static-threshold baseline of SPFC's paper (spfc.md 2.6): every
 * lossless ingress (port, prio) may hold a fixed amount of the shared
 * region, whatever the others hold. Admission, hysteresis and headroom
 * are DT's with that threshold; the pool-exhaustion rule still applies
 * (bytes that find no shared room go to headroom and pause).
 */
#include "scheme.h"
#include "lossless.h"	/* the uapi: its netlink nest, the plane */

static const char *st_check(const struct ll_mmu_config *cfg)
{
	if (cfg->scheme_params.st.threshold_bytes > cfg->total_bytes)
		return "st: st-threshold above the buffer";
	return (const char *)0;
}

/* The given threshold, or B_shared / attached ports. */
ll_u64 ll_st_threshold(const struct ll_mmu_pool *pool)
{
	ll_u64 ports = ll_mmu_attached_ports(pool);

	if (pool->cfg.scheme_params.st.threshold_bytes)
		return pool->cfg.scheme_params.st.threshold_bytes;
	return ll_div_u64(pool->shared_size, ports ? ports : 1);
}

/* struct ll_st_params, word by word (param.h). */
static const struct ll_param st_params[] = {
	{
		.tc = "st-threshold", .arg = "SIZE", .key = "threshold",
		.ctl = "st.threshold",
		.help = "shared bytes at which a lossless (port, priority) pauses; 0: shared buffer / ports",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_MAX_BUFFER | LL_PARAM_SHOW_NONZERO,
		.scheme = LL_SCHEME_ST, .min = 0, .max = LL_MMU_MAX_TOTAL_BYTES,
		.def = 0, .nl_attr = TCA_LOSSLESS_ST_THRESHOLD_BYTES,
		.nl_nest = TCA_LOSSLESS_SCHEME_ST, .nl_len = 8,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = 0,
	},
};

_Static_assert(LL_ARRAY_SIZE(st_params) * sizeof(ll_u64) ==
	       sizeof(struct ll_st_params), "a row per word");

const struct ll_scheme_desc ll_scheme_st = {
	.name = "st",
	.title = "PFC with a static threshold",
	.doc = "docs/SCHEMES.md",
	.params = st_params,
	.n_params = LL_ARRAY_SIZE(st_params),
	.nl_nest = TCA_LOSSLESS_SCHEME_ST,
	.nl_pad = TCA_LOSSLESS_ST_PAD,
	.check = st_check,
};
