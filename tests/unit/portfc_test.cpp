// PortFC's pure part (kernel/core/portfc.c; portfc.md sections 2-5, test
// ids U-xx of its section 10): BCube addressing and paths, the queue plan
// against the worked examples of 3.6 and exhaustively over every path of
// BCube(4,1) and BCube(8,1), the detector of Algorithms 1-2 as a state
// machine, what a received frame does (Algorithms 3-4), the frames' codec,
// the rank invariants of 5.4 as a randomized property, the headroom of 4.10.
//
// Queue numbers are the qdisc's: the spec's index + 1, HQ at 0 (portfc.h).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

extern "C" {
#include "ctrl.h"
#include "headroom.h"
#include "portfc.h"
}

namespace {

constexpr ll_bcube kB41{4, 1};
constexpr ll_bcube kB81{8, 1};

ll_u32 ClassifySwitch(const ll_bcube &b, ll_u32 level, ll_u32 w, int dst, int hq,
		      ll_portfc_class_err *err)
{
	ll_portfc_where at{b, level, w};
	ll_portfc_pkt pkt{dst, 0, (ll_u8)hq};
	return ll_portfc_classify_switch(&at, &pkt, err);
}

ll_u32 ClassifyServer(const ll_bcube &b, ll_u32 self, ll_u32 l, int dst, int relayed,
		      int hq, ll_portfc_class_err *err)
{
	ll_portfc_where at{b, l, self};
	ll_portfc_pkt pkt{dst, (ll_u8)relayed, (ll_u8)hq};
	return ll_portfc_classify_server(&at, &pkt, err);
}

// The spec's index (portfc.md 3.1-3.2) as the qdisc's queue.
ll_u32 Q(ll_u32 spec_index)
{
	return spec_index + 1;
}

ll_u32 SwitchClass(const ll_bcube &b, ll_u32 level, ll_u32 w, int dst,
		   int hq = 0)
{
	ll_portfc_class_err err;
	ll_u32 q = ClassifySwitch(b, level, w, dst, hq, &err);

	EXPECT_EQ(err, LL_PORTFC_CLASS_OK);
	return q;
}

ll_u32 ServerClass(const ll_bcube &b, ll_u32 self, ll_u32 l, int dst,
		   int relayed = 0, int hq = 0)
{
	ll_portfc_class_err err;
	ll_u32 q = ClassifyServer(b, self, l, dst, relayed, hq, &err);

	EXPECT_EQ(err, LL_PORTFC_CLASS_OK);
	return q;
}

// ------------------------------------------------------------- structure

// U-01: n^(k+1) servers, (k+1) n^k switches, every server on one switch
// per level at its digit's port, every switch port on one server.
TEST(PortfcBcube, StructureOfEverySize)
{
	for (ll_bcube b : {ll_bcube{4, 1}, ll_bcube{8, 1}, ll_bcube{2, 1},
			   ll_bcube{4, 2}}) {
		SCOPED_TRACE(testing::Message() << "BCube(" << b.n << "," << b.k << ")");
		ll_u32 servers = ll_bcube_servers(&b), per_level = 1;

		for (ll_u32 i = 0; i < b.k; i++)
			per_level *= b.n;
		EXPECT_EQ(servers, per_level * b.n);
		EXPECT_EQ(ll_bcube_switches(&b), (b.k + 1) * per_level);
		std::map<ll_u32, std::set<ll_u32>> ports_of_switch;
		for (ll_u32 s = 0; s < servers; s++) {
			for (ll_u32 l = 0; l <= b.k; l++) {
				ll_u32 sw = ll_bcube_switch_of(&b, s, l);
				ll_u32 level_base = servers + l * per_level;
				ASSERT_GE(sw, level_base);
				ASSERT_LT(sw, level_base + per_level);
				ll_u32 port = ll_bcube_digit(&b, s, l);
				EXPECT_EQ(ll_bcube_switch_server(&b, l, sw - level_base, port), s);
				EXPECT_TRUE(ports_of_switch[sw].insert(port).second);
			}
		}
		// Every switch has n ports, each to a distinct server.
		EXPECT_EQ(ports_of_switch.size(), ll_bcube_switches(&b));
		for (const auto &[sw, ports] : ports_of_switch)
			EXPECT_EQ(ports.size(), b.n) << sw;
	}
}

// U-02: the paper's figure 6 numbering.
TEST(PortfcBcube, PortMappingOfFigure6)
{
	EXPECT_EQ(ll_bcube_switch_of(&kB41, 15, 0), 19u);
	EXPECT_EQ(ll_bcube_digit(&kB41, 15, 0), 3u);
	EXPECT_EQ(ll_bcube_switch_of(&kB41, 15, 1), 23u);
	EXPECT_EQ(ll_bcube_digit(&kB41, 15, 1), 3u);
	EXPECT_EQ(ll_bcube_switch_of(&kB41, 12, 0), 19u);
	EXPECT_EQ(ll_bcube_digit(&kB41, 12, 0), 0u);
	EXPECT_EQ(ll_bcube_switch_of(&kB41, 12, 1), 20u);
	EXPECT_EQ(ll_bcube_digit(&kB41, 12, 1), 3u);
	// Switch 20 + c connects servers c, c + 4, c + 8, c + 12.
	for (ll_u32 p = 0; p < 4; p++)
		EXPECT_EQ(ll_bcube_switch_server(&kB41, 1, 2, p), 2 + 4 * p);
}

TEST(PortfcBcube, DigitCorrectingPaths)
{
	// F1: 15 -> 12 -> 0 corrects digit 0 first; F12's order is digit 1.
	EXPECT_EQ(ll_bcube_next_level(&kB41, 15, 0, 0), 0u);
	EXPECT_EQ(ll_bcube_next_level(&kB41, 12, 0, 0), 1u);
	EXPECT_EQ(ll_bcube_next_level(&kB41, 15, 0, 1), 1u);
	EXPECT_EQ(ll_bcube_next_level(&kB41, 3, 0, 1), 0u);
	EXPECT_EQ(ll_bcube_next_level(&kB41, 5, 5, 0), 2u);
	EXPECT_EQ(ll_bcube_hamming(&kB41, 15, 0), 2u);
	EXPECT_EQ(ll_bcube_hamming(&kB41, 15, 12), 1u);
	EXPECT_EQ(ll_bcube_set_digit(&kB41, 15, 0, 0), 12u);
}

TEST(PortfcBcube, RefusesSizesTheFramesCannotName)
{
	ll_bcube b{9, 1};
	EXPECT_NE(ll_bcube_check(&b), nullptr);
	b = {1, 1};
	EXPECT_NE(ll_bcube_check(&b), nullptr);
	b = {4, 4};
	EXPECT_NE(ll_bcube_check(&b), nullptr);
	EXPECT_EQ(ll_bcube_check(&kB41), nullptr);
	EXPECT_EQ(ll_bcube_check(&kB81), nullptr);
}

// ------------------------------------------------------------ queue plan

// U-03 and 3.6: switch 23 (level 1, fixed digit 3), port toward 15.
TEST(PortfcQueues, SwitchExampleOfThePaper)
{
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 15), Q(3));	// B
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 12), Q(0));
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 13), Q(1));
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 14), Q(2));
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 11), Q(3));	// 11 sits on switch 23 too
	EXPECT_EQ(SwitchClass(kB41, 1, 3, 15, 1), (ll_u32)LL_PORTFC_HQ);
	EXPECT_EQ(ll_portfc_switch_b(&kB41), Q(3));
}

