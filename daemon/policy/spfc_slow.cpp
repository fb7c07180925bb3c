// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "spfc_slow.h"

#include <algorithm>

extern "C" {
#include "scheme.h"
}

namespace lossless::policy {
namespace {

constexpr std::size_t kNone = ~std::size_t{0};

// A telemetry value of SPFC's by its name in its descriptor's names (scheme.h), so
// the slow path reads what tc and losslessctl show.
std::size_t ctr_index(const char *name)
{
  int i = ll_scheme_stat_index(LL_SCHEME_SPFC, 0, name);
  return i < 0 ? kNone : static_cast<std::size_t>(i);
}

std::size_t prio_index(const char *name)
{
  int i = ll_scheme_stat_index(LL_SCHEME_SPFC, 1, name);
  return i < 0 ? kNone : static_cast<std::size_t>(i);
}

}  // namespace

std::optional<SpfcForce> parse_spfc_force(std::string_view state)
{
  if (state == "victim")
    return SpfcForce::Victim;
  if (state == "normal")
    return SpfcForce::Normal;
  if (state == "auto")
    return SpfcForce::Auto;
  return std::nullopt;
}

const char *spfc_force_name(SpfcForce f)
{
  switch (f) {
    case SpfcForce::Victim:
      return "victim";
    case SpfcForce::Normal:
      return "normal";
    default:
      return "auto";
  }
}

std::optional<unsigned> parse_spfc_prio(std::string_view prio)
{
  if (prio.size() != 1 || prio[0] < '0' || prio[0] >= '0' + LOSSLESS_PFC_PRIOS)
    return std::nullopt;
  return static_cast<unsigned>(prio[0] - '0');
}

std::uint64_t spfc_window_end(std::uint64_t time_ns, std::uint64_t tc_ns)
{
  return tc_ns ? time_ns / tc_ns * tc_ns : 0;
}

std::uint8_t spfc_victims(const lossless_plane_tel &t, std::uint32_t slot)
{
  static const std::size_t th_at = ctr_index("irc_threshold");
  static const std::size_t last_at = prio_index("last_window");
  if (slot >= LOSSLESS_PLANE_PORTS || slot >= t.nr_ports || th_at == kNone || last_at != 0)
    return 0;  // last_window is the first per-priority value (prio[])
  const lossless_plane_scheme_port &sp = t.sch[slot];
  if (sp.s.scheme != LOSSLESS_SCHEME_SPFC || !t.ports[slot].ifindex)
    return 0;
  std::uint64_t th = sp.s.ctr[th_at];
  std::uint8_t bits = 0;
  for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
    if (!(t.lossless_mask & (1u << q)) || t.ports[slot].iq[q].paused)
      continue;
    if (th && sp.s.prio[q] >= th)
      bits |= static_cast<std::uint8_t>(1u << q);
  }
  return bits;
}

std::string SpfcSlowPath::force(std::uint32_t ifindex, unsigned prio, SpfcForce state,
                                std::uint8_t lossless_mask)
{
  if (prio >= LOSSLESS_PFC_PRIOS)
    return "priority " + std::to_string(prio) + " is not 0 .. 7";
  if (!(lossless_mask & (1u << prio)) && state != SpfcForce::Auto)
    return "priority " + std::to_string(prio) +
           " is not lossless in the pool (SPFC decides only for lossless priorities)";
  auto key = std::make_pair(ifindex, prio);
  auto it = forced_.find(key);
  SpfcForce was = it == forced_.end() ? SpfcForce::Auto : it->second;
  if (state == SpfcForce::Auto)
    forced_.erase(key);
  else
    forced_[key] = state;
  if (was != state)
    dirty_ = true;
  return {};
}

SpfcForce SpfcSlowPath::forced(std::uint32_t ifindex, unsigned prio) const
{
  auto it = forced_.find({ifindex, prio});
  return it == forced_.end() ? SpfcForce::Auto : it->second;
}

std::vector<SpfcForced> SpfcSlowPath::all_forced() const
{
  std::vector<SpfcForced> out;
  for (const auto &[k, v] : forced_)
    out.push_back({k.first, k.second, v});
  return out;
}

std::optional<lossless_spfc_channel> SpfcSlowPath::block(const lossless_plane_tel &t)
{
  if (t.scheme.id != LOSSLESS_SCHEME_SPFC)
    return std::nullopt;  // the datapath takes blocks only under spfc
  bool daemon = t.scheme.p.spfc.flags & LOSSLESS_SPFC_F_DAEMON;
  std::uint64_t tc_ns = t.scheme.p.spfc.tc_ns ? t.scheme.p.spfc.tc_ns : LL_SPFC_TC_NS_DEFAULT;
  std::uint32_t nr = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
  std::vector<std::uint32_t> ports;
  for (std::uint32_t i = 0; i < nr; i++)
    if (t.ports[i].ifindex)
      ports.push_back(t.ports[i].ifindex);
  std::uint64_t end = daemon ? spfc_window_end(t.time_ns, tc_ns) : 0;
  bool publish = daemon && end > last_end_;
  bool changed = dirty_ || ports != last_ports_ || (published_ && !daemon);
  if (!publish && !changed)
    return std::nullopt;
  lossless_spfc_channel b{};
  std::uint8_t mask = static_cast<std::uint8_t>(t.lossless_mask);
  std::size_t n = 0;
  for (std::uint32_t i = 0; i < nr; i++) {
    std::uint32_t ifindex = t.ports[i].ifindex;
    if (!ifindex)
      continue;
    lossless_plane_spfc_port &s = b.ports[n++];
    s.ifindex = ifindex;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      // A priority no longer lossless keeps its entry, unwritten: the
      // datapath refuses bits of lossy priorities.
      if (!(mask & (1u << q)))
        continue;
      SpfcForce f = forced(ifindex, q);
      if (f == SpfcForce::Victim)
        s.force_victim |= static_cast<std::uint8_t>(1u << q);
      else if (f == SpfcForce::Normal)
        s.force_normal |= static_cast<std::uint8_t>(1u << q);
    }
    if (publish)
      last_victims_[ifindex] = spfc_victims(t, i) & mask;
    auto v = last_victims_.find(ifindex);
    if (daemon && (publish || last_end_) && v != last_victims_.end()) {
      s.flags = LOSSLESS_SPFC_PUB;
      s.victims = v->second & mask;
      s.window_end_ns = publish ? end : last_end_;
    }
  }
  if (publish)
    last_end_ = end;
  published_ = daemon;
  dirty_ = false;
  last_ports_ = std::move(ports);
  return b;
}

}  // namespace lossless::policy
