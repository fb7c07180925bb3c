// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The userspace side of the shared-state plane (daemon/plane) against a
// real BPF array map on a private bpffs. The datapath's side of the
// contract (kernel/lossless_plane.c) is played here with plain map
// syscalls, the way the kernel sees the map: what losslessctl writes must
// read back field by field, and what the datapath writes must be read
// consistently. The module itself is tested in tests/vm/test_plane.py.
#include <bpf/bpf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "ll_plane_map.h"
#include "plane.h"
#include "plane_fixture.h"

namespace {

namespace lp = lossless::plane;

// A private bpffs per test, sw0's plane map path on it (path_), and the
// datapath's reads and writes (plane_fixture.h).
using PlaneTest = lltest::PlaneTest;

TEST_F(PlaneTest, CreatesPinsAndReopensWithTheSameLayout)
{
  auto a = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  EXPECT_TRUE(a.created());
  auto b = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  EXPECT_FALSE(b.created());
  bpf_map_info info{};
  __u32 len = sizeof(info);
  ASSERT_EQ(bpf_obj_get_info_by_fd(b.fd(), &info, &len), 0);
  EXPECT_EQ(info.type, BPF_MAP_TYPE_ARRAY);
  EXPECT_EQ(info.key_size, 4u);
  EXPECT_EQ(info.value_size, sizeof(lossless_plane_tel));
  EXPECT_EQ(info.max_entries, unsigned(LOSSLESS_PLANE_ENTRIES));
  EXPECT_TRUE(info.map_flags & BPF_F_MMAPABLE);
}

TEST_F(PlaneTest, OpeningAMissingPlaneNamesThePath)
{
  try {
    lp::Plane::open(path_);
    FAIL() << "opened a plane that does not exist";
  } catch (const lp::Error &e) {
    EXPECT_NE(std::string(e.what()).find(path_), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
  }
}

TEST_F(PlaneTest, RefusesAMapWithAnotherLayout)
{
  int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "notplane", 4, 8, 4, nullptr);
  ASSERT_GE(fd, 0);
  std::string other = dir_ + "/other";
  ASSERT_EQ(bpf_obj_pin(fd, other.c_str()), 0);
  close(fd);
  try {
    lp::Plane::open(other);
    FAIL() << "accepted a hash map as a plane";
  } catch (const lp::Error &e) {
    EXPECT_NE(std::string(e.what()).find("is not a lossless plane map"), std::string::npos)
        << e.what();
  }
}

TEST_F(PlaneTest, NoTelemetryUntilADatapathWritesIt)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  EXPECT_FALSE(p.telemetry().has_value());
}

TEST_F(PlaneTest, ReadsWhatTheDatapathWrote)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->seq = 42;
  t->nr_ports = 2;
  std::strcpy(t->pool, "sw0");
  t->shared_used = 123456;
  t->drops_lossless = 0;
  t->ports[1].ifindex = 7;
  t->ports[1].pfc_frames_tx = 99;
  t->ports[1].iq[3].peak_headroom = 4321;
  t->ports[1].catchup_bytes = 125000;
  t->ports[1].shaper_lost_ns = 777;
  t->ports[1].wake_late_max_ns = 3000000;
  t->ports[1].wake_late[0] = 5;
  t->ports[1].wake_late[LOSSLESS_LATENESS_BUCKETS - 1] = 2;
  kernel_write_tel(p.fd(), *t);
  auto got = p.telemetry();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->seq, 42u);
  EXPECT_STREQ(got->pool, "sw0");
  EXPECT_EQ(got->shared_used, 123456u);
  EXPECT_EQ(got->ports[1].ifindex, 7u);
  EXPECT_EQ(got->ports[1].pfc_frames_tx, 99u);
  EXPECT_EQ(got->ports[1].iq[3].peak_headroom, 4321u);
  EXPECT_EQ(got->ports[1].catchup_bytes, 125000u);
  EXPECT_EQ(got->ports[1].shaper_lost_ns, 777u);
  EXPECT_EQ(got->ports[1].wake_late_max_ns, 3000000u);
  EXPECT_EQ(got->ports[1].wake_late[0], 5u);
  EXPECT_EQ(got->ports[1].wake_late[LOSSLESS_LATENESS_BUCKETS - 1], 2u);
}