// U-04 and 3.6: server 15 = (3,3), port 0 toward switch 19.
TEST(PortfcQueues, ServerExampleOfThePaper)
{
	EXPECT_EQ(ServerClass(kB41, 15, 0, 12), Q(3));	// two-hop own
	EXPECT_EQ(ServerClass(kB41, 15, 0, 13), Q(4));
	EXPECT_EQ(ServerClass(kB41, 15, 0, 14), Q(5));
	EXPECT_EQ(ServerClass(kB41, 15, 0, 0), Q(0));	// via relay 12
	EXPECT_EQ(ServerClass(kB41, 15, 0, 4), Q(0));	// F4, via 12
	EXPECT_EQ(ServerClass(kB41, 15, 0, 1), Q(1));	// via 13
	EXPECT_EQ(ServerClass(kB41, 15, 0, 2), Q(2));	// via 14
	EXPECT_EQ(ServerClass(kB41, 15, 0, 0, 1), Q(6));	// relayed: RQ
	EXPECT_EQ(ServerClass(kB41, 15, 0, 0, 0, 1), (ll_u32)LL_PORTFC_HQ);
	EXPECT_EQ(ll_portfc_server_rq(&kB41), Q(6));
}

// U-05: the compaction the paper lacks (3.3), at server 12 and switch 20.
TEST(PortfcQueues, CompactionCases)
{
	EXPECT_EQ(ServerClass(kB41, 12, 0, 13), Q(3));
	EXPECT_EQ(ServerClass(kB41, 12, 0, 15), Q(5));
	EXPECT_EQ(ServerClass(kB41, 12, 0, 1), Q(0));	// (0,1) via relay 13
	EXPECT_EQ(ServerClass(kB41, 12, 0, 7), Q(2));	// (1,3) via relay 15
	EXPECT_EQ(SwitchClass(kB41, 1, 0, 12), Q(3));	// B
	EXPECT_EQ(SwitchClass(kB41, 1, 0, 13), Q(0));
	EXPECT_EQ(SwitchClass(kB41, 1, 0, 15), Q(2));
}

