// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// losslessd's host congestion control ([host_cc], daemon/losslessd/
// host_cc.h), run as binaries in a private network namespace with a
// private bpffs (root; skipped otherwise): a daemon with [host_cc] alone
// (a host has no pool) on a veth pair. It checks that the programs are
// attached (ll_cc's attached()), that the config map holds the parameters
// derived from the link speed (line-rate "auto") as ll_cc derives them,
// that `losslessctl status --json` has the host_cc block with the counters
// and the top-N flows and the rest summed, that /metrics has the
// lossless_host_cc_* families with bounded flow series, that gc deletes a
// flow idle longer than gc-idle and keeps a fresh one, that a reload
// switches the algorithm and moves the ports, that a port that comes back
// is attached again, that exit leaves the programs attached and
// --cleanup detaches them; and that docs/examples/host-cc.toml passes
// losslessd --check.
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../bpf/sandbox.h"
#include "cc.h"

extern char **environ;

namespace {

namespace cc = lossless::cc;
using nlohmann::json;

const char kLosslessd[] = LL_LOSSLESSD;
const char kLosslessctl[] = LL_LOSSLESSCTL;
constexpr int kPromPort = 19473;

std::string slurp(const std::string &path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int rc = -1;
  std::string out, err;
};

// Runs argv to completion, its output in files under dir.
Result run(const std::vector<std::string> &args, const std::string &dir)
{
  std::string out = dir + "/out", err = dir + "/err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> a = args;
  std::vector<char *> argv;
  for (auto &s : a)
    argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid;
  Result r;
  if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0) {
    int st = 0;
    waitpid(pid, &st, 0);
    r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  posix_spawn_file_actions_destroy(&fa);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string http_get(int port, const std::string &path)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa))) {
    close(fd);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.0\r\n\r\n";
  if (write(fd, req.data(), req.size()) < 0) {
    close(fd);
    return "";
  }
  std::string in;
  char buf[65536];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0)
    in.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return in;
}

// Polls pred every 50 ms for up to timeout.
bool eventually(const std::function<bool()> &pred,
                std::chrono::milliseconds timeout = std::chrono::seconds(5))
{
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred())
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

