// Micro-benchmarks of the algorithm core: the per-frame work of the
// receive path (parse, apply) and of the transmit path (build), and the
// quanta conversion used on both.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core.h"	// tests/unit/core.h: the core with C linkage
extern "C" {
#include "bifrost.h"
}

namespace {

constexpr ll_u64 kRate = 100000000000ull;	// 100 Gbit/s

struct Frames {
	ll_u8 pfc[LL_MAC_CTRL_FRAME_BYTES];
	ll_u8 pause[LL_MAC_CTRL_FRAME_BYTES];
	ll_u8 bad_opcode[LL_MAC_CTRL_FRAME_BYTES];
	ll_u8 ipv4[LL_MAC_CTRL_FRAME_BYTES];

	Frames()
	{
		ll_ctrl_msg m;
		std::memset(&m, 0, sizeof(m));
		const ll_u8 src[6] = {0x02, 0, 0, 0, 0, 1};
		std::memcpy(m.src, src, 6);
		m.kind = LL_CTRL_PFC;
		m.gate_mask = 0x88;
		m.value[3] = 0x1234;
		m.value[7] = 0xFFFF;
		ll_ctrl_build(pfc, sizeof(pfc), &m);
		m.kind = LL_CTRL_PAUSE;
		m.value[0] = 0xFFFF;
		ll_ctrl_build(pause, sizeof(pause), &m);
		// Rejected late (after DA and length checks): opcode 0x0002.
		std::memcpy(bad_opcode, pfc, sizeof(pfc));
		bad_opcode[15] = 0x02;
		// Rejected early: an IPv4 frame.
		std::memcpy(ipv4, pfc, sizeof(pfc));
		ipv4[12] = 0x08;
		ipv4[13] = 0x00;
	}
};

const Frames &TheFrames()
{
	static Frames f;
	return f;
}

void ParseOne(benchmark::State &state, const ll_u8 *frame, ll_parse_result want)
{
	ll_ctrl_msg out;
	for (auto _ : state) {
		benchmark::DoNotOptimize(frame);
		ll_parse_result r = ll_ctrl_parse(frame, LL_MAC_CTRL_FRAME_BYTES, nullptr, &out);
		benchmark::DoNotOptimize(r);
		benchmark::DoNotOptimize(out);
	}
	if (ll_ctrl_parse(frame, LL_MAC_CTRL_FRAME_BYTES, nullptr, &out) != want)
		state.SkipWithError("unexpected parse result");
}

void BM_ParsePfc(benchmark::State &state)
{
	ParseOne(state, TheFrames().pfc, LL_PARSE_OK);
}
BENCHMARK(BM_ParsePfc);

void BM_ParsePause(benchmark::State &state)
{
	ParseOne(state, TheFrames().pause, LL_PARSE_OK);
}
BENCHMARK(BM_ParsePause);

void BM_ParseRejectOpcode(benchmark::State &state)
{
	ParseOne(state, TheFrames().bad_opcode, LL_PARSE_BAD_OPCODE);
}
BENCHMARK(BM_ParseRejectOpcode);

void BM_ParseRejectEtherType(benchmark::State &state)
{
	ParseOne(state, TheFrames().ipv4, LL_PARSE_NOT_MAC_CTRL);
}
BENCHMARK(BM_ParseRejectEtherType);

void BM_BuildPfc(benchmark::State &state)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PFC;
	m.gate_mask = 0xFF;
	for (int i = 0; i < 8; i++)
		m.value[i] = (ll_u16)(0x1000 * (i + 1));
	ll_u8 buf[LL_MAC_CTRL_FRAME_BYTES];
	for (auto _ : state) {
		benchmark::DoNotOptimize(&m);
		ll_u32 n = ll_ctrl_build(buf, sizeof(buf), &m);
		benchmark::DoNotOptimize(n);
		benchmark::ClobberMemory();
	}
}
BENCHMARK(BM_BuildPfc);

void BM_BuildPause(benchmark::State &state)
{
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PAUSE;
	m.gate_mask = 1;
	m.value[0] = 0xFFFF;
	ll_u8 buf[LL_MAC_CTRL_FRAME_BYTES];
	for (auto _ : state) {
		benchmark::DoNotOptimize(&m);
		ll_u32 n = ll_ctrl_build(buf, sizeof(buf), &m);
		benchmark::DoNotOptimize(n);
		benchmark::ClobberMemory();
	}
}
BENCHMARK(BM_BuildPause);

// PFC XOFF for classes 3 and 7 refreshing closed gates (the steady state
// under congestion): two gate updates, no state change.
void BM_PortPauseRxPfcRefresh(benchmark::State &state)
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PFC;
	m.gate_mask = 0x88;
	m.value[3] = 0xFFFF;
	m.value[7] = 0xFFFF;
	ll_u64 now = 1000;
	for (auto _ : state) {
		now += 100;
		ll_u32 changed = ll_port_pause_rx(&p, now, &m, kRate);
		benchmark::DoNotOptimize(changed);
	}
}
BENCHMARK(BM_PortPauseRxPfcRefresh);

