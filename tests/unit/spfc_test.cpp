// SPFC, selective PFC (kernel/core/scheme_spfc.c; spfc.md sections 3 and
// 6.2), on the concrete cases of spfc.md section 8: the DT/ST baseline
// (8.1, U*), the state machine (8.2, S-U*) and bad input (8.3, B*), plus
// the truth table of 3.5. Randomised properties (3.9, S-U15) are in
// spfc_property_test.cpp.
//
// The "paper-pure" configuration of section 8: B_shared = 1,000,000 B, no
// reserve, headroom 10,000 B per (port, prio), alpha 2, K 5, C 100 Gbit/s,
// TC 80 us, so IRC_th = 200,000 B (the default, C x TC / 8 / 5); xon
// offset 0; 1000-byte packets; one lossless priority (3); a virtual clock.
// Window 0 is [0, 80,000 ns).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "charge_model.h"
#include "mmu_fixture.h"

extern "C" {
#include "lossless.h"
#include "scheme.h"
}

namespace {

using namespace mmu_test;

constexpr ll_u32 kPkt = 1000;
constexpr ll_u32 kP = kLosslessPrio;	// 3
constexpr ll_u64 kTc = 80000;		// 80 us
constexpr ll_u64 kTh = 200000;		// (100 Gbit/s / 8) x 80 us / 5
constexpr ll_u32 kHdrm = 10000;
constexpr ll_u64 k100G = 100 * kGbit;

ll_mmu_config SpfcConfig(ll_u32 ports = 2, ll_mmu_alpha alpha = {2, 0}, ll_u64 flags = 0)
{
	ll_mmu_config c = PaperConfig(ports, alpha);
	c.scheme = LL_SCHEME_SPFC;
	c.scheme_params.spfc.tc_ns = kTc;
	c.scheme_params.spfc.flags = flags;
	return c;
}

// Packets held by the switch, released oldest first (per ingress port).
struct Traffic {
	explicit Traffic(Pool &p) : pool(p) {}
	Pool &pool;
	std::deque<ll_mmu_charge> held;

	ll_mmu_verdict Send(ll_u32 in, ll_u64 t, ll_u32 prio = kP, ll_u32 bytes = kPkt,
			    ll_u32 eg = 1)
	{
		return AdmitAndHold(pool.p(), held, in, prio, eg, bytes, t);
	}
	// Release the oldest packet that entered on `in` (any prio if ~0).
	ll_u32 Depart(ll_u32 in, ll_u64 t, ll_u32 prio = ~0u)
	{
		for (auto it = held.begin(); it != held.end(); ++it) {
			if (it->in_port != in || (prio != ~0u && it->prio != prio))
				continue;
			ll_mmu_charge c = *it;
			held.erase(it);
			ll_u32 ev = ll_mmu_release(pool.p(), &c, t);
			if (ev & LL_MMU_EV_SWEEP)
				ll_mmu_sweep(pool.p(), t);
			ExpectInvariants(pool.p());
			return ev;
		}
		ADD_FAILURE() << "nothing held from port " << in;
		return 0;
	}
	// n arrivals and departures, interleaved, from t on, step ns apart.
	void PassThrough(ll_u32 in, int n, ll_u64 t, ll_u64 step = 10, ll_u32 prio = kP,
			 ll_u32 bytes = kPkt)
	{
		for (int k = 0; k < n; k++, t += step) {
			EXPECT_TRUE(ll_mmu_admitted(Send(in, t, prio, bytes)));
			Depart(in, t, prio);
		}
	}
	void DrainAll(ll_u64 t)
	{
		while (!held.empty()) {
			ll_mmu_charge c = held.front();
			held.pop_front();
			ll_mmu_release(pool.p(), &c, t);
		}
		ll_mmu_sweep(pool.p(), t);
		ExpectInvariants(pool.p());
	}
};

const ll_spfc_port_state &St(Pool &pool, ll_u32 port)
{
	return pool->ports[port].sch.spfc;
}

const ll_spfc_iq_state &Iq(Pool &pool, ll_u32 port, ll_u32 prio = kP)
{
	return pool->ports[port].iq[prio].sch.spfc;
}

bool Victim(Pool &pool, ll_u32 port, ll_u32 prio = kP)
{
	return (ll_spfc_victims(pool.p(), port) >> prio) & 1;
}

ll_u64 Threshold(Pool &pool, ll_u32 port, ll_u32 prio = kP)
{
	return ll_mmu_ingress_threshold(pool.p(), port, prio);
}

ll_u64 Dt(Pool &pool)
{
	return ll_dt_ingress_threshold(pool.p());
}

// A Victim's X_off: the whole buffer, or DT's T if that is larger (an
// empty pool with alpha > 1).
ll_u64 VictimT(Pool &pool)
{
	return std::max<ll_u64>(pool->cfg.total_bytes, Dt(pool));
}

// Make port 0 a Victim in window 0 (S-U3): 200 packets through it.
void MakeVictim(Traffic &tr, ll_u64 t = 0)
{
	tr.PassThrough(0, 200, t);
	ASSERT_TRUE(Victim(tr.pool, 0));
}

// ------------------------------------------------------------ the seam

TEST(SpfcScheme, SelectableAndFitsItsUnions)
{
	EXPECT_LT(LL_SCHEME_SPFC, LL_SCHEME_COUNT);
	EXPECT_LT(LL_SCHEME_SPFC, LL_SCHEME_CORE_COUNT);
	EXPECT_EQ(ll_scheme_by_name("spfc"), LL_SCHEME_SPFC);
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_SPFC), "spfc");
	ll_mmu_config c = SpfcConfig();
	c.scheme_params.spfc = ll_spfc_params{};	// zeroed: the defaults
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	// The state fits the unions; a port (with the telemetry, the cached
	// IRC_th, the lossless shared sum and a port mode's state) its budget.
	static_assert(sizeof(ll_spfc_port_state) <= sizeof(ll_scheme_port_state), "");
	static_assert(sizeof(ll_spfc_iq_state) <= sizeof(ll_scheme_iq_state), "");
	static_assert(sizeof(ll_spfc_pool_state) <= sizeof(ll_scheme_pool_state), "");
	static_assert(sizeof(ll_spfc_params) <= sizeof(ll_scheme_params), "");
	EXPECT_LE(sizeof(ll_mmu_port), (size_t)LL_MMU_PORT_MAX_BYTES);
}

// The scheme changes only when idle, and starts from a zeroed state.
TEST(SpfcScheme, ChangeOnlyWhenIdleAndStartsNormal)
{
	ll_mmu_config dt = SpfcConfig();
	dt.scheme = LL_SCHEME_DT;
	dt.scheme_params.spfc = ll_spfc_params{};
	Pool pool(dt, k100G, kHdrm);
	Traffic tr{pool};
	tr.Send(0, 1);
	ll_mmu_config c = SpfcConfig();
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_ERR_BUSY);
	tr.DrainAll(2);
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(St(pool, 0).win_start_ns, 0u);
	EXPECT_EQ(Iq(pool, 0).irc, 0u);
	MakeVictim(tr, 10);
	// Oracle and slow-path calls are refused on another scheme's pool.
	tr.DrainAll(20);
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &dt), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_force(pool.p(), 0, kP, LL_SPFC_FORCE_VICTIM, 30), -1);
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 0xFF, 30, 30), -1);
	const ll_scheme_port_state zero{};
	EXPECT_EQ(std::memcmp(&pool->ports[0].sch, &zero, sizeof(zero)), 0);
}

// --------------------------------------------------- truth table (3.5)

// Victim bits = force_victim | (~force_normal & ~reset & sh), per bit.
TEST(SpfcTruthTable, Section35AndOverrides)
{
	struct Row {
		int reset, sh, force_victim, force_normal, victim;
	};
	const Row rows[] = {
		// spfc.md 3.5: PAUSE-reset active, SH content -> output.
		{1, 0, 0, 0, 0},	// paused: Normal (DT) ...
		{1, 1, 0, 0, 0},	// ... whatever SH holds
		{0, 1, 0, 0, 1},	// rate high, not paused: Victim
		{0, 0, 0, 0, 0},	// rate low: Normal
		// The oracle (Fig. 4): Victim even while paused.
		{1, 0, 1, 0, 1},
		{0, 0, 1, 0, 1},
		// SPFC off on the queue: Normal whatever the detector says.
		{0, 1, 0, 1, 0},
		{1, 1, 0, 1, 0},
	};
	for (const Row &r : rows) {
		SCOPED_TRACE(testing::Message() << r.reset << r.sh << r.force_victim
						<< r.force_normal);
		// Each bit on its own, and the same row on every priority at once.
		for (ll_u32 bit = 0; bit < 8; bit++) {
			ll_u8 m = (ll_u8)(1u << bit);
			ll_u8 out = ll_spfc_state(r.reset ? m : 0, r.sh ? m : 0,
						  r.force_victim ? m : 0,
						  r.force_normal ? m : 0);
			EXPECT_EQ(out, r.victim ? m : 0) << "bit " << bit;
		}
		EXPECT_EQ(ll_spfc_state(r.reset ? 0xFF : 0, r.sh ? 0xFF : 0,
					r.force_victim ? 0xFF : 0, r.force_normal ? 0xFF : 0),
			  r.victim ? 0xFF : 0);
	}
	// Priorities are independent: every combination of two bits.
	for (ll_u32 v = 0; v < 256; v++) {
		ll_u8 reset = (ll_u8)(v & 0x3), sh = (ll_u8)((v >> 2) & 0x3);
		ll_u8 fv = (ll_u8)((v >> 4) & 0x3), fn = (ll_u8)((v >> 6) & 0x3);
		ll_u8 out = ll_spfc_state(reset, sh, fv, fn);
		for (ll_u32 b = 0; b < 2; b++) {
			bool want = ((fv >> b) & 1) ||
				    (!((fn >> b) & 1) && !((reset >> b) & 1) && ((sh >> b) & 1));
			EXPECT_EQ((bool)((out >> b) & 1), want) << v;
		}
	}
}

