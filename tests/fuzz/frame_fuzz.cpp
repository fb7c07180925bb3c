// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// libFuzzer harness of the core's control frame codec (kernel/core/ctrl.c),
// one binary per frame type: fuzz_frame_<name>, built with
// -DLL_FUZZ_FRAME=\"<name>\" (tests/fuzz/CMakeLists.txt, LL_FUZZ_FRAMES).
// Every frame type is one entry of kFrameTypes below; the checks are the
// same for all of them.
//
// Each input is used four ways:
//   1. raw:     the bytes as a frame, in a buffer of exactly min(len, 64)
//               bytes with the true length (the BPF program's contract: the
//               parser never reads past the first 64 bytes), with no port
//               address, with the frame's own destination as the port's
//               address (what the BPF program passes for PACKET_HOST) and
//               with its source octets as the port's address;
//   2. long:    the first 64 bytes with a claimed length above 64;
//   3. typed:   the bytes with this type's header (DA, EtherType, opcode)
//               written over the first 16, so the body of this type is
//               explored whatever the seeds;
//   4. meaning: a frame of this type built from the bytes (source, mask,
//               values, lifetime), parsed back, its rejections (cut short,
//               reserved octet set, an opcode of no kind), plus the
//               quanta <-> time conversions at a rate taken from the bytes.
// Checks on every parse:
//   - the result is a known code with a name;
//   - accepted iff the frame is valid by the spec in ctrl.h and pfc.h
//     (independent predicate below, driven by the table: a known
//     EtherType and opcode; the destination is 01-80-C2-00-00-01 or the
//     port's unicast address), and a rejection names a reason that holds
//     for the frame;
//   - an accepted frame's fields are its bytes (the type's field check;
//     TOKENS: gate_mask is the priority mask with bit 8, the link's,
//     always set, and the lifetime is octets 36..37);
//   - round trip: ll_ctrl_build() of the meaning gives a 60-octet
//     frame to 01-80-C2-00-00-01 that parses to the same meaning, with the
//     same bytes as the original from the source address up to the type's
//     minimum length (values of priorities outside a PFC vector or a
//     TOKENS mask go out as 0), padded with zeros;
//   - conversions: ll_quanta_to_ns() and ll_ns_to_quanta() equal exact
//     128-bit references for any 64-bit rate and time (no overflow; quanta
//     above 0xFFFF saturate), and ns_to_quanta(quanta_to_ns(q)) is q, or
//     q + 1 when the time was rounded up.
// A failed check prints what and aborts (libFuzzer reports a crash).
//
// An entry with a codec of its own (its `run`; so far `cnp`, the RoCEv2
// CNP of PCN and DCQCN, kernel/core/cnp.c, which is a UDP payload and no
// MAC control frame) is not looked up by the checks above: its run
// function takes the input and checks it its own way (see cnp_run).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "cnp.h"
#include "ctrl.h"
}

#ifndef LL_FUZZ_FRAME
#error "build with -DLL_FUZZ_FRAME=\"pfc\" (a name of kFrameTypes)"
#endif

