// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless.c: tc plugin for the out-of-tree "lossless" qdisc.
 *
 * tc dlopen()s $TC_LIB_DIR/q_lossless.so (default: the compiled-in lib
 * dir's tc/) and looks up lossless_qdisc_util. Everything this file calls
 * (addattr_l, print_*, get_rate64, ...) is tc's own code: tc is linked
 * with -export-dynamic. It is built against the headers of the Debian
 * iproute2 source package of the installed tc (see CMakeLists.txt), so
 * struct qdisc_util matches the loader's layout.
 *
 * Syntax, modelled on tc-ets and tc-tbf:
 *   lossless [ rate RATE ] [ burst BYTES ] [ queues N ] [ strict N ]
 *            [ quanta Q0 Q1 ... ] [ priomap P0 P1 ... P15 ] [ limit PACKETS ]
 * print_qopt prints the same syntax, so `tc qdisc show` output pastes back.
 * Every check here is also done by the kernel policy; checking early gives
 * a message that names the option and the valid range.
 */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"		/* use_iec */

#include "lossless.h"

/* tc_qdisc.c gives parse_qopt a 64 KiB request buffer; stay well inside. */
#define LL_NLMSG_MAX 4096

#define LL_DEFAULT_QUEUES 8
#define LL_DEFAULT_LIMIT 1000

static void usage_synopsis(void)
{
	fprintf(stderr,
		"Usage: ... lossless [ rate RATE ] [ burst BYTES ] [ queues NUMBER ]\n"
		"                    [ strict NUMBER ] [ quanta BYTES0 BYTES1 ... ]\n"
		"                    [ priomap QUEUE0 QUEUE1 ... QUEUE15 ] [ limit PACKETS ]\n");
}

static void explain(void)
{
	usage_synopsis();
	fprintf(stderr,
		"\n"
		"Lossless Ethernet egress: data queues gated by received IEEE 802.1Qbb PFC\n"
		"and 802.3x PAUSE frames, served strict priority then DWRR, behind a\n"
		"token-bucket shaper at the port's line rate.\n"
		"\n"
		"  rate RATE         port line rate in tc rate units (bit, kbit, mbit, gbit,\n"
		"                    tbit, Bps, KBps, ...: 100mbit, 10gbit) or a percentage\n"
		"                    of the device's link speed (50%%); %llukbit .. %.1ftbit.\n"
		"                    Default: the link speed the device reports; required\n"
		"                    on devices that report none (lo, bridge, dummy).\n"
		"  burst BYTES       shaper bucket in tc size units (b, kb, mb, gb);\n"
		"                    %u .. %u bytes (64b .. 1gb).\n"
		"                    Default: max(2 full frames, 100us at RATE).\n"
		"  queues NUMBER     number of data queues, classes MAJOR:1 .. MAJOR:NUMBER;\n"
		"                    1 .. %u. Default %u.\n"
		"  strict NUMBER     queues 0 .. NUMBER-1 are strict priority, queue 0\n"
		"                    first; the others share the rest by DWRR; 0 .. queues.\n"
		"                    Default 0 (all DWRR).\n"
		"  quanta BYTES...   DWRR quantum in bytes of queue 0, 1, ... in order\n"
		"                    (a strict queue's quantum is unused); at most one per\n"
		"                    queue, each 1 .. %u. Queues not listed keep their\n"
		"                    quantum. Default: MTU + link header per queue (1514\n"
		"                    on a 1500-byte Ethernet port).\n"
		"  priomap QUEUE...  queue of skb->priority 0, 1, ... 15 in order: at most\n"
		"                    %u entries, each 0 .. queues-1; priorities not listed\n"
		"                    go to queue 0. Default: priority p to queue p for\n"
		"                    p < queues, the others to queue 0. A PFC frame for\n"
		"                    priority p (0..7) pauses the queue that priority p\n"
		"                    maps to; an 802.3x PAUSE frame pauses all queues.\n"
		"  limit PACKETS     length limit of each queue, in packets; 1 .. %u.\n"
		"                    Default %u.\n"
		"\n"
		"On \"tc qdisc change\", options left out keep their current value, except\n"
		"that a new \"queues\" without \"priomap\" resets the priomap to the default.\n"
		"skb->priority MAJOR:N (N = 1 .. queues, MAJOR = this qdisc's handle)\n"
		"selects queue N-1 directly.\n"
		"Example: tc qdisc add dev eth0 root handle 1: lossless rate 10gbit \\\n"
		"           queues 4 strict 1 priomap 1 1 2 3 0 1 1 1\n",
		LOSSLESS_RATE_MIN_BPS / 1000,
		(double)LOSSLESS_RATE_MAX_BPS / 1e12,
		LOSSLESS_BURST_MIN_BYTES, LOSSLESS_BURST_MAX_BYTES,
		LOSSLESS_MAX_QUEUES, LL_DEFAULT_QUEUES,
		LOSSLESS_QUANTUM_MAX_BYTES, LOSSLESS_PRIOMAP_LEN,
		LOSSLESS_LIMIT_MAX_PKTS, LL_DEFAULT_LIMIT);
}

static void cexplain(void)
{
	fprintf(stderr,
		"Usage: ... lossless\n"
		"The classes of a lossless qdisc (one per data queue) have no options of\n"
		"their own: set queues, strict, quanta and limit on the qdisc with\n"
		"\"tc qdisc change dev DEV root lossless ...\".\n");
}

/* Print "lossless: <message>" and the synopsis; tc then exits 1. */
static int __attribute__((format(printf, 1, 2))) ll_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("lossless: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage_synopsis();
	return -1;
}

/* Strict decimal: digits only (no sign, space, hex or suffix). */
static int ll_get_u64(const char *arg, __u64 *val)
{
	unsigned long long v;
	char *end;

	if (!arg || !isdigit((unsigned char)arg[0]))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end || errno == ERANGE)
		return -1;
	*val = v;
	return 0;
}

