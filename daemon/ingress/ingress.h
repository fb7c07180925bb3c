// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_ingress: userspace side of the TC ingress program (bpf/lossless_ingress
// .bpf.c). Loads it (libbpf skeleton), shares its maps through bpffs pins,
// attaches it at a port's clsact ingress, and reads/writes the maps.
//
// Ownership: every object here owns what it holds (file descriptors, the
// libbpf object) and releases it in its destructor; objects are move-only;
// there is no global state (libbpf's print callback is left to the
// program). Errors are reported by throwing lossless::ingress::Error.
//
// Lifetimes: a tc filter keeps the program alive after the Program object
// (or the process) goes away; pinned maps outlive everything until their
// pins are removed. So "attach, exit" is the normal CLI flow, and a daemon
// can re-open the same maps later with Maps::open_pinned().
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lossless_ingress.h"  // bpf/: map layouts (pulls pfc.h, lossless.h)

struct bpf_map;  // libbpf

namespace lossless::ingress {

inline constexpr const char *kDefaultPinDir = "/sys/fs/bpf/lossless";
inline constexpr const char *kBpffsRoot = "/sys/fs/bpf";
// The tc filter this library owns on a port's clsact ingress: pref 1 (runs
// first), handle 0x4c4c ("LL"). Re-attaching replaces it in place.
inline constexpr std::uint32_t kTcPriority = 1;
inline constexpr std::uint32_t kTcHandle = 0x4c4c;
inline constexpr unsigned kPrios = LL_INGRESS_PRIOS;
inline constexpr unsigned kDscpCount = LL_INGRESS_DSCP_COUNT;

class Error : public std::runtime_error {
 public:
  // err: positive errno (0 if none); hint: what the user can do, or "".
  Error(int err, const std::string &what, std::string hint = {});
  int code() const noexcept { return code_; }
  const std::string &hint() const noexcept { return hint_; }

 private:
  int code_;
  std::string hint_;
};

// e's message, and its hint in parentheses when e is an Error with one
// (ll_cc's and ll_portfc's errors are this Error too).
inline std::string error_text(const std::exception &e)
{
  std::string s = e.what();
  if (auto *le = dynamic_cast<const Error *>(&e); le && !le->hint().empty())
    s += " (" + le->hint() + ")";
  return s;
}

enum class Mode : std::uint8_t {
  PcpDscp = LL_INGRESS_MODE_PCP_DSCP,
  Pcp = LL_INGRESS_MODE_PCP,
  Dscp = LL_INGRESS_MODE_DSCP,
};
std::string_view mode_name(Mode m);                   // "pcp-dscp", ...
std::optional<Mode> parse_mode(std::string_view name);

struct PortConfig {
  Mode mode = Mode::PcpDscp;
  std::uint8_t default_prio = 0;  // < kPrios
  bool operator==(const PortConfig &) const = default;
};

struct Counter {
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;
};

// Data frames per priority, summed over CPUs.
struct PrioCounters {
  std::array<Counter, kPrios> prio{};
};

// MAC control frames, summed over CPUs. parse_error is indexed by
// enum ll_parse_result (names: ll_parse_result_name()).
struct CtrlCounters {
  // Valid frames handed to the qdisc, by kind (enum ll_ctrl_kind, ctrl.h).
  std::array<std::uint64_t, LL_CTRL_KIND_COUNT> frames{};
  std::array<std::uint64_t, LL_PARSE_RESULT_COUNT> parse_error{};
  std::uint64_t rewrite_failed = 0;
  std::uint64_t redirect_failed = 0;
  // PortFC's frames (lossless_ingress.h): refused, relayed copies, copies
  // the kernel refused to send.
  std::uint64_t portfc_refused = 0;
  std::uint64_t portfc_relayed = 0;
  std::uint64_t portfc_relay_failed = 0;
  std::uint64_t dropped() const;  // every frame that was not handed on
};

// A BCube port's part in PortFC's frames (ll_portfc_rx): its role
// (LL_PORTFC_ROLE_*), the radix n and, at a server, its other ports.
struct PortfcRx {
  std::uint8_t role = 0;
  std::uint8_t n = 0;
  std::vector<std::uint32_t> relay;  // at most LL_INGRESS_PORTFC_RELAYS
};

struct DscpEntry {
  std::uint8_t prio = 0;   // effective priority
  bool is_default = true;  // true: no entry set, prio == dscp >> 3
};

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept;
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd();
  int get() const noexcept { return fd_; }
  int release() noexcept;
  explicit operator bool() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// The maps of lossless_ingress.h, by file descriptor.
class Maps {
 public:
  // Opens the maps pinned in pin_dir. Throws Error (ENOENT with a hint if
  // nothing is pinned there, or a bpffs hint if pin_dir is not on bpffs).
  static Maps open_pinned(const std::string &pin_dir = kDefaultPinDir);
  // True if all the maps are pinned in pin_dir.
  static bool pinned(const std::string &pin_dir = kDefaultPinDir);

