// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// lossless-cc, the built binary: its help against its man page, exit codes
// (0 ok, 1 error, 2 usage) and messages naming the option and the value,
// set/show/gc/attach/detach on the sandbox's bpffs and veths (main.cpp),
// show --json, and the programs acting on the config the CLI writes.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cc.h"
#include "env.h"
#include "sandbox.h"

namespace {

namespace lc = lossless::cc;

struct CliRun {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const std::string &path)
{
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string quote(const std::string &s)
{
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs lossless-cc with args; stdout and stderr apart.
CliRun cli(const std::vector<std::string> &args)
{
  char dir[] = "/tmp/ll-cc-cli-XXXXXX";
  if (!mkdtemp(dir))
    return {};
  std::string out = std::string(dir) + "/out", err = std::string(dir) + "/err";
  std::string cmd = quote(LL_CC_CLI);
  for (const std::string &a : args)
    cmd += " " + quote(a);
  cmd += " >" + out + " 2>" + err;
  int st = std::system(cmd.c_str());
  CliRun r;
  r.rc = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  rmdir(dir);
  return r;
}

std::set<std::string> options_in(const std::string &text, const std::regex &re)
{
  std::set<std::string> found;
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    std::string o = (*it)[1];
    // groff escapes: \- is a minus.
    for (std::size_t p; (p = o.find("\\-")) != std::string::npos;)
      o.replace(p, 2, "-");
    found.insert(o);
  }
  return found;
}

// ---------------------------------------------------------------- no root

TEST(CcCli, HelpListsEveryOptionAndTheManPageAgrees)
{
  CliRun r = cli({"--help"});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char *opt :
       {"--pin-dir", "--algo", "--line-rate", "--roles", "--cnp-prio",
        "--cnp-dscp", "--period", "--w-min", "--w-max", "--theta",
        "--min-rate", "--rp-idle", "--np-idle", "--cnp-interval",
        "--rate-timer", "--alpha-timer", "--byte-counter", "--g", "--f",
        "--rai", "--rhai", "--json", "--flows", "--idle", "--verbose",
        "--help", "--version"})
    EXPECT_NE(r.out.find(std::string(opt) + " "), std::string::npos) << opt;
  for (const char *cmd : {"attach DEV", "detach DEV", "set --algo", "show",
                          "gc --idle"})
    EXPECT_NE(r.out.find(cmd), std::string::npos) << cmd;

  // The same long options in the help and in man/lossless-cc.8.
  std::set<std::string> help =
      options_in(r.out, std::regex(R"((--[a-z][a-z-]*[a-z]|--[gf]\b))"));
  std::string man = slurp(LL_MAN_DIR "/lossless-cc.8");
  ASSERT_FALSE(man.empty());
  std::set<std::string> page = options_in(
      man, std::regex(R"((\\-\\-[a-z](?:[a-z]|\\-)*[a-z]|\\-\\-[gf]\b))"));
  EXPECT_EQ(help, page);
  EXPECT_GE(help.size(), 25u);
}

TEST(CcCli, VersionAndUsageErrors)
{
  CliRun v = cli({"--version"});
  EXPECT_EQ(v.rc, 0);
  EXPECT_EQ(v.out.rfind("lossless-cc ", 0), 0u) << v.out;

  struct Case {
    std::vector<std::string> args;
    const char *says;
  } cases[] = {
      {{"--bogus", "show"}, "unknown option '--bogus'"},
      {{"show", "--period", "50us"}, "--period only applies to 'set --algo pcn'"},
      {{}, "no command given"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"attach"}, "'attach' needs more arguments"},
      {{"set", "--line-rate", "10gbit"}, "'set' needs --algo"},
      {{"set", "--algo", "timely", "--line-rate", "10gbit"}, "unknown --algo 'timely'"},
      {{"set", "--algo", "pcn"}, "needs --line-rate"},
      {{"set", "--algo", "pcn", "--line-rate", "10gbit", "--g", "1/2"},
       "--g only applies to 'set --algo dcqcn'"},
      {{"set", "--algo", "dcqcn", "--line-rate", "10gbit", "--theta", "50"},
       "--theta only applies to 'set --algo pcn'"},
      {{"gc"}, "'gc' needs --idle"},
      {{"set", "--algo"}, "--algo needs a value"},
      {{"--pin-dir", "relative", "show"}, "--pin-dir needs an absolute path"},
      {{"gc", "--idle", "1s", "--json"}, "--json does not apply to 'gc'"},
  };
  for (const Case &c : cases) {
    CliRun r = cli(c.args);
    EXPECT_EQ(r.rc, 2) << c.says << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("usage: lossless-cc"), std::string::npos) << r.err;
  }
}

