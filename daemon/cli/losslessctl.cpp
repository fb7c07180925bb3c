// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl: look at and steer lossless pools through their shared-state
// planes (kernel/uapi/lossless.h). Reads need no daemon: the datapath
// publishes its telemetry in the plane map every interval.
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "datapath_error.h"
#include "lateness.h"
#include "ll_params.h"
#include "ll_plane_map.h"
#include "plane.h"
#include "spfc_slow.h"
#include "registry.h"

extern "C" {
#include "scheme.h"
}

namespace {

namespace lp = lossless::plane;

// The scheme of a snapshot by name, and its parameters by their rows.
std::string scheme_name(const lossless_plane_tel &t)
{
  const auto *r = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id));
  return r ? std::string(r->scheme) : "scheme-" + std::to_string(t.scheme.id);
}

std::map<std::string, std::uint64_t> scheme_params(const lossless_plane_tel &t)
{
  std::map<std::string, std::uint64_t> out;
  if (const auto *r = lossless::policy::by_scheme_id(static_cast<std::uint8_t>(t.scheme.id)))
    for (const auto *sp : r->params)
      out[std::string(sp->key)] = t.scheme.p.raw[sp->word];
  return out;
}
using nlohmann::json;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kDefaultSocket[] = "/run/lossless/losslessd.sock";

const char kUsage[] =
    R"(usage: losslessctl [--pool NAME | --plane PATH] [--socket PATH] COMMAND [ARGS]

Look at and steer the shared-buffer pools of the lossless qdisc through
their planes: BPF array maps the pools publish telemetry in and take
parameters from (tc qdisc ... lossless pool NAME plane auto).

Commands:
  status [--json]       every pool's buffer occupancy, thresholds, PFC
                        sent and received, ECN marks and drops, per port
                        and lossless priority; per port its shaper's
                        catch-up, the credit it cut while backlogged (ms),
                        and how late its timed wake-ups ran (max, p99);
                        with DSH or SPFC, the scheme's state and counters
                        per port and lossless priority (docs/DSH.md,
                        docs/SPFC.md).
                        --json prints one object with every telemetry
                        field.
  watchdog [--json]     the PFC watchdog of every port (tc ... pfcwd, or
                        losslessd's [pool.watchdog]): its action, and per
                        priority that it has counted anything on (with an
                        action, every lossless priority): the state (ok,
                        storm, alarm), storms detected and restored,
                        packets it dropped, time in storm (ms), XOFF alarms
                        raised and how long the XOFF upstream has lasted
                        now (ms). --json: every priority, the fields named
                        as tc -s -j names them.
  events [--json]       the timeline of the pool's scheme: its latest 64
                        state changes (SPFC: pause, resume, to_victim,
                        to_normal; DSH: qoff, qon, poff, pon), oldest
                        first, each with its time in ms before the
                        snapshot, the port and priority, the bytes the
                        queue (a port: its lossless priorities) held and
                        the pool's shared bytes then.
  set KEY VALUE [KEY VALUE ...]
                        change pool parameters at run time through the
                        plane, all or nothing, and wait for the datapath to
                        confirm (at most 1 s). Keys, with values as tc's:
@KEYS@
                        With losslessd running (its socket exists), set goes
                        through the daemon, whose policy owns the parameters
                        (alpha, egress-alpha, reserved, xon-offset,
                        sw-delay-us for pfc-dt; st adds st.threshold);
                        --plane writes the map directly instead.
  spfc-force DEV PRIO victim|normal|auto
                        SPFC's oracle (docs/SPFC.md; pools with scheme
                        spfc): force lossless priority PRIO (0 .. 7) of
                        port DEV Victim (it pauses only once the pool is
                        full: the paper's Fig. 4), Normal (SPFC off on it:
                        DT's threshold), or give it back to the detector
                        (auto), and wait for the datapath to apply it (at
                        most 1 s). With losslessd running it goes through
                        the daemon, which keeps it with its slow path
                        (losslessctl daemon lists it); otherwise, or with
                        --plane, it is written into the map directly.
                        status shows it (forced_victim, forced_normal).
  watch [--interval MS] [--count N]
                        a live view, redrawn in place every MS ms (default
                        1000) until Ctrl-C: per pool, bars of the shared and
                        headroom occupancy, admitted packets/s, drops, and
                        per port the transmit rate (Mbit/s), PFC frames
                        sent and PFC or PAUSE frames received per second,
                        the bytes that entered on it and its headroom in
                        use, the priorities it tells its upstream XOFF
                        (red) and the gates closed by PFC or PAUSE it
                        received (yellow). Rates come from two snapshots,
                        so the first frame comes after one interval. Into
                        a file or a pipe it prints one frame without
                        escape codes; --count N stops after N frames.
  record FILE [--interval MS] [--duration S]
                        write a CSV time series into FILE (- for standard
                        output): one row per sample every MS ms (default
                        100) and per port and lossless priority of every
                        pool, with the time in seconds since the start, the
                        pool's shared and headroom occupancy, the port's
                        bytes and PFC frames sent and received, and the
                        priority's bytes, headroom in use, threshold, XOFF
                        state and XOFF frames sent (docs/DAEMON.md lists the
                        columns). Stops after S seconds (fractions allowed),
                        or at Ctrl-C (SIGINT) or SIGTERM; every row is
                        flushed as it is written.
  plot CSV PNG [--size WxH] [--script FILE]
                        draw a recorded CSV with gnuplot (package
                        gnuplot-nox) into a PNG of WxH pixels (default
                        1200x1000): the buffer occupancy over time (shared,
                        headroom, the busiest port/priority bytes), one lane
                        per port/priority that was paused (high while its
                        upstream was told XOFF), and the XOFF frames each
                        port sent; a panel with nothing to show says so
                        ("no pauses recorded"). --script FILE keeps the
                        gnuplot script (data inline) in FILE, to adjust
                        and rerun with gnuplot FILE. Needs no pool and no
                        root.
  daemon [--json]       losslessd's state: its pools, policies and their
                        parameters, pushes to the datapath and their latency,
                        its ports and what it did with them
  config                the configuration losslessd runs with (JSON)
  reload                make losslessd re-read its configuration file; an
                        invalid file is refused and the running one stays
  help                  this text

Options:
  --pool NAME           the pool whose plane is /sys/fs/bpf/lossless/NAME/plane
  --plane PATH          a plane map pinned elsewhere
                        (default for status, watchdog, watch and record:
                        every plane under /sys/fs/bpf/lossless; set needs
                        one of the two)
  --socket PATH         losslessd's control socket
                        (default /run/lossless/losslessd.sock)

Examples:
  losslessctl --pool sw0 watch --interval 500
  losslessctl --pool sw0 record incast.csv --interval 20 --duration 10
  losslessctl plot incast.csv incast.png

Exit status: 0 success (also watch and record stopped by Ctrl-C), 1 error
(the message says which map or file and why; a refused set says why the
datapath refused it; plot says when gnuplot is missing or failed), 2 bad
usage.
)";

struct UsageError {
  std::string msg;
};

// The rows of the pool's parameter table (ll_params.h) that `set` writes
// into the plane itself: a key, and a field of the control entry other
// than the scheme's (a scheme's parameters go with its id, through the
// daemon's policy).
bool plane_key(const ll_param &r)
{
  return r.ctl && r.plane_set && r.plane_set != LOSSLESS_PLANE_SET_SCHEME;
}

// "KEY [DEV] ARG   help", wrapped, for each of them.
std::string set_keys_usage()
{
  const std::size_t indent = 26, help_col = 47, width = 79;
  std::string out;
  for (const ll_param &r : ll_params) {
    if (!plane_key(r))
      continue;
    std::string line(indent, ' ');
    line += std::string(r.ctl) + (r.flags & LL_PARAM_PORT ? " DEV " : " ") + r.arg;
    if (line.size() >= help_col) {
      out += line + "\n";
      line.clear();
    }
    line.resize(help_col, ' ');
    std::string help = r.help;
    if (r.unit == LL_PARAM_COUNT)
      help += ", " + std::to_string(r.min) + " .. " + std::to_string(r.max);
    std::istringstream words(help);
    bool first = true;
    for (std::string w; words >> w; first = false) {
      if (!first && line.size() + 1 + w.size() > width) {
        out += line + "\n";
        line.assign(help_col, ' ');
        first = true;
      }
      line += (first ? "" : " ") + w;
    }
    out += line + "\n";
  }
  return out;
}

// The usage, with set's keys from the table.
std::string usage()
{
  std::string u = kUsage;
  std::string keys = set_keys_usage();
  keys.pop_back();  // the template's line ends it
  return u.replace(u.find("@KEYS@"), 6, keys);
}

std::string ifname(std::uint32_t ifindex)
{
  char buf[IF_NAMESIZE] = "";
  if (ifindex && if_indextoname(ifindex, buf))
    return buf;
  return "if" + std::to_string(ifindex);
}

