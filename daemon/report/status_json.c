// SPDX-License-Identifier: GPL-2.0-only
/* Building the status reply with json-c. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "abi_names.h"
#include "agent_conn.h"
#include "agent_server.h"
#include "clock.h"
#include "export.h"
#include "iopoll_advice.h"
#include "setup_flags.h"
#include "uring_abi.h"
#include "status_json.h"
#include "tunable.h"
#include "version.h"

static struct json_object *u64_json(uint64_t v)
{
	return json_object_new_uint64(v);
}

static struct json_object *ids_json(const uint32_t *ids, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		if (ids[i])
			json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

static struct json_object *flags_json(uint32_t flags)
{
	struct json_object *a = json_object_new_array();
	char unknown[16];

	for (unsigned int bit = 0; bit < 32; bit++) {
		const char *name;

		if (!(flags & (1U << bit)))
			continue;
		name = setup_flag_name(bit);
		if (!name) {
			snprintf(unknown, sizeof(unknown), "0x%x", 1U << bit);
			name = unknown;
		}
		json_object_array_add(a, json_object_new_string(name));
	}
	return a;
}

static struct json_object *napi_json(const struct ut_napi_state *n)
{
	struct json_object *o = json_object_new_object();
	const char *tracking = n->enabled ? track_mode_name(n->track_mode) : NULL;

	json_object_object_add(o, "enabled", json_object_new_boolean(n->enabled));
	json_object_object_add(o, "busy_poll_us", u64_json(n->busy_poll_ns / 1000));
	json_object_object_add(o, "prefer_busy_poll", json_object_new_boolean(n->prefer));
	json_object_object_add(o, "tracking",
			       json_object_new_string(tracking ? tracking : "inactive"));
	return o;
}

static struct json_object *waits_json(const struct ut_ring_stats *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "total", u64_json(s->waits));
	json_object_object_add(o, "no_sleep", u64_json(s->waits_nosleep));
	json_object_object_add(o, "slept", u64_json(s->waits - s->waits_nosleep));
	return o;
}

static struct json_object *busy_json(const struct ut_ring_stats *s)
{
	struct json_object *o = json_object_new_object();
	struct json_object *hist = json_object_new_array();

	json_object_object_add(o, "windows", u64_json(s->busy_windows));
	json_object_object_add(o, "paid_off", u64_json(s->busy_paid));
	json_object_object_add(o, "hit_rate", s->busy_windows ?
			       json_object_new_double((double)s->busy_paid / s->busy_windows) :
			       NULL);
	json_object_object_add(o, "time_ns", u64_json(s->busy_ns));
	for (int i = 0; i < UT_HIST_SLOTS; i++)
		json_object_array_add(hist, u64_json(s->busy_hist[i]));
	json_object_object_add(o, "hist_log2_ns", hist);
	return o;
}

static struct json_object *hist_json(const __u64 *hist)
{
	struct json_object *a = json_object_new_array();

	for (int i = 0; i < UT_HIST_SLOTS; i++)
		json_object_array_add(a, u64_json(hist[i]));
	return a;
}

/* IOPOLL rings: completion times, classic or hybrid, and the advisor */
static struct json_object *iopoll_json(const struct ut_ring *ring, const struct ut_iopoll *io)
{
	static const char *const classes[UT_IOP_CLASSES] = {
		[UT_IOP_READ] = "read", [UT_IOP_WRITE] = "write",
		[UT_IOP_URING_CMD] = "uring_cmd", [UT_IOP_OTHER] = "other",
	};
	static const struct ut_iopoll_stats none;
	const struct ut_iopoll_stats *s = ring->obs.have_iop ? ring->obs.iop : &none;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;
	struct json_object *o = json_object_new_object();
	struct json_object *by_op = json_object_new_object();
	struct json_object *advice = json_object_new_object();
	struct iopoll_summary sum;
	struct iopoll_advice adv;

