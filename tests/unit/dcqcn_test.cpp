// DCQCN's NP and RP (kernel/core/dcqcn.c; Zhu et al., SIGCOMM'15, the
// baseline of pcn.md 8): hand-computed cases of the published update
// rules, and the fixed point against a double-precision model of the same
// rules over random event sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

extern "C" {
#include "dcqcn.h"
}

namespace {

constexpr ll_u64 kUs = 1000;
constexpr ll_u64 kT0 = 1000000000ull;
constexpr ll_u64 k40G = 40000000;	// kbps
constexpr ll_u64 kMB = 1000000;
constexpr double kQ24 = 16777216.0;

ll_dcqcn_params Params(ll_u64 line = k40G)
{
	ll_dcqcn_params p{};
	ll_dcqcn_params_default(&p, line);
	EXPECT_EQ(ll_dcqcn_check(&p), nullptr);
	return p;
}

// ---------------------------------------------------------------- NP ---

// A CNP on a CE packet, at most one per flow per 50 us; unmarked packets
// never send one.
TEST(DcqcnNp, OneCnpPerIntervalOnCe)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_np_flow f{};
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 0, kT0), 0);
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 1, kT0 + 1), 1);
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 1, kT0 + 2), 0);
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 1, kT0 + 1 + 50 * kUs - 1), 0);
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 0, kT0 + 1 + 50 * kUs), 0);
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 1, kT0 + 1 + 50 * kUs), 1);
	// A clock that goes back sends nothing.
	EXPECT_EQ(ll_dcqcn_np_packet(&f, &p, 1, kT0), 0);
	// All CE at line rate for 1 ms: 20 CNPs, one per interval.
	ll_dcqcn_np_flow g{};
	int n = 0;
	for (ll_u64 t = 0; t < 1000 * kUs; t += 300)
		n += ll_dcqcn_np_packet(&g, &p, 1, kT0 + t);
	EXPECT_EQ(n, 20);
	// Two flows are independent.
	ll_dcqcn_np_flow a{}, b{};
	EXPECT_EQ(ll_dcqcn_np_packet(&a, &p, 1, kT0), 1);
	EXPECT_EQ(ll_dcqcn_np_packet(&b, &p, 1, kT0), 1);
}

// ---------------------------------------------------------------- RP ---

// The cut: R_T = R_C, R_C (1 - alpha / 2) with the alpha before the CNP,
// then alpha = (1 - g) alpha + g. alpha starts at 1 and stays 1 under
// back-to-back CNPs.
TEST(DcqcnRp, DecreaseWithAlpha)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_rp rp{};
	ll_dcqcn_rp_init(&rp, &p);
	EXPECT_EQ(rp.rc_kbps, k40G);
	EXPECT_EQ(rp.alpha_q24, 1u << 24);
	EXPECT_EQ(ll_dcqcn_rp_next_ns(&rp), LL_DCQCN_NEVER);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);
	EXPECT_EQ(rp.rt_kbps, k40G);
	EXPECT_EQ(rp.rc_kbps, k40G / 2);
	EXPECT_EQ(rp.alpha_q24, 1u << 24);
	EXPECT_EQ(ll_dcqcn_rp_next_rate_ns(&rp), kT0 + 55 * kUs);
	EXPECT_EQ(ll_dcqcn_rp_next_alpha_ns(&rp), kT0 + 55 * kUs);
	ll_dcqcn_rp_cnp(&rp, &p, kT0 + 10 * kUs);
	EXPECT_EQ(rp.rt_kbps, k40G / 2);
	EXPECT_EQ(rp.rc_kbps, k40G / 4);
	EXPECT_EQ(ll_dcqcn_rp_next_rate_ns(&rp), kT0 + 65 * kUs);
	// 20 alpha timer expiries: alpha = (1 - 1/256)^20 = 0.92474.
	ll_u64 t = kT0 + 10 * kUs;
	for (int i = 0; i < 20; i++) {
		t = ll_dcqcn_rp_next_alpha_ns(&rp);
		EXPECT_EQ(ll_dcqcn_rp_alpha_timer(&rp, &p, t), 1);
		EXPECT_EQ(ll_dcqcn_rp_alpha_timer(&rp, &p, t), 0);	// once
	}
	double a = rp.alpha_q24 / kQ24;
	EXPECT_NEAR(a, std::pow(1 - 1.0 / 256, 20), 20 / kQ24);
	// The next cut uses that alpha; alpha then rises by g (1 - alpha).
	ll_u64 rc = rp.rc_kbps;
	ll_u32 a24 = rp.alpha_q24;
	ll_dcqcn_rp_cnp(&rp, &p, t + 1);
	EXPECT_EQ(rp.rt_kbps, rc);
	EXPECT_EQ(rp.rc_kbps, rc - ((rc * a24) >> 25));
	EXPECT_NEAR((double)rp.rc_kbps, rc * (1 - a / 2), 1.0);
	EXPECT_NEAR(rp.alpha_q24 / kQ24, a * (1 - 1.0 / 256) + 1.0 / 256,
		    2 / kQ24);
	EXPECT_EQ(rp.cnps, 3u);
}

