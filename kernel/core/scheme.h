/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The scheme seam: the hooks mmu.c calls where an algorithm decides, and
 * the services the MMU gives a scheme. Each hook is one switch on the
 * pool's scheme id (the packet path's at the end of this file, inline;
 * the others in scheme.c), so the core stays callable from BPF (no
 * function pointers) and a scheme is one file (scheme_<name>.c).
 *
 * What a scheme decides:
 *   threshold    the X_off threshold of a lossless ingress (port, prio)
 *                and the lossy admission threshold of an egress queue;
 *   admission    where lossless bytes beyond the reserve go (shared,
 *                headroom, a scheme's own region) or that they drop;
 *   hysteresis   whether a lossless ingress wants its upstream paused
 *                (ll_mmu_want() sets the bit the PFC generator reads);
 *   carve        the headroom a port takes out of the shared region;
 *   events       an arrival about to be decided (a scheme brings its
 *                state up to now), admitted / released bytes (counters,
 *                estimators);
 *   timer        a per-port deadline: the port's qdisc timer runs the
 *                scheme's tick at it (windows, slots).
 * Accounting (regions, counters, charges, PFC frames) stays in mmu.c.
 *
 * Every hook runs under the pool lock, like the rest of mmu.h.
 */
#ifndef LL_SCHEME_H
#define LL_SCHEME_H

#include "mmu.h"
#include "param.h"

#define LL_SCHEME_NAME_MAX 8

struct ll_scheme_port_stats;

/*
 * One scheme, described: everything about it that is not its per-packet
 * code, in its own file (scheme_<name>.c), indexed by id in scheme.c's
 * table. Netlink (the module's policy, parse and dump), tc, the daemon's
 * configuration and policies, losslessctl and the Prometheus metrics read
 * a scheme from here and have no code per scheme. The per-packet hooks
 * are the inline switches at the end of this file (a call through a
 * pointer per packet is measurable under emulation); everything here runs
 * at configuration time, on a port's timer or for telemetry.
 */
struct ll_scheme_desc {
	const char *name;	/* what users type (tc, TOML, losslessctl) */
	const char *title;	/* one line: "Dynamic and Shared Headroom" */
	const char *doc;	/* its page: "docs/DSH.md" */
	ll_u32 hooks;		/* LL_SCHEME_HOOK_*: the packet hooks it has */
	/*
	 * Its parameters, row i = word i of union ll_scheme_params = netlink
	 * attribute i + 1 of its nest (nl_nest in TCA_LOSSLESS_SCHEME; the
	 * nest's attribute n_params + 1 is its pad). The rest of the union
	 * must be 0.
	 */
	const struct ll_param *params;
	ll_u32 n_params;
	ll_u16 nl_nest;		/* TCA_LOSSLESS_SCHEME_<NAME>; 0: none */
	ll_u16 nl_pad;		/* the nest's pad attribute */
	/*
	 * Its telemetry (struct ll_scheme_port_stats), named by position:
	 * stats[i] names ctr[i], masks[i] mask i, prio_stats[i] prio[i] (a
	 * NULL name is unused). The scheme writes them through its own enum,
	 * which indexes these tables too (designated initializers).
	 */
	const struct ll_scheme_stat_desc *stats;
	ll_u32 n_stats;
	const char *const *masks;
	ll_u32 n_masks;
	const struct ll_scheme_stat_desc *prio_stats;
	ll_u32 n_prio_stats;
	/*
	 * Its events in the pool's ring (ll_scheme_log_event()), named by
	 * type: events[t] names type t (a NULL name and 0, an empty slot, are
	 * unused). Indexed by the scheme's own enum of event types, which
	 * only it logs; readers name an event by the scheme it records.
	 */
	const struct ll_scheme_event_desc *events;
	ll_u32 n_events;
	/*
	 * 1 + the index in stats of the headroom bytes the port's queues
	 * held at most beyond each queue's own (DSH's shared insurance), which
	 * the daemon's measured software delay must also cover; 0: none.
	 */
	ll_u32 headroom_peak_stat;
	/* Why cfg's parameters are refused, for the user, or NULL. */
	const char *(*check)(const struct ll_mmu_config *cfg);
	/*
	 * Why the pool's ports cannot have their numbers (scheme_port, 1 +
	 * tc's scheme-port; 0: the pool index) under cfg, for the user, or
	 * NULL. port < LL_MMU_MAX_PORTS is attaching or changing, with
	 * scheme_port; the other ports as they are. NULL hook: any numbers.
	 */
	const char *(*ports_check)(const struct ll_mmu_pool *pool,
				   const struct ll_mmu_config *cfg,
				   ll_u32 port, ll_u32 scheme_port);
	/* Headroom a port of headroom h carves (NULL: h per lossless prio). */
	ll_u64 (*port_carve)(const struct ll_mmu_config *cfg, ll_u64 h);
	/* The port's timer at its deadline (LL_SCHEME_HOOK_TIMER). */
	void (*port_tick)(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
	/* Its peaks back to what is in use (NULL: it keeps none). */
	void (*reset_peaks)(struct ll_mmu_pool *pool, ll_u32 port);
	/* Its telemetry of port into out (NULL: none). */
	void (*port_stats)(const struct ll_mmu_pool *pool, ll_u32 port,
			   ll_u64 now_ns, struct ll_scheme_port_stats *out);
	/*
	 * What port sends upstream (ll_mmu_ctrl_take()): msg comes built as
	 * the baseline's PFC frame (every pause wished with the pool's pause
	 * time, every change); the scheme may rewrite it (a pause time it
	 * computes, another kind of ctrl.h's table). NULL: as built.
	 */
	void (*port_frame)(const struct ll_mmu_pool *pool, ll_u32 port,
			   ll_u64 now_ns, struct ll_ctrl_msg *msg);
	/*
	 * ECN (LL_SCHEME_HOOK_ECN): 1 to mark CE an ECT packet admitted to
	 * egress (port, queue), instead of the pool's RED.
	 */
	int (*ecn_mark)(const struct ll_mmu_pool *pool, ll_u32 port,
			ll_u32 queue, ll_u32 rnd);
	/*
	 * Its run-time commands (the plane's control channel, uapi struct
	 * lossless_plane_channel): a payload of channel_len bytes, 8-byte
	 * aligned, checked whole and applied whole, or refused with
	 * -LL_E* and nothing changed. ids[i] names member port i (0: none)
	 * as the payload names ports (the kernel's ifindex). Sets bit i of
	 * *due for each port i on which a frame became due. NULL: the scheme
	 * takes no commands.
	 */
	int (*channel)(struct ll_mmu_pool *pool, const ll_u32 *ids,
		       ll_u32 nr_ids, const void *payload, ll_u64 now_ns,
		       ll_u64 *due);
	ll_u32 channel_len;
	/*
	 * Frames of its own (LL_SCHEME_HOOK_FRAMES: PortFC's), sent instead
	 * of the MMU's PFC by the same take/complete path, one claimed at a
	 * time: whether one is due on port, the frame (1) or none (0),
	 * its fate (sent, at the time it was taken), when the next is due
	 * (0: now; LL_MMU_NEVER: none). Per frame, not per packet.
	 */
	int (*frames_due)(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u64 now_ns);
	int (*frames_take)(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns,
			   struct ll_ctrl_msg *msg);
	void (*frames_complete)(struct ll_mmu_pool *pool, ll_u32 port, int sent,
				ll_u64 at_ns);
	ll_u64 (*frames_next_ns)(const struct ll_mmu_pool *pool, ll_u32 port);
	/*
	 * After a change of the pool, its ports or their numbers (the MMU's
	 * sweep, which the module runs after every change): bring the
	 * scheme's state in line with the counters and mark the ports whose
	 * frames may be due (kick_mask). NULL: nothing to do.
	 */
	void (*resync)(struct ll_mmu_pool *pool, ll_u64 now_ns);
};

/*
 * The control channel's refusals: Linux's errno values, which the kernel
 * returns as they are (it checks that they are the same) and the plane's
 * telemetry carries to the daemon.
 */
#define LL_ENODEV	19
#define LL_EINVAL	22
#define LL_ERANGE	34
#define LL_EMSGSIZE	90
#define LL_EOPNOTSUPP	95

/*
 * Apply a channel payload for scheme to pool (the scheme's channel hook):
 * 0, or -LL_EOPNOTSUPP when scheme is not the pool's or takes no commands,
 * -LL_EMSGSIZE when len is not its payload's size, -LL_EINVAL when
 * nr_ids exceeds the pool's ports (*due has a bit per port), or the
 * scheme's refusal.
 */
int ll_scheme_channel(struct ll_mmu_pool *pool, ll_u32 scheme,
		      const ll_u32 *ids, ll_u32 nr_ids, const void *payload,
		      ll_u32 len, ll_u64 now_ns, ll_u64 *due);

/*
 * The descriptors, each in its scheme's file, for scheme.c's table (a
 * line each; kernel style keeps externs out of .c files).
 */
extern const struct ll_scheme_desc ll_scheme_dt;
extern const struct ll_scheme_desc ll_scheme_st;
extern const struct ll_scheme_desc ll_scheme_dsh;
extern const struct ll_scheme_desc ll_scheme_spfc;
extern const struct ll_scheme_desc ll_scheme_portfc;

/* The descriptor of a scheme the core implements, or NULL. */
const struct ll_scheme_desc *ll_scheme_lookup(ll_u32 id);

/*
 * The descriptor of a selectable scheme (below LL_SCHEME_COUNT: those
 * users can name), or NULL: loop over the ids below LL_SCHEME_COUNT and
 * skip NULL (an id may be reserved, its scheme gone).
 */
const struct ll_scheme_desc *ll_scheme_selectable(ll_u32 id);

/* Name of a selectable scheme id ("dt"), or NULL. */
const char *ll_scheme_name(ll_u32 id);

/* Id of a selectable scheme's name, or -1. */
int ll_scheme_by_name(const char *name);

/*
 * Validate the scheme id (any the core implements, LL_SCHEME_CORE_COUNT)
 * and its parameters in cfg (LL_MMU_ERR_SCHEME, LL_MMU_ERR_SCHEME_PARAMS).
 */
enum ll_mmu_err ll_scheme_check(const struct ll_mmu_config *cfg);

/*
 * Why ll_scheme_check() refuses cfg, for the user ("spfc: spfc-irc-th
 * below one frame", naming tc's keywords), or NULL if it does not. A
 * static string.
 */
const char *ll_scheme_check_msg(const struct ll_mmu_config *cfg);
/* The scheme's ports_check (NULL: fine), for ll_mmu's attach, update and
 * reconfigure, and the module's message.
 */
const char *ll_scheme_ports_check(const struct ll_mmu_pool *pool,
				  const struct ll_mmu_config *cfg,
				  ll_u32 port, ll_u32 scheme_port);

static __always_inline ll_u64
ll_scheme_ingress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			    ll_u32 prio);

/* Every scheme admits lossy bytes under DT's egress threshold. */
static inline ll_u64 ll_scheme_egress_threshold(const struct ll_mmu_pool *pool,
						ll_u32 port, ll_u32 queue)
{
	(void)port;
	(void)queue;
	return ll_mmu_dt_threshold(pool->shared_size, pool->shared_used,
				   pool->cfg.egress_alpha);
}

/*
 * Region for bytes of a lossless (port, prio) that the reserve did not
 * take: LL_MMU_REGION_SHARED, LL_MMU_REGION_HEADROOM (or a scheme's own
 * region), or LL_MMU_REGION_NONE to drop (a lossless drop: a sizing bug).
 */
static __always_inline enum ll_mmu_region
ll_scheme_admit_lossless(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio, ll_u32 bytes, ll_u64 now_ns);

/* Re-evaluate the pause wish of a lossless (port, prio). */
static __always_inline void
ll_scheme_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		   ll_u64 now_ns);

