// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The hosts' congestion control: two TC (clsact) programs per port, PCN
 * or DCQCN, with the algorithms from the core (kernel/core/pcn.c,
 * dcqcn.c, cnp.c, compiled for BPF and linked into this object). The map
 * layouts and the behaviour in short are in lossless_cc.h; docs/PCN.md
 * has the why.
 *
 *   ll_cc_ingress  a CNP is the RP's input (applied, then dropped); a
 *                  RoCEv2 data packet is the NP's (counted; when the core
 *                  says a CNP is due, a clone marked LL_CC_CNP_MARK goes
 *                  to the egress of the same port).
 *   ll_cc_egress   the marked clone becomes the CNP; a RoCEv2 data packet
 *                  is paced (skb->tstamp, EDT).
 *
 * A packet passed on returns TC_ACT_UNSPEC, not TC_ACT_OK: the hook's
 * next filter still runs (on ingress lossless-ingress's program is pref 1,
 * this one pref 2, and either may come first), and the chain's end
 * accepts the packet. TC_ACT_OK would end the chain there.
 *
 * Only UAPI fields of struct __sk_buff and packet bytes are read (no
 * CO-RE), with helpers of 5.x kernels: the object loads on Debian's 6.1.
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

#include "lossless_cc.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ll_cc_config);
} ll_cc_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LL_CC_MAX_FLOWS);
	__type(key, struct ll_cc_flow_key);
	__type(value, struct ll_cc_np);
} ll_cc_np SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, LL_CC_MAX_FLOWS);
	__type(key, struct ll_cc_flow_key);
	__type(value, struct ll_cc_rp);
} ll_cc_rp SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ll_cc_stats);
} ll_cc_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ll_cc_cnp_pending);
} ll_cc_scratch SEC(".maps");

/* Offsets in an untagged Ethernet frame with an option-less IPv4 header. */
#define IP_OFF ETH_HLEN
#define UDP_OFF (IP_OFF + LL_CNP_IPV4_HLEN)
#define BTH_OFF (UDP_OFF + LL_CNP_UDP_HLEN)
#define IPV6_HLEN 40
#define IPV6_NEXTHDR_OFF 6
#define IPV4_FRAG_MASK 0x3fff	/* MF and the fragment offset */
#define IPV4_ECN_MASK 3
/* A flow's try-lock: tries before it is taken over as stale. */
#define FLOW_CLAIM_TRIES 64

/*
 * What both programs need of a RoCEv2 (UDP 4791) packet over IPv4. Not the
 * frame's layout (ip is 4-aligned): eth, ip with udp, bth load separately.
 */
struct roce_pkt {
	struct ethhdr eth;
	struct iphdr ip;
	struct udphdr udp;
	__u8 bth[LL_CNP_BTH_BYTES];
};

enum roce_kind {
	ROCE_NONE = 0,	/* not RoCEv2 over IPv4 without options: pass */
	ROCE_DATA,
	ROCE_CNP,
};

static __always_inline struct ll_cc_stats *stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ll_cc_stats, &zero);
}

static __always_inline const struct ll_cc_config *config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ll_cc_cfg, &zero);
}

/*
 * Reads the headers into *p and says what the packet is. RoCEv2 over
 * IPv6 is counted (not_ipv4), a RoCEv2 datagram too short for a BTH is
 * counted (truncated); both pass like anything else that is not ours.
 * IPv4 with options or fragmented is passed uncounted: RoCEv2 sends
 * neither.
 */
