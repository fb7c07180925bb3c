// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "pfc_policy.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

extern "C" {
#include "headroom.h"
#include "scheme.h"
}
#include <cstring>

#include "ll_params.h"

namespace lossless::policy {
namespace {

// The datapath's limit of the delays (the sw-delay row's).
std::uint64_t max_delay_ns()
{
  return ll_params[LL_P_SW_DELAY].max;
}

// The field of PoolSettings that a pool-wide row the policies take
// (LL_PARAM_POLICY) sets; nullptr for any other row.
std::uint32_t PoolSettings::*setting(const ll_param &r)
{
  switch (ll_param_index(&r)) {
    case LL_P_ALPHA:
      return &PoolSettings::alpha;
    case LL_P_EGRESS_ALPHA:
      return &PoolSettings::egress_alpha;
    case LL_P_RESERVED:
      return &PoolSettings::reserved_bytes;
    case LL_P_XON_OFFSET:
      return &PoolSettings::xon_offset_bytes;
    default:
      return nullptr;
  }
}

std::string text(const ll_param &r, std::uint64_t v)
{
  char buf[64];
  ll_param_text(&r, v, buf, sizeof(buf));
  return r.unit == LL_PARAM_ALPHA ? std::string(buf) : std::to_string(v);
}

// A scheme parameter's value: flags by name, the rest as numbers (bytes,
// ns), as the policies have always shown them.
std::string scheme_text(const ll_param &r, std::uint64_t v)
{
  char buf[256];
  if (r.unit != LL_PARAM_FLAGS)
    return std::to_string(v);
  ll_param_text(&r, v, buf, sizeof(buf));
  return buf;
}

bool same(const plane::Params &a, const plane::Params &b)
{
  auto key = [](const plane::Params &p) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> h;
    for (const auto &e : p.headroom)
      h.emplace_back(e.ifindex, e.headroom_bytes);
    std::sort(h.begin(), h.end());
    return std::make_tuple(p.alpha, p.egress_alpha, p.xon_offset_bytes, p.reserved_bytes,
                           p.interval_us, h);
  };
  if (a.scheme.has_value() != b.scheme.has_value() ||
      (a.scheme && std::memcmp(&*a.scheme, &*b.scheme, sizeof(*a.scheme))))
    return false;
  if (a.modes.size() != b.modes.size() ||
      (!a.modes.empty() &&
       std::memcmp(a.modes.data(), b.modes.data(), a.modes.size() * sizeof(a.modes[0]))))
    return false;
  return key(a) == key(b);
}

}  // namespace

std::unique_ptr<Policy> make_pfc_policy(const Registration &self, const PoolSettings &pool)
{
  return std::make_unique<PfcPolicy>(self, pool);
}

PfcPolicy::PfcPolicy(const Registration &reg, const PoolSettings &pool)
    : reg_(reg), cfg_(pool), agent_(reg.agent ? reg.agent() : nullptr)
{
  cfg_.scheme.id = reg.scheme_id;  // the policy's scheme, whatever was given
}

std::uint64_t PfcPolicy::headroom_bytes(const PortLink &port, std::uint64_t sw_ns)
{
  ll_headroom_params p{};
  p.rate_bps = port.rate_bps;
  p.cable_delay_ns = port.cable_delay_ns;
  p.sw_response_ns = std::min(sw_ns, max_delay_ns());
  p.mtu_bytes = port.mtu_bytes;
  p.shaper_burst_bytes = port.catchup_bytes;  // (9)
  return ll_headroom_bytes(&p);
}

std::uint64_t PfcPolicy::measured_sw_delay_ns(const PortLink &port, std::uint64_t peak_bytes)
{
  std::uint64_t fixed = headroom_bytes(port, 0);
  if (!fixed || peak_bytes <= fixed || !port.rate_bps)
    return 0;
  // (peak - fixed) bytes at rate_bps, rounded up, + 25 % margin.
  unsigned __int128 ns = (unsigned __int128)(peak_bytes - fixed) * 8 * 1000000000ULL;
  ns = (ns + port.rate_bps - 1) / port.rate_bps;
  ns += ns / 4;
  return ns > max_delay_ns() ? max_delay_ns() : (std::uint64_t)ns;
}

