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

// A BCube node and its ports, as lossless-portfc attach and losslessd's
// [portfc] put it on them: a server's ports one per level (level 0
// first), a switch's any of its ports (its level and index W in node).
struct Node {
  ll_bcube b{};
  std::uint8_t role = LL_PORTFC_ROLE_SERVER;  // LL_PORTFC_ROLE_*
  std::uint32_t node = 0;   // server id, or switch index W
  std::uint32_t level = 0;  // a switch's
  std::uint16_t major = 1;  // the lossless qdisc's handle
};

// The position of port i of the node (a server's port i is at level i);
// check() it first.
ll_portfc_port port_of(const Node &node, std::size_t i);

// Puts the classifier on every port of the node: its position, the
// filter and, with ingress (lossless-ingress's maps on the same ports),
// which of PortFC's frames it takes (a server: A and B, relaying B to its
// other ports; a switch: R). Returns each port's program id. Throws
// Error(EINVAL) with check()'s message before touching anything.
std::vector<std::uint32_t> attach_node(Program &prog, const Node &node,
                                       const std::vector<std::uint32_t> &ifindexes,
                                       ingress::Maps *ingress);
// The classifier off a port: the filter, its position and, with ingress,
// its part in PortFC's frames. Absent parts are fine.
void detach_port(Program &prog, std::uint32_t ifindex, ingress::Maps *ingress);
// Writes the address of every server of b: server i at base + i (host
// order). Returns how many.
std::uint32_t write_addrs(Program &prog, const ll_bcube &b, std::uint32_t base);
// Removes the maps pinned in pin_dir, and pin_dir if it is then empty.
void remove_pins(const std::string &pin_dir);

}  // namespace lossless::portfc
