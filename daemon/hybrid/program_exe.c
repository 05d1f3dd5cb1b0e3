// SPDX-License-Identifier: GPL-2.0-only
/* The executable of a process (program_exe.h). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "program_exe.h"

#define DELETED		" (deleted)"

void program_exe(pid_t pid, char *exe, size_t len)
{
	char path[64];
	size_t d = strlen(DELETED);
	ssize_t n;

	exe[0] = '\0';
	if (len < 2)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, len - 1);
	/* a path cut short names another program: none rather than that */
	if (n <= 0 || (size_t)n >= len - 1) {
		exe[0] = '\0';
		return;
	}
	exe[n] = '\0';
	if ((size_t)n > d && !strcmp(exe + n - d, DELETED))
		exe[n - d] = '\0';
}
