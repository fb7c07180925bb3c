// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The table of schemes and what is read through it (scheme.h): names,
 * checks, carve, timer, peaks and telemetry by descriptor. A scheme
 * without an opinion on a hook falls to DT's.
 */
#include "scheme.h"

/*
 * The schemes, by id: the one list of them. A new scheme is its file
 * (scheme_<name>.c, with its descriptor), its id (scheme_types.h), its
 * descriptor's declaration in scheme.h and its entry here; its per-packet
 * hooks, if it has any, are cases of the switches at the end of scheme.h.
 * A removed scheme leaves its id reserved: every loop over ids skips NULL.
 */
static const struct ll_scheme_desc *const schemes[LL_SCHEME_CORE_COUNT] = {
	[LL_SCHEME_DT] = &ll_scheme_dt,
	[LL_SCHEME_ST] = &ll_scheme_st,
	[LL_SCHEME_DSH] = &ll_scheme_dsh,
	[LL_SCHEME_SPFC] = &ll_scheme_spfc,
	[LL_SCHEME_PORTFC] = &ll_scheme_portfc,
	LL_SCHEME_EXTRA_TABLE
};

const struct ll_scheme_desc *ll_scheme_lookup(ll_u32 id)
{
	return id < LL_SCHEME_CORE_COUNT ? schemes[id] : (const void *)0;
}

const struct ll_scheme_desc *ll_scheme_selectable(ll_u32 id)
{
	return id < LL_SCHEME_COUNT ? schemes[id] : (const void *)0;
}

const char *ll_scheme_name(ll_u32 id)
{
	const struct ll_scheme_desc *d = ll_scheme_selectable(id);

	return d ? d->name : (const char *)0;
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
	const struct ll_scheme_desc *d;
	ll_u32 id;

	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		d = ll_scheme_selectable(id);
		if (d && name_eq(name, d->name, LL_SCHEME_NAME_MAX))
			return (int)id;
	}
	return -1;
}

int ll_scheme_stat_index(ll_u32 scheme, int per_prio, const char *name)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(scheme);
	const struct ll_scheme_stat_desc *s;
	ll_u32 i, n;

	if (!d || !name)
		return -1;
	s = per_prio ? d->prio_stats : d->stats;
	n = per_prio ? d->n_prio_stats : d->n_stats;
	for (i = 0; i < n; i++)
		if (s[i].name && name_eq(s[i].name, name, LL_SCHEME_STAT_NAME_MAX))
			return (int)i;
	return -1;
}

const char *ll_scheme_check_msg(const struct ll_mmu_config *cfg)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(cfg->scheme);
	ll_u32 i;

	if (!d)
		return "unknown scheme";
	for (i = d->n_params;
	     i < sizeof(cfg->scheme_params.raw) / sizeof(ll_u64); i++)
		if (cfg->scheme_params.raw[i])
			return "parameters of another scheme given";
	return d->check ? d->check(cfg) : (const char *)0;
}

const char *ll_scheme_ports_check(const struct ll_mmu_pool *pool,
				  const struct ll_mmu_config *cfg,
				  ll_u32 port, ll_u32 scheme_port)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(cfg->scheme);

	return d && d->ports_check ?
	       d->ports_check(pool, cfg, port, scheme_port) :
	       (const char *)0;
}

enum ll_mmu_err ll_scheme_check(const struct ll_mmu_config *cfg)
{
	if (!ll_scheme_lookup(cfg->scheme))
		return LL_MMU_ERR_SCHEME;
	return ll_scheme_check_msg(cfg) ? LL_MMU_ERR_SCHEME_PARAMS : LL_MMU_OK;
}

int ll_scheme_carves_per_port(const struct ll_mmu_config *cfg)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(cfg->scheme);

	return d && d->port_carve;
}

ll_u64 ll_scheme_port_carve(const struct ll_mmu_config *cfg, ll_u64 h)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(cfg->scheme);
	ll_u64 n = 0;
	ll_u8 m;

	if (d && d->port_carve)
		return d->port_carve(cfg, h);
	/* Static headroom: h for every lossless priority. */
	for (m = cfg->lossless_mask; m; m &= (ll_u8)(m - 1))
		n++;
	return h * n;
}

