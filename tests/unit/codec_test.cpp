// MAC control codec (kernel/core/pfc.c): build, strict parse, names.
//
// Frame layout (pfc.h), offsets in octets:
//   0 DA[6]  6 SA[6]  12 EtherType 88 08  14 opcode
//   PAUSE 00 01: 16 pause_time
//   PFC   01 01: 16 reserved octet (0), 17 e7..e0, 18 time[0..7] (2 each)
//   zero padding to 60.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core.h"

namespace {

using Frame = std::vector<ll_u8>;

const ll_u8 kSrc[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};

ll_ctrl_msg MakePfc(ll_u8 vector, std::array<ll_u16, 8> times,
                    const ll_u8 *src = kSrc)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	std::memcpy(m.src, src, 6);
	m.kind = LL_CTRL_PFC;
	m.gate_mask = vector;
	for (int i = 0; i < 8; i++)
		m.value[i] = times[i];
	return m;
}

ll_ctrl_msg MakePause(ll_u16 time, const ll_u8 *src = kSrc)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	std::memcpy(m.src, src, 6);
	m.kind = LL_CTRL_PAUSE;
	m.value[0] = time;
	return m;
}

Frame Build(const ll_ctrl_msg &m)
{
	Frame f(LL_MAC_CTRL_FRAME_BYTES);
	ll_u32 n = ll_ctrl_build(f.data(), f.size(), &m);
	EXPECT_EQ(n, 60u);
	return f;
}

// A parse output full of junk, to see that parse overwrites every field.
ll_ctrl_msg Junk()
{
	ll_ctrl_msg m;
	std::memset(&m, 0xA5, sizeof(m));
	return m;
}

// Parse as a port without a unicast address of its own (nullptr): only
// 01-80-C2-00-00-01 is a valid destination.
ll_parse_result Parse(const Frame &f, ll_u32 len, ll_ctrl_msg *out = nullptr)
{
	ll_ctrl_msg tmp = Junk();
	return ll_ctrl_parse(f.data(), len, nullptr, out ? out : &tmp);
}

// Parse as the port whose own address is port_addr.
ll_parse_result ParseAt(const Frame &f, const ll_u8 *port_addr,
			ll_ctrl_msg *out = nullptr)
{
	ll_ctrl_msg tmp = Junk();
	return ll_ctrl_parse(f.data(), f.size(), port_addr,
				 out ? out : &tmp);
}

ll_parse_result Parse(const Frame &f, ll_ctrl_msg *out = nullptr)
{
	return Parse(f, f.size(), out);
}

// ---------------------------------------------------------------- constants

TEST(Codec, DestinationAddressIsTheReservedMulticast)
{
	const ll_u8 want[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
	EXPECT_EQ(0, std::memcmp(ll_mac_ctrl_da, want, 6));
}

// Every kind of the table: one of the two EtherTypes the qdisc tests per
// packet, a name, gates within the ids and values within the frame.
TEST(Codec, EveryKindOfTheTableIsWellFormed)
{
	for (ll_u32 k = 1; k < LL_CTRL_KIND_COUNT; k++) {
		const ll_ctrl_kind_desc *d = ll_ctrl_kind(k);
		ASSERT_NE(d, nullptr) << k;
		EXPECT_TRUE(ll_ctrl_ethertype(d->ethertype)) << d->name;
		EXPECT_NE(d->name[0], '\0') << k;
		EXPECT_GE(d->gates, 1u) << d->name;
		EXPECT_LE(d->gates, (ll_u32)LL_CTRL_GATES) << d->name;
		EXPECT_LE(d->gate_base + d->gates, (ll_u32)LL_GATES) << d->name;
		EXPECT_LE(d->value_off + 2u * d->gates, d->min_bytes) << d->name;
		// The octets parse reads lie within the shortest frame.
		if (d->mask_off != LL_CTRL_NONE_OFF) {
			EXPECT_LT(d->mask_off, d->min_bytes) << d->name;
		}
		if (d->rsvd_off != LL_CTRL_NONE_OFF) {
			EXPECT_LT(d->rsvd_off, d->min_bytes) << d->name;
		}
		EXPECT_GE(d->value_off, LL_ETH_HLEN + 2u) << d->name;
		EXPECT_LE(d->min_bytes, (ll_u32)LL_MAC_CTRL_FRAME_BYTES) << d->name;
	}
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_NONE), nullptr);
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_KIND_COUNT), nullptr);
	EXPECT_STREQ(ll_ctrl_kind(LL_CTRL_PFC)->name, "pfc");
	EXPECT_STREQ(ll_ctrl_kind(LL_CTRL_PAUSE)->name, "pause");
}

