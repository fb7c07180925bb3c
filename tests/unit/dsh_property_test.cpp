// Randomised properties of DSH (kernel/core/scheme_dsh.c), the invariants
// of dsh.md section 3.9 over long event sequences, two generators:
//
// 1. A network (dsh.md 9, #20-#23, #26): ports whose upstream senders
//    transmit at line rate on several classes (the real receive side of
//    PFC, pause.c, closes their gates), bursty and incast traffic, egress
//    ports stalled at random by their own downstream, and PFC frames that
//    take effect up to a modelled delay after the MMU decides. Checked
//    after every event:
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
#include "mmu_fixture.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <queue>
#include <random>

extern "C" {
#include "scheme.h"
}

namespace {

using namespace mmu_test;

constexpr ll_u32 kMaxPorts = 8;
constexpr ll_u32 kMtu = 1500;

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
		ASSERT_EQ(p.pfc.want, eff) << "port " << port;		// INV-10
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

// What upstreams were told, to check that no frame is a duplicate.
struct FrameModel {
	ll_u8 told[kMaxPorts] = {};
	ll_u64 last_xoff[kMaxPorts] = {};
	ll_u64 refresh[kMaxPorts] = {};

	// A frame just taken on port: its XOFF set is the wish, and it is a
	// change or a due refresh.
	void Taken(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now, const ll_mac_ctrl &f)
	{
		ASSERT_EQ(f.kind, LL_MAC_CTRL_PFC);
		ll_u8 xoff = 0, changes = 0;
		for (ll_u32 i = 0; i < 8; i++) {
			if (f.quanta[i])
				xoff |= (ll_u8)(1u << i);
			if (!((f.enable_vector >> i) & 1)) {
				ASSERT_EQ(f.quanta[i], 0);
				continue;
			}
			if ((bool)f.quanta[i] != (bool)((told[port] >> i) & 1))
				changes |= (ll_u8)(1u << i);
		}
		ASSERT_EQ(xoff, pool->ports[port].pfc.want);
		bool refresh_due = told[port] && now >= last_xoff[port] + refresh[port];
		ASSERT_TRUE(changes || refresh_due) << "duplicate frame, port " << port;
	}
	void Sent(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now, const ll_mac_ctrl &f)
	{
		ll_u8 xoff = 0;
		for (ll_u32 i = 0; i < 8; i++)
			if (f.quanta[i])
				xoff |= (ll_u8)(1u << i);
		told[port] = (ll_u8)((told[port] & ~f.enable_vector) | xoff);
		if (xoff) {
			last_xoff[port] = now;
			refresh[port] = pool->ports[port].pfc.refresh_ns;
		}
		ASSERT_EQ(pool->ports[port].pfc.told, told[port]);
	}
};

// ============================================================ 1. network

struct NetConfig {
	ll_u32 ports = 8;
	ll_u32 light = 0;		// the last `light` ports: uncongested
	ll_u8 lossless_mask = 0x1E;
	ll_u64 rate_bps[kMaxPorts] = {};
	ll_u64 react_ns = 5000;		// a frame takes effect within this
	ll_u64 phi_react_ns = 5000;	// what Phi (the formula) is sized for
	ll_u64 shared_bytes = 1000000;	// B_s once every port is attached
	ll_u32 reserved_bytes = 1500;
	ll_u32 xon_offset_bytes = 0;
	ll_mmu_alpha alpha{1, 3};
	ll_mmu_alpha egress_alpha{1, 2};
	ll_u8 release_order = LL_MMU_RELEASE_DRAIN;
	ll_u16 xoff_quanta = 0;
	ll_dsh_params dsh{};
	ll_u64 stop_ns = 2000000;
	ll_u32 stall_per_mille = 5;	// chance an egress stalls after a packet
	ll_u64 stall_max_ns = 300000;
	bool lossy = true;		// heavy ports also send a lossy class
	bool all_classes = false;	// heavy ports send every lossless class
	ll_u32 silent = 0;		// the first `silent` ports send nothing
	bool one_hot = false;		// class k to egress k % silent, held
};

struct NetCounts {
	ll_u64 admitted = 0, insurance_admits = 0, drops_lossless = 0, drops_lossy = 0;
	ll_u64 frames = 0, queue_pauses = 0, port_pauses = 0, light_pauses = 0;
	ll_u64 peak_insurance = 0, phi = 0;	// the highest peak, and its port's Phi
	ll_u64 light_packets = 0;
	void Add(const NetCounts &o)
	{
		admitted += o.admitted;
		insurance_admits += o.insurance_admits;
		drops_lossless += o.drops_lossless;
		drops_lossy += o.drops_lossy;
		frames += o.frames;
		queue_pauses += o.queue_pauses;
		port_pauses += o.port_pauses;
		light_pauses += o.light_pauses;
		light_packets += o.light_packets;
		if (o.peak_insurance * (phi ? phi : 1) >= peak_insurance * (o.phi ? o.phi : 1)) {
			peak_insurance = o.peak_insurance;
			phi = o.phi;
		}
	}
	void Print(const char *what) const
	{
		std::printf("%s: admitted %llu (insurance %llu), lossless drops %llu, lossy "
			    "drops %llu, frames %llu, queue pauses %llu, port pauses %llu, "
			    "light-port pauses %llu of %llu packets, peak insurance %llu of "
			    "Phi %llu\n",
			    what, (unsigned long long)admitted,
			    (unsigned long long)insurance_admits,
			    (unsigned long long)drops_lossless,
			    (unsigned long long)drops_lossy, (unsigned long long)frames,
			    (unsigned long long)queue_pauses, (unsigned long long)port_pauses,
			    (unsigned long long)light_pauses,
			    (unsigned long long)light_packets,
			    (unsigned long long)peak_insurance, (unsigned long long)phi);
	}
};

class Net {
public:
	Net(const NetConfig &nc, ll_u64 seed) : nc_(nc), rng_(seed), mem_(nc.ports)
	{
		ll_mmu_config c{};
		c.max_ports = nc.ports;
		c.mtu_bytes = kMtu;
		c.reserved_bytes = nc.reserved_bytes;
		c.xon_offset_bytes = nc.xon_offset_bytes;
		c.alpha = nc.alpha;
		c.egress_alpha = nc.egress_alpha;
		c.lossless_mask = nc.lossless_mask;
		c.release_order = nc.release_order;
		c.xoff_quanta = nc.xoff_quanta;
		c.scheme = LL_SCHEME_DSH;
		c.scheme_params.dsh = nc.dsh;
		c.total_bytes = LL_MMU_MAX_TOTAL_BYTES;	// to compute Phi first
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		ll_u64 phi_sum = 0;
		for (ll_u32 i = 0; i < nc.ports; i++) {
			pc_[i] = PortCfg(nc.rate_bps[i]);
			pc_[i].sw_response_ns = nc.phi_react_ns;	// Phi: headroom.h
			phi_sum += ll_mmu_port_headroom(pool(), &pc_[i]);
		}
		c.total_bytes = nc.shared_bytes + nc.ports * 8ull * nc.reserved_bytes +
				(nc.dsh.flags & LL_DSH_F_NO_INSURANCE ? 0 : phi_sum);
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		for (ll_u32 i = 0; i < nc.ports; i++)
			EXPECT_EQ(ll_mmu_port_attach(pool(), i, &pc_[i], 0), LL_MMU_OK);
		EXPECT_EQ(pool()->shared_size, nc.shared_bytes);
		for (ll_u32 p = 0; p < 8; p++)
			if ((nc.lossless_mask >> p) & 1)
				lossless_.push_back(p);
		heavy_ = nc.ports - nc.light;
		for (ll_u32 i = 0; i < nc.ports; i++)
			SetupSender(i);
	}

