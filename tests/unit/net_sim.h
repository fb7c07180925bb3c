// A simulated switch network around one MMU pool, for the randomised
// property tests of the schemes (dsh_property_test.cpp,
// spfc_property_test.cpp): ports whose upstream senders transmit at line
// rate on several classes (the real receive side of PFC, pause.c, closes
// their gates), bursty and incast traffic, egress ports stalled at random
// by their own downstream, and PFC frames that take effect up to a
// modelled delay after the MMU decides.
//
// The scheme under test plugs its checks in through NetHooks: the verdict
// it must give for each arrival (restated from the state before it), what
// it checks around each MMU call (admit, release, sweep, the port timer),
// its hysteresis on every queue just evaluated, its invariants after every
// event and its state at the end. Net itself checks, after every event,
// mmu_fixture.h's accounting invariants and the bytes of every ingress and
// egress queue against a model of the packets held, that every PFC frame
// is a change or a due refresh, that a release that brings a port's
// deadline earlier says so (LL_MMU_EV_PFC_DUE or LL_MMU_EV_TIMER: what the
// kernel kicks the port's timer on), and at the end that every counter is
// back to 0, every upstream was told XON and every timer stopped.
#pragma once

#include "mmu_fixture.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <queue>
#include <random>

extern "C" {
#include "scheme.h"
}

namespace net_sim {

using namespace mmu_test;

constexpr ll_u32 kMaxPorts = 8;
constexpr ll_u32 kMtu = 1500;

inline ll_u32 PickOf(std::mt19937_64 &rng, std::initializer_list<ll_u32> v)
{
	return *(v.begin() + rng() % v.size());
}

// What upstreams were told, to check that no frame is a duplicate.
struct FrameModel {
	ll_u8 told[kMaxPorts] = {};
	ll_u64 last_xoff[kMaxPorts] = {};
	ll_u64 refresh[kMaxPorts] = {};