// The floor: cuts never take R_C below min_rate.
TEST(DcqcnRp, CutStopsAtMinRate)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_rp rp{};
	ll_dcqcn_rp_init(&rp, &p);
	for (int i = 0; i < 40; i++)
		ll_dcqcn_rp_cnp(&rp, &p, kT0 + i);
	EXPECT_EQ(rp.rc_kbps, p.min_rate_kbps);
}

// Two cuts (R_T 20 G, R_C 10 G), then the rate timer: 4 fast recovery
// steps toward R_T, then additive increase (T >= F, BC = 0 < F), then
// hyper increase once the byte counter reaches F too.
TEST(DcqcnRp, FastRecoveryThenAdditiveThenHyper)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_rp rp{};
	ll_dcqcn_rp_init(&rp, &p);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);
	ASSERT_EQ(rp.rt_kbps, 20000000u);
	ASSERT_EQ(rp.rc_kbps, 10000000u);
	const ll_u64 fr[] = {15000000, 17500000, 18750000, 19375000};
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_FAST_RECOVERY);
		ll_u64 t = ll_dcqcn_rp_next_rate_ns(&rp);
		EXPECT_EQ(t, kT0 + (i + 1) * 55 * kUs);
		EXPECT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, t - 1), 0);
		EXPECT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, t), 1);
		EXPECT_EQ(rp.rc_kbps, fr[i]);
		EXPECT_EQ(rp.rt_kbps, 20000000u);	// R_T holds in FR
	}
	EXPECT_EQ(rp.t_stage, 4u);
	// T = 5: additive, R_T += 5 Mbps.
	ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_ADDITIVE);
	EXPECT_EQ(rp.rt_kbps, 20005000u);
	EXPECT_EQ(rp.rc_kbps, 19690000u);
	ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(rp.rt_kbps, 20010000u);
	EXPECT_EQ(rp.rc_kbps, 19850000u);
	EXPECT_EQ(rp.t_stage, 6u);
	// The byte counter: BC = 1 .. 4 additive (max(T, BC) >= F).
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 10 * kMB), 1u);
	EXPECT_EQ(rp.rt_kbps, 20030000u);
	// BC = 5: both counters at F: hyper, i = min(T, BC) - F + 1 = 1.
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 10 * kMB - 1), 0u);
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 1), 1u);
	EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_HYPER);
	EXPECT_EQ(rp.rt_kbps, 20080000u);
	// T = 7, BC = 5: i = 1 again; then BC = 6: i = 2.
	ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(rp.rt_kbps, 20130000u);
	ll_dcqcn_rp_sent(&rp, &p, 10 * kMB);
	EXPECT_EQ(rp.rt_kbps, 20230000u);
	// Recovery ends at line rate, never above.
	for (int i = 0; i < 2000; i++)
		ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(rp.rt_kbps, k40G);
	EXPECT_EQ(rp.rc_kbps, k40G);
	// A CNP restarts both counters in fast recovery.
	ll_dcqcn_rp_cnp(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(rp.t_stage, 0u);
	EXPECT_EQ(rp.bc_stage, 0u);
	EXPECT_EQ(rp.bc_bytes, 0u);
	EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_FAST_RECOVERY);
}

