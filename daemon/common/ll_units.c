// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Units of the lossless options: see ll_units.h. */

#include "ll_units.h"

#include <ctype.h>
#include <math.h>		/* isfinite(): a macro, no libm */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LL_UNITS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct ll_unit {
	const char *name;
	double scale;
};

/* A digit or '.' first: no sign, space, "inf" or "nan" for strtod(). */
static int ll_units_number_start(const char *text)
{
	return isdigit((unsigned char)text[0]) || text[0] == '.';
}

static const struct ll_unit *ll_units_find(const struct ll_unit *units,
					   size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcasecmp(name, units[i].name) == 0)
			return &units[i];
	return NULL;
}

int ll_units_size(const char *text, uint64_t *bytes)
{
	/* get_size()'s units (iproute2 lib/utils_math.c), 64-bit. */
	static const struct ll_unit units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1024 }, { "kb", 1024 }, { "kbit", 1024 / 8 },
		{ "m", 1 << 20 }, { "mb", 1 << 20 }, { "mbit", (1 << 20) / 8 },
		{ "g", 1 << 30 }, { "gb", 1 << 30 }, { "gbit", (1 << 30) / 8 },
	};
	const struct ll_unit *u;
	double sz;
	char *p;

	if (!ll_units_number_start(text) || strpbrk(text, "xX"))
		return -1;
	sz = strtod(text, &p);
	if (p == text || !isfinite(sz))
		return -1;
	u = ll_units_find(units, LL_UNITS_ARRAY_SIZE(units), p);
	if (!u)
		return -1;
	sz *= u->scale;
	/* Whole bytes, at most 2^53 (exact in a double), without floor(). */
	if (sz > 9007199254740992.0 || sz != (double)(uint64_t)sz)
		return -1;
	*bytes = (uint64_t)sz;
	return 0;
}

int ll_units_size_range(uint64_t min, uint64_t max, char *buf,
			unsigned int len)
{
	return snprintf(buf, len, "%llu .. %llu bytes (%s: %s)",
			(unsigned long long)min, (unsigned long long)max,
			LL_UNITS_SIZE_UNITS, LL_UNITS_SIZE_EXAMPLES);
}

int ll_units_time(const char *text, uint64_t max_ns, uint64_t *ns)
{
	/* get_time64()'s units (iproute2 lib/utils.c). */
	static const struct ll_unit units[] = {
		{ "s", 1e9 }, { "sec", 1e9 }, { "secs", 1e9 },
		{ "ms", 1e6 }, { "msec", 1e6 }, { "msecs", 1e6 },
		{ "us", 1e3 }, { "usec", 1e3 }, { "usecs", 1e3 },
		{ "ns", 1 }, { "nsec", 1 }, { "nsecs", 1 },
	};
	const struct ll_unit *u;
	double t;
	char *p;

	if (!ll_units_number_start(text) || strpbrk(text, "xX"))
		return -1;
	t = strtod(text, &p);
	if (p == text || !isfinite(t))
		return -1;
	u = ll_units_find(units, LL_UNITS_ARRAY_SIZE(units), p);
	if (!u)
		return -1;
	t = t * u->scale + 0.5;		/* round to the nearest ns */
	if (t >= (double)max_ns + 1)
		return -1;
	*ns = (uint64_t)t;
	return 0;
}

int ll_units_time_text(uint64_t ns, char *buf, unsigned int len)
{
	static const struct { const char *name; uint64_t scale; } units[] = {
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
		{ "ns", 1 },
	};
	size_t i;

	if (!ns)
		return snprintf(buf, len, "0");
	for (i = 0; ns % units[i].scale; i++)
		;
	return snprintf(buf, len, "%llu%s",
			(unsigned long long)(ns / units[i].scale), units[i].name);
}

int ll_units_time_range(uint64_t min, uint64_t max, char *buf,
			unsigned int len)
{
	char smin[32], smax[32];

	ll_units_time_text(min, smin, sizeof(smin));
	ll_units_time_text(max, smax, sizeof(smax));
	return snprintf(buf, len, "a time %s .. %s with %s (%s)", smin, smax,
			LL_UNITS_TIME_UNITS, LL_UNITS_TIME_EXAMPLES);
}

