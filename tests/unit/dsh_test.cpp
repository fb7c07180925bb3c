// DSH, Dynamic and Shared Headroom (kernel/core/scheme_dsh.c; dsh.md), on
// the concrete cases of dsh.md section 9. "#n" below is that table's row.
// Randomised properties (section 3.9) are in dsh_property_test.cpp.
//
// Unit config U (dsh.md 9): 4 ports, 4 lossless classes (priorities 1-4;
// 0 is the control/lossy class), reserve 2048 B, Phi 16384 B, alpha 1/8,
// delta 0, 1024-byte packets into (port 0, class 1). Our MMU reserves for
// all 8 priorities of a port, where the spec counts the 4 lossless ones,
// so the buffer is the spec's 1,048,576 B plus 4 ports x 4 x 2048: the
// shared regions are the spec's to the byte (DSH 950,272, SIH 753,664).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "charge_model.h"
#include "mmu_fixture.h"

extern "C" {
#include "scheme.h"
}

namespace {

using namespace mmu_test;

constexpr ll_u32 kPkt = 1024;
constexpr ll_u32 kPhi = 16384;
constexpr ll_u8 kUMask = 0x1E;		// priorities 1..4: N_q = 4
constexpr ll_u16 kQ = 0xFFFF;		// xoff_quanta 0
constexpr ll_u64 kWindow = 10000000;	// Alg. 4's 10 ms
constexpr ll_u64 kLineNs = 819;		// 1024 B at 10G: ceil(1.25 x 819) = 1024

ll_mmu_config UConfig(ll_u8 scheme = LL_SCHEME_DSH, ll_u64 flags = 0)
{
	ll_mmu_config c{};
	c.total_bytes = 1048576 + 4 * 4 * 2048;
	c.max_ports = 4;
	c.mtu_bytes = 1500;
	c.reserved_bytes = 2048;
	c.alpha = ll_mmu_alpha{1, 3};
	c.egress_alpha = ll_mmu_alpha{1, 0};
	c.lossless_mask = kUMask;
	c.release_order = LL_MMU_RELEASE_DRAIN;
	c.scheme = scheme;
	c.scheme_params.dsh.flags = flags;
	return c;
}

// The spec's reference switch (dsh.md 3.11): 32 x 100G, 16 MiB, 7 lossless
// classes (1..7), 3 KiB reserve, Phi 60,000 B, alpha 1/16. The 8th
// (control) priority's reserve is added to the buffer, as for U.
ll_mmu_config RefConfig(ll_u8 scheme)
{
	ll_mmu_config c{};
	c.total_bytes = 16777216 + 32 * 3072;
	c.max_ports = 32;
	c.mtu_bytes = 1500;
	c.reserved_bytes = 3072;
	c.alpha = ll_mmu_alpha{1, 4};
	c.egress_alpha = ll_mmu_alpha{1, 0};
	c.lossless_mask = 0xFE;
	c.scheme = scheme;
	return c;
}

struct Traffic {
	Pool &pool;
	std::vector<ll_mmu_charge> held;

	ll_mmu_verdict Send(ll_u32 in, ll_u32 prio, ll_u64 t, ll_u32 bytes = kPkt,
			    ll_u32 eg = 3)
	{
		return AdmitAndHold(pool.p(), held, in, prio, eg, bytes, t);
	}
	// Release the n-th held charge (default: the last).
	ll_u32 Release(ll_u64 t, size_t i = ~size_t{0})
	{
		if (i == ~size_t{0})
			i = held.size() - 1;
		ll_mmu_charge c = held[i];
		held.erase(held.begin() + (long)i);
		ll_u32 ev = ll_mmu_release(pool.p(), &c, t);
		ExpectInvariants(pool.p());
		return ev;
	}
	void ReleaseAll(ll_u64 t)
	{
		while (!held.empty())
			Release(t);
	}
};

// Take the frame due on port, complete it as sent; false if none was due.
bool Frame(Pool &pool, ll_u32 port, ll_u64 now, ll_ctrl_msg *f)
{
	if (!ll_mmu_ctrl_take(pool.p(), port, now, f))
		return false;
	EXPECT_EQ(f->kind, LL_CTRL_PFC);
	ll_mmu_ctrl_complete(pool.p(), port, 1, now);
	return true;
}

const ll_dsh_port_state &St(Pool &pool, ll_u32 port)
{
	return pool->ports[port].sch.dsh;
}

ll_u64 T(Pool &pool)
{
	return ll_dt_ingress_threshold(pool.p());
}

// Drain every frame; the last leaves every upstream told XON.
void ExpectAllResumed(Pool &pool, ll_u64 now)
{
	ll_ctrl_msg f;
	for (ll_u32 port = 0; port < pool->cfg.max_ports; port++) {
		for (int i = 0; i < 3 && Frame(pool, port, now, &f); i++)
			;
		EXPECT_EQ(pool->ports[port].xoff.want, 0) << "port " << port;
		EXPECT_EQ(pool->ports[port].xoff.told, 0) << "port " << port;
		EXPECT_EQ(St(pool, port).qoff, 0) << "port " << port;
		EXPECT_EQ(St(pool, port).poff, 0) << "port " << port;
		EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), port), LL_MMU_NEVER);
	}
}

// ------------------------------------------------------------ the seam

TEST(DshScheme, SelectableAndFitsItsUnions)
{
	EXPECT_LT(LL_SCHEME_DSH, LL_SCHEME_COUNT);
	EXPECT_LT(LL_SCHEME_DSH, LL_SCHEME_CORE_COUNT);
	EXPECT_EQ(ll_scheme_by_name("dsh"), LL_SCHEME_DSH);
	EXPECT_STREQ(ll_scheme_name(LL_SCHEME_DSH), "dsh");
	ll_mmu_config c = UConfig();
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_OK);
	// The state fits its unions, and a port stays within 3,000 bytes.
	static_assert(sizeof(ll_dsh_port_state) <= sizeof(ll_scheme_port_state), "");
	static_assert(sizeof(ll_dsh_iq_state) <= sizeof(ll_scheme_iq_state), "");
	static_assert(sizeof(ll_dsh_pool_state) <= sizeof(ll_scheme_pool_state), "");
	static_assert(sizeof(ll_dsh_params) <= sizeof(ll_scheme_params), "");
	EXPECT_LE(sizeof(ll_mmu_port), 3840u);
}