// U-06
TEST(PortfcQueues, SlotRefusesTheImpossiblePort)
{
	EXPECT_EQ(ll_portfc_slot(4, 2, 2), -1);
	EXPECT_EQ(ll_portfc_slot(4, 4, 0), -1);
	EXPECT_EQ(ll_portfc_slot(4, 3, 0), 2);
	EXPECT_EQ(ll_portfc_slot(4, 0, 3), 0);
	for (ll_u32 n = 2; n <= 8; n++)
		for (ll_u32 ref = 0; ref < n; ref++)
			for (ll_u32 e = 0; e < n; e++)
				if (e != ref) {
					EXPECT_EQ(ll_portfc_unslot((ll_u32)ll_portfc_slot(n, e, ref), ref), e);
				}
}

// U-11, U-12
TEST(PortfcQueues, CountsAndGeneralKNumbering)
{
	EXPECT_EQ(ll_portfc_switch_queues(&kB41), 5u);
	EXPECT_EQ(ll_portfc_server_queues(&kB41), 8u);
	EXPECT_EQ(ll_portfc_switch_queues(&kB81), 9u);
	EXPECT_EQ(ll_portfc_server_queues(&kB81), 16u);
	EXPECT_LE(ll_portfc_server_queues(&kB81), (ll_u32)LL_PORTFC_MAX_QUEUES);
	const ll_bcube b42{4, 2};
	// Server 0 = (0,0,0), port 0: three switch hops -> class 0 (spec 0..2),
	// two -> class 1 (3..5), one -> b (6..8), RQ 9, HQ 10 (spec).
	EXPECT_EQ(ServerClass(b42, 0, 0, 1 + 4 + 16), Q(0));
	EXPECT_EQ(ServerClass(b42, 0, 0, 3 + 16), Q(5));
	EXPECT_EQ(ServerClass(b42, 0, 0, 2), Q(7));
	EXPECT_EQ(ll_portfc_server_rq(&b42), Q(9));
	EXPECT_EQ(ll_portfc_server_queues(&b42), 11u);
}

TEST(PortfcQueues, MisroutedAndUnknownPacketsGoToUnpausedQueues)
{
	ll_portfc_class_err err;
	// B-09: no BCube address.
	EXPECT_EQ(ClassifySwitch(kB41, 0, 1, -1, 0, &err), Q(3));
	EXPECT_EQ(err, LL_PORTFC_CLASS_UNKNOWN);
	EXPECT_EQ(ClassifyServer(kB41, 0, 0, 99, 0, 0, &err), Q(6));
	EXPECT_EQ(err, LL_PORTFC_CLASS_UNKNOWN);
	// B-10: 15 -> 3 differs in digit 1 only; port 0 is no shortest path.
	EXPECT_EQ(ClassifyServer(kB41, 15, 0, 3, 0, 0, &err), Q(6));
	EXPECT_EQ(err, LL_PORTFC_CLASS_MISROUTED);
	EXPECT_EQ(ClassifyServer(kB41, 15, 0, 15, 0, 0, &err), Q(6));
	EXPECT_EQ(err, LL_PORTFC_CLASS_SELF);
	for (ll_u32 q : {0u, 7u})
		EXPECT_EQ(ll_portfc_server_queue_gates(&kB41, q), 0u);
}

// One hop of a path: at a server (port l) or a switch (its egress port).
struct Hop {
	bool server;
	ll_u32 node;	// server id, or the switch's global id
	ll_u32 port;	// server: its port l; switch: its egress port
	ll_u32 queue;
};

// The hops of a packet from src to dst correcting digits from `first` on.
std::vector<Hop> Walk(const ll_bcube &b, ll_u32 src, ll_u32 dst, ll_u32 first)
{
	std::vector<Hop> hops;
	ll_u32 cur = src;
	bool relayed = false;

	while (cur != dst) {
		ll_u32 l = ll_bcube_next_level(&b, cur, dst, first);
		hops.push_back({true, cur, l,
				ServerClass(b, cur, l, (int)dst, relayed)});
		ll_u32 next = ll_bcube_set_digit(&b, cur, l, ll_bcube_digit(&b, dst, l));
		ll_u32 sw = ll_bcube_switch_of(&b, cur, l);
		// k = 1: the switch's fixed digit is the server's other digit.
		ll_u32 w = ll_bcube_digit(&b, cur, 1 - l);
		hops.push_back({false, sw, ll_bcube_digit(&b, next, l),
				SwitchClass(b, l, w, (int)dst)});
		cur = next;
		relayed = true;
	}
	return hops;
}

