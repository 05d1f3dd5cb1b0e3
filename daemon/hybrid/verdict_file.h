/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verdict table (verdicts.h) across restarts: state_dir/hybrid-verdicts.json,
 *
 *	{"format":"uringtune-hybrid-verdicts","version":1,"programs":[
 *	  {"comm":"fio","exe":"/usr/bin/fio","updated":1796200000,
 *	   "classic":{"reads":N,"cpu_ns":N,"wall_ns":N,"windows":N,"rings":N},
 *	   "hybrid":{...},
 *	   "predicted":{"cpu_per_read_saving":x,"iops_change":x,"at":unix_s}|null,
 *	   "verdict":"classic","why":"..."}, ...]}
 *
 * The sums are what is kept: a program is judged again on load, by the
 * bounds in force ("verdict" and "why" are for people reading the file).
 * Loaded at start: a missing file is an empty table; one that cannot be
 * read (not JSON, another format or version, a member of the wrong type,
 * larger than VERDICT_FILE_MAX) is logged with its path and what is wrong
 * and renamed to hybrid-verdicts.json.bad, never fatal. Written whole
 * (atomic_file.h: temporary file, fsync, rename, directory fsync) when the
 * table changed, at most every VERDICT_SAVE_INTERVAL_S and at exit, in
 * observe mode too (a classic history and its predictions are worth as
 * much when tune mode comes).
 */
#ifndef UT_VERDICT_FILE_H
#define UT_VERDICT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verdicts.h"

#define VERDICT_FILE_NAME	"hybrid-verdicts.json"
#define VERDICT_FILE_FORMAT	"uringtune-hybrid-verdicts"
#define VERDICT_FILE_VERSION	1
/* a full table is ~200 KB: a larger file is not ours */
#define VERDICT_FILE_MAX	(1024 * 1024)
#define VERDICT_SAVE_INTERVAL_S	5

struct verdict_file {
	bool open;			/* dirfd is state_dir's (a zeroed struct: not) */
	int dirfd;
	char path[PATH_MAX];		/* for messages */
	uint64_t saved_ns;		/* last attempt (CLOCK_MONOTONIC) */
	uint64_t errors;		/* writes that failed */
	char error[PATH_MAX + 128];	/* why the last one did, "" if it worked */
};

/*
 * The table as text (verdict_json.c): malloc'ed and NUL-terminated, NULL
 * on ENOMEM; and back: 0, or -EINVAL with one line in @err ("line 3: ..."
 * or "programs[2].classic.reads: expected ..."), @v then left empty.
 * More than HV_MAX_PROGRAMS programs: the first ones are kept, *dropped
 * says how many were not.
 */
char *verdicts_to_json(const struct verdicts *v);
int verdicts_from_json(const char *text, size_t len, struct verdicts *v, size_t *dropped,
		       char *err, size_t errlen);

/* state_dir opened (created if missing, root's alone: safe_dir.h); 0 or -errno, logged */
int verdict_file_open(struct verdict_file *f, const char *state_dir);
/* the file into @v (emptied first); whatever is wrong is logged, the file moved aside */
void verdict_file_load(struct verdict_file *f, struct verdicts *v);
/* write @v now; 0 (not dirty any more) or -errno (f->error says why, logged) */
int verdict_file_save(struct verdict_file *f, struct verdicts *v);
/* write @v if it changed and the last write is VERDICT_SAVE_INTERVAL_S old */
void verdict_file_tick(struct verdict_file *f, struct verdicts *v, uint64_t now_ns);
/* the last write if it changed, and the directory closed */
void verdict_file_close(struct verdict_file *f, struct verdicts *v);

#endif /* UT_VERDICT_FILE_H */
