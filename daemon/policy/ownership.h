// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Ownership of a pool's settings while losslessd runs it (docs/DAEMON.md,
// "Ownership"): a change made behind the daemon's back, by `tc qdisc
// change` or by another writer of the plane (`losslessctl --plane ...
// set`), is found by comparing each telemetry snapshot with what the
// datapath held right after the daemon's last push, and is either
// adopted into the policy's state or reverted. The rule, per setting:
//
//   - settings the policy only passes through from the configuration
//     (alpha, egress-alpha, reserved, xon-offset, the scheme's
//     parameters): adopted; the policy pushes the new value as its own
//     from then on, until a reload or a restart applies the file again;
//   - settings the policy computes or decides (each port's headroom, from
//     its rate, cable, MTU and the software delay; the scheme itself,
//     which is the policy's; the mode of a port whose [[port]] has a mode
//     key): reverted; the policy pushes its own value again at once.
//
// Pure: no I/O, no clock; the pool (losslessd/pool.cpp) logs and counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lossless.h"
#include "plane.h"
#include "policy.h"

namespace lossless::policy {

// Who made a change: what the telemetry can tell. A plane writer leaves
// its control generation in applied_gen; tc leaves none.
enum class Source { Tc, Plane };
enum class Action { Adopt, Revert };

// What the datapath holds of the settings the daemon pushes, as the first
// snapshot after a push of the daemon's was settled shows them (so a value
// the datapath normalises is compared as the datapath keeps it). Headroom
// only of the ports that push set.
struct Held {
  std::uint32_t alpha = 0, egress_alpha = 0, reserved_bytes = 0, xon_offset_bytes = 0;
  lossless_plane_scheme scheme{};
  std::map<std::uint32_t, std::uint32_t> headroom_bytes;  // by ifindex
  std::map<std::uint32_t, std::uint32_t> mode;            // the ports' modes the push set
};

Held held(const lossless_plane_tel &t, const plane::Params &pushed);

struct ForeignChange {
  std::string setting;  // the `losslessctl set` key: "alpha", "headroom", "scheme", "dsh.window"
  std::string dev;      // the port of a per-port setting, else ""
  std::string old_value, new_value;  // as tc and losslessctl write them
  Source source = Source::Tc;
  Action action = Action::Adopt;
};

// t's source against the daemon's own last control generation.
Source source_of(const lossless_plane_tel &t, std::uint64_t own_gen);

// The settings of h that t shows otherwise, with the rule's action. ports:
// the pool's links (their names; a port down or gone is not judged: the
// policy pushes nothing to it).
std::vector<ForeignChange> foreign_changes(const Held &h, const lossless_plane_tel &t,
                                           Source who, const std::vector<PortLink> &ports);

const char *source_name(Source s);  // "tc", "plane"
const char *action_name(Action a);  // "adopted", "reverted"

// The log line: "pool sw0: alpha changed behind losslessd by tc: 1/8 -> 1/2; adopted (...)".
std::string log_line(const std::string &pool, const ForeignChange &c);

}  // namespace lossless::policy
