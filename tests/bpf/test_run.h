// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// One BPF_PROG_TEST_RUN of a TC program over a frame, for the program
// tests (prog_test.cpp, cc_test.cpp) and the ingress fuzzer: the verdict,
// the frame after it and the skb fields it left (mark, priority, tstamp).
#pragma once

#include <linux/bpf.h>

#include <bpf/bpf.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lltest {

struct RunResult {
  int verdict;
  std::vector<std::uint8_t> data;  // the frame after the program
  __sk_buff ctx;                   // skb fields after the program
};

// Runs prog_fd once over in with the skb fields of ctx_in into r; returns
// 0, or the kernel's negative errno if it refused the run.
inline int try_test_run(int prog_fd, const std::vector<std::uint8_t> &in,
                        const __sk_buff &ctx_in, RunResult &r)
{
  __sk_buff ctx = ctx_in, ctx_out;
  std::memset(&ctx_out, 0, sizeof(ctx_out));
  std::vector<std::uint8_t> out(in.size() + 256);
  bpf_test_run_opts opts;
  std::memset(&opts, 0, sizeof(opts));
  opts.sz = sizeof(opts);
  opts.data_in = in.data();
  opts.data_size_in = static_cast<__u32>(in.size());
  opts.data_out = out.data();
  opts.data_size_out = static_cast<__u32>(out.size());
  opts.ctx_in = &ctx;
  opts.ctx_size_in = sizeof(ctx);
  opts.ctx_out = &ctx_out;
  opts.ctx_size_out = sizeof(ctx_out);
  opts.repeat = 1;
  int err = bpf_prog_test_run_opts(prog_fd, &opts);
  if (err)
    return err;
  out.resize(opts.data_size_out);
  r = RunResult{static_cast<int>(opts.retval), std::move(out), ctx_out};
  return 0;
}

// The same; throws if the kernel refuses the run.
inline RunResult test_run(int prog_fd, const std::vector<std::uint8_t> &in,
                          const __sk_buff &ctx_in)
{
  RunResult r{};
  if (int err = try_test_run(prog_fd, in, ctx_in, r))
    throw std::runtime_error("BPF_PROG_TEST_RUN failed: " + std::string(std::strerror(-err)));
  return r;
}

}  // namespace lltest
