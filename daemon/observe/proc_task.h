/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What /proc says of one thread: the CPU time it has run (schedstat, ns).
 * For the IOPOLL rings' measurement windows (daemon/hybrid/iopoll_window.h).
 */
#ifndef UT_PROC_TASK_H
#define UT_PROC_TASK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/TGID/task/TID/schedstat's first field: ns the thread ran; -errno */
int proc_task_cpu_ns(pid_t tgid, pid_t tid, uint64_t *ns);

#endif /* UT_PROC_TASK_H */
