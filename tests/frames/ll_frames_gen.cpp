// Writes MAC control frames built by ll_ctrl_build to a pcap file, and
// the fields each frame is meant to carry to a JSON file, so that
// independent decoders (tshark, scapy) can be checked against the intent.
//
//   ll_frames_gen OUT.pcap OUT.json            PFC and PAUSE (0x8808)
//   ll_frames_gen --tokens OUT.pcap OUT.json   TOKENS (0x88B6/0x0001)
//   ll_frames_gen --portfc OUT.pcap OUT.json   PORTFC_A/B/R (0x88B6/2..4)
//
// Besides the valid frames, a few negative controls are written: frames
// built by ll_ctrl_build and then corrupted (bad DA, reserved vector
// octet set; for TOKENS: reserved octet set, truncated to 37 octets,
// unknown opcode, bad DA). A decoder check must flag them, which shows
// that the check can fail at all. A TOKENS negative control records the
// rejection ll_ctrl_parse owes it ("reject"), from ctrl.h's rules.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pcap_writer.h"

extern "C" {
#include "ctrl.h"
}

namespace {

struct Case {
	std::string name;
	ll_ctrl_msg m;			// what is handed to the builder
	bool valid = true;		// false: negative control
	std::string corruption;		// how a negative control was made
	std::string reject;		// TOKENS: the parse result it deserves
	std::vector<ll_u8> bytes;
};

ll_ctrl_msg Pfc(int idx, ll_u8 vector, const std::vector<ll_u16> &times)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	const ll_u8 src[6] = {0x02, 0x00, 0x5E, 0x10, 0x00, (ll_u8)idx};
	std::memcpy(m.src, src, 6);
	m.kind = LL_CTRL_PFC;
	m.gate_mask = vector;
	for (size_t i = 0; i < times.size() && i < 8; i++)
		m.value[i] = times[i];
	return m;
}

ll_ctrl_msg Pause(int idx, ll_u16 time)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	const ll_u8 src[6] = {0x02, 0x00, 0x5E, 0x20, 0x00, (ll_u8)idx};
	std::memcpy(m.src, src, 6);
	m.kind = LL_CTRL_PAUSE;
	m.value[0] = time;
	return m;
}

std::vector<Case> Cases()
{
	std::vector<Case> c;
	auto add = [&](std::string name, ll_ctrl_msg m) {
		Case k;
		k.name = std::move(name);
		k.m = m;
		c.push_back(k);
	};
	int i = 0;
	// Classes 3 and 7; the other classes hold junk that must not reach
	// the wire.
	add("pfc_c3_c7", Pfc(i++, 0x88, {0x1111, 0x2222, 0x3333, 0x1234,
					 0x4444, 0x5555, 0x6666, 0xFFFF}));
	add("pfc_all_max", Pfc(i++, 0xFF, {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
					   0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF}));
	add("pfc_all_distinct", Pfc(i++, 0xFF, {1, 2, 0x0100, 0x7FFF, 0x8000,
						0xFFFE, 0, 0xABCD}));
	add("pfc_xon_c0", Pfc(i++, 0x01, {0, 9, 9, 9, 9, 9, 9, 9}));
	add("pfc_xon_all", Pfc(i++, 0xFF, {0, 0, 0, 0, 0, 0, 0, 0}));
	add("pfc_c7_one", Pfc(i++, 0x80, {0, 0, 0, 0, 0, 0, 0, 1}));
	add("pfc_0x55", Pfc(i++, 0x55, {10, 11, 12, 13, 14, 15, 16, 17}));
	add("pfc_0xaa", Pfc(i++, 0xAA, {10, 11, 12, 13, 14, 15, 16, 17}));
	add("pfc_none", Pfc(i++, 0x00, {5, 5, 5, 5, 5, 5, 5, 5}));
	for (int p = 0; p < 8; p++) {
		std::vector<ll_u16> t(8, 0x0F0F);
		t[p] = (ll_u16)(1000 * (p + 1));
		add("pfc_only_c" + std::to_string(p),
		    Pfc(i++, (ll_u8)(1u << p), t));
	}
	add("pause_max", Pause(i++, 0xFFFF));
	add("pause_xon", Pause(i++, 0));
	add("pause_0x1234", Pause(i++, 0x1234));
	add("pause_one", Pause(i++, 1));

	for (Case &k : c) {
		k.bytes.assign(LL_MAC_CTRL_FRAME_BYTES, 0);
		if (ll_ctrl_build(k.bytes.data(), k.bytes.size(), &k.m) !=
		    LL_MAC_CTRL_FRAME_BYTES) {
			std::fprintf(stderr, "build failed for %s\n", k.name.c_str());
			std::exit(1);
		}
	}

	// Negative controls.
	Case bad_da = c[0];
	bad_da.name = "neg_bad_da";
	bad_da.valid = false;
	bad_da.corruption = "dst 01:80:c2:00:00:02";
	bad_da.bytes[5] = 0x02;
	c.push_back(bad_da);
	Case reserved = c[1];
	reserved.name = "neg_reserved_set";
	reserved.valid = false;
	reserved.corruption = "reserved vector octet 0x01";
	reserved.bytes[16] = 0x01;
	c.push_back(reserved);
	return c;
}

