// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "cc_params.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <tuple>

#include "ll_units.h"

namespace lossless::cc {

namespace {

bool same(const ll_pcn_params &a, const ll_pcn_params &b)
{
  return std::tie(a.period_ns, a.line_rate_kbps, a.min_rate_kbps,
                  a.rp_idle_ns, a.np_idle_ns, a.theta_pct, a.w_min_q24,
                  a.w_max_q24) ==
         std::tie(b.period_ns, b.line_rate_kbps, b.min_rate_kbps,
                  b.rp_idle_ns, b.np_idle_ns, b.theta_pct, b.w_min_q24,
                  b.w_max_q24);
}

bool same(const ll_dcqcn_params &a, const ll_dcqcn_params &b)
{
  return std::tie(a.line_rate_kbps, a.min_rate_kbps, a.cnp_interval_ns,
                  a.rate_timer_ns, a.alpha_timer_ns, a.byte_counter_bytes,
                  a.rai_kbps, a.rhai_kbps, a.g_q24, a.f_stages) ==
         std::tie(b.line_rate_kbps, b.min_rate_kbps, b.cnp_interval_ns,
                  b.rate_timer_ns, b.alpha_timer_ns, b.byte_counter_bytes,
                  b.rai_kbps, b.rhai_kbps, b.g_q24, b.f_stages);
}

}  // namespace

// ---------------------------------------------------------------- names

std::string_view algo_name(Algo a)
{
  switch (a) {
  case Algo::Off:
    return "off";
  case Algo::Pcn:
    return "pcn";
  case Algo::Dcqcn:
    return "dcqcn";
  }
  return "off";  // unknown values: the programs pass everything
}

std::optional<Algo> parse_algo(std::string_view name)
{
  for (Algo a : {Algo::Off, Algo::Pcn, Algo::Dcqcn})
    if (name == algo_name(a))
      return a;
  return std::nullopt;
}

std::string roles_text(std::uint8_t roles)
{
  std::string s;
  if (roles & LL_CC_ROLE_NP)
    s = "np";
  if (roles & LL_CC_ROLE_RP)
    s += s.empty() ? "rp" : ",rp";
  return s.empty() ? "none" : s;
}

std::optional<std::uint8_t> parse_roles(std::string_view text)
{
  if (text == "both")
    return kRolesBoth;
  std::uint8_t roles = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string_view item = text.substr(
        pos, comma == std::string_view::npos ? std::string_view::npos
                                             : comma - pos);
    std::uint8_t bit = item == "np" ? LL_CC_ROLE_NP
                       : item == "rp" ? LL_CC_ROLE_RP
                                      : 0;
    if (!bit || (roles & bit))
      return std::nullopt;
    roles |= bit;
    if (comma == std::string_view::npos)
      break;
    pos = comma + 1;
  }
  return roles;
}

// ---------------------------------------------------------------- Config

Config Config::defaults(Algo algo, std::uint64_t line_rate_kbps)
{
  Config c;
  c.algo = algo;
  ll_pcn_params_default(&c.pcn, line_rate_kbps);
  ll_dcqcn_params_default(&c.dcqcn, line_rate_kbps);
  c.rp_horizon_ns = c.default_horizon_ns();
  return c;
}

std::uint64_t Config::default_horizon_ns() const
{
  switch (algo) {
  case Algo::Pcn:
    return kHorizonPeriods * pcn.period_ns;
  case Algo::Dcqcn:
    return kHorizonPeriods * dcqcn.rate_timer_ns;
  default:
    return 0;
  }
}

std::uint64_t Config::line_rate_kbps() const
{
  switch (algo) {
  case Algo::Pcn:
    return pcn.line_rate_kbps;
  case Algo::Dcqcn:
    return dcqcn.line_rate_kbps;
  default:
    return 0;
  }
}

bool Config::operator==(const Config &o) const
{
  return algo == o.algo && roles == o.roles && cnp_prio == o.cnp_prio &&
         cnp_dscp == o.cnp_dscp && same(pcn, o.pcn) && same(dcqcn, o.dcqcn) &&
         rp_horizon_ns == o.rp_horizon_ns;
}

