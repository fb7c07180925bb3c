// Writes MAC control frames built by ll_ctrl_build to a pcap file, and
// the fields each frame is meant to carry to a JSON file, so that
// independent decoders (tshark, scapy) can be checked against the intent.
//
//   ll_frames_gen OUT.pcap OUT.json
//
// Besides the valid frames, a few negative controls are written: frames
// built by ll_ctrl_build and then corrupted (bad DA, reserved vector
// octet set). A decoder check must flag them, which shows that the check
// can fail at all.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "ctrl.h"
}

namespace {

struct Case {
	std::string name;
	ll_ctrl_msg m;			// what is handed to the builder
	bool valid = true;		// false: negative control
	std::string corruption;		// how a negative control was made
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

void PutLe16(FILE *f, ll_u16 v)
{
	std::fputc(v & 0xFF, f);
	std::fputc(v >> 8, f);
}

void PutLe32(FILE *f, ll_u32 v)
{
	for (int i = 0; i < 4; i++)
		std::fputc((v >> (8 * i)) & 0xFF, f);
}

std::string Mac(const ll_u8 *a)
{
	char s[18];
	std::snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1],
		      a[2], a[3], a[4], a[5]);
	return s;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: %s OUT.pcap OUT.json\n", argv[0]);
		return 2;
	}
	std::vector<Case> cases = Cases();

	FILE *pcap = std::fopen(argv[1], "wb");
	if (!pcap) {
		std::perror(argv[1]);
		return 1;
	}
	// Classic pcap, little endian, microseconds, LINKTYPE_ETHERNET.
	PutLe32(pcap, 0xA1B2C3D4);
	PutLe16(pcap, 2);
	PutLe16(pcap, 4);
	PutLe32(pcap, 0);
	PutLe32(pcap, 0);
	PutLe32(pcap, 65535);
	PutLe32(pcap, 1);
	for (size_t n = 0; n < cases.size(); n++) {
		const Case &k = cases[n];
		PutLe32(pcap, 1700000000u + (ll_u32)n);
		PutLe32(pcap, 0);
		PutLe32(pcap, (ll_u32)k.bytes.size());
		PutLe32(pcap, (ll_u32)k.bytes.size());
		std::fwrite(k.bytes.data(), 1, k.bytes.size(), pcap);
	}
	if (std::fclose(pcap)) {
		std::perror(argv[1]);
		return 1;
	}

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
		bool pfc = m.kind == LL_CTRL_PFC;
		std::fprintf(js, "  {\"index\": %zu, \"name\": \"%s\", \"valid\": %s, ",
			     n, k.name.c_str(), k.valid ? "true" : "false");
		if (!k.valid)
			std::fprintf(js, "\"corruption\": \"%s\", ",
				     k.corruption.c_str());
		std::fprintf(js, "\"length\": %zu, ", k.bytes.size());
		std::fprintf(js, "\"dst\": \"%s\", ", Mac(k.bytes.data()).c_str());
		std::fprintf(js, "\"src\": \"%s\", ", Mac(m.src).c_str());
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
