// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The TC ingress program (bpf/lossless_ingress.bpf.c) under
// BPF_PROG_TEST_RUN: frames in, verdict / frame / skb fields / map counters
// out. Every test loads a fresh program with private (unpinned) maps, so
// counters start at zero and are compared exactly.
//
// BPF_PROG_TEST_RUN builds the skb from the bytes given: VLAN tags stay
// inline (a real port usually strips the outer one into skb->vlan_tci;
// e2e_test.cpp covers that path over veth).
#include <gtest/gtest.h>

#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include <array>
#include <cstring>
#include <optional>
#include <stdexcept>

#include "frames.h"
#include "ingress.h"
#include "sandbox.h"
#include "test_run.h"

namespace {

namespace li = lossless::ingress;
using lltest::Frame;

using lltest::RunResult;

class IngressProg : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    li::Program::Options o;
    o.pin_dir = "";  // private maps
    prog_.emplace(li::Program::load(o));
    port_a_ = if_nametoindex("lla");
    port_b_ = if_nametoindex("llc");
    ASSERT_NE(port_a_, 0u) << "sandbox veth lla missing";
    ASSERT_NE(port_b_, 0u) << "sandbox veth llc missing";
    ASSERT_NE(port_a_, port_b_);
  }

  RunResult run(const Frame &in, std::uint32_t ifindex, std::uint32_t prio = 0,
                std::uint32_t mark = 0)
  {
    __sk_buff ctx_in;
    std::memset(&ctx_in, 0, sizeof(ctx_in));
    ctx_in.ifindex = ifindex;
    ctx_in.priority = prio;
    ctx_in.mark = mark;
    return lltest::test_run(prog_->prog_fd(), in, ctx_in);
  }

  li::CtrlCounters ctrl(std::uint32_t ifindex)
  {
    return prog_->maps().ctrl_counters(ifindex).value_or(li::CtrlCounters{});
  }
  li::PrioCounters data(std::uint32_t ifindex)
  {
    return prog_->maps().prio_counters(ifindex).value_or(li::PrioCounters{});
  }

  // Runs a frame that must be dropped as `why`, and checks that it was
  // left alone otherwise.
  void expect_dropped(const Frame &f, ll_parse_result why, std::uint32_t port)
  {
    auto before = ctrl(port);
    RunResult r = run(f, port, 5, 0x1234);
    EXPECT_EQ(r.verdict, TC_ACT_SHOT);
    EXPECT_EQ(r.ctx.mark, 0x1234u);
    EXPECT_EQ(r.ctx.priority, 5u);
    EXPECT_EQ(r.data, f);
    auto after = ctrl(port);
    for (unsigned i = 0; i < LL_PARSE_RESULT_COUNT; i++)
      EXPECT_EQ(after.parse_error[i] - before.parse_error[i], i == unsigned(why) ? 1u : 0u)
          << "parse result " << ll_parse_result_name(static_cast<ll_parse_result>(i));
    EXPECT_EQ(after.frames[LL_CTRL_PFC], before.frames[LL_CTRL_PFC]);
    EXPECT_EQ(after.frames[LL_CTRL_PAUSE], before.frames[LL_CTRL_PAUSE]);
  }

  // Runs a data frame, expects TC_ACT_UNSPEC (on to the next filter), an untouched frame and returns
  // the priority it was given.
  std::uint32_t classify(const Frame &f, std::uint32_t port,
                         std::uint32_t prio_in = 0)
  {
    RunResult r = run(f, port, prio_in, 0x77);
    EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);
    EXPECT_EQ(r.data, f);
    EXPECT_EQ(r.ctx.mark, 0x77u);
    return r.ctx.priority;
  }

  void expect_no_data_counted(std::uint32_t port)
  {
    EXPECT_FALSE(prog_->maps().prio_counters(port).has_value());
  }

  std::optional<li::Program> prog_;
  std::uint32_t port_a_ = 0, port_b_ = 0;
};

// ------------------------------------------------------- MAC control frames

void expect_redirected_copy(const Frame &in, const Frame &out)
{
  ASSERT_EQ(out.size(), in.size());
  EXPECT_EQ(lltest::be16_at(out, 12), LOSSLESS_CTRL_ETHERTYPE);
  EXPECT_EQ(lltest::be16_at(in, 12), LL_ETH_P_MAC_CONTROL);
  for (std::size_t i = 0; i < in.size(); i++) {
    if (i == 12 || i == 13)
      continue;
    EXPECT_EQ(out[i], in[i]) << "byte " << i;
  }
}

