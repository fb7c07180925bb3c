// Randomised properties of SPFC (kernel/core/scheme_spfc.c), the
// invariants of spfc.md section 3.9 over long event sequences (S-U15),
// two generators:
//
// 1. The network of net_sim.h (shared with DSH's property test): line-rate
//    upstreams on several classes whose gates close up to a modelled delay
//    after the MMU decides, incast into a hot egress that stalls at random,
//    victim ports (a flow to an idle output next to one into the hot
//    output, spfc.md's P0), light bursty ports. Checked after every event:
//      - mmu_fixture.h's accounting and the packets held (INV-10);
//      - every verdict against DT's admission with the threshold of a
//        reference model of spfc.md 3.7 (below) rolled to the arrival;
//      - the model's detector state (IRC, last window, SH, window start)
//        equal to the datapath's, both seen at the latest time: the model
//        rolls each (port, prio) on its own events as the pseudo-code
//        does, scheme_spfc.c rolls a port's priorities together;
//      - INV-1 (a Normal queue's threshold is DT's alpha x free, a
//        Victim's the whole buffer), INV-2 (a Victim pauses only on an
//        arrival that found the shared region full: it went to headroom),
//        INV-3 (paused means Normal; a RESUME meets DT's X_on), INV-4
//        (Victim means IRC_th reached in this or the last window, and
//        IMMEDIATE misses no promotion), the transition counters;
//      - the hysteresis of every queue just evaluated;
//    and at the end: no lossless drop (INV-9), every counter back to 0,
//    every upstream told XON, the port timers stopped.
//    Also: a latch scenario (Victims that fill the pool pause, turn Normal,
//    resume and turn Victim again, losing nothing), INV-5 as a differential
//    run (no reachable IRC_th: the trace is DT's to the event), and
//    witnesses that the checks can fail.
// 2. Random order (like dsh_property_test.cpp's): admits and releases in
//    any order, pauses never honoured, sweeps, timers, frames, the oracle
//    and the slow path's publications, live parameter changes, detach and
//    re-attach; the same model and invariants.
#include "charge_model.h"
#include "net_sim.h"

namespace {

using namespace mmu_test;
using namespace net_sim;

constexpr ll_u64 kU32 = 0xFFFFFFFFull;

bool Lossless(const ll_mmu_pool *pool, ll_u32 prio)
{
	return (pool->cfg.lossless_mask >> prio) & 1;
}

bool Spfc(const ll_mmu_pool *pool)
{
	return pool->cfg.scheme == LL_SCHEME_SPFC;
}

const ll_spfc_params &Params(const ll_mmu_pool *pool)
{
	return pool->cfg.scheme_params.spfc;
}

// DT's alpha x (B_s - S), computed here.
ll_u64 DtT(const ll_mmu_pool *pool)
{
	if (pool->shared_used >= pool->shared_size)
		return 0;
	return ((pool->shared_size - pool->shared_used) * pool->cfg.alpha.num) >>
	       pool->cfg.alpha.shift;
}

// A Victim's X_off (spfc.md A7): the whole buffer, or the parameter; at
// least DT's.
ll_u64 VictimT(const ll_mmu_pool *pool)
{
	ll_u64 v = Params(pool).victim_threshold_bytes;
	return std::max(v ? v : pool->cfg.total_bytes, DtT(pool));
}

// ----------------------------------------------- the reference model

// spfc.md 3.7's detector per (port, prio), each with its own lazy window
// (W1-W13 on its own events, D7-D10, P5-P7, R6-R10), written from the
// pseudo-code, and the bits of the oracle and of the slow path (6.3). It
// watches the MMU's pause wish and applies the latch on its transitions.
class SpfcModel {
public:
	struct Q {
		ll_u64 win_start = 0, irc = 0, last = 0;
		bool sh = false;
	};
	struct Port {
		Q q[8];
		ll_u8 hold = 0, daemon_sh = 0, fv = 0, fn = 0;
		ll_u64 resume_ns = 0;
	};

	ll_u64 clock = 0;
	Port ports[kMaxPorts];

	ll_u64 Clock(ll_u64 now)
	{
		clock = std::max(clock, now);
		return clock;
	}

	static ll_u64 Tc(const ll_mmu_pool *pool)
	{
		return Params(pool).tc_ns ? Params(pool).tc_ns : 1000000;
	}

	// IRC_th: given, or ceil(C x TC / 8) / 5, in [1 MTU, 2^32 - 1].
	static ll_u64 Th(const ll_mmu_pool *pool, ll_u32 port)
	{
		const ll_spfc_params &s = Params(pool);
		if (s.irc_th_packets)
			return s.irc_th_packets;
		if (s.irc_th_bytes)
			return s.irc_th_bytes;
		unsigned __int128 b = (unsigned __int128)pool->ports[port].rate_bps * Tc(pool);
		ll_u64 th = (ll_u64)((b + 7999999999ull) / 8000000000ull) / 5;
		return std::min(std::max(th, (ll_u64)pool->cfg.mtu_bytes), kU32);
	}

	static bool WindowEnd(const ll_mmu_pool *pool)
	{
		return Params(pool).flags & LL_SPFC_F_WINDOW_END;
	}

	static bool Want(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio)
	{
		return (pool->ports[port].xoff.want >> prio) & 1;
	}

	// W1-W13 on a copy: the state e would have at now.
	static Q Rolled(Q e, bool paused, ll_u64 th, ll_u64 tc, ll_u64 now)
	{
		if (now < e.win_start || now - e.win_start < tc)
			return e;
		ll_u64 n = (now - e.win_start) / tc;
		ll_u64 last = n == 1 ? e.irc : 0;
		e.sh = !paused && last >= th;
		e.last = last;
		e.irc = 0;
		e.win_start += n * tc;
		return e;
	}

	void Roll(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio, bool paused, ll_u64 now)
	{
		Q &e = ports[port].q[prio];
		e = Rolled(e, paused, Th(pool, port), Tc(pool), now);
	}