// Version 2 grew every port: the last field of the last slot still reads.
TEST_F(PlaneTest, ReadsTheLastPortSlotWhole)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->nr_ports = LOSSLESS_PLANE_PORTS;
  auto &last = t->ports[LOSSLESS_PLANE_PORTS - 1];
  last.ifindex = 64;
  last.catchup_bytes = 1;
  last.wake_late[LOSSLESS_LATENESS_BUCKETS - 1] = 0x1122334455667788ULL;
  kernel_write_tel(p.fd(), *t);
  auto out = std::make_unique<lossless_plane_tel>();
  ASSERT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::Ok);
  const auto &got = out->ports[LOSSLESS_PLANE_PORTS - 1];
  EXPECT_EQ(got.ifindex, 64u);
  EXPECT_EQ(got.catchup_bytes, 1u);
  EXPECT_EQ(got.wake_late[LOSSLESS_LATENESS_BUCKETS - 1], 0x1122334455667788ULL);
}

TEST_F(PlaneTest, RefusesTelemetryOfAnotherLayoutVersion)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION - 1;  // an older module: ports of another size
  t->nr_ports = 1;
  t->ports[0].ifindex = 3;
  kernel_write_tel(p.fd(), *t);
  auto out = std::make_unique<lossless_plane_tel>();
  EXPECT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::OtherVersion);
  EXPECT_EQ(out->version, unsigned(LOSSLESS_PLANE_VERSION - 1));
  try {
    p.telemetry();
    FAIL() << "read telemetry of another layout";
  } catch (const lp::Error &e) {
    EXPECT_EQ(std::string(e.what()),
              path_ + ": the datapath writes plane version " +
                  std::to_string(LOSSLESS_PLANE_VERSION - 1) + ", this program reads version " +
                  std::to_string(LOSSLESS_PLANE_VERSION) +
                  " (sch_lossless and the userspace tools are of different versions: load the "
                  "matching module)");
  }
}

// A plane pinned by an older version: an array of the right shape whose
// values are smaller than this version's (the layout only grows).
TEST_F(PlaneTest, RefusesAPlaneOfAnOlderLayoutAndSaysSo)
{
  std::uint32_t old_size = sizeof(lossless_plane_tel) -
                           LOSSLESS_PLANE_PORTS * (3 + LOSSLESS_LATENESS_BUCKETS) * sizeof(__u64);
  int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ll_plane", 4, old_size, LOSSLESS_PLANE_ENTRIES,
                          nullptr);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  std::string old = dir_ + "/old";
  ASSERT_EQ(bpf_obj_pin(fd, old.c_str()), 0);
  close(fd);
  try {
    lp::Plane::open(old, lp::Plane::Open::CreateIfMissing);
    FAIL() << "accepted a plane of an older layout";
  } catch (const lp::Error &e) {
    EXPECT_EQ(std::string(e.what()),
              old + " is a lossless plane map of an older layout (values of " +
                  std::to_string(old_size) + " bytes; plane version " +
                  std::to_string(LOSSLESS_PLANE_VERSION) + " needs " +
                  std::to_string(sizeof(lossless_plane_tel)) +
                  "): remove the pin to have a new plane made");
  }
}

TEST_F(PlaneTest, ReadTelemetryCopiesOnlyThePortsInUse)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->seq = 8;
  t->nr_ports = 2;
  t->ports[1].ifindex = 7;
  t->ports[5].ifindex = 9;  // beyond nr_ports: stale, not copied
  kernel_write_tel(p.fd(), *t);
  auto out = std::make_unique<lossless_plane_tel>();
  out->ports[5].ifindex = 123;
  ASSERT_TRUE(p.read_telemetry(*out));
  EXPECT_EQ(out->seq, 8u);
  EXPECT_EQ(out->nr_ports, 2u);
  EXPECT_EQ(out->ports[1].ifindex, 7u);
  EXPECT_EQ(out->ports[5].ifindex, 123u);
}

TEST_F(PlaneTest, NeverReturnsASnapshotBeingWritten)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->seq = 43;  // odd: the writer is in the middle
  kernel_write_tel(p.fd(), *t);
  EXPECT_THROW(p.telemetry(std::chrono::milliseconds(20)), lp::Error);
  t->seq = 44;
  kernel_write_tel(p.fd(), *t);
  EXPECT_EQ(p.telemetry()->seq, 44u);
}

