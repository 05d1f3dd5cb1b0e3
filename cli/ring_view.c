// SPDX-License-Identifier: GPL-2.0-only
/*
 * One ring of the status reply, drawn for people: who holds it and how
 * NAPI is set, how its waits end, and how long its paid-off busy-poll
 * windows last (a log2 histogram in the manner of bcc's print_log2_hist).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "advice_view.h"
#include "hist.h"
#include "json_get.h"
#include "ring_view.h"
#include "bill_view.h"
#include "status_table.h"
#include "strbuf.h"
#include "verdict_view.h"

/* width of the key column of the header */
#define RV_KEY_W	15
/* bars never shrink below this, whatever the terminal */
#define RV_BAR_MIN	10

void rv_duration(uint64_t ns, char *buf, size_t len)
{
	/* the unit is chosen on the rounded value: never "1000.0us" */
	if (ns < 1024)
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	else if (ns < 999950)
		snprintf(buf, len, "%.1fus", (double)ns / 1e3);
	else if (ns < 999950000)
		snprintf(buf, len, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.1fs", (double)ns / 1e9);
}

void rv_slot_label(unsigned int slot, char *buf, size_t len)
{
	uint64_t lo, hi;
	char a[24], b[24];

	if (slot > 63)
		slot = 63;
	/* the BPF side files a 0 ns window in slot 0 too */
	lo = hist_slot_lo(slot);
	hi = hist_slot_max(slot);
	rv_duration(lo, a, sizeof(a));
	rv_duration(hi, b, sizeof(b));
	snprintf(buf, len, "%s-%s", a, b);
}

int rv_bar_len(uint64_t count, uint64_t max, int width)
{
	unsigned __int128 n;

	if (!count || !max || width <= 0)
		return 0;
	if (count >= max)
		return width;
	n = (unsigned __int128)count * (unsigned)width / max;
	return n ? (int)n : 1;
}

int rv_find(struct json_object *reply, int64_t pid, int64_t fd,
	    struct json_object **ring, const char **why)
{
	struct json_object *rings = jget(reply, "rings");
	size_t n;

	*ring = NULL;
	if (!json_object_is_type(rings, json_type_array)) {
		*why = "no \"rings\" array";
		return -EINVAL;
	}
	n = json_object_array_length(rings);
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(rings, i);
		int64_t p, f;

		if (jget_i64(r, "pid", &p) && jget_i64(r, "fd", &f) && p == pid && f == fd) {
			*ring = r;
			return 0;
		}
	}
	return -ENOENT;
}

/* an escaped string field, or "-"; NULL only on ENOMEM */
static char *rv_esc(struct json_object *o, const char *key, bool quote)
{
	char *s = jget_esc(o, key, quote);

	if (s || json_object_is_type(jget(o, key), json_type_string))
		return s;
	return strdup("-");
}

/* a string field with something in it: a line of the header, else nothing */
static int rv_opt_line(FILE *out, const char *name, struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);
	char *s;

	if (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v))
		return 0;
	/* the daemon's prose: quotes stay readable, control bytes cannot break lines */
	s = cli_escape(json_object_get_string(v), json_object_get_string_len(v), false);
	if (!s)
		return -ENOMEM;
	fprintf(out, "%-*s%s\n", RV_KEY_W, name, s);
	free(s);
	return 0;
}

static void rv_i64_or_dash(FILE *out, struct json_object *o, const char *key)
{
	int64_t v;

	if (jget_i64(o, key, &v))
		fprintf(out, "%" PRId64, v);
	else
		fputc('-', out);
}

static void rv_napi(FILE *out, struct json_object *napi)
{
	uint64_t us;
	char *track;
	int prefer;

	fprintf(out, "%-*s", RV_KEY_W, "NAPI");
	switch (jget_bool(napi, "enabled")) {
	case 0:
		fprintf(out, "off\n");
		return;
	case 1:
		break;
	default:
		fprintf(out, "-\n");
		return;
	}
	fprintf(out, "on, timeout ");
	if (jget_u64(napi, "busy_poll_us", &us))
		fprintf(out, "%" PRIu64 "us", us);
	else
		fputc('-', out);
	prefer = jget_bool(napi, "prefer_busy_poll");
	fprintf(out, ", prefer %s", prefer < 0 ? "-" : prefer ? "on" : "off");
	track = jget_esc(napi, "tracking", true);
	fprintf(out, ", tracking %s\n", track ? track : "-");
	free(track);
}

