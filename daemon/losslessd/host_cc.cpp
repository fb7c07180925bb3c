// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "host_cc.h"

#include <net/if.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "cc_json.h"
#include "daemon.h"  // device_speed_mbps

namespace lossless::daemon {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr std::uint64_t kRefreshMinNs = 100000000;   // 100 ms
constexpr std::uint64_t kRefreshMaxNs = 1000000000;  // 1 s

metrics::HostCcFlow flow_sample(const char *map, const cc::FlowSummary &f, bool other)
{
  metrics::HostCcFlow m;
  m.map = map;
  m.flow = other ? "other" : cc::flow_text(f.key);
  m.rate_bps = f.rate_kbps * 1000;
  m.bytes = f.bytes;
  m.pkts = f.pkts;
  m.ce_pkts = f.ce_pkts;
  m.cnps = f.cnps;
  m.flows = other ? f.flows : 1;  // TopView's rest counts its flows
  return m;
}

}  // namespace

HostCc HostCc::prepare(const config::HostCc &cfg, const std::string &source)
{
  std::string at = source + ":" + std::to_string(cfg.line) + ": [host_cc]: ";
  HostCc h;
  h.cfg_ = cfg;
  h.source_ = source;
  try {
    cc::check_bpffs(cfg.pin_dir);
  } catch (const std::exception &e) {
    throw std::runtime_error(at + "pin-dir \"" + cfg.pin_dir + "\": " + ingress::error_text(e));
  }
  std::uint32_t lowest = 0;
  std::string lowest_dev;
  for (const std::string &dev : cfg.ports) {
    Port p;
    p.dev = dev;
    p.ifindex = if_nametoindex(dev.c_str());
    if (!p.ifindex)
      throw std::runtime_error(at + "ports: \"" + dev + "\": no such network device");
    p.speed_mbps = device_speed_mbps(dev);
    if (!cfg.line_rate_kbps && !p.speed_mbps)
      throw std::runtime_error(at + "ports: \"" + dev +
                               "\": line-rate \"auto\" needs a link speed, and the device "
                               "reports none (give line-rate, as \"10gbit\")");
    if (p.speed_mbps && (!lowest || p.speed_mbps < lowest)) {
      lowest = p.speed_mbps;
      lowest_dev = dev;
    }
    h.ports_.push_back(p);
  }
  if (cfg.params) {
    h.params_ = *cfg.params;
  } else {
    std::uint64_t kbps = cfg.line_rate_kbps ? *cfg.line_rate_kbps : std::uint64_t(lowest) * 1000;
    std::uint32_t line = 0;
    std::string msg = config::host_cc_params(cfg, kbps, &h.params_, &line);
    if (!msg.empty())
      throw std::runtime_error(source + ":" + std::to_string(line ? line : cfg.line) +
                               ": [host_cc]: " + msg +
                               (cfg.line_rate_kbps ? "" : " (line-rate \"auto\": the link speed of " +
                                                              lowest_dev + ")"));
  }
  return h;
}

std::uint64_t HostCc::refresh_period_ns() const
{
  std::uint64_t p = cfg_.gc_idle_ns ? cfg_.gc_idle_ns / 4 : kRefreshMaxNs;
  return std::clamp(p, kRefreshMinNs, kRefreshMaxNs);
}

void HostCc::attach(Port &p)
{
  p.ids = program_->attach(p.ifindex);
  p.state = "attached";
}

