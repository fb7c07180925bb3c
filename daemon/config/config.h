// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_config: losslessd's configuration file (TOML; docs/DAEMON.md,
// "Configuration file") as a plain struct tree.
//
// The values use the vocabulary of the tc options (docs/CONFIGURATION.md)
// and are parsed by the same code as the tc plugin: sizes, times, rates,
// probabilities, alphas, priorities and pool names by
// daemon/common/ll_units.c. The pool's options (their keys, ranges and
// defaults) are the rows of daemon/common/ll_params.c, the tc plugin's
// table too. Every number in the result is an integer with its unit in
// the field name (_bytes, _ns, _bps); alpha is the kernel's num << 8 |
// shift, an ECN probability is in 1/65536 units.
//
// Parsing is pure: no device, no sysfs, no clock. What depends on the
// running system (a port's link speed when rate is "auto", its MTU when
// mtu is absent, reserved and xon_offset defaults in MTUs) is left unset
// (std::nullopt) for the daemon to resolve.
//
// Errors: parse_file and parse_string check the whole file and throw one
// ConfigError holding every error, each naming the file, the line and the
// key ("losslessd.toml:14: pool "sw0": alpha "1/3": ..."), sorted by line.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cc_params.h"
#include "mode_policy.h"

#include "ll_params.h"
#include "lossless.h"

namespace lossless::config {

// The default of a row of the pool's parameter table (ll_params.h).
inline std::uint64_t param_default(ll_param_id id)
{
  return ll_params[id].def;
}

inline constexpr const char *kDefaultPath = "/etc/lossless/losslessd.toml";

// A position in the file: line and column from 1; 0 when the message is
// about the whole file.
struct Diagnostic {
  std::string file;
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  std::string message;  // without the "file:line: " prefix
  // "file:line: message", or "file: message" when line is 0.
  std::string str() const;
};

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> errors);
  // what(): every error's str(), one per line, no trailing newline.
  const std::vector<Diagnostic> &diagnostics() const { return errors_; }
  // Every error's str(), in the order of what().
  std::vector<std::string> errors() const;

 private:
  std::vector<Diagnostic> errors_;
};

// The classification modes of the ingress BPF program; the values are
// bpf/lossless_ingress.h's LL_INGRESS_MODE_*.
enum class IngressMode : std::uint8_t { PcpDscp = 0, Pcp = 1, Dscp = 2 };
std::string_view ingress_mode_name(IngressMode m);  // "pcp-dscp", "pcp", "dscp"

// [daemon].prometheus: a numeric IP address of this host and a port.
struct Endpoint {
  std::string address;  // "127.0.0.1" or "::1" (no brackets)
  std::uint16_t port = 0;
  bool ipv6 = false;
  bool loopback = false;  // 127.0.0.0/8 or ::1
};

struct Daemon {
  std::string pin_dir = "/sys/fs/bpf/lossless";
  std::string socket = "/run/lossless/losslessd.sock";
  std::uint64_t period_ns = 1000000;
  std::optional<Endpoint> prometheus;  // nullopt: off
};

// pool.ecn: RED marking on the egress queues.
struct Ecn {
  std::uint32_t kmin_bytes = 0;
  std::uint32_t kmax_bytes = 0;
  std::uint32_t pmax = 0;  // 1/65536 units: 0.2 -> 13107, 1 -> 65536
};

// The PFC watchdog of a port (tc's pfcwd options; docs/WATCHDOG.md): the
// keys pfcwd, pfcwd-detect, pfcwd-restore, pfcwd-poll and xoff-alarm of a
// [[pool]] for the pool's ports, of a [[port]] over them for one port.
// The actions are the kernel's LOSSLESS_WD_* values.
enum class WatchdogAction : std::uint8_t { Off = 0, Alert = 1, Forward = 2, Drop = 3 };
std::string_view watchdog_action_name(WatchdogAction a);  // "off", "alert", "forward", "drop"

struct Watchdog {
  WatchdogAction action = WatchdogAction::Off;             // pfcwd
  std::uint64_t detect_ns = LOSSLESS_WD_DETECT_DEFAULT_NS;    // pfcwd-detect
  std::uint64_t restore_ns = LOSSLESS_WD_RESTORE_DEFAULT_NS;  // pfcwd-restore
  std::uint64_t poll_ns = LOSSLESS_WD_POLL_DEFAULT_NS;        // pfcwd-poll
  std::uint64_t xoff_alarm_ns = 0;                            // xoff-alarm; 0: off
  bool operator==(const Watchdog &) const = default;
};