/* An integer option: value in [min, max], or a message naming the range. */
static int ll_get_ranged(const char *opt, const char *arg, __u64 min,
			 __u64 max, const char *unit, __u64 *val)
{
	if (ll_get_u64(arg, val) || *val < min || *val > max)
		return ll_fail("invalid %s \"%s\": must be an integer %llu .. %llu%s%s",
			       opt, arg, (unsigned long long)min,
			       (unsigned long long)max, unit ? " " : "",
			       unit ? unit : "");
	return 0;
}

static int ll_rate_range_fail(const char *arg)
{
	return ll_fail("invalid rate \"%s\": must be %llukbit .. %.1ftbit (%llu .. %llu bit/s), e.g. 10gbit",
		       arg, LOSSLESS_RATE_MIN_BPS / 1000,
		       (double)LOSSLESS_RATE_MAX_BPS / 1e12,
		       LOSSLESS_RATE_MIN_BPS, LOSSLESS_RATE_MAX_BPS);
}

/*
 * rate: tc's get_rate64() (same units as every tc qdisc), which returns
 * BYTES per second; the attribute is bits per second. get_rate64() casts a
 * double without a range check, so bound the value first: the scale of the
 * unit is what get_rate64() makes of "1000<unit>" (1000 * bits/unit / 8,
 * an exact integer for every tc unit).
 */
