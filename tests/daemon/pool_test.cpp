// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's period (daemon/losslessd/pool.cpp) against a real plane map
// on a private bpffs, the datapath played with map syscalls: a decision
// stays in flight until the datapath reports its generation, is counted
// as pushed or refused then, and unchanged inputs decide nothing new.
// And the watch on the ports' timer lateness (LatenessWatch), with
// synthetic snapshots (no root).
#include <bpf/bpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include <unistd.h>

#include "config_adapter.h"
#define LL_PLANE_FIXTURE_POOL
#include "plane_fixture.h"
#include "pool.h"
#include "rtnl.h"

namespace {

namespace ld = lossless::daemon;

// Pool sw0 of two ports (ifindexes 10, 11) on a plane map on a private
// bpffs (plane_fixture.h), its datapath played with map syscalls.
class PoolTest : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    p_.emplace("sw0", 2, 10);
  }
  void TearDown() override { p_.reset(); }
  ld::Pool &pool() { return p_->pool; }
  lossless_plane_tel &tel() { return *p_->tel; }
  void datapath_reports(std::uint64_t gen, int error)
  {
    ASSERT_EQ(p_->report(gen, error), 0);
  }

  std::optional<lltest::TestPool> p_;
};

TEST_F(PoolTest, ADecisionStaysInFlightUntilTheDatapathAppliesIt)
{
  EXPECT_EQ(pool().run_policy(), "");
  ASSERT_TRUE(pool().pending);
  std::uint64_t gen = pool().pending_gen;
  EXPECT_GT(gen, 0u);
  EXPECT_EQ(pool().pending->headroom.size(), 2u);

  pool().run_policy();  // no telemetry yet: still waiting
  EXPECT_TRUE(pool().pending);
  datapath_reports(gen - 1, 0);
  pool().run_policy();  // an older generation: still waiting
  EXPECT_TRUE(pool().pending);
  EXPECT_EQ(pool().pushes, 0u);

  datapath_reports(gen, 0);
  EXPECT_EQ(pool().run_policy(), "");
  EXPECT_FALSE(pool().pending);
  EXPECT_EQ(pool().pushes, 1u);
  EXPECT_EQ(pool().refusals, 0u);
  EXPECT_EQ(pool().pending_gen, gen);  // unchanged inputs: nothing new
}

TEST_F(PoolTest, ARefusalIsCountedAndReportedOnce)
{
  pool().run_policy();
  std::uint64_t gen = pool().pending_gen;
  datapath_reports(gen, -EBUSY);
  std::string msg = pool().run_policy();
  EXPECT_NE(msg.find("pool sw0: the datapath refused gen " + std::to_string(gen)),
            std::string::npos)
      << msg;
  EXPECT_EQ(pool().refusals, 1u);
  EXPECT_EQ(pool().pushes, 0u);
  EXPECT_EQ(pool().last_error, EBUSY);
  EXPECT_EQ(pool().run_policy(), "");  // not again
  EXPECT_EQ(pool().refusals, 1u);
}

TEST_F(PoolTest, TelemetryOfAnotherVersionIsSaidOnceAndDecidesNothing)
{
  tel().version = LOSSLESS_PLANE_VERSION + 1;
  datapath_reports(0, 0);
  std::string msg = pool().run_policy();
  EXPECT_NE(msg.find("pool sw0: " + p_->plane_path() + ": the datapath writes plane version " +
                     std::to_string(LOSSLESS_PLANE_VERSION + 1)),
            std::string::npos)
      << msg;
  EXPECT_FALSE(pool().pending) << "it would refuse what we push";
  EXPECT_FALSE(pool().have_tel);
  EXPECT_EQ(pool().run_policy(), "");  // not again
  tel().version = LOSSLESS_PLANE_VERSION;
  datapath_reports(0, 0);
  EXPECT_EQ(pool().run_policy(), "");
  EXPECT_TRUE(pool().have_tel);
  EXPECT_TRUE(pool().pending);
}

TEST_F(PoolTest, ALinkChangeLeadsToANewDecision)
{
  pool().run_policy();
  datapath_reports(pool().pending_gen, 0);
  pool().run_policy();
  ASSERT_FALSE(pool().pending);
  std::uint64_t gen = pool().pending_gen;
  pool().inputs.ports[1].rate_bps = 100000000;  // the daemon rebuilt its links
  pool().run_policy();
  ASSERT_TRUE(pool().pending);
  EXPECT_GT(pool().pending_gen, gen);
}

