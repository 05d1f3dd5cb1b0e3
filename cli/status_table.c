// SPDX-License-Identifier: GPL-2.0-only
/* Render the daemon's status reply as an aligned text table. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "advice_view.h"
#include "json_get.h"
#include "reply_parse.h"
#include "bill_view.h"
#include "status_table.h"
#include "strbuf.h"

enum st_col {
	COL_PID,
	COL_COMM,
	COL_FD,
	COL_FLAGS,
	COL_NAPI,
	COL_BUSY_POLL,
	COL_TRACK,
	COL_IDS,
	COL_WAITS,
	COL_NOSLEEP,
	COL_BP_HIT,	/* the last period's, as EFF and SPIN% (bill_view.c) */
	COL_EFF,
	COL_SPIN,
	COL_MANAGED,
	COL_ADVICE,	/* observe mode: what tune mode would set */
	COL_TUNABLE,	/* last: free text, never padded */
	NR_COLS,
};

static const char *const st_col_names[NR_COLS] = {
	[COL_PID] = "PID",
	[COL_COMM] = "COMM",
	[COL_FD] = "FD",
	[COL_FLAGS] = "FLAGS",
	[COL_NAPI] = "NAPI",
	[COL_BUSY_POLL] = "BUSY_POLL",
	[COL_TRACK] = "TRACK",
	[COL_IDS] = "IDS",
	[COL_WAITS] = "WAITS",
	[COL_NOSLEEP] = "NOSLEEP",
	[COL_BP_HIT] = "BP_HIT",
	[COL_EFF] = "EFF",
	[COL_SPIN] = "SPIN%",
	[COL_MANAGED] = "MANAGED",
	[COL_ADVICE] = "ADVICE",
	[COL_TUNABLE] = "TUNABLE",
};

#define COL_GAP	2

struct st_row {
	int64_t pid;	/* sort keys; INT64_MIN when the daemon omitted them */
	int64_t fd;
	size_t idx;	/* position in the reply: makes the sort total */
	char *cell[NR_COLS];
	char *iopoll;	/* IOPOLL rings: a second, indented line */
};

static char *st_dash(void)
{
	return strdup("-");
}

static char *st_percent(double frac)
{
	return cli_msgf("%.1f%%", frac * 100.0);
}

char *status_cell_flags(struct json_object *ring)
{
	struct json_object *arr = jget(ring, "setup_flags");
	struct strbuf sb = { 0 };
	size_t n = 0;
	uint64_t raw;

	if (json_object_is_type(arr, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *f = json_object_array_get_idx(arr, i);

			if (!json_object_is_type(f, json_type_string))
				continue;
			if (n++)
				sb_add(&sb, ",", 1);
			sb_add_esc(&sb, json_object_get_string(f),
				   json_object_get_string_len(f), true);
		}
	} else if (jget_u64(ring, "setup_flags_raw", &raw) && raw) {
		/* an older or leaner daemon: the bits are better than nothing */
		free(sb.p);
		return cli_msgf("0x%" PRIx64, raw);
	}
	if (!n) {
		free(sb.p);
		return st_dash();
	}
	return sb_take(&sb);
}

char *status_cell_ids(struct json_object *ring, const char *key)
{
	struct json_object *arr = jget(ring, key);
	struct strbuf sb = { 0 };
	size_t n = 0;

	if (json_object_is_type(arr, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			struct json_object *id = json_object_array_get_idx(arr, i);
			char num[24];

			if (!json_object_is_type(id, json_type_int))
				continue;
			snprintf(num, sizeof(num), "%" PRId64, json_object_get_int64(id));
			if (n++)
				sb_add(&sb, ",", 1);
			sb_adds(&sb, num);
		}
	}
	if (!n) {
		free(sb.p);
		return st_dash();
	}
	return sb_take(&sb);
}

char *status_cell_managed(struct json_object *ring)
{
	struct json_object *via = jget(ring, "managed_via");
	char *by = jget_esc(ring, "managed_by", true);

	/* rings reached through the in-process agent are counted apart */
	if (by && json_object_is_type(via, json_type_string) &&
	    !strcmp(json_object_get_string(via), "agent")) {
		char *both = cli_msgf("%s (agent)", by);

		free(by);
		return both;
	}
	return by ? by : st_dash();
}

