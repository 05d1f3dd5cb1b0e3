// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prometheus text exposition format 0.0.4 of the daemon's state. Pure:
 * formats struct ut_daemon to a FILE, no other I/O, unit-tested.
 *
 * Every family is written whole (HELP, TYPE, then all its samples) before
 * the next: parsers refuse a family split in two. Values are in base units
 * (seconds), counters end in _total, metadata goes in _info gauges of value
 * 1. Meanings mirror status_json.c. Ring series carry pid, comm and fd, in
 * that order; only rings with statistics (a BPF map slot) get the counter
 * and histogram families.
 *
 * The wait counters are the two BPF counters as they are (all blocking
 * waits, and those that did not sleep), not split by outcome: user space
 * copies the map value while other CPUs bump it, waits before waits_nosleep,
 * so "slept" (their difference) can dip by one for a tick. Exported as a
 * counter such a dip reads as a reset, and rate() would count the ring's
 * whole slept total again.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_server.h"
#include "hist.h"
#include "prom.h"
#include "setup_flags.h"
#include "trace.h"
#include "tunable.h"
#include "version.h"

#define NS_PER_S	UINT64_C(1000000000)

/* U+FFFD REPLACEMENT CHARACTER */
#define REPLACEMENT	"\xef\xbf\xbd"

/* length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;	/* continuation byte, overlong lead, beyond U+10FFFF */
	if (n < len)
		return 0;	/* cut short, as comm cuts names at 15 bytes */
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong 3 and 4-byte forms, UTF-16 surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

size_t prom_escape(char *dst, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strnlen(s, len), k = 0;

	for (size_t i = 0; i < n;) {
		const char *esc = NULL;
		size_t seq;

		switch (p[i]) {
		case '\\':
			esc = "\\\\";
			break;
		case '"':
			esc = "\\\"";
			break;
		case '\n':
			esc = "\\n";
			break;
		}
		if (esc) {
			memcpy(dst + k, esc, 2);
			k += 2;
			i++;
			continue;
		}
		/* other control characters are valid UTF-8, but no one wants them raw */
		seq = p[i] < 0x20 || p[i] == 0x7f ? 0 : utf8_len(p + i, n - i);
		if (seq) {
			memcpy(dst + k, p + i, seq);
			k += seq;
			i += seq;
		} else {
			memcpy(dst + k, REPLACEMENT, 3);
			k += 3;
			i++;
		}
	}
	dst[k] = '\0';
	return k;
}

/* room for UINT64_MAX ns: "18446744073.709551615" */
#define SECONDS_SIZE	24

/* exact decimal seconds: 50000 ns is "0.00005", 2e9 ns is "2" */
static const char *seconds(char buf[SECONDS_SIZE], uint64_t ns)
{
	int n;

	n = snprintf(buf, SECONDS_SIZE, "%" PRIu64 ".%09" PRIu64, ns / NS_PER_S,
		     ns % NS_PER_S);
	while (buf[n - 1] == '0')
		n--;
	buf[buf[n - 1] == '.' ? n - 1 : n] = '\0';
	return buf;
}

/*
 * The upper edge of BPF histogram slot @i as a bucket's le: slot i holds
 * integer nanoseconds in [2^i, 2^(i+1)) (slot 0 also 0), so everything in
 * it is <= 2^(i+1) - 1 ns, hist_slot_max(). That has at most 10 significant digits (slot
 * 31: 4294967295), so %.10g prints the edge exactly and no two edges alike.
 */
#define LE_SIZE		24

static void le_strings(char le[UT_HIST_SLOTS][LE_SIZE])
{
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		snprintf(le[i], LE_SIZE, "%.10g", (double)hist_slot_max(i) / NS_PER_S);
}

