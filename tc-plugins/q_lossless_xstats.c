// SPDX-License-Identifier: GPL-2.0
/*
 * q_lossless_xstats.c: print_xstats of the tc plugin: the qdisc's and the
 * classes' extended statistics (tc -s), text and JSON.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "utils.h"
#include "tc_util.h"

#include "lossless.h"
#include "scheme.h"
#include "q_lossless.h"

/* Gate set as text "prio 3 5 port" / "none" and JSON "<key>_prios": [3, 5],
 * "<key>_port": bool.
 */
static void ll_print_gates(const char *word, const char *key, __u32 mask)
{
	char jkey[32];
	unsigned int g;
	bool any = false;

	print_string(PRINT_FP, NULL, " %s", word);
	snprintf(jkey, sizeof(jkey), "%s_prios", key);
	open_json_array(PRINT_JSON, jkey);
	for (g = 0; g < LOSSLESS_PFC_PRIOS; g++) {
		if (!(mask & (1U << g)))
			continue;
		if (!any)
			print_string(PRINT_FP, NULL, " prio", NULL);
		print_uint(PRINT_ANY, NULL, " %u", g);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	snprintf(jkey, sizeof(jkey), "%s_port", key);
	print_bool(PRINT_JSON, jkey, NULL, mask & (1U << LOSSLESS_PFC_PRIOS));
	if (mask & (1U << LOSSLESS_PFC_PRIOS)) {
		print_string(PRINT_FP, NULL, " port", NULL);
		any = true;
	}
	/* The free gates (TCA_LOSSLESS_GATES, schemes' own kinds). */
	snprintf(jkey, sizeof(jkey), "%s_free", key);
	open_json_array(PRINT_JSON, jkey);
	for (g = LOSSLESS_GATE_PORT + 1; g < LOSSLESS_GATE_IDS; g++) {
		if (!(mask & (1U << g)))
			continue;
		print_uint(PRINT_ANY, NULL, " gate %u", g);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
}

static void ll_print_time(const char *key, const char *fmt, __u64 ns)
{
	SPRINT_BUF(b);

	print_u64(PRINT_JSON, key, NULL, ns);
	print_string(PRINT_FP, NULL, fmt, sprint_time64(ns, b));
}

/* Upper bound of lateness bucket b (see uapi), in ns; 0 for the last. */
static __u64 ll_lateness_bucket_max_ns(unsigned int b)
{
	return b + 1 < LOSSLESS_LATENESS_BUCKETS ? 1ULL << (10 + b) : 0;
}

/*
 * The shaper's catch-up and how late the port's timed wake-ups ran: what
 * catchup and sw-delay must cover. Only when the kernel sent them (len):
 * an older kernel's zeros would read as "never late". Text: the non-empty
 * buckets as "<UPPER:COUNT", the last one ">=LOWER:COUNT", or "none";
 * JSON: all of them with their upper bound (lt_ns, 0 for the last).
 */
static void ll_print_shaper_xstats(const struct tc_lossless_xstats *st,
				   unsigned int len)
{
	bool any = false;
	unsigned int b;
	SPRINT_BUF(t);

	if (len < offsetof(struct tc_lossless_xstats, wake_late) +
		  sizeof(st->wake_late))
		return;
	ll_tc_print_size64("catchup", "  catchup %s", st->catchup_bytes);
	ll_print_time("shaper_lost", " shaper_lost %s", st->shaper_lost_ns);
	ll_print_time("wake_late_max", " wake_late_max %s",
		      st->wake_late_max_ns);
	print_string(PRINT_FP, NULL, " wake_late", NULL);
	open_json_array(PRINT_JSON, "wake_late");
	for (b = 0; b < LOSSLESS_LATENESS_BUCKETS; b++) {
		__u64 max_ns = ll_lateness_bucket_max_ns(b);

		if (is_json_context()) {
			open_json_object(NULL);
			print_u64(PRINT_JSON, "lt_ns", NULL, max_ns);
			print_u64(PRINT_JSON, "count", NULL, st->wake_late[b]);
			close_json_object();
			continue;
		}
		if (!st->wake_late[b])
			continue;
		if (max_ns)
			print_string(PRINT_FP, NULL, " <%s",
				     sprint_time64(max_ns, t));
		else	/* from the previous bucket's upper bound on */
			print_string(PRINT_FP, NULL, " >=%s",
				     sprint_time64(ll_lateness_bucket_max_ns(b - 1),
						   t));
		print_u64(PRINT_FP, NULL, ":%llu", st->wake_late[b]);
		any = true;
	}
	close_json_array(PRINT_JSON, NULL);
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
	print_nl();
}

static void ll_print_qdisc_xstats(const struct tc_lossless_xstats *st,
				  unsigned int len)
{
	unsigned int g;

	print_u64(PRINT_ANY, "pfc_frames_rx", "  pfc_frames_rx %llu",
		  st->pfc_frames_rx);
	print_u64(PRINT_ANY, "pause_frames_rx", " pause_frames_rx %llu",
		  st->pause_frames_rx);
	print_u64(PRINT_ANY, "ctrl_invalid", " ctrl_invalid %llu",
		  st->ctrl_invalid);
	print_u64(PRINT_ANY, "throttled", " throttled %llu", st->throttled);
	print_u64(PRINT_ANY, "pause_blocked", " pause_blocked %llu",
		  st->pause_blocked);
	if (st->rate_bps)
		ll_tc_print_rate("line_rate", " line_rate %s", st->rate_bps);
	print_nl();
	ll_print_shaper_xstats(st, len);

	print_string(PRINT_FP, NULL, " ", NULL);
	print_uint(PRINT_JSON, "paused_mask", NULL, st->paused_mask);
	ll_print_gates("paused", "paused", st->paused_mask);

	/* Text: gates that ever saw a frame or are closed now (all with -d);
	 * JSON: all of them.
	 */
	open_json_array(PRINT_JSON, "gates");
	for (g = 0; g < LOSSLESS_GATES; g++) {
		const struct tc_lossless_gate_stats *gs = &st->gates[g];
		bool closed = st->paused_mask & (1U << g);
		char name[16];

		if (!is_json_context() && !show_details && !closed &&
		    !gs->xoff_frames && !gs->xon_frames && !gs->paused_ns)
			continue;
		if (g < LOSSLESS_PFC_PRIOS)
			snprintf(name, sizeof(name), "prio%u", g);
		else
			snprintf(name, sizeof(name), "port");
		print_nl();
		open_json_object(NULL);
		print_uint(PRINT_JSON, "gate", NULL, g);
		print_string(PRINT_ANY, "name", "  gate %s", name);
		print_u64(PRINT_ANY, "xoff_frames", " xoff %llu",
			  gs->xoff_frames);
		print_u64(PRINT_ANY, "xon_frames", " xon %llu", gs->xon_frames);
		ll_print_time("paused_time", " paused_time %s", gs->paused_ns);
		print_bool(PRINT_JSON, "paused", NULL, closed);
		if (closed)
			print_string(PRINT_FP, NULL, " (paused)", NULL);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static bool ll_iq_active(const struct tc_lossless_iq_stats *iq)
{
	return iq->lossless || iq->paused || iq->bytes || iq->headroom_used ||
	       iq->peak_bytes || iq->peak_headroom || iq->xoff_frames ||
	       iq->xon_frames || iq->paused_ns || iq->drops;
}

static void ll_print_iq(unsigned int prio, const struct tc_lossless_iq_stats *iq)
{
	char used[32], size[32], hr[72];

	open_json_object(NULL);
	print_uint(PRINT_ANY, "prio", "  ingress prio %u", prio);
	print_bool(PRINT_JSON, "lossless", NULL, iq->lossless);
	print_string(PRINT_FP, NULL, " %s", iq->lossless ? "lossless" : "lossy");
	if (is_json_context()) {
		print_u64(PRINT_JSON, "bytes", NULL, iq->bytes);
		print_u64(PRINT_JSON, "headroom_used", NULL, iq->headroom_used);
		print_u64(PRINT_JSON, "headroom_size", NULL, iq->headroom_size);
		print_u64(PRINT_JSON, "peak_bytes", NULL, iq->peak_bytes);
		print_u64(PRINT_JSON, "peak_headroom", NULL, iq->peak_headroom);
		print_u64(PRINT_JSON, "threshold", NULL, iq->threshold);
	} else {
		ll_tc_print_size64(NULL, " bytes %s", iq->bytes);
		ll_tc_print_size64(NULL, " peak %s", iq->peak_bytes);
		ll_tc_fmt_size64(used, sizeof(used), iq->headroom_used);
		ll_tc_fmt_size64(size, sizeof(size), iq->headroom_size);
		snprintf(hr, sizeof(hr), "%s/%s", used, size);
		print_string(PRINT_FP, NULL, " headroom %s", hr);
		ll_tc_print_size64(NULL, " peak %s", iq->peak_headroom);
		ll_tc_print_size64(NULL, " threshold %s", iq->threshold);
	}
	print_u64(PRINT_ANY, "xoff_frames", " xoff %llu", iq->xoff_frames);
	print_u64(PRINT_ANY, "xon_frames", " xon %llu", iq->xon_frames);
	ll_print_time("paused_time", " paused_time %s", iq->paused_ns);
	print_u64(PRINT_ANY, "drops", " drops %llu", iq->drops);
	print_bool(PRINT_JSON, "paused", NULL, iq->paused);
	if (iq->paused)
		print_string(PRINT_FP, NULL, " (paused)", NULL);
	close_json_object();
}

/*
 * The pool (switch MMU) part, when the kernel sent it (len) and the qdisc
 * is in a pool. Text: priorities that are lossless or were ever used (all
 * with -d); JSON: all eight.
 */
static void ll_print_pool_xstats(const struct tc_lossless_xstats *st,
				 unsigned int len)
{
	unsigned int p;

	if (len < offsetof(struct tc_lossless_xstats, iq) || !st->pool_ports)
		return;
	print_nl();
	print_uint(PRINT_ANY, "pool_port", "  pool port %u", st->pool_port);
	print_uint(PRINT_ANY, "pool_ports", " of %u", st->pool_ports);
	ll_tc_print_size64("pool_total_bytes", "  buffer %s", st->pool_total_bytes);
	ll_tc_print_size64("pool_shared_size", "  shared %s", st->pool_shared_size);
	ll_tc_print_size64("pool_shared_used", " used %s", st->pool_shared_used);
	ll_tc_print_size64("pool_peak_shared", " peak %s", st->pool_peak_shared);
	ll_tc_print_size64("pool_headroom_size", "  headroom %s",
			   st->pool_headroom_size);
	ll_tc_print_size64("pool_headroom_used", " used %s",
			   st->pool_headroom_used);
	ll_tc_print_size64("pool_peak_headroom", " peak %s",
			   st->pool_peak_headroom);
	print_nl();
	print_u64(PRINT_ANY, "pool_drops_lossless", "  drops lossless %llu",
		  st->pool_drops_lossless);
	print_u64(PRINT_ANY, "pool_drops_lossy", " lossy %llu",
		  st->pool_drops_lossy);
	print_u64(PRINT_ANY, "pfc_frames_tx", "  pfc_tx %llu", st->pfc_frames_tx);
	print_u64(PRINT_ANY, "ecn_marks", "  ecn_marks %llu", st->ecn_marks);
	print_u64(PRINT_ANY, "unaccounted", "  unaccounted %llu",
		  st->unaccounted);

	if (len < offsetof(struct tc_lossless_xstats, iq) + sizeof(st->iq))
		return;
	open_json_array(PRINT_JSON, "ingress");
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		if (!is_json_context() && !show_details &&
		    !ll_iq_active(&st->iq[p]))
			continue;
		print_nl();
		ll_print_iq(p, &st->iq[p]);
	}
	close_json_array(PRINT_JSON, NULL);
}

/* Priorities of mask as " prio 3 5", or " none". */
static void ll_print_prio_list(__u32 mask)
{
	unsigned int p;
	bool any = false;

	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		if (!(mask & (1U << p)))
			continue;
		if (!any)
			print_string(PRINT_FP, NULL, " prio", NULL);
		print_uint(PRINT_FP, NULL, " %u", p);
		any = true;
	}
	if (!any)
		print_string(PRINT_FP, NULL, " none", NULL);
}

/*
 * The headroom's premise on a pool member (appended; len says whether the
 * kernel sent it): the XOFF response measured, last and max, and the
 * headroom warnings. Text: a line once anything was measured or warned
 * (always with -d); JSON: always when sent.
 */
static void ll_print_premise_xstats(const struct tc_lossless_xstats *st,
				    unsigned int len)
{
	if (len < offsetof(struct tc_lossless_xstats, premise_pad) +
		  sizeof(st->premise_pad) || !st->pool_ports)
		return;
	if (!is_json_context() && !show_details && !st->xoff_responses &&
	    !st->headroom_warnings)
		return;
	print_nl();
	print_u64(PRINT_ANY, "xoff_responses", "  xoff responses %llu",
		  st->xoff_responses);
	ll_print_time("xoff_response_last_ns", " last %s",
		      st->xoff_response_last_ns);
	ll_print_time("xoff_response_max_ns", " max %s",
		      st->xoff_response_max_ns);
	print_u64(PRINT_ANY, "headroom_warnings", "  headroom warnings %llu",
		  st->headroom_warnings);
	print_uint(PRINT_JSON, "headroom_near_mask", NULL,
		   st->headroom_near_mask);
	if (st->headroom_near_mask) {
		print_string(PRINT_FP, NULL, " (over 90%% now:", NULL);
		ll_print_prio_list(st->headroom_near_mask);
		print_string(PRINT_FP, NULL, ")", NULL);
	}
}

static bool ll_wd_prio_active(const struct tc_lossless_wd_stats *w)
{
	return w->storm || w->xoff_alarm || w->storms || w->restores ||
	       w->dropped || w->storm_ns || w->xoff_alarms || w->xoff_ns;
}

/*
 * The PFC watchdog, when the kernel sent it (len). JSON: always, all eight
 * priorities. Text: while it is on or has counted anything: a summary line
 * (the action, the priorities in storm and with the XOFF alarm raised),
 * then a line per priority with any non-zero counter (all with -d).
 */
static void ll_print_wd_xstats(const struct tc_lossless_xstats *st,
			       unsigned int len)
{
	char action[16];
	bool on = st->wd_action || st->wd_storm_mask || st->wd_alarm_mask;
	unsigned int p;

	if (len < offsetof(struct tc_lossless_xstats, wd) + sizeof(st->wd))
		return;
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++)
		on |= ll_wd_prio_active(&st->wd[p]);
	if (!is_json_context() && !on)
		return;
	if (st->wd_action < ARRAY_SIZE(ll_tc_wd_actions))
		snprintf(action, sizeof(action), "%s", ll_tc_wd_actions[st->wd_action]);
	else
		snprintf(action, sizeof(action), "%u", st->wd_action);

	print_nl();
	open_json_object("pfcwd");
	print_string(PRINT_ANY, "action", "  pfcwd %s", action);
	print_uint(PRINT_JSON, "storm_mask", NULL, st->wd_storm_mask);
	print_uint(PRINT_JSON, "alarm_mask", NULL, st->wd_alarm_mask);
	print_string(PRINT_FP, NULL, " storm", NULL);
	ll_print_prio_list(st->wd_storm_mask);
	print_string(PRINT_FP, NULL, " xoff_alarm", NULL);
	ll_print_prio_list(st->wd_alarm_mask);
	open_json_array(PRINT_JSON, "prios");
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		const struct tc_lossless_wd_stats *w = &st->wd[p];

		if (!is_json_context() && !show_details && !ll_wd_prio_active(w))
			continue;
		print_nl();
		open_json_object(NULL);
		print_uint(PRINT_ANY, "prio", "  pfcwd prio %u", p);
		print_bool(PRINT_JSON, "storm", NULL, w->storm);
		print_string(PRINT_FP, NULL, " storm %s", w->storm ? "yes" : "no");
		print_u64(PRINT_ANY, "storms", " storms %llu", w->storms);
		print_u64(PRINT_ANY, "restores", " restores %llu", w->restores);
		print_u64(PRINT_ANY, "dropped", " dropped %llu", w->dropped);
		ll_print_time("storm_time", " storm_time %s", w->storm_ns);
		print_bool(PRINT_JSON, "xoff_alarm", NULL, w->xoff_alarm);
		print_string(PRINT_FP, NULL, " xoff_alarm %s",
			     w->xoff_alarm ? "yes" : "no");
		print_u64(PRINT_ANY, "xoff_alarms", " xoff_alarms %llu",
			  w->xoff_alarms);
		ll_print_time("xoff_time", " xoff_time %s", w->xoff_ns);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

/* A scheme's or mode's value by its unit: text exact, JSON bytes, ns or a
 * number.
 */
void ll_tc_print_stat_value(const char *key, const char *text_key, __u8 unit,
			    __u64 v)
{
	char fmt[64];

	snprintf(fmt, sizeof(fmt), "%s%s %%s", text_key ? " " : "",
		 text_key ? text_key : "");
	if (unit == LL_STAT_BYTES) {
		ll_tc_print_size64(key, fmt, v);
	} else if (unit == LL_STAT_NS) {
		ll_print_time(key, fmt, v);
	} else {
		snprintf(fmt, sizeof(fmt), "%s%s %%llu", text_key ? " " : "",
			 text_key ? text_key : "");
		print_u64(PRINT_ANY, key, fmt, v);
	}
}

/*
 * One per-priority value of a scheme or mode (desc names it): text "NAME
 * prioP V ..." on a line of its own over the lossless priorities (all
 * with -d); JSON an array of eight named NAME.
 */
void ll_tc_print_prio_values(const struct tc_lossless_xstats *st,
			     const struct ll_scheme_stat_desc *desc,
			     const __u64 *vals)
{
	unsigned int p;

	print_nl();
	print_string(PRINT_FP, NULL, "  %s", desc->name);
	open_json_array(PRINT_JSON, desc->name);
	for (p = 0; p < LOSSLESS_PFC_PRIOS; p++) {
		char key[16];

		if (is_json_context()) {
			print_u64(PRINT_JSON, NULL, NULL, vals[p]);
			continue;
		}
		if (!show_details && !st->iq[p].lossless)
			continue;
		snprintf(key, sizeof(key), "prio%u", p);
		ll_tc_print_stat_value(NULL, key, desc->unit, vals[p]);
	}
	close_json_array(PRINT_JSON, NULL);
}

/*
 * The pool's scheme on this port (DSH, SPFC), when the kernel sent it,
 * printed from the names of the scheme's descriptor (no code per scheme).
 * Text: "scheme NAME" and its masks as priority lists, its counters, and
 * per priority its values (lossless priorities, all with -d); JSON: an
 * object "scheme_stats" with the masks as arrays, the counters, and each
 * per-priority value as an array of eight.
 */
static void ll_print_scheme_xstats(const struct tc_lossless_xstats *st,
				   unsigned int len)
{
	const struct tc_lossless_scheme_stats *ss = &st->sch;
	const struct ll_scheme_desc *d;
	__u64 vals[LOSSLESS_PFC_PRIOS];
	unsigned int i, p;

	if (len < offsetof(struct tc_lossless_xstats, sch) + sizeof(st->sch))
		return;
	d = ll_scheme_lookup(ss->scheme);
	if (!ss->scheme || !d || !(d->n_stats || d->n_prio_stats))
		return;
	print_nl();
	open_json_object("scheme_stats");
	print_string(PRINT_ANY, "scheme", "  scheme %s", d->name);
	for (i = 0; i < d->n_masks && i < LL_SCHEME_MASKS; i++) {
		__u32 m = (ss->masks >> (8 * i)) & 0xff;

		if (!d->masks[i])
			continue;
		print_string(PRINT_FP, NULL, " %s", d->masks[i]);
		open_json_array(PRINT_JSON, d->masks[i]);
		for (p = 0; p < LOSSLESS_PFC_PRIOS; p++)
			if (m & (1U << p))
				print_uint(PRINT_JSON, NULL, NULL, p);
		close_json_array(PRINT_JSON, NULL);
		ll_print_prio_list(m);
	}
	print_nl();
	print_string(PRINT_FP, NULL, " ", NULL);
	for (i = 0; i < d->n_stats && i < LOSSLESS_SCHEME_STATS; i++)
		if (d->stats[i].name)
			ll_tc_print_stat_value(d->stats[i].name, d->stats[i].name,
					      d->stats[i].unit, ss->ctr[i]);
	/* The first per-priority value (the plane has the second too). */
	if (d->n_prio_stats) {
		for (p = 0; p < LOSSLESS_PFC_PRIOS; p++)
			vals[p] = ss->prio[p];
		ll_tc_print_prio_values(st, &d->prio_stats[0], vals);
	}
	close_json_object();
}

static void ll_print_class_xstats(const struct tc_lossless_class_xstats *st)
{
	print_string(PRINT_ANY, "mode", "  mode %s",
		     st->strict ? "strict" : "dwrr");
	print_uint(PRINT_ANY, "quantum", " quantum %u", st->quantum_bytes);
	print_uint(PRINT_ANY, "limit", " limit %u", st->limit_pkts);
	print_uint(PRINT_JSON, "gate_mask", NULL, st->gate_mask);
	ll_print_gates("gates", "gate", st->gate_mask);
	print_nl();
	print_bool(PRINT_JSON, "paused", NULL, st->paused);
	print_string(PRINT_FP, NULL, "  paused %s", st->paused ? "yes" : "no");
	print_u64(PRINT_ANY, "pause_frames_rx", " pause_frames_rx %llu",
		  st->pause_frames_rx);
	ll_print_time("paused_time", " paused_time %s", st->paused_ns);
	/* NP-ECN's decisions (ecn-mode np-ecn): shown once it made any. */
	if (st->np_ecn_marked || st->np_ecn_exempt || st->np_ecn_not_ect) {
		print_nl();
		print_u64(PRINT_ANY, "np_ecn_marked", "  np-ecn marked %llu",
			  st->np_ecn_marked);
		print_u64(PRINT_ANY, "np_ecn_exempt", " exempt %llu",
			  st->np_ecn_exempt);
		print_u64(PRINT_ANY, "np_ecn_not_ect", " not-ect %llu",
			  st->np_ecn_not_ect);
	}
	/* A downstream's TOKENS frames (BifrostX): shown once it sent any. */
	if (!st->credit_frames)
		return;
	print_nl();
	print_uint(PRINT_JSON, "credit_metered", NULL, st->credit_metered);
	print_string(PRINT_FP, NULL, "  credit %s",
		     st->credit_metered ? "metered" : "off");
	print_u64(PRINT_ANY, "credit_bytes", " left %llub", st->credit_bytes);
	print_u64(PRINT_ANY, "credit_frames", " frames %llu",
		  st->credit_frames);
	print_u64(PRINT_ANY, "credit_granted_bytes", " granted %llub",
		  st->credit_granted_bytes);
	print_u64(PRINT_ANY, "credit_blocked", " blocked %llu",
		  st->credit_blocked);
}

/*
 * Both kinds start with a __u32 type. Structs only grow at the end: copy
 * what the kernel sent into a zeroed struct of our size (fq's pattern), so
 * older and newer kernels both print.
 */
int ll_tc_print_xstats(struct qdisc_util *qu, FILE *f,
		       struct rtattr *xstats)
{
	unsigned int len;
	__u32 type;

	(void)qu, (void)f;

	if (!xstats)
		return 0;
	len = RTA_PAYLOAD(xstats);
	if (len < sizeof(type)) {
		print_string(PRINT_FP, NULL, "  (xstats too short)", NULL);
		return 0;
	}
	memcpy(&type, RTA_DATA(xstats), sizeof(type));

	if (type == TC_LOSSLESS_XSTATS_QDISC) {
		struct tc_lossless_xstats st;

		memset(&st, 0, sizeof(st));
		memcpy(&st, RTA_DATA(xstats), min(len, (unsigned int)sizeof(st)));
		ll_print_qdisc_xstats(&st, len);
		ll_print_pool_xstats(&st, len);
		ll_print_premise_xstats(&st, len);
		ll_print_wd_xstats(&st, len);
		ll_print_scheme_xstats(&st, len);
		ll_tc_print_mode_xstats(&st, len);
	} else if (type == TC_LOSSLESS_XSTATS_CLASS) {
		struct tc_lossless_class_xstats st;

		memset(&st, 0, sizeof(st));
		memcpy(&st, RTA_DATA(xstats), min(len, (unsigned int)sizeof(st)));
		ll_print_class_xstats(&st);
	} else {
		print_uint(PRINT_ANY, "xstats_type", "  unknown xstats type %u",
			   type);
	}
	return 0;
}

