// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include "headroom_check.h"

#include <cstring>
#include <memory>

extern "C" {
#include "mmu.h"
#include "scheme.h"
#include "shaper.h"
}

namespace lossless::daemon {

namespace {

constexpr std::uint32_t kVlanTagBytes = 4;  // the pool's MTU has one (VLAN_HLEN)

std::string at_line(const std::string &source, std::uint32_t line)
{
  return line ? source + ":" + std::to_string(line) + ": " : std::string();
}

int lossless_prio_count(std::uint8_t mask)
{
  int n = 0;
  for (; mask; mask &= static_cast<std::uint8_t>(mask - 1))
    n++;
  return n;
}

// The buffer in tc's largest whole unit that holds bytes, rounded up.
std::string buffer_text(std::uint64_t bytes)
{
  constexpr std::uint64_t kMb = 1 << 20, kKb = 1 << 10;
  if (bytes >= kMb)
    return std::to_string((bytes + kMb - 1) / kMb) + "mb";
  return std::to_string((bytes + kKb - 1) / kKb) + "kb";
}

}  // namespace

HeadroomResult check_pool_headroom(const policy::PoolSettings &pool, std::uint32_t pool_line,
                                   const std::vector<HeadroomPort> &ports,
                                   const std::string &source)
{
  HeadroomResult r;
  if (ports.empty())
    return r;
  // The pool as the first port's qdisc creates it (ll_kpool_default_config()
  // with the device's frame and a VLAN tag, then the daemon's options).
  ll_mmu_config cfg{};
  cfg.total_bytes = pool.buffer_bytes;
  cfg.max_ports = LL_MMU_MAX_PORTS;
  cfg.mtu_bytes = ports.front().dev_frame_bytes + kVlanTagBytes;
  cfg.reserved_bytes = pool.reserved_bytes;
  cfg.xon_offset_bytes = pool.xon_offset_bytes;
  cfg.alpha.num = pool.alpha >> 8;
  cfg.alpha.shift = pool.alpha & 0xff;
  cfg.egress_alpha.num = pool.egress_alpha >> 8;
  cfg.egress_alpha.shift = pool.egress_alpha & 0xff;
  cfg.lossless_mask = pool.lossless_mask;
  cfg.scheme = static_cast<std::uint8_t>(pool.scheme.id);
  static_assert(sizeof(pool.scheme.p) == sizeof(cfg.scheme_params));
  std::memcpy(&cfg.scheme_params, &pool.scheme.p, sizeof(cfg.scheme_params));
  r.pool_mtu_bytes = cfg.mtu_bytes;

  std::size_t words = (LL_MMU_POOL_BYTES(LL_MMU_MAX_PORTS) + 7) / 8;
  auto mem = std::make_unique<std::uint64_t[]>(words);
  auto *mmu = reinterpret_cast<ll_mmu_pool *>(mem.get());
  const std::string name = "pool \"" + pool.name + "\"";
  if (ll_mmu_pool_init(mmu, &cfg) != LL_MMU_OK) {
    r.error = at_line(source, pool_line) + name + ": the kernel refuses its configuration (" +
              ll_mmu_err_name(ll_mmu_config_check(&cfg)) + ")";
    return r;
  }

  const int nprio = lossless_prio_count(pool.lossless_mask);
  const std::uint64_t reserve = std::uint64_t(LL_MMU_PRIOS) * cfg.reserved_bytes;
  std::uint64_t carved = 0;  // by the ports before the one at hand
  std::string first_error;
  for (std::uint32_t i = 0; i < ports.size(); i++) {
    const HeadroomPort &p = ports[i];
    ll_mmu_port_config pc{};
    pc.rate_bps = p.rate_bps;
    pc.cable_delay_ns = p.cable_delay_ns;
    pc.sw_response_ns = p.sw_delay_ns.value_or(pool.sw_delay_ns);
    pc.headroom_bytes = p.headroom_bytes;
    pc.scheme_port = p.scheme_port;
    // The qdisc's burst and catch-up as given, else its defaults (term 9:
    // the upstream's shaper, taken to be like this port's).
    std::uint32_t burst =
        p.burst_bytes.value_or(ll_shaper_default_burst_bytes(p.rate_bps, p.dev_frame_bytes));
    pc.shaper_burst_bytes = std::max(
        burst, p.catchup_bytes.value_or(
                   ll_shaper_default_catchup_bytes(p.rate_bps, pc.sw_response_ns, burst)));

    HeadroomLine l;
    l.dev = p.dev;
    l.headroom_bytes = ll_mmu_port_headroom(mmu, &pc);
    l.carve_bytes = ll_scheme_port_carve(&cfg, l.headroom_bytes);
    l.reserved_bytes = reserve;
    r.ports.push_back(l);
    r.need_bytes += l.carve_bytes + l.reserved_bytes;

    enum ll_mmu_err e = ll_mmu_port_attach(mmu, i, &pc, 0);
    if (e != LL_MMU_OK && first_error.empty()) {
      std::string where = at_line(source, p.line) + "port \"" + p.dev + "\": ";
      if (e == LL_MMU_ERR_NO_SPACE) {
        first_error =
            where + name + " cannot hold it, the kernel would refuse its qdisc: headroom " +
            std::to_string(l.headroom_bytes) + " B per lossless priority x " +
            std::to_string(nprio) + (nprio == 1 ? " priority" : " priorities") +
            (l.carve_bytes != l.headroom_bytes * std::uint64_t(nprio)
                 ? " (the scheme carves " + std::to_string(l.carve_bytes) + " B)"
                 : " = " + std::to_string(l.carve_bytes) + " B") +
            ", reserve 8 x " + std::to_string(cfg.reserved_bytes) + " B, total " +
            std::to_string(carved + l.carve_bytes + l.reserved_bytes) + " B" +
            (i ? " with the " + std::to_string(i) + " port" + (i == 1 ? "" : "s") +
                     " before it"
               : std::string()) +
            ", of buffer " +
            std::to_string(cfg.total_bytes) + " B, leaving less than one frame (" +
            std::to_string(cfg.mtu_bytes) + " B) shared";
      } else if (e == LL_MMU_ERR_HEADROOM) {
        first_error = where + "headroom " + std::to_string(l.headroom_bytes) +
                      " B per lossless priority is below 2 frames (" +
                      std::to_string(2ULL * cfg.mtu_bytes) + " B): the kernel would refuse it";
      } else {
        first_error = where + name + ": the kernel would refuse the port (" +
                      ll_mmu_err_name(e) + ")";
      }
    }
    carved += l.carve_bytes + l.reserved_bytes;
  }
  r.need_bytes += cfg.mtu_bytes;
  if (!first_error.empty()) {
    r.error = first_error;
    if (r.need_bytes > cfg.total_bytes)
      r.error += "; its " + std::to_string(ports.size()) + " port" +
                 (ports.size() == 1 ? "" : "s") + " need a buffer of at least " +
                 std::to_string(r.need_bytes) + " B (buffer = \"" + buffer_text(r.need_bytes) +
                 "\"), or a lower rate or sw-delay (headroom grows with both)";
  }
  return r;
}

}  // namespace lossless::daemon