static void family(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* a ring to write, with its labels formatted once for all its samples */
struct ring_out {
	const struct ut_ring *ring;
	char labels[sizeof("pid=\"-2147483648\",comm=\"\",fd=\"-2147483648\"") +
		    PROM_ESCAPED_SIZE(UT_COMM_LEN)];
};

static void ring_labels(struct ring_out *r)
{
	char comm[PROM_ESCAPED_SIZE(UT_COMM_LEN)];

	prom_escape(comm, r->ring->obs.holder.comm, sizeof(r->ring->obs.holder.comm));
	snprintf(r->labels, sizeof(r->labels), "pid=\"%d\",comm=\"%s\",fd=\"%d\"",
		 (int)r->ring->obs.holder.pid, comm, r->ring->obs.holder.fd);
}

/* one sample of a ring's family, without extra labels */
static void ring_sample(FILE *out, const char *name, const struct ring_out *r,
			uint64_t value)
{
	fprintf(out, "%s{%s} %" PRIu64 "\n", name, r->labels, value);
}

/* a counter family of two series told apart by one label */
static void counter_pair(FILE *out, const char *name, const char *help, const char *label,
			 const char *v1, uint64_t n1, const char *v2, uint64_t n2)
{
	family(out, name, "counter", help);
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label, v1, n1);
	fprintf(out, "%s{%s=\"%s\"} %" PRIu64 "\n", name, label, v2, n2);
}

/* SIGHUP: a refused reload keeps the old configuration running, which an alert should see */
static void reload_metrics(const struct reload_state *r, FILE *out)
{
	counter_pair(out, "uringtune_config_reloads_total",
		     "Reloads of the configuration file (SIGHUP): swapped in, or refused as invalid.",
		     "result", "ok", r->count_ok, "refused", r->count_refused);
	family(out, "uringtune_config_last_reload_success", "gauge",
	       "0 if the last reload was refused (the previous configuration runs), else 1.");
	fprintf(out, "uringtune_config_last_reload_success %d\n", r->last != RELOAD_REFUSED);
	family(out, "uringtune_config_last_reload_timestamp_seconds", "gauge",
	       "Unix time of the last reload, ok or refused; 0 if none since the start.");
	fprintf(out, "uringtune_config_last_reload_timestamp_seconds %" PRId64 "\n",
		r->last == RELOAD_NEVER ? 0 : r->time);
}

/* the journal's group commits (lifecycle_commit.c), off the event loop */
static void journal_commit_metrics(const struct lifecycle *lc, FILE *out)
{
	struct lifecycle_commit_stats cs;
	char secs[SECONDS_SIZE];

	lifecycle_commit_stats(lc, &cs);
	counter_pair(out, "uringtune_journal_commits_total",
		     "Journal writes (temporary file, fsync, rename, directory fsync), by result.",
		     "result", "ok", cs.commits, "failed", cs.failed);
	family(out, "uringtune_journal_commit_rings_total", "counter",
	       "Rings whose first change waited for a journal write (per write: divide by "
	       "uringtune_journal_commits_total).");
	fprintf(out, "uringtune_journal_commit_rings_total %" PRIu64 "\n", cs.rings);
	family(out, "uringtune_journal_commit_max_seconds", "gauge",
	       "The longest journal write since the start.");
	fprintf(out, "uringtune_journal_commit_max_seconds %s\n", seconds(secs, cs.write_max_ns));
	family(out, "uringtune_journal_wait_max_seconds", "gauge",
	       "The longest a ring waited for its journal write before it was changed.");
	fprintf(out, "uringtune_journal_wait_max_seconds %s\n", seconds(secs, cs.wait_max_ns));
}

