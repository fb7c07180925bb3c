// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The hosts' congestion control programs end to end on the sandbox's veth
// pair lla/llb (main.cpp): both programs attached to both ends (clsact,
// libbpf's bpf_tc_attach), one map set. lla sends CE-marked RoCEv2 data
// with an AF_PACKET socket (through lla's egress: the RP's flow is created
// and paced); llb's ingress is the NP, whose clone its egress turns into
// the CNP; the CNP crosses back and lla's ingress applies and consumes it.
// A packet socket on lla sees the CNP arrive (taps run before the clsact
// ingress hook) and the test compares it with the core's own frame.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "cc_frames.h"
#include "ingress.h"
#include "lossless_cc.skel.h"
#include "sandbox.h"

namespace {

using namespace lltest::cc;
using Clock = std::chrono::steady_clock;

// The device's MAC address (sysfs shows the host's namespace, not ours).
void read_mac(const char *dev, std::uint8_t mac[6])
{
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  ifreq ifr;
  std::memset(&ifr, 0, sizeof(ifr));
  std::strncpy(ifr.ifr_name, dev, IFNAMSIZ - 1);
  int rc = fd >= 0 ? ioctl(fd, SIOCGIFHWADDR, &ifr) : -1;
  if (fd >= 0)
    close(fd);
  if (rc)
    throw std::runtime_error(std::string("no MAC address for ") + dev);
  std::memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
}

class CcE2E : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    skel_ = lossless_cc__open_and_load();
    ASSERT_NE(skel_, nullptr);
    a_ = static_cast<int>(if_nametoindex("lla"));
    b_ = static_cast<int>(if_nametoindex("llb"));
    ASSERT_GT(a_, 0);
    ASSERT_GT(b_, 0);
    ncpus_ = libbpf_num_possible_cpus();
    read_mac("lla", flow_.src_mac);
    read_mac("llb", flow_.dst_mac);
    flow_.sport = 50000;
    flow_.dest_qp = 0x000077;
    attach(a_);
    attach(b_);
    sock_ = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
    ASSERT_GE(sock_, 0) << std::strerror(errno);
    sockaddr_ll sll;
    std::memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = a_;
    ASSERT_EQ(bind(sock_, reinterpret_cast<sockaddr *>(&sll), sizeof(sll)), 0);
  }

  void TearDown() override
  {
    if (sock_ >= 0)
      close(sock_);
    for (int ifindex : {a_, b_}) {
      if (ifindex <= 0 || !skel_)
        continue;
      bpf_tc_hook hook;
      std::memset(&hook, 0, sizeof(hook));
      hook.sz = sizeof(hook);
      hook.ifindex = ifindex;
      hook.attach_point =
          static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
      bpf_tc_hook_destroy(&hook);  // removes clsact with our filters
    }
    if (skel_)
      lossless_cc__destroy(skel_);
  }

  // ingress_pref: where ll_cc_ingress goes on the ingress hook.
  void attach(int ifindex, std::uint32_t ingress_pref = 1)
  {
    bpf_tc_hook hook;
    std::memset(&hook, 0, sizeof(hook));
    hook.sz = sizeof(hook);
    hook.ifindex = ifindex;
    hook.attach_point = BPF_TC_INGRESS;
    int err = bpf_tc_hook_create(&hook);
    ASSERT_TRUE(err == 0 || err == -EEXIST) << std::strerror(-err);
    struct {
      bpf_tc_attach_point point;
      bpf_program *prog;
    } hooks[] = {{BPF_TC_INGRESS, skel_->progs.ll_cc_ingress},
                 {BPF_TC_EGRESS, skel_->progs.ll_cc_egress}};
    for (auto &h : hooks) {
      hook.attach_point = h.point;
      bpf_tc_opts o;
      std::memset(&o, 0, sizeof(o));
      o.sz = sizeof(o);
      o.handle = 1;
      o.priority = h.point == BPF_TC_INGRESS ? ingress_pref : 1;
      o.flags = BPF_TC_F_REPLACE;
      o.prog_fd = bpf_program__fd(h.prog);
      err = bpf_tc_attach(&hook, &o);
      ASSERT_EQ(err, 0) << "bpf_tc_attach: " << std::strerror(-err);
    }
  }

  void set_cfg(const ll_cc_config &c)
  {
    std::uint32_t zero = 0;
    ASSERT_EQ(bpf_map_update_elem(bpf_map__fd(skel_->maps.ll_cc_cfg), &zero,
                                  &c, 0),
              0);
  }

  void send(const Frame &f)
  {
    sockaddr_ll to;
    std::memset(&to, 0, sizeof(to));
    to.sll_family = AF_PACKET;
    to.sll_ifindex = a_;
    to.sll_halen = 6;
    std::memcpy(to.sll_addr, flow_.dst_mac, 6);
    ASSERT_EQ(sendto(sock_, f.data(), f.size(), 0,
                     reinterpret_cast<sockaddr *>(&to), sizeof(to)),
              static_cast<ssize_t>(f.size()))
        << std::strerror(errno);
  }

  // The first CNP lla receives within the timeout.
  std::optional<Frame> capture_cnp(int timeout_ms)
  {
    auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < end) {
      pollfd p = {sock_, POLLIN, 0};
      int left = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                      end - Clock::now())
                                      .count());
      if (poll(&p, 1, left > 0 ? left : 0) <= 0)
        continue;
      Frame buf(2048);
      sockaddr_ll from;
      socklen_t len = sizeof(from);
      ssize_t n = recvfrom(sock_, buf.data(), buf.size(), 0,
                           reinterpret_cast<sockaddr *>(&from), &len);
      if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING)
        continue;
      buf.resize(static_cast<std::size_t>(n));
      if (buf.size() >= kBthOff + 1 && get16(buf, 12) == 0x0800 &&
          buf[kIpOff + 9] == 17 && get16(buf, kUdpOff + 2) == LL_CNP_UDP_PORT &&
          buf[kBthOff] == LL_CNP_BTH_OPCODE)
        return buf;
    }
    return std::nullopt;
  }

  ll_cc_stats stats()
  {
    return sum_stats(bpf_map__fd(skel_->maps.ll_cc_stats), ncpus_);
  }

  // Until the RP has applied n CNPs (softirq, after sendto returned).
  ll_cc_stats wait_applied(std::uint64_t n)
  {
    auto end = Clock::now() + std::chrono::seconds(2);
    ll_cc_stats st = stats();
    while (st.cnps_received < n && Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      st = stats();
    }
    return st;
  }

  bool rp(ll_cc_rp *v)
  {
    ll_cc_flow_key k = flow_.key();
    return bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_cc_rp), &k, v) == 0;
  }
  bool np(ll_cc_np *v)
  {
    ll_cc_flow_key k = flow_.key();
    return bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_cc_np), &k, v) == 0;
  }

  lossless_cc *skel_ = nullptr;
  int a_ = 0, b_ = 0, ncpus_ = 0, sock_ = -1;
  Flow flow_;
};