namespace {

using u128 = unsigned __int128;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (!(cond)) {                                                         \
      std::fprintf(stderr, "fuzz_frame_%s: check failed: %s\n  ",         \
                   LL_FUZZ_FRAME, #cond);                                  \
      std::fprintf(stderr, __VA_ARGS__);                                   \
      std::fputc('\n', stderr);                                            \
      std::abort();                                                        \
    }                                                                      \
  } while (0)

unsigned be16(const std::uint8_t *p)
{
  return (p[0] << 8) | p[1];
}

std::uint64_t le64(const std::uint8_t *p)
{
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

// ------------------------------------------------------------ the table

// One control frame type of the core. To add one: an entry here, its
// name in LL_FUZZ_FRAMES (CMakeLists.txt), seeds in corpus/frame_<name>/
// (make_seeds.py).
struct FrameType {
  const char *name;   // fuzz_frame_<name>
  ll_u8 kind;         // enum ll_ctrl_kind the parser reports
  ll_u16 ethertype;   // at octet 12
  ll_u16 opcode;      // at octet 14
  ll_u32 min_len;     // shortest valid frame (no padding)
  // Beyond header and length: LL_PARSE_OK if the body is valid, else the
  // rejection it deserves (e.g. PFC's reserved octet).
  ll_parse_result (*body)(const std::uint8_t *f);
  // An accepted frame's fields against its bytes (f has min_len bytes).
  void (*fields)(const std::uint8_t *f, const ll_ctrl_msg &m);
  // A meaning of this type from arbitrary bytes (d has 32 bytes).
  void (*make)(const std::uint8_t *d, ll_ctrl_msg &m);
  // What a frame of this type conveys of m: the meaning a re-parse gives.
  void (*canon)(ll_ctrl_msg &m);
  // m's enabled times (quanta), for the conversions (at most kMaxTimes).
  unsigned (*times)(const ll_ctrl_msg &m, ll_u16 *out);
  // The octets of a frame of this type that m's build leaves 0 whatever
  // the original had (values outside a mask): zeroes them in f.
  void (*wire)(const ll_ctrl_msg &m, std::uint8_t *f);
  // A codec of its own (not ll_ctrl_parse's): runs the whole input; the
  // fields above are unused (kind LL_CTRL_NONE) and the lookups of the
  // MAC control checks skip the entry.
  void (*run)(const std::uint8_t *data, std::size_t size);
};

constexpr unsigned kMaxTimes = LL_CTRL_GATES + 1;

void wire_all(const ll_ctrl_msg &, std::uint8_t *)
{
}

// Values from octet 18 on, one per priority; those outside m's mask go
// out as 0 (PFC, TOKENS).
void wire_masked(const ll_ctrl_msg &m, std::uint8_t *f)
{
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    if (!(m.gate_mask & (1u << i)))
      f[18 + 2 * i] = f[19 + 2 * i] = 0;
}

ll_parse_result body_ok(const std::uint8_t *)
{
  return LL_PARSE_OK;
}

// ---- 802.3x PAUSE: 16 pause_time
void pause_fields(const std::uint8_t *f, const ll_ctrl_msg &m)
{
  CHECK(m.gate_mask == 1, "PAUSE gate_mask %u (its one gate)", m.gate_mask);
  CHECK(m.value[0] == be16(f + 16), "PAUSE time %u, bytes %u", m.value[0], be16(f + 16));
  for (int i = 1; i < LL_PFC_PRIOS; i++)
    CHECK(m.value[i] == 0, "PAUSE quanta[%d] = %u", i, m.value[i]);
}

void pause_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  std::memset(&m, 0, sizeof(m));
  m.kind = LL_CTRL_PAUSE;
  std::memcpy(m.src, d, LL_ETH_ALEN);
  m.value[0] = static_cast<ll_u16>(be16(d + 6));
  // Garbage where a PAUSE has nothing: build must ignore it.
  m.gate_mask = d[8];
  for (int i = 1; i < LL_PFC_PRIOS; i++)
    m.value[i] = static_cast<ll_u16>(be16(d + 8 + 2 * i));
}

void pause_canon(ll_ctrl_msg &m)
{
  m.gate_mask = 1;  // value[0], for the port gate
  for (int i = 1; i < LL_PFC_PRIOS; i++)
    m.value[i] = 0;
}

unsigned pause_times(const ll_ctrl_msg &m, ll_u16 *out)
{
  out[0] = m.value[0];
  return 1;
}

// ---- 802.1Qbb PFC: 16 reserved octet, 17 e7..e0, 18 time[0..7]
ll_parse_result pfc_body(const std::uint8_t *f)
{
  return f[16] ? LL_PARSE_RESERVED_SET : LL_PARSE_OK;
}

void pfc_fields(const std::uint8_t *f, const ll_ctrl_msg &m)
{
  CHECK(m.gate_mask == f[17], "PFC vector %#x, byte %#x", m.gate_mask, f[17]);
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    CHECK(m.value[i] == be16(f + 18 + 2 * i), "PFC time[%d] %u, bytes %u", i, m.value[i],
          be16(f + 18 + 2 * i));
}

void pfc_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  std::memset(&m, 0, sizeof(m));
  m.kind = LL_CTRL_PFC;
  std::memcpy(m.src, d, LL_ETH_ALEN);
  m.gate_mask = d[6];
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    m.value[i] = static_cast<ll_u16>(be16(d + 7 + 2 * i));
}

void pfc_canon(ll_ctrl_msg &m)
{
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    if (!(m.gate_mask & (1u << i)))
      m.value[i] = 0;
}

unsigned pfc_times(const ll_ctrl_msg &m, ll_u16 *out)
{
  unsigned n = 0;
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    if (m.gate_mask & (1u << i))
      out[n++] = m.value[i];
  return n;
}

// ---- TOKENS (BifrostX, ctrl.h), EtherType 0x88B6: 16 reserved octet,
// 17 priority mask e7..e0, 18 credit[0..7], 34 link credit, 36 lifetime
void tokens_fields(const std::uint8_t *f, const ll_ctrl_msg &m)
{
  CHECK(m.gate_mask == (f[17] | 0x100u), "TOKENS gate_mask %#x, mask byte %#x (+ bit 8)",
        m.gate_mask, f[17]);
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    CHECK(m.value[i] == be16(f + 18 + 2 * i), "TOKENS credit[%d] %u, bytes %u", i, m.value[i],
          be16(f + 18 + 2 * i));
  CHECK(m.value[LL_PFC_PRIOS] == be16(f + 34), "TOKENS link credit %u, bytes %u",
        m.value[LL_PFC_PRIOS], be16(f + 34));
  CHECK(m.lifetime == be16(f + 36), "TOKENS lifetime %u, bytes %u", m.lifetime, be16(f + 36));
}

void tokens_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  std::memset(&m, 0, sizeof(m));
  m.kind = LL_CTRL_TOKENS;
  std::memcpy(m.src, d, LL_ETH_ALEN);
  // Any 16 bits: the frame has the low 8, bit 8 is the link's whatever
  // it holds here, the others are nothing.
  m.gate_mask = static_cast<ll_u16>(be16(d + 6));
  for (int i = 0; i < LL_CTRL_GATES; i++)
    m.value[i] = static_cast<ll_u16>(be16(d + 8 + 2 * i));
  m.lifetime = static_cast<ll_u16>(be16(d + 26));
}

void tokens_canon(ll_ctrl_msg &m)
{
  m.gate_mask = static_cast<ll_u16>((m.gate_mask & 0xFF) | 0x100);
  for (int i = 0; i < LL_PFC_PRIOS; i++)
    if (!(m.gate_mask & (1u << i)))
      m.value[i] = 0;
}

// The lifetime, and the credits (a 64-octet unit is one quantum's octets:
// the time to send them).
unsigned tokens_times(const ll_ctrl_msg &m, ll_u16 *out)
{
  unsigned n = 0;
  out[n++] = m.lifetime;
  for (int i = 0; i < LL_CTRL_GATES; i++)
    if (m.gate_mask & (1u << i))
      out[n++] = m.value[i];
  return n;
}