static void self_metrics(const struct ut_daemon *d, FILE *out)
{
	/* no BPF in unit tests: nothing could be lost or untraced */
	uint64_t lost = d->trace.skel ? trace_events_lost(&d->trace) : 0;
	uint64_t untraced = d->trace.skel ? trace_rings_dropped(&d->trace) : 0;
	char version[PROM_ESCAPED_SIZE(sizeof(UT_VERSION))], secs[SECONDS_SIZE];

	family(out, "uringtune_build_info", "gauge", "uringtuned's version.");
	prom_escape(version, UT_VERSION, sizeof(UT_VERSION));
	fprintf(out, "uringtune_build_info{version=\"%s\"} 1\n", version);

	family(out, "uringtune_mode_info", "gauge",
	       "uringtuned's mode: observe (watch only) or tune (change rings).");
	fprintf(out, "uringtune_mode_info{mode=\"%s\"} 1\n", config_mode_name(d->cfg.mode));

	family(out, "uringtune_napi_supported", "gauge",
	       "1 if the kernel has io_uring NAPI busy polling (6.9+).");
	fprintf(out, "uringtune_napi_supported %d\n", d->napi_supported ? 1 : 0);

	family(out, "uringtune_rings", "gauge", "io_uring rings in the registry.");
	fprintf(out, "uringtune_rings %zu\n", d->reg.count);

	family(out, "uringtune_rings_untraced_total", "counter",
	       "Rings that got no statistics slot: the BPF map of rings was full (max_rings).");
	fprintf(out, "uringtune_rings_untraced_total %" PRIu64 "\n", untraced);

	family(out, "uringtune_events_lost_total", "counter",
	       "BPF ring-buffer events lost because the buffer was full.");
	fprintf(out, "uringtune_events_lost_total %" PRIu64 "\n", lost);

	family(out, "uringtune_bpf_ring_map_entries", "gauge",
	       "Entries in the BPF map of rings after the last sweep.");
	fprintf(out, "uringtune_bpf_ring_map_entries %d\n", d->inv.ring_map_entries);

	family(out, "uringtune_bpf_ring_map_capacity", "gauge",
	       "Capacity of the BPF map of rings (max_rings).");
	fprintf(out, "uringtune_bpf_ring_map_capacity %u\n", d->cfg.max_rings);

	counter_pair(out, "uringtune_tuning_actions_total",
		     "NAPI setting changes uringtune made, by whether the kernel accepted them.",
		     "result", "ok", d->lc.actions_ok, "failed", d->lc.actions_failed);

	family(out, "uringtune_tuning_rings_vanished_total", "counter",
	       "Rings that went away (closed, process exited) before uringtune could change "
	       "them: not failures.");
	fprintf(out, "uringtune_tuning_rings_vanished_total %" PRIu64 "\n", d->lc.actions_vanished);

	family(out, "uringtune_journal_entries", "gauge",
	       "Rings whose original settings the journal keeps to restore them.");
	fprintf(out, "uringtune_journal_entries %zu\n", d->lc.journal.n);
	journal_commit_metrics(&d->lc, out);

	family(out, "uringtune_sweeps_total", "counter",
	       "Reconciliations of the registry with the kernel (one per tick).");
	fprintf(out, "uringtune_sweeps_total %" PRIu64 "\n", d->inv.sweeps);

	family(out, "uringtune_sweep_duration_seconds", "gauge",
	       "How long the last sweep took.");
	fprintf(out, "uringtune_sweep_duration_seconds %s\n",
		seconds(secs, d->inv.last_sweep_us * 1000));

	family(out, "uringtune_export_errors_total", "counter",
	       "Writes of this file that failed (the file shows those before it).");
	fprintf(out, "uringtune_export_errors_total %" PRIu64 "\n", d->export_errors);
	reload_metrics(&d->reload, out);
}

static void ring_info(const struct ut_daemon *d, const struct ring_out *rings, size_t n,
		      FILE *out)
{
	char flags[512], flags_esc[PROM_ESCAPED_SIZE(sizeof(flags))];

	family(out, "uringtune_ring_info", "gauge",
	       "A ring: its IORING_SETUP_* flags, who manages its NAPI settings "
	       "(none, app, uringtune), whether uringtune can tune it.");
	for (size_t i = 0; i < n; i++) {
		const struct ut_ring *ring = rings[i].ring;
		const char *reason;
		bool tunable;

		tunable = ring_tunable_agent(ring->obs.setup_flags, d->napi_supported,
					     ring->tune.managed_by, ring_agent_driven(ring), &reason);
		/* no flags: empty, which PromQL reads as an absent label */
		if (ring->obs.setup_flags)
			setup_flags_str(ring->obs.setup_flags, flags, sizeof(flags));
		else
			flags[0] = '\0';
		prom_escape(flags_esc, flags, sizeof(flags));
		fprintf(out, "uringtune_ring_info{%s,setup_flags=\"%s\",managed_by=\"%s\","
			"tunable=\"%s\"} 1\n", rings[i].labels, flags_esc,
			managed_by_name(ring->tune.managed_by), tunable ? "true" : "false");
	}
}

