// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// main() of ll_cc_test: as root, move the whole test process into the
// sandbox of tests/bpf/sandbox.h before any test runs: a private netns with
// one veth pair (cca/ccb, both up) as ports, and a private bpffs
// (lltest::bpffs_dir(), tests/bpf/env.h). The CLI runs inherit both.
#include <gtest/gtest.h>

#include <cstdarg>
#include <cstdio>
#include <optional>

#include "cc.h"
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
      return;  // the tests that need it skip themselves
    private_mounts();
    private_netns();
    must_sh("ip link add cca type veth peer name ccb");
    for (const char *dev : {"cca", "ccb"})
      must_sh(std::string("ip link set ") + dev + " up");
    bpffs_.emplace();
    g_bpffs_dir = bpffs_->dir();
  }
  void TearDown() override { bpffs_.reset(); }

 private:
  std::optional<Bpffs> bpffs_;
};

}  // namespace
}  // namespace lltest

int main(int argc, char **argv)
{
  ::testing::InitGoogleTest(&argc, argv);
  // libbpf's warnings (verifier logs) go to the test output, without the
  // extack of the tc requests the library expects to fail.
  lossless::ingress::set_libbpf_print(false);
  ::testing::AddGlobalTestEnvironment(new lltest::SandboxEnv);
  return RUN_ALL_TESTS();
}
