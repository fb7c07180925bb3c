// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_cc_params: the parameters of the hosts' congestion control (PCN or
// DCQCN, docs/PCN.md) without BPF: the algorithm and roles, struct
// Config (what ll_cc_config holds), its defaults for a line rate, its
// check, and the one parser of the parameters' values, with the derived
// defaults (idle times from T, the horizon from the control period).
// lossless-cc's options and losslessd's [host_cc] keys both go through
// it (`w-min` on the command line is `w_min` in the file): one set of
// spellings, units, defaults and checks.
//
// Pure: no BPF, no device, no clock. ll_cc (cc.h) adds the programs and
// the maps; the configuration loader (daemon/config) links this alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lossless_cc.h"  // bpf/: ll_cc_config's constants (pulls pcn.h, dcqcn.h)

namespace lossless::cc {

inline constexpr const char *kDefaultPinDir = "/sys/fs/bpf/lossless_cc";
// The CNPs' class unless configured: DSCP 48 (CS6) and priority 6, the
// usual RoCE NIC defaults (a class of its own, not a lossless one).
inline constexpr std::uint8_t kCnpPrioDefault = 6;
inline constexpr std::uint8_t kCnpDscpDefault = 48;
inline constexpr std::uint8_t kRolesBoth = LL_CC_ROLE_NP | LL_CC_ROLE_RP;

enum class Algo : std::uint8_t {
  Off = LL_CC_OFF,
  Pcn = LL_CC_PCN,
  Dcqcn = LL_CC_DCQCN,
};
std::string_view algo_name(Algo a);  // "off", "pcn", "dcqcn"
std::optional<Algo> parse_algo(std::string_view name);

// LL_CC_ROLE_* as text: "np", "rp", "np,rp"; "none" for 0.
std::string roles_text(std::uint8_t roles);
// "np", "rp", "np,rp", "rp,np", "both"; nullopt for anything else.
std::optional<std::uint8_t> parse_roles(std::string_view text);

// What ll_cc_cfg holds. Both parameter sets are kept (and written); the
// programs use the one of algo.
inline constexpr std::uint64_t kHorizonPeriods = 4;

struct Config {
  Algo algo = Algo::Off;
  std::uint8_t roles = kRolesBoth;
  std::uint8_t cnp_prio = kCnpPrioDefault;  // 0..7
  std::uint8_t cnp_dscp = kCnpDscpDefault;  // 0..63
  ll_pcn_params pcn{};
  ll_dcqcn_params dcqcn{};
  // The RP's horizon (ll_cc_config.rp_horizon_ns): packets stamped more
  // than this ahead are refused. 0: none.
  std::uint64_t rp_horizon_ns = 0;

  // algo with every parameter at the core's default for a sender at
  // line_rate_kbps (ll_pcn_params_default, ll_dcqcn_params_default), the
  // horizon at default_horizon_ns().
  static Config defaults(Algo algo, std::uint64_t line_rate_kbps);
  // kHorizonPeriods control periods of algo: PCN's T, DCQCN's rate timer
  // (0 for off). A rate cut then acts within a few periods.
  std::uint64_t default_horizon_ns() const;
  // The line rate of algo's parameters (0 for off).
  std::uint64_t line_rate_kbps() const;
  bool operator==(const Config &o) const;
};

// "" if cfg is valid, else a message naming the parameter at fault (the
// core's ll_pcn_check / ll_dcqcn_check for the algorithm's parameters:
// "pcn-period (T) must be above 0 ..."). Off is always valid: the programs
// read nothing but algo then (an all-zero config is off).
std::string check(const Config &cfg);


// ------------------------------------------------------------ parameters
//
// The parameters a user gives (lossless-cc set's options, [host_cc]'s
// keys), by their option name ("w-min"; the file's key is "w_min").

enum ParamScope : unsigned {
  kParamAny = 1,    // any algorithm: roles, cnp-prio, cnp-dscp
  kParamPcn = 2,    // PCN's
  kParamDcqcn = 4,  // DCQCN's
};

struct ParamSpec {
  const char *name;  // option name, without "--"
  unsigned scope;    // ParamScope bits
};

// Every parameter but algo and line-rate, in lossless-cc's --help order.
const std::vector<ParamSpec> &params();
const ParamSpec *find_param(std::string_view name);

// The values given, each parsed; the others take their defaults.
struct Overrides {
  std::optional<std::uint8_t> roles, cnp_prio, cnp_dscp;
  std::optional<std::uint64_t> min_rate_kbps, horizon_ns;
  // PCN
  std::optional<std::uint64_t> period_ns, rp_idle_ns, np_idle_ns;
  std::optional<std::uint32_t> theta_pct, w_min_q24, w_max_q24;
  // DCQCN
  std::optional<std::uint64_t> cnp_interval_ns, rate_timer_ns, alpha_timer_ns,
      byte_counter_bytes, rai_kbps, rhai_kbps;
  std::optional<std::uint32_t> g_q24, f_stages;
};

// Parses value as parameter name (find_param's, or "line-rate") into o
// (line-rate: into *line_rate_kbps). "" on success, else why the value is
// refused, without the name ("not a whole number", "must be 0 .. 7").
// The ranges that depend on other parameters are check()'s.
std::string parse_param(std::string_view name, const std::string &value,
                        Overrides &o, std::uint64_t *line_rate_kbps = nullptr);

// The values' parsers on their own (the same words as parse_param's).
std::string parse_rate_kbps(const std::string &s, std::uint64_t &kbps);
std::string parse_time_ns(const std::string &s, bool zero_ok, std::uint64_t &ns);

// Writes the values given into cfg, then the derived defaults of those not
// given: with a period given, rp-idle and np-idle at LL_PCN_IDLE_NS_DEFAULT
// (1 ms) or 20 T if that is more, so that they stay above T; the horizon
// at cfg.default_horizon_ns() (kHorizonPeriods control periods).
void apply(Config &cfg, const Overrides &o);

// Config::defaults(algo, line_rate_kbps) with o applied: what `lossless-cc
// set` writes and what losslessd derives for [host_cc]. Not checked.
Config derive(Algo algo, std::uint64_t line_rate_kbps, const Overrides &o);

// The parameters a check() message names ("pcn-w-min must be at most
// pcn-w-max" -> w-min, w-max; "line-rate" too), by option name, in order.
std::vector<std::string> check_names(const std::string &msg);

// Values as the options write them: 25gbit, 50us, 1/128.
std::string rate_text(std::uint64_t kbps);
std::string time_text(std::uint64_t ns);
std::string q24_text(std::uint32_t q);

}  // namespace lossless::cc
