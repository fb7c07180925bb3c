// Switch MMU (kernel/core/mmu.c), hand-computed cases: configuration and
// partition, the DT threshold, admission regions (spfc.md 8.1 U1-U8),
// the Xoff/Xon hysteresis, PFC frame generation and refresh, lossy drops
// with egress DT, headroom exhaustion, release, detach, ECN.
//
// Unless a test says otherwise: 1000-byte packets, lossless priority 3,
// ports at 100 Gbit/s with 10,000 bytes of headroom, no reserve.
#include "mmu_fixture.h"
#include "lossless.h"	// the uapi: LOSSLESS_ECN_MODE_*

#include <deque>
#include <random>
#include <set>
#include <string>

namespace {

using namespace mmu_test;

constexpr ll_u64 k100G = 100 * kGbit;
constexpr ll_u32 kPkt = 1000;
constexpr ll_u32 kHdrm = 10000;

// Admit one packet on (in, prio 3) to (out, queue 3); expect admission.
ll_mmu_charge Admit(ll_mmu_pool *pool, ll_u32 in, ll_u32 out, ll_u32 bytes = kPkt,
		    ll_mmu_verdict *verdict = nullptr, ll_u32 prio = kLosslessPrio,
		    ll_u32 queue = kLosslessPrio)
{
	ll_mmu_charge c;
	ll_mmu_verdict v = ll_mmu_admit(pool, in, prio, out, queue, bytes, 0, &c);
	if (verdict)
		*verdict = v;
	else
		EXPECT_TRUE(ll_mmu_admitted(v)) << ll_mmu_verdict_name(v);
	return c;
}

// ------------------------------------------------------------- config

TEST(MmuConfig, ValidPaperConfig)
{
	ll_mmu_config c = PaperConfig(2, {2, 0});
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
}

TEST(MmuConfig, EveryErrorHasItsCode)
{
	const ll_mmu_config good = PaperConfig(2, {2, 0});
	struct Case {
		const char *what;
		void (*edit)(ll_mmu_config &);
		ll_mmu_err want;
	} cases[] = {
		{"total 0", [](ll_mmu_config &c) { c.total_bytes = 0; }, LL_MMU_ERR_TOTAL},
		{"total > 2^40", [](ll_mmu_config &c) { c.total_bytes = (1ull << 40) + 1; },
		 LL_MMU_ERR_TOTAL},
		{"ports 0", [](ll_mmu_config &c) { c.max_ports = 0; }, LL_MMU_ERR_PORTS},
		{"ports 65", [](ll_mmu_config &c) { c.max_ports = 65; }, LL_MMU_ERR_PORTS},
		{"mtu 0", [](ll_mmu_config &c) { c.mtu_bytes = 0; }, LL_MMU_ERR_MTU},
		{"mtu 2 MiB", [](ll_mmu_config &c) { c.mtu_bytes = 2u << 20; }, LL_MMU_ERR_MTU},
		{"reserve > total",
		 [](ll_mmu_config &c) { c.reserved_bytes = (ll_u32)(c.total_bytes / 8); },
		 LL_MMU_ERR_RESERVED},
		{"alpha 0", [](ll_mmu_config &c) { c.alpha.num = 0; }, LL_MMU_ERR_ALPHA},
		{"alpha shift 33", [](ll_mmu_config &c) { c.alpha.shift = 33; }, LL_MMU_ERR_ALPHA},
		{"egress alpha 0", [](ll_mmu_config &c) { c.egress_alpha.num = 0; },
		 LL_MMU_ERR_ALPHA},
		{"xon offset > total",
		 [](ll_mmu_config &c) { c.xon_offset_bytes = (ll_u32)c.total_bytes + 1; },
		 LL_MMU_ERR_XON},
		{"xon > total", [](ll_mmu_config &c) { c.xon_bytes = (ll_u32)c.total_bytes + 1; },
		 LL_MMU_ERR_XON},
		{"ecn kmin >= kmax",
		 [](ll_mmu_config &c) { c.ecn = ll_ecn_red{2000, 2000, 100, 1}; }, LL_MMU_ERR_ECN},
		{"ecn pmax > 1",
		 [](ll_mmu_config &c) { c.ecn = ll_ecn_red{1000, 2000, 65537, 1}; },
		 LL_MMU_ERR_ECN},
		{"ecn-mode np-ecn beside RED",
		 [](ll_mmu_config &c) {
			 c.ecn = ll_ecn_red{1000, 2000, 100, 1};
			 c.ecn_mode = LOSSLESS_ECN_MODE_NP_ECN;
		 },
		 LL_MMU_ERR_ECN},
		{"ecn-mode 2", [](ll_mmu_config &c) { c.ecn_mode = 2; }, LL_MMU_ERR_ECN},
		{"release order 2", [](ll_mmu_config &c) { c.release_order = 2; },
		 LL_MMU_ERR_RELEASE_ORDER},
	};
	for (const Case &k : cases) {
		ll_mmu_config c = good;
		k.edit(c);
		EXPECT_EQ(ll_mmu_config_check(&c), k.want) << k.what;
		PoolMem mem(64);
		ll_mmu_pool *pool = mem.get();
		ll_u8 before = reinterpret_cast<ll_u8 *>(pool)[0];
		EXPECT_EQ(ll_mmu_pool_init(pool, &c), k.want) << k.what;
		EXPECT_EQ(reinterpret_cast<ll_u8 *>(pool)[0], before) << "untouched on error";
	}
	// A disabled ECN config is not checked.
	ll_mmu_config c = good;
	c.ecn = ll_ecn_red{5000, 10, 99999, 0};
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	// NP-ECN alone (RED off) is a valid pool.
	c = good;
	c.ecn_mode = LOSSLESS_ECN_MODE_NP_ECN;
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
}

TEST(MmuConfig, ErrorAndVerdictNames)
{
	std::set<std::string> names;
	for (int e = LL_MMU_OK; e < LL_MMU_ERR_COUNT; e++) {
		std::string n = ll_mmu_err_name((ll_mmu_err)e);
		EXPECT_NE(n, "invalid-error") << e;
		names.insert(n);
	}
	EXPECT_EQ(names.size(), (size_t)LL_MMU_ERR_COUNT);
	EXPECT_STREQ(ll_mmu_err_name(LL_MMU_ERR_COUNT), "invalid-error");
	EXPECT_STREQ(ll_mmu_verdict_name(LL_MMU_ADMIT_HEADROOM), "headroom");
	EXPECT_STREQ(ll_mmu_verdict_name(LL_MMU_DROP_LOSSLESS), "drop-lossless");
	EXPECT_STREQ(ll_mmu_verdict_name((ll_mmu_verdict)0), "invalid-verdict");
	EXPECT_FALSE(ll_mmu_admitted(LL_MMU_DROP_LOSSY));
	EXPECT_FALSE(ll_mmu_admitted((ll_mmu_verdict)0));
	EXPECT_TRUE(ll_mmu_admitted(LL_MMU_ADMIT_RESERVED));
}

TEST(MmuConfig, ChargeRecordIs16Bytes)
{
	static_assert(sizeof(ll_mmu_charge) == 16, "fits skb->cb");
	static_assert(sizeof(ll_mmu_charge) == LL_MMU_CHARGE_BYTES, "documented size");
	// At most 3,840 bytes per port (a port mode's state and per-priority
	// counters included): 64 ports fit a 250 KB allocation.
	EXPECT_LE(sizeof(ll_mmu_port), 3840u);
	EXPECT_LT(LL_MMU_POOL_BYTES(64), 250000u);
}

// --------------------------------------------------------- partition

TEST(MmuPartition, AttachCarvesReserveAndHeadroom)
{
	ll_mmu_config c = PaperConfig(4, {1, 4});
	c.total_bytes = 1000000;
	c.reserved_bytes = 2000;
	c.lossless_mask = 0x18;		// two lossless priorities
	Pool pool(c);
	EXPECT_EQ(pool->shared_size, 1000000u);

	ll_mmu_port_config pc = PortCfg(k100G, 30000);
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_OK);
	// 8 x 2000 reserve + 2 x 30000 headroom.
	EXPECT_EQ(pool->reserved_size, 16000u);
	EXPECT_EQ(pool->headroom_size, 60000u);
	EXPECT_EQ(pool->shared_size, 1000000u - 76000u);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_ERR_ATTACHED);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 4, &pc, 0), LL_MMU_ERR_PORT);

	// Headroom from the formula: 100 Mbit/s, 1 ms of software = 17,128.
	ll_mmu_port_config slow = PortCfg(100 * kMbit);
	slow.sw_response_ns = 1000000;
	EXPECT_EQ(ll_mmu_port_headroom(pool.p(), &slow), 17128u);
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 1, &slow, 0), LL_MMU_OK);
	EXPECT_EQ(pool->ports[1].headroom_bytes, 17128u);
	EXPECT_EQ(pool->shared_size, 1000000u - 76000u - 16000u - 34256u);

	// Bad port configs.
	ll_mmu_port_config bad = PortCfg(0);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &bad, 0), LL_MMU_ERR_RATE);
	bad = PortCfg(LL_HEADROOM_MAX_RATE_BPS + 1);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &bad, 0), LL_MMU_ERR_RATE);
	bad = PortCfg(k100G);
	bad.cable_delay_ns = 2 * LL_NSEC_PER_SEC;
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &bad, 0), LL_MMU_ERR_DELAY);
	bad = PortCfg(k100G, 2999);	// below 2 MTU
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &bad, 0), LL_MMU_ERR_HEADROOM);
	bad = PortCfg(k100G, 500000);	// 2 x 500,000 does not fit
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &bad, 0), LL_MMU_ERR_NO_SPACE);
	EXPECT_FALSE(pool->ports[2].attached);

	// Detach gives it all back.
	EXPECT_EQ(ll_mmu_port_detach(pool.p(), 1, 0), 0);
	EXPECT_EQ(ll_mmu_port_detach(pool.p(), 0, 0), 0);
	EXPECT_EQ(pool->shared_size, 1000000u);
	EXPECT_EQ(pool->reserved_size + pool->headroom_size, 0u);
	EXPECT_EQ(pool->attached_mask, 0u);
}

