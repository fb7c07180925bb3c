// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The parameter table of the lossless pool: see ll_params.h. */

#include "ll_params.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "lossless.h"		/* kernel/uapi: attributes, plane */
#include "mmu.h"		/* kernel/core: the pool's limits */
#include "headroom.h"		/* kernel/core: the delays' limit */
#include "scheme.h"		/* kernel/core: the schemes, their limits */

_Static_assert(LL_ALPHA_SHIFT_MAX == LL_MMU_ALPHA_MAX_SHIFT,
	       "ll_units.h's alpha shift is the MMU's");
_Static_assert(LL_UNITS_PRIOS_MAX + 1 == LOSSLESS_PFC_PRIOS,
	       "ll_units.h's priorities are the PFC priorities");

#define LL_PARAMS_U32_MAX 0xffffffffULL		/* an NLA_U32 attribute */
#define LL_PARAMS_PRIO(p) (1ULL << (p))
#define LL_PARAMS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The defaults are those of the kernel's pool (ll_kpool_default_config()
 * in kernel/lossless_pool.c, LL_DEFAULT_SW_DELAY_NS in lossless_pool.h):
 * kernel headers that userspace cannot include, hence the numbers.
 */
/* ecn-mode's names: the value 0, then bit 0 (LL_PARAM_FLAGS). */
static const char *const ll_ecn_modes[] = { "red", "np-ecn", NULL };