TEST_F(IngressProg, PfcIsRewrittenMarkedAndRedirected)
{
  Frame f = lltest::pfc(0x88, {0, 0, 0, 0x1234, 0, 0, 0, 0xffff});
  RunResult r = run(f, port_a_, 2, 0);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(r.ctx.mark, LOSSLESS_CTRL_MARK);
  EXPECT_EQ(r.ctx.priority, 2u) << "control frames keep their priority";
  expect_redirected_copy(f, r.data);

  auto c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 0u);
  EXPECT_EQ(c.dropped(), 0u);
  expect_no_data_counted(port_a_);
  EXPECT_FALSE(prog_->maps().ctrl_counters(port_b_).has_value());
}

TEST_F(IngressProg, PauseIsRewrittenMarkedAndRedirected)
{
  Frame f = lltest::pause(0xffff);
  RunResult r = run(f, port_a_);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(r.ctx.mark, LOSSLESS_CTRL_MARK);
  expect_redirected_copy(f, r.data);
  auto c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 0u);
  EXPECT_EQ(c.dropped(), 0u);
}

// A kind of our own EtherType (TOKENS, 0x88B6) is handed on as it is:
// only 0x8808 is hidden from other qdiscs.
TEST_F(IngressProg, TokensAreMarkedAndRedirectedUnchanged)
{
  Frame f = lltest::tokens(0x38, {0, 0, 0, 100, 200, 0xffff, 0, 0}, 300, 1000);
  RunResult r = run(f, port_a_, 5, 0);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(r.ctx.mark, LOSSLESS_CTRL_MARK);
  EXPECT_EQ(r.ctx.priority, 5u);
  EXPECT_EQ(r.data, f);
  auto c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_TOKENS], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 0u);
  EXPECT_EQ(c.dropped(), 0u);
  expect_no_data_counted(port_a_);

  // Truncated (37 octets), a version we do not know: counted and dropped.
  Frame cut(f.begin(), f.begin() + LL_CTRL_TOKENS_MIN_BYTES - 1);
  EXPECT_EQ(run(cut, port_a_).verdict, TC_ACT_SHOT);
  Frame v1 = f;
  v1[16] = 1;
  EXPECT_EQ(run(v1, port_a_).verdict, TC_ACT_SHOT);
  c = ctrl(port_a_);
  EXPECT_EQ(c.parse_error[LL_PARSE_TRUNCATED], 1u);
  EXPECT_EQ(c.parse_error[LL_PARSE_RESERVED_SET], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_TOKENS], 1u);
}

