// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// SPFC's slow path and oracle in the daemon (daemon/policy/spfc_slow.h;
// docs/SPFC.md, "The slow path and the oracle"): the per-window decision
// from synthetic telemetry (departures over the last window >= IRC_th and
// not paused), the blocks it writes and when, the oracle's states, and
// the typed input refused.
#include <gtest/gtest.h>

#include <cstring>

#include <memory>

#include "pfc_policy.h"
#include "spfc_slow.h"

namespace {

using namespace lossless::policy;

constexpr std::uint64_t kTc = 200000000;  // 200 ms
constexpr std::uint64_t kTh = 41666;      // IRC_th of the ports

// A pool of spfc with two ports (ifindex 11, 12), priorities 3 and 4
// lossless, at time 1.05 s (in the window [1.0 s, 1.2 s)).
std::unique_ptr<lossless_plane_tel> tel(std::uint64_t flags = LOSSLESS_SPFC_F_DAEMON)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->time_ns = 1050000000;
  t->nr_ports = 2;
  t->lossless_mask = 0x18;
  t->scheme.id = LOSSLESS_SCHEME_SPFC;
  t->scheme.p.spfc.tc_ns = kTc;
  t->scheme.p.spfc.flags = flags;
  for (unsigned i = 0; i < 2; i++) {
    t->ports[i].ifindex = 11 + i;
    t->sch[i].s.scheme = LOSSLESS_SCHEME_SPFC;
    t->sch[i].s.ctr[6] = kTh;  // irc_threshold
  }
  return t;
}

TEST(SpfcSlow, ParsesStatesAndPrioritiesAsTyped)
{
  EXPECT_EQ(parse_spfc_force("victim"), SpfcForce::Victim);
  EXPECT_EQ(parse_spfc_force("normal"), SpfcForce::Normal);
  EXPECT_EQ(parse_spfc_force("auto"), SpfcForce::Auto);
  for (const char *bad : {"", "Victim", "victims", "1", "off", "auto ", "normal\n"})
    EXPECT_FALSE(parse_spfc_force(bad).has_value()) << bad;
  for (unsigned p = 0; p < 8; p++)
    EXPECT_EQ(parse_spfc_prio(std::to_string(p)), p);
  for (const char *bad : {"", "8", "9", "-1", "03", " 3", "3 ", "a", "3.0", "+3", "10"})
    EXPECT_FALSE(parse_spfc_prio(bad).has_value()) << bad;
  EXPECT_STREQ(spfc_force_name(SpfcForce::Victim), "victim");
  EXPECT_STREQ(spfc_force_name(SpfcForce::Normal), "normal");
  EXPECT_STREQ(spfc_force_name(SpfcForce::Auto), "auto");
}

TEST(SpfcSlow, WindowEndIsTheLastMultipleOfTc)
{
  EXPECT_EQ(spfc_window_end(1050000000, kTc), 1000000000u);
  EXPECT_EQ(spfc_window_end(1000000000, kTc), 1000000000u);  // half-open windows
  EXPECT_EQ(spfc_window_end(999999999, kTc), 800000000u);
  EXPECT_EQ(spfc_window_end(199999999, kTc), 0u);
  EXPECT_EQ(spfc_window_end(5, 0), 0u);
}

// spfc.md 6.3: departures over the window >= IRC_th and not paused.
TEST(SpfcSlow, VictimsAreDeparturesAtIrcThAndNotPaused)
{
  auto t = tel();
  t->sch[0].s.prio[3] = kTh;      // exactly IRC_th: a Victim (">=", A5)
  t->sch[0].s.prio[4] = kTh - 1;  // one byte short
  t->sch[0].s.prio[1] = 10 * kTh;  // a lossy priority: never
  EXPECT_EQ(spfc_victims(*t, 0), 1u << 3);
  t->sch[0].s.prio[4] = kTh + 1;
  EXPECT_EQ(spfc_victims(*t, 0), (1u << 3) | (1u << 4));
  t->ports[0].iq[3].paused = 1;  // paused: not a Victim (the reset line)
  EXPECT_EQ(spfc_victims(*t, 0), 1u << 4);
  EXPECT_EQ(spfc_victims(*t, 1), 0u);  // no departures
  t->sch[0].s.ctr[6] = 0;              // no IRC_th reported: nothing
  EXPECT_EQ(spfc_victims(*t, 0), 0u);
  t->sch[0].s.ctr[6] = kTh;
  t->sch[0].s.scheme = LOSSLESS_SCHEME_DSH;  // another scheme's telemetry
  EXPECT_EQ(spfc_victims(*t, 0), 0u);
  EXPECT_EQ(spfc_victims(*t, 2), 0u);  // beyond nr_ports
  EXPECT_EQ(spfc_victims(*t, LOSSLESS_PLANE_PORTS), 0u);
}

