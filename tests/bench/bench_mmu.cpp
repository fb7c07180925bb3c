// Micro-benchmarks of the switch MMU (kernel/core/mmu.c): the per-packet
// work of a port's enqueue (admit) and dequeue (release) in the regions a
// loaded switch sees, with and without PFC state changes, plus the slower
// paths (sweep, deadline query, headroom formula, ECN decision).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

extern "C" {
#include "headroom.h"
#include "mmu.h"
#include "scheme.h"
}

namespace {

constexpr ll_u64 kRate = 100000000000ull;	// 100 Gbit/s

class BenchPool {
public:
	BenchPool(ll_u32 ports, ll_u64 shared_bytes, ll_mmu_alpha alpha, ll_u32 reserved = 0,
		  ll_u32 xon_offset = 3000, ll_u8 scheme = LL_SCHEME_DT)
		: mem_(LL_MMU_POOL_BYTES(ports) / sizeof(ll_u64) + 1)
	{
		ll_mmu_config c{};
		c.scheme = scheme;
		c.max_ports = ports;
		c.mtu_bytes = 1500;
		c.reserved_bytes = reserved;
		c.xon_offset_bytes = xon_offset;
		c.alpha = alpha;
		c.egress_alpha = {1, 0};
		c.lossless_mask = 0x08;
		c.total_bytes = shared_bytes + ports * (8ull * reserved + 60000);
		c.ecn = ll_ecn_red{100000, 400000, 13107, 1};
		if (ll_mmu_pool_init(p(), &c) != LL_MMU_OK)
			ok_ = false;
		ll_mmu_port_config pc{};
		pc.rate_bps = kRate;
		pc.headroom_bytes = 60000;
		for (ll_u32 i = 0; i < ports; i++)
			if (ll_mmu_port_attach(p(), i, &pc, 0) != LL_MMU_OK)
				ok_ = false;
	}
	ll_mmu_pool *p() { return reinterpret_cast<ll_mmu_pool *>(mem_.data()); }
	bool ok() const { return ok_; }

private:
	std::vector<ll_u64> mem_;
	bool ok_ = true;
};

// Admit then release one 1500-byte packet into an idle pool: the shared
// region, no PFC change. The common case of a lightly loaded switch.
void BM_MmuAdmitReleaseShared(benchmark::State &state)
{
	BenchPool pool(32, 16 << 20, {1, 4});
	ll_mmu_charge c;
	ll_u64 now = 0;
	for (auto _ : state) {
		now += 120;
		ll_mmu_verdict v = ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, now, &c);
		benchmark::DoNotOptimize(v);
		ll_u32 ev = ll_mmu_release(pool.p(), &c, now);
		benchmark::DoNotOptimize(ev);
	}
}
BENCHMARK(BM_MmuAdmitReleaseShared);

// Admission + release of a lossless packet under each scheme, on a pool
// whose queue holds 100 packets in the shared region (the thresholds, the
// scheme's estimator and counters all run): the per-packet cost of a
// scheme next to DT's (issues DSH and SPFC). The clock advances 1.2 us a
// packet (10 Gbit/s of 1500-byte packets), so SPFC's windows roll.
void BM_SchemeAdmitRelease(benchmark::State &state)
{
	ll_u8 scheme = (ll_u8)state.range(0);
	BenchPool pool(32, 16 << 20, {1, 3}, 0, 3000, scheme);
	std::vector<ll_mmu_charge> held(100);
	ll_mmu_charge c;
	ll_u64 now = 1000000;

	if (!pool.ok()) {
		state.SkipWithError("the scheme refused the pool");
		return;
	}
	for (auto &h : held)
		ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, now, &h);
	for (auto _ : state) {
		now += 1200;
		ll_mmu_verdict v = ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, now, &c);
		benchmark::DoNotOptimize(v);
		ll_u32 ev = ll_mmu_release(pool.p(), &c, now);
		benchmark::DoNotOptimize(ev);
	}
	state.SetLabel(ll_scheme_name(scheme));
	if (pool.p()->ports[1].iq[3].shared_used != 100 * 1500ull)
		state.SkipWithError("expected 100 packets held in the shared region");
}
BENCHMARK(BM_SchemeAdmitRelease)
	->Arg(LL_SCHEME_DT)
	->Arg(LL_SCHEME_ST)
	->Arg(LL_SCHEME_DSH)
	->Arg(LL_SCHEME_SPFC);

// The same within the reserve.
void BM_MmuAdmitReleaseReserved(benchmark::State &state)
{
	BenchPool pool(32, 16 << 20, {1, 4}, 4096);
	ll_mmu_charge c;
	for (auto _ : state) {
		ll_mmu_verdict v = ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, 0, &c);
		benchmark::DoNotOptimize(v);
		ll_u32 ev = ll_mmu_release(pool.p(), &c, 0);
		benchmark::DoNotOptimize(ev);
	}
}
BENCHMARK(BM_MmuAdmitReleaseReserved);