ll_u32 ll_scheme_hooks(ll_u32 scheme)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(scheme);

	return d ? d->hooks : 0;
}

void ll_scheme_port_tick(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	if (d && d->port_tick)
		d->port_tick(pool, port, now_ns);
}

void ll_scheme_port_frame(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u64 now_ns, struct ll_ctrl_msg *msg)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	if (d && d->port_frame)
		d->port_frame(pool, port, now_ns, msg);
}

int ll_scheme_frames_due(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	return d && d->frames_due ? d->frames_due(pool, port, now_ns) : 0;
}

int ll_scheme_frames_take(struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u64 now_ns, struct ll_ctrl_msg *msg)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	return d && d->frames_take ? d->frames_take(pool, port, now_ns, msg) : 0;
}

void ll_scheme_frames_complete(struct ll_mmu_pool *pool, ll_u32 port,
			       int sent, ll_u64 at_ns)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	if (d && d->frames_complete)
		d->frames_complete(pool, port, sent, at_ns);
}

ll_u64 ll_scheme_frames_next_ns(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	return d && d->frames_next_ns ? d->frames_next_ns(pool, port) :
					LL_MMU_NEVER;
}

void ll_scheme_resync(struct ll_mmu_pool *pool, ll_u64 now_ns)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	if (d && d->resync)
		d->resync(pool, now_ns);
}

int ll_scheme_ecn_mark(const struct ll_mmu_pool *pool, ll_u32 port,
		       ll_u32 queue, ll_u32 rnd)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	return d && d->ecn_mark ? d->ecn_mark(pool, port, queue, rnd) : 0;
}

void ll_scheme_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	if (d && d->reset_peaks)
		d->reset_peaks(pool, port);
}

int ll_scheme_channel(struct ll_mmu_pool *pool, ll_u32 scheme,
		      const ll_u32 *ids, ll_u32 nr_ids, const void *payload,
		      ll_u32 len, ll_u64 now_ns, ll_u64 *due)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(pool->cfg.scheme);

	*due = 0;
	if (nr_ids > pool->cfg.max_ports)	/* a caller's bug */
		return -LL_EINVAL;
	if (scheme != pool->cfg.scheme || !d || !d->channel)
		return -LL_EOPNOTSUPP;
	if (len != d->channel_len)
		return -LL_EMSGSIZE;
	return d->channel(pool, ids, nr_ids, payload, now_ns, due);
}

/* ------------------------------------------------------------ telemetry */

ll_u64 ll_scheme_iq_bytes(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u32 prio)
{
	const struct ll_mmu_iq *iq = &pool->ports[port].iq[prio];

	return iq->reserved_used + iq->shared_used + iq->headroom_used;
}

void ll_scheme_log_event(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
			 ll_u32 type, ll_u64 bytes, ll_u64 now_ns)
{
	struct ll_scheme_events *r = &pool->events;
	struct ll_scheme_event *e = &r->ev[r->total % LL_SCHEME_EVENTS];

	e->time_ns = now_ns;
	e->bytes = bytes;
	e->shared_used = pool->shared_used;
	e->port = (ll_u8)port;
	e->prio = (ll_u8)prio;
	e->type = (ll_u8)type;
	e->scheme = pool->cfg.scheme;
	r->total++;
}

const char *ll_scheme_event_name(ll_u32 scheme, ll_u32 type)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(scheme);

	if (!d || !type || type >= d->n_events)
		return (const char *)0;
	return d->events[type].name;
}

int ll_scheme_get_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			     ll_u64 now_ns, struct ll_scheme_port_stats *out)
{
	const struct ll_scheme_desc *d;
	ll_u8 *b = (ll_u8 *)out;
	ll_u32 i;

	for (i = 0; i < sizeof(*out); i++)
		b[i] = 0;
	out->scheme = pool->cfg.scheme;
	if (port >= pool->cfg.max_ports || !pool->ports[port].attached)
		return -1;
	d = ll_scheme_lookup(pool->cfg.scheme);
	if (!d || !d->port_stats)
		return 0;
	d->port_stats(pool, port, now_ns, out);
	return 1;
}
