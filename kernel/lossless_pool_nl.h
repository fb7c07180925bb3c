/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink side of a pool member (lossless_pool.h): the pool's options
 * within TCA_OPTIONS (the scheme nested with a policy of its own, as
 * sch_taprio and sch_ets nest theirs), their dump, the pool's part of the
 * qdisc xstats. The top-level policy stays the qdisc's, which names the
 * nested policies exported here.
 */
#ifndef LOSSLESS_POOL_NL_H
#define LOSSLESS_POOL_NL_H

#include <net/netlink.h>

#include "lossless_pool.h"
#include "uapi/lossless.h"

extern struct nla_policy ll_scheme_policy[TCA_LOSSLESS_SCHEME_MAX + 1];
extern struct nla_policy ll_mode_policy[TCA_LOSSLESS_MODE_MAX + 1];

/* Builds the schemes' netlink policies from their descriptors; at load. */
int ll_pool_nl_init(void);

/*
 * Join a pool (init: the qdisc is being added) or change the pool's and
 * this port's parameters, from the parsed TCA_OPTIONS tb, the port's
 * rate and its shaper's catch-up burst (the upstream's is taken to be
 * like it). Either everything applies or nothing does. Without a pool,
 * refuses the options that need one. RTNL.
 */
int ll_kport_change(struct ll_kport *port, struct nlattr **tb, u64 rate,
		    u32 shaper_burst, bool init, struct netlink_ext_ack *extack);

/*
 * After a change: on a veth, warn (extack, the change succeeded) when
 * net.core.netdev_max_backlog is below the pool's backlog need. RTNL.
 */
void ll_kport_check_backlog(struct ll_kport *port,
			    struct netlink_ext_ack *extack);

/* The pool's options within TCA_OPTIONS. Pool members only. */
int ll_kport_dump(struct ll_kport *port, struct sk_buff *skb);

/*
 * The pool section of the qdisc xstats: the pool, and this port as an
 * ingress (the upstream it pauses). Pool members only, qdisc lock held.
 */
void ll_kport_xstats(struct ll_kport *port, struct tc_lossless_xstats *st,
		     u64 now);

#endif /* LOSSLESS_POOL_NL_H */
