// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's host congestion control ([host_cc], docs/DAEMON.md "Host
// congestion control"): the `pcn` and `dcqcn` host policies on top of
// ll_cc (daemon/cc/cc.h).
//
//   prepare()  resolves line_rate "auto" (the lowest link speed of the
//              ports, as ethtool reports it) and runs ll_cc's derivation
//              and check (config::host_cc_params): nothing changes yet.
//   start()    loads the programs (pinned maps reused), attaches them to
//              every port, writes the configuration; a failure detaches
//              what this call attached.
//   a worker thread, every refresh period (gc_idle / 4, 100 ms .. 1 s):
//              deletes the flows idle longer than gc_idle and takes a
//              telemetry snapshot (counters, top-N flows per map, the rest
//              summed), which status() and sample() show. Off the event
//              loop: with both maps full (2 x 16384 flows) a round reads
//              them twice, about 200 ms, which would hold up the pools'
//              policies if it ran on the loop. It has maps of its own
//              (the pins), so a reload never pulls them from under it.
//   reconfigure()  a reload: the new parameters, attached to the ports
//              added, detached from the ports removed.
//
// As with the pools' qdiscs, what start() installs outlives the daemon:
// the filters stay attached and the maps pinned when it exits, so the
// hosts keep their congestion control with the last parameters; a new
// daemon adopts them (re-attaching in place). losslessd --cleanup detaches
// them and removes the pins.
#pragma once

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <string>
#include <vector>

#include "cc.h"
#include "config.h"
#include "metrics.h"
#include "rtnl.h"

namespace lossless::daemon {

class HostCc {
 public:
  struct Port {
    std::string dev;
    std::uint32_t ifindex = 0;
    std::uint32_t speed_mbps = 0;  // ethtool's, 0: none reported
    std::string state = "missing";  // attached, missing, failed: ...
    cc::Attached ids;
  };

  // Resolves and checks cfg (source: the file, for messages) on this
  // system: every port exists, the pin directory is on bpffs, "auto" has
  // a link speed, ll_cc's check passes. Throws std::runtime_error
  // "FILE:LINE: [host_cc]: ..." naming the key; changes nothing.
  static HostCc prepare(const config::HostCc &cfg, const std::string &source);

  // Load, attach, configure (see above).
  void start();
  // Take next's configuration (prepared) in place of this one.
  void reconfigure(HostCc next);
  // Follow the links: a port that appears (again) is attached.
  void links(const std::vector<Link> &links);
  // gc and telemetry now, on the caller's thread (start() does one before
  // the worker takes over; tests).
  void refresh(std::uint64_t now_ns);

  HostCc() = default;
  HostCc(HostCc &&) noexcept = default;
  HostCc &operator=(HostCc &&) noexcept;
  ~HostCc();

  nlohmann::ordered_json status() const;   // the status reply's "host_cc"
  nlohmann::ordered_json config() const;   // the config reply's "host_cc"
  metrics::HostCcSample sample() const;

  const config::HostCc &cfg() const { return cfg_; }
  const cc::Config &params() const { return params_; }
  std::uint64_t line_rate_kbps() const { return params_.line_rate_kbps(); }
  std::uint64_t refresh_period_ns() const;

  // Removes what cfg installs: the filters on its ports, the pins.
  static void cleanup(const config::HostCc &cfg);

 private:
  config::HostCc cfg_;
  std::string source_;
  cc::Config params_;
  std::vector<Port> ports_;
  std::optional<cc::Program> program_;

  // What the worker keeps: its settings, and the last snapshot.
  struct Snapshot {
    std::optional<cc::Stats> stats;
    cc::TopView np, rp;
    std::uint64_t snapshot_ns = 0;
    std::uint64_t gc_runs = 0, gc_np_deleted = 0, gc_rp_deleted = 0;
    std::string last_error;
  };
  struct Worker {
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    std::uint64_t gc_idle_ns = 0, period_ns = 0;  // under mu
    std::uint32_t top_flows = 10;                 // under mu
    Snapshot snap;                                // under mu
    std::optional<cc::Maps> maps;                 // the worker's own
    std::thread thread;
    void round(std::uint64_t now_ns);
    void run();
  };
  std::unique_ptr<Worker> worker_;

  void attach(Port &p);
  void stop_worker();
  Snapshot snapshot() const;
};

}  // namespace lossless::daemon