	ll_mmu_pool *pool() { return mem_.get(); }

	NetCounts Run()
	{
		for (ll_u32 i = 0; i < nc_.ports; i++)
			Push(rng_() % 1000, kWake, i);
		while (!events_.empty() && !::testing::Test::HasFatalFailure()) {
			Event e = events_.top();
			events_.pop();
			now_ = e.t;
			if (now_ > nc_.stop_ns + LL_NSEC_PER_SEC) {
				ADD_FAILURE() << "still running 1 s after the senders stopped";
				break;
			}
			Handle(e);
			if (::testing::Test::HasFatalFailure())
				break;
			Check();
		}
		if (!::testing::Test::HasFatalFailure())
			Finish();
		counts_.drops_lossless = pool()->ctr.drops_lossless;
		counts_.drops_lossy = pool()->ctr.drops_lossy;
		return counts_;
	}

private:
	enum Kind { kWake, kSendDone, kEgressDone, kUnstall, kPfcRx, kTimer, kToggle };
	struct Event {
		ll_u64 t;
		ll_u64 seq;
		Kind kind;
		ll_u32 port;
		ll_u32 arg;
		ll_mac_ctrl frame;
		bool operator>(const Event &o) const
		{
			return t != o.t ? t > o.t : seq > o.seq;
		}
	};
	struct Class {
		ll_u32 prio;
		bool active;
		ll_u32 dest;
	};
	struct Sender {
		ll_port_pause gate{};
		std::vector<Class> classes;
		ll_u32 rr = 0;
		bool busy = false;
		ll_u32 prio = 0, bytes = 0, dest = 0;
		ll_u64 next_start = 0;		// light senders' pacing
		ll_u32 burst_left = 0;
		ll_u64 last_rx = 0;		// PFC frames arrive in order
		ll_u64 armed = LL_MMU_NEVER;	// the port timer
	};
	struct Egress {
		std::deque<ll_mmu_charge> q[8];
		ll_u32 rr = 0;
		bool busy = false, unstall_pushed = false;
		ll_u32 serving = 0;
		ll_u64 stalled_until = 0;
	};