// The stage is the larger counter's: the byte counter alone reaching F
// leaves fast recovery (additive) while the timer is still below F; hyper
// needs both.
TEST(DcqcnRp, ByteCounterAndTimerStages)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_rp rp{};
	ll_dcqcn_rp_init(&rp, &p);
	// No CNP yet: the byte counter does not run.
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 100 * kMB), 0u);
	EXPECT_EQ(rp.bc_stage, 0u);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);	// R_T 20 G, R_C 10 G
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 40 * kMB), 4u);	// BC 4: FR
	EXPECT_EQ(rp.rt_kbps, 20000000u);
	EXPECT_EQ(rp.rc_kbps, 19375000u);
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 10 * kMB), 1u);	// BC 5, T 0
	EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_ADDITIVE);
	EXPECT_EQ(rp.rt_kbps, 20005000u);
	for (int i = 0; i < 4; i++) {	// T 1 .. 4: additive (max >= F)
		ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
		EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_ADDITIVE);
	}
	EXPECT_EQ(rp.rt_kbps, 20025000u);
	ll_dcqcn_rp_rate_timer(&rp, &p, ll_dcqcn_rp_next_rate_ns(&rp));
	EXPECT_EQ(ll_dcqcn_rp_stage(&rp, &p), LL_DCQCN_HYPER);	// T 5, BC 5
	EXPECT_EQ(rp.rt_kbps, 20075000u);
	// Bounded work per call: 10 stages' bytes run 8, the rest waits.
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 100 * kMB), LL_DCQCN_BC_STEPS_MAX);
	EXPECT_EQ(rp.bc_stage, 13u);
	EXPECT_EQ(rp.bc_bytes, 20 * kMB);
	EXPECT_EQ(ll_dcqcn_rp_sent(&rp, &p, 0), 2u);
	EXPECT_EQ(rp.bc_stage, 15u);
}

// Timers: one expiry per call; a late call rearms one period after the
// schedule, or after now when a whole period late.
TEST(DcqcnRp, TimersRearm)
{
	ll_dcqcn_params p = Params();
	ll_dcqcn_rp rp{};
	ll_dcqcn_rp_init(&rp, &p);
	EXPECT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, ~0ull - 1), 0);	// off
	EXPECT_EQ(ll_dcqcn_rp_alpha_timer(&rp, &p, ~0ull - 1), 0);
	ll_dcqcn_rp_cnp(&rp, &p, kT0);
	EXPECT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, kT0 + 60 * kUs), 1);
	EXPECT_EQ(ll_dcqcn_rp_next_rate_ns(&rp), kT0 + 110 * kUs);
	EXPECT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, kT0 + 500 * kUs), 1);
	EXPECT_EQ(ll_dcqcn_rp_next_rate_ns(&rp), kT0 + 555 * kUs);
	EXPECT_EQ(rp.t_stage, 2u);
	EXPECT_EQ(ll_dcqcn_rp_alpha_timer(&rp, &p, kT0 + 500 * kUs), 1);
	EXPECT_EQ(ll_dcqcn_rp_next_alpha_ns(&rp), kT0 + 555 * kUs);
	EXPECT_EQ(ll_dcqcn_rp_next_ns(&rp), kT0 + 555 * kUs);
}

