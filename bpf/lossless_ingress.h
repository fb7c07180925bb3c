/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Map layouts shared by the TC ingress program (lossless_ingress.bpf.c) and
 * its userspace (daemon/ingress: the loader library, lossless-ingress,
 * later losslessd). Plain __u* types from <linux/types.h>, fixed sizes, no
 * implicit padding: the same bytes on both sides.
 *
 * Maps (all shared by every port the program is attached to; pinned by the
 * loader as <pin dir>/<map name>, default pin dir /sys/fs/bpf/lossless):
 *
 *   ll_port_cfg    HASH         __u32 ifindex -> struct ll_ingress_port_cfg
 *                  A port without an entry uses the defaults: mode
 *                  LL_INGRESS_MODE_PCP_DSCP, default priority 0 (that is,
 *                  an all-zero entry).
 *   ll_dscp_map    ARRAY[64]    __u32 dscp -> struct ll_ingress_dscp_entry
 *                  One global DSCP -> priority map for all ports (like a
 *                  switch's single DSCP-to-TC table). An entry with
 *                  valid == 0 means "default": priority = dscp >> 3 (the
 *                  class selector), so a freshly created map already
 *                  classifies by class without any userspace help.
 *   ll_prio_stats  PERCPU_HASH  __u32 ifindex -> struct ll_ingress_prio_stats
 *                  Data frames and bytes per (port, priority it was given).
 *   ll_ctrl_stats  PERCPU_HASH  __u32 ifindex -> struct ll_ingress_ctrl_stats
 *                  control frames (ctrl.h's kinds) per port.
 *   ll_portfc_rx   HASH         __u32 ifindex -> struct ll_ingress_portfc
 *                  A BCube port's role for PortFC's frames (docs/PORTFC.md):
 *                  which kinds it takes (portfc.h's ll_portfc_rx_check())
 *                  and, at a server, the ports it relays class B to (as
 *                  PORTFC_R, cloned to their egress). A PortFC frame on a
 *                  port without an entry is dropped and counted.
 *
 * ifindex values are per network namespace: ports of different namespaces
 * that may share an ifindex need separate pin directories (one program
 * instance and map set per switch/namespace).
 */
#ifndef LOSSLESS_INGRESS_H
#define LOSSLESS_INGRESS_H

#include <linux/types.h>

#ifdef __cplusplus
extern "C" {	/* the core is C: its functions need C linkage */
#endif
#include "lossless.h"	/* kernel/uapi: LOSSLESS_PRIOMAP_LEN */
#include "ctrl.h"	/* kernel/core: LL_PARSE_RESULT_COUNT, kinds */
#include "portfc.h"	/* kernel/core: PortFC's roles and radix */
#ifdef __cplusplus
}
#endif

/*
 * skb->priority values the program assigns: 0..LL_INGRESS_PRIOS-1, the
 * range the lossless qdisc's priomap covers. PCP yields 0..7.
 */
#define LL_INGRESS_PRIOS LOSSLESS_PRIOMAP_LEN
#define LL_INGRESS_DSCP_COUNT 64
#define LL_INGRESS_MAX_PORTS 1024
/* Inline VLAN tags looked through (802.1ad outer + 802.1Q inner). */
#define LL_INGRESS_MAX_VLAN_TAGS 2

/* Map names (also the pin file names). At most 15 characters. */
#define LL_INGRESS_MAP_PORT_CFG "ll_port_cfg"
#define LL_INGRESS_MAP_DSCP "ll_dscp_map"
#define LL_INGRESS_MAP_PRIO_STATS "ll_prio_stats"
#define LL_INGRESS_MAP_CTRL_STATS "ll_ctrl_stats"
#define LL_INGRESS_MAP_PORTFC "ll_portfc_rx"
/* A server relays to its other k ports: k <= 3 (portfc.h). */
#define LL_INGRESS_PORTFC_RELAYS 3

/* How a data frame gets its priority. Zero is the default. */
enum ll_ingress_mode {
	/* VLAN PCP if tagged, else IPv4/IPv6 DSCP, else default_prio */
	LL_INGRESS_MODE_PCP_DSCP = 0,
	/* VLAN PCP if tagged, else default_prio */
	LL_INGRESS_MODE_PCP = 1,
	/* IPv4/IPv6 DSCP (also inside VLAN tags), else default_prio */
	LL_INGRESS_MODE_DSCP = 2,
	LL_INGRESS_MODE_COUNT,
};

struct ll_ingress_port_cfg {
	__u8 mode;		/* enum ll_ingress_mode; unknown = PCP_DSCP */
	__u8 default_prio;	/* < LL_INGRESS_PRIOS, else 0 */
	__u8 reserved[6];	/* 0 */
};

struct ll_ingress_portfc {
	__u8 role;		/* LL_PORTFC_ROLE_SERVER or _SWITCH */
	__u8 n;			/* the BCube radix */
	__u8 reserved[2];	/* 0 */
	__u32 relay[LL_INGRESS_PORTFC_RELAYS];	/* ifindexes; 0: none */
};

struct ll_ingress_dscp_entry {
	__u8 prio;		/* < LL_INGRESS_PRIOS, else the default */
	__u8 valid;		/* 0: default (dscp >> 3) */
	__u8 reserved[2];	/* 0 */
};

struct ll_ingress_counter {
	__u64 packets;
	__u64 bytes;		/* skb->len: from the DA, no FCS, no tag
				 * the device already stripped
				 */
};

struct ll_ingress_prio_stats {
	struct ll_ingress_counter prio[LL_INGRESS_PRIOS];
};

struct ll_ingress_ctrl_stats {
	/*
	 * Valid frames handed to the qdisc, by kind (enum ll_ctrl_kind of
	 * the core's table, ctrl.h; [LL_CTRL_NONE] stays 0).
	 */
	__u64 frames[LL_CTRL_KIND_COUNT];
	/*
	 * Dropped frames by the core's parse result (index
	 * enum ll_parse_result; [LL_PARSE_OK] stays 0). A VLAN-tagged
	 * 0x8808 counts as LL_PARSE_NOT_MAC_CTRL, whether the tag is inline
	 * or was stripped into skb->vlan_tci.
	 */
	__u64 parse_error[LL_PARSE_RESULT_COUNT];
	__u64 rewrite_failed;	/* valid, but the EtherType rewrite failed */
	__u64 redirect_failed;	/* valid, but bpf_redirect() refused */
	/* PortFC's frames (ll_portfc_rx): refused (a kind this port's role
	 * never hears, a slot beyond n - 2, no entry), relayed (one per copy
	 * sent), copies the kernel refused to send.
	 */
	__u64 portfc_refused;
	__u64 portfc_relayed;
	__u64 portfc_relay_failed;
};

#endif /* LOSSLESS_INGRESS_H */
