// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// PortFC's egress classifier (bpf/lossless_portfc.bpf.c) under
// BPF_PROG_TEST_RUN: every (server, port, destination, relayed) of
// BCube(4,1) and every (switch, destination) gets the queue the core's
// plan gives (kernel/core/portfc.c, run here on the same inputs) as
// skb->priority MAJOR:QUEUE+1; HQ for ARP, control frames and RoCE's
// ACK/CNP; counted refusals for ports without an entry or with a bad one.
// Each test loads the skeleton afresh (private maps, counters from 0).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <net/if.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstring>
#include <vector>

#include "cc_frames.h"
#include "lossless_portfc.h"
#include "lossless_portfc.skel.h"
#include "sandbox.h"
#include "test_run.h"

namespace {

using lltest::cc::Flow;
using lltest::cc::Frame;

constexpr ll_bcube kB41{4, 1};
constexpr std::uint16_t kMajor = 7;

// Server id -> 10.1.0.(id + 1), host order.
std::uint32_t addr_of(std::uint32_t id)
{
  return 0x0a010001u + id;
}

class PortfcProg : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    skel_ = lossless_portfc__open_and_load();
    ASSERT_NE(skel_, nullptr) << "lossless_portfc__open_and_load failed";
    port_ = if_nametoindex("lla");
    ASSERT_NE(port_, 0u) << "sandbox veth lla missing";
    other_ = if_nametoindex("llc");
    ASSERT_NE(other_, 0u);
    ncpus_ = libbpf_num_possible_cpus();
    for (std::uint32_t id = 0; id < ll_bcube_servers(&kB41); id++) {
      std::uint32_t a = htonl(addr_of(id));
      ASSERT_EQ(bpf_map__update_elem(skel_->maps.ll_portfc_addr, &a, sizeof(a), &id,
                                     sizeof(id), 0),
                0);
    }
  }

  void TearDown() override
  {
    if (skel_)
      lossless_portfc__destroy(skel_);
  }

  void set_port(std::uint32_t ifindex, std::uint8_t role, std::uint8_t level,
                std::uint32_t node, std::uint8_t n = 4, std::uint8_t k = 1)
  {
    ll_portfc_port p;
    std::memset(&p, 0, sizeof(p));
    p.role = role;
    p.n = n;
    p.k = k;
    p.level = level;
    p.node = node;
    p.major = kMajor;
    ASSERT_EQ(bpf_map__update_elem(skel_->maps.ll_portfc_port, &ifindex, sizeof(ifindex),
                                   &p, sizeof(p), 0),
              0);
  }

  // The priority the program leaves on frame f leaving ifindex.
  std::uint32_t run(const Frame &f, std::uint32_t ifindex, std::uint32_t in_ifindex = 0,
                    std::uint32_t priority = 0)
  {
    __sk_buff ctx;
    std::memset(&ctx, 0, sizeof(ctx));
    ctx.ifindex = ifindex;
    ctx.ingress_ifindex = in_ifindex;
    ctx.priority = priority;
    auto r = lltest::test_run(bpf_program__fd(skel_->progs.ll_portfc_classify), f, ctx);
    EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);  // on to the next filter
    return r.ctx.priority;
  }

  ll_portfc_stats stats()
  {
    std::vector<ll_portfc_stats> v(static_cast<std::size_t>(ncpus_));
    ll_portfc_stats sum;
    std::memset(&sum, 0, sizeof(sum));
    std::uint32_t zero = 0;
    EXPECT_EQ(bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_portfc_stats), &zero, v.data()),
              0);
    auto *out = reinterpret_cast<std::uint64_t *>(&sum);
    for (const auto &s : v) {
      auto *in = reinterpret_cast<const std::uint64_t *>(&s);
      for (std::size_t i = 0; i < sizeof(sum) / 8; i++)
        out[i] += in[i];
    }
    return sum;
  }

  static Frame data_to(std::uint32_t dst_addr, std::uint8_t opcode = lltest::cc::kOpSendOnly)
  {
    Flow f;
    f.daddr = dst_addr;
    return lltest::cc::roce(f, lltest::cc::kEcnEct0, 64, opcode);
  }

  static std::uint32_t prio(std::uint32_t queue)
  {
    return (static_cast<std::uint32_t>(kMajor) << 16) | (queue + 1);
  }

  lossless_portfc *skel_ = nullptr;
  std::uint32_t port_ = 0, other_ = 0;
  int ncpus_ = 0;
};

// Every server port of BCube(4,1), every destination, own and relayed.
TEST_F(PortfcProg, EveryServerPortAgreesWithTheCore)
{
  std::uint64_t runs = 0;
  for (std::uint32_t s = 0; s < 16; s++)
    for (std::uint8_t l = 0; l < 2; l++) {
      set_port(port_, LL_PORTFC_ROLE_SERVER, l, s);
      for (std::uint32_t d = 0; d < 16; d++)
        for (std::uint8_t relayed = 0; relayed < 2; relayed++) {
          ll_portfc_where at{kB41, l, s};
          ll_portfc_pkt pkt{static_cast<ll_s32>(d), relayed, 0};
          ll_portfc_class_err err;
          std::uint32_t q = ll_portfc_classify_server(&at, &pkt, &err);
          ASSERT_EQ(run(data_to(addr_of(d)), port_, relayed ? other_ : 0), prio(q))
              << "server " << s << " port " << int(l) << " dst " << d << " relayed "
              << int(relayed);
          runs++;
        }
    }
  ll_portfc_stats st = stats();
  EXPECT_EQ(st.packets, runs);
  EXPECT_EQ(st.relayed, runs / 2);
  // Own packets for itself (16 x 2 ports) and out of the wrong port: a
  // destination differing in the other digit only (3 x 16 x 2).
  EXPECT_EQ(st.self, 32u);
  EXPECT_EQ(st.misrouted, 96u);
  EXPECT_EQ(st.unknown, 0u);
}

