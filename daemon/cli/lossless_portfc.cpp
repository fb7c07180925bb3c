// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// lossless-portfc: PortFC's BCube plan, and its egress classifier on the
// ports of BCube servers and switches. See --help and docs/PORTFC.md.
#include <arpa/inet.h>
#include <errno.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ll_portfc.h"

#ifndef LL_VERSION
#define LL_VERSION "unknown"
#endif

namespace {

namespace lp = lossless::portfc;
using nlohmann::ordered_json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kHelp[] = R"(NAME
    lossless-portfc - PortFC's BCube plan and egress classifier

SYNOPSIS
    lossless-portfc plan --n N --k K [--base ADDR]
    lossless-portfc [OPTIONS] attach DEV... --n N --k K
                    (--server ID | --switch W --level L) [--major M]
                    [--ingress-pin-dir DIR]
    lossless-portfc [OPTIONS] detach DEV... [--ingress-pin-dir DIR]
    lossless-portfc [OPTIONS] addrs --n N --k K [--base ADDR]
    lossless-portfc [OPTIONS] show [--json]

DESCRIPTION
    PortFC (docs/PORTFC.md) gives every port of a BCube(n,k) its own queues:
    a switch port n+1, a server port (k+1)(n-1)+2, chosen per packet from the
    BCube address of its destination. This tool prints the plan and puts the
    classifier that chooses the queues on the ports.

    plan     prints BCube(n,k) as JSON: every server (id, address, digits,
             its ports' switches, the next hop of both shortest paths to
             every destination), every switch (level, index, fixed digit
             w, the server on each port), the queue counts and each port
             kind's `gates` for tc-lossless(8). Computed by the core
             (kernel/core/portfc.c), which the classifier runs too.
             Servers get the addresses base, base+1, ... (default
             10.1.0.1). A plan lists a route per pair of servers:
             networks of more than 256 servers are refused.
    attach   loads the classifier (once per network namespace: its maps
             are pinned in the pin directory), writes each DEV's position and
             puts it on DEV's clsact egress (filter pref 3, handle
             0x4c50). A server: --server ID and its k+1 ports, DEV i cabled
             to its level-i switch. A switch: --switch W, its fixed digit
             (k = 1: its index), --level L, its level, and any of its
             ports. Every packet leaving DEV gets skb->priority M:QUEUE+1
             (M: --major, the lossless qdisc's handle, default 1).
             With --ingress-pin-dir DIR, also tells lossless-ingress's
             program (its maps pinned in DIR, attached to the same ports)
             which of PortFC's frames each port takes: a server takes
             PORTFC_A and _B from its switch and relays _B to its other
             ports as PORTFC_R; a switch takes PORTFC_R only.
    detach   removes the classifier from each DEV and its position (the
             maps stay); with --ingress-pin-dir DIR, its part in PortFC's
             frames too (the port then takes none).
    addrs    writes the address of every server of the plan into the
             classifier's address map.
    show     the classifier's counters: packets, to HQ, relayed, unknown
             destination, for the sender itself, misrouted, bad port
             entries, and per queue.

OPTIONS
    --pin-dir DIR   where the maps are pinned
                    (default /sys/fs/bpf/lossless_portfc). Give each network
                    namespace its own, and run inside it with
                    nsenter --net=/run/netns/NS.
    -v, --verbose   libbpf's messages, the verifier's log included.
    -h, --help      this text.   --version   the version.

EXIT STATUS
    0 success, 1 error (with a message and a hint), 2 bad usage.
)";

struct UsageError {
  std::string msg;
};

struct Args {
  std::string cmd, pin_dir = lp::kDefaultPinDir, ingress_pin_dir;
  std::vector<std::string> devs;
  std::optional<unsigned long> n, k, level, server, sw, major;
  std::uint32_t base = 0x0a010001;  // 10.1.0.1
  bool json = false, verbose = false;
};

unsigned long number(const std::string &opt, const char *v)
{
  char *end = nullptr;
  errno = 0;
  unsigned long x = std::strtoul(v, &end, 10);
  if (errno || !*v || *end || v[0] == '-' || x > 0xFFFFFFFFul)
    throw UsageError{opt + ": not a number: " + v};
  return x;
}

