// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl: the helpers its commands share (ctl.h): the scheme of a
// snapshot, numbers and names as text, every plane read in turn, the
// telemetry over time (watch, record), a subcommand's options.
#include <net/if.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ctl.h"
#include "datapath_error.h"
#include "ll_plane_map.h"
#include "registry.h"

namespace lossless::ctl {

// The scheme of a snapshot by name, and its parameters by their rows.
std::string scheme_name(const lossless_plane_tel &t)
{
  const auto *r = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id));
  return r ? std::string(r->scheme) : "scheme-" + std::to_string(t.scheme.id);
}

std::map<std::string, std::uint64_t> scheme_params(const lossless_plane_tel &t)
{
  std::map<std::string, std::uint64_t> out;
  if (const auto *r = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id)))
    for (const auto *sp : r->params)
      out[std::string(sp->key)] = t.scheme.p.raw[sp->word];
  return out;
}

std::string ifname(std::uint32_t ifindex)
{
  char buf[IF_NAMESIZE] = "";
  if (ifindex && if_indextoname(ifindex, buf))
    return buf;
  return "if" + std::to_string(ifindex);
}

std::string bytes_str(unsigned long long b)
{
  char buf[32];
  if (b >= (10ULL << 20))
    std::snprintf(buf, sizeof(buf), "%.1fM", b / 1048576.0);
  else if (b >= (10ULL << 10))
    std::snprintf(buf, sizeof(buf), "%.1fK", b / 1024.0);
  else
    std::snprintf(buf, sizeof(buf), "%llu", b);
  return buf;
}

// ns as milliseconds with 3 decimals.
std::string ms_str(unsigned long long ns)
{
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
  return buf;
}

// One view of every plane: its JSON object, or its text table.
int each_plane(const std::vector<std::string> &planes, bool as_json,
               json (*to_json)(const std::string &, const lossless_plane_tel &),
               void (*print)(const std::string &, const lossless_plane_tel &),
               const json &extra)
{
  json all = json::array();
  int rc = kExitOk;
  bool first = true;
  for (const auto &path : planes) {
    try {
      auto plane = lp::Plane::open(path);
      auto t = plane.telemetry();
      if (!t) {
        std::fprintf(stderr,
                     "losslessctl: %s: no telemetry yet (the map is not given to a pool: "
                     "tc qdisc ... lossless pool NAME plane %s)\n",
                     path.c_str(), path.c_str());
        rc = kExitError;
        continue;
      }
      if (as_json) {
        all.push_back(to_json(path, *t));
      } else {
        if (!first)
          std::printf("\n");
        print(path, *t);
        first = false;
      }
    } catch (const lp::Error &e) {
      std::fprintf(stderr, "losslessctl: %s\n", e.what());
      rc = kExitError;
    }
  }
  if (as_json) {
    json out = {{"pools", all}};
    if (extra.is_object())
      out.update(extra);  // losslessd's blocks beside the pools ("host_cc")
    std::printf("%s\n", out.dump(2).c_str());
  }
  return rc;
}

// ---------------------------------------------------------------------------
// watch, record and plot: the telemetry over time.

namespace {

volatile std::sig_atomic_t g_stop = 0;

void on_stop_signal(int)
{
  g_stop = 1;
}

}  // namespace

