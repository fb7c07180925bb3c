// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The plane map's test bench, shared by the tests and the benchmark that
// put a plane map on a private bpffs and play the datapath with plain map
// syscalls, the way the kernel sees the map (kernel/lossless_plane.c):
//
//   datapath_write/read  one whole entry, as the datapath writes or reads it
//   PlaneTest            a gtest fixture: root (skipped otherwise), a fresh
//                        bpffs per test and the path of pool sw0's plane
//                        map on it (plane_test.cpp, ctl_timeseries_test.cpp);
//                        left out with LL_PLANE_FIXTURE_NO_GTEST defined
//   TestPool             losslessd's Pool (daemon/losslessd/pool.h) of N
//                        ports at 1 Gbit/s on a plane map on its own bpffs,
//                        with the telemetry its datapath reports
//                        (pool_test.cpp, tests/bench/bench_daemon.cpp);
//                        only with LL_PLANE_FIXTURE_POOL defined before the
//                        include (it needs ll_daemon)
#pragma once

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#ifndef LL_PLANE_FIXTURE_NO_GTEST
#include <gtest/gtest.h>
#endif

#include "../bpf/sandbox.h"
#include "lossless.h"
#ifdef LL_PLANE_FIXTURE_POOL
#include "pool.h"
#endif

namespace lltest {

// Writes entry key of the plane map as the datapath does: the whole value
// in one syscall. 0, or the errno.
template <typename T>
int datapath_write(int fd, std::uint32_t key, const T &value)
{
  return bpf_map_update_elem(fd, &key, &value, BPF_ANY) ? errno : 0;
}

inline int datapath_write_tel(int fd, const lossless_plane_tel &t)
{
  return datapath_write(fd, LOSSLESS_PLANE_TEL, t);
}

// The whole value of entry key (every entry is as large as the telemetry),
// the first sizeof(T) bytes as a T; nullptr if the lookup failed.
template <typename T>
std::unique_ptr<T> datapath_read(int fd, std::uint32_t key)
{
  std::vector<char> buf(sizeof(lossless_plane_tel));
  if (bpf_map_lookup_elem(fd, &key, buf.data()))
    return nullptr;
  auto out = std::make_unique<T>();
  std::memcpy(out.get(), buf.data(), sizeof(T));
  return out;
}

#ifndef LL_PLANE_FIXTURE_NO_GTEST
class PlaneTest : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!is_root())
      GTEST_SKIP() << kNeedRoot;
    bpffs_.emplace();
    dir_ = bpffs_->dir();
    path_ = dir_ + "/pools/sw0/plane";
  }
  void TearDown() override { bpffs_.reset(); }

  // The datapath's view: the whole value of an entry, as a syscall sees it.
  template <typename T>
  std::unique_ptr<T> kernel_read(int fd, std::uint32_t key)
  {
    auto v = datapath_read<T>(fd, key);
    EXPECT_NE(v, nullptr) << std::strerror(errno);
    return v ? std::move(v) : std::make_unique<T>();
  }
  // The datapath writes the telemetry entry of the map behind fd.
  void kernel_write_tel(int fd, const lossless_plane_tel &t)
  {
    ASSERT_EQ(datapath_write_tel(fd, t), 0) << std::strerror(errno);
  }

  std::optional<Bpffs> bpffs_;
  std::string dir_, path_;  // the bpffs, sw0's plane map on it
};
#endif

#ifdef LL_PLANE_FIXTURE_POOL
// A Pool running pfc-dt for ports swp0.. (ifindexes first_ifindex..), up
// at 1 Gbit/s with a 1518-byte MTU and a catch-up of 125000 bytes (as the
// datapath reports it: 1 ms at 1 Gbit/s, the qdisc's default), on the
// plane map <bpffs>/plane. Needs root (the bpffs).
struct TestPool {
  TestPool(const std::string &name, int ports, std::uint32_t first_ifindex,
           std::uint8_t lossless_mask = 0)
  {
    pool.cfg.settings.name = name;
    if (lossless_mask)
      pool.cfg.settings.lossless_mask = lossless_mask;
    pool.policy = lossless::policy::make("pfc-dt", pool.cfg.settings);
    pool.plane = lossless::plane::Plane::open(plane_path(),
                                              lossless::plane::Plane::Open::CreateIfMissing);
    for (int i = 0; i < ports; i++) {
      lossless::policy::PortLink l;
      l.ifindex = first_ifindex + i;
      l.dev = "swp" + std::to_string(i);
      l.up = true;
      l.rate_bps = 1000000000;
      l.mtu_bytes = 1518;
      l.catchup_bytes = 125000;
      pool.inputs.ports.push_back(l);
    }
    tel->magic = LOSSLESS_PLANE_MAGIC;
    tel->version = LOSSLESS_PLANE_VERSION;
  }
  ~TestPool() { pool.plane.reset(); }  // before the bpffs goes

  std::string plane_path() const { return bpffs.dir() + "/plane"; }

  // The datapath publishes tel (the next even seq). 0, or the errno.
  int report()
  {
    tel->seq += 2;
    return datapath_write_tel(pool.plane->fd(), *tel);
  }
  // ... having applied control gen (or refused it: error, a -errno).
  int report(std::uint64_t gen, int error)
  {
    tel->applied_gen = gen;
    tel->apply_error = error;
    return report();
  }

  Bpffs bpffs;  // first: the plane map is pinned on it
  lossless::daemon::Pool pool;
  std::unique_ptr<lossless_plane_tel> tel = std::make_unique<lossless_plane_tel>();
};
#endif

}  // namespace lltest
