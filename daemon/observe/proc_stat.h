/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc says of a process that BPF cannot: its start time as a pid's
 * second half. A pid names whichever process has it now; the pid and the
 * start time together name one process (to the clock tick).
 */
#ifndef UT_PROC_STAT_H
#define UT_PROC_STAT_H

#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/stat field 22: start time in clock ticks since boot; 0 or -ESRCH */
int proc_start_ticks(pid_t pid, uint64_t *ticks);

#endif /* UT_PROC_STAT_H */