// Every path of BCube(4,1) and BCube(8,1): each hop's queue in range and
// of the kind the plan says (an own packet's server queue by hop count, a
// relay in RQ, a switch's B only toward the destination), and the plan a
// bijection at every port: (class, port) <-> queue.
TEST(PortfcQueues, ExhaustiveOverEveryPath)
{
	for (ll_bcube b : {kB41, kB81}) {
		ll_u32 servers = ll_bcube_servers(&b);
		std::map<std::tuple<ll_u32, ll_u32, ll_u32>, std::set<ll_u32>> seen;
		for (ll_u32 s = 0; s < servers; s++)
			for (ll_u32 d = 0; d < servers; d++)
				for (ll_u32 first = 0; first < 2 && s != d; first++) {
					auto hops = Walk(b, s, d, first);
					ll_u32 h = ll_bcube_hamming(&b, s, d);
					ASSERT_EQ(hops.size(), 2 * h);
					for (size_t i = 0; i < hops.size(); i++) {
						const Hop &x = hops[i];
						ASSERT_NE(x.queue, (ll_u32)LL_PORTFC_HQ);
						if (x.server) {
							ASSERT_LT(x.queue, ll_portfc_server_queues(&b));
							if (i == 0)
								ASSERT_EQ(ll_portfc_server_queue_rank(&b, x.queue), h);
							else
								ASSERT_EQ(x.queue, ll_portfc_server_rq(&b));
							if (i == 0)
								seen[{x.node, x.port, x.queue}].insert(
									ll_bcube_digit(&b, d, x.port) + 100 * h);
						} else {
							ASSERT_LT(x.queue, ll_portfc_switch_queues(&b));
							bool last = i + 1 == hops.size();
							ASSERT_EQ(x.queue == ll_portfc_switch_b(&b), last);
						}
					}
				}
		// An own queue at a server port holds one (hops, next port) pair.
		for (const auto &[key, pairs] : seen)
			EXPECT_EQ(pairs.size(), 1u);
		// ... and every own queue of every port is used.
		for (ll_u32 s = 0; s < servers; s++)
			for (ll_u32 l = 0; l < 2; l++)
				for (ll_u32 q = 1; q < ll_portfc_server_rq(&b); q++)
					EXPECT_EQ(seen.count({s, l, q}), 1u) << s << " " << l << " " << q;
	}
}

// ------------------------------------------------ the pause hits its feed

// The gate a switch's state for (port p, class) closes at the node on its
// port t: through the tell vector, the frame's kind and its gate base.
ll_u32 GateAt(const ll_bcube &b, ll_u32 p, ll_u32 cls, ll_u32 t, ll_u32 kind)
{
	(void)cls;
	ll_u8 mask = ll_portfc_tell(1u << p, b.n, t);
	EXPECT_EQ(__builtin_popcount(mask), 1);
	return ll_ctrl_kind(kind)->gate_base + (ll_u32)__builtin_ctz(mask);
}

