// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// ll_bench_portfc: what PortFC's egress classifier (bpf/lossless_portfc.bpf.c)
// costs per packet, next to the same program on a port it does not know,
// in one run: BPF_PROG_TEST_RUN of a 1,000-byte RoCEv2 frame, repeated
// kRepeat times per round; the kernel reports the mean ns per run. Rounds
// interleave the cases (make bench: --benchmark_enable_random_interleaving)
// and every round is printed, then the mean, median, stddev and cv.
//
//   no entry         the port lookup misses: the program passes (the base)
//   server own       a server's four-hop packet: both lookups, the plan
//   server relayed   a packet the server forwards: RQ
//   switch           a BCube(4,1) switch's A-slot
//
// Needs root (BPF); without it every case reports an error and no number.
#include <benchmark/benchmark.h>
#include <net/if.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstring>

#include "cc_frames.h"
#include "lossless_portfc.h"
#include "lossless_portfc.skel.h"

namespace {

using namespace lltest::cc;

constexpr int kRepeat = 20000;

struct Skel {
  Skel() : s(lossless_portfc__open_and_load())
  {
    if (!s)
      return;
    for (std::uint32_t id = 0; id < 16; id++) {
      std::uint32_t a = htonl(0x0a010001u + id);
      bpf_map__update_elem(s->maps.ll_portfc_addr, &a, sizeof(a), &id, sizeof(id), 0);
    }
  }
  ~Skel() { lossless_portfc__destroy(s); }
  lossless_portfc *s;
};

Skel &skel()
{
  static Skel k;
  return k;
}

enum class Case { NoEntry, ServerOwn, ServerRelayed, Switch };

void measure(benchmark::State &state, Case c)
{
  if (geteuid() != 0 || !skel().s) {
    state.SkipWithError("needs root (BPF_PROG_TEST_RUN)");
    return;
  }
  // lo: every netns has it, and BPF_PROG_TEST_RUN takes it by default.
  std::uint32_t ifindex = if_nametoindex("lo");
  ll_portfc_port p;
  std::memset(&p, 0, sizeof(p));
  p.n = 4;
  p.k = 1;
  p.major = 1;
  p.role = c == Case::Switch ? LL_PORTFC_ROLE_SWITCH : LL_PORTFC_ROLE_SERVER;
  p.node = c == Case::Switch ? 3 : 15;
  p.level = c == Case::Switch ? 1 : 0;
  if (c == Case::NoEntry)
    bpf_map__delete_elem(skel().s->maps.ll_portfc_port, &ifindex, sizeof(ifindex), 0);
  else
    bpf_map__update_elem(skel().s->maps.ll_portfc_port, &ifindex, sizeof(ifindex), &p,
                         sizeof(p), 0);
  Flow f;
  f.daddr = 0x0a010001u + (c == Case::Switch ? 12 : 0);  // A-slot 0, or via relay 12
  Frame frame = roce(f, kEcnEct0, 1000 - 58);
  Frame out(frame.size() + 256);
  __sk_buff ctx;
  std::memset(&ctx, 0, sizeof(ctx));
  ctx.ifindex = ifindex;
  ctx.ingress_ifindex = c == Case::ServerRelayed ? ifindex : 0;
  std::uint64_t ns = 0, rounds = 0;
  for (auto _ : state) {
    LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame.data(), .data_out = out.data(),
                .data_size_in = static_cast<__u32>(frame.size()),
                .data_size_out = static_cast<__u32>(out.size()), .ctx_in = &ctx,
                .ctx_size_in = sizeof(ctx), .repeat = kRepeat);
    if (bpf_prog_test_run_opts(bpf_program__fd(skel().s->progs.ll_portfc_classify), &o) ||
        !o.duration) {
      state.SkipWithError("BPF_PROG_TEST_RUN failed");
      return;
    }
    ns += o.duration;
    rounds++;
  }
  state.counters["ns_per_pkt"] = benchmark::Counter(double(ns) / double(rounds));
}

void BM_PortfcNoEntry(benchmark::State &s) { measure(s, Case::NoEntry); }
void BM_PortfcServerOwn(benchmark::State &s) { measure(s, Case::ServerOwn); }
void BM_PortfcServerRelayed(benchmark::State &s) { measure(s, Case::ServerRelayed); }
void BM_PortfcSwitch(benchmark::State &s) { measure(s, Case::Switch); }

}  // namespace

BENCHMARK(BM_PortfcNoEntry)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_PortfcServerOwn)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_PortfcServerRelayed)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
BENCHMARK(BM_PortfcSwitch)->Iterations(20)->Repetitions(5)->ReportAggregatesOnly(false);