/*
 * Headroom bytes a port of headroom h (ll_mmu_port.headroom_bytes) carves
 * out of the pool: the most its queues together may hold in the headroom
 * region (mmu.c refuses a change that would leave more in use).
 */
ll_u64 ll_scheme_port_carve(const struct ll_mmu_config *cfg, ll_u64 h);
/* 1 if the scheme's headroom is the port's (a port_carve hook: DSH), 0 if
 * each lossless priority has its own headroom_bytes.
 */
int ll_scheme_carves_per_port(const struct ll_mmu_config *cfg);

/*
 * Before ll_mmu_admit() decides on a valid arrival at (port, prio): the
 * scheme brings its state up to now_ns, so that the thresholds and the
 * admission see it fresh (SPFC's window roll).
 */
static __always_inline void
ll_scheme_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		  ll_u64 now_ns);

/* After ll_mmu_admit() charged, and after ll_mmu_release() uncharged. */
static __always_inline void ll_scheme_admitted(struct ll_mmu_pool *pool,
					       const struct ll_mmu_charge *charge,
					       ll_u64 now_ns);
static __always_inline void ll_scheme_released(struct ll_mmu_pool *pool,
					       const struct ll_mmu_charge *charge,
					       ll_u64 now_ns);

/*
 * The hooks a scheme has beyond the baseline's, kept in the pool
 * (ll_mmu_pool.scheme_hooks), so that mmu.c makes no call for the others:
 * a call and a switch per packet for nothing is measurable in the bridge
 * bench under emulation. They run for lossless packets only, unless the
 * scheme lists LL_SCHEME_HOOK_LOSSY: DSH and SPFC watch lossless queues,
 * and a lossy packet changes only the shared occupancy, which the next
 * lossless event or the port's timer reads. LL_SCHEME_HOOK_CLOCK: the
 * scheme reads now_ns in such an admission; without it (and for a lossy
 * packet without LL_SCHEME_HOOK_LOSSY), ll_mmu_admit() may be given 0.
 */
