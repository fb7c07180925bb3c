// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// lossless-cc: attach the hosts' congestion control TC programs (PCN or
// DCQCN) to ports, configure them and show their counters and flows. See
// --help and man/lossless-cc.8.
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cc.h"
#include "cc_json.h"
#include "ll_units.h"

#ifndef LL_VERSION
#define LL_VERSION "unknown"
#endif

namespace {

namespace lc = lossless::cc;
using nlohmann::ordered_json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr std::size_t kFlowsDefault = 10;

const char kHelp[] = R"(NAME
    lossless-cc - host congestion control (PCN or DCQCN) for RoCEv2 flows
                  on lossless Ethernet ports

SYNOPSIS
    lossless-cc [OPTIONS] attach DEV [DEV...]
    lossless-cc [OPTIONS] detach DEV [DEV...]
    lossless-cc [OPTIONS] set --algo pcn|dcqcn|off --line-rate RATE
                [--roles ROLES] [--cnp-prio N] [--cnp-dscp N]
                [PCN or DCQCN parameters]
    lossless-cc [OPTIONS] show [--json] [--flows N]
    lossless-cc [OPTIONS] gc --idle TIME

DESCRIPTION
    Loads the hosts' congestion control TC programs and attaches them to
    the clsact hooks of network ports: ll_cc_ingress on ingress (filter
    pref 2, handle 0x4c43: after lossless-ingress's pref 1) and
    ll_cc_egress on egress (pref 1, handle 0x4c43); the clsact qdisc is
    created if missing. They handle RoCEv2 over IPv4 (UDP port 4791) only;
    everything else passes untouched.

    As the notification point (NP, role np) the ingress program counts
    each received flow's packets and CE marks and, when the algorithm says
    so, sends a CNP back to the flow's sender (PCN: one per period T with
    the receive rate and whether theta % of the period's packets were CE;
    DCQCN: on a CE packet, at most one per cnp-interval). The CNPs leave
    with skb priority cnp-prio and DSCP cnp-dscp.

    As the reaction point (RP, role rp) the ingress program takes the CNPs
    for the flows this host sends (PCN's Algorithm 1 or DCQCN's rate cut)
    and the egress program paces each flow at its rate by giving its
    packets a departure time (EDT): a qdisc that honours skb->tstamp
    (sch_fq, alone or as the child of a lossless class) holds them.

    The configuration, the flows and the counters are in maps pinned in
    the pin directory, shared by every port of the network namespace and
    by every run of this tool. Flows idle long enough are evicted by the
    maps themselves (LRU, 16384 flows each); gc deletes them sooner. Give
    each network namespace its own --pin-dir, and run the tool inside the
    port's namespace with nsenter --net=/run/netns/NS (ip netns exec
    remounts /sys, which hides the bpffs at /sys/fs/bpf).

