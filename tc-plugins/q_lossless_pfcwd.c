// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless_pfcwd.c: the PFC watchdog's options of the tc plugin (pfcwd,
 * pfcwd-detect, pfcwd-restore, pfcwd-poll, xoff-alarm): parse, check,
 * and put in the request.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"

#include "lossless.h"
#include "ll_units.h"
#include "q_lossless.h"

/* ------------------------------------------------------ PFC watchdog options */

const char *const ll_tc_wd_actions[] = {
	[LOSSLESS_WD_OFF] = "off",
	[LOSSLESS_WD_ALERT] = "alert",
	[LOSSLESS_WD_FORWARD] = "forward",
	[LOSSLESS_WD_DROP] = "drop",
};

bool ll_tc_is_wd_kw(const char *kw)
{
	return strcmp(kw, "pfcwd") == 0 || strcmp(kw, "pfcwd-detect") == 0 ||
	       strcmp(kw, "pfcwd-restore") == 0 ||
	       strcmp(kw, "pfcwd-poll") == 0 || strcmp(kw, "xoff-alarm") == 0;
}

/* Exact time text in the largest unit that divides it: "200ms", "60s". */
static void ll_fmt_ns(char *buf, size_t len, __u64 ns)
{
	if (ns && ns % 1000000000ULL == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ULL));
	else if (ns && ns % 1000000ULL == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ULL));
	else if (ns && ns % 1000ULL == 0)
		snprintf(buf, len, "%lluus", (unsigned long long)(ns / 1000ULL));
	else
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
}

/* A watchdog time: LOSSLESS_WD_TIME_MIN_NS .. max; xoff-alarm also takes
 * "off" or 0 with or without a unit (no alarm).
 */
static int ll_parse_wd_time(const char *opt, const char *arg, bool alarm,
			    __u64 *ns)
{
	__u64 max = alarm ? LOSSLESS_WD_XOFF_ALARM_MAX_NS : LOSSLESS_WD_TIME_MAX_NS;
	char smin[32], smax[32];
	uint64_t v;

	if (alarm && (strcmp(arg, "off") == 0 || strcmp(arg, "0") == 0)) {
		*ns = 0;
		return 0;
	}
	if (ll_units_time(arg, max, &v) ||
	    (v < LOSSLESS_WD_TIME_MIN_NS && !(alarm && !v))) {
		ll_fmt_ns(smin, sizeof(smin), LOSSLESS_WD_TIME_MIN_NS);
		ll_fmt_ns(smax, sizeof(smax), max);
		return ll_tc_fail("invalid %s \"%s\": must be %sa time %s .. %s with %s (%s)",
				  opt, arg, alarm ? "off (or 0) or " : "", smin, smax,
				  LL_UNITS_TIME_UNITS, LL_UNITS_TIME_EXAMPLES);
	}
	*ns = v;
	return 0;
}

/* One watchdog option; argv[0] is its value. */
int ll_tc_parse_wd_opt(const char *kw, const char *arg,
		       struct ll_wd_opts *o)
{
	unsigned int i;

	if (strcmp(kw, "pfcwd") == 0) {
		if (o->has_action)
			return ll_tc_fail("duplicate \"pfcwd\"");
		o->has_action = true;
		for (i = 0; i < ARRAY_SIZE(ll_tc_wd_actions); i++)
			if (strcmp(arg, ll_tc_wd_actions[i]) == 0) {
				o->action = i;
				return 0;
			}
		return ll_tc_fail("invalid pfcwd \"%s\": must be off, alert, forward or drop",
				  arg);
	}
	if (strcmp(kw, "pfcwd-detect") == 0) {
		if (o->has_detect)
			return ll_tc_fail("duplicate \"%s\"", kw);
		o->has_detect = true;
		return ll_parse_wd_time(kw, arg, false, &o->detect_ns);
	}
	if (strcmp(kw, "pfcwd-restore") == 0) {
		if (o->has_restore)
			return ll_tc_fail("duplicate \"%s\"", kw);
		o->has_restore = true;
		return ll_parse_wd_time(kw, arg, false, &o->restore_ns);
	}
	if (strcmp(kw, "pfcwd-poll") == 0) {
		if (o->has_poll)
			return ll_tc_fail("duplicate \"%s\"", kw);
		o->has_poll = true;
		return ll_parse_wd_time(kw, arg, false, &o->poll_ns);
	}
	if (o->has_alarm)
		return ll_tc_fail("duplicate \"%s\"", kw);
	o->has_alarm = true;
	return ll_parse_wd_time(kw, arg, true, &o->alarm_ns);
}

/*
 * The kernel's cross-checks, against the values on the line (a change
 * keeps the qdisc's others, which only the kernel knows): the poll at most
 * the detect and restore times, a raised xoff-alarm at least the poll.
 */
int ll_tc_check_wd_opts(const struct ll_wd_opts *o)
{
	char a[32], b[32], c[32], d[32];
	const char *bound_kw = NULL;
	__u64 bound = 0;

	if (o->has_poll && o->has_detect && o->poll_ns > o->detect_ns) {
		bound_kw = "pfcwd-detect";
		bound = o->detect_ns;
	}
	if (o->has_poll && o->has_restore && o->poll_ns > o->restore_ns &&
	    (!bound_kw || o->restore_ns < bound)) {
		bound_kw = "pfcwd-restore";
		bound = o->restore_ns;
	}
	if (bound_kw) {
		ll_fmt_ns(a, sizeof(a), o->poll_ns);
		ll_fmt_ns(b, sizeof(b), LOSSLESS_WD_TIME_MIN_NS);
		ll_fmt_ns(c, sizeof(c), bound);
		return ll_tc_fail("invalid pfcwd-poll %s: must be %s .. %s (at most %s %s)",
				  a, b, c, bound_kw, c);
	}
	if (o->has_alarm && o->alarm_ns && o->has_poll &&
	    o->alarm_ns < o->poll_ns) {
		ll_fmt_ns(a, sizeof(a), o->alarm_ns);
		ll_fmt_ns(b, sizeof(b), o->poll_ns);
		ll_fmt_ns(d, sizeof(d), LOSSLESS_WD_XOFF_ALARM_MAX_NS);
		return ll_tc_fail("invalid xoff-alarm %s: must be off or %s .. %s (at least pfcwd-poll %s)",
				  a, b, d, b);
	}
	return 0;
}

int ll_tc_put_wd_opts(struct nlmsghdr *n, const struct ll_wd_opts *o)
{
	struct rtattr *nest;

	if (!o->has_action && !o->has_detect && !o->has_restore &&
	    !o->has_poll && !o->has_alarm)
		return 0;
	nest = addattr_nest(n, LL_NLMSG_MAX, TCA_LOSSLESS_WATCHDOG | NLA_F_NESTED);
	if (!nest)
		return -1;
	if (o->has_action &&
	    addattr8(n, LL_NLMSG_MAX, TCA_LOSSLESS_WD_ACTION, o->action))
		return -1;
	if (o->has_detect &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_WD_DETECT_NS, &o->detect_ns,
		      sizeof(o->detect_ns)))
		return -1;
	if (o->has_restore &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_WD_RESTORE_NS,
		      &o->restore_ns, sizeof(o->restore_ns)))
		return -1;
	if (o->has_poll &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_WD_POLL_NS, &o->poll_ns,
		      sizeof(o->poll_ns)))
		return -1;
	if (o->has_alarm &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_WD_XOFF_ALARM_NS,
		      &o->alarm_ns, sizeof(o->alarm_ns)))
		return -1;
	addattr_nest_end(n, nest);
	return 0;
}