	bool Victim(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio) const
	{
		const Port &p = ports[port];
		ll_u8 bit = (ll_u8)(1u << prio);
		if (!Lossless(pool, prio))
			return false;
		if (p.fv & bit)
			return true;
		if (p.fn & bit)
			return false;
		bool daemon = Params(pool).flags & LL_SPFC_F_DAEMON;
		bool reset = Want(pool, port, prio) || (daemon && (p.hold & bit));
		bool sh = daemon ? (p.daemon_sh & bit) != 0 : p.q[prio].sh;
		return !reset && sh;
	}

	// D7-D10: a departure of (port, prio); paused: the wish before it.
	void Depart(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio, ll_u32 bytes,
		    bool paused, ll_u64 now)
	{
		Roll(pool, port, prio, paused, now);
		Q &e = ports[port].q[prio];
		e.irc += Params(pool).irc_th_packets ? 1 : bytes;
		if (!WindowEnd(pool) && !paused && !e.sh && e.irc >= Th(pool, port))
			e.sh = true;
	}

	// P5-P7 and R6-R10 on the wish's changes since `before`; returns the
	// priorities that resumed.
	ll_u8 Transitions(const ll_mmu_pool *pool, ll_u32 port, ll_u8 before, ll_u64 now)
	{
		Port &p = ports[port];
		ll_u8 after = pool->ports[port].xoff.want, resumed = 0;
		for (ll_u32 prio = 0; prio < 8; prio++) {
			ll_u8 bit = (ll_u8)(1u << prio);
			if (!Lossless(pool, prio) || !((before ^ after) & bit))
				continue;
			Roll(pool, port, prio, before & bit, now);	// before the evaluation
			Q &e = p.q[prio];
			if (after & bit) {			// PAUSE: the SH reset
				e.sh = false;
				p.hold |= bit;
			} else {				// RESUME
				p.resume_ns = now;
				resumed |= bit;
				if (!WindowEnd(pool) && e.irc >= Th(pool, port))
					e.sh = true;
			}
		}
		return resumed;
	}

	void Publish(const ll_mmu_pool *pool, ll_u32 port, ll_u8 victims, ll_u64 window_end)
	{
		Port &p = ports[port];
		p.daemon_sh = victims & pool->cfg.lossless_mask;
		if (window_end > p.resume_ns)
			p.hold &= pool->ports[port].xoff.want;
	}

	void Force(ll_u32 port, ll_u32 prio, ll_spfc_forced state)
	{
		Port &p = ports[port];
		ll_u8 bit = (ll_u8)(1u << prio);
		p.fv &= (ll_u8)~bit;
		p.fn &= (ll_u8)~bit;
		if (state == LL_SPFC_FORCE_VICTIM)
			p.fv |= bit;
		else if (state == LL_SPFC_FORCE_NORMAL)
			p.fn |= bit;
	}

	// The datapath's state equals the model's, both seen at the clock.
	void ExpectSame(const ll_mmu_pool *pool, ll_u32 port) const
	{
		const ll_mmu_port &mp = pool->ports[port];
		const ll_spfc_port_state &st = mp.sch.spfc;
		const Port &p = ports[port];
		ll_u64 th = Th(pool, port), tc = Tc(pool);
		ASSERT_EQ(ll_spfc_irc_threshold(pool, port), th) << "port " << port;
		ASSERT_EQ(ll_spfc_tc_ns(pool), tc);
		for (ll_u32 prio = 0; prio < 8; prio++) {
			if (!Lossless(pool, prio))
				continue;
			bool paused = Want(pool, port, prio);
			Q m = Rolled(p.q[prio], paused, th, tc, clock);
			Q d{st.win_start_ns, mp.iq[prio].sch.spfc.irc, mp.iq[prio].sch.spfc.last_win,
			    ((st.sh >> prio) & 1) != 0};
			d = Rolled(d, paused, th, tc, clock);
			ASSERT_EQ(d.win_start, m.win_start) << port << "/" << prio;
			ASSERT_EQ(d.irc, std::min(m.irc, kU32)) << port << "/" << prio;
			ASSERT_EQ(d.last, std::min(m.last, kU32)) << port << "/" << prio;
			ASSERT_EQ(d.sh, m.sh) << port << "/" << prio << " at " << clock;
		}
		ASSERT_EQ(st.hold, p.hold) << port;
		ASSERT_EQ(st.daemon_sh, p.daemon_sh) << port;
		ASSERT_EQ(st.force_victim, p.fv) << port;
		ASSERT_EQ(st.force_normal, p.fn) << port;
		ASSERT_EQ(st.resume_ns, p.resume_ns) << port;
	}
};

// DT's admission (mmu.h) with SPFC's threshold from the model.
ll_mmu_verdict ExpectedVerdict(const ll_mmu_pool *pool, const SpfcModel &model, ll_u32 in,
			       ll_u32 prio, ll_u32 eg, ll_u32 q, ll_u32 bytes)
{
	if (!pool->ports[in].attached || !pool->ports[eg].attached)
		return LL_MMU_DROP_INVALID;
	const ll_mmu_port &p = pool->ports[in];
	const ll_mmu_iq &iq = p.iq[prio];
	bool fits = pool->shared_used + bytes <= pool->shared_size;
	if (iq.reserved_used + bytes <= pool->cfg.reserved_bytes)
		return LL_MMU_ADMIT_RESERVED;
	if (Lossless(pool, prio)) {
		ll_u64 t = Spfc(pool) && model.Victim(pool, in, prio) ? VictimT(pool) : DtT(pool);
		if (fits && iq.shared_used + bytes <= t)
			return LL_MMU_ADMIT_SHARED;
		if (iq.headroom_used + bytes <= p.headroom_bytes)
			return LL_MMU_ADMIT_HEADROOM;
		return LL_MMU_DROP_LOSSLESS;
	}
	if (fits && pool->ports[eg].eq[q].bytes + bytes <=
			    ll_mmu_dt_threshold(pool->shared_size, pool->shared_used,
						pool->cfg.egress_alpha))
		return LL_MMU_ADMIT_SHARED;
	return LL_MMU_DROP_LOSSY;
}

// What the checks saw, over a run.
struct SpfcCounts {
	ll_u64 latches = 0;		// Victims paused by a full pool (INV-2)
	ll_u64 inv2_violations = 0;	// Victims paused otherwise (witness mode)
	ll_u64 resumes = 0, resumed_victim = 0;	// RESUMEs; of which Victim at once
	ll_u64 victim_events = 0;	// events after which some queue is a Victim
	ll_u64 to_victim = 0, to_normal = 0;
	ll_u64 hash = 1469598103934665603ull;	// the trace (INV-5)
	void Add(const SpfcCounts &o)
	{
		latches += o.latches;
		inv2_violations += o.inv2_violations;
		resumes += o.resumes;
		resumed_victim += o.resumed_victim;
		victim_events += o.victim_events;
		to_victim += o.to_victim;
		to_normal += o.to_normal;
	}
	void Mix(ll_u64 v)
	{
		hash = (hash ^ v) * 1099511628211ull;
	}
};

// The checks, for both generators. strict_inv2: a Victim paused by
// anything but a full pool fails (else it is counted: the witness).
class SpfcChecks {
public:
	explicit SpfcChecks(bool strict_inv2 = true, bool live_th = false)
		: strict_inv2_(strict_inv2), live_th_(live_th)
	{
	}

