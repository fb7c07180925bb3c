// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The hosts' congestion control programs (bpf/lossless_cc.bpf.c) under
// BPF_PROG_TEST_RUN: frames in, verdict / frame / skb fields / maps out.
// Every test loads the skeleton afresh (private, unpinned maps), so
// counters start at zero and are compared exactly. What the programs
// compute is compared with the core's functions run on a copy here.
//
// The test thread is pinned to one CPU: the pending CNP lives in a per-CPU
// slot (ll_cc_scratch), and both test runs of a pair must see the same one.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <net/if.h>
#include <sched.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cc_frames.h"
#include "lossless_cc.skel.h"
#include "sandbox.h"
#include "test_run.h"

namespace {

using namespace lltest::cc;

using lltest::RunResult;

class CcProg : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    cpu_ = sched_getcpu();
    ASSERT_GE(cpu_, 0);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu_, &set);
    ASSERT_EQ(sched_setaffinity(0, sizeof(set), &set), 0);
    skel_ = lossless_cc__open_and_load();
    ASSERT_NE(skel_, nullptr) << "lossless_cc__open_and_load failed";
    port_ = if_nametoindex("lla");
    ASSERT_NE(port_, 0u) << "sandbox veth lla missing";
    ncpus_ = libbpf_num_possible_cpus();
    ASSERT_GT(ncpus_, 0);
  }

  void TearDown() override
  {
    if (skel_)
      lossless_cc__destroy(skel_);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < CPU_SETSIZE; i++)
      CPU_SET(i, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }

  void set_cfg(const ll_cc_config &c)
  {
    std::uint32_t zero = 0;
    ASSERT_EQ(bpf_map__update_elem(skel_->maps.ll_cc_cfg, &zero, sizeof(zero),
                                   &c, sizeof(c), 0),
              0);
  }

  RunResult run(bpf_program *prog, const Frame &in, std::uint32_t mark = 0,
                std::uint32_t prio = 0, std::uint32_t gso_segs = 0)
  {
    __sk_buff ctx_in;
    std::memset(&ctx_in, 0, sizeof(ctx_in));
    ctx_in.ifindex = port_;
    ctx_in.mark = mark;
    ctx_in.priority = prio;
    ctx_in.gso_segs = gso_segs;
    return lltest::test_run(bpf_program__fd(prog), in, ctx_in);
  }
  RunResult ingress(const Frame &f, std::uint32_t mark = 0,
                    std::uint32_t gso_segs = 0)
  {
    return run(skel_->progs.ll_cc_ingress, f, mark, 0, gso_segs);
  }
  RunResult egress(const Frame &f, std::uint32_t mark = 0,
                   std::uint32_t prio = 0)
  {
    return run(skel_->progs.ll_cc_egress, f, mark, prio);
  }

  // Runs f through prog and expects it passed untouched.
  void expect_passed(bpf_program *prog, const Frame &f)
  {
    RunResult r = run(prog, f, 0x77, 3);
    EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);
    EXPECT_EQ(r.data, f);
    EXPECT_EQ(r.ctx.mark, 0x77u);
    EXPECT_EQ(r.ctx.priority, 3u);
    EXPECT_EQ(r.ctx.tstamp, 0u);
  }

  ll_cc_stats stats()
  {
    return sum_stats(bpf_map__fd(skel_->maps.ll_cc_stats), ncpus_);
  }

  bool np(const ll_cc_flow_key &k, ll_cc_np *v)
  {
    return bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_cc_np), &k, v) == 0;
  }
  bool rp(const ll_cc_flow_key &k, ll_cc_rp *v)
  {
    return bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_cc_rp), &k, v) == 0;
  }
  unsigned flows(bpf_map *m)
  {
    ll_cc_flow_key k, next;
    unsigned n = 0;
    const void *prev = nullptr;
    while (bpf_map_get_next_key(bpf_map__fd(m), prev, &next) == 0) {
      k = next;
      prev = &k;
      n++;
    }
    return n;
  }

  // This CPU's pending CNP.
  ll_cc_cnp_pending scratch()
  {
    const std::size_t slot = (sizeof(ll_cc_cnp_pending) + 7) / 8 * 8;
    std::vector<std::uint8_t> all(slot * ncpus_);
    std::uint32_t zero = 0;
    ll_cc_cnp_pending p;
    std::memset(&p, 0, sizeof(p));
    if (bpf_map_lookup_elem(bpf_map__fd(skel_->maps.ll_cc_scratch), &zero,
                            all.data()) == 0)
      std::memcpy(&p, all.data() + slot * cpu_, sizeof(p));
    return p;
  }

  lossless_cc *skel_ = nullptr;
  std::uint32_t port_ = 0;
  int cpu_ = -1;
  int ncpus_ = 0;
};

