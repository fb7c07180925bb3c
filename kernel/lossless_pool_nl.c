// SPDX-License-Identifier: GPL-2.0
/* The netlink side of a pool member: see lossless_pool_nl.h. */

#include <linux/bitops.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <net/sch_generic.h>

#include "core/mode.h"
#include "core/scheme.h"
#include "lossless_pool_nl.h"

/*
 * The scheme nest's policy, built by ll_pool_nl_init() from the schemes'
 * descriptors (scheme.h): a scheme's nest holds its parameter rows in
 * order, attribute i + 1 for row i, each a u64 in 0 .. the row's max (0:
 * its default; a range the core's check narrows) or, for a row of flags,
 * within its mask. Written once, before the qdisc registers.
 */
#define LL_SCHEME_NEST_MAX 16	/* attributes of a scheme's nest, its pad too */

static struct netlink_range_validation
	ll_scheme_ranges[LL_SCHEME_CORE_COUNT][LL_SCHEME_NEST_MAX + 1];
static struct nla_policy
	ll_scheme_nest_policy[LL_SCHEME_CORE_COUNT][LL_SCHEME_NEST_MAX + 1];
/* "<name> parameters given for another scheme": extack keeps the pointer. */
static char ll_scheme_other_msg[LL_SCHEME_CORE_COUNT][64];

struct nla_policy ll_scheme_policy[TCA_LOSSLESS_SCHEME_MAX + 1] = {
	[TCA_LOSSLESS_SCHEME_ID] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_SCHEME_MAX),
};

/* The port modes' nests (mode.h), built the same way from their rows. */
static struct netlink_range_validation
	ll_mode_ranges[LL_MODE_COUNT][LL_SCHEME_NEST_MAX + 1];
static struct nla_policy
	ll_mode_nest_policy[LL_MODE_COUNT][LL_SCHEME_NEST_MAX + 1];
static char ll_mode_other_msg[LL_MODE_COUNT][64];

struct nla_policy ll_mode_policy[TCA_LOSSLESS_MODE_MAX + 1] = {
	[TCA_LOSSLESS_MODE_ID] = NLA_POLICY_MAX(NLA_U8, LOSSLESS_MODE_MAX),
};

/*
 * A nest's policy from its parameter rows (row i is attribute i + 1 and
 * word i): a u64 in 0 .. the row's max (0: its default) or, for a row of
 * flags, within its mask.
 */
static int ll_rows_policy(const struct ll_param *rows, u32 n, u16 nest,
			  u16 pad, struct nla_policy *pol,
			  struct netlink_range_validation *ranges)
{
	u32 i;

	if (WARN_ON(n >= LL_SCHEME_NEST_MAX || !nest || pad != n + 1))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct ll_param *r = &rows[i];

		if (WARN_ON(r->word != (int)i || r->nl_attr != i + 1 ||
			    r->nl_nest != nest))
			return -EINVAL;
		if (r->unit == LL_PARAM_FLAGS) {
			/* mask is const in struct nla_policy. */
			const struct nla_policy m =
				NLA_POLICY_MASK(NLA_U64, (u32)r->max);

			if (WARN_ON(r->max > U32_MAX))
				return -EINVAL;
			memcpy(&pol[i + 1], &m, sizeof(m));
		} else {
			pol[i + 1].type = NLA_U64;
			ranges[i + 1].max = r->max;
			pol[i + 1].validation_type = NLA_VALIDATE_RANGE_PTR;
			pol[i + 1].range = &ranges[i + 1];
		}
	}
	return 0;
}

static int ll_mode_nl_init(void)
{
	const struct ll_mode_desc *d;
	u32 id;

	BUILD_BUG_ON((int)__LOSSLESS_MODE_COUNT != (int)LL_MODE_COUNT);
	BUILD_BUG_ON((int)LOSSLESS_MODE_STATS != (int)LL_MODE_STATS);
	BUILD_BUG_ON((int)LOSSLESS_MODE_HIST != (int)LL_MODE_HIST);
	BUILD_BUG_ON((int)LOSSLESS_MODE_PRIO_STATS != (int)LL_MODE_PRIO_STATS);
	for (id = 0; id < LL_MODE_COUNT; id++) {
		d = ll_mode_lookup(id);
		if (!d || !d->n_params)
			continue;
		if (WARN_ON(d->nl_nest > TCA_LOSSLESS_MODE_MAX) ||
		    ll_rows_policy(d->params, d->n_params, d->nl_nest,
				   d->nl_pad, ll_mode_nest_policy[id],
				   ll_mode_ranges[id]))
			return -EINVAL;
		ll_mode_policy[d->nl_nest].type = NLA_NESTED;
		ll_mode_policy[d->nl_nest].nested_policy = ll_mode_nest_policy[id];
		ll_mode_policy[d->nl_nest].len = d->n_params + 1;
		snprintf(ll_mode_other_msg[id], sizeof(ll_mode_other_msg[id]),
			 "%s parameters given for another port mode", d->name);
	}
	return 0;
}