const struct ll_param ll_params[LL_P_COUNT] = {
	[LL_P_POOL] = {
		.tc = "pool", .arg = "NAME", .key = "name",
		.help = "join the pool NAME, creating it if the network namespace has none",
		.unit = LL_PARAM_NAME, .flags = LL_PARAM_PORT, .scheme = -1,
		.nl_attr = TCA_LOSSLESS_POOL, .word = -1,
	},
	[LL_P_BUFFER] = {
		.tc = "buffer", .arg = "SIZE", .key = "buffer",
		.metric = "lossless_pool_buffer_bytes",
		.help = "the pool's byte budget: reserves, headrooms and the shared region",
		.unit = LL_PARAM_SIZE, .scheme = -1,
		.min = 1, .max = LL_MMU_MAX_TOTAL_BYTES, .def = 4ULL << 20,
		.nl_attr = TCA_LOSSLESS_POOL_BYTES, .nl_len = 8, .word = -1,
	},
	[LL_P_ALPHA] = {
		.tc = "alpha", .arg = "ALPHA", .key = "alpha", .ctl = "alpha",
		.metric = "lossless_pool_alpha",
		.help = "Dynamic Threshold factor of the lossless priorities",
		.unit = LL_PARAM_ALPHA, .flags = LL_PARAM_POLICY, .scheme = -1,
		.min = LL_ALPHA_ENCODE(1, LL_MMU_ALPHA_MAX_SHIFT),
		.max = LL_ALPHA_ENCODE(LL_ALPHA_NUM_MAX, 0),
		.def = LL_ALPHA_ENCODE(1, 3),
		.nl_attr = TCA_LOSSLESS_ALPHA, .nl_len = 4,
		.plane_set = LOSSLESS_PLANE_SET_ALPHA, .word = -1,
	},
	[LL_P_EGRESS_ALPHA] = {
		.tc = "egress-alpha", .arg = "ALPHA", .key = "egress-alpha",
		.ctl = "egress-alpha", .metric = "lossless_pool_egress_alpha",
		.help = "Dynamic Threshold factor of the lossy priorities' egress queues",
		.unit = LL_PARAM_ALPHA, .flags = LL_PARAM_POLICY, .scheme = -1,
		.min = LL_ALPHA_ENCODE(1, LL_MMU_ALPHA_MAX_SHIFT),
		.max = LL_ALPHA_ENCODE(LL_ALPHA_NUM_MAX, 0),
		.def = LL_ALPHA_ENCODE(1, 0),
		.nl_attr = TCA_LOSSLESS_EGRESS_ALPHA, .nl_len = 4,
		.plane_set = LOSSLESS_PLANE_SET_EGRESS_ALPHA, .word = -1,
	},
	[LL_P_LOSSLESS_PRIOS] = {
		.tc = "lossless-prios", .arg = "PRIOS", .key = "lossless-prios",
		.help = "the priorities that get PFC and headroom; the others are lossy",
		.unit = LL_PARAM_PRIOS, .scheme = -1,
		.min = 0, .max = LL_PARAMS_PRIO(LOSSLESS_PFC_PRIOS) - 1,
		.def = LL_PARAMS_PRIO(3) | LL_PARAMS_PRIO(4),
		.nl_attr = TCA_LOSSLESS_LOSSLESS_PRIOS, .nl_len = 1, .word = -1,
	},
	[LL_P_RESERVED] = {
		.tc = "reserved", .arg = "SIZE", .key = "reserved",
		.ctl = "reserved", .metric = "lossless_pool_reserved_per_queue_bytes",
		.help = "bytes guaranteed to each ingress (port, priority); 8 x reserved + 1 MTU <= buffer",
		.unit = LL_PARAM_SIZE, .flags = LL_PARAM_POLICY | LL_PARAM_DEF_MTU,
		.scheme = -1, .min = 0, .max = LL_PARAMS_U32_MAX, .def = 1,
		.nl_attr = TCA_LOSSLESS_RESERVED_BYTES, .nl_len = 4,
		.plane_set = LOSSLESS_PLANE_SET_RESERVED, .word = -1,
	},
	[LL_P_XON_OFFSET] = {
		.tc = "xon-offset", .arg = "SIZE", .key = "xon-offset",
		.ctl = "xon-offset", .metric = "lossless_pool_xon_offset_bytes",
		.help = "PFC hysteresis: a paused priority resumes this far below its threshold",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_POLICY | LL_PARAM_DEF_MTU | LL_PARAM_MAX_BUFFER,
		.scheme = -1, .min = 0, .max = LL_PARAMS_U32_MAX, .def = 2,
		.nl_attr = TCA_LOSSLESS_XON_OFFSET_BYTES, .nl_len = 4,
		.plane_set = LOSSLESS_PLANE_SET_XON_OFFSET, .word = -1,
	},
	[LL_P_CABLE_DELAY] = {
		.tc = "cable-delay", .arg = "TIME", .key = "cable-delay",
		.help = "one-way propagation delay of this port's link",
		.unit = LL_PARAM_TIME, .flags = LL_PARAM_PORT | LL_PARAM_TOML_PORT,
		.scheme = -1, .min = 0, .max = LL_HEADROOM_MAX_DELAY_NS, .def = 0,
		.nl_attr = TCA_LOSSLESS_CABLE_DELAY_NS, .nl_len = 8, .word = -1,
	},
	[LL_P_SW_DELAY] = {
		.tc = "sw-delay", .arg = "TIME", .key = "sw-delay",
		.help = "software response of both ends, from the pause decision until the upstream stops",
		.unit = LL_PARAM_TIME, .flags = LL_PARAM_PORT, .scheme = -1,
		.min = 0, .max = LL_HEADROOM_MAX_DELAY_NS, .def = 1000000,
		.nl_attr = TCA_LOSSLESS_SW_DELAY_NS, .nl_len = 8, .word = -1,
	},
	[LL_P_HEADROOM] = {
		.tc = "headroom", .arg = "SIZE", .key = "headroom",
		.ctl = "headroom", .metric = "lossless_port_headroom_bytes",
		.help = "headroom of each lossless priority of this port, at least 2 MTU; 0: computed",
		.unit = LL_PARAM_SIZE,
		.flags = LL_PARAM_PORT | LL_PARAM_TOML_PORT | LL_PARAM_MAX_BUFFER,
		.scheme = -1, .min = 0, .max = LL_PARAMS_U32_MAX, .def = 0,
		.nl_attr = TCA_LOSSLESS_HEADROOM_BYTES, .nl_len = 4,
		.plane_set = LOSSLESS_PLANE_SET_HEADROOM, .word = -1,
	},
	[LL_P_SCHEME_PORT] = {
		.tc = "scheme-port", .arg = "N", .key = "scheme-port",
		.help = "this port's number in the pool's scheme (portfc: its BCube switch port, 0 .. n-1); absent: the order it joined",
		.unit = LL_PARAM_COUNT, .flags = LL_PARAM_PORT | LL_PARAM_TOML_PORT,
		.scheme = -1, .min = 0, .max = 63, .def = 0,
		.nl_attr = TCA_LOSSLESS_SCHEME_PORT, .nl_len = 1, .word = -1,
	},
	[LL_P_ECN] = {
		.tc = "ecn", .arg = "{ KMIN KMAX PMAX | off }", .key = "ecn",
		.help = "RED marking (CE) on the egress queues between KMIN and KMAX bytes, up to PMAX",
		.unit = LL_PARAM_ECN, .scheme = -1,
		.nl_attr = TCA_LOSSLESS_ECN_KMIN_BYTES, .word = -1,
	},
	[LL_P_ECN_MODE] = {
		.tc = "ecn-mode", .arg = "red|np-ecn", .key = "ecn-mode",
		.help = "how the ports mark CE: red (the ecn thresholds, at enqueue) or np-ecn (PCN's NP-ECN at dequeue: a lossless priority's ECT packet with more behind it, unless it sat through a PAUSE; needs ecn off)",
		.unit = LL_PARAM_FLAGS, .flags = LL_PARAM_SHOW_NONZERO,
		.scheme = -1, .min = 0, .max = 1, .def = LOSSLESS_ECN_MODE_RED,
		.nl_attr = TCA_LOSSLESS_ECN_MODE, .nl_len = 1, .word = -1,
		.names = ll_ecn_modes,
	},
	[LL_P_NP_ECN_K] = {
		.tc = "np-ecn-k", .arg = "SIZE", .key = "np-ecn-k",
		.help = "np-ecn marks a packet with more than this behind it in its queue (0, the paper's: any); above the hosts' bursts from timer lateness",
		.unit = LL_PARAM_SIZE, .flags = LL_PARAM_SHOW_NONZERO | LL_PARAM_MAX_BUFFER,
		.scheme = -1, .min = 0, .max = LL_PARAMS_U32_MAX, .def = 0,
		.nl_attr = TCA_LOSSLESS_NP_ECN_K_BYTES, .nl_len = 4, .word = -1,
	},
	[LL_P_PLANE] = {
		.tc = "plane", .arg = "{ auto | PATH }",
		.help = "the pool's shared-state plane, a BPF map pinned on bpffs (auto: /sys/fs/bpf/lossless/POOL/plane)",
		.unit = LL_PARAM_PLANE, .scheme = -1,
		.nl_attr = TCA_LOSSLESS_PLANE_FD, .word = -1,
	},
	[LL_P_INTERVAL] = {
		.arg = "TIME", .ctl = "interval",
		.metric = "lossless_pool_telemetry_interval_seconds",
		.help = "telemetry period of the plane (whole microseconds)",
		.unit = LL_PARAM_TIME, .scheme = -1,
		.min = LOSSLESS_PLANE_INTERVAL_MIN_US * 1000ULL,
		.max = LOSSLESS_PLANE_INTERVAL_MAX_US * 1000ULL,
		.def = LOSSLESS_PLANE_INTERVAL_DEFAULT_US * 1000ULL,
		.plane_set = LOSSLESS_PLANE_SET_INTERVAL, .word = -1,
	},
	[LL_P_SCHEME] = {
		.tc = "scheme", .arg = "NAME", .key = "scheme",
		.help = "the pool's MMU scheme (docs/SCHEMES.md)",
		.unit = LL_PARAM_SCHEME, .scheme = -1,
		.min = 0, .max = LL_SCHEME_COUNT - 1, .def = LL_SCHEME_DT,
		.nl_attr = TCA_LOSSLESS_SCHEME,
		.plane_set = LOSSLESS_PLANE_SET_SCHEME, .word = -1,
	},
};

