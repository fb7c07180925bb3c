// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_bench_cc: what the hosts' congestion control programs
// (bpf/lossless_cc.bpf.c) cost per packet, next to the same program with
// the algorithm off, in one run: BPF_PROG_TEST_RUN of a 1,000-byte RoCEv2
// frame, repeated kRepeat times per round; the kernel reports the mean ns
// per run (its own clock around the program, no syscall in it). Rounds
// interleave the cases (make bench: --benchmark_enable_random_interleaving)
// and every round is printed, then the mean, median, stddev and cv.
//
//   egress off          the program reads its config and passes: the base
//   egress pcn pacing   the RP's per-packet work: the flow's entry, the
//                       try-lock, the idle check, EDT (skb->tstamp)
//   egress dcqcn pacing + DCQCN's alpha and rate timers, the byte counter
//   ingress off / pcn np / dcqcn np   the NP's per-packet work (no CNP due:
//                       T and the CNP interval are long)
//   ingress pcn cnp     the RP's cost per CNP: parse, lookup, Algorithm 1
//
// Needs root (BPF); without it every case reports an error and no number.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstring>
#include <memory>

#include "cc_frames.h"
#include "lossless_cc.skel.h"

namespace {

using namespace lltest::cc;

constexpr int kRepeat = 20000;

struct Skel {
  Skel() : s(lossless_cc__open_and_load()) {}
  ~Skel() { lossless_cc__destroy(s); }
  lossless_cc *s;
};

// One skeleton for the whole run: its maps keep the flows warm, as on a
// host that sends one flow for a while.
Skel &skel()
{
  static Skel k;
  return k;
}

void set_cfg(const ll_cc_config &c)
{
  std::uint32_t zero = 0;
  bpf_map_update_elem(bpf_map__fd(skel().s->maps.ll_cc_cfg), &zero, &c, 0);
}

// Mean ns per run of prog over kRepeat runs of frame (0 on failure).
std::uint32_t run(bpf_program *prog, const Frame &frame)
{
  Frame out(frame.size() + 256);
  LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame.data(), .data_out = out.data(),
              .data_size_in = static_cast<__u32>(frame.size()),
              .data_size_out = static_cast<__u32>(out.size()), .repeat = kRepeat);
  if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o))
    return 0;
  return o.duration;
}

enum class Algo { Off, Pcn, Dcqcn };

ll_cc_config config(Algo a)
{
  ll_cc_config c = pcn_config(100000000);  // 100 Gbit/s
  c.pcn.period_ns = LL_PCN_PERIOD_NS_MAX;  // no CNP falls due
  c.dcqcn.cnp_interval_ns = 1000000000ULL;
  c.algo = a == Algo::Off ? LL_CC_OFF : a == Algo::Pcn ? LL_CC_PCN : LL_CC_DCQCN;
  return c;
}

void measure(benchmark::State &state, bool egress, Algo a, std::uint8_t ecn)
{
  if (geteuid() != 0 || !skel().s) {
    state.SkipWithError("needs root (BPF_PROG_TEST_RUN)");
    return;
  }
  Flow f;
  Frame frame = roce(f, ecn, 1000 - 58);
  bpf_program *prog = egress ? skel().s->progs.ll_cc_egress : skel().s->progs.ll_cc_ingress;
  std::uint64_t ns = 0, rounds = 0;
  for (auto _ : state) {
    set_cfg(config(a));
    std::uint32_t d = run(prog, frame);
    if (!d) {
      state.SkipWithError("BPF_PROG_TEST_RUN failed");
      return;
    }
    ns += d;
    rounds++;
  }
  state.counters["ns_per_pkt"] = benchmark::Counter(double(ns) / double(rounds));
}

// The RP's cost per CNP: a congested PCN CNP for a flow this host sends.
void cnp(benchmark::State &state)
{
  if (geteuid() != 0 || !skel().s) {
    state.SkipWithError("needs root (BPF_PROG_TEST_RUN)");
    return;
  }
  Flow f;
  set_cfg(config(Algo::Pcn));
  run(skel().s->progs.ll_cc_egress, roce(f, kEcnEct0, 100));  // the flow exists
  // Sequence numbers: every run is the same CNP, so all but the first are
  // stale (the check and lookup); version 0 (a plain CNP, no sequence)
  // is applied every time: parse, lookup, try-lock, Algorithm 1.
  ll_cnp c = basic_cnp(f, 0, 0, 1);
  c.version = LL_CNP_VERSION_PLAIN;
  c.rate_valid = 0;
  c.congested = 0;
  Frame frame = cnp_frame(f.reversed(), c);
  std::uint64_t ns = 0, rounds = 0;
  for (auto _ : state) {
    std::uint32_t d = run(skel().s->progs.ll_cc_ingress, frame);
    if (!d) {
      state.SkipWithError("BPF_PROG_TEST_RUN failed");
      return;
    }
    ns += d;
    rounds++;
  }
  state.counters["ns_per_cnp"] = benchmark::Counter(double(ns) / double(rounds));
}

void BM_CcEgressOff(benchmark::State &s) { measure(s, true, Algo::Off, kEcnEct0); }
void BM_CcEgressPcnPacing(benchmark::State &s) { measure(s, true, Algo::Pcn, kEcnEct0); }
void BM_CcEgressDcqcnPacing(benchmark::State &s) { measure(s, true, Algo::Dcqcn, kEcnEct0); }
void BM_CcIngressOff(benchmark::State &s) { measure(s, false, Algo::Off, kEcnCe); }
void BM_CcIngressPcnNp(benchmark::State &s) { measure(s, false, Algo::Pcn, kEcnCe); }
void BM_CcIngressDcqcnNp(benchmark::State &s) { measure(s, false, Algo::Dcqcn, kEcnEct0); }

}  // namespace

BENCHMARK(BM_CcEgressOff)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_CcEgressPcnPacing)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_CcEgressDcqcnPacing)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_CcIngressOff)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_CcIngressPcnNp)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_CcIngressDcqcnNp)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(cnp)->Name("BM_CcIngressPcnPerCnp")->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
