// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl watch [--interval MS] [--count N]: a live view of every
// pool, redrawn in place.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "ctl.h"

namespace lossless::ctl {

namespace {

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

}  // namespace

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

}  // namespace lossless::ctl
