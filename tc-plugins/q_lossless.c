// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless.c: tc plugin for the out-of-tree "lossless" qdisc.
 *
 * tc dlopen()s $TC_LIB_DIR/q_lossless.so (default: the compiled-in lib
 * dir's tc/) and looks up lossless_qdisc_util. Everything the plugin calls
 * (addattr_l, print_*, get_size, get_percent_rate64, ...) is tc's own
 * code: tc is linked with -export-dynamic. It is built against the headers
 * of the Debian iproute2 source package of the installed tc (see
 * CMakeLists.txt), so struct qdisc_util matches the loader's layout.
 * The units of the options (sizes, times, rates, probabilities, alphas,
 * priorities, pool names) are parsed by daemon/common/ll_units.c, which
 * losslessd's configuration shares. The pool's options are rows of
 * daemon/common/ll_params.c, the table losslessd shares too: keyword,
 * synopsis, unit, range, netlink attribute, how it prints. Only the
 * options with a syntax of their own (pool, ecn, plane, scheme) have
 * code of their own here.
 *
 * Syntax, modelled on tc-ets and tc-tbf:
 *   lossless [ rate RATE ] [ burst BYTES ] [ catchup BYTES ] [ queues N ]
 *            [ strict N ] [ quanta Q0 Q1 ... ] [ priomap P0 P1 ... P15 ]
 *            [ limit PACKETS ] [ gates QUEUE:GATE[,GATE...] ... | default ]
 *            [ pool NAME ] [ buffer SIZE ] [ alpha A ] [ egress-alpha A ]
 *            [ lossless-prios LIST ] [ reserved SIZE ] [ xon-offset SIZE ]
 *            [ cable-delay TIME ] [ sw-delay TIME ] [ headroom SIZE ]
 *            [ ecn { KMIN KMAX PMAX | off } ]
 *            [ scheme { dt | NAME [ NAME-PARAM VALUE ] ... } ]
 *            [ mode { none | NAME [ NAME-PARAM VALUE ] ... } ]
 *            [ pfcwd { off | alert | forward | drop } ] [ pfcwd-detect TIME ]
 *            [ pfcwd-restore TIME ] [ pfcwd-poll TIME ] [ xoff-alarm TIME ]
 * The second group configures the shared-buffer switch MMU (kernel/core/
 * mmu.h): every qdisc naming the same pool in a network namespace is one
 * port of a software switch sharing one buffer.
 * The schemes and their parameters come from the parameter table
 * (ll_params.h), and so does usage() ('tc qdisc add lossless help').
 * print_qopt prints the same syntax, so `tc qdisc show` output pastes back.
 * Every check here is also done by the kernel (policy, pool configuration
 * check); checking early gives a message that names the option and the
 * valid range. The pool name's character set (A-Z a-z 0-9 _ . -, not
 * empty) is the plugin's own rule: the kernel takes any 1..15-byte string.
 *
 * The plugin's files:
 *   q_lossless.c         this one: the usage, the qdisc's own options
 *                        (parse_qopt), the classes' (none), lossless_qdisc_util
 *   q_lossless_pool.c    the shared-buffer pool's options and the plane map
 *   q_lossless_pfcwd.c   the PFC watchdog's options
 *   q_lossless_mode.c    a port's mode (mode.h), options and telemetry
 *   q_lossless_print.c   print_qopt
 *   q_lossless_xstats.c  print_xstats
 *   q_lossless.h         what they share (ll_tc_*, hidden from tc)
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"

#include "lossless.h"
#include "scheme_types.h"
#include "mode.h"
#include "ll_params.h"
#include "ll_units.h"
#include "q_lossless.h"

#define LL_USAGE_INDENT "                    "
#define LL_USAGE_WIDTH 80

/* One fragment of the usage, on the line if it fits, else on the next. */
static void usage_frag(size_t *col, const char *frag)
{
	size_t n = strlen(frag);

	if (*col && *col + 1 + n > LL_USAGE_WIDTH) {
		fputc('\n', stderr);
		*col = 0;
	}
	if (!*col)
		*col = fprintf(stderr, "%s%s", LL_USAGE_INDENT, frag);
	else
		*col += fprintf(stderr, " %s", frag);
}