int ll_pool_nl_init(void)
{
	const struct ll_scheme_desc *d;
	u32 id;

	BUILD_BUG_ON((int)__LOSSLESS_SCHEME_COUNT != (int)LL_SCHEME_COUNT);
	/* The plane's scheme block is the core's parameters word for word. */
	BUILD_BUG_ON(sizeof_field(struct lossless_plane_scheme, p) !=
		     sizeof(union ll_scheme_params));
	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		d = ll_scheme_selectable(id);
		if (!d || !d->n_params)
			continue;
		if (WARN_ON(d->nl_nest > TCA_LOSSLESS_SCHEME_MAX) ||
		    ll_rows_policy(d->params, d->n_params, d->nl_nest,
				   d->nl_pad, ll_scheme_nest_policy[id],
				   ll_scheme_ranges[id]))
			return -EINVAL;
		ll_scheme_policy[d->nl_nest].type = NLA_NESTED;
		ll_scheme_policy[d->nl_nest].nested_policy =
			ll_scheme_nest_policy[id];
		ll_scheme_policy[d->nl_nest].len = d->n_params + 1;
		snprintf(ll_scheme_other_msg[id], sizeof(ll_scheme_other_msg[id]),
			 "%s parameters given for another scheme", d->name);
	}
	return ll_mode_nl_init();
}

static int ll_get_alpha(struct nlattr *attr, struct ll_mmu_alpha *alpha,
			struct netlink_ext_ack *extack)
{
	if (ll_alpha_from_u32(nla_get_u32(attr), alpha)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "alpha must be num << 8 | shift with num 1..65535 and shift 0..32");
		return -EINVAL;
	}
	return 0;
}

/*
 * A descriptor's parameter nest (a scheme's or a mode's, built by
 * ll_rows_policy()) into raw, refused with other_msg unless it is the
 * descriptor chosen in the same message.
 */
static int ll_rows_parse(struct nlattr *nest, bool chosen,
			 const char *other_msg, u32 n,
			 const struct nla_policy *pol, u64 *raw,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *pt[LL_SCHEME_NEST_MAX + 1];
	u32 i;
	int err;

	if (!chosen) {
		NL_SET_BAD_ATTR(extack, nest);
		if (extack)
			extack->_msg = other_msg;
		return -EINVAL;
	}
	err = nla_parse_nested(pt, n + 1, nest, pol, extack);
	if (err)
		return err;
	for (i = 0; i < n; i++)
		if (pt[i + 1])
			raw[i] = nla_get_u64(pt[i + 1]);
	return 0;
}

/* The nest of raw's n parameters (attribute i + 1 is word i). */
static int ll_rows_dump(struct sk_buff *skb, u16 nest, const u64 *raw, u32 n,
			u16 pad)
{
	struct nlattr *params = nla_nest_start_noflag(skb, nest);
	u32 i;

	if (!params)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, i + 1, raw[i], pad))
			return -EMSGSIZE;
	nla_nest_end(skb, params);
	return 0;
}

/* The scheme and its parameters (a whole new set: defaults for those not
 * given) into cfg.
 */
static int ll_scheme_options(struct nlattr *attr, struct ll_mmu_config *cfg,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_LOSSLESS_SCHEME_MAX + 1];
	const struct ll_scheme_desc *d;
	u32 id;
	int err;

	err = nla_parse_nested(tb, TCA_LOSSLESS_SCHEME_MAX, attr,
			       ll_scheme_policy, extack);
	if (err)
		return err;
	if (!tb[TCA_LOSSLESS_SCHEME_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "scheme needs its name (id)");
		return -EINVAL;
	}
	cfg->scheme = nla_get_u8(tb[TCA_LOSSLESS_SCHEME_ID]);
	memset(&cfg->scheme_params, 0, sizeof(cfg->scheme_params));
	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		d = ll_scheme_selectable(id);
		if (!d || !d->n_params || !tb[d->nl_nest])
			continue;
		err = ll_rows_parse(tb[d->nl_nest], id == cfg->scheme,
				    ll_scheme_other_msg[id], d->n_params,
				    ll_scheme_nest_policy[id],
				    cfg->scheme_params.raw, extack);
		if (err)
			return err;
	}
	return 0;
}

