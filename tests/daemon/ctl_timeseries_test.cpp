// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessctl status, watch, record and plot against a real plane map on a
// private bpffs. The test plays the datapath (as plane_test.cpp does): it
// writes telemetry snapshots into the map with plain map syscalls while
// the losslessctl binary runs against it (--plane PATH), then checks the
// CSV rows, the PNG that plot makes of them, the frames watch prints and
// what status prints. CtlPlot runs plot on hand-made recordings (no root):
// quiet, all zero, a single sample, one port, a name that needs quoting,
// pauses; each makes a complete page whose script plots no empty series.
#include <bpf/bpf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "plane.h"
#include "plane_fixture.h"

extern "C" {
#include "scheme.h"  // the schemes' event numbers (LL_SPFC_EV_*, LL_DSH_EV_*)
}

namespace {

namespace lp = lossless::plane;
using namespace std::chrono_literals;

const char kCtl[] = LL_LOSSLESSCTL;
const char kHeader[] =
    "time_s,pool,dev,prio,pool_shared_used,pool_shared_size,pool_headroom_used,"
    "pool_headroom_size,port_tx_bytes,port_pfc_tx,port_pfc_rx,prio_bytes,prio_headroom_used,"
    "prio_threshold,prio_paused,prio_xoff_frames";
constexpr std::uint32_t kOther = 4242;  // an ifindex no device has: "if4242"

std::uint64_t mono_ns()
{
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

// A child process with its output in files.
struct Child {
  pid_t pid = -1;
  std::string out, err;  // paths

  int wait(std::chrono::milliseconds timeout = 20s)
  {
    auto end = std::chrono::steady_clock::now() + timeout;
    int st = 0;
    for (;;) {
      pid_t r = waitpid(pid, &st, WNOHANG);
      if (r == pid)
        break;
      if (std::chrono::steady_clock::now() > end) {
        kill(pid, SIGKILL);
        waitpid(pid, &st, 0);
        return -2;
      }
      std::this_thread::sleep_for(10ms);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  // Without reaping it (wait() does that).
  bool running() const
  {
    siginfo_t info{};
    return waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
  }
};

std::string slurp(const std::string &path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A PNG image's WIDTHxHEIGHT (its IHDR chunk), or what is wrong with it.
std::string png_size(const std::string &path)
{
  std::string img = slurp(path);
  if (img.size() < 24 || img.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) != 0 ||
      img.compare(12, 4, "IHDR") != 0)
    return "not a PNG image (" + std::to_string(img.size()) + " bytes)";
  auto be32 = [&](std::size_t at) {
    return (std::uint32_t(std::uint8_t(img[at])) << 24) | (std::uint8_t(img[at + 1]) << 16) |
           (std::uint8_t(img[at + 2]) << 8) | std::uint8_t(img[at + 3]);
  };
  return std::to_string(be32(16)) + "x" + std::to_string(be32(20));
}

// losslessctl as a child process, its output in files under a directory
// of the test's own (tmp_, made by make_tmp() and removed at the end).
class CtlProcess {
 protected:
  ~CtlProcess()
  {
    if (!tmp_.empty())
      lltest::sh("rm -rf " + tmp_);
  }
  void make_tmp()
  {
    char tmp[] = "/tmp/ll-ctl-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmp), nullptr);
    tmp_ = tmp;
  }

  Child spawn(const std::vector<std::string> &args, const std::string &name,
              const std::vector<std::string> &env_extra = {})
  {
    Child c;
    c.out = tmp_ + "/" + name + ".out";
    c.err = tmp_ + "/" + name + ".err";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, c.out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, c.err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> all = {kCtl};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (auto &a : all)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envs;
    for (char **e = environ; *e; e++) {
      std::string v = *e;
      bool replaced = false;
      for (const auto &x : env_extra)
        if (v.substr(0, v.find('=') + 1) == x.substr(0, x.find('=') + 1))
          replaced = true;
      if (!replaced)
        envs.push_back(v);
    }
    envs.insert(envs.end(), env_extra.begin(), env_extra.end());
    std::vector<char *> envp;
    for (auto &e : envs)
      envp.push_back(e.data());
    envp.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&c.pid, kCtl, &fa, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&fa);
    return c;
  }

  // Runs losslessctl to the end: exit status, stdout and stderr.
  int run(const std::vector<std::string> &args, std::string *out = nullptr,
          std::string *err = nullptr, const std::vector<std::string> &env = {})
  {
    Child c = spawn(args, "run", env);
    int rc = c.wait();
    if (out)
      *out = slurp(c.out);
    if (err)
      *err = slurp(c.err);
    return rc;
  }

  std::string tmp_;
};

// sw0's plane map on a private bpffs (plane_fixture.h), and a directory
// for losslessctl's files.
class CtlTimeSeries : public lltest::PlaneTest, protected CtlProcess {
 protected:
  void SetUp() override
  {
    lltest::PlaneTest::SetUp();
    if (IsSkipped())
      return;
    make_tmp();
    plane_.emplace(lp::Plane::open(path_, lp::Plane::Open::CreateIfMissing));
  }
  void TearDown() override
  {
    plane_.reset();
    lltest::PlaneTest::TearDown();
  }

  // Snapshot number k of the synthetic pool sw0: two ports (lo, whose
  // ifindex is 1 in every namespace, and if4242), lossless priorities 3
  // and 4. Every value is a function of k, so a row can be checked alone.
  void write_snapshot(std::uint64_t k)
  {
    auto t = std::make_unique<lossless_plane_tel>();
    t->magic = LOSSLESS_PLANE_MAGIC;
    t->version = LOSSLESS_PLANE_VERSION;
    std::strcpy(t->pool, "sw0");
    t->time_ns = mono_ns();
    t->snapshots = k;
    t->interval_us = 1000;
    t->nr_ports = 2;
    t->lossless_mask = (1u << 3) | (1u << 4);
    t->alpha = (1u << 8) | 3;
    t->total_bytes = 2 << 20;
    t->shared_size = 1500000;
    t->headroom_size = 400000;
    t->shared_used = 1000 * k;
    t->headroom_used = 100 * k;
    t->admitted_packets = 10 * k;
    for (std::uint32_t i = 0; i < 2; i++) {
      auto &p = t->ports[i];
      p.ifindex = i == 0 ? 1 : kOther;
      p.rate_bps = 1000000000;
      p.tx_bytes = 1000000 * k + i;
      p.pfc_frames_tx = k;
      p.pfc_frames_rx = 2 * k;
      // The shaper and its timer (status): port 0 woke up 100 times, one
      // of them 3 ms late; port 1 never.
      p.catchup_bytes = 125000;
      p.shaper_lost_ns = i == 0 ? 2500000 : 0;
      p.wake_late_max_ns = i == 0 ? 3000000 : 0;
      p.wake_late[0] = i == 0 ? 99 : 0;
      p.wake_late[12] = i == 0 ? 1 : 0;
      // The headroom's premise: port 0 timed 40 XOFF responses, the
      // slowest 3.4 ms, and warned twice, priority 3 past 90 % now.
      if (i == 0) {
        t->premise[i].xoff_responses = 40;
        t->premise[i].xoff_response_last_ns = 1200000;
        t->premise[i].xoff_response_max_ns = 3400000;
        t->premise[i].headroom_warnings = 2;
        t->premise[i].headroom_near_mask = 1u << 3;
      }
      for (unsigned q : {3u, 4u}) {
        auto &s = p.iq[q];
        s.lossless = 1;
        s.bytes = 10 * k + q;
        s.headroom_used = k + q;
        s.headroom_size = 100000;
        s.threshold = 50000 + q;
        s.paused = q == 3 && i == 0 ? k % 2 : 0;
        s.xoff_frames = q == 3 && i == 0 ? (k + 1) / 2 : 0;
      }
    }
    // Seqcount, as the datapath: odd while writing, then even.
    t->seq = 2 * k + 1;
    kernel_write_tel(plane_->fd(), *t);
    t->seq = 2 * k + 2;
    kernel_write_tel(plane_->fd(), *t);
  }

  std::optional<lp::Plane> plane_;
};

std::vector<std::vector<std::string>> csv_rows(const std::string &text, std::string *header)
{
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, *header);
  while (std::getline(in, line)) {
    std::vector<std::string> f(1);
    for (char c : line)
      if (c == ',')
        f.emplace_back();
      else
        f.back().push_back(c);
    rows.push_back(f);
  }
  return rows;
}

TEST_F(CtlTimeSeries, RecordWritesARowPerSampleAndPortPriorityThenPlotMakesAPng)
{
  write_snapshot(1);
  std::string csv = tmp_ + "/rec.csv";
  Child rec = spawn({"--plane", path_, "record", csv, "--interval", "50", "--duration", "1.5"},
                    "record");
  // The datapath moves on every 100 ms while it records.
  std::uint64_t k = 1;
  while (rec.running() && k < 30) {
    std::this_thread::sleep_for(100ms);
    write_snapshot(++k);
  }
  ASSERT_EQ(rec.wait(), 0) << slurp(rec.err);

  std::string header;
  auto rows = csv_rows(slurp(csv), &header);
  EXPECT_EQ(header, kHeader);
  // 1.5 s every 50 ms: 31 samples of 2 ports x 2 lossless priorities (TCG
  // or a loaded machine may skip a few).
  EXPECT_GE(rows.size(), 4u * 12) << rows.size() << " rows";
  EXPECT_LE(rows.size(), 4u * 31);
  EXPECT_EQ(rows.size() % 4, 0u);
  std::set<std::uint64_t> seen;
  double last_t = -1;
  std::map<std::string, int> per_queue;
  for (const auto &r : rows) {
    ASSERT_EQ(r.size(), 16u);
    double t = std::stod(r[0]);
    EXPECT_GE(t, last_t);
    EXPECT_LE(t, 1.5 + 0.25);
    last_t = t;
    EXPECT_EQ(r[1], "sw0");
    ASSERT_TRUE(r[2] == "lo" || r[2] == "if4242") << r[2];
    ASSERT_TRUE(r[3] == "3" || r[3] == "4") << r[3];
    per_queue[r[2] + "/" + r[3]]++;
    std::uint64_t kk = std::stoull(r[4]) / 1000;  // pool_shared_used = 1000 k
    unsigned q = std::stoul(r[3]);
    bool lo = r[2] == "lo";
    seen.insert(kk);
    EXPECT_EQ(r[5], "1500000");
    EXPECT_EQ(std::stoull(r[6]), 100 * kk);
    EXPECT_EQ(r[7], "400000");
    EXPECT_EQ(std::stoull(r[8]), 1000000 * kk + (lo ? 0 : 1));
    EXPECT_EQ(std::stoull(r[9]), kk);
    EXPECT_EQ(std::stoull(r[10]), 2 * kk);
    EXPECT_EQ(std::stoull(r[11]), 10 * kk + q);
    EXPECT_EQ(std::stoull(r[12]), kk + q);
    EXPECT_EQ(std::stoull(r[13]), 50000 + q);
    EXPECT_EQ(std::stoull(r[14]), q == 3 && lo ? kk % 2 : 0);
    EXPECT_EQ(std::stoull(r[15]), q == 3 && lo ? (kk + 1) / 2 : 0);
  }
  EXPECT_EQ(per_queue.size(), 4u);
  EXPECT_TRUE(seen.count(1)) << "the first snapshot is in";
  EXPECT_GE(seen.size(), 8u) << "the rows follow the datapath";

  // plot: a PNG with a real size.
  std::string png = tmp_ + "/rec.png", out, err;
  ASSERT_EQ(run({"plot", csv, png}, &out, &err), 0) << err;
  EXPECT_EQ(png_size(png), "1200x1000");
  EXPECT_NE(out.find("4 port/priority series"), std::string::npos) << out;

  ASSERT_EQ(run({"plot", csv, png, "--size", "640x480"}, &out, &err), 0) << err;
  EXPECT_EQ(png_size(png), "640x480");
}

TEST_F(CtlTimeSeries, RecordStopsAtSigintWithCompleteRows)
{
  write_snapshot(3);
  std::string csv = tmp_ + "/int.csv";
  Child rec = spawn({"--plane", path_, "record", csv, "--interval", "20"}, "record");
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(rec.running()) << slurp(rec.err);
  kill(rec.pid, SIGINT);
  ASSERT_EQ(rec.wait(2s), 0) << slurp(rec.err);
  std::string text = slurp(csv), header;
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  auto rows = csv_rows(text, &header);
  EXPECT_EQ(header, kHeader);
  EXPECT_GE(rows.size(), 4u * 5);
  for (const auto &r : rows)
    EXPECT_EQ(r.size(), 16u);
}

TEST_F(CtlTimeSeries, WatchPrintsCountFrames)
{
  write_snapshot(5);
  std::thread datapath([this] {
    for (std::uint64_t k = 6; k < 12; k++) {
      std::this_thread::sleep_for(50ms);
      write_snapshot(k);
    }
  });
  std::string out, err;
  int rc = run({"--plane", path_, "watch", "--interval", "100", "--count", "2"}, &out, &err);
  datapath.join();
  ASSERT_EQ(rc, 0) << err;
  std::size_t frames = 0;
  for (std::size_t at = 0; (at = out.find("pool sw0", at)) != std::string::npos; at++)
    frames++;
  EXPECT_EQ(frames, 2u) << out;
  EXPECT_EQ(out.find('\033'), std::string::npos) << "no escape codes into a pipe";
  EXPECT_NE(out.find("shared   ["), std::string::npos) << out;
  EXPECT_NE(out.find("headroom ["), std::string::npos) << out;
  EXPECT_NE(out.find("if4242"), std::string::npos) << out;
  EXPECT_NE(out.find("TX-Mbit/s"), std::string::npos) << out;
}

TEST_F(CtlTimeSeries, WatchIntoAPipeStopsAfterOneFrame)
{
  write_snapshot(5);
  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "watch", "--interval", "50"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("pool sw0"), std::string::npos) << out;
  EXPECT_EQ(out.find("pool sw0"), out.rfind("pool sw0"));
}

// status: per port the shaper's catch-up, the credit it cut, and how late
// its timed wake-ups ran; --json: the snapshot's fields as tc -s -j names them.
TEST_F(CtlTimeSeries, StatusShowsTheShaperAndTimerPerPort)
{
  write_snapshot(1);
  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "status"}, &out, &err), 0) << err;
  for (const char *l : {
           "\n  PORT          CATCH-UP CREDIT-CUT-MS   WAKE-UPS  LATE-MAX-MS  LATE-P99-MS\n",
           "\n  lo              122.1K         2.500        100        3.000       <0.001\n",
           "\n  if4242          122.1K         0.000          0            -            -\n",
           "\n  PORT         XOFF-RESP XOFF-LAST-MS  XOFF-MAX-MS HR-WARNINGS  NEAR\n",
           "\n  lo                  40        1.200        3.400           2     3\n",
           "\n  if4242               0            -            -           0     -\n",
       })
    EXPECT_NE(out.find(l), std::string::npos) << l << "--- in ---\n" << out;
  ASSERT_EQ(run({"--plane", path_, "status", "--json"}, &out, &err), 0) << err;
  auto j = nlohmann::json::parse(out);
  const auto &p = j["pools"][0]["ports"][0];
  EXPECT_EQ(p["catchup"], 125000);
  EXPECT_EQ(p["shaper_lost"], 2500000);
  EXPECT_EQ(p["wake_late_max"], 3000000);
  EXPECT_EQ(p["premise"], (nlohmann::json{{"xoff_response_last_ns", 1200000},
                                          {"xoff_response_max_ns", 3400000},
                                          {"xoff_responses", 40},
                                          {"headroom_warnings", 2},
                                          {"headroom_near", nlohmann::json::array({3})}}));
  ASSERT_EQ(p["wake_late"].size(), unsigned(LOSSLESS_LATENESS_BUCKETS));
  EXPECT_EQ(p["wake_late"][0], (nlohmann::json{{"lt_ns", 1024}, {"count", 99}}));
  EXPECT_EQ(p["wake_late"][12], (nlohmann::json{{"lt_ns", 1ULL << 22}, {"count", 1}}));
  EXPECT_EQ(p["wake_late"][LOSSLESS_LATENESS_BUCKETS - 1],
            (nlohmann::json{{"lt_ns", 0}, {"count", 0}}));
}