char *status_cell_tunable(struct json_object *ring)
{
	struct json_object *reason = jget(ring, "reason");
	struct strbuf sb = { 0 };

	switch (jget_bool(ring, "tunable")) {
	case 1:
		return strdup("yes");
	case 0:
		sb_adds(&sb, "no");
		if (json_object_is_type(reason, json_type_string) &&
		    json_object_get_string_len(reason)) {
			sb_adds(&sb, ": ");
			/* prose from the daemon: keep its quotes readable */
			sb_add_esc(&sb, json_object_get_string(reason),
				   json_object_get_string_len(reason), false);
		}
		return sb_take(&sb);
	default:
		return st_dash();
	}
}

static void st_row_free(struct st_row *row)
{
	for (int c = 0; c < NR_COLS; c++)
		free(row->cell[c]);
	free(row->iopoll);
}

/* nanoseconds as people read them: "850ns", "12.3us", "4.1ms" */
static void st_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else
		snprintf(buf, len, "%.1fms", ns / 1e6);
}

/* "  iopoll classic: N completions, p50 X p99 Y; hybrid: ... (predicted ...)" */
static char *st_iopoll_line(struct json_object *iop)
{
	struct json_object *adv = jget(iop, "advice");
	uint64_t n = 0, p50, p99, inflight = 0;
	char a[32] = "-", b[32] = "-";
	const char *mode = NULL;
	int rec = jget_bool(adv, "recommend_hybrid");
	double saving = 0, change = 0;
	char pred[96] = "";

	if (json_object_is_type(jget(iop, "mode"), json_type_string))
		mode = json_object_get_string(jget(iop, "mode"));
	jget_u64(iop, "completions", &n);
	jget_u64(iop, "in_flight", &inflight);
	if (jget_u64(iop, "p50_ns", &p50))
		st_fmt_ns(a, sizeof(a), p50);
	if (jget_u64(iop, "p99_ns", &p99))
		st_fmt_ns(b, sizeof(b), p99);
	if (jget_num(adv, "cpu_per_read_saving", &saving) && jget_num(adv, "iops_change", &change))
		snprintf(pred, sizeof(pred), " (predicted %+.0f%% CPU per read, %+.0f%% IOPS)",
			 -saving * 100, change * 100);
	return cli_msgf("  iopoll %s: %" PRIu64 " completions, p50 %s p99 %s, %" PRIu64
		       " in flight; hybrid: %s%s",
		       mode && !strcmp(mode, "hybrid") ? "hybrid" : "classic", n, a, b,
		       inflight,
		       mode && !strcmp(mode, "hybrid") ? "on" :
		       rec > 0 ? "recommended" : pred[0] ? "not recommended" : "no prediction yet",
		       pred);
}

static int st_row_fill(struct st_row *row, struct json_object *ring)
{
	struct json_object *napi = jget(ring, "napi");
	struct json_object *waits = jget(ring, "waits");
	struct json_object *bp = jget(ring, "busy_poll");
	uint64_t total, no_sleep, us;
	int enabled;
	char **cell = row->cell;

	if (jget_i64(ring, "pid", &row->pid))
		cell[COL_PID] = cli_msgf("%" PRId64, row->pid);
	else
		row->pid = INT64_MIN;
	if (jget_i64(ring, "fd", &row->fd))
		cell[COL_FD] = cli_msgf("%" PRId64, row->fd);
	else
		row->fd = INT64_MIN;

	cell[COL_COMM] = jget_esc(ring, "comm", true);
	cell[COL_FLAGS] = status_cell_flags(ring);

	enabled = jget_bool(napi, "enabled");
	if (enabled >= 0)
		cell[COL_NAPI] = strdup(enabled ? "on" : "off");
	if (enabled > 0 && jget_u64(napi, "busy_poll_us", &us))
		cell[COL_BUSY_POLL] = cli_msgf("%" PRIu64 "us", us);
	cell[COL_TRACK] = jget_esc(napi, "tracking", true);
	cell[COL_IDS] = status_cell_ids(ring, "napi_ids");

	if (jget_u64(waits, "total", &total)) {
		cell[COL_WAITS] = cli_msgf("%" PRIu64, total);
		if (total && jget_u64(waits, "no_sleep", &no_sleep))
			cell[COL_NOSLEEP] = st_percent((double)no_sleep / (double)total);
	}
	bill_view_cells(bp, &cell[COL_BP_HIT], &cell[COL_EFF], &cell[COL_SPIN]);

	cell[COL_MANAGED] = status_cell_managed(ring);
	cell[COL_ADVICE] = status_cell_advice(ring);
	cell[COL_TUNABLE] = status_cell_tunable(ring);
	if (jget(ring, "iopoll") && !(row->iopoll = st_iopoll_line(jget(ring, "iopoll"))))
		return -ENOMEM;

	/* whatever is still empty was missing (or allocation failed) */
	for (int c = 0; c < NR_COLS; c++) {
		if (!cell[c])
			cell[c] = st_dash();
		if (!cell[c])
			return -ENOMEM;
	}
	return 0;
}

