// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Pause gates: see pause.h. */
#include "pause.h"

static void gate_open(struct ll_pause_gate *g, ll_u64 at_ns)
{
	g->closed_ns_total += at_ns - g->closed_since_ns;
	g->closed = 0;
}

enum ll_gate_event ll_gate_expire(struct ll_pause_gate *g, ll_u64 now_ns)
{
	if (!g->closed || now_ns < g->until_ns)
		return LL_GATE_NONE;
	/* Account up to the deadline, not to when we noticed it. */
	gate_open(g, g->until_ns);
	return LL_GATE_OPENED;
}

enum ll_gate_event ll_gate_apply(struct ll_pause_gate *g, ll_u64 now_ns,
				 ll_u32 quanta, ll_u64 rate_bps)
{
	enum ll_gate_event expired = ll_gate_expire(g, now_ns);

	if (!quanta) {
		g->xon_frames++;
		if (!g->closed)
			return expired;
		gate_open(g, now_ns);
		return LL_GATE_OPENED;
	}
	g->xoff_frames++;
	g->until_ns = now_ns + ll_quanta_to_ns(quanta, rate_bps);
	if (g->closed)
		return LL_GATE_REFRESHED;
	g->closed = 1;
	g->closed_since_ns = now_ns;
	/* A gate that expired and closed again in one call is still closed:
	 * report the net change (none) as a refresh.
	 */
	return expired == LL_GATE_OPENED ? LL_GATE_REFRESHED : LL_GATE_CLOSED;
}

ll_u64 ll_gate_closed_ns(const struct ll_pause_gate *g, ll_u64 now_ns)
{
	ll_u64 end;

	if (!g->closed)
		return g->closed_ns_total;
	end = now_ns < g->until_ns ? now_ns : g->until_ns;
	return g->closed_ns_total + (end - g->closed_since_ns);
}

static ll_u32 changed_bit(enum ll_gate_event ev, ll_u32 gate)
{
	return (ev == LL_GATE_CLOSED || ev == LL_GATE_OPENED) ? 1u << gate : 0;
}

ll_u32 ll_port_pause_rx(struct ll_port_pause *p, ll_u64 now_ns,
			const struct ll_ctrl_msg *m, ll_u64 rate_bps)
{
	const struct ll_ctrl_kind_desc *d = ll_ctrl_kind(m->kind);
	ll_u32 changed = 0, i, g;

	/* A credit kind's values are no pause times (ll_port_credit_rx()). */
	if (!d || d->credit)
		return 0;
	for (i = 0; i < d->gates && i < LL_CTRL_GATES; i++) {
		g = d->gate_base + i;
		if ((m->gate_mask & (1u << i)) && g < LL_GATES)
			changed |= changed_bit(ll_gate_apply(&p->gates[g], now_ns,
							     m->value[i], rate_bps), g);
	}
	return changed;
}

ll_u32 ll_port_pause_expire(struct ll_port_pause *p, ll_u64 now_ns)
{
	ll_u32 opened = 0, i;

	for (i = 0; i < LL_GATES; i++)
		opened |= changed_bit(ll_gate_expire(&p->gates[i], now_ns), i);
	return opened;
}

ll_u32 ll_port_pause_closed_mask(const struct ll_port_pause *p)
{
	ll_u32 mask = 0, i;

	for (i = 0; i < LL_GATES; i++)
		if (p->gates[i].closed)
			mask |= 1u << i;
	return mask;
}

ll_u64 ll_port_pause_next_deadline(const struct ll_port_pause *p)
{
	ll_u64 next = 0;
	ll_u32 i;

	for (i = 0; i < LL_GATES; i++)
		if (p->gates[i].closed && (!next || p->gates[i].until_ns < next))
			next = p->gates[i].until_ns;
	return next;
}

ll_u64 ll_credit_split(ll_u64 link_credit, const ll_u64 *credit,
		       const ll_u64 *backlog, ll_u32 n, ll_u64 *out)
{
	ll_u32 i;

	for (i = 0; i < n; i++) {
		out[i] = ll_min_u64(ll_min_u64(backlog[i], credit[i]), link_credit);
		link_credit -= out[i];
	}
	return link_credit;
}

