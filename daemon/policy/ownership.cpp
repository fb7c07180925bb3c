// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "ownership.h"

#include <algorithm>
#include <cstring>

#include "ll_params.h"
#include "registry.h"

namespace lossless::policy {
namespace {

std::string value_text(const ll_param &row, std::uint64_t v)
{
  char buf[256];
  ll_param_text(&row, v, buf, sizeof(buf));
  return buf;
}

std::string scheme_name(std::uint32_t id)
{
  const Registration *r = id <= 0xff ? by_scheme_id(static_cast<std::uint8_t>(id)) : nullptr;
  return r ? std::string(r->scheme) : "scheme " + std::to_string(id);
}

std::string mode_name(std::uint32_t id)
{
  if (!id)
    return "none";
  const ll_mode_desc *d = ll_mode_lookup(id);
  return d ? std::string(d->name) : "mode " + std::to_string(id);
}

}  // namespace

Held held(const lossless_plane_tel &t, const plane::Params &pushed)
{
  Held h;
  h.alpha = t.alpha;
  h.egress_alpha = t.egress_alpha;
  h.reserved_bytes = t.reserved_bytes;
  h.xon_offset_bytes = t.xon_offset_bytes;
  h.scheme = t.scheme;
  std::uint32_t nr = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
  for (const auto &e : pushed.headroom)
    for (std::uint32_t i = 0; i < nr; i++)
      if (e.ifindex && t.ports[i].ifindex == e.ifindex)
        h.headroom_bytes[e.ifindex] = static_cast<std::uint32_t>(t.ports[i].headroom_bytes);
  for (const auto &e : pushed.modes)
    for (std::uint32_t i = 0; i < nr; i++)
      if (e.ifindex && t.ports[i].ifindex == e.ifindex)
        h.mode[e.ifindex] = t.mode[i].mode;
  return h;
}

Source source_of(const lossless_plane_tel &t, std::uint64_t own_gen)
{
  return t.applied_gen != own_gen ? Source::Plane : Source::Tc;
}

std::vector<ForeignChange> foreign_changes(const Held &h, const lossless_plane_tel &t,
                                           Source who, const std::vector<PortLink> &ports)
{
  std::vector<ForeignChange> out;
  auto add = [&](std::string setting, std::string dev, std::string was, std::string now,
                 Action a) {
    out.push_back({std::move(setting), std::move(dev), std::move(was), std::move(now), who, a});
  };
  // Passed through from the configuration: adopted.
  struct Pool {
    ll_param_id id;
    std::uint32_t Held::*held;
    std::uint32_t lossless_plane_tel::*tel;
  };
  static const Pool kPool[] = {
      {LL_P_ALPHA, &Held::alpha, &lossless_plane_tel::alpha},
      {LL_P_EGRESS_ALPHA, &Held::egress_alpha, &lossless_plane_tel::egress_alpha},
      {LL_P_RESERVED, &Held::reserved_bytes, &lossless_plane_tel::reserved_bytes},
      {LL_P_XON_OFFSET, &Held::xon_offset_bytes, &lossless_plane_tel::xon_offset_bytes},
  };
  for (const Pool &p : kPool)
    if (h.*p.held != t.*p.tel) {
      const ll_param &row = ll_params[p.id];
      add(row.ctl, "", value_text(row, h.*p.held), value_text(row, t.*p.tel), Action::Adopt);
    }
  // The scheme is the policy's: reverted. Its parameters come from the
  // configuration: adopted.
  if (h.scheme.id != t.scheme.id) {
    add("scheme", "", scheme_name(h.scheme.id), scheme_name(t.scheme.id), Action::Revert);
  } else if (std::memcmp(&h.scheme.p, &t.scheme.p, sizeof(h.scheme.p))) {
    bool named = false;
    for (const SchemeParam *r : scheme_params(static_cast<std::uint8_t>(h.scheme.id))) {
      std::uint64_t was = h.scheme.p.raw[r->word], now = t.scheme.p.raw[r->word];
      if (was == now || !r->ctl)
        continue;
      add(r->ctl, "", value_text(*r, was), value_text(*r, now), Action::Adopt);
      named = true;
    }
    if (!named)
      add(scheme_name(h.scheme.id) + " parameters", "", "", "", Action::Adopt);
  }
  // Each port's headroom is computed: reverted.
  std::uint32_t nr = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
  const ll_param &hr = ll_params[LL_P_HEADROOM];
  for (std::uint32_t i = 0; i < nr; i++) {
    const lossless_plane_port &tp = t.ports[i];
    auto was = h.headroom_bytes.find(tp.ifindex);
    if (!tp.ifindex || was == h.headroom_bytes.end() || was->second == tp.headroom_bytes)
      continue;
    auto link = std::find_if(ports.begin(), ports.end(),
                             [&](const PortLink &l) { return l.ifindex == tp.ifindex; });
    if (link == ports.end() || !link->up)
      continue;
    add(hr.tc ? hr.tc : "headroom", link->dev, value_text(hr, was->second),
        value_text(hr, tp.headroom_bytes), Action::Revert);
  }
  // A port's mode the daemon set (its [[port]] has a mode key): reverted.
  for (std::uint32_t i = 0; i < nr; i++) {
    const lossless_plane_port &tp = t.ports[i];
    auto was = h.mode.find(tp.ifindex);
    if (!tp.ifindex || was == h.mode.end() || was->second == t.mode[i].mode)
      continue;
    auto link = std::find_if(ports.begin(), ports.end(),
                             [&](const PortLink &l) { return l.ifindex == tp.ifindex; });
    if (link == ports.end() || !link->up)
      continue;
    add("mode", link->dev, mode_name(was->second), mode_name(t.mode[i].mode), Action::Revert);
  }
  return out;
}

const char *source_name(Source s)
{
  return s == Source::Plane ? "plane" : "tc";
}

const char *action_name(Action a)
{
  return a == Action::Revert ? "reverted" : "adopted";
}

std::string log_line(const std::string &pool, const ForeignChange &c)
{
  std::string what = c.dev.empty() ? c.setting : c.setting + " of port " + c.dev;
  std::string who = c.source == Source::Plane
                        ? "another writer of the plane (losslessctl --plane ... set)"
                        : "tc (a qdisc change)";
  std::string line = "pool " + pool + ": " + what + " changed behind losslessd by " + who + ": " +
                     (c.old_value.empty() ? std::string("changed")
                                          : c.old_value + " -> " + c.new_value) +
                     "; ";
  if (c.action == Action::Adopt)
    return line + "adopted: the policy keeps it as its own until a reload or a restart "
                  "applies the file (docs/DAEMON.md, \"Ownership\")";
  return line + "reverted to " + (c.old_value.empty() ? std::string("its value") : c.old_value) +
         ": the policy computes it (docs/DAEMON.md, \"Ownership\")";
}

}  // namespace lossless::policy
