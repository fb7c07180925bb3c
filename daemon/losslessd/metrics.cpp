// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "metrics.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "lateness.h"
#include "ll_params.h"
#include "registry.h"

extern "C" {
#include "mode.h"
#include "scheme.h"
}

namespace lossless::daemon {

namespace metrics {

namespace {

// A priority's label value; the gates' 9th (LOSSLESS_GATES) is the port's.
constexpr const char *kPrioLabel[LOSSLESS_GATES] = {"0", "1", "2", "3", "4", "5", "6", "7", "all"};

// Every metric family, in the order they are printed. docs/DAEMON.md
// ("Prometheus metrics") has the same list.
enum Fam {
  // pool
  kPoolBuffer,
  kPoolSharedSize,
  kPoolSharedUsed,
  kPoolSharedPeak,
  kPoolHeadroomSize,
  kPoolHeadroomUsed,
  kPoolHeadroomPeak,
  kPoolReservedSize,
  kPoolReservedUsed,
  kPoolAdmittedPackets,
  kPoolAdmittedBytes,
  kPoolDrops,
  kPoolPausedQueues,
  kPoolPorts,
  kPoolScheme,
  kPoolSchemeParam,
  kPoolAlpha,
  kPoolEgressAlpha,
  kPoolXonOffset,
  kPoolReservedPerQueue,
  kPoolInterval,
  kPoolSnapshots,
  kPoolControlGen,
  kPoolControlError,
  // daemon, per pool and overall
  kDaemonPushes,
  kDaemonRefusals,
  kDaemonLastPush,
  kDaemonForeignChanges,
  kDaemonSwDelay,
  kDaemonTicks,
  kDaemonBusy,
  // port
  kPortRate,
  kPortTxPackets,
  kPortTxBytes,
  kPortQdiscDrops,
  kPortPfcTx,
  kPortPfcRx,
  kPortPauseRx,
  kPortEcnMarks,
  kPortEgressBytes,
  kPortHeadroom,
  kPortPausedByPeer,
  kPortShaperCatchup,
  kPortShaperLost,
  kPortWakeLateness,
  kPortWakeLatenessMax,
  kPortXoffResponseLast,
  kPortXoffResponseMax,
  kPortXoffResponses,
  kPortHeadroomWarnings,
  // ingress (port, priority)
  kIqBytes,
  kIqPeakBytes,
  kIqHeadroomUsed,
  kIqHeadroomSize,
  kIqHeadroomPeak,
  kIqThreshold,
  kIqXoff,
  kIqXon,
  kIqPausedSeconds,
  kIqDrops,
  kIqPaused,
  // PFC watchdog (port, priority)
  kWdStorm,
  kWdStorms,
  kWdRestores,
  kWdDropped,
  kWdStormSeconds,
  kWdXoffAlarm,
  kWdXoffAlarms,
  kFamilies
};

struct FamilyDef {
  const char *name;
  const char *type;
  const char *help;
};

// The name of the family that shows a row of the pool's parameter table
// (ll_params.h): the row's.
const char *param_family(ll_param_id id)
{
  return ll_params[id].metric;
}

const FamilyDef kDefs[kFamilies] = {
    {param_family(LL_P_BUFFER), "gauge", "The pool's byte budget (tc buffer)."},
    {"lossless_pool_shared_size_bytes", "gauge", "Size of the pool's shared region."},
    {"lossless_pool_shared_used_bytes", "gauge", "Bytes in the shared region now."},
    {"lossless_pool_shared_peak_bytes", "gauge", "Highest shared region use seen."},
    {"lossless_pool_headroom_size_bytes", "gauge",
     "Size of the headroom region (every port's headroom for every lossless priority)."},
    {"lossless_pool_headroom_used_bytes", "gauge", "Bytes in the headroom region now."},
    {"lossless_pool_headroom_peak_bytes", "gauge", "Highest headroom region use seen."},
    {"lossless_pool_reserved_size_bytes", "gauge",
     "Size of the reserved region (the per ingress (port, priority) reserves)."},
    {"lossless_pool_reserved_used_bytes", "gauge", "Bytes in the reserved region now."},
    {"lossless_pool_admitted_packets_total", "counter", "Packets the pool admitted."},
    {"lossless_pool_admitted_bytes_total", "counter", "Bytes the pool admitted."},
    {"lossless_pool_drops_total", "counter",
     "Packets the pool refused, by class: lossless (must stay 0: a sizing bug) or lossy."},
    {"lossless_pool_paused_queues", "gauge",
     "Ingress (port, priority) queues whose upstream is told XOFF now."},
    {"lossless_pool_ports", "gauge", "Ports attached to the pool."},
    {"lossless_pool_scheme_info", "gauge", "1 for the MMU scheme the pool runs (docs/SCHEMES.md)."},
    {"lossless_pool_scheme_param", "gauge",
     "The parameters of the pool's scheme, in their units (bytes, ns)."},
    {param_family(LL_P_ALPHA), "gauge", "Dynamic Threshold alpha of the lossless priorities."},
    {param_family(LL_P_EGRESS_ALPHA), "gauge",
     "Dynamic Threshold alpha of the lossy egress queues."},
    {param_family(LL_P_XON_OFFSET), "gauge", "PFC hysteresis: XON below the threshold minus this."},
    {param_family(LL_P_RESERVED), "gauge", "Reserved bytes of each ingress (port, priority)."},
    {param_family(LL_P_INTERVAL), "gauge", "Period of the pool's telemetry snapshots."},
    {"lossless_pool_snapshots_total", "counter", "Telemetry snapshots the pool has written."},
    {"lossless_pool_control_generation", "gauge",
     "Last control generation the datapath applied or refused."},
    {"lossless_pool_control_error", "gauge",
     "errno of the datapath's refusal of that generation; 0 when it was applied."},
    {"lossless_daemon_pushes_total", "counter",
     "Parameter changes losslessd pushed and the datapath applied."},
    {"lossless_daemon_refusals_total", "counter",
     "Parameter changes losslessd pushed and the datapath refused."},
    {"lossless_daemon_last_push_latency_seconds", "gauge",
     "Time from losslessd's last push to the datapath's answer."},
    {"lossless_daemon_foreign_changes_total", "counter",
     "Changes of the daemon's settings made behind its back (source: tc or plane), adopted or "
     "reverted (docs/DAEMON.md, Ownership)."},
    {"lossless_daemon_sw_delay_seconds", "gauge",
     "Software delay the policy sizes the port's headroom with: sw-delay, or more as measured."},
    {"lossless_daemon_ticks_total", "counter", "Policy periods losslessd has run."},
    {"lossless_daemon_busy_seconds_total", "counter", "Time losslessd spent running the policies."},
    {"lossless_port_line_rate_bits_per_second", "gauge", "The port's line rate (tc rate)."},
    {"lossless_port_tx_packets_total", "counter", "Packets the port's qdisc sent."},
    {"lossless_port_tx_bytes_total", "counter", "Bytes the port's qdisc sent."},
    {"lossless_port_qdisc_drops_total", "counter", "Packets the port's qdisc dropped."},
    {"lossless_port_pfc_tx_frames_total", "counter", "PFC frames the port sent upstream."},
    {"lossless_port_pfc_rx_frames_total", "counter", "Valid PFC frames the port received."},
    {"lossless_port_pause_rx_frames_total", "counter",
     "Valid 802.3x PAUSE frames the port received."},
    {"lossless_port_ecn_marks_total", "counter", "Packets marked CE on the port's queues."},
    {"lossless_port_egress_bytes", "gauge", "Accounted bytes queued on the port now."},
    {param_family(LL_P_HEADROOM), "gauge", "The port's headroom per lossless priority."},
    {"lossless_port_paused_by_peer", "gauge",
     "1 while the port's transmit gate is closed by PFC (prio 0-7) or PAUSE (prio=\"all\") "
     "received."},
    {"lossless_port_shaper_catchup_bytes", "gauge",
     "Most the port's shaper sends back to back to catch up after a late wake-up: "
     "max(burst, catchup), headroom term 9."},
    {"lossless_port_shaper_lost_seconds_total", "counter",
     "Shaper credit cut while backlogged: wake-ups later than the catch-up covers."},
    {"lossless_port_wake_lateness_seconds", "histogram",
     "How late the qdisc's timed wake-ups ran (log2 buckets; no _sum: the datapath keeps none)."},
    {"lossless_port_wake_lateness_max_seconds", "gauge",
     "Largest lateness of the port qdisc's timed wake-ups."},
    {"lossless_port_xoff_response_last_seconds", "gauge",
     "The port's last XOFF response: the MMU's XOFF decision to the frame built for the wire."},
    {"lossless_port_xoff_response_max_seconds", "gauge",
     "The port's slowest XOFF response since the peaks' reset: this switch's half of sw-delay."},
    {"lossless_port_xoff_responses_total", "counter", "XOFF decisions whose response was timed."},
    {"lossless_port_headroom_warnings_total", "counter",
     "Times a lossless priority's headroom passed 90 % of its size or overflowed."},
    {"lossless_ingress_bytes", "gauge",
     "Bytes queued anywhere in the pool that entered on this port and priority."},
    {"lossless_ingress_peak_bytes", "gauge", "Highest lossless_ingress_bytes seen."},
    {"lossless_ingress_headroom_used_bytes", "gauge", "Headroom bytes in use."},
    {"lossless_ingress_headroom_size_bytes", "gauge", "Headroom size."},
    {"lossless_ingress_headroom_peak_bytes", "gauge", "Highest headroom use seen."},
    {"lossless_ingress_threshold_bytes", "gauge", "The Dynamic Threshold now."},
    {"lossless_ingress_xoff_frames_total", "counter", "PFC XOFF frames sent upstream."},
    {"lossless_ingress_xon_frames_total", "counter", "PFC XON frames sent upstream."},
    {"lossless_ingress_paused_seconds_total", "counter",
     "Time the upstream was told XOFF, including now."},
    {"lossless_ingress_drops_total", "counter", "Packets dropped at admission."},
    {"lossless_ingress_paused", "gauge", "1 while the upstream is told XOFF."},
    {"lossless_pfcwd_storm", "gauge",
     "1 while the PFC watchdog holds the priority in storm: paused by the peer with packets "
     "waiting for the detection time, until no XOFF came for the restoration time."},
    {"lossless_pfcwd_storms_total", "counter", "PFC storms the watchdog detected."},
    {"lossless_pfcwd_restores_total", "counter",
     "PFC storms that ended: no XOFF for the restoration time."},
    {"lossless_pfcwd_dropped_packets_total", "counter",
     "Packets the watchdog dropped in storm (action drop); not lossless drops of the buffer."},
    {"lossless_pfcwd_storm_seconds_total", "counter", "Time in PFC storm, including now."},
    {"lossless_pfcwd_xoff_alarm", "gauge",
     "1 while the port has told its upstream XOFF on the priority for longer than xoff-alarm."},
    {"lossless_pfcwd_xoff_alarms_total", "counter", "XOFF alarms the watchdog raised."},
};

// Label values: backslash, double quote and line feed escaped (0.0.4).
void append_escaped(std::string &out, std::string_view v)
{
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

using Label = std::pair<const char *, std::string_view>;

std::string u64(std::uint64_t v)
{
  return std::to_string(v);
}

// Nanoseconds as exact decimal seconds: 1500000000 -> "1.5".
std::string seconds(std::uint64_t ns)
{
  std::string s = std::to_string(ns / 1000000000ULL);
  std::uint64_t frac = ns % 1000000000ULL;
  if (frac) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), ".%09llu", static_cast<unsigned long long>(frac));
    std::string f = buf;
    while (f.back() == '0')
      f.pop_back();
    s += f;
  }
  return s;
}

std::string seconds(std::chrono::nanoseconds ns)
{
  return seconds(static_cast<std::uint64_t>(std::max<std::int64_t>(ns.count(), 0)));
}

// An encoded alpha's value (ll_alpha_value()), shortest exact representation.
std::string alpha(std::uint32_t encoded)
{
  double v = ll_alpha_value(encoded);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// A gauge's value, shortest exact representation (0.25, 1).
std::string fmt_double(double v)
{
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

class Writer {
 public:
  // suffix: a histogram's "_bucket" or "_count".
  void add(Fam f, std::initializer_list<Label> labels, const std::string &value,
           const char *suffix = "")
  {
    std::string &s = samples_[f];
    s += kDefs[f].name;
    s += suffix;
    append_labels(s, labels);
    s += ' ';
    s += value;
    s += '\n';
  }
  // A family named at run time (a scheme's telemetry: scheme_types.h's
  // tables), printed after the fixed ones in the order first added.
  void add_named(const std::string &name, const char *type, const char *help,
                 std::initializer_list<Label> labels, const std::string &value,
                 const char *suffix = "")
  {
    auto [it, fresh] = named_index_.try_emplace(name, named_.size());
    if (fresh)
      named_.push_back({name, type, help, {}});
    std::string &s = named_[it->second].samples;
    s += name;
    s += suffix;
    append_labels(s, labels);
    s += ' ';
    s += value;
    s += '\n';
  }
  std::string text() const
  {
    std::string out;
    for (int f = 0; f < kFamilies; f++)
      if (!samples_[f].empty())
        append_family(out, kDefs[f].name, kDefs[f].type, kDefs[f].help, samples_[f]);
    for (const auto &n : named_)
      append_family(out, n.name.c_str(), n.type, n.help, n.samples);
    return out;
  }

 private:
  static void append_labels(std::string &s, std::initializer_list<Label> labels)
  {
    if (!labels.size())
      return;
    s += '{';
    bool first = true;
    for (const auto &[k, v] : labels) {
      if (!first)
        s += ',';
      first = false;
      s += k;
      s += "=\"";
      append_escaped(s, v);
      s += '"';
    }
    s += '}';
  }
  static void append_family(std::string &out, const char *name, const char *type, const char *help,
                            const std::string &samples)
  {
    out += "# HELP ";
    out += name;
    out += ' ';
    // HELP text: backslash and line feed escaped.
    for (const char *c = help; *c; c++)
      out += *c == '\\' ? "\\\\" : *c == '\n' ? "\\n" : std::string(1, *c);
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
    out += samples;
  }

  struct Named {
    std::string name;
    const char *type;
    const char *help;
    std::string samples;
  };
  std::string samples_[kFamilies];
  std::vector<Named> named_;
  std::map<std::string, std::size_t> named_index_;
};

// The scheme telemetry of a port slot, from the names of the scheme's
// descriptor (kernel/core/scheme.h): per port lossless_<scheme>_port_<counter>
// with the unit's suffix, per lossless priority lossless_<scheme>_ingress_<mask>
// (1 while set) and lossless_<scheme>_ingress_<value>.
void add_scheme_port(Writer &w, const lossless_plane_tel &t, std::uint32_t slot,
                     std::string_view pv, std::string_view dv)
{
  const lossless_plane_scheme_port &sp = t.sch[slot];
  const ll_scheme_desc *desc = ll_scheme_selectable(sp.s.scheme);
  if (!desc || !desc->port_stats)
    return;
  const char *scheme = desc->name;
  const std::string base = std::string("lossless_") + scheme;
  auto value = [](std::uint8_t unit, std::uint64_t v) {
    return unit == LL_STAT_NS ? seconds(v) : u64(v);
  };
  auto suffix = [](std::uint8_t unit) {
    return unit == LL_STAT_COUNT   ? "_total"
           : unit == LL_STAT_BYTES ? "_bytes"
           : unit == LL_STAT_NS    ? "_seconds_total"
                                   : "";
  };
  auto type = [](std::uint8_t unit) {
    return unit == LL_STAT_COUNT || unit == LL_STAT_NS ? "counter" : "gauge";
  };
  for (unsigned i = 0; i < desc->n_stats; i++) {
    const ll_scheme_stat_desc &d = desc->stats[i];
    if (d.name)
      w.add_named(base + "_port_" + d.name + suffix(d.unit), type(d.unit), d.help,
                  {{"pool", pv}, {"dev", dv}}, value(d.unit, sp.s.ctr[i]));
  }
  for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
    if (!(t.lossless_mask & (1u << q)))
      continue;
    const std::string_view qv = kPrioLabel[q];
    for (unsigned m = 0; m < desc->n_masks; m++)
      if (desc->masks[m])
        w.add_named(base + "_ingress_" + desc->masks[m], "gauge",
                    "1 while the priority is in this state of the scheme.",
                    {{"pool", pv}, {"dev", dv}, {"prio", qv}},
                    (sp.s.masks >> (8 * m + q)) & 1 ? "1" : "0");
    for (unsigned v = 0; v < desc->n_prio_stats; v++) {
      const ll_scheme_stat_desc &d = desc->prio_stats[v];
      if (d.name)
        w.add_named(base + "_ingress_" + d.name + suffix(d.unit), type(d.unit), d.help,
                    {{"pool", pv}, {"dev", dv}, {"prio", qv}},
                    value(d.unit, v ? sp.prio2[q] : sp.s.prio[q]));
    }
  }
}

// A port's mode (kernel/core/mode.h), from the names of the mode's
// descriptor: lossless_port_mode_<counter> with the unit's suffix (a max
// or min is a gauge), labels pool, dev and mode; the slot loop's lateness
// as the histogram lossless_port_mode_lateness_seconds (bucket 0 < 1 us,
// bucket i below 2^i us, the last one in +Inf only).
void add_mode_port(Writer &w, const lossless_plane_tel &t, std::uint32_t slot, std::string_view pv,
                   std::string_view dv)
{
  const tc_lossless_mode_stats &ms = t.mode[slot];
  const ll_mode_desc *desc = ms.mode ? ll_mode_lookup(ms.mode) : nullptr;
  if (!desc)
    return;
  const std::string_view mv = desc->name;
  for (unsigned i = 0; i < desc->n_stats && i < LOSSLESS_MODE_STATS; i++) {
    const ll_scheme_stat_desc &d = desc->stats[i];
    if (!d.name)
      continue;
    std::string name = d.name;
    bool extreme = name.rfind("max_", 0) == 0 || name.rfind("min_", 0) == 0;
    const char *unit = d.unit == LL_STAT_BYTES ? "_bytes" : d.unit == LL_STAT_NS ? "_seconds" : "";
    w.add_named("lossless_port_mode_" + name + unit + (extreme ? "" : "_total"),
                extreme ? "gauge" : "counter", d.help, {{"pool", pv}, {"dev", dv}, {"mode", mv}},
                d.unit == LL_STAT_NS ? seconds(ms.ctr[i]) : u64(ms.ctr[i]));
  }
  // Per lossless priority: lossless_port_mode_prio_<name>, label prio.
  for (unsigned v = 0; v < desc->n_prio_stats && v < LOSSLESS_MODE_PRIO_STATS; v++) {
    const ll_scheme_stat_desc &d = desc->prio_stats[v];
    if (!d.name)
      continue;
    const char *unit = d.unit == LL_STAT_BYTES ? "_bytes" : d.unit == LL_STAT_NS ? "_seconds" : "";
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++)
      if (t.lossless_mask & (1u << q))
        w.add_named(std::string("lossless_port_mode_prio_") + d.name + unit + "_total", "counter",
                    d.help, {{"pool", pv}, {"dev", dv}, {"mode", mv}, {"prio", kPrioLabel[q]}},
                    d.unit == LL_STAT_NS ? seconds(ms.prio[v][q]) : u64(ms.prio[v][q]));
  }
  static const char kHelp[] = "Lateness of the port mode's slots (the slot loop's timer).";
  const std::string hist = "lossless_port_mode_lateness_seconds";
  std::uint64_t cum = 0;
  for (unsigned b = 0; b < LOSSLESS_MODE_HIST; b++) {
    cum += ms.late_hist[b];
    if (b + 1 < LOSSLESS_MODE_HIST)
      w.add_named(hist, "histogram", kHelp,
                  {{"pool", pv}, {"dev", dv}, {"mode", mv}, {"le", seconds((1000ULL << b))}},
                  u64(cum), "_bucket");
  }
  w.add_named(hist, "histogram", kHelp, {{"pool", pv}, {"dev", dv}, {"mode", mv}, {"le", "+Inf"}},
              u64(cum), "_bucket");
  w.add_named(hist, "histogram", kHelp, {{"pool", pv}, {"dev", dv}, {"mode", mv}}, u64(cum),
              "_count");
}

// The scheme control channel's blocks (agent.h: a scheme's run-time
// commands) as the datapath answered them, for a pool whose scheme takes
// commands (its descriptor's channel hook).
void add_channel_pool(Writer &w, const lossless_plane_tel &t, std::string_view pv)
{
  w.add_named("lossless_pool_channel_blocks_applied_total", "counter",
              "Control channel blocks (the scheme's run-time commands) the datapath applied.",
              {{"pool", pv}}, u64(t.channel_applied));
  w.add_named("lossless_pool_channel_blocks_refused_total", "counter",
              "Control channel blocks (the scheme's run-time commands) the datapath refused.",
              {{"pool", pv}}, u64(t.channel_refused));
  w.add_named("lossless_pool_channel_applied_seq", "gauge",
              "Seq of the last control channel block the datapath applied or refused.",
              {{"pool", pv}}, u64(t.channel_applied_seq));
  w.add_named(
      "lossless_pool_channel_apply_error", "gauge",
      "Errno of the datapath's refusal of that block; 0 when it was applied.", {{"pool", pv}},
      std::to_string(t.channel_apply_error < 0 ? -static_cast<std::int64_t>(t.channel_apply_error)
                                               : static_cast<std::int64_t>(t.channel_apply_error)));
}

// The hosts' congestion control: its counters (one counter family each,
// lossless_host_cc_<name>_total), the flows in its maps, and per-flow
// gauges for the top N flows of each map plus flow="other" (the rest
// summed): at most 2 (N + 1) series per flow family.
void add_host_cc(Writer &w, const HostCcSample &h)
{
  w.add_named("lossless_host_cc_info", "gauge",
              "The hosts' congestion control in force ([host_cc] algo): always 1",
              {{"algo", h.algo}}, "1");
  for (const auto &[name, v] : h.counters) {
    std::string help = "Hosts' congestion control counter " + name +
                       " (ll_cc_stats, bpf/lossless_cc.h), summed over CPUs";
    // add_named keeps the help pointer: the names are few and fixed, kept
    // for the process's life.
    static std::map<std::string, std::string> helps;
    const std::string &kept = helps.try_emplace(name, help).first->second;
    w.add_named("lossless_host_cc_" + name + "_total", "counter", kept.c_str(), {}, u64(v));
  }
  for (const auto &[reason, v] : h.parse_errors)
    w.add_named("lossless_host_cc_cnp_malformed_total", "counter",
                "CNPs received that the parser refused (malformed), by reason",
                {{"reason", reason}}, u64(v));
  w.add_named("lossless_host_cc_flows", "gauge", "Flows in the congestion control's map now",
              {{"map", "np"}}, u64(h.np_flows));
  w.add_named("lossless_host_cc_flows", "gauge", "Flows in the congestion control's map now",
              {{"map", "rp"}}, u64(h.rp_flows));
  w.add_named("lossless_host_cc_gc_deleted_flows_total", "counter",
              "Idle flows the daemon deleted (gc-idle)", {{"map", "np"}}, u64(h.gc_np_deleted));
  w.add_named("lossless_host_cc_gc_deleted_flows_total", "counter",
              "Idle flows the daemon deleted (gc-idle)", {{"map", "rp"}}, u64(h.gc_rp_deleted));
  for (const HostCcFlow &f : h.flows) {
    const std::string_view mv = f.map, fv = f.flow;
    w.add_named("lossless_host_cc_flow_rate_bits_per_second", "gauge",
                "A flow's rate in bit/s (rp: the paced rate; np: the last PCN CNP's RecRate); "
                "the top-flows flows of each map, flow=\"other\" the rest summed",
                {{"map", mv}, {"flow", fv}}, u64(f.rate_bps));
    w.add_named("lossless_host_cc_flow_bytes", "gauge", "A flow's bytes since it entered the map",
                {{"map", mv}, {"flow", fv}}, u64(f.bytes));
    w.add_named("lossless_host_cc_flow_packets", "gauge",
                "A flow's packets since it entered the map", {{"map", mv}, {"flow", fv}},
                u64(f.pkts));
    if (f.map == "np") {
      w.add_named("lossless_host_cc_flow_ce_packets", "gauge",
                  "A received flow's CE-marked packets since it entered the map",
                  {{"map", mv}, {"flow", fv}}, u64(f.ce_pkts));
      w.add_named("lossless_host_cc_flow_ce_fraction", "gauge",
                  "A received flow's CE-marked fraction of its packets",
                  {{"map", mv}, {"flow", fv}},
                  fmt_double(f.pkts ? double(f.ce_pkts) / double(f.pkts) : 0.0));
    }
    w.add_named("lossless_host_cc_flow_cnps", "gauge",
                "A flow's CNPs (np: sent; rp: applied) since it entered the map",
                {{"map", mv}, {"flow", fv}}, u64(f.cnps));
    if (f.flow == "other")
      w.add_named("lossless_host_cc_other_flows", "gauge",
                  "Flows summed into flow=\"other\" (beyond the top-flows)", {{"map", mv}},
                  u64(f.flows));
  }
}

// PortFC ([portfc]): the node, the classifier's counters, the ingress
// program's PortFC frames per port, and per pausable queue of its ports
// the pause state and time and the stuck alarm.
void add_portfc(Writer &w, const PortfcSample &p)
{
  const std::string n = std::to_string(p.n), k = std::to_string(p.k), node = std::to_string(p.node);
  w.add_named("lossless_portfc_info", "gauge",
              "This node's part in PortFC ([portfc]: role, BCube(n,k), server id or switch "
              "index): always 1",
              {{"role", p.role}, {"n", n}, {"k", k}, {"node", node}}, "1");
  // The total on its own: the kinds overlap (a relayed packet may be
  // misrouted too) and a sum over a label must not count it twice.
  for (const auto &[name, v] : p.classifier) {
    std::string_view kv = name;
    if (name == "packets")
      w.add_named("lossless_portfc_classified_packets_total", "counter",
                  "Packets PortFC's egress classifier saw on this node's ports", {}, u64(v));
    else
      w.add_named("lossless_portfc_classified_by_kind_total", "counter",
                  "Of the classified packets: to HQ, relayed, no BCube address (unknown), for "
                  "the sender itself (self), out of a port no shortest path uses (misrouted), "
                  "on a port with a bad entry (bad_port); kinds may overlap",
                  {{"kind", kv}}, u64(v));
  }
  for (std::size_t q = 0; q < p.classifier_queue.size(); q++) {
    if (!p.classifier_queue[q])
      continue;
    std::string qs = std::to_string(q);
    std::string_view qv = qs;
    w.add_named("lossless_portfc_queue_packets_total", "counter",
                "Packets the classifier put in this queue (class 1:queue+1), all ports",
                {{"queue", qv}}, u64(p.classifier_queue[q]));
  }
  for (const PortfcPort &pt : p.ports) {
    std::string_view dv = pt.dev;
    w.add_named("lossless_portfc_frames_refused_total", "counter",
                "PortFC frames the ingress program dropped on this port (a kind its role never "
                "hears, a slot beyond n - 2, no role)",
                {{"dev", dv}}, u64(pt.frames_refused));
    w.add_named("lossless_portfc_frames_relayed_total", "counter",
                "PORTFC_R copies a server sent for a PORTFC_B received on this port", {{"dev", dv}},
                u64(pt.frames_relayed));
    w.add_named("lossless_portfc_relay_failed_total", "counter",
                "Relayed copies the kernel refused to send", {{"dev", dv}}, u64(pt.relay_failed));
  }
  for (const PortfcQueue &q : p.queues) {
    std::string qs = std::to_string(q.queue);
    std::string_view dv = q.dev, qv = qs;
    w.add_named("lossless_portfc_queue_paused", "gauge",
                "1 while a gate of this PortFC queue is closed", {{"dev", dv}, {"queue", qv}},
                q.paused ? "1" : "0");
    w.add_named("lossless_portfc_queue_paused_seconds_total", "counter",
                "Time this queue's gates were closed (summed over its gates)",
                {{"dev", dv}, {"queue", qv}}, seconds(q.paused_ns));
    w.add_named("lossless_portfc_queue_pause_frames_total", "counter",
                "PortFC frames received that named this queue's gates",
                {{"dev", dv}, {"queue", qv}}, u64(q.pause_frames_rx));
    w.add_named("lossless_portfc_queue_stuck", "gauge",
                "1 while this queue has been paused longer than [portfc] stuck",
                {{"dev", dv}, {"queue", qv}}, q.stuck ? "1" : "0");
    w.add_named("lossless_portfc_queue_stuck_alarms_total", "counter",
                "Stuck alarms raised for this queue since the daemon started",
                {{"dev", dv}, {"queue", qv}}, u64(q.stuck_alarms));
  }
  w.add_named("lossless_portfc_stuck_seconds", "gauge",
              "T_stuck: a queue paused longer raises an alarm ([portfc] stuck; 0: off)", {},
              seconds(p.stuck_ns));
  w.add_named("lossless_portfc_stuck_alarms_total", "counter",
              "Stuck alarms raised since the daemon started, all queues", {},
              u64(p.stuck_alarms_total));
}

}  // namespace

