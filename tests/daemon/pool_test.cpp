// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's period (daemon/losslessd/pool.cpp) against a real plane map
// on a private bpffs, the datapath played with map syscalls: a decision
// stays in flight until the datapath reports its generation, is counted
// as pushed or refused then, and unchanged inputs decide nothing new.
#include <bpf/bpf.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <memory>

#include "../bpf/sandbox.h"
#include "pool.h"

namespace {

namespace ld = lossless::daemon;

class PoolTest : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    dir_ = lltest::mount_bpffs();
    pool_.cfg.settings.name = "sw0";
    pool_.policy = lossless::policy::make("pfc-dt", pool_.cfg.settings);
    pool_.plane = lossless::plane::Plane::open(dir_ + "/plane",
                                               lossless::plane::Plane::Open::CreateIfMissing);
    for (int i = 0; i < 2; i++) {
      lossless::policy::PortLink l;
      l.ifindex = 10 + i;
      l.dev = "swp" + std::to_string(i);
      l.up = true;
      l.rate_bps = 1000000000;
      l.mtu_bytes = 1518;
      pool_.inputs.ports.push_back(l);
    }
    tel_->magic = LOSSLESS_PLANE_MAGIC;
    tel_->version = LOSSLESS_PLANE_VERSION;
  }
  void TearDown() override
  {
    pool_.plane.reset();
    if (!dir_.empty())
      lltest::unmount_bpffs(dir_);
  }
  void datapath_reports(std::uint64_t gen, int error)
  {
    tel_->applied_gen = gen;
    tel_->apply_error = error;
    tel_->seq += 2;
    std::uint32_t key = LOSSLESS_PLANE_TEL;
    ASSERT_EQ(bpf_map_update_elem(pool_.plane->fd(), &key, tel_.get(), BPF_ANY), 0);
  }

  std::string dir_;
  ld::Pool pool_;
  std::unique_ptr<lossless_plane_tel> tel_ = std::make_unique<lossless_plane_tel>();
};

TEST_F(PoolTest, ADecisionStaysInFlightUntilTheDatapathAppliesIt)
{
  EXPECT_EQ(pool_.run_policy(), "");
  ASSERT_TRUE(pool_.pending);
  std::uint64_t gen = pool_.pending_gen;
  EXPECT_GT(gen, 0u);
  EXPECT_EQ(pool_.pending->headroom.size(), 2u);

  pool_.run_policy();  // no telemetry yet: still waiting
  EXPECT_TRUE(pool_.pending);
  datapath_reports(gen - 1, 0);
  pool_.run_policy();  // an older generation: still waiting
  EXPECT_TRUE(pool_.pending);
  EXPECT_EQ(pool_.pushes, 0u);

  datapath_reports(gen, 0);
  EXPECT_EQ(pool_.run_policy(), "");
  EXPECT_FALSE(pool_.pending);
  EXPECT_EQ(pool_.pushes, 1u);
  EXPECT_EQ(pool_.refusals, 0u);
  EXPECT_EQ(pool_.pending_gen, gen);  // unchanged inputs: nothing new
}

TEST_F(PoolTest, ARefusalIsCountedAndReportedOnce)
{
  pool_.run_policy();
  std::uint64_t gen = pool_.pending_gen;
  datapath_reports(gen, -EBUSY);
  std::string msg = pool_.run_policy();
  EXPECT_NE(msg.find("pool sw0: the datapath refused gen " + std::to_string(gen)),
            std::string::npos)
      << msg;
  EXPECT_EQ(pool_.refusals, 1u);
  EXPECT_EQ(pool_.pushes, 0u);
  EXPECT_EQ(pool_.last_error, EBUSY);
  EXPECT_EQ(pool_.run_policy(), "");  // not again
  EXPECT_EQ(pool_.refusals, 1u);
}

TEST_F(PoolTest, ALinkChangeLeadsToANewDecision)
{
  pool_.run_policy();
  datapath_reports(pool_.pending_gen, 0);
  pool_.run_policy();
  ASSERT_FALSE(pool_.pending);
  std::uint64_t gen = pool_.pending_gen;
  pool_.inputs.ports[1].rate_bps = 100000000;  // the daemon rebuilt its links
  pool_.run_policy();
  ASSERT_TRUE(pool_.pending);
  EXPECT_GT(pool_.pending_gen, gen);
}

}  // namespace
