// SPDX-License-Identifier: GPL-2.0-only
/* The export's families about the daemon itself: see prom_daemon.h. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "agent_server.h"
#include "hist.h"
#include "loop_stats.h"
#include "prom_daemon.h"
#include "prom_text.h"
#include "trace.h"
#include "version.h"

#define LOOP_HIST	"uringtune_loop_dispatch_seconds"

/* SIGHUP: a refused reload keeps the old configuration running, which an alert should see */
static void reload_metrics(const struct reload_state *r, FILE *out)
{
	prom_counter_pair(out, "uringtune_config_reloads_total",
			  "Reloads of the configuration file (SIGHUP): swapped in, or refused as "
			  "invalid.", "result", "ok", r->count_ok, "refused", r->count_refused);
	prom_family(out, "uringtune_config_last_reload_success", "gauge",
		    "0 if the last reload was refused (the previous configuration runs), else 1.");
	fprintf(out, "uringtune_config_last_reload_success %d\n", r->last != RELOAD_REFUSED);
	prom_family(out, "uringtune_config_last_reload_timestamp_seconds", "gauge",
		    "Unix time of the last reload, ok or refused; 0 if none since the start.");
	fprintf(out, "uringtune_config_last_reload_timestamp_seconds %" PRId64 "\n",
		r->last == RELOAD_NEVER ? 0 : r->time);
}

static void loop_metrics(const struct loop_stats *st, FILE *out)
{
	char le[PROM_LE_SIZE], secs[PROM_SECONDS_SIZE];
	char what[PROM_ESCAPED_SIZE(LOOP_WHAT_SIZE)];

	prom_family(out, LOOP_HIST, "histogram",
		    "How long each dispatch of uringtuned's event loop took: one event source's "
		    "handler, during which nothing else is answered.");
	/* loop_stats keeps every slot; a handful of buckets says enough */
	for (size_t i = 0; i < LOOP_STATS_BUCKETS; i++) {
		prom_le(le, loop_stats_bucket_slots[i]);
		fprintf(out, LOOP_HIST "_bucket{le=\"%s\"} %" PRIu64 "\n", le,
			loop_stats_upto(st, loop_stats_bucket_slots[i]));
	}
	fprintf(out, LOOP_HIST "_bucket{le=\"+Inf\"} %" PRIu64 "\n"
		LOOP_HIST "_sum %s\n" LOOP_HIST "_count %" PRIu64 "\n", st->dispatches,
		prom_seconds(secs, st->total_ns), st->dispatches);

	prom_family(out, "uringtune_loop_longest_dispatch_seconds", "gauge",
		    "The longest dispatch of the event loop since the start, and its event source "
		    "(\"none\" before the first).");
	prom_escape(what, st->longest.ns ? st->longest.what : "none", LOOP_WHAT_SIZE);
	fprintf(out, "uringtune_loop_longest_dispatch_seconds{source=\"%s\"} %s\n", what,
		prom_seconds(secs, st->longest.ns));
}

/* the journal's group commits (lifecycle_commit.c), off the event loop */
static void journal_commit_metrics(const struct lifecycle *lc, FILE *out)
{
	struct lifecycle_commit_stats cs;
	char secs[PROM_SECONDS_SIZE];

	lifecycle_commit_stats(lc, &cs);
	prom_counter_pair(out, "uringtune_journal_commits_total",
			  "Journal writes (temporary file, fsync, rename, directory fsync), by result.",
			  "result", "ok", cs.commits, "failed", cs.failed);
	prom_family(out, "uringtune_journal_commit_rings_total", "counter",
		    "Rings whose first change waited for a journal write (per write: divide by "
		    "uringtune_journal_commits_total).");
	fprintf(out, "uringtune_journal_commit_rings_total %" PRIu64 "\n", cs.rings);
	prom_family(out, "uringtune_journal_commit_max_seconds", "gauge",
		    "The longest journal write since the start.");
	fprintf(out, "uringtune_journal_commit_max_seconds %s\n",
		prom_seconds(secs, cs.write_max_ns));
	prom_family(out, "uringtune_journal_wait_max_seconds", "gauge",
		    "The longest a ring waited for its journal write before it was changed.");
	fprintf(out, "uringtune_journal_wait_max_seconds %s\n", prom_seconds(secs, cs.wait_max_ns));
}

