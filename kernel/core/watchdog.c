// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* PFC watchdog: see watchdog.h. */
#include "watchdog.h"

static void wd_restore(struct ll_wd *w, ll_u32 p, ll_u64 now_ns)
{
	struct ll_wd_prio *s = &w->prio[p];

	s->storm_ns_total = ll_wd_storm_ns(s, now_ns);
	s->in_storm = 0;
	s->restores++;
	s->ok_at_ns = now_ns;
	w->storm_mask &= ~(1U << p);
}

ll_u64 ll_wd_storm_ns(const struct ll_wd_prio *p, ll_u64 now_ns)
{
	if (!p->in_storm || now_ns <= p->storm_since_ns)
		return p->storm_ns_total;
	return p->storm_ns_total + now_ns - p->storm_since_ns;
}

void ll_wd_configure(struct ll_wd *w, const struct ll_wd_config *c,
		     ll_u64 now_ns)
{
	ll_u32 p;

	w->cfg = *c;
	for (p = 0; p < LL_PFC_PRIOS; p++) {
		struct ll_wd_prio *s = &w->prio[p];

		if (c->action == LL_WD_OFF && s->in_storm)
			wd_restore(w, p, now_ns);
		if (!c->xoff_alarm_ns) {
			s->xoff_alarm = 0;
			s->xoff_since_ns = 0;
			w->alarm_mask &= ~(1U << p);
		}
		s->ok_at_ns = now_ns;
	}
}

void ll_wd_xoff_rx(struct ll_wd *w, ll_u32 prio_mask, ll_u64 now_ns)
{
	ll_u32 p;

	for (p = 0; p < LL_PFC_PRIOS; p++)
		if (prio_mask & (1U << p))
			w->prio[p].last_xoff_ns = now_ns;
}

static void wd_poll_storm(struct ll_wd *w, ll_u32 p,
			  const struct ll_wd_view *v, ll_u64 now_ns,
			  struct ll_wd_change *ch)
{
	struct ll_wd_prio *s = &w->prio[p];
	ll_u32 bit = 1U << p;
	ll_u64 start;

	if (s->in_storm) {
		/* Under alert the peer's pauses are honoured all along, so the
		 * storm lasts while the gate is closed: a pause sent before
		 * the XOFFs stopped (up to 65535 quanta, refreshed only every
		 * half of it) still holds, and restoring would open it.
		 */
		if (now_ns >= s->last_xoff_ns + w->cfg.restore_ns &&
		    (w->cfg.action != LL_WD_ALERT ||
		     !(v->paused_mask & bit))) {
			wd_restore(w, p, now_ns);
			ch->restored |= bit;
		}
		return;
	}
	if (!(v->paused_mask & bit) || !(v->backlog_mask & bit)) {
		s->ok_at_ns = now_ns;
		return;
	}
	start = v->closed_since_ns[p] > s->ok_at_ns ?
		v->closed_since_ns[p] : s->ok_at_ns;
	if (now_ns < start + w->cfg.detect_ns)
		return;
	s->in_storm = 1;
	s->storm_since_ns = now_ns;
	s->storms++;
	/* A storm is detected from pauses: one arrived by the gate's close. */
	if (s->last_xoff_ns < v->closed_since_ns[p])
		s->last_xoff_ns = v->closed_since_ns[p];
	w->storm_mask |= bit;
	ch->stormed |= bit;
}

static void wd_poll_alarm(struct ll_wd *w, ll_u32 p,
			  const struct ll_wd_view *v, ll_u64 now_ns,
			  struct ll_wd_change *ch)
{
	struct ll_wd_prio *s = &w->prio[p];
	ll_u32 bit = 1U << p;

	if (!(v->told_xoff_mask & bit)) {
		s->xoff_since_ns = 0;
		s->xoff_alarm = 0;
		w->alarm_mask &= ~bit;
		return;
	}
	if (!s->xoff_since_ns)
		s->xoff_since_ns = now_ns;
	if (!s->xoff_alarm && now_ns >= s->xoff_since_ns + w->cfg.xoff_alarm_ns) {
		s->xoff_alarm = 1;
		s->xoff_alarms++;
		w->alarm_mask |= bit;
		ch->alarmed |= bit;
	}
}

struct ll_wd_change ll_wd_poll(struct ll_wd *w, const struct ll_wd_view *v,
			       ll_u64 now_ns)
{
	struct ll_wd_change ch = { 0, 0, 0 };
	ll_u32 p;

	for (p = 0; p < LL_PFC_PRIOS; p++) {
		if (w->cfg.action != LL_WD_OFF)
			wd_poll_storm(w, p, v, now_ns, &ch);
		if (w->cfg.xoff_alarm_ns)
			wd_poll_alarm(w, p, v, now_ns, &ch);
	}
	return ch;
}
