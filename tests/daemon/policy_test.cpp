// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The pfc-dt policy against hand-computed values (docs/MMU.md, Static
// headroom: 3 MTU + 2 x cable + 64 B + peer quanta x 64 B + rate x sw
// + the shaper's catch-up).
#include <gtest/gtest.h>

#include <memory>

#include "pfc_policy.h"

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

TEST(PfcPolicy, HeadroomMatchesTheHandComputedFormula)
{
  // 4554 (3 MTU) + 1250 (2 x 500 ns at 10G) + 64 + 60 quanta x 64 + 1250000
  EXPECT_EQ(PfcPolicy::headroom_bytes(port(1, 10000000000ULL, 500), 1000000), 1259708u);
  // 4554 + 64 + 1 quantum x 64 + 37500 (60 ms at 5 Mbit/s)
  EXPECT_EQ(PfcPolicy::headroom_bytes(port(1, 5000000), 60000000), 42182u);
  // 2 ms cable each way at 5 Mbit/s adds 2 x 1250.
  EXPECT_EQ(PfcPolicy::headroom_bytes(port(1, 5000000, 2000000), 60000000), 44682u);
}

TEST(PfcPolicy, HeadroomWithACatchUpIsTheHandComputedValuePlusTheCatchUp)
{
  // Term (9): the upstream's shaper, taken to be like the port's, may send
  // its catch-up above the rate. 42182 as above + 37500.
  EXPECT_EQ(PfcPolicy::headroom_bytes(port5m(1), 60000000), 42182u + 37500);
  EXPECT_EQ(PfcPolicy::headroom_bytes(port5m(1), 60000000), 79682u);
  // 10G, 1 ms: catch-up 1250000 (1 ms at the rate): 1259708 + 1250000.
  EXPECT_EQ(PfcPolicy::headroom_bytes(port(1, 10000000000ULL, 500, 1250000), 1000000), 2509708u);
  // A catch-up of the burst only (2 frames): + 3036.
  EXPECT_EQ(PfcPolicy::headroom_bytes(port(1, 5000000, 0, 3036), 60000000), 42182u + 3036);
}

TEST(PfcPolicy, MeasuredSoftwareDelayIsTheExcessOverTheFixedTermsPlusMargin)
{
  PortLink p = port(1, 5000000);
  // fixed terms: 4554 + 64 + 64 = 4682; 6250 B more is 10 ms; +25 %.
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 4682 + 6250), 12500000u);
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 4682), 0u);
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 100), 0u);
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 1ULL << 40), 1000000000u) << "capped at 1 s";
}

TEST(PfcPolicy, TheCatchUpIsAFixedTermNotSoftwareDelay)
{
  PortLink p = port5m(1);
  // fixed terms: 4682 + the catch-up 37500 = 42182; 6250 B more is 10 ms.
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 42182 + 6250), 12500000u);
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 42182), 0u) << "a catch-up burst is no delay";
  EXPECT_EQ(PfcPolicy::measured_sw_delay_ns(p, 4682 + 6250), 0u);
}

