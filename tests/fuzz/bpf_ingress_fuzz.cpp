// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// libFuzzer harness of the TC ingress program (bpf/lossless_ingress.bpf.c):
// every input runs through the real, verified program with
// BPF_PROG_TEST_RUN, and the outcome is compared with a model of
// bpf/README.md's table whose control-frame verdict comes from the core's
// ll_ctrl_parse() on the same bytes (with the port address the
// program passes: the frame's destination when the stack found it to be
// the device's own, PACKET_HOST; lo's all-zero address here). Needs root
// (exits kExitSkipped otherwise). The BPF side runs in the kernel,
// uninstrumented; this side (the loader library, the model, the core)
// runs under ASan and UBSan.
//
// Input: byte 0 = the port's mode (any value: unknown ones act as
// pcp-dscp), byte 1 = its default priority (any value: >= 16 acts as 0),
// the rest = the frame from its destination address (14 .. 1600 octets;
// the kernel does not run untagged IPv4/IPv6 frames shorter than their IP
// header).
// The DSCP map is set once with a fixed pattern that includes entries not
// set, valid ones and out-of-range priorities.
//
// Checks per frame:
//   - the verdict is TC_ACT_UNSPEC (on to the next filter), TC_ACT_SHOT or TC_ACT_REDIRECT;
//   - a frame whose EtherType after up to two inline VLAN tags is a
//     control frame's (0x8808, 0x88B6: ll_ctrl_ethertype()) is consumed:
//     TC_ACT_REDIRECT iff ll_ctrl_parse() accepts the bytes, else
//     TC_ACT_SHOT; the counters move by exactly one, in frames[the parsed
//     kind], or in parse_error[the core's result];
//   - redirected: mark "LLPC", EtherType 0x88B5 for 0x8808 (unchanged for
//     a kind of our own EtherType), every other byte and the priority
//     unchanged; dropped: frame, mark and priority unchanged;
//   - any other frame: TC_ACT_UNSPEC, frame and mark unchanged, priority as the
//     model classifies it (0 .. 15), and exactly that priority's counter
//     moves by one packet and the frame's length in bytes.
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "ingress.h"
#include "test_run.h"

