// SPDX-License-Identifier: GPL-2.0-only
/* One tuning daemon per host, one daemon per state directory: see instance.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "atomic_file.h"
#include "clock.h"
#include "instance.h"
#include "io_util.h"

void instance_init(struct instance *in, const char *tune_path)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->tune_path, sizeof(in->tune_path), "%s", tune_path);
	in->tune.fd = -1;
	in->state.fd = -1;
	in->page.fd = -1;
	in->self = getpid();
	in->now = now_ns;
}

pid_t instance_locks_line(const char *line, unsigned int major, unsigned int minor,
			  uint64_t ino)
{
	char kind[16], mode[16], access[16];
	unsigned int maj, min;
	unsigned long long i;
	int pid;

	/* "1: FLOCK  ADVISORY  WRITE 4242 00:19:1234 0 EOF"; waiters have "->" first */
	if (sscanf(line, "%*d: %15s %15s %15s %d %x:%x:%llu", kind, mode, access, &pid, &maj,
		   &min, &i) != 7)
		return 0;
	if (strcmp(kind, "FLOCK") || strcmp(access, "WRITE") || pid <= 0)
		return 0;
	return maj == major && min == minor && i == ino ? pid : 0;
}

/* the pid holding an exclusive flock on that file, 0 if none or unknown */
static pid_t locks_holder(const struct stat *st)
{
	char *line = NULL;
	size_t cap = 0;
	pid_t pid = 0;
	FILE *f;

	f = fopen("/proc/locks", "re");
	if (!f)
		return 0;
	while (!pid && getline(&line, &cap, f) > 0)
		pid = instance_locks_line(line, major(st->st_dev), minor(st->st_dev), st->st_ino);
	free(line);
	fclose(f);
	return pid;
}

/* the pid the holder wrote, when /proc/locks does not say (0: unknown) */
static pid_t written_pid(int fd)
{
	char buf[24];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

/*
 * Open the lock file @path (created 0600: nobody else may open it, or they
 * could hold it) and lock it without waiting; it then holds our pid and
 * @note (a line, or NULL). 0 when held; -EWOULDBLOCK when another process
 * holds it (*holder: its pid, 0 if unknown); else -errno and *what the step
 * that failed.
 */
static int lock_path(struct instance_lock *l, const char *path, const char *note,
		     pid_t *holder, const char **what)
{
	char pid[PATH_MAX + 32];
	struct stat st;
	int fd, ret;

	*what = "cannot open";
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
	if (fd < 0)
		return -errno;
	*what = "expected a regular file owned by this daemon's user";
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	*what = "cannot lock";
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = -errno;
		if (ret == -EWOULDBLOCK) {
			*holder = locks_holder(&st);
			if (!*holder)
				*holder = written_pid(fd);
		}
		close(fd);
		return ret;
	}
	/* for people (cat; the daemons read /proc/locks), and a note for other daemons */
	snprintf(pid, sizeof(pid), "%d\n%s%s", (int)getpid(), note ? note : "", note ? "\n" : "");
	if (ftruncate(fd, 0) == 0)
		(void)!pwrite(fd, pid, strlen(pid), 0);
	l->fd = fd;
	return 0;
}

/* "pid 4242", or "pid unknown" (an exiting holder, /proc/locks unreadable) */
static const char *pid_str(pid_t pid, char *buf, size_t len)
{
	if (pid > 0)
		snprintf(buf, len, "pid %d", (int)pid);
	else
		snprintf(buf, len, "pid unknown");
	return buf;
}

/*
 * What a daemon owns besides the tuning lock: @what @name ("state directory
 * /var/lib/uringtune") is locked through @path; @key is the setting to change.
 */
struct claim {
	const char *what, *name, *key;
	const char *path;
};

static int claim(struct instance_lock *l, const struct claim *c, char *err, size_t errlen)
{
	const char *step;
	pid_t holder = 0;
	char who[32];
	int ret;

	ret = lock_path(l, c->path, NULL, &holder, &step);
	if (ret == -EWOULDBLOCK) {
		snprintf(err, errlen, "%s %s is in use by another uringtuned (%s); two daemons "
			 "cannot share it: stop that one first, or give this one its own %s",
			 c->what, c->name, pid_str(holder, who, sizeof(who)), c->key);
		return -EBUSY;
	}
	if (ret)
		snprintf(err, errlen, "%s %s: lock %s: %s: %s", c->what, c->name, c->path, step,
			 strerror(-ret));
	return ret;
}