TEST(PfcPolicy, FirstDecisionCarriesEveryParameterAndEveryPortUp)
{
  PoolSettings s = pool(60000000);
  PfcPolicy pol(s);
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

TEST(PfcPolicy, APortWhoseCatchUpIsNotReportedKeepsItsOwnHeadroom)
{
  // Its qdisc computed its headroom with its catch-up: without the number
  // the policy would push less. Nor does its peak count as a delay.
  PoolSettings s = pool(1000000);
  PfcPolicy pol(s);
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

TEST(PfcPolicy, PushesOnlyWhatChanged)
{
  PoolSettings s = pool(60000000);
  PfcPolicy pol(s);
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

TEST(PfcPolicy, MeasuredDelayRaisesTheHeadroomAndNeverLowersIt)
{
  PoolSettings s = pool(1000000);  // 1 ms configured
  PfcPolicy pol(s);
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

TEST(PfcPolicy, SetValidatesAndNamesTheParameters)
{
  PoolSettings s = pool(1000000);
  PfcPolicy pol(s);
  EXPECT_EQ(pol.set("alpha", "1/3"),
            "invalid alpha \"1/3\": NUM or NUM/DEN: 1/8, 3/4, 2");
  EXPECT_EQ(pol.set("reserved", "-5"), "invalid reserved \"-5\": must be bytes 0 .. 4294967295");
  EXPECT_EQ(pol.set("sw-delay", "2s"),
            "invalid sw-delay \"2s\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)");
  EXPECT_EQ(pol.set("sw-delay", "2000"),
            "invalid sw-delay \"2000\": must be a time 0 .. 1s with a unit ns, us, ms or s (5us, 1ms)");
  EXPECT_EQ(pol.set("sw-delay-us", "3000"), "sw-delay-us: renamed; write sw-delay 3000us");
  EXPECT_EQ(pol.set("beta", "1"),
            "pfc-dt has no parameter \"beta\" (alpha, egress-alpha, reserved, xon-offset, sw-delay)");
  EXPECT_EQ(pol.set("egress-alpha", "2"), "");
  auto ps = pol.params();
  ASSERT_EQ(ps.size(), 5u);
  EXPECT_EQ(ps[0].name, "alpha");
  EXPECT_EQ(ps[0].value, "1/8");
  EXPECT_EQ(ps[1].value, "2");
}

TEST(PolicyRegistry, KnowsPfcPolicyStDshAndSpfc)
{
  PoolSettings s = pool(1000000);
  EXPECT_NE(make("pfc-dt", s), nullptr);
  EXPECT_NE(make("st", s), nullptr);
  EXPECT_NE(make("dsh", s), nullptr);
  EXPECT_NE(make("spfc", s), nullptr);
  EXPECT_EQ(make("pcn", s), nullptr);
  EXPECT_NE(make("portfc", s), nullptr);
  EXPECT_EQ(names(), (std::vector<std::string>{"pfc-dt", "st", "dsh", "spfc", "portfc"}));
  ASSERT_NE(by_scheme("st"), nullptr);
  EXPECT_EQ(by_scheme("st")->policy, "st");
  EXPECT_EQ(by_scheme("dt")->policy, "pfc-dt");
  EXPECT_EQ(by_scheme("dsh")->policy, "dsh");
  EXPECT_EQ(by_scheme("spfc")->policy, "spfc");
  EXPECT_EQ(by_scheme("pcn"), nullptr);
  EXPECT_EQ(by_scheme_id(LOSSLESS_SCHEME_ST), by_scheme("st"));
  EXPECT_EQ(by_scheme_id(LOSSLESS_SCHEME_DSH), by_scheme("dsh"));
  EXPECT_EQ(by_scheme_id(LOSSLESS_SCHEME_SPFC), by_scheme("spfc"));
  EXPECT_EQ(by_scheme("dsh")->params.size(), 4u);
  EXPECT_EQ(by_scheme("spfc")->params.size(), 6u);
  EXPECT_EQ(by_scheme_id(LOSSLESS_SCHEME_PORTFC), by_scheme("portfc"));
  EXPECT_EQ(by_scheme("portfc")->params.size(), 5u);
  EXPECT_EQ(scheme_names(), "dt, st, dsh, spfc, portfc");
  lossless_plane_scheme d = default_block(*by_scheme("dsh"));
  EXPECT_EQ(d.id, (unsigned)LOSSLESS_SCHEME_DSH);
  EXPECT_EQ(d.p.dsh.window_ns, 10000000u);
  EXPECT_EQ(d.p.dsh.ewma_shift, 2u);
  EXPECT_EQ(d.p.dsh.deviation_gain, 4u);
  EXPECT_EQ(d.p.dsh.flags, 0u);
  lossless_plane_scheme f = default_block(*by_scheme("spfc"));
  EXPECT_EQ(f.p.spfc.tc_ns, 1000000u);
  EXPECT_EQ(f.p.spfc.k, 5u);
  EXPECT_EQ(f.p.spfc.irc_th_bytes, 0u);
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
  EXPECT_EQ(pol->set("st.threshold", "lots"),
            "invalid st.threshold \"lots\": must be 0 .. 1099511627776 bytes (tc size units b, "
            "kb, mb, gb: 1500b, 64kb, 4mb)");
  auto ps = pol->params();
  ASSERT_EQ(ps.size(), 6u);
  EXPECT_EQ(ps[5].name, "st.threshold");
  EXPECT_EQ(ps[5].value, "131072");
}

// The dsh policy: the baseline's headroom (the ports' insurance Phi), DSH's
// block, its parameters by name; a change that leaves N_q x T beyond the
// buffer, or a port's Phi above the shared region, is refused and changes
// nothing.
TEST(Dsh, PushesItsBlockAndChecksItsChanges)
{
  PoolSettings s = pool(60000000);
  s.scheme = default_block(*by_scheme("dsh"));
  auto pol = make("dsh", s);
  ASSERT_NE(pol, nullptr);
  EXPECT_EQ(pol->name(), "dsh");
  Inputs in{&s, {port5m(4), port5m(5)}, nullptr, 0};
  auto d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->scheme.has_value());
  EXPECT_EQ(d->scheme->id, (unsigned)LOSSLESS_SCHEME_DSH);
  EXPECT_EQ(d->scheme->p.dsh.window_ns, 10000000u);
  EXPECT_EQ(d->headroom.size(), 2u);
  pol->pushed(*d);
  EXPECT_EQ(pol->set("dsh.variant", "no-insurance"), "");
  EXPECT_EQ(pol->set("dsh.window", "20ms"), "");
  EXPECT_EQ(pol->set("dsh.gain", "8"), "");
  EXPECT_EQ(pol->set("dsh.ewma-shift", "1"), "");
  d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->scheme->p.dsh.flags, LOSSLESS_DSH_F_NO_INSURANCE);
  EXPECT_EQ(d->scheme->p.dsh.window_ns, 20000000u);
  EXPECT_EQ(d->scheme->p.dsh.deviation_gain, 8u);
  EXPECT_EQ(d->scheme->p.dsh.ewma_shift, 1u);
  pol->pushed(*d);
  EXPECT_EQ(pol->set("dsh.variant", "no-shared-headroom,static-tau"),
            "invalid dsh.variant \"no-shared-headroom,static-tau\": "
            "no-shared-headroom,static-tau do not go together");
  EXPECT_EQ(pol->set("dsh.gain", "0"), "invalid dsh.gain \"0\": must be an integer 1 .. 16");
  EXPECT_EQ(pol->set("dsh.window", "0ns"),
            "invalid dsh.window \"0ns\": must be a time 1ns .. 10s with a unit ns, us, ms or s "
            "(5us, 1ms)");
  // alpha 4 with 1 lossless priority: T of an empty pool is 4 x shared.
  std::string why = pol->set("alpha", "4");
  EXPECT_NE(why.find("invalid alpha \"4\": dsh: N_q x T (1 lossless priorities x T "), std::string::npos)
      << why;
  EXPECT_NE(why.find("beyond the buffer (4194304 bytes)"), std::string::npos) << why;
  EXPECT_FALSE(pol->decide(in).has_value()) << "nothing changed";
  auto ps = pol->params();
  ASSERT_EQ(ps.size(), 9u);
  EXPECT_EQ(ps[5].name, "dsh.window");
  EXPECT_EQ(ps[5].value, "20000000");
  EXPECT_EQ(ps[8].name, "dsh.variant");
  EXPECT_EQ(ps[8].value, "no-insurance");
}

// DSH: a port's lossless priorities share its insurance headroom (Phi),
// so the measured delay comes from the port's insurance peak (its scheme
// telemetry), with the queues' peaks; DT and ST read the queues' only.
TEST(Dsh, MeasuredDelayFromThePortsInsurancePeak)
{
  auto tel = std::make_unique<lossless_plane_tel>();
  tel->magic = LOSSLESS_PLANE_MAGIC;
  tel->nr_ports = 1;
  tel->ports[0].ifindex = 4;
  tel->ports[0].iq[3].peak_headroom = 2000;  // within the fixed terms
  tel->sch[0].s.scheme = LOSSLESS_SCHEME_DSH;
  tel->sch[0].s.ctr[3] = 4682 + 3036 + 6250;  // insurance_peak: 10 ms at 5 Mbit/s
  PortLink p = port(4, 5000000, 0, 3036);
  for (const char *name : {"pfc-dt", "st", "dsh"}) {
    PoolSettings s = pool(1000000);
    s.scheme = default_block(*by_policy(name));
    auto pol = make(name, s);
    ASSERT_NE(pol, nullptr) << name;
    Inputs in{&s, {p}, tel.get(), 0};
    auto d = pol->decide(in);
    ASSERT_TRUE(d) << name;
    ASSERT_EQ(d->headroom.size(), 1u) << name;
    if (std::string(name) == "dsh") {
      EXPECT_EQ(pol->sw_delay_ns(4), 12500000u) << "the insurance peak measures";
      EXPECT_EQ(d->headroom[0].headroom_bytes, 4682u + 7813 + 3036);
    } else {
      EXPECT_EQ(pol->sw_delay_ns(4), 1000000u) << name << ": the queues' peaks only";
      EXPECT_EQ(d->headroom[0].headroom_bytes, 4682u + 625 + 3036) << name;
    }
  }
  // The queue's peak still counts under DSH, when it is the larger.
  PoolSettings s = pool(1000000);
  s.scheme = default_block(*by_policy("dsh"));
  auto pol = make("dsh", s);
  tel->ports[0].iq[3].peak_headroom = 4682 + 3036 + 12500;  // 20 ms
  Inputs in{&s, {p}, tel.get(), 0};
  ASSERT_TRUE(pol->decide(in));
  EXPECT_EQ(pol->sw_delay_ns(4), 25000000u);
}

// The spfc policy: K, the window against the ports' round trip with the
// software delay in force (configured or measured), both IRC_th units.
TEST(Spfc, PushesItsBlockAndChecksItsChanges)
{
  PoolSettings s = pool(100000);  // 100 us
  s.scheme = default_block(*by_scheme("spfc"));
  auto pol = make("spfc", s);
  ASSERT_NE(pol, nullptr);
  Inputs in{&s, {port5m(4, 50000)}, nullptr, 0};  // 50 us cable: RTT 300 us
  auto d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->scheme->id, (unsigned)LOSSLESS_SCHEME_SPFC);
  EXPECT_EQ(d->scheme->p.spfc.k, 5u);
  pol->pushed(*d);
  EXPECT_EQ(pol->set("spfc.k", "10"), "");
  EXPECT_EQ(pol->set("spfc.mode", "window-end"), "");
  EXPECT_EQ(pol->set("spfc.window", "2ms"), "");
  d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->scheme->p.spfc.k, 10u);
  EXPECT_EQ(d->scheme->p.spfc.flags, LOSSLESS_SPFC_F_WINDOW_END);
  EXPECT_EQ(d->scheme->p.spfc.tc_ns, 2000000u);
  pol->pushed(*d);
  for (const char *bad : {"0", "-1", "2.5", "nan", "inf", "1001"})
    EXPECT_EQ(pol->set("spfc.k", bad),
              std::string("invalid spfc.k \"") + bad + "\": must be an integer 1 .. 1000");
  EXPECT_EQ(pol->set("spfc.window", "200us"),
            "invalid spfc.window \"200us\": spfc: window TC 200us is shorter than port p4's round "
            "trip 2 x (cable-delay + sw-delay) = 300us: a window must see the reaction to a pause");
  // The software delay in force counts: 1 ms makes the round trip 2.1 ms.
  EXPECT_EQ(pol->set("sw-delay", "1ms"),
            "invalid sw-delay \"1ms\": spfc: window TC 2ms is shorter than port p4's round "
            "trip 2 x (cable-delay + sw-delay) = 2100us: a window must see the reaction to a pause");
  EXPECT_EQ(pol->set("spfc.irc-th", "1000"),
            "invalid spfc.irc-th \"1000\": spfc: irc-th (1000 bytes) is below one frame (1518 "
            "bytes): every queue would be a Victim");
  EXPECT_EQ(pol->set("spfc.irc-th", "64kb"), "");
  EXPECT_EQ(pol->set("spfc.irc-th-packets", "100"),
            "invalid spfc.irc-th-packets \"100\": spfc: irc-th and irc-th-packets together: give "
            "one (bytes or packets)");
  d = pol->decide(in);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->scheme->p.spfc.irc_th_bytes, 65536u);
  EXPECT_EQ(d->scheme->p.spfc.irc_th_packets, 0u);
  EXPECT_EQ(d->scheme->p.spfc.tc_ns, 2000000u);
  auto ps = pol->params();
  ASSERT_EQ(ps.size(), 11u);
  EXPECT_EQ(ps[9].name, "spfc.mode");
  EXPECT_EQ(ps[9].value, "window-end");
}

