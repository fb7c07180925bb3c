// Incast through the MMU, a discrete-event simulation that uses only the
// core: 8 senders -> one switch -> 1 receiver, every link at rate R.
//
//   sender i --(cable)--> switch port i --MMU--> egress port 8 --> receiver
//      ^                      |
//      +------ PFC frame -----+  (64 B at R + cable + software reaction)
//
// Senders transmit 1500-byte frames back to back on lossless priority 3
// whenever their pause gate (kernel/core/pause.c, the receive side of PFC)
// is open, and finish a frame they have started (no preemption). The
// switch admits each frame when it has fully arrived, sends the PFC frames
// the MMU hands out (a change, or a refresh on the port timer), and the
// egress port drains one frame at a time at R, releasing it.
//
// Claims checked: zero loss while senders react within the software
// response the headroom was sized for; peak headroom per queue within the
// computed headroom (headroom.h); the bottleneck stays busy; pauses are
// refreshed through a long stall of the egress; every counter is 0 and
// every upstream told XON after the traffic stops. A sender slower than
// the headroom assumes does overflow it (the simulation can fail).
#include "mmu_fixture.h"

#include <deque>
#include <queue>

namespace {

using namespace mmu_test;

constexpr ll_u32 kSenders = 8;
constexpr ll_u32 kEgress = kSenders;	// port 8
constexpr ll_u32 kFrame = 1500;

struct SimParams {
	ll_u64 rate_bps = kGbit;
	ll_u64 cable_ns = 5000;
	ll_u64 sw_response_ns = 50000;		// what the headroom is sized for
	ll_u64 sender_reaction_ns = 50000;	// what the senders really take
	ll_u64 reverse_wait_ns = 0;		// PFC behind a data frame upstream
	ll_u64 shared_bytes = 50000;
	ll_u32 reserved_bytes = 1500;
	ll_u32 xon_offset_bytes = 3000;
	ll_mmu_alpha alpha{1, 3};
	ll_u64 stop_ns = 100000000;		// senders stop starting frames
	ll_u64 stall_from_ns = 0, stall_to_ns = 0;	// egress stopped
};

struct SimResult {
	ll_u64 sent = 0, delivered = 0, drops = 0;
	ll_u64 headroom_bytes = 0;
	ll_u64 peak_headroom = 0;		// max over the 8 queues
	double utilisation = 0;
	ll_u64 xoff = 0, xon = 0, refresh = 0;
	ll_u64 frames_rx_at_senders = 0;
};

class IncastSim {
public:
	explicit IncastSim(const SimParams &sp) : sp_(sp), mem_(kSenders + 1)
	{
		ll_mmu_config c{};
		c.max_ports = kSenders + 1;
		c.mtu_bytes = kFrame;
		c.reserved_bytes = sp.reserved_bytes;
		c.xon_offset_bytes = sp.xon_offset_bytes;
		c.alpha = sp.alpha;
		c.egress_alpha = {1, 0};
		c.lossless_mask = 1u << kLosslessPrio;
		pc_ = PortCfg(sp.rate_bps);
		pc_.cable_delay_ns = sp.cable_ns;
		pc_.sw_response_ns = sp.sw_response_ns;
		c.total_bytes = 1 << 30;	// only to compute the headroom
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		headroom_ = ll_mmu_port_headroom(pool(), &pc_);
		c.total_bytes = sp.shared_bytes +
				(kSenders + 1) * (8ull * sp.reserved_bytes + headroom_);
		EXPECT_EQ(ll_mmu_pool_init(pool(), &c), LL_MMU_OK);
		for (ll_u32 i = 0; i <= kSenders; i++)
			EXPECT_EQ(ll_mmu_port_attach(pool(), i, &pc_, 0), LL_MMU_OK);
		EXPECT_EQ(pool()->shared_size, sp.shared_bytes);
		std::memset(senders_, 0, sizeof(senders_));
		frame_ns_ = kFrame * 8ull * LL_NSEC_PER_SEC / sp.rate_bps;
		pfc_tx_ns_ = 64 * 8ull * LL_NSEC_PER_SEC / sp.rate_bps;
	}

	ll_mmu_pool *pool() { return mem_.get(); }

