// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's runtime: one Boost.Asio event loop that owns the pools'
// planes and policies, keeps the configured ports' qdiscs and ingress
// programs in place as links come and go, runs the policies every period,
// and serves the control socket.
//
// What the daemon installs outlives it: qdiscs, tc filters and pinned
// maps stay when it exits or dies, so the datapath keeps running,
// lossless, with its last parameters. A restarted daemon adopts what it
// finds (a lossless qdisc of the right pool is kept as it is, counters
// and all) instead of re-creating it.
#pragma once

#include <utility>  // before Boost 1.74's asio: its awaitable.hpp needs std::exchange
#include <boost/asio.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config.h"
#include "ingress.h"
#include "plane.h"
#include "policy.h"
#include "rtnl.h"

namespace lossless::daemon {

struct PortConfig {
  std::uint32_t line = 0;  // of its [[port]] in Config::source (0: unknown)
  std::string dev;
  std::string pool;
  std::optional<std::uint64_t> rate_bps;
  std::optional<std::uint8_t> queues;
  std::uint64_t cable_delay_ns = 0;
  std::optional<std::uint32_t> mtu;  // else the device's
  std::uint32_t headroom_bytes = 0;  // 0: the policy's
  ingress::PortConfig ingress;
  // The PFC watchdog to give the qdisc (installed, or adopted with
  // another); nullopt: the configuration has none, the qdisc keeps its own.
  std::optional<WatchdogSpec> watchdog;
  // Its mode (mode_policy.h); nullopt: the daemon leaves it alone.
  std::optional<policy::ModeSetting> mode;
  // PortFC's plan for a port of [portfc] (portfc_node.h): queues 0 .. strict-1
  // strict, the gates of each queue, its BCube port number (a switch's).
  std::optional<std::uint8_t> strict;
  std::vector<std::uint32_t> gates;
  std::optional<std::uint8_t> scheme_port;
};

struct PoolConfig {
  std::uint32_t line = 0;  // of its [[pool]] in Config::source (0: unknown)
  policy::PoolSettings settings;
  std::string policy = "pfc-dt";
  std::uint64_t buffer_bytes = 4 << 20;
  std::optional<std::uint32_t> ecn_kmin_bytes, ecn_kmax_bytes, ecn_pmax;
  std::uint8_t ecn_mode = LOSSLESS_ECN_MODE_RED;
  std::uint32_t np_ecn_k_bytes = 0;
};

struct Config {
  std::string source;  // the file it came from
  std::string pin_dir = "/sys/fs/bpf/lossless";
  std::string socket = "/run/lossless/losslessd.sock";
  std::chrono::nanoseconds period = std::chrono::milliseconds(1);
  std::optional<std::string> prometheus;  // host:port
  std::vector<PoolConfig> pools;
  std::vector<PortConfig> ports;
  // [host_cc]: the hosts' congestion control (host_cc.h); nullopt: none.
  std::optional<config::HostCc> host_cc;
  // [portfc]: this node's part in PortFC (portfc_node.h); nullopt: none.
  std::optional<config::Portfc> portfc;
};

// "losslessd: " and the message on stderr (the journal under systemd).
void log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// The link speed the device reports (ethtool) in Mbit/s, as the qdisc
// reads it when no rate is given; 0 if it reports none.
std::uint32_t device_speed_mbps(const std::string &dev);

// Loads and converts a configuration file (throws with every error).
using ConfigLoader = Config (*)(const std::string &path);

struct Pool;     // pool.h
struct Request;  // request.h
class HostCc;    // host_cc.h
class PortFc;    // portfc_node.h

class Daemon {
 public:
  Daemon(Config cfg, ConfigLoader loader);
  ~Daemon();

  // Check everything, then install or adopt; throws before changing
  // anything if a check fails, and undoes this run's changes if an
  // install step fails.
  void start();
  // The checks of start() that need no lock and change nothing (losslessd
  // --check): the pin directory, the pools' pinned planes, and every
  // port's device as start() would use it. Throws at the first failure,
  // "FILE:LINE: port "DEV": ..." with the line of its table.
  void validate();
  // Serve until SIGTERM/SIGINT. The datapath stays as it is.
  void run();
  // Remove what a configuration installs: qdiscs, filters, pins.
  static void cleanup(const Config &cfg);

  // One control request (a JSON object) -> its JSON reply. Public for tests.
  std::string handle_request(const std::string &line);

 private:
  struct Port;
  struct Session;

  void check();
  void install();
  void ensure_port(Port &p, bool first_run);
  void on_tick();
  void update_links(Pool &pool) const;
  void tick_pool(Pool &pool);
  static bool links_current(const Pool &pool);
  void refresh_links();
  void arm_link_watch();
  void arm_tick();
  void start_control();
  void accept_control();
  void reload();
  std::string scheme_command(const Request &req);
  std::string clear_command(const Request &req);
  std::string move_scheme_command(const Request &req);
  std::unique_ptr<PortFc> prepare_portfc(Config &cfg, const std::vector<Link> &links) const;
  Pool *pool_named(const std::string &name);

  Config cfg_;
  ConfigLoader loader_;
  boost::asio::io_context io_;
  boost::asio::steady_timer tick_;
  boost::asio::signal_set signals_;
  std::unique_ptr<boost::asio::local::stream_protocol::acceptor> control_;
  std::unique_ptr<boost::asio::posix::stream_descriptor> link_watch_;
  struct nl_sock *link_sock_ = nullptr;
  Rtnl rtnl_;
  std::optional<ingress::Program> program_;
  std::vector<std::unique_ptr<Pool>> pools_;
  std::vector<Port> ports_;
  std::unique_ptr<HostCc> host_cc_;  // [host_cc]; null: none
  std::unique_ptr<PortFc> portfc_;   // [portfc]; null: none
  int lock_fd_ = -1;
  std::uint64_t ticks_ = 0;
  std::chrono::nanoseconds busy_{0};
};

}  // namespace lossless::daemon