	SpfcModel model;
	SpfcCounts counts;
	bool first_latch_printed = true;	// false: print the first latch

	void Snapshot(const ll_mmu_pool *pool)
	{
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++)
			snap_[port] = pool->ports[port].xoff.want;
	}

	ll_mmu_verdict PreAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32 eg,
				ll_u32 q, ll_u32 bytes, ll_u64 now)
	{
		Snapshot(pool);
		s_before_ = pool->shared_used;
		victim_before_ = false;
		// The datapath's clock moves with the hooks, which run for a
		// valid lossless arrival, or any with LL_SCHEME_HOOK_LOSSY
		// (scheme.h; SchemeHooks sets every hook).
		if (Spfc(pool) && pool->ports[in].attached && pool->ports[eg].attached &&
		    (Lossless(pool, prio) || (pool->scheme_hooks & LL_SCHEME_HOOK_LOSSY))) {
			ll_u64 t = model.Clock(now);
			model.Roll(pool, in, prio, SpfcModel::Want(pool, in, prio), t);
			victim_before_ = model.Victim(pool, in, prio);
		}
		return ExpectedVerdict(pool, model, in, prio, eg, q, bytes);
	}

	void PostAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32 bytes,
		       ll_mmu_verdict v, ll_u64 now)
	{
		counts.Mix(now * 131 + in * 17 + prio * 5 + v);
		counts.Mix(pool->ports[in].xoff.want);
		if (!Spfc(pool) || !ll_mmu_admitted(v) || !Lossless(pool, prio))
			return;
		ll_u8 bit = (ll_u8)(1u << prio);
		if (victim_before_ && !(snap_[in] & bit) && (pool->ports[in].xoff.want & bit)) {
			// INV-2: a Victim pauses only when its bytes found the
			// shared region full and went to headroom.
			bool full = v == LL_MMU_ADMIT_HEADROOM &&
				    s_before_ + bytes > pool->shared_size;
			if (full && !model.ports[in].fv) {
				counts.latches++;
				if (!first_latch_printed) {
					first_latch_printed = true;
					std::printf("latch: port %u prio %u at %llu ns: S %llu + %u > "
						    "B_s %llu, to headroom, paused, %s\n",
						    in, prio, (unsigned long long)now,
						    (unsigned long long)s_before_, bytes,
						    (unsigned long long)pool->shared_size,
						    ll_spfc_victims(pool, in) & bit ? "Victim"
										    : "Normal");
				}
			} else if (!full) {
				// (A Victim threshold below the buffer is not the
				// paper's: then INV-2 does not hold, by design.)
				if (strict_inv2_ && !Params(pool).victim_threshold_bytes) {
					FAIL() << "Victim " << in << "/" << prio << " paused by "
					       << ll_mmu_verdict_name(v) << " with S " << s_before_
					       << " of " << pool->shared_size;
				}
				counts.inv2_violations++;
			}
		}
		After(pool, in, model.clock);
	}

	void PreRelease(const ll_mmu_pool *pool, const ll_mmu_charge &c)
	{
		Snapshot(pool);
		const ll_mmu_port &p = pool->ports[c.in_port];
		live_ = p.attached && p.gen == c.in_gen && Lossless(pool, c.prio);
	}

	void PostRelease(const ll_mmu_pool *pool, const ll_mmu_charge &c, ll_u64 now)
	{
		counts.Mix(now * 131 + c.in_port * 17 + c.prio);
		counts.Mix(pool->ports[c.in_port].xoff.want);
		if (!Spfc(pool) || !live_)
			return;
		ll_u64 t = model.Clock(now);
		model.Depart(pool, c.in_port, c.prio, c.bytes, (snap_[c.in_port] >> c.prio) & 1, t);
		After(pool, c.in_port, t);
	}

	void PreSweep(const ll_mmu_pool *pool) { Snapshot(pool); }

	void PostSweep(const ll_mmu_pool *pool, ll_u64 now)
	{
		if (!Spfc(pool) || !pool->cfg.lossless_mask || !pool->attached_mask)
			return;
		ll_u64 t = model.Clock(now);
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++)
			if (pool->ports[port].attached)
				After(pool, port, t);
	}

	void PreTimer(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now)
	{
		Snapshot(pool);
		ticks_ = Spfc(pool) && pool->ports[port].attached &&
			 now >= ll_spfc_port_deadline(pool, port);
	}

	void PostTimer(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now)
	{
		if (ticks_)
			After(pool, port, model.Clock(now));
	}

	// After an oracle call, a publication or a reconfiguration.
	void PostOther(const ll_mmu_pool *pool, ll_u32 port)
	{
		After(pool, port, model.clock);
	}

	// The hysteresis of a queue just evaluated (mmu.h, with its threshold).
	void Touched(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio)
	{
		const ll_mmu_port &p = pool->ports[port];
		if (!p.attached || !Lossless(pool, prio))
			return;
		const ll_mmu_iq &iq = p.iq[prio];
		ll_u64 t = ll_mmu_ingress_threshold(pool, port, prio);
		ll_u64 xon = pool->cfg.xon_bytes, delta = pool->cfg.xon_offset_bytes;
		bool off = iq.headroom_used || (iq.shared_used > xon && iq.shared_used >= t);
		bool on = !iq.headroom_used && (iq.shared_used <= xon || iq.shared_used + delta < t);
		ASSERT_FALSE(off && on);
		if (off || on) {
			ASSERT_EQ(SpfcModel::Want(pool, port, prio), off) << port << "/" << prio;
		}
	}

	// After every event.
	void Invariants(const ll_mmu_pool *pool)
	{
		if (!Spfc(pool))
			return;
		bool daemon = Params(pool).flags & LL_SPFC_F_DAEMON;
		bool any = false;
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
			const ll_mmu_port &p = pool->ports[port];
			const ll_spfc_port_state &st = p.sch.spfc;
			if (!p.attached)
				continue;
			model.ExpectSame(pool, port);
			if (::testing::Test::HasFatalFailure())
				return;
			ll_u8 victims = ll_spfc_victims(pool, port);
			any |= victims != 0;
			ll_u64 th = ll_spfc_irc_threshold(pool, port);
			// INV-3: paused means Normal (the oracle aside).
			ASSERT_EQ(victims & p.xoff.want & ~st.force_victim, 0) << "port " << port;
			// The transitions counted are the state's.
			ASSERT_EQ((ll_u32)(st.to_victim - st.to_normal), Popcount(victims))
				<< "port " << port;
			for (ll_u32 prio = 0; prio < 8; prio++) {
				ll_u8 bit = (ll_u8)(1u << prio);
				const ll_spfc_iq_state &q = p.iq[prio].sch.spfc;
				if (!Lossless(pool, prio)) {
					ASSERT_FALSE(victims & bit);
					continue;
				}
				// INV-1: a Normal queue's threshold is DT's, for all.
				ASSERT_EQ(ll_mmu_ingress_threshold(pool, port, prio),
					  victims & bit ? VictimT(pool) : DtT(pool));
				if (daemon || (st.force_victim & bit))
					continue;
				// INV-4: Victim means IRC_th reached, this or the
				// last window, and not paused.
				if (victims & bit) {
					ASSERT_TRUE(q.irc >= th || q.last_win >= th) << port << "/" << prio;
				}
				// IMMEDIATE misses no promotion.
				if (!live_th_ && !(Params(pool).flags & LL_SPFC_F_WINDOW_END) &&
				    !(p.xoff.want & bit) && q.irc >= th) {
					ASSERT_TRUE(st.sh & bit) << port << "/" << prio;
				}
			}
		}
		if (any)
			counts.victim_events++;
	}

	void Finish(const ll_mmu_pool *pool)
	{
		if (!Spfc(pool))
			return;
		ll_u64 events = 0, victim_pauses = 0;
		for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
			const ll_spfc_port_state &st = pool->ports[port].sch.spfc;
			counts.to_victim += st.to_victim;
			counts.to_normal += st.to_normal;
			// Telemetry: every transition and every pause and its
			// resume (all resumed now) is an event of the ring.
			events += (ll_u64)st.to_victim + st.to_normal +
				  2 * ((ll_u64)st.pauses_normal + st.pauses_victim);
			victim_pauses += st.pauses_victim;
		}
		// The network runs (the random one detaches, which zeroes a
		// port's counters but not the pool's ring).
		if (!live_th_) {
			EXPECT_EQ(pool->events.total, events);
			EXPECT_GE(victim_pauses, counts.latches);
		}
	}

