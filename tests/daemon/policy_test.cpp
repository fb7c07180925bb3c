// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The pfc-dt policy against hand-computed values (docs/MMU.md, Static
// headroom: 3 MTU + 2 x cable + 64 B + peer quanta x 64 B + rate x sw
// + the shaper's catch-up).
#include <gtest/gtest.h>

#include <memory>

#include "pfc_dt.h"

namespace {

using namespace lossless::policy;

PortLink port(std::uint32_t ifindex, std::uint64_t rate, std::uint64_t cable_ns = 0,
              std::uint32_t catchup = 0)
{
  PortLink p;
  p.ifindex = ifindex;
  p.dev = "p" + std::to_string(ifindex);
  p.up = true;
  p.rate_bps = rate;
  p.cable_delay_ns = cable_ns;
  p.mtu_bytes = 1518;
  p.catchup_bytes = catchup;
  return p;
}

// The kernel's default catch-up at 5 Mbit/s with sw-delay 60 ms: rate x
// sw-delay = 37500 bytes (above the burst, 2 frames).
constexpr std::uint32_t kCatchup5M60ms = 37500;

// A port of 5 Mbit/s whose qdisc reported that catch-up.
PortLink port5m(std::uint32_t ifindex, std::uint64_t cable_ns = 0)
{
  return port(ifindex, 5000000, cable_ns, kCatchup5M60ms);
}

PoolSettings pool(std::uint64_t sw_ns)
{
  PoolSettings s;
  s.name = "sw0";
  s.sw_delay_ns = sw_ns;
  s.lossless_mask = 1u << 3;
  return s;
}

TEST(PfcDt, HeadroomMatchesTheHandComputedFormula)
{
  // 4554 (3 MTU) + 1250 (2 x 500 ns at 10G) + 64 + 60 quanta x 64 + 1250000
  EXPECT_EQ(PfcDt::headroom_bytes(port(1, 10000000000ULL, 500), 1000000), 1259708u);
  // 4554 + 64 + 1 quantum x 64 + 37500 (60 ms at 5 Mbit/s)
  EXPECT_EQ(PfcDt::headroom_bytes(port(1, 5000000), 60000000), 42182u);
  // 2 ms cable each way at 5 Mbit/s adds 2 x 1250.
  EXPECT_EQ(PfcDt::headroom_bytes(port(1, 5000000, 2000000), 60000000), 44682u);
}

TEST(PfcDt, HeadroomWithACatchUpIsTheHandComputedValuePlusTheCatchUp)
{
  // Term (9): the upstream's shaper, taken to be like the port's, may send
  // its catch-up above the rate. 42182 as above + 37500.
  EXPECT_EQ(PfcDt::headroom_bytes(port5m(1), 60000000), 42182u + 37500);
  EXPECT_EQ(PfcDt::headroom_bytes(port5m(1), 60000000), 79682u);
  // 10G, 1 ms: catch-up 1250000 (1 ms at the rate): 1259708 + 1250000.
  EXPECT_EQ(PfcDt::headroom_bytes(port(1, 10000000000ULL, 500, 1250000), 1000000), 2509708u);
  // A catch-up of the burst only (2 frames): + 3036.
  EXPECT_EQ(PfcDt::headroom_bytes(port(1, 5000000, 0, 3036), 60000000), 42182u + 3036);
}

TEST(PfcDt, MeasuredSoftwareDelayIsTheExcessOverTheFixedTermsPlusMargin)
{
  PortLink p = port(1, 5000000);
  // fixed terms: 4554 + 64 + 64 = 4682; 6250 B more is 10 ms; +25 %.
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 4682 + 6250), 12500000u);
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 4682), 0u);
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 100), 0u);
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 1ULL << 40), 1000000000u) << "capped at 1 s";
}

TEST(PfcDt, TheCatchUpIsAFixedTermNotSoftwareDelay)
{
  PortLink p = port5m(1);
  // fixed terms: 4682 + the catch-up 37500 = 42182; 6250 B more is 10 ms.
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 42182 + 6250), 12500000u);
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 42182), 0u) << "a catch-up burst is no delay";
  EXPECT_EQ(PfcDt::measured_sw_delay_ns(p, 4682 + 6250), 0u);
}

