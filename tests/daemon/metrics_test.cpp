// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's Prometheus endpoint (daemon/losslessd/metrics.h): the text
// renderer against a hand-filled telemetry snapshot, line by line, and the
// HTTP server through real loopback TCP connections.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "metrics.h"

namespace {

namespace ld = lossless::daemon;
namespace lm = lossless::daemon::metrics;
using namespace std::chrono_literals;

std::unique_ptr<lossless_plane_tel> sample_tel()
{
  auto t = std::make_unique<lossless_plane_tel>();
  t->magic = LOSSLESS_PLANE_MAGIC;
  t->version = LOSSLESS_PLANE_VERSION;
  std::strcpy(t->pool, "sw0");
  t->snapshots = 1234;
  t->interval_us = 1000;
  t->applied_gen = 7;
  t->apply_error = -16;  // EBUSY
  t->nr_ports = 3;       // slot 1 is empty
  t->lossless_mask = 1u << 3;
  t->alpha = (1u << 8) | 3;      // 1/8
  t->egress_alpha = (3u << 8) | 2;  // 3/4
  t->xon_offset_bytes = 3036;
  t->reserved_bytes = 1518;
  t->total_bytes = 2097152;
  t->reserved_size = 24288;
  t->shared_size = 1800000;
  t->headroom_size = 272864;
  t->reserved_used = 1518;
  t->shared_used = 123456;
  t->headroom_used = 4000;
  t->peak_shared = 654321;
  t->peak_headroom = 9000;
  t->admitted_packets = 1000000;
  t->admitted_bytes = 1042000000;
  t->drops_lossless = 0;
  t->drops_lossy = 17;
  t->paused_queues = 1;
  // Slot 0 runs Bifrost (its counters named by the mode's descriptor).
  t->mode[0].mode = LOSSLESS_MODE_BIFROST;
  for (unsigned i = 0; i < LOSSLESS_MODE_STATS; i++)
    t->mode[0].ctr[i] = 100 + i;
  t->mode[0].ctr[3] = 1500000000;   // pause: 1.5 s
  t->mode[0].ctr[12] = 2500000;     // max_late: 2.5 ms
  t->mode[0].late_hist[0] = 7;      // < 1 us
  t->mode[0].late_hist[3] = 2;      // 4 .. 8 us
  t->mode[0].late_hist[LOSSLESS_MODE_HIST - 1] = 1;  // the open one
  t->mode[0].prio[0][3] = 64000;    // tokens of priority 3
  t->mode[0].prio[1][3] = 5;        // cut_slots
  auto &a = t->ports[0];
  a.ifindex = 5;
  a.paused_mask = (1u << 3) | (1u << 8);
  a.rate_bps = 100000000;
  a.tx_packets = 500;
  a.tx_bytes = 521000;
  a.qdisc_drops = 2;
  a.pfc_frames_tx = 11;
  a.pfc_frames_rx = 12;
  a.pause_frames_rx = 13;
  a.ecn_marks = 14;
  a.egress_bytes = 3000;
  a.headroom_bytes = 136432;
  t->premise[0].xoff_response_last_ns = 1200000;
  t->premise[0].xoff_response_max_ns = 3400000;
  t->premise[0].xoff_responses = 42;
  t->premise[0].headroom_warnings = 3;
  auto &q = a.iq[3];
  q.bytes = 70000;
  q.headroom_used = 4000;
  q.headroom_size = 136432;
  q.peak_bytes = 80000;
  q.peak_headroom = 9000;
  q.threshold = 66000;
  q.xoff_frames = 11;
  q.xon_frames = 10;
  q.paused_ns = 1500000000;  // 1.5 s
  q.drops = 0;
  q.paused = 1;
  q.lossless = 1;
  a.iq[0].bytes = 100;
  a.iq[0].drops = 17;
  a.catchup_bytes = 12500;         // 1 ms at 100 Mbit/s
  a.shaper_lost_ns = 2500000;      // 2.5 ms
  a.wake_late_max_ns = 3000000;    // 3 ms
  a.wake_late[0] = 900;            // < 1.024 us
  a.wake_late[5] = 90;             // 16.384 .. 32.768 us
  a.wake_late[12] = 9;             // 2.097152 .. 4.194304 ms
  a.wake_late[LOSSLESS_LATENESS_BUCKETS - 1] = 1;  // >= 268.435456 ms
  auto &b = t->ports[2];
  b.ifindex = 9;  // not in the name map: "if9"
  b.rate_bps = 1000000000;
  b.iq[3].lossless = 1;
  b.iq[3].paused_ns = 2000000001;
  return t;
}

std::vector<std::string> lines_of(const std::string &text)
{
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

class Render : public ::testing::Test {
 protected:
  void SetUp() override
  {
    tel_ = sample_tel();
    lm::DaemonCounters dc;
    dc.pushes = 3;
    dc.refusals = 1;
    dc.last_push_latency = 2500us;
    dc.foreign = {{"alpha", "tc", "adopted", 2}, {"headroom", "plane", "reverted", 1}};
    dc.sw_delay_ns = {{5, 7500000}};
    lm::DaemonStats ds;
    ds.ticks = 99;
    ds.busy = 1234567ns;
    text_ = lm::render({{tel_.get(), dc}}, {{5, "swp1"}}, ds);
    lines_ = lines_of(text_);
  }
  bool has(const std::string &line) const
  {
    return std::find(lines_.begin(), lines_.end(), line) != lines_.end();
  }
  std::unique_ptr<lossless_plane_tel> tel_;
  std::string text_;
  std::vector<std::string> lines_;
};

TEST_F(Render, StartsWithTheBufferFamily)
{
  ASSERT_GE(lines_.size(), 6u);
  EXPECT_EQ(lines_[0], "# HELP lossless_pool_buffer_bytes The pool's byte budget (tc buffer).");
  EXPECT_EQ(lines_[1], "# TYPE lossless_pool_buffer_bytes gauge");
  EXPECT_EQ(lines_[2], "lossless_pool_buffer_bytes{pool=\"sw0\"} 2097152");
  EXPECT_EQ(lines_[3], "# HELP lossless_pool_shared_size_bytes Size of the pool's shared region.");
  EXPECT_EQ(lines_[4], "# TYPE lossless_pool_shared_size_bytes gauge");
  EXPECT_EQ(lines_[5], "lossless_pool_shared_size_bytes{pool=\"sw0\"} 1800000");
  EXPECT_EQ(text_.back(), '\n');
}

TEST_F(Render, PoolLines)
{
  for (const char *l : {
           "lossless_pool_shared_used_bytes{pool=\"sw0\"} 123456",
           "lossless_pool_shared_peak_bytes{pool=\"sw0\"} 654321",
           "lossless_pool_headroom_size_bytes{pool=\"sw0\"} 272864",
           "lossless_pool_headroom_used_bytes{pool=\"sw0\"} 4000",
           "lossless_pool_headroom_peak_bytes{pool=\"sw0\"} 9000",
           "lossless_pool_reserved_size_bytes{pool=\"sw0\"} 24288",
           "lossless_pool_reserved_used_bytes{pool=\"sw0\"} 1518",
           "# TYPE lossless_pool_admitted_packets_total counter",
           "lossless_pool_admitted_packets_total{pool=\"sw0\"} 1000000",
           "lossless_pool_admitted_bytes_total{pool=\"sw0\"} 1042000000",
           "# TYPE lossless_pool_drops_total counter",
           "lossless_pool_drops_total{pool=\"sw0\",class=\"lossless\"} 0",
           "lossless_pool_drops_total{pool=\"sw0\",class=\"lossy\"} 17",
           "lossless_pool_paused_queues{pool=\"sw0\"} 1",
           "lossless_pool_ports{pool=\"sw0\"} 2",
           "lossless_pool_alpha{pool=\"sw0\"} 0.125",
           "lossless_pool_egress_alpha{pool=\"sw0\"} 0.75",
           "lossless_pool_xon_offset_bytes{pool=\"sw0\"} 3036",
           "lossless_pool_reserved_per_queue_bytes{pool=\"sw0\"} 1518",
           "lossless_pool_telemetry_interval_seconds{pool=\"sw0\"} 0.001",
           "lossless_pool_snapshots_total{pool=\"sw0\"} 1234",
           "lossless_pool_control_generation{pool=\"sw0\"} 7",
           "lossless_pool_control_error{pool=\"sw0\"} 16",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
}

TEST_F(Render, DaemonLines)
{
  for (const char *l : {
           "# TYPE lossless_daemon_pushes_total counter",
           "lossless_daemon_pushes_total{pool=\"sw0\"} 3",
           "lossless_daemon_refusals_total{pool=\"sw0\"} 1",
           "# TYPE lossless_daemon_last_push_latency_seconds gauge",
           "lossless_daemon_last_push_latency_seconds{pool=\"sw0\"} 0.0025",
           "lossless_daemon_ticks_total 99",
           "lossless_daemon_busy_seconds_total 0.001234567",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
}

// Ownership (docs/DAEMON.md) and the headroom's premise (docs/RELIABILITY.md).
TEST_F(Render, ForeignChangesAndThePremise)
{
  for (const char *l : {
           "# TYPE lossless_daemon_foreign_changes_total counter",
           "lossless_daemon_foreign_changes_total{pool=\"sw0\",setting=\"alpha\",source=\"tc\","
           "action=\"adopted\"} 2",
           "lossless_daemon_foreign_changes_total{pool=\"sw0\",setting=\"headroom\",source=\"plane\","
           "action=\"reverted\"} 1",
           "# TYPE lossless_daemon_sw_delay_seconds gauge",
           "lossless_daemon_sw_delay_seconds{pool=\"sw0\",dev=\"swp1\"} 0.0075",
           "# TYPE lossless_port_xoff_response_last_seconds gauge",
           "lossless_port_xoff_response_last_seconds{pool=\"sw0\",dev=\"swp1\"} 0.0012",
           "lossless_port_xoff_response_max_seconds{pool=\"sw0\",dev=\"swp1\"} 0.0034",
           "# TYPE lossless_port_xoff_responses_total counter",
           "lossless_port_xoff_responses_total{pool=\"sw0\",dev=\"swp1\"} 42",
           "# TYPE lossless_port_headroom_warnings_total counter",
           "lossless_port_headroom_warnings_total{pool=\"sw0\",dev=\"swp1\"} 3",
           "lossless_port_headroom_warnings_total{pool=\"sw0\",dev=\"if9\"} 0",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
  EXPECT_EQ(text_.find("lossless_daemon_sw_delay_seconds{pool=\"sw0\",dev=\"if9\"}"),
            std::string::npos)
      << "a port the daemon does not configure has no delay of its";
}

TEST_F(Render, PortLines)
{
  for (const char *l : {
           "lossless_port_line_rate_bits_per_second{pool=\"sw0\",dev=\"swp1\"} 100000000",
           "lossless_port_line_rate_bits_per_second{pool=\"sw0\",dev=\"if9\"} 1000000000",
           "# TYPE lossless_port_tx_packets_total counter",
           "lossless_port_tx_packets_total{pool=\"sw0\",dev=\"swp1\"} 500",
           "lossless_port_tx_bytes_total{pool=\"sw0\",dev=\"swp1\"} 521000",
           "lossless_port_qdisc_drops_total{pool=\"sw0\",dev=\"swp1\"} 2",
           "lossless_port_pfc_tx_frames_total{pool=\"sw0\",dev=\"swp1\"} 11",
           "lossless_port_pfc_rx_frames_total{pool=\"sw0\",dev=\"swp1\"} 12",
           "lossless_port_pause_rx_frames_total{pool=\"sw0\",dev=\"swp1\"} 13",
           "lossless_port_ecn_marks_total{pool=\"sw0\",dev=\"swp1\"} 14",
           "# TYPE lossless_port_egress_bytes gauge",
           "lossless_port_egress_bytes{pool=\"sw0\",dev=\"swp1\"} 3000",
           "lossless_port_headroom_bytes{pool=\"sw0\",dev=\"swp1\"} 136432",
           "lossless_port_paused_by_peer{pool=\"sw0\",dev=\"swp1\",prio=\"2\"} 0",
           "lossless_port_paused_by_peer{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1",
           "lossless_port_paused_by_peer{pool=\"sw0\",dev=\"swp1\",prio=\"all\"} 1",
           "lossless_port_paused_by_peer{pool=\"sw0\",dev=\"if9\",prio=\"all\"} 0",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
}

TEST_F(Render, IngressLines)
{
  for (const char *l : {
           "lossless_ingress_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 70000",
           "lossless_ingress_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"0\"} 100",
           "lossless_ingress_drops_total{pool=\"sw0\",dev=\"swp1\",prio=\"0\"} 17",
           "lossless_ingress_peak_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 80000",
           "lossless_ingress_headroom_used_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 4000",
           "lossless_ingress_headroom_size_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 136432",
           "lossless_ingress_headroom_peak_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 9000",
           "lossless_ingress_threshold_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 66000",
           "# TYPE lossless_ingress_xoff_frames_total counter",
           "lossless_ingress_xoff_frames_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 11",
           "lossless_ingress_xon_frames_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 10",
           "# TYPE lossless_ingress_paused_seconds_total counter",
           "lossless_ingress_paused_seconds_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1.5",
           "lossless_ingress_paused_seconds_total{pool=\"sw0\",dev=\"if9\",prio=\"3\"} 2.000000001",
           "lossless_ingress_paused{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1",
           "lossless_ingress_paused{pool=\"sw0\",dev=\"if9\",prio=\"3\"} 0",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
  // Lossy priorities: bytes and drops only.
  EXPECT_FALSE(has("lossless_ingress_paused{pool=\"sw0\",dev=\"swp1\",prio=\"0\"} 0"));
  EXPECT_EQ(text_.find("headroom_size_bytes{pool=\"sw0\",dev=\"swp1\",prio=\"4\"}"),
            std::string::npos);
}

TEST_F(Render, ShaperAndTimerLines)
{
  for (const char *l : {
           "# TYPE lossless_port_shaper_catchup_bytes gauge",
           "lossless_port_shaper_catchup_bytes{pool=\"sw0\",dev=\"swp1\"} 12500",
           "lossless_port_shaper_catchup_bytes{pool=\"sw0\",dev=\"if9\"} 0",
           "# TYPE lossless_port_shaper_lost_seconds_total counter",
           "lossless_port_shaper_lost_seconds_total{pool=\"sw0\",dev=\"swp1\"} 0.0025",
           "# TYPE lossless_port_wake_lateness_max_seconds gauge",
           "lossless_port_wake_lateness_max_seconds{pool=\"sw0\",dev=\"swp1\"} 0.003",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text_;
}

// The lateness histogram of a port, whole and in order: the buckets' upper
// bounds in seconds, cumulative counts, +Inf (the last bucket has no upper
// bound) and _count; no _sum, which the datapath does not keep.
TEST_F(Render, WakeLatenessIsAPrometheusHistogram)
{
  std::vector<std::string> swp1;
  for (const auto &l : lines_)
    if (l.find("lossless_port_wake_lateness_seconds") != std::string::npos &&
        (l[0] == '#' || l.find("dev=\"swp1\"") != std::string::npos))
      swp1.push_back(l);
  const std::string b = "lossless_port_wake_lateness_seconds_bucket{pool=\"sw0\",dev=\"swp1\",le=";
  std::vector<std::string> want = {
      "# HELP lossless_port_wake_lateness_seconds How late the qdisc's timed wake-ups ran (log2 "
      "buckets; no _sum: the datapath keeps none).",
      "# TYPE lossless_port_wake_lateness_seconds histogram",
      b + "\"0.000001024\"} 900",
      b + "\"0.000002048\"} 900",
      b + "\"0.000004096\"} 900",
      b + "\"0.000008192\"} 900",
      b + "\"0.000016384\"} 900",
      b + "\"0.000032768\"} 990",
      b + "\"0.000065536\"} 990",
      b + "\"0.000131072\"} 990",
      b + "\"0.000262144\"} 990",
      b + "\"0.000524288\"} 990",
      b + "\"0.001048576\"} 990",
      b + "\"0.002097152\"} 990",
      b + "\"0.004194304\"} 999",
      b + "\"0.008388608\"} 999",
      b + "\"0.016777216\"} 999",
      b + "\"0.033554432\"} 999",
      b + "\"0.067108864\"} 999",
      b + "\"0.134217728\"} 999",
      b + "\"0.268435456\"} 999",
      b + "\"+Inf\"} 1000",
      "lossless_port_wake_lateness_seconds_count{pool=\"sw0\",dev=\"swp1\"} 1000",
  };
  EXPECT_EQ(swp1, want) << text_;
  EXPECT_TRUE(has("lossless_port_wake_lateness_seconds_bucket{pool=\"sw0\",dev=\"if9\",le=\"+Inf\"} 0"));
  EXPECT_TRUE(has("lossless_port_wake_lateness_seconds_count{pool=\"sw0\",dev=\"if9\"} 0"));
  EXPECT_EQ(text_.find("lossless_port_wake_lateness_seconds_sum"), std::string::npos);
}

// The exposition format's structure: every family is one block, HELP then
// TYPE then its samples, each family once; counters end in _total; every
// sample line is NAME{LABELS} VALUE with a number, NAME the family's (a
// histogram's with _bucket, whose le label comes last, or _count).
TEST_F(Render, IsWellFormedExposition)
{
  std::regex sample(R"(^([a-z_]+)(\{([a-z]+="[^"]*")(,[a-z]+="[^"]*")*\})? [0-9]+(\.[0-9]+)?$)");
  std::set<std::string> seen;
  std::string current;
  bool histogram = false;
  for (std::size_t i = 0; i < lines_.size(); i++) {
    const std::string &l = lines_[i];
    if (l.rfind("# HELP ", 0) == 0) {
      std::string name = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(seen.insert(name).second) << "family twice: " << name;
      ASSERT_LT(i + 1, lines_.size());
      std::string type = lines_[i + 1];
      EXPECT_TRUE(type == "# TYPE " + name + " gauge" || type == "# TYPE " + name + " counter" ||
                  type == "# TYPE " + name + " histogram")
          << type;
      bool counter = type.ends_with(" counter");
      EXPECT_EQ(counter, name.ends_with("_total")) << name;
      histogram = type.ends_with(" histogram");
      current = name;
      i++;
      continue;
    }
    std::smatch m;
    ASSERT_TRUE(std::regex_match(l, m, sample)) << "line " << i << ": " << l;
    if (histogram) {
      EXPECT_TRUE(m[1].str() == current + "_bucket" || m[1].str() == current + "_count")
          << "a sample outside its family block: " << l;
      if (m[1].str() == current + "_bucket") {
        EXPECT_NE(l.find(",le=\""), std::string::npos) << l;
      }
    } else {
      EXPECT_EQ(m[1].str(), current) << "a sample outside its family block: " << l;
    }
  }
  EXPECT_GE(seen.size(), 49u);
}

// The PFC watchdog, per port and priority: with an action, every lossless
// priority (zeros included, so increase() has a start); without, only a
// priority that has counted something.
TEST(RenderWatchdog, PerPortAndPriority)
{
  auto t = sample_tel();
  auto &a = t->ports[0];  // swp1: action drop, lossless priority 3 in storm
  a.wd_action = LOSSLESS_WD_DROP;
  a.wd_storm_mask = 1u << 3;
  a.wd[3] = {.storm = 1, .xoff_alarm = 0, .pad = 0, .storms = 2, .restores = 1, .xoff_alarms = 0, .dropped = 120, .storm_ns = 1500000000, .xoff_ns = 0};
  auto &b = t->ports[2];  // if9: no action; an XOFF alarm on priority 5
  b.wd_alarm_mask = 1u << 5;
  b.wd[5] = {.storm = 0, .xoff_alarm = 1, .pad = 0, .storms = 0, .restores = 0, .xoff_alarms = 3, .dropped = 0, .storm_ns = 0, .xoff_ns = 2000000001};
  std::string text = lm::render({{t.get(), std::nullopt}}, {{5, "swp1"}});
  std::vector<std::string> lines = lines_of(text);
  auto has = [&](const std::string &l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  for (const char *l : {
           "# HELP lossless_pfcwd_storm 1 while the PFC watchdog holds the priority in storm: paused "
           "by the peer with packets waiting for the detection time, until no XOFF came for the "
           "restoration time.",
           "# TYPE lossless_pfcwd_storm gauge",
           "lossless_pfcwd_storm{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1",
           "# TYPE lossless_pfcwd_storms_total counter",
           "lossless_pfcwd_storms_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 2",
           "# TYPE lossless_pfcwd_restores_total counter",
           "lossless_pfcwd_restores_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1",
           "# TYPE lossless_pfcwd_dropped_packets_total counter",
           "lossless_pfcwd_dropped_packets_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 120",
           "# TYPE lossless_pfcwd_storm_seconds_total counter",
           "lossless_pfcwd_storm_seconds_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 1.5",
           "# TYPE lossless_pfcwd_xoff_alarm gauge",
           "lossless_pfcwd_xoff_alarm{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 0",
           "# TYPE lossless_pfcwd_xoff_alarms_total counter",
           "lossless_pfcwd_xoff_alarms_total{pool=\"sw0\",dev=\"swp1\",prio=\"3\"} 0",
           "lossless_pfcwd_storm{pool=\"sw0\",dev=\"if9\",prio=\"5\"} 0",
           "lossless_pfcwd_storm_seconds_total{pool=\"sw0\",dev=\"if9\",prio=\"5\"} 0",
           "lossless_pfcwd_xoff_alarm{pool=\"sw0\",dev=\"if9\",prio=\"5\"} 1",
           "lossless_pfcwd_xoff_alarms_total{pool=\"sw0\",dev=\"if9\",prio=\"5\"} 3",
       })
    EXPECT_TRUE(has(l)) << l << "\n--- in ---\n" << text;
  // swp1's lossy priorities, if9's lossless 3 (no action, nothing counted).
  EXPECT_EQ(text.find("lossless_pfcwd_storm{pool=\"sw0\",dev=\"swp1\",prio=\"0\"}"), std::string::npos);
  EXPECT_EQ(text.find("lossless_pfcwd_storm{pool=\"sw0\",dev=\"if9\",prio=\"3\"}"), std::string::npos);
  std::size_t n = 0;
  for (const auto &l : lines)
    n += l.rfind("lossless_pfcwd_", 0) == 0;
  EXPECT_EQ(n, 14u) << "7 families x (swp1/3, if9/5)\n" << text;
  // The families come last among the fixed ones (a port mode's, named at
  // run time, follow them), in the documented order.
  std::vector<std::string> order;
  for (const auto &l : lines)
    if (l.rfind("# TYPE lossless_", 0) == 0 && l.rfind("# TYPE lossless_port_mode_", 0) != 0)
      order.push_back(l.substr(7, l.find(' ', 7) - 7));
  ASSERT_GE(order.size(), 7u);
  EXPECT_EQ(std::vector<std::string>(order.end() - 7, order.end()),
            (std::vector<std::string>{"lossless_pfcwd_storm", "lossless_pfcwd_storms_total",
                                      "lossless_pfcwd_restores_total",
                                      "lossless_pfcwd_dropped_packets_total",
                                      "lossless_pfcwd_storm_seconds_total", "lossless_pfcwd_xoff_alarm",
                                      "lossless_pfcwd_xoff_alarms_total"}));
}

// Off and never counted (every port of sample_tel()): no family at all.
TEST(RenderWatchdog, NothingWhileOffAndUncounted)
{
  auto t = sample_tel();
  EXPECT_EQ(lm::render({{t.get(), std::nullopt}}, {}).find("pfcwd"), std::string::npos);
  // An action on a port whose pool has no lossless priority: nothing yet.
  t->lossless_mask = 0;
  for (auto &q : t->ports[0].iq)
    q.lossless = 0;
  t->ports[0].wd_action = LOSSLESS_WD_ALERT;
  EXPECT_EQ(lm::render({{t.get(), std::nullopt}}, {}).find("pfcwd"), std::string::npos);
}

TEST(RenderEdge, EscapesLabelValuesAndSkipsEmptyFamilies)
{
  auto t = std::make_unique<lossless_plane_tel>();
  std::strcpy(t->pool, "a\"b\\c");
  t->nr_ports = 1;
  t->ports[0].ifindex = 3;
  std::string text = lm::render({{t.get(), std::nullopt}}, {{3, "we\nird"}});
  EXPECT_NE(text.find("lossless_pool_shared_used_bytes{pool=\"a\\\"b\\\\c\"} 0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("dev=\"we\\nird\""), std::string::npos);
  // No daemon counters given: their families are left out entirely.
  EXPECT_EQ(text.find("lossless_daemon_"), std::string::npos);
  EXPECT_EQ(lm::render({}, {}), "");
  EXPECT_EQ(lm::render({{nullptr, std::nullopt}}, {}), "");
}

TEST(ListenAddress, ParsesV4AndV6AndRefusesTheRest)
{
  EXPECT_EQ(ld::parse_listen_address("127.0.0.1:9464").port(), 9464);
  EXPECT_TRUE(ld::parse_listen_address("[::1]:9464").address().is_v6());
  for (const char *bad : {"127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "localhost:9464",
                          "[::1]9464", "::1:9464x", "[::1", ":80", "1.2.3.4:-1"})
    EXPECT_THROW(ld::parse_listen_address(bad), std::runtime_error) << bad;
}

// ---------------------------------------------------------------------------
// The server, over loopback TCP.

class Server : public ::testing::Test {
 protected:
  void SetUp() override
  {
    server_ = std::make_unique<ld::MetricsServer>(io_, "127.0.0.1:0", [this] {
      renders_++;
      return std::string("lossless_test 1\n");
    });
    port_ = server_->port();
    ASSERT_NE(port_, 0);
    work_.emplace(io_.get_executor());
    thread_ = std::thread([this] { io_.run(); });
  }
  void TearDown() override
  {
    // Destroy the server on the loop's thread, then stop the loop.
    boost::asio::post(io_, [this] { server_.reset(); work_.reset(); });
    thread_.join();
  }

  int connect_once()
  {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port_);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)), 0) << std::strerror(errno);
    return fd;
  }
  // Sends req, reads until the server closes; closed = it did close (EOF)
  // rather than time out.
  std::string exchange(const std::string &req, bool *closed = nullptr)
  {
    int fd = connect_once();
    std::size_t off = 0;
    while (off < req.size()) {
      ssize_t n = send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
      if (n <= 0)
        break;
      off += n;
    }
    std::string out;
    char buf[4096];
    bool eof = false;
    for (;;) {
      ssize_t n = recv(fd, buf, sizeof(buf), 0);
      if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        eof = true;
        break;
      }
      if (n < 0)
        break;  // timeout
      out.append(buf, n);
    }
    close(fd);
    if (closed)
      *closed = eof;
    return out;
  }

  boost::asio::io_context io_;
  std::unique_ptr<ld::MetricsServer> server_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::thread thread_;
  std::uint16_t port_ = 0;
  std::atomic<int> renders_{0};
};

TEST_F(Server, GetMetricsAnswers200WithTheText)
{
  bool closed = false;
  std::string r = exchange("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n", &closed);
  EXPECT_TRUE(closed) << "the server closes after one answer";
  EXPECT_EQ(r.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("\r\nContent-Length: 16\r\n"), std::string::npos) << r;
  EXPECT_EQ(r.substr(r.find("\r\n\r\n") + 4), "lossless_test 1\n");
  EXPECT_EQ(renders_, 1);
  // A query string is ignored; HEAD gets the headers only.
  EXPECT_EQ(exchange("GET /metrics?x=1 HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 200 OK\r\n", 0), 0u);
  r = exchange("HEAD /metrics HTTP/1.0\r\n\r\n");
  EXPECT_EQ(r.rfind("HTTP/1.0 200 OK\r\n", 0), 0u);
  EXPECT_TRUE(r.ends_with("\r\n\r\n")) << r;
}

TEST_F(Server, OtherPathsAre404)
{
  bool closed = false;
  std::string r = exchange("GET /x HTTP/1.0\r\n\r\n", &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(r.rfind("HTTP/1.0 404 Not Found\r\n", 0), 0u) << r;
  EXPECT_EQ(exchange("GET / HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_EQ(exchange("GET /metricsx HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 404", 0), 0u);
  EXPECT_EQ(exchange("POST /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 405", 0), 0u);
  EXPECT_EQ(renders_, 0);
}

TEST_F(Server, GarbageIsClosedAndTheServerKeepsServing)
{
  bool closed = false;
  std::string r = exchange(std::string("\x01\x02\xff garbage\r\n\r\n", 15), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(r.rfind("HTTP/1.0 400", 0), 0u) << r;
  // Too long without an end of headers: answered and closed at the bound.
  // (Exactly the bound: more would be unread at the close, and a TCP reset
  // could overtake the answer.)
  r = exchange(std::string(ld::MetricsServer::kMaxRequestBytes, 'A'), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(r.rfind("HTTP/1.0 431", 0), 0u) << r.substr(0, 100);
  // A client that sends half a request and leaves.
  int fd = connect_once();
  send(fd, "GET /met", 8, MSG_NOSIGNAL);
  close(fd);
  // A client that connects and leaves at once.
  close(connect_once());
  // Still serving.
  r = exchange("GET /metrics HTTP/1.0\r\n\r\n", &closed);
  EXPECT_EQ(r.rfind("HTTP/1.0 200 OK\r\n", 0), 0u) << r;
  EXPECT_TRUE(closed);
}

TEST_F(Server, ManyClientsAtOnce)
{
  std::vector<std::thread> clients;
  std::atomic<int> ok{0};
  for (int i = 0; i < 16; i++)
    clients.emplace_back([&] {
      if (exchange("GET /metrics HTTP/1.0\r\n\r\n").rfind("HTTP/1.0 200 OK\r\n", 0) == 0)
        ok++;
    });
  for (auto &c : clients)
    c.join();
  EXPECT_EQ(ok, 16);
}

TEST(ServerSetup, ABusyAddressIsAClearError)
{
  boost::asio::io_context io;
  ld::MetricsServer a(io, "127.0.0.1:0", [] { return std::string(); });
  std::string addr = "127.0.0.1:" + std::to_string(a.port());
  try {
    ld::MetricsServer b(io, addr, [] { return std::string(); });
    FAIL() << "two servers on one port";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("prometheus " + addr + ": cannot listen"),
              std::string::npos)
        << e.what();
  }
}

TEST(ServerSetup, DestroyedWithAConnectionOpen)
{
  boost::asio::io_context io;
  auto s = std::make_unique<ld::MetricsServer>(io, "127.0.0.1:0", [] { return std::string("x\n"); });
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(s->port());
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)), 0);
  send(fd, "GET /metrics", 12, MSG_NOSIGNAL);
  io.run_for(100ms);  // accepted, reading
  s.reset();
  io.run_for(100ms);
  close(fd);
  io.run_for(100ms);
  SUCCEED();
}

TEST(ServerSetup, ListensOnIPv6Loopback)
{
  boost::asio::io_context io;
  std::unique_ptr<ld::MetricsServer> s;
  try {
    s = std::make_unique<ld::MetricsServer>(io, "[::1]:0", [] { return std::string("v6 1\n"); });
  } catch (const std::runtime_error &e) {
    GTEST_SKIP() << "no IPv6 loopback here: " << e.what();
  }
  std::uint16_t port = s->port();
  std::thread t([&] { io.run_for(2s); });
  int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in6 sa{};
  sa.sin6_family = AF_INET6;
  sa.sin6_port = htons(port);
  sa.sin6_addr = in6addr_loopback;
  int rc = connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa));
  std::string out;
  if (rc == 0) {
    const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
    send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
    char buf[512];
    for (ssize_t n; (n = recv(fd, buf, sizeof(buf), 0)) > 0;)
      out.append(buf, n);
  }
  close(fd);
  io.stop();
  t.join();
  ASSERT_EQ(rc, 0) << std::strerror(errno);
  EXPECT_TRUE(out.ends_with("\r\n\r\nv6 1\n")) << out;
}

}  // namespace

namespace {

// The pool's scheme: an info line and one line per parameter of its row.
TEST(Scheme, InfoAndParameters)
{
  auto t = sample_tel();
  std::string dt = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_NE(dt.find("lossless_pool_scheme_info{pool=\"sw0\",scheme=\"dt\"} 1\n"), std::string::npos);
  EXPECT_EQ(dt.find("lossless_pool_scheme_param{"), std::string::npos) << "dt has none";
  t->scheme.id = LOSSLESS_SCHEME_ST;
  t->scheme.p.st.threshold_bytes = 131072;
  std::string st = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_NE(st.find("lossless_pool_scheme_info{pool=\"sw0\",scheme=\"st\"} 1\n"), std::string::npos);
  EXPECT_NE(st.find("lossless_pool_scheme_param{pool=\"sw0\",scheme=\"st\",param=\"threshold\"} "
                    "131072\n"),
            std::string::npos);
}

}  // namespace

namespace {

// A DSH or SPFC pool's telemetry per port: families named from the
// scheme's tables (scheme_types.h), with the units' suffixes; lossless
// priorities only; none for DT.
TEST_F(Render, ModeCountersFromTheModesTables)
{
  for (const char *line :
       {"# TYPE lossless_port_mode_slots_total counter\n"
        "lossless_port_mode_slots_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 100\n",
        "lossless_port_mode_frames_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 101\n",
        "lossless_port_mode_pause_seconds_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 1.5\n",
        "lossless_port_mode_leak_bytes_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 106\n",
        "# TYPE lossless_port_mode_max_queue_bytes gauge\n"
        "lossless_port_mode_max_queue_bytes{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 108\n",
        "# TYPE lossless_port_mode_max_late_seconds gauge\n"
        "lossless_port_mode_max_late_seconds{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 0.0025\n",
        "lossless_port_mode_wakes_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 113\n",
        "# TYPE lossless_port_mode_lateness_seconds histogram\n"
        "lossless_port_mode_lateness_seconds_bucket{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\","
        "le=\"0.000001\"} 7\n",
        "lossless_port_mode_lateness_seconds_bucket{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\","
        "le=\"0.000008\"} 9\n",
        "lossless_port_mode_lateness_seconds_bucket{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\","
        "le=\"+Inf\"} 10\n",
        "lossless_port_mode_lateness_seconds_count{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\"} 10\n",
        // Per lossless priority, from the mode's prio_stats.
        "# TYPE lossless_port_mode_prio_tokens_bytes_total counter\n"
        "lossless_port_mode_prio_tokens_bytes_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\","
        "prio=\"3\"} 64000\n",
        "# TYPE lossless_port_mode_prio_cut_slots_total counter\n"
        "lossless_port_mode_prio_cut_slots_total{pool=\"sw0\",dev=\"swp1\",mode=\"bifrost\","
        "prio=\"3\"} 5\n"})
    EXPECT_NE(text_.find(line), std::string::npos) << line << text_;
  EXPECT_EQ(text_.find("mode=\"bifrost\"} 0\n"), std::string::npos);
  EXPECT_EQ(text_.find("dev=\"if9\",mode="), std::string::npos) << "a port without a mode has none";
  EXPECT_EQ(text_.find("mode=\"bifrost\",prio=\"4\""), std::string::npos) << "lossless priorities only";
}

TEST(Scheme, TelemetryFamiliesFromTheSchemeTables)
{
  auto t = sample_tel();
  std::string dt = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_EQ(dt.find("lossless_dsh_"), std::string::npos);
  EXPECT_EQ(dt.find("lossless_spfc_"), std::string::npos);

  t->scheme.id = LOSSLESS_SCHEME_DSH;
  auto &d = t->sch[0].s;
  d.scheme = LOSSLESS_SCHEME_DSH;
  d.masks = (1u << 3) | (1u << 3 << 8);
  d.ctr[0] = 12;
  d.ctr[1] = 1;
  d.ctr[3] = 16384;
  d.prio[3] = 1500;
  t->sch[0].prio2[3] = 2000;
  std::string dsh = lm::render({{t.get(), std::nullopt}}, {{5, "sw0p1"}});
  for (const char *line :
       {"# TYPE lossless_dsh_port_qoff_pauses_total counter\n"
        "lossless_dsh_port_qoff_pauses_total{pool=\"sw0\",dev=\"sw0p1\"} 12\n",
        "lossless_dsh_port_poff_pauses_total{pool=\"sw0\",dev=\"sw0p1\"} 1\n",
        "# TYPE lossless_dsh_port_insurance_peak_bytes gauge\n"
        "lossless_dsh_port_insurance_peak_bytes{pool=\"sw0\",dev=\"sw0p1\"} 16384\n",
        "lossless_dsh_port_port_shared_bytes{pool=\"sw0\",dev=\"sw0p1\"} 0\n",
        "lossless_dsh_ingress_qoff{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 1\n",
        "lossless_dsh_ingress_poff{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 1\n",
        "lossless_dsh_ingress_single_queue{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 0\n",
        "lossless_dsh_ingress_tau_bytes{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 1500\n",
        "lossless_dsh_ingress_phi_hat_bytes{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 2000\n"})
    EXPECT_NE(dsh.find(line), std::string::npos) << line << dsh;
  EXPECT_EQ(dsh.find("lossless_dsh_ingress_tau_bytes{pool=\"sw0\",dev=\"sw0p1\",prio=\"0\"}"),
            std::string::npos)
      << "lossy priorities have none";
  EXPECT_EQ(dsh.find("lossless_dsh_port_qoff_pauses_total{pool=\"sw0\",dev=\"if9\"}"),
            std::string::npos)
      << "a slot without the block has none";

  t->scheme.id = LOSSLESS_SCHEME_SPFC;
  d = {};
  d.scheme = LOSSLESS_SCHEME_SPFC;
  d.masks = 1u << 3;
  d.ctr[0] = 5;
  d.ctr[2] = 1500000000;  // victim_time: 1.5 s
  d.ctr[6] = 250000;
  d.prio[3] = 260000;
  t->sch[0].prio2[3] = 7000;
  std::string spfc = lm::render({{t.get(), std::nullopt}}, {{5, "sw0p1"}});
  for (const char *line :
       {"lossless_spfc_port_to_victim_total{pool=\"sw0\",dev=\"sw0p1\"} 5\n",
        "# TYPE lossless_spfc_port_victim_time_seconds_total counter\n"
        "lossless_spfc_port_victim_time_seconds_total{pool=\"sw0\",dev=\"sw0p1\"} 1.5\n",
        "lossless_spfc_port_pauses_victim_total{pool=\"sw0\",dev=\"sw0p1\"} 0\n",
        "lossless_spfc_port_trigger_peak_bytes{pool=\"sw0\",dev=\"sw0p1\"} 0\n",
        "# TYPE lossless_spfc_port_irc_threshold gauge\n"
        "lossless_spfc_port_irc_threshold{pool=\"sw0\",dev=\"sw0p1\"} 250000\n",
        "lossless_spfc_ingress_victim{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 1\n",
        "lossless_spfc_ingress_sh{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 0\n",
        "lossless_spfc_ingress_last_window{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 260000\n",
        "lossless_spfc_ingress_irc{pool=\"sw0\",dev=\"sw0p1\",prio=\"3\"} 7000\n"})
    EXPECT_NE(spfc.find(line), std::string::npos) << line << spfc;
  // Every family has its HELP and TYPE once.
  std::set<std::string> types;
  for (const auto &l : lines_of(spfc)) {
    if (l.starts_with("# TYPE ")) {
      EXPECT_TRUE(types.insert(l).second) << l;
    }
  }
}

}  // namespace

namespace {

// The control channel's blocks as the datapath answered them (telemetry
// version 7): per pool, counters for the blocks applied and refused,
// gauges for the last seq and its errno; for a pool whose scheme takes
// commands (spfc) only.
TEST(Scheme, ChannelCountersForSchemesWithAChannelOnly)
{
  auto t = sample_tel();
  t->channel_applied = 41;
  t->channel_refused = 2;
  t->channel_applied_seq = 43;
  t->channel_apply_error = -22;  // EINVAL
  std::string dt = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_EQ(dt.find("lossless_pool_channel_"), std::string::npos) << dt;
  t->scheme.id = LOSSLESS_SCHEME_DSH;
  std::string dsh = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_EQ(dsh.find("lossless_pool_channel_"), std::string::npos) << dsh;

  t->scheme.id = LOSSLESS_SCHEME_SPFC;
  std::string spfc = lm::render({{t.get(), std::nullopt}}, {});
  for (const char *line : {"# TYPE lossless_pool_channel_blocks_applied_total counter\n"
                           "lossless_pool_channel_blocks_applied_total{pool=\"sw0\"} 41\n",
                           "# TYPE lossless_pool_channel_blocks_refused_total counter\n"
                           "lossless_pool_channel_blocks_refused_total{pool=\"sw0\"} 2\n",
                           "# TYPE lossless_pool_channel_applied_seq gauge\n"
                           "lossless_pool_channel_applied_seq{pool=\"sw0\"} 43\n",
                           "# TYPE lossless_pool_channel_apply_error gauge\n"
                           "lossless_pool_channel_apply_error{pool=\"sw0\"} 22\n"})
    EXPECT_NE(spfc.find(line), std::string::npos) << line << spfc;
  t->channel_apply_error = 0;
  spfc = lm::render({{t.get(), std::nullopt}}, {});
  EXPECT_NE(spfc.find("lossless_pool_channel_apply_error{pool=\"sw0\"} 0\n"), std::string::npos)
      << spfc;
}

}  // namespace

// ---------------------------------------------------------------------------
// The hosts' congestion control ([host_cc]): one counter family per
// ll_cc_stats counter, the malformed CNPs by reason, and per-flow gauges
// for the flows given (the top N of each map and "other") only.

namespace hostcc {

lm::HostCcSample host_sample()
{
  lm::HostCcSample h;
  h.algo = "dcqcn";
  h.counters = {{"cnps_sent", 5}, {"cnps_received", 4}, {"cnp_unknown_flow", 1},
                {"rp_refused_pkts", 9}, {"np_ce_pkts", 30}};
  h.parse_errors = {{"truncated", 2}, {"bad-bth", 0}};
  h.np_flows = 1;
  h.rp_flows = 12;
  h.gc_rp_deleted = 6;
  h.flows.push_back({"np", "10.0.0.2:5>10.0.0.1:4791", 0, 1000, 10, 5, 2, 1});
  h.flows.push_back({"np", "other", 0, 0, 0, 0, 0, 0});
  h.flows.push_back({"rp", "10.0.0.1:7>10.0.0.2:4791", 2500000000, 9000, 9, 0, 3, 1});
  h.flows.push_back({"rp", "other", 1000000, 100, 1, 0, 0, 11});
  return h;
}

TEST(RenderHostCc, CountersAndBoundedFlows)
{
  lm::HostCcSample h = host_sample();
  std::string text = lm::render({}, {}, std::nullopt, &h);
  for (const char *line : {
           "lossless_host_cc_info{algo=\"dcqcn\"} 1\n",
           "# TYPE lossless_host_cc_cnps_sent_total counter\nlossless_host_cc_cnps_sent_total 5\n",
           "lossless_host_cc_cnps_received_total 4\n",
           "lossless_host_cc_cnp_unknown_flow_total 1\n",
           "lossless_host_cc_rp_refused_pkts_total 9\n",
           "lossless_host_cc_np_ce_pkts_total 30\n",
           "lossless_host_cc_cnp_malformed_total{reason=\"truncated\"} 2\n",
           "lossless_host_cc_cnp_malformed_total{reason=\"bad-bth\"} 0\n",
           "lossless_host_cc_flows{map=\"rp\"} 12\n",
           "lossless_host_cc_gc_deleted_flows_total{map=\"rp\"} 6\n",
           "lossless_host_cc_flow_rate_bits_per_second{map=\"rp\",flow=\"10.0.0.1:7>10.0.0.2:4791\"} "
           "2500000000\n",
           "lossless_host_cc_flow_ce_fraction{map=\"np\",flow=\"10.0.0.2:5>10.0.0.1:4791\"} 0.5\n",
           "lossless_host_cc_flow_cnps{map=\"np\",flow=\"10.0.0.2:5>10.0.0.1:4791\"} 2\n",
           "lossless_host_cc_flow_bytes{map=\"rp\",flow=\"other\"} 100\n",
           "lossless_host_cc_other_flows{map=\"rp\"} 11\n",
       })
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  // CE only for the NP map's flows.
  EXPECT_EQ(text.find("lossless_host_cc_flow_ce_packets{map=\"rp\""), std::string::npos);
  // One series per flow given and family: 4 here, whatever the maps hold.
  std::size_t n = 0;
  for (std::size_t at = 0; (at = text.find("\nlossless_host_cc_flow_packets{", at)) !=
                           std::string::npos;
       at++)
    n++;
  EXPECT_EQ(n, 4u);
  // Well formed: every family once, HELP then TYPE, counters end in _total.
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string l, prev;
  while (std::getline(in, l)) {
    if (l.rfind("# HELP ", 0) == 0) {
      std::string name = l.substr(7, l.find(' ', 7) - 7);
      EXPECT_TRUE(seen.insert(name).second) << "family twice: " << name;
    } else if (l.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(prev.rfind("# HELP ", 0), 0u) << l;
      EXPECT_EQ(l.ends_with(" counter"), l.find("_total ") != std::string::npos) << l;
    }
    prev = l;
  }
  // Nothing about host_cc without it.
  EXPECT_EQ(lm::render({}, {}).find("host_cc"), std::string::npos);
}

}  // namespace hostcc

namespace portfc {

// PortFC's switch scheme: its port counters flow through the generic
// scheme families, named by its descriptor (scheme_portfc.c).
TEST(RenderPortfc, TheSwitchSchemesCountersByItsDescriptor)
{
  auto t = sample_tel();
  t->scheme.id = LOSSLESS_SCHEME_PORTFC;
  t->lossless_mask = 0xFF;
  auto &d = t->sch[0].s;
  d = {};
  d.scheme = LOSSLESS_SCHEME_PORTFC;
  for (unsigned i = 0; i < 6; i++)
    d.ctr[i] = 10 + i;
  d.ctr[6] = 3;  // bcube_port
  std::string text = lm::render({{t.get(), std::nullopt}}, {{5, "w19p3"}});
  for (const char *line :
       {"# TYPE lossless_portfc_port_pauses_a_total counter\n"
        "lossless_portfc_port_pauses_a_total{pool=\"sw0\",dev=\"w19p3\"} 10\n",
        "lossless_portfc_port_pauses_b_total{pool=\"sw0\",dev=\"w19p3\"} 11\n",
        "lossless_portfc_port_resumes_a_total{pool=\"sw0\",dev=\"w19p3\"} 12\n",
        "lossless_portfc_port_resumes_b_total{pool=\"sw0\",dev=\"w19p3\"} 13\n",
        "lossless_portfc_port_frames_a_total{pool=\"sw0\",dev=\"w19p3\"} 14\n",
        "lossless_portfc_port_frames_b_total{pool=\"sw0\",dev=\"w19p3\"} 15\n",
        "# TYPE lossless_portfc_port_bcube_port gauge\n"
        "lossless_portfc_port_bcube_port{pool=\"sw0\",dev=\"w19p3\"} 3\n",
        "lossless_pool_scheme_info{pool=\"sw0\",scheme=\"portfc\"} 1\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << text;
}

// losslessd's [portfc]: the node, the classifier, the ingress program's
// frames and per queue the pause state, time paused and stuck alarms,
// with units in the names.
TEST(RenderPortfc, TheDaemonsPortfcFamilies)
{
  lm::PortfcSample p;
  p.role = "switch";
  p.n = 4;
  p.k = 1;
  p.node = 3;
  p.classifier = {{"packets", 100}, {"hq", 7}, {"unknown", 2}};
  p.classifier_queue = {7, 0, 40, 0, 51};
  p.ports = {{"if0", 1, 2, 3}};
  p.queues = {{"if0", 1, true, 1500000000, 9, true, 2}, {"if0", 2, false, 0, 0, false, 0}};
  p.stuck_ns = 500000000;
  p.stuck_alarms_total = 2;
  std::string text = lm::render({}, {}, std::nullopt, nullptr, &p);
  for (const char *line :
       {"lossless_portfc_info{role=\"switch\",n=\"4\",k=\"1\",node=\"3\"} 1\n",
        "# TYPE lossless_portfc_classified_packets_total counter\n"
        "lossless_portfc_classified_packets_total 100\n",
        "lossless_portfc_classified_by_kind_total{kind=\"unknown\"} 2\n",
        "lossless_portfc_queue_packets_total{queue=\"2\"} 40\n",
        "lossless_portfc_frames_refused_total{dev=\"if0\"} 1\n",
        "lossless_portfc_frames_relayed_total{dev=\"if0\"} 2\n",
        "lossless_portfc_relay_failed_total{dev=\"if0\"} 3\n",
        "# TYPE lossless_portfc_queue_paused gauge\n"
        "lossless_portfc_queue_paused{dev=\"if0\",queue=\"1\"} 1\n",
        "lossless_portfc_queue_paused{dev=\"if0\",queue=\"2\"} 0\n",
        "# TYPE lossless_portfc_queue_paused_seconds_total counter\n"
        "lossless_portfc_queue_paused_seconds_total{dev=\"if0\",queue=\"1\"} 1.5\n",
        "lossless_portfc_queue_pause_frames_total{dev=\"if0\",queue=\"1\"} 9\n",
        "lossless_portfc_queue_stuck{dev=\"if0\",queue=\"1\"} 1\n",
        "lossless_portfc_queue_stuck_alarms_total{dev=\"if0\",queue=\"1\"} 2\n",
        "# TYPE lossless_portfc_stuck_seconds gauge\nlossless_portfc_stuck_seconds 0.5\n",
        "lossless_portfc_stuck_alarms_total 2\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  EXPECT_EQ(text.find("lossless_portfc_queue_packets_total{queue=\"1\"}"), std::string::npos)
      << "queues without packets are left out";
  // Every family once, counters (and only they) end in _total.
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) {
    if (l.rfind("# HELP ", 0) == 0) {
      EXPECT_TRUE(seen.insert(l.substr(7, l.find(' ', 7) - 7)).second) << l;
    } else if (l.rfind("# TYPE ", 0) == 0) {
      EXPECT_EQ(l.ends_with(" counter"), l.find("_total ") != std::string::npos) << l;
    }
  }
  EXPECT_EQ(lm::render({}, {}).find("portfc"), std::string::npos);
}

}  // namespace portfc
