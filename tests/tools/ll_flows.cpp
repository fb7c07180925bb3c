// ll-flows: message-based flows over UDP for the comparison bench
// (tests/compare, docs/COMPARE.md): Poisson arrivals with sizes drawn from a
// workload CDF, plus synchronised incast bursts; the receiver records each
// flow's completion time.
//
//   ll-flows send --dst ADDR[,ADDR...] --port N --rate-mbit R --duration S
//                 [--cdf FILE --load L [--size-scale K]] [--incast-size B ...]
//                 [--roce]
//   ll-flows recv --port N [--duration S] [--idle-exit S] [--t0-ns T] [--roce]
//   ll-flows cdf  --cdf FILE [--size-scale K] [--count N]
//
// A flow is a message of SIZE bytes cut into datagrams of at most --payload
// bytes, each starting with a 56-byte header (flow id, class, size, offset,
// the flow's start time). The network is lossless, so nothing is ever
// retransmitted. With --roce every datagram is a RoCEv2 packet instead
// (UDP port 4791, an InfiniBand BTH before the header, an ICRC after the
// data, ECT(0)), as the hosts' PCN and DCQCN key their flows on it. Times are CLOCK_MONOTONIC nanoseconds, which all network
// namespaces of a machine share, so a receiver subtracts a sender's start
// time from its own receive time.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include "udp_socket.h"
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr uint32_t kMagic = 0x4c4c464c;  // "LLFL"
// Link-layer bytes around a UDP payload: UDP 8, IPv4 20, Ethernet 14 (what
// the shapers charge; ll-traffic counts the same).
constexpr uint64_t kWireOverhead = 8 + 20 + 14;
constexpr size_t kMaxPayload = 1472;  // one 1500-byte IPv4 packet, no fragments
constexpr int kExitUsage = 2;

enum FlowClass : uint8_t { kBackground = 0, kIncast = 1 };
const char *class_name(uint8_t c)
{
  return c == kIncast ? "incast" : "background";
}

// Every datagram starts with this, in host byte order (sender and receiver
// run on one machine).
struct Header {
  uint32_t magic;
  uint16_t sender;  // --sender of the sending ll-flows
  uint8_t cls;      // FlowClass
  uint8_t reserved;
  uint32_t flow;  // flow id, unique per sender
  uint32_t reserved2;
  uint64_t seq;       // datagram number per (sender, destination), from 0
  uint64_t size;      // the flow's size in bytes (message bytes, no headers)
  uint64_t offset;    // offset of this datagram's data in the flow
  uint64_t start_ns;  // the flow's start (its scheduled arrival)
  uint64_t sent_ns;   // when this datagram was handed to the socket
};
static_assert(sizeof(Header) == 56, "the header is 56 bytes on the wire");
constexpr uint64_t kHeaderBytes = sizeof(Header);

// RoCEv2 (IBTA Annex A17): UDP destination port 4791, then the 12-byte
// Base Transport Header, network byte order, then the payload padded to 4
// bytes, then a 4-byte ICRC. One reliable-connected queue pair per flow,
// numbered from the flow id on both ends (roce_qp(): QPs 0 and 1 are
// InfiniBand's management QPs, so flow f is QP f + 2): BTH's destination
// QP is that number, its PSN the datagram's index in the flow, its opcode RC SEND
// First/Middle/Last/Only. The ICRC is not computed (0): nothing checks it
// between two Linux hosts, and tshark does not verify it by default.
constexpr int kRocePort = 4791;
constexpr uint64_t kBthBytes = 12, kIcrcBytes = 4;
enum RoceOpcode : uint8_t {
  kRcSendFirst = 0x00,
  kRcSendMiddle = 0x01,
  kRcSendLast = 0x02,
  kRcSendOnly = 0x04,
};
constexpr int kEctZero = 2;  // the IP ECN field's ECT(0)

uint32_t roce_qp(uint32_t flow)
{
  return 2 + flow % ((1u << 24) - 2);
}

// How a datagram is framed: the plain header, or RoCEv2 around it.
struct Framing {
  bool roce = false;

  // Bytes around a datagram's data, for a datagram of len data bytes.
  uint64_t overhead(uint64_t len) const
  {
    return kHeaderBytes + (roce ? kBthBytes + pad(len) + kIcrcBytes : 0);
  }
  // The smallest overhead: what a datagram of --payload bytes leaves for
  // data (the pad is taken from it where needed).
  uint64_t fixed() const { return kHeaderBytes + (roce ? kBthBytes + kIcrcBytes : 0); }
  // Data bytes per datagram of payload bytes: a multiple of 4 with RoCE,
  // so that only a flow's last datagram is padded (within the payload).
  uint64_t data(uint64_t payload) const
  {
    return roce ? (payload - fixed()) & ~uint64_t(3) : payload - fixed();
  }
  // The smallest --payload: one data byte (four with RoCE).
  uint64_t min_payload() const { return fixed() + (roce ? 4 : 1); }
  // Pad to 4 bytes after the header (56 bytes, a multiple of 4) and data.
  static uint64_t pad(uint64_t len) { return (4 - len % 4) % 4; }
};