// The published rules in double precision, same events, same choices.
struct Model {
	double L, min_rate, g, rai, rhai, B;
	unsigned F;
	double rc, rt, alpha, bc_bytes = 0;
	unsigned T = 0, BC = 0;
	ll_u64 next_rate = LL_DCQCN_NEVER, next_alpha = LL_DCQCN_NEVER;
	ll_u64 rate_period, alpha_period;
	explicit Model(const ll_dcqcn_params &p)
	    : L(p.line_rate_kbps), min_rate(p.min_rate_kbps),
	      g(p.g_q24 / kQ24), rai(p.rai_kbps), rhai(p.rhai_kbps),
	      B(p.byte_counter_bytes), F(p.f_stages), rc(L), rt(L), alpha(1),
	      rate_period(p.rate_timer_ns), alpha_period(p.alpha_timer_ns)
	{
	}
	void Cnp(ll_u64 now)
	{
		rt = rc;
		rc = std::max(min_rate, rc * (1 - alpha / 2));
		alpha = (1 - g) * alpha + g;
		T = BC = 0;
		bc_bytes = 0;
		next_rate = now + rate_period;
		next_alpha = now + alpha_period;
	}
	void Increase()
	{
		unsigned hi = std::max(T, BC), lo = std::min(T, BC);
		if (hi >= F && lo < F)
			rt += rai;
		else if (lo >= F)
			rt += std::min(lo - F + 1, 64u) * rhai;
		rt = std::min(rt, L);
		rc = std::min((rt + rc) / 2, L);
	}
	void AlphaTimer(ll_u64 now)
	{
		alpha *= 1 - g;
		next_alpha = next_alpha + alpha_period > now ?
				     next_alpha + alpha_period : now + alpha_period;
	}
	void RateTimer()
	{
		T++;
		Increase();
		next_rate += rate_period;
	}
	void Sent(double bytes)
	{
		if (next_rate == LL_DCQCN_NEVER)
			return;
		bc_bytes += bytes;
		while (bc_bytes >= B) {
			bc_bytes -= B;
			BC++;
			Increase();
		}
	}
};

// The RP against the model over random sequences of CNPs, sends and the
// timers at their expiries (B = 150 KB, the ns-3 model's, so that the
// byte counter runs often). Prints the measured errors.
TEST(DcqcnRp, FixedPointAgainstDoubleModel)
{
	ll_dcqcn_params p = Params(100000000);	// 100 G
	p.byte_counter_bytes = 150000;
	p.rai_kbps = 40000;
	p.rhai_kbps = 200000;
	std::mt19937_64 rng(2015);
	double worst_rc = 0, worst_rt = 0, worst_alpha = 0;
	long events = 0, hyper = 0;
	for (int run = 0; run < 200; run++) {
		ll_dcqcn_rp rp{};
		ll_dcqcn_rp_init(&rp, &p);
		Model m(p);
		ll_u64 t = kT0;
		// CNPs in bursts: a congested spell, then a long quiet one.
		ll_u64 next_cnp = t + rng() % (200 * kUs);
		ll_u64 next_send = t + 1000;
		for (int i = 0; i < 3000; i++) {
			t = std::min({next_cnp, next_send, m.next_rate,
				      m.next_alpha});
			ASSERT_EQ(ll_dcqcn_rp_next_rate_ns(&rp), m.next_rate);
			ASSERT_EQ(ll_dcqcn_rp_next_alpha_ns(&rp), m.next_alpha);
			if (t == m.next_alpha) {
				ASSERT_EQ(ll_dcqcn_rp_alpha_timer(&rp, &p, t), 1);
				m.AlphaTimer(t);
			}
			if (t == m.next_rate) {
				ASSERT_EQ(ll_dcqcn_rp_rate_timer(&rp, &p, t), 1);
				m.RateTimer();
			}
			if (t == next_cnp) {
				ll_dcqcn_rp_cnp(&rp, &p, t);
				m.Cnp(t);
				next_cnp = t + (rng() % 8 ? 50 * kUs + rng() % (100 * kUs)
							  : 2000 * kUs + rng() % (20000 * kUs));
			}
			if (t == next_send) {
				// 64 KB at the current rate's pace.
				ll_u64 bytes = 1 + rng() % 65536;
				ll_u32 n = ll_dcqcn_rp_sent(&rp, &p, bytes);
				ASSERT_LE(n, 1u);
				m.Sent((double)bytes);
				next_send = t + 1 + bytes * 8000000 / rp.rc_kbps;
			}
			ASSERT_EQ(rp.t_stage, m.T);
			ASSERT_EQ(rp.bc_stage, m.BC);
			hyper += ll_dcqcn_rp_stage(&rp, &p) == LL_DCQCN_HYPER;
			worst_rc = std::max(worst_rc, std::fabs(rp.rc_kbps - m.rc) / m.rc);
			worst_rt = std::max(worst_rt, std::fabs(rp.rt_kbps - m.rt) / m.rt);
			worst_alpha = std::max(worst_alpha,
					       std::fabs(rp.alpha_q24 / kQ24 - m.alpha));
			ASSERT_LE(rp.rc_kbps, p.line_rate_kbps);
			ASSERT_GE(rp.rc_kbps, p.min_rate_kbps);
			events++;
		}
	}
	std::printf("DCQCN Q24/kbps vs double over %ld events (%ld in hyper): "
		    "max relative error R_C %.3g, R_T %.3g; max |alpha error| %.3g\n",
		    events, hyper, worst_rc, worst_rt, worst_alpha);
	EXPECT_GT(hyper, 1000);
	EXPECT_LT(worst_rc, 5e-5);	// measured 1.3e-5
	EXPECT_LT(worst_rt, 5e-5);	// measured 1.0e-5
	EXPECT_LT(worst_alpha, 2e-5);	// measured 4.9e-6
}

