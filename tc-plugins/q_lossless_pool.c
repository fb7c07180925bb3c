// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless_pool.c: the shared-buffer pool's options of the tc plugin
 * (the rows of ll_params.c; pool, ecn, plane and scheme with their own
 * syntax): parse, check, and put in the request; the plane map.
 */

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utils.h"
#include "tc_util.h"

#include "lossless.h"
#include "scheme_types.h"
#include "ll_plane_map.h"
#include "ll_params.h"
#include "ll_units.h"
#include "q_lossless.h"

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
		return ll_tc_fail("invalid %s \"%s\": the numerator must be an integer 1 .. %u (%s)",
				  p->tc, arg, LL_ALPHA_NUM_MAX, LL_ALPHA_FORM);
	case LL_PARAM_EALPHA_DEN:
		return ll_tc_fail("invalid %s \"%s\": the denominator must be a power of two 1 .. %llu = 2^%u (%s)",
				  p->tc, arg, 1ULL << LL_ALPHA_SHIFT_MAX,
				  LL_ALPHA_SHIFT_MAX, LL_ALPHA_FORM);
	case LL_PARAM_EPRIO_DUP:
		return ll_tc_fail("invalid %s \"%s\": priority %lld is listed twice",
				  p->tc, arg, bad);
	case LL_PARAM_ECOMBO:
		ll_param_text(p, p->excl, range, sizeof(range));
		return ll_tc_fail("invalid %s \"%s\": %s do not go together",
				  p->tc, arg, range);
	default:
		ll_param_range(p, range, sizeof(range));
		return ll_tc_fail("invalid %s \"%s\": must be %s", p->tc, arg, range);
	}
}

static int ll_parse_pool_name(const char *arg, char *name)
{
	int bad = ll_units_pool_name(arg);

	if (bad < 0)
		return ll_tc_fail("invalid pool \"%s\": the name must be 1 .. %u characters of %s",
				  arg, LL_POOL_NAME_MAX, LL_POOL_NAME_CHARS);
	if (bad > 0) {
		unsigned char c = arg[bad - 1];

		return ll_tc_fail("invalid pool \"%s\": character %d ('%c') is not allowed: the name must be 1 .. %u characters of %s",
				  arg, bad, isascii(c) && isprint(c) ? c : '?',
				  LL_POOL_NAME_MAX, LL_POOL_NAME_CHARS);
	}
	memcpy(name, arg, strlen(arg) + 1);
	return 0;
}

/* A probability as a plain decimal 0 .. 1 -> 1/65536 units, rounded
 * (the shared ll_units_prob()).
 */
int ll_tc_prob_value(const char *arg, __u32 *out)
{
	uint32_t v;

	if (ll_units_prob(arg, &v))
		return -1;
	*out = v;
	return 0;
}

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
		return ll_tc_fail("option \"ecn\" needs KMIN KMAX PMAX (or \"off\")");
	if (ll_size_value(argv[0], &kmin) || kmin > UINT32_MAX)
		return ll_tc_fail("invalid ecn KMIN \"%s\": must be 0 .. %u bytes (tc size units b, kb, mb, gb)",
				  argv[0], UINT32_MAX);
	if (ll_size_value(argv[1], &kmax) || !kmax || kmax > UINT32_MAX)
		return ll_tc_fail("invalid ecn KMAX \"%s\": must be 1 .. %u bytes (tc size units b, kb, mb, gb)",
				  argv[1], UINT32_MAX);
	if (kmin >= kmax)
		return ll_tc_fail("invalid ecn \"%s %s\": KMIN (%llu bytes) must be below KMAX (%llu bytes)",
				  argv[0], argv[1], (unsigned long long)kmin,
				  (unsigned long long)kmax);
	if (ll_tc_prob_value(argv[2], &o->pmax))
		return ll_tc_fail("invalid ecn PMAX \"%s\": must be a probability 0 .. 1 written as a decimal (0.2)",
				  argv[2]);
	o->kmin = kmin;
	o->kmax = kmax;
	*used = 3;
	return 0;
}