/* a ring set up through the in-process agent: what it did, what is on its way */
static int rv_agent(FILE *out, struct json_object *agent)
{
	char *entry, *hybrid, *napi;
	double pending_s;
	int err = 0;

	if (!agent)
		return 0;
	entry = rv_esc(agent, "entry", true);
	hybrid = rv_esc(agent, "hybrid", true);
	napi = rv_esc(agent, "napi_at_setup", true);
	if (!entry || !hybrid || !napi) {
		err = -ENOMEM;
		goto out;
	}
	fprintf(out, "%-*sset up through %s; hybrid: %s; NAPI at setup: %s", RV_KEY_W, "agent",
		entry, hybrid, napi);
	if (jget_bool(agent, "pending") > 0 && jget_num(agent, "pending_s", &pending_s))
		fprintf(out, "; a decision waits %.1f s for the ring's next submit or wait",
			pending_s);
	fputc('\n', out);
	err = rv_opt_line(out, "agent decision", agent, "decision");
out:
	free(entry);
	free(hybrid);
	free(napi);
	return err;
}

static int rv_header(struct json_object *ring, FILE *out)
{
	struct json_object *tuning = jget(ring, "tuning");
	char *comm = rv_esc(ring, "comm", true);
	char *flags = status_cell_flags(ring);
	char *ids = status_cell_ids(ring, "napi_ids");
	char *kids = status_cell_ids(ring, "kernel_napi_ids");
	char *missed = status_cell_ids(ring, "napi_ids_not_polled");
	char *by = jget_esc(ring, "napi_list_by", false);
	char *managed = status_cell_managed(ring);
	char *tunable = status_cell_tunable(ring);
	int err = -ENOMEM;

	if (!comm || !flags || !ids || !kids || !missed || !managed || !tunable)
		goto out;

	fprintf(out, "pid ");
	rv_i64_or_dash(out, ring, "pid");
	fprintf(out, "  comm %s  fd ", comm);
	rv_i64_or_dash(out, ring, "fd");
	fputc('\n', out);
	fprintf(out, "%-*s%s\n", RV_KEY_W, "setup flags", flags);
	rv_napi(out, jget(ring, "napi"));
	fprintf(out, "%-*sseen %s, busy-polled %s", RV_KEY_W, "NAPI IDs", ids, kids);
	if (by)
		fprintf(out, " (%s)", by);
	if (strcmp(missed, "-"))
		fprintf(out, ", not polled %s", missed);
	fputc('\n', out);
	fprintf(out, "%-*s%s", RV_KEY_W, "managed by", managed);
	if (jget_bool(tuning, "pinned") > 0)
		fprintf(out, ", pinned by uringtune set%s",
			jget_bool(tuning, "forced") > 0 ? " --force" : "");
	if (jget_bool(tuning, "hands_off") > 0)
		fprintf(out, ", left alone since uringtune reset");
	fputc('\n', out);
	fprintf(out, "%-*s%s\n", RV_KEY_W, "tunable", tunable);
	err = rv_opt_line(out, "last decision", tuning, "last_decision");
	if (!err)
		err = rv_opt_line(out, "tuning error", tuning, "error");
	if (!err)
		err = advice_view_print(ring, out, RV_KEY_W);
	if (!err)
		err = rv_agent(out, jget(ring, "agent"));
out:
	free(comm);
	free(flags);
	free(ids);
	free(kids);
	free(missed);
	free(by);
	free(managed);
	free(tunable);
	return err;
}

