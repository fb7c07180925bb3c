// The port's line-rate shaper (kernel/core/shaper.c) under simulated timer
// lateness: a backlogged port keeps its rate whatever its wake-ups' lateness
// (within the catch-up), never sends more than rate x window + the catch-up
// in any window, and an idle or paused port gains no more than its burst.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

extern "C" {
#include "headroom.h"
#include "shaper.h"
#include "lossless.h"
}

namespace {

constexpr std::uint64_t kMs = 1000000ULL;

struct Send {
  std::uint64_t at_ns;
  std::uint32_t len;
};

struct SendLog {
  std::vector<Send> sends;
  std::uint64_t end_ns = 0;
};

// A port that always has a packet: dequeue sends while the shaper lets it,
// then sleeps until the time it returns, waking up late by a random amount
// in [0, max_late_ns] (the watchdog and softirq under load).
SendLog backlogged(ll_shaper &s, std::size_t packets, std::uint64_t max_late_ns, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> late(0, max_late_ns);
  // Mixed sizes: mostly full frames, some small, some in between.
  std::discrete_distribution<int> kind({60, 30, 10});
  std::uniform_int_distribution<std::uint32_t> mid(65, 1513);
  SendLog r;
  r.sends.reserve(packets);
  std::uint64_t now = 1000 * kMs;
  ll_shaper_reset(&s, now);
  while (r.sends.size() < packets) {
    int k = kind(rng);
    std::uint32_t len = k == 0 ? 1514 : k == 1 ? 64 : mid(rng);
    for (;;) {
      std::uint64_t wait = ll_shaper_take(&s, len, now);
      if (!wait)
        break;
      now = wait + late(rng);
    }
    r.sends.push_back({now, len});
  }
  r.end_ns = now;
  return r;
}

// Largest excess over any window [t_i, t_j] of the link time of the bytes
// sent in it over the window's length, in ns: max over j of
// (C_j - t_j) - min_{i <= j} (C_{i-1} - t_i), C the cumulative link time.
std::int64_t worst_window_excess_ns(const ll_shaper &s, const SendLog &r) {
  std::int64_t cum = 0, best_start = INT64_MAX, worst = INT64_MIN;
  for (const Send &x : r.sends) {
    best_start = std::min(best_start, cum - static_cast<std::int64_t>(x.at_ns));
    cum += static_cast<std::int64_t>(ll_shaper_len_ns(&s, x.len));
    worst = std::max(worst, cum - static_cast<std::int64_t>(x.at_ns) - best_start);
  }
  return worst;
}

double long_run_rate_bps(const SendLog &r) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i + 1 < r.sends.size(); i++)  // the last one starts the end
    bytes += r.sends[i].len;
  return double(bytes) * 8e9 / double(r.sends.back().at_ns - r.sends.front().at_ns);
}

struct Case {
  std::uint64_t rate_bps;
  std::uint32_t burst_bytes;
  std::uint64_t catchup_ns;  // of line rate
};

class ShaperLateness : public ::testing::TestWithParam<Case> {};

TEST_P(ShaperLateness, KeepsRateAndBoundsEveryWindow) {
  const Case c = GetParam();
  const std::uint64_t max_late_ns = 5 * kMs;
  const std::uint32_t catchup = ll_bytes_in_ns(c.rate_bps, c.catchup_ns);
  ll_shaper s{};
  ll_shaper_config(&s, c.rate_bps, c.burst_bytes, catchup);
  SendLog r = backlogged(s, 1000000, max_late_ns, 0x5eed + c.rate_bps);

  double rate = long_run_rate_bps(r);
  double rel = rate / double(c.rate_bps) - 1.0;
  std::int64_t excess = worst_window_excess_ns(s, r);
  std::printf("  rate %llu bit/s, burst %u B, catch-up %u B, lateness up to 5 ms: long-run %.1f bit/s "
              "(%+.4f %%), worst window excess %lld ns of %lld allowed, credit cut %llu ns\n",
              (unsigned long long)c.rate_bps, c.burst_bytes, catchup, rate, rel * 100,
              (long long)excess, (long long)s.catchup_ns, (unsigned long long)s.lost_ns);
  EXPECT_LT(std::abs(rel), 0.005) << "long-run rate within 0.5 % while backlogged";
  EXPECT_LE(excess, s.catchup_ns) << "no window sends more than rate x window + the catch-up";
}