/* Pool-wide options into cfg; true if any was given. */
static int ll_pool_options(struct nlattr **tb, struct ll_mmu_config *cfg,
			   bool *given, struct netlink_ext_ack *extack)
{
	int err;

	*given = false;
	if (tb[TCA_LOSSLESS_SCHEME]) {
		err = ll_scheme_options(tb[TCA_LOSSLESS_SCHEME], cfg, extack);
		if (err)
			return err;
		*given = true;
	}
	if (tb[TCA_LOSSLESS_POOL_BYTES]) {
		cfg->total_bytes = nla_get_u64(tb[TCA_LOSSLESS_POOL_BYTES]);
		*given = true;
	}
	if (tb[TCA_LOSSLESS_ALPHA]) {
		err = ll_get_alpha(tb[TCA_LOSSLESS_ALPHA], &cfg->alpha, extack);
		if (err)
			return err;
		*given = true;
	}
	if (tb[TCA_LOSSLESS_EGRESS_ALPHA]) {
		err = ll_get_alpha(tb[TCA_LOSSLESS_EGRESS_ALPHA],
				   &cfg->egress_alpha, extack);
		if (err)
			return err;
		*given = true;
	}
	if (tb[TCA_LOSSLESS_LOSSLESS_PRIOS]) {
		cfg->lossless_mask = nla_get_u8(tb[TCA_LOSSLESS_LOSSLESS_PRIOS]);
		*given = true;
	}
	if (tb[TCA_LOSSLESS_RESERVED_BYTES]) {
		cfg->reserved_bytes = nla_get_u32(tb[TCA_LOSSLESS_RESERVED_BYTES]);
		*given = true;
	}
	if (tb[TCA_LOSSLESS_XON_OFFSET_BYTES]) {
		cfg->xon_offset_bytes = nla_get_u32(tb[TCA_LOSSLESS_XON_OFFSET_BYTES]);
		*given = true;
	}
	if (tb[TCA_LOSSLESS_ECN_KMIN_BYTES] || tb[TCA_LOSSLESS_ECN_KMAX_BYTES] ||
	    tb[TCA_LOSSLESS_ECN_PMAX]) {
		if (!tb[TCA_LOSSLESS_ECN_KMIN_BYTES] || !tb[TCA_LOSSLESS_ECN_KMAX_BYTES] ||
		    !tb[TCA_LOSSLESS_ECN_PMAX]) {
			NL_SET_ERR_MSG_MOD(extack, "ecn needs kmin, kmax and pmax together");
			return -EINVAL;
		}
		cfg->ecn.kmin_bytes = nla_get_u32(tb[TCA_LOSSLESS_ECN_KMIN_BYTES]);
		cfg->ecn.kmax_bytes = nla_get_u32(tb[TCA_LOSSLESS_ECN_KMAX_BYTES]);
		cfg->ecn.pmax = nla_get_u32(tb[TCA_LOSSLESS_ECN_PMAX]);
		cfg->ecn.enabled = cfg->ecn.kmax_bytes || cfg->ecn.pmax;
		*given = true;
	}
	if (tb[TCA_LOSSLESS_ECN_MODE]) {
		cfg->ecn_mode = nla_get_u8(tb[TCA_LOSSLESS_ECN_MODE]);
		*given = true;
	}
	if (tb[TCA_LOSSLESS_NP_ECN_K_BYTES]) {
		cfg->np_ecn_k_bytes = nla_get_u32(tb[TCA_LOSSLESS_NP_ECN_K_BYTES]);
		*given = true;
	}
	if (*given) {
		enum ll_mmu_err e = ll_mmu_config_check(cfg);

		if (e != LL_MMU_OK) {
			switch (e) {
			case LL_MMU_ERR_TOTAL:
				NL_SET_ERR_MSG_MOD(extack, "buffer must be 1 byte .. 1 TiB");
				break;
			case LL_MMU_ERR_RESERVED:
				NL_SET_ERR_MSG_MOD(extack, "reserved leaves no shared buffer");
				break;
			case LL_MMU_ERR_XON:
				NL_SET_ERR_MSG_MOD(extack, "xon-offset larger than the buffer");
				break;
			case LL_MMU_ERR_ECN:
				if (cfg->ecn_mode && cfg->ecn.enabled)
					NL_SET_ERR_MSG_MOD(extack,
							   "ecn-mode np-ecn marks without RED: give ecn off with it");
				else
					NL_SET_ERR_MSG_MOD(extack, "ecn needs kmin < kmax and pmax <= 1");
				break;
			case LL_MMU_ERR_SCHEME_PARAMS:
				/* The core's reason, naming tc's keyword: a
				 * static string, as ll_err_needs_pool() sets.
				 */
				if (extack)
					extack->_msg = ll_scheme_check_msg(cfg) ?:
						"the scheme's parameters are invalid";
				break;
			default:
				NL_SET_ERR_MSG_MOD(extack, "invalid pool configuration");
			}
			return -EINVAL;
		}
	}
	return 0;
}

