// SPDX-License-Identifier: GPL-2.0-only
/*
 * The Prometheus export: prom_format() on a daemon built by hand (families
 * whole, HELP and TYPE for each, label escaping and UTF-8, histogram edges
 * and cumulative buckets, counters, rings without statistics), the real
 * promtool on its output, and export_now()/export_stop() on real
 * directories: the file, its mode, no temporary left behind, one log line
 * per failure and one when it resumes, removal when switched off or stopped.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "export.h"
#include "prom.h"
#include "uring_abi.h"
#include "unit.h"

#define HIST		"uringtune_ring_busy_poll_paid_window_sampled_seconds"
#define HOST_HIST	"uringtune_host_busy_poll_paid_window_sampled_seconds"
#define PROMTOOL	"/usr/bin/promtool"
/* "q\"b\\s", a newline, an invalid byte: ring B's comm */
#define ODD_COMM	"q\"b\\s\n\xff"
#define ODD_COMM_LABEL	"q\\\"b\\\\s\\n\xef\xbf\xbd"

/* every family, in the order written */
static const struct {
	const char *name, *type;
} families[] = {
	{ "uringtune_build_info", "gauge" },
	{ "uringtune_mode_info", "gauge" },
	{ "uringtune_napi_supported", "gauge" },
	{ "uringtune_hybrid_supported", "gauge" },
	{ "uringtune_rings", "gauge" },
	{ "uringtune_rings_untraced_total", "counter" },
	{ "uringtune_events_lost_total", "counter" },
	{ "uringtune_bpf_ring_map_entries", "gauge" },
	{ "uringtune_bpf_ring_map_capacity", "gauge" },
	{ "uringtune_tuning_actions_total", "counter" },
	{ "uringtune_tuning_rings_vanished_total", "counter" },
	{ "uringtune_journal_entries", "gauge" },
	{ "uringtune_journal_commits_total", "counter" },
	{ "uringtune_journal_commit_rings_total", "counter" },
	{ "uringtune_journal_commit_max_seconds", "gauge" },
	{ "uringtune_journal_wait_max_seconds", "gauge" },
	{ "uringtune_sweeps_total", "counter" },
	{ "uringtune_sweep_duration_seconds", "gauge" },
	{ "uringtune_sweep_cpu_seconds_total", "counter" },
	{ "uringtune_inventory_events_total", "counter" },
	{ "uringtune_export_errors_total", "counter" },
	{ "uringtune_export_timestamp_seconds", "gauge" },
	{ "uringtune_export_interval_seconds", "gauge" },
	{ "uringtune_config_reloads_total", "counter" },
	{ "uringtune_config_last_reload_success", "gauge" },
	{ "uringtune_config_last_reload_timestamp_seconds", "gauge" },
	{ "uringtune_loop_dispatch_seconds", "histogram" },
	{ "uringtune_loop_longest_dispatch_seconds", "gauge" },
	{ "uringtune_ring_info", "gauge" },
	{ "uringtune_agent_rings", "gauge" },
	{ "uringtune_agent_requests_total", "counter" },
	{ "uringtune_agent_hybrid_total", "counter" },
	{ "uringtune_agent_decisions_total", "counter" },
	{ "uringtune_agent_slots", "gauge" },
	{ "uringtune_agent_refusals_total", "counter" },
	{ "uringtune_ring_napi_enabled", "gauge" },
	{ "uringtune_ring_napi_busy_poll_timeout_seconds", "gauge" },
	{ "uringtune_ring_napi_prefer_busy_poll", "gauge" },
	{ "uringtune_ring_advice_busy_poll_seconds", "gauge" },
	{ "uringtune_ring_waits_total", "counter" },
	{ "uringtune_ring_waits_no_sleep_total", "counter" },
	{ "uringtune_ring_busy_poll_windows_total", "counter" },
	{ "uringtune_ring_busy_poll_paid_total", "counter" },
	{ HIST, "histogram" },
	{ "uringtune_busy_poll_spin_seconds_total", "counter" },
	{ "uringtune_busy_poll_saved_seconds_total", "counter" },
	{ "uringtune_busy_poll_wakeups_avoided_total", "counter" },
	{ "uringtune_busy_poll_unknown_windows_total", "counter" },
	{ "uringtune_busy_poll_capped_seconds_total", "counter" },
	{ "uringtune_host_busy_poll_spin_seconds_total", "counter" },
	{ "uringtune_host_busy_poll_saved_seconds_total", "counter" },
	{ "uringtune_host_busy_poll_wakeups_avoided_total", "counter" },
	{ "uringtune_host_busy_poll_unknown_windows_total", "counter" },
	{ "uringtune_host_busy_poll_capped_seconds_total", "counter" },
	{ "uringtune_host_busy_poll_windows_total", "counter" },
	{ "uringtune_host_busy_poll_paid_total", "counter" },
	{ HOST_HIST, "histogram" },
	{ "uringtune_hybrid_verdict", "gauge" },
	{ "uringtune_hybrid_cpu_per_read_seconds", "gauge" },
	{ "uringtune_hybrid_iops", "gauge" },
	{ "uringtune_hybrid_measured_cpu_per_read_saving", "gauge" },
	{ "uringtune_hybrid_measured_iops_change", "gauge" },
	{ "uringtune_hybrid_predicted_cpu_per_read_saving", "gauge" },
	{ "uringtune_hybrid_predicted_iops_change", "gauge" },
};
/* a ring's series beside its histogram: 8 families, 6 lines of its bill */
#define RING_LINES	(8 + 6)
#define NR_FAMILIES	(sizeof(families) / sizeof(families[0]))

static struct ut_daemon d;	/* big: PATH_MAX buffers */

static struct ut_ring *add_ring(uint64_t ctx, pid_t pid, int fd, const char *comm,
				size_t comm_len)
{
	struct ut_ring *ring = registry_add(&d.reg, ctx);

	if (!ring) {
		fprintf(stderr, "test_prom: registry_add: out of memory\n");
		exit(2);
	}
	ring->obs.holder.pid = pid;
	ring->obs.holder.fd = fd;
	memcpy(ring->obs.holder.comm, comm, comm_len);
	ring->obs.first_seen_ns = ctx;
	return ring;
}

/*
 * Hybrid verdicts: fio measured (classic 1000 ns a read at 10000 IOPS,
 * hybrid 500 ns at 6000: lost 40%), an odd name with a prediction only.
 */
static void verdicts_setup(void)
{
	struct hv_bounds b = { .min_saving = 0.25, .max_loss = 0.10 };
	struct hv_sample c = { .reads = 10000, .cpu_ns = 10000000, .wall_ns = 1000000000 };
	struct hv_sample h = { .reads = 6000, .cpu_ns = 3000000, .wall_ns = 1000000000 };
	struct hybrid_pred p = { .valid = true, .cpu_per_read_saving = 0.5, .iops_change = -0.25 };

	verdicts_init(&d.verdicts, &b);
	for (int i = 0; i < 3; i++) {
		verdicts_note_window(&d.verdicts, "fio", "/usr/bin/fio", false, &c, 1);
		verdicts_note_window(&d.verdicts, "fio", "/usr/bin/fio", true, &h, 1);
	}
	verdicts_note_prediction(&d.verdicts, ODD_COMM, "/opt/\"x\"\n", &p, 2);
}

/*
 * Ring A: traced, NAPI on, its app manages it. Ring B: odd comm, SQPOLL and
 * SINGLE_ISSUER, no statistics. Ring C: traced with a histogram, uringtune's.
 */
