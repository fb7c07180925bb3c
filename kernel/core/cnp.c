// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The CNP codec of PCN and DCQCN: see cnp.h. */
#include "cnp.h"

#define OFF_RATE 12
#define OFF_FLAGS 16
#define OFF_VERSION 17
#define OFF_SEQ 18
#define OFF_SPORT 20
#define OFF_DPORT 22
#define OFF_PROTO 24
#define OFF_ZERO 25	/* 25, 26, 27 */
#define FLAGS_KNOWN (LL_CNP_FLAG_CONGESTED | LL_CNP_FLAG_RATE_VALID)

static ll_u16 get_be16(const ll_u8 *p)
{
	return (ll_u16)((p[0] << 8) | p[1]);
}

static ll_u32 get_be24(const ll_u8 *p)
{
	return ((ll_u32)p[0] << 16) | ((ll_u32)p[1] << 8) | p[2];
}

static ll_u32 get_be32(const ll_u8 *p)
{
	return ((ll_u32)p[0] << 24) | get_be24(p + 1);
}

static void put_be16(ll_u8 *p, ll_u32 v)
{
	p[0] = (ll_u8)(v >> 8);
	p[1] = (ll_u8)v;
}

static void put_be24(ll_u8 *p, ll_u32 v)
{
	p[0] = (ll_u8)(v >> 16);
	put_be16(p + 1, v);
}

static void put_be32(ll_u8 *p, ll_u32 v)
{
	p[0] = (ll_u8)(v >> 24);
	put_be24(p + 1, v);
}

/* The BTH of a CNP, but for DestQP (octets 5..7): all else fixed. */
static int bth_ok(const ll_u8 *p)
{
	return p[1] == 0 && get_be16(p + 2) == LL_CNP_PKEY &&
	       p[4] == LL_CNP_BTH_BECN && p[8] == 0 && get_be24(p + 9) == 0;
}

enum ll_cnp_result ll_cnp_parse(const ll_u8 *p, ll_u32 len,
				struct ll_cnp *out)
{
	ll_u32 i;
	ll_u8 flags, version;

	if (len < 1)
		return LL_CNP_TRUNCATED;
	if (p[0] != LL_CNP_BTH_OPCODE)
		return LL_CNP_NOT_CNP;
	if (len < LL_CNP_BYTES)
		return LL_CNP_TRUNCATED;
	if (len > LL_CNP_BYTES)
		return LL_CNP_OVERSIZE;
	if (!bth_ok(p))
		return LL_CNP_BAD_BTH;

	version = p[OFF_VERSION];
	flags = p[OFF_FLAGS];
	if (version == LL_CNP_VERSION_PLAIN) {
		for (i = OFF_RATE; i < OFF_RATE + LL_CNP_PAYLOAD_BYTES; i++)
			if (p[i])
				return LL_CNP_RESERVED_SET;
	} else if (version != LL_CNP_VERSION) {
		return LL_CNP_BAD_VERSION;
	}
	if ((flags & ~FLAGS_KNOWN) || p[OFF_ZERO] || p[OFF_ZERO + 1] ||
	    p[OFF_ZERO + 2])
		return LL_CNP_RESERVED_SET;
	out->rec_rate_mbps = get_be32(p + OFF_RATE);
	out->rate_valid = !!(flags & LL_CNP_FLAG_RATE_VALID);
	if (!out->rate_valid != !out->rec_rate_mbps)
		return LL_CNP_BAD_RATE;
	out->dest_qp = get_be24(p + 5);
	out->congested = flags & LL_CNP_FLAG_CONGESTED;
	out->version = version;
	out->seq = get_be16(p + OFF_SEQ);
	out->sport = get_be16(p + OFF_SPORT);
	out->dport = get_be16(p + OFF_DPORT);
	out->proto = p[OFF_PROTO];
	out->ip_ecn = LL_CNP_ECN_UNSEEN;
	out->pad = 0;
	return LL_CNP_OK;
}

