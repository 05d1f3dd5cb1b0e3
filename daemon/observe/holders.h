/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes holding rings, watched without polling: a pidfd each in the
 * event loop (readable once the process has exited and closed its files),
 * and an entry in napi_trace's "holders" map, so that their forks are
 * reported with the child's pid (the children that may inherit a ring).
 * Counted by rings: a process is watched while the registry says it holds
 * one (registry_holder_cb).
 */
#ifndef UT_HOLDERS_H
#define UT_HOLDERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring.h"

struct sd_event;
struct sd_event_source;
struct ut_trace;

/* children remembered per holder, newest replacing oldest */
#define HOLDER_KIDS	8

struct holder_kid {
	pid_t pid;
	uint64_t start_boottime;
};

struct holders;

struct holder_proc {
	struct holders *hs;
	pid_t pid;
	uint64_t start_boottime;
	unsigned int rings;		/* registry rings it holds */
	int pidfd;			/* -1: not watched (exited, or no fd to spare) */
	struct sd_event_source *src;
	bool exited;
	struct holder_kid kids[HOLDER_KIDS];
	unsigned int n_kids;		/* forks seen; kids[n % HOLDER_KIDS] is next */
	struct holder_proc *next;	/* hash chain */
};

typedef void (*holders_exit_cb)(void *arg, pid_t pid);

struct holders {
	struct holder_proc **buckets;
	size_t n_buckets, count;
	struct sd_event *event;		/* NULL: no pidfds (unit tests) */
	struct ut_trace *trace;		/* NULL: no fork reports */
	holders_exit_cb on_exit;
	void *arg;
	pid_t *exited;			/* found exited outside the loop's callbacks */
	size_t n_exited, cap_exited;
	uint64_t unwatched;		/* pidfd_open failed (EMFILE, ...) */
	uint64_t forks;			/* fork reports taken */
};

int holders_init(struct holders *hs, holders_exit_cb on_exit, void *arg);
void holders_fini(struct holders *hs);
/* start watching with pidfds in @event, and reporting forks through @trace */
void holders_attach(struct holders *hs, struct sd_event *event, struct ut_trace *trace);

/* registry_holder_cb: @arg is the struct holders */
void holders_on_holder(void *arg, pid_t old_pid, const struct ut_holder *now);

struct holder_proc *holders_find(const struct holders *hs, pid_t pid);
/* a fork of a watched process (UT_EV_HOLDER_FORK) */
void holders_forked(struct holders *hs, pid_t parent, pid_t child, uint64_t start_boottime);
/*
 * Exits found while adding watches (the pid was already gone or reused):
 * handed to on_exit now, from the loop, not from inside the registry.
 */
void holders_flush_exits(struct holders *hs);

#endif /* UT_HOLDERS_H */
