/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Map layouts of PortFC's egress classifier (lossless_portfc.bpf.c;
 * docs/PORTFC.md) and its userspace. Plain __u* types, fixed sizes, no
 * implicit padding: the same bytes on both sides.
 *
 * One TC program, ll_portfc_classify, on the clsact egress of every BCube
 * port of a server and of every member port of a BCube switch's bridge.
 * It puts each packet in the queue PortFC's plan gives it (kernel/core/
 * portfc.h: ll_portfc_classify_switch() or ll_portfc_classify_server(),
 * the same code the tests and the daemon run) by setting skb->priority to
 * MAJOR:QUEUE+1, which the port's `lossless` qdisc (handle MAJOR:) takes
 * as its class. The high-priority queue HQ (0) holds ARP, the control
 * frames and RoCEv2's ACK, NAK and CNP (BTH opcodes 0x11, 0x12, 0x81).
 * It passes every packet on (TC_ACT_UNSPEC) to the hook's next filter.
 *
 * Maps (shared by every port of a network namespace):
 *
 *   ll_portfc_port   HASH  ifindex -> struct ll_portfc_port: the port's
 *                    role and BCube position. A port without an entry
 *                    is not a BCube port: its packets pass untouched.
 *   ll_portfc_addr   HASH  IPv4 address (network order) -> server id.
 *                    A destination without an entry is counted (unknown)
 *                    and goes to a queue that is never paused.
 *   ll_portfc_stats  PERCPU_ARRAY[1] 0 -> struct ll_portfc_stats
 */
#ifndef LOSSLESS_PORTFC_H
#define LOSSLESS_PORTFC_H

#include <linux/types.h>

#ifdef __cplusplus
extern "C" {	/* the core is C */
#endif
#include "portfc.h"	/* kernel/core: LL_PORTFC_MAX_QUEUES, roles */
#ifdef __cplusplus
}
#endif

#define LL_PORTFC_MAP_PORT "ll_portfc_port"
#define LL_PORTFC_MAP_ADDR "ll_portfc_addr"
#define LL_PORTFC_MAP_STATS "ll_portfc_stats"
#define LL_PORTFC_MAX_PORTS 256
#define LL_PORTFC_MAX_ADDRS 4096

/*
 * A BCube port. role: LL_PORTFC_ROLE_SERVER or _SWITCH. n, k: the BCube.
 * level: a server's port l (the level of the switch it is cabled to); a
 * switch's level. node: a server's id; for a switch (k = 1) its fixed
 * digit w. major: the qdisc's handle major (1 for handle 1:).
 */
struct ll_portfc_port {
	__u8 role;
	__u8 n;
	__u8 k;
	__u8 level;
	__u32 node;
	__u16 major;
	__u16 pad0;
	__u32 pad1;
};

struct ll_portfc_stats {
	__u64 packets;		/* classified on a BCube port */
	__u64 hq;		/* of those, to HQ */
	__u64 relayed;		/* a server forwarded them: RQ */
	__u64 unknown;		/* destination without a BCube address */
	__u64 self;		/* for the sending server itself */
	__u64 misrouted;	/* out of a port no shortest path uses */
	__u64 bad_port;		/* an entry out of range: passed untouched */
	__u64 queue[LL_PORTFC_MAX_QUEUES];	/* per queue */
};

#endif /* LOSSLESS_PORTFC_H */
