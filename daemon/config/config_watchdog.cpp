// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: the watchdog tables, [pool.watchdog] and [port.watchdog],
// and the watchdog in force from a pool's, a port's and the defaults.
#include <algorithm>

#include "config_parser.h"

namespace lossless::config {

namespace {

const std::vector<std::string_view> kWatchdogKeys = {
    "action", "detection_time_ms", "restoration_time_ms", "polling_interval_ms",
    "xoff_alarm_ms"};
const std::vector<std::string_view> kWatchdogActions = {"off", "alert", "forward", "drop"};

}  // namespace

// ------------------------------------------------------------ watchdog

// A [pool.watchdog] or [port.watchdog] table: its keys, each checked alone.
std::optional<WatchdogKeys> Parser::watchdog_keys(const std::string &ctx, const toml::node &n,
                                                  const char *form)
{
  auto t = n.as_table();
  if (!t) {
    bad_type(ctx, "watchdog", n,
             std::string("a table (") + form + ", or { action = \"drop\", ... })");
    return std::nullopt;
  }
  check_keys(*t, kWatchdogKeys, ctx, "watchdog.");
  WatchdogKeys k;
  k.table = &n;
  if (const toml::node *a = t->get("action")) {
    if (auto v = a->as_string()) {
      auto it = std::find(kWatchdogActions.begin(), kWatchdogActions.end(), v->get());
      if (it == kWatchdogActions.end()) {
        bad(ctx, "watchdog.action", *a,
            "must be off, alert, forward or drop" + suggest(v->get(), kWatchdogActions));
        k.ok = false;
      } else {
        k.action = static_cast<WatchdogAction>(it - kWatchdogActions.begin());
      }
    } else {
      bad_type(ctx, "watchdog.action", *a, "a string: off, alert, forward or drop");
      k.ok = false;
    }
  }
  for (int i = 0; i < kWdTimes; i++) {
    const toml::node *v = t->get(kWdTimeKeys[i]);
    if (!v)
      continue;
    k.node[i] = v;
    bool alarm = i == kWdAlarm;
    auto ms = integer(ctx, std::string("watchdog.") + kWdTimeKeys[i], *v,
                      alarm ? 0 : static_cast<std::int64_t>(kWatchdogTimeMinMs),
                      static_cast<std::int64_t>(alarm ? kWatchdogXoffAlarmMaxMs
                                                      : kWatchdogTimeMaxMs),
                      alarm ? "ms (0: off)" : "ms");
    if (ms)
      k.ms[i] = static_cast<std::uint64_t>(*ms);
    else
      k.ok = false;
  }
  return k;
}

// The watchdog in force: the defaults, pool_keys (a port's pool's table,
// or null) and k over them, checked together as the kernel does: the
// polling interval at most the detection and restoration times, an XOFF
// alarm at least the polling interval. A value the table does not give
// is named with where it comes from.
std::optional<Watchdog> Parser::watchdog(const std::string &ctx, const WatchdogKeys &k,
                                         const WatchdogKeys *pool_keys, const std::string &pool)
{
  enum Source { kDefault, kPool, kHere };
  Watchdog w;
  std::uint64_t ms[kWdTimes];
  Source src[kWdTimes];
  for (int i = 0; i < kWdTimes; i++) {
    ms[i] = kWdDefaultMs[i];
    src[i] = kDefault;
    if (pool_keys && pool_keys->ms[i]) {
      ms[i] = *pool_keys->ms[i];
      src[i] = kPool;
    }
    if (k.ms[i]) {
      ms[i] = *k.ms[i];
      src[i] = kHere;
    }
  }
  if (pool_keys && pool_keys->action)
    w.action = *pool_keys->action;
  if (k.action)
    w.action = *k.action;
  auto named = [&](int i) {
    std::string s = std::string(kWdTimeKeys[i]) + " " + std::to_string(ms[i]);
    if (src[i] == kPool)
      s += " (from pool " + quote(pool) + ")";
    else if (src[i] == kDefault)
      s += " (the default)";
    return s;
  };
  // The line of the first of these keys the table gives, else the table's.
  auto line = [&](std::initializer_list<int> keys) {
    for (int i : keys)
      if (k.node[i])
        return line_of(k.node[i]->source());
    return line_of(k.table->source());
  };
  bool ok = true;
  bool over_detect = ms[kWdPoll] > ms[kWdDetect], over_restore = ms[kWdPoll] > ms[kWdRestore];
  if (over_detect || over_restore) {
    error(line({kWdPoll, kWdDetect, kWdRestore}),
          ctx + ": watchdog: " + named(kWdPoll) + " must be at most " +
              (over_detect ? named(kWdDetect) : std::string()) +
              (over_detect && over_restore ? " and " : "") +
              (over_restore ? named(kWdRestore) : std::string()));
    ok = false;
  }
  if (ms[kWdAlarm] && ms[kWdAlarm] < ms[kWdPoll]) {
    error(line({kWdAlarm, kWdPoll}), ctx + ": watchdog: " + named(kWdAlarm) +
                                         " must be 0 (off) or at least " + named(kWdPoll));
    ok = false;
  }
  if (!ok)
    return std::nullopt;
  w.detect_ns = ms[kWdDetect] * 1000000;
  w.restore_ns = ms[kWdRestore] * 1000000;
  w.poll_ns = ms[kWdPoll] * 1000000;
  w.xoff_alarm_ns = ms[kWdAlarm] * 1000000;
  return w;
}

}  // namespace lossless::config
