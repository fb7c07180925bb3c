// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// End to end on the host kernel: a "switch" netns (port swp0) and a "host"
// netns (eth0), one veth between them. lossless-ingress (the CLI) attaches
// the program to swp0; the test sends real frames from eth0 over AF_PACKET
// and checks the counters (through the CLI's JSON and the library), and
// captures on eth0 what the program redirected back out of swp0.
//
// Without the lossless qdisc (it only exists in the VM) a valid PFC/PAUSE
// frame leaves swp0 as it came, but with EtherType 0x88B5: the capture
// proves the rewrite and the redirect. veth delivers tagged frames with the
// outer tag stripped into skb->vlan_tci, so this also covers the
// accelerated-tag paths BPF_PROG_TEST_RUN cannot reach.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "frames.h"
#include "ingress.h"
#include "sandbox.h"

#ifndef LL_INGRESS_CLI
#error "LL_INGRESS_CLI must name the lossless-ingress binary"
#endif

namespace {

namespace li = lossless::ingress;
using lltest::Frame;

struct CmdResult {
  int status;
  std::string out;  // stdout and stderr
};

CmdResult run_cmd(const std::string &cmd)
{
  CmdResult r{-1, {}};
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p)
    return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
    r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// Runs fn inside the named network namespace, then returns.
template <typename F>
auto in_netns(const std::string &ns, F fn) -> decltype(fn())
{
  int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  int target = open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
  if (self < 0 || target < 0 || setns(target, CLONE_NEWNET))
    lltest::sys_fail("entering netns " + ns);
  close(target);
  struct Back {
    int fd;
    ~Back()
    {
      setns(fd, CLONE_NEWNET);
      close(fd);
    }
  } back{self};
  return fn();
}

class IngressE2E : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    static bool private_mounts_done = false;
    if (!private_mounts_done) {
      lltest::private_mounts();  // netns mounts and bpffs stay ours
      private_mounts_done = true;
    }
    bpffs_.emplace();
    pin_ = bpffs_->dir() + "/lossless";
    std::string tag = "ll-e2e-" + std::to_string(getpid());
    sw_ = tag + "-sw";
    host_ = tag + "-host";
    lltest::must_sh("ip netns add " + sw_);
    lltest::must_sh("ip netns add " + host_);
    for (const auto &ns : {sw_, host_})
      lltest::must_sh("ip netns exec " + ns +
                      " sysctl -qw net.ipv6.conf.all.disable_ipv6=1"
                      " net.ipv6.conf.default.disable_ipv6=1");
    lltest::must_sh("ip link add swp0 netns " + sw_ +
                    " type veth peer name eth0 netns " + host_);
    lltest::must_sh("ip -n " + sw_ + " link set swp0 up");
    lltest::must_sh("ip -n " + host_ + " link set eth0 up");
    swp0_ = in_netns(sw_, [] { return if_nametoindex("swp0"); });
    ASSERT_NE(swp0_, 0u);

    // One AF_PACKET socket on eth0 sends frames and captures replies.
    sock_ = in_netns(host_, [] {
      int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
      if (fd < 0)
        lltest::sys_fail("AF_PACKET socket");
      sockaddr_ll sll{};
      sll.sll_family = AF_PACKET;
      sll.sll_protocol = htons(ETH_P_ALL);
      sll.sll_ifindex = static_cast<int>(if_nametoindex("eth0"));
      if (bind(fd, reinterpret_cast<sockaddr *>(&sll), sizeof(sll)))
        lltest::sys_fail("bind to eth0");
      return fd;
    });
  }

  void TearDown() override
  {
    if (sock_ >= 0)
      close(sock_);
    if (!sw_.empty())
      lltest::sh("ip netns del " + sw_ + " 2>/dev/null");
    if (!host_.empty())
      lltest::sh("ip netns del " + host_ + " 2>/dev/null");
    bpffs_.reset();
  }

  // lossless-ingress with our pin dir, inside the switch netns.
  CmdResult cli(const std::string &args)
  {
    return run_cmd("ip netns exec " + sw_ + " " + LL_INGRESS_CLI +
                   " --pin-dir " + pin_ + " " + args);
  }

  void attach(const std::string &opts = "")
  {
    CmdResult r = cli("attach swp0 " + opts);
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_NE(r.out.find("swp0: attached"), std::string::npos) << r.out;
  }

  void send(const Frame &f)
  {
    ASSERT_EQ(::send(sock_, f.data(), f.size(), 0),
              static_cast<ssize_t>(f.size()))
        << std::strerror(errno);
  }

  // The next frame arriving on eth0 (not sent by us) with this EtherType.
  std::optional<Frame> receive(std::uint16_t ethertype, int timeout_ms)
  {
    auto deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(timeout_ms);
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0)
        return std::nullopt;
      pollfd pfd{sock_, POLLIN, 0};
      if (poll(&pfd, 1, static_cast<int>(left)) <= 0)
        continue;
      Frame buf(2048);
      sockaddr_ll from{};
      socklen_t fl = sizeof(from);
      ssize_t n = recvfrom(sock_, buf.data(), buf.size(), 0,
                           reinterpret_cast<sockaddr *>(&from), &fl);
      if (n < 14 || from.sll_pkttype == PACKET_OUTGOING)
        continue;
      buf.resize(static_cast<std::size_t>(n));
      if (lltest::be16_at(buf, 12) == ethertype)
        return buf;
    }
  }

  li::CtrlCounters ctrl()
  {
    return li::Maps::open_pinned(pin_).ctrl_counters(swp0_).value_or(
        li::CtrlCounters{});
  }
  li::PrioCounters data()
  {
    return li::Maps::open_pinned(pin_).prio_counters(swp0_).value_or(
        li::PrioCounters{});
  }

  std::optional<lltest::Bpffs> bpffs_;
  std::string pin_, sw_, host_;
  std::uint32_t swp0_ = 0;
  int sock_ = -1;
};

