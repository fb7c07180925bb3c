// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl status [--json]: every pool's telemetry, as a table or as
// one JSON object.
#include <cstdio>
#include <cstring>

#include "ctl.h"
#include "datapath_error.h"
#include "lateness.h"
#include "ll_params.h"
#include "registry.h"

extern "C" {
#include "mode.h"
#include "scheme.h"
}

namespace lossless::ctl {

namespace {

std::string rate_str(unsigned long long bps)
{
  char buf[32];
  if (bps >= 1000000000ULL && bps % 1000000000ULL == 0)
    std::snprintf(buf, sizeof(buf), "%lluGbit", bps / 1000000000ULL);
  else if (bps >= 1000000ULL)
    std::snprintf(buf, sizeof(buf), "%.4gMbit", bps / 1e6);
  else
    std::snprintf(buf, sizeof(buf), "%llubit", bps);
  return buf;
}

json iq_json(const tc_lossless_iq_stats &q)
{
  return {{"bytes", q.bytes},
          {"headroom_used", q.headroom_used},
          {"headroom_size", q.headroom_size},
          {"peak_bytes", q.peak_bytes},
          {"peak_headroom", q.peak_headroom},
          {"threshold", q.threshold},
          {"xoff_frames", q.xoff_frames},
          {"xon_frames", q.xon_frames},
          {"paused_ns", q.paused_ns},
          {"drops", q.drops},
          {"paused", q.paused != 0},
          {"lossless", q.lossless != 0}};
}

bool has_scheme_stats(const lossless_plane_scheme_port &sp);
json scheme_port_json(const lossless_plane_scheme_port &sp);
json mode_port_json(const tc_lossless_mode_stats &ms);

// The headroom's premise on a port, as tc -s -j names its fields.
json premise_json(const lossless_plane_premise &pr)
{
  json near = json::array();
  for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++)
    if (pr.headroom_near_mask & (1u << q))
      near.push_back(q);
  return {{"xoff_response_last_ns", pr.xoff_response_last_ns},
          {"xoff_response_max_ns", pr.xoff_response_max_ns},
          {"xoff_responses", pr.xoff_responses},
          {"headroom_warnings", pr.headroom_warnings},
          {"headroom_near", near}};
}

json tel_json(const std::string &path, const lossless_plane_tel &t)
{
  json ports = json::array();
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    // As tc -s -j: every bucket with its upper bound (0 for the last).
    json late = json::array();
    for (unsigned b = 0; b < lp::kLatenessBuckets; b++)
      late.push_back({{"lt_ns", lp::lateness_upper_ns(b)}, {"count", p.wake_late[b]}});
    json prios = json::array();
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      json o = iq_json(p.iq[q]);
      o["prio"] = q;
      prios.push_back(o);
    }
    ports.push_back({{"port", i},
                     {"ifindex", p.ifindex},
                     {"dev", ifname(p.ifindex)},
                     {"paused_mask", p.paused_mask},
                     {"rate_bps", p.rate_bps},
                     {"tx_packets", p.tx_packets},
                     {"tx_bytes", p.tx_bytes},
                     {"qdisc_drops", p.qdisc_drops},
                     {"pfc_frames_tx", p.pfc_frames_tx},
                     {"pfc_frames_rx", p.pfc_frames_rx},
                     {"pause_frames_rx", p.pause_frames_rx},
                     {"ecn_marks", p.ecn_marks},
                     {"egress_bytes", p.egress_bytes},
                     {"headroom_bytes", p.headroom_bytes},
                     {"catchup", p.catchup_bytes},
                     {"shaper_lost", p.shaper_lost_ns},
                     {"wake_late_max", p.wake_late_max_ns},
                     {"wake_late", late},
                     {"pfcwd", wd_port_json(p)},
                     {"prios", prios},
                     {"premise", premise_json(t.premise[i])}});
    if (has_scheme_stats(t.sch[i]))
      ports.back()["scheme_stats"] = scheme_port_json(t.sch[i]);
    if (ll_mode_lookup(t.mode[i].mode))
      ports.back()["mode_stats"] = mode_port_json(t.mode[i]);
  }
  return {{"plane", path},
          {"pool", std::string(t.pool, strnlen(t.pool, sizeof(t.pool)))},
          {"time_ns", t.time_ns},
          {"snapshots", t.snapshots},
          {"interval_us", t.interval_us},
          {"applied_gen", t.applied_gen},
          {"apply_error", t.apply_error},
          {"lossless_mask", t.lossless_mask},
          {"scheme", scheme_name(t)},
          {"scheme_params", scheme_params(t)},
          {"alpha", lp::format_alpha(t.alpha)},
          {"egress_alpha", lp::format_alpha(t.egress_alpha)},
          {"xon_offset_bytes", t.xon_offset_bytes},
          {"reserved_bytes", t.reserved_bytes},
          {"total_bytes", t.total_bytes},
          {"reserved_size", t.reserved_size},
          {"shared_size", t.shared_size},
          {"headroom_size", t.headroom_size},
          {"reserved_used", t.reserved_used},
          {"shared_used", t.shared_used},
          {"headroom_used", t.headroom_used},
          {"peak_shared", t.peak_shared},
          {"peak_headroom", t.peak_headroom},
          {"admitted_packets", t.admitted_packets},
          {"admitted_bytes", t.admitted_bytes},
          {"drops_lossless", t.drops_lossless},
          {"drops_lossy", t.drops_lossy},
          {"paused_queues", t.paused_queues},
          {"ports", ports},
          {"events_total", t.events_total},
          {"channel_applied_seq", t.channel_applied_seq},
          {"channel_apply_error", t.channel_apply_error},
          {"channel_applied", t.channel_applied},
          {"channel_refused", t.channel_refused}};
}

