// SPDX-License-Identifier: GPL-2.0-only
/* The status reply's members, written as they are generated (status_json.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_names.h"
#include "agent_conn.h"
#include "agent_server.h"
#include "clock.h"
#include "export.h"
#include "iopoll_summary.h"
#include "setup_flags.h"
#include "status_advice.h"
#include "uring_abi.h"
#include "status_bill.h"
#include "status_hybrid.h"
#include "status_json.h"
#include "status_probe.h"
#include "status_verdict.h"
#include "tunable.h"
#include "version.h"

/* the non-zero IDs of @ids */
static void ids_write(struct status_writer *w, const char *key, const uint32_t *ids, size_t n)
{
	sw_array(w, key);
	for (size_t i = 0; i < n; i++)
		if (ids[i])
			sw_u64(w, NULL, ids[i]);
	sw_array_end(w);
}

/*
 * Who polls what: the kernel busy-polls the IDs of its list (kernel_napi_ids),
 * learned by its dynamic tracking or set as a static list by uringtune or by
 * the application; an ID seen on the ring's sockets that is not in it is
 * not polled (napi_ids_not_polled, when the whole list is known).
 */
static void polling_write(struct status_writer *w, const struct ut_ring *ring,
			  const struct ut_ring_stats *s)
{
	const struct ut_napi_state *n = &ring->obs.napi;
	uint32_t n_kernel = ring->obs.n_kernel_ids;
	const char *by = NULL;

	if (n->enabled && n->track_mode == UT_TRACK_STATIC)
		by = ring->tune.managed_by == UT_MANAGED_URINGTUNE ? "uringtune static list" :
		     "application static list";
	else if (n->enabled)
		by = "kernel dynamic tracking";
	sw_str(w, "napi_list_by", by);
	if (n_kernel > UT_MAX_NAPI_IDS) {
		/* more than the copy holds: which seen ID is missing is not known */
		sw_null(w, "napi_ids_not_polled");
		return;
	}
	sw_array(w, "napi_ids_not_polled");
	for (size_t i = 0; i < UT_MAX_NAPI_IDS; i++) {
		bool found = false;

		if (!s->napi_ids[i])
			continue;
		for (uint32_t k = 0; k < n_kernel && !found; k++)
			found = ring->obs.kernel_napi_ids[k] == s->napi_ids[i];
		if (!found)
			sw_u64(w, NULL, s->napi_ids[i]);
	}
	sw_array_end(w);
}

static void flags_write(struct status_writer *w, uint32_t flags)
{
	char unknown[16];

	sw_array(w, "setup_flags");
	for (unsigned int bit = 0; bit < 32; bit++) {
		const char *name;

		if (!(flags & (1U << bit)))
			continue;
		name = setup_flag_name(bit);
		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%x", 1U << bit);
			name = unknown;
		}
		sw_str(w, NULL, name);
	}
	sw_array_end(w);
}

static void hist_write(struct status_writer *w, const char *key, const __u64 *hist)
{
	sw_array(w, key);
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		sw_u64(w, NULL, hist[i]);
	sw_array_end(w);
}

static void napi_write(struct status_writer *w, const struct ut_napi_state *n)
{
	const char *tracking = n->enabled ? track_mode_name(n->track_mode) : NULL;

	sw_object(w, "napi");
	sw_bool(w, "enabled", n->enabled);
	sw_u64(w, "busy_poll_us", n->busy_poll_ns / 1000);
	sw_bool(w, "prefer_busy_poll", n->prefer);
	sw_str(w, "tracking", tracking ? tracking : "inactive");
	sw_object_end(w);
}

static void waits_write(struct status_writer *w, const struct ut_ring_stats *s)
{
	sw_object(w, "waits");
	sw_u64(w, "total", s->waits);
	sw_u64(w, "no_sleep", s->waits_nosleep);
	sw_u64(w, "slept", s->waits - s->waits_nosleep);
	sw_object_end(w);
}