/* The port's mode and its parameters (a whole new set) into pc. */
static int ll_mode_options(struct nlattr *attr, struct ll_mmu_port_config *pc,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[TCA_LOSSLESS_MODE_MAX + 1];
	const struct ll_mode_desc *d;
	u32 id;
	int err;

	err = nla_parse_nested(tb, TCA_LOSSLESS_MODE_MAX, attr, ll_mode_policy,
			       extack);
	if (err)
		return err;
	if (!tb[TCA_LOSSLESS_MODE_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "mode needs its name (id)");
		return -EINVAL;
	}
	pc->mode = nla_get_u8(tb[TCA_LOSSLESS_MODE_ID]);
	memset(&pc->mode_params, 0, sizeof(pc->mode_params));
	for (id = 0; id < LL_MODE_COUNT; id++) {
		d = ll_mode_lookup(id);
		if (!d || !d->n_params || !tb[d->nl_nest])
			continue;
		err = ll_rows_parse(tb[d->nl_nest], id == pc->mode,
				    ll_mode_other_msg[id], d->n_params,
				    ll_mode_nest_policy[id], pc->mode_params.raw,
				    extack);
		if (err)
			return err;
	}
	return 0;
}

/* This port's options (rate, delays, headroom, mode) over pc. */
static int ll_port_options(struct nlattr **tb, u64 rate, u32 shaper_burst,
			   struct ll_mmu_port_config *pc,
			   struct netlink_ext_ack *extack)
{
	pc->rate_bps = rate;
	/* The upstream's shaper is taken to be like ours (headroom term 9). */
	pc->shaper_burst_bytes = shaper_burst;
	if (tb[TCA_LOSSLESS_CABLE_DELAY_NS])
		pc->cable_delay_ns = nla_get_u64(tb[TCA_LOSSLESS_CABLE_DELAY_NS]);
	if (tb[TCA_LOSSLESS_SW_DELAY_NS])
		pc->sw_response_ns = nla_get_u64(tb[TCA_LOSSLESS_SW_DELAY_NS]);
	if (tb[TCA_LOSSLESS_HEADROOM_BYTES])
		pc->headroom_bytes = nla_get_u32(tb[TCA_LOSSLESS_HEADROOM_BYTES]);
	if (tb[TCA_LOSSLESS_SCHEME_PORT])
		pc->scheme_port = nla_get_u8(tb[TCA_LOSSLESS_SCHEME_PORT]) + 1;
	if (tb[TCA_LOSSLESS_MODE])
		return ll_mode_options(tb[TCA_LOSSLESS_MODE], pc, extack);
	return 0;
}

/* Why the core refuses pc's mode on a pool of mtu, for the user. */
static int ll_port_mode_check(const struct ll_mmu_port_config *pc, u32 mtu,
			      struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	const char *msg = ll_mode_check(pc->mode, &pc->mode_params,
					pc->rate_bps, mtu);

	if (!msg)
		return 0;
	NL_SET_BAD_ATTR(extack, attr);
	if (extack)
		extack->_msg = msg;	/* the core's, static */
	return -EINVAL;
}

/* The refusal of an option that needs a pool, naming it. 6.1 has no
 * formatted extack messages (LL_ERR): one literal per attribute, set as
 * the core sets an NLA_REJECT attribute's reject_message.
 */
