// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl's private header: what its files (losslessctl.cpp, the
// dispatch; ctl_<command>.cpp, one command each; ctl_common.cpp, the
// helpers) share. Not a library: nothing else includes it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ll_params.h"
#include "plane.h"

namespace lossless::ctl {

namespace lp = lossless::plane;
using nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

struct UsageError {
  std::string msg;
};

// ---- ctl_common.cpp

std::string scheme_name(const lossless_plane_tel &t);
std::map<std::string, std::uint64_t> scheme_params(const lossless_plane_tel &t);
std::string ifname(std::uint32_t ifindex);
std::string bytes_str(unsigned long long b);
std::string ms_str(unsigned long long ns);
int each_plane(const std::vector<std::string> &planes, bool as_json,
               json (*to_json)(const std::string &, const lossless_plane_tel &),
               void (*print)(const std::string &, const lossless_plane_tel &),
               const json &extra = nullptr);

// The end of a write into the plane without losslessd (set, scheme): wait
// up to 1 s for the datapath to take it, then print its refusal (exit 1)
// or "WHAT: applied (KIND N) in X ms" (exit 0). KIND is "gen" or "seq".
int report_applied(const std::string &path, const std::string &what, const char *kind,
                   std::uint64_t n, const std::optional<lp::Applied> &a);

// watch, record and plot: the telemetry over time.
void catch_stop_signals();
std::int64_t mono_ns();
bool sleep_until_ns(std::int64_t ns);
std::vector<std::string> planes_to_read(const std::string &plane_path);

struct Source {
  std::string path;
  lp::Plane plane;
  bool warned = false;  // "no telemetry" said once
};

std::vector<Source> open_sources(const std::vector<std::string> &paths);

using TelPtr = std::unique_ptr<lossless_plane_tel>;

TelPtr read_tel(Source &s);
std::string pool_name(const lossless_plane_tel &t);
bool prio_lossless(const lossless_plane_tel &t, const lossless_plane_port &p, unsigned q);
std::uint32_t port_count(const lossless_plane_tel &t);

// "--name VALUE" options of a subcommand. Unknown options and stray
// words are usage errors; positional words are returned in order.
struct SubArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> opts;
};

SubArgs parse_sub(const std::string &cmd, const std::vector<std::string> &args,
                  const std::vector<std::string> &known);
std::uint64_t opt_u64(const SubArgs &s, const std::string &name, std::uint64_t dflt,
                      std::uint64_t min, std::uint64_t max);
std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

// ---- the commands, by file

// ctl_status.cpp
// host_cc: losslessd's status "host_cc" (the hosts' congestion control),
// or null: printed after the pools, and in --json as "host_cc" beside
// "pools".
int cmd_status(const std::vector<std::string> &planes, bool as_json,
               const json &host_cc = nullptr);

// ctl_events.cpp
json events_json(const std::string &path, const lossless_plane_tel &t);
void print_events(const std::string &path, const lossless_plane_tel &t);

// ctl_watchdog.cpp
json wd_port_json(const lossless_plane_port &p);
int cmd_watchdog(const std::vector<std::string> &planes, bool as_json);

// ctl_set.cpp
bool plane_key(const ll_param &r);
int cmd_set(const std::string &path, const std::vector<std::string> &args);
int cmd_set_daemon(const std::string &sock, const std::string &pool,
                   const std::vector<std::string> &args);

// ctl_clear.cpp: clear peaks, through losslessd (via_daemon) or the
// planes (plane_path, else every pinned one).
int cmd_clear(const std::string &sock, bool via_daemon, const std::string &pool,
              const std::string &plane_path, const std::vector<std::string> &args);

// ctl_move.cpp: move-scheme SCHEME [--timeout TIME], through losslessd
// (via_daemon) or the plane.
int cmd_move_scheme(const std::string &sock, bool via_daemon, const std::string &pool,
                    const std::string &plane_path, const std::vector<std::string> &args);

// ctl_daemon.cpp
json daemon_request(const std::string &socket_path, const json &req);
int print_reply(const json &r, bool as_json);
int cmd_daemon(const std::string &sock, bool as_json);
// ctl_portfc.cpp: losslessd's [portfc] (its status reply's "portfc").
int cmd_portfc(const std::string &sock, bool as_json);

// ctl_scheme.cpp: a command for the pool's scheme (its agent).
int cmd_scheme_daemon(const std::string &sock, const std::string &pool,
                      const std::vector<std::string> &args);
int cmd_scheme_plane(const std::string &path, const std::vector<std::string> &args);

// ctl_watch.cpp, ctl_record.cpp, ctl_plot.cpp
int cmd_watch(const std::string &plane_path, const std::vector<std::string> &args);
int cmd_record(const std::string &plane_path, const std::vector<std::string> &args);
int cmd_plot(const std::vector<std::string> &args);

}  // namespace lossless::ctl
