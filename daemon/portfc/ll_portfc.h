// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_portfc: userspace side of PortFC's egress classifier
// (bpf/lossless_portfc.bpf.c, docs/PORTFC.md). Loads it (libbpf skeleton),
// shares its maps through bpffs pins, attaches it at a port's clsact
// egress, writes the ports' BCube positions and the servers' addresses,
// reads the counters; and the BCube plan (servers, switches, cabling,
// addresses, both shortest paths to every destination, every port's
// queues and gates) computed by the core (kernel/core/portfc.c), which
// topologies and the daemon build from.
//
// Same rules as ll_ingress and ll_cc, whose building blocks it uses:
// objects own what they hold and are move-only, no global state, errors
// thrown as lossless::ingress::Error.
//
// The tc filter this library owns on a port: clsact egress pref 3, handle
// 0x4c50 ("LP"), after lossless-cc's (pref 1).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ingress.h"          // Error, Fd, check_bpffs, ifindex_of
#include "lossless_portfc.h"  // bpf/: map layouts (pulls portfc.h)

namespace lossless::portfc {

using ingress::Error;
using ingress::Fd;

inline constexpr std::uint32_t kTcHandle = 0x4c50;
inline constexpr std::uint32_t kTcPriority = 3;
inline const std::string kDefaultPinDir = "/sys/fs/bpf/lossless_portfc";

using Stats = ll_portfc_stats;

// Why (n, k) or a port's position is refused, for the user; "" if fine.
std::string check(const ll_portfc_port &p);

// The largest BCube plan() prints (BCube(4,3), BCube(2,7)).
inline constexpr std::uint32_t kPlanMaxServers = 256;

// The plan of BCube(n, k) with server i at address base + i (IPv4, host
// order). Throws Error(EINVAL) for a BCube the core refuses or addresses
// past 255.255.255.255, Error(E2BIG) above kPlanMaxServers servers. Keys:
// n, k, servers[], switches[], queues, gates (docs/PORTFC.md, "The plan").
nlohmann::ordered_json plan(const ll_bcube &b, std::uint32_t base);

// The loaded program and its maps.
class Program {
 public:
  // Reuses the maps pinned in pin_dir and pins the missing ones; an empty
  // pin_dir: private maps, nothing pinned (tests).
  static Program load(const std::string &pin_dir = kDefaultPinDir);

  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  ~Program();

  // Puts the classifier on ifindex's clsact egress (creating clsact if
  // needed), replacing this library's filter; returns its program id.
  std::uint32_t attach(std::uint32_t ifindex) const;

  // A port's position (check() first: Error(EINVAL) with its message).
  void set_port(std::uint32_t ifindex, const ll_portfc_port &p);
  void del_port(std::uint32_t ifindex);
  std::vector<std::pair<std::uint32_t, ll_portfc_port>> ports() const;
  // Address (network order) -> server id.
  void set_addr(std::uint32_t addr_be, std::uint32_t id);
  Stats stats() const;

 private:
  struct Skel;
  explicit Program(std::unique_ptr<Skel> skel);
  std::unique_ptr<Skel> skel_;
};

// Removes this library's filter from ifindex's clsact egress. Throws
// Error(ENOENT) if it is not there.
void detach(std::uint32_t ifindex);
std::optional<std::uint32_t> attached(std::uint32_t ifindex);

}  // namespace lossless::portfc
