// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's PortFC policy ([portfc]; docs/PORTFC.md "The daemon's portfc
// policy", docs/DAEMON.md "PortFC"): this node's part in a BCube.
//
//   prepare()  checks [portfc] on this system: the pin directory on bpffs,
//              every port a device; for a switch, sizes its pool
//              (portfc_policy.h's size_switch(): thresholds from the BDP
//              unless given, spec 4.10's buffer need) and refuses with the
//              numbers when they do not fit. Nothing changes yet; the
//              daemon then installs the ports' qdiscs with PortFC's queues,
//              gates, port numbers and thresholds (queue_plan(),
//              sizing()).
//   start()    loads the classifier (bpf/lossless_portfc.bpf.c; its maps
//              pinned in pin_dir), writes every port's position and the
//              servers' addresses, attaches it to the ports and tells the
//              ingress program (its maps in the daemon's pin directory)
//              which PortFC frames each port takes. A failure detaches
//              what this call attached.
//   poll()     every period (stuck / 4, 50 ms .. 1 s), on the daemon's
//              loop: each port's queues as tc -s class shows them (paused,
//              paused_ns), fed to the stuck detector; an alarm raised or
//              cleared is logged, counted and kept as an event.
//
// As with the pools' qdiscs and [host_cc], what start() installs outlives
// the daemon (the classifier stays, so do its pins): the ports keep their
// queues. A new daemon re-attaches in place. losslessd --cleanup detaches
// the classifier and removes its pins.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "config.h"
#include "ll_portfc.h"
#include "metrics.h"
#include "portfc_policy.h"
#include "rtnl.h"

namespace lossless::daemon {

class PortFc {
 public:
  // What a switch's sizing needs from the daemon's configuration and the
  // devices: the link (fastest port, longest cable, the pool's software
  // delay, largest frame), the thresholds its pool gives (0: compute), the
  // pool's buffer.
  struct SwitchInputs {
    ll_headroom_params link{};
    ll_portfc_thresholds given{};
    std::uint64_t buffer_bytes = 0;
    std::uint32_t pool_line = 0;
  };

  struct Port {
    std::string dev;
    std::uint32_t ifindex = 0;
    std::string state = "missing";  // attached, missing, failed: ...
    std::uint32_t prog_id = 0;
    std::vector<ClassStats> queues;  // the last poll's, pausable queues only
    ingress::CtrlCounters frames;    // the ingress program's, the last poll's
  };

  // Throws std::runtime_error "FILE:LINE: [portfc]: ..." naming the key.
  static PortFc prepare(const config::Portfc &cfg, const std::string &source,
                        const std::optional<SwitchInputs> &sw);

  void start(const std::string &ingress_pin_dir);
  // Follow the links: a port that appears (again) is attached again.
  void links(const std::vector<Link> &links);
  // One round of the stuck detector if its period has passed (now:
  // CLOCK_MONOTONIC); force: now.
  void poll(Rtnl &rtnl, std::uint64_t now_ns, bool force = false);
  std::uint64_t poll_period_ns() const;

  // The queues of a port of this node for its lossless qdisc.
  const portfc::PortQueues &queue_plan() const { return plan_; }
  // The switch's sizing (nullopt for a server).
  const std::optional<portfc::Sizing> &sizing() const { return sizing_; }
  const config::Portfc &cfg() const { return cfg_; }
  // Take a reload's configuration: only stuck may change.
  // Throws if next differs in more than a reload may change (stuck).
  void reload_check(const PortFc &next) const;
  void reconfigure(const PortFc &next);

  nlohmann::ordered_json status() const;  // the status reply's "portfc"
  metrics::PortfcSample sample() const;
  std::string summary() const;  // "switch 3 at level 0 of BCube(4,1)"

  // Removes what cfg installs: the classifier on its ports, its pins.
  static void cleanup(const config::Portfc &cfg, const std::string &ingress_pin_dir);

 private:
  config::Portfc cfg_;
  std::string source_;
  portfc::PortQueues plan_;
  std::optional<portfc::Sizing> sizing_;
  std::vector<Port> ports_;
  std::optional<portfc::Program> program_;
  std::optional<ingress::Maps> ingress_;
  portfc::StuckDetector stuck_;
  std::deque<portfc::StuckEvent> events_;  // the last kMaxEvents (at_ns: CLOCK_MONOTONIC)
  std::uint64_t next_poll_ns_ = 0;
  std::uint64_t polls_ = 0;
  std::string last_error_;

  portfc::Node node() const;
  void attach_all();
};

}  // namespace lossless::daemon
