// Pause gates (kernel/core/pause.c), hand-computed scenarios.
//
// Most tests run at 1 Gbit/s, where one quantum is 512 bit times
// = 512 ns, so q quanta close a gate for exactly 512 * q ns.
#include <gtest/gtest.h>

#include <cstring>

#include "core.h"

namespace {

constexpr ll_u64 kGbit = 1000000000ull;

ll_pause_gate Fresh()
{
	ll_pause_gate g;
	std::memset(&g, 0, sizeof(g));
	return g;
}

ll_port_pause FreshPort()
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	return p;
}

ll_ctrl_msg Pfc(ll_u8 vector, std::initializer_list<ll_u16> times)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PFC;
	m.gate_mask = vector;
	int i = 0;
	for (ll_u16 t : times)
		m.value[i++] = t;
	return m;
}

ll_ctrl_msg Pause(ll_u16 time)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PAUSE;
	m.gate_mask = 1;	/* value[0]: the port gate */
	m.value[0] = time;
	return m;
}

// ------------------------------------------------------------ single gate

TEST(Gate, StartsOpen)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_expire(&g, 12345), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_closed_ns(&g, 12345), 0u);
	EXPECT_EQ(g.closed, 0);
}

TEST(Gate, XoffClosesUntilNowPlusDuration)
{
	ll_pause_gate g = Fresh();
	// 10 quanta at 1 Gbit = 5120 ns: closed from 1000 until 6120.
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(g.closed, 1);
	EXPECT_EQ(g.until_ns, 6120u);
	EXPECT_EQ(g.closed_since_ns, 1000u);
	EXPECT_EQ(g.xoff_frames, 1u);
	EXPECT_EQ(g.xon_frames, 0u);
	EXPECT_EQ(ll_gate_expire(&g, 1000), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_expire(&g, 6119), LL_GATE_NONE);
	EXPECT_EQ(g.closed, 1);
	// Opens exactly at the deadline.
	EXPECT_EQ(ll_gate_expire(&g, 6120), LL_GATE_OPENED);
	EXPECT_EQ(g.closed, 0);
	EXPECT_EQ(g.closed_ns_total, 5120u);
	EXPECT_EQ(ll_gate_expire(&g, 6121), LL_GATE_NONE);
}

TEST(Gate, XoffAtHundredMegabit)
{
	ll_pause_gate g = Fresh();
	// 0xFFFF quanta at 100 Mbit = 65535 * 5120 = 335539200 ns.
	EXPECT_EQ(ll_gate_apply(&g, 7, 0xFFFF, 100000000ull), LL_GATE_CLOSED);
	EXPECT_EQ(g.until_ns, 335539207u);
}

TEST(Gate, XoffAtTenGigabitRoundsUp)
{
	ll_pause_gate g = Fresh();
	// 1 quantum at 10 Gbit = 51.2 ns, rounded up to 52.
	EXPECT_EQ(ll_gate_apply(&g, 100, 1, 10 * kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(g.until_ns, 152u);
}

TEST(Gate, RefreshWithShorterTimeReplacesDeadline)
{
	ll_pause_gate g = Fresh();
	// 100 quanta = 51200 ns: until 1000 + 51200 = 52200.
	EXPECT_EQ(ll_gate_apply(&g, 1000, 100, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(g.until_ns, 52200u);
	// At 2000, 10 quanta = 5120 ns: until 7120, earlier than 52200.
	EXPECT_EQ(ll_gate_apply(&g, 2000, 10, kGbit), LL_GATE_REFRESHED);
	EXPECT_EQ(g.until_ns, 7120u);
	EXPECT_EQ(g.closed_since_ns, 1000u);	// same closed period
	EXPECT_EQ(g.xoff_frames, 2u);
	EXPECT_EQ(ll_gate_expire(&g, 7119), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_expire(&g, 7120), LL_GATE_OPENED);
	// One period, 1000 .. 7120.
	EXPECT_EQ(g.closed_ns_total, 6120u);
}

TEST(Gate, RefreshWithLongerTimeExtends)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(g.until_ns, 6120u);
	// At 5000, 100 quanta: until 5000 + 51200 = 56200.
	EXPECT_EQ(ll_gate_apply(&g, 5000, 100, kGbit), LL_GATE_REFRESHED);
	EXPECT_EQ(g.until_ns, 56200u);
	EXPECT_EQ(ll_gate_expire(&g, 6120), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_expire(&g, 56200), LL_GATE_OPENED);
	EXPECT_EQ(g.closed_ns_total, 55200u);	// 56200 - 1000
}

TEST(Gate, XonOpensAtOnceAndAccountsExactly)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 100, kGbit), LL_GATE_CLOSED);
	// XON at 3000: closed 1000 .. 3000 = 2000 ns.
	EXPECT_EQ(ll_gate_apply(&g, 3000, 0, kGbit), LL_GATE_OPENED);
	EXPECT_EQ(g.closed, 0);
	EXPECT_EQ(g.closed_ns_total, 2000u);
	EXPECT_EQ(g.xon_frames, 1u);
	EXPECT_EQ(g.xoff_frames, 1u);
	// The old deadline (52200) no longer matters.
	EXPECT_EQ(ll_gate_expire(&g, 52200), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_closed_ns(&g, 100000), 2000u);
}