// The verifier's work per program (this kernel's), printed for the record;
// the bound catches a change that makes it explode (the limit is 10^6).
TEST_F(CcProg, VerifierWorkWithinBudget)
{
  for (bpf_program *p : {skel_->progs.ll_cc_ingress, skel_->progs.ll_cc_egress}) {
    bpf_prog_info info;
    std::memset(&info, 0, sizeof(info));
    __u32 len = sizeof(info);
    ASSERT_EQ(bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len), 0);
    std::printf("%s: %u instructions (xlated %u octets), verified_insns %u\n",
                bpf_program__name(p), info.xlated_prog_len / 8,
                info.xlated_prog_len, info.verified_insns);
    RecordProperty(std::string(bpf_program__name(p)) + "_verified_insns",
                   static_cast<int>(info.verified_insns));
    EXPECT_LT(info.verified_insns, 200000u);
  }
}

// -------------------------------------------------------- what passes by

TEST_F(CcProg, OffPassesEverything)
{
  ll_cc_config c = pcn_config(1000000);
  c.algo = LL_CC_OFF;
  set_cfg(c);
  Flow f;
  Frame data = roce(f, kEcnCe);
  Frame cnp = cnp_frame(f, basic_cnp(f, 1, 1000));
  for (bpf_program *p : {skel_->progs.ll_cc_ingress, skel_->progs.ll_cc_egress}) {
    expect_passed(p, data);
    expect_passed(p, cnp);
  }
  // Nothing counted, no flow kept.
  ll_cc_stats st = stats();
  ll_cc_stats zero;
  std::memset(&zero, 0, sizeof(zero));
  EXPECT_EQ(std::memcmp(&st, &zero, sizeof(st)), 0);
  EXPECT_EQ(flows(skel_->maps.ll_cc_np), 0u);
  EXPECT_EQ(flows(skel_->maps.ll_cc_rp), 0u);
}

TEST_F(CcProg, NotRoceV2PassesUncounted)
{
  set_cfg(pcn_config(1000000));
  Flow f;
  Frame other_port = roce(f, kEcnCe);
  put16(other_port, kUdpOff + 2, 4790);
  Frame tcp = roce(f, kEcnCe);
  tcp[kIpOff + 9] = 6;
  Frame options = roce(f, kEcnCe);
  options[kIpOff] = 0x46;  // IHL 6: not RoCEv2 as we parse it
  Frame frag = roce(f, kEcnCe);
  put16(frag, kIpOff + 6, 0x2000);  // MF
  Frame arp(60, 0);
  put16(arp, 12, 0x0806);
  Frame runt = roce(f, kEcnCe);  // an IPv4 header, no UDP header
  runt.resize(kUdpOff + 4);
  for (bpf_program *p : {skel_->progs.ll_cc_ingress, skel_->progs.ll_cc_egress})
    for (const Frame *fr : {&other_port, &tcp, &options, &frag, &arp, &runt}) {
      expect_passed(p, *fr);
    }
  ll_cc_stats st = stats();
  EXPECT_EQ(st.np_pkts, 0u);
  EXPECT_EQ(st.rp_pkts, 0u);
  EXPECT_EQ(st.not_ipv4, 0u);
  EXPECT_EQ(st.truncated, 0u);
  EXPECT_EQ(flows(skel_->maps.ll_cc_np), 0u);
  EXPECT_EQ(flows(skel_->maps.ll_cc_rp), 0u);
}

TEST_F(CcProg, Ipv6RoceCountedAndPassed)
{
  set_cfg(pcn_config(1000000));
  Frame v6 = roce_ipv6(4791);
  expect_passed(skel_->progs.ll_cc_ingress, v6);
  expect_passed(skel_->progs.ll_cc_egress, v6);
  expect_passed(skel_->progs.ll_cc_ingress, roce_ipv6(4790));
  EXPECT_EQ(stats().not_ipv4, 2u);
}

TEST_F(CcProg, TruncatedCountedAndPassed)
{
  set_cfg(pcn_config(1000000));
  Flow f;
  // The UDP length leaves 8 octets for a 12-octet BTH.
  Frame short_udp = roce(f, kEcnCe, 0);
  put16(short_udp, kUdpOff + 4, 8 + 8);
  // The frame ends inside the BTH.
  Frame cut = roce(f, kEcnCe, 0);
  cut.resize(kBthOff + 6);
  expect_passed(skel_->progs.ll_cc_ingress, short_udp);
  expect_passed(skel_->progs.ll_cc_ingress, cut);
  expect_passed(skel_->progs.ll_cc_egress, cut);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.truncated, 3u);
  EXPECT_EQ(st.np_pkts, 0u);
  EXPECT_EQ(flows(skel_->maps.ll_cc_np), 0u);
}