// A scheme's checks, on their own (integers; ports of unknown headroom or
// round trip left out).
TEST(SchemeChecks, DshAndSpfc)
{
  PoolSettings s = pool(1000000);
  s.buffer_bytes = 1000000;
  s.reserved_bytes = 1000;
  s.alpha = (1u << 8) | 3;  // 1/8
  s.scheme = default_block(*by_scheme("dsh"));
  std::vector<SchemePort> ports = {{"a", 0, 100000}, {"b", 0, 0}};
  EXPECT_TRUE(check_scheme(s, ports).empty());
  ports[1].headroom_bytes = 900000;  // 16000 + 1000000 > the buffer
  auto is = check_scheme(s, ports);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_TRUE(is[0].error);
  EXPECT_EQ(is[0].param, &ll_params[LL_P_BUFFER]);
  ports[1].headroom_bytes = 500000;  // shared 384000: b's Phi above it
  is = check_scheme(s, ports);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_EQ(is[0].port, 1);
  EXPECT_EQ(is[0].msg,
            "dsh: port b's insurance headroom Phi (500000 bytes) is larger than the shared region "
            "(384000 bytes: the buffer less the reserves (16000 bytes) and the ports' insurance "
            "headroom (600000 bytes))");
  s.scheme.p.dsh.flags = LOSSLESS_DSH_F_NO_INSURANCE;  // nothing carved
  EXPECT_TRUE(check_scheme(s, ports).empty());
  s.scheme = default_block(*by_scheme("spfc"));
  s.scheme.p.spfc.tc_ns = 0;  // 1 ms
  ports = {{"a", 300000, 0}, {"b", 0, 0}};
  is = check_scheme(s, ports);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_FALSE(is[0].error) << "1 ms < 4 x 300 us: a warning";
  EXPECT_EQ(is[0].param, ll_param_of_scheme_key(LOSSLESS_SCHEME_SPFC, "window"));
  ports[0].rtt_ns = 250000;
  EXPECT_TRUE(check_scheme(s, ports).empty()) << "exactly 4 round trips";
  ports[1].rtt_ns = 1000001;
  is = check_scheme(s, ports);
  ASSERT_EQ(is.size(), 1u);
  EXPECT_TRUE(is[0].error);
  EXPECT_EQ(is[0].port, 1);
  s.scheme.id = LOSSLESS_SCHEME_ST;
  EXPECT_TRUE(check_scheme(s, ports).empty()) << "not ST's";
}