static __noinline int roce_parse(struct __sk_buff *skb, struct roce_pkt *p)
{
	struct ll_cc_stats *st;
	__u8 next_hdr;
	__be16 dport;
	__u32 ulen;

	if (bpf_skb_load_bytes(skb, 0, &p->eth, sizeof(p->eth)))
		return ROCE_NONE;
	if (p->eth.h_proto == bpf_htons(ETH_P_IPV6)) {
		if (bpf_skb_load_bytes(skb, IP_OFF + IPV6_NEXTHDR_OFF,
				       &next_hdr, 1) ||
		    next_hdr != IPPROTO_UDP ||
		    bpf_skb_load_bytes(skb, IP_OFF + IPV6_HLEN +
				       offsetof(struct udphdr, dest),
				       &dport, sizeof(dport)) ||
		    dport != bpf_htons(LL_CNP_UDP_PORT))
			return ROCE_NONE;
		st = stats();
		if (st)
			st->not_ipv4++;
		return ROCE_NONE;
	}
	if (p->eth.h_proto != bpf_htons(ETH_P_IP) ||
	    bpf_skb_load_bytes(skb, IP_OFF, &p->ip,
			       sizeof(p->ip) + sizeof(p->udp)))
		return ROCE_NONE;
	if (p->ip.version != 4 || p->ip.ihl != 5 ||
	    p->ip.protocol != IPPROTO_UDP ||
	    (p->ip.frag_off & bpf_htons(IPV4_FRAG_MASK)) ||
	    p->udp.dest != bpf_htons(LL_CNP_UDP_PORT))
		return ROCE_NONE;
	ulen = bpf_ntohs(p->udp.len);
	if (ulen < LL_CNP_UDP_HLEN + LL_CNP_BTH_BYTES ||
	    bpf_skb_load_bytes(skb, BTH_OFF, p->bth, sizeof(p->bth))) {
		st = stats();
		if (st)
			st->truncated++;
		return ROCE_NONE;
	}
	return p->bth[0] == LL_CNP_BTH_OPCODE ? ROCE_CNP : ROCE_DATA;
}

/*
 * A flow's try-lock (lossless_cc.h: not a bpf_spin_lock, which an LRU map
 * cannot hold and under which the core could not be called). The holder
 * runs a few hundred instructions with preemption off (softirq, or BH
 * disabled on the transmit path), so the tries outlast it by far; a word
 * still taken after them is stale (a userspace write) and is taken over,
 * so that no packet ever waits for more than the tries. Returns 1 if
 * claimed, 0 if taken over; the caller goes on and releases either way.
 */
static __noinline int flow_claim(__u32 *busy)
{
	int i;

	for (i = 0; i < FLOW_CLAIM_TRIES; i++)
		if (__sync_val_compare_and_swap(busy, 0, 1) == 0)
			return 1;
	return 0;
}

static __always_inline void flow_release(__u32 *busy)
{
	__sync_lock_test_and_set(busy, 0);	/* an xchg: a full barrier */
}

/*
 * The flow's entry, created if missing: zeroed for the NP; algo 0 (no
 * state yet) for the RP, which its caller then initialises. NULL (counted)
 * if the map refused.
 */
static __always_inline void *flow_get(void *map, struct ll_cc_flow_key *key,
				      void *zero)
{
	struct ll_cc_stats *st;
	void *v;

	v = bpf_map_lookup_elem(map, key);
	if (v)
		return v;
	/* Another CPU may have created it meanwhile: EEXIST is fine. */
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v) {
		st = stats();
		if (st)
			st->flow_alloc_failed++;
	}
	return v;
}

/* ------------------------------------------------------------------ NP */

/*
 * The NP's part of a data packet; the entry is claimed. Returns 1 and
 * fills *cnp (but for the flow's fields) if a CNP is due.
 */
static __noinline int np_account(struct ll_cc_np *np,
				 const struct ll_cc_config *cfg,
				 struct ll_pcn_np_pkt *pkt, struct ll_cnp *cnp)
{
	struct ll_pcn_cnp pc = {};
	int due = 0;

	np->pkts += pkt->segs;
	np->bytes += pkt->bytes;
	if (pkt->ecn == LL_ECN_CE)
		np->ce_pkts += pkt->segs;
	np->last_ns = pkt->now_ns;

	if (cfg->algo == LL_CC_PCN) {
		due = ll_pcn_np_packet(&np->pcn, &cfg->pcn, pkt, &pc);
		cnp->rec_rate_mbps = pc.rec_rate_mbps;
		cnp->congested = pc.congested;
		cnp->rate_valid = 1;
		if (due)
			np->last_rec_rate_mbps = pc.rec_rate_mbps;
	} else if (cfg->algo == LL_CC_DCQCN) {
		due = ll_dcqcn_np_packet(&np->dcqcn, &cfg->dcqcn,
					 pkt->ecn == LL_ECN_CE, pkt->now_ns);
		/* Version 1 without a rate: the RP finds the flow by ports. */
		cnp->rec_rate_mbps = 0;
		cnp->congested = 1;
		cnp->rate_valid = 0;
	}
	if (!due)
		return 0;
	cnp->version = LL_CNP_VERSION;
	cnp->seq = np->cnp_seq++;
	np->cnps++;
	if (cnp->congested)
		np->cnps_congested++;
	return 1;
}