TEST(PfcDt, FirstDecisionCarriesEveryParameterAndEveryPortUp)
{
  PoolSettings s = pool(60000000);
  PfcDt pol(s);
  Inputs in{&s, {port5m(4), port5m(5, 2000000)}, nullptr, 0};
  PortLink down = port5m(6);
  down.up = false;
  in.ports.push_back(down);
  PortLink fixed = port(7, 5000000);  // no catch-up needed: configured
  fixed.headroom_bytes = 50000;
  in.ports.push_back(fixed);
  auto d = pol.decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->alpha, (1u << 8) | 3u);
  EXPECT_EQ(d->egress_alpha, 1u << 8);
  EXPECT_EQ(d->reserved_bytes, 1518u);
  EXPECT_EQ(d->xon_offset_bytes, 3036u);
  ASSERT_EQ(d->headroom.size(), 3u) << "the port that is down keeps what it has";
  EXPECT_EQ(d->headroom[0].ifindex, 4u);
  EXPECT_EQ(d->headroom[0].headroom_bytes, 42182u + 37500);
  EXPECT_EQ(d->headroom[1].ifindex, 5u);
  EXPECT_EQ(d->headroom[1].headroom_bytes, 44682u + 37500);
  EXPECT_EQ(d->headroom[2].ifindex, 7u);
  EXPECT_EQ(d->headroom[2].headroom_bytes, 50000u) << "a configured headroom wins";
}

TEST(PfcDt, APortWhoseCatchUpIsNotReportedKeepsItsOwnHeadroom)
{
  // Its qdisc computed its headroom with its catch-up: without the number
  // the policy would push less. Nor does its peak count as a delay.
  PoolSettings s = pool(1000000);
  PfcDt pol(s);
  auto tel = std::make_unique<lossless_plane_tel>();
  tel->magic = LOSSLESS_PLANE_MAGIC;
  tel->nr_ports = 1;
  tel->ports[0].ifindex = 4;
  tel->ports[0].iq[3].peak_headroom = 4682 + 6250;
  Inputs in{&s, {port(4, 5000000), port5m(5)}, tel.get(), 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->headroom.size(), 1u);
  EXPECT_EQ(d->headroom[0].ifindex, 5u);
  EXPECT_EQ(pol.sw_delay_ns(4), 1000000u) << "no measurement without the catch-up";
  pol.pushed(*d);
  in.ports[0].catchup_bytes = 3036;  // reported: the daemon rebuilt its links
  auto d2 = pol.decide(in);
  ASSERT_TRUE(d2);
  ASSERT_EQ(d2->headroom.size(), 2u);
  EXPECT_EQ(d2->headroom[0].ifindex, 4u);
  // Peak 10932 - fixed (4682 + 3036) = 3214 B = 5.1424 ms, + 25 % = 6.428 ms:
  // 4018 B at 5 Mbit/s (rounded up).
  EXPECT_EQ(pol.sw_delay_ns(4), 6428000u);
  EXPECT_EQ(d2->headroom[0].headroom_bytes, 4682u + 4018 + 3036);
}

TEST(PfcDt, PushesOnlyWhatChanged)
{
  PoolSettings s = pool(60000000);
  PfcDt pol(s);
  Inputs in{&s, {port5m(4)}, nullptr, 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d);
  EXPECT_TRUE(pol.decide(in).has_value()) << "not confirmed yet: still due";
  pol.pushed(*d);
  EXPECT_FALSE(pol.decide(in).has_value()) << "the datapath has it";
  EXPECT_EQ(pol.set("alpha", "1/4"), "");
  auto d2 = pol.decide(in);
  ASSERT_TRUE(d2);
  EXPECT_EQ(d2->alpha, (1u << 8) | 2u);
  pol.refused(*d2, 16);
  EXPECT_FALSE(pol.decide(in).has_value()) << "a refused decision is not retried as is";
  in.ports[0].rate_bps = 10000000;
  auto d3 = pol.decide(in);
  ASSERT_TRUE(d3) << "new inputs, new decision";
  EXPECT_EQ(d3->headroom[0].headroom_bytes, 4554u + 64 + 64 + 75000 + 37500);
}

TEST(PfcDt, MeasuredDelayRaisesTheHeadroomAndNeverLowersIt)
{
  PoolSettings s = pool(1000000);  // 1 ms configured
  PfcDt pol(s);
  auto tel = std::make_unique<lossless_plane_tel>();
  tel->magic = LOSSLESS_PLANE_MAGIC;
  tel->nr_ports = 1;
  tel->ports[0].ifindex = 4;
  tel->ports[0].iq[3].peak_headroom = 4682 + 6250;  // 10 ms at 5 Mbit/s
  tel->ports[0].iq[2].peak_headroom = 1000000;       // lossy priority: ignored
  PortLink p = port(4, 5000000, 0, 3036);  // catch-up: the burst, 2 frames
  Inputs in{&s, {p}, tel.get(), 0};
  tel->ports[0].iq[3].peak_headroom += 3036;
  auto d = pol.decide(in);
  ASSERT_TRUE(d);
  ASSERT_EQ(d->headroom.size(), 1u);
  EXPECT_EQ(pol.sw_delay_ns(4), 12500000u);
  EXPECT_EQ(d->headroom[0].headroom_bytes, 4682u + 7813 + 3036) << "12.5 ms at 5 Mbit/s, rounded up";
  pol.pushed(*d);
  tel->ports[0].iq[3].peak_headroom = 100;  // peaks reset: keep the worst seen
  EXPECT_FALSE(pol.decide(in).has_value());
  EXPECT_EQ(pol.sw_delay_ns(4), 12500000u);
}

