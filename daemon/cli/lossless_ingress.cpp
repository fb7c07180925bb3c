// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// lossless-ingress: attach the lossless TC ingress program to ports,
// configure its classification and show its counters. See --help.
#include <errno.h>
#include <unistd.h>


#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "ingress.h"

#ifndef LL_VERSION
#define LL_VERSION "unknown"
#endif

namespace {

namespace li = lossless::ingress;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kHelp[] = R"(NAME
    lossless-ingress - TC ingress classification and PFC/PAUSE reception
                       for lossless Ethernet ports

SYNOPSIS
    lossless-ingress [OPTIONS] attach DEV [--mode MODE] [--default-prio N]
    lossless-ingress [OPTIONS] detach DEV [--keep]
    lossless-ingress [OPTIONS] dscp set DSCP PRIO
    lossless-ingress [OPTIONS] dscp reset [DSCP]
    lossless-ingress [OPTIONS] dscp show [--json]
    lossless-ingress [OPTIONS] show [DEV] [--json]

DESCRIPTION
    Loads the lossless TC ingress BPF program and attaches it to the clsact
    ingress hook of network ports (filter pref 1, handle 0x4c4c; the
    clsact qdisc is created if missing). On each port the program

    * consumes every MAC control frame (EtherType 0x8808). Valid IEEE
      802.1Qbb PFC (opcode 0x0101) and 802.3x PAUSE (0x0001) frames get
      EtherType 0x88B5 and skb mark 0x4c4c5043 and are redirected to the
      egress of the same port, where the lossless qdisc applies them.
      Everything else - truncated, oversize, wrong destination address,
      reserved bits set, other opcodes, VLAN-tagged - is counted and
      dropped. MAC control frames never reach a bridge or the stack.

    * sets skb->priority of data frames, by the port's MODE:
        pcp-dscp  the VLAN PCP if the frame is tagged, else the IPv4/IPv6
                  DSCP through the DSCP map, else the default priority
                  (the default mode)
        pcp       the VLAN PCP if tagged, else the default priority
        dscp      the DSCP of IPv4/IPv6 frames (also inside VLAN tags),
                  else the default priority
      With 802.1ad + 802.1Q, the outer (S-)tag's PCP counts. Frames and
      bytes are counted per port and priority.

    The DSCP map is one table for all ports. DSCP values without an entry
    map to their class selector, DSCP >> 3 (CS0..CS7 -> 0..7, EF 46 -> 5).

    The program's maps are pinned in the pin directory and shared by every
    port and by every run of this tool (and by losslessd): a port's config
    and counters stay until it is detached, and survive this tool exiting.
    Maps are keyed by ifindex, which is per network namespace: give ports
    of different namespaces their own --pin-dir, and run the tool inside
    the port's namespace with nsenter --net=/run/netns/NS (ip netns exec
    remounts /sys, which hides the bpffs at /sys/fs/bpf).

COMMANDS
    attach DEV [--mode MODE] [--default-prio N]
        Load the program (reusing pinned maps), write DEV's config (MODE
        pcp-dscp and priority 0 unless given), and attach it to DEV's
        clsact ingress, replacing a previous attachment of this tool.

    detach DEV [--keep]
        Remove the program from DEV's ingress. The clsact qdisc and other
        filters stay. DEV's config and counters are deleted unless --keep.

    dscp set DSCP PRIO
        Map DSCP (0-63) to priority PRIO (0-15) on all ports.

    dscp reset [DSCP]
        Return DSCP, or every DSCP, to the default DSCP >> 3.

    dscp show [--json]
        Print the DSCP map; '*' marks entries set explicitly.

    show [DEV] [--json]
        Print config and counters of DEV, or of every port that has an
        entry in the maps: whether the program is attached (and its id),
        the mode and default priority, control frames (pfc, pause, dropped
        by reason) and data frames/bytes per priority. Priorities 8-15
        are listed only when used.

OPTIONS
    --mode MODE          pcp-dscp (default), pcp or dscp
    --default-prio N     priority (0-15) of frames the mode cannot
                         classify; default 0
    --keep               detach: keep the port's config and counters
    --json               machine-readable output (one JSON object)
    --pin-dir DIR        where the maps are pinned, on a bpffs mount;
                         default /sys/fs/bpf/lossless
    -v, --verbose        print libbpf's debug messages (verifier logs)
    -h, --help           print this help
    -V, --version        print the version