ll_ctrl_msg Tokens(int idx, ll_u8 mask, const std::vector<ll_u16> &credits,
		   ll_u16 link, ll_u16 lifetime)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	const ll_u8 src[6] = {0x02, 0x00, 0x5E, 0x30, 0x00, (ll_u8)idx};
	std::memcpy(m.src, src, 6);
	m.kind = LL_CTRL_TOKENS;
	m.gate_mask = mask;	// bit 8 (the link's) is the builder's
	for (size_t i = 0; i < credits.size() && i < 8; i++)
		m.value[i] = credits[i];
	m.value[8] = link;
	m.lifetime = lifetime;
	return m;
}

// The receiving port's unicast address of the unicast-DA case (the
// frames' reader passes it to ll_ctrl_parse: ll_frames_parse --port-addr).
const ll_u8 kTokensPortAddr[6] = {0x02, 0x00, 0x5E, 0x40, 0x00, 0x02};

std::vector<Case> TokensCases()
{
	std::vector<Case> c;
	auto add = [&](std::string name, ll_ctrl_msg m) {
		Case k;
		k.name = std::move(name);
		k.m = m;
		c.push_back(k);
	};
	int i = 0;
	// Credits of priorities outside the mask hold junk that must not
	// reach the wire.
	add("tokens_all_distinct", Tokens(i++, 0xFF, {0, 1, 0x0100, 0x7FFF,
				0x8000, 0xFFFE, 0xFFFF, 0xABCD}, 0x1234, 0x0200));
	add("tokens_all_max", Tokens(i++, 0xFF, std::vector<ll_u16>(8, 0xFFFF),
				     0xFFFF, 0xFFFF));
	add("tokens_all_zero", Tokens(i++, 0xFF, std::vector<ll_u16>(8, 0),
				      0, 1));
	add("tokens_p0_p7", Tokens(i++, 0x81, {100, 0x1111, 0x2222, 0x3333,
				0x4444, 0x5555, 0x6666, 0xFFFF}, 500, 20));
	add("tokens_0x55", Tokens(i++, 0x55, {10, 11, 12, 13, 14, 15, 16, 17},
				  7813, 0x0400));
	add("tokens_0xaa", Tokens(i++, 0xAA, {10, 11, 12, 13, 14, 15, 16, 17},
				  1, 0x0400));
	add("tokens_link_only", Tokens(i++, 0x00, std::vector<ll_u16>(8, 0x0F0F),
				       0xFFFF, 100));
	add("tokens_metering_ends", Tokens(i++, 0x00, {}, 0, 0));
	add("tokens_lifetime_0_credits", Tokens(i++, 0x0F, {1, 2, 3, 4, 5, 6,
				7, 8}, 64, 0));
	for (int p = 0; p < 8; p++) {
		std::vector<ll_u16> v(8, 0x0F0F);
		v[p] = (ll_u16)(1000 * (p + 1));
		add("tokens_only_p" + std::to_string(p),
		    Tokens(i++, (ll_u8)(1u << p), v, (ll_u16)(2000 + p),
			   (ll_u16)(p + 1)));
	}
	add("tokens_unicast_da", Tokens(i++, 0x08, {0, 0, 0, 0x0300}, 0x0400,
					0x0010));

	for (Case &k : c) {
		k.bytes.assign(LL_MAC_CTRL_FRAME_BYTES, 0);
		if (ll_ctrl_build(k.bytes.data(), k.bytes.size(), &k.m) !=
		    LL_MAC_CTRL_FRAME_BYTES) {
			std::fprintf(stderr, "build failed for %s\n", k.name.c_str());
			std::exit(1);
		}
	}
	// The builder writes the group address: the unicast case is to the
	// receiving port's own address (802.3 Annex 31B).
	std::memcpy(c.back().bytes.data(), kTokensPortAddr, 6);

	// Negative controls, each from a valid frame.
	auto neg = [&](size_t from, const char *name, const char *how,
		       const char *reject) -> Case & {
		Case k = c[from];
		k.name = name;
		k.valid = false;
		k.corruption = how;
		k.reject = reject;
		c.push_back(k);
		return c.back();
	};
	neg(0, "neg_reserved_set", "reserved octet 0x01",
	    "reserved-bits-set").bytes[16] = 0x01;
	neg(3, "neg_truncated_37", "cut to 37 octets (lifetime incomplete)",
	    "truncated").bytes.resize(LL_CTRL_TOKENS_MIN_BYTES - 1);
	neg(4, "neg_unknown_opcode", "opcode 0x00ff",
	    "unknown-opcode").bytes[15] = 0xFF;
	neg(5, "neg_bad_da", "dst 01:80:c2:00:00:02",
	    "bad-destination").bytes[5] = 0x02;
	return c;
}