void HostCc::start()
{
  std::vector<Port *> attached;
  try {
    program_.emplace(cc::Program::load({cfg_.pin_dir, true}));
    for (Port &p : ports_) {
      bool had = cc::attached(p.ifindex).any();
      attach(p);
      if (!had)
        attached.push_back(&p);
    }
    program_->maps().set_config(params_);
  } catch (const std::exception &e) {
    for (Port *p : attached) {
      try {
        cc::detach(p->ifindex);
      } catch (const std::exception &) {
      }
    }
    throw std::runtime_error(source_ + ":" + std::to_string(cfg_.line) + ": [host_cc]: " +
                             ingress::error_text(e));
  }
  std::string devs;
  for (const Port &p : ports_)
    devs += (devs.empty() ? "" : ", ") + p.dev;
  log("host_cc: %s at line rate %s%s on %s (maps in %s), gc of flows idle %s",
      std::string(cc::algo_name(params_.algo)).c_str(),
      cc::rate_text(line_rate_kbps()).c_str(), cfg_.line_rate_kbps ? "" : " (auto)",
      devs.c_str(), cfg_.pin_dir.c_str(),
      cfg_.gc_idle_ns ? cc::time_text(cfg_.gc_idle_ns).c_str() : "never");
  worker_ = std::make_unique<Worker>();
  worker_->gc_idle_ns = cfg_.gc_idle_ns;
  worker_->period_ns = refresh_period_ns();
  worker_->top_flows = cfg_.top_flows;
  try {
    worker_->maps.emplace(cc::Maps::open_pinned(cfg_.pin_dir));
  } catch (const std::exception &e) {
    log("host_cc: telemetry: %s", ingress::error_text(e).c_str());  // status says it
  }
  refresh(cc::monotonic_ns());
  worker_->thread = std::thread([w = worker_.get()] { w->run(); });
}

HostCc &HostCc::operator=(HostCc &&o) noexcept
{
  if (this != &o) {
    stop_worker();
    cfg_ = std::move(o.cfg_);
    source_ = std::move(o.source_);
    params_ = o.params_;
    ports_ = std::move(o.ports_);
    program_ = std::move(o.program_);
    worker_ = std::move(o.worker_);
  }
  return *this;
}

HostCc::~HostCc()
{
  stop_worker();
}

void HostCc::stop_worker()
{
  if (!worker_)
    return;
  {
    std::lock_guard<std::mutex> lock(worker_->mu);
    worker_->stop = true;
  }
  worker_->cv.notify_all();
  if (worker_->thread.joinable())
    worker_->thread.join();
  worker_.reset();
}

void HostCc::Worker::run()
{
  std::unique_lock<std::mutex> lock(mu);
  for (;;) {
    cv.wait_for(lock, std::chrono::nanoseconds(period_ns), [&] { return stop; });
    if (stop)
      return;
    lock.unlock();
    round(cc::monotonic_ns());
    lock.lock();
  }
}

// One round: gc, then the snapshot; the maps are read without the lock.
void HostCc::Worker::round(std::uint64_t now_ns)
{
  std::uint64_t idle;
  std::size_t n;
  {
    std::lock_guard<std::mutex> lock(mu);
    idle = gc_idle_ns;
    n = top_flows;
  }
  Snapshot next;
  cc::GcResult r;
  bool gc_ran = false;
  try {
    if (!maps)
      throw std::runtime_error("no maps");
    if (idle) {
      r = maps->gc(idle, now_ns);
      gc_ran = true;
    }
    next.stats = maps->stats();
    std::vector<cc::FlowSummary> np, rp;
    for (const auto &f : maps->np_flows())
      np.push_back(cc::summary(f));
    for (const auto &f : maps->rp_flows())
      rp.push_back(cc::summary(f));
    next.np = cc::top(std::move(np), n);
    next.rp = cc::top(std::move(rp), n);
    next.snapshot_ns = now_ns;
  } catch (const std::exception &e) {
    next.last_error = ingress::error_text(e);
  }
  std::lock_guard<std::mutex> lock(mu);
  next.gc_runs = snap.gc_runs + gc_ran;
  next.gc_np_deleted = snap.gc_np_deleted + r.np_deleted;
  next.gc_rp_deleted = snap.gc_rp_deleted + r.rp_deleted;
  if (!next.last_error.empty()) {
    if (next.last_error != snap.last_error)
      log("host_cc: telemetry: %s", next.last_error.c_str());
    // Keep the last good snapshot, with the error beside it.
    std::string err = next.last_error;
    snap.gc_runs = next.gc_runs;
    snap.gc_np_deleted = next.gc_np_deleted;
    snap.gc_rp_deleted = next.gc_rp_deleted;
    snap.last_error = err;
    return;
  }
  snap = std::move(next);
}

