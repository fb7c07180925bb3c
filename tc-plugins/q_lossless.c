// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless.c: tc plugin for the out-of-tree "lossless" qdisc.
 *
 * tc dlopen()s $TC_LIB_DIR/q_lossless.so (default: the compiled-in lib
 * dir's tc/) and looks up lossless_qdisc_util. Everything this file calls
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
 *            [ limit PACKETS ]
 *            [ pool NAME ] [ buffer SIZE ] [ alpha A ] [ egress-alpha A ]
 *            [ lossless-prios LIST ] [ reserved SIZE ] [ xon-offset SIZE ]
 *            [ cable-delay TIME ] [ sw-delay TIME ] [ headroom SIZE ]
 *            [ ecn { KMIN KMAX PMAX | off } ]
 *            [ scheme { dt | st [ st-threshold SIZE ]
 *                     | dsh [ dsh-window TIME ] [ dsh-ewma-shift N ]
 *                           [ dsh-gain N ] [ dsh-variant VARIANT ]
 *                     | spfc [ spfc-window TIME ] [ spfc-irc-th SIZE ]
 *                            [ spfc-irc-th-packets N ]
 *                            [ spfc-victim-threshold SIZE ]
 *                            [ spfc-mode MODE ] [ spfc-k N ] } ]
 *            [ pfcwd { off | alert | forward | drop } ] [ pfcwd-detect TIME ]
 *            [ pfcwd-restore TIME ] [ pfcwd-poll TIME ] [ xoff-alarm TIME ]
 * The second group configures the shared-buffer switch MMU (kernel/core/
 * mmu.h): every qdisc naming the same pool in a network namespace is one
 * port of a software switch sharing one buffer.
 * print_qopt prints the same syntax, so `tc qdisc show` output pastes back.
 * Every check here is also done by the kernel (policy, pool configuration
 * check); checking early gives a message that names the option and the
 * valid range. The pool name's character set (A-Z a-z 0-9 _ . -, not
 * empty) is the plugin's own rule: the kernel takes any 1..15-byte string.
 */

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"		/* use_iec */

#include "lossless.h"
#include "scheme_types.h"
#include "ll_plane_map.h"
#include "ll_params.h"
#include "ll_units.h"

/* tc_qdisc.c gives parse_qopt a 64 KiB request buffer; stay well inside. */
#define LL_NLMSG_MAX 4096

