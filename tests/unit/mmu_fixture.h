// Helpers shared by the MMU tests: a pool in caller-owned memory, config
// builders, and the accounting invariants checked after every event.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

extern "C" {
#include "headroom.h"
#include "mmu.h"
#include "pause.h"
#include "ctrl.h"
}

namespace mmu_test {

constexpr ll_u64 kMbit = 1000000ull;
constexpr ll_u64 kGbit = 1000000000ull;
constexpr ll_u32 kLosslessPrio = 3;

// The pool lives in memory the "caller" owns, filled with garbage first
// so a test notices anything ll_mmu_pool_init forgets to zero.
class PoolMem {
public:
	explicit PoolMem(ll_u32 max_ports)
		: mem_(LL_MMU_POOL_BYTES(max_ports) / sizeof(ll_u64) + 1,
		       0xA5A5A5A5A5A5A5A5ull)
	{
	}
	ll_mmu_pool *get() { return reinterpret_cast<ll_mmu_pool *>(mem_.data()); }

private:
	std::vector<ll_u64> mem_;
};

// spfc.md section 8's "paper-pure" pool: shared pool of exactly
// shared_bytes once `ports` ports with headroom_bytes each on one lossless
// priority (3) are attached; no reserve, xon offset 0.
inline ll_mmu_config PaperConfig(ll_u32 ports, ll_mmu_alpha alpha,
				 ll_u64 shared_bytes = 1000000,
				 ll_u32 headroom_bytes = 10000)
{
	ll_mmu_config c{};
	c.total_bytes = shared_bytes + (ll_u64)ports * headroom_bytes;
	c.max_ports = ports;
	c.mtu_bytes = 1500;
	c.reserved_bytes = 0;
	c.alpha = alpha;
	c.egress_alpha = ll_mmu_alpha{1, 0};
	c.lossless_mask = 1u << kLosslessPrio;
	c.release_order = LL_MMU_RELEASE_DRAIN;
	return c;
}

inline ll_mmu_port_config PortCfg(ll_u64 rate_bps, ll_u32 headroom_bytes = 0)
{
	ll_mmu_port_config p{};
	p.rate_bps = rate_bps;
	p.headroom_bytes = headroom_bytes;
	return p;
}

// A pool with every port attached at one rate and headroom.
class Pool {
public:
	Pool(const ll_mmu_config &cfg, ll_u64 rate_bps, ll_u32 headroom_bytes)
		: mem_(cfg.max_ports)
	{
		EXPECT_EQ(ll_mmu_pool_init(p(), &cfg), LL_MMU_OK);
		ll_mmu_port_config pc = PortCfg(rate_bps, headroom_bytes);
		for (ll_u32 i = 0; i < cfg.max_ports; i++)
			EXPECT_EQ(ll_mmu_port_attach(p(), i, &pc, 0), LL_MMU_OK);
	}
	explicit Pool(const ll_mmu_config &cfg) : mem_(cfg.max_ports)
	{
		EXPECT_EQ(ll_mmu_pool_init(p(), &cfg), LL_MMU_OK);
	}
	ll_mmu_pool *p() { return mem_.get(); }
	ll_mmu_pool *operator->() { return p(); }

private:
	PoolMem mem_;
};

inline ll_u32 Popcount(ll_u64 v)
{
	return (ll_u32)__builtin_popcountll(v);
}

// Accounting invariants that hold after every event, whatever happened.
inline void ExpectInvariants(const ll_mmu_pool *pool)
{
	ll_u64 r = 0, s = 0, h = 0;
	ll_u32 paused = 0;
	ASSERT_EQ(pool->reserved_size + pool->headroom_size + pool->shared_size,
		  pool->cfg.total_bytes);
	for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
		const ll_mmu_port &p = pool->ports[port];
		ll_u64 ps = 0, pls = 0, ph = 0, pe = 0;
		if (!p.attached) {
			ASSERT_EQ(p.shared_used + p.headroom_used + p.egress_bytes, 0u);
			continue;
		}
		for (ll_u32 q = 0; q < LL_MMU_PRIOS; q++) {
			const ll_mmu_iq &iq = p.iq[q];
			ASSERT_LE(iq.reserved_used, pool->cfg.reserved_bytes);
			ASSERT_LE(iq.headroom_used, p.headroom_bytes);
			if (!((pool->cfg.lossless_mask >> q) & 1)) {
				ASSERT_EQ(iq.headroom_used, 0u);
			}
			ps += iq.shared_used;
			if ((pool->cfg.lossless_mask >> q) & 1)
				pls += iq.shared_used;
			ph += iq.headroom_used;
			r += iq.reserved_used;
		}
		for (ll_u32 q = 0; q < LL_MMU_MAX_QUEUES; q++)
			pe += p.eq[q].bytes;
		ASSERT_EQ(p.shared_used, ps);
		ASSERT_EQ(p.lossless_shared_used, pls);
		ASSERT_EQ(p.headroom_used, ph);
		ASSERT_EQ(p.egress_bytes, pe);
		ASSERT_EQ(p.xoff.want & ~pool->cfg.lossless_mask, 0);
		s += ps;
		h += ph;
		paused += Popcount(p.xoff.want);
	}
	ASSERT_EQ(pool->reserved_used, r);
	ASSERT_EQ(pool->shared_used, s);
	ASSERT_EQ(pool->headroom_used, h);
	ASSERT_LE(pool->shared_used, pool->shared_size);
	ASSERT_LE(pool->headroom_used, pool->headroom_size);
	ASSERT_LE(pool->reserved_used, pool->reserved_size);
	ASSERT_EQ(pool->paused_count, paused);
	ASSERT_EQ(pool->ctr.release_anomalies, 0u);
}

// Every counter of the pool's accounting is 0.
inline void ExpectEmpty(const ll_mmu_pool *pool)
{
	EXPECT_EQ(pool->reserved_used, 0u);
	EXPECT_EQ(pool->shared_used, 0u);
	EXPECT_EQ(pool->headroom_used, 0u);
	EXPECT_EQ(pool->paused_count, 0u);
	for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
		const ll_mmu_port &p = pool->ports[port];
		EXPECT_EQ(p.shared_used, 0u) << "port " << port;
		EXPECT_EQ(p.lossless_shared_used, 0u) << "port " << port;
		EXPECT_EQ(p.headroom_used, 0u) << "port " << port;
		EXPECT_EQ(p.egress_bytes, 0u) << "port " << port;
		EXPECT_EQ(p.xoff.want, 0) << "port " << port;
		for (ll_u32 q = 0; q < LL_MMU_PRIOS; q++) {
			EXPECT_EQ(p.iq[q].reserved_used + p.iq[q].shared_used +
					  p.iq[q].headroom_used,
				  0u)
				<< "port " << port << " prio " << q;
		}
		for (ll_u32 q = 0; q < LL_MMU_MAX_QUEUES; q++)
			EXPECT_EQ(p.eq[q].bytes, 0u) << "port " << port << " queue " << q;
	}
}

inline bool Paused(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio = kLosslessPrio)
{
	return (pool->ports[port].xoff.want >> prio) & 1;
}

// The events of the pool's ring (the schemes' timeline), oldest first.
inline std::vector<ll_scheme_event> Events(const ll_mmu_pool *pool)
{
	const ll_scheme_events &r = pool->events;
	std::vector<ll_scheme_event> out;
	ll_u64 n = std::min<ll_u64>(r.total, LL_SCHEME_EVENTS);
	for (ll_u64 i = r.total - n; i < r.total; i++)
		out.push_back(r.ev[i % LL_SCHEME_EVENTS]);
	return out;
}

} // namespace mmu_test