namespace {

namespace li = lossless::ingress;

#define CHECK(cond, ...)                                                    \
  do {                                                                      \
    if (!(cond)) {                                                          \
      std::fprintf(stderr, "fuzz_bpf_ingress: check failed: %s\n  ", #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                    \
      std::fputc('\n', stderr);                                             \
      std::abort();                                                         \
    }                                                                       \
  } while (0)

constexpr std::uint32_t kIfindex = 1;     // lo: BPF_PROG_TEST_RUN's default device
constexpr std::uint32_t kPrioIn = 0x5a5a;  // skb->priority before the program
constexpr std::uint32_t kMarkIn = 0x1234;
constexpr std::size_t kMaxFrame = 1600;
// Exit status when the target cannot run here (not root); run-fuzz.sh
// reports it as skipped. libFuzzer itself uses 1, 70 and 77.
constexpr int kExitSkipped = 3;

unsigned be16(const std::uint8_t *p)
{
  return (p[0] << 8) | p[1];
}

// The fixed DSCP map: d % 4 == 0 never set; 1 valid; 2 valid with an
// out-of-range priority (falls back to d >> 3); 3 valid = 0xff.
ll_ingress_dscp_entry dscp_entry(unsigned d)
{
  ll_ingress_dscp_entry e{};
  switch (d % 4) {
    case 0:
      e.prio = static_cast<__u8>(d % 16);
      e.valid = 0;
      break;
    case 1:
      e.prio = static_cast<__u8>((d * 5) % 16);
      e.valid = 1;
      break;
    case 2:
      e.prio = static_cast<__u8>(16 + d);
      e.valid = 1;
      break;
    default:
      e.prio = static_cast<__u8>((d * 3) % 16);
      e.valid = 0xff;
      break;
  }
  return e;
}

struct State {
  std::optional<li::Program> prog;
  std::uint8_t dev_addr[LL_ETH_ALEN] = {};  // the address of lo
  int prog_fd = -1;
  bool have_cfg = false;
  ll_ingress_port_cfg cfg{};
};

int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  return level == LIBBPF_WARN ? std::vfprintf(stderr, fmt, ap) : 0;
}

State &state()
{
  static State *s = [] {
    auto *st = new State;
    if (geteuid() != 0) {
      std::fprintf(stderr, "fuzz_bpf_ingress: skipped: needs root (BPF_PROG_TEST_RUN)\n");
      std::_Exit(kExitSkipped);
    }
    libbpf_set_print(quiet);
    li::Program::Options o;
    o.pin_dir = "";  // private maps, nothing pinned
    try {
      st->prog.emplace(li::Program::load(o));
    } catch (const std::exception &e) {
      std::fprintf(stderr, "fuzz_bpf_ingress: cannot load the program: %s\n", e.what());
      std::abort();
    }
    st->prog_fd = st->prog->prog_fd();
    // BPF_PROG_TEST_RUN gives the skb to lo (ifindex 1).
    if (std::FILE *a = std::fopen("/sys/class/net/lo/address", "r")) {
      unsigned b[LL_ETH_ALEN];
      if (std::fscanf(a, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) == 6)
        for (int i = 0; i < LL_ETH_ALEN; i++)
          st->dev_addr[i] = static_cast<std::uint8_t>(b[i]);
      std::fclose(a);
    }
    int fd = st->prog->maps().dscp_fd();
    for (__u32 d = 0; d < LL_INGRESS_DSCP_COUNT; d++) {
      ll_ingress_dscp_entry e = dscp_entry(d);
      CHECK(bpf_map_update_elem(fd, &d, &e, BPF_ANY) == 0, "dscp map: %s", std::strerror(errno));
    }
    return st;
  }();
  return *s;
}

// ------------------------------------------------------------ the model

struct Expect {
  bool control = false;
  ll_parse_result res = LL_PARSE_OK;  // control: the core's answer
  ll_ctrl_msg msg{};
  std::uint32_t prio = 0;  // data: the priority given
};

int model_dscp(const std::uint8_t *f, std::size_t n, unsigned proto, std::size_t l3)
{
  if (proto != 0x0800 && proto != 0x86DD)
    return -1;
  if (l3 + 2 > n)
    return -1;
  unsigned b0 = f[l3], b1 = f[l3 + 1];
  if (proto == 0x0800)
    return (b0 >> 4) == 4 ? static_cast<int>(b1 >> 2) : -1;
  return (b0 >> 4) == 6 ? static_cast<int>(((b0 & 0x0f) << 2) | (b1 >> 6)) : -1;
}

Expect model(const std::uint8_t *f, std::size_t n, const ll_ingress_port_cfg &cfg,
             const std::uint8_t *dev_addr)
{
  Expect e;
  unsigned proto = be16(f + 12), vlan = 0;
  std::size_t off = 12;
  constexpr unsigned kSeen = 0x100;
  for (int i = 0; i < LL_INGRESS_MAX_VLAN_TAGS; i++) {
    if (proto != LL_ETH_P_8021Q && proto != LL_ETH_P_8021AD)
      break;
    if (off + 2 + 4 > n) {
      proto = 0;
      break;
    }
    if (!vlan)
      vlan = kSeen | (be16(f + off + 2) >> 13);
    proto = be16(f + off + 4);
    off += 4;
  }
  if (ll_ctrl_ethertype(proto)) {
    // The core on the same bytes: the first min(n, 64) octets and the
    // true length, in a block of exactly that size. The port's address is
    // the destination itself if eth_type_trans() made it PACKET_HOST
    // (unicast, equal to the device's address).
    std::size_t have = n < LL_MAC_CTRL_FRAME_MAX_BYTES ? n : LL_MAC_CTRL_FRAME_MAX_BYTES;
    std::vector<std::uint8_t> head(f, f + have);
    bool host = !(f[0] & 1) && !std::memcmp(f, dev_addr, LL_ETH_ALEN);
    e.control = true;
    e.res = ll_ctrl_parse(head.data(), static_cast<ll_u32>(n), host ? head.data() : nullptr,
                              &e.msg);
    return e;
  }
  std::uint32_t prio = cfg.default_prio;
  if (cfg.mode != LL_INGRESS_MODE_DSCP && (vlan & kSeen)) {
    prio = vlan & 7;
  } else if (cfg.mode != LL_INGRESS_MODE_PCP) {
    int dscp = model_dscp(f, n, proto, off + 2);
    if (dscp >= 0) {
      ll_ingress_dscp_entry d = dscp_entry(static_cast<unsigned>(dscp));
      prio = d.valid && d.prio < LL_INGRESS_PRIOS ? d.prio : static_cast<unsigned>(dscp) >> 3;
    }
  }
  e.prio = prio < LL_INGRESS_PRIOS ? prio : 0;
  return e;
}

li::CtrlCounters ctrl(const State &s)
{
  return s.prog->maps().ctrl_counters(kIfindex).value_or(li::CtrlCounters{});
}

li::PrioCounters data(const State &s)
{
  return s.prog->maps().prio_counters(kIfindex).value_or(li::PrioCounters{});
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
  state();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *in, std::size_t size)
{
  State &s = state();
  if (size < 2 + LL_ETH_HLEN || size > 2 + kMaxFrame)
    return 0;
  ll_ingress_port_cfg cfg{};
  cfg.mode = in[0];
  cfg.default_prio = in[1];
  const std::uint8_t *frame = in + 2;
  const std::size_t n = size - 2;

  if (!s.have_cfg || std::memcmp(&cfg, &s.cfg, sizeof(cfg))) {
    __u32 key = kIfindex;
    CHECK(bpf_map_update_elem(s.prog->maps().port_cfg_fd(), &key, &cfg, BPF_ANY) == 0,
          "port config: %s", std::strerror(errno));
    s.cfg = cfg;
    s.have_cfg = true;
  }
  Expect want = model(frame, n, cfg, s.dev_addr);
  li::CtrlCounters c0 = ctrl(s);
  li::PrioCounters p0 = data(s);

  __sk_buff ctx_in{};
  ctx_in.ifindex = kIfindex;
  ctx_in.priority = kPrioIn;
  ctx_in.mark = kMarkIn;
  lltest::RunResult run{};
  int err = lltest::try_test_run(s.prog_fd, std::vector<std::uint8_t>(frame, frame + n), ctx_in, run);
  // Newer kernels (6.18) refuse an untagged IPv4 or IPv6 frame shorter
  // than its IP header; the same short-L3 path is still run behind inline
  // VLAN tags, which they take.
  unsigned et = be16(frame + 12);
  if (err == -EINVAL && ((et == 0x0800 && n < 14 + 20) || (et == 0x86DD && n < 14 + 40)))
    return 0;
  CHECK(err == 0, "BPF_PROG_TEST_RUN of %zu octets: %s", n, std::strerror(-err));
  int verdict = run.verdict;
  const __sk_buff &ctx_out = run.ctx;
  const std::vector<std::uint8_t> &out = run.data;
  CHECK(verdict == TC_ACT_UNSPEC || verdict == TC_ACT_SHOT || verdict == TC_ACT_REDIRECT,
        "verdict %d", verdict);
  CHECK(out.size() == n, "%zu octets in, %zu out", n, out.size());

  li::CtrlCounters c1 = ctrl(s);
  li::PrioCounters p1 = data(s);
  for (unsigned p = 0; p < LL_INGRESS_PRIOS; p++) {
    std::uint64_t dp = p1.prio[p].packets - p0.prio[p].packets;
    std::uint64_t db = p1.prio[p].bytes - p0.prio[p].bytes;
    bool counted = !want.control && p == want.prio;
    CHECK(dp == (counted ? 1u : 0u) && db == (counted ? n : 0u),
          "priority %u counted %llu frames, %llu bytes", p, (unsigned long long)dp,
          (unsigned long long)db);
  }
  CHECK(c1.rewrite_failed == c0.rewrite_failed && c1.redirect_failed == c0.redirect_failed,
        "rewrite or redirect failed");

  if (want.control) {
    bool parsed = want.res == LL_PARSE_OK;
    // PortFC's kinds need the port's role (ll_portfc_rx), which this
    // port has not: a valid one is refused, counted as such.
    bool portfc = parsed && (want.msg.kind == LL_CTRL_PORTFC_A ||
                             want.msg.kind == LL_CTRL_PORTFC_B ||
                             want.msg.kind == LL_CTRL_PORTFC_R);
    bool ok = parsed && !portfc;
    CHECK(verdict == (ok ? TC_ACT_REDIRECT : TC_ACT_SHOT),
          "control frame (%zu octets): core says %s, program says %d", n,
          ll_parse_result_name(want.res), verdict);
    CHECK(c1.portfc_refused - c0.portfc_refused == (portfc ? 1u : 0u),
          "portfc_refused +%llu", (unsigned long long)(c1.portfc_refused - c0.portfc_refused));
    CHECK(c1.portfc_relayed == c0.portfc_relayed, "a frame was relayed");
    for (unsigned k = 1; k < LL_CTRL_KIND_COUNT; k++) {
      std::uint64_t d = c1.frames[k] - c0.frames[k];
      CHECK(d == (ok && want.msg.kind == k ? 1u : 0u), "%s +%llu for %s", ll_ctrl_kind(k)->name,
            (unsigned long long)d, ll_parse_result_name(want.res));
    }
    for (unsigned r = 0; r < LL_PARSE_RESULT_COUNT; r++) {
      std::uint64_t d = c1.parse_error[r] - c0.parse_error[r];
      CHECK(d == (!parsed && r == unsigned(want.res) ? 1u : 0u),
            "parse_error[%s] +%llu (core: %s)",
            ll_parse_result_name(static_cast<ll_parse_result>(r)), (unsigned long long)d,
            ll_parse_result_name(want.res));
    }
    CHECK(ctx_out.priority == kPrioIn, "a control frame's priority became %u", ctx_out.priority);
    if (ok) {
      CHECK(ctx_out.mark == LOSSLESS_CTRL_MARK, "mark %#x", ctx_out.mark);
      unsigned want_type = be16(frame + 12) == LL_ETH_P_MAC_CONTROL ? LOSSLESS_CTRL_ETHERTYPE
                                                                    : be16(frame + 12);
      CHECK(be16(out.data() + 12) == want_type, "EtherType %#x", be16(out.data() + 12));
      CHECK(!std::memcmp(out.data(), frame, 12) && !std::memcmp(out.data() + 14, frame + 14, n - 14),
            "a redirected frame changed beyond its EtherType");
    } else {
      CHECK(ctx_out.mark == kMarkIn, "a dropped frame's mark became %#x", ctx_out.mark);
      CHECK(!std::memcmp(out.data(), frame, n), "a dropped frame changed");
    }
    return 0;
  }

  CHECK(verdict == TC_ACT_UNSPEC, "data frame (%zu octets): verdict %d", n, verdict);
  CHECK(ctx_out.priority == want.prio, "priority %u, model %u (mode %u, default %u)",
        ctx_out.priority, want.prio, cfg.mode, cfg.default_prio);
  CHECK(ctx_out.mark == kMarkIn, "a data frame's mark became %#x", ctx_out.mark);
  CHECK(!std::memcmp(out.data(), frame, n), "a data frame changed");
  CHECK(c1.frames[LL_CTRL_PFC] == c0.frames[LL_CTRL_PFC] && c1.frames[LL_CTRL_PAUSE] == c0.frames[LL_CTRL_PAUSE] && c1.dropped() == c0.dropped(),
        "a data frame moved the control counters");
  return 0;
}
