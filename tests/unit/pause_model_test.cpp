// Randomized check of the pause gates against a reference model.
//
// The model keeps the list of closed intervals [start, end) of a gate
// instead of running totals: an XOFF at t either moves the end of the
// current interval (t < end: still closed) or starts a new [t, t + d); an
// XON at t cuts the current interval at t. The gate is closed at t iff
// t < end of the last interval, and its closed time up to t is the sum of
// min(end, t) - start. The only state besides is "flag": whether the gate
// was last seen closed by a call (the core reports changes relative to
// what it last told the caller).
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "core.h"

namespace {

using u128 = unsigned __int128;

ll_u64 DurationNs(ll_u32 q, ll_u64 rate)
{
	// ceil(q * 512 * 1e9 / rate), exactly.
	u128 num = (u128)q * 512u * 1000000000u;
	return (ll_u64)((num + rate - 1) / rate);
}

struct Interval {
	ll_u64 start, end;
};

struct ModelGate {
	std::vector<Interval> iv;
	bool flag = false;	// closed as far as the caller was told
	ll_u64 xoff = 0, xon = 0;

	bool ClosedAt(ll_u64 t) const { return !iv.empty() && t < iv.back().end; }

	ll_u64 ClosedNs(ll_u64 t) const
	{
		ll_u64 sum = 0;
		for (const Interval &i : iv)
			if (t > i.start)
				sum += (t < i.end ? t : i.end) - i.start;
		return sum;
	}

	ll_gate_event Expire(ll_u64 t)
	{
		if (flag && !ClosedAt(t)) {
			flag = false;
			return LL_GATE_OPENED;
		}
		return LL_GATE_NONE;
	}

	ll_gate_event Apply(ll_u64 t, ll_u32 q, ll_u64 rate)
	{
		bool was_flag = flag;
		if (q == 0) {
			xon++;
			if (ClosedAt(t))
				iv.back().end = t;
			flag = false;
			return was_flag ? LL_GATE_OPENED : LL_GATE_NONE;
		}
		xoff++;
		ll_u64 end = t + DurationNs(q, rate);
		if (ClosedAt(t))
			iv.back().end = end;
		else
			iv.push_back({t, end});
		flag = true;
		return was_flag ? LL_GATE_REFRESHED : LL_GATE_CLOSED;
	}
};

void ExpectSame(const ll_pause_gate &g, const ModelGate &m, ll_u64 now,
		const char *what)
{
	ASSERT_EQ(g.closed != 0, m.flag) << what << " at " << now;
	if (m.flag) {
		ASSERT_EQ(g.until_ns, m.iv.back().end) << what << " at " << now;
	}
	ASSERT_EQ(g.xoff_frames, m.xoff) << what;
	ASSERT_EQ(g.xon_frames, m.xon) << what;
	ASSERT_EQ(ll_gate_closed_ns(&g, now), m.ClosedNs(now))
		<< what << " at " << now;
}

const ll_u64 kRates[] = {3,           1000000,      100000000,
			 1000000000,  1000000007,   10000000000,
			 25000000000, 100000000000, 400000000000,
			 1600000000000};

ll_u32 RandomQuanta(std::mt19937_64 &rng)
{
	switch (std::uniform_int_distribution<int>(0, 7)(rng)) {
	case 0:
	case 1:
		return 0;	// XON
	case 2:
		return 0xFFFF;
	case 3:
		return 1;
	case 4:
		return std::uniform_int_distribution<ll_u32>(1, 16)(rng);
	default:
		return std::uniform_int_distribution<ll_u32>(1, 0xFFFF)(rng);
	}
}

// A time step mixing zero steps, small steps around typical durations, and
// long gaps; scaled to the durations seen at this rate.
ll_u64 RandomStep(std::mt19937_64 &rng, ll_u64 rate)
{
	ll_u64 q1 = DurationNs(1, rate);
	ll_u64 qmax = DurationNs(0xFFFF, rate);
	switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
	case 0:
		return 0;
	case 1:
		return std::uniform_int_distribution<ll_u64>(0, 4 * q1)(rng);
	case 2:
		return std::uniform_int_distribution<ll_u64>(0, 64 * q1)(rng);
	case 3:
		return std::uniform_int_distribution<ll_u64>(0, qmax)(rng);
	case 4:
		return std::uniform_int_distribution<ll_u64>(0, 3 * qmax)(rng);
	default:
		return std::uniform_int_distribution<ll_u64>(0, 1000)(rng);
	}
}

