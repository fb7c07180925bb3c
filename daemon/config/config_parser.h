// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config's private header: what the parser's files share (config.cpp,
// the file and its diagnostics, the key tables and the words of the
// messages; config_daemon.cpp, config_pool.cpp, config_watchdog.cpp and
// config_port.cpp, one section each). config.h is the public one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <toml++/toml.h>
#include <vector>

#include "config.h"
#include "ll_params.h"
#include "ll_units.h"
#include "registry.h"

namespace lossless::config {

// ------------------------------------------------------------ key tables

// config.cpp
extern const std::vector<std::string_view> kDaemonKeys;
const std::vector<std::string_view> &pool_value_keys();
const std::vector<std::string_view> &pool_keys();
const std::vector<std::string_view> &port_keys();
// config_host_cc.cpp
const std::vector<std::string_view> &host_cc_keys();
// config_portfc.cpp
const std::vector<std::string_view> &portfc_keys();

// The qdisc's own options a [[port]] takes, as tc's.
constexpr const char *kQdiscKeys[] = {"queues", "strict", "quanta", "priomap",
                                      "limit",  "burst",  "catchup"};

// The watchdog's keys of a [[pool]] or a [[port]] (tc's pfcwd options):
// pfcwd, the action, then its times in this order, with their defaults.
inline constexpr const char *kWdActionKey = "pfcwd";
enum { kWdDetect, kWdRestore, kWdPoll, kWdAlarm, kWdTimes };
constexpr const char *kWdTimeKeys[kWdTimes] = {"pfcwd-detect", "pfcwd-restore", "pfcwd-poll",
                                                "xoff-alarm"};
constexpr std::uint64_t kWdDefaultNs[kWdTimes] = {
    LOSSLESS_WD_DETECT_DEFAULT_NS, LOSSLESS_WD_RESTORE_DEFAULT_NS, LOSSLESS_WD_POLL_DEFAULT_NS, 0};

// The watchdog's keys one [[pool]] or [[port]] gives, each with its node
// (for messages).
struct WatchdogKeys {
  const toml::node *table = nullptr;
  std::optional<WatchdogAction> action;
  std::optional<std::uint64_t> ns[kWdTimes];
  const toml::node *node[kWdTimes] = {};
  bool ok = true;  // every key valid
};

constexpr std::uint32_t kU32Max = 0xffffffffu;
constexpr unsigned kPrios = 8;
constexpr std::size_t kIfNameMax = 15;     // IFNAMSIZ - 1
constexpr std::size_t kSunPathMax = 107;   // sizeof(sun_path) - 1
constexpr std::uint64_t kRateMinBps = 8000;            // LOSSLESS_RATE_MIN_BPS
constexpr std::uint64_t kRateMaxBps = 1600000000000;   // LOSSLESS_RATE_MAX_BPS

// ------------------------------------------------------------ messages

// config.cpp
std::string suggest(std::string_view word, const std::vector<std::string_view> &candidates,
                    const std::string &prefix = {});
std::string quote(std::string_view s);
std::string type_phrase(const toml::node &n);
std::string render(const toml::node &n);
std::string respelling(std::string_view key, const toml::node &v,
                       const std::vector<std::string_view> &known);
// config_watchdog.cpp
std::string watchdog_respelling(const toml::node &n);
std::vector<std::string> watchdog_old_keys();  // "detection_time_ms", ...

// ------------------------------------------------------------ the parser

struct Parser {
  std::string file;
  std::vector<Diagnostic> errors;
  std::vector<Diagnostic> warnings;

  static std::uint32_t line_of(const toml::source_region &r)
  {
    return static_cast<std::uint32_t>(r.begin.line);
  }

  void error(std::uint32_t line, std::string msg)
  {
    errors.push_back({file, line, 0, std::move(msg)});
  }

  void warn(std::uint32_t line, std::string msg)
  {
    warnings.push_back({file, line, 0, std::move(msg)});
  }

  // "CTX: KEY VALUE: REASON" at the value's line.
  void bad(const std::string &ctx, std::string_view key, const toml::node &n,
           const std::string &reason)
  {
    std::string v = render(n);
    error(line_of(n.source()),
          ctx + ": " + std::string(key) + (v.empty() ? "" : " " + v) + ": " + reason);
  }

  // A value of the wrong TOML type: "CTX: KEY VALUE: must be WHAT, not TYPE".
  void bad_type(const std::string &ctx, std::string_view key, const toml::node &n,
                const std::string &what)
  {
    bad(ctx, key, n, "must be " + what + ", not " + type_phrase(n));
  }

