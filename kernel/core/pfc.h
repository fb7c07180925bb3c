/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * IEEE 802.3x PAUSE and 802.1Qbb PFC (MAC control) frames: their layout
 * (the first two entries of ctrl.c's table of control frames) and pause
 * quanta <-> nanoseconds at a port rate.
 *
 * Frame layout (no FCS), both kinds to DA 01-80-C2-00-00-01 or to the
 * receiving port's own unicast address (IEEE 802.3 Annex 31B):
 *   0  DA[6]  6 SA[6]  12 EtherType 0x8808  14 opcode
 *   PAUSE (0x0001): 16 pause_time (quanta)
 *   PFC   (0x0101): 16 class-enable vector: reserved octet (must be 0), then
 *                   e7..e0; 18 time[0..7], 2 octets each
 *   zero padding up to the 60-octet minimum frame.
 * One quantum is 512 bit times at the port's rate.
 */
#ifndef LL_PFC_H
#define LL_PFC_H

#include "ll_types.h"

#define LL_ETH_ALEN 6
#define LL_ETH_HLEN 14
#define LL_ETH_P_MAC_CONTROL 0x8808
#define LL_ETH_P_8021Q 0x8100
#define LL_ETH_P_8021AD 0x88A8
#define LL_MAC_CTRL_OP_PAUSE 0x0001
#define LL_MAC_CTRL_OP_PFC 0x0101
#define LL_PFC_PRIOS 8
#define LL_PAUSE_QUANTUM_BITS 512
#define LL_PAUSE_QUANTA_MAX 0xFFFF

/* Shortest valid frames (no padding), the minimum frame size, and the
 * longest we accept (60 octets plus an FCS some drivers leave on).
 */
#define LL_PAUSE_FRAME_MIN_BYTES 18
#define LL_PFC_FRAME_MIN_BYTES 34
#define LL_MAC_CTRL_FRAME_BYTES 60
#define LL_MAC_CTRL_FRAME_MAX_BYTES 64

/* Pause duration of quanta at rate_bps, rounded up; 0 if rate_bps is 0.
 * Quanta above 0xFFFF (no frame carries them) count as 0xFFFF.
 */
ll_u64 ll_quanta_to_ns(ll_u32 quanta, ll_u64 rate_bps);

/* Fewest quanta that cover ns at rate_bps, capped at 0xFFFF; at least 1
 * for ns > 0 (0 means XON). 0xFFFF if rate_bps is 0.
 */
ll_u32 ll_ns_to_quanta(ll_u64 ns, ll_u64 rate_bps);

#endif /* LL_PFC_H */
