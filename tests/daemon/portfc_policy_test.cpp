// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's PortFC policy, its pure part: the [portfc] table and every
// refusal of spec 10.4 B-11 with its message; the switch's thresholds and
// buffer against the headroom rule of docs/PORTFC.md; the ports' queues and gates; the
// stuck detector as a state machine fed made-up samples.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"
#include "portfc_policy.h"

namespace {

using namespace lossless::config;
namespace pf = lossless::portfc;

// A BCube(4,1) switch: a pool of scheme portfc, its four ports, then
// [portfc] at line 19 with extra (its keys from line 25).
std::string a_switch(const std::string &extra, const std::string &pool_extra = "",
                     const std::string &ports = R"(["w0", "w1", "w2", "w3"])")
{
  std::string s =
      "[[pool]]\nname = \"w19\"\npolicy = \"portfc\"\nbuffer = \"4mb\"\n"
      "lossless-prios = [0, 1, 2, 3, 4, 5, 6, 7]\n" +
      pool_extra + "\n";
  for (int i = 0; i < 4; i++)
    s += "[[port]]\ndev = \"w" + std::to_string(i) + "\"\npool = \"w19\"\n";
  return s + "[portfc]\nn = 4\nk = 1\nrole = \"switch\"\nswitch = 3\nlevel = 0\nports = " + ports +
         "\n" + extra;
}

// A BCube(4,1) server: its own pool (scheme dt), two ports, then [portfc].
std::string a_server(const std::string &keys, const std::string &ports = R"(["s0", "s1"])")
{
  return "[[pool]]\nname = \"s15\"\npolicy = \"pfc-dt\"\n[[port]]\ndev = \"s0\"\npool = \"s15\"\n"
         "[[port]]\ndev = \"s1\"\npool = \"s15\"\n"
         "[portfc]\nrole = \"server\"\nports = " +
         ports + "\n" + keys;
}

std::vector<std::string> errors_of(const std::string &text)
{
  try {
    parse_string(text, "t.toml");
  } catch (const ConfigError &e) {
    return e.errors();
  }
  return {"parsed"};
}

TEST(PortfcConfig, ASwitch)
{
  Config c = parse_string(a_switch("base = \"10.2.0.1\"\nstuck = \"250ms\"\n"
                                   "relay-queue = \"8kb\"\npin-dir = \"/sys/fs/bpf/pw/\"\n"),
                          "t.toml");
  ASSERT_TRUE(c.portfc);
  const Portfc &p = *c.portfc;
  EXPECT_EQ(p.n, 4u);
  EXPECT_EQ(p.k, 1u);
  EXPECT_EQ(p.role, PortfcRole::Switch);
  EXPECT_EQ(p.node, 3u);
  EXPECT_EQ(p.level, 0u);
  EXPECT_EQ(p.ports, (std::vector<std::string>{"w0", "w1", "w2", "w3"}));
  EXPECT_EQ(p.base, 0x0a020001u);
  EXPECT_EQ(p.stuck_ns, 250000000u);
  EXPECT_EQ(p.relay_queue_bytes, 8192u);
  EXPECT_EQ(p.pin_dir, "/sys/fs/bpf/pw");
  EXPECT_EQ(p.pool, "w19");
  EXPECT_EQ(p.line, 19u);
  // The pool takes n from [portfc].
  EXPECT_EQ(c.pools[0].scheme_block.p.portfc.n, 4u);
}

TEST(PortfcConfig, AServerWithDefaults)
{
  Config c = parse_string(a_server("n = 4\nserver = 15\n"), "t.toml");
  ASSERT_TRUE(c.portfc);
  EXPECT_EQ(c.portfc->role, PortfcRole::Server);
  EXPECT_EQ(c.portfc->node, 15u);
  EXPECT_EQ(c.portfc->k, 1u);
  EXPECT_EQ(c.portfc->base, kPortfcBaseDefault);
  EXPECT_EQ(c.portfc->stuck_ns, kPortfcStuckDefaultNs);
  EXPECT_EQ(c.portfc->pin_dir, "/sys/fs/bpf/lossless_portfc");
  EXPECT_EQ(c.portfc->pool, "");
  Config off = parse_string(a_server("n = 4\nserver = 15\nstuck = \"off\"\n"), "t.toml");
  EXPECT_EQ(off.portfc->stuck_ns, 0u);
}

// B-11, each refusal with its message (and nothing else).
struct Refusal {
  const char *name;
  std::string text;
  std::vector<std::string> errors;
};

class PortfcRefusals : public ::testing::TestWithParam<Refusal> {};

TEST_P(PortfcRefusals, NamesTheKey)
{
  EXPECT_EQ(errors_of(GetParam().text), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(
    B11, PortfcRefusals,
    ::testing::Values(
        // n < 2, n above the frame's 7 slots.
        Refusal{"NBelowTwo",
                a_server("n = 1\nserver = 0\n"),
                {"t.toml:13: [portfc]: n 1: must be an integer 2 .. 8"}},
        Refusal{"NAboveEight",
                a_server("n = 9\nserver = 0\n"),
                {"t.toml:13: [portfc]: n 9: must be an integer 2 .. 8"}},
        Refusal{"NMissing",
                a_server("server = 0\n"),
                {"t.toml:10: [portfc]: missing required key \"n\" (the BCube radix, 2 .. 8)"}},
        // k >= 2 (no experimental flag: the classifier refuses it too).
        Refusal{"KTwo",
                a_server("n = 4\nk = 2\nserver = 0\n"),
                {"t.toml:14: [portfc]: k 2: PortFC's flow control is built for k = 1 only (with "
                 "k >= 2 a relay may forward into another A queue and the deadlock argument no "
                 "longer holds; docs/PORTFC.md, Limits)"}},
        // A digit >= n: the server id or the switch index out of range.
        Refusal{"ServerDigit",
                a_server("n = 4\nserver = 16\n"),
                {"t.toml:14: [portfc]: server 16: a server id of BCube(4,1) is 0 .. 15 (2 base-4 "
                 "digits, each below n = 4)"}},
        Refusal{"SwitchDigit",
                a_switch("", "", R"(["w0", "w1", "w2", "w3"])")
                    .replace(a_switch("").find("switch = 3"), 10, "switch = 4"),
                {"t.toml:23: [portfc]: switch 4: a switch index (its fixed digit) of BCube(4,1) "
                 "is 0 .. 3 (1 base-4 digits, each below n = 4)"}},
        Refusal{"LevelAboveK",
                a_switch("").replace(a_switch("").find("level = 0"), 9, "level = 2"),
                {"t.toml:24: [portfc]: level 2: must be an integer 0 .. 1"}},
        Refusal{"LevelMissing",
                a_switch("").replace(a_switch("").find("level = 0"), 9, ""),
                {"t.toml:19: [portfc]: missing required key \"level\" (this switch's level, "
                 "0 .. k)"}},
        Refusal{"RoleUnknown",
                a_server("n = 4\nserver = 0\n")
                    .replace(a_server("").find("\"server\""), 8, "\"sever\""),
                {"t.toml:11: [portfc]: role \"sever\": must be \"server\" or \"switch\" (did you "
                 "mean \"server\"?)"}},
        Refusal{"OtherRolesKey",
                a_server("n = 4\nserver = 0\nlevel = 1\n"),
                {"t.toml:15: [portfc]: level 1: is a key of role = \"switch\", not of role = "
                 "\"server\""}},
        // The interface count: k + 1 for a server, n for a switch.
        Refusal{"ServerPorts",
                a_server("n = 4\nserver = 0\n", R"(["s0"])"),
                {"t.toml:12: [portfc]: ports: a server of BCube(4,1) has k + 1 = 2 "
                 "ports, not 1 (one per level, level 0 first)"}},
        Refusal{"SwitchPorts",
                a_switch("", "", R"(["w0", "w1", "w2"])"),
                {"t.toml:25: [portfc]: ports: a switch of BCube(4,1) "
                 "has n = 4 ports, not 3 (its BCube ports 0 .. n-1, in order)"}},
        // Duplicate ports.
        Refusal{"DuplicatePort",
                a_switch("", "", R"(["w0", "w1", "w1", "w3"])"),
                {"t.toml:25: [portfc]: ports \"w1\": is listed twice"}},
        // A port without a [[port]]; a [[port]] with another queue count.
        Refusal{"NoPortTable",
                a_server("n = 4\nserver = 0\n", R"(["s0", "eth9"])"),
                {"t.toml:12: [portfc]: ports \"eth9\": no [[port]] has dev = \"eth9\" (losslessd "
                 "gives PortFC's queues to the lossless qdisc of a [[port]])"}},
        Refusal{"PortQueues",
                "[[pool]]\nname = \"s15\"\npolicy = \"pfc-dt\"\n[[port]]\ndev = \"s0\"\n"
                "pool = \"s15\"\nqueues = 4\n[[port]]\ndev = \"s1\"\npool = \"s15\"\n"
                "[portfc]\nrole = \"server\"\nports = [\"s0\", \"s1\"]\nn = 4\nserver = 0\n",
                {"t.toml:7: port \"s0\": queues 4: a PortFC server port of BCube(4,1) has 8 "
                 "queues, which [portfc] gives it (leave queues out)"}},
        // Pools of the wrong scheme, n that disagrees, X_on >= X_off.
        Refusal{"SwitchPoolScheme",
                a_switch("").replace(a_switch("").find("policy = \"portfc\""), 17,
                                     "policy = \"pfc-dt\""),
                {"t.toml:7: port \"w0\": pool \"w19\" runs scheme \"dt\": a PortFC switch's ports "
                 "share a pool with scheme = \"portfc\"",
                 "t.toml:10: port \"w1\": pool \"w19\" runs scheme \"dt\": a PortFC switch's "
                 "ports share a pool with scheme = \"portfc\"",
                 "t.toml:13: port \"w2\": pool \"w19\" runs scheme \"dt\": a PortFC switch's "
                 "ports share a pool with scheme = \"portfc\"",
                 "t.toml:16: port \"w3\": pool \"w19\" runs scheme \"dt\": a PortFC switch's "
                 "ports share a pool with scheme = \"portfc\""}},
        Refusal{"PoolN",
                a_switch("", "[pool.portfc]\nn = 3\n"),
                {"t.toml:1: pool \"w19\": portfc: n 3 disagrees with [portfc] n = 4 (leave it "
                 "out: [portfc] gives it)"}},
        Refusal{"XonNotBelowXoff",
                a_switch("", "[pool.portfc]\nxoff-a = \"30kb\"\nxon-a = \"30kb\"\n"),
                {"t.toml:1: pool \"w19\": portfc: xon-a 30720 must be below xoff-a 30720 (0 < "
                 "X_on < X_off)"}},
        Refusal{"BaseOverflow",
                a_server("n = 4\nserver = 0\nbase = \"255.255.255.250\"\n"),
                {"t.toml:15: [portfc]: base \"255.255.255.250\": the servers' addresses run past "
                 "255.255.255.255"}},
        Refusal{"UnknownKey",
                a_server("n = 4\nserver = 0\nstuk = \"1s\"\n"),
                {"t.toml:15: [portfc]: unknown key \"stuk\" (did you mean \"stuck\"?)"}}),
    [](const ::testing::TestParamInfo<Refusal> &i) { return std::string(i.param.name); });

// ------------------------------------------------------------ sizing

// Spec 4.10 with the paper's numbers: BCube(8,1), 100 Gbit/s, d = 1 us,
// 150 KB thresholds fit 5 MB; 600 KB thresholds need 9.6 MB for
// themselves alone.
TEST(PortfcSizing, ThePapersNumbers)
{
  ll_bcube b{8, 1};
  ll_headroom_params link{};
  link.rate_bps = 100000000000ULL;
  link.cable_delay_ns = 1000;
  link.mtu_bytes = 1048;
  pf::Sizing s = pf::size_switch(b, {150000, 100000, 150000, 100000}, link, 0, 5000000);
  EXPECT_EQ(s.error, "");
  EXPECT_EQ(s.need.o1_bytes, ll_headroom_bytes(&link));
  EXPECT_GT(s.need.pool_bytes, 2400000u);
  EXPECT_LT(s.need.pool_bytes, 5000000u);
  pf::Sizing big = pf::size_switch(b, {600000, 400000, 600000, 400000}, link, 0, 5000000);
  EXPECT_GT(big.need.pool_bytes, 9600000u);
  EXPECT_NE(big.error.find("buffer 5000000 bytes is too small for PortFC on BCube(8,1): it needs " +
                           std::to_string(big.need.pool_bytes) +
                           " bytes = n (X_off + X^_off) 9600000 [n 8, xoff-a 600000, xoff-b "
                           "600000] + n max(O1, O2) "),
            std::string::npos)
      << big.error;
  EXPECT_NE(big.error.find("(docs/PORTFC.md, Headroom; lower the thresholds or give a larger buffer)"),
            std::string::npos);
}

// Thresholds left to the daemon: 6 and 4 per-hop BDPs (C x 2d = 25 KB at
// 100 Gbit/s and 1 us: the spec's 150 KB and 100 KB), at least 4 MTU.
TEST(PortfcSizing, ThresholdsFromTheBdp)
{
  ll_bcube b{8, 1};
  ll_headroom_params link{};
  link.rate_bps = 100000000000ULL;
  link.cable_delay_ns = 1000;
  link.mtu_bytes = 1048;
  pf::Sizing s = pf::size_switch(b, {}, link, 0, 5000000);
  EXPECT_EQ(s.bdp_bytes, 25000u);
  EXPECT_EQ(s.t.xoff_a_bytes, 150000u);
  EXPECT_EQ(s.t.xon_a_bytes, 100000u);
  EXPECT_EQ(s.t.xoff_b_bytes, 150000u);
  EXPECT_EQ(s.t.xon_b_bytes, 100000u);
  EXPECT_EQ(s.error, "");
  // A slow link with no cable: 4 MTU, the kernel's 24 and 16 MTU.
  link.rate_bps = 100000000;
  link.cable_delay_ns = 0;
  link.mtu_bytes = 1518;
  s = pf::size_switch(b, {0, 0, 40000, 0}, link, 0, 4 << 20);
  EXPECT_EQ(s.t.xoff_a_bytes, 24u * 1518);
  EXPECT_EQ(s.t.xon_a_bytes, 16u * 1518);
  EXPECT_EQ(s.t.xoff_b_bytes, 40000u);  // given
  EXPECT_TRUE(s.given[2]);
  EXPECT_FALSE(s.given[0]);
  // X_on >= X_off once the computed one meets a given one.
  s = pf::size_switch(b, {0, 30000, 0, 0}, link, 0, 4 << 20);
  EXPECT_EQ(s.error, "");
  s = pf::size_switch(b, {0, 40000, 0, 0}, link, 0, 4 << 20);
  const char *why = ll_portfc_thresholds_check(&s.t, 1518);
  ASSERT_TRUE(why);
  EXPECT_EQ(s.error,
            "thresholds xoff-a 36432 (computed), xon-a 40000, xoff-b 36432 (computed), "
            "xon-b 24288 (computed): " +
                std::string(why));
}

TEST(PortfcSizing, TheRelayQueueCountsInO2)
{
  ll_bcube b{4, 1};
  ll_headroom_params link{};
  link.rate_bps = 100000000;
  link.sw_response_ns = 1000000;
  link.mtu_bytes = 1518;
  pf::Sizing a = pf::size_switch(b, {}, link, 0, 4 << 20);
  pf::Sizing r = pf::size_switch(b, {}, link, 10000, 4 << 20);
  EXPECT_EQ(r.need.o2_bytes, a.need.o2_bytes + 10000);
  // One byte short of the need: refused.
  pf::Sizing tight = pf::size_switch(b, {}, link, 0, a.need.pool_bytes - 1);
  EXPECT_NE(tight.error, "");
  EXPECT_EQ(pf::size_switch(b, {}, link, 0, a.need.pool_bytes).error, "");
}

TEST(PortfcQueues, ThePlansCountsAndGates)
{
  ll_bcube b{4, 1};
  pf::PortQueues sw = pf::port_queues(b, false);
  EXPECT_EQ(sw.queues, 5u);
  // tc's gates "1:16 2:17 3:18" (docs/PORTFC.md).
  EXPECT_EQ(sw.gates, (std::vector<std::uint32_t>{0, 1u << 16, 1u << 17, 1u << 18, 0}));
  pf::PortQueues sv = pf::port_queues(b, true);
  EXPECT_EQ(sv.queues, 8u);
  // "1:9 2:10 3:11 4:16 5:17 6:18", HQ and RQ never.
  EXPECT_EQ(sv.gates, (std::vector<std::uint32_t>{0, 1u << 9, 1u << 10, 1u << 11, 1u << 16,
                                                  1u << 17, 1u << 18, 0}));
}

// ------------------------------------------------------- stuck detector

constexpr std::uint64_t kMs = 1000000;

pf::QueueSample q(std::uint32_t queue, bool paused, std::uint64_t paused_ms)
{
  return {"if0", queue, paused, paused_ms * kMs};
}

TEST(PortfcStuck, RaisesAfterTStuckAndClearsOnResume)
{
  pf::StuckDetector d(500 * kMs);
  EXPECT_TRUE(d.feed(0, {q(1, false, 0), q(2, false, 0)}).empty());
  // Paused from 100 ms on, held.
  EXPECT_TRUE(d.feed(100 * kMs, {q(1, true, 0), q(2, false, 0)}).empty());
  EXPECT_TRUE(d.feed(350 * kMs, {q(1, true, 250), q(2, false, 0)}).empty());
  auto ev = d.feed(600 * kMs, {q(1, true, 500), q(2, false, 0)});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(ev[0].raised);
  EXPECT_EQ(ev[0].dev, "if0");
  EXPECT_EQ(ev[0].queue, 1u);
  EXPECT_EQ(ev[0].paused_for_ns, 500 * kMs);
  EXPECT_EQ(d.active(), 1u);
  EXPECT_EQ(d.alarms_total(), 1u);
  // Still paused: raised once.
  EXPECT_TRUE(d.feed(850 * kMs, {q(1, true, 750), q(2, false, 0)}).empty());
  ev = d.feed(1100 * kMs, {q(1, false, 900), q(2, false, 0)});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].raised);
  EXPECT_EQ(ev[0].paused_for_ns, 1000 * kMs);
  EXPECT_EQ(d.active(), 0u);
  EXPECT_EQ(d.alarms_total(), 1u);
  EXPECT_EQ(d.queues().at({"if0", 1}).alarms, 1u);
}

TEST(PortfcStuck, ShortPausesAndFlappingStaySilent)
{
  pf::StuckDetector d(500 * kMs);
  std::uint64_t paused = 0;
  // Paused at every sample, but it resumed in between each time: its
  // paused time grew by a tenth of the interval only.
  for (std::uint64_t t = 0; t <= 3000; t += 250) {
    EXPECT_TRUE(d.feed(t * kMs, {q(3, true, paused)}).empty()) << t;
    paused += 25;
  }
  // Paused for 400 ms, resumed, paused again for 400 ms.
  pf::StuckDetector e(500 * kMs);
  EXPECT_TRUE(e.feed(0, {q(1, true, 0)}).empty());
  EXPECT_TRUE(e.feed(400 * kMs, {q(1, true, 400)}).empty());
  EXPECT_TRUE(e.feed(450 * kMs, {q(1, false, 420)}).empty());
  EXPECT_TRUE(e.feed(500 * kMs, {q(1, true, 430)}).empty());
  EXPECT_TRUE(e.feed(900 * kMs, {q(1, true, 830)}).empty());
  EXPECT_EQ(e.alarms_total(), 0u);
  // Off: nothing, ever.
  pf::StuckDetector off(0);
  EXPECT_TRUE(off.feed(0, {q(1, true, 0)}).empty());
  EXPECT_TRUE(off.feed(10000 * kMs, {q(1, true, 10000)}).empty());
}

// Samples read late (the daemon's loop was busy): each its own time; a
// queue held paused raises once and never flaps.
TEST(PortfcStuck, LateSamplesDoNotFlap)
{
  pf::StuckDetector d(500 * kMs);
  std::uint64_t raised = 0, cleared = 0;
  // Paused from 0; polled every 125 ms, each read 0 .. 60 ms late.
  for (std::uint64_t i = 0; i <= 24; i++) {
    std::uint64_t at = i * 125 * kMs + (i % 3) * 30 * kMs;
    pf::QueueSample s = q(1, true, at / kMs);
    s.at_ns = at;
    for (const auto &e : d.feed(i * 125 * kMs, {s}))
      (e.raised ? raised : cleared)++;
  }
  EXPECT_EQ(raised, 1u);
  EXPECT_EQ(cleared, 0u);
  // A resume of 100 ms between two polls 125 ms apart: starts over.
  pf::StuckDetector e(200 * kMs);
  e.feed(0, {q(1, true, 0)});
  e.feed(125 * kMs, {q(1, true, 125)});
  e.feed(250 * kMs, {q(1, true, 150)});  // grew 25 ms in 125
  EXPECT_EQ(e.queues().at({"if0", 1}).since_ns, 250 * kMs);
  EXPECT_EQ(e.alarms_total(), 0u);
}

// A port whose read failed this period (unread) is not gone: its alarm
// stays raised and its pause is not restarted, and the next read goes on.
TEST(PortfcStuck, AFailedReadKeepsTheState)
{
  pf::StuckDetector d(100 * kMs);
  d.feed(0, {q(1, true, 0)});
  ASSERT_EQ(d.feed(200 * kMs, {q(1, true, 200)}).size(), 1u);  // raised
  EXPECT_TRUE(d.feed(300 * kMs, {}, {"if0"}).empty());         // unread: kept
  EXPECT_EQ(d.active(), 1u);
  EXPECT_TRUE(d.feed(400 * kMs, {q(1, true, 400)}).empty());  // still held
  EXPECT_EQ(d.alarms_total(), 1u);
  EXPECT_EQ(d.queues().at({"if0", 1}).since_ns, 0u);
  // Another port's failed read does not shield it.
  EXPECT_EQ(d.feed(500 * kMs, {}, {"if1"}).size(), 1u);  // gone: cleared
}

TEST(PortfcStuck, AQueueThatGoesAwayClears)
{
  pf::StuckDetector d(100 * kMs);
  d.feed(0, {q(1, true, 0)});
  ASSERT_EQ(d.feed(200 * kMs, {q(1, true, 200)}).size(), 1u);
  auto ev = d.feed(300 * kMs, {});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].raised);
  EXPECT_EQ(d.active(), 0u);
  // Turned off while raised: cleared.
  pf::StuckDetector e(100 * kMs);
  e.feed(0, {q(1, true, 0)});
  e.feed(200 * kMs, {q(1, true, 200)});
  e.set_stuck_ns(0);
  ev = e.feed(300 * kMs, {q(1, true, 300)});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_FALSE(ev[0].raised);
}

TEST(PortfcStuck, DurationText)
{
  EXPECT_EQ(pf::duration_text(1500 * kMs), "1.5 s");
  EXPECT_EQ(pf::duration_text(250 * kMs), "250 ms");
  EXPECT_EQ(pf::duration_text(12000), "12 us");
}

}  // namespace