	bool Light(ll_u32 port) const { return port >= heavy_; }

	ll_u64 SerNs(ll_u32 port, ll_u32 bytes) const
	{
		return (bytes * 8ull * LL_NSEC_PER_SEC + nc_.rate_bps[port] - 1) /
		       nc_.rate_bps[port];
	}

	ll_u32 HeavyDest()
	{
		// Incast: most heavy traffic goes to the hot egress port.
		return rng_() % 10 < 7 ? hot_ : rng_() % heavy_;
	}

	void SetupSender(ll_u32 i)
	{
		Sender &s = senders_[i];
		if (i < nc_.silent)
			return;
		if (nc_.one_hot) {
			for (ll_u32 k = 0; k < lossless_.size(); k++)
				s.classes.push_back({lossless_[k], true, k % nc_.silent});
			return;
		}
		if (Light(i)) {
			// One lossless class to its own egress (the other light
			// port), bursts of 1-4 frames at half the line rate.
			ll_u32 other = heavy_ + (i - heavy_ + 1) % nc_.light;
			s.classes.push_back({lossless_[rng_() % lossless_.size()], true, other});
			return;
		}
		for (ll_u32 p : lossless_)
			if (nc_.all_classes || rng_() % 2 || s.classes.empty())
				s.classes.push_back({p, true, HeavyDest()});
		if (nc_.lossy && !(nc_.lossless_mask & 1))
			s.classes.push_back({0, true, HeavyDest()});
		if (!nc_.all_classes)
			for (ll_u32 k = 0; k < s.classes.size(); k++)
				Push(rng_() % 200000, kToggle, i, k);
	}

	void Push(ll_u64 t, Kind k, ll_u32 port, ll_u32 arg = 0, const ll_mac_ctrl *f = nullptr)
	{
		Event e{t, seq_++, k, port, arg, {}};
		if (f)
			e.frame = *f;
		events_.push(e);
	}

