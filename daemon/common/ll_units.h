/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Units of the lossless options, parsed one way for the tc plugin
 * (tc-plugins/q_lossless*.c) and the daemon's configuration
 * (daemon/config): sizes, times, rates, probabilities, Dynamic Threshold
 * alphas, priority lists and pool names. ll_params.h says which option
 * has which unit and range.
 *
 * Plain C with libc's basics only (strtod, strcasecmp): no iproute2
 * headers and no libm (tc may not export floor() to its plugins). The
 * functions only parse and range-check; each caller words its own message,
 * with the hints below so that both say the same thing.
 *
 * Numbers are strict: a digit or '.' first (no sign, space, "inf", "nan"),
 * no hexadecimal for sizes, times and probabilities. Units are
 * case-insensitive, as in tc.
 */
#ifndef LL_UNITS_H
#define LL_UNITS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A size in tc's get_size() units: b, k or kb, m or mb, g or gb (powers of
 * 1024), kbit, mbit, gbit (1024^n / 8 bytes); a bare number is bytes. It
 * must come to a whole number of bytes, at most 2^53. Returns 0 with
 * *bytes set, or -1.
 */
int ll_units_size(const char *text, uint64_t *bytes);
#define LL_UNITS_SIZE_UNITS "tc size units b, kb, mb, gb"
#define LL_UNITS_SIZE_EXAMPLES "1500b, 64kb, 4mb"

/*
 * The range of a size, as every message words it: "MIN .. MAX bytes (tc
 * size units b, kb, mb, gb: 1500b, 64kb, 4mb)". Returns snprintf()'s.
 */
int ll_units_size_range(uint64_t min, uint64_t max, char *buf,
			unsigned int len);

/*
 * A time in tc's get_time64() units: s, sec, secs; ms, msec, msecs; us,
 * usec, usecs; ns, nsec, nsecs. The unit is required: tc reads a bare
 * number as us in one place and ns in another. Rounded to the nearest ns.
 * Returns 0 with *ns set, or -1 (syntax, unit, or above max_ns).
 */
int ll_units_time(const char *text, uint64_t max_ns, uint64_t *ns);
#define LL_UNITS_TIME_UNITS "a unit ns, us, ms or s"
#define LL_UNITS_TIME_EXAMPLES "5us, 1ms"

/*
 * A time in the largest unit that divides it, as messages and defaults
 * show it: "1s", "60ms", "5us", "1500ns"; 0 is "0". And the range of a
 * time as every message words it: "a time MIN .. MAX with a unit ns, us,
 * ms or s (5us, 1ms)". Both return snprintf()'s.
 */
int ll_units_time_text(uint64_t ns, char *buf, unsigned int len);
int ll_units_time_range(uint64_t min, uint64_t max, char *buf,
			unsigned int len);

/*
 * A rate in tc's rate units (iproute2 lib/utils_math.c, get_rate64()):
 * bit, kbit, mbit, gbit, tbit (powers of 1000), Kibit, mibit, gibit, tibit
 * (powers of 1024), Bps, KBps, MBps, GBps, TBps, KiBps, MiBps, GiBps,
 * TiBps (bytes/s); case-insensitive; a bare number is bit/s. As in tc the
 * value is first converted to whole bytes per second (truncated), so
 * *bps is a multiple of 8. A lower-case "bps" suffix ("10gbps", "10bps")
 * is refused as ambiguous: tc would read it as bytes/s, 8x what was
 * probably meant. Percentages of the link speed are not handled here (tc
 * resolves them from sysfs).
 *
 * Returns LL_UNITS_RATE_OK with *bps set, or an error; *unit (if not NULL)
 * points into text at the unit, for messages.
 */
enum ll_units_rate_err {
	LL_UNITS_RATE_OK = 0,
	LL_UNITS_RATE_SYNTAX,		/* not a number: worded as out of range */
	LL_UNITS_RATE_AMBIGUOUS,	/* "...bps" */
	LL_UNITS_RATE_UNIT,		/* unknown unit */
	LL_UNITS_RATE_RANGE,		/* outside min_bps .. max_bps */
};
int ll_units_rate(const char *text, uint64_t min_bps, uint64_t max_bps,
		  uint64_t *bps, const char **unit);