static int rv_digits(uint64_t v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static void rv_bar(FILE *out, char c, int len, int width)
{
	fputc('|', out);
	for (int i = 0; i < width; i++)
		fputc(i < len ? c : ' ', out);
	fputs("|\n", out);
}

/* waits that blocked, and how they ended: a bar each, the total is full width */
static void rv_waits(struct json_object *ring, FILE *out, int width)
{
	struct json_object *waits = jget(ring, "waits");
	uint64_t total, v[2];
	static const char *const name[2] = { "no sleep", "slept" };
	int cw, bw;

	fprintf(out, "%-*s", RV_KEY_W, "waits");
	if (!jget_u64(waits, "total", &total)) {
		fprintf(out, "-\n");
		return;
	}
	fprintf(out, "%" PRIu64 " blocked\n", total);
	if (!total)
		return;
	if (!jget_u64(waits, "no_sleep", &v[0]) || v[0] > total)
		return;
	/* an older daemon may lack "slept": it is the rest */
	if (!jget_u64(waits, "slept", &v[1]))
		v[1] = total - v[0];

	cw = rv_digits(total);
	/* "  no sleep  " count "  " "100.0%" " |" bar "|" */
	bw = width - (2 + 8 + 2 + cw + 2 + 6 + 2 + 1);
	if (bw < RV_BAR_MIN)
		bw = RV_BAR_MIN;
	for (int i = 0; i < 2; i++) {
		fprintf(out, "  %-8s  %*" PRIu64 "  %5.1f%% ", name[i], cw, v[i],
			(double)v[i] * 100.0 / (double)total);
		rv_bar(out, '#', rv_bar_len(v[i], total, bw), bw);
	}
}

/*
 * The timed paid-off windows, one line per slot from the lowest to the
 * highest used; nothing when none was timed.
 */
/* the non-empty range of a log2 histogram as bars, one line per slot */
static void rv_hist_bars(const uint64_t *count, int lo, int hi, uint64_t max, FILE *out,
			 int width)
{
	int lw = (int)strlen("duration"), cw = (int)strlen("count"), bw;
	char label[48];

	for (int i = lo; i <= hi; i++) {
		int l;

		rv_slot_label((unsigned int)i, label, sizeof(label));
		l = (int)strlen(label);
		if (l > lw)
			lw = l;
	}
	if (rv_digits(max) > cw)
		cw = rv_digits(max);
	/* label " : " count " |" bar "|" */
	bw = width - (lw + 3 + cw + 2 + 1);
	if (bw < RV_BAR_MIN)
		bw = RV_BAR_MIN;

	fprintf(out, "%*s : %*s  distribution\n", lw, "duration", cw, "count");
	for (int i = lo; i <= hi; i++) {
		rv_slot_label((unsigned int)i, label, sizeof(label));
		fprintf(out, "%*s : %*" PRIu64 " ", lw, label, cw, count[i]);
		rv_bar(out, '*', rv_bar_len(count[i], max, bw), bw);
	}
}

/* read a hist_log2_ns array: its sum, largest count and non-empty range */
static uint64_t rv_hist_read(struct json_object *arr, uint64_t *count, int *lo, int *hi,
			     uint64_t *max)
{
	uint64_t sum = 0;
	size_t n;

	*lo = *hi = -1;
	*max = 0;
	if (!json_object_is_type(arr, json_type_array))
		return 0;
	n = json_object_array_length(arr);
	if (n > UT_HIST_SLOTS)
		n = UT_HIST_SLOTS;
	for (size_t i = 0; i < n; i++) {
		uint64_t c;

		if (!jval_u64(json_object_array_get_idx(arr, i), &c) || !c)
			continue;
		count[i] = c;
		if (*lo < 0)
			*lo = (int)i;
		*hi = (int)i;
		if (c > *max)
			*max = c;
		sum = sum + c < sum ? UINT64_MAX : sum + c;
	}
	return sum;
}

static void rv_hist(struct json_object *bp, FILE *out, int width)
{
	uint64_t count[UT_HIST_SLOTS] = { 0 }, max, sum, time_ns;
	char avg[24];
	int lo, hi;

	sum = rv_hist_read(jget(bp, "hist_log2_ns"), count, &lo, &hi, &max);
	if (lo < 0)
		return;
	fprintf(out, "paid-off windows by length (a 1-in-16 sample: %" PRIu64 " timed", sum);
	if (jget_u64(bp, "time_ns", &time_ns) && time_ns) {
		rv_duration(time_ns / sum, avg, sizeof(avg));
		fprintf(out, ", %s on average", avg);
	}
	fprintf(out, "):\n");
	rv_hist_bars(count, lo, hi, max, out, width);
}

/* the ring's recent windows, and the hybrid model's prediction on them */
static void rv_iopoll_window(struct json_object *iop, FILE *out)
{
	struct json_object *win = jget(iop, "window"), *adv = jget(iop, "advice");
	double iops = 0, qd = 0, util, cpr, saving, change, p50;
	char cpu[64] = "CPU not known", lat[24];

	if (win && jget_num(win, "iops", &iops) && jget_num(win, "qd", &qd)) {
		if (jget_num(win, "cpu_util", &util) && jget_num(win, "cpu_per_read_ns", &cpr))
			snprintf(cpu, sizeof(cpu), "CPU %.0f%%, %.1f us per read", util * 100,
				 cpr / 1000);
		fprintf(out, "%-*s%.0f reads/s while busy, %.1f in flight, %s\n", RV_KEY_W,
			"iopoll window", iops, qd, cpu);
	}
	if (adv && jget_num(adv, "cpu_per_read_saving", &saving) &&
	    jget_num(adv, "iops_change", &change) && jget_num(adv, "p50_ns", &p50)) {
		rv_duration((uint64_t)p50, lat, sizeof(lat));
		fprintf(out, "%-*s%+.0f%% CPU per read, %+.0f%% IOPS, p50 %s\n", RV_KEY_W,
			"hybrid predicted", -saving * 100, change * 100, lat);
	}
}

/* IOPOLL rings: completion times, classic or hybrid, and the advisor */
static void rv_iopoll(struct json_object *iop, FILE *out, int width)
{
	uint64_t count[UT_HIST_SLOTS] = { 0 }, max, n = 0, inflight = 0, v;
	struct json_object *adv = jget(iop, "advice");
	char a[24] = "-", b[24] = "-";
	char *why, *mode;
	int lo, hi;

	jget_u64(iop, "completions", &n);
	jget_u64(iop, "in_flight", &inflight);
	if (jget_u64(iop, "p50_ns", &v))
		rv_duration(v, a, sizeof(a));
	if (jget_u64(iop, "p99_ns", &v))
		rv_duration(v, b, sizeof(b));
	why = rv_esc(adv, "why", false);
	mode = rv_esc(iop, "mode", true);
	fprintf(out, "%-*s%s, %" PRIu64 " completions, %" PRIu64 " in flight, p50 %s, p99 %s\n",
		RV_KEY_W, "iopoll", mode ? mode : "-", n, inflight, a, b);
	rv_iopoll_window(iop, out);
	fprintf(out, "%-*s%s\n", RV_KEY_W, "hybrid advice", why ? why : "-");
	free(mode);
	free(why);
	/* what hybrid did for the ring's program, measured (verdict_view.c) */
	verdict_view_print(iop, out, RV_KEY_W);
	rv_hist_read(jget(iop, "hist_log2_ns"), count, &lo, &hi, &max);
	if (lo < 0)
		return;
	fprintf(out, "completion times, submission to CQE:\n");
	rv_hist_bars(count, lo, hi, max, out, width);
}

static bool rv_hist_empty(struct json_object *bp)
{
	struct json_object *arr = jget(bp, "hist_log2_ns");
	size_t n;

	if (!json_object_is_type(arr, json_type_array))
		return true;
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n && i < UT_HIST_SLOTS; i++) {
		uint64_t c;

		if (jval_u64(json_object_array_get_idx(arr, i), &c) && c)
			return false;
	}
	return true;
}

