/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Port modes (mode.h): the data only, embedded in the MMU's port
 * structures by mmu.h. A mode decides for one port's lossless ingress
 * what the pool's scheme decides for the other ports.
 *
 * Adding a mode: an id below (and in the uapi), its parameters in union
 * ll_mode_params, its state in union ll_mode_state, one file
 * mode_<name>.c with its descriptor, one entry in mode.c's table.
 */
#ifndef LL_MODE_TYPES_H
#define LL_MODE_TYPES_H

#include "ll_types.h"
#include "bifrost.h"

enum ll_mode_id {
	LL_MODE_NONE = 0,	/* the pool's scheme decides */
	LL_MODE_BIFROST = 1,	/* Bifrost (bifrost.md; bifrost.h) */
	LL_MODE_COUNT,
};

#define LL_MODE_PARAM_WORDS 8

/*
 * Bifrost: the loop's RTT bound (required); 0 for the others takes the
 * default: T = RTT / 16, J = T, H = ll_bifrost_buffer_default(), k = 1
 * (the paper's testbed).
 */
struct ll_bifrost_params {
	ll_u64 rtt_ns;
	ll_u64 slot_ns;
	ll_u64 jitter_ns;
	ll_u64 buffer_bytes;
	ll_u64 leak_period;
	ll_u64 frame;		/* LOSSLESS_BIFROST_FRAME_*: pfc, tokens */
};

/* A mode's parameters: word i is its row i (mode.h); the rest 0. */
union ll_mode_params {
	ll_u64 raw[LL_MODE_PARAM_WORDS];
	struct ll_bifrost_params bifrost;
};

LL_BUILD_ASSERT(sizeof(struct ll_bifrost_params) <=
		sizeof(ll_u64) * LL_MODE_PARAM_WORDS, mode_params_budget);

/*
 * A Bifrost port: its loop (bifrost.h) and, sending TOKENS frames
 * (BifrostX), its priorities' queues at the last slot (Alg. 2's Delta
 * L_i), the frames it sent (of either kind: the loop's own counter
 * counts the PFC frames it decides) and whether its last frame freed the
 * upstream.
 */
struct ll_bifrost_port {
	struct ll_bifrost loop;
	ll_u64 prio_prev[LL_BIFROST_PRIOS];
	ll_u64 frames;		/* sent: pauses, resumes, tokens */
	/* Per priority: its tokens sent (bytes, summed), slots that cut it. */
	ll_u64 prio_tokens_bytes[LL_BIFROST_PRIOS];
	ll_u32 prio_cut_slots[LL_BIFROST_PRIOS];
	ll_u8 released;
};

union ll_mode_state {
	struct ll_bifrost_port bifrost;
};

#define LL_MODE_STATE_MAX_BYTES 672
LL_BUILD_ASSERT(sizeof(union ll_mode_state) <= LL_MODE_STATE_MAX_BYTES,
		mode_state_budget);

/*
 * A mode's telemetry of its port: LL_MODE_STATS counters and
 * LL_MODE_PRIO_STATS values per priority, named by its descriptor (units
 * as a scheme's, scheme_types.h), and the slot loop's lateness histogram
 * (bucket 0 < 1 us, bucket i in [2^(i-1), 2^i) us, the last one open).
 */
#define LL_MODE_STATS 15
#define LL_MODE_HIST 18
#define LL_MODE_PRIO_STATS 2

struct ll_mode_port_stats {
	ll_u32 mode;		/* enum ll_mode_id; 0: none */
	ll_u64 ctr[LL_MODE_STATS];
	ll_u64 late_hist[LL_MODE_HIST];
	ll_u64 prio[LL_MODE_PRIO_STATS][LL_BIFROST_PRIOS];
};

#endif /* LL_MODE_TYPES_H */