std::string bytes_str(unsigned long long b)
{
  char buf[32];
  if (b >= (10ULL << 20))
    std::snprintf(buf, sizeof(buf), "%.1fM", b / 1048576.0);
  else if (b >= (10ULL << 10))
    std::snprintf(buf, sizeof(buf), "%.1fK", b / 1024.0);
  else
    std::snprintf(buf, sizeof(buf), "%llu", b);
  return buf;
}

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

const char *wd_action_name(std::uint32_t a)
{
  static const char *const names[] = {"off", "alert", "forward", "drop"};
  return a < 4 ? names[a] : "?";
}

// "ok", "storm", "alarm" or "storm+alarm".
std::string wd_state(const tc_lossless_wd_stats &w)
{
  if (w.storm && w.xoff_alarm)
    return "storm+alarm";
  return w.storm ? "storm" : w.xoff_alarm ? "alarm" : "ok";
}

// A port's PFC watchdog as tc -s -j has it: the action, the masks, and
// every priority with its state.
json wd_port_json(const lossless_plane_port &p)
{
  json prios = json::array();
  for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
    const auto &w = p.wd[q];
    prios.push_back({{"prio", q},
                     {"state", wd_state(w)},
                     {"storm", w.storm != 0},
                     {"storms", w.storms},
                     {"restores", w.restores},
                     {"dropped", w.dropped},
                     {"storm_time", w.storm_ns},
                     {"xoff_alarm", w.xoff_alarm != 0},
                     {"xoff_alarms", w.xoff_alarms},
                     {"xoff_time", w.xoff_ns}});
  }
  return {{"action", wd_action_name(p.wd_action)},
          {"storm_mask", p.wd_storm_mask},
          {"alarm_mask", p.wd_alarm_mask},
          {"prios", prios}};
}

bool has_scheme_stats(const lossless_plane_scheme_port &sp);
json scheme_port_json(const lossless_plane_scheme_port &sp);

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
                     {"prios", prios}});
    if (has_scheme_stats(t.sch[i]))
      ports.back()["scheme_stats"] = scheme_port_json(t.sch[i]);
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
          {"spfc_applied_seq", t.spfc_applied_seq},
          {"spfc_apply_error", t.spfc_apply_error},
          {"spfc_applied", t.spfc_applied},
          {"spfc_refused", t.spfc_refused}};
}

// ns as milliseconds with 3 decimals.
std::string ms_str(unsigned long long ns)
{
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", ns / 1e6);
  return buf;
}

// ---------------------------------------------------------------------------
// The scheme's telemetry (DSH, SPFC), printed from the names of
// kernel/core/scheme_types.h's tables: no code per scheme.

const ll_scheme_stat_desc kSchCtr[LL_SCHEME_CORE_COUNT][LL_SCHEME_STATS] = LL_SCHEME_STAT_DESCS;
const char *const kSchMask[LL_SCHEME_CORE_COUNT][LL_SCHEME_MASKS] = LL_SCHEME_MASK_NAMES;
const ll_scheme_stat_desc kSchPrio[LL_SCHEME_CORE_COUNT][LL_SCHEME_PRIO_STATS] =
    LL_SCHEME_PRIO_STAT_DESCS;
const char *const kEventNames[] = LL_SCHEME_EVENT_NAMES;

bool has_scheme_stats(const lossless_plane_scheme_port &sp)
{
  std::uint32_t id = sp.s.scheme;
  return id && id < LL_SCHEME_CORE_COUNT && kSchCtr[id][0].name;
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
  std::uint32_t id = sp.s.scheme;
  const char *name = ll_scheme_name(id);
  json o = {{"scheme", name ? name : "?"}};
  for (unsigned m = 0; m < LL_SCHEME_MASKS; m++) {
    if (!kSchMask[id][m])
      continue;
    json prios = json::array();
    for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
      if ((sp.s.masks >> (8 * m + p)) & 1)
        prios.push_back(p);
    o[kSchMask[id][m]] = prios;
  }
  for (unsigned i = 0; i < LL_SCHEME_STATS; i++)
    if (kSchCtr[id][i].name)
      o[kSchCtr[id][i].name] = sp.s.ctr[i];
  for (unsigned v = 0; v < LL_SCHEME_PRIO_STATS; v++) {
    if (!kSchPrio[id][v].name)
      continue;
    json vals = json::array();
    for (unsigned p = 0; p < LOSSLESS_PFC_PRIOS; p++)
      vals.push_back(v ? sp.prio2[p] : sp.s.prio[p]);
    o[kSchPrio[id][v].name] = vals;
  }
  return o;
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
    std::uint32_t id = sp.s.scheme;
    if (!head)
      std::printf("  scheme %s telemetry (docs/%s.md):\n", ll_scheme_name(id),
                  id == LL_SCHEME_DSH ? "DSH" : "SPFC");
    head = true;
    std::string line = "  " + ifname(t.ports[i].ifindex);
    for (unsigned m = 0; m < LL_SCHEME_MASKS; m++)
      if (kSchMask[id][m])
        line += std::string("  ") + kSchMask[id][m] + " " +
                mask_str((sp.s.masks >> (8 * m)) & 0xff);
    std::printf("%s\n   ", line.c_str());
    for (unsigned c = 0; c < LL_SCHEME_STATS; c++)
      if (kSchCtr[id][c].name)
        std::printf(" %s %s", kSchCtr[id][c].name,
                    stat_str(kSchCtr[id][c].unit, sp.s.ctr[c]).c_str());
    std::printf("\n");
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      if (!(t.lossless_mask & (1u << q)))
        continue;
      std::printf("    prio %u:", q);
      for (unsigned v = 0; v < LL_SCHEME_PRIO_STATS; v++)
        if (kSchPrio[id][v].name)
          std::printf(" %s %s", kSchPrio[id][v].name,
                      stat_str(kSchPrio[id][v].unit, v ? sp.prio2[q] : sp.s.prio[q]).c_str());
      std::printf("\n");
    }
  }
}

// The event ring, oldest first (the entries written so far).
std::vector<lossless_event> ring_events(const lossless_plane_tel &t)
{
  std::vector<lossless_event> out;
  std::uint64_t n = std::min<std::uint64_t>(t.events_total, LOSSLESS_EVENTS);
  for (std::uint64_t i = t.events_total - n; i < t.events_total; i++) {
    const auto &e = t.events[i % LOSSLESS_EVENTS];
    if (e.type)
      out.push_back(e);
  }
  return out;
}

const char *event_name(std::uint8_t type)
{
  return type < sizeof(kEventNames) / sizeof(kEventNames[0]) ? kEventNames[type] : "?";
}

json events_json(const std::string &path, const lossless_plane_tel &t)
{
  json ev = json::array();
  for (const auto &e : ring_events(t)) {
    json o = {
        {"time_ns", e.time_ns},     {"age_ns", t.time_ns > e.time_ns ? t.time_ns - e.time_ns : 0},
        {"port", e.port},           {"ifindex", e.ifindex},
        {"dev", ifname(e.ifindex)}, {"type", event_name(e.type)},
        {"bytes", e.bytes},         {"shared_used", e.shared_used}};
    if (e.prio == LOSSLESS_EV_PORT)
      o["prio"] = nullptr;
    else
      o["prio"] = e.prio;
    ev.push_back(o);
  }
  return {{"plane", path},
          {"pool", std::string(t.pool, strnlen(t.pool, sizeof(t.pool)))},
          {"scheme", scheme_name(t)},
          {"time_ns", t.time_ns},
          {"events_total", t.events_total},
          {"events", ev}};
}

// The timeline: one line per event, oldest first, its time in ms before
// the snapshot.
void print_events(const std::string &path, const lossless_plane_tel &t)
{
  std::vector<lossless_event> ev = ring_events(t);
  std::printf("pool %s  (plane %s, scheme %s, %zu of %llu events)\n",
              std::string(t.pool, strnlen(t.pool, sizeof(t.pool))).c_str(), path.c_str(),
              scheme_name(t).c_str(), ev.size(), static_cast<unsigned long long>(t.events_total));
  std::printf("  %12s %-12s %4s %-10s %9s %9s\n", "T-MS", "PORT", "PRIO", "EVENT", "BYTES",
              "SHARED");
  for (const auto &e : ev) {
    std::string age = "-" + ms_str(t.time_ns > e.time_ns ? t.time_ns - e.time_ns : 0);
    std::string prio = e.prio == LOSSLESS_EV_PORT ? "port" : std::to_string(e.prio);
    std::printf("  %12s %-12s %4s %-10s %9s %9s\n", age.c_str(), ifname(e.ifindex).c_str(),
                prio.c_str(), event_name(e.type), bytes_str(e.bytes).c_str(),
                bytes_str(e.shared_used).c_str());
  }
  if (ev.empty())
    std::printf("  (none: the ring records DSH and SPFC state changes)\n");
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
  if (t.scheme.id == LOSSLESS_SCHEME_SPFC && (t.spfc_applied_seq || t.spfc_refused))
    std::printf("  spfc block (slow path, oracle): seq %llu %s; %llu applied, %llu refused\n",
                static_cast<unsigned long long>(t.spfc_applied_seq),
                t.spfc_apply_error
                    ? ("refused: " + lossless::datapath_error_text(-t.spfc_apply_error)).c_str()
                    : "ok",
                static_cast<unsigned long long>(t.spfc_applied),
                static_cast<unsigned long long>(t.spfc_refused));
  print_shaper_table(t);
}