	// A frame just taken on port: its XOFF set is the wish, and it is a
	// change or a due refresh.
	void Taken(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now, const ll_ctrl_msg &f)
	{
		ASSERT_EQ(f.kind, LL_CTRL_PFC);
		ll_u8 xoff = 0, changes = 0;
		for (ll_u32 i = 0; i < 8; i++) {
			if (f.value[i])
				xoff |= (ll_u8)(1u << i);
			if (!((f.gate_mask >> i) & 1)) {
				ASSERT_EQ(f.value[i], 0);
				continue;
			}
			if ((bool)f.value[i] != (bool)((told[port] >> i) & 1))
				changes |= (ll_u8)(1u << i);
		}
		ASSERT_EQ(xoff, pool->ports[port].xoff.want);
		bool refresh_due = told[port] && now >= last_xoff[port] + refresh[port];
		ASSERT_TRUE(changes || refresh_due) << "duplicate frame, port " << port;
	}
	void Sent(const ll_mmu_pool *pool, ll_u32 port, ll_u64 now, const ll_ctrl_msg &f)
	{
		ll_u8 xoff = 0;
		for (ll_u32 i = 0; i < 8; i++)
			if (f.value[i])
				xoff |= (ll_u8)(1u << i);
		told[port] = (ll_u8)((told[port] & ~f.gate_mask) | xoff);
		if (xoff) {
			last_xoff[port] = now;
			refresh[port] = pool->ports[port].xoff.refresh_ns;
		}
		ASSERT_EQ(pool->ports[port].xoff.told, told[port]);
	}
	// The port's frame claimed, exactly when one is due, and sent (or
	// the send fails, one time in ten).
	void Service(ll_mmu_pool *pool, ll_u32 port, ll_u64 now, std::mt19937_64 &rng)
	{
		ll_ctrl_msg f;
		int due = ll_mmu_ctrl_due(pool, port, now);
		int got = ll_mmu_ctrl_take(pool, port, now, &f);
		ASSERT_EQ(got, due);
		if (!got)
			return;
		Taken(pool, port, now, f);
		bool sent = rng() % 10 != 0;
		ll_mmu_ctrl_complete(pool, port, sent, now);
		if (sent)
			Sent(pool, port, now, f);
	}
};

// The random-order tests' configuration before the scheme's part: reserve,
// alphas, XON offset and floor, lossless set, release order, quanta.
inline ll_mmu_config RandomBaseConfig(std::mt19937_64 &rng, ll_u32 ports)
{
	ll_mmu_config c{};
	c.max_ports = ports;
	c.mtu_bytes = kMtu;
	c.reserved_bytes = PickOf(rng, {0, 1500, 3000});
	static const ll_mmu_alpha alphas[] = {{1, 4}, {1, 3}, {1, 1}, {1, 0}, {2, 0}};
	c.alpha = alphas[rng() % 5];
	c.egress_alpha = alphas[rng() % 5];
	c.xon_offset_bytes = PickOf(rng, {0, 3000});
	c.xon_bytes = PickOf(rng, {0, 0, 2000});
	c.lossless_mask = (ll_u8)PickOf(rng, {0x08, 0x1E, 0x09, 0xFF});
	c.release_order = (ll_u8)(rng() % 2);
	c.xoff_quanta = (ll_u16)PickOf(rng, {0, 100});
	return c;
}

// Ports, in order: heavy (the first `victims` of them victim ports), then
// `light`, then `sinks`.
struct NetConfig {
	ll_u32 ports = 8;
	ll_u32 light = 0;		// uncongested: bursts to each other
	ll_u8 lossless_mask = 0x1E;
	ll_u64 rate_bps[kMaxPorts] = {};
	ll_u64 react_ns = 5000;		// a frame takes effect within this
	ll_u64 phi_react_ns = 5000;	// what the headroom (the formula) is sized for
	ll_u64 shared_bytes = 1000000;	// B_s once every port is attached
	ll_u32 reserved_bytes = 1500;
	ll_u32 xon_offset_bytes = 0;
	ll_mmu_alpha alpha{1, 3};
	ll_mmu_alpha egress_alpha{1, 2};
	ll_u8 release_order = LL_MMU_RELEASE_DRAIN;
	ll_u16 xoff_quanta = 0;
	ll_u8 scheme = LL_SCHEME_DT;
	ll_scheme_params params{};
	ll_u64 stop_ns = 2000000;
	ll_u32 stall_per_mille = 5;	// chance an egress stalls after a packet
	ll_u64 stall_max_ns = 300000;
	bool lossy = true;		// heavy ports also send a lossy class
	bool all_classes = false;	// heavy ports send every lossless class
	ll_u32 silent = 0;		// the first `silent` ports send nothing
	bool one_hot = false;		// class k to egress k % silent, held
	ll_u32 sinks = 0;		// receive only, never stalled (spfc's R1)
	ll_u32 victims = 0;		// heavy ports sending to a sink and hot
	ll_u32 victim_hot_per_mille = 300;	// a victim's share to the hot port
	// Call every scheme hook for every packet, lossy ones too (all of
	// pool->scheme_hooks set, LL_SCHEME_HOOK_LOSSY included),
	// and give every admission the clock: what the hooks mask saves must
	// change nothing (scheme_test.cpp's SchemeHooks).
	bool all_hooks = false;
};

struct NetCounts {
	ll_u64 admitted = 0, headroom_admits = 0, drops_lossless = 0, drops_lossy = 0;
	ll_u64 frames = 0, pauses = 0, light_pauses = 0;
	ll_u64 queue_pauses = 0, port_pauses = 0;	// the scheme's (NetHooks::Count)
	// The highest headroom peak relative to its port's headroom.
	ll_u64 peak_headroom = 0, headroom = 0;
	ll_u64 light_packets = 0;
	void Add(const NetCounts &o)
	{
		admitted += o.admitted;
		headroom_admits += o.headroom_admits;
		drops_lossless += o.drops_lossless;
		drops_lossy += o.drops_lossy;
		frames += o.frames;
		pauses += o.pauses;
		queue_pauses += o.queue_pauses;
		port_pauses += o.port_pauses;
		light_pauses += o.light_pauses;
		light_packets += o.light_packets;
		if (o.peak_headroom * (headroom ? headroom : 1) >=
		    peak_headroom * (o.headroom ? o.headroom : 1)) {
			peak_headroom = o.peak_headroom;
			headroom = o.headroom;
		}
	}
	void Print(const char *what) const
	{
		std::printf("%s: admitted %llu (headroom %llu), lossless drops %llu, lossy "
			    "drops %llu, frames %llu, pauses %llu (queue %llu, port %llu), "
			    "light-port pauses %llu of %llu packets, peak headroom %llu of "
			    "%llu\n",
			    what, (unsigned long long)admitted,
			    (unsigned long long)headroom_admits,
			    (unsigned long long)drops_lossless,
			    (unsigned long long)drops_lossy, (unsigned long long)frames,
			    (unsigned long long)pauses, (unsigned long long)queue_pauses,
			    (unsigned long long)port_pauses, (unsigned long long)light_pauses,
			    (unsigned long long)light_packets,
			    (unsigned long long)peak_headroom, (unsigned long long)headroom);
	}
};

// The scheme's checks, called by Net around every MMU call and event.
class NetHooks {
public:
	virtual ~NetHooks() = default;
	// Before ll_mmu_admit(): the verdict the scheme must give.
	virtual ll_mmu_verdict PreAdmit(const ll_mmu_pool *pool, ll_u32 in, ll_u32 prio,
					ll_u32 eg, ll_u32 q, ll_u32 bytes, ll_u64 now) = 0;
	virtual void PostAdmit(const ll_mmu_pool *, ll_u32 /*in*/, ll_u32 /*prio*/,
			       ll_u32 /*bytes*/, ll_mmu_verdict, ll_u64 /*now*/) {}
	virtual void PreRelease(const ll_mmu_pool *, const ll_mmu_charge &, ll_u64) {}
	virtual void PostRelease(const ll_mmu_pool *, const ll_mmu_charge &, ll_u64) {}
	virtual void PreSweep(const ll_mmu_pool *, ll_u64) {}
	virtual void PostSweep(const ll_mmu_pool *, ll_u64) {}
	virtual void PreTimer(const ll_mmu_pool *, ll_u32 /*port*/, ll_u64) {}
	virtual void PostTimer(const ll_mmu_pool *, ll_u32 /*port*/, ll_u64) {}
	// (port, prio) was just evaluated: its pause conditions hold.
	virtual void Touched(const ll_mmu_pool *, ll_u32 /*port*/, ll_u32 /*prio*/) {}
	// After every event.
	virtual void Invariants(const ll_mmu_pool *) {}
	virtual void Count(const ll_mmu_pool *, NetCounts &) {}
	// Headroom bytes of port to compare with its headroom_bytes: the
	// fullest queue's (per-queue headroom, DT's), or the port's (DSH's).
	virtual ll_u64 HeadroomUse(const ll_mmu_pool *pool, ll_u32 port)
	{
		ll_u64 m = 0;
		for (ll_u32 q = 0; q < LL_MMU_PRIOS; q++)
			m = std::max(m, pool->ports[port].iq[q].headroom_used);
		return m;
	}
	// At the end, every packet released.
	virtual void Finish(const ll_mmu_pool *) {}
};

class Net {
public:
	Net(const NetConfig &nc, ll_u64 seed, NetHooks &hooks)
		: nc_(nc), hooks_(hooks), rng_(seed), mem_(nc.ports)
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
		c.scheme = nc.scheme;
		c.scheme_params = nc.params;
		c.total_bytes = LL_MMU_MAX_TOTAL_BYTES;	// to compute the headroom first
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		ll_u64 carved = 0;
		for (ll_u32 i = 0; i < nc.ports; i++) {
			pc_[i] = PortCfg(nc.rate_bps[i]);
			pc_[i].sw_response_ns = nc.phi_react_ns;	// headroom.h
			carved += ll_scheme_port_carve(&c, ll_mmu_port_headroom(pool(), &pc_[i]));
		}
		c.total_bytes = nc.shared_bytes + nc.ports * 8ull * nc.reserved_bytes + carved;
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		for (ll_u32 i = 0; i < nc.ports; i++)
			EXPECT_EQ(ll_mmu_port_attach(pool(), i, &pc_[i], 0), LL_MMU_OK);
		EXPECT_EQ(pool()->shared_size, nc.shared_bytes);
		if (nc.all_hooks)
			pool()->scheme_hooks = ~0u;
		for (ll_u32 p = 0; p < 8; p++)
			if ((nc.lossless_mask >> p) & 1)
				lossless_.push_back(p);
		heavy_ = nc.ports - nc.light - nc.sinks;
		for (ll_u32 i = 0; i < nc.ports; i++)
			SetupSender(i);
	}

