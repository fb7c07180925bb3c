// Randomised properties of DSH (kernel/core/scheme_dsh.c), the invariants
// of dsh.md section 3.9 over long event sequences, two generators:
//
// 1. A network (dsh.md 9, #20-#23, #26; net_sim.h, shared with SPFC's
//    property test): ports whose upstream senders transmit at line rate
//    on several classes (the real receive side of PFC, pause.c, closes
//    their gates), bursty and incast traffic, egress ports stalled at
//    random by their own downstream, and PFC frames that take effect up to
//    a modelled delay after the MMU decides. Checked after every event:
//      - mmu_fixture.h's accounting invariants, and the bytes of every
//        ingress queue and egress queue against a model of the packets
//        held (INV-5), S <= B_s (INV-3);
//      - every verdict against a restatement of DSH's admission (3.6);
//        after a shared admission S_i <= N_q x T before it (INV-4);
//      - the port's insurance within Phi_i (INV-2) and in use only in
//        POFF; tau in [0, Phi_i], X_qoff = max(0, T - tau) (INV-9);
//      - the pause wish of every lossless priority = QOFF OR POFF
//        (INV-10), and the queue and port conditions of the queue just
//        touched; every PFC frame a change or a due refresh;
//    and at the end: no lossless drop when the insurance is the formula's
//    for the modelled delay (INV-1), every counter back to 0, every
//    upstream told XON. Witnesses that the checks can fail: an insurance
//    sized for a quarter of the delay drops (and still releases exactly);
//    a pool too small for its uncongested ports pauses them.
// 2. Random order (like mmu_property_test.cpp): admits and releases in any
//    order, pauses never honoured, sweeps, timers, frames with failed
//    sends, live parameter changes, port detach and re-attach.
#include "charge_model.h"
#include "net_sim.h"

namespace {

using namespace mmu_test;
using namespace net_sim;

ll_u32 LosslessCount(const ll_mmu_pool *pool)
{
	return Popcount(pool->cfg.lossless_mask);
}

// ------------------------------------------------ checks of both generators

// DSH's invariants on every attached port, true after any event.
void ExpectDshInvariants(const ll_mmu_pool *pool)
{
	ll_u8 mask = pool->cfg.lossless_mask;
	ll_u64 t = ll_dt_ingress_threshold(pool);
	ASSERT_LE(pool->shared_used, pool->shared_size);			// INV-3
	for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
		const ll_mmu_port &p = pool->ports[port];
		const ll_dsh_port_state &st = p.sch.dsh;
		if (!p.attached)
			continue;
		ASSERT_LE(p.headroom_used,					// INV-2
			  ll_dsh_port_carve(&pool->cfg, p.headroom_bytes)) << port;
		if (p.headroom_used) {
			ASSERT_TRUE(st.poff) << "insurance in use, port " << port;
		}
		ll_u8 eff = (ll_u8)((st.qoff | (st.poff ? 0xFF : 0)) & mask);
		ASSERT_EQ(p.xoff.want, eff) << "port " << port;		// INV-10
		for (ll_u32 prio = 0; prio < LL_MMU_PRIOS; prio++) {
			if (!((mask >> prio) & 1))
				continue;
			ll_u64 tau = ll_dsh_tau(pool, port, prio);		// INV-9
			ASSERT_LE(tau, p.headroom_bytes);
			ASSERT_EQ(ll_dsh_queue_threshold(pool, port, prio),
				  t > tau ? t - tau : 0);
		}
	}
}

