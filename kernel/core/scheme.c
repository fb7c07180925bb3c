// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Dispatch of the scheme hooks (scheme.h): one switch per hook, one case
 * per scheme. A scheme without an opinion on a hook falls to DT's.
 */
#include "scheme.h"

static const char * const scheme_names[LL_SCHEME_COUNT] = LL_SCHEME_NAMES;

const char *ll_scheme_name(ll_u32 id)
{
	return id < LL_SCHEME_COUNT ? scheme_names[id] : (const char *)0;
}

/* a and b equal within their first max bytes, a NUL included. */
static int name_eq(const char *a, const char *b, ll_u32 max)
{
	ll_u32 i;

	for (i = 0; i < max; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 0;
}

int ll_scheme_by_name(const char *name)
{
	ll_u32 id;

	for (id = 0; id < LL_SCHEME_COUNT; id++)
		if (name_eq(name, scheme_names[id], LL_SCHEME_NAME_MAX))
			return (int)id;
	return -1;
}

int ll_scheme_stat_index(ll_u32 scheme, int per_prio, const char *name)
{
	static const struct ll_scheme_stat_desc
		ctr[LL_SCHEME_CORE_COUNT][LL_SCHEME_STATS] = LL_SCHEME_STAT_DESCS;
	static const struct ll_scheme_stat_desc
		prio[LL_SCHEME_CORE_COUNT][LL_SCHEME_PRIO_STATS] =
			LL_SCHEME_PRIO_STAT_DESCS;
	const struct ll_scheme_stat_desc *d;
	ll_u32 i, n;

	if (scheme >= LL_SCHEME_CORE_COUNT || !name)
		return -1;
	d = per_prio ? prio[scheme] : ctr[scheme];
	n = per_prio ? LL_SCHEME_PRIO_STATS : LL_SCHEME_STATS;
	for (i = 0; i < n; i++)
		if (d[i].name && name_eq(d[i].name, name, LL_SCHEME_STAT_NAME_MAX))
			return (int)i;
	return -1;
}

/* Words of union ll_scheme_params each scheme uses; the rest must be 0. */
static const ll_u8 scheme_param_words[LL_SCHEME_CORE_COUNT] = {
	[LL_SCHEME_DT] = 0,
	[LL_SCHEME_ST] = sizeof(struct ll_st_params) / sizeof(ll_u64),
	[LL_SCHEME_DSH] = sizeof(struct ll_dsh_params) / sizeof(ll_u64),
	[LL_SCHEME_SPFC] = sizeof(struct ll_spfc_params) / sizeof(ll_u64),
};

enum ll_mmu_err ll_scheme_check(const struct ll_mmu_config *cfg)
{
	ll_u32 i;

	if (cfg->scheme >= LL_SCHEME_CORE_COUNT)
		return LL_MMU_ERR_SCHEME;
	for (i = scheme_param_words[cfg->scheme];
	     i < sizeof(cfg->scheme_params.raw) / sizeof(ll_u64); i++)
		if (cfg->scheme_params.raw[i])
			return LL_MMU_ERR_SCHEME_PARAMS;
	switch (cfg->scheme) {
	case LL_SCHEME_ST:
		return ll_st_check(cfg);
	case LL_SCHEME_DSH:
		return ll_dsh_check(cfg);
	case LL_SCHEME_SPFC:
		return ll_spfc_check(cfg);
	default:
		return LL_MMU_OK;
	}
}

const char *ll_scheme_check_msg(const struct ll_mmu_config *cfg)
{
	ll_u32 i;

	if (cfg->scheme >= LL_SCHEME_CORE_COUNT)
		return "unknown scheme";
	for (i = scheme_param_words[cfg->scheme];
	     i < sizeof(cfg->scheme_params.raw) / sizeof(ll_u64); i++)
		if (cfg->scheme_params.raw[i])
			return "parameters of another scheme given";
	switch (cfg->scheme) {
	case LL_SCHEME_ST:
		return ll_st_check_msg(cfg);
	case LL_SCHEME_DSH:
		return ll_dsh_check_msg(cfg);
	case LL_SCHEME_SPFC:
		return ll_spfc_check_msg(cfg);
	default:
		return (const char *)0;
	}
}

ll_u64 ll_scheme_port_carve(const struct ll_mmu_config *cfg, ll_u64 h)
{
	ll_u64 n = 0;
	ll_u8 m;

	switch (cfg->scheme) {
	case LL_SCHEME_DSH:
		return ll_dsh_port_carve(cfg, h);
	default:
		/* Static headroom: h for every lossless priority. */
		for (m = cfg->lossless_mask; m; m &= (ll_u8)(m - 1))
			n++;
		return h * n;
	}
}

ll_u32 ll_scheme_hooks(ll_u32 scheme)
{
	switch (scheme) {
	case LL_SCHEME_DSH:
		return LL_SCHEME_HOOK_ADMITTED | LL_SCHEME_HOOK_TIMER |
		       LL_SCHEME_HOOK_CLOCK;
	case LL_SCHEME_SPFC:
		return LL_SCHEME_HOOK_ARRIVAL | LL_SCHEME_HOOK_RELEASED |
		       LL_SCHEME_HOOK_TIMER | LL_SCHEME_HOOK_CLOCK;
	default:
		return 0;
	}
}

void ll_scheme_port_tick(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns)
{
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		ll_dsh_port_tick(pool, port, now_ns);
		break;
	case LL_SCHEME_SPFC:
		ll_spfc_port_tick(pool, port, now_ns);
		break;
	default:
		break;
	}
}

void ll_scheme_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port)
{
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		ll_dsh_reset_peaks(pool, port);
		break;
	case LL_SCHEME_SPFC:
		ll_spfc_reset_peaks(pool, port);
		break;
	default:
		break;
	}
}

/* ------------------------------------------------------------ telemetry */

ll_u64 ll_scheme_iq_bytes(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u32 prio)
{
	const struct ll_mmu_iq *iq = &pool->ports[port].iq[prio];

	return iq->reserved_used + iq->shared_used + iq->headroom_used;
}

void ll_scheme_log_event(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
			 enum ll_scheme_event_type type, ll_u64 bytes,
			 ll_u64 now_ns)
{
	struct ll_scheme_events *r = &pool->events;
	struct ll_scheme_event *e = &r->ev[r->total % LL_SCHEME_EVENTS];

	e->time_ns = now_ns;
	e->bytes = bytes;
	e->shared_used = pool->shared_used;
	e->port = (ll_u8)port;
	e->prio = (ll_u8)prio;
	e->type = (ll_u8)type;
	r->total++;
}

int ll_scheme_get_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			     ll_u64 now_ns, struct ll_scheme_port_stats *out)
{
	ll_u8 *b = (ll_u8 *)out;
	ll_u32 i;

	for (i = 0; i < sizeof(*out); i++)
		b[i] = 0;
	out->scheme = pool->cfg.scheme;
	if (port >= pool->cfg.max_ports || !pool->ports[port].attached)
		return -1;
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		ll_dsh_port_stats(pool, port, out);
		return 1;
	case LL_SCHEME_SPFC:
		ll_spfc_port_stats(pool, port, now_ns, out);
		return 1;
	default:
		return 0;
	}
}
