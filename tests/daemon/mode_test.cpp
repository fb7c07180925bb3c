// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Port modes in losslessd (daemon/policy/mode_policy.h): the [[port]]
// keys (the mode descriptor's rows), the core's refusals at load, the
// parameters the policy pushes for a port's link, and "auto" jitter's
// raise rule with its hysteresis.
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>
#include <string>
#include <vector>

#include "config.h"
#include "mode_policy.h"
#include "pfc_policy.h"

namespace {

using namespace lossless::config;
namespace pol = lossless::policy;

constexpr std::uint64_t kMs = 1000000;

std::string port_with(const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n\n[[port]]\ndev = \"swp1\"\npool = "
         "\"sw0\"\n" +
         extra + "\n";
}

std::string one_error(const std::string &text)
{
  try {
    parse_string(text, "t.toml");
  } catch (const ConfigError &e) {
    return e.errors().size() == 1 ? e.errors()[0] : "errors: " + std::to_string(e.errors().size());
  }
  return "parsed";
}

TEST(ModeConfig, KeysAreTheDescriptorRows)
{
  auto keys = pol::mode_keys();
  std::vector<std::string> want = {"bifrost_rtt", "bifrost_slot", "bifrost_jitter",
                                   "bifrost_buffer", "bifrost_k", "bifrost_frame"};
  EXPECT_EQ(keys, want);
  ASSERT_NE(pol::mode_row(LL_MODE_BIFROST, "bifrost_buffer"), nullptr);
  EXPECT_EQ(pol::mode_row(LL_MODE_BIFROST, "bifrost_buffer")->word, 3);
  EXPECT_EQ(pol::mode_jitter_word(LL_MODE_BIFROST), 2);
  EXPECT_EQ(pol::mode_stat(LL_MODE_BIFROST, "max_late"), 12);
}

TEST(ModeConfig, BifrostPortWithEveryKey)
{
  Config c = parse_string(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost_rtt = "
                                    "\"100us\"\nbifrost_slot = \"10us\"\nbifrost_jitter = "
                                    "\"5us\"\nbifrost_buffer = \"1mb\"\nbifrost_k = 4"),
                          "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  const auto &m = *c.ports[0].mode;
  EXPECT_EQ(m.mode, unsigned(LL_MODE_BIFROST));
  EXPECT_EQ(m.params[0], 100000u);
  EXPECT_EQ(m.params[1], 10000u);
  EXPECT_EQ(m.params[2], 5000u);
  EXPECT_EQ(m.params[3], 1048576u);
  EXPECT_EQ(m.params[4], 4u);
  EXPECT_FALSE(m.jitter_auto);
}

TEST(ModeConfig, BifrostFrameByName)
{
  Config c = parse_string(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\"\n"
                                    "bifrost_frame = \"tokens\""),
                          "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_EQ(c.ports[0].mode->params[5], unsigned(LOSSLESS_BIFROST_FRAME_TOKENS));
  c = parse_string(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\"\nbifrost_frame = \"pfc\""),
                   "t.toml");
  EXPECT_EQ(c.ports[0].mode->params[5], unsigned(LOSSLESS_BIFROST_FRAME_PFC));
  std::string e = one_error(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\"\n"
                                      "bifrost_frame = \"tokenz\""));
  EXPECT_NE(e.find("bifrost_frame \"tokenz\""), std::string::npos) << e;
  EXPECT_NE(e.find("tokens"), std::string::npos) << e;
}

TEST(ModeConfig, JitterIsAutoByDefaultAndByName)
{
  Config c = parse_string(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\""), "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_TRUE(c.ports[0].mode->jitter_auto);
  EXPECT_EQ(c.ports[0].mode->params[2], 0u);
  c = parse_string(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\"\nbifrost_jitter = \"auto\""),
                   "t.toml");
  EXPECT_TRUE(c.ports[0].mode->jitter_auto);
}

TEST(ModeConfig, APortWithoutModeHasNone)
{
  Config c = parse_string(port_with(""), "t.toml");
  EXPECT_FALSE(c.ports[0].mode.has_value());
}