ll_u32 ll_port_credit_rx(struct ll_port_credit *c, ll_u64 now_ns,
			 const struct ll_ctrl_msg *m, ll_u64 rate_bps,
			 const ll_u8 *order, ll_u32 n,
			 const ll_u64 *backlog_bytes)
{
	const struct ll_ctrl_kind_desc *d = ll_ctrl_kind(m->kind);
	ll_u64 credit[LL_CREDIT_GATES], backlog[LL_CREDIT_GATES];
	ll_u64 share[LL_CREDIT_GATES], link = ~0ULL, life_ns;
	ll_u32 named = 0, began, i, g;

	if (!d || !d->credit || d->gate_base)
		return 0;
	/* The gates the frame names, and the link's credit if it has one. */
	for (i = 0; i < d->gates && i < LL_CTRL_GATES; i++) {
		if (!(m->gate_mask & (1u << i)))
			continue;
		if (i == LL_GATE_PORT)
			link = (ll_u64)m->value[i] * LL_CTRL_CREDIT_UNIT_BYTES;
		else if (i < LL_CREDIT_GATES)
			named |= 1u << i;
	}
	if (n > LL_CREDIT_GATES)
		n = LL_CREDIT_GATES;
	for (i = 0; i < n; i++) {
		g = order[i];
		credit[i] = g < LL_CREDIT_GATES && (named & (1u << g)) ?
			    (ll_u64)m->value[g] * LL_CTRL_CREDIT_UNIT_BYTES : 0;
		backlog[i] = g < LL_CREDIT_GATES ? backlog_bytes[g] : 0;
	}
	ll_credit_split(link, credit, backlog, n, share);

	life_ns = ll_quanta_to_ns(m->lifetime, rate_bps);
	for (g = 0; g < LL_CREDIT_GATES; g++) {
		if (!(named & (1u << g)))
			continue;
		/* A surplus lapses; a debt stays (a gate not metered has
		 * none).
		 */
		if (c->gates[g].bytes > 0 || !(c->metered & (1u << g)))
			c->gates[g].bytes = 0;
		c->gates[g].until_ns = now_ns + life_ns;
		c->gates[g].lease_ns = now_ns + life_ns * LL_CREDIT_LEASE;
		c->gates[g].frames++;
	}
	for (i = 0; i < n; i++) {
		g = order[i];
		if (g >= LL_CREDIT_GATES || !(named & (1u << g)))
			continue;
		/* The new credit pays the last one's debt first. */
		c->gates[g].bytes += (ll_s64)share[i];
		c->gates[g].granted_bytes += share[i];
	}
	c->frames++;
	/* Lifetime 0: the credits end now, and with them the metering. */
	if (!m->lifetime) {
		ll_port_credit_end(c, named);
		return 0;
	}
	began = named & ~c->metered;
	c->metered |= named;
	c->lease_min_ns = ll_port_credit_next_deadline(c);
	return began;
}

ll_u32 ll_port_credit_end(struct ll_port_credit *c, ll_u32 mask)
{
	ll_u32 ended = c->metered & mask;

	c->metered &= ~mask;
	return ended;
}

ll_u32 ll_port_credit_expire(struct ll_port_credit *c, ll_u64 now_ns)
{
	ll_u32 ended = 0, g;

	/* Per packet on a metered port: one compare until a lease ends. */
	if (!c->metered || now_ns < c->lease_min_ns)
		return 0;
	for (g = 0; g < LL_CREDIT_GATES; g++)
		if ((c->metered & (1u << g)) && now_ns >= c->gates[g].lease_ns)
			ended |= 1u << g;
	if (ended) {
		c->metered &= ~ended;
		c->lapses++;
	}
	c->lease_min_ns = ll_port_credit_next_deadline(c);
	return ended;
}

ll_u64 ll_port_credit_next_deadline(const struct ll_port_credit *c)
{
	ll_u64 next = 0;
	ll_u32 g;

	for (g = 0; g < LL_CREDIT_GATES; g++)
		if ((c->metered & (1u << g)) &&
		    (!next || c->gates[g].lease_ns < next))
			next = c->gates[g].lease_ns;
	return next;
}

int ll_port_credit_fits(struct ll_port_credit *c, ll_u32 mask, ll_u64 now_ns)
{
	ll_u32 g;

	mask &= c->metered;
	for (g = 0; g < LL_CREDIT_GATES && mask >> g; g++) {
		struct ll_credit_gate *cg = &c->gates[g];

		if (!(mask & (1u << g)))
			continue;
		if (now_ns >= cg->until_ns && cg->bytes > 0)
			cg->bytes = 0;
		if (cg->bytes <= 0) {
			cg->blocked++;
			return 0;
		}
	}
	return 1;
}

void ll_port_credit_charge(struct ll_port_credit *c, ll_u32 mask, ll_u32 len)
{
	ll_u32 g;

	mask &= c->metered;
	for (g = 0; g < LL_CREDIT_GATES && mask >> g; g++)
		if (mask & (1u << g))
			c->gates[g].bytes -= len;
}
