/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The parameter table of the lossless pool: one row per option of the
 * shared-buffer pool (tc's pool options) and per parameter of a scheme,
 * read by every place that names, parses, checks, sends or shows one:
 *
 *   tc-plugins/q_lossless*.c      keyword, synopsis (q_lossless.c); parse,
 *                                 range and its message, duplicate check,
 *                                 netlink attribute (q_lossless_pool.c);
 *                                 print, text and JSON (q_lossless_print.c)
 *   daemon/config/                the TOML keys, their ranges and defaults
 *   daemon/policy/                a scheme's parameters (registry.h), the
 *                                 keys a policy takes at run time
 *   daemon/losslessd/rtnl.cpp     the attributes losslessd sends
 *   daemon/cli/ctl_set.cpp        the keys of `losslessctl set`
 *   daemon/losslessd/metrics.cpp  the Prometheus names
 *
 * so a new pool parameter is one row here (and its id below): tc then
 * parses, sends, prints and lists it, and the TOML parser takes its key
 * with its range and default; what is left is the code that uses the
 * value (the line that stores it in the daemon's config, the kernel's
 * side). A scheme's parameter is a row with the scheme's id, which the
 * daemon's readers take from the row alone. Units are parsed by
 * ll_units.c; the limits are the kernel's (kernel/core/mmu.h, headroom.h,
 * kernel/uapi/lossless.h: the constants its netlink policies and pool
 * checks use), the defaults those of the kernel's pool
 * (kernel/lossless_pool.c). docs/ARCHITECTURE.md, "How to add a pool
 * parameter".
 *
 * Plain C with libc's basics only, like ll_units.c: it is compiled into
 * the tc plugin (which may only call what tc exports) and the daemon.
 */
#ifndef LL_PARAMS_H
#define LL_PARAMS_H

#include <stdint.h>

#include "ll_units.h"
#include "param.h"		/* kernel/core: struct ll_param */

#ifdef __cplusplus
extern "C" {
#endif

/* The rows, in the order tc sends and prints them. */
enum ll_param_id {
	LL_P_POOL,
	LL_P_BUFFER,
	LL_P_ALPHA,
	LL_P_EGRESS_ALPHA,
	LL_P_LOSSLESS_PRIOS,
	LL_P_RESERVED,
	LL_P_XON_OFFSET,
	LL_P_CABLE_DELAY,
	LL_P_SW_DELAY,
	LL_P_HEADROOM,
	LL_P_SCHEME_PORT,
	LL_P_ECN,
	LL_P_ECN_MODE,
	LL_P_NP_ECN_K,
	LL_P_PLANE,
	LL_P_INTERVAL,
	LL_P_SCHEME,
	LL_P_COUNT
};

extern const struct ll_param ll_params[LL_P_COUNT];

/*
 * Every row, numbered from 0: the pool's (ll_params[], LL_P_*), then each
 * selectable scheme's (its descriptor's params, kernel/core/scheme_*.c);
 * NULL after the last. ll_param_index() is a row's number (for arrays of
 * LL_PARAM_ROWS_MAX slots, one per row), LL_PARAM_ROWS_MAX if none.
 */
#define LL_PARAM_ROWS_MAX 64
const struct ll_param *ll_param_row(unsigned int n);
unsigned int ll_param_index(const struct ll_param *p);
/* Rows by tc keyword, by `losslessctl set` key; NULL if none. */
const struct ll_param *ll_param_by_tc(const char *kw);
const struct ll_param *ll_param_by_ctl(const char *key);
/*
 * The key of `losslessctl set` that an older key in microseconds became,
 * with a time ("sw-delay-us" -> "sw-delay", "interval-us" -> "interval");
 * NULL if key is not one. Its value is then written VALUE "us".
 */
const char *ll_param_ctl_renamed(const char *key);
/* The i-th row (from 0) of scheme's parameters; NULL after the last. */
const struct ll_param *ll_param_of_scheme(int scheme, unsigned int i);
/* The row of scheme's parameters with TOML key key; NULL if none. */
const struct ll_param *ll_param_of_scheme_key(int scheme, const char *key);
/* A scheme's name ("dt"), or NULL: an id may be reserved. */
const char *ll_param_scheme_name(int scheme);

/*
 * Parse text as p's value (not for the special units): LL_PARAM_OK with
 * *value set, or why not. *bad (if not NULL) is the priority listed twice.
 */
enum ll_param_err {
	LL_PARAM_OK = 0,
	LL_PARAM_EVALUE,	/* not a value of its unit, or out of range */
	LL_PARAM_EALPHA_NUM,	/* alpha: the numerator */
	LL_PARAM_EALPHA_DEN,	/* alpha: the denominator */
	LL_PARAM_EPRIO_DUP,	/* a priority listed twice */
	LL_PARAM_ESPECIAL,	/* special syntax: not parsed here */
	LL_PARAM_ECOMBO,	/* flags: names that do not go together (excl) */
};
int ll_param_parse(const struct ll_param *p, const char *text,
		   uint64_t *value, long long *bad);

/* 0 if value is in p's range, with buffer (0: unknown) the pool's for
 * LL_PARAM_MAX_BUFFER; -1 if not.
 */
int ll_param_check(const struct ll_param *p, uint64_t value, uint64_t buffer);

/* The default; mtu sizes LL_PARAM_DEF_MTU rows. */
uint64_t ll_param_default(const struct ll_param *p, uint32_t mtu);

/*
 * Texts, each returning snprintf()'s:
 *   ll_param_range     what a value must be, after "must be " ("0 ..
 *                      4294967295 bytes (tc size units ...)", "a time 0
 *                      .. 1s with ...", "dsh, or a comma list of ...");
 *   ll_param_text      a value as it is written ("4mb", "1/8", "3,4",
 *                      "1ms"); ll_param_default_text the default ("1 MTU");
 *   ll_param_synopsis  "[ buffer SIZE ]"; a scheme's lists every scheme
 *                      with its parameters' ("[ scheme { dt | NAME [
 *                      NAME-PARAM SIZE ] ... } ]").
 */
int ll_param_range(const struct ll_param *p, char *buf, unsigned int len);
int ll_param_text(const struct ll_param *p, uint64_t value, char *buf,
		  unsigned int len);
int ll_param_default_text(const struct ll_param *p, char *buf,
			  unsigned int len);
int ll_param_synopsis(const struct ll_param *p, char *buf, unsigned int len);

#ifdef __cplusplus
}
#endif

#endif /* LL_PARAMS_H */