// ---------------------------------------------------------------------------
// The scheme's telemetry, printed from the names of the scheme's
// descriptor (kernel/core/scheme.h): no code per scheme.

// The descriptor of a port slot's scheme if it has telemetry, or nullptr.
const ll_scheme_desc *scheme_stats_desc(const lossless_plane_scheme_port &sp)
{
  const ll_scheme_desc *d = ll_scheme_selectable(sp.s.scheme);
  return d && d->port_stats ? d : nullptr;
}

bool has_scheme_stats(const lossless_plane_scheme_port &sp)
{
  return scheme_stats_desc(sp) != nullptr;
}

std::string stat_str(std::uint8_t unit, std::uint64_t v)
{
  if (unit == LL_STAT_BYTES)
    return bytes_str(v);
  if (unit == LL_STAT_NS)
    return ms_str(v) + "ms";
  return std::to_string(v);
}

// "3,4" or "-".
std::string mask_str(std::uint32_t mask)
{
  std::string out;
  for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
    if (mask & (1u << p))
      out += (out.empty() ? "" : ",") + std::to_string(p);
  return out.empty() ? "-" : out;
}

// As tc -s -j's "scheme_stats", with the second per-priority value too.
json scheme_port_json(const lossless_plane_scheme_port &sp)
{
  const ll_scheme_desc *d = ll_scheme_lookup(sp.s.scheme);
  json o = {{"scheme", d ? d->name : "?"}};
  if (!d)
    return o;
  for (unsigned m = 0; m < d->n_masks && m < LL_SCHEME_MASKS; m++) {
    json prios = json::array();
    for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
      if ((sp.s.masks >> (8 * m + p)) & 1)
        prios.push_back(p);
    o[d->masks[m]] = prios;
  }
  for (unsigned i = 0; i < d->n_stats && i < LL_SCHEME_STATS; i++)
    o[d->stats[i].name] = sp.s.ctr[i];
  for (unsigned v = 0; v < d->n_prio_stats && v < LL_SCHEME_PRIO_STATS; v++) {
    json vals = json::array();
    for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
      vals.push_back(v ? sp.prio2[p] : sp.s.prio[p]);
    o[d->prio_stats[v].name] = vals;
  }
  return o;
}