static void daemon_setup(void)
{
	struct ut_ring *a, *b, *c;

	registry_free(&d.reg);
	memset(&d, 0, sizeof(d));
	config_defaults(&d.cfg);
	d.cfg.mode = UT_MODE_TUNE;
	/* every family: the per-ring histograms too (tests of the default turn it off) */
	d.cfg.export_ring_histograms = true;
	if (registry_init(&d.reg)) {
		fprintf(stderr, "test_prom: registry_init: out of memory\n");
		exit(2);
	}
	d.napi_supported = true;
	hybrid_support_init(&d.hybrid, 0, 0x7ffff, "6.18.44");
	d.lc.actions_ok = 7;
	d.lc.actions_failed = 2;
	d.lc.actions_vanished = 6;
	d.lc.journal.n = 3;
	d.lc.commit_stats = (struct lifecycle_commit_stats){
		.commits = 9, .failed = 1, .rings = 12, .write_max_ns = 245000000,
		.wait_max_ns = 251500000,
	};
	d.inv.sweeps = 42;
	d.inv.last_sweep_us = 1234;
	d.inv.ring_map_entries = 5;
	d.export_errors = 4;

	a = add_ring(0x1000, 100, 4, "pingpong", sizeof("pingpong"));
	a->obs.napi.enabled = 1;
	a->obs.napi.busy_poll_ns = 50000;
	a->obs.napi.prefer = 1;
	a->tune.managed_by = UT_MANAGED_APP;
	a->obs.have_stats = true;
	a->obs.stats.waits = 1000;
	a->obs.stats.waits_nosleep = 990;
	a->obs.stats.busy_windows = 900;
	a->obs.stats.busy_paid = 890;

	b = add_ring(0x2000, 100, 7, ODD_COMM, sizeof(ODD_COMM));
	b->obs.setup_flags = UT_SETUP_SQPOLL | UT_SETUP_SINGLE_ISSUER;
	/* a copy from before its map slot went: not to be shown */
	b->obs.stats.waits = 77;
	b->obs.stats.busy_windows = 5;

	c = add_ring(0x3000, 200, 3, "nginx", sizeof("nginx"));
	c->obs.napi.enabled = 1;
	c->obs.napi.busy_poll_ns = 2000000000ULL + 1;
	c->tune.managed_by = UT_MANAGED_URINGTUNE;
	c->obs.have_stats = true;
	c->obs.stats.waits = 5;
	c->obs.stats.busy_windows = 20;
	c->obs.stats.busy_paid = 16;
	c->obs.stats.busy_hist[0] = 3;
	c->obs.stats.busy_hist[9] = 5;
	c->obs.stats.busy_hist[20] = 7;
	c->obs.stats.busy_hist[31] = 1;
	c->obs.stats.busy_ns = 1234567891;
	verdicts_setup();
}

/* prom_format() into a malloc'ed string, NULL on failure */
static char *format(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (!f)
		return NULL;
	ret = prom_format(&d, f);
	fclose(f);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static const char *label_value(const char *s, size_t len)
{
	static char out[PROM_ESCAPED_SIZE(64)];

	/* a canary past the end prom_escape() may write */
	memset(out, 'Z', sizeof(out));
	if (len > 64 || prom_escape(out, s, len) != strlen(out) ||
	    (PROM_ESCAPED_SIZE(len) < sizeof(out) && out[PROM_ESCAPED_SIZE(len)] != 'Z'))
		return "(overflow or wrong length)";
	return out;
}

/* is @line (without '\n') a whole line of @text */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/* how many lines of @text contain @s */
static int lines_with(const char *text, const char *s)
{
	int n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *end = strchr(p, '\n');
		const char *hit = strstr(p, s);

		if (hit && (!end || hit < end))
			n++;
	}
	return n;
}

static const char *type_of(const char *family)
{
	for (size_t i = 0; i < NR_FAMILIES; i++)
		if (!strcmp(families[i].name, family))
			return families[i].type;
	return NULL;
}

/* the family of a line: "# HELP name ..."'s name, or a sample's metric name
 * without a histogram's _bucket, _sum or _count */
static void family_of(const char *line, char *out, size_t len)
{
	static const char *const suffixes[] = { "_bucket", "_sum", "_count" };
	size_t n;

	if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7))
		line += 7;
	n = strcspn(line, "{ ");
	snprintf(out, len, "%.*s", (int)n, line);
	for (size_t i = 0; i < 3; i++) {
		size_t sl = strlen(suffixes[i]);

		if (n > sl && !strcmp(out + n - sl, suffixes[i])) {
			out[n - sl] = '\0';
			if (type_of(out) && !strcmp(type_of(out), "histogram"))
				return;
			out[n - sl] = suffixes[i][0];
		}
	}
}

UT_TEST(help_and_type_for_every_family)
{
	char want[256], *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	for (size_t i = 0; i < NR_FAMILIES; i++) {
		snprintf(want, sizeof(want), "# HELP %s ", families[i].name);
		UT_ASSERT_EQ_INT(lines_with(out, want), 1);
		snprintf(want, sizeof(want), "# TYPE %s %s", families[i].name, families[i].type);
		UT_ASSERT(has_line(out, want));
		snprintf(want, sizeof(want), "# TYPE %s ", families[i].name);
		UT_ASSERT_EQ_INT(lines_with(out, want), 1);
	}
	/* and no family that is not in the list */
	UT_ASSERT_EQ_INT(lines_with(out, "# HELP "), NR_FAMILIES);
	UT_ASSERT_EQ_INT(lines_with(out, "# TYPE "), NR_FAMILIES);
	free(out);
}

/*
 * Each family is one run of lines: HELP, TYPE, its samples; no family name
 * comes back after another one started. Every sample belongs to a family
 * declared just before.
 */
UT_TEST(families_contiguous)
{
	char fam[128], cur[128] = "", seen[NR_FAMILIES][128];
	size_t nseen = 0;
	char *out, *line, *save = NULL;
	int state = 0;	/* 0 HELP expected, 1 TYPE expected, 2 samples */

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(out[strlen(out) - 1] == '\n');
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		family_of(line, fam, sizeof(fam));
		if (strcmp(fam, cur)) {
			for (size_t i = 0; i < nseen; i++)
				if (!strcmp(seen[i], fam))
					ut_fail(__FILE__, __LINE__, "family %s split: %s", fam, line);
			UT_ASSERT(nseen < NR_FAMILIES);
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", fam);
			snprintf(cur, sizeof(cur), "%s", fam);
			state = 0;
		}
		if (state == 0) {
			UT_ASSERT(!strncmp(line, "# HELP ", 7));
			state = 1;
		} else if (state == 1) {
			UT_ASSERT(!strncmp(line, "# TYPE ", 7));
			state = 2;
		} else {
			UT_ASSERT(line[0] != '#');
		}
		if (ut_msg[0])
			break;
	}
	free(out);
	UT_ASSERT_EQ_INT(nseen, NR_FAMILIES);
}

