// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * TC (clsact) ingress program of a lossless port.
 *
 * MAC control frames (EtherType 0x8808) are validated by the algorithm
 * core's parser (kernel/core/pfc.c, compiled for BPF and linked into this
 * object; destination 01-80-C2-00-00-01 or the port's own address) and
 * never go further up the stack:
 *   - valid PFC / PAUSE: counted, EtherType rewritten to
 *     LOSSLESS_CTRL_ETHERTYPE, skb->mark = LOSSLESS_CTRL_MARK, redirected to
 *     the egress of the same port, where the lossless qdisc consumes it;
 *   - everything else (including a VLAN-tagged 0x8808 and opcodes we do not
 *     act on): counted by parse result and dropped.
 * Data frames get skb->priority from the VLAN PCP and/or the IP DSCP
 * (per-port mode, lossless_ingress.h) and are counted per priority.
 *
 * Only UAPI context fields of struct __sk_buff and packet bytes are read,
 * so there are no CO-RE relocations, and every helper used exists since
 * 4.x: the object loads on Debian's 6.1 as well as on newer kernels.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>	/* PACKET_HOST */
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "lossless.h"
#include "ctrl.h"
#include "portfc.h"
#include "lossless_ingress.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LL_INGRESS_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct ll_ingress_port_cfg);
} ll_port_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LL_INGRESS_DSCP_COUNT);
	__type(key, __u32);
	__type(value, struct ll_ingress_dscp_entry);
} ll_dscp_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, LL_INGRESS_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct ll_ingress_prio_stats);
} ll_prio_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, LL_INGRESS_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct ll_ingress_ctrl_stats);
} ll_ctrl_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LL_INGRESS_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct ll_ingress_portfc);
} ll_portfc_rx SEC(".maps");

#define ETHERTYPE_OFF (2 * LL_ETH_ALEN)
#define OPCODE_OFF 14
#define VLAN_PCP_SHIFT 13
#define VLAN_PCP_MASK 7
#define IPV4_VERSION 4
#define IPV6_VERSION 6
/* handle_data()'s vlan argument: PCP of the outermost tag | VLAN_SEEN */
#define VLAN_SEEN 0x100

/* A VLAN tag after its TPID: TCI, then the next EtherType. */
struct vlan_tag_tail {
	__be16 tci;
	__be16 next_proto;
};

/* The port's counters, created (zeroed) on its first frame. */
static __always_inline struct ll_ingress_ctrl_stats *ctrl_stats(__u32 ifindex)
{
	struct ll_ingress_ctrl_stats *st, zero = {};

	st = bpf_map_lookup_elem(&ll_ctrl_stats, &ifindex);
	if (st)
		return st;
	bpf_map_update_elem(&ll_ctrl_stats, &ifindex, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ll_ctrl_stats, &ifindex);
}

static __always_inline struct ll_ingress_prio_stats *prio_stats(__u32 ifindex)
{
	struct ll_ingress_prio_stats *st, zero = {};

	st = bpf_map_lookup_elem(&ll_prio_stats, &ifindex);
	if (st)
		return st;
	bpf_map_update_elem(&ll_prio_stats, &ifindex, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&ll_prio_stats, &ifindex);
}

/*
 * The port's own unicast address, for the parser, or NULL. The program
 * cannot read the device's address, but the stack has compared it with the
 * destination already: eth_type_trans() leaves skb->pkt_type PACKET_HOST
 * only for a unicast destination equal to the device's address. Then that
 * address is the frame's own first 6 octets. (The qdisc checks the
 * destination again against the device's address itself.)
 */
static __always_inline const __u8 *port_addr(struct __sk_buff *skb,
					     const __u8 *frame)
{
	return skb->pkt_type == PACKET_HOST ? frame : NULL;
}

/*
 * A PortFC frame on ifindex (portfc.h, docs/PORTFC.md): 0 to take it, 1 to
 * drop it (counted). A server relays class B once to each of its other
 * ports as PORTFC_R (the opcode rewritten in a clone sent to their egress,
 * where the qdisc's control band sends it on), then takes it itself.
 */
static __always_inline int portfc_rx(struct __sk_buff *skb, __u32 ifindex,
				     const struct ll_ctrl_msg *msg,
				     struct ll_ingress_ctrl_stats *st)
{
	const struct ll_ingress_portfc *pc;
	__be16 relayed = bpf_htons(LL_CTRL_OP_PORTFC_R);
	__be16 own = bpf_htons(LL_CTRL_OP_PORTFC_B);
	__u64 sent = 0, failed = 0;
	enum ll_portfc_rx rx;
	int i, drop = 0;

