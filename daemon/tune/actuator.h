/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The actuator: changes one ring's NAPI settings from outside its process,
 * through io_uring_register(2) on a pidfd_getfd(2) copy of the ring's fd,
 * closed at once (the copy keeps the ring alive). Before any call it proves
 * the fd is still the same ring: the process start time, then the inode of
 * the duplicated file.
 */
#ifndef UT_ACTUATOR_H
#define UT_ACTUATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "journal.h"
#include "tuner.h"

struct ring_target {
	pid_t pid;
	uint64_t start_boottime;	/* ns since boot, 0 = do not check */
	int fd;
	uint64_t ino;			/* 0 = check it is an io_uring file only */
};

/*
 * Give the ring setting s. Returns 0, or a negative errno with err set:
 *   -ESRCH   the process is gone (or its pid now names another process)
 *   -ESTALE  the fd no longer holds that ring
 *   -EEXIST  SINGLE_ISSUER ring: only its submitter may register
 *   -EINVAL  refused (IOPOLL ring), -EPERM no ptrace rights, others as is
 * On failure part-way (static IDs) the ring is left with NAPI switched off.
 */
int actuator_apply(const struct ring_target *t, const struct tuner_setting *s,
		   char *err, size_t errlen);

/* Put back the settings a journal entry recorded. Same errors. */
int actuator_restore(const struct ring_target *t, const struct journal_entry *orig,
		     char *err, size_t errlen);

/* the target a journal entry names */
void actuator_target_of(const struct journal_entry *e, struct ring_target *t);

#endif /* UT_ACTUATOR_H */