Args parse_args(int argc, char **argv, bool &exit_now)
{
  Args a;
  exit_now = false;
  for (int i = 1; i < argc; i++) {
    std::string s = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        throw UsageError{s + " needs a value"};
      return argv[++i];
    };
    if (s == "-h" || s == "--help") {
      std::fputs(kHelp, stdout);
      exit_now = true;
      return a;
    } else if (s == "--version") {
      std::printf("lossless-portfc %s\n", LL_VERSION);
      exit_now = true;
      return a;
    } else if (s == "-v" || s == "--verbose") {
      a.verbose = true;
    } else if (s == "--pin-dir") {
      a.pin_dir = value();
    } else if (s == "--ingress-pin-dir") {
      a.ingress_pin_dir = value();
    } else if (s == "--json") {
      a.json = true;
    } else if (s == "--n") {
      a.n = number(s, value());
    } else if (s == "--k") {
      a.k = number(s, value());
    } else if (s == "--level") {
      a.level = number(s, value());
    } else if (s == "--server") {
      a.server = number(s, value());
    } else if (s == "--switch") {
      a.sw = number(s, value());
    } else if (s == "--major") {
      a.major = number(s, value());
    } else if (s == "--base") {
      in_addr addr;
      const char *v = value();
      if (inet_pton(AF_INET, v, &addr) != 1)
        throw UsageError{"--base: not an IPv4 address: " + std::string(v)};
      a.base = ntohl(addr.s_addr);
    } else if (!s.empty() && s[0] == '-') {
      throw UsageError{"unknown option " + s};
    } else if (a.cmd.empty()) {
      a.cmd = s;
    } else if (a.cmd == "attach" || a.cmd == "detach") {
      a.devs.push_back(s);
    } else {
      throw UsageError{"unexpected argument " + s};
    }
  }
  if (a.cmd.empty())
    throw UsageError{"no command"};
  if ((a.cmd == "attach" || a.cmd == "detach") && a.devs.empty())
    throw UsageError{a.cmd + " needs a device"};
  return a;
}

ll_bcube bcube(const Args &a)
{
  if (!a.n || !a.k)
    throw UsageError{a.cmd + " needs --n and --k"};
  ll_bcube b{static_cast<ll_u32>(*a.n), static_cast<ll_u32>(*a.k)};
  if (*a.n > 255 || *a.k > 255)
    b = {0, 0};  // refused below, with the core's reason
  if (const char *why = ll_bcube_check(&b))
    throw lp::Error(EINVAL, "BCube(" + std::to_string(*a.n) + "," + std::to_string(*a.k) +
                                "): " + why);
  return b;
}

