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
//
// "auto" round trip: D starts at the round trip the pool's PFC headroom
// assumes for the port, 2 x (cable delay + the pool's sw_delay), rounded
// up to 1 ms, and is raised to the mode's measured max_rtt plus a slot
// (the probe reads up to one slot short), rounded up to 1 ms, whenever
// that is above it; never lowered within a run. A raise is acted on once
// per new maximum: the same measurement never pushes twice, though a
// larger D grows a default slot (D / 16). An "auto" J follows the new
// slot up (J is at least one slot). The round-trip alarm compares the
// measurement with the D in force: it fires only when a raise was refused.
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

// line appended to a policy's notes for the log ('\n' between lines).
void add_note(std::string &notes, const std::string &line);

struct PortLink;

// A port's mode as configured: params are the rows' words (0: the
// row's default), jitter_auto the "auto" J, rtt_auto the "auto" D (its
// word then 0).
struct ModeSetting {
  std::uint32_t mode = 0;  // LL_MODE_*
  std::array<std::uint64_t, LL_MODE_PARAM_WORDS> params{};
  bool jitter_auto = false;
  bool rtt_auto = false;
  bool operator==(const ModeSetting &) const = default;
};

// The TOML key of a mode's row: its tc keyword.
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
// J's floor, with D = rtt_ns when m's D is "auto"; 0 for another mode
// than Bifrost.
std::uint64_t mode_slot_ns(const ModeSetting &m, std::uint64_t rtt_ns = 0);

// "auto" J from a measured max lateness: max(slot, 1.5 x max_late) rounded
// up to 1 ms.
std::uint64_t auto_jitter_ns(std::uint64_t slot_ns, std::uint64_t max_late_ns);

// "auto" D's start: 2 x (cable-delay + sw-delay), the round trip the
// pool's PFC headroom assumes, rounded up to 1 ms; 0 when both are 0.
std::uint64_t auto_rtt_start_ns(std::uint64_t cable_delay_ns, std::uint64_t sw_delay_ns);
// "auto" D from a measured max_rtt: max_rtt + slot rounded up to 1 ms
// (0 without a measurement).
std::uint64_t auto_rtt_ns(std::uint64_t slot_ns, std::uint64_t max_rtt_ns);
// The refusal of a configuration whose D is "auto" and has nothing to
// start from.
inline constexpr const char *kAutoRttNoStart =
    "bifrost-rtt = \"auto\" needs the port's cable-delay or sw-delay to start from";

// Why the core refuses m (with J = jitter_ns and D = rtt_ns when auto) on
// a port of rate_bps and a pool of mtu_bytes, or "" (ll_mode_check()'s
// message).
std::string mode_check(const ModeSetting &m, std::uint64_t rate_bps, std::uint32_t mtu_bytes,
                       std::uint64_t jitter_ns = 0, std::uint64_t rtt_ns = 0);

// The modes of a pool's ports, for its policy: pure, like the policies.
class ModePorts {
 public:
  // The entries to push for ports (their configured modes, "auto" J and
  // D as raised from telemetry; mode 0 for a port this object set before
  // whose mode is no longer configured), in ports' order; notes gets a
  // line per J or D raised, per raise or port refused, and an alarm each
  // time a port's measured round trip (its mode's max_rtt) grows past the
  // bound in force (its "-rtt" row, or the "auto" D a refused raise left).
  // sw_delay_ns is the pool's software delay, for an "auto" D's start.
  std::vector<lossless_plane_port_mode> decide(const std::vector<PortLink> &ports,
                                               const lossless_plane_tel *tel,
                                               std::uint64_t sw_delay_ns, std::string &notes);
  // The datapath took entries: their ports are the daemon's until a
  // decision clears them.
  void pushed(const std::vector<lossless_plane_port_mode> &entries);
  // The current "auto" J of ifindex (0: none yet).
  std::uint64_t jitter_ns(std::uint32_t ifindex) const;
  // The current "auto" D of ifindex (0: none yet).
  std::uint64_t rtt_ns(std::uint32_t ifindex) const;

 private:
  // Raise port's "auto" D (cur) from the telemetry's max_rtt, and its
  // "auto" J (jitter, or nullptr) to the new slot.
  void raise_rtt(const PortLink &port, const ModeSetting &m, const lossless_plane_tel *tel,
                 std::uint32_t mtu, std::uint64_t &cur, std::uint64_t *jitter,
                 std::string &notes);
  void rtt_alarm(const PortLink &port, const ModeSetting &m, std::uint64_t auto_rtt_ns,
                 const lossless_plane_tel *tel, std::string &notes);
  std::map<std::uint32_t, std::uint64_t> jitter_ns_;  // "auto" J per ifindex
  std::map<std::uint32_t, std::uint64_t> rtt_ns_;     // "auto" D per ifindex
  std::map<std::uint32_t, std::uint64_t> rtt_seen_;   // max_rtt an "auto" D took
  std::set<std::uint32_t> owned_;                     // ports we set a mode on
  std::map<std::uint32_t, std::string> refused_;      // said once per reason
  // A raise refused, said once per reason (apart from refused_, which a
  // port the mode takes clears every tick).
  std::map<std::uint32_t, std::string> jitter_refused_, rtt_refused_;
  std::map<std::uint32_t, std::uint64_t> rtt_said_;   // measured RTT alarmed at
};

}  // namespace lossless::policy