// #3: parameters out of range, unknown flags, words past DSH's refused.
TEST(DshConfig, BadParametersRefused)
{
	ll_mmu_config c = UConfig();
	// Each refusal with the message the kernel gives (naming tc's keyword).
	auto check = [&](void (*set)(ll_dsh_params &), ll_mmu_err want,
			 const char *msg = nullptr) {
		ll_mmu_config x = c;
		set(x.scheme_params.dsh);
		EXPECT_EQ(ll_mmu_config_check(&x), want);
		const char *got = ll_scheme_check_msg(&x);
		if (want == LL_MMU_OK)
			EXPECT_EQ(got, nullptr) << got;
		else
			EXPECT_STREQ(got, msg);
	};
	check([](ll_dsh_params &d) { d.window_ns = 10 * LL_NSEC_PER_SEC; }, LL_MMU_OK);
	check([](ll_dsh_params &d) { d.window_ns = 10 * LL_NSEC_PER_SEC + 1; },
	      LL_MMU_ERR_SCHEME_PARAMS, "dsh: dsh-window above 10 s");
	check([](ll_dsh_params &d) { d.ewma_shift = 8; }, LL_MMU_OK);
	check([](ll_dsh_params &d) { d.ewma_shift = 9; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "dsh: dsh-ewma-shift above 8");
	check([](ll_dsh_params &d) { d.deviation_gain = 16; }, LL_MMU_OK);
	check([](ll_dsh_params &d) { d.deviation_gain = 17; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "dsh: dsh-gain above 16");
	check([](ll_dsh_params &d) { d.flags = LL_DSH_F_ALL & ~LL_DSH_F_STATIC_TAU; },
	      LL_MMU_OK);
	check([](ll_dsh_params &d) { d.flags = 0x8; }, LL_MMU_ERR_SCHEME_PARAMS,
	      "dsh: unknown dsh-variant flags");
	check([](ll_dsh_params &d) {
		d.flags = LL_DSH_F_NO_SHARED_HEADROOM | LL_DSH_F_STATIC_TAU;
	}, LL_MMU_ERR_SCHEME_PARAMS,
	      "dsh: dsh-variant no-shared-headroom and static-tau together");
	c.scheme_params.raw[4] = 1;	// past DSH's four words
	EXPECT_EQ(ll_mmu_config_check(&c), LL_MMU_ERR_SCHEME_PARAMS);
	EXPECT_NE(ll_scheme_check_msg(&c), nullptr);
	// Phi below 2 MTU is refused at attach, as for every scheme.
	Pool pool(UConfig());
	ll_mmu_port_config pc = PortCfg(10 * kGbit, 2999);
	EXPECT_EQ(ll_mmu_port_attach(pool.p(), 0, &pc, 0), LL_MMU_ERR_HEADROOM);
}

// ----------------------------------------------------------- partition

// #2: the reference configuration's partition and thresholds.
TEST(DshPartition, ReferenceConfiguration)
{
	Pool sih(RefConfig(LL_SCHEME_DT), 100 * kGbit, 60000);
	Pool dsh(RefConfig(LL_SCHEME_DSH), 100 * kGbit, 60000);
	EXPECT_EQ(sih->reserved_size - 32 * 3072, 688128u);
	EXPECT_EQ(sih->headroom_size, 13440000u);
	EXPECT_EQ(sih->shared_size, 2649088u);
	EXPECT_EQ(dsh->headroom_size, 1920000u);
	EXPECT_EQ(dsh->shared_size, 14169088u);
	EXPECT_EQ(ll_mmu_ingress_threshold(sih.p(), 0, 1), 165568u);
	EXPECT_EQ(T(dsh), 885568u);
	EXPECT_EQ(ll_dsh_port_threshold(dsh.p()), 6198976u);
	// INV-6: B_i = B_h / N_q.
	EXPECT_EQ(dsh->headroom_size * 7, sih->headroom_size);
}

// #30: mixed speeds: Phi_i per port from the formula, B_i their sum,
// X_poff the same for every port, and each port's insurance its own Phi_i.
TEST(DshPartition, MixedSpeedsInsurancePerPort)
{
	ll_mmu_config c = UConfig();
	c.total_bytes = 4000000;
	Pool pool(c);
	ll_u64 phi[4], sum = 0;
	for (ll_u32 i = 0; i < 4; i++) {
		ll_mmu_port_config pc = PortCfg(i < 2 ? 25 * kGbit : 100 * kGbit);
		pc.cable_delay_ns = 1500;
		phi[i] = ll_mmu_port_headroom(pool.p(), &pc);
		sum += phi[i];
		ASSERT_EQ(ll_mmu_port_attach(pool.p(), i, &pc, 0), LL_MMU_OK);
		EXPECT_EQ(pool->ports[i].headroom_bytes, phi[i]);
	}
	EXPECT_LT(phi[0], phi[2]);
	EXPECT_EQ(pool->headroom_size, sum);
	EXPECT_EQ(pool->shared_size, c.total_bytes - 4 * 8 * c.reserved_bytes - sum);
	// A port ignoring its pause fills exactly its own Phi_i, then drops.
	for (ll_u32 port : {0u, 2u}) {
		Traffic tr{pool, {}};
		ll_u64 ins = 0, t = 1;
		ll_mmu_verdict v;
		while ((v = tr.Send(port, 1, t++, 1000, 3 - port)) != LL_MMU_DROP_LOSSLESS) {
			ASSERT_TRUE(ll_mmu_admitted(v));
			if (v == LL_MMU_ADMIT_HEADROOM)
				ins += 1000;
		}
		EXPECT_EQ(ins, phi[port] / 1000 * 1000) << "port " << port;
		EXPECT_EQ(pool->ports[port].headroom_used, ins);
		tr.ReleaseAll(t);
	}
	ExpectEmpty(pool.p());
}

// #24: with one lossless class DSH reserves what SIH does, and a queue-
// and a port-level pause at the same instant are one frame.
TEST(DshPartition, OneLosslessClassIsSihSized)
{
	ll_mmu_config c = UConfig();
	c.lossless_mask = 0x02;
	ll_mmu_config d = c;
	d.scheme = LL_SCHEME_DT;
	Pool dsh(c, 10 * kGbit, kPhi), sih(d, 10 * kGbit, kPhi);
	EXPECT_EQ(dsh->headroom_size, sih->headroom_size);
	EXPECT_EQ(dsh->shared_size, sih->shared_size);

	// Port 0, single-queue mode (tau = 0): X_qoff = T = X_poff. Fill it
	// to just under both.
	Traffic tr{dsh, {}};
	tr.Send(0, 1, 1);
	ll_u64 t = 2 + kWindow;
	while (ll_dsh_port_shared(dsh.p(), 0) + 2 * kPkt <= T(dsh))
		ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 1, t++)));
	ASSERT_EQ(dsh->ports[0].xoff.want, 0);
	// Port 1's bytes lower T under port 0's: the sweep finds both
	// conditions at once, and one frame carries them.
	Traffic other{dsh, {}};
	for (int i = 0; i < 20; i++)
		other.Send(1, 1, t++, kPkt, 2);
	ASSERT_EQ(dsh->ports[0].xoff.want, 0);
	EXPECT_EQ(ll_mmu_sweep(dsh.p(), t) & 1, 1u);
	EXPECT_EQ(St(dsh, 0).qoff, 0x02);
	EXPECT_EQ(St(dsh, 0).poff, 1);
	EXPECT_EQ(dsh->ports[1].xoff.want, 0);
	ll_ctrl_msg f;
	ASSERT_TRUE(Frame(dsh, 0, t, &f));
	EXPECT_EQ(f.gate_mask, 0x02);
	EXPECT_EQ(f.value[1], kQ);
	EXPECT_FALSE(Frame(dsh, 0, t, &f));
	tr.ReleaseAll(t);
	other.ReleaseAll(t);
	ExpectAllResumed(dsh, t);
}