TEST_F(PlaneTest, TryReadSaysBusyWithoutWaiting)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  auto out = std::make_unique<lossless_plane_tel>();
  EXPECT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::NoTelemetry);
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->seq = 11;  // odd: being written
  kernel_write_tel(p.fd(), *t);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::Busy);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(5));
  t->seq = 12;
  kernel_write_tel(p.fd(), *t);
  EXPECT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::Ok);
  EXPECT_EQ(out->seq, 12u);
}

TEST_F(PlaneTest, SubmitWritesTheControlEntryTheDatapathReads)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  lp::Params params;
  params.alpha = *lp::parse_alpha("1/4");
  params.xon_offset_bytes = 3000;
  params.headroom.push_back({5, 40000});
  EXPECT_EQ(p.submit(params), 1u);
  auto c = kernel_read<lossless_plane_ctl>(p.fd(), LOSSLESS_PLANE_CTL);
  EXPECT_EQ(c->magic, LOSSLESS_PLANE_MAGIC);
  EXPECT_EQ(c->version, unsigned(LOSSLESS_PLANE_VERSION));
  EXPECT_EQ(c->gen, 1u);
  EXPECT_EQ(c->set, LOSSLESS_PLANE_SET_ALPHA | LOSSLESS_PLANE_SET_XON_OFFSET |
                        LOSSLESS_PLANE_SET_HEADROOM);
  EXPECT_EQ(c->alpha, (1u << 8) | 2u);
  EXPECT_EQ(c->xon_offset_bytes, 3000u);
  EXPECT_EQ(c->headroom[0].ifindex, 5u);
  EXPECT_EQ(c->headroom[0].headroom_bytes, 40000u);
  EXPECT_EQ(c->headroom[1].ifindex, 0u);

  lp::Params only_interval;
  only_interval.interval_us = 500;
  EXPECT_EQ(p.submit(only_interval), 2u);
  c = kernel_read<lossless_plane_ctl>(p.fd(), LOSSLESS_PLANE_CTL);
  EXPECT_EQ(c->set, LOSSLESS_PLANE_SET_INTERVAL);
  EXPECT_EQ(c->interval_us, 500u);
  EXPECT_EQ(c->headroom[0].ifindex, 0u) << "a new entry carries only its own fields";
}

// Version 8: the ports' modes go out in the control entry and come back
// per port slot in the telemetry.
TEST(PlaneEncode, PortModesSetTheirBitAndSlots)
{
  lp::Params params;
  lossless_plane_port_mode m{};
  m.ifindex = 9;
  m.mode = LOSSLESS_MODE_BIFROST;
  m.params[0] = 20000000;  // rtt_ns
  m.params[4] = 3;         // k
  params.modes.push_back(m);
  lossless_plane_ctl c = lp::encode(params);
  EXPECT_EQ(c.magic, LOSSLESS_PLANE_MAGIC);
  EXPECT_EQ(c.version, 10u);  // 9: the modes' per-priority values; 10: the drain, the premise
  EXPECT_EQ(c.set, LOSSLESS_PLANE_SET_MODE);
  EXPECT_EQ(c.mode[0].ifindex, 9u);
  EXPECT_EQ(c.mode[0].mode, unsigned(LOSSLESS_MODE_BIFROST));
  EXPECT_EQ(c.mode[0].params[0], 20000000u);
  EXPECT_EQ(c.mode[0].params[4], 3u);
  EXPECT_EQ(c.mode[1].ifindex, 0u);

  lp::Params none;
  none.interval_us = 1000;
  EXPECT_EQ(lp::encode(none).set & LOSSLESS_PLANE_SET_MODE, 0u)
      << "no modes, no SET_MODE: the datapath leaves every port's mode alone";

  lp::Params too_many;
  too_many.modes.resize(LOSSLESS_PLANE_MODE_PORTS + 1);
  EXPECT_THROW(lp::encode(too_many), lp::Error);
  static_assert(sizeof(lossless_plane_ctl) <= LOSSLESS_PLANE_CHANNEL_OFFSET,
                "the control entry's parameters end before the channel");
}