UT_TEST(label_escaping)
{
	char comm[16];

	UT_ASSERT_STR_EQ(label_value("nginx", 16), "nginx");
	UT_ASSERT_STR_EQ(label_value("q\"b\\s\nn", 16), "q\\\"b\\\\s\\nn");
	UT_ASSERT_STR_EQ(label_value(ODD_COMM, 16), ODD_COMM_LABEL);
	/* valid UTF-8 stays: 2, 3 and 4 bytes */
	UT_ASSERT_STR_EQ(label_value("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7", 16),
			 "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7");
	/* each byte that starts no valid sequence becomes U+FFFD */
	UT_ASSERT_STR_EQ(label_value("a\xff" "b\x80" "c", 16),
			 "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c");
	/* a name cut in the middle of a character, as comm's 15 bytes do */
	UT_ASSERT_STR_EQ(label_value("ab\xe2\x82", 16), "ab\xef\xbf\xbd\xef\xbf\xbd");
	/* overlong '/', a UTF-16 surrogate, beyond U+10FFFF */
	UT_ASSERT_STR_EQ(label_value("\xc0\xaf", 16), "\xef\xbf\xbd\xef\xbf\xbd");
	UT_ASSERT_STR_EQ(label_value("\xed\xa0\x80", 16),
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	UT_ASSERT_STR_EQ(label_value("\xf4\x90\x80\x80", 16),
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	UT_ASSERT_STR_EQ(label_value("\xf5\x80\x80\x80", 16),
			 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	/* the largest code point is fine */
	UT_ASSERT_STR_EQ(label_value("\xf4\x8f\xbf\xbf", 16), "\xf4\x8f\xbf\xbf");
	/* other control characters too: tab, carriage return, DEL */
	UT_ASSERT_STR_EQ(label_value("a\tb\rc\x7f", 16),
			 "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
	/* at most len bytes: a comm without its NUL */
	memset(comm, 'x', sizeof(comm));
	UT_ASSERT_STR_EQ(label_value(comm, sizeof(comm)), "xxxxxxxxxxxxxxxx");
	UT_ASSERT_STR_EQ(label_value("", 16), "");
}

UT_TEST(ring_info_and_labels)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_ring_info{ring=\"100:4\",comm=\"pingpong\","
			   "pid=\"100\",fd=\"4\",setup_flags=\"\",managed_by=\"app\",tunable=\"false\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_ring_info{ring=\"100:7\",comm=\"" ODD_COMM_LABEL
			   "\",pid=\"100\",fd=\"7\",setup_flags=\"SQPOLL,SINGLE_ISSUER\","
			   "managed_by=\"none\",tunable=\"false\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_ring_info{ring=\"200:3\",comm=\"nginx\","
			   "pid=\"200\",fd=\"3\",setup_flags=\"\",managed_by=\"uringtune\",tunable=\"true\"} 1"));
	/* the raw bytes never appear */
	UT_ASSERT(!strchr(out, '\xff'));
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_info{"), 3);
	free(out);
}

UT_TEST(napi_gauges_for_every_ring)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_ring_napi_enabled{ring=\"100:4\",comm=\"pingpong\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_ring_napi_enabled{ring=\"100:7\",comm=\"" ODD_COMM_LABEL
			   "\"} 0"));
	UT_ASSERT(has_line(out, "uringtune_ring_napi_busy_poll_timeout_seconds{ring=\"100:4\","
			   "comm=\"pingpong\"} 0.00005"));
	UT_ASSERT(has_line(out, "uringtune_ring_napi_busy_poll_timeout_seconds{ring=\"100:7\","
			   "comm=\"" ODD_COMM_LABEL "\"} 0"));
	/* exact to the nanosecond */
	UT_ASSERT(has_line(out, "uringtune_ring_napi_busy_poll_timeout_seconds{ring=\"200:3\","
			   "comm=\"nginx\"} 2.000000001"));
	UT_ASSERT(has_line(out, "uringtune_ring_napi_prefer_busy_poll{ring=\"100:4\","
			   "comm=\"pingpong\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_ring_napi_prefer_busy_poll{ring=\"200:3\","
			   "comm=\"nginx\"} 0"));
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_napi_enabled{"), 3);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_napi_busy_poll_timeout_seconds{"), 3);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_napi_prefer_busy_poll{"), 3);
	free(out);
}

UT_TEST(counters_from_stats)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_ring_waits_total{ring=\"100:4\",comm=\"pingpong\"} 1000"));
	UT_ASSERT(has_line(out, "uringtune_ring_waits_no_sleep_total{ring=\"100:4\",comm=\"pingpong\""
			   "} 990"));
	UT_ASSERT(has_line(out, "uringtune_ring_busy_poll_windows_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 900"));
	UT_ASSERT(has_line(out, "uringtune_ring_busy_poll_paid_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 890"));
	UT_ASSERT(has_line(out, "uringtune_ring_waits_total{ring=\"200:3\",comm=\"nginx\"} 5"));
	UT_ASSERT(has_line(out, "uringtune_ring_waits_no_sleep_total{ring=\"200:3\",comm=\"nginx\""
			   "} 0"));
	free(out);
}

