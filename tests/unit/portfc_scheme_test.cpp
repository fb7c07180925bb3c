// PortFC as a BCube switch's pool scheme (kernel/core/scheme_portfc.c):
// through the MMU's own API, as the module drives it. A 4-port switch
// (BCube(4,1)), 1 Gbit/s ports, thresholds 6000 / 4000 bytes. Checks:
// an egress port's onset makes a frame due on every other port and on no
// other pool (the kick mask), the frame is PORTFC_A or _B with the slot
// compacted by the receiving port and the pool's pause time; a relief
// resumes; a pause in force is refreshed at half its time; a purge (a
// flushed queue) resumes as a departure does; the ports' numbers come
// from scheme_port; no ingress PFC is ever wished; parameters are checked.
#include <gtest/gtest.h>

#include <vector>

#include "mmu_fixture.h"

extern "C" {
#include "scheme.h"
}

namespace {

using namespace mmu_test;

constexpr ll_u32 kPkt = 1000;

ll_mmu_config SwitchConfig()
{
	ll_mmu_config c = PaperConfig(4, ll_mmu_alpha{1, 0}, 1000000, 10000);
	c.total_bytes += 4 * 7 * 10000;	// headroom for every priority
	c.lossless_mask = 0xFF;
	c.scheme = LL_SCHEME_PORTFC;
	c.scheme_params.portfc.n = 4;
	c.scheme_params.portfc.xoff_a_bytes = 6000;
	c.scheme_params.portfc.xon_a_bytes = 4000;
	c.scheme_params.portfc.xoff_b_bytes = 6000;
	c.scheme_params.portfc.xon_b_bytes = 4000;
	return c;
}

struct PortfcSwitch : testing::Test {
	Pool pool{SwitchConfig(), kGbit, 10000};
	std::vector<ll_mmu_charge> held;
	ll_u64 now = 1000;

	// A packet from in to egress (eg, queue).
	void Send(ll_u32 in, ll_u32 eg, ll_u32 queue, ll_u32 prio = kLosslessPrio)
	{
		ll_mmu_charge ch{};
		ASSERT_TRUE(ll_mmu_admitted(ll_mmu_admit(pool.p(), in, prio, eg, queue, kPkt,
							   now, &ch)));
		held.push_back(ch);
	}
	// The oldest held packet of egress (eg, queue) leaves (or is purged).
	void Leave(ll_u32 eg, ll_u32 queue, bool purge = false)
	{
		for (auto it = held.begin(); it != held.end(); ++it)
			if (it->eg_port == eg && it->eg_queue == queue) {
				if (purge)
					ll_mmu_purge(pool.p(), &*it, now);
				else
					ll_mmu_release(pool.p(), &*it, now);
				held.erase(it);
				return;
			}
		FAIL() << "nothing held for " << eg << ":" << queue;
	}
	// The frame due on port, completed as sent; kind 0 if none.
	ll_ctrl_msg Take(ll_u32 port)
	{
		ll_ctrl_msg m{};
		if (ll_mmu_ctrl_take(pool.p(), port, now, &m))
			ll_mmu_ctrl_complete(pool.p(), port, 1, now);
		return m;
	}
};

TEST_F(PortfcSwitch, OnsetOfTheASlotsTellsEveryOtherPort)
{
	// Port 2's A-slots (queues 1..3) fill from port 0; 5000 bytes: quiet.
	for (int i = 0; i < 5; i++)
		Send(0, 2, 1 + i % 3);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0u);
	for (ll_u32 p = 0; p < 4; p++)
		EXPECT_FALSE(ll_mmu_ctrl_due(pool.p(), p, now)) << p;
	Send(1, 2, 1);	// 6000: onset
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0b1011u);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0u);	// taken, cleared
	EXPECT_FALSE(ll_mmu_ctrl_due(pool.p(), 2, now));
	// Port t's frame names port 2 as slot(2, t): 1, 1, _, 2.
	const ll_u8 slot_at[4] = {1, 1, 0, 2};
	for (ll_u32 t : {0u, 1u, 3u}) {
		ASSERT_TRUE(ll_mmu_ctrl_due(pool.p(), t, now)) << t;
		ll_ctrl_msg m = Take(t);
		EXPECT_EQ(m.kind, LL_CTRL_PORTFC_A) << t;
		EXPECT_EQ(m.gate_mask, 1u << slot_at[t]) << t;
		EXPECT_EQ(m.value[slot_at[t]], 0xFFFF) << t;
		EXPECT_FALSE(ll_mmu_ctrl_due(pool.p(), t, now)) << t;
	}
	// No PFC wished anywhere: PortFC pauses no ingress.
	for (ll_u32 p = 0; p < 4; p++)
		EXPECT_EQ(pool.p()->ports[p].xoff.want, 0) << p;
	// Relief at X_on (4000): a resume for the same slot.
	Leave(2, 1);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0u);	// 5000 > X_on
	Leave(2, 2);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0b1011u);
	ll_ctrl_msg m = Take(3);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_A);
	EXPECT_EQ(m.gate_mask, 1u << 2);
	EXPECT_EQ(m.value[2], 0);
	EXPECT_EQ(pool.p()->ports[3].sch.portfc.told_a, 0);
}

