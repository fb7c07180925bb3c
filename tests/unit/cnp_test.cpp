// The CNP codec of PCN and DCQCN (kernel/core/cnp.c; pcn.md 3.3):
// round trips of every field with its extremes, the exact bytes against
// 3.3 written out by hand, every refusal, truncation at every length, the
// whole IPv4 frame (checksum, ECN 11/00, DSCP).
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include "cnp.h"
}

namespace {

using Bytes = std::array<ll_u8, LL_CNP_BYTES>;

ll_cnp MakeCnp(ll_u32 rate, bool congested, ll_u16 seq = 7)
{
	ll_cnp c;
	std::memset(&c, 0, sizeof(c));
	c.version = LL_CNP_VERSION;
	c.rec_rate_mbps = rate;
	c.rate_valid = rate != 0;
	c.congested = congested;
	c.seq = seq;
	c.sport = 49152;
	c.dport = 4791;
	c.proto = 17;
	c.dest_qp = 0x000102;
	return c;
}

Bytes Build(const ll_cnp &c)
{
	Bytes b;
	b.fill(0xEE);
	EXPECT_EQ(ll_cnp_build(b.data(), b.size(), &c), (ll_u32)LL_CNP_BYTES);
	return b;
}

ll_cnp_result Parse(const ll_u8 *p, ll_u32 len, ll_cnp *out)
{
	// Exactly len bytes on the heap: ASan sees any read past them.
	std::vector<ll_u8> v(p, p + len);
	return ll_cnp_parse(len ? v.data() : nullptr, len, out);
}

void ExpectSame(const ll_cnp &a, const ll_cnp &b)
{
	EXPECT_EQ(a.rec_rate_mbps, b.rec_rate_mbps);
	EXPECT_EQ(a.dest_qp, b.dest_qp);
	EXPECT_EQ(a.seq, b.seq);
	EXPECT_EQ(a.sport, b.sport);
	EXPECT_EQ(a.dport, b.dport);
	EXPECT_EQ(a.proto, b.proto);
	EXPECT_EQ(a.congested, b.congested);
	EXPECT_EQ(a.rate_valid, b.rate_valid);
	EXPECT_EQ(a.version, b.version);
}

// pcn.md 3.3 by hand: RecRate 100000 Mbps (0x000186A0), congested and
// rate_valid, version 1, seq 0xBEEF, ports 0xC000 -> 0x12B7 (4791),
// protocol 17, DestQP 0x000102.
const Bytes kHand = {
	0x81, 0x00, 0xFF, 0xFF,		// opcode, SE/M/Pad/TVer, P_Key
	0x40, 0x00, 0x01, 0x02,		// BECN, DestQP
	0x00, 0x00, 0x00, 0x00,		// A/reserved, PSN
	0x00, 0x01, 0x86, 0xA0,		// RecRate
	0x03, 0x01, 0xBE, 0xEF,		// flags, version, seq
	0xC0, 0x00, 0x12, 0xB7,		// sport, dport
	0x11, 0x00, 0x00, 0x00,		// proto, zeros
	0x00, 0x00, 0x00, 0x00,		// ICRC
};

TEST(Cnp, BytesAreSection33)
{
	ll_cnp c = MakeCnp(100000, true, 0xBEEF);
	Bytes b = Build(c);
	EXPECT_EQ(b, kHand);
	ll_cnp back;
	ASSERT_EQ(Parse(kHand.data(), kHand.size(), &back), LL_CNP_OK);
	ExpectSame(back, c);
	EXPECT_EQ(back.ip_ecn, LL_CNP_ECN_UNSEEN);
	EXPECT_EQ(LL_CNP_BYTES, 32);
	EXPECT_EQ(LL_CNP_IPV4_FRAME_BYTES, 74);	// 3.2's 74 B
}

TEST(Cnp, RoundTripExtremes)
{
	const ll_u32 rates[] = {1, 2, 1000, 400000, 0x7FFFFFFF, 0x80000000,
				0xFFFFFFFE, 0xFFFFFFFF};
	const ll_u16 seqs[] = {0, 1, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF};
	const ll_u16 ports[] = {0, 1, 4791, 0xFFFF};
	const ll_u8 protos[] = {0, 6, 17, 255};
	const ll_u32 qps[] = {0, 1, 0x123456, 0xFFFFFF};
	int n = 0;

	for (ll_u32 r : rates)
		for (ll_u16 s : seqs)
			for (int i = 0; i < 4; i++) {
				ll_cnp c = MakeCnp(r, i & 1, s);
				c.sport = ports[i];
				c.dport = ports[3 - i];
				c.proto = protos[i];
				c.dest_qp = qps[(i + s) % 4];
				Bytes b = Build(c);
				EXPECT_EQ(b[12], (ll_u8)(r >> 24));
				EXPECT_EQ(b[15], (ll_u8)r);
				EXPECT_EQ(b[18], (ll_u8)(s >> 8));
				EXPECT_EQ(b[19], (ll_u8)s);
				ll_cnp back;
				ASSERT_EQ(Parse(b.data(), b.size(), &back), LL_CNP_OK);
				ExpectSame(back, c);
				n++;
			}
	EXPECT_EQ(n, 8 * 6 * 4);
}

TEST(Cnp, SeqWraps)
{
	// The sender's counter wraps in the u16 field: 0xFFFF then 0.
	ll_u16 seq = 0xFFFF;
	ll_cnp c = MakeCnp(5, false, seq);
	ll_cnp back;
	Bytes b = Build(c);
	ASSERT_EQ(Parse(b.data(), b.size(), &back), LL_CNP_OK);
	EXPECT_EQ(back.seq, 0xFFFF);
	c.seq = (ll_u16)(seq + 1);
	b = Build(c);
	ASSERT_EQ(Parse(b.data(), b.size(), &back), LL_CNP_OK);
	EXPECT_EQ(back.seq, 0);
	EXPECT_EQ(b[18], 0);
	EXPECT_EQ(b[19], 0);
}

TEST(Cnp, DcqcnAndPlain)
{
	// DCQCN's NP: version 1, rate_valid 0, RecRate 0, flag congested.
	ll_cnp d = MakeCnp(0, true, 3);
	Bytes b = Build(d);
	EXPECT_EQ(b[16], 0x01);
	EXPECT_EQ(b[12] | b[13] | b[14] | b[15], 0);
	ll_cnp back;
	ASSERT_EQ(Parse(b.data(), b.size(), &back), LL_CNP_OK);
	ExpectSame(back, d);

	// A plain RoCEv2 CNP (a NIC's): 16 zero octets; version 0.
	const Bytes plain = {0x81, 0x00, 0xFF, 0xFF, 0x40, 0xAB, 0xCD, 0xEF};
	ASSERT_EQ(Parse(plain.data(), plain.size(), &back), LL_CNP_OK);
	EXPECT_EQ(back.version, LL_CNP_VERSION_PLAIN);
	EXPECT_EQ(back.dest_qp, 0xABCDEFu);
	EXPECT_EQ(back.congested, 0);
	EXPECT_EQ(back.rate_valid, 0);
	EXPECT_EQ(back.rec_rate_mbps, 0u);
	EXPECT_EQ(back.seq | back.sport | back.dport | back.proto, 0);
	// Building version 0 writes zeros whatever the other fields say.
	ll_cnp p = MakeCnp(123, true, 9);
	p.version = LL_CNP_VERSION_PLAIN;
	p.dest_qp = 0xABCDEF;
	EXPECT_EQ(Build(p), plain);
}

TEST(Cnp, BuildRefuses)
{
	std::array<ll_u8, 64> buf{};
	ll_cnp c = MakeCnp(10, false);
	EXPECT_EQ(ll_cnp_build(buf.data(), LL_CNP_BYTES - 1, &c), 0u);
	EXPECT_EQ(ll_cnp_build(buf.data(), 0, &c), 0u);
	c.version = 2;
	EXPECT_EQ(ll_cnp_build(buf.data(), buf.size(), &c), 0u);
	c = MakeCnp(10, false);
	c.dest_qp = 0x1000000;
	EXPECT_EQ(ll_cnp_build(buf.data(), buf.size(), &c), 0u);
	c = MakeCnp(10, false);
	c.rate_valid = 0;	// a rate without rate_valid
	EXPECT_EQ(ll_cnp_build(buf.data(), buf.size(), &c), 0u);
	c = MakeCnp(0, false);
	c.rate_valid = 1;	// rate_valid with RecRate 0 (A9)
	EXPECT_EQ(ll_cnp_build(buf.data(), buf.size(), &c), 0u);
	// Booleans: any non-zero is 1.
	c = MakeCnp(10, false);
	c.congested = 0x80;
	c.rate_valid = 0x10;
	EXPECT_EQ(ll_cnp_build(buf.data(), buf.size(), &c), (ll_u32)LL_CNP_BYTES);
	EXPECT_EQ(buf[16], 0x03);
	// The buffer holds exactly 32 octets: nothing written past them.
	std::vector<ll_u8> exact(LL_CNP_BYTES);
	EXPECT_EQ(ll_cnp_build(exact.data(), exact.size(), &c), (ll_u32)LL_CNP_BYTES);
}

ll_cnp_result ParseMutated(int off, ll_u8 value)
{
	Bytes b = kHand;
	b[off] = value;
	ll_cnp out;
	return Parse(b.data(), b.size(), &out);
}

TEST(Cnp, EveryRefusal)
{
	ll_cnp out;
	// Not a CNP: any other opcode (RC SEND Only 0x04, RC ACK 0x11, 0x80).
	for (int op : {0x00, 0x04, 0x11, 0x80, 0x82, 0xFF})
		EXPECT_EQ(ParseMutated(0, op), LL_CNP_NOT_CNP) << op;
	// Another opcode is not a CNP at any length, even 1.
	const ll_u8 send_only[1] = {0x04};
	EXPECT_EQ(Parse(send_only, 1, &out), LL_CNP_NOT_CNP);
	// The BTH fields a CNP fixes.
	EXPECT_EQ(ParseMutated(1, 0x80), LL_CNP_BAD_BTH);	// SE
	EXPECT_EQ(ParseMutated(1, 0x40), LL_CNP_BAD_BTH);	// M
	EXPECT_EQ(ParseMutated(1, 0x30), LL_CNP_BAD_BTH);	// PadCnt
	EXPECT_EQ(ParseMutated(1, 0x01), LL_CNP_BAD_BTH);	// TVer
	EXPECT_EQ(ParseMutated(2, 0x7F), LL_CNP_BAD_BTH);	// P_Key
	EXPECT_EQ(ParseMutated(3, 0xFE), LL_CNP_BAD_BTH);
	EXPECT_EQ(ParseMutated(4, 0x00), LL_CNP_BAD_BTH);	// no BECN
	EXPECT_EQ(ParseMutated(4, 0xC0), LL_CNP_BAD_BTH);	// FECN
	EXPECT_EQ(ParseMutated(4, 0x41), LL_CNP_BAD_BTH);	// reserved
	EXPECT_EQ(ParseMutated(8, 0x80), LL_CNP_BAD_BTH);	// A
	EXPECT_EQ(ParseMutated(8, 0x01), LL_CNP_BAD_BTH);	// reserved7
	EXPECT_EQ(ParseMutated(9, 0x01), LL_CNP_BAD_BTH);	// PSN
	EXPECT_EQ(ParseMutated(11, 0x01), LL_CNP_BAD_BTH);
	// DestQP is any 24-bit value.
	EXPECT_EQ(ParseMutated(5, 0xFF), LL_CNP_OK);
	// Version: 1 (PCN) or 0 (plain: all zero); nothing else.
	for (int v : {2, 3, 0x10, 0xFF})
		EXPECT_EQ(ParseMutated(17, v), LL_CNP_BAD_VERSION) << v;
	// Version 0 with any octet of the 16 set: reserved.
	for (int off = 12; off < 28; off++) {
		if (off == 17)
			continue;
		Bytes b{};
		std::memcpy(b.data(), kHand.data(), LL_CNP_BTH_BYTES);
		b[off] = 0x01;
		EXPECT_EQ(Parse(b.data(), b.size(), &out), LL_CNP_RESERVED_SET) << off;
	}
	// Flag bits 7..2, octets 25..27.
	for (int bit = 2; bit < 8; bit++)
		EXPECT_EQ(ParseMutated(16, 0x03 | (1 << bit)), LL_CNP_RESERVED_SET) << bit;
	for (int off = 25; off < 28; off++)
		EXPECT_EQ(ParseMutated(off, 0x01), LL_CNP_RESERVED_SET) << off;
	// RecRate 0 with rate_valid (A9: it would stall the flow), or a rate
	// without it.
	Bytes b = kHand;
	b[12] = b[13] = b[14] = b[15] = 0;
	EXPECT_EQ(Parse(b.data(), b.size(), &out), LL_CNP_BAD_RATE);
	b = kHand;
	b[16] = LL_CNP_FLAG_CONGESTED;
	EXPECT_EQ(Parse(b.data(), b.size(), &out), LL_CNP_BAD_RATE);
	// The ICRC is never checked.
	b = kHand;
	b[28] = 0xDE;
	b[31] = 0xEF;
	EXPECT_EQ(Parse(b.data(), b.size(), &out), LL_CNP_OK);
	// Longer than a CNP.
	std::vector<ll_u8> longer(kHand.begin(), kHand.end());
	longer.push_back(0);
	EXPECT_EQ(Parse(longer.data(), longer.size(), &out), LL_CNP_OVERSIZE);

	std::set<std::string> names;
	for (int r = 0; r < LL_CNP_RESULT_COUNT; r++)
		names.insert(ll_cnp_result_name((ll_cnp_result)r));
	EXPECT_EQ(names.size(), (size_t)LL_CNP_RESULT_COUNT);
	EXPECT_EQ(names.count("invalid-result"), 0u);
	EXPECT_STREQ(ll_cnp_result_name(LL_CNP_RESULT_COUNT), "invalid-result");
}

TEST(Cnp, TruncatedAtEveryLength)
{
	ll_cnp out;
	EXPECT_EQ(ll_cnp_parse(nullptr, 0, &out), LL_CNP_TRUNCATED);
	for (ll_u32 len = 1; len < LL_CNP_BYTES; len++)
		EXPECT_EQ(Parse(kHand.data(), len, &out), LL_CNP_TRUNCATED) << len;
	EXPECT_EQ(Parse(kHand.data(), LL_CNP_BYTES, &out), LL_CNP_OK);
}

TEST(Cnp, EcnOfTheIpHeader)
{
	ll_cnp c = MakeCnp(10, true);
	EXPECT_EQ(ll_cnp_ip_ecn(&c), 3);
	c.ip_ecn = 3;
	EXPECT_TRUE(ll_cnp_ecn_agrees(&c));
	c.ip_ecn = 0;	// bleached
	EXPECT_FALSE(ll_cnp_ecn_agrees(&c));
	c.congested = 0;
	EXPECT_EQ(ll_cnp_ip_ecn(&c), 0);
	EXPECT_TRUE(ll_cnp_ecn_agrees(&c));
	c.ip_ecn = 2;	// ECT(0): a CNP is never ECT
	EXPECT_FALSE(ll_cnp_ecn_agrees(&c));
	c.ip_ecn = LL_CNP_ECN_UNSEEN;
	EXPECT_FALSE(ll_cnp_ecn_agrees(&c));
}

TEST(Cnp, Ipv4Frame)
{
	const ll_cnp_ipv4_addr a = {
		{0x02, 0x00, 0x00, 0x00, 0x00, 0x01},
		{0x02, 0x00, 0x00, 0x00, 0x00, 0x02},
		{10, 0, 0, 2},
		{10, 0, 0, 1},
		0xABCD, 48, 0,
	};
	for (int congested = 0; congested < 2; congested++) {
		ll_cnp c = MakeCnp(100000, congested, 0xBEEF);
		std::vector<ll_u8> f(LL_CNP_IPV4_FRAME_BYTES);
		ASSERT_EQ(ll_cnp_frame_build(f.data(), f.size(), &a, &c),
			  (ll_u32)LL_CNP_IPV4_FRAME_BYTES);
		// By hand: Ethernet, IPv4 (DSCP 48, ECN 11 or 00, length 60,
		// DF, TTL 64, UDP), UDP 0xABCD -> 4791, length 40.
		std::vector<ll_u8> want = {
			0x02, 0, 0, 0, 0, 0x01, 0x02, 0, 0, 0, 0, 0x02, 0x08, 0x00,
			0x45, (ll_u8)(0xC0 | (congested ? 3 : 0)), 0x00, 60,
			0x00, 0x00, 0x40, 0x00, 64, 17, 0x00, 0x00,
			10, 0, 0, 2, 10, 0, 0, 1,
			0xAB, 0xCD, 0x12, 0xB7, 0x00, 40, 0x00, 0x00,
		};
		// The checksum, computed here: RFC 1071 over the header.
		ll_u32 sum = 0;
		for (int i = 14; i < 34; i += 2)
			sum += (want[i] << 8) | want[i + 1];
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		want[24] = (ll_u8)(~sum >> 8);
		want[25] = (ll_u8)~sum;
		// By hand for ECN 00: ~(0x45C0 + 0x003C + 0x4000 + 0x4011 + 0x0A00 + 2 + 0x0A00 + 1).
		if (!congested) {
			EXPECT_EQ((want[24] << 8) | want[25], 0x25EF);
		}
		want.insert(want.end(), kHand.begin(), kHand.end());
		if (!congested)
			want[42 + 16] = LL_CNP_FLAG_RATE_VALID;
		EXPECT_EQ(f, want) << "congested " << congested;
		// The header sums to 0xFFFF with its checksum.
		sum = 0;
		for (int i = 14; i < 34; i += 2)
			sum += (f[i] << 8) | f[i + 1];
		while (sum >> 16)
			sum = (sum & 0xFFFF) + (sum >> 16);
		EXPECT_EQ(sum, 0xFFFFu);
		ll_cnp back;
		ASSERT_EQ(Parse(f.data() + 42, LL_CNP_BYTES, &back), LL_CNP_OK);
		ExpectSame(back, c);
	}
	ll_cnp c = MakeCnp(1, false);
	std::vector<ll_u8> f(LL_CNP_IPV4_FRAME_BYTES);
	EXPECT_EQ(ll_cnp_frame_build(f.data(), f.size() - 1, &a, &c), 0u);
	ll_cnp_ipv4_addr bad = a;
	bad.dscp = 64;
	EXPECT_EQ(ll_cnp_frame_build(f.data(), f.size(), &bad, &c), 0u);
	c.version = 7;
	EXPECT_EQ(ll_cnp_frame_build(f.data(), f.size(), &a, &c), 0u);
}

}  // namespace