	iopoll_summarize(s, &sum);
	iopoll_advise(&sum, hybrid, s->hybrid_poll_time_ns, &adv);
	json_object_object_add(o, "mode", json_object_new_string(hybrid ? "hybrid" : "classic"));
	/* requests before the hooks went on were not counted */
	json_object_object_add(o, "partial", json_object_new_boolean(!io->attached ||
				       ring->obs.first_seen_ns < io->attached_ns));
	json_object_object_add(o, "completions", u64_json(sum.completions));
	json_object_object_add(o, "in_flight", u64_json(sum.in_flight));
	json_object_object_add(o, "p50_ns", sum.completions ? u64_json(sum.p50_ns) : NULL);
	json_object_object_add(o, "p99_ns", sum.completions ? u64_json(sum.p99_ns) : NULL);
	json_object_object_add(o, "mean_ns", sum.completions ? u64_json(sum.mean_ns) : NULL);
	json_object_object_add(o, "hist_log2_ns", hist_json(sum.hist));
	for (int c = 0; c < UT_IOP_CLASSES; c++) {
		struct json_object *one;

		if (!s->completions[c])
			continue;
		one = json_object_new_object();
		json_object_object_add(one, "completions", u64_json(s->completions[c]));
		json_object_object_add(one, "hist_log2_ns", hist_json(s->hist[c]));
		json_object_object_add(by_op, classes[c], one);
	}
	json_object_object_add(o, "by_op", by_op);
	/* the kernel starts it at LLONG_MAX and only lowers it */
	json_object_object_add(o, "hybrid_poll_time_ns",
			       hybrid && s->hybrid_poll_time_ns &&
			       s->hybrid_poll_time_ns < (uint64_t)INT64_MAX ?
			       u64_json(s->hybrid_poll_time_ns) : NULL);
	json_object_object_add(advice, "hybrid_cpu_saving", json_object_new_double(adv.cpu_saving));
	json_object_object_add(advice, "recommend_hybrid", json_object_new_boolean(adv.recommend));
	json_object_object_add(advice, "why", json_object_new_string(adv.why));
	json_object_object_add(o, "advice", advice);
	return o;
}

static struct json_object *str_or_null(const char *s)
{
	return s[0] ? json_object_new_string(s) : NULL;
}

static struct json_object *tuning_json(const struct ut_ring *ring)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "pinned", json_object_new_boolean(ring->tune.pinned));
	/* pinned with set --force: kept whatever [select] says */
	json_object_object_add(o, "forced", json_object_new_boolean(ring->tune.forced));
	json_object_object_add(o, "hands_off", json_object_new_boolean(ring->tune.hands_off));
	json_object_object_add(o, "error", str_or_null(ring->tune.error));
	json_object_object_add(o, "last_decision", str_or_null(ring->tune.last_decision));
	/* ring creation (or discovery) to uringtune's first change */
	json_object_object_add(o, "reaction_us", ring->tune.reaction_ns ?
			       json_object_new_double(ring->tune.reaction_ns / 1000.0) : NULL);
	return o;
}

/* a ring set up through the in-process agent: what it did, what is on its way */
static struct json_object *agent_json(const struct ut_daemon *d, const struct ut_ring *ring)
{
	const struct agent_slot_info *in = agent_server_info(&d->agent, ring);
	bool iopoll = ring->obs.setup_flags & UT_SETUP_IOPOLL;
	bool hybrid = ring->obs.setup_flags & UT_SETUP_HYBRID_IOPOLL;
	struct json_object *o;
	char napi[160], said[160], why[sizeof(in->why) + 48];

	if (!in)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "slot", u64_json(ring->agent.slot));
	json_object_object_add(o, "entry", json_object_new_string(agent_entry_name(in->entry)));
	/* what the kernel shows: the ring's flags (BPF) against the decision */
	json_object_object_add(o, "hybrid", json_object_new_string(
		!iopoll ? "not an IOPOLL ring" :
		hybrid ? (in->hybrid_decided ? "added" : "set by the program") :
		!in->hybrid_decided ? "not added" :
		in->reported.hybrid_fallback ? "refused by the kernel (EINVAL): classic IOPOLL" :
		"not in the ring's flags: classic IOPOLL"));
	/* ... and the register call BPF saw from its process during the setup */
	if (!ring->agent.setup_napi_seen)
		snprintf(napi, sizeof(napi), "not registered at setup");
	else if (ring->agent.setup_napi_ret)
		snprintf(napi, sizeof(napi), "refused: %s", strerror(-ring->agent.setup_napi_ret));
	else
		snprintf(napi, sizeof(napi), "registered");
	json_object_object_add(o, "napi_at_setup", json_object_new_string(napi));
	/* the agent's own words, for the record: nothing is decided on them */
	snprintf(said, sizeof(said), "hybrid %s; NAPI at setup %s",
		 in->reported.hybrid_added ? "added" : in->reported.hybrid_fallback ?
		 "refused by the kernel" : "not added", !in->reported.napi_tried ? "not tried" :
		 in->reported.napi_ret ? strerror(-in->reported.napi_ret) : "registered");
	json_object_object_add(o, "reported", json_object_new_string(said));
	/* a decision written to the page that the agent has not applied yet */
	json_object_object_add(o, "pending", json_object_new_boolean(ring->tune.pending));
	json_object_object_add(o, "pending_s", ring->tune.pending ?
			       json_object_new_double((now_ns() - ring->tune.published_ns) / 1e9) :
			       NULL);
	/* the decision as asked; what the kernel made of it is in "hybrid" too */
	snprintf(why, sizeof(why), "%s%s", in->why,
		 iopoll && in->hybrid_decided && !hybrid ? " (not in the ring's flags: classic "
		 "IOPOLL)" : "");
	json_object_object_add(o, "decision", json_object_new_string(why));
	return o;
}