std::string check(const Config &cfg)
{
  if (cfg.algo == Algo::Off)
    return "";  // the programs read nothing else (all zero is valid)
  if (cfg.algo != Algo::Pcn && cfg.algo != Algo::Dcqcn)
    return "algo must be off, pcn or dcqcn";
  if (!cfg.roles || (cfg.roles & ~kRolesBoth))
    return "roles must be np, rp or np,rp";
  if (cfg.cnp_prio > 7)
    return "cnp-prio must be 0 .. 7";
  if (cfg.cnp_dscp > 63)
    return "cnp-dscp must be 0 .. 63";
  const char *msg = nullptr;
  if (cfg.algo == Algo::Pcn)
    msg = ll_pcn_check(&cfg.pcn);
  else if (cfg.algo == Algo::Dcqcn)
    msg = ll_dcqcn_check(&cfg.dcqcn);
  return msg ? msg : "";
}

// ---------------------------------------------------------------- values
//
// Each parser returns "" or why the value is refused (lossless-cc prefixes
// "--NAME 'VALUE': ", losslessd "[host_cc]: NAME "VALUE": ").

namespace {

std::string parse_uint(const std::string &s, std::uint64_t max, std::uint64_t &v)
{
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos ||
      s.size() > 18)
    return "not a whole number";
  v = std::stoull(s);
  if (v > max)
    return "must be 0 .. " + std::to_string(max);
  return "";
}

std::string parse_size(const std::string &s, std::uint64_t &bytes)
{
  if (ll_units_size(s.c_str(), &bytes))
    return std::string("not a size (") + LL_UNITS_SIZE_UNITS +
           ": " LL_UNITS_SIZE_EXAMPLES ")";
  return "";
}

// A fraction 0 < F <= 1, exactly: NUM/DEN or a decimal, rounded to the
// nearest 1/2^24 (the Q24 of the core).
std::string parse_q24(const std::string &s, std::uint32_t &out)
{
  unsigned __int128 num = 0, den = 1;
  auto digits = [](const std::string &t) {
    return !t.empty() && t.size() <= 18 &&
           t.find_first_not_of("0123456789") == std::string::npos;
  };
  const std::string form = "not a fraction (NUM/DEN as 1/128, or a decimal "
                           "as 0.0078125)";
  if (auto slash = s.find('/'); slash != std::string::npos) {
    std::string n = s.substr(0, slash), d = s.substr(slash + 1);
    if (!digits(n) || !digits(d))
      return form;
    num = std::stoull(n);
    den = std::stoull(d);
    if (!den)
      return "a denominator of 0";
  } else {
    auto dot = s.find('.');
    std::string ip = s.substr(0, dot);
    std::string fp = dot == std::string::npos ? "" : s.substr(dot + 1);
    if ((ip.empty() && fp.empty()) || (!ip.empty() && !digits(ip)) ||
        (!fp.empty() && !digits(fp)) || (dot != std::string::npos && fp.empty() && ip.empty()))
      return form;
    num = ip.empty() ? 0 : std::stoull(ip);
    for (char c : fp) {
      num = num * 10 + unsigned(c - '0');
      den *= 10;
    }
  }
  if (num == 0)
    return "must be above 0";
  if (num > den)
    return "must be at most 1";
  unsigned __int128 q = ((num << 24) + den / 2) / den;
  if (q == 0)
    return "below 1/2^24, the resolution (0 after rounding)";
  out = static_cast<std::uint32_t>(q);
  return "";
}

std::string parse_pct(const std::string &s, std::uint32_t &out)
{
  std::string t = s;
  if (!t.empty() && t.back() == '%')
    t.pop_back();
  if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos ||
      t.size() > 9)
    return "not a whole percentage (95 or 95%)";
  out = static_cast<std::uint32_t>(std::stoul(t));
  return "";
}

const std::vector<ParamSpec> kParams = {
    {"roles", kParamAny},
    {"cnp-prio", kParamAny},
    {"cnp-dscp", kParamAny},
    {"min-rate", kParamPcn | kParamDcqcn},
    {"horizon", kParamPcn | kParamDcqcn},
    {"period", kParamPcn},
    {"theta", kParamPcn},
    {"w-min", kParamPcn},
    {"w-max", kParamPcn},
    {"rp-idle", kParamPcn},
    {"np-idle", kParamPcn},
    {"cnp-interval", kParamDcqcn},
    {"rate-timer", kParamDcqcn},
    {"alpha-timer", kParamDcqcn},
    {"byte-counter", kParamDcqcn},
    {"g", kParamDcqcn},
    {"f", kParamDcqcn},
    {"rai", kParamDcqcn},
    {"rhai", kParamDcqcn},
};

}  // namespace

