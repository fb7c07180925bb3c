// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "config_adapter.h"

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "config.h"
#include "ll_params.h"
#include "portfc_policy.h"

namespace lossless::daemon {
namespace {

// The device's MTU now, or 1500 if it does not exist (check() says so).
std::uint32_t device_mtu(const std::string &dev)
{
  ifreq ifr{};
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  std::uint32_t mtu = 1500;
  if (fd >= 0 && dev.size() < IFNAMSIZ) {
    std::memcpy(ifr.ifr_name, dev.c_str(), dev.size() + 1);
    if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
      mtu = static_cast<std::uint32_t>(ifr.ifr_mtu);
  }
  if (fd >= 0)
    close(fd);
  return mtu;
}

}  // namespace

Config load_config(const std::string &path)
{
  config::Config c = config::parse_file(path);
  Config out;
  out.source = path;
  out.pin_dir = c.daemon.pin_dir;
  out.socket = c.daemon.socket;
  out.period = std::chrono::nanoseconds(c.daemon.period_ns);
  if (c.daemon.prometheus)
    out.prometheus = c.daemon.prometheus->ipv6
                         ? "[" + c.daemon.prometheus->address + "]:" +
                               std::to_string(c.daemon.prometheus->port)
                         : c.daemon.prometheus->address + ":" +
                               std::to_string(c.daemon.prometheus->port);
  for (const auto &p : c.pools) {
    PoolConfig pc;
    pc.line = p.line;
    pc.policy = p.policy;
    pc.buffer_bytes = p.buffer_bytes;
    pc.settings.name = p.name;
    pc.settings.alpha = p.alpha;
    pc.settings.egress_alpha = p.egress_alpha;
    pc.settings.sw_delay_ns = p.sw_delay_ns;
    pc.settings.lossless_mask = p.lossless_mask;
    pc.settings.buffer_bytes = p.buffer_bytes;
    pc.settings.scheme = p.scheme_block;
    // Defaults in MTUs of the pool's first port, as tc's (device MTU +
    // link header + VLAN tag).
    std::uint32_t mtu = 1500;
    for (const auto &port : c.ports)
      if (port.pool == p.name) {
        mtu = port.mtu_bytes.value_or(device_mtu(port.dev));
        break;
      }
    std::uint32_t frame = mtu + 14 + 4;
    auto def = [frame](ll_param_id id) {
      return static_cast<std::uint32_t>(ll_param_default(&ll_params[id], frame));
    };
    pc.settings.reserved_bytes = p.reserved_bytes.value_or(def(LL_P_RESERVED));
    pc.settings.xon_offset_bytes = p.xon_offset_bytes.value_or(def(LL_P_XON_OFFSET));
    if (p.ecn) {
      pc.ecn_kmin_bytes = p.ecn->kmin_bytes;
      pc.ecn_kmax_bytes = p.ecn->kmax_bytes;
      pc.ecn_pmax = p.ecn->pmax;
    }
    pc.ecn_mode = p.ecn_mode;
    pc.np_ecn_k_bytes = p.np_ecn_k_bytes;
    out.pools.push_back(pc);
  }
  for (const auto &p : c.ports) {
    PortConfig pc;
    pc.line = p.line;
    pc.dev = p.dev;
    pc.pool = p.pool;
    pc.rate_bps = p.rate_bps;
    pc.queues = p.queues;
    pc.cable_delay_ns = p.cable_delay_ns;
    pc.sw_delay_ns = p.sw_delay_ns;
    pc.mtu = p.mtu_bytes;
    pc.headroom_bytes = p.headroom_bytes;
    pc.ingress.mode = static_cast<ingress::Mode>(p.ingress);
    pc.ingress.default_prio = p.default_prio;
    if (p.watchdog)
      pc.watchdog = WatchdogSpec{static_cast<std::uint8_t>(p.watchdog->action),
                                 p.watchdog->detect_ns, p.watchdog->restore_ns,
                                 p.watchdog->poll_ns, p.watchdog->xoff_alarm_ns};
    pc.mode = p.mode;
    pc.strict = p.strict;
    pc.scheme_port = p.scheme_port;
    pc.quanta_bytes = p.quanta_bytes;
    pc.priomap = p.priomap;
    pc.limit_packets = p.limit_packets;
    pc.burst_bytes = p.burst_bytes;
    pc.catchup_bytes = p.catchup_bytes;
    // A port of [portfc]: PortFC's queues, HQ strict, the plan's gates,
    // and at a switch its BCube port number (its place in ports).
    if (c.portfc) {
      const auto &pf = *c.portfc;
      auto at = std::find(pf.ports.begin(), pf.ports.end(), p.dev);
      if (at != pf.ports.end()) {
        bool server = pf.role == config::PortfcRole::Server;
        lossless::portfc::PortQueues q = lossless::portfc::port_queues({pf.n, pf.k}, server);
        pc.queues = static_cast<std::uint8_t>(q.queues);
        pc.strict = 1;
        pc.gates = q.gates;
        if (!server)
          pc.scheme_port = static_cast<std::uint8_t>(at - pf.ports.begin());
      }
    }
    out.ports.push_back(pc);
  }
  out.host_cc = c.host_cc;
  out.portfc = c.portfc;
  return out;
}

}  // namespace lossless::daemon