TEST(St, TheBaselineHasNoStParameterAndPushesDt)
{
  PoolSettings s = pool(60000000);
  PfcPolicy pol(s);
  EXPECT_EQ(pol.set("st.threshold", "1kb"),
            "pfc-dt has no parameter \"st.threshold\" (alpha, egress-alpha, reserved, "
            "xon-offset, sw-delay)");
  Inputs in{&s, {port5m(4)}, nullptr, 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->scheme.has_value());
  EXPECT_EQ(d->scheme->id, (unsigned)LOSSLESS_SCHEME_DT);
}

// The premise (docs/RELIABILITY.md): the XOFF response is this switch's
// half of the software delay; beyond half of the delay in force it
// raises the delay to 2 x the response + 25 %, in whole us.
TEST(PfcPolicy, AnXoffResponseBeyondHalfTheSoftwareDelayImpliesTwiceItPlusMargin)
{
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(500000, 1000000), 0u) << "exactly half: within";
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(0, 1000000), 0u);
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(600000, 1000000), 1500000u);
  // 2 x 500001 = 1000002, + 25 % = 1250002, rounded up to 1 us.
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(500001, 1000000), 1251000u);
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(3000000, 60000000), 0u);
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(31000000, 60000000), 77500000u);
  EXPECT_EQ(PfcPolicy::response_sw_delay_ns(1ULL << 40, 1000000), 1000000000u) << "capped at 1 s";
}