// ------------------------------------------------------------------- NP

TEST_F(CcProg, NpCountsEcnExactly)
{
  ll_cc_config c = pcn_config(1000000);
  c.pcn.period_ns = 1000000000;  // 1 s: no window closes here
  set_cfg(c);
  Flow f;
  // 3 CE, one of them a GRO packet of 4 segments; 2 ECT(0); 1 Not-ECT.
  std::uint64_t bytes = 0;
  struct {
    std::uint8_t ecn;
    std::uint32_t segs;
  } pkts[] = {{kEcnCe, 0}, {kEcnEct0, 0}, {kEcnCe, 4}, {kEcnNotEct, 1},
              {kEcnEct0, 0}, {kEcnCe, 1}};
  for (auto &p : pkts) {
    Frame fr = roce(f, p.ecn, 100);
    bytes += fr.size();
    RunResult r = ingress(fr, 0x55, p.segs);
    EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);
    EXPECT_EQ(r.data, fr);
    EXPECT_EQ(r.ctx.mark, 0x55u);
  }
  ll_cc_np n;
  ASSERT_TRUE(np(f.key(), &n));
  EXPECT_EQ(n.pkts, 9u);  // segments
  EXPECT_EQ(n.ce_pkts, 6u);
  EXPECT_EQ(n.bytes, bytes);
  EXPECT_EQ(n.cnps, 0u);
  EXPECT_EQ(n.busy, 0u);
  EXPECT_EQ(n.pcn.pkts, 9u);
  EXPECT_EQ(n.pcn.ce_pkts, 6u);
  EXPECT_EQ(n.pcn.not_ect_pkts, 1u);
  EXPECT_EQ(n.pcn.bytes, bytes);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.np_pkts, 9u);
  EXPECT_EQ(st.np_ce_pkts, 6u);
  EXPECT_EQ(st.np_not_ect_pkts, 1u);
  EXPECT_EQ(st.cnps_sent + st.cnp_clone_failed, 0u);
  EXPECT_FALSE(scratch().valid);
  // The RP's egress never saw it: no RP flow; a CNP was never due.
  EXPECT_EQ(flows(skel_->maps.ll_cc_rp), 0u);

  // Roles without NP: not counted.
  c.roles = LL_CC_ROLE_RP;
  set_cfg(c);
  expect_passed(skel_->progs.ll_cc_ingress, roce(f, kEcnCe));
  EXPECT_EQ(stats().np_pkts, 9u);
}

// A packet one period after the first closes the window: the CNP is due,
// handed to the scratch slot, the clone sent with the mark, the mark of the
// packet itself restored.
TEST_F(CcProg, PcnCnpDueAfterPeriod)
{
  ll_cc_config c = pcn_config(1000000);
  // 50 ms: the test's runs must fit in a window even under QEMU's TCG.
  c.pcn.period_ns = 50000000;
  set_cfg(c);
  Flow f;
  f.dest_qp = 0xabcdef;
  Frame fr = roce(f, kEcnCe, 200);
  for (int i = 0; i < 3; i++)
    EXPECT_EQ(ingress(fr, 0x99).verdict, TC_ACT_UNSPEC);
  EXPECT_FALSE(scratch().valid);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  RunResult r = ingress(fr, 0x99);
  EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);
  EXPECT_EQ(r.data, fr);
  EXPECT_EQ(r.ctx.mark, 0x99u);  // restored after the clone

  ll_cc_cnp_pending p = scratch();
  ASSERT_EQ(p.valid, 1u);
  ll_cc_flow_key k = f.key();
  EXPECT_EQ(std::memcmp(&p.key, &k, sizeof(k)), 0);
  EXPECT_EQ(p.cnp.version, LL_CNP_VERSION);
  EXPECT_EQ(p.cnp.congested, 1);
  EXPECT_EQ(p.cnp.rate_valid, 1);
  EXPECT_EQ(p.cnp.seq, 0);
  EXPECT_EQ(p.cnp.sport, f.sport);
  EXPECT_EQ(p.cnp.dport, 4791);
  EXPECT_EQ(p.cnp.proto, 17);
  EXPECT_EQ(p.cnp.dest_qp, 0xabcdefu);
  // 3 packets over >= 100 ms: the core's rate, <= its value at 100 ms.
  ll_cc_np n;
  ASSERT_TRUE(np(f.key(), &n));
  EXPECT_EQ(n.cnps, 1u);
  EXPECT_EQ(n.cnps_congested, 1u);
  EXPECT_EQ(n.cnp_seq, 1u);
  EXPECT_EQ(n.last_rec_rate_mbps, p.cnp.rec_rate_mbps);
  EXPECT_GE(p.cnp.rec_rate_mbps, 1u);
  EXPECT_LE(p.cnp.rec_rate_mbps, ll_pcn_rate_mbps(3 * fr.size(), 100000000));
  EXPECT_EQ(n.pcn.pkts, 1u);  // the packet opened the next window
  ll_cc_stats st = stats();
  EXPECT_EQ(st.cnp_clone_failed, 0u);
  EXPECT_EQ(st.np_ce_pkts, 4u);

  // The next window held that CE packet alone: congested, seq 1. The one
  // after holds ECT and CE, 50 %: below theta, not congested, seq 2.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ingress(roce(f, kEcnEct0, 200));
  p = scratch();
  EXPECT_EQ(p.cnp.seq, 1);
  EXPECT_EQ(p.cnp.congested, 1);
  ingress(roce(f, kEcnCe, 200));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ingress(roce(f, kEcnEct0, 200));
  p = scratch();
  EXPECT_EQ(p.cnp.seq, 2);
  EXPECT_EQ(p.cnp.congested, 0);
  ASSERT_TRUE(np(f.key(), &n));
  EXPECT_EQ(n.cnps, 3u);
  EXPECT_EQ(n.cnps_congested, 2u);
  EXPECT_EQ(n.cnp_seq, 3u);
}

