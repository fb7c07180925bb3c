// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The numbers the documentation quotes, computed by the core
// (kernel/core/headroom.c, shaper.c, mmu.c) as the kernel computes them,
// must appear in the documents that quote them: a change of the formula
// (the catch-up term was one) fails here until the docs follow, and a doc
// edit that breaks a number fails too. Each number is searched in the form
// the doc prints it ("79682 bytes", "headroom 0b/79682b", ...).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"

extern "C" {
#include "headroom.h"
#include "mmu.h"
#include "shaper.h"
}

namespace {

constexpr ll_u64 kMs = 1000000;
constexpr ll_u32 kDevFrame = 1514;             // veth: MTU 1500 + Ethernet header
constexpr ll_u32 kPoolFrame = kDevFrame + 4;  // the pool's MTU: + a VLAN tag

std::string doc(const std::string &name)
{
  std::ifstream f(std::string(LL_SOURCE_DIR) + "/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

void expect_in(const std::string &name, const std::string &text)
{
  EXPECT_NE(doc(name).find(text), std::string::npos) << name << " does not say: " << text;
}

// A port as the qdisc configures it: its catch-up the default (sw-delay at
// the rate, at least the default burst).
ll_mmu_port_config port(ll_u64 rate_bps, ll_u64 cable_ns, ll_u64 sw_ns)
{
  ll_mmu_port_config pc{};
  pc.rate_bps = rate_bps;
  pc.cable_delay_ns = cable_ns;
  pc.sw_response_ns = sw_ns;
  pc.shaper_burst_bytes = ll_shaper_default_catchup_bytes(
      rate_bps, sw_ns, ll_shaper_default_burst_bytes(rate_bps, kDevFrame));
  return pc;
}

ll_u64 headroom(ll_u64 rate_bps, ll_u64 cable_ns, ll_u64 sw_ns)
{
  ll_mmu_port_config pc = port(rate_bps, cable_ns, sw_ns);
  ll_headroom_params h{};
  h.rate_bps = rate_bps;
  h.cable_delay_ns = cable_ns;
  h.sw_response_ns = sw_ns;
  h.mtu_bytes = kPoolFrame;
  h.shaper_burst_bytes = pc.shaper_burst_bytes;
  return ll_headroom_bytes(&h);
}

std::string n(ll_u64 v) { return std::to_string(v); }

// docs/MMU.md's worked examples and sizing notes, CONFIGURATION.md's and
// DAEMON.md's examples of the formula.
TEST(DocNumbers, HeadroomExamples)
{
  const ll_u64 h10g = headroom(10000000000ULL, 500, 1 * kMs);
  EXPECT_EQ(h10g, 2509708u);  // CONFIGURATION.md's own sum, by hand
  expect_in("docs/MMU.md", "| **H** | **" + n(h10g) + " bytes per lossless priority** |");
  expect_in("docs/CONFIGURATION.md", "= " + n(h10g) + " bytes at 10 Gbit/s");
  const ll_u64 carve = 2 * h10g + 8 * kPoolFrame;
  expect_in("docs/MMU.md", "2 x " + n(h10g) + " + 8 x 1518 = " + n(carve) + " bytes");
  EXPECT_GT(carve, 4ULL << 20) << "MMU.md: the default 4 MiB buffer holds no such port";
  expect_in("docs/MMU.md", "the shared region is " + n((48ULL << 20) - 8 * carve) + " bytes");

  const ll_u64 h5m = headroom(5000000, 0, 60 * kMs);
  expect_in("docs/MMU.md", "| **H** | **" + n(h5m) + " bytes** |");
  expect_in("docs/CONFIGURATION.md", "= " + n(h5m) + " bytes at 5 Mbit/s");
  expect_in("docs/DAEMON.md", "= " + n(h5m) + " bytes.");
  expect_in("docs/MMU.md", "9 x " + n(h5m) + " = " + n(9 * h5m) + " bytes");
  expect_in("docs/MMU.md", "would get " + n(headroom(5000000, 0, 1 * kMs)) + " bytes");
  expect_in("docs/MMU.md", "H = " + n(headroom(5000000, 2 * kMs, 60 * kMs)) + " bytes.");
  // veth without rate: 10 Gbit/s, no cable, the default sw-delay.
  const ll_u64 veth = headroom(10000000000ULL, 0, 1 * kMs);
  expect_in("docs/MMU.md", n(veth) + " bytes per lossless priority with the default 1");
  expect_in("docs/CONFIGURATION.md", "(" + n(veth) + " bytes)");
}

// The three-port switch of docs/MMU.md (buffer 2mb, lossless-prios 3,
// 5 Mbit/s, sw-delay 60ms): its partition, and the sample printouts of
// tc -s qdisc show in MMU.md and CONFIGURATION.md.
TEST(DocNumbers, ThreePortSwitch)
{
  ll_mmu_config cfg{};
  cfg.total_bytes = 2 << 20;
  cfg.max_ports = LL_MMU_MAX_PORTS;
  cfg.mtu_bytes = kPoolFrame;
  cfg.reserved_bytes = kPoolFrame;
  cfg.xon_offset_bytes = 2 * kPoolFrame;
  cfg.alpha = {1, 3};
  cfg.egress_alpha = {1, 0};
  cfg.lossless_mask = 1u << 3;
  std::vector<ll_u64> mem((LL_MMU_POOL_BYTES(LL_MMU_MAX_PORTS) + 7) / 8);
  auto *pool = reinterpret_cast<ll_mmu_pool *>(mem.data());
  ASSERT_EQ(ll_mmu_pool_init(pool, &cfg), LL_MMU_OK);
  for (ll_u32 i = 0; i < 3; i++) {
    ll_mmu_port_config pc = port(5000000, 0, 60 * kMs);
    ASSERT_EQ(ll_mmu_port_attach(pool, i, &pc, 0), LL_MMU_OK);
  }
  ll_mmu_pool_stats ps{};
  ll_mmu_get_pool_stats(pool, &ps);
  ll_mmu_iq_stats iq{};
  ASSERT_EQ(ll_mmu_get_iq_stats(pool, 0, 3, 0, &iq), 0);

  expect_in("docs/MMU.md", "reserved    " + n(ps.reserved_size) + " B");
  expect_in("docs/MMU.md", "headroom   " + n(ps.headroom_size) + " B");
  expect_in("docs/MMU.md", "shared    " + n(ps.shared_size) + " B");
  for (const char *name : {"docs/MMU.md", "docs/CONFIGURATION.md"}) {
    expect_in(name, "shared " + n(ps.shared_size) + "b used 0b peak 0b  headroom " +
                        n(ps.headroom_size) + "b used 0b peak 0b");
    expect_in(name, "headroom 0b/" + n(iq.headroom_size) + "b peak 0b threshold " +
                        n(iq.threshold) + "b");
  }
  expect_in("docs/CONFIGURATION.md", "\"pool_shared_size\":" + n(ps.shared_size) + ",");
  expect_in("docs/CONFIGURATION.md", "\"pool_headroom_size\":" + n(ps.headroom_size) + ",");
  expect_in("docs/CONFIGURATION.md", "\"headroom_size\":" + n(iq.headroom_size) + ",");
  expect_in("docs/CONFIGURATION.md", "\"threshold\":" + n(iq.threshold) + ",");
}

// Numbers from before the catch-up term (issue 29) appear nowhere.
TEST(DocNumbers, NoOldNumbers)
{
  const std::vector<std::string> docs = {
      "README.md",        "docs/MMU.md",         "docs/CONFIGURATION.md", "docs/DAEMON.md",
      "man/losslessd.8", "man/tc-lossless.8", "man/losslessctl.8"};
  for (const auto &d : docs) {
    std::string text = doc(d);
    for (const char *old : {"1259708", "1258458", "1.26 MB", "42182b", "1934174", "126546b",
                            "241771b"})
      EXPECT_EQ(text.find(old), std::string::npos) << d << " still says " << old;
  }
}

// One spelling per setting (issue 29): a key is spelled as tc spells it
// (sw-delay, pfcwd-detect = "200ms"), everywhere. Every old spelling the
// configuration parser refuses (config::old_spellings(): each key's form
// with '_', the watchdog's tables of milliseconds) and losslessctl set's
// old keys appear in no document, but in the parser's own refusal ("...:
// renamed; write ...") and as the JSON fields and C struct fields that
// keep '_' ("sw_delay": in tc -j, options.sw_delay, egress_alpha of
// struct ll_pool_config).
TEST(DocSpelling, NoOldSpelling)
{
  namespace fs = std::filesystem;
  std::vector<std::string> docs = {"README.md"};
  for (const char *dir : {"docs", "man"})
    for (const auto &e : fs::directory_iterator(std::string(LL_SOURCE_DIR) + "/" + dir))
      if (e.path().extension() == ".md" || e.path().extension() == ".8")
        docs.push_back(std::string(dir) + "/" + e.path().filename().string());
  std::vector<std::string> old = lossless::config::old_spellings();
  for (const char *k : {"sw-delay-us", "interval-us"})  // losslessctl set's, now times
    old.push_back(k);
  ASSERT_GT(old.size(), 30u) << "the parser's old spellings";
  for (const char *must : {"sw_delay", "detection_time_ms", "[pool.watchdog]", "bifrost_rtt",
                           "lossless_prios", "cable_length", "pin_dir", "w_min"})
    EXPECT_NE(std::find(old.begin(), old.end(), must), old.end()) << must;
  // Names that keep '_' where they are not a key: the fields tc -s and
  // tc -j print (iproute2's style; "" for every document), and in one
  // document each a C field, a JSON field or a paper's symbol.
  const std::vector<std::pair<std::string, std::string>> not_a_key = {
      {"", "line_rate"},
      {"", "xoff_alarm"},
      {"", "pfcwd_detect"},
      {"", "pfcwd_restore"},
      {"", "pfcwd_poll"},
      {"docs/DSH.md", "ewma_shift"},                // struct ll_dsh_params
      {"docs/SPFC.md", "irc_th_packets"},           // struct ll_spfc_params
      {"docs/DAEMON.md", "egress_alpha"},           // struct config::Pool
      {"docs/CONFIGURATION.md", "default_prio"},    // lossless-ingress show --json
      {"docs/PCN.md", "w_min"},                     // the PCN paper's symbols
      {"docs/PCN.md", "w_max"}};
  auto allowed = [&](const std::string &d, const std::string &o) {
    for (const auto &[doc_name, name] : not_a_key)
      if (name == o && (doc_name.empty() || doc_name == d))
        return true;
    return false;
  };
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  int lines = 0;
  for (const auto &d : docs) {
    std::istringstream in(doc(d));
    std::string line;
    for (int n = 1; std::getline(in, line); n++) {
      if (line.find("renamed; write") != std::string::npos)
        continue;
      for (std::size_t p; (p = line.find("\\-")) != std::string::npos;)  // roff's minus
        line.replace(p, 2, "-");
      lines++;
      for (const std::string &o : old)
        for (std::size_t at = allowed(d, o) ? std::string::npos : line.find(o);
             at != std::string::npos; at = line.find(o, at + 1)) {
          char before = at ? line[at - 1] : ' ';
          char after = at + o.size() < line.size() ? line[at + o.size()] : ' ';
          bool bracket = o[0] == '[';
          if (!bracket && (word(before) || before == '.' || before == '"' || before == '-' ||
                           word(after) || after == '"' || after == '-'))
            continue;  // part of another name, a JSON or struct field
          ADD_FAILURE() << d << ":" << n << ": old spelling " << o << ": " << line;
        }
    }
  }
  EXPECT_GT(lines, 1000);
}

}  // namespace