COMMANDS
    attach DEV [DEV...]
        Load the programs (reusing pinned maps) and attach them to each
        DEV's clsact ingress and egress, replacing a previous attachment
        of this tool. The configuration is not changed: until `set`, the
        algorithm is off and the programs pass everything.

    detach DEV [DEV...]
        Remove the programs from each DEV. The clsact qdisc, other filters,
        the configuration and the flows stay.

    set --algo ALGO --line-rate RATE [OPTIONS]
        Write the configuration used by every attached port: ALGO with each
        parameter not given at its default for RATE (the defaults below).
        --line-rate may be left out with --algo off, which keeps the stored
        parameters. A parameter of the other algorithm is refused.

    show [--json] [--flows N]
        Print the configuration, the ports with the programs attached, the
        counters (CNP parse errors by reason) and, for the NP and the RP
        map, the N flows with the most bytes (10 unless given) and the
        other flows summed: rate (RP: the paced rate; NP: the last PCN
        CNP's receive rate) in Mbit/s, bytes, packets, CE fraction, CNPs.

    gc --idle TIME
        Delete the flows of both maps that saw no packet for TIME.

OPTIONS
    --algo ALGO          pcn, dcqcn or off
    --line-rate RATE     the sender's line rate: a flow's start rate and
                         the bound of every increase
    --roles ROLES        np, rp or np,rp (both; the default)
    --cnp-prio N         skb priority (0-7) of the CNPs sent; default 6
    --cnp-dscp N         DSCP (0-63) of the CNPs sent; default 48 (CS6)
    --min-rate RATE      the lowest rate a flow is cut to; default 1mbit
    --horizon TIME       the RP refuses a packet whose departure would be
                         more than TIME ahead (the socket gets ENOBUFS, as
                         from a full queue), so that a rate cut acts within
                         TIME; 0: never; default 4 control periods (PCN:
                         4 T; DCQCN: 4 rate timers)

  PCN (--algo pcn):
    --period TIME        T, the NP's window and the control period;
                         default 50us
    --theta PCT          a window is congested if at least PCT % (1-100) of
                         its packets are CE; default 95
    --w-min F            the RP's weight after a decrease; default 1/128
    --w-max F            the weight's bound while increasing; default 1/2
    --rp-idle TIME       an RP flow idle this long restarts at line rate;
                         0: never; default 1ms, or 20 T if that is more
    --np-idle TIME       an NP window this old is dropped without a CNP;
                         0: never; default 1ms, or 20 T if that is more

  DCQCN (--algo dcqcn):
    --cnp-interval TIME  at most one CNP per flow per TIME; default 50us
    --rate-timer TIME    the increase timer; default 55us
    --alpha-timer TIME   alpha's decay period; default 55us
    --byte-counter SIZE  an increase every SIZE sent; default 10000000b
    --g F                alpha's gain; default 1/256
    --f N                fast recovery stages (1-64); default 5
    --rai RATE           additive increase step; default 5mbit
    --rhai RATE          hyper increase step; default 50mbit

  Others:
    --json               show: machine-readable output (one JSON object)
    --flows N            show: how many flows of each map to list
    --idle TIME          gc: the idle time after which a flow is deleted
    --pin-dir DIR        where the maps are pinned, on a bpffs mount;
                         default /sys/fs/bpf/lossless_cc
    -v, --verbose        print libbpf's debug messages (verifier logs)
    -h, --help           print this help
    -V, --version        print the version

  Units, as in tc-lossless(8): RATE in bit, kbit, mbit, gbit, tbit (10gbit,
  25gbit), a whole number of kbit/s; TIME with a unit ns, us, ms or s
  (50us); SIZE in b, kb, mb, gb (powers of 1024); F a fraction above 0 and
  at most 1, as NUM/DEN (1/128) or a decimal (0.0078125), kept in 24 bits
  of fraction; PCT a whole percentage (95 or 95%).

FILES
    /sys/fs/bpf/lossless_cc/ll_cc_cfg    the configuration (array of 1)
    /sys/fs/bpf/lossless_cc/ll_cc_np     flows received (NP)
    /sys/fs/bpf/lossless_cc/ll_cc_rp     flows sent (RP)
    /sys/fs/bpf/lossless_cc/ll_cc_stats  counters (per-CPU array)
    The layouts are in bpf/lossless_cc.h of the source tree.
    losslessd(8) runs the same programs from its [host_cc] table (the same
    parameters with _ for -, the same maps), with gc and telemetry.

EXIT STATUS
    0 on success, 1 on errors (a bad value, not root, unknown device, no
    bpffs, BPF or netlink failures), 2 on usage errors.

EXAMPLES
    lossless-cc attach eth0
    lossless-cc set --algo pcn --line-rate 25gbit
    lossless-cc set --algo dcqcn --line-rate 10gbit --g 1/16 --rai 10mbit
    lossless-cc show --flows 5
    lossless-cc gc --idle 10s
    lossless-cc detach eth0

SEE ALSO
    lossless-ingress(8), tc-lossless(8), tc-fq(8), tc-bpf(8), bpftool(8),
    losslessd(8)
)";