static void busy_write(struct status_writer *w, const struct ut_ring_stats *s,
		       const struct bill_ring *bill, uint32_t setup_flags, bool table)
{
	sw_object(w, "busy_poll");
	/* where the ring's NAPI is busy-polled: its SQPOLL thread's loop, or its waits (windows) */
	if (!table)
		sw_str(w, "polled_in", setup_flags & UT_SETUP_SQPOLL ? "sq_thread" : "waits");
	sw_u64(w, "windows", s->busy_windows);
	sw_u64(w, "paid_off", s->busy_paid);
	if (s->busy_windows)
		sw_double(w, "hit_rate", (double)s->busy_paid / s->busy_windows);
	else
		sw_null(w, "hit_rate");
	if (!table) {
		uint64_t timed = 0;

		for (int i = 0; i < UT_HIST_SLOTS; i++)
			timed += s->busy_hist[i];
		/* the paid windows timed: their lengths */
		sw_u64(w, "time_ns", s->busy_ns);
		hist_write(w, "hist_log2_ns", s->busy_hist);
		/* the 1-in-16 sample the bill's means come from, and what of it was timed */
		sw_object(w, "sample");
		sw_u64(w, "windows", s->windows_sampled);
		sw_u64(w, "paid_timed", timed);
		sw_u64(w, "unpaid_timed", s->unpaid_timed);
		sw_u64(w, "unpaid_time_ns", s->unpaid_timed_ns);
		/* no busy-poll iteration of the waiting thread seen, or past the timeout */
		sw_u64(w, "unknown_length", s->windows_unstamped + s->windows_overlong);
		sw_u64(w, "unstamped", s->windows_unstamped);
		sw_u64(w, "overlong", s->windows_overlong);
		sw_object_end(w);
		sw_u64(w, "wait_tid", s->wait_tid);
	}
	status_bill_write(w, bill, table);
	sw_object_end(w);
}

/*
 * What a sleep costs the ring's waiter (the figure the tuner uses), where it
 * comes from, and the wake-ups it was measured on.
 */
static void wakeup_write(struct status_writer *w, const struct ut_ring *ring,
			 const struct ut_ring_stats *s)
{
	sw_object(w, "wakeup");
	sw_double(w, "cost_us", (double)ring->obs.wakeup_ns / 1000);
	sw_str(w, "source", wakeup_source_name(ring->obs.wakeup_src));
	/* the ring's own running mean, whichever figure is used */
	if (ring->obs.wake.samples)
		sw_double(w, "measured_us", ring->obs.wake.mean_ns / 1000);
	else
		sw_null(w, "measured_us");
	sw_u64(w, "sleeps_woken", s->sleeps_woken);
	sw_u64(w, "timed", s->wakes);
	sw_u64(w, "timed_too_long", s->wakes_long);
	sw_object_end(w);
}

static void u64_or_null(struct status_writer *w, const char *key, bool have, uint64_t v)
{
	if (have)
		sw_u64(w, key, v);
	else
		sw_null(w, key);
}

/* IOPOLL rings: completion times, classic or hybrid, and the advisor */
static void iopoll_write(struct status_writer *w, const struct ut_ring *ring,
			 const struct ut_daemon *d, bool table)
{
	const struct ut_iopoll *io = &d->iopoll;
	const struct verdicts *verdicts = &d->verdicts;
	static const char *const classes[UT_IOP_CLASSES] = {
		[UT_IOP_READ] = "read", [UT_IOP_WRITE] = "write",
		[UT_IOP_URING_CMD] = "uring_cmd", [UT_IOP_OTHER] = "other",
	};
	static const struct ut_iopoll_stats none;
	const struct ut_iopoll_stats *s = ring->obs.have_iop ? ring->obs.iop : &none;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;
	struct iopoll_summary sum;

	iopoll_summarize(s, &sum);
	sw_object(w, "iopoll");
	sw_str(w, "mode", hybrid ? "hybrid" : "classic");
	/* requests before the hooks went on were not counted */
	sw_bool(w, "partial", !io->attached || ring->obs.first_seen_ns < io->attached_ns);
	sw_u64(w, "completions", sum.completions);
	sw_u64(w, "in_flight", sum.in_flight);
	u64_or_null(w, "p50_ns", sum.completions, sum.p50_ns);
	u64_or_null(w, "p99_ns", sum.completions, sum.p99_ns);
	u64_or_null(w, "mean_ns", sum.completions, sum.mean_ns);
	if (!table) {
		hist_write(w, "hist_log2_ns", sum.hist);
		sw_object(w, "by_op");
		for (int c = 0; c < UT_IOP_CLASSES; c++) {
			if (!s->completions[c])
				continue;
			sw_object(w, classes[c]);
			sw_u64(w, "completions", s->completions[c]);
			hist_write(w, "hist_log2_ns", s->hist[c]);
			sw_object_end(w);
		}
		sw_object_end(w);
	}
	/* the kernel starts it at LLONG_MAX and only lowers it */
	u64_or_null(w, "hybrid_poll_time_ns", hybrid && s->hybrid_poll_time_ns &&
		    s->hybrid_poll_time_ns < (uint64_t)INT64_MAX, s->hybrid_poll_time_ns);
	status_iopoll_window_write(w, ring->obs.iopw, table);
	status_iopoll_advice_write(w, ring->obs.iopw, hybrid, d->cfg.agent.hybrid_min_saving,
				   d->cfg.agent.hybrid_max_loss);
	status_verdict_ring(w, verdicts, ring);
	sw_object_end(w);
}