// status: a port's mode, its counters by the names of its descriptor (as
// tc -s shows them), a port without one shows none.
TEST_F(CtlTimeSeries, StatusShowsEachPortsMode)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  std::strcpy(t->pool, "sw0");
  t->time_ns = mono_ns();
  t->snapshots = 3;
  t->nr_ports = 2;
  t->lossless_mask = 1u << 3;
  t->ports[0].ifindex = 1;
  t->ports[1].ifindex = kOther;
  auto &m = t->mode[0];
  m.mode = LOSSLESS_MODE_BIFROST;
  m.ctr[0] = 500;         // slots
  m.ctr[1] = 40;          // frames
  m.ctr[3] = 250000000;   // pause: 250 ms
  m.ctr[8] = 30000;       // max_queue
  m.ctr[12] = 1500000;    // max_late: 1.5 ms
  m.late_hist[2] = 6;
  m.prio[0][3] = 128000;  // tokens of priority 3
  m.prio[1][3] = 7;       // cut_slots
  t->seq = 2;
  kernel_write_tel(plane_->fd(), *t);

  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "status"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("\n  lo mode bifrost: slots 500 frames 40 full_pauses 0 pause 250.000ms "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(" max_late 1.500ms wakes 0 max_rtt 0.000ms\n    prio 3: tokens "),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("    prio 3: tokens 125.0K"), std::string::npos) << out;  // 128000 B
  EXPECT_NE(out.find(" cut_slots 7\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("if4242 mode"), std::string::npos) << out;
  ASSERT_EQ(run({"--plane", path_, "status", "--json"}, &out, &err), 0) << err;
  auto j = nlohmann::json::parse(out);
  const auto &p = j["pools"][0]["ports"][0];
  ASSERT_TRUE(p.contains("mode_stats")) << out;
  EXPECT_EQ(p["mode_stats"]["mode"], "bifrost");
  EXPECT_EQ(p["mode_stats"]["slots"], 500);
  EXPECT_EQ(p["mode_stats"]["pause"], 250000000);
  EXPECT_EQ(p["mode_stats"]["max_late"], 1500000);
  ASSERT_EQ(p["mode_stats"]["late_hist"].size(), unsigned(LOSSLESS_MODE_HIST));
  EXPECT_EQ(p["mode_stats"]["late_hist"][2], 6);
  ASSERT_EQ(p["mode_stats"]["tokens"].size(), 8u);
  EXPECT_EQ(p["mode_stats"]["tokens"][3], 128000);
  EXPECT_EQ(p["mode_stats"]["cut_slots"][3], 7);
  EXPECT_FALSE(j["pools"][0]["ports"][1].contains("mode_stats"));
}

// watchdog: per port and priority what the PFC watchdog did; --json every
// priority, the fields named as tc -s -j names them.
TEST_F(CtlTimeSeries, WatchdogShowsStormsAndAlarmsPerPortAndPriority)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  std::strcpy(t->pool, "sw0");
  t->time_ns = mono_ns();
  t->snapshots = 7;
  t->nr_ports = 3;
  t->lossless_mask = (1u << 3) | (1u << 4);
  // lo: drop, priority 3 in storm (4 lossless, nothing yet).
  auto &a = t->ports[0];
  a.ifindex = 1;
  a.wd_action = LOSSLESS_WD_DROP;
  a.wd_storm_mask = 1u << 3;
  a.wd[3] = {.storm = 1, .xoff_alarm = 0, .pad = 0, .storms = 2, .restores = 1, .xoff_alarms = 0, .dropped = 120, .storm_ns = 1500000000, .xoff_ns = 0};
  // if4242: no action, an XOFF alarm on 4 (and both on 6, a lossy one).
  auto &b = t->ports[1];
  b.ifindex = kOther;
  b.wd_alarm_mask = (1u << 4) | (1u << 6);
  b.wd_storm_mask = 1u << 6;
  b.wd[4] = {.storm = 0, .xoff_alarm = 1, .pad = 0, .storms = 0, .restores = 0, .xoff_alarms = 1, .dropped = 0, .storm_ns = 0, .xoff_ns = 2500000000ULL};
  b.wd[6] = {.storm = 1, .xoff_alarm = 1, .pad = 0, .storms = 1, .restores = 0, .xoff_alarms = 2, .dropped = 0, .storm_ns = 1000, .xoff_ns = 3000000};
  // if4243: off, nothing counted.
  t->ports[2].ifindex = kOther + 1;
  t->seq = 2;
  kernel_write_tel(plane_->fd(), *t);

  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "watchdog"}, &out, &err), 0) << err;
  EXPECT_EQ(out,
            "pool sw0  (plane " + path_ + ", snapshot #7)\n"
            "  PORT         ACTION  PRIO STATE        STORMS RESTORED   DROPPED    STORM-MS ALARMS    XOFF-MS\n"
            "  lo           drop       3 storm             2        1       120    1500.000      0      0.000\n"
            "                          4 ok                0        0         0       0.000      0      0.000\n"
            "  if4242       off        4 alarm             0        0         0       0.000      1   2500.000\n"
            "                          6 storm+alarm       1        0         0       0.001      2      3.000\n"
            "  if4243       off        - off\n"
            "  (storm: paused by the peer with packets waiting past the detection time, until\n"
            "  no XOFF for the restoration time; alarm: XOFF sent upstream for longer than\n"
            "  xoff-alarm; XOFF-MS: how long the XOFF upstream has lasted now)\n");

  ASSERT_EQ(run({"--plane", path_, "watchdog", "--json"}, &out, &err), 0) << err;
  auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["pools"].size(), 1u);
  const auto &pool = j["pools"][0];
  EXPECT_EQ(pool["pool"], "sw0");
  EXPECT_EQ(pool["plane"], path_);
  ASSERT_EQ(pool["ports"].size(), 3u);
  const auto &lo = pool["ports"][0];
  EXPECT_EQ(lo["dev"], "lo");
  EXPECT_EQ(lo["action"], "drop");
  EXPECT_EQ(lo["storm_mask"], 8);
  EXPECT_EQ(lo["alarm_mask"], 0);
  ASSERT_EQ(lo["prios"].size(), 8u);
  EXPECT_EQ(lo["prios"][3], (nlohmann::json{{"prio", 3}, {"state", "storm"}, {"storm", true},
                                            {"storms", 2}, {"restores", 1}, {"dropped", 120},
                                            {"storm_time", 1500000000}, {"xoff_alarm", false},
                                            {"xoff_alarms", 0}, {"xoff_time", 0}}));
  EXPECT_EQ(lo["prios"][0]["state"], "ok");
  const auto &other = pool["ports"][1];
  EXPECT_EQ(other["action"], "off");
  EXPECT_EQ(other["alarm_mask"], 0x50);
  EXPECT_EQ(other["prios"][4]["state"], "alarm");
  EXPECT_EQ(other["prios"][4]["xoff_time"], 2500000000ULL);
  EXPECT_EQ(other["prios"][6]["state"], "storm+alarm");
  // status --json has it too, per port.
  ASSERT_EQ(run({"--plane", path_, "status", "--json"}, &out, &err), 0) << err;
  auto st = nlohmann::json::parse(out);
  EXPECT_EQ(st["pools"][0]["ports"][0]["pfcwd"],
            (nlohmann::json{{"action", "drop"}, {"storm_mask", 8}, {"alarm_mask", 0},
                            {"prios", lo["prios"]}}));

  EXPECT_EQ(run({"--plane", path_, "watchdog", "--bogus"}, &out, &err), 2);
  EXPECT_NE(err.find("watchdog: unknown argument \"--bogus\""), std::string::npos) << err;
  ASSERT_EQ(run({"--help"}, &out, &err), 0);
  EXPECT_NE(out.find("  watchdog [--json]     the PFC watchdog of every port"), std::string::npos) << out;
}