int instance_claim_tuning(struct instance *in, const char *state_dir, char *err, size_t errlen)
{
	const char *what;
	pid_t holder = 0;
	char who[32];
	int ret;

	/* 0755 like the sockets' directories: the unit's RuntimeDirectory is 0711 */
	ret = mkdir_parents(in->tune_path);
	if (ret) {
		snprintf(err, errlen, "tuning lock %s: cannot create its directory: %s",
			 in->tune_path, strerror(-ret));
		return ret;
	}
	/* the state directory, where daemons that do not tune find our journal */
	ret = lock_path(&in->tune, in->tune_path, state_dir, &holder, &what);
	if (ret == -EWOULDBLOCK) {
		snprintf(err, errlen, "another uringtuned (%s) is tuning this host (%s); one "
			 "daemon per host tunes: stop that one first, or start this one with "
			 "--mode observe and paths of its own", pid_str(holder, who, sizeof(who)),
			 in->tune_path);
		return -EBUSY;
	}
	if (ret)
		snprintf(err, errlen, "tuning lock %s: %s: %s", in->tune_path, what,
			 strerror(-ret));
	return ret;
}

/*
 * mkdir STATE_DIR 0700 (parents 0755) unless it exists. A directory created
 * is made durable in its parent: a journal in a directory a crash forgets is lost.
 */
static int make_state_dir(const char *dir)
{
	char parent[PATH_MAX];
	int ret = mkdir_parents(dir);

	if (ret)
		return ret;
	if (mkdir(dir, 0700))
		return errno == EEXIST ? 0 : -errno;
	snprintf(parent, sizeof(parent), "%s", dir);
	return fsync_dir(dirname(parent));
}

int instance_claim_state(struct instance *in, const char *state_dir, char *err, size_t errlen)
{
	char dir[PATH_MAX], path[PATH_MAX + 8];
	size_t len = strlen(state_dir);
	int ret;

	/* "/var/lib/uringtune/" and "/var/lib/uringtune" are one directory */
	while (len > 1 && state_dir[len - 1] == '/')
		len--;
	if (!len || len >= sizeof(dir)) {
		snprintf(err, errlen, "state directory '%s': expected a path", state_dir);
		return -EINVAL;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)len, state_dir);
	snprintf(path, sizeof(path), "%s/" INSTANCE_STATE_LOCK, strcmp(dir, "/") ? dir : "");
	ret = make_state_dir(dir);
	if (ret) {
		snprintf(err, errlen, "%s: cannot create: %s", dir, strerror(-ret));
		return ret;
	}
	return claim(&in->state, &(struct claim){
		.what = "state directory", .name = dir, .key = "state_dir", .path = path,
	}, err, errlen);
}

int instance_claim_page(struct instance *in, const char *page_path, char *err, size_t errlen)
{
	char path[PATH_MAX + 8];
	int ret;

	snprintf(path, sizeof(path), "%s.lock", page_path);
	/*
	 * No lock where none can be made (a read-only directory): no page can be
	 * made there either; agents get "no", and the page's own open says why
	 */
	if (mkdir_parents(path))
		return 0;
	ret = claim(&in->page, &(struct claim){
		.what = "agent page", .name = page_path, .key = "[agent] page", .path = path,
	}, err, errlen);
	return ret == -EBUSY ? ret : 0;
}

static void release(struct instance_lock *l)
{
	if (l->fd < 0)
		return;
	/* still held: nobody else wrote since */
	(void)!ftruncate(l->fd, 0);
	close(l->fd);
	l->fd = -1;
}

void instance_release(struct instance *in)
{
	free(in->peer.entries);
	memset(&in->peer, 0, sizeof(in->peer));
	release(&in->page);
	release(&in->state);
	release(&in->tune);
}

pid_t instance_tuner(struct instance *in)
{
	uint64_t now;
	struct stat st;

	if (in->tune.fd >= 0)
		return in->self;
	now = in->now();
	if (in->tuner_at_ns && now - in->tuner_at_ns < INSTANCE_TUNER_KEEP_NS)
		return in->tuner;
	in->tuner = stat(in->tune_path, &st) ? 0 : locks_holder(&st);
	in->tuner_at_ns = now;
	return in->tuner;
}