struct json_object *ring_json(const struct ut_daemon *d, const struct ut_ring *ring)
{
	bool napi_supported = d->napi_supported;
	static const struct ut_ring_stats no_stats;
	const struct ut_ring_stats *s = ring->obs.have_stats ? &ring->obs.stats : &no_stats;
	struct json_object *o = json_object_new_object();
	const char *reason;
	bool tunable;

	tunable = ring_tunable_agent(ring->obs.setup_flags, napi_supported, ring->tune.managed_by,
				     ring_agent_driven(ring), &reason);

	json_object_object_add(o, "pid", json_object_new_int(ring->obs.holder.pid));
	json_object_object_add(o, "comm", json_object_new_string(ring->obs.holder.comm));
	json_object_object_add(o, "fd", json_object_new_int(ring->obs.holder.fd));
	json_object_object_add(o, "inode", u64_json(ring->obs.holder.ino));
	json_object_object_add(o, "setup_flags", flags_json(ring->obs.setup_flags));
	json_object_object_add(o, "setup_flags_raw", u64_json(ring->obs.setup_flags));
	json_object_object_add(o, "napi", napi_json(&ring->obs.napi));
	json_object_object_add(o, "napi_ids", ids_json(s->napi_ids, UT_MAX_NAPI_IDS));
	json_object_object_add(o, "kernel_napi_ids",
			       ids_json(ring->obs.kernel_napi_ids,
					ring->obs.n_kernel_ids < UT_MAX_NAPI_IDS ?
						ring->obs.n_kernel_ids : UT_MAX_NAPI_IDS));
	json_object_object_add(o, "waits", waits_json(s));
	json_object_object_add(o, "busy_poll", busy_json(s));
	json_object_object_add(o, "tunable", json_object_new_boolean(tunable));
	json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "managed_by",
			       json_object_new_string(managed_by_name(ring->tune.managed_by)));
	/* how uringtune reaches the ring: "agent" in-process, "register" from outside */
	json_object_object_add(o, "managed_via", ring->tune.managed_by != UT_MANAGED_URINGTUNE ? NULL :
			       json_object_new_string(ring->agent.via ? "agent" : "register"));
	json_object_object_add(o, "tuning", tuning_json(ring));
	json_object_object_add(o, "agent", agent_json(d, ring));
	if (ring->obs.setup_flags & UT_SETUP_IOPOLL)
		json_object_object_add(o, "iopoll", iopoll_json(ring, &d->iopoll));
	return o;
}

/* the agent socket and page, and the rings set up through agents, counted apart */
static struct json_object *agent_status_json(const struct ut_daemon *d)
{
	const struct ut_agent_server *a = &d->agent;
	struct json_object *o = json_object_new_object(), *refusals;
	uint64_t rings = 0, managed = 0, pending = 0;
	const struct ut_ring *ring;
	struct ut_ring *r;
	size_t i;

	registry_for_each(&d->reg, i, r) {
		ring = r;
		if (!ring->agent.via)
			continue;
		rings++;
		managed += ring->tune.managed_by == UT_MANAGED_URINGTUNE;
		pending += ring->tune.pending;
	}
	json_object_object_add(o, "enabled", json_object_new_boolean(d->cfg.agent.enabled));
	json_object_object_add(o, "socket", a->listen_fd >= 0 ?
			       json_object_new_string(d->cfg.agent.socket_path) : NULL);
	json_object_object_add(o, "page", a->page.pg ? json_object_new_string(a->page.path) : NULL);
	json_object_object_add(o, "page_error", str_or_null(a->page_error));
	json_object_object_add(o, "rings", u64_json(rings));
	json_object_object_add(o, "rings_managed", u64_json(managed));
	json_object_object_add(o, "rings_pending", u64_json(pending));
	json_object_object_add(o, "requests", u64_json(a->requests));
	json_object_object_add(o, "refused", u64_json(a->refused));
	json_object_object_add(o, "hybrid_added", u64_json(a->hybrid_added));
	json_object_object_add(o, "hybrid_fallback", u64_json(a->hybrid_fallback));
	json_object_object_add(o, "napi_registered", u64_json(a->napi_registered));
	json_object_object_add(o, "napi_failed", u64_json(a->napi_failed));
	json_object_object_add(o, "published", u64_json(a->published));
	json_object_object_add(o, "applied", u64_json(d->lc.agent_applied));
	json_object_object_add(o, "app_took_over", u64_json(a->app_took_over));
	json_object_object_add(o, "bad_messages",
			       u64_json(a->refusals[AGENT_REFUSED_BAD_MESSAGE]));
	json_object_object_add(o, "slots_used", u64_json(agent_server_slots_used(a)));
	json_object_object_add(o, "slots_per_uid", u64_json(d->cfg.agent.slots_per_uid));
	json_object_object_add(o, "slots_replaced", u64_json(a->slots_replaced));
	json_object_object_add(o, "connections_waiting", u64_json(agent_conn_waiting(a)));
	/* every refusal of a message, connection or slot, by reason */
	refusals = json_object_new_object();
	for (i = 0; i < AGENT_REFUSED_NR; i++)
		json_object_object_add(refusals, agent_refusal_names[i], u64_json(a->refusals[i]));
	json_object_object_add(o, "refusals", refusals);
	return o;
}

