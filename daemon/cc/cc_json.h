// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_cc's values as JSON (nlohmann/json, header-only): the configuration,
// the counters and the top-N flow views, in one layout for `lossless-cc
// show --json` and losslessd's status ("host_cc"). The includer links
// nlohmann_json.
#pragma once

#include <arpa/inet.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cc.h"

namespace lossless::cc {

// (name, value) of every counter of ll_cc_stats, in the struct's order;
// the CNP parse errors separately (parse_errors()).
inline std::vector<std::pair<const char *, std::uint64_t>> counters(const Stats &s)
{
  return {
      {"np_pkts", s.np_pkts},
      {"np_ce_pkts", s.np_ce_pkts},
      {"np_not_ect_pkts", s.np_not_ect_pkts},
      {"cnps_sent", s.cnps_sent},
      {"cnp_clone_failed", s.cnp_clone_failed},
      {"cnp_build_failed", s.cnp_build_failed},
      {"cnps_received", s.cnps_received},
      {"cnp_unknown_flow", s.cnp_unknown_flow},
      {"cnp_stale", s.cnp_stale},
      {"cnp_ecn_mismatch", s.cnp_ecn_mismatch},
      {"rp_pkts", s.rp_pkts},
      {"rp_delayed_pkts", s.rp_delayed_pkts},
      {"rp_refused_pkts", s.rp_refused_pkts},
      {"flow_alloc_failed", s.flow_alloc_failed},
      {"not_ipv4", s.not_ipv4},
      {"truncated", s.truncated},
  };
}

// (reason, count) of the CNPs refused by the parser (malformed), by
// ll_cnp_result_name().
inline std::vector<std::pair<const char *, std::uint64_t>> parse_errors(const Stats &s)
{
  std::vector<std::pair<const char *, std::uint64_t>> v;
  for (unsigned r = 1; r < LL_CNP_RESULT_COUNT; r++)
    v.emplace_back(ll_cnp_result_name(static_cast<ll_cnp_result>(r)), s.cnp_parse_error[r]);
  return v;
}

inline double ce_fraction(const FlowSummary &f)
{
  return f.pkts ? double(f.ce_pkts) / double(f.pkts) : 0.0;
}

inline nlohmann::ordered_json flow_json(const FlowSummary &f, bool np)
{
  nlohmann::ordered_json j;
  char s[INET_ADDRSTRLEN], d[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &f.key.saddr, s, sizeof(s));
  inet_ntop(AF_INET, &f.key.daddr, d, sizeof(d));
  j["flow"] = flow_text(f.key);
  j["saddr"] = s;
  j["sport"] = ntohs(f.key.sport);
  j["daddr"] = d;
  j["dport"] = ntohs(f.key.dport);
  j["rate_mbps"] = double(f.rate_kbps) / 1000.0;
  j["bytes"] = f.bytes;
  j["pkts"] = f.pkts;
  if (np) {
    j["ce_pkts"] = f.ce_pkts;
    j["ce_fraction"] = ce_fraction(f);
  }
  j["cnps"] = f.cnps;
  j["last_ns"] = f.last_ns;
  return j;
}

inline nlohmann::ordered_json top_json(const TopView &v, bool np)
{
  nlohmann::ordered_json j;
  j["total"] = v.total_flows;
  j["top"] = nlohmann::ordered_json::array();
  for (const auto &f : v.top)
    j["top"].push_back(flow_json(f, np));
  nlohmann::ordered_json rest;
  rest["flows"] = v.rest.flows;
  rest["rate_mbps"] = double(v.rest.rate_kbps) / 1000.0;
  rest["bytes"] = v.rest.bytes;
  rest["pkts"] = v.rest.pkts;
  if (np) {
    rest["ce_pkts"] = v.rest.ce_pkts;
    rest["ce_fraction"] = ce_fraction(v.rest);
  }
  rest["cnps"] = v.rest.cnps;
  j["rest"] = rest;
  return j;
}

inline nlohmann::ordered_json config_json(const Config &c)
{
  nlohmann::ordered_json j;
  j["algo"] = std::string(algo_name(c.algo));
  j["roles"] = roles_text(c.roles);
  j["cnp_prio"] = c.cnp_prio;
  j["cnp_dscp"] = c.cnp_dscp;
  j["line_rate_kbps"] = c.line_rate_kbps();
  j["rp_horizon_ns"] = c.rp_horizon_ns;
  nlohmann::ordered_json p;
  p["period_ns"] = c.pcn.period_ns;
  p["line_rate_kbps"] = c.pcn.line_rate_kbps;
  p["min_rate_kbps"] = c.pcn.min_rate_kbps;
  p["rp_idle_ns"] = c.pcn.rp_idle_ns;
  p["np_idle_ns"] = c.pcn.np_idle_ns;
  p["theta_pct"] = c.pcn.theta_pct;
  p["w_min_q24"] = c.pcn.w_min_q24;
  p["w_max_q24"] = c.pcn.w_max_q24;
  j["pcn"] = p;
  nlohmann::ordered_json d;
  d["line_rate_kbps"] = c.dcqcn.line_rate_kbps;
  d["min_rate_kbps"] = c.dcqcn.min_rate_kbps;
  d["cnp_interval_ns"] = c.dcqcn.cnp_interval_ns;
  d["rate_timer_ns"] = c.dcqcn.rate_timer_ns;
  d["alpha_timer_ns"] = c.dcqcn.alpha_timer_ns;
  d["byte_counter_bytes"] = c.dcqcn.byte_counter_bytes;
  d["rai_kbps"] = c.dcqcn.rai_kbps;
  d["rhai_kbps"] = c.dcqcn.rhai_kbps;
  d["g_q24"] = c.dcqcn.g_q24;
  d["f_stages"] = c.dcqcn.f_stages;
  j["dcqcn"] = d;
  return j;
}

// The counters as show --json has them: each by name, and
// "cnp_parse_error" by reason.
inline nlohmann::ordered_json counters_json(const Stats &s)
{
  nlohmann::ordered_json cj;
  for (const auto &[name, v] : counters(s))
    cj[name] = v;
  nlohmann::ordered_json ej = nlohmann::ordered_json::object();
  for (const auto &[name, v] : parse_errors(s))
    ej[name] = v;
  cj["cnp_parse_error"] = ej;
  return cj;
}

}  // namespace lossless::cc