struct UsageError {
  std::string msg;
};

// A value the user gave that cannot be used: exit 1, naming it.
struct ValueError {
  std::string msg;
};

// Value options: name -> which commands take it and which algorithm.
enum Scope : unsigned {
  kSet = 1,      // set, any algorithm
  kPcn = 2,      // set --algo pcn
  kDcqcn = 4,    // set --algo dcqcn
  kShow = 8,
  kGc = 16,
};

struct OptSpec {
  const char *name;  // without "--"
  unsigned scope;
};

// The parameters of set are ll_cc's (cc_params.h: their names and
// algorithms; ParamScope's bits are kSet, kPcn and kDcqcn); the others
// are this tool's.
static_assert(unsigned(lc::kParamAny) == unsigned(kSet) && unsigned(lc::kParamPcn) == unsigned(kPcn) &&
              unsigned(lc::kParamDcqcn) == unsigned(kDcqcn));

const std::vector<OptSpec> &value_opts()
{
  static const std::vector<OptSpec> opts = [] {
    std::vector<OptSpec> v = {{"algo", kSet}, {"line-rate", kSet}};
    for (const lc::ParamSpec &p : lc::params())
      v.push_back({p.name, p.scope});
    v.push_back({"flows", kShow});
    v.push_back({"idle", kGc});
    return v;
  }();
  return opts;
}

const OptSpec *find_opt(const std::string &name)
{
  for (const OptSpec &o : value_opts())
    if (name == o.name)
      return &o;
  return nullptr;
}

struct Args {
  std::string pin_dir = lc::kDefaultPinDir;
  bool verbose = false;
  bool json = false;
  // Value options in the order given (the last one of a name wins).
  std::map<std::string, std::string> values;
  std::vector<std::string> order;
  std::vector<std::string> words;  // command and its operands

  const std::string *get(const std::string &name) const
  {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
  }
};

Args parse_args(int argc, char **argv, bool &exit_now)
{
  Args a;
  exit_now = false;
  bool opts_done = false;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    if (opts_done || arg.empty() || arg[0] != '-' || arg == "-") {
      a.words.push_back(arg);
      continue;
    }
    if (arg == "--") {
      opts_done = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kHelp, stdout);
      exit_now = true;
      return a;
    }
    if (arg == "-V" || arg == "--version") {
      std::printf("lossless-cc %s\n", LL_VERSION);
      exit_now = true;
      return a;
    }
    if (arg == "-v" || arg == "--verbose") {
      a.verbose = true;
      continue;
    }
    if (arg == "--json") {
      a.json = true;
      continue;
    }
    // --name VALUE or --name=VALUE
    std::string name = arg.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    bool pin = name == "pin-dir";
    if (arg.rfind("--", 0) != 0 || (!pin && !find_opt(name)))
      throw UsageError{"unknown option '" + arg + "'"};
    if (!inline_value) {
      if (i + 1 >= argc)
        throw UsageError{"--" + name + " needs a value"};
      value = argv[++i];
    }
    if (pin) {
      a.pin_dir = value;
      while (a.pin_dir.size() > 1 && a.pin_dir.back() == '/')
        a.pin_dir.pop_back();
      if (a.pin_dir.empty() || a.pin_dir[0] != '/')
        throw UsageError{"--pin-dir needs an absolute path, not '" + value +
                         "'"};
      continue;
    }
    if (!a.values.count(name))
      a.order.push_back(name);
    a.values[name] = value;
  }
  return a;
}

// The value options given must all be in scope.
void only_options(const Args &a, unsigned scope, bool json)
{
  if (a.json && !json)
    throw UsageError{"--json does not apply to '" + a.words[0] + "'"};
  for (const std::string &name : a.order) {
    const OptSpec *o = find_opt(name);
    if (o->scope & scope)
      continue;
    std::string where = o->scope == kPcn     ? "'set --algo pcn'"
                        : o->scope == kDcqcn ? "'set --algo dcqcn'"
                        : o->scope & (kPcn | kDcqcn)
                            ? "'set --algo pcn' and 'set --algo dcqcn'"
                        : o->scope == kSet  ? "'set'"
                        : o->scope == kShow ? "'show'"
                                            : "'gc'";
    throw UsageError{"--" + name + " only applies to " + where};
  }
}