TEST(MmuPartition, SharedPoolMustKeepOneMtuAndItsBytes)
{
	// Exactly one port fits with 1500 bytes of shared pool left.
	ll_mmu_config c = PaperConfig(3, {1, 0}, 1500, kHdrm);
	c.total_bytes = 1500 + 10000;
	Pool pool(c);
	ll_mmu_port_config pc = PortCfg(k100G, kHdrm);
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(pool->shared_size, 1500u);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 1, &pc, 0), LL_MMU_ERR_NO_SPACE);

	// A second port would fit, but not while the shared pool holds bytes.
	c = PaperConfig(3, {1, 0}, 30000, kHdrm);
	c.total_bytes = 30000 + 10000 + 10000;
	Pool busy(c);
	ASSERT_EQ(ll_mmu_port_attach(busy.p(), 0, &pc, 0), LL_MMU_OK);
	ASSERT_EQ(busy->shared_size, 40000u);
	ll_mmu_charge ch = Admit(busy.p(), 0, 0, 15000);
	EXPECT_EQ(ch.region, LL_MMU_REGION_SHARED);
	ll_mmu_port_config big = PortCfg(k100G, 30000);	// would leave 10,000 < 15,000
	EXPECT_EQ(ll_mmu_port_attach(busy.p(), 1, &big, 0), LL_MMU_ERR_BUSY);
	EXPECT_EQ(ll_mmu_port_attach(busy.p(), 1, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(busy->shared_size, 30000u);
	ll_mmu_release(busy.p(), &ch, 0);
	ExpectEmpty(busy.p());
}

// -------------------------------------------------------- DT threshold

TEST(MmuThreshold, DynamicThresholdHandComputed)
{
	// alpha = num / 2^shift.
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 0, {2, 0}), 2000000u);
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 666000, {2, 0}), 668000u);
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 0, {1, 4}), 62500u);	// 1/16
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 200000, {1, 3}), 100000u);	// 1/8
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 200000, {3, 2}), 600000u);	// 3/4
	EXPECT_EQ(ll_mmu_dt_threshold(1000, 0, {1, 32}), 0u);	// rounds down
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 1000000, {64, 0}), 0u);	// full
	EXPECT_EQ(ll_mmu_dt_threshold(1000000, 2000000, {64, 0}), 0u);	// over
	// No overflow at the limits: 2^40 bytes x 65535.
	EXPECT_EQ(ll_mmu_dt_threshold(1ull << 40, 0, {65535, 0}), (1ull << 40) * 65535);

	// The pool's thresholds follow S.
	Pool pool(PaperConfig(2, {1, 4}), k100G, kHdrm);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3), 62500u);
	EXPECT_EQ(ll_mmu_egress_threshold(pool.p(), 1, 0), 1000000u);	// alpha 1
	ll_mmu_charge ch = Admit(pool.p(), 0, 1, 40000);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3), 60000u);
	EXPECT_EQ(ll_mmu_egress_threshold(pool.p(), 1, 0), 960000u);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 2, 3), 0u);	// no such port
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 8), 0u);
	EXPECT_EQ(ll_mmu_egress_threshold(pool.p(), 1, 64), 0u);
	ll_mmu_release(pool.p(), &ch, 0);
}

// --------------------------------------------------- admission, spfc 8.1

// U1: one port, arrivals only: PAUSE exactly after packet alpha*B/(1+alpha).
int PacketsUntilPause(ll_mmu_alpha alpha)
{
	Pool pool(PaperConfig(2, alpha), k100G, kHdrm);
	for (int k = 1; k <= 2000; k++) {
		ll_mmu_verdict v;
		Admit(pool.p(), 0, 1, kPkt, &v);
		if (Paused(pool.p(), 0)) {
			// The packet that pauses went to shared and reached T, or
			// found T too low and went to headroom.
			EXPECT_TRUE(v == LL_MMU_ADMIT_SHARED || v == LL_MMU_ADMIT_HEADROOM);
			return k;
		}
		EXPECT_EQ(v, LL_MMU_ADMIT_SHARED) << k;
	}
	return -1;
}

TEST(MmuAdmission, U1PauseAfterDtShare)
{
	EXPECT_EQ(PacketsUntilPause({2, 0}), 667);	// 667,000 >= T = 666,000
	EXPECT_EQ(PacketsUntilPause({1, 0}), 500);
	EXPECT_EQ(PacketsUntilPause({4, 0}), 800);
	EXPECT_EQ(PacketsUntilPause({1, 1}), 334);	// 1/2: ceil(1e6/3000)
}

TEST(MmuAdmission, U1ThenHeadroomThenLosslessDrop)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	for (int k = 1; k <= 667; k++)
		Admit(pool.p(), 0, 1);
	ASSERT_TRUE(Paused(pool.p(), 0));
	// In flight after the pause: exactly 10 packets fit the 10,000 bytes.
	for (int k = 1; k <= 10; k++) {
		ll_mmu_verdict v;
		Admit(pool.p(), 0, 1, kPkt, &v);
		EXPECT_EQ(v, LL_MMU_ADMIT_HEADROOM) << k;
	}
	ll_mmu_iq_stats st;
	ASSERT_EQ(ll_mmu_get_iq_stats(pool.p(), 0, 3, 0, &st), 0);
	EXPECT_EQ(st.headroom_used, 10000u);
	EXPECT_EQ(st.peak_headroom, 10000u);
	EXPECT_EQ(st.shared_used, 667000u);
	EXPECT_EQ(pool->ctr.drops_lossless, 0u);
	// The 11th: headroom exhausted, the one lossless drop (a sizing bug).
	ll_mmu_verdict v;
	ll_mmu_charge ch = Admit(pool.p(), 0, 1, kPkt, &v);
	EXPECT_EQ(v, LL_MMU_DROP_LOSSLESS);
	EXPECT_EQ(ch.region, LL_MMU_REGION_NONE);
	EXPECT_EQ(ll_mmu_release(pool.p(), &ch, 0), 0u);	// inert
	EXPECT_EQ(pool->ctr.drops_lossless, 1u);
	EXPECT_EQ(pool->ctr.drops_lossy, 0u);
	ASSERT_EQ(ll_mmu_get_iq_stats(pool.p(), 0, 3, 0, &st), 0);
	EXPECT_EQ(st.drops, 1u);
	ExpectInvariants(pool.p());
}