#define LL_SCHEME_HOOK_ARRIVAL	0x01u	/* ll_scheme_arrival() */
#define LL_SCHEME_HOOK_ADMITTED	0x02u	/* ll_scheme_admitted() */
#define LL_SCHEME_HOOK_RELEASED	0x04u	/* ll_scheme_released() */
#define LL_SCHEME_HOOK_TIMER	0x08u	/* ll_scheme_port_deadline(), tick */
#define LL_SCHEME_HOOK_CLOCK	0x10u	/* now_ns in an admission */
#define LL_SCHEME_HOOK_LOSSY	0x20u	/* the hooks for lossy packets too */
#define LL_SCHEME_HOOK_ECN	0x40u	/* its ecn_mark, not the pool's RED */
/*
 * ll_scheme_egress() after every change of an egress queue's bytes
 * (admission, departure, purge), lossy or lossless: a scheme that watches
 * egress queues (PortFC's detector).
 */
#define LL_SCHEME_HOOK_EGRESS	0x80u
/* Its frames (the descriptor's frames_*), not the MMU's PFC. */
#define LL_SCHEME_HOOK_FRAMES	0x100u

/* The hooks of scheme (its descriptor's), 0 for an unknown one. */
ll_u32 ll_scheme_hooks(ll_u32 scheme);

