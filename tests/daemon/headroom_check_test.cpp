// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd --check's headroom check (daemon/losslessd/headroom_check.h):
// a pool's ports against its buffer as the kernel's core decides it, and
// the refusal's numbers.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "headroom_check.h"

extern "C" {
#include "headroom.h"
}

namespace {

using lossless::daemon::check_pool_headroom;
using lossless::daemon::HeadroomPort;
using lossless::daemon::HeadroomResult;
using lossless::policy::PoolSettings;

constexpr std::uint64_t kMs = 1000000;

PoolSettings pool(std::uint64_t buffer_bytes, std::uint8_t mask = 1u << 3)
{
  PoolSettings s;
  s.name = "sw0";
  s.buffer_bytes = buffer_bytes;
  s.lossless_mask = mask;
  s.sw_delay_ns = 1 * kMs;
  s.reserved_bytes = 1518;
  s.xon_offset_bytes = 3036;
  return s;
}

HeadroomPort port(const std::string &dev, std::uint64_t rate_bps, std::uint32_t line = 0)
{
  HeadroomPort p;
  p.dev = dev;
  p.line = line;
  p.rate_bps = rate_bps;
  p.cable_delay_ns = 500;
  p.dev_frame_bytes = 1514;  // MTU 1500 + Ethernet header
  return p;
}

// docs/examples/losslessd.toml before it was fixed: 2mb, 1ms, 10 Gbit/s.
// CONFIGURATION.md's formula: 3 x 1518 + 1250 (cable) + 64 + 60 x 64 +
// 1250000 (sw-delay) + 1250000 (catch-up) = 2509708 B per priority.
TEST(HeadroomCheck, ExampleTooSmallIsRefusedWithNumbers)
{
  HeadroomResult r = check_pool_headroom(
      pool(2 << 20), 17, {port("swp1", 10000000000ULL, 28), port("swp2", 10000000000ULL, 39)},
      "/etc/x.toml");
  ASSERT_FALSE(r.error.empty());
  EXPECT_NE(r.error.find("/etc/x.toml:28: port \"swp1\": pool \"sw0\""), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("headroom 2509708 B per lossless priority x 1 priority = 2509708 B"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("reserve 8 x 1518 B"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("total 2521852 B"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("of buffer 2097152 B"), std::string::npos) << r.error;
  // Both ports: 2 x (2509708 + 12144) + one frame.
  EXPECT_EQ(r.need_bytes, 2 * (2509708ULL + 8 * 1518) + 1518);
  EXPECT_NE(r.error.find("need a buffer of at least " + std::to_string(r.need_bytes) +
                         " B (buffer = \"5mb\")"),
            std::string::npos)
      << r.error;
  ASSERT_EQ(r.ports.size(), 2u);
  EXPECT_EQ(r.ports[0].headroom_bytes, 2509708u);
}

// The core's own formula, term by term, gives the same number.
TEST(HeadroomCheck, SameNumberAsTheCoreFormula)
{
  ll_headroom_params h{};
  h.rate_bps = 10000000000ULL;
  h.cable_delay_ns = 500;
  h.sw_response_ns = 1 * kMs;
  h.mtu_bytes = 1518;
  h.shaper_burst_bytes = 1250000;
  HeadroomResult r = check_pool_headroom(pool(64 << 20), 0, {port("swp1", h.rate_bps)}, "f");
  EXPECT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.ports.size(), 1u);
  EXPECT_EQ(r.ports[0].headroom_bytes, ll_headroom_bytes(&h));
}

TEST(HeadroomCheck, FittingPoolPasses)
{
  // Four 100 Mbit/s ports, two lossless priorities, 1 ms: 4 x 2 x 29682 B.
  std::vector<HeadroomPort> ports;
  for (int i = 1; i <= 4; i++)
    ports.push_back(port("swp" + std::to_string(i), 100000000));
  HeadroomResult r = check_pool_headroom(pool(4 << 20, 0x18), 0, ports, "f");
  EXPECT_TRUE(r.error.empty()) << r.error;
  ASSERT_EQ(r.ports.size(), 4u);
  EXPECT_EQ(r.ports[0].carve_bytes, 2 * r.ports[0].headroom_bytes);
}

// The smallest buffer that fits is the one it names: one byte less is
// refused, at the last port.
TEST(HeadroomCheck, NeedIsExact)
{
  std::vector<HeadroomPort> ports = {port("a", 25000000000ULL, 5), port("b", 1000000000, 9)};
  HeadroomResult big = check_pool_headroom(pool(1ULL << 30), 0, ports, "f");
  ASSERT_TRUE(big.error.empty()) << big.error;
  HeadroomResult fit = check_pool_headroom(pool(big.need_bytes), 0, ports, "f");
  EXPECT_TRUE(fit.error.empty()) << fit.error;
  HeadroomResult tight = check_pool_headroom(pool(big.need_bytes - 1), 0, ports, "f");
  ASSERT_FALSE(tight.error.empty());
  EXPECT_NE(tight.error.find("f:9: port \"b\""), std::string::npos) << tight.error;
  EXPECT_NE(tight.error.find("with the 1 port before it"), std::string::npos) << tight.error;
}

// A headroom given below two frames is refused, as the kernel does.
TEST(HeadroomCheck, GivenHeadroomBelowTwoFrames)
{
  HeadroomPort p = port("swp1", 100000000, 3);
  p.headroom_bytes = 2000;
  HeadroomResult r = check_pool_headroom(pool(4 << 20), 0, {p}, "f");
  EXPECT_NE(r.error.find("f:3: port \"swp1\": headroom 2000 B per lossless priority is below 2 "
                         "frames (3036 B)"),
            std::string::npos)
      << r.error;
}

}  // namespace
