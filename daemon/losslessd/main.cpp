// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd: the control plane of lossless (see --help).
#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "config_adapter.h"
#include "daemon.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kHelp[] = R"(usage: losslessd [--config FILE] [--check | --cleanup]

losslessd owns the lossless datapath of a host or software switch. From
its configuration file it installs the lossless qdisc and the ingress BPF
program on every configured port (or adopts them when they are already
there), creates and pins each pool's shared-state plane under the pin
directory, and then, every period (1 ms by default), runs each pool's
policy and pushes its decisions into the datapath through the plane. It
follows links that go up or down, appear, disappear or are renamed, and
serves a root-only control socket for losslessctl. With a [host_cc] table
(a host needs no pool) it also runs the hosts' congestion control, PCN or
DCQCN: it attaches lossless-cc's programs to the ports, writes the
parameters it derives from the line rate, deletes idle flows and exports
the counters and the top flows. With a [portfc] table it runs the node's
part in PortFC on a BCube: PortFC's queues on the ports, the egress
classifier, a switch's thresholds and buffer checked (spec 4.10), and a
stuck detector on the paused queues.

The datapath does not depend on the daemon: stopped, killed or crashed,
it leaves qdiscs, filters and maps in place, and the ports stay lossless
with the last parameters. Started again, it adopts them without
re-creating a qdisc or resetting a counter.

Options:
  -c, --config FILE  configuration file (default /etc/lossless/losslessd.toml;
                     the format is in docs/DAEMON.md)
      --check        validate the configuration and what start checks
                     before it changes anything: the pin directory is on
                     bpffs, a pool's pinned plane has the plane layout,
                     every port's device exists and, without rate,
                     reports a link speed; a [portfc] switch's pool holds
                     its thresholds and headroom. Prints the result, or
                     the first failure with its file and line; changes
                     nothing
      --cleanup      remove what the configuration installs (qdiscs of its
                     ports, their ingress filters, the pools' planes and the
                     ingress maps; [host_cc]'s programs and pins; [portfc]'s
                     classifier and pins) and exit
  -h, --help         this text
      --version      the version

Signals: SIGTERM and SIGINT stop the daemon; the datapath keeps running.
Exit status: 0 success, 1 error (the message names the file, line and key,
or the port and the reason; nothing is installed half-way), 2 bad usage.
)";

int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  if (level != LIBBPF_WARN)
    return 0;
  // The kernel's answers to "is our filter on this port?" when the port
  // has no clsact yet, or no filter of that priority (host_cc); our own
  // errors are reported with their context.
  char line[512];
  std::vsnprintf(line, sizeof(line), fmt, ap);
  if (std::strstr(line, "Parent Qdisc doesn't exist") ||
      std::strstr(line, "Cannot find specified filter chain"))
    return 0;
  return std::fputs(line, stderr);
}

}  // namespace

int main(int argc, char **argv)
{
  std::string config = "/etc/lossless/losslessd.toml";
  bool check = false, cleanup = false;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if ((a == "-c" || a == "--config") && i + 1 < argc) {
      config = argv[++i];
    } else if (a == "--check") {
      check = true;
    } else if (a == "--cleanup") {
      cleanup = true;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kHelp, stdout);
      return kExitOk;
    } else if (a == "--version") {
      std::printf("losslessd %s\n", LL_VERSION);
      return kExitOk;
    } else {
      std::fprintf(stderr, "losslessd: unknown argument \"%s\"\nusage: losslessd [--config FILE] "
                   "[--check | --cleanup]  (see --help)\n", a.c_str());
      return kExitUsage;
    }
  }
  if (check && cleanup) {
    std::fprintf(stderr, "losslessd: --check and --cleanup exclude each other\n");
    return kExitUsage;
  }
  libbpf_set_print(quiet_libbpf);
  try {
    auto cfg = lossless::daemon::load_config(config);
    if (cleanup) {
      lossless::daemon::Daemon::cleanup(cfg);
      return kExitOk;
    }
    if (check) {
      // The file, then what start() checks before it changes anything:
      // the pin directory, the pools' planes, the ports' devices.
      std::size_t pools = cfg.pools.size(), ports = cfg.ports.size();
      std::string cc;
      if (cfg.host_cc)
        cc = ", host_cc " + std::string(lossless::cc::algo_name(cfg.host_cc->algo)) + " on " +
             std::to_string(cfg.host_cc->ports.size()) + " ports";
      if (cfg.portfc)
        cc += ", portfc " + std::string(lossless::config::portfc_role_name(cfg.portfc->role)) +
              " on " + std::to_string(cfg.portfc->ports.size()) + " ports";
      lossless::daemon::Daemon(std::move(cfg), lossless::daemon::load_config).validate();
      std::printf("%s: valid (%zu pools, %zu ports%s)\n", config.c_str(), pools, ports,
                  cc.c_str());
      return kExitOk;
    }
    lossless::daemon::Daemon d(std::move(cfg), lossless::daemon::load_config);
    d.start();
    d.run();
    return kExitOk;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "losslessd: %s\n", e.what());
    return kExitError;
  }
}