static int ll_parse_rate(const char *arg, const char *dev, __u64 *bps)
{
	char probe[64];
	__u64 bytes, per1000;
	size_t len;
	double v;
	char *unit;

	if (strchr(arg, '%')) {
		if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
			return ll_rate_range_fail(arg);
		if (get_percent_rate64(&bytes, arg, dev))
			return ll_fail("invalid rate \"%s\": a percentage must be 0 .. 100%% of the link speed %s reports",
				       arg, dev && *dev ? dev : "the device");
	} else {
		if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
			return ll_rate_range_fail(arg);
		v = strtod(arg, &unit);
		if (unit == arg || !isfinite(v))
			return ll_rate_range_fail(arg);
		/* tc's units are case-insensitive, so "10gbps" would be 10
		 * gigaBYTES/s, 8x what was probably meant: refuse a lower-case
		 * "bps" and ask for bit or Bps.
		 */
		len = strlen(unit);
		if (len >= 3 && strcmp(unit + len - 3, "bps") == 0)
			return ll_fail("invalid rate \"%s\": \"%s\" is ambiguous: write %.*sbit for bits/s or %.*sBps for bytes/s",
				       arg, unit, (int)(len - 3), unit,
				       (int)(len - 3), unit);
		if (snprintf(probe, sizeof(probe), "1000%s", unit) >= (int)sizeof(probe) ||
		    get_rate64(&per1000, probe))
			return ll_fail("invalid rate \"%s\": unknown unit \"%s\" (use bit, kbit, mbit, gbit, tbit, Bps, KBps, ...)",
				       arg, unit);
		/* bits = v * per1000 * 8 / 1000 */
		if (v * (double)per1000 / 125.0 > (double)LOSSLESS_RATE_MAX_BPS)
			return ll_rate_range_fail(arg);
		if (get_rate64(&bytes, arg))
			return ll_rate_range_fail(arg);
	}
	if (bytes > LOSSLESS_RATE_MAX_BPS / 8 || bytes * 8 < LOSSLESS_RATE_MIN_BPS)
		return ll_rate_range_fail(arg);
	*bps = bytes * 8;
	return 0;
}

static int ll_parse_burst(const char *arg, __u32 *burst)
{
	unsigned int sz;

	if ((!isdigit((unsigned char)arg[0]) && arg[0] != '.') ||
	    get_size(&sz, arg) ||
	    sz < LOSSLESS_BURST_MIN_BYTES || sz > LOSSLESS_BURST_MAX_BYTES)
		return ll_fail("invalid burst \"%s\": must be %u .. %u bytes (tc size units b, kb, mb, gb: 64b .. 1gb)",
			       arg, LOSSLESS_BURST_MIN_BYTES,
			       LOSSLESS_BURST_MAX_BYTES);
	*burst = sz;
	return 0;
}

static bool ll_looks_numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) || arg[0] == '-' || arg[0] == '+';
}

