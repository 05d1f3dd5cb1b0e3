/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune exec`'s command: found as execvp() will find it, and checked
 * for what keeps the agent out of it (LD_PRELOAD works only through the
 * dynamic loader, and not in secure-execution mode).
 */
#ifndef UT_CLI_EXEC_CMD_H
#define UT_CLI_EXEC_CMD_H

#include <stdbool.h>
#include <stdint.h>

/* as shells: found but cannot be executed; not found */
#define EXIT_CANNOT_EXEC	126
#define EXIT_NOT_FOUND		127

/* what the reach checks need of an ELF file */
struct elf_info {
	unsigned char class;		/* ELFCLASS32 or ELFCLASS64 */
	uint16_t type;			/* ET_EXEC, ET_DYN, ... */
	uint16_t machine;		/* EM_* */
	bool interp;			/* PT_INTERP: started by the dynamic loader */
};

/*
 * Find @cmd as execvp() will: as given when it has a '/', else in each
 * directory of $PATH (an empty entry is the current directory). 0 with
 * *path malloc'ed; -ENOENT when there is none; -EACCES when there are only
 * ones that cannot be executed (execvp() goes past them, then says so).
 */
int cmd_resolve(const char *cmd, char **path);

/* a command that cannot be started: the shell's words on stderr; the exit status */
int cmd_error(const char *name, const char *cmd, int err);

/*
 * Read the ELF header and program headers of @path, 32- or 64-bit. 0 with
 * *info filled, or -errno: -ENOEXEC when it is no ELF file (a script, say),
 * is of the other byte order, or its headers are cut short or implausible.
 */
int elf_inspect(const char *path, struct elf_info *info);

/* warn, on stderr, when the agent cannot get into the command at @path */
void cmd_check_reach(const char *name, const char *path, const struct elf_info *agent);

#endif /* UT_CLI_EXEC_CMD_H */