/* The pool's options, from the table: "[ buffer SIZE ]" each, a scheme's
 * parameters inside "[ scheme ... ]" (ll_param_synopsis()'s text, in
 * fragments), as many to a line as fit.
 */
static void usage_pool_opts(void)
{
	const struct ll_param *sp;
	const char *name;
	unsigned int i, j, named;
	char frag[256];
	size_t col = 0;
	int id;

	for (i = 0; i < LL_P_COUNT; i++) {
		const struct ll_param *p = &ll_params[i];

		if (!p->tc || p->scheme >= 0)
			continue;
		if (p->unit != LL_PARAM_SCHEME) {
			ll_param_synopsis(p, frag, sizeof(frag));
			usage_frag(&col, frag);
			continue;
		}
		/* The scheme block starts a line. */
		if (col) {
			fputc('\n', stderr);
			col = 0;
		}
		snprintf(frag, sizeof(frag), "[ %s {", p->tc);
		usage_frag(&col, frag);
		named = 0;
		for (id = 0; id < LL_SCHEME_COUNT; id++) {
			name = ll_param_scheme_name(id);
			if (!name)
				continue;
			/* A scheme of several parameters starts a line. */
			if (col && ll_param_of_scheme(id, 1)) {
				fputc('\n', stderr);
				col = 0;
			}
			snprintf(frag, sizeof(frag), "%s%s", named++ ? "| " : "",
				 name);
			usage_frag(&col, frag);
			for (j = 0; (sp = ll_param_of_scheme(id, j)); j++) {
				if (!sp->tc)
					continue;
				snprintf(frag, sizeof(frag), "[ %s %s ]", sp->tc,
					 sp->arg);
				usage_frag(&col, frag);
			}
		}
		usage_frag(&col, "} ]");
	}
	if (col)
		fputc('\n', stderr);
}

/* "[ mode { none | NAME [ NAME-PARAM ARG ] ... } ]", from the modes. */
static void usage_mode_opts(void)
{
	const struct ll_mode_desc *d;
	unsigned int id, j;
	char frag[128];
	size_t col = 0;

	usage_frag(&col, "[ mode { none");
	for (id = 1; id < LL_MODE_COUNT; id++) {
		d = ll_mode_lookup(id);
		if (!d)
			continue;
		snprintf(frag, sizeof(frag), "| %s", d->name);
		usage_frag(&col, frag);
		for (j = 0; j < d->n_params; j++) {
			snprintf(frag, sizeof(frag), "[ %s %s ]",
				 d->params[j].tc, d->params[j].arg);
			usage_frag(&col, frag);
		}
	}
	usage_frag(&col, "} ]");
	fputc('\n', stderr);
}

static void usage_synopsis(void)
{
	fprintf(stderr,
		"Usage: ... lossless [ rate RATE ] [ burst BYTES ] [ catchup BYTES ]\n"
		LL_USAGE_INDENT "[ queues NUMBER ]\n"
		LL_USAGE_INDENT "[ strict NUMBER ] [ quanta BYTES0 BYTES1 ... ]\n"
		LL_USAGE_INDENT "[ priomap QUEUE0 QUEUE1 ... QUEUE15 ] [ limit PACKETS ]\n"
		LL_USAGE_INDENT "[ gates { QUEUE:GATE[,GATE...] ... | default } ]\n");
	usage_pool_opts();
	usage_mode_opts();
	fprintf(stderr,
		LL_USAGE_INDENT "[ pfcwd { off | alert | forward | drop } ]\n"
		LL_USAGE_INDENT "[ pfcwd-detect TIME ] [ pfcwd-restore TIME ]\n"
		LL_USAGE_INDENT "[ pfcwd-poll TIME ] [ xoff-alarm { TIME | off } ]\n");
}

/* A synopsis, as q_fq.c's: the options' prose is in man/tc-lossless.8. */
static void explain(void)
{
	usage_synopsis();
	fprintf(stderr, "See tc-lossless(8).\n");
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
int __attribute__((format(printf, 1, 2))) ll_tc_fail(const char *fmt, ...)
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
		return ll_tc_fail("invalid %s \"%s\": must be an integer %llu .. %llu%s%s",
				  opt, arg, (unsigned long long)min,
				  (unsigned long long)max, unit ? " " : "",
				  unit ? unit : "");
	return 0;
}