static int ll_parse_scheme(const char *arg, __u64 *id)
{
	const char *name;
	char range[256];
	int i;

	for (i = 0; i < LL_SCHEME_COUNT; i++) {
		name = ll_param_scheme_name(i);
		if (name && strcmp(arg, name) == 0) {
			*id = i;
			return 0;
		}
	}
	ll_param_range(&ll_params[LL_P_SCHEME], range, sizeof(range));
	return ll_tc_fail("invalid scheme \"%s\": %s", arg, range);
}

/* The pool option of row p; argv[0] is its value, *used values consumed. */
int ll_tc_parse_pool_opt(const struct ll_param *p, int argc, char **argv,
			 struct ll_pool_opts *o, int *used)
{
	unsigned int i = ll_param_index(p);
	const char *arg = argv[0];

	*used = 1;
	if (p->unit != LL_PARAM_NAME && !o->first_pool_only)
		o->first_pool_only = p->tc;
	if (o->given[i])
		return ll_tc_fail("duplicate \"%s\"", p->tc);
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

void ll_tc_plane_settle(void)
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
	if (!registered && !atexit(ll_tc_plane_settle))
		registered = true;
}

/* Open (or create and pin) the plane map; its fd goes to the kernel, which
 * takes its own reference. The fd stays open until tc exits: the request
 * is sent after parsing. A plane created here is settled later
 * (ll_tc_plane_settle).
 */
static int ll_put_plane(struct nlmsghdr *n, const struct ll_pool_opts *o)
{
	char path[4096], err[512];
	size_t made_from;
	int fd, created;

	if (strcmp(o->plane, "auto") == 0) {
		if (!o->given[LL_P_POOL])
			return ll_tc_fail("\"plane auto\" needs \"pool NAME\" to name the path");
		if (ll_plane_default_path(o->pool, path, sizeof(path)))
			return ll_tc_fail("plane path too long");
	} else if (o->plane[0] != '/') {
		return ll_tc_fail("invalid plane \"%s\": must be auto or an absolute path on bpffs",
				  o->plane);
	} else {
		snprintf(path, sizeof(path), "%s", o->plane);
	}
	made_from = ll_missing_dirs_from(path);
	fd = ll_plane_map_open(path, LL_PLANE_CREATE, &created, err, sizeof(err));
	if (fd < 0)
		return ll_tc_fail("plane: %s", err);
	if (created)
		ll_plane_created(path, made_from, fd);
	return addattr32(n, LL_NLMSG_MAX, TCA_LOSSLESS_PLANE_FD, fd);
}

/*
 * A scheme's parameters go with its name: the kernel replaces both. So a
 * parameter (a row with a scheme) needs "scheme" with its scheme on the
 * same line.
 */
int ll_tc_check_scheme_opts(const struct ll_pool_opts *o)
{
	const char *scheme = ll_param_scheme_name(o->val[LL_P_SCHEME]);
	const struct ll_param *p;
	unsigned int i;

	for (i = 0; (p = ll_param_row(i)); i++) {
		if (!o->given[i] || p->scheme < 0)
			continue;
		if (!o->given[LL_P_SCHEME])
			return ll_tc_fail("option \"%s\" needs \"scheme %s\" in the same command",
					  p->tc, ll_param_scheme_name(p->scheme));
		if (o->val[LL_P_SCHEME] != (__u64)p->scheme)
			return ll_tc_fail("option \"%s\" is a parameter of scheme %s, not %s",
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
		if (!o->given[ll_param_index(p)])
			continue;
		if (!params)
			params = addattr_nest(n, LL_NLMSG_MAX,
					      p->nl_nest | NLA_F_NESTED);
		if (ll_put_param(n, p, o->val[ll_param_index(p)]))
			return -1;
	}
	if (params)
		addattr_nest_end(n, params);
	addattr_nest_end(n, nest);
	return 0;
}

/* The pool's options given, in the table's order. */
int ll_tc_put_pool_opts(struct nlmsghdr *n, const struct ll_pool_opts *o)
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