TEST(ModeConfig, RefusalsNameTheKeyAndTheValue)
{
  // The core's checks (ll_mode_check) with the rate given.
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost_rtt = "
                                "\"100us\"\nbifrost_slot = \"60us\"")),
            "t.toml:11: port \"swp1\": bifrost_slot \"60us\": bifrost-slot must be above 0 and "
            "below the one-way delay (bifrost-rtt / 2)");
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost_rtt = "
                                "\"100us\"\nbifrost_buffer = \"1kb\"")),
            "t.toml:11: port \"swp1\": bifrost_buffer \"1kb\": bifrost-buffer is below rate x "
            "(rtt + 2 x slot + 2 x jitter), the least Bifrost is lossless with");
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost_rtt = "
                                "\"1s\"\nbifrost_slot = \"10ms\"")),
            "t.toml:11: port \"swp1\": bifrost_slot \"10ms\": bifrost-slot plus bifrost-jitter is "
            "above 65535 pause quanta at this rate");
  // The rows' ranges, as for every key.
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost_rtt = \"20ms\"\nbifrost_k = 2000")),
            "t.toml:10: port \"swp1\": bifrost_k 2000: must be an integer 1 .. 1024");
  EXPECT_EQ(one_error(port_with("mode = \"bifrots\"\nbifrost_rtt = \"20ms\"")),
            "t.toml:8: port \"swp1\": mode \"bifrots\": must be none, bifrost (did you mean "
            "\"bifrost\"?)");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"")),
            "t.toml:5: port \"swp1\": missing required key \"bifrost_rtt\" (mode \"bifrost\" "
            "needs it: an upper bound of the control loop's round trip: the link's, both ends' "
            "software and queueing (required))");
  EXPECT_EQ(one_error(port_with("bifrost_rtt = \"20ms\"")),
            "t.toml:8: port \"swp1\": bifrost_rtt is a key of another mode than the port's (it "
            "has no mode key)");
}

pol::PortLink bifrost_link(std::uint32_t ifindex, bool jitter_auto)
{
  pol::PortLink l;
  l.ifindex = ifindex;
  l.dev = "swp" + std::to_string(ifindex);
  l.up = true;
  l.rate_bps = 10000000;  // the VM's 10 Mbit/s
  l.mtu_bytes = 1518;
  l.headroom_bytes = 100000;
  pol::ModeSetting m;
  m.mode = LL_MODE_BIFROST;
  m.params[0] = 320 * kMs;  // RTT: T = 20 ms
  m.jitter_auto = jitter_auto;
  if (!jitter_auto)
    m.params[2] = 3 * kMs;
  l.mode = m;
  return l;
}

TEST(ModePolicy, ParamsForALink)
{
  pol::ModePorts mp;
  std::string notes;
  auto e = mp.decide({bifrost_link(5, true)}, nullptr, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].ifindex, 5u);
  EXPECT_EQ(e[0].mode, unsigned(LOSSLESS_MODE_BIFROST));
  EXPECT_EQ(e[0].params[0], 320 * kMs);
  EXPECT_EQ(e[0].params[1], 0u) << "the slot's default is the datapath's";
  EXPECT_EQ(e[0].params[2], 20 * kMs) << "auto J starts at one slot (RTT / 16)";
  EXPECT_TRUE(notes.empty());

  e = mp.decide({bifrost_link(5, false)}, nullptr, notes);
  EXPECT_EQ(e[0].params[2], 3 * kMs) << "a configured J is pushed as given";

  // A port down keeps what it has; a port refused by the core is left
  // out and said once.
  auto down = bifrost_link(6, true);
  down.up = false;
  EXPECT_TRUE(mp.decide({down}, nullptr, notes).empty());
  auto small = bifrost_link(7, false);
  small.mode->params[3] = 1000;  // H
  EXPECT_TRUE(mp.decide({small}, nullptr, notes).empty());
  EXPECT_NE(notes.find("port swp7: mode not set: bifrost-buffer is below"), std::string::npos)
      << notes;
  notes.clear();
  mp.decide({small}, nullptr, notes);
  EXPECT_TRUE(notes.empty()) << "said once";
}

