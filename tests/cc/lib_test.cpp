// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The ll_cc library: pins and their reuse, attach/detach at clsact ingress
// and egress (beside lossless-ingress's filter), the config round trip and
// its refusals, the per-CPU counters, the flow maps, gc and the top-N
// view. Runs in the sandbox of main.cpp.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cc.h"
#include "env.h"
#include "sandbox.h"

namespace {

namespace lc = lossless::cc;
namespace li = lossless::ingress;

bool file_exists(const std::string &p)
{
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

std::uint32_t map_id(int fd)
{
  bpf_map_info info;
  std::uint32_t len = sizeof(info);
  std::memset(&info, 0, sizeof(info));
  EXPECT_EQ(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
  return info.id;
}

// The output of a shell command.
std::string sh_out(const std::string &cmd)
{
  std::string out;
  FILE *f = popen(cmd.c_str(), "r");
  if (!f)
    return out;
  char buf[512];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), f))
    out.append(buf, n);
  pclose(f);
  return out;
}

std::size_t count(const std::string &hay, const std::string &needle)
{
  std::size_t n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos;
       pos = hay.find(needle, pos + 1))
    n++;
  return n;
}

ll_cc_flow_key flow(const char *src, std::uint16_t sport, const char *dst)
{
  ll_cc_flow_key k;
  std::memset(&k, 0, sizeof(k));
  inet_pton(AF_INET, src, &k.saddr);
  inet_pton(AF_INET, dst, &k.daddr);
  k.sport = htons(sport);
  k.dport = htons(4791);
  return k;
}

class CcLib : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    ASSERT_FALSE(lltest::bpffs_dir().empty());
    // A fresh pin directory per test, inside the private bpffs.
    pin_dir_ = lltest::bpffs_dir() + "/cc_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  lc::Program load(bool with_prog = true)
  {
    lc::Program::Options o;
    o.pin_dir = pin_dir_;
    o.load_program = with_prog;
    return lc::Program::load(o);
  }

  std::string pin_dir_;
};

TEST_F(CcLib, PinsTheFourSharedMapsAndReusesThem)
{
  EXPECT_FALSE(lc::Maps::pinned(pin_dir_));
  lc::Config cfg = lc::Config::defaults(lc::Algo::Pcn, 25000000);
  std::uint32_t np_id;
  {
    lc::Program p = load();
    EXPECT_GE(p.ingress_fd(), 0);
    EXPECT_GE(p.egress_fd(), 0);
    p.maps().set_config(cfg);
    np_id = map_id(p.maps().np_fd());
  }
  for (const char *m : {LL_CC_MAP_CFG, LL_CC_MAP_NP, LL_CC_MAP_RP, LL_CC_MAP_STATS})
    EXPECT_TRUE(file_exists(pin_dir_ + "/" + m)) << m;
  EXPECT_FALSE(file_exists(pin_dir_ + "/ll_cc_scratch"));  // private
  EXPECT_TRUE(lc::Maps::pinned(pin_dir_));

  // A second load (the daemon, another run of the CLI) sees the same maps.
  lc::Program again = load();
  EXPECT_EQ(again.maps().config(), cfg);
  EXPECT_EQ(map_id(again.maps().np_fd()), np_id);
  // And so does a reader that loads no program.
  lc::Maps ro = lc::Maps::open_pinned(pin_dir_);
  EXPECT_EQ(ro.config(), cfg);
  EXPECT_EQ(map_id(ro.np_fd()), np_id);
}

TEST_F(CcLib, MapsOnlyLoadHasNoProgramToAttach)
{
  lc::Program p = load(false);
  EXPECT_EQ(p.ingress_fd(), -1);
  EXPECT_EQ(p.egress_fd(), -1);
  EXPECT_TRUE(lc::Maps::pinned(pin_dir_));
  EXPECT_THROW(p.attach(if_nametoindex("cca")), lc::Error);
  // A fresh config map: all zero, algo off.
  EXPECT_EQ(p.maps().config().algo, lc::Algo::Off);
}