/* the in-process agent: its rings counted apart, its answers and decisions */
static void agent_metrics(const struct ut_daemon *d, const struct ring_out *rings, size_t n,
			  FILE *out)
{
	const struct ut_agent_server *a = &d->agent;
	size_t agent = 0, managed = 0;

	for (size_t i = 0; i < n; i++) {
		agent += rings[i].ring->agent.via;
		managed += rings[i].ring->agent.via &&
			   rings[i].ring->tune.managed_by == UT_MANAGED_URINGTUNE;
	}
	family(out, "uringtune_agent_rings", "gauge",
	       "Rings set up through liburingtune-agent.so, and of those the ones uringtune "
	       "manages.");
	fprintf(out, "uringtune_agent_rings{managed=\"false\"} %zu\n", agent - managed);
	fprintf(out, "uringtune_agent_rings{managed=\"true\"} %zu\n", managed);
	counter_pair(out, "uringtune_agent_requests_total",
		     "Ring setups the agent asked about: answered with a decision, or refused "
		     "(no policy page, page full).",
		     "result", "answered", a->requests, "refused", a->refused);
	counter_pair(out, "uringtune_agent_hybrid_total",
		     "IOPOLL rings the agent set up with HYBRID_IOPOLL, or whose kernel refused it.",
		     "result", "added", a->hybrid_added, "refused", a->hybrid_fallback);
	counter_pair(out, "uringtune_agent_decisions_total",
		     "NAPI decisions written to the policy page, and those seen applied by the agent.",
		     "state", "published", a->published, "applied", d->lc.agent_applied);
	family(out, "uringtune_agent_slots", "gauge",
	       "Policy-page slots in use (one per ring set up through an agent, or on its way).");
	fprintf(out, "uringtune_agent_slots %u\n", agent_server_slots_used(a));
	family(out, "uringtune_agent_refusals_total", "counter",
	       "Agent messages, connections and slots refused, by reason (quotas, peers that "
	       "name what is not theirs, silent or malformed ones).");
	for (int i = 0; i < AGENT_REFUSED_NR; i++)
		fprintf(out, "uringtune_agent_refusals_total{reason=\"%s\"} %" PRIu64 "\n",
			agent_refusal_names[i], a->refusals[i]);
}

static void ring_napi(const struct ring_out *rings, size_t n, FILE *out)
{
	char secs[SECONDS_SIZE];

	family(out, "uringtune_ring_napi_enabled", "gauge",
	       "1 if the kernel busy-polls NAPI for the ring.");
	for (size_t i = 0; i < n; i++)
		ring_sample(out, "uringtune_ring_napi_enabled", &rings[i],
			    rings[i].ring->obs.napi.enabled ? 1 : 0);

	family(out, "uringtune_ring_napi_busy_poll_timeout_seconds", "gauge",
	       "The ring's NAPI busy-poll timeout.");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "uringtune_ring_napi_busy_poll_timeout_seconds{%s} %s\n",
			rings[i].labels, seconds(secs, rings[i].ring->obs.napi.busy_poll_ns));

	family(out, "uringtune_ring_napi_prefer_busy_poll", "gauge",
	       "1 if the ring's prefer_busy_poll flag is set.");
	for (size_t i = 0; i < n; i++)
		ring_sample(out, "uringtune_ring_napi_prefer_busy_poll", &rings[i],
			    rings[i].ring->obs.napi.prefer ? 1 : 0);
}

/* a counter family of the rings with statistics, @off into ut_ring_stats */
static void ring_counter(const struct ring_out *rings, size_t n, FILE *out,
			 const char *name, const char *help, size_t off)
{
	family(out, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		const struct ut_ring *ring = rings[i].ring;

		if (ring->obs.have_stats)
			ring_sample(out, name, &rings[i],
				    *(const uint64_t *)((const char *)&ring->obs.stats + off));
	}
}