TEST(ModePolicy, AutoJitterRule)
{
  EXPECT_EQ(pol::auto_jitter_ns(20 * kMs, 0), 20 * kMs);
  EXPECT_EQ(pol::auto_jitter_ns(20 * kMs, 13 * kMs), 20 * kMs) << "1.5 x 13 ms is below T";
  EXPECT_EQ(pol::auto_jitter_ns(20 * kMs, 14 * kMs), 21 * kMs) << "21 ms";
  EXPECT_EQ(pol::auto_jitter_ns(20 * kMs, 14 * kMs + 1), 22 * kMs) << "rounded up to 1 ms";
  EXPECT_EQ(pol::auto_jitter_ns(1000, 1), 1 * kMs);
}

std::unique_ptr<lossless_plane_tel> tel_with_max_late(std::uint32_t ifindex, std::uint64_t ns)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->nr_ports = 1;
  t->ports[0].ifindex = ifindex;
  t->mode[0].mode = LOSSLESS_MODE_BIFROST;
  t->mode[0].ctr[pol::mode_stat(LL_MODE_BIFROST, "max_late")] = ns;
  return t;
}

TEST(ModePolicy, AutoJitterIsRaisedOnlyAndWithHysteresis)
{
  pol::ModePorts mp;
  std::string notes;
  std::vector<pol::PortLink> ports = {bifrost_link(5, true)};
  mp.decide(ports, nullptr, notes);
  EXPECT_EQ(mp.jitter_ns(5), 20 * kMs);
  // Lateness within T / 1.5: no change.
  auto e = mp.decide(ports, tel_with_max_late(5, 10 * kMs).get(), notes);
  EXPECT_EQ(e[0].params[2], 20 * kMs);
  EXPECT_TRUE(notes.empty());
  // 16 ms late: J = 24 ms, logged.
  e = mp.decide(ports, tel_with_max_late(5, 16 * kMs).get(), notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_NE(notes.find("port swp5: bifrost jitter raised from 20.000 ms to 24.000 ms"),
            std::string::npos)
      << notes;
  notes.clear();
  // A little more lateness (16.5 ms: 24.75 -> 25 ms)... raises by the
  // rounding; but within J / 1.5 nothing moves.
  e = mp.decide(ports, tel_with_max_late(5, 16 * kMs).get(), notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_TRUE(notes.empty());
  // Never lowered: a restart's smaller max_late keeps J.
  e = mp.decide(ports, tel_with_max_late(5, 1 * kMs).get(), notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_TRUE(notes.empty());
  // Another port's telemetry does not count.
  e = mp.decide(ports, tel_with_max_late(9, 100 * kMs).get(), notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
}

// The datapath's measured round trip (max_rtt) above bifrost_rtt raises
// an alarm, once per new maximum; within the bound, or another port's, none.
TEST(ModePolicy, MeasuredRttAboveTheBoundAlarms)
{
  pol::ModePorts mp;
  std::string notes;
  std::vector<pol::PortLink> ports = {bifrost_link(5, true)};
  auto tel = [](std::uint32_t ifindex, std::uint64_t rtt_ns) {
    auto t = tel_with_max_late(ifindex, 0);
    t->mode[0].ctr[pol::mode_stat(LL_MODE_BIFROST, "max_rtt")] = rtt_ns;
    return t;
  };
  ASSERT_EQ(pol::mode_rtt_word(LL_MODE_BIFROST), 0);
  mp.decide(ports, tel(5, 300 * kMs).get(), notes);
  EXPECT_TRUE(notes.empty()) << notes;
  mp.decide(ports, tel(9, 900 * kMs).get(), notes);
  EXPECT_TRUE(notes.empty()) << notes;
  mp.decide(ports, tel(5, 350 * kMs).get(), notes);
  EXPECT_NE(notes.find("ALARM port swp5: the loop's measured round trip 350.000 ms is above "
                       "bifrost_rtt 320.000 ms"),
            std::string::npos)
      << notes;
  notes.clear();
  mp.decide(ports, tel(5, 350 * kMs).get(), notes);
  EXPECT_TRUE(notes.empty()) << "said once: " << notes;
  mp.decide(ports, tel(5, 400 * kMs).get(), notes);
  EXPECT_NE(notes.find("400.000 ms"), std::string::npos) << notes;
}

TEST(ModePolicy, OwnershipClearsOnlyWhatTheDaemonSet)
{
  pol::ModePorts mp;
  std::string notes;
  auto configured = bifrost_link(5, true);
  pol::PortLink plain = configured;
  plain.mode.reset();
  // A port the configuration gives no mode: nothing (tc's mode stays).
  EXPECT_TRUE(mp.decide({plain}, nullptr, notes).empty());
  // Set by the daemon, then the key goes away: mode 0 once.
  auto e = mp.decide({configured}, nullptr, notes);
  mp.pushed(e);
  e = mp.decide({plain}, nullptr, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].ifindex, 5u);
  EXPECT_EQ(e[0].mode, 0u);
  mp.pushed(e);
  EXPECT_TRUE(mp.decide({plain}, nullptr, notes).empty());
  // mode = "none" is the daemon's word: mode 0 whoever set the mode.
  pol::PortLink none = plain;
  none.mode = pol::ModeSetting{};
  e = mp.decide({none}, nullptr, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].mode, 0u);
}

TEST(ModeConfig, ModeNoneTakesNoModeKeys)
{
  Config c = parse_string(port_with("mode = \"none\""), "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_EQ(c.ports[0].mode->mode, 0u);
  EXPECT_FALSE(c.ports[0].mode->jitter_auto);
  EXPECT_EQ(one_error(port_with("mode = \"none\"\nbifrost_rtt = \"20ms\"")),
            "t.toml:9: port \"swp1\": bifrost_rtt is a key of another mode than \"none\"");
}

TEST(ModePolicy, PfcPolicyPushesModesOnlyWhenTheyChange)
{
  pol::PoolSettings s;
  s.name = "sw0";
  pol::PfcPolicy p(s);
  pol::Inputs in;
  in.pool = &s;
  in.ports = {bifrost_link(5, true)};
  auto d = p.decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->modes.size(), 1u);
  EXPECT_EQ(lossless::plane::encode(*d).set & LOSSLESS_PLANE_SET_MODE,
            unsigned(LOSSLESS_PLANE_SET_MODE));
  p.pushed(*d);
  auto quiet = tel_with_max_late(5, 2 * kMs);
  in.telemetry = quiet.get();
  EXPECT_FALSE(p.decide(in).has_value()) << "the same modes: nothing to push";
  auto late = tel_with_max_late(5, 30 * kMs);
  in.telemetry = late.get();
  d = p.decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->modes[0].params[2], 45 * kMs);
  EXPECT_NE(p.take_notes().find("raised"), std::string::npos);
  EXPECT_TRUE(p.take_notes().empty());
}

// A mode id changes only while its port holds no lossless bytes: a push
// refused EBUSY is retried 100 ms (of telemetry time) later; another
// refusal waits for new inputs.
TEST(ModePolicy, BusyRefusalIsRetriedLater)
{
  pol::PoolSettings s;
  s.name = "sw0";
  pol::PfcPolicy p(s);
  pol::Inputs in;
  in.pool = &s;
  in.ports = {bifrost_link(5, false)};
  auto d = p.decide(in);
  ASSERT_TRUE(d.has_value());
  p.refused(*d, EBUSY);
  auto t = tel_with_max_late(5, 0);
  in.telemetry = t.get();
  t->time_ns = 1000 * kMs;
  EXPECT_FALSE(p.decide(in).has_value());
  t->time_ns += 99 * kMs;
  EXPECT_FALSE(p.decide(in).has_value());
  t->time_ns += 1 * kMs;
  d = p.decide(in);
  ASSERT_TRUE(d.has_value()) << "100 ms later: again";
  EXPECT_EQ(d->modes.size(), 1u);
  p.refused(*d, EINVAL);
  t->time_ns += 1000 * kMs;
  EXPECT_FALSE(p.decide(in).has_value());
  t->time_ns += 1000 * kMs;
  EXPECT_FALSE(p.decide(in).has_value()) << "EINVAL: not retried";
}

}  // namespace