std::string render(const std::vector<PoolSample> &pools, const DevNames &devs,
                   const std::optional<DaemonStats> &daemon, const HostCcSample *host_cc,
                   const PortfcSample *portfc)
{
  Writer w;
  for (const auto &ps : pools) {
    if (!ps.tel)
      continue;
    const lossless_plane_tel &t = *ps.tel;
    const std::string pool(t.pool, strnlen(t.pool, sizeof(t.pool)));
    const std::string_view pv = pool;

    std::uint32_t nr = std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
    std::uint64_t ports = 0;
    for (std::uint32_t i = 0; i < nr; i++)
      ports += t.ports[i].ifindex != 0;

    w.add(kPoolBuffer, {{"pool", pv}}, u64(t.total_bytes));
    w.add(kPoolSharedSize, {{"pool", pv}}, u64(t.shared_size));
    w.add(kPoolSharedUsed, {{"pool", pv}}, u64(t.shared_used));
    w.add(kPoolSharedPeak, {{"pool", pv}}, u64(t.peak_shared));
    w.add(kPoolHeadroomSize, {{"pool", pv}}, u64(t.headroom_size));
    w.add(kPoolHeadroomUsed, {{"pool", pv}}, u64(t.headroom_used));
    w.add(kPoolHeadroomPeak, {{"pool", pv}}, u64(t.peak_headroom));
    w.add(kPoolReservedSize, {{"pool", pv}}, u64(t.reserved_size));
    w.add(kPoolReservedUsed, {{"pool", pv}}, u64(t.reserved_used));
    w.add(kPoolAdmittedPackets, {{"pool", pv}}, u64(t.admitted_packets));
    w.add(kPoolAdmittedBytes, {{"pool", pv}}, u64(t.admitted_bytes));
    w.add(kPoolDrops, {{"pool", pv}, {"class", "lossless"}}, u64(t.drops_lossless));
    w.add(kPoolDrops, {{"pool", pv}, {"class", "lossy"}}, u64(t.drops_lossy));
    w.add(kPoolPausedQueues, {{"pool", pv}}, u64(t.paused_queues));
    w.add(kPoolPorts, {{"pool", pv}}, u64(ports));
    if (const auto *r = policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id))) {
      std::string scheme(r->scheme);
      w.add(kPoolScheme, {{"pool", pv}, {"scheme", scheme}}, "1");
      for (const auto *sp : r->params)
        w.add(kPoolSchemeParam, {{"pool", pv}, {"scheme", scheme}, {"param", std::string(sp->key)}},
              u64(t.scheme.p.raw[sp->word]));
    }
    w.add(kPoolAlpha, {{"pool", pv}}, alpha(t.alpha));
    w.add(kPoolEgressAlpha, {{"pool", pv}}, alpha(t.egress_alpha));
    w.add(kPoolXonOffset, {{"pool", pv}}, u64(t.xon_offset_bytes));
    w.add(kPoolReservedPerQueue, {{"pool", pv}}, u64(t.reserved_bytes));
    w.add(kPoolInterval, {{"pool", pv}}, seconds(std::uint64_t(t.interval_us) * 1000));
    w.add(kPoolSnapshots, {{"pool", pv}}, u64(t.snapshots));
    w.add(kPoolControlGen, {{"pool", pv}}, u64(t.applied_gen));
    w.add(kPoolControlError, {{"pool", pv}},
          std::to_string(t.apply_error < 0 ? -static_cast<std::int64_t>(t.apply_error)
                                           : static_cast<std::int64_t>(t.apply_error)));
    if (const ll_scheme_desc *d = ll_scheme_lookup(t.scheme.id); d && d->channel)
      add_channel_pool(w, t, pv);
    if (ps.daemon) {
      w.add(kDaemonPushes, {{"pool", pv}}, u64(ps.daemon->pushes));
      w.add(kDaemonRefusals, {{"pool", pv}}, u64(ps.daemon->refusals));
      w.add(kDaemonLastPush, {{"pool", pv}}, seconds(ps.daemon->last_push_latency));
      for (const auto &f : ps.daemon->foreign)
        w.add(kDaemonForeignChanges,
              {{"pool", pv}, {"setting", f.setting}, {"source", f.source}, {"action", f.action}},
              u64(f.count));
    }

    for (std::uint32_t i = 0; i < nr; i++) {
      const lossless_plane_port &p = t.ports[i];
      if (!p.ifindex)
        continue;
      auto it = devs.find(p.ifindex);
      const std::string dev = it != devs.end() ? it->second : "if" + std::to_string(p.ifindex);
      const std::string_view dv = dev;
      w.add(kPortRate, {{"pool", pv}, {"dev", dv}}, u64(p.rate_bps));
      w.add(kPortTxPackets, {{"pool", pv}, {"dev", dv}}, u64(p.tx_packets));
      w.add(kPortTxBytes, {{"pool", pv}, {"dev", dv}}, u64(p.tx_bytes));
      w.add(kPortQdiscDrops, {{"pool", pv}, {"dev", dv}}, u64(p.qdisc_drops));
      w.add(kPortPfcTx, {{"pool", pv}, {"dev", dv}}, u64(p.pfc_frames_tx));
      w.add(kPortPfcRx, {{"pool", pv}, {"dev", dv}}, u64(p.pfc_frames_rx));
      w.add(kPortPauseRx, {{"pool", pv}, {"dev", dv}}, u64(p.pause_frames_rx));
      w.add(kPortEcnMarks, {{"pool", pv}, {"dev", dv}}, u64(p.ecn_marks));
      w.add(kPortEgressBytes, {{"pool", pv}, {"dev", dv}}, u64(p.egress_bytes));
      w.add(kPortHeadroom, {{"pool", pv}, {"dev", dv}}, u64(p.headroom_bytes));
      for (unsigned g = 0; g < LOSSLESS_GATES; g++)
        w.add(kPortPausedByPeer, {{"pool", pv}, {"dev", dv}, {"prio", kPrioLabel[g]}},
              (p.paused_mask >> g) & 1 ? "1" : "0");
      w.add(kPortShaperCatchup, {{"pool", pv}, {"dev", dv}}, u64(p.catchup_bytes));
      w.add(kPortShaperLost, {{"pool", pv}, {"dev", dv}}, seconds(p.shaper_lost_ns));
      // Cumulative buckets up to each bucket's upper bound (a wake-up in
      // bucket i is below it, so at most it); the last bucket has none and
      // counts in +Inf only.
      std::uint64_t cum = 0;
      for (unsigned b = 0; b < plane::kLatenessBuckets; b++) {
        cum += p.wake_late[b];
        if (std::uint64_t le_ns = plane::lateness_upper_ns(b))
          w.add(kPortWakeLateness, {{"pool", pv}, {"dev", dv}, {"le", seconds(le_ns)}}, u64(cum),
                "_bucket");
      }
      w.add(kPortWakeLateness, {{"pool", pv}, {"dev", dv}, {"le", "+Inf"}}, u64(cum), "_bucket");
      w.add(kPortWakeLateness, {{"pool", pv}, {"dev", dv}}, u64(cum), "_count");
      w.add(kPortWakeLatenessMax, {{"pool", pv}, {"dev", dv}}, seconds(p.wake_late_max_ns));
      const lossless_plane_premise &pr = t.premise[i];
      w.add(kPortXoffResponseLast, {{"pool", pv}, {"dev", dv}}, seconds(pr.xoff_response_last_ns));
      w.add(kPortXoffResponseMax, {{"pool", pv}, {"dev", dv}}, seconds(pr.xoff_response_max_ns));
      w.add(kPortXoffResponses, {{"pool", pv}, {"dev", dv}}, u64(pr.xoff_responses));
      w.add(kPortHeadroomWarnings, {{"pool", pv}, {"dev", dv}}, u64(pr.headroom_warnings));
      if (ps.daemon)
        for (const auto &[ifindex, ns] : ps.daemon->sw_delay_ns)
          if (ifindex == p.ifindex)
            w.add(kDaemonSwDelay, {{"pool", pv}, {"dev", dv}}, seconds(ns));

      for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
        const tc_lossless_iq_stats &s = p.iq[q];
        const std::string_view qv = kPrioLabel[q];
        w.add(kIqBytes, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.bytes));
        w.add(kIqDrops, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.drops));
        if (!s.lossless && !(t.lossless_mask & (1u << q)))
          continue;  // lossy: no headroom, no PFC
        w.add(kIqPeakBytes, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.peak_bytes));
        w.add(kIqHeadroomUsed, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.headroom_used));
        w.add(kIqHeadroomSize, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.headroom_size));
        w.add(kIqHeadroomPeak, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.peak_headroom));
        w.add(kIqThreshold, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.threshold));
        w.add(kIqXoff, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.xoff_frames));
        w.add(kIqXon, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.xon_frames));
        w.add(kIqPausedSeconds, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, seconds(s.paused_ns));
        w.add(kIqPaused, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, s.paused ? "1" : "0");
      }

      add_scheme_port(w, t, i, pv, dv);
      add_mode_port(w, t, i, pv, dv);

      // The PFC watchdog: with an action, every lossless priority; any
      // priority once it has counted something (an XOFF alarm alone, or
      // counters kept after the watchdog was turned off).
      for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
        const tc_lossless_wd_stats &s = p.wd[q];
        bool lossless = p.iq[q].lossless || (t.lossless_mask & (1u << q));
        bool counted = s.storm || s.xoff_alarm || s.storms || s.restores || s.dropped ||
                       s.storm_ns || s.xoff_alarms || s.xoff_ns;
        if (!counted && !(p.wd_action && lossless))
          continue;
        const std::string_view qv = kPrioLabel[q];
        w.add(kWdStorm, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, s.storm ? "1" : "0");
        w.add(kWdStorms, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.storms));
        w.add(kWdRestores, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.restores));
        w.add(kWdDropped, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.dropped));
        w.add(kWdStormSeconds, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, seconds(s.storm_ns));
        w.add(kWdXoffAlarm, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, s.xoff_alarm ? "1" : "0");
        w.add(kWdXoffAlarms, {{"pool", pv}, {"dev", dv}, {"prio", qv}}, u64(s.xoff_alarms));
      }
    }
  }
  if (daemon) {
    w.add(kDaemonTicks, {}, u64(daemon->ticks));
    w.add(kDaemonBusy, {}, seconds(daemon->busy));
  }
  if (host_cc)
    add_host_cc(w, *host_cc);
  if (portfc)
    add_portfc(w, *portfc);
  return w.text();
}

}  // namespace metrics

