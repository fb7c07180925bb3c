// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The lateness histogram's math (daemon/plane/lateness.h): bucket bounds
// as the datapath files a lateness (kernel/core/shaper.c,
// ll_lateness_bucket), the 99th percentile and the difference of two
// snapshots.
#include <gtest/gtest.h>

#include "lateness.h"

extern "C" {
#include "shaper.h"
}

namespace {

namespace lp = lossless::plane;
constexpr unsigned kLast = lp::kLatenessBuckets - 1;

TEST(LatenessBuckets, BoundsAreWhereTheDatapathFilesALateness)
{
  static_assert(lp::kLatenessBuckets == LL_LATENESS_BUCKETS);
  EXPECT_EQ(lp::lateness_lower_ns(0), 0u);
  EXPECT_EQ(lp::lateness_upper_ns(0), 1024u);
  EXPECT_EQ(lp::lateness_lower_ns(1), 1024u);
  EXPECT_EQ(lp::lateness_upper_ns(1), 2048u);
  EXPECT_EQ(lp::lateness_upper_ns(kLast - 1), 1ULL << 28);
  EXPECT_EQ(lp::lateness_lower_ns(kLast), 1ULL << 28);
  EXPECT_EQ(lp::lateness_upper_ns(kLast), 0u) << "the last bucket has no upper bound";
  for (unsigned i = 0; i < lp::kLatenessBuckets; i++) {
    EXPECT_EQ(ll_lateness_bucket(lp::lateness_lower_ns(i)), i) << i;
    if (lp::lateness_upper_ns(i)) {
      EXPECT_EQ(ll_lateness_bucket(lp::lateness_upper_ns(i) - 1), i) << i;
      EXPECT_EQ(ll_lateness_bucket(lp::lateness_upper_ns(i)), i + 1) << i;
      EXPECT_EQ(lp::lateness_lower_ns(i + 1), lp::lateness_upper_ns(i)) << "no gap at " << i;
    }
  }
  EXPECT_EQ(ll_lateness_bucket(~0ULL), kLast);
}

TEST(LatenessOf, NothingCounted)
{
  __u64 h[LOSSLESS_LATENESS_BUCKETS] = {};
  lp::Lateness l = lp::lateness_of(h);
  EXPECT_EQ(l.count, 0u);
  EXPECT_EQ(l.p99_below_ns, 0u);
  EXPECT_FALSE(l.p99_open);
}

TEST(LatenessOf, P99IsTheUpperBoundOfTheBucketHoldingIt)
{
  __u64 h[LOSSLESS_LATENESS_BUCKETS] = {};
  h[0] = 99;
  h[12] = 1;  // 2.1 .. 4.2 ms
  lp::Lateness l = lp::lateness_of(h);
  EXPECT_EQ(l.count, 100u);
  EXPECT_EQ(l.p99_below_ns, 1024u) << "rank 99 of 100 is in bucket 0";
  EXPECT_EQ(l.max_bucket, 12u);
  h[0] = 98;  // now rank 99 of 99 is the late one
  l = lp::lateness_of(h);
  EXPECT_EQ(l.p99_below_ns, 1ULL << 22);
  // 1000 wake-ups: rank 990. 989 early, 11 in bucket 5: bucket 5.
  h[0] = 989;
  h[12] = 0;
  h[5] = 11;
  l = lp::lateness_of(h);
  EXPECT_EQ(l.p99_below_ns, 1ULL << 15);
  h[0] = 990;  // rank 990 early
  h[5] = 10;
  EXPECT_EQ(lp::lateness_of(h).p99_below_ns, 1024u);
}

TEST(LatenessOf, P99InTheLastBucketIsOpen)
{
  __u64 h[LOSSLESS_LATENESS_BUCKETS] = {};
  h[kLast] = 3;
  lp::Lateness l = lp::lateness_of(h);
  EXPECT_TRUE(l.p99_open);
  EXPECT_EQ(l.p99_below_ns, 0u);
  EXPECT_EQ(l.max_bucket, kLast);
}

TEST(LatenessOf, HugeCountsDoNotOverflow)
{
  __u64 h[LOSSLESS_LATENESS_BUCKETS] = {};
  h[0] = ~0ULL / 2;  // 100 x this overflows 64 bits
  h[3] = ~0ULL / 200;
  lp::Lateness l = lp::lateness_of(h);
  EXPECT_EQ(l.p99_below_ns, 1024u);  // 99.01 % in bucket 0
}

TEST(LatenessDelta, IsTheGrowthBetweenTwoSnapshots)
{
  __u64 before[LOSSLESS_LATENESS_BUCKETS] = {}, now[LOSSLESS_LATENESS_BUCKETS] = {},
        d[LOSSLESS_LATENESS_BUCKETS];
  before[0] = 10;
  before[4] = 2;
  now[0] = 15;
  now[4] = 2;
  now[7] = 1;
  EXPECT_FALSE(lp::lateness_delta(now, before, d));
  EXPECT_EQ(d[0], 5u);
  EXPECT_EQ(d[4], 0u);
  EXPECT_EQ(d[7], 1u);
  EXPECT_EQ(lp::lateness_of(d).count, 6u);
}

TEST(LatenessDelta, ACounterThatWentDownMeansTheQdiscStartedAgain)
{
  __u64 before[LOSSLESS_LATENESS_BUCKETS] = {}, now[LOSSLESS_LATENESS_BUCKETS] = {},
        d[LOSSLESS_LATENESS_BUCKETS];
  before[0] = 1000;
  now[0] = 3;
  now[9] = 1;
  EXPECT_TRUE(lp::lateness_delta(now, before, d));
  EXPECT_EQ(d[0], 3u);
  EXPECT_EQ(d[9], 1u);
}

}  // namespace
