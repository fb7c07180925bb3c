// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl portfc [--json]: losslessd's [portfc] (docs/DAEMON.md
// "PortFC"): the node, the sizing of a switch, per port the classifier,
// the ingress program's PortFC frames and every pausable queue's pause
// state, time paused and stuck alarm, the classifier's counters and the
// stuck detector's last events.
#include <cstdio>

#include "ctl.h"

namespace lossless::ctl {

namespace {

unsigned long long u(const json &j, const char *key)
{
  return j.contains(key) && j[key].is_number() ? j[key].get<unsigned long long>() : 0ULL;
}

double ms(unsigned long long ns)
{
  return static_cast<double>(ns) / 1e6;
}

}  // namespace

int cmd_portfc(const std::string &sock, bool as_json)
{
  json r = daemon_request(sock, {{"cmd", "status"}});
  if (r.contains("error")) {
    std::fprintf(stderr, "losslessctl: losslessd: %s\n", r["error"].get<std::string>().c_str());
    return kExitError;
  }
  if (!r.contains("portfc")) {
    std::fprintf(stderr, "losslessctl: losslessd runs no [portfc]\n");
    return kExitError;
  }
  const json &p = r["portfc"];
  if (as_json) {
    std::printf("%s\n", p.dump(2).c_str());
    return kExitOk;
  }
  bool server = p["role"] == "server";
  if (server)
    std::printf("portfc: server %llu of BCube(%llu,%llu), %llu queues a port, addresses from %s\n",
                u(p, "server"), u(p, "n"), u(p, "k"), u(p, "queues"),
                p["base"].get<std::string>().c_str());
  else
    std::printf(
        "portfc: switch %llu at level %llu of BCube(%llu,%llu), pool %s, %llu queues a "
        "port, addresses from %s\n",
        u(p, "switch"), u(p, "level"), u(p, "n"), u(p, "k"), p["pool"].get<std::string>().c_str(),
        u(p, "queues"), p["base"].get<std::string>().c_str());
  if (p.contains("sizing")) {
    const json &s = p["sizing"];
    std::printf(
        "  thresholds xoff_a %llu xon_a %llu xoff_b %llu xon_b %llu bytes (BDP %llu); "
        "O1 %llu O2 %llu; the pool needs %llu of %llu bytes\n",
        u(s, "xoff_a_bytes"), u(s, "xon_a_bytes"), u(s, "xoff_b_bytes"), u(s, "xon_b_bytes"),
        u(s, "bdp_bytes"), u(s, "o1_bytes"), u(s, "o2_bytes"), u(s, "pool_need_bytes"),
        u(s, "buffer_bytes"));
  }
  const json &st = p["stuck"];
  if (u(st, "stuck_ns"))
    std::printf("  stuck after %.0f ms (polled every %.0f ms): %llu alarms raised, %llu now\n",
                ms(u(st, "stuck_ns")), ms(u(st, "period_ns")), u(st, "alarms_total"),
                u(st, "active"));
  else
    std::printf("  no stuck detector (stuck = \"off\")\n");
  for (const auto &pt : p["ports"]) {
    std::printf(
        "  port %-12s %s %-2llu %-9s prog %-5s frames refused %llu relayed %llu relay "
        "failed %llu\n",
        pt["dev"].get<std::string>().c_str(), server ? "level" : "bcube port",
        server ? u(pt, "level") : u(pt, "bcube_port"), pt["state"].get<std::string>().c_str(),
        pt["prog_id"].is_null() ? "-" : pt["prog_id"].dump().c_str(), u(pt, "frames_refused"),
        u(pt, "frames_relayed"), u(pt, "relay_failed"));
    for (const auto &q : pt["queues"])
      std::printf("    queue %-2llu %-7s paused %10.1f ms  frames %-8llu %s\n", u(q, "queue"),
                  q["paused"].get<bool>() ? "PAUSED" : "open", ms(u(q, "paused_ns")),
                  u(q, "pause_frames_rx"),
                  q["stuck"].get<bool>() ? "STUCK"
                  : u(q, "stuck_alarms")
                      ? ("(" + std::to_string(u(q, "stuck_alarms")) + " alarms before)").c_str()
                      : "");
  }
  if (p.contains("classifier") && p["classifier"].contains("packets")) {
    const json &c = p["classifier"];
    std::printf(
        "  classifier: packets %llu hq %llu relayed %llu unknown %llu self %llu "
        "misrouted %llu bad_port %llu\n",
        u(c, "packets"), u(c, "hq"), u(c, "relayed"), u(c, "unknown"), u(c, "self"),
        u(c, "misrouted"), u(c, "bad_port"));
  }
  for (const auto &e : st["events"])
    std::printf("  event: %s %s queue %llu after %.0f ms\n", e["event"].get<std::string>().c_str(),
                e["dev"].get<std::string>().c_str(), u(e, "queue"), ms(u(e, "paused_for_ns")));
  return kExitOk;
}

}  // namespace lossless::ctl