private:
	// The latch on the wish's changes at (port, now); RESUMEs on DT's T.
	void After(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now)
	{
		ll_u8 resumed = model.Transitions(pool, port, snap_[port], now);
		const ll_mmu_port &p = pool->ports[port];
		for (ll_u32 prio = 0; resumed; prio++, resumed >>= 1) {
			if (!(resumed & 1))
				continue;
			counts.resumes++;
			if ((ll_spfc_victims(pool, port) >> prio) & 1)
				counts.resumed_victim++;
			if (p.sch.spfc.force_victim & (1u << prio))
				continue;
			// INV-3: RESUME is judged on DT's threshold.
			const ll_mmu_iq &iq = p.iq[prio];
			ASSERT_EQ(iq.headroom_used, 0u);
			ASSERT_TRUE(iq.shared_used <= pool->cfg.xon_bytes ||
				    iq.shared_used + pool->cfg.xon_offset_bytes < DtT(pool))
				<< port << "/" << prio;
		}
		snap_[port] = p.xoff.want;
	}

	bool strict_inv2_, live_th_;
	ll_u8 snap_[64] = {};
	ll_u64 s_before_ = 0;
	bool victim_before_ = false, live_ = false, ticks_ = false;
};

// ============================================================ 1. network

class SpfcHooks : public NetHooks {
public:
	explicit SpfcHooks(bool strict_inv2 = true) : checks(strict_inv2) {}
	SpfcChecks checks;