TEST_F(CcLib, OpenPinnedWithoutPinsSaysWhatToDo)
{
  try {
    lc::Maps::open_pinned(pin_dir_);
    FAIL() << "no pins, no maps";
  } catch (const lc::Error &e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_NE(std::string(e.hint()).find("lossless-cc attach"), std::string::npos);
  }
}

TEST_F(CcLib, RefusesAPinnedMapOfAnotherLayout)
{
  li::mkdir_p(pin_dir_);
  // An ll_cc_cfg of the wrong value size, as an older version might leave.
  int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, LL_CC_MAP_CFG, 4, 8, 1, nullptr);
  ASSERT_GE(fd, 0);
  std::string path = pin_dir_ + "/" + LL_CC_MAP_CFG;
  ASSERT_EQ(bpf_obj_pin(fd, path.c_str()), 0);
  close(fd);
  try {
    load();
    FAIL() << "a stale pin was reused";
  } catch (const lc::Error &e) {
    EXPECT_NE(std::string(e.what()).find("different layout"), std::string::npos)
        << e.what();
    EXPECT_NE(e.hint().find("rm " + path), std::string::npos) << e.hint();
  }
}

TEST_F(CcLib, AttachPutsBothFiltersDetachRemovesThem)
{
  std::uint32_t port = if_nametoindex("cca");
  ASSERT_NE(port, 0u);
  EXPECT_FALSE(lc::attached(port).any());
  lc::Program p = load();
  lc::Attached ids = p.attach(port);
  ASSERT_TRUE(ids.both());
  lc::Attached seen = lc::attached(port);
  EXPECT_EQ(seen.ingress, ids.ingress);
  EXPECT_EQ(seen.egress, ids.egress);
  EXPECT_NE(*ids.ingress, *ids.egress);

  std::string in = sh_out("tc filter show dev cca ingress");
  std::string out = sh_out("tc filter show dev cca egress");
  EXPECT_NE(in.find("pref 2 bpf chain 0 handle 0x4c43 ll_cc_ingress"), std::string::npos) << in;
  EXPECT_NE(out.find("pref 1 bpf chain 0 handle 0x4c43 ll_cc_egress"), std::string::npos) << out;

  // Twice: replaced in place, still one filter per hook.
  lc::Attached again = p.attach(port);
  EXPECT_EQ(again.ingress, ids.ingress);
  in = sh_out("tc filter show dev cca ingress");
  out = sh_out("tc filter show dev cca egress");
  EXPECT_EQ(count(in, "handle 0x4c43"), 1u) << in;
  EXPECT_EQ(count(out, "handle 0x4c43"), 1u) << out;

  // Beside lossless-ingress's filter (pref 1, handle 0x4c4c): no collision.
  li::Program::Options io;
  io.pin_dir = pin_dir_ + "_ingress";
  li::Program ing = li::Program::load(io);
  std::uint32_t ing_id = ing.attach(port);
  EXPECT_EQ(lc::attached(port).ingress, ids.ingress);
  EXPECT_EQ(li::attached_prog_id(port), ing_id);

  lc::detach(port);
  EXPECT_FALSE(lc::attached(port).any());
  EXPECT_EQ(li::attached_prog_id(port), ing_id);  // untouched
  try {
    lc::detach(port);
    FAIL() << "detached twice";
  } catch (const lc::Error &e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_NE(std::string(e.what()).find("cca"), std::string::npos);
  }
  li::detach(port);
}

TEST_F(CcLib, DetachRemovesAHalfAttachment)
{
  std::uint32_t port = if_nametoindex("ccb");
  lc::Program p = load();
  p.attach(port);
  // Someone removed the ingress filter by hand: detach takes the other.
  ASSERT_EQ(lltest::sh("tc filter del dev ccb ingress pref 2 handle 0x4c43 bpf"), 0);
  lc::Attached half = lc::attached(port);
  EXPECT_FALSE(half.ingress);
  EXPECT_TRUE(half.egress);
  lc::detach(port);
  EXPECT_FALSE(lc::attached(port).any());
}

