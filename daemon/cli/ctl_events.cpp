// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl events [--json]: the timeline of the pool's scheme, from
// the event ring of the telemetry. An event's type is the number its
// scheme gave it, named by the descriptor of the scheme the entry records
// (the ring outlives a change of scheme), so this file names none.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ctl.h"

extern "C" {
#include "scheme.h"
}

namespace lossless::ctl {

namespace {

// The event ring, oldest first (the entries written so far).
std::vector<lossless_event> ring_events(const lossless_plane_tel &t)
{
  std::vector<lossless_event> out;
  std::uint64_t n = std::min<std::uint64_t>(t.events_total, LOSSLESS_EVENTS);
  for (std::uint64_t i = t.events_total - n; i < t.events_total; i++) {
    const auto &e = t.events[i % LOSSLESS_EVENTS];
    if (e.type)
      out.push_back(e);
  }
  return out;
}

// The event's name in its scheme's descriptor, or event<N> for a type
// that scheme does not name (a newer kernel's, or a scheme unknown here).
std::string event_name(const lossless_event &e)
{
  if (const char *n = ll_scheme_event_name(e.scheme, e.type))
    return n;
  return "event" + std::to_string(e.type);
}

// The scheme that logged the event.
std::string event_scheme(const lossless_event &e)
{
  const ll_scheme_desc *d = ll_scheme_lookup(e.scheme);
  return d ? std::string(d->name) : "scheme-" + std::to_string(e.scheme);
}

}  // namespace

json events_json(const std::string &path, const lossless_plane_tel &t)
{
  json ev = json::array();
  for (const auto &e : ring_events(t)) {
    json o = {{"time_ns", e.time_ns},
              {"age_ns", t.time_ns > e.time_ns ? t.time_ns - e.time_ns : 0},
              {"port", e.port},
              {"ifindex", e.ifindex},
              {"dev", ifname(e.ifindex)},
              {"type", event_name(e)},
              {"scheme", event_scheme(e)},
              {"bytes", e.bytes},
              {"shared_used", e.shared_used}};
    if (e.prio == LOSSLESS_EV_PORT)
      o["prio"] = nullptr;
    else
      o["prio"] = e.prio;
    ev.push_back(o);
  }
  return {{"plane", path},
          {"pool", std::string(t.pool, strnlen(t.pool, sizeof(t.pool)))},
          {"scheme", scheme_name(t)},
          {"time_ns", t.time_ns},
          {"events_total", t.events_total},
          {"events", ev}};
}

// The timeline: one line per event, oldest first, its time in ms before
// the snapshot.
void print_events(const std::string &path, const lossless_plane_tel &t)
{
  std::vector<lossless_event> ev = ring_events(t);
  std::printf("pool %s  (plane %s, scheme %s, %zu of %llu events)\n",
              std::string(t.pool, strnlen(t.pool, sizeof(t.pool))).c_str(), path.c_str(),
              scheme_name(t).c_str(), ev.size(), static_cast<unsigned long long>(t.events_total));
  std::printf("  %12s %-12s %4s %-10s %9s %9s\n", "T-MS", "PORT", "PRIO", "EVENT", "BYTES",
              "SHARED");
  for (const auto &e : ev) {
    std::string age = "-" + ms_str(t.time_ns > e.time_ns ? t.time_ns - e.time_ns : 0);
    std::string prio = e.prio == LOSSLESS_EV_PORT ? "port" : std::to_string(e.prio);
    std::printf("  %12s %-12s %4s %-10s %9s %9s\n", age.c_str(), ifname(e.ifindex).c_str(),
                prio.c_str(), event_name(e).c_str(), bytes_str(e.bytes).c_str(),
                bytes_str(e.shared_used).c_str());
  }
  if (ev.empty()) {
    const ll_scheme_desc *d = ll_scheme_lookup(t.scheme.id);
    if (d && !d->n_events)
      std::printf("  (none: scheme %s logs no events)\n", d->name);
    else
      std::printf("  (none)\n");
  }
}

}  // namespace lossless::ctl