// ---- PORTFC_A, _B, _R (PortFC, ctrl.h), EtherType 0x88B6, opcodes 2, 3,
// 4: 16 reserved octet, 17 slot mask s6..s0 (bit 7 names no slot but
// travels), 18 time[0..6].
void portfc_fields(const std::uint8_t *f, const ll_ctrl_msg &m)
{
  CHECK(m.gate_mask == f[17], "PORTFC mask %#x, byte %#x", m.gate_mask, f[17]);
  for (int i = 0; i < LL_CTRL_PORTFC_SLOTS; i++)
    CHECK(m.value[i] == be16(f + 18 + 2 * i), "PORTFC time[%d] %u, bytes %u", i, m.value[i],
          be16(f + 18 + 2 * i));
  for (int i = LL_CTRL_PORTFC_SLOTS; i < LL_CTRL_GATES; i++)
    CHECK(m.value[i] == 0, "PORTFC value[%d] = %u beyond its slots", i, m.value[i]);
}

void portfc_make(const std::uint8_t *d, ll_ctrl_msg &m, ll_u8 kind)
{
  std::memset(&m, 0, sizeof(m));
  m.kind = kind;
  std::memcpy(m.src, d, LL_ETH_ALEN);
  m.gate_mask = static_cast<ll_u16>(be16(d + 6));  // the high 8 bits are nothing
  for (int i = 0; i < LL_CTRL_GATES; i++)
    m.value[i] = static_cast<ll_u16>(be16(d + 8 + 2 * i));
}

void portfc_a_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  portfc_make(d, m, LL_CTRL_PORTFC_A);
}

void portfc_b_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  portfc_make(d, m, LL_CTRL_PORTFC_B);
}

void portfc_r_make(const std::uint8_t *d, ll_ctrl_msg &m)
{
  portfc_make(d, m, LL_CTRL_PORTFC_R);
}

void portfc_canon(ll_ctrl_msg &m)
{
  m.gate_mask &= 0xFF;
  for (int i = 0; i < LL_CTRL_GATES; i++)
    if (i >= LL_CTRL_PORTFC_SLOTS || !(m.gate_mask & (1u << i)))
      m.value[i] = 0;
}

unsigned portfc_times(const ll_ctrl_msg &m, ll_u16 *out)
{
  unsigned n = 0;
  for (int i = 0; i < LL_CTRL_PORTFC_SLOTS; i++)
    if (m.gate_mask & (1u << i))
      out[n++] = m.value[i];
  return n;
}

// ---- The CNP (kernel/core/cnp.h; pcn.md 3.3): a UDP payload of 32
// octets, BTH + 16 octets + ICRC. Checks:
//   - the result equals the one cnp.h's layout gives (cnp_spec below,
//     written from the header, not from cnp.c), for the raw bytes, for
//     the bytes under a CNP's BTH, and under a BTH and version 1 with the
//     reserved octets cleared (so that most of those are accepted);
//   - the parser reads only min(len, 32) octets (an exact heap buffer)
//     and a length above 32 is oversize whatever the bytes after 32;
//   - an accepted CNP's fields are its bytes; rebuilt, it is the same 28
//     octets and an ICRC of 0, and parses to the same fields;
//   - a CNP built from arbitrary fields: refused exactly when cnp.h says
//     (version, DestQP above 24 bits, rate_valid against RecRate), else
//     parsed back to the fields (booleans as 0/1; version 0: zeros),
//     refused at every shorter length, and as a whole IPv4 frame with a
//     header checksum that sums to 0xFFFF and ECN 11 or 00.
ll_u32 cnp_be(const std::uint8_t *p, int n)
{
  ll_u32 v = 0;
  for (int i = 0; i < n; i++)
    v = (v << 8) | p[i];
  return v;
}

ll_cnp_result cnp_spec(const std::uint8_t *p, std::size_t len)
{
  if (len < 1)
    return LL_CNP_TRUNCATED;
  if (p[0] != 0x81)
    return LL_CNP_NOT_CNP;
  if (len < 32)
    return LL_CNP_TRUNCATED;
  if (len > 32)
    return LL_CNP_OVERSIZE;
  // SE M PadCnt TVer 0; P_Key 0xFFFF; FECN 0 BECN 1 reserved 0; A 0,
  // reserved 0; PSN 0.
  if (p[1] || cnp_be(p + 2, 2) != 0xFFFF || p[4] != 0x40 || p[8] || cnp_be(p + 9, 3))
    return LL_CNP_BAD_BTH;
  if (p[17] == 0) {
    for (int i = 12; i < 28; i++)
      if (p[i])
        return LL_CNP_RESERVED_SET;
    return LL_CNP_OK;
  }
  if (p[17] != 1)
    return LL_CNP_BAD_VERSION;
  if ((p[16] & 0xFC) || p[25] || p[26] || p[27])
    return LL_CNP_RESERVED_SET;
  bool valid = p[16] & 2;
  if (valid != (cnp_be(p + 12, 4) != 0))
    return LL_CNP_BAD_RATE;
  return LL_CNP_OK;
}

void cnp_fields(const std::uint8_t *p, const ll_cnp &c)
{
  CHECK(c.dest_qp == cnp_be(p + 5, 3), "dest_qp %#x", c.dest_qp);
  CHECK(c.rec_rate_mbps == cnp_be(p + 12, 4), "rec_rate %u", c.rec_rate_mbps);
  CHECK(c.congested == (p[16] & 1) && c.rate_valid == ((p[16] >> 1) & 1), "flags %u %u",
        c.congested, c.rate_valid);
  CHECK(c.version == p[17], "version %u", c.version);
  CHECK(c.seq == cnp_be(p + 18, 2) && c.sport == cnp_be(p + 20, 2) &&
            c.dport == cnp_be(p + 22, 2) && c.proto == p[24],
        "seq %u sport %u dport %u proto %u", c.seq, c.sport, c.dport, c.proto);
  CHECK(c.ip_ecn == LL_CNP_ECN_UNSEEN, "ip_ecn %u", c.ip_ecn);
}

