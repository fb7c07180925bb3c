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
//   tick()     every refresh period (gc_idle / 4, 100 ms .. 1 s): deletes
//              the flows idle longer than gc_idle and takes a telemetry
//              snapshot (counters, top-N flows per map, the rest summed),
//              which status() and sample() show.
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

#include <cstdint>
#include <optional>
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
  // gc and telemetry when due (now_ns: cc::monotonic_ns()).
  void tick(std::uint64_t now_ns);
  // gc and telemetry now.
  void refresh(std::uint64_t now_ns);

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

  // The last snapshot.
  std::optional<cc::Stats> stats_;
  cc::TopView np_, rp_;
  std::uint64_t snapshot_ns_ = 0, next_ns_ = 0;
  std::uint64_t gc_runs_ = 0, gc_np_deleted_ = 0, gc_rp_deleted_ = 0;
  std::string last_error_;

  void attach(Port &p);
};

}  // namespace lossless::daemon