// Each refusal names its parameter.
TEST(DcqcnCheck, EachRefusalNamesTheValue)
{
	struct Case {
		void (*set)(ll_dcqcn_params &);
		const char *name;
	} cases[] = {
		{[](ll_dcqcn_params &p) { p.line_rate_kbps = 0; }, "dcqcn-line-rate"},
		{[](ll_dcqcn_params &p) { p.line_rate_kbps = 1600000001ull; },
		 "dcqcn-line-rate"},
		{[](ll_dcqcn_params &p) { p.min_rate_kbps = 0; }, "dcqcn-min-rate"},
		{[](ll_dcqcn_params &p) { p.min_rate_kbps = p.line_rate_kbps + 1; },
		 "dcqcn-min-rate must be at most dcqcn-line-rate"},
		{[](ll_dcqcn_params &p) { p.cnp_interval_ns = 0; },
		 "dcqcn-cnp-interval"},
		{[](ll_dcqcn_params &p) { p.rate_timer_ns = 0; }, "dcqcn-rate-timer"},
		{[](ll_dcqcn_params &p) { p.rate_timer_ns = 2000000000ull; },
		 "dcqcn-rate-timer"},
		{[](ll_dcqcn_params &p) { p.alpha_timer_ns = 0; },
		 "dcqcn-alpha-timer"},
		{[](ll_dcqcn_params &p) { p.byte_counter_bytes = 0; },
		 "dcqcn-byte-counter"},
		{[](ll_dcqcn_params &p) { p.g_q24 = 0; }, "dcqcn-g"},
		{[](ll_dcqcn_params &p) { p.g_q24 = LL_DCQCN_Q24_ONE; }, "dcqcn-g"},
		{[](ll_dcqcn_params &p) { p.f_stages = 0; }, "dcqcn-f"},
		{[](ll_dcqcn_params &p) { p.f_stages = 65; }, "dcqcn-f"},
		{[](ll_dcqcn_params &p) { p.rai_kbps = p.line_rate_kbps + 1; },
		 "dcqcn-rai"},
		{[](ll_dcqcn_params &p) { p.rhai_kbps = p.line_rate_kbps + 1; },
		 "dcqcn-rhai"},
	};
	for (auto &c : cases) {
		ll_dcqcn_params p = Params();
		c.set(p);
		const char *msg = ll_dcqcn_check(&p);
		ASSERT_NE(msg, nullptr) << c.name;
		EXPECT_NE(std::strstr(msg, c.name), nullptr)
			<< "'" << msg << "' does not name " << c.name;
	}
}

}	// namespace
