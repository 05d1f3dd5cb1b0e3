/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc says of a process that BPF cannot: its start time as a pid's
 * second half. A pid names whichever process has it now; the pid and the
 * start time together name one process (to the clock tick).
 */
#ifndef UT_PROC_STAT_H
#define UT_PROC_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/stat field 22: start time in clock ticks since boot; 0 or -ESRCH */
int proc_start_ticks(pid_t pid, uint64_t *ticks);
/*
 * @pid is still the process that started at @start_boottime (ns); false if
 * /proc has no such pid; 0 (not known): true for any live @pid
 */
bool proc_same_start(pid_t pid, uint64_t start_boottime);
/* the inode of the file /proc/PID/fd/FD, 0 if none or not ours to see */
uint64_t proc_fd_ino(pid_t pid, int fd);
/* /proc/PID/comm into comm (16 bytes); -errno */
int proc_comm(pid_t pid, char *comm, size_t len);

#endif /* UT_PROC_STAT_H */