static int lossless_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	bool has_rate = false, has_burst = false, has_queues = false;
	bool has_strict = false, has_limit = false, has_quanta = false;
	bool has_priomap = false;
	enum { LIST_NONE, LIST_QUANTA, LIST_PRIOMAP } list = LIST_NONE;
	__u32 quanta[LOSSLESS_MAX_QUEUES];
	__u8 priomap[LOSSLESS_PRIOMAP_LEN] = {};
	unsigned int nquanta = 0, nprio = 0, i;
	__u32 burst = 0, limit = 0;
	__u8 queues = 0, strict = 0;
	__u64 rate_bps = 0, v;
	struct rtattr *tail;

	(void)qu;

	while (argc > 0) {
		const char *kw = *argv;

		if (list != LIST_NONE && ll_looks_numeric(kw)) {
			if (list == LIST_QUANTA) {
				if (nquanta == LOSSLESS_MAX_QUEUES)
					return ll_fail("too many quanta: at most %u values (one per queue)",
						       LOSSLESS_MAX_QUEUES);
				if (ll_get_u64(kw, &v) || !v ||
				    v > LOSSLESS_QUANTUM_MAX_BYTES)
					return ll_fail("invalid quanta entry \"%s\" for queue %u: must be an integer 1 .. %u bytes",
						       kw, nquanta,
						       LOSSLESS_QUANTUM_MAX_BYTES);
				quanta[nquanta++] = v;
			} else {
				if (nprio == LOSSLESS_PRIOMAP_LEN)
					return ll_fail("too many priomap entries: at most %u (skb->priority 0 .. %u)",
						       LOSSLESS_PRIOMAP_LEN,
						       LOSSLESS_PRIOMAP_LEN - 1);
				if (ll_get_u64(kw, &v) ||
				    v >= LOSSLESS_MAX_QUEUES)
					return ll_fail("invalid priomap entry \"%s\" for priority %u: must be a queue index 0 .. %u",
						       kw, nprio,
						       LOSSLESS_MAX_QUEUES - 1);
				priomap[nprio++] = v;
			}
			argc--, argv++;
			continue;
		}
		list = LIST_NONE;

		if (strcmp(kw, "help") == 0) {
			explain();
			return -1;
		}
		if (strcmp(kw, "rate") && strcmp(kw, "burst") &&
		    strcmp(kw, "queues") && strcmp(kw, "strict") &&
		    strcmp(kw, "limit") && strcmp(kw, "quanta") &&
		    strcmp(kw, "priomap"))
			return ll_fail("unknown option \"%s\"", kw);
		if (argc < 2)
			return ll_fail("option \"%s\" needs a value", kw);
		argc--, argv++;

		if (strcmp(kw, "rate") == 0) {
			if (has_rate)
				return ll_fail("duplicate \"rate\"");
			if (ll_parse_rate(*argv, dev, &rate_bps))
				return -1;
			has_rate = true;
		} else if (strcmp(kw, "burst") == 0) {
			if (has_burst)
				return ll_fail("duplicate \"burst\"");
			if (ll_parse_burst(*argv, &burst))
				return -1;
			has_burst = true;
		} else if (strcmp(kw, "queues") == 0) {
			if (has_queues)
				return ll_fail("duplicate \"queues\"");
			if (ll_get_ranged("queues", *argv, 1,
					  LOSSLESS_MAX_QUEUES, NULL, &v))
				return -1;
			queues = v;
			has_queues = true;
		} else if (strcmp(kw, "strict") == 0) {
			if (has_strict)
				return ll_fail("duplicate \"strict\"");
			if (ll_get_ranged("strict", *argv, 0,
					  LOSSLESS_MAX_QUEUES,
					  "(strict queues, at most queues)", &v))
				return -1;
			strict = v;
			has_strict = true;
		} else if (strcmp(kw, "limit") == 0) {
			if (has_limit)
				return ll_fail("duplicate \"limit\"");
			if (ll_get_ranged("limit", *argv, 1,
					  LOSSLESS_LIMIT_MAX_PKTS,
					  "packets per queue", &v))
				return -1;
			limit = v;
			has_limit = true;
		} else if (strcmp(kw, "quanta") == 0) {
			if (has_quanta)
				return ll_fail("duplicate \"quanta\"");
			if (!ll_looks_numeric(*argv))
				return ll_fail("option \"quanta\" needs a value");
			has_quanta = true;
			list = LIST_QUANTA;
			continue;	/* *argv is the first entry */
		} else {
			if (has_priomap)
				return ll_fail("duplicate \"priomap\"");
			if (!ll_looks_numeric(*argv))
				return ll_fail("option \"priomap\" needs a value");
			has_priomap = true;
			list = LIST_PRIOMAP;
			continue;
		}
		argc--, argv++;
	}

	/*
	 * Checks against the number of queues. Without "queues" the kernel
	 * checks against the current count (8 on "add"): "change" keeps it.
	 */
	if (has_queues) {
		if (has_strict && strict > queues)
			return ll_fail("invalid strict %u: must be 0 .. %u (at most queues %u)",
				       strict, queues, queues);
		if (nquanta > queues)
			return ll_fail("too many quanta: %u given, at most one per queue (queues %u)",
				       nquanta, queues);
		for (i = 0; i < nprio; i++)
			if (priomap[i] >= queues)
				return ll_fail("invalid priomap entry %u for priority %u: must be a queue index 0 .. %u (queues %u)",
					       priomap[i], i, queues - 1, queues);
	}

	tail = addattr_nest(n, LL_NLMSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (has_rate &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_RATE_BPS, &rate_bps,
		      sizeof(rate_bps)))
		return -1;
	if (has_burst &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_BURST_BYTES, &burst,
		      sizeof(burst)))
		return -1;
	if (has_queues &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_QUEUES, &queues,
		      sizeof(queues)))
		return -1;
	if (has_strict &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_STRICT, &strict,
		      sizeof(strict)))
		return -1;
	/* The kernel takes the whole map; priorities not listed: queue 0. */
	if (has_priomap &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_PRIOMAP, priomap,
		      sizeof(priomap)))
		return -1;
	if (has_quanta &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_QUANTA, quanta,
		      nquanta * sizeof(quanta[0])))
		return -1;
	if (has_limit &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_LIMIT_PKTS, &limit,
		      sizeof(limit)))
		return -1;
	addattr_nest_end(n, tail);
	return 0;
}

