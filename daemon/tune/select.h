/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Does [select] pick this process: the rules config_load() parsed (struct
 * ut_select) matched against a process's name, uid and cgroup, the latter
 * two read from /proc. The match is pure; the reading takes the proc root,
 * so tests hand it a fixture directory.
 */
#ifndef UT_SELECT_H
#define UT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"

/*
 * Is a process with this comm, uid and cgroup (v2 path, "/..." as in
 * /proc/PID/cgroup's "0::" line; NULL if unknown) selected? When not, *why
 * is a static phrase naming the rule ("excluded by exclude_comm",
 * "excluded by exclude_uid", "excluded by exclude_cgroup", "matches no
 * include rule"). @why may be NULL.
 */
bool select_matches(const struct ut_select *sel, const char *comm, uid_t uid,
		    const char *cgroup, const char **why);

/* is @comm in a [select] or [agent] list of process names */
bool select_comm_in(const char (*list)[16], unsigned int n, const char *comm);

/*
 * @proc_root/PID/status's effective uid and @proc_root/PID/cgroup's v2 path
 * ("" when unknown: no such file, no "0::" line, or longer than @len).
 * -ESRCH when the status file or its Uid line is missing: the process is gone.
 */
int select_read_identity(const char *proc_root, pid_t pid, uid_t *uid,
			 char *cgroup, size_t len);

/*
 * select_matches() for process @pid, its uid and cgroup read under
 * @proc_root ("/proc"). A process that is gone is not selected, *why "the
 * process is gone".
 */
bool select_process(const struct ut_select *sel, const char *proc_root, pid_t pid,
		    const char *comm, const char **why);

#endif /* UT_SELECT_H */