TEST_F(CcProg, DcqcnNpCnpOnCeOncePerInterval)
{
  ll_cc_config c = dcqcn_config(1000000);
  c.dcqcn.cnp_interval_ns = 1000000000;  // 1 s
  set_cfg(c);
  Flow f;
  ingress(roce(f, kEcnEct0));
  EXPECT_FALSE(scratch().valid);
  ingress(roce(f, kEcnCe));
  ll_cc_cnp_pending p = scratch();
  ASSERT_EQ(p.valid, 1u);
  EXPECT_EQ(p.cnp.version, LL_CNP_VERSION);
  EXPECT_EQ(p.cnp.rate_valid, 0);
  EXPECT_EQ(p.cnp.rec_rate_mbps, 0u);
  EXPECT_EQ(p.cnp.congested, 1);
  EXPECT_EQ(p.cnp.sport, f.sport);
  ingress(roce(f, kEcnCe));
  ingress(roce(f, kEcnCe));
  ll_cc_np n;
  ASSERT_TRUE(np(f.key(), &n));
  EXPECT_EQ(n.cnps, 1u);
  EXPECT_EQ(n.ce_pkts, 3u);
  EXPECT_EQ(n.pkts, 4u);
  EXPECT_EQ(n.dcqcn.sent, 1);
}

// ----------------------------------------------------------- CNP at egress

TEST_F(CcProg, EgressRewritesTheMarkedCloneIntoTheCnp)
{
  ll_cc_config c = dcqcn_config(1000000);
  c.cnp_prio = 6;
  c.cnp_dscp = 46;
  set_cfg(c);
  Flow f;
  f.dest_qp = 0x123456;
  Frame data = roce(f, kEcnCe, 300);
  ingress(data);
  ll_cc_cnp_pending p = scratch();
  ASSERT_EQ(p.valid, 1u);

  // The clone: the data packet with the mark, as bpf_clone_redirect()
  // hands it to the egress of the port.
  RunResult r = egress(data, LL_CC_CNP_MARK, 0);
  EXPECT_EQ(r.verdict, TC_ACT_OK);
  Frame want = cnp_frame(f.reversed(), p.cnp, 46);
  EXPECT_EQ(r.data.size(), static_cast<std::size_t>(LL_CNP_IPV4_FRAME_BYTES));
  EXPECT_EQ(r.data, want);
  EXPECT_EQ(r.ctx.priority, 6u);
  EXPECT_EQ(r.ctx.mark, 0u);
  EXPECT_EQ(r.ctx.tstamp, 0u);
  EXPECT_FALSE(scratch().valid);  // taken
  // What left parses as the CNP the NP decided on.
  ll_cnp got;
  ASSERT_EQ(ll_cnp_parse(r.data.data() + kBthOff, LL_CNP_BYTES, &got), LL_CNP_OK);
  EXPECT_EQ(got.dest_qp, 0x123456u);
  EXPECT_EQ(got.sport, f.sport);
  EXPECT_EQ(r.data[kIpOff + 1], (46 << 2) | 3);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.cnps_sent, 1u);
  EXPECT_EQ(st.cnp_build_failed, 0u);
  // The egress never paced the clone as data.
  EXPECT_EQ(st.rp_pkts, 0u);

  // A second clone with nothing pending, and a clone of another flow: both
  // dropped, never sent on as data.
  RunResult again = egress(data, LL_CC_CNP_MARK);
  EXPECT_EQ(again.verdict, TC_ACT_SHOT);
  // One more CNP due for f (DCQCN's interval, 50 us, has passed), then a
  // marked clone of another flow g.
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ingress(data);
  ASSERT_EQ(scratch().valid, 1u);
  Flow g = f;
  g.sport = 7777;
  EXPECT_EQ(egress(roce(g, kEcnCe, 300), LL_CC_CNP_MARK).verdict, TC_ACT_SHOT);
  EXPECT_EQ(stats().cnp_build_failed, 2u);
  EXPECT_EQ(stats().cnps_sent, 1u);
}

