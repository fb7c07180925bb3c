// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The datapath's histogram of how late a port's timed wake-ups ran
// (kernel/uapi/lossless.h, wake_late[] of tc_lossless_xstats and
// lossless_plane_port): bucket 0 counts wake-ups less than 1024 ns late,
// bucket i (1 .. LOSSLESS_LATENESS_BUCKETS - 2) those in [2^(9+i),
// 2^(10+i)) ns, the last one everything from 2^28 ns (~268 ms) on.
//
// The one place the daemon, losslessctl and the Prometheus renderer take
// bucket bounds and percentiles from. Header only: no library to link.
#pragma once

#include <cstdint>

#include "lossless.h"

namespace lossless::plane {

inline constexpr unsigned kLatenessBuckets = LOSSLESS_LATENESS_BUCKETS;

// Smallest lateness bucket i counts, in ns (0 for bucket 0).
constexpr std::uint64_t lateness_lower_ns(unsigned i)
{
  return i ? 1ULL << (9 + i) : 0;
}

// Bound that every lateness bucket i counts is below, in ns; 0 for the
// last bucket, which has none.
constexpr std::uint64_t lateness_upper_ns(unsigned i)
{
  return i + 1 < kLatenessBuckets ? 1ULL << (10 + i) : 0;
}

// A histogram (or the difference of two snapshots of one) summed up.
struct Lateness {
  std::uint64_t count = 0;  // wake-ups
  // The 99th percentile (the wake-up at rank ceil(0.99 x count)) as the
  // upper bound of its bucket: p99 is below p99_below_ns. In the last
  // bucket it has no upper bound: p99_below_ns is 0 and p99_open is set,
  // and the percentile is at least lateness_lower_ns(last).
  std::uint64_t p99_below_ns = 0;
  bool p99_open = false;
  // The highest bucket with a wake-up in it (meaningful when count > 0):
  // the latest wake-up was at least lateness_lower_ns(max_bucket) late.
  unsigned max_bucket = 0;
};

// Sums up counts[0 .. kLatenessBuckets - 1] (the uapi's __u64).
constexpr Lateness lateness_of(const __u64 *counts)
{
  Lateness l;
  for (unsigned i = 0; i < kLatenessBuckets; i++) {
    l.count += counts[i];
    if (counts[i])
      l.max_bucket = i;
  }
  if (!l.count)
    return l;
  // The smallest bucket whose cumulative count reaches 99 % of all
  // (cum >= 0.99 x count, exact in 128 bits).
  unsigned __int128 cum = 0;
  for (unsigned i = 0; i < kLatenessBuckets; i++) {
    cum += counts[i];
    if (cum * 100 >= static_cast<unsigned __int128>(l.count) * 99) {
      l.p99_below_ns = lateness_upper_ns(i);
      l.p99_open = l.p99_below_ns == 0;
      break;
    }
  }
  return l;
}

// The wake-ups between two snapshots of one port's histogram, before and
// now, into delta. If a bucket went down, the qdisc was replaced or reset
// in between and its counters started again: delta is then all of now,
// and the result true.
constexpr bool lateness_delta(const __u64 *now, const __u64 *before, __u64 *delta)
{
  bool restarted = false;
  for (unsigned i = 0; i < kLatenessBuckets; i++)
    restarted |= now[i] < before[i];
  for (unsigned i = 0; i < kLatenessBuckets; i++)
    delta[i] = restarted ? now[i] : now[i] - before[i];
  return restarted;
}

}  // namespace lossless::plane