/* Shared-buffer pool limits (the rest are ll_params.c's rows). */
#define LL_POOL_NAME_MAX LL_UNITS_POOL_NAME_MAX	/* LL_POOL_NAME_LEN - 1 */
#define LL_POOL_NAME_CHARS LL_UNITS_POOL_NAME_CHARS
#define LL_ECN_PMAX_ONE LL_UNITS_PROB_ONE		/* probability 1.0 */

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
	unsigned int i, j;
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
		snprintf(frag, sizeof(frag), "[ %s {", p->tc);
		usage_frag(&col, frag);
		for (id = 0; (name = ll_param_scheme_name(id)); id++) {
			/* A scheme of several parameters starts a line. */
			if (col && ll_param_of_scheme(id, 1)) {
				fputc('\n', stderr);
				col = 0;
			}
			snprintf(frag, sizeof(frag), "%s%s", id ? "| " : "", name);
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

static void usage_synopsis(void)
{
	fprintf(stderr,
		"Usage: ... lossless [ rate RATE ] [ burst BYTES ] [ catchup BYTES ]\n"
		LL_USAGE_INDENT "[ queues NUMBER ]\n"
		LL_USAGE_INDENT "[ strict NUMBER ] [ quanta BYTES0 BYTES1 ... ]\n"
		LL_USAGE_INDENT "[ priomap QUEUE0 QUEUE1 ... QUEUE15 ] [ limit PACKETS ]\n");
	usage_pool_opts();
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
			return ll_fail("invalid rate \"%s\": a percentage must be 0 .. 100%% of the link speed %s reports",
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
		return ll_fail("invalid rate \"%s\": \"%s\" is ambiguous: write %.*sbit for bits/s or %.*sBps for bytes/s",
			       arg, unit, (int)(len - 3), unit,
			       (int)(len - 3), unit);
	case LL_UNITS_RATE_UNIT:
		return ll_fail("invalid rate \"%s\": unknown unit \"%s\" (use %s)",
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
		return ll_fail("invalid %s \"%s\": must be %u .. %u bytes (tc size units b, kb, mb, gb: 64b .. 1gb)",
			       kw, arg, LOSSLESS_BURST_MIN_BYTES,
			       LOSSLESS_BURST_MAX_BYTES);
	*burst = sz;
	return 0;
}

static bool ll_looks_numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) || arg[0] == '-' || arg[0] == '+';
}

/* ------------------------------------------------- shared-buffer options */

/* A size: the shared ll_units_size() (get_size()'s units, 64-bit, strict). */
static int ll_size_value(const char *arg, __u64 *out)
{
	uint64_t v;

	if (ll_units_size(arg, &v))
		return -1;
	*out = v;
	return 0;
}

/*
 * A value of a row of the table (size, time, alpha, priorities), parsed
 * and range-checked by the shared ll_param_parse(); the message names the
 * option and what it must be.
 */
static int ll_parse_param(const struct ll_param *p, const char *arg, __u64 *out)
{
	char range[256];
	long long bad = 0;
	uint64_t v = 0;

	switch (ll_param_parse(p, arg, &v, &bad)) {
	case LL_PARAM_OK:
		*out = v;
		return 0;
	case LL_PARAM_EALPHA_NUM:
		return ll_fail("invalid %s \"%s\": the numerator must be an integer 1 .. %u (%s)",
			       p->tc, arg, LL_ALPHA_NUM_MAX, LL_ALPHA_FORM);
	case LL_PARAM_EALPHA_DEN:
		return ll_fail("invalid %s \"%s\": the denominator must be a power of two 1 .. %llu = 2^%u (%s)",
			       p->tc, arg, 1ULL << LL_ALPHA_SHIFT_MAX,
			       LL_ALPHA_SHIFT_MAX, LL_ALPHA_FORM);
	case LL_PARAM_EPRIO_DUP:
		return ll_fail("invalid %s \"%s\": priority %lld is listed twice",
			       p->tc, arg, bad);
	case LL_PARAM_ECOMBO:
		ll_param_text(p, p->excl, range, sizeof(range));
		return ll_fail("invalid %s \"%s\": %s do not go together",
			       p->tc, arg, range);
	default:
		ll_param_range(p, range, sizeof(range));
		return ll_fail("invalid %s \"%s\": must be %s", p->tc, arg, range);
	}
}

static int ll_parse_pool_name(const char *arg, char *name)
{
	int bad = ll_units_pool_name(arg);

	if (bad < 0)
		return ll_fail("invalid pool \"%s\": the name must be 1 .. %u characters of %s",
			       arg, LL_POOL_NAME_MAX, LL_POOL_NAME_CHARS);
	if (bad > 0) {
		unsigned char c = arg[bad - 1];

		return ll_fail("invalid pool \"%s\": character %d ('%c') is not allowed: the name must be 1 .. %u characters of %s",
			       arg, bad, isascii(c) && isprint(c) ? c : '?',
			       LL_POOL_NAME_MAX, LL_POOL_NAME_CHARS);
	}
	memcpy(name, arg, strlen(arg) + 1);
	return 0;
}

/* A probability as a plain decimal 0 .. 1 -> 1/65536 units, rounded
 * (the shared ll_units_prob()).
 */
static int ll_prob_value(const char *arg, __u32 *out)
{
	uint32_t v;

	if (ll_units_prob(arg, &v))
		return -1;
	*out = v;
	return 0;
}

/* The pool's options given: one slot per row of the table (ll_params). */
struct ll_pool_opts {
	bool given[LL_P_COUNT];
	__u64 val[LL_P_COUNT];		/* units; scheme: its id */
	char pool[LL_POOL_NAME_MAX + 1];
	const char *plane;
	const char *first_pool_only;	/* first option given that needs a pool */
	__u32 kmin, kmax, pmax;
};

/* ecn KMIN KMAX PMAX | ecn off; argv[0] is the first value. */
static int ll_parse_ecn(int argc, char **argv, struct ll_pool_opts *o,
			int *used)
{
	__u64 kmin, kmax;

	if (strcmp(argv[0], "off") == 0) {
		o->kmin = o->kmax = o->pmax = 0;
		*used = 1;
		return 0;
	}
	if (argc < 3)
		return ll_fail("option \"ecn\" needs KMIN KMAX PMAX (or \"off\")");
	if (ll_size_value(argv[0], &kmin) || kmin > UINT32_MAX)
		return ll_fail("invalid ecn KMIN \"%s\": must be 0 .. %u bytes (tc size units b, kb, mb, gb)",
			       argv[0], UINT32_MAX);
	if (ll_size_value(argv[1], &kmax) || !kmax || kmax > UINT32_MAX)
		return ll_fail("invalid ecn KMAX \"%s\": must be 1 .. %u bytes (tc size units b, kb, mb, gb)",
			       argv[1], UINT32_MAX);
	if (kmin >= kmax)
		return ll_fail("invalid ecn \"%s %s\": KMIN (%llu bytes) must be below KMAX (%llu bytes)",
			       argv[0], argv[1], (unsigned long long)kmin,
			       (unsigned long long)kmax);
	if (ll_prob_value(argv[2], &o->pmax))
		return ll_fail("invalid ecn PMAX \"%s\": must be a probability 0 .. 1 written as a decimal (0.2)",
			       argv[2]);
	o->kmin = kmin;
	o->kmax = kmax;
	*used = 3;
	return 0;
}

static int ll_parse_scheme(const char *arg, __u64 *id)
{
	const char *name;
	int i;

	for (i = 0; (name = ll_param_scheme_name(i)); i++)
		if (strcmp(arg, name) == 0) {
			*id = i;
			return 0;
		}
	return ll_fail("invalid scheme \"%s\": one of %s", arg,
		       LL_SCHEME_NAMES_HELP);
}

/* The pool option of row p; argv[0] is its value, *used values consumed. */
static int ll_parse_pool_opt(const struct ll_param *p, int argc, char **argv,
			     struct ll_pool_opts *o, int *used)
{
	unsigned int i = p - ll_params;
	const char *arg = argv[0];

	*used = 1;
	if (p->unit != LL_PARAM_NAME && !o->first_pool_only)
		o->first_pool_only = p->tc;
	if (o->given[i])
		return ll_fail("duplicate \"%s\"", p->tc);
	o->given[i] = true;

	switch (p->unit) {
	case LL_PARAM_NAME:
		return ll_parse_pool_name(arg, o->pool);
	case LL_PARAM_ECN:
		return ll_parse_ecn(argc, argv, o, used);
	case LL_PARAM_PLANE:
		o->plane = arg;
		return 0;
	case LL_PARAM_SCHEME:
		return ll_parse_scheme(arg, &o->val[i]);
	default:
		return ll_parse_param(p, arg, &o->val[i]);
	}
}

/*
 * Plane maps this tc process created and pinned. tc sends the request that
 * hands one to the kernel only after parsing; if the kernel refuses it (or
 * tc stops before sending it), the pin must not stay behind. So each pin
 * is settled afterwards, at exit or when "tc -batch" parses its next
 * command: it stays if a lossless qdisc of this network namespace now has
 * the map as its plane (the kernel dumps its id), or if that cannot be
 * known (the dump failed); otherwise the pin and the directories made for
 * it are removed. A map that was already pinned at PATH is never touched.
 */
#define LL_PLANE_PINS_MAX 16
static struct ll_plane_pin {
	char *path;
	size_t made_from;	/* directories made: prefixes this long or more */
	__u32 id;
} ll_plane_pins[LL_PLANE_PINS_MAX];
static unsigned int ll_plane_npins;

/* The length of the shortest parent directory of path that does not exist
 * (those ll_plane_map_open() will make), or 0 if they all do.
 */
static size_t ll_missing_dirs_from(const char *path)
{
	char dir[4096];
	struct stat st;
	size_t i, n = strlen(path);

	if (n >= sizeof(dir))
		return 0;
	memcpy(dir, path, n + 1);
	for (i = 1; i < n; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		if (stat(dir, &st))
			return i;
		dir[i] = '/';
	}
	return 0;
}

static int ll_plane_find_cb(struct nlmsghdr *n, void *arg)
{
	struct tcmsg *t = NLMSG_DATA(n);
	struct rtattr *tb[TCA_MAX + 1], *o[TCA_LOSSLESS_MAX + 1];
	int len = n->nlmsg_len - NLMSG_LENGTH(sizeof(*t));
	__u32 *id = arg;

	if (n->nlmsg_type != RTM_NEWQDISC || len < 0)
		return 0;
	parse_rtattr(tb, TCA_MAX, TCA_RTA(t), len);
	if (!tb[TCA_KIND] || strcmp(rta_getattr_str(tb[TCA_KIND]), "lossless") ||
	    !tb[TCA_OPTIONS])
		return 0;
	parse_rtattr_nested(o, TCA_LOSSLESS_MAX, tb[TCA_OPTIONS]);
	if (o[TCA_LOSSLESS_PLANE_ID] &&
	    RTA_PAYLOAD(o[TCA_LOSSLESS_PLANE_ID]) >= sizeof(__u32) &&
	    rta_getattr_u32(o[TCA_LOSSLESS_PLANE_ID]) == *id)
		*id = 0;	/* found */
	return 0;
}

static int ll_ignore_cb(struct nlmsghdr *n, void *arg)
{
	(void)n;
	(void)arg;
	return 0;
}

/* Whether a lossless qdisc has map id as its plane; true if unknown. */
static bool ll_plane_in_use(__u32 id)
{
	struct rtnl_handle rth = { .fd = -1 };
	struct tcmsg t = { .tcm_family = AF_UNSPEC };
	__u32 want = id;
	bool known;

	if (!id || rtnl_open(&rth, 0) < 0)
		return true;
	/*
	 * A lossless qdisc's message (two copies of its xstats) is larger
	 * than NLMSG_GOODSIZE. The kernel sizes a dump's buffers by the
	 * largest read done on the socket so far, and on a fresh socket a
	 * qdisc that does not fit is left out of the dump without an error.
	 * A link dump first (read with tc's 32 KiB buffer) sizes them.
	 */
	known = rtnl_linkdump_req(&rth, AF_UNSPEC) >= 0 &&
		rtnl_dump_filter(&rth, ll_ignore_cb, NULL) >= 0 &&
		rtnl_dump_request(&rth, RTM_GETQDISC, &t, sizeof(t)) >= 0 &&
		rtnl_dump_filter(&rth, ll_plane_find_cb, &want) >= 0;
	rtnl_close(&rth);
	return !known || !want;
}

static void ll_plane_settle(void)
{
	unsigned int i;

	for (i = 0; i < ll_plane_npins; i++) {
		struct ll_plane_pin *p = &ll_plane_pins[i];
		char *slash;

		if (!ll_plane_in_use(p->id) && !unlink(p->path)) {
			/* The directories made for it, deepest first, while
			 * empty (rmdir refuses others).
			 */
			while (p->made_from && (slash = strrchr(p->path, '/')) &&
			       (size_t)(slash - p->path) >= p->made_from) {
				*slash = '\0';
				if (rmdir(p->path))
					break;
			}
		}
		free(p->path);
	}
	ll_plane_npins = 0;
}

/* Remember a plane this process created and pinned at path (fd open). */
static void ll_plane_created(const char *path, size_t made_from, int fd)
{
	static bool registered;
	struct ll_plane_pin *p;

	if (ll_plane_npins == LL_PLANE_PINS_MAX)
		return;	/* more in one batch than this: they stay */
	p = &ll_plane_pins[ll_plane_npins];
	p->path = strdup(path);
	if (!p->path)
		return;
	p->made_from = made_from;
	p->id = ll_plane_map_id(fd);
	ll_plane_npins++;
	if (!registered && !atexit(ll_plane_settle))
		registered = true;
}

/* Open (or create and pin) the plane map; its fd goes to the kernel, which
 * takes its own reference. The fd stays open until tc exits: the request
 * is sent after parsing. A plane created here is settled later
 * (ll_plane_settle).
 */
static int ll_put_plane(struct nlmsghdr *n, const struct ll_pool_opts *o)
{
	char path[4096], err[512];
	size_t made_from;
	int fd, created;

	if (strcmp(o->plane, "auto") == 0) {
		if (!o->given[LL_P_POOL])
			return ll_fail("\"plane auto\" needs \"pool NAME\" to name the path");
		if (ll_plane_default_path(o->pool, path, sizeof(path)))
			return ll_fail("plane path too long");
	} else if (o->plane[0] != '/') {
		return ll_fail("invalid plane \"%s\": must be auto or an absolute path on bpffs",
			       o->plane);
	} else {
		snprintf(path, sizeof(path), "%s", o->plane);
	}
	made_from = ll_missing_dirs_from(path);
	fd = ll_plane_map_open(path, LL_PLANE_CREATE, &created, err, sizeof(err));
	if (fd < 0)
		return ll_fail("plane: %s", err);
	if (created)
		ll_plane_created(path, made_from, fd);
	return addattr32(n, LL_NLMSG_MAX, TCA_LOSSLESS_PLANE_FD, fd);
}

/*
 * A scheme's parameters go with its name: the kernel replaces both. So a
 * parameter (a row with a scheme) needs "scheme" with its scheme on the
 * same line.
 */
static int ll_check_scheme_opts(const struct ll_pool_opts *o)
{
	const char *scheme = ll_param_scheme_name(o->val[LL_P_SCHEME]);
	unsigned int i;

	for (i = 0; i < LL_P_COUNT; i++) {
		const struct ll_param *p = &ll_params[i];

		if (!o->given[i] || p->scheme < 0)
			continue;
		if (!o->given[LL_P_SCHEME])
			return ll_fail("option \"%s\" needs \"scheme %s\" in the same command",
				       p->tc, ll_param_scheme_name(p->scheme));
		if (o->val[LL_P_SCHEME] != (__u64)p->scheme)
			return ll_fail("option \"%s\" is a parameter of scheme %s, not %s",
				       p->tc, ll_param_scheme_name(p->scheme),
				       scheme);
	}
	return 0;
}

/* A row's value as its attribute: u8, u32 or u64. */
static int ll_put_param(struct nlmsghdr *n, const struct ll_param *p, __u64 v)
{
	switch (p->nl_len) {
	case sizeof(__u8):
		return addattr8(n, LL_NLMSG_MAX, p->nl_attr, v);
	case sizeof(__u32):
		return addattr32(n, LL_NLMSG_MAX, p->nl_attr, v);
	default:
		return addattr_l(n, LL_NLMSG_MAX, p->nl_attr, &v, sizeof(v));
	}
}

/* The scheme's nest: its id, and its parameters given in their nest. */
static int ll_put_scheme(struct nlmsghdr *n, const struct ll_pool_opts *o)
{
	const struct ll_param *p;
	struct rtattr *nest, *params = NULL;
	unsigned int i;

	nest = addattr_nest(n, LL_NLMSG_MAX, ll_params[LL_P_SCHEME].nl_attr | NLA_F_NESTED);
	if (addattr8(n, LL_NLMSG_MAX, TCA_LOSSLESS_SCHEME_ID, o->val[LL_P_SCHEME]))
		return -1;
	for (i = 0; (p = ll_param_of_scheme(o->val[LL_P_SCHEME], i)); i++) {
		if (!o->given[p - ll_params])
			continue;
		if (!params)
			params = addattr_nest(n, LL_NLMSG_MAX,
					      p->nl_nest | NLA_F_NESTED);
		if (ll_put_param(n, p, o->val[p - ll_params]))
			return -1;
	}
	if (params)
		addattr_nest_end(n, params);
	addattr_nest_end(n, nest);
	return 0;
}

/* The pool's options given, in the table's order. */
static int ll_put_pool_opts(struct nlmsghdr *n, const struct ll_pool_opts *o)
{
	unsigned int i;

	for (i = 0; i < LL_P_COUNT; i++) {
		const struct ll_param *p = &ll_params[i];
		int err;

		if (!o->given[i])
			continue;
		switch (p->unit) {
		case LL_PARAM_NAME:
			err = addattr_l(n, LL_NLMSG_MAX, p->nl_attr, o->pool,
					strlen(o->pool) + 1);
			break;
		case LL_PARAM_ECN:
			err = addattr32(n, LL_NLMSG_MAX, TCA_LOSSLESS_ECN_KMIN_BYTES, o->kmin) ||
			      addattr32(n, LL_NLMSG_MAX, TCA_LOSSLESS_ECN_KMAX_BYTES, o->kmax) ||
			      addattr32(n, LL_NLMSG_MAX, TCA_LOSSLESS_ECN_PMAX, o->pmax);
			break;
		case LL_PARAM_PLANE:
			err = ll_put_plane(n, o);
			break;
		case LL_PARAM_SCHEME:
			err = ll_put_scheme(n, o);
			break;
		default:	/* a scheme's parameter goes in the scheme's nest */
			err = p->nl_nest ? 0 : ll_put_param(n, p, o->val[i]);
			break;
		}
		if (err)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------ PFC watchdog options */

/* The nested TCA_LOSSLESS_WATCHDOG: only the fields given (the kernel keeps
 * the others, defaults on a new qdisc).
 */
struct ll_wd_opts {
	bool has_action, has_detect, has_restore, has_poll, has_alarm;
	__u8 action;
	__u64 detect_ns, restore_ns, poll_ns, alarm_ns;
};

static const char *const ll_wd_actions[] = {
	[LOSSLESS_WD_OFF] = "off",
	[LOSSLESS_WD_ALERT] = "alert",
	[LOSSLESS_WD_FORWARD] = "forward",
	[LOSSLESS_WD_DROP] = "drop",
};

static bool ll_is_wd_kw(const char *kw)
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
		return ll_fail("invalid %s \"%s\": must be %sa time %s .. %s with %s (%s)",
			       opt, arg, alarm ? "off (or 0) or " : "", smin, smax,
			       LL_UNITS_TIME_UNITS, LL_UNITS_TIME_EXAMPLES);
	}
	*ns = v;
	return 0;
}

/* One watchdog option; argv[0] is its value. */
static int ll_parse_wd_opt(const char *kw, const char *arg,
			   struct ll_wd_opts *o)
{
	unsigned int i;

	if (strcmp(kw, "pfcwd") == 0) {
		if (o->has_action)
			return ll_fail("duplicate \"pfcwd\"");
		o->has_action = true;
		for (i = 0; i < ARRAY_SIZE(ll_wd_actions); i++)
			if (strcmp(arg, ll_wd_actions[i]) == 0) {
				o->action = i;
				return 0;
			}
		return ll_fail("invalid pfcwd \"%s\": must be off, alert, forward or drop",
			       arg);
	}
	if (strcmp(kw, "pfcwd-detect") == 0) {
		if (o->has_detect)
			return ll_fail("duplicate \"%s\"", kw);
		o->has_detect = true;
		return ll_parse_wd_time(kw, arg, false, &o->detect_ns);
	}
	if (strcmp(kw, "pfcwd-restore") == 0) {
		if (o->has_restore)
			return ll_fail("duplicate \"%s\"", kw);
		o->has_restore = true;
		return ll_parse_wd_time(kw, arg, false, &o->restore_ns);
	}
	if (strcmp(kw, "pfcwd-poll") == 0) {
		if (o->has_poll)
			return ll_fail("duplicate \"%s\"", kw);
		o->has_poll = true;
		return ll_parse_wd_time(kw, arg, false, &o->poll_ns);
	}
	if (o->has_alarm)
		return ll_fail("duplicate \"%s\"", kw);
	o->has_alarm = true;
	return ll_parse_wd_time(kw, arg, true, &o->alarm_ns);
}

/*
 * The kernel's cross-checks, against the values on the line (a change
 * keeps the qdisc's others, which only the kernel knows): the poll at most
 * the detect and restore times, a raised xoff-alarm at least the poll.
 */
static int ll_check_wd_opts(const struct ll_wd_opts *o)
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
		return ll_fail("invalid pfcwd-poll %s: must be %s .. %s (at most %s %s)",
			       a, b, c, bound_kw, c);
	}
	if (o->has_alarm && o->alarm_ns && o->has_poll &&
	    o->alarm_ns < o->poll_ns) {
		ll_fmt_ns(a, sizeof(a), o->alarm_ns);
		ll_fmt_ns(b, sizeof(b), o->poll_ns);
		ll_fmt_ns(d, sizeof(d), LOSSLESS_WD_XOFF_ALARM_MAX_NS);
		return ll_fail("invalid xoff-alarm %s: must be off or %s .. %s (at least pfcwd-poll %s)",
			       a, b, d, b);
	}
	return 0;
}