TEST_F(CcLib, ConfigRoundTrip)
{
  lc::Program p = load(false);
  lc::Config pcn = lc::Config::defaults(lc::Algo::Pcn, 10000000);
  EXPECT_EQ(pcn.roles, lc::kRolesBoth);
  EXPECT_EQ(pcn.cnp_prio, lc::kCnpPrioDefault);
  EXPECT_EQ(pcn.cnp_dscp, lc::kCnpDscpDefault);
  EXPECT_EQ(pcn.pcn.period_ns, LL_PCN_PERIOD_NS_DEFAULT);
  EXPECT_EQ(pcn.line_rate_kbps(), 10000000u);
  pcn.roles = LL_CC_ROLE_RP;
  pcn.cnp_prio = 3;
  pcn.cnp_dscp = 26;
  pcn.pcn.period_ns = 20000;
  pcn.pcn.theta_pct = 80;
  pcn.pcn.w_min_q24 = LL_PCN_Q24_ONE / 64;
  pcn.pcn.w_max_q24 = LL_PCN_Q24_ONE;
  pcn.pcn.np_idle_ns = 0;
  p.maps().set_config(pcn);
  EXPECT_EQ(p.maps().config(), pcn);

  lc::Config dcqcn = lc::Config::defaults(lc::Algo::Dcqcn, 100000000);
  dcqcn.dcqcn.g_q24 = LL_DCQCN_Q24_ONE / 16;
  dcqcn.dcqcn.f_stages = 3;
  dcqcn.dcqcn.byte_counter_bytes = 1 << 20;
  p.maps().set_config(dcqcn);
  lc::Config back = p.maps().config();
  EXPECT_EQ(back, dcqcn);
  EXPECT_EQ(back.line_rate_kbps(), 100000000u);

  lc::Config off = dcqcn;
  off.algo = lc::Algo::Off;
  p.maps().set_config(off);
  EXPECT_EQ(p.maps().config(), off);
  EXPECT_EQ(p.maps().config().line_rate_kbps(), 0u);
  EXPECT_FALSE(p.maps().config() == dcqcn);

  // The bytes the programs read: the layout of lossless_cc.h.
  ll_cc_config raw;
  std::uint32_t key = 0;
  p.maps().set_config(pcn);
  ASSERT_EQ(bpf_map_lookup_elem(p.maps().cfg_fd(), &key, &raw), 0);
  EXPECT_EQ(raw.algo, LL_CC_PCN);
  EXPECT_EQ(raw.roles, LL_CC_ROLE_RP);
  EXPECT_EQ(raw.cnp_prio, 3);
  EXPECT_EQ(raw.cnp_dscp, 26);
  EXPECT_EQ(raw.reserved, 0u);
  EXPECT_EQ(raw.pcn.period_ns, 20000u);
  EXPECT_EQ(raw.pcn.w_max_q24, LL_PCN_Q24_ONE);
}

