// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Port modes in losslessd (docs/DAEMON.md, "Port modes"): a [[port]] with
// `mode = "bifrost"` runs that mode beside its pool's scheme. The keys,
// units and ranges are the mode's descriptor rows in the core
// (kernel/core/mode_<name>.c, ll_mode_lookup()->params): a row's TOML key
// is its tc keyword with '_' for '-' ("bifrost-rtt" -> bifrost_rtt). The
// parameters are checked by the core's ll_mode_check(), the one check tc
// and the datapath use.
//
// Ownership: the daemon sets the mode of the ports whose [[port]] has a
// `mode` key (`mode = "none"` clears whatever the port runs), and clears
// (mode 0) a port without the key only if it set that port's mode itself
// in this run (the key went away in a reload). A mode that tc set on a port the
// configuration gives no `mode` is left alone; so is every mode when the
// daemon exits (the datapath keeps the last parameters).
//
// "auto" jitter: J starts at one slot and is raised to 1.5 x the mode's
// measured max_late (rounded up to 1 ms) whenever that is above it, never
// lowered within a run. Each new J is a push through the plane that the
// running loop takes from its next slot (a larger J also grows the
// default buffer H the port carves), so the 1.5 x margin and the 1 ms
// steps are its hysteresis: the same lateness never pushes twice.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

extern "C" {
#include "mode.h"
}
#include "lossless.h"

namespace lossless::policy {

struct PortLink;

// A port's mode as configured: params are the rows' words (0: the
// row's default), jitter_auto the "auto" J.
struct ModeSetting {
  std::uint32_t mode = 0;  // LL_MODE_*
  std::array<std::uint64_t, LL_MODE_PARAM_WORDS> params{};
  bool jitter_auto = false;
  bool operator==(const ModeSetting &) const = default;
};

// The TOML key of a mode's row: its tc keyword, '-' -> '_'.
std::string mode_key(const ll_param &row);
// The keys of every mode's rows (for the [[port]] key table).
std::vector<std::string> mode_keys();
// The row of mode's that key names, or nullptr.
const ll_param *mode_row(std::uint32_t mode, std::string_view key);
// Word of mode's jitter row (the one "auto" applies to), or -1.
int mode_jitter_word(std::uint32_t mode);
// The word of mode's round-trip bound (its "-rtt" row), or -1.
int mode_rtt_word(std::uint32_t mode);
// Index of mode's counter named name (its descriptor's stats), or -1.
int mode_stat(std::uint32_t mode, std::string_view name);

// The slot T of params (the core's default when 0), for "auto"
// J's floor; 0 for another mode than Bifrost.
std::uint64_t mode_slot_ns(const ModeSetting &m);

// "auto" J from a measured max lateness: max(slot, 1.5 x max_late) rounded
// up to 1 ms.
std::uint64_t auto_jitter_ns(std::uint64_t slot_ns, std::uint64_t max_late_ns);

// Why the core refuses m (with J = jitter_ns when auto) on a port of
// rate_bps and a pool of mtu_bytes, or "" (ll_mode_check()'s message).
std::string mode_check(const ModeSetting &m, std::uint64_t rate_bps, std::uint32_t mtu_bytes,
                       std::uint64_t jitter_ns = 0);

// The modes of a pool's ports, for its policy: pure, like the policies.
class ModePorts {
 public:
  // The entries to push for ports (their configured modes, "auto" J as
  // raised from telemetry; mode 0 for a port this object set before
  // whose mode is no longer configured), in ports' order; notes gets a
  // line per J raised, per port refused, and an alarm each time a port's
  // measured round trip (its mode's max_rtt) grows past the configured
  // bound (its "-rtt" row).
  std::vector<lossless_plane_port_mode> decide(const std::vector<PortLink> &ports,
                                               const lossless_plane_tel *tel,
                                               std::string &notes);
  // The datapath took entries: their ports are the daemon's until a
  // decision clears them.
  void pushed(const std::vector<lossless_plane_port_mode> &entries);
  // The current "auto" J of ifindex (0: none yet).
  std::uint64_t jitter_ns(std::uint32_t ifindex) const;

 private:
  void rtt_alarm(const PortLink &port, const ModeSetting &m, const lossless_plane_tel *tel,
                 std::string &notes);
  std::map<std::uint32_t, std::uint64_t> jitter_ns_;  // "auto" J per ifindex
  std::set<std::uint32_t> owned_;                     // ports we set a mode on
  std::map<std::uint32_t, std::string> refused_;      // said once per reason
  std::map<std::uint32_t, std::uint64_t> rtt_said_;   // measured RTT alarmed at
};

}  // namespace lossless::policy
