/* SPDX-License-Identifier: GPL-2.0-only */
/* SIGHUP: the configuration read again, swapped in if valid. */
#ifndef UT_RELOAD_H
#define UT_RELOAD_H

struct ut_daemon;

/*
 * Read the file again; swap it in if valid (what only a start can change
 * keeps its running value, with a warning), else keep the running one.
 * Either way noted in d->reload. Rings the new [select] no longer picks
 * are restored. 0, or -EINVAL (refused).
 */
int daemon_reload(struct ut_daemon *d);

#endif /* UT_RELOAD_H */