ll_u32 ll_cnp_build(ll_u8 *buf, ll_u32 buf_len, const struct ll_cnp *c)
{
	ll_u32 i;

	if (buf_len < LL_CNP_BYTES || c->dest_qp > LL_CNP_QP_MASK)
		return 0;
	if (c->version != LL_CNP_VERSION && c->version != LL_CNP_VERSION_PLAIN)
		return 0;
	if (c->version == LL_CNP_VERSION &&
	    !c->rate_valid != !c->rec_rate_mbps)
		return 0;
	for (i = 0; i < LL_CNP_BYTES; i++)
		buf[i] = 0;
	buf[0] = LL_CNP_BTH_OPCODE;
	put_be16(buf + 2, LL_CNP_PKEY);
	buf[4] = LL_CNP_BTH_BECN;
	put_be24(buf + 5, c->dest_qp);
	if (c->version == LL_CNP_VERSION_PLAIN)
		return LL_CNP_BYTES;
	put_be32(buf + OFF_RATE, c->rec_rate_mbps);
	buf[OFF_FLAGS] = (c->congested ? LL_CNP_FLAG_CONGESTED : 0) |
			 (c->rate_valid ? LL_CNP_FLAG_RATE_VALID : 0);
	buf[OFF_VERSION] = LL_CNP_VERSION;
	put_be16(buf + OFF_SEQ, c->seq);
	put_be16(buf + OFF_SPORT, c->sport);
	put_be16(buf + OFF_DPORT, c->dport);
	buf[OFF_PROTO] = c->proto;
	return LL_CNP_BYTES;
}

/* RFC 1071 over the 20-octet IPv4 header (checksum field 0). */
static ll_u16 ipv4_csum(const ll_u8 *h)
{
	ll_u32 sum = 0, i;

	for (i = 0; i < LL_CNP_IPV4_HLEN; i += 2)
		sum += get_be16(h + i);
	sum = (sum & 0xFFFF) + (sum >> 16);
	sum = (sum & 0xFFFF) + (sum >> 16);
	return (ll_u16)~sum;
}

ll_u32 ll_cnp_frame_build(ll_u8 *buf, ll_u32 buf_len,
			  const struct ll_cnp_ipv4_addr *a,
			  const struct ll_cnp *c)
{
	const ll_u32 ip = 14, udp = ip + LL_CNP_IPV4_HLEN;
	const ll_u32 cnp = udp + LL_CNP_UDP_HLEN;
	ll_u32 i;

	if (buf_len < LL_CNP_IPV4_FRAME_BYTES || a->dscp > 63)
		return 0;
	if (ll_cnp_build(buf + cnp, buf_len - cnp, c) != LL_CNP_BYTES)
		return 0;
	for (i = 0; i < 6; i++) {
		buf[i] = a->dst_mac[i];
		buf[6 + i] = a->src_mac[i];
	}
	put_be16(buf + 12, 0x0800);
	buf[ip] = 0x45;
	buf[ip + 1] = (ll_u8)((a->dscp << 2) | ll_cnp_ip_ecn(c));
	put_be16(buf + ip + 2, LL_CNP_IPV4_HLEN + LL_CNP_UDP_HLEN +
		 LL_CNP_BYTES);
	put_be16(buf + ip + 4, 0);		/* id */
	put_be16(buf + ip + 6, 0x4000);		/* DF */
	buf[ip + 8] = a->ttl ? a->ttl : 64;
	buf[ip + 9] = 17;			/* UDP */
	put_be16(buf + ip + 10, 0);
	for (i = 0; i < 4; i++) {
		buf[ip + 12 + i] = a->src_ip[i];
		buf[ip + 16 + i] = a->dst_ip[i];
	}
	put_be16(buf + ip + 10, ipv4_csum(buf + ip));
	put_be16(buf + udp, a->udp_sport);
	put_be16(buf + udp + 2, LL_CNP_UDP_PORT);
	put_be16(buf + udp + 4, LL_CNP_UDP_HLEN + LL_CNP_BYTES);
	put_be16(buf + udp + 6, 0);
	return LL_CNP_IPV4_FRAME_BYTES;
}

const char *ll_cnp_result_name(enum ll_cnp_result r)
{
	switch (r) {
	case LL_CNP_OK: return "ok";
	case LL_CNP_TRUNCATED: return "truncated";
	case LL_CNP_OVERSIZE: return "oversize";
	case LL_CNP_NOT_CNP: return "not-cnp";
	case LL_CNP_BAD_BTH: return "bad-bth";
	case LL_CNP_BAD_VERSION: return "bad-version";
	case LL_CNP_RESERVED_SET: return "reserved-bits-set";
	case LL_CNP_BAD_RATE: return "bad-rate";
	default: return "invalid-result";
	}
}
