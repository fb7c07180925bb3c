// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "pool.h"

#include "datapath_error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <utility>

namespace lossless::daemon {
namespace {

void add_line(std::string &notes, const std::string &line)
{
  if (line.empty())
    return;
  if (!notes.empty())
    notes += '\n';
  notes += line;
}

// ns as milliseconds, at most 3 decimals: 1000000 -> "1", 12345678 -> "12.346".
std::string ms(std::uint64_t ns)
{
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
  std::string s = buf;
  while (s.back() == '0')
    s.pop_back();
  if (s.back() == '.')
    s.pop_back();
  return s;
}

constexpr std::uint64_t kMaxSwDelayNs = 1000000000ULL;  // sw-delay's range

// The latest wake-up of a window: exactly min_ns when the port's all-time
// maximum was set in the window, else somewhere in its bucket, [min_ns,
// below_ns) (below_ns 0: the last bucket, no bound).
struct Latest {
  std::uint64_t min_ns = 0, below_ns = 0;
  bool exact = false;

  // Judged surely, never from a bucket's width: the width is the
  // hysteresis between a warning and its end.
  bool surely_later(std::uint64_t ns) const { return min_ns > ns; }
  bool surely_within(std::uint64_t ns) const
  {
    return exact ? min_ns <= ns : below_ns && below_ns <= ns;
  }
};

std::string window_text(const plane::Lateness &l, double window_s)
{
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%llu wake-ups in the last %.1f s",
                static_cast<unsigned long long>(l.count), window_s);
  return buf;
}

std::string late_warning(const std::string &dev, const std::string &pool, const Latest &late,
                         const plane::Lateness &l, std::uint64_t sw_ns, double window_s)
{
  // A delay that covers the latest wake-up, in whole ms (sw-delay).
  std::uint64_t need_ns = std::max(late.min_ns, late.below_ns);
  std::uint64_t need_ms = std::min((need_ns + 999999) / 1000000, kMaxSwDelayNs / 1000000);
  std::string max = late.exact ? "up to " + ms(late.min_ns) + " ms" : ms(late.min_ns) + " ms or more";
  std::string p99 = l.p99_open
                        ? "p99 " + ms(plane::lateness_lower_ns(plane::kLatenessBuckets - 1)) +
                              " ms or more"
                        : "p99 below " + ms(l.p99_below_ns) + " ms";
  return "port " + dev + " (pool " + pool + "): timer wake-ups ran " + max + " late (" + p99 +
         ", " + window_text(l, window_s) + "), later than the " + ms(sw_ns) +
         " ms software delay its headroom assumes: raise sw-delay to at least " +
         std::to_string(need_ms) + " ms (losslessctl --pool " + pool + " set sw-delay " +
         std::to_string(need_ms) + "ms, or sw-delay in the configuration)";
}

std::string late_cleared(const std::string &dev, const std::string &pool, const Latest &late,
                         const plane::Lateness &l, std::uint64_t sw_ns, double window_s)
{
  return "port " + dev + " (pool " + pool + "): timer wake-ups back within the " + ms(sw_ns) +
         " ms software delay (the latest " +
         (late.exact ? ms(late.min_ns) : "below " + ms(late.below_ns)) + " ms late, " +
         window_text(l, window_s) + ")";
}

}  // namespace

std::string LatenessWatch::update(const lossless_plane_tel &t,
                                  const std::vector<policy::PortLink> &links,
                                  const policy::Policy &policy)
{
  std::uint32_t nr = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
  bool judge = started_ && t.time_ns >= window_start_ns_ &&
               t.time_ns - window_start_ns_ >= kWindowNs;
  if (started_ && !judge && t.time_ns >= window_start_ns_)
    return {};  // within the window: a tick costs this comparison
  std::string notes;
  std::string pool(t.pool, strnlen(t.pool, sizeof(t.pool)));
  double window_s = (t.time_ns - window_start_ns_) / 1e9;
  for (std::uint32_t i = 0; i < nr; i++) {
    const lossless_plane_port &tp = t.ports[i];
    Port &w = ports_[i];
    if (!judge || w.ifindex != tp.ifindex) {
      // A new window's baseline (a port new in this slot is judged from
      // the next window on).
      w.ifindex = tp.ifindex;
      std::copy(std::begin(tp.wake_late), std::end(tp.wake_late), w.base);
      w.base_max_ns = tp.wake_late_max_ns;
      w.warned = false;
      continue;
    }
    __u64 delta[plane::kLatenessBuckets];
    bool restarted = plane::lateness_delta(tp.wake_late, w.base, delta);
    bool max_set = restarted || tp.wake_late_max_ns > w.base_max_ns;
    std::copy(std::begin(tp.wake_late), std::end(tp.wake_late), w.base);
    w.base_max_ns = tp.wake_late_max_ns;
    auto link = std::find_if(links.begin(), links.end(),
                             [&](const policy::PortLink &l) { return l.ifindex == tp.ifindex; });
    if (!tp.ifindex || link == links.end() || link->headroom_bytes) {
      w.warned = false;  // not the policy's delay to judge
      continue;
    }
    plane::Lateness l = plane::lateness_of(delta);
    if (!l.count)
      continue;  // no wake-up, no news
    Latest late;
    late.exact = max_set;
    late.min_ns = max_set ? tp.wake_late_max_ns : plane::lateness_lower_ns(l.max_bucket);
    late.below_ns = max_set ? 0 : plane::lateness_upper_ns(l.max_bucket);
    std::uint64_t sw_ns = policy.sw_delay_ns(tp.ifindex);
    if (!w.warned && late.surely_later(sw_ns)) {
      add_line(notes, late_warning(link->dev, pool, late, l, sw_ns, window_s));
      w.warned = true;
    } else if (w.warned && late.surely_within(sw_ns)) {
      add_line(notes, late_cleared(link->dev, pool, late, l, sw_ns, window_s));
      w.warned = false;
    }
  }
  for (std::uint32_t i = nr; i < LOSSLESS_PLANE_PORTS; i++)
    ports_[i].ifindex = 0;  // gone: a port back in the slot starts afresh
  started_ = true;
  window_start_ns_ = t.time_ns;
  return notes;
}