TEST_F(CcLib, InvalidConfigRefusedNamingTheParameter)
{
  lc::Program p = load(false);
  lc::Config good = lc::Config::defaults(lc::Algo::Pcn, 10000000);
  p.maps().set_config(good);
  struct Case {
    const char *what;
    void (*edit)(lc::Config &);
    const char *name;
  };
  const Case cases[] = {
      {"period 0", [](lc::Config &c) { c.pcn.period_ns = 0; }, "pcn-period"},
      {"w_min > w_max",
       [](lc::Config &c) {
         c.pcn.w_min_q24 = LL_PCN_Q24_ONE / 2;
         c.pcn.w_max_q24 = LL_PCN_Q24_ONE / 4;
       },
       "pcn-w-min"},
      {"theta 101", [](lc::Config &c) { c.pcn.theta_pct = 101; }, "pcn-theta"},
      {"line rate 0", [](lc::Config &c) { c.pcn.line_rate_kbps = 0; }, "pcn-line-rate"},
      {"dcqcn line rate 0",
       [](lc::Config &c) {
         c.algo = lc::Algo::Dcqcn;
         c.dcqcn.line_rate_kbps = 0;
       },
       "dcqcn-line-rate"},
      {"dcqcn g 1",
       [](lc::Config &c) {
         c.algo = lc::Algo::Dcqcn;
         c.dcqcn.g_q24 = LL_DCQCN_Q24_ONE;
       },
       "dcqcn-g"},
      {"cnp-dscp 64", [](lc::Config &c) { c.cnp_dscp = 64; }, "cnp-dscp"},
      {"cnp-prio 8", [](lc::Config &c) { c.cnp_prio = 8; }, "cnp-prio"},
      {"no roles", [](lc::Config &c) { c.roles = 0; }, "roles"},
      {"unknown role", [](lc::Config &c) { c.roles = 4; }, "roles"},
  };
  for (const Case &tc : cases) {
    lc::Config bad = good;
    tc.edit(bad);
    EXPECT_NE(lc::check(bad).find(tc.name), std::string::npos)
        << tc.what << ": " << lc::check(bad);
    try {
      p.maps().set_config(bad);
      ADD_FAILURE() << tc.what << " accepted";
    } catch (const lc::Error &e) {
      EXPECT_EQ(e.code(), EINVAL) << tc.what;
      EXPECT_NE(std::string(e.what()).find(tc.name), std::string::npos)
          << tc.what << ": " << e.what();
    }
    EXPECT_EQ(p.maps().config(), good) << tc.what << " changed the config";
  }
  // Off is always valid: nothing else is read (all zero is off).
  lc::Config off = good;
  off.algo = lc::Algo::Off;
  off.pcn.period_ns = 0;
  off.roles = 0;
  EXPECT_EQ(lc::check(off), "");
  p.maps().set_config(off);
  EXPECT_EQ(p.maps().config(), off);
}

TEST_F(CcLib, NamesAndRoles)
{
  for (lc::Algo a : {lc::Algo::Off, lc::Algo::Pcn, lc::Algo::Dcqcn})
    EXPECT_EQ(lc::parse_algo(lc::algo_name(a)), a);
  EXPECT_FALSE(lc::parse_algo("timely"));
  EXPECT_EQ(lc::parse_roles("np"), LL_CC_ROLE_NP);
  EXPECT_EQ(lc::parse_roles("rp"), LL_CC_ROLE_RP);
  EXPECT_EQ(lc::parse_roles("np,rp"), lc::kRolesBoth);
  EXPECT_EQ(lc::parse_roles("rp,np"), lc::kRolesBoth);
  EXPECT_EQ(lc::parse_roles("both"), lc::kRolesBoth);
  for (const char *bad : {"", "np,", ",rp", "np,np", "cp", "np rp"})
    EXPECT_FALSE(lc::parse_roles(bad)) << bad;
  EXPECT_EQ(lc::roles_text(lc::kRolesBoth), "np,rp");
  EXPECT_EQ(lc::roles_text(LL_CC_ROLE_RP), "rp");
  EXPECT_EQ(lc::roles_text(0), "none");
  EXPECT_EQ(lc::flow_text(flow("10.0.0.1", 49152, "10.0.0.2")),
            "10.0.0.1:49152>10.0.0.2:4791");
}

TEST_F(CcLib, StatsSumOverCpus)
{
  lc::Program p = load(false);
  int ncpus = libbpf_num_possible_cpus();
  ASSERT_GT(ncpus, 0);
  std::vector<ll_cc_stats> per(ncpus);
  std::memset(per.data(), 0, per.size() * sizeof(ll_cc_stats));
  for (int c = 0; c < ncpus; c++) {
    per[c].np_pkts = c + 1;
    per[c].cnps_sent = 2;
    per[c].cnp_parse_error[LL_CNP_BAD_BTH] = 10 * (c + 1);
    per[c].truncated = 1;
  }
  std::uint32_t key = 0;
  ASSERT_EQ(bpf_map_update_elem(p.maps().stats_fd(), &key, per.data(), BPF_ANY), 0);
  lc::Stats s = p.maps().stats();
  std::uint64_t n = ncpus;
  EXPECT_EQ(s.np_pkts, n * (n + 1) / 2);
  EXPECT_EQ(s.cnps_sent, 2 * n);
  EXPECT_EQ(s.cnp_parse_error[LL_CNP_BAD_BTH], 10 * n * (n + 1) / 2);
  EXPECT_EQ(s.cnp_parse_error[LL_CNP_TRUNCATED], 0u);
  EXPECT_EQ(s.truncated, n);
  EXPECT_EQ(s.rp_pkts, 0u);
}