// One private network namespace and mount namespace for the whole program;
// a bpffs on /sys/fs/bpf inside it (the example's default pin directory)
// and one for the daemon's pins.
class Sandbox : public ::testing::Environment {
 public:
  void SetUp() override
  {
    if (!lltest::is_root())
      return;
    libbpf_set_print(nullptr);  // the kernel's "no filter here" answers
    lltest::private_mounts();
    lltest::private_netns();
    lltest::must_sh("ip link add hcc0 type veth peer name hcc1");
    lltest::must_sh("ip link add eth0 type veth peer name eth0p");  // the example's port
    lltest::must_sh("ip link set hcc0 up && ip link set hcc1 up");
    if (mount("bpf", "/sys/fs/bpf", "bpf", 0, nullptr))
      lltest::sys_fail("mount -t bpf bpf /sys/fs/bpf");
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

class HostCcDaemon : public ::testing::Test {
 protected:
  void SetUp() override
  {
    if (!lltest::is_root())
      GTEST_SKIP() << lltest::kNeedRoot;
    char tmp[] = "/tmp/ll-host-cc-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmp), nullptr);
    tmp_ = tmp;
    pin_dir_ = Sandbox::bpffs_dir_ + "/" + tmp_.substr(tmp_.rfind('/') + 1);
    sock_ = tmp_ + "/run/losslessd.sock";
  }
  void TearDown() override
  {
    stop();
    if (!tmp_.empty()) {
      for (const char *dev : {"hcc0", "hcc1"})
        if (unsigned idx = if_nametoindex(dev); idx && cc::attached(idx).any())
          cc::detach(idx);
      lltest::sh("rm -rf " + tmp_ + " " + pin_dir_);
    }
  }

  std::string write_config(const std::string &host_cc)
  {
    std::string text = "[daemon]\nsocket = \"" + sock_ + "\"\nprometheus = \"127.0.0.1:" +
                       std::to_string(kPromPort) + "\"\n\n[host_cc]\npin-dir = \"" + pin_dir_ +
                       "\"\n" + host_cc;
    std::string path = tmp_ + "/losslessd.toml";
    std::ofstream(path) << text;
    return path;
  }

  void start(const std::string &config)
  {
    std::string log = tmp_ + "/daemon.log";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<std::string> args = {kLosslessd, "--config", config};
    std::vector<char *> argv;
    for (auto &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    ASSERT_EQ(posix_spawn(&pid_, kLosslessd, &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    ASSERT_TRUE(eventually([&] { return access(sock_.c_str(), F_OK) == 0; }))
        << "losslessd did not start: " << slurp(log);
  }

  int stop()
  {
    if (pid_ <= 0)
      return -1;
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }

  json status()
  {
    Result r = run({kLosslessctl, "--socket", sock_, "status", "--json"}, tmp_);
    EXPECT_EQ(r.rc, 0) << r.err;
    try {
      return json::parse(r.out);
    } catch (const std::exception &e) {
      ADD_FAILURE() << e.what() << ": " << r.out;
      return json::object();
    }
  }

  std::string tmp_, pin_dir_, sock_;
  pid_t pid_ = 0;
};

ll_cc_flow_key key(const char *s, std::uint16_t sport, const char *d, std::uint16_t dport)
{
  ll_cc_flow_key k{};
  inet_pton(AF_INET, s, &k.saddr);
  inet_pton(AF_INET, d, &k.daddr);
  k.sport = htons(sport);
  k.dport = htons(dport);
  return k;
}

void put_rp(const cc::Maps &m, const ll_cc_flow_key &k, std::uint64_t bytes, std::uint64_t rate,
            std::uint64_t last_ns)
{
  ll_cc_rp v{};
  v.bytes = bytes;
  v.pkts = bytes / 1000;
  v.rate_kbps = rate;
  v.cnps = 2;
  v.last_ns = last_ns;
  ASSERT_EQ(bpf_map_update_elem(m.rp_fd(), &k, &v, BPF_ANY), 0) << std::strerror(errno);
}

bool has_rp(const cc::Maps &m, const ll_cc_flow_key &k)
{
  ll_cc_rp v;
  return bpf_map_lookup_elem(m.rp_fd(), &k, &v) == 0;
}

TEST_F(HostCcDaemon, AloneOnAVethPair)
{
  // A host: [host_cc] and no pool. The veth's link speed (10 Gbit/s) is the
  // line rate; the period given takes the idle times to 20 T.
  std::string config = write_config(
      "algo = \"pcn\"\nports = [\"hcc0\"]\nline-rate = \"auto\"\nperiod = \"100us\"\n"
      "gc-idle = \"1s\"\ntop-flows = 2\n");
  ASSERT_EQ(run({kLosslessd, "--config", config, "--check"}, tmp_).rc, 0);
  start(config);
  unsigned idx = if_nametoindex("hcc0");
  ASSERT_NE(idx, 0u);

  // Attached on both hooks; the maps pinned where the file says.
  cc::Attached ids = cc::attached(idx);
  EXPECT_TRUE(ids.both());
  EXPECT_FALSE(cc::attached(if_nametoindex("hcc1")).any());
  ASSERT_TRUE(cc::Maps::pinned(pin_dir_));
  cc::Maps maps = cc::Maps::open_pinned(pin_dir_);

  // The config map: ll_cc's derivation at the link speed.
  cc::Overrides o;
  ASSERT_EQ(cc::parse_param("period", "100us", o), "");
  cc::Config want = cc::derive(cc::Algo::Pcn, 10000000, o);
  EXPECT_EQ(maps.config(), want);
  EXPECT_EQ(maps.config().pcn.rp_idle_ns, 2000000u);
  EXPECT_EQ(maps.config().rp_horizon_ns, 400000u);

  // Flows: three fresh ones (last_ns ahead of now: never idle), top 2 and
  // the third summed; one idle for an hour, which gc deletes.
  std::uint64_t now = cc::monotonic_ns();
  std::uint64_t ahead = now + 3600ULL * 1000000000ULL;
  auto big = key("10.0.0.1", 1000, "10.0.0.2", 4791);
  auto mid = key("10.0.0.1", 1001, "10.0.0.2", 4791);
  auto small = key("10.0.0.1", 1002, "10.0.0.2", 4791);
  auto idle = key("10.0.0.1", 1003, "10.0.0.2", 4791);
  put_rp(maps, big, 3000000, 5000000, ahead);
  put_rp(maps, mid, 2000000, 4000000, ahead);
  put_rp(maps, small, 1000000, 3000000, ahead);
  put_rp(maps, idle, 500000, 2000000, now > 3600000000000ULL ? now - 3600000000000ULL : 1);
  // Counters: CNPs sent on CPU 0.
  int ncpus = libbpf_num_possible_cpus();
  ASSERT_GT(ncpus, 0);
  std::vector<ll_cc_stats> per(static_cast<std::size_t>(ncpus));
  per[0].cnps_sent = 7;
  per[0].rp_refused_pkts = 3;
  per[0].cnp_parse_error[1] = 2;
  std::uint32_t zero = 0;
  ASSERT_EQ(bpf_map_update_elem(maps.stats_fd(), &zero, per.data(), BPF_ANY), 0);

  // gc (every gc-idle / 4): the idle flow goes, the fresh ones stay.
  EXPECT_TRUE(eventually([&] { return !has_rp(maps, idle); }))
      << "gc did not delete the idle flow";
  EXPECT_TRUE(has_rp(maps, big) && has_rp(maps, mid) && has_rp(maps, small));

  // losslessctl status --json: the host_cc block beside the (no) pools.
  json s;
  ASSERT_TRUE(eventually([&] {
    s = status();
    return s.contains("host_cc") && s["host_cc"]["rp_flows"]["total"] == 3 &&
           s["host_cc"]["counters"]["cnps_sent"] == 7;
  })) << s.dump(2);
  const json &h = s["host_cc"];
  EXPECT_EQ(s["pools"], json::array());
  EXPECT_EQ(h["algo"], "pcn");
  EXPECT_EQ(h["line_rate_kbps"], 10000000);
  EXPECT_EQ(h["line_rate_auto"], true);
  EXPECT_EQ(h["config"]["pcn"]["period_ns"], 100000);
  ASSERT_EQ(h["ports"].size(), 1u);
  EXPECT_EQ(h["ports"][0]["dev"], "hcc0");
  EXPECT_EQ(h["ports"][0]["state"], "attached");
  EXPECT_EQ(h["ports"][0]["ingress_prog_id"], *ids.ingress);
  EXPECT_EQ(h["counters"]["rp_refused_pkts"], 3);
  EXPECT_EQ(h["counters"]["cnp_malformed"], 2);
  EXPECT_GE(h["gc"]["rp_deleted"].get<int>(), 1);
  const json &rp = h["rp_flows"];
  ASSERT_EQ(rp["top"].size(), 2u);
  EXPECT_EQ(rp["top"][0]["flow"], "10.0.0.1:1000>10.0.0.2:4791");
  EXPECT_EQ(rp["top"][0]["rate_mbps"], 5000.0);
  EXPECT_EQ(rp["top"][1]["flow"], "10.0.0.1:1001>10.0.0.2:4791");
  EXPECT_EQ(rp["rest"]["flows"], 1);
  EXPECT_EQ(rp["rest"]["bytes"], 1000000);
  EXPECT_EQ(h["np_flows"]["total"], 0);

  // The table too.
  Result table = run({kLosslessctl, "--socket", sock_, "status"}, tmp_);
  EXPECT_EQ(table.rc, 0) << table.err;
  EXPECT_NE(table.out.find("host congestion control pcn"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("10.0.0.1:1000>10.0.0.2:4791"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("(1 other flows)"), std::string::npos) << table.out;

  // /metrics: the counter families, and per-flow gauges for the top 2 and
  // "other" only.
  std::string m = http_get(kPromPort, "/metrics");
  EXPECT_NE(m.find("lossless_host_cc_info{algo=\"pcn\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("# TYPE lossless_host_cc_cnps_sent_total counter\n"
                   "lossless_host_cc_cnps_sent_total 7\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("lossless_host_cc_rp_refused_pkts_total 3\n"), std::string::npos);
  EXPECT_NE(m.find("lossless_host_cc_cnps_received_total 0\n"), std::string::npos);
  EXPECT_NE(m.find("lossless_host_cc_np_ce_pkts_total 0\n"), std::string::npos);
  EXPECT_NE(m.find("lossless_host_cc_cnp_unknown_flow_total 0\n"), std::string::npos);
  EXPECT_NE(m.find("lossless_host_cc_flows{map=\"rp\"} 3\n"), std::string::npos);
  EXPECT_NE(m.find("lossless_host_cc_flow_rate_bits_per_second{map=\"rp\",flow=\"10.0.0.1:1000>10.0.0.2:"
                   "4791\"} 5000000000\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("lossless_host_cc_flow_bytes{map=\"rp\",flow=\"other\"} 1000000\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("lossless_host_cc_other_flows{map=\"rp\"} 1\n"), std::string::npos);
  EXPECT_EQ(m.find("10.0.0.1:1002"), std::string::npos) << "beyond top-flows: summed only";
  // Bounded: at most top-flows + 1 series per map and family (here the
  // RP map's 2 and "other", the empty NP map's "other").
  std::size_t series = 0;
  for (std::size_t at = 0; (at = m.find("\nlossless_host_cc_flow_bytes{", at)) != std::string::npos;
       at++)
    series++;
  EXPECT_EQ(series, (2u + 1) + 1);

  // A reload switches the algorithm in place (the same programs).
  std::string next = write_config(
      "algo = \"dcqcn\"\nports = [\"hcc0\"]\nline-rate = \"25gbit\"\nrai = \"10mbit\"\n");
  ASSERT_EQ(next, config);
  Result rl = run({kLosslessctl, "--socket", sock_, "reload"}, tmp_);
  EXPECT_EQ(rl.rc, 0) << rl.out << rl.err;
  cc::Config c = maps.config();
  EXPECT_EQ(c.algo, cc::Algo::Dcqcn);
  EXPECT_EQ(c.dcqcn.line_rate_kbps, 25000000u);
  EXPECT_EQ(c.dcqcn.rai_kbps, 10000u);
  EXPECT_EQ(c.rp_horizon_ns, 4 * c.dcqcn.rate_timer_ns);
  EXPECT_TRUE(cc::attached(idx).both());
  // A reload that moves it to another port: attached there, detached here.
  write_config("algo = \"dcqcn\"\nports = [\"hcc1\"]\nline-rate = \"25gbit\"\n"
               "rai = \"10mbit\"\n");
  rl = run({kLosslessctl, "--socket", sock_, "reload"}, tmp_);
  EXPECT_EQ(rl.rc, 0) << rl.out << rl.err;
  EXPECT_FALSE(cc::attached(idx).any());
  EXPECT_TRUE(cc::attached(if_nametoindex("hcc1")).both());
  EXPECT_EQ(status()["host_cc"]["ports"][0]["dev"], "hcc1");
  write_config("algo = \"dcqcn\"\nports = [\"hcc0\"]\nline-rate = \"25gbit\"\n"
               "rai = \"10mbit\"\n");
  rl = run({kLosslessctl, "--socket", sock_, "reload"}, tmp_);
  EXPECT_EQ(rl.rc, 0) << rl.out << rl.err;
  EXPECT_TRUE(cc::attached(idx).both());
  EXPECT_FALSE(cc::attached(if_nametoindex("hcc1")).any());
  EXPECT_EQ(maps.config(), c);
  // A refused reload keeps the running configuration.
  write_config("algo = \"dcqcn\"\nports = [\"hcc0\"]\nline-rate = \"25gbit\"\nw-min = \"1/2\"\n");
  rl = run({kLosslessctl, "--socket", sock_, "reload"}, tmp_);
  EXPECT_NE(rl.rc, 0);
  EXPECT_NE((rl.out + rl.err).find("w-min"), std::string::npos) << rl.out << rl.err;
  EXPECT_EQ(maps.config(), c);

  // Exit: the programs stay, as the qdiscs do; --cleanup removes them.
  EXPECT_EQ(stop(), 0);
  EXPECT_TRUE(cc::attached(idx).both());
  EXPECT_EQ(maps.config(), c);
  write_config("algo = \"dcqcn\"\nports = [\"hcc0\"]\nline-rate = \"25gbit\"\n");
  Result cl = run({kLosslessd, "--config", config, "--cleanup"}, tmp_);
  EXPECT_EQ(cl.rc, 0) << cl.err;
  EXPECT_FALSE(cc::attached(idx).any());
  EXPECT_FALSE(cc::Maps::pinned(pin_dir_));
}

TEST_F(HostCcDaemon, APortThatComesBackIsAttachedAgain)
{
  std::string config = write_config(
      "algo = \"dcqcn\"\nports = [\"hcc0\"]\nline-rate = \"10gbit\"\ngc-idle = 0\n");
  start(config);
  ASSERT_TRUE(cc::attached(if_nametoindex("hcc0")).both());
  // Gone: missing in status; back (a new ifindex): attached again.
  lltest::must_sh("ip link del hcc0");
  json s;
  EXPECT_TRUE(eventually([&] {
    s = status();
    return s.contains("host_cc") && s["host_cc"]["ports"][0]["state"] == "missing";
  })) << s.dump(2);
  lltest::must_sh("ip link add hcc0 type veth peer name hcc1 && ip link set hcc0 up && "
                  "ip link set hcc1 up");
  unsigned idx = if_nametoindex("hcc0");
  EXPECT_TRUE(eventually([&] { return cc::attached(idx).both(); }));
  EXPECT_TRUE(eventually([&] {
    s = status();
    return s.contains("host_cc") && s["host_cc"]["ports"][0]["state"] == "attached" &&
           s["host_cc"]["ports"][0]["ifindex"] == idx;
  })) << s.dump(2);
  // gc-idle 0: no gc.
  EXPECT_EQ(s["host_cc"]["gc"]["runs"], 0);
  EXPECT_EQ(stop(), 0);
}

TEST_F(HostCcDaemon, CheckRefusesWhatTheSystemCannotGive)
{
  // A missing device, named with the file and line.
  std::string config = write_config("algo = \"pcn\"\nports = [\"nosuch0\"]\n");
  Result r = run({kLosslessd, "--config", config, "--check"}, tmp_);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(config + ":5: [host_cc]: ports: \"nosuch0\": no such network device"),
            std::string::npos)
      << r.err;
  // "auto" on a device without a link speed (lo).
  config = write_config("algo = \"pcn\"\nports = [\"lo\"]\n");
  r = run({kLosslessd, "--config", config, "--check"}, tmp_);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find("line-rate \"auto\" needs a link speed"), std::string::npos) << r.err;
  // With auto, ll_cc's check runs at the link speed (10 Gbit/s): a floor
  // above it is refused naming both.
  config = write_config("algo = \"pcn\"\nports = [\"hcc0\"]\nmin-rate = \"20gbit\"\n");
  r = run({kLosslessd, "--config", config, "--check"}, tmp_);
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.err.find(":9: [host_cc]: min-rate \"20gbit\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("line-rate \"auto\" (10gbit)"), std::string::npos) << r.err;
  // Nothing was attached by --check.
  EXPECT_FALSE(cc::attached(if_nametoindex("hcc0")).any());
}

TEST_F(HostCcDaemon, TheExampleFilePassesCheck)
{
  // docs/examples/host-cc.toml on a host with eth0 (a veth here) and the
  // default pin directory on a bpffs.
  Result r = run({kLosslessd, "--config", LL_DOCS_DIR "/examples/host-cc.toml", "--check"}, tmp_);
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("valid (0 pools, 0 ports, host_cc pcn on 1 ports)"), std::string::npos)
      << r.out;
}

}  // namespace