static int ll_rate_range_fail(const char *arg)
{
	return ll_tc_fail("invalid rate \"%s\": must be %llukbit .. %.1ftbit (%llu .. %llu bit/s), e.g. 10gbit",
			  arg, LOSSLESS_RATE_MIN_BPS / 1000,
			  (double)LOSSLESS_RATE_MAX_BPS / 1e12,
			  LOSSLESS_RATE_MIN_BPS, LOSSLESS_RATE_MAX_BPS);
}

/*
 * rate: tc's rate units, parsed by the shared ll_units_rate() (the same
 * table and arithmetic as tc's get_rate64(), bounded before the double is
 * converted). A percentage of the link speed needs the device's sysfs, so
 * it stays with tc's get_percent_rate64().
 */
static int ll_parse_rate(const char *arg, const char *dev, __u64 *bps)
{
	const char *unit;
	uint64_t v;
	__u64 bytes;
	size_t len;

	if (strchr(arg, '%')) {
		if (!isdigit((unsigned char)arg[0]) && arg[0] != '.')
			return ll_rate_range_fail(arg);
		if (get_percent_rate64(&bytes, arg, dev))
			return ll_tc_fail("invalid rate \"%s\": a percentage must be 0 .. 100%% of the link speed %s reports",
					  arg, dev && *dev ? dev : "the device");
		if (bytes > LOSSLESS_RATE_MAX_BPS / 8 ||
		    bytes * 8 < LOSSLESS_RATE_MIN_BPS)
			return ll_rate_range_fail(arg);
		*bps = bytes * 8;
		return 0;
	}
	switch (ll_units_rate(arg, LOSSLESS_RATE_MIN_BPS, LOSSLESS_RATE_MAX_BPS,
			      &v, &unit)) {
	case LL_UNITS_RATE_OK:
		*bps = v;
		return 0;
	case LL_UNITS_RATE_AMBIGUOUS:
		len = strlen(unit);
		return ll_tc_fail("invalid rate \"%s\": \"%s\" is ambiguous: write %.*sbit for bits/s or %.*sBps for bytes/s",
				  arg, unit, (int)(len - 3), unit,
				  (int)(len - 3), unit);
	case LL_UNITS_RATE_UNIT:
		return ll_tc_fail("invalid rate \"%s\": unknown unit \"%s\" (use %s)",
				  arg, unit, LL_UNITS_RATE_UNITS);
	default:
		return ll_rate_range_fail(arg);
	}
}

static int ll_parse_burst(const char *kw, const char *arg, __u32 *burst)
{
	unsigned int sz;

	if ((!isdigit((unsigned char)arg[0]) && arg[0] != '.') ||
	    get_size(&sz, arg) ||
	    sz < LOSSLESS_BURST_MIN_BYTES || sz > LOSSLESS_BURST_MAX_BYTES)
		return ll_tc_fail("invalid %s \"%s\": must be %u .. %u bytes (tc size units b, kb, mb, gb: 64b .. 1gb)",
				  kw, arg, LOSSLESS_BURST_MIN_BYTES,
				  LOSSLESS_BURST_MAX_BYTES);
	*burst = sz;
	return 0;
}

static bool ll_looks_numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) || arg[0] == '-' || arg[0] == '+';
}

/* One gate of "gates": an id 0 .. 23, or "port" (8). */
static int ll_parse_gate_id(const char *g, unsigned int queue, __u32 *mask)
{
	char *end;
	unsigned long id;

	if (strcmp(g, "port") == 0) {
		*mask |= 1u << LOSSLESS_GATE_PORT;
		return 0;
	}
	id = isdigit((unsigned char)g[0]) ? strtoul(g, &end, 10) : ULONG_MAX;
	if (id >= LOSSLESS_GATE_IDS || *end)
		return ll_tc_fail("invalid gate \"%s\" for queue %u: must be a gate id 0 .. %u (0 .. 7 the PFC priorities, port or %u the port, %u .. %u free)",
				  g, queue, LOSSLESS_GATE_IDS - 1,
				  LOSSLESS_GATE_PORT, LOSSLESS_GATE_PORT + 1,
				  LOSSLESS_GATE_IDS - 1);
	*mask |= 1u << id;
	return 0;
}