	ll_mmu_verdict PreAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32 eg,
				ll_u32 q, ll_u32 bytes, ll_u64 now) override
	{
		return checks.PreAdmit(pool, in, prio, eg, q, bytes, now);
	}
	void PostAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio, ll_u32 bytes,
		       ll_mmu_verdict v, ll_u64 now) override
	{
		checks.PostAdmit(pool, in, prio, bytes, v, now);
	}
	void PreRelease(const ll_mmu_pool *pool, const ll_mmu_charge &c, ll_u64) override
	{
		checks.PreRelease(pool, c);
	}
	void PostRelease(const ll_mmu_pool *pool, const ll_mmu_charge &c, ll_u64 now) override
	{
		checks.PostRelease(pool, c, now);
	}
	void PreSweep(const ll_mmu_pool *pool, ll_u64) override { checks.PreSweep(pool); }
	void PostSweep(const ll_mmu_pool *pool, ll_u64 now) override
	{
		checks.PostSweep(pool, now);
	}
	void PreTimer(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now) override
	{
		checks.PreTimer(pool, port, now);
	}
	void PostTimer(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now) override
	{
		checks.PostTimer(pool, port, now);
	}
	void Touched(const ll_mmu_pool *pool, ll_u32 port, ll_u32 prio) override
	{
		checks.Touched(pool, port, prio);
	}
	void Invariants(const ll_mmu_pool *pool) override { checks.Invariants(pool); }
	void Finish(const ll_mmu_pool *pool) override { checks.Finish(pool); }
};

struct RunCounts {
	NetCounts net;
	SpfcCounts spfc;
	void Add(const RunCounts &o)
	{
		net.Add(o.net);
		spfc.Add(o.spfc);
	}
	void Print(const char *what) const
	{
		net.Print(what);
		std::printf("  spfc: to victim %llu, to normal %llu, latches %llu, INV-2 "
			    "violations %llu, resumes %llu (Victim at once %llu), events with "
			    "a Victim %llu\n",
			    (unsigned long long)spfc.to_victim, (unsigned long long)spfc.to_normal,
			    (unsigned long long)spfc.latches,
			    (unsigned long long)spfc.inv2_violations,
			    (unsigned long long)spfc.resumes,
			    (unsigned long long)spfc.resumed_victim,
			    (unsigned long long)spfc.victim_events);
	}
};

RunCounts RunNet(const NetConfig &nc, ll_u64 seed, bool strict_inv2 = true,
		 bool print_latch = false)
{
	SpfcHooks hooks(strict_inv2);
	hooks.checks.first_latch_printed = !print_latch;
	Net net(nc, seed, hooks);
	RunCounts r;
	r.net = net.Run();
	r.spfc = hooks.checks.counts;
	return r;
}

// A congested switch: incast into a hot egress that stalls at random,
// victim ports (a flow to their own idle output, one to the hot one),
// light ports; mixed speeds, 1 to 4 lossless classes, every SPFC mode.
NetConfig StressConfig(ll_u64 seed)
{
	std::mt19937_64 rng(seed * 104729);
	NetConfig nc;
	nc.scheme = LL_SCHEME_SPFC;
	nc.ports = 8;
	nc.victims = PickOf(rng, {0, 1, 2, 2});
	nc.sinks = nc.victims;
	nc.light = PickOf(rng, {0, 2});
	nc.victim_hot_per_mille = PickOf(rng, {200, 300, 500});
	nc.lossless_mask = (ll_u8)PickOf(rng, {0x08, 0x18, 0x1E, 0x08});
	for (ll_u32 i = 0; i < nc.ports; i++)
		nc.rate_bps[i] = PickOf(rng, {10, 10, 25}) * kGbit;
	nc.react_ns = PickOf(rng, {1000, 5000, 20000});
	nc.phi_react_ns = nc.react_ns;
	nc.shared_bytes = 60000 + rng() % 600000;
	nc.reserved_bytes = PickOf(rng, {0, 1500, 3000});
	nc.xon_offset_bytes = PickOf(rng, {0, 0, 3000});
	static const ll_mmu_alpha alphas[] = {{1, 4}, {1, 3}, {1, 1}, {1, 0}, {2, 0}};
	nc.alpha = alphas[rng() % 5];
	nc.release_order = (ll_u8)(rng() % 2);
	ll_spfc_params &s = nc.params.spfc;
	s.tc_ns = PickOf(rng, {20000, 50000, 100000});
	switch (rng() % 3) {
	case 0:
		break;				// C_p x TC / 8 / 5
	case 1:
		s.irc_th_bytes = 20000 + rng() % 40000;
		break;
	default:
		s.irc_th_packets = 10 + rng() % 30;
		break;
	}
	s.flags = PickOf(rng, {0, 0, LL_SPFC_F_WINDOW_END});
	if (rng() % 3 == 0)
		nc.xoff_quanta = (ll_u16)(8 * nc.react_ns * 25 / 512 + 200);
	return nc;
}

