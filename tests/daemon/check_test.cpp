// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd --check, run as a binary in a private network namespace with a
// private bpffs (root; skipped otherwise): it checks what start() checks
// before it changes anything (the pin directory, the pools' pinned planes,
// every port's device and, without rate, its link speed), names the file
// and line of the table at fault, exits 1 on a failure, and changes
// nothing either way.
#include <bpf/bpf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../bpf/sandbox.h"

extern char **environ;

namespace {

const char kLosslessd[] = LL_LOSSLESSD;

struct Result {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const std::string &path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One private network namespace and bpffs for the whole test program.
class Sandbox : public ::testing::Environment {
 public:
  void SetUp() override
  {
    if (!lltest::is_root())
      return;  // the tests skip themselves
    lltest::private_mounts();
    lltest::private_netns();
    // Ports: veths (a link speed of their own), and a bridge (none).
    lltest::must_sh("ip link add swp1 type veth peer name swp1p");
    lltest::must_sh("ip link add swp2 type veth peer name swp2p");
    lltest::must_sh("ip link add br0 type bridge");
    bpffs_.emplace();
    bpffs_dir_ = bpffs_->dir();
  }
  void TearDown() override { bpffs_.reset(); }
  static std::string bpffs_dir_;

 private:
  std::optional<lltest::Bpffs> bpffs_;
};
std::string Sandbox::bpffs_dir_;
::testing::Environment *const kSandbox = ::testing::AddGlobalTestEnvironment(new Sandbox);

class Check : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    char tmp[] = "/tmp/ll-check-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmp), nullptr);
    tmp_ = tmp;
    pin_dir_ = Sandbox::bpffs_dir_ + "/" + tmp_.substr(tmp_.rfind('/') + 1);
  }
  void TearDown() override
  {
    if (!tmp_.empty())
      lltest::sh("rm -rf " + tmp_ + " " + pin_dir_);
  }

  // A configuration: [daemon] (lines 1-3), one pool sw0 (lines 5-7), then
  // the ports given, each a [[port]] table of its own.
  // pool_extra: more keys of the pool, after line 7 (the ports' lines move).
  std::string config(const std::vector<std::string> &ports, const std::string &pin_dir = "",
                     const std::string &pool_extra = "")
  {
    std::string text = "[daemon]\npin-dir = \"" + (pin_dir.empty() ? pin_dir_ : pin_dir) +
                       "\"\nsocket = \"" + tmp_ + "/run/losslessd.sock\"\n\n"
                       "[[pool]]\nname = \"sw0\"\npolicy = \"pfc-dt\"\n" + pool_extra;
    for (const auto &p : ports)
      text += "\n[[port]]\n" + p;
    std::string path = tmp_ + "/losslessd.toml";
    std::ofstream(path) << text;
    return path;
  }

