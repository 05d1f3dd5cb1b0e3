/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which uringtuned may run, and which may tune: two flock(2)s, taken before
 * anything is touched (journal, sockets, agent page, textfile).
 *
 * - The tuning lock, INSTANCE_TUNE_LOCK: one fixed path for the whole host,
 *   so that two tune-mode daemons with different configurations still meet.
 *   Only a tune-mode daemon takes it; a second one is refused.
 * - The state lock, STATE_DIR/lock: one daemon of any mode per journal.
 * - The page lock, PAGE.lock beside the agent's policy page: one daemon per
 *   page (a second one would settle the first one's agent rings).
 *
 * Each holder writes its pid into its file, for people; the daemons trust
 * /proc/locks, which names the live holder of a lock (a pid in a file may be
 * a dead daemon's). A lock dies with its process, SIGKILL included: nothing
 * is ever stale.
 *
 * The lock's holder also tells uringtune's own register calls from an
 * application's across daemons: a call from the pid that holds the tuning
 * lock is uringtune's, and so is a ring that daemon has journaled.
 */
#ifndef UT_INSTANCE_H
#define UT_INSTANCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Not configurable: a second daemon must find it whatever its configuration.
 * /run/uringtune is the unit's RuntimeDirectory (RuntimeDirectoryPreserve=yes:
 * systemd never removes it under a daemon started by hand).
 */
#define INSTANCE_TUNE_LOCK	"/run/uringtune/tune.lock"
#define INSTANCE_STATE_LOCK	"lock"	/* in the state directory */
/* instance_tuner() of a daemon that does not tune reads /proc/locks again after this */
#define INSTANCE_TUNER_KEEP_NS	(100 * 1000000ULL)

struct instance_lock {
	int fd;				/* -1: not held */
};

struct journal_entry;

/* the tuning daemon's journal as a daemon that does not tune last read it */
struct instance_peer {
	pid_t pid;			/* the tuning daemon it is of */
	uint64_t ino, size;		/* its file (a write renames a new one over it) */
	int64_t mtime_ns;
	bool known;			/* read whole and understood */
	struct journal_entry *entries;
	size_t n;
};

struct instance {
	char tune_path[PATH_MAX];	/* INSTANCE_TUNE_LOCK (tests: another) */
	struct instance_lock tune;
	struct instance_lock state;
	struct instance_lock page;
	pid_t self;
	/* CLOCK_MONOTONIC ns (instance_init: now_ns(); tests: a fake clock) */
	uint64_t (*now)(void);
	/* instance_tuner() of a daemon that does not tune, kept briefly */
	pid_t tuner;
	uint64_t tuner_at_ns;		/* in->now() when read; 0: never */
	struct instance_peer peer;	/* instance_peer.c */
};

void instance_init(struct instance *in, const char *tune_path);

/*
 * Take the host's tuning lock; the file then says "PID\nSTATE_DIR\n". -EBUSY
 * if another daemon holds it (err: one line naming its pid and what to do);
 * another -errno if the lock cannot be taken at all (a daemon that cannot
 * know it is alone must not tune).
 */
int instance_claim_tuning(struct instance *in, const char *state_dir, char *err, size_t errlen);

/* Take STATE_DIR/lock, creating STATE_DIR (0700) if needed; the same errors. */
int instance_claim_state(struct instance *in, const char *state_dir, char *err, size_t errlen);

/*
 * Take PAGE.lock beside the agent's policy page: -EBUSY as above; 0 also when
 * the lock file cannot be made (then neither can the page).
 */
int instance_claim_page(struct instance *in, const char *page_path, char *err, size_t errlen);

/* let go of them all (a process that exits lets go anyway) */
void instance_release(struct instance *in);

/*
 * The pid of the daemon tuning this host: self if this one does, 0 if none
 * (or if that cannot be read). Reads /proc/locks unless this daemon tunes;
 * an answer is kept INSTANCE_TUNER_KEEP_NS by in->now(): read again at
 * exactly that age.
 */
pid_t instance_tuner(struct instance *in);

/*
 * Has the daemon tuning this host (not this one) journaled that ring, i.e.
 * changed it? True also when its journal cannot be read: then nobody can
 * tell. False when no other daemon tunes. (instance_peer.c)
 */
bool instance_tuner_journaled(struct instance *in, pid_t pid, int fd, uint64_t ino,
			      uint64_t start_boottime);

/*
 * One line of /proc/locks: the pid holding an exclusive flock on the file
 * (major:minor:inode), or 0 if the line is about anything else (another
 * file, a shared or POSIX lock, a waiter).
 */
pid_t instance_locks_line(const char *line, unsigned int major, unsigned int minor,
			  uint64_t ino);

#endif /* UT_INSTANCE_H */