// ----------------------------------------------------------- admission

// #5: single-queue mode (tau = 0): queue pause at 106, the port gate lets
// packets into shared until 311, the port pauses into insurance at 312,
// insurance takes 312..327 (Phi), 328 is the first drop.
TEST(DshAdmission, SingleQueueModeU)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	ASSERT_EQ(pool->shared_size, 950272u);
	ASSERT_EQ(pool->headroom_size, 4u * kPhi);
	Traffic tr{pool, {}};
	ll_ctrl_msg f;
	ll_u64 t = 1;
	for (ll_u32 n = 1; n <= 328; n++) {
		if (n == 2)
			t += kWindow;	// every later packet in single-queue mode
		ll_mmu_verdict v = tr.Send(0, 1, t++);
		SCOPED_TRACE(n);
		ASSERT_EQ(v, n <= 2	    ? LL_MMU_ADMIT_RESERVED
			     : n <= 311 ? LL_MMU_ADMIT_SHARED
			     : n <= 327 ? LL_MMU_ADMIT_HEADROOM
					: LL_MMU_DROP_LOSSLESS);
		if (n >= 2) {
			ASSERT_EQ(ll_dsh_tau(pool.p(), 0, 1), 0u);
		}
		ASSERT_EQ(Paused(pool.p(), 0, 1), n >= 106);
		ASSERT_EQ(St(pool, 0).poff, n >= 312);
		if (n == 106) {
			EXPECT_EQ(pool->ports[0].iq[1].shared_used, 106496u);
			EXPECT_EQ(T(pool), 105472u);
			ASSERT_TRUE(Frame(pool, 0, t, &f));
			EXPECT_EQ(f.gate_mask, 0x02);
			EXPECT_EQ(f.value[1], kQ);
		} else if (n == 311) {
			EXPECT_EQ(ll_dsh_port_shared(pool.p(), 0), 316416u);
			// X_poff before 312 (the gate it fails): 4 x 79,232.
			EXPECT_EQ(ll_dsh_port_threshold(pool.p()), 316928u);
		} else if (n == 312) {
			// #14: the port pause enables every lossless class.
			ASSERT_TRUE(Frame(pool, 0, t, &f));
			EXPECT_EQ(f.gate_mask, kUMask);
			for (ll_u32 j = 0; j < 8; j++)
				EXPECT_EQ(f.value[j], (kUMask >> j) & 1 ? kQ : 0) << j;
		} else {
			ASSERT_FALSE(Frame(pool, 0, t, &f));	// no frame per packet
		}
	}
	EXPECT_EQ(pool->ports[0].headroom_used, kPhi);
	EXPECT_EQ(pool->ctr.drops_lossless, 1u);
	tr.ReleaseAll(t);
	ExpectEmpty(pool.p());
	ASSERT_TRUE(Frame(pool, 0, t, &f));		// one XON for all four
	EXPECT_EQ(f.gate_mask, kUMask);
	for (ll_u32 j = 0; j < 8; j++)
		EXPECT_EQ(f.value[j], 0);
	ExpectAllResumed(pool, t);
}

// #6: multi-queue mode at line rate: phi_hat = Phi, queue pause at 91.
TEST(DshAdmission, MultiQueueModeLineRateU)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t = 1000;
	for (ll_u32 n = 1; n <= 91; n++, t += kLineNs) {
		ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 1, t)));
		EXPECT_EQ(Paused(pool.p(), 0, 1), n == 91) << n;
		if (n >= 2) {
			EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 1), kPhi) << n;
		}
	}
	EXPECT_EQ(pool->ports[0].iq[1].shared_used, 91136u);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 1), 107392u - kPhi);
	EXPECT_FALSE(ll_dsh_single_queue(pool.p(), 0));
	tr.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// #7: without insurance: B_s grows by 4 Phi, queue pause at 113, the
// admission of 333 puts S_0 above X_poff (port pause), 334 is dropped.
TEST(DshAblation, NoInsuranceU)
{
	Pool pool(UConfig(LL_SCHEME_DSH, LL_DSH_F_NO_INSURANCE), 10 * kGbit, kPhi);
	ASSERT_EQ(pool->shared_size, 1015808u);
	ASSERT_EQ(pool->headroom_size, 0u);
	Traffic tr{pool, {}};
	ll_u64 t = 1;
	for (ll_u32 n = 1; n <= 334; n++) {
		if (n == 2)
			t += kWindow;
		ll_mmu_verdict v = tr.Send(0, 1, t++);
		SCOPED_TRACE(n);
		ASSERT_EQ(v, n <= 2 ? LL_MMU_ADMIT_RESERVED
				    : n <= 333 ? LL_MMU_ADMIT_SHARED : LL_MMU_DROP_LOSSLESS);
		ASSERT_EQ(Paused(pool.p(), 0, 1), n >= 113);
		ASSERT_EQ(St(pool, 0).poff, n >= 333);
		if (n == 333) {
			EXPECT_EQ(ll_dsh_port_shared(pool.p(), 0), 338944u);
			EXPECT_EQ(ll_dsh_port_threshold(pool.p()), 338432u);
			EXPECT_EQ(pool->ports[0].xoff.want, kUMask);
		}
	}
	tr.ReleaseAll(t);
	ExpectEmpty(pool.p());
	ExpectAllResumed(pool, t);
}

// #8: without shared headroom (tau = 0 in every mode, a queue cap of T):
// packet 106 exceeds the cap, goes to insurance and pauses the port.
TEST(DshAblation, NoSharedHeadroomU)
{
	Pool pool(UConfig(LL_SCHEME_DSH, LL_DSH_F_NO_SHARED_HEADROOM), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t = 1000;
	for (ll_u32 n = 1; n <= 106; n++, t += kLineNs) {
		ll_mmu_verdict v = tr.Send(0, 1, t);
		SCOPED_TRACE(n);
		ASSERT_EQ(v, n <= 2 ? LL_MMU_ADMIT_RESERVED
				    : n <= 105 ? LL_MMU_ADMIT_SHARED : LL_MMU_ADMIT_HEADROOM);
		ASSERT_EQ(ll_dsh_tau(pool.p(), 0, 1), 0u);
		ASSERT_EQ(pool->ports[0].xoff.want, n == 106 ? kUMask : 0);
	}
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), 0u);	// a frame now
	tr.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// The static-tau variant: tau = Phi from the first packet, no estimator.
TEST(DshAblation, StaticTau)
{
	Pool pool(UConfig(LL_SCHEME_DSH, LL_DSH_F_STATIC_TAU), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	tr.Send(0, 1, 5);
	EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 1), kPhi);
	EXPECT_EQ(St(pool, 0).est_valid, 0);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 1), T(pool) - kPhi);
	ll_mmu_sweep(pool.p(), 6 + kWindow);		// the window passes
	EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 1), 0u);
	tr.ReleaseAll(7 + kWindow);
	ExpectEmpty(pool.p());
}