// One view of every plane: its JSON object, or its text table.
int each_plane(const std::vector<std::string> &planes, bool as_json,
               json (*to_json)(const std::string &, const lossless_plane_tel &),
               void (*print)(const std::string &, const lossless_plane_tel &))
{
  json all = json::array();
  int rc = kExitOk;
  bool first = true;
  for (const auto &path : planes) {
    try {
      auto plane = lp::Plane::open(path);
      auto t = plane.telemetry();
      if (!t) {
        std::fprintf(stderr,
                     "losslessctl: %s: no telemetry yet (the map is not given to a pool: "
                     "tc qdisc ... lossless pool NAME plane %s)\n",
                     path.c_str(), path.c_str());
        rc = kExitError;
        continue;
      }
      if (as_json) {
        all.push_back(to_json(path, *t));
      } else {
        if (!first)
          std::printf("\n");
        print(path, *t);
        first = false;
      }
    } catch (const lp::Error &e) {
      std::fprintf(stderr, "losslessctl: %s\n", e.what());
      rc = kExitError;
    }
  }
  if (as_json)
    std::printf("%s\n", json{{"pools", all}}.dump(2).c_str());
  return rc;
}

int cmd_status(const std::vector<std::string> &planes, bool as_json)
{
  return each_plane(planes, as_json, tel_json, print_table);
}

std::uint32_t parse_u32(const std::string &key, const std::string &v, std::uint64_t max)
{
  char *end = nullptr;
  errno = 0;
  unsigned long long x = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || v[0] == '-' || errno || *end || x > max)
    throw UsageError{"invalid " + key + " \"" + v + "\": must be an integer 0 .. " +
                     std::to_string(max)};
  return static_cast<std::uint32_t>(x);
}

// A value of row r (key k) as tc takes it: the row's unit and range.
std::uint64_t parse_value(const ll_param &r, const std::string &k, const std::string &v)
{
  std::uint64_t x = 0;
  if (ll_param_parse(&r, v.c_str(), &x, nullptr) == LL_PARAM_OK)
    return x;
  if (r.unit == LL_PARAM_ALPHA)
    throw UsageError{"invalid " + k + " \"" + v + "\": " + LL_ALPHA_FORM};
  char range[256];
  ll_param_range(&r, range, sizeof(range));
  throw UsageError{"invalid " + k + " \"" + v + "\": must be " + range};
}

int cmd_set(const std::string &path, const std::vector<std::string> &args)
{
  lp::Params p;
  if (args.empty())
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &k = args[i];
    auto value = [&]() -> const std::string & {
      if (i + 1 >= args.size())
        throw UsageError{"\"" + k + "\" needs a value"};
      return args[++i];
    };
    const ll_param *r = ll_param_by_ctl(k.c_str());
    if (!r || !plane_key(*r)) {
      std::string keys;
      for (const ll_param &row : ll_params)
        if (plane_key(row))
          keys += (keys.empty() ? "" : ", ") + std::string(row.ctl);
      throw UsageError{"unknown parameter \"" + k + "\" (" + keys + ")"};
    }
    if (r->plane_set == LOSSLESS_PLANE_SET_HEADROOM) {  // per port: DEV VALUE
      std::string dev = value();
      auto bytes = static_cast<std::uint32_t>(parse_value(*r, k, value()));
      unsigned idx = if_nametoindex(dev.c_str());
      if (!idx)
        throw UsageError{k + ": no device \"" + dev + "\" in this network namespace"};
      p.headroom.push_back({idx, bytes});
    } else if (auto field = lp::field(r->plane_set)) {
      p.*field = static_cast<std::uint32_t>(parse_value(*r, k, value()));
    }
  }
  auto plane = lp::Plane::open(path);
  std::uint64_t gen = plane.submit(p);
  auto r = plane.wait_applied(gen, std::chrono::milliseconds(1000));
  if (!r) {
    std::fprintf(stderr,
                 "losslessctl: %s: the datapath did not take control gen %llu"
                 " within 1 s: is the map given to a pool?\n",
                 path.c_str(), static_cast<unsigned long long>(gen));
    return kExitError;
  }
  if (r->error) {
    std::fprintf(stderr, "losslessctl: %s: the datapath refused the change: %s\n",
                 path.c_str(), lossless::datapath_error_text(r->error).c_str());
    return kExitError;
  }
  std::printf("applied (gen %llu) in %.1f ms\n", static_cast<unsigned long long>(gen), r->latency.count() / 1e6);
  return kExitOk;
}

// One request to losslessd, one JSON reply.
json daemon_request(const std::string &socket_path, const json &req)
{
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (fd < 0 || socket_path.size() >= sizeof(sa.sun_path))
    throw std::runtime_error("cannot create a socket for " + socket_path);
  std::strcpy(sa.sun_path, socket_path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa))) {
    int e = errno;
    close(fd);
    throw std::runtime_error("cannot reach losslessd at " + socket_path + ": " +
                             std::strerror(e) + (e == ENOENT || e == ECONNREFUSED
                                                     ? " (is it running?)"
                                                     : ""));
  }
  std::string out = req.dump() + "\n", in;
  if (write(fd, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    close(fd);
    throw std::runtime_error("cannot write to " + socket_path);
  }
  char buf[65536];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0)
      break;
    in.append(buf, n);
    if (in.back() == '\n')
      break;
  }
  close(fd);
  if (in.empty())
    throw std::runtime_error("losslessd closed the connection without a reply");
  return json::parse(in);
}

int print_reply(const json &r, bool as_json)
{
  if (r.contains("error")) {
    std::fprintf(stderr, "losslessctl: losslessd: %s\n", r["error"].get<std::string>().c_str());
    return kExitError;
  }
  if (as_json) {
    std::printf("%s\n", r.dump(2).c_str());
    return kExitOk;
  }
  return -1;  // the caller prints it
}

int cmd_daemon(const std::string &sock, bool as_json)
{
  json r = daemon_request(sock, {{"cmd", "status"}});
  if (int rc = print_reply(r, as_json); rc >= 0)
    return rc;
  std::printf("losslessd pid %d, config %s, period %lld us, %llu ticks, busy %.1f ms\n",
              r["pid"].get<int>(), r["config"].get<std::string>().c_str(),
              r["period_us"].get<long long>(), r["ticks"].get<unsigned long long>(),
              r["busy_us"].get<double>() / 1000);
  for (const auto &p : r["pools"]) {
    std::printf("  pool %s: policy %s, %llu pushes, %llu refused, last push %.1f ms\n",
                p["name"].get<std::string>().c_str(), p["policy"].get<std::string>().c_str(),
                p["pushes"].get<unsigned long long>(), p["refusals"].get<unsigned long long>(),
                p["last_push_latency_us"].get<double>() / 1000);
    for (const auto &[k, v] : p["params"].items())
      std::printf("    %-12s %s\n", k.c_str(), v.get<std::string>().c_str());
    if (p.contains("spfc")) {
      const auto &sp = p["spfc"];
      std::string forced;
      for (const auto &f : sp["forced"])
        forced += (forced.empty() ? "" : ", ") + f["dev"].get<std::string>() + " prio " +
                  std::to_string(f["prio"].get<unsigned>()) + " " + f["state"].get<std::string>();
      std::printf("    spfc block: %llu written, %llu refused%s%s; forced: %s\n",
                  sp["blocks_written"].get<unsigned long long>(),
                  sp["blocks_refused"].get<unsigned long long>(),
                  sp["last_error"].get<std::string>().empty() ? "" : ", last: ",
                  sp["last_error"].get<std::string>().c_str(),
                  forced.empty() ? "none" : forced.c_str());
    }
  }
  for (const auto &p : r["ports"])
    std::printf("  port %-12s ifindex %-4d pool %-8s %-5s %s\n", p["dev"].get<std::string>().c_str(),
                p["ifindex"].get<int>(), p["pool"].get<std::string>().c_str(),
                p["up"].get<bool>() ? "up" : "down", p["state"].get<std::string>().c_str());
  return kExitOk;
}

int cmd_set_daemon(const std::string &sock, const std::string &pool,
                   const std::vector<std::string> &args)
{
  if (args.empty() || args.size() % 2)
    throw UsageError{"set needs KEY VALUE pairs"};
  for (std::size_t i = 0; i < args.size(); i += 2) {
    json r = daemon_request(sock, {{"cmd", "set"}, {"pool", pool}, {"key", args[i]},
                                   {"value", args[i + 1]}});
    if (int rc = print_reply(r, false); rc >= 0)
      return rc;
    std::printf("%s %s: applied by the datapath in %.1f ms\n", args[i].c_str(),
                args[i + 1].c_str(), r["latency_us"].get<double>() / 1000);
  }
  return kExitOk;
}

// The arguments of spfc-force, checked before anything is touched.
struct ForceArgs {
  std::string dev, prio_text, state_text;
  unsigned prio = 0;
  lossless::policy::SpfcForce state = lossless::policy::SpfcForce::Auto;
};

