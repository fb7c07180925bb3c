// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "mode_policy.h"

#include <algorithm>
#include <cstring>

#include "policy.h"

namespace lossless::policy {
namespace {

constexpr std::uint64_t kNsPerMs = 1000000;

void add_note(std::string &notes, const std::string &line)
{
  if (!notes.empty())
    notes += '\n';
  notes += line;
}

std::string ms_text(std::uint64_t ns)
{
  std::uint64_t whole = ns / kNsPerMs, frac = (ns % kNsPerMs) / 1000;
  std::string f = std::to_string(frac);
  return std::to_string(whole) + "." + std::string(3 - f.size(), '0') + f + " ms";
}

}  // namespace

std::string mode_key(const ll_param &row)
{
  std::string k = row.tc ? row.tc : "";
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
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

std::uint64_t mode_slot_ns(const ModeSetting &m)
{
  if (m.mode != LL_MODE_BIFROST)
    return 0;
  union ll_mode_params mp{};
  std::copy(m.params.begin(), m.params.end(), mp.raw);
  return ll_bifrost_mode_slot_ns(&mp);  // the core's default when unset
}

std::uint64_t auto_jitter_ns(std::uint64_t slot_ns, std::uint64_t max_late_ns)
{
  if (!max_late_ns)
    return slot_ns;
  std::uint64_t want = max_late_ns + max_late_ns / 2 + (max_late_ns & 1);  // 1.5 x, up
  want = (want + kNsPerMs - 1) / kNsPerMs * kNsPerMs;
  return std::max(slot_ns, want);
}

std::string mode_check(const ModeSetting &m, std::uint64_t rate_bps, std::uint32_t mtu_bytes,
                       std::uint64_t jitter_ns)
{
  union ll_mode_params mp{};
  std::copy(m.params.begin(), m.params.end(), mp.raw);
  int jw = mode_jitter_word(m.mode);
  if (m.jitter_auto && jitter_ns && jw >= 0)
    mp.raw[jw] = jitter_ns;
  const char *msg = ll_mode_check(m.mode, &mp, rate_bps, mtu_bytes);
  return msg ? msg : "";
}

std::vector<lossless_plane_port_mode> ModePorts::decide(const std::vector<PortLink> &ports,
                                                        const lossless_plane_tel *tel,
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
    rtt_alarm(port, m, tel, notes);
    int jw = mode_jitter_word(m.mode);
    std::uint64_t j = 0;
    if (m.jitter_auto && jw >= 0) {
      std::uint64_t slot = mode_slot_ns(m);
      std::uint64_t &cur = jitter_ns_[port.ifindex];
      if (!cur)
        cur = auto_jitter_ns(slot, 0);
      int ml = mode_stat(m.mode, "max_late");
      for (std::uint32_t i = 0; tel && ml >= 0 && i < tel->nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
        if (tel->ports[i].ifindex != port.ifindex || tel->mode[i].mode != m.mode)
          continue;
        std::uint64_t late = tel->mode[i].ctr[ml];
        std::uint64_t want = auto_jitter_ns(slot, late);
        if (want <= cur)
          break;
        std::string why = mode_check(m, port.rate_bps, mtu, want);
        if (!why.empty()) {
          std::string &said = refused_[port.ifindex];
          if (said != why)
            add_note(notes, "port " + port.dev + ": bifrost jitter stays " + ms_text(cur) +
                                ": the measured lateness " + ms_text(late) + " asks for " +
                                ms_text(want) + ", which the mode refuses: " + why);
          said = why;
          break;
        }
        add_note(notes, "port " + port.dev + ": bifrost jitter raised from " + ms_text(cur) +
                            " to " + ms_text(want) + " (1.5 x the slot loop's max lateness " +
                            ms_text(late) + "); the running loop takes it from its next slot");
        cur = want;
        break;
      }
      j = cur;
    }
    std::string why = mode_check(m, port.rate_bps, mtu, j);
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
    out.push_back(e);
  }
  return out;
}

void ModePorts::rtt_alarm(const PortLink &port, const ModeSetting &m,
                          const lossless_plane_tel *tel, std::string &notes)
{
  int rw = mode_rtt_word(m.mode), mr = mode_stat(m.mode, "max_rtt");
  if (!tel || rw < 0 || mr < 0 || !m.params[rw])
    return;
  for (std::uint32_t i = 0; i < tel->nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    if (tel->ports[i].ifindex != port.ifindex || tel->mode[i].mode != m.mode)
      continue;
    std::uint64_t measured = tel->mode[i].ctr[mr], bound = m.params[rw];
    std::uint64_t &said = rtt_said_[port.ifindex];
    if (measured > bound && measured > said) {
      add_note(notes, "ALARM port " + port.dev + ": the loop's measured round trip " +
                          ms_text(measured) + " is above bifrost_rtt " + ms_text(bound) +
                          ": the buffer was sized for less (raise bifrost_rtt)");
      said = measured;
    }
    return;
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

}  // namespace lossless::policy
