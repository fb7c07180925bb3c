// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's configuration file (daemon/config, docs/DAEMON.md): a full
// file, the defaults, and every invalid case with its exact messages.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "config.h"
#include "ll_units.h"

namespace {

using namespace lossless::config;

// A file with one pool and one port; extra goes into the pool (from line
// 4), the port (from line 8) or [daemon] (from line 2).
std::string in_pool(const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n" + extra +
         "\n\n[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n";
}

std::string in_port(const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n\n[[port]]\ndev = \"swp1\"\npool = "
         "\"sw0\"\n" +
         extra + "\n";
}

std::string in_daemon(const std::string &extra)
{
  return "[daemon]\n" + extra + "\n\n" + in_pool("");
}

// The errors of text, or a single "parsed" if it is valid.
std::vector<std::string> errors_of(const std::string &text)
{
  try {
    parse_string(text, "t.toml");
  } catch (const ConfigError &e) {
    return e.errors();
  }
  return {"parsed"};
}

constexpr const char *kFull = R"(# every key
[daemon]
pin-dir = "/sys/fs/bpf/ll"
socket = "/run/ll/d.sock"
period = "500us"
prometheus = "127.0.0.1:9464"

[[pool]]
name = "sw0"
buffer = "2mb"
lossless-prios = [3]
policy = "pfc-dt"
alpha = "1/8"
egress-alpha = "1"
reserved = "1518b"
xon-offset = "3036b"
sw-delay = "60ms"
ecn = { kmin = "30kb", kmax = "100kb", pmax = 0.2 }

[[pool]]
name = "sw1.b-2"
policy = "pfc-dt"
alpha = "3/4"
egress-alpha = 2
lossless-prios = []

[[port]]
dev = "swp1"
pool = "sw0"
rate = "10gbit"
cable-delay = "500ns"
mtu = 9000
queues = 4
headroom = "64kb"
ingress = "dscp"
default-prio = 3

[[port]]
dev = "swp2"
pool = "sw0"
rate = "auto"
cable-length = "100m"
ingress = "pcp"

[[port]]
dev = "eth0.100"
pool = "sw1.b-2"
rate = "1.25GBps"
)";

TEST(Config, FullFileSetsEveryField)
{
  Config c = parse_string(kFull, "full.toml");
  EXPECT_EQ(c.source, "full.toml");
  EXPECT_EQ(c.daemon.pin_dir, "/sys/fs/bpf/ll");
  EXPECT_EQ(c.daemon.socket, "/run/ll/d.sock");
  EXPECT_EQ(c.daemon.period_ns, 500000u);
  ASSERT_TRUE(c.daemon.prometheus);
  EXPECT_EQ(c.daemon.prometheus->address, "127.0.0.1");
  EXPECT_EQ(c.daemon.prometheus->port, 9464);
  EXPECT_FALSE(c.daemon.prometheus->ipv6);
  EXPECT_TRUE(c.daemon.prometheus->loopback);

  ASSERT_EQ(c.pools.size(), 2u);
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.name, "sw0");
  EXPECT_EQ(p.line, 8u);
  EXPECT_EQ(p.policy, "pfc-dt");
  EXPECT_EQ(p.buffer_bytes, 2097152u);
  EXPECT_EQ(p.lossless_mask, 0x08);
  EXPECT_EQ(p.alpha, (1u << 8) | 3);
  EXPECT_EQ(p.egress_alpha, 1u << 8);
  EXPECT_EQ(p.reserved_bytes, 1518u);
  EXPECT_EQ(p.xon_offset_bytes, 3036u);
  EXPECT_EQ(p.sw_delay_ns, 60000000u);
  ASSERT_TRUE(p.ecn);
  EXPECT_EQ(p.ecn->kmin_bytes, 30720u);
  EXPECT_EQ(p.ecn->kmax_bytes, 102400u);
  EXPECT_EQ(p.ecn->pmax, 13107u);  // 0.2 x 65536, rounded, as tc
  const Pool &q = c.pools[1];
  EXPECT_EQ(q.name, "sw1.b-2");
  EXPECT_EQ(q.line, 20u);
  EXPECT_EQ(q.alpha, (3u << 8) | 2);
  EXPECT_EQ(q.egress_alpha, 2u << 8);
  EXPECT_EQ(q.lossless_mask, 0);
  EXPECT_FALSE(q.ecn);

  ASSERT_EQ(c.ports.size(), 3u);
  const Port &a = c.ports[0];
  EXPECT_EQ(a.dev, "swp1");
  EXPECT_EQ(a.line, 27u);
  EXPECT_EQ(a.pool, "sw0");
  EXPECT_EQ(a.rate_bps, 10000000000u);
  EXPECT_EQ(a.cable_delay_ns, 500u);
  EXPECT_EQ(a.mtu_bytes, 9000u);
  EXPECT_EQ(a.queues, 4);
  EXPECT_EQ(a.headroom_bytes, 65536u);
  EXPECT_EQ(a.ingress, IngressMode::Dscp);
  EXPECT_EQ(a.default_prio, 3);
  const Port &b = c.ports[1];
  EXPECT_EQ(b.dev, "swp2");
  EXPECT_FALSE(b.rate_bps) << "auto: the device's speed";
  EXPECT_EQ(b.cable_delay_ns, 500u) << "100 m at 5 ns/m";
  EXPECT_EQ(b.ingress, IngressMode::Pcp);
  const Port &d = c.ports[2];
  EXPECT_EQ(d.pool, "sw1.b-2");
  EXPECT_EQ(d.rate_bps, 10000000000u) << "1.25 GB/s";
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_EQ(c.find_pool("sw1.b-2"), &c.pools[1]);
  EXPECT_EQ(c.find_pool("sw9"), nullptr);
}

TEST(Config, MinimalFileGetsTheDefaults)
{
  Config c = parse_string(in_pool(""), "min.toml");
  EXPECT_EQ(c.daemon.pin_dir, "/sys/fs/bpf/lossless");
  EXPECT_EQ(c.daemon.socket, "/run/lossless/losslessd.sock");
  EXPECT_EQ(c.daemon.period_ns, 1000000u);
  EXPECT_FALSE(c.daemon.prometheus);
  ASSERT_EQ(c.pools.size(), 1u);
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.line, 1u);
  EXPECT_EQ(p.buffer_bytes, 4194304u) << "tc's default 4mb";
  EXPECT_EQ(p.lossless_mask, 0x18) << "[3, 4]";
  EXPECT_EQ(p.alpha, (1u << 8) | 3) << "1/8";
  EXPECT_EQ(p.egress_alpha, 1u << 8) << "1";
  EXPECT_FALSE(p.reserved_bytes) << "1 MTU of the first port, resolved by the daemon";
  EXPECT_FALSE(p.xon_offset_bytes) << "2 MTU, resolved by the daemon";
  EXPECT_EQ(p.sw_delay_ns, 1000000u);
  EXPECT_FALSE(p.ecn);
  ASSERT_EQ(c.ports.size(), 1u);
  const Port &a = c.ports[0];
  EXPECT_EQ(a.line, 6u);
  EXPECT_FALSE(a.rate_bps);
  EXPECT_EQ(a.cable_delay_ns, 0u);
  EXPECT_FALSE(a.mtu_bytes);
  EXPECT_EQ(a.queues, 8);
  EXPECT_EQ(a.headroom_bytes, 0u);
  EXPECT_EQ(a.ingress, IngressMode::PcpDscp);
  EXPECT_EQ(a.default_prio, 0);
  EXPECT_TRUE(c.warnings.empty());
}

// The ```toml blocks of docs/DAEMON.md's "Configuration file" section.
std::vector<std::string> doc_examples()
{
  std::ifstream f(LL_DOCS_DIR "/DAEMON.md");
  std::vector<std::string> blocks;
  std::string line, block;
  bool in_section = false, in_block = false;
  while (std::getline(f, line)) {
    if (line.rfind("## ", 0) == 0)
      in_section = line == "## Configuration file";
    if (!in_section)
      continue;
    if (!in_block && line == "```toml") {
      in_block = true;
      block.clear();
    } else if (in_block && line == "```") {
      in_block = false;
      blocks.push_back(block);
    } else if (in_block) {
      block += line + "\n";
    }
  }
  return blocks;
}

TEST(Config, TheExamplesOfTheDocumentationParse)
{
  auto blocks = doc_examples();
  ASSERT_EQ(blocks.size(), 2u) << "the full example and the smallest file";
  Config c = parse_string(blocks[0], "DAEMON.md");
  EXPECT_EQ(c.daemon.pin_dir, "/sys/fs/bpf/lossless");
  EXPECT_EQ(c.daemon.socket, "/run/lossless/losslessd.sock");
  EXPECT_EQ(c.daemon.period_ns, 1000000u);
  ASSERT_TRUE(c.daemon.prometheus);
  EXPECT_EQ(c.daemon.prometheus->port, 9464);
  ASSERT_EQ(c.pools.size(), 1u);
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.buffer_bytes, 16777216u);
  EXPECT_EQ(p.lossless_mask, 0x08);
  EXPECT_EQ(p.alpha, (1u << 8) | 3);
  EXPECT_EQ(p.egress_alpha, 1u << 8);
  EXPECT_EQ(p.reserved_bytes, 1518u);
  EXPECT_EQ(p.xon_offset_bytes, 3036u);
  EXPECT_EQ(p.sw_delay_ns, 1000000u);
  ASSERT_TRUE(p.ecn);
  EXPECT_EQ(p.ecn->pmax, 13107u);
  ASSERT_EQ(c.ports.size(), 1u);
  const Port &a = c.ports[0];
  EXPECT_EQ(a.rate_bps, 10000000000u);
  EXPECT_EQ(a.cable_delay_ns, 500u);
  EXPECT_EQ(a.mtu_bytes, 1500u);
  EXPECT_EQ(a.queues, 8);
  EXPECT_EQ(a.headroom_bytes, 0u);
  EXPECT_EQ(a.ingress, IngressMode::PcpDscp);
  EXPECT_EQ(a.default_prio, 0);
  ASSERT_TRUE(p.watchdog);
  EXPECT_EQ(*p.watchdog, (Watchdog{WatchdogAction::Drop, 200000000, 200000000, 100000000, 2000000000}));
  ASSERT_TRUE(a.watchdog);
  EXPECT_EQ(*a.watchdog, (Watchdog{WatchdogAction::Alert, 200000000, 200000000, 100000000, 2000000000}));
  EXPECT_TRUE(c.warnings.empty());
  Config m = parse_string(blocks[1], "DAEMON.md");
  EXPECT_EQ(m.pools.size(), 1u);
  EXPECT_EQ(m.ports.size(), 1u);
}

TEST(Config, EcnAsASubTable)
{
  Config c = parse_string(in_pool("[pool.ecn]\nkmin = \"30kb\"\nkmax = \"100kb\"\npmax = 0.5"),
                          "t.toml");
  ASSERT_TRUE(c.pools[0].ecn);
  EXPECT_EQ(c.pools[0].ecn->kmin_bytes, 30720u);
  EXPECT_EQ(c.pools[0].ecn->kmax_bytes, 102400u);
  EXPECT_EQ(c.pools[0].ecn->pmax, 32768u);
}

// ecn-mode: red by default, np-ecn without an ecn table; beside one, or a
// name it does not know, refused naming the value.
TEST(Config, EcnMode)
{
  EXPECT_EQ(parse_string(in_pool(""), "t.toml").pools[0].ecn_mode, LOSSLESS_ECN_MODE_RED);
  Config c = parse_string(in_pool("ecn-mode = \"np-ecn\""), "t.toml");
  EXPECT_EQ(c.pools[0].ecn_mode, LOSSLESS_ECN_MODE_NP_ECN);
  EXPECT_FALSE(c.pools[0].ecn);
  try {
    parse_string(in_pool("ecn-mode = \"np-ecn\"\necn = { kmin = 1, kmax = 2, pmax = 0.2 }"), "t.toml");
    ADD_FAILURE() << "np-ecn beside an ecn table was taken";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("np-ecn marks without RED"), std::string::npos) << e.what();
  }
  try {
    parse_string(in_pool("ecn-mode = \"codel\""), "t.toml");
    ADD_FAILURE() << "an unknown ecn-mode was taken";
  } catch (const std::exception &e) {
    EXPECT_NE(std::string(e.what()).find("ecn-mode"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("codel"), std::string::npos) << e.what();
  }
}