ForceArgs parse_force_args(const std::vector<std::string> &args)
{
  if (args.size() != 3)
    throw UsageError{"spfc-force needs DEV PRIO victim|normal|auto"};
  ForceArgs a{args[0], args[1], args[2]};
  auto prio = lossless::policy::parse_spfc_prio(a.prio_text);
  if (!prio)
    throw UsageError{"spfc-force: invalid priority \"" + a.prio_text + "\": must be 0 .. 7"};
  auto state = lossless::policy::parse_spfc_force(a.state_text);
  if (!state)
    throw UsageError{"spfc-force: invalid state \"" + a.state_text +
                     "\": must be victim, normal or auto"};
  a.prio = *prio;
  a.state = *state;
  return a;
}

int cmd_spfc_force_daemon(const std::string &sock, const std::string &pool, const ForceArgs &a)
{
  json r = daemon_request(sock, {{"cmd", "spfc-force"},
                                 {"pool", pool},
                                 {"dev", a.dev},
                                 {"prio", a.prio_text},
                                 {"state", a.state_text}});
  if (int rc = print_reply(r, false); rc >= 0)
    return rc;
  std::printf("%s priority %u %s: applied by the datapath in %.1f ms\n", a.dev.c_str(), a.prio,
              a.state_text.c_str(), r["latency_us"].get<double>() / 1000);
  return kExitOk;
}

// Without losslessd: the block in the map, with the port's slot changed.
int cmd_spfc_force(const std::string &path, const ForceArgs &a)
{
  auto plane = lp::Plane::open(path);
  auto t = plane.telemetry();
  if (!t)
    throw std::runtime_error(path + ": no telemetry yet (the map is not given to a pool)");
  if (t->scheme.id != LOSSLESS_SCHEME_SPFC)
    throw std::runtime_error(path + ": the pool runs scheme " + scheme_name(*t) +
                             ", not spfc (tc ... scheme spfc, or losslessd's policy spfc)");
  unsigned idx = if_nametoindex(a.dev.c_str());
  bool member = false;
  for (std::uint32_t i = 0; idx && i < t->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
    member = member || t->ports[i].ifindex == idx;
  if (!member)
    throw std::runtime_error("no port \"" + a.dev + "\" in pool " + std::string(t->pool, strnlen(t->pool, sizeof(t->pool))));
  if (!(t->lossless_mask & (1u << a.prio)) && a.state != lossless::policy::SpfcForce::Auto)
    throw std::runtime_error("priority " + a.prio_text + " is not lossless in pool " +
                             std::string(t->pool, strnlen(t->pool, sizeof(t->pool))) + " (lossless-prios)");
  lossless_plane_spfc_ctl w = plane.spfc();
  if (w.magic != LOSSLESS_PLANE_MAGIC || w.version != LOSSLESS_PLANE_VERSION)
    w = lossless_plane_spfc_ctl{};  // never written (or by another version)
  // Keep what the datapath would take of it: the pool's ports now, once
  // each, their lossless priorities (a stale slot would refuse it all).
  lossless_plane_spfc_ctl kept{};
  std::size_t n = 0;
  std::uint8_t lossless = static_cast<std::uint8_t>(t->lossless_mask);
  for (const auto &s : w.ports) {
    bool in_pool = false, dup = false;
    for (std::uint32_t i = 0; i < t->nr_ports && i < LOSSLESS_PLANE_PORTS; i++)
      in_pool = in_pool || (s.ifindex && t->ports[i].ifindex == s.ifindex);
    for (std::size_t j = 0; j < n; j++)
      dup = dup || kept.ports[j].ifindex == s.ifindex;
    if (!in_pool || dup)
      continue;
    lossless_plane_spfc_port &k = kept.ports[n++];
    k = s;
    k.force_victim &= lossless;
    k.force_normal &= lossless & static_cast<std::uint8_t>(~k.force_victim);
    k.victims &= lossless;
    k.flags &= LOSSLESS_SPFC_PUB;
    if (!k.flags || k.window_end_ns > t->time_ns)
      k.flags = 0, k.victims = 0, k.window_end_ns = 0;
  }
  w = kept;
  // The port's slot, else the first free one.
  lossless_plane_spfc_port *slot = nullptr;
  for (auto &s : w.ports)
    if (s.ifindex == idx)
      slot = &s;
  for (auto &s : w.ports)
    if (!slot && !s.ifindex)
      slot = &s;
  if (!slot)
    throw std::runtime_error(path + ": SPFC's block has no free slot");
  slot->ifindex = idx;
  std::uint8_t bit = static_cast<std::uint8_t>(1u << a.prio);
  slot->force_victim &= static_cast<std::uint8_t>(~bit);
  slot->force_normal &= static_cast<std::uint8_t>(~bit);
  if (a.state == lossless::policy::SpfcForce::Victim)
    slot->force_victim |= bit;
  else if (a.state == lossless::policy::SpfcForce::Normal)
    slot->force_normal |= bit;
  std::uint64_t seq = plane.submit_spfc(w);
  auto r = plane.wait_spfc_applied(seq, std::chrono::milliseconds(1000));
  if (!r) {
    std::fprintf(stderr, "losslessctl: %s: the datapath did not take SPFC block seq %llu within 1 s\n",
                 path.c_str(), static_cast<unsigned long long>(seq));
    return kExitError;
  }
  if (r->error) {
    std::fprintf(stderr, "losslessctl: %s: the datapath refused %s priority %u %s: %s\n",
                 path.c_str(), a.dev.c_str(), a.prio, a.state_text.c_str(),
                 lossless::datapath_error_text(r->error).c_str());
    return kExitError;
  }
  std::printf("%s priority %u %s: applied (seq %llu) in %.1f ms\n", a.dev.c_str(), a.prio,
              a.state_text.c_str(), static_cast<unsigned long long>(seq), r->latency.count() / 1e6);
  return kExitOk;
}

// ---------------------------------------------------------------------------
// watch, record and plot: the telemetry over time.

volatile std::sig_atomic_t g_stop = 0;

void on_stop_signal(int)
{
  g_stop = 1;
}

// SIGINT and SIGTERM end watch and record cleanly (a row is never cut).
void catch_stop_signals()
{
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a sleep ends at once
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::int64_t mono_ns()
{
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// Sleeps until CLOCK_MONOTONIC reaches ns; false if a stop signal came.
bool sleep_until_ns(std::int64_t ns)
{
  timespec ts{static_cast<time_t>(ns / 1000000000LL), static_cast<long>(ns % 1000000000LL)};
  while (!g_stop) {
    if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != EINTR)
      break;
  }
  return !g_stop;
}

// The planes a command reads: --plane/--pool, else every pinned one.
std::vector<std::string> planes_to_read(const std::string &plane_path)
{
  if (!plane_path.empty())
    return {plane_path};
  auto planes = lp::find_pinned();
  if (planes.empty())
    throw std::runtime_error(std::string("no pool planes under ") + LL_PLANE_PIN_ROOT +
                             " (tc qdisc ... lossless pool NAME plane auto)");
  return planes;
}

struct Source {
  std::string path;
  lp::Plane plane;
  bool warned = false;  // "no telemetry" said once
};

std::vector<Source> open_sources(const std::vector<std::string> &paths)
{
  std::vector<Source> out;
  for (const auto &p : paths)
    out.push_back({p, lp::Plane::open(p)});
  return out;
}

using TelPtr = std::unique_ptr<lossless_plane_tel>;

// The source's telemetry now, or null (said once on stderr per source).
TelPtr read_tel(Source &s)
{
  std::string why;
  try {
    if (auto t = s.plane.telemetry())
      return std::make_unique<lossless_plane_tel>(*t);
    why = "no telemetry yet (the map is not given to a pool)";
  } catch (const lp::Error &e) {
    why = e.what();
  }
  if (!s.warned)
    std::fprintf(stderr, "losslessctl: %s: %s\n", s.path.c_str(), why.c_str());
  s.warned = true;
  return nullptr;
}

std::string pool_name(const lossless_plane_tel &t)
{
  return std::string(t.pool, strnlen(t.pool, sizeof(t.pool)));
}

bool prio_lossless(const lossless_plane_tel &t, const lossless_plane_port &p, unsigned q)
{
  return p.iq[q].lossless || (t.lossless_mask & (1u << q));
}

std::uint32_t port_count(const lossless_plane_tel &t)
{
  return std::min<std::uint32_t>(t.nr_ports, LOSSLESS_PLANE_PORTS);
}

// ---------------------------------------------------------------------------
// watchdog: the PFC watchdog of every port, from the telemetry.

bool wd_counted(const tc_lossless_wd_stats &w)
{
  return w.storm || w.xoff_alarm || w.storms || w.restores || w.dropped || w.storm_ns ||
         w.xoff_alarms || w.xoff_ns;
}

// A priority worth a line: one the watchdog has counted anything on, and
// with an action every lossless priority of the pool.
bool wd_shown(const lossless_plane_tel &t, const lossless_plane_port &p, unsigned q)
{
  return wd_counted(p.wd[q]) || (p.wd_action && prio_lossless(t, p, q));
}

json wd_json(const std::string &path, const lossless_plane_tel &t)
{
  json ports = json::array();
  for (std::uint32_t i = 0; i < port_count(t); i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    json o = wd_port_json(p);
    o["port"] = i;
    o["ifindex"] = p.ifindex;
    o["dev"] = ifname(p.ifindex);
    ports.push_back(o);
  }
  return {{"plane", path}, {"pool", pool_name(t)}, {"ports", ports}};
}

void print_wd_table(const std::string &path, const lossless_plane_tel &t)
{
  std::printf("pool %s  (plane %s, snapshot #%llu)\n", pool_name(t).c_str(), path.c_str(),
              static_cast<unsigned long long>(t.snapshots));
  std::printf("  %-12s %-7s %4s %-11s %7s %8s %9s %11s %6s %10s\n", "PORT", "ACTION", "PRIO",
              "STATE", "STORMS", "RESTORED", "DROPPED", "STORM-MS", "ALARMS", "XOFF-MS");
  for (std::uint32_t i = 0; i < port_count(t); i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    bool first = true;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      if (!wd_shown(t, p, q))
        continue;
      const auto &w = p.wd[q];
      std::printf("  %-12s %-7s %4u %-11s %7llu %8llu %9llu %11s %6llu %10s\n",
                  first ? ifname(p.ifindex).c_str() : "", first ? wd_action_name(p.wd_action) : "",
                  q, wd_state(w).c_str(), static_cast<unsigned long long>(w.storms),
                  static_cast<unsigned long long>(w.restores),
                  static_cast<unsigned long long>(w.dropped), ms_str(w.storm_ns).c_str(),
                  static_cast<unsigned long long>(w.xoff_alarms), ms_str(w.xoff_ns).c_str());
      first = false;
    }
    if (first)
      std::printf("  %-12s %-7s %4s %s\n", ifname(p.ifindex).c_str(),
                  wd_action_name(p.wd_action), "-", p.wd_action ? "ok" : "off");
  }
  std::printf("  (storm: paused by the peer with packets waiting past the detection time, until\n"
              "  no XOFF for the restoration time; alarm: XOFF sent upstream for longer than\n"
              "  xoff-alarm; XOFF-MS: how long the XOFF upstream has lasted now)\n");
}

int cmd_watchdog(const std::vector<std::string> &planes, bool as_json)
{
  return each_plane(planes, as_json, wd_json, print_wd_table);
}

// "--name VALUE" options of a subcommand. Unknown options and stray
// words are usage errors; positional words are returned in order.
struct SubArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::string> opts;
};