/* how many windows busy-polled and paid off; then the lengths of those that paid */
static void rv_busy(struct json_object *ring, FILE *out, int width)
{
	struct json_object *bp = jget(ring, "busy_poll");
	uint64_t windows, paid = 0;
	bool have_paid;
	double rate;

	fprintf(out, "%-*s", RV_KEY_W, "busy polling");
	if (!jget_u64(bp, "windows", &windows)) {
		fprintf(out, "-\n");
		rv_hist(bp, out, width);
		return;
	}
	if (!windows) {
		fprintf(out, "no window yet\n");
		rv_hist(bp, out, width);
		return;
	}
	fprintf(out, "%" PRIu64 " window%s", windows, windows == 1 ? "" : "s");
	have_paid = jget_u64(bp, "paid_off", &paid) && paid <= windows;
	if (have_paid) {
		if (!jget_num(bp, "hit_rate", &rate))
			rate = (double)paid / (double)windows;
		fprintf(out, ": %" PRIu64 " paid off (%.1f%%)\n", paid, rate * 100.0);
		fprintf(out, "%-*s%" PRIu64 " did not pay off: each lasted the whole timeout\n",
			RV_KEY_W, "", windows - paid);
	} else {
		fputc('\n', out);
	}
	if (!rv_hist_empty(bp))
		rv_hist(bp, out, width);
	else if (have_paid && paid)
		fprintf(out, "paid-off windows by length: none timed yet (a 1-in-16 sample)\n");
}

int rv_print(struct json_object *ring, FILE *out, int width)
{
	int err;

	if (width < RV_WIDTH_MIN)
		width = RV_WIDTH_MIN;
	err = rv_header(ring, out);
	if (err)
		return err;
	fputc('\n', out);
	rv_waits(ring, out, width);
	fputc('\n', out);
	rv_busy(ring, out, width);
	/* from a daemon with the bill: what busy polling cost and saved */
	if (jget(jget(ring, "busy_poll"), "spin_ns"))
		bill_view_ring_lines(jget(ring, "busy_poll"), out, RV_KEY_W);
	if (jget(ring, "iopoll")) {
		fputc('\n', out);
		rv_iopoll(jget(ring, "iopoll"), out, width);
	}
	return ferror(out) ? -EIO : 0;
}