// The BTH of a flow's datagram: opcode by its place in the flow, the pad
// count, P_Key 0xffff (the default partition), QP and PSN.
void put_bth(uint8_t *b, uint32_t qp, uint64_t offset, uint64_t len, uint64_t size,
             uint64_t data_per_datagram)
{
  bool first = offset == 0, last = offset + len >= size;
  uint8_t op = first && last ? kRcSendOnly : first ? kRcSendFirst : last ? kRcSendLast
                                                                         : kRcSendMiddle;
  uint32_t psn = uint32_t(offset / data_per_datagram) & 0xffffff;
  b[0] = op;
  b[1] = uint8_t(Framing::pad(len) << 4);  // SE 0, M 0, pad count, TVer 0
  b[2] = 0xff;
  b[3] = 0xff;
  b[4] = 0;
  b[5] = uint8_t(qp >> 16);
  b[6] = uint8_t(qp >> 8);
  b[7] = uint8_t(qp);
  b[8] = 0;  // AckReq 0: nothing is acknowledged on a lossless network
  b[9] = uint8_t(psn >> 16);
  b[10] = uint8_t(psn >> 8);
  b[11] = uint8_t(psn);
}

// A received RoCEv2 payload's BTH: its pad count if it is one of ours (an
// RC SEND opcode, TVer 0), else -1.
int parse_bth(const uint8_t *b, size_t n)
{
  if (n < kBthBytes + kHeaderBytes + kIcrcBytes)
    return -1;
  uint8_t op = b[0];
  if (op != kRcSendFirst && op != kRcSendMiddle && op != kRcSendLast && op != kRcSendOnly)
    return -1;
  if (b[1] & 0x0f)
    return -1;  // a transport header version we do not speak
  return (b[1] >> 4) & 3;
}

using ll_tools::mono_ns;