// The datapath's state is the table's output: the pause wish is the
// reset line, and the threshold follows the output.
TEST(SpfcTruthTable, DatapathFollowsTheTable)
{
	for (int reset = 0; reset < 2; reset++) {
		for (int sh = 0; sh < 2; sh++) {
			Pool pool(SpfcConfig(), k100G, kHdrm);
			pool->ports[0].sch.spfc.sh = sh ? 1u << kP : 0;
			ll_mmu_want(pool.p(), 0, kP, reset);
			bool victim = !reset && sh;
			EXPECT_EQ(Victim(pool, 0), victim) << reset << sh;
			EXPECT_EQ(Threshold(pool, 0), victim ? VictimT(pool) : Dt(pool));
			EXPECT_EQ(ll_spfc_victim_threshold(pool.p()), VictimT(pool));
			ll_mmu_want(pool.p(), 0, kP, 0);
		}
	}
}

// ----------------------------------------------------- 8.1: DT and ST

// With no Victim (no departures) SPFC is DT to the packet: U1, U2, U5,
// the same numbers as mmu_test.cpp's DT cases, under both schemes.
int PausesAfter(ll_u8 scheme, ll_mmu_alpha alpha)
{
	ll_mmu_config c = SpfcConfig(2, alpha);
	c.scheme = scheme;
	if (scheme != LL_SCHEME_SPFC)
		c.scheme_params.spfc = ll_spfc_params{};
	Pool pool(c, k100G, kHdrm);
	Traffic tr{pool};
	for (int k = 1; k <= 2000; k++) {
		tr.Send(0, (ll_u64)k);
		if (Paused(pool.p(), 0))
			return k;
	}
	return -1;
}

TEST(SpfcBaseline, U1NoVictimPausesAtDtShare)
{
	for (ll_u8 scheme : {LL_SCHEME_DT, LL_SCHEME_SPFC}) {
		SCOPED_TRACE(scheme);
		EXPECT_EQ(PausesAfter(scheme, {2, 0}), 667);	// 667,000 >= 666,000
		EXPECT_EQ(PausesAfter(scheme, {1, 0}), 500);
		EXPECT_EQ(PausesAfter(scheme, {4, 0}), 800);
	}
}

TEST(SpfcBaseline, U2TwoNormalPortsAlternating)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Traffic tr{pool};
	int a = 0, b = 0;
	for (int k = 1; k <= 1000 && !(a && b); k++) {
		tr.Send(0, (ll_u64)k, kP, kPkt, 2);
		if (!a && Paused(pool.p(), 0))
			a = k;
		tr.Send(1, (ll_u64)k, kP, kPkt, 2);
		if (!b && Paused(pool.p(), 1))
			b = k;
	}
	EXPECT_EQ(b, 400);
	EXPECT_EQ(a, 401);
	// INV-1: every Normal port has the same threshold.
	EXPECT_EQ(Threshold(pool, 0), Threshold(pool, 1));
	EXPECT_EQ(Threshold(pool, 0), Dt(pool));
}

// U3: 25 ports, 16 MiB: DT's equilibrium is alpha B / (1 + 25 alpha),
// within a few percent of B / 25 whatever alpha ("DT = ST under burst").
TEST(SpfcBaseline, U3DtFallsBackToStUnderIncast)
{
	const ll_u64 b = 16ull << 20;
	const struct {
		ll_mmu_alpha alpha;
		ll_u64 q;
	} cases[] = {{{1, 0}, 645278}, {{2, 0}, 657930}, {{4, 0}, 664444}};
	for (const auto &cs : cases) {
		ll_mmu_config c = PaperConfig(25, cs.alpha, b);
		c.scheme = LL_SCHEME_SPFC;
		Pool pool(c, k100G, kHdrm);
		Traffic tr{pool};
		ll_u32 paused = 0;
		for (int round = 0; round < 2000 && paused != (1u << 25) - 1; round++)
			for (ll_u32 port = 0; port < 25; port++)
				if (!((paused >> port) & 1)) {
					tr.Send(port, 1, kP, kPkt, (port + 1) % 25);
					if (Paused(pool.p(), port))
						paused |= 1u << port;
				}
		for (ll_u32 port = 0; port < 25; port++) {
			ll_u64 q = pool->ports[port].iq[kP].shared_used;
			EXPECT_LE(q > cs.q ? q - cs.q : cs.q - q, kPkt) << "port " << port;
			EXPECT_LE(q > b / 25 ? q - b / 25 : b / 25 - q, b / 25 / 25);	// 4 %
		}
	}
}

// U4: the two views; departures are charged back to the ingress (IRC).
TEST(SpfcBaseline, U4IngressAndEgressViews)
{
	Pool pool(SpfcConfig(6), k100G, kHdrm);
	Traffic tr{pool};
	for (ll_u32 in = 0; in < 5; in++)
		for (int k = 0; k < 2; k++)
			tr.Send(in, 1, kP, kPkt, 5);
	for (ll_u32 in = 0; in < 5; in++)
		EXPECT_EQ(pool->ports[in].iq[kP].shared_used, 2000u);
	EXPECT_EQ(ll_mmu_eq_bytes(pool.p(), 5, kP), 10000u);
	EXPECT_EQ(pool->shared_used, 10000u);
	for (int k = 0; k < 10; k++)
		tr.Depart(k / 2, 2);
	ExpectEmpty(pool.p());
	for (ll_u32 in = 0; in < 5; in++)
		EXPECT_EQ(Iq(pool, in).irc, 2000u);
	EXPECT_EQ(Iq(pool, 5).irc, 0u);		// the egress port counts nothing
}

// U5: the resume rule of a Normal port, with and without an xon offset.
TEST(SpfcBaseline, U5ResumeRule)
{
	for (ll_u32 offset : {0u, 3000u}) {
		ll_mmu_config c = SpfcConfig();
		c.xon_offset_bytes = offset;
		Pool pool(c, k100G, kHdrm);
		Traffic tr{pool};
		for (int k = 1; k <= 667; k++)
			tr.Send(0, 1);
		ASSERT_TRUE(Paused(pool.p(), 0));
		int k = 1;
		for (; k <= 667; k++) {
			tr.Depart(0, 2);
			if (!Paused(pool.p(), 0))
				break;
		}
		EXPECT_EQ(k, offset ? 2 : 1);
		EXPECT_FALSE(Victim(pool, 0));	// 2 departures are far from IRC_th
	}
}

// U6: ST = B/32, SPFC's other baseline: the 32nd packet pauses whatever
// the others hold (the pool-full pause is scheme_test.cpp's).
TEST(SpfcBaseline, U6StaticThreshold)
{
	for (int others = 0; others < 2; others++) {
		ll_mmu_config c = PaperConfig(8, {2, 0});
		c.scheme = LL_SCHEME_ST;
		c.scheme_params.st.threshold_bytes = 31250;
		Pool pool(c, k100G, kHdrm);
		Traffic tr{pool};
		for (ll_u32 port = 1; others && port < 8; port++)
			for (int k = 0; k < 31; k++)
				tr.Send(port, 1, kP, kPkt, 0);	// 217,000 held
		int n = 0;
		while (!Paused(pool.p(), 0) && n < 100) {
			tr.Send(0, 1);
			n++;
		}
		EXPECT_EQ(n, 32);			// 32,000 >= 31,250
	}
}

// U7: alpha 4 with 500 bytes free, and a Victim in the same place: the
// pool guard sends the packet to headroom and it pauses (INV-2).
TEST(SpfcBaseline, U7PoolGuardForNormalAndVictim)
{
	for (bool victim : {false, true}) {
		Pool pool(SpfcConfig(3, {4, 0}), k100G, kHdrm);
		Traffic tr{pool};
		if (victim)
			MakeVictim(tr);
		// The oracle fills the pool to 500 bytes from full (INV-2).
		ll_spfc_force(pool.p(), 2, kP, LL_SPFC_FORCE_VICTIM, 1);
		for (int k = 0; k < 999; k++)
			ASSERT_EQ(tr.Send(2, 1, kP, kPkt, 1), LL_MMU_ADMIT_SHARED);
		tr.Send(2, 1, kP, 500, 1);
		ASSERT_EQ(pool->shared_size - pool->shared_used, 500u);
		EXPECT_EQ(Victim(pool, 0), victim);
		EXPECT_EQ(tr.Send(0, 2), LL_MMU_ADMIT_HEADROOM);
		EXPECT_TRUE(Paused(pool.p(), 0));
		EXPECT_FALSE(Victim(pool, 0));		// INV-3
	}
}

