// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* PortFC's pure part: see portfc.h. */
#include "portfc.h"
#include "ctrl.h"
#include "headroom.h"

/*
 * Loops run to constant bounds (the BPF verifier's need): n^e for e up to
 * LL_PORTFC_MAX_K + 1.
 */
static ll_u32 pow_u32(ll_u32 n, ll_u32 e)
{
	ll_u32 r = 1, i;

	for (i = 0; i < LL_PORTFC_MAX_K + 1; i++)
		if (i < e)
			r *= n;
	return r;
}

const char *ll_bcube_check(const struct ll_bcube *b)
{
	if (b->n < LL_PORTFC_MIN_N || b->n > LL_PORTFC_MAX_N)
		return "BCube radix n must be 2 to 8 (a frame names n - 1 slots)";
	if (b->k > LL_PORTFC_MAX_K)
		return "BCube level k must be 0 to 3";
	return (const char *)0;
}

ll_u32 ll_bcube_servers(const struct ll_bcube *b)
{
	return pow_u32(b->n, b->k + 1);
}

ll_u32 ll_bcube_switches(const struct ll_bcube *b)
{
	return (b->k + 1) * pow_u32(b->n, b->k);
}

ll_u32 ll_bcube_digit(const struct ll_bcube *b, ll_u32 server, ll_u32 l)
{
	return (server / pow_u32(b->n, l)) % b->n;
}

ll_u32 ll_bcube_set_digit(const struct ll_bcube *b, ll_u32 server, ll_u32 l,
			  ll_u32 v)
{
	ll_u32 w = pow_u32(b->n, l);

	return server - ll_bcube_digit(b, server, l) * w + v * w;
}

ll_u32 ll_bcube_hamming(const struct ll_bcube *b, ll_u32 s, ll_u32 d)
{
	ll_u32 l, h = 0;

	for (l = 0; l <= LL_PORTFC_MAX_K; l++)
		if (l <= b->k)
			h += ll_bcube_digit(b, s, l) != ll_bcube_digit(b, d, l);
	return h;
}

ll_u32 ll_bcube_switch_of(const struct ll_bcube *b, ll_u32 server, ll_u32 l)
{
	ll_u32 w = pow_u32(b->n, l);
	/* The address without digit l: the digits below, then those above. */
	ll_u32 i = server % w + (server / (w * b->n)) * w;

	return ll_bcube_servers(b) + l * pow_u32(b->n, b->k) + i;
}

ll_u32 ll_bcube_switch_server(const struct ll_bcube *b, ll_u32 l, ll_u32 i,
			      ll_u32 port)
{
	ll_u32 w = pow_u32(b->n, l);

	return i % w + port * w + (i / w) * w * b->n;
}

ll_u32 ll_bcube_next_level(const struct ll_bcube *b, ll_u32 cur, ll_u32 dst,
			   ll_u32 first)
{
	ll_u32 i, l;

	for (i = 0; i <= LL_PORTFC_MAX_K && i <= b->k; i++) {
		l = (first + i) % (b->k + 1);
		if (ll_bcube_digit(b, cur, l) != ll_bcube_digit(b, dst, l))
			return l;
	}
	return b->k + 1;
}

int ll_portfc_slot(ll_u32 n, ll_u32 e, ll_u32 ref)
{
	if (e >= n || e == ref)
		return -1;
	return (int)(e - (e > ref));
}

ll_u32 ll_portfc_unslot(ll_u32 j, ll_u32 ref)
{
	return j + (j >= ref);
}

ll_u32 ll_portfc_switch_queues(const struct ll_bcube *b)
{
	return b->n + 1;
}

ll_u32 ll_portfc_server_queues(const struct ll_bcube *b)
{
	return (b->k + 1) * (b->n - 1) + 2;
}

static int valid_server(const struct ll_bcube *b, ll_s32 s)
{
	return s >= 0 && (ll_u32)s < ll_bcube_servers(b);
}

ll_u32 ll_portfc_classify_switch(const struct ll_portfc_where *at,
				 const struct ll_portfc_pkt *pkt,
				 enum ll_portfc_class_err *err)
{
	const struct ll_bcube *b = &at->b;
	ll_u32 d;

