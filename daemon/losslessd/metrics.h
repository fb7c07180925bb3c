// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's Prometheus endpoint ([daemon] prometheus = "ADDR:PORT"):
//
//   metrics::render()  the pools' telemetry snapshots (kernel/uapi/lossless.h,
//                      struct lossless_plane_tel) and the daemon's own
//                      counters as Prometheus text exposition format 0.0.4.
//                      A pure function: no clock, no device lookups.
//   MetricsServer      a minimal HTTP/1.0 server on the daemon's Boost.Asio
//                      loop: GET /metrics answers render()'s text, anything
//                      else 404 (or 400/405), and every connection is closed
//                      after one answer. Requests are bounded (8 KiB, 5 s),
//                      so a slow or malformed client costs one socket and
//                      never blocks the loop.
//
// docs/DAEMON.md ("Prometheus metrics") lists every metric.
#pragma once

#include <utility>  // before Boost 1.74's asio: its awaitable.hpp needs std::exchange
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lossless.h"

namespace lossless::daemon::metrics {

// What the daemon did with one pool (its policy's pushes through the plane).
struct DaemonCounters {
  std::uint64_t pushes = 0;    // control entries the datapath applied
  std::uint64_t refusals = 0;  // control entries it refused
  std::chrono::nanoseconds last_push_latency{0};
  // Changes made behind the daemon's back (policy/ownership.h), counted.
  struct Foreign {
    std::string setting, source, action;
    std::uint64_t count = 0;
  };
  std::vector<Foreign> foreign;
  // The software delay the policy sizes each port's headroom with, by ifindex.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> sw_delay_ns;
};

// One pool: its latest telemetry snapshot and, from the daemon, its counters.
struct PoolSample {
  const lossless_plane_tel *tel = nullptr;  // not owned; skipped if null
  std::optional<DaemonCounters> daemon;
};

// The daemon as a whole (optional).
struct DaemonStats {
  std::uint64_t ticks = 0;         // policy periods run
  std::chrono::nanoseconds busy{0};  // time spent running the policies
};

// The hosts' congestion control ([host_cc], host_cc.h): its counters and
// a bounded view of its flows (the top N of each map and the rest summed),
// so that the series stay at most 2 (N + 1) per family.
struct HostCcFlow {
  std::string map;   // "np" or "rp"
  std::string flow;  // "SRC:PORT>DST:PORT", or "other" for the rest summed
  std::uint64_t rate_bps = 0;  // RP: paced rate; NP: the last PCN RecRate
  std::uint64_t bytes = 0, pkts = 0, ce_pkts = 0, cnps = 0;
  std::uint64_t flows = 1;  // flows in this series ("other": how many)
};
struct HostCcSample {
  std::string algo;  // "pcn", "dcqcn"
  // ll_cc_stats by name (cc_json.h's counters()), then the malformed
  // CNPs by reason.
  std::vector<std::pair<std::string, std::uint64_t>> counters;
  std::vector<std::pair<std::string, std::uint64_t>> parse_errors;
  std::uint64_t np_flows = 0, rp_flows = 0;  // in the maps now
  std::uint64_t gc_np_deleted = 0, gc_rp_deleted = 0;
  std::vector<HostCcFlow> flows;
};

// PortFC's telemetry ([portfc], portfc.h): per queue of its ports the
// pause state and time and the stuck alarms; the classifier's counters;
// the ingress program's PortFC frame counters per port.
struct PortfcQueue {
  std::string dev;
  std::uint32_t queue = 0;  // class 1:queue+1
  bool paused = false;
  std::uint64_t paused_ns = 0;        // its gates' closed time so far
  std::uint64_t pause_frames_rx = 0;  // frames that named its gates
  bool stuck = false;                 // the stuck alarm is raised now
  std::uint64_t stuck_alarms = 0;     // raised so far (this daemon)
};
struct PortfcPort {
  std::string dev;
  std::uint64_t frames_refused = 0, frames_relayed = 0, relay_failed = 0;  // lossless_ingress
};
struct PortfcSample {
  std::string role;  // "server", "switch"
  std::uint32_t n = 0, k = 0, node = 0;
  // The classifier's counters by name (packets, hq, relayed, unknown,
  // self, misrouted, bad_port), and its packets per queue.
  std::vector<std::pair<std::string, std::uint64_t>> classifier;
  std::vector<std::uint64_t> classifier_queue;
  std::vector<PortfcPort> ports;
  std::vector<PortfcQueue> queues;
  std::uint64_t stuck_ns = 0;  // T_stuck, 0: off
  std::uint64_t stuck_alarms_total = 0;
};

// ifindex -> device name, for the dev label. An ifindex it lacks is
// labelled "if<N>".
using DevNames = std::map<std::uint32_t, std::string>;

// Prometheus text exposition format 0.0.4: one "# HELP" and one "# TYPE"
// line per metric family, then its samples, families in a fixed order,
// pools and ports in the given order. Families without samples are left
// out.
// host_cc: the lossless_host_cc_* families, after the pools' and the
// daemon's; portfc: the lossless_portfc_* families, last.
std::string render(const std::vector<PoolSample> &pools, const DevNames &devs,
                   const std::optional<DaemonStats> &daemon = std::nullopt,
                   const HostCcSample *host_cc = nullptr,
                   const PortfcSample *portfc = nullptr);

// render() for losslessd (daemon.cpp), from its own structures: pools
// (pointers to objects with tel, have_tel, pushes, refusals, last_latency)
// and ports (objects with ifindex and cfg.dev). Pools without telemetry
// yet are left out.
template <typename Pools, typename Ports>
std::string render_daemon(const Pools &pools, const Ports &ports, std::uint64_t ticks,
                          std::chrono::nanoseconds busy, const HostCcSample *host_cc = nullptr,
                          const PortfcSample *portfc = nullptr)
{
  std::vector<PoolSample> samples;
  for (const auto &p : pools) {
    if (!p->have_tel)
      continue;
    DaemonCounters d{p->pushes, p->refusals, p->last_latency, {}, {}};
    for (const auto &[k, n] : p->foreign_counts)
      d.foreign.push_back({k.setting, k.source, k.action, n});
    for (const auto &l : p->inputs.ports)
      if (l.ifindex)
        d.sw_delay_ns.emplace_back(l.ifindex, p->policy->sw_delay_ns(l.ifindex));
    samples.push_back({&*p->tel, std::move(d)});
  }
  DevNames devs;
  for (const auto &p : ports)
    if (p.ifindex > 0)
      devs[static_cast<std::uint32_t>(p.ifindex)] = p.cfg.dev;
  return render(samples, devs, DaemonStats{ticks, busy}, host_cc, portfc);
}

// Content-Type of the text render() returns.
inline constexpr const char *kContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace lossless::daemon::metrics

namespace lossless::daemon {

class MetricsServer {
 public:
  // Listens on addr_port ("127.0.0.1:9464", "[::1]:9464"; port 0 picks a
  // free one) on io's loop. Throws std::runtime_error naming the address
  // when it cannot listen. render is called on the loop, once per
  // GET /metrics.
  MetricsServer(boost::asio::io_context &io, const std::string &addr_port,
                std::function<std::string()> render);
  ~MetricsServer();
  MetricsServer(const MetricsServer &) = delete;
  MetricsServer &operator=(const MetricsServer &) = delete;

  // The port it listens on (the chosen one for port 0).
  std::uint16_t port() const;
  // Requests answered so far (any status), for tests and logs.
  std::uint64_t requests() const;

  static constexpr std::size_t kMaxRequestBytes = 8192;
  static constexpr std::size_t kMaxConnections = 64;
  static constexpr std::chrono::seconds kRequestTimeout{5};

  struct State;  // shared with the connections (implementation detail)

 private:
  void accept();

  std::shared_ptr<State> state_;
};

// "ADDR:PORT" or "[V6ADDR]:PORT" -> endpoint; throws std::runtime_error.
boost::asio::ip::tcp::endpoint parse_listen_address(const std::string &addr_port);

}  // namespace lossless::daemon