/* Every row: the pool's, then each selectable scheme's; NULL after. */
const struct ll_param *ll_param_row(unsigned int n)
{
	const struct ll_scheme_desc *d;
	unsigned int id;

	if (n < LL_P_COUNT)
		return &ll_params[n];
	n -= LL_P_COUNT;
	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		d = ll_scheme_selectable(id);
		if (!d)
			continue;
		if (n < d->n_params)
			return &d->params[n];
		n -= d->n_params;
	}
	return NULL;
}

unsigned int ll_param_index(const struct ll_param *p)
{
	const struct ll_param *r;
	unsigned int i;

	for (i = 0; (r = ll_param_row(i)); i++)
		if (r == p)
			return i;
	return LL_PARAM_ROWS_MAX;
}

const struct ll_param *ll_param_by_tc(const char *kw)
{
	const struct ll_param *r;
	unsigned int i;

	for (i = 0; (r = ll_param_row(i)); i++)
		if (r->tc && strcmp(kw, r->tc) == 0)
			return r;
	return NULL;
}

const struct ll_param *ll_param_by_ctl(const char *key)
{
	const struct ll_param *r;
	unsigned int i;

	for (i = 0; (r = ll_param_row(i)); i++)
		if (r->ctl && strcmp(key, r->ctl) == 0)
			return r;
	return NULL;
}