static int ll_put_wd_opts(struct nlmsghdr *n, const struct ll_wd_opts *o)
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

static int lossless_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			      struct nlmsghdr *n, const char *dev)
{
	bool has_rate = false, has_burst = false, has_queues = false;
	bool has_catchup = false;
	bool has_strict = false, has_limit = false, has_quanta = false;
	bool has_priomap = false;
	enum { LIST_NONE, LIST_QUANTA, LIST_PRIOMAP } list = LIST_NONE;
	__u32 quanta[LOSSLESS_MAX_QUEUES];
	__u8 priomap[LOSSLESS_PRIOMAP_LEN] = {};
	unsigned int nquanta = 0, nprio = 0, i;
	__u32 burst = 0, catchup = 0, limit = 0;
	__u8 queues = 0, strict = 0;
	__u64 rate_bps = 0, v;
	struct ll_pool_opts po = {};
	struct ll_wd_opts wo = {};
	struct rtattr *tail;

	(void)qu;
	/* tc -batch: the previous command has had its answer. */
	ll_plane_settle();

	while (argc > 0) {
		const char *kw = *argv;
		const struct ll_param *pool_opt;

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
		pool_opt = ll_param_by_tc(kw);

		if (strcmp(kw, "help") == 0) {
			explain();
			return -1;
		}
		if (strcmp(kw, "rate") && strcmp(kw, "burst") &&
		    strcmp(kw, "catchup") &&
		    strcmp(kw, "queues") && strcmp(kw, "strict") &&
		    strcmp(kw, "limit") && strcmp(kw, "quanta") &&
		    strcmp(kw, "priomap") && !pool_opt &&
		    !ll_is_wd_kw(kw))
			return ll_fail("unknown option \"%s\"", kw);
		if (argc < 2)
			return ll_fail("option \"%s\" needs a value", kw);
		argc--, argv++;

		if (pool_opt) {
			int used;

			if (ll_parse_pool_opt(pool_opt, argc, argv, &po, &used))
				return -1;
			argc -= used, argv += used;
			continue;
		}
		if (ll_is_wd_kw(kw)) {
			if (ll_parse_wd_opt(kw, *argv, &wo))
				return -1;
			argc--, argv++;
			continue;
		}
		if (strcmp(kw, "rate") == 0) {
			if (has_rate)
				return ll_fail("duplicate \"rate\"");
			if (ll_parse_rate(*argv, dev, &rate_bps))
				return -1;
			has_rate = true;
		} else if (strcmp(kw, "burst") == 0) {
			if (has_burst)
				return ll_fail("duplicate \"burst\"");
			if (ll_parse_burst(kw, *argv, &burst))
				return -1;
			has_burst = true;
		} else if (strcmp(kw, "catchup") == 0) {
			if (has_catchup)
				return ll_fail("duplicate \"catchup\"");
			if (ll_parse_burst(kw, *argv, &catchup))
				return -1;
			has_catchup = true;
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

	/*
	 * The catch-up includes the bucket. Against the qdisc's current burst
	 * (no "burst" here) the kernel raises a smaller catch-up to it.
	 */
	if (has_catchup && has_burst && catchup < burst)
		return ll_fail("invalid catchup %u: must be %u .. %u bytes (at least burst %u)",
			       catchup, burst, LOSSLESS_BURST_MAX_BYTES, burst);
	if (ll_check_wd_opts(&wo) || ll_check_scheme_opts(&po))
		return -1;

	/*
	 * "tc qdisc add" (NLM_F_EXCL) makes a new qdisc, which has a pool only
	 * if "pool" is given: the kernel would refuse the pool's options
	 * (and "plane" would have been pinned for nothing). A change or
	 * replace may address a pool member, so there the kernel decides.
	 */
	if ((n->nlmsg_flags & NLM_F_EXCL) && !po.given[LL_P_POOL] && po.first_pool_only)
		return ll_fail("option \"%s\" needs \"pool NAME\"",
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
	if (ll_put_pool_opts(n, &po))
		return -1;
	if (ll_put_wd_opts(n, &wo))
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

/* Exact size text that ll_size_value() reads back: "1Gb", "30Kb", "1500b". */
static void ll_fmt_size64(char *buf, size_t len, __u64 sz)
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
static void ll_print_size64(const char *key, const char *fmt, __u64 sz)
{
	char buf[32];

	if (is_json_context()) {
		print_u64(PRINT_JSON, key, NULL, sz);
		return;
	}
	ll_fmt_size64(buf, sizeof(buf), sz);
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
 * ll_prob_value() reads back to the same units: 13107 -> "0.2".
 */
static double ll_fmt_prob(char *buf, size_t len, __u32 units)
{
	double p = (double)units / LL_ECN_PMAX_ONE;
	__u32 back;
	int d;

	for (d = 0; d <= 6; d++) {
		snprintf(buf, len, "%.*f", d, p);
		if (!ll_prob_value(buf, &back) && back == units)
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
	char key[64], fmt[80];
	size_t i;
	__u64 v;

	if (!ll_attr_ok(a, p->nl_len))
		return;
	v = ll_attr_value(a, p->nl_len);
	if ((p->flags & LL_PARAM_SHOW_NONZERO) && !v)
		return;	/* 0 is the default the kernel stands for */
	snprintf(key, sizeof(key), "%s", p->tc);
	for (i = 0; key[i]; i++)
		if (key[i] == '-')
			key[i] = '_';
	snprintf(fmt, sizeof(fmt), "%s %%s ", p->tc);
	switch (p->unit) {
	case LL_PARAM_SIZE:
		ll_print_size64(key, fmt, v);
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
			ll_fmt_size64(smin, sizeof(smin), kmin);
			ll_fmt_size64(smax, sizeof(smax), kmax);
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

		if (a < ARRAY_SIZE(ll_wd_actions))
			snprintf(buf, sizeof(buf), "%s", ll_wd_actions[a]);
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
	ll_print_pool_opts(tb);
	ll_print_wd_opts(tb);
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

/* Upper bound of lateness bucket b (see uapi), in ns; 0 for the last. */
static __u64 ll_lateness_bucket_max_ns(unsigned int b)
{
	return b + 1 < LOSSLESS_LATENESS_BUCKETS ? 1ULL << (10 + b) : 0;
}

/*
 * The shaper's catch-up and how late the port's timed wake-ups ran: what
 * catchup and sw-delay must cover. Only when the kernel sent them (len):
 * an older kernel's zeros would read as "never late". Text: the non-empty
 * buckets as "<UPPER:COUNT", the last one ">=LOWER:COUNT", or "none";
 * JSON: all of them with their upper bound (lt_ns, 0 for the last).
 */
static void ll_print_shaper_xstats(const struct tc_lossless_xstats *st,
				   unsigned int len)
{
	bool any = false;
	unsigned int b;
	SPRINT_BUF(t);

	if (len < offsetof(struct tc_lossless_xstats, wake_late) +
		  sizeof(st->wake_late))
		return;
	ll_print_size64("catchup", "  catchup %s", st->catchup_bytes);
	ll_print_time("shaper_lost", " shaper_lost %s", st->shaper_lost_ns);
	ll_print_time("wake_late_max", " wake_late_max %s",
		      st->wake_late_max_ns);
	print_string(PRINT_FP, NULL, " wake_late", NULL);
	open_json_array(PRINT_JSON, "wake_late");
	for (b = 0; b < LOSSLESS_LATENESS_BUCKETS; b++) {
		__u64 max_ns = ll_lateness_bucket_max_ns(b);

		if (is_json_context()) {
			open_json_object(NULL);
			print_u64(PRINT_JSON, "lt_ns", NULL, max_ns);
			print_u64(PRINT_JSON, "count", NULL, st->wake_late[b]);
			close_json_object();
			continue;
		}
		if (!st->wake_late[b])
			continue;
		if (max_ns)
			print_string(PRINT_FP, NULL, " <%s",
				     sprint_time64(max_ns, t));
		else	/* from the previous bucket's upper bound on */
			print_string(PRINT_FP, NULL, " >=%s",
				     sprint_time64(ll_lateness_bucket_max_ns(b - 1),
						   t));
		print_u64(PRINT_FP, NULL, ":%llu", st->wake_late[b]);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
	print_nl();
}

static void ll_print_qdisc_xstats(const struct tc_lossless_xstats *st,
				  unsigned int len)
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
	ll_print_shaper_xstats(st, len);

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

static bool ll_iq_active(const struct tc_lossless_iq_stats *iq)
{
	return iq->lossless || iq->paused || iq->bytes || iq->headroom_used ||
	       iq->peak_bytes || iq->peak_headroom || iq->xoff_frames ||
	       iq->xon_frames || iq->paused_ns || iq->drops;
}

static void ll_print_iq(unsigned int prio, const struct tc_lossless_iq_stats *iq)
{
	char used[32], size[32], hr[72];

	open_json_object(NULL);
	print_uint(PRINT_ANY, "prio", "  ingress prio %u", prio);
	print_bool(PRINT_JSON, "lossless", NULL, iq->lossless);
	print_string(PRINT_FP, NULL, " %s", iq->lossless ? "lossless" : "lossy");
	if (is_json_context()) {
		print_u64(PRINT_JSON, "bytes", NULL, iq->bytes);
		print_u64(PRINT_JSON, "headroom_used", NULL, iq->headroom_used);
		print_u64(PRINT_JSON, "headroom_size", NULL, iq->headroom_size);
		print_u64(PRINT_JSON, "peak_bytes", NULL, iq->peak_bytes);
		print_u64(PRINT_JSON, "peak_headroom", NULL, iq->peak_headroom);
		print_u64(PRINT_JSON, "threshold", NULL, iq->threshold);
	} else {
		ll_print_size64(NULL, " bytes %s", iq->bytes);
		ll_print_size64(NULL, " peak %s", iq->peak_bytes);
		ll_fmt_size64(used, sizeof(used), iq->headroom_used);
		ll_fmt_size64(size, sizeof(size), iq->headroom_size);
		snprintf(hr, sizeof(hr), "%s/%s", used, size);
		print_string(PRINT_FP, NULL, " headroom %s", hr);
		ll_print_size64(NULL, " peak %s", iq->peak_headroom);
		ll_print_size64(NULL, " threshold %s", iq->threshold);
	}
	print_u64(PRINT_ANY, "xoff_frames", " xoff %llu", iq->xoff_frames);
	print_u64(PRINT_ANY, "xon_frames", " xon %llu", iq->xon_frames);
	ll_print_time("paused_time", " paused_time %s", iq->paused_ns);
	print_u64(PRINT_ANY, "drops", " drops %llu", iq->drops);
	print_bool(PRINT_JSON, "paused", NULL, iq->paused);
	if (iq->paused)
		print_string(PRINT_FP, NULL, " (paused)", NULL);
	close_json_object();
}

/*
 * The pool (switch MMU) part, when the kernel sent it (len) and the qdisc
 * is in a pool. Text: priorities that are lossless or were ever used (all
 * with -d); JSON: all eight.
 */
static void ll_print_pool_xstats(const struct tc_lossless_xstats *st,
				 unsigned int len)
{
	unsigned int p;

	if (len < offsetof(struct tc_lossless_xstats, iq) || !st->pool_ports)
		return;
	print_nl();
	print_uint(PRINT_ANY, "pool_port", "  pool port %u", st->pool_port);
	print_uint(PRINT_ANY, "pool_ports", " of %u", st->pool_ports);
	ll_print_size64("pool_total_bytes", "  buffer %s", st->pool_total_bytes);
	ll_print_size64("pool_shared_size", "  shared %s", st->pool_shared_size);
	ll_print_size64("pool_shared_used", " used %s", st->pool_shared_used);
	ll_print_size64("pool_peak_shared", " peak %s", st->pool_peak_shared);
	ll_print_size64("pool_headroom_size", "  headroom %s",
			st->pool_headroom_size);
	ll_print_size64("pool_headroom_used", " used %s",
			st->pool_headroom_used);
	ll_print_size64("pool_peak_headroom", " peak %s",
			st->pool_peak_headroom);
	print_nl();
	print_u64(PRINT_ANY, "pool_drops_lossless", "  drops lossless %llu",
		  st->pool_drops_lossless);
	print_u64(PRINT_ANY, "pool_drops_lossy", " lossy %llu",
		  st->pool_drops_lossy);
	print_u64(PRINT_ANY, "pfc_frames_tx", "  pfc_tx %llu", st->pfc_frames_tx);
	print_u64(PRINT_ANY, "ecn_marks", "  ecn_marks %llu", st->ecn_marks);
	print_u64(PRINT_ANY, "unaccounted", "  unaccounted %llu",
		  st->unaccounted);

	if (len < offsetof(struct tc_lossless_xstats, iq) + sizeof(st->iq))
		return;
	open_json_array(PRINT_JSON, "ingress");
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		if (!is_json_context() && !show_details &&
		    !ll_iq_active(&st->iq[p]))
			continue;
		print_nl();
		ll_print_iq(p, &st->iq[p]);
	}
	close_json_array(PRINT_JSON, NULL);
}

/* Priorities of mask as " prio 3 5", or " none". */
static void ll_print_prio_list(__u32 mask)
{
	unsigned int p;
	bool any = false;

	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		if (!(mask & (1U << p)))
			continue;
		if (!any)
			print_string(PRINT_FP, NULL, " prio", NULL);
		print_uint(PRINT_FP, NULL, " %u", p);
		any = true;
	}
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
}

static bool ll_wd_prio_active(const struct tc_lossless_wd_stats *w)
{
	return w->storm || w->xoff_alarm || w->storms || w->restores ||
	       w->dropped || w->storm_ns || w->xoff_alarms || w->xoff_ns;
}

/*
 * The PFC watchdog, when the kernel sent it (len). JSON: always, all eight
 * priorities. Text: while it is on or has counted anything: a summary line
 * (the action, the priorities in storm and with the XOFF alarm raised),
 * then a line per priority with any non-zero counter (all with -d).
 */
static void ll_print_wd_xstats(const struct tc_lossless_xstats *st,
			       unsigned int len)
{
	char action[16];
	bool on = st->wd_action || st->wd_storm_mask || st->wd_alarm_mask;
	unsigned int p;

	if (len < offsetof(struct tc_lossless_xstats, wd) + sizeof(st->wd))
		return;
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++)
		on |= ll_wd_prio_active(&st->wd[p]);
	if (!is_json_context() && !on)
		return;
	if (st->wd_action < ARRAY_SIZE(ll_wd_actions))
		snprintf(action, sizeof(action), "%s", ll_wd_actions[st->wd_action]);
	else
		snprintf(action, sizeof(action), "%u", st->wd_action);

	print_nl();
	open_json_object("pfcwd");
	print_string(PRINT_ANY, "action", "  pfcwd %s", action);
	print_uint(PRINT_JSON, "storm_mask", NULL, st->wd_storm_mask);
	print_uint(PRINT_JSON, "alarm_mask", NULL, st->wd_alarm_mask);
	print_string(PRINT_FP, NULL, " storm", NULL);
	ll_print_prio_list(st->wd_storm_mask);
	print_string(PRINT_FP, NULL, " xoff_alarm", NULL);
	ll_print_prio_list(st->wd_alarm_mask);
	open_json_array(PRINT_JSON, "prios");
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		const struct tc_lossless_wd_stats *w = &st->wd[p];

		if (!is_json_context() && !show_details && !ll_wd_prio_active(w))
			continue;
		print_nl();
		open_json_object(NULL);
		print_uint(PRINT_ANY, "prio", "  pfcwd prio %u", p);
		print_bool(PRINT_JSON, "storm", NULL, w->storm);
		print_string(PRINT_FP, NULL, " storm %s", w->storm ? "yes" : "no");
		print_u64(PRINT_ANY, "storms", " storms %llu", w->storms);
		print_u64(PRINT_ANY, "restores", " restores %llu", w->restores);
		print_u64(PRINT_ANY, "dropped", " dropped %llu", w->dropped);
		ll_print_time("storm_time", " storm_time %s", w->storm_ns);
		print_bool(PRINT_JSON, "xoff_alarm", NULL, w->xoff_alarm);
		print_string(PRINT_FP, NULL, " xoff_alarm %s",
			     w->xoff_alarm ? "yes" : "no");
		print_u64(PRINT_ANY, "xoff_alarms", " xoff_alarms %llu",
			  w->xoff_alarms);
		ll_print_time("xoff_time", " xoff_time %s", w->xoff_ns);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

/* A scheme value by its unit: text exact, JSON bytes, ns or a number. */
static void ll_print_scheme_value(const char *key, const char *text_key,
				  __u8 unit, __u64 v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s%s %%s", text_key ? " " : "",
		 text_key ? text_key : "");
	if (unit == LL_STAT_BYTES) {
		ll_print_size64(key, fmt, v);
	} else if (unit == LL_STAT_NS) {
		ll_print_time(key, fmt, v);
	} else {
		snprintf(fmt, sizeof(fmt), "%s%s %%llu", text_key ? " " : "",
			 text_key ? text_key : "");
		print_u64(PRINT_ANY, key, fmt, v);
	}
}

/*
 * The pool's scheme on this port (DSH, SPFC), when the kernel sent it,
 * printed from the names of scheme_types.h's tables (no code per scheme).
 * Text: "scheme NAME" and its masks as priority lists, its counters, and
 * per priority its values (lossless priorities, all with -d); JSON: an
 * object "scheme_stats" with the masks as arrays, the counters, and each
 * per-priority value as an array of eight.
 */
static void ll_print_scheme_xstats(const struct tc_lossless_xstats *st,
				   unsigned int len)
{
	static const char *const names[LL_SCHEME_CORE_COUNT] = LL_SCHEME_NAMES;
	static const struct ll_scheme_stat_desc
		ctr[LL_SCHEME_CORE_COUNT][LL_SCHEME_STATS] = LL_SCHEME_STAT_DESCS;
	static const char *const masks[LL_SCHEME_CORE_COUNT][LL_SCHEME_MASKS] =
		LL_SCHEME_MASK_NAMES;
	static const struct ll_scheme_stat_desc
		prio[LL_SCHEME_CORE_COUNT][LL_SCHEME_PRIO_STATS] =
		LL_SCHEME_PRIO_STAT_DESCS;
	const struct tc_lossless_scheme_stats *ss = &st->sch;
	__u32 id = ss->scheme;
	unsigned int i, p;

	if (len < offsetof(struct tc_lossless_xstats, sch) + sizeof(st->sch) ||
	    !id || id >= LL_SCHEME_CORE_COUNT || !prio[id][0].name)
		return;
	print_nl();
	open_json_object("scheme_stats");
	print_string(PRINT_ANY, "scheme", "  scheme %s",
		     names[id] ? names[id] : "?");
	for (i = 0; i < LL_SCHEME_MASKS; i++) {
		__u32 m = (ss->masks >> (8 * i)) & 0xff;

		if (!masks[id][i])
			continue;
		print_string(PRINT_FP, NULL, " %s", masks[id][i]);
		open_json_array(PRINT_JSON, masks[id][i]);
		for (p = 0; p < LOSSLESS_PFC_PRIOS; p++)
			if (m & (1U << p))
				print_uint(PRINT_JSON, NULL, NULL, p);
		close_json_array(PRINT_JSON, NULL);
		ll_print_prio_list(m);
	}
	print_nl();
	print_string(PRINT_FP, NULL, " ", NULL);
	for (i = 0; i < LL_SCHEME_STATS; i++)
		if (ctr[id][i].name)
			ll_print_scheme_value(ctr[id][i].name, ctr[id][i].name,
					      ctr[id][i].unit, ss->ctr[i]);
	/* The first per-priority value (the plane has the second too). */
	print_nl();
	print_string(PRINT_FP, NULL, "  %s", prio[id][0].name);
	open_json_array(PRINT_JSON, prio[id][0].name);
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		char key[16];

		if (is_json_context()) {
			print_u64(PRINT_JSON, NULL, NULL, ss->prio[p]);
			continue;
		}
		if (!show_details && !st->iq[p].lossless)
			continue;
		snprintf(key, sizeof(key), "prio%u", p);
		ll_print_scheme_value(NULL, key, prio[id][0].unit, ss->prio[p]);
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
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
		ll_print_qdisc_xstats(&st, len);
		ll_print_pool_xstats(&st, len);
		ll_print_wd_xstats(&st, len);
		ll_print_scheme_xstats(&st, len);
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