TEST(Codec, SizesMatchTheLayout)
{
	// PAUSE: 14 header + 2 opcode + 2 pause_time = 18.
	EXPECT_EQ(LL_PAUSE_FRAME_MIN_BYTES, 18);
	// PFC: 14 + 2 opcode + 2 vector + 8 * 2 times = 34.
	EXPECT_EQ(LL_PFC_FRAME_MIN_BYTES, 34);
	EXPECT_EQ(LL_MAC_CTRL_FRAME_BYTES, 60);
	EXPECT_EQ(LL_MAC_CTRL_FRAME_MAX_BYTES, 64);
}

// -------------------------------------------------------------- exact bytes

TEST(CodecBuild, PfcExactBytes)
{
	// Classes 3 and 7 enabled (0b10001000 = 0x88). The other classes carry
	// junk times in the struct that must not reach the wire.
	ll_ctrl_msg m = MakePfc(0x88, {0x1111, 0x2222, 0x3333, 0x1234, 0x4444,
				       0x5555, 0x6666, 0xFFFF});
	const ll_u8 want[60] = {
		0x01, 0x80, 0xC2, 0x00, 0x00, 0x01,	// DA
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,	// SA
		0x88, 0x08,				// EtherType
		0x01, 0x01,				// opcode PFC
		0x00, 0x88,				// reserved, e7..e0
		0x00, 0x00,				// time[0] (disabled)
		0x00, 0x00,				// time[1] (disabled)
		0x00, 0x00,				// time[2] (disabled)
		0x12, 0x34,				// time[3]
		0x00, 0x00,				// time[4] (disabled)
		0x00, 0x00,				// time[5] (disabled)
		0x00, 0x00,				// time[6] (disabled)
		0xFF, 0xFF,				// time[7]
		// 34..59: 26 octets of padding
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	Frame f = Build(m);
	ASSERT_EQ(f.size(), sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		EXPECT_EQ(f[i], want[i]) << "octet " << i;
}

TEST(CodecBuild, PfcAllClassesExactTimes)
{
	ll_ctrl_msg m = MakePfc(0xFF, {0x0001, 0x0203, 0x0405, 0x0607, 0x0809,
				       0x0A0B, 0x0C0D, 0xFEDC});
	Frame f = Build(m);
	EXPECT_EQ(f[16], 0x00);
	EXPECT_EQ(f[17], 0xFF);
	const ll_u8 times[16] = {0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
				 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0xFE, 0xDC};
	EXPECT_EQ(0, std::memcmp(f.data() + 18, times, 16));
}

TEST(CodecBuild, PauseExactBytes)
{
	ll_ctrl_msg m = MakePause(0xABCD);
	// Junk the PAUSE ignores: vector and the PFC times.
	m.gate_mask = 0xFF;
	for (int i = 1; i < 8; i++)
		m.value[i] = 0x7777;
	const ll_u8 want[60] = {
		0x01, 0x80, 0xC2, 0x00, 0x00, 0x01,	// DA
		0x02, 0x11, 0x22, 0x33, 0x44, 0x55,	// SA
		0x88, 0x08,				// EtherType
		0x00, 0x01,				// opcode PAUSE
		0xAB, 0xCD,				// pause_time
		// 18..59: 42 octets of padding
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	Frame f = Build(m);
	ASSERT_EQ(f.size(), sizeof(want));
	for (size_t i = 0; i < sizeof(want); i++)
		EXPECT_EQ(f[i], want[i]) << "octet " << i;
}

TEST(CodecBuild, OverwritesDirtyBufferAndWritesExactly60)
{
	// A 64-octet buffer full of 0xEE: octets 0..59 are rewritten (padding
	// zeroed), 60..63 are left alone.
	std::vector<ll_u8> buf(64, 0xEE);
	ll_ctrl_msg m = MakePause(1);
	ASSERT_EQ(ll_ctrl_build(buf.data(), buf.size(), &m), 60u);
	for (int i = 18; i < 60; i++)
		EXPECT_EQ(buf[i], 0) << "padding octet " << i;
	for (int i = 60; i < 64; i++)
		EXPECT_EQ(buf[i], 0xEE) << "octet " << i << " past the frame";
}

TEST(CodecBuild, RejectsSmallBuffer)
{
	ll_ctrl_msg m = MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8});
	std::vector<ll_u8> buf(64, 0xEE);
	for (ll_u32 len : {0u, 1u, 18u, 34u, 59u}) {
		EXPECT_EQ(ll_ctrl_build(buf.data(), len, &m), 0u) << len;
		for (ll_u8 b : buf)
			ASSERT_EQ(b, 0xEE) << "buffer written with len " << len;
	}
	EXPECT_EQ(ll_ctrl_build(buf.data(), 60, &m), 60u);
	ll_ctrl_msg p = MakePause(5);
	EXPECT_EQ(ll_ctrl_build(buf.data(), 59, &p), 0u);
}

TEST(CodecBuild, RejectsBadKind)
{
	std::vector<ll_u8> buf(64, 0xEE);
	for (int kind : {0, (int)LL_CTRL_KIND_COUNT, 0x80, 0xFF}) {
		ll_ctrl_msg m = MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8});
		m.kind = (ll_u8)kind;
		EXPECT_EQ(ll_ctrl_build(buf.data(), buf.size(), &m), 0u)
			<< "kind " << kind;
		for (ll_u8 b : buf)
			ASSERT_EQ(b, 0xEE) << "buffer written for kind " << kind;
	}
}

