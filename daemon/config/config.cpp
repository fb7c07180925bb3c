// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: diagnostics, the key tables and the words of the messages,
// and the file (parse_string, parse_file: its sections in order). Each
// section has a file of its own: config_daemon.cpp, config_pool.cpp,
// config_watchdog.cpp, config_port.cpp; config_parser.h is what they share.
#include "config.h"
#include "config_parser.h"
#include "policy.h"
#include "registry.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "ll_params.h"

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

const std::vector<std::string_view> kSections = {"daemon", "pool", "port", "host_cc", "portfc"};
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

}  // namespace

const std::vector<std::string_view> kDaemonKeys = {"pin-dir", "socket", "period", "prometheus"};
// A [[pool]]'s keys: the rows', policy, the watchdog's; pool_keys() adds
// a [pool.<scheme>] table per registered scheme.
const std::vector<std::string_view> &pool_value_keys()
{
  static const std::vector<std::string_view> keys =
      table_keys(false, {"policy", kWdActionKey, kWdTimeKeys[kWdDetect], kWdTimeKeys[kWdRestore],
                         kWdTimeKeys[kWdPoll], kWdTimeKeys[kWdAlarm]});
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
const std::vector<std::string_view> &port_keys()
{
  // The modes' keys are their descriptor rows' (mode_policy.h).
  static const std::vector<std::string> mode_keys = lossless::policy::mode_keys();
  static const std::vector<std::string_view> keys = [] {
    // sw-delay is the pool's, and a port's over it (tc's is per port).
    std::vector<std::string_view> k = table_keys(
        true, {"dev", "pool", ll_params[LL_P_SW_DELAY].key, "rate", "cable-length", "mtu",
               "ingress", "default-prio", kWdActionKey, kWdTimeKeys[kWdDetect],
               kWdTimeKeys[kWdRestore], kWdTimeKeys[kWdPoll], kWdTimeKeys[kWdAlarm], "mode"});
    for (const char *q : kQdiscKeys)
      k.push_back(q);
    k.insert(k.end(), mode_keys.begin(), mode_keys.end());
    return k;
  }();
  return keys;
}

std::vector<std::string> old_spellings()
{
  std::vector<std::string> out;
  auto add = [&](std::string_view key) {
    std::string old(key);
    std::replace(old.begin(), old.end(), '-', '_');
    if (old != key && std::find(out.begin(), out.end(), old) == out.end())
      out.push_back(old);
  };
  for (const auto *keys : {&kDaemonKeys, &pool_keys(), &port_keys(), &host_cc_keys(), &portfc_keys()})
    for (auto k : *keys)
      add(k);
  for (const auto *r : lossless::policy::registry())
    for (const auto *sp : r->params)
      if (sp->key)
        add(sp->key);
  for (const char *t : {"[pool.watchdog]", "[port.watchdog]"})
    out.push_back(t);
  for (const std::string &k : watchdog_old_keys())
    out.push_back(k);
  return out;
}

namespace {

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

}  // namespace

// " (did you mean "x"?)" for the closest candidate within distance 2
// (prefix + candidate, for keys of a nested table).
std::string suggest(std::string_view word, const std::vector<std::string_view> &candidates,
                    const std::string &prefix)
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

// An old spelling of a key (before every key was spelled as tc spells the
// option: sw_delay, detection_time_ms): " renamed; write NEW = VALUE", the
// value converted; "" if key is not one.
std::string respelling(std::string_view key, const toml::node &v,
                       const std::vector<std::string_view> &known)
{
  if (key == "watchdog" && std::find(known.begin(), known.end(), kWdActionKey) != known.end())
    return watchdog_respelling(v);
  std::string now(key);
  std::replace(now.begin(), now.end(), '_', '-');
  if (now == key || std::find(known.begin(), known.end(), now) == known.end())
    return {};
  std::string text = render(v);
  if (text.empty()) {
    std::ostringstream os;
    os << toml::toml_formatter{v};
    text = os.str();
  }
  return ": renamed; write " + now + " = " + text;
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

namespace {

std::string format_double(double v)
{
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eEn") == std::string::npos)  // 1 -> 1.0, as TOML
    s += ".0";
  return s;
}

}  // namespace

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

namespace {

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
  if (in(host_cc_keys()))
    return " (it belongs in [host_cc])";
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
               "pfcwd = \"drop\", pfcwd-detect = \"200ms\", ... in a [[pool]] or a [[port]], as "
               "tc's options");
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

  if (const toml::node *h = doc.get("host_cc"))
    ps.host_cc_section(*h, cfg.host_cc);
  // A host has no pool: [host_cc] alone is a configuration.
  if (pool_tables.empty() && port_tables.empty() && !form_error && !doc.get("host_cc"))
    ps.error(0, "the configuration is empty: it needs at least one [[pool]] and one [[port]], "
                "or [host_cc]");

  // Pools, and the names given even when invalid (no cascade of "unknown
  // pool" errors on their ports).
  std::map<std::string, std::uint32_t> pool_lines;  // valid name -> line
  std::set<std::string> pool_names_given;
  std::vector<bool> pool_ok;
  // Each pool's watchdog keys (pfcwd, pfcwd-detect, ...), and whether
  // they are valid: its ports' keys go over them, and are not checked
  // against bad ones (no cascade).
  std::vector<std::optional<WatchdogKeys>> pool_wd(pool_tables.size());
  std::vector<bool> pool_wd_ok(pool_tables.size(), true);
  for (std::size_t i = 0; i < pool_tables.size(); i++) {
    Pool p;
    bool given = false;
    std::string raw;
    std::size_t before = ps.errors.size();
    ps.pool_section(*pool_tables[i], i, p, given, raw);
    std::string wctx = p.name.empty() ? "pool #" + std::to_string(i + 1) : "pool " + quote(p.name);
    std::size_t before_wd = ps.errors.size();
    pool_wd[i] = ps.watchdog_keys(wctx, *pool_tables[i]);
    if (pool_wd[i]) {
      if (pool_wd[i]->ok)
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
    // The port's watchdog: its pool's, with its own keys over it.
    const Pool *wd_pool = pool_given ? cfg.find_pool(p.pool) : nullptr;
    std::size_t wd_at = wd_pool ? static_cast<std::size_t>(wd_pool - cfg.pools.data()) : 0;
    if (auto keys = ps.watchdog_keys(ctx, *port_tables[i])) {
      if (keys->ok && (!wd_pool || pool_wd_ok[wd_at]))
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
    // The mode: an "auto" round trip starts from the port's sw-delay, else the pool's.
    ps.port_mode_check(*port_tables[i], ctx, p, pool_given ? cfg.find_pool(p.pool) : nullptr);
    cfg.ports.push_back(std::move(p));
  }

  for (std::size_t i = 0; i < cfg.pools.size(); i++)
    if (!cfg.pools[i].name.empty() && pool_ok[i])
      scheme_checks(ps, *pool_tables[i], cfg.pools[i], port_tables, cfg);

  if (const toml::node *n = doc.get("portfc"))
    portfc_section(ps, *n, cfg, port_tables);

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