// U2: two ports alternating: B pauses after its 400th, A after its 401st.
// The headroom warning: past 90 % of a priority's headroom, once per
// filling; ll_mmu_take_warnings() hands the port to the caller once; an
// emptied headroom re-arms it.
TEST(MmuAdmission, HeadroomWarningPast90PercentOncePerFilling)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> q;
	for (int round = 1; round <= 2; round++) {
		for (int k = 1; k <= 667; k++)
			q.push_back(Admit(pool.p(), 0, 1));
		ASSERT_TRUE(Paused(pool.p(), 0));
		// 9 packets: 9,000 of 10,000 bytes, not past 90 %.
		for (int k = 1; k <= 9; k++)
			q.push_back(Admit(pool.p(), 0, 1));
		EXPECT_EQ(pool->ports[0].headroom_warnings, ll_u64(round - 1));
		EXPECT_EQ(ll_mmu_take_warnings(pool.p()), 0u);
		q.push_back(Admit(pool.p(), 0, 1));	/* 10,000: past it */
		EXPECT_EQ(pool->ports[0].headroom_warnings, ll_u64(round));
		EXPECT_EQ(pool->ports[0].headroom_near, 1u << 3);
		EXPECT_EQ(ll_mmu_take_warnings(pool.p()), 1u);
		EXPECT_EQ(ll_mmu_take_port_warnings(pool.p(), 0), 1u << 3);
		EXPECT_EQ(ll_mmu_take_port_warnings(pool.p(), 0), 0u);
		EXPECT_EQ(ll_mmu_take_warnings(pool.p()), 0u);
		for (auto &ch : q)
			ll_mmu_release(pool.p(), &ch, 0);
		q.clear();
		EXPECT_EQ(pool->ports[0].headroom_near, 0u);
	}
	ll_mmu_premise_stats ps;
	ASSERT_EQ(ll_mmu_get_premise_stats(pool.p(), 0, &ps), 0);
	EXPECT_EQ(ps.headroom_warnings, 2u);
	EXPECT_EQ(ps.headroom_near, 0u);
	ExpectInvariants(pool.p());
}

// Packets too big for the last tenth: 2 of 3,400 B fill 68 % of 10,000,
// the third does not fit. The drop raises the warning the 90 % never did.
TEST(MmuAdmission, HeadroomOverflowWarnsBelow90Percent)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> q;
	for (int k = 1; k <= 667; k++)
		q.push_back(Admit(pool.p(), 0, 1));
	ASSERT_TRUE(Paused(pool.p(), 0));
	q.push_back(Admit(pool.p(), 0, 1, 3400));
	q.push_back(Admit(pool.p(), 0, 1, 3400));
	EXPECT_EQ(pool->ports[0].headroom_warnings, 0u);
	ll_mmu_verdict v;
	Admit(pool.p(), 0, 1, 3400, &v);
	EXPECT_EQ(v, LL_MMU_DROP_LOSSLESS);
	EXPECT_EQ(pool->ports[0].headroom_warnings, 1u);
	EXPECT_EQ(ll_mmu_take_warnings(pool.p()), 1u);
	Admit(pool.p(), 0, 1, 3400, &v);	/* once per filling */
	EXPECT_EQ(pool->ports[0].headroom_warnings, 1u);
	for (auto &ch : q)
		ll_mmu_release(pool.p(), &ch, 0);
	EXPECT_EQ(pool->ports[0].headroom_near, 0u);
}

TEST(MmuAdmission, U2TwoPortsAlternating)
{
	Pool pool(PaperConfig(3, {2, 0}), k100G, kHdrm);
	int a_pause = 0, b_pause = 0;
	for (int k = 1; k <= 1000 && !(a_pause && b_pause); k++) {
		Admit(pool.p(), 0, 2);
		if (!a_pause && Paused(pool.p(), 0))
			a_pause = k;
		Admit(pool.p(), 1, 2);
		if (!b_pause && Paused(pool.p(), 1))
			b_pause = k;
	}
	EXPECT_EQ(b_pause, 400);
	EXPECT_EQ(a_pause, 401);
	// Every normal port has the same threshold (spfc INV-1).
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3),
		  ll_mmu_ingress_threshold(pool.p(), 1, 3));
	ExpectInvariants(pool.p());
}

// U4: 5 ingress ports x 2 packets -> 1 egress: the two views.
TEST(MmuAdmission, U4IngressAndEgressViews)
{
	Pool pool(PaperConfig(6, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (ll_u32 in = 0; in < 5; in++)
		for (int k = 0; k < 2; k++)
			charges.push_back(Admit(pool.p(), in, 5));
	for (ll_u32 in = 0; in < 5; in++) {
		ll_mmu_iq_stats st;
		ASSERT_EQ(ll_mmu_get_iq_stats(pool.p(), in, 3, 0, &st), 0);
		EXPECT_EQ(st.bytes, 2000u);
	}
	EXPECT_EQ(ll_mmu_eq_bytes(pool.p(), 5, 3), 10000u);
	EXPECT_EQ(pool->shared_used, 10000u);
	for (auto &c : charges)
		ll_mmu_release(pool.p(), &c, 0);
	ExpectEmpty(pool.p());
}

// U5: the resume rule after U1, with and without an xon offset.
int ReleasesUntilResume(ll_u32 xon_offset)
{
	ll_mmu_config c = PaperConfig(2, {2, 0});
	c.xon_offset_bytes = xon_offset;
	Pool pool(c, k100G, kHdrm);
	std::deque<ll_mmu_charge> q;
	for (int k = 1; k <= 667; k++)
		q.push_back(Admit(pool.p(), 0, 1));
	EXPECT_TRUE(Paused(pool.p(), 0));
	for (int k = 1; !q.empty(); k++) {
		ll_mmu_release(pool.p(), &q.front(), 0);
		q.pop_front();
		if (!Paused(pool.p(), 0))
			return k;
	}
	return -1;
}

TEST(MmuAdmission, U5ResumeRule)
{
	EXPECT_EQ(ReleasesUntilResume(0), 1);	 // 666,000 < T = 668,000
	EXPECT_EQ(ReleasesUntilResume(3000), 2); // 665,000 + 3,000 < 670,000
}

// U7: alpha 4, 500 bytes free: the packet is refused by the pool guard
// (S + L > B_s) though T = 2000 would take it: headroom, and PAUSE.
TEST(MmuAdmission, U7PoolGuardWithAlphaAboveOne)
{
	Pool pool(PaperConfig(3, {4, 0}, 10500), k100G, kHdrm);
	ASSERT_EQ(pool->shared_size, 10500u);
	ll_mmu_charge big = Admit(pool.p(), 1, 2, 10000);
	EXPECT_EQ(big.region, LL_MMU_REGION_SHARED);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3), 2000u);
	ll_mmu_verdict v;
	ll_mmu_charge ch = Admit(pool.p(), 0, 2, kPkt, &v);
	EXPECT_EQ(v, LL_MMU_ADMIT_HEADROOM);
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_LE(pool->shared_used, pool->shared_size);
	ll_mmu_release(pool.p(), &ch, 0);
	ll_mmu_release(pool.p(), &big, 0);
	ExpectEmpty(pool.p());
}

// U8: a port within its reserve while the pool is full: admitted, no
// pause; the next packet goes to headroom and pauses.
TEST(MmuAdmission, U8ReserveWhilePoolFull)
{
	ll_mmu_config c = PaperConfig(3, {1, 0}, 10000);
	c.reserved_bytes = 4000;
	c.total_bytes = 10000 + 3 * (8 * 4000 + kHdrm);
	Pool pool(c, k100G, kHdrm);
	ASSERT_EQ(pool->shared_size, 10000u);
	ll_mmu_charge fill = Admit(pool.p(), 1, 2, 10000);
	ASSERT_EQ(fill.region, LL_MMU_REGION_SHARED);
	ASSERT_EQ(pool->shared_used, pool->shared_size);
	std::vector<ll_mmu_charge> charges;
	for (int k = 1; k <= 4; k++) {
		ll_mmu_verdict v;
		charges.push_back(Admit(pool.p(), 0, 2, kPkt, &v));
		EXPECT_EQ(v, LL_MMU_ADMIT_RESERVED) << k;
		EXPECT_FALSE(Paused(pool.p(), 0)) << k;
	}
	ll_mmu_verdict v;
	charges.push_back(Admit(pool.p(), 0, 2, kPkt, &v));
	EXPECT_EQ(v, LL_MMU_ADMIT_HEADROOM);
	EXPECT_TRUE(Paused(pool.p(), 0));
	// Drain order: the first release empties the headroom, then the
	// reserve; the queue resumes once headroom is empty and shared = 0.
	ll_mmu_release(pool.p(), &charges[0], 0);
	EXPECT_EQ(pool->ports[0].iq[3].headroom_used, 0u);
	EXPECT_EQ(pool->ports[0].iq[3].reserved_used, 4000u);
	EXPECT_FALSE(Paused(pool.p(), 0));
	for (size_t i = 1; i < charges.size(); i++)
		ll_mmu_release(pool.p(), &charges[i], 0);
	ll_mmu_release(pool.p(), &fill, 0);
	ExpectEmpty(pool.p());
}