/* how the inventory keeps up: events and cheap checks, the host sweep as a backstop */
static void inventory_metrics(const struct inventory *inv, FILE *out)
{
	static const char name[] = "uringtune_inventory_events_total";
	char secs[PROM_SECONDS_SIZE];

	prom_family(out, "uringtune_sweeps_total", "counter",
		    "Full host sweeps (every open file on the host): one at start, then only as "
		    "the inventory's backstop, within [daemon] sweep_cpu_pct.");
	fprintf(out, "uringtune_sweeps_total %" PRIu64 "\n", inv->sweeps);
	prom_family(out, "uringtune_sweep_duration_seconds", "gauge",
		    "How long the last full host sweep took (wall time, on its own thread).");
	fprintf(out, "uringtune_sweep_duration_seconds %s\n",
		prom_seconds(secs, inv->last_sweep_us * 1000));
	prom_family(out, "uringtune_sweep_cpu_seconds_total", "counter",
		    "CPU time the full host sweeps took, start-up sweep included.");
	fprintf(out, "uringtune_sweep_cpu_seconds_total %s\n",
		prom_seconds(secs, inv->budget.total_cpu_ns));
	prom_family(out, name, "counter",
		    "How the inventory followed rings: rings gone (their last close), holder "
		    "processes exited, holder checks (a stat each), holders found not holding "
		    "their ring, and found again elsewhere, per-process scans.");
	fprintf(out, "%s{event=\"ring_gone\"} %" PRIu64 "\n", name, inv->rings_gone);
	fprintf(out, "%s{event=\"holder_exit\"} %" PRIu64 "\n", name, inv->holder_exits);
	fprintf(out, "%s{event=\"holder_check\"} %" PRIu64 "\n", name, inv->holder_checks);
	fprintf(out, "%s{event=\"holder_lost\"} %" PRIu64 "\n", name, inv->holders_lost);
	fprintf(out, "%s{event=\"holder_moved\"} %" PRIu64 "\n", name, inv->holders_moved);
	fprintf(out, "%s{event=\"pid_scan\"} %" PRIu64 "\n", name, inv->pid_scans);
}

static void counters(const struct ut_daemon *d, FILE *out)
{
	/* no BPF in unit tests: nothing could be lost or untraced */
	uint64_t lost = d->trace.skel ? trace_events_lost(&d->trace) : 0;
	uint64_t untraced = d->trace.skel ? trace_rings_dropped(&d->trace) : 0;

	prom_family(out, "uringtune_rings", "gauge", "io_uring rings in the registry.");
	fprintf(out, "uringtune_rings %zu\n", d->reg.count);

	prom_family(out, "uringtune_rings_untraced_total", "counter",
		    "Rings that got no statistics slot: the BPF map of rings was full (max_rings).");
	fprintf(out, "uringtune_rings_untraced_total %" PRIu64 "\n", untraced);

	prom_family(out, "uringtune_events_lost_total", "counter",
		    "BPF ring-buffer events lost because the buffer was full.");
	fprintf(out, "uringtune_events_lost_total %" PRIu64 "\n", lost);

	prom_family(out, "uringtune_bpf_ring_map_entries", "gauge",
		    "Entries in the BPF map of rings (statistics slots in use).");
	fprintf(out, "uringtune_bpf_ring_map_entries %d\n", d->inv.ring_map_entries);

	prom_family(out, "uringtune_bpf_ring_map_capacity", "gauge",
		    "Capacity of the BPF map of rings (max_rings).");
	fprintf(out, "uringtune_bpf_ring_map_capacity %u\n", d->cfg.max_rings);

	prom_counter_pair(out, "uringtune_tuning_actions_total",
			  "NAPI setting changes uringtune made, by whether the kernel accepted them.",
			  "result", "ok", d->lc.actions_ok, "failed", d->lc.actions_failed);

	prom_family(out, "uringtune_tuning_rings_vanished_total", "counter",
		    "Rings that went away (closed, process exited) before uringtune could change "
		    "them: not failures.");
	fprintf(out, "uringtune_tuning_rings_vanished_total %" PRIu64 "\n",
		d->lc.actions_vanished);

	prom_family(out, "uringtune_journal_entries", "gauge",
		    "Rings whose original settings the journal keeps to restore them.");
	fprintf(out, "uringtune_journal_entries %zu\n", d->lc.journal.n);
	journal_commit_metrics(&d->lc, out);
}