/* ring B has no statistics: info and NAPI gauges, nothing else */
UT_TEST(ring_without_stats)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "ring=\"100:7\""), 4);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_waits_total{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_waits_no_sleep_total{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_busy_poll_windows_total{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_busy_poll_paid_total{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, HIST "_count{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, HIST "_sum{"), 2);
	UT_ASSERT_EQ_INT(lines_with(out, HIST "_bucket{"), 2 * (UT_HIST_SLOTS + 1));
	free(out);
}

/* the bill: each ring's totals in seconds, the host's with a ring gone kept */
UT_TEST(bill_per_ring_and_host)
{
	const struct bill_rule rule = { .min_windows = 1, .min_ns = 1 };
	struct bill_counts c = { .windows = 900, .paid = 890, .timed = 50, .timed_ns = 50 * 12000,
				 .unpaid_timed = 2, .unpaid_timed_ns = 2 * 50000 };
	struct bill_step st, *steps[] = { &st };
	struct ut_ring *a;
	char *out;

	daemon_setup();
	a = registry_find(&d.reg, 0x1000);
	UT_ASSERT(a);
	bill_ring_price(&a->obs.bill, &c, 300000, 1000, &st);
	/* 11.18 ms priced, its thread ran half that */
	bill_cap_thread(steps, 1, 5590000);
	bill_ring_commit(&a->obs.bill, &st, 1000, &rule);
	bill_host_begin(&d.reg.bill);
	bill_host_add(&d.reg.bill, &a->obs.bill);
	bill_host_end(&d.reg.bill, 1000, &rule);
	out = format();
	UT_ASSERT(out);
	/* 890 paid windows of 12 us, 10 unpaid of 50 us, halved; 890 x 300 us saved */
	UT_ASSERT(has_line(out, "uringtune_busy_poll_spin_seconds_total{ring=\"100:4\","
			   "comm=\"pingpong\",outcome=\"paid\"} 0.00534"));
	UT_ASSERT(has_line(out, "uringtune_busy_poll_spin_seconds_total{ring=\"100:4\","
			   "comm=\"pingpong\",outcome=\"unpaid\"} 0.00025"));
	UT_ASSERT(has_line(out, "uringtune_busy_poll_capped_seconds_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 0.00559"));
	UT_ASSERT(has_line(out, "uringtune_busy_poll_unknown_windows_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 0"));
	UT_ASSERT(has_line(out, "uringtune_busy_poll_saved_seconds_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 0.267"));
	UT_ASSERT(has_line(out, "uringtune_busy_poll_wakeups_avoided_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 890"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_spin_seconds_total{outcome=\"unpaid\"} 0.00025"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_capped_seconds_total 0.00559"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_unknown_windows_total 0"));
	free(out);
	/* the ring goes: no series of its own, the host's stay */
	registry_remove(&d.reg, 0x1000);
	bill_host_begin(&d.reg.bill);
	bill_host_end(&d.reg.bill, 2000, &rule);
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_busy_poll_saved_seconds_total{ring=\"100:4\",comm=\"pingpong\"}"), 0);
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_spin_seconds_total{outcome=\"paid\"} 0.00534"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_saved_seconds_total 0.267"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_wakeups_avoided_total 890"));
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_windows_total 900"));
	free(out);
}

/* one verdict series a program, its measured and predicted numbers where it has them */
UT_TEST(hybrid_verdicts)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_hybrid_verdict{comm=\"fio\",exe=\"/usr/bin/fio\","
			   "verdict=\"classic\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_verdict{comm=\"" ODD_COMM_LABEL "\","
			   "exe=\"/opt/\\\"x\\\"\\n\",verdict=\"unjudged\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_cpu_per_read_seconds{comm=\"fio\","
			   "exe=\"/usr/bin/fio\",polling=\"classic\"} 1e-06"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_iops{comm=\"fio\",exe=\"/usr/bin/fio\","
			   "polling=\"hybrid\"} 6000"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_measured_cpu_per_read_saving{comm=\"fio\","
			   "exe=\"/usr/bin/fio\"} 0.5"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_measured_iops_change{comm=\"fio\","
			   "exe=\"/usr/bin/fio\"} -0.4"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_predicted_iops_change{comm=\"" ODD_COMM_LABEL
			   "\",exe=\"/opt/\\\"x\\\"\\n\"} -0.25"));
	/* no prediction for fio, no measurement of the other, no side without reads */
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_hybrid_predicted_iops_change{comm=\"fio\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_hybrid_measured_iops_change{"), 1);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_hybrid_iops{"), 2);
	free(out);
}

/*
 * A traced ring gets its busy-poll families (2 counters, 6 lines of bill)
 * and its histogram, whole, from its first busy-poll window on, and keeps
 * them while its bill has windows, even if its map slot's counters start
 * again from 0.
 */
#define BUSY_LINES	(2 + 6)

UT_TEST(histogram_from_first_window)
{
	struct ut_ring *a;
	char *out;

	daemon_setup();
	a = registry_find(&d.reg, 0x1000);
	UT_ASSERT(a);
	a->obs.stats.busy_windows = 0;
	a->obs.stats.busy_paid = 0;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "comm=\"pingpong\""), RING_LINES - BUSY_LINES);
	UT_ASSERT_EQ_INT(lines_with(out, HIST "_bucket{ring=\"100:4\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_busy_poll_windows_total{ring=\"100:4\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_ring_busy_poll_paid_total{ring=\"100:4\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_busy_poll_spin_seconds_total{ring=\"100:4\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_busy_poll_saved_seconds_total{ring=\"100:4\""), 0);
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_busy_poll_wakeups_avoided_total{ring=\"100:4\""),
			 0);
	/* the waits are there, zero or not */
	UT_ASSERT(has_line(out, "uringtune_ring_waits_total{ring=\"100:4\",comm=\"pingpong\"} 1000"));
	free(out);

	/* one window, none paid: every bucket, all zero */
	a->obs.stats.busy_windows = 1;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "comm=\"pingpong\""), RING_LINES + UT_HIST_SLOTS + 3);
	UT_ASSERT_EQ_INT(lines_with(out, HIST "_bucket{ring=\"100:4\""), UT_HIST_SLOTS + 1);
	UT_ASSERT_EQ_INT(lines_with(out, "ring=\"100:4\",comm=\"pingpong\",le=\"4.294967295\"} 0"), 1);
	UT_ASSERT(has_line(out, HIST "_count{ring=\"100:4\",comm=\"pingpong\"} 0"));
	UT_ASSERT(has_line(out, "uringtune_ring_busy_poll_windows_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 1"));
	free(out);

	/* the slot's counters back to 0, the bill remembers: still written */
	a->obs.stats.busy_windows = 0;
	a->obs.bill.total.windows = 1;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "comm=\"pingpong\""), RING_LINES + UT_HIST_SLOTS + 3);
	UT_ASSERT(has_line(out, "uringtune_ring_busy_poll_windows_total{ring=\"100:4\","
			   "comm=\"pingpong\"} 0"));
	free(out);
}

#define C_LABELS	"ring=\"200:3\",comm=\"nginx\""

/*
 * The default ([export] ring_histograms = no): no ring has a histogram, not
 * even the family's HELP; the host's is there, fixed buckets, zero or not,
 * with the exact count of paid windows beside its sampled _count.
 */
UT_TEST(ring_histograms_off_host_histogram_on)
{
	static struct ut_config def;
	char *out;

	daemon_setup();
	config_defaults(&def);
	d.cfg.export_ring_histograms = def.export_ring_histograms;
	UT_ASSERT(!d.cfg.export_ring_histograms);
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, HIST), 0);
	/* ring C busy-polled, yet beside the histogram it has the same series as before */
	UT_ASSERT_EQ_INT(lines_with(out, C_LABELS), RING_LINES);
	UT_ASSERT_EQ_INT(lines_with(out, HOST_HIST "_bucket{le="), UT_HIST_SLOTS + 1);
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"1e-09\"} 0"));
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"+Inf\"} 0"));
	UT_ASSERT(has_line(out, HOST_HIST "_sum 0"));
	UT_ASSERT(has_line(out, HOST_HIST "_count 0"));
	free(out);

	/* what the inventory summed (paid_hist.c) */
	d.reg.paid_hist.hist[9] = 3;
	d.reg.paid_hist.hist[20] = 2;
	d.reg.paid_hist.ns = 2500000001;
	d.reg.bill.total.wakeups_avoided = 80;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"5.11e-07\"} 0"));
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"1.023e-06\"} 3"));
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"0.001048575\"} 3"));
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"0.002097151\"} 5"));
	UT_ASSERT(has_line(out, HOST_HIST "_bucket{le=\"+Inf\"} 5"));
	UT_ASSERT_STR_CONTAINS(out, HOST_HIST "_bucket{le=\"+Inf\"} 5\n"
			       HOST_HIST "_sum 2.500000001\n" HOST_HIST "_count 5\n");
	/* the exact count: every paid window, not the sample */
	UT_ASSERT(has_line(out, "uringtune_host_busy_poll_paid_total 80"));
	free(out);
}