TEST(Gate, XonAtCloseTimeAccountsZero)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 500, 3, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(ll_gate_apply(&g, 500, 0, kGbit), LL_GATE_OPENED);
	EXPECT_EQ(g.closed_ns_total, 0u);
}

TEST(Gate, ExpiryAccountsUpToDeadlineNotNow)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	// Noticed long after the deadline (6120): still 5120 ns closed.
	EXPECT_EQ(ll_gate_expire(&g, 50000), LL_GATE_OPENED);
	EXPECT_EQ(g.closed_ns_total, 5120u);
	EXPECT_EQ(ll_gate_closed_ns(&g, 90000), 5120u);
}

TEST(Gate, XonWhileOpenCountsAndReturnsNone)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 0, kGbit), LL_GATE_NONE);
	EXPECT_EQ(ll_gate_apply(&g, 2000, 0, kGbit), LL_GATE_NONE);
	EXPECT_EQ(g.xon_frames, 2u);
	EXPECT_EQ(g.xoff_frames, 0u);
	EXPECT_EQ(g.closed, 0);
	EXPECT_EQ(g.closed_ns_total, 0u);
	// Also after a finished period.
	EXPECT_EQ(ll_gate_apply(&g, 3000, 1, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(ll_gate_expire(&g, 3512), LL_GATE_OPENED);
	EXPECT_EQ(ll_gate_apply(&g, 4000, 0, kGbit), LL_GATE_NONE);
	EXPECT_EQ(g.xon_frames, 3u);
	EXPECT_EQ(g.closed_ns_total, 512u);
}

TEST(Gate, XonAfterUnnoticedExpiryReportsOpened)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	// Deadline 6120 passed but nobody expired the gate: the XON at 9000
	// finds it closed-but-due; it opened at 6120, not 9000.
	EXPECT_EQ(ll_gate_apply(&g, 9000, 0, kGbit), LL_GATE_OPENED);
	EXPECT_EQ(g.closed, 0);
	EXPECT_EQ(g.closed_ns_total, 5120u);
	EXPECT_EQ(g.xon_frames, 1u);
}

TEST(Gate, XoffAfterDeadlinePassedIsExpiryPlusClose)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	// At 10000 (deadline 6120 passed, not expired) 20 quanta = 10240 ns:
	// the first period ends at 6120 (5120 ns), the gate was open
	// 6120 .. 10000, and a new period runs 10000 .. 20240. The net
	// change seen by the caller is none: REFRESHED.
	EXPECT_EQ(ll_gate_apply(&g, 10000, 20, kGbit), LL_GATE_REFRESHED);
	EXPECT_EQ(g.closed, 1);
	EXPECT_EQ(g.closed_since_ns, 10000u);
	EXPECT_EQ(g.until_ns, 20240u);
	EXPECT_EQ(g.closed_ns_total, 5120u);
	EXPECT_EQ(g.xoff_frames, 2u);
	// Mid-period: 5120 + (15000 - 10000) = 10120.
	EXPECT_EQ(ll_gate_closed_ns(&g, 15000), 10120u);
	EXPECT_EQ(ll_gate_expire(&g, 20240), LL_GATE_OPENED);
	// 5120 + 10240 = 15360.
	EXPECT_EQ(g.closed_ns_total, 15360u);
}