TEST(SpfcSlow, PublishesOncePerWindowWithItsEnd)
{
  SpfcSlowPath s;
  auto t = tel();
  t->sch[0].s.prio[3] = 2 * kTh;
  auto b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].ifindex, 11u);
  EXPECT_EQ(b->ports[0].flags, LOSSLESS_SPFC_PUB);
  EXPECT_EQ(b->ports[0].victims, 1u << 3);
  EXPECT_EQ(b->ports[0].window_end_ns, 1000000000u);
  EXPECT_EQ(b->ports[1].ifindex, 12u);
  EXPECT_EQ(b->ports[1].flags, LOSSLESS_SPFC_PUB);
  EXPECT_EQ(b->ports[1].victims, 0u);
  EXPECT_EQ(b->ports[2].ifindex, 0u);
  EXPECT_EQ(s.last_window_end(), 1000000000u);
  // The same window again: nothing to write.
  t->time_ns = 1199999999;
  EXPECT_FALSE(s.block(*t).has_value());
  // The next window: its departures decide (h0 paused now: not a Victim).
  t->time_ns = 1200000000;
  t->ports[0].iq[3].paused = 1;
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].victims, 0u);
  EXPECT_EQ(b->ports[0].window_end_ns, 1200000000u);
  // Windows skipped (a late tick): the latest one that ended.
  t->time_ns = 2050000000;
  t->ports[0].iq[3].paused = 0;
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].window_end_ns, 2000000000u);
  EXPECT_EQ(b->ports[0].victims, 1u << 3);
}

TEST(SpfcSlow, NothingUnderAnotherSchemeAndNoPublicationWithoutDaemonMode)
{
  SpfcSlowPath s;
  auto t = tel(0);  // spfc-mode irc
  t->sch[0].s.prio[3] = 2 * kTh;
  // The first block: the ports are new (no forced state, no publication).
  auto b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].ifindex, 11u);
  EXPECT_EQ(b->ports[0].flags, 0u);
  EXPECT_EQ(b->ports[0].victims, 0u);
  EXPECT_EQ(b->ports[0].window_end_ns, 0u);
  t->time_ns += 10 * kTc;
  EXPECT_FALSE(s.block(*t).has_value());  // no change: nothing
  t->scheme.id = LOSSLESS_SCHEME_DT;
  EXPECT_EQ(s.force(11, 3, SpfcForce::Victim, 0x18), "");
  EXPECT_FALSE(s.block(*t).has_value());  // the datapath would refuse it
}

TEST(SpfcSlow, TheOracleIsWrittenWithEveryBlock)
{
  SpfcSlowPath s;
  auto t = tel();
  t->sch[1].s.prio[4] = kTh;
  ASSERT_TRUE(s.block(*t).has_value());
  // Force port 11's priority 3 Victim and 12's 4 Normal within the window:
  // a block at once, repeating the window's publication.
  EXPECT_EQ(s.force(11, 3, SpfcForce::Victim, 0x18), "");
  EXPECT_EQ(s.force(12, 4, SpfcForce::Normal, 0x18), "");
  EXPECT_EQ(s.forced(11, 3), SpfcForce::Victim);
  EXPECT_EQ(s.forced(11, 4), SpfcForce::Auto);
  auto b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].force_victim, 1u << 3);
  EXPECT_EQ(b->ports[0].force_normal, 0u);
  EXPECT_EQ(b->ports[1].force_normal, 1u << 4);
  EXPECT_EQ(b->ports[1].flags, LOSSLESS_SPFC_PUB);
  EXPECT_EQ(b->ports[1].victims, 1u << 4);
  EXPECT_EQ(b->ports[1].window_end_ns, 1000000000u);
  // The same state again: no change, no block.
  EXPECT_EQ(s.force(11, 3, SpfcForce::Victim, 0x18), "");
  EXPECT_FALSE(s.block(*t).has_value());
  // Every later block carries it.
  t->time_ns += kTc;
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].force_victim, 1u << 3);
  // auto forgets it.
  EXPECT_EQ(s.force(11, 3, SpfcForce::Auto, 0x18), "");
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[0].force_victim, 0u);
  auto all = s.all_forced();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].ifindex, 12u);
  EXPECT_EQ(all[0].prio, 4u);
  EXPECT_EQ(all[0].state, SpfcForce::Normal);
}

