// UDP sockets of the traffic tools (ll-traffic, ll-flows): one place for
// the option order a sender needs and for the receiver's kernel receive
// times. Errors come back as a message for the tool's own die().
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ll_tools {

inline uint64_t mono_ns()
{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ULL + uint64_t(ts.tv_nsec);
}

inline std::string sys_error(const char *what)
{
  return std::string(what) + ": " + std::strerror(errno);
}

class UdpSocket {
 public:
  UdpSocket() : fd_(::socket(AF_INET, SOCK_DGRAM, 0)) {}
  ~UdpSocket()
  {
    if (fd_ >= 0)
      ::close(fd_);
  }
  UdpSocket(const UdpSocket &) = delete;
  UdpSocket &operator=(const UdpSocket &) = delete;
  int fd() const { return fd_; }

  // Sender options. IP_TOS first: setting it also rewrites the socket's
  // priority, which SO_PRIORITY then sets as asked. sndbuf 0: the default.
  std::string set_sender(int tos, int sndbuf, int prio)
  {
    if (fd_ < 0)
      return sys_error("socket");
    if (setsockopt(fd_, IPPROTO_IP, IP_TOS, &tos, sizeof(tos)))
      return sys_error("IP_TOS");
    if (sndbuf > 0 && setsockopt(fd_, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
      return sys_error("SO_SNDBUFFORCE");
    if (setsockopt(fd_, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)))
      return sys_error("SO_PRIORITY");
    return {};
  }

 private:
  int fd_;
};

// One received datagram: its bytes, when recvmsg returned it (at_ns) and
// when the kernel received it (rx_ns, CLOCK_MONOTONIC; at_ns without a
// timestamp), its TOS byte (-1 unless asked for).
struct Datagram {
  ssize_t bytes = 0;
  uint64_t at_ns = 0, rx_ns = 0;
  int tos = -1;
};

// A receiving socket on a UDP port (all addresses): a large buffer, so the
// socket is never the drop point (and SO_RXQ_OVFL counts it if it is),
// the kernel's receive time of every datagram, a 100 ms receive timeout.
class UdpReceiver {
 public:
  std::string open(int port, bool timestamps, bool recv_tos)
  {
    int fd = sock_.fd(), rcvbuf = 32 << 20, one = 1;
    if (fd < 0)
      return sys_error("socket");
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
    // SO_TIMESTAMPNS gives CLOCK_REALTIME: mapped to CLOCK_MONOTONIC by
    // the offset between the clocks.
    if (timestamps && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
      return sys_error("SO_TIMESTAMPNS");
    timespec rt{};
    clock_gettime(CLOCK_REALTIME, &rt);
    real_minus_mono_ = int64_t(rt.tv_sec) * 1000000000LL + rt.tv_nsec - int64_t(mono_ns());
    if (recv_tos && setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)))
      return sys_error("IP_RECVTOS");
    timeval tv{0, 100000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    sockaddr_in sa{};
    sa.sin_family = AF_INET;
    sa.sin_port = htons(uint16_t(port));
    if (bind(fd, reinterpret_cast<sockaddr *>(&sa), sizeof(sa)))
      return sys_error("bind");
    return {};
  }

  // After each datagram, read without sleeping for up to ns before a
  // blocking read: while datagrams keep coming, their sender's CPU pays
  // no wake-up of this receiver (0: always block).
  void set_spin_ns(uint64_t ns) { spin_ns_ = ns; }

  // The next datagram into buf. -1 with errno EAGAIN/EINTR on the timeout
  // or a signal, -1 with another errno on an error. A kernel receive time
  // before not_before_ns or after the return is not trusted.
  ssize_t receive(std::vector<uint8_t> &buf, Datagram &d, uint64_t not_before_ns = 0)
  {
    alignas(cmsghdr) char cbuf[CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(int)) +
                               CMSG_SPACE(sizeof(timespec))];
    iovec iov{buf.data(), buf.size()};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = cbuf;
    mh.msg_controllen = sizeof(cbuf);
    ssize_t n;
    for (uint32_t empty = 0;; empty++) {
      mh.msg_controllen = sizeof(cbuf);
      n = recvmsg(sock_.fd(), &mh, MSG_DONTWAIT);
      if (n >= 0 || errno != EAGAIN)
        break;
      // Busy-polling (set_spin_ns()) while datagrams came lately. The
      // clock only every 16th empty poll: under QEMU TCG a clock read
      // takes a lock that the sender's vCPU takes too (rdtsc), so a
      // receiver reading it in a loop slows a sender that reads clocks.
      if (spin_ns_ && ((empty & 15) || mono_ns() - last_rx_ns_ < spin_ns_))
        continue;
      // Empty: this read sleeps, and a datagram that ends it came with
      // a wake-up its sender paid (counted: sleeps()).
      mh.msg_controllen = sizeof(cbuf);
      n = recvmsg(sock_.fd(), &mh, 0);
      sleeps_ += n >= 0;
      break;
    }
    if (n < 0)
      return n;
    d = Datagram{};
    d.bytes = n;
    d.at_ns = d.rx_ns = last_rx_ns_ = mono_ns();
    for (cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec ts;
        std::memcpy(&ts, CMSG_DATA(c), sizeof(ts));
        int64_t mono = int64_t(ts.tv_sec) * 1000000000LL + ts.tv_nsec - real_minus_mono_;
        if (mono > int64_t(not_before_ns) && uint64_t(mono) <= d.at_ns)
          d.rx_ns = uint64_t(mono);
      }
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL)
        std::memcpy(&socket_drops_, CMSG_DATA(c), sizeof(socket_drops_));
      if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS) {
        uint8_t b;  // one byte for IPv4 (IPv6's IPV6_TCLASS is an int)
        std::memcpy(&b, CMSG_DATA(c), sizeof(b));
        d.tos = b;
      }
    }
    return n;
  }

  // Datagrams the socket dropped (SO_RXQ_OVFL), as of the last one.
  uint32_t socket_drops() const { return socket_drops_; }

  // Datagrams that woke this receiver (a read found the socket empty and
  // slept until one came): wake-ups their sender's CPU paid, an IPI if
  // this CPU was idle.
  uint64_t sleeps() const { return sleeps_; }

 private:
  UdpSocket sock_;
  int64_t real_minus_mono_ = 0;
  uint64_t spin_ns_ = 0, last_rx_ns_ = 0;
  uint32_t socket_drops_ = 0;
  uint64_t sleeps_ = 0;
};

}  // namespace ll_tools
