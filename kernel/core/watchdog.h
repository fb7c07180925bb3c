/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * PFC watchdog, per PFC priority of one port, with the semantics of
 * SONiC's PFC watchdog:
 *
 *   - storm: a priority that stays paused by the peer (a PFC gate closed)
 *     while packets of it wait, for detect_ns, is in storm. The action is
 *     LL_WD_ALERT (count it, change nothing), LL_WD_FORWARD (stop
 *     honouring the peer's pause on it) or LL_WD_DROP (stop honouring it,
 *     and drop what is queued and what arrives for it). Frames keep being
 *     received and counted while in storm;
 *   - restore: a priority in storm for which no XOFF (a pause time > 0)
 *     has arrived for restore_ns is restored: its pause is honoured again
 *     (under forward and drop the caller voids the pause it ignored);
 *     under alert, which never stopped honouring it, only once the gate
 *     is open too: the peer's last pause may still run;
 *   - XOFF alarm, the other direction: a priority this port's MMU keeps
 *     telling its upstream XOFF for xoff_alarm_ns raises an alarm (that is
 *     how a PFC deadlock looks from inside).
 *
 * The caller polls it from a timer every poll period, with the state of
 * the gates, the queues and the MMU; detection is exact to one poll: the
 * storm clock starts when the gate closed or at the last poll that saw
 * the priority not paused with a backlog, whichever is later.
 * Integer only; the caller serialises.
 */
#ifndef LL_WATCHDOG_H
#define LL_WATCHDOG_H

#include "ll_types.h"
#include "ctrl.h"

enum ll_wd_action {
	LL_WD_OFF = 0,
	LL_WD_ALERT,
	LL_WD_FORWARD,
	LL_WD_DROP,
	__LL_WD_ACTION_MAX
};

struct ll_wd_config {
	ll_u64 detect_ns;
	ll_u64 restore_ns;
	ll_u64 xoff_alarm_ns;	/* 0: no XOFF alarm */
	ll_u8 action;		/* enum ll_wd_action */
};

struct ll_wd_prio {
	ll_u64 ok_at_ns;	/* last poll that saw it not paused+backlogged */
	ll_u64 storm_since_ns;	/* valid in storm */
	ll_u64 last_xoff_ns;	/* last XOFF received for it */
	ll_u64 xoff_since_ns;	/* our XOFF upstream since; 0: none */
	ll_u64 storms;
	ll_u64 restores;
	ll_u64 storm_ns_total;	/* finished storms */
	ll_u64 dropped;		/* packets the watchdog dropped */
	ll_u64 xoff_alarms;
	ll_u8 in_storm;
	ll_u8 xoff_alarm;
};

struct ll_wd {
	struct ll_wd_config cfg;
	struct ll_wd_prio prio[LL_PFC_PRIOS];
	ll_u32 storm_mask;	/* priorities in storm */
	ll_u32 alarm_mask;	/* priorities with the XOFF alarm raised */
};

/* What one poll sees of the port, bit p = PFC priority p. */
struct ll_wd_view {
	ll_u32 paused_mask;	/* gates closed by the peer */
	ll_u32 backlog_mask;	/* packets waiting */
	ll_u32 told_xoff_mask;	/* our MMU has told the upstream XOFF */
	ll_u64 closed_since_ns[LL_PFC_PRIOS];	/* of closed gates */
};

/* Change of state a poll reports. */
struct ll_wd_change {
	ll_u32 stormed;		/* entered storm at this poll */
	ll_u32 restored;	/* left storm at this poll */
	ll_u32 alarmed;		/* XOFF alarm raised at this poll */
};

/* Validity of a configuration (the limits are the caller's). */
static inline int ll_wd_enabled(const struct ll_wd_config *c)
{
	return c->action != LL_WD_OFF || c->xoff_alarm_ns != 0;
}

/*
 * Install a configuration. Priorities in storm stay in storm (the new
 * action applies to them at once); turning the watchdog off restores
 * them, and ends a raised alarm.
 */
void ll_wd_configure(struct ll_wd *w, const struct ll_wd_config *c,
		     ll_u64 now_ns);

/* An XOFF (pause time > 0) arrived for the priorities in prio_mask. */
void ll_wd_xoff_rx(struct ll_wd *w, ll_u32 prio_mask, ll_u64 now_ns);

/* One poll. */
struct ll_wd_change ll_wd_poll(struct ll_wd *w, const struct ll_wd_view *v,
			       ll_u64 now_ns);

/* Gates the datapath must ignore: priorities in storm under forward or
 * drop. 0 when off, so honouring pauses costs one AND.
 */
static inline ll_u32 ll_wd_ignore_mask(const struct ll_wd *w)
{
	return w->cfg.action >= LL_WD_FORWARD ? w->storm_mask : 0;
}

/* Priorities whose packets the datapath drops: in storm under drop. */
static inline ll_u32 ll_wd_drop_mask(const struct ll_wd *w)
{
	return w->cfg.action == LL_WD_DROP ? w->storm_mask : 0;
}

/* Time in storm of a priority, including a storm still running. */
ll_u64 ll_wd_storm_ns(const struct ll_wd_prio *p, ll_u64 now_ns);

/* How long our XOFF upstream has lasted (0 if none). */
static inline ll_u64 ll_wd_xoff_ns(const struct ll_wd_prio *p, ll_u64 now_ns)
{
	return p->xoff_since_ns && now_ns > p->xoff_since_ns ?
	       now_ns - p->xoff_since_ns : 0;
}

#endif /* LL_WATCHDOG_H */
