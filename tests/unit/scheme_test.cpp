// The scheme seam (kernel/core/scheme.h) and the static-threshold scheme
// ST (scheme_st.c, spfc.md 2.6), next to DT on the same traffic.
#include <gtest/gtest.h>

#include <vector>

#include "mmu_fixture.h"

extern "C" {
#include "scheme.h"
}

namespace {

using namespace mmu_test;

constexpr ll_u32 kPkt = 1000;

// Two ports, 1,000,000 B shared once both are attached, alpha 1.
ll_mmu_config TwoPorts(ll_u8 scheme, ll_u64 st_threshold = 0)
{
	ll_mmu_config c = PaperConfig(2, ll_mmu_alpha{1, 0});
	c.scheme = scheme;
	c.scheme_params.st.threshold_bytes = st_threshold;
	return c;
}

// Send kPkt packets from in_port (to the other port) until it pauses or
// `max` were sent; every charge is kept in `held`. Returns packets sent.
ll_u32 FillUntilPaused(Pool &pool, ll_u32 in_port, std::vector<ll_mmu_charge> &held,
		       ll_u32 max = 5000)
{
	for (ll_u32 n = 1; n <= max; n++) {
		ll_mmu_charge ch{};
		enum ll_mmu_verdict v = ll_mmu_admit(pool.p(), in_port, kLosslessPrio,
						     1 - in_port, 0, kPkt, n, &ch);
		EXPECT_TRUE(ll_mmu_admitted(v)) << ll_mmu_verdict_name(v) << " at " << n;
		held.push_back(ch);
		ExpectInvariants(pool.p());
		if (Paused(pool.p(), in_port))
			return n;
	}
	return max;
}

void ReleaseAll(Pool &pool, std::vector<ll_mmu_charge> &held)
{
	for (auto &ch : held) {
		ll_mmu_release(pool.p(), &ch, 1);
		ExpectInvariants(pool.p());
	}
	held.clear();
}

TEST(Scheme, NamesAndIds)
{
	EXPECT_EQ(ll_scheme_by_name("dt"), LL_SCHEME_DT);
	EXPECT_EQ(ll_scheme_by_name("st"), LL_SCHEME_ST);
	EXPECT_EQ(ll_scheme_by_name("dsh"), LL_SCHEME_DSH);
	EXPECT_EQ(ll_scheme_by_name("spfc"), LL_SCHEME_SPFC);
	EXPECT_EQ(ll_scheme_by_name(""), -1);
	EXPECT_EQ(ll_scheme_by_name("stt"), -1);
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_DT), "dt");
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_ST), "st");
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_DSH), "dsh");
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_SPFC), "spfc");
	EXPECT_EQ(ll_scheme_name(LL_SCHEME_COUNT), nullptr);
	// Every scheme of the core is selectable.
	EXPECT_EQ(LL_SCHEME_COUNT, LL_SCHEME_CORE_COUNT);
}

