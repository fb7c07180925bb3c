// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl daemon [--json], and the requests to losslessd's control
// socket that daemon, config, reload, set and scheme make.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "ctl.h"

namespace lossless::ctl {

// One request to losslessd, one JSON reply.
json daemon_request(const std::string &socket_path, const json &req)
{
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (fd < 0 || socket_path.size() >= sizeof(sa.sun_path))
    throw std::runtime_error("cannot create a socket for " + socket_path);
  std::strcpy(sa.sun_path, socket_path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa))) {
    int e = errno;
    close(fd);
    throw std::runtime_error("cannot reach losslessd at " + socket_path + ": " +
                             std::strerror(e) + (e == ENOENT || e == ECONNREFUSED
                                                     ? " (is it running?)"
                                                     : ""));
  }
  std::string out = req.dump() + "\n", in;
  if (write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    close(fd);
    throw std::runtime_error("cannot write to " + socket_path);
  }
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0)
      break;
    in.append(buf, n);
    if (in.back() == '\n')
      break;
  }
  close(fd);
  if (in.empty())
    throw std::runtime_error("losslessd closed the connection without a reply");
  return json::parse(in);
}

int print_reply(const json &r, bool as_json)
{
  if (r.contains("error")) {
    std::fprintf(stderr, "losslessctl: losslessd: %s\n", r["error"].get<std::string>().c_str());
    return kExitError;
  }
  if (as_json) {
    std::printf("%s\n", r.dump(2).c_str());
    return kExitOk;
  }
  return -1;  // the caller prints it
}

int cmd_daemon(const std::string &sock, bool as_json)
{
  json r = daemon_request(sock, {{"cmd", "status"}});
  if (int rc = print_reply(r, as_json); rc >= 0)
    return rc;
  std::printf("losslessd pid %d, config %s, period %lld us, %llu ticks, busy %.1f ms\n",
              r["pid"].get<int>(), r["config"].get<std::string>().c_str(),
              r["period_us"].get<long long>(), r["ticks"].get<unsigned long long>(),
              r["busy_us"].get<double>() / 1000);
  for (const auto &p : r["pools"]) {
    std::printf("  pool %s: policy %s, %llu pushes, %llu refused, last push %.1f ms\n",
                p["name"].get<std::string>().c_str(), p["policy"].get<std::string>().c_str(),
                p["pushes"].get<unsigned long long>(), p["refusals"].get<unsigned long long>(),
                p["last_push_latency_us"].get<double>() / 1000);
    for (const auto &[k, v] : p["params"].items())
      std::printf("    %-12s %s\n", k.c_str(), v.get<std::string>().c_str());
    if (p.contains("foreign_changes")) {
      // Changes made behind losslessd's back (docs/DAEMON.md, "Ownership").
      const json &f = p["foreign_changes"];
      std::string by;
      for (const auto &c : f["counts"])
        by += (by.empty() ? "" : ", ") + c["setting"].get<std::string>() + " by " +
              c["source"].get<std::string>() + " " + c["action"].get<std::string>() + " " +
              std::to_string(c["count"].get<unsigned long long>());
      std::printf("    changes behind losslessd: %llu%s%s%s\n",
                  f["total"].get<unsigned long long>(), by.empty() ? "" : " (", by.c_str(),
                  by.empty() ? "" : ")");
      if (!f["last"].empty()) {
        const json &c = f["last"].back();
        std::string dev = c["dev"].get<std::string>();
        std::printf("      last: %s%s by %s: %s -> %s, %s\n", c["setting"].get<std::string>().c_str(),
                    dev.empty() ? "" : (" of " + dev).c_str(), c["source"].get<std::string>().c_str(),
                    c["old"].get<std::string>().c_str(), c["new"].get<std::string>().c_str(),
                    c["action"].get<std::string>().c_str());
      }
    }
    // The headroom's premise (docs/RELIABILITY.md): XOFF responses
    // against the software delay the headroom is sized with.
    for (const auto &q : p.value("premise", json::array()))
      std::printf("    premise %-12s sw-delay %s ms: XOFF response last %s max %s ms "
                  "(%llu timed), headroom warnings %llu\n",
                  q["dev"].get<std::string>().c_str(),
                  ms_str(q["sw_delay_ns"].get<unsigned long long>()).c_str(),
                  ms_str(q["xoff_response_last_ns"].get<unsigned long long>()).c_str(),
                  ms_str(q["xoff_response_max_ns"].get<unsigned long long>()).c_str(),
                  q["xoff_responses"].get<unsigned long long>(),
                  q["headroom_warnings"].get<unsigned long long>());
    if (p.contains("channel")) {
      const auto &ch = p["channel"];
      std::printf("    control channel (%s): %llu written, %llu refused%s%s; %s\n",
                  ch["scheme"].get<std::string>().c_str(),
                  ch["blocks_written"].get<unsigned long long>(),
                  ch["blocks_refused"].get<unsigned long long>(),
                  ch["last_error"].get<std::string>().empty() ? "" : ", last: ",
                  ch["last_error"].get<std::string>().c_str(),
                  ch["state"].value("summary", std::string()).c_str());
    }
  }
  for (const auto &p : r["ports"])
    std::printf("  port %-12s ifindex %-4d pool %-8s %-5s %s\n", p["dev"].get<std::string>().c_str(),
                p["ifindex"].get<int>(), p["pool"].get<std::string>().c_str(),
                p["up"].get<bool>() ? "up" : "down", p["state"].get<std::string>().c_str());
  if (r.contains("host_cc")) {
    const json &h = r["host_cc"];
    std::printf("  host_cc %s, line rate %llu kbit/s, maps in %s, gc idle %llu ms: %llu NP and "
                "%llu RP flows\n",
                h["algo"].get<std::string>().c_str(), h.value("line_rate_kbps", 0ULL),
                h["pin_dir"].get<std::string>().c_str(),
                h["gc"].value("idle_ns", 0ULL) / 1000000, h["np_flows"].value("total", 0ULL),
                h["rp_flows"].value("total", 0ULL));
    for (const auto &p : h["ports"])
      std::printf("    port %-12s ifindex %-4d %s\n", p["dev"].get<std::string>().c_str(),
                  p["ifindex"].get<int>(), p["state"].get<std::string>().c_str());
  }
  if (r.contains("portfc")) {
    const json &p = r["portfc"];
    bool server = p.value("role", std::string()) == "server";
    std::printf("  portfc %s %llu%s of BCube(%llu,%llu): %llu stuck alarms, %llu now "
                "(losslessctl portfc)\n",
                server ? "server" : "switch",
                p.value(server ? "server" : "switch", 0ULL),
                server ? "" : (" at level " + std::to_string(p.value("level", 0ULL))).c_str(),
                p.value("n", 0ULL), p.value("k", 0ULL), p["stuck"].value("alarms_total", 0ULL),
                p["stuck"].value("active", 0ULL));
  }
  return kExitOk;
}


}  // namespace lossless::ctl
