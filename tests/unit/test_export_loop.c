// SPDX-License-Identifier: GPL-2.0-only
/*
 * The textfile export in a real sd-event loop (export_loop_*): a write
 * goes in many short dispatches of the "export" source into a temporary
 * file, which is renamed only when whole and then holds what prom_format()
 * writes; another source that becomes ready mid-write is dispatched before
 * the write goes on (idle priority); SIGHUP's kick drops a write in
 * progress and begins another, with the new settings; a stop mid-write
 * leaves no temporary file.
 */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "daemon.h"
#include "export.h"
#include "loop_source.h"
#include "prom.h"
#include "unit.h"

static struct ut_daemon d;	/* big: PATH_MAX buffers */
static char root[64], dir[128], file[192];
static sd_event *ev;
static struct export_loop x;

static void setup(int rings)
{
	registry_free(&d.reg);
	memset(&d, 0, sizeof(d));
	config_defaults(&d.cfg);
	if (registry_init(&d.reg))
		exit(2);
	for (int i = 0; i < rings; i++) {
		struct ut_ring *r = registry_add(&d.reg, 0x1000 + i * 64);

		if (!r)
			exit(2);
		r->obs.holder.pid = 100 + i;
		r->obs.holder.fd = 5;
		snprintf(r->obs.holder.comm, sizeof(r->obs.holder.comm), "hold%d", i);
		r->obs.have_stats = true;
		r->obs.stats.waits = i;
	}
	snprintf(root, sizeof(root), "/tmp/uringtune-exportloop-XXXXXX");
	if (!mkdtemp(root))
		exit(2);
	snprintf(dir, sizeof(dir), "%s/textfile", root);
	snprintf(file, sizeof(file), "%s/uringtune.prom", dir);
	if (mkdir(dir, 0755))
		exit(2);
	snprintf(d.cfg.textfile_dir, sizeof(d.cfg.textfile_dir), "%s", dir);
	d.cfg.export_interval_s = 3600;
	if (sd_event_new(&ev) < 0)
		exit(2);
	memset(&x, 0, sizeof(x));
	x.step_lines = 8;
	if (export_loop_start(&x, &d, ev) < 0)
		exit(2);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void teardown(void)
{
	export_loop_stop(&x);
	export_stop(&d);
	ev = sd_event_unref(ev);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* one dispatch; the description of the source that ran, "" if none did */
static const char *run_once(void)
{
	loop_source_clear();
	if (sd_event_run(ev, 0) <= 0)
		return "";
	return loop_source_current();
}

/* how many names in the directory start with ".uringtune.prom." */
static int temporaries(void)
{
	struct dirent *e;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((e = readdir(dp)))
		n += !strncmp(e->d_name, ".uringtune.prom.", 16);
	closedir(dp);
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &cap, '\0', f) < 0) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static char *format(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (prom_format(&d, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* run "export" dispatches until the file is renamed into place; how many, -1 if never */
static int run_write(void)
{
	for (int n = 1; n < 100000; n++) {
		const char *what = run_once();

		if (strcmp(what, "export"))
			return -1;
		if (!access(file, F_OK))
			return n;
	}
	return -1;
}

UT_TEST(write_in_steps)
{
	char *want, *got;
	int steps;

	setup(300);
	export_loop_kick(&x);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	/* begun: a temporary file, not yet the file */
	UT_ASSERT_EQ_INT(temporaries(), 1);
	UT_ASSERT(access(file, F_OK));
	steps = run_write();
	/* ~300 rings in 9 families, 8 lines a step */
	UT_ASSERT(steps > 200);
	UT_ASSERT_EQ_INT(temporaries(), 0);
	want = format();
	got = slurp(file);
	UT_ASSERT(want && got);
	UT_ASSERT(!strcmp(want, got));
	free(want);
	free(got);
	UT_ASSERT_STR_EQ(d.export_path, file);
	/* done: nothing more to dispatch until the next interval */
	UT_ASSERT_STR_EQ(run_once(), "");
	teardown();
}

static bool piped;

static int on_pipe(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	char c;

	(void)revents, (void)arg;
	loop_source_enter(s);
	piped = read(fd, &c, 1) == 1;
	return 0;
}

/* what becomes ready mid-write goes first: the export is at idle priority */
UT_TEST(others_go_first)
{
	sd_event_source *src;
	int p[2];

	setup(300);
	UT_ASSERT_EQ_INT(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	UT_ASSERT(sd_event_add_io(ev, &src, p[0], EPOLLIN, on_pipe, NULL) >= 0);
	loop_source_describe(src, "pipe");
	export_loop_kick(&x);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	UT_ASSERT_STR_EQ(run_once(), "export");
	UT_ASSERT_STR_EQ(run_once(), "export");
	piped = false;
	UT_ASSERT_EQ_INT(write(p[1], "x", 1), 1);
	UT_ASSERT_STR_EQ(run_once(), "pipe");
	UT_ASSERT(piped);
	UT_ASSERT_EQ_INT(temporaries(), 1);
	UT_ASSERT(run_write() > 100);
	sd_event_source_disable_unref(src);
	close(p[0]);
	close(p[1]);
	teardown();
}

/* SIGHUP mid-write: dropped, begun again with the new settings; a stop mid-write */
UT_TEST(kick_and_stop_mid_write)
{
	char *got;

	setup(300);
	export_loop_kick(&x);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	UT_ASSERT_STR_EQ(run_once(), "export");
	UT_ASSERT_EQ_INT(temporaries(), 1);
	/* a reload: the write in progress is gone at once */
	d.inv.sweeps = 77;
	export_loop_kick(&x);
	UT_ASSERT_EQ_INT(temporaries(), 0);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	UT_ASSERT(run_write() > 0);
	got = slurp(file);
	UT_ASSERT(got && strstr(got, "\nuringtune_sweeps_total 77\n"));
	free(got);

	/* switched off by a reload: the file goes at once */
	d.cfg.export_textfile = false;
	export_loop_kick(&x);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	UT_ASSERT(access(file, F_OK));
	UT_ASSERT_STR_EQ(run_once(), "");

	/* on again, stopped mid-write: no temporary file left, no file either */
	d.cfg.export_textfile = true;
	export_loop_kick(&x);
	UT_ASSERT_STR_EQ(run_once(), "export-timer");
	UT_ASSERT_STR_EQ(run_once(), "export");
	UT_ASSERT_EQ_INT(temporaries(), 1);
	export_loop_stop(&x);
	UT_ASSERT_EQ_INT(temporaries(), 0);
	UT_ASSERT(access(file, F_OK));
	teardown();
}

/* the timer: interval_s from the start, and again interval_s after each write began */
UT_TEST(every_interval)
{
	setup(3);
	d.cfg.export_interval_s = 1;
	export_loop_stop(&x);
	memset(&x, 0, sizeof(x));
	UT_ASSERT(export_loop_start(&x, &d, ev) >= 0);
	/* nothing before the interval */
	UT_ASSERT_STR_EQ(run_once(), "");
	UT_ASSERT(sd_event_run(ev, 1500000) > 0);
	UT_ASSERT_STR_EQ(loop_source_current(), "export-timer");
	UT_ASSERT(run_write() > 0);
	unlink(file);
	UT_ASSERT(sd_event_run(ev, 1500000) > 0);
	UT_ASSERT_STR_EQ(loop_source_current(), "export-timer");
	UT_ASSERT(run_write() > 0);
	teardown();
}

int main(void)
{
	/* the export's log lines are not what is tested: quiet */
	if (!freopen("/dev/null", "w", stderr))
		return 2;
	ut_run("write_in_steps", write_in_steps);
	ut_run("others_go_first", others_go_first);
	ut_run("kick_and_stop_mid_write", kick_and_stop_mid_write);
	ut_run("every_interval", every_interval);
	registry_free(&d.reg);
	return ut_finish();
}