// PortFC's frames (ll_portfc_rx): a port takes the kinds its role hears
// (portfc.h's ll_portfc_rx_check()) and drops the others, counted; a
// server relays class B to its other ports as PORTFC_R and takes the
// frame itself unchanged. The relay's copy is sent to llc's egress for
// real (its peer lld receives it; the e2e suite checks frames on a wire).
TEST_F(IngressProg, PortfcFramesByRole)
{
  const Frame a = lltest::portfc(LL_CTRL_PORTFC_A, 0b001, 0xffff);
  const Frame b = lltest::portfc(LL_CTRL_PORTFC_B, 0b100, 0xffff);
  const Frame r = lltest::portfc(LL_CTRL_PORTFC_R, 0b010, 0);
  // No entry: not a BCube port, every PortFC frame refused.
  for (const Frame &f : {a, b, r})
    EXPECT_EQ(run(f, port_a_).verdict, TC_ACT_SHOT);
  EXPECT_EQ(ctrl(port_a_).portfc_refused, 3u);

  li::PortfcRx server;
  server.role = LL_PORTFC_ROLE_SERVER;
  server.n = 4;
  server.relay = {port_b_};
  prog_->maps().set_portfc(port_a_, server);
  RunResult got = run(a, port_a_);
  EXPECT_EQ(got.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(got.data, a);
  EXPECT_EQ(ctrl(port_a_).portfc_relayed, 0u);	// A is never relayed
  got = run(b, port_a_);
  EXPECT_EQ(got.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(got.ctx.mark, LOSSLESS_CTRL_MARK);
  EXPECT_EQ(got.data, b);	// its own opcode again after the relay's copy
  auto c = ctrl(port_a_);
  EXPECT_EQ(c.portfc_relayed, 1u);
  EXPECT_EQ(c.portfc_relay_failed, 0u);
  EXPECT_EQ(c.frames[LL_CTRL_PORTFC_A], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_PORTFC_B], 1u);
  EXPECT_EQ(run(r, port_a_).verdict, TC_ACT_SHOT);	// servers hear switches only
  // A slot beyond n - 2 (bit 3 of a 4-port switch's frame).
  EXPECT_EQ(run(lltest::portfc(LL_CTRL_PORTFC_A, 0b1000, 1), port_a_).verdict, TC_ACT_SHOT);
  EXPECT_EQ(ctrl(port_a_).portfc_refused, 5u);

  li::PortfcRx sw;
  sw.role = LL_PORTFC_ROLE_SWITCH;
  sw.n = 4;
  prog_->maps().set_portfc(port_a_, sw);
  EXPECT_EQ(run(r, port_a_).verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(run(a, port_a_).verdict, TC_ACT_SHOT);
  EXPECT_EQ(run(b, port_a_).verdict, TC_ACT_SHOT);
  c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_PORTFC_R], 1u);
  EXPECT_EQ(c.portfc_refused, 7u);
  EXPECT_EQ(c.portfc_relayed, 1u);
  expect_no_data_counted(port_a_);

  // Entries the library refuses.
  li::PortfcRx bad = sw;
  bad.relay = {port_b_};
  EXPECT_THROW(prog_->maps().set_portfc(port_a_, bad), li::Error);
  bad = server;
  bad.n = 9;
  EXPECT_THROW(prog_->maps().set_portfc(port_a_, bad), li::Error);
  bad.role = 3;
  EXPECT_THROW(prog_->maps().set_portfc(port_a_, bad), li::Error);
}

TEST_F(IngressProg, XonAndEdgeLengthsAreValid)
{
  // XON for all priorities; a PAUSE of 0 quanta (XON).
  EXPECT_EQ(run(lltest::pfc(0xff, {}), port_a_).verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(run(lltest::pause(0), port_a_).verdict, TC_ACT_REDIRECT);
  // 64 octets: the FCS some drivers leave on.
  Frame with_fcs = lltest::pfc_xoff_prio3();
  with_fcs.resize(LL_MAC_CTRL_FRAME_MAX_BYTES, 0xaa);
  RunResult r = run(with_fcs, port_a_);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  expect_redirected_copy(with_fcs, r.data);
  // Unpadded minimum frames.
  Frame pfc_min = lltest::pfc_xoff_prio3();
  pfc_min.resize(LL_PFC_FRAME_MIN_BYTES);
  EXPECT_EQ(run(pfc_min, port_a_).verdict, TC_ACT_REDIRECT);
  Frame pause_min = lltest::pause(7);
  pause_min.resize(LL_PAUSE_FRAME_MIN_BYTES);
  EXPECT_EQ(run(pause_min, port_a_).verdict, TC_ACT_REDIRECT);

  auto c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 3u);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 2u);
  EXPECT_EQ(c.dropped(), 0u);
}

TEST_F(IngressProg, TruncatedIsDropped)
{
  Frame pfc = lltest::pfc_xoff_prio3();
  pfc.resize(LL_PFC_FRAME_MIN_BYTES - 1);
  expect_dropped(pfc, LL_PARSE_TRUNCATED, port_a_);
  Frame pause = lltest::pause(1);
  pause.resize(LL_PAUSE_FRAME_MIN_BYTES - 1);
  expect_dropped(pause, LL_PARSE_TRUNCATED, port_a_);
  Frame no_opcode = lltest::pause(1);
  no_opcode.resize(LL_ETH_HLEN + 1);
  expect_dropped(no_opcode, LL_PARSE_TRUNCATED, port_a_);
  no_opcode.resize(LL_ETH_HLEN);  // the shortest frame BPF_PROG_RUN takes
  expect_dropped(no_opcode, LL_PARSE_TRUNCATED, port_a_);
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_TRUNCATED], 4u);
  EXPECT_EQ(ctrl(port_a_).dropped(), 4u);
}