	*err = LL_PORTFC_CLASS_OK;
	if (pkt->hq)
		return LL_PORTFC_HQ;
	if (!valid_server(b, pkt->dst)) {
		*err = LL_PORTFC_CLASS_UNKNOWN;
		return ll_portfc_switch_b(b);
	}
	d = ll_bcube_digit(b, (ll_u32)pkt->dst, 1 - at->level);
	if (d == at->node)
		return ll_portfc_switch_b(b);
	return 1 + (ll_u32)ll_portfc_slot(b->n, d, at->node);
}

ll_u32 ll_portfc_classify_server(const struct ll_portfc_where *at,
				 const struct ll_portfc_pkt *pkt,
				 enum ll_portfc_class_err *err)
{
	const struct ll_bcube *b = &at->b;
	ll_u32 h, e, ref;

	*err = LL_PORTFC_CLASS_OK;
	if (pkt->hq)
		return LL_PORTFC_HQ;
	if (pkt->relayed)
		return ll_portfc_server_rq(b);
	if (!valid_server(b, pkt->dst)) {
		*err = LL_PORTFC_CLASS_UNKNOWN;
		return ll_portfc_server_rq(b);
	}
	h = ll_bcube_hamming(b, at->node, (ll_u32)pkt->dst);
	e = ll_bcube_digit(b, (ll_u32)pkt->dst, at->level);
	ref = ll_bcube_digit(b, at->node, at->level);
	if (!h) {
		*err = LL_PORTFC_CLASS_SELF;
		return ll_portfc_server_rq(b);
	}
	/* Leaving by port l corrects digit l first: it must differ. */
	if (e == ref) {
		*err = LL_PORTFC_CLASS_MISROUTED;
		return ll_portfc_server_rq(b);
	}
	return 1 + (b->k + 1 - h) * (b->n - 1) +
	       (ll_u32)ll_portfc_slot(b->n, e, ref);
}

ll_u32 ll_portfc_server_queue_gates(const struct ll_bcube *b, ll_u32 queue)
{
	ll_u32 i, cls, slot;

	if (queue == LL_PORTFC_HQ || queue >= ll_portfc_server_rq(b))
		return 0;
	i = queue - 1;
	cls = i / (b->n - 1);
	slot = i % (b->n - 1);
	return 1u << (cls < b->k ? LL_PORTFC_GATE_A(slot) :
				   LL_PORTFC_GATE_B(slot));
}

ll_u32 ll_portfc_switch_queue_gates(const struct ll_bcube *b, ll_u32 queue)
{
	if (queue == LL_PORTFC_HQ || queue >= ll_portfc_switch_b(b))
		return 0;
	return 1u << LL_PORTFC_GATE_B(queue - 1);
}

ll_u32 ll_portfc_switch_queue_rank(const struct ll_bcube *b, ll_u32 queue)
{
	return queue == LL_PORTFC_HQ || queue >= ll_portfc_switch_b(b) ? 0 : 1;
}

ll_u32 ll_portfc_server_queue_rank(const struct ll_bcube *b, ll_u32 queue)
{
	if (queue == LL_PORTFC_HQ || queue >= ll_portfc_server_rq(b))
		return 0;
	/* Class c holds paths of k + 1 - c switch hops. */
	return b->k + 1 - (queue - 1) / (b->n - 1);
}

const char *ll_portfc_thresholds_check(const struct ll_portfc_thresholds *t,
				       ll_u32 mtu_bytes)
{
	if (!t->xon_a_bytes || t->xon_a_bytes >= t->xoff_a_bytes)
		return "portfc: xon-a must be above 0 and below xoff-a";
	if (!t->xon_b_bytes || t->xon_b_bytes >= t->xoff_b_bytes)
		return "portfc: xon-b must be above 0 and below xoff-b";
	if (t->xoff_a_bytes < 2ULL * mtu_bytes ||
	    t->xoff_b_bytes < 2ULL * mtu_bytes)
		return "portfc: xoff-a and xoff-b must be at least two frames";
	return (const char *)0;
}