HostCc::Snapshot HostCc::snapshot() const
{
  if (!worker_)
    return {};
  std::lock_guard<std::mutex> lock(worker_->mu);
  return worker_->snap;
}

void HostCc::reconfigure(HostCc next)
{
  if (next.cfg_.pin_dir != cfg_.pin_dir)
    throw std::runtime_error("[host_cc] pin-dir cannot change by a reload; restart losslessd");
  // The same programs and maps: attached to next's ports (in place for
  // those kept), next's parameters written. A failure leaves this one.
  next.program_ = std::move(program_);
  program_.reset();
  try {
    for (Port &p : next.ports_)
      next.attach(p);
    next.program_->maps().set_config(next.params_);
  } catch (...) {
    program_ = std::move(next.program_);
    throw;
  }
  // Ports no longer listed: detached (the configuration says where the
  // programs run).
  for (const Port &p : ports_) {
    bool kept = std::any_of(next.ports_.begin(), next.ports_.end(),
                            [&](const Port &n) { return n.dev == p.dev; });
    if (!kept && p.ifindex && cc::attached(p.ifindex).any()) {
      try {
        cc::detach(p.ifindex);
        log("host_cc: port %s: detached (no longer in ports)", p.dev.c_str());
      } catch (const std::exception &e) {
        log("host_cc: port %s: %s", p.dev.c_str(), ingress::error_text(e).c_str());
      }
    }
  }
  // The worker goes on (same maps, same counts) with next's settings.
  std::unique_ptr<Worker> w = std::move(worker_);
  *this = std::move(next);
  worker_ = std::move(w);
  if (worker_) {
    {
      std::lock_guard<std::mutex> lock(worker_->mu);
      worker_->gc_idle_ns = cfg_.gc_idle_ns;
      worker_->period_ns = refresh_period_ns();
      worker_->top_flows = cfg_.top_flows;
    }
    worker_->cv.notify_all();
  }
  log("host_cc: reconfigured: %s at line rate %s", std::string(cc::algo_name(params_.algo)).c_str(),
      cc::rate_text(line_rate_kbps()).c_str());
}

void HostCc::links(const std::vector<Link> &links)
{
  for (Port &p : ports_) {
    auto l = std::find_if(links.begin(), links.end(),
                          [&](const Link &x) { return x.name == p.dev; });
    if (l == links.end()) {
      if (p.state != "missing")
        log("host_cc: port %s: gone", p.dev.c_str());
      p.state = "missing";
      p.ifindex = 0;
      p.ids = {};
      continue;
    }
    if (p.state == "attached" && p.ifindex == static_cast<std::uint32_t>(l->ifindex))
      continue;
    p.ifindex = static_cast<std::uint32_t>(l->ifindex);
    try {
      attach(p);
      log("host_cc: port %s: attached (ifindex %u)", p.dev.c_str(), p.ifindex);
    } catch (const std::exception &e) {
      p.state = "failed: " + ingress::error_text(e);
      log("host_cc: port %s: %s", p.dev.c_str(), p.state.c_str());
    }
  }
}

void HostCc::refresh(std::uint64_t now_ns)
{
  if (worker_)
    worker_->round(now_ns);
}