// ---------------------------------------------------------------------------
// The HTTP server.

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

tcp::endpoint parse_listen_address(const std::string &addr_port)
{
  auto bad = [&](const std::string &why) {
    return std::runtime_error("prometheus \"" + addr_port + "\": " + why +
                              " (ADDRESS:PORT or [IPV6-ADDRESS]:PORT)");
  };
  std::string host, port;
  if (!addr_port.empty() && addr_port[0] == '[') {
    auto close = addr_port.find(']');
    if (close == std::string::npos || close + 1 >= addr_port.size() || addr_port[close + 1] != ':')
      throw bad("no ]:PORT after the IPv6 address");
    host = addr_port.substr(1, close - 1);
    port = addr_port.substr(close + 2);
  } else {
    auto colon = addr_port.rfind(':');
    if (colon == std::string::npos)
      throw bad("no port");
    host = addr_port.substr(0, colon);
    port = addr_port.substr(colon + 1);
  }
  unsigned long p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || p > 65535)
    throw bad("the port must be 0 .. 65535");
  boost::system::error_code aec;
  auto addr = asio::ip::make_address(host, aec);
  if (aec)
    throw bad("\"" + host + "\" is not a numeric address");
  return tcp::endpoint(addr, static_cast<std::uint16_t>(p));
}