/* The flags against the bytes now; returns the events of a change. */
static ll_u32 detect(struct ll_portfc_eport *e,
		     const struct ll_portfc_thresholds *t)
{
	ll_u32 ev = 0;

	if (!e->up_a && e->sum_a_bytes >= t->xoff_a_bytes) {
		e->up_a = 1;
		e->pauses_a++;
		ev |= LL_PORTFC_EV_PAUSE_A;
	} else if (e->up_a && e->sum_a_bytes <= t->xon_a_bytes) {
		e->up_a = 0;
		e->resumes_a++;
		ev |= LL_PORTFC_EV_RESUME_A;
	}
	if (!e->up_b && e->b_bytes >= t->xoff_b_bytes) {
		e->up_b = 1;
		e->pauses_b++;
		ev |= LL_PORTFC_EV_PAUSE_B;
	} else if (e->up_b && e->b_bytes <= t->xon_b_bytes) {
		e->up_b = 0;
		e->resumes_b++;
		ev |= LL_PORTFC_EV_RESUME_B;
	}
	return ev;
}

ll_u32 ll_portfc_enqueue(struct ll_portfc_eport *e,
			 const struct ll_portfc_thresholds *t,
			 const struct ll_bcube *b, ll_u32 queue, ll_u32 bytes)
{
	/* HQ has no detector; A's sum and B's bytes only grow here. */
	if (queue == LL_PORTFC_HQ || queue > ll_portfc_switch_b(b))
		return 0;
	if (queue < ll_portfc_switch_b(b))
		e->sum_a_bytes += bytes;
	else
		e->b_bytes += bytes;
	return detect(e, t) & (LL_PORTFC_EV_PAUSE_A | LL_PORTFC_EV_PAUSE_B);
}

static ll_u64 sub_clamped(ll_u64 a, ll_u64 b)
{
	return a > b ? a - b : 0;
}

ll_u32 ll_portfc_dequeue(struct ll_portfc_eport *e,
			 const struct ll_portfc_thresholds *t,
			 const struct ll_bcube *b, ll_u32 queue, ll_u32 bytes)
{
	if (queue == LL_PORTFC_HQ || queue > ll_portfc_switch_b(b))
		return 0;
	if (queue < ll_portfc_switch_b(b))
		e->sum_a_bytes = sub_clamped(e->sum_a_bytes, bytes);
	else
		e->b_bytes = sub_clamped(e->b_bytes, bytes);
	return detect(e, t) & (LL_PORTFC_EV_RESUME_A | LL_PORTFC_EV_RESUME_B);
}

ll_u32 ll_portfc_detect(struct ll_portfc_eport *e,
			const struct ll_portfc_thresholds *t,
			ll_u64 sum_a_bytes, ll_u64 b_bytes)
{
	e->sum_a_bytes = sum_a_bytes;
	e->b_bytes = b_bytes;
	return detect(e, t);
}

ll_u8 ll_portfc_tell(ll_u32 up_ports, ll_u32 n, ll_u32 t)
{
	ll_u32 p;
	ll_u8 mask = 0;
	int j;

	for (p = 0; p < n && p < LL_PORTFC_MAX_N; p++) {
		j = ll_portfc_slot(n, p, t);	/* -1 for t itself */
		if (j >= 0 && ((up_ports >> p) & 1))
			mask |= (ll_u8)(1u << j);
	}
	return mask;
}

int ll_portfc_need(const struct ll_bcube *b,
		   const struct ll_portfc_thresholds *t,
		   const struct ll_headroom_params *link,
		   ll_u64 relay_queue_bytes, struct ll_portfc_need *out)
{
	struct ll_headroom_params two = *link;
	ll_u64 o_max;

	out->o1_bytes = ll_headroom_bytes(link);
	two.cable_delay_ns = 2 * link->cable_delay_ns;
	two.sw_response_ns = 2 * link->sw_response_ns;
	out->o2_bytes = ll_headroom_bytes(&two);
	if (!out->o1_bytes || !out->o2_bytes)
		return -1;
	out->o2_bytes += link->mtu_bytes + relay_queue_bytes;
	o_max = ll_max_u64(out->o1_bytes, out->o2_bytes);
	out->port_headroom_bytes = (b->n - 1) * o_max;
	out->pool_bytes = b->n * (t->xoff_a_bytes + t->xoff_b_bytes) +
			  b->n * o_max + 2ULL * b->n * link->mtu_bytes;
	return 0;
}