SubArgs parse_sub(const std::string &cmd, const std::vector<std::string> &args,
                  const std::vector<std::string> &known)
{
  SubArgs out;
  for (std::size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
      if (std::find(known.begin(), known.end(), a) == known.end())
        throw UsageError{cmd + ": unknown option \"" + a + "\""};
      if (i + 1 >= args.size())
        throw UsageError{cmd + ": " + a + " needs a value"};
      out.opts[a] = args[++i];
    } else {
      out.positional.push_back(a);
    }
  }
  return out;
}

std::uint64_t opt_u64(const SubArgs &s, const std::string &name, std::uint64_t dflt,
                      std::uint64_t min, std::uint64_t max)
{
  auto it = s.opts.find(name);
  if (it == s.opts.end())
    return dflt;
  std::uint64_t v = parse_u32(name, it->second, max);
  if (v < min)
    throw UsageError{"invalid " + name + " \"" + it->second + "\": must be an integer " +
                     std::to_string(min) + " .. " + std::to_string(max)};
  return v;
}

// --- watch ---------------------------------------------------------------

const char kRed[] = "\033[1;31m", kYellow[] = "\033[1;33m", kGreen[] = "\033[32m",
           kBold[] = "\033[1m", kReset[] = "\033[0m";

std::string bar(std::uint64_t used, std::uint64_t size, int width, bool color)
{
  double f = size ? std::min(1.0, static_cast<double>(used) / static_cast<double>(size)) : 0.0;
  int n = static_cast<int>(f * width + 0.5);
  if (used && !n)
    n = 1;
  std::string s = "[";
  if (color && n)
    s += f >= 0.8 ? kRed : f >= 0.5 ? kYellow : kGreen;
  s += std::string(n, '#');
  if (color && n)
    s += kReset;
  return s + std::string(width - n, '.') + "]";
}

std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char *f, ...)
{
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof(buf), f, ap);
  va_end(ap);
  return buf;
}

// text left-aligned in width columns, wrapped in an ANSI colour if any.
std::string cell(const std::string &text, int width, const char *color)
{
  std::string pad(text.size() < static_cast<std::size_t>(width) ? width - text.size() : 0, ' ');
  if (color && text != "-")
    return std::string(color) + text + kReset + pad;
  return text + pad;
}

std::string prio_list(std::uint32_t mask, unsigned bits)
{
  std::string s;
  for (unsigned q = 0; q < bits; q++)
    if (mask & (1u << q))
      s += (s.empty() ? "" : ",") + (q == LOSSLESS_PFC_PRIOS ? std::string("all") : std::to_string(q));
  return s.empty() ? "-" : s;
}

// One pool's part of a frame. prev may be null (no rates then); dt_s is
// the time between the two snapshots.
void watch_pool(std::string &out, const Source &src, const lossless_plane_tel &t,
                const lossless_plane_tel *prev, double dt_s, bool color)
{
  auto rate = [&](std::uint64_t now, std::uint64_t before) {
    return prev && dt_s > 0 && now >= before ? static_cast<double>(now - before) / dt_s : -1.0;
  };
  auto rate_str = [](double r, double scale) {
    return r < 0 ? std::string("-") : fmt("%.1f", r * scale);
  };
  std::uint32_t nr = port_count(t), ports = 0;
  for (std::uint32_t i = 0; i < nr; i++)
    ports += t.ports[i].ifindex != 0;
  std::string prios = prio_list(t.lossless_mask, LOSSLESS_PFC_PRIOS);
  out += fmt("%spool %s%s  %u ports  lossless-prios %s  alpha %s  snapshot #%llu  (%s)\n",
             color ? kBold : "", pool_name(t).c_str(), color ? kReset : "", ports,
             prios == "-" ? "none" : prios.c_str(), lp::format_alpha(t.alpha).c_str(),
             static_cast<unsigned long long>(t.snapshots), src.path.c_str());
  auto region = [&](const char *name, std::uint64_t used, std::uint64_t size, std::uint64_t peak) {
    out += fmt("  %-8s %s %7s / %-7s %3.0f%%  peak %s\n", name, bar(used, size, 40, color).c_str(),
               bytes_str(used).c_str(), bytes_str(size).c_str(),
               size ? 100.0 * static_cast<double>(used) / static_cast<double>(size) : 0.0,
               bytes_str(peak).c_str());
  };
  region("shared", t.shared_used, t.shared_size, t.peak_shared);
  region("headroom", t.headroom_used, t.headroom_size, t.peak_headroom);
  std::string lossless_drops = std::to_string(t.drops_lossless);
  if (color && t.drops_lossless)
    lossless_drops = kRed + lossless_drops + kReset;
  out += fmt("  admitted %s pkt/s  drops: lossless %s  lossy %llu (%s/s)  paused queues %llu\n",
             rate_str(rate(t.admitted_packets, prev ? prev->admitted_packets : 0), 1).c_str(),
             lossless_drops.c_str(), static_cast<unsigned long long>(t.drops_lossy),
             rate_str(rate(t.drops_lossy, prev ? prev->drops_lossy : 0), 1).c_str(),
             static_cast<unsigned long long>(t.paused_queues));
  out += fmt("  %-14s %10s %9s %9s %9s %9s  %-17s %s\n", "PORT", "TX-Mbit/s", "PFC-TX/s",
             "PFC-RX/s", "INGRESS", "HEADROOM", "XOFF-TO-UPSTREAM", "PAUSED-BY-PEER");
  for (std::uint32_t i = 0; i < nr; i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    const lossless_plane_port *pp = nullptr;
    if (prev)
      for (std::uint32_t j = 0; j < port_count(*prev); j++)
        if (prev->ports[j].ifindex == p.ifindex)
          pp = &prev->ports[j];
    std::uint64_t ingress = 0, headroom = 0;
    std::uint32_t xoff = 0;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      ingress += p.iq[q].bytes;
      headroom += p.iq[q].headroom_used;
      if (p.iq[q].paused)
        xoff |= 1u << q;
    }
    double tx = pp ? rate(p.tx_bytes, pp->tx_bytes) : -1;
    double pfc_tx = pp ? rate(p.pfc_frames_tx, pp->pfc_frames_tx) : -1;
    double pfc_rx = pp ? rate(p.pfc_frames_rx + p.pause_frames_rx,
                              pp->pfc_frames_rx + pp->pause_frames_rx)
                       : -1;
    out += fmt("  %-14s %10s %9s %9s %9s %9s  ", ifname(p.ifindex).c_str(),
               rate_str(tx, 8e-6).c_str(), rate_str(pfc_tx, 1).c_str(), rate_str(pfc_rx, 1).c_str(),
               bytes_str(ingress).c_str(), bytes_str(headroom).c_str());
    out += cell(prio_list(xoff, LOSSLESS_PFC_PRIOS), 17, color ? kRed : nullptr) + " ";
    out += cell(prio_list(p.paused_mask, LOSSLESS_GATES), 0, color ? kYellow : nullptr) + "\n";
  }
}