static int st_row_cmp(const void *a, const void *b)
{
	const struct st_row *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->fd != y->fd)
		return x->fd < y->fd ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void st_print_summary(struct json_object *daemon, size_t nr_listed, FILE *out)
{
	char *mode = jget_esc(daemon, "mode", true);
	char *kernel = jget_esc(daemon, "kernel", true);
	int64_t pid;
	uint64_t rings, lost, agent;
	bool no_napi, no_hybrid;

	fprintf(out, "uringtuned ");
	if (jget_i64(daemon, "pid", &pid))
		fprintf(out, "%" PRId64, pid);
	else
		fputc('?', out);
	fprintf(out, ", mode %s, kernel %s", mode ? mode : "?", kernel ? kernel : "?");
	/* the daemon's own count; the list is the fallback for older daemons */
	if (!jget_u64(daemon, "rings", &rings))
		rings = nr_listed;
	fprintf(out, ", %" PRIu64 " ring%s", rings, rings == 1 ? "" : "s");
	/* rings set up through the in-process agent, counted apart */
	if (jget_u64(jget(daemon, "agent"), "rings", &agent) && agent)
		fprintf(out, " (%" PRIu64 " through the agent)", agent);
	/* what this kernel lacks (hybrid: as far as the daemon knows, daemon.hybrid_support) */
	no_napi = jget_bool(daemon, "napi_supported") == 0;
	no_hybrid = jget_bool(jget(daemon, "hybrid_support"), "supported") == 0;
	if (no_napi || no_hybrid)
		fprintf(out, ", %s%s%s unsupported by this kernel", no_napi ? "NAPI" : "",
			no_napi && no_hybrid ? " and " : "", no_hybrid ? "hybrid IOPOLL" : "");
	if (jget_u64(daemon, "events_lost", &lost) && lost)
		fprintf(out, ", %" PRIu64 " event%s lost", lost, lost == 1 ? "" : "s");
	fputc('\n', out);

	free(mode);
	free(kernel);
}

/*
 * A refused reload: what the file says is not what runs, which whoever looks
 * at the table must see (daemon.reload). Nothing for older daemons.
 */
