// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The pure part of losslessd's PortFC policy ([portfc], docs/DAEMON.md
// "PortFC"; docs/PORTFC.md "The daemon's portfc policy"): no BPF, no
// netlink, no clock, so that the configuration loader and the tests link
// it alone.
//
//   size_switch()   a BCube switch's thresholds and the buffer they and
//                   the headroom need (spec 4.10, the core's
//                   ll_portfc_need()), from the link and the pool;
//   port_queues()   the queue count and gates of a port of either role
//                   (the core's plan), for the port's lossless qdisc;
//   StuckDetector   a queue paused longer than T_stuck raises an alarm,
//                   fed the qdisc's per-queue pause state every period.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "headroom.h"
#include "portfc.h"
}

namespace lossless::portfc {

// The spec's threshold multipliers (4.2): X_off = 6 BDP, X_on = 4 BDP,
// with the per-hop BDP C x 2d, at least kBdpMinMtu MTU (a BDP of 4 MTU
// gives the kernel's defaults, 24 and 16 MTU).
inline constexpr std::uint64_t kXoffBdp = 6, kXonBdp = 4, kBdpMinMtu = 4;

// A switch's sizing: its thresholds (given, or from the BDP) and what
// they and the headroom need of the pool.
struct Sizing {
  ll_bcube b{};
  ll_headroom_params link{};
  std::uint64_t bdp_bytes = 0;
  ll_portfc_thresholds t{};  // as the pool will run them
  bool given[4] = {};        // xoff_a, xon_a, xoff_b, xon_b given
  std::uint64_t relay_queue_bytes = 0;
  struct ll_portfc_need need {};
  std::uint64_t buffer_bytes = 0;  // the pool's
  std::string error;               // "" if they fit (with the numbers otherwise)
};

// given: the pool's [pool.portfc] thresholds, 0 for "compute" (then from
// the BDP of link: its rate and cable delay, at least kBdpMinMtu x
// link.mtu_bytes). link: the fastest port, the longest cable, the pool's
// software delay, the largest accounted frame. Checks the thresholds
// (0 < X_on < X_off, X_off >= 2 MTU: the core's) and the pool's buffer
// against n (X_off + X^_off) + n max(O1, O2) + 2 n MTU; error says which
// with the numbers.
Sizing size_switch(const ll_bcube &b, const ll_portfc_thresholds &given,
                   const ll_headroom_params &link, std::uint64_t relay_queue_bytes,
                   std::uint64_t buffer_bytes);

// A port's queues for its lossless qdisc: the count, queue 0 strict (HQ),
// and the gates that stop each queue (gates[i], bit g: gate g; the core's
// ll_portfc_*_queue_gates()).
struct PortQueues {
  std::uint32_t queues = 0;
  std::vector<std::uint32_t> gates;
};
PortQueues port_queues(const ll_bcube &b, bool server);

// The qdisc's queue limit (TCA_LOSSLESS_QUEUES, LOSSLESS_MAX_QUEUES).
inline constexpr std::uint32_t kQdiscQueuesMax = 64;

// ------------------------------------------------------ stuck detector

// One queue as the qdisc dumps it (tc class xstats): whether a gate of
// it is closed now, and its gates' closed time so far (including now).
struct QueueSample {
  std::string dev;
  std::uint32_t queue = 0;  // class 1:queue+1
  bool paused = false;
  std::uint64_t paused_ns = 0;
  std::uint64_t at_ns = 0;  // when it was read (0: feed()'s now_ns)
};

// An alarm raised or cleared.
struct StuckEvent {
  std::string dev;
  std::uint32_t queue = 0;
  bool raised = true;               // false: cleared (the queue resumed, or went away)
  std::uint64_t paused_for_ns = 0;  // how long it had been paused then
  std::uint64_t at_ns = 0;          // the sample's time
};

// A queue is stuck when it has been paused continuously for stuck_ns or
// longer. Continuously: paused at every sample since, and its paused time
// grew by at least half the time between the samples (the rest is slack
// for a sample read late), so a queue that resumed for a while and paused
// again between two samples starts over. The alarm clears
// when the queue resumes (or is no longer sampled: its port went away).
class StuckDetector {
 public:
  struct Queue {
    bool paused = false;
    bool alarm = false;
    std::uint64_t since_ns = 0;   // paused continuously since (sample time)
    std::uint64_t paused_ns = 0;  // the last sample's
    std::uint64_t seen_ns = 0;    // the last sample's time
    std::uint64_t alarms = 0;     // raised so far
  };
  using Key = std::pair<std::string, std::uint32_t>;

  explicit StuckDetector(std::uint64_t stuck_ns = 0) : stuck_ns_(stuck_ns) {}

  // 0: off (nothing is ever raised; alarms in force clear).
  void set_stuck_ns(std::uint64_t ns) { stuck_ns_ = ns; }
  std::uint64_t stuck_ns() const { return stuck_ns_; }

  // One period's samples (every sampled queue) at now_ns: the alarms
  // raised and cleared by it. A queue not sampled is gone (cleared),
  // unless its port is in unread: its read failed this period, and its
  // state stays as it was (a failed read neither clears nor restarts it).
  std::vector<StuckEvent> feed(std::uint64_t now_ns, const std::vector<QueueSample> &samples,
                               const std::set<std::string> &unread = {});

  const std::map<Key, Queue> &queues() const { return queues_; }
  std::uint64_t alarms_total() const { return alarms_total_; }
  std::uint32_t active() const;  // alarms in force now

 private:
  std::uint64_t stuck_ns_;
  std::map<Key, Queue> queues_;
  std::uint64_t alarms_total_ = 0;
};

// "1.5 s", "250 ms", "12 us": for messages.
std::string duration_text(std::uint64_t ns);

}  // namespace lossless::portfc
