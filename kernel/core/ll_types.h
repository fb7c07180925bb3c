/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Integer types and the few helpers the algorithm core needs, for every
 * place the core is compiled: the kernel module, BPF programs, and
 * userspace (tests, daemon, simulator). No libc, no floating point.
 */
#ifndef LL_TYPES_H
#define LL_TYPES_H

#if defined(__KERNEL__)
#include <linux/types.h>
#include <linux/math64.h>
typedef u8 ll_u8;
typedef u16 ll_u16;
typedef u32 ll_u32;
typedef u64 ll_u64;
typedef s16 ll_s16;
typedef s32 ll_s32;
typedef s64 ll_s64;
#define ll_div_u64(n, d) div64_u64((n), (d))
#elif defined(__bpf__)
/* BPF objects include vmlinux.h or linux/types.h before the core. */
typedef __u8 ll_u8;
typedef __u16 ll_u16;
typedef __u32 ll_u32;
typedef __u64 ll_u64;
typedef __s16 ll_s16;
typedef __s32 ll_s32;
typedef __s64 ll_s64;
#define ll_div_u64(n, d) ((n) / (d))
#else
#include <stdint.h>
#include <stddef.h>
typedef uint8_t ll_u8;
typedef uint16_t ll_u16;
typedef uint32_t ll_u32;
typedef uint64_t ll_u64;
typedef int16_t ll_s16;
typedef int32_t ll_s32;
typedef int64_t ll_s64;
#define ll_div_u64(n, d) ((n) / (d))
#endif

#define LL_NSEC_PER_SEC 1000000000ULL

static inline ll_u64 ll_min_u64(ll_u64 a, ll_u64 b)
{
	return a < b ? a : b;
}

static inline ll_u64 ll_max_u64(ll_u64 a, ll_u64 b)
{
	return a > b ? a : b;
}
#define LL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A compile-time check at file scope, in C (kernel, BPF) and C++. */
#ifdef __cplusplus
#define LL_BUILD_ASSERT(cond, what) static_assert(cond, #what)
#else
#define LL_BUILD_ASSERT(cond, what) _Static_assert(cond, #what)
#endif

#endif /* LL_TYPES_H */