TEST_F(CcLib, FlowsListedAndIdleOnesCollected)
{
  lc::Program p = load(false);
  std::uint64_t now = lc::monotonic_ns();
  const std::uint64_t sec = 1000000000ULL;
  // NP: two fresh flows, one idle for 10 s. Written as userspace may
  // (lossless_cc.h): busy 0, no BPF_F_LOCK (no spin lock in an LRU value).
  struct NpIn {
    ll_cc_flow_key key;
    std::uint64_t bytes, last_ns;
  } np_in[] = {
      {flow("10.0.0.1", 1000, "10.0.0.9"), 5000, now - sec / 1000},
      {flow("10.0.0.2", 1001, "10.0.0.9"), 9000, now},
      {flow("10.0.0.3", 1002, "10.0.0.9"), 100, now - 10 * sec},
  };
  for (const NpIn &f : np_in) {
    ll_cc_np v;
    std::memset(&v, 0, sizeof(v));
    v.pkts = f.bytes / 100;
    v.bytes = f.bytes;
    v.ce_pkts = f.bytes / 1000;
    v.cnps = 7;
    v.last_ns = f.last_ns;
    v.last_rec_rate_mbps = 2500;
    ASSERT_EQ(bpf_map_update_elem(p.maps().np_fd(), &f.key, &v, BPF_ANY), 0)
        << std::strerror(errno);
  }
  // RP: one fresh, one idle, one from the "future" (another clock's
  // reading must never be taken as idle).
  struct RpIn {
    ll_cc_flow_key key;
    std::uint64_t rate_kbps, last_ns;
  } rp_in[] = {
      {flow("10.0.0.9", 2000, "10.0.0.1"), 4000000, now},
      {flow("10.0.0.9", 2001, "10.0.0.2"), 1000, now - 5 * sec},
      {flow("10.0.0.9", 2002, "10.0.0.3"), 2000, now + 100 * sec},
  };
  for (const RpIn &f : rp_in) {
    ll_cc_rp v;
    std::memset(&v, 0, sizeof(v));
    v.algo = LL_CC_PCN;
    v.rate_kbps = f.rate_kbps;
    v.pcn.rate_kbps = f.rate_kbps;
    v.pkts = 10;
    v.bytes = 15000;
    v.cnps = 2;
    v.last_ns = f.last_ns;
    ASSERT_EQ(bpf_map_update_elem(p.maps().rp_fd(), &f.key, &v, BPF_ANY), 0)
        << std::strerror(errno);
  }

  std::vector<lc::NpFlow> np = p.maps().np_flows();
  ASSERT_EQ(np.size(), 3u);
  for (const NpIn &f : np_in) {
    auto it = std::find_if(np.begin(), np.end(), [&](const lc::NpFlow &x) {
      return std::memcmp(&x.key, &f.key, sizeof(f.key)) == 0;
    });
    ASSERT_NE(it, np.end());
    EXPECT_EQ(it->state.bytes, f.bytes);
    EXPECT_EQ(it->state.last_ns, f.last_ns);
    EXPECT_EQ(it->state.cnps, 7u);
    lc::FlowSummary s = lc::summary(*it);
    EXPECT_EQ(s.rate_kbps, 2500000u);
    EXPECT_EQ(s.ce_pkts, f.bytes / 1000);
  }
  std::vector<lc::RpFlow> rp = p.maps().rp_flows();
  ASSERT_EQ(rp.size(), 3u);
  for (const lc::RpFlow &f : rp) {
    EXPECT_EQ(f.state.algo, LL_CC_PCN);
    EXPECT_EQ(lc::summary(f).rate_kbps, f.state.rate_kbps);
    EXPECT_EQ(lc::summary(f).ce_pkts, 0u);
  }

  // Idle for more than 1 s: one NP flow, one RP flow.
  lc::GcResult r = p.maps().gc(sec, now);
  EXPECT_EQ(r.np_deleted, 1u);
  EXPECT_EQ(r.np_kept, 2u);
  EXPECT_EQ(r.rp_deleted, 1u);
  EXPECT_EQ(r.rp_kept, 2u);
  np = p.maps().np_flows();
  ASSERT_EQ(np.size(), 2u);
  for (const lc::NpFlow &f : np)
    EXPECT_NE(f.state.bytes, 100u);
  rp = p.maps().rp_flows();
  ASSERT_EQ(rp.size(), 2u);
  for (const lc::RpFlow &f : rp)
    EXPECT_NE(f.state.rate_kbps, 1000u);

  // Nothing more is idle for a day; everything at 0 ns.
  r = p.maps().gc(86400 * sec, now);
  EXPECT_EQ(r.np_deleted + r.rp_deleted, 0u);
  r = p.maps().gc(0, now + 200 * sec);
  EXPECT_EQ(r.np_deleted, 2u);
  EXPECT_EQ(r.rp_deleted, 2u);
  EXPECT_TRUE(p.maps().np_flows().empty());
  EXPECT_TRUE(p.maps().rp_flows().empty());
}

