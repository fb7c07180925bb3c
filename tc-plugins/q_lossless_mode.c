// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless_mode.c: a port's mode (mode NAME, NAME-PARAM VALUE; the
 * core's kernel/core/mode.h) in the tc plugin: parse, check, put in the
 * request, print the options and the mode's telemetry. Every name, row
 * and counter comes from the modes' descriptors: no code per mode.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"
#include "json_print.h"

#include "lossless.h"
#include "mode.h"
#include "q_lossless.h"

/* The row of a mode parameter's keyword, its mode in *mode; or NULL. */
static const struct ll_param *ll_mode_row(const char *kw, unsigned int *mode)
{
	const struct ll_mode_desc *d;
	unsigned int id, i;

	for (id = 1; id < LL_MODE_COUNT; id++) {
		d = ll_mode_lookup(id);
		for (i = 0; d && i < d->n_params; i++) {
			if (strcmp(kw, d->params[i].tc) == 0) {
				*mode = id;
				return &d->params[i];
			}
		}
	}
	return NULL;
}

bool ll_tc_is_mode_kw(const char *kw)
{
	unsigned int mode;

	return strcmp(kw, "mode") == 0 || ll_mode_row(kw, &mode);
}

/* "none, bifrost": the names a mode may have. */
static void ll_mode_names(char *buf, size_t len)
{
	unsigned int id;
	size_t at = 0;

	buf[0] = '\0';
	for (id = 0; id < LL_MODE_COUNT && at < len; id++) {
		if (!ll_mode_name(id))
			continue;
		at += snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
			       ll_mode_name(id));
	}
}

int ll_tc_parse_mode_opt(const char *kw, const char *arg,
			 struct ll_mode_opts *o)
{
	const struct ll_param *p;
	unsigned int mode;
	long long bad;
	uint64_t v;
	int id;

	if (strcmp(kw, "mode") == 0) {
		char names[128];

		if (o->given)
			return ll_tc_fail("duplicate \"mode\"");
		id = ll_mode_by_name(arg);
		if (id < 0) {
			ll_mode_names(names, sizeof(names));
			return ll_tc_fail("invalid mode \"%s\": must be one of %s",
					  arg, names);
		}
		o->given = true;
		o->mode = id;
		return 0;
	}
	p = ll_mode_row(kw, &mode);
	if (!p)
		return ll_tc_fail("unknown option \"%s\"", kw);
	if (o->param_given[p->word])
		return ll_tc_fail("duplicate \"%s\"", kw);
	if (ll_param_parse(p, arg, &v, &bad) != LL_PARAM_OK ||
	    v < p->min || v > p->max) {
		char range[256];

		ll_param_range(p, range, sizeof(range));
		return ll_tc_fail("invalid %s \"%s\": must be %s", kw, arg,
				  range);
	}
	o->param_given[p->word] = true;
	o->param_mode[p->word] = mode;
	o->params[p->word] = v;
	return 0;
}

/* A mode's parameters go with its name: the kernel replaces both. */
int ll_tc_check_mode_opts(const struct ll_mode_opts *o)
{
	const struct ll_mode_desc *d;
	unsigned int w;

	for (w = 0; w < LL_MODE_PARAM_WORDS; w++) {
		if (!o->param_given[w])
			continue;
		d = ll_mode_lookup(o->param_mode[w]);
		if (!o->given)
			return ll_tc_fail("option \"%s\" needs \"mode %s\" in the same command",
					  d->params[w].tc, d->name);
		if (o->mode != o->param_mode[w])
			return ll_tc_fail("option \"%s\" is a parameter of mode %s, not %s",
					  d->params[w].tc, d->name,
					  ll_mode_name(o->mode));
	}
	return 0;
}

int ll_tc_put_mode_opts(struct nlmsghdr *n, const struct ll_mode_opts *o)
{
	const struct ll_mode_desc *d;
	struct rtattr *nest, *params;
	unsigned int i;

	if (!o->given)
		return 0;
	nest = addattr_nest(n, LL_NLMSG_MAX, TCA_LOSSLESS_MODE | NLA_F_NESTED);
	if (addattr8(n, LL_NLMSG_MAX, TCA_LOSSLESS_MODE_ID, o->mode))
		return -1;
	d = ll_mode_lookup(o->mode);
	if (d) {
		params = addattr_nest(n, LL_NLMSG_MAX, d->nl_nest | NLA_F_NESTED);
		for (i = 0; i < d->n_params; i++)
			if (o->param_given[i] &&
			    addattr_l(n, LL_NLMSG_MAX, d->params[i].nl_attr,
				      &o->params[i], sizeof(o->params[i])))
				return -1;
		addattr_nest_end(n, params);
	}
	addattr_nest_end(n, nest);
	return 0;
}