INSTANTIATE_TEST_SUITE_P(
    Rates, ShaperLateness,
    ::testing::Values(Case{20000000ULL, 3028, 6 * kMs},     // 20 Mbit/s, 2 frames
                      Case{100000000ULL, 3028, 6 * kMs},    // 100 Mbit/s
                      Case{10000000000ULL, 125000, 6 * kMs},  // 10 Gbit/s, 100 us burst
                      Case{1000000ULL, 3028, 6 * kMs}));    // 1 Mbit/s: frames > lateness

// The witness that the test above can fail: the catch-up cut to the burst
// (what the shaper was before) loses the credit of every late wake-up.
TEST(Shaper, WithoutCatchUpLateWakeUpsLoseRate) {
  ll_shaper s{};
  ll_shaper_config(&s, 20000000ULL, 3028, 3028);
  SendLog r = backlogged(s, 200000, 5 * kMs, 7);
  double rel = long_run_rate_bps(r) / 20e6;
  std::printf("  catch-up = burst (2 frames at 20 Mbit/s), lateness up to 5 ms: %.3f of the rate\n",
              rel);
  EXPECT_LT(rel, 0.8);
  EXPECT_GT(s.lost_ns, 0u);
}

// An idle port's bucket stops at the burst, however long it idles.
TEST(Shaper, IdlePortGainsAtMostBurst) {
  ll_shaper s{};
  const std::uint32_t burst = 3028;
  ll_shaper_config(&s, 20000000ULL, burst, 50000);
  std::uint64_t now = 0;
  ll_shaper_reset(&s, now);
  for (std::uint64_t idle_ms : {0ULL, 1ULL, 10ULL, 1000ULL, 100000ULL}) {
    now += idle_ms * kMs;
    std::uint32_t sent = 0;
    while (!ll_shaper_take(&s, 64, now))
      sent += 64;
    EXPECT_LE(sent, burst) << "after " << idle_ms << " ms idle";
    if (idle_ms >= 10) {
      EXPECT_GE(sent, burst - 64) << "a full bucket after " << idle_ms << " ms idle";
    }
    ll_shaper_idle(&s, now);
  }
}

// Time with every backlogged queue paused counts as idle: credit earned
// from lateness before the pause is cut to the burst, and the pause earns
// nothing more, so a resume is not followed by a catch-up burst.
TEST(Shaper, PausedPortResumesWithAtMostBurst) {
  ll_shaper s{};
  const std::uint32_t burst = 3028;
  ll_shaper_config(&s, 20000000ULL, burst, 100000);
  std::uint64_t now = 0;
  ll_shaper_reset(&s, now);
  while (!ll_shaper_take(&s, 1514, now)) {
  }
  // Backlogged, woken 20 ms late: a catch-up is due...
  now += 20 * kMs;
  // ...but a pause arrives first: nothing may be sent.
  ll_shaper_idle(&s, now);
  EXPECT_LE(s.tokens_ns, s.burst_ns);
  now += 500 * kMs;  // paused for half a second
  std::uint32_t sent = 0;
  while (!ll_shaper_take(&s, 1514, now))
    sent += 1514;
  EXPECT_LE(sent, burst);
  // Without the pause the same lateness is caught up in full.
  ll_shaper t{};
  ll_shaper_config(&t, 20000000ULL, burst, 100000);
  ll_shaper_reset(&t, 0);
  while (!ll_shaper_take(&t, 1514, 0)) {
  }
  std::uint32_t caught = 0;
  while (!ll_shaper_take(&t, 1514, 20 * kMs))
    caught += 1514;
  EXPECT_GE(caught, 20 * kMs * 20000000ULL / 8000000000ULL - 2 * 1514);
  EXPECT_LE(caught, 100000u);
}

// A backlogged port woken later than its catch-up keeps the catch-up and
// counts the rest as lost.
TEST(Shaper, LatenessBeyondCatchUpIsCountedLost) {
  ll_shaper s{};
  ll_shaper_config(&s, 8000000000ULL, 1000, 10000);  // 1 byte per ns
  ll_shaper_reset(&s, 0);
  while (!ll_shaper_take(&s, 1000, 0)) {
  }
  EXPECT_NE(ll_shaper_take(&s, 1000, 0), 0u);  // busy, waiting for credit
  std::uint32_t sent = 0;
  while (!ll_shaper_take(&s, 1000, 50000))
    sent += 1000;
  EXPECT_EQ(sent, 10000u);
  EXPECT_EQ(s.lost_ns, 40000u);
}