/*
 * Hands the CNP to the egress of the same port: the pending CNP goes to
 * this CPU's scratch slot, then a clone marked LL_CC_CNP_MARK to the
 * port's egress. bpf_clone_redirect() without BPF_F_INGRESS ends in
 * __bpf_tx_skb() -> dev_queue_xmit(), which runs the clsact egress hook
 * (ll_cc_egress) in the caller's context before the clone is queued: the
 * slot is read on this CPU before the helper returns, and nothing else
 * runs on this CPU in between (softirq, or BH disabled). Egress clears
 * the slot; a slot left valid (egress not attached) is overwritten here
 * next time and never matches another flow's clone.
 */
static __noinline void np_send_cnp(struct __sk_buff *skb,
				   struct ll_cc_flow_key *key,
				   struct ll_cnp *cnp)
{
	struct ll_cc_cnp_pending *pend;
	struct ll_cc_stats *st;
	__u32 zero = 0, mark;
	long err;

	pend = bpf_map_lookup_elem(&ll_cc_scratch, &zero);
	if (!pend)
		return;
	pend->key = *key;
	pend->cnp = *cnp;
	pend->valid = 1;

	mark = skb->mark;
	skb->mark = LL_CC_CNP_MARK;
	err = bpf_clone_redirect(skb, skb->ifindex, 0);
	skb->mark = mark;
	/*
	 * < 0: no clone was sent (no memory, the recursion limit, ...). A
	 * positive NET_XMIT_* is the egress or the qdisc dropping the CNP,
	 * counted there (cnp_build_failed) or by the qdisc.
	 */
	if (err < 0) {
		pend->valid = 0;
		st = stats();
		if (st)
			st->cnp_clone_failed++;
	}
}

static __noinline int np_data(struct __sk_buff *skb,
			      const struct ll_cc_config *cfg,
			      struct roce_pkt *p)
{
	struct ll_cc_flow_key key = {
		.saddr = p->ip.saddr,
		.daddr = p->ip.daddr,
		.sport = p->udp.source,
		.dport = p->udp.dest,
	};
	struct ll_pcn_np_pkt pkt = {};
	struct ll_cc_np zero = {};
	struct ll_cnp cnp = {};
	struct ll_cc_stats *st;
	struct ll_cc_np *np;
	int due;

	pkt.now_ns = bpf_ktime_get_ns();
	pkt.bytes = skb->len;
	pkt.segs = skb->gso_segs ? skb->gso_segs : 1;
	pkt.ecn = p->ip.tos & IPV4_ECN_MASK;

	st = stats();
	if (st) {
		st->np_pkts += pkt.segs;
		if (pkt.ecn == LL_ECN_CE)
			st->np_ce_pkts += pkt.segs;
		else if (pkt.ecn == LL_ECN_NOT_ECT)
			st->np_not_ect_pkts += pkt.segs;
	}

	np = flow_get(&ll_cc_np, &key, &zero);
	if (!np)
		return TC_ACT_UNSPEC;
	flow_claim(&np->busy);
	due = np_account(np, cfg, &pkt, &cnp);
	flow_release(&np->busy);
	if (!due)
		return TC_ACT_UNSPEC;

	/* The CNP names the data flow in host order, as the core expects. */
	cnp.dest_qp = ((__u32)p->bth[5] << 16) | ((__u32)p->bth[6] << 8) |
		      p->bth[7];
	cnp.sport = bpf_ntohs(p->udp.source);
	cnp.dport = bpf_ntohs(p->udp.dest);
	cnp.proto = IPPROTO_UDP;
	np_send_cnp(skb, &key, &cnp);
	return TC_ACT_UNSPEC;
}

/* ------------------------------------------------------------------ RP */