  // Takes the fds (dups of another owner's are fine).
  Maps(Fd port_cfg, Fd dscp, Fd prio_stats, Fd ctrl_stats, Fd portfc);

  void set_port_config(std::uint32_t ifindex, const PortConfig &cfg);
  std::optional<PortConfig> port_config(std::uint32_t ifindex) const;
  // Removes the port's config and counters (absent entries are fine).
  void remove_port(std::uint32_t ifindex);

  void set_dscp(unsigned dscp, unsigned prio);
  void reset_dscp(unsigned dscp);  // back to the default dscp >> 3
  std::array<DscpEntry, kDscpCount> dscp_map() const;

  std::optional<PrioCounters> prio_counters(std::uint32_t ifindex) const;
  std::optional<CtrlCounters> ctrl_counters(std::uint32_t ifindex) const;
  // PortFC's frames on a BCube port (Error(EINVAL) for a bad role, n or
  // relay list); del: the port takes none.
  void set_portfc(std::uint32_t ifindex, const PortfcRx &rx);
  void del_portfc(std::uint32_t ifindex);
  // Every ifindex with a config or counter entry, ascending.
  std::vector<std::uint32_t> ports() const;

  int port_cfg_fd() const { return port_cfg_.get(); }
  int dscp_fd() const { return dscp_.get(); }
  int prio_stats_fd() const { return prio_stats_.get(); }
  int ctrl_stats_fd() const { return ctrl_stats_.get(); }

 private:
  Fd port_cfg_, dscp_, prio_stats_, ctrl_stats_, portfc_;
  unsigned ncpus_;
};

// The loaded program (libbpf skeleton) and its maps.
class Program {
 public:
  struct Options {
    // Reuse the maps pinned here, pin the ones that are missing. Empty:
    // private maps, nothing pinned (tests, one-shot tools).
    std::string pin_dir = kDefaultPinDir;
    // false: create/reuse (and pin) the maps only, load no program.
    bool load_program = true;
  };

  static Program load(const Options &opts);
  static Program load() { return load(Options{}); }

  Program(Program &&) noexcept;
  Program &operator=(Program &&) noexcept;
  ~Program();

  // -1 when loaded with load_program = false.
  int prog_fd() const;
  Maps &maps() { return maps_; }
  const Maps &maps() const { return maps_; }

  // Attaches at ifindex's clsact ingress (creating clsact if needed),
  // replacing this library's filter if present. Returns the program id.
  std::uint32_t attach(std::uint32_t ifindex) const;

 private:
  struct Skel;
  Program(std::unique_ptr<Skel> skel, Maps maps);
  std::unique_ptr<Skel> skel_;
  Maps maps_;
};

// Removes this library's filter from ifindex's clsact ingress (clsact itself
// and other filters stay). Throws Error(ENOENT) if it is not there.
void detach(std::uint32_t ifindex);
// Id of the program in this library's filter on ifindex, if there is one.
std::optional<std::uint32_t> attached_prog_id(std::uint32_t ifindex);

// Device name -> ifindex (throws Error(ENODEV) with a hint) and back ("" if
// unknown in this network namespace).
std::uint32_t ifindex_of(const std::string &dev);
std::string ifname_of(std::uint32_t ifindex);

// Throws Error with a mount hint unless path (or its nearest existing
// parent) is on a bpf file system.
void check_bpffs(const std::string &path);

// ---- Building blocks shared with the other TC loaders (daemon/cc).

// Throws Error(err, what + ": " + strerror(err)) with the hint users need
// for it (root for EPERM/EACCES, `ip link` for ENODEV). err may be
// negative (libbpf's -errno).
[[noreturn]] void throw_errno(int err, const std::string &what);
// "eth0", or "ifindex 7" for a device this namespace does not know.
std::string port_label(std::uint32_t ifindex);
// A close-on-exec duplicate of fd (another owner's map fd).
Fd dup_fd(int fd);
// false if path does not exist; throws if it cannot be checked (EACCES...).
bool path_exists(const std::string &path);
// mkdir -p with mode 0700 for the missing parts.
void mkdir_p(const std::string &dir);
// Makes map (of an opened, not yet loaded bpf_object) reuse the map pinned
// at path: false if nothing is pinned there; throws Error with a hint if the
// pinned map's type, key or value size or max_entries differ from map's.
bool reuse_pinned_map(::bpf_map *map, const std::string &path);
// libbpf's messages on stderr for a CLI: everything (verifier logs) if
// verbose, else warnings, without the kernel's extack for the tc requests
// these libraries expect to fail and handle (clsact already there, no
// filter of ours yet).
void set_libbpf_print(bool verbose);

}  // namespace lossless::ingress