std::string Mac(const ll_u8 *a);

ll_ctrl_msg Portfc(int idx, ll_u8 kind, ll_u8 mask, const std::vector<ll_u16> &times)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	const ll_u8 src[6] = {0x02, 0x00, 0x5E, 0x50, 0x00, (ll_u8)idx};
	std::memcpy(m.src, src, 6);
	m.kind = kind;
	m.gate_mask = mask;
	for (size_t i = 0; i < times.size() && i < LL_CTRL_PORTFC_SLOTS; i++)
		m.value[i] = times[i];
	return m;
}

// PortFC's three kinds, each with its slots in several masks; times of
// slots outside the mask hold junk that must not reach the wire.
std::vector<Case> PortfcCases()
{
	std::vector<Case> c;
	int i = 0;
	const std::vector<ll_u16> junk = {0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6666, 0x7777};
	for (ll_u8 kind : {(ll_u8)LL_CTRL_PORTFC_A, (ll_u8)LL_CTRL_PORTFC_B,
			   (ll_u8)LL_CTRL_PORTFC_R}) {
		const std::string k = ll_ctrl_kind(kind)->name;
		auto add = [&](const std::string &name, ll_ctrl_msg m) {
			Case x;
			x.name = k + "_" + name;
			x.m = m;
			c.push_back(x);
		};
		add("pause_all", Portfc(i++, kind, 0x7F, std::vector<ll_u16>(7, 0xFFFF)));
		add("resume_all", Portfc(i++, kind, 0x7F, std::vector<ll_u16>(7, 0)));
		add("s0", Portfc(i++, kind, 0x01, junk));
		add("s6", Portfc(i++, kind, 0x40, junk));
		add("mixed", Portfc(i++, kind, 0x55, {1, 9, 0, 9, 0x8000, 9, 0xFFFE}));
		add("none", Portfc(i++, kind, 0x00, junk));
	}
	for (Case &k : c) {
		k.bytes.assign(LL_MAC_CTRL_FRAME_BYTES, 0);
		if (ll_ctrl_build(k.bytes.data(), k.bytes.size(), &k.m) !=
		    LL_MAC_CTRL_FRAME_BYTES) {
			std::fprintf(stderr, "build failed for %s\n", k.name.c_str());
			std::exit(1);
		}
	}
	// One to the receiving port's own address (802.3 Annex 31B).
	Case uni = c[2];
	uni.name = "portfcA_unicast_da";
	std::memcpy(uni.bytes.data(), kTokensPortAddr, 6);
	c.push_back(uni);
	auto neg = [&](size_t from, const char *name, const char *how,
		       const char *reject) -> Case & {
		Case k = c[from];
		k.name = name;
		k.valid = false;
		k.corruption = how;
		k.reject = reject;
		c.push_back(k);
		return c.back();
	};
	neg(0, "neg_reserved_set", "reserved octet 0x01",
	    "reserved-bits-set").bytes[16] = 0x01;
	neg(6, "neg_truncated_31", "cut to 31 octets (time 6 incomplete)",
	    "truncated").bytes.resize(LL_CTRL_PORTFC_MIN_BYTES - 1);
	neg(12, "neg_bad_da", "dst 01:80:c2:00:00:02",
	    "bad-destination").bytes[5] = 0x02;
	return c;
}

