// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "config.h"
#include "policy.h"
#include "registry.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <toml++/toml.h>

#include "ll_params.h"
#include "ll_units.h"

extern "C" {
#include "headroom.h"
}

namespace lossless::config {

// ------------------------------------------------------------ diagnostics

std::string Diagnostic::str() const
{
  std::string s = file;
  if (line) {
    s += ":" + std::to_string(line);
    if (column)
      s += ":" + std::to_string(column);
  }
  return s + ": " + message;
}

namespace {

std::string join_lines(const std::vector<Diagnostic> &d)
{
  std::string s;
  for (const auto &e : d) {
    if (!s.empty())
      s += '\n';
    s += e.str();
  }
  return s;
}

}  // namespace

ConfigError::ConfigError(std::vector<Diagnostic> errors)
    : std::runtime_error(join_lines(errors)), errors_(std::move(errors))
{
}

std::vector<std::string> ConfigError::errors() const
{
  std::vector<std::string> v;
  for (const auto &e : errors_)
    v.push_back(e.str());
  return v;
}

std::string_view ingress_mode_name(IngressMode m)
{
  switch (m) {
    case IngressMode::PcpDscp:
      return "pcp-dscp";
    case IngressMode::Pcp:
      return "pcp";
    case IngressMode::Dscp:
      return "dscp";
  }
  return "?";
}

std::string_view watchdog_action_name(WatchdogAction a)
{
  switch (a) {
    case WatchdogAction::Off:
      return "off";
    case WatchdogAction::Alert:
      return "alert";
    case WatchdogAction::Forward:
      return "forward";
    case WatchdogAction::Drop:
      return "drop";
  }
  return "?";
}

const Pool *Config::find_pool(std::string_view name) const
{
  for (const auto &p : pools)
    if (p.name == name)
      return &p;
  return nullptr;
}

const std::vector<std::string> &policies()
{
  static const std::vector<std::string> names = lossless::policy::names();  // the registry
  return names;
}

namespace {

// ------------------------------------------------------------ key tables

const std::vector<std::string_view> kSections = {"daemon", "pool", "port"};
const std::vector<std::string_view> kDaemonKeys = {"pin_dir", "socket", "period", "prometheus"};
// The keys of a [[pool]] and a [[port]]: the pool's parameter table's
// (ll_params.h: a [[pool]]'s unless LL_PARAM_TOML_PORT), then the others.
std::vector<std::string_view> table_keys(bool port, std::vector<std::string_view> others)
{
  std::vector<std::string_view> k;
  for (const ll_param &r : ll_params)
    if (r.key && r.scheme < 0 && !(r.flags & LL_PARAM_TOML_PORT) == !port)
      k.push_back(r.key);
  k.insert(k.end(), others.begin(), others.end());
  return k;
}

// A [[pool]]'s keys: the rows', policy, watchdog; pool_keys() adds a
// [pool.<scheme>] table per registered scheme.
const std::vector<std::string_view> &pool_value_keys()
{
  static const std::vector<std::string_view> keys = table_keys(false, {"policy", "watchdog"});
  return keys;
}
const std::vector<std::string_view> &pool_keys()
{
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> k = pool_value_keys();
    for (const auto *r : lossless::policy::registry())
      if (lossless::policy::by_scheme(r->scheme) == r)
        k.push_back(r->scheme);
    return k;
  }();
  return keys;
}
const std::vector<std::string_view> kEcnKeys = {"kmin", "kmax", "pmax"};
const std::vector<std::string_view> &port_keys()
{
  static const std::vector<std::string_view> keys = table_keys(
      true, {"dev", "pool", "rate", "cable_length", "mtu", "queues", "ingress", "default_prio",
             "watchdog"});
  return keys;
}
const std::vector<std::string_view> kIngressModes = {"pcp-dscp", "pcp", "dscp"};
const std::vector<std::string_view> kWatchdogKeys = {
    "action", "detection_time_ms", "restoration_time_ms", "polling_interval_ms",
    "xoff_alarm_ms"};
const std::vector<std::string_view> kWatchdogActions = {"off", "alert", "forward", "drop"};

// The time keys of a watchdog table, in this order, and their defaults (ms).
enum { kWdDetect, kWdRestore, kWdPoll, kWdAlarm, kWdTimes };
constexpr const char *kWdTimeKeys[kWdTimes] = {"detection_time_ms", "restoration_time_ms",
                                                "polling_interval_ms", "xoff_alarm_ms"};
constexpr std::uint64_t kWdDefaultMs[kWdTimes] = {200, 200, 100, 0};

// The keys one watchdog table gives, each with its node (for messages).
struct WatchdogKeys {
  const toml::node *table = nullptr;
  std::optional<WatchdogAction> action;
  std::optional<std::uint64_t> ms[kWdTimes];
  const toml::node *node[kWdTimes] = {};
  bool ok = true;  // every key valid
};

constexpr std::uint32_t kU32Max = 0xffffffffu;
constexpr unsigned kPrios = 8;
constexpr std::size_t kIfNameMax = 15;     // IFNAMSIZ - 1
constexpr std::size_t kSunPathMax = 107;   // sizeof(sun_path) - 1
constexpr std::uint64_t kRateMinBps = 8000;            // LOSSLESS_RATE_MIN_BPS
constexpr std::uint64_t kRateMaxBps = 1600000000000;   // LOSSLESS_RATE_MAX_BPS

// Optimal string alignment distance (Levenshtein plus adjacent
// transpositions: "alpah" is 1 from "alpha").
std::size_t edit_distance(std::string_view a, std::string_view b)
{
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; i++)
    d[i][0] = i;
  for (std::size_t j = 0; j <= m; j++)
    d[0][j] = j;
  for (std::size_t i = 1; i <= n; i++)
    for (std::size_t j = 1; j <= m; j++) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

// " (did you mean "x"?)" for the closest candidate within distance 2
// (prefix + candidate, for keys of a nested table).
std::string suggest(std::string_view word, const std::vector<std::string_view> &candidates,
                    const std::string &prefix = {})
{
  std::string_view best;
  std::size_t best_d = 3;
  for (auto c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best.empty())
    return {};
  return " (did you mean \"" + prefix + std::string(best) + "\"?)";
}

// A string in double quotes, escaped as in TOML's basic strings.
std::string quote(std::string_view s)
{
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      q += '\\';
      q += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      q += buf;
    } else {
      q += static_cast<char>(c);
    }
  }
  return q + "\"";
}