TEST(Gate, XoffExactlyAtDeadline)
{
	ll_pause_gate g = Fresh();
	EXPECT_EQ(ll_gate_apply(&g, 1000, 10, kGbit), LL_GATE_CLOSED);
	// At the deadline 6120 the old period is over (5120 ns) and a new one
	// starts at once: 6120 .. 11240.
	EXPECT_EQ(ll_gate_apply(&g, 6120, 10, kGbit), LL_GATE_REFRESHED);
	EXPECT_EQ(g.closed_ns_total, 5120u);
	EXPECT_EQ(g.closed_since_ns, 6120u);
	EXPECT_EQ(g.until_ns, 11240u);
	EXPECT_EQ(ll_gate_closed_ns(&g, 11240), 10240u);
}

TEST(Gate, ClosedNsWhileClosed)
{
	ll_pause_gate g = Fresh();
	// First a finished period of 512 ns.
	EXPECT_EQ(ll_gate_apply(&g, 0 + 100, 1, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(ll_gate_expire(&g, 612), LL_GATE_OPENED);
	EXPECT_EQ(ll_gate_closed_ns(&g, 700), 512u);
	// Then 100 quanta at 1000: 1000 .. 52200.
	EXPECT_EQ(ll_gate_apply(&g, 1000, 100, kGbit), LL_GATE_CLOSED);
	EXPECT_EQ(ll_gate_closed_ns(&g, 1000), 512u);
	// Mid-pause: 512 + (21000 - 1000) = 20512.
	EXPECT_EQ(ll_gate_closed_ns(&g, 21000), 20512u);
	// At the deadline: 512 + 51200 = 51712.
	EXPECT_EQ(ll_gate_closed_ns(&g, 52200), 51712u);
	// Past the deadline, not yet expired: capped at the deadline.
	EXPECT_EQ(ll_gate_closed_ns(&g, 90000), 51712u);
	// The query did not change the gate.
	EXPECT_EQ(g.closed, 1);
	EXPECT_EQ(g.closed_ns_total, 512u);
	EXPECT_EQ(ll_gate_expire(&g, 90000), LL_GATE_OPENED);
	EXPECT_EQ(ll_gate_closed_ns(&g, 90000), 51712u);
}

TEST(Gate, LongestPauseAtLargeTimes)
{
	ll_pause_gate g = Fresh();
	// Near 2^62 ns (146 years of uptime) nothing wraps.
	const ll_u64 t0 = 1ull << 62;
	EXPECT_EQ(ll_gate_apply(&g, t0, 0xFFFF, 1), LL_GATE_CLOSED);
	// 0xFFFF quanta at 1 bit/s: 33553920 s = 33553920e9 ns.
	EXPECT_EQ(g.until_ns, t0 + 33553920000000000ull);
	EXPECT_EQ(ll_gate_expire(&g, UINT64_MAX), LL_GATE_OPENED);
	EXPECT_EQ(g.closed_ns_total, 33553920000000000ull);
}

// -------------------------------------------------------------- port level

TEST(Port, PfcClosesOnlyEnabledClasses)
{
	ll_port_pause p = FreshPort();
	// Vector 0b10001000: classes 3 and 7. The other classes hold times
	// in the struct, which must be ignored.
	ll_ctrl_msg m = Pfc(0x88, {50, 50, 50, 10, 50, 50, 50, 20});
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0x88u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x88u);
	// 10 quanta: 1000 + 5120 = 6120; 20 quanta: 1000 + 10240 = 11240.
	EXPECT_EQ(p.gates[3].until_ns, 6120u);
	EXPECT_EQ(p.gates[7].until_ns, 11240u);
	for (int i : {0, 1, 2, 4, 5, 6, LL_GATE_PORT}) {
		EXPECT_EQ(p.gates[i].closed, 0) << i;
		EXPECT_EQ(p.gates[i].xoff_frames, 0u) << i;
		EXPECT_EQ(p.gates[i].xon_frames, 0u) << i;
	}
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 6120u);

	// The same frame again at 2000 refreshes: no open<->closed change.
	EXPECT_EQ(ll_port_pause_rx(&p, 2000, &m, kGbit), 0u);
	EXPECT_EQ(p.gates[3].until_ns, 7120u);
	EXPECT_EQ(p.gates[7].until_ns, 12240u);
	EXPECT_EQ(p.gates[3].xoff_frames, 2u);

	EXPECT_EQ(ll_port_pause_expire(&p, 7119), 0u);
	EXPECT_EQ(ll_port_pause_expire(&p, 7120), 0x08u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x80u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 12240u);
	EXPECT_EQ(ll_port_pause_expire(&p, 20000), 0x80u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 0u);
	EXPECT_EQ(ll_port_pause_expire(&p, 30000), 0u);
	EXPECT_EQ(p.gates[3].closed_ns_total, 6120u);	// 1000 .. 7120
	EXPECT_EQ(p.gates[7].closed_ns_total, 11240u);	// 1000 .. 12240
}