void PortfcIntent(FILE *js, const ll_ctrl_msg &m)
{
	std::fprintf(js, "\"ethertype\": %d, \"kind\": \"%s\", \"opcode\": %d, ",
		     LL_ETH_P_LOSSLESS_CTRL, ll_ctrl_kind(m.kind)->name,
		     ll_ctrl_kind(m.kind)->opcode);
	std::fprintf(js, "\"port_addr\": \"%s\", ", Mac(kTokensPortAddr).c_str());
	std::fprintf(js, "\"mask\": %d, \"times\": [", m.gate_mask & 0xFF);
	for (int i = 0; i < LL_CTRL_PORTFC_SLOTS; i++)
		std::fprintf(js, "%s%d", i ? ", " : "",
			     (m.gate_mask >> i) & 1 ? m.value[i] : 0);
	std::fprintf(js, "]");
}

std::string Mac(const ll_u8 *a)
{
	char s[18];
	std::snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1],
		      a[2], a[3], a[4], a[5]);
	return s;
}

// The intent of a TOKENS frame: what was handed to the builder, the
// credits outside the mask as the wire has them (0). Corruptions are in
// "corruption", not here.
void TokensIntent(FILE *js, const ll_ctrl_msg &m)
{
	std::fprintf(js, "\"ethertype\": %d, ",
		     LL_ETH_P_LOSSLESS_CTRL);
	std::fprintf(js, "\"kind\": \"tokens\", \"opcode\": %d, ",
		     LL_CTRL_OP_TOKENS);
	std::fprintf(js, "\"port_addr\": \"%s\", ",
		     Mac(kTokensPortAddr).c_str());
	std::fprintf(js, "\"mask\": %d, \"credits\": [",
		     m.gate_mask & 0xFF);
	for (int i = 0; i < 8; i++)
		std::fprintf(js, "%s%d", i ? ", " : "",
			     (m.gate_mask >> i) & 1 ? m.value[i] : 0);
	std::fprintf(js, "], \"struct_credits\": [");
	for (int i = 0; i < 8; i++)
		std::fprintf(js, "%s%d", i ? ", " : "", m.value[i]);
	std::fprintf(js, "], \"link_credit\": %d, \"lifetime\": %d",
		     m.value[8], m.lifetime);
}

