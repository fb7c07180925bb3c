// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The policy interface of losslessd: a policy turns what the daemon knows
// about a pool (its configuration, its ports' links, the datapath's last
// telemetry) into the parameters it pushes into the datapath through the
// pool's plane (plane.h). It runs every period (default 1 ms) and on
// events (a port up, down or changed; a parameter set at run time).
//
// Policies are pure: no I/O, no clock of their own, so tests drive them
// with synthetic inputs. Formulas the datapath also uses (headroom, the
// alpha encoding) come from the shared core and daemon/common, never a
// second copy; the parameters' keys, ranges and defaults from the pool's
// parameter table (daemon/common/ll_params.h).
//
// A scheme is its descriptor in the core and, in the daemon, a
// Registration (registry.h) of the policy that drives it, its checks and,
// if part of it runs here, its agent (agent.h), reached through the
// control channel methods below.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ll_params.h"
#include "lossless.h"
#include "agent.h"
#include "mode_policy.h"
#include "plane.h"

namespace lossless::policy {

// A port of the pool as the daemon sees it now.
struct PortLink {
  std::uint32_t ifindex = 0;
  std::string dev;
  bool up = false;
  std::uint64_t rate_bps = 0;
  std::uint64_t cable_delay_ns = 0;
  std::optional<std::uint64_t> sw_delay_ns;  // its own sw-delay; nullopt: the pool's
  std::uint32_t mtu_bytes = 0;        // largest accounted frame (L2 + VLAN)
  std::uint32_t headroom_bytes = 0;   // configured override; 0 = computed
  // The port's shaper catch-up, max(burst, catch-up), as its qdisc reports
  // it in the telemetry: headroom term (9), the upstream's shaper taken to
  // be like this port's, as the kernel does. 0: not reported yet.
  std::uint32_t catchup_bytes = 0;
  // The port's mode as configured (mode_policy.h); nullopt: no `mode` key,
  // the daemon leaves the port's mode alone unless it set one itself.
  std::optional<ModeSetting> mode;
  bool operator==(const PortLink &) const = default;
};

// Pool parameters from the configuration; the defaults are the rows'
// (ll_params.h), reserved and xon-offset in MTUs of a 1500-byte Ethernet
// port (1518 bytes with the link header and a VLAN tag).
struct PoolSettings {
  static constexpr std::uint32_t kDefaultFrameBytes = 1518;
  static std::uint64_t def(ll_param_id id)
  {
    return ll_param_default(&ll_params[id], kDefaultFrameBytes);
  }

  std::string name;
  std::uint32_t alpha = static_cast<std::uint32_t>(def(LL_P_ALPHA));  // num << 8 | shift
  std::uint32_t egress_alpha = static_cast<std::uint32_t>(def(LL_P_EGRESS_ALPHA));
  std::uint32_t reserved_bytes = static_cast<std::uint32_t>(def(LL_P_RESERVED));
  std::uint32_t xon_offset_bytes = static_cast<std::uint32_t>(def(LL_P_XON_OFFSET));
  std::uint64_t sw_delay_ns = def(LL_P_SW_DELAY);
  std::uint8_t lossless_mask = static_cast<std::uint8_t>(def(LL_P_LOSSLESS_PRIOS));
  std::uint64_t buffer_bytes = def(LL_P_BUFFER);
  // The datapath scheme and its parameters (registry.h); zeroed: dt.
  lossless_plane_scheme scheme{};
};

struct Inputs {
  const PoolSettings *pool = nullptr;
  std::vector<PortLink> ports;
  const lossless_plane_tel *telemetry = nullptr;  // nullptr before the first
  std::uint64_t now_ns = 0;
};

// A run-time parameter: value as text, as in the config file and tc.
struct ParamInfo {
  std::string name;
  std::string value;
  std::string help;
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;

  // Parameters to push now, or nullopt when the datapath already has them.
  // After a push the daemon calls pushed() once the datapath confirmed.
  virtual std::optional<plane::Params> decide(const Inputs &in) = 0;
  virtual void pushed(const plane::Params &p) = 0;
  // The datapath refused p (errno): forget it so decide() retries only
  // after the inputs change.
  virtual void refused(const plane::Params &p, int err) = 0;

  // Run-time parameters: set validates value and returns an error message
  // (empty on success); the next decide() pushes the change.
  virtual std::string set(const std::string &key, const std::string &value) = 0;
  virtual std::vector<ParamInfo> params() const = 0;

  // The software delay (headroom.h term 7) this policy sizes port
  // ifindex's headroom with now: the datapath's timers must run within it.
  virtual std::uint64_t sw_delay_ns(std::uint32_t ifindex) const = 0;

  // The scheme control channel (agent.h): the block to write now, or
  // nullopt (none without an agent).
  virtual std::optional<ChannelBlock> block(const Inputs &in)
  {
    (void)in;
    return std::nullopt;
  }
  // A command for the pool's scheme (losslessctl scheme ARGS...).
  virtual CommandResult command(const std::vector<std::string> &args, const Inputs &in)
  {
    (void)args, (void)in;
    CommandResult r;
    r.error = "policy " + std::string(name()) + " takes no scheme commands";
    return r;
  }
  // The scheme's commands (usage lines) and run-time state (a JSON
  // object; null without an agent).
  virtual std::vector<std::string> command_usage() const { return {}; }
  virtual nlohmann::json channel_state(const Inputs &in) const
  {
    (void)in;
    return nullptr;
  }
  // A reload: take old's run-time state (its agent), old being the same
  // policy.
  virtual void carry_over(Policy &old) { (void)old; }
  // A change made behind the daemon's back (ownership.h): adopt() takes
  // the settings the policy passes through from the configuration
  // (alpha, egress-alpha, reserved, xon-offset, the scheme's parameters
  // under the same scheme) from the datapath's snapshot t as its own;
  // revert() forgets the last decision, so the next decide() pushes the
  // policy's values again.
  virtual void adopt(const lossless_plane_tel &t) { (void)t; }
  virtual void revert() {}
  // Lines for the log since the last call (a port mode's "auto" jitter
  // raised, a mode the core refuses).
  virtual std::string take_notes() { return {}; }
};

// The registry's (registry.h): a policy by name, and every name.
std::unique_ptr<Policy> make(std::string_view name, const PoolSettings &pool);
std::vector<std::string> names();

}  // namespace lossless::policy
