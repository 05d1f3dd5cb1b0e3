/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Many fds held in as many processes as the fd limit needs (fdhold,
 * ringhold --idle): a host with hundreds of thousands of open files, or
 * thousands of rings, made from one command.
 */
#ifndef UT_HOLDERS_H
#define UT_HOLDERS_H

#include <stdint.h>
#include <sys/types.h>

/* fds a holder keeps besides what it holds: stdio, the report pipe, slack */
#define HOLDERS_FD_RESERVE	16

/* what one holder process says once it holds its share (one pipe write) */
struct holder_report {
	int32_t pid;
	int32_t err;		/* 0, or the errno that stopped it */
	uint32_t count;		/* fds it holds */
	int32_t first_fd;	/* lowest and highest of them (-1 if none) */
	int32_t last_fd;
};

/*
 * Called in each holder: open n fds (kept open for the holder's life) and
 * fill r's count, first_fd and last_fd; 0 or a negative errno.
 */
typedef int (*holder_fill_fn)(unsigned long n, void *arg, struct holder_report *r);

struct holders {
	pid_t *pids;
	struct holder_report *reports;	/* in the order of pids */
	unsigned int nr;
};

/*
 * Raises this process's RLIMIT_NOFILE to its hard limit (the holders inherit
 * it) and gives what one holder may hold: that limit less HOLDERS_FD_RESERVE.
 * 0 or a negative errno.
 */
int holders_fd_budget(unsigned long *budget);

/*
 * Forks ceil(total / per_proc) holders, each holding per_proc fds (the last
 * one the rest), and waits until every one reported. A holder dies with this
 * process (PR_SET_PDEATHSIG). 0, or a negative errno with every holder gone
 * and the reason on stderr.
 */
int holders_start(struct holders *h, unsigned long total, unsigned long per_proc,
		  holder_fill_fn fill, void *arg);

/* every holder killed and reaped */
void holders_stop(struct holders *h);

#endif /* UT_HOLDERS_H */