UT_TEST(histogram)
{
	static const char *const le_strings[UT_HIST_SLOTS] = {
		[0] = "1e-09", [1] = "3e-09", [9] = "1.023e-06",
		[20] = "0.002097151", [31] = "4.294967295",
	};
	const char *prefix = HIST "_bucket{" C_LABELS ",le=\"";
	uint64_t prev = 0, count = 0, inf = UINT64_MAX;
	const struct ut_ring *c;
	double prev_le = -1;
	unsigned int slot = 0;
	char *out, *p;

	daemon_setup();
	c = registry_find(&d.reg, 0x3000);
	UT_ASSERT(c);
	out = format();
	UT_ASSERT(out);
	for (p = strstr(out, prefix); p; p = strstr(p + 1, prefix)) {
		const char *le = p + strlen(prefix);
		size_t le_len = strcspn(le, "\"");
		uint64_t v = strtoull(le + le_len + 3, NULL, 10);
		char le_str[32];
		double le_v;

		UT_ASSERT(!strncmp(le + le_len, "\"} ", 3));
		snprintf(le_str, sizeof(le_str), "%.*s", (int)le_len, le);
		/* cumulative: never falls */
		UT_ASSERT(v >= prev);
		prev = v;
		if (!strcmp(le_str, "+Inf")) {
			UT_ASSERT_EQ_INT(slot, UT_HIST_SLOTS);
			inf = v;
			continue;
		}
		UT_ASSERT(slot < UT_HIST_SLOTS);
		le_v = strtod(le_str, NULL);
		/* strictly increasing edges, each exactly 2^(slot+1) - 1 ns */
		UT_ASSERT(le_v > prev_le);
		prev_le = le_v;
		UT_ASSERT_EQ_INT((long long)(le_v * 1e9 + 0.5), (2LL << slot) - 1);
		if (le_strings[slot])
			UT_ASSERT_STR_EQ(le_str, le_strings[slot]);
		count += c->obs.stats.busy_hist[slot];
		UT_ASSERT_EQ_INT(v, count);
		slot++;
	}
	UT_ASSERT_EQ_INT(slot, UT_HIST_SLOTS);
	UT_ASSERT_EQ_INT(inf, 16);
	UT_ASSERT(has_line(out, HIST "_count{" C_LABELS "} 16"));
	UT_ASSERT(has_line(out, HIST "_sum{" C_LABELS "} 1.234567891"));
	/* sum, then count, right after +Inf */
	UT_ASSERT_STR_CONTAINS(out, HIST "_bucket{" C_LABELS ",le=\"+Inf\"} 16\n"
			       HIST "_sum{" C_LABELS "} 1.234567891\n"
			       HIST "_count{" C_LABELS "} 16\n");
	/* an empty histogram: all zero, +Inf == _count == 0 */
	UT_ASSERT(has_line(out, HIST "_bucket{ring=\"100:4\",comm=\"pingpong\",le=\"1e-09\"} 0"));
	UT_ASSERT(has_line(out, HIST "_bucket{ring=\"100:4\",comm=\"pingpong\",le=\"+Inf\"} 0"));
	UT_ASSERT(has_line(out, HIST "_count{ring=\"100:4\",comm=\"pingpong\"} 0"));
	UT_ASSERT(has_line(out, HIST "_sum{ring=\"100:4\",comm=\"pingpong\"} 0"));
	free(out);
}

UT_TEST(self_metrics)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_build_info{version=\"" UT_VERSION "\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_mode_info{mode=\"tune\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_napi_supported 1"));
	UT_ASSERT(has_line(out, "uringtune_hybrid_supported{source=\"query\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_rings 3"));
	UT_ASSERT(has_line(out, "uringtune_rings_untraced_total 0"));
	UT_ASSERT(has_line(out, "uringtune_events_lost_total 0"));
	UT_ASSERT(has_line(out, "uringtune_bpf_ring_map_entries 5"));
	UT_ASSERT(has_line(out, "uringtune_bpf_ring_map_capacity 16384"));
	UT_ASSERT(has_line(out, "uringtune_tuning_actions_total{result=\"ok\"} 7"));
	UT_ASSERT(has_line(out, "uringtune_tuning_actions_total{result=\"failed\"} 2"));
	UT_ASSERT(has_line(out, "uringtune_tuning_rings_vanished_total 6"));
	UT_ASSERT(has_line(out, "uringtune_journal_entries 3"));
	UT_ASSERT(has_line(out, "uringtune_journal_commits_total{result=\"ok\"} 9"));
	UT_ASSERT(has_line(out, "uringtune_journal_commits_total{result=\"failed\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_journal_commit_rings_total 12"));
	UT_ASSERT(has_line(out, "uringtune_journal_commit_max_seconds 0.245"));
	UT_ASSERT(has_line(out, "uringtune_journal_wait_max_seconds 0.2515"));
	UT_ASSERT(has_line(out, "uringtune_sweeps_total 42"));
	UT_ASSERT(has_line(out, "uringtune_sweep_duration_seconds 0.001234"));
	UT_ASSERT(has_line(out, "uringtune_export_errors_total 4"));
	UT_ASSERT(has_line(out, "uringtune_export_timestamp_seconds 0"));
	UT_ASSERT(has_line(out, "uringtune_export_interval_seconds 15"));
	free(out);

	/* the export stamps the file it begins (export.c) */
	d.export_time = 1764681600;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_export_timestamp_seconds 1764681600"));
	free(out);

	d.cfg.mode = UT_MODE_OBSERVE;
	d.napi_supported = false;
	d.inv.last_sweep_us = 0;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_mode_info{mode=\"observe\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_napi_supported 0"));
	UT_ASSERT(has_line(out, "uringtune_sweep_duration_seconds 0"));
	/* without kernel NAPI no ring is tunable */
	UT_ASSERT_EQ_INT(lines_with(out, "tunable=\"true\""), 0);
	free(out);

	/* no QUERY: the version's guess, labelled so; unknown: the family without a sample */
	hybrid_support_init(&d.hybrid, -EOPNOTSUPP, 0, "6.12.48+deb12-cloud-amd64");
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_hybrid_supported{source=\"kernel-version\"} 0"));
	free(out);
	hybrid_support_init(&d.hybrid, -EOPNOTSUPP, 0, "");
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "# TYPE uringtune_hybrid_supported gauge"));
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_hybrid_supported{"), 0);
	free(out);
}

/* SIGHUP's outcome: never, refused (the alert's case), then ok again */
UT_TEST(reload_metrics)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_config_reloads_total{result=\"ok\"} 0"));
	UT_ASSERT(has_line(out, "uringtune_config_reloads_total{result=\"refused\"} 0"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_success 1"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_timestamp_seconds 0"));
	free(out);

	reload_note(&d.reload, 1796165941, "f.ini: [napi] tracking: expected dynamic");
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_config_reloads_total{result=\"refused\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_success 0"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_timestamp_seconds 1796165941"));
	free(out);

	reload_note(&d.reload, 1796165999, NULL);
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_config_reloads_total{result=\"ok\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_config_reloads_total{result=\"refused\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_success 1"));
	UT_ASSERT(has_line(out, "uringtune_config_last_reload_timestamp_seconds 1796165999"));
	free(out);
}

/* a ring closed and another opened on its fd, before the sweep: one series */
UT_TEST(one_series_per_pid_fd)
{
	struct ut_ring *old, *new;
	char *out;

	daemon_setup();
	/* ctx orders them in the registry's sort; first_seen_ns says which is newer */
	old = add_ring(0x500, 300, 9, "old", sizeof("old"));
	new = add_ring(0x400, 300, 9, "new", sizeof("new"));
	old->obs.first_seen_ns = 1;
	new->obs.first_seen_ns = 2;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "ring=\"300:9\""), 4);
	UT_ASSERT_EQ_INT(lines_with(out, "comm=\"new\""), 4);
	free(out);

	old->obs.first_seen_ns = 3;
	out = format();
	UT_ASSERT(out);
	UT_ASSERT_EQ_INT(lines_with(out, "ring=\"300:9\""), 4);
	UT_ASSERT_EQ_INT(lines_with(out, "comm=\"old\""), 4);
	free(out);
}

/* many rings for the steps: ring i is pid 1000 + i / 4, fd 3 + i % 4 */
static void add_many(int n)
{
	for (int i = 0; i < n; i++) {
		struct ut_ring *r;
		char comm[16];

		snprintf(comm, sizeof(comm), "many%d", i);
		r = add_ring(0x100000 + i * 64, 1000 + i / 4, 3 + i % 4, comm, sizeof(comm));
		r->obs.have_stats = i % 3 != 0;
		r->obs.stats.waits = i;
		r->obs.stats.busy_windows = i % 5;
		r->obs.stats.busy_hist[i % UT_HIST_SLOTS] = i;
		r->agent.via = i % 7 == 0;
		r->tune.managed_by = i % 2 ? UT_MANAGED_URINGTUNE : UT_MANAGED_NONE;
	}
}