static int lossless_parse_copt(struct qdisc_util *qu, int argc, char **argv,
			       struct nlmsghdr *n, const char *dev)
{
	(void)qu, (void)n, (void)dev;

	if (argc > 0 && strcmp(*argv, "help") == 0) {
		cexplain();
		return -1;
	}
	if (argc > 0) {
		fprintf(stderr, "lossless: classes have no options (\"%s\")\n",
			*argv);
		cexplain();
		return -1;
	}
	fprintf(stderr, "lossless: classes are the qdisc's queues: they cannot be added, removed or changed\n");
	cexplain();
	return -1;
}

/* Exact, paste-back-able text for a rate in bit/s: the largest SI unit
 * that divides it ("10Gbit", "1500Mbit", "8001bit"). JSON gets bytes per
 * second like every tc rate (tc_print_rate); -iec uses tc's formatter.
 */
static void ll_print_rate(const char *key, const char *fmt, __u64 bps)
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

static int lossless_print_opt(struct qdisc_util *qu, FILE *f,
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
		ll_print_rate("rate", "rate %s ",
			      rta_getattr_u64(tb[TCA_LOSSLESS_RATE_BPS]));
	if (tb[TCA_LOSSLESS_BURST_BYTES] &&
	    RTA_PAYLOAD(tb[TCA_LOSSLESS_BURST_BYTES]) >= sizeof(__u32))
		ll_print_bytes("burst", "burst %s ",
			       rta_getattr_u32(tb[TCA_LOSSLESS_BURST_BYTES]));
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
	return 0;
}

static int lossless_print_copt(struct qdisc_util *qu, FILE *f,
			       struct rtattr *opt)
{
	(void)qu, (void)f, (void)opt;
	return 0;	/* classes carry no options; see print_xstats */
}

/* Gate set as text "prio 3 5 port" / "none" and JSON "<key>_prios": [3, 5],
 * "<key>_port": bool.
 */