TEST(SpfcSlow, TheOracleRefusesLossyPrioritiesAndWaitsForItsPort)
{
  SpfcSlowPath s;
  auto t = tel(0);
  EXPECT_NE(s.force(11, 2, SpfcForce::Victim, 0x18).find("not lossless"), std::string::npos);
  EXPECT_NE(s.force(11, 8, SpfcForce::Victim, 0x18).find("0 .. 7"), std::string::npos);
  EXPECT_EQ(s.force(11, 2, SpfcForce::Auto, 0x18), "");  // auto is always fine
  EXPECT_TRUE(s.all_forced().empty());
  // A port not in the pool now: kept, written once it is there.
  EXPECT_EQ(s.force(13, 3, SpfcForce::Victim, 0x18), "");
  auto b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  for (const auto &slot : b->ports)
    EXPECT_NE(slot.ifindex, 13u);
  t->nr_ports = 3;
  t->ports[2].ifindex = 13;
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[2].ifindex, 13u);
  EXPECT_EQ(b->ports[2].force_victim, 1u << 3);
  // A priority no longer lossless: its bit is not written (the datapath
  // would refuse the block).
  t->lossless_mask = 0x10;
  EXPECT_EQ(s.force(13, 4, SpfcForce::Normal, 0x18), "");
  b = s.block(*t);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->ports[2].force_victim, 0u);
  EXPECT_EQ(b->ports[2].force_normal, 1u << 4);
}

// The spfc policy has the slow path and the oracle as its scheme's agent
// on the control channel; the others take no scheme commands.
TEST(SpfcSlow, OnlyTheSpfcPolicyHasThem)
{
  PoolSettings pool;
  pool.lossless_mask = 0x18;
  PortLink l;
  l.ifindex = 11;
  l.dev = "swp1";
  auto t = tel();
  t->sch[0].s.prio[3] = kTh;
  Inputs in;
  in.pool = &pool;
  in.telemetry = t.get();
  in.ports = {l};
  const std::vector<std::string> force = {"force", "swp1", "3", "victim"};
  auto dt = make("pfc-dt", pool);
  EXPECT_NE(dt->command(force, in).error.find("takes no scheme commands"), std::string::npos);
  EXPECT_FALSE(dt->block(in).has_value());
  EXPECT_TRUE(dt->channel_state(in).is_null());
  auto spfc = make("spfc", pool);
  CommandResult r = spfc->command(force, in);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(r.reply["state"], "victim");
  EXPECT_EQ(spfc->channel_state(in)["forced"].size(), 1u);
  auto b = spfc->block(in);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->scheme, LOSSLESS_SCHEME_SPFC);
  ASSERT_EQ(b->payload.size(), sizeof(lossless_spfc_channel));
  lossless_spfc_channel w;
  std::memcpy(&w, b->payload.data(), sizeof(w));
  EXPECT_EQ(w.ports[0].victims, 1u << 3);
  EXPECT_EQ(w.ports[0].force_victim, 1u << 3);
  // Its undo (the datapath refused the block): back to auto.
  r.undo();
  EXPECT_EQ(spfc->channel_state(in)["forced"].size(), 0u);
  in.telemetry = nullptr;  // before the first telemetry: nothing
  EXPECT_FALSE(spfc->block(in).has_value());
  // Bad commands are refused with a reason, changing nothing.
  for (auto bad : {std::vector<std::string>{"force", "swp9", "3", "victim"},
                   std::vector<std::string>{"force", "swp1", "9", "victim"},
                   std::vector<std::string>{"force", "swp1", "3", "maybe"},
                   std::vector<std::string>{"push", "swp1"}}) {
    auto e = spfc->command(bad, in);
    EXPECT_NE(e.error, "") << bad[1];
    EXPECT_FALSE(e.changed);
  }
  // A reload keeps the agent's state.
  EXPECT_EQ(spfc->command(force, in).error, "");
  auto next = make("spfc", pool);
  next->carry_over(*spfc);
  EXPECT_EQ(next->channel_state(in)["forced"].size(), 1u);
}

}  // namespace