struct MetricsServer::State {
  State(asio::io_context &io, std::function<std::string()> r)
      : io(io), acceptor(io), retry(io), render(std::move(r))
  {
  }
  asio::io_context &io;
  tcp::acceptor acceptor;
  asio::steady_timer retry;  // after an accept error (EMFILE ...)
  std::function<std::string()> render;
  std::size_t connections = 0;
  std::uint64_t requests = 0;
  bool stopped = false;
};

namespace {

using State = MetricsServer::State;

const char *reason(int status)
{
  switch (status) {
  case 200:
    return "OK";
  case 400:
    return "Bad Request";
  case 404:
    return "Not Found";
  case 405:
    return "Method Not Allowed";
  case 431:
    return "Request Header Fields Too Large";
  case 500:
    return "Internal Server Error";
  default:
    return "Error";
  }
}

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(std::shared_ptr<State> st, tcp::socket s)
      : state_(std::move(st)), sock_(std::move(s)), timer_(state_->io)
  {
    state_->connections++;
  }
  ~Connection() { state_->connections--; }

  void start()
  {
    auto self = shared_from_this();
    timer_.expires_after(MetricsServer::kRequestTimeout);
    timer_.async_wait([self](const boost::system::error_code &ec) {
      if (!ec)
        self->close();  // too slow: drop it
    });
    read();
  }