void sleep_until_ns(uint64_t t)
{
  timespec ts{static_cast<time_t>(t / 1000000000ULL), static_cast<long>(t % 1000000000ULL)};
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

[[noreturn]] void die(const std::string &msg)
{
  std::fprintf(stderr, "ll-flows: %s\n", msg.c_str());
  std::exit(kExitUsage);
}

const char *kUsage =
    "usage: ll-flows send --dst ADDR[,ADDR...] --port N --rate-mbit R --duration S [options]\n"
    "       ll-flows recv --port N [options]\n"
    "       ll-flows cdf --cdf FILE [options]\n"
    "\n"
    "Message-based flows over UDP. A flow of SIZE bytes goes out as datagrams of\n"
    "at most --payload bytes, each with a 56-byte header (sender, flow id, class,\n"
    "size, offset, the flow's start time); the flow is complete when the receiver\n"
    "has all its bytes. Nothing is retransmitted: the network is lossless.\n"
    "\n"
    "send: generates the flows of S seconds, then sends them. Concurrently active\n"
    "flows take turns one datagram at a time (round robin, like a NIC's queue\n"
    "pairs). The host's qdisc paces the datagrams: a datagram refused (ENOBUFS:\n"
    "the queue is full, or the host's congestion control holds the flow back)\n"
    "holds back its destination for --retry-us, and the flows to others send\n"
    "meanwhile, as a NIC's rate limiter holds one queue pair at no cost to the\n"
    "others; when every active flow's destination is held back the sender\n"
    "sleeps until the first is free. A full socket buffer blocks it. Flows\n"
    "generated in the S seconds are sent to the end.\n"
    "  --dst ADDR[,ADDR]  IPv4 receivers; each background flow picks one uniformly\n"
    "  --port N           UDP destination port\n"
    "  --rate-mbit R      the sender's line rate in Mbit/s (what --load is a\n"
    "                     fraction of; the qdisc, not this tool, enforces it)\n"
    "  --duration S       flows start in [t0, t0 + S) (seconds, fractions allowed)\n"
    "  --t0-ns T          t0 in CLOCK_MONOTONIC ns, to start several senders at\n"
    "                     the same instant (default: now)\n"
    "  --sender ID        sender id in every header, 0..65535 (default 0)\n"
    "  --seed N           seed of the background flows (default 1)\n"
    "  --cdf FILE         flow-size CDF: lines \"SIZE_BYTES CDF\", CDF in percent\n"
    "                     (last 100) or as a fraction (last 1), both strictly\n"
    "                     increasing from CDF 0, linear in between; '#' comments\n"
    "  --load L           background load, 0 < L <= 1: Poisson flow arrivals at\n"
    "                     rate L x line rate / mean flow size on the wire (sizes\n"
    "                     with headers: UDP payload + 42 bytes per datagram)\n"
    "  --size-scale K     divide every sampled size by K >= 1 (default 1): the\n"
    "                     papers' CDFs are for 10-100 Gbit/s links\n"
    "  --incast-size B    incast flows of B bytes (default: no incast)\n"
    "  --incast-flows K   flows per burst from this sender (default 1)\n"
    "  --incast-period P  a burst every P seconds ...\n"
    "  --incast-start T   ... the first at t0 + T (default P)\n"
    "  --incast-poisson   ... or exponential gaps of mean P, drawn from\n"
    "                     --incast-seed N (default 1): give every sender the same\n"
    "                     seed and t0 and their bursts coincide (a fan-in)\n"
    "  --incast-at T,T    bursts at these times after t0 instead (seconds)\n"
    "  --incast-dst ADDR  where incast flows go (default: the first --dst)\n"
    "  --payload B        UDP payload bytes per datagram, 57..1472 (default 1000)\n"
    "  --prio P           SO_PRIORITY (skb->priority), 0..15 (default 0)\n"
    "  --dscp D           DSCP of the packets, 0..63 (default 0)\n"
    "  --sndbuf BYTES     socket send buffer (SO_SNDBUFFORCE; default: the\n"
    "                     system's). A datagram stays charged to it until the\n"
    "                     receiver takes it, so it bounds the bytes in flight\n"
    "  --retry-us U       how long a refused destination is held back (default 1000)\n"
    "  --max-drain S      stop S seconds after t0 + duration even if flows are\n"
    "                     unfinished (default 120); they are reported as such\n"
    "  --dry-run          print the flows that would be sent, send nothing\n"
    "  --roce             RoCEv2 packets: UDP port 4791 (the --port default), an\n"
    "                     InfiniBand BTH (RC SEND First/Middle/Last/Only; destination\n"
    "                     QP = the flow id + 2, PSN = the datagram's index in the flow)\n"
    "                     before the header, a 4-byte ICRC (0) after the data, data\n"
    "                     padded to 4 bytes, ECN ECT(0): 72 bytes of headers a\n"
    "                     datagram, tshark decodes them as RoCE\n"
    "recv: one UDP socket; counts the bytes of every flow and records when its\n"
    "last byte arrived (kernel receive time, SO_TIMESTAMPNS). Stops at\n"
    "--duration, --idle-exit, or on SIGINT/SIGTERM, then prints its report.\n"
    "  --port N           UDP port to listen on (all addresses)\n"
    "  --duration S       stop after S seconds (default 600)\n"
    "  --idle-exit S      stop S seconds after the last datagram (default 0: off)\n"
    "  --t0-ns T          start of the utilisation buckets (default: now)\n"
    "  --bucket-ms B      wire bytes of all flows per B ms, by kernel receive\n"
    "                     time (default 100; 0 = off)\n"
    "  --roce             take RoCEv2 datagrams (as send --roce; --port default\n"
    "                     4791) and count each flow's CE-marked ones (\"ce\")\n"
    "cdf: reads a CDF and prints its mean (file, scaled, on the wire) and the\n"
    "statistics of --count N samples (default 100000) drawn as send draws them.\n"
    "  --cdf FILE, --size-scale K, --payload B, --seed N, --roce as for send\n"
    "\n"
    "Each mode prints one JSON object on stdout (docs/COMPARE.md has the fields).\n"
    "Times are CLOCK_MONOTONIC ns. FCT = completion - start, where start is the\n"
    "flow's scheduled arrival at its sender. Exit status 0, 2 on bad usage or a\n"
    "socket error.\n";

// Options that take no value, and the options each mode accepts.
bool is_flag(std::string_view k)
{
  return k == "--incast-poisson" || k == "--dry-run" || k == "--roce";
}

const std::set<std::string> kSendOpts = {
    "dst",         "port",         "rate-mbit",     "duration",     "t0-ns",
    "sender",      "seed",         "cdf",           "load",         "size-scale",
    "incast-size", "incast-flows", "incast-period", "incast-start", "incast-poisson",
    "incast-seed", "incast-at",    "incast-dst",    "payload",      "prio",
    "dscp",        "sndbuf",       "retry-us",      "max-drain",    "dry-run",
    "roce"};
const std::set<std::string> kRecvOpts = {"port",  "duration",  "idle-exit",
                                         "t0-ns", "bucket-ms", "roce"};
const std::set<std::string> kCdfOpts = {"cdf", "size-scale", "count", "seed", "payload", "roce"};

struct Args {
  std::map<std::string, std::string> kv;

  bool has(const std::string &k) const { return kv.count(k) != 0; }
  std::optional<std::string> get(const std::string &k) const
  {
    auto it = kv.find(k);
    if (it == kv.end())
      return std::nullopt;
    return it->second;
  }
  double num(const std::string &k, double def) const
  {
    auto v = get(k);
    if (!v)
      return def;
    char *end = nullptr;
    errno = 0;
    double d = std::strtod(v->c_str(), &end);
    if (end == v->c_str() || *end || errno || !std::isfinite(d))
      die("--" + k + ": not a number: \"" + *v + "\"");
    return d;
  }
  // An integer option in [lo, hi].
  uint64_t integer(const std::string &k, uint64_t def, uint64_t lo, uint64_t hi) const
  {
    auto v = get(k);
    if (!v)
      return def;
    char *end = nullptr;
    errno = 0;
    unsigned long long x = std::strtoull(v->c_str(), &end, 10);
    if (v->empty() || (*v)[0] == '-' || end == v->c_str() || *end || errno || x < lo || x > hi)
      die("--" + k + ": want an integer " + std::to_string(lo) + ".." + std::to_string(hi) +
          ", got \"" + *v + "\"");
    return x;
  }
  // A number in (lo, hi] or [lo, hi].
  double ranged(const std::string &k, double def, double lo, double hi, bool lo_open,
                const char *what) const
  {
    double d = num(k, def);
    if (has(k) && (d > hi || d < lo || (lo_open && d == lo)))
      die("--" + k + ": " + what);
    return d;
  }
};

Args parse(int argc, char **argv, int from, const std::set<std::string> &allowed,
           std::string_view mode)
{
  Args a;
  for (int i = from; i < argc; i++) {
    std::string_view k = argv[i];
    if (k == "--help" || k == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    }
    if (k.substr(0, 2) != "--")
      die("unexpected argument \"" + std::string(k) + "\" (see ll-flows --help)");
    std::string key(k.substr(2));
    if (!allowed.count(key))
      die(std::string(mode) + " has no option " + std::string(k) + " (see ll-flows --help)");
    if (a.kv.count(key))
      die("option " + std::string(k) + " given twice");
    if (is_flag(k)) {
      a.kv[key] = "1";
      continue;
    }
    if (i + 1 >= argc)
      die("option " + std::string(k) + " needs a value");
    a.kv[key] = argv[++i];
  }
  return a;
}

std::vector<std::string> split(const std::string &s, char sep)
{
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    out.push_back(cur);
  return out;
}

// A flow-size distribution: piecewise-linear CDF, as HPCC's traffic_gen reads
// it (custom_rand.py): a percentile u in [0, 100) maps to the size on the
// segment whose CDF first reaches u, linearly interpolated.
class SizeCdf {
 public:
  SizeCdf(const std::string &path, double scale, uint64_t payload, Framing fr)
      : scale_(scale), data_(fr.data(payload)), fr_(fr)
  {
    std::ifstream in(path);
    if (!in)
      die("--cdf " + path + ": cannot open: " + std::strerror(errno));
    std::string line;
    for (int no = 1; std::getline(in, line); no++) {
      line = line.substr(0, line.find('#'));
      std::istringstream ls(line);
      double x, y;
      std::string extra;
      if (!(ls >> x)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos)
          die(path + ":" + std::to_string(no) + ": want \"SIZE_BYTES CDF\", got \"" + line + "\"");
        continue;
      }
      if (!(ls >> y) || (ls >> extra))
        die(path + ":" + std::to_string(no) + ": want \"SIZE_BYTES CDF\", got \"" + line + "\"");
      if (x < 0 || y < 0)
        die(path + ":" + std::to_string(no) + ": negative value");
      if (!pts_.empty() && (x <= pts_.back().first || y <= pts_.back().second))
        die(path + ":" + std::to_string(no) + ": sizes and CDF values must both increase");
      pts_.push_back({x, y});
    }
    if (pts_.size() < 2)
      die("--cdf " + path + ": needs at least two points");
    if (pts_.front().second != 0)
      die("--cdf " + path + ": the first point's CDF must be 0");
    double last = pts_.back().second;
    if (last != 100 && last != 1)
      die("--cdf " + path + ": the last point's CDF must be 100 (percent) or 1 (fraction)");
    percent_ = last == 100;
    for (auto &p : pts_)
      p.second *= percent_ ? 1 : 100;
  }

  // The size at percentile u in [0, 100], as in the file (unscaled).
  double quantile(double u) const
  {
    for (size_t i = 1; i < pts_.size(); i++)
      if (u <= pts_[i].second) {
        auto [x0, y0] = pts_[i - 1];
        auto [x1, y1] = pts_[i];
        return x0 + (x1 - x0) / (y1 - y0) * (u - y0);
      }
    return pts_.back().first;
  }
  // A flow size for percentile u: the file's size truncated to whole bytes
  // (as traffic_gen.py does), divided by the scale, at least 1 byte.
  uint64_t size_at(double u) const
  {
    double s = std::floor(quantile(u)) / scale_;
    return std::max<uint64_t>(1, uint64_t(std::llround(s)));
  }
  // The file's mean (trapezoids, as custom_rand.py's getAvg), unscaled.
  double mean_file() const
  {
    double s = 0;
    for (size_t i = 1; i < pts_.size(); i++)
      s += (pts_[i].first + pts_[i - 1].first) / 2 * (pts_[i].second - pts_[i - 1].second);
    return s / 100;
  }
  // Means of size_at() and of wire_bytes(size_at()) over u (midpoint rule
  // on the quantile function: deterministic, well within 0.1 %).
  std::pair<double, double> means() const
  {
    constexpr int kN = 200000;
    double s = 0, w = 0;
    for (int i = 0; i < kN; i++) {
      uint64_t z = size_at((i + 0.5) * 100.0 / kN);
      s += double(z);
      w += double(wire_bytes(z));
    }
    return {s / kN, w / kN};
  }
  uint64_t wire_bytes(uint64_t size) const
  {
    uint64_t full = size / data_, rest = size % data_;
    return size + full * (fr_.overhead(data_) + kWireOverhead) +
           (rest ? fr_.overhead(rest) + kWireOverhead : 0);
  }
  bool percent() const { return percent_; }
  size_t points() const { return pts_.size(); }

 private:
  std::vector<std::pair<double, double>> pts_;
  double scale_;
  uint64_t data_;
  Framing fr_;
  bool percent_ = true;
};