// ------------------------------------------------------------ values

[[noreturn]] void bad_value(const std::string &opt, const std::string &value,
                            const std::string &why)
{
  throw ValueError{"--" + opt + " '" + value + "': " + why};
}

std::uint64_t parse_uint(const std::string &opt, const std::string &s,
                         std::uint64_t max)
{
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos ||
      s.size() > 18)
    bad_value(opt, s, "not a whole number");
  std::uint64_t v = std::stoull(s);
  if (v > max)
    bad_value(opt, s, "must be 0 .. " + std::to_string(max));
  return v;
}

// The parameters' values are ll_cc's (cc_params.h): one parser for this
// tool and losslessd's [host_cc].
std::uint64_t parse_rate_kbps(const std::string &opt, const std::string &s)
{
  std::uint64_t kbps = 0;
  if (std::string why = lc::parse_rate_kbps(s, kbps); !why.empty())
    bad_value(opt, s, why);
  return kbps;
}

std::uint64_t parse_time_ns(const std::string &opt, const std::string &s,
                            bool zero_ok)
{
  std::uint64_t ns = 0;
  if (std::string why = lc::parse_time_ns(s, zero_ok, ns); !why.empty())
    bad_value(opt, s, why);
  return ns;
}

// ------------------------------------------------------------ texts

using lc::q24_text;
using lc::rate_text;
using lc::time_text;

// ------------------------------------------------------------ commands

void expect_words(const Args &a, std::size_t min, std::size_t max)
{
  if (a.words.size() < min)
    throw UsageError{"'" + a.words[0] + "' needs more arguments"};
  if (a.words.size() > max)
    throw UsageError{"unexpected argument '" + a.words[max] + "'"};
}

int cmd_attach(const Args &a)
{
  expect_words(a, 2, SIZE_MAX);
  only_options(a, 0, false);
  std::vector<std::uint32_t> ports;
  for (std::size_t i = 1; i < a.words.size(); i++)
    ports.push_back(lc::ifindex_of(a.words[i]));  // all known before loading
  lc::Program::Options opts;
  opts.pin_dir = a.pin_dir;
  lc::Program prog = lc::Program::load(opts);
  std::string algo(lc::algo_name(prog.maps().config().algo));
  for (std::size_t i = 0; i < ports.size(); i++) {
    lc::Attached ids = prog.attach(ports[i]);
    std::printf("%s: attached lossless cc (ingress prog %u, egress prog %u), "
                "algo %s%s, maps in %s\n",
                a.words[i + 1].c_str(), *ids.ingress, *ids.egress,
                algo.c_str(),
                algo == "off" ? " (passing everything until `lossless-cc set`)" : "",
                a.pin_dir.c_str());
  }
  return kExitOk;
}

int cmd_detach(const Args &a)
{
  expect_words(a, 2, SIZE_MAX);
  only_options(a, 0, false);
  std::vector<std::uint32_t> ports;
  for (std::size_t i = 1; i < a.words.size(); i++)
    ports.push_back(lc::ifindex_of(a.words[i]));
  for (std::size_t i = 0; i < ports.size(); i++) {
    lc::detach(ports[i]);
    std::printf("%s: detached\n", a.words[i + 1].c_str());
  }
  return kExitOk;
}

// Maps for writing: the pinned ones, created (without the programs) if
// this is the first use of the pin directory.
lc::Maps writable_maps(const std::string &pin_dir)
{
  lc::check_bpffs(pin_dir);
  if (lc::Maps::pinned(pin_dir))
    return lc::Maps::open_pinned(pin_dir);
  lc::Program::Options opts;
  opts.pin_dir = pin_dir;
  opts.load_program = false;
  return std::move(lc::Program::load(opts).maps());
}