// Alternating XOFF / XON for all 8 classes: every call changes 8 gates.
void BM_PortPauseRxPfcToggleAll(benchmark::State &state)
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	ll_ctrl_msg xoff, xon;
	std::memset(&xoff, 0, sizeof(xoff));
	xoff.kind = LL_CTRL_PFC;
	xoff.gate_mask = 0xFF;
	for (int i = 0; i < 8; i++)
		xoff.value[i] = 0xFFFF;
	xon = xoff;
	for (int i = 0; i < 8; i++)
		xon.value[i] = 0;
	ll_u64 now = 1000;
	bool off = true;
	for (auto _ : state) {
		now += 100;
		ll_u32 changed = ll_port_pause_rx(&p, now, off ? &xoff : &xon, kRate);
		benchmark::DoNotOptimize(changed);
		off = !off;
	}
}
BENCHMARK(BM_PortPauseRxPfcToggleAll);

void BM_PortPauseRxPause(benchmark::State &state)
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PAUSE;
	m.gate_mask = 1;
	m.value[0] = 0xFFFF;
	ll_u64 now = 1000;
	for (auto _ : state) {
		now += 100;
		ll_u32 changed = ll_port_pause_rx(&p, now, &m, kRate);
		benchmark::DoNotOptimize(changed);
	}
}
BENCHMARK(BM_PortPauseRxPause);

// The dequeue path: expire, closed mask, next deadline over 9 gates.
void BM_PortPauseExpireMaskDeadline(benchmark::State &state)
{
	ll_port_pause p;
	std::memset(&p, 0, sizeof(p));
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_PFC;
	m.gate_mask = 0xFF;
	for (int i = 0; i < 8; i++)
		m.value[i] = 0xFFFF;
	ll_port_pause_rx(&p, 1000, &m, kRate);
	ll_u64 now = 1000;
	for (auto _ : state) {
		now += 1;	// stays below every deadline for ~335 us of ns
		ll_u32 opened = ll_port_pause_expire(&p, now);
		ll_u32 closed = ll_port_pause_closed_mask(&p);
		ll_u64 next = ll_port_pause_next_deadline(&p);
		benchmark::DoNotOptimize(opened);
		benchmark::DoNotOptimize(closed);
		benchmark::DoNotOptimize(next);
		if (!closed) {	// keep the gates closed
			state.PauseTiming();
			ll_port_pause_rx(&p, now, &m, kRate);
			state.ResumeTiming();
		}
	}
}
BENCHMARK(BM_PortPauseExpireMaskDeadline);

void BM_QuantaToNs(benchmark::State &state)
{
	ll_u32 q = 1;
	ll_u64 rate = kRate;
	for (auto _ : state) {
		benchmark::DoNotOptimize(q);
		benchmark::DoNotOptimize(rate);
		ll_u64 ns = ll_quanta_to_ns(q, rate);
		benchmark::DoNotOptimize(ns);
		q = (q * 7 + 1) & 0xFFFF;
	}
}
BENCHMARK(BM_QuantaToNs);

void BM_NsToQuanta(benchmark::State &state)
{
	ll_u64 ns = 1;
	ll_u64 rate = kRate;
	for (auto _ : state) {
		benchmark::DoNotOptimize(ns);
		benchmark::DoNotOptimize(rate);
		ll_u32 q = ll_ns_to_quanta(ns, rate);
		benchmark::DoNotOptimize(q);
		ns = (ns * 7 + 1) & 0x7FFFF;
	}
}
BENCHMARK(BM_NsToQuanta);

// Bifrost's per-slot update (docs/BIFROST.md): the work of one slot of one
// port, at 100 Gbit/s, T = 10 us, RTT 800 us, the queue set so that the
// slots cycle through a full pause, a partial one and a full grant.
void BM_BifrostSlot(benchmark::State &state)
{
	ll_bifrost_config c{};
	c.rate_bps = kRate;
	c.slot_ns = 10000;
	c.rtt_ns = 800000;
	c.jitter_ns = 2000;
	c.leak_period = 1;
	c.mtu_bytes = 1518;
	ll_bifrost b;
	ll_bifrost_init(&b, &c, 0, 0);
	const ll_u64 room[3] = {0, b.slot_bytes / 2, b.slot_bytes + 1};
	ll_u64 rx = 0, queue, step = 0;
	for (auto _ : state) {
		ll_bifrost_decision d;
		rx += b.slot_bytes;
		queue = b.buffer_bytes - b.f_bytes - b.jitter_bytes - room[step++ % 3];
		ll_bifrost_slot(&b, ll_bifrost_next_ns(&b), queue, rx, &d);
		benchmark::DoNotOptimize(d);
	}
	state.counters["frames"] = (double)b.stats.frames;
}
BENCHMARK(BM_BifrostSlot);