static int count_lines(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n;
}

/*
 * A job in steps of any size writes what prom_format() writes, byte for
 * byte; no step writes much more than its budget (a ring's histogram is
 * never split, a family's HELP and TYPE are free), and a small budget
 * takes many steps.
 */
UT_TEST(job_steps_write_the_same)
{
	static const size_t budgets[] = { 1, 2, 7, 50, 4096, SIZE_MAX };
	char *whole;

	daemon_setup();
	add_many(300);
	whole = format();
	UT_ASSERT(whole);
	for (size_t b = 0; b < sizeof(budgets) / sizeof(budgets[0]); b++) {
		struct prom_job *job = prom_job_new(&d);
		char *buf = NULL;
		size_t len = 0, done = 0;
		int ret, steps = 0, most = 0;
		FILE *f = open_memstream(&buf, &len);

		UT_ASSERT(job && f);
		UT_ASSERT_EQ_INT(prom_job_rings(job), 303);
		do {
			ret = prom_job_step(job, &d, f, budgets[b]);
			fflush(f);
			/* after the first (the daemon's own families, at once) */
			if (steps++ && count_lines(buf + done, len - done) > most)
				most = count_lines(buf + done, len - done);
			done = len;
		} while (ret > 0);
		fclose(f);
		prom_job_free(job);
		UT_ASSERT_EQ_INT(ret, 0);
		if (strcmp(buf, whole)) {
			ut_fail(__FILE__, __LINE__, "budget %zu: not what prom_format() writes",
				budgets[b]);
			free(buf);
			break;
		}
		free(buf);
		if (budgets[b] <= 50) {
			/* a histogram (35 lines), the agent's families, a few HELP and TYPE */
			UT_ASSERT(most <= (int)budgets[b] + 35 + 40);
			/* ~300 rings over 9 families */
			UT_ASSERT(steps > 2700 / (int)(budgets[b] + 35));
		}
	}
	free(whole);
}

/*
 * Between steps the registry changes: a ring that went away, or whose fd
 * moved to another process, is left out of the families still to come; a
 * ring new since the snapshot waits for the next file; the file stays
 * valid for promtool's parser (checked by promtool_accepts on its kind).
 */
UT_TEST(job_rings_change_between_steps)
{
	struct prom_job *job;
	struct ut_ring *moved;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	daemon_setup();
	job = prom_job_new(&d);
	f = open_memstream(&buf, &len);
	UT_ASSERT(job && f);
	/* the daemon's families (64) and two rings of ring_info (2 each) */
	UT_ASSERT_EQ_INT(prom_job_step(job, &d, f, 64 + 2 * 2), 1);
	fflush(f);
	UT_ASSERT(strstr(buf, "uringtune_ring_info{ring=\"100:4\",comm=\"pingpong\""));
	UT_ASSERT(!strstr(buf, "uringtune_ring_info{ring=\"200:"));
	/* ring C (pid 200) goes; ring B (pid 100 fd 7) moves to pid 300 */
	registry_remove(&d.reg, 0x3000);
	moved = registry_find(&d.reg, 0x2000);
	UT_ASSERT(moved);
	moved->obs.holder.pid = 300;
	add_ring(0x9000, 400, 5, "late", sizeof("late"));
	do
		ret = prom_job_step(job, &d, f, 3);
	while (ret > 0);
	fclose(f);
	prom_job_free(job);
	UT_ASSERT_EQ_INT(ret, 0);
	UT_ASSERT_EQ_INT(lines_with(buf, "ring=\"200:"), 0);
	UT_ASSERT_EQ_INT(lines_with(buf, "ring=\"300:"), 0);
	UT_ASSERT_EQ_INT(lines_with(buf, "ring=\"400:"), 0);
	/* B: only its ring_info line, written before it moved */
	UT_ASSERT_EQ_INT(lines_with(buf, ":7\""), 1);
	/* A: everything */
	UT_ASSERT_EQ_INT(lines_with(buf, "ring=\"100:4\",comm=\"pingpong\""),
			 RING_LINES + UT_HIST_SLOTS + 3);
	/* every family still there, once */
	UT_ASSERT_EQ_INT(lines_with(buf, "# TYPE "), NR_FAMILIES);
	free(buf);
}