void expect_rewritten_copy(const Frame &sent, const Frame &got)
{
  ASSERT_EQ(got.size(), sent.size());
  EXPECT_EQ(lltest::be16_at(got, 12), LOSSLESS_CTRL_ETHERTYPE);
  for (std::size_t i = 0; i < sent.size(); i++) {
    if (i != 12 && i != 13) {
      EXPECT_EQ(got[i], sent[i]) << "byte " << i;
    }
  }
}

TEST_F(IngressE2E, PfcAndPauseAreConsumedAndRedirected)
{
  attach();
  Frame pfc = lltest::pfc(0x09, {0x100, 0, 0, 0x2000, 0, 0, 0, 0});
  send(pfc);
  auto got = receive(LOSSLESS_CTRL_ETHERTYPE, 3000);
  ASSERT_TRUE(got) << "the PFC frame did not come back out of swp0";
  expect_rewritten_copy(pfc, *got);

  Frame pause = lltest::pause(0x1234);
  send(pause);
  got = receive(LOSSLESS_CTRL_ETHERTYPE, 3000);
  ASSERT_TRUE(got) << "the PAUSE frame did not come back out of swp0";
  expect_rewritten_copy(pause, *got);
  EXPECT_FALSE(receive(LL_ETH_P_MAC_CONTROL, 200))
      << "no MAC control frame may leave swp0";

  auto c = ctrl();
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 1u);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 1u);
  EXPECT_EQ(c.dropped(), 0u);

  CmdResult r = cli("show swp0 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"name\":\"swp0\",\"attached\":true"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"pfc\":1,\"pause\":1,\"tokens\":0,\"portfcA\":0,\"portfcB\":0,\"portfcR\":0,\"dropped\":0"), std::string::npos)
      << r.out;
  r = cli("show");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("control frames: pfc 1  pause 1  tokens 0  portfcA 0  portfcB 0  portfcR 0  dropped 0"),
            std::string::npos)
      << r.out;
}

TEST_F(IngressE2E, InvalidControlFramesAreDroppedAndCounted)
{
  attach();
  Frame bad_da = lltest::pfc_xoff_prio3();
  bad_da[5] = 0x0e;  // 01-80-C2-00-00-0E (LLDP)
  send(bad_da);
  Frame opcode = lltest::pause(1);
  lltest::put_be16(opcode, 14, 0x0002);
  send(opcode);
  Frame reserved = lltest::pfc_xoff_prio3();
  reserved[16] = 1;
  send(reserved);
  // Tagged: veth strips the tag into skb->vlan_tci before tc ingress.
  send(lltest::tagged(lltest::pfc_xoff_prio3(), LL_ETH_P_8021Q, 3, 10));
  send(lltest::tagged(lltest::pause(5), LL_ETH_P_8021AD, 0, 20));

  EXPECT_FALSE(receive(LOSSLESS_CTRL_ETHERTYPE, 500))
      << "an invalid frame was handed on";
  auto c = ctrl();
  EXPECT_EQ(c.frames[LL_CTRL_PFC], 0u);
  EXPECT_EQ(c.frames[LL_CTRL_PAUSE], 0u);
  EXPECT_EQ(c.parse_error[LL_PARSE_BAD_DA], 1u);
  EXPECT_EQ(c.parse_error[LL_PARSE_BAD_OPCODE], 1u);
  EXPECT_EQ(c.parse_error[LL_PARSE_RESERVED_SET], 1u);
  EXPECT_EQ(c.parse_error[LL_PARSE_NOT_MAC_CTRL], 2u);
  EXPECT_EQ(c.dropped(), 5u);
  auto d = data();
  for (unsigned p = 0; p < li::kPrios; p++)
    EXPECT_EQ(d.prio[p].packets, 0u) << "control frames counted as data, prio " << p;

  CmdResult r = cli("show swp0");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("unknown-opcode 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not-mac-control 2"), std::string::npos) << r.out;
}

