// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// A scheme's agent: the part of a pool's scheme that runs in the daemon
// (SPFC's slow path and oracle) and talks to the datapath through the
// scheme control channel (kernel/uapi/lossless.h, struct
// lossless_plane_channel; plane.h's submit_channel()). The policy that
// drives the scheme owns it (Registration::agent); losslessd and
// losslessctl reach it through the policy's block(), command() and
// channel_state(), never by the scheme's name.
//
// Pure, as policies are: no I/O, no clock; the telemetry is its input.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lossless.h"

namespace lossless::policy {

struct PortLink;

// A block for the control channel: the scheme it is for and its payload.
struct ChannelBlock {
  std::uint32_t scheme = 0;
  std::vector<std::uint8_t> payload;
};

// What a command did: why not (error, nothing changed), or its reply's
// fields and, when it changed the agent's state, how to take it back (the
// daemon does when the datapath refuses the block that carries it).
struct CommandResult {
  std::string error;
  bool usage = false;  // error: the command is malformed (not refused)
  nlohmann::json reply = nlohmann::json::object();
  bool changed = false;
  std::function<void()> undo;
};

class SchemeAgent {
 public:
  virtual ~SchemeAgent() = default;
  // The payload to write now (t: the latest telemetry), or nullopt.
  virtual std::optional<std::vector<std::uint8_t>> block(const lossless_plane_tel &t) = 0;
  // A command, as typed after `losslessctl scheme`; ports: the pool's,
  // lossless_mask: its lossless priorities. The next block() carries a
  // change.
  virtual CommandResult command(const std::vector<std::string> &args,
                                const std::vector<PortLink> &ports,
                                std::uint8_t lossless_mask) = 0;
  // Its commands, one usage line each ("force DEV PRIO victim|normal|auto").
  virtual std::vector<std::string> usage() const = 0;
  // Its run-time state for `status` (a JSON object; ports name devices).
  virtual nlohmann::json state(const std::vector<PortLink> &ports) const = 0;
  // Take the run-time state of a payload found in the map (losslessctl
  // without the daemon), as far as it holds for t's pool.
  virtual void adopt(const std::vector<std::uint8_t> &payload, const lossless_plane_tel &t) = 0;
};

// A scheme's payload struct as the channel's bytes.
template <class T>
std::vector<std::uint8_t> channel_payload(const T &v)
{
  static_assert(sizeof(T) <= LOSSLESS_CHANNEL_PAYLOAD_MAX);
  const auto *b = reinterpret_cast<const std::uint8_t *>(&v);
  return {b, b + sizeof(v)};
}

}  // namespace lossless::policy