  Result check(const std::string &path)
  {
    std::string out = tmp_ + "/out", err = tmp_ + "/err";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {kLosslessd, "--config", path, "--check"};
    std::vector<char *> argv;
    for (auto &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    Result r;
    if (posix_spawn(&pid, kLosslessd, &fa, nullptr, argv.data(), environ) == 0) {
      int st = 0;
      waitpid(pid, &st, 0);
      r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }

  // Nothing installed: no lossless qdisc, no ingress filter, no pin.
  void expect_nothing_changed()
  {
    EXPECT_NE(lltest::sh("tc qdisc show | grep -q lossless"), 0) << "a qdisc was installed";
    EXPECT_NE(lltest::sh("tc filter show dev swp1 ingress 2>/dev/null | grep -q bpf"), 0);
    EXPECT_NE(lltest::sh("test -e " + pin_dir_ + "/sw0"), 0) << "something was pinned";
  }

  std::string tmp_, pin_dir_;
};

const std::string kSwp1 = "dev = \"swp1\"\npool = \"sw0\"\nrate = \"5mbit\"\n";
const std::string kSwp2Auto = "dev = \"swp2\"\npool = \"sw0\"\n";  // the veth's 10 Gbit/s

// A 10 Gbit/s port's headroom at the default sw-delay (2.5 MB per
// lossless priority, two of them by default) needs more than the default
// 4 MiB: the buffer is given.
TEST_F(Check, GoodConfigurationPasses)
{
  std::string path = config({kSwp1, kSwp2Auto}, "", "buffer = \"8mb\"\n");
  Result r = check(path);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_EQ(r.out, path + ": valid (1 pools, 2 ports)\n");
  EXPECT_EQ(r.err, "");
  expect_nothing_changed();
}

// The same ports in the default 4 MiB buffer: the kernel would refuse the
// second port (the veth's 10 Gbit/s), and --check says so at its table,
// with the numbers (headroom_check_test.cpp has the arithmetic).
TEST_F(Check, PoolTooSmallForItsPortsFailsWithTheNumbers)
{
  std::string path = config({kSwp1, kSwp2Auto});
  Result r = check(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("losslessd: " + path + ":14: port \"swp2\": pool \"sw0\" cannot hold it", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("x 2 priorities"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of buffer 4194304 B"), std::string::npos) << r.err;
  expect_nothing_changed();
}

TEST_F(Check, MissingDeviceFailsWithFileAndLine)
{
  // The second [[port]] header is on line 14.
  std::string path = config({kSwp1, "dev = \"nosuch0\"\npool = \"sw0\"\nrate = \"5mbit\"\n"});
  Result r = check(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "losslessd: " + path + ":14: port \"nosuch0\": no such network device\n");
  expect_nothing_changed();
}

TEST_F(Check, DeviceWithoutLinkSpeedNeedsRate)
{
  // A bridge reports no speed: the kernel would refuse the qdisc.
  std::string path = config({"dev = \"br0\"\npool = \"sw0\"\n"});
  Result r = check(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "losslessd: " + path +
                       ":9: port \"br0\": rate is required: the device reports no link speed "
                       "(give rate, as for lo, dummy or a bridge)\n");
  // With a rate, the same port passes.
  r = check(config({"dev = \"br0\"\npool = \"sw0\"\nrate = \"1gbit\"\n"}));
  EXPECT_EQ(r.rc, 0) << r.err;
  expect_nothing_changed();
}

TEST_F(Check, PinDirectoryNotOnBpffsFails)
{
  Result r = check(config({kSwp1}, tmp_ + "/not-bpffs"));
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("bpffs"), std::string::npos) << r.err;
}

TEST_F(Check, StalePlaneFailsWithThePoolsLine)
{
  // Something else than a plane where sw0's plane belongs.
  lltest::must_sh("mkdir -p " + pin_dir_ + "/sw0");
  int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "notplane", 4, 8, 4, nullptr);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(bpf_obj_pin(fd, (pin_dir_ + "/sw0/plane").c_str()), 0);
  close(fd);
  std::string path = config({kSwp1});
  Result r = check(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err.rfind("losslessd: " + path + ":5: pool \"sw0\": ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("a stale pin directory? remove " + pin_dir_ + "/sw0"), std::string::npos)
      << r.err;
}

TEST_F(Check, RunsBesideARunningDaemon)
{
  // --check takes no lock: a daemon holding it does not make it fail.
  lltest::must_sh("mkdir -p " + tmp_ + "/run");
  int lock = open((tmp_ + "/run/losslessd.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(flock(lock, LOCK_EX | LOCK_NB), 0);
  Result r = check(config({kSwp1}));
  EXPECT_EQ(r.rc, 0) << r.err;
  close(lock);
}

TEST_F(Check, FileErrorsComeFirst)
{
  // A configuration error is reported as always (file:line: key), before
  // any device is looked at.
  std::string path = config({"dev = \"nosuch0\"\npool = \"sw0\"\nrate = \"5gbps\"\n"});
  Result r = check(path);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(path + ":12:"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("no such network device"), std::string::npos) << r.err;
}

}  // namespace