// bpf_clone_redirect() transmits the clone before it returns: with
// ll_cc_egress on lla's clsact egress, one test run of the ingress program
// on lla leaves this CPU's slot consumed and the CNP counted as sent.
TEST_F(CcProg, CloneReachesEgressBeforeTheHelperReturns)
{
  set_cfg(dcqcn_config(1000000));
  bpf_tc_hook hook;
  std::memset(&hook, 0, sizeof(hook));
  hook.sz = sizeof(hook);
  hook.ifindex = static_cast<int>(port_);
  hook.attach_point = BPF_TC_EGRESS;
  int err = bpf_tc_hook_create(&hook);
  ASSERT_TRUE(err == 0 || err == -EEXIST) << std::strerror(-err);
  bpf_tc_opts o;
  std::memset(&o, 0, sizeof(o));
  o.sz = sizeof(o);
  o.handle = 1;
  o.priority = 1;
  o.prog_fd = bpf_program__fd(skel_->progs.ll_cc_egress);
  err = bpf_tc_attach(&hook, &o);
  if (err == 0) {
    Flow f;
    RunResult r = ingress(roce(f, kEcnCe), 0x42);
    EXPECT_EQ(r.verdict, TC_ACT_UNSPEC);
    EXPECT_EQ(r.ctx.mark, 0x42u);
    ll_cc_stats st = stats();
    EXPECT_EQ(st.cnps_sent, 1u);
    EXPECT_EQ(st.cnp_build_failed, 0u);
    EXPECT_EQ(st.cnp_clone_failed, 0u);
    EXPECT_EQ(scratch().valid, 0u);  // taken by egress, on this CPU
  }
  hook.attach_point =
      static_cast<bpf_tc_attach_point>(BPF_TC_INGRESS | BPF_TC_EGRESS);
  bpf_tc_hook_destroy(&hook);
  ASSERT_EQ(err, 0) << "bpf_tc_attach: " << std::strerror(-err);
}

TEST_F(CcProg, EgressGrowsAShortCloneToTheWholeCnp)
{
  set_cfg(dcqcn_config(1000000));
  Flow f;
  Frame data = roce(f, kEcnCe, 0);  // 58 octets
  ASSERT_LT(data.size(), static_cast<std::size_t>(LL_CNP_IPV4_FRAME_BYTES));
  ingress(data);
  ll_cc_cnp_pending p = scratch();
  ASSERT_EQ(p.valid, 1u);
  RunResult r = egress(data, LL_CC_CNP_MARK);
  EXPECT_EQ(r.verdict, TC_ACT_OK);
  EXPECT_EQ(r.data, cnp_frame(f.reversed(), p.cnp, 0));
}

// -------------------------------------------------------------- CNP at RP

TEST_F(CcProg, CnpForAnUnknownFlowCountedAndDropped)
{
  set_cfg(pcn_config(1000000));
  Flow f;
  Frame cnp = cnp_frame(f.reversed(), basic_cnp(f, 0, 500));
  RunResult r = ingress(cnp);
  EXPECT_EQ(r.verdict, TC_ACT_SHOT);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.cnp_unknown_flow, 1u);
  EXPECT_EQ(st.cnps_received, 0u);
  EXPECT_EQ(flows(skel_->maps.ll_cc_rp), 0u);  // never created by a CNP
}