void prom_daemon_metrics(const struct ut_daemon *d, FILE *out)
{
	char version[PROM_ESCAPED_SIZE(sizeof(UT_VERSION))];

	prom_family(out, "uringtune_build_info", "gauge", "uringtuned's version.");
	prom_escape(version, UT_VERSION, sizeof(UT_VERSION));
	fprintf(out, "uringtune_build_info{version=\"%s\"} 1\n", version);

	prom_family(out, "uringtune_mode_info", "gauge",
		    "uringtuned's mode: observe (watch only) or tune (change rings).");
	fprintf(out, "uringtune_mode_info{mode=\"%s\"} 1\n", config_mode_name(d->cfg.mode));

	prom_family(out, "uringtune_napi_supported", "gauge",
		    "1 if the kernel has io_uring NAPI busy polling (6.9+).");
	fprintf(out, "uringtune_napi_supported %d\n", d->napi_supported ? 1 : 0);

	/* absent while unknown: a 0 would claim what no one knows */
	prom_family(out, "uringtune_hybrid_supported", "gauge",
		    "1 if the kernel has HYBRID_IOPOLL (6.13+), 0 if not; source: how that is "
		    "known (query, ring, agent-fallback, kernel-version).");
	if (d->hybrid.supported >= 0)
		fprintf(out, "uringtune_hybrid_supported{source=\"%s\"} %d\n",
			hybrid_source_name(d->hybrid.source), d->hybrid.supported);

	counters(d, out);

	inventory_metrics(&d->inv, out);

	prom_family(out, "uringtune_export_errors_total", "counter",
		    "Writes of this file that failed (the file shows those before it).");
	fprintf(out, "uringtune_export_errors_total %" PRIu64 "\n", d->export_errors);
	/* a hung or killed daemon leaves its last file behind: its age tells */
	prom_family(out, "uringtune_export_timestamp_seconds", "gauge",
		    "Unix time uringtuned began writing this file: older than a few "
		    "uringtune_export_interval_seconds, the daemon is stuck or gone.");
	fprintf(out, "uringtune_export_timestamp_seconds %" PRId64 "\n", d->export_time);
	prom_family(out, "uringtune_export_interval_seconds", "gauge",
		    "How often uringtuned rewrites this file ([export] interval_s).");
	fprintf(out, "uringtune_export_interval_seconds %u\n", d->cfg.export_interval_s);
	reload_metrics(&d->reload, out);
	loop_metrics(&d->loop_stats, out);
}

void prom_agent_metrics(const struct ut_daemon *d, size_t agent, size_t managed, FILE *out)
{
	const struct ut_agent_server *a = &d->agent;

	prom_family(out, "uringtune_agent_rings", "gauge",
		    "Rings set up through liburingtune-agent.so, and of those the ones uringtune "
		    "manages.");
	fprintf(out, "uringtune_agent_rings{managed=\"false\"} %zu\n", agent - managed);
	fprintf(out, "uringtune_agent_rings{managed=\"true\"} %zu\n", managed);
	prom_counter_pair(out, "uringtune_agent_requests_total",
			  "Ring setups the agent asked about: answered with a decision, or refused "
			  "(no policy page, page full).",
			  "result", "answered", a->requests, "refused", a->refused);
	prom_counter_pair(out, "uringtune_agent_hybrid_total",
			  "IOPOLL rings the agent set up with HYBRID_IOPOLL, or whose kernel refused "
			  "it.", "result", "added", a->hybrid_added, "refused", a->hybrid_fallback);
	prom_counter_pair(out, "uringtune_agent_decisions_total",
			  "NAPI decisions written to the policy page, and those seen applied by the "
			  "agent.", "state", "published", a->published, "applied",
			  d->lc.agent_applied);
	prom_family(out, "uringtune_agent_slots", "gauge",
		    "Policy-page slots in use (one per ring set up through an agent, or on its way).");
	fprintf(out, "uringtune_agent_slots %u\n", agent_server_slots_used(a));
	prom_family(out, "uringtune_agent_refusals_total", "counter",
		    "Agent messages, connections and slots refused, by reason (quotas, peers that "
		    "name what is not theirs, silent or malformed ones).");
	for (int i = 0; i < AGENT_REFUSED_NR; i++)
		fprintf(out, "uringtune_agent_refusals_total{reason=\"%s\"} %" PRIu64 "\n",
			agent_refusal_names[i], a->refusals[i]);
}
