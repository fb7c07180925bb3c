// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// SPFC's slow path and oracle in the daemon (spfc.md 6.3; docs/SPFC.md,
// "The slow path and the oracle"), written into the datapath as SPFC's
// payload of the scheme control channel (kernel/uapi/lossless.h, struct
// lossless_spfc_channel; SPFC's agent in scheme_spfc.cpp):
//
//   slow path  with spfc-mode daemon, once per window TC of the datapath's
//              clock: per port, the lossless priorities whose departures
//              over the last complete window (the telemetry's last_window)
//              reached IRC_th (irc_threshold) and that are not paused now,
//              published with the window's end;
//   oracle     per (port, lossless priority): victim (the paper's Fig. 4:
//              a Victim whatever its departures), normal (SPFC off: DT) or
//              auto (the detector decides), kept by the daemon and
//              written with every block.
//
// Pure: no I/O, no clock; the telemetry is the input, so tests drive it
// with synthetic snapshots.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lossless.h"

namespace lossless::policy {

// The oracle's state of a (port, priority).
enum class SpfcForce : std::uint8_t { Auto, Victim, Normal };

// "victim", "normal", "auto" (as typed; nothing else).
std::optional<SpfcForce> parse_spfc_force(std::string_view state);
const char *spfc_force_name(SpfcForce f);

// A priority as typed, 0 .. 7 (digits only).
std::optional<unsigned> parse_spfc_prio(std::string_view prio);

// The end of the latest complete window at time_ns: windows are aligned to
// multiples of tc_ns from time 0 (the datapath's, spfc.md A5). 0 if none.
std::uint64_t spfc_window_end(std::uint64_t time_ns, std::uint64_t tc_ns);

// The slow path's Victim bits of telemetry port slot i: lossless
// priorities with last_window >= irc_threshold (> 0) and not paused
// (told XOFF). 0 if the slot has no SPFC telemetry.
std::uint8_t spfc_victims(const lossless_plane_tel &t, std::uint32_t slot);

struct SpfcForced {
  std::uint32_t ifindex = 0;
  unsigned prio = 0;
  SpfcForce state = SpfcForce::Auto;
};

class SpfcSlowPath {
 public:
  // Force (ifindex, prio): "" or why not (prio not lossless in
  // lossless_mask). Auto forgets it. The next block() writes it.
  std::string force(std::uint32_t ifindex, unsigned prio, SpfcForce state,
                    std::uint8_t lossless_mask);
  SpfcForce forced(std::uint32_t ifindex, unsigned prio) const;
  // Every forced (port, priority), by ifindex and priority.
  std::vector<SpfcForced> all_forced() const;

  // The block to write now, or nullopt: with spfc-mode daemon in force
  // (the telemetry's scheme block), a publication for every port of the
  // telemetry once per window TC in force (the first window ending after
  // the last one published, by the telemetry's clock); and
  // whenever the forced states or the pool's ports changed since the last
  // block. Ports are the telemetry's slots (a forced port not in the pool
  // now waits for it). Publications are repeated in blocks written for
  // other reasons (the datapath's apply is idempotent).
  std::optional<lossless_spfc_channel> block(const lossless_plane_tel &t);

  // The end of the window last published (0: none yet).
  std::uint64_t last_window_end() const { return last_end_; }

 private:
  std::map<std::pair<std::uint32_t, unsigned>, SpfcForce> forced_;
  bool dirty_ = false;
  bool published_ = false;         // the last block had publications
  std::uint64_t last_end_ = 0;     // window end of the last publication
  std::vector<std::uint32_t> last_ports_;
  // The latest publication of each port (repeated in other blocks).
  std::map<std::uint32_t, std::uint8_t> last_victims_;
};

}  // namespace lossless::policy