struct Pool {
  std::string name;
  std::uint32_t line = 0;  // of its [[pool]] header
  std::string policy;      // "pfc-dt"; default: the scheme's (registry.h)
  std::string scheme = "dt";  // the datapath scheme (docs/SCHEMES.md)
  // The scheme's id and parameters: its [pool.<scheme>] table over the
  // defaults of policy/registry.h's rows.
  lossless_plane_scheme scheme_block{};
  std::uint64_t buffer_bytes = param_default(LL_P_BUFFER);
  // bit p: priority p
  std::uint8_t lossless_mask = static_cast<std::uint8_t>(param_default(LL_P_LOSSLESS_PRIOS));
  std::uint32_t alpha = static_cast<std::uint32_t>(param_default(LL_P_ALPHA));
  std::uint32_t egress_alpha = static_cast<std::uint32_t>(param_default(LL_P_EGRESS_ALPHA));
  // nullopt: the rows' MTUs (1 for reserved, 2 for xon_offset) of the
  // pool's first port, where the MTU is the device MTU + link header +
  // VLAN tag, as tc.
  std::optional<std::uint32_t> reserved_bytes;
  std::optional<std::uint32_t> xon_offset_bytes;
  std::uint64_t sw_delay_ns = param_default(LL_P_SW_DELAY);
  std::optional<Ecn> ecn;  // nullopt: off
  std::uint8_t ecn_mode = LOSSLESS_ECN_MODE_RED;  // or _NP_ECN (needs ecn off)
  std::uint32_t np_ecn_k_bytes = 0;  // NP-ECN's K (0: the paper's)
  // Its watchdog keys over the defaults; nullopt: it gives none.
  std::optional<Watchdog> watchdog;
};

struct Port {
  std::string dev;
  std::uint32_t line = 0;  // of its [[port]] header
  std::string pool;        // names a Pool of Config::pools
  std::optional<std::uint64_t> rate_bps;  // nullopt: the device's speed
  std::uint64_t cable_delay_ns = param_default(LL_P_CABLE_DELAY);  // cable-delay or cable-length
  std::optional<std::uint64_t> sw_delay_ns;  // over the pool's; nullopt: the pool's
  std::optional<std::uint32_t> mtu_bytes;  // the device MTU; nullopt: the device's
  std::uint8_t queues = 8;
  // 0: computed
  std::uint32_t headroom_bytes = static_cast<std::uint32_t>(param_default(LL_P_HEADROOM));
  std::optional<std::uint8_t> scheme_port;  // its number in the pool's scheme
  // The qdisc's own options (tc's of the same names); nullopt / empty:
  // the qdisc's default.
  std::optional<std::uint8_t> strict;
  std::vector<std::uint32_t> quanta_bytes;  // one per queue, from queue 0
  std::vector<std::uint8_t> priomap;        // skb->priority 0.. -> queue
  std::optional<std::uint32_t> limit_packets, burst_bytes, catchup_bytes;
  IngressMode ingress = IngressMode::PcpDscp;
  std::uint8_t default_prio = 0;
  // The port's watchdog: the defaults, its pool's watchdog keys, then its
  // own. nullopt when neither gives one: the daemon leaves the qdisc's
  // watchdog as it is.
  std::optional<Watchdog> watchdog;
  // Its mode (`mode = "bifrost"` and the mode's keys, mode_policy.h);
  // nullopt: no `mode` key, the daemon leaves the port's mode alone.
  std::optional<lossless::policy::ModeSetting> mode;
};

// [host_cc]: the hosts' congestion control (daemon/cc, docs/DAEMON.md
// "Host congestion control"). Its parameters are lossless-cc's options,
// spelled the same (w-min for --w-min), parsed and checked by ll_cc's
// parameter code (cc_params.h).
struct HostCcKey {
  std::string key;   // "w-min"
  std::string text;  // its value as written ("1/128"), for messages
  std::uint32_t line = 0;
};

inline constexpr std::uint64_t kHostCcGcIdleDefaultNs = 10000000000ULL;  // 10 s
inline constexpr std::uint32_t kHostCcTopFlowsDefault = 10;
inline constexpr std::uint32_t kHostCcTopFlowsMax = 1000;

struct HostCc {
  std::uint32_t line = 0;  // of its [host_cc] header
  lossless::cc::Algo algo = lossless::cc::Algo::Pcn;
  std::vector<std::string> ports;  // the devices to attach to
  // nullopt: "auto", the lowest link speed of the ports (the daemon's).
  std::optional<std::uint64_t> line_rate_kbps;
  std::uint32_t line_rate_line = 0;
  lossless::cc::Overrides overrides;  // the parameters given
  std::vector<HostCcKey> given;       // the same, as written
  std::uint64_t gc_idle_ns = kHostCcGcIdleDefaultNs;  // 0: no gc
  std::string pin_dir = lossless::cc::kDefaultPinDir;
  std::uint32_t top_flows = kHostCcTopFlowsDefault;
  // The derived and checked parameters when line_rate is a rate; nullopt
  // for "auto" until the daemon knows the link speed (host_cc_params()).
  std::optional<lossless::cc::Config> params;
};