// S-U15 and INV-9: every invariant after every event, no lossless drop.
TEST(SpfcProperty, NetworkInvariantsAndNoLoss)
{
	RunCounts total;
	for (ll_u64 seed = 1; seed <= 10; seed++) {
		SCOPED_TRACE(seed);
		RunCounts r = RunNet(StressConfig(seed), seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(r.net.drops_lossless, 0u);
		EXPECT_LE(r.net.peak_headroom, r.net.headroom);
		total.Add(r);
	}
	total.Print("spfc network, 10 seeds");
	// Not vacuous: Victims, latches, both transitions, pauses, headroom.
	EXPECT_GT(total.net.admitted, 50000u);
	EXPECT_GT(total.net.pauses, 500u);
	EXPECT_GT(total.net.headroom_admits, 500u);
	EXPECT_GT(total.spfc.to_victim, 100u);
	EXPECT_GT(total.spfc.to_normal, 100u);
	EXPECT_GT(total.spfc.latches, 10u);
	EXPECT_GT(total.spfc.resumed_victim, 0u);
	EXPECT_GT(total.net.drops_lossy, 0u);
}

// The latch must fire: two victim ports (70 % of their traffic to their
// own idle output, 30 % into a hot output that stalls) fill a small pool
// next to four burst ports. Each Victim that still finds the pool full
// takes headroom, pauses and is Normal in that event (checked), resumes
// on DT's X_on and turns Victim again; nothing is lost.
TEST(SpfcProperty, LatchFiresAndRecoversWithoutLoss)
{
	RunCounts total;
	for (ll_u64 seed = 1; seed <= 4; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc;
		nc.scheme = LL_SCHEME_SPFC;
		nc.ports = 8;
		nc.victims = 2;
		nc.sinks = 2;
		nc.victim_hot_per_mille = 300;
		nc.lossless_mask = 0x08;
		nc.lossy = false;
		for (ll_u32 i = 0; i < nc.ports; i++)
			nc.rate_bps[i] = 10 * kGbit;
		nc.shared_bytes = 200000;
		nc.reserved_bytes = 0;
		nc.alpha = {1, 1};
		nc.stall_per_mille = 20;
		nc.params.spfc.tc_ns = 50000;
		RunCounts r = RunNet(nc, seed, true, true);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(r.net.drops_lossless, 0u);
		EXPECT_GT(r.spfc.latches, 0u);
		total.Add(r);
	}
	total.Print("victims filling the pool, 4 seeds");
	EXPECT_GT(total.spfc.latches, 20u);
	// Back to Normal at every latch (INV-3, asserted), then Victim again.
	EXPECT_GE(total.spfc.to_normal, total.spfc.latches);
	EXPECT_GT(total.spfc.to_victim, total.spfc.latches);
}

// INV-5 (S-U11 with K = 0.5): with an IRC_th no port can reach, SPFC's
// trace is DT's, verdict by verdict and wish by wish. The witness: with
// the default IRC_th the same traffic takes another course.
TEST(SpfcProperty, NoVictimIsDtExactly)
{
	ll_u64 differ = 0;
	for (ll_u64 seed = 1; seed <= 6; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = StressConfig(seed);
		nc.params.spfc = ll_spfc_params{};
		nc.params.spfc.tc_ns = 50000;
		NetConfig dt = nc;
		dt.scheme = LL_SCHEME_DT;
		dt.params = ll_scheme_params{};
		RunCounts a = RunNet(dt, seed);
		nc.params.spfc.irc_th_bytes = LL_SPFC_IRC_TH_MAX;	// > C x TC
		RunCounts b = RunNet(nc, seed);
		nc.params.spfc.irc_th_bytes = 0;
		RunCounts c = RunNet(nc, seed);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(a.spfc.hash, b.spfc.hash);
		EXPECT_EQ(a.net.admitted, b.net.admitted);
		EXPECT_EQ(a.net.frames, b.net.frames);
		EXPECT_EQ(a.net.pauses, b.net.pauses);
		EXPECT_EQ(b.spfc.to_victim, 0u);
		EXPECT_GT(c.spfc.to_victim, 0u);
		differ += a.spfc.hash != c.spfc.hash;
	}
	EXPECT_EQ(differ, 6u);
}

// Witness for INV-2: a Victim threshold below the shared region (an
// optional parameter, not the paper's) lets Victims pause while the pool
// has room; the same checks count it.
TEST(SpfcProperty, VictimThresholdBelowThePoolBreaksInv2)
{
	ll_u64 violations = 0;
	for (ll_u64 seed = 1; seed <= 4; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = StressConfig(seed);
		nc.victims = nc.sinks = 2;
		nc.shared_bytes = 600000;
		nc.params.spfc.victim_threshold_bytes = 20000;
		RunCounts r = RunNet(nc, seed, false);
		if (HasFatalFailure())
			return;
		EXPECT_EQ(r.net.drops_lossless, 0u);
		violations += r.spfc.inv2_violations;
	}
	std::printf("Victim threshold 20,000 B: %llu Victims paused with room in the pool\n",
		    (unsigned long long)violations);
	EXPECT_GT(violations, 0u);
}

// Witness for INV-9: headroom sized for 5 us with upstreams reacting
// within 20 us loses packets, and still releases exactly.
TEST(SpfcProperty, HeadroomBelowTheDelayDrops)
{
	ll_u64 drops = 0;
	for (ll_u64 seed = 1; seed <= 4; seed++) {
		SCOPED_TRACE(seed);
		NetConfig nc = StressConfig(seed);
		nc.react_ns = 20000;
		nc.phi_react_ns = 5000;
		RunCounts r = RunNet(nc, seed);
		if (HasFatalFailure())
			return;
		drops += r.net.drops_lossless;
	}
	std::printf("headroom for 5 us, upstreams reacting within 20 us: %llu lossless drops\n",
		    (unsigned long long)drops);
	EXPECT_GT(drops, 0u);
}

// ======================================================= 2. random order

class RandomOrder {
public:
	explicit RandomOrder(ll_u64 seed) : rng_(seed), mem_(kPorts), checks_(true, true)
	{
		cfg_ = RandomConfig();
		EXPECT_EQ(ll_mmu_pool_init(pool(), &cfg_), LL_MMU_OK);
		for (ll_u32 p = 0; p < 8; p++)
			if ((cfg_.lossless_mask >> p) & 1)
				lossless_.push_back(p);
		for (ll_u32 i = 0; i < kPorts; i++)
			EXPECT_EQ(Attach(i), LL_MMU_OK);
	}

	ll_mmu_pool *pool() { return mem_.get(); }

	void Run(int steps)
	{
		for (int s = 0; s < steps && !::testing::Test::HasFatalFailure(); s++) {
			// One draw after the other: the operands of one expression
			// are unsequenced, and the builds drew them in either order.
			ll_u64 gap = rng_() % 50 ? 3000 : 300000;

			now_ += rng_() % gap;
			unsigned op = rng_() % 1000;
			if (op < 450)	// as many admits as releases: the pool
				DoAdmit();	// fills and drains
			else if (op < 900)
				DoRelease();
			else if (op < 915)
				DoSweep();
			else if (op < 940)
				DoTimer(rng_() % kPorts);
			else if (op < 970)
				DoPfc(rng_() % kPorts);
			else if (op < 982)
				DoForce();
			else if (op < 992)
				DoPublish();
			else if (op < 997)
				DoParams();
			else
				DoDetachReattach();
			if (::testing::Test::HasFatalFailure())
				return;
			ExpectInvariants(pool());
			checks_.Invariants(pool());
			model_.Check(pool());
		}
		Finish();
	}

	SpfcCounts counts() const { return checks_.counts; }
	ll_u64 forced = 0, published = 0, ticks = 0;

private:
	static constexpr ll_u32 kPorts = 6;

	ll_mmu_config RandomConfig()
	{
		ll_mmu_config c = RandomBaseConfig(rng_, kPorts);
		c.scheme = LL_SCHEME_SPFC;
		ll_spfc_params &s = c.scheme_params.spfc;
		s.tc_ns = PickOf(rng_, {20000, 200000, 0});
		ll_u32 th = PickOf(rng_, {0, 1, 1, 1, 2});
		if (th == 1)
			s.irc_th_bytes = PickOf(rng_, {1500, 3000, 8000});
		else if (th == 2)
			s.irc_th_packets = PickOf(rng_, {2, 4});
		s.flags = PickOf(rng_, {0, 0, LL_SPFC_F_WINDOW_END, LL_SPFC_F_DAEMON});
		// A small shared region once every port has carved its headroom
		// (at most 6000 B) for every lossless priority.
		c.total_bytes = 20000 + rng_() % 200000 +
				kPorts * (8ull * c.reserved_bytes +
					  6000ull * Popcount(c.lossless_mask));
		return c;
	}

	ll_mmu_err Attach(ll_u32 port)
	{
		ll_mmu_port_config pc = PortCfg(PickOf(rng_, {1, 10, 25}) * kGbit,
						4000 + rng_() % 2001);
		ll_mmu_err err = ll_mmu_port_attach(pool(), port, &pc, now_);
		if (err == LL_MMU_OK)
			checks_.model.ports[port] = SpfcModel::Port{};
		return err;
	}

	// Mostly lossless traffic from ports 0 and 1: their queues see enough
	// departures per window to turn Victim.
	void DoAdmit()
	{
		ll_u32 in = rng_() % 3 ? rng_() % 2 : rng_() % kPorts, eg = rng_() % kPorts;
		ll_u32 prio = rng_() % 8;
		if (rng_() % 2)
			prio = lossless_[rng_() % lossless_.size()];
		ll_u32 q = rng_() % 4 ? prio : rng_() % LL_MMU_MAX_QUEUES;
		ll_u32 bytes = rng_() % 50 ? 64 + rng_() % (kMtu - 63) : kMtu;
		int burst = rng_() % 20 ? 1 : 1 + rng_() % 30;
		for (int b = 0; b < burst && !::testing::Test::HasFatalFailure(); b++) {
			ll_mmu_verdict want =
				checks_.PreAdmit(pool(), in, prio, eg, q, bytes, now_);
			ll_mmu_charge c;
			ll_mmu_verdict v = ll_mmu_admit(pool(), in, prio, eg, q, bytes, now_, &c);
			ASSERT_EQ(v, want) << "in " << in << " prio " << prio;
			checks_.PostAdmit(pool(), in, prio, bytes, v, now_);
			if (!ll_mmu_admitted(v))
				continue;
			model_.Admitted(c, in, prio, eg, q, bytes);
			checks_.Touched(pool(), in, prio);
			now_ += rng_() % 200;
		}
	}

	void DoRelease()
	{
		if (model_.empty())
			return;
		ChargeModel<kPorts>::Held h = model_.Take(rng_);
		checks_.PreRelease(pool(), h.c);
		ll_u32 ev = ll_mmu_release(pool(), &h.c, now_);
		checks_.PostRelease(pool(), h.c, now_);
		model_.Released(pool(), h, ev, now_, [this](ll_u32 port, ll_u32 prio) {
			checks_.Touched(pool(), port, prio);
		});
		if ((ev & LL_MMU_EV_SWEEP) && rng_() % 2)
			DoSweep();
	}

	void DoSweep()
	{
		checks_.PreSweep(pool());
		ll_u64 due = ll_mmu_sweep(pool(), now_);
		checks_.PostSweep(pool(), now_);
		ExpectSweep(pool(), kPorts, due, now_, [this](ll_u32 port, ll_u32 prio) {
			checks_.Touched(pool(), port, prio);
		});
	}

	// The port's timer at its deadline: the windows roll, the deadline
	// moves past now (or goes away).
	void DoTimer(ll_u32 port)
	{
		if (!pool()->ports[port].attached)
			return;
		ll_u64 d = ll_spfc_port_deadline(pool(), port);
		if (d == LL_MMU_NEVER)
			return;
		if (now_ < d)
			now_ = d;
		checks_.PreTimer(pool(), port, now_);
		ll_mmu_port_timer(pool(), port, now_);
		checks_.PostTimer(pool(), port, now_);
		ticks++;
		ASSERT_GT(ll_spfc_port_deadline(pool(), port), now_);
	}

	void DoPfc(ll_u32 port)
	{
		frames_.Service(pool(), port, now_, rng_);
	}

	// The oracle: force a state, or give the detector back.
	void DoForce()
	{
		ll_u32 port = rng_() % kPorts, prio = rng_() % 8;
		Force(port, prio, (ll_spfc_forced)(rng_() % 3 ? 0 : 1 + rng_() % 2));
	}

	void Force(ll_u32 port, ll_u32 prio, ll_spfc_forced state)
	{
		checks_.Snapshot(pool());
		ll_u8 before = ll_spfc_victims(pool(), port);
		int r = ll_spfc_force(pool(), port, prio, state, now_);
		if (!pool()->ports[port].attached) {
			ASSERT_EQ(r, -1);
			return;
		}
		checks_.model.Clock(now_);
		checks_.model.Force(port, prio, state);
		checks_.PostOther(pool(), port);
		ASSERT_EQ(r, ll_mmu_ctrl_due(pool(), port, now_));
		if (before != ll_spfc_victims(pool(), port))	// re-evaluated
			checks_.Touched(pool(), port, prio);
		forced++;
	}

	// The slow path: the daemon's bits for a window that ended recently.
	void DoPublish()
	{
		ll_u32 port = rng_() % kPorts;
		ll_u8 bits = (ll_u8)rng_();
		ll_u64 end = now_ > 50000 ? now_ - rng_() % 50000 : 0;
		checks_.Snapshot(pool());
		int r = ll_spfc_publish(pool(), port, bits, end, now_);
		if (!pool()->ports[port].attached) {
			ASSERT_EQ(r, -1);
			return;
		}
		checks_.model.Clock(now_);
		checks_.model.Publish(pool(), port, bits, end);
		checks_.PostOther(pool(), port);
		ASSERT_EQ(r, ll_mmu_ctrl_due(pool(), port, now_));
		published++;
	}

	// Live changes that the per-(port, prio) model follows exactly: the
	// Victim threshold and the promotion mode. (TC and IRC_th changes
	// apply at each port's next roll: spfc_test.cpp, B12.)
	void DoParams()
	{
		ll_mmu_config c = pool()->cfg;
		c.scheme_params.spfc.victim_threshold_bytes =
			rng_() % 2 ? 0 : rng_() % pool()->cfg.total_bytes;
		c.scheme_params.spfc.flags ^= rng_() % 2 ? LL_SPFC_F_WINDOW_END : 0;
		checks_.Snapshot(pool());
		ASSERT_EQ(ll_mmu_pool_reconfigure(pool(), &c), LL_MMU_OK);
		cfg_ = c;
		for (ll_u32 port = 0; port < kPorts; port++) {
			if (!pool()->ports[port].attached)
				continue;
			checks_.PostOther(pool(), port);
			for (ll_u32 prio = 0; prio < 8; prio++)
				checks_.Touched(pool(), port, prio);
		}
	}

	void DoDetachReattach()
	{
		model_.DetachReattach(pool(), rng_, now_, frames_.told,
				      [this](ll_u32 port) { return Attach(port); },
				      [this](ll_u32 port) {
					      EXPECT_EQ(ll_spfc_victims(pool(), port), 0);
				      });
	}

	void Finish()
	{
		model_.Drain(rng_, [this] { DoRelease(); });
		ExpectEmpty(pool());
		for (ll_u32 port = 0; port < kPorts; port++)
			if (!pool()->ports[port].attached)
				Attach(port);
		// The oracle off, then every window rolled out: the timers stop.
		for (ll_u32 port = 0; port < kPorts; port++)
			for (ll_u32 prio = 0; prio < 8; prio++)
				Force(port, prio, LL_SPFC_FORCE_AUTO);
		for (int w = 0; w < 3; w++)
			for (ll_u32 port = 0; port < kPorts; port++)
				DoTimer(port);
		DoSweep();
		for (ll_u32 port = 0; port < kPorts; port++) {
			SendDueFrames(pool(), port, now_);
			EXPECT_EQ(pool()->ports[port].xoff.told, 0) << "port " << port;
			EXPECT_EQ(pool()->ports[port].xoff.want, 0) << "port " << port;
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool(), port), LL_MMU_NEVER)
				<< "port " << port;
		}
		checks_.Finish(pool());
		EXPECT_EQ(pool()->ctr.release_anomalies, 0u);
	}

	std::mt19937_64 rng_;
	PoolMem mem_;
	SpfcChecks checks_;
	ll_mmu_config cfg_;
	ll_u64 now_ = 1;
	ChargeModel<kPorts> model_;
	std::vector<ll_u32> lossless_;
	FrameModel frames_;
};