TEST(MmuAdmission, TaggedReleaseReturnsTheAdmittedRegion)
{
	ll_mmu_config c = PaperConfig(3, {1, 0}, 10000);
	c.reserved_bytes = 4000;
	c.total_bytes = 10000 + 3 * (8 * 4000 + kHdrm);
	c.release_order = LL_MMU_RELEASE_TAGGED;
	Pool pool(c, k100G, kHdrm);
	ll_mmu_charge fill = Admit(pool.p(), 1, 2, 10000);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 5; k++)
		charges.push_back(Admit(pool.p(), 0, 2));
	EXPECT_EQ(charges[4].region, LL_MMU_REGION_HEADROOM);
	// Releasing a reserved packet leaves the headroom packet in headroom.
	ll_mmu_release(pool.p(), &charges[0], 0);
	EXPECT_EQ(pool->ports[0].iq[3].headroom_used, 1000u);
	EXPECT_EQ(pool->ports[0].iq[3].reserved_used, 3000u);
	EXPECT_TRUE(Paused(pool.p(), 0));
	ll_mmu_release(pool.p(), &charges[4], 0);
	EXPECT_EQ(pool->ports[0].iq[3].headroom_used, 0u);
	EXPECT_FALSE(Paused(pool.p(), 0));
	for (int k = 1; k < 4; k++)
		ll_mmu_release(pool.p(), &charges[k], 0);
	ll_mmu_release(pool.p(), &fill, 0);
	ExpectEmpty(pool.p());
}

TEST(MmuAdmission, InvalidArgumentsAreRefused)
{
	ll_mmu_config c = PaperConfig(4, {1, 0});
	c.total_bytes = 1000000 + 3 * kHdrm;
	Pool pool(c);
	ll_mmu_port_config pc = PortCfg(k100G, kHdrm);
	for (ll_u32 i = 0; i < 3; i++)
		ASSERT_EQ(ll_mmu_port_attach(pool.p(), i, &pc, 0), LL_MMU_OK);
	ll_mmu_charge ch;
	EXPECT_EQ(ll_mmu_admit(pool.p(), 3, 3, 0, 3, 100, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ll_mmu_admit(pool.p(), 0, 3, 3, 3, 100, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ll_mmu_admit(pool.p(), 64, 3, 0, 3, 100, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ll_mmu_admit(pool.p(), 0, 8, 1, 3, 100, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ll_mmu_admit(pool.p(), 0, 3, 1, 64, 100, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ll_mmu_admit(pool.p(), 0, 3, 1, 3, 0, 0, &ch), LL_MMU_DROP_INVALID);
	EXPECT_EQ(ch.region, LL_MMU_REGION_NONE);
	EXPECT_EQ(pool->ctr.drops_invalid, 6u);
	EXPECT_EQ(ll_mmu_ctrl_take(pool.p(), 3, 0, nullptr), 0);
	EXPECT_EQ(ll_mmu_ctrl_complete(pool.p(), 3, 1, 0), 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 3), LL_MMU_NEVER);
	EXPECT_EQ(ll_mmu_port_detach(pool.p(), 3, 0), 0);
	ll_mmu_iq_stats st;
	EXPECT_EQ(ll_mmu_get_iq_stats(pool.p(), 3, 3, 0, &st), -1);
	EXPECT_EQ(ll_mmu_get_iq_stats(pool.p(), 0, 8, 0, &st), -1);
	ExpectEmpty(pool.p());
}

TEST(MmuRelease, ZeroedAndDoubleReleasesAreNoOps)
{
	Pool pool(PaperConfig(2, {1, 0}), k100G, kHdrm);
	ll_mmu_charge zero{};
	EXPECT_EQ(ll_mmu_release(pool.p(), &zero, 0), 0u);
	ll_mmu_charge ch = Admit(pool.p(), 0, 1, 1234);
	EXPECT_EQ(ch.bytes, 1234u);
	EXPECT_EQ(ch.in_port, 0);
	EXPECT_EQ(ch.eg_port, 1);
	EXPECT_EQ(ch.prio, 3);
	EXPECT_EQ(ch.eg_queue, 3);
	EXPECT_EQ(ch.lossless, 1);
	ll_mmu_charge copy = ch;
	ll_mmu_release(pool.p(), &ch, 0);
	EXPECT_EQ(ch.region, LL_MMU_REGION_NONE);
	ll_mmu_release(pool.p(), &ch, 0);
	ExpectEmpty(pool.p());
	ExpectInvariants(pool.p());
	// Releasing a stale copy again is a caller bug: clamped and counted
	// (once for the ingress side, once for the egress side).
	ll_mmu_release(pool.p(), &copy, 0);
	EXPECT_EQ(pool->ctr.release_anomalies, 2u);
	EXPECT_EQ(pool->shared_used, 0u);
}

// ---------------------------------------------------------- hysteresis

// alpha 1, B_s = 100,000, xon offset 5000: XOFF when shared reaches T,
// no XON while shared + offset >= T, XON below.
TEST(MmuHysteresis, XoffAtThresholdXonBelowOffset)
{
	ll_mmu_config c = PaperConfig(2, {1, 0}, 100000);
	c.xon_offset_bytes = 5000;
	Pool pool(c, k100G, kHdrm);
	std::deque<ll_mmu_charge> q;
	for (int k = 1; k <= 49; k++) {
		q.push_back(Admit(pool.p(), 0, 1));
		ASSERT_FALSE(Paused(pool.p(), 0)) << k;	// 1000k < 100,000 - 1000k
	}
	q.push_back(Admit(pool.p(), 0, 1));
	EXPECT_EQ(pool->ports[0].iq[3].shared_used, 50000u);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3), 50000u);
	EXPECT_TRUE(Paused(pool.p(), 0));	// 50,000 >= T = 50,000

	// Drain: shared 49,000 (T 51,000) and 48,000 (T 52,000) are within the
	// offset; 47,000 + 5,000 < 53,000 resumes.
	for (int k = 1; k <= 2; k++) {
		ll_mmu_release(pool.p(), &q.front(), 0);
		q.pop_front();
		EXPECT_TRUE(Paused(pool.p(), 0)) << k;
	}
	ll_mmu_release(pool.p(), &q.front(), 0);
	q.pop_front();
	EXPECT_FALSE(Paused(pool.p(), 0));

	// Filling again: off at exactly the threshold again.
	q.push_back(Admit(pool.p(), 0, 1));	// 48,000 / 52,000
	q.push_back(Admit(pool.p(), 0, 1));	// 49,000 / 51,000
	EXPECT_FALSE(Paused(pool.p(), 0));
	q.push_back(Admit(pool.p(), 0, 1));	// 50,000 / 50,000
	EXPECT_TRUE(Paused(pool.p(), 0));
	while (!q.empty()) {
		ll_mmu_release(pool.p(), &q.front(), 0);
		q.pop_front();
	}
	ExpectEmpty(pool.p());
}

// SONiC's xon floor: a queue at or below xon_bytes resumes whatever T is.
TEST(MmuHysteresis, XonFloor)
{
	ll_mmu_config c = PaperConfig(3, {1, 0}, 100000);
	c.xon_offset_bytes = 100000;	// the offset rule never resumes here
	c.xon_bytes = 20000;
	Pool pool(c, k100G, kHdrm);
	std::vector<ll_mmu_charge> hog;
	for (int k = 0; k < 49; k++)
		hog.push_back(Admit(pool.p(), 1, 2));
	EXPECT_FALSE(Paused(pool.p(), 1));	// 49,000 < 51,000
	std::deque<ll_mmu_charge> q;
	int k = 0;
	while (!Paused(pool.p(), 0) && k < 100) {
		q.push_back(Admit(pool.p(), 0, 2));
		k++;
	}
	EXPECT_EQ(k, 26);	// 26,000 >= T = 100,000 - 75,000
	for (int i = 1; i <= 6; i++) {
		ll_mmu_release(pool.p(), &q.front(), 0);
		q.pop_front();
		// 25,000 .. 21,000 stay paused; 20,000 <= xon resumes.
		EXPECT_EQ(Paused(pool.p(), 0), i < 6) << i;
	}
	for (auto &ch : q)
		ll_mmu_release(pool.p(), &ch, 0);
	for (auto &ch : hog)
		ll_mmu_release(pool.p(), &ch, 0);
	ExpectEmpty(pool.p());
}

// T rises when another queue drains: the paused queue has no event of its
// own, a sweep resumes it; release says when a sweep is worth it.
TEST(MmuHysteresis, SweepResumesWhenOthersDrain)
{
	Pool pool(PaperConfig(3, {1, 0}, 100000), k100G, kHdrm);
	EXPECT_EQ(pool->sweep_step, 1500u);	// mtu / alpha, alpha = 1
	std::vector<ll_mmu_charge> hog;
	for (int k = 0; k < 49; k++)
		hog.push_back(Admit(pool.p(), 1, 2));
	std::vector<ll_mmu_charge> q;
	while (!Paused(pool.p(), 0))
		q.push_back(Admit(pool.p(), 0, 2));
	ASSERT_EQ(q.size(), 26u);
	// Port 1 drains completely; port 0 (26,000, T now 74,000) keeps its
	// pause until a sweep.
	ll_u32 ev = 0;
	for (size_t i = 0; i < hog.size(); i++) {
		// (Port 1 itself is above T = 100,000 - S on its first
		// releases and pauses, then resumes as it empties.)
		ll_u32 e = ll_mmu_release(pool.p(), &hog[i], 0);
		if (i == 0) {
			EXPECT_EQ(e & LL_MMU_EV_SWEEP, 0u);	// S fell by 1000 < 1500
		}
		if (i == 1) {
			EXPECT_NE(e & LL_MMU_EV_SWEEP, 0u);	// by 2000
		}
		ev |= e;
	}
	EXPECT_NE(ev & LL_MMU_EV_SWEEP, 0u);
	EXPECT_FALSE(Paused(pool.p(), 1));
	EXPECT_TRUE(Paused(pool.p(), 0));
	ll_u64 due = ll_mmu_sweep(pool.p(), 0);
	EXPECT_FALSE(Paused(pool.p(), 0));
	// Port 0 was never told XOFF (no frame taken), so it is not due now.
	EXPECT_EQ(due, 0u);
	EXPECT_EQ(pool->sweep_mark, pool->shared_used);
	EXPECT_EQ(pool->ctr.sweeps, 1u);
	for (auto &ch : q)
		EXPECT_EQ(ll_mmu_release(pool.p(), &ch, 0) & LL_MMU_EV_SWEEP, 0u);
	ExpectEmpty(pool.p());
}

// ------------------------------------------------------ PFC generation

class PfcGen : public ::testing::Test {
protected:
	PfcGen() : pool_(Config(), k100G, kHdrm) {}
	static ll_mmu_config Config()
	{
		ll_mmu_config c = PaperConfig(3, {1, 0}, 100000);
		c.lossless_mask = 0x18;		// priorities 3 and 4
		c.total_bytes = 100000 + 3 * 2 * kHdrm;
		return c;
	}
	ll_mmu_pool *p() { return pool_.p(); }
	// Fill (port 0, prio) to its XOFF: 50 packets at alpha 1 alone.
	void Fill(ll_u32 prio, int n)
	{
		for (int k = 0; k < n; k++)
			q_[prio].push_back(Admit(p(), 0, 2, kPkt, nullptr, prio, prio));
	}
	void Drain(ll_u32 prio, ll_u64 now)
	{
		for (auto &ch : q_[prio])
			ll_mmu_release(p(), &ch, now);
		q_[prio].clear();
	}
	ll_ctrl_msg Take(ll_u64 now)
	{
		ll_ctrl_msg f;
		std::memset(&f, 0xEE, sizeof(f));
		EXPECT_EQ(ll_mmu_ctrl_take(p(), 0, now, &f), 1);
		return f;
	}
	Pool pool_;
	std::vector<ll_mmu_charge> q_[8];
};

// At 100 Gbit/s, 0xFFFF quanta = 65535 * 512 / 100 ns = 335,539.2 ns ->
// 335,540 ns (rounded up); the refresh comes at half: 167,770 ns.
constexpr ll_u64 kRefresh100G = 167770;

TEST_F(PfcGen, XoffFrameRefreshAndXon)
{
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, kRefresh100G);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), LL_MMU_NEVER);
	Fill(3, 49);
	EXPECT_EQ(ll_mmu_ctrl_due(p(), 0, 1000), 0);
	Fill(3, 1);
	ASSERT_TRUE(Paused(p(), 0, 3));
	EXPECT_EQ(ll_mmu_ctrl_due(p(), 0, 1000), 1);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 0u);	// due now

	ll_ctrl_msg f = Take(1000);
	EXPECT_EQ(f.kind, LL_CTRL_PFC);
	EXPECT_EQ(f.gate_mask, 0x08);
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(f.value[i], i == 3 ? 0xFFFF : 0) << i;
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(f.src[i], 0);
	// Claimed: no second frame, no deadline, until completion.
	ll_ctrl_msg dup;
	EXPECT_EQ(ll_mmu_ctrl_take(p(), 0, 1000, &dup), 0);
	EXPECT_EQ(ll_mmu_ctrl_due(p(), 0, 1000), 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), LL_MMU_NEVER);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 1500), 0);
	// The frame counts from when it was taken.
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1000 + kRefresh100G);
	EXPECT_EQ(ll_mmu_next_deadline(p()), 1000 + kRefresh100G);

	// More arrivals while paused (headroom): no new frame.
	ll_mmu_charge extra = Admit(p(), 0, 2);
	EXPECT_EQ(ll_mmu_ctrl_due(p(), 0, 2000), 0);
	EXPECT_EQ(ll_mmu_ctrl_take(p(), 0, 1000 + kRefresh100G - 1, &dup), 0);

	// Refresh, exactly at the deadline; same content.
	f = Take(1000 + kRefresh100G);
	EXPECT_EQ(f.gate_mask, 0x08);
	EXPECT_EQ(f.value[3], 0xFFFF);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 1000 + kRefresh100G), 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1000 + 2 * kRefresh100G);

	ll_mmu_iq_stats st;
	ASSERT_EQ(ll_mmu_get_iq_stats(p(), 0, 3, 300000, &st), 0);
	EXPECT_EQ(st.xoff_frames, 1u);
	EXPECT_EQ(st.xoff_refreshes, 1u);
	EXPECT_EQ(st.xon_frames, 0u);
	EXPECT_EQ(st.paused_ns, 299000u);	// running since 1000
	EXPECT_TRUE(st.paused);
	EXPECT_TRUE(st.told_xoff);

	// Drain: XON (time 0 for priority 3) at 400,000.
	ll_mmu_release(p(), &extra, 400000);
	for (auto &ch : q_[3]) {
		ll_u32 ev = ll_mmu_release(p(), &ch, 400000);
		if (!Paused(p(), 0, 3)) {
			EXPECT_NE(ev & LL_MMU_EV_PFC_DUE, 0u);
			break;
		}
	}
	ASSERT_FALSE(Paused(p(), 0, 3));
	f = Take(400000);
	EXPECT_EQ(f.gate_mask, 0x08);
	EXPECT_EQ(f.value[3], 0);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 400000), 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), LL_MMU_NEVER);
	ASSERT_EQ(ll_mmu_get_iq_stats(p(), 0, 3, 999999, &st), 0);
	EXPECT_EQ(st.xon_frames, 1u);
	EXPECT_EQ(st.paused_ns, 399000u);	// 1000 .. 400,000, then stopped
	EXPECT_FALSE(st.told_xoff);
	EXPECT_EQ(pool_->ports[0].xoff.frames, 3u);
	Drain(3, 400000);
	ExpectEmpty(p());
}

