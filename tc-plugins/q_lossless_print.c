// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless_print.c: print_qopt of the tc plugin: the qdisc's options
 * as tc takes them back (text) and as JSON.
 */

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"		/* use_iec */

#include "lossless.h"
#include "ll_params.h"
#include "ll_units.h"
#include "q_lossless.h"

/* Exact, paste-back-able text for a rate in bit/s: the largest SI unit
 * that divides it ("10Gbit", "1500Mbit", "8001bit"). JSON gets bytes per
 * second like every tc rate (tc_print_rate); -iec uses tc's formatter.
 */
void ll_tc_print_rate(const char *key, const char *fmt, __u64 bps)
{
	static const struct { const char *name; __u64 scale; } units[] = {
		{ "Tbit", 1000000000000ULL }, { "Gbit", 1000000000ULL },
		{ "Mbit", 1000000ULL }, { "Kbit", 1000ULL },
	};
	char buf[64];
	unsigned int i;

	if (is_json_context() || use_iec) {
		tc_print_rate(PRINT_ANY, key, fmt, bps / 8);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (bps && bps % units[i].scale == 0)
			break;
	if (i < ARRAY_SIZE(units))
		snprintf(buf, sizeof(buf), "%llu%s",
			 (unsigned long long)(bps / units[i].scale),
			 units[i].name);
	else
		snprintf(buf, sizeof(buf), "%llubit", (unsigned long long)bps);
	print_string(PRINT_FP, NULL, fmt, buf);
}

/* Exact size text that get_size() reads back: "2Mb", "30Kb", "1514b". */
static void ll_print_bytes(const char *key, const char *fmt, __u32 sz)
{
	char buf[32];

	if (is_json_context()) {
		print_uint(PRINT_JSON, key, NULL, sz);
		return;
	}
	if (sz && sz % (1U << 20) == 0)
		snprintf(buf, sizeof(buf), "%uMb", sz >> 20);
	else if (sz && sz % 1024 == 0)
		snprintf(buf, sizeof(buf), "%uKb", sz >> 10);
	else
		snprintf(buf, sizeof(buf), "%ub", sz);
	print_string(PRINT_FP, NULL, fmt, buf);
}

/* Exact size text that ll_size_value() reads back: "1Gb", "30Kb", "1500b". */
void ll_tc_fmt_size64(char *buf, size_t len, __u64 sz)
{
	if (sz && sz % (1ULL << 30) == 0)
		snprintf(buf, len, "%lluGb", (unsigned long long)(sz >> 30));
	else if (sz && sz % (1ULL << 20) == 0)
		snprintf(buf, len, "%lluMb", (unsigned long long)(sz >> 20));
	else if (sz && sz % 1024 == 0)
		snprintf(buf, len, "%lluKb", (unsigned long long)(sz >> 10));
	else
		snprintf(buf, len, "%llub", (unsigned long long)sz);
}

/* Text: exact size; JSON: bytes. */
void ll_tc_print_size64(const char *key, const char *fmt, __u64 sz)
{
	char buf[32];

	if (is_json_context()) {
		print_u64(PRINT_JSON, key, NULL, sz);
		return;
	}
	ll_tc_fmt_size64(buf, sizeof(buf), sz);
	print_string(PRINT_FP, NULL, fmt, buf);
}

/* Text: exact time in the largest unit that divides it ("5us", "1500ns");
 * JSON: ns.
 */
static void ll_print_delay(const char *key, const char *fmt, __u64 ns)
{
	static const struct { const char *name; __u64 scale; } units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	};
	unsigned int i;
	char buf[32];

	if (is_json_context()) {
		print_u64(PRINT_JSON, key, NULL, ns);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (ns && ns % units[i].scale == 0)
			break;
	if (i < ARRAY_SIZE(units))
		snprintf(buf, sizeof(buf), "%llu%s",
			 (unsigned long long)(ns / units[i].scale), units[i].name);
	else
		snprintf(buf, sizeof(buf), "%lluns", (unsigned long long)ns);
	print_string(PRINT_FP, NULL, fmt, buf);
}

/* num << 8 | shift as "num/2^shift" ("1/8", "3/4", "2"): text and JSON. */
static void ll_print_alpha(const char *key, const char *fmt, __u32 v)
{
	char buf[48];

	ll_alpha_format(v, buf, sizeof(buf));
	print_string(PRINT_ANY, key, fmt, buf);
}

/*
 * A probability in 1/65536 units as the shortest decimal that
 * ll_tc_prob_value() reads back to the same units: 13107 -> "0.2".
 */
static double ll_fmt_prob(char *buf, size_t len, __u32 units)
{
	double p = (double)units / LL_TC_PMAX_ONE;
	__u32 back;
	int d;

	for (d = 0; d <= 6; d++) {
		snprintf(buf, len, "%.*f", d, p);
		if (!ll_tc_prob_value(buf, &back) && back == units)
			break;
	}
	if (d > 6)	/* above 1.0: the kernel never dumps it */
		snprintf(buf, len, "%.6f", p);
	return strtod(buf, NULL);
}

static bool ll_attr_ok(struct rtattr *a, size_t len)
{
	return a && RTA_PAYLOAD(a) >= len;
}

/* A row's attribute: u8, u32 or u64. */
static __u64 ll_attr_value(struct rtattr *a, unsigned int len)
{
	switch (len) {
	case sizeof(__u8):
		return rta_getattr_u8(a);
	case sizeof(__u32):
		return rta_getattr_u32(a);
	default:
		return rta_getattr_u64(a);
	}
}

static void ll_print_prios(const char *key, const char *kw, __u8 mask)
{
	unsigned int p;
	bool any = false;

	print_string(PRINT_FP, NULL, "%s ", kw);
	open_json_array(PRINT_JSON, key);
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		if (!(mask & (1U << p)))
			continue;
		print_uint(PRINT_ANY, NULL, any ? ",%u" : "%u", p);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	print_string(PRINT_FP, NULL, any ? " " : "none ", NULL);
}

/*
 * A row's attribute a, if the kernel sent it, as tc takes it back: text
 * "KEYWORD VALUE ", JSON the keyword with '_' for '-' (sizes in bytes,
 * times in ns, alphas as text, priorities as an array).
 */
static void ll_print_param(const struct ll_param *p, struct rtattr *a)
{
	__u64 v;

	if (!ll_attr_ok(a, p->nl_len))
		return;
	v = ll_attr_value(a, p->nl_len);
	if ((p->flags & LL_PARAM_SHOW_NONZERO) && !v)
		return;	/* 0 is the default the kernel stands for */
	ll_tc_print_param_value(p, v);
}

/* A row's value v as tc takes it back (ll_print_param()). */
void ll_tc_print_param_value(const struct ll_param *p, __u64 v)
{
	char key[64], fmt[80];
	size_t i;

	snprintf(key, sizeof(key), "%s", p->tc);
	for (i = 0; key[i]; i++)
		if (key[i] == '-')
			key[i] = '_';
	snprintf(fmt, sizeof(fmt), "%s %%s ", p->tc);
	switch (p->unit) {
	case LL_PARAM_SIZE:
		ll_tc_print_size64(key, fmt, v);
		break;
	case LL_PARAM_TIME:
		ll_print_delay(key, fmt, v);
		break;
	case LL_PARAM_ALPHA:
		ll_print_alpha(key, fmt, v);
		break;
	case LL_PARAM_PRIOS:
		ll_print_prios(key, p->tc, v);
		break;
	case LL_PARAM_COUNT:
		if (is_json_context()) {
			print_u64(PRINT_JSON, key, NULL, v);
		} else {
			char buf[32];

			snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
			print_string(PRINT_FP, NULL, fmt, buf);
		}
		break;
	case LL_PARAM_FLAGS: {	/* text and JSON: the names, as typed */
		char buf[256];

		ll_param_text(p, v, buf, sizeof(buf));
		print_string(PRINT_ANY, key, fmt, buf);
		break;
	}
	default:
		break;
	}
}

#define LL_NEST_MAX 31		/* attributes of a scheme's nest */

/* The scheme: its name, then its parameters from their nest. */
static void ll_print_scheme(struct rtattr *attr)
{
	struct rtattr *tb[TCA_LOSSLESS_SCHEME_MAX + 1];
	struct rtattr *sub[LL_NEST_MAX + 1];
	const struct ll_param *p;
	unsigned int i;
	__u8 id;

	if (!attr)
		return;
	parse_rtattr_nested(tb, TCA_LOSSLESS_SCHEME_MAX, attr);
	if (!ll_attr_ok(tb[TCA_LOSSLESS_SCHEME_ID], sizeof(__u8)))
		return;
	id = rta_getattr_u8(tb[TCA_LOSSLESS_SCHEME_ID]);
	if (ll_param_scheme_name(id))
		print_string(PRINT_ANY, "scheme", "scheme %s ",
			     ll_param_scheme_name(id));
	else
		print_uint(PRINT_ANY, "scheme", "scheme %u ", id);
	for (i = 0; (p = ll_param_of_scheme(id, i)); i++) {
		if (p->nl_nest > TCA_LOSSLESS_SCHEME_MAX || !tb[p->nl_nest] ||
		    p->nl_attr > LL_NEST_MAX)
			continue;
		parse_rtattr_nested(sub, LL_NEST_MAX, tb[p->nl_nest]);
		ll_print_param(p, sub[p->nl_attr]);
	}
}

/* The pool's options in the table's order; ecn last (it ends a line that
 * pastes back).
 */
static void ll_print_pool_opts(struct rtattr **tb)
{
	struct rtattr *a;
	char buf[64];
	unsigned int i;

	for (i = 0; i < LL_P_COUNT; i++) {
		const struct ll_param *p = &ll_params[i];

		if (!p->tc)
			continue;
		switch (p->unit) {
		case LL_PARAM_NAME:
			a = tb[p->nl_attr];
			if (a && RTA_PAYLOAD(a)) {
				size_t len = RTA_PAYLOAD(a), j;

				if (len > LL_POOL_NAME_MAX)
					len = LL_POOL_NAME_MAX;
				memcpy(buf, RTA_DATA(a), len);
				buf[len] = '\0';
				for (j = 0; buf[j]; j++)
					if (!isprint((unsigned char)buf[j]) ||
					    isspace((unsigned char)buf[j]))
						buf[j] = '?';
				print_string(PRINT_ANY, "pool", "pool %s ", buf);
			}
			break;
		case LL_PARAM_PLANE:	/* the kernel dumps the map's id */
			if (ll_attr_ok(tb[TCA_LOSSLESS_PLANE_ID], sizeof(__u32)))
				print_uint(PRINT_ANY, "plane_id", "plane id %u ",
					   rta_getattr_u32(tb[TCA_LOSSLESS_PLANE_ID]));
			break;
		case LL_PARAM_SCHEME:
			ll_print_scheme(tb[p->nl_attr]);
			ll_tc_print_mode(tb[TCA_LOSSLESS_MODE]);
			break;
		case LL_PARAM_ECN:
			break;
		default:
			if (!p->nl_nest)
				ll_print_param(p, tb[p->nl_attr]);
			break;
		}
	}
	/* Not an option: with -s only, so plain output pastes back. */
	if (show_stats && ll_attr_ok(tb[TCA_LOSSLESS_BACKLOG_NEED], sizeof(__u32)))
		print_uint(PRINT_ANY, "backlog_need", "backlog-need %u ",
			   rta_getattr_u32(tb[TCA_LOSSLESS_BACKLOG_NEED]));
	if (ll_attr_ok(tb[TCA_LOSSLESS_ECN_KMIN_BYTES], sizeof(__u32)) &&
	    ll_attr_ok(tb[TCA_LOSSLESS_ECN_KMAX_BYTES], sizeof(__u32)) &&
	    ll_attr_ok(tb[TCA_LOSSLESS_ECN_PMAX], sizeof(__u32))) {
		__u32 kmin = rta_getattr_u32(tb[TCA_LOSSLESS_ECN_KMIN_BYTES]);
		__u32 kmax = rta_getattr_u32(tb[TCA_LOSSLESS_ECN_KMAX_BYTES]);
		__u32 pmax = rta_getattr_u32(tb[TCA_LOSSLESS_ECN_PMAX]);
		double prob = ll_fmt_prob(buf, sizeof(buf), pmax);
		char smin[32], smax[32], line[160];

		/* JSON: bytes, bytes and the probability as a number. */
		print_u64(PRINT_JSON, "ecn_kmin", NULL, kmin);
		print_u64(PRINT_JSON, "ecn_kmax", NULL, kmax);
		print_float(PRINT_JSON, "ecn_pmax", NULL, prob);
		if (!kmin && !kmax && !pmax) {
			print_string(PRINT_FP, NULL, "ecn off ", NULL);
		} else if (!is_json_context()) {
			ll_tc_fmt_size64(smin, sizeof(smin), kmin);
			ll_tc_fmt_size64(smax, sizeof(smax), kmax);
			snprintf(line, sizeof(line), "ecn %s %s %s ", smin,
				 smax, buf);
			print_string(PRINT_FP, NULL, "%s", line);
		}
	}
}

/* The watchdog nest, dumped while the watchdog is on: text as the options
 * are written (so it pastes back), JSON in ns.
 */
static void ll_print_wd_opts(struct rtattr **tb)
{
	struct rtattr *w[TCA_LOSSLESS_WD_MAX + 1];
	char buf[16];

	if (!tb[TCA_LOSSLESS_WATCHDOG])
		return;
	parse_rtattr_nested(w, TCA_LOSSLESS_WD_MAX, tb[TCA_LOSSLESS_WATCHDOG]);
	if (ll_attr_ok(w[TCA_LOSSLESS_WD_ACTION], sizeof(__u8))) {
		__u8 a = rta_getattr_u8(w[TCA_LOSSLESS_WD_ACTION]);

		if (a < ARRAY_SIZE(ll_tc_wd_actions))
			snprintf(buf, sizeof(buf), "%s", ll_tc_wd_actions[a]);
		else
			snprintf(buf, sizeof(buf), "%u", a);
		print_string(PRINT_ANY, "pfcwd", "pfcwd %s ", buf);
	}
	if (ll_attr_ok(w[TCA_LOSSLESS_WD_DETECT_NS], sizeof(__u64)))
		ll_print_delay("pfcwd_detect", "pfcwd-detect %s ",
			       rta_getattr_u64(w[TCA_LOSSLESS_WD_DETECT_NS]));
	if (ll_attr_ok(w[TCA_LOSSLESS_WD_RESTORE_NS], sizeof(__u64)))
		ll_print_delay("pfcwd_restore", "pfcwd-restore %s ",
			       rta_getattr_u64(w[TCA_LOSSLESS_WD_RESTORE_NS]));
	if (ll_attr_ok(w[TCA_LOSSLESS_WD_POLL_NS], sizeof(__u64)))
		ll_print_delay("pfcwd_poll", "pfcwd-poll %s ",
			       rta_getattr_u64(w[TCA_LOSSLESS_WD_POLL_NS]));
	if (ll_attr_ok(w[TCA_LOSSLESS_WD_XOFF_ALARM_NS], sizeof(__u64))) {
		__u64 ns = rta_getattr_u64(w[TCA_LOSSLESS_WD_XOFF_ALARM_NS]);

		if (ns)
			ll_print_delay("xoff_alarm", "xoff-alarm %s ", ns);
		else {
			print_u64(PRINT_JSON, "xoff_alarm", NULL, 0);
			print_string(PRINT_FP, NULL, "xoff-alarm off ", NULL);
		}
	}
}

/* "gates 4:3,port 5:12": the queues whose gates were configured, as
 * "gates" takes them; JSON: [{"queue": 4, "gates": [3, 8]}, ...].
 */
static void ll_print_gates(const struct rtattr *attr)
{
	unsigned int len = RTA_PAYLOAD(attr) / sizeof(__u32), i, g;
	bool any = false;
	__u32 mask;

	for (i = 0; i < len; i++) {
		memcpy(&mask, (const char *)RTA_DATA(attr) + i * sizeof(mask),
		       sizeof(mask));
		if (!mask)
			continue;
		if (!any) {
			open_json_array(PRINT_JSON, "gates");
			print_string(PRINT_FP, NULL, "gates", NULL);
			any = true;
		}
		open_json_object(NULL);
		print_uint(PRINT_ANY, "queue", " %u:", i);
		open_json_array(PRINT_JSON, "gates");
		for (g = 0; g < 32; g++) {
			if (!(mask & (1u << g)))
				continue;
			print_uint(PRINT_JSON, NULL, NULL, g);
			if (g == LOSSLESS_GATE_PORT)
				print_string(PRINT_FP, NULL, "%s", "port");
			else
				print_uint(PRINT_FP, NULL, "%u", g);
			if (mask >> (g + 1))
				print_string(PRINT_FP, NULL, ",", NULL);
		}
		close_json_array(PRINT_JSON, NULL);
		close_json_object();
	}
	if (any) {
		close_json_array(PRINT_JSON, NULL);
		print_string(PRINT_FP, NULL, " ", NULL);
	}
}

int ll_tc_print_opt(struct qdisc_util *qu, FILE *f,
		    struct rtattr *opt)
{
	struct rtattr *tb[TCA_LOSSLESS_MAX + 1];
	unsigned int i, len;

	(void)qu, (void)f;

	if (!opt)
		return 0;
	parse_rtattr_nested(tb, TCA_LOSSLESS_MAX, opt);

	if (tb[TCA_LOSSLESS_RATE_BPS] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_RATE_BPS]) >= sizeof(__u64))
		ll_tc_print_rate("rate", "rate %s ",
				 rta_getattr_u64(tb[TCA_LOSSLESS_RATE_BPS]));
	if (tb[TCA_LOSSLESS_BURST_BYTES] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_BURST_BYTES]) >= sizeof(__u32))
		ll_print_bytes("burst", "burst %s ",
			       rta_getattr_u32(tb[TCA_LOSSLESS_BURST_BYTES]));
	if (tb[TCA_LOSSLESS_CATCHUP_BYTES] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_CATCHUP_BYTES]) >= sizeof(__u32))
		ll_print_bytes("catchup", "catchup %s ",
			       rta_getattr_u32(tb[TCA_LOSSLESS_CATCHUP_BYTES]));
	if (tb[TCA_LOSSLESS_QUEUES] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_QUEUES]) >= sizeof(__u8))
		print_uint(PRINT_ANY, "queues", "queues %u ",
			   rta_getattr_u8(tb[TCA_LOSSLESS_QUEUES]));
	if (tb[TCA_LOSSLESS_STRICT] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_STRICT]) >= sizeof(__u8))
		print_uint(PRINT_ANY, "strict", "strict %u ",
			   rta_getattr_u8(tb[TCA_LOSSLESS_STRICT]));
	if (tb[TCA_LOSSLESS_QUANTA]) {
		__u32 q;

		len = RTA_PAYLOAD(tb[TCA_LOSSLESS_QUANTA]) / sizeof(__u32);
		if (len) {
			open_json_array(PRINT_ANY, "quanta");
			for (i = 0; i < len; i++) {
				memcpy(&q, (char *)RTA_DATA(tb[TCA_LOSSLESS_QUANTA]) +
				       i * sizeof(q), sizeof(q));
				print_uint(PRINT_ANY, NULL, " %u", q);
			}
			close_json_array(PRINT_ANY, " ");
		}
	}
	if (tb[TCA_LOSSLESS_PRIOMAP]) {
		const __u8 *map = RTA_DATA(tb[TCA_LOSSLESS_PRIOMAP]);

		len = RTA_PAYLOAD(tb[TCA_LOSSLESS_PRIOMAP]);
		if (len > LOSSLESS_PRIOMAP_LEN)
			len = LOSSLESS_PRIOMAP_LEN;
		if (len) {
			open_json_array(PRINT_ANY, "priomap");
			for (i = 0; i < len; i++)
				print_uint(PRINT_ANY, NULL, " %u", map[i]);
			close_json_array(PRINT_ANY, " ");
		}
	}
	if (tb[TCA_LOSSLESS_LIMIT_PKTS] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_LIMIT_PKTS]) >= sizeof(__u32))
		print_uint(PRINT_ANY, "limit", "limit %u ",
			   rta_getattr_u32(tb[TCA_LOSSLESS_LIMIT_PKTS]));
	if (tb[TCA_LOSSLESS_GATES])
		ll_print_gates(tb[TCA_LOSSLESS_GATES]);
	ll_print_pool_opts(tb);
	ll_print_wd_opts(tb);
	return 0;
}