// The conditions of the queue and port just evaluated hold (3.8).
void ExpectDshHysteresis(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio)
{
	const ll_mmu_port &p = pool->ports[port];
	const ll_dsh_port_state &st = p.sch.dsh;
	ll_u64 xon = pool->cfg.xon_bytes, delta = pool->cfg.xon_offset_bytes;
	if (!p.attached || !((pool->cfg.lossless_mask >> prio) & 1))
		return;
	ll_u64 s = p.iq[prio].shared_used;
	ll_u64 x = ll_dsh_queue_threshold(pool, port, prio);
	bool off = s > xon && s > x, on = s <= xon || s + delta < x;
	ASSERT_FALSE(off && on);
	if (off || on) {
		ASSERT_EQ((bool)((st.qoff >> prio) & 1), off) << port << "/" << prio;
	}
	s = ll_dsh_port_shared(pool, port);
	x = ll_dsh_port_threshold(pool);
	off = p.headroom_used || (s > xon && s > x);
	on = !p.headroom_used && (s <= xon || s + delta < x);
	ASSERT_FALSE(off && on);
	if (off || on) {
		ASSERT_EQ((bool)st.poff, off) << "port " << port;
	}
}

// DSH's admission restated from the state before it (dsh.md 3.6).
ll_mmu_verdict ExpectedVerdict(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio,
			       ll_u32 eg, ll_u32 q, ll_u32 bytes)
{
	if (!pool->ports[in].attached || !pool->ports[eg].attached)
		return LL_MMU_DROP_INVALID;
	const ll_mmu_port &p = pool->ports[in];
	const ll_mmu_iq &iq = p.iq[prio];
	ll_u64 flags = pool->cfg.scheme_params.dsh.flags;
	ll_u64 t = ll_dt_ingress_threshold(pool);
	bool fits = pool->shared_used + bytes <= pool->shared_size;
	if (iq.reserved_used + bytes <= pool->cfg.reserved_bytes)
		return LL_MMU_ADMIT_RESERVED;
	if ((pool->cfg.lossless_mask >> prio) & 1) {
		if (fits && ll_dsh_port_shared(pool, in) + bytes <= LosslessCount(pool) * t &&
		    (!(flags & LL_DSH_F_NO_SHARED_HEADROOM) || iq.shared_used + bytes <= t))
			return LL_MMU_ADMIT_SHARED;
		ll_u64 phi = flags & LL_DSH_F_NO_INSURANCE ? 0 : p.headroom_bytes;
		if (p.headroom_used + bytes <= phi)
			return LL_MMU_ADMIT_HEADROOM;
		return LL_MMU_DROP_LOSSLESS;
	}
	if (fits && pool->ports[eg].eq[q].bytes + bytes <=
			    ll_mmu_dt_threshold(pool->shared_size, pool->shared_used,
						pool->cfg.egress_alpha))
		return LL_MMU_ADMIT_SHARED;
	return LL_MMU_DROP_LOSSY;
}


// ============================================================ 1. network