// The module asks no PortFC port after an admission (ll_mmu_admit_due(),
// O(1)): that is right only if every frame an admission or a departure
// makes due is in the kick mask. Random traffic across the 4 ports and
// both classes, frames taken as the module takes them: after every step
// a port with a frame newly due was kicked.
TEST_F(PortfcSwitch, EveryFrameAnArrivalMakesDueIsKicked)
{
	ll_u32 rnd = 12345;
	auto next = [&rnd](ll_u32 m) { rnd = rnd * 1103515245u + 12345u; return (rnd >> 16) % m; };
	int kicked = 0;
	for (int step = 0; step < 4000; step++) {
		bool due_before[4];
		for (ll_u32 p = 0; p < 4; p++)
			due_before[p] = ll_mmu_ctrl_due(pool.p(), p, now);
		ll_u32 eg = next(4), in = (eg + 1 + next(3)) % 4;
		ll_u32 queue = next(2) ? 4 : 1 + next(3);
		if (next(5) < 3 || held.empty()) {
			Send(in, eg, queue);
			EXPECT_EQ(ll_mmu_admit_due(pool.p(), in, now), 0);
		} else {
			ll_mmu_charge ch = held[next(held.size())];
			Leave(ch.eg_port, ch.eg_queue, next(4) == 0);
		}
		ll_u64 kicks = ll_mmu_take_kicks(pool.p());
		for (ll_u32 p = 0; p < 4; p++) {
			bool due = ll_mmu_ctrl_due(pool.p(), p, now);
			ASSERT_TRUE(!due || due_before[p] || (kicks >> p & 1))
				<< "step " << step << " port " << p;
			kicked += due && !due_before[p];
			if (due && next(2))
				Take(p);
		}
		now += 1000;
	}
	EXPECT_GT(kicked, 50);	// the walk made frames due, not only quiet steps
}

TEST_F(PortfcSwitch, BQueueHasItsOwnFlagAndFrame)
{
	for (int i = 0; i < 6; i++)
		Send(0, 3, 4);	// port 3's B queue
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0b0111u);
	ll_ctrl_msg m = Take(1);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_B);
	EXPECT_EQ(m.gate_mask, 1u << 2);	// slot(3, 1) = 2
	// A onset on the same port while B is up: an A frame, B still told.
	for (int i = 0; i < 6; i++)
		Send(0, 3, 1);
	m = Take(1);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_A);
	EXPECT_EQ(pool.p()->ports[1].sch.portfc.told_b, 1u << 2);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0b0111u);
	// HQ (queue 0) is never watched.
	for (int i = 0; i < 20; i++)
		Send(2, 0, 0);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0u);
}

TEST_F(PortfcSwitch, PausesInForceAreRefreshedHalfwayAndAPurgeResumes)
{
	for (int i = 0; i < 6; i++)
		Send(0, 1, 4);
	ll_mmu_take_kicks(pool.p());
	Take(0);
	ll_u64 refresh = pool.p()->ports[0].xoff.refresh_ns;
	// 0xFFFF quanta at 1 Gbit/s = 33.55 ms; refreshed at half.
	EXPECT_NEAR((double)refresh, 65535.0 * 512 / 2, 1.0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), now + refresh);
	now += refresh - 1;
	EXPECT_FALSE(ll_mmu_ctrl_due(pool.p(), 0, now));
	now += 1;
	ASSERT_TRUE(ll_mmu_ctrl_due(pool.p(), 0, now));
	ll_ctrl_msg m = Take(0);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_B);
	EXPECT_EQ(m.value[0], 0xFFFF);	// slot(1, 0) = 0, still paused
	// The queue is flushed (link down, reset): a purge resumes too.
	for (int i = 0; i < 3; i++)
		Leave(1, 4, true);
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0b1101u);
	m = Take(0);
	EXPECT_EQ(m.gate_mask, 1u);
	EXPECT_EQ(m.value[0], 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
}