std::string parse_rate_kbps(const std::string &s, std::uint64_t &kbps)
{
  std::uint64_t bps = 0;
  const char *unit = nullptr;
  // Above the core's bound (1.6 Tbit/s), so that its check words that.
  switch (ll_units_rate(s.c_str(), 0, 1ULL << 60, &bps, &unit)) {
  case LL_UNITS_RATE_OK:
    break;
  case LL_UNITS_RATE_AMBIGUOUS: {
    std::string u = unit ? unit : "";
    std::string stem = u.size() >= 3 ? u.substr(0, u.size() - 3) : u;
    return "\"" + u + "\" is ambiguous: write " + stem +
           "bit for bits/s or " + stem + "Bps for bytes/s";
  }
  case LL_UNITS_RATE_UNIT:
    return std::string("unknown unit \"") + (unit ? unit : "") +
           "\" (use " LL_UNITS_RATE_UNITS ")";
  default:
    return "not a rate (a number with a unit bit, kbit, mbit, gbit, tbit: "
           "25gbit)";
  }
  if (bps % 1000)
    return "must be a whole number of kbit/s";
  kbps = bps / 1000;
  return "";
}

std::string parse_time_ns(const std::string &s, bool zero_ok, std::uint64_t &ns)
{
  if (zero_ok && s == "0") {
    ns = 0;
    return "";
  }
  // Up to an hour: the core's checks word the real bounds.
  if (ll_units_time(s.c_str(), 3600ULL * 1000000000ULL, &ns))
    return std::string("not a time up to 1 hour with ") + LL_UNITS_TIME_UNITS +
           " (" LL_UNITS_TIME_EXAMPLES ")" + (zero_ok ? ", or 0" : "");
  return "";
}

const std::vector<ParamSpec> &params()
{
  return kParams;
}

const ParamSpec *find_param(std::string_view name)
{
  for (const ParamSpec &p : kParams)
    if (name == p.name)
      return &p;
  return nullptr;
}

std::string parse_param(std::string_view name, const std::string &v, Overrides &o,
                        std::uint64_t *line_rate_kbps)
{
  std::string err;
  std::uint64_t u = 0;
  std::uint32_t q = 0;
  auto time = [&](std::optional<std::uint64_t> &dst) {
    err = parse_time_ns(v, true, u);
    if (err.empty())
      dst = u;
  };
  auto rate = [&](std::optional<std::uint64_t> &dst) {
    err = parse_rate_kbps(v, u);
    if (err.empty())
      dst = u;
  };
  auto q24 = [&](std::optional<std::uint32_t> &dst) {
    err = parse_q24(v, q);
    if (err.empty())
      dst = q;
  };
  if (name == "line-rate") {
    err = parse_rate_kbps(v, u);
    if (err.empty() && line_rate_kbps)
      *line_rate_kbps = u;
  } else if (name == "roles") {
    auto r = parse_roles(v);
    if (!r)
      return "must be np, rp or np,rp";
    o.roles = *r;
  } else if (name == "cnp-prio" || name == "cnp-dscp") {
    bool prio = name == "cnp-prio";
    err = parse_uint(v, prio ? 7 : 63, u);
    if (err.empty())
      (prio ? o.cnp_prio : o.cnp_dscp) = static_cast<std::uint8_t>(u);
  } else if (name == "min-rate") {
    rate(o.min_rate_kbps);
  } else if (name == "horizon") {
    time(o.horizon_ns);
  } else if (name == "period") {
    time(o.period_ns);
  } else if (name == "theta") {
    err = parse_pct(v, q);
    if (err.empty())
      o.theta_pct = q;
  } else if (name == "w-min") {
    q24(o.w_min_q24);
  } else if (name == "w-max") {
    q24(o.w_max_q24);
  } else if (name == "rp-idle") {
    time(o.rp_idle_ns);
  } else if (name == "np-idle") {
    time(o.np_idle_ns);
  } else if (name == "cnp-interval") {
    time(o.cnp_interval_ns);
  } else if (name == "rate-timer") {
    time(o.rate_timer_ns);
  } else if (name == "alpha-timer") {
    time(o.alpha_timer_ns);
  } else if (name == "byte-counter") {
    err = parse_size(v, u);
    if (err.empty())
      o.byte_counter_bytes = u;
  } else if (name == "g") {
    q24(o.g_q24);
  } else if (name == "f") {
    err = parse_uint(v, 0xffffffffULL, u);
    if (err.empty())
      o.f_stages = static_cast<std::uint32_t>(u);
  } else if (name == "rai") {
    rate(o.rai_kbps);
  } else if (name == "rhai") {
    rate(o.rhai_kbps);
  } else {
    return "not a congestion control parameter";
  }
  return err;
}

