// Pause quanta <-> nanoseconds (kernel/core/pfc.c).
//
// One quantum is 512 bit times: at r bit/s, q quanta last q * 512 / r s,
// i.e. q * 512e9 / r ns. ll_quanta_to_ns rounds that up; ll_ns_to_quanta
// returns the fewest quanta covering ns, min(0xFFFF, ceil(ns * r / 512e9)).
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "core.h"

namespace {

using u128 = unsigned __int128;

constexpr ll_u64 kBitsX1e9 = 512ull * 1000000000ull;	// 512e9

constexpr ll_u64 M = 1000000ull;
constexpr ll_u64 G = 1000000000ull;

// Exact references in 128-bit arithmetic.
ll_u64 RefQuantaToNs(ll_u32 q, ll_u64 r)
{
	if (!r)
		return 0;
	u128 num = (u128)q * kBitsX1e9;
	return (ll_u64)((num + r - 1) / r);
}

ll_u32 RefNsToQuanta(ll_u64 ns, ll_u64 r)
{
	if (!ns)
		return 0;
	if (!r)
		return 0xFFFF;
	u128 num = (u128)ns * r;
	u128 q = (num + kBitsX1e9 - 1) / kBitsX1e9;
	return q > 0xFFFF ? 0xFFFF : (ll_u32)q;
}

// ------------------------------------------------------------ quanta -> ns

TEST(QuantaToNs, HundredMegabit)
{
	// 512 bits / 1e8 bit/s = 5.12e-6 s = 5120 ns.
	EXPECT_EQ(ll_quanta_to_ns(1, 100 * M), 5120u);
	EXPECT_EQ(ll_quanta_to_ns(2, 100 * M), 10240u);
	// 65535 * 5120 = 335539200.
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 100 * M), 335539200u);
}

TEST(QuantaToNs, Gigabit)
{
	// 512 bits / 1e9 bit/s = 512 ns; 65535 * 512 = 33553920.
	EXPECT_EQ(ll_quanta_to_ns(1, 1 * G), 512u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 1 * G), 33553920u);
}

TEST(QuantaToNs, TenGigabit)
{
	// 65535 * 512 = 33553920 bits; / 1e10 bit/s = 3.355392e-3 s
	// = 3355392 ns, exactly.
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 10 * G), 3355392u);
	// 512 / 1e10 s = 51.2 ns -> rounded up to 52.
	EXPECT_EQ(ll_quanta_to_ns(1, 10 * G), 52u);
	// 5 * 51.2 = 256 exactly; 10 * 51.2 = 512 exactly.
	EXPECT_EQ(ll_quanta_to_ns(5, 10 * G), 256u);
	EXPECT_EQ(ll_quanta_to_ns(10, 10 * G), 512u);
	// 6 * 51.2 = 307.2 -> 308.
	EXPECT_EQ(ll_quanta_to_ns(6, 10 * G), 308u);
}

TEST(QuantaToNs, TwentyFiveGigabit)
{
	// 512 / 25e9 s = 20.48 ns -> 21; 65535 * 20.48 = 1342156.8 -> 1342157.
	EXPECT_EQ(ll_quanta_to_ns(1, 25 * G), 21u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 25 * G), 1342157u);
	// 25 * 20.48 = 512 exactly.
	EXPECT_EQ(ll_quanta_to_ns(25, 25 * G), 512u);
}

TEST(QuantaToNs, HighRatesDoNotOverflow)
{
	// 100 Gbit: 5.12 ns -> 6; 65535 * 5.12 = 335539.2 -> 335540.
	EXPECT_EQ(ll_quanta_to_ns(1, 100 * G), 6u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 100 * G), 335540u);
	// 400 Gbit: 1.28 ns -> 2; 65535 * 1.28 = 83884.8 -> 83885.
	EXPECT_EQ(ll_quanta_to_ns(1, 400 * G), 2u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 400 * G), 83885u);
	// 800 Gbit: 0.64 ns -> 1; 65535 * 0.64 = 41942.4 -> 41943.
	EXPECT_EQ(ll_quanta_to_ns(1, 800 * G), 1u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 800 * G), 41943u);
	// 1.6 Tbit: 0.32 ns -> 1; 65535 * 0.32 = 20971.2 -> 20972.
	EXPECT_EQ(ll_quanta_to_ns(1, 1600 * G), 1u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 1600 * G), 20972u);
	// 1 Pbit/s: 65535 * 512e9 / 1e15 = 33.55392 -> 34.
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 1000000 * G), 34u);
}