ordered_json HostCc::status() const
{
  ordered_json j;
  j["algo"] = std::string(cc::algo_name(params_.algo));
  j["pin_dir"] = cfg_.pin_dir;
  j["line_rate_kbps"] = line_rate_kbps();
  j["line_rate_auto"] = !cfg_.line_rate_kbps.has_value();
  j["config"] = cc::config_json(params_);
  ordered_json ports = ordered_json::array();
  for (Port p : ports_) {
    if (p.ifindex)
      p.ids = cc::attached(p.ifindex);  // as the kernel has it now
    ordered_json pj;
    pj["dev"] = p.dev;
    pj["ifindex"] = p.ifindex;
    pj["speed_mbps"] = p.speed_mbps;
    pj["state"] = p.state;
    pj["ingress_prog_id"] = p.ids.ingress ? ordered_json(*p.ids.ingress) : ordered_json();
    pj["egress_prog_id"] = p.ids.egress ? ordered_json(*p.ids.egress) : ordered_json();
    ports.push_back(pj);
  }
  j["ports"] = ports;
  Snapshot snap = snapshot();
  cc::Stats st{};
  if (snap.stats)
    st = *snap.stats;
  ordered_json cj = cc::counters_json(st);
  std::uint64_t malformed = 0;
  for (const auto &[name, v] : cc::parse_errors(st))
    malformed += v;
  cj["cnp_malformed"] = malformed;
  j["counters"] = cj;
  j["gc"] = {{"idle_ns", cfg_.gc_idle_ns},
             {"runs", snap.gc_runs},
             {"np_deleted", snap.gc_np_deleted},
             {"rp_deleted", snap.gc_rp_deleted}};
  j["snapshot_ns"] = snap.snapshot_ns;
  j["refresh_ns"] = refresh_period_ns();
  j["top_flows"] = cfg_.top_flows;
  j["np_flows"] = cc::top_json(snap.np, true);
  j["rp_flows"] = cc::top_json(snap.rp, false);
  if (!snap.last_error.empty())
    j["last_error"] = snap.last_error;
  return j;
}

ordered_json HostCc::config() const
{
  ordered_json j;
  j["algo"] = std::string(cc::algo_name(cfg_.algo));
  j["ports"] = cfg_.ports;
  j["line_rate"] = cfg_.line_rate_kbps ? cc::rate_text(*cfg_.line_rate_kbps) : "auto";
  j["gc_idle_ns"] = cfg_.gc_idle_ns;
  j["pin_dir"] = cfg_.pin_dir;
  j["top_flows"] = cfg_.top_flows;
  ordered_json given = ordered_json::object();
  for (const auto &g : cfg_.given)
    given[g.key] = g.text;
  j["given"] = given;
  j["params"] = cc::config_json(params_);
  return j;
}

metrics::HostCcSample HostCc::sample() const
{
  metrics::HostCcSample s;
  s.algo = std::string(cc::algo_name(params_.algo));
  Snapshot snap = snapshot();
  cc::Stats st{};
  if (snap.stats)
    st = *snap.stats;
  for (const auto &[name, v] : cc::counters(st))
    s.counters.emplace_back(name, v);
  for (const auto &[name, v] : cc::parse_errors(st))
    s.parse_errors.emplace_back(name, v);
  s.np_flows = snap.np.total_flows;
  s.rp_flows = snap.rp.total_flows;
  s.gc_np_deleted = snap.gc_np_deleted;
  s.gc_rp_deleted = snap.gc_rp_deleted;
  for (const auto &[map, v] : {std::pair<const char *, const cc::TopView *>{"np", &snap.np},
                               std::pair<const char *, const cc::TopView *>{"rp", &snap.rp}}) {
    for (const auto &f : v->top)
      s.flows.push_back(flow_sample(map, f, false));
    s.flows.push_back(flow_sample(map, v->rest, true));
  }
  return s;
}

void HostCc::cleanup(const config::HostCc &cfg)
{
  for (const std::string &dev : cfg.ports) {
    unsigned idx = if_nametoindex(dev.c_str());
    if (!idx || !cc::attached(idx).any())
      continue;
    cc::detach(idx);
    log("host_cc: port %s: congestion control detached", dev.c_str());
  }
  std::error_code ec;
  for (const char *m : {LL_CC_MAP_CFG, LL_CC_MAP_NP, LL_CC_MAP_RP, LL_CC_MAP_STATS})
    fs::remove(fs::path(cfg.pin_dir) / m, ec);
  fs::remove(cfg.pin_dir, ec);  // only if empty
}

}  // namespace lossless::daemon