TEST(CodecBuild, DisabledClassTimesAreZero)
{
	// For every single enabled class p, every other time slot is zero even
	// though the struct holds 0xBEEF there.
	for (int p = 0; p < 8; p++) {
		std::array<ll_u16, 8> t;
		t.fill(0xBEEF);
		ll_ctrl_msg m = MakePfc((ll_u8)(1u << p), t);
		Frame f = Build(m);
		for (int i = 0; i < 8; i++) {
			ll_u16 wire = (ll_u16)((f[18 + 2 * i] << 8) | f[19 + 2 * i]);
			EXPECT_EQ(wire, i == p ? 0xBEEF : 0) << "p=" << p << " i=" << i;
		}
	}
	// Vector 0: all eight slots zero.
	std::array<ll_u16, 8> t;
	t.fill(0xFFFF);
	Frame f = Build(MakePfc(0x00, t));
	for (int i = 18; i < 34; i++)
		EXPECT_EQ(f[i], 0) << "octet " << i;
}

// --------------------------------------------------------------- round trip

void ExpectPfcRoundTrip(ll_u8 vector, std::array<ll_u16, 8> t)
{
	const ll_u8 src[6] = {0xDE, 0xAD, 0xBE, 0xEF, 0x00, vector};
	ll_ctrl_msg in = MakePfc(vector, t, src);
	Frame f = Build(in);
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(ll_ctrl_parse(f.data(), f.size(), nullptr, &out), LL_PARSE_OK);
	EXPECT_EQ(out.kind, LL_CTRL_PFC);
	EXPECT_EQ(out.gate_mask, vector);
	EXPECT_EQ(0, std::memcmp(out.src, src, 6));
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(out.value[i], (vector >> i) & 1 ? t[i] : 0)
			<< "vector " << int(vector) << " class " << i;
}

TEST(CodecRoundTrip, PfcVectors)
{
	const std::array<ll_u16, 8> t = {0, 1, 0x00FF, 0x0100, 0x7FFF, 0x8000,
					 0xFFFE, 0xFFFF};
	for (int v : {0x00, 0x01, 0x02, 0x0F, 0x55, 0x80, 0x88, 0xAA, 0xF0,
		      0xFE, 0xFF})
		ExpectPfcRoundTrip((ll_u8)v, t);
}

TEST(CodecRoundTrip, PfcEveryVector)
{
	for (int v = 0; v < 256; v++)
		ExpectPfcRoundTrip((ll_u8)v, {0xFFFF, 1, 2, 0, 0x1234, 0xABCD,
					      0x8001, 0xFFFF});
}

