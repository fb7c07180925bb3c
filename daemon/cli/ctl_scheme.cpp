// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl scheme COMMAND [ARG...]: a command for the pool's scheme
// (its agent, daemon/policy/agent.h), through losslessd
// or written into the plane's control channel directly.
#include <net/if.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "ctl.h"
#include "registry.h"

namespace lossless::ctl {
namespace {

std::string joined(const std::vector<std::string> &args)
{
  std::string out;
  for (const auto &a : args)
    out += (out.empty() ? "" : " ") + a;
  return out;
}

}  // namespace

int cmd_scheme_daemon(const std::string &sock, const std::string &pool,
                      const std::vector<std::string> &args)
{
  json r = daemon_request(sock, {{"cmd", "scheme"}, {"pool", pool}, {"args", args}});
  if (int rc = print_reply(r, false); rc >= 0)
    return r.value("usage", false) ? kExitUsage : rc;
  if (r["seq"].get<unsigned long long>() == 0)
    std::printf("%s: nothing to change\n", joined(args).c_str());
  else
    std::printf("%s: applied by the datapath in %.1f ms\n", joined(args).c_str(),
                r["latency_us"].get<double>() / 1000);
  return kExitOk;
}

// Without losslessd: the scheme's agent, made here, takes the state of the
// block in the map, runs the command and writes its block.
int cmd_scheme_plane(const std::string &path, const std::vector<std::string> &args)
{
  namespace pol = lossless::policy;
  auto plane = lp::Plane::open(path);
  auto t = plane.telemetry();
  if (!t)
    throw std::runtime_error(path + ": no telemetry yet (the map is not given to a pool)");
  const pol::Registration *reg = pol::by_scheme_id(static_cast<std::uint8_t>(t->scheme.id));
  std::unique_ptr<pol::SchemeAgent> agent = reg && reg->agent ? reg->agent() : nullptr;
  if (!agent)
    throw std::runtime_error(path + ": the pool runs scheme " + scheme_name(*t) +
                             ", which takes no commands");
  std::vector<pol::PortLink> ports;
  for (std::uint32_t i = 0; i < t->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
    if (t->ports[i].ifindex) {
      pol::PortLink l;
      l.ifindex = t->ports[i].ifindex;
      l.dev = ifname(l.ifindex);
      ports.push_back(l);
    }
  lossless_plane_channel w = plane.channel();
  if (w.magic == LOSSLESS_PLANE_MAGIC && w.version == LOSSLESS_PLANE_VERSION &&
      w.scheme == t->scheme.id && w.len <= sizeof(w.payload))
    agent->adopt(std::vector<std::uint8_t>(w.payload, w.payload + w.len), *t);
  pol::CommandResult r =
      agent->command(args, ports, static_cast<std::uint8_t>(t->lossless_mask));
  if (!r.error.empty() && r.usage)
    throw UsageError{r.error};
  if (!r.error.empty())
    throw std::runtime_error(r.error);
  auto payload = agent->block(*t);
  if (!payload) {
    std::printf("%s: nothing to change\n", joined(args).c_str());
    return kExitOk;
  }
  std::uint64_t seq = plane.submit_channel(t->scheme.id, *payload);
  return report_applied(path, joined(args), "seq", seq,
                        plane.wait_channel_applied(seq, std::chrono::milliseconds(1000)));
}

}  // namespace lossless::ctl