// The options a check() message names ("pcn-w-min must be at most
// pcn-w-max" -> w-min, w-max), as "--w-min '1/2'" (or "(default)").
std::string named_options(const Args &a, const std::string &msg)
{
  std::vector<std::string> names = lc::check_names(msg);
  std::string out;
  for (const std::string &n : names) {
    if (!out.empty())
      out += ", ";
    const std::string *v = a.get(n);
    out += "--" + n + (v ? " '" + *v + "'" : " (default)");
  }
  return out;
}

int cmd_set(const Args &a)
{
  expect_words(a, 1, 1);
  const std::string *algo_text = a.get("algo");
  if (!algo_text)
    throw UsageError{"'set' needs --algo pcn|dcqcn|off"};
  std::optional<lc::Algo> algo = lc::parse_algo(*algo_text);
  if (!algo)
    throw UsageError{"unknown --algo '" + *algo_text + "' (pcn, dcqcn or off)"};
  unsigned scope = kSet;
  if (*algo == lc::Algo::Pcn)
    scope |= kPcn;
  else if (*algo == lc::Algo::Dcqcn)
    scope |= kDcqcn;
  only_options(a, scope, false);
  const std::string *line = a.get("line-rate");
  if (!line && *algo != lc::Algo::Off)
    throw UsageError{"'set --algo " + *algo_text + "' needs --line-rate RATE"};

  lc::Maps maps = writable_maps(a.pin_dir);
  lc::Config cfg;
  if (line) {
    cfg = lc::Config::defaults(*algo, parse_rate_kbps("line-rate", *line));
  } else {
    cfg = maps.config();  // off: keep the parameters for later
    cfg.algo = *algo;
  }
  lc::Overrides o;
  for (const std::string &name : a.order) {
    if (name == "algo" || name == "line-rate")
      continue;
    const std::string &v = *a.get(name);
    if (std::string why = lc::parse_param(name, v, o); !why.empty())
      bad_value(name, v, why);
  }
  lc::apply(cfg, o);
  std::string msg = lc::check(cfg);
  if (!msg.empty()) {
    std::string opts = named_options(a, msg);
    throw ValueError{(opts.empty() ? "" : opts + ": ") + msg};
  }
  maps.set_config(cfg);
  std::printf("congestion control %s", std::string(lc::algo_name(cfg.algo)).c_str());
  if (cfg.algo != lc::Algo::Off)
    std::printf(" at line rate %s, roles %s, CNPs prio %u dscp %u",
                rate_text(cfg.line_rate_kbps()).c_str(),
                lc::roles_text(cfg.roles).c_str(), cfg.cnp_prio, cfg.cnp_dscp);
  std::printf(" (maps in %s)\n", a.pin_dir.c_str());
  return kExitOk;
}

int cmd_gc(const Args &a)
{
  expect_words(a, 1, 1);
  only_options(a, kGc, false);
  const std::string *idle = a.get("idle");
  if (!idle)
    throw UsageError{"'gc' needs --idle TIME"};
  std::uint64_t idle_ns = parse_time_ns("idle", *idle, true);
  lc::Maps maps = lc::Maps::open_pinned(a.pin_dir);
  lc::GcResult r = maps.gc(idle_ns, lc::monotonic_ns());
  std::printf("deleted %llu of %llu NP flows and %llu of %llu RP flows idle "
              "for more than %s\n",
              (unsigned long long)r.np_deleted,
              (unsigned long long)(r.np_deleted + r.np_kept),
              (unsigned long long)r.rp_deleted,
              (unsigned long long)(r.rp_deleted + r.rp_kept),
              time_text(idle_ns).c_str());
  return kExitOk;
}

// ------------------------------------------------------------ show

struct Port {
  std::uint32_t ifindex;
  std::string name;
  lc::Attached ids;
};