// A congested queue held right at its threshold: every admit goes to
// headroom and every release drains it again, with the XOFF state kept.
void BM_MmuAdmitReleaseHeadroom(benchmark::State &state)
{
	BenchPool pool(32, 1 << 20, {1, 0});
	std::vector<ll_mmu_charge> held;
	ll_mmu_charge c;
	while (ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, 0, &c) == LL_MMU_ADMIT_SHARED)
		held.push_back(c);
	held.push_back(c);
	for (auto _ : state) {
		ll_mmu_verdict v = ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, 0, &c);
		benchmark::DoNotOptimize(v);
		ll_u32 ev = ll_mmu_release(pool.p(), &c, 0);
		benchmark::DoNotOptimize(ev);
	}
	if (pool.p()->ports[1].iq[3].headroom_used == 0)
		state.SkipWithError("expected a headroom steady state");
}
BENCHMARK(BM_MmuAdmitReleaseHeadroom);

// Admit + release crossing Xoff and Xon every iteration (no xon offset),
// with the PFC frame claimed and completed both ways: the worst case.
void BM_MmuAdmitReleaseWithPfcFrames(benchmark::State &state)
{
	BenchPool pool(32, 1 << 20, {1, 0}, 0, 0);
	std::vector<ll_mmu_charge> held;
	ll_mmu_charge c;
	ll_ctrl_msg f;
	// Fill to one packet below XOFF.
	for (;;) {
		ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, 0, &c);
		if (pool.p()->ports[1].xoff.want) {
			ll_mmu_release(pool.p(), &c, 0);
			break;
		}
		held.push_back(c);
	}
	ll_u64 now = 0;
	ll_u64 frames = 0;
	for (auto _ : state) {
		now += 120;
		ll_mmu_admit(pool.p(), 1, 3, 2, 3, 1500, now, &c);
		if (ll_mmu_ctrl_take(pool.p(), 1, now, &f)) {
			ll_mmu_ctrl_complete(pool.p(), 1, 1, now);
			frames++;
		}
		ll_mmu_release(pool.p(), &c, now);
		if (ll_mmu_ctrl_take(pool.p(), 1, now, &f)) {
			ll_mmu_ctrl_complete(pool.p(), 1, 1, now);
			frames++;
		}
		benchmark::DoNotOptimize(f);
	}
	state.counters["frames_per_iter"] =
		benchmark::Counter((double)frames / (double)state.iterations());
}
BENCHMARK(BM_MmuAdmitReleaseWithPfcFrames);

// Lossy traffic dropped by the egress DT (the drop path).
void BM_MmuLossyDrop(benchmark::State &state)
{
	BenchPool pool(32, 1 << 20, {1, 4});
	std::vector<ll_mmu_charge> held;
	ll_mmu_charge c;
	while (ll_mmu_admit(pool.p(), 1, 0, 2, 0, 1500, 0, &c) != LL_MMU_DROP_LOSSY)
		held.push_back(c);
	for (auto _ : state) {
		ll_mmu_verdict v = ll_mmu_admit(pool.p(), 1, 0, 2, 0, 1500, 0, &c);
		benchmark::DoNotOptimize(v);
	}
}
BENCHMARK(BM_MmuLossyDrop);

// The resume sweep over every port of the pool (arg = ports).
void BM_MmuSweep(benchmark::State &state)
{
	ll_u32 ports = (ll_u32)state.range(0);
	BenchPool pool(ports, 16 << 20, {1, 4});
	ll_u64 now = 0;
	for (auto _ : state) {
		now += 1000;
		ll_u64 due = ll_mmu_sweep(pool.p(), now);
		benchmark::DoNotOptimize(due);
	}
}
BENCHMARK(BM_MmuSweep)->Arg(8)->Arg(64);

// The timer query over every port (arg = ports).
void BM_MmuNextDeadline(benchmark::State &state)
{
	ll_u32 ports = (ll_u32)state.range(0);
	BenchPool pool(ports, 16 << 20, {1, 4});
	for (auto _ : state) {
		ll_u64 d = ll_mmu_next_deadline(pool.p());
		benchmark::DoNotOptimize(d);
	}
}
BENCHMARK(BM_MmuNextDeadline)->Arg(8)->Arg(64);

void BM_EcnRedMark(benchmark::State &state)
{
	ll_ecn_red red{100000, 400000, 13107, 1};
	ll_u64 q = 100000;
	ll_u32 rnd = 12345;
	for (auto _ : state) {
		q = 100000 + (q * 7 + 1) % 300000;
		rnd = rnd * 1103515245u + 12345u;
		int m = ll_ecn_red_mark(&red, q, rnd);
		benchmark::DoNotOptimize(m);
	}
}
BENCHMARK(BM_EcnRedMark);

void BM_HeadroomBytes(benchmark::State &state)
{
	ll_headroom_params p{};
	p.rate_bps = kRate;
	p.cable_delay_ns = 2000;
	p.mtu_bytes = 1500;
	p.sw_response_ns = 100000;
	for (auto _ : state) {
		benchmark::DoNotOptimize(&p);
		ll_u64 h = ll_headroom_bytes(&p);
		benchmark::DoNotOptimize(h);
		p.cable_delay_ns = (p.cable_delay_ns * 7 + 1) & 0xFFFFF;
	}
}
BENCHMARK(BM_HeadroomBytes);

} // namespace