// The gnuplot single-quoted string at the start of s, unquoted.
std::string gp_unquote(const std::string &s)
{
  std::string out;
  for (std::size_t i = 1; i < s.size(); i++) {
    if (s[i] == '\'' && i + 1 < s.size() && s[i + 1] == '\'')
      out += '\'', i++;
    else if (s[i] == '\'')
      break;
    else
      out += s[i];
  }
  return out;
}

// A panel of a plot script: its key's title and its series ("$q0 using
// 1:($2/1024) with lines title 'lo/3'"), or for a panel without any, its
// "no ... recorded" label (none).
struct ScriptPanel {
  std::string key, none;
  std::vector<std::string> series;

  // The legend: the series' titles.
  std::vector<std::string> titles() const
  {
    std::vector<std::string> out;
    for (const auto &s : series)
      if (auto at = s.find(" title '"); at != std::string::npos)
        out.push_back(gp_unquote(s.substr(at + 7)));
    return out;
  }
};

// The panels a plot script draws, each checked for a plot of an empty
// series: a series plots a data block with a line per sample (a single
// one as a dot: a line of one point draws nothing), a panel's series are
// not all zero, a panel without series says why (it plots -1, below its
// y range, for its frame and time axis), and nothing plots NaN (gnuplot:
// "all points y value undefined!").
std::vector<ScriptPanel> read_script(const std::string &gp)
{
  const auto npos = std::string::npos;
  std::map<std::string, std::vector<std::vector<double>>> blocks;
  std::vector<ScriptPanel> panels;
  std::string key, label, line;
  std::istringstream in(gp);
  while (std::getline(in, line)) {
    auto starts = [&](const char *prefix) { return line.rfind(prefix, 0) == 0; };
    if (starts("$") && line.find(" << EOD") != npos) {
      auto &rows = blocks[line.substr(0, line.find(' '))];
      while (std::getline(in, line) && line != "EOD") {
        std::istringstream f(line);
        rows.emplace_back(std::istream_iterator<double>(f), std::istream_iterator<double>());
      }
    } else if (starts("set key title ")) {
      key = gp_unquote(line.substr(14));
    } else if (starts("set label 1 ")) {
      label = gp_unquote(line.substr(12));
    } else if (starts("unset label 1")) {
      label.clear();
    } else if (starts("plot ")) {
      ScriptPanel p{key, "", {}};
      std::string s = line.substr(5);
      while (s.size() > 3 && s.compare(s.size() - 3, 3, ", \\") == 0 && std::getline(in, line)) {
        p.series.push_back(s.substr(0, s.size() - 3));
        s = line.substr(line.find_first_not_of(' '));
      }
      p.series.push_back(s);
      for (const auto &x : p.series)
        EXPECT_TRUE(x.find("NaN") == npos && x.find("1/0") == npos) << x;
      if (p.series == std::vector<std::string>{"-1 notitle"}) {
        EXPECT_NE(label, "") << "an empty panel says why";
        p.none = label;
        p.series.clear();
        panels.push_back(p);
        continue;
      }
      EXPECT_EQ(label, "") << "a label over series";
      bool drawn = false;
      for (const auto &x : p.series) {
        auto b = blocks.find(x.substr(0, x.find(' ')));
        if (b == blocks.end() || b->second.empty()) {
          ADD_FAILURE() << "a series of no data: " << x;
          continue;
        }
        if (b->second.size() == 1) {
          EXPECT_NE(x.find(" with points "), npos) << "a line of one point: " << x;
        }
        // The y columns: "1:2", "1:($2/1024)", "1:(0 - 0.4 + 0.8*$3)".
        std::size_t at = x.find(" using ");
        std::string y = x.substr(at + 7, x.find(" with ") - at - 7);
        y = y.substr(y.find(':') + 1);
        std::vector<std::size_t> cols;
        if (y.find_first_not_of("0123456789") == npos)
          cols.push_back(std::stoul(y));
        for (std::size_t d = y.find('$'); d != npos; d = y.find('$', d + 1))
          cols.push_back(std::stoul(y.substr(d + 1)));
        for (const auto &r : b->second)
          for (std::size_t c : cols)
            drawn |= c >= 1 && c <= r.size() && r[c - 1] != 0;
      }
      EXPECT_TRUE(drawn) << "a panel of all-zero series: " << p.series.front();
      panels.push_back(p);
    }
  }
  return panels;
}

