// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl: look at and steer lossless pools through their shared-state
// planes (kernel/uapi/lossless.h). Reads need no daemon: the datapath
// publishes its telemetry in the plane map every interval.
#include <net/if.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ll_plane_map.h"
#include "plane.h"

namespace {

namespace lp = lossless::plane;
using nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kDefaultSocket[] = "/run/lossless/losslessd.sock";

const char kUsage[] = R"(usage: losslessctl [--pool NAME | --plane PATH] [--socket PATH] COMMAND [ARGS]

Look at and steer the shared-buffer pools of the lossless qdisc through
their planes: BPF array maps the pools publish telemetry in and take
parameters from (tc qdisc ... lossless pool NAME plane auto).

Commands:
  status [--json]       every pool's buffer occupancy, thresholds, PFC
                        sent and received, ECN marks and drops, per port
                        and lossless priority. --json prints one object
                        with every telemetry field.
  set KEY VALUE [KEY VALUE ...]
                        change pool parameters at run time through the
                        plane, all or nothing, and wait for the datapath to
                        confirm (at most 1 s). Keys:
                          alpha ALPHA          Dynamic Threshold of lossless
                                               priorities: 1/8, 3/4, 2
                          egress-alpha ALPHA   the same for lossy ones
                          xon-offset BYTES     PFC hysteresis
                          reserved BYTES       per ingress (port, priority)
                          interval-us N        telemetry period, 100 .. 1000000
                          headroom DEV BYTES   headroom of port DEV per
                                               lossless priority (0: computed)
                        With losslessd running (its socket exists), set goes
                        through the daemon, whose policy owns the parameters
                        (alpha, egress-alpha, reserved, xon-offset,
                        sw-delay-us for pfc-dt); --plane writes the map
                        directly instead.
  daemon [--json]       losslessd's state: its pools, policies and their
                        parameters, pushes to the datapath and their latency,
                        its ports and what it did with them
  config                the configuration losslessd runs with (JSON)
  reload                make losslessd re-read its configuration file; an
                        invalid file is refused and the running one stays
  help                  this text

Options:
  --pool NAME           the pool whose plane is /sys/fs/bpf/lossless/NAME/plane
  --plane PATH          a plane map pinned elsewhere
  --socket PATH         losslessd's control socket
                        (default /run/lossless/losslessd.sock)
                        (default for status: every plane under
                        /sys/fs/bpf/lossless; set needs one of the two)

Exit status: 0 success, 1 error (the message says which map and why; a
refused set says why the datapath refused it), 2 bad usage.
)";

struct UsageError {
  std::string msg;
};

std::string ifname(std::uint32_t ifindex)
{
  char buf[IF_NAMESIZE] = "";
  if (ifindex && if_indextoname(ifindex, buf))
    return buf;
  return "if" + std::to_string(ifindex);
}

std::string bytes_str(unsigned long long b)
{
  char buf[32];
  if (b >= (10ULL << 20))
    std::snprintf(buf, sizeof(buf), "%.1fM", b / 1048576.0);
  else if (b >= (10ULL << 10))
    std::snprintf(buf, sizeof(buf), "%.1fK", b / 1024.0);
  else
    std::snprintf(buf, sizeof(buf), "%llu", b);
  return buf;
}

std::string rate_str(unsigned long long bps)
{
  char buf[32];
  if (bps >= 1000000000ULL && bps % 1000000000ULL == 0)
    std::snprintf(buf, sizeof(buf), "%lluGbit", bps / 1000000000ULL);
  else if (bps >= 1000000ULL)
    std::snprintf(buf, sizeof(buf), "%.4gMbit", bps / 1e6);
  else
    std::snprintf(buf, sizeof(buf), "%llubit", bps);
  return buf;
}

json iq_json(const tc_lossless_iq_stats &q)
{
  return {{"bytes", q.bytes},
          {"headroom_used", q.headroom_used},
          {"headroom_size", q.headroom_size},
          {"peak_bytes", q.peak_bytes},
          {"peak_headroom", q.peak_headroom},
          {"threshold", q.threshold},
          {"xoff_frames", q.xoff_frames},
          {"xon_frames", q.xon_frames},
          {"paused_ns", q.paused_ns},
          {"drops", q.drops},
          {"paused", q.paused != 0},
          {"lossless", q.lossless != 0}};
}