static void tuning_write(struct status_writer *w, const struct ut_daemon *d,
			 const struct ut_ring *ring)
{
	sw_object(w, "tuning");
	sw_bool(w, "pinned", ring->tune.pinned);
	/* pinned with set --force: kept whatever [select] says */
	sw_bool(w, "forced", ring->tune.forced);
	sw_bool(w, "hands_off", ring->tune.hands_off);
	sw_str_or_null(w, "error", ring->tune.error);
	sw_str_or_null(w, "last_decision", ring->tune.last_decision);
	/* ring creation (or discovery) to uringtune's first change */
	if (ring->tune.reaction_ns)
		sw_double(w, "reaction_us", ring->tune.reaction_ns / 1000.0);
	else
		sw_null(w, "reaction_us");
	/* observe mode: what tune mode would set; the last changes, made or advised */
	status_advice_write(w, d, ring);
	status_decisions_write(w, ring);
	sw_object_end(w);
}

/* what the kernel shows of the agent's hybrid decision: the ring's flags (BPF) */
static const char *agent_hybrid(const struct ut_ring *ring, const struct agent_slot_info *in)
{
	bool iopoll = ring->obs.setup_flags & UT_SETUP_IOPOLL;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;

	return !iopoll ? "not an IOPOLL ring" :
	       hybrid ? (in->hybrid_decided ? "added" : "set by the program") :
	       !in->hybrid_decided ? "not added" :
	       in->reported.hybrid_fallback ? "refused by the kernel (EINVAL): classic IOPOLL" :
	       "not in the ring's flags: classic IOPOLL";
}

/* a ring set up through the in-process agent: what it did, what is on its way */
static void agent_write(struct status_writer *w, const struct ut_daemon *d,
			const struct ut_ring *ring)
{
	const struct agent_slot_info *in = agent_server_info(&d->agent, ring);
	bool iopoll = ring->obs.setup_flags & UT_SETUP_IOPOLL;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;
	char napi[160], said[160], why[sizeof(in->why) + 48];

	if (!in) {
		sw_null(w, "agent");
		return;
	}
	sw_object(w, "agent");
	sw_u64(w, "slot", ring->agent.slot);
	sw_str(w, "entry", agent_entry_name(in->entry));
	sw_str(w, "hybrid", agent_hybrid(ring, in));
	/* ... and the register call BPF saw from its process during the setup */
	if (!ring->agent.setup_napi_seen)
		snprintf(napi, sizeof(napi), "not registered at setup");
	else if (ring->agent.setup_napi_ret)
		snprintf(napi, sizeof(napi), "refused: %s", strerror(-ring->agent.setup_napi_ret));
	else
		snprintf(napi, sizeof(napi), "registered");
	sw_str(w, "napi_at_setup", napi);
	/* the agent's own words, for the record: nothing is decided on them */
	snprintf(said, sizeof(said), "hybrid %s; NAPI at setup %s",
		 in->reported.hybrid_added ? "added" : in->reported.hybrid_fallback ?
		 "refused by the kernel" : "not added", !in->reported.napi_tried ? "not tried" :
		 in->reported.napi_ret ? strerror(-in->reported.napi_ret) : "registered");
	sw_str(w, "reported", said);
	/* a decision written to the page that the agent has not applied yet */
	sw_bool(w, "pending", ring->tune.pending);
	if (ring->tune.pending)
		sw_double(w, "pending_s", (now_ns() - ring->tune.published_ns) / 1e9);
	else
		sw_null(w, "pending_s");
	/* the decision as asked; what the kernel made of it is in "hybrid" too */
	snprintf(why, sizeof(why), "%s%s", in->why,
		 iopoll && in->hybrid_decided && !hybrid ? " (not in the ring's flags: classic "
		 "IOPOLL)" : "");
	sw_str(w, "decision", why);
	sw_object_end(w);
}