/* The hooks that run for a packet of this class. */
static inline ll_u32 ll_scheme_hooks_for(const struct ll_mmu_pool *pool,
					 int lossless)
{
	ll_u32 hooks = pool->scheme_hooks;

	return lossless || (hooks & LL_SCHEME_HOOK_LOSSY) ? hooks : 0;
}

/* Whether ll_mmu_admit() of a packet of priority prio needs the clock. */
static inline int ll_scheme_admit_needs_clock(const struct ll_mmu_pool *pool,
					      ll_u32 prio)
{
	int lossless = (pool->cfg.lossless_mask >> (prio & 7)) & 1;

	return !!(ll_scheme_hooks_for(pool, lossless) & LL_SCHEME_HOOK_CLOCK);
}

/* The scheme's next deadline on port (LL_MMU_NEVER: none), and its tick. */
static __always_inline ll_u64
ll_scheme_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port);
void ll_scheme_port_tick(struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns);

/* Its own frames (LL_SCHEME_HOOK_FRAMES): the descriptor's frames_*. */
int ll_scheme_frames_due(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u64 now_ns);
int ll_scheme_frames_take(struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u64 now_ns, struct ll_ctrl_msg *msg);
void ll_scheme_frames_complete(struct ll_mmu_pool *pool, ll_u32 port,
			       int sent, ll_u64 at_ns);
ll_u64 ll_scheme_frames_next_ns(const struct ll_mmu_pool *pool, ll_u32 port);

/* The scheme's resync (its descriptor's), from ll_mmu_sweep(). */
void ll_scheme_resync(struct ll_mmu_pool *pool, ll_u64 now_ns);

/* The scheme's rewrite of the frame port sends (its port_frame). */
void ll_scheme_port_frame(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u64 now_ns, struct ll_ctrl_msg *msg);

/* Whether ECT packets are asked about (ll_mmu_ecn_mark()): RED or a rule. */
static inline int ll_mmu_ecn_active(const struct ll_mmu_pool *pool)
{
	return pool->cfg.ecn.enabled ||
	       (pool->scheme_hooks & LL_SCHEME_HOOK_ECN);
}

/* The scheme's ECN decision (LL_SCHEME_HOOK_ECN). */
int ll_scheme_ecn_mark(const struct ll_mmu_pool *pool, ll_u32 port,
		       ll_u32 queue, ll_u32 rnd);

/* The scheme's peaks of port back to what is in use (ll_mmu_reset_peaks()). */
void ll_scheme_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port);

/*
 * Where the value called name sits among scheme's port counters (ctr[],
 * per_prio 0) or its per-priority values (prio[], per_prio 1), so that a
 * reader finds it by the name tc and losslessctl print; -1 if none.
 */
#define LL_SCHEME_STAT_NAME_MAX 64
int ll_scheme_stat_index(ll_u32 scheme, int per_prio, const char *name);

/*
 * Telemetry of port's scheme state, named by the scheme's descriptor
 * (stats, masks, prio_stats: its readers need no code per scheme). Times
 * that grow (LL_STAT_NS) include now_ns. Returns 1 if the pool's scheme
 * has telemetry (its port_stats), 0 if not (out zeroed but for scheme),
 * -1 for a bad or detached port. Under the pool lock; without it, a telemetry read.
 */
struct ll_scheme_port_stats {
	ll_u32 scheme;			/* the pool's, enum ll_scheme_id */
	ll_u32 masks;			/* mask i in bits 8 i .. 8 i + 7 */
	ll_u64 ctr[LL_SCHEME_STATS];
	ll_u64 prio[LL_SCHEME_PRIO_STATS][LL_MMU_PRIOS];
};

int ll_scheme_get_port_stats(const struct ll_mmu_pool *pool, ll_u32 port,
			     ll_u64 now_ns, struct ll_scheme_port_stats *out);

/*
 * Log an event of (port, prio) (prio 0xff: the port) in the pool's ring
 * (pool->events), with the queue's (or given) bytes and the pool's S:
 * type is the pool's scheme's own (its descriptor's events), and the
 * entry records the scheme.
 */
void ll_scheme_log_event(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
			 ll_u32 type, ll_u64 bytes, ll_u64 now_ns);

/*
 * The name of event type of scheme (the scheme an entry of the ring
 * records), from its descriptor, or NULL if it has none by that number.
 */