#define LL_UNITS_RATE_UNITS "bit, kbit, mbit, gbit, tbit, Bps, KBps, ..."

/*
 * A probability 0 .. 1 in 1/65536 units (0.2 -> 13107, 1 -> 65536),
 * rounded to nearest. ll_units_prob takes a plain decimal (digits and one
 * '.': "0.2", "1", ".5"; no sign, exponent or '%'), ll_units_prob_double
 * a number already parsed (a TOML float). Return 0, or -1.
 */
#define LL_UNITS_PROB_ONE 65536U
int ll_units_prob(const char *text, uint32_t *units);
int ll_units_prob_double(double p, uint32_t *units);

/*
 * Lossless priorities: a set of PFC priorities 0 .. 7 as a mask (bit p:
 * priority p), each listed at most once: "3,3" is refused, not read as
 * "3", in tc (ll_units_prios) and in losslessd's lossless_prios
 * (ll_units_prios_add per array element) alike.
 *
 * ll_units_prios_add adds prio to *mask. ll_units_prios parses tc's text
 * form: a comma list of single digits ("3,4", "3") or "none" (0). Both
 * return LL_UNITS_PRIOS_OK; LL_UNITS_PRIOS_SYNTAX (text only: not such a
 * list); LL_UNITS_PRIOS_RANGE (a priority above 7) or
 * LL_UNITS_PRIOS_DUPLICATE (listed twice), with *bad (if not NULL) the
 * priority at fault. *mask is unchanged on error.
 */
enum ll_units_prios_err {
	LL_UNITS_PRIOS_OK = 0,
	LL_UNITS_PRIOS_SYNTAX,
	LL_UNITS_PRIOS_RANGE,
	LL_UNITS_PRIOS_DUPLICATE,
};
#define LL_UNITS_PRIOS_MAX 7
int ll_units_prios_add(uint8_t *mask, long long prio);
int ll_units_prios(const char *text, uint8_t *mask, long long *bad);

/*
 * Dynamic Threshold alpha: num / 2^shift (kernel/core/mmu.h, struct
 * ll_mmu_alpha), encoded in the ABI (TCA_LOSSLESS_ALPHA, the plane's
 * alpha fields) as num << 8 | shift. This is the only place userspace
 * encodes or decodes it: text "NUM" or "NUM/DEN" with DEN a power of two
 * (1/8, 3/4, 2) <-> the encoding, and the encoding -> its value.
 *
 * ll_alpha_parse returns 0, LL_ALPHA_BAD_NUM (numerator not 1 ..
 * LL_ALPHA_NUM_MAX) or LL_ALPHA_BAD_DEN (denominator not a power of two
 * 1 .. 2^LL_ALPHA_SHIFT_MAX). ll_alpha_format writes the text form
 * ("1/8"; an invalid shift as "num/2^shift"); ll_alpha_value the number
 * (0.125). ll_alpha_valid tells whether an encoded alpha is one the kernel
 * takes.
 */
#define LL_ALPHA_NUM_MAX 65535U		/* ll_mmu_alpha.num is a u16 */
#define LL_ALPHA_SHIFT_MAX 32U		/* LL_MMU_ALPHA_MAX_SHIFT (asserted) */
#define LL_ALPHA_ENCODE(num, shift) (((uint32_t)(num) << 8) | (uint32_t)(shift))
enum { LL_ALPHA_BAD_NUM = 1, LL_ALPHA_BAD_DEN = 2 };
#define LL_ALPHA_FORM "NUM or NUM/DEN: 1/8, 3/4, 2"
int ll_alpha_parse(const char *text, unsigned int *encoded);
void ll_alpha_format(unsigned int encoded, char *buf, unsigned int len);
double ll_alpha_value(unsigned int encoded);
int ll_alpha_valid(unsigned int encoded);

/*
 * A pool name: 1 .. LL_UNITS_POOL_NAME_MAX characters of
 * LL_UNITS_POOL_NAME_CHARS. Returns 0 if valid, -1 if the length is wrong,
 * or the 1-based position of the first character not allowed.
 */
#define LL_UNITS_POOL_NAME_MAX 15	/* the kernel's LL_POOL_NAME_LEN - 1 */
#define LL_UNITS_POOL_NAME_CHARS "A-Z a-z 0-9 _ . -"
int ll_units_pool_name(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* LL_UNITS_H */
