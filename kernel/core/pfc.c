// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Pause quanta <-> nanoseconds: see pfc.h. */
#include "ctrl.h"

ll_u64 ll_quanta_to_ns(ll_u32 quanta, ll_u64 rate_bps)
{
	ll_u64 bits_x1e9, ns;

	if (!rate_bps)
		return 0;
	/* No frame carries more than 0xFFFF quanta: saturate there, so that
	 * bits <= 2^25 and bits * 1e9 < 2^55 fits in 64 bits.
	 */
	if (quanta > LL_PAUSE_QUANTA_MAX)
		quanta = LL_PAUSE_QUANTA_MAX;
	bits_x1e9 = (ll_u64)quanta * LL_PAUSE_QUANTUM_BITS * LL_NSEC_PER_SEC;
	/* Round up without adding rate_bps - 1, which wraps for rates
	 * near 2^64.
	 */
	ns = ll_div_u64(bits_x1e9, rate_bps);
	return ns * rate_bps < bits_x1e9 ? ns + 1 : ns;
}

ll_u32 ll_ns_to_quanta(ll_u64 ns, ll_u64 rate_bps)
{
	ll_u64 bits_x1e9 = (ll_u64)LL_PAUSE_QUANTUM_BITS * LL_NSEC_PER_SEC;
	ll_u64 quanta;

	if (!ns)
		return 0;
	if (!rate_bps)
		return LL_PAUSE_QUANTA_MAX;
	/* Saturate first: then ns * rate <= 65535 * 512 * 1e9 < 2^55. */
	if (ns >= ll_quanta_to_ns(LL_PAUSE_QUANTA_MAX, rate_bps))
		return LL_PAUSE_QUANTA_MAX;
	quanta = ll_div_u64(ns * rate_bps + bits_x1e9 - 1, bits_x1e9);
	return quanta ? (ll_u32)quanta : 1;
}
