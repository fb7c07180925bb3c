// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "daemon.h"

#include "datapath_error.h"
#include "headroom_check.h"
#include "host_cc.h"
#include "metrics.h"
#include "ll_units.h"
#include "notify.h"
#include "pfc_policy.h"
#include "pool.h"
#include "portfc_node.h"
#include "registry.h"
#include "request.h"
#include "ll_units.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdint>
#include <thread>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace lossless::daemon {

namespace fs = std::filesystem;
namespace asio = boost::asio;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

void log(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  std::fputs("losslessd: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

namespace {

std::uint32_t map_id(int fd)
{
  bpf_map_info info{};
  __u32 len = sizeof(info);
  return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

std::string plane_path(const Config &cfg, const std::string &pool)
{
  return cfg.pin_dir + "/" + pool + "/plane";
}

const char *watchdog_action(std::uint8_t a)
{
  static const char *const names[] = {"off", "alert", "forward", "drop"};
  return a < 4 ? names[a] : "?";
}

// "drop, detect 200 ms, restore 200 ms, poll 100 ms, xoff alarm off"
std::string describe_watchdog(const WatchdogSpec &w)
{
  auto ms = [](std::uint64_t ns) { return std::to_string(ns / 1000000) + " ms"; };
  return std::string(watchdog_action(w.action)) + ", detect " + ms(w.detect_ns) + ", restore " +
         ms(w.restore_ns) + ", poll " + ms(w.poll_ns) + ", xoff alarm " +
         (w.xoff_alarm_ns ? ms(w.xoff_alarm_ns) : std::string("off"));
}

// The configuration's keys (docs/DAEMON.md), null when there is none.
nlohmann::json watchdog_json(const std::optional<WatchdogSpec> &w)
{
  if (!w)
    return nullptr;
  auto time = [](std::uint64_t ns) {
    char buf[64];
    ll_units_time_text(ns, buf, sizeof(buf));
    return std::string(buf);
  };
  return {{"pfcwd", watchdog_action(w->action)},
          {"pfcwd-detect", time(w->detect_ns)},
          {"pfcwd-restore", time(w->restore_ns)},
          {"pfcwd-poll", time(w->poll_ns)},
          {"xoff-alarm", w->xoff_alarm_ns ? time(w->xoff_alarm_ns) : std::string("off")}};
}

}  // namespace

// The link speed the device reports (ethtool), as the qdisc reads it when
// no rate is given; 0 if it reports none.
std::uint32_t device_speed_mbps(const std::string &dev)
{
  ethtool_cmd cmd{};
  ifreq ifr{};
  if (dev.size() >= IFNAMSIZ)
    return 0;
  std::memcpy(ifr.ifr_name, dev.c_str(), dev.size() + 1);
  cmd.cmd = ETHTOOL_GSET;
  ifr.ifr_data = reinterpret_cast<char *>(&cmd);
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return 0;
  int rc = ioctl(fd, SIOCETHTOOL, &ifr);
  close(fd);
  std::uint32_t speed = ethtool_cmd_speed(&cmd);
  return rc || speed == static_cast<std::uint32_t>(SPEED_UNKNOWN) ? 0 : speed;
}

namespace {

}  // namespace

struct Daemon::Port {
  PortConfig cfg;
  int ifindex = 0;
  bool up = false;
  std::uint32_t mtu = 0;
  std::string state = "missing";  // installed, adopted, missing, failed: ...
  // A reload dropped the port's watchdog table: turn off the watchdog
  // this daemon gave it (once, at the next ensure_port).
  bool wd_turn_off = false;
};

Daemon::Daemon(Config cfg, ConfigLoader loader)
    : cfg_(std::move(cfg)), loader_(loader), tick_(io_), signals_(io_, SIGINT, SIGTERM)
{
}

Daemon::~Daemon()
{
  if (link_sock_)
    nl_socket_free(link_sock_);
  if (control_) {
    std::error_code ec;
    fs::remove(cfg_.socket, ec);
  }
  if (lock_fd_ >= 0)
    close(lock_fd_);
}

Pool *Daemon::pool_named(const std::string &name)
{
  for (auto &p : pools_)
    if (p->cfg.settings.name == name)
      return p.get();
  return nullptr;
}

void Daemon::check()
{
  // One daemon per control socket: a lock beside it.
  fs::path dir = fs::path(cfg_.socket).parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string lock = (dir / "losslessd.lock").string();
  lock_fd_ = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock_fd_ < 0)
    throw std::runtime_error(lock + ": " + std::strerror(errno));
  if (flock(lock_fd_, LOCK_EX | LOCK_NB)) {
    char pid[32] = "";
    ssize_t n = pread(lock_fd_, pid, sizeof(pid) - 1, 0);
    pid[n > 0 ? n : 0] = '\0';
    pid[strcspn(pid, "\n")] = '\0';
    throw std::runtime_error("another losslessd is running (pid " +
                             std::string(pid[0] ? pid : "?") + ", lock " + lock + ")");
  }
  std::string me = std::to_string(getpid()) + "\n";
  if (ftruncate(lock_fd_, 0) || pwrite(lock_fd_, me.data(), me.size(), 0) < 0)
    log("cannot write the pid to %s: %s", lock.c_str(), std::strerror(errno));
  validate();
}

void Daemon::validate()
{
  std::error_code ec;
  // "FILE:LINE: " of a pool's or port's table, as the configuration's
  // own messages say it.
  auto at = [this](std::uint32_t line) {
    return line ? cfg_.source + ":" + std::to_string(line) + ": " : std::string();
  };
  pools_.clear();
  ports_.clear();
  host_cc_.reset();
  portfc_.reset();
  // A host with [host_cc] alone has no pool: the pools' pin directory
  // matters only with pools or ports.
  if (!cfg_.pools.empty() || !cfg_.ports.empty())
    ingress::check_bpffs(cfg_.pin_dir);
  auto links = rtnl_.links();
  // [portfc] first: a switch's thresholds go into its pool's scheme.
  if (cfg_.portfc)
    portfc_ = prepare_portfc(cfg_, links);
  for (const auto &pc : cfg_.pools) {
    auto pool = std::make_unique<Pool>();
    pool->cfg = pc;
    pool->policy = policy::make(pc.policy, pc.settings);
    if (!pool->policy)
      throw std::runtime_error(at(pc.line) + "pool \"" + pc.settings.name +
                               "\": unknown policy \"" + pc.policy + "\"");
    // A pinned plane of another layout is a stale pin directory: refuse
    // before touching anything.
    std::string path = plane_path(cfg_, pc.settings.name);
    if (fs::exists(path, ec)) {
      try {
        pool->plane.emplace(plane::Plane::open(path));
      } catch (const plane::Error &e) {
        throw std::runtime_error(at(pc.line) + "pool \"" + pc.settings.name + "\": " + e.what() +
                                 " (a stale pin directory? remove " +
                                 fs::path(path).parent_path().string() + ")");
      }
    }
    pools_.push_back(std::move(pool));
  }
  for (const auto &pc : cfg_.ports) {
    Port p;
    p.cfg = pc;
    auto l = std::find_if(links.begin(), links.end(),
                          [&](const Link &x) { return x.name == pc.dev; });
    if (l == links.end())
      throw std::runtime_error(at(pc.line) + "port \"" + pc.dev + "\": no such network device");
    if (!pool_named(pc.pool))
      throw std::runtime_error(at(pc.line) + "port \"" + pc.dev + "\": unknown pool \"" + pc.pool +
                               "\"");
    // The kernel takes the device's link speed for a rate left out, and
    // refuses the qdisc if there is none.
    if (!pc.rate_bps && !device_speed_mbps(pc.dev))
      throw std::runtime_error(at(pc.line) + "port \"" + pc.dev +
                               "\": rate is required: the device reports no link speed "
                               "(give rate, as for lo, dummy or a bridge)");
    p.ifindex = l->ifindex;
    p.up = l->up;
    p.mtu = l->mtu;
    ports_.push_back(p);
  }
  // Each pool's ports against its buffer, as the kernel will decide when
  // their qdiscs join it (headroom_check.h): refused here, with the
  // numbers, before anything is installed.
  for (const auto &pool : pools_) {
    std::vector<HeadroomPort> hp;
    for (const auto &p : ports_) {
      if (p.cfg.pool != pool->cfg.settings.name)
        continue;
      auto l = std::find_if(links.begin(), links.end(),
                            [&](const Link &x) { return x.ifindex == p.ifindex; });
      HeadroomPort h;
      h.dev = p.cfg.dev;
      h.line = p.cfg.line;
      h.rate_bps = p.cfg.rate_bps.value_or(std::uint64_t(device_speed_mbps(p.cfg.dev)) * 1000000);
      h.cable_delay_ns = p.cfg.cable_delay_ns;
      h.dev_frame_bytes = l->mtu + l->hard_header_len;
      h.headroom_bytes = p.cfg.headroom_bytes;
      h.scheme_port = p.cfg.scheme_port ? *p.cfg.scheme_port + 1u : 0u;
      h.sw_delay_ns = p.cfg.sw_delay_ns;
      h.burst_bytes = p.cfg.burst_bytes;
      h.catchup_bytes = p.cfg.catchup_bytes;
      hp.push_back(h);
    }
    policy::PoolSettings s = pool->cfg.settings;
    s.buffer_bytes = pool->cfg.buffer_bytes;
    HeadroomResult r = check_pool_headroom(s, pool->cfg.line, hp, cfg_.source);
    if (!r.error.empty())
      throw std::runtime_error(r.error);
  }
  if (cfg_.host_cc)
    host_cc_ = std::make_unique<HostCc>(HostCc::prepare(*cfg_.host_cc, cfg_.source));
}

// [portfc] on this system (portfc.h): for a switch, its link from the
// ports of [portfc] (the fastest rate, the longest cable, the largest
// frame) and its pool; the thresholds it sizes (those the pool leaves 0)
// go into cfg's pool, so that the qdiscs and the policy take them.
std::unique_ptr<PortFc> Daemon::prepare_portfc(Config &cfg, const std::vector<Link> &links) const
{
  const config::Portfc &pc = *cfg.portfc;
  std::optional<PortFc::SwitchInputs> sw;
  PoolConfig *pool = nullptr;
  for (auto &p : cfg.pools)
    if (p.settings.name == pc.pool)
      pool = &p;
  if (pc.role == config::PortfcRole::Switch && pool) {
    PortFc::SwitchInputs in;
    bool known = true;
    for (const std::string &dev : pc.ports) {
      auto port = std::find_if(cfg.ports.begin(), cfg.ports.end(),
                               [&](const PortConfig &x) { return x.dev == dev; });
      auto l = std::find_if(links.begin(), links.end(),
                            [&](const Link &x) { return x.name == dev; });
      if (port == cfg.ports.end() || l == links.end()) {
        known = false;  // the ports' own checks say why
        continue;
      }
      std::uint64_t rate = port->rate_bps ? *port->rate_bps
                                          : std::uint64_t(device_speed_mbps(dev)) * 1000000;
      // Sizing without it would give the pool thresholds of 0.
      if (!rate)
        throw std::runtime_error(
            (port->line ? cfg.source + ":" + std::to_string(port->line) + ": " : std::string()) +
            "port \"" + dev +
            "\": rate is required to size PortFC's thresholds: the "
            "device reports no link speed (give rate)");
      in.link.rate_bps = std::max<std::uint64_t>(in.link.rate_bps, rate);
      in.link.cable_delay_ns = std::max(in.link.cable_delay_ns, port->cable_delay_ns);
      std::uint32_t frame = port->mtu.value_or(l->mtu) + l->hard_header_len + 4;
      in.link.mtu_bytes = std::max(in.link.mtu_bytes, frame);
    }
    in.link.sw_response_ns = pool->settings.sw_delay_ns;
    const auto &t = pool->settings.scheme.p.portfc;
    in.given = {t.xoff_a_bytes, t.xon_a_bytes, t.xoff_b_bytes, t.xon_b_bytes};
    in.buffer_bytes = pool->buffer_bytes;
    in.pool_line = pool->line;
    if (known)
      sw = in;
  }
  auto p = std::make_unique<PortFc>(PortFc::prepare(pc, cfg.source, sw));
  if (pool && p->sizing()) {
    auto &t = pool->settings.scheme.p.portfc;
    const ll_portfc_thresholds &r = p->sizing()->t;
    t.xoff_a_bytes = r.xoff_a_bytes;
    t.xon_a_bytes = r.xon_a_bytes;
    t.xoff_b_bytes = r.xoff_b_bytes;
    t.xon_b_bytes = r.xon_b_bytes;
  }
  return p;
}

void Daemon::ensure_port(Port &p, bool first_run)
{
  Pool &pool = *pool_named(p.cfg.pool);
  const auto &s = pool.cfg.settings;
  auto cur = rtnl_.root_qdisc(p.ifindex);
  if (cur && cur->kind == "lossless" && cur->pool == s.name) {
    p.state = "adopted";
  } else {
    LosslessSpec spec;
    spec.rate_bps = p.cfg.rate_bps;
    spec.queues = p.cfg.queues;
    spec.pool = s.name;
    spec.pool_bytes = pool.cfg.buffer_bytes;
    spec.lossless_mask = s.lossless_mask;
    spec.alpha = s.alpha;
    spec.egress_alpha = s.egress_alpha;
    spec.reserved_bytes = s.reserved_bytes;
    spec.xon_offset_bytes = s.xon_offset_bytes;
    spec.scheme = s.scheme;
    spec.cable_delay_ns = p.cfg.cable_delay_ns;
    spec.sw_delay_ns = p.cfg.sw_delay_ns.value_or(s.sw_delay_ns);
    if (p.cfg.headroom_bytes)
      spec.headroom_bytes = p.cfg.headroom_bytes;
    spec.ecn_kmin_bytes = pool.cfg.ecn_kmin_bytes;
    spec.ecn_kmax_bytes = pool.cfg.ecn_kmax_bytes;
    spec.ecn_pmax = pool.cfg.ecn_pmax;
    spec.ecn_mode = pool.cfg.ecn_mode;
    spec.np_ecn_k_bytes = pool.cfg.np_ecn_k_bytes;
    spec.watchdog = p.cfg.watchdog;
    spec.strict = p.cfg.strict;
    spec.gates = p.cfg.gates;
    spec.scheme_port = p.cfg.scheme_port;
    spec.quanta_bytes = p.cfg.quanta_bytes;
    spec.priomap = p.cfg.priomap;
    spec.limit_packets = p.cfg.limit_packets;
    spec.burst_bytes = p.cfg.burst_bytes;
    spec.catchup_bytes = p.cfg.catchup_bytes;
    rtnl_.add_lossless(p.ifindex, spec);
    p.state = "installed";
    cur = rtnl_.root_qdisc(p.ifindex);
  }
  // The plane is pool-wide: hand it over if the pool has another (or none).
  std::uint32_t want = map_id(pool.plane->fd());
  if (cur && cur->plane_id != want) {
    LosslessSpec spec;
    spec.plane_fd = pool.plane->fd();
    rtnl_.change_lossless(p.ifindex, spec);
  }
  // The PFC watchdog as configured, when the qdisc has another (an adopted
  // one keeps its own if the configuration has none). A reload that
  // dropped the table turns off the watchdog this daemon gave.
  std::optional<WatchdogSpec> wd = p.cfg.watchdog;
  if (!wd && p.wd_turn_off)
    wd = WatchdogSpec{};
  if (wd && cur && !watchdog_in_force(cur->watchdog, *wd)) {
    LosslessSpec spec;
    spec.watchdog = *wd;
    rtnl_.change_lossless(p.ifindex, spec);
    log("port %s: PFC watchdog %s", p.cfg.dev.c_str(), describe_watchdog(*wd).c_str());
  }
  p.wd_turn_off = false;
  if (!ingress::attached_prog_id(p.ifindex)) {
    // An adopting daemon loaded the maps only; a new port needs the program.
    if (!program_ || program_->prog_fd() < 0)
      program_.emplace(ingress::Program::load({cfg_.pin_dir, true}));
    program_->attach(p.ifindex);
  }
  if (!program_)
    program_.emplace(ingress::Program::load({cfg_.pin_dir, false}));
  program_->maps().set_port_config(p.ifindex, p.cfg.ingress);
  (void)first_run;
}

void Daemon::install()
{
  std::vector<std::string> created_planes;
  std::vector<Port *> touched;
  bool portfc_started = false;
  try {
    for (auto &pool : pools_) {
      if (!pool->plane) {
        pool->plane.emplace(plane::Plane::open(plane_path(cfg_, pool->cfg.settings.name),
                                               plane::Plane::Open::CreateIfMissing));
        if (pool->plane->created())
          created_planes.push_back(pool->plane->path());
      }
    }
    for (auto &p : ports_) {
      ensure_port(p, true);
      if (p.state == "installed")
        touched.push_back(&p);
    }
    // PortFC's classifier, after the ports' ingress program (it writes
    // into its maps); it undoes its own attachments if it fails.
    if (portfc_) {
      portfc_->start(cfg_.pin_dir);
      portfc_started = true;
    }
    // The hosts' congestion control (it undoes its own attachments).
    if (host_cc_)
      host_cc_->start();
  } catch (...) {
    // Nothing half-way: undo what this run installed.
    if (portfc_started) {
      try {
        PortFc::cleanup(portfc_->cfg(), cfg_.pin_dir);
      } catch (const std::exception &e) {
        log("rollback: %s", e.what());
      }
    }
    for (Port *p : touched) {
      try {
        rtnl_.delete_root(p->ifindex);
      } catch (const std::exception &e) {
        log("rollback: %s", e.what());
      }
      try {
        ingress::detach(p->ifindex);
      } catch (const std::exception &) {
      }
    }
    for (const auto &path : created_planes) {
      std::error_code ec;
      fs::remove(path, ec);
      fs::remove(fs::path(path).parent_path(), ec);
    }
    throw;
  }
  for (const auto &p : ports_)
    log("port %s (ifindex %d, pool %s): %s", p.cfg.dev.c_str(), p.ifindex, p.cfg.pool.c_str(),
        p.state.c_str());
}

void Daemon::start()
{
  check();
  install();
  start_control();
}

// The port as its qdisc reports it in the last telemetry; nullptr if none.
static const lossless_plane_port *telemetry_port(const Pool &pool, std::uint32_t ifindex)
{
  if (!pool.have_tel)
    return nullptr;
  for (std::uint32_t i = 0; i < pool.tel->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
    if (pool.tel->ports[i].ifindex == ifindex)
      return &pool.tel->ports[i];
  return nullptr;
}

// Its shaper's catch-up (headroom term 9) as a PortLink holds it; 0 if
// not reported.
static std::uint32_t link_catchup_bytes(const lossless_plane_port *tp)
{
  return tp ? static_cast<std::uint32_t>(std::min<std::uint64_t>(tp->catchup_bytes, UINT32_MAX))
            : 0;
}

void Daemon::update_links(Pool &pool) const
{
  auto &out = pool.inputs.ports;
  out.clear();
  pool.rate_from_tel.clear();
  for (const auto &p : ports_) {
    if (p.cfg.pool != pool.cfg.settings.name || !p.ifindex)
      continue;
    policy::PortLink l;
    l.ifindex = p.ifindex;
    l.dev = p.cfg.dev;
    l.up = p.up && p.state != "missing";
    const lossless_plane_port *tp = telemetry_port(pool, l.ifindex);
    l.rate_bps = p.cfg.rate_bps.value_or(0);
    if (!p.cfg.rate_bps)
      pool.rate_from_tel.push_back(out.size());
    if (!l.rate_bps && tp)
      l.rate_bps = tp->rate_bps;
    l.cable_delay_ns = p.cfg.cable_delay_ns;
    l.sw_delay_ns = p.cfg.sw_delay_ns;
    l.mtu_bytes = p.cfg.mtu.value_or(p.mtu) + 14 + 4;  // L2 header + VLAN, as the pool
    l.headroom_bytes = p.cfg.headroom_bytes;
    l.catchup_bytes = link_catchup_bytes(tp);
    l.mode = p.cfg.mode;
    out.push_back(l);
  }
  pool.links_stale = false;
}

// Whether the ports still have what the datapath reports: the rate of
// those without a configured one, and every port's catch-up (both known
// only after the first telemetry, and tc can change them).
bool Daemon::links_current(const Pool &pool)
{
  std::size_t next_rate = 0;
  for (std::size_t i = 0; i < pool.inputs.ports.size(); i++) {
    const auto &l = pool.inputs.ports[i];
    const lossless_plane_port *tp = telemetry_port(pool, l.ifindex);
    if (link_catchup_bytes(tp) != l.catchup_bytes)
      return false;
    if (next_rate < pool.rate_from_tel.size() && pool.rate_from_tel[next_rate] == i) {
      next_rate++;
      if ((tp ? tp->rate_bps : 0) != l.rate_bps)
        return false;
    }
  }
  return true;
}

void Daemon::tick_pool(Pool &pool)
{
  if (pool.links_stale || (pool.have_tel && !links_current(pool)))
    update_links(pool);
  // One line per event: a refused decision, a port's timer lateness.
  std::string notes = pool.run_policy();
  for (std::size_t at = 0; at < notes.size();) {
    std::size_t end = notes.find('\n', at);
    if (end == std::string::npos)
      end = notes.size();
    log("%.*s", static_cast<int>(end - at), notes.data() + at);
    at = end + 1;
  }
}

void Daemon::on_tick()
{
  auto t0 = Clock::now();
  ticks_++;
  for (auto &pool : pools_)
    tick_pool(*pool);
  if (portfc_)
    portfc_->poll(rtnl_, cc::monotonic_ns());
  busy_ += Clock::now() - t0;
  arm_tick();
}

void Daemon::arm_tick()
{
  tick_.expires_at(tick_.expiry() + cfg_.period);
  tick_.async_wait([this](const boost::system::error_code &ec) {
    if (!ec)
      on_tick();
  });
}

void Daemon::refresh_links()
{
  std::vector<Link> links;
  try {
    links = rtnl_.links();
  } catch (const std::exception &e) {
    log("%s", e.what());
    return;
  }
  for (auto &p : ports_) {
    auto l = std::find_if(links.begin(), links.end(),
                          [&](const Link &x) { return x.name == p.cfg.dev; });
    if (l == links.end()) {
      if (p.state != "missing")
        log("port %s: gone (removed or renamed)", p.cfg.dev.c_str());
      p.state = "missing";
      p.ifindex = 0;
      p.up = false;
      continue;
    }
    bool was_up = p.up;
    bool appeared = p.state == "missing" || p.ifindex != l->ifindex;
    p.ifindex = l->ifindex;
    p.up = l->up;
    p.mtu = l->mtu;
    if (appeared) {
      log("port %s: appeared as ifindex %d", p.cfg.dev.c_str(), p.ifindex);
      try {
        ensure_port(p, false);
      } catch (const std::exception &e) {
        p.state = std::string("failed: ") + e.what();
        log("port %s: %s", p.cfg.dev.c_str(), e.what());
      }
    } else if (was_up != p.up) {
      log("port %s: link %s", p.cfg.dev.c_str(), p.up ? "up" : "down");
    }
  }
  for (auto &pool : pools_)
    pool->links_stale = true;
  if (host_cc_)
    host_cc_->links(links);
  if (portfc_)
    portfc_->links(links);
}

void Daemon::arm_link_watch()
{
  if (!link_sock_) {
    link_sock_ = nl_socket_alloc();
    nl_socket_disable_seq_check(link_sock_);
    if (nl_connect(link_sock_, NETLINK_ROUTE) < 0 ||
        nl_socket_add_membership(link_sock_, RTNLGRP_LINK) < 0)
      throw std::runtime_error("netlink: cannot watch links");
    nl_socket_set_nonblocking(link_sock_);
    link_watch_ = std::make_unique<asio::posix::stream_descriptor>(
        io_, dup(nl_socket_get_fd(link_sock_)));
  }
  link_watch_->async_wait(asio::posix::stream_descriptor::wait_read,
                          [this](const boost::system::error_code &ec) {
                            if (ec)
                              return;
                            // Drain the notifications; re-read the links.
                            while (nl_recvmsgs_default(link_sock_) >= 0) {
                            }
                            refresh_links();
                            arm_link_watch();
                          });
}

struct Daemon::Session : std::enable_shared_from_this<Session> {
  // A request is one line of JSON, the largest a scheme's channel command
  // of a few KiB: a longer line is refused, so no client (root, but maybe
  // broken) can grow the daemon's memory without bound.
  static constexpr std::size_t kMaxRequestBytes = 64 * 1024;
  Session(Daemon &d, asio::local::stream_protocol::socket s)
      : daemon(d), sock(std::move(s)), buf(kMaxRequestBytes)
  {
  }
  void start()
  {
    ucred cred{};
    socklen_t len = sizeof(cred);
    if (getsockopt(sock.native_handle(), SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0) {
      reply(json{{"error", "permission denied: the control socket is root-only"}}.dump());
      return;
    }
    read();
  }
  void read()
  {
    auto self = shared_from_this();
    asio::async_read_until(sock, buf, '\n', [self](boost::system::error_code ec, std::size_t n) {
      if (ec == asio::error::not_found) {  // the line outgrew the buffer
        log("control socket: a request line longer than %zu bytes refused", kMaxRequestBytes);
        self->reply(json{{"error", "request refused: a request is one line of at most " +
                                       std::to_string(kMaxRequestBytes) + " bytes"}}
                        .dump());
        return;
      }
      if (ec)
        return;
      std::string line(asio::buffers_begin(self->buf.data()),
                       asio::buffers_begin(self->buf.data()) + n);
      self->buf.consume(n);
      self->reply(self->daemon.handle_request(line), true);
    });
  }
  void reply(std::string text, bool more = false)
  {
    auto self = shared_from_this();
    out = std::move(text) + "\n";
    asio::async_write(sock, asio::buffer(out),
                      [self, more](boost::system::error_code ec, std::size_t) {
                        if (!ec && more)
                          self->read();
                      });
  }
  Daemon &daemon;
  asio::local::stream_protocol::socket sock;
  asio::streambuf buf;
  std::string out;
};

void Daemon::start_control()
{
  std::error_code ec;
  fs::remove(cfg_.socket, ec);  // ours: the lock says no other daemon runs
  mode_t old = umask(0077);
  control_ = std::make_unique<asio::local::stream_protocol::acceptor>(
      io_, asio::local::stream_protocol::endpoint(cfg_.socket));
  umask(old);
  chmod(cfg_.socket.c_str(), 0600);
  accept_control();
}

void Daemon::accept_control()
{
  control_->async_accept(
      [this](boost::system::error_code ec, asio::local::stream_protocol::socket s) {
        if (ec)
          return;
        std::make_shared<Session>(*this, std::move(s))->start();
        accept_control();
      });
}

std::string Daemon::handle_request(const std::string &line)
{
  std::string malformed;
  std::optional<Request> req = parse_request(line, malformed);
  if (!req)
    return malformed;
  const std::string &cmd = req->cmd;
  if (cmd == "status") {
    json pools = json::array(), ports = json::array();
    for (const auto &p : pools_) {
      json params = json::object();
      for (const auto &pi : p->policy->params())
        params[pi.name] = pi.value;
      pools.push_back({{"name", p->cfg.settings.name},
                       {"policy", p->cfg.policy},
                       {"plane", p->plane ? p->plane->path() : ""},
                       {"params", params},
                       {"pushes", p->pushes},
                       {"refusals", p->refusals},
                       {"busy_reads", p->busy_reads},
                       {"last_push_latency_us", p->last_latency.count() / 1000},
                       {"pending", p->pending.has_value()}});
      // Changes made behind the daemon's back (policy/ownership.h).
      json counts = json::array(), last = json::array();
      for (const auto &[k, n] : p->foreign_counts)
        counts.push_back(
            {{"setting", k.setting}, {"source", k.source}, {"action", k.action}, {"count", n}});
      for (const auto &c : p->foreign_last)
        last.push_back({{"setting", c.setting},
                        {"dev", c.dev},
                        {"source", policy::source_name(c.source)},
                        {"action", policy::action_name(c.action)},
                        {"old", c.old_value},
                        {"new", c.new_value}});
      pools.back()["foreign_changes"] = {
          {"total", p->foreign_total}, {"counts", counts}, {"last", last}};
      // The headroom's premise per port: the XOFF response measured
      // against the software delay the policy sizes the headroom with.
      json premise = json::array();
      for (const auto &l : p->inputs.ports) {
        const lossless_plane_tel &t = *p->tel;
        for (std::uint32_t i = 0; p->have_tel && i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
          if (t.ports[i].ifindex == l.ifindex && l.ifindex)
            premise.push_back({{"dev", l.dev},
                               {"sw_delay_ns", p->policy->sw_delay_ns(l.ifindex)},
                               {"xoff_response_last_ns", t.premise[i].xoff_response_last_ns},
                               {"xoff_response_max_ns", t.premise[i].xoff_response_max_ns},
                               {"xoff_responses", t.premise[i].xoff_responses},
                               {"headroom_warnings", t.premise[i].headroom_warnings}});
      }
      pools.back()["premise"] = premise;
      // The scheme's agent (agent.h) and its control channel.
      if (json state = p->policy->channel_state(p->inputs); state.is_object()) {
        const policy::Registration *reg = policy::by_policy(p->cfg.policy);
        pools.back()["channel"] = {
            {"scheme", reg ? std::string(reg->scheme) : std::string()},
            {"state", state},
            {"blocks_written", p->channel_writes},
            {"blocks_refused", p->channel_refusals},
            {"last_seq", p->channel_seq},
            {"last_error",
             p->channel_error ? datapath_error_text(p->channel_error) : std::string()}};
      }
    }
    for (const auto &p : ports_)
      ports.push_back({{"dev", p.cfg.dev},
                       {"ifindex", p.ifindex},
                       {"pool", p.cfg.pool},
                       {"up", p.up},
                       {"state", p.state}});
    json reply = {{"pid", getpid()},
                  {"config", cfg_.source},
                  {"period_us", cfg_.period.count() / 1000},
                  {"ticks", ticks_},
                  {"busy_us", busy_.count() / 1000},
                  {"pools", pools},
                  {"ports", ports}};
    if (host_cc_)
      reply["host_cc"] = json::parse(host_cc_->status().dump());
    if (portfc_)
      reply["portfc"] = json::parse(portfc_->status().dump());
    return reply.dump();
  }
  if (cmd == "set") {
    Pool *pool = pool_named(req->pool);
    if (!pool)
      return json{{"error", "no pool \"" + req->pool + "\""}}.dump();
    std::string key = req->key, value = req->value;
    std::string old;
    for (const auto &pi : pool->policy->params())
      if (pi.name == key)
        old = pi.value;
    if (std::string err = pool->policy->set(key, value); !err.empty())
      return json{{"error", err}}.dump();
    // Push now and wait for the datapath's answer (a few ms).
    auto t0 = Clock::now();
    auto deadline = t0 + std::chrono::seconds(1);
    while (pool->pending && Clock::now() < deadline) {
      tick_pool(*pool);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    tick_pool(*pool);
    std::uint64_t gen = pool->pending ? pool->pending_gen : 0;
    while (pool->pending && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(100));
      tick_pool(*pool);
    }
    if (pool->pending)
      return json{{"error", "the datapath did not answer within 1 s"}}.dump();
    if (gen && pool->last_error) {
      pool->policy->set(key, old);  // a refused value leaves the old one
      return json{{"error", "the datapath refused " + key + " " + value + ": " +
                                datapath_error_text(pool->last_error)}}
          .dump();
    }
    return json{{"ok", true},
                {"gen", gen},
                {"latency_us",
                 std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count()}}
        .dump();
  }
  if (cmd == "scheme")
    return scheme_command(*req);
  if (cmd == "clear")
    return clear_command(*req);
  if (cmd == "move-scheme")
    return move_scheme_command(*req);
  if (cmd == "reload") {
    // systemd's Type=notify: reloading until the new configuration is
    // applied or refused, then ready again (notify.h).
    notify("RELOADING=1");
    try {
      reload();
    } catch (const std::exception &e) {
      notify("READY=1");
      return json{
          {"error", std::string("reload refused, the running configuration stays: ") + e.what()}}
          .dump();
    }
    notify("READY=1");
    return json{{"ok", true}}.dump();
  }
  if (cmd == "config") {
    json pools = json::array(), ports = json::array();
    for (const auto &p : cfg_.pools)
      pools.push_back({{"name", p.settings.name},
                       {"policy", p.policy},
                       {"buffer_bytes", p.buffer_bytes},
                       {"alpha", plane::format_alpha(p.settings.alpha)},
                       {"egress_alpha", plane::format_alpha(p.settings.egress_alpha)},
                       {"reserved_bytes", p.settings.reserved_bytes},
                       {"xon_offset_bytes", p.settings.xon_offset_bytes},
                       {"sw_delay_ns", p.settings.sw_delay_ns},
                       {"lossless_mask", p.settings.lossless_mask}});
    for (const auto &p : cfg_.ports)
      ports.push_back({{"dev", p.dev},
                       {"pool", p.pool},
                       {"rate_bps", p.rate_bps.value_or(0)},
                       {"cable_delay_ns", p.cable_delay_ns},
                       {"headroom_bytes", p.headroom_bytes},
                       {"watchdog", watchdog_json(p.watchdog)}});
    json reply = {{"source", cfg_.source}, {"pin_dir", cfg_.pin_dir},
                  {"socket", cfg_.socket}, {"period_us", cfg_.period.count() / 1000},
                  {"pools", pools},        {"ports", ports}};
    if (host_cc_)
      reply["host_cc"] = json::parse(host_cc_->config().dump());
    if (cfg_.portfc) {
      const config::Portfc &pf = *cfg_.portfc;
      reply["portfc"] = {{"role", std::string(config::portfc_role_name(pf.role))},
                         {"n", pf.n},
                         {"k", pf.k},
                         {"node", pf.node},
                         {"level", pf.level},
                         {"ports", pf.ports},
                         {"stuck_ns", pf.stuck_ns},
                         {"pin_dir", pf.pin_dir}};
    }
    return reply.dump();
  }
  return json{{"error", "unknown command \"" + cmd + "\" (status, config, set, scheme, clear, move-scheme, reload)"}}
      .dump();
}

// clear peaks (losslessctl clear peaks, SONiC's `watermark clear`): the
// named pool's peak watermarks, or every pool's, restart from what is in
// use now. The action goes into the plane's control entry alone
// (LOSSLESS_PLANE_SET_RESET_PEAKS), after the policy's pending entry, if
// any, was answered: the two never overwrite each other. Waits for the
// datapath (at most 1 s per pool).
std::string Daemon::clear_command(const Request &req)
{
  auto error = [](const std::string &msg) { return json{{"error", msg}}.dump(); };
  if (req.what != "peaks")
    return error("clear: unknown \"" + req.what + "\" (peaks)");
  std::vector<Pool *> pools;
  if (!req.pool.empty()) {
    Pool *p = pool_named(req.pool);
    if (!p)
      return error("no pool \"" + req.pool + "\"");
    pools.push_back(p);
  } else {
    for (auto &p : pools_)
      pools.push_back(p.get());
  }
  json done = json::array();
  for (Pool *pool : pools) {
    const std::string &name = pool->cfg.settings.name;
    if (!pool->plane)
      return error("pool " + name + ": no plane");
    auto t0 = Clock::now();
    auto deadline = t0 + std::chrono::seconds(1);
    while (pool->pending && Clock::now() < deadline) {
      tick_pool(*pool);
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    if (pool->pending)
      return error("pool " + name + ": the datapath did not answer the policy's last entry within 1 s");
    plane::Params p;
    p.reset_peaks = true;
    std::uint64_t gen = pool->plane->submit(p);
    auto a = pool->plane->wait_applied(gen, std::chrono::milliseconds(1000));
    if (!a)
      return error("pool " + name + ": the datapath did not take clear peaks within 1 s");
    if (a->error)
      return error("pool " + name + ": the datapath refused clear peaks: " +
                   datapath_error_text(a->error));
    done.push_back({{"pool", name},
                    {"gen", gen},
                    {"latency_us", std::chrono::duration_cast<std::chrono::microseconds>(
                                       Clock::now() - t0)
                                       .count()}});
  }
  return json{{"ok", true}, {"pools", done}}.dump();
}

// move-scheme (losslessctl move-scheme): the pool runs another scheme, as
// its policy the first that drives it (registry.h), with that scheme's
// parameters at their defaults (those derived from the ports, such as
// SPFC's window, from the ports' round trips with the software delay in
// force). A scheme changes only in an idle pool: plane::move_scheme()
// drains it, changes the scheme and resumes it, or at the timeout ends the
// drain and leaves everything as it was. The other pools are ticked
// meanwhile; this one's policy is not (the drain owns its control entry).
std::string Daemon::move_scheme_command(const Request &req)
{
  auto error = [](const std::string &msg) { return json{{"error", msg}}.dump(); };
  Pool *pool = pool_named(req.pool);
  if (!pool)
    return error("no pool \"" + req.pool + "\"");
  const std::string &name = pool->cfg.settings.name;
  const policy::Registration *from = policy::by_policy(pool->cfg.policy);
  const policy::Registration *to = policy::by_scheme(req.scheme);
  if (!to)
    return error("move-scheme: unknown scheme \"" + req.scheme + "\" (" +
                 policy::scheme_names() + ")");
  if (to->scheme == "portfc" || (from && from->scheme == "portfc"))
    return error("move-scheme: a portfc pool's ports are numbered for it ([portfc]); "
                 "it is neither moved to nor from");
  if (from && from->scheme == to->scheme)
    return error("pool " + name + " runs scheme " + req.scheme + " already");
  std::uint64_t timeout_ns = 5000000000ULL;
  if (!req.timeout.empty() &&
      (ll_units_time(req.timeout.c_str(), 600000000000ULL, &timeout_ns) || !timeout_ns))
    return error("move-scheme: timeout \"" + req.timeout + "\": must be a time 1ms .. 600s");
  if (!pool->plane)
    return error("pool " + name + ": no plane");
  if (pool->links_stale)
    update_links(*pool);
  // The new scheme's block, completed and checked against the ports as a
  // configuration's is (config_pool.cpp's scheme_checks()).
  policy::PoolSettings settings = pool->cfg.settings;
  settings.scheme = policy::default_block(*to);
  std::vector<policy::SchemePort> ports;
  for (const auto &l : pool->inputs.ports) {
    std::uint64_t sw_ns = pool->policy->sw_delay_ns(l.ifindex);
    policy::SchemePort sp;
    sp.dev = l.dev;
    sp.rtt_ns = 2 * (l.cable_delay_ns + sw_ns);
    sp.frame_bytes = l.mtu_bytes;
    sp.headroom_bytes = l.headroom_bytes ? l.headroom_bytes
                                         : policy::PfcPolicy::headroom_bytes(l, sw_ns);
    ports.push_back(sp);
  }
  std::string refused;
  if (to->configure) {
    policy::SchemeConfig sc;
    sc.given = [](const char *) { return false; };
    for (const auto &sp : ports)
      sc.max_rtt_ns = std::max(sc.max_rtt_ns, sp.rtt_ns);
    sc.block = &settings.scheme;
    to->configure(sc);
    for (const auto &i : sc.issues)
      if (i.error)
        refused += "; " + i.msg;
  }
  for (const auto &i : policy::check_scheme(settings, ports))
    if (i.error)
      refused += "; " + (i.port >= 0 ? "port " + ports[i.port].dev + ": " : "") + i.msg;
  if (!refused.empty())
    return error("pool " + name + ": scheme " + req.scheme + " refused" + refused.substr(1));
  auto next = to->make(*to, settings);
  // The policy's entry in flight answered first: the drain's entries
  // must not overwrite it.
  auto t0 = Clock::now();
  while (pool->pending && Clock::now() < t0 + std::chrono::seconds(1)) {
    tick_pool(*pool);
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  if (pool->pending)
    return error("pool " + name + ": the datapath did not answer the policy's last entry within 1 s");
  std::string from_name = from ? std::string(from->scheme) : "?";
  plane::MoveResult r = plane::move_scheme(
      *pool->plane, settings.scheme, from_name, to->scheme,
      std::chrono::milliseconds(timeout_ns / 1000000), [&] {
        for (auto &p : pools_)
          if (p.get() != pool)
            tick_pool(*p);
      });
  if (!r.error.empty()) {
    log("pool %s: move-scheme %s: %s", name.c_str(), req.scheme.c_str(), r.error.c_str());
    return error("pool " + name + ": " + r.error);
  }
  pool->policy = std::move(next);
  pool->cfg.policy = std::string(to->policy);
  pool->cfg.settings = settings;
  pool->links_stale = true;
  log("pool %s: moved from scheme %s to %s (drained in %.1f ms); the configuration file "
      "still names policy %s until it is edited",
      name.c_str(), from_name.c_str(), req.scheme.c_str(), r.drain_time.count() / 1e6,
      from ? std::string(from->policy).c_str() : "?");
  return json{{"ok", true},
              {"pool", name},
              {"from", from_name},
              {"to", std::string(to->scheme)},
              {"policy", std::string(to->policy)},
              {"gen", r.gen},
              {"drain_ms", r.drain_time.count() / 1e6},
              {"latency_us",
               std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count()}}
      .dump();
}

// A command for the pool's scheme, run by its agent (agent.h).
// When it changes what the agent writes, wait for the datapath to apply
// the control channel block that carries it (at most 1 s); on a refusal
// or no answer, take the change back.
std::string Daemon::scheme_command(const Request &req)
{
  auto error = [](const std::string &msg) { return json{{"error", msg}}.dump(); };
  Pool *pool = pool_named(req.pool);
  if (!pool)
    return error("no pool \"" + req.pool + "\"");
  const policy::Registration *reg = policy::by_policy(pool->cfg.policy);
  if (req.args.empty()) {
    std::string usage;
    for (const auto &u : pool->policy->command_usage())
      usage += "; " + u;
    return error("pool " + req.pool + ": no command given" +
                 (usage.empty() ? " (its scheme takes none)"
                                : " (its scheme takes" + usage.substr(1) + ")"));
  }
  if (pool->links_stale)
    update_links(*pool);
  if (reg && pool->have_tel && pool->tel->scheme.id != reg->scheme_id)
    return error("pool " + req.pool + ": its datapath does not run scheme " +
                 std::string(reg->scheme));
  pool->inputs.pool = &pool->cfg.settings;
  pool->inputs.telemetry = pool->have_tel ? pool->tel.get() : nullptr;
  policy::CommandResult r = pool->policy->command(req.args, pool->inputs);
  if (!r.error.empty())
    return json{{"error", "pool " + req.pool + ": " + r.error}, {"usage", r.usage}}.dump();
  auto t0 = Clock::now();
  auto reply = [&](std::uint64_t seq) {
    json out = r.reply;
    out["ok"] = true;
    out["seq"] = seq;
    out["latency_us"] =
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
    return out.dump();
  };
  if (!r.changed)
    return reply(0);  // nothing to write
  // Write it now, then wait for the datapath's answer (a tick or two):
  // the first block written from now on carries it, and so does every
  // later one (the agent may write one per window meanwhile).
  std::uint64_t before = pool->channel_seq, target = 0;
  auto deadline = t0 + std::chrono::seconds(1);
  auto answered = [&] {
    tick_pool(*pool);
    if (!target && pool->channel_seq != before)
      target = pool->channel_seq;
    return target && pool->have_tel && pool->tel->channel_applied_seq >= target;
  };
  while (!answered() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (!target || !pool->have_tel || pool->tel->channel_applied_seq < target) {
    if (r.undo)
      r.undo();
    return error("the datapath did not answer within 1 s (is the pool's plane ticking?)");
  }
  if (int err = -pool->tel->channel_apply_error) {
    if (r.undo)
      r.undo();  // a refusal leaves the old state
    std::string what;
    for (const auto &a : req.args)
      what += " " + a;
    return error("the datapath refused" + what + ": " + datapath_error_text(err));
  }
  return reply(pool->tel->channel_applied_seq);
}

void Daemon::reload()
{
  Config next = loader_(cfg_.source);
  // [host_cc]: prepared (checked on this system) before anything changes.
  std::unique_ptr<HostCc> next_cc;
  if (next.host_cc)
    next_cc = std::make_unique<HostCc>(HostCc::prepare(*next.host_cc, next.source));
  if (host_cc_ && next_cc && host_cc_->cfg().pin_dir != next_cc->cfg().pin_dir)
    throw std::runtime_error("[host_cc] pin-dir cannot change by a reload; restart losslessd");
  // [portfc]: only its stuck may change by a reload (its sizing is
  // checked again, against next's pools).
  if (!next.portfc != !portfc_)
    throw std::runtime_error("[portfc] cannot be added or removed by a reload; restart losslessd");
  std::unique_ptr<PortFc> next_pf;
  if (next.portfc) {
    next_pf = prepare_portfc(next, rtnl_.links());
    portfc_->reload_check(*next_pf);  // applied below, after every check
  }
  // Pools and their policies must stay the same set; parameters may change.
  if (next.pools.size() != cfg_.pools.size())
    throw std::runtime_error("pools cannot be added or removed by a reload; restart losslessd");
  for (const auto &pc : next.pools) {
    Pool *p = pool_named(pc.settings.name);
    if (!p || p->cfg.policy != pc.policy)
      throw std::runtime_error("pool \"" + pc.settings.name +
                               "\": pools and policies cannot change by a reload");
  }
  // [host_cc] first: added (started), changed (reconfigured in place) or
  // removed (its ports detached; the pinned maps stay until --cleanup).
  // It undoes its own changes if it fails, and nothing else has changed
  // by then.
  if (next_cc && host_cc_) {
    host_cc_->reconfigure(std::move(*next_cc));
  } else if (next_cc) {
    next_cc->start();
    host_cc_ = std::move(next_cc);
  } else if (host_cc_) {
    config::HostCc old = host_cc_->cfg();
    host_cc_.reset();
    for (const std::string &dev : old.ports)
      if (unsigned idx = if_nametoindex(dev.c_str()); idx && cc::attached(idx).any())
        cc::detach(idx);
    log("host_cc: removed from the configuration: detached from its ports");
  }
  if (next_pf)
    portfc_->reconfigure(*next_pf);  // checked above: cannot fail
  cfg_.host_cc = next.host_cc;
  cfg_.portfc = next.portfc;
  for (const auto &pc : next.pools) {
    Pool *p = pool_named(pc.settings.name);
    p->cfg = pc;
    // The scheme agent's state (a forced state, say) is run-time state:
    // kept.
    auto next_policy = policy::make(pc.policy, pc.settings);
    next_policy->carry_over(*p->policy);
    p->policy = std::move(next_policy);
  }
  std::vector<Port> ports;
  for (const auto &pc : next.ports) {
    Port p;
    p.cfg = pc;
    for (const auto &old : ports_)
      if (old.cfg.dev == pc.dev && old.cfg.watchdog && !pc.watchdog)
        p.wd_turn_off = true;
    ports.push_back(p);
  }
  ports_ = std::move(ports);
  cfg_.pools = next.pools;
  cfg_.ports = next.ports;
  refresh_links();  // new ports get installed, the others adopted
}

void Daemon::run()
{
  std::optional<MetricsServer> prom;  // [daemon] prometheus: GET /metrics, until run() returns
  if (cfg_.prometheus) {
    prom.emplace(io_, *cfg_.prometheus, [this] {
      std::optional<metrics::HostCcSample> cc;
      if (host_cc_)
        cc = host_cc_->sample();
      std::optional<metrics::PortfcSample> pf;
      if (portfc_)
        pf = portfc_->sample();
      return metrics::render_daemon(pools_, ports_, ticks_, busy_, cc ? &*cc : nullptr,
                                    pf ? &*pf : nullptr);
    });
    log("metrics: http://%s/metrics", cfg_.prometheus->c_str());
  }
  signals_.async_wait([this](const boost::system::error_code &, int sig) {
    notify("STOPPING=1");
    log("signal %d: exiting; the datapath keeps running", sig);
    io_.stop();
  });
  arm_link_watch();
  refresh_links();
  tick_.expires_at(Clock::now());
  arm_tick();
  log("running: %zu pools, %zu ports%s%s, period %lld us, control %s", pools_.size(), ports_.size(),
      host_cc_ ? (", host_cc " + std::string(cc::algo_name(host_cc_->params().algo))).c_str() : "",
      portfc_ ? (", portfc " + portfc_->summary()).c_str() : "",
      static_cast<long long>(cfg_.period.count() / 1000), cfg_.socket.c_str());
  // Ready (systemd's Type=notify): every port installed or adopted, the
  // pools' planes pinned and given to the datapath, the control socket
  // listening; units ordered After=losslessd.service start from here.
  notify("READY=1");
  io_.run();
}

void Daemon::cleanup(const Config &cfg)
{
  // PortFC first: it takes its ports out of the ingress maps, which go
  // below.
  if (cfg.portfc)
    PortFc::cleanup(*cfg.portfc, cfg.pin_dir);
  Rtnl rtnl;
  auto links = rtnl.links();
  for (const auto &pc : cfg.ports) {
    auto l = std::find_if(links.begin(), links.end(),
                          [&](const Link &x) { return x.name == pc.dev; });
    if (l == links.end())
      continue;
    auto q = rtnl.root_qdisc(l->ifindex);
    if (q && q->kind == "lossless" && q->pool == pc.pool) {
      rtnl.delete_root(l->ifindex);
      log("port %s: lossless qdisc removed", pc.dev.c_str());
    }
    if (ingress::attached_prog_id(l->ifindex)) {
      ingress::detach(l->ifindex);
      log("port %s: ingress program detached", pc.dev.c_str());
    }
  }
  std::error_code ec;
  for (const auto &pc : cfg.pools) {
    fs::remove(plane_path(cfg, pc.settings.name), ec);
    fs::remove(fs::path(plane_path(cfg, pc.settings.name)).parent_path(), ec);
  }
  for (const char *m : {LL_INGRESS_MAP_PORT_CFG, LL_INGRESS_MAP_DSCP, LL_INGRESS_MAP_PRIO_STATS,
                        LL_INGRESS_MAP_CTRL_STATS, LL_INGRESS_MAP_PORTFC})
    fs::remove(fs::path(cfg.pin_dir) / m, ec);
  fs::remove(cfg.pin_dir, ec);  // only if empty
  if (cfg.host_cc)
    HostCc::cleanup(*cfg.host_cc);
  log("cleaned up %zu ports and %zu pools%s%s", cfg.ports.size(), cfg.pools.size(),
      cfg.host_cc ? " and host_cc" : "", cfg.portfc ? " and portfc" : "");
}

}  // namespace lossless::daemon
