/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Map layouts of the hosts' congestion control programs
 * (lossless_cc.bpf.c: PCN or DCQCN, docs/PCN.md) and their userspace
 * (daemon/cc: the loader library, lossless-cc, losslessd's `[host_cc]`
 * with its pcn and dcqcn host policies). Plain __u* types, fixed sizes, no implicit
 * padding in the structs defined here: the same bytes on both sides.
 *
 * Two TC programs per host port, both on its clsact hooks:
 *
 *   ll_cc_ingress  (clsact ingress) RoCEv2 datagrams (UDP destination port
 *                  4791) only; everything else passes untouched.
 *                  - a CNP (BTH opcode 0x81) is the RP's input: parsed by
 *                    the core (ll_cnp_parse), matched to the sending flow
 *                    by (our address, its address, the data flow's
 *                    ports) and applied (PCN Algorithm 1 or DCQCN's cut);
 *                    then consumed (TC_ACT_SHOT), counted by outcome.
 *                  - a data packet is the NP's input: counted per flow
 *                    (CE exactly, GRO segments) and, when the core says a
 *                    CNP is due, cloned to the egress of the same port
 *                    (bpf_clone_redirect) with skb->mark LL_CC_CNP_MARK;
 *                    the packet itself goes on to the socket.
 *   ll_cc_egress   (clsact egress)
 *                  - the clone marked LL_CC_CNP_MARK becomes the CNP
 *                    (ll_cnp_frame_build: addresses swapped, 74 octets,
 *                    skb->priority cnp_prio) and leaves;
 *                  - a RoCEv2 data packet is paced: skb->tstamp = the
 *                    flow's earliest departure time at its current rate
 *                    (EDT). A qdisc that honours it (sch_fq, alone or as
 *                    the child of a `lossless` class) holds it per flow.
 *
 * Maps (shared by every port of one network namespace; pinned by the
 * loader as <pin dir>/<map name>, default pin dir /sys/fs/bpf/lossless_cc):
 *
 *   ll_cc_cfg      ARRAY[1]       0 -> struct ll_cc_config. All zero:
 *                  algo LL_CC_OFF, both programs pass everything.
 *   ll_cc_np       LRU_HASH       struct ll_cc_flow_key -> struct ll_cc_np
 *                  flows received (key: the data's source, destination).
 *   ll_cc_rp       LRU_HASH       struct ll_cc_flow_key -> struct ll_cc_rp
 *                  flows sent (key: the data's source = this host).
 *   ll_cc_stats    PERCPU_ARRAY[1] 0 -> struct ll_cc_stats
 *
 * Flow state lives in LRU maps of LL_CC_MAX_FLOWS entries: a flow idle
 * long enough to be evicted starts again as new (PCN: at line rate, the
 * idle reset of A20 anyway). Userspace may delete idle entries sooner.
 */
#ifndef LOSSLESS_CC_H
#define LOSSLESS_CC_H

#include <linux/types.h>
#include <linux/bpf.h>

#ifdef __cplusplus
extern "C" {	/* the core is C */
#endif
#include "pcn.h"	/* kernel/core: struct ll_pcn_params, _np_flow, _rp */
#include "dcqcn.h"	/* kernel/core: struct ll_dcqcn_params, ... */
#include "cnp.h"	/* kernel/core: LL_CNP_RESULT_COUNT */
#ifdef __cplusplus
}
#endif

#define LL_CC_MAX_FLOWS 16384
/* The clone of a data packet that egress turns into a CNP ("LLCN"). */
#define LL_CC_CNP_MARK 0x4c4c434eU

/* Map names (also the pin file names). At most 15 characters. */
#define LL_CC_MAP_CFG "ll_cc_cfg"
#define LL_CC_MAP_NP "ll_cc_np"
#define LL_CC_MAP_RP "ll_cc_rp"
#define LL_CC_MAP_STATS "ll_cc_stats"
/* Private to the programs (not pinned): struct ll_cc_cnp_pending per CPU. */
#define LL_CC_MAP_SCRATCH "ll_cc_scratch"

enum ll_cc_algo {
	LL_CC_OFF = 0,		/* pass everything, keep no state */
	LL_CC_PCN = 1,
	LL_CC_DCQCN = 2,
	LL_CC_ALGO_COUNT,
};

/* ll_cc_config.roles: what this host does (both by default). */
#define LL_CC_ROLE_NP 0x01	/* receiver: count, send CNPs */
#define LL_CC_ROLE_RP 0x02	/* sender: take CNPs, pace */

struct ll_cc_config {
	__u8 algo;		/* enum ll_cc_algo */
	__u8 roles;		/* LL_CC_ROLE_* */
	__u8 cnp_prio;		/* skb->priority of the CNPs sent */
	__u8 cnp_dscp;		/* their DSCP, 0..63 */
	__u32 reserved;		/* 0 */
	/* when algo == LL_CC_PCN; 56 octets, 4 of them its tail padding */
	struct ll_pcn_params pcn;
	struct ll_dcqcn_params dcqcn;	/* when algo == LL_CC_DCQCN */
	/*
	 * The RP's horizon: a data packet whose departure would be more than
	 * this far ahead is refused (TC_ACT_SHOT: the socket sees ENOBUFS,
	 * as from a full queue) and does not advance the flow's clock. It
	 * bounds what a flow has stamped ahead, so that a rate cut acts
	 * within it, not after a socket buffer's worth of packets stamped
	 * at the old rate. 0: no horizon.
	 */
	__u64 rp_horizon_ns;
};

/*
 * A flow: IPv4 addresses and UDP ports in network byte order, as in the
 * data packet (saddr is the data's sender for both maps).
 */
struct ll_cc_flow_key {
	__be32 saddr;
	__be32 daddr;
	__be16 sport;
	__be16 dport;
};

/*
 * Flow entries are guarded by `busy`, a try-lock word the programs claim
 * with an atomic compare-and-swap (0 -> 1) and release (-> 0). Not a
 * struct bpf_spin_lock: the kernel refuses one in an LRU_HASH value
 * (EOPNOTSUPP at map creation, every version), and the verifier forbids
 * calls (the core's functions) while one is held. Userspace writes 0 and
 * reads without BPF_F_LOCK (a value may be mid-update: fields are read
 * one by one, each consistent by itself).
 */

/* A flow at the receiver (NP). */
struct ll_cc_np {
	__u32 busy;			/* guards everything below */
	__u16 cnp_seq;			/* the next CNP's sequence number */
	__u16 reserved;
	struct ll_pcn_np_flow pcn;
	struct ll_dcqcn_np_flow dcqcn;
	__u64 pkts;			/* data packets (GRO segments) */
	__u64 bytes;
	__u64 ce_pkts;
	__u64 cnps;			/* CNPs due (and cloned) */
	__u64 cnps_congested;		/* of which congested (PCN CE = 1) */
	__u64 last_ns;			/* the last packet's arrival */
	__u32 last_rec_rate_mbps;	/* PCN: the last CNP's RecRate */
	__u32 reserved2;
};

/* A flow at the sender (RP). */
struct ll_cc_rp {
	__u32 busy;			/* guards everything below */
	__u8 algo;			/* the algorithm its state is of */
	__u8 seq_valid;			/* last_seq holds a CNP's */
	__u16 last_seq;			/* PCN: the last CNP's sequence */
	__u64 next_tx_ns;		/* the pacer: earliest departure */
	__u64 rate_kbps;		/* the rate paced at (a copy) */
	struct ll_pcn_rp pcn;
	struct ll_dcqcn_rp dcqcn;
	__u64 pkts;			/* data packets paced */
	__u64 bytes;
	__u64 delayed_pkts;		/* paced into the future */
	__u64 cnps;			/* CNPs applied */
	__u64 cnps_stale;		/* PCN: sequence not newer: ignored */
	__u64 last_ns;			/* the last packet or CNP */
	__u64 refused_pkts;		/* beyond rp_horizon_ns: refused */
};

/* Per-CPU totals (summed by userspace). */
struct ll_cc_stats {
	__u64 np_pkts;			/* RoCEv2 data packets received */
	__u64 np_ce_pkts;
	__u64 np_not_ect_pkts;
	__u64 cnps_sent;		/* clones turned into CNPs at egress */
	__u64 cnp_clone_failed;		/* bpf_clone_redirect() refused */
	__u64 cnp_build_failed;		/* a clone that could not be rewritten */
	__u64 cnps_received;		/* parsed and matched to a flow */
	__u64 cnp_unknown_flow;		/* no such flow sent here: forged or
					 * evicted; ignored
					 */
	__u64 cnp_stale;		/* PCN: an old sequence number */
	__u64 cnp_ecn_mismatch;		/* IP ECN disagreed with the flag */
	__u64 cnp_parse_error[LL_CNP_RESULT_COUNT];	/* [LL_CNP_OK] 0 */
	__u64 rp_pkts;			/* data packets paced */
	__u64 rp_delayed_pkts;		/* given a departure in the future */
	__u64 flow_alloc_failed;	/* a new flow's map update failed */
	__u64 not_ipv4;			/* RoCEv2 over IPv6: passed, no CC */
	__u64 truncated;		/* UDP 4791 too short for a BTH */
	__u64 rp_refused_pkts;		/* beyond the horizon: refused */
};

/*
 * The CNP that ll_cc_ingress decided on, for the clone it hands to the
 * egress of the same port (bpf_clone_redirect() transmits the clone before
 * it returns, on the same CPU: a per-CPU slot is enough). key is the data
 * flow's; ll_cc_egress builds the CNP only for a clone of that flow.
 */
struct ll_cc_cnp_pending {
	struct ll_cc_flow_key key;
	struct ll_cnp cnp;		/* 20 octets */
	__u32 valid;			/* 1 from ingress until egress takes it */
};

#endif /* LOSSLESS_CC_H */
