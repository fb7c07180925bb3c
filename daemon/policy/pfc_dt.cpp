// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "pfc_dt.h"

#include <algorithm>
#include <cstdlib>

extern "C" {
#include "headroom.h"
}
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
  return key(a) == key(b);
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

PfcDt::PfcDt(const PoolSettings &pool) : cfg_(pool) {}

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
  } else {
    return "pfc-dt has no parameter \"" + key +
           "\" (alpha, egress-alpha, reserved, xon-offset, sw-delay-us)";
  }
  dirty_ = true;
  return {};
}

std::vector<ParamInfo> PfcDt::params() const
{
  return {
      {"alpha", plane::format_alpha(cfg_.alpha), "Dynamic Threshold of lossless priorities"},
      {"egress-alpha", plane::format_alpha(cfg_.egress_alpha), "the same for lossy priorities"},
      {"reserved", std::to_string(cfg_.reserved_bytes), "bytes per ingress (port, priority)"},
      {"xon-offset", std::to_string(cfg_.xon_offset_bytes), "PFC hysteresis, bytes"},
      {"sw-delay-us", std::to_string(cfg_.sw_delay_ns / 1000),
       "software response the headroom covers at least; measured delays raise it"},
  };
}

std::unique_ptr<Policy> make(std::string_view name, const PoolSettings &pool)
{
  if (name == "pfc-dt")
    return std::make_unique<PfcDt>(pool);
  return nullptr;
}

std::vector<std::string> names() { return {"pfc-dt"}; }

}  // namespace lossless::policy
