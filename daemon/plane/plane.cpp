// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "plane.h"

#include <bpf/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <thread>
#include <utility>

#include "datapath_error.h"
#include "ll_plane_map.h"
#include "ll_units.h"

namespace lossless::plane {
namespace {

std::uint64_t now_ns()
{
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The datapath writes these words concurrently (mapped memory).
std::uint64_t load_acquire(const __u64 *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

}  // namespace

std::string default_path(const std::string &pool)
{
  return std::string(LL_PLANE_PIN_ROOT) + "/" + pool + "/plane";
}

std::vector<std::string> find_pinned(const std::string &root)
{
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  fs::path base = root.empty() ? fs::path(LL_PLANE_PIN_ROOT) : fs::path(root);
  for (const auto &d : fs::directory_iterator(base, ec)) {
    fs::path p = d.path() / "plane";
    if (fs::exists(p, ec))
      out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Plane Plane::open(const std::string &path, Open how)
{
  char err[512] = "";
  int created = 0;
  int fd = ll_plane_map_open(path.c_str(),
                             how == Open::CreateIfMissing ? LL_PLANE_CREATE : LL_PLANE_OPEN,
                             &created, err, sizeof(err));
  if (fd < 0)
    throw Error(err);
  return Plane(path, fd, created != 0);
}

Plane::Plane(std::string path, int fd, bool created)
    : path_(std::move(path)), fd_(fd), created_(created)
{
  bpf_map_info info{};
  __u32 len = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd_, &info, &len) == 0 && (info.map_flags & BPF_F_MMAPABLE)) {
    stride_ = (info.value_size + 7) & ~7u;  // array values are 8-byte aligned
    map_len_ = stride_ * LOSSLESS_PLANE_ENTRIES;
    void *m = mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
    if (m != MAP_FAILED)
      map_ = m;
  }
}

Plane::Plane(Plane &&o) noexcept { *this = std::move(o); }

Plane &Plane::operator=(Plane &&o) noexcept
{
  if (this != &o) {
    this->~Plane();
    path_ = std::move(o.path_);
    fd_ = std::exchange(o.fd_, -1);
    created_ = o.created_;
    map_ = std::exchange(o.map_, nullptr);
    map_len_ = std::exchange(o.map_len_, 0);
    stride_ = o.stride_;
  }
  return *this;
}

Plane::~Plane()
{
  if (map_)
    munmap(map_, map_len_);
  if (fd_ >= 0)
    close(fd_);
  map_ = nullptr;
  fd_ = -1;
}

void Plane::read_entry(std::uint32_t key, void *out, std::size_t len) const
{
  if (map_) {
    std::memcpy(out, static_cast<const char *>(map_) + key * stride_, len);
    return;
  }
  // Not mmapable: the syscall copies the whole value.
  std::vector<char> buf(sizeof(lossless_plane_tel) + 4096);
  bpf_map_info info{};
  __u32 ilen = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd_, &info, &ilen))
    throw Error(path_ + ": cannot inspect the plane map: " + std::strerror(errno));
  buf.resize(info.value_size);
  if (bpf_map_lookup_elem(fd_, &key, buf.data()))
    throw Error(path_ + ": cannot read the plane map: " + std::strerror(errno));
  std::memcpy(out, buf.data(), std::min(len, buf.size()));
}

void Plane::write_entry(std::uint32_t key, const void *in, std::size_t len)
{
  if (map_) {
    std::memcpy(static_cast<char *>(map_) + key * stride_, in, len);
    return;
  }
  bpf_map_info info{};
  __u32 ilen = sizeof(info);
  if (bpf_obj_get_info_by_fd(fd_, &info, &ilen))
    throw Error(path_ + ": cannot inspect the plane map: " + std::strerror(errno));
  std::vector<char> buf(info.value_size);
  if (bpf_map_lookup_elem(fd_, &key, buf.data()))
    throw Error(path_ + ": cannot read the plane map: " + std::strerror(errno));
  std::memcpy(buf.data(), in, std::min(len, buf.size()));
  if (bpf_map_update_elem(fd_, &key, buf.data(), BPF_ANY))
    throw Error(path_ + ": cannot write the plane map: " + std::strerror(errno));
}

Plane::Read Plane::try_read_telemetry(lossless_plane_tel &t) const
{
  constexpr std::size_t kHeader = offsetof(lossless_plane_tel, ports);
  if (map_) {
    // Seqcount read of the header and the ports in use only (a few KB of
    // the 50 KB value): an even seq that did not change across it.
    const char *base = static_cast<const char *>(map_) + LOSSLESS_PLANE_TEL * stride_;
    const auto *shared = reinterpret_cast<const lossless_plane_tel *>(base);
    std::uint64_t before = load_acquire(&shared->seq);
    if (before & 1)
      return Read::Busy;
    std::memcpy(&t, base, kHeader);
    std::uint32_t n = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
    std::memcpy(&t.ports, base + kHeader, n * sizeof(t.ports[0]));
    // The scheme's slots of the same ports, and the event ring.
    constexpr std::size_t kSch = offsetof(lossless_plane_tel, sch);
    constexpr std::size_t kEvents = offsetof(lossless_plane_tel, events_total);
    std::memcpy(&t.sch, base + kSch, n * sizeof(t.sch[0]));
    // The ports' modes (version 8), the same ports.
    constexpr std::size_t kMode = offsetof(lossless_plane_tel, mode);
    std::memcpy(&t.mode, base + kMode, n * sizeof(t.mode[0]));
    // The ports' headroom premise (version 10), the same ports.
    constexpr std::size_t kPremise = offsetof(lossless_plane_tel, premise);
    std::memcpy(&t.premise, base + kPremise, n * sizeof(t.premise[0]));
    std::memcpy(reinterpret_cast<char *>(&t) + kEvents, base + kEvents, kMode - kEvents);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (load_acquire(&shared->seq) != before)
      return Read::Busy;
    t.nr_ports = n;
  } else {
    // Two syscall copies: the first is consistent if the second shows the
    // same even seq (a write during the first would have changed it).
    auto again = std::make_unique<lossless_plane_tel>();
    read_entry(LOSSLESS_PLANE_TEL, &t, sizeof(t));
    read_entry(LOSSLESS_PLANE_TEL, again.get(), sizeof(*again));
    if ((t.seq & 1) || again->seq != t.seq)
      return Read::Busy;
  }
  if (t.magic != LOSSLESS_PLANE_MAGIC)
    return Read::NoTelemetry;
  // Another layout (LOSSLESS_PLANE_VERSION): its ports have another size,
  // nothing past the header reads right.
  return t.version == LOSSLESS_PLANE_VERSION ? Read::Ok : Read::OtherVersion;
}

std::string Plane::version_error(const lossless_plane_tel &t) const
{
  return path_ + ": the datapath writes plane version " + std::to_string(t.version) +
         ", this program reads version " + std::to_string(LOSSLESS_PLANE_VERSION) +
         " (sch_lossless and the userspace tools are of different versions: load the "
         "matching module)";
}

bool Plane::read_telemetry(lossless_plane_tel &t, std::chrono::milliseconds timeout) const
{
  std::uint64_t deadline = now_ns() + std::chrono::nanoseconds(timeout).count();
  for (;;) {
    switch (try_read_telemetry(t)) {
    case Read::Ok:
      return true;
    case Read::NoTelemetry:
      return false;
    case Read::OtherVersion:
      throw Error(version_error(t));
    case Read::Busy:
      break;
    }
    if (now_ns() > deadline)
      throw Error(path_ + ": the datapath is still writing the telemetry after " +
                  std::to_string(timeout.count()) + " ms");
    std::this_thread::yield();
  }
}

std::optional<lossless_plane_tel> Plane::telemetry(std::chrono::milliseconds timeout) const
{
  auto t = std::make_unique<lossless_plane_tel>();
  if (!read_telemetry(*t, timeout))
    return std::nullopt;
  return *t;
}

lossless_plane_ctl Plane::control() const
{
  lossless_plane_ctl c{};
  read_entry(LOSSLESS_PLANE_CTL, &c, sizeof(c));
  return c;
}

std::optional<std::uint32_t> Params::*field(std::uint32_t plane_set)
{
  switch (plane_set) {
    case LOSSLESS_PLANE_SET_ALPHA:
      return &Params::alpha;
    case LOSSLESS_PLANE_SET_EGRESS_ALPHA:
      return &Params::egress_alpha;
    case LOSSLESS_PLANE_SET_XON_OFFSET:
      return &Params::xon_offset_bytes;
    case LOSSLESS_PLANE_SET_RESERVED:
      return &Params::reserved_bytes;
    case LOSSLESS_PLANE_SET_INTERVAL:
      return &Params::interval_us;
    default:
      return nullptr;
  }
}

lossless_plane_ctl encode(const Params &p)
{
  if (p.headroom.size() > LOSSLESS_PLANE_PORTS)
    throw Error("at most " + std::to_string(LOSSLESS_PLANE_PORTS) + " headroom entries");
  if (p.modes.size() > LOSSLESS_PLANE_MODE_PORTS)
    throw Error("at most " + std::to_string(LOSSLESS_PLANE_MODE_PORTS) +
                " port modes in one control entry");
  lossless_plane_ctl c{};
  c.magic = LOSSLESS_PLANE_MAGIC;
  c.version = LOSSLESS_PLANE_VERSION;
  if (p.alpha) {
    c.set |= LOSSLESS_PLANE_SET_ALPHA;
    c.alpha = *p.alpha;
  }
  if (p.egress_alpha) {
    c.set |= LOSSLESS_PLANE_SET_EGRESS_ALPHA;
    c.egress_alpha = *p.egress_alpha;
  }
  if (p.xon_offset_bytes) {
    c.set |= LOSSLESS_PLANE_SET_XON_OFFSET;
    c.xon_offset_bytes = *p.xon_offset_bytes;
  }
  if (p.reserved_bytes) {
    c.set |= LOSSLESS_PLANE_SET_RESERVED;
    c.reserved_bytes = *p.reserved_bytes;
  }
  if (p.interval_us) {
    c.set |= LOSSLESS_PLANE_SET_INTERVAL;
    c.interval_us = *p.interval_us;
  }
  if (p.scheme) {
    c.set |= LOSSLESS_PLANE_SET_SCHEME;
    c.scheme = *p.scheme;
  }
  if (!p.headroom.empty()) {
    c.set |= LOSSLESS_PLANE_SET_HEADROOM;
    std::copy(p.headroom.begin(), p.headroom.end(), c.headroom);
  }
  if (!p.modes.empty()) {
    c.set |= LOSSLESS_PLANE_SET_MODE;
    std::copy(p.modes.begin(), p.modes.end(), c.mode);
  }
  if (p.reset_peaks)
    c.set |= LOSSLESS_PLANE_SET_RESET_PEAKS;
  if (p.drain) {
    c.set |= LOSSLESS_PLANE_SET_DRAIN;
    c.drain = *p.drain ? 1 : 0;
  }
  return c;
}

std::uint64_t Plane::submit(const Params &p)
{
  lossless_plane_ctl c = encode(p);
  std::uint64_t gen = control().gen + 1;
  if (auto t = telemetry(); t && t->applied_gen >= gen)
    gen = t->applied_gen + 1;
  // The fields first, gen last: the datapath acts on a gen change, and
  // only once the entry reads the same on two ticks.
  c.gen = control().gen;
  write_entry(LOSSLESS_PLANE_CTL, &c, sizeof(c));
  if (map_) {
    auto *shared = static_cast<lossless_plane_ctl *>(map_);
    __atomic_store_n(&shared->gen, gen, __ATOMIC_RELEASE);
  } else {
    c.gen = gen;
    write_entry(LOSSLESS_PLANE_CTL, &c, sizeof(c));
  }
  return gen;
}

std::optional<Applied> Plane::wait_applied(std::uint64_t gen,
                                           std::chrono::milliseconds timeout) const
{
  std::uint64_t start = now_ns();
  std::uint64_t deadline = start + std::chrono::nanoseconds(timeout).count();
  do {
    auto t = telemetry();
    if (t && t->applied_gen == gen)
      return Applied{gen, -t->apply_error, std::chrono::nanoseconds(now_ns() - start)};
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  } while (now_ns() < deadline);
  return std::nullopt;
}

MoveResult move_scheme(Plane &pl, const lossless_plane_scheme &to, std::string_view from_name,
                       std::string_view to_name, std::chrono::milliseconds timeout,
                       const std::function<void()> &between)
{
  constexpr std::chrono::milliseconds kAnswer(1000);
  MoveResult r;
  std::uint64_t start = now_ns();
  std::uint64_t deadline = start + std::chrono::nanoseconds(timeout).count();
  auto held = [](const lossless_plane_tel &t) {
    return t.reserved_used + t.shared_used + t.headroom_used;
  };
  auto submit = [&](const Params &p, const char *what) -> std::optional<Applied> {
    std::uint64_t gen = pl.submit(p);
    auto a = pl.wait_applied(gen, kAnswer);
    if (!a)
      r.error = std::string("the datapath did not take the ") + what + " within 1 s";
    return a;
  };
  Params drain;
  drain.drain = true;
  auto a = submit(drain, "drain");
  if (!a)
    return r;
  if (a->error) {
    r.error = "the datapath refused the drain: " + datapath_error_text(a->error) +
              (a->error == EINVAL ? " (a module without move-scheme's drain, plane version 10?)"
                                  : "");
    return r;
  }
  std::uint64_t last_held = 0;
  for (;;) {
    auto t = pl.telemetry();
    if (t && (last_held = held(*t)) == 0) {
      if (!r.drain_time.count())
        r.drain_time = std::chrono::nanoseconds(now_ns() - start);
      Params change;
      change.scheme = to;
      change.drain = false;
      a = submit(change, "scheme change");
      if (a && !a->error) {
        r.gen = a->gen;
        return r;
      }
      if (a && a->error != EBUSY) {
        r.error = "the datapath refused scheme " + std::string(to_name) + ": " +
                  datapath_error_text(a->error);
        break;
      }
      if (!a)
        break;
      // EBUSY: a packet came in between; still draining.
    }
    if (now_ns() >= deadline) {
      r.held_bytes = last_held;
      r.error = "the pool did not drain within " + std::to_string(timeout.count()) +
                " ms: it still holds " + std::to_string(last_held) +
                " bytes (a port whose upstream does not honour PFC, or a port with a mode, "
                "keeps sending; retry with a longer --timeout)";
      break;
    }
    if (between)
      between();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Not moved: end the drain; the scheme stays.
  Params resume;
  resume.drain = false;
  std::string why = r.error;
  r.error.clear();
  a = submit(resume, "end of the drain");
  std::string end = !a ? "; " + r.error
                  : a->error ? "; the datapath refused the end of the drain: " +
                                   datapath_error_text(a->error)
                             : "";
  r.error = why + "; the drain ended and the scheme stays " + std::string(from_name) + end;
  return r;
}

lossless_plane_channel Plane::channel() const
{
  lossless_plane_channel w{};
  if (map_) {
    std::memcpy(&w, static_cast<const char *>(map_) + LOSSLESS_PLANE_CHANNEL_OFFSET, sizeof(w));
    return w;
  }
  std::vector<char> buf(LOSSLESS_PLANE_CHANNEL_OFFSET + sizeof(w));
  read_entry(LOSSLESS_PLANE_CTL, buf.data(), buf.size());
  std::memcpy(&w, buf.data() + LOSSLESS_PLANE_CHANNEL_OFFSET, sizeof(w));
  return w;
}

std::uint64_t Plane::submit_channel(std::uint32_t scheme, const std::vector<std::uint8_t> &payload)
{
  static_assert(sizeof(lossless_plane_ctl) <= LOSSLESS_PLANE_CHANNEL_OFFSET);
  static_assert(LOSSLESS_PLANE_CHANNEL_OFFSET + sizeof(lossless_plane_channel) <=
                sizeof(lossless_plane_tel));
  if (payload.size() > LOSSLESS_CHANNEL_PAYLOAD_MAX)
    throw Error(path_ + ": a control channel payload of " + std::to_string(payload.size()) +
                " bytes (at most " + std::to_string(LOSSLESS_CHANNEL_PAYLOAD_MAX) + ")");
  if (!map_)
    throw Error(path_ + ": the plane map is not mapped (not created mmapable?): the control "
                        "channel is written through the mapping only");
  auto *shared = reinterpret_cast<lossless_plane_channel *>(static_cast<char *>(map_) +
                                                             LOSSLESS_PLANE_CHANNEL_OFFSET);
  // The next even seq after the one in the map (odd: a writer died
  // half-way; the datapath reads its seq from the map too).
  std::uint64_t seq = __atomic_load_n(&shared->seq, __ATOMIC_ACQUIRE);
  seq = (seq | 1) + 1;
  __atomic_store_n(&shared->seq, seq - 1, __ATOMIC_RELAXED);
  std::atomic_thread_fence(std::memory_order_release);  // odd before the fields
  lossless_plane_channel c{};
  c.magic = LOSSLESS_PLANE_MAGIC;
  c.version = LOSSLESS_PLANE_VERSION;
  c.seq = seq - 1;
  c.scheme = scheme;
  c.len = static_cast<std::uint32_t>(payload.size());
  std::copy(payload.begin(), payload.end(), c.payload);
  std::memcpy(shared, &c, sizeof(c));
  __atomic_store_n(&shared->seq, seq, __ATOMIC_RELEASE);  // the fields before even
  return seq;
}

std::optional<Applied> Plane::wait_channel_applied(std::uint64_t seq,
                                                   std::chrono::milliseconds timeout) const
{
  std::uint64_t start = now_ns();
  std::uint64_t deadline = start + std::chrono::nanoseconds(timeout).count();
  auto t = std::make_unique<lossless_plane_tel>();
  do {
    if (try_read_telemetry(*t) == Read::Ok && t->channel_applied_seq == seq)
      return Applied{seq, -t->channel_apply_error, std::chrono::nanoseconds(now_ns() - start)};
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  } while (now_ns() < deadline);
  return std::nullopt;
}

std::optional<std::uint32_t> parse_alpha(const std::string &text)
{
  unsigned int v = 0;
  if (ll_alpha_parse(text.c_str(), &v))
    return std::nullopt;
  return v;
}

std::string format_alpha(std::uint32_t encoded)
{
  char buf[48];
  ll_alpha_format(encoded, buf, sizeof(buf));
  return buf;
}

}  // namespace lossless::plane