// plot on hand-made recordings: needs gnuplot, no plane and no root.
class CtlPlot : public ::testing::Test, protected CtlProcess {
 protected:
  void SetUp() override { make_tmp(); }

  // What plot made of a recording: its exit status and standard error,
  // the image's size and the panels its script (--script) draws.
  struct Plot {
    int rc = -1;
    std::string err, size, script;
    std::vector<ScriptPanel> panels;
  };

  // Plots the recording of the header and rows into png (default size).
  Plot plot(const std::string &rows, const std::string &png_name = "plot.png")
  {
    std::string csv = tmp_ + "/rec.csv", png = tmp_ + "/" + png_name, gp = tmp_ + "/plot.gp";
    std::ofstream(csv) << kHeader << "\n" << rows;
    Plot p;
    p.rc = run({"plot", csv, png, "--script", gp}, nullptr, &p.err);
    p.size = png_size(png);
    p.script = slurp(gp);
    p.panels = read_script(p.script);
    return p;
  }

  // A complete page: exit 0, nothing on standard error (gnuplot's warnings
  // either), the documented default size and three panels, whose "no ...
  // recorded" labels are nones ("" for a panel that draws series).
  void expect_page(const Plot &p, const std::vector<std::string> &nones)
  {
    EXPECT_EQ(p.rc, 0) << p.err;
    EXPECT_EQ(p.err, "");
    EXPECT_EQ(p.size, "1200x1000");
    std::vector<std::string> got;
    for (const auto &panel : p.panels)
      got.push_back(panel.none);
    EXPECT_EQ(got, nones) << p.script;
  }
};

