// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: the PFC watchdog's keys of a [[pool]] and a [[port]] (tc's
// pfcwd, pfcwd-detect, pfcwd-restore, pfcwd-poll, xoff-alarm), and the
// watchdog in force from a pool's, a port's and the defaults.
#include <algorithm>
#include <cstdio>

#include "config_parser.h"

namespace lossless::config {

namespace {

const std::vector<std::string_view> kWatchdogActions = {"off", "alert", "forward", "drop"};

// The keys of the [pool.watchdog] and [port.watchdog] tables these keys
// replaced, in kWdTimeKeys' order: integers of milliseconds.
constexpr const char *kWdOldKeys[kWdTimes] = {"detection_time_ms", "restoration_time_ms",
                                               "polling_interval_ms", "xoff_alarm_ms"};

}  // namespace

// ------------------------------------------------------------ watchdog

std::vector<std::string> watchdog_old_keys()
{
  return {std::begin(kWdOldKeys), std::end(kWdOldKeys)};
}

// The old [pool.watchdog] / [port.watchdog] table as the keys that replace
// it: ": renamed; write pfcwd = "drop", pfcwd-detect = "200ms" in the
// [[pool]] or [[port]] itself".
std::string watchdog_respelling(const toml::node &n)
{
  std::string keys;
  auto put = [&](const std::string &k, const std::string &v) {
    keys += (keys.empty() ? "" : ", ") + k + " = " + v;
  };
  if (auto t = n.as_table()) {
    if (const toml::node *a = t->get("action"))
      put(kWdActionKey, render(*a));
    for (int i = 0; i < kWdTimes; i++)
      if (const toml::node *v = t->get(kWdOldKeys[i])) {
        auto ms = v->as_integer();
        put(kWdTimeKeys[i], ms && ms->get() == 0 && i == kWdAlarm ? quote("off")
                            : ms ? quote(std::to_string(ms->get()) + "ms")
                                 : render(*v));
      }
  }
  if (keys.empty())
    keys = std::string(kWdActionKey) + " = \"drop\", " + kWdTimeKeys[kWdDetect] + " = \"200ms\", ...";
  return ": renamed; write " + keys + " in the [[pool]] or [[port]] itself, as tc's options";
}

// The watchdog's keys of a [[pool]] or a [[port]], each checked alone;
// nullopt if it gives none.
std::optional<WatchdogKeys> Parser::watchdog_keys(const std::string &ctx, const toml::table &t)
{
  WatchdogKeys k;
  k.table = &t;
  bool any = false;
  if (const toml::node *a = t.get(kWdActionKey)) {
    any = true;
    if (auto v = a->as_string()) {
      auto it = std::find(kWatchdogActions.begin(), kWatchdogActions.end(), v->get());
      if (it == kWatchdogActions.end()) {
        bad(ctx, kWdActionKey, *a,
            "must be off, alert, forward or drop" + suggest(v->get(), kWatchdogActions));
        k.ok = false;
      } else {
        k.action = static_cast<WatchdogAction>(it - kWatchdogActions.begin());
      }
    } else {
      bad_type(ctx, kWdActionKey, *a, "a string: off, alert, forward or drop");
      k.ok = false;
    }
  }
  for (int i = 0; i < kWdTimes; i++) {
    const toml::node *v = t.get(kWdTimeKeys[i]);
    if (!v)
      continue;
    any = true;
    k.node[i] = v;
    bool alarm = i == kWdAlarm;
    if (auto s = v->as_string(); alarm && s && s->get() == "off") {
      k.ns[i] = 0;
      continue;
    }
    std::size_t errs = errors.size();
    auto ns = time(ctx, kWdTimeKeys[i], *v, LOSSLESS_WD_TIME_MIN_NS,
                   alarm ? LOSSLESS_WD_XOFF_ALARM_MAX_NS : LOSSLESS_WD_TIME_MAX_NS);
    if (ns) {
      k.ns[i] = *ns;
    } else {
      if (alarm && errors.size() == errs + 1)
        errors.back().message += ", or \"off\"";
      k.ok = false;
    }
  }
  if (!any)
    return std::nullopt;
  return k;
}

// The watchdog in force: the defaults, pool_keys (a port's pool's keys,
// or null) and k over them, checked together as the kernel does: the
// polling interval at most the detection and restoration times, an XOFF
// alarm at least the polling interval. A value the table does not give
// is named with where it comes from.
std::optional<Watchdog> Parser::watchdog(const std::string &ctx, const WatchdogKeys &k,
                                         const WatchdogKeys *pool_keys, const std::string &pool)
{
  enum Source { kDefault, kPool, kHere };
  Watchdog w;
  std::uint64_t ns[kWdTimes];
  Source src[kWdTimes];
  for (int i = 0; i < kWdTimes; i++) {
    ns[i] = kWdDefaultNs[i];
    src[i] = kDefault;
    if (pool_keys && pool_keys->ns[i]) {
      ns[i] = *pool_keys->ns[i];
      src[i] = kPool;
    }
    if (k.ns[i]) {
      ns[i] = *k.ns[i];
      src[i] = kHere;
    }
  }
  if (pool_keys && pool_keys->action)
    w.action = *pool_keys->action;
  if (k.action)
    w.action = *k.action;
  auto named = [&](int i) {
    char text[64];
    if (i == kWdAlarm && !ns[i])
      std::snprintf(text, sizeof(text), "off");
    else
      ll_units_time_text(ns[i], text, sizeof(text));
    std::string s = std::string(kWdTimeKeys[i]) + " " + quote(text);
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
  bool over_detect = ns[kWdPoll] > ns[kWdDetect], over_restore = ns[kWdPoll] > ns[kWdRestore];
  if (over_detect || over_restore) {
    error(line({kWdPoll, kWdDetect, kWdRestore}),
          ctx + ": " + named(kWdPoll) + " must be at most " +
              (over_detect ? named(kWdDetect) : std::string()) +
              (over_detect && over_restore ? " and " : "") +
              (over_restore ? named(kWdRestore) : std::string()));
    ok = false;
  }
  if (ns[kWdAlarm] && ns[kWdAlarm] < ns[kWdPoll]) {
    error(line({kWdAlarm, kWdPoll}), ctx + ": " + named(kWdAlarm) +
                                         " must be \"off\" or at least " + named(kWdPoll));
    ok = false;
  }
  if (!ok)
    return std::nullopt;
  w.detect_ns = ns[kWdDetect];
  w.restore_ns = ns[kWdRestore];
  w.poll_ns = ns[kWdPoll];
  w.xoff_alarm_ns = ns[kWdAlarm];
  return w;
}

}  // namespace lossless::config