std::string Pool::run_channel()
{
  std::string note;
  if (!have_tel)
    return note;
  if (channel_seq && tel->channel_applied_seq == channel_seq && channel_judged != channel_seq) {
    channel_judged = channel_seq;
    channel_error = -tel->channel_apply_error;
    if (channel_error) {
      channel_refusals++;
      if (!channel_error_said)
        note = "pool " + cfg.settings.name + ": the datapath refused control channel block seq " +
               std::to_string(channel_seq) + ": " + datapath_error_text(channel_error) +
               " (said once until a block is applied)";
      channel_error_said = true;
    } else {
      channel_error_said = false;
    }
  }
  inputs.pool = &cfg.settings;
  inputs.telemetry = tel.get();
  auto b = policy->block(inputs);
  if (!b)
    return note;
  try {
    channel_seq = plane->submit_channel(b->scheme, b->payload);
    channel_writes++;
  } catch (const plane::Error &e) {
    if (!channel_error_said)
      note = "pool " + cfg.settings.name + ": " + e.what();
    channel_error_said = true;
  }
  return note;
}

std::string Pool::run_ownership()
{
  if (!have_tel || !held)
    return {};
  policy::Source who = policy::source_of(*tel, own_gen);
  auto changes = policy::foreign_changes(*held, *tel, who, inputs.ports);
  if (changes.empty()) {
    // Another writer's gen that changed none of the daemon's settings
    // (clear peaks, interval-us): judged, so a later tc change is tc's.
    own_gen = tel->applied_gen;
    return {};
  }
  std::string notes;
  bool adopt = false;
  for (auto &c : changes) {
    add_line(notes, policy::log_line(cfg.settings.name, c));
    foreign_counts[{c.setting, policy::source_name(c.source), policy::action_name(c.action)}]++;
    foreign_total++;
    adopt |= c.action == policy::Action::Adopt;
    foreign_last.push_back(std::move(c));
    if (foreign_last.size() > kForeignKept)
      foreign_last.pop_front();
  }
  if (adopt)
    policy->adopt(*tel);
  // Push at once: the reverted values, and the adopted ones as the
  // policy's own; held is taken again when the push is settled.
  policy->revert();
  held.reset();
  return notes;
}

std::string Pool::run_policy()
{
  std::string notes;
  // One attempt into the scratch buffer: when the datapath is writing the
  // snapshot right now (its timer and ours share the period), keep the
  // last good one rather than spin against it.
  switch (plane->try_read_telemetry(*scratch)) {
  case plane::Plane::Read::Ok:
    std::swap(tel, scratch);
    have_tel = true;
    version_said = false;
    notes = lateness.update(*tel, inputs.ports, *policy);
    break;
  case plane::Plane::Read::Busy:
    busy_reads++;
    break;
  case plane::Plane::Read::NoTelemetry:
    break;
  case plane::Plane::Read::OtherVersion:
    // Nothing to read, and the datapath would refuse what we push.
    have_tel = false;
    if (!version_said)
      notes = "pool " + cfg.settings.name + ": " + plane->version_error(*scratch);
    version_said = true;
    return notes;
  }
  add_line(notes, run_channel());
  if (pending) {
    if (!have_tel || tel->applied_gen < pending_gen)
      return notes;  // still waiting for the datapath
    last_latency = Clock::now() - pending_since;
    last_error = -tel->apply_error;
    // What the datapath holds now is the daemon's (or, refused, what it
    // kept): changes are judged against it from here.
    held = policy::held(*tel, *pending);
    own_gen = pending_gen;
    if (tel->applied_gen == pending_gen && tel->apply_error) {
      refusals++;
      add_line(notes, "pool " + cfg.settings.name + ": the datapath refused gen " +
                          std::to_string(pending_gen) + ": " + datapath_error_text(last_error));
      policy->refused(*pending, last_error);
    } else {
      pushes++;
      policy->pushed(*pending);
    }
    pending.reset();
  } else {
    add_line(notes, run_ownership());
  }
  inputs.pool = &cfg.settings;
  inputs.telemetry = have_tel ? tel.get() : nullptr;
  auto d = policy->decide(inputs);
  add_line(notes, policy->take_notes());
  if (!d)
    return notes;
  pending_gen = plane->submit(*d);
  pending = std::move(d);
  pending_since = Clock::now();
  return notes;
}

}  // namespace lossless::daemon