// A row of pool sw0 (1500000 bytes shared, 400000 of headroom) for port
// dev (as the CSV spells it) and priority 3.
std::string row(double t, const std::string &dev, std::uint64_t shared, std::uint64_t headroom,
                std::uint64_t bytes, int paused, std::uint64_t xoff)
{
  std::ostringstream r;
  r << std::fixed << std::setprecision(6) << t << ",sw0," << dev << ",3," << shared << ",1500000,"
    << headroom << ",400000,0," << xoff << ",0," << bytes << ",0,200000," << paused << "," << xoff
    << "\n";
  return r.str();
}

// The recording: 7 s every 50 ms of three ports that never paused
// (the shared use stays under 35 KiB; the XOFF counters keep what they
// counted before).
TEST_F(CtlPlot, QuietPeriod)
{
  std::string rows;
  for (int k = 0; k <= 140; k++)
    for (int i = 1; i <= 3; i++)
      rows += row(k * 0.05, "swp" + std::to_string(i), (k * 317) % 35000, 0,
                  (k * 91) % 12000 + 13 * i, 0, 12);
  Plot p = plot(rows);
  expect_page(p, {"", "no pauses recorded", "no XOFF frames sent"});
  ASSERT_EQ(p.panels.size(), 3u);
  // The busiest queue first.
  EXPECT_EQ(p.panels[0].titles(),
            (std::vector<std::string>{"shared", "headroom", "swp3/3", "swp2/3", "swp1/3"}));
}

// Nothing in use and nothing to pause: a pool without ports (only the
// pool's columns) and a port without a lossless priority (no prio).
TEST_F(CtlPlot, AllZeroAndAbsent)
{
  Plot p = plot(
      "0.000000,sw0,,,0,1500000,0,400000,,,,,,,,\n"
      "0.000000,sw1,swp9,,0,1500000,0,400000,0,0,0,,,,,\n"
      "0.100000,sw0,,,0,1500000,0,400000,,,,,,,,\n"
      "0.100000,sw1,swp9,,0,1500000,0,400000,0,0,0,,,,,\n");
  expect_page(p, {"no buffer use recorded", "no pauses recorded", "no XOFF frames sent"});
}