// For every path: its queue at each hop is stopped by the congestion of
// the queue it enters next (an a-slot by the A-sum of the relay's switch
// port, a b-slot by the B of the destination's, a switch's A-slot by the
// B two hops on, through the relay), via the frames' own gates; and by
// nothing of a queue it never enters. Ranks fall along every such edge.
TEST(PortfcPause, EveryPausableQueueIsStoppedByWhatItFeeds)
{
	for (ll_bcube b : {kB41, kB81}) {
		ll_u32 servers = ll_bcube_servers(&b);
		for (ll_u32 s = 0; s < servers; s++)
			for (ll_u32 d = 0; d < servers; d++)
				for (ll_u32 first = 0; first < 2 && s != d; first++) {
					auto hops = Walk(b, s, d, first);
					// Server's own queue: stopped by its switch's egress port.
					const Hop &src = hops[0], &sw1 = hops[1];
					ll_u32 t = ll_bcube_digit(&b, s, src.port);
					ll_u32 cls = hops.size() == 2 ? 1 : 0;
					ll_u32 gate = GateAt(b, sw1.port, cls, t,
							     cls ? LL_CTRL_PORTFC_B : LL_CTRL_PORTFC_A);
					ASSERT_NE(ll_portfc_server_queue_gates(&b, src.queue) & (1u << gate), 0u)
						<< s << "->" << d;
					// ... and not by the other class of the same port.
					ll_u32 other = GateAt(b, sw1.port, 1 - cls, t,
							      cls ? LL_CTRL_PORTFC_A : LL_CTRL_PORTFC_B);
					ASSERT_EQ(ll_portfc_server_queue_gates(&b, src.queue) & (1u << other), 0u);
					ASSERT_GT(ll_portfc_server_queue_rank(&b, src.queue),
						  ll_portfc_switch_queue_rank(&b, sw1.queue));
					if (hops.size() == 2)
						continue;
					// Switch 1's A-slot: stopped by switch 2's B, relayed.
					const Hop &relay = hops[2], &sw2 = hops[3];
					ll_u32 t2 = ll_bcube_digit(&b, relay.node, relay.port);
					ll_u32 g2 = GateAt(b, sw2.port, 1, t2, LL_CTRL_PORTFC_R);
					ASSERT_NE(ll_portfc_switch_queue_gates(&b, sw1.queue) & (1u << g2), 0u)
						<< s << "->" << d;
					ASSERT_EQ(relay.queue, ll_portfc_server_rq(&b));
					ASSERT_EQ(ll_portfc_server_queue_gates(&b, relay.queue), 0u);
					ASSERT_GT(ll_portfc_switch_queue_rank(&b, sw1.queue),
						  ll_portfc_switch_queue_rank(&b, sw2.queue));
				}
	}
}

// ------------------------------------------------------------- detector

constexpr ll_portfc_thresholds kTh{6000, 4000, 6000, 4000};

struct Detector : testing::Test {
	ll_portfc_eport e{};
	ll_u32 Enq(ll_u32 q, ll_u32 bytes) { return ll_portfc_enqueue(&e, &kTh, &kB41, q, bytes); }
	ll_u32 Deq(ll_u32 q, ll_u32 bytes) { return ll_portfc_dequeue(&e, &kTh, &kB41, q, bytes); }
};

// U-08: onset at exactly X_off, relief at exactly X_on, no frame between.
TEST_F(Detector, HysteresisOnTheSumOfTheASlots)
{
	EXPECT_EQ(Enq(Q(0), 3000), 0u);
	EXPECT_EQ(Enq(Q(1), 2999), 0u);
	EXPECT_EQ(Enq(Q(2), 1), LL_PORTFC_EV_PAUSE_A);	// the sum, not a slot
	EXPECT_EQ(Enq(Q(2), 5000), 0u);
	EXPECT_EQ(Deq(Q(2), 6999), 0u);	// 4001 left
	EXPECT_EQ(Deq(Q(0), 1), LL_PORTFC_EV_RESUME_A);
	for (int i = 0; i < 10; i++) {	// between X_on + 1 and X_off - 1
		EXPECT_EQ(Enq(Q(0), 1999), 0u);
		EXPECT_EQ(Deq(Q(0), 1999), 0u);
	}
	EXPECT_EQ(e.pauses_a, 1u);
	EXPECT_EQ(e.resumes_a, 1u);
}

// U-07: the two flags do not share a fate (the paper's single flag
// would drop the B Resume here).
TEST_F(Detector, FlagsOfAAndBAreIndependent)
{
	EXPECT_EQ(Enq(Q(0), 6000), LL_PORTFC_EV_PAUSE_A);
	EXPECT_EQ(Enq(Q(3), 6000), LL_PORTFC_EV_PAUSE_B);	// B onset with A up
	EXPECT_EQ(Deq(Q(0), 2000), LL_PORTFC_EV_RESUME_A);	// only A's
	EXPECT_EQ(e.up_b, 1);
	EXPECT_EQ(Deq(Q(3), 2000), LL_PORTFC_EV_RESUME_B);
	EXPECT_EQ(e.up_a | e.up_b, 0);
}

// U-09, U-10: B looks at B alone; HQ at nothing.
TEST_F(Detector, BDetectsOnItsOwnBytesAndHqIsExempt)
{
	EXPECT_EQ(Enq(Q(0), 100000), LL_PORTFC_EV_PAUSE_A);
	EXPECT_EQ(Enq(Q(3), 5999), 0u);
	EXPECT_EQ(e.up_b, 0);
	EXPECT_EQ(Enq(LL_PORTFC_HQ, 1000000), 0u);
	EXPECT_EQ(Enq(Q(4), 1000000), 0u);	// beyond the port's queues
	EXPECT_EQ(e.b_bytes, 5999u);
}

