// Bifrost's invariants under random traffic (bifrost.md 8.2 and 2.8):
// one long link modelled slot by slot (P1-P4), and in fine time steps with
// a late slot timer and pause quanta (the slot loop as the module runs it:
// lateness within the jitter the buffer was sized for).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>

extern "C" {
#include "bifrost.h"
#include "pfc.h"
}

namespace {

constexpr ll_u64 G = 1000000000ull;
constexpr ll_u64 kUs = 1000;

ll_bifrost_config Link(ll_u64 buffer, ll_u64 jitter_ns = 0)
{
	ll_bifrost_config c{};
	c.rate_bps = 100 * G;
	c.slot_ns = 10 * kUs;
	c.rtt_ns = 200 * kUs;		// 20 slots: Delta = 2.5 MB, B = 125 KB
	c.jitter_ns = jitter_ns;
	c.buffer_bytes = buffer;
	c.leak_period = 1;
	c.mtu_bytes = 1518;
	return c;
}

// The slot-level fluid model of 2.1: a grant issued at the end of slot n
// governs the arrivals of slot n + RTT/T + 1. The upstream sends
// min(grant, what it has); the egress drains up to a random budget.
struct SlotModel {
	ll_bifrost b{};
	ll_u64 rx = 0, queue = 0, now = 0;
	std::deque<ll_u64> pipe;	// grants on their way, oldest first
	std::mt19937_64 rng;
	// Violations seen.
	ll_u64 overflow_bytes = 0;	// max L beyond H
	ll_u64 lower_breaks = 0;	// L + F < Delta + B
	ll_u64 starved = 0;		// egress could drain, queue empty, backlog
	ll_u64 slots = 0;

	SlotModel(const ll_bifrost_config &c, ll_u64 seed, ll_u64 true_rtt_slots = 0) : rng(seed)
	{
		ll_bifrost_init(&b, &c, 0, 0);
		ll_u64 k = true_rtt_slots ? true_rtt_slots + 1 : c.rtt_ns / c.slot_ns + 1;
		pipe.assign(k, b.slot_bytes);	// full grants before 0 (F's start)
	}