TEST_F(IngressProg, OversizeIsDropped)
{
  Frame f = lltest::pfc_xoff_prio3();
  f.resize(LL_MAC_CTRL_FRAME_MAX_BYTES + 1);
  expect_dropped(f, LL_PARSE_OVERSIZE, port_a_);
  Frame big = lltest::pause(9);
  big.resize(1500, 0x5a);
  expect_dropped(big, LL_PARSE_OVERSIZE, port_a_);
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_OVERSIZE], 2u);
}

TEST_F(IngressProg, BadDestinationIsDropped)
{
  Frame unicast = lltest::pfc_xoff_prio3();
  std::memcpy(unicast.data(), lltest::kDstMac, 6);
  expect_dropped(unicast, LL_PARSE_BAD_DA, port_a_);
  Frame slow_proto = lltest::pause(3);  // 01-80-C2-00-00-02
  slow_proto[5] = 0x02;
  expect_dropped(slow_proto, LL_PARSE_BAD_DA, port_a_);
  Frame bcast = lltest::pfc_xoff_prio3();
  std::memset(bcast.data(), 0xff, 6);
  expect_dropped(bcast, LL_PARSE_BAD_DA, port_a_);
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_BAD_DA], 3u);
}

TEST_F(IngressProg, ReservedOctetSetIsDropped)
{
  for (std::uint8_t v : {0x01, 0x80, 0xff}) {
    Frame f = lltest::pfc_xoff_prio3();
    f[16] = v;
    expect_dropped(f, LL_PARSE_RESERVED_SET, port_a_);
  }
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_RESERVED_SET], 3u);
}

TEST_F(IngressProg, UnknownOpcodesAreDropped)
{
  const std::uint16_t opcodes[] = {0x0000, 0x0002, 0x0003, 0x0100,
                                   0x0102, 0x0201, 0xffff};
  for (std::uint16_t op : opcodes) {
    Frame f = lltest::pause(0x10);
    lltest::put_be16(f, 14, op);
    SCOPED_TRACE(op);
    expect_dropped(f, LL_PARSE_BAD_OPCODE, port_a_);
  }
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_BAD_OPCODE], std::size(opcodes));
  EXPECT_EQ(ctrl(port_a_).dropped(), std::size(opcodes));
  expect_no_data_counted(port_a_);
}

TEST_F(IngressProg, VlanTaggedMacControlIsDropped)
{
  expect_dropped(lltest::tagged(lltest::pfc_xoff_prio3(), LL_ETH_P_8021Q, 7, 0),
                 LL_PARSE_NOT_MAC_CTRL, port_a_);
  expect_dropped(lltest::tagged(lltest::pause(5), LL_ETH_P_8021Q, 0, 100),
                 LL_PARSE_NOT_MAC_CTRL, port_a_);
  expect_dropped(lltest::tagged(lltest::pause(5), LL_ETH_P_8021AD, 3, 20),
                 LL_PARSE_NOT_MAC_CTRL, port_a_);
  // QinQ: S-tag then C-tag, then 0x8808.
  Frame qinq = lltest::tagged(
      lltest::tagged(lltest::pfc_xoff_prio3(), LL_ETH_P_8021Q, 1, 10),
      LL_ETH_P_8021AD, 2, 20);
  expect_dropped(qinq, LL_PARSE_NOT_MAC_CTRL, port_a_);
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_NOT_MAC_CTRL], 4u);
  expect_no_data_counted(port_a_);
}

TEST_F(IngressProg, ControlCountersArePerPort)
{
  run(lltest::pfc_xoff_prio3(), port_a_);
  run(lltest::pfc_xoff_prio3(), port_a_);
  run(lltest::pause(1), port_b_);
  Frame bad = lltest::pause(1);
  bad[0] = 0x00;
  run(bad, port_b_);
  auto a = ctrl(port_a_), b = ctrl(port_b_);
  EXPECT_EQ(a.frames[LL_CTRL_PFC], 2u);
  EXPECT_EQ(a.frames[LL_CTRL_PAUSE], 0u);
  EXPECT_EQ(a.dropped(), 0u);
  EXPECT_EQ(b.frames[LL_CTRL_PFC], 0u);
  EXPECT_EQ(b.frames[LL_CTRL_PAUSE], 1u);
  EXPECT_EQ(b.parse_error[LL_PARSE_BAD_DA], 1u);
  EXPECT_EQ(b.dropped(), 1u);
  EXPECT_EQ(prog_->maps().ports(), (std::vector<std::uint32_t>{
                                       std::min(port_a_, port_b_),
                                       std::max(port_a_, port_b_)}));
}

