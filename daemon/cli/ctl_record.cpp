// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl record FILE [--interval MS] [--duration S]: the telemetry
// as a CSV time series.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "ctl.h"

namespace lossless::ctl {

namespace {

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

}  // namespace

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

}  // namespace lossless::ctl