const char *ll_scheme_event_name(ll_u32 scheme, ll_u32 type);

/* Bytes of ingress (port, prio) in every region. */
ll_u64 ll_scheme_iq_bytes(const struct ll_mmu_pool *pool, ll_u32 port,
			  ll_u32 prio);

/* ------------------------------------------ services of the MMU to schemes */

/* Set (on != 0) or clear the pause wish of (port, prio), counting it. */
void ll_mmu_want(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio, int on);

/* Attached ports. */
ll_u32 ll_mmu_attached_ports(const struct ll_mmu_pool *pool);

/*
 * A scheme's clock: the latest time it was given, so that time never runs
 * backwards for it (callers on two CPUs), and 0 (no clock) is "now".
 */
static __always_inline ll_u64 ll_scheme_clock(ll_u64 *clock_ns, ll_u64 now_ns)
{
	if (now_ns > *clock_ns)
		*clock_ns = now_ns;
	return *clock_ns;
}

/* -------------------------------------- the schemes (scheme_<name>.c) */

/*
 * DT, the baseline (scheme_dt.c). Its hysteresis and admission chain take
 * the threshold as an argument: a scheme that agrees with the baseline
 * but for the threshold reuses them with its own.
 */
static inline ll_u64 ll_dt_ingress_threshold(const struct ll_mmu_pool *pool)
{
	return ll_mmu_dt_threshold(pool->shared_size, pool->shared_used,
				   pool->cfg.alpha);
}

enum ll_mmu_region ll_dt_admit_lossless(const struct ll_mmu_pool *pool,
					ll_u32 port, ll_u32 prio,
					ll_u32 bytes, ll_u64 threshold);

/*
 * A lossless (port, prio) that DT's hysteresis leaves as it is whatever
 * its threshold: not paused, no headroom, shared at or below xon_bytes.
 * The common, uncongested case: its threshold need not be computed.
 */
static __always_inline int
ll_dt_quiet(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_mmu_iq *iq = &p->iq[prio];

	return !((p->xoff.want >> prio) & 1) && !iq->headroom_used &&
	       iq->shared_used <= pool->cfg.xon_bytes;
}

void ll_dt_hysteresis(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 threshold);

/* ST (scheme_st.c). */
ll_u64 ll_st_threshold(const struct ll_mmu_pool *pool);

/*
 * DSH (scheme_dsh.c, dsh.md; docs/DSH.md). The headroom region is the
 * port's insurance (Phi_i = the port's headroom_bytes, carved once per
 * port): iq.headroom_used is a queue's insurance bytes, port.headroom_used
 * the port's. The pause wish of a lossless priority is its queue-level
 * pause OR the port-level pause (the effective state of dsh.md section 4).
 * Times are the pool's clock: the latest now_ns any hook was given.
 */
/* DSH's parameters (struct ll_dsh_params): 0 in a field is its default. */
#define LL_DSH_WINDOW_NS_DEFAULT (10ULL * 1000 * 1000)	/* 10 ms, Alg. 4 */
#define LL_DSH_WINDOW_NS_MAX (10ULL * LL_NSEC_PER_SEC)
#define LL_DSH_EWMA_SHIFT_DEFAULT 2ULL			/* w = 1/4 */
#define LL_DSH_EWMA_SHIFT_MAX 8ULL
#define LL_DSH_GAIN_DEFAULT 4ULL			/* k of Eq. 7 */
#define LL_DSH_GAIN_MAX 16ULL

/*
 * DSH's events in the pool's ring (its descriptor names them): QOFF and
 * QON of a priority, POFF and PON of the port (prio 0xff). Numbered after
 * SPFC's, as when both were one list, so that the numbers in the plane
 * did not change; a new scheme numbers its own from 1.
 */
enum ll_dsh_event {
	LL_DSH_EV_QOFF = 5,
	LL_DSH_EV_QON,
	LL_DSH_EV_POFF,
	LL_DSH_EV_PON,
	LL_DSH_EVENTS
};

ll_u64 ll_dsh_port_carve(const struct ll_mmu_config *cfg, ll_u64 h);
enum ll_mmu_region ll_dsh_admit_lossless(const struct ll_mmu_pool *pool,
					 ll_u32 port, ll_u32 prio,
					 ll_u32 bytes);
void ll_dsh_admitted(struct ll_mmu_pool *pool,
		     const struct ll_mmu_charge *charge, ll_u64 now_ns);
/* A port's evaluation; the dispatch skips it for a quiet port. */
void ll_dsh_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		     ll_u64 now_ns);

/*
 * Nothing paused on the port, no insurance in use, its lossless shared
 * bytes at or below xon_bytes: no state machine moves, whatever T.
 */