TEST(GateModel, RandomSequencesSingleGate)
{
	std::mt19937_64 rng(20240607);
	for (int seq = 0; seq < 3000; seq++) {
		ll_u64 rate = kRates[seq % (sizeof(kRates) / sizeof(kRates[0]))];
		ll_u64 now = std::uniform_int_distribution<ll_u64>(
			1, 1ull << 50)(rng);
		ll_pause_gate g;
		std::memset(&g, 0, sizeof(g));
		ModelGate m;
		for (int ev = 0; ev < 200; ev++) {
			now += RandomStep(rng, rate);
			int kind = std::uniform_int_distribution<int>(0, 3)(rng);
			if (kind == 0) {
				ll_gate_event want = m.Expire(now);
				ASSERT_EQ(ll_gate_expire(&g, now), want)
					<< "seq " << seq << " ev " << ev;
				ExpectSame(g, m, now, "expire");
			} else {
				ll_u32 q = RandomQuanta(rng);
				ll_gate_event want = m.Apply(now, q, rate);
				ASSERT_EQ(ll_gate_apply(&g, now, q, rate), want)
					<< "seq " << seq << " ev " << ev
					<< " q " << q;
				ExpectSame(g, m, now, "apply");
			}
			// A read-only look ahead must agree too.
			ll_u64 later = now + RandomStep(rng, rate);
			ASSERT_EQ(ll_gate_closed_ns(&g, later), m.ClosedNs(later))
				<< "seq " << seq << " ev " << ev;
		}
		// Drain: far in the future every gate is open and the totals
		// are the sums of the intervals.
		ll_u64 end = now + DurationNs(0xFFFF, rate) + 1;
		ASSERT_EQ(ll_gate_expire(&g, end), m.Expire(end));
		ASSERT_EQ(g.closed, 0);
		ASSERT_EQ(g.closed_ns_total, m.ClosedNs(end));
	}
}

TEST(GateModel, RandomSequencesPort)
{
	std::mt19937_64 rng(0xFEEDBEEF);
	for (int seq = 0; seq < 1000; seq++) {
		ll_u64 rate = kRates[seq % (sizeof(kRates) / sizeof(kRates[0]))];
		ll_u64 now = std::uniform_int_distribution<ll_u64>(
			1, 1ull << 50)(rng);
		ll_port_pause p;
		std::memset(&p, 0, sizeof(p));
		ModelGate m[LL_GATES];
		for (int ev = 0; ev < 200; ev++) {
			now += RandomStep(rng, rate);
			int kind = std::uniform_int_distribution<int>(0, 4)(rng);
			ll_u32 want_mask = 0;
			if (kind == 0) {
				for (int i = 0; i < LL_GATES; i++)
					if (m[i].Expire(now) == LL_GATE_OPENED)
						want_mask |= 1u << i;
				ASSERT_EQ(ll_port_pause_expire(&p, now), want_mask)
					<< "seq " << seq << " ev " << ev;
			} else {
				ll_ctrl_msg f;
				std::memset(&f, 0, sizeof(f));
				if (kind == 1) {
					f.kind = LL_CTRL_PAUSE;
					f.gate_mask = 1;
					f.value[0] = (ll_u16)RandomQuanta(rng);
					ll_gate_event e = m[LL_GATE_PORT].Apply(
						now, f.value[0], rate);
					if (e == LL_GATE_CLOSED || e == LL_GATE_OPENED)
						want_mask = 1u << LL_GATE_PORT;
				} else {
					f.kind = LL_CTRL_PFC;
					f.gate_mask = (ll_u8)rng();
					for (int i = 0; i < 8; i++) {
						f.value[i] = (ll_u16)RandomQuanta(rng);
						if (!(f.gate_mask & (1u << i)))
							continue;
						ll_gate_event e = m[i].Apply(
							now, f.value[i], rate);
						if (e == LL_GATE_CLOSED ||
						    e == LL_GATE_OPENED)
							want_mask |= 1u << i;
					}
				}
				ASSERT_EQ(ll_port_pause_rx(&p, now, &f, rate),
					  want_mask)
					<< "seq " << seq << " ev " << ev;
			}
			ll_u32 closed = 0;
			ll_u64 next = 0;
			for (int i = 0; i < LL_GATES; i++) {
				ExpectSame(p.gates[i], m[i], now, "port");
				if (m[i].flag) {
					closed |= 1u << i;
					ll_u64 e = m[i].iv.back().end;
					if (!next || e < next)
						next = e;
				}
			}
			ASSERT_EQ(ll_port_pause_closed_mask(&p), closed);
			ASSERT_EQ(ll_port_pause_next_deadline(&p), next);
		}
	}
}

} // namespace