// U8: a reserve-only port while the pool is full: admitted, no pause; the
// packet past the reserve goes to headroom and pauses.
TEST(SpfcBaseline, U8ReserveWhilePoolFull)
{
	ll_mmu_config c = SpfcConfig(3);
	c.reserved_bytes = 4000;
	c.total_bytes += 3 * 8 * 4000;
	Pool pool(c, k100G, kHdrm);
	Traffic tr{pool};
	ll_spfc_force(pool.p(), 1, kP, LL_SPFC_FORCE_VICTIM, 1);
	for (int k = 0; k < 1004; k++)
		tr.Send(1, 1, kP, kPkt, 2);
	ASSERT_EQ(pool->shared_used, pool->shared_size);
	for (int k = 0; k < 4; k++) {
		EXPECT_EQ(tr.Send(0, 2), LL_MMU_ADMIT_RESERVED);
		EXPECT_FALSE(Paused(pool.p(), 0));
	}
	EXPECT_EQ(tr.Send(0, 2), LL_MMU_ADMIT_HEADROOM);
	EXPECT_TRUE(Paused(pool.p(), 0));
}

// -------------------------------------------- 8.2: the state machine

// S-U1: every (port, prio) Normal, thresholds DT's, counters 0, no timer.
TEST(SpfcState, SU1InitialState)
{
	Pool pool(SpfcConfig(4), k100G, kHdrm);
	for (ll_u32 port = 0; port < 4; port++) {
		EXPECT_EQ(ll_spfc_victims(pool.p(), port), 0);
		for (ll_u32 prio = 0; prio < 8; prio++) {
			EXPECT_EQ(Iq(pool, port, prio).irc, 0u);
			EXPECT_EQ(Iq(pool, port, prio).last_win, 0u);
		}
		EXPECT_EQ(Threshold(pool, port), Dt(pool));
		EXPECT_EQ(St(pool, port).sh, 0);
		EXPECT_EQ(St(pool, port).to_victim + St(pool, port).to_normal, 0u);
		EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), port), LL_MMU_NEVER);
		EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), port), kTh);
	}
}

// S-U2: 199 departures in window 0: Normal. No roll can move a state (SH
// clear, the count short of IRC_th), so the port has no timer: the next
// event rolls, recording 199,000 and leaving SH clear; the telemetry reads
// the counts as of its own time meanwhile.
TEST(SpfcState, SU2BelowThresholdStaysNormal)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	ll_scheme_port_stats ss{};

	tr.Send(0, 50);
	tr.Send(0, 50);
	EXPECT_EQ(tr.Depart(0, 60), 0u);
	EXPECT_EQ(tr.Depart(0, 70), 0u);
	tr.PassThrough(0, 197, 100, 100);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(Iq(pool, 0).irc, 199000u);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
	// Telemetry at the window's end: the last window 199,000, none since.
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, kTc, &ss), 1);
	EXPECT_EQ(ss.prio[0][kP], 199000u);
	EXPECT_EQ(ss.prio[1][kP], 0u);
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, kTc - 1, &ss), 1);
	EXPECT_EQ(ss.prio[0][kP], 0u);
	EXPECT_EQ(ss.prio[1][kP], 199000u);
	// The next arrival rolls.
	tr.Send(0, kTc + 10);
	EXPECT_EQ(Iq(pool, 0).last_win, 199000u);
	EXPECT_EQ(Iq(pool, 0).irc, 0u);
	EXPECT_EQ(St(pool, 0).sh, 0);
	EXPECT_EQ(St(pool, 0).win_start_ns, kTc);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
	// More than one window later, the last one counted nothing.
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, 3 * kTc, &ss), 1);
	EXPECT_EQ(ss.prio[0][kP], 0u);
	tr.Depart(0, 3 * kTc);
	EXPECT_EQ(Iq(pool, 0).last_win, 0u);
	EXPECT_EQ(Iq(pool, 0).irc, kPkt);
}

// S-U3: 200 departures: IMMEDIATE Victim at the 200th ("reaches", >=);
// WINDOW_END Victim at the roll at 80 us.
TEST(SpfcState, SU3ReachingIrcThreshold)
{
	for (ll_u64 flags : {0ull, LL_SPFC_F_WINDOW_END}) {
		SCOPED_TRACE(flags);
		Pool pool(SpfcConfig(2, {2, 0}, flags), k100G, kHdrm);
		Traffic tr{pool};
		tr.PassThrough(0, 199, 100, 100);
		EXPECT_FALSE(Victim(pool, 0));
		tr.PassThrough(0, 1, 70000);
		EXPECT_EQ(Iq(pool, 0).irc, kTh);
		EXPECT_EQ(Victim(pool, 0), !flags);
		EXPECT_EQ(Threshold(pool, 0), flags ? Dt(pool) : VictimT(pool));
		ll_mmu_port_timer(pool.p(), 0, kTc);
		EXPECT_TRUE(Victim(pool, 0));
		EXPECT_EQ(Threshold(pool, 0), VictimT(pool));
		EXPECT_EQ(St(pool, 0).to_victim, 1u);
	}
}

// S-U4: a departure at exactly 80,000 ns is the second window's.
TEST(SpfcState, SU4WindowsAreHalfOpen)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	tr.PassThrough(0, 199, 100, 100);
	tr.PassThrough(0, 1, kTc);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(Iq(pool, 0).last_win, 199000u);
	EXPECT_EQ(Iq(pool, 0).irc, 1000u);
	EXPECT_EQ(St(pool, 0).win_start_ns, kTc);
}

// S-U5 to S-U7: a Victim fills the whole shared region without pausing;
// the packet that finds it full takes headroom, pauses, and the port is
// Normal in the same event (the latch, INV-2, INV-3). A Normal port next
// to it pauses on Eq. 4's threshold (S-U6). Drained, it resumes on DT's
// X_on at the 335th departure and (IMMEDIATE) is a Victim again at once
// (S-U7); WINDOW_END waits for the roll.
TEST(SpfcState, SU5VictimPausesOnlyWhenThePoolIsFull)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	for (int k = 1; k <= 1000; k++) {
		ASSERT_EQ(tr.Send(0, 5000 + (ll_u64)k), LL_MMU_ADMIT_SHARED) << k;
		ASSERT_FALSE(Paused(pool.p(), 0)) << k;
		ASSERT_TRUE(Victim(pool, 0)) << k;
	}
	EXPECT_EQ(pool->shared_used, pool->shared_size);	// 1,000,000
	EXPECT_EQ(tr.Send(0, 7000), LL_MMU_ADMIT_HEADROOM);	// the 1001st
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(St(pool, 0).sh, 0);
	EXPECT_EQ(Threshold(pool, 0), 0u);			// alpha x 0
	EXPECT_EQ(St(pool, 0).to_victim, 1u);
	EXPECT_EQ(St(pool, 0).to_normal, 1u);
}

TEST(SpfcState, SU6NormalPortSeesEquationFour)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	for (int k = 0; k < 600; k++)
		tr.Send(0, 5000);
	ASSERT_TRUE(Victim(pool, 0));
	EXPECT_EQ(Threshold(pool, 0), pool->cfg.total_bytes);	// the whole buffer
	EXPECT_EQ(Threshold(pool, 1), 800000u);			// 2 x (1e6 - 600,000)
	int n = 0;
	while (!Paused(pool.p(), 1) && n < 1000) {
		tr.Send(1, 6000, kP, kPkt, 2);
		n++;
	}
	// 267,000 >= 2 x (1e6 - 600,000 - 267,000) = 266,000
	EXPECT_EQ(n, 267);
	EXPECT_TRUE(Victim(pool, 0));
	EXPECT_FALSE(Paused(pool.p(), 0));
}

TEST(SpfcState, SU7ResumeOnDtThenVictimAgain)
{
	for (ll_u64 flags : {0ull, LL_SPFC_F_WINDOW_END}) {
		SCOPED_TRACE(flags);
		Pool pool(SpfcConfig(2, {2, 0}, flags), k100G, kHdrm);
		Traffic tr{pool};
		ll_u64 t0 = 0;
		tr.PassThrough(0, 200, 100, 100);
		if (flags) {		// WINDOW_END: Victim from the roll on
			t0 = kTc;
			ll_mmu_port_timer(pool.p(), 0, t0);
		}
		ASSERT_TRUE(Victim(pool, 0));
		for (int k = 0; k < 1001; k++)
			tr.Send(0, t0 + 30000);
		ASSERT_TRUE(Paused(pool.p(), 0));
		int k = 1;
		for (; k <= 1001; k++) {
			tr.Depart(0, t0 + 40000);
			if (!Paused(pool.p(), 0))
				break;
		}
		// The 1st empties headroom; 2..335 bring shared to 666,000 < 668,000.
		EXPECT_EQ(k, 335);
		EXPECT_EQ(pool->ports[0].iq[kP].shared_used, 666000u);
		EXPECT_EQ(Iq(pool, 0).irc, (flags ? 0 : kTh) + 335000u);
		EXPECT_EQ(Victim(pool, 0), !flags);
		if (flags) {
			ll_mmu_port_timer(pool.p(), 0, t0 + kTc);
			EXPECT_EQ(Iq(pool, 0).last_win, 335000u);
			EXPECT_TRUE(Victim(pool, 0));
		}
	}
}