// Every named telemetry value is found where its descriptor puts it; the
// descriptors are complete and fit the telemetry block.
TEST(Scheme, StatIndexByName)
{
	int named = 0;
	for (ll_u32 s = 0; s < LL_SCHEME_CORE_COUNT; s++) {
		const ll_scheme_desc *d = ll_scheme_lookup(s);
		if (!d)
			continue;	// a reserved id
		ASSERT_LE(d->n_stats, (ll_u32)LL_SCHEME_STATS) << d->name;
		ASSERT_LE(d->n_masks, (ll_u32)LL_SCHEME_MASKS) << d->name;
		ASSERT_LE(d->n_prio_stats, (ll_u32)LL_SCHEME_PRIO_STATS) << d->name;
		for (ll_u32 i = 0; i < d->n_stats; i++) {
			ASSERT_NE(d->stats[i].name, nullptr) << d->name << " " << i;
			ASSERT_NE(d->stats[i].help, nullptr) << d->stats[i].name;
			named++;
			EXPECT_EQ(ll_scheme_stat_index(s, 0, d->stats[i].name), (int)i)
				<< d->stats[i].name;
		}
		for (ll_u32 i = 0; i < d->n_masks; i++)
			EXPECT_NE(d->masks[i], nullptr) << d->name << " mask " << i;
		for (ll_u32 i = 0; i < d->n_prio_stats; i++) {
			ASSERT_NE(d->prio_stats[i].name, nullptr) << d->name << " " << i;
			named++;
			EXPECT_EQ(ll_scheme_stat_index(s, 1, d->prio_stats[i].name), (int)i)
				<< d->prio_stats[i].name;
		}
		// A scheme with telemetry names it, and one without has none.
		EXPECT_EQ(d->port_stats != nullptr, d->n_stats + d->n_masks + d->n_prio_stats > 0)
			<< d->name;
		// Its parameter rows are its words, in order, in its nest.
		for (ll_u32 i = 0; i < d->n_params; i++) {
			EXPECT_EQ(d->params[i].word, (int)i) << d->name;
			EXPECT_EQ(d->params[i].scheme, (int)s) << d->name;
			EXPECT_EQ(d->params[i].nl_attr, i + 1) << d->name;
			EXPECT_EQ(d->params[i].nl_nest, d->nl_nest) << d->name;
		}
		if (d->n_params) {
			EXPECT_EQ(d->nl_pad, d->n_params + 1) << d->name;
		}
		EXPECT_LE(d->n_params, sizeof(ll_scheme_params) / sizeof(ll_u64)) << d->name;
	}
	EXPECT_GT(named, 10);
	EXPECT_GE(ll_scheme_stat_index(LL_SCHEME_DSH, 0, "insurance_peak"), 0);
	EXPECT_GE(ll_scheme_stat_index(LL_SCHEME_SPFC, 1, "last_window"), 0);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_DSH, 1, "insurance_peak"), -1);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_DT, 0, "insurance_peak"), -1);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_DSH, 0, "insurance_pea"), -1);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_DSH, 0, "insurance_peakk"), -1);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_CORE_COUNT, 0, "insurance_peak"), -1);
	EXPECT_EQ(ll_scheme_stat_index(LL_SCHEME_DSH, 0, nullptr), -1);
}

TEST(Scheme, BadSchemeAndParametersRefused)
{
	// Past every scheme the core has.
	ll_mmu_config c = TwoPorts(LL_SCHEME_CORE_COUNT);
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME);
	EXPECT_STREQ(ll_scheme_check_msg(&c), "unknown scheme");
	c = TwoPorts(LL_SCHEME_ST, 1ull << 41);
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
	EXPECT_STREQ(ll_scheme_check_msg(&c), "st: st-threshold above the buffer");
	c = TwoPorts(LL_SCHEME_ST, c.total_bytes);
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	EXPECT_STREQ(ll_mmu_err_name(LL_MMU_ERR_SCHEME), "unknown-scheme");
}

TEST(SchemeSt, DefaultThresholdIsSharedOverPorts)
{
	Pool pool(TwoPorts(LL_SCHEME_ST), 10 * kGbit, 10000);
	ASSERT_EQ(pool->shared_size, 1000000u);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, kLosslessPrio), 500000u);
	// It follows the ports attached.
	EXPECT_NE(ll_mmu_port_detach(pool.p(), 1, 0), 0xff);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, kLosslessPrio), pool->shared_size);
}

// The difference the scheme makes: another port's bytes lower DT's
// threshold and leave ST's alone.
TEST(SchemeSt, ThresholdIgnoresOtherQueues)
{
	for (ll_u8 scheme : {LL_SCHEME_ST, LL_SCHEME_DT}) {
		Pool pool(TwoPorts(scheme), 10 * kGbit, 10000);
		std::vector<ll_mmu_charge> held;
		// Port 1 holds 400,000 B, below either threshold.
		for (ll_u32 n = 0; n < 400; n++) {
			ll_mmu_charge ch{};
			ASSERT_EQ(ll_mmu_admit(pool.p(), 1, kLosslessPrio, 0, 0, kPkt, n, &ch),
				  LL_MMU_ADMIT_SHARED);
			held.push_back(ch);
		}
		ASSERT_FALSE(Paused(pool.p(), 1));
		ll_u32 sent = FillUntilPaused(pool, 0, held);
		// ST: T = 1,000,000 / 2. DT: q >= 1,000,000 - 400,000 - q.
		EXPECT_EQ(sent, scheme == LL_SCHEME_ST ? 500u : 300u)
			<< ll_scheme_name(scheme);
		ReleaseAll(pool, held);
		ExpectEmpty(pool.p());
	}
}