// #9: one class, a burst with no drain, reference configuration: SIH
// pauses after about 158.9 KB, DSH (tau = 0) after about 836.5 KB.
TEST(DshBurst, ReferenceConfigAbsorbsFiveTimesSih)
{
	ll_u64 bytes[2];
	for (ll_u8 scheme : {LL_SCHEME_DT, LL_SCHEME_DSH}) {
		Pool pool(RefConfig(scheme), 100 * kGbit, 60000);
		Traffic tr{pool, {}};
		tr.Send(0, 1, 1, kPkt, 1);
		ll_u64 t = 2 + kWindow, b = kPkt;
		while (!Paused(pool.p(), 0, 1)) {
			ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 1, t++, kPkt, 1)));
			b += kPkt;
		}
		bytes[scheme == LL_SCHEME_DSH] = b;
		EXPECT_EQ(pool->ports[0].xoff.want, 0x02);	// no port pause
		tr.ReleaseAll(t);
		ExpectEmpty(pool.p());
	}
	// Reserve + the DT fixed point B_s / 17, to the packet.
	EXPECT_NEAR((double)bytes[0], 3072 + 2649088 / 17.0, 2 * kPkt);
	EXPECT_NEAR((double)bytes[1], 3072 + 14169088 / 17.0, 2 * kPkt);
	EXPECT_EQ(bytes[0], 159744u);	// 156 packets, the last in headroom
	EXPECT_EQ(bytes[1], 836608u);	// 817 packets
	EXPECT_GE(bytes[1], 5 * bytes[0]);
}

// ----------------------------------------------------------- estimator

struct EstimatorPool {
	Pool pool;
	Traffic tr;
	explicit EstimatorPool(ll_u64 ewma_shift = 0)
		: pool(Config(ewma_shift), 10 * kGbit, kPhi), tr{pool, {}}
	{
	}
	static ll_mmu_config Config(ll_u64 ewma_shift)
	{
		ll_mmu_config c = UConfig();
		c.total_bytes = 100000000;
		c.lossless_mask = 0x08;
		c.scheme_params.dsh.ewma_shift = ewma_shift;
		return c;
	}
	ll_s32 GAvg() { return pool->ports[0].sch.dsh.g_avg[3]; }
	ll_s32 VAvg() { return pool->ports[0].sch.dsh.v_avg[3]; }
};

// #10: constant gradient G = C / 2 from the zero state (w = 1/4, k = 4):
// g_hat / G = 1.25, 1.9375, 2.265625, 2.37109375, 2.3447265625,
// 2.245849609375, exactly; then it converges to G. phi_hat = g_hat x D.
TEST(DshEstimator, TestVector)
{
	EstimatorPool e;
	const double ratio[] = {1.25, 1.9375, 2.265625, 2.37109375, 2.3447265625,
				2.245849609375};
	const ll_s32 g_avg[] = {2048, 3584, 4736, 5600, 6248, 6734};
	const ll_s32 v_avg[] = {2048, 3072, 3456, 3456, 3240, 2916};
	// 1000 B every 1600 ns: the link carries 2000 B, G = C / 2 = 8192.
	ll_u64 t = 1600;
	e.tr.Send(0, 3, t, 1000, 0);
	EXPECT_EQ(e.GAvg(), 0);		// the first arrival only samples
	EXPECT_EQ(ll_dsh_headroom_estimate(e.pool.p(), 0, 3), 0u);
	for (int n = 0; n < 6; n++) {
		t += 1600;
		e.tr.Send(0, 3, t, 1000, 0);
		EXPECT_EQ(e.GAvg(), g_avg[n]) << n;
		EXPECT_EQ(e.VAvg(), v_avg[n]) << n;
		ll_s32 g_hat = e.GAvg() + 4 * e.VAvg();
		EXPECT_EQ((double)g_hat / 8192.0, ratio[n]) << n;
		// phi_hat = (g_hat / C) x Phi, Phi = 2^14: exact.
		EXPECT_EQ(ll_dsh_headroom_estimate(e.pool.p(), 0, 3),
			  std::min<ll_u64>(kPhi, (ll_u64)g_hat)) << n;
		EXPECT_EQ(ll_dsh_tau(e.pool.p(), 0, 3),
			  ll_dsh_headroom_estimate(e.pool.p(), 0, 3));
	}
	for (int n = 0; n < 200; n++) {
		t += 1600;
		e.tr.Send(0, 3, t, 1000, 0);
	}
	ll_s32 g_hat = e.GAvg() + 4 * e.VAvg();
	EXPECT_NEAR(g_hat, 8192, 82);		// within 1 %
	e.tr.ReleaseAll(t);

	// G = C: phi_hat = Phi on every row.
	EstimatorPool c;
	t = 800;
	c.tr.Send(0, 3, t, 1000, 0);
	for (int n = 0; n < 50; n++) {
		t += 800;
		c.tr.Send(0, 3, t, 1000, 0);
		EXPECT_EQ(ll_dsh_headroom_estimate(c.pool.p(), 0, 3), kPhi) << n;
	}
	c.tr.ReleaseAll(t);
}

// #11: equal timestamps, a shrinking queue, the mapping's bounds, and the
// 32-bit time sample wrapping.
TEST(DshEstimator, EdgeInputs)
{
	{
		EstimatorPool e;
		e.tr.Send(0, 3, 5000, 1000, 0);
		e.tr.Send(0, 3, 5000, 1000, 0);	// dt 0: taken as 1 ns
		EXPECT_EQ(e.GAvg(), LL_DSH_ONE / 4);
		EXPECT_EQ(ll_dsh_headroom_estimate(e.pool.p(), 0, 3), kPhi);
		e.tr.ReleaseAll(5000);
	}
	{
		// Shrinking: each step releases 3 packets and admits 1.
		EstimatorPool e;
		ll_u64 t = 1000;
		for (int i = 0; i < 200; i++)
			e.tr.Send(0, 3, t, 1000, 0);
		for (int i = 0; i < 60; i++) {
			t += 1600;
			for (int r = 0; r < 3; r++)
				e.tr.Release(t, 0);
			e.tr.Send(0, 3, t, 1000, 0);
		}
		EXPECT_LT(e.GAvg(), 0);
		EXPECT_EQ(ll_dsh_headroom_estimate(e.pool.p(), 0, 3), 0u);
		EXPECT_FALSE(ll_dsh_single_queue(e.pool.p(), 0));
		EXPECT_EQ(ll_mmu_ingress_threshold(e.pool.p(), 0, 3), T(e.pool));
		e.tr.ReleaseAll(t);
	}
	{
		// The time sample keeps 32 bits: dt across 2^32 ns is right.
		EstimatorPool e;
		ll_u64 t = (1ull << 32) - 100;
		e.tr.Send(0, 3, t, 1000, 0);
		e.tr.Send(0, 3, t + 1600, 1000, 0);
		EXPECT_EQ(e.GAvg(), 2048);	// G = C / 2, first update
		e.tr.ReleaseAll(t + 1600);
	}
	{
		// phi_hat against g_hat = g_avg + k v_avg (white box): monotone,
		// never below min(Phi, g_hat x D), never above Phi.
		EstimatorPool e;
		ll_dsh_port_state &st = e.pool->ports[0].sch.dsh;
		ll_u64 prev = 0;
		for (ll_s32 g = -LL_DSH_ONE; g <= 3 * LL_DSH_ONE; g += 97) {
			st.g_avg[3] = (ll_s16)std::max(-LL_DSH_ONE, std::min(g, LL_DSH_ONE));
			st.v_avg[3] = (ll_u16)(g > LL_DSH_ONE ? (g - LL_DSH_ONE) / 4 : 0);
			ll_s64 g_hat = st.g_avg[3] + 4 * st.v_avg[3];
			ll_u64 phi = ll_dsh_headroom_estimate(e.pool.p(), 0, 3);
			double exact = std::min<double>(kPhi, std::max<double>(
				0, (double)g_hat / LL_DSH_ONE * kPhi));
			ASSERT_GE(phi, prev) << g;
			ASSERT_GE((double)phi, exact) << g;
			ASSERT_LT((double)phi, exact + 1) << g;
			ASSERT_LE(phi, kPhi);
			prev = phi;
		}
		EXPECT_EQ(prev, kPhi);
	}
}