TEST(Config, PoolWithoutPortIsAWarning)
{
  Config c = parse_string(in_pool("") + "\n[[pool]]\nname = \"idle\"\npolicy = \"pfc-dt\"\n",
                          "w.toml");
  ASSERT_EQ(c.pools.size(), 2u);
  EXPECT_EQ(c.warnings, std::vector<std::string>{
                            "w.toml:10: pool \"idle\": no [[port]] names this pool, so losslessd "
                            "does not create it"});
}

// ---------------------------------------------------------------- units

struct UnitCase {
  const char *name;
  std::string text;     // a file
  std::uint64_t value;  // the field the case reads
  int field;            // 0 buffer, 1 sw-delay, 2 rate, 3 cable delay, 4 pmax
};

void PrintTo(const UnitCase &c, std::ostream *os) { *os << c.name; }

class Units : public testing::TestWithParam<UnitCase> {};

TEST_P(Units, ParseAsTcDoes)
{
  const UnitCase &u = GetParam();
  Config c = parse_string(u.text, "u.toml");
  std::uint64_t got = 0;
  switch (u.field) {
    case 0:
      got = c.pools[0].buffer_bytes;
      break;
    case 1:
      got = c.pools[0].sw_delay_ns;
      break;
    case 2:
      got = c.ports[0].rate_bps.value_or(~0ull);
      break;
    case 3:
      got = c.ports[0].cable_delay_ns;
      break;
    case 4:
      got = c.pools[0].ecn ? c.pools[0].ecn->pmax : ~0ull;
      break;
  }
  EXPECT_EQ(got, u.value);
}

std::string pmax(const std::string &v)
{
  return in_pool("ecn = { kmin = 1, kmax = 2, pmax = " + v + " }");
}

INSTANTIATE_TEST_SUITE_P(
    Config, Units,
    testing::Values(
        UnitCase{"SizeBareIsBytes", in_pool("buffer = \"1518\""), 1518, 0},
        UnitCase{"SizeInteger", in_pool("buffer = 1518"), 1518, 0},
        UnitCase{"SizeB", in_pool("buffer = \"1518b\""), 1518, 0},
        UnitCase{"SizeK", in_pool("buffer = \"64k\""), 65536, 0},
        UnitCase{"SizeKbUpper", in_pool("buffer = \"64KB\""), 65536, 0},
        UnitCase{"SizeFractionKb", in_pool("buffer = \"1.5kb\""), 1536, 0},
        UnitCase{"SizeMb", in_pool("buffer = \"2mb\""), 2097152, 0},
        UnitCase{"SizeG", in_pool("buffer = \"1G\""), 1073741824, 0},
        UnitCase{"SizeKbit", in_pool("buffer = \"8kbit\""), 1024, 0},
        UnitCase{"SizeMbit", in_pool("buffer = \"1mbit\""), 131072, 0},
        UnitCase{"SizeGbit", in_pool("buffer = \"1gbit\""), 134217728, 0},
        UnitCase{"SizeMax", in_pool("buffer = \"1024gb\""), 1099511627776, 0},
        UnitCase{"TimeNs", in_pool("sw-delay = \"1500ns\""), 1500, 1},
        UnitCase{"TimeNsec", in_pool("sw-delay = \"1500nsec\""), 1500, 1},
        UnitCase{"TimeUsecs", in_pool("sw-delay = \"5usecs\""), 5000, 1},
        UnitCase{"TimeMsUpper", in_pool("sw-delay = \"60MS\""), 60000000, 1},
        UnitCase{"TimeMsecRounded", in_pool("sw-delay = \"2.3msec\""), 2300000, 1},
        UnitCase{"TimeSec", in_pool("sw-delay = \"1sec\""), 1000000000, 1},
        UnitCase{"TimeSecsFraction", in_pool("sw-delay = \"0.5secs\""), 500000000, 1},
        UnitCase{"TimeRoundsToNearestNs", in_pool("sw-delay = \"1.6ns\""), 2, 1},
        UnitCase{"RateBit", in_port("rate = \"8000bit\""), 8000, 2},
        UnitCase{"RateBareIsBits", in_port("rate = \"100000000\""), 100000000, 2},
        UnitCase{"RateIntegerIsBits", in_port("rate = 100000000"), 100000000, 2},
        UnitCase{"RateTruncatedToBytes", in_port("rate = \"8001bit\""), 8000, 2},
        UnitCase{"RateKbit", in_port("rate = \"100kbit\""), 100000, 2},
        UnitCase{"RateMbitUpper", in_port("rate = \"5MBIT\""), 5000000, 2},
        UnitCase{"RateGbit", in_port("rate = \"10gbit\""), 10000000000, 2},
        UnitCase{"RateTbit", in_port("rate = \"1.6tbit\""), 1600000000000, 2},
        UnitCase{"RateKibit", in_port("rate = \"10Kibit\""), 10240, 2},
        UnitCase{"RateMibit", in_port("rate = \"1mibit\""), 1048576, 2},
        UnitCase{"RateBytesPerSecond", in_port("rate = \"1000Bps\""), 8000, 2},
        UnitCase{"RateKBps", in_port("rate = \"10KBps\""), 80000, 2},
        UnitCase{"RateKiBps", in_port("rate = \"1KiBps\""), 8192, 2},
        UnitCase{"RateGBps", in_port("rate = \"1GBps\""), 8000000000, 2},
        UnitCase{"RateUpperBPS", in_port("rate = \"1MBPS\""), 8000000, 2},
        UnitCase{"CableDelay", in_port("cable-delay = \"2ms\""), 2000000, 3},
        UnitCase{"CableLength", in_port("cable-length = \"2m\""), 10, 3},
        UnitCase{"CableLengthFraction", in_port("cable-length = \"2.5m\""), 13, 3},
        UnitCase{"CableLengthMax", in_port("cable-length = \"200000000m\""), 1000000000, 3},
        UnitCase{"PmaxFloat", pmax("0.2"), 13107, 4},
        UnitCase{"PmaxOne", pmax("1"), 65536, 4},
        UnitCase{"PmaxZero", pmax("0"), 0, 4},
        UnitCase{"PmaxString", pmax("\"0.5\""), 32768, 4},
        UnitCase{"PmaxSmallRoundsToNearest", pmax("0.00001"), 1, 4}),
    [](const testing::TestParamInfo<UnitCase> &i) { return std::string(i.param.name); });

// ---------------------------------------------------------------- errors

struct BadCase {
  const char *name;
  std::string text;
  std::vector<std::string> errors;
};

void PrintTo(const BadCase &c, std::ostream *os) { *os << c.name; }

class Invalid : public testing::TestWithParam<BadCase> {};

TEST_P(Invalid, FailsWithExactMessages)
{
  const BadCase &c = GetParam();
  EXPECT_EQ(errors_of(c.text), c.errors);
}

const char *const kPorts = "\n[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n";