TEST_F(IngressE2E, DataFramesGetPriorityFromTagAndDscp)
{
  attach("--mode pcp-dscp --default-prio 1");
  CmdResult r = cli("dscp set 46 6");
  ASSERT_EQ(r.status, 0) << r.out;

  Frame pcp3 = lltest::tagged(lltest::ipv4(0), LL_ETH_P_8021Q, 3, 100);
  Frame ef = lltest::ipv4(46);
  Frame arp = lltest::arp();
  send(pcp3);
  send(ef);
  send(ef);
  send(arp);
  // Counting happens in the receive path of the send; give it a moment.
  li::PrioCounters d;
  for (int i = 0; i < 100; i++) {
    d = data();
    if (d.prio[3].packets + d.prio[6].packets + d.prio[1].packets >= 4)
      break;
    usleep(20000);
  }
  EXPECT_EQ(d.prio[3].packets, 1u);
  // The stripped tag is not part of skb->len.
  EXPECT_EQ(d.prio[3].bytes, pcp3.size() - 4);
  EXPECT_EQ(d.prio[6].packets, 2u);
  EXPECT_EQ(d.prio[6].bytes, 2 * ef.size());
  EXPECT_EQ(d.prio[1].packets, 1u);
  EXPECT_EQ(d.prio[5].packets, 0u);
  EXPECT_EQ(d.prio[0].packets, 0u);

  r = cli("show swp0 --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"mode\":\"pcp-dscp\",\"default_prio\":1"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("{\"prio\":3,\"packets\":1,"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("{\"prio\":6,\"packets\":2,"), std::string::npos) << r.out;
}

TEST_F(IngressE2E, ModeDscpOverVlan)
{
  attach("--mode dscp");
  send(lltest::tagged(lltest::ipv6(26), LL_ETH_P_8021Q, 7, 100));
  li::PrioCounters d;
  for (int i = 0; i < 100 && !d.prio[3].packets; i++) {
    usleep(20000);
    d = data();
  }
  EXPECT_EQ(d.prio[3].packets, 1u);
  EXPECT_EQ(d.prio[7].packets, 0u);
}

TEST_F(IngressE2E, DetachRemovesFilterAndEntries)
{
  attach();
  send(lltest::pfc_xoff_prio3());
  ASSERT_TRUE(receive(LOSSLESS_CTRL_ETHERTYPE, 3000));
  CmdResult r = cli("detach swp0");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(lltest::sh("ip netns exec " + sw_ +
                       " tc filter show dev swp0 ingress | grep -q 0x4c4c"),
            1)
      << "filter still there";
  r = cli("show --json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("\"ports\":[]"), std::string::npos) << r.out;
  r = cli("show swp0 --json");
  EXPECT_NE(r.out.find("\"attached\":false"), std::string::npos) << r.out;

  // Not attached any more: a PFC frame goes up the stack, unchanged.
  send(lltest::pfc_xoff_prio3());
  EXPECT_FALSE(receive(LOSSLESS_CTRL_ETHERTYPE, 300));

  r = cli("detach swp0");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("not attached"), std::string::npos) << r.out;

  // --keep leaves config and counters.
  attach("--default-prio 2");
  r = cli("detach swp0 --keep");
  ASSERT_EQ(r.status, 0) << r.out;
  r = cli("show swp0 --json");
  EXPECT_NE(r.out.find("\"attached\":false,\"prog_id\":null,\"configured\":true"),
            std::string::npos)
      << r.out;
}

TEST_F(IngressE2E, CliErrorsAreClear)
{
  CmdResult r = cli("attach nosuch0");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("no network device 'nosuch0'"), std::string::npos) << r.out;

  r = run_cmd(std::string(LL_INGRESS_CLI) + " --pin-dir /tmp/ll-no-bpffs-here show");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("mount -t bpf bpf"), std::string::npos) << r.out;

  r = cli("show");  // nothing pinned yet
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("no ports"), std::string::npos) << r.out;
  r = cli("dscp show");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("hint: attach a port first"), std::string::npos) << r.out;

  for (const char *bad : {"", "frobnicate", "attach", "attach swp0 --mode ecn",
                          "attach swp0 --default-prio 16", "dscp set 64 1",
                          "dscp set 1", "show swp0 extra", "detach swp0 --json",
                          "--pin-dir relative show"}) {
    r = cli(bad);
    EXPECT_EQ(r.status, 2) << "'" << bad << "': " << r.out;
    EXPECT_NE(r.out.find("usage:"), std::string::npos) << r.out;
  }

  r = run_cmd(std::string(LL_INGRESS_CLI) + " --help");
  EXPECT_EQ(r.status, 0);
  for (const char *s : {"SYNOPSIS", "attach DEV", "detach DEV", "dscp set DSCP PRIO",
                        "show [DEV] [--json]", "EXIT STATUS", "EXAMPLES"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

}  // namespace
