// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "pfc_dt.h"

#include <algorithm>
#include <cstdlib>

extern "C" {
#include "headroom.h"
#include "ll_units.h"
}
#include <cstring>

#include "ll_plane_map.h"

namespace lossless::policy {
namespace {

constexpr std::uint64_t kMaxDelayNs = 1000000000ULL;  // the datapath's limit

bool same(const plane::Params &a, const plane::Params &b)
{
  auto key = [](const plane::Params &p) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> h;
    for (const auto &e : p.headroom)
      h.emplace_back(e.ifindex, e.headroom_bytes);
    std::sort(h.begin(), h.end());
    return std::make_tuple(p.alpha, p.egress_alpha, p.xon_offset_bytes, p.reserved_bytes,
                           p.interval_us, h);
  };
  if (a.scheme.has_value() != b.scheme.has_value() ||
      (a.scheme && std::memcmp(&*a.scheme, &*b.scheme, sizeof(*a.scheme))))
    return false;
  return key(a) == key(b);
}

std::unique_ptr<Policy> make_pfc_dt(const Registration &self, const PoolSettings &pool)
{
  return std::make_unique<PfcDt>(self, pool);
}

std::optional<std::uint64_t> parse_bytes(const std::string &v)
{
  char *end = nullptr;
  if (v.empty() || v[0] == '-')
    return std::nullopt;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (*end || x > UINT32_MAX)
    return std::nullopt;
  return x;
}

}  // namespace

const Registration kPfcDtRegistration = {
    "pfc-dt", "dt", LOSSLESS_SCHEME_DT, 0, {},
    "PFC + Dynamic Threshold + static headroom (docs/MMU.md)", make_pfc_dt};

const Registration kStRegistration = {
    "st",
    "st",
    LOSSLESS_SCHEME_ST,
    TCA_LOSSLESS_SCHEME_ST,
    {{"threshold", "st-threshold", Unit::Bytes, 0, 0, true, 0,
      "shared bytes at which a lossless (port, priority) pauses; 0: shared buffer / ports", 0,
      TCA_LOSSLESS_ST_THRESHOLD_BYTES}},
    "PFC + a static threshold per ingress (docs/SCHEMES.md)",
    make_pfc_dt};

PfcDt::PfcDt(const Registration &reg, const PoolSettings &pool) : reg_(reg), cfg_(pool)
{
  cfg_.scheme.id = reg.scheme_id;  // the policy's scheme, whatever was given
}

std::uint64_t PfcDt::headroom_bytes(const PortLink &port, std::uint64_t sw_ns)
{
  ll_headroom_params p{};
  p.rate_bps = port.rate_bps;
  p.cable_delay_ns = port.cable_delay_ns;
  p.sw_response_ns = std::min(sw_ns, kMaxDelayNs);
  p.mtu_bytes = port.mtu_bytes;
  p.shaper_burst_bytes = port.catchup_bytes;  // (9)
  return ll_headroom_bytes(&p);
}

std::uint64_t PfcDt::measured_sw_delay_ns(const PortLink &port, std::uint64_t peak_bytes)
{
  std::uint64_t fixed = headroom_bytes(port, 0);
  if (!fixed || peak_bytes <= fixed || !port.rate_bps)
    return 0;
  // (peak - fixed) bytes at rate_bps, rounded up, + 25 % margin.
  unsigned __int128 ns = (unsigned __int128)(peak_bytes - fixed) * 8 * 1000000000ULL;
  ns = (ns + port.rate_bps - 1) / port.rate_bps;
  ns += ns / 4;
  return ns > kMaxDelayNs ? kMaxDelayNs : (std::uint64_t)ns;
}

std::uint64_t PfcDt::sw_delay_ns(std::uint32_t ifindex) const
{
  auto it = measured_ns_.find(ifindex);
  std::uint64_t m = it == measured_ns_.end() ? 0 : it->second;
  return std::max(cfg_.sw_delay_ns, m);
}