// Ownership (policy/ownership.h), the whole period: the datapath plays a
// snapshot with the daemon's push, then one changed behind its back.
TEST_F(PoolTest, AChangeBehindTheDaemonIsLoggedCountedAndAdoptedOrReverted)
{
  pool().run_policy();
  ASSERT_TRUE(pool().pending);
  const lossless::plane::Params pushed = *pool().pending;
  ASSERT_EQ(pushed.headroom.size(), 2u);
  tel().nr_ports = 2;
  for (int i = 0; i < 2; i++) {
    tel().ports[i].ifindex = pushed.headroom[i].ifindex;
    tel().ports[i].headroom_bytes = pushed.headroom[i].headroom_bytes;
  }
  tel().alpha = *pushed.alpha;
  tel().egress_alpha = *pushed.egress_alpha;
  tel().reserved_bytes = *pushed.reserved_bytes;
  tel().xon_offset_bytes = *pushed.xon_offset_bytes;
  tel().scheme = *pushed.scheme;
  std::uint64_t gen = pool().pending_gen;
  datapath_reports(gen, 0);
  EXPECT_EQ(pool().run_policy(), "");
  ASSERT_FALSE(pool().pending);
  EXPECT_EQ(pool().run_policy(), "") << "unchanged: nothing found";
  EXPECT_EQ(pool().foreign_total, 0u);

  // tc: alpha (passed through) and swp1's headroom (computed).
  tel().alpha = (1u << 8) | 1u;
  tel().ports[1].headroom_bytes = 20000;
  ASSERT_EQ(p_->report(), 0);
  std::string log = pool().run_policy();
  EXPECT_NE(log.find("pool sw0: alpha changed behind losslessd by tc (a qdisc change): 1/8 -> "
                     "1/2; adopted"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("pool sw0: headroom of port swp1 changed behind losslessd by tc (a qdisc "
                     "change): " +
                     std::to_string(pushed.headroom[1].headroom_bytes) + " -> 20000; reverted"),
            std::string::npos)
      << log;
  EXPECT_EQ(pool().foreign_total, 2u);
  using Key = lossless::daemon::Pool::ForeignKey;
  EXPECT_EQ((pool().foreign_counts[Key{"alpha", "tc", "adopted"}]), 1u);
  EXPECT_EQ((pool().foreign_counts[Key{"headroom", "tc", "reverted"}]), 1u);
  ASSERT_TRUE(pool().pending) << "pushed at once";
  EXPECT_EQ(*pool().pending->alpha, (1u << 8) | 1u) << "adopted: pushed as the policy's own";
  EXPECT_EQ(pool().pending->headroom[1].headroom_bytes, pushed.headroom[1].headroom_bytes)
      << "reverted: the computed headroom again";
  EXPECT_EQ(pool().run_policy(), "") << "not judged again while the push is in flight";

  // The datapath applies it; then another writer of the plane changes
  // reserved with its own control gen.
  tel().ports[1].headroom_bytes = pushed.headroom[1].headroom_bytes;
  datapath_reports(pool().pending_gen, 0);
  EXPECT_EQ(pool().run_policy(), "");
  ASSERT_FALSE(pool().pending);
  tel().reserved_bytes = 3000;
  datapath_reports(pool().pending_gen + 1, 0);
  log = pool().run_policy();
  EXPECT_NE(log.find("pool sw0: reserved changed behind losslessd by another writer of the plane"),
            std::string::npos)
      << log;
  EXPECT_EQ((pool().foreign_counts[Key{"reserved", "plane", "adopted"}]), 1u);
  ASSERT_EQ(pool().foreign_last.size(), 3u);
  EXPECT_EQ(pool().foreign_last.back().new_value, "3000");
}

// ---------------------------------------------------------------------------
// LatenessWatch: a port's wake-ups against its software delay (1 ms here).

class Lateness : public ::testing::Test {
 protected:
  static constexpr std::uint64_t kSec = 1000000000ULL;
  static constexpr unsigned kLast = LOSSLESS_LATENESS_BUCKETS - 1;

  void SetUp() override
  {
    settings_.name = "sw0";
    settings_.sw_delay_ns = 1000000;
    policy_ = lossless::policy::make("pfc-dt", settings_);
    lossless::policy::PortLink l;
    l.ifindex = 4;
    l.dev = "swp1";
    l.up = true;
    links_.push_back(l);
    std::strcpy(tel_->pool, "sw0");
    tel_->nr_ports = 1;
    tel_->ports[0].ifindex = 4;
  }
  // A snapshot at time s (seconds) after n more wake-ups in bucket b.
  std::string at(double s, unsigned b = 0, std::uint64_t n = 0, std::uint64_t max_ns = 0)
  {
    tel_->time_ns = static_cast<std::uint64_t>(s * kSec);
    tel_->ports[0].wake_late[b] += n;
    tel_->ports[0].wake_late_max_ns = std::max<std::uint64_t>(tel_->ports[0].wake_late_max_ns, max_ns);
    return watch_.update(*tel_, links_, *policy_);
  }

  lossless::policy::PoolSettings settings_;
  std::unique_ptr<lossless::policy::Policy> policy_;
  std::vector<lossless::policy::PortLink> links_;
  std::unique_ptr<lossless_plane_tel> tel_ = std::make_unique<lossless_plane_tel>();
  ld::LatenessWatch watch_;
};

TEST_F(Lateness, WarnsOncePerPortUntilItClears)
{
  EXPECT_EQ(at(0), "") << "the first snapshot is the baseline";
  EXPECT_EQ(at(0.5, 12, 1, 3000000), "") << "judged once per window, not every tick";
  // The window: 99 wake-ups below 1 us, one 3 ms late (bucket 12: 2.1 .. 4.2 ms).
  EXPECT_EQ(at(1.0, 0, 99),
            "port swp1 (pool sw0): timer wake-ups ran up to 3 ms late (p99 below 0.001 ms, "
            "100 wake-ups in the last 1.0 s), later than the 1 ms software delay its headroom "
            "assumes: raise sw-delay to at least 3 ms (losslessctl --pool sw0 set sw-delay "
            "3ms, or sw-delay in the configuration)");
  EXPECT_EQ(at(2.0, 12, 10), "") << "still late (at least 2.1 ms): said already";
  EXPECT_EQ(at(3.0), "") << "no wake-ups: no news";
  EXPECT_EQ(at(4.0, 5, 50),
            "port swp1 (pool sw0): timer wake-ups back within the 1 ms software delay (the "
            "latest below 0.033 ms late, 50 wake-ups in the last 1.0 s)");
  EXPECT_EQ(at(5.0, 5, 50), "");
  // Late again: said again, from the bucket when the maximum did not move.
  EXPECT_EQ(at(6.0, 13, 1),
            "port swp1 (pool sw0): timer wake-ups ran 4.194 ms or more late (p99 below 8.389 ms, "
            "1 wake-ups in the last 1.0 s), later than the 1 ms software delay its headroom "
            "assumes: raise sw-delay to at least 9 ms (losslessctl --pool sw0 set sw-delay "
            "9ms, or sw-delay in the configuration)");
}

TEST_F(Lateness, ABucketAcrossTheDelayIsNoAlarm)
{
  at(0, 12, 1, 3000000);  // an old maximum, before the window
  // Bucket 10 is 0.52 .. 1.05 ms: maybe later than 1 ms, maybe not.
  EXPECT_EQ(at(1.0, 10, 100), "");
}

TEST_F(Lateness, AnExactMaximumAboveTheDelayIs)
{
  at(0);
  // The maximum rose in this window: exactly 1.02 ms, later than 1 ms.
  std::string msg = at(1.0, 10, 1, 1020000);
  EXPECT_NE(msg.find("ran up to 1.02 ms late (p99 below 1.049 ms, 1 wake-ups"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("raise sw-delay to at least 2 ms"), std::string::npos) << msg;
  // In the same bucket again, not surely within 1 ms: not cleared.
  EXPECT_EQ(at(2.0, 10, 5), "");
  EXPECT_NE(at(3.0, 9, 5).find("back within"), std::string::npos) << "surely within: cleared";
}

TEST_F(Lateness, TheLastBucketHasNoUpperBound)
{
  at(0);
  std::string msg = at(1.0, kLast, 100, 300000000);  // 300 ms
  EXPECT_NE(msg.find("ran up to 300 ms late (p99 268.435 ms or more, 100 wake-ups"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("set sw-delay 300ms,"), std::string::npos) << msg;
}

TEST_F(Lateness, OnlyPortsWhoseHeadroomThePolicySizesAreJudged)
{
  tel_->nr_ports = 3;
  tel_->ports[1].ifindex = 5;  // not configured: no link
  tel_->ports[2].ifindex = 6;  // a configured headroom
  lossless::policy::PortLink l = links_[0];
  l.ifindex = 6;
  l.dev = "swp3";
  l.headroom_bytes = 100000;
  links_.push_back(l);
  at(0);
  tel_->ports[1].wake_late[14] = 10;
  tel_->ports[2].wake_late[14] = 10;
  EXPECT_EQ(at(1.0), "");
}

TEST_F(Lateness, AQdiscStartedAgainCountsFromZero)
{
  at(0, 0, 1000, 5000000);
  // Replaced: every counter from 0 again, and a maximum below the old one.
  std::fill(std::begin(tel_->ports[0].wake_late), std::end(tel_->ports[0].wake_late), 0);
  tel_->ports[0].wake_late_max_ns = 0;
  std::string msg = at(1.0, 12, 1, 3000000);
  EXPECT_NE(msg.find("ran up to 3 ms late (p99 below 4.194 ms, 1 wake-ups"), std::string::npos)
      << msg;
}

}  // namespace

// ---- the PFC watchdog: the configuration as losslessd gives it to a port

namespace watchdog {

// A port's qdisc gets the watchdog only when it has another: the same
// fields, or both off (its times do not matter then).
TEST(Watchdog, InForceComparesWhatTheKernelRuns)
{
  ld::WatchdogSpec off, drop{3, 200000000, 200000000, 100000000, 0};
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(drop.enabled());
  EXPECT_TRUE((ld::WatchdogSpec{0, 1000000, 1000000, 1000000, 5000000}).enabled()) << "an alarm alone";
  EXPECT_TRUE(ld::watchdog_in_force(std::nullopt, off)) << "no nest: off";
  EXPECT_TRUE(ld::watchdog_in_force(std::nullopt, ld::WatchdogSpec{0, 5000000, 5000000, 1000000, 0}));
  EXPECT_FALSE(ld::watchdog_in_force(std::nullopt, drop));
  EXPECT_TRUE(ld::watchdog_in_force(drop, drop));
  auto other = drop;
  other.poll_ns = 50000000;
  EXPECT_FALSE(ld::watchdog_in_force(other, drop));
  other = drop;
  other.action = 2;
  EXPECT_FALSE(ld::watchdog_in_force(other, drop));
  EXPECT_FALSE(ld::watchdog_in_force(drop, off)) << "on, to be turned off";
}

TEST(Watchdog, TheConfigurationReachesThePorts)
{
  char path[] = "/tmp/ll-wd-config-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  const std::string text =
      "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n"
      "pfcwd = \"forward\"\npfcwd-detect = \"300ms\"\nxoff-alarm = \"2s\"\n"
      "[[pool]]\nname = \"sw1\"\npolicy = \"pfc-dt\"\n"
      "[[port]]\ndev = \"swp1\"\npool = \"sw0\"\n"
      "[[port]]\ndev = \"swp2\"\npool = \"sw0\"\npfcwd = \"off\"\nxoff-alarm = \"off\"\n"
      "[[port]]\ndev = \"swp3\"\npool = \"sw1\"\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  ld::Config c = ld::load_config(path);
  unlink(path);
  ASSERT_EQ(c.ports.size(), 3u);
  ASSERT_TRUE(c.ports[0].watchdog);
  EXPECT_EQ(*c.ports[0].watchdog,
            (ld::WatchdogSpec{LOSSLESS_WD_FORWARD, 300000000, 200000000, 100000000, 2000000000}));
  ASSERT_TRUE(c.ports[1].watchdog) << "off, said so: turned off on an adopted qdisc";
  EXPECT_FALSE(c.ports[1].watchdog->enabled());
  EXPECT_EQ(c.ports[1].watchdog->detect_ns, 300000000u) << "the pool's times stay";
  EXPECT_FALSE(c.ports[2].watchdog) << "none: an adopted qdisc keeps its own";
}

}  // namespace watchdog
