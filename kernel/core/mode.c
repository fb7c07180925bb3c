// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The table of port modes and what is read through it (mode.h). */
#include "mode.h"

/*
 * The modes, by id: the one list of them. A removed mode leaves its id
 * reserved: every loop over ids skips NULL.
 */
static const struct ll_mode_desc *const modes[LL_MODE_COUNT] = {
	[LL_MODE_BIFROST] = &ll_mode_bifrost,
};

const struct ll_mode_desc *ll_mode_lookup(ll_u32 id)
{
	return id < LL_MODE_COUNT ? modes[id] : (const void *)0;
}

const char *ll_mode_name(ll_u32 id)
{
	const struct ll_mode_desc *d = ll_mode_lookup(id);

	if (id == LL_MODE_NONE)
		return "none";
	return d ? d->name : (const char *)0;
}

static int same(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

int ll_mode_by_name(const char *name)
{
	ll_u32 id;

	if (same(name, "none"))
		return LL_MODE_NONE;
	for (id = 1; id < LL_MODE_COUNT; id++)
		if (modes[id] && same(name, modes[id]->name))
			return (int)id;
	return -1;
}

const char *ll_mode_check(ll_u32 mode, const union ll_mode_params *mp,
			  ll_u64 rate_bps, ll_u32 mtu_bytes)
{
	const struct ll_mode_desc *d = ll_mode_lookup(mode);
	ll_u32 i;

	if (mode == LL_MODE_NONE)
		return (const char *)0;
	if (!d)
		return "unknown port mode";
	for (i = d->n_params; i < LL_MODE_PARAM_WORDS; i++)
		if (mp->raw[i])
			return "a parameter the port's mode does not have";
	return d->check(mp, rate_bps, mtu_bytes);
}

ll_u64 ll_mode_buffer(ll_u32 mode, const union ll_mode_params *mp,
		      ll_u64 rate_bps, ll_u32 mtu_bytes)
{
	const struct ll_mode_desc *d = ll_mode_lookup(mode);

	if (!d || ll_mode_check(mode, mp, rate_bps, mtu_bytes))
		return 0;
	return d->buffer(mp, rate_bps, mtu_bytes);
}