TEST(Port, PfcEnabledZeroTimeIsXon)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg off = Pfc(0x0C, {0, 0, 100, 100});	// classes 2, 3
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &off, kGbit), 0x0Cu);
	// XON for class 2 only (class 3 disabled in this frame), plus an XON
	// for class 5, which is open: only bit 2 changes.
	ll_ctrl_msg on = Pfc(0x24, {0, 0, 0, 999, 0, 0});
	EXPECT_EQ(ll_port_pause_rx(&p, 3000, &on, kGbit), 0x04u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x08u);
	EXPECT_EQ(p.gates[2].closed_ns_total, 2000u);
	EXPECT_EQ(p.gates[5].xon_frames, 1u);
	EXPECT_EQ(p.gates[3].until_ns, 1000u + 51200u);
}

TEST(Port, PfcEveryClassAlone)
{
	for (int c = 0; c < 8; c++) {
		ll_port_pause p = FreshPort();
		ll_ctrl_msg m = Pfc((ll_u8)(1u << c), {});
		m.value[c] = 1;
		EXPECT_EQ(ll_port_pause_rx(&p, 10, &m, kGbit), 1u << c);
		EXPECT_EQ(ll_port_pause_closed_mask(&p), 1u << c);
		EXPECT_EQ(ll_port_pause_next_deadline(&p), 522u);	// 10 + 512
		EXPECT_EQ(ll_port_pause_expire(&p, 522), 1u << c);
	}
}

TEST(Port, PfcAllClassesLongest)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Pfc(0xFF, {0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF, 0xFFFF,
				   0xFFFF, 0xFFFF, 0xFFFF});
	EXPECT_EQ(ll_port_pause_rx(&p, 5, &m, kGbit), 0xFFu);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0xFFu);
	// 65535 * 512 = 33553920.
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 33553925u);
	EXPECT_EQ(ll_port_pause_expire(&p, 33553925), 0xFFu);
}

TEST(Port, PfcEmptyVectorDoesNothing)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Pfc(0x00, {9, 9, 9, 9, 9, 9, 9, 9});
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0u);
	for (int i = 0; i < LL_GATES; i++)
		EXPECT_EQ(p.gates[i].xoff_frames + p.gates[i].xon_frames, 0u);
}