// #12: Alg. 4. One class for the window + 1 ns: tau = 0 (X_qoff = T); at
// exactly the window: tau = phi_hat (strict ">"); another lossless class:
// multi-queue mode at once; alternating classes: never single; the lossy
// (control) class changes nothing.
TEST(DshAlg4, SingleQueueWindow)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t0 = 1000, t = t0;
	for (int i = 0; i < 20; i++, t += kLineNs)
		tr.Send(0, 3, t);
	ASSERT_EQ(ll_dsh_tau(pool.p(), 0, 3), kPhi);	// line rate
	ll_mmu_sweep(pool.p(), t0 + kWindow);		// time passes
	EXPECT_FALSE(ll_dsh_single_queue(pool.p(), 0));
	EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 3), kPhi);
	// Lossy packets on the port do not restart the window.
	tr.Send(0, 0, t0 + kWindow);
	ll_mmu_sweep(pool.p(), t0 + kWindow + 1);
	EXPECT_TRUE(ll_dsh_single_queue(pool.p(), 0));
	EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 3), 0u);
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 3), T(pool));
	// One packet of class 4: multi-queue mode immediately.
	t = t0 + kWindow + 5;
	tr.Send(0, 4, t);
	EXPECT_FALSE(ll_dsh_single_queue(pool.p(), 0));
	EXPECT_EQ(St(pool, 0).start_ns, t);
	EXPECT_EQ(ll_dsh_tau(pool.p(), 0, 3), kPhi);
	// Alternating classes, 1 ms apart, for 5 windows: never single.
	for (int i = 0; i < 50; i++) {
		t += 1000000;
		tr.Send(0, i % 2 ? 3 : 4, t);
		ASSERT_FALSE(ll_dsh_single_queue(pool.p(), 0)) << i;
	}
	// Another port's traffic is another port's business.
	EXPECT_FALSE(ll_dsh_single_queue(pool.p(), 1));
	tr.Send(1, 2, t);
	EXPECT_FALSE(ll_dsh_single_queue(pool.p(), 0));
	tr.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// ------------------------------------------------------------- frames

