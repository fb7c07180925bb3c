// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// spfc (docs/SPFC.md): its policy's registration, the checks of its
// parameters against the pool and its ports that neither a row's range
// nor the kernel's check can make (spfc.md 3.6, B5), and its agent: the
// slow path and the oracle (spfc_slow.h) on the scheme control channel.
#include "scheme_parts.h"

#include <algorithm>
#include <cstring>

#include "pfc_policy.h"
extern "C" {
#include "scheme.h"
}
#include "spfc_slow.h"

namespace lossless::policy {
namespace {

const SchemeParam *row(const char *key)
{
  return ll_param_of_scheme_key(LOSSLESS_SCHEME_SPFC, key);
}

void checks(const PoolSettings &pool, const std::vector<SchemePort> &ports,
                 std::vector<SchemeIssue> &out)
{
  const auto &s = pool.scheme.p.spfc;
  if (s.irc_th_bytes && s.irc_th_packets)
    out.push_back({true, row("irc-th-packets"), -1,
                   "spfc: irc-th and irc-th-packets together: give one (bytes or packets)"});
  std::uint32_t frame = 0;
  for (const auto &p : ports)
    frame = std::max(frame, p.frame_bytes);
  if (s.irc_th_bytes && s.irc_th_bytes < frame)
    out.push_back({true, row("irc-th"), -1,
                   "spfc: irc-th (" + std::to_string(s.irc_th_bytes) +
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
                    "'s round trip 2 x (cable-delay + sw-delay) = " + time_text(p.rtt_ns);
  if (tc < p.rtt_ns)
    out.push_back({true, row("window"), worst,
                   "spfc: window TC " + time_text(tc) + " is shorter than " + rtt +
                       ": a window must see the reaction to a pause"});
  else if (tc < 4 * p.rtt_ns)
    out.push_back({false, row("window"), worst,
                   "spfc: window TC " + time_text(tc) + " is below 4 x " + rtt +
                       " (spfc.md: TC >= 4 RTT), so a Victim may be judged on a "
                       "pause's transient"});
}

// K only derives IRC_th; the window, when not given, is 4 round trips of
// the slowest port (spfc.md 3.6: TC >= 4 RTT), at least the row's default.
void configure(SchemeConfig &c)
{
  if (c.given("k"))
    for (const char *key : {"irc-th", "irc-th-packets"})
      if (c.given(key)) {
        c.issues.push_back({true, row("k"), -1,
                            "spfc: k " + std::to_string(c.block->p.spfc.k) +
                                ": K only derives IRC_th = C x TC / (8 K): not with " + key});
        break;
      }
  if (!c.given("window") && c.max_rtt_ns)
    c.block->p.spfc.tc_ns = ll_spfc_window_for_rtt_ns(c.max_rtt_ns);  // the kernel's rule
}

// The one spelling of its command, for the usage line and the error.
constexpr const char *kForceSyntax = "force DEV PRIO victim|normal|auto";

// The agent: the slow path's publications and the oracle's forced states
// as SPFC's channel payload; its one command is the oracle's.
class SpfcAgent final : public SchemeAgent {
 public:
  std::optional<std::vector<std::uint8_t>> block(const lossless_plane_tel &t) override
  {
    auto b = slow_.block(t);
    if (!b)
      return std::nullopt;
    return channel_payload(*b);
  }

  CommandResult command(const std::vector<std::string> &args, const std::vector<PortLink> &ports,
                        std::uint8_t lossless_mask) override
  {
    CommandResult r;
    if (args.size() != 4 || args[0] != "force") {
      r.error = "spfc takes: " + std::string(kForceSyntax);
      r.usage = true;
      return r;
    }
    auto prio = parse_spfc_prio(args[2]);
    if (!prio) {
      r.error = "invalid priority \"" + args[2] + "\": must be 0 .. 7";
      r.usage = true;
      return r;
    }
    auto state = parse_spfc_force(args[3]);
    if (!state) {
      r.error = "invalid state \"" + args[3] + "\": must be victim, normal or auto";
      r.usage = true;
      return r;
    }
    auto port = std::find_if(ports.begin(), ports.end(),
                             [&](const PortLink &l) { return l.dev == args[1]; });
    if (port == ports.end()) {
      std::string devs;
      for (const auto &l : ports)
        devs += (devs.empty() ? "" : ", ") + l.dev;
      r.error = "no port \"" + args[1] + "\" in the pool (its ports: " +
                (devs.empty() ? "none" : devs) + ")";
      return r;
    }
    std::uint32_t ifindex = port->ifindex;
    SpfcForce old = slow_.forced(ifindex, *prio);
    if (std::string err = slow_.force(ifindex, *prio, *state, lossless_mask); !err.empty()) {
      r.error = err;
      return r;
    }
    r.reply = {{"dev", args[1]}, {"prio", *prio}, {"state", spfc_force_name(*state)}};
    r.changed = old != *state;
    r.undo = [this, ifindex, p = *prio, old] { slow_.force(ifindex, p, old, 0xff); };
    return r;
  }

  std::vector<std::string> usage() const override
  {
    return {std::string(kForceSyntax) + ": the oracle (docs/SPFC.md): lossless priority "
            "PRIO (0 .. 7) of port DEV always a Victim (it pauses only once the pool is full: "
            "the paper's Fig. 4), always Normal (SPFC off on it: DT's threshold), or the "
            "detector's again (auto); status shows it (forced_victim, forced_normal)."};
  }

  nlohmann::json state(const std::vector<PortLink> &ports) const override
  {
    nlohmann::json forced = nlohmann::json::array();
    std::string summary;
    for (const auto &f : slow_.all_forced()) {
      auto port = std::find_if(ports.begin(), ports.end(),
                               [&](const PortLink &l) { return l.ifindex == f.ifindex; });
      std::string dev = port == ports.end() ? "if" + std::to_string(f.ifindex) : port->dev;
      forced.push_back({{"dev", dev}, {"prio", f.prio}, {"state", spfc_force_name(f.state)}});
      summary += (summary.empty() ? "" : ", ") + dev + " prio " + std::to_string(f.prio) + " " +
                 spfc_force_name(f.state);
    }
    return {{"forced", forced}, {"summary", "forced: " + (summary.empty() ? "none" : summary)}};
  }

  void adopt(const std::vector<std::uint8_t> &payload, const lossless_plane_tel &t) override
  {
    lossless_spfc_channel w{};
    if (payload.size() != sizeof(w))
      return;  // never written, or by another version
    std::memcpy(&w, payload.data(), sizeof(w));
    auto mask = static_cast<std::uint8_t>(t.lossless_mask);
    for (const auto &s : w.ports) {
      bool in_pool = false;
      for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
        in_pool = in_pool || (s.ifindex && t.ports[i].ifindex == s.ifindex);
      for (unsigned q = 0; in_pool && q < LOSSLESS_PFC_PRIOS; q++)
        if (s.force_victim & mask & (1u << q))
          slow_.force(s.ifindex, q, SpfcForce::Victim, mask);
        else if (s.force_normal & mask & (1u << q))
          slow_.force(s.ifindex, q, SpfcForce::Normal, mask);
    }
  }

 private:
  SpfcSlowPath slow_;
};

std::unique_ptr<SchemeAgent> make_agent()
{
  return std::make_unique<SpfcAgent>();
}

}  // namespace

// extern: registry.cpp lists it by name, no header declares it.
extern const Registration kSpfcRegistration = {
    "spfc", "spfc", LOSSLESS_SCHEME_SPFC, scheme_params(LOSSLESS_SCHEME_SPFC),
    "Selective PFC: queues that still drain fast pause only on a full buffer (docs/SPFC.md)",
    make_pfc_policy, checks, configure, make_agent};

}  // namespace lossless::policy
