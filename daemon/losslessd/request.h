// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The control socket's request parser (docs/DAEMON.md, "Control socket and
// losslessctl"), on its own so that it can be tested and fuzzed without a
// daemon (tests/fuzz/request_fuzz.cpp). Daemon::handle_request() acts on
// the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace lossless::daemon {

// One request: a JSON object with a string "cmd" and, for set, string
// members "pool", "key" and "value"; for scheme, "pool" and "args" (an
// array of strings: the scheme's command as typed, agent.h); for clear,
// "what" ("peaks") and "pool" (none: every pool); for move-scheme, "pool",
// "scheme" and "timeout" (a time, "5s"; none: the daemon's default). Other
// members, and those a command does not read, are ignored.
struct Request {
  std::string cmd;    // status, config, set, scheme, reload, clear, move-scheme, or what the client sent
  std::string pool;   // set, scheme: the pool; clear: the pool, or empty for every pool
  std::string what;   // clear: what to clear ("peaks")
  std::string key;    // set: the parameter
  std::string value;  // set: its new value
  std::vector<std::string> args;  // scheme: the command and its arguments
  std::string scheme;   // move-scheme: the scheme to move the pool to
  std::string timeout;  // move-scheme: how long the drain may take ("5s")
};

// Parses one line from the socket. On a malformed line (not JSON, not an
// object, a member above that is not a string, or an array of strings) returns nullopt and puts
// the reply to send in error_reply: {"error":"malformed request: ..."},
// valid JSON whatever bytes the line held.
std::optional<Request> parse_request(const std::string &line, std::string &error_reply);

}  // namespace lossless::daemon
