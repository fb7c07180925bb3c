// PFC watchdog state machine (kernel/core/watchdog.c): detection exact to
// one poll, restoration, the actions' masks, and the XOFF alarm.
#include <gtest/gtest.h>

extern "C" {
#include "watchdog.h"
}

namespace {

constexpr ll_u64 kMs = 1000000ULL;

ll_wd Make(ll_u8 action, ll_u64 xoff_alarm_ns = 0)
{
	ll_wd w{};
	ll_wd_config c{};
	c.detect_ns = 200 * kMs;
	c.restore_ns = 200 * kMs;
	c.xoff_alarm_ns = xoff_alarm_ns;
	c.action = action;
	ll_wd_configure(&w, &c, 0);
	return w;
}

// Priority p paused by the peer since closed_ns, with (or without) packets.
ll_wd_view Paused(ll_u32 p, ll_u64 closed_ns, bool backlog = true)
{
	ll_wd_view v{};
	v.paused_mask = 1U << p;
	v.backlog_mask = backlog ? 1U << p : 0;
	v.closed_since_ns[p] = closed_ns;
	return v;
}

TEST(PfcWatchdog, StormAfterDetectTimePausedWithBacklog)
{
	ll_wd w = Make(LL_WD_DROP);
	ll_wd_view v = Paused(3, 1000 * kMs);
	ll_wd_xoff_rx(&w, 1U << 3, 1000 * kMs);
	// Polls every 100 ms from the close: not yet at +100, storm at +200.
	EXPECT_EQ(ll_wd_poll(&w, &v, 1100 * kMs).stormed, 0u);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1199 * kMs).stormed, 0u);
	ll_wd_change ch = ll_wd_poll(&w, &v, 1200 * kMs);
	EXPECT_EQ(ch.stormed, 1U << 3);
	EXPECT_EQ(w.storm_mask, 1U << 3);
	EXPECT_EQ(w.prio[3].storms, 1u);
	EXPECT_EQ(ll_wd_ignore_mask(&w), 1U << 3);
	EXPECT_EQ(ll_wd_drop_mask(&w), 1U << 3);
}

// The storm clock starts at the gate's close even if the first poll that
// sees it is later: detection is within detect + one poll of the start.
TEST(PfcWatchdog, ClockStartsAtTheCloseNotTheFirstPoll)
{
	ll_wd w = Make(LL_WD_FORWARD);
	ll_wd_view idle{};
	EXPECT_EQ(ll_wd_poll(&w, &idle, 950 * kMs).stormed, 0u);
	ll_wd_view v = Paused(0, 960 * kMs);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1050 * kMs).stormed, 0u);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1150 * kMs).stormed, 0u);  // 190 ms
	EXPECT_EQ(ll_wd_poll(&w, &v, 1250 * kMs).stormed, 1u);  // 290 ms
}

// A poll that saw no backlog restarts the clock, even with the gate still
// closed from before: paused without packets waiting is not a storm.
TEST(PfcWatchdog, PausedWithoutBacklogIsNoStorm)
{
	ll_wd w = Make(LL_WD_DROP);
	ll_wd_view empty = Paused(5, 0, false);
	for (ll_u64 t = 100; t <= 1000; t += 100)
		EXPECT_EQ(ll_wd_poll(&w, &empty, t * kMs).stormed, 0u);
	ll_wd_view v = Paused(5, 0);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1100 * kMs).stormed, 0u);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1199 * kMs).stormed, 0u);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1200 * kMs).stormed, 1U << 5);
	// Backlog without a pause is no storm either.
	ll_wd w2 = Make(LL_WD_DROP);
	ll_wd_view busy{};
	busy.backlog_mask = 0xff;
	for (ll_u64 t = 100; t <= 1000; t += 100)
		EXPECT_EQ(ll_wd_poll(&w2, &busy, t * kMs).stormed, 0u);
}

TEST(PfcWatchdog, RestoredAfterRestoreTimeWithoutXoff)
{
	ll_wd w = Make(LL_WD_DROP);
	ll_wd_view v = Paused(3, 0);
	ll_wd_xoff_rx(&w, 1U << 3, 0);
	ASSERT_EQ(ll_wd_poll(&w, &v, 200 * kMs).stormed, 1U << 3);
	// The peer keeps sending XOFF: the storm goes on.
	for (ll_u64 t = 300; t <= 1000; t += 100) {
		ll_wd_xoff_rx(&w, 1U << 3, (t - 50) * kMs);
		EXPECT_EQ(ll_wd_poll(&w, &v, t * kMs).restored, 0u) << t;
	}
	// Last XOFF at 950 ms: restored at the first poll from 1150 ms.
	ll_wd_view open{};
	EXPECT_EQ(ll_wd_poll(&w, &open, 1100 * kMs).restored, 0u);
	ll_wd_change ch = ll_wd_poll(&w, &open, 1150 * kMs);
	EXPECT_EQ(ch.restored, 1U << 3);
	EXPECT_EQ(w.storm_mask, 0u);
	EXPECT_EQ(w.prio[3].restores, 1u);
	EXPECT_EQ(ll_wd_storm_ns(&w.prio[3], 5000 * kMs), 950 * kMs);
	EXPECT_EQ(ll_wd_ignore_mask(&w), 0u);
	EXPECT_EQ(ll_wd_drop_mask(&w), 0u);
}