// One sample: a dot per series (a line needs two points), XOFF frames
// sent while recording: none.
TEST_F(CtlPlot, SingleSample)
{
  Plot p = plot(row(0.0004, "swp1", 30000, 2000, 9000, 1, 4) +
                row(0.0004, "swp2", 30000, 2000, 0, 0, 0) +
                row(0.0004, "swp3", 30000, 2000, 100, 0, 0));
  expect_page(p, {"", "", "no XOFF frames sent"});
  ASSERT_EQ(p.panels.size(), 3u);
  EXPECT_EQ(p.panels[0].titles(),
            (std::vector<std::string>{"shared", "headroom", "swp1/3", "swp3/3"}));
  EXPECT_EQ(p.panels[1].series.size(), 1u) << "the lane of swp1/3";
  for (const auto &panel : p.panels)
    for (const auto &s : panel.series)
      EXPECT_NE(s.find(" with points "), std::string::npos) << s;
}

// One port, paused for a while: every panel draws it.
TEST_F(CtlPlot, OnePort)
{
  std::string rows;
  for (int k = 0; k < 20; k++)
    rows += row(k * 0.1, "swp1", 20000 * k, k > 10 ? 500 * k : 0, 20000 * k, k > 10,
                k > 10 ? k - 10 : 0);
  Plot p = plot(rows);
  expect_page(p, {"", "", ""});
  ASSERT_EQ(p.panels.size(), 3u);
  EXPECT_EQ(p.panels[0].titles(), (std::vector<std::string>{"shared", "headroom", "swp1/3"}));
  EXPECT_EQ(p.panels[2].titles(), (std::vector<std::string>{"swp1"}));
}

// A port named with a quote, a comma and an apostrophe (quoted in the CSV
// as RFC 4180 says), into a PNG whose name has an apostrophe.
TEST_F(CtlPlot, PortNameThatNeedsQuoting)
{
  std::string rows;
  for (int k = 0; k < 10; k++)
    rows += row(k * 0.1, "\"sw\"\"p,1'x\"", 1000 * k, 0, 1000 * k, k % 2, k / 2);
  Plot p = plot(rows, "it's.png");
  expect_page(p, {"", "", ""});
  ASSERT_EQ(p.panels.size(), 3u);
  EXPECT_EQ(p.panels[0].titles(), (std::vector<std::string>{"shared", "headroom", "sw\"p,1'x/3"}));
  EXPECT_EQ(p.panels[2].titles(), (std::vector<std::string>{"sw\"p,1'x"}));
  EXPECT_NE(p.script.find("set ytics ('sw\"p,1''x/3' 0)"), std::string::npos) << p.script;
}

// An incast: two of three ports paused, their XOFF frames counted.
TEST_F(CtlPlot, RecordingWithPauses)
{
  std::string rows;
  for (int k = 0; k < 50; k++)
    for (int i = 1; i <= 3; i++) {
      bool hot = i < 3 && k >= 10 && k < 30;
      rows += row(k * 0.02, "swp" + std::to_string(i), 1000000 + 1000 * k, hot ? 40000 : 0,
                  hot ? 400000 : 1000, hot && k % 4 < 2,
                  i < 3 ? std::min(std::max(k - 10, 0), 20) * i : 0);
    }
  Plot p = plot(rows);
  expect_page(p, {"", "", ""});
  ASSERT_EQ(p.panels.size(), 3u);
  EXPECT_EQ(p.panels[1].series.size(), 2u) << "lanes swp1/3 and swp2/3";
  EXPECT_EQ(p.panels[2].titles(), (std::vector<std::string>{"swp2", "swp1"}));
}

// --script keeps the script; without it the temporary one goes.
TEST_F(CtlPlot, ScriptIsKeptOnlyWhenAsked)
{
  std::string csv = tmp_ + "/s.csv", png = tmp_ + "/s.png", tmp = tmp_ + "/tmp", err;
  std::ofstream(csv) << kHeader << "\n" << row(0, "swp1", 1, 0, 1, 0, 0);
  ASSERT_EQ(mkdir(tmp.c_str(), 0755), 0);
  ASSERT_EQ(run({"plot", csv, png}, nullptr, &err, {"TMPDIR=" + tmp}), 0) << err;
  EXPECT_EQ(lltest::sh("rmdir " + tmp), 0) << "the temporary script is gone";
  EXPECT_EQ(run({"plot", csv, png, "--script", tmp_ + "/no/such/dir/s.gp"}, nullptr, &err), 1);
  EXPECT_NE(err.find("cannot create " + tmp_ + "/no/such/dir/s.gp"), std::string::npos) << err;
  EXPECT_EQ(run({"plot", csv, png, "--script", ""}, nullptr, &err), 2);
}

TEST_F(CtlPlot, ErrorsAreClear)
{
  // Temporary scripts into the test's directory: none left unless gnuplot failed on one.
  std::string csv = tmp_ + "/x.csv", png = tmp_ + "/x.png", scripts = tmp_ + "/tmp", out, err;
  ASSERT_EQ(mkdir(scripts.c_str(), 0755), 0);
  std::string tmpdir = "TMPDIR=" + scripts;
  {
    std::ofstream f(csv);
    f << kHeader << "\n0.000000,sw0,lo,3,1,2,3,4,5,6,7,8,9,10,0,0\n";
  }
  // No gnuplot in PATH.
  EXPECT_EQ(run({"plot", csv, png}, &out, &err, {"PATH=/nonexistent", tmpdir}), 1);
  EXPECT_NE(err.find("gnuplot"), std::string::npos) << err;
  EXPECT_NE(err.find("apt-get install gnuplot-nox"), std::string::npos) << err;
  EXPECT_EQ(lltest::sh("rmdir " + scripts + " && mkdir " + scripts), 0) << "a script left";
  // Not a recording.
  {
    std::ofstream f(csv);
    f << "a,b,c\n1,2,3\n";
  }
  EXPECT_EQ(run({"plot", csv, png}, &out, &err), 1);
  EXPECT_NE(err.find(csv + ": not a losslessctl record CSV (no column \"time_s\""),
            std::string::npos)
      << err;
  {
    std::ofstream f(csv);
    f << kHeader << "\n";
  }
  EXPECT_EQ(run({"plot", csv, png}, &out, &err), 1);
  EXPECT_NE(err.find("no samples"), std::string::npos) << err;
  {
    std::ofstream f(csv);
    f << kHeader << "\n0.1,sw0,lo,3,x,2,3,4,5,6,7,8,9,10,0,0\n";
  }
  EXPECT_EQ(run({"plot", csv, png}, &out, &err), 1);
  EXPECT_NE(err.find(csv + ":2: pool_shared_used \"x\" is not a number"), std::string::npos) << err;
  EXPECT_EQ(run({"plot", tmp_ + "/missing.csv", png}, &out, &err), 1);
  EXPECT_NE(err.find("cannot read"), std::string::npos) << err;
  // gnuplot cannot write there: said, not hidden.
  {
    std::ofstream f(csv);
    f << kHeader << "\n0.1,sw0,lo,3,1,2,3,4,5,6,7,8,9,10,1,1\n";
  }
  EXPECT_EQ(run({"plot", csv, tmp_ + "/no/such/dir/x.png"}, &out, &err, {tmpdir}), 1);
  EXPECT_NE(err.find("x.png"), std::string::npos) << err;
  EXPECT_NE(err.find("on the script " + scripts + "/losslessctl-plot-"), std::string::npos) << err;
  EXPECT_NE(err.find("kept for a look"), std::string::npos) << err;
}