TEST(CodecRoundTrip, PfcEachPriorityAlone)
{
	// Each priority, priority 7 included, with times 0 (XON), 1 and 0xFFFF.
	for (int p = 0; p < 8; p++)
		for (ll_u16 time : {ll_u16(0), ll_u16(1), ll_u16(0xFFFF)}) {
			std::array<ll_u16, 8> t{};
			t[p] = time;
			ExpectPfcRoundTrip((ll_u8)(1u << p), t);
		}
}

TEST(CodecRoundTrip, PfcPriority7Decoded)
{
	// 0x80 = e7 only: the top bit of the vector octet is priority 7, and
	// time[7] is the last time field (octets 32, 33).
	ll_ctrl_msg in = MakePfc(0x80, {0, 0, 0, 0, 0, 0, 0, 0x0102});
	Frame f = Build(in);
	EXPECT_EQ(f[17], 0x80);
	EXPECT_EQ(f[32], 0x01);
	EXPECT_EQ(f[33], 0x02);
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(Parse(f, &out), LL_PARSE_OK);
	EXPECT_EQ(out.gate_mask, 0x80);
	EXPECT_EQ(out.value[7], 0x0102);
}

TEST(CodecRoundTrip, Pause)
{
	for (ll_u16 time : {ll_u16(0), ll_u16(1), ll_u16(0x00FF), ll_u16(0x8000),
			    ll_u16(0xFFFE), ll_u16(0xFFFF)}) {
		ll_ctrl_msg in = MakePause(time);
		Frame f = Build(in);
		ll_ctrl_msg out = Junk();
		ASSERT_EQ(Parse(f, &out), LL_PARSE_OK) << time;
		EXPECT_EQ(out.kind, LL_CTRL_PAUSE);
		EXPECT_EQ(out.gate_mask, 1) << "value[0], for the port gate";
		EXPECT_EQ(out.value[0], time);
		for (int i = 1; i < 8; i++)
			EXPECT_EQ(out.value[i], 0) << "time " << time;
		EXPECT_EQ(0, std::memcmp(out.src, kSrc, 6));
	}
}

TEST(CodecParse, PfcKeepsWireTimesOfDisabledClasses)
{
	// Parse reports what is on the wire; validity is the vector's job.
	Frame f = Build(MakePfc(0x01, {7, 0, 0, 0, 0, 0, 0, 0}));
	f[20] = 0x00;	// time[1] = 0x0064 = 100, class 1 disabled
	f[21] = 0x64;
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(Parse(f, &out), LL_PARSE_OK);
	EXPECT_EQ(out.gate_mask, 0x01);
	EXPECT_EQ(out.value[0], 7);
	EXPECT_EQ(out.value[1], 100);
}

// --------------------------------------------------------- accepted lengths

TEST(CodecParse, AcceptsUnpaddedPfc34)
{
	Frame f = Build(MakePfc(0x81, {0x0102, 0, 0, 0, 0, 0, 0, 0x0304}));
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(Parse(f, 34, &out), LL_PARSE_OK);
	EXPECT_EQ(out.gate_mask, 0x81);
	EXPECT_EQ(out.value[0], 0x0102);
	EXPECT_EQ(out.value[7], 0x0304);
}

TEST(CodecParse, AcceptsUnpaddedPause18)
{
	Frame f = Build(MakePause(0x0203));
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(Parse(f, 18, &out), LL_PARSE_OK);
	EXPECT_EQ(out.value[0], 0x0203);
}

TEST(CodecParse, AcceptsEveryLengthUpTo64)
{
	// 34..64 for PFC and 18..64 for PAUSE; 61..64 carry an FCS-like
	// trailer of arbitrary octets.
	Frame pfc = Build(MakePfc(0x88, {0, 0, 0, 9, 0, 0, 0, 10}));
	Frame pause = Build(MakePause(42));
	pfc.insert(pfc.end(), {0xDE, 0xAD, 0xBE, 0xEF});
	pause.insert(pause.end(), {0xDE, 0xAD, 0xBE, 0xEF});
	for (ll_u32 len = 34; len <= 64; len++) {
		ll_ctrl_msg out = Junk();
		ASSERT_EQ(Parse(pfc, len, &out), LL_PARSE_OK) << len;
		EXPECT_EQ(out.value[3], 9);
		EXPECT_EQ(out.value[7], 10);
	}
	for (ll_u32 len = 18; len <= 64; len++) {
		ll_ctrl_msg out = Junk();
		ASSERT_EQ(Parse(pause, len, &out), LL_PARSE_OK) << len;
		EXPECT_EQ(out.value[0], 42);
	}
	EXPECT_EQ(Parse(pfc, 60), LL_PARSE_OK);
	EXPECT_EQ(Parse(pfc, 64), LL_PARSE_OK);
}