TEST(Port, PauseClosesPortGate)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Pause(100);
	m.gate_mask = 0xFF;	// ignored for PAUSE
	m.value[1] = 7;
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0x100u);
	EXPECT_EQ(LL_GATE_PORT, 8);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x100u);
	EXPECT_EQ(p.gates[LL_GATE_PORT].until_ns, 52200u);	// 1000 + 51200
	for (int i = 0; i < 8; i++)
		EXPECT_EQ(p.gates[i].xoff_frames, 0u) << i;
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 52200u);
	// Refresh, then XON.
	EXPECT_EQ(ll_port_pause_rx(&p, 2000, &m, kGbit), 0u);
	ll_ctrl_msg on = Pause(0);
	EXPECT_EQ(ll_port_pause_rx(&p, 4000, &on, kGbit), 0x100u);
	EXPECT_EQ(p.gates[LL_GATE_PORT].closed_ns_total, 3000u);
	EXPECT_EQ(ll_port_pause_rx(&p, 5000, &on, kGbit), 0u);
	EXPECT_EQ(p.gates[LL_GATE_PORT].xon_frames, 2u);
}

TEST(Port, InvalidKindIsIgnored)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Pfc(0xFF, {1, 1, 1, 1, 1, 1, 1, 1});
	for (int kind : {0, 3, 0xFF}) {
		m.kind = (ll_u8)kind;
		EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0u);
	}
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0u);
	for (int i = 0; i < LL_GATES; i++)
		EXPECT_EQ(p.gates[i].xoff_frames, 0u);
}

TEST(Port, NextDeadlinePicksEarliest)
{
	ll_port_pause p = FreshPort();
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 0u);
	ll_ctrl_msg c5 = Pfc(0x20, {0, 0, 0, 0, 0, 60});	// 1000+30720=31720
	ll_ctrl_msg c1 = Pfc(0x02, {0, 20});			// 1000+10240=11240
	ll_ctrl_msg pz = Pause(40);				// 1000+20480=21480
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &c5, kGbit), 0x20u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 31720u);
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &c1, kGbit), 0x02u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 11240u);
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &pz, kGbit), 0x100u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 11240u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x122u);

	// Expire at 25000: class 1 (11240) and the port gate (21480) open.
	EXPECT_EQ(ll_port_pause_expire(&p, 25000), 0x102u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x20u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 31720u);
	EXPECT_EQ(p.gates[1].closed_ns_total, 10240u);
	EXPECT_EQ(p.gates[LL_GATE_PORT].closed_ns_total, 20480u);

	// A shorter refresh of class 5 moves the deadline earlier:
	// 26000 + 1 * 512 = 26512.
	ll_ctrl_msg c5s = Pfc(0x20, {0, 0, 0, 0, 0, 1});
	EXPECT_EQ(ll_port_pause_rx(&p, 26000, &c5s, kGbit), 0u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 26512u);
	EXPECT_EQ(ll_port_pause_expire(&p, 26512), 0x20u);
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 0u);
	EXPECT_EQ(p.gates[5].closed_ns_total, 25512u);	// 1000 .. 26512
}

TEST(Port, NextDeadlineIgnoresStaleDeadlinesOfOpenGates)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg c0 = Pfc(0x01, {1});	// until 1512
	ll_ctrl_msg c4 = Pfc(0x10, {0, 0, 0, 0, 100});	// until 52200
	ll_port_pause_rx(&p, 1000, &c0, kGbit);
	ll_port_pause_rx(&p, 1000, &c4, kGbit);
	ll_ctrl_msg on = Pfc(0x01, {0});
	EXPECT_EQ(ll_port_pause_rx(&p, 1200, &on, kGbit), 0x01u);
	// Gate 0 is open; its old until_ns (1512) must not be reported.
	EXPECT_EQ(ll_port_pause_next_deadline(&p), 52200u);
}

TEST(Port, RxAfterUnnoticedExpiryReportsNetChange)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Pfc(0x03, {1, 1});	// classes 0, 1 until 1512
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0x03u);
	// At 5000, nobody has expired them. Class 0 gets a new XOFF (net: still
	// closed, no bit), class 1 an XON (net: opened, bit 1).
	ll_ctrl_msg n = Pfc(0x03, {2, 0});
	EXPECT_EQ(ll_port_pause_rx(&p, 5000, &n, kGbit), 0x02u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0x01u);
	EXPECT_EQ(p.gates[0].until_ns, 6024u);	// 5000 + 1024
	EXPECT_EQ(p.gates[0].closed_ns_total, 512u);
	EXPECT_EQ(p.gates[1].closed_ns_total, 512u);
}

} // namespace