int cmd_watch(const std::string &plane_path, const std::vector<std::string> &args)
{
  SubArgs s = parse_sub("watch", args, {"--interval", "--count"});
  if (!s.positional.empty())
    throw UsageError{"watch: unexpected argument \"" + s.positional[0] + "\""};
  std::uint64_t interval_ms = opt_u64(s, "--interval", 1000, 10, 3600000);
  std::uint64_t count = opt_u64(s, "--count", 0, 1, UINT32_MAX);
  bool tty = isatty(STDOUT_FILENO);
  if (!tty && !count)
    count = 1;  // into a file or a pipe: one frame
  auto sources = open_sources(planes_to_read(plane_path));
  catch_stop_signals();

  std::vector<TelPtr> prev(sources.size());
  std::vector<std::int64_t> prev_at(sources.size());
  for (std::size_t i = 0; i < sources.size(); i++) {
    prev[i] = read_tel(sources[i]);
    prev_at[i] = mono_ns();
  }
  std::int64_t next = mono_ns();
  for (std::uint64_t frame = 0; !count || frame < count; frame++) {
    next += static_cast<std::int64_t>(interval_ms) * 1000000;
    if (next < mono_ns())
      next = mono_ns();
    if (!sleep_until_ns(next))
      break;
    std::string out = tty ? "\033[H\033[2J" : frame ? "\n" : "";
    char when[32];
    time_t now = time(nullptr);
    struct tm tm {};
    strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
    out += fmt("losslessctl watch: every %llu ms, %s%s\n\n",
               static_cast<unsigned long long>(interval_ms), when,
               tty ? "  (Ctrl-C quits; XOFF-TO-UPSTREAM in red, PAUSED-BY-PEER in yellow)" : "");
    for (std::size_t i = 0; i < sources.size(); i++) {
      std::int64_t at = mono_ns();
      TelPtr cur = read_tel(sources[i]);
      if (i)
        out += "\n";
      if (!cur) {
        out += fmt("%s: no telemetry\n", sources[i].path.c_str());
        continue;
      }
      const lossless_plane_tel *p = prev[i].get();
      double dt = 0;
      if (p && cur->time_ns > p->time_ns && p->time_ns)
        dt = static_cast<double>(cur->time_ns - p->time_ns) / 1e9;
      else if (p)
        dt = static_cast<double>(at - prev_at[i]) / 1e9;
      if (p && cur->snapshots == p->snapshots)
        dt = 0;  // the pool wrote nothing new: no rates
      watch_pool(out, sources[i], *cur, p, dt, tty);
      prev[i] = std::move(cur);
      prev_at[i] = at;
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fflush(stdout);
  }
  return kExitOk;
}

// --- record --------------------------------------------------------------

// One row per sample and (pool, port, lossless priority); docs/DAEMON.md
// describes every column.
const char kCsvHeader[] =
    "time_s,pool,dev,prio,pool_shared_used,pool_shared_size,pool_headroom_used,"
    "pool_headroom_size,port_tx_bytes,port_pfc_tx,port_pfc_rx,prio_bytes,prio_headroom_used,"
    "prio_threshold,prio_paused,prio_xoff_frames";

std::string csv_field(const std::string &s)
{
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string q = "\"";
  for (char c : s)
    q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Rows of one snapshot taken time_s after the start.
void csv_rows(std::FILE *f, double time_s, const lossless_plane_tel &t)
{
  std::string pool = csv_field(pool_name(t));
  std::string head = fmt("%.6f,", time_s) + pool;
  std::string occ = fmt("%llu,%llu,%llu,%llu", static_cast<unsigned long long>(t.shared_used),
                        static_cast<unsigned long long>(t.shared_size),
                        static_cast<unsigned long long>(t.headroom_used),
                        static_cast<unsigned long long>(t.headroom_size));
  bool any = false;
  for (std::uint32_t i = 0; i < port_count(t); i++) {
    const auto &p = t.ports[i];
    if (!p.ifindex)
      continue;
    std::string dev = csv_field(ifname(p.ifindex));
    std::string port = fmt("%llu,%llu,%llu", static_cast<unsigned long long>(p.tx_bytes),
                           static_cast<unsigned long long>(p.pfc_frames_tx),
                           static_cast<unsigned long long>(p.pfc_frames_rx));
    bool prios = false;
    for (unsigned q = 0; q < LOSSLESS_PFC_PRIOS; q++) {
      if (!prio_lossless(t, p, q))
        continue;
      const auto &s = p.iq[q];
      std::fprintf(f, "%s,%s,%u,%s,%s,%llu,%llu,%llu,%u,%llu\n", head.c_str(), dev.c_str(), q,
                   occ.c_str(), port.c_str(), static_cast<unsigned long long>(s.bytes),
                   static_cast<unsigned long long>(s.headroom_used),
                   static_cast<unsigned long long>(s.threshold), s.paused ? 1u : 0u,
                   static_cast<unsigned long long>(s.xoff_frames));
      prios = any = true;
    }
    if (!prios) {  // no lossless priority: the port's columns only
      std::fprintf(f, "%s,%s,,%s,%s,,,,,\n", head.c_str(), dev.c_str(), occ.c_str(), port.c_str());
      any = true;
    }
  }
  if (!any)  // no port: the pool's occupancy only
    std::fprintf(f, "%s,,,%s,,,,,,,,,\n", head.c_str(), occ.c_str());
}

int cmd_record(const std::string &plane_path, const std::vector<std::string> &args)
{
  SubArgs s = parse_sub("record", args, {"--interval", "--duration"});
  if (s.positional.size() != 1)
    throw UsageError{"record needs one FILE (- for standard output)"};
  std::uint64_t interval_ms = opt_u64(s, "--interval", 100, 1, 3600000);
  double duration = 0;
  if (auto it = s.opts.find("--duration"); it != s.opts.end()) {
    char *end = nullptr;
    duration = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end || !(duration > 0) || duration > 1e9)
      throw UsageError{"invalid --duration \"" + it->second + "\": seconds > 0 (1, 2.5)"};
  }
  const std::string &file = s.positional[0];
  auto sources = open_sources(planes_to_read(plane_path));
  std::FILE *f = file == "-" ? stdout : std::fopen(file.c_str(), "w");
  if (!f)
    throw std::runtime_error("cannot write " + file + ": " + std::strerror(errno));
  std::setvbuf(f, nullptr, _IOLBF, 0);  // every row reaches the file at once
  catch_stop_signals();
  bool tell = isatty(STDERR_FILENO);
  if (tell)
    std::fprintf(stderr, "losslessctl: recording %zu pool(s) into %s every %llu ms%s\n",
                 sources.size(), file.c_str(), static_cast<unsigned long long>(interval_ms),
                 duration ? "" : " until Ctrl-C");
  std::fprintf(f, "%s\n", kCsvHeader);
  const std::int64_t step = static_cast<std::int64_t>(interval_ms) * 1000000;
  const std::int64_t t0 = mono_ns();
  const std::int64_t end = duration ? t0 + static_cast<std::int64_t>(duration * 1e9) : INT64_MAX;
  std::uint64_t samples = 0;
  for (std::int64_t k = 0;; k++) {
    std::int64_t at = t0 + k * step;
    if (at > end || !sleep_until_ns(at))
      break;
    std::int64_t now = mono_ns();
    for (auto &src : sources)
      if (TelPtr t = read_tel(src))
        csv_rows(f, static_cast<double>(now - t0) / 1e9, *t);
    samples++;
    if (std::ferror(f))
      throw std::runtime_error("cannot write " + file + ": " + std::strerror(errno));
    k = std::max(k, (mono_ns() - t0) / step);  // late: skip the missed samples
  }
  if (f != stdout && std::fclose(f))
    throw std::runtime_error("cannot write " + file + ": " + std::strerror(errno));
  if (f == stdout)
    std::fflush(stdout);
  if (tell)
    std::fprintf(stderr, "losslessctl: %llu samples in %s\n",
                 static_cast<unsigned long long>(samples), file.c_str());
  return kExitOk;
}

// --- plot ----------------------------------------------------------------

std::vector<std::string> csv_split(const std::string &line)
{
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', i++;
      else if (c == '"')
        quoted = false;
      else
        out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

// A gnuplot single-quoted string.
std::string gp_str(const std::string &s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

struct Recording {
  struct PoolPt {
    double t, shared, headroom;
  };
  struct QueuePt {
    double t, bytes, paused, xoff;
  };
  struct PortPt {
    double t, xoff;
  };
  std::map<std::string, std::vector<PoolPt>> pools;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<QueuePt>> queues;
  std::map<std::pair<std::string, std::string>, std::vector<PortPt>> ports;
  double t_min = 0, t_max = 0;
  std::size_t rows = 0;
};

Recording read_recording(const std::string &path)
{
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
  std::string line;
  if (!std::getline(in, line))
    throw std::runtime_error(path + ": empty, not a losslessctl record CSV");
  auto header = csv_split(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); i++)
    col[header[i]] = i;
  const char *need[] = {"time_s", "pool", "dev", "prio", "pool_shared_used", "pool_headroom_used",
                        "prio_bytes", "prio_paused", "prio_xoff_frames"};
  for (const char *n : need)
    if (!col.count(n))
      throw std::runtime_error(path + ": not a losslessctl record CSV (no column \"" + n +
                               "\" in its header)");
  Recording r;
  bool first = true;
  for (std::size_t lineno = 2; std::getline(in, line); lineno++) {
    if (line.empty() || line == "\r")
      continue;
    auto f = csv_split(line);
    if (f.size() != header.size())
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " +
                               std::to_string(f.size()) + " fields, the header has " +
                               std::to_string(header.size()));
    auto num = [&](const char *name, bool optional) -> double {
      const std::string &v = f[col[name]];
      if (v.empty() && optional)
        return NAN;
      char *end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || *end)
        throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + name + " \"" + v +
                                 "\" is not a number");
      return x;
    };
    double t = num("time_s", false);
    const std::string &pool = f[col["pool"]], &dev = f[col["dev"]], &prio = f[col["prio"]];
    r.t_min = first ? t : std::min(r.t_min, t);
    r.t_max = first ? t : std::max(r.t_max, t);
    first = false;
    r.rows++;
    auto &pp = r.pools[pool];
    if (pp.empty() || pp.back().t != t)
      pp.push_back({t, num("pool_shared_used", false), num("pool_headroom_used", false)});
    if (dev.empty() || prio.empty())
      continue;
    double xoff = num("prio_xoff_frames", false);
    r.queues[{pool, dev, prio}].push_back(
        {t, num("prio_bytes", false), num("prio_paused", false), xoff});
    auto &port = r.ports[{pool, dev}];
    if (!port.empty() && port.back().t == t)
      port.back().xoff += xoff;
    else
      port.push_back({t, xoff});
  }
  if (!r.rows)
    throw std::runtime_error(path + ": no samples (only the header)");
  return r;
}