// S-U8: a paused port with a high departure rate: Normal in every window,
// the rolls keep SH at 0 (the reset held).
TEST(SpfcState, SU8PausedPortStaysNormal)
{
	ll_mmu_config c = SpfcConfig();
	c.xon_offset_bytes = 20000;	// resume only below 660,000
	Pool pool(c, k100G, kHdrm);
	Traffic tr{pool};
	for (int k = 0; k < 667; k++)
		tr.Send(0, 1);
	ASSERT_TRUE(Paused(pool.p(), 0));
	for (ll_u64 w = 0; w < 5; w++) {
		for (int k = 0; k < 300; k++) {
			ll_u64 t = w * kTc + 100 + (ll_u64)k * 200;
			tr.Depart(0, t);
			tr.Send(0, t + 100);
			ASSERT_TRUE(Paused(pool.p(), 0)) << w << " " << k;
			ASSERT_FALSE(Victim(pool, 0));
		}
		EXPECT_EQ(Iq(pool, 0).irc, 300000u);
		// No timer while paused (no roll can move its state): the next
		// window's first departure rolls this one.
		EXPECT_EQ(ll_spfc_port_deadline(pool.p(), 0), LL_MMU_NEVER);
		EXPECT_EQ(Iq(pool, 0).last_win, w ? 300000u : 0u);
		EXPECT_EQ(St(pool, 0).sh, 0);
	}
	EXPECT_EQ(St(pool, 0).to_victim, 0u);
}

// S-U9: a Victim whose next window has 100 departures stays Victim until
// that window ends (lag TC to 2 TC).
TEST(SpfcState, SU9SlowWindowDemotesAtItsEnd)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	for (int k = 0; k < 300; k++)
		tr.Send(0, 10);
	for (int k = 0; k < 200; k++)
		tr.Depart(0, 100 + (ll_u64)k * 100);
	ASSERT_TRUE(Victim(pool, 0));
	for (int k = 0; k < 100; k++) {
		tr.Depart(0, kTc + 100 + (ll_u64)k * 100);
		ASSERT_TRUE(Victim(pool, 0));
	}
	EXPECT_EQ(Iq(pool, 0).last_win, kTh);
	ll_mmu_port_timer(pool.p(), 0, 2 * kTc);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(Iq(pool, 0).last_win, 100000u);
	EXPECT_EQ(St(pool, 0).to_normal, 1u);
}

// S-U10: a Victim, then 10 windows without an event: the roll at the next
// arrival finds n = 10, so last = 0, and the arrival sees DT's threshold.
// With the port's timer the demotion comes at the end of the window after
// the last busy one, and re-evaluates the queue: it pauses then.
TEST(SpfcState, SU10LazyRollBeforeTheThreshold)
{
	for (bool timer : {false, true}) {
		SCOPED_TRACE(timer);
		Pool pool(SpfcConfig(), k100G, kHdrm);
		Traffic tr{pool};
		MakeVictim(tr);
		for (int k = 0; k < 700; k++)
			ASSERT_EQ(tr.Send(0, 40000), LL_MMU_ADMIT_SHARED);
		ASSERT_TRUE(Victim(pool, 0));			// 700,000 > DT's 600,000
		if (timer) {
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), kTc);
			EXPECT_EQ(ll_mmu_port_timer(pool.p(), 0, kTc), 0);
			EXPECT_TRUE(Victim(pool, 0));		// last = 200,000
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), 2 * kTc);
			EXPECT_EQ(ll_mmu_port_timer(pool.p(), 0, 2 * kTc), 1);
			EXPECT_FALSE(Victim(pool, 0));
			EXPECT_TRUE(Paused(pool.p(), 0));	// 700,000 >= 600,000
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), 0u);	// the frame
			continue;
		}
		EXPECT_EQ(tr.Send(0, 11 * kTc + 5), LL_MMU_ADMIT_HEADROOM);
		EXPECT_EQ(St(pool, 0).win_start_ns, 11 * kTc);
		EXPECT_EQ(Iq(pool, 0).last_win, 0u);
		EXPECT_FALSE(Victim(pool, 0));
		EXPECT_TRUE(Paused(pool.p(), 0));
	}
}

// S-U11: K = 1 (IRC_th = C x TC / 8): Victim only after a full line-rate
// window; K = 0.5: never (INV-5's differential run is in the property
// test).
TEST(SpfcState, SU11KOneAndKHalf)
{
	ll_mmu_config c = SpfcConfig();
	c.scheme_params.spfc.irc_th_bytes = 1000000;
	Pool one(c, k100G, kHdrm);
	Traffic tr1{one};
	tr1.PassThrough(0, 999, 0, 80);
	EXPECT_FALSE(Victim(one, 0));
	tr1.PassThrough(0, 1, 79990);
	EXPECT_TRUE(Victim(one, 0));

	c.scheme_params.spfc.irc_th_bytes = 2000000;
	Pool half(c, k100G, kHdrm);
	Traffic tr2{half};
	for (ll_u64 w = 0; w < 3; w++)
		tr2.PassThrough(0, 1000, w * kTc, 80);
	EXPECT_FALSE(Victim(half, 0));
	EXPECT_EQ(St(half, 0).to_victim, 0u);
}

// S-U12: 64-byte frames at 15 Gbit/s (2343 per window): Normal counting
// bytes (149,952 < 200,000), Victim counting packets (IRC_th 200).
TEST(SpfcState, SU12PacketsVersusBytes)
{
	for (bool packets : {false, true}) {
		ll_mmu_config c = SpfcConfig();
		if (packets)
			c.scheme_params.spfc.irc_th_packets = 200;
		Pool pool(c, k100G, kHdrm);
		Traffic tr{pool};
		int victim_at = 0;
		for (int k = 1; k <= 2343; k++) {
			tr.PassThrough(0, 1, (ll_u64)k * 34, 1, kP, 64);	// 15 Gbit/s
			if (!victim_at && Victim(pool, 0))
				victim_at = k;
		}
		EXPECT_EQ(Iq(pool, 0).irc, packets ? 2343u : 149952u);
		EXPECT_EQ(victim_at, packets ? 200 : 0);
	}
}

// S-U13: two priorities of one port are independent: a prio-4 PAUSE does
// not demote prio 3.
TEST(SpfcState, SU13PrioritiesAreIndependent)
{
	ll_mmu_config c = SpfcConfig();
	c.lossless_mask = 0x18;
	c.total_bytes += 2 * kHdrm;
	Pool pool(c, k100G, kHdrm);
	Traffic tr{pool};
	tr.PassThrough(0, 200, 0, 10, 3);
	ASSERT_TRUE(Victim(pool, 0, 3));
	int n = 0;
	while (!Paused(pool.p(), 0, 4) && n < 2000) {
		tr.Send(0, 3000, 4);
		n++;
	}
	ASSERT_TRUE(Paused(pool.p(), 0, 4));
	EXPECT_TRUE(Victim(pool, 0, 3));
	EXPECT_FALSE(Victim(pool, 0, 4));
	EXPECT_FALSE(Paused(pool.p(), 0, 3));
	EXPECT_EQ(Iq(pool, 0, 4).irc, 0u);
	EXPECT_EQ(Iq(pool, 0, 3).irc, kTh);
	// Prio 4's departures count for prio 4 only.
	tr.Depart(0, 4000, 4);
	EXPECT_EQ(Iq(pool, 0, 4).irc, 1000u);
	EXPECT_EQ(Iq(pool, 0, 3).irc, kTh);
	EXPECT_EQ(Threshold(pool, 0, 3), VictimT(pool));
	EXPECT_EQ(Threshold(pool, 0, 4), Dt(pool));
}

// S-U14: the oracle (Fig. 4): a permanent Victim, which still pauses when
// the pool is exhausted and stays Victim; SPFC off keeps a fast port DT.
TEST(SpfcState, SU14OracleAndOff)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Traffic tr{pool};
	EXPECT_EQ(ll_spfc_force(pool.p(), 0, kP, LL_SPFC_FORCE_VICTIM, 10), 0);
	EXPECT_TRUE(Victim(pool, 0));
	for (int k = 0; k < 1000; k++)
		ASSERT_EQ(tr.Send(0, 20), LL_MMU_ADMIT_SHARED);
	EXPECT_FALSE(Paused(pool.p(), 0));
	EXPECT_EQ(tr.Send(0, 30), LL_MMU_ADMIT_HEADROOM);
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_TRUE(Victim(pool, 0));			// still: no penalty
	EXPECT_EQ(Threshold(pool, 0), VictimT(pool));
	tr.Depart(0, 40);				// headroom empty: RESUME
	EXPECT_FALSE(Paused(pool.p(), 0));
	EXPECT_EQ(tr.Send(0, 50), LL_MMU_ADMIT_HEADROOM);	// pool still full
	EXPECT_TRUE(Paused(pool.p(), 0));
	tr.Depart(0, 60);
	// Back to the detector: 2 departures, Normal, DT's T = 0: it pauses.
	EXPECT_EQ(ll_spfc_force(pool.p(), 0, kP, LL_SPFC_FORCE_AUTO, 70), 1);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_EQ(St(pool, 0).to_victim, 1u);
	EXPECT_EQ(St(pool, 0).to_normal, 1u);
	tr.DrainAll(80);
	// SPFC off: a fast port stays DT.
	EXPECT_EQ(ll_spfc_force(pool.p(), 1, kP, LL_SPFC_FORCE_NORMAL, 100), 0);
	tr.PassThrough(1, 300, 200);
	EXPECT_FALSE(Victim(pool, 1));
	EXPECT_EQ(Threshold(pool, 1), Dt(pool));
	EXPECT_EQ(ll_spfc_force(pool.p(), 1, kP, LL_SPFC_FORCE_AUTO, 10000), 0);
	EXPECT_TRUE(Victim(pool, 1));			// the detector had it all along
	// Bad arguments.
	EXPECT_EQ(ll_spfc_force(pool.p(), 3, kP, LL_SPFC_FORCE_VICTIM, 1), -1);
	EXPECT_EQ(ll_spfc_force(pool.p(), 0, 8, LL_SPFC_FORCE_VICTIM, 1), -1);
	EXPECT_EQ(ll_spfc_force(pool.p(), 0, kP, (ll_spfc_forced)3, 1), -1);
}