TEST(PfcPolicy, ASlowXoffResponseRaisesTheSoftwareDelayOnceWithALogLine)
{
  PoolSettings s = pool(1000000);  // 1 ms: this switch's half is 500 us
  PfcPolicy pol(s);
  auto tel = std::make_unique<lossless_plane_tel>();
  tel->magic = LOSSLESS_PLANE_MAGIC;
  tel->nr_ports = 2;
  tel->ports[0].ifindex = 4;
  tel->ports[1].ifindex = 7;
  tel->premise[0].xoff_response_max_ns = 500000;  // within: nothing
  PortLink fixed = port5m(7);
  fixed.headroom_bytes = 50000;  // configured: not the policy's to size
  tel->premise[1].xoff_response_max_ns = 9000000;
  Inputs in{&s, {port5m(4), fixed}, tel.get(), 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d);
  EXPECT_EQ(pol.sw_delay_ns(4), 1000000u);
  EXPECT_EQ(pol.sw_delay_ns(7), 1000000u) << "a configured headroom is not raised";
  EXPECT_EQ(pol.take_notes(), "");
  pol.pushed(*d);

  tel->premise[0].xoff_response_max_ns = 3000000;  // 3 ms > 500 us
  d = pol.decide(in);
  ASSERT_TRUE(d) << "a raise is a push";
  EXPECT_EQ(pol.sw_delay_ns(4), 7500000u) << "2 x 3 ms + 25 %";
  ASSERT_EQ(d->headroom.size(), 2u);
  EXPECT_EQ(d->headroom[0].headroom_bytes, PfcPolicy::headroom_bytes(port5m(4), 7500000));
  EXPECT_GT(d->headroom[0].headroom_bytes, PfcPolicy::headroom_bytes(port5m(4), 1000000));
  EXPECT_EQ(pol.take_notes(),
            "port p4: XOFF response up to 3ms, more than half of the 1ms sw-delay its headroom "
            "assumes (this switch's half of the loop): sw-delay for its headroom raised to "
            "7500us (2 x the response + 25 %)");
  pol.pushed(*d);

  // Hysteresis: the same response, or one within half of 7.5 ms, again
  // raises nothing; a measurement never lowers it.
  EXPECT_FALSE(pol.decide(in).has_value());
  tel->premise[0].xoff_response_max_ns = 3750000;
  EXPECT_FALSE(pol.decide(in).has_value());
  tel->premise[0].xoff_response_max_ns = 0;  // peaks cleared
  EXPECT_FALSE(pol.decide(in).has_value());
  EXPECT_EQ(pol.sw_delay_ns(4), 7500000u);
  EXPECT_EQ(pol.take_notes(), "");
  tel->premise[0].xoff_response_max_ns = 3750001;
  d = pol.decide(in);
  ASSERT_TRUE(d);
  EXPECT_EQ(pol.sw_delay_ns(4), 9376000u) << "2 x 3.750001 ms + 25 %, rounded up to 1 us";
  EXPECT_NE(pol.take_notes().find("raised to 9376us"), std::string::npos);
}