// A port's mode, as tc -s -j's "mode_stats": its name, its counters by
// the names of its descriptor (kernel/core/mode.h), the lateness buckets.
json mode_port_json(const tc_lossless_mode_stats &ms)
{
  const ll_mode_desc *d = ll_mode_lookup(ms.mode);
  json o = {{"mode", d ? d->name : "?"}};
  if (!d)
    return o;
  for (unsigned i = 0; i < d->n_stats && i < LOSSLESS_MODE_STATS; i++)
    if (d->stats[i].name)
      o[d->stats[i].name] = ms.ctr[i];
  for (unsigned v = 0; v < d->n_prio_stats && v < LOSSLESS_MODE_PRIO_STATS; v++)
    if (d->prio_stats[v].name)
      o[d->prio_stats[v].name] = json(std::vector<std::uint64_t>(ms.prio[v], ms.prio[v] + 8));
  json hist = json::array();
  for (unsigned b = 0; b < LOSSLESS_MODE_HIST; b++)
    hist.push_back(ms.late_hist[b]);
  o["late_hist"] = hist;
  return o;
}

// Per port with a mode: its name and counters, one line each.
void print_mode_table(const lossless_plane_tel &t)
{
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const tc_lossless_mode_stats &ms = t.mode[i];
    const ll_mode_desc *d = ll_mode_lookup(ms.mode);
    if (!t.ports[i].ifindex || !d)
      continue;
    std::printf("  %s mode %s:", ifname(t.ports[i].ifindex).c_str(), d->name);
    for (unsigned c = 0; c < d->n_stats && c < LOSSLESS_MODE_STATS; c++)
      if (d->stats[c].name)
        std::printf(" %s %s", d->stats[c].name, stat_str(d->stats[c].unit, ms.ctr[c]).c_str());
    std::printf("\n");
    for (unsigned q = 0; d->n_prio_stats && q < LOSSLESS_PFC_PRIOS; q++) {
      if (!(t.lossless_mask & (1u << q)))
        continue;
      std::printf("    prio %u:", q);
      for (unsigned v = 0; v < d->n_prio_stats && v < LOSSLESS_MODE_PRIO_STATS; v++)
        std::printf(" %s %s", d->prio_stats[v].name,
                    stat_str(d->prio_stats[v].unit, ms.prio[v][q]).c_str());
      std::printf("\n");
    }
  }
}

// Per port with the scheme's telemetry: its masks and counters, then per
// lossless priority its values.
void print_scheme_table(const lossless_plane_tel &t)
{
  bool head = false;
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &sp = t.sch[i];
    if (!t.ports[i].ifindex || !has_scheme_stats(sp))
      continue;
    const ll_scheme_desc *d = scheme_stats_desc(sp);
    if (!head)
      std::printf("  scheme %s telemetry (%s):\n", d->name, d->doc);
    head = true;
    std::string line = "  " + ifname(t.ports[i].ifindex);
    for (unsigned m = 0; m < d->n_masks && m < LL_SCHEME_MASKS; m++)
      line += std::string("  ") + d->masks[m] + " " + mask_str((sp.s.masks >> (8 * m)) & 0xff);
    std::printf("%s\n   ", line.c_str());
    for (unsigned c = 0; c < d->n_stats && c < LL_SCHEME_STATS; c++)
      std::printf(" %s %s", d->stats[c].name, stat_str(d->stats[c].unit, sp.s.ctr[c]).c_str());
    std::printf("\n");
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      if (!(t.lossless_mask & (1u << q)))
        continue;
      std::printf("    prio %u:", q);
      for (unsigned v = 0; v < d->n_prio_stats && v < LL_SCHEME_PRIO_STATS; v++)
        std::printf(" %s %s", d->prio_stats[v].name,
                    stat_str(d->prio_stats[v].unit, v ? sp.prio2[q] : sp.s.prio[q]).c_str());
      std::printf("\n");
    }
  }
}