/* the last SIGHUP: {"last":"ok|refused|never","time":unix s|null,"error":..,"count_ok":N,"count_refused":N} */
static struct json_object *reload_json(const struct reload_state *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "last", json_object_new_string(reload_result_name(r->last)));
	json_object_object_add(o, "time", r->last == RELOAD_NEVER ? NULL :
			       json_object_new_int64(r->time));
	json_object_object_add(o, "error", r->last == RELOAD_REFUSED ?
			       json_object_new_string(r->error) : NULL);
	json_object_object_add(o, "count_ok", u64_json(r->count_ok));
	json_object_object_add(o, "count_refused", u64_json(r->count_refused));
	return o;
}

struct json_object *status_json(const struct ut_daemon *d)
{
	struct json_object *root = json_object_new_object();
	struct json_object *daemon = json_object_new_object();
	struct json_object *rings = json_object_new_array();
	struct ut_ring **sorted;
	char path[PATH_MAX];
	size_t n = 0;

	json_object_object_add(daemon, "pid", json_object_new_int(d->self_pid));
	json_object_object_add(daemon, "version", json_object_new_string(UT_VERSION));
	json_object_object_add(daemon, "mode", json_object_new_string(config_mode_name(d->cfg.mode)));
	json_object_object_add(daemon, "kernel", json_object_new_string(d->kernel));
	json_object_object_add(daemon, "napi_supported", json_object_new_boolean(d->napi_supported));
	json_object_object_add(daemon, "iopoll_stats",
			       json_object_new_string(!d->iopoll.skel ? "unavailable" :
						      iopoll_stats_name(d->cfg.iopoll_stats)));
	json_object_object_add(daemon, "iopoll_tracing", json_object_new_boolean(d->iopoll.attached));
	json_object_object_add(daemon, "rings", u64_json(d->reg.count));
	json_object_object_add(daemon, "events_lost", u64_json(trace_events_lost(&d->trace)));
	json_object_object_add(daemon, "rings_untraced", u64_json(trace_rings_dropped(&d->trace)));
	json_object_object_add(daemon, "ring_map_entries", json_object_new_int(d->inv.ring_map_entries));
	json_object_object_add(daemon, "ring_map_capacity", u64_json(d->cfg.max_rings));
	json_object_object_add(daemon, "journal_entries", u64_json(d->lc.journal.n));
	json_object_object_add(daemon, "actions_ok", u64_json(d->lc.actions_ok));
	json_object_object_add(daemon, "actions_failed", u64_json(d->lc.actions_failed));
	json_object_object_add(daemon, "actions_vanished", u64_json(d->lc.actions_vanished));
	json_object_object_add(daemon, "sweeps", u64_json(d->inv.sweeps));
	json_object_object_add(daemon, "last_sweep_us", u64_json(d->inv.last_sweep_us));
	/* Prometheus textfile export: the file (null when off), failed writes, why */
	json_object_object_add(daemon, "export_file",
			       d->cfg.export_textfile &&
			       !export_file_path(&d->cfg, path, sizeof(path)) ?
			       json_object_new_string(path) : NULL);
	json_object_object_add(daemon, "export_errors", u64_json(d->export_errors));
	json_object_object_add(daemon, "export_error", str_or_null(d->export_error));

	json_object_object_add(daemon, "reload", reload_json(&d->reload));
	json_object_object_add(daemon, "agent", agent_status_json(d));

	sorted = registry_sorted(&d->reg, &n);
	for (size_t i = 0; sorted && i < n; i++)
		json_object_array_add(rings, ring_json(d, sorted[i]));
	free(sorted);

	json_object_object_add(root, "version", json_object_new_int(1));
	json_object_object_add(root, "daemon", daemon);
	json_object_object_add(root, "rings", rings);
	return root;
}