// The device's own address (ifindex in this test's network namespace).
std::array<std::uint8_t, 6> hw_addr(const char *dev)
{
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ioctl(fd, SIOCGIFHWADDR, &ifr)) {
    if (fd >= 0)
      close(fd);
    throw std::runtime_error(std::string("SIOCGIFHWADDR ") + dev);
  }
  close(fd);
  std::array<std::uint8_t, 6> a;
  std::memcpy(a.data(), ifr.ifr_hwaddr.sa_data, 6);
  return a;
}

Frame to(Frame f, const std::array<std::uint8_t, 6> &da)
{
  std::copy(da.begin(), da.end(), f.begin());
  return f;
}

// IEEE 802.3 Annex 31B: MAC control frames to the receiving port's own
// unicast address are valid too. BPF_PROG_TEST_RUN runs eth_type_trans()
// against the ctx's ifindex, as a real receive does, so skb->pkt_type says
// whether the destination is the device's address.
TEST_F(IngressProg, ControlFramesToThePortsOwnAddressAreRedirected)
{
  auto own = hw_addr("lla");
  Frame pfc = to(lltest::pfc_xoff_prio3(), own);
  RunResult r = run(pfc, port_a_);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  EXPECT_EQ(r.ctx.mark, LOSSLESS_CTRL_MARK);
  expect_redirected_copy(pfc, r.data);
  Frame pause = to(lltest::pause(0x100), own);
  r = run(pause, port_a_);
  EXPECT_EQ(r.verdict, TC_ACT_REDIRECT);
  expect_redirected_copy(pause, r.data);
  // Unpadded (34 octets), as a software link delivers it.
  Frame short_pfc = pfc;
  short_pfc.resize(LL_PFC_FRAME_MIN_BYTES);
  EXPECT_EQ(run(short_pfc, port_a_).verdict, TC_ACT_REDIRECT);
  auto c = ctrl(port_a_);
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 2u);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 1u);
  EXPECT_EQ(c.dropped(), 0u);
}

TEST_F(IngressProg, ControlFramesToAnotherPortsAddressAreDropped)
{
  // llc's address arriving on lla: a unicast, but not lla's own.
  auto other = hw_addr("llc");
  ASSERT_NE(other, hw_addr("lla"));
  expect_dropped(to(lltest::pfc_xoff_prio3(), other), LL_PARSE_BAD_DA, port_a_);
  expect_dropped(to(lltest::pause(1), other), LL_PARSE_BAD_DA, port_a_);
  EXPECT_EQ(ctrl(port_a_).parse_error[LL_PARSE_BAD_DA], 2u);
  EXPECT_EQ(ctrl(port_a_).frames[LL_CTRL_PFC] + ctrl(port_a_).frames[LL_CTRL_PAUSE], 0u);
}

// ---------------------------------------------------------------- data frames

TEST_F(IngressProg, VlanPcpGivesPriority)
{
  Frame f = lltest::tagged(lltest::ipv4(46), LL_ETH_P_8021Q, 3, 100);
  EXPECT_EQ(classify(f, port_a_, 0), 3u);
  auto d = data(port_a_);
  EXPECT_EQ(d.prio[3].packets, 1u);
  EXPECT_EQ(d.prio[3].bytes, f.size());
  for (unsigned p = 0; p < li::kPrios; p++) {
    if (p != 3) {
      EXPECT_EQ(d.prio[p].packets, 0u) << "prio " << p;
    }
  }
  EXPECT_FALSE(prog_->maps().ctrl_counters(port_a_).has_value());
}

TEST_F(IngressProg, EveryPcpValue)
{
  for (unsigned pcp = 0; pcp < 8; pcp++)
    EXPECT_EQ(classify(lltest::tagged(lltest::arp(), LL_ETH_P_8021Q, pcp, 1),
                       port_a_, 9),
              pcp);
  // Priority-tagged (VID 0) frames carry a PCP too.
  EXPECT_EQ(classify(lltest::tagged(lltest::ipv6(0), LL_ETH_P_8021Q, 6, 0),
                     port_a_),
            6u);
  auto d = data(port_a_);
  for (unsigned p = 0; p < 8; p++)
    EXPECT_EQ(d.prio[p].packets, p == 6 ? 2u : 1u) << "prio " << p;
}