FILES
    /sys/fs/bpf/lossless/ll_port_cfg     per-port config (hash, ifindex)
    /sys/fs/bpf/lossless/ll_dscp_map     DSCP -> priority (array of 64)
    /sys/fs/bpf/lossless/ll_prio_stats   data counters (per-CPU hash)
    /sys/fs/bpf/lossless/ll_ctrl_stats   control-frame counters (per-CPU)
    /sys/fs/bpf/lossless/ll_portfc_rx    a BCube port's part in PortFC's
                                         frames (hash, ifindex;
                                         lossless-portfc writes it)
    The layouts are in bpf/lossless_ingress.h of the source tree.

EXIT STATUS
    0 on success, 1 on errors (not root, unknown device, no bpffs, BPF or
    netlink failures), 2 on usage errors.

EXAMPLES
    mount -t bpf bpf /sys/fs/bpf              # if not mounted yet
    lossless-ingress attach swp1
    lossless-ingress attach swp2 --mode dscp --default-prio 1
    lossless-ingress dscp set 26 3            # AF31 -> priority 3
    lossless-ingress show swp1
    nsenter --net=/run/netns/sw0 lossless-ingress --pin-dir /sys/fs/bpf/lossless/sw0 \
        attach swp1
    lossless-ingress detach swp1

SEE ALSO
    tc(8), tc-bpf(8), bpftool(8), ip-netns(8)
)";

struct UsageError {
  std::string msg;
};

struct Args {
  std::string pin_dir = li::kDefaultPinDir;
  bool verbose = false;
  bool json = false;
  bool keep = false;
  std::optional<li::Mode> mode;
  std::optional<unsigned> default_prio;
  std::vector<std::string> words;  // command and its operands
};

unsigned parse_uint(const std::string &s, unsigned max, const char *what)
{
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos ||
      s.size() > 9)
    throw UsageError{std::string("invalid ") + what + " '" + s + "'"};
  unsigned long v = std::stoul(s);
  if (v > max)
    throw UsageError{std::string(what) + " " + s + " out of range 0.." +
                     std::to_string(max)};
  return static_cast<unsigned>(v);
}

// Options may come anywhere; "--" ends them.
Args parse_args(int argc, char **argv, bool &exit_now)
{
  Args a;
  exit_now = false;
  bool opts_done = false;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    auto value = [&](const char *opt) -> std::string {
      if (i + 1 >= argc)
        throw UsageError{std::string(opt) + " needs a value"};
      return argv[++i];
    };
    if (opts_done || arg.empty() || arg[0] != '-' || arg == "-") {
      a.words.push_back(arg);
    } else if (arg == "--") {
      opts_done = true;
    } else if (arg == "-h" || arg == "--help") {
      std::fputs(kHelp, stdout);
      exit_now = true;
      return a;
    } else if (arg == "-V" || arg == "--version") {
      std::printf("lossless-ingress %s\n", LL_VERSION);
      exit_now = true;
      return a;
    } else if (arg == "-v" || arg == "--verbose") {
      a.verbose = true;
    } else if (arg == "--json") {
      a.json = true;
    } else if (arg == "--keep") {
      a.keep = true;
    } else if (arg == "--pin-dir") {
      a.pin_dir = value("--pin-dir");
      while (a.pin_dir.size() > 1 && a.pin_dir.back() == '/')
        a.pin_dir.pop_back();
      if (a.pin_dir.empty() || a.pin_dir[0] != '/')
        throw UsageError{"--pin-dir needs an absolute path"};
    } else if (arg == "--mode") {
      std::string m = value("--mode");
      a.mode = li::parse_mode(m);
      if (!a.mode)
        throw UsageError{"unknown mode '" + m + "' (pcp-dscp, pcp or dscp)"};
    } else if (arg == "--default-prio") {
      a.default_prio = parse_uint(value("--default-prio"), li::kPrios - 1,
                                  "default priority");
    } else {
      throw UsageError{"unknown option '" + arg + "'"};
    }
  }
  return a;
}

void expect_words(const Args &a, std::size_t min, std::size_t max)
{
  if (a.words.size() < min)
    throw UsageError{"'" + a.words[0] + "' needs more arguments"};
  if (a.words.size() > max)
    throw UsageError{"unexpected argument '" + a.words[max] + "'"};
}