void status_write_ring(struct status_writer *w, const struct ut_daemon *d,
		       const struct ut_ring *ring, bool table)
{
	static const struct ut_ring_stats no_stats;
	const struct ut_ring_stats *s = ring->obs.have_stats ? &ring->obs.stats : &no_stats;
	uint32_t n_kernel = ring->obs.n_kernel_ids;
	char reason_buf[160];
	const char *reason;
	bool tunable;

	tunable = status_ring_tunable(d, ring, &reason, reason_buf, sizeof(reason_buf));
	sw_object(w, NULL);
	sw_i64(w, "pid", ring->obs.holder.pid);
	sw_str(w, "comm", ring->obs.holder.comm);
	sw_i64(w, "fd", ring->obs.holder.fd);
	if (!table)
		sw_u64(w, "inode", ring->obs.holder.ino);
	flags_write(w, ring->obs.setup_flags);
	sw_u64(w, "setup_flags_raw", ring->obs.setup_flags);
	napi_write(w, &ring->obs.napi);
	ids_write(w, "napi_ids", s->napi_ids, UT_MAX_NAPI_IDS);
	if (!table) {
		ids_write(w, "kernel_napi_ids", ring->obs.kernel_napi_ids,
			  n_kernel < UT_MAX_NAPI_IDS ? n_kernel : UT_MAX_NAPI_IDS);
		polling_write(w, ring, s);
	}
	waits_write(w, s);
	busy_write(w, s, &ring->obs.bill, ring->obs.setup_flags, table);
	if (!table)
		wakeup_write(w, ring, s);
	sw_bool(w, "tunable", tunable);
	sw_str(w, "reason", reason);
	sw_str(w, "managed_by", managed_by_name(ring->tune.managed_by));
	/* how uringtune reaches the ring: "agent" in-process, "register" from outside */
	sw_str(w, "managed_via", ring->tune.managed_by != UT_MANAGED_URINGTUNE ? NULL :
	       ring->agent.via ? "agent" : "register");
	if (!table) {
		tuning_write(w, d, ring);
		agent_write(w, d, ring);
	} else {
		/* the table's ADVICE column */
		sw_object(w, "tuning");
		status_advice_write(w, d, ring);
		sw_object_end(w);
	}
	if (ring->obs.setup_flags & UT_SETUP_IOPOLL)
		iopoll_write(w, ring, d, table);
	sw_object_end(w);
}