// Runs gnuplot on script; throws with what went wrong. The script is
// removed unless keep or gnuplot failed on it.
void run_gnuplot(const std::string &script, bool keep)
{
  std::string arg0 = "gnuplot";
  char *argv[] = {arg0.data(), const_cast<char *>(script.c_str()), nullptr};
  pid_t pid;
  int rc = posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ);
  if (rc && !keep)
    unlink(script.c_str());
  if (rc == ENOENT)
    throw std::runtime_error("plot needs gnuplot, which is not installed (not in PATH): "
                             "apt-get install gnuplot-nox");
  if (rc)
    throw std::runtime_error(std::string("cannot run gnuplot: ") + std::strerror(rc));
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(st) || WEXITSTATUS(st))
    throw std::runtime_error(
        "gnuplot failed (" +
        (WIFEXITED(st) ? "exit status " + std::to_string(WEXITSTATUS(st))
                       : "signal " + std::to_string(WTERMSIG(st))) +
        ") on the script " + script + ", kept for a look");
  if (!keep)
    unlink(script.c_str());
}

// One series of a panel: columns of an inline data block, drawn as style
// ("lines lw 2", "steps") when it has two samples or more, else as a dot
// (a line needs two points).
struct GpSeries {
  std::string block, columns, style, title;  // no title: notitle
  std::size_t samples = 0;
};

// One panel of the page, over the shared time axis. Without a series
// (nothing of its kind recorded, or all zero) it says none in its middle:
// gnuplot refuses to plot nothing (NaN: "all points y value undefined"),
// so it plots a constant below the y range, which keeps the frame, the
// time axis and the page's layout.
struct GpPanel {
  std::string title{}, ylabel{}, key_title{}, none{};
  std::string yaxis = "set yrange [0:*]\nset ytics autofreq\n";
  std::vector<GpSeries> series{};
};

std::string gp_panel(const GpPanel &p)
{
  std::string gp = "set title " + gp_str(p.title) + "\nset ylabel " + gp_str(p.ylabel) +
                   "\nset key title " + gp_str(p.series.empty() ? "" : p.key_title) + "\n";
  if (p.series.empty())
    return gp + "set yrange [0:1]\nset ytics ('' 0)\nset label 1 " + gp_str(p.none) +
           " at graph 0.5,0.5 center\nplot -1 notitle\nunset label 1\n";
  gp += p.yaxis + "plot ";
  for (std::size_t i = 0; i < p.series.size(); i++) {
    const GpSeries &s = p.series[i];
    gp += std::string(i ? ", \\\n     " : "") + s.block + " using " + s.columns + " with " +
          (s.samples > 1 ? s.style : "points pt 7 ps 1.5") +
          (s.title.empty() ? " notitle" : " title " + gp_str(s.title));
  }
  return gp + "\n";
}

// An inline data block: its name's definition, one line per point.
template <typename Pt, typename Line>
std::string gp_block(const std::string &name, const std::vector<Pt> &pts, Line line)
{
  std::string gp = name + " << EOD\n";
  for (const Pt &p : pts)
    gp += line(p) + "\n";
  return gp + "EOD\n";
}

// Writes text into the file fd (closed here) created at path.
void write_script(int fd, const std::string &path, const std::string &text)
{
  if (fd < 0)
    throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  bool wrote = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  if (!wrote)
    throw std::runtime_error("cannot write " + path);
}