	void TryStart(ll_u32 i)
	{
		Sender &s = senders_[i];
		if (s.busy || now_ >= nc_.stop_ns)
			return;
		ll_port_pause_expire(&s.gate, now_);
		ll_u32 closed = ll_port_pause_closed_mask(&s.gate);
		if (Light(i) && now_ < s.next_start) {
			Push(s.next_start, kWake, i);
			return;
		}
		ll_u32 n = (ll_u32)s.classes.size(), pick = n;
		for (ll_u32 k = 0; k < n; k++) {
			const Class &c = s.classes[(s.rr + k) % n];
			if (c.active && !((closed >> c.prio) & 1)) {
				pick = (s.rr + k) % n;
				break;
			}
		}
		if (pick == n) {
			ll_u64 d = ll_port_pause_next_deadline(&s.gate);
			if (d)
				Push(d, kWake, i);
			return;	// or a frame, a toggle wakes it
		}
		s.rr = pick + 1;
		s.busy = true;
		s.prio = s.classes[pick].prio;
		s.dest = s.classes[pick].dest;
		s.bytes = rng_() % 3 ? kMtu : 64 + rng_() % (kMtu - 63);
		ll_u64 ser = SerNs(i, s.bytes);
		if (Light(i)) {
			counts_.light_packets++;
			if (!s.burst_left)
				s.burst_left = 1 + rng_() % 4;
			// Idle after a burst so that the average is half the rate.
			s.next_start = --s.burst_left ? now_ + ser
						      : now_ + ser + (1 + rng_() % 4) * 2 * ser;
		}
		Push(now_ + ser, kSendDone, i);
	}

	void Arrive(ll_u32 in)
	{
		Sender &s = senders_[in];
		ll_u32 prio = s.prio, eg = s.dest, bytes = s.bytes;
		ll_u64 t_before = ll_dt_ingress_threshold(pool());
		ll_mmu_verdict want = ExpectedVerdict(pool(), in, prio, eg, prio, bytes);
		ll_mmu_charge c;
		ll_mmu_verdict v = ll_mmu_admit(pool(), in, prio, eg, prio, bytes, now_, &c);
		ASSERT_EQ(v, want) << "in " << in << " prio " << prio << " bytes " << bytes;
		bool lossless = (nc_.lossless_mask >> prio) & 1;
		if (lossless && v == LL_MMU_ADMIT_SHARED) {
			ASSERT_LE(ll_dsh_port_shared(pool(), in),			// INV-4
				  LosslessCount(pool()) * t_before);
		}
		if (v == LL_MMU_DROP_LOSSLESS && !first_drop_reported_) {
			first_drop_reported_ = true;
			std::printf("first lossless drop: port %u prio %u at %llu ns, "
				    "insurance %llu of %llu\n",
				    in, prio, (unsigned long long)now_,
				    (unsigned long long)pool()->ports[in].headroom_used,
				    (unsigned long long)pool()->ports[in].headroom_bytes);
		}
		ServicePfc(in);
		if (!ll_mmu_admitted(v))
			return;
		ExpectDshHysteresis(pool(), in, prio);
		counts_.admitted++;
		if (v == LL_MMU_ADMIT_HEADROOM)
			counts_.insurance_admits++;
		in_bytes_[in][prio] += bytes;
		eg_bytes_[eg][prio] += bytes;
		egress_[eg].q[prio].push_back(c);
		StartEgress(eg);
	}

	void StartEgress(ll_u32 o)
	{
		Egress &e = egress_[o];
		if (e.busy)
			return;
		ll_u32 k;
		for (k = 0; k < 8 && e.q[(e.rr + k) % 8].empty(); k++)
			;
		if (k == 8)
			return;
		bool hold = nc_.one_hot && o < nc_.silent && now_ < nc_.stop_ns;
		if (hold || e.stalled_until > now_) {
			if (!e.unstall_pushed) {
				Push(hold ? nc_.stop_ns : e.stalled_until, kUnstall, o);
				e.unstall_pushed = true;
			}
			return;
		}
		e.serving = (e.rr + k) % 8;
		e.rr = e.serving + 1;
		e.busy = true;
		Push(now_ + SerNs(o, e.q[e.serving].front().bytes), kEgressDone, o);
	}