#define LL_NEEDS_POOL(opt) KBUILD_MODNAME ": option \"" opt "\" needs \"pool NAME\""
static const char * const ll_needs_pool_msg[TCA_LOSSLESS_MAX + 1] = {
	[TCA_LOSSLESS_POOL_BYTES] = LL_NEEDS_POOL("buffer"),
	[TCA_LOSSLESS_ALPHA] = LL_NEEDS_POOL("alpha"),
	[TCA_LOSSLESS_EGRESS_ALPHA] = LL_NEEDS_POOL("egress-alpha"),
	[TCA_LOSSLESS_LOSSLESS_PRIOS] = LL_NEEDS_POOL("lossless-prios"),
	[TCA_LOSSLESS_RESERVED_BYTES] = LL_NEEDS_POOL("reserved"),
	[TCA_LOSSLESS_XON_OFFSET_BYTES] = LL_NEEDS_POOL("xon-offset"),
	[TCA_LOSSLESS_CABLE_DELAY_NS] = LL_NEEDS_POOL("cable-delay"),
	[TCA_LOSSLESS_SW_DELAY_NS] = LL_NEEDS_POOL("sw-delay"),
	[TCA_LOSSLESS_HEADROOM_BYTES] = LL_NEEDS_POOL("headroom"),
	[TCA_LOSSLESS_SCHEME_PORT] = LL_NEEDS_POOL("scheme-port"),
	[TCA_LOSSLESS_ECN_KMIN_BYTES] = LL_NEEDS_POOL("ecn"),
	[TCA_LOSSLESS_ECN_KMAX_BYTES] = LL_NEEDS_POOL("ecn"),
	[TCA_LOSSLESS_ECN_PMAX] = LL_NEEDS_POOL("ecn"),
	[TCA_LOSSLESS_ECN_MODE] = LL_NEEDS_POOL("ecn-mode"),
	[TCA_LOSSLESS_NP_ECN_K_BYTES] = LL_NEEDS_POOL("np-ecn-k"),
	[TCA_LOSSLESS_PLANE_FD] = LL_NEEDS_POOL("plane"),
	[TCA_LOSSLESS_SCHEME] = LL_NEEDS_POOL("scheme"),
	[TCA_LOSSLESS_MODE] = LL_NEEDS_POOL("mode"),
};

static void ll_err_needs_pool(struct netlink_ext_ack *extack,
			      const struct nlattr *attr, u32 type)
{
	const char *msg = type <= TCA_LOSSLESS_MAX ? ll_needs_pool_msg[type] : NULL;

	NL_SET_BAD_ATTR(extack, attr);
	if (extack)
		extack->_msg = msg ?: LL_NEEDS_POOL("this option");
}

static bool ll_dev_is_veth(const struct net_device *dev)
{
	return dev->rtnl_link_ops && !strcmp(dev->rtnl_link_ops->kind, "veth");
}

void ll_kport_check_backlog(struct ll_kport *port,
			    struct netlink_ext_ack *extack)
{
	struct ll_kpool *kp = port->pool;
	u32 need;

	if (!kp || !ll_dev_is_veth(qdisc_dev(port->sch)))
		return;
	spin_lock_bh(&kp->lock);
	need = ll_kpool_backlog_need(kp);
	spin_unlock_bh(&kp->lock);
	/* Success with a warning: tc prints it. */
	if (need > (u32)READ_ONCE(netdev_max_backlog))
		NL_SET_ERR_MSG_MOD(extack,
				   "net.core.netdev_max_backlog is below the pool's backlog-need (tc -s qdisc show): veth may drop lossless frames before the switch sees them (docs/MMU.md)");
}

/* SPFC without a window: four round trips of this port (core/scheme.h). */
static void ll_spfc_window_default(struct ll_mmu_config *cfg,
				   const struct ll_mmu_port_config *pc)
{
	if (cfg->scheme == LL_SCHEME_SPFC && !cfg->scheme_params.spfc.tc_ns)
		cfg->scheme_params.spfc.tc_ns =
			ll_spfc_window_for_rtt_ns(2 * (pc->cable_delay_ns +
						       pc->sw_response_ns));
}

/* Join a pool (init) or change the pool's and this port's parameters.
 * Either everything applies or nothing does.
 */
