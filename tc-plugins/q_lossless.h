/* SPDX-License-Identifier: GPL-2.0 */
/*
 * q_lossless.h: what the files of the tc plugin q_lossless.so share
 * (q_lossless.c says which file holds what). Private to the plugin: tc
 * looks up lossless_qdisc_util only, so the functions and data here are
 * hidden, as they were when each was static to one file.
 */
#ifndef Q_LOSSLESS_H
#define Q_LOSSLESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "utils.h"
#include "tc_util.h"

#include "lossless.h"
#include "ll_params.h"
#include "ll_units.h"
#include "mode_types.h"

/* tc_qdisc.c gives parse_qopt a 64 KiB request buffer; stay well inside. */
#define LL_NLMSG_MAX 4096

/* Shared-buffer pool limits (the rest are ll_params.c's rows). */
#define LL_POOL_NAME_MAX LL_UNITS_POOL_NAME_MAX	/* LL_POOL_NAME_LEN - 1 */
#define LL_POOL_NAME_CHARS LL_UNITS_POOL_NAME_CHARS
#define LL_TC_PMAX_ONE LL_UNITS_PROB_ONE		/* probability 1.0 */

#pragma GCC visibility push(hidden)

/* q_lossless.c */
int ll_tc_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* q_lossless_pool.c */
/* The pool's options given: one slot per row of the table (ll_params). */
struct ll_pool_opts {
	bool given[LL_PARAM_ROWS_MAX];	/* by ll_param_index() */
	__u64 val[LL_PARAM_ROWS_MAX];	/* units; scheme: its id */
	char pool[LL_POOL_NAME_MAX + 1];
	const char *plane;
	const char *first_pool_only;	/* first option given that needs a pool */
	__u32 kmin, kmax, pmax;
};

int ll_tc_prob_value(const char *arg, __u32 *out);
int ll_tc_parse_pool_opt(const struct ll_param *p, int argc, char **argv,
			 struct ll_pool_opts *o, int *used);
int ll_tc_check_scheme_opts(const struct ll_pool_opts *o);
int ll_tc_put_pool_opts(struct nlmsghdr *n, const struct ll_pool_opts *o);
void ll_tc_plane_settle(void);

/* q_lossless_pfcwd.c */
/* The nested TCA_LOSSLESS_WATCHDOG: only the fields given (the kernel keeps
 * the others, defaults on a new qdisc).
 */
struct ll_wd_opts {
	bool has_action, has_detect, has_restore, has_poll, has_alarm;
	__u8 action;
	__u64 detect_ns, restore_ns, poll_ns, alarm_ns;
};

extern const char *const ll_tc_wd_actions[LOSSLESS_WD_DROP + 1];
bool ll_tc_is_wd_kw(const char *kw);
int ll_tc_parse_wd_opt(const char *kw, const char *arg, struct ll_wd_opts *o);
int ll_tc_check_wd_opts(const struct ll_wd_opts *o);
int ll_tc_put_wd_opts(struct nlmsghdr *n, const struct ll_wd_opts *o);

/* q_lossless_mode.c */
/* The port's mode (TCA_LOSSLESS_MODE), its parameters by word. */
struct ll_mode_opts {
	bool given;
	unsigned int mode;
	bool param_given[LL_MODE_PARAM_WORDS];
	unsigned int param_mode[LL_MODE_PARAM_WORDS];	/* whose row */
	__u64 params[LL_MODE_PARAM_WORDS];
};

bool ll_tc_is_mode_kw(const char *kw);
int ll_tc_parse_mode_opt(const char *kw, const char *arg,
			 struct ll_mode_opts *o);
int ll_tc_check_mode_opts(const struct ll_mode_opts *o);
int ll_tc_put_mode_opts(struct nlmsghdr *n, const struct ll_mode_opts *o);
void ll_tc_print_mode(struct rtattr *attr);
struct tc_lossless_xstats;
void ll_tc_print_mode_xstats(const struct tc_lossless_xstats *st,
			     unsigned int len);

/* q_lossless_print.c */
void ll_tc_print_param_value(const struct ll_param *p, __u64 v);
void ll_tc_print_rate(const char *key, const char *fmt, __u64 bps);
void ll_tc_fmt_size64(char *buf, size_t len, __u64 sz);
void ll_tc_print_size64(const char *key, const char *fmt, __u64 sz);
int ll_tc_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt);

/* q_lossless_xstats.c */
void ll_tc_print_stat_value(const char *key, const char *text_key, __u8 unit,
			    __u64 v);
struct ll_scheme_stat_desc;
void ll_tc_print_prio_values(const struct tc_lossless_xstats *st,
			     const struct ll_scheme_stat_desc *desc,
			     const __u64 *vals);
int ll_tc_print_xstats(struct qdisc_util *qu, FILE *f, struct rtattr *xstats);

#pragma GCC visibility pop

#endif /* Q_LOSSLESS_H */