json tel_json(const std::string &path, const lossless_plane_tel &t)
{
  json ports = json::array();
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    json prios = json::array();
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      json o = iq_json(p.iq[q]);
      o["prio"] = q;
      prios.push_back(o);
    }
    ports.push_back({{"port", i},
                     {"ifindex", p.ifindex},
                     {"dev", ifname(p.ifindex)},
                     {"paused_mask", p.paused_mask},
                     {"rate_bps", p.rate_bps},
                     {"tx_packets", p.tx_packets},
                     {"tx_bytes", p.tx_bytes},
                     {"qdisc_drops", p.qdisc_drops},
                     {"pfc_frames_tx", p.pfc_frames_tx},
                     {"pfc_frames_rx", p.pfc_frames_rx},
                     {"pause_frames_rx", p.pause_frames_rx},
                     {"ecn_marks", p.ecn_marks},
                     {"egress_bytes", p.egress_bytes},
                     {"headroom_bytes", p.headroom_bytes},
                     {"prios", prios}});
  }
  return {{"plane", path},
          {"pool", std::string(t.pool, strnlen(t.pool, sizeof(t.pool)))},
          {"time_ns", t.time_ns},
          {"snapshots", t.snapshots},
          {"interval_us", t.interval_us},
          {"applied_gen", t.applied_gen},
          {"apply_error", t.apply_error},
          {"lossless_mask", t.lossless_mask},
          {"alpha", lp::format_alpha(t.alpha)},
          {"egress_alpha", lp::format_alpha(t.egress_alpha)},
          {"xon_offset_bytes", t.xon_offset_bytes},
          {"reserved_bytes", t.reserved_bytes},
          {"total_bytes", t.total_bytes},
          {"reserved_size", t.reserved_size},
          {"shared_size", t.shared_size},
          {"headroom_size", t.headroom_size},
          {"reserved_used", t.reserved_used},
          {"shared_used", t.shared_used},
          {"headroom_used", t.headroom_used},
          {"peak_shared", t.peak_shared},
          {"peak_headroom", t.peak_headroom},
          {"admitted_packets", t.admitted_packets},
          {"admitted_bytes", t.admitted_bytes},
          {"drops_lossless", t.drops_lossless},
          {"drops_lossy", t.drops_lossy},
          {"paused_queues", t.paused_queues},
          {"ports", ports}};
}

void print_table(const std::string &path, const lossless_plane_tel &t)
{
  std::string pool(t.pool, strnlen(t.pool, sizeof(t.pool)));
  std::string prios;
  for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
    if (t.lossless_mask & (1u << p))
      prios += (prios.empty() ? "" : ",") + std::to_string(p);
  std::printf("pool %s  (plane %s, snapshot #%llu, every %u us)\n", pool.c_str(),
              path.c_str(), t.snapshots, t.interval_us);
  std::printf("  buffer %s: shared %s used %s peak %s | headroom %s used %s peak %s | reserved %s used %s\n",
              bytes_str(t.total_bytes).c_str(), bytes_str(t.shared_size).c_str(),
              bytes_str(t.shared_used).c_str(), bytes_str(t.peak_shared).c_str(),
              bytes_str(t.headroom_size).c_str(), bytes_str(t.headroom_used).c_str(),
              bytes_str(t.peak_headroom).c_str(), bytes_str(t.reserved_size).c_str(),
              bytes_str(t.reserved_used).c_str());
  std::printf("  alpha %s  egress-alpha %s  xon-offset %u  reserved %u  lossless-prios %s\n",
              lp::format_alpha(t.alpha).c_str(), lp::format_alpha(t.egress_alpha).c_str(),
              t.xon_offset_bytes, t.reserved_bytes, prios.empty() ? "none" : prios.c_str());
  std::printf("  admitted %llu packets  drops: lossless %llu  lossy %llu"
              "  paused queues %llu  control gen %llu %s\n",
              t.admitted_packets, t.drops_lossless, t.drops_lossy, t.paused_queues,
              t.applied_gen,
              t.apply_error ? ("refused: " + std::string(std::strerror(-t.apply_error))).c_str()
                            : "ok");
  std::printf("  %-12s %-10s %10s %7s %7s %7s %6s | %4s %8s %9s %9s %9s %6s %6s %6s\n", "PORT",
              "RATE", "TX-PKTS", "PFC-TX", "PFC-RX", "ECN", "PAUSED", "PRIO", "BYTES",
              "THRESHOLD", "HEADROOM", "PEAK-HR", "XOFF", "XON", "DROPS");
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    char paused[8];
    std::snprintf(paused, sizeof(paused), "0x%x", p.paused_mask);
    bool first = true;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      const auto &s = p.iq[q];
      if (!s.lossless && !s.drops)
        continue;
      std::string hr = bytes_str(s.headroom_used) + "/" + bytes_str(s.headroom_size);
      if (first)
        std::printf("  %-12s %-10s %10llu %7llu %7llu %7llu %6s",
                    ifname(p.ifindex).c_str(), rate_str(p.rate_bps).c_str(), p.tx_packets,
                    p.pfc_frames_tx, p.pfc_frames_rx, p.ecn_marks, paused);
      else
        std::printf("  %-12s %-10s %10s %7s %7s %7s %6s", "", "", "", "", "", "", "");
      std::printf(" | %3u%s %8s %9s %9s %9s %6llu %6llu %6llu\n", q,
                  s.paused ? "*" : " ", bytes_str(s.bytes).c_str(),
                  bytes_str(s.threshold).c_str(), hr.c_str(), bytes_str(s.peak_headroom).c_str(),
                  s.xoff_frames, s.xon_frames, s.drops);
      first = false;
    }
    if (first)
      std::printf("  %-12s %-10s %10llu %7llu %7llu %7llu %6s |\n",
                  ifname(p.ifindex).c_str(), rate_str(p.rate_bps).c_str(), p.tx_packets,
                  p.pfc_frames_tx, p.pfc_frames_rx, p.ecn_marks, paused);
  }
  std::printf("  (* = upstream told XOFF now; PAUSED = gates closed by PFC received, bit p)\n");
}