// h's parameters at line_rate_kbps: cc::derive(), then cc::check(). ""
// and *out set, or the check's message prefixed by the keys it names as
// written (w_min "1/2", w_max (the default): pcn-w-min must be ...);
// *line the line of the first of them given (else 0).
std::string host_cc_params(const HostCc &h, std::uint64_t line_rate_kbps,
                           lossless::cc::Config *out, std::uint32_t *line = nullptr);

// [portfc]: this node's part in PortFC (docs/PORTFC.md; docs/DAEMON.md
// "PortFC"): its BCube, its role and position, its ports. Checked against
// the core's plan and the [[port]] and [[pool]] tables (spec 10.4 B-11);
// the switch's thresholds and buffer need the links, so the daemon sizes
// them (portfc_policy.h's size_switch()).
enum class PortfcRole : std::uint8_t { Server = 1, Switch = 2 };  // LL_PORTFC_ROLE_*
std::string_view portfc_role_name(PortfcRole r);  // "server", "switch"

inline constexpr std::uint64_t kPortfcStuckDefaultNs = 500000000;  // 500 ms
inline constexpr std::uint32_t kPortfcBaseDefault = 0x0a010001;    // 10.1.0.1

struct Portfc {
  std::uint32_t line = 0;  // of its [portfc] header
  std::uint32_t n = 0, k = 1;
  PortfcRole role = PortfcRole::Server;
  std::uint32_t node = 0;   // server: its id; switch: its index W (k = 1: fixed digit)
  std::uint32_t level = 0;  // switch: its level
  // server: one per level, level 0 first; switch: its BCube ports 0 .. n-1.
  std::vector<std::string> ports;
  std::uint32_t base = kPortfcBaseDefault;  // server 0's IPv4 address, host order
  std::uint64_t stuck_ns = kPortfcStuckDefaultNs;  // T_stuck; 0: no detector
  std::uint64_t relay_queue_bytes = 0;  // Q_RQ of spec 4.10 (switch)
  std::string pin_dir = "/sys/fs/bpf/lossless_portfc";  // the classifier's maps
  // The pool of a switch's ports (scheme portfc); "" for a server.
  std::string pool;
};

struct Config {
  std::string source;  // the file name given to the parser
  Daemon daemon;
  std::vector<Pool> pools;  // in file order
  std::vector<Port> ports;  // in file order
  std::optional<HostCc> host_cc;  // [host_cc]; nullopt: none
  std::optional<Portfc> portfc;   // [portfc]; nullopt: none
  // "file:line: message" for what is legal but probably a mistake (a
  // pool that no port names).
  std::vector<std::string> warnings;

  const Pool *find_pool(std::string_view name) const;
};

// Read and check path; throws ConfigError (a file that cannot be read is
// one error naming it and errno's text).
Config parse_file(const std::string &path);
// Check text; name is the file name used in messages.
Config parse_string(std::string_view text, std::string_view name);

// Every old spelling of a key the parser refuses with the one to write
// now: each key spelled with '-' (as tc spells it) in its older form with
// '_' ("sw_delay"), and the watchdog's tables and their keys of
// milliseconds ("[pool.watchdog]", "detection_time_ms"). The docs test
// (tests/unit/doc_numbers_test.cpp) finds none of them in the docs.
std::vector<std::string> old_spellings();

// The policies a pool may name.
const std::vector<std::string> &policies();

// Limits: the daemon's, and those of the pool's options from their rows.
inline constexpr std::uint64_t kPeriodMinNs = 100000;       // 100us
inline constexpr std::uint64_t kPeriodMaxNs = 1000000000;   // 1s
inline const std::uint64_t kDelayMaxNs = ll_params[LL_P_SW_DELAY].max;  // cable, sw: 1s
inline const std::uint64_t kBufferMaxBytes = ll_params[LL_P_BUFFER].max;
inline constexpr std::uint64_t kNsPerMeter = 5;             // cable-length
inline constexpr std::uint32_t kMtuMin = 68, kMtuMax = 65536;
inline constexpr unsigned kQueuesMax = 64;
inline constexpr unsigned kPortsPerPoolMax = 64;

}  // namespace lossless::config