	SimResult Run()
	{
		// Senders start within one frame time of each other.
		for (ll_u32 i = 0; i < kSenders; i++)
			Push(i * frame_ns_ / kSenders, kSenderReady, i);
		while (!events_.empty() && !::testing::Test::HasFatalFailure()) {
			Event e = events_.top();
			events_.pop();
			now_ = e.t;
			// Everything drains within a second of the senders stopping
			// unless a pause never ends (refreshed forever): a failure.
			if (now_ > sp_.stop_ns + LL_NSEC_PER_SEC) {
				ADD_FAILURE() << "still running 1 s after the senders stopped";
				break;
			}
			Handle(e);
		}
		SimResult r;
		r.headroom_bytes = headroom_;
		for (ll_u32 i = 0; i < kSenders; i++) {
			r.sent += senders_[i].sent;
			ll_mmu_iq_stats st;
			EXPECT_EQ(ll_mmu_get_iq_stats(pool(), i, kLosslessPrio, now_, &st), 0);
			r.peak_headroom = std::max(r.peak_headroom, st.peak_headroom);
			r.xoff += st.xoff_frames;
			r.xon += st.xon_frames;
			r.refresh += st.xoff_refreshes;
			r.frames_rx_at_senders += senders_[i].frames_rx;
		}
		r.delivered = delivered_;
		r.drops = drops_;
		ll_u64 window = sp_.stop_ns - first_arrival_ - (sp_.stall_to_ns - sp_.stall_from_ns);
		r.utilisation = (double)busy_ns_ / (double)window;
		return r;
	}

private:
	enum Kind { kSenderReady, kSenderDone, kArrive, kEgressDone, kPfcRx, kTimer, kUnstall };
	struct Event {
		ll_u64 t;
		ll_u64 seq;
		Kind kind;
		ll_u32 port;
		ll_ctrl_msg frame;
		bool operator>(const Event &o) const
		{
			return t != o.t ? t > o.t : seq > o.seq;
		}
	};
	struct Sender {
		ll_port_pause gate;
		bool busy;
		ll_u64 sent;
		ll_u64 frames_rx;
	};

	void Push(ll_u64 t, Kind k, ll_u32 port, const ll_ctrl_msg *f = nullptr)
	{
		Event e{t, seq_++, k, port, {}};
		if (f)
			e.frame = *f;
		events_.push(e);
	}

	void TrySend(ll_u32 i)
	{
		Sender &s = senders_[i];
		if (s.busy || now_ >= sp_.stop_ns)
			return;
		ll_port_pause_expire(&s.gate, now_);
		if (ll_port_pause_closed_mask(&s.gate) & (1u << kLosslessPrio)) {
			Push(ll_port_pause_next_deadline(&s.gate), kSenderReady, i);
			return;
		}
		s.busy = true;
		Push(now_ + frame_ns_, kSenderDone, i);
	}

	void ServicePfc(ll_u32 port)
	{
		ll_ctrl_msg f;
		while (ll_mmu_ctrl_take(pool(), port, now_, &f)) {
			// The frame reaches the sender's gate after its own
			// transmission, the cable, and the sender's reaction.
			Push(now_ + sp_.reverse_wait_ns + pfc_tx_ns_ + sp_.cable_ns +
				     sp_.sender_reaction_ns,
			     kPfcRx, port, &f);
			ll_mmu_ctrl_complete(pool(), port, 1, now_);
		}
		ll_u64 d = ll_mmu_ctrl_next_deadline(pool(), port);
		if (d != LL_MMU_NEVER && d > now_)
			Push(d, kTimer, port);
	}

	bool Stalled() const
	{
		return now_ >= sp_.stall_from_ns && now_ < sp_.stall_to_ns;
	}

	void StartEgress()
	{
		if (egress_busy_ || fifo_.empty())
			return;
		if (Stalled()) {
			if (!unstall_pushed_) {
				Push(sp_.stall_to_ns, kUnstall, 0);
				unstall_pushed_ = true;
			}
			return;
		}
		egress_busy_ = true;
		Push(now_ + frame_ns_, kEgressDone, kEgress);
	}