// Every switch of BCube(4,1) (level, fixed digit w), every destination.
TEST_F(PortfcProg, EverySwitchAgreesWithTheCore)
{
  for (std::uint8_t level = 0; level < 2; level++)
    for (std::uint32_t w = 0; w < 4; w++) {
      set_port(port_, LL_PORTFC_ROLE_SWITCH, level, w);
      for (std::uint32_t d = 0; d < 16; d++) {
        ll_portfc_where at{kB41, level, w};
        ll_portfc_pkt pkt{static_cast<ll_s32>(d), 0, 0};
        ll_portfc_class_err err;
        std::uint32_t q = ll_portfc_classify_switch(&at, &pkt, &err);
        // A bridged frame has an ingress port: no matter at a switch.
        ASSERT_EQ(run(data_to(addr_of(d)), port_, other_), prio(q)) << d;
      }
    }
  // The paper's switch 23 (level 1, w 3): dst 12 -> A-slot 0, 15 -> B.
  set_port(port_, LL_PORTFC_ROLE_SWITCH, 1, 3);
  EXPECT_EQ(run(data_to(addr_of(12)), port_), prio(1));
  EXPECT_EQ(run(data_to(addr_of(15)), port_), prio(4));
}

TEST_F(PortfcProg, ControlTrafficGoesToHq)
{
  set_port(port_, LL_PORTFC_ROLE_SERVER, 0, 15);
  EXPECT_EQ(run(data_to(addr_of(0), 0x81), port_), prio(LL_PORTFC_HQ));  // CNP
  EXPECT_EQ(run(data_to(addr_of(0), 0x11), port_), prio(LL_PORTFC_HQ));  // ACK
  EXPECT_EQ(run(data_to(addr_of(0), 0x12), port_), prio(LL_PORTFC_HQ));
  EXPECT_EQ(run(data_to(addr_of(0), 0x0a), port_), prio(1));  // RDMA write
  Frame arp(42, 0);
  arp[12] = 0x08;
  arp[13] = 0x06;
  EXPECT_EQ(run(arp, port_), prio(LL_PORTFC_HQ));
  Frame ctrl(60, 0);
  ctrl[12] = 0x88;
  ctrl[13] = 0xB6;
  EXPECT_EQ(run(ctrl, port_), prio(LL_PORTFC_HQ));
  // RoCE's port over another UDP port is data.
  Flow f;
  f.daddr = addr_of(0);
  f.dport = 4792;
  EXPECT_EQ(run(lltest::cc::roce(f, 0, 64, 0x81), port_), prio(1));
  EXPECT_EQ(stats().hq, 5u);
}

TEST_F(PortfcProg, UnknownAndUnclassifiedTrafficIsCountedNotLost)
{
  // No entry for the port: untouched, not counted.
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 0x10003), 0x10003u);
  EXPECT_EQ(stats().packets, 0u);
  // A destination without a BCube address: RQ at a server, B at a switch.
  set_port(port_, LL_PORTFC_ROLE_SERVER, 0, 15);
  EXPECT_EQ(run(data_to(0xc0a80001), port_), prio(ll_portfc_server_rq(&kB41)));
  set_port(port_, LL_PORTFC_ROLE_SWITCH, 0, 3);
  EXPECT_EQ(run(data_to(0xc0a80001), port_), prio(ll_portfc_switch_b(&kB41)));
  Frame v6 = lltest::cc::roce_ipv6(4791);
  EXPECT_EQ(run(v6, port_), prio(ll_portfc_switch_b(&kB41)));
  Frame runt(14, 0);  // a header and nothing: no address
  EXPECT_EQ(run(runt, port_), prio(ll_portfc_switch_b(&kB41)));
  ll_portfc_stats st = stats();
  EXPECT_EQ(st.unknown, 4u);
  EXPECT_EQ(st.packets, 4u);
  // Entries the program cannot use: passed untouched, counted.
  set_port(port_, LL_PORTFC_ROLE_SWITCH, 0, 4);   // w beyond n - 1
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 5), 5u);
  set_port(port_, LL_PORTFC_ROLE_SERVER, 0, 16);  // no such server
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 5), 5u);
  set_port(port_, LL_PORTFC_ROLE_SERVER, 0, 1, 9);  // n 9
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 5), 5u);
  set_port(port_, LL_PORTFC_ROLE_SERVER, 0, 1, 4, 2);  // k 2
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 5), 5u);
  set_port(port_, 3, 0, 1);  // no such role
  EXPECT_EQ(run(data_to(addr_of(0)), port_, 0, 5), 5u);
  EXPECT_EQ(stats().bad_port, 5u);
}

}  // namespace