bool cnp_same(const ll_cnp &a, const ll_cnp &b)
{
  return a.rec_rate_mbps == b.rec_rate_mbps && a.dest_qp == b.dest_qp && a.seq == b.seq &&
         a.sport == b.sport && a.dport == b.dport && a.proto == b.proto &&
         a.congested == b.congested && a.rate_valid == b.rate_valid && a.version == b.version;
}

// Parse len octets (the first min(len, 32) of bytes in an exact heap
// buffer, the rest claimed) and check; returns the result.
ll_cnp_result cnp_check(const std::uint8_t *bytes, std::size_t len)
{
  std::size_t n = len < LL_CNP_BYTES ? len : LL_CNP_BYTES;
  std::vector<std::uint8_t> buf(bytes, bytes + n);
  ll_cnp c;
  std::memset(&c, 0xa5, sizeof(c));
  ll_cnp_result r = ll_cnp_parse(n ? buf.data() : nullptr, static_cast<ll_u32>(len), &c);
  CHECK(r >= LL_CNP_OK && r < LL_CNP_RESULT_COUNT, "result %d", (int)r);
  CHECK(std::strcmp(ll_cnp_result_name(r), "invalid-result") != 0, "result %d unnamed", (int)r);
  ll_cnp_result want = cnp_spec(bytes, len);
  CHECK(r == want, "len %zu: parser says %s, cnp.h says %s", len, ll_cnp_result_name(r),
        ll_cnp_result_name(want));
  if (r != LL_CNP_OK)
    return r;
  cnp_fields(bytes, c);
  std::uint8_t out[LL_CNP_BYTES];
  std::memset(out, 0xEE, sizeof(out));
  CHECK(ll_cnp_build(out, sizeof(out), &c) == LL_CNP_BYTES, "rebuild refused");
  CHECK(!std::memcmp(out, bytes, 28), "rebuilt octets differ");
  CHECK(!cnp_be(out + 28, 4), "ICRC not 0");
  ll_cnp back;
  CHECK(ll_cnp_parse(out, LL_CNP_BYTES, &back) == LL_CNP_OK && cnp_same(back, c),
        "the rebuilt CNP parses to something else");
  return r;
}

void cnp_build_check(const std::uint8_t *d)
{
  ll_cnp c;
  std::memset(&c, 0, sizeof(c));
  c.rec_rate_mbps = cnp_be(d, 4);
  if (d[4] & 0x20)  // the extremes
    c.rec_rate_mbps = d[4] & 1 ? 0xFFFFFFFFu : 1u;
  if (d[4] & 0x40)
    c.rec_rate_mbps = 0;
  c.dest_qp = cnp_be(d + 5, 4) >> (d[9] % 9);
  c.seq = static_cast<ll_u16>(cnp_be(d + 10, 2));
  c.sport = static_cast<ll_u16>(cnp_be(d + 12, 2));
  c.dport = static_cast<ll_u16>(cnp_be(d + 14, 2));
  c.proto = d[16];
  c.congested = d[17] % 3 ? d[17] : 0;
  c.rate_valid = d[18] % 3 ? d[18] : 0;
  c.version = d[19] < 200 ? 1 : d[19] < 240 ? 0 : d[19];
  c.ip_ecn = d[20];
  bool ok = (c.version == 0 || c.version == 1) && c.dest_qp <= 0xFFFFFF &&
            (c.version == 0 || !c.rate_valid == !c.rec_rate_mbps);

  std::vector<std::uint8_t> small(LL_CNP_BYTES - 1 - d[21] % 8);
  CHECK(ll_cnp_build(small.data(), static_cast<ll_u32>(small.size()), &c) == 0,
        "built into %zu octets", small.size());
  std::vector<std::uint8_t> out(LL_CNP_BYTES);
  ll_u32 n = ll_cnp_build(out.data(), LL_CNP_BYTES, &c);
  CHECK(n == (ok ? LL_CNP_BYTES : 0u), "build gave %u, cnp.h says %s", n,
        ok ? "encodable" : "refused");
  if (!ok)
    return;
  ll_cnp want = c;
  want.congested = !!c.congested;
  want.rate_valid = !!c.rate_valid;
  if (c.version == 0) {
    want.rec_rate_mbps = want.seq = want.sport = want.dport = 0;
    want.proto = want.congested = want.rate_valid = 0;
  }
  CHECK(cnp_check(out.data(), LL_CNP_BYTES) == LL_CNP_OK, "a built CNP is refused");
  ll_cnp back;
  ll_cnp_parse(out.data(), LL_CNP_BYTES, &back);
  CHECK(cnp_same(back, want), "a built CNP parses to something else");
  for (std::size_t len = 0; len < LL_CNP_BYTES; len++)
    CHECK(cnp_check(out.data(), len) == LL_CNP_TRUNCATED, "cut to %zu", len);

  // The whole IPv4 frame.
  ll_cnp_ipv4_addr a;
  std::memcpy(&a, d + 8, sizeof(a) < 24 ? sizeof(a) : 24);
  a.dscp = d[22] % 80;
  std::vector<std::uint8_t> f(LL_CNP_IPV4_FRAME_BYTES);
  n = ll_cnp_frame_build(f.data(), static_cast<ll_u32>(f.size()), &a, &c);
  CHECK(n == (a.dscp < 64 ? LL_CNP_IPV4_FRAME_BYTES : 0u), "frame build %u (dscp %u)", n,
        a.dscp);
  if (!n)
    return;
  ll_u32 sum = 0;
  for (int i = 14; i < 34; i += 2)
    sum += cnp_be(&f[i], 2);
  while (sum >> 16)
    sum = (sum & 0xFFFF) + (sum >> 16);
  CHECK(sum == 0xFFFF, "IPv4 checksum sums to %#x", sum);
  CHECK(f[15] == ((a.dscp << 2) | (c.congested ? 3 : 0)), "TOS %#x", f[15]);
  CHECK(cnp_be(&f[36], 2) == 4791 && cnp_be(&f[38], 2) == 40 && cnp_be(&f[16], 2) == 60,
        "UDP/IP lengths");
  CHECK(!std::memcmp(&f[42], out.data(), LL_CNP_BYTES), "frame payload differs");
}