static __always_inline int ll_dsh_port_quiet(const struct ll_mmu_pool *pool,
					     ll_u32 port)
{
	const struct ll_mmu_port *p = &pool->ports[port];

	return !p->xoff.want && !p->sch.dsh.qoff && !p->sch.dsh.poff &&
	       !p->headroom_used &&
	       p->lossless_shared_used <= pool->cfg.xon_bytes;
}
ll_u64 ll_dsh_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port);
void ll_dsh_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
void ll_dsh_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port);

/* X_qoff = max(0, T - tau) of (port, prio): its ingress threshold. */
ll_u64 ll_dsh_queue_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			      ll_u32 prio);
/* X_poff = N_q x T, N_q the lossless priorities. */
ll_u64 ll_dsh_port_threshold(const struct ll_mmu_pool *pool);
/* S_i: shared bytes of port's lossless priorities. */
ll_u64 ll_dsh_port_shared(const struct ll_mmu_pool *pool, ll_u32 port);
/* tau of (port, prio) now: 0 in single-queue mode, else phi_hat. */
ll_u64 ll_dsh_tau(const struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio);
/* phi_hat = min(Phi, g_hat x D), rounded up (Eq. 8). */
ll_u64 ll_dsh_headroom_estimate(const struct ll_mmu_pool *pool, ll_u32 port,
				ll_u32 prio);
/* 1 if the port is in single-queue mode now (Alg. 4). */
int ll_dsh_single_queue(const struct ll_mmu_pool *pool, ll_u32 port);
/* Shared headroom in use: sum of (shared - X_qoff) of the QOFF queues. */
ll_u64 ll_dsh_shared_headroom(const struct ll_mmu_pool *pool, ll_u32 port);

/*
 * SPFC (scheme_spfc.c, spfc.md sections 3 and 6.2; docs/SPFC.md). Per
 * lossless ingress (port, prio): IRC counts the bytes (or packets) that
 * entered on it and were released, per window of TC; the State Holder
 * latches "IRC reached IRC_th"; the pause wish is the SH reset line. A
 * Victim's X_off is the whole buffer, everyone else's DT's. Windows roll
 * lazily on every event of the port and on the port's timer (its deadline
 * is the window's end while a count or a latch is set).
 */
#define LL_SPFC_TC_NS_DEFAULT 1000000ULL	/* 1 ms */
#define LL_SPFC_TC_NS_MIN 10000ULL		/* 10 us */
#define LL_SPFC_TC_NS_MAX 1000000000ULL		/* 1 s (spfc.md B2) */
#define LL_SPFC_K_DEFAULT 5ULL			/* K_spfc of the derived IRC_th */
#define LL_SPFC_K_MAX 1000ULL			/* K: 1 .. this; 0 = the default */
#define LL_SPFC_IRC_TH_MAX 0xFFFFFFFFULL	/* the counters are 32 bits */

/*
 * SPFC's events in the pool's ring (its descriptor names them): PAUSE and
 * RESUME of a priority's pause wish, which its evaluation logs (the MMU
 * logs none for other schemes), and its Victim bit's moves.
 */
enum ll_spfc_event {
	LL_SPFC_EV_PAUSE = 1,
	LL_SPFC_EV_RESUME,
	LL_SPFC_EV_TO_VICTIM,
	LL_SPFC_EV_TO_NORMAL,
	LL_SPFC_EVENTS
};

enum ll_spfc_forced {
	LL_SPFC_FORCE_AUTO = 0,		/* the detector decides */
	LL_SPFC_FORCE_VICTIM = 1,	/* oracle (Fig. 4): always Victim */
	LL_SPFC_FORCE_NORMAL = 2,	/* SPFC off on the queue: always DT */
};

/*
 * spfc.md 3.5's truth table, bitwise over priorities (pure): Victim bits
 * = force_victim | (~force_normal & ~reset & sh), reset the PAUSE-reset
 * line (paused, no RESUME yet), sh the State Holder's content.
 */
static inline ll_u8 ll_spfc_state(ll_u8 reset, ll_u8 sh,
				  ll_u8 force_victim, ll_u8 force_normal)
{
	return (ll_u8)(force_victim | (~force_normal & ~reset & sh));
}

void ll_spfc_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
void ll_spfc_released(struct ll_mmu_pool *pool,
		      const struct ll_mmu_charge *charge, ll_u64 now_ns);