// #13: one frame per transition; RESUME is the bit with time 0; with
// delta = 2 MTU, a queue hovering at its threshold sends nothing.
TEST(DshFrames, QueuePauseResumeOneFramePerTransition)
{
	ll_mmu_config c = UConfig();
	c.xon_offset_bytes = 2 * 1500;
	Pool pool(c, 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_ctrl_msg f;
	ll_u64 t = 1;
	tr.Send(0, 2, t);
	t += kWindow + 1;
	while (!Paused(pool.p(), 0, 2))
		tr.Send(0, 2, t++);
	ASSERT_TRUE(Frame(pool, 0, t, &f));
	EXPECT_EQ(f.gate_mask, 0x04);
	EXPECT_EQ(f.value[2], kQ);
	for (int i = 0; i < 5; i++) {
		tr.Send(0, 2, t++);
		EXPECT_FALSE(Frame(pool, 0, t, &f));
	}
	// Hover: one out, one in, around the threshold.
	for (int i = 0; i < 20; i++) {
		tr.Release(t++);
		EXPECT_FALSE(Frame(pool, 0, t, &f)) << i;
		tr.Send(0, 2, t++);
		EXPECT_FALSE(Frame(pool, 0, t, &f)) << i;
	}
	// XON exactly when shared + delta < T (tau = 0).
	const ll_mmu_iq &iq = pool->ports[0].iq[2];
	while (Paused(pool.p(), 0, 2)) {
		ASSERT_GE(iq.shared_used + 3000, T(pool));
		tr.Release(t++);
	}
	EXPECT_LT(iq.shared_used + 3000, T(pool));
	EXPECT_GE(iq.shared_used + kPkt + 3000, T(pool) - kPkt / 8);
	ASSERT_TRUE(Frame(pool, 0, t, &f));
	EXPECT_EQ(f.gate_mask, 0x04);
	EXPECT_EQ(f.value[2], 0);
	EXPECT_FALSE(Frame(pool, 0, t, &f));
	tr.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// Port 0's class 4 alone fills the port's allocation (its upstream
// ignores QOFF) until the port gate fails: one packet in insurance, the
// port paused, class 4 far above its queue threshold.
struct FullPort {
	Pool pool;
	Traffic tr;
	ll_u64 t = 1;

	FullPort() : pool(UConfig(), 10 * kGbit, kPhi), tr{pool, {}}
	{
		ll_mmu_verdict v;
		do {
			v = tr.Send(0, 4, t++);
			EXPECT_TRUE(ll_mmu_admitted(v));
		} while (v != LL_MMU_ADMIT_HEADROOM && ll_mmu_admitted(v));
		EXPECT_EQ(St(pool, 0).qoff, 0x10);
		EXPECT_EQ(St(pool, 0).poff, 1);
		EXPECT_EQ(pool->ports[0].xoff.want, kUMask);
		EXPECT_EQ(pool->ports[0].headroom_used, kPkt);
	}
};

// #15: the port RESUME keeps class 4, still in QOFF, paused.
TEST(DshFrames, PortResumeKeepsQueueLevelPause)
{
	FullPort s;
	ll_ctrl_msg f;
	ASSERT_TRUE(Frame(s.pool, 0, s.t, &f));
	EXPECT_FALSE(Frame(s.pool, 0, s.t, &f));
	ASSERT_EQ(s.pool->ports[0].xoff.told, kUMask);
	while (St(s.pool, 0).poff)
		s.tr.Release(s.t++);
	EXPECT_EQ(St(s.pool, 0).qoff, 0x10);
	EXPECT_GT(s.pool->ports[0].iq[4].shared_used, 2 * T(s.pool));
	ASSERT_TRUE(Frame(s.pool, 0, s.t, &f));
	EXPECT_EQ(f.gate_mask, kUMask);
	for (ll_u32 j = 0; j < 8; j++)
		EXPECT_EQ(f.value[j], j == 4 ? kQ : 0) << j;
	EXPECT_EQ(s.pool->ports[0].xoff.told, 0x10);
	s.tr.ReleaseAll(s.t);
	ExpectAllResumed(s.pool, s.t);
}

// #16: a queue RESUME while the port is paused sends nothing; #17: the
// port RESUME waits for the last insurance byte.
TEST(DshFrames, QueueResumeInPortOffAndInsuranceGate)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_ctrl_msg f;
	ll_u64 t = 1;
	// Class 1 alone, single-queue mode, until the port gate fails; its
	// insurance packet leaves; class 2 then fails the gate too.
	tr.Send(0, 1, t);
	t += kWindow + 1;
	while (tr.Send(0, 1, t++) != LL_MMU_ADMIT_HEADROOM)
		;
	tr.Release(t++);	// class 1's insurance packet (drain order)
	ASSERT_EQ(pool->ports[0].headroom_used, 0u);
	ll_mmu_verdict v;
	while ((v = tr.Send(0, 2, t++)) != LL_MMU_ADMIT_HEADROOM)
		ASSERT_TRUE(ll_mmu_admitted(v));
	ASSERT_EQ(St(pool, 0).poff, 1);
	ASSERT_EQ(St(pool, 0).qoff, 0x02);
	while (Frame(pool, 0, t, &f))
		;
	ASSERT_EQ(pool->ports[0].xoff.told, kUMask);
	// Class 1 drains below its queue threshold: QON, but no frame.
	size_t i = 0;
	while (St(pool, 0).qoff & 0x02) {
		while (tr.held[i].prio != 1)
			i++;
		tr.Release(t++, i);
		ASSERT_FALSE(Frame(pool, 0, t, &f));
	}
	// #17: S_0 far below X_pon, 1 KiB of insurance (class 2): POFF.
	EXPECT_LT(ll_dsh_port_shared(pool.p(), 0), ll_dsh_port_threshold(pool.p()) / 2);
	EXPECT_EQ(pool->ports[0].headroom_used, kPkt);
	EXPECT_EQ(St(pool, 0).poff, 1);
	EXPECT_EQ(pool->ports[0].xoff.want, kUMask);
	// The last insurance byte leaves: the RESUME goes out.
	size_t last2 = tr.held.size();
	while (tr.held[--last2].prio != 2)
		;
	ll_u32 ev = tr.Release(t++, last2);
	EXPECT_TRUE(ev & LL_MMU_EV_PFC_DUE);
	EXPECT_EQ(St(pool, 0).poff, 0);
	ASSERT_TRUE(Frame(pool, 0, t, &f));
	EXPECT_EQ(f.gate_mask, kUMask);
	for (ll_u32 j = 0; j < 8; j++)
		EXPECT_EQ(f.value[j], 0) << j;
	tr.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// #17 with tagged release: the insurance bytes leave with their packets.
TEST(DshFrames, PortResumeWaitsForInsuranceTagged)
{
	ll_mmu_config c = UConfig();
	c.release_order = LL_MMU_RELEASE_TAGGED;
	Pool pool(c, 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t = 1;
	tr.Send(0, 1, t);
	t += kWindow + 1;
	while (tr.Send(0, 1, t++) != LL_MMU_ADMIT_HEADROOM)
		;
	ASSERT_EQ(St(pool, 0).poff, 1);
	// Release everything but the insurance packet (the last).
	while (tr.held.size() > 1) {
		tr.Release(t++, 0);
		ASSERT_EQ(St(pool, 0).poff, 1);
	}
	EXPECT_EQ(ll_dsh_port_shared(pool.p(), 0), 0u);
	tr.Release(t++, 0);
	EXPECT_EQ(St(pool, 0).poff, 0);
	ExpectAllResumed(pool, t);
}

// #18: a pause held longer than half its time is re-sent.
TEST(DshFrames, RefreshWhilePaused)
{
	FullPort s;
	ll_ctrl_msg f;
	while (Frame(s.pool, 0, s.t, &f))
		;
	ll_u64 refresh = s.pool->ports[0].xoff.refresh_at_ns;
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(s.pool.p(), 0), refresh);
	EXPECT_FALSE(ll_mmu_ctrl_due(s.pool.p(), 0, refresh - 1));
	EXPECT_TRUE(ll_mmu_port_timer(s.pool.p(), 0, refresh));
	ASSERT_TRUE(Frame(s.pool, 0, refresh, &f));
	EXPECT_EQ(f.gate_mask, kUMask);
	for (ll_u32 j = 0; j < 8; j++)
		EXPECT_EQ(f.value[j], (kUMask >> j) & 1 ? kQ : 0) << j;
	EXPECT_EQ(s.pool->ports[0].iq[1].xoff_refreshes, 1u);
	s.tr.ReleaseAll(refresh);
	ExpectAllResumed(s.pool, refresh);
}

// Lossy traffic shares the region but neither counts in S_i nor is paused.
TEST(DshFrames, LossyClassNeverPausedNorCounted)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	for (int i = 0; i < 100; i++)
		ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 0, 10 + i)));
	EXPECT_GT(pool->ports[0].shared_used, 0u);
	EXPECT_EQ(ll_dsh_port_shared(pool.p(), 0), 0u);
	EXPECT_FALSE(St(pool, 0).has_prev);
	FullPort s;
	ll_ctrl_msg f;
	while (Frame(s.pool, 0, s.t, &f))
		EXPECT_EQ(f.gate_mask & 0x01, 0);
	tr.ReleaseAll(200);
	s.tr.ReleaseAll(s.t);
	ExpectAllResumed(pool, 200);
}

// ------------------------------------------------------ single queue

// #25: one active queue: X_qoff = T, and the port holds back exactly Phi.
TEST(DshSingleQueue, LongRunHoldsOnlyInsurance)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t = 1;
	for (int i = 0; i < 2000; i++) {
		t += 20000;			// 20 ms of class 1 at 4 % of C
		tr.Send(0, 1, t);
		if (tr.held.size() > 40)
			tr.Release(t, 0);
	}
	EXPECT_TRUE(ll_dsh_single_queue(pool.p(), 0));
	EXPECT_EQ(ll_mmu_ingress_threshold(pool.p(), 0, 1), T(pool));
	EXPECT_EQ(pool->headroom_size, 4u * kPhi);
	EXPECT_EQ(pool->ports[0].xoff.want, 0);
	tr.ReleaseAll(t);
	ExpectEmpty(pool.p());
}

// ------------------------------------------------------------ liveness