// The legends say what a series' name means: "lo/3" is port lo, priority 3.
TEST_F(CtlPlot, LegendSaysPortAndPriority)
{
  Plot p = plot(
      "0.1,sw0,lo,3,1000,2000,0,4000,5,1,0,800,0,9,1,1\n"
      "0.2,sw0,lo,3,1000,2000,0,4000,5,2,0,900,0,9,0,2\n");
  expect_page(p, {"", "", ""});
  ASSERT_EQ(p.panels.size(), 3u);
  // Occupancy: the queue series "lo/3" under a key titled port/priority.
  EXPECT_EQ(p.panels[0].key, "queues: port/priority");
  EXPECT_EQ(p.panels[0].titles(), (std::vector<std::string>{"shared", "headroom", "lo/3"}));
  // Paused lanes: the panel's title says it; the XOFF panel's key: port.
  EXPECT_NE(p.script.find("one lane per port/priority"), std::string::npos) << p.script;
  EXPECT_EQ(p.panels[2].key, "port");
  EXPECT_EQ(p.panels[2].titles(), (std::vector<std::string>{"lo"}));
}

TEST_F(CtlTimeSeries, UsageErrors)
{
  std::string out, err;
  EXPECT_EQ(run({"--plane", path_, "record"}, &out, &err), 2);
  EXPECT_NE(err.find("record needs one FILE"), std::string::npos) << err;
  EXPECT_EQ(run({"--plane", path_, "record", "f.csv", "--duration", "0"}, &out, &err), 2);
  EXPECT_EQ(run({"--plane", path_, "record", "f.csv", "--interval", "x"}, &out, &err), 2);
  EXPECT_EQ(run({"--plane", path_, "watch", "--count", "0"}, &out, &err), 2);
  EXPECT_EQ(run({"--plane", path_, "watch", "--bogus", "1"}, &out, &err), 2);
  EXPECT_NE(err.find("watch: unknown option \"--bogus\""), std::string::npos) << err;
  EXPECT_EQ(run({"plot", "a.csv"}, &out, &err), 2);
  EXPECT_EQ(run({"--pool", "sw0", "plot", "a.csv", "b.png"}, &out, &err), 2);
  EXPECT_EQ(run({"plot", "a.csv", "b.png", "--size", "10x10"}, &out, &err), 2);
  // A plane that does not exist: an error naming it, not a usage error.
  EXPECT_EQ(run({"--plane", dir_ + "/nope", "watch"}, &out, &err), 1);
  EXPECT_NE(err.find(dir_ + "/nope"), std::string::npos) << err;
}

}  // namespace