  // Unknown keys of a table, each with the closest known key; an old
  // spelling of a key with the one to write now.
  void check_keys(const toml::table &t, const std::vector<std::string_view> &known,
                  const std::string &ctx, const std::string &prefix = {})
  {
    for (auto &&[k, v] : t) {
      if (std::find(known.begin(), known.end(), k.str()) != known.end())
        continue;
      std::string now = respelling(k.str(), v, known);
      if (!now.empty())
        error(line_of(k.source()), ctx + ": " + prefix + std::string(k.str()) + now);
      else
        error(line_of(k.source()), ctx + ": unknown key " + quote(prefix + std::string(k.str())) +
                                       suggest(k.str(), known, prefix));
    }
  }

  // ---- value readers: each reports its own errors and returns nullopt.

  // Text of a unit value: a string, or an integer read as its digits.
  static std::optional<std::string> unit_text(const toml::node &n)
  {
    if (auto s = n.as_string())
      return s->get();
    if (auto i = n.as_integer())
      return std::to_string(i->get());
    return std::nullopt;
  }

  std::optional<std::string> string(const std::string &ctx, std::string_view key,
                                    const toml::node &n)
  {
    if (auto s = n.as_string())
      return s->get();
    bad_type(ctx, key, n, "a string");
    return std::nullopt;
  }

