// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl spfc-force DEV PRIO victim|normal|auto: SPFC's oracle,
// through losslessd or written into the plane.
#include <net/if.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "ctl.h"
#include "datapath_error.h"

namespace lossless::ctl {

ForceArgs parse_force_args(const std::vector<std::string> &args)
{
  if (args.size() != 3)
    throw UsageError{"spfc-force needs DEV PRIO victim|normal|auto"};
  ForceArgs a{args[0], args[1], args[2]};
  auto prio = lossless::policy::parse_spfc_prio(a.prio_text);
  if (!prio)
    throw UsageError{"spfc-force: invalid priority \"" + a.prio_text + "\": must be 0 .. 7"};
  auto state = lossless::policy::parse_spfc_force(a.state_text);
  if (!state)
    throw UsageError{"spfc-force: invalid state \"" + a.state_text +
                     "\": must be victim, normal or auto"};
  a.prio = *prio;
  a.state = *state;
  return a;
}

int cmd_spfc_force_daemon(const std::string &sock, const std::string &pool, const ForceArgs &a)
{
  json r = daemon_request(sock, {{"cmd", "spfc-force"},
                                 {"pool", pool},
                                 {"dev", a.dev},
                                 {"prio", a.prio_text},
                                 {"state", a.state_text}});
  if (int rc = print_reply(r, false); rc >= 0)
    return rc;
  std::printf("%s priority %u %s: applied by the datapath in %.1f ms\n", a.dev.c_str(), a.prio,
              a.state_text.c_str(), r["latency_us"].get<double>() / 1000);
  return kExitOk;
}

// Without losslessd: the block in the map, with the port's slot changed.
int cmd_spfc_force(const std::string &path, const ForceArgs &a)
{
  auto plane = lp::Plane::open(path);
  auto t = plane.telemetry();
  if (!t)
    throw std::runtime_error(path + ": no telemetry yet (the map is not given to a pool)");
  if (t->scheme.id != LOSSLESS_SCHEME_SPFC)
    throw std::runtime_error(path + ": the pool runs scheme " + scheme_name(*t) +
                             ", not spfc (tc ... scheme spfc, or losslessd's policy spfc)");
  unsigned idx = if_nametoindex(a.dev.c_str());
  bool member = false;
  for (std::uint32_t i = 0; idx && i < t->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
    member = member || t->ports[i].ifindex == idx;
  if (!member)
    throw std::runtime_error("no port \"" + a.dev + "\" in pool " + std::string(t->pool, strnlen(t->pool, sizeof(t->pool))));
  if (!(t->lossless_mask & (1u << a.prio)) && a.state != lossless::policy::SpfcForce::Auto)
    throw std::runtime_error("priority " + a.prio_text + " is not lossless in pool " +
                             std::string(t->pool, strnlen(t->pool, sizeof(t->pool))) + " (lossless-prios)");
  lossless_plane_spfc_ctl w = plane.spfc();
  if (w.magic != LOSSLESS_PLANE_MAGIC || w.version != LOSSLESS_PLANE_VERSION)
    w = lossless_plane_spfc_ctl{};  // never written (or by another version)
  // Keep what the datapath would take of it: the pool's ports now, once
  // each, their lossless priorities (a stale slot would refuse it all).
  lossless_plane_spfc_ctl kept{};
  std::size_t n = 0;
  std::uint8_t lossless = static_cast<std::uint8_t>(t->lossless_mask);
  for (const auto &s : w.ports) {
    bool in_pool = false, dup = false;
    for (std::uint32_t i = 0; i < t->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
      in_pool = in_pool || (s.ifindex && t->ports[i].ifindex == s.ifindex);
    for (std::size_t j = 0; j < n; j++)
      dup = dup || kept.ports[j].ifindex == s.ifindex;
    if (!in_pool || dup)
      continue;
    lossless_plane_spfc_port &k = kept.ports[n++];
    k = s;
    k.force_victim &= lossless;
    k.force_normal &= lossless & static_cast<std::uint8_t>(~k.force_victim);
    k.victims &= lossless;
    k.flags &= LOSSLESS_SPFC_PUB;
    if (!k.flags || k.window_end_ns > t->time_ns)
      k.flags = 0, k.victims = 0, k.window_end_ns = 0;
  }
  w = kept;
  // The port's slot, else the first free one.
  lossless_plane_spfc_port *slot = nullptr;
  for (auto &s : w.ports)
    if (s.ifindex == idx)
      slot = &s;
  for (auto &s : w.ports)
    if (!slot && !s.ifindex)
      slot = &s;
  if (!slot)
    throw std::runtime_error(path + ": SPFC's block has no free slot");
  slot->ifindex = idx;
  std::uint8_t bit = static_cast<std::uint8_t>(1u << a.prio);
  slot->force_victim &= static_cast<std::uint8_t>(~bit);
  slot->force_normal &= static_cast<std::uint8_t>(~bit);
  if (a.state == lossless::policy::SpfcForce::Victim)
    slot->force_victim |= bit;
  else if (a.state == lossless::policy::SpfcForce::Normal)
    slot->force_normal |= bit;
  std::uint64_t seq = plane.submit_spfc(w);
  auto r = plane.wait_spfc_applied(seq, std::chrono::milliseconds(1000));
  if (!r) {
    std::fprintf(stderr, "losslessctl: %s: the datapath did not take SPFC block seq %llu within 1 s\n",
                 path.c_str(), static_cast<unsigned long long>(seq));
    return kExitError;
  }
  if (r->error) {
    std::fprintf(stderr, "losslessctl: %s: the datapath refused %s priority %u %s: %s\n",
                 path.c_str(), a.dev.c_str(), a.prio, a.state_text.c_str(),
                 lossless::datapath_error_text(r->error).c_str());
    return kExitError;
  }
  std::printf("%s priority %u %s: applied (seq %llu) in %.1f ms\n", a.dev.c_str(), a.prio,
              a.state_text.c_str(), static_cast<unsigned long long>(seq), r->latency.count() / 1e6);
  return kExitOk;
}


}  // namespace lossless::ctl