	// One slot: drain at most drain_budget, upstream has `offered` bytes.
	void Step(ll_u64 drain_budget, ll_u64 offered, bool backlogged)
	{
		ll_u64 r = std::min(pipe.front(), offered);
		pipe.pop_front();
		queue += r;
		rx += r;
		overflow_bytes = std::max(overflow_bytes,
					  queue > b.buffer_bytes ? queue - b.buffer_bytes : 0);
		ll_u64 drained = std::min(queue, drain_budget);
		if (backlogged && drain_budget > queue && slots > pipe.size() + 1)
			starved++;
		queue -= drained;
		now += b.slot_ns;
		ll_bifrost_decision d{};
		ll_bifrost_slot(&b, now, queue, rx, &d);
		ASSERT_LE(d.grant_bytes, b.slot_bytes);
		ASSERT_LE(d.link_token_bytes, d.grant_bytes);
		ASSERT_LE(d.pause_ns, b.slot_ns);
		ASSERT_LE(b.f_bytes, b.f_max_bytes);
		if (queue + b.f_bytes < b.f_max_bytes)
			lower_breaks++;
		pipe.push_back(d.link_token_bytes);
		slots++;
	}
};

// A Markov drain: the rate changes now and then, sometimes to 0.
struct Drain {
	ll_u64 budget;
	explicit Drain(ll_u64 b) : budget(b) {}
	ll_u64 Next(std::mt19937_64 &rng, ll_u64 slot_bytes)
	{
		if (rng() % 50 == 0)
			budget = rng() % 4 == 0 ? 0 : rng() % (slot_bytes + 1);
		return budget;
	}
};

TEST(BifrostProperty, P1RandomOnOffTrafficKeepsTheInvariant)
{
	for (ll_u64 seed = 1; seed <= 10; seed++) {
		ll_bifrost_config c = Link(0);
		c.buffer_bytes = ll_bifrost_buffer_min(&c);	// Delta + 2B
		SlotModel m(c, seed);
		Drain drain(m.b.slot_bytes);
		bool on = true;
		for (int n = 0; n < 100000; n++) {
			if (m.rng() % 30 == 0)
				on = !on;
			ll_u64 offered = on ? m.rng() % (m.b.slot_bytes + 1) : 0;
			m.Step(drain.Next(m.rng, m.b.slot_bytes), offered, false);
			if (::testing::Test::HasFatalFailure())
				return;
		}
		EXPECT_EQ(m.overflow_bytes, 0u) << seed;
		EXPECT_EQ(m.lower_breaks, 0u) << seed;	// Delta + B <= L + F
		EXPECT_EQ(m.b.stats.breaches, 0u) << seed;	// L + F <= H
		EXPECT_EQ(m.b.stats.leak_bytes, 0u) << seed;
		EXPECT_GT(m.b.stats.frames, 1000u) << seed;
	}
}

TEST(BifrostProperty, P2ABackloggedUpstreamNeverStarvesTheEgress)
{
	for (ll_u64 seed = 1; seed <= 10; seed++) {
		ll_bifrost_config c = Link(0);
		c.buffer_bytes = ll_bifrost_buffer_min(&c);
		SlotModel m(c, seed);
		Drain drain(m.b.slot_bytes);
		for (int n = 0; n < 100000; n++) {
			m.Step(drain.Next(m.rng, m.b.slot_bytes), ~0ull, true);
			if (::testing::Test::HasFatalFailure())
				return;
		}
		EXPECT_EQ(m.overflow_bytes, 0u) << seed;
		EXPECT_EQ(m.starved, 0u) << seed;
		EXPECT_EQ(m.lower_breaks, 0u) << seed;
		EXPECT_GT(m.b.stats.full_pauses, 100u) << seed;
	}
}

TEST(BifrostProperty, P3TooSmallABufferLosesThroughput)
{
	ll_bifrost_config c = Link(0);
	c.buffer_bytes = ll_bifrost_buffer_min(&c) - ll_bifrost_buffer_min(&c) / 100;
	ASSERT_NE(ll_bifrost_check(&c), nullptr);	// the check refuses it
	c.buffer_bytes = 0;
	ll_u64 small = 0;
	ll_u64 lower = 0, starved = 0;
	for (ll_u64 seed = 1; seed <= 5; seed++) {
		SlotModel m(c, seed);
		small = m.b.bdp_bytes + m.b.slot_bytes;		// Delta + B
		m.b.buffer_bytes = small;
		Drain drain(m.b.slot_bytes);
		for (int n = 0; n < 50000; n++)
			m.Step(drain.Next(m.rng, m.b.slot_bytes), ~0ull, true);
		lower += m.lower_breaks;
		starved += m.starved;
	}
	EXPECT_GT(lower, 0u);
	EXPECT_GT(starved, 0u);
}

TEST(BifrostProperty, P4AnUnderestimatedRttOverflowsByAboutTheError)
{
	ll_bifrost_config c = Link(0);
	c.buffer_bytes = ll_bifrost_buffer_min(&c);
	// A stall under a backlogged upstream, the true RTT 4 slots longer.
	SlotModel under(c, 1, 20 + 4), over(c, 1, 20 - 4);
	for (int n = 0; n < 2000; n++) {
		ll_u64 drain = n < 500 ? under.b.slot_bytes : 0;
		under.Step(drain, ~0ull, true);
		over.Step(drain, ~0ull, true);
	}
	const ll_u64 e = 4 * under.b.slot_bytes;
	EXPECT_GT(under.overflow_bytes, 0u);
	EXPECT_LE(under.overflow_bytes, e + under.b.slot_bytes);
	EXPECT_EQ(over.overflow_bytes, 0u);
}

// Fine time: the link at 1/16 of a slot per step, the pause a gate closed
// for its quanta, the slot timer late by up to the configured jitter (and
// now and then by whole slots). The buffer is the default: Delta + 3B +
// k MTU + 2 R_s J. Nothing may be lost.
struct TickModel {
	static constexpr ll_u64 kSteps = 16;
	ll_bifrost b{};
	ll_u64 rate, step_ns, step_bytes, one_way_steps;
	ll_u64 rx = 0, queue = 0, now = 0, gate_until = 0;
	ll_u64 open_ns = 0, sent = 0;	// the upstream's time open, bytes sent
	std::deque<ll_u64> wire;			// bytes per step, downstream
	std::deque<std::pair<ll_u64, ll_u64>> frames;	// (arrives at, pause ns)
	ll_u64 max_queue = 0;
	std::mt19937_64 rng;

	TickModel(const ll_bifrost_config &c, ll_u64 seed) : rng(seed)
	{
		ll_bifrost_init(&b, &c, 0, 0);
		rate = c.rate_bps;
		step_ns = c.slot_ns / kSteps;
		step_bytes = b.slot_bytes / kSteps;
		one_way_steps = c.rtt_ns / 2 / step_ns;
		wire.assign(one_way_steps, step_bytes);		// a full pipe
	}