// S-U16: refresh frames while paused change nothing in SPFC's state.
TEST(SpfcState, SU16RefreshDoesNotTouchTheLatch)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	for (int k = 0; k < 1001; k++)
		tr.Send(0, 30000);
	ASSERT_TRUE(Paused(pool.p(), 0));
	ll_ctrl_msg f;
	ASSERT_EQ(ll_mmu_ctrl_take(pool.p(), 0, 30000, &f), 1);
	ll_mmu_ctrl_complete(pool.p(), 0, 1, 30000);
	ll_spfc_port_state before = St(pool, 0);
	ll_u64 at = pool->ports[0].xoff.refresh_at_ns;
	for (int r = 0; r < 3; r++) {
		ASSERT_EQ(ll_mmu_ctrl_take(pool.p(), 0, at, &f), 1);
		ll_mmu_ctrl_complete(pool.p(), 0, 1, at);
		at = pool->ports[0].xoff.refresh_at_ns;
	}
	EXPECT_EQ(pool->ports[0].iq[kP].xoff_refreshes, 3u);
	EXPECT_EQ(pool->ports[0].iq[kP].xoff_frames, 1u);
	EXPECT_EQ(St(pool, 0).sh, before.sh);
	EXPECT_EQ(St(pool, 0).hold, before.hold);
	EXPECT_EQ(St(pool, 0).to_normal, before.to_normal);
	EXPECT_EQ(St(pool, 0).to_victim, before.to_victim);
}

// S-U17: a Victim whose departures stop stays Victim to the end of the
// window after its last busy one, then turns Normal (last = 0).
TEST(SpfcState, SU17DeparturesStop)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	for (int k = 0; k < 50; k++)
		tr.Send(0, 1000);		// egress blocked from now on
	ll_mmu_port_timer(pool.p(), 0, kTc);
	EXPECT_TRUE(Victim(pool, 0));
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), 2 * kTc);
	ll_mmu_port_timer(pool.p(), 0, 2 * kTc - 1);	// early: nothing
	EXPECT_TRUE(Victim(pool, 0));
	ll_mmu_port_timer(pool.p(), 0, 2 * kTc);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
}

// ------------------------------------------------- a time-slotted switch

// Every port's upstream sends one 1000-byte frame per slot (80 ns: line
// rate at 100G) unless the pause it was told `react` slots ago holds it,
// to the egress dest() picks (-1: nothing); egress o sends one frame
// every period[o] slots (0: never), oldest first. The port timers and
// sweeps run as the kernel runs them. Checked on every admission: INV-2
// (a Victim pauses only when its frame found the shared region full) and
// INV-3 (paused means Normal, unless forced); no lossless drop.
class Slots {
public:
	Slots(Pool &pool, ll_u32 react) : pool_(pool), react_(react)
	{
		ll_u32 n = pool->cfg.max_ports;
		period.assign(n, 1);
		fifo_.resize(n);
		seen_.assign(n, std::deque<bool>(react + 1, false));
		pauses.assign(n, 0);
		latches.assign(n, 0);
		victim_slots.assign(n, 0);
	}

	std::function<int(ll_u32 port, ll_u64 slot)> dest;
	std::vector<ll_u32> period;
	std::vector<ll_u64> pauses, latches, victim_slots;
	ll_u64 max_queue = 0;

	void Run(ll_u64 slots, ll_u64 from = 0)
	{
		ll_mmu_pool *p = pool_.p();
		ll_u32 n = p->cfg.max_ports;
		for (ll_u64 s = from; s < from + slots && !testing::Test::HasFatalFailure(); s++) {
			ll_u64 now = s * 80 + 1;
			for (ll_u32 port = 0; port < n; port++) {
				int d = dest(port, s);
				if (d < 0 || seen_[port].front())
					continue;
				Admit(port, (ll_u32)d, now);
			}
			for (ll_u32 o = 0; o < n; o++) {
				if (!period[o] || s % period[o] || fifo_[o].empty())
					continue;
				ll_mmu_charge c = fifo_[o].front();
				fifo_[o].pop_front();
				if (ll_mmu_release(p, &c, now) & LL_MMU_EV_SWEEP)
					ll_mmu_sweep(p, now);
			}
			for (ll_u32 port = 0; port < n; port++) {
				ll_mmu_port_timer(p, port, now);
				seen_[port].pop_front();
				seen_[port].push_back(Paused(p, port));
				if (Victim(pool_, port))
					victim_slots[port]++;
				max_queue = std::max(max_queue, p->ports[port].iq[kP].shared_used +
									p->ports[port].iq[kP].headroom_used);
			}
			ExpectInvariants(p);
		}
	}

	void Drain(ll_u64 from)
	{
		dest = [](ll_u32, ll_u64) { return -1; };
		for (auto &x : period)
			x = x ? x : 1;
		Run(20000, from);
		ExpectEmpty(pool_.p());
	}

private:
	void Admit(ll_u32 in, ll_u32 eg, ll_u64 now)
	{
		ll_mmu_pool *p = pool_.p();
		bool victim = Victim(pool_, in), paused = Paused(p, in);
		ll_u64 s_before = p->shared_used;
		ll_mmu_charge c;
		ll_mmu_verdict v = ll_mmu_admit(p, in, kP, eg, kP, kPkt, now, &c);
		ASSERT_NE(v, LL_MMU_DROP_LOSSLESS) << "port " << in << " at " << now;
		ASSERT_TRUE(ll_mmu_admitted(v));
		fifo_[eg].push_back(c);
		if (!paused && Paused(p, in)) {
			pauses[in]++;
			if (victim) {	// INV-2: only a full pool pauses a Victim
				ASSERT_EQ(v, LL_MMU_ADMIT_HEADROOM);
				ASSERT_GT(s_before + kPkt, p->shared_size);
				latches[in]++;
			}
		}
		if (Paused(p, in) && !pool_->ports[in].sch.spfc.force_victim) {
			ASSERT_FALSE(Victim(pool_, in));	// INV-3
		}
	}

	Pool &pool_;
	ll_u32 react_;
	std::vector<std::deque<ll_mmu_charge>> fifo_;
	std::vector<std::deque<bool>> seen_;
};

// S-U18: a fast port repeatedly filling the pool (half its traffic to an
// idle output, half to one draining at a quarter of the rate): each cycle
// it is a Victim, fills the pool, pauses (the latch: Normal), drains to
// DT's X_on, resumes and turns Victim again. No loss, no deadlock.
TEST(SpfcState, SU18VictimNormalCycles)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Slots sim(pool, 3);
	sim.dest = [](ll_u32 port, ll_u64 s) { return port == 0 ? (int)(1 + s % 2) : -1; };
	sim.period = {1, 1, 4};
	sim.Run(30000);
	ASSERT_FALSE(HasFatalFailure());
	std::printf("fast port filling the pool: %llu pauses, %llu by the latch, to victim "
		    "%u, to normal %u\n",
		    (unsigned long long)sim.pauses[0], (unsigned long long)sim.latches[0],
		    St(pool, 0).to_victim, St(pool, 0).to_normal);
	EXPECT_GE(sim.latches[0], 3u);
	EXPECT_GE(St(pool, 0).to_victim, sim.latches[0]);
	EXPECT_GE(St(pool, 0).to_normal, sim.latches[0]);
	EXPECT_EQ(pool->ctr.drops_lossless, 0u);
	sim.Drain(30000);
}

// ------------------------------------------ 8.3: bad input, robustness

