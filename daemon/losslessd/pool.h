// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
// One pool as losslessd runs it: its policy, its plane, the last telemetry
// and the decision in flight. The daemon ticks it; the benchmark
// (tests/bench/bench_daemon.cpp) ticks the same code natively.
#pragma once

#include "daemon.h"
#include "plane.h"
#include "policy.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lateness.h"
#include "ownership.h"

namespace lossless::daemon {

// How late the pool's ports' timed wake-ups run, against the software
// delay the policy sizes each port's headroom with (headroom.h term 7):
// judged once per window of telemetry time from the growth of each port's
// lateness histogram (plane/lateness.h) over the window. A port whose
// wake-ups ran later than that is reported once, and once more when a
// window shows them back within it; a window without wake-ups changes
// nothing. Ports the daemon does not configure, or whose headroom is
// configured, are not judged: the policy's delay does not size them.
class LatenessWatch {
 public:
  static constexpr std::uint64_t kWindowNs = 1000000000ULL;

  // With every new snapshot t of the pool: lines to log ('\n' between
  // them), or "". links and policy are the pool's (Pool::inputs.ports,
  // Pool::policy).
  std::string update(const lossless_plane_tel &t, const std::vector<policy::PortLink> &links,
                     const policy::Policy &policy);

 private:
  struct Port {
    std::uint32_t ifindex = 0;  // 0: nothing recorded in this plane slot
    __u64 base[plane::kLatenessBuckets] = {};  // histogram at the window start
    __u64 base_max_ns = 0;                     // wake_late_max_ns then
    bool warned = false;
  };
  std::array<Port, LOSSLESS_PLANE_PORTS> ports_{};  // by plane slot
  std::uint64_t window_start_ns_ = 0;
  bool started_ = false;
};

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
  LatenessWatch lateness;
  bool version_said = false;  // the plane's other layout version, logged once
  // The scheme control channel (the policy's block(): SPFC's slow path
  // and oracle): the last block written, how many, and what the datapath
  // said of them.
  std::uint64_t channel_seq = 0;
  std::uint64_t channel_writes = 0, channel_refusals = 0;
  std::uint64_t channel_judged = 0;  // the last seq counted as applied or refused
  int channel_error = 0;             // its errno (positive), 0: applied
  bool channel_error_said = false;   // a refusal logged, until one is applied

  // Ownership (policy/ownership.h): what the datapath held after the
  // daemon's last settled push (nullopt: none since, or one in flight),
  // the gen of that push (or of another writer's, once judged), and the
  // changes made behind the daemon's back: counted by (setting, source,
  // action), the latest kept for status.
  std::optional<policy::Held> held;
  std::uint64_t own_gen = 0;
  struct ForeignKey {
    std::string setting, source, action;
    auto operator<=>(const ForeignKey &) const = default;
  };
  std::map<ForeignKey, std::uint64_t> foreign_counts;
  std::uint64_t foreign_total = 0;
  static constexpr std::size_t kForeignKept = 8;
  std::deque<policy::ForeignChange> foreign_last;  // newest last

  // Compare the last snapshot with held, once no push is in flight:
  // count and log each change, and have the policy adopt or revert it.
  // Returns the lines to log, or "".
  std::string run_ownership();

  // Write the policy's control channel block when it has one (after a
  // telemetry read), and count what the datapath said of the last one.
  // Returns a line to log, or "".
  std::string run_channel();

  // One period: one telemetry read attempt, the channel (run_channel()),
  // settle the decision in flight, ask the policy and submit what it
  // decides. Returns lines to log ('\n'
  // between them): the datapath refused a decision, a port's wake-ups ran
  // later than its software delay (or are back within it), the plane has
  // another layout version; else "".
  std::string run_policy();
};

}  // namespace lossless::daemon
