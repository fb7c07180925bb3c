// Bifrost's per-slot update (kernel/core/bifrost.c): the unit cases of
// bifrost.md 8.1 in its numbers (100 Gbit/s, T = 10 us, D = 400 us: B =
// 125,000 B, Delta = 10,000,000 B, H = Delta + 3B), the checks of 8.5,
// and BifrostX's Alg. 2 and 3 (8.4). The randomized models of 8.2 are in
// bifrost_property_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

extern "C" {
#include "bifrost.h"
#include "pause.h"
}

namespace {

constexpr ll_u64 G = 1000000000ull;
constexpr ll_u64 kUs = 1000;
constexpr ll_u64 kB = 125000;		// R_s T
constexpr ll_u64 kBdp = 10000000;	// R_s RTT
constexpr ll_u64 kFmax = kBdp + kB;
constexpr ll_u64 kH = kBdp + 3 * kB;
constexpr ll_u64 kT0 = 1000 * G;	// any start time

ll_bifrost_config Testbed(ll_u64 buffer = kH, ll_u64 jitter_ns = 0, ll_u32 k = 1)
{
	ll_bifrost_config c{};
	c.rate_bps = 100 * G;
	c.slot_ns = 10 * kUs;
	c.rtt_ns = 800 * kUs;
	c.jitter_ns = jitter_ns;
	c.buffer_bytes = buffer;
	c.leak_period = k;
	c.mtu_bytes = 1518;
	return c;
}

// A Bifrost at kT0 with the receive counter at rx0.
struct Port {
	ll_bifrost b{};
	ll_u64 rx = 0;
	explicit Port(const ll_bifrost_config &c, ll_u64 rx0 = 0) : rx(rx0)
	{
		EXPECT_EQ(ll_bifrost_check(&c), nullptr);
		ll_bifrost_init(&b, &c, kT0, rx0);
	}
	// One slot on time with queue L after r bytes arrived.
	ll_bifrost_decision Slot(ll_u64 queue, ll_u64 r, ll_u64 late_ns = 0)
	{
		ll_bifrost_decision d{};
		rx += r;
		ll_bifrost_slot(&b, ll_bifrost_next_ns(&b) + late_ns, queue, rx, &d);
		return d;
	}
};

TEST(Bifrost, InitDerivesTheTestbedNumbers)
{
	Port p(Testbed());
	EXPECT_EQ(p.b.slot_bytes, kB);
	EXPECT_EQ(p.b.bdp_bytes, kBdp);
	EXPECT_EQ(p.b.f_max_bytes, kFmax);
	EXPECT_EQ(p.b.f_bytes, kFmax);	// Alg. 1 line 1
	EXPECT_EQ(p.b.buffer_bytes, kH);
	EXPECT_EQ(ll_bifrost_next_ns(&p.b), kT0 + 10 * kUs);
}

TEST(Bifrost, U1FullGrantSendsNothing)
{
	Port p(Testbed());
	ll_bifrost_decision d = p.Slot(0, kB);
	EXPECT_EQ(d.grant_bytes, kB);
	EXPECT_EQ(d.link_token_bytes, kB);
	EXPECT_EQ(d.pause_ns, 0u);
	EXPECT_FALSE(d.send);
	EXPECT_EQ(p.b.f_bytes, kFmax);
	EXPECT_EQ(p.b.stats.frames, 0u);
}

TEST(Bifrost, U2PartialGrant)
{
	Port p(Testbed());
	ll_bifrost_decision d = p.Slot(200000, kB);
	EXPECT_EQ(d.grant_bytes, 50000u);
	EXPECT_EQ(d.link_token_bytes, 50000u);
	EXPECT_EQ(d.pause_ns, 6 * kUs);
	EXPECT_EQ(d.quanta, 1172u);	// 1171.875 rounded up
	EXPECT_TRUE(d.send);
	EXPECT_EQ(p.b.f_bytes, 10050000u);
}

TEST(Bifrost, U3NegativeRoomClampsToAFullPause)
{
	Port p(Testbed());
	ll_bifrost_decision d = p.Slot(300000, kB);
	EXPECT_EQ(d.grant_bytes, 0u);
	EXPECT_EQ(d.pause_ns, 10 * kUs);	// never more than T without a guard
	EXPECT_EQ(d.quanta, 1954u);		// 1953.125 rounded up
	EXPECT_EQ(p.b.f_bytes, kBdp);
	EXPECT_EQ(p.b.stats.full_pauses, 1u);
}

TEST(Bifrost, U4TheDeductionNeverDoublesAGrant)
{
	// Line 13 read as printed would give c^ = c - (L + F - H) = 100,000.
	Port p(Testbed());
	ll_bifrost_decision d = p.Slot(200000, kB);
	EXPECT_EQ(d.link_token_bytes, d.grant_bytes);
	EXPECT_EQ(d.link_token_bytes, 50000u);
}

TEST(Bifrost, U5FNeverBelowZeroAndTheLeakIsCounted)
{
	Port p(Testbed());
	p.b.f_bytes = 0;
	ll_bifrost_decision d = p.Slot(kH, 10000);	// a full queue: c = 0
	EXPECT_EQ(d.grant_bytes, 0u);
	EXPECT_EQ(p.b.f_bytes, 0u);
	EXPECT_EQ(p.b.stats.leak_bytes, 10000u);
}

TEST(Bifrost, U6TheDeductionRunsEveryKthSlotAndChangesNothingAfterR1)
{
	Port k1(Testbed(kH, 0, 1)), k3(Testbed(kH, 0, 3));
	for (ll_u64 q : {0ull, 200000ull, 260000ull, 300000ull, 0ull, 1000000ull}) {
		ll_bifrost_decision a = k1.Slot(q, kB), b = k3.Slot(q, kB);
		EXPECT_EQ(a.link_token_bytes, b.link_token_bytes) << q;
		EXPECT_EQ(a.link_token_bytes, a.grant_bytes) << q;
		EXPECT_EQ(k1.b.f_bytes, k3.b.f_bytes) << q;
	}
	EXPECT_EQ(k3.b.slot, 6u);
}

TEST(Bifrost, U7FullPauseAt400GbitIs7813Quanta)
{
	ll_bifrost_config c = Testbed(0);
	c.rate_bps = 400 * G;
	Port p(c);
	ll_bifrost_decision d = p.Slot(p.b.buffer_bytes, 4 * kB);
	EXPECT_EQ(d.quanta, 7813u);
	EXPECT_LT(d.quanta, 65535u);
}

TEST(Bifrost, U8AlmostAFullGrantStillSendsOneQuantum)
{
	Port p(Testbed());
	// room = B - 1: L = H - F - (B - 1).
	ll_bifrost_decision d = p.Slot(kH - kFmax - (kB - 1), kB);
	EXPECT_EQ(d.link_token_bytes, kB - 1);
	EXPECT_GT(d.pause_ns, 0u);
	EXPECT_EQ(d.quanta, 1u);
	EXPECT_TRUE(d.send);
}

TEST(Bifrost, U9TheReceiveCounterWraps)
{
	Port p(Testbed(), ~0ull - 999);		// 1000 bytes below the wrap
	p.b.f_bytes = kFmax - kB;		// so that r shows in F
	p.Slot(0, kB);				// the counter passes 2^64
	EXPECT_LT(p.rx, 1000000u);
	EXPECT_EQ(p.b.f_bytes, kFmax - kB);	// F - r + c with r = c = B
	EXPECT_EQ(p.b.stats.leak_bytes, 0u);
}

TEST(Bifrost, U10TheVirtualIncomingBytesOfFigure6)
{
	// Backlogged upstream, every grant before 0 full (r = B per slot);
	// for d = D / T slots the grants are B / 2, then B for d slots.
	Port p(Testbed());
	const ll_u64 d = 40;
	for (ll_u64 i = 0; i < d; i++) {
		// L such that the room is B / 2 over the current F.
		ll_bifrost_decision x = p.Slot(kH - p.b.f_bytes - kB / 2, kB);
		ASSERT_EQ(x.grant_bytes, kB / 2) << i;
	}
	for (ll_u64 i = 0; i < d; i++) {
		ll_bifrost_decision x = p.Slot(0, kB);
		ASSERT_EQ(x.grant_bytes, kB) << i;
	}
	EXPECT_EQ(p.b.f_bytes, kBdp * 3 / 4 + kB);	// 0.75 Delta + B
}

TEST(Bifrost, C3TheFirstPauseOfAStallIsWithinTwoSlots)
{
	// Steady state, then the drain stops: L grows by B per slot.
	for (ll_u64 h : {kBdp + 2 * kB, kBdp + 3 * kB}) {
		Port p(Testbed(h));
		int first = 0;
		for (int n = 1; n <= 10 && !first; n++)
			if (p.Slot(n * kB, kB).send)
				first = n;
		EXPECT_EQ(first, h == kBdp + 2 * kB ? 1 : 2) << h;
	}
}

TEST(Bifrost, TheGuardCoversALateSlotAndAResumeEndsIt)
{
	Port p(Testbed(0, 50 * kUs));
	ll_bifrost_decision d = p.Slot(p.b.buffer_bytes, kB);	// full
	EXPECT_EQ(d.pause_ns, 60 * kUs + 122);	// T + J + an MTU's 121.4 ns
	EXPECT_TRUE(d.send);
	// The next slot 40 us late: still inside the guarded pause, nothing
	// went through beyond the grants.
	d = p.Slot(p.b.buffer_bytes, 0, 40 * kUs);
	EXPECT_EQ(p.b.stats.late_grant_bytes, 0u);
	// The queue drained: a full grant, and a resume frame ends the guard.
	d = p.Slot(0, 0);
	EXPECT_EQ(d.link_token_bytes, kB);
	EXPECT_TRUE(d.send);
	EXPECT_EQ(d.quanta, 0u);
	EXPECT_EQ(p.b.stats.resumes, 1u);
	// No guard left: the next full grant sends nothing.
	EXPECT_FALSE(p.Slot(0, 0).send);
}

TEST(Bifrost, ALateSlotAfterAPartialPauseIsAccountedAtLineRate)
{
	Port p(Testbed());
	p.Slot(200000, kB);			// partial: p = 6 us
	ll_u64 f = p.b.f_bytes;
	p.Slot(0, kB, 3 * kUs);			// 3 us late: 37,500 B extra
	EXPECT_EQ(p.b.stats.late_grant_bytes, 37500u);
	EXPECT_EQ(p.b.f_bytes, std::min<ll_u64>(f - kB + kB + 37500, kFmax));
	EXPECT_EQ(p.b.stats.max_late_ns, 3 * kUs);
	EXPECT_EQ(p.b.stats.late_hist[2], 1u);	// [2, 4) us
}

TEST(Bifrost, AGapLongerThanFsWindowRestartsF)
{
	// The upstream at line rate while the loop sleeps 2 RTT: r is 200
	// slots of bytes, which must not drive F to 0 while a full pipe is
	// still on its way.
	Port p(Testbed());
	p.Slot(0, 161 * kB, 1600 * kUs);
	EXPECT_EQ(p.b.f_bytes, kFmax);
	EXPECT_EQ(p.b.stats.leak_bytes, 0u);
	// A restart, counted apart: not lateness, not missed slots, not a
	// grant's late bytes (an idle port's timer does not run at all).
	EXPECT_EQ(p.b.stats.restarts, 1u);
	EXPECT_EQ(p.b.stats.missed_slots, 0u);
	EXPECT_EQ(p.b.stats.max_late_ns, 0u);
	EXPECT_EQ(p.b.stats.late_grant_bytes, 0u);
	// The next slot, on time with an empty queue, grants a full slot.
	EXPECT_EQ(p.Slot(0, kB).grant_bytes, kB);
}

TEST(Bifrost, AGrantKeepsTheJittersBytesBack)
{
	// J = 20 us (250,000 B): a grant leaves that much room unused, so a
	// slot up to J late stays within H; the next slot adds what ran past
	// to F (not ahead: F keeps predicting the bytes in flight).
	ll_bifrost_config c = Testbed(0, 20 * kUs);
	Port p(c), q(c);
	const ll_u64 h = p.b.buffer_bytes, j = 250000;
	// L such that H - L - F = J + 50,000: the grant is 50,000.
	ll_bifrost_decision d = p.Slot(h - p.b.f_bytes - j - 50000, kB);
	q.Slot(h - q.b.f_bytes - j - 50000, kB);
	EXPECT_EQ(d.grant_bytes, 50000u);
	// A grant records c alone.
	EXPECT_EQ(p.b.f_bytes, p.b.f_max_bytes + 50000 - kB);
	// The next slot 15 us late: within J, nothing counted as late, but
	// F has the 187,500 B the upstream sent past its slot (q: on time).
	p.Slot(0, 4 * kB, 15 * kUs);
	q.Slot(0, 4 * kB);
	EXPECT_EQ(p.b.stats.late_grant_bytes, 0u);
	EXPECT_EQ(p.b.f_bytes, q.b.f_bytes + 187500);
	EXPECT_LE(p.b.f_bytes, p.b.f_max_bytes);
	// 35 us late: 40 us since the last slot, 10 us past T + J.
	p.Slot(0, kB, 35 * kUs);
	EXPECT_EQ(p.b.stats.late_grant_bytes, 125000u);
}

TEST(Bifrost, MissedSlotsAreSkippedOnTheAbsoluteSchedule)
{
	Port p(Testbed());
	ll_bifrost_decision d = p.Slot(0, 0, 35 * kUs);	// 3 whole slots late
	EXPECT_EQ(d.missed_slots, 3u);
	EXPECT_EQ(p.b.stats.missed_slots, 3u);
	// The phase is kept: the next slot is 5 slots after the start.
	EXPECT_EQ(ll_bifrost_next_ns(&p.b), kT0 + 50 * kUs);
	EXPECT_EQ(p.b.stats.late_hist[6], 1u);	// [32, 64) us
}

TEST(Bifrost, StatisticsFollowTheSlots)
{
	Port p(Testbed());
	p.Slot(0, kB);
	p.Slot(200000, kB);
	p.Slot(400000, kB);
	const ll_bifrost_stats &s = p.b.stats;
	EXPECT_EQ(s.slots, 3u);
	EXPECT_EQ(s.frames, 2u);
	EXPECT_EQ(s.full_pauses, 1u);
	EXPECT_EQ(s.pause_ns_total, 16 * kUs);
	EXPECT_EQ(s.max_queue_bytes, 400000u);
	EXPECT_EQ(s.breaches, 0u);
	EXPECT_GE(s.min_margin_bytes, 0);
	EXPECT_LE(s.max_lf_bytes, kH);
}

// S11: new parameters at the same rate apply from the next slot; the
// loop's state (F, the schedule, the counters) is kept.
TEST(Bifrost, ReconfigureKeepsTheLoop)
{
	Port p(Testbed());
	p.Slot(0, kB);
	p.Slot(300000, 2 * kB);
	const ll_bifrost before = p.b;
	ll_bifrost_config wider = Testbed(kH + 500000, 5 * kUs, 4);
	ll_bifrost_reconfigure(&p.b, &wider);
	EXPECT_EQ(p.b.f_bytes, before.f_bytes);
	EXPECT_EQ(p.b.next_ns, before.next_ns);
	EXPECT_EQ(p.b.rx_prev, before.rx_prev);
	EXPECT_EQ(p.b.slot, before.slot);
	EXPECT_EQ(p.b.last_pause_ns, before.last_pause_ns);
	EXPECT_EQ(p.b.stats.slots, 2u);
	EXPECT_EQ(p.b.stats.frames, before.stats.frames);
	EXPECT_EQ(p.b.stats.min_margin_bytes, before.stats.min_margin_bytes);
	EXPECT_EQ(p.b.buffer_bytes, kH + 500000);
	EXPECT_EQ(p.b.jitter_ns, 5 * kUs);
	EXPECT_GT(p.b.f_max_bytes, before.f_max_bytes);
	EXPECT_EQ(p.b.leak_period, 4u);
	EXPECT_LE(p.b.leak_countdown, before.leak_countdown);
	// The next slot runs on the kept schedule with the new bound.
	ll_bifrost_decision d = p.Slot(300000, kB);
	EXPECT_EQ(p.b.stats.slots, 3u);
	EXPECT_EQ(p.b.stats.restarts, 0u);
	EXPECT_LE(p.b.f_bytes, p.b.f_max_bytes);
	(void)d;
}

ll_u64 p_fmax(const ll_bifrost_config &c)
{
	ll_bifrost b{};
	ll_bifrost_init(&b, &c, 0, 0);
	return b.f_max_bytes;
}

// 8.5: bad configurations are refused with a message naming the value.
TEST(Bifrost, ChecksRefuseBadConfigurations)
{
	auto why = [](ll_bifrost_config c) {
		const char *m = ll_bifrost_check(&c);
		return std::string(m ? m : "");
	};
	EXPECT_EQ(why(Testbed()), "");
	ll_bifrost_config c = Testbed();
	c.leak_period = 0;				// E1
	EXPECT_NE(why(c).find("bifrost-k"), std::string::npos);
	c = Testbed(kBdp + 2 * kB - 1);			// E2
	EXPECT_NE(why(c).find("bifrost-buffer"), std::string::npos);
	EXPECT_EQ(why(Testbed(kBdp + 2 * kB)), "");
	c = Testbed();					// E3: R_s T > 65535 quanta
	c.rate_bps = 400 * G;
	c.slot_ns = 100 * kUs;
	c.rtt_ns = 6000 * kUs;
	c.buffer_bytes = 0;
	EXPECT_NE(why(c).find("65535"), std::string::npos);
	c = Testbed();					// E4: T >= D
	c.slot_ns = 400 * kUs;
	EXPECT_NE(why(c).find("bifrost-slot"), std::string::npos);
	c = Testbed();					// E5
	c.rate_bps = 0;
	EXPECT_NE(why(c).find("rate"), std::string::npos);
	c = Testbed();
	c.rtt_ns = 0;
	EXPECT_NE(why(c).find("bifrost-rtt"), std::string::npos);
	c = Testbed();
	c.mtu_bytes = 0;
	EXPECT_NE(why(c).find("MTU"), std::string::npos);
	ll_bifrost_config k = Testbed();
	k.leak_period = 1025;
	EXPECT_NE(why(k).find("bifrost-k"), std::string::npos);
	k = Testbed();
	k.jitter_ns = 2 * G;
	EXPECT_NE(why(k).find("bifrost-jitter"), std::string::npos);
	k = Testbed(0, 330 * kUs);	// T + J above 65535 quanta at 100 Gbit/s
	EXPECT_NE(why(k).find("65535"), std::string::npos);
	k = Testbed();
	k.slot_ns = 1ull << 63;		// T x 2 would wrap
	EXPECT_NE(why(k).find("bifrost-slot"), std::string::npos);
	EXPECT_EQ(ll_bifrost_buffer_min(&c), 0u);
}

TEST(Bifrost, BufferSizes)
{
	ll_bifrost_config c = Testbed(0, 20 * kUs, 2);
	EXPECT_EQ(ll_bifrost_buffer_min(&c), kBdp + 2 * kB + 2 * 250000);
	// Delta + 3B + k MTU + 2 R_s J.
	EXPECT_EQ(ll_bifrost_buffer_default(&c), kBdp + 3 * kB + 2 * 1518 + 2 * 250000);
	EXPECT_EQ(p_fmax(c), kBdp + kB + 250000);
	// The default is what a port gets without a buffer.
	Port p(c);
	EXPECT_EQ(p.b.buffer_bytes, ll_bifrost_buffer_default(&c));
}

// 8.4: BifrostX.
TEST(BifrostX, X1ShortQueuesPassTheirTokenDown)
{
	const ll_u64 token[3] = {80, 80, 80}, q[3] = {30, 200, 200};
	ll_u64 out[3];
	EXPECT_EQ(ll_credit_split(100, token, q, 3, out), 0u);
	EXPECT_EQ(out[0], 30u);
	EXPECT_EQ(out[1], 70u);
	EXPECT_EQ(out[2], 0u);
}

TEST(BifrostX, X2StrictPriority)
{
	const ll_u64 token[3] = {100, 50, 100}, q[3] = {500, 500, 500};
	ll_u64 out[3];
	ll_credit_split(100, token, q, 3, out);
	EXPECT_EQ(out[0], 100u);
	EXPECT_EQ(out[1], 0u);
	EXPECT_EQ(out[2], 0u);
}

TEST(BifrostX, X3X4NoLinkTokenOrNoBacklogSendsNothing)
{
	const ll_u64 token[3] = {100, 100, 100}, q[3] = {500, 500, 500}, none[3] = {};
	ll_u64 out[3];
	EXPECT_EQ(ll_credit_split(0, token, q, 3, out), 0u);
	EXPECT_EQ(out[0] + out[1] + out[2], 0u);
	EXPECT_EQ(ll_credit_split(100, token, none, 3, out), 100u);
	EXPECT_EQ(out[0] + out[1] + out[2], 0u);
}

TEST(BifrostX, X5TokensFromTheQueuesGrowth)
{
	const ll_u64 q[3] = {150, 80, 100};
	ll_u64 prev[3] = {100, 100, 100}, token[3];
	ll_bifrostx_tokens(100, q, prev, 3, token);
	EXPECT_EQ(token[0], 50u);
	EXPECT_EQ(token[1], 100u);
	EXPECT_EQ(token[2], 100u);
	EXPECT_EQ(prev[0], 150u);
	// Growth beyond a slot's bytes floors the token at 0.
	const ll_u64 big[3] = {1000, 80, 100};
	ll_bifrostx_tokens(100, big, prev, 3, token);
	EXPECT_EQ(token[0], 0u);
}

TEST(BifrostX, C26TheTokensCoverTheLinkToken)
{
	// Whenever the queues together grew by at most B (at most B arrived),
	// sum(c_i) >= (P - 1) B >= c_max, for P = 2 .. 8.
	std::mt19937_64 rng(26);
	const ll_u64 b = 1000;
	for (int round = 0; round < 100000; round++) {
		const ll_u32 n = 2 + rng() % 7;
		ll_u64 prev[8], q[8], token[8], left = b;
		for (ll_u32 i = 0; i < n; i++) {
			prev[i] = rng() % 5000;
			ll_u64 grow = left ? rng() % (left + 1) : 0;
			left -= grow;
			q[i] = rng() % 2 ? prev[i] + grow : prev[i] - prev[i] / (1 + rng() % 4);
		}
		ll_bifrostx_tokens(b, q, prev, n, token);
		ll_u64 sum = 0;
		for (ll_u32 i = 0; i < n; i++) {
			ASSERT_LE(token[i], b);
			sum += token[i];
		}
		ASSERT_GE(sum, (n - 1) * b) << round;
	}
}

TEST(BifrostX, X6OnePriorityMayGetLessThanTheLinkToken)
{
	const ll_u64 q[1] = {160};
	ll_u64 prev[1] = {100}, token[1], out[1];
	const ll_u64 backlog[1] = {1000};
	ll_bifrostx_tokens(100, q, prev, 1, token);
	EXPECT_EQ(token[0], 40u);
	ll_credit_split(100, token, backlog, 1, out);
	EXPECT_EQ(out[0], 40u);		// below c_max: why P = 1 is plain Bifrost
}

}  // namespace