TEST(QuantaToNs, OddRatesRoundUp)
{
	// 1 quantum at 3 bit/s: 512 / 3 s = 170666666666.67 ns -> ...667.
	EXPECT_EQ(ll_quanta_to_ns(1, 3), 170666666667ull);
	// 3 quanta at 3 bit/s: 512 s exactly.
	EXPECT_EQ(ll_quanta_to_ns(3, 3), 512000000000ull);
	// 65535 / 3 = 21845 exactly, so 21845 * 512 s = 11184640 s.
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 3), 11184640000000000ull);
	// 1 quantum at 7 bit/s: 512e9 / 7 = 73142857142.857 -> ...143.
	EXPECT_EQ(ll_quanta_to_ns(1, 7), 73142857143ull);
	// The slowest rate, 1 bit/s: 65535 * 512 s = 33553920 s.
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 1), 33553920000000000ull);
	// 1e9 + 7 bit/s: 512e9 / (1e9 + 7) = 511.999996416 -> 512.
	EXPECT_EQ(ll_quanta_to_ns(1, 1 * G + 7), 512u);
	// 1e9 - 1: 512e9 / 999999999 = 512.000000512 -> 513.
	EXPECT_EQ(ll_quanta_to_ns(1, 1 * G - 1), 513u);
}

TEST(QuantaToNs, ZeroQuantaAndZeroRate)
{
	EXPECT_EQ(ll_quanta_to_ns(0, 1), 0u);
	EXPECT_EQ(ll_quanta_to_ns(0, 10 * G), 0u);
	EXPECT_EQ(ll_quanta_to_ns(0, 0), 0u);
	EXPECT_EQ(ll_quanta_to_ns(1, 0), 0u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, 0), 0u);
}

// ------------------------------------------------------------ ns -> quanta

TEST(NsToQuanta, ZeroNsIsXon)
{
	EXPECT_EQ(ll_ns_to_quanta(0, 1), 0u);
	EXPECT_EQ(ll_ns_to_quanta(0, 10 * G), 0u);
	EXPECT_EQ(ll_ns_to_quanta(0, 1600 * G), 0u);
}

TEST(NsToQuanta, ZeroNsIsXonEvenAtUnknownRate)
{
	// 0 ns asks for XON; it must not turn into the longest XOFF because
	// the rate is not known.
	EXPECT_EQ(ll_ns_to_quanta(0, 0), 0u);
}

TEST(NsToQuanta, ZeroRateSaturates)
{
	EXPECT_EQ(ll_ns_to_quanta(1, 0), 0xFFFFu);
	EXPECT_EQ(ll_ns_to_quanta(1000000, 0), 0xFFFFu);
	EXPECT_EQ(ll_ns_to_quanta(UINT64_MAX, 0), 0xFFFFu);
}

TEST(NsToQuanta, OneNsIsOneQuantum)
{
	// ceil(1 * r / 512e9) = 1 for every r <= 512e9.
	for (ll_u64 r : {ll_u64(1), ll_u64(3), 10 * M, 100 * M, 1 * G, 10 * G,
			 25 * G, 100 * G, 400 * G, 512 * G})
		EXPECT_EQ(ll_ns_to_quanta(1, r), 1u) << r;
	// Above 512 Gbit one ns is more than one quantum: at 1.6 Tbit,
	// 1 ns = 1600 bits = 3.125 quanta -> 4.
	EXPECT_EQ(ll_ns_to_quanta(1, 1600 * G), 4u);
}

TEST(NsToQuanta, HundredMegabit)
{
	// 5120 ns per quantum.
	EXPECT_EQ(ll_ns_to_quanta(5119, 100 * M), 1u);
	EXPECT_EQ(ll_ns_to_quanta(5120, 100 * M), 1u);
	EXPECT_EQ(ll_ns_to_quanta(5121, 100 * M), 2u);
	EXPECT_EQ(ll_ns_to_quanta(10240, 100 * M), 2u);
	// 1 ms = 1e6 / 5120 = 195.3125 -> 196.
	EXPECT_EQ(ll_ns_to_quanta(1000000, 100 * M), 196u);
}

