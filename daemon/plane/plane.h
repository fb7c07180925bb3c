// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_plane: the userspace side of a pool's shared-state plane
// (kernel/uapi/lossless.h): the BPF array map through which the datapath
// publishes telemetry and takes parameters. Used by losslessctl and
// losslessd.
//
// Ownership: a Plane owns its file descriptor and its mapping; move-only.
// Errors throw lossless::plane::Error with a sentence naming the map.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "lossless.h"

namespace lossless::plane {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Pin path of pool NAME's plane: /sys/fs/bpf/lossless/NAME/plane.
std::string default_path(const std::string &pool);

// Every plane pinned under /sys/fs/bpf/lossless (or root), sorted.
std::vector<std::string> find_pinned(const std::string &root = {});

// Parameters of a control entry; unset fields are left out of `set`.
struct Params {
  std::optional<std::uint32_t> alpha;         // num << 8 | shift
  std::optional<std::uint32_t> egress_alpha;  // num << 8 | shift
  std::optional<std::uint32_t> xon_offset_bytes;
  std::optional<std::uint32_t> reserved_bytes;
  std::optional<std::uint32_t> interval_us;
  std::vector<lossless_plane_headroom> headroom;  // <= LOSSLESS_PLANE_PORTS
  std::optional<lossless_plane_scheme> scheme;    // id and parameters
  // Ports' modes (version 8): the ports named change, the others keep
  // theirs; <= LOSSLESS_PLANE_MODE_PORTS entries.
  std::vector<lossless_plane_port_mode> modes;
  // An action (LOSSLESS_PLANE_SET_RESET_PEAKS): the pool's peak
  // watermarks restart from what is in use now (losslessctl clear peaks).
  bool reset_peaks = false;
  // Version 10 (LOSSLESS_PLANE_SET_DRAIN): true drains the pool, false
  // ends the drain (losslessctl move-scheme, move_scheme() below).
  std::optional<bool> drain;
};

// The control entry that carries p (gen 0; magic, version and set
// filled). Throws Error for more entries than the entry holds.
lossless_plane_ctl encode(const Params &p);

// The member of Params that a control entry's field named by its
// LOSSLESS_PLANE_SET_* bit (ll_params.h: a row's plane_set) takes, for
// the single-valued fields: alpha, egress_alpha, xon_offset_bytes,
// reserved_bytes, interval_us; nullptr for headroom (per port) and scheme.
std::optional<std::uint32_t> Params::*field(std::uint32_t plane_set);

// Outcome of a control entry, as the datapath reported it.
struct Applied {
  std::uint64_t gen = 0;
  int error = 0;  // 0 or a positive errno
  std::chrono::nanoseconds latency{0};
};

class Plane {
 public:
  enum class Open { Existing, CreateIfMissing };
  static Plane open(const std::string &path, Open how = Open::Existing);

  Plane(Plane &&) noexcept;
  Plane &operator=(Plane &&) noexcept;
  Plane(const Plane &) = delete;
  Plane &operator=(const Plane &) = delete;
  ~Plane();

  const std::string &path() const { return path_; }
  int fd() const { return fd_; }
  bool created() const { return created_; }

  // A consistent telemetry snapshot, or nullopt if no pool has written one
  // yet (the map is not given to a pool, or not yet ticked). Throws if the
  // writer never finishes within timeout (a stuck writer: a bug), or if
  // the snapshot has another layout version than LOSSLESS_PLANE_VERSION
  // (a datapath module of another version).
  std::optional<lossless_plane_tel> telemetry(
      std::chrono::milliseconds timeout = std::chrono::milliseconds(100)) const;

  // The same into t without a 50 KB temporary: the header and the ports
  // in use (t.ports[nr_ports..] are left as they were). false: no pool has
  // written it yet. For readers on a period (losslessd).
  bool read_telemetry(lossless_plane_tel &t,
                      std::chrono::milliseconds timeout = std::chrono::milliseconds(100)) const;

  // One attempt, no waiting: Busy when the datapath is writing the
  // snapshot right now (t is then partly overwritten: read into a scratch
  // buffer). For a periodic reader that would rather use its last good
  // snapshot than spin against a writer ticking at the same period.
  // OtherVersion: a datapath wrote it with another layout version
  // (t.version says which); only the header fields up to version are
  // meaningful, and the datapath refuses this version's control entries.
  enum class Read { Ok, NoTelemetry, Busy, OtherVersion };
  Read try_read_telemetry(lossless_plane_tel &t) const;

  // "PATH: the datapath writes plane version N, this program reads
  // version M: ..." for a snapshot t of another version.
  std::string version_error(const lossless_plane_tel &t) const;

  lossless_plane_ctl control() const;

  // Write a control entry with the next gen (last applied + 1, or more);
  // returns that gen. The datapath applies it within two of its ticks.
  std::uint64_t submit(const Params &p);

  // Wait until the datapath reports gen applied (or refused); nullopt on
  // timeout (no pool ticking this plane).
  std::optional<Applied> wait_applied(std::uint64_t gen,
                                      std::chrono::milliseconds timeout) const;

  // The scheme control channel's block (kernel/uapi/lossless.h, struct
  // lossless_plane_channel: a scheme's run-time commands), as it is in
  // the map.
  lossless_plane_channel channel() const;

  // Write scheme's payload (at most LOSSLESS_CHANNEL_PAYLOAD_MAX bytes;
  // magic, version and seq are set here) under the block's sequence
  // counter; returns its seq, which the datapath reports in
  // channel_applied_seq once it applied or refused it (on its next tick).
  // Needs the map's mapping (every plane map ll_plane_map.c creates is
  // mmapable): throws without it.
  std::uint64_t submit_channel(std::uint32_t scheme, const std::vector<std::uint8_t> &payload);

  // Wait until the datapath reports block seq applied (or refused);
  // nullopt on timeout.
  std::optional<Applied> wait_channel_applied(std::uint64_t seq,
                                              std::chrono::milliseconds timeout) const;

 private:
  Plane(std::string path, int fd, bool created);
  void read_entry(std::uint32_t key, void *out, std::size_t len) const;
  void write_entry(std::uint32_t key, const void *in, std::size_t len);

  std::string path_;
  int fd_ = -1;
  bool created_ = false;
  void *map_ = nullptr;  // both entries, when the map is mmapable
  std::size_t map_len_ = 0;
  std::size_t stride_ = 0;  // bytes per entry in the mapping
};

// losslessctl move-scheme: a pool's scheme changes only while it holds no
// packets, so drain it (LOSSLESS_PLANE_SET_DRAIN: its lossless queues tell
// their upstreams XOFF, lossy arrivals are dropped), wait until the
// telemetry shows it empty, then change the scheme and end the drain in
// one control entry (retried while the datapath still finds a packet). At
// the timeout, the drain ends and the scheme stays. between() runs at
// every poll (the daemon ticks its other pools); the caller must not
// write this plane's control entry meanwhile.
struct MoveResult {
  std::string error;                        // empty: moved
  std::uint64_t gen = 0;                    // the entry that changed the scheme
  std::uint64_t held_bytes = 0;             // at the timeout: what the pool held
  std::chrono::nanoseconds drain_time{0};   // from the drain's start to empty
};
MoveResult move_scheme(Plane &pl, const lossless_plane_scheme &to, std::string_view from_name,
                       std::string_view to_name, std::chrono::milliseconds timeout,
                       const std::function<void()> &between = {});

// "1/8" <-> num << 8 | shift (the tc syntax).
std::optional<std::uint32_t> parse_alpha(const std::string &text);
std::string format_alpha(std::uint32_t encoded);

}  // namespace lossless::plane