TEST(CodecParse, AcceptsNonZeroPadding)
{
	// Padding content is not checked (receivers must ignore it).
	Frame f = Build(MakePfc(0x01, {5, 0, 0, 0, 0, 0, 0, 0}));
	for (int i = 34; i < 60; i++)
		f[i] = 0x5A;
	EXPECT_EQ(Parse(f), LL_PARSE_OK);
}

// --------------------------------------------------------------- rejections

TEST(CodecReject, TruncatedHeader)
{
	// Up to 13 octets the EtherType is not even complete.
	Frame f = Build(MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8}));
	for (ll_u32 len = 0; len <= 13; len++)
		EXPECT_EQ(Parse(f, len), LL_PARSE_TRUNCATED) << len;
}

TEST(CodecReject, TruncatedOpcode)
{
	// 14 and 15: EtherType present, opcode (14..15) not complete.
	Frame f = Build(MakePause(1));
	EXPECT_EQ(Parse(f, 14), LL_PARSE_TRUNCATED);
	EXPECT_EQ(Parse(f, 15), LL_PARSE_TRUNCATED);
	Frame g = Build(MakePfc(1, {1, 0, 0, 0, 0, 0, 0, 0}));
	EXPECT_EQ(Parse(g, 15), LL_PARSE_TRUNCATED);
}

TEST(CodecReject, TruncatedPause)
{
	// pause_time is octets 16..17: 16 and 17 are short, 18 is enough.
	Frame f = Build(MakePause(0xFFFF));
	EXPECT_EQ(Parse(f, 16), LL_PARSE_TRUNCATED);
	EXPECT_EQ(Parse(f, 17), LL_PARSE_TRUNCATED);
	EXPECT_EQ(Parse(f, 18), LL_PARSE_OK);
}

TEST(CodecReject, TruncatedPfc)
{
	// time[7] is octets 32..33: everything from 16 to 33 is short.
	Frame f = Build(MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8}));
	for (ll_u32 len = 16; len <= 33; len++)
		EXPECT_EQ(Parse(f, len), LL_PARSE_TRUNCATED) << len;
	EXPECT_EQ(Parse(f, 33), LL_PARSE_TRUNCATED);
	EXPECT_EQ(Parse(f, 34), LL_PARSE_OK);
}

TEST(CodecReject, Oversize)
{
	Frame f = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	f.resize(1518, 0);
	EXPECT_EQ(Parse(f, 65), LL_PARSE_OVERSIZE);
	EXPECT_EQ(Parse(f, 66), LL_PARSE_OVERSIZE);
	EXPECT_EQ(Parse(f, 128), LL_PARSE_OVERSIZE);
	EXPECT_EQ(Parse(f, 1518), LL_PARSE_OVERSIZE);
	Frame p = Build(MakePause(1));
	p.resize(65, 0);
	EXPECT_EQ(Parse(p, 65), LL_PARSE_OVERSIZE);
	EXPECT_EQ(Parse(p, 64), LL_PARSE_OK);
}

TEST(CodecReject, WrongEtherType)
{
	Frame base = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	// IPv4, slow protocols (0x8809), byte-swapped 0x8808, 0x0000, 0xFFFF.
	for (ll_u16 type : {ll_u16(0x0800), ll_u16(0x8809), ll_u16(0x0888),
			    ll_u16(0x8807), ll_u16(0x0000), ll_u16(0xFFFF)}) {
		Frame f = base;
		f[12] = (ll_u8)(type >> 8);
		f[13] = (ll_u8)type;
		EXPECT_EQ(Parse(f), LL_PARSE_NOT_MAC_CTRL) << std::hex << type;
		// Rejected on the EtherType before any length check past it.
		EXPECT_EQ(Parse(f, 14), LL_PARSE_NOT_MAC_CTRL) << std::hex << type;
	}
}