// DSH's checks in the simulated network (net_sim.h).
class DshHooks : public NetHooks {
public:
	ll_mmu_verdict PreAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32 eg,
				ll_u32 q, ll_u32 bytes, ll_u64) override
	{
		t_before_ = ll_dt_ingress_threshold(pool);
		return ExpectedVerdict(pool, in, prio, eg, q, bytes);
	}
	void PostAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32,
		       ll_mmu_verdict v, ll_u64) override
	{
		bool lossless = (pool->cfg.lossless_mask >> prio) & 1;
		if (lossless && v == LL_MMU_ADMIT_SHARED) {
			ASSERT_LE(ll_dsh_port_shared(pool, in),			// INV-4
				  LosslessCount(pool) * t_before_);
		}
	}
	void Touched(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio) override
	{
		ExpectDshHysteresis(pool, port, prio);
	}
	void Invariants(const ll_mmu_pool *pool) override { ExpectDshInvariants(pool); }
	// The insurance is the port's (Phi_i).
	ll_u64 HeadroomUse(const ll_mmu_pool *pool, ll_u32 port) override
	{
		return pool->ports[port].headroom_used;
	}
	void Count(const ll_mmu_pool *pool, NetCounts &c) override
	{
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
			const ll_dsh_port_state &st = pool->ports[port].sch.dsh;
			ll_u32 q = Popcount((ll_u8)(st.qoff & ~qoff_[port]));
			c.queue_pauses += q;
			seen_q_[port] += q;
			if (st.poff && !poff_[port]) {
				c.port_pauses++;
				seen_p_[port]++;
			}
			qoff_[port] = st.qoff;
			poff_[port] = st.poff;
			seen_ins_[port] = std::max(seen_ins_[port],
						   pool->ports[port].headroom_used);
		}
	}
	void Finish(const ll_mmu_pool *pool) override
	{
		ll_u64 pauses = 0;
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
			const ll_dsh_port_state &st = pool->ports[port].sch.dsh;
			EXPECT_EQ(st.qoff, 0) << "port " << port;
			EXPECT_EQ(st.poff, 0) << "port " << port;
			EXPECT_EQ(ll_dsh_port_shared(pool, port), 0u);
			// Telemetry: every pause seen counted (and those between
			// two samples), the insurance's peak within Phi.
			EXPECT_GE(st.qoff_pauses, seen_q_[port]) << "port " << port;
			EXPECT_GE(st.poff_pauses, seen_p_[port]) << "port " << port;
			EXPECT_GE(st.insurance_peak, seen_ins_[port]) << "port " << port;
			EXPECT_LE(st.insurance_peak, pool->ports[port].headroom_bytes);
			pauses += st.qoff_pauses + st.poff_pauses;
		}
		// All resumed: the ring saw a resume for every pause.
		EXPECT_EQ(pool->events.total, 2 * pauses);
	}

private:
	ll_u64 t_before_ = 0;
	ll_u8 qoff_[kMaxPorts] = {};
	ll_u8 poff_[kMaxPorts] = {};
	ll_u64 seen_q_[kMaxPorts] = {};
	ll_u64 seen_p_[kMaxPorts] = {};
	ll_u64 seen_ins_[kMaxPorts] = {};
};

NetCounts RunNet(const NetConfig &nc, ll_u64 seed)
{
	DshHooks hooks;
	Net net(nc, seed, hooks);
	return net.Run();
}

// A congested switch with a small shared region: queue pauses, port
// pauses and insurance all in use. Mixed speeds, 1 to 7 lossless classes.
NetConfig StressConfig(ll_u64 seed)
{
	std::mt19937_64 rng(seed * 7919);
	NetConfig nc;
	nc.scheme = LL_SCHEME_DSH;
	nc.ports = 6 + rng() % 3;
	nc.lossless_mask = (ll_u8)PickOf(rng, {0x08, 0x18, 0x1E, 0xFE, 0x1E});
	for (ll_u32 i = 0; i < nc.ports; i++)
		nc.rate_bps[i] = PickOf(rng, {10, 10, 25}) * kGbit;
	nc.react_ns = PickOf(rng, {1000, 5000, 20000});
	nc.phi_react_ns = nc.react_ns;
	nc.shared_bytes = 60000 + rng() % 600000;
	nc.reserved_bytes = PickOf(rng, {0, 1500, 3000});
	nc.xon_offset_bytes = PickOf(rng, {0, 0, 3000});
	static const ll_mmu_alpha alphas[] = {{1, 4}, {1, 3}, {1, 2}, {1, 1}};
	nc.alpha = alphas[rng() % 4];
	nc.release_order = (ll_u8)(rng() % 2);
	nc.params.dsh.window_ns = PickOf(rng, {20000, 200000, 0});
	nc.params.dsh.ewma_shift = PickOf(rng, {0, 0, 1, 3});
	nc.params.dsh.deviation_gain = PickOf(rng, {0, 0, 1, 8});
	nc.params.dsh.flags = PickOf(rng, {0, 0, 0, LL_DSH_F_STATIC_TAU,
				    LL_DSH_F_NO_SHARED_HEADROOM});
	// A pause time whose refreshes outrun the delay: refreshes happen.
	if (rng() % 3 == 0)
		nc.xoff_quanta = (ll_u16)(8 * nc.react_ns * 25 / 512 + 200);
	return nc;
}