// Per port: the shaper's catch-up, the credit it cut while backlogged, and
// how late the timed wake-ups ran since the qdisc started: what catchup
// and sw-delay must cover.
void print_shaper_table(const lossless_plane_tel &t)
{
  std::printf("  %-12s %9s %13s %10s %12s %12s\n", "PORT", "CATCH-UP", "CREDIT-CUT-MS",
              "WAKE-UPS", "LATE-MAX-MS", "LATE-P99-MS");
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    lp::Lateness l = lp::lateness_of(p.wake_late);
    std::string p99 = !l.count     ? "-"
                      : l.p99_open ? ">=" + ms_str(lp::lateness_lower_ns(lp::kLatenessBuckets - 1))
                                   : "<" + ms_str(l.p99_below_ns);
    std::printf("  %-12s %9s %13s %10llu %12s %12s\n", ifname(p.ifindex).c_str(),
                bytes_str(p.catchup_bytes).c_str(), ms_str(p.shaper_lost_ns).c_str(),
                static_cast<unsigned long long>(l.count),
                l.count ? ms_str(p.wake_late_max_ns).c_str() : "-", p99.c_str());
  }
  std::printf("  (timed wake-ups since the qdisc started; p99: below the upper bound of its log2 bucket)\n");
}

// Per port: the headroom's premise (docs/RELIABILITY.md): its XOFF
// responses, the last and the slowest, and its headroom warnings.
void print_premise_table(const lossless_plane_tel &t)
{
  std::printf("  %-12s %9s %12s %12s %11s %5s\n", "PORT", "XOFF-RESP", "XOFF-LAST-MS",
              "XOFF-MAX-MS", "HR-WARNINGS", "NEAR");
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &pr = t.premise[i];
    if (!t.ports[i].ifindex)
      continue;
    bool timed = pr.xoff_responses != 0;
    std::printf("  %-12s %9llu %12s %12s %11llu %5s\n", ifname(t.ports[i].ifindex).c_str(),
                static_cast<unsigned long long>(pr.xoff_responses),
                timed ? ms_str(pr.xoff_response_last_ns).c_str() : "-",
                timed ? ms_str(pr.xoff_response_max_ns).c_str() : "-",
                static_cast<unsigned long long>(pr.headroom_warnings),
                mask_str(pr.headroom_near_mask).c_str());
  }
  std::printf("  (XOFF response: the MMU's XOFF decision to the frame built, this switch's half of "
              "sw-delay; NEAR: priorities past 90 %% of their headroom now)\n");
}