const char *ll_param_ctl_renamed(const char *key)
{
	static const char *const renamed[][2] = {
		{ "sw-delay-us", "sw-delay" },	/* the policies' (pfc_policy.cpp) */
		{ "interval-us", "interval" },	/* LL_P_INTERVAL's */
	};
	unsigned int i;

	for (i = 0; i < LL_PARAMS_ARRAY_SIZE(renamed); i++)
		if (strcmp(key, renamed[i][0]) == 0)
			return renamed[i][1];
	return NULL;
}

const struct ll_param *ll_param_of_scheme(int scheme, unsigned int n)
{
	const struct ll_scheme_desc *d =
		scheme >= 0 ? ll_scheme_selectable((unsigned int)scheme) : NULL;

	return d && n < d->n_params ? &d->params[n] : NULL;
}

const struct ll_param *ll_param_of_scheme_key(int scheme, const char *key)
{
	const struct ll_param *r;
	unsigned int i;

	for (i = 0; (r = ll_param_of_scheme(scheme, i)); i++)
		if (r->key && strcmp(key, r->key) == 0)
			return r;
	return NULL;
}

const char *ll_param_scheme_name(int scheme)
{
	return scheme >= 0 ? ll_scheme_name((unsigned int)scheme) : NULL;
}

/* Strict decimal: digits only, no sign, no overflow. */
static int ll_param_u64(const char *text, uint64_t *out)
{
	uint64_t v = 0;
	const char *s;

	if (!*text)
		return -1;
	for (s = text; *s; s++) {
		if (*s < '0' || *s > '9' || v > (~0ULL - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

/* The name of the value 0 alone, or a comma list of bit names, each once. */
static int ll_param_flags(const struct ll_param *p, const char *text,
			  uint64_t *out)
{
	const char *s = text, *end;
	uint64_t v = 0, bit;
	unsigned int i;
	size_t n;

	if (!p->names || !p->names[0])
		return -1;
	if (strcmp(text, p->names[0]) == 0) {
		*out = 0;
		return 0;
	}
	for (;;) {
		end = strchr(s, ',');
		n = end ? (size_t)(end - s) : strlen(s);
		for (i = 1; p->names[i]; i++)
			if (strlen(p->names[i]) == n &&
			    strncmp(s, p->names[i], n) == 0)
				break;
		if (!p->names[i] || i > 64)
			return -1;
		bit = 1ULL << (i - 1);
		if (v & bit)
			return -1;
		v |= bit;
		if (!end)
			break;
		s = end + 1;
	}
	*out = v;
	return 0;
}

int ll_param_parse(const struct ll_param *p, const char *text,
		   uint64_t *value, long long *bad)
{
	unsigned int alpha;
	uint64_t v = 0;
	uint8_t mask;

	switch (p->unit) {
	case LL_PARAM_SIZE:
		if (ll_units_size(text, &v))
			return LL_PARAM_EVALUE;
		break;
	case LL_PARAM_TIME:
		if (ll_units_time(text, p->max, &v))
			return LL_PARAM_EVALUE;
		break;
	case LL_PARAM_COUNT:
		if (ll_param_u64(text, &v))
			return LL_PARAM_EVALUE;
		break;
	case LL_PARAM_FLAGS:
		if (ll_param_flags(p, text, &v))
			return LL_PARAM_EVALUE;
		if (p->excl && (v & p->excl) == p->excl)
			return LL_PARAM_ECOMBO;
		break;
	case LL_PARAM_ALPHA:
		switch (ll_alpha_parse(text, &alpha)) {
		case 0:
			v = alpha;
			break;
		case LL_ALPHA_BAD_NUM:
			return LL_PARAM_EALPHA_NUM;
		default:
			return LL_PARAM_EALPHA_DEN;
		}
		break;
	case LL_PARAM_PRIOS:
		switch (ll_units_prios(text, &mask, bad)) {
		case LL_UNITS_PRIOS_OK:
			v = mask;
			break;
		case LL_UNITS_PRIOS_DUPLICATE:
			return LL_PARAM_EPRIO_DUP;
		default:
			return LL_PARAM_EVALUE;
		}
		break;
	default:
		return LL_PARAM_ESPECIAL;
	}
	if (ll_param_check(p, v, 0))
		return LL_PARAM_EVALUE;
	*value = v;
	return LL_PARAM_OK;
}

int ll_param_check(const struct ll_param *p, uint64_t value, uint64_t buffer)
{
	switch (p->unit) {
	case LL_PARAM_ALPHA:
		return value <= 0xffffffffULL && ll_alpha_valid(value) ? 0 : -1;
	case LL_PARAM_FLAGS:
		if ((value & ~p->max) ||
		    (p->excl && (value & p->excl) == p->excl))
			return -1;
		return 0;
	case LL_PARAM_SIZE:
	case LL_PARAM_TIME:
	case LL_PARAM_COUNT:
	case LL_PARAM_PRIOS:
	case LL_PARAM_SCHEME:
		if (value < p->min || value > p->max)
			return -1;
		if ((p->flags & LL_PARAM_MAX_BUFFER) && buffer && value > buffer)
			return -1;
		return 0;
	default:
		return 0;
	}
}

uint64_t ll_param_default(const struct ll_param *p, uint32_t mtu)
{
	return p->flags & LL_PARAM_DEF_MTU ? p->def * mtu : p->def;
}

/* The bits of v by name, joined by sep; unknown bits in hex. */
static int ll_param_flags_names(const struct ll_param *p, uint64_t v,
				const char *sep, char *buf, unsigned int len)
{
	unsigned int i, n = 0;
	int w;

	if (len)
		buf[0] = '\0';
	for (i = 1; p->names && p->names[i] && i <= 64; i++) {
		if (!(v & (1ULL << (i - 1))))
			continue;
		v &= ~(1ULL << (i - 1));
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
			     "%s%s", n ? sep : "", p->names[i]);
		n += w > 0 ? w : 0;
	}
	if (v) {
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
			     "%s0x%llx", n ? sep : "", (unsigned long long)v);
		n += w > 0 ? w : 0;
	}
	return n;
}

/* "dsh, or a comma list of a, b, c (not a with c)" */
static int ll_param_flags_range(const struct ll_param *p, char *buf,
				unsigned int len)
{
	char all[256], excl[128] = "";
	int n;

	ll_param_flags_names(p, p->max, ", ", all, sizeof(all));
	if (p->excl)
		ll_param_flags_names(p, p->excl, " with ", excl, sizeof(excl));
	n = snprintf(buf, len, "%s, or a comma list of %s%s%s%s",
		     p->names ? p->names[0] : "?", all,
		     p->excl ? " (not " : "", excl, p->excl ? ")" : "");
	return n;
}

/* "one of dt, ...": the selectable schemes, by id. */
static int ll_param_scheme_range(char *buf, unsigned int len)
{
	unsigned int n = 0, named = 0;
	const char *name;
	int id, w;

	w = snprintf(buf, len, "one of");
	n += w > 0 ? w : 0;
	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		name = ll_param_scheme_name(id);
		if (!name)
			continue;
		w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
			     "%s %s", named++ ? "," : "", name);
		n += w > 0 ? w : 0;
	}
	return n;
}