TEST_F(CcE2E, PcnCongestedWindowCutsTheSendersRate)
{
  // T = 50 ms: the window must outlast the sends even under QEMU's TCG
  // (about 0.5 ms a frame on 6.1 there); the rates are low, so the floor
  // is lower still.
  ll_cc_config c = pcn_config(10000000);  // 10 Gbit/s
  c.pcn.period_ns = 50000000;
  c.pcn.min_rate_kbps = 10;
  c.cnp_prio = 5;
  c.cnp_dscp = 48;
  set_cfg(c);
  const int kFrames = 10;
  Frame data = roce(flow_, kEcnCe, 1000);
  for (int i = 0; i < kFrames; i++)
    send(data);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  send(data);  // closes the window: all CE, congested

  std::optional<Frame> cnp = capture_cnp(2000);
  ll_cc_stats st = wait_applied(1);
  ASSERT_TRUE(cnp.has_value()) << "no CNP came back to lla";
  EXPECT_EQ(st.np_pkts, kFrames + 1u);
  EXPECT_EQ(st.np_ce_pkts, kFrames + 1u);
  EXPECT_EQ(st.cnps_sent, 1u);
  EXPECT_EQ(st.cnps_received, 1u);
  EXPECT_EQ(st.rp_pkts, kFrames + 1u);
  EXPECT_EQ(st.cnp_clone_failed, 0u);
  EXPECT_EQ(st.cnp_build_failed, 0u);
  EXPECT_EQ(st.cnp_unknown_flow, 0u);
  EXPECT_EQ(st.cnp_ecn_mismatch, 0u);
  EXPECT_EQ(st.cnp_stale, 0u);

  ll_cc_np n;
  ASSERT_TRUE(np(&n));
  EXPECT_EQ(n.cnps, 1u);
  const std::uint32_t rec = n.last_rec_rate_mbps;
  EXPECT_GE(rec, 1u);
  // kFrames frames over >= 100 ms.
  EXPECT_LE(rec, ll_pcn_rate_mbps(kFrames * data.size(), 100000000));

  // On the wire: exactly the core's frame for that CNP, addresses swapped.
  ll_cnp want = basic_cnp(flow_, 0, rec, 1);
  EXPECT_EQ(*cnp, cnp_frame(flow_.reversed(), want, 48));
  ll_cnp got;
  ASSERT_EQ(ll_cnp_parse(cnp->data() + kBthOff,
                         static_cast<ll_u32>(get16(*cnp, kUdpOff + 4) - 8), &got),
            LL_CNP_OK);
  EXPECT_EQ(got.rec_rate_mbps, rec);
  EXPECT_EQ(got.congested, 1);
  EXPECT_EQ(got.sport, flow_.sport);
  EXPECT_EQ(got.dest_qp, flow_.dest_qp);

  // The sender's rate: what the core makes of that CNP from line rate,
  // rec_rate * (1 - w_min).
  ll_cc_rp r;
  ASSERT_TRUE(rp(&r));
  ll_pcn_rp w;
  ll_pcn_rp_init(&w, &c.pcn, 0);
  ll_pcn_rp_cnp(&w, &c.pcn, 1, rec, r.last_ns);
  EXPECT_EQ(r.pcn.rate_kbps, w.rate_kbps);
  EXPECT_EQ(r.pcn.rate_kbps,
            std::max<std::uint64_t>(c.pcn.min_rate_kbps,
                                    rec * 1000ull -
                                        ((rec * 1000ull * c.pcn.w_min_q24) >> 24)));
  EXPECT_EQ(r.rate_kbps, w.rate_kbps);
  EXPECT_EQ(r.cnps, 1u);
  EXPECT_EQ(r.pcn.decreases, 1u);

  // The next frames leave at that rate: back to back, the second one is
  // given a departure in the future.
  std::uint64_t delayed = r.delayed_pkts;
  send(data);
  send(data);
  ASSERT_TRUE(rp(&r));
  EXPECT_GE(r.delayed_pkts, delayed + 1);
}