TEST_F(PortfcSwitch, AFailedSendIsRetried)
{
	for (int i = 0; i < 6; i++)
		Send(0, 1, 4);
	ll_mmu_take_kicks(pool.p());
	ll_ctrl_msg m{};
	ASSERT_TRUE(ll_mmu_ctrl_take(pool.p(), 2, now, &m));
	EXPECT_FALSE(ll_mmu_ctrl_take(pool.p(), 2, now, &m));	// one claimed
	ll_mmu_ctrl_complete(pool.p(), 2, 0, now);
	EXPECT_TRUE(ll_mmu_ctrl_due(pool.p(), 2, now));
	EXPECT_EQ(pool.p()->ports[2].xoff.send_failures, 1u);
	m = Take(2);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_B);
	EXPECT_FALSE(ll_mmu_ctrl_due(pool.p(), 2, now));
}

// Changes take effect at the sweep the module runs after each: new
// thresholds pause or resume at once, a detached congested port resumes
// its feeders, and every port is kicked to retell what it told.
TEST_F(PortfcSwitch, ChangesResyncAtTheSweep)
{
	for (int i = 0; i < 5; i++)
		Send(0, 2, 4);	// 5000 bytes in port 2's B: quiet at 6000
	EXPECT_EQ(ll_mmu_take_kicks(pool.p()), 0u);
	ll_mmu_config c = SwitchConfig();
	c.scheme_params.portfc.xoff_b_bytes = 5000;
	c.scheme_params.portfc.xon_b_bytes = 3000;
	ASSERT_EQ(ll_mmu_pool_reconfigure(pool.p(), &c), LL_MMU_OK);
	ll_u64 due = ll_mmu_sweep(pool.p(), now);
	EXPECT_EQ(due & 0b1011u, 0b1011u);	// the others tell B for port 2
	EXPECT_EQ(pool.p()->sch.portfc.up_b, 1u << 2);
	ll_ctrl_msg m = Take(0);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_B);
	EXPECT_EQ(m.gate_mask, 1u << 1);	// slot(2, 0)
	// Port 2 leaves the pool with its queue: the others resume it.
	ll_mmu_port_detach(pool.p(), 2, now);
	ll_mmu_sweep(pool.p(), now);
	EXPECT_EQ(pool.p()->sch.portfc.up_b, 0u);
	m = Take(0);
	EXPECT_EQ(m.kind, LL_CTRL_PORTFC_B);
	EXPECT_EQ(m.gate_mask, 1u << 1);
	EXPECT_EQ(m.value[1], 0);
	// Events carry the pool's latest clock, even from a clockless admission.
	const ll_scheme_event &ev = pool.p()->events.ev[0];
	EXPECT_EQ(ev.type, LL_PORTFC_EVT_PAUSE_B);
	EXPECT_EQ(ev.time_ns, now);
}

// The BCube number of a port is its scheme_port, not its pool index.
TEST(PortfcScheme, PortNumbersComeFromTheConfiguration)
{
	ll_mmu_config c = SwitchConfig();
	Pool pool(c);
	// Pool index i is BCube port 3 - i.
	for (ll_u32 i = 0; i < 4; i++) {
		ll_mmu_port_config pc = PortCfg(kGbit, 10000);
		pc.scheme_port = 4 - i;
		ASSERT_EQ(ll_mmu_port_attach(pool.p(), i, &pc, 0), LL_MMU_OK);
	}
	EXPECT_EQ(ll_portfc_port_number(pool.p(), 0), 3u);
	std::vector<ll_mmu_charge> held(6);
	for (auto &ch : held)	// pool index 0 = BCube port 3, its B queue
		ASSERT_TRUE(ll_mmu_admitted(ll_mmu_admit(pool.p(), 1, kLosslessPrio, 0, 4,
							   kPkt, 1, &ch)));
	ll_ctrl_msg m{};
	// Pool index 3 is BCube port 0: slot(3, 0) = 2.
	ASSERT_TRUE(ll_mmu_ctrl_take(pool.p(), 3, 1, &m));
	EXPECT_EQ(m.gate_mask, 1u << 2);
	ll_mmu_port_config bad = PortCfg(kGbit, 10000);
	bad.scheme_port = LL_MMU_MAX_PORTS + 1;
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 0, &bad, 2), LL_MMU_ERR_PORT);
}