static void ll_print_gates(const char *word, const char *key, __u32 mask)
{
	char jkey[32];
	unsigned int g;
	bool any = false;

	print_string(PRINT_FP, NULL, " %s", word);
	snprintf(jkey, sizeof(jkey), "%s_prios", key);
	open_json_array(PRINT_JSON, jkey);
	for (g = 0; g < LOSSLESS_PFC_PRIOS; g++) {
		if (!(mask & (1U << g)))
			continue;
		if (!any)
			print_string(PRINT_FP, NULL, " prio", NULL);
		print_uint(PRINT_ANY, NULL, " %u", g);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	snprintf(jkey, sizeof(jkey), "%s_port", key);
	print_bool(PRINT_JSON, jkey, NULL, mask & (1U << LOSSLESS_PFC_PRIOS));
	if (mask & (1U << LOSSLESS_PFC_PRIOS)) {
		print_string(PRINT_FP, NULL, " port", NULL);
		any = true;
	}
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
}

static void ll_print_time(const char *key, const char *fmt, __u64 ns)
{
	SPRINT_BUF(b);

	print_u64(PRINT_JSON, key, NULL, ns);
	print_string(PRINT_FP, NULL, fmt, sprint_time64(ns, b));
}

static void ll_print_qdisc_xstats(const struct tc_lossless_xstats *st)
{
	unsigned int g;

	print_u64(PRINT_ANY, "pfc_frames_rx", "  pfc_frames_rx %llu",
		  st->pfc_frames_rx);
	print_u64(PRINT_ANY, "pause_frames_rx", " pause_frames_rx %llu",
		  st->pause_frames_rx);
	print_u64(PRINT_ANY, "ctrl_invalid", " ctrl_invalid %llu",
		  st->ctrl_invalid);
	print_u64(PRINT_ANY, "throttled", " throttled %llu", st->throttled);
	print_u64(PRINT_ANY, "pause_blocked", " pause_blocked %llu",
		  st->pause_blocked);
	if (st->rate_bps)
		ll_print_rate("line_rate", " line_rate %s", st->rate_bps);
	print_nl();

	print_string(PRINT_FP, NULL, " ", NULL);
	print_uint(PRINT_JSON, "paused_mask", NULL, st->paused_mask);
	ll_print_gates("paused", "paused", st->paused_mask);

	/* Text: gates that ever saw a frame or are closed now (all with -d);
	 * JSON: all of them.
	 */
	open_json_array(PRINT_JSON, "gates");
	for (g = 0; g < LOSSLESS_GATES; g++) {
		const struct tc_lossless_gate_stats *gs = &st->gates[g];
		bool closed = st->paused_mask & (1U << g);
		char name[16];

		if (!is_json_context() && !show_details && !closed &&
		    !gs->xoff_frames && !gs->xon_frames && !gs->paused_ns)
			continue;
		if (g < LOSSLESS_PFC_PRIOS)
			snprintf(name, sizeof(name), "prio%u", g);
		else
			snprintf(name, sizeof(name), "port");
		print_nl();
		open_json_object(NULL);
		print_uint(PRINT_JSON, "gate", NULL, g);
		print_string(PRINT_ANY, "name", "  gate %s", name);
		print_u64(PRINT_ANY, "xoff_frames", " xoff %llu",
			  gs->xoff_frames);
		print_u64(PRINT_ANY, "xon_frames", " xon %llu", gs->xon_frames);
		ll_print_time("paused_time", " paused_time %s", gs->paused_ns);
		print_bool(PRINT_JSON, "paused", NULL, closed);
		if (closed)
			print_string(PRINT_FP, NULL, " (paused)", NULL);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static void ll_print_class_xstats(const struct tc_lossless_class_xstats *st)
{
	print_string(PRINT_ANY, "mode", "  mode %s",
		     st->strict ? "strict" : "dwrr");
	print_uint(PRINT_ANY, "quantum", " quantum %u", st->quantum_bytes);
	print_uint(PRINT_ANY, "limit", " limit %u", st->limit_pkts);
	print_uint(PRINT_JSON, "gate_mask", NULL, st->gate_mask);
	ll_print_gates("gates", "gate", st->gate_mask);
	print_nl();
	print_bool(PRINT_JSON, "paused", NULL, st->paused);
	print_string(PRINT_FP, NULL, "  paused %s", st->paused ? "yes" : "no");
	print_u64(PRINT_ANY, "pause_frames_rx", " pause_frames_rx %llu",
		  st->pause_frames_rx);
	ll_print_time("paused_time", " paused_time %s", st->paused_ns);
}

/*
 * Both kinds start with a __u32 type. Structs only grow at the end: copy
 * what the kernel sent into a zeroed struct of our size (fq's pattern), so
 * older and newer kernels both print.
 */
static int lossless_print_xstats(struct qdisc_util *qu, FILE *f,
				 struct rtattr *xstats)
{
	unsigned int len;
	__u32 type;

	(void)qu, (void)f;

	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	if (len < sizeof(type)) {
		print_string(PRINT_FP, NULL, "  (xstats too short)", NULL);
		return 0;
	}
	memcpy(&type, RTA_DATA(xstats), sizeof(type));

	if (type == TC_LOSSLESS_XSTATS_QDISC) {
		struct tc_lossless_xstats st;

		memset(&st, 0, sizeof(st));
		memcpy(&st, RTA_DATA(xstats), min(len, (unsigned int)sizeof(st)));
		ll_print_qdisc_xstats(&st);
	} else if (type == TC_LOSSLESS_XSTATS_CLASS) {
		struct tc_lossless_class_xstats st;

		memset(&st, 0, sizeof(st));
		memcpy(&st, RTA_DATA(xstats), min(len, (unsigned int)sizeof(st)));
		ll_print_class_xstats(&st);
	} else {
		print_uint(PRINT_ANY, "xstats_type", "  unknown xstats type %u",
			   type);
	}
	return 0;
}

struct qdisc_util lossless_qdisc_util = {
	.id		= "lossless",
	.parse_qopt	= lossless_parse_opt,
	.print_qopt	= lossless_print_opt,
	.print_xstats	= lossless_print_xstats,
	.parse_copt	= lossless_parse_copt,
	.print_copt	= lossless_print_copt,
};
