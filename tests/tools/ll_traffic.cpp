// ll-traffic: UDP test traffic with sequence numbers, per-flow accounting
// and arrival-gap detection, for the VM tests, benchmarks and the demo.
//
//   ll-traffic send --dst ADDR --port N [--flow ID] [--prio P] [--size B]
//                   [--dscp D] [--ecn] [--rate-mbit R] (--duration S | --count N)
//                   [--start-ns T] [--slot-ns S --slots N --slot I]
//   ll-traffic recv --port N [--duration S] [--idle-exit S] [--gap-ms G] [--spin-us U]
//                   [--bucket-ms B]
//
// send --ecn sends ECT(0) packets; recv counts per flow the ECN codepoint
// each packet arrived with (CE = marked by a congested queue on the way).
// Both print one JSON object on stdout. Times are CLOCK_MONOTONIC
// nanoseconds, which every network namespace of a machine shares, so a
// receiver's gaps can be compared with when a test sent a PFC frame.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include "udp_socket.h"
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr uint32_t kMagic = 0x4c4c5446;  // "LLTF"

// The ECN field of the IPv4 TOS byte (RFC 3168).
constexpr int kNotEct = 0, kEct1 = 1, kEct0 = 2, kCe = 3;

struct Header {
    uint32_t magic;
    uint32_t flow;
    uint64_t seq;
    uint64_t sent_ns;
};

using ll_tools::mono_ns;