// ----------------------------------------------------------- properties

// INV-1, INV-2, INV-5 with the formula's insurance: no lossless drop, the
// insurance within Phi, every counter back to 0.
TEST(DshProperty, NoLossWithFormulaInsurance)
{
	NetCounts total;
	for (ll_u64 seed = 1; seed <= 10; seed++) {
		SCOPED_TRACE(seed);
		NetCounts n = RunNet(StressConfig(seed), seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.drops_lossless, 0u);
		EXPECT_LE(n.peak_headroom, n.headroom);
		total.Add(n);
	}
	total.Print("dsh network, 10 seeds");
	// Not vacuous: the insurance, both pause levels and frames were used.
	EXPECT_GT(total.admitted, 50000u);
	EXPECT_GT(total.headroom_admits, 1000u);
	EXPECT_GT(total.port_pauses, 100u);
	EXPECT_GT(total.queue_pauses, 1000u);
	EXPECT_GT(total.drops_lossy, 0u);
	// The tightest run came within a few frames of its Phi.
	EXPECT_GT(total.peak_headroom * 2, total.headroom);
}

// #23, the witness: the same traffic with an insurance sized for a
// quarter of the delay loses packets, counts them, and still releases
// every byte exactly.
TEST(DshProperty, InsuranceBelowTheFormulaDrops)
{
	ll_u64 drops = 0;
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = StressConfig(seed);
		nc.react_ns = 20000;
		nc.phi_react_ns = 5000;
		nc.params.dsh.flags &= ~LL_DSH_F_NO_INSURANCE;
		NetCounts n = RunNet(nc, seed);
		if (HasFatalFailure())
			return;
		drops += n.drops_lossless;
	}
	std::printf("insurance for 5 us, upstreams reacting within 20 us: %llu lossless drops\n",
		    (unsigned long long)drops);
	EXPECT_GT(drops, 0u);
}

// Uncongested ports (light, bursty traffic to an egress nobody else uses)
// on a switch whose other ports are congested: never paused, when the
// shared region keeps T above Phi + their bursts. Every class of a heavy
// port fills its own queue: they pause, queue- and port-level.
NetConfig SizedConfig(ll_u64 seed)
{
	NetConfig nc = StressConfig(seed);
	nc.ports = 8;
	nc.light = 2;
	nc.reserved_bytes = 0;		// light bytes in shared, where T applies
	nc.params.dsh.flags = 0;
	for (ll_u32 i = 0; i < nc.ports; i++)
		nc.rate_bps[i] = (i % 2 && i < nc.ports - nc.light ? 25 : 10) * kGbit;
	nc.react_ns = nc.phi_react_ns = 5000;
	nc.xoff_quanta = 0;
	return nc;
}

TEST(DshProperty, UncongestedPortsNeverPaused)
{
	NetCounts total;
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = SizedConfig(seed);
		// T >= alpha B_s / (1 + alpha (heavy x N_q + lossy)) must stay
		// above the light (10G) ports' Phi + 4 frames: 8 MB does.
		nc.shared_bytes = 8000000;
		NetCounts n = RunNet(nc, seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.light_pauses, 0u);
		EXPECT_EQ(n.drops_lossless, 0u);
		total.Add(n);
	}
	total.Print("uncongested ports next to congested ones, 6 seeds");
	EXPECT_GT(total.light_packets, 1000u);
	EXPECT_GT(total.queue_pauses, 100u);
}

// The witness: with a shared region that lets T fall below Phi, the same
// uncongested ports do get paused (and still lose nothing).
TEST(DshProperty, UncongestedPortsPausedWhenPoolTooSmall)
{
	NetCounts total;
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = SizedConfig(seed);
		nc.shared_bytes = 100000;
		NetCounts n = RunNet(nc, seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.drops_lossless, 0u);
		total.Add(n);
	}
	total.Print("uncongested ports, shared region too small, 6 seeds");
	EXPECT_GT(total.light_pauses, 0u);
}