// Uniform [0, 1) and exponential draws from mt19937_64 written out here, so
// that a seed gives the same flows with any standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : g_(seed) {}
  double uniform() { return double(g_() >> 11) * (1.0 / 9007199254740992.0); }
  double exponential(double mean) { return -std::log(1.0 - uniform()) * mean; }
  size_t index(size_t n) { return std::min(n - 1, size_t(uniform() * double(n))); }

 private:
  std::mt19937_64 g_;
};

int do_cdf(const Args &a)
{
  auto path = a.get("cdf");
  if (!path)
    die("cdf needs --cdf FILE");
  double scale = a.ranged("size-scale", 1, 1, 1e9, false, "want a number >= 1");
  Framing fr{a.has("roce")};
  uint64_t payload = a.integer("payload", 1000, fr.min_payload(), kMaxPayload);
  uint64_t count = a.integer("count", 100000, 1, 100000000);
  SizeCdf cdf(*path, scale, payload, fr);
  Rng rng(a.integer("seed", 1, 0, UINT64_MAX));
  std::vector<uint64_t> v(count);
  double sum = 0;
  for (auto &x : v) {
    x = cdf.size_at(rng.uniform() * 100);
    sum += double(x);
  }
  std::sort(v.begin(), v.end());
  auto pct = [&](double p) {
    return v[std::min(v.size() - 1, size_t(p / 100 * double(v.size())))];
  };
  auto [mean_scaled, mean_wire] = cdf.means();
  std::printf(
      "{\"mode\":\"cdf\",\"points\":%zu,\"unit\":\"%s\",\"size_scale\":%g,\"payload\":%llu,"
      "\"mean_file\":%.1f,\"mean_scaled\":%.1f,\"mean_wire\":%.1f,\"count\":%llu,"
      "\"sample_mean\":%.1f,\"sample_min\":%llu,\"sample_p50\":%llu,\"sample_p99\":%llu,"
      "\"sample_max\":%llu}\n",
      cdf.points(), cdf.percent() ? "percent" : "fraction", scale, (unsigned long long)payload,
      cdf.mean_file(), mean_scaled, mean_wire, (unsigned long long)count, sum / double(count),
      (unsigned long long)v.front(), (unsigned long long)pct(50), (unsigned long long)pct(99),
      (unsigned long long)v.back());
  return 0;
}