	pc = bpf_map_lookup_elem(&ll_portfc_rx, &ifindex);
	rx = pc ? ll_portfc_rx_check(msg, pc->role, pc->n) :
		  LL_PORTFC_RX_UNEXPECTED;
	if (rx != LL_PORTFC_RX_APPLY && rx != LL_PORTFC_RX_APPLY_RELAY) {
		if (st)
			st->portfc_refused++;
		return 1;
	}
	if (rx != LL_PORTFC_RX_APPLY_RELAY || !pc)
		return 0;
	if (bpf_skb_store_bytes(skb, OPCODE_OFF, &relayed, sizeof(relayed), 0)) {
		if (st)
			st->portfc_relay_failed++;
		return 1;
	}
	for (i = 0; i < LL_INGRESS_PORTFC_RELAYS; i++) {
		if (!pc->relay[i] || pc->relay[i] == ifindex)
			continue;
		if (bpf_clone_redirect(skb, pc->relay[i], 0))
			failed++;
		else
			sent++;
	}
	if (bpf_skb_store_bytes(skb, OPCODE_OFF, &own, sizeof(own), 0)) {
		failed++;
		drop = 1;
	}
	/* Counted once, after the loop: the 6.1 verifier refuses an address
	 * computed on a counter pointer not yet tested for NULL.
	 */
	if (st) {
		st->portfc_relayed += sent;
		st->portfc_relay_failed += failed;
	}
	return drop;
}

/*
 * A frame whose EtherType (after any inline VLAN tags) is a control
 * frame's (the core's table, ctrl.h: 0x8808 for PAUSE and PFC). It is
 * consumed here in every case: redirected to the qdisc or dropped.
 * accel_tagged: the device stripped a VLAN tag into skb->vlan_tci; proto:
 * the EtherType.
 */
static __noinline int handle_ctrl(struct __sk_buff *skb, __u32 accel_tagged,
				  __u32 proto)
{
	__u8 frame[LL_MAC_CTRL_FRAME_MAX_BYTES] = {};
	struct ll_ctrl_msg msg = {};
	struct ll_ingress_ctrl_stats *st;
	enum ll_parse_result res;
	__be16 ctrl_proto = bpf_htons(LOSSLESS_CTRL_ETHERTYPE);
	__u32 ifindex = skb->ifindex;
	__u32 len = skb->len;
	__u64 n = len;

	/*
	 * The parser gets the true length (so it can reject oversize frames)
	 * and at most the first 64 bytes, all it may ever look at.
	 *
	 * n is 64-bit and opaque to clang past the barrier, so the bounds
	 * below are checked on the very register handed to the helper: the
	 * 6.1 verifier does not carry bounds across 32-bit register copies.
	 */
	if (n > sizeof(frame))
		n = sizeof(frame);
	asm volatile("" : "+r"(n));
	if (n < LL_ETH_HLEN || n > sizeof(frame) ||
	    bpf_skb_load_bytes(skb, 0, frame, n))
		res = LL_PARSE_TRUNCATED;
	else
		res = ll_ctrl_parse(frame, len, port_addr(skb, frame), &msg);
	/*
	 * With the tag stripped the bytes look untagged, but a MAC control
	 * frame is never VLAN-tagged (the parser says so for inline tags).
	 */
	if (res == LL_PARSE_OK && accel_tagged)
		res = LL_PARSE_NOT_MAC_CTRL;

	st = ctrl_stats(ifindex);
	if (res != LL_PARSE_OK) {
		if (st && res < LL_PARSE_RESULT_COUNT)
			st->parse_error[res]++;
		return TC_ACT_SHOT;
	}
	if (msg.kind == LL_CTRL_PORTFC_A || msg.kind == LL_CTRL_PORTFC_B ||
	    msg.kind == LL_CTRL_PORTFC_R) {
		if (portfc_rx(skb, ifindex, &msg, st))
			return TC_ACT_SHOT;
	}

	/*
	 * Hide the MAC control EtherType (another qdisc would send a PAUSE
	 * on); a kind of our own EtherType is harmless as it is.
	 */
	if (proto == LL_ETH_P_MAC_CONTROL &&
	    bpf_skb_store_bytes(skb, ETHERTYPE_OFF, &ctrl_proto,
				sizeof(ctrl_proto), 0)) {
		if (st)
			st->rewrite_failed++;
		return TC_ACT_SHOT;
	}
	skb->mark = LOSSLESS_CTRL_MARK;
	if (bpf_redirect(ifindex, 0) != TC_ACT_REDIRECT) {
		if (st)
			st->redirect_failed++;
		return TC_ACT_SHOT;
	}
	if (st && msg.kind < LL_CTRL_KIND_COUNT)
		st->frames[msg.kind]++;
	return TC_ACT_REDIRECT;
}