Frame Tagged(ll_u16 tpid, const Frame &untagged)
{
	// DA SA | TPID TCI | 88 08 opcode ...: the 4-octet tag goes in at 12.
	Frame f(untagged.begin(), untagged.begin() + 12);
	f.push_back((ll_u8)(tpid >> 8));
	f.push_back((ll_u8)tpid);
	f.push_back(0x60);	// PCP 3, VID 5
	f.push_back(0x05);
	f.insert(f.end(), untagged.begin() + 12, untagged.end());
	return f;
}

TEST(CodecReject, VlanTagged)
{
	Frame pfc = Build(MakePfc(0x88, {0, 0, 0, 9, 0, 0, 0, 10}));
	Frame pause = Build(MakePause(9));
	for (ll_u16 tpid : {ll_u16(LL_ETH_P_8021Q), ll_u16(LL_ETH_P_8021AD)}) {
		Frame f = Tagged(tpid, pfc);
		ASSERT_EQ(f.size(), 64u);
		EXPECT_EQ(f[16], 0x88);
		EXPECT_EQ(f[17], 0x08);
		EXPECT_EQ(Parse(f), LL_PARSE_NOT_MAC_CTRL);
		// Also when cut back to the 60-octet minimum.
		EXPECT_EQ(Parse(f, 60), LL_PARSE_NOT_MAC_CTRL);
		EXPECT_EQ(Parse(Tagged(tpid, pause)), LL_PARSE_NOT_MAC_CTRL);
	}
}

