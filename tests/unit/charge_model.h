// A model of the charges a randomised test holds: the charges themselves,
// whether each side still counts (a port detached since drops it), and the
// bytes they add up to per ingress (port, prio) and per egress (port,
// queue). Shared by the random-order property tests (mmu_, dsh_ and
// spfc_property_test.cpp); scheme-specific checks stay with each test.
#pragma once

#include "mmu_fixture.h"

#include <algorithm>
#include <vector>

namespace mmu_test {

// Admit (c.bytes at (in, prio) and (eg, q)) through ll_mmu_admit, keep the
// charge when admitted, check the invariants: the directed tests' sender.
template <class Held>
ll_mmu_verdict AdmitAndHold(ll_mmu_pool *pool, Held &held, ll_u32 in, ll_u32 prio,
			    ll_u32 eg, ll_u32 bytes, ll_u64 t)
{
	ll_mmu_charge c{};
	ll_mmu_verdict v = ll_mmu_admit(pool, in, prio, eg, prio, bytes, t, &c);
	if (ll_mmu_admitted(v))
		held.push_back(c);
	ExpectInvariants(pool);
	return v;
}

// The frames due on a port sent, until none is (at most 4).
inline void SendDueFrames(ll_mmu_pool *pool, ll_u32 port, ll_u64 now)
{
	for (int tries = 0; tries < 4 && ll_mmu_ctrl_due(pool, port, now); tries++) {
		ll_ctrl_msg f;
		ll_mmu_ctrl_take(pool, port, now, &f);
		ll_mmu_ctrl_complete(pool, port, 1, now);
	}
}

// After a sweep that returned `due`: touched(port, prio) on every queue,
// and the due bit of every port is the port's pfc_due.
template <class TouchedFn>
void ExpectSweep(const ll_mmu_pool *pool, ll_u32 ports, ll_u64 due, ll_u64 now,
		 TouchedFn touched)
{
	for (ll_u32 port = 0; port < ports; port++) {
		for (ll_u32 prio = 0; prio < 8; prio++)
			touched(port, prio);
		ASSERT_EQ((due >> port) & 1, (ll_u64)ll_mmu_ctrl_due(pool, port, now));
	}
}

template <ll_u32 Ports>
class ChargeModel {
public:
	struct Held {
		ll_mmu_charge c;
		bool in_live;	// the ingress side still counts (port not detached since)
		bool eg_live;
	};

	bool empty() const { return held_.empty(); }

	// An admitted charge of `bytes` at ingress (in, prio), egress (eg, q).
	void Admitted(const ll_mmu_charge &c, ll_u32 in, ll_u32 prio, ll_u32 eg,
		      ll_u32 q, ll_u32 bytes)
	{
		held_.push_back({c, true, true});
		in_bytes_[in][prio] += bytes;
		eg_bytes_[eg][q] += bytes;
	}

	// A held charge at random, out of the model (the caller releases it
	// and then calls Released).
	template <class Rng>
	Held Take(Rng &rng)
	{
		size_t i = rng() % held_.size();
		Held h = held_[i];
		held_[i] = held_.back();
		held_.pop_back();
		return h;
	}

	void Released(const Held &h)
	{
		if (h.in_live)
			in_bytes_[h.c.in_port][h.c.prio] -= h.c.bytes;
		if (h.eg_live)
			eg_bytes_[h.c.eg_port][h.c.eg_queue] -= h.c.bytes;
	}
	// The same after ll_mmu_release returned `ev`, and when the ingress
	// side still counted: touched(port, prio) on its queue, and the
	// PFC_DUE event exactly when the port has a frame due.
	template <class TouchedFn>
	void Released(const ll_mmu_pool *pool, const Held &h, ll_u32 ev, ll_u64 now,
		      TouchedFn touched)
	{
		Released(h);
		if (h.in_live) {
			touched(h.c.in_port, h.c.prio);
			ASSERT_EQ((ev & LL_MMU_EV_PFC_DUE) != 0,
				  ll_mmu_ctrl_due(pool, h.c.in_port, now) != 0);
		}
	}

	// The port is detached: its sides of every held charge stop counting.
	void Detached(ll_u32 port)
	{
		for (Held &h : held_) {
			if (h.in_live && h.c.in_port == port) {
				h.in_live = false;
				in_bytes_[port][h.c.prio] -= h.c.bytes;
			}
			if (h.eg_live && h.c.eg_port == port) {
				h.eg_live = false;
				eg_bytes_[port][h.c.eg_queue] -= h.c.bytes;
			}
		}
	}

	// A random port detached (told what its upstream was told, `told`
	// then cleared, `detached(port)` for the caller's checks) and
	// re-attached half of the time, or, when detached, re-attached.
	template <class Rng, class AttachFn, class DetachedFn>
	void DetachReattach(ll_mmu_pool *pool, Rng &rng, ll_u64 now, ll_u8 *told,
			    AttachFn attach, DetachedFn detached)
	{
		ll_u32 port = rng() % Ports;
		if (!pool->ports[port].attached) {
			if (attach(port) == LL_MMU_OK)
				told[port] = 0;
			return;
		}
		ll_u8 was = ll_mmu_port_detach(pool, port, now);
		ASSERT_EQ(was, told[port]);
		told[port] = 0;
		detached(port);
		Detached(port);
		if (rng() % 2)
			attach(port);	// may fail (BUSY, NO_SPACE): stays detached
	}

	// Every attached port's queue totals equal the model's.
	void Check(const ll_mmu_pool *p) const
	{
		for (ll_u32 port = 0; port < Ports; port++) {
			if (!p->ports[port].attached)
				continue;
			for (ll_u32 prio = 0; prio < 8; prio++) {
				const ll_mmu_iq &iq = p->ports[port].iq[prio];
				ASSERT_EQ(iq.reserved_used + iq.shared_used + iq.headroom_used,
					  in_bytes_[port][prio]);
			}
			for (ll_u32 q = 0; q < LL_MMU_MAX_QUEUES; q++)
				ASSERT_EQ(p->ports[port].eq[q].bytes, eg_bytes_[port][q]);
		}
	}

	// Everything released in a random order, by the caller's release.
	template <class Rng, class ReleaseFn>
	void Drain(Rng &rng, ReleaseFn release)
	{
		std::shuffle(held_.begin(), held_.end(), rng);
		while (!held_.empty() && !::testing::Test::HasFatalFailure())
			release();
	}

private:
	std::vector<Held> held_;
	ll_u64 in_bytes_[Ports][8] = {};
	ll_u64 eg_bytes_[Ports][LL_MMU_MAX_QUEUES] = {};
};

} // namespace mmu_test