TEST_F(IngressProg, Ieee8021adOuterTagClassifies)
{
  Frame s_only = lltest::tagged(lltest::ipv4(0), LL_ETH_P_8021AD, 4, 30);
  EXPECT_EQ(classify(s_only, port_a_), 4u);
  Frame qinq = lltest::tagged(
      lltest::tagged(lltest::ipv4(0), LL_ETH_P_8021Q, 2, 10), LL_ETH_P_8021AD,
      5, 20);
  EXPECT_EQ(classify(qinq, port_a_), 5u);
  auto d = data(port_a_);
  EXPECT_EQ(d.prio[4].packets, 1u);
  EXPECT_EQ(d.prio[5].packets, 1u);
  EXPECT_EQ(d.prio[5].bytes, qinq.size());
  EXPECT_EQ(d.prio[2].packets, 0u);
}

TEST_F(IngressProg, Ipv4DscpThroughDefaultMap)
{
  // No map entries: DSCP >> 3.
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 5u);       // EF
  EXPECT_EQ(classify(lltest::ipv4(46, 3), port_a_), 5u);    // ECN CE ignored
  EXPECT_EQ(classify(lltest::ipv4(26), port_a_), 3u);       // AF31
  EXPECT_EQ(classify(lltest::ipv4(0), port_a_, 7), 0u);     // BE
  EXPECT_EQ(classify(lltest::ipv4(63), port_a_), 7u);
  EXPECT_EQ(classify(lltest::ipv4(7), port_a_), 0u);
}

TEST_F(IngressProg, Ipv4DscpThroughMapEntries)
{
  prog_->maps().set_dscp(46, 3);
  prog_->maps().set_dscp(0, 1);
  prog_->maps().set_dscp(10, 12);  // beyond PFC priorities: fine
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 3u);
  EXPECT_EQ(classify(lltest::ipv4(0), port_a_), 1u);
  EXPECT_EQ(classify(lltest::ipv4(10), port_a_), 12u);
  EXPECT_EQ(classify(lltest::ipv4(47), port_a_), 5u);  // still default
  prog_->maps().reset_dscp(46);
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 5u);
  auto d = data(port_a_);
  EXPECT_EQ(d.prio[3].packets, 1u);
  EXPECT_EQ(d.prio[1].packets, 1u);
  EXPECT_EQ(d.prio[12].packets, 1u);
  EXPECT_EQ(d.prio[5].packets, 2u);
}

TEST_F(IngressProg, Ipv6Dscp)
{
  EXPECT_EQ(classify(lltest::ipv6(46), port_a_), 5u);
  EXPECT_EQ(classify(lltest::ipv6(46, 3), port_a_), 5u);
  EXPECT_EQ(classify(lltest::ipv6(10), port_a_), 1u);  // AF11
  EXPECT_EQ(classify(lltest::ipv6(0), port_a_, 4), 0u);
  prog_->maps().set_dscp(46, 6);
  EXPECT_EQ(classify(lltest::ipv6(46), port_a_), 6u);
}

TEST_F(IngressProg, NonIpUntaggedGetsDefaultPriority)
{
  // No config: default priority 0, whatever the skb had.
  EXPECT_EQ(classify(lltest::arp(), port_a_, 9), 0u);
  prog_->maps().set_port_config(port_a_, {li::Mode::PcpDscp, 4});
  EXPECT_EQ(classify(lltest::arp(), port_a_, 9), 4u);
  EXPECT_EQ(classify(lltest::ether(0x88cc, 46), port_a_), 4u);  // LLDP
  // Not IP after all: wrong version nibble. (A frame too short for an IP
  // header cannot be tested: BPF_PROG_TEST_RUN refuses it.)
  Frame bad_v4 = lltest::ipv4(46);
  bad_v4[14] = 0x65;
  EXPECT_EQ(classify(bad_v4, port_a_), 4u);
  Frame bad_v6 = lltest::ipv6(46);
  bad_v6[14] = static_cast<std::uint8_t>(0x40 | (bad_v6[14] & 0x0f));
  EXPECT_EQ(classify(bad_v6, port_a_), 4u);
  // A second port keeps its own default.
  EXPECT_EQ(classify(lltest::arp(), port_b_, 3), 0u);
  EXPECT_EQ(data(port_a_).prio[4].packets, 4u);
  EXPECT_EQ(data(port_a_).prio[0].packets, 1u);
}