TEST(CodecReject, WrongDestination)
{
	Frame base = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	const std::array<ll_u8, 6> das[] = {
		{0x01, 0x80, 0xC2, 0x00, 0x00, 0x02},	// slow protocols
		{0x01, 0x80, 0xC2, 0x00, 0x00, 0x0E},	// LLDP
		{0x01, 0x80, 0xC2, 0x00, 0x00, 0x00},	// bridge group
		{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF},	// broadcast
		{0x02, 0x11, 0x22, 0x33, 0x44, 0x55},	// a unicast
		{0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
	};
	for (const auto &da : das) {
		Frame f = base;
		std::copy(da.begin(), da.end(), f.begin());
		EXPECT_EQ(Parse(f), LL_PARSE_BAD_DA);
	}
	// Every single flipped bit of the DA.
	for (int octet = 0; octet < 6; octet++)
		for (int bit = 0; bit < 8; bit++) {
			Frame f = base;
			f[octet] ^= (ll_u8)(1u << bit);
			EXPECT_EQ(Parse(f), LL_PARSE_BAD_DA)
				<< "octet " << octet << " bit " << bit;
		}
	Frame p = Build(MakePause(1));
	p[5] = 0x02;
	EXPECT_EQ(Parse(p), LL_PARSE_BAD_DA);
}

// IEEE 802.3 Annex 31B: a MAC control frame may also be addressed to the
// receiving port's own unicast address.
const ll_u8 kPortAddr[6] = {0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0x01};

TEST(CodecParse, AcceptsThePortsOwnUnicastAddress)
{
	Frame pfc = Build(MakePfc(0x08, {0, 0, 0, 0xFFFF, 0, 0, 0, 0}));
	std::copy(kPortAddr, kPortAddr + 6, pfc.begin());
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(ParseAt(pfc, kPortAddr, &out), LL_PARSE_OK);
	EXPECT_EQ(out.kind, LL_CTRL_PFC);
	EXPECT_EQ(out.gate_mask, 0x08);
	EXPECT_EQ(out.value[3], 0xFFFF);
	EXPECT_EQ(0, std::memcmp(out.src, kSrc, 6));

	Frame pause = Build(MakePause(0x1234));
	std::copy(kPortAddr, kPortAddr + 6, pause.begin());
	out = Junk();
	ASSERT_EQ(ParseAt(pause, kPortAddr, &out), LL_PARSE_OK);
	EXPECT_EQ(out.kind, LL_CTRL_PAUSE);
	EXPECT_EQ(out.value[0], 0x1234);

	// Unpadded, as software links send it.
	Frame short_pfc(pfc.begin(), pfc.begin() + LL_PFC_FRAME_MIN_BYTES);
	EXPECT_EQ(ParseAt(short_pfc, kPortAddr), LL_PARSE_OK);
	// Without an address of its own, the port refuses it.
	EXPECT_EQ(Parse(pfc), LL_PARSE_BAD_DA);
	EXPECT_EQ(Parse(pause), LL_PARSE_BAD_DA);
}

TEST(CodecParse, ThePortsAddressKeepsTheReservedMulticast)
{
	Frame f = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	EXPECT_EQ(ParseAt(f, kPortAddr), LL_PARSE_OK);
	Frame p = Build(MakePause(1));
	EXPECT_EQ(ParseAt(p, kPortAddr), LL_PARSE_OK);
}

TEST(CodecReject, AnotherUnicastThanThePortsAddress)
{
	Frame base = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	std::copy(kPortAddr, kPortAddr + 6, base.begin());
	// Every single flipped bit of the port's address.
	for (int octet = 0; octet < 6; octet++)
		for (int bit = 0; bit < 8; bit++) {
			Frame f = base;
			f[octet] ^= (ll_u8)(1u << bit);
			EXPECT_EQ(ParseAt(f, kPortAddr), LL_PARSE_BAD_DA)
				<< "octet " << octet << " bit " << bit;
		}
	// Broadcast and other group addresses are not the port's address.
	Frame bcast = base;
	std::fill(bcast.begin(), bcast.begin() + 6, 0xFF);
	EXPECT_EQ(ParseAt(bcast, kPortAddr), LL_PARSE_BAD_DA);
}

TEST(CodecReject, AGroupAddressIsNeverThePortsOwn)
{
	// Only a unicast port address widens the check: given a group address
	// (no real port has one), the frame to it is still refused.
	const ll_u8 group[6] = {0x03, 0xAA, 0xBB, 0xCC, 0xDD, 0x01};
	Frame f = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	std::copy(group, group + 6, f.begin());
	EXPECT_EQ(ParseAt(f, group), LL_PARSE_BAD_DA);
	Frame bcast = f;
	std::fill(bcast.begin(), bcast.begin() + 6, 0xFF);
	const ll_u8 all_ones[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
	EXPECT_EQ(ParseAt(bcast, all_ones), LL_PARSE_BAD_DA);
}

TEST(CodecReject, ThePortsAddressChangesNoOtherRule)
{
	// Short, oversize, reserved octet and opcode rules apply as for the
	// multicast destination.
	Frame f = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	std::copy(kPortAddr, kPortAddr + 6, f.begin());
	Frame truncated(f.begin(), f.begin() + LL_PFC_FRAME_MIN_BYTES - 1);
	EXPECT_EQ(ParseAt(truncated, kPortAddr), LL_PARSE_TRUNCATED);
	Frame oversize = f;
	oversize.resize(LL_MAC_CTRL_FRAME_MAX_BYTES + 1);
	EXPECT_EQ(ParseAt(oversize, kPortAddr), LL_PARSE_OVERSIZE);
	Frame reserved = f;
	reserved[16] = 1;
	EXPECT_EQ(ParseAt(reserved, kPortAddr), LL_PARSE_RESERVED_SET);
	Frame opcode = f;
	opcode[15] = 0x02;
	EXPECT_EQ(ParseAt(opcode, kPortAddr), LL_PARSE_BAD_OPCODE);
}

TEST(CodecReject, UnknownOpcodes)
{
	Frame base = Build(MakePfc(0x01, {1, 0, 0, 0, 0, 0, 0, 0}));
	// 0x0002..0x0006 are EPON MPCP (GATE, REPORT, REGISTER_REQ, REGISTER,
	// REGISTER_ACK); 0x0100 and 0x0102 neighbour PFC; 0x0201 swaps octets.
	for (ll_u16 op : {ll_u16(0x0000), ll_u16(0x0002), ll_u16(0x0003),
			  ll_u16(0x0004), ll_u16(0x0006), ll_u16(0x0100),
			  ll_u16(0x0102), ll_u16(0x0201), ll_u16(0x1001),
			  ll_u16(0x8001), ll_u16(0xFFFF)}) {
		Frame f = base;
		f[14] = (ll_u8)(op >> 8);
		f[15] = (ll_u8)op;
		EXPECT_EQ(Parse(f), LL_PARSE_BAD_OPCODE) << std::hex << op;
		// An unknown opcode is unknown at any length that holds it.
		EXPECT_EQ(Parse(f, 16), LL_PARSE_BAD_OPCODE) << std::hex << op;
	}
}

TEST(CodecReject, ReservedVectorOctetSet)
{
	Frame base = Build(MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8}));
	for (int bit = 0; bit < 8; bit++) {
		Frame f = base;
		f[16] = (ll_u8)(1u << bit);
		EXPECT_EQ(Parse(f), LL_PARSE_RESERVED_SET) << "bit " << bit;
	}
	Frame f = base;
	f[16] = 0xFF;
	EXPECT_EQ(Parse(f), LL_PARSE_RESERVED_SET);
	EXPECT_EQ(Parse(f, 34), LL_PARSE_RESERVED_SET);
}