// B-13: new thresholds take effect at once, in both directions.
TEST_F(Detector, RetuneResumesOrPausesAtOnce)
{
	Enq(Q(0), 5000);
	ll_portfc_thresholds low{4000, 2000, 4000, 2000};
	auto retune = [&](const ll_portfc_thresholds &t) {
		return ll_portfc_detect(&e, &t, e.sum_a_bytes, e.b_bytes);
	};
	EXPECT_EQ(retune(low), LL_PORTFC_EV_PAUSE_A);
	EXPECT_EQ(retune(kTh), 0u);	// 5000 > X_on 4000: held
	ll_portfc_thresholds high{20000, 10000, 20000, 10000};
	EXPECT_EQ(retune(high), LL_PORTFC_EV_RESUME_A);
	EXPECT_NE(ll_portfc_thresholds_check(&kTh, 3001), nullptr);	// X_off < 2 MTU
	EXPECT_EQ(ll_portfc_thresholds_check(&kTh, 3000), nullptr);
	ll_portfc_thresholds bad{4000, 4000, 6000, 4000};
	EXPECT_NE(ll_portfc_thresholds_check(&bad, 100), nullptr);
}

TEST(PortfcTell, VectorIsCompactedByTheReceivingPort)
{
	const ll_u32 up_a = 0b0101, up_b = 0b1000;	// A: ports 0, 2; B: port 3
	EXPECT_EQ(ll_portfc_tell(up_a, 4, 1), 0b011);	// ports 0, 2 -> 0, 1
	EXPECT_EQ(ll_portfc_tell(up_a, 4, 2), 0b001);	// its own port left out
	EXPECT_EQ(ll_portfc_tell(up_b, 4, 0), 0b100);	// port 3 -> slot 2
	EXPECT_EQ(ll_portfc_tell(up_b, 4, 3), 0);
	EXPECT_EQ(ll_portfc_tell(0xFF, 4, 3), 0b111);	// ports beyond n: none
}

// ------------------------------------------------------- frames received

ll_ctrl_msg Msg(ll_u32 kind, ll_u16 mask, ll_u16 quanta)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = (ll_u8)kind;
	m.gate_mask = mask;
	for (int i = 0; i < LL_CTRL_GATES; i++)
		if (mask & (1u << i))
			m.value[i] = quanta;
	return m;
}

// Algorithms 3 and 4 with the strict rules (B-01..B-06).
TEST(PortfcRx, WhoHearsWhat)
{
	const ll_u32 srv = LL_PORTFC_ROLE_SERVER, sw = LL_PORTFC_ROLE_SWITCH;
	auto a = Msg(LL_CTRL_PORTFC_A, 0b101, 100), bb = Msg(LL_CTRL_PORTFC_B, 0b1, 100);
	auto r = Msg(LL_CTRL_PORTFC_R, 0b10, 0);
	EXPECT_EQ(ll_portfc_rx_check(&a, srv, 4), LL_PORTFC_RX_APPLY);
	EXPECT_EQ(ll_portfc_rx_check(&bb, srv, 4), LL_PORTFC_RX_APPLY_RELAY);
	EXPECT_EQ(ll_portfc_rx_check(&r, srv, 4), LL_PORTFC_RX_UNEXPECTED);
	EXPECT_EQ(ll_portfc_rx_check(&r, sw, 4), LL_PORTFC_RX_APPLY);
	EXPECT_EQ(ll_portfc_rx_check(&a, sw, 4), LL_PORTFC_RX_UNEXPECTED);
	EXPECT_EQ(ll_portfc_rx_check(&bb, sw, 4), LL_PORTFC_RX_UNEXPECTED);
	// Slot 3 names no port of a 4-port switch (the frame's bit 3).
	auto far = Msg(LL_CTRL_PORTFC_A, 0b1000, 1);
	EXPECT_EQ(ll_portfc_rx_check(&far, srv, 4), LL_PORTFC_RX_BAD_SLOT);
	EXPECT_EQ(ll_portfc_rx_check(&far, srv, 8), LL_PORTFC_RX_APPLY);
	auto pfc = Msg(LL_CTRL_PFC, 1, 1);
	EXPECT_EQ(ll_portfc_rx_check(&pfc, srv, 4), LL_PORTFC_RX_NOT_PORTFC);
	EXPECT_EQ(ll_portfc_rx_check(&a, 0, 4), LL_PORTFC_RX_UNEXPECTED);
}