namespace {

// status and events with an SPFC pool: the scheme's per-port state and
// counters (named from its descriptor's names (scheme.h)), and its event ring as a
// timeline, oldest first, also once the ring has wrapped. Each event is named by
// the descriptor of the scheme it records (a DSH event in the ring of a pool now
// SPFC's is still poff); a type its scheme does not name prints as event<N>.
TEST_F(CtlTimeSeries, SchemeTelemetryAndEventTimeline)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  std::strcpy(t->pool, "sw0");
  t->time_ns = 10000000000ULL;
  t->snapshots = 9;
  t->nr_ports = 2;
  t->lossless_mask = 1u << 3;
  t->scheme.id = LOSSLESS_SCHEME_SPFC;
  t->ports[0].ifindex = 1;
  t->ports[0].iq[3].lossless = 1;
  t->ports[1].ifindex = kOther;
  auto &s = t->sch[0];
  s.s.scheme = LOSSLESS_SCHEME_SPFC;
  s.s.masks = (1u << 3) | (1u << 3 << 8);
  s.s.ctr[0] = 2;        // to_victim
  s.s.ctr[1] = 1;        // to_normal
  s.s.ctr[2] = 2500000;  // victim_time
  s.s.ctr[4] = 1;        // pauses_victim
  s.s.ctr[5] = 1001000;  // trigger_peak
  s.s.ctr[6] = 200000;   // irc_threshold
  s.s.prio[3] = 150000;  // last_window
  s.prio2[3] = 35000;    // irc
  auto ev = [&](unsigned i, std::uint64_t ago_ns, std::uint8_t type, std::uint64_t bytes) {
    t->events[i] = {.time_ns = t->time_ns - ago_ns,
                    .bytes = bytes,
                    .shared_used = 1000000,
                    .ifindex = 1,
                    .port = 0,
                    .prio = 3,
                    .type = type,
                    .scheme = LOSSLESS_SCHEME_SPFC};
  };
  ev(0, 5000000, LL_SPFC_EV_TO_VICTIM, 0);
  ev(1, 2000000, LL_SPFC_EV_PAUSE, 1001000);
  ev(2, 2000000, LL_SPFC_EV_TO_NORMAL, 1001000);
  t->events_total = 3;
  t->seq = 2;
  kernel_write_tel(plane_->fd(), *t);

  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "status"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("  scheme spfc telemetry (docs/SPFC.md):\n"
                     "  lo  victim 3  sh 3  forced_victim -  forced_normal -\n"
                     "    to_victim 2 to_normal 1 victim_time 2.500ms pauses_normal 0"
                     " pauses_victim 1 trigger_peak 977.5K irc_threshold 200000\n"
                     "    prio 3: last_window 150000 irc 35000\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("  if4242  victim"), std::string::npos) << out;
  ASSERT_EQ(run({"--plane", path_, "status", "--json"}, &out, &err), 0) << err;
  auto j = nlohmann::json::parse(out)["pools"][0];
  EXPECT_EQ(j["events_total"], 3);
  const auto &ss = j["ports"][0]["scheme_stats"];
  EXPECT_EQ(ss["scheme"], "spfc");
  EXPECT_EQ(ss["victim"], nlohmann::json::array({3}));
  EXPECT_EQ(ss["forced_normal"], nlohmann::json::array());
  EXPECT_EQ(ss["victim_time"], 2500000);
  EXPECT_EQ(ss["irc"], nlohmann::json::array({0, 0, 0, 35000, 0, 0, 0, 0}));
  EXPECT_FALSE(j["ports"][1].contains("scheme_stats"));

  ASSERT_EQ(run({"--plane", path_, "events"}, &out, &err), 0) << err;
  EXPECT_EQ(out, "pool sw0  (plane " + path_ +
                     ", scheme spfc, 3 of 3 events)\n"
                     "          T-MS PORT         PRIO EVENT          BYTES    SHARED\n"
                     "        -5.000 lo              3 to_victim          0    976.6K\n"
                     "        -2.000 lo              3 pause         977.5K    976.6K\n"
                     "        -2.000 lo              3 to_normal     977.5K    976.6K\n");
  ASSERT_EQ(run({"--plane", path_, "events", "--json"}, &out, &err), 0) << err;
  auto e = nlohmann::json::parse(out)["pools"][0];
  EXPECT_EQ(e["scheme"], "spfc");
  ASSERT_EQ(e["events"].size(), 3u);
  EXPECT_EQ(e["events"][1], (nlohmann::json{{"time_ns", 9998000000ULL},
                                            {"age_ns", 2000000},
                                            {"port", 0},
                                            {"ifindex", 1},
                                            {"dev", "lo"},
                                            {"type", "pause"},
                                            {"scheme", "spfc"},
                                            {"bytes", 1001000},
                                            {"shared_used", 1000000},
                                            {"prio", 3}}));

  // Wrapped: 70 events, the ring holds the latest 64, oldest first.
  for (unsigned i = 0; i < LOSSLESS_EVENTS; i++) {
    unsigned n = i < 6 ? i + LOSSLESS_EVENTS : i;  // event number in slot i
    t->events[i] = {.time_ns = 1000 + n,
                    .bytes = n,
                    .shared_used = 0,
                    .ifindex = kOther,
                    .port = 1,
                    .prio = LOSSLESS_EV_PORT,
                    .type = LL_DSH_EV_POFF,
                    .scheme = LOSSLESS_SCHEME_DSH};
  }
  // The last two: a type SPFC does not name, and an event of DT, which
  // names none.
  t->events[4].type = 200;
  t->events[4].scheme = LOSSLESS_SCHEME_SPFC;
  t->events[5].type = LL_SPFC_EV_PAUSE;
  t->events[5].scheme = LOSSLESS_SCHEME_DT;
  t->events_total = 70;
  t->seq = 4;
  kernel_write_tel(plane_->fd(), *t);
  ASSERT_EQ(run({"--plane", path_, "events", "--json"}, &out, &err), 0) << err;
  e = nlohmann::json::parse(out)["pools"][0];
  ASSERT_EQ(e["events"].size(), (size_t)LOSSLESS_EVENTS);
  for (unsigned i = 0; i < LOSSLESS_EVENTS; i++)
    EXPECT_EQ(e["events"][i]["bytes"], i + 6) << i;
  EXPECT_TRUE(e["events"][0]["prio"].is_null());
  EXPECT_EQ(e["events"][0]["type"], "poff");
  EXPECT_EQ(e["events"][0]["scheme"], "dsh");
  EXPECT_EQ(e["events"][LOSSLESS_EVENTS - 2]["type"], "event200");
  EXPECT_EQ(e["events"][LOSSLESS_EVENTS - 2]["scheme"], "spfc");
  EXPECT_EQ(e["events"][LOSSLESS_EVENTS - 1]["type"], "event1");
  EXPECT_EQ(e["events"][LOSSLESS_EVENTS - 1]["scheme"], "dt");
  ASSERT_EQ(run({"--plane", path_, "events"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("64 of 70 events"), std::string::npos) << out;
  EXPECT_NE(out.find(" if4242       port poff "), std::string::npos) << out;
  EXPECT_NE(out.find(" if4242       port event200 "), std::string::npos) << out;
  EXPECT_NE(out.find(" if4242       port event1 "), std::string::npos) << out;

  EXPECT_EQ(run({"--plane", path_, "events", "--bogus"}, &out, &err), 2);
  EXPECT_NE(err.find("events: unknown argument \"--bogus\""), std::string::npos) << err;
}

// A PortFC switch's pool: the scheme's per-port counters (onsets, reliefs
// and frames per class, the BCube port number) flow through status by its
// descriptor's names, as any scheme's (docs/PORTFC.md).
TEST_F(CtlTimeSeries, StatusShowsThePortfcSchemesCounters)
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  std::strcpy(t->pool, "w19");
  t->time_ns = 10000000000ULL;
  t->snapshots = 9;
  t->nr_ports = 1;
  t->lossless_mask = 0xFF;
  t->scheme.id = LOSSLESS_SCHEME_PORTFC;
  t->scheme.p.portfc.n = 4;
  t->ports[0].ifindex = 1;
  auto &s = t->sch[0];
  s.s.scheme = LOSSLESS_SCHEME_PORTFC;
  for (unsigned i = 0; i < 6; i++)
    s.s.ctr[i] = 10 + i;  // pauses_a, pauses_b, resumes_a, resumes_b, frames_a, frames_b
  s.s.ctr[6] = 3;         // bcube_port
  kernel_write_tel(plane_->fd(), *t);

  std::string out, err;
  ASSERT_EQ(run({"--plane", path_, "status"}, &out, &err), 0) << err;
  for (const char *part : {"scheme portfc telemetry", "pauses_a 10", "pauses_b 11",
                           "resumes_a 12", "resumes_b 13", "frames_a 14", "frames_b 15",
                           "bcube_port 3"})
    EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out;
  ASSERT_EQ(run({"--plane", path_, "status", "--json"}, &out, &err), 0) << err;
  const auto ss = nlohmann::json::parse(out)["pools"][0]["ports"][0]["scheme_stats"];
  EXPECT_EQ(ss["scheme"], "portfc");
  EXPECT_EQ(ss["pauses_a"], 10);
  EXPECT_EQ(ss["frames_b"], 15);
  EXPECT_EQ(ss["bcube_port"], 3);
}

}  // namespace