	ll_mmu_pool *pool() { return mem_.get(); }
	ll_u64 now() const { return now_; }

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
		ll_ctrl_msg frame;
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

	bool Sink(ll_u32 port) const { return port >= nc_.ports - nc_.sinks; }
	bool Light(ll_u32 port) const { return port >= heavy_ && !Sink(port); }
	bool Victim(ll_u32 port) const { return port < nc_.victims && port < heavy_; }

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
		if (i < nc_.silent || Sink(i))
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

	void Push(ll_u64 t, Kind k, ll_u32 port, ll_u32 arg = 0, const ll_ctrl_msg *f = nullptr)
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
		if (Victim(i))	// a flow to an idle output, one to the hot one
			s.dest = rng_() % 1000 < nc_.victim_hot_per_mille
					 ? hot_
					 : nc_.ports - nc_.sinks + i % nc_.sinks;
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
		ll_mmu_verdict want = hooks_.PreAdmit(pool(), in, prio, eg, prio, bytes, now_);
		ll_mmu_charge c;
		// As the kernel: no clock for a scheme that does not read it.
		ll_u64 t = ll_scheme_admit_needs_clock(pool(), prio) ? now_ : 0;
		ll_mmu_verdict v = ll_mmu_admit(pool(), in, prio, eg, prio, bytes, t, &c);
		ASSERT_EQ(v, want) << "in " << in << " prio " << prio << " bytes " << bytes;
		hooks_.PostAdmit(pool(), in, prio, bytes, v, now_);
		if (::testing::Test::HasFatalFailure())
			return;
		if (v == LL_MMU_DROP_LOSSLESS && !first_drop_reported_) {
			first_drop_reported_ = true;
			std::printf("first lossless drop: port %u prio %u at %llu ns, "
				    "headroom %llu (port %llu) of %llu\n",
				    in, prio, (unsigned long long)now_,
				    (unsigned long long)pool()->ports[in].iq[prio].headroom_used,
				    (unsigned long long)pool()->ports[in].headroom_used,
				    (unsigned long long)pool()->ports[in].headroom_bytes);
		}
		ServicePfc(in);
		if (!ll_mmu_admitted(v))
			return;
		hooks_.Touched(pool(), in, prio);
		counts_.admitted++;
		if (v == LL_MMU_ADMIT_HEADROOM)
			counts_.headroom_admits++;
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

