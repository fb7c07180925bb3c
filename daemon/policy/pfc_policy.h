// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The PFC family's policy: it drives every scheme of the pool's MMU
// (each registered in its scheme_<name>.cpp). For pfc-dt,
// the classic lossless switch (PFC + Dynamic Threshold + static headroom,
// docs/MMU.md), it pushes
//   - alpha, egress-alpha, reserved and xon-offset from the configuration
//     (or as set at run time);
//   - a headroom per port and lossless priority from the port's rate,
//     cable delay and MTU and the software delay (ll_headroom_bytes() of
//     the shared core), where the software delay is the larger of the
//     configured sw_delay and the one measured on the datapath: the bytes
//     a paused port's upstream still sent after the pause (its peak
//     headroom use; under dsh, also its insurance peak, the headroom its
//     queues share) beyond the non-software terms, at the port's rate,
//     plus 25 % margin. A port with a configured headroom keeps it;
//   - headroom term (9), the upstream's shaper burst: the port's own
//     catch-up as its qdisc reports it (the kernel takes the upstream to be
//     like the port, and so does the policy). A port whose qdisc has not
//     reported it yet gets no computed headroom from the policy: it keeps
//     the one its qdisc computed, which counts it;
//   - the pool's scheme and its parameters (registry.h), as configured or
//     set at run time.
// For the other schemes the headroom and the pool parameters are the
// baseline's and the scheme block is the scheme's: a change that
// check_scheme() (registry.h) refuses against the ports the policy last
// saw (their round trip with the software delay in force, measured or
// configured) is refused; a scheme with an agent (agent.h: SPFC's slow
// path and oracle) has it behind the control channel methods.
#pragma once

#include "policy.h"
#include "registry.h"
#include "scheme_parts.h"

namespace lossless::policy {


class PfcPolicy final : public Policy {
 public:
  PfcPolicy(const Registration &reg, const PoolSettings &pool);
  explicit PfcPolicy(const PoolSettings &pool) : PfcPolicy(kPfcDtRegistration, pool) {}
  std::string_view name() const override { return reg_.policy; }
  std::optional<plane::Params> decide(const Inputs &in) override;
  void pushed(const plane::Params &p) override;
  void refused(const plane::Params &p, int err) override;
  std::string set(const std::string &key, const std::string &value) override;
  std::vector<ParamInfo> params() const override;

  // The headroom this policy gives a port with software delay sw_ns
  // (its catch-up included).
  static std::uint64_t headroom_bytes(const PortLink &port, std::uint64_t sw_ns);
  // Software delay implied by a peak headroom use on a port (0 if the
  // peak is within the non-software terms, the catch-up among them).
  static std::uint64_t measured_sw_delay_ns(const PortLink &port, std::uint64_t peak_bytes);
  // Software delay implied by a port's slowest measured XOFF response
  // (the premise's, from the MMU's XOFF decision to the frame built for
  // the wire: this switch's half of the loop) against the delay sw_ns in
  // force: 0 while the response is within half of sw_ns; else both halves
  // taken to be as slow, 2 x the response, + 25 % margin (as a peak's),
  // rounded up to 1 us, at most sw-delay's maximum.
  static std::uint64_t response_sw_delay_ns(std::uint64_t response_max_ns, std::uint64_t sw_ns);
  std::uint64_t sw_delay_ns(std::uint32_t ifindex) const override;

  std::optional<ChannelBlock> block(const Inputs &in) override;
  CommandResult command(const std::vector<std::string> &args, const Inputs &in) override;
  std::vector<std::string> command_usage() const override;
  nlohmann::json channel_state(const Inputs &in) const override;
  void carry_over(Policy &old) override;
  std::string take_notes() override;
  void adopt(const lossless_plane_tel &t) override;
  void revert() override;
  // The port modes' state ("auto" jitter), for status and tests.
  const ModePorts &modes() const { return modes_; }

 private:
  // The row (ll_params.h) of a parameter key this policy takes: a
  // pool-wide one, or one of its scheme's ("<scheme>.<key>").
  const ll_param *param(const std::string &key) const;
  // The ports as check_scheme() sees them, from the last decision's.
  std::vector<SchemePort> scheme_ports() const;

  const Registration &reg_;
  PoolSettings cfg_;
  std::map<std::uint32_t, std::uint64_t> measured_ns_;  // per ifindex
  std::optional<plane::Params> last_;                   // confirmed or refused
  // Inputs of the last decision: unchanged inputs, unchanged decision (the
  // common tick costs a telemetry scan, not a new decision).
  std::vector<PortLink> last_ports_;
  bool dirty_ = true;                                   // set() since then
  std::unique_ptr<SchemeAgent> agent_;                  // the scheme's, or none
  ModePorts modes_;                                     // the ports' modes
  // A push with modes refused EBUSY (a mode id changes only while its
  // port holds no lossless bytes): retried kBusyRetryNs of telemetry time
  // after the first snapshot that follows the refusal.
  static constexpr std::uint64_t kBusyRetryNs = 100000000;
  bool busy_retry_ = false;
  std::uint64_t busy_since_ns_ = 0;
  std::string notes_;                                   // for take_notes()
};

}  // namespace lossless::policy