// B1, B2, B5, and thresholds beyond the buffer: refused by the check hook.
TEST(SpfcConfig, BadParametersRefused)
{
	ll_mmu_config c = SpfcConfig();
	auto check = [&](void (*set)(ll_spfc_params &), ll_mmu_err want,
			 const char *msg = nullptr) {
		ll_mmu_config x = c;
		set(x.scheme_params.spfc);
		EXPECT_EQ(ll_mmu_config_check(&x), want);
		// The reason the kernel gives, naming tc's keyword.
		const char *got = ll_scheme_check_msg(&x);
		if (want == LL_MMU_OK)
			EXPECT_EQ(got, nullptr) << got;
		else if (msg)
			EXPECT_STREQ(got, msg);
		else
			EXPECT_NE(got, nullptr);
		Pool pool(SpfcConfig(), k100G, kHdrm);
		if (want != LL_MMU_OK) {	// a live pool keeps its configuration
			EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &x), want);
			EXPECT_EQ(pool->cfg.scheme_params.spfc.tc_ns, kTc);
		}
	};
	check([](ll_spfc_params &s) { s.tc_ns = 0; }, LL_MMU_OK);	// 1 ms
	check([](ll_spfc_params &s) { s.tc_ns = LL_SPFC_TC_NS_MIN; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.tc_ns = LL_SPFC_TC_NS_MIN - 1; },
	      LL_MMU_ERR_SCHEME_PARAMS, "spfc: spfc-window outside 10 us .. 1 s");
	check([](ll_spfc_params &s) { s.tc_ns = LL_NSEC_PER_SEC; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.tc_ns = LL_NSEC_PER_SEC + 1; },
	      LL_MMU_ERR_SCHEME_PARAMS);
	check([](ll_spfc_params &s) { s.irc_th_bytes = 1500; }, LL_MMU_OK);	// 1 MTU
	check([](ll_spfc_params &s) { s.irc_th_bytes = 1499; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "spfc: spfc-irc-th below one frame (the pool's MTU)");
	check([](ll_spfc_params &s) { s.irc_th_bytes = 1; }, LL_MMU_ERR_SCHEME_PARAMS);
	check([](ll_spfc_params &s) { s.irc_th_bytes = 0xFFFFFFFFull; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.irc_th_bytes = 1ull << 32; },
	      LL_MMU_ERR_SCHEME_PARAMS);
	check([](ll_spfc_params &s) { s.irc_th_packets = 1; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.irc_th_packets = 1ull << 32; },
	      LL_MMU_ERR_SCHEME_PARAMS);
	check([](ll_spfc_params &s) {
		s.irc_th_packets = 200;
		s.irc_th_bytes = 200000;
	}, LL_MMU_ERR_SCHEME_PARAMS,
	      "spfc: spfc-irc-th and spfc-irc-th-packets together (give one)");
	check([](ll_spfc_params &s) { s.victim_threshold_bytes = 1020000; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.victim_threshold_bytes = 1020001; },
	      LL_MMU_ERR_SCHEME_PARAMS, "spfc: spfc-victim-threshold above the buffer");
	check([](ll_spfc_params &s) { s.flags = LL_SPFC_F_ALL; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.flags = 0x4; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "spfc: unknown spfc-mode flags");
	// K (B1): an integer 1 .. 1000, 0 the default 5; the user's K <= 0,
	// NaN and Inf are the parameter table's to refuse where it is typed.
	check([](ll_spfc_params &s) { s.k = 1; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.k = LL_SPFC_K_MAX; }, LL_MMU_OK);
	check([](ll_spfc_params &s) { s.k = LL_SPFC_K_MAX + 1; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "spfc: spfc-k above 1000");
	check([](ll_spfc_params &s) { s.k = ~0ull; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "spfc: spfc-k above 1000");
	// With a given IRC_th K does nothing, and is not refused.
	check([](ll_spfc_params &s) {
		s.k = 7;
		s.irc_th_bytes = 200000;
	}, LL_MMU_OK);
	c.scheme_params.raw[6] = 1;	// past SPFC's six words
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
	EXPECT_NE(ll_scheme_check_msg(&c), nullptr);
	// ST's threshold beyond the buffer (the baseline's check).
	c = PaperConfig(2, {2, 0});
	c.scheme = LL_SCHEME_ST;
	c.scheme_params.st.threshold_bytes = c.total_bytes + 1;
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
}

// B1, B5: IRC_th 0 is the default, never 0: C_p x TC / 8 / K per port
// (mixed speeds get their own; K 0 is 5), at least one frame, at most
// 2^32 - 1. TC 0 is 1 ms.
TEST(SpfcConfig, ZeroIsTheDerivedDefaultNeverZero)
{
	ll_mmu_config c = SpfcConfig(4);
	c.scheme_params.spfc = ll_spfc_params{};
	c.total_bytes = 1ull << 40;
	Pool pool(c);
	const ll_u64 rates[] = {100 * kGbit, 10 * kGbit, 1000000, 1600000000000ull};
	for (ll_u32 i = 0; i < 4; i++) {
		ll_mmu_port_config pc = PortCfg(rates[i], kHdrm);
		ASSERT_EQ(ll_mmu_port_attach(pool.p(), i, &pc, 0), LL_MMU_OK);
	}
	EXPECT_EQ(ll_spfc_tc_ns(pool.p()), 1000000u);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 2500000u);	// 12.5 MB / 5
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 1), 250000u);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 2), 1500u);		// 25 B: 1 MTU
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 3), 40000000u);
	// K: C_p x TC / 8 / K per port, integers only (K = 1: a full window
	// at line rate; K = 1000: 1/1000 of it, at least one frame).
	c.scheme_params.spfc.k = 1;
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 12500000u);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 1), 1250000u);
	c.scheme_params.spfc.k = 3;	// 12.5 MB / 3, rounded down
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 4166666u);
	c.scheme_params.spfc.k = LL_SPFC_K_MAX;
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 12500u);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 1), 1500u);		// 1250 B: 1 MTU
	c.scheme_params.spfc.k = LL_SPFC_K_DEFAULT;	// the same as 0
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 2500000u);
	// A given IRC_th applies whatever K is.
	c.scheme_params.spfc.irc_th_bytes = 100000;
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 0), 100000u);
	c.scheme_params.spfc.irc_th_bytes = 0;
	c.scheme_params.spfc.k = 0;
	c.scheme_params.spfc.tc_ns = LL_SPFC_TC_NS_MAX;	// 1.6T x 1 s / 5: 40 GB
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_irc_threshold(pool.p(), 3), LL_SPFC_IRC_TH_MAX);
	// One departure makes nobody a Victim.
	Traffic tr{pool};
	for (ll_u32 i = 0; i < 4; i++)
		tr.PassThrough(i, 1, 10);
	for (ll_u32 i = 0; i < 4; i++)
		EXPECT_FALSE(Victim(pool, i));
}

// B3, B4, B13: alpha and the partition are the MMU's checks, unchanged.
TEST(SpfcConfig, AlphaAndPartition)
{
	ll_mmu_config c = SpfcConfig();
	c.alpha = {0, 0};
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_ALPHA);
	c.alpha = {64, 0};
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	c.alpha = {1, 3};
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	// No overflow: free <= 2^40, num < 2^16.
	EXPECT_EQ(ll_mmu_dt_threshold(1ull << 40, 0, {65535, 0}), 65535ull << 40);
	// Headroom and reserve leaving no shared region.
	c = SpfcConfig(2);
	Pool pool(c);
	ll_mmu_port_config pc = PortCfg(k100G, (ll_u32)c.total_bytes / 2);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_OK);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 1, &pc, 0), LL_MMU_ERR_NO_SPACE);
	// Jumbo frames with headroom below 2 MTU.
	c.mtu_bytes = 9000;
	Pool jumbo(c);
	pc = PortCfg(k100G, 17999);
	EXPECT_EQ(ll_mmu_port_attach(jumbo.p(), 0, &pc, 0), LL_MMU_ERR_HEADROOM);
}

// B9: link down (detach) on a Victim, paused port: its state is gone, S
// drops by exactly its shared bytes; attached again it starts Normal.
TEST(SpfcRobust, B9DetachResets)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	for (int k = 0; k < 300; k++)
		tr.Send(1, 10, kP, kPkt, 2);
	for (int k = 0; k < 701; k++)
		tr.Send(0, 20);
	ASSERT_TRUE(Paused(pool.p(), 0));
	ll_u64 s = pool->shared_used, mine = pool->ports[0].iq[kP].shared_used;
	ll_mmu_port_detach(pool.p(), 0, 30);
	EXPECT_EQ(pool->shared_used, s - mine);
	ll_mmu_port_config pc = PortCfg(k100G, kHdrm);
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 40), LL_MMU_OK);
	EXPECT_EQ(ll_spfc_victims(pool.p(), 0), 0);
	EXPECT_EQ(St(pool, 0).sh, 0);
	EXPECT_EQ(Iq(pool, 0).irc, 0u);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
	tr.DrainAll(50);	// the stale charges of port 0 too
	ExpectEmpty(pool.p());
}

// B8: a purge (qdisc reset, device down) un-charges through the same path
// as a departure but counts no departure: IRC stays, every counter ends 0.
TEST(SpfcRobust, B8PurgeIsNoDeparture)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	for (int k = 0; k < 50; k++)
		tr.Send(0, 10 + k);
	tr.Depart(0, 100);
	ASSERT_EQ(Iq(pool, 0).irc, kPkt);
	while (!tr.held.empty()) {
		ll_mmu_charge c = tr.held.front();
		tr.held.pop_front();
		ll_mmu_purge(pool.p(), &c, 200);
		ExpectInvariants(pool.p());
		EXPECT_EQ(c.region, LL_MMU_REGION_NONE);
	}
	EXPECT_EQ(Iq(pool, 0).irc, kPkt);	// one departure, 49 purges
	ExpectEmpty(pool.p());
	// A purged record is spent, as a released one.
	ll_mmu_charge c{};
	ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 300)));
	c = tr.held.front();
	tr.held.clear();
	ll_mmu_purge(pool.p(), &c, 310);
	ll_mmu_release(pool.p(), &c, 320);
	EXPECT_EQ(Iq(pool, 0).irc, kPkt);
	EXPECT_EQ(pool->ctr.release_anomalies, 0u);
	ExpectEmpty(pool.p());
}

