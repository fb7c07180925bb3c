/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A row of the parameter table: one option of the shared-buffer pool or
 * one parameter of a scheme, with everything that names, parses, checks,
 * sends or shows it. The pool's rows are daemon/common/ll_params.c's; a
 * scheme's are in its own file (scheme_<name>.c, its descriptor's params,
 * scheme.h), where the module also reads them: its netlink nest is built
 * from them (attribute i + 1 is row i, word i of union ll_scheme_params).
 * Data only, no code: the parsers and printers are ll_params.c's.
 */
#ifndef LL_PARAM_H
#define LL_PARAM_H

#include "ll_types.h"

/* The value of a row: how it is written, parsed and shown. */
enum ll_param_unit {
	LL_PARAM_SIZE,		/* bytes; tc size units (ll_units_size) */
	LL_PARAM_TIME,		/* ns; tc time units, the unit required */
	LL_PARAM_ALPHA,		/* num << 8 | shift; NUM or NUM/DEN */
	LL_PARAM_PRIOS,		/* bit p = priority p; "3,4" or "none" */
	LL_PARAM_COUNT,		/* a plain decimal integer */
	LL_PARAM_FLAGS,		/* bits by name: names[0] (0) or a comma list */
	/* Special syntax: each reader has its own code for these. */
	LL_PARAM_NAME,		/* the pool's name (ll_units_pool_name) */
	LL_PARAM_ECN,		/* KMIN KMAX PMAX | off */
	LL_PARAM_PLANE,		/* auto | PATH */
	LL_PARAM_SCHEME,	/* a scheme's name (scheme.h's descriptors) */
};

/* Row flags. */
#define LL_PARAM_PORT		(1U << 0)	/* this port's, not the pool's */
#define LL_PARAM_MAX_BUFFER	(1U << 1)	/* also at most the pool's buffer */
#define LL_PARAM_DEF_MTU	(1U << 2)	/* def is in MTUs of the pool */
#define LL_PARAM_SHOW_NONZERO	(1U << 3)	/* tc shows it only when not 0 */
#define LL_PARAM_TOML_PORT	(1U << 4)	/* key is a [[port]]'s, not a [[pool]]'s */
#define LL_PARAM_POLICY		(1U << 5)	/* the policies take ctl at run time */

struct ll_param {
	const char *tc;		/* tc keyword ("xon-offset"); NULL: none */
	const char *arg;	/* its value in the synopsis ("SIZE") */
	/* TOML key: of a [[pool]], of a [[port]] (LL_PARAM_TOML_PORT), or
	 * of the scheme's [pool.<scheme>] table; NULL: none.
	 */
	const char *key;
	/* Key of `losslessctl set` (and of losslessd's policies, with
	 * LL_PARAM_POLICY; a scheme's as "<scheme>.<key>"); NULL: none.
	 */
	const char *ctl;
	const char *metric;	/* Prometheus family showing it; NULL: none */
	const char *help;	/* one line, no full stop */
	enum ll_param_unit unit;
	ll_u32 flags;		/* LL_PARAM_* */
	int scheme;		/* LL_SCHEME_* it is a parameter of; -1: none */
	ll_u64 min, max;	/* alpha: the encodings of the least and most */
	ll_u64 def;		/* the default (LL_PARAM_DEF_MTU: MTUs) */
	/* Netlink: nl_attr in TCA_OPTIONS (nl_nest 0), or in the scheme's
	 * nest nl_nest (TCA_LOSSLESS_SCHEME_<NAME>) in TCA_LOSSLESS_SCHEME.
	 * nl_len: its payload, 1, 4 or 8 bytes (0: special syntax).
	 */
	ll_u16 nl_attr;
	ll_u16 nl_nest;
	ll_u8 nl_len;
	/* The plane (kernel/uapi/lossless.h): the LOSSLESS_PLANE_SET_* bit
	 * of the control entry's field (0: none); a scheme's parameter is
	 * word of lossless_plane_scheme.p.raw.
	 */
	ll_u32 plane_set;
	int word;		/* -1: not a scheme's */
	/* LL_PARAM_FLAGS: names[0] is the value 0 ("dsh"), names[1 + b] bit
	 * b ("no-insurance"), NULL-terminated; excl the bits that must not
	 * all be set together (0: none). max is the mask of known bits.
	 */
	const char *const *names;
	ll_u64 excl;
};

#endif /* LL_PARAM_H */
