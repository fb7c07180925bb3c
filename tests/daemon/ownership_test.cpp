// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Ownership (daemon/policy/ownership.h): a change of the daemon's settings
// made behind its back, found against what the datapath held after its
// last push, named (setting, port, old and new value, tc or the plane)
// and given the rule's action: pass-through settings adopted, computed
// ones reverted.
#include <gtest/gtest.h>

#include <memory>

#include "ownership.h"
#include "registry.h"

extern "C" {
#include "scheme.h"
}

namespace {

using namespace lossless::policy;

PortLink link(std::uint32_t ifindex, const std::string &dev, bool up = true)
{
  PortLink l;
  l.ifindex = ifindex;
  l.dev = dev;
  l.up = up;
  return l;
}

// A snapshot of pool sw0: alpha 1/8, reserved 1518, ports 10 and 11 with
// headroom 79682 and 50000, scheme dt.
std::unique_ptr<lossless_plane_tel> snapshot()
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->applied_gen = 7;
  t->alpha = (1u << 8) | 3u;
  t->egress_alpha = 1u << 8;
  t->reserved_bytes = 1518;
  t->xon_offset_bytes = 3036;
  t->scheme.id = LOSSLESS_SCHEME_DT;
  t->nr_ports = 2;
  t->ports[0].ifindex = 10;
  t->ports[0].headroom_bytes = 79682;
  t->ports[1].ifindex = 11;
  t->ports[1].headroom_bytes = 50000;
  return t;
}

// The daemon's push of both ports' headroom.
lossless::plane::Params push()
{
  lossless::plane::Params p;
  p.headroom = {{10, 79682}, {11, 50000}};
  return p;
}

const std::vector<PortLink> kLinks = {link(10, "swp1"), link(11, "swp2")};

TEST(Ownership, NothingChangedNothingFound)
{
  auto t = snapshot();
  Held h = held(*t, push());
  EXPECT_EQ(h.headroom_bytes.size(), 2u);
  EXPECT_TRUE(foreign_changes(h, *t, Source::Tc, kLinks).empty());
}

TEST(Ownership, APassThroughSettingChangedByTcIsAdopted)
{
  auto t = snapshot();
  Held h = held(*t, push());
  t->alpha = (1u << 8) | 1u;  // 1/2
  auto c = foreign_changes(h, *t, source_of(*t, 7), kLinks);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].setting, "alpha");
  EXPECT_EQ(c[0].dev, "");
  EXPECT_EQ(c[0].old_value, "1/8");
  EXPECT_EQ(c[0].new_value, "1/2");
  EXPECT_EQ(c[0].source, Source::Tc) << "the daemon's own gen: not the plane";
  EXPECT_EQ(c[0].action, Action::Adopt);
  EXPECT_EQ(log_line("sw0", c[0]),
            "pool sw0: alpha changed behind losslessd by tc (a qdisc change): 1/8 -> 1/2; "
            "adopted: the policy keeps it as its own until a reload or a restart applies the "
            "file (docs/DAEMON.md, \"Ownership\")");
}

TEST(Ownership, AComputedHeadroomChangedThroughThePlaneIsReverted)
{
  auto t = snapshot();
  Held h = held(*t, push());
  t->applied_gen = 8;  // another writer's control entry
  t->ports[1].headroom_bytes = 20000;
  t->reserved_bytes = 3000;
  auto c = foreign_changes(h, *t, source_of(*t, 7), kLinks);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].setting, "reserved");
  EXPECT_EQ(c[0].action, Action::Adopt);
  EXPECT_EQ(c[1].setting, "headroom");
  EXPECT_EQ(c[1].dev, "swp2");
  EXPECT_EQ(c[1].old_value, "50000");
  EXPECT_EQ(c[1].new_value, "20000");
  EXPECT_EQ(c[1].source, Source::Plane);
  EXPECT_EQ(c[1].action, Action::Revert);
  EXPECT_EQ(log_line("sw0", c[1]),
            "pool sw0: headroom of port swp2 changed behind losslessd by another writer of the "
            "plane (losslessctl --plane ... set): 50000 -> 20000; reverted to 50000: the policy "
            "computes it (docs/DAEMON.md, \"Ownership\")");
  EXPECT_STREQ(source_name(c[1].source), "plane");
  EXPECT_STREQ(action_name(c[1].action), "reverted");
}

TEST(Ownership, OnlyThePortsThePushSetAndThatAreUpAreJudged)
{
  auto t = snapshot();
  lossless::plane::Params p;
  p.headroom = {{10, 79682}};  // 11's catch-up was not known yet
  Held h = held(*t, p);
  t->ports[1].headroom_bytes = 1;
  EXPECT_TRUE(foreign_changes(h, *t, Source::Tc, kLinks).empty()) << "not the daemon's";
  h = held(*t, push());
  t->ports[1].headroom_bytes = 2;
  std::vector<PortLink> down = {link(10, "swp1"), link(11, "swp2", false)};
  EXPECT_TRUE(foreign_changes(h, *t, Source::Tc, down).empty()) << "a port down keeps what it has";
  EXPECT_EQ(foreign_changes(h, *t, Source::Tc, kLinks).size(), 1u);
}

TEST(Ownership, TheSchemeIsRevertedItsParametersAdopted)
{
  auto t = snapshot();
  const Registration *dsh = by_scheme_id(LOSSLESS_SCHEME_DSH);
  ASSERT_NE(dsh, nullptr);
  t->scheme = default_block(*dsh);
  Held h = held(*t, push());
  const SchemeParam *window = nullptr;
  for (const SchemeParam *r : dsh->params)
    if (std::string(r->key) == "window")
      window = r;
  ASSERT_NE(window, nullptr);
  t->scheme.p.raw[window->word] = 5000000;
  auto c = foreign_changes(h, *t, Source::Tc, kLinks);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].setting, window->ctl);
  EXPECT_EQ(c[0].new_value, "5ms");
  EXPECT_EQ(c[0].action, Action::Adopt);
  t->scheme.id = LOSSLESS_SCHEME_DT;
  c = foreign_changes(h, *t, Source::Tc, kLinks);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].setting, "scheme");
  EXPECT_EQ(c[0].old_value, "dsh");
  EXPECT_EQ(c[0].new_value, "dt");
  EXPECT_EQ(c[0].action, Action::Revert);
}

TEST(Ownership, AModeTheDaemonSetIsRevertedOneItDidNotSetIsNotJudged)
{
  auto t = snapshot();
  t->mode[0].mode = LOSSLESS_MODE_BIFROST;
  lossless::plane::Params p = push();
  lossless_plane_port_mode m{};
  m.ifindex = 10;
  m.mode = LOSSLESS_MODE_BIFROST;
  p.modes.push_back(m);
  Held h = held(*t, p);
  t->mode[1].mode = LOSSLESS_MODE_BIFROST;  // port 11: no mode key, tc's
  EXPECT_TRUE(foreign_changes(h, *t, Source::Tc, kLinks).empty());
  t->mode[0].mode = 0;  // tc cleared the daemon's mode
  auto c = foreign_changes(h, *t, Source::Tc, kLinks);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].setting, "mode");
  EXPECT_EQ(c[0].dev, "swp1");
  EXPECT_EQ(c[0].old_value, "bifrost");
  EXPECT_EQ(c[0].new_value, "none");
  EXPECT_EQ(c[0].action, Action::Revert);
}

}  // namespace