// As the CLIs attach them: lossless-ingress's program first on lla's
// ingress (its pref 1), ll_cc_ingress after it (pref 2, lossless-cc's).
// A data frame or CNP that lossless-ingress passes on must reach the next
// filter: it returns TC_ACT_UNSPEC (TC_ACT_OK would end the chain, and
// the RP would never see a CNP).
TEST_F(CcE2E, CnpReachesTheRpBehindLosslessIngress)
{
  bpf_tc_hook hook;
  std::memset(&hook, 0, sizeof(hook));
  hook.sz = sizeof(hook);
  hook.ifindex = a_;
  hook.attach_point = BPF_TC_INGRESS;
  bpf_tc_opts o;
  std::memset(&o, 0, sizeof(o));
  o.sz = sizeof(o);
  o.handle = 1;
  o.priority = 1;
  ASSERT_EQ(bpf_tc_detach(&hook, &o), 0);
  lossless::ingress::Program li = lossless::ingress::Program::load({.pin_dir = "", .load_program = true});
  li.attach(static_cast<std::uint32_t>(a_));
  attach(a_, 2);

  ll_cc_config c = pcn_config(10000000);
  c.pcn.period_ns = 50000000;
  c.pcn.min_rate_kbps = 10;
  set_cfg(c);
  Frame data = roce(flow_, kEcnCe, 1000);
  for (int i = 0; i < 5; i++)
    send(data);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  send(data);  // closes the window: a congested CNP back to lla
  ll_cc_stats st = wait_applied(1);
  EXPECT_EQ(st.cnps_sent, 1u);
  EXPECT_EQ(st.cnps_received, 1u) << "the CNP did not reach ll_cc_ingress behind lossless-ingress";
  EXPECT_EQ(st.cnp_unknown_flow, 0u);
  ll_cc_rp r;
  ASSERT_TRUE(rp(&r));
  EXPECT_EQ(r.pcn.decreases, 1u);
  auto prio = li.maps().prio_counters(static_cast<std::uint32_t>(a_));
  ASSERT_TRUE(prio.has_value());
  std::uint64_t seen = 0;
  for (const auto &p : prio->prio)
    seen += p.packets;
  EXPECT_GE(seen, 1u) << "lossless-ingress saw the CNP first";
}

TEST_F(CcE2E, DcqcnCeCutsTheSendersRateByHalfAlpha)
{
  ll_cc_config c = dcqcn_config(10000000);
  c.dcqcn.rate_timer_ns = 1000000000;  // no recovery during the test
  c.dcqcn.alpha_timer_ns = 1000000000;
  set_cfg(c);
  send(roce(flow_, kEcnEct0, 500));  // not CE: nothing
  send(roce(flow_, kEcnCe, 500));    // CE: a CNP at once

  std::optional<Frame> cnp = capture_cnp(2000);
  ll_cc_stats st = wait_applied(1);
  ASSERT_TRUE(cnp.has_value()) << "no CNP came back to lla";
  EXPECT_EQ(st.cnps_sent, 1u);
  EXPECT_EQ(st.cnps_received, 1u);
  EXPECT_EQ(st.np_ce_pkts, 1u);
  ll_cnp got;
  ASSERT_EQ(ll_cnp_parse(cnp->data() + kBthOff, LL_CNP_BYTES, &got), LL_CNP_OK);
  EXPECT_EQ(got.version, LL_CNP_VERSION);
  EXPECT_EQ(got.rate_valid, 0);
  EXPECT_EQ(got.congested, 1);
  EXPECT_EQ(*cnp, cnp_frame(flow_.reversed(), basic_cnp(flow_, 0, 0, 1), 0));

  ll_cc_rp r;
  ASSERT_TRUE(rp(&r));
  ll_dcqcn_rp w;
  ll_dcqcn_rp_init(&w, &c.dcqcn);
  ll_dcqcn_rp_cnp(&w, &c.dcqcn, r.last_ns);
  EXPECT_EQ(r.dcqcn.rc_kbps, w.rc_kbps);
  EXPECT_EQ(r.dcqcn.rc_kbps, 5000000u);  // alpha 1: by half
  EXPECT_EQ(r.dcqcn.alpha_q24, w.alpha_q24);
  EXPECT_EQ(r.dcqcn.cnps, 1u);
}

}  // namespace