/* (Re)starts the flow's state for cfg->algo at line rate. */
static __always_inline void rp_init(struct ll_cc_rp *rp,
				    const struct ll_cc_config *cfg, __u64 now)
{
	if (cfg->algo == LL_CC_PCN) {
		ll_pcn_rp_init(&rp->pcn, &cfg->pcn, now);
		rp->rate_kbps = rp->pcn.rate_kbps;
	} else {
		ll_dcqcn_rp_init(&rp->dcqcn, &cfg->dcqcn);
		rp->rate_kbps = rp->dcqcn.rc_kbps;
	}
	rp->algo = cfg->algo;
	rp->seq_valid = 0;
	rp->last_seq = 0;
	rp->next_tx_ns = 0;
}

/*
 * A CNP for the flow, parsed; the entry is claimed. Returns 0 if applied,
 * -1 if stale (PCN: its sequence number is not newer than the last one's,
 * A21: a reordered or duplicated CNP must not act twice).
 */
static __noinline int rp_apply_cnp(struct ll_cc_rp *rp,
				   const struct ll_cc_config *cfg,
				   const struct ll_cnp *cnp, __u64 now)
{
	__u32 rec_rate_mbps;
	int congested;

	if (rp->algo != cfg->algo)
		rp_init(rp, cfg, now);
	if (cfg->algo == LL_CC_PCN) {
		if (cnp->version == LL_CNP_VERSION) {
			if (rp->seq_valid &&
			    (__s16)(cnp->seq - rp->last_seq) <= 0) {
				rp->cnps_stale++;
				return -1;
			}
			rp->last_seq = cnp->seq;
			rp->seq_valid = 1;
		}
		congested = cnp->congested;
		rec_rate_mbps = cnp->rec_rate_mbps;
		/*
		 * Without a RecRate (a plain RoCEv2 CNP, or DCQCN's NP) the
		 * CNP still says "congested": cut to the rate the flow has
		 * (1 - w_min of it), at least 1 Mbps.
		 */
		if (!cnp->rate_valid) {
			congested = 1;
			rec_rate_mbps = rp->pcn.rate_kbps / 1000;
			if (!rec_rate_mbps)
				rec_rate_mbps = 1;
		}
		ll_pcn_rp_cnp(&rp->pcn, &cfg->pcn, congested, rec_rate_mbps,
			      now);
		rp->rate_kbps = rp->pcn.rate_kbps;
	} else {
		ll_dcqcn_rp_cnp(&rp->dcqcn, &cfg->dcqcn, now);
		rp->rate_kbps = rp->dcqcn.rc_kbps;
	}
	rp->cnps++;
	rp->last_ns = now;
	return 0;
}

/* A CNP arrived: the RP's input. Always consumed. */
static __noinline int rp_cnp(struct __sk_buff *skb,
			     const struct ll_cc_config *cfg,
			     struct roce_pkt *p)
{
	__u8 payload[LL_CNP_BYTES] = {};
	struct ll_cc_flow_key key;
	enum ll_cnp_result res;
	struct ll_cc_stats *st;
	struct ll_cnp cnp = {};
	struct ll_cc_rp *rp;
	__u32 len = 0;
	int stale;

	/*
	 * The parser gets the UDP payload's size from the UDP header (so
	 * that it can refuse a short or long one) and at most the 32 octets
	 * it may look at; roce_parse() checked for 12.
	 */
	len = bpf_ntohs(p->udp.len) - LL_CNP_UDP_HLEN;
	if (len < LL_CNP_BYTES ||
	    bpf_skb_load_bytes(skb, BTH_OFF, payload, LL_CNP_BYTES)) {
		/* A failed load zeroed the buffer: the BTH is what we have. */
		__builtin_memcpy(payload, p->bth, LL_CNP_BTH_BYTES);
		if (len > LL_CNP_BTH_BYTES)
			len = LL_CNP_BTH_BYTES;	/* the frame is shorter */
	}
	res = ll_cnp_parse(payload, len, &cnp);

	st = stats();
	if (res != LL_CNP_OK) {
		if (st && res < LL_CNP_RESULT_COUNT)
			st->cnp_parse_error[res]++;
		return TC_ACT_SHOT;
	}
	cnp.ip_ecn = p->ip.tos & IPV4_ECN_MASK;
	if (!ll_cnp_ecn_agrees(&cnp) && st)
		st->cnp_ecn_mismatch++;	/* the flag wins (A10) */

