// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "mode_policy.h"

#include <algorithm>
#include <cstring>

#include "policy.h"

namespace lossless::policy {

void add_note(std::string &notes, const std::string &line)
{
  if (!notes.empty())
    notes += '\n';
  notes += line;
}

namespace {

constexpr std::uint64_t kNsPerMs = 1000000;

std::uint64_t ceil_ms(std::uint64_t ns)
{
  return (ns + kNsPerMs - 1) / kNsPerMs * kNsPerMs;
}

// A counter as the datapath gives it: kept far from wrapping in sums.
constexpr std::uint64_t kNsCap = std::uint64_t(1) << 62;

std::string ms_text(std::uint64_t ns)
{
  std::uint64_t whole = ns / kNsPerMs, frac = (ns % kNsPerMs) / 1000;
  std::string f = std::to_string(frac);
  return std::to_string(whole) + "." + std::string(3 - f.size(), '0') + f + " ms";
}

}  // namespace

std::string mode_key(const ll_param &row)
{
  return row.tc ? row.tc : "";
}

std::vector<std::string> mode_keys()
{
  std::vector<std::string> keys;
  for (std::uint32_t id = 1; id < LL_MODE_COUNT; id++)
    if (const ll_mode_desc *d = ll_mode_lookup(id))
      for (std::uint32_t i = 0; i < d->n_params; i++)
        keys.push_back(mode_key(d->params[i]));
  return keys;
}

const ll_param *mode_row(std::uint32_t mode, std::string_view key)
{
  const ll_mode_desc *d = ll_mode_lookup(mode);
  for (std::uint32_t i = 0; d && i < d->n_params; i++)
    if (mode_key(d->params[i]) == key)
      return &d->params[i];
  return nullptr;
}

namespace {

// Word of mode's row whose tc keyword ends in suffix, or -1.
int mode_word_by_suffix(std::uint32_t mode, std::string_view suffix)
{
  const ll_mode_desc *d = ll_mode_lookup(mode);
  for (std::uint32_t i = 0; d && i < d->n_params; i++) {
    std::string_view tc = d->params[i].tc ? d->params[i].tc : "";
    if (tc.size() > suffix.size() && tc.substr(tc.size() - suffix.size()) == suffix)
      return d->params[i].word;
  }
  return -1;
}

}  // namespace

int mode_jitter_word(std::uint32_t mode) { return mode_word_by_suffix(mode, "-jitter"); }

int mode_rtt_word(std::uint32_t mode) { return mode_word_by_suffix(mode, "-rtt"); }

int mode_stat(std::uint32_t mode, std::string_view name)
{
  const ll_mode_desc *d = ll_mode_lookup(mode);
  for (std::uint32_t i = 0; d && i < d->n_stats && i < LL_MODE_STATS; i++)
    if (d->stats[i].name && name == d->stats[i].name)
      return static_cast<int>(i);
  return -1;
}

std::uint64_t mode_slot_ns(const ModeSetting &m, std::uint64_t rtt_ns)
{
  if (m.mode != LL_MODE_BIFROST)
    return 0;
  union ll_mode_params mp{};
  std::copy(m.params.begin(), m.params.end(), mp.raw);
  int rw = mode_rtt_word(m.mode);
  if (m.rtt_auto && rtt_ns && rw >= 0)
    mp.raw[rw] = rtt_ns;
  return ll_bifrost_mode_slot_ns(&mp);  // the core's default when unset
}

std::uint64_t auto_jitter_ns(std::uint64_t slot_ns, std::uint64_t max_late_ns)
{
  if (!max_late_ns)
    return slot_ns;
  std::uint64_t want = max_late_ns + max_late_ns / 2 + (max_late_ns & 1);  // 1.5 x, up
  want = ceil_ms(want);
  return std::max(slot_ns, want);
}

std::uint64_t auto_rtt_start_ns(std::uint64_t cable_delay_ns, std::uint64_t sw_delay_ns)
{
  // The delays are at most 1 s each (their rows); capped all the same.
  return ceil_ms(std::min(2 * (std::min(cable_delay_ns, kNsCap / 4) +
                               std::min(sw_delay_ns, kNsCap / 4)),
                          kNsCap));
}

std::uint64_t auto_rtt_ns(std::uint64_t slot_ns, std::uint64_t max_rtt_ns)
{
  if (!max_rtt_ns)
    return 0;
  return ceil_ms(std::min(max_rtt_ns, kNsCap) + std::min(slot_ns, kNsCap));
}

std::string mode_check(const ModeSetting &m, std::uint64_t rate_bps, std::uint32_t mtu_bytes,
                       std::uint64_t jitter_ns, std::uint64_t rtt_ns)
{
  union ll_mode_params mp{};
  std::copy(m.params.begin(), m.params.end(), mp.raw);
  int jw = mode_jitter_word(m.mode), rw = mode_rtt_word(m.mode);
  if (m.jitter_auto && jitter_ns && jw >= 0)
    mp.raw[jw] = jitter_ns;
  if (m.rtt_auto && rtt_ns && rw >= 0)
    mp.raw[rw] = rtt_ns;
  const char *msg = ll_mode_check(m.mode, &mp, rate_bps, mtu_bytes);
  return msg ? msg : "";
}

namespace {

// Index of ifindex's entry in tel when it runs mode, or -1.
int tel_index(const lossless_plane_tel *tel, std::uint32_t ifindex, std::uint32_t mode)
{
  for (std::uint32_t i = 0; tel && i < tel->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
    if (tel->ports[i].ifindex == ifindex)
      return tel->mode[i].mode == mode ? static_cast<int>(i) : -1;
  return -1;
}

}  // namespace

std::vector<lossless_plane_port_mode> ModePorts::decide(const std::vector<PortLink> &ports,
                                                        const lossless_plane_tel *tel,
                                                        std::uint64_t sw_delay_ns,
                                                        std::string &notes)
{
  std::vector<lossless_plane_port_mode> out;
  // The pool's MTU as the datapath checks a mode against it: its largest
  // frame (the ports' link MTUs, header and tag included).
  std::uint32_t mtu = 0;
  for (const auto &p : ports)
    mtu = std::max(mtu, p.mtu_bytes);
  for (const auto &port : ports) {
    if (!port.ifindex)
      continue;
    if (!port.mode || !port.mode->mode) {
      // mode = "none" is the daemon's to push; no key, only a mode it set
      // (no longer configured): back to the pool's scheme.
      if (port.mode || owned_.count(port.ifindex)) {
        lossless_plane_port_mode e{};
        e.ifindex = port.ifindex;
        out.push_back(e);
      }
      continue;
    }
    if (!port.up || !port.rate_bps)
      continue;  // a port down keeps what it has
    const ModeSetting &m = *port.mode;
    int jw = mode_jitter_word(m.mode), rw = mode_rtt_word(m.mode);
    bool j_auto = m.jitter_auto && jw >= 0;
    // "auto" D first: the slot, and so J's floor, follow it.
    std::uint64_t d = 0;
    if (m.rtt_auto && rw >= 0) {
      std::uint64_t &cur = rtt_ns_[port.ifindex];
      if (!cur)
        cur = auto_rtt_start_ns(port.cable_delay_ns, port.sw_delay_ns.value_or(sw_delay_ns));
      if (!cur) {
        std::string &said = refused_[port.ifindex];
        if (said != kAutoRttNoStart)
          add_note(notes, "port " + port.dev + ": mode not set: " + kAutoRttNoStart);
        said = kAutoRttNoStart;
        rtt_ns_.erase(port.ifindex);
        continue;
      }
      raise_rtt(port, m, tel, mtu, cur, j_auto ? &jitter_ns_[port.ifindex] : nullptr, notes);
      d = cur;
    }
    rtt_alarm(port, m, d, tel, notes);
    std::uint64_t j = 0;
    if (j_auto) {
      std::uint64_t slot = mode_slot_ns(m, d);
      std::uint64_t &cur = jitter_ns_[port.ifindex];
      if (!cur)
        cur = auto_jitter_ns(slot, 0);
      int ml = mode_stat(m.mode, "max_late"), ti = tel_index(tel, port.ifindex, m.mode);
      if (ml >= 0 && ti >= 0) {
        std::uint64_t late = tel->mode[ti].ctr[ml];
        std::uint64_t want = auto_jitter_ns(slot, late);
        if (want > cur) {
          std::string why = mode_check(m, port.rate_bps, mtu, want, d);
          if (!why.empty()) {
            std::string &said = jitter_refused_[port.ifindex];
            if (said != why)
              add_note(notes, "port " + port.dev + ": bifrost jitter stays " + ms_text(cur) +
                                  ": the measured lateness " + ms_text(late) + " asks for " +
                                  ms_text(want) + ", which the mode refuses: " + why);
            said = why;
          } else {
            add_note(notes, "port " + port.dev + ": bifrost jitter raised from " + ms_text(cur) +
                                " to " + ms_text(want) + " (1.5 x the slot loop's max lateness " +
                                ms_text(late) + "); the running loop takes it from its next slot");
            cur = want;
            jitter_refused_.erase(port.ifindex);
          }
        }
      }
      j = cur;
    }
    std::string why = mode_check(m, port.rate_bps, mtu, j, d);
    if (!why.empty()) {
      std::string &said = refused_[port.ifindex];
      if (said != why)
        add_note(notes, "port " + port.dev + ": mode not set: " + why);
      said = why;
      continue;
    }
    refused_.erase(port.ifindex);
    lossless_plane_port_mode e{};
    e.ifindex = port.ifindex;
    e.mode = m.mode;
    static_assert(sizeof(e.params) == sizeof(m.params));
    std::copy(m.params.begin(), m.params.end(), e.params);
    if (j && jw >= 0)
      e.params[jw] = j;
    if (d && rw >= 0)
      e.params[rw] = d;
    out.push_back(e);
  }
  return out;
}

// The probe's max_rtt reads at most one slot short (the slot that saw the
// last arrival), so the raise adds the slot of the loop that measured it,
// the D in force. Each new maximum is acted on once: after a raise the
// same value with the new (larger default) slot would ask again.
void ModePorts::raise_rtt(const PortLink &port, const ModeSetting &m,
                          const lossless_plane_tel *tel, std::uint32_t mtu, std::uint64_t &cur,
                          std::uint64_t *jitter, std::string &notes)
{
  int mr = mode_stat(m.mode, "max_rtt"), ti = tel_index(tel, port.ifindex, m.mode);
  if (mr < 0 || ti < 0)
    return;
  std::uint64_t measured = tel->mode[ti].ctr[mr];
  std::uint64_t &seen = rtt_seen_[port.ifindex];
  if (measured <= seen)
    return;
  std::uint64_t want = auto_rtt_ns(mode_slot_ns(m, cur), measured);
  if (want <= cur) {
    seen = measured;
    return;
  }
  // An "auto" J is at least one slot: it follows a larger slot up.
  std::uint64_t j = 0;
  if (jitter)
    j = std::max(*jitter, auto_jitter_ns(mode_slot_ns(m, want), 0));
  std::string why = mode_check(m, port.rate_bps, mtu, j, want);
  if (!why.empty()) {
    // Not seen: a later tick tries again (the rate may change), silently.
    std::string &said = rtt_refused_[port.ifindex];
    if (said != why)
      add_note(notes, "port " + port.dev + ": bifrost rtt stays " + ms_text(cur) +
                          ": the loop's measured round trip " + ms_text(measured) +
                          " plus a slot asks for " + ms_text(want) +
                          ", which the mode refuses: " + why);
    said = why;
    return;
  }
  std::string line = "port " + port.dev + ": bifrost rtt raised from " + ms_text(cur) + " to " +
                     ms_text(want) + " (the loop's measured round trip " + ms_text(measured) +
                     " plus a slot)";
  if (jitter && *jitter && j > *jitter)
    line += "; bifrost jitter follows the slot from " + ms_text(*jitter) + " to " + ms_text(j);
  add_note(notes, line + "; the running loop takes it from its next slot");
  cur = want;
  if (jitter)
    *jitter = j;
  seen = measured;
  rtt_refused_.erase(port.ifindex);
}

// A configured D is an upper bound the user gave: the measurement above
// it is an alarm. An "auto" D (auto_rtt_ns) is the daemon's, raised past
// each measurement it can: only one the mode refused leaves it below.
void ModePorts::rtt_alarm(const PortLink &port, const ModeSetting &m, std::uint64_t auto_rtt_ns,
                          const lossless_plane_tel *tel, std::string &notes)
{
  int rw = mode_rtt_word(m.mode), mr = mode_stat(m.mode, "max_rtt");
  int ti = tel_index(tel, port.ifindex, m.mode);
  std::uint64_t bound = m.rtt_auto ? auto_rtt_ns : rw >= 0 ? m.params[rw] : 0;
  if (rw < 0 || mr < 0 || ti < 0 || !bound)
    return;
  std::uint64_t measured = tel->mode[ti].ctr[mr];
  std::uint64_t &said = rtt_said_[port.ifindex];
  if (measured > bound && measured > said) {
    add_note(notes, "ALARM port " + port.dev + ": the loop's measured round trip " +
                        ms_text(measured) + " is above " +
                        (m.rtt_auto ? "the auto bifrost-rtt " + ms_text(bound) +
                                          ", which the mode refused to raise: the buffer was "
                                          "sized for less"
                                    : "bifrost-rtt " + ms_text(bound) +
                                          ": the buffer was sized for less (raise bifrost-rtt)"));
    said = measured;
  }
}

void ModePorts::pushed(const std::vector<lossless_plane_port_mode> &entries)
{
  for (const auto &e : entries) {
    if (e.mode)
      owned_.insert(e.ifindex);
    else
      owned_.erase(e.ifindex);
  }
}

std::uint64_t ModePorts::jitter_ns(std::uint32_t ifindex) const
{
  auto it = jitter_ns_.find(ifindex);
  return it == jitter_ns_.end() ? 0 : it->second;
}

std::uint64_t ModePorts::rtt_ns(std::uint32_t ifindex) const
{
  auto it = rtt_ns_.find(ifindex);
  return it == rtt_ns_.end() ? 0 : it->second;
}

}  // namespace lossless::policy
