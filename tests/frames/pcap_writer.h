// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
//
// The frame generators' pcap files (ll_frames_gen, ll_cnp_gen): classic
// pcap, little endian, microseconds, LINKTYPE_ETHERNET, frame n stamped
// 1700000000 + n seconds, so that tshark's frame numbers are the cases'.
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

namespace ll_frames {

inline void put_le16(FILE *f, std::uint16_t v)
{
	std::fputc(v & 0xFF, f);
	std::fputc(v >> 8, f);
}

inline void put_le32(FILE *f, std::uint32_t v)
{
	for (int i = 0; i < 4; i++)
		std::fputc((v >> (8 * i)) & 0xFF, f);
}

// Writes frames to path; false (with perror) if it cannot.
inline bool write_pcap(const char *path, const std::vector<const std::vector<std::uint8_t> *> &frames)
{
	FILE *pcap = std::fopen(path, "wb");
	if (!pcap) {
		std::perror(path);
		return false;
	}
	put_le32(pcap, 0xA1B2C3D4);
	put_le16(pcap, 2);
	put_le16(pcap, 4);
	put_le32(pcap, 0);
	put_le32(pcap, 0);
	put_le32(pcap, 65535);
	put_le32(pcap, 1);
	for (std::size_t n = 0; n < frames.size(); n++) {
		const std::vector<std::uint8_t> &b = *frames[n];
		put_le32(pcap, 1700000000u + (std::uint32_t)n);
		put_le32(pcap, 0);
		put_le32(pcap, (std::uint32_t)b.size());
		put_le32(pcap, (std::uint32_t)b.size());
		std::fwrite(b.data(), 1, b.size(), pcap);
	}
	if (std::fclose(pcap)) {
		std::perror(path);
		return false;
	}
	return true;
}

}  // namespace ll_frames