/*
 * "gates QUEUE:GATE[,GATE...] ..." or "gates default": the gates that stop
 * each listed queue (TCA_LOSSLESS_GATES); the others keep their
 * priorities' and the port's. gates[] comes zeroed; consumes its entries.
 */
static int ll_parse_gates(int *argc, char ***argv, __u32 *gates,
			  unsigned int *ngates)
{
	bool seen[LOSSLESS_MAX_QUEUES] = {};

	*ngates = 0;
	if (strcmp(**argv, "default") == 0) {
		(*argc)--, (*argv)++;
		return 0;
	}
	if (!strchr(**argv, ':'))
		return ll_tc_fail("invalid gates entry \"%s\": must be QUEUE:GATE[,GATE...] (e.g. 4:3,port) or \"default\"",
				  **argv);
	while (*argc > 0 && strchr(**argv, ':')) {
		char buf[128], *colon, *g, *save = NULL;
		unsigned long queue;
		__u32 mask = 0;

		if (strlen(**argv) >= sizeof(buf))
			return ll_tc_fail("invalid gates entry \"%.32s...\": too long",
					  **argv);
		strcpy(buf, **argv);
		colon = strchr(buf, ':');
		*colon = '\0';
		queue = isdigit((unsigned char)buf[0]) ? strtoul(buf, &g, 10) : ULONG_MAX;
		if (queue >= LOSSLESS_MAX_QUEUES || *g)
			return ll_tc_fail("invalid gates entry \"%s\": the queue must be an index 0 .. %u",
					  **argv, LOSSLESS_MAX_QUEUES - 1);
		if (seen[queue])
			return ll_tc_fail("invalid gates entry \"%s\": queue %lu listed twice",
					  **argv, queue);
		seen[queue] = true;
		for (g = strtok_r(colon + 1, ",", &save); g;
		     g = strtok_r(NULL, ",", &save))
			if (ll_parse_gate_id(g, queue, &mask))
				return -1;
		if (!mask)
			return ll_tc_fail("invalid gates entry \"%s\": name at least one gate",
					  **argv);
		/* gates[] is zeroed: queues not listed keep their priomap's. */
		if (*ngates <= queue)
			*ngates = queue + 1;
		gates[queue] = mask;
		(*argc)--, (*argv)++;
	}
	return 0;
}

