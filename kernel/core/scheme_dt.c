// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * DT, the baseline every lossless paper compares with: PFC + Dynamic
 * Threshold + static headroom ("SIH", dsh.md section 2; spfc.md 2.5 and
 * 2.7). The rules are in mmu.h; this file is where they are decided.
 */
#include "scheme.h"

/* Shared while under the threshold and the pool has room, then headroom. */
enum ll_mmu_region ll_dt_admit_lossless(const struct ll_mmu_pool *pool,
					ll_u32 port, ll_u32 prio,
					ll_u32 bytes, ll_u64 threshold)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_mmu_iq *iq = &p->iq[prio];

	if (pool->shared_used + bytes <= pool->shared_size &&
	    iq->shared_used + bytes <= threshold)
		return LL_MMU_REGION_SHARED;
	if (iq->headroom_used + bytes <= p->headroom_bytes)
		return LL_MMU_REGION_HEADROOM;
	return LL_MMU_REGION_NONE;
}

/*
 * XOFF when headroom_used > 0, or shared_used > xon_bytes and
 * shared_used >= T; XON when headroom_used == 0 and (shared_used <=
 * xon_bytes or shared_used + xon_offset_bytes < T). Disjoint, so the state
 * cannot flap without a change in the counters.
 */
void ll_dt_hysteresis(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 threshold)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_mmu_iq *iq = &p->iq[prio];

	if (!(p->xoff.want & (1u << prio))) {
		if (iq->headroom_used ||
		    (iq->shared_used > pool->cfg.xon_bytes &&
		     iq->shared_used >= threshold))
			ll_mmu_want(pool, port, prio, 1);
	} else if (!iq->headroom_used &&
		   (iq->shared_used <= pool->cfg.xon_bytes ||
		    iq->shared_used + pool->cfg.xon_offset_bytes < threshold)) {
		ll_mmu_want(pool, port, prio, 0);
	}
}

const struct ll_scheme_desc ll_scheme_dt = {
	.name = "dt",
	.title = "PFC with Dynamic Threshold and static headroom",
	.doc = "docs/MMU.md",
};
