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
#include "dcqcn.h"
#include "pcn.h"
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

// The hosts' congestion control per event (issue 27: "the RP's cost per
// CNP in ns"), at 100 Gbit/s with the defaults. PCN's RP per CNP: one
// decrease in every 8 CNPs (a flow that climbs back between congestion
// episodes), the rest increases, each with its idle check. DCQCN's RP per
// CNP: the cut with alpha's update and the timers' restart, then what the
// pacer's side costs between CNPs (its rate timer and byte counter) is
// measured apart. PCN's NP per data packet: the window's accounting, a
// CNP decision every 32 packets. PCN's CP per dequeued packet: NP-ECN's
// decision with the PN exemption.
void BM_PcnRpPerCnp(benchmark::State &state)
{
	ll_pcn_params p;
	ll_pcn_params_default(&p, kRate / 1000);
	ll_pcn_rp rp;
	ll_u64 now = 1000, n = 0;
	ll_pcn_rp_init(&rp, &p, now);
	for (auto _ : state) {
		now += p.period_ns;
		const bool dec = (++n & 7) == 0;
		ll_pcn_rp_cnp(&rp, &p, dec, (ll_u32)(kRate / 2000000), now);
		benchmark::DoNotOptimize(rp.rate_kbps);
	}
	state.counters["decreases"] = (double)rp.decreases;
	state.counters["rate_gbps"] = (double)rp.rate_kbps / 1e6;
}
BENCHMARK(BM_PcnRpPerCnp);

void BM_DcqcnRpPerCnp(benchmark::State &state)
{
	ll_dcqcn_params p;
	ll_dcqcn_params_default(&p, kRate / 1000);
	ll_dcqcn_rp rp;
	ll_dcqcn_rp_init(&rp, &p);
	ll_u64 now = 1000;
	for (auto _ : state) {
		now += p.cnp_interval_ns;
		ll_dcqcn_rp_cnp(&rp, &p, now);
		benchmark::DoNotOptimize(rp.rc_kbps);
		// Let the rate recover so that the cuts do not pin it at the floor.
		if (rp.rc_kbps < p.line_rate_kbps / 4)
			ll_dcqcn_rp_init(&rp, &p);
	}
	state.counters["rate_gbps"] = (double)rp.rc_kbps / 1e6;
}
BENCHMARK(BM_DcqcnRpPerCnp);

// DCQCN's RP between CNPs, per sent packet: the byte counter, and the two
// timers polled as a pacer would at each packet (1,500 B at 100 Gbit/s).
void BM_DcqcnRpPerPacket(benchmark::State &state)
{
	ll_dcqcn_params p;
	ll_dcqcn_params_default(&p, kRate / 1000);
	ll_dcqcn_rp rp;
	ll_dcqcn_rp_init(&rp, &p);
	ll_u64 now = 1000, n = 0, incs = 0;
	ll_dcqcn_rp_cnp(&rp, &p, now);
	for (auto _ : state) {
		now += 120;
		incs += ll_dcqcn_rp_sent(&rp, &p, 1500);
		if (now >= ll_dcqcn_rp_next_ns(&rp)) {
			incs += (ll_u64)ll_dcqcn_rp_rate_timer(&rp, &p, now);
			ll_dcqcn_rp_alpha_timer(&rp, &p, now);
		}
		if ((++n & 0xFFFF) == 0)	// a CNP now and then
			ll_dcqcn_rp_cnp(&rp, &p, now);
		benchmark::DoNotOptimize(rp.rc_kbps);
	}
	state.counters["increases"] = (double)incs;
}
BENCHMARK(BM_DcqcnRpPerPacket);

void BM_PcnNpPerPacket(benchmark::State &state)
{
	ll_pcn_params p;
	ll_pcn_params_default(&p, kRate / 1000);
	ll_pcn_np_flow f;
	std::memset(&f, 0, sizeof(f));
	ll_pcn_np_pkt pkt = {1000, 1500, 1, LL_ECN_ECT0};
	ll_pcn_cnp cnp;
	ll_u64 cnps = 0, n = 0;
	for (auto _ : state) {
		pkt.now_ns += p.period_ns / 32;	// a window closes every 32 packets
		pkt.ecn = (++n & 1) ? LL_ECN_CE : LL_ECN_ECT0;
		cnps += (ll_u64)ll_pcn_np_packet(&f, &p, &pkt, &cnp);
		benchmark::DoNotOptimize(cnp);
	}
	state.counters["cnps"] = (double)cnps;
}
BENCHMARK(BM_PcnNpPerPacket);

void BM_PcnCpPerPacket(benchmark::State &state)
{
	ll_pcn_cp cp;
	ll_pcn_cp_init(&cp);
	ll_u64 n = 0, marks = 0;
	for (auto _ : state) {
		if ((++n & 1023) == 0) {	// a PAUSE and RESUME now and then
			ll_pcn_cp_pause(&cp);
			ll_pcn_cp_resume(&cp, 16);
		}
		marks += ll_pcn_cp_dequeue(&cp, 1, (n & 3) * 1500, 0, LL_ECN_ECT0) == LL_PCN_CP_MARK;
		benchmark::DoNotOptimize(marks);
	}
	state.counters["marks"] = (double)marks;
}
BENCHMARK(BM_PcnCpPerPacket);

} // namespace
