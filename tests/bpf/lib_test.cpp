// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The ll_ingress library: map access, pinning and reuse of pins, bpffs
// checks, attach/detach at clsact ingress. Runs in the sandbox of main.cpp
// (private netns with veths lla/llb/llc/lld, private bpffs).
#include <gtest/gtest.h>

#include <net/if.h>
#include <sys/stat.h>

#include <bpf/bpf.h>

#include <cstring>
#include <optional>
#include <string>

#include "env.h"
#include "frames.h"
#include "ingress.h"
#include "sandbox.h"

namespace {

namespace li = lossless::ingress;

class IngressLib : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    ASSERT_FALSE(lltest::bpffs_dir().empty());
    // A fresh pin directory per test, inside the private bpffs.
    pin_dir_ = lltest::bpffs_dir() + "/" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  li::Program load(bool with_prog = true)
  {
    li::Program::Options o;
    o.pin_dir = pin_dir_;
    o.load_program = with_prog;
    return li::Program::load(o);
  }

  std::string pin_dir_;
};

bool file_exists(const std::string &p)
{
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

TEST_F(IngressLib, PinsAllFourMapsAndReusesThem)
{
  EXPECT_FALSE(li::Maps::pinned(pin_dir_));
  std::uint32_t port = if_nametoindex("lla");
  {
    li::Program p = load();
    EXPECT_GE(p.prog_fd(), 0);
    p.maps().set_port_config(port, {li::Mode::Dscp, 6});
    p.maps().set_dscp(46, 2);
  }
  for (const char *m : {LL_INGRESS_MAP_PORT_CFG, LL_INGRESS_MAP_DSCP,
                        LL_INGRESS_MAP_PRIO_STATS, LL_INGRESS_MAP_CTRL_STATS,
                        LL_INGRESS_MAP_PORTFC})
    EXPECT_TRUE(file_exists(pin_dir_ + "/" + m)) << m;
  EXPECT_TRUE(li::Maps::pinned(pin_dir_));

  // A second load (another process, the daemon...) sees the same maps.
  li::Program again = load();
  EXPECT_EQ(again.maps().port_config(port), (li::PortConfig{li::Mode::Dscp, 6}));
  EXPECT_EQ(again.maps().dscp_map()[46].prio, 2);
  EXPECT_FALSE(again.maps().dscp_map()[46].is_default);

  // And so does a reader that loads no program.
  li::Maps ro = li::Maps::open_pinned(pin_dir_);
  EXPECT_EQ(ro.port_config(port), (li::PortConfig{li::Mode::Dscp, 6}));

  // The reused maps are the ones the new program instance uses.
  std::uint32_t key = port;
  bpf_map_info a{}, b{};
  std::uint32_t la = sizeof(a), lb = sizeof(b);
  ASSERT_EQ(bpf_obj_get_info_by_fd(again.maps().port_cfg_fd(), &a, &la), 0);
  ASSERT_EQ(bpf_obj_get_info_by_fd(ro.port_cfg_fd(), &b, &lb), 0);
  EXPECT_EQ(a.id, b.id);
  (void)key;
}

TEST_F(IngressLib, MapsOnlyLoadCreatesPinsWithoutProgram)
{
  li::Program p = load(false);
  EXPECT_EQ(p.prog_fd(), -1);
  EXPECT_TRUE(li::Maps::pinned(pin_dir_));
  EXPECT_THROW(p.attach(if_nametoindex("lla")), li::Error);
}

TEST_F(IngressLib, OpenPinnedWithoutPinsExplains)
{
  try {
    li::Maps::open_pinned(pin_dir_);
    FAIL() << "no exception";
  } catch (const li::Error &e) {
    EXPECT_EQ(e.code(), ENOENT);
    EXPECT_NE(std::string(e.what()).find(pin_dir_), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("attach"), std::string::npos) << e.hint();
  }
}

TEST_F(IngressLib, IncompatiblePinIsRefusedWithHint)
{
  ASSERT_EQ(mkdir(pin_dir_.c_str(), 0700), 0);
  // Same name, other value size: a leftover of another layout.
  int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "ll_port_cfg", 4, 4, 16, nullptr);
  ASSERT_GE(fd, 0);
  std::string path = pin_dir_ + "/" + LL_INGRESS_MAP_PORT_CFG;
  ASSERT_EQ(bpf_obj_pin(fd, path.c_str()), 0);
  close(fd);
  try {
    load();
    FAIL() << "no exception";
  } catch (const li::Error &e) {
    EXPECT_EQ(e.code(), EINVAL);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("rm " + path), std::string::npos) << e.hint();
  }
}

TEST_F(IngressLib, NotBpffsGivesMountHint)
{
  char dir[] = "/tmp/ll-not-bpffs-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string pins = std::string(dir) + "/lossless";
  try {
    li::check_bpffs(pins);
    FAIL() << "no exception";
  } catch (const li::Error &e) {
    EXPECT_EQ(e.code(), ENOTSUP);
    EXPECT_NE(e.hint().find("mount -t bpf bpf"), std::string::npos) << e.hint();
  }
  li::Program::Options o;
  o.pin_dir = pins;
  EXPECT_THROW(li::Program::load(o), li::Error);
  EXPECT_FALSE(file_exists(pins)) << "nothing may be created off bpffs";
  rmdir(dir);
  EXPECT_NO_THROW(li::check_bpffs(lltest::bpffs_dir() + "/not/yet/there"));
}

