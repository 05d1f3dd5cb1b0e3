// SPDX-License-Identifier: GPL-2.0-only
/*
 * [select]: exclude rules first (comm, uid, cgroup, in that order, so why
 * names the first that matched), then include rules, any of which selects.
 * A process's uid and cgroup come from /proc, read when a ring is seen.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "select.h"

bool select_comm_in(const char (*list)[16], unsigned int n, const char *comm)
{
	for (unsigned int i = 0; comm && i < n; i++)
		if (strncmp(list[i], comm, sizeof(list[i])) == 0)
			return true;
	return false;
}

static bool uid_in(const uid_t *list, unsigned int n, uid_t uid)
{
	for (unsigned int i = 0; i < n; i++)
		if (list[i] == uid)
			return true;
	return false;
}

/* @cgroup is @rule or below it: "/a" holds "/a" and "/a/b", not "/ab" */
static bool cgroup_in(const char (*list)[UT_CGROUP_PATH_MAX], unsigned int n,
		      const char *cgroup)
{
	for (unsigned int i = 0; cgroup && i < n; i++) {
		size_t len = strlen(list[i]);

		/* rules are normalized: only "/" itself ends in '/' */
		if (len == 1 && cgroup[0] == '/')
			return true;
		if (strncmp(cgroup, list[i], len) == 0 &&
		    (cgroup[len] == '\0' || cgroup[len] == '/'))
			return true;
	}
	return false;
}

bool select_matches(const struct ut_select *sel, const char *comm, uid_t uid,
		    const char *cgroup, const char **why)
{
	const char *unused;

	if (!why)
		why = &unused;
	if (select_comm_in(sel->exclude_comm, sel->n_exclude_comm, comm)) {
		*why = "excluded by exclude_comm";
		return false;
	}
	if (uid_in(sel->exclude_uid, sel->n_exclude_uid, uid)) {
		*why = "excluded by exclude_uid";
		return false;
	}
	if (cgroup_in(sel->exclude_cgroup, sel->n_exclude_cgroup, cgroup)) {
		*why = "excluded by exclude_cgroup";
		return false;
	}
	if ((sel->n_include_comm || sel->n_include_uid || sel->n_include_cgroup) &&
	    !select_comm_in(sel->include_comm, sel->n_include_comm, comm) &&
	    !uid_in(sel->include_uid, sel->n_include_uid, uid) &&
	    !cgroup_in(sel->include_cgroup, sel->n_include_cgroup, cgroup)) {
		*why = "matches no include rule";
		return false;
	}
	*why = "";
	return true;
}

/* status's "Uid:" line holds real, effective, saved and fs uids: the effective one */
static int read_uid(const char *proc_root, pid_t pid, uid_t *uid)
{
	char path[PATH_MAX], line[512];
	unsigned int ruid, euid;
	int ret = -ESRCH;
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/status", proc_root, pid) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid:\t%u\t%u", &ruid, &euid) == 2) {
			*uid = euid;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* the cgroup v2 path: the "0::" line of the cgroup file, if there is one that fits */
static void read_cgroup(const char *proc_root, pid_t pid, char *cgroup, size_t len)
{
	char path[PATH_MAX], line[512];
	FILE *f;

	if ((size_t)snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, pid) >=
	    sizeof(path))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "0::", 3) == 0) {
			size_t n = strcspn(line + 3, "\n");

			/* longer than any rule can name: leave it unknown */
			if (n < len) {
				memcpy(cgroup, line + 3, n);
				cgroup[n] = '\0';
			}
			break;
		}
	fclose(f);
}

int select_read_identity(const char *proc_root, pid_t pid, uid_t *uid,
			 char *cgroup, size_t len)
{
	int ret;

	cgroup[0] = '\0';
	ret = read_uid(proc_root, pid, uid);
	if (ret)
		return ret;
	read_cgroup(proc_root, pid, cgroup, len);
	return 0;
}

bool select_process(const struct ut_select *sel, const char *proc_root, pid_t pid,
		    const char *comm, const char **why)
{
	char cgroup[UT_CGROUP_PATH_MAX];
	uid_t uid;

	if (select_read_identity(proc_root, pid, &uid, cgroup, sizeof(cgroup))) {
		if (why)
			*why = "the process is gone";
		return false;
	}
	return select_matches(sel, comm, uid, cgroup[0] ? cgroup : NULL, why);
}
