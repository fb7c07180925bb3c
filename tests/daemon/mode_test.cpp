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
// The pool's sw-delay the policy passes (its row's default), for an
// "auto" bifrost-rtt's start.
constexpr std::uint64_t kSwDelay = 1 * kMs;

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
  std::vector<std::string> want = {"bifrost-rtt", "bifrost-slot", "bifrost-jitter",
                                   "bifrost-buffer", "bifrost-k", "bifrost-frame"};
  EXPECT_EQ(keys, want);
  ASSERT_NE(pol::mode_row(LL_MODE_BIFROST, "bifrost-buffer"), nullptr);
  EXPECT_EQ(pol::mode_row(LL_MODE_BIFROST, "bifrost-buffer")->word, 3);
  EXPECT_EQ(pol::mode_jitter_word(LL_MODE_BIFROST), 2);
  EXPECT_EQ(pol::mode_stat(LL_MODE_BIFROST, "max_late"), 12);
}

TEST(ModeConfig, BifrostPortWithEveryKey)
{
  Config c = parse_string(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost-rtt = "
                                    "\"100us\"\nbifrost-slot = \"10us\"\nbifrost-jitter = "
                                    "\"5us\"\nbifrost-buffer = \"1mb\"\nbifrost-k = 4"),
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
  Config c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\n"
                                    "bifrost-frame = \"tokens\""),
                          "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_EQ(c.ports[0].mode->params[5], unsigned(LOSSLESS_BIFROST_FRAME_TOKENS));
  c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\nbifrost-frame = \"pfc\""),
                   "t.toml");
  EXPECT_EQ(c.ports[0].mode->params[5], unsigned(LOSSLESS_BIFROST_FRAME_PFC));
  std::string e = one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\n"
                                      "bifrost-frame = \"tokenz\""));
  EXPECT_NE(e.find("bifrost-frame \"tokenz\""), std::string::npos) << e;
  EXPECT_NE(e.find("tokens"), std::string::npos) << e;
}

TEST(ModeConfig, JitterIsAutoByDefaultAndByName)
{
  Config c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\""), "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_TRUE(c.ports[0].mode->jitter_auto);
  EXPECT_EQ(c.ports[0].mode->params[2], 0u);
  c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\nbifrost-jitter = \"auto\""),
                   "t.toml");
  EXPECT_TRUE(c.ports[0].mode->jitter_auto);
}

// bifrost-rtt = "auto": no value, a start from the pool (2 x (cable
// delay + sw-delay)) that must not be 0, and the core's check at it.
TEST(ModeConfig, RttAutoParses)
{
  Config c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"auto\""), "t.toml");
  ASSERT_TRUE(c.ports[0].mode.has_value());
  EXPECT_TRUE(c.ports[0].mode->rtt_auto);
  EXPECT_TRUE(c.ports[0].mode->jitter_auto);
  EXPECT_EQ(c.ports[0].mode->params[0], 0u) << "the daemon's D, not a configured one";
  c = parse_string(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\""), "t.toml");
  EXPECT_FALSE(c.ports[0].mode->rtt_auto);
  EXPECT_EQ(c.ports[0].mode->params[0], 20 * kMs);
}

std::string pool_sw_delay_port(const std::string &sw_delay, const std::string &extra)
{
  return "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\nsw-delay = \"" + sw_delay +
         "\"\n\n[[port]]\ndev = \"swp1\"\npool = \"sw0\"\nmode = \"bifrost\"\n"
         "bifrost-rtt = \"auto\"\n" +
         extra + "\n";
}