std::optional<plane::Params> PfcDt::decide(const Inputs &in)
{
  bool measured_changed = false;
  if (in.telemetry) {
    const auto &t = *in.telemetry;
    for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
      const auto &tp = t.ports[i];
      auto link = std::find_if(in.ports.begin(), in.ports.end(),
                               [&](const PortLink &l) { return l.ifindex == tp.ifindex; });
      // Without the port's catch-up the fixed terms are unknown: a peak
      // would pass for software delay, kept for good.
      if (!tp.ifindex || link == in.ports.end() || !link->catchup_bytes)
        continue;
      std::uint64_t peak = 0;
      for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++)
        if (cfg_.lossless_mask & (1u << q))
          peak = std::max<std::uint64_t>(peak, tp.iq[q].peak_headroom);
      std::uint64_t m = measured_sw_delay_ns(*link, peak);
      auto &slot = measured_ns_[tp.ifindex];
      if (m > slot) {
        slot = m;
        measured_changed = true;
      }
    }
  }
  if (last_ && !dirty_ && !measured_changed && in.ports == last_ports_)
    return std::nullopt;
  last_ports_ = in.ports;
  dirty_ = false;
  plane::Params p;
  p.alpha = cfg_.alpha;
  p.egress_alpha = cfg_.egress_alpha;
  p.reserved_bytes = cfg_.reserved_bytes;
  p.xon_offset_bytes = cfg_.xon_offset_bytes;
  p.scheme = cfg_.scheme;
  for (const auto &port : in.ports) {
    if (!port.ifindex || !port.up || !port.rate_bps)
      continue;  // a port down keeps what it has
    if (!port.headroom_bytes && !port.catchup_bytes)
      continue;  // so does one whose catch-up (term 9) is not known yet
    std::uint64_t h = port.headroom_bytes ? port.headroom_bytes
                                          : headroom_bytes(port, sw_delay_ns(port.ifindex));
    if (!h || h > UINT32_MAX || p.headroom.size() >= LOSSLESS_PLANE_PORTS)
      continue;
    p.headroom.push_back({port.ifindex, static_cast<std::uint32_t>(h)});
  }
  if (last_ && same(*last_, p))
    return std::nullopt;
  return p;
}

void PfcDt::pushed(const plane::Params &p) { last_ = p; }

void PfcDt::refused(const plane::Params &p, int) { last_ = p; }

std::string PfcDt::set(const std::string &key, const std::string &value)
{
  if (key == "alpha" || key == "egress-alpha") {
    auto a = plane::parse_alpha(value);
    if (!a)
      return "invalid " + key + " \"" + value + "\": " + LL_ALPHA_FORM;
    (key == "alpha" ? cfg_.alpha : cfg_.egress_alpha) = *a;
  } else if (key == "reserved" || key == "xon-offset") {
    auto b = parse_bytes(value);
    if (!b)
      return "invalid " + key + " \"" + value + "\": must be bytes 0 .. 4294967295";
    (key == "reserved" ? cfg_.reserved_bytes : cfg_.xon_offset_bytes) = *b;
  } else if (key == "sw-delay-us") {
    auto b = parse_bytes(value);
    if (!b || *b > kMaxDelayNs / 1000)
      return "invalid sw-delay-us \"" + value + "\": must be 0 .. 1000000";
    cfg_.sw_delay_ns = *b * 1000;
  } else if (const SchemeParam *sp = scheme_param(key)) {
    std::uint64_t v = 0;
    bool ok = sp->unit == Unit::Bytes ? !ll_units_size(value.c_str(), &v)
                                      : !ll_units_time(value.c_str(), sp->max, &v);
    std::string why = ok ? check_value(*sp, v, cfg_.buffer_bytes) : "not a valid value";
    if (!why.empty())
      return "invalid " + key + " \"" + value + "\": " + why;
    cfg_.scheme.p.raw[sp->word] = v;
  } else {
    std::string keys = "alpha, egress-alpha, reserved, xon-offset, sw-delay-us";
    for (const auto &sp2 : reg_.params)
      keys += ", " + std::string(reg_.scheme) + "." + std::string(sp2.key);
    return std::string(reg_.policy) + " has no parameter \"" + key + "\" (" + keys + ")";
  }
  dirty_ = true;
  return {};
}

const SchemeParam *PfcDt::scheme_param(const std::string &key) const
{
  for (const auto &sp : reg_.params)
    if (key == std::string(reg_.scheme) + "." + std::string(sp.key))
      return &sp;
  return nullptr;
}

std::vector<ParamInfo> PfcDt::params() const
{
  std::vector<ParamInfo> out = {
      {"alpha", plane::format_alpha(cfg_.alpha), "Dynamic Threshold of lossless priorities"},
      {"egress-alpha", plane::format_alpha(cfg_.egress_alpha), "the same for lossy priorities"},
      {"reserved", std::to_string(cfg_.reserved_bytes), "bytes per ingress (port, priority)"},
      {"xon-offset", std::to_string(cfg_.xon_offset_bytes), "PFC hysteresis, bytes"},
      {"sw-delay-us", std::to_string(cfg_.sw_delay_ns / 1000),
       "software response the headroom covers at least; measured delays raise it"},
  };
  for (const auto &sp : reg_.params)
    out.push_back({std::string(reg_.scheme) + "." + std::string(sp.key),
                   std::to_string(cfg_.scheme.p.raw[sp.word]), std::string(sp.help)});
  return out;
}

}  // namespace lossless::policy