	void Sweep()
	{
		hooks_.PreSweep(pool(), now_);
		ll_u64 due = ll_mmu_sweep(pool(), now_);
		hooks_.PostSweep(pool(), now_);
		for (ll_u32 port = 0; port < nc_.ports; port++) {
			for (ll_u32 prio : lossless_)
				hooks_.Touched(pool(), port, prio);
			if ((due >> port) & 1)
				ServicePfc(port);
		}
	}

	void Release(ll_u32 o)
	{
		Egress &e = egress_[o];
		e.busy = false;
		ll_mmu_charge c = e.q[e.serving].front();
		e.q[e.serving].pop_front();
		ll_u64 before = ll_mmu_ctrl_next_deadline(pool(), c.in_port);
		hooks_.PreRelease(pool(), c, now_);
		ll_u32 ev = ll_mmu_release(pool(), &c, now_);
		hooks_.PostRelease(pool(), c, now_);
		// A deadline that came earlier is reported: the kernel kicks the
		// port on these flags only.
		if (ll_mmu_ctrl_next_deadline(pool(), c.in_port) < before) {
			ASSERT_NE(ev & (LL_MMU_EV_PFC_DUE | LL_MMU_EV_TIMER), 0u)
				<< "port " << c.in_port << " at " << now_;
		}
		in_bytes_[c.in_port][c.prio] -= c.bytes;
		eg_bytes_[o][c.eg_queue] -= c.bytes;
		hooks_.Touched(pool(), c.in_port, c.prio);
		ASSERT_EQ((ev & LL_MMU_EV_PFC_DUE) != 0,
			  ll_mmu_ctrl_due(pool(), c.in_port, now_) != 0);
		ServicePfc(c.in_port);
		if (ev & LL_MMU_EV_SWEEP)
			Sweep();
		// The egress's own downstream stops it now and then.
		if (!Light(o) && !Sink(o) && now_ < nc_.stop_ns &&
		    rng_() % 1000 < nc_.stall_per_mille)
			e.stalled_until = now_ + 1000 + rng_() % nc_.stall_max_ns;
		StartEgress(o);
	}

