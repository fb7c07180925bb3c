// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl watchdog [--json]: the PFC watchdog of every port, from the
// telemetry; status --json has the same object per port (wd_port_json).
#include <cstdio>

#include "ctl.h"

namespace lossless::ctl {

namespace {

const char *wd_action_name(std::uint32_t a)
{
  static const char *const names[] = {"off", "alert", "forward", "drop"};
  return a < 4 ? names[a] : "?";
}

// "ok", "storm", "alarm" or "storm+alarm".
std::string wd_state(const tc_lossless_wd_stats &w)
{
  if (w.storm && w.xoff_alarm)
    return "storm+alarm";
  return w.storm ? "storm" : w.xoff_alarm ? "alarm" : "ok";
}

}  // namespace

// A port's PFC watchdog as tc -s -j has it: the action, the masks, and
// every priority with its state.
json wd_port_json(const lossless_plane_port &p)
{
  json prios = json::array();
  for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
    const auto &w = p.wd[q];
    prios.push_back({{"prio", q},
                     {"state", wd_state(w)},
                     {"storm", w.storm != 0},
                     {"storms", w.storms},
                     {"restores", w.restores},
                     {"dropped", w.dropped},
                     {"storm_time", w.storm_ns},
                     {"xoff_alarm", w.xoff_alarm != 0},
                     {"xoff_alarms", w.xoff_alarms},
                     {"xoff_time", w.xoff_ns}});
  }
  return {{"action", wd_action_name(p.wd_action)},
          {"storm_mask", p.wd_storm_mask},
          {"alarm_mask", p.wd_alarm_mask},
          {"prios", prios}};
}

namespace {

bool wd_counted(const tc_lossless_wd_stats &w)
{
  return w.storm || w.xoff_alarm || w.storms || w.restores || w.dropped || w.storm_ns ||
         w.xoff_alarms || w.xoff_ns;
}

// A priority worth a line: one the watchdog has counted anything on, and
// with an action every lossless priority of the pool.
bool wd_shown(const lossless_plane_tel &t, const lossless_plane_port &p, unsigned q)
{
  return wd_counted(p.wd[q]) || (p.wd_action && prio_lossless(t, p, q));
}

json wd_json(const std::string &path, const lossless_plane_tel &t)
{
  json ports = json::array();
  for (std::uint32_t i = 0; i < port_count(t); i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    json o = wd_port_json(p);
    o["port"] = i;
    o["ifindex"] = p.ifindex;
    o["dev"] = ifname(p.ifindex);
    ports.push_back(o);
  }
  return {{"plane", path}, {"pool", pool_name(t)}, {"ports", ports}};
}

void print_wd_table(const std::string &path, const lossless_plane_tel &t)
{
  std::printf("pool %s  (plane %s, snapshot #%llu)\n", pool_name(t).c_str(), path.c_str(),
              static_cast<unsigned long long>(t.snapshots));
  std::printf("  %-12s %-7s %4s %-11s %7s %8s %9s %11s %6s %10s\n", "PORT", "ACTION", "PRIO",
              "STATE", "STORMS", "RESTORED", "DROPPED", "STORM-MS", "ALARMS", "XOFF-MS");
  for (std::uint32_t i = 0; i < port_count(t); i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    bool first = true;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      if (!wd_shown(t, p, q))
        continue;
      const auto &w = p.wd[q];
      std::printf("  %-12s %-7s %4u %-11s %7llu %8llu %9llu %11s %6llu %10s\n",
                  first ? ifname(p.ifindex).c_str() : "", first ? wd_action_name(p.wd_action) : "",
                  q, wd_state(w).c_str(), static_cast<unsigned long long>(w.storms),
                  static_cast<unsigned long long>(w.restores),
                  static_cast<unsigned long long>(w.dropped), ms_str(w.storm_ns).c_str(),
                  static_cast<unsigned long long>(w.xoff_alarms), ms_str(w.xoff_ns).c_str());
      first = false;
    }
    if (first)
      std::printf("  %-12s %-7s %4s %s\n", ifname(p.ifindex).c_str(),
                  wd_action_name(p.wd_action), "-", p.wd_action ? "ok" : "off");
  }
  std::printf("  (storm: paused by the peer with packets waiting past the detection time, until\n"
              "  no XOFF for the restoration time; alarm: XOFF sent upstream for longer than\n"
              "  xoff-alarm; XOFF-MS: how long the XOFF upstream has lasted now)\n");
}

}  // namespace

int cmd_watchdog(const std::vector<std::string> &planes, bool as_json)
{
  return each_plane(planes, as_json, wd_json, print_wd_table);
}

}  // namespace lossless::ctl