struct Flow {
  uint64_t start_ns, size;
  uint8_t cls;
  size_t dst;         // index into the destinations
  uint64_t sent = 0;  // bytes handed to the socket
  uint32_t id = 0;
};

struct Dest {
  std::string addr;
  sockaddr_in sa{};
  uint64_t seq = 0;  // next datagram number to this destination
  // A datagram to it was refused (ENOBUFS): its flows wait until then.
  uint64_t held_until_ns = 0;
};

sockaddr_in to_sockaddr(const std::string &addr, int port, const char *opt)
{
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(uint16_t(port));
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1)
    die(std::string(opt) + ": not an IPv4 address: \"" + addr + "\"");
  return sa;
}

std::vector<double> times_list(const std::string &s, const char *opt)
{
  std::vector<double> out;
  for (auto &t : split(s, ',')) {
    char *end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end == t.c_str() || *end || !std::isfinite(d) || d < 0)
      die(std::string(opt) + ": want seconds >= 0 separated by commas, got \"" + s + "\"");
    out.push_back(d);
  }
  return out;
}


int do_send(const Args &a)
{
  auto dst_opt = a.get("dst");
  if (!dst_opt)
    die("send needs --dst ADDR[,ADDR...]");
  Framing fr{a.has("roce")};
  int port = int(a.integer("port", kRocePort, 1, 65535));
  if (!a.has("port") && !fr.roce)
    die("send needs --port N");
  if (!a.has("rate-mbit"))
    die("send needs --rate-mbit R (the sender's line rate)");
  double rate_mbit = a.ranged("rate-mbit", 0, 0, 1e6, true, "want a rate > 0 Mbit/s");
  if (!a.has("duration"))
    die("send needs --duration S");
  double duration = a.ranged("duration", 0, 0, 1e6, true, "want seconds > 0");
  uint64_t payload = a.integer("payload", 1000, fr.min_payload(), kMaxPayload);
  uint64_t data = fr.data(payload);
  uint16_t sender = uint16_t(a.integer("sender", 0, 0, 65535));
  uint64_t seed = a.integer("seed", 1, 0, UINT64_MAX);
  int prio = int(a.integer("prio", 0, 0, 15));
  int dscp = int(a.integer("dscp", 0, 0, 63));
  int sndbuf = int(a.integer("sndbuf", 0, 0, 1 << 30));
  uint64_t retry_ns = a.integer("retry-us", 1000, 1, 10000000) * 1000;
  double max_drain = a.ranged("max-drain", 120, 0, 1e6, false, "want seconds >= 0");
  bool dry = a.has("dry-run");

  std::vector<Dest> dsts;
  for (auto &d : split(*dst_opt, ','))
    dsts.push_back({d, to_sockaddr(d, port, "--dst")});
  if (dsts.empty())
    die("--dst: no address");
  const size_t n_bg = dsts.size();

  // Background: Poisson arrivals at the load, sizes from the CDF.
  std::optional<SizeCdf> cdf;
  double load = 0, mean_size = 0, mean_wire = 0, per_s = 0;
  if (a.has("load") != a.has("cdf"))
    die("--load and --cdf go together");
  if (a.has("load")) {
    load = a.ranged("load", 0, 0, 1, true, "want a load 0 < L <= 1 (a fraction of the line rate)");
    double scale = a.ranged("size-scale", 1, 1, 1e9, false, "want a number >= 1");
    cdf.emplace(*a.get("cdf"), scale, payload, fr);
    std::tie(mean_size, mean_wire) = cdf->means();
    per_s = load * rate_mbit * 1e6 / 8 / mean_wire;
  } else if (a.has("size-scale")) {
    die("--size-scale needs --cdf and --load");
  }

  // Incast bursts.
  uint64_t incast_size = a.integer("incast-size", 0, 1, uint64_t(1) << 40);
  bool incast_opts = a.has("incast-flows") || a.has("incast-period") || a.has("incast-start") ||
                     a.has("incast-poisson") || a.has("incast-seed") || a.has("incast-at") ||
                     a.has("incast-dst");
  if (incast_opts && !incast_size)
    die("the --incast-* options need --incast-size B");
  uint64_t incast_flows = a.integer("incast-flows", 1, 1, 10000);
  std::vector<double> bursts;  // seconds after t0
  if (incast_size) {
    if (a.has("incast-at") == a.has("incast-period"))
      die("incast needs exactly one of --incast-period P or --incast-at T,T,...");
    if (a.has("incast-at")) {
      if (a.has("incast-start") || a.has("incast-poisson") || a.has("incast-seed"))
        die("--incast-at takes no --incast-start, --incast-poisson or --incast-seed");
      bursts = times_list(*a.get("incast-at"), "--incast-at");
    } else {
      double period = a.ranged("incast-period", 0, 0, 1e6, true, "want seconds > 0");
      double t = a.ranged("incast-start", period, 0, 1e6, false, "want seconds >= 0");
      Rng gaps(a.integer("incast-seed", 1, 0, UINT64_MAX));
      bool poisson = a.has("incast-poisson");
      if (poisson && !a.has("incast-start"))
        t = gaps.exponential(period);
      for (; t < duration; t += poisson ? gaps.exponential(period) : period)
        bursts.push_back(t);
    }
  }
  size_t incast_dst = 0;
  if (auto d = a.get("incast-dst")) {
    auto it = std::find_if(dsts.begin(), dsts.end(), [&](const Dest &x) { return x.addr == *d; });
    incast_dst = size_t(it - dsts.begin());
    if (it == dsts.end())
      dsts.push_back({*d, to_sockaddr(*d, port, "--incast-dst")});
  }
  if (!cdf && !incast_size)
    die("nothing to send: give --cdf and --load, or --incast-size");

  uint64_t t0 = a.has("t0-ns") ? a.integer("t0-ns", 0, 1, UINT64_MAX) : mono_ns();
  uint64_t end = t0 + uint64_t(duration * 1e9);

  // The schedule, generated in full before anything is sent, so that a
  // seed gives the same flows however the run goes.
  std::vector<Flow> flows;
  if (cdf) {
    Rng rng(seed);
    for (double t = rng.exponential(1 / per_s); t < duration; t += rng.exponential(1 / per_s)) {
      uint64_t size = cdf->size_at(rng.uniform() * 100);
      size_t d = rng.index(n_bg);  // background: among the --dst addresses
      flows.push_back({t0 + uint64_t(t * 1e9), size, kBackground, d});
    }
  }
  for (double b : bursts)
    if (b < duration)
      for (uint64_t k = 0; k < incast_flows; k++)
        flows.push_back({t0 + uint64_t(b * 1e9), incast_size, kIncast, incast_dst});
  std::stable_sort(flows.begin(), flows.end(),
                   [](const Flow &x, const Flow &y) { return x.start_ns < y.start_ns; });
  for (size_t i = 0; i < flows.size(); i++)
    flows[i].id = uint32_t(i);

  uint64_t sent = 0, bytes = 0, enobufs = 0, errors = 0;
  uint64_t stop = 0, late_ns = 0;
  bool abandoned = false;
  if (!dry) {
    ll_tools::UdpSocket s;
    if (auto err = s.set_sender(dscp << 2 | (fr.roce ? kEctZero : 0), sndbuf, prio); !err.empty())
      die(err);
    // Without IP_RECVERR a datagram the qdisc refuses is dropped silently
    // (UDP reports success); with it, send fails with ENOBUFS and the
    // datagram is sent again.
    int one = 1;
    if (setsockopt(s.fd(), IPPROTO_IP, IP_RECVERR, &one, sizeof(one)))
      die(std::string("IP_RECVERR: ") + std::strerror(errno));

    // Flows keep their scheduled start: a sender that starts after t0
    // sends its first flows late, and their FCTs show it.
    uint64_t ready = mono_ns();
    late_ns = ready > t0 ? ready - t0 : 0;
    if (late_ns > 100000000ULL)
      std::fprintf(stderr, "ll-flows: started %.3f s after t0: the first flows start late\n",
                   double(late_ns) / 1e9);
    std::vector<uint8_t> buf(payload + 4, 0x5a);
    std::deque<size_t> active;  // round robin: the front sends next
    // A refused destination (ENOBUFS) is held back for retry_ns: its flows
    // go to the back without a send, the others send at once. A flow the
    // hosts' congestion control paces must not stop the others, nor cost
    // them a refused send per turn (a syscall through the whole stack).
    size_t next = 0;
    uint64_t hard_end = end + uint64_t(max_drain * 1e9);
    for (;;) {
      uint64_t t = mono_ns();
      while (next < flows.size() && flows[next].start_ns <= t)
        active.push_back(next++);
      if (active.empty()) {
        if (next == flows.size())
          break;
        sleep_until_ns(flows[next].start_ns);
        continue;
      }
      if (t >= hard_end) {
        abandoned = true;
        break;
      }
      size_t held = 0;
      uint64_t free_at = UINT64_MAX;
      while (held < active.size() && dsts[flows[active.front()].dst].held_until_ns > t) {
        free_at = std::min(free_at, dsts[flows[active.front()].dst].held_until_ns);
        active.push_back(active.front());
        active.pop_front();
        held++;
      }
      if (held == active.size()) {  // every active flow waits: until one may send
        uint64_t wake = next < flows.size() ? std::min(free_at, flows[next].start_ns) : free_at;
        sleep_until_ns(std::min(wake, hard_end));
        continue;
      }
      Flow &f = flows[active.front()];
      Dest &d = dsts[f.dst];
      uint64_t len = std::min(data, f.size - f.sent);
      Header h{kMagic, sender, f.cls, 0, f.id, 0, d.seq, f.size, f.sent, f.start_ns, mono_ns()};
      uint64_t at = 0;
      if (fr.roce) {
        put_bth(buf.data(), roce_qp(f.id), f.sent, len, f.size, data);
        at = kBthBytes;
      }
      std::memcpy(buf.data() + at, &h, sizeof(h));
      if (fr.roce)  // pad and ICRC: zeros
        std::memset(buf.data() + at + kHeaderBytes + len, 0, Framing::pad(len) + kIcrcBytes);
      ssize_t n = ::sendto(s.fd(), buf.data(), fr.overhead(len) + len, 0,
                           reinterpret_cast<const sockaddr *>(&d.sa), sizeof(d.sa));
      if (n < 0) {
        if (errno == ENOBUFS || errno == EAGAIN) {
          enobufs++;
          d.held_until_ns = mono_ns() + retry_ns;
          active.push_back(active.front());
          active.pop_front();
          continue;
        }
        if (errno != EINTR) {
          // An ICMP error reported through IP_RECVERR: read it off
          // the error queue; the datagram was not sent.
          errors++;
          char eb[512];
          while (recv(s.fd(), eb, sizeof(eb), MSG_ERRQUEUE | MSG_DONTWAIT) >= 0) {
          }
        }
        sleep_until_ns(mono_ns() + retry_ns);
        continue;
      }
      d.seq++;
      sent++;
      bytes += uint64_t(n);
      f.sent += len;
      active.pop_front();
      if (f.sent < f.size)
        active.push_back(size_t(&f - flows.data()));
    }
    stop = mono_ns();
  }

  std::printf(
      "{\"mode\":\"%s\",\"sender\":%u,\"seed\":%llu,\"t0_ns\":%llu,\"end_ns\":%llu,"
      "\"stop_ns\":%llu,\"duration\":%g,\"rate_mbit\":%g,\"load\":%g,\"payload\":%llu,"
      "\"header_bytes\":%llu,\"roce\":%s,\"wire_overhead\":%llu,\"mean_size\":%.1f,\"mean_wire\":%.1f,"
      "\"arrivals_per_s\":%.4f,\"incast_bursts\":%zu,\"datagrams\":%llu,\"bytes\":%llu,"
      "\"enobufs\":%llu,\"send_errors\":%llu,\"abandoned\":%s,\"late_ns\":%llu,\"per_dst\":{",
      dry ? "dry-run" : "send", sender, (unsigned long long)seed, (unsigned long long)t0,
      (unsigned long long)end, (unsigned long long)stop, duration, rate_mbit, load,
      (unsigned long long)payload, (unsigned long long)fr.fixed(), fr.roce ? "true" : "false",
      (unsigned long long)kWireOverhead, mean_size, mean_wire, per_s, bursts.size(),
      (unsigned long long)sent, (unsigned long long)bytes, (unsigned long long)enobufs,
      (unsigned long long)errors, abandoned ? "true" : "false", (unsigned long long)late_ns);
  for (size_t i = 0; i < dsts.size(); i++)
    std::printf("%s\"%s\":%llu", i ? "," : "", dsts[i].addr.c_str(),
                (unsigned long long)dsts[i].seq);
  std::printf("},\"flows\":[");
  for (size_t i = 0; i < flows.size(); i++) {
    const Flow &f = flows[i];
    std::printf(
        "%s{\"flow\":%u,\"class\":\"%s\",\"size\":%llu,\"start_ns\":%llu,\"dst\":\"%s\","
        "\"sent\":%llu}",
        i ? "," : "", f.id, class_name(f.cls), (unsigned long long)f.size,
        (unsigned long long)f.start_ns, dsts[f.dst].addr.c_str(), (unsigned long long)f.sent);
  }
  std::printf("]}\n");
  return 0;
}