int ll_kport_change(struct ll_kport *port, struct nlattr **tb, u64 rate,
		    u32 shaper_burst, bool init, struct netlink_ext_ack *extack)
{
	struct net_device *dev = qdisc_dev(port->sch);
	struct ll_mmu_port_config pc = port->cfg;
	struct ll_kpool *kp = port->pool;
	struct ll_kplane *plane = NULL;
	struct ll_mmu_config cfg, old_cfg;
	enum ll_mmu_err e = LL_MMU_OK;
	bool pool_given, created, port_failed = false;
	const char *scheme_msg = NULL;
	int err;

	err = ll_port_options(tb, rate, shaper_burst, &pc, extack);
	if (err)
		return err;
	if (!kp) {
		if (!tb[TCA_LOSSLESS_POOL]) {
			u32 a;

			for (a = TCA_LOSSLESS_POOL_BYTES; a <= TCA_LOSSLESS_MAX; a++) {
				if (tb[a] && ll_needs_pool_msg[a]) {
					ll_err_needs_pool(extack, tb[a], a);
					return -EINVAL;
				}
			}
			return 0;
		}
		if (!init) {
			NL_SET_ERR_MSG_MOD(extack,
					   "a qdisc joins a pool when it is added; delete and add it again");
			return -EINVAL;
		}
		ll_kpool_default_config(&cfg, dev->mtu + dev->hard_header_len + VLAN_HLEN);
		/* The port's mode is checked by the join, against the MTU
		 * of the pool it joins (an existing pool's, not the device's).
		 */
		err = ll_pool_options(tb, &cfg, &pool_given, extack);
		if (err)
			return err;
		ll_spfc_window_default(&cfg, &pc);
		if (tb[TCA_LOSSLESS_PLANE_FD]) {
			plane = ll_kplane_get(nla_get_u32(tb[TCA_LOSSLESS_PLANE_FD]),
					      extack);
			if (IS_ERR(plane))
				return PTR_ERR(plane);
		}
		/* Before joining: the plane's timer may read it as soon as
		 * this qdisc is in the pool's table.
		 */
		port->cfg = pc;
		err = ll_kport_join(port, dev_net(dev),
				    nla_data(tb[TCA_LOSSLESS_POOL]), &cfg,
				    &created, extack);
		if (err) {
			ll_kplane_free(plane);
			return err;
		}
		kp = port->pool;
		if (created || !pool_given) {
			if (plane)
				ll_kpool_set_plane(kp, plane);
			return 0;
		}
		/* Joining an existing pool with pool-wide options: apply them
		 * to the whole pool as a change would, all or nothing. On
		 * failure the qdisc's destroy leaves the pool, and the plane
		 * (given to the pool only on success below) is not the pool's.
		 */
	}

	if (tb[TCA_LOSSLESS_POOL] && !init &&
	    strncmp(nla_data(tb[TCA_LOSSLESS_POOL]), kp->name, LL_POOL_NAME_LEN)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a qdisc cannot move to another pool; delete and add it again");
		return -EINVAL;
	}
	spin_lock_bh(&kp->lock);
	cfg = kp->mmu->cfg;
	spin_unlock_bh(&kp->lock);
	err = ll_pool_options(tb, &cfg, &pool_given, extack);
	if (!err && pool_given)
		ll_spfc_window_default(&cfg, &pc);
	if (!err)
		err = ll_port_mode_check(&pc, cfg.mtu_bytes,
					 tb[TCA_LOSSLESS_MODE], extack);
	if (err) {
		ll_kplane_free(plane);	/* a join's, if any */
		return err;
	}
	if (tb[TCA_LOSSLESS_PLANE_FD] && !plane) {
		plane = ll_kplane_get(nla_get_u32(tb[TCA_LOSSLESS_PLANE_FD]), extack);
		if (IS_ERR(plane))
			return PTR_ERR(plane);
	}
	spin_lock_bh(&kp->lock);
	/* The plane may have changed the port's headroom: start from now. */
	pc = port->cfg;
	/* Parsed and checked above: it cannot fail now. */
	ll_port_options(tb, rate, shaper_burst, &pc, NULL);
	old_cfg = kp->mmu->cfg;
	if (pool_given)
		e = ll_mmu_pool_reconfigure(kp->mmu, &cfg);
	if (e == LL_MMU_OK && memcmp(&pc, &port->cfg, sizeof(pc))) {
		port_failed = true;
		e = ll_mmu_port_update(kp->mmu, port->index, &pc, ktime_get_ns());
		/* All or nothing: undo the pool part if the port part failed. */
		if (e != LL_MMU_OK && pool_given)
			ll_mmu_pool_reconfigure(kp->mmu, &old_cfg);
	}
	if (e == LL_MMU_OK) {
		port->cfg = pc;
		ll_kpool_kick_mask(kp, ll_mmu_sweep(kp->mmu, ktime_get_ns()));
	}
	/* The scheme's own words (static), on the state it refused. */
	if (e == LL_MMU_ERR_SCHEME_PORT)
		scheme_msg = port_failed ?
			     ll_scheme_ports_check(kp->mmu, pool_given ?
						   &cfg : &kp->mmu->cfg,
						   port->index, pc.scheme_port) :
			     ll_scheme_ports_check(kp->mmu, &cfg,
						   LL_MMU_MAX_PORTS, 0);
	spin_unlock_bh(&kp->lock);
	if (e != LL_MMU_OK) {
		ll_kplane_free(plane);
		if (scheme_msg) {
			NL_SET_ERR_MSG_MOD(extack, "the scheme refused the ports' numbers");
			if (extack)
				extack->_msg = scheme_msg;	/* static */
			return -EINVAL;
		}
		if (e == LL_MMU_ERR_BUSY && !port_failed &&
		    cfg.scheme != old_cfg.scheme)
			NL_SET_ERR_MSG_MOD(extack,
					   "the scheme changes only while the pool holds no packets; retry when idle");
		else if (e == LL_MMU_ERR_BUSY && port_failed &&
			 pc.mode != port->cfg.mode)
			NL_SET_ERR_MSG_MOD(extack,
					   "the port's mode changes only while the port holds no lossless bytes; retry when idle");
		else if (e == LL_MMU_ERR_MODE && !port_failed)
			NL_SET_ERR_MSG_MOD(extack,
					   "a port of the pool runs a mode that refuses the new MTU (see its qdisc)");
		else if (e == LL_MMU_ERR_MODE)
			NL_SET_ERR_MSG_MOD(extack,
					   "the port's mode refuses this rate or the pool's MTU");
		else if (e == LL_MMU_ERR_BUSY)
			NL_SET_ERR_MSG_MOD(extack,
					   "the pool holds more than the new sizes allow; retry when idle");
		else if (e == LL_MMU_ERR_HEADROOM)
			NL_SET_ERR_MSG_MOD(extack,
					   "this port's headroom is below 2 MTU, the least any port needs");
		else if (e == LL_MMU_ERR_NO_SPACE)
			NL_SET_ERR_MSG_MOD(extack,
					   "the reserves and headroom leave less than 1 MTU of shared buffer");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "the pool or this port's buffer settings are invalid");
		return -EINVAL;
	}
	if (plane)
		ll_kpool_set_plane(kp, plane);
	return 0;
}

