// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl: look at and steer lossless pools through their shared-state
// planes (kernel/uapi/lossless.h). Reads need no daemon: the datapath
// publishes its telemetry in the plane map every interval.
//
// This file: main, the usage and the dispatch of the commands; each
// command is in a ctl_<command>.cpp of its own, the helpers they share
// in ctl_common.cpp (ctl.h declares them).
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "ctl.h"
#include "ll_params.h"
#include "ll_plane_map.h"
#include "plane.h"
#include "registry.h"

extern "C" {
#include "scheme.h"
}

namespace lossless::ctl {

namespace {

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
                        with a scheme that keeps telemetry, its state and
                        counters per port and lossless priority, named by
                        the scheme (docs/SCHEMES.md). With losslessd
                        running a [host_cc], the hosts' congestion
                        control too: CNPs, counters and the top flows.
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
@SCHEME_EVENTS@
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
                        sw-delay-us for pfc-dt, and each scheme's own
                        SCHEME.PARAM keys);
                        --plane writes the map directly instead.
  clear peaks           restart the peak watermarks (pool shared and
                        headroom peaks, every port and priority's peak
                        bytes and headroom, the egress queues' and the
                        scheme's) from what is in use now, as SONiC's
                        `watermark clear`; nothing else changes. Every pool,
                        or the one of --pool or --plane. With losslessd
                        running it goes through the daemon; --plane writes
                        the map directly.
  move-scheme SCHEME [--timeout TIME]
                        move the pool, busy or not, to another scheme
                        (dt, st, dsh, spfc; its parameters at their
                        defaults): drain it (its lossless queues tell their
                        upstreams XOFF, lossy arrivals are dropped), change
                        the scheme once it holds nothing, resume. If it has
                        not drained within TIME (default 5s), the drain
                        ends, the scheme stays and the error says how many
                        bytes it still held. With losslessd running it goes
                        through the daemon, whose policy becomes the
                        scheme's (edit the file before its next reload);
                        --plane writes the map directly.
  scheme COMMAND [ARG ...]
                        a command for the pool's scheme (the part of it
                        that runs in losslessd), and wait for the datapath
                        to apply it (at most 1 s). With losslessd running
                        it goes through the daemon, which keeps it
                        (losslessctl daemon lists it); otherwise, or with
                        --plane, it is written into the map's control
                        channel directly. The schemes' commands:
@SCHEME_COMMANDS@
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
  portfc [--json]       losslessd's [portfc]: the node (role, BCube
                        position), a switch's thresholds and buffer need,
                        per port the classifier, the PortFC frames the
                        ingress program refused and relayed, and per
                        pausable queue whether it is paused, its time
                        paused, the frames that named it and its stuck
                        alarm; the classifier's counters and the stuck
                        detector's last events
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

// The schemes' commands, from their agents (Registration::agent), as
// usage lines: "<scheme>: <command>  <what it does>", wrapped.
// text wrapped at 78 columns under the usage's 24-column indent.
std::string wrapped(const std::string &text)
{
  const std::string indent(24, ' ');
  std::istringstream words(text);
  std::string w, cur = indent, out;
  while (words >> w) {
    if (cur.size() > indent.size() && cur.size() + 1 + w.size() > 78) {
      out += cur + "\n";
      cur = indent + "  ";
    }
    cur += (cur.size() > indent.size() && cur.back() != ' ' ? " " : "") + w;
  }
  return out + cur + "\n";
}

std::string scheme_commands_usage()
{
  std::string out;
  for (const auto *r : lossless::policy::registry()) {
    if (!r->agent)
      continue;
    for (const auto &line : r->agent()->usage())
      out += wrapped(std::string(r->scheme) + ": " + line);
  }
  return out;
}

// "(NAME: EVENT, EVENT, ...; NAME: ...)": the events each scheme
// logs, from its descriptor.
std::string scheme_events_usage()
{
  std::string out;
  for (ll_u32 id = 0; id < LL_SCHEME_COUNT; id++) {
    const ll_scheme_desc *d = ll_scheme_lookup(id);
    std::string names;
    for (ll_u32 t = 1; d && t < d->n_events; t++)
      if (const char *n = ll_scheme_event_name(id, t))
        names += (names.empty() ? "" : ", ") + std::string(n);
    if (!names.empty())
      out += (out.empty() ? "" : "; ") + std::string(d->name) + ": " + names;
  }
  return out.empty() ? "" : "(" + out + ")";
}

// The usage, with set's keys from the table and the schemes' commands
// from their agents.
std::string usage()
{
  std::string u = kUsage;
  std::string keys = set_keys_usage();
  keys.pop_back();  // the template's line ends it
  u.replace(u.find("@KEYS@"), 6, keys);
  std::string cmds = scheme_commands_usage();
  if (!cmds.empty())
    cmds.pop_back();
  u.replace(u.find("@SCHEME_COMMANDS@"), 17, cmds);
  std::string events = wrapped("state changes " + scheme_events_usage() + ", oldest");
  events.pop_back();
  return u.replace(u.find("@SCHEME_EVENTS@"), 15, events);
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
    // The hosts' congestion control is losslessd's ([host_cc]): its block
    // comes from the daemon when one runs (a host may have no pool).
    json host_cc;
    if (via_daemon && pool.empty()) {
      try {
        json r = daemon_request(sock, {{"cmd", "status"}});
        if (r.contains("host_cc"))
          host_cc = r["host_cc"];
      } catch (const std::exception &e) {
        std::fprintf(stderr, "losslessctl: %s\n", e.what());
      }
    }
    if (planes.empty() && host_cc.is_object())
      return cmd_status(planes, as_json, host_cc);
    if (planes.empty()) {
      std::fprintf(stderr, "losslessctl: no pool planes under %s (tc qdisc ... lossless pool NAME plane auto)\n",
                   LL_PLANE_PIN_ROOT);
      return kExitError;
    }
    return cmd_status(planes, as_json, host_cc);
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
  if (cmd == "portfc") {
    bool as_json = rest.size() == 1 && rest[0] == "--json";
    if (!rest.empty() && !as_json)
      throw UsageError{"portfc: unknown argument \"" + rest[0] + "\""};
    return cmd_portfc(sock, as_json);
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
  if (cmd == "scheme") {
    if (rest.empty())
      throw UsageError{"scheme needs a COMMAND (losslessctl --help lists the schemes')"};
    if (via_daemon) {
      if (pool.empty())
        throw UsageError{"scheme needs --pool NAME"};
      return cmd_scheme_daemon(sock, pool, rest);
    }
    if (plane_path.empty())
      throw UsageError{"scheme needs --pool NAME or --plane PATH"};
    return cmd_scheme_plane(plane_path, rest);
  }
  if (cmd == "clear")
    return cmd_clear(sock, via_daemon, pool, plane_path, rest);
  if (cmd == "move-scheme")
    return cmd_move_scheme(sock, via_daemon, pool, plane_path, rest);
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

}  // namespace lossless::ctl

using namespace lossless::ctl;  // run, UsageError, the exit codes

int main(int argc, char **argv)
{
  try {
    return run(argc, argv);
  } catch (const UsageError &e) {
    std::fprintf(
        stderr,
        "losslessctl: %s\nusage: losslessctl [--pool NAME | --plane PATH] status|watchdog|events|set|clear|move-scheme|scheme|watch|record|plot|daemon|portfc|config|reload|help ...  (see --help)\n",
        e.msg.c_str());
    return kExitUsage;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "losslessctl: %s\n", e.what());
    return kExitError;
  }
}
