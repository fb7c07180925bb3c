// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "portfc_node.h"

#include <arpa/inet.h>
#include <net/if.h>

#include <algorithm>
#include <stdexcept>

#include "cc.h"      // monotonic_ns
#include "daemon.h"  // log

namespace lossless::daemon {

using nlohmann::ordered_json;
namespace pf = lossless::portfc;

namespace {

constexpr std::uint64_t kPollMinNs = 50000000;    // 50 ms
constexpr std::uint64_t kPollMaxNs = 1000000000;  // 1 s
constexpr std::size_t kMaxEvents = 32;

std::string dotted(std::uint32_t host)
{
  in_addr a{htonl(host)};
  char buf[INET_ADDRSTRLEN];
  return inet_ntop(AF_INET, &a, buf, sizeof(buf));
}

}  // namespace

PortFc PortFc::prepare(const config::Portfc &cfg, const std::string &source,
                       const std::optional<SwitchInputs> &sw)
{
  std::string at = source + ":" + std::to_string(cfg.line) + ": [portfc]: ";
  PortFc p;
  p.cfg_ = cfg;
  p.source_ = source;
  p.stuck_.set_stuck_ns(cfg.stuck_ns);
  bool server = cfg.role == config::PortfcRole::Server;
  ll_bcube b{cfg.n, cfg.k};
  p.plan_ = pf::port_queues(b, server);
  try {
    ingress::check_bpffs(cfg.pin_dir);
  } catch (const std::exception &e) {
    throw std::runtime_error(at + "pin-dir \"" + cfg.pin_dir + "\": " + ingress::error_text(e));
  }
  for (const std::string &dev : cfg.ports) {
    Port port;
    port.dev = dev;
    port.ifindex = if_nametoindex(dev.c_str());
    if (!port.ifindex)
      throw std::runtime_error(at + "ports: \"" + dev + "\": no such network device");
    p.ports_.push_back(port);
  }
  // Each port's position, as the classifier will check it.
  pf::Node nd = p.node();
  for (std::size_t i = 0; i < p.ports_.size(); i++)
    if (std::string why = pf::check(pf::port_of(nd, i)); !why.empty())
      throw std::runtime_error(at + why);
  if (!server && sw) {
    pf::Sizing s = pf::size_switch(b, sw->given, sw->link, cfg.relay_queue_bytes, sw->buffer_bytes);
    if (!s.error.empty())
      throw std::runtime_error(source + ":" +
                               std::to_string(sw->pool_line ? sw->pool_line : cfg.line) +
                               ": pool \"" + cfg.pool + "\": portfc: " + s.error);
    p.sizing_ = s;
  }
  return p;
}

pf::Node PortFc::node() const
{
  pf::Node nd;
  nd.b = {cfg_.n, cfg_.k};
  nd.role = cfg_.role == config::PortfcRole::Server ? LL_PORTFC_ROLE_SERVER : LL_PORTFC_ROLE_SWITCH;
  nd.node = cfg_.node;
  nd.level = cfg_.level;
  nd.major = 1;  // losslessd installs its qdiscs as 1:
  return nd;
}

std::string PortFc::summary() const
{
  std::string b = "BCube(" + std::to_string(cfg_.n) + "," + std::to_string(cfg_.k) + ")";
  if (cfg_.role == config::PortfcRole::Server)
    return "server " + std::to_string(cfg_.node) + " of " + b;
  return "switch " + std::to_string(cfg_.node) + " at level " + std::to_string(cfg_.level) +
         " of " + b;
}

void PortFc::attach_all()
{
  std::vector<std::uint32_t> ifindexes;
  for (const Port &p : ports_)
    ifindexes.push_back(p.ifindex);
  std::vector<std::uint32_t> ids = pf::attach_node(*program_, node(), ifindexes,
                                                   ingress_ ? &*ingress_ : nullptr);
  for (std::size_t i = 0; i < ports_.size(); i++) {
    ports_[i].prog_id = ids[i];
    ports_[i].state = "attached";
  }
}

void PortFc::start(const std::string &ingress_pin_dir)
{
  std::vector<std::uint32_t> fresh;
  for (const Port &p : ports_)
    if (!pf::attached(p.ifindex))
      fresh.push_back(p.ifindex);
  try {
    program_.emplace(pf::Program::load(cfg_.pin_dir));
    ingress_.emplace(ingress::Maps::open_pinned(ingress_pin_dir));
    pf::write_addrs(*program_, {cfg_.n, cfg_.k}, cfg_.base);
    attach_all();
  } catch (const std::exception &e) {
    for (std::uint32_t ifindex : fresh) {
      try {
        if (program_)
          pf::detach_port(*program_, ifindex, ingress_ ? &*ingress_ : nullptr);
      } catch (const std::exception &) {
      }
    }
    throw std::runtime_error(source_ + ":" + std::to_string(cfg_.line) +
                             ": [portfc]: " + ingress::error_text(e));
  }
  std::string devs;
  for (const Port &p : ports_)
    devs += (devs.empty() ? "" : ", ") + p.dev;
  log("portfc: %s on %s (%u queues a port, addresses from %s, maps in %s)%s", summary().c_str(),
      devs.c_str(), plan_.queues, dotted(cfg_.base).c_str(), cfg_.pin_dir.c_str(),
      cfg_.stuck_ns ? (", stuck after " + pf::duration_text(cfg_.stuck_ns)).c_str()
                    : ", no stuck detector");
  if (sizing_)
    log("portfc: thresholds xoff-a %llu xon-a %llu xoff-b %llu xon-b %llu bytes (BDP %llu); "
        "the pool needs %llu of its %llu bytes (O1 %llu, O2 %llu)",
        static_cast<unsigned long long>(sizing_->t.xoff_a_bytes),
        static_cast<unsigned long long>(sizing_->t.xon_a_bytes),
        static_cast<unsigned long long>(sizing_->t.xoff_b_bytes),
        static_cast<unsigned long long>(sizing_->t.xon_b_bytes),
        static_cast<unsigned long long>(sizing_->bdp_bytes),
        static_cast<unsigned long long>(sizing_->need.pool_bytes),
        static_cast<unsigned long long>(sizing_->buffer_bytes),
        static_cast<unsigned long long>(sizing_->need.o1_bytes),
        static_cast<unsigned long long>(sizing_->need.o2_bytes));
}

void PortFc::links(const std::vector<Link> &links)
{
  bool changed = false;
  for (Port &p : ports_) {
    auto l = std::find_if(links.begin(), links.end(),
                          [&](const Link &x) { return x.name == p.dev; });
    if (l == links.end()) {
      if (p.state != "missing")
        log("portfc: port %s: gone", p.dev.c_str());
      p.state = "missing";
      p.ifindex = 0;
      p.prog_id = 0;
      continue;
    }
    if (p.ifindex != static_cast<std::uint32_t>(l->ifindex) || p.state != "attached") {
      p.ifindex = static_cast<std::uint32_t>(l->ifindex);
      changed = true;
    }
  }
  // The relay lists name every port: attach again once all are there.
  bool all = std::all_of(ports_.begin(), ports_.end(), [](const Port &p) { return p.ifindex; });
  if (!changed || !all || !program_)
    return;
  try {
    attach_all();
    log("portfc: ports attached again");
  } catch (const std::exception &e) {
    for (Port &p : ports_)
      p.state = "failed: " + ingress::error_text(e);
    log("portfc: %s", ingress::error_text(e).c_str());
  }
}

std::uint64_t PortFc::poll_period_ns() const
{
  std::uint64_t p = cfg_.stuck_ns ? cfg_.stuck_ns / 4 : kPollMaxNs;
  return std::clamp(p, kPollMinNs, kPollMaxNs);
}

void PortFc::poll(Rtnl &rtnl, std::uint64_t now_ns, bool force)
{
  if (!force && now_ns < next_poll_ns_)
    return;
  next_poll_ns_ = now_ns + poll_period_ns();
  polls_++;
  std::vector<pf::QueueSample> samples;
  std::set<std::string> unread;  // ports whose read failed: their queues keep their state
  std::string err;
  for (Port &p : ports_) {
    p.queues.clear();
    if (!p.ifindex)
      continue;
    try {
      std::vector<ClassStats> classes = rtnl.classes(static_cast<int>(p.ifindex));
      std::uint64_t at = cc::monotonic_ns();  // the kernel's paused_ns is of about now
      for (const ClassStats &c : classes) {
        // The queues PortFC frames stop (the plan's gates); HQ, B and RQ
        // are never paused by PortFC.
        if (c.queue >= plan_.gates.size() || !plan_.gates[c.queue])
          continue;
        p.queues.push_back(c);
        samples.push_back({p.dev, c.queue, c.paused, c.paused_ns, at});
      }
      if (ingress_)
        if (auto ctr = ingress_->ctrl_counters(p.ifindex))
          p.frames = *ctr;
    } catch (const std::exception &e) {
      err = p.dev + ": " + ingress::error_text(e);
      unread.insert(p.dev);
    }
  }
  if (err != last_error_ && !err.empty())
    log("portfc: telemetry: %s", err.c_str());
  last_error_ = err;
  for (const pf::StuckEvent &ev : stuck_.feed(now_ns, samples, unread)) {
    if (ev.raised)
      log("portfc: ALARM: port %s queue %u (class 1:%u) paused for %s, longer than stuck %s",
          ev.dev.c_str(), ev.queue, ev.queue + 1, pf::duration_text(ev.paused_for_ns).c_str(),
          pf::duration_text(cfg_.stuck_ns).c_str());
    else
      log("portfc: cleared: port %s queue %u (class 1:%u) resumed after %s", ev.dev.c_str(),
          ev.queue, ev.queue + 1, pf::duration_text(ev.paused_for_ns).c_str());
    events_.push_back(ev);
    if (events_.size() > kMaxEvents)
      events_.pop_front();
  }
}

void PortFc::reload_check(const PortFc &next) const
{
  config::Portfc a = cfg_, b = next.cfg_;
  a.stuck_ns = b.stuck_ns = 0;
  a.line = b.line = 0;
  if (a.n != b.n || a.k != b.k || a.role != b.role || a.node != b.node || a.level != b.level ||
      a.ports != b.ports || a.base != b.base || a.pin_dir != b.pin_dir ||
      a.relay_queue_bytes != b.relay_queue_bytes || a.pool != b.pool)
    throw std::runtime_error("[portfc] cannot change by a reload but for stuck; restart losslessd");
}

void PortFc::reconfigure(const PortFc &next)
{
  reload_check(next);
  // A switch's sizing follows its pool's new buffer and thresholds.
  sizing_ = next.sizing_;
  if (cfg_.stuck_ns != next.cfg_.stuck_ns)
    log("portfc: stuck %s (was %s)",
        next.cfg_.stuck_ns ? pf::duration_text(next.cfg_.stuck_ns).c_str() : "off",
        cfg_.stuck_ns ? pf::duration_text(cfg_.stuck_ns).c_str() : "off");
  cfg_ = next.cfg_;
  stuck_.set_stuck_ns(cfg_.stuck_ns);
  next_poll_ns_ = 0;
}

ordered_json PortFc::status() const
{
  ordered_json j;
  j["role"] = std::string(config::portfc_role_name(cfg_.role));
  j["n"] = cfg_.n;
  j["k"] = cfg_.k;
  j[cfg_.role == config::PortfcRole::Server ? "server" : "switch"] = cfg_.node;
  if (cfg_.role == config::PortfcRole::Switch) {
    j["level"] = cfg_.level;
    j["pool"] = cfg_.pool;
  }
  j["base"] = dotted(cfg_.base);
  j["pin_dir"] = cfg_.pin_dir;
  j["queues"] = plan_.queues;
  if (sizing_) {
    const pf::Sizing &s = *sizing_;
    j["sizing"] = {{"bdp_bytes", s.bdp_bytes},
                   {"xoff_a_bytes", s.t.xoff_a_bytes},
                   {"xon_a_bytes", s.t.xon_a_bytes},
                   {"xoff_b_bytes", s.t.xoff_b_bytes},
                   {"xon_b_bytes", s.t.xon_b_bytes},
                   {"computed",
                    {{"xoff_a", !s.given[0]},
                     {"xon_a", !s.given[1]},
                     {"xoff_b", !s.given[2]},
                     {"xon_b", !s.given[3]}}},
                   {"o1_bytes", s.need.o1_bytes},
                   {"o2_bytes", s.need.o2_bytes},
                   {"port_headroom_bytes", s.need.port_headroom_bytes},
                   {"pool_need_bytes", s.need.pool_bytes},
                   {"buffer_bytes", s.buffer_bytes}};
  }
  const auto &qs = stuck_.queues();
  ordered_json ports = ordered_json::array();
  for (std::size_t i = 0; i < ports_.size(); i++) {
    const Port &p = ports_[i];
    ordered_json pj;
    pj["dev"] = p.dev;
    pj["ifindex"] = p.ifindex;
    pj[cfg_.role == config::PortfcRole::Server ? "level" : "bcube_port"] = i;
    pj["state"] = p.state;
    std::optional<std::uint32_t> id = p.ifindex ? pf::attached(p.ifindex) : std::nullopt;
    pj["prog_id"] = id ? ordered_json(*id) : ordered_json();
    pj["frames_refused"] = p.frames.portfc_refused;
    pj["frames_relayed"] = p.frames.portfc_relayed;
    pj["relay_failed"] = p.frames.portfc_relay_failed;
    ordered_json qj = ordered_json::array();
    for (const ClassStats &c : p.queues) {
      auto it = qs.find({p.dev, c.queue});
      bool alarm = it != qs.end() && it->second.alarm;
      qj.push_back(
          {{"queue", c.queue},
           {"paused", c.paused},
           {"paused_ns", c.paused_ns},
           {"pause_frames_rx", c.pause_frames_rx},
           {"stuck", alarm},
           {"stuck_alarms", it != qs.end() ? it->second.alarms : 0},
           {"paused_for_ns",
            it != qs.end() && it->second.paused ? it->second.seen_ns - it->second.since_ns : 0}});
    }
    pj["queues"] = qj;
    ports.push_back(pj);
  }
  j["ports"] = ports;
  if (program_) {
    try {
      pf::Stats st = program_->stats();
      ordered_json cj = {{"packets", st.packets},  {"hq", st.hq},     {"relayed", st.relayed},
                         {"unknown", st.unknown},  {"self", st.self}, {"misrouted", st.misrouted},
                         {"bad_port", st.bad_port}};
      ordered_json q = ordered_json::array();
      for (std::size_t i = 0; i < LL_PORTFC_MAX_QUEUES; i++)
        q.push_back(st.queue[i]);
      cj["queue"] = q;
      j["classifier"] = cj;
    } catch (const std::exception &e) {
      j["classifier"] = {{"error", ingress::error_text(e)}};
    }
  }
  ordered_json ev = ordered_json::array();
  for (const pf::StuckEvent &e : events_)
    ev.push_back({{"at_ns", e.at_ns},
                  {"dev", e.dev},
                  {"queue", e.queue},
                  {"event", e.raised ? "raised" : "cleared"},
                  {"paused_for_ns", e.paused_for_ns}});
  j["stuck"] = {{"stuck_ns", cfg_.stuck_ns}, {"period_ns", poll_period_ns()},
                {"polls", polls_},           {"alarms_total", stuck_.alarms_total()},
                {"active", stuck_.active()}, {"events", ev}};
  if (!last_error_.empty())
    j["last_error"] = last_error_;
  return j;
}

metrics::PortfcSample PortFc::sample() const
{
  metrics::PortfcSample s;
  s.role = std::string(config::portfc_role_name(cfg_.role));
  s.n = cfg_.n;
  s.k = cfg_.k;
  s.node = cfg_.node;
  s.stuck_ns = cfg_.stuck_ns;
  s.stuck_alarms_total = stuck_.alarms_total();
  if (program_) {
    try {
      pf::Stats st = program_->stats();
      s.classifier = {{"packets", st.packets},  {"hq", st.hq},     {"relayed", st.relayed},
                      {"unknown", st.unknown},  {"self", st.self}, {"misrouted", st.misrouted},
                      {"bad_port", st.bad_port}};
      s.classifier_queue.assign(st.queue, st.queue + LL_PORTFC_MAX_QUEUES);
    } catch (const std::exception &) {
    }
  }
  const auto &qs = stuck_.queues();
  for (const Port &p : ports_) {
    s.ports.push_back(
        {p.dev, p.frames.portfc_refused, p.frames.portfc_relayed, p.frames.portfc_relay_failed});
    for (const ClassStats &c : p.queues) {
      auto it = qs.find({p.dev, c.queue});
      metrics::PortfcQueue q;
      q.dev = p.dev;
      q.queue = c.queue;
      q.paused = c.paused;
      q.paused_ns = c.paused_ns;
      q.pause_frames_rx = c.pause_frames_rx;
      q.stuck = it != qs.end() && it->second.alarm;
      q.stuck_alarms = it != qs.end() ? it->second.alarms : 0;
      s.queues.push_back(q);
    }
  }
  return s;
}

void PortFc::cleanup(const config::Portfc &cfg, const std::string &ingress_pin_dir)
{
  std::optional<ingress::Maps> ingress;
  if (ingress::Maps::pinned(ingress_pin_dir)) {
    try {
      ingress.emplace(ingress::Maps::open_pinned(ingress_pin_dir));
    } catch (const std::exception &) {
    }
  }
  for (const std::string &dev : cfg.ports) {
    unsigned idx = if_nametoindex(dev.c_str());
    if (!idx)
      continue;
    if (pf::attached(idx)) {
      pf::detach(idx);
      log("portfc: port %s: classifier detached", dev.c_str());
    }
    if (ingress)
      ingress->del_portfc(idx);
  }
  pf::remove_pins(cfg.pin_dir);
}

}  // namespace lossless::daemon