int ll_units_rate(const char *text, uint64_t min_bps, uint64_t max_bps,
		  uint64_t *bps, const char **unit)
{
	/* get_rate64()'s table (iproute2 lib/utils_math.c), in its order:
	 * the first case-insensitive match wins. "" is a bare number: bit/s.
	 */
	static const struct ll_unit units[] = {
		{ "", 1. },
		{ "bit", 1. },
		{ "Kibit", 1024. },
		{ "kbit", 1000. },
		{ "mibit", 1024. * 1024. },
		{ "mbit", 1000000. },
		{ "gibit", 1024. * 1024. * 1024. },
		{ "gbit", 1000000000. },
		{ "tibit", 1024. * 1024. * 1024. * 1024. },
		{ "tbit", 1000000000000. },
		{ "Bps", 8. },
		{ "KiBps", 8. * 1024. },
		{ "KBps", 8000. },
		{ "MiBps", 8. * 1024 * 1024. },
		{ "MBps", 8000000. },
		{ "GiBps", 8. * 1024. * 1024. * 1024. },
		{ "GBps", 8000000000. },
		{ "TiBps", 8. * 1024. * 1024. * 1024. * 1024. },
		{ "TBps", 8000000000000. },
	};
	const struct ll_unit *u;
	uint64_t bytes, per1000;
	double v, b;
	size_t len;
	char *p;

	if (unit)
		*unit = text + strlen(text);
	if (!ll_units_number_start(text))
		return LL_UNITS_RATE_SYNTAX;
	v = strtod(text, &p);
	if (p == text || !isfinite(v))
		return LL_UNITS_RATE_SYNTAX;
	if (unit)
		*unit = p;
	/* Units are case-insensitive, so "10gbps" would be 10 gigaBYTES/s. */
	len = strlen(p);
	if (len >= 3 && strcmp(p + len - 3, "bps") == 0)
		return LL_UNITS_RATE_AMBIGUOUS;
	u = ll_units_find(units, LL_UNITS_ARRAY_SIZE(units), p);
	if (!u)
		return LL_UNITS_RATE_UNIT;
	/*
	 * Bound the value before converting it (a double above 2^64 has no
	 * integer). The unit's scale is what get_rate64() makes of
	 * "1000<unit>": 1000 x bits/unit / 8 bytes/s, an exact integer for
	 * every unit; bits/s = v x that / 125.
	 */
	per1000 = (uint64_t)(1000. * u->scale / 8);
	if (v * (double)per1000 / 125.0 > (double)max_bps)
		return LL_UNITS_RATE_RANGE;
	/* As get_rate64(): to bytes/s, truncated. */
	b = v * u->scale;
	b /= 8;
	bytes = (uint64_t)b;
	if (bytes > max_bps / 8 || bytes * 8 < min_bps)
		return LL_UNITS_RATE_RANGE;
	*bps = bytes * 8;
	return LL_UNITS_RATE_OK;
}

int ll_units_prob_double(double p, uint32_t *units)
{
	if (!(p >= 0.0 && p <= 1.0))	/* also refuses NaN */
		return -1;
	*units = (uint32_t)(p * LL_UNITS_PROB_ONE + 0.5);
	return 0;
}

int ll_units_prob(const char *text, uint32_t *units)
{
	const char *p;
	int digits = 0, dot = 0;

	for (p = text; *p; p++) {
		if (isdigit((unsigned char)*p))
			digits = 1;
		else if (*p == '.' && !dot)
			dot = 1;
		else
			return -1;
	}
	if (!digits)
		return -1;
	return ll_units_prob_double(strtod(text, NULL), units);
}

int ll_units_prios_add(uint8_t *mask, long long prio)
{
	if (prio < 0 || prio > LL_UNITS_PRIOS_MAX)
		return LL_UNITS_PRIOS_RANGE;
	if (*mask & (1u << prio))
		return LL_UNITS_PRIOS_DUPLICATE;
	*mask |= (uint8_t)(1u << prio);
	return LL_UNITS_PRIOS_OK;
}

int ll_units_prios(const char *text, uint8_t *mask, long long *bad)
{
	const char *p = text;
	uint8_t m = 0;
	int err;

	if (strcmp(text, "none") == 0) {
		*mask = 0;
		return LL_UNITS_PRIOS_OK;
	}
	for (;;) {
		/* One digit, then ',' or the end. */
		if (*p < '0' || *p > '9' || (p[1] != ',' && p[1] != '\0'))
			return LL_UNITS_PRIOS_SYNTAX;
		err = ll_units_prios_add(&m, *p - '0');
		if (err) {
			if (bad)
				*bad = *p - '0';
			return err;
		}
		if (p[1] == '\0')
			break;
		p += 2;
	}
	*mask = m;
	return LL_UNITS_PRIOS_OK;
}

/* Strict decimal u64: digits only, no sign, no overflow. */
static int ll_units_u64(const char *s, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i;

	if (!n || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (~0ULL - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

int ll_alpha_parse(const char *text, unsigned int *encoded)
{
	const char *slash = strchr(text, '/');
	size_t n = slash ? (size_t)(slash - text) : strlen(text);
	unsigned long long num, den = 1;
	unsigned int shift = 0;

	if (ll_units_u64(text, n, &num) || !num || num > LL_ALPHA_NUM_MAX)
		return LL_ALPHA_BAD_NUM;
	if (slash) {
		if (ll_units_u64(slash + 1, strlen(slash + 1), &den) || !den ||
		    (den & (den - 1)) || den > (1ULL << LL_ALPHA_SHIFT_MAX))
			return LL_ALPHA_BAD_DEN;
		while ((1ULL << shift) < den)
			shift++;
	}
	*encoded = LL_ALPHA_ENCODE(num, shift);
	return 0;
}

void ll_alpha_format(unsigned int encoded, char *buf, unsigned int len)
{
	unsigned int num = encoded >> 8, shift = encoded & 0xff;

	if (!shift)
		snprintf(buf, len, "%u", num);
	else if (shift <= LL_ALPHA_SHIFT_MAX)
		snprintf(buf, len, "%u/%llu", num, 1ULL << shift);
	else	/* out of range: never valid, shown as is */
		snprintf(buf, len, "%u/2^%u", num, shift);
}

double ll_alpha_value(unsigned int encoded)
{
	double v = (double)(encoded >> 8);
	unsigned int i, shift = encoded & 0xff;

	for (i = 0; i < shift && i < 64; i++)
		v /= 2;
	return v;
}

int ll_alpha_valid(unsigned int encoded)
{
	unsigned int num = encoded >> 8;

	return num && num <= LL_ALPHA_NUM_MAX &&
	       (encoded & 0xff) <= LL_ALPHA_SHIFT_MAX;
}

int ll_units_pool_name(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || len > LL_UNITS_POOL_NAME_MAX)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c >= 0x80 || !(isalnum(c) || c == '_' || c == '.' ||
				     c == '-'))
			return (int)i + 1;
	}
	return 0;
}