TEST(NsToQuanta, TenGigabitAndSaturation)
{
	// 51.2 ns per quantum; the longest pause is 3355392 ns.
	EXPECT_EQ(ll_ns_to_quanta(51, 10 * G), 1u);
	EXPECT_EQ(ll_ns_to_quanta(52, 10 * G), 2u);	// 52 / 51.2 = 1.016
	EXPECT_EQ(ll_ns_to_quanta(512, 10 * G), 10u);
	// 3355340 / 51.2 = 65533.98 -> 65534; 3355341 / 51.2 = 65534.002
	// -> 65535; 3355391 -> 65534.98 -> 65535; 3355392 = 65535 quanta.
	EXPECT_EQ(ll_ns_to_quanta(3355340, 10 * G), 65534u);
	EXPECT_EQ(ll_ns_to_quanta(3355341, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(3355391, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(3355392, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(3355393, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(1000000000, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(UINT64_MAX, 10 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(UINT64_MAX, 1), 65535u);
	// 1 bit/s: 65535 quanta = 33553920 s; one ns less is still 65535.
	EXPECT_EQ(ll_ns_to_quanta(33553920000000000ull, 1), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(33553920000000000ull - 512000000000ull, 1),
		  65534u);
}

TEST(NsToQuanta, HighRates)
{
	// 400 Gbit: ns * 0.78125 quanta. 1000 -> 781.25 -> 782;
	// 83883 -> 65533.59 -> 65534; 83884 -> 65534.375 -> 65535; 83885
	// and beyond saturate.
	EXPECT_EQ(ll_ns_to_quanta(1000, 400 * G), 782u);
	EXPECT_EQ(ll_ns_to_quanta(83883, 400 * G), 65534u);
	EXPECT_EQ(ll_ns_to_quanta(83884, 400 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(83885, 400 * G), 65535u);
	// 1.6 Tbit: ns * 3.125. 1000 -> 3125; 20000 -> 62500;
	// 20971 -> 65534.375 -> 65535; 20972 saturates.
	EXPECT_EQ(ll_ns_to_quanta(1000, 1600 * G), 3125u);
	EXPECT_EQ(ll_ns_to_quanta(20000, 1600 * G), 62500u);
	EXPECT_EQ(ll_ns_to_quanta(20971, 1600 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(20972, 1600 * G), 65535u);
	EXPECT_EQ(ll_ns_to_quanta(UINT64_MAX, 1600 * G), 65535u);
}

// ------------------------------------------------------ round trips, exact

const ll_u64 kRates[] = {1,      3,       7,        1000,     10 * M,
			 100 * M, 1 * G,  1 * G + 7, 1 * G - 1, 10 * G,
			 25 * G,  40 * G, 50 * G,   100 * G,  200 * G,
			 400 * G, 512 * G};

TEST(QuantaRoundTrip, EveryQuantumAtFixedRates)
{
	// For each rate (all <= 512 Gbit) and every q:
	//  - quanta_to_ns equals the exact ceil(q * 512e9 / r);
	//  - converting back gives q when q quanta are a whole number of ns,
	//    else q + 1 (the rounded-up ns is a little more than q quanta:
	//    T * r / 512e9 is in (q, q + r / 512e9] and r / 512e9 <= 1), capped
	//    at 0xFFFF;
	//  - converting back floor(q * 512e9 / r) ns gives exactly q.
	for (ll_u64 r : kRates) {
		for (ll_u32 q = 0; q <= 0xFFFF; q++) {
			ll_u64 t = ll_quanta_to_ns(q, r);
			ASSERT_EQ(t, RefQuantaToNs(q, r)) << q << " @ " << r;
			bool exact = ((u128)q * kBitsX1e9) % r == 0;
			ll_u32 want = exact ? q : q + 1;
			if (want > 0xFFFF)
				want = 0xFFFF;
			ASSERT_EQ(ll_ns_to_quanta(t, r), want) << q << " @ " << r;
			ll_u64 floor_ns = (ll_u64)(((u128)q * kBitsX1e9) / r);
			ASSERT_EQ(ll_ns_to_quanta(floor_ns, r), q)
				<< q << " @ " << r;
		}
	}
}

TEST(QuantaRoundTrip, ExactRatesRoundTripExactly)
{
	// At 100 Mbit and 1 Gbit every quantum is a whole number of ns (5120,
	// 512), so ns_to_quanta(quanta_to_ns(q)) == q for every q.
	for (ll_u64 r : {100 * M, 1 * G})
		for (ll_u32 q = 0; q <= 0xFFFF; q++)
			ASSERT_EQ(ll_ns_to_quanta(ll_quanta_to_ns(q, r), r), q)
				<< q << " @ " << r;
}

TEST(QuantaRoundTrip, RoundedUpNsNeedsOneMoreQuantum)
{
	// 1 quantum at 10 Gbit is 51.2 ns, reported as 52 ns; 52 ns is
	// 52 / 51.2 = 1.016 quanta, so covering it takes 2.
	EXPECT_EQ(ll_quanta_to_ns(1, 10 * G), 52u);
	EXPECT_EQ(ll_ns_to_quanta(52, 10 * G), 2u);
	// Above 512 Gbit a quantum is less than a ns: at 1.6 Tbit 1 quantum
	// -> 1 ns -> 4 quanta.
	EXPECT_EQ(ll_ns_to_quanta(ll_quanta_to_ns(1, 1600 * G), 1600 * G), 4u);
}

// Log-uniform random rate in [1, 2^hi_bits).
ll_u64 RandomRate(std::mt19937_64 &rng, int hi_bits)
{
	int bits = std::uniform_int_distribution<int>(1, hi_bits)(rng);
	ll_u64 hi = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	return std::uniform_int_distribution<ll_u64>(1ull << (bits - 1), hi)(rng);
}

TEST(QuantaRoundTrip, RandomNsAgainstReference)
{
	std::mt19937_64 rng(0x11055);
	for (int i = 0; i < 300000; i++) {
		// Rates up to 2^50 (~1.1 Pbit/s); ns up to 2^62.
		ll_u64 r = RandomRate(rng, 50);
		int ns_bits = std::uniform_int_distribution<int>(0, 62)(rng);
		ll_u64 ns = ns_bits ? std::uniform_int_distribution<ll_u64>(
					      0, (1ull << ns_bits) - 1)(rng)
				    : 0;
		ll_u32 q = ll_ns_to_quanta(ns, r);
		ASSERT_EQ(q, RefNsToQuanta(ns, r)) << ns << " ns @ " << r;
		ASSERT_LE(q, 0xFFFFu);
		if (ns) {
			ASSERT_GE(q, 1u);
		}
		// The pause covers ns unless it was capped at the longest one.
		if (q != 0xFFFF) {
			ASSERT_GE(ll_quanta_to_ns(q, r), ns)
				<< ns << " ns @ " << r;
		}
		// Fewest: q - 1 quanta are strictly shorter than ns (exact:
		// (q - 1) * 512e9 < ns * r).
		if (q >= 1 && q != 0xFFFF) {
			ASSERT_LT((u128)(q - 1) * kBitsX1e9, (u128)ns * r);
		}
	}
}

TEST(QuantaRoundTrip, RandomQuantaAgainstReference)
{
	std::mt19937_64 rng(0xC0FFEE);
	for (int i = 0; i < 300000; i++) {
		ll_u64 r = RandomRate(rng, 60);
		ll_u32 q = std::uniform_int_distribution<ll_u32>(0, 0xFFFF)(rng);
		ll_u64 t = ll_quanta_to_ns(q, r);
		ASSERT_EQ(t, RefQuantaToNs(q, r)) << q << " @ " << r;
		// t covers q quanta and t - 1 does not.
		ASSERT_GE((u128)t * r, (u128)q * kBitsX1e9);
		if (t) {
			ASSERT_LT((u128)(t - 1) * r, (u128)q * kBitsX1e9);
		}
		if (r <= 512 * G) {
			bool exact = ((u128)q * kBitsX1e9) % r == 0;
			ll_u32 want = exact || q == 0xFFFF ? q : q + 1;
			ASSERT_EQ(ll_ns_to_quanta(t, r), want) << q << " @ " << r;
		}
	}
}

TEST(QuantaRoundTrip, MonotoneInNs)
{
	for (ll_u64 r : {ll_u64(3), 10 * G, 25 * G, 400 * G}) {
		ll_u32 prev = 0;
		ll_u64 end = ll_quanta_to_ns(0xFFFF, r);
		ll_u64 step = end / 200000 + 1;
		for (ll_u64 ns = 0; ns <= end + step; ns += step) {
			ll_u32 q = ll_ns_to_quanta(ns, r);
			ASSERT_GE(q, prev) << ns << " @ " << r;
			prev = q;
		}
		EXPECT_EQ(prev, 0xFFFFu);
	}
}

// Found by tests/fuzz (fuzz_frame_*): rounding up by adding rate - 1 wrapped
// for rates near 2^64, and quanta above 0xFFFF overflowed the product.
TEST(QuantaToNs, RatesNearTheTopOfU64)
{
	EXPECT_EQ(ll_quanta_to_ns(1, UINT64_MAX), 1u);
	EXPECT_EQ(ll_quanta_to_ns(0xFFFF, UINT64_MAX), 1u);
	for (ll_u64 r : {ll_u64(UINT64_MAX), ll_u64(UINT64_MAX - 1), ll_u64(1) << 63,
			 (ll_u64(1) << 63) + 12345})
		for (ll_u32 q : {1u, 2u, 100u, 0xFFFFu})
			EXPECT_EQ(ll_quanta_to_ns(q, r), RefQuantaToNs(q, r)) << q << " @ " << r;
	EXPECT_EQ(ll_ns_to_quanta(1, UINT64_MAX), 0xFFFFu);
}

TEST(QuantaToNs, MoreThanAFrameCarriesSaturates)
{
	for (ll_u64 r : {ll_u64(1), ll_u64(8000), 10 * G, 1600 * G, UINT64_MAX}) {
		ll_u64 max = ll_quanta_to_ns(0xFFFF, r);
		EXPECT_EQ(ll_quanta_to_ns(0x10000, r), max) << r;
		EXPECT_EQ(ll_quanta_to_ns(0x10000000, r), max) << r;
		EXPECT_EQ(ll_quanta_to_ns(UINT32_MAX, r), max) << r;
	}
}

} // namespace