// #26: every lossless class of one port congested at once, interleaved at
// line rate, into egress ports that do not drain: each class pauses at
// T - tau; with tau = Phi (the static variant: phi_hat = Phi) the classes'
// in-flight bytes fit their margins and the port never pauses. With the
// estimator, tau follows each class's share of the link.
TEST(DshProperty, AllClassesOfOnePortCongested)
{
	for (ll_u64 flags : {LL_DSH_F_STATIC_TAU, 0ULL}) {
		SCOPED_TRACE(flags);
		NetConfig nc;
		nc.scheme = LL_SCHEME_DSH;
		nc.ports = 5;			// port 4 sends, 0..3 do not drain
		nc.light = 0;
		nc.silent = 4;
		nc.lossless_mask = 0x1E;
		for (ll_u32 i = 0; i < nc.ports; i++)
			nc.rate_bps[i] = 10 * kGbit;
		nc.react_ns = nc.phi_react_ns = 5000;
		nc.shared_bytes = 950272;
		nc.reserved_bytes = 0;
		nc.lossy = false;
		nc.all_classes = true;
		nc.one_hot = true;
		nc.stop_ns = 400000;
		nc.params.dsh.flags = flags;
		NetCounts n = RunNet(nc, 42);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.drops_lossless, 0u);
		EXPECT_GE(n.queue_pauses, 4u);
		if (flags == LL_DSH_F_STATIC_TAU) {
			EXPECT_EQ(n.port_pauses, 0u);
			EXPECT_EQ(n.headroom_admits, 0u);
		}
		std::printf("4 classes of one port congested, %s: queue pauses %llu, port "
			    "pauses %llu, insurance admits %llu\n",
			    flags ? "tau = Phi" : "estimator",
			    (unsigned long long)n.queue_pauses,
			    (unsigned long long)n.port_pauses,
			    (unsigned long long)n.headroom_admits);
	}
}

// ======================================================= 2. random order

class RandomOrder {
public:
	explicit RandomOrder(ll_u64 seed) : rng_(seed), mem_(kPorts)
	{
		cfg_ = RandomConfig();
		EXPECT_EQ(ll_mmu_pool_init(pool(), &cfg_), LL_MMU_OK);
		for (ll_u32 i = 0; i < kPorts; i++)
			EXPECT_EQ(Attach(i), LL_MMU_OK);
	}

	ll_mmu_pool *pool() { return mem_.get(); }

	void Run(int steps)
	{
		for (int s = 0; s < steps && !::testing::Test::HasFatalFailure(); s++) {
			// One draw after the other: the operands of one expression
			// are unsequenced, and builds drew them in either order.
			ll_u64 gap = rng_() % 50 ? 3000 : 300000;

			now_ += rng_() % gap;
			unsigned op = rng_() % 1000;
			if (op < 560)
				DoAdmit();
			else if (op < 930)
				DoRelease();
			else if (op < 945)
				DoSweep();
			else if (op < 960)
				DoTimer(rng_() % kPorts);
			else if (op < 993)
				DoPfc(rng_() % kPorts);
			else if (op < 997)
				DoParams();
			else
				DoDetachReattach();
			if (::testing::Test::HasFatalFailure())
				return;
			ExpectInvariants(pool());
			ExpectDshInvariants(pool());
			model_.Check(pool());
		}
		Finish();
	}

	ll_u64 insurance_admits = 0, drops_lossless = 0, busy_refusals = 0, ticks = 0;

private:
	static constexpr ll_u32 kPorts = 6;

	ll_mmu_config RandomConfig()
	{
		ll_mmu_config c = RandomBaseConfig(rng_, kPorts);
		c.scheme = LL_SCHEME_DSH;
		RandomParams(c.scheme_params.dsh);
		c.total_bytes = 20000 + rng_() % 300000 +
				kPorts * (8ull * c.reserved_bytes + 30000);
		return c;
	}

