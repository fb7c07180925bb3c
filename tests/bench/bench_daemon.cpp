// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// What losslessd's period costs, natively: the VM benchmark
// (tests/vm/bench-daemon.py) runs the whole daemon, but under QEMU TCG,
// where one empty 1 ms wakeup alone costs more than the daemon's target.
// Here the same code runs on the host, in one run with its baseline:
//
//   BM_TimerFloor   an Asio steady_timer at 1 ms doing nothing, armed the
//                   way Daemon::arm_tick() arms it: what any 1 ms daemon
//                   pays for its wakeups.
//   BM_DaemonPeriod the same timer running Pool::run_policy() (the
//                   daemon's tick: telemetry read from a real mmap'd plane
//                   map, the pfc-dt policy) for 16 ports x 8 priorities.
//   BM_PolicyWork   Pool::run_policy() alone, back to back: ns per tick.
//
// The counter cpu_pct is the thread's CPU time (user + system, from
// getrusage) over wall time, in % of one core: DaemonPeriod is the
// daemon's cost at a 1 ms period (target < 5 %), TimerFloor its part that
// is only waking up. Needs root (the plane map is pinned on a private
// bpffs).
#include <utility>  // before Boost 1.74's asio: its awaitable.hpp needs std::exchange
#include <benchmark/benchmark.h>
#include <bpf/bpf.h>
#include <sys/resource.h>

#include <boost/asio.hpp>
#include <chrono>
#include <cstring>
#include <memory>

#define LL_PLANE_FIXTURE_NO_GTEST
#define LL_PLANE_FIXTURE_POOL
#include "../daemon/plane_fixture.h"
#include "pool.h"

namespace {

namespace ld = lossless::daemon;
using Clock = std::chrono::steady_clock;

constexpr int kPorts = 16;
constexpr auto kPeriod = std::chrono::milliseconds(1);

double thread_cpu_s()
{
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// A pool of 16 ports at 1 Gbit/s, every priority lossless, on a plane map
// whose telemetry a datapath has written; the first decision is applied,
// so what follows is the daemon's steady state.
class BenchPool {
 public:
  BenchPool() : p_("bench", kPorts, 100, 0xff)
  {
    lossless_plane_tel &tel = *p_.tel;
    tel.nr_ports = kPorts;
    tel.lossless_mask = 0xff;
    for (int i = 0; i < kPorts; i++) {
      const auto &l = p_.pool.inputs.ports[i];
      auto &p = tel.ports[i];
      p.ifindex = l.ifindex;
      p.rate_bps = l.rate_bps;
      p.catchup_bytes = l.catchup_bytes;
      for (auto &iq : p.iq)
        iq.peak_headroom = 20000;
    }
    p_.report();
    p_.pool.run_policy();  // decides and submits
    p_.report(p_.pool.pending_gen, 0);
    p_.pool.run_policy();  // sees it applied
    ok_ = steady();
  }
  bool ok() const { return ok_; }
  // Still the steady state: no decision after the first one.
  bool steady() const { return !p_.pool.pending && p_.pool.pushes == 1; }
  void tick() { p_.pool.run_policy(); }

 private:
  lltest::TestPool p_;  // 1 Gbit/s ports, catch-up 1 ms: the qdisc's default
  bool ok_ = false;
};

// Runs `work` once per period on an Asio timer, as the daemon does.
template <typename Work>
void periodic(benchmark::State &state, Work &&work)
{
  boost::asio::io_context io;
  boost::asio::steady_timer timer(io);
  timer.expires_at(Clock::now());
  double cpu0 = thread_cpu_s();
  auto wall0 = Clock::now();
  for (auto _ : state) {
    timer.expires_at(timer.expiry() + kPeriod);
    timer.async_wait([&](const boost::system::error_code &ec) {
      if (!ec)
        work();
    });
    io.restart();  // run_one() left it stopped: no work was pending
    io.run_one();
  }
  double wall = std::chrono::duration<double>(Clock::now() - wall0).count();
  state.counters["cpu_pct"] = 100.0 * (thread_cpu_s() - cpu0) / wall;
}

void BM_TimerFloor(benchmark::State &state)
{
  periodic(state, [] {});
}

// The bench pool, or nullptr with the benchmark marked as failed.
std::unique_ptr<BenchPool> bench_pool(benchmark::State &state)
{
  if (!lltest::is_root()) {
    state.SkipWithError("needs root (a BPF map on a private bpffs)");
    return nullptr;
  }
  auto pool = std::make_unique<BenchPool>();
  if (!pool->ok()) {
    state.SkipWithError("the bench pool did not reach its steady state");
    return nullptr;
  }
  return pool;
}

// A period that decided something new would measure another path.
void check_steady(benchmark::State &state, const BenchPool &pool)
{
  if (!pool.steady())
    state.SkipWithError("the policy decided again on unchanged inputs");
}

void BM_DaemonPeriod(benchmark::State &state)
{
  if (auto pool = bench_pool(state)) {
    periodic(state, [&] { pool->tick(); });
    check_steady(state, *pool);
  }
}

void BM_PolicyWork(benchmark::State &state)
{
  if (auto pool = bench_pool(state)) {
    for (auto _ : state)
      pool->tick();
    check_steady(state, *pool);
  }
}

// 3000 periods = 3 s each. Run with --benchmark_enable_random_interleaving
// (make bench does) so that host noise hits the floor and the daemon alike.
BENCHMARK(BM_TimerFloor)->Iterations(3000)->Repetitions(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DaemonPeriod)->Iterations(3000)->Repetitions(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PolicyWork)->Unit(benchmark::kNanosecond);

}  // namespace