void only_options(const Args &a, bool json, bool keep, bool attach_opts)
{
  if (a.json && !json)
    throw UsageError{"--json does not apply to '" + a.words[0] + "'"};
  if (a.keep && !keep)
    throw UsageError{"--keep only applies to 'detach'"};
  if ((a.mode || a.default_prio) && !attach_opts)
    throw UsageError{"--mode/--default-prio only apply to 'attach'"};
}

std::string json_str(const std::string &s)
{
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

// --------------------------------------------------------------- commands

int cmd_attach(const Args &a)
{
  expect_words(a, 2, 2);
  only_options(a, false, false, true);
  std::uint32_t ifindex = li::ifindex_of(a.words[1]);
  li::PortConfig cfg;
  cfg.mode = a.mode.value_or(li::Mode::PcpDscp);
  cfg.default_prio = static_cast<std::uint8_t>(a.default_prio.value_or(0));

  li::Program::Options opts;
  opts.pin_dir = a.pin_dir;
  li::Program prog = li::Program::load(opts);
  // Config first: the first frame after attach sees it.
  prog.maps().set_port_config(ifindex, cfg);
  std::uint32_t id = prog.attach(ifindex);
  std::printf("%s: attached lossless ingress (prog id %u), mode %s, "
              "default priority %u, maps in %s\n",
              a.words[1].c_str(), id, std::string(li::mode_name(cfg.mode)).c_str(),
              cfg.default_prio, a.pin_dir.c_str());
  return kExitOk;
}

int cmd_detach(const Args &a)
{
  expect_words(a, 2, 2);
  only_options(a, false, true, false);
  std::uint32_t ifindex = li::ifindex_of(a.words[1]);
  li::detach(ifindex);
  if (!a.keep && li::Maps::pinned(a.pin_dir))
    li::Maps::open_pinned(a.pin_dir).remove_port(ifindex);
  std::printf("%s: detached%s\n", a.words[1].c_str(),
              a.keep ? " (config and counters kept)" : "");
  return kExitOk;
}

// Maps for writing: the pinned ones, created (without a program) if this
// is the first use of the pin directory.
li::Maps writable_maps(const std::string &pin_dir)
{
  li::check_bpffs(pin_dir);
  if (li::Maps::pinned(pin_dir))
    return li::Maps::open_pinned(pin_dir);
  li::Program::Options opts;
  opts.pin_dir = pin_dir;
  opts.load_program = false;
  return std::move(li::Program::load(opts).maps());
}

int cmd_dscp(const Args &a)
{
  if (a.words.size() < 2)
    throw UsageError{"'dscp' needs a subcommand: set, reset or show"};
  const std::string &sub = a.words[1];
  if (sub == "set") {
    expect_words(a, 4, 4);
    only_options(a, false, false, false);
    unsigned dscp = parse_uint(a.words[2], li::kDscpCount - 1, "DSCP");
    unsigned prio = parse_uint(a.words[3], li::kPrios - 1, "priority");
    writable_maps(a.pin_dir).set_dscp(dscp, prio);
    return kExitOk;
  }
  if (sub == "reset") {
    expect_words(a, 2, 3);
    only_options(a, false, false, false);
    li::Maps maps = writable_maps(a.pin_dir);
    if (a.words.size() == 3) {
      maps.reset_dscp(parse_uint(a.words[2], li::kDscpCount - 1, "DSCP"));
    } else {
      for (unsigned d = 0; d < li::kDscpCount; d++)
        maps.reset_dscp(d);
    }
    return kExitOk;
  }
  if (sub == "show") {
    expect_words(a, 2, 2);
    only_options(a, true, false, false);
    auto map = li::Maps::open_pinned(a.pin_dir).dscp_map();
    if (a.json) {
      std::printf("{\"dscp\":[");
      for (unsigned d = 0; d < li::kDscpCount; d++)
        std::printf("%s{\"dscp\":%u,\"prio\":%u,\"default\":%s}",
                    d ? "," : "", d, map[d].prio,
                    map[d].is_default ? "true" : "false");
      std::printf("]}\n");
      return kExitOk;
    }
    std::printf("DSCP->PRIO ('*' = set explicitly, others DSCP>>3)\n");
    for (unsigned d = 0; d < li::kDscpCount; d++)
      std::printf("%2u:%2u%c%s", d, map[d].prio, map[d].is_default ? ' ' : '*',
                  d % 8 == 7 ? "\n" : "   ");
    return kExitOk;
  }
  throw UsageError{"unknown dscp subcommand '" + sub + "' (set, reset, show)"};
}

struct PortView {
  std::uint32_t ifindex;
  std::string name;
  std::optional<std::uint32_t> prog_id;
  std::optional<li::PortConfig> cfg;
  li::CtrlCounters ctrl;
  li::PrioCounters data;
};

PortView view_port(const li::Maps *maps, std::uint32_t ifindex)
{
  PortView v{ifindex, li::ifname_of(ifindex), li::attached_prog_id(ifindex),
             std::nullopt, {}, {}};
  if (maps) {
    v.cfg = maps->port_config(ifindex);
    if (auto c = maps->ctrl_counters(ifindex))
      v.ctrl = *c;
    if (auto d = maps->prio_counters(ifindex))
      v.data = *d;
  }
  return v;
}

void print_json(const std::string &pin_dir, const std::vector<PortView> &ports)
{
  std::ostringstream o;
  o << "{\"pin_dir\":" << json_str(pin_dir) << ",\"ports\":[";
  bool first = true;
  for (const auto &p : ports) {
    li::PortConfig cfg = p.cfg.value_or(li::PortConfig{});
    o << (first ? "" : ",") << "{\"ifindex\":" << p.ifindex
      << ",\"name\":" << (p.name.empty() ? "null" : json_str(p.name))
      << ",\"attached\":" << (p.prog_id ? "true" : "false")
      << ",\"prog_id\":" << (p.prog_id ? std::to_string(*p.prog_id) : "null")
      << ",\"configured\":" << (p.cfg ? "true" : "false")
      << ",\"mode\":" << json_str(std::string(li::mode_name(cfg.mode)))
      << ",\"default_prio\":" << unsigned(cfg.default_prio)
      << ",\"control\":{";
    for (unsigned k = 1; k < LL_CTRL_KIND_COUNT; k++)
      o << json_str(ll_ctrl_kind(k)->name) << ":" << p.ctrl.frames[k] << ",";
    o << "\"dropped\":" << p.ctrl.dropped() << ",\"errors\":{";
    for (unsigned r = 1; r < LL_PARSE_RESULT_COUNT; r++)
      o << (r > 1 ? "," : "")
        << json_str(ll_parse_result_name(static_cast<ll_parse_result>(r)))
        << ":" << p.ctrl.parse_error[r];
    o << "},\"rewrite_failed\":" << p.ctrl.rewrite_failed
      << ",\"redirect_failed\":" << p.ctrl.redirect_failed
      << ",\"portfc_refused\":" << p.ctrl.portfc_refused
      << ",\"portfc_relayed\":" << p.ctrl.portfc_relayed
      << ",\"portfc_relay_failed\":" << p.ctrl.portfc_relay_failed << "}"
      << ",\"priorities\":[";
    for (unsigned pr = 0; pr < li::kPrios; pr++)
      o << (pr ? "," : "") << "{\"prio\":" << pr
        << ",\"packets\":" << p.data.prio[pr].packets
        << ",\"bytes\":" << p.data.prio[pr].bytes << "}";
    o << "]}";
    first = false;
  }
  o << "]}\n";
  std::fputs(o.str().c_str(), stdout);
}

void print_table(const std::vector<PortView> &ports)
{
  if (ports.empty()) {
    std::printf("no ports (nothing attached with these maps)\n");
    return;
  }
  for (const auto &p : ports) {
    li::PortConfig cfg = p.cfg.value_or(li::PortConfig{});
    std::string name = p.name.empty() ? "(ifindex " + std::to_string(p.ifindex) +
                                            ", not in this netns)"
                                      : p.name;
    std::printf("%s  ifindex %u  %s  mode %s%s  default-prio %u\n", name.c_str(),
                p.ifindex,
                p.prog_id ? ("attached (prog " + std::to_string(*p.prog_id) + ")").c_str()
                          : "not attached",
                std::string(li::mode_name(cfg.mode)).c_str(),
                p.cfg ? "" : " (no config: defaults)", cfg.default_prio);
    std::printf("  control frames:");
    for (unsigned k = 1; k < LL_CTRL_KIND_COUNT; k++)
      std::printf(" %s %llu ", ll_ctrl_kind(k)->name, (unsigned long long)p.ctrl.frames[k]);
    std::printf(" dropped %llu\n", (unsigned long long)p.ctrl.dropped());
    if (p.ctrl.dropped()) {
      std::printf("    dropped:");
      for (unsigned r = 1; r < LL_PARSE_RESULT_COUNT; r++)
        if (p.ctrl.parse_error[r])
          std::printf(" %s %llu",
                      ll_parse_result_name(static_cast<ll_parse_result>(r)),
                      (unsigned long long)p.ctrl.parse_error[r]);
      if (p.ctrl.rewrite_failed)
        std::printf(" rewrite-failed %llu",
                    (unsigned long long)p.ctrl.rewrite_failed);
      if (p.ctrl.redirect_failed)
        std::printf(" redirect-failed %llu",
                    (unsigned long long)p.ctrl.redirect_failed);
      if (p.ctrl.portfc_refused)
        std::printf(" portfc-refused %llu",
                    (unsigned long long)p.ctrl.portfc_refused);
      if (p.ctrl.portfc_relayed || p.ctrl.portfc_relay_failed)
        std::printf(" portfc-relayed %llu relay-failed %llu",
                    (unsigned long long)p.ctrl.portfc_relayed,
                    (unsigned long long)p.ctrl.portfc_relay_failed);
      std::printf("\n");
    }
    std::printf("  %-6s %20s %20s\n", "PRIO", "PACKETS", "BYTES");
    for (unsigned pr = 0; pr < li::kPrios; pr++) {
      const li::Counter &c = p.data.prio[pr];
      if (pr >= LOSSLESS_PFC_PRIOS && !c.packets && !c.bytes)
        continue;
      std::printf("  %-6u %20llu %20llu\n", pr, (unsigned long long)c.packets,
                  (unsigned long long)c.bytes);
    }
  }
}

int cmd_show(const Args &a)
{
  expect_words(a, 1, 2);
  only_options(a, true, false, false);
  std::optional<std::uint32_t> only;
  if (a.words.size() == 2)
    only = li::ifindex_of(a.words[1]);

  li::check_bpffs(a.pin_dir);
  std::optional<li::Maps> maps;
  if (li::Maps::pinned(a.pin_dir))
    maps.emplace(li::Maps::open_pinned(a.pin_dir));

  std::vector<PortView> ports;
  if (only) {
    ports.push_back(view_port(maps ? &*maps : nullptr, *only));
  } else if (maps) {
    for (std::uint32_t ifindex : maps->ports())
      ports.push_back(view_port(&*maps, ifindex));
  }
  if (a.json)
    print_json(a.pin_dir, ports);
  else
    print_table(ports);
  return kExitOk;
}

int run(const Args &a)
{
  if (a.words.empty())
    throw UsageError{"no command given"};
  const std::string &cmd = a.words[0];
  if (cmd == "attach")
    return cmd_attach(a);
  if (cmd == "detach")
    return cmd_detach(a);
  if (cmd == "dscp")
    return cmd_dscp(a);
  if (cmd == "show")
    return cmd_show(a);
  if (cmd == "help") {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  throw UsageError{"unknown command '" + cmd + "'"};
}

}  // namespace

int main(int argc, char **argv)
{
  li::set_libbpf_print(false);
  try {
    bool exit_now;
    Args a = parse_args(argc, argv, exit_now);
    if (exit_now)
      return kExitOk;
    if (a.verbose)
      li::set_libbpf_print(true);
    return run(a);
  } catch (const UsageError &e) {
    std::fprintf(stderr,
                 "lossless-ingress: %s\n"
                 "usage: lossless-ingress [--pin-dir DIR] [-v] "
                 "attach|detach|dscp|show ...  (see --help)\n",
                 e.msg.c_str());
    return kExitUsage;
  } catch (const li::Error &e) {
    std::fprintf(stderr, "lossless-ingress: %s\n", e.what());
    if (!e.hint().empty())
      std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
    return kExitError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "lossless-ingress: %s\n", e.what());
    return kExitError;
  }
}
