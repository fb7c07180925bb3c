// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Test frames for the ingress program. MAC control frames come from the
// core's own builder (ll_ctrl_build), so the codec is exercised in both
// directions; malformed ones are edits of those bytes.
#pragma once

#include <arpa/inet.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "lossless_ingress.h"  // pfc.h (extern "C"), lossless.h

namespace lltest {

using Frame = std::vector<std::uint8_t>;

inline constexpr std::uint8_t kSrcMac[6] = {0x02, 0x00, 0x00, 0x4c, 0x4c, 0x01};
inline constexpr std::uint8_t kDstMac[6] = {0x02, 0x00, 0x00, 0x4c, 0x4c, 0x02};
inline constexpr std::uint16_t kEthIpv4 = 0x0800;
inline constexpr std::uint16_t kEthIpv6 = 0x86DD;
inline constexpr std::uint16_t kEthArp = 0x0806;

inline std::uint16_t be16_at(const Frame &f, std::size_t off)
{
  return static_cast<std::uint16_t>(f.at(off) << 8 | f.at(off + 1));
}

inline void put_be16(Frame &f, std::size_t off, std::uint16_t v)
{
  f.at(off) = static_cast<std::uint8_t>(v >> 8);
  f.at(off + 1) = static_cast<std::uint8_t>(v);
}

inline Frame mac_ctrl(const ll_ctrl_msg &m)
{
  Frame f(LL_MAC_CTRL_FRAME_BYTES);
  ll_u32 n = ll_ctrl_build(f.data(), static_cast<ll_u32>(f.size()), &m);
  if (n != LL_MAC_CTRL_FRAME_BYTES)
    throw std::runtime_error("ll_ctrl_build failed");
  return f;
}

inline Frame pfc(std::uint8_t vector, std::array<std::uint16_t, 8> quanta)
{
  ll_ctrl_msg m;
  std::memset(&m, 0, sizeof(m));
  std::memcpy(m.src, kSrcMac, 6);
  m.kind = LL_CTRL_PFC;
  m.gate_mask = vector;
  for (int i = 0; i < 8; i++)
    m.value[i] = quanta[i];
  return mac_ctrl(m);
}

inline Frame pfc_xoff_prio3()
{
  return pfc(0x08, {0, 0, 0, 0xffff, 0, 0, 0, 0});
}

inline Frame pause(std::uint16_t quanta)
{
  ll_ctrl_msg m;
  std::memset(&m, 0, sizeof(m));
  std::memcpy(m.src, kSrcMac, 6);
  m.kind = LL_CTRL_PAUSE;
  m.value[0] = quanta;
  return mac_ctrl(m);
}

// A TOKENS frame (BifrostX): credits in 64-octet units for the
// priorities of mask, the link's, a lifetime in quanta.
inline Frame tokens(std::uint8_t mask, std::array<std::uint16_t, 8> credits,
                    std::uint16_t link, std::uint16_t lifetime)
{
  ll_ctrl_msg m;
  std::memset(&m, 0, sizeof(m));
  std::memcpy(m.src, kSrcMac, 6);
  m.kind = LL_CTRL_TOKENS;
  m.gate_mask = mask;
  for (int i = 0; i < 8; i++)
    m.value[i] = credits[i];
  m.value[LL_PFC_PRIOS] = link;
  m.lifetime = lifetime;
  return mac_ctrl(m);
}

// A PortFC frame (kind LL_CTRL_PORTFC_A, _B or _R): pause time in quanta
// (0: resume) for each slot of mask.
inline Frame portfc(std::uint8_t kind, std::uint8_t mask, std::uint16_t quanta)
{
  ll_ctrl_msg m;
  std::memset(&m, 0, sizeof(m));
  std::memcpy(m.src, kSrcMac, 6);
  m.kind = kind;
  m.gate_mask = mask;
  for (int i = 0; i < LL_CTRL_PORTFC_SLOTS; i++)
    if (mask & (1u << i))
      m.value[i] = quanta;
  return mac_ctrl(m);
}

// Inserts a VLAN tag (TPID, PCP, VID) after the source address.
inline Frame tagged(Frame f, std::uint16_t tpid, unsigned pcp, unsigned vid)
{
  std::uint16_t tci = static_cast<std::uint16_t>((pcp & 7) << 13 | (vid & 0xfff));
  std::uint8_t tag[4] = {static_cast<std::uint8_t>(tpid >> 8),
                         static_cast<std::uint8_t>(tpid),
                         static_cast<std::uint8_t>(tci >> 8),
                         static_cast<std::uint8_t>(tci)};
  f.insert(f.begin() + 12, tag, tag + 4);
  return f;
}

inline Frame ether(std::uint16_t type, std::size_t payload_len)
{
  Frame f(14 + payload_len, 0);
  std::memcpy(f.data(), kDstMac, 6);
  std::memcpy(f.data() + 6, kSrcMac, 6);
  put_be16(f, 12, type);
  for (std::size_t i = 14; i < f.size(); i++)
    f[i] = static_cast<std::uint8_t>(i);
  return f;
}

// IPv4/UDP, 20-byte header, TOS = DSCP << 2 | ECN.
inline Frame ipv4(unsigned dscp, unsigned ecn = 0)
{
  Frame f = ether(kEthIpv4, 46);
  std::uint8_t *ip = f.data() + 14;
  ip[0] = 0x45;
  ip[1] = static_cast<std::uint8_t>(dscp << 2 | (ecn & 3));
  ip[2] = 0;
  ip[3] = 46;
  ip[8] = 64;
  ip[9] = 17;
  std::uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
  std::memcpy(ip + 12, addrs, 8);
  return f;
}

// IPv6/UDP, traffic class = DSCP << 2 | ECN, flow label all ones.
inline Frame ipv6(unsigned dscp, unsigned ecn = 0)
{
  Frame f = ether(kEthIpv6, 48);
  std::uint8_t *ip = f.data() + 14;
  unsigned tc = dscp << 2 | (ecn & 3);
  ip[0] = static_cast<std::uint8_t>(0x60 | tc >> 4);
  ip[1] = static_cast<std::uint8_t>((tc & 0x0f) << 4 | 0x0f);
  ip[2] = 0xff;
  ip[3] = 0xff;
  ip[4] = 0;
  ip[5] = 8;
  ip[6] = 17;
  ip[7] = 64;
  return f;
}

inline Frame arp()
{
  return ether(kEthArp, 46);
}

}  // namespace lltest