TEST_F(IngressProg, ModePcpIgnoresDscp)
{
  prog_->maps().set_port_config(port_a_, {li::Mode::Pcp, 2});
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 2u);
  EXPECT_EQ(classify(lltest::ipv6(56), port_a_), 2u);
  EXPECT_EQ(
      classify(lltest::tagged(lltest::ipv4(46), LL_ETH_P_8021Q, 1, 5), port_a_),
      1u);
}

TEST_F(IngressProg, ModeDscpIgnoresPcp)
{
  prog_->maps().set_port_config(port_a_, {li::Mode::Dscp, 1});
  // DSCP inside one and two tags.
  EXPECT_EQ(
      classify(lltest::tagged(lltest::ipv4(46), LL_ETH_P_8021Q, 3, 5), port_a_),
      5u);
  EXPECT_EQ(classify(lltest::tagged(lltest::tagged(lltest::ipv6(26),
                                                   LL_ETH_P_8021Q, 7, 5),
                                    LL_ETH_P_8021AD, 7, 6),
                     port_a_),
            3u);
  // Tagged but not IP: the default, not the PCP.
  EXPECT_EQ(classify(lltest::tagged(lltest::arp(), LL_ETH_P_8021Q, 6, 5), port_a_),
            1u);
  EXPECT_EQ(classify(lltest::ipv4(16), port_a_), 2u);
}

TEST_F(IngressProg, ModePcpDscpPrefersPcp)
{
  prog_->maps().set_port_config(port_a_, {li::Mode::PcpDscp, 7});
  EXPECT_EQ(
      classify(lltest::tagged(lltest::ipv4(46), LL_ETH_P_8021Q, 1, 5), port_a_),
      1u);
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 5u);
  EXPECT_EQ(classify(lltest::arp(), port_a_), 7u);
}

TEST_F(IngressProg, CountersPerPortAndPriority)
{
  Frame p3 = lltest::tagged(lltest::arp(), LL_ETH_P_8021Q, 3, 1);
  Frame p5 = lltest::ipv6(40);
  for (int i = 0; i < 3; i++)
    classify(p3, port_a_);
  for (int i = 0; i < 2; i++)
    classify(p5, port_b_);
  classify(p3, port_b_);

  auto a = data(port_a_), b = data(port_b_);
  for (unsigned p = 0; p < li::kPrios; p++) {
    EXPECT_EQ(a.prio[p].packets, p == 3 ? 3u : 0u) << "port a prio " << p;
    EXPECT_EQ(a.prio[p].bytes, p == 3 ? 3 * p3.size() : 0u) << "port a prio " << p;
  }
  EXPECT_EQ(b.prio[5].packets, 2u);
  EXPECT_EQ(b.prio[5].bytes, 2 * p5.size());
  EXPECT_EQ(b.prio[3].packets, 1u);
  EXPECT_EQ(b.prio[3].bytes, p3.size());
  EXPECT_EQ(b.prio[0].packets, 0u);
}

TEST_F(IngressProg, OutOfRangeMapValuesFallBack)
{
  // Values written by something other than the library: the program must
  // stay within its priorities.
  std::uint32_t key = 46;
  ll_ingress_dscp_entry e{200, 1, {0, 0}};
  ASSERT_EQ(bpf_map_update_elem(prog_->maps().dscp_fd(), &key, &e, BPF_ANY), 0);
  EXPECT_EQ(classify(lltest::ipv4(46), port_a_), 5u);

  std::uint32_t port = port_a_;
  ll_ingress_port_cfg cfg{};
  cfg.mode = 9;            // unknown: like pcp-dscp
  cfg.default_prio = 99;   // out of range: 0
  ASSERT_EQ(bpf_map_update_elem(prog_->maps().port_cfg_fd(), &port, &cfg, BPF_ANY), 0);
  EXPECT_EQ(classify(lltest::arp(), port_a_, 3), 0u);
  EXPECT_EQ(classify(lltest::tagged(lltest::arp(), LL_ETH_P_8021Q, 6, 1), port_a_),
            6u);
  EXPECT_EQ(classify(lltest::ipv6(8), port_a_), 1u);
}

}  // namespace