void ll_spfc_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		      ll_u64 now_ns);
void ll_spfc_port_tick(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
void ll_spfc_reset_peaks(struct ll_mmu_pool *pool, ll_u32 port);

/*
 * The window SPFC takes when none is given: four round trips (spfc.md
 * 3.6: TC >= 4 RTT, so that a window sees the reaction to a pause), with
 * rtt_ns = 2 x (cable-delay + sw-delay) of the port that sets the scheme
 * (tc) or of the pool's slowest port (losslessd); at least
 * LL_SPFC_TC_NS_DEFAULT, at most LL_SPFC_TC_NS_MAX. The default sw-delay
 * of 1 ms gives 8 ms: a 1 ms window would end before the upstream reacts.
 */
ll_u64 ll_spfc_window_for_rtt_ns(ll_u64 rtt_ns);

/* IRC_th of port in IRC's unit: the parameter, or C_p x TC / 8 / K. */
ll_u64 ll_spfc_irc_threshold(const struct ll_mmu_pool *pool, ll_u32 port);

/* The window TC in force (the parameter or its default). */
static __always_inline ll_u64 ll_spfc_tc_ns(const struct ll_mmu_pool *pool)
{
	ll_u64 tc = pool->cfg.scheme_params.spfc.tc_ns;

	return tc ? tc : LL_SPFC_TC_NS_DEFAULT;
}

/* Whether the port's window ended by now_ns: a roll is due. */
static __always_inline int ll_spfc_window_ended(const struct ll_mmu_pool *pool,
						const struct ll_spfc_port_state *st,
						ll_u64 now_ns)
{
	return now_ns >= st->win_start_ns &&
	       now_ns - st->win_start_ns >= ll_spfc_tc_ns(pool);
}

/*
 * The end of the window when its roll may move a Victim bit: an SH that
 * is set (the roll clears it if the window fell short: a Victim demoted,
 * which the tick re-evaluates), or with LL_SPFC_F_WINDOW_END a count
 * that reached IRC_th (the roll promotes). A roll that moves none changes
 * only IRC and last_win, which the next event rolls and the telemetry
 * reads as of its own time (ll_spfc_port_stats()): a wake-up per window
 * on every busy port cost the bridge bench 40 % of its packet rate under
 * emulation, for state no decision read. Inline: mmu.c asks it twice per
 * released packet.
 */
static __always_inline ll_u64
ll_spfc_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port)
{
	const struct ll_mmu_port *p = &pool->ports[port];
	const struct ll_spfc_port_state *st = &p->sch.spfc;
	ll_u64 flags = pool->cfg.scheme_params.spfc.flags;
	/* The slow path's Victim bits are the daemon's: no roll moves one. */
	ll_u64 due = flags & LL_SPFC_F_DAEMON ? 0 :
		     st->sh & pool->cfg.lossless_mask;
	ll_u32 prio;

	if (!due && (flags & LL_SPFC_F_WINDOW_END)) {
		ll_u64 th = ll_spfc_irc_threshold(pool, port);

		for (prio = 0; prio < LL_MMU_PRIOS && !due; prio++)
			due = p->iq[prio].sch.spfc.irc >= th;
	}
	if (!due)
		return LL_MMU_NEVER;
	return st->win_start_ns + ll_spfc_tc_ns(pool);
}

/* A Victim's X_off: the whole buffer (or the parameter), at least DT's T. */
ll_u64 ll_spfc_victim_threshold(const struct ll_mmu_pool *pool);
/* Victim bits of port's priorities now (lossless ones only). */
ll_u8 ll_spfc_victims(const struct ll_mmu_pool *pool, ll_u32 port);
/* X_off of (port, prio): the Victim's threshold or DT's T. */
ll_u64 ll_spfc_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio);

/*
 * Force the state of a lossless (port, prio) (the oracle of spfc.md 6.3,
 * Fig. 4, or SPFC off on it), re-evaluating it. Runtime state, like the
 * counters: zeroed by attach and by a change of scheme. Returns 1 if a
 * frame is due on port, 0 if not, -1 for a bad port, prio or state.
 */
int ll_spfc_force(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		  enum ll_spfc_forced state, ll_u64 now_ns);

/*
 * Slow path (LL_SPFC_F_DAEMON, spfc.md 6.3): the daemon publishes port's
 * Victim bits for the window that ended at window_end_ns. The datapath
 * keeps the exact PAUSE reset: a priority that paused ignores the
 * daemon's bit until a window that ended after its RESUME. Returns as
 * ll_spfc_force().
 */
int ll_spfc_publish(struct ll_mmu_pool *pool, ll_u32 port, ll_u8 victims,
		    ll_u64 window_end_ns, ll_u64 now_ns);

/*
 * PortFC (scheme_portfc.c, portfc.md section 4; docs/PORTFC.md; the pure
 * part in portfc.h). Its events in the pool's ring (port events, prio
 * 0xff): an egress port's onset and relief of each class.
 */
enum ll_portfc_evt {
	LL_PORTFC_EVT_PAUSE_A = 1,
	LL_PORTFC_EVT_RESUME_A,
	LL_PORTFC_EVT_PAUSE_B,
	LL_PORTFC_EVT_RESUME_B,
	LL_PORTFC_EVTS
};

/* port's egress queues changed: its detector, frames due on the others. */
void ll_portfc_egress(struct ll_mmu_pool *pool, ll_u32 port, ll_u64 now_ns);
/* port's number on its BCube switch: its scheme_port, or its index. */
ll_u32 ll_portfc_port_number(const struct ll_mmu_pool *pool, ll_u32 port);

/* --------------------------------- dispatch of the per-packet hooks */

