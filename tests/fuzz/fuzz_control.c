// SPDX-License-Identifier: GPL-2.0-only
/*
 * control_handle(), the control socket's request -> reply, fed a sequence
 * of request lines (one per line of the input, as `uringtune` sends them)
 * against a small fake daemon in tune mode: seven rings of every kind the
 * commands treat differently (plain, SQPOLL, IOPOLL, an agent's
 * SINGLE_ISSUER ring, its application's, one whose backend refuses, one
 * whose restore finds it gone), a real journal in a temporary directory and
 * fake backends in place of the kernel. Nothing reaches the kernel.
 *
 * What must hold besides no crash and no leak, after every request:
 *   - the reply is one line holding one JSON object: {"error": "..."},
 *     {"ok": true, ...} or the status ({"daemon": {...}, ...}), whose rings
 *     are every ring, or the one asked for;
 *   - a status made a small batch at a time, as the socket drains, is the
 *     same text;
 *   - no ring is changed through a journaled backend without its journal
 *     entry on disk first, and every ring uringtune holds so has its entry;
 *   - the journal on disk reads back as the entries in memory.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "control_request.h"
#include "daemon.h"
#include "fuzz.h"
#include "log.h"
#include "uring_abi.h"

/* requests per input: a sequence, not a flood */
#define MAX_REQUESTS	16

#define REFUSING_FD	7	/* the fake kernel refuses changes to rings at this fd */
#define GONE_PID	600	/* ... and finds this process gone when restoring */

static struct ut_daemon d;	/* big: PATH_MAX buffers */
static uint64_t clock_ns;

static uint64_t fake_now(void)
{
	return clock_ns;
}

static bool fake_selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	(void)arg, (void)comm;
	*why = "excluded by exclude_uid";
	return pid != 500;
}

/* the register backend: journaled, so the entry must be on disk already */
static int fake_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		      char *err, size_t errlen)
{
	(void)arg, (void)s;
	FUZZ_CHECK(journal_find(&d.lc.journal, ring->ctx));
	if (ring->obs.holder.fd == REFUSING_FD) {
		snprintf(err, errlen, "refused by the fake kernel (EPERM)");
		return -EPERM;
	}
	return 0;
}

static int fake_restore(void *arg, const struct journal_entry *e, char *err, size_t errlen)
{
	(void)arg;
	if (e->pid == GONE_PID) {
		snprintf(err, errlen, "process gone");
		return -ESRCH;
	}
	return 0;
}

/* the agent backend: deferred, its record is the page, not the journal */
static int fake_agent_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
			    char *err, size_t errlen)
{
	(void)arg, (void)ring, (void)s, (void)err, (void)errlen;
	return 0;
}

static struct ut_ring *add_ring(uint64_t ctx, pid_t pid, int fd, uint32_t flags, bool napi_on,
				const char *comm)
{
	struct ut_event ev = {
		.type = UT_EV_RING_CREATE, .tgid = pid, .fd = fd, .ctx = ctx,
		.ts_ns = clock_ns, .start_boottime = 77 + pid, .ino = 500 + fd, .setup_flags = flags,
	};
	struct ut_ring *ring;

	snprintf(ev.comm, sizeof(ev.comm), "%s", comm);
	ev.napi.supported = 1;
	ev.napi.enabled = napi_on;
	ev.napi.busy_poll_ns = napi_on ? 50000 : 0;
	ev.napi.track_mode = napi_on ? UT_TRACK_DYNAMIC : UT_TRACK_INACTIVE;
	ring = registry_on_create(&d.reg, &ev, ev.ino);
	FUZZ_CHECK(ring);
	return ring;
}

/* traffic seen: NAPI IDs (for `set --static`) and a histogram */
static void give_stats(struct ut_ring *ring)
{
	struct ut_ring_stats *s = &ring->obs.stats;

	ring->obs.have_stats = true;
	s->ctx = ring->ctx;
	s->napi_ids[0] = 257;
	s->napi_ids[1] = 258;
	s->waits = 20000;
	s->waits_nosleep = 19500;
	s->busy_windows = 20000;
	s->busy_paid = 19400;
	s->busy_ns = UINT64_MAX / 3;
	for (unsigned int i = 0; i < UT_HIST_SLOTS; i++)
		s->busy_hist[i] = i * 1000;
}

static void daemon_setup(void)
{
	const struct lifecycle_env env = { .now = fake_now, .selects = fake_selects };
	struct ut_ring *rings[7];
	char err[512];
	size_t i;

	memset(&d, 0, sizeof(d));
	config_defaults(&d.cfg);
	d.cfg.mode = UT_MODE_TUNE;
	snprintf(d.cfg.state_dir, sizeof(d.cfg.state_dir), "%s/state", fuzz_tmpdir());
	d.self_pid = 1000;
	d.napi_supported = true;
	snprintf(d.kernel, sizeof(d.kernel), "6.18.44");
	clock_ns = 1000000000ULL;
	FUZZ_CHECK(registry_init(&d.reg) == 0);

	d.lc.self_pid = d.self_pid;
	d.lc.napi_supported = true;
	d.lc.pidfd = (struct tune_backend){
		.name = "register", .journaled = true,
		.apply = fake_apply, .restore = fake_restore,
	};
	d.lc.agent = (struct tune_backend){
		.name = "agent", .deferred = true, .apply = fake_agent_apply,
	};
	FUZZ_CHECK(lifecycle_init(&d.lc, &d.reg, &d.cfg, &env, err, sizeof(err)) == 0);
	agent_server_init(&d.agent, &d.reg, &d.lc, &d.cfg);
	d.inv = (struct inventory){
		.reg = &d.reg, .trace = &d.trace, .iopoll = &d.iopoll, .cfg = &d.cfg,
		.lc = &d.lc, .agent = &d.agent, .sweeps = 3, .ring_map_entries = 7,
	};

	rings[0] = add_ring(0xffff888100001000ULL, 100, 4, 0, false, "pingpong");
	rings[1] = add_ring(0xffff888100002000ULL, 100, 5, UT_SETUP_SQPOLL, false, "pingpong");
	rings[2] = add_ring(0xffff888100003000ULL, 300, 6, UT_SETUP_IOPOLL, false, "fio");
	rings[3] = add_ring(0xffff888100004000ULL, 200, 3,
			    UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN, false, "nginx");
	rings[4] = add_ring(0xffff888100005000ULL, 400, REFUSING_FD, 0, false, "refused");
	rings[5] = add_ring(0xffff888100006000ULL, 500, 8, 0, true, "app\n<0>napi");
	rings[6] = add_ring(0xffff888100007000ULL, GONE_PID, 9, UT_SETUP_COOP_TASKRUN, false, "");
	/* the agent server's part of the agent's ring: set up through it */
	rings[3]->agent.via = true;
	rings[3]->agent.slot = 0;
	give_stats(rings[0]);
	give_stats(rings[3]);

	lifecycle_settle_journal(&d.lc);
	for (i = 0; i < sizeof(rings) / sizeof(rings[0]); i++)
		lifecycle_ring_found(&d.lc, rings[i], true);
	lifecycle_flush(&d.lc);
}