	void Release(ll_u32 o)
	{
		Egress &e = egress_[o];
		e.busy = false;
		ll_mmu_charge c = e.q[e.serving].front();
		e.q[e.serving].pop_front();
		ll_u32 ev = ll_mmu_release(pool(), &c, now_);
		in_bytes_[c.in_port][c.prio] -= c.bytes;
		eg_bytes_[o][c.eg_queue] -= c.bytes;
		ExpectDshHysteresis(pool(), c.in_port, c.prio);
		ASSERT_EQ((ev & LL_MMU_EV_PFC_DUE) != 0,
			  ll_mmu_pfc_due(pool(), c.in_port, now_) != 0);
		ServicePfc(c.in_port);
		if (ev & LL_MMU_EV_SWEEP) {
			ll_u64 due = ll_mmu_sweep(pool(), now_);
			for (ll_u32 port = 0; port < nc_.ports; port++) {
				for (ll_u32 prio : lossless_)
					ExpectDshHysteresis(pool(), port, prio);
				if ((due >> port) & 1)
					ServicePfc(port);
			}
		}
		// The egress's own downstream stops it now and then.
		if (!Light(o) && now_ < nc_.stop_ns &&
		    rng_() % 1000 < nc_.stall_per_mille)
			e.stalled_until = now_ + 1000 + rng_() % nc_.stall_max_ns;
		StartEgress(o);
	}

	// Frames the MMU has for port, sent at once and applied by its
	// upstream's gates up to react_ns later, in order; the port's timer.
	void ServicePfc(ll_u32 port)
	{
		Sender &s = senders_[port];
		for (int i = 0; i < 4; i++) {
			ll_u64 d = ll_mmu_pfc_next_deadline(pool(), port);
			if (d > now_)
				break;
			if (d && !ll_mmu_pfc_due(pool(), port, now_))
				ll_mmu_port_timer(pool(), port, now_);
			ll_mac_ctrl f;
			if (!ll_mmu_pfc_take(pool(), port, now_, &f))
				continue;
			frames_.Taken(pool(), port, now_, f);
			ll_mmu_pfc_complete(pool(), port, 1, now_);
			frames_.Sent(pool(), port, now_, f);
			counts_.frames++;
			s.last_rx = std::max(s.last_rx, now_ + rng_() % (nc_.react_ns + 1));
			Push(s.last_rx, kPfcRx, port, 0, &f);
		}
		ll_u64 d = ll_mmu_pfc_next_deadline(pool(), port);
		ASSERT_GT(d, now_) << "port " << port << ": a deadline nothing serves";
		if (d != LL_MMU_NEVER && (s.armed <= now_ || d < s.armed)) {
			s.armed = d;
			Push(d, kTimer, port);
		}
	}

	void Handle(const Event &e)
	{
		switch (e.kind) {
		case kWake:
			TryStart(e.port);
			break;
		case kSendDone:
			senders_[e.port].busy = false;
			Arrive(e.port);
			TryStart(e.port);
			break;
		case kEgressDone:
			Release(e.port);
			break;
		case kUnstall:
			egress_[e.port].unstall_pushed = false;
			StartEgress(e.port);
			break;
		case kPfcRx:
			ll_port_pause_rx(&senders_[e.port].gate, now_, &e.frame,
					 nc_.rate_bps[e.port]);
			TryStart(e.port);
			break;
		case kTimer:
			if (senders_[e.port].armed == e.t)
				senders_[e.port].armed = LL_MMU_NEVER;
			ll_mmu_port_timer(pool(), e.port, now_);
			ServicePfc(e.port);
			break;
		case kToggle: {
			if (now_ >= nc_.stop_ns)
				break;
			Class &c = senders_[e.port].classes[e.arg];
			c.active = !c.active;
			if (c.active)
				c.dest = HeavyDest();
			if (rng_() % 8 == 0)
				hot_ = rng_() % heavy_;
			Push(now_ + 10000 + rng_() % (c.active ? 600000 : 300000), kToggle,
			     e.port, e.arg);
			TryStart(e.port);
			break;
		}
		}
	}