TEST_F(IngressLib, PortConfigRoundTripAndRemove)
{
  li::Program p = load();
  li::Maps &m = p.maps();
  EXPECT_EQ(m.port_config(7), std::nullopt);
  m.set_port_config(7, {li::Mode::Pcp, 3});
  m.set_port_config(9, {li::Mode::PcpDscp, 15});
  EXPECT_EQ(m.port_config(7), (li::PortConfig{li::Mode::Pcp, 3}));
  EXPECT_EQ(m.port_config(9), (li::PortConfig{li::Mode::PcpDscp, 15}));
  EXPECT_THROW(m.set_port_config(7, {li::Mode::Pcp, 16}), li::Error);
  EXPECT_EQ(m.ports(), (std::vector<std::uint32_t>{7, 9}));
  m.remove_port(7);
  m.remove_port(7);  // absent: fine
  EXPECT_EQ(m.port_config(7), std::nullopt);
  EXPECT_EQ(m.ports(), (std::vector<std::uint32_t>{9}));
}

TEST_F(IngressLib, DscpMapDefaultsSetReset)
{
  li::Program p = load();
  li::Maps &m = p.maps();
  auto map = m.dscp_map();
  for (unsigned d = 0; d < li::kDscpCount; d++) {
    EXPECT_TRUE(map[d].is_default);
    EXPECT_EQ(map[d].prio, d >> 3);
  }
  m.set_dscp(0, 15);
  m.set_dscp(63, 0);
  map = m.dscp_map();
  EXPECT_EQ(map[0].prio, 15);
  EXPECT_FALSE(map[0].is_default);
  EXPECT_EQ(map[63].prio, 0);
  m.reset_dscp(63);
  EXPECT_EQ(m.dscp_map()[63].prio, 7);
  EXPECT_TRUE(m.dscp_map()[63].is_default);
  EXPECT_THROW(m.set_dscp(64, 0), li::Error);
  EXPECT_THROW(m.set_dscp(1, 16), li::Error);
  EXPECT_THROW(m.reset_dscp(64), li::Error);
}

TEST_F(IngressLib, ModeNames)
{
  EXPECT_EQ(li::mode_name(li::Mode::PcpDscp), "pcp-dscp");
  EXPECT_EQ(li::mode_name(li::Mode::Pcp), "pcp");
  EXPECT_EQ(li::mode_name(li::Mode::Dscp), "dscp");
  EXPECT_EQ(li::parse_mode("dscp"), li::Mode::Dscp);
  EXPECT_EQ(li::parse_mode("pcp-dscp"), li::Mode::PcpDscp);
  EXPECT_EQ(li::parse_mode("PCP"), std::nullopt);
}

TEST_F(IngressLib, AttachReplaceDetach)
{
  std::uint32_t port = li::ifindex_of("llb");
  EXPECT_EQ(li::attached_prog_id(port), std::nullopt);
  li::Program p = load();
  std::uint32_t id = p.attach(port);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(li::attached_prog_id(port), id);

  // Attaching again (clsact exists now, our filter too) replaces in place.
  li::Program q = load();
  std::uint32_t id2 = q.attach(port);
  EXPECT_NE(id2, id);
  EXPECT_EQ(li::attached_prog_id(port), id2);
  EXPECT_EQ(lltest::sh("tc filter show dev llb ingress | grep -c 'handle 0x4c4c' "
                       "| grep -qx 1"),
            0)
      << "exactly one filter of ours";

  li::detach(port);
  EXPECT_EQ(li::attached_prog_id(port), std::nullopt);
  try {
    li::detach(port);
    FAIL() << "no exception";
  } catch (const li::Error &e) {
    EXPECT_EQ(e.code(), ENOENT);
  }
  // clsact itself stays.
  EXPECT_EQ(lltest::sh("tc qdisc show dev llb | grep -q clsact"), 0);
}

TEST_F(IngressLib, AttachKeepsOtherFilters)
{
  std::uint32_t port = li::ifindex_of("lld");
  lltest::must_sh("tc qdisc add dev lld clsact");
  // Someone else's filter (classic BPF: the host kernel has only cls_bpf).
  lltest::must_sh("tc filter add dev lld ingress pref 100 bpf bytecode '1,6 0 0 0,'");
  li::Program p = load();
  p.attach(port);
  EXPECT_EQ(lltest::sh("tc filter show dev lld ingress | grep -q 'pref 100 bpf'"), 0);
  li::detach(port);
  EXPECT_EQ(lltest::sh("tc filter show dev lld ingress | grep -q 'pref 100 bpf'"), 0);
  EXPECT_EQ(lltest::sh("tc filter show dev lld ingress | grep -q 0x4c4c"), 1);
}

TEST_F(IngressLib, UnknownDevice)
{
  try {
    li::ifindex_of("no-such-dev0");
    FAIL() << "no exception";
  } catch (const li::Error &e) {
    EXPECT_EQ(e.code(), ENODEV);
    EXPECT_NE(std::string(e.what()).find("no-such-dev0"), std::string::npos);
  }
  EXPECT_THROW(li::ifindex_of(""), li::Error);
  EXPECT_THROW(li::ifindex_of(std::string(IF_NAMESIZE, 'x')), li::Error);
  EXPECT_EQ(li::ifname_of(li::ifindex_of("lla")), "lla");
  EXPECT_EQ(li::ifname_of(999999), "");
}

}  // namespace