std::uint64_t PfcPolicy::response_sw_delay_ns(std::uint64_t response_max_ns, std::uint64_t sw_ns)
{
  unsigned __int128 ns = (unsigned __int128)response_max_ns * 2;
  if (ns <= sw_ns)
    return 0;  // within this switch's half of sw_ns
  ns += ns / 4;
  ns = (ns + 999) / 1000 * 1000;
  return ns > max_delay_ns() ? max_delay_ns() : (std::uint64_t)ns;
}

std::uint64_t PfcPolicy::sw_delay_ns(std::uint32_t ifindex) const
{
  auto it = measured_ns_.find(ifindex);
  std::uint64_t m = it == measured_ns_.end() ? 0 : it->second;
  std::uint64_t configured = cfg_.sw_delay_ns;  // the pool's, or the port's own
  for (const auto &port : last_ports_)
    if (port.ifindex == ifindex && port.sw_delay_ns)
      configured = *port.sw_delay_ns;
  return std::max(configured, m);
}

std::optional<plane::Params> PfcPolicy::decide(const Inputs &in)
{
  bool measured_changed = false;
  if (in.telemetry) {
    const auto &t = *in.telemetry;
    for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
      const auto &tp = t.ports[i];
      auto link = std::find_if(in.ports.begin(), in.ports.end(),
                               [&](const PortLink &l) { return l.ifindex == tp.ifindex; });
      if (!tp.ifindex || link == in.ports.end())
        continue;
      // The premise: the port's slowest XOFF response against this
      // switch's half of the delay its headroom is sized with. A port
      // with a configured headroom is not the policy's to size.
      std::uint64_t in_force = sw_delay_ns(tp.ifindex);
      std::uint64_t response = t.premise[i].xoff_response_max_ns;
      if (std::uint64_t r = link->headroom_bytes ? 0 : response_sw_delay_ns(response, in_force)) {
        measured_ns_[tp.ifindex] = r;  // above in_force, so above the slot
        measured_changed = true;
        add_note(notes_, "port " + link->dev + ": XOFF response up to " + time_text(response) +
                             ", more than half of the " + time_text(in_force) +
                             " sw-delay its headroom assumes (this switch's half of the loop):"
                             " sw-delay for its headroom raised to " + time_text(r) +
                             " (2 x the response + 25 %)");
      }
      // Without the port's catch-up the fixed terms are unknown: a peak
      // would pass for software delay, kept for good.
      if (!link->catchup_bytes)
        continue;
      std::uint64_t peak = 0;
      for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++)
        if (cfg_.lossless_mask & (1u << q))
          peak = std::max<std::uint64_t>(peak, tp.iq[q].peak_headroom);
      // A scheme whose queues share headroom (DSH's insurance Phi) names
      // the peak of the shared part among its telemetry: the headroom must
      // cover that one too.
      const auto &sp = t.sch[i].s;
      const ll_scheme_desc *d = ll_scheme_lookup(reg_.scheme_id);
      if (d && d->headroom_peak_stat && sp.scheme == reg_.scheme_id &&
          d->headroom_peak_stat <= LL_SCHEME_STATS)
        peak = std::max<std::uint64_t>(peak, sp.ctr[d->headroom_peak_stat - 1]);
      std::uint64_t m = measured_sw_delay_ns(*link, peak);
      auto &slot = measured_ns_[tp.ifindex];
      if (m > slot) {
        slot = m;
        measured_changed = true;
      }
    }
  }
  // A mode change refused while its port was busy: again, a while later.
  if (busy_retry_ && in.telemetry) {
    std::uint64_t t = in.telemetry->time_ns;
    if (!busy_since_ns_) {
      busy_since_ns_ = t;
    } else if (t - busy_since_ns_ >= kBusyRetryNs) {
      busy_retry_ = false;
      last_.reset();
    }
  }
  // The ports' modes, every tick: an "auto" jitter or round trip follows
  // the telemetry; an "auto" round trip starts from the configured
  // sw_delay (as set at run time), the least the pool's headroom covers.
  std::vector<lossless_plane_port_mode> modes =
      modes_.decide(in.ports, in.telemetry, cfg_.sw_delay_ns, notes_);
  bool modes_changed =
      last_ && (modes.size() != last_->modes.size() ||
                (!modes.empty() && std::memcmp(modes.data(), last_->modes.data(),
                                               modes.size() * sizeof(modes[0]))));
  if (last_ && !dirty_ && !measured_changed && !modes_changed && in.ports == last_ports_)
    return std::nullopt;
  last_ports_ = in.ports;
  dirty_ = false;
  plane::Params p;
  p.alpha = cfg_.alpha;
  p.egress_alpha = cfg_.egress_alpha;
  p.reserved_bytes = cfg_.reserved_bytes;
  p.xon_offset_bytes = cfg_.xon_offset_bytes;
  p.scheme = cfg_.scheme;
  p.modes = std::move(modes);
  for (const auto &port : in.ports) {
    if (!port.ifindex || !port.up || !port.rate_bps)
      continue;  // a port down keeps what it has
    if (!port.headroom_bytes && !port.catchup_bytes)
      continue;  // so does one whose catch-up (term 9) is not known yet
    std::uint64_t h = port.headroom_bytes ? port.headroom_bytes
                                          : headroom_bytes(port, sw_delay_ns(port.ifindex));
    if (!h || h > UINT32_MAX || p.headroom.size() >= LOSSLESS_PLANE_PORTS)
      continue;
    p.headroom.push_back({port.ifindex, static_cast<std::uint32_t>(h)});
  }
  if (last_ && same(*last_, p))
    return std::nullopt;
  return p;
}