TEST(CodecReject, PauseHighTimeOctetIsNotReserved)
{
	// Octet 16 of a PAUSE is the high octet of pause_time, not reserved.
	Frame f = Build(MakePause(0xFF00));
	EXPECT_EQ(f[16], 0xFF);
	ll_ctrl_msg out = Junk();
	ASSERT_EQ(Parse(f, &out), LL_PARSE_OK);
	EXPECT_EQ(out.value[0], 0xFF00);
}

TEST(CodecReject, Precedence)
{
	// Pins the order of checks when a frame has several faults: length of
	// the header, EtherType, opcode length, oversize, DA, opcode, then the
	// opcode's own length, then the reserved octet.
	Frame pfc = Build(MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8}));
	pfc.resize(80, 0);

	Frame f = pfc;
	f[12] = 0x08;	// IPv4 and 65 octets: not a MAC control frame at all
	f[13] = 0x00;
	EXPECT_EQ(Parse(f, 65), LL_PARSE_NOT_MAC_CTRL);
	EXPECT_EQ(Parse(f, 13), LL_PARSE_TRUNCATED);

	f = pfc;
	f[0] = 0xFF;	// bad DA and oversize
	EXPECT_EQ(Parse(f, 65), LL_PARSE_OVERSIZE);
	EXPECT_EQ(Parse(f, 15), LL_PARSE_TRUNCATED);
	f[14] = 0xFF;	// bad DA and bad opcode
	EXPECT_EQ(Parse(f, 60), LL_PARSE_BAD_DA);

	f = pfc;
	f[16] = 0x01;	// reserved set but truncated
	EXPECT_EQ(Parse(f, 33), LL_PARSE_TRUNCATED);
	EXPECT_EQ(Parse(f, 34), LL_PARSE_RESERVED_SET);
}

TEST(CodecParse, RejectionsNeverReportOk)
{
	// Every single-octet corruption of the 34 significant octets of a PFC
	// frame either still parses as PFC with the right fields or is
	// rejected with a code other than OK; the only octets whose change is
	// acceptable are SA (6..11), e-vector (17) and times (18..33).
	Frame base = Build(MakePfc(0xFF, {1, 2, 3, 4, 5, 6, 7, 8}));
	for (int i = 0; i < 34; i++) {
		Frame f = base;
		f[i] ^= 0x40;
		ll_parse_result r = Parse(f);
		bool payload = (i >= 6 && i <= 11) || i >= 17;
		if (payload)
			EXPECT_EQ(r, LL_PARSE_OK) << "octet " << i;
		else
			EXPECT_NE(r, LL_PARSE_OK) << "octet " << i;
	}
}

// -------------------------------------------------------------------- names

TEST(Codec, ParseResultNames)
{
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_OK), "ok");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_TRUNCATED), "truncated");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_OVERSIZE), "oversize");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_NOT_MAC_CTRL),
		     "not-mac-control");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_BAD_DA), "bad-destination");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_BAD_OPCODE),
		     "unknown-opcode");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_RESERVED_SET),
		     "reserved-bits-set");
	EXPECT_STREQ(ll_parse_result_name(LL_PARSE_RESULT_COUNT),
		     "invalid-result");
	EXPECT_STREQ(ll_parse_result_name((ll_parse_result)99),
		     "invalid-result");
	EXPECT_STREQ(ll_parse_result_name((ll_parse_result)-1),
		     "invalid-result");
	EXPECT_EQ(LL_PARSE_RESULT_COUNT, 7);
}

TEST(Codec, ParseResultNamesDistinct)
{
	std::set<std::string> names;
	for (int r = 0; r < LL_PARSE_RESULT_COUNT; r++)
		names.insert(ll_parse_result_name((ll_parse_result)r));
	EXPECT_EQ(names.size(), (size_t)LL_PARSE_RESULT_COUNT);
	EXPECT_EQ(names.count("invalid-result"), 0u);
}

} // namespace