// The intent of a PFC or PAUSE frame.
void MacCtrlIntent(FILE *js, const ll_ctrl_msg &m)
{
	bool pfc = m.kind == LL_CTRL_PFC;

	std::fprintf(js, "\"ethertype\": %d, ", LL_ETH_P_MAC_CONTROL);
	std::fprintf(js, "\"kind\": \"%s\", \"opcode\": %d, ",
		     pfc ? "pfc" : "pause",
		     pfc ? LL_MAC_CTRL_OP_PFC : LL_MAC_CTRL_OP_PAUSE);
	if (pfc) {
		std::fprintf(js, "\"enable_vector\": %d, \"times\": [",
			     m.gate_mask);
		for (int i = 0; i < 8; i++)
			std::fprintf(js, "%s%d", i ? ", " : "",
				     (m.gate_mask >> i) & 1 ? m.value[i] : 0);
		std::fprintf(js, "], \"struct_times\": [");
		for (int i = 0; i < 8; i++)
			std::fprintf(js, "%s%d", i ? ", " : "", m.value[i]);
		std::fprintf(js, "]");
	} else {
		std::fprintf(js, "\"pause_time\": %d", m.value[0]);
	}
}

} // namespace

int main(int argc, char **argv)
{
	bool tokens = argc == 4 && !std::strcmp(argv[1], "--tokens");
	bool portfc = argc == 4 && !std::strcmp(argv[1], "--portfc");
	if (argc != 3 && !tokens && !portfc) {
		std::fprintf(stderr, "usage: %s [--tokens | --portfc] OUT.pcap OUT.json\n",
			     argv[0]);
		return 2;
	}
	if (tokens || portfc)
		argv++;
	std::vector<Case> cases = tokens ? TokensCases() : portfc ? PortfcCases() : Cases();

	std::vector<const std::vector<ll_u8> *> frames;
	for (const Case &k : cases)
		frames.push_back(&k.bytes);
	if (!ll_frames::write_pcap(argv[1], frames))
		return 1;

	// The intent: what each frame must decode to. Times of disabled
	// classes are expected as 0 on the wire, whatever the struct held.
	FILE *js = std::fopen(argv[2], "w");
	if (!js) {
		std::perror(argv[2]);
		return 1;
	}
	std::fprintf(js, "{\"frames\": [\n");
	for (size_t n = 0; n < cases.size(); n++) {
		const Case &k = cases[n];
		const ll_ctrl_msg &m = k.m;
		std::fprintf(js, "  {\"index\": %zu, \"name\": \"%s\", \"valid\": %s, ",
			     n, k.name.c_str(), k.valid ? "true" : "false");
		if (!k.valid)
			std::fprintf(js, "\"corruption\": \"%s\", ",
				     k.corruption.c_str());
		if (!k.reject.empty())
			std::fprintf(js, "\"reject\": \"%s\", ",
				     k.reject.c_str());
		std::fprintf(js, "\"length\": %zu, ", k.bytes.size());
		std::fprintf(js, "\"dst\": \"%s\", ", Mac(k.bytes.data()).c_str());
		std::fprintf(js, "\"src\": \"%s\", ", Mac(m.src).c_str());
		if (m.kind == LL_CTRL_TOKENS)
			TokensIntent(js, m);
		else if (m.kind == LL_CTRL_PORTFC_A || m.kind == LL_CTRL_PORTFC_B ||
			 m.kind == LL_CTRL_PORTFC_R)
			PortfcIntent(js, m);
		else
			MacCtrlIntent(js, m);
		std::fprintf(js, ", \"hex\": \"");
		for (ll_u8 b : k.bytes)
			std::fprintf(js, "%02x", b);
		std::fprintf(js, "\"}%s\n", n + 1 < cases.size() ? "," : "");
	}
	std::fprintf(js, "]}\n");
	if (std::fclose(js)) {
		std::perror(argv[2]);
		return 1;
	}
	return 0;
}