TEST(PfcDt, SetValidatesAndNamesTheParameters)
{
  PoolSettings s = pool(1000000);
  PfcDt pol(s);
  EXPECT_EQ(pol.set("alpha", "1/3"),
            "invalid alpha \"1/3\": NUM or NUM/DEN: 1/8, 3/4, 2");
  EXPECT_EQ(pol.set("reserved", "-5"), "invalid reserved \"-5\": must be bytes 0 .. 4294967295");
  EXPECT_EQ(pol.set("sw-delay-us", "2000000"),
            "invalid sw-delay-us \"2000000\": must be 0 .. 1000000");
  EXPECT_EQ(pol.set("beta", "1"),
            "pfc-dt has no parameter \"beta\" (alpha, egress-alpha, reserved, xon-offset, sw-delay-us)");
  EXPECT_EQ(pol.set("egress-alpha", "2"), "");
  auto ps = pol.params();
  ASSERT_EQ(ps.size(), 5u);
  EXPECT_EQ(ps[0].name, "alpha");
  EXPECT_EQ(ps[0].value, "1/8");
  EXPECT_EQ(ps[1].value, "2");
}

TEST(PolicyRegistry, KnowsPfcDtAndSt)
{
  PoolSettings s = pool(1000000);
  EXPECT_NE(make("pfc-dt", s), nullptr);
  EXPECT_NE(make("st", s), nullptr);
  EXPECT_EQ(make("dsh", s), nullptr);
  EXPECT_EQ(names(), (std::vector<std::string>{"pfc-dt", "st"}));
  ASSERT_NE(by_scheme("st"), nullptr);
  EXPECT_EQ(by_scheme("st")->policy, "st");
  EXPECT_EQ(by_scheme("dt")->policy, "pfc-dt");
  EXPECT_EQ(by_scheme("dsh"), nullptr);
  EXPECT_EQ(by_scheme_id(LOSSLESS_SCHEME_ST), by_scheme("st"));
  EXPECT_EQ(scheme_names(), "dt, st");
  lossless_plane_scheme b = default_block(*by_scheme("st"));
  EXPECT_EQ(b.id, (unsigned)LOSSLESS_SCHEME_ST);
  EXPECT_EQ(b.p.st.threshold_bytes, 0u);
}

// The st policy: the baseline's parameters and headroom, and ST's block.
TEST(St, PushesItsSchemeBlockAndSetsItsThreshold)
{
  PoolSettings s = pool(60000000);
  s.scheme = default_block(*by_scheme("st"));
  s.scheme.p.st.threshold_bytes = 100000;
  auto pol = make("st", s);
  ASSERT_NE(pol, nullptr);
  EXPECT_EQ(pol->name(), "st");
  Inputs in{&s, {port5m(4)}, nullptr, 0};
  auto d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->scheme.has_value());
  EXPECT_EQ(d->scheme->id, (unsigned)LOSSLESS_SCHEME_ST);
  EXPECT_EQ(d->scheme->p.st.threshold_bytes, 100000u);
  EXPECT_EQ(d->headroom.size(), 1u);
  pol->pushed(*d);
  EXPECT_FALSE(pol->decide(in).has_value()) << "nothing changed";
  EXPECT_EQ(pol->set("st.threshold", "128kb"), "");
  d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->scheme->p.st.threshold_bytes, 131072u);
  EXPECT_EQ(pol->set("st.threshold", "5mb"),
            "invalid st.threshold \"5mb\": must be 0 .. 4194304 bytes (the pool's buffer)");
  EXPECT_EQ(pol->set("st.threshold", "lots"), "invalid st.threshold \"lots\": not a valid value");
  auto ps = pol->params();
  ASSERT_EQ(ps.size(), 6u);
  EXPECT_EQ(ps[5].name, "st.threshold");
  EXPECT_EQ(ps[5].value, "131072");
}

TEST(St, TheBaselineHasNoStParameterAndPushesDt)
{
  PoolSettings s = pool(60000000);
  PfcDt pol(s);
  EXPECT_EQ(pol.set("st.threshold", "1kb"),
            "pfc-dt has no parameter \"st.threshold\" (alpha, egress-alpha, reserved, "
            "xon-offset, sw-delay-us)");
  Inputs in{&s, {port5m(4)}, nullptr, 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->scheme.has_value());
  EXPECT_EQ(d->scheme->id, (unsigned)LOSSLESS_SCHEME_DT);
}

}  // namespace
