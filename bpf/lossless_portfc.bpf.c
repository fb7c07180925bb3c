// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * PortFC's egress classifier (lossless_portfc.h has the maps; the queue
 * plan is the core's, kernel/core/portfc.c, compiled for BPF and linked
 * into this object). Per packet: one hash lookup for the port, one for the
 * destination, the core's arithmetic on its digits, skb->priority.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "lossless_portfc.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LL_PORTFC_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct ll_portfc_port);
} ll_portfc_port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LL_PORTFC_MAX_ADDRS);
	__type(key, __u32);
	__type(value, __u32);
} ll_portfc_addr SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ll_portfc_stats);
} ll_portfc_stats SEC(".maps");

#define ROCE_UDP_PORT 4791
#define ETH_P_LOSSLESS_CTRL 0x88B6
#define ETH_P_LOSSLESS_HIDDEN 0x88B5

/* RoCEv2 control: ACK/NAK (0x11), atomic ACK (0x12), CNP (0x81). */
static __always_inline int roce_control(__u8 opcode)
{
	return opcode == 0x11 || opcode == 0x12 || opcode == 0x81;
}

/*
 * The packet's IPv4 destination (network order) in *dst, 0 if it has
 * none; returns 1 if it belongs in HQ.
 */
static __always_inline int parse(struct __sk_buff *skb, __u32 *dst)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	__u8 *bth;
	__u16 proto;

	*dst = 0;
	if ((void *)(eth + 1) > end)
		return 0;
	proto = bpf_ntohs(eth->h_proto);
	if (proto == ETH_P_ARP || proto == 0x8808 ||
	    proto == ETH_P_LOSSLESS_CTRL || proto == ETH_P_LOSSLESS_HIDDEN)
		return 1;
	if (proto != ETH_P_IP)
		return 0;
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > end)
		return 0;
	*dst = ip->daddr;
	if (ip->protocol != IPPROTO_UDP || ip->ihl != 5 ||
	    (ip->frag_off & bpf_htons(0x1FFF)))
		return 0;
	udp = (void *)(ip + 1);
	bth = (__u8 *)(udp + 1);
	if ((void *)(bth + 1) > end)
		return 0;
	return udp->dest == bpf_htons(ROCE_UDP_PORT) && roce_control(*bth);
}

SEC("tc")
int ll_portfc_classify(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, key = 0, addr;
	const struct ll_portfc_port *pc;
	struct ll_portfc_stats *st;
	enum ll_portfc_class_err err;
	struct ll_portfc_pkt pkt = { .dst = -1 };
	struct ll_portfc_where at;
	__u32 *id, queue;

	pc = bpf_map_lookup_elem(&ll_portfc_port, &ifindex);
	st = bpf_map_lookup_elem(&ll_portfc_stats, &key);
	if (!pc || !st)
		return TC_ACT_UNSPEC;
	at.b.n = pc->n;
	at.b.k = pc->k;
	at.level = pc->level;
	at.node = pc->node;
	/* The bounds the core's loops and the verifier need (k = 1). */
	if (at.b.n < LL_PORTFC_MIN_N || at.b.n > LL_PORTFC_MAX_N ||
	    at.b.k != 1 || at.level > 1 || pc->major == 0 ||
	    (pc->role == LL_PORTFC_ROLE_SWITCH ? at.node >= at.b.n :
	     pc->role != LL_PORTFC_ROLE_SERVER ||
	     at.node >= at.b.n * at.b.n)) {
		st->bad_port++;
		return TC_ACT_UNSPEC;
	}
	pkt.hq = (__u8)parse(skb, &addr);
	if (addr) {
		id = bpf_map_lookup_elem(&ll_portfc_addr, &addr);
		if (id)
			pkt.dst = (__s32)*id;
	}
	pkt.relayed = skb->ingress_ifindex != 0;
	if (pc->role == LL_PORTFC_ROLE_SWITCH)
		queue = ll_portfc_classify_switch(&at, &pkt, &err);
	else
		queue = ll_portfc_classify_server(&at, &pkt, &err);
	st->packets++;
	st->hq += queue == LL_PORTFC_HQ;
	st->relayed += pc->role == LL_PORTFC_ROLE_SERVER && !pkt.hq &&
		       pkt.relayed;
	st->unknown += err == LL_PORTFC_CLASS_UNKNOWN;
	st->self += err == LL_PORTFC_CLASS_SELF;
	st->misrouted += err == LL_PORTFC_CLASS_MISROUTED;
	if (queue < LL_PORTFC_MAX_QUEUES)
		st->queue[queue]++;
	skb->priority = ((__u32)pc->major << 16) | (queue + 1);
	/* On to the hook's next filter; the chain's end accepts. */
	return TC_ACT_UNSPEC;
}