static int lossless_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	bool has_rate = false, has_burst = false, has_queues = false;
	bool has_catchup = false;
	bool has_strict = false, has_limit = false, has_quanta = false;
	bool has_priomap = false, has_gates = false;
	enum { LIST_NONE, LIST_QUANTA, LIST_PRIOMAP } list = LIST_NONE;
	__u32 quanta[LOSSLESS_MAX_QUEUES], gates[LOSSLESS_MAX_QUEUES] = {};
	unsigned int ngates = 0;
	__u8 priomap[LOSSLESS_PRIOMAP_LEN] = {};
	unsigned int nquanta = 0, nprio = 0, i;
	__u32 burst = 0, catchup = 0, limit = 0;
	__u8 queues = 0, strict = 0;
	__u64 rate_bps = 0, v;
	struct ll_pool_opts po = {};
	struct ll_wd_opts wo = {};
	struct ll_mode_opts mo = {};
	struct rtattr *tail;

	(void)qu;
	/* tc -batch: the previous command has had its answer. */
	ll_tc_plane_settle();

	while (argc > 0) {
		const char *kw = *argv;
		const struct ll_param *pool_opt;

		if (list != LIST_NONE && ll_looks_numeric(kw)) {
			if (list == LIST_QUANTA) {
				if (nquanta == LOSSLESS_MAX_QUEUES)
					return ll_tc_fail("too many quanta: at most %u values (one per queue)",
							  LOSSLESS_MAX_QUEUES);
				if (ll_get_u64(kw, &v) || !v ||
				    v > LOSSLESS_QUANTUM_MAX_BYTES)
					return ll_tc_fail("invalid quanta entry \"%s\" for queue %u: must be an integer 1 .. %u bytes",
							  kw, nquanta,
							  LOSSLESS_QUANTUM_MAX_BYTES);
				quanta[nquanta++] = v;
			} else {
				if (nprio == LOSSLESS_PRIOMAP_LEN)
					return ll_tc_fail("too many priomap entries: at most %u (skb->priority 0 .. %u)",
							  LOSSLESS_PRIOMAP_LEN,
							  LOSSLESS_PRIOMAP_LEN - 1);
				if (ll_get_u64(kw, &v) ||
				    v >= LOSSLESS_MAX_QUEUES)
					return ll_tc_fail("invalid priomap entry \"%s\" for priority %u: must be a queue index 0 .. %u",
							  kw, nprio,
							  LOSSLESS_MAX_QUEUES - 1);
				priomap[nprio++] = v;
			}
			argc--, argv++;
			continue;
		}
		list = LIST_NONE;
		pool_opt = ll_param_by_tc(kw);

		if (strcmp(kw, "help") == 0) {
			explain();
			return -1;
		}
		if (strcmp(kw, "rate") && strcmp(kw, "burst") &&
		    strcmp(kw, "catchup") &&
		    strcmp(kw, "queues") && strcmp(kw, "strict") &&
		    strcmp(kw, "limit") && strcmp(kw, "quanta") &&
		    strcmp(kw, "priomap") && strcmp(kw, "gates") && !pool_opt &&
		    !ll_tc_is_wd_kw(kw) && !ll_tc_is_mode_kw(kw))
			return ll_tc_fail("unknown option \"%s\"", kw);
		if (argc < 2)
			return ll_tc_fail("option \"%s\" needs a value", kw);
		argc--, argv++;

		if (pool_opt) {
			int used;

			if (ll_tc_parse_pool_opt(pool_opt, argc, argv, &po, &used))
				return -1;
			argc -= used, argv += used;
			continue;
		}
		if (ll_tc_is_wd_kw(kw)) {
			if (ll_tc_parse_wd_opt(kw, *argv, &wo))
				return -1;
			argc--, argv++;
			continue;
		}
		if (ll_tc_is_mode_kw(kw)) {
			if (ll_tc_parse_mode_opt(kw, *argv, &mo))
				return -1;
			if (!po.first_pool_only)
				po.first_pool_only = kw;
			argc--, argv++;
			continue;
		}
		if (strcmp(kw, "rate") == 0) {
			if (has_rate)
				return ll_tc_fail("duplicate \"rate\"");
			if (ll_parse_rate(*argv, dev, &rate_bps))
				return -1;
			has_rate = true;
		} else if (strcmp(kw, "burst") == 0) {
			if (has_burst)
				return ll_tc_fail("duplicate \"burst\"");
			if (ll_parse_burst(kw, *argv, &burst))
				return -1;
			has_burst = true;
		} else if (strcmp(kw, "catchup") == 0) {
			if (has_catchup)
				return ll_tc_fail("duplicate \"catchup\"");
			if (ll_parse_burst(kw, *argv, &catchup))
				return -1;
			has_catchup = true;
		} else if (strcmp(kw, "queues") == 0) {
			if (has_queues)
				return ll_tc_fail("duplicate \"queues\"");
			if (ll_get_ranged("queues", *argv, 1,
					  LOSSLESS_MAX_QUEUES, NULL, &v))
				return -1;
			queues = v;
			has_queues = true;
		} else if (strcmp(kw, "strict") == 0) {
			if (has_strict)
				return ll_tc_fail("duplicate \"strict\"");
			if (ll_get_ranged("strict", *argv, 0,
					  LOSSLESS_MAX_QUEUES,
					  "(strict queues, at most queues)", &v))
				return -1;
			strict = v;
			has_strict = true;
		} else if (strcmp(kw, "limit") == 0) {
			if (has_limit)
				return ll_tc_fail("duplicate \"limit\"");
			if (ll_get_ranged("limit", *argv, 1,
					  LOSSLESS_LIMIT_MAX_PKTS,
					  "packets per queue", &v))
				return -1;
			limit = v;
			has_limit = true;
		} else if (strcmp(kw, "gates") == 0) {
			if (has_gates)
				return ll_tc_fail("duplicate \"gates\"");
			if (ll_parse_gates(&argc, &argv, gates, &ngates))
				return -1;
			has_gates = true;
			continue;	/* its entries are consumed */
		} else if (strcmp(kw, "quanta") == 0) {
			if (has_quanta)
				return ll_tc_fail("duplicate \"quanta\"");
			if (!ll_looks_numeric(*argv))
				return ll_tc_fail("option \"quanta\" needs a value");
			has_quanta = true;
			list = LIST_QUANTA;
			continue;	/* *argv is the first entry */
		} else {
			if (has_priomap)
				return ll_tc_fail("duplicate \"priomap\"");
			if (!ll_looks_numeric(*argv))
				return ll_tc_fail("option \"priomap\" needs a value");
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
			return ll_tc_fail("invalid strict %u: must be 0 .. %u (at most queues %u)",
					  strict, queues, queues);
		if (nquanta > queues)
			return ll_tc_fail("too many quanta: %u given, at most one per queue (queues %u)",
					  nquanta, queues);
		if (ngates > queues)
			return ll_tc_fail("invalid gates entry for queue %u: must be a queue index 0 .. %u (queues %u)",
					  ngates - 1, queues - 1, queues);
		for (i = 0; i < nprio; i++)
			if (priomap[i] >= queues)
				return ll_tc_fail("invalid priomap entry %u for priority %u: must be a queue index 0 .. %u (queues %u)",
						  priomap[i], i, queues - 1, queues);
	}

	/*
	 * The catch-up includes the bucket. Against the qdisc's current burst
	 * (no "burst" here) the kernel raises a smaller catch-up to it.
	 */
	if (has_catchup && has_burst && catchup < burst)
		return ll_tc_fail("invalid catchup %u: must be %u .. %u bytes (at least burst %u)",
				  catchup, burst, LOSSLESS_BURST_MAX_BYTES, burst);
	if (ll_tc_check_wd_opts(&wo) || ll_tc_check_scheme_opts(&po) ||
	    ll_tc_check_mode_opts(&mo))
		return -1;

	/*
	 * "tc qdisc add" (NLM_F_EXCL) makes a new qdisc, which has a pool only
	 * if "pool" is given: the kernel would refuse the pool's options
	 * (and "plane" would have been pinned for nothing). A change or
	 * replace may address a pool member, so there the kernel decides.
	 */
	if ((n->nlmsg_flags & NLM_F_EXCL) && !po.given[LL_P_POOL] && po.first_pool_only)
		return ll_tc_fail("option \"%s\" needs \"pool NAME\"",
				  po.first_pool_only);

	tail = addattr_nest(n, LL_NLMSG_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (has_rate &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_RATE_BPS, &rate_bps,
		      sizeof(rate_bps)))
		return -1;
	if (has_burst &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_BURST_BYTES, &burst,
		      sizeof(burst)))
		return -1;
	if (has_catchup &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_CATCHUP_BYTES, &catchup,
		      sizeof(catchup)))
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
	/* The whole map: queues not listed get 0, their default gates. */
	if (has_gates &&
	    addattr_l(n, LL_NLMSG_MAX, TCA_LOSSLESS_GATES, gates,
		      ngates * sizeof(gates[0])))
		return -1;
	if (ll_tc_put_pool_opts(n, &po))
		return -1;
	if (ll_tc_put_wd_opts(n, &wo))
		return -1;
	if (ll_tc_put_mode_opts(n, &mo))
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

static int lossless_print_copt(struct qdisc_util *qu, FILE *f,
			       struct rtattr *opt)
{
	(void)qu, (void)f, (void)opt;
	return 0;	/* classes carry no options; see print_xstats */
}

struct qdisc_util lossless_qdisc_util = {
	.id		= "lossless",
	.parse_qopt	= lossless_parse_opt,
	.print_qopt	= ll_tc_print_opt,
	.print_xstats	= ll_tc_print_xstats,
	.parse_copt	= lossless_parse_copt,
	.print_copt	= lossless_print_copt,
};