TEST(SchemeSt, GivenThresholdAndResume)
{
	ll_mmu_config c = TwoPorts(LL_SCHEME_ST, 100000);
	c.xon_offset_bytes = 2 * kPkt;
	Pool pool(c, 10 * kGbit, 10000);
	std::vector<ll_mmu_charge> held;
	EXPECT_EQ(FillUntilPaused(pool, 0, held), 100u);
	// XON once shared + offset < T: at 97 packets held, not at 98.
	while (held.size() > 98) {
		ll_mmu_release(pool.p(), &held.back(), 2);
		held.pop_back();
	}
	EXPECT_TRUE(Paused(pool.p(), 0));
	ll_mmu_release(pool.p(), &held.back(), 3);
	held.pop_back();
	EXPECT_FALSE(Paused(pool.p(), 0));
	ReleaseAll(pool, held);
	ExpectEmpty(pool.p());
}

// The pool-exhaustion rule: bytes that find no shared room take headroom
// and pause, whatever the static threshold says.
TEST(SchemeSt, ExhaustedPoolPausesIntoHeadroom)
{
	Pool pool(TwoPorts(LL_SCHEME_ST, 900000), 10 * kGbit, 10000);
	std::vector<ll_mmu_charge> held;
	for (ll_u32 n = 0; n < 600; n++) {
		ll_mmu_charge ch{};
		ASSERT_EQ(ll_mmu_admit(pool.p(), 1, kLosslessPrio, 0, 0, kPkt, n, &ch),
			  LL_MMU_ADMIT_SHARED);
		held.push_back(ch);
	}
	ll_u32 n;
	for (n = 1; n <= 400; n++) {
		ll_mmu_charge ch{};
		ASSERT_EQ(ll_mmu_admit(pool.p(), 0, kLosslessPrio, 1, 0, kPkt, n, &ch),
			  LL_MMU_ADMIT_SHARED) << n;
		held.push_back(ch);
	}
	EXPECT_FALSE(Paused(pool.p(), 0));
	ll_mmu_charge ch{};
	EXPECT_EQ(ll_mmu_admit(pool.p(), 0, kLosslessPrio, 1, 0, kPkt, n, &ch),
		  LL_MMU_ADMIT_HEADROOM);
	held.push_back(ch);
	EXPECT_TRUE(Paused(pool.p(), 0));
	ExpectInvariants(pool.p());
	ReleaseAll(pool, held);
	ExpectEmpty(pool.p());
	EXPECT_EQ(pool->ctr.drops_lossless, 0u);
}

TEST(Scheme, ChangeRefusedWhileHoldingBytes)
{
	ll_mmu_config st = TwoPorts(LL_SCHEME_ST);
	ll_mmu_config dt = TwoPorts(LL_SCHEME_DT);
	Pool pool(st, 10 * kGbit, 10000);
	std::vector<ll_mmu_charge> held;
	FillUntilPaused(pool, 0, held, 10);
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &dt), LL_MMU_ERR_BUSY);
	EXPECT_EQ(pool->cfg.scheme, LL_SCHEME_ST);
	// The scheme's parameters may change under load.
	st.scheme_params.st.threshold_bytes = 5000;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &st), LL_MMU_OK);
	EXPECT_TRUE(Paused(pool.p(), 0));	// 10,000 B >= 5,000 B
	ReleaseAll(pool, held);
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &dt), LL_MMU_OK);
	EXPECT_EQ(pool->cfg.scheme, LL_SCHEME_DT);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, kLosslessPrio), 1000000u);
	ExpectEmpty(pool.p());
}

// DT and ST have no timer: the port deadline is the PFC refresh alone.
TEST(Scheme, NoTimerForDtAndSt)
{
	for (ll_u8 scheme : {LL_SCHEME_ST, LL_SCHEME_DT}) {
		Pool pool(TwoPorts(scheme), 10 * kGbit, 10000);
		EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
		EXPECT_EQ(ll_mmu_port_timer(pool.p(), 0, 5), 0);
		// Their releases never report a timer (LL_MMU_EV_TIMER).
		ll_mmu_charge ch{};
		ASSERT_EQ(ll_mmu_admit(pool.p(), 0, kLosslessPrio, 1, 0, kPkt, 6, &ch),
			  LL_MMU_ADMIT_SHARED);
		EXPECT_EQ(ll_mmu_release(pool.p(), &ch, 7) & LL_MMU_EV_TIMER, 0u);
	}
}

} // namespace