TEST(ModeConfig, RttAutoRefusals)
{
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"fast\"")),
            "t.toml:9: port \"swp1\": bifrost-rtt \"fast\": must be a time 1ns .. 2s with a unit "
            "ns, us, ms or s (5us, 1ms), or \"auto\"");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"-1ms\"")),
            "t.toml:9: port \"swp1\": bifrost-rtt \"-1ms\": must be a time 1ns .. 2s with a unit "
            "ns, us, ms or s (5us, 1ms), or \"auto\"");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"Auto\"")),
            "t.toml:9: port \"swp1\": bifrost-rtt \"Auto\": must be a time 1ns .. 2s with a unit "
            "ns, us, ms or s (5us, 1ms), or \"auto\"");
  // Only that error: a bad value is not also a missing key.
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = 20")),
            "t.toml:9: port \"swp1\": bifrost-rtt 20: must be a time 1ns .. 2s with a unit ns, "
            "us, ms or s (5us, 1ms), or \"auto\"");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = true")),
            "t.toml:9: port \"swp1\": bifrost-rtt true: must be a time (a string such as "
            "\"1ms\"), not a boolean");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\n"
                                "bifrost-jitter = \"fast\"")),
            "t.toml:10: port \"swp1\": bifrost-jitter \"fast\": must be a time 1ns .. 1s with a "
            "unit ns, us, ms or s (5us, 1ms), or \"auto\"");
  // Neither a cable delay nor a software delay: nothing to start from.
  EXPECT_EQ(one_error(pool_sw_delay_port("0ms", "")),
            "t.toml:10: port \"swp1\": bifrost-rtt \"auto\": bifrost-rtt = \"auto\" needs the "
            "port's cable-delay or sw-delay to start from");
  EXPECT_EQ(one_error(pool_sw_delay_port("0ms", "cable-delay = \"0us\"")),
            "t.toml:10: port \"swp1\": bifrost-rtt \"auto\": bifrost-rtt = \"auto\" needs the "
            "port's cable-delay or sw-delay to start from");
  // Either one will do.
  EXPECT_EQ(one_error(pool_sw_delay_port("0ms", "cable-delay = \"1us\"")), "parsed");
  EXPECT_EQ(one_error(pool_sw_delay_port("1us", "")), "parsed");
  // With the rate, the core checks the start: D0 = 2 x (10 ms + 1 ms) =
  // 22 ms takes a slot below 11 ms only; 2 x (20 ms + 1 ms) = 42 ms, 15 ms.
  EXPECT_EQ(one_error(pool_sw_delay_port("1ms", "rate = \"1gbit\"\ncable-delay = \"10ms\"\n"
                                                "bifrost-slot = \"15ms\"")),
            "t.toml:13: port \"swp1\": bifrost-slot \"15ms\": bifrost-slot must be above 0 and "
            "below the one-way delay (bifrost-rtt / 2)");
  EXPECT_EQ(one_error(pool_sw_delay_port("1ms", "rate = \"1gbit\"\ncable-delay = \"20ms\"\n"
                                                "bifrost-slot = \"15ms\"")),
            "parsed");
}

TEST(ModeConfig, APortWithoutModeHasNone)
{
  Config c = parse_string(port_with(""), "t.toml");
  EXPECT_FALSE(c.ports[0].mode.has_value());
}