INSTANTIATE_TEST_SUITE_P(
    Config, Invalid,
    testing::Values(
        // ---- the file
        BadCase{"Empty", "", {"t.toml: the configuration is empty: it needs at least one [[pool]] and one [[port]], or [host_cc]"}},
        BadCase{"OnlyComments", "# nothing\n\n", {"t.toml: the configuration is empty: it needs at least one [[pool]] and one [[port]], or [host_cc]"}},
        BadCase{"OnlyDaemon", "[daemon]\nperiod = \"1ms\"\n", {"t.toml: the configuration is empty: it needs at least one [[pool]] and one [[port]], or [host_cc]"}},
        BadCase{"EmptyArrays", "pool = []\nport = []\n", {"t.toml: the configuration is empty: it needs at least one [[pool]] and one [[port]], or [host_cc]"}},
        BadCase{"SyntaxUnclosedHeader", "[[pool]\nname = \"sw0\"\n",
                {"t.toml:1:8: TOML syntax error: Error while parsing table header: expected ']', saw '\\n'"}},
        BadCase{"SyntaxDuplicateKey", in_pool("alpha = \"1/8\"\nalpha = \"1/4\""),
                {"t.toml:5:9: TOML syntax error: Error while parsing key-value pair: cannot redefine existing string 'alpha'"}},
        BadCase{"SyntaxBareWord", in_pool("alpha = 1/8"),
                {"t.toml:4:10: TOML syntax error: Error while parsing decimal integer: expected digit, saw '/'"}},
        // ---- sections and keys
        BadCase{"UnknownSectionSuggested", "[[pools]]\nname = \"x\"\n" + in_pool(""),
                {"t.toml:1: unknown section \"pools\" (did you mean \"pool\"?)"}},
        BadCase{"UnknownSection", in_pool("") + "[metrics]\nport = 1\n",
                {"t.toml:9: unknown section \"metrics\""}},
        BadCase{"TopLevelKeyBelongsInDaemon", "period = \"1ms\"\n" + in_pool(""),
                {"t.toml:1: unknown key \"period\" at the top level (it belongs in [daemon])"}},
        BadCase{"DaemonArray", "[[daemon]]\nperiod = \"1ms\"\n" + in_pool(""),
                {"t.toml:1: daemon: must be a table [daemon], not an array of tables [[daemon]]"}},
        BadCase{"PoolNotArray", "[pool]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n" + std::string(kPorts),
                {"t.toml:1: pool: must be an array of tables [[pool]], not a table",
                 "t.toml:7: port \"swp1\": pool \"sw0\": no [[pool]] has this name"}},
        BadCase{"PoolUnknownKeySuggested", in_pool("alpah = \"1/8\""),
                {"t.toml:4: pool \"sw0\": unknown key \"alpah\" (did you mean \"alpha\"?)"}},
        BadCase{"PoolMisspelled", in_pool("egress-alhpa = \"1\""),
                {"t.toml:4: pool \"sw0\": unknown key \"egress-alhpa\" (did you mean \"egress-alpha\"?)"}},
        BadCase{"PortUnknownKey", in_port("speed = \"10gbit\""),
                {"t.toml:8: port \"swp1\": unknown key \"speed\""}},
        BadCase{"DaemonUnknownKeySuggested", in_daemon("sock = \"/run/x.sock\""),
                {"t.toml:2: [daemon]: unknown key \"sock\" (did you mean \"socket\"?)"}},
        BadCase{"EcnUnknownKey", in_pool("ecn = { kmin = \"30kb\", kmax = \"100kb\", pmax = 0.2, kmn = 1 }"),
                {"t.toml:4: pool \"sw0\": unknown key \"ecn.kmn\" (did you mean \"ecn.kmin\"?)"}},
        // ---- required keys
        BadCase{"PoolMissingName", "[[pool]]\npolicy = \"pfc-dt\"\n" + std::string(kPorts),
                {"t.toml:1: pool #1: missing required key \"name\"",
                 "t.toml:6: port \"swp1\": pool \"sw0\": no [[pool]] has this name"}},
        BadCase{"PoolMissingPolicy", "[[pool]]\nname = \"sw0\"\n" + std::string(kPorts),
                {"t.toml:1: pool \"sw0\": missing required key \"policy\" (pfc-dt, st, dsh, spfc, portfc)"}},
        BadCase{"PortMissingDev", "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n[[port]]\npool = \"sw0\"\n",
                {"t.toml:4: port #1: missing required key \"dev\""}},
        BadCase{"PortMissingPool", "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n[[port]]\ndev = \"swp1\"\n",
                {"t.toml:4: port \"swp1\": missing required key \"pool\""}},
        BadCase{"EcnMissingPmax", in_pool("ecn = { kmin = \"30kb\", kmax = \"100kb\" }"),
                {"t.toml:4: pool \"sw0\": missing required key \"ecn.pmax\" (ecn needs kmin, kmax and pmax together)"}},
        // ---- wrong types
        BadCase{"BufferBoolean", in_pool("buffer = true"),
                {"t.toml:4: pool \"sw0\": buffer true: must be a size (a string such as \"2mb\", or an integer number of bytes), not a boolean"}},
        BadCase{"QueuesString", in_port("queues = \"8\""),
                {"t.toml:8: port \"swp1\": queues \"8\": must be an integer 1 .. 64, not a string"}},
        BadCase{"PriosString", in_pool("lossless-prios = \"3,4\""),
                {"t.toml:4: pool \"sw0\": lossless-prios \"3,4\": must be an array of priorities 0 .. 7 ([3, 4], or [] for none), not a string"}},
        BadCase{"PrioNotInteger", in_pool("lossless-prios = [3, \"4\"]"),
                {"t.toml:4: pool \"sw0\": lossless-prios \"4\": must be a priority 0 .. 7, not a string"}},
        BadCase{"EcnNotTable", in_pool("ecn = \"off\""),
                {"t.toml:4: pool \"sw0\": ecn \"off\": must be a table { kmin = \"30kb\", kmax = \"100kb\", pmax = 0.2 }, not a string"}},
        BadCase{"NameInteger", "[[pool]]\nname = 7\npolicy = \"pfc-dt\"\n",
                {"t.toml:2: pool #1: name 7: must be a string, not an integer"}},
        BadCase{"AlphaFloat", in_pool("alpha = 0.125"),
                {"t.toml:4: pool \"sw0\": alpha 0.125: must be an alpha (a string: NUM or NUM/DEN: 1/8, 3/4, 2), not a floating-point number"}},
        BadCase{"RateFloat", in_port("rate = 1e9"),
                {"t.toml:8: port \"swp1\": rate 1e+09: must be a rate (a string such as \"10gbit\", or \"auto\"), not a floating-point number"}},
        // ---- values
        BadCase{"AlphaDenominator", in_pool("alpha = \"1/3\""),
                {"t.toml:4: pool \"sw0\": alpha \"1/3\": the denominator must be a power of two 1 .. 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)"}},
        BadCase{"AlphaNumerator", in_pool("alpha = \"0.125\""),
                {"t.toml:4: pool \"sw0\": alpha \"0.125\": the numerator must be an integer 1 .. 65535 (NUM or NUM/DEN: 1/8, 3/4, 2)"}},
        BadCase{"EgressAlphaZero", in_pool("egress-alpha = 0"),
                {"t.toml:4: pool \"sw0\": egress-alpha 0: the numerator must be an integer 1 .. 65535 (NUM or NUM/DEN: 1/8, 3/4, 2)"}},
        BadCase{"BufferZero", in_pool("buffer = \"0\""),
                {"t.toml:4: pool \"sw0\": buffer \"0\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"BufferAboveMax", in_pool("buffer = \"1025gb\""),
                {"t.toml:4: pool \"sw0\": buffer \"1025gb\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"BufferFractionalBytes", in_pool("buffer = \"1.5\""),
                {"t.toml:4: pool \"sw0\": buffer \"1.5\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"BufferHex", in_pool("buffer = \"0x100000\""),
                {"t.toml:4: pool \"sw0\": buffer \"0x100000\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"BufferNegativeInteger", in_pool("buffer = -1"),
                {"t.toml:4: pool \"sw0\": buffer -1: must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"ReservedAboveU32", in_pool("reserved = \"4gb\""),
                {"t.toml:4: pool \"sw0\": reserved \"4gb\": must be 0 .. 4294967295 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"ReservedLeavesNoSharedBuffer", in_pool("buffer = \"64kb\"\nreserved = \"8kb\""),
                {"t.toml:5: pool \"sw0\": reserved \"8kb\": 8 x reserved (65536 bytes) leaves no shared buffer in buffer (65536 bytes)"}},
        BadCase{"XonOffsetAboveBuffer", in_pool("buffer = \"64kb\"\nxon-offset = \"65537b\""),
                {"t.toml:5: pool \"sw0\": xon-offset \"65537b\": must be at most buffer (65536 bytes)"}},
        BadCase{"SwDelayNoUnit", in_pool("sw-delay = \"60\""),
                {"t.toml:4: pool \"sw0\": sw-delay \"60\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"SwDelayInteger", in_pool("sw-delay = 60"),
                {"t.toml:4: pool \"sw0\": sw-delay 60: must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"SwDelayAboveMax", in_pool("sw-delay = \"1001ms\""),
                {"t.toml:4: pool \"sw0\": sw-delay \"1001ms\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"PeriodBelowMin", in_daemon("period = \"99us\""),
                {"t.toml:2: [daemon]: period \"99us\": must be a time 100us .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"PeriodAboveMax", in_daemon("period = \"2s\""),
                {"t.toml:2: [daemon]: period \"2s\": must be a time 100us .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"PrioOutOfRange", in_pool("lossless-prios = [3, 8]"),
                {"t.toml:4: pool \"sw0\": lossless-prios 8: must be a priority 0 .. 7"}},
        BadCase{"PrioTwice", in_pool("lossless-prios = [3, 3]"),
                {"t.toml:4: pool \"sw0\": lossless-prios 3: listed twice"}},
        BadCase{"PrioTwiceApart", in_pool("lossless-prios = [4, 3, 4]"),
                {"t.toml:4: pool \"sw0\": lossless-prios 4: listed twice"}},
        BadCase{"EcnKminNotBelowKmax", in_pool("ecn = { kmin = \"100kb\", kmax = \"30kb\", pmax = 0.2 }"),
                {"t.toml:4: pool \"sw0\": ecn: kmin (102400 bytes) must be below kmax (30720 bytes)"}},
        BadCase{"EcnKmaxAboveU32", in_pool("ecn = { kmin = 0, kmax = \"4gb\", pmax = 0.2 }"),
                {"t.toml:4: pool \"sw0\": ecn.kmax \"4gb\": must be 1 .. 4294967295 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"EcnPmaxAboveOne", in_pool("ecn = { kmin = 1, kmax = 2, pmax = 1.5 }"),
                {"t.toml:4: pool \"sw0\": ecn.pmax 1.5: must be a probability 0 .. 1 (0.2)"}},
        BadCase{"EcnPmaxNegative", in_pool("ecn = { kmin = 1, kmax = 2, pmax = -0.1 }"),
                {"t.toml:4: pool \"sw0\": ecn.pmax -0.1: must be a probability 0 .. 1 (0.2)"}},
        BadCase{"EcnPmaxPercent", in_pool("ecn = { kmin = 1, kmax = 2, pmax = \"20%\" }"),
                {"t.toml:4: pool \"sw0\": ecn.pmax \"20%\": must be a probability 0 .. 1 (0.2)"}},
        BadCase{"PolicyUnknownSuggested", "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-td\"\n" + std::string(kPorts),
                {"t.toml:3: pool \"sw0\": policy \"pfc-td\": unknown policy (did you mean \"pfc-dt\"?); known: pfc-dt, st, dsh, spfc, portfc"}},
        BadCase{"PoolNameBadChar", "[[pool]]\nname = \"sw/0\"\npolicy = \"pfc-dt\"\n",
                {"t.toml:2: pool #1: name \"sw/0\": character 3 ('/') is not allowed: the name must be 1 .. 15 characters of A-Z a-z 0-9 _ . -"}},
        BadCase{"PoolNameTooLong", "[[pool]]\nname = \"abcdefghijklmnop\"\npolicy = \"pfc-dt\"\n",
                {"t.toml:2: pool #1: name \"abcdefghijklmnop\": the name must be 1 .. 15 characters of A-Z a-z 0-9 _ . -"}},
        BadCase{"PoolNameEmpty", "[[pool]]\nname = \"\"\npolicy = \"pfc-dt\"\n",
                {"t.toml:2: pool #1: name \"\": the name must be 1 .. 15 characters of A-Z a-z 0-9 _ . -"}},
        BadCase{"RateAmbiguousGbps", in_port("rate = \"10gbps\""),
                {"t.toml:8: port \"swp1\": rate \"10gbps\": \"gbps\" is ambiguous: write gbit for bits/s or gBps for bytes/s"}},
        BadCase{"RateAmbiguousBps", in_port("rate = \"10000bps\""),
                {"t.toml:8: port \"swp1\": rate \"10000bps\": \"bps\" is ambiguous: write bit for bits/s or Bps for bytes/s"}},
        BadCase{"RateUnknownUnit", in_port("rate = \"10furlongs\""),
                {"t.toml:8: port \"swp1\": rate \"10furlongs\": unknown unit \"furlongs\" (use bit, kbit, mbit, gbit, tbit, Bps, KBps, ...)"}},
        BadCase{"RateZero", in_port("rate = \"0\""),
                {"t.toml:8: port \"swp1\": rate \"0\": must be 8kbit .. 1.6tbit (8000 .. 1600000000000 bit/s), e.g. 10gbit, or \"auto\""}},
        BadCase{"RateAboveMax", in_port("rate = \"1601gbit\""),
                {"t.toml:8: port \"swp1\": rate \"1601gbit\": must be 8kbit .. 1.6tbit (8000 .. 1600000000000 bit/s), e.g. 10gbit, or \"auto\""}},
        BadCase{"RateAutoCase", in_port("rate = \"Auto\""),
                {"t.toml:8: port \"swp1\": rate \"Auto\": must be 8kbit .. 1.6tbit (8000 .. 1600000000000 bit/s), e.g. 10gbit, or \"auto\""}},
        BadCase{"RatePercent", in_port("rate = \"50%\""),
                {"t.toml:8: port \"swp1\": rate \"50%\": a percentage of the link speed is not taken here: give the rate, or \"auto\" for the link speed the device reports"}},
        BadCase{"CableDelayAndLength", in_port("cable-delay = \"5us\"\ncable-length = \"100m\""),
                {"t.toml:9: port \"swp1\": cable-delay and cable-length: give at most one of the two"}},
        BadCase{"CableDelayAboveMax", in_port("cable-delay = \"2s\""),
                {"t.toml:8: port \"swp1\": cable-delay \"2s\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"CableLengthNoUnit", in_port("cable-length = \"100\""),
                {"t.toml:8: port \"swp1\": cable-length \"100\": must be a length 0 .. 200000000m in meters with the unit m (2m, 100m)"}},
        BadCase{"CableLengthKm", in_port("cable-length = \"1km\""),
                {"t.toml:8: port \"swp1\": cable-length \"1km\": must be a length 0 .. 200000000m in meters with the unit m (2m, 100m)"}},
        BadCase{"CableLengthAboveMax", in_port("cable-length = \"200000001m\""),
                {"t.toml:8: port \"swp1\": cable-length \"200000001m\": must be a length 0 .. 200000000m in meters with the unit m (2m, 100m)"}},
        BadCase{"MtuBelowMin", in_port("mtu = 67"),
                {"t.toml:8: port \"swp1\": mtu 67: must be an integer 68 .. 65536 bytes (the device MTU)"}},
        BadCase{"QueuesZero", in_port("queues = 0"),
                {"t.toml:8: port \"swp1\": queues 0: must be an integer 1 .. 64"}},
        BadCase{"QueuesAboveMax", in_port("queues = 65"),
                {"t.toml:8: port \"swp1\": queues 65: must be an integer 1 .. 64"}},
        BadCase{"HeadroomAboveU32", in_port("headroom = \"5gb\""),
                {"t.toml:8: port \"swp1\": headroom \"5gb\": must be 0 .. 4294967295 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"HeadroomAboveBuffer", in_port("headroom = \"5mb\""),
                {"t.toml:8: port \"swp1\": headroom \"5mb\": must be at most the buffer of pool \"sw0\" (4194304 bytes)"}},
        BadCase{"IngressUnknownSuggested", in_port("ingress = \"pcp_dscp\""),
                {"t.toml:8: port \"swp1\": ingress \"pcp_dscp\": must be pcp-dscp, pcp or dscp (did you mean \"pcp-dscp\"?)"}},
        BadCase{"DefaultPrioAboveMax", in_port("default-prio = 8"),
                {"t.toml:8: port \"swp1\": default-prio 8: must be an integer 0 .. 7"}},
        BadCase{"DevWithSlash", in_pool("") + "[[port]]\ndev = \"a/b\"\npool = \"sw0\"\n",
                {"t.toml:10: port #2: dev \"a/b\": must be a network interface name: 1 .. 15 bytes, not \".\" or \"..\", without '/', ':' or white space"}},
        BadCase{"DevTooLong", in_pool("") + "[[port]]\ndev = \"abcdefghijklmnop\"\npool = \"sw0\"\n",
                {"t.toml:10: port #2: dev \"abcdefghijklmnop\": must be a network interface name: 1 .. 15 bytes, not \".\" or \"..\", without '/', ':' or white space"}},
        // ---- cross-references
        BadCase{"DuplicatePoolName", in_pool("") + "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n",
                {"t.toml:10: pool \"sw0\": the name is already used by the pool at line 1"}},
        BadCase{"DuplicatePortDev", in_pool("") + "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n",
                {"t.toml:10: port \"swp1\": dev is already configured by the port at line 6"}},
        BadCase{"PortUnknownPoolSuggested", in_pool("") + "[[port]]\ndev = \"swp2\"\npool = \"sw9\"\n",
                {"t.toml:11: port \"swp2\": pool \"sw9\": no [[pool]] has this name (did you mean \"sw0\"?)"}},
        BadCase{"PortUnknownPool", in_pool("") + "[[port]]\ndev = \"swp2\"\npool = \"backbone\"\n",
                {"t.toml:11: port \"swp2\": pool \"backbone\": no [[pool]] has this name"}},
        BadCase{"PortOfInvalidPoolHasNoSecondError", "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\nalpha = \"1/3\"\n" + std::string(kPorts),
                {"t.toml:4: pool \"sw0\": alpha \"1/3\": the denominator must be a power of two 1 .. 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)"}},
        // ---- [daemon]
        BadCase{"PinDirRelative", in_daemon("pin-dir = \"bpf/lossless\""),
                {"t.toml:2: [daemon]: pin-dir \"bpf/lossless\": must be an absolute path"}},
        BadCase{"SocketTooLong", in_daemon("socket = \"/" + std::string(107, 's') + "\""),
                {"t.toml:2: [daemon]: socket \"/" + std::string(107, 's') + "\": must be an absolute path of at most 107 bytes (a UNIX socket's sun_path)"}},
        BadCase{"PrometheusWildcard", in_daemon("prometheus = \"0.0.0.0:9464\""),
                {"t.toml:2: [daemon]: prometheus \"0.0.0.0:9464\": 0.0.0.0 listens on every address: give a loopback or explicit local address (127.0.0.1:9464)"}},
        BadCase{"PrometheusWildcard6", in_daemon("prometheus = \"[::]:9464\""),
                {"t.toml:2: [daemon]: prometheus \"[::]:9464\": [::] listens on every address: give a loopback or explicit local address ([::1]:9464)"}},
        BadCase{"PrometheusNoPort", in_daemon("prometheus = \"127.0.0.1\""),
                {"t.toml:2: [daemon]: prometheus \"127.0.0.1\": must be a loopback or explicit local address with a port: ADDRESS:PORT or [IPV6-ADDRESS]:PORT (127.0.0.1:9464, [::1]:9464)"}},
        BadCase{"PrometheusHostName", in_daemon("prometheus = \"localhost:9464\""),
                {"t.toml:2: [daemon]: prometheus \"localhost:9464\": the address must be a numeric IPv4 address or an IPv6 address in brackets, not a host name (127.0.0.1:9464, [::1]:9464)"}},
        BadCase{"PrometheusPortRange", in_daemon("prometheus = \"127.0.0.1:65536\""),
                {"t.toml:2: [daemon]: prometheus \"127.0.0.1:65536\": the port must be an integer 1 .. 65535 (127.0.0.1:9464)"}},
        BadCase{"PrometheusMulticast", in_daemon("prometheus = \"224.0.0.1:9464\""),
                {"t.toml:2: [daemon]: prometheus \"224.0.0.1:9464\": a multicast or broadcast address: give a loopback or explicit local address (127.0.0.1:9464)"}},
        // ---- every error of a file, sorted by line
        BadCase{"AllErrorsTogether",
                "[daemon]\nperiod = \"1\"\n\n[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\nalpha = \"1/3\"\nbuffer = \"2tb\"\n\n"
                "[[port]]\ndev = \"swp1\"\npool = \"sw1\"\nrate = \"10gbps\"\nqueues = 99\nmtu = 1500\n",
                {"t.toml:2: [daemon]: period \"1\": must be a time 100us .. 1s with a unit ns, us, ms or s (5us, 1ms)",
                 "t.toml:7: pool \"sw0\": alpha \"1/3\": the denominator must be a power of two 1 .. 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)",
                 "t.toml:8: pool \"sw0\": buffer \"2tb\": must be 1 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)",
                 "t.toml:12: port \"swp1\": pool \"sw1\": no [[pool]] has this name (did you mean \"sw0\"?)",
                 "t.toml:13: port \"swp1\": rate \"10gbps\": \"gbps\" is ambiguous: write gbit for bits/s or gBps for bytes/s",
                 "t.toml:14: port \"swp1\": queues 99: must be an integer 1 .. 64"}}),
    [](const testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

// ---------------------------------------------------------------- watchdog

constexpr const char *kWatchdogFile = R"([[pool]]
name = "sw0"
policy = "pfc-dt"
pfcwd = "drop"
pfcwd-detect = "400ms"
pfcwd-poll = "50ms"

[[pool]]
name = "sw1"
policy = "pfc-dt"

[[port]]
dev = "swp1"
pool = "sw0"

[[port]]
dev = "swp2"
pool = "sw0"
pfcwd = "alert"
xoff-alarm = "1s"

[[port]]
dev = "swp3"
pool = "sw1"

[[port]]
dev = "swp4"
pool = "sw1"
xoff-alarm = "5s"
pfcwd-restore = "60s"
)";

// A [[port]] carries every per-port option of tc's qdisc (a host uplink
// set up by losslessd alone), and sw-delay over its pool's.
TEST(Config, PortTakesTheQdiscOptionsAndItsOwnSwDelay)
{
  Config c = parse_string(in_port("queues = 4\nstrict = 1\nquanta = [\"9kb\", 1514]\n"
                                  "priomap = [0, 0, 1, 3]\nlimit = 2000\nburst = \"30kb\"\n"
                                  "catchup = \"64kb\"\nsw-delay = \"3ms\"\nscheme-port = 2"),
                          "t.toml");
  const Port &p = c.ports[0];
  EXPECT_EQ(p.queues, 4);
  EXPECT_EQ(p.strict, 1);
  EXPECT_EQ(p.quanta_bytes, (std::vector<std::uint32_t>{9216, 1514}));
  EXPECT_EQ(p.priomap, (std::vector<std::uint8_t>{0, 0, 1, 3}));
  EXPECT_EQ(p.limit_packets, 2000u);
  EXPECT_EQ(p.burst_bytes, 30720u);
  EXPECT_EQ(p.catchup_bytes, 65536u);
  EXPECT_EQ(p.sw_delay_ns, 3000000u);
  EXPECT_EQ(p.scheme_port, 2);
  EXPECT_EQ(c.pools[0].sw_delay_ns, 1000000u) << "the pool's stays";
  // None given: the qdisc's defaults, the pool's sw-delay.
  c = parse_string(in_port(""), "t.toml");
  EXPECT_FALSE(c.ports[0].strict);
  EXPECT_TRUE(c.ports[0].quanta_bytes.empty());
  EXPECT_TRUE(c.ports[0].priomap.empty());
  EXPECT_FALSE(c.ports[0].limit_packets || c.ports[0].burst_bytes || c.ports[0].catchup_bytes);
  EXPECT_FALSE(c.ports[0].sw_delay_ns);
  // Each with tc's range.
  EXPECT_EQ(errors_of(in_port("queues = 2\npriomap = [0, 2]")),
            (std::vector<std::string>{"t.toml:9: port \"swp1\": priomap 2: must be an integer 0 .. 1 (a queue, below queues)"}));
  EXPECT_EQ(errors_of(in_port("queues = 2\nstrict = 3")),
            (std::vector<std::string>{"t.toml:9: port \"swp1\": strict 3: must be an integer 0 .. 2 (strict queues, at most queues)"}));
  EXPECT_EQ(errors_of(in_port("burst = \"10b\"")),
            (std::vector<std::string>{"t.toml:8: port \"swp1\": burst \"10b\": must be 64 .. 1073741824 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}));
  EXPECT_EQ(errors_of(in_port("limit = 0")),
            (std::vector<std::string>{"t.toml:8: port \"swp1\": limit 0: must be an integer 1 .. 1048576 packets per queue"}));
  EXPECT_EQ(errors_of(in_port("sw-delay = \"2s\"")),
            (std::vector<std::string>{"t.toml:8: port \"swp1\": sw-delay \"2s\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)"}));
}

TEST(Config, WatchdogPerPoolWithPortOverrides)
{
  Config c = parse_string(kWatchdogFile, "wd.toml");
  ASSERT_EQ(c.pools.size(), 2u);
  ASSERT_TRUE(c.pools[0].watchdog);
  EXPECT_EQ(*c.pools[0].watchdog, (Watchdog{WatchdogAction::Drop, 400000000, 200000000, 50000000, 0}));
  EXPECT_FALSE(c.pools[1].watchdog) << "no watchdog key: the qdiscs keep theirs";
  ASSERT_EQ(c.ports.size(), 4u);
  EXPECT_EQ(c.ports[0].watchdog, c.pools[0].watchdog) << "the pool's";
  ASSERT_TRUE(c.ports[1].watchdog);
  EXPECT_EQ(*c.ports[1].watchdog,
            (Watchdog{WatchdogAction::Alert, 400000000, 200000000, 50000000, 1000000000}))
      << "its keys over the pool's";
  EXPECT_FALSE(c.ports[2].watchdog);
  ASSERT_TRUE(c.ports[3].watchdog);
  EXPECT_EQ(*c.ports[3].watchdog,
            (Watchdog{WatchdogAction::Off, 200000000, 60000000000, 100000000, 5000000000}))
      << "over the defaults: the pool has no watchdog key";
  EXPECT_EQ(watchdog_action_name(WatchdogAction::Off), "off");
  EXPECT_EQ(watchdog_action_name(WatchdogAction::Alert), "alert");
  EXPECT_EQ(watchdog_action_name(WatchdogAction::Forward), "forward");
  EXPECT_EQ(watchdog_action_name(WatchdogAction::Drop), "drop");
}

TEST(Config, WatchdogDefaultsAndLimits)
{
  // pfcwd = "off" alone: the defaults (off, 200ms, 200ms, 100ms, no alarm), in force.
  Config c = parse_string(in_pool("pfcwd = \"off\""), "t.toml");
  ASSERT_TRUE(c.pools[0].watchdog);
  EXPECT_EQ(*c.pools[0].watchdog, Watchdog{});
  EXPECT_EQ(Watchdog{}, (Watchdog{WatchdogAction::Off, 200000000, 200000000, 100000000, 0}));
  EXPECT_EQ(c.ports[0].watchdog, Watchdog{});
  // The extremes, in any time unit tc takes.
  c = parse_string(in_pool("pfcwd = \"forward\"\npfcwd-detect = \"60s\"\n"
                           "pfcwd-restore = \"1ms\"\npfcwd-poll = \"1000us\"\nxoff-alarm = \"3600s\""),
                   "t.toml");
  EXPECT_EQ(*c.pools[0].watchdog,
            (Watchdog{WatchdogAction::Forward, 60000000000, 1000000, 1000000, 3600000000000}));
  // Equal times are fine (poll = detect = restore = alarm); xoff-alarm "off".
  c = parse_string(in_port("pfcwd-detect = \"7ms\"\npfcwd-restore = \"7ms\"\n"
                           "pfcwd-poll = \"7ms\"\nxoff-alarm = \"7ms\""),
                   "t.toml");
  EXPECT_EQ(*c.ports[0].watchdog, (Watchdog{WatchdogAction::Off, 7000000, 7000000, 7000000, 7000000}));
  EXPECT_FALSE(c.pools[0].watchdog);
  c = parse_string(in_port("xoff-alarm = \"off\""), "t.toml");
  EXPECT_EQ(*c.ports[0].watchdog, Watchdog{});
}

// ---- the scheme (docs/SCHEMES.md): the policy says it, [pool.<scheme>] its parameters

std::string st_pool(const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"st\"\n" + extra +
         "\n\n[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n";
}

TEST(Scheme, TheBaselineByDefault)
{
  Config c = parse_string(in_pool(""), "t.toml");
  EXPECT_EQ(c.pools[0].scheme, "dt");
  EXPECT_EQ(c.pools[0].scheme_block.id, (unsigned)LOSSLESS_SCHEME_DT);
}

TEST(Scheme, StPolicyWithItsTable)
{
  Config c = parse_string(st_pool("scheme = \"st\"\n[pool.st]\nthreshold = \"256kb\""), "t.toml");
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.policy, "st");
  EXPECT_EQ(p.scheme, "st");
  EXPECT_EQ(p.scheme_block.id, (unsigned)LOSSLESS_SCHEME_ST);
  EXPECT_EQ(p.scheme_block.p.st.threshold_bytes, 262144u);
  Config d = parse_string(st_pool(""), "t.toml");
  EXPECT_EQ(d.pools[0].scheme, "st");
  EXPECT_EQ(d.pools[0].scheme_block.p.st.threshold_bytes, 0u) << "default: shared / ports";
}

// A pool of policy NAME (line 3), extra from line 4, and a 10 Gbit/s
// port with a 1 us cable (its headroom the formula's).
std::string scheme_pool(const std::string &name, const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"" + name + "\"\n" + extra +
         "\n\n[[port]]\ndev = \"swp1\"\npool = \"sw0\"\nrate = \"10gbit\"\ncable-delay = \"1us\"\n";
}

TEST(Scheme, DshPolicyWithItsTable)
{
  // 8mb: the 10 Gbit/s port's Phi (2.5 MB at sw-delay 1ms, its catch-up
  // included) must fit the shared region.
  Config c = parse_string(scheme_pool("dsh", "buffer = \"8mb\"\nscheme = \"dsh\"\n"
                                             "[pool.dsh]\nwindow = \"5ms\"\n"
                                             "ewma-shift = 3\ngain = \"8\"\n"
                                             "variant = \"no-insurance,static-tau\""),
                          "t.toml");
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.policy, "dsh");
  EXPECT_EQ(p.scheme, "dsh");
  EXPECT_EQ(p.scheme_block.id, (unsigned)LOSSLESS_SCHEME_DSH);
  EXPECT_EQ(p.scheme_block.p.dsh.window_ns, 5000000u);
  EXPECT_EQ(p.scheme_block.p.dsh.ewma_shift, 3u);
  EXPECT_EQ(p.scheme_block.p.dsh.deviation_gain, 8u);
  EXPECT_EQ(p.scheme_block.p.dsh.flags, LOSSLESS_DSH_F_NO_INSURANCE | LOSSLESS_DSH_F_STATIC_TAU);
  // The defaults are the rows' (the kernel's values for 0).
  Config d = parse_string(scheme_pool("dsh", "buffer = \"8mb\""), "t.toml");
  EXPECT_EQ(d.pools[0].scheme_block.p.dsh.window_ns, 10000000u);
  EXPECT_EQ(d.pools[0].scheme_block.p.dsh.ewma_shift, 2u);
  EXPECT_EQ(d.pools[0].scheme_block.p.dsh.deviation_gain, 4u);
  EXPECT_EQ(d.pools[0].scheme_block.p.dsh.flags, 0u);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(Scheme, SpfcPolicyWithItsTable)
{
  Config c = parse_string(scheme_pool("spfc", "sw-delay = \"100us\"\n[pool.spfc]\n"
                                              "window = \"2ms\"\nk = 8\nvictim-threshold = \"1mb\"\n"
                                              "mode = \"window-end\""),
                          "t.toml");
  const Pool &p = c.pools[0];
  EXPECT_EQ(p.scheme, "spfc");
  EXPECT_EQ(p.scheme_block.id, (unsigned)LOSSLESS_SCHEME_SPFC);
  EXPECT_EQ(p.scheme_block.p.spfc.tc_ns, 2000000u);
  EXPECT_EQ(p.scheme_block.p.spfc.k, 8u);
  EXPECT_EQ(p.scheme_block.p.spfc.victim_threshold_bytes, 1048576u);
  EXPECT_EQ(p.scheme_block.p.spfc.flags, LOSSLESS_SPFC_F_WINDOW_END);
  EXPECT_EQ(p.scheme_block.p.spfc.irc_th_bytes, 0u);
  EXPECT_TRUE(c.warnings.empty()) << c.warnings[0];
  Config d = parse_string(scheme_pool("spfc", "[pool.spfc]\nirc-th = \"64kb\"\n"
                                              "window = \"1s\""),
                          "t.toml");
  EXPECT_EQ(d.pools[0].scheme_block.p.spfc.irc_th_bytes, 65536u);
  EXPECT_EQ(d.pools[0].scheme_block.p.spfc.k, 5u) << "the row's default, unused";
  Config e = parse_string(scheme_pool("spfc", "[pool.spfc]\nirc-th-packets = \"200\"\n"
                                              "window = \"1s\""),
                          "t.toml");
  EXPECT_EQ(e.pools[0].scheme_block.p.spfc.irc_th_packets, 200u);
}

// SPFC's window, when not given, is 4 round trips of the slowest port (2 x
// (cable + sw-delay)), at least the kernel's 1 ms.
TEST(Scheme, SpfcWindowDefaultsToFourRoundTrips)
{
  Config c = parse_string(scheme_pool("spfc", ""), "t.toml");  // sw-delay 1ms, cable 1us
  EXPECT_EQ(c.pools[0].scheme_block.p.spfc.tc_ns, 4 * 2 * (1000000u + 1000u));
  EXPECT_TRUE(c.warnings.empty());
  Config d = parse_string(scheme_pool("spfc", "sw-delay = \"10us\""), "t.toml");
  EXPECT_EQ(d.pools[0].scheme_block.p.spfc.tc_ns, 1000000u) << "88us: at least 1ms";
  Config e = parse_string(scheme_pool("spfc", "sw-delay = \"200ms\""), "t.toml");
  EXPECT_EQ(e.pools[0].scheme_block.p.spfc.tc_ns, 1000000000u) << "at most 1s";
  EXPECT_EQ(e.warnings.size(), 1u) << "1s is below 4 round trips of 400ms";
  // A round trip beyond 1 s: no window fits.
  EXPECT_EQ(errors_of(scheme_pool("spfc", "sw-delay = \"1s\"")),
            (std::vector<std::string>{
                "t.toml:1: pool \"sw0\": spfc: window TC 1s is shorter than port swp1's round "
                "trip 2 x (cable-delay + sw-delay) = 2000002us: a window must see the reaction to "
                "a pause"}));
}

// Below 4 round trips (and at least one) is legal, with a warning.
TEST(Scheme, SpfcWindowBelowFourRoundTripsWarns)
{
  Config c = parse_string(scheme_pool("spfc", "sw-delay = \"100us\"\n[pool.spfc]\n"
                                              "window = \"500us\""),
                          "t.toml");
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0],
            "t.toml:6: pool \"sw0\": spfc: window TC 500us is below 4 x port swp1's round trip "
            "2 x (cable-delay + sw-delay) = 202us (spfc.md: TC >= 4 RTT), so a Victim may be "
            "judged on a pause's transient");
}

// alpha x N_q past 1: the shared region, not the port's pause, is the
// limit (dsh.md 9 #3's warning).
TEST(Scheme, DshAlphaTimesPriosAboveOneWarns)
{
  Config c = parse_string(scheme_pool("dsh", "alpha = \"5/8\"\nbuffer = \"8mb\""), "t.toml");
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("t.toml:4: pool \"sw0\": dsh: N_q x T (2 lossless priorities x T "),
            std::string::npos)
      << c.warnings[0];
  EXPECT_NE(c.warnings[0].find("beyond the shared region"), std::string::npos) << c.warnings[0];
}

INSTANTIATE_TEST_SUITE_P(
    DshSpfc, Invalid,
    testing::Values(
        BadCase{"DshVariantRefusedPair",
                scheme_pool("dsh", "[pool.dsh]\nvariant = \"no-shared-headroom,static-tau\""),
                {"t.toml:5: pool \"sw0\": dsh: variant \"no-shared-headroom,static-tau\": "
                 "no-shared-headroom,static-tau do not go together"}},
        BadCase{"DshVariantUnknown", scheme_pool("dsh", "[pool.dsh]\nvariant = \"sih\""),
                {"t.toml:5: pool \"sw0\": dsh: variant \"sih\": must be dsh, or a comma list of "
                 "no-shared-headroom, no-insurance, static-tau (not no-shared-headroom with "
                 "static-tau)"}},
        BadCase{"DshVariantNotAString", scheme_pool("dsh", "[pool.dsh]\nvariant = 2"),
                {"t.toml:5: pool \"sw0\": dsh: variant 2: must be a string: dsh, or a comma list "
                 "of no-shared-headroom, no-insurance, static-tau (not no-shared-headroom with "
                 "static-tau), not an integer"}},
        BadCase{"DshShiftZero", scheme_pool("dsh", "[pool.dsh]\newma-shift = 0"),
                {"t.toml:5: pool \"sw0\": dsh: ewma-shift 0: must be an integer 1 .. 8"}},
        BadCase{"DshGainAboveMax", scheme_pool("dsh", "[pool.dsh]\ngain = 17"),
                {"t.toml:5: pool \"sw0\": dsh: gain 17: must be an integer 1 .. 16"}},
        BadCase{"DshWindowZero", scheme_pool("dsh", "[pool.dsh]\nwindow = \"0ns\""),
                {"t.toml:5: pool \"sw0\": dsh: window \"0ns\": must be a time 1ns .. 10s with a "
                 "unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"DshTableUnderSpfc", scheme_pool("spfc", "[pool.dsh]\nwindow = \"1ms\""),
                {"t.toml:4: pool \"sw0\": [pool.dsh] is for scheme \"dsh\"; this pool runs \"spfc\""}},
        BadCase{"SpfcTableUnderDsh", scheme_pool("dsh", "[pool.spfc]\nk = 5"),
                {"t.toml:4: pool \"sw0\": [pool.spfc] is for scheme \"spfc\"; this pool runs \"dsh\""}},
        // The reserves and the port's insurance leave no shared region:
        // 8 x 110000 + the 10G port's Phi (1 ms of software and its
        // catch-up: 2.5 MB).
        BadCase{"DshInsuranceLeavesNoSharedRegion",
                scheme_pool("dsh", "buffer = \"2mb\"\nreserved = \"110000\""),
                {"t.toml:4: pool \"sw0\": dsh: the reserves (880000 bytes) and the ports' "
                 "insurance headroom (2510958 bytes) leave no shared region in buffer (2097152 "
                 "bytes)"}},
        // One port: its Phi above what is left of the buffer (at the port).
        BadCase{"DshPhiAboveTheSharedRegionOfOnePort",
                scheme_pool("dsh", "buffer = \"4mb\"\nreserved = \"100000\""),
                {"t.toml:7: pool \"sw0\": dsh: port swp1's insurance headroom Phi (2510958 bytes) "
                 "is larger than the shared region (883346 bytes: the buffer less the reserves "
                 "(800000 bytes) and the ports' insurance headroom (2510958 bytes))"}},
        // Phi of a port larger than the shared region (at the port's
        // headroom key).
        BadCase{"DshPhiAboveTheSharedRegion",
                "[[pool]]\nname = \"sw0\"\npolicy = \"dsh\"\nbuffer = \"4mb\"\n\n"
                "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\nheadroom = \"2100000\"\n\n"
                "[[port]]\ndev = \"swp2\"\npool = \"sw0\"\nheadroom = \"64kb\"\n",
                {"t.toml:9: pool \"sw0\": dsh: port swp1's insurance headroom Phi (2100000 bytes) "
                 "is larger than the shared region (2004480 bytes: the buffer less the reserves "
                 "(24288 bytes) and the ports' insurance headroom (2165536 bytes))"}},
        BadCase{"DshNqTimesTBeyondTheBuffer",
                scheme_pool("dsh", "alpha = \"4\"\nbuffer = \"8mb\""),
                {"t.toml:4: pool \"sw0\": dsh: N_q x T (2 lossless priorities x T 23462024 bytes "
                 "of an empty pool = 46924048 bytes) beyond the buffer (8388608 bytes): lower "
                 "alpha or the lossless priorities"}},
        BadCase{"SpfcKZero", scheme_pool("spfc", "[pool.spfc]\nk = 0"),
                {"t.toml:5: pool \"sw0\": spfc: k 0: must be an integer 1 .. 1000"}},
        BadCase{"SpfcKNegative", scheme_pool("spfc", "[pool.spfc]\nk = -2"),
                {"t.toml:5: pool \"sw0\": spfc: k -2: must be an integer 1 .. 1000"}},
        BadCase{"SpfcKFloat", scheme_pool("spfc", "[pool.spfc]\nk = 2.5"),
                {"t.toml:5: pool \"sw0\": spfc: k 2.5: must be an integer 1 .. 1000, not a "
                 "floating-point number"}},
        BadCase{"SpfcKWholeFloat", scheme_pool("spfc", "[pool.spfc]\nk = 5.0"),
                {"t.toml:5: pool \"sw0\": spfc: k 5.0: must be an integer 1 .. 1000, not a "
                 "floating-point number"}},
        BadCase{"SpfcKNan", scheme_pool("spfc", "[pool.spfc]\nk = nan"),
                {"t.toml:5: pool \"sw0\": spfc: k nan: must be an integer 1 .. 1000, not NaN"}},
        BadCase{"SpfcKInf", scheme_pool("spfc", "[pool.spfc]\nk = inf"),
                {"t.toml:5: pool \"sw0\": spfc: k inf: must be an integer 1 .. 1000, not an "
                 "infinity"}},
        BadCase{"SpfcKNegativeInf", scheme_pool("spfc", "[pool.spfc]\nk = -inf"),
                {"t.toml:5: pool \"sw0\": spfc: k -inf: must be an integer 1 .. 1000, not an "
                 "infinity"}},
        BadCase{"SpfcKString", scheme_pool("spfc", "[pool.spfc]\nk = \"five\""),
                {"t.toml:5: pool \"sw0\": spfc: k \"five\": must be an integer 1 .. 1000"}},
        BadCase{"SpfcKAboveMax", scheme_pool("spfc", "[pool.spfc]\nk = 1001"),
                {"t.toml:5: pool \"sw0\": spfc: k 1001: must be an integer 1 .. 1000"}},
        BadCase{"SpfcKWithIrcTh",
                scheme_pool("spfc", "[pool.spfc]\nwindow = \"1s\"\nk = 4\nirc-th = \"64kb\""),
                {"t.toml:6: pool \"sw0\": spfc: k 4: K only derives IRC_th = C x TC / (8 K): not "
                 "with irc-th"}},
        BadCase{"SpfcIrcThBothUnits",
                scheme_pool("spfc", "[pool.spfc]\nwindow = \"1s\"\nirc-th = \"64kb\"\n"
                                    "irc-th-packets = 100"),
                {"t.toml:7: pool \"sw0\": spfc: irc-th and irc-th-packets together: give one "
                 "(bytes or packets)"}},
        // One frame of the ports (1500 + 18 bytes): the kernel's floor.
        BadCase{"SpfcIrcThBelowOneFrame",
                scheme_pool("spfc", "[pool.spfc]\nwindow = \"1s\"\nirc-th = \"1517\""),
                {"t.toml:6: pool \"sw0\": spfc: irc-th (1517 bytes) is below one frame (1518 "
                 "bytes): every queue would be a Victim"}},
        BadCase{"SpfcModeUnknown", scheme_pool("spfc", "[pool.spfc]\nmode = \"fast\""),
                {"t.toml:5: pool \"sw0\": spfc: mode \"fast\": must be irc, or a comma list of "
                 "window-end, daemon"}},
        BadCase{"SpfcWindowBelowMin", scheme_pool("spfc", "[pool.spfc]\nwindow = \"5us\""),
                {"t.toml:5: pool \"sw0\": spfc: window \"5us\": must be a time 10us .. 1s with a "
                 "unit ns, us, ms or s (5us, 1ms)"}},
        // TC below the port's round trip: 2 x (1 us + 1 ms).
        BadCase{"SpfcWindowBelowTheRoundTrip",
                scheme_pool("spfc", "[pool.spfc]\nwindow = \"1ms\""),
                {"t.toml:5: pool \"sw0\": spfc: window TC 1ms is shorter than port swp1's round "
                 "trip 2 x (cable-delay + sw-delay) = 2002us: a window must see the reaction to a "
                 "pause"}},
        BadCase{"SpfcVictimAboveBuffer",
                scheme_pool("spfc", "buffer = \"1mb\"\n[pool.spfc]\nvictim-threshold = \"2mb\""),
                {"t.toml:6: pool \"sw0\": spfc: victim-threshold \"2mb\": must be at most buffer "
                 "(1048576 bytes)"}}),
    [](const testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

INSTANTIATE_TEST_SUITE_P(
    Scheme, Invalid,
    testing::Values(
        BadCase{"UnknownSchemeSuggested", in_pool("scheme = \"sx\""),
                {"t.toml:4: pool \"sw0\": scheme \"sx\": unknown scheme (did you mean \"st\"?); known: dt, st, dsh, spfc, portfc"}},
        BadCase{"SchemeDisagreesWithPolicy", in_pool("scheme = \"st\""),
                {"t.toml:4: pool \"sw0\": scheme \"st\": policy \"pfc-dt\" drives scheme \"dt\" (policy \"st\" drives this one)"}},
        BadCase{"TableOfAnotherScheme", in_pool("[pool.st]\nthreshold = \"64kb\""),
                {"t.toml:4: pool \"sw0\": [pool.st] is for scheme \"st\"; this pool runs \"dt\""}},
        BadCase{"ThresholdAboveBuffer", st_pool("buffer = \"1mb\"\n[pool.st]\nthreshold = \"2mb\""),
                {"t.toml:6: pool \"sw0\": st: threshold \"2mb\": must be at most buffer (1048576 bytes)"}},
        BadCase{"ThresholdNotASize", st_pool("[pool.st]\nthreshold = \"lots\""),
                {"t.toml:5: pool \"sw0\": st: threshold \"lots\": must be 0 .. 1099511627776 bytes (tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)"}},
        BadCase{"UnknownKeyOfTheScheme", st_pool("[pool.st]\nthreshhold = \"64kb\""),
                {"t.toml:5: pool \"sw0\": st: unknown key \"threshhold\" (did you mean \"threshold\"?)"}},
        BadCase{"SchemeNotATable", st_pool("st = 5"),
                {"t.toml:4: pool \"sw0\": st 5: must be a table ([pool.st]), not an integer"}}),
    [](const testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

INSTANTIATE_TEST_SUITE_P(
    Watchdog, Invalid,
    testing::Values(
        BadCase{"ActionUnknownSuggested", in_pool("pfcwd = \"dorp\""),
                {"t.toml:4: pool \"sw0\": pfcwd \"dorp\": must be off, alert, forward or drop (did you mean \"drop\"?)"}},
        BadCase{"ActionUpperCase", in_pool("pfcwd = \"DROP\""),
                {"t.toml:4: pool \"sw0\": pfcwd \"DROP\": must be off, alert, forward or drop"}},
        BadCase{"ActionInteger", in_pool("pfcwd = 3"),
                {"t.toml:4: pool \"sw0\": pfcwd 3: must be a string: off, alert, forward or drop, not an integer"}},
        BadCase{"ActionBoolean", in_port("pfcwd = false"),
                {"t.toml:8: port \"swp1\": pfcwd false: must be a string: off, alert, forward or drop, not a boolean"}},
        BadCase{"DetectZero", in_pool("pfcwd-detect = \"0ms\""),
                {"t.toml:4: pool \"sw0\": pfcwd-detect \"0ms\": must be a time 1ms .. 60s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"DetectWithoutUnit", in_pool("pfcwd-detect = 200"),
                {"t.toml:4: pool \"sw0\": pfcwd-detect 200: must be a time 1ms .. 60s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"RestoreAboveMax", in_pool("pfcwd-restore = \"60001ms\""),
                {"t.toml:4: pool \"sw0\": pfcwd-restore \"60001ms\": must be a time 1ms .. 60s with a unit ns, us, ms or s (5us, 1ms)"}},
        BadCase{"PollFloat", in_pool("pfcwd-poll = 1.5"),
                {"t.toml:4: pool \"sw0\": pfcwd-poll 1.5: must be a time (a string such as \"1ms\"), not a floating-point number"}},
        BadCase{"AlarmAboveMax", in_pool("xoff-alarm = \"3601s\""),
                {"t.toml:4: pool \"sw0\": xoff-alarm \"3601s\": must be a time 1ms .. 3600s with a unit ns, us, ms or s (5us, 1ms), or \"off\""}},
        BadCase{"UnknownKeySuggested", in_pool("pfcwd-detcet = \"200ms\""),
                {"t.toml:4: pool \"sw0\": unknown key \"pfcwd-detcet\" (did you mean \"pfcwd-detect\"?)"}},
        // The tables of the old spelling, refused with the keys to write.
        BadCase{"OldPoolTable", in_pool("[pool.watchdog]\naction = \"drop\"\ndetection_time_ms = 400\nxoff_alarm_ms = 0"),
                {"t.toml:4: pool \"sw0\": watchdog: renamed; write pfcwd = \"drop\", pfcwd-detect = \"400ms\", xoff-alarm = \"off\" in the [[pool]] or [[port]] itself, as tc's options"}},
        BadCase{"OldPortTable", in_port("watchdog = { xoff_alarm_ms = 5000, restoration_time_ms = 60000 }"),
                {"t.toml:8: port \"swp1\": watchdog: renamed; write pfcwd-restore = \"60000ms\", xoff-alarm = \"5000ms\" in the [[pool]] or [[port]] itself, as tc's options"}},
        BadCase{"OldNotATable", in_pool("watchdog = \"drop\""),
                {"t.toml:4: pool \"sw0\": watchdog: renamed; write pfcwd = \"drop\", pfcwd-detect = \"200ms\", ... in the [[pool]] or [[port]] itself, as tc's options"}},
        BadCase{"TopLevelSection", "[watchdog]\naction = \"drop\"\n" + in_pool(""),
                {"t.toml:1: unknown section \"watchdog\": a watchdog belongs to the pools or the ports: pfcwd = \"drop\", pfcwd-detect = \"200ms\", ... in a [[pool]] or a [[port]], as tc's options"}},
        // The kernel's cross-checks, on the values in force.
        BadCase{"PollAboveDefaultDetect", in_pool("pfcwd-poll = \"250ms\"\npfcwd-restore = \"300ms\""),
                {"t.toml:4: pool \"sw0\": pfcwd-poll \"250ms\" must be at most pfcwd-detect \"200ms\" (the default)"}},
        BadCase{"DefaultPollAboveDetect", in_pool("pfcwd = \"drop\"\npfcwd-detect = \"50ms\""),
                {"t.toml:5: pool \"sw0\": pfcwd-poll \"100ms\" (the default) must be at most pfcwd-detect \"50ms\""}},
        BadCase{"PollAboveBoth", in_pool("pfcwd-poll = \"300ms\""),
                {"t.toml:4: pool \"sw0\": pfcwd-poll \"300ms\" must be at most pfcwd-detect \"200ms\" (the default) and pfcwd-restore \"200ms\" (the default)"}},
        BadCase{"AlarmBelowPoll", in_pool("xoff-alarm = \"50ms\""),
                {"t.toml:4: pool \"sw0\": xoff-alarm \"50ms\" must be \"off\" or at least pfcwd-poll \"100ms\" (the default)"}},
        BadCase{"BothChecks", in_pool("xoff-alarm = \"500ms\"\npfcwd-poll = \"1s\""),
                {"t.toml:4: pool \"sw0\": xoff-alarm \"500ms\" must be \"off\" or at least pfcwd-poll \"1s\"",
                 "t.toml:5: pool \"sw0\": pfcwd-poll \"1s\" must be at most pfcwd-detect \"200ms\" (the default) and pfcwd-restore \"200ms\" (the default)"}},
        BadCase{"PortAgainstItsPool",
                "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\npfcwd-poll = \"100ms\"\n"
                "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\npfcwd-detect = \"50ms\"\n",
                {"t.toml:8: port \"swp1\": pfcwd-poll \"100ms\" (from pool \"sw0\") must be at most pfcwd-detect \"50ms\""}},
        BadCase{"PortAlarmAgainstItsPool",
                "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\npfcwd-poll = \"150ms\"\n"
                "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\nxoff-alarm = \"100ms\"\n",
                {"t.toml:8: port \"swp1\": xoff-alarm \"100ms\" must be \"off\" or at least pfcwd-poll \"150ms\" (from pool \"sw0\")"}},
        // A port over a pool's invalid watchdog: no second error.
        BadCase{"PortOfBadPoolWatchdogHasNoSecondError",
                "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\npfcwd-poll = \"300ms\"\n"
                "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\npfcwd = \"drop\"\n",
                {"t.toml:4: pool \"sw0\": pfcwd-poll \"300ms\" must be at most pfcwd-detect \"200ms\" (the default) and pfcwd-restore \"200ms\" (the default)"}},
        BadCase{"PoolWithoutNameStillChecked",
                "[[pool]]\npolicy = \"pfc-dt\"\npfcwd = \"stop\"\n" + std::string(kPorts),
                {"t.toml:1: pool #1: missing required key \"name\"",
                 "t.toml:3: pool #1: pfcwd \"stop\": must be off, alert, forward or drop (did you mean \"drop\"?)",
                 "t.toml:7: port \"swp1\": pool \"sw0\": no [[pool]] has this name"}}),
    [](const testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

// Every old spelling (a key with '_' where tc has '-', the watchdog's
// tables of milliseconds) is refused with the key to write, its value
// carried over.
INSTANTIATE_TEST_SUITE_P(
    OldSpelling, Invalid,
    testing::Values(
        BadCase{"PoolSwDelay", in_pool("sw_delay = \"1ms\""),
                {"t.toml:4: pool \"sw0\": sw_delay: renamed; write sw-delay = \"1ms\""}},
        BadCase{"PoolPrios", in_pool("lossless_prios = [3, 4]"),
                {"t.toml:4: pool \"sw0\": lossless_prios: renamed; write lossless-prios = [ 3, 4 ]"}},
        BadCase{"PortCable", in_port("cable_length = \"100m\""),
                {"t.toml:8: port \"swp1\": cable_length: renamed; write cable-length = \"100m\""}},
        BadCase{"PortDefaultPrio", in_port("default_prio = 3"),
                {"t.toml:8: port \"swp1\": default_prio: renamed; write default-prio = 3"}},
        BadCase{"ModeKey", in_port("mode = \"bifrost\"\nbifrost_rtt = \"auto\"\nbifrost-rtt = \"auto\""),
                {"t.toml:9: port \"swp1\": bifrost_rtt: renamed; write bifrost-rtt = \"auto\""}},
        BadCase{"Daemon", in_daemon("pin_dir = \"/sys/fs/bpf/x\""),
                {"t.toml:2: [daemon]: pin_dir: renamed; write pin-dir = \"/sys/fs/bpf/x\""}},
        BadCase{"SchemeTable", "[[pool]]\nname = \"sw0\"\npolicy = \"dsh\"\n[pool.dsh]\newma_shift = 3\n" +
                                   std::string(kPorts),
                {"t.toml:5: pool \"sw0\": dsh: ewma_shift: renamed; write ewma-shift = 3"}}),
    [](const testing::TestParamInfo<BadCase> &i) { return std::string(i.param.name); });

TEST(Config, ErrorExposesTheListAndWhatHasOneLineEach)
{
  try {
    parse_string(in_pool("alpha = \"1/3\"\nbuffer = \"0\""), "losslessd.toml");
    FAIL() << "parsed";
  } catch (const ConfigError &e) {
    ASSERT_EQ(e.diagnostics().size(), 2u);
    EXPECT_EQ(e.diagnostics()[0].file, "losslessd.toml");
    EXPECT_EQ(e.diagnostics()[0].line, 4u);
    EXPECT_EQ(e.diagnostics()[1].line, 5u);
    EXPECT_EQ(std::string(e.what()),
              "losslessd.toml:4: pool \"sw0\": alpha \"1/3\": the denominator must be a power of "
              "two 1 .. 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)\n"
              "losslessd.toml:5: pool \"sw0\": buffer \"0\": must be 1 .. 1099511627776 bytes "
              "(tc size units b, kb, mb, gb: 1500b, 64kb, 4mb)");
  }
}

TEST(Config, AtMost64PortsPerPool)
{
  std::string text = in_pool("");  // port swp1 at line 6
  for (int i = 2; i <= 65; i++)
    text += "[[port]]\ndev = \"p" + std::to_string(i) + "\"\npool = \"sw0\"\n";
  // port i (2..65) starts at line 9 + 3 (i - 2); its pool key is 2 below.
  EXPECT_EQ(errors_of(text), std::vector<std::string>{
                                 "t.toml:200: port \"p65\": pool \"sw0\" already has 64 ports (at "
                                 "most 64)"});
  text.resize(text.rfind("[[port]]"));
  EXPECT_EQ(parse_string(text, "t.toml").ports.size(), 64u);
}

TEST(Config, PrometheusAddresses)
{
  Config c = parse_string(in_daemon("prometheus = \"[::1]:9100\""), "t.toml");
  ASSERT_TRUE(c.daemon.prometheus);
  EXPECT_EQ(c.daemon.prometheus->address, "::1");
  EXPECT_EQ(c.daemon.prometheus->port, 9100);
  EXPECT_TRUE(c.daemon.prometheus->ipv6);
  EXPECT_TRUE(c.daemon.prometheus->loopback);
  c = parse_string(in_daemon("prometheus = \"192.0.2.7:9464\""), "t.toml");
  ASSERT_TRUE(c.daemon.prometheus);
  EXPECT_EQ(c.daemon.prometheus->address, "192.0.2.7");
  EXPECT_FALSE(c.daemon.prometheus->loopback);
}

TEST(Config, ParseFileNamesTheFileAndReadsIt)
{
  char dir[] = "/tmp/ll_config_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/losslessd.toml";
  {
    std::ofstream f(path);
    f << in_pool("alpha = \"1/3\"");
  }
  try {
    parse_file(path);
    ADD_FAILURE() << "parsed";
  } catch (const ConfigError &e) {
    EXPECT_EQ(e.errors(), std::vector<std::string>{
                              path + ":4: pool \"sw0\": alpha \"1/3\": the denominator must be a "
                                     "power of two 1 .. 2^32 (NUM or NUM/DEN: 1/8, 3/4, 2)"});
  }
  {
    std::ofstream f(path);
    f << in_pool("alpha = \"1/4\"");
  }
  Config c = parse_file(path);
  EXPECT_EQ(c.source, path);
  EXPECT_EQ(c.pools.at(0).alpha, (1u << 8) | 2);
  std::remove(path.c_str());
  try {
    parse_file(path);
    ADD_FAILURE() << "parsed a missing file";
  } catch (const ConfigError &e) {
    EXPECT_EQ(std::string(e.what()),
              path + ": cannot read the configuration: No such file or directory");
  }
  rmdir(dir);
}

// The shared C units, directly (the tc plugin's tests cover its messages).
TEST(SharedUnits, ParseAndRangeCheck)
{
  std::uint64_t v = 0;
  const char *unit = nullptr;
  EXPECT_EQ(ll_units_size("2mb", &v), 0);
  EXPECT_EQ(v, 2097152u);
  EXPECT_EQ(ll_units_size("-1", &v), -1);
  EXPECT_EQ(ll_units_size("1e300", &v), -1);
  EXPECT_EQ(ll_units_time("60", 1000000000, &v), -1);
  EXPECT_EQ(ll_units_time("2.3ms", 1000000000, &v), 0);
  EXPECT_EQ(v, 2300000u);
  EXPECT_EQ(ll_units_time("1s", 999999999, &v), -1);
  EXPECT_EQ(ll_units_rate("10gbit", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_OK);
  EXPECT_EQ(v, 10000000000u);
  EXPECT_EQ(ll_units_rate("10gbps", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_AMBIGUOUS);
  EXPECT_STREQ(unit, "gbps");
  EXPECT_EQ(ll_units_rate("10GBps", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_OK);
  EXPECT_EQ(v, 80000000000u);
  EXPECT_EQ(ll_units_rate("1e40tbit", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_RANGE);
  EXPECT_EQ(ll_units_rate("fast", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_SYNTAX);
  EXPECT_EQ(ll_units_rate("10x", 8000, 1600000000000, &v, &unit), LL_UNITS_RATE_UNIT);
  EXPECT_STREQ(unit, "x");
  std::uint32_t p = 0;
  EXPECT_EQ(ll_units_prob("0.2", &p), 0);
  EXPECT_EQ(p, 13107u);
  EXPECT_EQ(ll_units_prob("2e-1", &p), -1);
  EXPECT_EQ(ll_units_prob_double(1.0000001, &p), -1);
  EXPECT_EQ(ll_units_pool_name("sw0"), 0);
  EXPECT_EQ(ll_units_pool_name(""), -1);
  EXPECT_EQ(ll_units_pool_name("sw 0"), 3);
}

// Lossless priorities: one rule for tc's lossless-prios (text) and this
// file's lossless-prios (array): 0 .. 7, each listed at most once.
TEST(SharedUnits, LosslessPriorities)
{
  std::uint8_t mask = 0;
  long long bad = -1;
  EXPECT_EQ(ll_units_prios("3,4", &mask, &bad), LL_UNITS_PRIOS_OK);
  EXPECT_EQ(mask, 0x18u);
  EXPECT_EQ(ll_units_prios("none", &mask, &bad), LL_UNITS_PRIOS_OK);
  EXPECT_EQ(mask, 0u);
  EXPECT_EQ(ll_units_prios("7,6,5,4,3,2,1,0", &mask, &bad), LL_UNITS_PRIOS_OK);
  EXPECT_EQ(mask, 0xffu);
  mask = 0x42;
  EXPECT_EQ(ll_units_prios("3,3", &mask, &bad), LL_UNITS_PRIOS_DUPLICATE);
  EXPECT_EQ(bad, 3);
  EXPECT_EQ(mask, 0x42u) << "unchanged on error";
  EXPECT_EQ(ll_units_prios("1,2,1", &mask, &bad), LL_UNITS_PRIOS_DUPLICATE);
  EXPECT_EQ(bad, 1);
  EXPECT_EQ(ll_units_prios("3,8", &mask, &bad), LL_UNITS_PRIOS_RANGE);
  EXPECT_EQ(bad, 8);
  for (const char *t : {"", "3,", ",3", "3,,4", "03", "-1", "3 4", "a", "None"})
    EXPECT_EQ(ll_units_prios(t, &mask, &bad), LL_UNITS_PRIOS_SYNTAX) << "\"" << t << "\"";

  mask = 0;
  EXPECT_EQ(ll_units_prios_add(&mask, 3), LL_UNITS_PRIOS_OK);
  EXPECT_EQ(ll_units_prios_add(&mask, 3), LL_UNITS_PRIOS_DUPLICATE);
  EXPECT_EQ(ll_units_prios_add(&mask, 8), LL_UNITS_PRIOS_RANGE);
  EXPECT_EQ(ll_units_prios_add(&mask, -1), LL_UNITS_PRIOS_RANGE);
  EXPECT_EQ(mask, 0x08u);
}

}  // namespace

// A NUL inside a string would pass every C-string check as its prefix
// (found by tests/fuzz/config_fuzz.cpp): refused wherever it is, with its line.
TEST(Config, NulInsideAStringIsRefused)
{
  std::string nul_unit = "[[pool]]\nname = \"sw0\"\nbuffer = \"4mb\\u0000 nonsense\"\n";
  auto e = errors_of(nul_unit);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], "t.toml:3:10: a string holds a NUL character (\\u0000)");
  auto name = errors_of("[[pool]]\nname = \"sw0\\u0000evil\"\n");
  ASSERT_EQ(name.size(), 1u);
  EXPECT_EQ(name[0], "t.toml:2:8: a string holds a NUL character (\\u0000)");
  auto key = errors_of("[[pool]]\nname = \"sw0\"\n\"x\\u0000y\" = 1\n");
  ASSERT_FALSE(key.empty());
  EXPECT_NE(key[0].find("a key holds a NUL character"), std::string::npos) << key[0];
}

// ---------------------------------------------------------------------------
// [host_cc]: the hosts' congestion control. Its values go through ll_cc's
// parameter code (daemon/cc/cc_params.h), the same as lossless-cc set's.

namespace hostcc {

namespace cc = lossless::cc;

// A file with only [host_cc] (line 1), extra from line 4.
std::string host(const std::string &extra, const std::string &algo = "pcn")
{
  return "[host_cc]\nalgo = \"" + algo + "\"\nports = [\"eth0\"]\n" + extra + "\n";
}

TEST(HostCc, AHostWithoutPoolsIsAConfiguration)
{
  Config c = parse_string(host("line-rate = \"25gbit\""), "t.toml");
  EXPECT_TRUE(c.pools.empty());
  EXPECT_TRUE(c.ports.empty());
  ASSERT_TRUE(c.host_cc);
  const HostCc &h = *c.host_cc;
  EXPECT_EQ(h.line, 1u);
  EXPECT_EQ(h.algo, cc::Algo::Pcn);
  EXPECT_EQ(h.ports, std::vector<std::string>{"eth0"});
  EXPECT_EQ(h.line_rate_kbps, 25000000u);
  EXPECT_EQ(h.gc_idle_ns, 10000000000u);
  EXPECT_EQ(h.pin_dir, "/sys/fs/bpf/lossless_cc");
  EXPECT_EQ(h.top_flows, 10u);
  // Derived and checked at load: the core's defaults for 25 Gbit/s, the
  // horizon 4 T.
  ASSERT_TRUE(h.params);
  EXPECT_EQ(*h.params, cc::Config::defaults(cc::Algo::Pcn, 25000000));
  EXPECT_EQ(h.params->rp_horizon_ns, 4 * h.params->pcn.period_ns);
  EXPECT_EQ(h.params->pcn.line_rate_kbps, 25000000u);
}

TEST(HostCc, AutoLeavesTheParametersToTheDaemon)
{
  Config c = parse_string(host(""), "t.toml");  // line_rate defaults to auto
  ASSERT_TRUE(c.host_cc);
  EXPECT_FALSE(c.host_cc->line_rate_kbps);
  EXPECT_FALSE(c.host_cc->params);
  // What the daemon runs with the link speed: the same derivation.
  cc::Config p;
  EXPECT_EQ(host_cc_params(*c.host_cc, 10000000, &p), "");
  EXPECT_EQ(p, cc::Config::defaults(cc::Algo::Pcn, 10000000));
}

TEST(HostCc, PcnKeysAsLosslessCcsOptions)
{
  Config c = parse_string(host("line-rate = \"10gbit\"\nperiod = \"100us\"\ntheta = 90\n"
                               "w-min = \"1/64\"\nw-max = 0.25\nmin-rate = \"10mbit\"\n"
                               "roles = \"rp\"\ncnp-prio = 5\ncnp-dscp = 46\ngc-idle = \"2s\"\n"
                               "pin-dir = \"/sys/fs/bpf/x/\"\ntop-flows = 3"),
                          "t.toml");
  ASSERT_TRUE(c.host_cc && c.host_cc->params);
  const cc::Config &p = *c.host_cc->params;
  EXPECT_EQ(p.pcn.period_ns, 100000u);
  EXPECT_EQ(p.pcn.theta_pct, 90u);
  EXPECT_EQ(p.pcn.w_min_q24, LL_PCN_Q24_ONE / 64);
  EXPECT_EQ(p.pcn.w_max_q24, LL_PCN_Q24_ONE / 4);
  EXPECT_EQ(p.pcn.min_rate_kbps, 10000u);
  EXPECT_EQ(p.roles, LL_CC_ROLE_RP);
  EXPECT_EQ(p.cnp_prio, 5);
  EXPECT_EQ(p.cnp_dscp, 46);
  // Derived from the period: the idle times 20 T (above 1 ms), the
  // horizon 4 T, as lossless-cc set derives them.
  EXPECT_EQ(p.pcn.rp_idle_ns, 2000000u);
  EXPECT_EQ(p.pcn.np_idle_ns, 2000000u);
  EXPECT_EQ(p.rp_horizon_ns, 400000u);
  EXPECT_EQ(c.host_cc->gc_idle_ns, 2000000000u);
  EXPECT_EQ(c.host_cc->pin_dir, "/sys/fs/bpf/x");
  EXPECT_EQ(c.host_cc->top_flows, 3u);
}

TEST(HostCc, DcqcnKeys)
{
  Config c = parse_string(host("line-rate = \"40gbit\"\ncnp-interval = \"20us\"\n"
                               "rate-timer = \"100us\"\nalpha-timer = \"60us\"\n"
                               "byte-counter = \"1mb\"\ng = \"1/16\"\nf = 3\nrai = \"10mbit\"\n"
                               "rhai = \"100mbit\"\nhorizon = 0",
                               "dcqcn"),
                          "t.toml");
  ASSERT_TRUE(c.host_cc && c.host_cc->params);
  const cc::Config &p = *c.host_cc->params;
  EXPECT_EQ(p.algo, cc::Algo::Dcqcn);
  EXPECT_EQ(p.dcqcn.line_rate_kbps, 40000000u);
  EXPECT_EQ(p.dcqcn.cnp_interval_ns, 20000u);
  EXPECT_EQ(p.dcqcn.rate_timer_ns, 100000u);
  EXPECT_EQ(p.dcqcn.alpha_timer_ns, 60000u);
  EXPECT_EQ(p.dcqcn.byte_counter_bytes, 1048576u);
  EXPECT_EQ(p.dcqcn.g_q24, LL_PCN_Q24_ONE / 16);
  EXPECT_EQ(p.dcqcn.f_stages, 3u);
  EXPECT_EQ(p.dcqcn.rai_kbps, 10000u);
  EXPECT_EQ(p.dcqcn.rhai_kbps, 100000u);
  EXPECT_EQ(p.rp_horizon_ns, 0u);
}

TEST(HostCc, BesidePoolsAndPorts)
{
  Config c = parse_string(in_pool("") + "\n" + host("line-rate = \"10gbit\""), "t.toml");
  EXPECT_EQ(c.pools.size(), 1u);
  EXPECT_EQ(c.ports.size(), 1u);
  EXPECT_TRUE(c.host_cc);
}

struct HostBad {
  const char *name;
  std::string text;
  std::vector<std::string> errors;
};

class HostCcInvalid : public ::testing::TestWithParam<HostBad> {};

TEST_P(HostCcInvalid, FailsNamingTheKey)
{
  EXPECT_EQ(errors_of(GetParam().text), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    Config, HostCcInvalid,
    ::testing::Values(
        HostBad{"KeyAtTheTopLevel", "algo = \"pcn\"\n",
                {"t.toml: the configuration is empty: it needs at least one [[pool]] and one "
                 "[[port]], or [host_cc]",
                 "t.toml:1: unknown key \"algo\" at the top level (it belongs in [host_cc])"}},
        HostBad{"NoAlgo", "[host_cc]\nports = [\"eth0\"]\n",
                {"t.toml:1: [host_cc]: missing required key \"algo\" (\"pcn\" or \"dcqcn\")"}},
        HostBad{"Off", host("", "off"),
                {"t.toml:2: [host_cc]: algo \"off\": must be \"pcn\" or \"dcqcn\""}},
        HostBad{"Typo", host("", "pnc"),
                {"t.toml:2: [host_cc]: algo \"pnc\": must be \"pcn\" or \"dcqcn\" (did you mean "
                 "\"pcn\"?)"}},
        HostBad{"NoPorts", "[host_cc]\nalgo = \"pcn\"\n",
                {"t.toml:1: [host_cc]: missing required key \"ports\" (the host ports to attach "
                 "to: [\"eth0\"])"}},
        HostBad{"EmptyPorts", "[host_cc]\nalgo = \"pcn\"\nports = []\n",
                {"t.toml:3: [host_cc]: ports: must name at least one device ([\"eth0\"])"}},
        HostBad{"PortTwice", "[host_cc]\nalgo = \"pcn\"\nports = [\"a\", \"a\"]\n",
                {"t.toml:3: [host_cc]: ports \"a\": is listed twice"}},
        HostBad{"PortName", "[host_cc]\nalgo = \"pcn\"\nports = [\"a/b\"]\n",
                {"t.toml:3: [host_cc]: ports \"a/b\": not a device name (1 .. 15 characters, no "
                 "'/', ':' or white space)"}},
        HostBad{"UnknownKey", host("perod = \"1ms\""),
                {"t.toml:4: [host_cc]: unknown key \"perod\" (did you mean \"period\"?)"}},
        HostBad{"OldSpelling", host("w_min = \"1/64\""),
                {"t.toml:4: [host_cc]: w_min: renamed; write w-min = \"1/64\""}},
        HostBad{"DcqcnKeyWithPcn", host("rai = \"5mbit\""),
                {"t.toml:4: [host_cc]: rai \"5mbit\": is a key of DCQCN, not of algo = \"pcn\""}},
        HostBad{"PcnKeyWithDcqcn", host("w-max = \"1/2\"", "dcqcn"),
                {"t.toml:4: [host_cc]: w-max \"1/2\": is a key of PCN, not of algo = \"dcqcn\""}},
        HostBad{"BadRate", host("line-rate = \"25gbps\""),
                {"t.toml:4: [host_cc]: line-rate \"25gbps\": \"gbps\" is ambiguous: write gbit "
                 "for bits/s or gBps for bytes/s, or \"auto\""}},
        HostBad{"BadFraction", host("line-rate = \"1gbit\"\nw-min = \"0\""),
                {"t.toml:5: [host_cc]: w-min \"0\": must be above 0"}},
        HostBad{"BadPrio", host("cnp-prio = 8"),
                {"t.toml:4: [host_cc]: cnp-prio 8: must be 0 .. 7"}},
        HostBad{"BadTime", host("period = \"fast\""),
                {"t.toml:4: [host_cc]: period \"fast\": not a time up to 1 hour with " +
                 std::string(LL_UNITS_TIME_UNITS) + " (" LL_UNITS_TIME_EXAMPLES "), or 0"}},
        HostBad{"TopFlows", host("top-flows = 0"),
                {"t.toml:4: [host_cc]: top-flows 0: must be an integer 1 .. 1000"}},
        HostBad{"PinDir", host("pin-dir = \"x\""),
                {"t.toml:4: [host_cc]: pin-dir \"x\": must be an absolute path"}},
        // ll_cc's check at load, naming the keys as written.
        HostBad{"WMinAboveWMax",
                host("line-rate = \"10gbit\"\nw-min = \"1/2\"\nw-max = \"1/4\""),
                {"t.toml:5: [host_cc]: w-min \"1/2\", w-max \"1/4\": " +
                 lossless::cc::check([] {
                   auto c = cc::Config::defaults(cc::Algo::Pcn, 10000000);
                   c.pcn.w_min_q24 = LL_PCN_Q24_ONE / 2;
                   c.pcn.w_max_q24 = LL_PCN_Q24_ONE / 4;
                   return c;
                 }())}},
        HostBad{"ZeroPeriod", host("line-rate = \"10gbit\"\nperiod = 0"),
                {"t.toml:5: [host_cc]: period \"0\": " + lossless::cc::check([] {
                   auto c = cc::Config::defaults(cc::Algo::Pcn, 10000000);
                   c.pcn.period_ns = 0;
                   return c;
                 }())}}),
    [](const auto &info) { return std::string(info.param.name); });

TEST(HostCc, CheckMessagesNameEveryKey)
{
  // A refusal by ll_cc's check names the key; the default when not given.
  auto e = errors_of(host("line-rate = \"10gbit\"\nw-min = \"3/4\""));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("t.toml:5: [host_cc]: w-min \"3/4\", w-max (the default): "),
            std::string::npos)
      << e[0];
  // min_rate above the line rate: both named.
  e = errors_of(host("line-rate = \"1mbit\"\nmin-rate = \"10mbit\""));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_NE(e[0].find("min-rate \"10mbit\""), std::string::npos) << e[0];
  EXPECT_NE(e[0].find("line-rate \"1mbit\""), std::string::npos) << e[0];
}

TEST(HostCc, TheExampleFileParses)
{
  Config c = parse_file(LL_DOCS_DIR "/examples/host-cc.toml");
  EXPECT_TRUE(c.pools.empty());
  ASSERT_TRUE(c.host_cc);
  EXPECT_EQ(c.host_cc->algo, cc::Algo::Pcn);
  EXPECT_TRUE(c.warnings.empty());
}

}  // namespace hostcc