	void Timer(ll_u32 port)
	{
		hooks_.PreTimer(pool(), port, now_);
		ll_mmu_port_timer(pool(), port, now_);
		hooks_.PostTimer(pool(), port, now_);
	}

	// Frames the MMU has for port, sent at once and applied by its
	// upstream's gates up to react_ns later, in order; the port's timer.
	void ServicePfc(ll_u32 port)
	{
		Sender &s = senders_[port];
		for (int i = 0; i < 4; i++) {
			ll_u64 d = ll_mmu_ctrl_next_deadline(pool(), port);
			if (d > now_)
				break;
			if (d && !ll_mmu_ctrl_due(pool(), port, now_))
				Timer(port);
			ll_ctrl_msg f;
			if (!ll_mmu_ctrl_take(pool(), port, now_, &f))
				continue;
			frames_.Taken(pool(), port, now_, f);
			ll_mmu_ctrl_complete(pool(), port, 1, now_);
			frames_.Sent(pool(), port, now_, f);
			counts_.frames++;
			s.last_rx = std::max(s.last_rx, now_ + rng_() % (nc_.react_ns + 1));
			Push(s.last_rx, kPfcRx, port, 0, &f);
		}
		ll_u64 d = ll_mmu_ctrl_next_deadline(pool(), port);
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
			Timer(e.port);
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
		hooks_.Invariants(p);
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
			counts_.pauses += Popcount((ll_u8)(pt.xoff.want & ~want_[port]));
			want_[port] = pt.xoff.want;
			if (Light(port) && pt.xoff.want && !light_paused_[port]) {
				counts_.light_pauses++;
				light_paused_[port] = true;
			}
			if (!pt.xoff.want)
				light_paused_[port] = false;
			ll_u64 used = hooks_.HeadroomUse(p, port);
			if (used * (counts_.headroom ? counts_.headroom : 1) >
			    counts_.peak_headroom * pt.headroom_bytes) {
				counts_.peak_headroom = used;
				counts_.headroom = pt.headroom_bytes;
			}
		}
		hooks_.Count(p, counts_);
	}

	void Finish()
	{
		ExpectEmpty(pool());
		ExpectInvariants(pool());
		for (ll_u32 port = 0; port < nc_.ports; port++) {
			const ll_mmu_port &pt = pool()->ports[port];
			EXPECT_EQ(pt.xoff.told, 0) << "port " << port;
			EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool(), port), LL_MMU_NEVER)
				<< "port " << port;
			ll_port_pause_expire(&senders_[port].gate, now_);
			EXPECT_EQ(ll_port_pause_closed_mask(&senders_[port].gate), 0u)
				<< "upstream of port " << port << " still paused";
			for (ll_u32 q = 0; q < 8; q++)
				EXPECT_TRUE(egress_[port].q[q].empty());
		}
		hooks_.Finish(pool());
		EXPECT_EQ(pool()->ctr.release_anomalies, 0u);
		EXPECT_EQ(pool()->ctr.drops_invalid, 0u);
	}

	NetConfig nc_;
	NetHooks &hooks_;
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
	ll_u8 want_[kMaxPorts] = {};
	bool light_paused_[kMaxPorts] = {};
	bool first_drop_reported_ = false;
	NetCounts counts_;
};

} // namespace net_sim