// A switch's ports are BCube ports 0 .. n-1, each once: a number >= n or
// one taken is refused on attach, on update and by a smaller n, with the
// scheme's message; nothing changes.
TEST(PortfcScheme, PortNumbersAreBelowNAndUnique)
{
	ll_mmu_config c = SwitchConfig();
	Pool pool(c);
	ll_mmu_port_config pc = PortCfg(kGbit, 10000);
	pc.scheme_port = 1 + 2;	// BCube port 2
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_OK);
	pc.scheme_port = 1 + 4;	// n = 4: no port 4
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 1, &pc, 0), LL_MMU_ERR_SCHEME_PORT);
	EXPECT_STREQ(ll_scheme_ports_check(pool.p(), &pool.p()->cfg, 1, pc.scheme_port),
		     "portfc: a port's scheme-port (or, without one, its index in the pool) must "
		     "be below portfc-n: a BCube switch has ports 0 .. n-1");
	pc.scheme_port = 1 + 2;	// taken by pool index 0
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 1, &pc, 0), LL_MMU_ERR_SCHEME_PORT);
	EXPECT_STREQ(ll_scheme_ports_check(pool.p(), &pool.p()->cfg, 1, pc.scheme_port),
		     "portfc: two ports of the pool have the same scheme-port: each BCube port "
		     "number once");
	EXPECT_FALSE(pool.p()->ports[1].attached);
	// Without a number, pool index 2 is port 2: taken too.
	pc.scheme_port = 0;
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 2, &pc, 0), LL_MMU_ERR_SCHEME_PORT);
	pc.scheme_port = 1 + 0;
	ASSERT_EQ(ll_mmu_port_attach(pool.p(), 1, &pc, 0), LL_MMU_OK);
	// Renumbering onto a taken number is refused; onto a free one works.
	pc.scheme_port = 1 + 2;
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 1, &pc, 1), LL_MMU_ERR_SCHEME_PORT);
	EXPECT_EQ(ll_portfc_port_number(pool.p(), 1), 0u);
	pc.scheme_port = 1 + 3;
	EXPECT_EQ(ll_mmu_port_update(pool.p(), 1, &pc, 1), LL_MMU_OK);
	EXPECT_EQ(ll_portfc_port_number(pool.p(), 1), 3u);
	// A smaller radix would leave port 3 outside the switch.
	ll_mmu_config small = c;
	small.scheme_params.portfc.n = 3;
	EXPECT_EQ(ll_mmu_pool_reconfigure(pool.p(), &small), LL_MMU_ERR_SCHEME_PORT);
	EXPECT_EQ(pool.p()->cfg.scheme_params.portfc.n, 4u);
	EXPECT_STREQ(ll_mmu_err_name(LL_MMU_ERR_SCHEME_PORT), "bad-scheme-port");
	// Another scheme does not care.
	ll_mmu_config dt = c;
	dt.scheme = LL_SCHEME_DT;
	dt.scheme_params = {};
	EXPECT_EQ(ll_scheme_ports_check(pool.p(), &dt, 2, 1 + 3), nullptr);
}

TEST(PortfcScheme, ParametersAreChecked)
{
	ll_mmu_config c = SwitchConfig();
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	c.scheme_params.portfc.n = 9;
	EXPECT_STREQ(ll_scheme_check_msg(&c),
		     "portfc: portfc-n (the BCube radix) must be 2 to 8");
	c.scheme_params.portfc.n = 0;
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
	c = SwitchConfig();
	c.lossless_mask = 1u << 3;
	EXPECT_STREQ(ll_scheme_check_msg(&c),
		     "portfc: every priority must be lossless (lossless-prios 0,1,2,3,4,5,6,7)");
	c = SwitchConfig();
	c.scheme_params.portfc.xon_b_bytes = 6000;
	EXPECT_STREQ(ll_scheme_check_msg(&c), "portfc: xon-b must be above 0 and below xoff-b");
	c = SwitchConfig();
	c.scheme_params.portfc.xoff_a_bytes = c.total_bytes + 1;
	EXPECT_STREQ(ll_scheme_check_msg(&c), "portfc: a threshold above the buffer");
	// Defaults: 24 and 16 MTU.
	c = SwitchConfig();
	c.scheme_params.portfc.xoff_a_bytes = c.scheme_params.portfc.xon_a_bytes = 0;
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_PORTFC), "portfc");
	EXPECT_EQ(ll_scheme_by_name("portfc"), LL_SCHEME_PORTFC);
}

}  // namespace