void sleep_until_ns(uint64_t t) {
    timespec ts{static_cast<time_t>(t / 1000000000ULL), static_cast<long>(t % 1000000000ULL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

[[noreturn]] void die(const std::string& msg) {
    std::fprintf(stderr, "ll-traffic: %s\n", msg.c_str());
    std::exit(2);
}

const char* kUsage =
    "usage: ll-traffic send --dst ADDR --port N [options]\n"
    "       ll-traffic recv --port N [options]\n"
    "\n"
    "send options:\n"
    "  --dst ADDR        IPv4 destination address\n"
    "  --port N          UDP destination port\n"
    "  --flow ID         flow id carried in every packet (default: the priority)\n"
    "  --prio P          SO_PRIORITY of the socket, i.e. skb->priority (default 0)\n"
    "  --sndbuf BYTES    socket send buffer (SO_SNDBUFFORCE); in-flight packets\n"
    "                    stay charged to it, so it bounds what one sender keeps\n"
    "                    queued in the whole network (default: the system's)\n"
    "  --dscp D          DSCP of the packets, 0..63 (default 0), for switches that\n"
    "                    classify by DSCP\n"
    "  --ecn             ECN-capable transport: packets carry ECT(0) in the ECN\n"
    "                    bits of the TOS byte, next to the DSCP (default Not-ECT)\n"
    "  --size B          UDP payload bytes, >= 24 (default 1000)\n"
    "  --rate-mbit R     pace to R Mbit/s of payload; 0 = as fast as the socket\n"
    "                    allows (blocking: the qdisc's backpressure paces it)\n"
    "  --duration S      send for S seconds (fractions allowed); SIGINT or SIGTERM\n"
    "                    ends the sending early, with the report as at the end\n"
    "  --count N         send N packets (either --duration or --count)\n"
    "  --start-ns T      start at T, in CLOCK_MONOTONIC ns (default: now), so\n"
    "                    that senders started one after another send together\n"
    "  --slot-ns S --slots N --slot I\n"
    "                    send only in slot I (0..N-1) of every N slots of S ns,\n"
    "                    counted from --start-ns (required): N senders on one CPU\n"
    "                    then take turns, each alone on it while it sends, and\n"
    "                    the output's active_ns is the time this one sent\n"
    "recv options:\n"
    "  --port N          UDP port to listen on (all addresses)\n"
    "  --duration S      stop after S seconds (default 60)\n"
    "  --idle-exit S     stop S seconds after the last packet (default 2)\n"
    "  --gap-ms G        report arrival gaps longer than G ms per flow (default 5)\n"
    "  --spin-us U       after each datagram, read without sleeping for up to U us\n"
    "                    (busy-poll): a sender that keeps sending then pays no\n"
    "                    wake-up of this receiver per packet (default 0)\n"
    "  --bucket-ms B     also count the wire bytes of all flows (payload + UDP,\n"
    "                    IPv4 and Ethernet headers: what a shaper charges) per\n"
    "                    B ms since the receiver started (default 100; 0 = off),\n"
    "                    by the kernel's receive time of each packet (a busy\n"
    "                    receiver that reads late does not shift its bucket)\n"
    "Every flow reports how many of its packets arrived with each ECN codepoint\n"
    "(not_ect, ect0, ect1, ce; they add up to received). CE means that a queue on\n"
    "the way marked the packet (congestion experienced). recv's sleeps counts the\n"
    "reads that found the socket empty and slept: each ended with a wake-up that\n"
    "the sender's CPU paid.\n"
    "\n"
    "Output is one JSON object. Exit status 0, or 2 on bad usage or socket errors.\n";

// Options that take no value.
bool is_flag(std::string_view k) { return k == "--ecn"; }

struct Args {
    std::map<std::string, std::string> kv;

    std::optional<std::string> get(const std::string& k) const {
        auto it = kv.find(k);
        if (it == kv.end()) return std::nullopt;
        return it->second;
    }
    double num(const std::string& k, double def) const {
        auto v = get(k);
        if (!v) return def;
        char* end = nullptr;
        double d = std::strtod(v->c_str(), &end);
        if (end == v->c_str() || *end) die("--" + k + ": not a number: " + *v);
        return d;
    }
};

Args parse(int argc, char** argv, int from) {
    Args a;
    for (int i = from; i < argc; i++) {
        std::string_view k = argv[i];
        if (k == "--help" || k == "-h") {
            std::fputs(kUsage, stdout);
            std::exit(0);
        }
        if (is_flag(k)) {
            a.kv[std::string(k.substr(2))] = "1";
            continue;
        }
        if (k.substr(0, 2) != "--" || i + 1 >= argc) die("bad argument " + std::string(k) + "\n" + kUsage);
        a.kv[std::string(k.substr(2))] = argv[++i];
    }
    return a;
}


int do_send(const Args& a) {
    auto dst = a.get("dst");
    if (!dst) die("send needs --dst");
    int port = int(a.num("port", 0));
    if (port <= 0 || port > 65535) die("send needs --port 1..65535");
    int prio = int(a.num("prio", 0));
    uint32_t flow = uint32_t(a.num("flow", prio));
    size_t size = size_t(a.num("size", 1000));
    if (size < sizeof(Header) || size > 65000) die("--size must be 24..65000");
    double rate_mbit = a.num("rate-mbit", 0);
    double duration = a.num("duration", 0);
    uint64_t count = uint64_t(a.num("count", 0));
    if ((duration > 0) == (count > 0)) die("send needs exactly one of --duration or --count");

    int dscp = int(a.num("dscp", 0));
    if (dscp < 0 || dscp > 63) die("--dscp must be 0..63");
    bool ecn = a.get("ecn").has_value();
    ll_tools::UdpSocket s;
    // The ECN field is the low 2 bits; a UDP socket sends it as given.
    int tos = dscp << 2 | (ecn ? kEct0 : kNotEct);
    if (auto err = s.set_sender(tos, int(a.num("sndbuf", 0)), prio); !err.empty()) die(err);
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(uint16_t(port));
    if (inet_pton(AF_INET, dst->c_str(), &sa.sin_addr) != 1) die("bad --dst " + *dst);
    int one = 1;  // a broadcast --dst announces the sender to learning bridges
    setsockopt(s.fd(), SOL_SOCKET, SO_BROADCAST, &one, sizeof(one));
    if (connect(s.fd(), reinterpret_cast<sockaddr*>(&sa), sizeof(sa)))
        die(std::string("connect: ") + std::strerror(errno));

    std::vector<uint8_t> buf(size, 0x5a);
    uint64_t interval_ns = rate_mbit > 0 ? uint64_t(size * 8 * 1000.0 / rate_mbit) : 0;
    if (auto t0 = a.get("start-ns")) {
        char* tail = nullptr;
        uint64_t at = std::strtoull(t0->c_str(), &tail, 10);
        if (t0->empty() || *tail) die("--start-ns must be a count of ns");
        sleep_until_ns(at);
    }
    // Turns: slot I of N of slot_ns each, from --start-ns.
    uint64_t slot_ns = uint64_t(a.num("slot-ns", 0)), slots = uint64_t(a.num("slots", 0));
    uint64_t slot = uint64_t(a.num("slot", 0)), origin = 0;
    if (slot_ns || slots) {
        if (!slot_ns || !slots || slot >= slots) die("--slot-ns and --slots N need --slot 0..N-1");
        auto t0 = a.get("start-ns");
        if (!t0) die("--slot-ns needs --start-ns, the slots' common origin");
        origin = std::strtoull(t0->c_str(), nullptr, 10);
    }
    // SIGINT and SIGTERM end the sending, with the report (a caller that
    // stops it at a time of its own): held back, and looked for once per
    // datagram, so a send in progress is never cut.
    sigset_t stop_signals, pending;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
    uint64_t start = mono_ns(), end = start + uint64_t(duration * 1e9), next = start;
    uint64_t sent = 0, errors = 0, bytes = 0, active_ns = 0, turn_from = 0, turn_end = 0;
    for (;;) {
        uint64_t t = mono_ns();
        if (count ? sent >= count : t >= end) break;
        if (sigpending(&pending) == 0 &&
            (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1))
            break;
        if (slot_ns && t >= turn_end) {
            // Our turn ended (or never began): count it, sleep to the next.
            // A wake-up later than the turn's end (a descheduled vCPU) had none.
            if (turn_end > turn_from) active_ns += turn_end - turn_from;
            uint64_t cycle = slot_ns * slots, k = (t - origin) / cycle;
            uint64_t from = origin + k * cycle + slot * slot_ns;
            if (t >= from + slot_ns) from += cycle;
            if (from >= end && !count) {
                turn_end = 0;
                break;
            }
            if (from > t) sleep_until_ns(from);
            turn_from = mono_ns();
            turn_end = from + slot_ns;
            next = std::max(next, turn_from);  // a paced turn starts paced, no catch-up
            continue;
        }
        if (interval_ns) {
            if (next > t) {
                sleep_until_ns(next);
                if (slot_ns && mono_ns() >= turn_end) continue;  // paced past our turn
            }
            next += interval_ns;
        }
        // The send time the receiver sees, checked against our turn: a
        // sender descheduled since the check above sends in the next one.
        uint64_t now = mono_ns();
        if (slot_ns && now >= turn_end) continue;
        Header h{kMagic, flow, sent, now};
        std::memcpy(buf.data(), &h, sizeof(h));
        if (::send(s.fd(), buf.data(), buf.size(), 0) < 0) {
            // ENOBUFS is a local drop (qdisc refused); count it, the
            // sequence number is not reused so the receiver sees a gap.
            errors++;
        } else {
            bytes += size;
        }
        sent++;
    }
    uint64_t stop = mono_ns();
    if (turn_end && std::min(stop, turn_end) > turn_from)
        active_ns += std::min(stop, turn_end) - turn_from;
    if (!slot_ns) active_ns = stop - start;
    std::printf("{\"mode\":\"send\",\"flow\":%u,\"prio\":%d,\"dscp\":%d,\"ecn\":%s,\"size\":%zu,"
                "\"sent\":%llu,\"send_errors\":%llu,\"bytes\":%llu,\"start_ns\":%llu,\"end_ns\":%llu,"
                "\"active_ns\":%llu}\n",
                flow, prio, dscp, ecn ? "true" : "false", size, (unsigned long long)sent,
                (unsigned long long)errors,
                (unsigned long long)bytes, (unsigned long long)start, (unsigned long long)stop,
                (unsigned long long)active_ns);
    return 0;
}

struct Gap {
    uint64_t from_ns, to_ns;
};

struct FlowStats {
    uint64_t received = 0, bytes = 0, max_seq = 0, reordered = 0, duplicates = 0;
    uint64_t first_ns = 0, last_ns = 0;
    uint64_t ecn[4] = {};  // packets per ECN codepoint (kNotEct .. kCe)
    std::vector<bool> seen;
    std::vector<Gap> gaps;
};

int do_recv(const Args& a) {
    int port = int(a.num("port", 0));
    if (port <= 0 || port > 65535) die("recv needs --port 1..65535");
    uint64_t duration_ns = uint64_t(a.num("duration", 60) * 1e9);
    uint64_t idle_ns = uint64_t(a.num("idle-exit", 2) * 1e9);
    uint64_t gap_ns = uint64_t(a.num("gap-ms", 5) * 1e6);
    uint64_t bucket_ns = uint64_t(a.num("bucket-ms", 100) * 1e6);
    // Link-layer bytes of a UDP datagram: + UDP 8, IPv4 20, Ethernet 14.
    constexpr uint64_t kWireOverhead = 8 + 20 + 14;
    std::vector<uint64_t> bucket_bytes;

    ll_tools::UdpReceiver rx;
    if (auto err = rx.open(port, bucket_ns != 0, true); !err.empty()) die(err);
    rx.set_spin_ns(uint64_t(a.num("spin-us", 0) * 1e3));
    std::fprintf(stderr, "ll-traffic: receiving on port %d\n", port);

    std::map<uint32_t, FlowStats> flows;
    uint64_t start = mono_ns(), last_any = 0, foreign = 0;
    std::vector<uint8_t> buf(65536);
    // The time of the last datagram or timeout: one clock read per
    // datagram (the receive's), as a clock read under QEMU TCG contends
    // with the sender's (udp_socket.h).
    for (uint64_t t = start;;) {
        if (t - start >= duration_ns) break;
        if (last_any && t - last_any >= idle_ns) break;
        ll_tools::Datagram d;
        ssize_t n = rx.receive(buf, d, start);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) {
                t = mono_ns();
                continue;
            }
            die(std::string("recvmsg: ") + std::strerror(errno));
        }
        uint64_t at = t = d.at_ns;
        last_any = at;
        int tos = d.tos;
        uint64_t rx_ns = d.rx_ns;  // the kernel's receive time if it gave one

        Header h{};
        if (size_t(n) < sizeof(h)) {
            foreign++;
            continue;
        }
        std::memcpy(&h, buf.data(), sizeof(h));
        if (h.magic != kMagic || h.seq > (1ULL << 32)) {
            foreign++;
            continue;
        }
        FlowStats& f = flows[h.flow];
        if (f.seen.size() <= h.seq) f.seen.resize(std::max<size_t>(h.seq + 1, f.seen.size() * 2), false);
        if (f.seen[h.seq]) {
            f.duplicates++;
            continue;
        }
        f.seen[h.seq] = true;
        if (f.received && h.seq < f.max_seq) f.reordered++;
        f.max_seq = std::max(f.max_seq, h.seq);
        if (f.received && at - f.last_ns > gap_ns) f.gaps.push_back({f.last_ns, at});
        if (!f.received) f.first_ns = at;
        f.last_ns = at;
        f.received++;
        f.bytes += uint64_t(n);
        if (bucket_ns) {
            size_t b = size_t((rx_ns - start) / bucket_ns);
            if (bucket_bytes.size() <= b) bucket_bytes.resize(b + 1, 0);
            bucket_bytes[b] += uint64_t(n) + kWireOverhead;
        }
        if (tos >= 0) f.ecn[tos & 3]++;  // always there for IPv4 with IP_RECVTOS
    }

    std::printf("{\"mode\":\"recv\",\"socket_drops\":%u,\"foreign\":%llu,\"sleeps\":%llu,",
                rx.socket_drops(), (unsigned long long)foreign, (unsigned long long)rx.sleeps());
    std::printf("\"bucket_start_ns\":%llu,\"bucket_ns\":%llu,\"bucket_wire_bytes\":[",
                (unsigned long long)start, (unsigned long long)bucket_ns);
    for (size_t i = 0; i < bucket_bytes.size(); i++)
        std::printf("%s%llu", i ? "," : "", (unsigned long long)bucket_bytes[i]);
    std::printf("],\"flows\":{");
    bool first = true;
    for (auto& [id, f] : flows) {
        // Lost = sequence numbers below the highest seen that never came.
        uint64_t missing = f.max_seq + 1 - f.received;
        std::printf("%s\"%u\":{\"received\":%llu,\"bytes\":%llu,\"max_seq\":%llu,\"missing\":%llu,"
                    "\"reordered\":%llu,\"duplicates\":%llu,\"not_ect\":%llu,\"ect0\":%llu,\"ect1\":%llu,"
                    "\"ce\":%llu,\"first_ns\":%llu,\"last_ns\":%llu,\"gaps\":[",
                    first ? "" : ",", id, (unsigned long long)f.received, (unsigned long long)f.bytes,
                    (unsigned long long)f.max_seq, (unsigned long long)missing,
                    (unsigned long long)f.reordered, (unsigned long long)f.duplicates,
                    (unsigned long long)f.ecn[kNotEct], (unsigned long long)f.ecn[kEct0],
                    (unsigned long long)f.ecn[kEct1], (unsigned long long)f.ecn[kCe],
                    (unsigned long long)f.first_ns, (unsigned long long)f.last_ns);
        for (size_t i = 0; i < f.gaps.size(); i++)
            std::printf("%s[%llu,%llu]", i ? "," : "", (unsigned long long)f.gaps[i].from_ns,
                        (unsigned long long)f.gaps[i].to_ns);
        std::printf("]}");
        first = false;
    }
    std::printf("}}\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(kUsage, stderr);
        return 2;
    }
    std::string_view mode = argv[1];
    if (mode == "--help" || mode == "-h") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    Args a = parse(argc, argv, 2);
    if (mode == "send") return do_send(a);
    if (mode == "recv") return do_recv(a);
    die("unknown mode " + std::string(mode) + "\n" + kUsage);
}
