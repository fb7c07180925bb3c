// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_cc: userspace side of the hosts' congestion control TC programs
// (bpf/lossless_cc.bpf.c: PCN or DCQCN, docs/PCN.md). Loads them (libbpf
// skeleton), shares their maps through bpffs pins, attaches them at a
// port's clsact ingress and egress, writes the configuration, reads the
// counters and the flows, and deletes idle flows.
//
// Same rules as ll_ingress (daemon/ingress/ingress.h), whose building
// blocks it uses: every object owns what it holds and is move-only, no
// global state, errors thrown as lossless::ingress::Error (lossless::cc::
// Error here). A tc filter keeps the programs alive after the process
// exits; pinned maps outlive everything until their pins are removed.
//
// The tc filters this library owns on a port (chosen so that they never
// collide with lossless-ingress's, pref 1 handle 0x4c4c on ingress):
//   clsact ingress  pref 2, handle 0x4c43 ("LC"): after lossless-ingress
//   clsact egress   pref 1, handle 0x4c43
// Re-attaching replaces them in place.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingress.h"      // Error, Fd, check_bpffs, ifindex_of, ifname_of
#include "cc_params.h"  // Algo, Config, defaults, check, the parameters
#include "lossless_cc.h"  // bpf/: map layouts (pulls pcn.h, dcqcn.h, cnp.h)

namespace lossless::cc {

using ingress::check_bpffs;
using ingress::Error;
using ingress::Fd;
using ingress::ifindex_of;
using ingress::ifname_of;

inline constexpr std::uint32_t kTcHandle = 0x4c43;
inline constexpr std::uint32_t kTcIngressPriority = 2;
inline constexpr std::uint32_t kTcEgressPriority = 1;

// The global counters (ll_cc_stats) summed over CPUs.
using Stats = ll_cc_stats;

// A flow's key as text: "10.0.0.1:49152>10.0.0.2:4791".
std::string flow_text(const ll_cc_flow_key &k);

struct NpFlow {
  ll_cc_flow_key key;
  ll_cc_np state;
};
struct RpFlow {
  ll_cc_flow_key key;
  ll_cc_rp state;
};

// One line of the flow views: what both maps have in common.
struct FlowSummary {
  ll_cc_flow_key key{};
  std::uint64_t rate_kbps = 0;  // RP: the paced rate; NP: the last CNP's
                                // RecRate (PCN), else 0
  std::uint64_t pkts = 0;
  std::uint64_t bytes = 0;
  std::uint64_t ce_pkts = 0;    // NP only
  std::uint64_t cnps = 0;       // NP: sent; RP: applied
  std::uint64_t last_ns = 0;
  std::uint64_t flows = 1;      // flows summed into this line
};
FlowSummary summary(const NpFlow &f);
FlowSummary summary(const RpFlow &f);

// Bounded cardinality for telemetry: the n flows with the most bytes (ties
// by the higher rate, then by key), and every other flow summed into
// `rest` (rest.flows of them; its rate the sum of theirs, its last_ns the
// latest).
struct TopView {
  std::vector<FlowSummary> top;
  FlowSummary rest{{}, 0, 0, 0, 0, 0, 0, 0};
  std::uint64_t total_flows = 0;
};
TopView top(std::vector<FlowSummary> flows, std::size_t n);

struct GcResult {
  std::uint64_t np_deleted = 0, np_kept = 0;
  std::uint64_t rp_deleted = 0, rp_kept = 0;
};

// CLOCK_MONOTONIC in ns: bpf_ktime_get_ns()'s clock.
std::uint64_t monotonic_ns();

// The four shared maps of lossless_cc.h, by file descriptor.
class Maps {
 public:
  // Opens the maps pinned in pin_dir (ENOENT with a hint if nothing is
  // pinned there, a bpffs hint if pin_dir is not on bpffs).
  static Maps open_pinned(const std::string &pin_dir = kDefaultPinDir);
  static bool pinned(const std::string &pin_dir = kDefaultPinDir);

  Maps(Fd cfg, Fd np, Fd rp, Fd stats);

  // Throws Error(EINVAL, check(cfg)) for an invalid config.
  void set_config(const Config &cfg);
  Config config() const;
  Stats stats() const;

  // Every flow (each value read as it is: the programs may be updating it).
  std::vector<NpFlow> np_flows() const;
  std::vector<RpFlow> rp_flows() const;
  // Deletes the flows whose last_ns is more than idle_ns before now_ns
  // (monotonic_ns()); a flow with last_ns after now_ns is kept. A flow
  // that sends again between the read and the delete starts again as new,
  // as after an LRU eviction.
  GcResult gc(std::uint64_t idle_ns, std::uint64_t now_ns);

  int cfg_fd() const { return cfg_.get(); }
  int np_fd() const { return np_.get(); }
  int rp_fd() const { return rp_.get(); }
  int stats_fd() const { return stats_.get(); }

 private:
  Fd cfg_, np_, rp_, stats_;
  unsigned ncpus_;
};

// Ids of the programs in this library's filters on a port.
struct Attached {
  std::optional<std::uint32_t> ingress, egress;
  bool any() const { return ingress || egress; }
  bool both() const { return ingress && egress; }
};

// The loaded programs (libbpf skeleton) and their maps.
class Program {
 public:
  struct Options {
    // Reuse the maps pinned here, pin the ones that are missing. Empty:
    // private maps, nothing pinned (tests).
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
  int ingress_fd() const;
  int egress_fd() const;
  Maps &maps() { return maps_; }
  const Maps &maps() const { return maps_; }

  // Puts ll_cc_ingress on ifindex's clsact ingress and ll_cc_egress on its
  // egress (creating clsact if needed), replacing this library's filters
  // if present. Returns their program ids.
  Attached attach(std::uint32_t ifindex) const;

 private:
  struct Skel;
  Program(std::unique_ptr<Skel> skel, Maps maps);
  std::unique_ptr<Skel> skel_;
  Maps maps_;
};

// Removes this library's filters from ifindex's clsact ingress and egress
// (clsact and other filters stay). Throws Error(ENOENT) if neither is there.
void detach(std::uint32_t ifindex);
Attached attached(std::uint32_t ifindex);

}  // namespace lossless::cc