// ---- credit gates (pause.h): the receive side of TOKENS frames ------------

namespace {

constexpr ll_u64 kUnit = LL_CTRL_CREDIT_UNIT_BYTES;

// A TOKENS frame for priorities in mask with credits c[] (bytes, whole
// units), the link's credit and a lifetime in quanta.
ll_ctrl_msg Tokens(ll_u8 mask, std::initializer_list<ll_u64> credits_bytes,
		   ll_u64 link_bytes, ll_u16 lifetime)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_TOKENS;
	m.gate_mask = (ll_u16)(mask | (1u << LL_GATE_PORT));
	ll_u32 i = 0;
	for (ll_u64 c : credits_bytes)
		m.value[i++] = (ll_u16)(c / kUnit);
	m.value[LL_GATE_PORT] = (ll_u16)(link_bytes / kUnit);
	m.lifetime = lifetime;
	return m;
}

ll_port_credit FreshCredit()
{
	ll_port_credit c;
	std::memset(&c, 0, sizeof(c));
	return c;
}

const ll_u8 kOrder012[] = {0, 1, 2};

}  // namespace

TEST(TokensCodec, RoundTripAndLayout)
{
	ll_ctrl_msg m = Tokens(0x0E, {0, 64, 6400, 0xFFFF * kUnit}, 128000, 1000);
	const ll_u8 src[6] = {2, 0, 0, 0, 0, 7};
	std::memcpy(m.src, src, 6);
	ll_u8 f[64];
	ASSERT_EQ(ll_ctrl_build(f, sizeof(f), &m), (ll_u32)LL_MAC_CTRL_FRAME_BYTES);
	EXPECT_EQ(f[12] << 8 | f[13], LL_ETH_P_LOSSLESS_CTRL);
	EXPECT_EQ(f[14] << 8 | f[15], LL_CTRL_OP_TOKENS);
	EXPECT_EQ(f[16], 0);		// reserved: the layout's version
	EXPECT_EQ(f[17], 0x0E);		// the priority mask only
	EXPECT_EQ(f[18] << 8 | f[19], 0);	// priority 0 is not named
	EXPECT_EQ(f[20] << 8 | f[21], 1);
	EXPECT_EQ(f[22] << 8 | f[23], 100);
	EXPECT_EQ(f[24] << 8 | f[25], 0xFFFF);
	EXPECT_EQ(f[34] << 8 | f[35], 2000);	// the link's credit
	EXPECT_EQ(f[36] << 8 | f[37], 1000);	// lifetime
	ll_ctrl_msg back;
	std::memset(&back, 0xAB, sizeof(back));
	ASSERT_EQ(ll_ctrl_parse(f, LL_CTRL_TOKENS_MIN_BYTES, nullptr, &back), LL_PARSE_OK);
	EXPECT_EQ(back.kind, LL_CTRL_TOKENS);
	EXPECT_EQ(back.gate_mask, 0x0E | (1u << LL_GATE_PORT));
	EXPECT_EQ(back.value[1], 1);
	EXPECT_EQ(back.value[2], 100);
	EXPECT_EQ(back.value[3], 0xFFFF);
	EXPECT_EQ(back.value[LL_GATE_PORT], 2000);
	EXPECT_EQ(back.lifetime, 1000);
	EXPECT_EQ(std::memcmp(back.src, src, 6), 0);
	// Truncated, a version we do not know, an opcode of no kind.
	EXPECT_EQ(ll_ctrl_parse(f, LL_CTRL_TOKENS_MIN_BYTES - 1, nullptr, &back),
		  LL_PARSE_TRUNCATED);
	f[16] = 1;
	EXPECT_EQ(ll_ctrl_parse(f, 60, nullptr, &back), LL_PARSE_RESERVED_SET);
	f[16] = 0;
	f[15] = 0xFF;
	EXPECT_EQ(ll_ctrl_parse(f, 60, nullptr, &back), LL_PARSE_BAD_OPCODE);
	// PFC and PAUSE carry no lifetime.
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_PFC)->credit, 0);
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_PFC)->time_off, 0);
}