/* DSCP of the IPv4/IPv6 header at l3, or -1 if there is none. */
static __always_inline int ip_dscp(struct __sk_buff *skb, __u32 proto, __u32 l3)
{
	__u8 hdr[2];

	if (proto != ETH_P_IP && proto != ETH_P_IPV6)
		return -1;
	if (bpf_skb_load_bytes(skb, l3, hdr, sizeof(hdr)))
		return -1;
	if (proto == ETH_P_IP) {
		/* version(4) IHL(4), TOS = DSCP(6) ECN(2) */
		if ((hdr[0] >> 4) != IPV4_VERSION)
			return -1;
		return hdr[1] >> 2;
	}
	/* version(4), traffic class = DSCP(6) ECN(2), flow label(20) */
	if ((hdr[0] >> 4) != IPV6_VERSION)
		return -1;
	return ((hdr[0] & 0x0f) << 2) | (hdr[1] >> 6);
}

/* The DSCP map; entries never set mean the class selector, dscp >> 3. */
static __always_inline __u32 dscp_prio(__u32 dscp)
{
	struct ll_ingress_dscp_entry *e;

	dscp &= LL_INGRESS_DSCP_COUNT - 1;
	e = bpf_map_lookup_elem(&ll_dscp_map, &dscp);
	if (e && e->valid && e->prio < LL_INGRESS_PRIOS)
		return e->prio;
	return dscp >> 3;
}

/*
 * A data frame: priority by the port's mode, then count it.
 * vlan: VLAN_SEEN | PCP of the outermost tag, or 0 if untagged; proto and
 * l3: the EtherType after the tags and the offset of the L3 header.
 */
static __noinline int handle_data(struct __sk_buff *skb, __u32 vlan,
				  __u32 proto, __u32 l3)
{
	struct ll_ingress_port_cfg dflt = {};
	const struct ll_ingress_port_cfg *cfg;
	struct ll_ingress_prio_stats *st;
	__u32 ifindex = skb->ifindex;
	__u32 prio;
	int dscp;

	cfg = bpf_map_lookup_elem(&ll_port_cfg, &ifindex);
	if (!cfg)
		cfg = &dflt;

	prio = cfg->default_prio;
	if (cfg->mode != LL_INGRESS_MODE_DSCP && (vlan & VLAN_SEEN)) {
		prio = vlan & VLAN_PCP_MASK;
	} else if (cfg->mode != LL_INGRESS_MODE_PCP) {
		dscp = ip_dscp(skb, proto, l3);
		if (dscp >= 0)
			prio = dscp_prio(dscp);
	}
	if (prio >= LL_INGRESS_PRIOS)
		prio = 0;
	skb->priority = prio;

	st = prio_stats(ifindex);
	if (st) {
		st->prio[prio].packets++;
		st->prio[prio].bytes += skb->len;
	}
	/* On to the hook's next filter (lossless-cc's, pref 2); the chain's
	 * end accepts. TC_ACT_OK would end the chain here.
	 */
	return TC_ACT_UNSPEC;
}

SEC("tc")
int ll_ingress(struct __sk_buff *skb)
{
	struct vlan_tag_tail tag;
	__u32 accel_tagged = skb->vlan_present;
	__u32 vlan = 0, off = ETHERTYPE_OFF;
	__u32 proto = 0;
	__be16 ethertype;
	int i;

	if (accel_tagged)
		vlan = VLAN_SEEN |
		       ((skb->vlan_tci >> VLAN_PCP_SHIFT) & VLAN_PCP_MASK);

	if (bpf_skb_load_bytes(skb, off, &ethertype, sizeof(ethertype)) == 0)
		proto = bpf_ntohs(ethertype);
	/*
	 * Inline tags. On a real port the stack has normally moved the outer
	 * tag into skb->vlan_tci already; QinQ inner tags and BPF_PROG_RUN
	 * frames stay inline. The outermost tag's PCP classifies.
	 */
	for (i = 0; i < LL_INGRESS_MAX_VLAN_TAGS; i++) {
		if (proto != LL_ETH_P_8021Q && proto != LL_ETH_P_8021AD)
			break;
		if (bpf_skb_load_bytes(skb, off + 2, &tag, sizeof(tag))) {
			proto = 0;
			break;
		}
		if (!vlan)
			vlan = VLAN_SEEN | ((bpf_ntohs(tag.tci) >> VLAN_PCP_SHIFT) &
					    VLAN_PCP_MASK);
		proto = bpf_ntohs(tag.next_proto);
		off += sizeof(tag);
	}

	if (ll_ctrl_ethertype(proto))
		return handle_ctrl(skb, accel_tagged, proto);
	return handle_data(skb, vlan, proto, off + 2);
}