	void Check()
	{
		const ll_mmu_pool *p = pool();
		ExpectInvariants(p);
		ExpectDshInvariants(p);
		if (::testing::Test::HasFatalFailure())
			return;
		for (ll_u32 port = 0; port < nc_.ports; port++) {
			const ll_mmu_port &pt = p->ports[port];
			for (ll_u32 prio = 0; prio < 8; prio++) {
				const ll_mmu_iq &iq = pt.iq[prio];
				ASSERT_EQ(iq.reserved_used + iq.shared_used + iq.headroom_used,
					  in_bytes_[port][prio]);
				ASSERT_EQ(pt.eq[prio].bytes, eg_bytes_[port][prio]);
			}
			const ll_dsh_port_state &st = pt.sch.dsh;
			ll_u8 q_new = (ll_u8)(st.qoff & ~qoff_[port]);
			counts_.queue_pauses += Popcount(q_new);
			if (st.poff && !poff_[port])
				counts_.port_pauses++;
			if (Light(port) && pt.pfc.want && !light_paused_[port]) {
				counts_.light_pauses++;
				light_paused_[port] = true;
			}
			if (!pt.pfc.want)
				light_paused_[port] = false;
			qoff_[port] = st.qoff;
			poff_[port] = st.poff;
			if (pt.headroom_used * (counts_.phi ? counts_.phi : 1) >
			    counts_.peak_insurance * pt.headroom_bytes) {
				counts_.peak_insurance = pt.headroom_used;
				counts_.phi = pt.headroom_bytes;
			}
		}
	}

	void Finish()
	{
		ExpectEmpty(pool());
		ExpectInvariants(pool());
		for (ll_u32 port = 0; port < nc_.ports; port++) {
			const ll_mmu_port &pt = pool()->ports[port];
			EXPECT_EQ(pt.pfc.told, 0) << "port " << port;
			EXPECT_EQ(pt.sch.dsh.qoff, 0) << "port " << port;
			EXPECT_EQ(pt.sch.dsh.poff, 0) << "port " << port;
			EXPECT_EQ(ll_dsh_port_shared(pool(), port), 0u);
			EXPECT_EQ(ll_mmu_pfc_next_deadline(pool(), port), LL_MMU_NEVER);
			ll_port_pause_expire(&senders_[port].gate, now_);
			EXPECT_EQ(ll_port_pause_closed_mask(&senders_[port].gate), 0u)
				<< "upstream of port " << port << " still paused";
			for (ll_u32 q = 0; q < 8; q++)
				EXPECT_TRUE(egress_[port].q[q].empty());
		}
		EXPECT_EQ(pool()->ctr.release_anomalies, 0u);
		EXPECT_EQ(pool()->ctr.drops_invalid, 0u);
	}