TEST_F(CcProg, GarbledCnpsCountedByParseResult)
{
  set_cfg(pcn_config(1000000));
  Flow f;
  egress(roce(f, kEcnEct0));  // the flow exists
  const Frame good = cnp_frame(f.reversed(), basic_cnp(f, 0, 500));
  struct Case {
    ll_cnp_result why;
    Frame fr;
  };
  std::vector<Case> cases;
  Frame bad_bth = good;
  bad_bth[kBthOff + 2] = 0x7f;  // P_Key
  cases.push_back({LL_CNP_BAD_BTH, bad_bth});
  Frame bad_version = good;
  bad_version[kBthOff + 17] = 2;
  cases.push_back({LL_CNP_BAD_VERSION, bad_version});
  Frame reserved = good;
  reserved[kBthOff + 16] |= 0x80;
  cases.push_back({LL_CNP_RESERVED_SET, reserved});
  Frame bad_rate = good;
  std::memset(&bad_rate[kBthOff + 12], 0, 4);  // rate_valid with RecRate 0
  cases.push_back({LL_CNP_BAD_RATE, bad_rate});
  Frame truncated = good;
  truncated.resize(truncated.size() - 8);
  put16(truncated, kUdpOff + 4, 8 + LL_CNP_BYTES - 8);
  cases.push_back({LL_CNP_TRUNCATED, truncated});
  Frame lying = good;  // UDP says 32, the frame has 20
  lying.resize(kBthOff + 20);
  cases.push_back({LL_CNP_TRUNCATED, lying});
  Frame oversize = good;
  oversize.resize(oversize.size() + 4, 0);
  put16(oversize, kUdpOff + 4, 8 + LL_CNP_BYTES + 4);
  cases.push_back({LL_CNP_OVERSIZE, oversize});

  std::uint64_t want[LL_CNP_RESULT_COUNT] = {};
  for (const Case &c : cases) {
    RunResult r = ingress(c.fr);
    EXPECT_EQ(r.verdict, TC_ACT_SHOT) << ll_cnp_result_name(c.why);
    want[c.why]++;
  }
  ll_cc_stats st = stats();
  for (unsigned i = 0; i < LL_CNP_RESULT_COUNT; i++)
    EXPECT_EQ(st.cnp_parse_error[i], want[i])
        << ll_cnp_result_name(static_cast<ll_cnp_result>(i));
  EXPECT_EQ(st.cnps_received, 0u);
  ll_cc_rp r;
  ASSERT_TRUE(rp(f.key(), &r));
  EXPECT_EQ(r.cnps, 0u);
  EXPECT_EQ(r.rate_kbps, 1000000u);
}

TEST_F(CcProg, PcnCnpAppliedAsTheCoreDoesAndStaleIgnored)
{
  ll_cc_config c = pcn_config(10000000);  // 10 Gbit/s
  set_cfg(c);
  Flow f;
  egress(roce(f, kEcnEct0));
  ll_cc_rp before;
  ASSERT_TRUE(rp(f.key(), &before));
  EXPECT_EQ(before.algo, LL_CC_PCN);
  EXPECT_EQ(before.rate_kbps, 10000000u);

  // Congested at 4000 Mbps, IP ECN CE as the flag says.
  Frame cnp = cnp_frame(f.reversed(), basic_cnp(f, 5, 4000, 1));
  EXPECT_EQ(ingress(cnp).verdict, TC_ACT_SHOT);
  ll_cc_rp after;
  ASSERT_TRUE(rp(f.key(), &after));
  ll_pcn_rp want = before.pcn;
  ll_pcn_rp_cnp(&want, &c.pcn, 1, 4000, after.last_ns);
  EXPECT_EQ(after.pcn.rate_kbps, want.rate_kbps);
  EXPECT_EQ(after.pcn.rate_kbps,
            4000000u - ((4000000ull * c.pcn.w_min_q24) >> 24));
  EXPECT_EQ(after.pcn.w_q24, want.w_q24);
  EXPECT_EQ(after.pcn.decreases, 1u);
  EXPECT_EQ(after.rate_kbps, want.rate_kbps);
  EXPECT_EQ(after.cnps, 1u);
  EXPECT_EQ(after.last_seq, 5u);
  EXPECT_EQ(after.seq_valid, 1u);

  // The same sequence number again, and an older one: ignored.
  EXPECT_EQ(ingress(cnp).verdict, TC_ACT_SHOT);
  EXPECT_EQ(ingress(cnp_frame(f.reversed(), basic_cnp(f, 4, 100, 1))).verdict,
            TC_ACT_SHOT);
  ll_cc_rp stale;
  ASSERT_TRUE(rp(f.key(), &stale));
  EXPECT_EQ(stale.pcn.rate_kbps, after.pcn.rate_kbps);
  EXPECT_EQ(stale.cnps, 1u);
  EXPECT_EQ(stale.cnps_stale, 2u);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.cnp_stale, 2u);
  EXPECT_EQ(st.cnps_received, 1u);

  // Uncongested, newer (IP ECN Not-ECT as the flag says): the increase.
  ingress(cnp_frame(f.reversed(), basic_cnp(f, 6, 9000, 0)));
  ll_cc_rp inc;
  ASSERT_TRUE(rp(f.key(), &inc));
  want = after.pcn;
  ll_pcn_rp_cnp(&want, &c.pcn, 0, 9000, inc.last_ns);
  EXPECT_EQ(inc.pcn.rate_kbps, want.rate_kbps);
  EXPECT_EQ(inc.pcn.w_q24, want.w_q24);
  EXPECT_EQ(inc.pcn.increases, 1u);

  // A bleached CNP (congested, IP ECN 0): counted, the flag wins.
  Frame bleached = cnp_frame(f.reversed(), basic_cnp(f, 7, 2000, 1));
  bleached[kIpOff + 1] &= ~3;
  ingress(bleached);
  ll_cc_rp bl;
  ASSERT_TRUE(rp(f.key(), &bl));
  want = inc.pcn;
  ll_pcn_rp_cnp(&want, &c.pcn, 1, 2000, bl.last_ns);
  EXPECT_EQ(bl.pcn.rate_kbps, want.rate_kbps);
  EXPECT_EQ(stats().cnp_ecn_mismatch, 1u);
  EXPECT_EQ(stats().cnps_received, 3u);

  // Sequence numbers wrap: after 7, 0x8005 is newer (less than half the
  // space ahead), 0xffff after it too, then 0 after 0xffff; 0x8006 is
  // more than half the space ahead of 0 and reads as older.
  for (std::uint16_t seq : {0x8005, 0xffff, 0x0000, 0x8006})
    ingress(cnp_frame(f.reversed(), basic_cnp(f, seq, 2000, 1)));
  ASSERT_TRUE(rp(f.key(), &bl));
  EXPECT_EQ(bl.cnps, 6u);
  EXPECT_EQ(bl.last_seq, 0u);
  EXPECT_EQ(bl.cnps_stale, 3u);
}