// ---------------------------------------------------------------- root

class CcCliRoot : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    ASSERT_FALSE(lltest::bpffs_dir().empty());
    pin_dir_ = lltest::bpffs_dir() + "/cli_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  CliRun cc(std::vector<std::string> args)
  {
    args.insert(args.begin(), {"--pin-dir", pin_dir_});
    return cli(args);
  }

  std::string pin_dir_;
};

TEST_F(CcCliRoot, BadValuesExit1NamingOptionAndValue)
{
  const std::vector<std::string> pcn = {"set", "--algo", "pcn", "--line-rate", "10gbit"};
  const std::vector<std::string> dcqcn = {"set", "--algo", "dcqcn", "--line-rate", "10gbit"};
  struct Case {
    std::vector<std::string> base, extra;
    std::vector<const char *> says;
  } cases[] = {
      {pcn, {"--period", "0"}, {"--period '0'", "pcn-period"}},
      {pcn, {"--period", "50"}, {"--period '50'", "a unit"}},
      {pcn, {"--theta", "101"}, {"--theta '101'", "pcn-theta"}},
      {pcn, {"--w-min", "1/2", "--w-max", "1/4"},
       {"--w-min '1/2'", "--w-max '1/4'", "pcn-w-min must be at most pcn-w-max"}},
      {pcn, {"--w-min", "0"}, {"--w-min '0'", "above 0"}},
      {pcn, {"--w-max", "3/2"}, {"--w-max '3/2'", "at most 1"}},
      {pcn, {"--w-min", "1.5"}, {"--w-min '1.5'", "at most 1"}},
      {pcn, {"--w-min", "x"}, {"--w-min 'x'", "not a fraction"}},
      {pcn, {"--cnp-dscp", "64"}, {"--cnp-dscp '64'", "0 .. 63"}},
      {pcn, {"--cnp-prio", "8"}, {"--cnp-prio '8'", "0 .. 7"}},
      {pcn, {"--roles", "cp"}, {"--roles 'cp'", "np, rp"}},
      {pcn, {"--np-idle", "10us"}, {"--np-idle '10us'", "pcn-np-idle"}},
      {{"set", "--algo", "pcn", "--line-rate", "0"}, {}, {"--line-rate '0'", "pcn-line-rate"}},
      {{"set", "--algo", "pcn", "--line-rate", "10gbps"}, {}, {"--line-rate '10gbps'", "ambiguous"}},
      {{"set", "--algo", "pcn", "--line-rate", "2tbit"}, {}, {"--line-rate '2tbit'", "1.6 Tbit/s"}},
      {{"set", "--algo", "pcn", "--line-rate", "10furlongs"}, {}, {"--line-rate '10furlongs'", "unknown unit"}},
      {{"set", "--algo", "pcn", "--line-rate", "500kbit"}, {},
       {"--min-rate (default)", "--line-rate '500kbit'", "pcn-min-rate"}},
      {dcqcn, {"--g", "1"}, {"--g '1'", "dcqcn-g"}},
      {dcqcn, {"--f", "65"}, {"--f '65'", "dcqcn-f"}},
      {dcqcn, {"--byte-counter", "0"}, {"--byte-counter '0'", "dcqcn-byte-counter"}},
      {dcqcn, {"--rai", "20gbit"}, {"--rai '20gbit'", "dcqcn-rai"}},
      {dcqcn, {"--cnp-interval", "2s"}, {"--cnp-interval '2s'", "dcqcn-cnp-interval"}},
      {{"show", "--flows", "many"}, {}, {"--flows 'many'"}},
      {{"gc", "--idle", "soon"}, {}, {"--idle 'soon'"}},
  };
  ASSERT_EQ(cc(pcn).rc, 0);  // the config the refusals must leave alone
  lc::Config before = lc::Maps::open_pinned(pin_dir_).config();
  for (const Case &c : cases) {
    std::vector<std::string> args = c.base;
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    CliRun r = cc(args);
    std::string line;
    for (const auto &a : args)
      line += a + " ";
    EXPECT_EQ(r.rc, 1) << line << "\n" << r.err;
    for (const char *s : c.says)
      EXPECT_NE(r.err.find(s), std::string::npos) << line << ": " << s << "\n" << r.err;
    EXPECT_EQ(r.err.find("usage:"), std::string::npos) << line << "\n" << r.err;
  }
  EXPECT_EQ(lc::Maps::open_pinned(pin_dir_).config(), before);
}

