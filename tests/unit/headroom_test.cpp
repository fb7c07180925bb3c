// Static PFC headroom (kernel/core/headroom.c): hand-computed values for
// each term of the formula, rounding, limits, and a randomised check
// against an exact 128-bit reference.
#include <gtest/gtest.h>

#include <random>

extern "C" {
#include "headroom.h"
}

namespace {

constexpr ll_u64 kMbit = 1000000ull;
constexpr ll_u64 kGbit = 1000000000ull;

ll_headroom_params Params(ll_u64 rate, ll_u64 cable_ns, ll_u32 mtu, ll_u64 sw_ns)
{
	ll_headroom_params p{};
	p.rate_bps = rate;
	p.cable_delay_ns = cable_ns;
	p.mtu_bytes = mtu;
	p.sw_response_ns = sw_ns;
	return p;
}

TEST(BytesInNs, HandComputed)
{
	// 100 Mbit/s = 12.5 bytes per us.
	EXPECT_EQ(ll_bytes_in_ns(100 * kMbit, 1000), 13u);	// 12.5 -> 13
	EXPECT_EQ(ll_bytes_in_ns(100 * kMbit, 2000), 25u);
	EXPECT_EQ(ll_bytes_in_ns(100 * kMbit, 1000000), 12500u);
	// 10 Gbit/s for 3 us = 3750 bytes; 100 Gbit/s for 4 us = 50000.
	EXPECT_EQ(ll_bytes_in_ns(10 * kGbit, 3000), 3750u);
	EXPECT_EQ(ll_bytes_in_ns(100 * kGbit, 4000), 50000u);
	// One bit is a whole byte (rounded up); nothing in 0 ns.
	EXPECT_EQ(ll_bytes_in_ns(1, 1), 1u);
	EXPECT_EQ(ll_bytes_in_ns(100 * kGbit, 0), 0u);
	EXPECT_EQ(ll_bytes_in_ns(0, 1000), 0u);
	// 1.6 Tbit/s for 2^31 ns: 429,496,729,600 bytes, exactly.
	EXPECT_EQ(ll_bytes_in_ns(1600 * kGbit, 1ull << 31), 429496729600ull);
	// Outside the exact range: saturate, never underestimate.
	EXPECT_EQ(ll_bytes_in_ns(1600 * kGbit + 1, 1), ~0ull);
	EXPECT_EQ(ll_bytes_in_ns(kGbit, (1ull << 31) + 1), ~0ull);
}

TEST(PeerResponse, Ieee8023Annex31BTable)
{
	EXPECT_EQ(ll_peer_response_quanta(10 * kMbit), 1u);
	EXPECT_EQ(ll_peer_response_quanta(100 * kMbit), 1u);
	EXPECT_EQ(ll_peer_response_quanta(100 * kMbit + 1), 2u);
	EXPECT_EQ(ll_peer_response_quanta(kGbit), 2u);
	EXPECT_EQ(ll_peer_response_quanta(10 * kGbit), 60u);	// 3840 bytes
	EXPECT_EQ(ll_peer_response_quanta(25 * kGbit), 80u);
	EXPECT_EQ(ll_peer_response_quanta(40 * kGbit), 118u);
	EXPECT_EQ(ll_peer_response_quanta(50 * kGbit), 147u);
	EXPECT_EQ(ll_peer_response_quanta(100 * kGbit), 394u);
	EXPECT_EQ(ll_peer_response_quanta(200 * kGbit), 453u);
	EXPECT_EQ(ll_peer_response_quanta(400 * kGbit), 905u);
}

// The example: 100 Mbit/s, no cable delay, MTU 1500, 1 ms of software
// reaction:
//   3 * 1500                  4500   frame ahead of our PFC on the reverse
//                                    link + frame in progress upstream +
//                                    the store-and-forward trigger frame
//   2 * 0 ns of cable            0
//   PFC frame                   64
//   1 quantum at 100M           64   (802.3 31B: 1 pause quantum)
//   1e8 b/s * 1e-3 s / 8     12500   software reaction, the dominant term
//   total                    17128
TEST(Headroom, SoftwareSwitchAt100Mbit)
{
	ll_headroom_params p = Params(100 * kMbit, 0, 1500, 1000000);
	EXPECT_EQ(ll_headroom_bytes(&p), 17128u);
	p.round_bytes = 1500;		// whole MTU cells: 12 * 1500
	EXPECT_EQ(ll_headroom_bytes(&p), 18000u);
	p.round_bytes = 1024;		// SONiC rounds to 1 KiB: 17 * 1024
	EXPECT_EQ(ll_headroom_bytes(&p), 17408u);
	p.round_bytes = 1;
	EXPECT_EQ(ll_headroom_bytes(&p), 17128u);
}

// dsh.md Eq. 1 is 2 (C D_prop + MTU) + 3840 B; ours adds one MTU (store
// and forward admission) and the PFC frame (64 B), and takes the
// upstream's reaction from the 802.3 table (3840 B at 10G, the same as
// Eq. 1; 394 quanta = 25,216 B at 100G, where Eq. 1 keeps 3840).
TEST(Headroom, MatchesDshEquationOnePlusPfcFrame)
{
	// 10G, 1.5 us: Eq. 1 gives 10,590 (dsh.md 2.3 table).
	ll_headroom_params p = Params(10 * kGbit, 1500, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 10590u + 1500u + 64u);
	// 40G, 1.5 us: Eq. 1 gives 21,840 with 3840; the table says 118 quanta.
	p = Params(40 * kGbit, 1500, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 21840u - 3840u + 118u * 64u + 1500u + 64u);
	p.peer_response_quanta = 60;	// force Eq. 1's 3840 B
	EXPECT_EQ(ll_headroom_bytes(&p), 21840u + 1500u + 64u);
	// 100G, 2 us: 4500 + 50000 + 64 + 25216 = 79,780.
	p = Params(100 * kGbit, 2000, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 79780u);
}

TEST(Headroom, EachTermAddsItsBytes)
{
	ll_headroom_params base = Params(kGbit, 0, 1500, 0);
	// 1G: 4500 + 64 + 2 * 64 = 4692.
	EXPECT_EQ(ll_headroom_bytes(&base), 4692u);

	ll_headroom_params p = base;
	p.cable_delay_ns = 1000;	// 2 us at 1G = 250 bytes
	EXPECT_EQ(ll_headroom_bytes(&p), 4692u + 250u);
	p = base;
	p.sw_response_ns = 100000;	// 100 us at 1G = 12,500 bytes
	EXPECT_EQ(ll_headroom_bytes(&p), 4692u + 12500u);
	p = base;
	p.queued_bytes = 4096;		// a BQL limit
	EXPECT_EQ(ll_headroom_bytes(&p), 4692u + 4096u);
	p = base;
	p.mtu_bytes = 9000;		// jumbo frames
	EXPECT_EQ(ll_headroom_bytes(&p), 27000u + 192u);
	p = base;
	p.peer_response_quanta = 10;
	EXPECT_EQ(ll_headroom_bytes(&p), 4500u + 64u + 640u);
	p = base;
	p.shaper_burst_bytes = 125000;	// a 1 ms catch-up at 1G (term 9)
	EXPECT_EQ(ll_headroom_bytes(&p), 4692u + 125000u);
}

TEST(Headroom, InvalidInputGivesZero)
{
	ll_headroom_params p = Params(0, 0, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
	p = Params(LL_HEADROOM_MAX_RATE_BPS + 1, 0, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
	p = Params(kGbit, 0, 0, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
	p = Params(kGbit, 0, LL_HEADROOM_MAX_MTU_BYTES + 1, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
	p = Params(kGbit, LL_HEADROOM_MAX_DELAY_NS + 1, 1500, 0);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
	p = Params(kGbit, 0, 1500, LL_HEADROOM_MAX_DELAY_NS + 1);
	EXPECT_EQ(ll_headroom_bytes(&p), 0u);
}

TEST(Headroom, LimitsDoNotOverflow)
{
	// 1.6 Tbit/s, 1 s cable, 1 s software, 1 MiB frames.
	ll_headroom_params p = Params(LL_HEADROOM_MAX_RATE_BPS, LL_HEADROOM_MAX_DELAY_NS,
				      LL_HEADROOM_MAX_MTU_BYTES, LL_HEADROOM_MAX_DELAY_NS);
	ll_u64 expect = 3ull * (1u << 20) + 400000000000ull + 64 + 905 * 64 +
			200000000000ull;
	EXPECT_EQ(ll_headroom_bytes(&p), expect);
}

using u128 = unsigned __int128;

ll_u64 CeilDiv(u128 n, u128 d)
{
	return (ll_u64)((n + d - 1) / d);
}

TEST(Headroom, RandomAgainstExactReference)
{
	std::mt19937_64 rng(42);
	for (int i = 0; i < 100000; i++) {
		ll_headroom_params p{};
		p.rate_bps = 1 + rng() % LL_HEADROOM_MAX_RATE_BPS;
		p.cable_delay_ns = rng() % (LL_HEADROOM_MAX_DELAY_NS + 1);
		p.sw_response_ns = rng() % (LL_HEADROOM_MAX_DELAY_NS + 1);
		if (i % 2) {	// realistic magnitudes half of the time
			p.cable_delay_ns %= 100000;
			p.sw_response_ns %= 10000000;
		}
		p.mtu_bytes = 1 + rng() % LL_HEADROOM_MAX_MTU_BYTES;
		p.queued_bytes = rng() % 1000000;
		p.peer_response_quanta = rng() % 1000;
		p.round_bytes = rng() % 3 ? 0 : rng() % 10000;

		ll_u64 quanta = p.peer_response_quanta ? p.peer_response_quanta :
				ll_peer_response_quanta(p.rate_bps);
		u128 bytes = 3 * (u128)p.mtu_bytes + 64 + quanta * 64 + p.queued_bytes;
		bytes += CeilDiv((u128)p.rate_bps * 2 * p.cable_delay_ns, 8000000000ull);
		bytes += CeilDiv((u128)p.rate_bps * p.sw_response_ns, 8000000000ull);
		if (p.round_bytes > 1)
			bytes = CeilDiv(bytes, p.round_bytes) * (u128)p.round_bytes;
		ASSERT_EQ(ll_headroom_bytes(&p), (ll_u64)bytes)
			<< "rate " << p.rate_bps << " cable " << p.cable_delay_ns
			<< " sw " << p.sw_response_ns << " mtu " << p.mtu_bytes;
	}
}

} // namespace