// Every device of this network namespace with a filter of ours.
std::vector<Port> attached_ports()
{
  std::vector<Port> out;
  struct if_nameindex *list = if_nameindex();
  if (!list)
    return out;
  for (struct if_nameindex *p = list; p->if_index; p++) {
    lc::Attached ids = lc::attached(p->if_index);
    if (ids.any())
      out.push_back(Port{p->if_index, p->if_name, ids});
  }
  if_freenameindex(list);
  return out;
}

// The JSON layouts and the counters' names are ll_cc's (cc_json.h), shared
// with losslessd's status.
using lc::ce_fraction;
using lc::config_json;
using lc::counters;
using lc::top_json;

void print_config(const lc::Config &c)
{
  std::printf("algo %s", std::string(lc::algo_name(c.algo)).c_str());
  if (c.algo == lc::Algo::Off) {
    std::printf(" (the programs pass everything)\n");
    return;
  }
  std::printf("  roles %s  line-rate %s  cnp-prio %u  cnp-dscp %u  horizon %s\n",
              lc::roles_text(c.roles).c_str(),
              rate_text(c.line_rate_kbps()).c_str(), c.cnp_prio, c.cnp_dscp,
              c.rp_horizon_ns ? time_text(c.rp_horizon_ns).c_str() : "none");
  if (c.algo == lc::Algo::Pcn) {
    const ll_pcn_params &p = c.pcn;
    std::printf("  period %s  theta %u%%  w-min %s  w-max %s  min-rate %s  "
                "rp-idle %s  np-idle %s\n",
                time_text(p.period_ns).c_str(), p.theta_pct,
                q24_text(p.w_min_q24).c_str(), q24_text(p.w_max_q24).c_str(),
                rate_text(p.min_rate_kbps).c_str(),
                time_text(p.rp_idle_ns).c_str(),
                time_text(p.np_idle_ns).c_str());
  } else {
    const ll_dcqcn_params &p = c.dcqcn;
    std::printf("  cnp-interval %s  rate-timer %s  alpha-timer %s  "
                "byte-counter %llub  g %s  f %u\n  rai %s  rhai %s  "
                "min-rate %s\n",
                time_text(p.cnp_interval_ns).c_str(),
                time_text(p.rate_timer_ns).c_str(),
                time_text(p.alpha_timer_ns).c_str(),
                (unsigned long long)p.byte_counter_bytes,
                q24_text(p.g_q24).c_str(), p.f_stages,
                rate_text(p.rai_kbps).c_str(), rate_text(p.rhai_kbps).c_str(),
                rate_text(p.min_rate_kbps).c_str());
  }
}

void print_flows(const char *title, const lc::TopView &v, bool np)
{
  std::printf("%s: %llu flow%s\n", title, (unsigned long long)v.total_flows,
              v.total_flows == 1 ? "" : "s");
  if (!v.total_flows)
    return;
  std::printf("  %-43s %12s %16s %12s %7s %10s\n", "FLOW",
              np ? "RECRATE-MBPS" : "RATE-MBPS", "BYTES", "PKTS",
              np ? "CE" : "", "CNPS");
  auto line = [&](const std::string &name, const lc::FlowSummary &f) {
    char ce[16] = "";
    if (np)
      std::snprintf(ce, sizeof(ce), "%.3f", ce_fraction(f));
    std::printf("  %-43s %12.3f %16llu %12llu %7s %10llu\n", name.c_str(),
                double(f.rate_kbps) / 1000.0, (unsigned long long)f.bytes,
                (unsigned long long)f.pkts, ce, (unsigned long long)f.cnps);
  };
  for (const auto &f : v.top)
    line(lc::flow_text(f.key), f);
  if (v.rest.flows)
    line("(" + std::to_string(v.rest.flows) + " other flow" +
             (v.rest.flows == 1 ? ")" : "s)"),
         v.rest);
}