/* the agent socket and page, and the rings set up through agents, counted apart */
static void agent_status_write(struct status_writer *w, const struct ut_daemon *d)
{
	const struct ut_agent_server *a = &d->agent;
	uint64_t rings = 0, managed = 0, pending = 0;
	struct ut_ring *ring;
	size_t i;

	registry_for_each(&d->reg, i, ring) {
		if (!ring->agent.via)
			continue;
		rings++;
		managed += ring->tune.managed_by == UT_MANAGED_URINGTUNE;
		pending += ring->tune.pending;
	}
	sw_object(w, "agent");
	sw_bool(w, "enabled", d->cfg.agent.enabled);
	sw_str(w, "socket", a->listen_fd >= 0 ? d->cfg.agent.socket_path : NULL);
	sw_str(w, "page", a->page.pg ? a->page.path : NULL);
	sw_str_or_null(w, "page_error", a->page_error);
	sw_u64(w, "rings", rings);
	sw_u64(w, "rings_managed", managed);
	sw_u64(w, "rings_pending", pending);
	sw_u64(w, "requests", a->requests);
	sw_u64(w, "refused", a->refused);
	sw_u64(w, "hybrid_added", a->hybrid_added);
	sw_u64(w, "hybrid_fallback", a->hybrid_fallback);
	sw_u64(w, "napi_registered", a->napi_registered);
	sw_u64(w, "napi_failed", a->napi_failed);
	sw_u64(w, "published", a->published);
	sw_u64(w, "applied", d->lc.agent_applied);
	sw_u64(w, "app_took_over", a->app_took_over);
	sw_u64(w, "bad_messages", a->refusals[AGENT_REFUSED_BAD_MESSAGE]);
	sw_u64(w, "slots_used", agent_server_slots_used(a));
	sw_u64(w, "slots_per_uid", d->cfg.agent.slots_per_uid);
	sw_u64(w, "slots_replaced", a->slots_replaced);
	sw_u64(w, "connections_waiting", agent_conn_waiting(a));
	/* every refusal of a message, connection or slot, by reason */
	sw_object(w, "refusals");
	for (i = 0; i < AGENT_REFUSED_NR; i++)
		sw_u64(w, agent_refusal_names[i], a->refusals[i]);
	sw_object_end(w);
	sw_object_end(w);
}

/* the last SIGHUP: {"last":"ok|refused|never","time":unix s|null,"error":..,"count_ok":N,"count_refused":N} */
static void reload_write(struct status_writer *w, const struct reload_state *r)
{
	sw_object(w, "reload");
	sw_str(w, "last", reload_result_name(r->last));
	if (r->last == RELOAD_NEVER)
		sw_null(w, "time");
	else
		sw_i64(w, "time", r->time);
	sw_str(w, "error", r->last == RELOAD_REFUSED ? r->error : NULL);
	sw_u64(w, "count_ok", r->count_ok);
	sw_u64(w, "count_refused", r->count_refused);
	sw_object_end(w);
}

/*
 * How the inventory follows rings (inventory.h): the host sweep is the
 * backstop; the rest are its cheap ways.
 */
static void inventory_write(struct status_writer *w, const struct inventory *inv)
{
	sw_object(w, "inventory");
	sw_u64(w, "sweep_cpu_us_total", inv->budget.total_cpu_ns / 1000);
	sw_u64(w, "last_sweep_cpu_us", inv->last_sweep_cpu_us);
	sw_double(w, "sweep_cpu_pct", inv->budget.share * 100);
	sw_u64(w, "rings_gone", inv->rings_gone);
	sw_u64(w, "holders", inv->holders.count);
	sw_u64(w, "holders_unwatched", inv->holders.unwatched);
	sw_u64(w, "holder_exits", inv->holder_exits);
	sw_u64(w, "holder_forks", inv->holders.forks);
	sw_u64(w, "holder_checks", inv->holder_checks);
	sw_u64(w, "holders_lost", inv->holders_lost);
	sw_u64(w, "holders_moved", inv->holders_moved);
	sw_u64(w, "pid_scans", inv->pid_scans);
	/* threads whose CPU time bounded the bill: read only for rings whose windows grew */
	sw_u64(w, "bill_cpu_reads", inv->bound_reads);
	sw_object_end(w);
}

/* the event loop's dispatches (loop_stats.h): the longest, and a cumulative histogram */
static void loop_write(struct status_writer *w, const struct loop_stats *st)
{
	sw_object(w, "loop");
	sw_u64(w, "dispatches", st->dispatches);
	sw_u64(w, "dispatch_total_us", st->total_ns / 1000);
	sw_u64(w, "slow", st->slow);
	sw_u64(w, "slow_threshold_us", LOOP_SLOW_NS / 1000);
	sw_u64(w, "longest_us", st->longest.ns / 1000);
	sw_str(w, "longest_source", st->longest.ns ? st->longest.what : NULL);
	if (st->longest.ns)
		sw_i64(w, "longest_time", st->longest_unix);
	else
		sw_null(w, "longest_time");
	sw_array(w, "buckets");
	for (size_t i = 0; i < LOOP_STATS_BUCKETS; i++) {
		sw_object(w, NULL);
		sw_u64(w, "le_us", hist_slot_max(loop_stats_bucket_slots[i]) / 1000);
		sw_u64(w, "count", loop_stats_upto(st, loop_stats_bucket_slots[i]));
		sw_object_end(w);
	}
	sw_array_end(w);
	sw_object_end(w);
}

