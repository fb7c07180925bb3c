// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// main() of ll_bpf_test: as root, move the whole test process into the
// sandbox (sandbox.h) before any test runs: a private netns with two veth
// pairs (lla/llb, llc/lld, all up) as ports, and a private bpffs.
#include <gtest/gtest.h>

#include <bpf/libbpf.h>

#include <cstdarg>
#include <cstdio>
#include <optional>

#include "env.h"
#include "sandbox.h"

namespace lltest {

namespace {
std::string g_bpffs_dir;
}  // namespace

const std::string &bpffs_dir()
{
  return g_bpffs_dir;
}

namespace {

class SandboxEnv : public ::testing::Environment {
 public:
  void SetUp() override
  {
    if (!is_root())
      return;  // the tests skip themselves
    private_mounts();
    private_netns();
    must_sh("ip link add lla type veth peer name llb");
    must_sh("ip link add llc type veth peer name lld");
    for (const char *dev : {"lla", "llb", "llc", "lld"})
      must_sh(std::string("ip link set ") + dev + " up");
    bpffs_.emplace();
    g_bpffs_dir = bpffs_->dir();
  }
  void TearDown() override { bpffs_.reset(); }

 private:
  std::optional<Bpffs> bpffs_;
};

// libbpf warnings (verifier logs) go to the test output.
int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  if (level == LIBBPF_DEBUG)
    return 0;
  return std::vfprintf(stderr, fmt, ap);
}

}  // namespace
}  // namespace lltest

int main(int argc, char **argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  libbpf_set_print(lltest::print_libbpf);
  ::testing::AddGlobalTestEnvironment(new lltest::SandboxEnv);
  return RUN_ALL_TESTS();
}