// Alert honours the peer's pauses throughout: a pause sent before the
// XOFFs stopped (65535 quanta: 8.4 s at 4 Mbit/s, refreshed every half)
// may outlast restore_ns, and restoring then would open a gate the peer
// still holds closed. So alert restores once the gate is open too; forward
// and drop, which ignored the pause, restore on restore_ns alone.
TEST(PfcWatchdog, AlertRestoresOnlyOnceThePauseRanOut)
{
	for (ll_u8 action : {LL_WD_ALERT, LL_WD_FORWARD, LL_WD_DROP}) {
		ll_wd w = Make(action);
		ll_wd_view v = Paused(3, 0);
		ll_wd_xoff_rx(&w, 1U << 3, 0);
		ASSERT_EQ(ll_wd_poll(&w, &v, 200 * kMs).stormed, 1U << 3);
		// The last XOFF at 0; the gate stays closed until 4000 ms.
		ll_wd_change ch = ll_wd_poll(&w, &v, 300 * kMs);
		if (action != LL_WD_ALERT) {
			EXPECT_EQ(ch.restored, 1U << 3) << int(action);
			continue;
		}
		EXPECT_EQ(ch.restored, 0u);
		for (ll_u64 t = 400; t < 4000; t += 100)
			EXPECT_EQ(ll_wd_poll(&w, &v, t * kMs).restored, 0u) << t;
		EXPECT_EQ(w.storm_mask, 1U << 3);
		EXPECT_EQ(w.prio[3].storms, 1u);	/* one storm, not one per detect */
		ll_wd_view open{};
		EXPECT_EQ(ll_wd_poll(&w, &open, 4000 * kMs).restored, 1U << 3);
		EXPECT_EQ(w.prio[3].restores, 1u);
		EXPECT_EQ(ll_wd_storm_ns(&w.prio[3], 9000 * kMs), 3800 * kMs);
	}
}

TEST(PfcWatchdog, ActionsMasks)
{
	for (ll_u8 a : {LL_WD_ALERT, LL_WD_FORWARD, LL_WD_DROP}) {
		ll_wd w = Make(a);
		ll_wd_view v = Paused(2, 0);
		ll_wd_poll(&w, &v, 300 * kMs);
		EXPECT_EQ(w.storm_mask, 1U << 2) << int(a);
		EXPECT_EQ(ll_wd_ignore_mask(&w), a == LL_WD_ALERT ? 0u : 1U << 2) << int(a);
		EXPECT_EQ(ll_wd_drop_mask(&w), a == LL_WD_DROP ? 1U << 2 : 0u) << int(a);
	}
	ll_wd off = Make(LL_WD_OFF);
	ll_wd_view v = Paused(2, 0);
	EXPECT_EQ(ll_wd_poll(&off, &v, 10000 * kMs).stormed, 0u);
	EXPECT_FALSE(ll_wd_enabled(&off.cfg));
}

TEST(PfcWatchdog, TurningOffRestoresStorms)
{
	ll_wd w = Make(LL_WD_DROP);
	ll_wd_view v = Paused(7, 0);
	ll_wd_poll(&w, &v, 300 * kMs);
	ASSERT_EQ(w.storm_mask, 1U << 7);
	ll_wd_config c = w.cfg;
	c.action = LL_WD_OFF;
	ll_wd_configure(&w, &c, 500 * kMs);
	EXPECT_EQ(w.storm_mask, 0u);
	EXPECT_EQ(ll_wd_drop_mask(&w), 0u);
	EXPECT_EQ(ll_wd_storm_ns(&w.prio[7], 900 * kMs), 200 * kMs);
}

// Only the priority in storm is touched.
TEST(PfcWatchdog, OtherPrioritiesUntouched)
{
	ll_wd w = Make(LL_WD_DROP);
	ll_wd_view v = Paused(3, 0);
	v.backlog_mask |= 0xf7;  // every priority has packets, only 3 is paused
	ll_wd_poll(&w, &v, 1000 * kMs);
	EXPECT_EQ(w.storm_mask, 1U << 3);
	for (int p = 0; p < 8; p++)
		EXPECT_EQ(w.prio[p].storms, p == 3 ? 1u : 0u) << p;
}

TEST(PfcWatchdog, XoffAlarmOncePerEpisode)
{
	ll_wd w = Make(LL_WD_OFF, 500 * kMs);
	EXPECT_TRUE(ll_wd_enabled(&w.cfg));
	ll_wd_view v{};
	v.told_xoff_mask = 1U << 3;
	EXPECT_EQ(ll_wd_poll(&w, &v, 100 * kMs).alarmed, 0u);  // since 100 ms
	EXPECT_EQ(ll_wd_poll(&w, &v, 599 * kMs).alarmed, 0u);
	EXPECT_EQ(ll_wd_poll(&w, &v, 600 * kMs).alarmed, 1U << 3);
	EXPECT_EQ(ll_wd_poll(&w, &v, 700 * kMs).alarmed, 0u);  // raised already
	EXPECT_EQ(w.alarm_mask, 1U << 3);
	EXPECT_EQ(ll_wd_xoff_ns(&w.prio[3], 700 * kMs), 600 * kMs);
	ll_wd_view none{};
	ll_wd_poll(&w, &none, 800 * kMs);
	EXPECT_EQ(w.alarm_mask, 0u);
	EXPECT_EQ(ll_wd_xoff_ns(&w.prio[3], 900 * kMs), 0u);
	// A new episode raises it again.
	ll_wd_poll(&w, &v, 900 * kMs);
	EXPECT_EQ(ll_wd_poll(&w, &v, 1400 * kMs).alarmed, 1U << 3);
	EXPECT_EQ(w.prio[3].xoff_alarms, 2u);
	// Off: never.
	ll_wd q = Make(LL_WD_DROP, 0);
	EXPECT_EQ(ll_wd_poll(&q, &v, 100000 * kMs).alarmed, 0u);
}

}  // namespace