	void Handle(const Event &e)
	{
		switch (e.kind) {
		case kSenderReady:
			TrySend(e.port);
			break;
		case kSenderDone:
			senders_[e.port].busy = false;
			senders_[e.port].sent++;
			Push(now_ + sp_.cable_ns, kArrive, e.port);
			TrySend(e.port);
			break;
		case kArrive: {
			if (!first_arrival_)
				first_arrival_ = now_;
			ll_mmu_charge c;
			ll_mmu_verdict v = ll_mmu_admit(pool(), e.port, kLosslessPrio, kEgress,
							kLosslessPrio, kFrame, now_, &c);
			if (ll_mmu_admitted(v))
				fifo_.push_back(c);
			else
				drops_++;
			ServicePfc(e.port);
			StartEgress();
			break;
		}
		case kEgressDone: {
			egress_busy_ = false;
			if (now_ <= sp_.stop_ns)
				busy_ns_ += frame_ns_;
			ll_mmu_charge c = fifo_.front();
			fifo_.pop_front();
			delivered_++;
			ll_u32 ev = ll_mmu_release(pool(), &c, now_);
			if (ev & LL_MMU_EV_PFC_DUE)
				ServicePfc(c.in_port);
			if (ev & LL_MMU_EV_SWEEP) {
				ll_u64 due = ll_mmu_sweep(pool(), now_);
				for (ll_u32 p = 0; p < kSenders; p++)
					if ((due >> p) & 1)
						ServicePfc(p);
			}
			StartEgress();
			break;
		}
		case kPfcRx:
			senders_[e.port].frames_rx++;
			ll_port_pause_rx(&senders_[e.port].gate, now_, &e.frame, sp_.rate_bps);
			TrySend(e.port);
			break;
		case kTimer:
			ServicePfc(e.port);
			break;
		case kUnstall:
			unstall_pushed_ = false;
			StartEgress();
			break;
		}
	}