static void daemon_teardown(void)
{
	unlink(d.lc.journal.path);
	lifecycle_fini(&d.lc);
	registry_free(&d.reg);
}

/* one JSON object on one line: an error, an ok, or the status */
static void check_reply(const char *reply)
{
	struct json_object *o, *v;
	int kinds = 0;

	FUZZ_CHECK(reply && !strchr(reply, '\n'));
	o = json_tokener_parse(reply);
	FUZZ_CHECK(o && json_object_is_type(o, json_type_object));
	if (json_object_object_get_ex(o, "error", &v)) {
		FUZZ_CHECK(json_object_is_type(v, json_type_string) && json_object_get_string_len(v));
		kinds++;
	}
	if (json_object_object_get_ex(o, "ok", &v)) {
		FUZZ_CHECK(json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v));
		kinds++;
	}
	if (json_object_object_get_ex(o, "daemon", &v)) {
		FUZZ_CHECK(json_object_is_type(v, json_type_object));
		FUZZ_CHECK(json_object_object_get_ex(o, "rings", &v) &&
			   json_object_is_type(v, json_type_array));
		/* every ring, or the one a "pid" and "fd" asked for (if it is there) */
		FUZZ_CHECK(json_object_array_length(v) == d.reg.count ||
			   json_object_array_length(v) <= 1);
		kinds++;
	}
	FUZZ_CHECK(kinds == 1);
	json_object_put(o);
}

static const struct control_who reader = {
	.access = CONTROL_ACCESS_READ, .uid = 1000, .group = "uringtune",
};

/* the answer made as control_conn.c makes it: small batches, drained as they come */
static void check_streamed(const char *line, size_t len, const char *whole)
{
	struct control_request req;
	struct control_reply r;
	size_t have = 0, n;
	char err[384], *text;

	/* a status only: a change must not be made twice */
	if (control_request_parse(line, len, &req, err, sizeof(err)) || req.cmd != CONTROL_STATUS)
		return;
	/* as a member of the status group asks it: the same status as root's */
	FUZZ_CHECK(control_answer(&d, line, len, &reader, &r) == 0 && r.status && !r.text);
	text = malloc(strlen(whole) + 2);
	FUZZ_CHECK(text);
	for (;;) {
		FUZZ_CHECK(status_stream_fill(r.status, &d, 1000) == 0);
		n = r.status->w.len;
		FUZZ_CHECK(have + n <= strlen(whole) + 1);
		memcpy(text + have, r.status->w.buf, n);
		have += n;
		sw_drop(&r.status->w, n);
		if (r.status->done)
			break;
	}
	FUZZ_CHECK(have == strlen(whole) + 1 && text[have - 1] == '\n' &&
		   !memcmp(text, whole, have - 1));
	free(text);
	status_stream_close(r.status);
	free(r.status);
}

/* no change without a way back: memory, disk and the rings agree */
static void check_journal(void)
{
	struct journal disk;
	struct ut_ring *ring;
	char err[512], *want, *got;
	size_t i, want_len, got_len;

	registry_for_each(&d.reg, i, ring)
		if (ring->tune.managed_by == UT_MANAGED_URINGTUNE && !ring_agent_driven(ring))
			FUZZ_CHECK(journal_find(&d.lc.journal, ring->ctx));
	FUZZ_CHECK(journal_open(&disk, d.cfg.state_dir, err, sizeof(err)) == 0);
	want = journal_format(d.lc.journal.entries, d.lc.journal.n, SIZE_MAX, &want_len);
	got = journal_format(disk.entries, disk.n, SIZE_MAX, &got_len);
	FUZZ_CHECK(want && got && want_len == got_len && memcmp(want, got, got_len) == 0);
	free(want);
	free(got);
	journal_close(&disk);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	size_t off = 0, len;
	char *line, *reply;

	if (!once) {
		once = true;
		log_set_level(LOG_DEBUG);
	}
	daemon_setup();
	check_journal();
	for (int n = 0; n < MAX_REQUESTS && (line = fuzz_next_line(data, size, &off, &len)); n++) {
		reply = control_handle(&d, line, len);
		check_reply(reply);
		check_streamed(line, len, reply);
		check_journal();
		free(reply);
		free(line);
		clock_ns += 1000000000ULL;
	}
	daemon_teardown();
	return 0;
}
