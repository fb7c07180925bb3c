// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "portfc_policy.h"

#include <algorithm>
#include <cstdio>

namespace lossless::portfc {

namespace {

std::string bytes_text(std::uint64_t b)
{
  return std::to_string(b) + " bytes";
}

}  // namespace

std::string duration_text(std::uint64_t ns)
{
  char buf[48];
  if (ns >= 1000000000ULL)
    std::snprintf(buf, sizeof(buf), "%.3g s", static_cast<double>(ns) / 1e9);
  else if (ns >= 1000000ULL)
    std::snprintf(buf, sizeof(buf), "%.3g ms", static_cast<double>(ns) / 1e6);
  else
    std::snprintf(buf, sizeof(buf), "%.3g us", static_cast<double>(ns) / 1e3);
  return buf;
}

Sizing size_switch(const ll_bcube &b, const ll_portfc_thresholds &given,
                   const ll_headroom_params &link, std::uint64_t relay_queue_bytes,
                   std::uint64_t buffer_bytes)
{
  Sizing s;
  s.b = b;
  s.link = link;
  s.relay_queue_bytes = relay_queue_bytes;
  s.buffer_bytes = buffer_bytes;
  s.bdp_bytes = std::max<std::uint64_t>(ll_bytes_in_ns(link.rate_bps, 2 * link.cable_delay_ns),
                                        kBdpMinMtu * link.mtu_bytes);
  const std::uint64_t xoff = kXoffBdp * s.bdp_bytes, xon = kXonBdp * s.bdp_bytes;
  const std::uint64_t in[4] = {given.xoff_a_bytes, given.xon_a_bytes, given.xoff_b_bytes,
                               given.xon_b_bytes};
  std::uint64_t out[4];
  for (int i = 0; i < 4; i++) {
    s.given[i] = in[i] != 0;
    out[i] = in[i] ? in[i] : (i % 2 ? xon : xoff);
  }
  s.t = {out[0], out[1], out[2], out[3]};
  if (const char *why = ll_portfc_thresholds_check(&s.t, link.mtu_bytes)) {
    auto v = [&](int i, const char *key) {
      return std::string(key) + " " + std::to_string(out[i]) + (s.given[i] ? "" : " (computed)");
    };
    s.error = "thresholds " + v(0, "xoff-a") + ", " + v(1, "xon-a") + ", " + v(2, "xoff-b") + ", " +
              v(3, "xon-b") + ": " + why;
    return s;
  }
  if (ll_portfc_need(&b, &s.t, &link, relay_queue_bytes, &s.need)) {
    s.error = "no headroom for the link (rate " + std::to_string(link.rate_bps) +
              " bit/s, cable delay " + std::to_string(link.cable_delay_ns) +
              " ns, software delay " + std::to_string(link.sw_response_ns) + " ns, frame " +
              std::to_string(link.mtu_bytes) + " bytes): outside the headroom formula's range";
    return s;
  }
  if (s.need.pool_bytes > buffer_bytes) {
    const std::uint64_t n = b.n, omax = std::max(s.need.o1_bytes, s.need.o2_bytes);
    s.error = "buffer " + bytes_text(buffer_bytes) + " is too small for PortFC on BCube(" +
              std::to_string(b.n) + "," + std::to_string(b.k) + "): it needs " +
              bytes_text(s.need.pool_bytes) + " = n (X_off + X^_off) " +
              std::to_string(n * (s.t.xoff_a_bytes + s.t.xoff_b_bytes)) + " [n " +
              std::to_string(n) + ", xoff-a " + std::to_string(s.t.xoff_a_bytes) + ", xoff-b " +
              std::to_string(s.t.xoff_b_bytes) + "] + n max(O1, O2) " + std::to_string(n * omax) +
              " [O1 " + std::to_string(s.need.o1_bytes) + ", O2 " +
              std::to_string(s.need.o2_bytes) + "] + HQ 2 n MTU " +
              std::to_string(2 * n * link.mtu_bytes) +
              " (docs/PORTFC.md, Headroom; lower the thresholds or give a larger buffer)";
  }
  return s;
}

PortQueues port_queues(const ll_bcube &b, bool server)
{
  PortQueues q;
  q.queues = server ? ll_portfc_server_queues(&b) : ll_portfc_switch_queues(&b);
  for (std::uint32_t i = 0; i < q.queues; i++)
    q.gates.push_back(server ? ll_portfc_server_queue_gates(&b, i)
                             : ll_portfc_switch_queue_gates(&b, i));
  return q;
}

std::vector<StuckEvent> StuckDetector::feed(std::uint64_t now_ns,
                                            const std::vector<QueueSample> &samples,
                                            const std::set<std::string> &unread)
{
  std::vector<StuckEvent> events;
  std::map<Key, bool> sampled;
  for (const QueueSample &s : samples) {
    Key key{s.dev, s.queue};
    sampled[key] = true;
    const std::uint64_t at = s.at_ns ? s.at_ns : now_ns;
    auto [it, fresh] = queues_.try_emplace(key);
    Queue &q = it->second;
    if (!s.paused) {
      if (q.alarm)
        events.push_back({s.dev, s.queue, false, at - q.since_ns, at});
      q.paused = false;
      q.alarm = false;
    } else {
      // Paused through the interval: its closed time grew by at least
      // half of it.
      std::uint64_t dt = at >= q.seen_ns ? at - q.seen_ns : 0;
      std::uint64_t grew = s.paused_ns >= q.paused_ns ? s.paused_ns - q.paused_ns : 0;
      bool through = !fresh && q.paused && 2 * grew >= dt;
      if (!through) {
        if (q.alarm)
          events.push_back({s.dev, s.queue, false, at - q.since_ns, at});
        q.alarm = false;
        q.since_ns = at;
      }
      q.paused = true;
      std::uint64_t held = at - q.since_ns;
      if (!q.alarm && stuck_ns_ && held >= stuck_ns_) {
        q.alarm = true;
        q.alarms++;
        alarms_total_++;
        events.push_back({s.dev, s.queue, true, held, at});
      } else if (q.alarm && !stuck_ns_) {
        q.alarm = false;
        events.push_back({s.dev, s.queue, false, held, at});
      }
    }
    q.paused_ns = s.paused_ns;
    q.seen_ns = at;
  }
  // Queues no longer sampled (their port went away): cleared, forgotten
  // but for their alarm counts.
  for (auto &[key, q] : queues_) {
    if (sampled.count(key) || unread.count(key.first))
      continue;
    if (q.alarm)
      events.push_back({key.first, key.second, false, now_ns - q.since_ns, now_ns});
    q.alarm = false;
    q.paused = false;
  }
  return events;
}

std::uint32_t StuckDetector::active() const
{
  std::uint32_t n = 0;
  for (const auto &[key, q] : queues_)
    n += q.alarm;
  return n;
}

}  // namespace lossless::portfc