void cnp_run(const std::uint8_t *data, std::size_t size)
{
  // 1. raw, at its length; and a claimed length above 32.
  cnp_check(data, size);
  if (size >= 1) {
    std::size_t claimed = LL_CNP_BYTES + 1 + data[0] % 1500;
    std::vector<std::uint8_t> first(LL_CNP_BYTES, 0);
    std::memcpy(first.data(), data, size < first.size() ? size : first.size());
    cnp_check(first.data(), claimed);
  }
  // 2. under a CNP's BTH (DestQP from the bytes), at its length.
  std::vector<std::uint8_t> typed(data, data + size);
  typed.reserve(1);  // data() is not NULL for an empty input
  static const std::uint8_t bth[LL_CNP_BTH_BYTES] = {0x81, 0, 0xFF, 0xFF, 0x40};
  for (std::size_t i = 0; i < size && i < sizeof(bth); i++)
    if (i < 5 || i >= 8)
      typed[i] = bth[i];
  cnp_check(typed.data(), size);
  // 3. and version 1 with the reserved octets cleared, at 32 octets.
  std::vector<std::uint8_t> v1(LL_CNP_BYTES, 0);
  if (size)
    std::memcpy(v1.data(), typed.data(), size < v1.size() ? size : v1.size());
  std::memcpy(v1.data(), bth, 5);
  std::memset(v1.data() + 8, 0, 4);
  v1[16] &= 3;
  v1[17] = 1;
  v1[25] = v1[26] = v1[27] = 0;
  cnp_check(v1.data(), LL_CNP_BYTES);
  // 4. fields from the bytes, built.
  std::uint8_t d[32] = {};
  std::memcpy(d, data, size < sizeof(d) ? size : sizeof(d));
  cnp_build_check(d);
}

const FrameType kFrameTypes[] = {
    {"pause", LL_CTRL_PAUSE, LL_ETH_P_MAC_CONTROL, LL_MAC_CTRL_OP_PAUSE,
     LL_PAUSE_FRAME_MIN_BYTES, body_ok, pause_fields, pause_make, pause_canon, pause_times,
     wire_all, nullptr},
    {"pfc", LL_CTRL_PFC, LL_ETH_P_MAC_CONTROL, LL_MAC_CTRL_OP_PFC, LL_PFC_FRAME_MIN_BYTES,
     pfc_body, pfc_fields, pfc_make, pfc_canon, pfc_times, wire_masked,
     nullptr},
    // The reserved octet is PFC's rule (pfc_body).
    {"tokens", LL_CTRL_TOKENS, LL_ETH_P_LOSSLESS_CTRL, LL_CTRL_OP_TOKENS,
     LL_CTRL_TOKENS_MIN_BYTES, pfc_body, tokens_fields, tokens_make, tokens_canon,
     tokens_times, wire_masked, nullptr},
    // PortFC's three kinds: one layout, three opcodes.
    {"portfcA", LL_CTRL_PORTFC_A, LL_ETH_P_LOSSLESS_CTRL, LL_CTRL_OP_PORTFC_A,
     LL_CTRL_PORTFC_MIN_BYTES, pfc_body, portfc_fields, portfc_a_make, portfc_canon,
     portfc_times, wire_masked, nullptr},
    {"portfcB", LL_CTRL_PORTFC_B, LL_ETH_P_LOSSLESS_CTRL, LL_CTRL_OP_PORTFC_B,
     LL_CTRL_PORTFC_MIN_BYTES, pfc_body, portfc_fields, portfc_b_make, portfc_canon,
     portfc_times, wire_masked, nullptr},
    {"portfcR", LL_CTRL_PORTFC_R, LL_ETH_P_LOSSLESS_CTRL, LL_CTRL_OP_PORTFC_R,
     LL_CTRL_PORTFC_MIN_BYTES, pfc_body, portfc_fields, portfc_r_make, portfc_canon,
     portfc_times, wire_masked, nullptr},
    // The CNP (cnp.h): a UDP payload, a codec of its own.
    {"cnp", LL_CTRL_NONE, 0, 0, LL_CNP_BYTES, nullptr, nullptr, nullptr, nullptr, nullptr,
     nullptr, cnp_run},
};

// Is type the EtherType of some frame type?
bool control_ethertype(unsigned type)
{
  for (const auto &t : kFrameTypes)
    if (!t.run && t.ethertype == type)
      return true;
  return false;
}

// The frame type of a frame whose first 16 octets are f (len >= 16).
const FrameType *type_by_header(const std::uint8_t *f)
{
  for (const auto &t : kFrameTypes)
    if (!t.run && t.ethertype == be16(f + 12) && t.opcode == be16(f + 14))
      return &t;
  return nullptr;
}

const FrameType *type_by_kind(unsigned kind)
{
  for (const auto &t : kFrameTypes)
    if (!t.run && t.kind == kind)
      return &t;
  return nullptr;
}