TEST(Shaper, CatchUpBelowBurstIsTheBurst) {
  ll_shaper s{};
  ll_shaper_config(&s, 100000000ULL, 5000, 100);
  EXPECT_EQ(s.catchup_ns, s.burst_ns);
}

TEST(Shaper, FrameLargerThanTheBucketGoesWhenFull) {
  ll_shaper s{};
  ll_shaper_config(&s, 8000000000ULL, 1000, 2000);
  ll_shaper_reset(&s, 0);
  std::uint64_t at = ll_shaper_take(&s, 65536, 0);
  EXPECT_EQ(at, 1000u);  // credit 1000 of the 2000 it may hold
  EXPECT_EQ(ll_shaper_take(&s, 65536, at), 0u);
  EXPECT_LT(s.tokens_ns, 0);  // the debt paces what follows
}

// mult/shift against exact division, across the rate range.
TEST(Shaper, LinkTimeIsExactToOnePart) {
  for (std::uint64_t rate : {8000ULL, 1000000ULL, 20000000ULL, 100000000ULL, 10000000000ULL,
                             400000000000ULL, 1600000000000ULL}) {
    ll_shaper s{};
    ll_shaper_config(&s, rate, 64, 64);
    for (std::uint32_t len : {64u, 1514u, 9018u, 65536u}) {
      long double exact = (long double)len * 8e9L / (long double)rate;
      long double got = ll_shaper_len_ns(&s, len);
      EXPECT_LE(std::abs((double)(got - exact)), std::max(1.0, (double)exact * 1e-8))
          << rate << " bit/s, " << len << " B";
    }
  }
}

TEST(Shaper, LatenessBuckets) {
  EXPECT_EQ(ll_lateness_bucket(0), 0u);
  EXPECT_EQ(ll_lateness_bucket(1023), 0u);
  EXPECT_EQ(ll_lateness_bucket(1024), 1u);
  EXPECT_EQ(ll_lateness_bucket(2047), 1u);
  EXPECT_EQ(ll_lateness_bucket(2048), 2u);
  EXPECT_EQ(ll_lateness_bucket((1ULL << 28) - 1), LL_LATENESS_BUCKETS - 2);
  EXPECT_EQ(ll_lateness_bucket(1ULL << 28), LL_LATENESS_BUCKETS - 1);
  EXPECT_EQ(ll_lateness_bucket(~0ULL), LL_LATENESS_BUCKETS - 1);
}

// The qdisc's defaults (and losslessd --check's): the burst is 100 us at
// the rate, at least two frames; the catch-up is sw-delay at the rate, at
// least the burst; both capped at LOSSLESS_BURST_MAX_BYTES.
TEST(Shaper, DefaultBurstAndCatchup) {
  // 5 Mbit/s, 1514-byte frames: 100 us is 62 B, two frames win.
  EXPECT_EQ(ll_shaper_default_burst_bytes(5000000, 1514), 3028u);
  // 10 Gbit/s: 100 us is 125000 B.
  EXPECT_EQ(ll_shaper_default_burst_bytes(10000000000ULL, 1514), 125000u);
  // lo's 64 KiB MTU at 100 Mbit/s: two frames.
  EXPECT_EQ(ll_shaper_default_burst_bytes(100000000, 65536 + 14), 131100u);
  // Rounded down: 100 us at 1,000,001 bit/s is 12.5000125 B.
  EXPECT_EQ(ll_shaper_default_burst_bytes(1000001, 4), 12u);
  EXPECT_LE(ll_shaper_default_burst_bytes(~0ULL, 1514), LOSSLESS_BURST_MAX_BYTES);

  // 10 Gbit/s, 1 ms: 1250000 B, above the burst.
  EXPECT_EQ(ll_shaper_default_catchup_bytes(10000000000ULL, kMs, 125000), 1250000u);
  // 5 Mbit/s, 1 ms: 625 B, below the burst of two frames.
  EXPECT_EQ(ll_shaper_default_catchup_bytes(5000000, kMs, 3028), 3028u);
  // 5 Mbit/s, 60 ms: 37500 B.
  EXPECT_EQ(ll_shaper_default_catchup_bytes(5000000, 60 * kMs, 3028), 37500u);
  // Capped.
  EXPECT_EQ(ll_shaper_default_catchup_bytes(1600000000000ULL, 1000 * kMs, 3028),
            LOSSLESS_BURST_MAX_BYTES);
}

}  // namespace