	void Run(ll_u64 steps, ll_u64 jitter_ns, bool whole_slots)
	{
		ll_u64 drain = step_bytes, due = ll_bifrost_next_ns(&b) + Late(jitter_ns, whole_slots);
		for (ll_u64 i = 0; i < steps; i++) {
			now += step_ns;
			if (rng() % 2000 == 0)
				drain = rng() % 3 == 0 ? 0 : rng() % (step_bytes + 1);
			// Upstream: frames that arrived set the gate (the newest wins).
			while (!frames.empty() && frames.front().first <= now) {
				gate_until = frames.front().first + frames.front().second;
				frames.pop_front();
			}
			// Backlogged: it sends at line rate for the step's open part,
			// to the byte (a gate may open mid-step).
			ll_u64 start = now - step_ns;
			open_ns += now > gate_until ? now - std::max(start, gate_until) : 0;
			ll_u64 total = (ll_u64)((unsigned __int128)open_ns * rate / 8000000000ull);
			wire.push_back(total - sent);
			sent = total;
			ll_u64 r = wire.front();
			wire.pop_front();
			queue += r;
			rx += r;
			max_queue = std::max(max_queue, queue);
			queue -= std::min(queue, drain);
			if (now >= due) {
				ll_bifrost_decision d{};
				if (ll_bifrost_slot(&b, now, queue, rx, &d))
					frames.emplace_back(now + one_way_steps * step_ns,
							    ll_quanta_to_ns(d.quanta, rate));
				due = ll_bifrost_next_ns(&b) + Late(jitter_ns, whole_slots);
			}
		}
	}

	bool bimodal = false;	// on time, or late by the whole J

	ll_u64 Late(ll_u64 jitter_ns, bool whole_slots)
	{
		if (whole_slots && rng() % 500 == 0)
			return b.slot_ns * (1 + rng() % 3);
		if (bimodal)
			return rng() % 8 == 0 && jitter_ns > step_ns ? jitter_ns - step_ns : 0;
		// The slot runs at the first step at or after its time: up to a
		// step later than drawn, so draw within J - step.
		return jitter_ns > step_ns ? rng() % (jitter_ns - step_ns + 1) : 0;
	}
};

TEST(BifrostProperty, ALateSlotLoopWithinItsJitterLosesNothing)
{
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		const ll_u64 jitter = (seed % 3 + 1) * 10 * kUs;	// 1-3 slots
		ll_bifrost_config c = Link(0, jitter);
		TickModel m(c, seed);
		m.Run(400000, jitter, false);
		EXPECT_LE(m.max_queue, m.b.buffer_bytes)
			<< "seed " << seed << " jitter " << jitter << " late grants "
			<< m.b.stats.late_grant_bytes;
		EXPECT_GT(m.b.stats.max_late_ns, jitter / 2) << seed;
		EXPECT_GT(m.b.stats.full_pauses, 10u) << seed;
		EXPECT_EQ(m.b.stats.late_grant_bytes, 0u) << seed;
	}
}

TEST(BifrostProperty, TheLeastBufferHoldsUnderOnTimeAndLateSlots)
{
	// H = Delta + 2B + 2 R_s J, slots on time or the whole J late: the
	// change from one to the other is where a grant runs longest.
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		const ll_u64 jitter = (seed % 3 + 1) * 10 * kUs;
		ll_bifrost_config c = Link(0, jitter);
		c.buffer_bytes = ll_bifrost_buffer_min(&c);
		ASSERT_EQ(ll_bifrost_check(&c), nullptr);
		TickModel m(c, seed);
		m.bimodal = true;
		m.Run(400000, jitter, false);
		EXPECT_LE(m.max_queue, m.b.buffer_bytes) << "seed " << seed;
		EXPECT_GT(m.b.stats.full_pauses, 10u) << seed;
	}
}

TEST(BifrostProperty, LatenessBeyondTheJitterShowsInTheCounters)
{
	// Slots missed whole now and then, a buffer sized for no jitter: what
	// the late slots let through is counted, up to a few slots of bytes.
	ll_bifrost_config c = Link(0, 0);
	TickModel m(c, 7);
	m.Run(400000, 0, true);
	EXPECT_GT(m.b.stats.missed_slots, 10u);
	EXPECT_GE(m.b.stats.max_late_ns, c.slot_ns);
	EXPECT_GE(m.b.stats.late_grant_bytes, m.b.stats.missed_slots * m.b.slot_bytes / 2);
}

}  // namespace