const FrameType &this_type()
{
  static const FrameType *t = [] {
    for (const auto &e : kFrameTypes)
      if (!std::strcmp(e.name, LL_FUZZ_FRAME))
        return &e;
    std::fprintf(stderr, "fuzz_frame: no frame type \"%s\" in kFrameTypes\n", LL_FUZZ_FRAME);
    std::abort();
  }();
  return *t;
}

// ------------------------------------------------------------ checks

// 01-80-C2-00-00-01, or port (if not NULL) when that is unicast.
bool da_ok(const std::uint8_t *f, const std::uint8_t *port)
{
  if (!std::memcmp(f, ll_mac_ctrl_da, LL_ETH_ALEN))
    return true;
  return port && !(port[0] & 1) && !std::memcmp(f, port, LL_ETH_ALEN);
}

// The spec's verdict on a frame of len octets whose first min(len, 64)
// are f, received by a port with address port (or NULL): valid or not.
// Written from ctrl.h and pfc.h, not from ctrl.c.
bool spec_valid(const std::uint8_t *f, ll_u32 len, const std::uint8_t *port)
{
  if (len < LL_ETH_HLEN + 2 || len > LL_MAC_CTRL_FRAME_MAX_BYTES)
    return false;
  if (!da_ok(f, port))
    return false;
  const FrameType *t = type_by_header(f);
  return t && len >= t->min_len && t->body(f) == LL_PARSE_OK;
}

// Does the rejection r hold for the frame?
bool reason_holds(ll_parse_result r, const std::uint8_t *f, ll_u32 len,
                  const std::uint8_t *port)
{
  const FrameType *t;

  switch (r) {
    case LL_PARSE_TRUNCATED:
      if (len < LL_ETH_HLEN + 2)
        return true;
      t = type_by_header(f);
      return t && len < t->min_len;
    case LL_PARSE_OVERSIZE:
      return len > LL_MAC_CTRL_FRAME_MAX_BYTES;
    case LL_PARSE_NOT_MAC_CTRL:
      return len >= LL_ETH_HLEN && !control_ethertype(be16(f + 12));
    case LL_PARSE_BAD_DA:
      return len >= LL_ETH_ALEN && !da_ok(f, port);
    case LL_PARSE_BAD_OPCODE:
      return len >= LL_ETH_HLEN + 2 && control_ethertype(be16(f + 12)) &&
             !type_by_header(f);
    case LL_PARSE_RESERVED_SET:
      t = len >= LL_ETH_HLEN + 2 ? type_by_header(f) : nullptr;
      return t && len >= t->min_len && t->body(f) == LL_PARSE_RESERVED_SET;
    default:
      return false;
  }
}

// Meaning equality (kind, source, mask, values, lifetime).
bool same_meaning(const ll_ctrl_msg &a, const ll_ctrl_msg &b)
{
  return a.kind == b.kind && !std::memcmp(a.src, b.src, LL_ETH_ALEN) &&
         a.gate_mask == b.gate_mask && !std::memcmp(a.value, b.value, sizeof(a.value)) &&
         a.lifetime == b.lifetime;
}

// Exact references (128-bit), as tests/unit/quanta_test.cpp.
constexpr std::uint64_t kBitsX1e9 = 512ull * 1000000000ull;

std::uint64_t ref_quanta_to_ns(std::uint64_t q, std::uint64_t r)
{
  if (!r)
    return 0;
  u128 num = static_cast<u128>(q) * kBitsX1e9;
  return static_cast<std::uint64_t>((num + r - 1) / r);
}

std::uint32_t ref_ns_to_quanta(std::uint64_t ns, std::uint64_t r)
{
  if (!ns)
    return 0;
  if (!r)
    return LL_PAUSE_QUANTA_MAX;
  u128 q = (static_cast<u128>(ns) * r + kBitsX1e9 - 1) / kBitsX1e9;
  return q > LL_PAUSE_QUANTA_MAX ? LL_PAUSE_QUANTA_MAX : static_cast<std::uint32_t>(q);
}

// Conversions of q quanta and of ns at rate r.
void check_times(ll_u16 q, std::uint64_t ns, std::uint64_t r)
{
  std::uint64_t t = ll_quanta_to_ns(q, r);
  CHECK(t == ref_quanta_to_ns(q, r), "quanta_to_ns(%u, %llu) = %llu, exact %llu", q,
        (unsigned long long)r, (unsigned long long)t,
        (unsigned long long)ref_quanta_to_ns(q, r));
  std::uint32_t back = ll_ns_to_quanta(t, r);
  if (r && q) {
    // Back to quanta: the fewest that cover the rounded-up time. That is q
    // when the time was exact, else q + 1 (or a few more when a quantum
    // is shorter than the 1 ns the time was rounded up by).
    bool exact = static_cast<u128>(t) * r == static_cast<u128>(q) * kBitsX1e9;
    CHECK(back == ref_ns_to_quanta(t, r) && back >= q && (!exact || back == q) &&
              (r > kBitsX1e9 || back <= q + 1u),
          "ns_to_quanta(quanta_to_ns(%u) = %llu, %llu) = %u", q, (unsigned long long)t,
          (unsigned long long)r, back);
  }
  std::uint32_t nq = ll_ns_to_quanta(ns, r);
  CHECK(nq == ref_ns_to_quanta(ns, r), "ns_to_quanta(%llu, %llu) = %u, exact %u",
        (unsigned long long)ns, (unsigned long long)r, nq, ref_ns_to_quanta(ns, r));
  // quanta is u32: more than a frame carries saturates at 0xFFFF.
  std::uint32_t big = LL_PAUSE_QUANTA_MAX + 1u + (static_cast<std::uint32_t>(ns) >> 8);
  CHECK(ll_quanta_to_ns(big, r) == ref_quanta_to_ns(LL_PAUSE_QUANTA_MAX, r),
        "quanta_to_ns(%u, %llu) = %llu, not the 0xFFFF saturation %llu", big,
        (unsigned long long)r, (unsigned long long)ll_quanta_to_ns(big, r),
        (unsigned long long)ref_quanta_to_ns(LL_PAUSE_QUANTA_MAX, r));
}