 private:
  void read()
  {
    auto self = shared_from_this();
    sock_.async_read_some(asio::buffer(chunk_),
                          [self](const boost::system::error_code &ec, std::size_t n) {
                            if (ec)
                              return self->close();
                            self->req_.append(self->chunk_, n);
                            self->on_data();
                          });
  }

  void on_data()
  {
    // The request ends at the first empty line; only the request line
    // matters (headers are read and ignored, a body is never read).
    std::size_t end = req_.find("\r\n\r\n");
    if (end == std::string::npos)
      end = req_.find("\n\n");
    if (end == std::string::npos) {
      if (req_.size() >= MetricsServer::kMaxRequestBytes)
        return respond(431, "request too large\n");
      return read();
    }
    std::string_view line(req_);
    line = line.substr(0, line.find('\n'));
    if (!line.empty() && line.back() == '\r')
      line.remove_suffix(1);
    // METHOD SP TARGET SP HTTP/x.y
    auto sp1 = line.find(' ');
    auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    if (sp1 == std::string_view::npos || sp2 == std::string_view::npos ||
        line.substr(sp2 + 1).substr(0, 5) != "HTTP/" ||
        line.find(' ', sp2 + 1) != std::string_view::npos)
      return respond(400, "malformed request\n");
    std::string_view method = line.substr(0, sp1);
    std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    std::string_view path = target.substr(0, target.find('?'));
    head_ = method == "HEAD";
    if (method != "GET" && !head_)
      return respond(405, "only GET\n");
    if (path != "/metrics")
      return respond(404, "not found: the metrics are at /metrics\n");
    std::string body;
    try {
      body = state_->render();
    } catch (const std::exception &e) {
      return respond(500, std::string("cannot render the metrics: ") + e.what() + "\n");
    }
    respond(200, std::move(body), metrics::kContentType);
  }

