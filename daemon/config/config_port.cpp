// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: a [[port]] section (its device, pool, rate, cable, MTU,
// headroom, sw-delay over the pool's, the qdisc's own options and the
// ingress classification).
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "config_parser.h"

namespace lossless::config {

namespace {

const std::vector<std::string_view> kIngressModes = {"pcp-dscp", "pcp", "dscp"};

}  // namespace

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
    bad_type(ctx, "cable-length", n, "a length (a string such as \"100m\")");
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
    bad(ctx, "cable-length", n, reason);
    return std::nullopt;
  }
  double ns = std::strtod(num.c_str(), nullptr) * static_cast<double>(kNsPerMeter) + 0.5;
  if (!(ns < static_cast<double>(max_ns) + 1)) {
    bad(ctx, "cable-length", n, reason);
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(ns);
}

namespace {

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

}  // namespace

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
  const toml::node *cd = t.get(ll_params[LL_P_CABLE_DELAY].key), *cl = t.get("cable-length");
  if (cd && cl) {
    const toml::node *later =
        line_of(cd->source()) >= line_of(cl->source()) ? cd : cl;
    error(line_of(later->source()),
          ctx + ": cable-delay and cable-length: give at most one of the two");
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
  if (auto v = param(ctx, t, LL_P_SW_DELAY))
    p.sw_delay_ns = *v;
  if (auto v = param(ctx, t, LL_P_SCHEME_PORT))
    p.scheme_port = static_cast<std::uint8_t>(*v);
  if (auto v = param(ctx, t, LL_P_HEADROOM))
    p.headroom_bytes = static_cast<std::uint32_t>(*v);
  qdisc_options(t, ctx, p);
  if (const toml::node *n = t.get("ingress")) {
    if (auto v = string(ctx, "ingress", *n)) {
      auto it = std::find(kIngressModes.begin(), kIngressModes.end(), *v);
      if (it == kIngressModes.end())
        bad(ctx, "ingress", *n, "must be pcp-dscp, pcp or dscp" + suggest(*v, kIngressModes));
      else
        p.ingress = static_cast<IngressMode>(it - kIngressModes.begin());
    }
  }
  if (const toml::node *n = t.get("default-prio"))
    if (auto v = integer(ctx, "default-prio", *n, 0, kPrios - 1))
      p.default_prio = static_cast<std::uint8_t>(*v);
  port_mode(t, ctx, p);
}

// The qdisc's own options, with tc's ranges (tc-lossless(8)): queues,
// strict (at most queues), quanta (a size per queue), priomap (a queue per
// skb->priority, each below queues), limit (packets per queue), burst and
// catchup (sizes of the shaper).
void Parser::qdisc_options(const toml::table &t, const std::string &ctx, Port &p)
{
  if (const toml::node *n = t.get("queues"))
    if (auto v = integer(ctx, "queues", *n, 1, kQueuesMax))
      p.queues = static_cast<std::uint8_t>(*v);
  if (const toml::node *n = t.get("strict"))
    if (auto v = integer(ctx, "strict", *n, 0, p.queues, "(strict queues, at most queues)"))
      p.strict = static_cast<std::uint8_t>(*v);
  if (const toml::node *n = t.get("quanta")) {
    auto a = n->as_array();
    if (!a || a->empty() || a->size() > p.queues) {
      bad_type(ctx, "quanta", *n,
               "an array of 1 .. queues (" + std::to_string(p.queues) +
                   ") sizes, one per queue from queue 0 (such as [\"9kb\", 1514])");
    } else {
      for (const toml::node &e : *a)
        if (auto v = size(ctx, "quanta", e, 1, LOSSLESS_QUANTUM_MAX_BYTES))
          p.quanta_bytes.push_back(static_cast<std::uint32_t>(*v));
    }
  }
  if (const toml::node *n = t.get("priomap")) {
    auto a = n->as_array();
    if (!a || a->empty() || a->size() > LOSSLESS_PRIOMAP_LEN) {
      bad_type(ctx, "priomap", *n,
               "an array of 1 .. " + std::to_string(LOSSLESS_PRIOMAP_LEN) +
                   " queues, one per skb->priority from 0 (such as [0, 0, 1, 3])");
    } else {
      for (const toml::node &e : *a)
        if (auto v = integer(ctx, "priomap", e, 0, p.queues - 1, "(a queue, below queues)"))
          p.priomap.push_back(static_cast<std::uint8_t>(*v));
    }
  }
  if (const toml::node *n = t.get("limit"))
    if (auto v = integer(ctx, "limit", *n, 1, LOSSLESS_LIMIT_MAX_PKTS, "packets per queue"))
      p.limit_packets = static_cast<std::uint32_t>(*v);
  if (const toml::node *n = t.get("burst"))
    if (auto v = size(ctx, "burst", *n, LOSSLESS_BURST_MIN_BYTES, LOSSLESS_BURST_MAX_BYTES))
      p.burst_bytes = static_cast<std::uint32_t>(*v);
  if (const toml::node *n = t.get("catchup"))
    if (auto v = size(ctx, "catchup", *n, LOSSLESS_BURST_MIN_BYTES, LOSSLESS_BURST_MAX_BYTES))
      p.catchup_bytes = static_cast<std::uint32_t>(*v);
}