TEST(SpfcProperty, RandomOrderReleasesExactly)
{
	SpfcCounts total;
	ll_u64 forced = 0, published = 0, ticks = 0;
	for (ll_u64 seed = 1; seed <= 12; seed++) {
		SCOPED_TRACE(seed);
		RandomOrder run(seed);
		run.Run(20000);
		if (HasFatalFailure())
			return;
		total.Add(run.counts());
		forced += run.forced;
		published += run.published;
		ticks += run.ticks;
	}
	std::printf("spfc random order, 12 x 20000 events: to victim %llu, to normal %llu, "
		    "events with a Victim %llu, latches %llu, resumes %llu, forced %llu, "
		    "published %llu, window ticks %llu\n",
		    (unsigned long long)total.to_victim, (unsigned long long)total.to_normal,
		    (unsigned long long)total.victim_events, (unsigned long long)total.latches,
		    (unsigned long long)total.resumes, (unsigned long long)forced,
		    (unsigned long long)published, (unsigned long long)ticks);
	// The port's timer runs only while a roll may move a state (an SH
	// set): some hundreds of ticks in these runs.
	EXPECT_GT(total.to_victim, 50u);
	EXPECT_GT(total.victim_events, 10000u);
	EXPECT_GT(total.resumes, 200u);
	EXPECT_GT(ticks, 200u);
	EXPECT_GT(published, 1000u);
	EXPECT_GT(forced, 1000u);
}

} // namespace