  void respond(int status, std::string body, const char *type = "text/plain; charset=utf-8")
  {
    state_->requests++;
    out_ = "HTTP/1.0 " + std::to_string(status) + " " + reason(status) +
           "\r\nContent-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\nConnection: close\r\n\r\n";
    if (!head_)
      out_ += body;
    auto self = shared_from_this();
    asio::async_write(sock_, asio::buffer(out_),
                      [self](const boost::system::error_code &, std::size_t) { self->close(); });
  }

  void close()
  {
    boost::system::error_code ec;
    timer_.cancel();
    if (sock_.is_open()) {
      sock_.shutdown(tcp::socket::shutdown_both, ec);
      sock_.close(ec);
    }
  }

  std::shared_ptr<State> state_;
  tcp::socket sock_;
  asio::steady_timer timer_;
  char chunk_[1024];
  std::string req_;
  std::string out_;
  bool head_ = false;
};

}  // namespace

MetricsServer::MetricsServer(asio::io_context &io, const std::string &addr_port,
                             std::function<std::string()> render)
    : state_(std::make_shared<State>(io, std::move(render)))
{
  tcp::endpoint ep = parse_listen_address(addr_port);
  boost::system::error_code ec;
  auto fail = [&](const char *what) {
    throw std::runtime_error("prometheus " + addr_port + ": cannot " + what + ": " + ec.message());
  };
  state_->acceptor.open(ep.protocol(), ec);
  if (ec)
    fail("open a socket");
  state_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (ep.address().is_v6())
    state_->acceptor.set_option(asio::ip::v6_only(true), ec);
  state_->acceptor.bind(ep, ec);
  if (ec)
    fail("listen (bind)");
  state_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    fail("listen");
  // Close-on-exec: Asio opens sockets with SOCK_CLOEXEC on Linux already.
  accept();
}

MetricsServer::~MetricsServer()
{
  state_->stopped = true;
  boost::system::error_code ec;
  state_->retry.cancel();
  state_->acceptor.close(ec);
}

std::uint16_t MetricsServer::port() const
{
  boost::system::error_code ec;
  return state_->acceptor.local_endpoint(ec).port();
}

std::uint64_t MetricsServer::requests() const
{
  return state_->requests;
}

void MetricsServer::accept()
{
  std::shared_ptr<State> st = state_;
  st->acceptor.async_accept([this, st](const boost::system::error_code &ec, tcp::socket s) {
    if (st->stopped)
      return;  // the server is gone: `this` must not be touched
    if (ec) {
      // Out of descriptors or memory: try again shortly, never spin.
      st->retry.expires_after(std::chrono::milliseconds(100));
      st->retry.async_wait([this, st](const boost::system::error_code &e) {
        if (!e && !st->stopped)
          accept();
      });
      return;
    }
    if (st->connections >= kMaxConnections) {
      boost::system::error_code ignored;
      s.close(ignored);
    } else {
      std::make_shared<Connection>(st, std::move(s))->start();
    }
    accept();
  });
}

}  // namespace lossless::daemon