// The frames' codec: the core's generic table, the layout of ctrl.h.
TEST(PortfcFrame, BuildParseRoundTripAndLayout)
{
	for (ll_u32 kind : {LL_CTRL_PORTFC_A, LL_CTRL_PORTFC_B, LL_CTRL_PORTFC_R}) {
		auto m = Msg(kind, 0b1010101, 0);
		for (int i = 0; i < 7; i++)
			m.value[i] = (m.gate_mask >> i) & 1 ? (ll_u16)(0x1111 * (i + 1)) : 0;
		const ll_u8 src[6] = {2, 0, 0, 0, 0, 7};
		std::memcpy(m.src, src, 6);
		ll_u8 buf[64];
		ASSERT_EQ(ll_ctrl_build(buf, sizeof(buf), &m), 60u);
		EXPECT_EQ(buf[12], 0x88);
		EXPECT_EQ(buf[13], 0xB6);
		EXPECT_EQ(buf[14], 0);
		EXPECT_EQ(buf[15], kind == LL_CTRL_PORTFC_A ? 2 : kind == LL_CTRL_PORTFC_B ? 3 : 4);
		EXPECT_EQ(buf[16], 0);
		EXPECT_EQ(buf[17], 0b1010101);
		EXPECT_EQ(buf[18], 0x11);
		EXPECT_EQ(buf[20], 0);	// slot 1 not in the mask
		EXPECT_EQ(buf[30], 0x77);
		ll_ctrl_msg back;
		ASSERT_EQ(ll_ctrl_parse(buf, LL_CTRL_PORTFC_MIN_BYTES, nullptr, &back), LL_PARSE_OK);
		EXPECT_EQ(back.kind, kind);
		EXPECT_EQ(back.gate_mask, m.gate_mask);
		for (int i = 0; i < 7; i++)
			EXPECT_EQ(back.value[i], m.value[i]) << i;
		EXPECT_EQ(ll_ctrl_parse(buf, LL_CTRL_PORTFC_MIN_BYTES - 1, nullptr, &back),
			  LL_PARSE_TRUNCATED);
		buf[16] = 1;
		EXPECT_EQ(ll_ctrl_parse(buf, 60, nullptr, &back), LL_PARSE_RESERVED_SET);
	}
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_PORTFC_A)->gate_base, (ll_u32)LL_PORTFC_GATE_A(0));
	EXPECT_EQ(ll_ctrl_kind(LL_CTRL_PORTFC_R)->gate_base, (ll_u32)LL_PORTFC_GATE_B(0));
}

// A frame closes exactly the gates of its slots, through the generic
// receive path (pause.c) that every kind takes.
TEST(PortfcFrame, ClosesTheGatesOfItsSlotsOnly)
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	auto m = Msg(LL_CTRL_PORTFC_B, 0b10000010, 0xFFFF);	// bit 7: no slot
	ll_u32 changed = ll_port_pause_rx(&p, 1000, &m, 1000000000ULL);
	EXPECT_EQ(changed, 1u << LL_PORTFC_GATE_B(1));
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 1u << LL_PORTFC_GATE_B(1));
	auto resume = Msg(LL_CTRL_PORTFC_R, 0b10, 0);
	EXPECT_EQ(ll_port_pause_rx(&p, 2000, &resume, 1000000000ULL),
		  1u << LL_PORTFC_GATE_B(1));
	EXPECT_EQ(ll_port_pause_closed_mask(&p), 0u);
}

// ------------------------------------------------- invariants of 5.4