// `mode = "NAME"` and the mode's keys: its descriptor's rows, TOML key =
// tc keyword (mode_policy.h). The jitter takes "auto"
// (the default), the round trip "auto" too (port_mode_check() judges it
// with the pool).
void Parser::port_mode(const toml::table &t, const std::string &ctx, Port &p)
{
  namespace pol = lossless::policy;
  const toml::node *mn = t.get("mode");
  std::optional<pol::ModeSetting> m;
  if (mn) {
    if (auto v = string(ctx, "mode", *mn)) {
      int id = ll_mode_by_name(v->c_str());
      if (id < 0) {
        std::vector<std::string_view> names;
        for (std::uint32_t i = 0; i < LL_MODE_COUNT; i++)
          names.push_back(ll_mode_name(i));
        std::string list;
        for (auto n : names)
          list += (list.empty() ? "" : ", ") + std::string(n);
        bad(ctx, "mode", *mn, "must be " + list + suggest(*v, names));
      } else {
        m.emplace();
        m->mode = static_cast<std::uint32_t>(id);
        m->jitter_auto = pol::mode_jitter_word(m->mode) >= 0;
      }
    }
  }
  for (const std::string &key : pol::mode_keys()) {
    const toml::node *n = t.get(key);
    if (!n)
      continue;
    const ll_param *orig = m ? pol::mode_row(m->mode, key) : nullptr;
    if (!orig) {
      if (!mn || m)
        error(line_of(n->source()),
              ctx + ": " + key + " is a key of another mode than " +
                  (m ? quote(ll_mode_name(m->mode)) : std::string("the port's (it has no mode key)")));
      continue;
    }
    ll_param row = *orig;
    row.key = key.c_str();  // the messages name the TOML key
    bool takes_auto = false;
    if (orig->word == pol::mode_jitter_word(m->mode)) {
      auto s = n->as_string();
      if (s && s->get() == "auto")
        continue;
      m->jitter_auto = false;
      takes_auto = true;
    }
    if (orig->word == pol::mode_rtt_word(m->mode)) {
      auto s = n->as_string();
      if (s && s->get() == "auto") {
        m->rtt_auto = true;
        continue;
      }
      takes_auto = true;
    }
    std::size_t errs = errors.size();
    if (auto x = param(ctx, row, *n))
      m->params[orig->word] = *x;
    else if (takes_auto && (n->is_string() || n->is_integer()) && errors.size() == errs + 1)
      errors.back().message += ", or \"auto\"";  // the range is not all the key takes
  }
  if (!m)
    return;
  const ll_mode_desc *d = ll_mode_lookup(m->mode);
  // Missing only when not given at all (a bad value is said at its line).
  if (d && d->n_params && !t.get(pol::mode_key(d->params[0])))
    missing(ctx, line_of(t.source()), pol::mode_key(d->params[0]),
            " (mode " + quote(ll_mode_name(m->mode)) + " needs it: " + d->params[0].help + ")");
  p.mode = m;
}

// The port's mode against its pool (nullptr: none found, said already).
// An "auto" round trip needs a start, 2 x (cable delay + the port's
// sw-delay). With the rate given, the core's ll_mode_check() judges the
// parameters now (an "auto" D at its start), at the key its message names.
void Parser::port_mode_check(const toml::table &t, const std::string &ctx, const Port &p,
                             const Pool *pool)
{
  namespace pol = lossless::policy;
  if (!p.mode || !p.mode->mode)
    return;
  const pol::ModeSetting &m = *p.mode;
  const ll_mode_desc *d = ll_mode_lookup(m.mode);
  int rw = pol::mode_rtt_word(m.mode);
  std::uint64_t rtt = 0;
  if (m.rtt_auto && rw >= 0) {
    if (!pool)
      return;
    rtt = pol::auto_rtt_start_ns(p.cable_delay_ns, p.sw_delay_ns.value_or(pool->sw_delay_ns));
    if (!rtt) {
      for (std::uint32_t i = 0; d && i < d->n_params; i++)
        if (d->params[i].word == rw) {
          std::string key = pol::mode_key(d->params[i]);
          bad(ctx, key, *t.get(key), pol::kAutoRttNoStart);
        }
      return;
    }
  } else if (d && d->n_params && !m.params[0]) {
    return;  // missing, said
  }
  if (!p.rate_bps)
    return;
  // The device's MTU is known at run time only: 1500 until then.
  std::uint32_t frame = p.mtu_bytes.value_or(1500) + 14 + 4;
  std::string why = pol::mode_check(m, *p.rate_bps, frame,
                                    pol::auto_jitter_ns(pol::mode_slot_ns(m, rtt), 0), rtt);
  if (why.empty())
    return;
  // At the key the core's message begins with, else at mode.
  const toml::node *at = t.get("mode");
  std::string key = "mode";
  for (std::uint32_t i = 0; d && i < d->n_params; i++) {
    std::string tc = d->params[i].tc;
    std::string k = pol::mode_key(d->params[i]);
    if (why.compare(0, tc.size(), tc) == 0)
      if (const toml::node *n = t.get(k))
        at = n, key = k;
  }
  bad(ctx, key, *at, why);
}

}  // namespace lossless::config
