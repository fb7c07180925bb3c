// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's readiness messages (daemon/losslessd/notify.h): what
// notify() sends reaches $NOTIFY_SOCKET as systemd reads it, one datagram
// per state; without the variable nothing is sent. test_daemon.py checks
// when the daemon sends them (READY=1 after its ports are installed).
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "notify.h"

namespace {

class NotifyTest : public ::testing::Test {
 protected:
  void SetUp() override
  {
    char tmpl[] = "/tmp/ll-notify-test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/notify";
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd_, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::strncpy(sa.sun_path, path_.c_str(), sizeof(sa.sun_path) - 1);
    ASSERT_EQ(bind(fd_, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)), 0);
    timeval tv{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  void TearDown() override
  {
    unsetenv("NOTIFY_SOCKET");
    if (fd_ >= 0)
      close(fd_);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  // The next datagram, or "" after 1 s.
  std::string receive()
  {
    char buf[256];
    ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    return n > 0 ? std::string(buf, n) : std::string();
  }
  std::string dir_, path_;
  int fd_ = -1;
};

TEST_F(NotifyTest, EachStateIsOneDatagramOnNotifySocket)
{
  setenv("NOTIFY_SOCKET", path_.c_str(), 1);
  EXPECT_GT(lossless::daemon::notify("READY=1"), 0);
  EXPECT_EQ(receive(), "READY=1");
  // The variable stays: a reload notifies again.
  EXPECT_GT(lossless::daemon::notify("RELOADING=1"), 0);
  EXPECT_EQ(receive(), "RELOADING=1");
  EXPECT_GT(lossless::daemon::notify("STOPPING=1"), 0);
  EXPECT_EQ(receive(), "STOPPING=1");
}

TEST_F(NotifyTest, NothingWithoutNotifySocket)
{
  unsetenv("NOTIFY_SOCKET");
  EXPECT_EQ(lossless::daemon::notify("READY=1"), 0);
  char buf[16];
  EXPECT_LT(recv(fd_, buf, sizeof(buf), MSG_DONTWAIT), 0) << "a datagram without NOTIFY_SOCKET";
}

}  // namespace