int cmd_status(const std::vector<std::string> &planes, bool as_json)
{
  json all = json::array();
  int rc = kExitOk;
  bool first = true;
  for (const auto &path : planes) {
    try {
      auto plane = lp::Plane::open(path);
      auto t = plane.telemetry();
      if (!t) {
        std::fprintf(stderr,
                     "losslessctl: %s: no telemetry yet (the map is not given to a pool: "
                     "tc qdisc ... lossless pool NAME plane %s)\n",
                     path.c_str(), path.c_str());
        rc = kExitError;
        continue;
      }
      if (as_json) {
        all.push_back(tel_json(path, *t));
      } else {
        if (!first)
          std::printf("\n");
        print_table(path, *t);
        first = false;
      }
    } catch (const lp::Error &e) {
      std::fprintf(stderr, "losslessctl: %s\n", e.what());
      rc = kExitError;
    }
  }
  if (as_json)
    std::printf("%s\n", json{{"pools", all}}.dump(2).c_str());
  return rc;
}

std::uint32_t parse_u32(const std::string &key, const std::string &v, std::uint64_t max)
{
  char *end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || errno || *end || x > max)
    throw UsageError{"invalid " + key + " \"" + v + "\": must be an integer 0 .. " +
                     std::to_string(max)};
  return static_cast<std::uint32_t>(x);
}

int cmd_set(const std::string &path, const std::vector<std::string> &args)
{
  lp::Params p;
  if (args.empty())
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &k = args[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        throw UsageError{"\"" + k + "\" needs a value"};
      return args[++i];
    };
    if (k == "alpha" || k == "egress-alpha") {
      const std::string &v = value();
      auto a = lp::parse_alpha(v);
      if (!a)
        throw UsageError{"invalid " + k + " \"" + v + "\": " + LL_ALPHA_FORM};
      (k == "alpha" ? p.alpha : p.egress_alpha) = *a;
    } else if (k == "xon-offset") {
      p.xon_offset_bytes = parse_u32(k, value(), UINT32_MAX);
    } else if (k == "reserved") {
      p.reserved_bytes = parse_u32(k, value(), UINT32_MAX);
    } else if (k == "interval-us") {
      std::uint32_t us = parse_u32(k, value(), LOSSLESS_PLANE_INTERVAL_MAX_US);
      if (us < LOSSLESS_PLANE_INTERVAL_MIN_US)
        throw UsageError{"invalid interval-us: must be 100 .. 1000000"};
      p.interval_us = us;
    } else if (k == "headroom") {
      std::string dev = value();
      std::uint32_t bytes = parse_u32("headroom", value(), UINT32_MAX);
      unsigned idx = if_nametoindex(dev.c_str());
      if (!idx)
        throw UsageError{"headroom: no device \"" + dev + "\" in this network namespace"};
      p.headroom.push_back({idx, bytes});
    } else {
      throw UsageError{"unknown parameter \"" + k +
                       "\" (alpha, egress-alpha, xon-offset, reserved, interval-us, headroom)"};
    }
  }
  auto plane = lp::Plane::open(path);
  std::uint64_t gen = plane.submit(p);
  auto r = plane.wait_applied(gen, std::chrono::milliseconds(1000));
  if (!r) {
    std::fprintf(stderr,
                 "losslessctl: %s: the datapath did not take control gen %llu"
                 " within 1 s: is the map given to a pool?\n",
                 path.c_str(), static_cast<unsigned long long>(gen));
    return kExitError;
  }
  if (r->error) {
    std::fprintf(stderr, "losslessctl: %s: the datapath refused the change: %s\n",
                 path.c_str(),
                 r->error == EBUSY    ? "the pool holds more than the new sizes allow; retry when idle"
                 : r->error == ENODEV ? "a device is not a port of this pool"
                                      : std::strerror(r->error));
    return kExitError;
  }
  std::printf("applied (gen %llu) in %.1f ms\n", static_cast<unsigned long long>(gen), r->latency.count() / 1e6);
  return kExitOk;
}

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
  }
  for (const auto &p : r["ports"])
    std::printf("  port %-12s ifindex %-4d pool %-8s %-5s %s\n", p["dev"].get<std::string>().c_str(),
                p["ifindex"].get<int>(), p["pool"].get<std::string>().c_str(),
                p["up"].get<bool>() ? "up" : "down", p["state"].get<std::string>().c_str());
  return kExitOk;
}

