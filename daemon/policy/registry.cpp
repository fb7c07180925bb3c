// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "registry.h"

#include <algorithm>

#include "pfc_dt.h"

namespace lossless::policy {

const std::vector<const Registration *> &registry()
{
  // One line per policy; the first policy of a scheme is its default.
  static const std::vector<const Registration *> all = {&kPfcDtRegistration, &kStRegistration,
                                                        &kDshRegistration, &kSpfcRegistration};
  return all;
}

const Registration *by_policy(std::string_view name)
{
  for (const auto *r : registry())
    if (r->policy == name)
      return r;
  return nullptr;
}

const Registration *by_scheme(std::string_view scheme)
{
  for (const auto *r : registry())
    if (r->scheme == scheme)
      return r;
  return nullptr;
}

const Registration *by_scheme_id(std::uint8_t id)
{
  for (const auto *r : registry())
    if (r->scheme_id == id)
      return r;
  return nullptr;
}

std::vector<const SchemeParam *> scheme_params(std::uint8_t id)
{
  std::vector<const SchemeParam *> out;
  for (unsigned i = 0; const SchemeParam *p = ll_param_of_scheme(id, i); i++)
    out.push_back(p);
  return out;
}

lossless_plane_scheme default_block(const Registration &r)
{
  lossless_plane_scheme b{};
  b.id = r.scheme_id;
  for (const SchemeParam *p : r.params)
    b.p.raw[p->word] = p->def;
  return b;
}

std::string check_value(const SchemeParam &p, std::uint64_t value, std::uint64_t buffer_bytes)
{
  bool to_buffer = p.flags & LL_PARAM_MAX_BUFFER;
  std::uint64_t max = to_buffer ? buffer_bytes : p.max;
  if (value >= p.min && value <= max)
    return {};
  std::string unit = p.unit == LL_PARAM_TIME ? " ns" : p.unit == LL_PARAM_SIZE ? " bytes" : "";
  return "must be " + std::to_string(p.min) + " .. " + std::to_string(max) + unit +
         (to_buffer ? " (the pool's buffer)" : "");
}

std::string scheme_names()
{
  std::string out;
  for (const auto *r : registry())
    if (by_scheme(r->scheme) == r)
      out += (out.empty() ? "" : ", ") + std::string(r->scheme);
  return out;
}

namespace {

std::string ns_text(std::uint64_t ns)
{
  char buf[64];
  ll_units_time_text(ns, buf, sizeof(buf));
  return buf;
}

void dsh_checks(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                std::vector<SchemeIssue> &out)
{
  unsigned nq = static_cast<unsigned>(__builtin_popcount(pool.lossless_mask));
  if (!nq || ports.empty())
    return;
  // The MMU reserves for the 8 priorities of every port; DSH carves each
  // port's Phi once (LL_DSH_F_NO_INSURANCE: nothing).
  unsigned __int128 reserves = (unsigned __int128)pool.reserved_bytes * 8 * ports.size();
  unsigned __int128 insurance = 0;
  bool carve = !(pool.scheme.p.dsh.flags & LOSSLESS_DSH_F_NO_INSURANCE);
  if (carve)
    for (const auto &p : ports)
      insurance += p.headroom_bytes;
  const std::string used = "the reserves (" + std::to_string((std::uint64_t)reserves) +
                           " bytes) and the ports' insurance headroom (" +
                           std::to_string((std::uint64_t)insurance) + " bytes)";
  if (reserves + insurance >= pool.buffer_bytes) {
    out.push_back({true, LL_P_BUFFER, -1,
                   "dsh: " + used + " leave no shared region in buffer (" +
                       std::to_string(pool.buffer_bytes) + " bytes)"});
    return;
  }
  std::uint64_t shared = pool.buffer_bytes - static_cast<std::uint64_t>(reserves + insurance);
  if (carve)
    for (std::size_t i = 0; i < ports.size(); i++)
      if (ports[i].headroom_bytes > shared)
        out.push_back({true, -1, static_cast<int>(i),
                       "dsh: port " + ports[i].dev + "'s insurance headroom Phi (" +
                           std::to_string(ports[i].headroom_bytes) +
                           " bytes) is larger than the shared region (" + std::to_string(shared) +
                           " bytes: the buffer less " + used + ")"});
  // T of an empty pool = alpha x shared; the port pauses at N_q x T.
  unsigned __int128 t = ((unsigned __int128)shared * (pool.alpha >> 8)) >> (pool.alpha & 0xff);
  unsigned __int128 nqt = t * nq;
  auto big = [](unsigned __int128 v) {
    return v > UINT64_MAX ? std::string("more than 2^64") : std::to_string((std::uint64_t)v);
  };
  std::string what = "dsh: N_q x T (" + std::to_string(nq) + " lossless priorities x T " + big(t) +
                     " bytes of an empty pool = " + big(nqt) + " bytes)";
  if (nqt > pool.buffer_bytes)
    out.push_back({true, LL_P_ALPHA, -1,
                   what + " beyond the buffer (" + std::to_string(pool.buffer_bytes) +
                       " bytes): lower alpha or the lossless priorities"});
  else if (nqt > shared)
    out.push_back({false, LL_P_ALPHA, -1,
                   what + " beyond the shared region (" + std::to_string(shared) +
                       " bytes, alpha x N_q > 1): the pool's guard, not the port-level "
                       "pause, stops a port first"});
}

void spfc_checks(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                 std::vector<SchemeIssue> &out)
{
  const auto &s = pool.scheme.p.spfc;
  if (s.irc_th_bytes && s.irc_th_packets)
    out.push_back({true, LL_P_SPFC_IRC_TH_PACKETS, -1,
                   "spfc: irc_th and irc_th_packets together: give one (bytes or packets)"});
  std::uint32_t frame = 0;
  for (const auto &p : ports)
    frame = std::max(frame, p.frame_bytes);
  if (s.irc_th_bytes && s.irc_th_bytes < frame)
    out.push_back({true, LL_P_SPFC_IRC_TH, -1,
                   "spfc: irc_th (" + std::to_string(s.irc_th_bytes) +
                       " bytes) is below one frame (" + std::to_string(frame) +
                       " bytes): every queue would be a Victim"});
  std::uint64_t tc = s.tc_ns ? s.tc_ns : ll_params[LL_P_SPFC_WINDOW].def;
  // The port of the longest round trip decides.
  int worst = -1;
  for (std::size_t i = 0; i < ports.size(); i++)
    if (ports[i].rtt_ns && (worst < 0 || ports[i].rtt_ns > ports[worst].rtt_ns))
      worst = static_cast<int>(i);
  if (worst < 0)
    return;
  const SchemePort &p = ports[worst];
  std::string rtt = "port " + p.dev +
                    "'s round trip 2 x (cable-delay + sw-delay) = " + ns_text(p.rtt_ns);
  if (tc < p.rtt_ns)
    out.push_back({true, LL_P_SPFC_WINDOW, worst,
                   "spfc: window TC " + ns_text(tc) + " is shorter than " + rtt +
                       ": a window must see the reaction to a pause"});
  else if (tc < 4 * p.rtt_ns)
    out.push_back({false, LL_P_SPFC_WINDOW, worst,
                   "spfc: window TC " + ns_text(tc) + " is below 4 x " + rtt +
                       " (spfc.md: TC >= 4 RTT), so a Victim may be judged on a "
                       "pause's transient"});
}

}  // namespace

std::vector<SchemeIssue> check_scheme(const PoolSettings &pool,
                                      const std::vector<SchemePort> &ports)
{
  std::vector<SchemeIssue> out;
  if (pool.scheme.id == LOSSLESS_SCHEME_DSH)
    dsh_checks(pool, ports, out);
  else if (pool.scheme.id == LOSSLESS_SCHEME_SPFC)
    spfc_checks(pool, ports, out);
  return out;
}

std::vector<std::string> names()
{
  std::vector<std::string> out;
  for (const auto *r : registry())
    out.emplace_back(r->policy);
  return out;
}

std::unique_ptr<Policy> make(std::string_view name, const PoolSettings &pool)
{
  const Registration *r = by_policy(name);
  return r ? r->make(*r, pool) : nullptr;
}

}  // namespace lossless::policy