	void RandomParams(ll_dsh_params &d)
	{
		d.window_ns = PickOf(rng_, {0, 5000, 100000});
		d.ewma_shift = PickOf(rng_, {0, 1, 4});
		d.deviation_gain = PickOf(rng_, {0, 1, 16});
		d.flags = PickOf(rng_, {0, 0, 0, LL_DSH_F_STATIC_TAU, LL_DSH_F_NO_INSURANCE,
					LL_DSH_F_NO_SHARED_HEADROOM});
	}

	ll_mmu_err Attach(ll_u32 port)
	{
		ll_mmu_port_config pc = PortCfg(PickOf(rng_, {1, 10, 25}) * kGbit,
						3000 + rng_() % 27001);
		return ll_mmu_port_attach(pool(), port, &pc, now_);
	}

	void DoAdmit()
	{
		ll_u32 in = rng_() % kPorts, eg = rng_() % kPorts;
		ll_u32 prio = rng_() % 8;
		ll_u32 q = rng_() % 4 ? prio : rng_() % LL_MMU_MAX_QUEUES;
		ll_u32 bytes = rng_() % 50 ? 64 + rng_() % (kMtu - 63) : kMtu;
		// Bursts to one queue now and then (the estimator's inputs).
		int burst = rng_() % 20 ? 1 : 1 + rng_() % 30;
		for (int b = 0; b < burst && !::testing::Test::HasFatalFailure(); b++) {
			ll_u64 t_before = ll_dt_ingress_threshold(pool());
			ll_mmu_verdict want = ExpectedVerdict(pool(), in, prio, eg, q, bytes);
			ll_mmu_charge c;
			ll_mmu_verdict v =
				ll_mmu_admit(pool(), in, prio, eg, q, bytes, now_, &c);
			ASSERT_EQ(v, want) << "in " << in << " prio " << prio;
			if (v == LL_MMU_DROP_LOSSLESS)
				drops_lossless++;
			if (!ll_mmu_admitted(v))
				continue;
			if (v == LL_MMU_ADMIT_HEADROOM)
				insurance_admits++;
			if (v == LL_MMU_ADMIT_SHARED && ((cfg_.lossless_mask >> prio) & 1)) {
				ASSERT_LE(ll_dsh_port_shared(pool(), in),
					  LosslessCount(pool()) * t_before);
			}
			model_.Admitted(c, in, prio, eg, q, bytes);
			ExpectDshHysteresis(pool(), in, prio);
			now_ += rng_() % 200;
		}
	}

	void DoRelease()
	{
		if (model_.empty())
			return;
		ChargeModel<kPorts>::Held h = model_.Take(rng_);
		ll_u32 ev = ll_mmu_release(pool(), &h.c, now_);
		model_.Released(pool(), h, ev, now_, [this](ll_u32 port, ll_u32 prio) {
			ExpectDshHysteresis(pool(), port, prio);
		});
		if ((ev & LL_MMU_EV_SWEEP) && rng_() % 2)
			DoSweep();
	}

	void DoSweep()
	{
		ll_u64 due = ll_mmu_sweep(pool(), now_);
		ExpectSweep(pool(), kPorts, due, now_, [this](ll_u32 port, ll_u32 prio) {
			ExpectDshHysteresis(pool(), port, prio);
		});
	}

	void DoTimer(ll_u32 port)
	{
		if (!pool()->ports[port].attached)
			return;
		ll_u64 d = ll_dsh_port_deadline(pool(), port);
		if (d == LL_MMU_NEVER)
			return;
		if (now_ < d)
			now_ = d;	// the timer fires at its deadline
		ll_mmu_port_timer(pool(), port, now_);
		ticks++;
		ASSERT_EQ(ll_dsh_port_deadline(pool(), port), LL_MMU_NEVER);
		for (ll_u32 prio = 0; prio < 8; prio++)
			ExpectDshHysteresis(pool(), port, prio);
	}