void print_table(const std::string &path, const lossless_plane_tel &t)
{
  std::string pool(t.pool, strnlen(t.pool, sizeof(t.pool)));
  std::string prios;
  for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
    if (t.lossless_mask & (1u << p))
      prios += (prios.empty() ? "" : ",") + std::to_string(p);
  std::printf("pool %s  (plane %s, snapshot #%llu, every %u us)\n", pool.c_str(),
              path.c_str(), t.snapshots, t.interval_us);
  std::printf("  buffer %s: shared %s used %s peak %s | headroom %s used %s peak %s | reserved %s used %s\n",
              bytes_str(t.total_bytes).c_str(), bytes_str(t.shared_size).c_str(),
              bytes_str(t.shared_used).c_str(), bytes_str(t.peak_shared).c_str(),
              bytes_str(t.headroom_size).c_str(), bytes_str(t.headroom_used).c_str(),
              bytes_str(t.peak_headroom).c_str(), bytes_str(t.reserved_size).c_str(),
              bytes_str(t.reserved_used).c_str());
  std::printf("  alpha %s  egress-alpha %s  xon-offset %u  reserved %u  lossless-prios %s\n",
              lp::format_alpha(t.alpha).c_str(), lp::format_alpha(t.egress_alpha).c_str(),
              t.xon_offset_bytes, t.reserved_bytes, prios.empty() ? "none" : prios.c_str());
  // As tc writes them (1ms, 4mb, a mode's name); --json keeps the numbers.
  std::string sp;
  if (const auto *r = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id)))
    for (const auto *p : r->params) {
      char text[96];
      ll_param_text(p, t.scheme.p.raw[p->word], text, sizeof(text));
      sp += "  " + std::string(p->key) + " " + text;
    }
  std::printf("  scheme %s%s\n", scheme_name(t).c_str(), sp.c_str());
  std::printf("  admitted %llu packets  drops: lossless %llu  lossy %llu"
              "  paused queues %llu  control gen %llu %s\n",
              t.admitted_packets, t.drops_lossless, t.drops_lossy, t.paused_queues,
              t.applied_gen,
              t.apply_error ? ("refused: " + lossless::datapath_error_text(t.apply_error)).c_str()
                            : "ok");
  std::printf("  %-12s %-10s %10s %7s %7s %7s %6s | %4s %8s %9s %9s %9s %6s %6s %6s\n", "PORT",
              "RATE", "TX-PKTS", "PFC-TX", "PFC-RX", "ECN", "PAUSED", "PRIO", "BYTES",
              "THRESHOLD", "HEADROOM", "PEAK-HR", "XOFF", "XON", "DROPS");
  for (std::uint32_t i = 0; i < t.nr_ports && i < LOSSLESS_PLANE_PORTS; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    char paused[8];
    std::snprintf(paused, sizeof(paused), "0x%x", p.paused_mask);
    bool first = true;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      const auto &s = p.iq[q];
      if (!s.lossless && !s.drops)
        continue;
      std::string hr = bytes_str(s.headroom_used) + "/" + bytes_str(s.headroom_size);
      if (first)
        std::printf("  %-12s %-10s %10llu %7llu %7llu %7llu %6s",
                    ifname(p.ifindex).c_str(), rate_str(p.rate_bps).c_str(), p.tx_packets,
                    p.pfc_frames_tx, p.pfc_frames_rx, p.ecn_marks, paused);
      else
        std::printf("  %-12s %-10s %10s %7s %7s %7s %6s", "", "", "", "", "", "", "");
      std::printf(" | %3u%s %8s %9s %9s %9s %6llu %6llu %6llu\n", q,
                  s.paused ? "*" : " ", bytes_str(s.bytes).c_str(),
                  bytes_str(s.threshold).c_str(), hr.c_str(), bytes_str(s.peak_headroom).c_str(),
                  s.xoff_frames, s.xon_frames, s.drops);
      first = false;
    }
    if (first)
      std::printf("  %-12s %-10s %10llu %7llu %7llu %7llu %6s |\n",
                  ifname(p.ifindex).c_str(), rate_str(p.rate_bps).c_str(), p.tx_packets,
                  p.pfc_frames_tx, p.pfc_frames_rx, p.ecn_marks, paused);
  }
  std::printf("  (* = upstream told XOFF now; PAUSED = gates closed by PFC received, bit p)\n");
  print_scheme_table(t);
  print_mode_table(t);
  if (t.channel_applied_seq || t.channel_refused)
    std::printf("  control channel (%s): seq %llu %s; %llu applied, %llu refused\n",
                scheme_name(t).c_str(), static_cast<unsigned long long>(t.channel_applied_seq),
                t.channel_apply_error
                    ? ("refused: " + lossless::datapath_error_text(-t.channel_apply_error)).c_str()
                    : "ok",
                static_cast<unsigned long long>(t.channel_applied),
                static_cast<unsigned long long>(t.channel_refused));
  print_shaper_table(t);
  print_premise_table(t);
}