int cmd_show(const Args &a)
{
  expect_words(a, 1, 1);
  only_options(a, kShow, true);
  std::size_t n = kFlowsDefault;
  if (const std::string *f = a.get("flows"))
    n = parse_uint("flows", *f, 1000000);
  lc::Maps maps = lc::Maps::open_pinned(a.pin_dir);
  lc::Config cfg = maps.config();
  lc::Stats st = maps.stats();
  std::vector<lc::FlowSummary> np, rp;
  for (const auto &f : maps.np_flows())
    np.push_back(lc::summary(f));
  for (const auto &f : maps.rp_flows())
    rp.push_back(lc::summary(f));
  lc::TopView npv = lc::top(std::move(np), n), rpv = lc::top(std::move(rp), n);
  std::vector<Port> ports = attached_ports();

  if (a.json) {
    ordered_json j;
    j["pin_dir"] = a.pin_dir;
    j["config"] = config_json(cfg);
    j["ports"] = ordered_json::array();
    for (const Port &p : ports) {
      ordered_json pj;
      pj["name"] = p.name;
      pj["ifindex"] = p.ifindex;
      pj["ingress_prog_id"] = p.ids.ingress ? ordered_json(*p.ids.ingress) : ordered_json();
      pj["egress_prog_id"] = p.ids.egress ? ordered_json(*p.ids.egress) : ordered_json();
      j["ports"].push_back(pj);
    }
    j["counters"] = lc::counters_json(st);
    j["np_flows"] = top_json(npv, true);
    j["rp_flows"] = top_json(rpv, false);
    std::printf("%s\n", j.dump().c_str());
    return kExitOk;
  }

  print_config(cfg);
  if (ports.empty()) {
    std::printf("ports: none attached in this network namespace\n");
  } else {
    std::printf("ports:");
    for (const Port &p : ports)
      std::printf(" %s%s", p.name.c_str(), p.ids.both() ? "" : " (partly)");
    std::printf("\n");
  }
  std::printf("counters:\n");
  int col = 0;
  for (const auto &[name, v] : counters(st)) {
    std::printf("  %-18s %14llu%s", name, (unsigned long long)v,
                ++col % 3 ? "" : "\n");
  }
  if (col % 3)
    std::printf("\n");
  std::uint64_t errs = 0;
  for (unsigned r = 1; r < LL_CNP_RESULT_COUNT; r++)
    errs += st.cnp_parse_error[r];
  std::printf("  cnp parse errors %llu", (unsigned long long)errs);
  for (unsigned r = 1; r < LL_CNP_RESULT_COUNT; r++)
    if (st.cnp_parse_error[r])
      std::printf("  %s %llu", ll_cnp_result_name(static_cast<ll_cnp_result>(r)),
                  (unsigned long long)st.cnp_parse_error[r]);
  std::printf("\n");
  print_flows("NP flows (received)", npv, true);
  print_flows("RP flows (sent)", rpv, false);
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
  if (cmd == "set")
    return cmd_set(a);
  if (cmd == "show")
    return cmd_show(a);
  if (cmd == "gc")
    return cmd_gc(a);
  if (cmd == "help") {
    std::fputs(kHelp, stdout);
    return kExitOk;
  }
  throw UsageError{"unknown command '" + cmd + "'"};
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
                 "lossless-cc: %s\n"
                 "usage: lossless-cc [--pin-dir DIR] [-v] "
                 "attach|detach|set|show|gc ...  (see --help)\n",
                 e.msg.c_str());
    return kExitUsage;
  } catch (const ValueError &e) {
    std::fprintf(stderr, "lossless-cc: %s\n", e.msg.c_str());
    return kExitError;
  } catch (const lc::Error &e) {
    std::fprintf(stderr, "lossless-cc: %s\n", e.what());
    if (!e.hint().empty())
      std::fprintf(stderr, "hint: %s\n", e.hint().c_str());
    return kExitError;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "lossless-cc: %s\n", e.what());
    return kExitError;
  }
}