	void DoPfc(ll_u32 port)
	{
		frames_.Service(pool(), port, now_, rng_);
	}

	// A scheme's parameters change at any time; a change of carve that
	// would cut below the insurance in use is refused.
	void DoParams()
	{
		ll_mmu_config c = pool()->cfg;
		RandomParams(c.scheme_params.dsh);
		ll_mmu_err err = ll_mmu_pool_reconfigure(pool(), &c);
		if (err == LL_MMU_ERR_BUSY || err == LL_MMU_ERR_NO_SPACE) {
			busy_refusals++;
			return;
		}
		ASSERT_EQ(err, LL_MMU_OK);
		cfg_ = c;
		for (ll_u32 port = 0; port < kPorts; port++)
			for (ll_u32 prio = 0; prio < 8; prio++)
				ExpectDshHysteresis(pool(), port, prio);
	}

	void DoDetachReattach()
	{
		model_.DetachReattach(pool(), rng_, now_, frames_.told,
				      [this](ll_u32 port) { return Attach(port); },
				      [](ll_u32) {});
	}

	void Finish()
	{
		model_.Drain(rng_, [this] { DoRelease(); });
		ExpectEmpty(pool());
		for (ll_u32 port = 0; port < kPorts; port++)
			if (!pool()->ports[port].attached)
				Attach(port);
		DoSweep();
		for (ll_u32 port = 0; port < kPorts; port++) {
			SendDueFrames(pool(), port, now_);
			EXPECT_EQ(pool()->ports[port].xoff.told, 0) << "port " << port;
			EXPECT_EQ(pool()->ports[port].xoff.want, 0) << "port " << port;
			EXPECT_EQ(pool()->ports[port].sch.dsh.qoff, 0);
			EXPECT_EQ(pool()->ports[port].sch.dsh.poff, 0);
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool(), port), LL_MMU_NEVER);
		}
		EXPECT_EQ(pool()->ctr.release_anomalies, 0u);
	}

	std::mt19937_64 rng_;
	PoolMem mem_;
	ll_mmu_config cfg_;
	ll_u64 now_ = 1;
	ChargeModel<kPorts> model_;
	FrameModel frames_;
};

TEST(DshProperty, RandomOrderReleasesExactly)
{
	ll_u64 ins = 0, drops = 0, busy = 0, ticks = 0;
	for (ll_u64 seed = 1; seed <= 12; seed++) {
		SCOPED_TRACE(seed);
		RandomOrder run(seed);
		run.Run(20000);
		if (HasFatalFailure())
			return;
		ins += run.insurance_admits;
		drops += run.drops_lossless;
		busy += run.busy_refusals;
		ticks += run.ticks;
	}
	std::printf("dsh random order, 12 x 20000 events: insurance admits %llu, lossless "
		    "drops %llu (pauses never honoured), busy refusals %llu, window ticks %llu\n",
		    (unsigned long long)ins, (unsigned long long)drops,
		    (unsigned long long)busy, (unsigned long long)ticks);
	EXPECT_GT(ins, 1000u);
	EXPECT_GT(ticks, 10u);
}

} // namespace

// The pool's hooks mask skips only calls that do nothing (scheme.h's
// LL_SCHEME_HOOK_*): DSH with every hook called is the same run.
TEST(SchemeHooks, DshSkippedHooksChangeNothing)
{
	for (ll_u64 seed = 1; seed <= 4; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = StressConfig(seed);
		NetConfig all = nc;
		all.all_hooks = true;
		NetCounts a = RunNet(nc, seed);
		NetCounts b = RunNet(all, seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(a.admitted, b.admitted);
		EXPECT_EQ(a.headroom_admits, b.headroom_admits);
		EXPECT_EQ(a.frames, b.frames);
		EXPECT_EQ(a.queue_pauses, b.queue_pauses);
		EXPECT_EQ(a.port_pauses, b.port_pauses);
		EXPECT_GT(a.frames, 0u);
	}
}