// losslessd's "host_cc" (the hosts' congestion control): its algorithm,
// ports, counters and the top flows of each map with the rest summed.
void print_host_cc(const json &h)
{
  auto u = [](const json &j, const char *k) { return j.value(k, 0ULL); };
  const json &c = h["counters"];
  std::string ports;
  for (const auto &p : h["ports"])
    ports += (ports.empty() ? "" : ", ") + p["dev"].get<std::string>() +
             (p["state"] == "attached" ? "" : " (" + p["state"].get<std::string>() + ")");
  std::printf("host congestion control %s  line rate %s%s  roles %s  ports %s\n",
              h["algo"].get<std::string>().c_str(),
              rate_str(u(h, "line_rate_kbps") * 1000).c_str(),
              h.value("line_rate_auto", false) ? " (auto)" : "",
              h["config"]["roles"].get<std::string>().c_str(), ports.c_str());
  std::printf("  CNPs sent %llu  applied %llu  unknown flow %llu  malformed %llu  stale %llu"
              "  | refused by horizon %llu  CE packets %llu of %llu\n",
              u(c, "cnps_sent"), u(c, "cnps_received"), u(c, "cnp_unknown_flow"),
              u(c, "cnp_malformed"), u(c, "cnp_stale"), u(c, "rp_refused_pkts"),
              u(c, "np_ce_pkts"), u(c, "np_pkts"));
  const json &gc = h["gc"];
  unsigned long long idle = u(gc, "idle_ns");
  std::string idle_text = !idle                   ? "never"
                          : idle % 1000000000 == 0 ? std::to_string(idle / 1000000000) + "s"
                                                   : ms_str(idle) + "ms";
  std::printf("  gc: flows idle %s deleted: %llu NP, %llu RP (%llu runs)\n", idle_text.c_str(),
              u(gc, "np_deleted"), u(gc, "rp_deleted"), u(gc, "runs"));
  for (const char *map : {"np_flows", "rp_flows"}) {
    bool np = map[0] == 'n';
    const json &v = h[map];
    std::printf("  %s: %llu flows\n", np ? "NP flows (received)" : "RP flows (sent)",
                u(v, "total"));
    if (!u(v, "total"))
      continue;
    std::printf("    %-43s %12s %14s %10s %7s %8s\n", "FLOW", np ? "RECRATE-MBPS" : "RATE-MBPS",
                "BYTES", "PKTS", np ? "CE" : "", "CNPS");
    auto line = [&](const std::string &name, const json &f) {
      char ce[16] = "";
      if (np)
        std::snprintf(ce, sizeof(ce), "%.3f", f.value("ce_fraction", 0.0));
      std::printf("    %-43s %12.3f %14llu %10llu %7s %8llu\n", name.c_str(),
                  f.value("rate_mbps", 0.0), u(f, "bytes"), u(f, "pkts"), ce, u(f, "cnps"));
    };
    for (const auto &f : v["top"])
      line(f["flow"].get<std::string>(), f);
    if (u(v["rest"], "flows"))
      line("(" + std::to_string(u(v["rest"], "flows")) + " other flows)", v["rest"]);
  }
}

}  // namespace

int cmd_status(const std::vector<std::string> &planes, bool as_json, const json &host_cc)
{
  int rc = kExitOk;
  if (!planes.empty())
    rc = each_plane(planes, as_json, tel_json, print_table,
                    host_cc.is_object() ? json{{"host_cc", host_cc}} : json(nullptr));
  else if (as_json)
    std::printf("%s\n", json{{"pools", json::array()}, {"host_cc", host_cc}}.dump(2).c_str());
  if (!as_json && host_cc.is_object()) {
    if (!planes.empty())
      std::printf("\n");
    print_host_cc(host_cc);
  }
  return rc;
}

}  // namespace lossless::ctl