// The headroom's premise, measured: from the XOFF decision the caller
// timed (ll_mmu_xoff_decided()) to the frame's completion; a decision the
// caller did not time counts from the take; refreshes and XONs are not
// responses; the peaks' reset restarts the maximum from the last one.
TEST_F(PfcGen, XoffResponseFromDecisionToFrame)
{
	ll_mmu_premise_stats ps;
	Fill(3, 50);
	ASSERT_TRUE(Paused(p(), 0, 3));
	ll_mmu_xoff_decided(p(), 0, 1000);
	ll_mmu_xoff_decided(p(), 0, 3000);	/* the first decision counts */
	Take(5000);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 5600), 0);
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_last_ns, 4600u);
	EXPECT_EQ(ps.response_max_ns, 4600u);
	EXPECT_EQ(ps.responses, 1u);
	// Told: nothing more to time; a refresh is no response.
	ll_mmu_xoff_decided(p(), 0, 6000);
	Take(5000 + kRefresh100G);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 5000 + kRefresh100G), 0);
	Drain(3, 400000);
	Take(400000);				/* the XON */
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 400000), 0);
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.responses, 1u);
	// Untimed by the caller: from the take, 100 ns to its completion.
	Fill(3, 50);
	Take(500000);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 500100), 0);
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_last_ns, 100u);
	EXPECT_EQ(ps.response_max_ns, 4600u);
	EXPECT_EQ(ps.responses, 2u);
	ll_mmu_reset_peaks(p());
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_max_ns, 100u);
	EXPECT_EQ(ll_mmu_get_premise_stats(p(), 9, &ps), -1);
	Drain(3, 600000);
}