/*
 * One switch (or test) on the pool's scheme per hook, inline: mmu.c calls
 * the scheme's function directly (a call less per hook and packet, which
 * counts under emulation).
 */
static __always_inline ll_u64
ll_scheme_ingress_threshold(const struct ll_mmu_pool *pool, ll_u32 port,
			    ll_u32 prio)
{
	switch (pool->cfg.scheme) {
	case LL_SCHEME_ST:
		return ll_st_threshold(pool);
	case LL_SCHEME_DSH:
		return ll_dsh_queue_threshold(pool, port, prio);
	case LL_SCHEME_SPFC:
		return ll_spfc_threshold(pool, port, prio);
	case LL_SCHEME_PORTFC:
		/* No ingress pause: shared to its end, then headroom. */
		return LL_MMU_NEVER;
	default:
		return ll_dt_ingress_threshold(pool);
	}
}

static __always_inline enum ll_mmu_region
ll_scheme_admit_lossless(const struct ll_mmu_pool *pool, ll_u32 port,
			 ll_u32 prio, ll_u32 bytes, ll_u64 now_ns)
{
	(void)now_ns;
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		return ll_dsh_admit_lossless(pool, port, prio, bytes);
	default:
		return ll_dt_admit_lossless(pool, port, prio, bytes,
					    ll_scheme_ingress_threshold(pool, port,
									prio));
	}
}

static __always_inline void
ll_scheme_evaluate(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		   ll_u64 now_ns)
{
	/*
	 * Inline, so that an uncongested packet's two evaluations cost no
	 * call: the clock moves, as the full evaluation's first step, and the
	 * evaluation runs only if something can move (DSH: a port not quiet;
	 * SPFC: a wish DT's hysteresis may change, or a window to roll).
	 * A draining pool (ll_mmu_set_draining()) wants every queue paused.
	 */
	if (pool->draining) {
		ll_mmu_want(pool, port, prio, 1);
		return;
	}
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		ll_scheme_clock(&pool->sch.dsh.now_ns, now_ns);
		if (!ll_dsh_port_quiet(pool, port))
			ll_dsh_evaluate(pool, port, prio, now_ns);
		break;
	case LL_SCHEME_SPFC:
		now_ns = ll_scheme_clock(&pool->sch.spfc.now_ns, now_ns);
		if (!ll_dt_quiet(pool, port, prio) ||
		    ll_spfc_window_ended(pool, &pool->ports[port].sch.spfc,
					 now_ns))
			ll_spfc_evaluate(pool, port, prio, now_ns);
		break;
	case LL_SCHEME_PORTFC:
		break;	/* its pauses are its egress ports' (ll_portfc_egress) */
	default:
		if (!ll_dt_quiet(pool, port, prio))
			ll_dt_hysteresis(pool, port, prio,
					 ll_scheme_ingress_threshold(pool, port,
								     prio));
		break;
	}
}

static __always_inline void
ll_scheme_arrival(struct ll_mmu_pool *pool, ll_u32 port, ll_u32 prio,
		  ll_u64 now_ns)
{
	(void)prio;
	if (pool->cfg.scheme == LL_SCHEME_SPFC)
		ll_spfc_arrival(pool, port, now_ns);
}

static __always_inline void ll_scheme_admitted(struct ll_mmu_pool *pool,
					       const struct ll_mmu_charge *charge,
					       ll_u64 now_ns)
{
	if (pool->cfg.scheme == LL_SCHEME_DSH)
		ll_dsh_admitted(pool, charge, now_ns);
}

static __always_inline void ll_scheme_released(struct ll_mmu_pool *pool,
					       const struct ll_mmu_charge *charge,
					       ll_u64 now_ns)
{
	if (pool->cfg.scheme == LL_SCHEME_SPFC)
		ll_spfc_released(pool, charge, now_ns);
}

/* An egress queue of port changed (LL_SCHEME_HOOK_EGRESS). */
static __always_inline void ll_scheme_egress(struct ll_mmu_pool *pool,
					     ll_u32 port, ll_u64 now_ns)
{
	if (pool->cfg.scheme == LL_SCHEME_PORTFC)
		ll_portfc_egress(pool, port, now_ns);
}

static __always_inline ll_u64
ll_scheme_port_deadline(const struct ll_mmu_pool *pool, ll_u32 port)
{
	switch (pool->cfg.scheme) {
	case LL_SCHEME_DSH:
		/* Only a port with a queue in QOFF has a window to time (the
		 * release asks twice per packet): no call for the others.
		 */
		if (!(pool->ports[port].sch.dsh.qoff & pool->cfg.lossless_mask))
			return LL_MMU_NEVER;
		return ll_dsh_port_deadline(pool, port);
	case LL_SCHEME_SPFC:
		return ll_spfc_port_deadline(pool, port);
	default:
		return LL_MMU_NEVER;
	}
}

#endif /* LL_SCHEME_H */
