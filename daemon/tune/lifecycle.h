/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A ring's tuning lifecycle, the only writer of its tuning state (struct
 * ring_tune): which rings uringtune takes, the journal written before every
 * first change, the tuner's decisions carried out through a backend, an
 * application taking a ring over, and the way back (stop, reset, crash
 * recovery). The decisions are tuner.c's; how a setting reaches the kernel
 * is the backend's (tune_backend.h).
 *
 *   found ──> queued ──flush──> staged ──commit──> journaled ──apply──> taken ──tick──> decide/apply
 *                                   │ commit failed: entry forgotten, ring not tuned (retried)
 *                                                      │ refused: entry dropped, ring marked refused
 *
 * The journal reaches the disk through a committer (journal_commit.h), off
 * the event loop in the daemon: a flush stages the entries of the rings it
 * takes and hands a snapshot to the committer; when that commit is done
 * (lifecycle_journal_done()), every ring that waited for it is checked again
 * (same ring, still to be taken) and changed. What is staged meanwhile goes
 * into the next commit. Entries dropped (restored, gone, app's) need no
 * wait: they ride the next commit. `uringtune set` on a ring without an
 * entry on disk, a stop, and the start's settling wait for their commit.
 *   taken ──app registers itself──> app (entry dropped, nothing undone)
 *   taken ──stop / reset──> restored (entry dropped)
 *   start after a crash: entry ──ring gone──> dropped
 *                              ──tune mode, still on──> re-adopted
 *                              ──otherwise──> restored
 */
#ifndef UT_LIFECYCLE_H
#define UT_LIFECYCLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "journal.h"
#include "journal_commit.h"
#include "registry.h"
#include "tune_backend.h"
#include "tuner.h"

/* what the lifecycle asks of the world, injectable for tests */
struct lifecycle_env {
	uint64_t (*now)(void);		/* CLOCK_MONOTONIC ns, the BPF clock */
	/* [select]: may uringtune tune this process? If not, *why names the rule */
	bool (*selects)(void *arg, pid_t pid, const char *comm, const char **why);
	/*
	 * The pid of the daemon tuning this host (this one's if it tunes), 0 if
	 * none: its register calls are uringtune's, never an application's,
	 * whichever daemon sees them. NULL: none.
	 */
	pid_t (*tuner)(void *arg);
	/* has the daemon tuning this host (not this one) changed that ring? NULL: no */
	bool (*tuned_elsewhere)(void *arg, const struct ut_ring *ring);
	void *arg;
};

/* the journal's commits, for status and metrics (lifecycle_commit_stats()) */
struct lifecycle_commit_stats {
	uint64_t commits;		/* snapshots written */
	uint64_t failed;		/* ... that could not be */
	uint64_t failed_in_row;		/* ... since the last that could */
	uint64_t rings;			/* first changes that waited for a commit */
	uint64_t write_last_ns;		/* the last write: temp file to directory fsync */
	uint64_t write_max_ns;		/* ... and the longest */
	uint64_t wait_max_ns;		/* the longest a ring waited, staged to changed */
	size_t waiting;			/* rings waiting for a commit now */
};

struct lc_wait;

struct lifecycle {
	struct ut_registry *reg;
	const struct ut_config *cfg;	/* mode and [napi]; swapped in place on reload */
	pid_t self_pid;			/* our own register calls are not an app's */
	bool napi_supported;
	bool napi_no_static;		/* no static NAPI ID lists (before 6.13) */
	struct lifecycle_env env;
	struct tune_backend pidfd;	/* from outside, journaled */
	struct tune_backend agent;	/* through the ring's agent (name NULL: none) */

	struct journal journal;
	/* how the journal reaches the disk: injected (the daemon's thread), else own_commit */
	struct journal_committer *commit;
	struct journal_committer own_commit;	/* synchronous */
	struct journal_commit *inflight;	/* submitted, not reaped */
	bool commit_failed;		/* the last one did: tried again at the next tick */
	struct lc_wait *waiting;	/* rings whose first change waits for a commit */
	size_t n_waiting, cap_waiting;
	struct lifecycle_commit_stats commit_stats;
	bool ready;			/* journal settled: rings may be changed */
	uint64_t *take_queue;		/* rings to take at the next flush */
	size_t n_take, cap_take;
	/* rings found since the last flush: a burst of them gets one summary line */
	uint64_t *found;
	size_t n_found, cap_found;
	bool quiet;			/* in a burst: per-ring lines at debug */
	bool burst_waits;		/* a burst's line counted rings still waiting: theirs too */
	struct journal_entry *gone;	/* entries of gone rings, to drop in one write */
	uint32_t select_gen;		/* bumped by each reload: [select] to be asked again */
	size_t n_gone, cap_gone;

	/* counters, for status and metrics */
	uint64_t actions_ok;		/* changes the kernel accepted */
	uint64_t actions_failed;	/* ... and refused */
	uint64_t actions_vanished;	/* ... whose ring went away first (not a failure) */
	uint64_t agent_applied;		/* agent decisions seen applied */
};

/*
 * Open the journal under cfg->state_dir; err says why not. Commits are
 * written in place until lc->commit is set (before the first flush).
 */
int lifecycle_init(struct lifecycle *lc, struct ut_registry *reg, const struct ut_config *cfg,
		   const struct lifecycle_env *env, char *err, size_t errlen);
void lifecycle_fini(struct lifecycle *lc);

/*
 * Before anything else changes a ring: every journal entry left by a
 * previous run is restored (observe mode, or ring no longer ours) or
 * re-adopted (tune mode), or dropped if its ring is gone. Needs a swept
 * registry. Enables taking rings.
 */
void lifecycle_settle_journal(struct lifecycle *lc);

/*
 * A ring appeared: from a create event, or found by a sweep (@swept: NAPI
 * already on means its application switched it on). Queued if eligible.
 */
void lifecycle_ring_found(struct lifecycle *lc, struct ut_ring *ring, bool swept);
/* queue the ring if it is eligible (also every tick for rings not ours) */
void lifecycle_ring_seen(struct lifecycle *lc, struct ut_ring *ring);
/*
 * Take every queued ring: one journal commit for the burst, then the
 * backend, at once (synchronous committer) or once the commit is done.
 */
void lifecycle_flush(struct lifecycle *lc);
/* a commit may be done (the committer's fd was readable): act on it, start the next */
void lifecycle_journal_done(struct lifecycle *lc);
void lifecycle_commit_stats(const struct lifecycle *lc, struct lifecycle_commit_stats *out);
/*
 * The ring is gone (closed, process exited): its journal entry goes too, at
 * the next lifecycle_drop_gone() (a sweep that finds 10 000 rings gone writes
 * the journal once, not 10 000 times).
 */
void lifecycle_ring_gone(struct lifecycle *lc, const struct ut_ring *ring);
/* drop the journal entries of the rings gone since the last call, in one write */
void lifecycle_drop_gone(struct lifecycle *lc);

/*
 * A NAPI (un)register call on a ring (BPF event), after the registry noted
 * the new state. @agent_setup: the ring's process is setting a ring up
 * through its agent with NAPI in the decision. Returns true when the call
 * was the application's own and the ring is now the application's.
 */
bool lifecycle_on_register(struct lifecycle *lc, struct ut_ring *ring, const struct ut_event *ev,
			   bool agent_setup);
/* the application manages NAPI on that ring itself now: forget it, undo nothing */
void lifecycle_app_took_over(struct lifecycle *lc, struct ut_ring *ring);

/*
 * What the kernel showed of a ring's setup through its agent (never what
 * the agent reported): HYBRID_IOPOLL in the ring's flags as the daemon
 * decided, and the register call BPF saw from its process during the setup.
 */
struct agent_setup_result {
	bool hybrid_added;
	bool napi_tried;
	int napi_ret;
	struct tuner_setting napi_setting;
};
/* a ring set up through its agent is attached to its slot */
void lifecycle_agent_attached(struct lifecycle *lc, struct ut_ring *ring,
			      const struct agent_setup_result *r);
/*
 * The program says (APP_NAPI, from the ring's own process) it registers NAPI
 * itself: a register call of its process already seen and taken for the
 * agent's (it left the decided state, none pending) was the program's, and
 * the ring is the application's. With no such call, nothing: the next one
 * decides (lifecycle_on_register()).
 */
void lifecycle_agent_app_napi(struct lifecycle *lc, struct ut_ring *ring);
/* a previous run's agent ring with a NAPI decision: re-adopt, switch on again, or off */
void lifecycle_agent_settle(struct lifecycle *lc, struct ut_ring *ring);

/* every tick, after the statistics were refreshed */
void lifecycle_tick(struct lifecycle *lc);

/*
 * The daemon stops: agent rings get NAPI off (at their next call), every
 * journaled ring is put back. Returns how many could not be.
 */
int lifecycle_stop(struct lifecycle *lc);
/* put every journaled ring back as it was; returns how many could not be */
int lifecycle_restore_all(struct lifecycle *lc);

/*
 * `uringtune set`: pin a ring to a setting. A ring [select] does not pick is
 * refused (err names the rule) unless @force, which is logged and keeps the
 * pin through reloads. `uringtune reset`: restore (pid -1: all).
 */
int lifecycle_set(struct lifecycle *lc, pid_t pid, int fd, const struct tuner_setting *s,
		  bool force, char *err, size_t errlen);
int lifecycle_reset(struct lifecycle *lc, pid_t pid, int fd, char *err, size_t errlen);
/*
 * After a reload: every ring uringtune tuned that [select] no longer picks
 * is put back as it was (journaled rings through the journal, agent rings
 * NAPI off through their slot), but for rings pinned with `set --force`.
 * Logs one line when it released or kept any.
 */
void lifecycle_reselect(struct lifecycle *lc);
/* is that ring changed through its agent (so later, at its next call)? */
bool lifecycle_via_agent(const struct lifecycle *lc, pid_t pid, int fd);

#endif /* UT_LIFECYCLE_H */
