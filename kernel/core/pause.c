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

	if (!d)
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