int ll_param_range(const struct ll_param *p, char *buf, unsigned int len)
{
	switch (p->unit) {
	case LL_PARAM_SIZE:
		return ll_units_size_range(p->min, p->max, buf, len);
	case LL_PARAM_TIME:
		return ll_units_time_range(p->min, p->max, buf, len);
	case LL_PARAM_COUNT:
		return snprintf(buf, len, "an integer %llu .. %llu",
				(unsigned long long)p->min,
				(unsigned long long)p->max);
	case LL_PARAM_ALPHA:
		return snprintf(buf, len, "%s, with NUM 1 .. %u and DEN a power of two 1 .. 2^%u",
				LL_ALPHA_FORM, LL_ALPHA_NUM_MAX,
				LL_ALPHA_SHIFT_MAX);
	case LL_PARAM_PRIOS:
		return snprintf(buf, len, "a comma list of priorities 0 .. %u (e.g. 3,4) or none",
				LL_UNITS_PRIOS_MAX);
	case LL_PARAM_SCHEME:
		return ll_param_scheme_range(buf, len);
	case LL_PARAM_FLAGS:
		return ll_param_flags_range(p, buf, len);
	default:
		return snprintf(buf, len, "%s %s", p->tc ? p->tc : "", p->arg);
	}
}

int ll_param_text(const struct ll_param *p, uint64_t v, char *buf,
		  unsigned int len)
{
	static const struct { const char *name; unsigned int shift; } sizes[] = {
		{ "gb", 30 }, { "mb", 20 }, { "kb", 10 },
	};
	unsigned int i, n = 0;
	int w;

	switch (p->unit) {
	case LL_PARAM_SIZE:
		for (i = 0; i < LL_PARAMS_ARRAY_SIZE(sizes); i++)
			if (v && !(v & ((1ULL << sizes[i].shift) - 1)))
				return snprintf(buf, len, "%llu%s",
						(unsigned long long)(v >> sizes[i].shift),
						sizes[i].name);
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	case LL_PARAM_TIME:
		return ll_units_time_text(v, buf, len);
	case LL_PARAM_ALPHA:
		ll_alpha_format(v, buf, len);
		return (int)strlen(buf);
	case LL_PARAM_PRIOS:
		if (!v)
			return snprintf(buf, len, "none");
		if (len)
			buf[0] = '\0';
		for (i = 0; i <= LL_UNITS_PRIOS_MAX; i++) {
			if (!(v & LL_PARAMS_PRIO(i)))
				continue;
			w = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0,
				     "%s%u", n ? "," : "", i);
			n += w > 0 ? w : 0;
		}
		return n;
	case LL_PARAM_SCHEME:
		return snprintf(buf, len, "%s", ll_param_scheme_name((int)v) ?
				ll_param_scheme_name((int)v) : "?");
	case LL_PARAM_ECN:
		return snprintf(buf, len, "off");
	case LL_PARAM_FLAGS:
		if (!v)
			return snprintf(buf, len, "%s",
					p->names ? p->names[0] : "0");
		return ll_param_flags_names(p, v, ",", buf, len);
	default:
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	}
}