// How the port's address is given to the parser.
enum class Port { None, OwnDa, Other };

// Parse len octets of which bytes holds the first min(len, 64), copied to
// a heap block of exactly that size (ASan: no read past it), and check
// everything. port_at: None, or the port's address is the frame's own
// first 6 octets (a pointer into the frame, as the BPF program passes it),
// or octets 6..11. Returns the result.
ll_parse_result parse_and_check(const std::uint8_t *bytes, std::size_t have, ll_u32 len,
                                Port port_at = Port::None)
{
  std::size_t n = have < LL_MAC_CTRL_FRAME_MAX_BYTES ? have : LL_MAC_CTRL_FRAME_MAX_BYTES;
  std::vector<std::uint8_t> buf(bytes, bytes + n);
  // Zero-extended view for the predicates (they read at most 64 octets
  // and only where len says there are bytes).
  std::uint8_t f[LL_MAC_CTRL_FRAME_MAX_BYTES] = {};
  if (n)
    std::memcpy(f, bytes, n);

  std::uint8_t other[LL_ETH_ALEN];
  std::memcpy(other, f + LL_ETH_ALEN, LL_ETH_ALEN);
  const std::uint8_t *port = nullptr;
  if (port_at == Port::OwnDa && n >= LL_ETH_ALEN)
    port = buf.data();
  else if (port_at == Port::Other)
    port = other;

  ll_ctrl_msg m;
  std::memset(&m, 0xa5, sizeof(m));
  ll_parse_result r = ll_ctrl_parse(n ? buf.data() : nullptr, len, port, &m);
  CHECK(r >= LL_PARSE_OK && r < LL_PARSE_RESULT_COUNT, "result %d out of range", (int)r);
  CHECK(std::strcmp(ll_parse_result_name(r), "invalid-result") != 0, "result %d has no name",
        (int)r);
  bool valid = spec_valid(f, len, port);
  CHECK((r == LL_PARSE_OK) == valid, "len %u: parser says %s, spec says %s", len,
        ll_parse_result_name(r), valid ? "valid" : "invalid");
  if (r != LL_PARSE_OK) {
    CHECK(reason_holds(r, f, len, port), "len %u rejected as %s, which does not hold", len,
          ll_parse_result_name(r));
    return r;
  }

  // Accepted: fields are the bytes.
  const FrameType *t = type_by_header(f);
  CHECK(m.kind == t->kind, "%#x/%#x parsed as kind %u", t->ethertype, t->opcode, m.kind);
  CHECK(!std::memcmp(m.src, f + LL_ETH_ALEN, LL_ETH_ALEN), "source address differs");
  t->fields(f, m);

  // Same answer twice (no hidden state).
  ll_ctrl_msg again;
  CHECK(ll_ctrl_parse(buf.data(), len, port, &again) == LL_PARSE_OK &&
            same_meaning(m, again),
        "a second parse differs");

  // Round trip: build the meaning, parse it back.
  std::uint8_t out[LL_MAC_CTRL_FRAME_BYTES];
  CHECK(ll_ctrl_build(out, sizeof(out), &m) == LL_MAC_CTRL_FRAME_BYTES, "build failed");
  ll_ctrl_msg back, want = m;
  t->canon(want);
  CHECK(ll_ctrl_parse(out, LL_MAC_CTRL_FRAME_BYTES, nullptr, &back) == LL_PARSE_OK,
        "the rebuilt frame is rejected");
  CHECK(same_meaning(back, want), "the rebuilt frame means something else");
  // To the group address, then byte for byte from the source address up
  // to min_len (values outside a mask zeroed), then zeros.
  std::uint8_t canon_bytes[LL_MAC_CTRL_FRAME_BYTES] = {};
  std::memcpy(canon_bytes, f, t->min_len);
  std::memcpy(canon_bytes, ll_mac_ctrl_da, LL_ETH_ALEN);
  t->wire(m, canon_bytes);
  CHECK(!std::memcmp(out, canon_bytes, sizeof(out)), "rebuilt bytes differ from the original");
  return r;
}