// B10: a huge time jump rolls without overflow; a time before the window
// (another CPU's clock) counts in the current window.
TEST(SpfcRobust, B10TimeJumpsAndOldTimestamps)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	MakeVictim(tr);
	const ll_u64 far = (1ull << 62) + 12345;
	tr.PassThrough(0, 1, far);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_EQ(St(pool, 0).win_start_ns % kTc, 0u);
	EXPECT_LE(St(pool, 0).win_start_ns, far);
	EXPECT_GT(St(pool, 0).win_start_ns + kTc, far);
	EXPECT_EQ(Iq(pool, 0).last_win, 0u);
	EXPECT_EQ(Iq(pool, 0).irc, 1000u);
	tr.PassThrough(0, 1, 5);			// in the past
	EXPECT_EQ(Iq(pool, 0).irc, 2000u);
	EXPECT_GT(ll_mmu_ctrl_next_deadline(pool.p(), 0), far);
}

// B12: IRC_th changed live: used from the next event; no loss.
TEST(SpfcRobust, B12LiveIrcThresholdChange)
{
	Pool pool(SpfcConfig(3), k100G, kHdrm);
	Slots sim(pool, 3);
	sim.dest = [](ll_u32 port, ll_u64) { return port == 0 ? 1 : -1; };
	sim.Run(2000);				// 1000 departures a window
	EXPECT_TRUE(Victim(pool, 0));
	ll_mmu_config c = pool->cfg;
	c.scheme_params.spfc.irc_th_bytes = 2000000;	// unreachable
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	EXPECT_TRUE(Victim(pool, 0));		// the latch holds to the next roll
	sim.Run(1, 2000);			// 160 us: 1,000,000 < 2,000,000
	EXPECT_FALSE(Victim(pool, 0));
	sim.Run(999, 2001);
	EXPECT_FALSE(Victim(pool, 0));
	c.scheme_params.spfc.irc_th_bytes = 100000;
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	sim.Run(1, 3000);			// 240 us: 1,000,000 >= 100,000
	EXPECT_TRUE(Victim(pool, 0));
	EXPECT_EQ(pool->ctr.drops_lossless, 0u);
	sim.Drain(3001);
}

// B14: every port fast, no congestion (a permutation): all Victims, no
// PAUSE, queues far below DT's threshold (INV-6).
TEST(SpfcRobust, B14AllFastNoCongestion)
{
	Pool pool(SpfcConfig(4), k100G, kHdrm);
	Slots sim(pool, 3);
	sim.dest = [](ll_u32 port, ll_u64) { return (int)((port + 1) % 4); };
	sim.Run(5000);
	for (ll_u32 port = 0; port < 4; port++) {
		EXPECT_TRUE(Victim(pool, port));
		EXPECT_EQ(sim.pauses[port], 0u);
	}
	EXPECT_LE(sim.max_queue, 2u * kPkt);
	EXPECT_LT(sim.max_queue, Dt(pool));
	sim.Drain(5000);
}

// B15: a small incast (4 ports at line rate into one output): the burst
// ports depart at C/4 >= C/5 and are taken for Victims (the miss region
// of 3.8); they take buffer until the pool is full, pause, turn Normal,
// and recover under DT. No loss; more pauses than DT may occur.
TEST(SpfcRobust, B15SmallIncastMislabelled)
{
	ll_u64 pauses[2] = {};
	for (ll_u8 scheme : {LL_SCHEME_DT, LL_SCHEME_SPFC}) {
		ll_mmu_config c = SpfcConfig(5);
		c.scheme = scheme;
		if (scheme != LL_SCHEME_SPFC)
			c.scheme_params.spfc = ll_spfc_params{};
		Pool pool(c, k100G, kHdrm);
		Slots sim(pool, 3);
		sim.dest = [](ll_u32 port, ll_u64) { return port < 4 ? 4 : -1; };
		sim.Run(20000);
		ASSERT_FALSE(HasFatalFailure());
		ll_u64 latches = 0, victim = 0;
		for (ll_u32 port = 0; port < 4; port++) {
			pauses[scheme == LL_SCHEME_SPFC] += sim.pauses[port];
			latches += sim.latches[port];
			victim += sim.victim_slots[port];
		}
		EXPECT_EQ(pool->ctr.drops_lossless, 0u);
		if (scheme == LL_SCHEME_SPFC) {
			EXPECT_GT(victim, 0u);
			EXPECT_GT(latches, 0u);
		}
		sim.Drain(20000);
	}
	std::printf("4-port incast at line rate: %llu pauses under DT, %llu under SPFC\n",
		    (unsigned long long)pauses[0], (unsigned long long)pauses[1]);
	EXPECT_GT(pauses[0], 0u);
}

// ------------------------------------------------ slow path (6.3)

// The daemon's Victim bit replaces IRC's; the datapath keeps the exact
// reset: after a PAUSE the bit is ignored until a window that ended after
// the RESUME is published.
TEST(SpfcSlowPath, DaemonBitWithExactReset)
{
	Pool pool(SpfcConfig(3, {2, 0}, LL_SPFC_F_DAEMON), k100G, kHdrm);
	Traffic tr{pool};
	tr.PassThrough(0, 300, 10);
	EXPECT_FALSE(Victim(pool, 0));		// IRC's opinion is not used
	EXPECT_EQ(St(pool, 0).sh, 1u << kP);	// but still kept
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 1u << kP, 0, 5000), 0);
	EXPECT_TRUE(Victim(pool, 0));
	EXPECT_EQ(Threshold(pool, 0), VictimT(pool));
	for (int k = 0; k < 1001; k++)
		tr.Send(0, 6000);
	ASSERT_TRUE(Paused(pool.p(), 0));	// the full pool
	EXPECT_FALSE(Victim(pool, 0));
	ll_u64 t = 7000;
	while (Paused(pool.p(), 0))
		tr.Depart(0, t += 10);
	ll_u64 resumed = t;
	EXPECT_FALSE(Victim(pool, 0));		// held after the RESUME
	EXPECT_EQ(St(pool, 0).resume_ns, resumed);
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 1u << kP, resumed - 1, t + 10), 0);
	EXPECT_FALSE(Victim(pool, 0));		// that window ended before it
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 1u << kP, resumed, t + 15), 0);
	EXPECT_FALSE(Victim(pool, 0));		// ... or with it: not after
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 1u << kP, resumed + 1, t + 20), 0);
	EXPECT_TRUE(Victim(pool, 0));
	for (int k = 0; k < 100; k++)
		ASSERT_EQ(tr.Send(0, t + 25), LL_MMU_ADMIT_SHARED);	// 766,000
	// The daemon demotes it: the queue above DT's X_off pauses at once.
	EXPECT_EQ(ll_spfc_publish(pool.p(), 0, 0, resumed + 2, t + 30), 1);
	EXPECT_FALSE(Victim(pool, 0));
	EXPECT_TRUE(Paused(pool.p(), 0));
	EXPECT_EQ(ll_spfc_publish(pool.p(), 9, 0, 0, 0), -1);
	tr.DrainAll(t + 40);
}

// The control channel (uapi struct lossless_plane_channel): SPFC's payload
// through ll_scheme_channel(), ports named by id (the kernel's ifindex),
// checked whole and applied whole, or refused with nothing changed.
TEST(SpfcChannel, PayloadCheckedWholeThenApplied)
{
	Pool pool(SpfcConfig(3, {2, 0}, LL_SPFC_F_DAEMON), k100G, kHdrm);
	const ll_u32 ids[3] = {11, 12, 13};
	lossless_spfc_channel w{};
	ll_u64 due = 7;
	auto apply = [&](ll_u64 now, ll_u32 scheme = LL_SCHEME_SPFC, ll_u32 len = sizeof(w)) {
		return ll_scheme_channel(pool.p(), scheme, ids, 3, &w, len, now, &due);
	};
	// The generic refusals: another scheme, another size.
	EXPECT_EQ(apply(10, LL_SCHEME_DT), -LL_EOPNOTSUPP);
	EXPECT_EQ(due, 0u);
	EXPECT_EQ(apply(10, LL_SCHEME_SPFC, sizeof(w) - 1), -LL_EMSGSIZE);
	// Port 12 forced Victim, port 11 published Victim for a window that
	// ended at 5: both Victims, no frame due (nothing queued).
	w.ports[0] = {12, 0, 0, 1u << kP, 0, 0};
	w.ports[1] = {11, LOSSLESS_SPFC_PUB, 1u << kP, 0, 0, 5};
	EXPECT_EQ(apply(10), 0);
	EXPECT_EQ(due, 0u);
	EXPECT_TRUE(Victim(pool, 1));
	EXPECT_EQ(St(pool, 1).force_victim, 1u << kP);
	EXPECT_TRUE(Victim(pool, 0));
	EXPECT_FALSE(Victim(pool, 2));
	// Each refusal leaves everything as it was.
	auto refused = [&](lossless_plane_spfc_port slot, int err, ll_u64 now = 20) {
		lossless_spfc_channel keep = w;
		w.ports[2] = slot;
		EXPECT_EQ(apply(now), err) << slot.ifindex;
		w = keep;
		EXPECT_TRUE(Victim(pool, 1));
		EXPECT_EQ(St(pool, 1).force_victim, 1u << kP);
	};
	refused({99, 0, 0, 0, 0, 0}, -LL_ENODEV);			// no port of the pool
	refused({12, 0, 0, 0, 0, 0}, -LL_EINVAL);			// port 12 twice
	refused({13, 0x2, 0, 0, 0, 0}, -LL_EINVAL);			// unknown flag
	refused({13, 0, 0, 1u << 2, 0, 0}, -LL_EINVAL);		// a lossy priority
	refused({13, 0, 0, 1u << kP, 1u << kP, 0}, -LL_EINVAL);	// forced both ways
	refused({13, 0, 1u << kP, 0, 0, 0}, -LL_EINVAL);		// victims without the flag
	refused({0, 0, 0, 0, 0, 4}, -LL_EINVAL);			// data in an unused slot
	refused({13, LOSSLESS_SPFC_PUB, 1u << kP, 0, 0, 21}, -LL_ERANGE, 20);	// a future window
	// The payload is the whole desired state: port 12 in no slot is
	// forced no more.
	w.ports[0] = {};
	EXPECT_EQ(apply(30), 0);
	EXPECT_EQ(St(pool, 1).force_victim, 0u);
	EXPECT_FALSE(Victim(pool, 1));
	// A port that is no member (id 0) is not a target.
	const ll_u32 gone[3] = {11, 0, 13};
	w.ports[0] = {12, 0, 0, 1u << kP, 0, 0};
	EXPECT_EQ(ll_scheme_channel(pool.p(), LL_SCHEME_SPFC, gone, 3, &w, sizeof(w), 40, &due),
		  -LL_ENODEV);
}

} // namespace