TEST_F(CcCliRoot, SetWritesEveryParameter)
{
  // off on fresh maps (all zero): created, pinned, off.
  CliRun r0 = cc({"set", "--algo", "off"});
  ASSERT_EQ(r0.rc, 0) << r0.err;
  EXPECT_EQ(lc::Maps::open_pinned(pin_dir_).config().algo, lc::Algo::Off);

  CliRun r = cc({"set", "--algo", "pcn", "--line-rate", "25gbit", "--roles", "rp",
              "--cnp-prio", "5", "--cnp-dscp", "26", "--period", "20us",
              "--theta", "90%", "--w-min", "0.0078125", "--w-max", "1",
              "--min-rate", "10mbit", "--rp-idle", "0", "--np-idle", "2ms"});
  ASSERT_EQ(r.rc, 0) << r.err;
  lc::Config c = lc::Maps::open_pinned(pin_dir_).config();
  EXPECT_EQ(c.algo, lc::Algo::Pcn);
  EXPECT_EQ(c.roles, LL_CC_ROLE_RP);
  EXPECT_EQ(c.cnp_prio, 5);
  EXPECT_EQ(c.cnp_dscp, 26);
  EXPECT_EQ(c.pcn.line_rate_kbps, 25000000u);
  EXPECT_EQ(c.pcn.period_ns, 20000u);
  EXPECT_EQ(c.pcn.theta_pct, 90u);
  EXPECT_EQ(c.pcn.w_min_q24, LL_PCN_Q24_ONE / 128);
  EXPECT_EQ(c.pcn.w_max_q24, LL_PCN_Q24_ONE);
  EXPECT_EQ(c.pcn.min_rate_kbps, 10000u);
  EXPECT_EQ(c.pcn.rp_idle_ns, 0u);
  EXPECT_EQ(c.pcn.np_idle_ns, 2000000u);

  // A longer T takes the idle times along (20 T), unless they are given.
  r = cc({"set", "--algo", "pcn", "--line-rate", "20mbit", "--period", "10ms"});
  ASSERT_EQ(r.rc, 0) << r.err;
  c = lc::Maps::open_pinned(pin_dir_).config();
  EXPECT_EQ(c.pcn.period_ns, 10000000u);
  EXPECT_EQ(c.pcn.np_idle_ns, 200000000u);
  EXPECT_EQ(c.pcn.rp_idle_ns, 200000000u);
  EXPECT_EQ(c.rp_horizon_ns, 40000000u);  // and the horizon: 4 T
  r = cc({"set", "--algo", "pcn", "--line-rate", "20mbit", "--horizon", "0"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(lc::Maps::open_pinned(pin_dir_).config().rp_horizon_ns, 0u);
  r = cc({"set", "--algo", "pcn", "--line-rate", "20mbit", "--period", "10ms",
          "--np-idle", "0", "--rp-idle", "50ms"});
  ASSERT_EQ(r.rc, 0) << r.err;
  c = lc::Maps::open_pinned(pin_dir_).config();
  EXPECT_EQ(c.pcn.np_idle_ns, 0u);
  EXPECT_EQ(c.pcn.rp_idle_ns, 50000000u);

  r = cc({"set", "--algo", "dcqcn", "--line-rate", "100gbit", "--cnp-interval", "4us",
          "--rate-timer", "300us", "--alpha-timer", "1ms", "--byte-counter", "64kb",
          "--g", "1/16", "--f", "3", "--rai", "40mbit", "--rhai", "400mbit",
          "--min-rate", "100mbit"});
  ASSERT_EQ(r.rc, 0) << r.err;
  c = lc::Maps::open_pinned(pin_dir_).config();
  EXPECT_EQ(c.algo, lc::Algo::Dcqcn);
  EXPECT_EQ(c.roles, lc::kRolesBoth);  // set starts from the defaults
  EXPECT_EQ(c.cnp_dscp, lc::kCnpDscpDefault);
  EXPECT_EQ(c.dcqcn.line_rate_kbps, 100000000u);
  EXPECT_EQ(c.dcqcn.cnp_interval_ns, 4000u);
  EXPECT_EQ(c.dcqcn.rate_timer_ns, 300000u);
  EXPECT_EQ(c.dcqcn.alpha_timer_ns, 1000000u);
  EXPECT_EQ(c.dcqcn.byte_counter_bytes, 65536u);
  EXPECT_EQ(c.dcqcn.g_q24, LL_DCQCN_Q24_ONE / 16);
  EXPECT_EQ(c.dcqcn.f_stages, 3u);
  EXPECT_EQ(c.dcqcn.rai_kbps, 40000u);
  EXPECT_EQ(c.dcqcn.rhai_kbps, 400000u);
  EXPECT_EQ(c.dcqcn.min_rate_kbps, 100000u);
  EXPECT_EQ(c.rp_horizon_ns, 1200000u);  // 4 rate timers

  // off keeps the parameters; the programs pass everything.
  r = cc({"set", "--algo", "off"});
  ASSERT_EQ(r.rc, 0) << r.err;
  lc::Config off = lc::Maps::open_pinned(pin_dir_).config();
  EXPECT_EQ(off.algo, lc::Algo::Off);
  EXPECT_EQ(off.dcqcn.g_q24, LL_DCQCN_Q24_ONE / 16);
}

TEST_F(CcCliRoot, AttachDetachShowJsonGc)
{
  CliRun r = cc({"attach", "cca", "ccb"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("cca: attached"), std::string::npos) << r.out;
  std::uint32_t cca = if_nametoindex("cca"), ccb = if_nametoindex("ccb");
  EXPECT_TRUE(lc::attached(cca).both());
  EXPECT_TRUE(lc::attached(ccb).both());
  EXPECT_EQ(cc({"attach", "cca"}).rc, 0);  // again: replaced in place
  EXPECT_EQ(cc({"attach", "nosuchdev0"}).rc, 1);

  ASSERT_EQ(cc({"set", "--algo", "pcn", "--line-rate", "10gbit"}).rc, 0);
  // Flows, as the programs would leave them: 3 received, 1 sent.
  lc::Maps maps = lc::Maps::open_pinned(pin_dir_);
  std::uint64_t now = lc::monotonic_ns();
  for (std::uint16_t i = 0; i < 3; i++) {
    ll_cc_flow_key k{};
    inet_pton(AF_INET, "192.0.2.1", &k.saddr);
    inet_pton(AF_INET, "192.0.2.2", &k.daddr);
    k.sport = htons(5000 + i);
    k.dport = htons(4791);
    ll_cc_np v;
    std::memset(&v, 0, sizeof(v));
    v.pkts = 100 * (i + 1);
    v.bytes = 100000 * (i + 1);
    v.ce_pkts = 10 * (i + 1);
    v.cnps = i;
    v.last_ns = i == 0 ? now - 60000000000ULL : now;  // 0: a minute idle
    ASSERT_EQ(bpf_map_update_elem(maps.np_fd(), &k, &v, BPF_ANY), 0);
  }
  ll_cc_flow_key rk{};
  inet_pton(AF_INET, "192.0.2.2", &rk.saddr);
  inet_pton(AF_INET, "192.0.2.1", &rk.daddr);
  rk.sport = htons(6000);
  rk.dport = htons(4791);
  ll_cc_rp rv;
  std::memset(&rv, 0, sizeof(rv));
  rv.rate_kbps = 2500000;
  rv.bytes = 12345;
  rv.pkts = 9;
  rv.last_ns = now;
  ASSERT_EQ(bpf_map_update_elem(maps.rp_fd(), &rk, &rv, BPF_ANY), 0);

  r = cc({"show", "--json", "--flows", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);  // throws if not JSON
  EXPECT_EQ(j["pin_dir"], pin_dir_);
  EXPECT_EQ(j["config"]["algo"], "pcn");
  EXPECT_EQ(j["config"]["roles"], "np,rp");
  EXPECT_EQ(j["config"]["line_rate_kbps"], 10000000);
  EXPECT_EQ(j["config"]["pcn"]["period_ns"], LL_PCN_PERIOD_NS_DEFAULT);
  EXPECT_EQ(j["config"]["dcqcn"]["f_stages"], LL_DCQCN_F_DEFAULT);
  ASSERT_EQ(j["ports"].size(), 2u);
  for (const auto &p : j["ports"]) {
    EXPECT_TRUE(p["ingress_prog_id"].is_number());
    EXPECT_TRUE(p["egress_prog_id"].is_number());
  }
  EXPECT_EQ(j["counters"]["np_pkts"], 0);
  for (unsigned res = 1; res < LL_CNP_RESULT_COUNT; res++)
    EXPECT_TRUE(j["counters"]["cnp_parse_error"].contains(
        ll_cnp_result_name(static_cast<ll_cnp_result>(res))));
  const auto &np = j["np_flows"];
  EXPECT_EQ(np["total"], 3);
  ASSERT_EQ(np["top"].size(), 1u);
  EXPECT_EQ(np["top"][0]["sport"], 5002);  // the most bytes
  EXPECT_EQ(np["top"][0]["flow"], "192.0.2.1:5002>192.0.2.2:4791");
  EXPECT_EQ(np["top"][0]["bytes"], 300000);
  EXPECT_DOUBLE_EQ(np["top"][0]["ce_fraction"].get<double>(), 0.1);
  EXPECT_EQ(np["rest"]["flows"], 2);
  EXPECT_EQ(np["rest"]["bytes"], 300000);
  EXPECT_EQ(np["rest"]["pkts"], 300);
  const auto &rp = j["rp_flows"];
  EXPECT_EQ(rp["total"], 1);
  EXPECT_DOUBLE_EQ(rp["top"][0]["rate_mbps"].get<double>(), 2500.0);
  EXPECT_EQ(rp["rest"]["flows"], 0);

  // The table names what it shows.
  r = cc({"show", "--flows", "1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const char *s : {"algo pcn", "line-rate 10gbit", "period 50us",
                        "w-min 1/128", "cnp parse errors 0", "NP flows (received): 3 flows",
                        "192.0.2.1:5002>192.0.2.2:4791", "(2 other flows)",
                        "RP flows (sent): 1 flow", "2500.000"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  r = cc({"show", "--flows", "2"});
  EXPECT_NE(r.out.find("(1 other flow)"), std::string::npos) << r.out;

  r = cc({"gc", "--idle", "10s"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("deleted 1 of 3 NP flows and 0 of 1 RP flows"), std::string::npos)
      << r.out;
  EXPECT_EQ(maps.np_flows().size(), 2u);

  r = cc({"detach", "cca", "ccb"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_FALSE(lc::attached(cca).any());
  EXPECT_FALSE(lc::attached(ccb).any());
  r = cc({"detach", "cca"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("not attached to cca"), std::string::npos) << r.err;
  // Detach keeps the config and the flows.
  EXPECT_EQ(lc::Maps::open_pinned(pin_dir_).config().algo, lc::Algo::Pcn);
}

// A RoCEv2 data frame (RC SEND only) from 10.9.0.1:49152 to 10.9.0.2:4791
// with the given IP ECN field.
std::vector<std::uint8_t> roce_frame(std::uint8_t ecn)
{
  const std::size_t payload = 64, bth = 12;
  std::vector<std::uint8_t> f(14 + 20 + 8 + bth + payload, 0);
  std::memset(f.data(), 0xff, 6);                          // broadcast
  const std::uint8_t src[6] = {0x02, 0, 0, 0, 0, 1};
  std::memcpy(f.data() + 6, src, 6);
  f[12] = 0x08;                                            // IPv4
  std::uint8_t *ip = f.data() + 14;
  ip[0] = 0x45;
  ip[1] = ecn & 3;
  std::uint16_t tot = htons(static_cast<std::uint16_t>(f.size() - 14));
  std::memcpy(ip + 2, &tot, 2);
  ip[6] = 0x40;                                            // DF
  ip[8] = 64;
  ip[9] = 17;                                              // UDP
  inet_pton(AF_INET, "10.9.0.1", ip + 12);
  inet_pton(AF_INET, "10.9.0.2", ip + 16);
  std::uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2)
    sum += (ip[i] << 8) | ip[i + 1];
  while (sum >> 16)
    sum = (sum & 0xffff) + (sum >> 16);
  std::uint16_t csum = htons(static_cast<std::uint16_t>(~sum));
  std::memcpy(ip + 10, &csum, 2);
  std::uint8_t *udp = ip + 20;
  std::uint16_t sport = htons(49152), dport = htons(4791),
                ulen = htons(static_cast<std::uint16_t>(8 + bth + payload));
  std::memcpy(udp, &sport, 2);
  std::memcpy(udp + 2, &dport, 2);
  std::memcpy(udp + 4, &ulen, 2);
  std::uint8_t *b = udp + 8;
  b[0] = 0x04;                                             // RC SEND only
  b[1] = 0x40;                                             // migration req
  b[2] = b[3] = 0xff;                                      // P_Key
  b[7] = 0x23;                                             // dest QP 0x23
  return f;
}

// Sends frames out of dev (through its qdiscs: clsact egress runs).
void send_frames(const char *dev, const std::vector<std::uint8_t> &frame, int n)
{
  int fd = socket(AF_PACKET, SOCK_RAW, 0);
  ASSERT_GE(fd, 0);
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_ifindex = static_cast<int>(if_nametoindex(dev));
  sll.sll_halen = 6;
  std::memset(sll.sll_addr, 0xff, 6);
  for (int i = 0; i < n; i++)
    ASSERT_EQ(sendto(fd, frame.data(), frame.size(), 0,
                     reinterpret_cast<sockaddr *>(&sll), sizeof(sll)),
              static_cast<ssize_t>(frame.size()))
        << std::strerror(errno);
  close(fd);
}

// The programs act on what the CLI configured: counted with pcn, not with
// off; the NP at cca's ingress, the RP at ccb's egress.
TEST_F(CcCliRoot, ProgramsFollowTheConfigTheCliWrites)
{
  ASSERT_EQ(cc({"attach", "cca", "ccb"}).rc, 0);
  auto show = [&] {
    CliRun r = cc({"show", "--json"});
    EXPECT_EQ(r.rc, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };

  // Off (fresh maps): everything passes uncounted.
  send_frames("ccb", roce_frame(2), 3);
  nlohmann::json j = show();
  EXPECT_EQ(j["counters"]["np_pkts"], 0);
  EXPECT_EQ(j["np_flows"]["total"], 0);

  // PCN with both roles, a long T (no CNP due in this test).
  ASSERT_EQ(cc({"set", "--algo", "pcn", "--line-rate", "10gbit", "--period", "1s"}).rc, 0);
  send_frames("ccb", roce_frame(2), 5);  // ECT(0)
  send_frames("ccb", roce_frame(3), 2);  // CE
  send_frames("ccb", roce_frame(0), 1);  // Not-ECT
  j = show();
  EXPECT_EQ(j["counters"]["np_pkts"], 8);
  EXPECT_EQ(j["counters"]["np_ce_pkts"], 2);
  EXPECT_EQ(j["counters"]["np_not_ect_pkts"], 1);
  ASSERT_EQ(j["np_flows"]["total"], 1);
  const auto &f = j["np_flows"]["top"][0];
  EXPECT_EQ(f["flow"], "10.9.0.1:49152>10.9.0.2:4791");
  EXPECT_EQ(f["pkts"], 8);
  EXPECT_EQ(f["ce_pkts"], 2);
  EXPECT_DOUBLE_EQ(f["ce_fraction"].get<double>(), 0.25);
  EXPECT_GE(f["bytes"].get<std::uint64_t>(), 8u * (roce_frame(0).size() - 14));
  // ccb's egress paced what it sent (the RP role), at line rate.
  EXPECT_GE(j["counters"]["rp_pkts"].get<std::uint64_t>(), 8u);
  ASSERT_EQ(j["rp_flows"]["total"], 1);
  EXPECT_DOUBLE_EQ(j["rp_flows"]["top"][0]["rate_mbps"].get<double>(), 10000.0);

  // NP only: ccb's egress no longer paces.
  ASSERT_EQ(cc({"set", "--algo", "pcn", "--line-rate", "10gbit", "--period", "1s",
                "--roles", "np"}).rc, 0);
  std::uint64_t rp_before = j["counters"]["rp_pkts"];
  send_frames("ccb", roce_frame(2), 4);
  j = show();
  EXPECT_EQ(j["counters"]["np_pkts"], 12);
  EXPECT_EQ(j["counters"]["rp_pkts"], rp_before);

  // Off again: not counted; gc empties the maps.
  ASSERT_EQ(cc({"set", "--algo", "off"}).rc, 0);
  send_frames("ccb", roce_frame(3), 4);
  j = show();
  EXPECT_EQ(j["counters"]["np_pkts"], 12);
  ASSERT_EQ(cc({"gc", "--idle", "0"}).rc, 0);
  j = show();
  EXPECT_EQ(j["np_flows"]["total"], 0);
  EXPECT_EQ(j["rp_flows"]["total"], 0);
  ASSERT_EQ(cc({"detach", "cca", "ccb"}).rc, 0);
}

TEST_F(CcCliRoot, ShowWithoutMapsSaysWhatToDo)
{
  CliRun r = cc({"show"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("no lossless cc maps pinned in " + pin_dir_), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("hint: "), std::string::npos) << r.err;
}

}  // namespace
