// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Frames and configurations for the tests of the hosts' congestion control
// programs (cc_test.cpp, cc_e2e_test.cpp): RoCEv2 data frames built by hand
// (Ethernet, IPv4, UDP 4791, BTH), CNPs from the core's own builder
// (ll_cnp_frame_build), so that what the programs send is compared with
// what the core makes.
#pragma once

#include <arpa/inet.h>

#include <bpf/bpf.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "lossless_cc.h"  // pcn.h, dcqcn.h, cnp.h (extern "C")

namespace lltest::cc {

using Frame = std::vector<std::uint8_t>;

inline constexpr std::size_t kIpOff = 14;
inline constexpr std::size_t kUdpOff = kIpOff + 20;
inline constexpr std::size_t kBthOff = kUdpOff + 8;
inline constexpr std::uint8_t kEcnNotEct = 0;
inline constexpr std::uint8_t kEcnEct0 = 2;
inline constexpr std::uint8_t kEcnCe = 3;
inline constexpr std::uint8_t kOpSendOnly = 0x04;

inline void put16(Frame &f, std::size_t off, std::uint16_t v)
{
  f.at(off) = static_cast<std::uint8_t>(v >> 8);
  f.at(off + 1) = static_cast<std::uint8_t>(v);
}

inline std::uint16_t get16(const Frame &f, std::size_t off)
{
  return static_cast<std::uint16_t>(f.at(off) << 8 | f.at(off + 1));
}

// A RoCEv2 flow as the data's sender sees it (addresses in host order).
struct Flow {
  std::uint8_t src_mac[6] = {0x02, 0x00, 0x00, 0x43, 0x43, 0x01};
  std::uint8_t dst_mac[6] = {0x02, 0x00, 0x00, 0x43, 0x43, 0x02};
  std::uint32_t saddr = 0x0a000001;  // 10.0.0.1
  std::uint32_t daddr = 0x0a000002;
  std::uint16_t sport = 49152;
  std::uint16_t dport = LL_CNP_UDP_PORT;
  std::uint32_t dest_qp = 0x000011;

  // The key of the maps: network order, as in the packet.
  ll_cc_flow_key key() const
  {
    ll_cc_flow_key k;
    k.saddr = htonl(saddr);
    k.daddr = htonl(daddr);
    k.sport = htons(sport);
    k.dport = htons(dport);
    return k;
  }
  // The addressing of the flow's CNPs: MACs and IPs swapped, ports kept
  // (the CNP's UDP source port is the data's, for ECMP).
  Flow reversed() const
  {
    Flow r = *this;
    std::memcpy(r.src_mac, dst_mac, 6);
    std::memcpy(r.dst_mac, src_mac, 6);
    r.saddr = daddr;
    r.daddr = saddr;
    return r;
  }
};

inline std::uint16_t ipv4_csum(const std::uint8_t *h)
{
  std::uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2)
    sum += static_cast<std::uint32_t>(h[i] << 8 | h[i + 1]);
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum);
}

// A RoCEv2 data frame of f: 58 + payload octets (BTH, payload, ICRC).
inline Frame roce(const Flow &f, std::uint8_t ecn, std::size_t payload = 64,
                  std::uint8_t opcode = kOpSendOnly)
{
  const std::size_t udp_len = 8 + LL_CNP_BTH_BYTES + payload + 4;
  Frame fr(kUdpOff + udp_len, 0);
  std::memcpy(&fr[0], f.dst_mac, 6);
  std::memcpy(&fr[6], f.src_mac, 6);
  put16(fr, 12, 0x0800);
  fr[kIpOff] = 0x45;
  fr[kIpOff + 1] = static_cast<std::uint8_t>((26 << 2) | ecn);
  put16(fr, kIpOff + 2, static_cast<std::uint16_t>(20 + udp_len));
  put16(fr, kIpOff + 6, 0x4000);
  fr[kIpOff + 8] = 64;
  fr[kIpOff + 9] = 17;
  put16(fr, kIpOff + 12, static_cast<std::uint16_t>(f.saddr >> 16));
  put16(fr, kIpOff + 14, static_cast<std::uint16_t>(f.saddr));
  put16(fr, kIpOff + 16, static_cast<std::uint16_t>(f.daddr >> 16));
  put16(fr, kIpOff + 18, static_cast<std::uint16_t>(f.daddr));
  put16(fr, kIpOff + 10, ipv4_csum(&fr[kIpOff]));
  put16(fr, kUdpOff, f.sport);
  put16(fr, kUdpOff + 2, f.dport);
  put16(fr, kUdpOff + 4, static_cast<std::uint16_t>(udp_len));
  fr[kBthOff] = opcode;
  put16(fr, kBthOff + 2, 0xffff);
  fr[kBthOff + 5] = static_cast<std::uint8_t>(f.dest_qp >> 16);
  fr[kBthOff + 6] = static_cast<std::uint8_t>(f.dest_qp >> 8);
  fr[kBthOff + 7] = static_cast<std::uint8_t>(f.dest_qp);
  for (std::size_t i = 0; i < payload; i++)
    fr[kBthOff + LL_CNP_BTH_BYTES + i] = static_cast<std::uint8_t>(i);
  return fr;
}