int cmd_plot(const std::vector<std::string> &args)
{
  SubArgs s = parse_sub("plot", args, {"--size", "--script"});
  if (s.positional.size() != 2)
    throw UsageError{"plot needs CSV and PNG"};
  unsigned width = 1200, height = 1000;
  if (auto it = s.opts.find("--size"); it != s.opts.end()) {
    char extra = 0;
    if (std::sscanf(it->second.c_str(), "%ux%u%c", &width, &height, &extra) != 2 ||
        it->second[0] < '0' || it->second[0] > '9' || width < 200 || height < 200 ||
        width > 10000 || height > 10000)
      throw UsageError{"invalid --size \"" + it->second +
                       "\": WIDTHxHEIGHT, 200 .. 10000 pixels each (1200x1000)"};
  }
  auto keep = s.opts.find("--script");
  if (keep != s.opts.end() && keep->second.empty())
    throw UsageError{"plot: --script needs a FILE"};
  const std::string &csv = s.positional[0], &png = s.positional[1];
  Recording r = read_recording(csv);
  bool one_pool = r.pools.size() == 1;
  using QKey = std::tuple<std::string, std::string, std::string>;
  using PKey = std::pair<std::string, std::string>;
  auto qname = [&](const QKey &k) {
    return (one_pool ? "" : std::get<0>(k) + ":") + std::get<1>(k) + "/" + std::get<2>(k);
  };

  // The series worth drawing, at most a legend's worth each.
  std::vector<std::pair<double, QKey>> occ, lanes;
  for (const auto &[k, pts] : r.queues) {
    double peak = 0, paused = 0;
    for (const auto &p : pts) {
      peak = std::max(peak, p.bytes);
      paused += p.paused;
    }
    if (peak > 0)
      occ.push_back({-peak, k});
    if (paused > 0 || pts.back().xoff > pts.front().xoff)
      lanes.push_back({-paused, k});
  }
  std::sort(occ.begin(), occ.end());
  std::sort(lanes.begin(), lanes.end());
  occ.resize(std::min<std::size_t>(occ.size(), 12));
  lanes.resize(std::min<std::size_t>(lanes.size(), 24));
  std::sort(lanes.begin(), lanes.end(),
            [](const auto &a, const auto &b) { return a.second < b.second; });
  std::vector<std::pair<double, PKey>> xports;
  for (const auto &[k, pts] : r.ports)
    if (pts.back().xoff > pts.front().xoff)
      xports.push_back({-(pts.back().xoff - pts.front().xoff), k});
  std::sort(xports.begin(), xports.end());
  xports.resize(std::min<std::size_t>(xports.size(), 16));

  std::string gp;
  gp += fmt("set terminal pngcairo size %u,%u noenhanced font ',9'\n", width, height);
  gp += "set output " + gp_str(png) + "\n";
  // The data, inline: one block per series.
  std::map<std::string, std::string> pool_block;
  std::map<QKey, std::string> q_block;
  std::map<PKey, std::string> port_block;
  for (const auto &[name, pts] : r.pools) {
    std::string b = fmt("$pool%zu", pool_block.size());
    gp += gp_block(b, pts,
                   [](const auto &p) { return fmt("%.6f %.0f %.0f", p.t, p.shared, p.headroom); });
    pool_block[name] = b;
  }
  for (const auto &[k, pts] : r.queues) {
    std::string b = fmt("$q%zu", q_block.size());
    gp += gp_block(b, pts, [](const auto &p) {
      return fmt("%.6f %.0f %.0f %.0f", p.t, p.bytes, p.paused, p.xoff);
    });
    q_block[k] = b;
  }
  for (const auto &[k, pts] : r.ports) {
    std::string b = fmt("$port%zu", port_block.size());
    gp += gp_block(b, pts, [](const auto &p) { return fmt("%.6f %.0f", p.t, p.xoff); });
    port_block[k] = b;
  }

  // The legend says how a queue's series is named ("swp1/3": port swp1,
  // priority 3). A pool's lines are drawn if it used its buffer at all.
  GpPanel buffer{.title = "Buffer occupancy",
                 .ylabel = "KiB",
                 .key_title = one_pool ? "queues: port/priority" : "queues: pool:port/priority",
                 .none = "no buffer use recorded"};
  for (const auto &[name, pts] : r.pools) {
    if (std::none_of(pts.begin(), pts.end(),
                     [](const auto &p) { return p.shared > 0 || p.headroom > 0; }))
      continue;
    std::string sfx = one_pool ? "" : " " + name;
    buffer.series.push_back(
        {pool_block[name], "1:($2/1024)", "lines lw 2", "shared" + sfx, pts.size()});
    buffer.series.push_back(
        {pool_block[name], "1:($3/1024)", "lines lw 2", "headroom" + sfx, pts.size()});
  }
  for (const auto &[peak, k] : occ)
    buffer.series.push_back({q_block[k], "1:($2/1024)", "lines", qname(k), r.queues.at(k).size()});

  GpPanel pauses{.title = "Paused: upstream told XOFF, one lane per port/priority",
                 .none = "no pauses recorded"};
  pauses.yaxis = fmt("set yrange [-0.6:%zu.6]\nset ytics (", lanes.size() ? lanes.size() - 1 : 0);
  for (std::size_t i = 0; i < lanes.size(); i++) {
    const QKey &k = lanes[i].second;
    pauses.yaxis += fmt("%s%s %zu", i ? ", " : "", gp_str(qname(k)).c_str(), i);
    pauses.series.push_back(
        {q_block[k], fmt("1:(%zu - 0.4 + 0.8*$3)", i), "steps lw 2", "", r.queues.at(k).size()});
  }
  pauses.yaxis += ")\n";

  GpPanel xoff{.title = "PFC XOFF frames sent, per port (cumulative)",
               .ylabel = "frames",
               .key_title = one_pool ? "port" : "pool:port",
               .none = "no XOFF frames sent"};
  for (const auto &[sent, k] : xports)
    xoff.series.push_back({port_block[k], "1:2", "steps lw 2",
                           (one_pool ? "" : k.first + ":") + k.second, r.ports.at(k).size()});

  // A single instant: in the middle of a second.
  bool instant = r.t_max <= r.t_min;
  double t0 = instant ? r.t_min - 0.5 : r.t_min, t1 = instant ? r.t_min + 0.5 : r.t_max;
  gp += "set multiplot layout 3,1 title " + gp_str("losslessctl record: " + csv) + "\n";
  // Same margins in every panel, so their time axes line up; legends right.
  gp += fmt("set grid\nset key outside right top\nset lmargin at screen 0.08\n"
            "set rmargin at screen 0.84\nset xrange [%.6f:%.6f]\nset xlabel 'time (s)'\n",
            t0, t1);
  for (const GpPanel *p : {&buffer, &pauses, &xoff})
    gp += gp_panel(*p);
  gp += "unset multiplot\n";

  // The script: into --script FILE and kept, else a temporary file that
  // goes unless gnuplot failed on it.
  std::string script;
  if (keep != s.opts.end()) {
    script = keep->second;
    write_script(open(script.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), script, gp);
  } else {
    const char *tmp = std::getenv("TMPDIR");
    script = std::string(tmp && *tmp ? tmp : "/tmp") + "/losslessctl-plot-XXXXXX.gp";
    write_script(mkstemps(script.data(), 3), script, gp);
  }
  unlink(png.c_str());
  run_gnuplot(script, keep != s.opts.end());
  // gnuplot may succeed without an image (an unwritable directory is only
  // a warning for it): check the file.
  unsigned char sig[8] = {};
  std::ifstream out(png, std::ios::binary);
  if (!out.read(reinterpret_cast<char *>(sig), 8) ||
      std::memcmp(sig, "\x89PNG\r\n\x1a\n", 8) != 0)
    throw std::runtime_error("gnuplot wrote no PNG image at " + png);
  std::printf("%s: %zu samples, %zu port/priority series\n", png.c_str(), r.pools.begin()->second.size(),
              r.queues.size());
  return kExitOk;
}

int run(int argc, char **argv)
{
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string pool, plane_path, sock = kDefaultSocket;
  std::size_t i = 0;
  for (; i < args.size(); i++) {
    if (args[i] == "--pool" || args[i] == "--plane" || args[i] == "--socket") {
      if (i + 1 >= args.size())
        throw UsageError{args[i] + " needs a value"};
      (args[i] == "--pool" ? pool : args[i] == "--plane" ? plane_path : sock) = args[i + 1];
      i++;
    } else if (args[i] == "-h" || args[i] == "--help") {
      std::fputs(usage().c_str(), stdout);
      return kExitOk;
    } else {
      break;
    }
  }
  if (i >= args.size())
    throw UsageError{"missing command"};
  std::string cmd = args[i++];
  std::vector<std::string> rest(args.begin() + i, args.end());
  if (!pool.empty() && !plane_path.empty())
    throw UsageError{"give --pool or --plane, not both"};
  bool via_daemon = plane_path.empty() && access(sock.c_str(), F_OK) == 0;
  if (!pool.empty())
    plane_path = lp::default_path(pool);

  if (cmd == "help") {
    std::fputs(usage().c_str(), stdout);
    return kExitOk;
  }
  if (cmd == "status") {
    bool as_json = false;
    for (const auto &a : rest) {
      if (a == "--json")
        as_json = true;
      else
        throw UsageError{"status: unknown argument \"" + a + "\""};
    }
    std::vector<std::string> planes;
    if (!plane_path.empty())
      planes.push_back(plane_path);
    else
      planes = lp::find_pinned();
    if (planes.empty()) {
      std::fprintf(stderr, "losslessctl: no pool planes under %s (tc qdisc ... lossless pool NAME plane auto)\n",
                   LL_PLANE_PIN_ROOT);
      return kExitError;
    }
    return cmd_status(planes, as_json);
  }
  if (cmd == "watchdog") {
    bool as_json = false;
    for (const auto &a : rest) {
      if (a == "--json")
        as_json = true;
      else
        throw UsageError{"watchdog: unknown argument \"" + a + "\""};
    }
    return cmd_watchdog(planes_to_read(plane_path), as_json);
  }
  if (cmd == "events") {
    bool as_json = false;
    for (const auto &a : rest) {
      if (a == "--json")
        as_json = true;
      else
        throw UsageError{"events: unknown argument \"" + a + "\""};
    }
    return each_plane(planes_to_read(plane_path), as_json, events_json, print_events);
  }
  if (cmd == "daemon") {
    bool as_json = rest.size() == 1 && rest[0] == "--json";
    if (!rest.empty() && !as_json)
      throw UsageError{"daemon: unknown argument \"" + rest[0] + "\""};
    return cmd_daemon(sock, as_json);
  }
  if (cmd == "config" || cmd == "reload") {
    if (!rest.empty())
      throw UsageError{cmd + " takes no arguments"};
    json r = daemon_request(sock, {{"cmd", cmd}});
    if (int rc = print_reply(r, cmd == "config"); rc >= 0)
      return rc;
    std::printf("reloaded\n");
    return kExitOk;
  }
  if (cmd == "watch")
    return cmd_watch(plane_path, rest);
  if (cmd == "record")
    return cmd_record(plane_path, rest);
  if (cmd == "plot") {
    if (!pool.empty() || !plane_path.empty())
      throw UsageError{"plot reads a CSV file: no --pool or --plane"};
    return cmd_plot(rest);
  }
  if (cmd == "spfc-force") {
    ForceArgs a = parse_force_args(rest);
    if (via_daemon) {
      if (pool.empty())
        throw UsageError{"spfc-force needs --pool NAME"};
      return cmd_spfc_force_daemon(sock, pool, a);
    }
    if (plane_path.empty())
      throw UsageError{"spfc-force needs --pool NAME or --plane PATH"};
    return cmd_spfc_force(plane_path, a);
  }
  if (cmd == "set" && via_daemon) {
    if (pool.empty())
      throw UsageError{"set needs --pool NAME"};
    return cmd_set_daemon(sock, pool, rest);
  }
  if (cmd == "set") {
    if (plane_path.empty())
      throw UsageError{"set needs --pool NAME or --plane PATH"};
    return cmd_set(plane_path, rest);
  }
  throw UsageError{"unknown command \"" + cmd + "\""};
}

}  // namespace

int main(int argc, char **argv)
{
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(
        stderr,
        "losslessctl: %s\nusage: losslessctl [--pool NAME | --plane PATH] status|watchdog|events|set|spfc-force|watch|record|plot|daemon|config|reload|help ...  (see --help)\n",
        e.msg.c_str());
    return kExitUsage;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "losslessctl: %s\n", e.what());
    return kExitError;
  }
}
