// Writes CNPs (PCN's and DCQCN's, kernel/core/cnp.h) built by the core's
// ll_cnp_frame_build to a pcap file, and what each is meant to carry to a
// JSON file, so that tshark (RoCE) and the tree's Lua dissector can be
// checked against the intent (check_cnp_tshark.py).
//
//   ll_cnp_gen OUT.pcap OUT.json
//
// Besides the valid CNPs, negative controls: built ones whose payload is
// then corrupted (version 2, a reserved flag bit, octets 25..27 not zero,
// RecRate 0 with rate_valid), and one whose IP ECN was bleached to 00
// while the payload says congested. Each records the parse result it
// deserves by cnp.h's rules ("reject", written here by hand) and the one
// the core's ll_cnp_parse gives ("parsed").
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "pcap_writer.h"

extern "C" {
#include "cnp.h"
}

namespace {

struct Case {
	std::string name;
	ll_cnp c;
	ll_cnp_ipv4_addr a;
	bool valid = true;
	std::string corruption;
	std::string reject = "ok";
	std::vector<ll_u8> bytes;
};

ll_cnp Cnp(ll_u32 rate, bool congested, ll_u16 seq, ll_u16 sport,
	   ll_u16 dport, ll_u8 proto, ll_u32 qp)
{
	ll_cnp c;
	std::memset(&c, 0, sizeof(c));
	c.version = LL_CNP_VERSION;
	c.rec_rate_mbps = rate;
	c.rate_valid = rate != 0;
	c.congested = congested;
	c.seq = seq;
	c.sport = sport;
	c.dport = dport;
	c.proto = proto;
	c.dest_qp = qp;
	return c;
}

ll_cnp_ipv4_addr Addr(int idx, ll_u8 dscp)
{
	ll_cnp_ipv4_addr a;
	std::memset(&a, 0, sizeof(a));
	const ll_u8 dmac[6] = {0x02, 0x00, 0x5E, 0x30, 0x00, 0x01};
	const ll_u8 smac[6] = {0x02, 0x00, 0x5E, 0x30, 0x01, (ll_u8)idx};
	std::memcpy(a.dst_mac, dmac, 6);
	std::memcpy(a.src_mac, smac, 6);
	const ll_u8 sip[4] = {10, 0, 1, (ll_u8)(idx + 1)};
	const ll_u8 dip[4] = {10, 0, 0, 1};
	std::memcpy(a.src_ip, sip, 4);
	std::memcpy(a.dst_ip, dip, 4);
	a.udp_sport = (ll_u16)(0xC000 + 17 * idx);
	a.dscp = dscp;
	return a;
}

void Ipv4Checksum(std::vector<ll_u8> &f)
{
	ll_u32 sum = 0;

	f[24] = f[25] = 0;
	for (int i = 14; i < 34; i += 2)
		sum += (f[i] << 8) | f[i + 1];
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	f[24] = (ll_u8)(~sum >> 8);
	f[25] = (ll_u8)~sum;
}

std::vector<Case> Cases()
{
	std::vector<Case> v;
	int i = 0;
	auto add = [&](std::string name, ll_cnp c, ll_u8 dscp) -> Case & {
		Case k;
		k.name = std::move(name);
		k.c = c;
		k.a = Addr(i++, dscp);
		k.bytes.resize(LL_CNP_IPV4_FRAME_BYTES);
		if (ll_cnp_frame_build(k.bytes.data(), (ll_u32)k.bytes.size(),
				       &k.a, &k.c) != LL_CNP_IPV4_FRAME_BYTES) {
			std::fprintf(stderr, "ll_cnp_gen: %s not built\n",
				     k.name.c_str());
			std::exit(1);
		}
		v.push_back(k);
		return v.back();
	};
	add("pcn_congested", Cnp(100000, true, 1, 49152, 4791, 17, 0x000102), 48);
	add("pcn_increase", Cnp(40000, false, 2, 49153, 4791, 17, 0x000103), 48);
	add("pcn_rate_1", Cnp(1, true, 0, 1, 2, 6, 0), 46);
	add("pcn_rate_max", Cnp(0xFFFFFFFFu, false, 0xFFFF, 0xFFFF, 0xFFFF, 255,
				0xFFFFFF), 63);
	add("pcn_seq_wrapped", Cnp(25000, false, 0, 50000, 5001, 17, 0x123456), 26);
	add("pcn_tcp_flow", Cnp(9999, true, 0x8000, 40000, 80, 6, 0xABCDEF), 0);
	add("dcqcn", Cnp(0, true, 7, 49160, 4791, 17, 0x000110), 48);
	ll_cnp plain = Cnp(0, false, 0, 0, 0, 0, 0x000111);
	plain.version = LL_CNP_VERSION_PLAIN;
	add("plain_roce", plain, 48);

	auto neg = [&](std::string name, ll_cnp c, std::string corruption,
		       std::string reject, int off, ll_u8 value) {
		Case &k = add(std::move(name), c, 48);
		k.valid = false;
		k.corruption = std::move(corruption);
		k.reject = std::move(reject);
		k.bytes[42 + off] = value;
	};
	ll_cnp base = Cnp(30000, true, 9, 49170, 4791, 17, 0x000120);
	neg("neg_version_2", base, "version 2", "bad-version", 17, 2);
	neg("neg_flags_reserved", base, "flags 0x07", "reserved-bits-set", 16,
	    0x07);
	neg("neg_zeros_set", base, "octet 26 = 1", "reserved-bits-set", 26, 1);
	ll_cnp zero_rate = Cnp(0, true, 9, 49170, 4791, 17, 0x000120);
	neg("neg_rate_0_valid", zero_rate, "flags 0x03 with RecRate 0",
	    "bad-rate", 16, 0x03);
	// The payload is fine; the IP header's ECN was bleached to 00.
	Case &b = add("neg_ecn_bleached", base, 48);
	b.valid = false;
	b.corruption = "IP ECN 00 while congested";
	b.bytes[15] &= 0xFC;
	Ipv4Checksum(b.bytes);
	return v;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: %s OUT.pcap OUT.json\n", argv[0]);
		return 2;
	}
	std::vector<Case> cases = Cases();