// A pause decided while another's frame is out (its caller cannot time it:
// nothing is due while a frame is claimed) counts from its own frame's
// take, not from the first decision.
TEST_F(PfcGen, XoffDecidedWhileAFrameIsOutCountsFromItsTake)
{
	ll_mmu_premise_stats ps;
	Fill(3, 50);
	ll_mmu_xoff_decided(p(), 0, 1000);
	Take(2000);
	// 3 holds 50,000: 4 pauses at 25 packets (TwoPrioritiesShare...).
	Fill(4, 25);
	ASSERT_TRUE(Paused(p(), 0, 4));
	ll_mmu_xoff_decided(p(), 0, 2500);	/* still the first one's */
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 3000), 1);	/* 4 due */
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_last_ns, 2000u);
	Take(10000);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 10500), 0);
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_last_ns, 500u);
	EXPECT_EQ(ps.response_max_ns, 2000u);
	EXPECT_EQ(ps.responses, 2u);
	Drain(3, 20000);
	Drain(4, 20000);
}

// A pause withdrawn before any frame told it leaves no decision behind to
// make the next response look long.
TEST_F(PfcGen, WithdrawnXoffLeavesNoStaleDecision)
{
	ll_mmu_premise_stats ps;
	Fill(3, 50);
	ll_mmu_xoff_decided(p(), 0, 1000);
	ll_mmu_release(p(), &q_[3].back(), 2000);
	q_[3].pop_back();
	ASSERT_FALSE(Paused(p(), 0, 3));
	EXPECT_EQ(pool_->ports[0].xoff.decided_ns, 0u);
	Fill(3, 1);
	ASSERT_TRUE(Paused(p(), 0, 3));
	Take(9000);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 9000), 0);
	ASSERT_EQ(ll_mmu_get_premise_stats(p(), 0, &ps), 0);
	EXPECT_EQ(ps.response_last_ns, 0u);
	EXPECT_EQ(ps.responses, 1u);
	Drain(3, 10000);
}

TEST_F(PfcGen, FailedSendIsRetriedNotDuplicated)
{
	Fill(3, 50);
	ll_ctrl_msg f = Take(1000);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 0, 1100), 1);	// still due
	EXPECT_EQ(pool_->ports[0].xoff.send_failures, 1u);
	EXPECT_EQ(pool_->ports[0].iq[3].xoff_frames, 0u);
	ll_ctrl_msg g = Take(1200);
	EXPECT_EQ(std::memcmp(&f, &g, sizeof(f)), 0);
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 1300), 0);
	EXPECT_EQ(pool_->ports[0].iq[3].xoff_frames, 1u);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1200 + kRefresh100G);
	// A completion without a claim changes nothing.
	EXPECT_EQ(ll_mmu_ctrl_complete(p(), 0, 1, 1400), 0);
	EXPECT_EQ(pool_->ports[0].iq[3].xoff_frames, 1u);
	EXPECT_EQ(pool_->ports[0].xoff.frames, 1u);
	Drain(3, 2000);
}

TEST_F(PfcGen, ChangeAndChangeBackBeforeTakeSendsNothing)
{
	Fill(3, 50);
	ASSERT_TRUE(Paused(p(), 0, 3));
	ll_mmu_release(p(), &q_[3].back(), 0);	// 49,000 < T = 51,000
	q_[3].pop_back();
	ASSERT_FALSE(Paused(p(), 0, 3));
	EXPECT_EQ(ll_mmu_ctrl_due(p(), 0, 0), 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), LL_MMU_NEVER);
	Drain(3, 0);
}

TEST_F(PfcGen, TwoPrioritiesShareFramesAndRefresh)
{
	Fill(3, 50);
	ASSERT_TRUE(Paused(p(), 0, 3));
	// Priority 4's first packet: 1,000 <= T = 50,000, shared, T 49,000:
	// it stays on; it pauses when it reaches T.
	Fill(4, 1);
	EXPECT_FALSE(Paused(p(), 0, 4));
	ll_ctrl_msg f = Take(0);
	EXPECT_EQ(f.gate_mask, 0x08);
	ll_mmu_ctrl_complete(p(), 0, 1, 0);
	int n = 1;
	while (!Paused(p(), 0, 4)) {
		Fill(4, 1);
		n++;
	}
	// 3 holds 50,000; 4 pauses at 1000n >= 100,000 - 50,000 - 1000n.
	EXPECT_EQ(n, 25);
	f = Take(1000);
	EXPECT_EQ(f.gate_mask, 0x18);	// 4 changes, 3 is refreshed with it
	EXPECT_EQ(f.value[3], 0xFFFF);
	EXPECT_EQ(f.value[4], 0xFFFF);
	ll_mmu_ctrl_complete(p(), 0, 1, 1000);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1000 + kRefresh100G);
	EXPECT_EQ(pool_->ports[0].iq[3].xoff_refreshes, 1u);
	EXPECT_EQ(pool_->ports[0].iq[4].xoff_frames, 1u);

	// Priority 3 drains: XON for 3 in a frame that refreshes 4.
	Drain(3, 5000);
	ASSERT_FALSE(Paused(p(), 0, 3));
	// No event on priority 4 since: it stays paused until its own next
	// release or a sweep (T rose to 75,000 under it).
	ASSERT_TRUE(Paused(p(), 0, 4));
	f = Take(5000);
	EXPECT_EQ(f.gate_mask, 0x18);
	EXPECT_EQ(f.value[3], 0);
	EXPECT_EQ(f.value[4], 0xFFFF);
	ll_mmu_ctrl_complete(p(), 0, 1, 5000);
	EXPECT_EQ(pool_->ports[0].iq[3].xon_frames, 1u);
	EXPECT_EQ(pool_->ports[0].iq[4].xoff_refreshes, 1u);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 5000 + kRefresh100G);
	Drain(4, 6000);
	f = Take(6000);
	EXPECT_EQ(f.gate_mask, 0x10);
	EXPECT_EQ(f.value[4], 0);
	ll_mmu_ctrl_complete(p(), 0, 1, 6000);
	ExpectEmpty(p());
	EXPECT_EQ(pool_->ports[0].xoff.told, 0);
}

TEST_F(PfcGen, RefreshPeriodFollowsRateAndQuanta)
{
	// 10 Gbit/s: 3,355,392 ns of pause, refresh at 1,677,696 ns.
	ll_mmu_port_config pc = PortCfg(10 * kGbit, kHdrm);
	ASSERT_EQ(ll_mmu_port_update(p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, 1677696u);
	// 100 Mbit/s: 335,539,200 ns of pause, refresh at 167,769,600 ns.
	pc = PortCfg(100 * kMbit, kHdrm);
	ASSERT_EQ(ll_mmu_port_update(p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, 167769600u);
	// A shorter configured pause: 1000 quanta at 1G = 512 us, refresh 256 us.
	ll_mmu_config c = pool_->cfg;
	c.xoff_quanta = 1000;
	ASSERT_EQ(ll_mmu_pool_reconfigure(p(), &c), LL_MMU_OK);
	pc = PortCfg(kGbit, kHdrm);
	ASSERT_EQ(ll_mmu_port_update(p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, 256000u);
	Fill(3, 50);
	ll_ctrl_msg f = Take(0);
	EXPECT_EQ(f.value[3], 1000);
	ll_mmu_ctrl_complete(p(), 0, 1, 0);
	Drain(3, 0);
}

TEST_F(PfcGen, RefreshFollowsThePauseActuallySent)
{
	// 100 quanta at 100G = 512 ns of pause: refresh due 256 ns later.
	ll_mmu_config c = pool_->cfg;
	c.xoff_quanta = 100;
	ASSERT_EQ(ll_mmu_pool_reconfigure(p(), &c), LL_MMU_OK);
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, 256u);
	Fill(3, 50);
	ll_ctrl_msg f = Take(1000);
	EXPECT_EQ(f.value[3], 100);
	ll_mmu_ctrl_complete(p(), 0, 1, 1000);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1256u);
	// A longer pause configured now does not push back the refresh of
	// the short one already sent.
	c.xoff_quanta = 0;
	ASSERT_EQ(ll_mmu_pool_reconfigure(p(), &c), LL_MMU_OK);
	EXPECT_EQ(pool_->ports[0].xoff.refresh_ns, kRefresh100G);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1256u);
	f = Take(1256);
	EXPECT_EQ(f.value[3], 0xFFFF);
	ll_mmu_ctrl_complete(p(), 0, 1, 1256);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(p(), 0), 1256 + kRefresh100G);
	Drain(3, 2000);
}