// losslessctl move-scheme's drain (version 10): its bit and value, 1 and 0.
TEST(PlaneEncode, DrainSetsItsBitAndValue)
{
  lp::Params params;
  EXPECT_EQ(lp::encode(params).set & LOSSLESS_PLANE_SET_DRAIN, 0u);
  params.drain = true;
  lossless_plane_ctl c = lp::encode(params);
  EXPECT_EQ(c.set, LOSSLESS_PLANE_SET_DRAIN);
  EXPECT_EQ(c.drain, 1u);
  params.drain = false;
  params.scheme = lossless_plane_scheme{};
  params.scheme->id = LOSSLESS_SCHEME_SPFC;
  c = lp::encode(params);
  EXPECT_EQ(c.set, LOSSLESS_PLANE_SET_DRAIN | LOSSLESS_PLANE_SET_SCHEME);
  EXPECT_EQ(c.drain, 0u);
  EXPECT_EQ(c.scheme.id, unsigned(LOSSLESS_SCHEME_SPFC));
}

// losslessctl clear peaks: an entry with the action alone, no field.
TEST(PlaneEncode, ResetPeaksIsAnActionAlone)
{
  lp::Params params;
  params.reset_peaks = true;
  lossless_plane_ctl c = lp::encode(params);
  EXPECT_EQ(c.set, LOSSLESS_PLANE_SET_RESET_PEAKS);
  lp::Params none;
  none.alpha = 1u << 8;
  EXPECT_EQ(lp::encode(none).set & LOSSLESS_PLANE_SET_RESET_PEAKS, 0u)
      << "a set without clear peaks must not reset the watermarks";
  EXPECT_EQ(LOSSLESS_PLANE_SET_RESET_PEAKS &
                (LOSSLESS_PLANE_SET_ALPHA | LOSSLESS_PLANE_SET_EGRESS_ALPHA |
                 LOSSLESS_PLANE_SET_XON_OFFSET | LOSSLESS_PLANE_SET_RESERVED |
                 LOSSLESS_PLANE_SET_INTERVAL | LOSSLESS_PLANE_SET_HEADROOM |
                 LOSSLESS_PLANE_SET_SCHEME | LOSSLESS_PLANE_SET_MODE),
            0u);
}

TEST_F(PlaneTest, SubmitWritesThePortModes)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  lp::Params params;
  lossless_plane_port_mode m{};
  m.ifindex = 4;
  m.mode = LOSSLESS_MODE_BIFROST;
  m.params[1] = 1000000;
  params.modes.push_back(m);
  m.ifindex = 6;
  m.mode = 0;
  m.params[1] = 0;
  params.modes.push_back(m);
  EXPECT_EQ(p.submit(params), 1u);
  auto c = kernel_read<lossless_plane_ctl>(p.fd(), LOSSLESS_PLANE_CTL);
  EXPECT_EQ(c->set, LOSSLESS_PLANE_SET_MODE);
  EXPECT_EQ(c->mode[0].ifindex, 4u);
  EXPECT_EQ(c->mode[0].params[1], 1000000u);
  EXPECT_EQ(c->mode[1].ifindex, 6u);
  EXPECT_EQ(c->mode[1].mode, 0u);
}

TEST_F(PlaneTest, ReadsEachPortsModeTelemetry)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->nr_ports = 2;
  t->events_total = 3;
  t->channel_refused = 5;
  t->mode[1].mode = LOSSLESS_MODE_BIFROST;
  t->mode[1].ctr[0] = 1234;
  t->mode[1].ctr[LOSSLESS_MODE_STATS - 1] = 77;
  t->mode[1].late_hist[LOSSLESS_MODE_HIST - 1] = 8;
  t->mode[1].prio[LOSSLESS_MODE_PRIO_STATS - 1][7] = 4321;
  t->mode[2].ctr[0] = 999;  // beyond nr_ports: not copied
  kernel_write_tel(p.fd(), *t);
  auto out = std::make_unique<lossless_plane_tel>();
  ASSERT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::Ok);
  EXPECT_EQ(out->mode[0].mode, 0u);
  EXPECT_EQ(out->mode[1].mode, unsigned(LOSSLESS_MODE_BIFROST));
  EXPECT_EQ(out->mode[1].ctr[0], 1234u);
  EXPECT_EQ(out->mode[1].ctr[LOSSLESS_MODE_STATS - 1], 77u);
  EXPECT_EQ(out->mode[1].late_hist[LOSSLESS_MODE_HIST - 1], 8u);
  EXPECT_EQ(out->mode[1].prio[LOSSLESS_MODE_PRIO_STATS - 1][7], 4321u);
  EXPECT_EQ(out->mode[2].ctr[0], 0u);
  EXPECT_EQ(out->events_total, 3u);
  EXPECT_EQ(out->channel_refused, 5u);
}