/* the journal's group commits, off the loop (lifecycle_commit.c) */
static void journal_write(struct status_writer *w, const struct lifecycle *lc)
{
	struct lifecycle_commit_stats cs;

	lifecycle_commit_stats(lc, &cs);
	sw_object(w, "journal_commits");
	sw_u64(w, "ok", cs.commits);
	sw_u64(w, "failed", cs.failed);
	sw_u64(w, "rings", cs.rings);
	sw_u64(w, "waiting", cs.waiting);
	sw_u64(w, "write_max_us", cs.write_max_ns / 1000);
	sw_u64(w, "wait_max_us", cs.wait_max_ns / 1000);
	sw_object_end(w);
}

/* the daemon object's members: one line each */
static void daemon_write(struct status_writer *w, const struct ut_daemon *d)
{
	char path[PATH_MAX];

	sw_i64(w, "pid", d->self_pid);
	sw_str(w, "version", UT_VERSION);
	sw_str(w, "mode", config_mode_name(d->cfg.mode));
	sw_str(w, "kernel", d->kernel);
	sw_bool(w, "napi_supported", d->napi_supported);
	status_hybrid_support_write(w, &d->hybrid);
	sw_str(w, "iopoll_stats", !d->iopoll.skel ? "unavailable" :
	       iopoll_stats_name(d->cfg.iopoll_stats));
	sw_bool(w, "iopoll_tracing", d->iopoll.attached);
	sw_u64(w, "rings", d->reg.count);
	sw_u64(w, "events_lost", trace_events_lost(&d->trace));
	sw_u64(w, "rings_untraced", trace_rings_dropped(&d->trace));
	sw_i64(w, "ring_map_entries", d->inv.ring_map_entries);
	sw_u64(w, "ring_map_capacity", d->cfg.max_rings);
	sw_u64(w, "journal_entries", d->lc.journal.n);
	sw_u64(w, "actions_ok", d->lc.actions_ok);
	sw_u64(w, "actions_failed", d->lc.actions_failed);
	sw_u64(w, "actions_vanished", d->lc.actions_vanished);
	sw_u64(w, "sweeps", d->inv.sweeps);
	sw_u64(w, "last_sweep_us", d->inv.last_sweep_us);
	/* Prometheus textfile export: the file (null when off), failed writes, why */
	sw_str(w, "export_file", d->cfg.export_textfile &&
	       !export_file_path(&d->cfg, path, sizeof(path)) ? path : NULL);
	sw_u64(w, "export_errors", d->export_errors);
	sw_str_or_null(w, "export_error", d->export_error);
	reload_write(w, &d->reload);
	agent_status_write(w, d);
	inventory_write(w, &d->inv);
	/* what a sleep costs a waiter on this host: every ring's wake-ups */
	sw_object(w, "wakeup");
	sw_double(w, "cost_us", (double)d->inv.wakeup_ns / 1000);
	sw_str(w, "source", wakeup_source_name(d->inv.wakeup_src));
	sw_u64(w, "timed", d->inv.wake_host.samples);
	sw_object_end(w);
	status_sleep_probe_write(w, &d->sleep_probe);
	status_hybrid_sleep_write(w, &d->inv.hybrid_sleep, &d->sleep_probe);
	loop_write(w, &d->loop_stats);
	journal_write(w, &d->lc);
}

void status_write_head(struct status_writer *w, const struct ut_daemon *d)
{
	sw_object(w, NULL);
	sw_i64(w, "version", 1);
	sw_object(w, "daemon");
	daemon_write(w, d);
	sw_object_end(w);
	status_bill_host_write(w, &d->reg.bill);
	status_verdicts_write(w, &d->verdicts, &d->verdict_file);
	sw_array(w, "rings");
}

void status_write_tail(struct status_writer *w)
{
	sw_array_end(w);
	sw_object_end(w);
}