// The pool's hooks mask (scheme.h's LL_SCHEME_HOOK_*) skips only calls
// that do nothing, and DT never reads an admission's clock (the kernel
// gives it 0): with every hook called and the clock given, each scheme's
// run is the same event for event. (ST has DT's hooks; these checks model
// DT's and SPFC's verdicts only.)
TEST(SchemeHooks, SkippedHooksChangeNothing)
{
	for (ll_u8 scheme : {LL_SCHEME_DT, LL_SCHEME_SPFC}) {
		for (ll_u64 seed = 1; seed <= 4; seed++) {
			SCOPED_TRACE(::testing::Message() << "scheme " << (int)scheme
							  << " seed " << seed);
			NetConfig nc = StressConfig(seed);
			nc.scheme = scheme;
			if (scheme != LL_SCHEME_SPFC)
				nc.params = ll_scheme_params{};
			NetConfig all = nc;
			all.all_hooks = true;
			RunCounts a = RunNet(nc, seed);
			RunCounts b = RunNet(all, seed);
			if (HasFatalFailure())
				return;
			EXPECT_EQ(a.spfc.hash, b.spfc.hash);
			EXPECT_EQ(a.net.admitted, b.net.admitted);
			EXPECT_EQ(a.net.frames, b.net.frames);
			EXPECT_EQ(a.net.pauses, b.net.pauses);
			EXPECT_GT(a.net.pauses, 0u);
		}
	}
}