int ll_param_default_text(const struct ll_param *p, char *buf,
			  unsigned int len)
{
	if (p->flags & LL_PARAM_DEF_MTU)
		return snprintf(buf, len, "%llu MTU", (unsigned long long)p->def);
	if (p->unit == LL_PARAM_NAME || p->unit == LL_PARAM_PLANE)
		return snprintf(buf, len, "none");
	return ll_param_text(p, p->def, buf, len);
}

int ll_param_synopsis(const struct ll_param *p, char *buf, unsigned int len)
{
	const struct ll_param *sp;
	unsigned int n = 0, i, named = 0;
	int id, w;

#define LL_PUT(...)							\
	do {								\
		w = snprintf(buf + (n < len ? n : len),			\
			     n < len ? len - n : 0, __VA_ARGS__);	\
		n += w > 0 ? w : 0;					\
	} while (0)
	if (len)
		buf[0] = '\0';
	if (!p->tc)
		return 0;
	if (p->unit != LL_PARAM_SCHEME) {
		LL_PUT("[ %s %s ]", p->tc, p->arg);
		return n;
	}
	LL_PUT("[ %s {", p->tc);
	for (id = 0; id < LL_SCHEME_COUNT; id++) {
		if (!ll_param_scheme_name(id))
			continue;
		LL_PUT("%s %s", named++ ? " |" : "", ll_param_scheme_name(id));
		for (i = 0; (sp = ll_param_of_scheme(id, i)); i++)
			if (sp->tc)
				LL_PUT(" [ %s %s ]", sp->tc, sp->arg);
	}
	LL_PUT(" } ]");
#undef LL_PUT
	return n;
}