void PfcPolicy::pushed(const plane::Params &p)
{
  last_ = p;
  modes_.pushed(p.modes);
}

std::string PfcPolicy::take_notes()
{
  std::string n;
  n.swap(notes_);
  return n;
}

void PfcPolicy::adopt(const lossless_plane_tel &t)
{
  cfg_.alpha = t.alpha;
  cfg_.egress_alpha = t.egress_alpha;
  cfg_.reserved_bytes = t.reserved_bytes;
  cfg_.xon_offset_bytes = t.xon_offset_bytes;
  if (t.scheme.id == cfg_.scheme.id)
    cfg_.scheme.p = t.scheme.p;
  dirty_ = true;
}

void PfcPolicy::revert()
{
  last_.reset();
  dirty_ = true;
}

void PfcPolicy::refused(const plane::Params &p, int err)
{
  last_ = p;
  busy_retry_ = err == EBUSY && !p.modes.empty();
  busy_since_ns_ = 0;
}

// The pool's parameters are the rows of ll_params.h the policies take
// (LL_PARAM_POLICY), and this policy's scheme's; sw-delay is the
// policy's own (the least software delay its headroom covers; a port with
// its own sw-delay keeps it).
std::string PfcPolicy::set(const std::string &key, const std::string &value)
{
  const std::string bad = "invalid " + key + " \"" + value + "\": ";
  const ll_param *r = param(key);
  std::uint64_t v = 0;
  PoolSettings next = cfg_;
  if (const char *now = ll_param_ctl_renamed(key.c_str()))
    return key + ": renamed; write " + now + " " + value + "us";
  if (key == ll_params[LL_P_SW_DELAY].tc) {
    const ll_param &sw = ll_params[LL_P_SW_DELAY];
    if (ll_param_parse(&sw, value.c_str(), &v, nullptr) != LL_PARAM_OK || v > max_delay_ns()) {
      char range[256];
      ll_units_time_range(sw.min, max_delay_ns(), range, sizeof(range));
      return bad + "must be " + range;
    }
    next.sw_delay_ns = v;
  } else if (r && r->scheme >= 0) {
    char range[256];
    switch (ll_param_parse(r, value.c_str(), &v, nullptr)) {
      case LL_PARAM_OK:
        break;
      case LL_PARAM_ECOMBO:
        ll_param_text(r, r->excl, range, sizeof(range));
        return bad + range + " do not go together";
      default:
        ll_param_range(r, range, sizeof(range));
        return bad + "must be " + range;
    }
    std::string why = check_value(*r, v, cfg_.buffer_bytes);
    if (!why.empty())
      return bad + why;
    next.scheme.p.raw[r->word] = v;
  } else if (r) {
    if (ll_param_parse(r, value.c_str(), &v, nullptr) != LL_PARAM_OK)
      return bad + (r->unit == LL_PARAM_ALPHA ? std::string(LL_ALPHA_FORM)
                                              : "must be bytes " + std::to_string(r->min) + " .. " +
                                                    std::to_string(r->max));
    next.*setting(*r) = static_cast<std::uint32_t>(v);
  } else {
    std::string keys;
    for (const auto &pi : params())
      keys += (keys.empty() ? "" : ", ") + pi.name;
    return std::string(reg_.policy) + " has no parameter \"" + key + "\" (" + keys + ")";
  }
  // The scheme's checks against the ports as last seen: nothing changes
  // on a refusal.
  std::swap(cfg_, next);
  std::vector<SchemeIssue> issues = check_scheme(cfg_, scheme_ports());
  for (const auto &i : issues)
    if (i.error) {
      std::swap(cfg_, next);
      return bad + i.msg;
    }
  dirty_ = true;
  return {};
}