/* the event loop's families: buckets from loop_stats, the longest and its source */
UT_TEST(loop_metrics)
{
	char *out;

	daemon_setup();
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_count 0"));
	UT_ASSERT(has_line(out, "uringtune_loop_longest_dispatch_seconds{source=\"none\"} 0"));
	free(out);

	loop_stats_record(&d.loop_stats, "tick", 1000000000, 50000);		/* 50 us */
	loop_stats_record(&d.loop_stats, "ring-events", 2000000000, 3000000);	/* 3 ms */
	loop_stats_record(&d.loop_stats, "control-conn", 3000000000, 35000000);	/* 35 ms */
	loop_stats_record(&d.loop_stats, "tick", 4000000000, 5000000000ULL);	/* 5 s */
	out = format();
	UT_ASSERT(out);
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"6.5535e-05\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"0.001048575\"} 1"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"0.004194303\"} 2"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"0.016777215\"} 2"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"0.067108863\"} 3"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"1.073741823\"} 3"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_bucket{le=\"+Inf\"} 4"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_sum 5.03805"));
	UT_ASSERT(has_line(out, "uringtune_loop_dispatch_seconds_count 4"));
	UT_ASSERT_EQ_INT(lines_with(out, "uringtune_loop_dispatch_seconds_bucket{"), 9);
	UT_ASSERT(has_line(out, "uringtune_loop_longest_dispatch_seconds{source=\"tick\"} 5"));
	free(out);
}

/* -1 if promtool is not there, else its exit status on @path */
static int promtool_check(const char *path, bool quiet)
{
	pid_t pid;
	int st, fd;

	if (access(PROMTOOL, X_OK))
		return -1;
	pid = fork();
	if (pid < 0)
		return -2;
	if (pid == 0) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || dup2(fd, 0) < 0)
			_exit(126);
		/* its findings go to our stderr, with the file kept for reading */
		fd = quiet ? open("/dev/null", O_WRONLY) : dup(2);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(PROMTOOL, "promtool", "check", "metrics", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -2;
	return WEXITSTATUS(st);
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(text, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/*
 * The real checker on realistic output (the node_exporter parser's rules,
 * plus its lint of names, units and HELP). A file it must refuse first, so
 * that a promtool that accepts anything cannot pass this.
 */
UT_TEST(promtool_accepts)
{
	char path[] = "/tmp/uringtune-prom-XXXXXX";
	char *out = NULL;
	int fd, ret;

	fd = mkstemp(path);
	UT_ASSERT(fd >= 0);
	close(fd);
	if (promtool_check(path, true) == -1) {
		fprintf(stderr, "test_prom: SKIP promtool checks: %s not found "
			"(Debian package prometheus); other assertions ran\n", PROMTOOL);
		goto out;
	}
	if (write_text(path, "# HELP x_total y\n# TYPE x_total counter\n"
		       "x_total{comm=\"\xff\"} 1\n") || promtool_check(path, true) == 0) {
		ut_fail(__FILE__, __LINE__, "promtool accepted invalid UTF-8: not a check");
		goto out;
	}

	daemon_setup();
	/* many rings, odd names, counters near their end */
	for (int i = 0; i < 50; i++) {
		struct ut_ring *r;
		char comm[16];

		snprintf(comm, sizeof(comm), "w\xe2\x82%d\"\\", i);
		r = add_ring(0x10000 + i, 1000 + i, 3 + i % 4, comm, sizeof(comm));
		r->obs.have_stats = i % 3 != 0;
		r->obs.stats.waits = UINT64_MAX - i;
		r->obs.stats.waits_nosleep = i;
		r->obs.stats.busy_ns = UINT64_MAX;
		for (int s = 0; s < UT_HIST_SLOTS; s++)
			r->obs.stats.busy_hist[s] = (uint64_t)i * s;
		r->obs.napi.busy_poll_ns = 10000ULL * 1000 * i;
	}
	out = format();
	if (!out || write_text(path, out)) {
		ut_fail(__FILE__, __LINE__, "cannot format or write %s", path);
		goto out;
	}
	ret = promtool_check(path, false);
	if (ret) {
		ut_fail(__FILE__, __LINE__, "promtool check metrics exited %d on %s (kept)",
			ret, path);
		free(out);
		return;
	}
	free(out);

	/* no rings at all: the families' HELP and TYPE alone */
	registry_free(&d.reg);
	if (registry_init(&d.reg))
		exit(2);
	out = format();
	if (!out || !has_line(out, "uringtune_rings 0") || lines_with(out, "{ring=") ||
	    write_text(path, out)) {
		ut_fail(__FILE__, __LINE__, "no rings: bad output or cannot write %s", path);
		goto out;
	}
	ret = promtool_check(path, false);
	if (ret)
		ut_fail(__FILE__, __LINE__, "promtool check metrics exited %d on an export "
			"without rings", ret);
out:
	free(out);
	unlink(path);
}

/* ---- export_now() / export_stop() on real directories ---- */

struct fx {
	char root[64];		/* mkdtemp(), removed at the end */
	char dir[128];		/* textfile_dir, root/textfile */
	char file[192];		/* dir/uringtune.prom */
	char log[192];		/* root/log: stderr while the test runs */
	char mnt[128];		/* a tmpfs mounted by the test, or "" */
	int saved_stderr;
};

static void fx_setup(struct fx *fx)
{
	memset(fx, 0, sizeof(*fx));
	snprintf(fx->root, sizeof(fx->root), "/tmp/uringtune-export-XXXXXX");
	if (!mkdtemp(fx->root)) {
		perror("test_prom: mkdtemp");
		exit(2);
	}
	snprintf(fx->dir, sizeof(fx->dir), "%s/textfile", fx->root);
	snprintf(fx->file, sizeof(fx->file), "%s/uringtune.prom", fx->dir);
	snprintf(fx->log, sizeof(fx->log), "%s/log", fx->root);
	daemon_setup();
	snprintf(d.cfg.textfile_dir, sizeof(d.cfg.textfile_dir), "%s", fx->dir);
	d.export_errors = 0;
	/* the log goes to a file the test reads */
	fflush(stderr);
	fx->saved_stderr = dup(2);
	if (fx->saved_stderr < 0 || !freopen(fx->log, "w", stderr)) {
		perror("test_prom: stderr");
		exit(2);
	}
	setvbuf(stderr, NULL, _IONBF, 0);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void fx_teardown(struct fx *fx)
{
	char buf[4096];
	FILE *f;
	size_t n;

	fflush(stderr);
	dup2(fx->saved_stderr, 2);
	close(fx->saved_stderr);
	/* a failed test shows what was logged */
	if (ut_msg[0] && (f = fopen(fx->log, "r"))) {
		while ((n = fread(buf, 1, sizeof(buf), f)))
			fwrite(buf, 1, n, stdout);
		fclose(f);
	}
	if (fx->mnt[0] && umount2(fx->mnt, MNT_DETACH))
		perror("test_prom: umount");
	nftw(fx->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#define FX_TEST(name)							\
	static void name##_body(struct fx *fx);				\
	UT_TEST(name)							\
	{								\
		static struct fx fx;					\
									\
		fx_setup(&fx);						\
		name##_body(&fx);					\
		fx_teardown(&fx);					\
	}								\
	static void name##_body(struct fx *fx)

/* the whole log so far */
static const char *logged(const struct fx *fx)
{
	static char buf[16384];
	FILE *f = fopen(fx->log, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getdelim(&buf, &cap, '\0', f);
	fclose(f);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "a b c": the names in @dir, sorted; hidden ones included */
static const char *list_dir(const char *dir)
{
	static char out[1024];
	struct dirent **names;
	int n;
	size_t len = 0;

	out[0] = '\0';
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			len += snprintf(out + len, sizeof(out) - len, "%s%s", len ? " " : "",
					names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	else
		snprintf(out, sizeof(out), "(none)");
	return out;
}

FX_TEST(export_writes_file)
{
	char *want, *got, p[256];
	struct stat st;
	mode_t old;

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0755), 0);
	/* a stale temporary file of a crash; an other exporter's file stays */
	snprintf(p, sizeof(p), "%s/.uringtune.prom.Ab12Cd", fx->dir);
	UT_ASSERT_EQ_INT(write_text(p, "half"), 0);
	snprintf(p, sizeof(p), "%s/apt.prom", fx->dir);
	UT_ASSERT_EQ_INT(write_text(p, "apt 1\n"), 0);
	old = umask(077);
	export_now(&d);
	umask(old);
	UT_ASSERT_STR_EQ(d.export_error, "");
	UT_ASSERT_STR_EQ(d.export_path, fx->file);
	UT_ASSERT_EQ_INT(d.export_errors, 0);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "apt.prom uringtune.prom");
	/* readable by node_exporter's user, whatever our umask */
	UT_ASSERT_EQ_INT(stat(fx->file, &st), 0);
	UT_ASSERT_EQ_INT(st.st_mode & 07777, 0644);
	want = format();
	got = read_file(fx->file);
	UT_ASSERT(want && got && !strcmp(want, got));
	free(want);
	free(got);
	UT_ASSERT_STR_CONTAINS(logged(fx), "exporting metrics to ");
	UT_ASSERT_STR_CONTAINS(logged(fx), "left by an interrupted export");

	/* the next tick replaces it with the new state */
	d.inv.sweeps = 43;
	export_now(&d);
	got = read_file(fx->file);
	UT_ASSERT(got);
	UT_ASSERT(has_line(got, "uringtune_sweeps_total 43"));
	free(got);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "apt.prom uringtune.prom");
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "exporting metrics to "), 1);

	export_stop(&d);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "apt.prom");
	UT_ASSERT_STR_EQ(d.export_path, "");
	/* twice is harmless */
	export_stop(&d);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "warning"), 0);
}

/*
 * missing directory (no node_exporter): one notice line, no error, counted,
 * resumes with one info line
 */
