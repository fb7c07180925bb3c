// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl plot CSV PNG [--size WxH] [--script FILE]: a recorded CSV
// drawn with gnuplot.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>

#include "ctl.h"

namespace lossless::ctl {

namespace {

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

}  // namespace

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

}  // namespace lossless::ctl