// SIGINT and SIGTERM end watch and record cleanly (a row is never cut).
void catch_stop_signals()
{
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a sleep ends at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::int64_t mono_ns()
{
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Sleeps until CLOCK_MONOTONIC reaches ns; false if a stop signal came.
bool sleep_until_ns(std::int64_t ns)
{
  timespec ts{static_cast<time_t>(ns / 1000000000LL), static_cast<long>(ns % 1000000000LL)};
  while (!g_stop) {
    if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != EINTR)
      break;
  }
  return !g_stop;
}

// The planes a command reads: --plane/--pool, else every pinned one.
std::vector<std::string> planes_to_read(const std::string &plane_path)
{
  if (!plane_path.empty())
    return {plane_path};
  auto planes = lp::find_pinned();
  if (planes.empty())
    throw std::runtime_error(std::string("no pool planes under ") + LL_PLANE_PIN_ROOT +
                             " (tc qdisc ... lossless pool NAME plane auto)");
  return planes;
}

std::vector<Source> open_sources(const std::vector<std::string> &paths)
{
  std::vector<Source> out;
  for (const auto &p : paths)
    out.push_back({p, lp::Plane::open(p)});
  return out;
}

// The source's telemetry now, or null (said once on stderr per source).
TelPtr read_tel(Source &s)
{
  std::string why;
  try {
    if (auto t = s.plane.telemetry())
      return std::make_unique<lossless_plane_tel>(*t);
    why = "no telemetry yet (the map is not given to a pool)";
  } catch (const lp::Error &e) {
    why = e.what();
  }
  if (!s.warned)
    std::fprintf(stderr, "losslessctl: %s: %s\n", s.path.c_str(), why.c_str());
  s.warned = true;
  return nullptr;
}

std::string pool_name(const lossless_plane_tel &t)
{
  return std::string(t.pool, strnlen(t.pool, sizeof(t.pool)));
}

bool prio_lossless(const lossless_plane_tel &t, const lossless_plane_port &p, unsigned q)
{
  return p.iq[q].lossless || (t.lossless_mask & (1u << q));
}

std::uint32_t port_count(const lossless_plane_tel &t)
{
  return std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
}

SubArgs parse_sub(const std::string &cmd, const std::vector<std::string> &args,
                  const std::vector<std::string> &known)
{
  SubArgs out;
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      if (std::find(known.begin(), known.end(), a) == known.end())
        throw UsageError{cmd + ": unknown option \"" + a + "\""};
      if (i + 1 >= args.size())
        throw UsageError{cmd + ": " + a + " needs a value"};
      out.opts[a] = args[++i];
    } else {
      out.positional.push_back(a);
    }
  }
  return out;
}

namespace {

std::uint32_t parse_u32(const std::string &key, const std::string &v, std::uint64_t max)
{
  char *end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || errno || *end || x > max)
    throw UsageError{"invalid " + key + " \"" + v + "\": must be an integer 0 .. " +
                     std::to_string(max)};
  return static_cast<std::uint32_t>(x);
}

}  // namespace

std::uint64_t opt_u64(const SubArgs &s, const std::string &name, std::uint64_t dflt,
                      std::uint64_t min, std::uint64_t max)
{
  auto it = s.opts.find(name);
  if (it == s.opts.end())
    return dflt;
  std::uint64_t v = parse_u32(name, it->second, max);
  if (v < min)
    throw UsageError{"invalid " + name + " \"" + it->second + "\": must be an integer " +
                     std::to_string(min) + " .. " + std::to_string(max)};
  return v;
}

std::string fmt(const char *f, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof(buf), f, ap);
  va_end(ap);
  return buf;
}

int report_applied(const std::string &path, const std::string &what, const char *kind,
                   std::uint64_t n, const std::optional<lp::Applied> &a)
{
  if (!a) {
    std::fprintf(stderr,
                 "losslessctl: %s: the datapath did not take %s (%s %llu) within 1 s: is the "
                 "map given to a pool?\n",
                 path.c_str(), what.c_str(), kind, static_cast<unsigned long long>(n));
    return kExitError;
  }
  if (a->error) {
    std::fprintf(stderr, "losslessctl: %s: the datapath refused %s: %s\n", path.c_str(),
                 what.c_str(), lossless::datapath_error_text(a->error).c_str());
    return kExitError;
  }
  std::printf("%s: applied (%s %llu) in %.1f ms\n", what.c_str(), kind,
              static_cast<unsigned long long>(n), a->latency.count() / 1e6);
  return kExitOk;
}

}  // namespace lossless::ctl
