// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// A small rtnetlink client (libnl-3) for what losslessd does to ports:
// list links and root qdiscs, add / change / delete the lossless qdisc.
// Errors carry the kernel's extack message. One socket, owned, move-only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>


#include "lossless.h"

struct nl_sock;

namespace lossless::daemon {

class NetlinkError : public std::runtime_error {
 public:
  NetlinkError(int err, const std::string &what) : std::runtime_error(what), err_(err) {}
  int code() const { return err_; }  // positive errno

 private:
  int err_;
};

struct Link {
  int ifindex = 0;
  std::string name;
  bool up = false;       // IFF_UP and carrier (operational)
  std::uint32_t mtu = 0;
  std::uint32_t hard_header_len = 14;
};

// A port's PFC watchdog (TCA_LOSSLESS_WATCHDOG, docs/WATCHDOG.md), every
// field: losslessd always sends them all. action is LOSSLESS_WD_*.
struct WatchdogSpec {
  std::uint8_t action = 0;               // off
  std::uint64_t detect_ns = 200000000;   // the kernel's defaults
  std::uint64_t restore_ns = 200000000;
  std::uint64_t poll_ns = 100000000;
  std::uint64_t xoff_alarm_ns = 0;       // no alarm
  // Whether the kernel runs it (and dumps it): a storm action or an alarm.
  bool enabled() const { return action != 0 || xoff_alarm_ns != 0; }
  bool operator==(const WatchdogSpec &) const = default;
};

// Whether a qdisc that dumped `dumped` (nullopt: no watchdog nest, so off)
// already has `want`: the same fields, or both off (times do not matter
// while it is off).
inline bool watchdog_in_force(const std::optional<WatchdogSpec> &dumped, const WatchdogSpec &want)
{
  return want.enabled() ? dumped && *dumped == want : !dumped || !dumped->enabled();
}

struct RootQdisc {
  int ifindex = 0;
  std::string kind;
  std::uint32_t handle = 0;
  // lossless only:
  std::string pool;
  std::uint32_t plane_id = 0;
  std::uint64_t rate_bps = 0;
  std::optional<WatchdogSpec> watchdog;  // dumped only while it is on
};

// The options losslessd gives a port's lossless qdisc.
struct LosslessSpec {
  std::optional<std::uint64_t> rate_bps;  // absent: the device's speed
  std::optional<std::uint8_t> queues;
  std::string pool;
  std::optional<std::uint64_t> pool_bytes;
  std::optional<std::uint8_t> lossless_mask;
  std::optional<std::uint32_t> alpha, egress_alpha, reserved_bytes, xon_offset_bytes;
  std::optional<std::uint64_t> cable_delay_ns, sw_delay_ns;
  std::optional<std::uint32_t> headroom_bytes;
  std::optional<std::uint32_t> ecn_kmin_bytes, ecn_kmax_bytes, ecn_pmax;
  std::optional<std::uint8_t> ecn_mode;
  std::optional<std::uint32_t> np_ecn_k_bytes;
  std::optional<int> plane_fd;
  std::optional<WatchdogSpec> watchdog;  // the nest, every field
  std::optional<lossless_plane_scheme> scheme;  // TCA_LOSSLESS_SCHEME (registry.h)
  // The queues' plan (PortFC): queues 0 .. strict-1 strict, the gates that
  // stop each queue (empty: the priorities' and the port's), the port's
  // number in the pool's scheme.
  std::optional<std::uint8_t> strict;
  std::vector<std::uint32_t> gates;
  std::optional<std::uint8_t> scheme_port;
  // The qdisc's own options (tc's quanta, priomap, limit, burst, catchup);
  // empty / nullopt: not sent.
  std::vector<std::uint32_t> quanta_bytes;
  std::vector<std::uint8_t> priomap;
  std::optional<std::uint32_t> limit_packets, burst_bytes, catchup_bytes;
};

// A queue of a lossless qdisc as tc -s class shows it (its class
// xstats, struct tc_lossless_class_xstats).
struct ClassStats {
  std::uint32_t queue = 0;  // class major:queue+1
  bool paused = false;      // a gate of it is closed now
  std::uint32_t gate_mask = 0;
  std::uint64_t pause_frames_rx = 0;
  std::uint64_t paused_ns = 0;  // its gates' closed time, including now
};

class Rtnl {
 public:
  Rtnl();
  ~Rtnl();
  Rtnl(const Rtnl &) = delete;
  Rtnl &operator=(const Rtnl &) = delete;

  std::vector<Link> links();
  std::optional<RootQdisc> root_qdisc(int ifindex);

  // Add (replacing any root qdisc, handle 1:) or change the port's root
  // lossless qdisc (whatever its handle: an adopted one may have another).
  // Throws NetlinkError with the kernel's message.
  void add_lossless(int ifindex, const LosslessSpec &spec);
  void change_lossless(int ifindex, const LosslessSpec &spec);
  void delete_root(int ifindex);
  // The queues of the port's root lossless qdisc (empty if it has none).
  std::vector<ClassStats> classes(int ifindex);

 private:
  void send_qdisc(int type, int flags, int ifindex, const LosslessSpec *spec);
  nl_sock *sk_ = nullptr;
};

}  // namespace lossless::daemon
