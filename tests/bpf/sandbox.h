// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// Root-only test sandbox: a private network namespace (so test devices and
// BPF_PROG_TEST_RUN ifindexes never touch the host) and a private mount
// namespace with its own bpffs (so pins never touch /sys/fs/bpf). Both go
// away with the test process.
#pragma once

#include <sched.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace lltest {

inline bool is_root()
{
  return geteuid() == 0;
}

inline const char *kNeedRoot =
    "needs root (BPF, netns, bpffs); CI runs these tests as root";

[[noreturn]] inline void sys_fail(const std::string &what)
{
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

// Runs a shell command; returns its exit status (or -1).
inline int sh(const std::string &cmd)
{
  int st = std::system(cmd.c_str());
  if (st == -1 || !WIFEXITED(st))
    return -1;
  return WEXITSTATUS(st);
}

inline void must_sh(const std::string &cmd)
{
  int rc = sh(cmd);
  if (rc != 0)
    throw std::runtime_error("command failed (exit " + std::to_string(rc) +
                             "): " + cmd);
}

// Enters a new mount namespace (nothing propagates back to the host).
inline void private_mounts()
{
  if (unshare(CLONE_NEWNS))
    sys_fail("unshare(CLONE_NEWNS)");
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr))
    sys_fail("making / private");
}

// Enters a new network namespace with lo up.
inline void private_netns()
{
  if (unshare(CLONE_NEWNET))
    sys_fail("unshare(CLONE_NEWNET)");
  must_sh("ip link set lo up");
}

// Mounts a fresh bpffs on a new directory under /tmp; returns the directory.
inline std::string mount_bpffs()
{
  char dir[] = "/tmp/ll-bpf-test-XXXXXX";
  if (!mkdtemp(dir))
    sys_fail("mkdtemp");
  if (mount("bpf", dir, "bpf", 0, nullptr))
    sys_fail(std::string("mount -t bpf bpf ") + dir);
  return dir;
}

inline void unmount_bpffs(const std::string &dir)
{
  umount2(dir.c_str(), MNT_DETACH);
  rmdir(dir.c_str());
}

// A fresh bpffs (mount_bpffs()) for the object's lifetime: every test,
// fixture and benchmark that needs one holds one of these.
class Bpffs {
 public:
  Bpffs() : dir_(mount_bpffs()) {}
  ~Bpffs() { unmount_bpffs(dir_); }
  Bpffs(const Bpffs &) = delete;
  Bpffs &operator=(const Bpffs &) = delete;

  const std::string &dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace lltest
