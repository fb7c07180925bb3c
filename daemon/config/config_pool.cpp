// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: a [[pool]] section: its keys, its ecn table, its scheme's
// [pool.<scheme>] table, and the scheme's checks against its ports.
#include <algorithm>
#include <cctype>

#include "config_parser.h"
#include "policy.h"
#include "registry.h"

extern "C" {
#include "headroom.h"
#include "shaper.h"
}

namespace lossless::config {

namespace {

const std::vector<std::string_view> kEcnKeys = {"kmin", "kmax", "pmax"};

}  // namespace

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
  if (auto v = param(ctx, t, LL_P_ECN_MODE)) {
    const char *key = ll_params[LL_P_ECN_MODE].key;
    if (*v == LOSSLESS_ECN_MODE_NP_ECN && p.ecn)
      bad(ctx, key, *t.get(key), "np-ecn marks without RED: leave out the ecn table");
    else
      p.ecn_mode = static_cast<std::uint8_t>(*v);
  }
  if (auto v = param(ctx, t, LL_P_NP_ECN_K)) {
    const ll_param &r = ll_params[LL_P_NP_ECN_K];
    if (!buffer_ok || within_buffer(ctx, *t.get(r.key), r, *v, p.buffer_bytes))
      p.np_ecn_k_bytes = static_cast<std::uint32_t>(*v);
  }
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
  }
}

// The scheme's part of the configuration (its Registration's configure:
// defaults that depend on the ports, keys that do not go together), then
// its checks against the pool's ports (registry.h's check_scheme()), each
// at the line of the key it is about. Ports' headroom is the given one, or
// the formula's when the rate is given, with the qdisc's default shaper
// catch-up (term 9; core/shaper.h), as the kernel computes it; round trips
// are 2 x (cable delay + the port's sw-delay, else the pool's).
void scheme_checks(Parser &ps, const toml::table &pool_table, Pool &pool,
                   const std::vector<const toml::table *> &port_tables, const Config &cfg)
{
  const auto *reg =
      lossless::policy::by_scheme_id(static_cast<std::uint8_t>(pool.scheme_block.id));
  if (!reg || (!reg->check && !reg->configure))
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
    const std::uint64_t sw_ns = p.sw_delay_ns.value_or(pool.sw_delay_ns);
    sp.rtt_ns = 2 * (p.cable_delay_ns + sw_ns);
    sp.frame_bytes = f;
    sp.headroom_bytes = p.headroom_bytes;
    if (!sp.headroom_bytes && p.rate_bps) {
      ll_headroom_params h{};
      h.rate_bps = *p.rate_bps;
      h.cable_delay_ns = p.cable_delay_ns;
      h.sw_response_ns = sw_ns;
      h.mtu_bytes = f;
      // The device's frame is the pool's less its VLAN tag.
      h.shaper_burst_bytes = ll_shaper_default_catchup_bytes(
          h.rate_bps, h.sw_response_ns, ll_shaper_default_burst_bytes(h.rate_bps, f - 4));
      sp.headroom_bytes = ll_headroom_bytes(&h);
    }
    ports.push_back(sp);
    index.push_back(i);
  }
  const std::string scheme = pool.scheme;
  const toml::node *stab_node = pool_table.get(scheme);
  const toml::table *stab = stab_node ? stab_node->as_table() : nullptr;
  std::vector<lossless::policy::SchemeIssue> issues;
  if (reg->configure) {
    lossless::policy::SchemeConfig sc;
    sc.given = [stab](const char *key) { return stab && stab->get(key); };
    for (const auto &sp : ports)
      sc.max_rtt_ns = std::max(sc.max_rtt_ns, sp.rtt_ns);
    sc.block = &pool.scheme_block;
    reg->configure(sc);
    issues = std::move(sc.issues);
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
  for (auto &issue : lossless::policy::check_scheme(s, ports))
    issues.push_back(std::move(issue));
  for (const auto &issue : issues) {
    std::uint32_t line = pool.line;
    if (issue.port >= 0 && !issue.param) {
      const Port &port = cfg.ports[index[issue.port]];
      const toml::table &pt = *port_tables[index[issue.port]];
      const toml::node *h = pt.get(ll_params[LL_P_HEADROOM].key);
      line = h ? Parser::line_of(h->source()) : port.line;
    } else if (issue.param) {
      const ll_param &r = *issue.param;
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

}  // namespace lossless::config