// Version 10: each port slot's headroom premise, the ports in use only.
TEST_F(PlaneTest, ReadsEachPortsPremise)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->nr_ports = 2;
  t->mode[1].mode = LOSSLESS_MODE_BIFROST;
  t->premise[1].xoff_response_last_ns = 1200000;
  t->premise[1].xoff_response_max_ns = 3400000;
  t->premise[1].xoff_responses = 42;
  t->premise[1].headroom_warnings = 3;
  t->premise[1].headroom_near_mask = 1u << 3;
  t->premise[2].xoff_responses = 999;  // beyond nr_ports: not copied
  kernel_write_tel(p.fd(), *t);
  auto out = std::make_unique<lossless_plane_tel>();
  ASSERT_EQ(p.try_read_telemetry(*out), lp::Plane::Read::Ok);
  EXPECT_EQ(out->premise[0].xoff_responses, 0u);
  EXPECT_EQ(out->premise[1].xoff_response_last_ns, 1200000u);
  EXPECT_EQ(out->premise[1].xoff_response_max_ns, 3400000u);
  EXPECT_EQ(out->premise[1].xoff_responses, 42u);
  EXPECT_EQ(out->premise[1].headroom_warnings, 3u);
  EXPECT_EQ(out->premise[1].headroom_near_mask, 1u << 3);
  EXPECT_EQ(out->premise[2].xoff_responses, 0u);
  EXPECT_EQ(out->mode[1].mode, unsigned(LOSSLESS_MODE_BIFROST)) << "the modes still read";
}

TEST_F(PlaneTest, WaitAppliedReportsTheDatapathsVerdict)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  lp::Params params;
  params.reserved_bytes = 1 << 30;
  std::uint64_t gen = p.submit(params);
  EXPECT_FALSE(p.wait_applied(gen, std::chrono::milliseconds(10)).has_value())
      << "nobody applied it yet";
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->applied_gen = gen;
  t->apply_error = -EBUSY;
  kernel_write_tel(p.fd(), *t);
  auto r = p.wait_applied(gen, std::chrono::milliseconds(100));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, EBUSY);
  // The next entry gets a gen above the one applied.
  EXPECT_EQ(p.submit(params), gen + 1);
}

TEST(Alpha, ParsesTheTcSyntaxAndFormatsItBack)
{
  EXPECT_EQ(lp::parse_alpha("1/8"), (1u << 8) | 3u);
  EXPECT_EQ(lp::parse_alpha("2"), 2u << 8);
  EXPECT_EQ(lp::parse_alpha("3/4"), (3u << 8) | 2u);
  EXPECT_EQ(lp::parse_alpha("1/4294967296"), (1u << 8) | 32u);
  for (const char *bad : {"0", "1/3", "1/0", "65536", "-1", "", "1/", "x", "1/8x", "1/8589934592"})
    EXPECT_FALSE(lp::parse_alpha(bad).has_value()) << bad;
  for (const char *s : {"1/8", "2", "3/4", "65535/4294967296"})
    EXPECT_EQ(lp::format_alpha(*lp::parse_alpha(s)), s);
}

}  // namespace