lc::FlowSummary fs(std::uint16_t sport, std::uint64_t bytes, std::uint64_t rate)
{
  lc::FlowSummary f;
  f.key = flow("10.1.0.1", sport, "10.1.0.2");
  f.bytes = bytes;
  f.pkts = bytes / 1000;
  f.ce_pkts = bytes / 10000;
  f.cnps = 1;
  f.rate_kbps = rate;
  f.last_ns = sport;
  return f;
}

TEST(CcTop, TheNBiggestAndTheRestSummed)
{
  std::vector<lc::FlowSummary> flows = {
      fs(1, 1000, 10), fs(2, 50000, 20), fs(3, 30000, 30),
      fs(4, 30000, 40), fs(5, 20000, 50),
  };
  lc::TopView v = lc::top(flows, 2);
  EXPECT_EQ(v.total_flows, 5u);
  ASSERT_EQ(v.top.size(), 2u);
  EXPECT_EQ(ntohs(v.top[0].key.sport), 2);
  EXPECT_EQ(ntohs(v.top[1].key.sport), 4);  // a tie on bytes: higher rate
  EXPECT_EQ(v.rest.flows, 3u);
  EXPECT_EQ(v.rest.bytes, 1000u + 30000 + 20000);
  EXPECT_EQ(v.rest.pkts, 1u + 30 + 20);
  EXPECT_EQ(v.rest.ce_pkts, 0u + 3 + 2);
  EXPECT_EQ(v.rest.cnps, 3u);
  EXPECT_EQ(v.rest.rate_kbps, 10u + 30 + 50);
  EXPECT_EQ(v.rest.last_ns, 5u);  // the latest

  lc::TopView all = lc::top(flows, 10);
  EXPECT_EQ(all.top.size(), 5u);
  EXPECT_EQ(all.rest.flows, 0u);
  EXPECT_EQ(all.rest.bytes, 0u);

  lc::TopView none = lc::top(flows, 0);
  EXPECT_TRUE(none.top.empty());
  EXPECT_EQ(none.rest.flows, 5u);
  EXPECT_EQ(none.rest.bytes, 131000u);

  lc::TopView empty = lc::top({}, 3);
  EXPECT_EQ(empty.total_flows, 0u);
  EXPECT_TRUE(empty.top.empty());
  EXPECT_EQ(empty.rest.flows, 0u);
}

}  // namespace