// A CNP without a RecRate under PCN: congested at the flow's own rate.
TEST_F(CcProg, PcnCnpWithoutRateCutsFromTheFlowsRate)
{
  ll_cc_config c = pcn_config(10000000);
  set_cfg(c);
  Flow f;
  egress(roce(f, kEcnEct0));
  ll_cc_rp before, after;
  ASSERT_TRUE(rp(f.key(), &before));
  ll_cnp plain = basic_cnp(f, 0, 0, 1);
  plain.version = LL_CNP_VERSION_PLAIN;  // a NIC's: zeros, no ports
  ingress(cnp_frame(f.reversed(), plain));
  EXPECT_EQ(stats().cnp_unknown_flow, 1u);  // no ports: no flow
  ll_cnp norate = basic_cnp(f, 1, 0, 1);
  norate.rate_valid = 0;
  ingress(cnp_frame(f.reversed(), norate));
  ASSERT_TRUE(rp(f.key(), &after));
  ll_pcn_rp want = before.pcn;
  ll_pcn_rp_cnp(&want, &c.pcn, 1, 10000, after.last_ns);
  EXPECT_EQ(after.pcn.rate_kbps, want.rate_kbps);
  EXPECT_EQ(after.pcn.decreases, 1u);
}

TEST_F(CcProg, DcqcnCutAsTheCoreDoes)
{
  ll_cc_config c = dcqcn_config(10000000);
  c.dcqcn.rate_timer_ns = 1000000000;
  c.dcqcn.alpha_timer_ns = 1000000000;
  set_cfg(c);
  Flow f;
  egress(roce(f, kEcnEct0));
  ll_cc_rp before, after;
  ASSERT_TRUE(rp(f.key(), &before));
  EXPECT_EQ(before.algo, LL_CC_DCQCN);
  EXPECT_EQ(before.dcqcn.rc_kbps, 10000000u);
  ll_cnp d = basic_cnp(f, 0, 0, 1);
  d.rate_valid = 0;  // DCQCN's NP's
  for (int i = 0; i < 2; i++) {
    ingress(cnp_frame(f.reversed(), d));
    ASSERT_TRUE(rp(f.key(), &after));
    ll_dcqcn_rp want = before.dcqcn;
    ll_dcqcn_rp_cnp(&want, &c.dcqcn, after.last_ns);
    EXPECT_EQ(after.dcqcn.rc_kbps, want.rc_kbps) << "CNP " << i;
    EXPECT_EQ(after.dcqcn.rt_kbps, want.rt_kbps);
    EXPECT_EQ(after.dcqcn.alpha_q24, want.alpha_q24);
    EXPECT_EQ(after.dcqcn.next_rate_ns, want.next_rate_ns);
    EXPECT_EQ(after.rate_kbps, want.rc_kbps);
    // alpha starts at 1: the first cut halves the rate.
    if (i == 0) {
      EXPECT_EQ(after.dcqcn.rc_kbps, 5000000u);
    }
    before = after;
  }
  EXPECT_EQ(after.cnps, 2u);
  EXPECT_EQ(stats().cnps_received, 2u);
}

