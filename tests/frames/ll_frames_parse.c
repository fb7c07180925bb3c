// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Runs frames through ll_ctrl_parse and prints what it decoded, one
 * JSON object per line:
 *
 *   ll_frames_parse [--port-addr MAC] FILE.pcap   frames of a classic pcap
 *   ll_frames_parse [--port-addr MAC] --hex       one frame per stdin line,
 *                               in hex (spaces, ':' and '-' ignored)
 *
 * --port-addr: the receiving port's address (aa:bb:cc:dd:ee:ff), which
 * ll_ctrl_parse accepts as a destination besides 01-80-C2-00-00-01.
 *
 * {"index": 0, "length": 60, "result": "ok", "kind": "pfc",
 *  "src": "02:..", "enable_vector": 136, "quanta": [0, ..]}
 * A credit kind (TOKENS) has, instead of enable_vector and quanta,
 * {.., "gate_mask": 264, "credits": [0, .. 8 of them], "link_credit": 5,
 *  "lifetime": 20} (gate_mask: the priority mask | bit 8, the link's).
 * For a rejected frame only index, length and result are printed.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctrl.h"

#define MAX_FRAME 65536

static const ll_u8 *port_addr;	/* --port-addr, or NULL */

static void print_frame(unsigned long index, const ll_u8 *frame, ll_u32 len)
{
	struct ll_ctrl_msg m;
	enum ll_parse_result r = ll_ctrl_parse(frame, len, port_addr, &m);
	const struct ll_ctrl_kind_desc *d;
	int i;

	printf("{\"index\": %lu, \"length\": %u, \"result\": \"%s\"", index,
	       (unsigned)len, ll_parse_result_name(r));
	if (r == LL_PARSE_OK) {
		d = ll_ctrl_kind(m.kind);
		printf(", \"kind\": \"%s\"", d ? d->name : "?");
		printf(", \"src\": \"%02x:%02x:%02x:%02x:%02x:%02x\"", m.src[0],
		       m.src[1], m.src[2], m.src[3], m.src[4], m.src[5]);
		if (d && d->credit) {
			/* Credits per priority, the link's (the gate after
			 * the priorities'), their lifetime in quanta.
			 */
			printf(", \"gate_mask\": %u, \"credits\": [",
			       m.gate_mask);
			for (i = 0; i < LL_PFC_PRIOS; i++)
				printf("%s%u", i ? ", " : "", m.value[i]);
			printf("], \"link_credit\": %u, \"lifetime\": %u}\n",
			       m.value[LL_PFC_PRIOS], m.lifetime);
			return;
		}
		/* The wire's fields: only PFC has a class-enable vector (a
		 * PAUSE message speaks of its one gate, bit 0 of gate_mask).
		 */
		printf(", \"gate_mask\": %u", m.gate_mask);
		printf(", \"enable_vector\": %u, \"quanta\": [",
		       m.kind == LL_CTRL_PFC ? m.gate_mask : 0);
		for (i = 0; i < LL_PFC_PRIOS; i++)
			printf("%s%u", i ? ", " : "", m.value[i]);
		printf("]");
	}
	printf("}\n");
}

static uint32_t get32(const unsigned char *p, int swap)
{
	return swap ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
			      (uint32_t)p[2] << 8 | p[3]
		    : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
			      (uint32_t)p[1] << 8 | p[0];
}

static int read_pcap(const char *path)
{
	static ll_u8 frame[MAX_FRAME];
	unsigned char hdr[24], rec[16];
	unsigned long index = 0;
	uint32_t magic, linktype, incl;
	int swap;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return 1;
	}
	if (fread(hdr, 1, sizeof(hdr), f) != sizeof(hdr)) {
		fprintf(stderr, "%s: short pcap header\n", path);
		return 1;
	}
	magic = get32(hdr, 0);
	if (magic == 0xA1B2C3D4 || magic == 0xA1B23C4D)
		swap = 0;
	else if (magic == 0xD4C3B2A1 || magic == 0x4D3CB2A1)
		swap = 1;
	else {
		fprintf(stderr, "%s: not a classic pcap file\n", path);
		return 1;
	}
	linktype = get32(hdr + 20, swap) & 0x0FFFFFFF;
	if (linktype != 1) {
		fprintf(stderr, "%s: link type %u, not Ethernet\n", path,
			(unsigned)linktype);
		return 1;
	}
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		incl = get32(rec + 8, swap);
		if (incl > MAX_FRAME ||
		    fread(frame, 1, incl, f) != incl) {
			fprintf(stderr, "%s: bad record %lu\n", path, index);
			return 1;
		}
		print_frame(index++, frame, incl);
	}
	fclose(f);
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int read_hex(void)
{
	static char line[4 * MAX_FRAME];
	static ll_u8 frame[MAX_FRAME];
	unsigned long index = 0;

	while (fgets(line, sizeof(line), stdin)) {
		ll_u32 len = 0;
		int hi = -1;
		char *p;

		for (p = line; *p; p++) {
			int v;

			if (isspace((unsigned char)*p) || *p == ':' || *p == '-')
				continue;
			v = hexval((unsigned char)*p);
			if (v < 0) {
				fprintf(stderr, "line %lu: bad hex '%c'\n",
					index + 1, *p);
				return 1;
			}
			if (hi < 0) {
				hi = v;
				continue;
			}
			if (len == MAX_FRAME) {
				fprintf(stderr, "line %lu: too long\n", index + 1);
				return 1;
			}
			frame[len++] = (ll_u8)(hi << 4 | v);
			hi = -1;
		}
		if (hi >= 0) {
			fprintf(stderr, "line %lu: odd number of digits\n",
				index + 1);
			return 1;
		}
		if (!len && strspn(line, " \t\r\n") == strlen(line))
			continue;	/* blank line */
		print_frame(index++, frame, len);
	}
	return 0;
}

static int parse_mac(const char *s, ll_u8 *mac)
{
	unsigned int v[LL_ETH_ALEN];
	char end;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &end) != LL_ETH_ALEN)
		return -1;
	for (i = 0; i < LL_ETH_ALEN; i++) {
		if (v[i] > 0xFF)
			return -1;
		mac[i] = (ll_u8)v[i];
	}
	return 0;
}

int main(int argc, char **argv)
{
	static ll_u8 port[LL_ETH_ALEN];
	const char *prog = argv[0];

	if (argc >= 3 && !strcmp(argv[1], "--port-addr")) {
		if (parse_mac(argv[2], port)) {
			fprintf(stderr, "%s: bad --port-addr %s\n", prog, argv[2]);
			return 2;
		}
		port_addr = port;
		argc -= 2;
		argv += 2;
	}
	if (argc == 2 && !strcmp(argv[1], "--hex"))
		return read_hex();
	if (argc == 2 && argv[1][0] != '-')
		return read_pcap(argv[1]);
	fprintf(stderr, "usage: %s [--port-addr MAC] FILE.pcap | --hex < frames.txt\n",
		prog);
	return 2;
}