static void st_print_reload(struct json_object *daemon, FILE *out)
{
	struct json_object *reload = jget(daemon, "reload"), *last = jget(reload, "last");
	char when[32] = "?", *error;
	struct tm tm;
	int64_t t;
	time_t tt;

	if (!json_object_is_type(last, json_type_string) ||
	    strcmp(json_object_get_string(last), "refused"))
		return;
	tt = jget_i64(reload, "time", &t) ? (time_t)t : 0;
	if (tt && gmtime_r(&tt, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	error = jget_esc(reload, "error", false);
	fprintf(out, "last reload refused at %s, the previous configuration still runs: %s\n",
		when, error ? error : "?");
	free(error);
}

/* @len bytes of @s as one line, cut at @cut columns (0: never); cells are ASCII */
static void st_put_cut(const char *s, size_t len, int cut, FILE *out)
{
	if (cut > 0 && len > (size_t)cut)
		len = (size_t)cut;
	fwrite(s, 1, len, out);
	fputc('\n', out);
}

static void st_print_line(char *const cell[NR_COLS], const int width[NR_COLS], int cut,
			  FILE *out)
{
	struct strbuf sb = { 0 };
	size_t n;

	for (int c = 0; c < NR_COLS - 1; c++) {
		n = strlen(cell[c]);
		sb_add(&sb, cell[c], n);
		for (; n < (size_t)width[c] + COL_GAP; n++)
			sb_add(&sb, " ", 1);
	}
	sb_adds(&sb, cell[NR_COLS - 1]);
	if (sb.oom) {
		/* no room to build it: the line as it is, uncut */
		free(sb.p);
		for (int c = 0; c < NR_COLS - 1; c++)
			fprintf(out, "%-*s", width[c] + COL_GAP, cell[c]);
		fprintf(out, "%s\n", cell[NR_COLS - 1]);
		return;
	}
	st_put_cut(sb.p, sb.len, cut, out);
	free(sb.p);
}

int status_table_add(struct st_table *t, struct json_object *ring)
{
	struct st_row *rows, *row;
	size_t cap;
	int err;

	if (t->err)
		return t->err == -ENOMEM ? -ENOMEM : 0;
	if (!json_object_is_type(ring, json_type_object)) {
		t->err = -EINVAL;
		t->why = "an entry of \"rings\" is not an object";
		return 0;
	}
	if (t->nr == t->cap) {
		cap = t->cap ? t->cap * 2 : 64;
		rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows) {
			t->err = -ENOMEM;
			return -ENOMEM;
		}
		t->rows = rows;
		t->cap = cap;
	}
	row = &t->rows[t->nr];
	*row = (struct st_row){ .idx = t->nr };
	t->nr++;	/* freed with the rest, whatever it got */
	err = st_row_fill(row, ring);
	if (err)
		t->err = err;
	return err == -ENOMEM ? -ENOMEM : 0;
}

void status_table_forget(struct st_table *t)
{
	status_table_fini(t);
}

static int rings_add(struct json_object *ring, void *arg)
{
	return status_table_add(arg, ring);
}

static int rings_forget(void *arg)
{
	status_table_forget(arg);
	return 0;
}

const struct reply_rings status_table_rings = { .ring = rings_add, .forget = rings_forget };

void status_table_fini(struct st_table *t)
{
	int cut = t->cut;

	for (size_t i = 0; i < t->nr; i++)
		st_row_free(&t->rows[i]);
	free(t->rows);
	*t = (struct st_table){ .cut = cut };
}

/* the reply's shape, as status_table_print() checks it; 0 or -EINVAL */
static int st_check(struct json_object *reply, const char **why)
{
	struct json_object *daemon;

	if (!json_object_is_type(reply, json_type_object)) {
		*why = "not a JSON object";
		return -EINVAL;
	}
	daemon = jget(reply, "daemon");
	if (daemon && !json_object_is_type(daemon, json_type_object)) {
		*why = "\"daemon\" is not an object";
		return -EINVAL;
	}
	if (!json_object_is_type(jget(reply, "rings"), json_type_array)) {
		*why = "no \"rings\" array";
		return -EINVAL;
	}
	return 0;
}

int status_table_finish(struct st_table *t, struct json_object *reply, FILE *out,
			const char **why)
{
	struct json_object *daemon = jget(reply, "daemon");
	int width[NR_COLS];
	struct st_row *rows = t->rows;
	size_t nr = t->nr;
	int err;

	/* a bad reply prints nothing */
	err = st_check(reply, why);
	if (err)
		return err;
	if (t->err) {
		*why = t->why;
		return t->err;
	}
	if (nr)
		qsort(rows, nr, sizeof(*rows), st_row_cmp);
	for (int c = 0; c < NR_COLS; c++) {
		width[c] = (int)strlen(st_col_names[c]);
		for (size_t i = 0; i < nr; i++) {
			size_t w = strlen(rows[i].cell[c]);

			if (w > (size_t)width[c])
				width[c] = w > INT32_MAX / 2 ? INT32_MAX / 2 : (int)w;
		}
	}

	st_print_summary(daemon, nr, out);
	bill_view_host_line(reply, out);
	st_print_reload(daemon, out);
	if (!nr) {
		fprintf(out, "no io_uring rings\n");
	} else {
		st_print_line((char *const *)st_col_names, width, t->cut, out);
		for (size_t i = 0; i < nr; i++) {
			st_print_line(rows[i].cell, width, t->cut, out);
			if (rows[i].iopoll)
				st_put_cut(rows[i].iopoll, strlen(rows[i].iopoll), t->cut, out);
		}
	}
	return ferror(out) ? -EIO : 0;
}

int status_table_print(struct json_object *reply, FILE *out, int cut, const char **why)
{
	struct st_table t = { .cut = cut };
	struct json_object *rings;
	size_t n;
	int err;

	err = st_check(reply, why);
	if (err)
		return err;
	/* build every cell first: a bad reply prints nothing, widths need all rows */
	rings = jget(reply, "rings");
	n = json_object_array_length(rings);
	for (size_t i = 0; i < n && !t.err; i++)
		status_table_add(&t, json_object_array_get_idx(rings, i));
	err = status_table_finish(&t, reply, out, why);
	status_table_fini(&t);
	return err;
}