TEST(TokensCodec, NoPauseGateTakesACredit)
{
	ll_port_pause p = FreshPort();
	ll_ctrl_msg m = Tokens(0xFF, {0, 0, 0, 0, 0, 0, 0, 0}, 0, 100);
	EXPECT_EQ(ll_port_pause_rx(&p, 1000, &m, kGbit), 0u);
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0u);
}

// bifrost.md 8.4 X1 and X2 through the frame: the split in service order,
// each share bounded by the backlog, the link credit shared.
TEST(CreditGates, SplitInServiceOrder)
{
	ll_port_credit c = FreshCredit();
	ll_u64 backlog[8] = {30 * kUnit, 200 * kUnit, 200 * kUnit};
	ll_ctrl_msg m = Tokens(0x07, {80 * kUnit, 80 * kUnit, 80 * kUnit}, 100 * kUnit, 100);
	EXPECT_EQ(ll_port_credit_rx(&c, 0, &m, kGbit, kOrder012, 3, backlog), 0x07u);
	EXPECT_EQ(c.metered, 0x07u);
	EXPECT_EQ(c.gates[0].bytes, (ll_s64)(30 * kUnit));
	EXPECT_EQ(c.gates[1].bytes, (ll_s64)(70 * kUnit));
	EXPECT_EQ(c.gates[2].bytes, 0);

	ll_u64 full[8] = {500 * kUnit, 500 * kUnit, 500 * kUnit};
	m = Tokens(0x07, {100 * kUnit, 50 * kUnit, 100 * kUnit}, 100 * kUnit, 100);
	EXPECT_EQ(ll_port_credit_rx(&c, 10, &m, kGbit, kOrder012, 3, full), 0u);
	EXPECT_EQ(c.gates[0].bytes, (ll_s64)(100 * kUnit));
	EXPECT_EQ(c.gates[1].bytes, 0);
	EXPECT_EQ(c.gates[2].bytes, 0);
	// The order is the caller's: priority 2 served first.
	const ll_u8 order210[] = {2, 1, 0};
	EXPECT_EQ(ll_port_credit_rx(&c, 20, &m, kGbit, order210, 3, full), 0u);
	EXPECT_EQ(c.gates[2].bytes, (ll_s64)(100 * kUnit));
	EXPECT_EQ(c.gates[0].bytes, 0);
	EXPECT_EQ(c.frames, 3u);
	EXPECT_EQ(c.gates[0].granted_bytes, 130 * kUnit);
}

// X7: a credit lasts its lifetime, then nothing goes; a new frame replaces
// a surplus (no carry-over) but pays a debt first: a packet goes while any
// credit is left, and what it takes beyond is owed.
TEST(CreditGates, ExpiryDebtAndNoCarryOver)
{
	ll_port_credit c = FreshCredit();
	ll_u64 backlog[8] = {0, 0, 0, 100000};
	const ll_u8 order3[] = {3};
	// 100 quanta at 1 Gbit/s = 51.2 us.
	ll_ctrl_msg m = Tokens(1u << 3, {0, 0, 0, 3000}, 3000, 100);
	ll_port_credit_rx(&c, 1000, &m, kGbit, order3, 1, backlog);
	EXPECT_EQ(c.gates[3].bytes, 2944);	// 46 whole units of 3000
	EXPECT_TRUE(ll_port_credit_fits(&c, 1u << 3, 2000));
	ll_port_credit_charge(&c, 1u << 3, 1500);
	// 1444 left: the next 1500 B packet still goes, 56 B owed.
	EXPECT_TRUE(ll_port_credit_fits(&c, 1u << 3, 2000));
	ll_port_credit_charge(&c, 1u << 3, 1500);
	EXPECT_EQ(c.gates[3].bytes, -56);
	EXPECT_FALSE(ll_port_credit_fits(&c, 1u << 3, 2000));
	EXPECT_EQ(c.gates[3].blocked, 1u);
	// A gate the frame did not name, and the port gate, are not metered.
	EXPECT_TRUE(ll_port_credit_fits(&c, (1u << 4) | (1u << LL_GATE_PORT), 2000));
	// The next frame pays the debt first.
	ll_port_credit_rx(&c, 3000, &m, kGbit, order3, 1, backlog);
	EXPECT_EQ(c.gates[3].bytes, 2944 - 56);
	// Past the lifetime: nothing, however small.
	EXPECT_FALSE(ll_port_credit_fits(&c, 1u << 3, 3000 + 51200));
	EXPECT_EQ(c.gates[3].bytes, 0);
	// A surplus is not added to the next credit.
	ll_port_credit_rx(&c, 60000, &m, kGbit, order3, 1, backlog);
	ll_port_credit_rx(&c, 61000, &m, kGbit, order3, 1, backlog);
	EXPECT_EQ(c.gates[3].bytes, 2944);
	EXPECT_EQ(c.metered, 1u << 3);
}