TEST(ModeConfig, RefusalsNameTheKeyAndTheValue)
{
  // The core's checks (ll_mode_check) with the rate given.
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost-rtt = "
                                "\"100us\"\nbifrost-slot = \"60us\"")),
            "t.toml:11: port \"swp1\": bifrost-slot \"60us\": bifrost-slot must be above 0 and "
            "below the one-way delay (bifrost-rtt / 2)");
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost-rtt = "
                                "\"100us\"\nbifrost-buffer = \"1kb\"")),
            "t.toml:11: port \"swp1\": bifrost-buffer \"1kb\": bifrost-buffer is below rate x "
            "(rtt + 2 x slot + 2 x jitter), the least Bifrost is lossless with");
  EXPECT_EQ(one_error(port_with("rate = \"10gbit\"\nmode = \"bifrost\"\nbifrost-rtt = "
                                "\"1s\"\nbifrost-slot = \"10ms\"")),
            "t.toml:11: port \"swp1\": bifrost-slot \"10ms\": bifrost-slot plus bifrost-jitter is "
            "above 65535 pause quanta at this rate");
  // The rows' ranges, as for every key.
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"\nbifrost-rtt = \"20ms\"\nbifrost-k = 2000")),
            "t.toml:10: port \"swp1\": bifrost-k 2000: must be an integer 1 .. 1024");
  EXPECT_EQ(one_error(port_with("mode = \"bifrots\"\nbifrost-rtt = \"20ms\"")),
            "t.toml:8: port \"swp1\": mode \"bifrots\": must be none, bifrost (did you mean "
            "\"bifrost\"?)");
  EXPECT_EQ(one_error(port_with("mode = \"bifrost\"")),
            "t.toml:5: port \"swp1\": missing required key \"bifrost-rtt\" (mode \"bifrost\" "
            "needs it: an upper bound of the control loop's round trip: the link's, both ends' "
            "software and queueing (required))");
  EXPECT_EQ(one_error(port_with("bifrost-rtt = \"20ms\"")),
            "t.toml:8: port \"swp1\": bifrost-rtt is a key of another mode than the port's (it "
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
  auto e = mp.decide({bifrost_link(5, true)}, nullptr, kSwDelay, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].ifindex, 5u);
  EXPECT_EQ(e[0].mode, unsigned(LOSSLESS_MODE_BIFROST));
  EXPECT_EQ(e[0].params[0], 320 * kMs);
  EXPECT_EQ(e[0].params[1], 0u) << "the slot's default is the datapath's";
  EXPECT_EQ(e[0].params[2], 20 * kMs) << "auto J starts at one slot (RTT / 16)";
  EXPECT_TRUE(notes.empty());

  e = mp.decide({bifrost_link(5, false)}, nullptr, kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 3 * kMs) << "a configured J is pushed as given";

  // A port down keeps what it has; a port refused by the core is left
  // out and said once.
  auto down = bifrost_link(6, true);
  down.up = false;
  EXPECT_TRUE(mp.decide({down}, nullptr, kSwDelay, notes).empty());
  auto small = bifrost_link(7, false);
  small.mode->params[3] = 1000;  // H
  EXPECT_TRUE(mp.decide({small}, nullptr, kSwDelay, notes).empty());
  EXPECT_NE(notes.find("port swp7: mode not set: bifrost-buffer is below"), std::string::npos)
      << notes;
  notes.clear();
  mp.decide({small}, nullptr, kSwDelay, notes);
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
  mp.decide(ports, nullptr, kSwDelay, notes);
  EXPECT_EQ(mp.jitter_ns(5), 20 * kMs);
  // Lateness within T / 1.5: no change.
  auto e = mp.decide(ports, tel_with_max_late(5, 10 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 20 * kMs);
  EXPECT_TRUE(notes.empty());
  // 16 ms late: J = 24 ms, logged.
  e = mp.decide(ports, tel_with_max_late(5, 16 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_NE(notes.find("port swp5: bifrost jitter raised from 20.000 ms to 24.000 ms"),
            std::string::npos)
      << notes;
  notes.clear();
  // A little more lateness (16.5 ms: 24.75 -> 25 ms)... raises by the
  // rounding; but within J / 1.5 nothing moves.
  e = mp.decide(ports, tel_with_max_late(5, 16 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_TRUE(notes.empty());
  // Never lowered: a restart's smaller max_late keeps J.
  e = mp.decide(ports, tel_with_max_late(5, 1 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
  EXPECT_TRUE(notes.empty());
  // Another port's telemetry does not count.
  e = mp.decide(ports, tel_with_max_late(9, 100 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 24 * kMs);
}

// A J raise the mode refuses keeps J and is said once, though the port
// itself runs (its mode is accepted with the old J every tick).
TEST(ModePolicy, AutoJitterRefusalSaidOnce)
{
  pol::ModePorts mp;
  std::string notes;
  auto p = bifrost_link(5, true);
  // H = 600000 bytes at 10 Mbit/s: 480 ms = 320 + 2 x 20 + 2 J, J <= 60 ms.
  p.mode->params[3] = 600000;
  std::vector<pol::PortLink> ports = {p};
  auto e = mp.decide(ports, tel_with_max_late(5, 50 * kMs).get(), kSwDelay, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].params[2], 20 * kMs);
  EXPECT_EQ(notes, "port swp5: bifrost jitter stays 20.000 ms: the measured lateness 50.000 ms "
                   "asks for 75.000 ms, which the mode refuses: bifrost-buffer is below rate x "
                   "(rtt + 2 x slot + 2 x jitter), the least Bifrost is lossless with");
  notes.clear();
  e = mp.decide(ports, tel_with_max_late(5, 50 * kMs).get(), kSwDelay, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_TRUE(notes.empty()) << notes;
  // 35 ms: 52.5 -> 53 ms fits.
  e = mp.decide(ports, tel_with_max_late(5, 35 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[2], 53 * kMs);
}

// The datapath's measured round trip (max_rtt) above bifrost-rtt raises
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
  mp.decide(ports, tel(5, 300 * kMs).get(), kSwDelay, notes);
  EXPECT_TRUE(notes.empty()) << notes;
  mp.decide(ports, tel(9, 900 * kMs).get(), kSwDelay, notes);
  EXPECT_TRUE(notes.empty()) << notes;
  mp.decide(ports, tel(5, 350 * kMs).get(), kSwDelay, notes);
  EXPECT_NE(notes.find("ALARM port swp5: the loop's measured round trip 350.000 ms is above "
                       "bifrost-rtt 320.000 ms"),
            std::string::npos)
      << notes;
  notes.clear();
  mp.decide(ports, tel(5, 350 * kMs).get(), kSwDelay, notes);
  EXPECT_TRUE(notes.empty()) << "said once: " << notes;
  mp.decide(ports, tel(5, 400 * kMs).get(), kSwDelay, notes);
  EXPECT_NE(notes.find("400.000 ms"), std::string::npos) << notes;
}

TEST(ModePolicy, AutoRttRule)
{
  EXPECT_EQ(pol::auto_rtt_start_ns(10 * kMs, 1 * kMs), 22 * kMs);
  EXPECT_EQ(pol::auto_rtt_start_ns(10200000, 100000), 21 * kMs) << "20.6 ms rounded up";
  EXPECT_EQ(pol::auto_rtt_start_ns(0, 250000), 1 * kMs);
  EXPECT_EQ(pol::auto_rtt_start_ns(0, 0), 0u);
  EXPECT_EQ(pol::auto_rtt_ns(1375000, 30 * kMs), 32 * kMs) << "31.375 ms rounded up";
  EXPECT_EQ(pol::auto_rtt_ns(2 * kMs, 30 * kMs), 32 * kMs) << "exactly 32 ms";
  EXPECT_EQ(pol::auto_rtt_ns(2 * kMs, 30 * kMs + 1), 33 * kMs);
  EXPECT_EQ(pol::auto_rtt_ns(2 * kMs, 0), 0u) << "no measurement, no D";
}

// A 10 Mbit/s port with a 10 ms cable and bifrost-rtt = "auto" (and
// "auto" J): with the pool's 1 ms sw-delay, D0 = 22 ms, T = D / 16.
pol::PortLink auto_rtt_link(std::uint32_t ifindex)
{
  pol::PortLink l = bifrost_link(ifindex, true);
  l.cable_delay_ns = 10 * kMs;
  l.mode->params[0] = 0;
  l.mode->rtt_auto = true;
  return l;
}

std::unique_ptr<lossless_plane_tel> tel_with_max_rtt(std::uint32_t ifindex, std::uint64_t ns)
{
  auto t = tel_with_max_late(ifindex, 0);
  t->mode[0].ctr[pol::mode_stat(LL_MODE_BIFROST, "max_rtt")] = ns;
  return t;
}

TEST(ModePolicy, AutoRttStartsFromTheHeadroomsRoundTrip)
{
  pol::ModePorts mp;
  std::string notes;
  auto e = mp.decide({auto_rtt_link(5)}, nullptr, kSwDelay, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].params[0], 22 * kMs) << "2 x (10 ms + 1 ms)";
  EXPECT_EQ(e[0].params[1], 0u) << "the slot stays the datapath's default";
  EXPECT_EQ(e[0].params[2], 1375000u) << "auto J: one slot of 22 ms";
  EXPECT_EQ(mp.rtt_ns(5), 22 * kMs);
  EXPECT_EQ(mp.jitter_ns(5), 1375000u);
  EXPECT_EQ(mp.rtt_ns(6), 0u);
  EXPECT_TRUE(notes.empty()) << notes;
  // The pool's sw-delay as given: 2 x (10 ms + 4.6 ms) = 29.2 -> 30 ms.
  pol::ModePorts other;
  e = other.decide({auto_rtt_link(5)}, nullptr, 4600000, notes);
  EXPECT_EQ(e[0].params[0], 30 * kMs);
  // A configured D is not the daemon's.
  e = other.decide({bifrost_link(6, true)}, nullptr, kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 320 * kMs);
  EXPECT_EQ(other.rtt_ns(6), 0u);
  // Nothing to start from: the port is refused, said once.
  auto bare = auto_rtt_link(7);
  bare.cable_delay_ns = 0;
  EXPECT_TRUE(mp.decide({bare}, nullptr, 0, notes).empty());
  EXPECT_EQ(notes, "port swp7: mode not set: bifrost-rtt = \"auto\" needs the port's "
                   "cable-delay or sw-delay to start from");
  notes.clear();
  EXPECT_TRUE(mp.decide({bare}, nullptr, 0, notes).empty());
  EXPECT_TRUE(notes.empty()) << notes;
  EXPECT_EQ(mp.rtt_ns(7), 0u);
}

TEST(ModePolicy, AutoRttIsRaisedFromTheMeasuredRoundTrip)
{
  pol::ModePorts mp;
  std::string notes;
  std::vector<pol::PortLink> ports = {auto_rtt_link(5)};
  mp.decide(ports, nullptr, kSwDelay, notes);
  ASSERT_EQ(mp.rtt_ns(5), 22 * kMs);
  // 20 ms + T (1.375 ms) = 21.375 -> 22 ms: not above D.
  auto e = mp.decide(ports, tel_with_max_rtt(5, 20 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 22 * kMs);
  EXPECT_TRUE(notes.empty()) << notes;
  // 30 ms + 1.375 ms -> 32 ms; auto J follows the slot (32 / 16 = 2 ms).
  // No alarm: the raise is the daemon's own.
  e = mp.decide(ports, tel_with_max_rtt(5, 30 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 32 * kMs);
  EXPECT_EQ(e[0].params[2], 2 * kMs);
  EXPECT_EQ(mp.rtt_ns(5), 32 * kMs);
  EXPECT_EQ(mp.jitter_ns(5), 2 * kMs);
  EXPECT_EQ(notes, "port swp5: bifrost rtt raised from 22.000 ms to 32.000 ms (the loop's "
                   "measured round trip 30.000 ms plus a slot); bifrost jitter follows the "
                   "slot from 1.375 ms to 2.000 ms; the running loop takes it from its next "
                   "slot");
  notes.clear();
  // 31.9 ms + 2 ms -> 34 ms.
  e = mp.decide(ports, tel_with_max_rtt(5, 31900000).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 34 * kMs);
  EXPECT_EQ(e[0].params[2], 2125000u);
  EXPECT_EQ(notes.find("ALARM"), std::string::npos) << notes;
  notes.clear();
  // The same measurement again: once acted on. (With the new slot,
  // 31.9 + 2.125 ms would ask for 35 ms: D would creep.)
  e = mp.decide(ports, tel_with_max_rtt(5, 31900000).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 34 * kMs);
  EXPECT_TRUE(notes.empty()) << notes;
  // A new maximum takes the slot of the D in force: 32.6 + 2.125 ms ->
  // 35 ms (with the start's slot, 33.975 -> 34 ms, no raise).
  e = mp.decide(ports, tel_with_max_rtt(5, 32600000).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 35 * kMs);
  EXPECT_EQ(e[0].params[2], 2187500u);
  EXPECT_NE(notes.find("raised from 34.000 ms to 35.000 ms (the loop's measured round trip "
                       "32.600 ms plus a slot)"),
            std::string::npos)
      << notes;
  notes.clear();
  // Never lowered: a smaller measurement (a mode set anew) keeps D.
  e = mp.decide(ports, tel_with_max_rtt(5, 5 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 35 * kMs);
  // Another port's telemetry does not count.
  e = mp.decide(ports, tel_with_max_rtt(9, 100 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 35 * kMs);
  EXPECT_TRUE(notes.empty()) << notes;
  // A configured J does not follow the slot.
  pol::ModePorts fixed;
  auto fj = auto_rtt_link(6);
  fj.mode->jitter_auto = false;
  fj.mode->params[2] = 3 * kMs;
  e = fixed.decide({fj}, tel_with_max_rtt(6, 30 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 32 * kMs);
  EXPECT_EQ(e[0].params[2], 3 * kMs);
  EXPECT_EQ(fixed.jitter_ns(6), 0u);
}

// A raise the core refuses keeps D, says why once, and alarms: the
// measured round trip is above the D in force.
TEST(ModePolicy, AutoRttRaiseRefusedKeepsD)
{
  pol::ModePorts mp;
  std::string notes;
  auto p = auto_rtt_link(7);
  // H = 100000 bytes at 10 Mbit/s holds rtt + 2 T + 2 J = 1.25 D up to
  // 80 ms: D up to 64 ms with T = J = D / 16. D0 = 2 x (10 + 10 ms).
  p.mode->params[3] = 100000;
  std::vector<pol::PortLink> ports = {p};
  auto e = mp.decide(ports, nullptr, 10 * kMs, notes);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].params[0], 40 * kMs);
  // 50 + 2.5 ms -> 53 ms: 66.25 ms of H, taken.
  e = mp.decide(ports, tel_with_max_rtt(7, 50 * kMs).get(), 10 * kMs, notes);
  EXPECT_EQ(e[0].params[0], 53 * kMs);
  notes.clear();
  // 70 + 3.3125 ms -> 74 ms: 92.5 ms of H, refused.
  e = mp.decide(ports, tel_with_max_rtt(7, 70 * kMs).get(), 10 * kMs, notes);
  ASSERT_EQ(e.size(), 1u) << "the port keeps running with the old D";
  EXPECT_EQ(e[0].params[0], 53 * kMs);
  EXPECT_EQ(e[0].params[2], 3312500u);
  EXPECT_EQ(mp.rtt_ns(7), 53 * kMs);
  EXPECT_EQ(notes,
            "port swp7: bifrost rtt stays 53.000 ms: the loop's measured round trip 70.000 ms "
            "plus a slot asks for 74.000 ms, which the mode refuses: bifrost-buffer is below "
            "rate x (rtt + 2 x slot + 2 x jitter), the least Bifrost is lossless with\n"
            "ALARM port swp7: the loop's measured round trip 70.000 ms is above the auto "
            "bifrost-rtt 53.000 ms, which the mode refused to raise: the buffer was sized for "
            "less");
  notes.clear();
  // Said once; a new maximum alarms again, the same refusal is not said.
  e = mp.decide(ports, tel_with_max_rtt(7, 70 * kMs).get(), 10 * kMs, notes);
  EXPECT_TRUE(notes.empty()) << notes;
  e = mp.decide(ports, tel_with_max_rtt(7, 72 * kMs).get(), 10 * kMs, notes);
  EXPECT_EQ(e[0].params[0], 53 * kMs);
  EXPECT_EQ(notes.find("stays"), std::string::npos) << notes;
  EXPECT_NE(notes.find("ALARM port swp7: the loop's measured round trip 72.000 ms"),
            std::string::npos)
      << notes;
  // D is also refused past 2 s, the mode's bound: 1999 + 1.375 ms -> 2001 ms.
  pol::ModePorts far;
  notes.clear();
  e = far.decide({auto_rtt_link(8)}, tel_with_max_rtt(8, 1999 * kMs).get(), kSwDelay, notes);
  EXPECT_EQ(e[0].params[0], 22 * kMs);
  EXPECT_NE(notes.find("port swp8: bifrost rtt stays 22.000 ms: the loop's measured round trip "
                       "1999.000 ms plus a slot asks for 2001.000 ms, which the mode refuses: "
                       "bifrost-rtt must be above 0 and at most 2 s"),
            std::string::npos)
      << notes;
}

// PfcPolicy gives the modes its pool's sw-delay (as set at run time) for
// an "auto" D's start, and pushes each raise.
TEST(ModePolicy, PfcPolicyStartsAutoRttFromItsSwDelay)
{
  pol::PoolSettings s;
  s.name = "sw0";
  s.sw_delay_ns = 5 * kMs;
  pol::PfcPolicy p(s);
  pol::Inputs in;
  in.pool = &s;
  in.ports = {auto_rtt_link(5)};
  auto d = p.decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->modes.size(), 1u);
  EXPECT_EQ(d->modes[0].params[0], 30 * kMs) << "2 x (10 ms + 5 ms)";
  EXPECT_EQ(p.modes().rtt_ns(5), 30 * kMs);
  p.pushed(*d);
  auto t = tel_with_max_rtt(5, 40 * kMs);
  in.telemetry = t.get();
  d = p.decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->modes[0].params[0], 42 * kMs) << "40 ms + 30 / 16 ms, rounded up";
  std::string notes = p.take_notes();
  EXPECT_NE(notes.find("raised from 30.000 ms to 42.000 ms"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("ALARM"), std::string::npos) << notes;
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