// BifrostX's upstream, per packet (pause.h's credit gates): what the
// qdisc adds to a dequeue of a metered queue, the check that its priority
// has credit (with the leases' expiry) and the charge, against the one
// AND an unmetered queue pays (range 0). A frame refills the credit every
// 64 packets (a TOKENS frame per slot), so the packets find credit.
void BM_CreditGatePerPacket(benchmark::State &state)
{
	const bool metered = state.range(0);
	ll_port_credit c;
	std::memset(&c, 0, sizeof(c));
	ll_ctrl_msg m;
	std::memset(&m, 0, sizeof(m));
	m.kind = LL_CTRL_TOKENS;
	m.gate_mask = (1u << 3) | (1u << LL_GATE_PORT);
	m.value[3] = 0xFFFF;
	m.value[LL_GATE_PORT] = 0xFFFF;
	m.lifetime = 0xFFFF;
	const ll_u8 order[] = {3};
	ll_u64 backlog[8] = {0, 0, 0, 1ull << 40};
	const ll_u32 queue_gates = (1u << 3) | (1u << LL_GATE_PORT);
	ll_u64 now = 1000, sent = 0, n = 0;
	if (metered)
		ll_port_credit_rx(&c, now, &m, kRate, order, 1, backlog);
	for (auto _ : state) {
		if ((++n & 63) == 0 && metered)
			ll_port_credit_rx(&c, now, &m, kRate, order, 1, backlog);
		now += 120;	// 1,500 B at 100 Gbit/s
		benchmark::DoNotOptimize(now);
		if (queue_gates & c.metered) {
			ll_port_credit_expire(&c, now);
			if (!ll_port_credit_fits(&c, queue_gates, now))
				continue;
			ll_port_credit_charge(&c, queue_gates, 1500);
		}
		sent++;
		benchmark::DoNotOptimize(sent);
	}
	state.counters["sent"] = (double)sent;
}
BENCHMARK(BM_CreditGatePerPacket)->Arg(0)->Arg(1);

// Bifrost's control overhead (claim C4's form, bifrost.md 7.6): the share
// of the link its frames take, 84 B on the wire each (64 + preamble and
// gap), in a slot-level model of S4 (the egress drains half the link, an
// upstream that sends what each frame grants, a round trip later). Run
// for 100 Gbit/s with T = 10 us (the claim's setting) and for the VM's
// bifrost-long-link (10 Mbit/s, T = 20 ms, RTT 600 ms). Counters: the
// model's overhead in % and the bound of one frame per slot.
void BM_BifrostControlOverhead(benchmark::State &state)
{
	const bool vm = state.range(0);
	ll_bifrost_config c{};
	c.rate_bps = vm ? 10000000ull : kRate;
	c.slot_ns = vm ? 20000000 : 10000;
	c.rtt_ns = vm ? 600000000 : 800000;
	c.jitter_ns = vm ? 40000000 : 2000;
	c.leak_period = 1;
	c.mtu_bytes = 1518;
	const ll_u32 delay_slots = (ll_u32)(c.rtt_ns / c.slot_ns);
	const ll_u32 slots = 20000;
	double overhead = 0, bound = 0;
	for (auto _ : state) {
		ll_bifrost b;
		ll_bifrost_init(&b, &c, 0, 0);
		std::vector<ll_u64> wire(delay_slots + 1, b.slot_bytes);
		ll_u64 rx = 0, queue = 0;
		for (ll_u32 n = 0; n < slots; n++) {
			ll_bifrost_decision d;
			const ll_u64 in = wire[n % wire.size()];
			rx += in;
			queue += in;
			queue -= std::min(queue, b.slot_bytes / 2);
			ll_bifrost_slot(&b, ll_bifrost_next_ns(&b), queue, rx, &d);
			wire[n % wire.size()] = d.link_token_bytes;
		}
		const double link_bytes = (double)c.rate_bps / 8e9 * (double)c.slot_ns * slots;
		overhead = 100.0 * 84 * (double)b.stats.frames / link_bytes;
		bound = 100.0 * 84 * slots / link_bytes;
		benchmark::DoNotOptimize(b);
	}
	state.counters["overhead_pct"] = overhead;
	state.counters["one_per_slot_pct"] = bound;
	state.SetLabel(vm ? "10 Mbit/s, T 20 ms (the VM)" : "100 Gbit/s, T 10 us (C4)");
}
BENCHMARK(BM_BifrostControlOverhead)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace
