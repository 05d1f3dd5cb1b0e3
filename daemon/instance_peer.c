// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the daemon tuning this host has journaled, read by a daemon that does
 * not tune (an observe daemon beside the service): a ring found with NAPI on
 * is its application's, unless the tuning daemon changed it. Read only: that
 * daemon's files are never written, its leftovers never removed.
 *
 * Where its journal is comes from its lock file ("PID\nSTATE_DIR\n"), trusted
 * only while that pid holds the lock. The entries are read again when the
 * file changes (a journal write is a rename: a new inode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instance.h"
#include "journal.h"

/* the state directory in the tuning lock file, if @tuner wrote it; 0 or -errno */
static int tuner_state_dir(const struct instance *in, pid_t tuner, char *dir, size_t len)
{
	char buf[PATH_MAX + 32], *nl;
	ssize_t n;
	int fd;

	fd = open(in->tune_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENODATA;
	buf[n] = '\0';
	/* a file half rewritten, or another holder's: not this one's word */
	if (strtol(buf, &nl, 10) != tuner || *nl != '\n')
		return -ESTALE;
	n = (ssize_t)strcspn(nl + 1, "\n");
	if (!n || nl[1 + n] != '\n' || (size_t)n >= len)
		return -ENODATA;
	snprintf(dir, len, "%.*s", (int)n, nl + 1);
	return 0;
}

/* every entry of the journal at @path into in->peer; 0 or -errno */
static int load(struct instance *in, const char *path)
{
	struct journal_parser p = { .path = path };
	struct journal_entry e, *es;
	char *line = NULL, perr[64];
	size_t cap = 0;
	ssize_t len;
	int ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	p.err = perr;
	p.errlen = sizeof(perr);
	while (!ret && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		p.lineno++;
		ret = journal_parse_line(&p, line, (size_t)len, &e);
		if (ret <= 0)
			continue;
		ret = 0;
		es = reallocarray(in->peer.entries, in->peer.n + 1, sizeof(*es));
		if (!es) {
			ret = -ENOMEM;
			break;
		}
		in->peer.entries = es;
		es[in->peer.n++] = e;
	}
	free(line);
	fclose(f);
	return ret;
}

/* in->peer as the tuning daemon's journal is now; 0, or -errno: cannot tell */
static int refresh(struct instance *in, pid_t tuner)
{
	struct instance_peer *pr = &in->peer;
	char dir[PATH_MAX], path[PATH_MAX + 16];
	struct stat st;
	int ret;

	ret = tuner_state_dir(in, tuner, dir, sizeof(dir));
	if (ret)
		return ret;
	/* not there (yet, or not in our mount namespace): cannot tell */
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -ENOENT;
	memset(&st, 0, sizeof(st));
	snprintf(path, sizeof(path), "%s/" JOURNAL_NAME, dir);
	if (stat(path, &st) && errno != ENOENT)
		return -errno;
	if (pr->known && pr->pid == tuner && pr->ino == st.st_ino && pr->size == (uint64_t)st.st_size &&
	    pr->mtime_ns == st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec)
		return 0;
	pr->known = false;
	pr->n = 0;
	ret = load(in, path);
	if (ret)
		return ret;
	pr->pid = tuner;
	pr->ino = st.st_ino;
	pr->size = (uint64_t)st.st_size;
	pr->mtime_ns = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	pr->known = true;
	return 0;
}

bool instance_tuner_journaled(struct instance *in, pid_t pid, int fd, uint64_t ino,
			      uint64_t start_boottime)
{
	pid_t tuner = instance_tuner(in);

	if (!tuner || tuner == in->self)
		return false;
	/* its journal unreadable: that daemon may have changed the ring */
	if (refresh(in, tuner))
		return true;
	for (size_t i = 0; i < in->peer.n; i++) {
		const struct journal_entry *e = &in->peer.entries[i];

		if (e->pid == pid && e->fd == fd && (!e->ino || e->ino == ino) &&
		    (!e->start_boottime || e->start_boottime == start_boottime))
			return true;
	}
	return false;
}