struct RxFlow {
  uint8_t cls = 0;
  uint64_t size = 0, start_ns = 0, bytes = 0, datagrams = 0;
  uint64_t first_ns = 0, last_ns = 0, done_ns = 0;
  uint64_t ce = 0;  // datagrams that arrived CE-marked (--roce)
};

struct RxSender {
  uint64_t datagrams = 0, max_seq = 0, duplicates = 0;
  std::vector<bool> seen;
};

int do_recv(const Args &a)
{
  Framing fr{a.has("roce")};
  if (!a.has("port") && !fr.roce)
    die("recv needs --port N");
  int port = int(a.integer("port", kRocePort, 1, 65535));
  uint64_t duration_ns = uint64_t(a.ranged("duration", 600, 0, 1e6, true, "want seconds > 0") *
                                  1e9);
  uint64_t idle_ns = uint64_t(a.ranged("idle-exit", 0, 0, 1e6, false, "want seconds >= 0") * 1e9);
  uint64_t bucket_ns = uint64_t(a.ranged("bucket-ms", 100, 0, 1e6, false, "want ms >= 0") * 1e6);
  uint64_t start = mono_ns();
  uint64_t t0 = a.has("t0-ns") ? a.integer("t0-ns", 0, 1, UINT64_MAX) : start;

  // SIGINT and SIGTERM end the run with a report: blocked here, polled
  // with sigpending() between datagrams.
  sigset_t stop_sigs;
  sigemptyset(&stop_sigs);
  sigaddset(&stop_sigs, SIGINT);
  sigaddset(&stop_sigs, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop_sigs, nullptr);
  auto stop_requested = [&stop_sigs]() {
    sigset_t p;
    sigpending(&p);
    return sigismember(&p, SIGINT) == 1 || sigismember(&p, SIGTERM) == 1;
  };

  ll_tools::UdpReceiver rx;
  if (auto err = rx.open(port, true, fr.roce); !err.empty())
    die(err);
  std::fprintf(stderr, "ll-flows: receiving on port %d\n", port);

  std::map<std::pair<uint32_t, uint32_t>, RxFlow> flows;  // (sender, flow)
  std::map<uint32_t, RxSender> senders;
  std::vector<uint64_t> buckets;
  uint64_t last_any = 0, foreign = 0, min_one_way = UINT64_MAX, count = 0;
  std::vector<uint8_t> buf(65536);
  for (;;) {
    uint64_t t = mono_ns();
    if (t - start >= duration_ns)
      break;
    if (idle_ns && last_any && t - last_any >= idle_ns)
      break;
    if ((count & 63) == 0 && stop_requested())
      break;
    ll_tools::Datagram d;
    ssize_t n = rx.receive(buf, d);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) {
        if (stop_requested())
          break;
        continue;
      }
      die(std::string("recvmsg: ") + std::strerror(errno));
    }
    count++;
    uint64_t at = d.at_ns;
    last_any = at;
    uint64_t rx_ns = d.rx_ns;  // the kernel's receive time if it gave one
    Header h{};
    uint64_t hdr_at = 0, len = 0;
    if (fr.roce) {
      int pad = parse_bth(buf.data(), size_t(n));
      if (pad < 0 || uint64_t(n) < fr.fixed() + uint64_t(pad)) {
        foreign++;
        continue;
      }
      hdr_at = kBthBytes;
      len = uint64_t(n) - fr.fixed() - uint64_t(pad);
    } else {
      if (size_t(n) < sizeof(h)) {
        foreign++;
        continue;
      }
      len = uint64_t(n) - kHeaderBytes;
    }
    std::memcpy(&h, buf.data() + hdr_at, sizeof(h));
    if (fr.roce && (uint32_t(buf[5]) << 16 | uint32_t(buf[6]) << 8 | buf[7]) !=
                       roce_qp(h.flow)) {
      foreign++;  // BTH's QP is the flow's: another sender's packet
      continue;
    }
    if (h.magic != kMagic || h.seq > (1ULL << 32) || h.offset + len > h.size || h.cls > kIncast) {
      foreign++;
      continue;
    }
    RxSender &snd = senders[h.sender];
    if (snd.seen.size() <= h.seq)
      snd.seen.resize(std::max<size_t>(h.seq + 1, snd.seen.size() * 2), false);
    if (snd.seen[h.seq]) {
      snd.duplicates++;
      continue;
    }
    snd.seen[h.seq] = true;
    snd.datagrams++;
    snd.max_seq = std::max(snd.max_seq, h.seq);
    if (rx_ns >= h.sent_ns)
      min_one_way = std::min(min_one_way, rx_ns - h.sent_ns);

    RxFlow &f = flows[{h.sender, h.flow}];
    if (!f.datagrams) {
      f.cls = h.cls;
      f.size = h.size;
      f.start_ns = h.start_ns;
      f.first_ns = rx_ns;
    }
    f.datagrams++;
    f.bytes += len;
    if (d.tos >= 0 && (d.tos & 3) == 3)
      f.ce++;
    f.last_ns = std::max(f.last_ns, rx_ns);
    if (!f.done_ns && f.bytes >= f.size)
      f.done_ns = f.last_ns;
    if (bucket_ns && rx_ns >= t0) {
      size_t b = size_t((rx_ns - t0) / bucket_ns);
      if (buckets.size() <= b)
        buckets.resize(b + 1, 0);
      buckets[b] += uint64_t(n) + kWireOverhead;
    }
  }

  uint64_t missing = 0;
  for (auto &[id, snd] : senders)
    missing += snd.max_seq + 1 - snd.datagrams;
  std::printf(
      "{\"mode\":\"recv\",\"port\":%d,\"roce\":%s,\"header_bytes\":%llu,\"wire_overhead\":%llu,"
      "\"socket_drops\":%u,\"foreign\":%llu,\"missing\":%llu,\"min_one_way_ns\":%llu,"
      "\"start_ns\":%llu,\"stop_ns\":%llu,\"bucket_start_ns\":%llu,\"bucket_ns\":%llu,"
      "\"bucket_wire_bytes\":[",
      port, fr.roce ? "true" : "false", (unsigned long long)fr.fixed(),
      (unsigned long long)kWireOverhead, rx.socket_drops(),
      (unsigned long long)foreign, (unsigned long long)missing,
      (unsigned long long)(min_one_way == UINT64_MAX ? 0 : min_one_way), (unsigned long long)start,
      (unsigned long long)mono_ns(), (unsigned long long)t0, (unsigned long long)bucket_ns);
  for (size_t i = 0; i < buckets.size(); i++)
    std::printf("%s%llu", i ? "," : "", (unsigned long long)buckets[i]);
  std::printf("],\"senders\":{");
  bool first = true;
  for (auto &[id, snd] : senders) {
    // Lost: datagram numbers below the highest seen that never came.
    std::printf(
        "%s\"%u\":{\"datagrams\":%llu,\"max_seq\":%llu,\"missing\":%llu,\"duplicates\":%llu}",
        first ? "" : ",", id, (unsigned long long)snd.datagrams, (unsigned long long)snd.max_seq,
        (unsigned long long)(snd.max_seq + 1 - snd.datagrams), (unsigned long long)snd.duplicates);
    first = false;
  }
  std::printf("},\"flows\":[");
  first = true;
  for (auto &[key, f] : flows) {
    std::printf(
        "%s{\"sender\":%u,\"flow\":%u,\"class\":\"%s\",\"size\":%llu,\"start_ns\":%llu,"
        "\"bytes\":%llu,\"datagrams\":%llu,\"first_ns\":%llu,\"last_ns\":%llu,"
        "\"ce\":%llu,\"complete\":%s,\"fct_ns\":%lld}",
        first ? "" : ",", key.first, key.second, class_name(f.cls), (unsigned long long)f.size,
        (unsigned long long)f.start_ns, (unsigned long long)f.bytes,
        (unsigned long long)f.datagrams, (unsigned long long)f.first_ns,
        (unsigned long long)f.last_ns, (unsigned long long)f.ce, f.done_ns ? "true" : "false",
        f.done_ns ? (long long)(f.done_ns - f.start_ns) : -1LL);
    first = false;
  }
  std::printf("]}\n");
  return 0;
}

}  // namespace

int main(int argc, char **argv)
{
  if (argc < 2) {
    std::fputs("ll-flows: no mode given: want send, recv or cdf\n", stderr);
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  std::string_view mode = argv[1];
  if (mode == "--help" || mode == "-h" || mode == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (mode == "send")
    return do_send(parse(argc, argv, 2, kSendOpts, mode));
  if (mode == "recv")
    return do_recv(parse(argc, argv, 2, kRecvOpts, mode));
  if (mode == "cdf")
    return do_cdf(parse(argc, argv, 2, kCdfOpts, mode));
  die("unknown mode \"" + std::string(mode) + "\": want send, recv or cdf (see ll-flows --help)");
}