#define HIST	"uringtune_ring_busy_poll_paid_window_seconds"

/*
 * Every slot is written, empty or not: a fixed set of le values over time
 * and across rings is what rate() and sum by (le) need; a bucket appearing
 * when its slot first fills would start mid-way and skew quantiles. To keep
 * the file small, a ring gets its histogram (34 lines) from its first
 * busy-poll window on, all buckets at once: most rings never busy-poll.
 */
static void ring_hist(const struct ring_out *rings, size_t n, FILE *out)
{
	char le[UT_HIST_SLOTS][LE_SIZE], secs[SECONDS_SIZE];

	le_strings(le);
	family(out, HIST, "histogram",
	       "Lengths of the ring's busy-poll windows that paid off (the wait did "
	       "not sleep), timed on a 1-in-16 sample per CPU.");
	for (size_t i = 0; i < n; i++) {
		const struct ut_ring_stats *s = &rings[i].ring->obs.stats;
		const char *labels = rings[i].labels;
		uint64_t cum = 0;

		if (!rings[i].ring->obs.have_stats || !s->busy_windows)
			continue;
		for (unsigned int slot = 0; slot < UT_HIST_SLOTS; slot++) {
			cum += s->busy_hist[slot];
			fprintf(out, HIST "_bucket{%s,le=\"%s\"} %" PRIu64 "\n",
				labels, le[slot], cum);
		}
		fprintf(out, HIST "_bucket{%s,le=\"+Inf\"} %" PRIu64 "\n"
			HIST "_sum{%s} %s\n"
			HIST "_count{%s} %" PRIu64 "\n",
			labels, cum, labels, seconds(secs, s->busy_ns), labels, cum);
	}
}

/*
 * Sorted by pid and fd, one ring per (pid, fd): a ring closed and another
 * opened on the same fd are both in the registry until the next sweep, and
 * two series with the same labels would make node_exporter drop them. The
 * newer is the one the fd holds.
 */
static size_t unique_rings(struct ut_ring **rings, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (k && rings[k - 1]->obs.holder.pid == rings[i]->obs.holder.pid &&
		    rings[k - 1]->obs.holder.fd == rings[i]->obs.holder.fd) {
			if (rings[i]->obs.first_seen_ns > rings[k - 1]->obs.first_seen_ns)
				rings[k - 1] = rings[i];
			continue;
		}
		rings[k++] = rings[i];
	}
	return k;
}

int prom_format(const struct ut_daemon *d, FILE *out)
{
	struct ring_out *rings = NULL;
	struct ut_ring **sorted;
	size_t n = 0;
	int ret = 0;

	sorted = registry_sorted(&d->reg, &n);
	if (!sorted)
		return -ENOMEM;
	n = unique_rings(sorted, n);
	rings = calloc(n ? n : 1, sizeof(*rings));
	if (!rings) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		rings[i].ring = sorted[i];
		ring_labels(&rings[i]);
	}

	self_metrics(d, out);
	ring_info(d, rings, n, out);
	agent_metrics(d, rings, n, out);
	ring_napi(rings, n, out);
	ring_counter(rings, n, out, "uringtune_ring_waits_total",
		     "Waits on the ring that had to block (io_uring_cqring_wait).",
		     offsetof(struct ut_ring_stats, waits));
	ring_counter(rings, n, out, "uringtune_ring_waits_no_sleep_total",
		     "Of those waits, the ones whose events came before the task slept.",
		     offsetof(struct ut_ring_stats, waits_nosleep));
	ring_counter(rings, n, out, "uringtune_ring_busy_poll_windows_total",
		     "Waits that busy-polled NAPI first.",
		     offsetof(struct ut_ring_stats, busy_windows));
	ring_counter(rings, n, out, "uringtune_ring_busy_poll_paid_total",
		     "Of those, the ones that paid off: the wait did not sleep.",
		     offsetof(struct ut_ring_stats, busy_paid));
	ring_hist(rings, n, out);

	if (fflush(out) || ferror(out))
		ret = -EIO;
out:
	free(rings);
	free(sorted);
	return ret;
}