#define LL_MODE_NEST_MAX 31

/* "mode NAME NAME-PARAM VALUE ...", as tc takes it back (0: a default). */
void ll_tc_print_mode(struct rtattr *attr)
{
	struct rtattr *tb[TCA_LOSSLESS_MODE_MAX + 1];
	struct rtattr *sub[LL_MODE_NEST_MAX + 1];
	const struct ll_mode_desc *d;
	unsigned int i;
	__u8 id;

	if (!attr)
		return;
	parse_rtattr_nested(tb, TCA_LOSSLESS_MODE_MAX, attr);
	if (!tb[TCA_LOSSLESS_MODE_ID] ||
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_MODE_ID]) < sizeof(__u8))
		return;
	id = rta_getattr_u8(tb[TCA_LOSSLESS_MODE_ID]);
	d = ll_mode_lookup(id);
	if (!d) {
		print_uint(PRINT_ANY, "mode", "mode %u ", id);
		return;
	}
	print_string(PRINT_ANY, "mode", "mode %s ", d->name);
	if (d->nl_nest > TCA_LOSSLESS_MODE_MAX || !tb[d->nl_nest])
		return;
	parse_rtattr_nested(sub, LL_MODE_NEST_MAX, tb[d->nl_nest]);
	for (i = 0; i < d->n_params; i++) {
		struct rtattr *a = d->params[i].nl_attr <= LL_MODE_NEST_MAX ?
				   sub[d->params[i].nl_attr] : NULL;
		__u64 v;

		if (!a || RTA_PAYLOAD(a) < sizeof(v))
			continue;
		memcpy(&v, RTA_DATA(a), sizeof(v));
		if (v)
			ll_tc_print_param_value(&d->params[i], v);
	}
}

/*
 * The port's mode telemetry, when the kernel sent it: "mode NAME" and its
 * counters by the descriptor's names, its per-priority values (a kernel
 * that appends them); the slot lateness histogram with -d (text) and
 * always in JSON ("late_hist", slots per bucket).
 */
void ll_tc_print_mode_xstats(const struct tc_lossless_xstats *st,
			     unsigned int len)
{
	const struct tc_lossless_mode_stats *ms = &st->mode;
	const struct ll_mode_desc *d;
	unsigned int i;

	if (len < offsetof(struct tc_lossless_xstats, mode) +
		  offsetof(struct tc_lossless_mode_stats, prio))
		return;
	d = ll_mode_lookup(ms->mode);
	if (!ms->mode || !d)
		return;
	print_nl();
	open_json_object("mode_stats");
	print_string(PRINT_ANY, "mode", "  mode %s", d->name);
	for (i = 0; i < d->n_stats && i < LOSSLESS_MODE_STATS; i++)
		if (d->stats[i].name)
			ll_tc_print_stat_value(d->stats[i].name,
					       d->stats[i].name,
					       d->stats[i].unit, ms->ctr[i]);
	if (len >= offsetof(struct tc_lossless_xstats, mode) +
		   offsetof(struct tc_lossless_mode_stats, prio) +
		   sizeof(ms->prio))
		for (i = 0; i < d->n_prio_stats && i < LOSSLESS_MODE_PRIO_STATS;
		     i++)
			ll_tc_print_prio_values(st, &d->prio_stats[i],
						ms->prio[i]);
	if (show_details || is_json_context()) {
		print_nl();
		print_string(PRINT_FP, NULL, "  slot lateness (us, slots):", NULL);
		open_json_array(PRINT_JSON, "late_hist");
		for (i = 0; i < LOSSLESS_MODE_HIST; i++) {
			char key[24];

			if (is_json_context()) {
				print_uint(PRINT_JSON, NULL, NULL, ms->late_hist[i]);
				continue;
			}
			if (!ms->late_hist[i])
				continue;
			if (i == 0)
				snprintf(key, sizeof(key), " <1 %%u");
			else if (i == LOSSLESS_MODE_HIST - 1)
				snprintf(key, sizeof(key), " >=%u %%u", 1U << (i - 1));
			else
				snprintf(key, sizeof(key), " %u-%u %%u",
					 1U << (i - 1), 1U << i);
			print_uint(PRINT_FP, NULL, key, ms->late_hist[i]);
		}
		close_json_array(PRINT_JSON, NULL);
	}
	close_json_object();
}