	/* The data flow went from us (the CNP's destination) to its source. */
	key.saddr = p->ip.daddr;
	key.daddr = p->ip.saddr;
	key.sport = bpf_htons(cnp.sport);
	key.dport = bpf_htons(cnp.dport);
	rp = bpf_map_lookup_elem(&ll_cc_rp, &key);
	if (!rp) {
		if (st)
			st->cnp_unknown_flow++;
		return TC_ACT_SHOT;
	}
	flow_claim(&rp->busy);
	stale = rp_apply_cnp(rp, cfg, &cnp, bpf_ktime_get_ns());
	flow_release(&rp->busy);
	if (st) {
		if (stale)
			st->cnp_stale++;
		else
			st->cnps_received++;
	}
	return TC_ACT_SHOT;
}

/* rp_pace(): the packet is beyond the horizon. */
#define RP_REFUSED (~0ULL)

/*
 * The RP's part of a data packet to send; the entry is claimed. Returns
 * its departure time: later than now if the flow is ahead of its rate;
 * RP_REFUSED if that is beyond the horizon (nothing changes then but the
 * count: the sender tries again, and the flow's clock has not moved).
 */
static __noinline __u64 rp_pace(struct ll_cc_rp *rp,
				const struct ll_cc_config *cfg, __u64 len,
				__u64 now)
{
	__u64 t, rate;

	if (rp->algo != cfg->algo)
		rp_init(rp, cfg, now);
	if (cfg->rp_horizon_ns && rp->next_tx_ns > now &&
	    rp->next_tx_ns - now > cfg->rp_horizon_ns) {
		rp->refused_pkts++;
		return RP_REFUSED;
	}
	if (cfg->algo == LL_CC_PCN) {
		ll_pcn_rp_touch(&rp->pcn, &cfg->pcn, now);	/* idle reset */
		rate = rp->pcn.rate_kbps;
	} else {
		ll_dcqcn_rp_alpha_timer(&rp->dcqcn, &cfg->dcqcn, now);
		ll_dcqcn_rp_rate_timer(&rp->dcqcn, &cfg->dcqcn, now);
		ll_dcqcn_rp_sent(&rp->dcqcn, &cfg->dcqcn, len);
		rate = rp->dcqcn.rc_kbps;
	}
	rp->rate_kbps = rate;
	rp->pkts++;
	rp->bytes += len;
	rp->last_ns = now;

	/* EDT: the flow's next slot, or now if it fell behind its rate. */
	t = rp->next_tx_ns > now ? rp->next_tx_ns : now;
	if (rate)
		rp->next_tx_ns = t + len * 8 * 1000000 / rate;
	if (t > now)
		rp->delayed_pkts++;
	return t;
}

static __noinline int rp_data(struct __sk_buff *skb,
			      const struct ll_cc_config *cfg,
			      struct roce_pkt *p)
{
	struct ll_cc_flow_key key = {
		.saddr = p->ip.saddr,
		.daddr = p->ip.daddr,
		.sport = p->udp.source,
		.dport = p->udp.dest,
	};
	struct ll_cc_rp zero = {};
	struct ll_cc_stats *st;
	struct ll_cc_rp *rp;
	__u64 now, t;

	rp = flow_get(&ll_cc_rp, &key, &zero);
	if (!rp)
		return TC_ACT_UNSPEC;
	now = bpf_ktime_get_ns();
	flow_claim(&rp->busy);
	t = rp_pace(rp, cfg, skb->len, now);
	flow_release(&rp->busy);

	st = stats();
	if (t == RP_REFUSED) {
		if (st)
			st->rp_refused_pkts++;
		return TC_ACT_SHOT;
	}
	if (st)
		st->rp_pkts++;
	/*
	 * A departure in the future: sch_fq (alone or under a lossless
	 * class) holds the packet until then. Now: the tstamp is left as the
	 * socket set it.
	 */
	if (t > now) {
		skb->tstamp = t;
		if (st)
			st->rp_delayed_pkts++;
	}
	return TC_ACT_UNSPEC;
}

/* ----------------------------------------------------------------- CNP */