FX_TEST(export_missing_dir)
{
	char want[512];

	for (int i = 0; i < 5; i++)
		export_now(&d);
	UT_ASSERT_EQ_INT(d.export_errors, 5);
	snprintf(want, sizeof(want), "cannot write %s: no directory %s (is node_exporter's "
		 "textfile collector installed?)", fx->file, fx->dir);
	UT_ASSERT_STR_EQ(d.export_error, want);
	UT_ASSERT_STR_EQ(d.export_path, "");
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "error: "), 0);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "notice: "), 1);
	snprintf(want, sizeof(want), "uringtuned: notice: metrics export: cannot write %s: ",
		 fx->file);
	UT_ASSERT_STR_CONTAINS(logged(fx), want);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), fx->dir), 1);
	/* stopping with nothing written removes nothing, says nothing */
	export_stop(&d);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), fx->dir), 1);

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0755), 0);
	export_now(&d);
	export_now(&d);
	UT_ASSERT_STR_EQ(d.export_error, "");
	UT_ASSERT_EQ_INT(d.export_errors, 5);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "uringtune.prom");
	snprintf(want, sizeof(want), "uringtuned: info: export to %s resumed", fx->dir);
	UT_ASSERT_STR_CONTAINS(logged(fx), want);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "resumed"), 1);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "error: "), 0);
	{
		char *got = read_file(fx->file);

		/* the file counts the failures before it */
		UT_ASSERT(got && has_line(got, "uringtune_export_errors_total 5"));
		free(got);
	}

	/* it fails again, differently: logged again, once */
	UT_ASSERT_EQ_INT(unlink(fx->file), 0);
	UT_ASSERT_EQ_INT(rmdir(fx->dir), 0);
	UT_ASSERT_EQ_INT(write_text(fx->dir, "a file"), 0);
	export_now(&d);
	export_now(&d);
	UT_ASSERT_EQ_INT(d.export_errors, 7);
	UT_ASSERT_STR_CONTAINS(d.export_error, "Not a directory");
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "error: "), 1);
}

/*
 * A read-only file system, as the acceptance test has it. Needs
 * CAP_SYS_ADMIN; without it the test says so on stderr and passes.
 */
FX_TEST(export_read_only_dir)
{
	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0755), 0);
	if (mount("none", fx->dir, "tmpfs", MS_RDONLY, "size=64k")) {
		int err = errno;

		dprintf(fx->saved_stderr, "test_prom: SKIP export_read_only_dir: cannot "
			"mount a tmpfs: %s\n", strerror(err));
		return;
	}
	snprintf(fx->mnt, sizeof(fx->mnt), "%s", fx->dir);
	for (int i = 0; i < 3; i++)
		export_now(&d);
	UT_ASSERT_EQ_INT(d.export_errors, 3);
	UT_ASSERT_STR_CONTAINS(d.export_error, "Read-only file system");
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "error: "), 1);
	UT_ASSERT_EQ_INT(umount2(fx->dir, 0), 0);
	fx->mnt[0] = '\0';
	export_now(&d);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "uringtune.prom");
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "resumed"), 1);
}

/* the rename fails (a directory in the way): no temporary file is left */
FX_TEST(export_rename_fails)
{
	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0755), 0);
	UT_ASSERT_EQ_INT(mkdir(fx->file, 0755), 0);
	export_now(&d);
	UT_ASSERT_STR_CONTAINS(d.export_error, "cannot rename: Is a directory");
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "uringtune.prom");
	UT_ASSERT_STR_EQ(list_dir(fx->file), "");
}

/* SIGHUP: textfile = no removes the file; a new directory moves it */
FX_TEST(export_reconfigured)
{
	char other[256], other_file[300];

	UT_ASSERT_EQ_INT(mkdir(fx->dir, 0755), 0);
	export_now(&d);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "uringtune.prom");

	snprintf(other, sizeof(other), "%s/other/", fx->root);
	snprintf(other_file, sizeof(other_file), "%s/other/uringtune.prom", fx->root);
	UT_ASSERT_EQ_INT(mkdir(other, 0755), 0);
	snprintf(d.cfg.textfile_dir, sizeof(d.cfg.textfile_dir), "%s", other);
	export_now(&d);
	UT_ASSERT_STR_EQ(list_dir(fx->dir), "");
	UT_ASSERT_STR_EQ(list_dir(other), "uringtune.prom");
	/* a trailing '/' is not doubled */
	UT_ASSERT_STR_EQ(d.export_path, other_file);

	d.cfg.export_textfile = false;
	export_now(&d);
	UT_ASSERT_STR_EQ(list_dir(other), "");
	UT_ASSERT_STR_EQ(d.export_path, "");
	export_now(&d);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "removed "), 2);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "error"), 0);
	UT_ASSERT_EQ_INT(lines_with(logged(fx), "warning"), 0);

	/* switched off, a failure is forgotten */
	d.cfg.export_textfile = true;
	snprintf(d.cfg.textfile_dir, sizeof(d.cfg.textfile_dir), "%s/missing", fx->root);
	export_now(&d);
	UT_ASSERT(d.export_error[0]);
	d.cfg.export_textfile = false;
	export_now(&d);
	UT_ASSERT_STR_EQ(d.export_error, "");
}

UT_TEST(export_file_path_names)
{
	struct ut_config cfg;
	char buf[64];

	config_defaults(&cfg);
	UT_ASSERT_EQ_INT(export_file_path(&cfg, buf, sizeof(buf)), 0);
	UT_ASSERT_STR_EQ(buf, "/var/lib/prometheus/node-exporter/uringtune.prom");
	snprintf(cfg.textfile_dir, sizeof(cfg.textfile_dir), "/");
	UT_ASSERT_EQ_INT(export_file_path(&cfg, buf, sizeof(buf)), 0);
	UT_ASSERT_STR_EQ(buf, "/uringtune.prom");
	snprintf(cfg.textfile_dir, sizeof(cfg.textfile_dir), "/a//");
	UT_ASSERT_EQ_INT(export_file_path(&cfg, buf, sizeof(buf)), 0);
	UT_ASSERT_STR_EQ(buf, "/a/uringtune.prom");
	UT_ASSERT_EQ_INT(export_file_path(&cfg, buf, 10), -ENAMETOOLONG);
}

int main(void)
{
	/* log lines as on a terminal: "uringtuned: error: ..." */
	unsetenv("JOURNAL_STREAM");
	ut_run("help_and_type_for_every_family", help_and_type_for_every_family);
	ut_run("families_contiguous", families_contiguous);
	ut_run("label_escaping", label_escaping);
	ut_run("ring_info_and_labels", ring_info_and_labels);
	ut_run("napi_gauges_for_every_ring", napi_gauges_for_every_ring);
	ut_run("counters_from_stats", counters_from_stats);
	ut_run("ring_without_stats", ring_without_stats);
	ut_run("histogram", histogram);
	ut_run("ring_histograms_off_host_histogram_on", ring_histograms_off_host_histogram_on);
	ut_run("histogram_from_first_window", histogram_from_first_window);
	ut_run("bill_per_ring_and_host", bill_per_ring_and_host);
	ut_run("hybrid_verdicts", hybrid_verdicts);
	ut_run("self_metrics", self_metrics);
	ut_run("reload_metrics", reload_metrics);
	ut_run("one_series_per_pid_fd", one_series_per_pid_fd);
	ut_run("job_steps_write_the_same", job_steps_write_the_same);
	ut_run("job_rings_change_between_steps", job_rings_change_between_steps);
	ut_run("loop_metrics", loop_metrics);
	ut_run("promtool_accepts", promtool_accepts);
	ut_run("export_writes_file", export_writes_file);
	ut_run("export_missing_dir", export_missing_dir);
	ut_run("export_read_only_dir", export_read_only_dir);
	ut_run("export_rename_fails", export_rename_fails);
	ut_run("export_reconfigured", export_reconfigured);
	ut_run("export_file_path_names", export_file_path_names);
	registry_free(&d.reg);
	return ut_finish();
}
