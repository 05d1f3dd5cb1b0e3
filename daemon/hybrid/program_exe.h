/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A program as the verdicts know it is its name (comm) and its executable:
 * the path /proc/PID/exe links to. "" when the kernel will not say (the
 * process is gone, or a kernel thread). A binary replaced on disk since the
 * process started is still the same program: " (deleted)" is dropped.
 */
#ifndef UT_PROGRAM_EXE_H
#define UT_PROGRAM_EXE_H

#include <stddef.h>
#include <sys/types.h>

void program_exe(pid_t pid, char *exe, size_t len);

#endif /* UT_PROGRAM_EXE_H */