// #27: port 0's queue is paused, port 1 drains: T rises, the sweep the MMU
// asks for resumes port 0 with no event on its queue.
TEST(DshLiveness, SweepResumesWhenAnotherPortDrains)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic other{pool, {}}, mine{pool, {}};
	ll_u64 t = 1;
	for (int i = 0; i < 200; i++)
		other.Send(1, 2, t++, kPkt, 2);		// 200 KB on port 1
	mine.Send(0, 1, t);
	t += kWindow + 1;
	while (!Paused(pool.p(), 0, 1))
		mine.Send(0, 1, t++);
	ll_ctrl_msg f;
	while (Frame(pool, 0, t, &f))
		;
	bool swept = false;
	while (!other.held.empty() && Paused(pool.p(), 0, 1)) {
		ll_u32 ev = other.Release(t++);
		if (ev & LL_MMU_EV_SWEEP) {
			ll_u64 due = ll_mmu_sweep(pool.p(), t);
			swept = true;
			if (!Paused(pool.p(), 0, 1)) {
				EXPECT_TRUE(due & 1);
			}
		}
	}
	EXPECT_TRUE(swept);
	EXPECT_FALSE(Paused(pool.p(), 0, 1));
	EXPECT_FALSE(other.held.empty());	// before port 1 emptied
	ASSERT_TRUE(Frame(pool, 0, t, &f));
	EXPECT_EQ(f.gate_mask, 0x02);
	EXPECT_EQ(f.value[1], 0);
	mine.ReleaseAll(t);
	other.ReleaseAll(t);
	ExpectAllResumed(pool, t);
}

// The end of the window (tau to 0) resumes a queue paused between T - tau
// and T: the port timer's deadline, not a packet.
TEST(DshLiveness, WindowDeadlineResumesPausedQueue)
{
	ll_mmu_config c = UConfig();
	c.scheme_params.dsh.window_ns = 100000;		// 100 us
	Pool pool(c, 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_u64 t0 = 1000, t = t0;
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
	while (!Paused(pool.p(), 0, 1)) {
		tr.Send(0, 1, t);
		t += kLineNs;
	}
	ll_ctrl_msg f;
	ASSERT_TRUE(Frame(pool, 0, t, &f));
	ASSERT_LT(pool->ports[0].iq[1].shared_used, T(pool));
	EXPECT_EQ(ll_dsh_port_deadline(pool.p(), 0), t0 + 100000 + 1);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), t0 + 100000 + 1);
	EXPECT_EQ(ll_mmu_port_timer(pool.p(), 0, t0 + 100000), 0);
	EXPECT_TRUE(Paused(pool.p(), 0, 1));
	EXPECT_EQ(ll_mmu_port_timer(pool.p(), 0, t0 + 100000 + 1), 1);
	EXPECT_FALSE(Paused(pool.p(), 0, 1));
	EXPECT_EQ(ll_dsh_port_deadline(pool.p(), 0), LL_MMU_NEVER);
	ASSERT_TRUE(Frame(pool, 0, t0 + 100001, &f));
	EXPECT_EQ(f.value[1], 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(pool.p(), 0), LL_MMU_NEVER);
	tr.ReleaseAll(t0 + 100002);
	ExpectAllResumed(pool, t0 + 100002);
}

// --------------------------------------------------------------- ports

// #28: detach and attach reset qoff, poff, Alg. 4 and the estimator;
// charges made before are released without harm.
TEST(DshPort, DetachResetsState)
{
	FullPort s;
	ll_u8 told = 0;
	ll_ctrl_msg f;
	while (Frame(s.pool, 0, s.t, &f))
		;
	told = ll_mmu_port_detach(s.pool.p(), 0, s.t);
	EXPECT_EQ(told, kUMask);
	ll_mmu_port_config pc = PortCfg(10 * kGbit, kPhi);
	ASSERT_EQ(ll_mmu_port_attach(s.pool.p(), 0, &pc, s.t), LL_MMU_OK);
	const ll_dsh_port_state &st = St(s.pool, 0);
	EXPECT_EQ(st.qoff | st.poff | st.has_prev | st.est_valid, 0);
	EXPECT_EQ(ll_mmu_ctrl_next_deadline(s.pool.p(), 0), LL_MMU_NEVER);
	s.tr.ReleaseAll(s.t);
	EXPECT_GT(s.pool->ctr.stale_releases, 0u);
	ExpectEmpty(s.pool.p());
	ExpectAllResumed(s.pool, s.t);
}

// The seam's per-port check: a port update may not leave the port's
// queues more insurance bytes than its new Phi (each queue's own use fits).
TEST(DshPort, UpdateRefusedBelowInsuranceInUse)
{
	FullPort s;
	ll_u64 t = s.t;
	// Class 1: its reserve, then 3 KiB of insurance (the gate still fails).
	ASSERT_EQ(s.tr.Send(0, 1, t++), LL_MMU_ADMIT_RESERVED);
	ASSERT_EQ(s.tr.Send(0, 1, t++), LL_MMU_ADMIT_RESERVED);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(s.tr.Send(0, 1, t++), LL_MMU_ADMIT_HEADROOM);
	ASSERT_EQ(s.pool->ports[0].headroom_used, 4u * kPkt);
	ll_mmu_port_config pc = PortCfg(10 * kGbit, 3500);
	EXPECT_EQ(ll_mmu_port_update(s.pool.p(), 0, &pc, t), LL_MMU_ERR_BUSY);
	EXPECT_EQ(s.pool->ports[0].headroom_bytes, kPhi);
	pc.headroom_bytes = 4 * kPkt;
	EXPECT_EQ(ll_mmu_port_update(s.pool.p(), 0, &pc, t), LL_MMU_OK);
	EXPECT_EQ(s.pool->headroom_size, 3u * kPhi + 4 * kPkt);
	// Turning insurance off under load is refused, and allowed when empty.
	ll_mmu_config c = s.pool->cfg;
	c.scheme_params.dsh.flags = LL_DSH_F_NO_INSURANCE;
	EXPECT_EQ(ll_mmu_pool_reconfigure(s.pool.p(), &c), LL_MMU_ERR_BUSY);
	s.tr.ReleaseAll(t);
	EXPECT_EQ(ll_mmu_pool_reconfigure(s.pool.p(), &c), LL_MMU_OK);
	EXPECT_EQ(s.pool->headroom_size, 0u);
	ExpectEmpty(s.pool.p());
}

// The scheme changes only when idle; DSH starts from zeroed state, and DT
// finds its static headroom again.
TEST(DshScheme, ChangeOnlyWhenIdle)
{
	FullPort s;
	ll_mmu_config dt = s.pool->cfg;
	dt.scheme = LL_SCHEME_DT;
	dt.scheme_params = {};
	EXPECT_EQ(ll_mmu_pool_reconfigure(s.pool.p(), &dt), LL_MMU_ERR_BUSY);
	s.tr.ReleaseAll(s.t);
	ASSERT_EQ(ll_mmu_pool_reconfigure(s.pool.p(), &dt), LL_MMU_OK);
	EXPECT_EQ(s.pool->headroom_size, 4u * 4 * kPhi);
	EXPECT_EQ(s.pool->shared_size, 753664u);	// SIH's B_s of U
	ll_mmu_config back = UConfig();
	ASSERT_EQ(ll_mmu_pool_reconfigure(s.pool.p(), &back), LL_MMU_OK);
	EXPECT_EQ(s.pool->shared_size, 950272u);
	for (ll_u32 p = 0; p < 4; p++)
		EXPECT_FALSE(St(s.pool, p).has_prev);
	ExpectAllResumed(s.pool, s.t);
}

} // namespace

// ------------------------------------------------------------ telemetry

