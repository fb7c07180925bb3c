// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The control socket's request parser (docs/DAEMON.md, "Control socket and
// losslessctl"), on its own so that it can be tested and fuzzed without a
// daemon (tests/fuzz/request_fuzz.cpp). Daemon::handle_request() acts on
// the result.
#pragma once

#include <optional>
#include <string>

namespace lossless::daemon {

// One request: a JSON object with a string "cmd" and, for set, string
// members "pool", "key" and "value"; for spfc-force, "pool", "dev",
// "prio" and "state" ("" when absent). Other members, and those a
// command does not read, are ignored.
struct Request {
  std::string cmd;    // status, config, set, spfc-force, reload, or what the client sent
  std::string pool;   // set, spfc-force: the pool
  std::string key;    // set: the parameter
  std::string value;  // set: its new value
  std::string dev;    // spfc-force: the port's device
  std::string prio;   // spfc-force: the priority, "0" .. "7"
  std::string state;  // spfc-force: victim, normal or auto
};

// Parses one line from the socket. On a malformed line (not JSON, not an
// object, a member above that is not a string) returns nullopt and puts
// the reply to send in error_reply: {"error":"malformed request: ..."},
// valid JSON whatever bytes the line held.
std::optional<Request> parse_request(const std::string &line, std::string &error_reply);

}  // namespace lossless::daemon
