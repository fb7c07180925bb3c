/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Included ahead of every source of ll_unit_extension (CMakeLists.txt):
 * a test-only scheme and a test-only control frame kind, added through
 * the tables' extension points alone (scheme_types.h, ctrl.h). Their code
 * is extension_test.cpp's.
 */
#ifndef LL_TEST_EXTENSION_H
#define LL_TEST_EXTENSION_H

#include "ll_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Id 5 is left reserved, as a removed scheme leaves its id: the test
 * scheme above it must still be found by every loop over the ids.
 */
#define LL_SCHEME_EXTRA_IDS LL_SCHEME_RESERVED_TEST = 5, LL_SCHEME_TEST = 6,
#define LL_SCHEME_EXTRA_TABLE [LL_SCHEME_TEST] = &ll_scheme_test,
#define LL_SCHEME_COUNT 7

/* Its state per port, in the scheme state union through its extension
 * point: the union grows by itself, within its checked budget.
 */
struct ll_tst_port_state {
	ll_u64 commands;	/* control-channel commands applied */
	ll_u32 last_prio;
	ll_u32 reserved0;
};
#define LL_SCHEME_EXTRA_PORT_STATE struct ll_tst_port_state tst;

#define LL_TEST_ETHERTYPE 0x88B6
#define LL_TEST_OPCODE 0x00FE
#define LL_TEST_FRAME_BYTES 24	/* header, opcode, mask, 0, 3 x 16-bit credits */
#define LL_TEST_GATE_BASE 12	/* free gates (pause.h) */
#define LL_CTRL_EXTRA_IDS LL_CTRL_TEST,
#define LL_CTRL_EXTRA_KINDS						\
	[LL_CTRL_TEST] = {						\
		.name = "test", .ethertype = LL_TEST_ETHERTYPE,		\
		.opcode = LL_TEST_OPCODE,				\
		.min_bytes = LL_TEST_FRAME_BYTES,			\
		.gate_base = LL_TEST_GATE_BASE, .gates = 3,		\
		.mask_off = 16, .rsvd_off = 17, .value_off = 18,	\
	},

struct ll_scheme_desc;
extern const struct ll_scheme_desc ll_scheme_test;

#ifdef __cplusplus
}
#endif

#endif /* LL_TEST_EXTENSION_H */