/*
 * The clone of a data packet that ll_cc_ingress marked: rewritten in
 * place into the CNP of the pending slot, addressed back to the data's
 * sender. Any failure drops it (the clone must never leave as data).
 */
static __noinline int cnp_emit(struct __sk_buff *skb,
			       const struct ll_cc_config *cfg)
{
	__u8 frame[LL_CNP_IPV4_FRAME_BYTES];
	struct ll_cnp_ipv4_addr addr = {};
	struct ll_cc_cnp_pending *pend;
	struct ll_cc_stats *st = stats();
	struct roce_pkt p;
	__u32 zero = 0;

	pend = bpf_map_lookup_elem(&ll_cc_scratch, &zero);
	if (!pend || !pend->valid || !cfg ||
	    bpf_skb_load_bytes(skb, 0, &p.eth, sizeof(p.eth)) ||
	    bpf_skb_load_bytes(skb, IP_OFF, &p.ip,
			       sizeof(p.ip) + sizeof(p.udp)) ||
	    p.eth.h_proto != bpf_htons(ETH_P_IP) || p.ip.ihl != 5 ||
	    pend->key.saddr != p.ip.saddr || pend->key.daddr != p.ip.daddr ||
	    pend->key.sport != p.udp.source || pend->key.dport != p.udp.dest)
		goto fail;
	pend->valid = 0;

	__builtin_memcpy(addr.dst_mac, p.eth.h_source, ETH_ALEN);
	__builtin_memcpy(addr.src_mac, p.eth.h_dest, ETH_ALEN);
	__builtin_memcpy(addr.src_ip, &p.ip.daddr, 4);
	__builtin_memcpy(addr.dst_ip, &p.ip.saddr, 4);
	addr.udp_sport = bpf_ntohs(p.udp.source);	/* the flow's entropy */
	addr.dscp = cfg->cnp_dscp;
	if (ll_cnp_frame_build(frame, sizeof(frame), &addr, &pend->cnp) !=
	    LL_CNP_IPV4_FRAME_BYTES)
		goto fail;
	/* Also drops GSO state and linearises: a clone of a GRO packet. */
	if (bpf_skb_change_tail(skb, LL_CNP_IPV4_FRAME_BYTES, 0) ||
	    bpf_skb_store_bytes(skb, 0, frame, sizeof(frame),
				BPF_F_INVALIDATE_HASH))
		goto fail;
	skb->priority = cfg->cnp_prio;
	skb->mark = 0;
	skb->tstamp = 0;	/* CNPs are never paced */
	if (st)
		st->cnps_sent++;
	return TC_ACT_OK;
fail:
	if (st)
		st->cnp_build_failed++;
	return TC_ACT_SHOT;
}

/* -------------------------------------------------------------- hooks */

SEC("tc")
int ll_cc_ingress(struct __sk_buff *skb)
{
	const struct ll_cc_config *cfg = config();
	struct roce_pkt p;
	int kind;

	if (!cfg || cfg->algo == LL_CC_OFF || cfg->algo >= LL_CC_ALGO_COUNT)
		return TC_ACT_UNSPEC;
	kind = roce_parse(skb, &p);
	if (kind == ROCE_CNP && (cfg->roles & LL_CC_ROLE_RP))
		return rp_cnp(skb, cfg, &p);
	if (kind == ROCE_DATA && (cfg->roles & LL_CC_ROLE_NP))
		return np_data(skb, cfg, &p);
	return TC_ACT_UNSPEC;
}

SEC("tc")
int ll_cc_egress(struct __sk_buff *skb)
{
	const struct ll_cc_config *cfg = config();
	struct roce_pkt p;

	/* Only ll_cc_ingress marks so: whatever the config now, ours. */
	if (skb->mark == LL_CC_CNP_MARK)
		return cnp_emit(skb, cfg);
	if (!cfg || cfg->algo == LL_CC_OFF || cfg->algo >= LL_CC_ALGO_COUNT ||
	    !(cfg->roles & LL_CC_ROLE_RP))
		return TC_ACT_UNSPEC;
	if (roce_parse(skb, &p) == ROCE_DATA)
		return rp_data(skb, cfg, &p);
	return TC_ACT_UNSPEC;
}