void apply(Config &cfg, const Overrides &o)
{
  auto put = [](auto &dst, const auto &src) {
    if (src)
      dst = *src;
  };
  put(cfg.roles, o.roles);
  put(cfg.cnp_prio, o.cnp_prio);
  put(cfg.cnp_dscp, o.cnp_dscp);
  put(cfg.pcn.min_rate_kbps, o.min_rate_kbps);
  put(cfg.dcqcn.min_rate_kbps, o.min_rate_kbps);
  put(cfg.pcn.period_ns, o.period_ns);
  put(cfg.pcn.theta_pct, o.theta_pct);
  put(cfg.pcn.w_min_q24, o.w_min_q24);
  put(cfg.pcn.w_max_q24, o.w_max_q24);
  put(cfg.pcn.rp_idle_ns, o.rp_idle_ns);
  put(cfg.pcn.np_idle_ns, o.np_idle_ns);
  put(cfg.dcqcn.cnp_interval_ns, o.cnp_interval_ns);
  put(cfg.dcqcn.rate_timer_ns, o.rate_timer_ns);
  put(cfg.dcqcn.alpha_timer_ns, o.alpha_timer_ns);
  put(cfg.dcqcn.byte_counter_bytes, o.byte_counter_bytes);
  put(cfg.dcqcn.g_q24, o.g_q24);
  put(cfg.dcqcn.f_stages, o.f_stages);
  put(cfg.dcqcn.rai_kbps, o.rai_kbps);
  put(cfg.dcqcn.rhai_kbps, o.rhai_kbps);
  // The idle times' default (1 ms) is about 20 T at the default T: with a
  // longer period they default to 20 T, so that they stay above T.
  if (o.period_ns) {
    std::uint64_t scaled =
        std::max<std::uint64_t>(LL_PCN_IDLE_NS_DEFAULT, 20 * cfg.pcn.period_ns);
    if (!o.np_idle_ns)
      cfg.pcn.np_idle_ns = scaled;
    if (!o.rp_idle_ns)
      cfg.pcn.rp_idle_ns = scaled;
  }
  // The horizon follows the control period unless given.
  cfg.rp_horizon_ns = o.horizon_ns ? *o.horizon_ns : cfg.default_horizon_ns();
}

Config derive(Algo algo, std::uint64_t line_rate_kbps, const Overrides &o)
{
  Config c = Config::defaults(algo, line_rate_kbps);
  apply(c, o);
  return c;
}

std::vector<std::string> check_names(const std::string &msg)
{
  std::vector<std::string> names;
  std::string word;
  auto flush = [&] {
    std::string w = word;
    word.clear();
    for (const char *prefix : {"pcn-", "dcqcn-"})
      if (w.rfind(prefix, 0) == 0)
        w = w.substr(std::strlen(prefix));
    if (!w.empty() && (find_param(w) || w == "line-rate") &&
        std::find(names.begin(), names.end(), w) == names.end())
      names.push_back(w);
  };
  for (char c : msg) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-')
      word += c;
    else
      flush();
  }
  flush();
  return names;
}

// ---------------------------------------------------------------- texts

std::string rate_text(std::uint64_t kbps)
{
  if (kbps && kbps % 1000000 == 0)
    return std::to_string(kbps / 1000000) + "gbit";
  if (kbps && kbps % 1000 == 0)
    return std::to_string(kbps / 1000) + "mbit";
  return std::to_string(kbps) + "kbit";
}

std::string time_text(std::uint64_t ns)
{
  char buf[32];
  ll_units_time_text(ns, buf, sizeof(buf));
  return buf;
}

std::string q24_text(std::uint32_t q)
{
  if (q && LL_PCN_Q24_ONE % q == 0)
    return "1/" + std::to_string(LL_PCN_Q24_ONE / q);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", double(q) / LL_PCN_Q24_ONE);
  return buf;
}

}  // namespace lossless::cc