namespace {

// The control channel's block (kernel/uapi/lossless.h): written at its
// offset in the control entry under its sequence counter, with its scheme
// and payload, the parameters untouched.
TEST_F(PlaneTest, ChannelBlockIsWrittenUnderItsSeqBesideTheParameters)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  lp::Params params;
  params.alpha = 1 << 8 | 2;
  std::uint64_t gen = p.submit(params);
  lossless_spfc_channel w{};
  w.ports[0].ifindex = 7;
  w.ports[0].flags = LOSSLESS_SPFC_PUB;
  w.ports[0].victims = 1 << 3;
  w.ports[0].window_end_ns = 123;
  w.ports[1].ifindex = 8;
  w.ports[1].force_victim = 1 << 4;
  const auto *bytes = reinterpret_cast<const std::uint8_t *>(&w);
  std::vector<std::uint8_t> payload(bytes, bytes + sizeof(w));
  std::uint64_t seq = p.submit_channel(LOSSLESS_SCHEME_SPFC, payload);
  EXPECT_EQ(seq, 2u);
  // As the datapath reads it: the whole control value, the block at its
  // offset.
  std::vector<char> buf(sizeof(lossless_plane_tel));
  std::uint32_t key = LOSSLESS_PLANE_CTL;
  ASSERT_EQ(bpf_map_lookup_elem(p.fd(), &key, buf.data()), 0);
  lossless_plane_channel got{};
  std::memcpy(&got, buf.data() + LOSSLESS_PLANE_CHANNEL_OFFSET, sizeof(got));
  EXPECT_EQ(got.magic, LOSSLESS_PLANE_MAGIC);
  EXPECT_EQ(got.version, unsigned(LOSSLESS_PLANE_VERSION));
  EXPECT_EQ(got.seq, 2u);
  EXPECT_EQ(got.scheme, unsigned(LOSSLESS_SCHEME_SPFC));
  ASSERT_EQ(got.len, sizeof(w));
  lossless_spfc_channel gw{};
  std::memcpy(&gw, got.payload, sizeof(gw));
  EXPECT_EQ(gw.ports[0].ifindex, 7u);
  EXPECT_EQ(gw.ports[0].flags, LOSSLESS_SPFC_PUB);
  EXPECT_EQ(gw.ports[0].victims, 1u << 3);
  EXPECT_EQ(gw.ports[0].window_end_ns, 123u);
  EXPECT_EQ(gw.ports[1].force_victim, 1u << 4);
  EXPECT_EQ(p.channel().len, sizeof(w));
  lossless_plane_ctl c{};
  std::memcpy(&c, buf.data(), sizeof(c));
  EXPECT_EQ(c.gen, gen);
  EXPECT_EQ(c.alpha, 1u << 8 | 2);
  // The next write: the next even seq; a parameter write leaves the block.
  EXPECT_EQ(p.submit_channel(LOSSLESS_SCHEME_SPFC, payload), 4u);
  p.submit(params);
  EXPECT_EQ(p.channel().seq, 4u);
  EXPECT_EQ(p.channel().scheme, unsigned(LOSSLESS_SCHEME_SPFC));
  // A writer that died half-way left an odd seq: the next is even.
  auto *raw = reinterpret_cast<lossless_plane_channel *>(buf.data() + LOSSLESS_PLANE_CHANNEL_OFFSET);
  ASSERT_EQ(bpf_map_lookup_elem(p.fd(), &key, buf.data()), 0);
  raw->seq = 7;
  ASSERT_EQ(bpf_map_update_elem(p.fd(), &key, buf.data(), BPF_ANY), 0);
  EXPECT_EQ(p.submit_channel(LOSSLESS_SCHEME_SPFC, payload), 8u);
  // A payload larger than the block is refused before anything is written.
  EXPECT_THROW(p.submit_channel(LOSSLESS_SCHEME_SPFC,
                                std::vector<std::uint8_t>(LOSSLESS_CHANNEL_PAYLOAD_MAX + 1)),
               lp::Error);
  EXPECT_EQ(p.channel().seq, 8u);
}

// The datapath's answer: channel_applied_seq and channel_apply_error.
TEST_F(PlaneTest, WaitsForTheDatapathToTakeTheChannelBlock)
{
  auto p = lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing);
  std::uint64_t seq = p.submit_channel(LOSSLESS_SCHEME_SPFC, {});
  EXPECT_FALSE(p.wait_channel_applied(seq, std::chrono::milliseconds(5)).has_value());
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  t->channel_applied_seq = seq;
  t->channel_apply_error = -ENODEV;
  kernel_write_tel(p.fd(), *t);
  auto r = p.wait_channel_applied(seq, std::chrono::milliseconds(100));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->error, ENODEV);
}

}  // namespace