	NetConfig nc_;
	std::mt19937_64 rng_;
	PoolMem mem_;
	ll_mmu_port_config pc_[kMaxPorts];
	std::vector<ll_u32> lossless_;
	ll_u32 heavy_ = 0, hot_ = 0;
	Sender senders_[kMaxPorts];
	Egress egress_[kMaxPorts];
	FrameModel frames_;
	std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
	ll_u64 seq_ = 0, now_ = 0;
	ll_u64 in_bytes_[kMaxPorts][8] = {}, eg_bytes_[kMaxPorts][8] = {};
	ll_u8 qoff_[kMaxPorts] = {};
	ll_u8 poff_[kMaxPorts] = {};
	bool light_paused_[kMaxPorts] = {};
	bool first_drop_reported_ = false;
	NetCounts counts_;
};

ll_u32 PickOf(std::mt19937_64 &rng, std::initializer_list<ll_u32> v)
{
	return *(v.begin() + rng() % v.size());
}

// A congested switch with a small shared region: queue pauses, port
// pauses and insurance all in use. Mixed speeds, 1 to 7 lossless classes.
NetConfig StressConfig(ll_u64 seed)
{
	std::mt19937_64 rng(seed * 7919);
	NetConfig nc;
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
	nc.dsh.window_ns = PickOf(rng, {20000, 200000, 0});
	nc.dsh.ewma_shift = PickOf(rng, {0, 0, 1, 3});
	nc.dsh.deviation_gain = PickOf(rng, {0, 0, 1, 8});
	nc.dsh.flags = PickOf(rng, {0, 0, 0, LL_DSH_F_STATIC_TAU,
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
		Net net(StressConfig(seed), seed);
		NetCounts n = net.Run();
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.drops_lossless, 0u);
		EXPECT_LE(n.peak_insurance, n.phi);
		total.Add(n);
	}
	total.Print("dsh network, 10 seeds");
	// Not vacuous: the insurance, both pause levels and frames were used.
	EXPECT_GT(total.admitted, 50000u);
	EXPECT_GT(total.insurance_admits, 1000u);
	EXPECT_GT(total.port_pauses, 100u);
	EXPECT_GT(total.queue_pauses, 1000u);
	EXPECT_GT(total.drops_lossy, 0u);
	// The tightest run came within a few frames of its Phi.
	EXPECT_GT(total.peak_insurance * 2, total.phi);
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
		nc.dsh.flags &= ~LL_DSH_F_NO_INSURANCE;
		Net net(nc, seed);
		NetCounts n = net.Run();
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
	nc.dsh.flags = 0;
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
		Net net(nc, seed);
		NetCounts n = net.Run();
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
		Net net(nc, seed);
		NetCounts n = net.Run();
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
		nc.dsh.flags = flags;
		Net net(nc, 42);
		NetCounts n = net.Run();
		if (HasFatalFailure())
			return;
		EXPECT_EQ(n.drops_lossless, 0u);
		EXPECT_GE(n.queue_pauses, 4u);
		if (flags == LL_DSH_F_STATIC_TAU) {
			EXPECT_EQ(n.port_pauses, 0u);
			EXPECT_EQ(n.insurance_admits, 0u);
		}
		std::printf("4 classes of one port congested, %s: queue pauses %llu, port "
			    "pauses %llu, insurance admits %llu\n",
			    flags ? "tau = Phi" : "estimator",
			    (unsigned long long)n.queue_pauses,
			    (unsigned long long)n.port_pauses,
			    (unsigned long long)n.insurance_admits);
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
			now_ += rng_() % (rng_() % 50 ? 3000 : 300000);
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
			CheckModel();
		}
		Finish();
	}

	ll_u64 insurance_admits = 0, drops_lossless = 0, busy_refusals = 0, ticks = 0;