int run(const Args &a)
{
  if (a.cmd == "plan") {
    std::printf("%s\n", lp::plan(bcube(a), a.base).dump(2).c_str());
    return kExitOk;
  }
  if (a.cmd == "detach") {
    std::optional<lossless::ingress::Maps> ingress;
    if (!a.ingress_pin_dir.empty())
      ingress.emplace(lossless::ingress::Maps::open_pinned(a.ingress_pin_dir));
    lp::Program prog = lp::Program::load(a.pin_dir);
    for (const std::string &dev : a.devs) {
      std::uint32_t ifindex = lossless::ingress::ifindex_of(dev);
      if (!lp::attached(ifindex))
        lp::detach(ifindex);  // Error(ENOENT): not there
      // The port's position goes too, and with --ingress-pin-dir its
      // part in PortFC's frames: a detached port takes none.
      lp::detach_port(prog, ifindex, ingress ? &*ingress : nullptr);
    }
    return kExitOk;
  }
  if (a.cmd == "attach") {
    ll_bcube b = bcube(a);
    if (!a.server == !a.sw)
      throw UsageError{"attach needs one of --server or --switch"};
    if (a.sw && !a.level)
      throw UsageError{"attach --switch needs its --level"};
    if (a.server && a.level)
      throw UsageError{"a server's ports are given in level order: no --level"};
    if (a.server && a.devs.size() != b.k + 1)
      throw UsageError{"a server of BCube(" + std::to_string(b.n) + "," + std::to_string(b.k) +
                       ") has " + std::to_string(b.k + 1) + " ports: give all, level 0 first"};
    unsigned long node = a.server ? *a.server : *a.sw;
    unsigned long major = a.major.value_or(1);
    if (a.level.value_or(0) > 255 || node > 0xFFFFFFFFul || major > 0xFFFF)
      throw lp::Error(EINVAL, "--level, --server/--switch or --major out of range");
    lp::Node nd;
    nd.b = b;
    nd.role = a.server ? LL_PORTFC_ROLE_SERVER : LL_PORTFC_ROLE_SWITCH;
    nd.node = static_cast<std::uint32_t>(node);
    nd.level = static_cast<std::uint32_t>(a.level.value_or(0));
    nd.major = static_cast<std::uint16_t>(major);
    for (std::size_t i = 0; i < a.devs.size(); i++) {
      std::string why = lp::check(lp::port_of(nd, i));  // refused before anything is loaded
      if (!why.empty())
        throw lp::Error(EINVAL, why);
    }
    std::vector<std::uint32_t> ifindexes;
    for (const std::string &dev : a.devs)
      ifindexes.push_back(lossless::ingress::ifindex_of(dev));
    std::optional<lossless::ingress::Maps> ingress;
    if (!a.ingress_pin_dir.empty())
      ingress.emplace(lossless::ingress::Maps::open_pinned(a.ingress_pin_dir));
    lp::Program prog = lp::Program::load(a.pin_dir);
    std::vector<std::uint32_t> ids =
        lp::attach_node(prog, nd, ifindexes, ingress ? &*ingress : nullptr);
    for (std::size_t i = 0; i < ifindexes.size(); i++)
      std::printf("%s: PortFC classifier attached (prog id %u), %s %lu at level %u%s\n",
                  a.devs[i].c_str(), ids[i], a.server ? "server" : "switch", node,
                  lp::port_of(nd, i).level,
                  ingress ? (a.server ? ", takes PORTFC_A/B, relays B"
                                      : ", takes PORTFC_R")
                          : "");
    return kExitOk;
  }
  if (a.cmd == "addrs") {
    ll_bcube b = bcube(a);
    lp::Program prog = lp::Program::load(a.pin_dir);
    std::printf("%u server addresses written\n", lp::write_addrs(prog, b, a.base));
    return kExitOk;
  }
  if (a.cmd == "show") {
    lp::Program prog = lp::Program::load(a.pin_dir);
    lp::Stats st = prog.stats();
    ordered_json j = {{"packets", st.packets}, {"hq", st.hq}, {"relayed", st.relayed},
                      {"unknown", st.unknown}, {"self", st.self},
                      {"misrouted", st.misrouted}, {"bad_port", st.bad_port}};
    ordered_json q = ordered_json::array();
    for (std::size_t i = 0; i < LL_PORTFC_MAX_QUEUES; i++)
      q.push_back(st.queue[i]);
    j["queue"] = q;
    ordered_json ports = ordered_json::array();
    for (const auto &[ifindex, p] : prog.ports())
      ports.push_back({{"dev", lossless::ingress::port_label(ifindex)},
                       {"role", p.role == LL_PORTFC_ROLE_SERVER ? "server" : "switch"},
                       {"n", p.n}, {"k", p.k}, {"level", p.level}, {"node", p.node},
                       {"major", p.major}});
    j["ports"] = ports;
    if (a.json) {
      std::printf("%s\n", j.dump().c_str());
      return kExitOk;
    }
    std::printf("packets %llu  hq %llu  relayed %llu  unknown %llu  self %llu  "
                "misrouted %llu  bad_port %llu\n",
                (unsigned long long)st.packets, (unsigned long long)st.hq,
                (unsigned long long)st.relayed, (unsigned long long)st.unknown,
                (unsigned long long)st.self, (unsigned long long)st.misrouted,
                (unsigned long long)st.bad_port);
    std::printf("queue");
    for (std::size_t i = 0; i < LL_PORTFC_MAX_QUEUES; i++)
      if (st.queue[i])
        std::printf("  %zu:%llu", i, (unsigned long long)st.queue[i]);
    std::printf("\n");
    for (const auto &p : ports)
      std::printf("%s  %s %s at level %s (BCube(%s,%s), handle %s:)\n",
                  p["dev"].get<std::string>().c_str(), p["role"].get<std::string>().c_str(),
                  p["node"].dump().c_str(), p["level"].dump().c_str(), p["n"].dump().c_str(),
                  p["k"].dump().c_str(), p["major"].dump().c_str());
    return kExitOk;
  }
  throw UsageError{"unknown command " + a.cmd};
}

}  // namespace

int main(int argc, char **argv)
{
  lossless::ingress::set_libbpf_print(false);
  try {
    bool exit_now;
    Args a = parse_args(argc, argv, exit_now);
    if (exit_now)
      return kExitOk;
    if (a.verbose)
      lossless::ingress::set_libbpf_print(true);
    return run(a);
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "lossless-portfc: %s\n"
                 "usage: lossless-portfc [--pin-dir DIR] [-v] "
                 "plan|attach|detach|addrs|show ...  (see --help)\n",
                 e.msg.c_str());
    return kExitUsage;
  } catch (const lp::Error &e) {
    std::fprintf(stderr, "lossless-portfc: %s\n", e.what());
    if (!e.hint().empty())
      std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
    return kExitError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "lossless-portfc: %s\n", e.what());
    return kExitError;
  }
}