namespace {

// A peak reset keeps what is in use: with insurance still held after the
// peak, the insurance and shared-headroom peaks drop to the levels of now.
TEST(DshTelemetry, ResetPeaksToWhatIsInUse)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_scheme_port_stats ss;
	ll_u64 t = 1;
	for (ll_u32 n = 1; n <= 327; n++) {
		if (n == 2)
			t += kWindow;
		ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 1, t++)));
	}
	tr.Release(t);				// the last packet: insurance
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, t, &ss), 1);
	ASSERT_LT(ss.ctr[2], ss.ctr[3]);	// in use below its peak
	ASSERT_GT(ss.ctr[2], 0u);
	ll_mmu_reset_peaks(pool.p());
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, t, &ss), 1);
	EXPECT_EQ(ss.ctr[3], ss.ctr[2]);	// insurance peak = in use
	EXPECT_EQ(ss.ctr[5], ss.ctr[4]);	// shared headroom peak = in use
	tr.ReleaseAll(t);
}

// #5's sequence, counted: one queue pause at 106, one port pause at 312,
// the insurance's peak kept after the drain, the shared headroom (bytes
// above X_qoff while in QOFF) and its peak, and the ring's QOFF, POFF,
// then QON and PON with the bytes of the moment.
TEST(DshTelemetry, PausesCountedOncePeaksKept)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	Traffic tr{pool, {}};
	ll_scheme_port_stats ss;
	ll_u64 t = 1, hr_peak = 0;
	for (ll_u32 n = 1; n <= 327; n++) {
		if (n == 2)
			t += kWindow;
		ASSERT_TRUE(ll_mmu_admitted(tr.Send(0, 1, t++)));
		hr_peak = std::max(hr_peak, ll_dsh_shared_headroom(pool.p(), 0));
	}
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, t, &ss), 1);
	EXPECT_EQ(ss.scheme, (ll_u32)LL_SCHEME_DSH);
	EXPECT_EQ(ss.masks & 0xff, 1u << 1);			// qoff: prio 1
	EXPECT_EQ((ss.masks >> 8) & 0xff, (ll_u32)kUMask);	// poff: all lossless
	EXPECT_EQ((ss.masks >> 16) & 0xff, 1u << 1);		// single-queue: 1
	EXPECT_EQ(ss.ctr[0], 1u);				// qoff_pauses
	EXPECT_EQ(ss.ctr[1], 1u);				// poff_pauses
	EXPECT_EQ(ss.ctr[2], (ll_u64)kPhi);			// insurance_used
	EXPECT_EQ(ss.ctr[3], (ll_u64)kPhi);			// insurance_peak
	// tau 0 (single queue): X_qoff = T; the bytes above it are shared headroom.
	ll_u64 s = pool->ports[0].iq[1].shared_used;
	EXPECT_EQ(ss.ctr[4], s - T(pool));
	EXPECT_GT(ss.ctr[4], 0u);
	EXPECT_EQ(ss.ctr[5], hr_peak);
	EXPECT_EQ(ss.ctr[6], ll_dsh_port_shared(pool.p(), 0));
	EXPECT_EQ(ss.prio[0][1], 0u);				// tau
	EXPECT_EQ(ss.prio[0][0], 0u);				// lossy: nothing

	tr.ReleaseAll(t);
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, t, &ss), 1);
	EXPECT_EQ(ss.masks & 0xffff, 0u);
	EXPECT_EQ(ss.ctr[0], 1u);
	EXPECT_EQ(ss.ctr[1], 1u);
	EXPECT_EQ(ss.ctr[2], 0u);
	EXPECT_EQ(ss.ctr[3], (ll_u64)kPhi);			// the peak stays
	EXPECT_EQ(ss.ctr[4], 0u);
	EXPECT_EQ(ss.ctr[5], hr_peak);
	// Until the peaks are reset, to what is in use: nothing now.
	ll_mmu_reset_peaks(pool.p());
	ASSERT_EQ(ll_scheme_get_port_stats(pool.p(), 0, t, &ss), 1);
	EXPECT_EQ(ss.ctr[3], 0u);
	EXPECT_EQ(ss.ctr[5], 0u);
	EXPECT_EQ(ss.ctr[0], 1u);				// counts stay

	std::vector<ll_scheme_event> ev = Events(pool.p());
	ASSERT_EQ(ev.size(), 4u);
	EXPECT_EQ(ev[0].type, LL_DSH_EV_QOFF);
	EXPECT_EQ(ev[0].prio, 1);
	EXPECT_EQ(ev[0].bytes, 106u * kPkt);			// 2 reserved, 104 shared
	EXPECT_EQ(ev[0].time_ns, kWindow + 106);
	EXPECT_EQ(ev[1].type, LL_DSH_EV_POFF);
	EXPECT_EQ(ev[1].prio, 0xff);
	EXPECT_EQ(ev[1].bytes, 316416u + kPkt);			// S_i + insurance
	EXPECT_EQ(ev[1].shared_used, 316416u);			// port 0's alone
	std::vector<int> rest = {ev[2].type, ev[3].type};
	std::sort(rest.begin(), rest.end());
	EXPECT_EQ(rest, (std::vector<int>{LL_DSH_EV_QON, LL_DSH_EV_PON}));
	for (const auto &e : ev)
		EXPECT_EQ(e.port, 0);
}

// Only DSH and SPFC have telemetry; a detached port has none.
TEST(DshTelemetry, OtherSchemesAndDetachedPorts)
{
	ll_scheme_port_stats ss;
	Pool dt(UConfig(LL_SCHEME_DT), 10 * kGbit, kPhi);
	EXPECT_EQ(ll_scheme_get_port_stats(dt.p(), 0, 1, &ss), 0);
	EXPECT_EQ(ss.scheme, (ll_u32)LL_SCHEME_DT);
	EXPECT_EQ(ss.ctr[0] | ss.masks, 0u);
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	ll_mmu_port_detach(pool.p(), 2, 1);
	EXPECT_EQ(ll_scheme_get_port_stats(pool.p(), 2, 1, &ss), -1);
	EXPECT_EQ(ll_scheme_get_port_stats(pool.p(), 9, 1, &ss), -1);
}

// The ring keeps the latest LL_SCHEME_EVENTS, overwriting the oldest.
TEST(DshTelemetry, EventRingWraps)
{
	Pool pool(UConfig(), 10 * kGbit, kPhi);
	for (ll_u32 i = 0; i < LL_SCHEME_EVENTS + 6; i++)
		ll_scheme_log_event(pool.p(), i % 4, i % 8, LL_DSH_EV_QOFF, i, 1000 + i);
	EXPECT_EQ(pool->events.total, (ll_u64)LL_SCHEME_EVENTS + 6);
	std::vector<ll_scheme_event> ev = Events(pool.p());
	ASSERT_EQ(ev.size(), (size_t)LL_SCHEME_EVENTS);
	for (ll_u32 i = 0; i < LL_SCHEME_EVENTS; i++) {
		EXPECT_EQ(ev[i].bytes, i + 6u) << i;
		EXPECT_EQ(ev[i].time_ns, 1006u + i) << i;
		EXPECT_EQ(ev[i].port, (i + 6) % 4) << i;
		EXPECT_EQ(ev[i].prio, (i + 6) % 8) << i;
	}
}

} // namespace