// Ownership (ownership.h): adopt() takes the pass-through settings from the
// datapath as the policy's own; revert() makes the next decision a push.
TEST(PfcPolicy, AdoptTakesThePassThroughSettingsAndRevertPushesAgain)
{
  PoolSettings s = pool(60000000);
  PfcPolicy pol(s);
  Inputs in{&s, {port5m(4)}, nullptr, 0};
  auto d = pol.decide(in);
  ASSERT_TRUE(d);
  pol.pushed(*d);
  EXPECT_FALSE(pol.decide(in).has_value());
  pol.revert();
  auto again = pol.decide(in);
  ASSERT_TRUE(again) << "reverted: the same decision, pushed again";
  EXPECT_EQ(again->headroom[0].headroom_bytes, d->headroom[0].headroom_bytes);
  EXPECT_EQ(again->alpha, d->alpha);
  pol.pushed(*again);
  auto tel = std::make_unique<lossless_plane_tel>();
  tel->alpha = (1u << 8) | 1u;  // 1/2
  tel->egress_alpha = *d->egress_alpha;
  tel->reserved_bytes = 3000;
  tel->xon_offset_bytes = *d->xon_offset_bytes;
  tel->scheme = *d->scheme;
  pol.adopt(*tel);
  auto adopted = pol.decide(in);
  ASSERT_TRUE(adopted);
  EXPECT_EQ(adopted->alpha, (1u << 8) | 1u);
  EXPECT_EQ(adopted->reserved_bytes, 3000u);
  EXPECT_EQ(adopted->headroom[0].headroom_bytes, d->headroom[0].headroom_bytes);
  bool shown = false;
  for (const auto &pi : pol.params())
    shown |= pi.name == "alpha" && pi.value == "1/2";
  EXPECT_TRUE(shown) << "the adopted value is the policy's parameter";
}

}  // namespace