static int ll_dump_scheme(const struct ll_mmu_config *cfg, struct sk_buff *skb)
{
	const struct ll_scheme_desc *d = ll_scheme_lookup(cfg->scheme);
	struct nlattr *nest;

	nest = nla_nest_start_noflag(skb, TCA_LOSSLESS_SCHEME);
	if (!nest || nla_put_u8(skb, TCA_LOSSLESS_SCHEME_ID, cfg->scheme))
		return -EMSGSIZE;
	if (d && d->n_params &&
	    ll_rows_dump(skb, d->nl_nest, cfg->scheme_params.raw, d->n_params,
			 d->nl_pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int ll_dump_mode(const struct ll_mmu_port_config *pc,
			struct sk_buff *skb)
{
	const struct ll_mode_desc *d = ll_mode_lookup(pc->mode);
	struct nlattr *nest;

	if (!d)
		return 0;
	nest = nla_nest_start_noflag(skb, TCA_LOSSLESS_MODE);
	if (!nest || nla_put_u8(skb, TCA_LOSSLESS_MODE_ID, pc->mode) ||
	    ll_rows_dump(skb, d->nl_nest, pc->mode_params.raw, d->n_params,
			 d->nl_pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int ll_kport_dump(struct ll_kport *port, struct sk_buff *skb)
{
	struct ll_kpool *kp = port->pool;
	struct ll_mmu_port_config pc;
	struct ll_mmu_config cfg;
	u32 plane_id, backlog_need;

	spin_lock_bh(&kp->lock);
	cfg = kp->mmu->cfg;
	pc = port->cfg;
	plane_id = kp->plane ? ll_kplane_id(kp->plane) : 0;
	backlog_need = ll_kpool_backlog_need(kp);
	spin_unlock_bh(&kp->lock);
	if (ll_dump_scheme(&cfg, skb) || ll_dump_mode(&pc, skb) ||
	    nla_put_u32(skb, TCA_LOSSLESS_BACKLOG_NEED, backlog_need))
		return -EMSGSIZE;
	if (nla_put_string(skb, TCA_LOSSLESS_POOL, kp->name) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_POOL_BYTES, cfg.total_bytes,
			      TCA_LOSSLESS_PAD) ||
	    nla_put_u32(skb, TCA_LOSSLESS_ALPHA, ll_alpha_to_u32(cfg.alpha)) ||
	    nla_put_u32(skb, TCA_LOSSLESS_EGRESS_ALPHA,
			ll_alpha_to_u32(cfg.egress_alpha)) ||
	    nla_put_u8(skb, TCA_LOSSLESS_LOSSLESS_PRIOS, cfg.lossless_mask) ||
	    nla_put_u32(skb, TCA_LOSSLESS_RESERVED_BYTES, cfg.reserved_bytes) ||
	    nla_put_u32(skb, TCA_LOSSLESS_XON_OFFSET_BYTES, cfg.xon_offset_bytes) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_CABLE_DELAY_NS,
			      pc.cable_delay_ns, TCA_LOSSLESS_PAD) ||
	    nla_put_u64_64bit(skb, TCA_LOSSLESS_SW_DELAY_NS,
			      pc.sw_response_ns, TCA_LOSSLESS_PAD))
		return -EMSGSIZE;
	if (pc.headroom_bytes &&
	    nla_put_u32(skb, TCA_LOSSLESS_HEADROOM_BYTES, pc.headroom_bytes))
		return -EMSGSIZE;
	if (pc.scheme_port &&
	    nla_put_u8(skb, TCA_LOSSLESS_SCHEME_PORT, pc.scheme_port - 1))
		return -EMSGSIZE;
	if (plane_id && nla_put_u32(skb, TCA_LOSSLESS_PLANE_ID, plane_id))
		return -EMSGSIZE;
	if (cfg.ecn.enabled &&
	    (nla_put_u32(skb, TCA_LOSSLESS_ECN_KMIN_BYTES, cfg.ecn.kmin_bytes) ||
	     nla_put_u32(skb, TCA_LOSSLESS_ECN_KMAX_BYTES, cfg.ecn.kmax_bytes) ||
	     nla_put_u32(skb, TCA_LOSSLESS_ECN_PMAX, cfg.ecn.pmax)))
		return -EMSGSIZE;
	/* Absent: red, as from a kernel without the option. */
	if (cfg.ecn_mode && nla_put_u8(skb, TCA_LOSSLESS_ECN_MODE, cfg.ecn_mode))
		return -EMSGSIZE;
	if (cfg.np_ecn_k_bytes &&
	    nla_put_u32(skb, TCA_LOSSLESS_NP_ECN_K_BYTES, cfg.np_ecn_k_bytes))
		return -EMSGSIZE;
	return 0;
}

void ll_kport_xstats(struct ll_kport *port, struct tc_lossless_xstats *st,
		     u64 now)
{
	struct ll_kpool *kp = port->pool;
	struct ll_mmu_pool_stats ps;

	st->pfc_frames_tx = port->xoff_frames_tx;
	st->ecn_marks = port->ecn_marks;
	st->unaccounted = port->unaccounted;
	spin_lock_bh(&kp->lock);
	ll_mmu_get_pool_stats(kp->mmu, &ps);
	st->pool_port = port->index;
	st->pool_ports = hweight64(kp->mmu->attached_mask);
#define LL_TOTAL(field, src)	(st->pool_##field = ps.src)
	LL_KPOOL_TOTALS(LL_TOTAL);
#undef LL_TOTAL
	ll_kpool_iq_stats(kp, port->index, now, st->iq);
	ll_kpool_scheme_stats(kp, port->index, now, &st->sch, NULL);
	ll_kpool_mode_stats(kp, port->index, &st->mode);
	ll_kpool_premise_stats(kp, port->index, st);
	spin_unlock_bh(&kp->lock);
}