int cmd_set_daemon(const std::string &sock, const std::string &pool,
                   const std::vector<std::string> &args)
{
  if (args.empty() || args.size() % 2)
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i += 2) {
    json r = daemon_request(sock, {{"cmd", "set"}, {"pool", pool}, {"key", args[i]},
                                   {"value", args[i + 1]}});
    if (int rc = print_reply(r, false); rc >= 0)
      return rc;
    std::printf("%s %s: applied by the datapath in %.1f ms\n", args[i].c_str(),
                args[i + 1].c_str(), r["latency_us"].get<double>() / 1000);
  }
  return kExitOk;
}

int run(int argc, char **argv)
{
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string pool, plane_path, sock = kDefaultSocket;
  std::size_t i = 0;
  for (; i < args.size(); i++) {
    if (args[i] == "--pool" || args[i] == "--plane" || args[i] == "--socket") {
      if (i + 1 >= args.size())
        throw UsageError{args[i] + " needs a value"};
      (args[i] == "--pool" ? pool : args[i] == "--plane" ? plane_path : sock) = args[i + 1];
      i++;
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    } else {
      break;
    }
  }
  if (i >= args.size())
    throw UsageError{"missing command"};
  std::string cmd = args[i++];
  std::vector<std::string> rest(args.begin() + i, args.end());
  if (!pool.empty() && !plane_path.empty())
    throw UsageError{"give --pool or --plane, not both"};
  bool via_daemon = plane_path.empty() && access(sock.c_str(), F_OK) == 0;
  if (!pool.empty())
    plane_path = lp::default_path(pool);

  if (cmd == "help") {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (cmd == "status") {
    bool as_json = false;
    for (const auto &a : rest) {
      if (a == "--json")
        as_json = true;
      else
        throw UsageError{"status: unknown argument \"" + a + "\""};
    }
    std::vector<std::string> planes;
    if (!plane_path.empty())
      planes.push_back(plane_path);
    else
      planes = lp::find_pinned();
    if (planes.empty()) {
      std::fprintf(stderr, "losslessctl: no pool planes under %s (tc qdisc ... lossless pool NAME plane auto)\n",
                   LL_PLANE_PIN_ROOT);
      return kExitError;
    }
    return cmd_status(planes, as_json);
  }
  if (cmd == "daemon") {
    bool as_json = rest.size() == 1 && rest[0] == "--json";
    if (!rest.empty() && !as_json)
      throw UsageError{"daemon: unknown argument \"" + rest[0] + "\""};
    return cmd_daemon(sock, as_json);
  }
  if (cmd == "config" || cmd == "reload") {
    if (!rest.empty())
      throw UsageError{cmd + " takes no arguments"};
    json r = daemon_request(sock, {{"cmd", cmd}});
    if (int rc = print_reply(r, cmd == "config"); rc >= 0)
      return rc;
    std::printf("reloaded\n");
    return kExitOk;
  }
  if (cmd == "set" && via_daemon) {
    if (pool.empty())
      throw UsageError{"set needs --pool NAME"};
    return cmd_set_daemon(sock, pool, rest);
  }
  if (cmd == "set") {
    if (plane_path.empty())
      throw UsageError{"set needs --pool NAME or --plane PATH"};
    return cmd_set(plane_path, rest);
  }
  throw UsageError{"unknown command \"" + cmd + "\""};
}

}  // namespace

int main(int argc, char **argv)
{
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(stderr, "losslessctl: %s\nusage: losslessctl [--pool NAME | --plane PATH] status|set|daemon|config|reload|help ...  (see --help)\n",
                 e.msg.c_str());
    return kExitUsage;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "losslessctl: %s\n", e.what());
    return kExitError;
  }
}