// Random congestion anywhere in BCube(4,1) or BCube(8,1): every frame a
// switch sends, every relay a server makes and every queue they stop,
// through the core's own functions. Checks INV-1 (servers relay B only,
// once per other port), INV-2 (switches never relay), INV-3 (HQ, B, RQ
// never stopped), INV-4/INV-5 (a stopped queue's rank is above its
// cause's, so a chain of causes has at most two links).
TEST(PortfcInvariants, RandomCongestionKeepsTheRanks)
{
	std::mt19937 rng(20261129);
	for (int round = 0; round < 400; round++) {
		const ll_bcube &b = round % 2 ? kB81 : kB41;
		ll_u32 servers = ll_bcube_servers(&b), nsw = ll_bcube_switches(&b);
		std::vector<std::vector<ll_portfc_eport>> sw(nsw, std::vector<ll_portfc_eport>(b.n));
		for (auto &ports : sw)
			std::memset(ports.data(), 0, ports.size() * sizeof(ports[0]));
		int congested = 1 + (int)(rng() % 12);
		for (int c = 0; c < congested; c++) {
			auto &e = sw[rng() % nsw][rng() % b.n];
			// Drive the detector, not the flags: bytes into A or B.
			ll_u32 q = rng() % 2 ? ll_portfc_switch_b(&b) : 1 + rng() % (b.n - 1);
			ll_portfc_enqueue(&e, &kTh, &b, q, 6000 + rng() % 4000);
		}
		for (ll_u32 w = 0; w < nsw; w++) {
			ll_u32 l = w / (nsw / 2), idx = w % (nsw / 2);
			for (ll_u32 t = 0; t < b.n; t++) {
				ll_u32 srv = ll_bcube_switch_server(&b, l, idx, t);
				for (ll_u32 cls = 0; cls < 2; cls++) {
					ll_u32 up = 0;
					for (ll_u32 p = 0; p < b.n; p++)
						up |= (ll_u32)(cls ? sw[w][p].up_b : sw[w][p].up_a) << p;
					ll_u8 mask = ll_portfc_tell(up, b.n, t);
					if (!mask)
						continue;
					auto m = Msg(cls ? LL_CTRL_PORTFC_B : LL_CTRL_PORTFC_A, mask, 0xFFFF);
					auto rx = ll_portfc_rx_check(&m, LL_PORTFC_ROLE_SERVER, b.n);
					ASSERT_EQ(rx, cls ? LL_PORTFC_RX_APPLY_RELAY : LL_PORTFC_RX_APPLY);
					ll_u32 gates = 0;
					for (ll_u32 i = 0; i < 7; i++)
						if (mask & (1u << i))
							gates |= 1u << (ll_ctrl_kind(m.kind)->gate_base + i);
					for (ll_u32 q = 0; q < ll_portfc_server_queues(&b); q++) {
						if (!(ll_portfc_server_queue_gates(&b, q) & gates))
							continue;
						ASSERT_NE(q, (ll_u32)LL_PORTFC_HQ);
						ASSERT_NE(q, ll_portfc_server_rq(&b));
						// Stopped by a switch queue of rank 0 (B) or 1 (A).
						ASSERT_GT(ll_portfc_server_queue_rank(&b, q), cls ? 0u : 1u);
					}
					if (!cls)
						continue;
					// The relay: to the server's other switch, as R.
					auto r = m;
					r.kind = LL_CTRL_PORTFC_R;
					ASSERT_EQ(ll_portfc_rx_check(&r, LL_PORTFC_ROLE_SWITCH, b.n),
						  LL_PORTFC_RX_APPLY);
					ASSERT_EQ(ll_portfc_rx_check(&r, LL_PORTFC_ROLE_SERVER, b.n),
						  LL_PORTFC_RX_UNEXPECTED);
					(void)srv;
					for (ll_u32 q = 0; q < ll_portfc_switch_queues(&b); q++) {
						ll_u32 g = ll_portfc_switch_queue_gates(&b, q);
						ll_u32 rg = 0;
						for (ll_u32 i = 0; i < 7; i++)
							if (mask & (1u << i))
								rg |= 1u << (ll_ctrl_kind(LL_CTRL_PORTFC_R)->gate_base + i);
						if (!(g & rg))
							continue;
						ASSERT_NE(q, ll_portfc_switch_b(&b));
						ASSERT_NE(q, (ll_u32)LL_PORTFC_HQ);
						ASSERT_EQ(ll_portfc_switch_queue_rank(&b, q), 1u);
					}
				}
			}
		}
		(void)servers;
	}
}

// ------------------------------------------------------------- headroom

// 4.10 with the paper's numbers: n = 8, 150 KB thresholds fit 5 MB; 600
// KB thresholds do not (9.6 MB of thresholds alone).
TEST(PortfcHeadroom, FeasibilityOfThePapersNumbers)
{
	ll_headroom_params link{};
	link.rate_bps = 100000000000ULL;
	link.cable_delay_ns = 1000;
	link.mtu_bytes = 1048;
	ll_portfc_thresholds t{150000, 100000, 150000, 100000};
	struct ll_portfc_need need{};
	ASSERT_EQ(ll_portfc_need(&kB81, &t, &link, 0, &need), 0);
	EXPECT_EQ(need.o1_bytes, ll_headroom_bytes(&link));
	EXPECT_GT(need.o2_bytes, need.o1_bytes);
	EXPECT_EQ(need.port_headroom_bytes, 7 * need.o2_bytes);
	EXPECT_LT(need.pool_bytes, 5000000u);
	EXPECT_GT(need.pool_bytes, 2400000u);
	ll_portfc_thresholds big{600000, 400000, 600000, 400000};
	ASSERT_EQ(ll_portfc_need(&kB81, &big, &link, 0, &need), 0);
	EXPECT_GT(need.pool_bytes, 9600000u);
	link.rate_bps = 0;
	EXPECT_EQ(ll_portfc_need(&kB81, &t, &link, 0, &need), -1);
}

}  // namespace