TEST_F(PfcGen, DetachReportsPausedPriorities)
{
	Fill(3, 50);
	Take(0);
	ll_mmu_ctrl_complete(p(), 0, 1, 0);
	Fill(4, 30);	// paused (want) but not yet told
	ASSERT_TRUE(Paused(p(), 0, 4));
	EXPECT_EQ(ll_mmu_port_detach(p(), 0, 10), 0x08);	// told XOFF: 3 only
	EXPECT_EQ(pool_->paused_count, 0u);
	ExpectInvariants(p());
	for (auto &ch : q_[3])
		ll_mmu_release(p(), &ch, 20);
	for (auto &ch : q_[4])
		ll_mmu_release(p(), &ch, 20);
	EXPECT_EQ(pool_->ctr.stale_releases, 80u);	// ingress side only
	ExpectEmpty(p());
}

// ------------------------------------------------------------ lossy

// Lossy priority 0 uses the egress DT (alpha 1, B_s = 100,000): 50
// packets fit (50,000 <= T = 50,000 for the 50th), the 51st is dropped.
// Lossless priority 3 on the same ports is never dropped while its
// headroom lasts.
TEST(MmuLossy, EgressDtDropsLossyOnly)
{
	Pool pool(PaperConfig(2, {1, 0}, 100000), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 1; k <= 50; k++) {
		ll_mmu_verdict v;
		charges.push_back(Admit(pool.p(), 0, 1, kPkt, &v, 0, 0));
		ASSERT_EQ(v, LL_MMU_ADMIT_SHARED) << k;
	}
	EXPECT_EQ(ll_mmu_egress_threshold(pool.p(), 1, 0), 50000u);
	ll_mmu_verdict v;
	ll_mmu_charge ch = Admit(pool.p(), 0, 1, kPkt, &v, 0, 0);
	EXPECT_EQ(v, LL_MMU_DROP_LOSSY);
	EXPECT_EQ(ch.region, LL_MMU_REGION_NONE);
	EXPECT_EQ(pool->ctr.drops_lossy, 1u);
	EXPECT_EQ(pool->ports[1].eq[0].drops, 1u);
	EXPECT_EQ(pool->ports[0].iq[0].drops, 1u);
	EXPECT_EQ(ll_mmu_ctrl_due(pool.p(), 0, 0), 0);	// lossy never pauses
	EXPECT_EQ(pool->ports[0].xoff.want, 0);
	EXPECT_EQ(pool->ports[0].iq[0].headroom_used, 0u);

	// Lossless on the same ingress port, to the same egress port: shared
	// up to its ingress T (alpha 1: 25,000 with the 50,000 lossy bytes),
	// then exactly 10 packets of headroom; never a drop before that.
	int admitted = 0;
	for (;;) {
		ll_mmu_verdict lv;
		ll_mmu_charge c = Admit(pool.p(), 0, 1, kPkt, &lv);
		if (!ll_mmu_admitted(lv)) {
			EXPECT_EQ(lv, LL_MMU_DROP_LOSSLESS);
			break;
		}
		admitted++;
		charges.push_back(c);
	}
	EXPECT_EQ(pool->ports[0].iq[3].shared_used, 25000u);
	EXPECT_EQ(pool->ports[0].iq[3].headroom_used, 10000u);
	EXPECT_EQ(admitted, 35);
	EXPECT_EQ(pool->ctr.drops_lossless, 1u);
	EXPECT_EQ(pool->ctr.drops_lossy, 1u);
	ExpectInvariants(pool.p());
	for (auto &c : charges)
		ll_mmu_release(pool.p(), &c, 0);
	ExpectEmpty(pool.p());
}

TEST(MmuLossy, ReserveAppliesToLossyToo)
{
	ll_mmu_config c = PaperConfig(2, {1, 0}, 10000);
	c.reserved_bytes = 3000;
	c.total_bytes = 10000 + 2 * (8 * 3000 + kHdrm);
	c.egress_alpha = {1, 4};	// T_eg = 625 with an empty pool
	Pool pool(c, k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 3; k++) {
		ll_mmu_verdict v;
		charges.push_back(Admit(pool.p(), 0, 1, kPkt, &v, 0, 0));
		EXPECT_EQ(v, LL_MMU_ADMIT_RESERVED);
	}
	ll_mmu_verdict v;
	Admit(pool.p(), 0, 1, kPkt, &v, 0, 0);
	EXPECT_EQ(v, LL_MMU_DROP_LOSSY);	// 3000 + 1000 > 625
	for (auto &ch : charges)
		ll_mmu_release(pool.p(), &ch, 0);
	ExpectEmpty(pool.p());
}

// ----------------------------------------------------------- detach

TEST(MmuDetach, DetachWithBytesChargedThenReleaseEverything)
{
	Pool pool(PaperConfig(3, {1, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 10; k++) {
		charges.push_back(Admit(pool.p(), 0, 2));	// 0 -> 2
		charges.push_back(Admit(pool.p(), 1, 0));	// 1 -> 0
		charges.push_back(Admit(pool.p(), 2, 1));	// 2 -> 1
	}
	ll_u64 shared_size = pool->shared_size;
	EXPECT_EQ(ll_mmu_port_detach(pool.p(), 0, 5), 0);
	// Its 10,000 ingress bytes left the pool; its egress counters are 0.
	EXPECT_EQ(pool->shared_used, 20000u);
	EXPECT_EQ(pool->ctr.orphaned_bytes, 10000u);
	EXPECT_EQ(pool->shared_size, shared_size + kHdrm);
	EXPECT_EQ(pool->ports[0].egress_bytes, 0u);
	EXPECT_EQ(pool->ports[0].gen, 1);
	ExpectInvariants(pool.p());
	// New traffic to or from port 0 is refused.
	ll_mmu_verdict v;
	Admit(pool.p(), 1, 0, kPkt, &v);
	EXPECT_EQ(v, LL_MMU_DROP_INVALID);
	// Re-attach port 0 (a new device in the slot) before the old packets
	// are released: they must not touch the new attachment.
	ll_mmu_port_config pc = PortCfg(k100G, kHdrm);
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 10), LL_MMU_OK);
	ll_mmu_charge fresh = Admit(pool.p(), 0, 1);
	EXPECT_EQ(fresh.in_gen, 1);
	for (auto &c : charges) {
		ll_mmu_release(pool.p(), &c, 20);
		ExpectInvariants(pool.p());
	}
	// 10 stale ingress sides (0 -> 2) + 10 stale egress sides (1 -> 0).
	EXPECT_EQ(pool->ctr.stale_releases, 20u);
	EXPECT_EQ(pool->ports[0].iq[3].shared_used, 1000u);	// only the fresh one
	ll_mmu_release(pool.p(), &fresh, 30);
	ExpectEmpty(pool.p());
	EXPECT_EQ(pool->ctr.release_anomalies, 0u);
}

TEST(MmuDetach, PortUpdateChecksHeadroomInUse)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 672; k++)
		charges.push_back(Admit(pool.p(), 0, 1));
	ASSERT_EQ(pool->ports[0].iq[3].headroom_used, 5000u);
	ll_mmu_port_config pc = PortCfg(k100G, 4000);
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 0, &pc, 0), LL_MMU_ERR_BUSY);
	pc = PortCfg(k100G, 6000);
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(pool->headroom_size, 16000u);
	EXPECT_EQ(pool->shared_size, 1000000u + 4000u);
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 2, &pc, 0), LL_MMU_ERR_PORT);
	ExpectInvariants(pool.p());
	for (auto &c : charges)
		ll_mmu_release(pool.p(), &c, 0);
	ExpectEmpty(pool.p());
}

TEST(MmuReconfigure, LiveChangesAndTheirLimits)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 600; k++)
		charges.push_back(Admit(pool.p(), 0, 1));
	EXPECT_FALSE(Paused(pool.p(), 0));	// 600,000 < T = 800,000
	ll_mmu_config c = pool->cfg;
	c.alpha = {1, 0};			// T = 400,000: pause now
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_EQ(ll_mmu_ctrl_due(pool.p(), 0, 0), 1);

	c.total_bytes = 500000;			// below the 600,000 in use
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_BUSY);
	c.total_bytes = pool->cfg.total_bytes;
	c.lossless_mask = 0x08 | 0x01;		// only while idle
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_BUSY);
	c.lossless_mask = pool->cfg.lossless_mask;
	c.release_order = LL_MMU_RELEASE_TAGGED;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_BUSY);
	c.release_order = LL_MMU_RELEASE_DRAIN;
	c.max_ports = 3;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_PORTS);
	c.max_ports = 2;
	c.reserved_bytes = 1;			// 8 x 1 x 2 ports fits
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(pool->reserved_size, 16u);
	EXPECT_EQ(pool->shared_size, 1000000u - 16u);

	for (auto &ch : charges)
		ll_mmu_release(pool.p(), &ch, 0);
	ExpectEmpty(pool.p());
	// Idle: priority 3 becomes lossy; the told XOFF would be undone by a
	// frame (here nothing was told, so nothing is due).
	c.lossless_mask = 0x01;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(pool->headroom_size, 2u * kHdrm);	// one lossless priority
	EXPECT_EQ(ll_mmu_ctrl_due(pool.p(), 0, 0), 0);
}