	SimParams sp_;
	PoolMem mem_;
	ll_mmu_port_config pc_;
	ll_u64 headroom_ = 0;
	ll_u64 frame_ns_ = 0, pfc_tx_ns_ = 0;
	Sender senders_[kSenders];
	std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
	ll_u64 seq_ = 0, now_ = 0;
	std::deque<ll_mmu_charge> fifo_;
	bool egress_busy_ = false, unstall_pushed_ = false;
	ll_u64 first_arrival_ = 0, busy_ns_ = 0, delivered_ = 0, drops_ = 0;
};

void ExpectClean(IncastSim &sim)
{
	ExpectEmpty(sim.pool());
	ExpectInvariants(sim.pool());
	for (ll_u32 p = 0; p <= kSenders; p++) {
		EXPECT_EQ(sim.pool()->ports[p].xoff.told, 0) << "port " << p;
		EXPECT_EQ(ll_mmu_ctrl_next_deadline(sim.pool(), p), LL_MMU_NEVER);
	}
	EXPECT_EQ(sim.pool()->ctr.drops_lossy, 0u);
}

TEST(MmuIncast, EightToOneZeroLossWithinHeadroom)
{
	SimParams sp;
	IncastSim sim(sp);
	SimResult r = sim.Run();
	// 1G, 5 us cable, 50 us software: 4500 + 1250 + 64 + 128 + 6250.
	EXPECT_EQ(r.headroom_bytes, 12192u);
	EXPECT_EQ(r.drops, 0u);
	EXPECT_EQ(r.sent, r.delivered);
	EXPECT_GT(r.sent, 8000u);		// 100 ms at 1G is 8333 frames out
	EXPECT_LE(r.peak_headroom, r.headroom_bytes);
	EXPECT_GT(r.peak_headroom, 0u);		// the headroom was needed
	EXPECT_GE(r.utilisation, 0.95);
	EXPECT_GT(r.xoff, 0u);
	EXPECT_EQ(r.xoff, r.xon);		// every pause ended with an XON
	EXPECT_EQ(r.frames_rx_at_senders, r.xoff + r.xon + r.refresh);
	ExpectClean(sim);
	RecordProperty("utilisation", std::to_string(r.utilisation));
	RecordProperty("peak_headroom", std::to_string(r.peak_headroom));
	std::printf("incast 8:1 at 1G: sent %llu delivered %llu drops %llu util %.4f "
		    "peak headroom %llu / %llu, xoff %llu xon %llu refresh %llu\n",
		    (unsigned long long)r.sent, (unsigned long long)r.delivered,
		    (unsigned long long)r.drops, r.utilisation,
		    (unsigned long long)r.peak_headroom, (unsigned long long)r.headroom_bytes,
		    (unsigned long long)r.xoff, (unsigned long long)r.xon,
		    (unsigned long long)r.refresh);
}

TEST(MmuIncast, WorstCaseNeedsAllThreeMtus)
{
	// Every PFC frame waits behind a full data frame on the reverse link.
	// When the frame that crosses the threshold itself lands in headroom,
	// the queue takes 8 frames = 12,000 bytes: more than a formula with
	// two MTUs (10,692) allows, within ours (12,192).
	SimParams sp;
	sp.reverse_wait_ns = kFrame * 8;	// 1500 bytes at 1G
	IncastSim sim(sp);
	SimResult r = sim.Run();
	EXPECT_EQ(r.drops, 0u);
	EXPECT_EQ(r.sent, r.delivered);
	EXPECT_LE(r.peak_headroom, r.headroom_bytes);
	EXPECT_GT(r.peak_headroom, r.headroom_bytes - kFrame);
	EXPECT_GE(r.utilisation, 0.95);
	ExpectClean(sim);
}

TEST(MmuIncast, SoftwareSwitchAt100MbitWithOneMillisecond)
{
	// The VM's setting: 100 Mbit/s and a software reaction of 1 ms.
	SimParams sp;
	sp.rate_bps = 100 * kMbit;
	sp.cable_ns = 0;
	sp.sw_response_ns = 1000000;
	sp.sender_reaction_ns = 1000000;
	sp.shared_bytes = 30000;
	sp.stop_ns = 1000000000;
	IncastSim sim(sp);
	SimResult r = sim.Run();
	EXPECT_EQ(r.headroom_bytes, 17128u);	// headroom_test's hand value
	EXPECT_EQ(r.drops, 0u);
	EXPECT_EQ(r.sent, r.delivered);
	EXPECT_LE(r.peak_headroom, r.headroom_bytes);
	EXPECT_GE(r.utilisation, 0.95);
	ExpectClean(sim);
	std::printf("incast 8:1 at 100M, 1 ms: sent %llu drops %llu util %.4f peak headroom "
		    "%llu / %llu\n",
		    (unsigned long long)r.sent, (unsigned long long)r.drops, r.utilisation,
		    (unsigned long long)r.peak_headroom, (unsigned long long)r.headroom_bytes);
}

TEST(MmuIncast, RefreshHoldsPausesThroughLongStall)
{
	// The egress stops for 60 ms, almost twice the 33.5 ms a 0xFFFF pause
	// lasts at 1G: without refreshes the senders would restart and
	// overflow the headroom.
	SimParams sp;
	sp.stall_from_ns = 20000000;
	sp.stall_to_ns = 80000000;
	sp.stop_ns = 120000000;
	IncastSim sim(sp);
	SimResult r = sim.Run();
	EXPECT_EQ(r.drops, 0u);
	EXPECT_EQ(r.sent, r.delivered);
	EXPECT_LE(r.peak_headroom, r.headroom_bytes);
	EXPECT_GE(r.refresh, kSenders * 3);	// 60 ms / 16.8 ms per queue
	EXPECT_GE(r.utilisation, 0.95);
	ExpectClean(sim);
}

TEST(MmuIncast, SlowerSendersThanBudgetedOverflowHeadroom)
{
	// Senders take 4x the software reaction the headroom was sized for.
	SimParams sp;
	sp.sender_reaction_ns = 4 * sp.sw_response_ns;
	sp.stop_ns = 20000000;
	IncastSim sim(sp);
	SimResult r = sim.Run();
	EXPECT_GT(r.drops, 0u);
	EXPECT_EQ(sim.pool()->ctr.drops_lossless, r.drops);
	EXPECT_EQ(r.sent, r.delivered + r.drops);
	ExpectClean(sim);
}

} // namespace