private:
	static constexpr ll_u32 kPorts = 6;
	struct Held {
		ll_mmu_charge c;
		bool in_live, eg_live;
	};

	ll_mmu_config RandomConfig()
	{
		ll_mmu_config c{};
		c.max_ports = kPorts;
		c.mtu_bytes = kMtu;
		c.reserved_bytes = PickOf(rng_, {0, 1500, 3000});
		static const ll_mmu_alpha alphas[] = {{1, 4}, {1, 3}, {1, 1}, {1, 0}, {2, 0}};
		c.alpha = alphas[rng_() % 5];
		c.egress_alpha = alphas[rng_() % 5];
		c.xon_offset_bytes = PickOf(rng_, {0, 3000});
		c.xon_bytes = PickOf(rng_, {0, 0, 2000});
		c.lossless_mask = (ll_u8)PickOf(rng_, {0x08, 0x1E, 0x09, 0xFF});
		c.release_order = (ll_u8)(rng_() % 2);
		c.xoff_quanta = (ll_u16)PickOf(rng_, {0, 100});
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
			held_.push_back({c, true, true});
			in_bytes_[in][prio] += bytes;
			eg_bytes_[eg][q] += bytes;
			ExpectDshHysteresis(pool(), in, prio);
			now_ += rng_() % 200;
		}
	}

	void DoRelease()
	{
		if (held_.empty())
			return;
		size_t i = rng_() % held_.size();
		Held h = held_[i];
		held_[i] = held_.back();
		held_.pop_back();
		ll_u32 ev = ll_mmu_release(pool(), &h.c, now_);
		if (h.in_live)
			in_bytes_[h.c.in_port][h.c.prio] -= h.c.bytes;
		if (h.eg_live)
			eg_bytes_[h.c.eg_port][h.c.eg_queue] -= h.c.bytes;
		if (h.in_live) {
			ExpectDshHysteresis(pool(), h.c.in_port, h.c.prio);
			ASSERT_EQ((ev & LL_MMU_EV_PFC_DUE) != 0,
				  ll_mmu_pfc_due(pool(), h.c.in_port, now_) != 0);
		}
		if ((ev & LL_MMU_EV_SWEEP) && rng_() % 2)
			DoSweep();
	}

	void DoSweep()
	{
		ll_u64 due = ll_mmu_sweep(pool(), now_);
		for (ll_u32 port = 0; port < kPorts; port++) {
			for (ll_u32 prio = 0; prio < 8; prio++)
				ExpectDshHysteresis(pool(), port, prio);
			ASSERT_EQ((due >> port) & 1, (ll_u64)ll_mmu_pfc_due(pool(), port, now_));
		}
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
		ll_mmu_pool *p = pool();
		ll_mac_ctrl f;
		int due = ll_mmu_pfc_due(p, port, now_);
		int got = ll_mmu_pfc_take(p, port, now_, &f);
		ASSERT_EQ(got, due);
		if (!got)
			return;
		frames_.Taken(p, port, now_, f);
		bool sent = rng_() % 10 != 0;
		ll_mmu_pfc_complete(p, port, sent, now_);
		if (sent)
			frames_.Sent(p, port, now_, f);
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
		ll_u32 port = rng_() % kPorts;
		if (!pool()->ports[port].attached) {
			if (Attach(port) == LL_MMU_OK)
				frames_.told[port] = 0;
			return;
		}
		ll_u8 told = ll_mmu_port_detach(pool(), port, now_);
		ASSERT_EQ(told, frames_.told[port]);
		frames_.told[port] = 0;
		for (Held &h : held_) {
			if (h.in_live && h.c.in_port == port) {
				h.in_live = false;
				in_bytes_[port][h.c.prio] -= h.c.bytes;
			}
			if (h.eg_live && h.c.eg_port == port) {
				h.eg_live = false;
				eg_bytes_[port][h.c.eg_queue] -= h.c.bytes;
			}
		}
		if (rng_() % 2)
			Attach(port);
	}

	void CheckModel()
	{
		const ll_mmu_pool *p = pool();
		for (ll_u32 port = 0; port < kPorts; port++) {
			if (!p->ports[port].attached)
				continue;
			for (ll_u32 prio = 0; prio < 8; prio++) {
				const ll_mmu_iq &iq = p->ports[port].iq[prio];
				ASSERT_EQ(iq.reserved_used + iq.shared_used + iq.headroom_used,
					  in_bytes_[port][prio]);
			}
			for (ll_u32 q = 0; q < LL_MMU_MAX_QUEUES; q++)
				ASSERT_EQ(p->ports[port].eq[q].bytes, eg_bytes_[port][q]);
		}
	}

	void Finish()
	{
		std::shuffle(held_.begin(), held_.end(), rng_);
		while (!held_.empty() && !::testing::Test::HasFatalFailure())
			DoRelease();
		ExpectEmpty(pool());
		for (ll_u32 port = 0; port < kPorts; port++)
			if (!pool()->ports[port].attached)
				Attach(port);
		DoSweep();
		for (ll_u32 port = 0; port < kPorts; port++) {
			for (int tries = 0; tries < 4 && ll_mmu_pfc_due(pool(), port, now_); tries++) {
				ll_mac_ctrl f;
				ll_mmu_pfc_take(pool(), port, now_, &f);
				ll_mmu_pfc_complete(pool(), port, 1, now_);
			}
			EXPECT_EQ(pool()->ports[port].pfc.told, 0) << "port " << port;
			EXPECT_EQ(pool()->ports[port].pfc.want, 0) << "port " << port;
			EXPECT_EQ(pool()->ports[port].sch.dsh.qoff, 0);
			EXPECT_EQ(pool()->ports[port].sch.dsh.poff, 0);
			EXPECT_EQ(ll_mmu_pfc_next_deadline(pool(), port), LL_MMU_NEVER);
		}
		EXPECT_EQ(pool()->ctr.release_anomalies, 0u);
	}

	std::mt19937_64 rng_;
	PoolMem mem_;
	ll_mmu_config cfg_;
	ll_u64 now_ = 1;
	std::vector<Held> held_;
	ll_u64 in_bytes_[kPorts][8] = {};
	ll_u64 eg_bytes_[kPorts][LL_MMU_MAX_QUEUES] = {};
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