  std::optional<std::uint64_t> size(const std::string &ctx, std::string_view key,
                                    const toml::node &n, std::uint64_t min, std::uint64_t max)
  {
    auto text = unit_text(n);
    if (!text) {
      bad_type(ctx, key, n, "a size (a string such as \"2mb\", or an integer number of bytes)");
      return std::nullopt;
    }
    std::uint64_t v;
    if (ll_units_size(text->c_str(), &v) || v < min || v > max) {
      char range[256];
      ll_units_size_range(min, max, range, sizeof(range));
      bad(ctx, key, n, std::string("must be ") + range);
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::uint64_t> time(const std::string &ctx, std::string_view key,
                                    const toml::node &n, std::uint64_t min, std::uint64_t max)
  {
    auto text = unit_text(n);
    if (!text) {
      bad_type(ctx, key, n, "a time (a string such as \"1ms\")");
      return std::nullopt;
    }
    std::uint64_t v;
    if (ll_units_time(text->c_str(), max, &v) || v < min) {
      char range[256];
      ll_units_time_range(min, max, range, sizeof(range));
      bad(ctx, key, n, std::string("must be ") + range);
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::uint32_t> alpha(const std::string &ctx, std::string_view key,
                                     const toml::node &n)
  {
    auto text = unit_text(n);
    if (!text) {
      bad_type(ctx, key, n, std::string("an alpha (a string: ") + LL_ALPHA_FORM + ")");
      return std::nullopt;
    }
    unsigned int v;
    switch (ll_alpha_parse(text->c_str(), &v)) {
      case 0:
        return v;
      case LL_ALPHA_BAD_NUM:
        bad(ctx, key, n,
            "the numerator must be an integer 1 .. " + std::to_string(LL_ALPHA_NUM_MAX) + " (" +
                LL_ALPHA_FORM + ")");
        return std::nullopt;
      default:
        bad(ctx, key, n,
            "the denominator must be a power of two 1 .. 2^" + std::to_string(LL_ALPHA_SHIFT_MAX) +
                " (" + LL_ALPHA_FORM + ")");
        return std::nullopt;
    }
  }

  // A key of the pool's parameter table (ll_params.h), by its row: its
  // unit's reader and the row's range.
  std::optional<std::uint64_t> param(const std::string &ctx, const ll_param &r, const toml::node &n)
  {
    switch (r.unit) {
      case LL_PARAM_SIZE:
        return size(ctx, r.key, n, r.min, r.max);
      case LL_PARAM_TIME:
        return time(ctx, r.key, n, r.min, r.max);
      case LL_PARAM_ALPHA:
        return alpha(ctx, r.key, n);
      case LL_PARAM_PRIOS:
        return prios(ctx, n);
      case LL_PARAM_COUNT:
        return count(ctx, r, n);
      case LL_PARAM_FLAGS:
        return flags(ctx, r, n);
      default:  // special syntax: read by its own code
        return std::nullopt;
    }
  }

  // An integer of row r: an integer, or a string of digits. A float is
  // refused by name, NaN and the infinities too (spfc's k).
  std::optional<std::uint64_t> count(const std::string &ctx, const ll_param &r, const toml::node &n)
  {
    std::string what = "an integer " + std::to_string(r.min) + " .. " + std::to_string(r.max);
    if (auto f = n.as_floating_point()) {
      double d = f->get();
      bad(ctx, r.key, n,
          "must be " + what + ", not " +
              (std::isnan(d)   ? std::string("NaN")
               : std::isinf(d) ? std::string("an infinity")
                               : std::string("a floating-point number")));
      return std::nullopt;
    }
    auto text = unit_text(n);
    if (!text) {
      bad_type(ctx, r.key, n, what);
      return std::nullopt;
    }
    std::uint64_t v;
    if (ll_param_parse(&r, text->c_str(), &v, nullptr) != LL_PARAM_OK) {
      bad(ctx, r.key, n, "must be " + what);
      return std::nullopt;
    }
    return v;
  }

  // Flags of row r by name: a string, "dsh" or "no-insurance,static-tau".
  std::optional<std::uint64_t> flags(const std::string &ctx, const ll_param &r, const toml::node &n)
  {
    char range[512];
    ll_param_range(&r, range, sizeof(range));
    auto text = n.as_string();
    if (!text) {
      bad_type(ctx, r.key, n, std::string("a string: ") + range);
      return std::nullopt;
    }
    std::uint64_t v;
    switch (ll_param_parse(&r, text->get().c_str(), &v, nullptr)) {
      case LL_PARAM_OK:
        return v;
      case LL_PARAM_ECOMBO:
        ll_param_text(&r, r.excl, range, sizeof(range));
        bad(ctx, r.key, n, std::string(range) + " do not go together");
        return std::nullopt;
      default:
        bad(ctx, r.key, n, std::string("must be ") + range);
        return std::nullopt;
    }
  }

  // The row's key of table t, if t has it: its value, or nullopt (an
  // error said why, *bad set when given).
  std::optional<std::uint64_t> param(const std::string &ctx, const toml::table &t, ll_param_id id,
                                     bool *bad = nullptr)
  {
    const ll_param &r = ll_params[id];
    const toml::node *n = t.get(r.key);
    if (!n)
      return std::nullopt;
    auto v = param(ctx, r, *n);
    if (!v && bad)
      *bad = true;
    return v;
  }

  // The value v of row r (LL_PARAM_MAX_BUFFER) at node n against the
  // pool's buffer: "must be at most buffer (N bytes)" at the key's line.
  bool within_buffer(const std::string &ctx, const toml::node &n, const ll_param &r,
                     std::uint64_t v, std::uint64_t buffer)
  {
    if (!(r.flags & LL_PARAM_MAX_BUFFER) || v <= buffer)
      return true;
    bad(ctx, r.key, n, "must be at most buffer (" + std::to_string(buffer) + " bytes)");
    return false;
  }

  std::optional<std::int64_t> integer(const std::string &ctx, std::string_view key,
                                      const toml::node &n, std::int64_t min, std::int64_t max,
                                      const std::string &unit = {})
  {
    std::string what = "an integer " + std::to_string(min) + " .. " + std::to_string(max) +
                       (unit.empty() ? "" : " " + unit);
    auto i = n.as_integer();
    if (!i) {
      bad_type(ctx, key, n, what);
      return std::nullopt;
    }
    if (i->get() < min || i->get() > max) {
      bad(ctx, key, n, "must be " + what);
      return std::nullopt;
    }
    return i->get();
  }

  // ---- sections

  void daemon_section(const toml::node &node, Daemon &d);
  void host_cc_section(const toml::node &node, std::optional<HostCc> &out);
  void scheme_tables(const toml::table &t, const std::string &ctx,
                     const lossless::policy::Registration &reg, bool buffer_ok, Pool &p);
  void pool_section(const toml::table &t, std::size_t index, Pool &p, bool &name_given,
                    std::string &raw_name);
  void port_section(const toml::table &t, std::size_t index, Port &p, bool &dev_given,
                    std::string &raw_dev, bool &pool_given, std::uint32_t &pool_line);
  void qdisc_options(const toml::table &t, const std::string &ctx, Port &p);
  void port_mode(const toml::table &t, const std::string &ctx, Port &p);
  void port_mode_check(const toml::table &t, const std::string &ctx, const Port &p,
                       const Pool *pool);
  std::optional<Ecn> ecn(const std::string &ctx, const toml::node &n);
  std::optional<WatchdogKeys> watchdog_keys(const std::string &ctx, const toml::table &t);
  std::optional<Watchdog> watchdog(const std::string &ctx, const WatchdogKeys &k,
                                   const WatchdogKeys *pool_keys, const std::string &pool);
  std::optional<Endpoint> endpoint(const std::string &ctx, const toml::node &n);
  std::optional<std::uint64_t> rate(const std::string &ctx, const toml::node &n);
  std::optional<std::uint64_t> cable_length(const std::string &ctx, const toml::node &n);
  std::optional<std::uint8_t> prios(const std::string &ctx, const toml::node &n);
  void missing(const std::string &ctx, std::uint32_t line, std::string_view key,
               const std::string &hint = {})
  {
    error(line, ctx + ": missing required key " + quote(key) + hint);
  }
};

// config_portfc.cpp: [portfc], after the pools and ports (it checks its
// ports against them).
void portfc_section(Parser &ps, const toml::node &node, Config &cfg,
                    const std::vector<const toml::table *> &port_tables);

// config_pool.cpp
void scheme_checks(Parser &ps, const toml::table &pool_table, Pool &pool,
                   const std::vector<const toml::table *> &port_tables, const Config &cfg);

}  // namespace lossless::config