// Metering ends by a lifetime-0 frame, by a pause frame (the caller's
// ll_port_credit_end()), or by its lease when the downstream is gone.
TEST(CreditGates, MeteringEnds)
{
	ll_port_credit c = FreshCredit();
	ll_u64 backlog[8] = {10000, 10000, 10000};
	ll_ctrl_msg m = Tokens(0x07, {6400, 6400, 6400}, 6400, 100);
	ll_port_credit_rx(&c, 0, &m, kGbit, kOrder012, 3, backlog);
	EXPECT_EQ(c.metered, 0x07u);
	// The lease: LL_CREDIT_LEASE lifetimes after the last frame.
	const ll_u64 lease = 51200ull * LL_CREDIT_LEASE;
	EXPECT_EQ(ll_port_credit_next_deadline(&c), lease);
	EXPECT_EQ(ll_port_credit_expire(&c, lease - 1), 0u);
	EXPECT_EQ(ll_port_credit_expire(&c, lease), 0x07u);
	EXPECT_EQ(c.metered, 0u);
	EXPECT_EQ(c.lapses, 1u);
	EXPECT_EQ(ll_port_credit_next_deadline(&c), 0u);
	EXPECT_TRUE(ll_port_credit_fits(&c, 0x07, lease));
	// A pause frame for priority 1 ends its metering only.
	ll_port_credit_rx(&c, lease, &m, kGbit, kOrder012, 3, backlog);
	EXPECT_EQ(ll_port_credit_end(&c, 1u << 1), 1u << 1);
	EXPECT_EQ(c.metered, 0x05u);
	// Lifetime 0: every gate it names is free at once.
	m.lifetime = 0;
	EXPECT_EQ(ll_port_credit_rx(&c, lease + 1, &m, kGbit, kOrder012, 3, backlog), 0u);
	EXPECT_EQ(c.metered, 0u);
}

// X3 and X4: no link credit, or nothing queued: nothing may go.
TEST(CreditGates, NoLinkCreditOrNoBacklog)
{
	ll_port_credit c = FreshCredit();
	ll_u64 backlog[8] = {10000, 10000, 10000};
	ll_ctrl_msg m = Tokens(0x07, {6400, 6400, 6400}, 0, 100);
	ll_port_credit_rx(&c, 0, &m, kGbit, kOrder012, 3, backlog);
	for (int g = 0; g < 3; g++)
		EXPECT_FALSE(ll_port_credit_fits(&c, 1u << g, 1)) << g;
	ll_u64 empty[8] = {};
	m = Tokens(0x07, {6400, 6400, 6400}, 6400, 100);
	ll_port_credit_rx(&c, 10, &m, kGbit, kOrder012, 3, empty);
	for (int g = 0; g < 3; g++)
		EXPECT_EQ(c.gates[g].bytes, 0) << g;
}