// Build m (of this type, garbage where the type has nothing), then check.
void build_and_check(const FrameType &t, const std::uint8_t *d)
{
  ll_ctrl_msg m;
  t.make(d, m);

  // Too small a buffer: 0, and nothing written past it (ASan).
  std::vector<std::uint8_t> small(LL_MAC_CTRL_FRAME_BYTES - 1 - (d[31] % 8));
  CHECK(ll_ctrl_build(small.data(), static_cast<ll_u32>(small.size()), &m) == 0,
        "build into %zu bytes", small.size());
  // A kind that is no frame type: 0.
  ll_ctrl_msg bad = m;
  bad.kind = d[30];
  std::uint8_t out[LL_MAC_CTRL_FRAME_MAX_BYTES];
  if (!type_by_kind(bad.kind))
    CHECK(ll_ctrl_build(out, sizeof(out), &bad) == 0, "built kind %u", bad.kind);

  std::vector<std::uint8_t> exact(LL_MAC_CTRL_FRAME_BYTES);
  CHECK(ll_ctrl_build(exact.data(), LL_MAC_CTRL_FRAME_BYTES, &m) == LL_MAC_CTRL_FRAME_BYTES,
        "build of a %s failed", t.name);
  for (std::size_t i = t.min_len; i < exact.size(); i++)
    CHECK(exact[i] == 0, "padding octet %zu is %#x", i, exact[i]);
  ll_ctrl_msg back, want = m;
  t.canon(want);
  ll_parse_result r = ll_ctrl_parse(exact.data(), LL_MAC_CTRL_FRAME_BYTES, nullptr, &back);
  CHECK(r == LL_PARSE_OK, "a built %s is rejected: %s", t.name, ll_parse_result_name(r));
  CHECK(same_meaning(back, want), "a built %s means something else", t.name);
  // And through the full checker, at every length from its minimum.
  ll_u32 len = t.min_len + d[29] % (LL_MAC_CTRL_FRAME_BYTES - t.min_len + 1);
  parse_and_check(exact.data(), len, len);

  // Its rejections. One octet short of its PDU: truncated.
  ll_u32 cut = t.min_len - 1;
  r = parse_and_check(exact.data(), cut, cut, Port::OwnDa);
  CHECK(r == LL_PARSE_TRUNCATED, "a %s of %u octets: %s", t.name, cut, ll_parse_result_name(r));
  // A bit of octet 16 set: the reserved octet of a type with one (PFC,
  // TOKENS), a pause time's for PAUSE.
  std::vector<std::uint8_t> rsvd(exact.begin(), exact.begin() + len);
  rsvd[16] |= static_cast<std::uint8_t>(1u << (d[28] % 8));
  r = parse_and_check(rsvd.data(), len, len);
  CHECK(r == t.body(rsvd.data()), "a %s with octet 16 %#x: %s", t.name, rsvd[16],
        ll_parse_result_name(r));
  // An opcode of no kind under its EtherType.
  std::vector<std::uint8_t> op(exact.begin(), exact.begin() + len);
  for (unsigned o = be16(d + 30);; o = (o + 1) & 0xFFFF) {
    op[14] = static_cast<std::uint8_t>(o >> 8);
    op[15] = static_cast<std::uint8_t>(o);
    if (!type_by_header(op.data()))
      break;
  }
  r = parse_and_check(op.data(), len, len);
  CHECK(r == LL_PARSE_BAD_OPCODE, "a %s with opcode %#x: %s", t.name, be16(op.data() + 14),
        ll_parse_result_name(r));

  // Conversions of each time the frame conveys, at a rate from the bytes:
  // any 64-bit value, or a port rate in the qdisc's range.
  std::uint64_t raw_rate = le64(d + 16), ns = le64(d + 24) >> (d[28] % 64);
  std::uint64_t port_rate = 8000 + raw_rate % (1600000000000ull - 8000 + 1);
  ll_u16 q[kMaxTimes];
  unsigned nq = t.times(want, q);
  CHECK(nq <= kMaxTimes, "%u times", nq);
  for (unsigned i = 0; i < nq; i++) {
    check_times(q[i], ns, raw_rate);
    check_times(q[i], ns, port_rate);
  }
  check_times(LL_PAUSE_QUANTA_MAX, ns, raw_rate);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
  static const std::uint8_t kEmpty[1] = {};
  const FrameType &t = this_type();
  if (size > 4096)
    return 0;
  if (!size)
    data = kEmpty;  // libFuzzer may pass NULL; memcpy must not get it
  if (t.run) {
    t.run(data, size);
    return 0;
  }

  // 1. raw bytes, true length; no port address, the frame's own DA, or
  //    another.
  for (Port p : {Port::None, Port::OwnDa, Port::Other})
    parse_and_check(data, size, static_cast<ll_u32>(size), p);

  // 2. a claimed length above 64 over the first 64 bytes (BPF passes
  //    skb->len with at most 64 bytes loaded).
  if (size >= 2) {
    ll_u32 claimed = LL_MAC_CTRL_FRAME_MAX_BYTES + 1 + be16(data) % 9000;
    std::uint8_t first[LL_MAC_CTRL_FRAME_MAX_BYTES] = {};
    std::memcpy(first, data, size < sizeof(first) ? size : sizeof(first));
    ll_parse_result r = parse_and_check(first, sizeof(first), claimed, Port::OwnDa);
    CHECK(r == LL_PARSE_OVERSIZE || r == LL_PARSE_NOT_MAC_CTRL, "claimed len %u: %s", claimed,
          ll_parse_result_name(r));
  }

  // 3. this type's header over the first 16 bytes.
  std::vector<std::uint8_t> typed(data, data + size);
  std::uint8_t hdr[LL_ETH_HLEN + 2];
  std::memcpy(hdr, ll_mac_ctrl_da, LL_ETH_ALEN);
  std::memcpy(hdr + LL_ETH_ALEN, size >= 12 ? data + 6 : hdr, LL_ETH_ALEN);
  hdr[12] = static_cast<std::uint8_t>(t.ethertype >> 8);
  hdr[13] = static_cast<std::uint8_t>(t.ethertype);
  hdr[14] = static_cast<std::uint8_t>(t.opcode >> 8);
  hdr[15] = static_cast<std::uint8_t>(t.opcode);
  if (size)
    std::memcpy(typed.data(), hdr, size < sizeof(hdr) ? size : sizeof(hdr));
  ll_parse_result r = parse_and_check(typed.data(), typed.size(), static_cast<ll_u32>(size));
  if (size >= t.min_len && size <= LL_MAC_CTRL_FRAME_MAX_BYTES)
    CHECK(r == LL_PARSE_OK || r == t.body(typed.data()), "a %zu-octet %s: %s", size, t.name,
          ll_parse_result_name(r));

  // 4. a meaning of this type from the bytes, built and parsed back.
  std::uint8_t d[32] = {};
  std::memcpy(d, data, size < sizeof(d) ? size : sizeof(d));
  build_and_check(t, d);
  return 0;
}
