// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Whether a pool's ports fit its buffer, as the kernel decides when each
// port's qdisc joins the pool: the same core (kernel/core/mmu.c) on a pool
// of the same configuration, the ports attached in the daemon's order. A
// port's headroom per lossless priority is ll_mmu_port_headroom() with the
// qdisc's default shaper catch-up (headroom term 9, core/shaper.h); what
// it carves out of the buffer is the scheme's (ll_scheme_port_carve(): one
// headroom per lossless priority under DT), plus a reserve of 8 priorities.
// The kernel refuses the port that leaves less than one frame shared.
#ifndef LL_DAEMON_HEADROOM_CHECK_H
#define LL_DAEMON_HEADROOM_CHECK_H

#include <cstdint>
#include <string>
#include <vector>

#include "policy.h"

namespace lossless::daemon {

struct HeadroomPort {
  std::string dev;
  std::uint32_t line = 0;            // of its [[port]] (0: unknown)
  std::uint64_t rate_bps = 0;        // configured, or the device's speed
  std::uint64_t cable_delay_ns = 0;
  std::uint32_t dev_frame_bytes = 0;  // device MTU + link header (no VLAN tag)
  std::uint32_t headroom_bytes = 0;   // given per lossless priority; 0: computed
  std::uint32_t scheme_port = 0;      // its number in the scheme + 1; 0: none
  std::optional<std::uint64_t> sw_delay_ns;  // its own; nullopt: the pool's
  // The shaper's, as given to its qdisc; nullopt: the qdisc's defaults.
  std::optional<std::uint32_t> burst_bytes, catchup_bytes;
};

// One port's part, as check_pool_headroom() computed it.
struct HeadroomLine {
  std::string dev;
  std::uint64_t headroom_bytes = 0;  // per lossless priority
  std::uint64_t carve_bytes = 0;     // the scheme's headroom region for it
  std::uint64_t reserved_bytes = 0;  // 8 priorities' reserve
};

struct HeadroomResult {
  std::string error;  // empty: every port fits ("FILE:LINE: port ...: ...")
  std::vector<HeadroomLine> ports;
  std::uint32_t pool_mtu_bytes = 0;  // the pool's frame (first port's + VLAN)
  std::uint64_t need_bytes = 0;      // the smallest buffer that holds them all
};

// The pool's ports (in the order the daemon adds their qdiscs) against its
// settings (buffer, lossless priorities, reserve, scheme, sw_delay);
// source is the configuration file, for "FILE:LINE: " in the message.
HeadroomResult check_pool_headroom(const policy::PoolSettings &pool, std::uint32_t pool_line,
                                   const std::vector<HeadroomPort> &ports,
                                   const std::string &source);

}  // namespace lossless::daemon

#endif
