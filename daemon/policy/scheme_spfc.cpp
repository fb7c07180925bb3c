// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// spfc (docs/SPFC.md): its policy's registration and the checks of its
// parameters against the pool and its ports that neither a row's range
// nor the kernel's check can make (spfc.md 3.6, B5).
#include "scheme_parts.h"

#include <algorithm>

#include "pfc_dt.h"

namespace lossless::policy {
namespace {

const SchemeParam *row(const char *key)
{
  return ll_param_of_scheme_key(LOSSLESS_SCHEME_SPFC, key);
}

std::string ns_text(std::uint64_t ns)
{
  char buf[64];
  ll_units_time_text(ns, buf, sizeof(buf));
  return buf;
}

void checks(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                 std::vector<SchemeIssue> &out)
{
  const auto &s = pool.scheme.p.spfc;
  if (s.irc_th_bytes && s.irc_th_packets)
    out.push_back({true, row("irc_th_packets"), -1,
                   "spfc: irc_th and irc_th_packets together: give one (bytes or packets)"});
  std::uint32_t frame = 0;
  for (const auto &p : ports)
    frame = std::max(frame, p.frame_bytes);
  if (s.irc_th_bytes && s.irc_th_bytes < frame)
    out.push_back({true, row("irc_th"), -1,
                   "spfc: irc_th (" + std::to_string(s.irc_th_bytes) +
                       " bytes) is below one frame (" + std::to_string(frame) +
                       " bytes): every queue would be a Victim"});
  std::uint64_t tc = s.tc_ns ? s.tc_ns : row("window")->def;
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
    out.push_back({true, row("window"), worst,
                   "spfc: window TC " + ns_text(tc) + " is shorter than " + rtt +
                       ": a window must see the reaction to a pause"});
  else if (tc < 4 * p.rtt_ns)
    out.push_back({false, row("window"), worst,
                   "spfc: window TC " + ns_text(tc) + " is below 4 x " + rtt +
                       " (spfc.md: TC >= 4 RTT), so a Victim may be judged on a "
                       "pause's transient"});
}

// K only derives IRC_th; the window, when not given, is 4 round trips of
// the slowest port (spfc.md 3.6: TC >= 4 RTT), at least the row's default.
void configure(SchemeConfig &c)
{
  if (c.given("k"))
    for (const char *key : {"irc_th", "irc_th_packets"})
      if (c.given(key)) {
        c.issues.push_back({true, row("k"), -1,
                            "spfc: k " + std::to_string(c.block->p.spfc.k) +
                                ": K only derives IRC_th = C x TC / (8 K): not with " + key});
        break;
      }
  if (!c.given("window") && c.max_rtt_ns)
    c.block->p.spfc.tc_ns =
        std::clamp<std::uint64_t>(4 * c.max_rtt_ns, row("window")->def, row("window")->max);
}

}  // namespace

const Registration kSpfcRegistration = {
    "spfc", "spfc", LOSSLESS_SCHEME_SPFC, scheme_params(LOSSLESS_SCHEME_SPFC),
    "Selective PFC: queues that still drain fast pause only on a full buffer (docs/SPFC.md)",
    make_pfc_dt, checks, configure};

}  // namespace lossless::policy