std::vector<SchemePort> PfcPolicy::scheme_ports() const
{
  std::vector<SchemePort> out;
  for (const auto &port : last_ports_) {
    if (!port.ifindex)
      continue;
    std::uint64_t sw = sw_delay_ns(port.ifindex);
    SchemePort sp;
    sp.dev = port.dev;
    sp.rtt_ns = 2 * (port.cable_delay_ns + sw);
    sp.frame_bytes = port.mtu_bytes;
    if (port.headroom_bytes)
      sp.headroom_bytes = port.headroom_bytes;
    else if (port.rate_bps)
      sp.headroom_bytes = headroom_bytes(port, sw);
    out.push_back(sp);
  }
  return out;
}

std::optional<ChannelBlock> PfcPolicy::block(const Inputs &in)
{
  if (!agent_ || !in.telemetry || in.telemetry->scheme.id != reg_.scheme_id)
    return std::nullopt;  // the datapath takes a scheme's blocks only under it
  auto payload = agent_->block(*in.telemetry);
  if (!payload)
    return std::nullopt;
  return ChannelBlock{reg_.scheme_id, std::move(*payload)};
}

CommandResult PfcPolicy::command(const std::vector<std::string> &args, const Inputs &in)
{
  if (!agent_)
    return Policy::command(args, in);
  std::uint8_t mask = in.telemetry ? static_cast<std::uint8_t>(in.telemetry->lossless_mask)
                                   : cfg_.lossless_mask;
  return agent_->command(args, in.ports, mask);
}

std::vector<std::string> PfcPolicy::command_usage() const
{
  return agent_ ? agent_->usage() : std::vector<std::string>{};
}

nlohmann::json PfcPolicy::channel_state(const Inputs &in) const
{
  return agent_ ? agent_->state(in.ports) : nlohmann::json(nullptr);
}

void PfcPolicy::carry_over(Policy &old)
{
  auto *o = dynamic_cast<PfcPolicy *>(&old);
  if (o && &o->reg_ == &reg_ && o->agent_)
    agent_ = std::move(o->agent_);
  // The ports whose mode the daemon set, and their "auto" J: a reload
  // that drops a port's mode key clears it, one that keeps it keeps J.
  if (o)
    modes_ = o->modes_;
}

const ll_param *PfcPolicy::param(const std::string &key) const
{
  for (unsigned i = 0; const ll_param *r = ll_param_row(i); i++)
    if (r->ctl && key == r->ctl && (r->flags & LL_PARAM_POLICY) &&
        (r->scheme < 0 ? setting(*r) != nullptr : r->scheme == reg_.scheme_id))
      return r;
  return nullptr;
}

std::vector<ParamInfo> PfcPolicy::params() const
{
  std::vector<ParamInfo> out;
  for (const ll_param &r : ll_params)
    if (r.ctl && (r.flags & LL_PARAM_POLICY) && r.scheme < 0 && setting(r))
      out.push_back({r.ctl, text(r, cfg_.*setting(r)), r.help});
  out.push_back({ll_params[LL_P_SW_DELAY].tc, text(ll_params[LL_P_SW_DELAY], cfg_.sw_delay_ns),
                 "software response the headroom covers at least; measured delays raise it"});
  for (const SchemeParam *r : reg_.params)
    if (r->ctl)
      out.push_back({r->ctl, scheme_text(*r, cfg_.scheme.p.raw[r->word]), r->help});
  return out;
}

}  // namespace lossless::policy