	std::vector<const std::vector<ll_u8> *> frames;
	for (const Case &k : cases)
		frames.push_back(&k.bytes);
	if (!ll_frames::write_pcap(argv[1], frames))
		return 1;

	FILE *js = std::fopen(argv[2], "w");
	if (!js) {
		std::perror(argv[2]);
		return 1;
	}
	std::fprintf(js, "{\"frames\": [\n");
	for (size_t n = 0; n < cases.size(); n++) {
		const Case &k = cases[n];
		const ll_cnp &c = k.c;
		ll_cnp got;
		ll_cnp_result r = ll_cnp_parse(k.bytes.data() + 42,
					       (ll_u32)k.bytes.size() - 42,
					       &got);
		std::fprintf(js, "  {\"index\": %zu, \"name\": \"%s\", \"valid\": %s, ",
			     n, k.name.c_str(), k.valid ? "true" : "false");
		if (!k.valid)
			std::fprintf(js, "\"corruption\": \"%s\", ",
				     k.corruption.c_str());
		std::fprintf(js, "\"reject\": \"%s\", \"parsed\": \"%s\", ",
			     k.reject.c_str(), ll_cnp_result_name(r));
		std::fprintf(js, "\"length\": %zu, \"dscp\": %u, \"ecn\": %u, ",
			     k.bytes.size(), k.a.dscp, k.bytes[15] & 3);
		std::fprintf(js, "\"src_ip\": \"%u.%u.%u.%u\", \"dst_ip\": \"%u.%u.%u.%u\", ",
			     k.a.src_ip[0], k.a.src_ip[1], k.a.src_ip[2],
			     k.a.src_ip[3], k.a.dst_ip[0], k.a.dst_ip[1],
			     k.a.dst_ip[2], k.a.dst_ip[3]);
		std::fprintf(js, "\"udp_sport\": %u, ", k.a.udp_sport);
		std::fprintf(js, "\"version\": %u, \"rec_rate_mbps\": %u, ",
			     c.version, c.rec_rate_mbps);
		std::fprintf(js, "\"congested\": %u, \"rate_valid\": %u, ",
			     c.congested, c.rate_valid);
		std::fprintf(js, "\"seq\": %u, \"sport\": %u, \"dport\": %u, ",
			     c.seq, c.sport, c.dport);
		std::fprintf(js, "\"proto\": %u, \"dest_qp\": %u, \"hex\": \"",
			     c.proto, c.dest_qp);
		for (ll_u8 x : k.bytes)
			std::fprintf(js, "%02x", x);
		std::fprintf(js, "\"}%s\n", n + 1 < cases.size() ? "," : "");
	}
	std::fprintf(js, "]}\n");
	if (std::fclose(js)) {
		std::perror(argv[2]);
		return 1;
	}
	return 0;
}