std::string type_phrase(const toml::node &n)
{
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time of day";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "nothing";
  }
}

std::string format_double(double v)
{
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eEn") == std::string::npos)  // 1 -> 1.0, as TOML
    s += ".0";
  return s;
}

// The value as written in a message: "text", 42, 0.2, true; empty for
// dates, arrays and tables (the message names their type instead).
std::string render(const toml::node &n)
{
  if (auto s = n.as_string())
    return quote(s->get());
  if (auto i = n.as_integer())
    return std::to_string(i->get());
  if (auto f = n.as_floating_point())
    return format_double(f->get());
  if (auto b = n.as_boolean())
    return b->get() ? "true" : "false";
  return {};
}

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

  // Unknown keys of a table, each with the closest known key.
  void check_keys(const toml::table &t, const std::vector<std::string_view> &known,
                  const std::string &ctx, const std::string &prefix = {})
  {
    for (auto &&[k, v] : t) {
      (void)v;
      if (std::find(known.begin(), known.end(), k.str()) != known.end())
        continue;
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
  void scheme_tables(const toml::table &t, const std::string &ctx,
                     const lossless::policy::Registration &reg, bool buffer_ok, Pool &p);
  void pool_section(const toml::table &t, std::size_t index, Pool &p, bool &name_given,
                    std::string &raw_name);
  void port_section(const toml::table &t, std::size_t index, Port &p, bool &dev_given,
                    std::string &raw_dev, bool &pool_given, std::uint32_t &pool_line);
  std::optional<Ecn> ecn(const std::string &ctx, const toml::node &n);
  std::optional<WatchdogKeys> watchdog_keys(const std::string &ctx, const toml::node &n,
                                            const char *form);
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

// ------------------------------------------------------------ [daemon]

std::optional<Endpoint> Parser::endpoint(const std::string &ctx, const toml::node &n)
{
  const char *form =
      "must be a loopback or explicit local address with a port: ADDRESS:PORT or "
      "[IPV6-ADDRESS]:PORT (127.0.0.1:9464, [::1]:9464)";
  const char *unicast =
      "a multicast or broadcast address: give a loopback or explicit local address "
      "(127.0.0.1:9464)";
  auto text = n.as_string();
  if (!text) {
    bad_type(ctx, "prometheus", n, "a string ADDRESS:PORT (\"127.0.0.1:9464\")");
    return std::nullopt;
  }
  const std::string &s = text->get();
  std::string addr, port;
  if (!s.empty() && s[0] == '[') {
    auto close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() || s[close + 1] != ':') {
      bad(ctx, "prometheus", n, form);
      return std::nullopt;
    }
    addr = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    auto colon = s.rfind(':');
    if (colon == std::string::npos || s.find(':') != colon) {
      bad(ctx, "prometheus", n, form);
      return std::nullopt;
    }
    addr = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  Endpoint e;
  unsigned long pv = 0;
  bool port_ok = !port.empty() && port.size() <= 5 &&
                 std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (port_ok) {
    pv = std::stoul(port);
    port_ok = pv >= 1 && pv <= 65535;
  }
  in_addr a4;
  in6_addr a6;
  bool bracketed = !s.empty() && s[0] == '[';
  if (!bracketed && inet_pton(AF_INET, addr.c_str(), &a4) == 1) {
    std::uint32_t h = ntohl(a4.s_addr);
    if (h == 0) {
      bad(ctx, "prometheus", n,
          "0.0.0.0 listens on every address: give a loopback or explicit local address "
          "(127.0.0.1:9464)");
      return std::nullopt;
    }
    if ((h >> 28) == 0xe || h == 0xffffffffu) {
      bad(ctx, "prometheus", n, unicast);
      return std::nullopt;
    }
    e.loopback = (h >> 24) == 127;
  } else if (bracketed && inet_pton(AF_INET6, addr.c_str(), &a6) == 1) {
    if (IN6_IS_ADDR_UNSPECIFIED(&a6)) {
      bad(ctx, "prometheus", n,
          "[::] listens on every address: give a loopback or explicit local address "
          "([::1]:9464)");
      return std::nullopt;
    }
    if (IN6_IS_ADDR_MULTICAST(&a6)) {
      bad(ctx, "prometheus", n, unicast);
      return std::nullopt;
    }
    e.ipv6 = true;
    e.loopback = IN6_IS_ADDR_LOOPBACK(&a6);
  } else {
    bad(ctx, "prometheus", n,
        "the address must be a numeric IPv4 address or an IPv6 address in brackets, not a "
        "host name (127.0.0.1:9464, [::1]:9464)");
    return std::nullopt;
  }
  if (!port_ok) {
    bad(ctx, "prometheus", n, "the port must be an integer 1 .. 65535 (127.0.0.1:9464)");
    return std::nullopt;
  }
  e.address = addr;
  e.port = static_cast<std::uint16_t>(pv);
  return e;
}

void Parser::daemon_section(const toml::node &node, Daemon &d)
{
  const std::string ctx = "[daemon]";
  auto t = node.as_table();
  if (!t) {
    error(line_of(node.source()),
          "daemon: must be a table [daemon], not " + type_phrase(node) +
              (node.is_array_of_tables() ? " of tables [[daemon]]" : ""));
    return;
  }
  check_keys(*t, kDaemonKeys, ctx);
  for (const char *key : {"pin_dir", "socket"}) {
    const toml::node *n = t->get(key);
    if (!n)
      continue;
    auto v = string(ctx, key, *n);
    if (!v)
      continue;
    bool is_socket = std::strcmp(key, "socket") == 0;
    if (v->empty() || (*v)[0] != '/') {
      bad(ctx, key, *n, "must be an absolute path");
      continue;
    }
    if (is_socket && v->size() > kSunPathMax) {
      bad(ctx, key, *n,
          "must be an absolute path of at most " + std::to_string(kSunPathMax) +
              " bytes (a UNIX socket's sun_path)");
      continue;
    }
    (is_socket ? d.socket : d.pin_dir) = *v;
  }
  if (const toml::node *n = t->get("period"))
    if (auto v = time(ctx, "period", *n, kPeriodMinNs, kPeriodMaxNs))
      d.period_ns = *v;
  if (const toml::node *n = t->get("prometheus"))
    d.prometheus = endpoint(ctx, *n);
}

// ------------------------------------------------------------ [[pool]]

std::optional<std::uint8_t> Parser::prios(const std::string &ctx, const toml::node &n)
{
  const char *key = ll_params[LL_P_LOSSLESS_PRIOS].key;
  const std::string range = "0 .. " + std::to_string(LL_UNITS_PRIOS_MAX);
  auto a = n.as_array();
  if (!a) {
    bad_type(ctx, key, n, "an array of priorities " + range + " ([3, 4], or [] for none)");
    return std::nullopt;
  }
  std::uint8_t mask = 0;
  bool ok = true;
  // The same rule as tc's lossless-prios (ll_units_prios_add, shared).
  for (const toml::node &e : *a) {
    auto i = e.as_integer();
    int err = i ? ll_units_prios_add(&mask, i->get()) : LL_UNITS_PRIOS_RANGE;
    if (err == LL_UNITS_PRIOS_RANGE) {
      bad(ctx, key, e,
          "must be a priority " + range + (i ? std::string() : ", not " + type_phrase(e)));
      ok = false;
    } else if (err == LL_UNITS_PRIOS_DUPLICATE) {
      bad(ctx, key, e, "listed twice");
      ok = false;
    }
  }
  if (!ok)
    return std::nullopt;
  return mask;
}

std::optional<Ecn> Parser::ecn(const std::string &ctx, const toml::node &n)
{
  auto t = n.as_table();
  if (!t) {
    bad_type(ctx, "ecn", n, "a table { kmin = \"30kb\", kmax = \"100kb\", pmax = 0.2 }");
    return std::nullopt;
  }
  check_keys(*t, kEcnKeys, ctx, "ecn.");
  Ecn e;
  bool ok = true;
  std::optional<std::uint64_t> kmin, kmax;
  const toml::node *nmin = t->get("kmin"), *nmax = t->get("kmax"), *npmax = t->get("pmax");
  for (auto [key, node] : {std::pair{"kmin", nmin}, {"kmax", nmax}, {"pmax", npmax}})
    if (!node) {
      missing(ctx, line_of(n.source()), std::string("ecn.") + key,
              " (ecn needs kmin, kmax and pmax together)");
      ok = false;
    }
  if (nmin && !(kmin = size(ctx, "ecn.kmin", *nmin, 0, kU32Max)))
    ok = false;
  if (nmax && !(kmax = size(ctx, "ecn.kmax", *nmax, 1, kU32Max)))
    ok = false;
  if (kmin && kmax && *kmin >= *kmax) {
    error(line_of(nmax->source()), ctx + ": ecn: kmin (" + std::to_string(*kmin) +
                                       " bytes) must be below kmax (" + std::to_string(*kmax) +
                                       " bytes)");
    ok = false;
  }
  if (npmax) {
    std::uint32_t units = 0;
    int rc = -1;
    if (auto f = npmax->as_floating_point())
      rc = ll_units_prob_double(f->get(), &units);
    else if (auto i = npmax->as_integer())
      rc = i->get() == 0 || i->get() == 1 ? ll_units_prob_double(double(i->get()), &units) : -1;
    else if (auto s = npmax->as_string())
      rc = ll_units_prob(s->get().c_str(), &units);
    else {
      bad_type(ctx, "ecn.pmax", *npmax, "a probability 0 .. 1 (0.2)");
      return std::nullopt;
    }
    if (rc) {
      bad(ctx, "ecn.pmax", *npmax, "must be a probability 0 .. 1 (0.2)");
      ok = false;
    }
    e.pmax = units;
  }
  if (!ok)
    return std::nullopt;
  e.kmin_bytes = static_cast<std::uint32_t>(*kmin);
  e.kmax_bytes = static_cast<std::uint32_t>(*kmax);
  return e;
}

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

void Parser::pool_section(const toml::table &t, std::size_t index, Pool &p, bool &name_given,
                          std::string &raw_name)
{
  std::string ctx = "pool #" + std::to_string(index + 1);
  p.line = line_of(t.source());
  name_given = false;
  if (const toml::node *n = t.get("name")) {
    if (auto v = string(ctx, "name", *n)) {
      name_given = true;
      raw_name = *v;
      int bad_at = ll_units_pool_name(v->c_str());
      std::string rule = "the name must be 1 .. " + std::to_string(LL_UNITS_POOL_NAME_MAX) +
                         " characters of " + LL_UNITS_POOL_NAME_CHARS;
      if (bad_at < 0) {
        bad(ctx, "name", *n, rule);
      } else if (bad_at > 0) {
        unsigned char c = static_cast<unsigned char>((*v)[bad_at - 1]);
        char shown = c < 0x80 && std::isprint(c) ? static_cast<char>(c) : '?';
        bad(ctx, "name", *n,
            "character " + std::to_string(bad_at) + " ('" + shown + "') is not allowed: " + rule);
      } else {
        p.name = *v;
        ctx = "pool " + quote(p.name);
      }
    }
  } else {
    missing(ctx, p.line, "name");
  }
  check_keys(t, pool_keys(), ctx);

  const lossless::policy::Registration *scheme_reg = nullptr;
  if (const toml::node *n = t.get("scheme")) {
    if (auto v = string(ctx, "scheme", *n)) {
      scheme_reg = lossless::policy::by_scheme(*v);
      if (!scheme_reg) {
        std::vector<std::string_view> cands;
        for (const auto *r : lossless::policy::registry())
          cands.push_back(r->scheme);
        bad(ctx, "scheme", *n,
            "unknown scheme" + suggest(*v, cands) + "; known: " + lossless::policy::scheme_names());
      }
    }
  }
  const lossless::policy::Registration *policy_reg = nullptr;
  if (const toml::node *n = t.get("policy")) {
    if (auto v = string(ctx, "policy", *n)) {
      const auto &known = policies();
      if (std::find(known.begin(), known.end(), *v) == known.end()) {
        std::vector<std::string_view> cands(known.begin(), known.end());
        std::string list;
        for (const auto &k : known)
          list += (list.empty() ? "" : ", ") + k;
        bad(ctx, "policy", *n, "unknown policy" + suggest(*v, cands) + "; known: " + list);
      } else {
        policy_reg = lossless::policy::by_policy(*v);
        p.policy = *v;
        if (scheme_reg && policy_reg->scheme != scheme_reg->scheme)
          bad(ctx, "scheme", *t.get("scheme"),
              "policy " + quote(*v) + " drives scheme " +
                  quote(std::string(policy_reg->scheme)) + " (policy \"" +
                  std::string(scheme_reg->policy) + "\" drives this one)");
      }
    }
  } else {
    std::string list;
    for (const auto &k : policies())
      list += (list.empty() ? "" : ", ") + k;
    missing(ctx, p.line, "policy", " (" + list + ")");
  }
  // The policy says the scheme; "scheme", if given, must agree.
  if (!policy_reg)
    policy_reg = lossless::policy::by_scheme("dt");
  p.scheme = std::string(policy_reg->scheme);
  p.scheme_block = lossless::policy::default_block(*policy_reg);
  bool buffer_bad = false;  // cross-checks against a bad buffer would mislead
  if (auto v = param(ctx, t, LL_P_BUFFER, &buffer_bad))
    p.buffer_bytes = *v;
  bool buffer_ok = !buffer_bad;
  if (auto v = param(ctx, t, LL_P_LOSSLESS_PRIOS))
    p.lossless_mask = static_cast<std::uint8_t>(*v);
  if (auto v = param(ctx, t, LL_P_ALPHA))
    p.alpha = static_cast<std::uint32_t>(*v);
  if (auto v = param(ctx, t, LL_P_EGRESS_ALPHA))
    p.egress_alpha = static_cast<std::uint32_t>(*v);
  if (auto v = param(ctx, t, LL_P_RESERVED)) {
    // The reserve of one port (8 priorities) must leave a shared region.
    const char *key = ll_params[LL_P_RESERVED].key;
    if (buffer_ok && 8 * *v >= p.buffer_bytes)
      bad(ctx, key, *t.get(key),
          "8 x reserved (" + std::to_string(8 * *v) +
              " bytes) leaves no shared buffer in buffer (" + std::to_string(p.buffer_bytes) +
              " bytes)");
    else
      p.reserved_bytes = static_cast<std::uint32_t>(*v);
  }
  if (auto v = param(ctx, t, LL_P_XON_OFFSET)) {
    const ll_param &r = ll_params[LL_P_XON_OFFSET];
    if (!buffer_ok || within_buffer(ctx, *t.get(r.key), r, *v, p.buffer_bytes))
      p.xon_offset_bytes = static_cast<std::uint32_t>(*v);
  }
  if (auto v = param(ctx, t, LL_P_SW_DELAY))
    p.sw_delay_ns = *v;
  if (const toml::node *n = t.get(ll_params[LL_P_ECN].key))
    p.ecn = ecn(ctx, *n);
  scheme_tables(t, ctx, *policy_reg, buffer_ok, p);
}

// [pool.<scheme>]: the pool's scheme's parameters, by its registry rows;
// a table of another scheme is an error (its keys would do nothing).
void Parser::scheme_tables(const toml::table &t, const std::string &ctx,
                           const lossless::policy::Registration &reg, bool buffer_ok, Pool &p)
{
  for (const auto *r : lossless::policy::registry()) {
    const toml::node *n = t.get(r->scheme);
    if (!n || lossless::policy::by_scheme(r->scheme) != r)
      continue;
    const toml::table *tab = n->as_table();
    if (!tab) {
      bad_type(ctx, r->scheme, *n, "a table ([pool." + std::string(r->scheme) + "])");
      continue;
    }
    if (r->scheme != reg.scheme) {
      error(line_of(n->source()), ctx + ": [pool." + std::string(r->scheme) +
                                      "] is for scheme " + quote(std::string(r->scheme)) +
                                      "; this pool runs " + quote(std::string(reg.scheme)));
      continue;
    }
    std::vector<std::string_view> keys;
    for (const auto *sp : reg.params)
      keys.push_back(sp->key);
    std::string sctx = ctx + ": " + std::string(reg.scheme);
    check_keys(*tab, keys, sctx);
    for (const auto *sp : reg.params) {
      const toml::node *v = tab->get(sp->key);
      if (!v)
        continue;
      std::optional<std::uint64_t> x = param(sctx, *sp, *v);
      if (x && (!buffer_ok || within_buffer(sctx, *v, *sp, *x, p.buffer_bytes)))
        p.scheme_block.p.raw[sp->word] = *x;
    }
    // K only derives IRC_th: with a given one it would do nothing.
    const toml::node *k = tab->get(ll_params[LL_P_SPFC_K].key);
    if (reg.scheme_id == LOSSLESS_SCHEME_SPFC && k)
      for (ll_param_id id : {LL_P_SPFC_IRC_TH, LL_P_SPFC_IRC_TH_PACKETS})
        if (tab->get(ll_params[id].key)) {
          bad(sctx, "k", *k,
              std::string("K only derives IRC_th = C x TC / (8 K): not with ") +
                  ll_params[id].key);
          break;
        }
  }
}

// The scheme's checks against the pool's ports (registry.h's
// check_scheme()), at the line of the key they are about. Ports' headroom
// is the given one, or the formula's when the rate is given (without the
// shaper's term, which the qdisc reports later); round trips are 2 x
// (cable delay + the pool's sw_delay). SPFC's window, when not given, is
// 4 round trips of the slowest port, at least the row's default.
void scheme_checks(Parser &ps, const toml::table &pool_table, Pool &pool,
                   const std::vector<const toml::table *> &port_tables, const Config &cfg)
{
  if (pool.scheme_block.id != LOSSLESS_SCHEME_DSH && pool.scheme_block.id != LOSSLESS_SCHEME_SPFC)
    return;
  std::vector<lossless::policy::SchemePort> ports;
  std::vector<std::size_t> index;  // into cfg.ports
  std::uint32_t frame = 1500 + 14 + 4;
  for (std::size_t i = 0; i < cfg.ports.size(); i++) {
    const Port &p = cfg.ports[i];
    if (p.pool != pool.name)
      continue;
    std::uint32_t f = p.mtu_bytes.value_or(1500) + 14 + 4;
    if (index.empty())
      frame = f;  // the defaults in MTUs are the first port's
    lossless::policy::SchemePort sp;
    sp.dev = p.dev;
    sp.rtt_ns = 2 * (p.cable_delay_ns + pool.sw_delay_ns);
    sp.frame_bytes = f;
    sp.headroom_bytes = p.headroom_bytes;
    if (!sp.headroom_bytes && p.rate_bps) {
      ll_headroom_params h{};
      h.rate_bps = *p.rate_bps;
      h.cable_delay_ns = p.cable_delay_ns;
      h.sw_response_ns = pool.sw_delay_ns;
      h.mtu_bytes = f;
      sp.headroom_bytes = ll_headroom_bytes(&h);
    }
    ports.push_back(sp);
    index.push_back(i);
  }
  const std::string scheme = pool.scheme;
  const toml::node *stab_node = pool_table.get(scheme);
  const toml::table *stab = stab_node ? stab_node->as_table() : nullptr;
  auto &tc = pool.scheme_block.p.spfc.tc_ns;
  if (pool.scheme_block.id == LOSSLESS_SCHEME_SPFC &&
      !(stab && stab->get(ll_params[LL_P_SPFC_WINDOW].key))) {
    std::uint64_t rtt = 0;
    for (const auto &sp : ports)
      rtt = std::max(rtt, sp.rtt_ns);
    tc = std::clamp<std::uint64_t>(4 * rtt, ll_params[LL_P_SPFC_WINDOW].def,
                                   ll_params[LL_P_SPFC_WINDOW].max);
  }
  lossless::policy::PoolSettings s;
  s.alpha = pool.alpha;
  s.lossless_mask = pool.lossless_mask;
  s.buffer_bytes = pool.buffer_bytes;
  s.sw_delay_ns = pool.sw_delay_ns;
  s.reserved_bytes = pool.reserved_bytes.value_or(
      static_cast<std::uint32_t>(ll_param_default(&ll_params[LL_P_RESERVED], frame)));
  s.scheme = pool.scheme_block;
  const std::string ctx = "pool " + quote(pool.name) + ": ";
  for (const auto &issue : lossless::policy::check_scheme(s, ports)) {
    std::uint32_t line = pool.line;
    if (issue.port >= 0 && issue.param < 0) {
      const Port &port = cfg.ports[index[issue.port]];
      const toml::table &pt = *port_tables[index[issue.port]];
      const toml::node *h = pt.get(ll_params[LL_P_HEADROOM].key);
      line = h ? Parser::line_of(h->source()) : port.line;
    } else if (issue.param >= 0) {
      const ll_param &r = ll_params[issue.param];
      const toml::table *t = r.scheme >= 0 ? stab : &pool_table;
      const toml::node *n = t && r.key ? t->get(r.key) : nullptr;
      line = n ? Parser::line_of(n->source()) : t ? Parser::line_of(t->source()) : pool.line;
    }
    if (issue.error)
      ps.error(line, ctx + issue.msg);
    else
      ps.warn(line, ctx + issue.msg);
  }
}

// ------------------------------------------------------------ [[port]]

std::optional<std::uint64_t> Parser::rate(const std::string &ctx, const toml::node &n)
{
  auto text = unit_text(n);
  if (!text) {
    bad_type(ctx, "rate", n, "a rate (a string such as \"10gbit\", or \"auto\")");
    return std::nullopt;
  }
  if (text->find('%') != std::string::npos) {
    bad(ctx, "rate", n,
        "a percentage of the link speed is not taken here: give the rate, or \"auto\" for the "
        "link speed the device reports");
    return std::nullopt;
  }
  const char *unit = nullptr;
  std::uint64_t bps = 0;
  switch (ll_units_rate(text->c_str(), kRateMinBps, kRateMaxBps, &bps, &unit)) {
    case LL_UNITS_RATE_OK:
      return bps;
    case LL_UNITS_RATE_AMBIGUOUS: {
      std::string u = unit, stem = u.substr(0, u.size() - 3);
      bad(ctx, "rate", n,
          quote(u) + " is ambiguous: write " + stem + "bit for bits/s or " + stem +
              "Bps for bytes/s");
      return std::nullopt;
    }
    case LL_UNITS_RATE_UNIT:
      bad(ctx, "rate", n,
          "unknown unit " + quote(unit) + " (use " + LL_UNITS_RATE_UNITS + ")");
      return std::nullopt;
    default:
      bad(ctx, "rate", n,
          "must be 8kbit .. 1.6tbit (8000 .. 1600000000000 bit/s), e.g. 10gbit, or \"auto\"");
      return std::nullopt;
  }
}

// "100m": meters of cable, 5 ns each, rounded to the nearest ns.
std::optional<std::uint64_t> Parser::cable_length(const std::string &ctx, const toml::node &n)
{
  const std::uint64_t max_ns = ll_params[LL_P_CABLE_DELAY].max;
  const std::uint64_t max_m = max_ns / kNsPerMeter;
  const std::string reason = "must be a length 0 .. " + std::to_string(max_m) +
                             "m in meters with the unit m (2m, 100m)";
  auto s = n.as_string();
  if (!s) {
    bad_type(ctx, "cable_length", n, "a length (a string such as \"100m\")");
    return std::nullopt;
  }
  const std::string &text = s->get();
  bool ok = text.size() >= 2 && text.back() == 'm';
  std::string num = ok ? text.substr(0, text.size() - 1) : std::string();
  bool dot = false, digits = false;
  for (char c : num) {
    if (c >= '0' && c <= '9')
      digits = true;
    else if (c == '.' && !dot)
      dot = true;
    else
      ok = false;
  }
  if (!ok || !digits) {
    bad(ctx, "cable_length", n, reason);
    return std::nullopt;
  }
  double ns = std::strtod(num.c_str(), nullptr) * static_cast<double>(kNsPerMeter) + 0.5;
  if (!(ns < static_cast<double>(max_ns) + 1)) {
    bad(ctx, "cable_length", n, reason);
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(ns);
}

// Linux's dev_valid_name(): 1 .. IFNAMSIZ-1 bytes, not "." or "..", no
// '/', ':' or white space.
bool valid_ifname(const std::string &s)
{
  if (s.empty() || s.size() > kIfNameMax || s == "." || s == "..")
    return false;
  for (unsigned char c : s)
    if (c == '/' || c == ':' || std::isspace(c))
      return false;
  return true;
}

void Parser::port_section(const toml::table &t, std::size_t index, Port &p, bool &dev_given,
                          std::string &raw_dev, bool &pool_given, std::uint32_t &pool_line)
{
  std::string ctx = "port #" + std::to_string(index + 1);
  p.line = line_of(t.source());
  dev_given = pool_given = false;
  if (const toml::node *n = t.get("dev")) {
    if (auto v = string(ctx, "dev", *n)) {
      dev_given = true;
      raw_dev = *v;
      if (!valid_ifname(*v)) {
        bad(ctx, "dev", *n,
            "must be a network interface name: 1 .. 15 bytes, not \".\" or \"..\", without "
            "'/', ':' or white space");
      } else {
        p.dev = *v;
        ctx = "port " + quote(p.dev);
      }
    }
  } else {
    missing(ctx, p.line, "dev");
  }
  check_keys(t, port_keys(), ctx);

  if (const toml::node *n = t.get("pool")) {
    if (auto v = string(ctx, "pool", *n)) {
      pool_given = true;
      pool_line = line_of(n->source());
      p.pool = *v;
    }
  } else {
    missing(ctx, p.line, "pool");
  }
  if (const toml::node *n = t.get("rate")) {
    auto s = n->as_string();
    if (!(s && s->get() == "auto"))
      p.rate_bps = rate(ctx, *n);
  }
  const toml::node *cd = t.get(ll_params[LL_P_CABLE_DELAY].key), *cl = t.get("cable_length");
  if (cd && cl) {
    const toml::node *later =
        line_of(cd->source()) >= line_of(cl->source()) ? cd : cl;
    error(line_of(later->source()),
          ctx + ": cable_delay and cable_length: give at most one of the two");
  } else if (cd) {
    if (auto v = param(ctx, ll_params[LL_P_CABLE_DELAY], *cd))
      p.cable_delay_ns = *v;
  } else if (cl) {
    if (auto v = cable_length(ctx, *cl))
      p.cable_delay_ns = *v;
  }
  if (const toml::node *n = t.get("mtu"))
    if (auto v = integer(ctx, "mtu", *n, kMtuMin, kMtuMax, "bytes (the device MTU)"))
      p.mtu_bytes = static_cast<std::uint32_t>(*v);
  if (const toml::node *n = t.get("queues"))
    if (auto v = integer(ctx, "queues", *n, 1, kQueuesMax))
      p.queues = static_cast<std::uint8_t>(*v);
  if (auto v = param(ctx, t, LL_P_HEADROOM))
    p.headroom_bytes = static_cast<std::uint32_t>(*v);
  if (const toml::node *n = t.get("ingress")) {
    if (auto v = string(ctx, "ingress", *n)) {
      auto it = std::find(kIngressModes.begin(), kIngressModes.end(), *v);
      if (it == kIngressModes.end())
        bad(ctx, "ingress", *n, "must be pcp-dscp, pcp or dscp" + suggest(*v, kIngressModes));
      else
        p.ingress = static_cast<IngressMode>(it - kIngressModes.begin());
    }
  }
  if (const toml::node *n = t.get("default_prio"))
    if (auto v = integer(ctx, "default_prio", *n, 0, kPrios - 1))
      p.default_prio = static_cast<std::uint8_t>(*v);
}

// ------------------------------------------------------------ the file

// Where a top-level key that is not a section probably belongs.
std::string belongs(std::string_view key)
{
  auto in = [&](const std::vector<std::string_view> &keys) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  if (in(kDaemonKeys))
    return " (it belongs in [daemon])";
  if (in(pool_value_keys()))
    return " (it belongs in a [[pool]])";
  if (in(port_keys()))
    return " (it belongs in a [[port]])";
  return {};
}

Config parse_document(const toml::table &doc, std::string_view name)
{
  Parser ps;
  ps.file = std::string(name);
  Config cfg;
  cfg.source = ps.file;

  for (auto &&[k, v] : doc) {
    if (std::find(kSections.begin(), kSections.end(), k.str()) != kSections.end())
      continue;
    if (k.str() == "watchdog")
      ps.error(Parser::line_of(k.source()),
               "unknown section \"watchdog\": a watchdog belongs to the pools or the ports: "
               "[pool.watchdog] after a [[pool]]'s keys, or [port.watchdog] after a [[port]]'s");
    else if (v.is_table() || v.is_array_of_tables())
      ps.error(Parser::line_of(k.source()),
               "unknown section " + quote(k.str()) + suggest(k.str(), kSections));
    else
      ps.error(Parser::line_of(k.source()), "unknown key " + quote(k.str()) +
                                                " at the top level" + belongs(k.str()) +
                                                (belongs(k.str()).empty()
                                                     ? suggest(k.str(), kSections)
                                                     : std::string()));
  }

  if (const toml::node *d = doc.get("daemon"))
    ps.daemon_section(*d, cfg.daemon);

  // Each array of tables: its tables, or one error for the wrong form.
  bool form_error = false;
  auto tables = [&](const char *key) {
    std::vector<const toml::table *> out;
    const toml::node *n = doc.get(key);
    if (!n)
      return out;
    if (!n->is_array_of_tables()) {
      bool empty_array = n->is_array() && n->as_array()->empty();
      form_error |= !empty_array;
      if (!empty_array)
        ps.error(Parser::line_of(n->source()),
                 std::string(key) + ": must be an array of tables [[" + key + "]], not " +
                     type_phrase(*n));
      return out;
    }
    for (const toml::node &e : *n->as_array())
      out.push_back(e.as_table());
    return out;
  };
  auto pool_tables = tables("pool");
  auto port_tables = tables("port");

  if (pool_tables.empty() && port_tables.empty() && !form_error)
    ps.error(0, "the configuration is empty: it needs at least one [[pool]] and one [[port]]");

  // Pools, and the names given even when invalid (no cascade of "unknown
  // pool" errors on their ports).
  std::map<std::string, std::uint32_t> pool_lines;  // valid name -> line
  std::set<std::string> pool_names_given;
  std::vector<bool> pool_ok;
  // Each pool's [pool.watchdog] keys, and whether the table (if any) is
  // valid: its ports' tables go over it, and are not checked against a
  // bad one (no cascade).
  std::vector<std::optional<WatchdogKeys>> pool_wd(pool_tables.size());
  std::vector<bool> pool_wd_ok(pool_tables.size(), true);
  for (std::size_t i = 0; i < pool_tables.size(); i++) {
    Pool p;
    bool given = false;
    std::string raw;
    std::size_t before = ps.errors.size();
    ps.pool_section(*pool_tables[i], i, p, given, raw);
    if (const toml::node *n = pool_tables[i]->get("watchdog")) {
      std::string wctx = p.name.empty() ? "pool #" + std::to_string(i + 1) : "pool " + quote(p.name);
      std::size_t before_wd = ps.errors.size();
      pool_wd[i] = ps.watchdog_keys(wctx, *n, "[pool.watchdog]");
      if (pool_wd[i] && pool_wd[i]->ok)
        p.watchdog = ps.watchdog(wctx, *pool_wd[i], nullptr, p.name);
      pool_wd_ok[i] = ps.errors.size() == before_wd && p.watchdog;
    }
    if (given)
      pool_names_given.insert(raw);
    if (!p.name.empty()) {
      auto [it, fresh] = pool_lines.emplace(p.name, p.line);
      if (!fresh) {
        const toml::node *n = pool_tables[i]->get("name");
        ps.error(Parser::line_of(n->source()),
                 "pool " + quote(p.name) + ": the name is already used by the pool at line " +
                     std::to_string(it->second));
      }
    }
    pool_ok.push_back(ps.errors.size() == before);
    cfg.pools.push_back(std::move(p));
  }

  std::map<std::string, std::uint32_t> dev_lines;
  std::map<std::string, unsigned> ports_per_pool;
  std::vector<std::string_view> valid_pools;
  for (const auto &p : cfg.pools)
    if (!p.name.empty())
      valid_pools.push_back(p.name);
  for (std::size_t i = 0; i < port_tables.size(); i++) {
    Port p;
    bool dev_given = false, pool_given = false;
    std::string raw_dev;
    std::uint32_t pool_line = 0;
    ps.port_section(*port_tables[i], i, p, dev_given, raw_dev, pool_given, pool_line);
    std::string ctx = p.dev.empty() ? "port #" + std::to_string(i + 1) : "port " + quote(p.dev);
    // The port's watchdog: its pool's, with its own table's keys over it.
    const Pool *wd_pool = pool_given ? cfg.find_pool(p.pool) : nullptr;
    std::size_t wd_at = wd_pool ? static_cast<std::size_t>(wd_pool - cfg.pools.data()) : 0;
    if (const toml::node *n = port_tables[i]->get("watchdog")) {
      auto keys = ps.watchdog_keys(ctx, *n, "[port.watchdog]");
      if (keys && keys->ok && (!wd_pool || pool_wd_ok[wd_at]))
        p.watchdog = ps.watchdog(ctx, *keys, wd_pool && pool_wd[wd_at] ? &*pool_wd[wd_at] : nullptr,
                                 wd_pool ? wd_pool->name : std::string());
    } else if (wd_pool) {
      p.watchdog = wd_pool->watchdog;
    }
    if (!p.dev.empty()) {
      auto [it, fresh] = dev_lines.emplace(p.dev, p.line);
      if (!fresh) {
        const toml::node *n = port_tables[i]->get("dev");
        ps.error(Parser::line_of(n->source()),
                 ctx + ": dev is already configured by the port at line " +
                     std::to_string(it->second));
      }
    }
    if (pool_given) {
      const Pool *pool = cfg.find_pool(p.pool);
      if (!pool && !pool_names_given.count(p.pool)) {
        ps.error(pool_line, ctx + ": pool " + quote(p.pool) + ": no [[pool]] has this name" +
                                suggest(p.pool, valid_pools));
      } else if (pool) {
        if (++ports_per_pool[p.pool] > kPortsPerPoolMax)
          ps.error(pool_line, ctx + ": pool " + quote(p.pool) + " already has " +
                                  std::to_string(kPortsPerPoolMax) + " ports (at most " +
                                  std::to_string(kPortsPerPoolMax) + ")");
        const char *key = ll_params[LL_P_HEADROOM].key;
        if (pool_ok[pool - cfg.pools.data()] && p.headroom_bytes > pool->buffer_bytes) {
          ps.bad(ctx, key, *port_tables[i]->get(key),
                 "must be at most the buffer of pool " + quote(pool->name) + " (" +
                     std::to_string(pool->buffer_bytes) + " bytes)");
        }
      }
    }
    cfg.ports.push_back(std::move(p));
  }

  for (std::size_t i = 0; i < cfg.pools.size(); i++)
    if (!cfg.pools[i].name.empty() && pool_ok[i])
      scheme_checks(ps, *pool_tables[i], cfg.pools[i], port_tables, cfg);

  for (std::size_t i = 0; i < cfg.pools.size(); i++) {
    const Pool &p = cfg.pools[i];
    if (!p.name.empty() && pool_ok[i] && !ports_per_pool.count(p.name))
      ps.warn(p.line, "pool " + quote(p.name) +
                          ": no [[port]] names this pool, so losslessd does not create it");
  }

  auto by_line = [](const Diagnostic &a, const Diagnostic &b) { return a.line < b.line; };
  std::stable_sort(ps.errors.begin(), ps.errors.end(), by_line);
  if (!ps.errors.empty())
    throw ConfigError(std::move(ps.errors));
  std::stable_sort(ps.warnings.begin(), ps.warnings.end(), by_line);
  for (const auto &w : ps.warnings)
    cfg.warnings.push_back(w.str());
  return cfg;
}

// Every name, unit and path is checked as a C string: a NUL inside a TOML
// string ("4mb\u0000x", "sw0\u0000y") would pass as its prefix and keep the
// rest. Refuse any string that holds one, keys included (found by
// tests/fuzz/config_fuzz.cpp).
void refuse_nul_strings(const toml::node &n, std::string_view name,
                        std::vector<Diagnostic> &errors)
{
  auto at = [&](const toml::source_region &r, const std::string &what) {
    errors.push_back({std::string(name), static_cast<std::uint32_t>(r.begin.line),
                      static_cast<std::uint32_t>(r.begin.column),
                      what + " holds a NUL character (\\u0000)"});
  };
  if (auto s = n.as_string()) {
    if (s->get().find('\0') != std::string::npos)
      at(n.source(), "a string");
  } else if (auto t = n.as_table()) {
    for (auto &&[k, v] : *t) {
      if (k.str().find('\0') != std::string_view::npos)
        at(v.source(), "a key");
      refuse_nul_strings(v, name, errors);
    }
  } else if (auto a = n.as_array()) {
    for (auto &&v : *a)
      refuse_nul_strings(v, name, errors);
  }
}

}  // namespace

Config parse_string(std::string_view text, std::string_view name)
{
  toml::table doc;
  try {
    doc = toml::parse(text, name);
  } catch (const toml::parse_error &e) {
    const auto &b = e.source().begin;
    throw ConfigError({{std::string(name), static_cast<std::uint32_t>(b.line),
                        static_cast<std::uint32_t>(b.column),
                        "TOML syntax error: " + std::string(e.description())}});
  }
  std::vector<Diagnostic> nul;
  refuse_nul_strings(doc, name, nul);
  if (!nul.empty())
    throw ConfigError(std::move(nul));
  return parse_document(doc, name);
}

Config parse_file(const std::string &path)
{
  auto fail = [&](int err) {
    return ConfigError({{path, 0, 0, std::string("cannot read the configuration: ") +
                                         std::strerror(err)}});
  };
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw fail(errno);
  std::string text;
  char buf[65536];
  std::size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0)
    text.append(buf, got);
  int err = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (err)
    throw fail(err);
  return parse_string(text, path);
}

}  // namespace lossless::config