// A busy pool's scheme changes after a drain (losslessctl move-scheme):
// draining pauses every lossless queue of every port, an idle one too,
// drops lossy arrivals and still admits lossless ones; once empty the
// scheme changes, and the end of the drain resumes every queue.
TEST(MmuDrain, PausesEveryQueueDropsLossyThenTheSchemeChanges)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 3; k++)
		charges.push_back(Admit(pool.p(), 0, 1));
	EXPECT_FALSE(Paused(pool.p(), 0));	// far below T
	EXPECT_FALSE(ll_mmu_pool_idle(pool.p()));
	ll_mmu_config c = pool->cfg;
	c.scheme = LL_SCHEME_ST;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_BUSY);

	EXPECT_EQ(ll_mmu_set_draining(pool.p(), 1, 0), 3u);	// both ports due
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_TRUE(Paused(pool.p(), 1));	// idle, paused all the same
	ll_mmu_verdict v;
	Admit(pool.p(), 0, 1, kPkt, &v, 0, 0);	// lossy: dropped
	EXPECT_EQ(v, LL_MMU_DROP_LOSSY);
	charges.push_back(Admit(pool.p(), 1, 0));	// lossless: in flight, kept
	EXPECT_TRUE(Paused(pool.p(), 1));
	for (auto &ch : charges)
		ll_mmu_release(pool.p(), &ch, 0);
	EXPECT_TRUE(ll_mmu_pool_idle(pool.p()));
	EXPECT_TRUE(Paused(pool.p(), 0));	// empty, still held
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	ll_mmu_set_draining(pool.p(), 0, 0);
	ExpectEmpty(pool.p());			// every queue resumed too
	EXPECT_EQ((int)pool->cfg.scheme, (int)LL_SCHEME_ST);
}

// ------------------------------------------------------------- ECN

TEST(MmuEcn, RedMarkingHandComputed)
{
	ll_ecn_red red{10000, 20000, 32768, 1};	// Pmax 0.5
	EXPECT_EQ(ll_ecn_red_mark(&red, 0, 0), 0);
	EXPECT_EQ(ll_ecn_red_mark(&red, 10000, 0), 0);		// <= kmin: never
	EXPECT_EQ(ll_ecn_red_mark(&red, 20001, 0xFFFFFFFF), 1);	// > kmax: always
	// q = 15,000: p = 0.5 * 0.5 = 0.25: marks iff rnd < 2^30.
	EXPECT_EQ(ll_ecn_red_mark(&red, 15000, (1u << 30) - 1), 1);
	EXPECT_EQ(ll_ecn_red_mark(&red, 15000, 1u << 30), 0);
	// q = kmax: p = Pmax = 0.5.
	EXPECT_EQ(ll_ecn_red_mark(&red, 20000, (1u << 31) - 1), 1);
	EXPECT_EQ(ll_ecn_red_mark(&red, 20000, 1u << 31), 0);
	// Pmax = 1.0 at kmax marks always.
	ll_ecn_red one{10000, 20000, LL_ECN_PMAX_ONE, 1};
	EXPECT_EQ(ll_ecn_red_mark(&one, 20000, 0xFFFFFFFF), 1);
	// Disabled (the default) never marks.
	ll_ecn_red off{10000, 20000, 32768, 0};
	EXPECT_EQ(ll_ecn_red_mark(&off, 1000000, 0), 0);
	// Huge spans do not overflow: q halfway, p = 0.25.
	ll_ecn_red huge{0, 1ull << 60, 32768, 1};
	EXPECT_EQ(ll_ecn_red_mark(&huge, 1ull << 59, (1u << 30) - 1), 1);
	EXPECT_EQ(ll_ecn_red_mark(&huge, 1ull << 59, 1u << 30), 0);
}

TEST(MmuEcn, MarkingRateMatchesProbability)
{
	ll_ecn_red red{5000, 105000, 13107, 1};	// Pmax 0.2
	std::mt19937 rng(7);
	int marks = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++)
		marks += ll_ecn_red_mark(&red, 55000, rng());	// p = 0.1
	EXPECT_NEAR((double)marks / n, 0.1, 0.005);
}

TEST(MmuEcn, PoolMarksOnEgressBytesAndCounts)
{
	ll_mmu_config c = PaperConfig(2, {1, 0});
	Pool off(c, k100G, kHdrm);
	ll_mmu_charge ch = Admit(off.p(), 0, 1, 50000);
	EXPECT_EQ(ll_mmu_ecn_mark(off.p(), 1, 3, 0), 0);	// off by default
	ll_mmu_release(off.p(), &ch, 0);

	c.ecn = ll_ecn_red{10000, 20000, 32768, 1};
	Pool pool(c, k100G, kHdrm);
	ch = Admit(pool.p(), 0, 1, 15000);
	EXPECT_EQ(ll_mmu_ecn_mark(pool.p(), 1, 3, 0), 1);
	EXPECT_EQ(ll_mmu_ecn_mark(pool.p(), 1, 3, 0xFFFFFFFF), 0);
	EXPECT_EQ(ll_mmu_ecn_mark(pool.p(), 1, 2, 0), 0);	// empty queue
	EXPECT_EQ(ll_mmu_ecn_mark(pool.p(), 1, 64, 0), 0);	// no such queue
	EXPECT_EQ(pool->ports[1].eq[3].ecn_marks, 1u);
	ll_mmu_release(pool.p(), &ch, 0);
	ExpectEmpty(pool.p());
}

// ------------------------------------------------------------ stats

TEST(MmuStats, PeaksAndReset)
{
	Pool pool(PaperConfig(2, {2, 0}), k100G, kHdrm);
	std::vector<ll_mmu_charge> charges;
	for (int k = 0; k < 670; k++)
		charges.push_back(Admit(pool.p(), 0, 1));
	ll_mmu_pool_stats ps;
	ll_mmu_get_pool_stats(pool.p(), &ps);
	EXPECT_EQ(ps.total_bytes, 1020000u);
	EXPECT_EQ(ps.shared_size, 1000000u);
	EXPECT_EQ(ps.headroom_size, 20000u);
	EXPECT_EQ(ps.shared_used, 667000u);
	EXPECT_EQ(ps.headroom_used, 3000u);
	EXPECT_EQ(ps.peak_shared, 667000u);
	EXPECT_EQ(ps.peak_headroom, 3000u);
	EXPECT_EQ(ps.paused_queues, 1u);
	EXPECT_EQ(ps.ctr.admitted_packets, 670u);
	EXPECT_EQ(ps.ctr.admitted_bytes, 670000u);
	EXPECT_EQ(pool->ports[1].eq[3].peak_bytes, 670000u);
	for (int k = 0; k < 100; k++)
		ll_mmu_release(pool.p(), &charges[k], 0);
	ll_mmu_get_pool_stats(pool.p(), &ps);
	EXPECT_EQ(ps.peak_shared, 667000u);
	EXPECT_EQ(ps.peak_headroom, 3000u);
	ll_mmu_reset_peaks(pool.p());
	ll_mmu_get_pool_stats(pool.p(), &ps);
	EXPECT_EQ(ps.peak_shared, 570000u);
	EXPECT_EQ(ps.peak_headroom, 0u);
	ll_mmu_iq_stats st;
	ll_mmu_get_iq_stats(pool.p(), 0, 3, 0, &st);
	EXPECT_EQ(st.peak_bytes, 570000u);
	EXPECT_EQ(st.peak_headroom, 0u);
	EXPECT_EQ(st.headroom_size, 10000u);
	EXPECT_EQ(st.threshold, 2 * (1000000u - 570000u));
	ll_mmu_get_iq_stats(pool.p(), 0, 0, 0, &st);
	EXPECT_EQ(st.lossless, 0);
	EXPECT_EQ(st.headroom_size, 0u);
	EXPECT_EQ(pool->ports[1].eq[3].peak_bytes, 570000u);
	for (size_t k = 100; k < charges.size(); k++)
		ll_mmu_release(pool.p(), &charges[k], 0);
	ExpectEmpty(pool.p());
}

} // namespace