// RoCEv2 over IPv6 (UDP to dport).
inline Frame roce_ipv6(std::uint16_t dport)
{
  const std::size_t udp_len = 8 + LL_CNP_BTH_BYTES + 4;
  Frame fr(14 + 40 + udp_len, 0);
  put16(fr, 12, 0x86dd);
  fr[14] = 0x60;
  put16(fr, 14 + 4, static_cast<std::uint16_t>(udp_len));
  fr[14 + 6] = 17;
  fr[14 + 7] = 64;
  fr[14 + 8 + 15] = 1;
  fr[14 + 24 + 15] = 2;
  put16(fr, 54, 49152);
  put16(fr, 56, dport);
  put16(fr, 58, static_cast<std::uint16_t>(udp_len));
  fr[62] = kOpSendOnly;
  return fr;
}

// A version-1 CNP for data flow f: congested with RecRate rate_mbps, or
// without a rate if rate_mbps is 0.
inline ll_cnp basic_cnp(const Flow &f, std::uint16_t seq,
                        std::uint32_t rate_mbps, std::uint8_t congested = 1)
{
  ll_cnp c;
  std::memset(&c, 0, sizeof(c));
  c.version = LL_CNP_VERSION;
  c.rec_rate_mbps = rate_mbps;
  c.rate_valid = rate_mbps != 0;
  c.congested = congested;
  c.seq = seq;
  c.sport = f.sport;
  c.dport = f.dport;
  c.proto = 17;
  c.dest_qp = f.dest_qp;
  return c;
}

// The whole CNP frame from r's addresses (r: a flow's reversed()).
inline Frame cnp_frame(const Flow &r, const ll_cnp &c, std::uint8_t dscp = 0)
{
  ll_cnp_ipv4_addr a;
  std::memset(&a, 0, sizeof(a));
  std::memcpy(a.dst_mac, r.dst_mac, 6);
  std::memcpy(a.src_mac, r.src_mac, 6);
  std::uint32_t s = htonl(r.saddr), d = htonl(r.daddr);
  std::memcpy(a.src_ip, &s, 4);
  std::memcpy(a.dst_ip, &d, 4);
  a.udp_sport = r.sport;
  a.dscp = dscp;
  Frame fr(LL_CNP_IPV4_FRAME_BYTES);
  if (ll_cnp_frame_build(fr.data(), static_cast<ll_u32>(fr.size()), &a, &c) !=
      LL_CNP_IPV4_FRAME_BYTES)
    throw std::runtime_error("ll_cnp_frame_build failed");
  return fr;
}

// PCN at line_kbps with the core's defaults, but no idle times (tests
// sleep milliseconds between packets).
inline ll_cc_config pcn_config(std::uint64_t line_kbps)
{
  ll_cc_config c;
  std::memset(&c, 0, sizeof(c));
  c.algo = LL_CC_PCN;
  c.roles = LL_CC_ROLE_NP | LL_CC_ROLE_RP;
  ll_pcn_params_default(&c.pcn, line_kbps);
  c.pcn.rp_idle_ns = 0;
  c.pcn.np_idle_ns = 0;
  ll_dcqcn_params_default(&c.dcqcn, line_kbps);
  return c;
}

inline ll_cc_config dcqcn_config(std::uint64_t line_kbps)
{
  ll_cc_config c = pcn_config(line_kbps);
  c.algo = LL_CC_DCQCN;
  return c;
}

// ll_cc_stats summed over the CPUs.
inline ll_cc_stats sum_stats(int fd, int ncpus)
{
  static_assert(sizeof(ll_cc_stats) % 8 == 0, "per-CPU slots");
  std::vector<ll_cc_stats> v(static_cast<std::size_t>(ncpus));
  ll_cc_stats sum;
  std::memset(&sum, 0, sizeof(sum));
  std::uint32_t zero = 0;
  if (bpf_map_lookup_elem(fd, &zero, v.data()))
    return sum;
  auto *out = reinterpret_cast<std::uint64_t *>(&sum);
  for (const ll_cc_stats &s : v) {
    auto *in = reinterpret_cast<const std::uint64_t *>(&s);
    for (std::size_t i = 0; i < sizeof(sum) / 8; i++)
      out[i] += in[i];
  }
  return sum;
}

}  // namespace lltest::cc
