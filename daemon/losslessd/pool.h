// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// One pool as losslessd runs it: its policy, its plane, the last telemetry
// and the decision in flight. The daemon ticks it; the benchmark
// (tests/bench/bench_daemon.cc) ticks the same code natively.
#pragma once

#include "daemon.h"
#include "plane.h"
#include "policy.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace lossless::daemon {

struct Pool {
  using Clock = std::chrono::steady_clock;

  PoolConfig cfg;
  std::unique_ptr<policy::Policy> policy;
  std::optional<plane::Plane> plane;
  std::unique_ptr<lossless_plane_tel> tel = std::make_unique<lossless_plane_tel>();
  std::unique_ptr<lossless_plane_tel> scratch = std::make_unique<lossless_plane_tel>();
  bool have_tel = false;
  std::optional<plane::Params> pending;
  std::uint64_t pending_gen = 0;
  Clock::time_point pending_since;
  std::uint64_t pushes = 0, refusals = 0;
  std::uint64_t busy_reads = 0;  // telemetry being written whenever read
  std::chrono::nanoseconds last_latency{0};
  int last_error = 0;
  // What the policy is given. Its ports are rebuilt only when a link or
  // the configuration changed (links_stale), not every period: a tick
  // copies and allocates nothing.
  policy::Inputs inputs;
  bool links_stale = true;
  std::vector<std::size_t> rate_from_tel;  // inputs.ports with no configured rate

  // One period: one telemetry read attempt, settle the decision in flight,
  // ask the policy and submit what it decides. Returns a line to log when
  // the datapath refused a decision, else "".
  std::string run_policy();
};

}  // namespace lossless::daemon