// ---------------------------------------------------------------- pacing

TEST_F(CcProg, EgressPacesAtTheFlowsRate)
{
  ll_cc_config c = pcn_config(1000);  // 1 Mbit/s: 1000 octets = 8 ms
  set_cfg(c);
  Flow f;
  Frame fr = roce(f, kEcnEct0, 1000 - 58);
  ASSERT_EQ(fr.size(), 1000u);
  RunResult a = egress(fr, 0, 2);
  RunResult b = egress(fr);
  RunResult d = egress(fr);
  EXPECT_EQ(a.verdict, TC_ACT_UNSPEC);
  EXPECT_EQ(a.data, fr);
  EXPECT_EQ(a.ctx.priority, 2u);
  EXPECT_EQ(a.ctx.tstamp, 0u);  // on time: left alone
  const std::uint64_t dt = 1000ull * 8 * 1000000 / 1000;
  EXPECT_NE(b.ctx.tstamp, 0u);
  EXPECT_EQ(d.ctx.tstamp - b.ctx.tstamp, dt);
  ll_cc_rp r;
  ASSERT_TRUE(rp(f.key(), &r));
  EXPECT_EQ(r.next_tx_ns, d.ctx.tstamp + dt);
  // The first packet left at its arrival, which the core saw as pcn.last_ns
  // then: b's slot is dt after a's.
  EXPECT_EQ(r.pkts, 3u);
  EXPECT_EQ(r.bytes, 3000u);
  EXPECT_EQ(r.delayed_pkts, 2u);
  EXPECT_EQ(r.rate_kbps, 1000u);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.rp_pkts, 3u);
  EXPECT_EQ(st.rp_delayed_pkts, 2u);
  // Roles without RP: not paced.
  c.roles = LL_CC_ROLE_NP;
  set_cfg(c);
  expect_passed(skel_->progs.ll_cc_egress, fr);
}

TEST_F(CcProg, EgressRefusesBeyondTheHorizon)
{
  ll_cc_config c = pcn_config(1000);  // 1 Mbit/s: 1000 octets = 8 ms
  c.rp_horizon_ns = 12000000;         // 12 ms: 1.5 packets ahead
  set_cfg(c);
  Flow f;
  Frame fr = roce(f, kEcnEct0, 1000 - 58);
  RunResult a = egress(fr);  // now, next at +8 ms
  RunResult b = egress(fr);  // +8 ms (within 12), next at +16 ms
  RunResult d = egress(fr);  // +16 ms: beyond, refused
  EXPECT_EQ(a.verdict, TC_ACT_UNSPEC);
  EXPECT_EQ(b.verdict, TC_ACT_UNSPEC);
  EXPECT_EQ(d.verdict, TC_ACT_SHOT);
  ll_cc_rp r;
  ASSERT_TRUE(rp(f.key(), &r));
  // The refused packet moved nothing: the clock is b's slot + 8 ms.
  EXPECT_EQ(r.next_tx_ns, b.ctx.tstamp + 8000000ull);
  EXPECT_EQ(r.pkts, 2u);
  EXPECT_EQ(r.refused_pkts, 1u);
  ll_cc_stats st = stats();
  EXPECT_EQ(st.rp_pkts, 2u);
  EXPECT_EQ(st.rp_refused_pkts, 1u);
  // No horizon: the third one is stamped 16 ms ahead.
  c.rp_horizon_ns = 0;
  set_cfg(c);
  RunResult e = egress(fr);
  EXPECT_EQ(e.verdict, TC_ACT_UNSPEC);
  EXPECT_EQ(e.ctx.tstamp, r.next_tx_ns);
}

TEST_F(CcProg, FlowReinitialisedWhenTheAlgorithmChanges)
{
  ll_cc_config c = pcn_config(10000000);
  set_cfg(c);
  Flow f;
  egress(roce(f, kEcnEct0));
  ingress(cnp_frame(f.reversed(), basic_cnp(f, 1, 1000, 1)));
  ll_cc_rp r;
  ASSERT_TRUE(rp(f.key(), &r));
  EXPECT_LT(r.rate_kbps, 1000000u);
  ll_cc_config d = dcqcn_config(20000000);
  set_cfg(d);
  egress(roce(f, kEcnEct0));
  ASSERT_TRUE(rp(f.key(), &r));
  EXPECT_EQ(r.algo, LL_CC_DCQCN);
  EXPECT_EQ(r.dcqcn.rc_kbps, 20000000u);
  EXPECT_EQ(r.rate_kbps, 20000000u);
}

}  // namespace