// ------------------------------------------------------------ telemetry

namespace {

// S-U5 and S-U7 counted: Victim at the 200th departure (t 20,000), the
// latch at the 1001st packet (t 30,000: a PAUSE while Victim, the queue
// holding 1,001,000 B), the RESUME at the 335th departure and Victim again
// (t 40,000); then a Normal port's PAUSE. The ring has each with its time
// and bytes; the time in Victim counts up to now.
TEST(SpfcTelemetry, TransitionsPausesAndRing)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	Traffic tr{pool};
	tr.PassThrough(0, 200, 100, 100);		// departures at 100 .. 20,000
	ASSERT_TRUE(Victim(pool, 0));
	for (int k = 0; k < 1001; k++)
		tr.Send(0, 30000);
	ASSERT_TRUE(Paused(pool.p(), 0));
	for (int k = 0; k < 335; k++)
		tr.Depart(0, 40000);
	ASSERT_FALSE(Paused(pool.p(), 0));
	ASSERT_TRUE(Victim(pool, 0));

	ll_scheme_port_stats ss;
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, 50000, &ss), 1);
	EXPECT_EQ(ss.scheme, (ll_u32)LL_SCHEME_SPFC);
	EXPECT_EQ(ss.masks & 0xff, 1u << kP);			// victim
	EXPECT_EQ((ss.masks >> 8) & 0xff, 1u << kP);		// sh
	EXPECT_EQ(ss.masks >> 16, 0u);				// nothing forced
	EXPECT_EQ(ss.ctr[0], 2u);				// to_victim
	EXPECT_EQ(ss.ctr[1], 1u);				// to_normal
	EXPECT_EQ(ss.ctr[2], 10000u + 10000u);			// victim_time, to 50,000
	EXPECT_EQ(ss.ctr[3], 0u);				// pauses_normal
	EXPECT_EQ(ss.ctr[4], 1u);				// pauses_victim
	EXPECT_EQ(ss.ctr[5], 1001000u);				// trigger_peak
	EXPECT_EQ(ss.ctr[6], kTh);				// irc_threshold
	EXPECT_EQ(ss.prio[0][kP], 0u);				// last_window
	EXPECT_EQ(ss.prio[1][kP], kTh + 335000u);		// irc
	EXPECT_EQ(ss.prio[1][0], 0u);
	ll_mmu_reset_peaks(pool.p());
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, 50000, &ss), 1);
	EXPECT_EQ(ss.ctr[5], 0u);				// trigger_peak reset
	EXPECT_EQ(ss.ctr[4], 1u);				// counts stay

	std::vector<ll_scheme_event> ev = Events(pool.p());
	ASSERT_EQ(ev.size(), 5u);
	const int want[] = {LL_SPFC_EV_TO_VICTIM, LL_SPFC_EV_PAUSE,
			    LL_SPFC_EV_TO_NORMAL, LL_SPFC_EV_RESUME,
			    LL_SPFC_EV_TO_VICTIM};
	const ll_u64 when[] = {20000, 30000, 30000, 40000, 40000};
	for (size_t i = 0; i < ev.size(); i++) {
		EXPECT_EQ(ev[i].type, want[i]) << i;
		EXPECT_EQ(ev[i].time_ns, when[i]) << i;
		EXPECT_EQ(ev[i].port, 0) << i;
		EXPECT_EQ(ev[i].prio, kP) << i;
	}
	EXPECT_EQ(ev[1].bytes, 1001000u);
	EXPECT_EQ(ev[1].shared_used, 1000000u);			// the pool full
	EXPECT_EQ(ev[3].bytes, 666000u);

	// A Normal port pauses at DT's threshold: counted as such.
	int n = 0;
	while (!Paused(pool.p(), 1) && n++ < 1000)
		tr.Send(1, 60000, kP, kPkt, 0);
	ASSERT_TRUE(Paused(pool.p(), 1));
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 1, 60000, &ss), 1);
	EXPECT_EQ(ss.ctr[3], 1u);
	EXPECT_EQ(ss.ctr[4], 0u);
	EXPECT_EQ(ss.ctr[5], (ll_u64)n * kPkt);
	EXPECT_EQ(ss.ctr[2], 0u);
	ev = Events(pool.p());
	EXPECT_EQ(ev.back().type, LL_SPFC_EV_PAUSE);
	EXPECT_EQ(ev.back().port, 1);

	// The drain resumes port 1; time in Victim keeps counting on port 0.
	tr.DrainAll(70000);
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, 70000, &ss), 1);
	EXPECT_EQ(ss.ctr[2], 10000u + 30000u);
	ev = Events(pool.p());
	EXPECT_TRUE(std::any_of(ev.begin(), ev.end(), [](const ll_scheme_event &e) {
		return e.port == 1 && e.type == LL_SPFC_EV_RESUME && e.time_ns == 70000;
	}));
}

// The forced states show in their masks; forcing is a transition.
TEST(SpfcTelemetry, ForcedMasks)
{
	Pool pool(SpfcConfig(), k100G, kHdrm);
	ASSERT_EQ(ll_spfc_force(pool.p(), 0, kP, LL_SPFC_FORCE_VICTIM, 1000), 0);
	ASSERT_EQ(ll_spfc_force(pool.p(), 1, kP, LL_SPFC_FORCE_NORMAL, 1000), 0);
	ll_scheme_port_stats ss;
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, 3000, &ss), 1);
	EXPECT_EQ(ss.masks, (1u << kP) | (1u << kP << 16));
	EXPECT_EQ(ss.ctr[0], 1u);
	EXPECT_EQ(ss.ctr[2], 2000u);
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 1, 3000, &ss), 1);
	EXPECT_EQ(ss.masks, 1u << kP << 24);
	EXPECT_EQ(ss.ctr[0], 0u);
	std::vector<ll_scheme_event> ev = Events(pool.p());
	ASSERT_EQ(ev.size(), 1u);
	EXPECT_EQ(ev[0].type, LL_SPFC_EV_TO_VICTIM);
	EXPECT_EQ(ev[0].time_ns, 1000u);
}

// The window when none is given: four round trips, never below the 1 ms
// floor nor above 1 s. The defaults (sw-delay 1 ms, no cable) give 8 ms,
// which is at least the round trip the daemon requires (TC >= RTT).
TEST(Spfc, WindowFromTheRoundTrip)
{
	const ll_u64 ms = 1000000;
	ll_u64 rtt = 2 * (0 + 1 * ms);	/* 2 x (cable-delay + sw-delay) */

	EXPECT_EQ(ll_spfc_window_for_rtt_ns(rtt), 8 * ms);
	EXPECT_GE(ll_spfc_window_for_rtt_ns(rtt), 4 * rtt);
	EXPECT_EQ(ll_spfc_window_for_rtt_ns(2 * 60 * ms), 480 * ms);
	EXPECT_EQ(ll_spfc_window_for_rtt_ns(0), LL_SPFC_TC_NS_DEFAULT);
	EXPECT_EQ(ll_spfc_window_for_rtt_ns(100000), LL_SPFC_TC_NS_DEFAULT);
	EXPECT_EQ(ll_spfc_window_for_rtt_ns(300 * ms), LL_SPFC_TC_NS_MAX);
	EXPECT_EQ(ll_spfc_window_for_rtt_ns(~0ULL), LL_SPFC_TC_NS_MAX);
	for (rtt = 0; rtt < 300 * ms; rtt += 7 * ms + 13)
		EXPECT_GE(ll_spfc_window_for_rtt_ns(rtt), rtt);
}

} // namespace
