// SPDX-License-Identifier: GPL-2.0-only
/* `uringtune exec`'s command: found as execvp() finds it, checked for the agent's reach. */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "exec_cmd.h"

/* glibc's execvp() without $PATH */
#define DEFAULT_PATH		"/bin:/usr/bin"
/* program headers read at most: real programs have about a dozen */
#define ELF_PHDRS_MAX		512

/* could execve() run @path? 0, or why not (-EISDIR where execve() says EACCES) */
static int cmd_try(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	/* the effective ids, as execve() checks; X_OK also fails on a noexec mount */
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return -errno;
	return 0;
}

/*
 * Find @cmd as execvp() will: as given when it has a '/', else in each
 * directory of $PATH (an empty entry is the current directory). 0 with
 * *path malloc'ed; -ENOENT when there is none; -EACCES when there are only
 * ones that cannot be executed (execvp() goes past them, then says so).
 */
int cmd_resolve(const char *cmd, char **path)
{
	const char *d, *end, *dirs = getenv("PATH");
	bool denied = false;
	int err;

	*path = NULL;
	if (!*cmd)
		return -ENOENT;
	if (strchr(cmd, '/')) {
		err = cmd_try(cmd);
		if (!err && !(*path = strdup(cmd)))
			return -ENOMEM;
		return err;
	}
	for (d = dirs ? dirs : DEFAULT_PATH;; d = end + 1) {
		char *p;

		end = strchrnul(d, ':');
		if (asprintf(&p, "%.*s%s%s", (int)(end - d), d, end > d ? "/" : "", cmd) < 0)
			return -ENOMEM;
		err = cmd_try(p);
		if (!err) {
			*path = p;
			return 0;
		}
		free(p);
		if (err == -EACCES || err == -EISDIR)
			denied = true;
		if (!*end)
			break;
	}
	return denied ? -EACCES : -ENOENT;
}

/* a command that cannot be started: the shell's words and exit status */
int cmd_error(const char *name, const char *cmd, int err)
{
	if (err == -ENOMEM) {
		fprintf(stderr, "uringtune exec: %s\n", strerror(ENOMEM));
		return EXIT_FAILURE;
	}
	if (err == -ENOENT && !strchr(cmd, '/')) {
		fprintf(stderr, "uringtune exec: %s: command not found\n", name);
		return EXIT_NOT_FOUND;
	}
	fprintf(stderr, "uringtune exec: %s: %s\n", name, strerror(-err));
	return err == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

/*
 * Read the ELF header and program headers of @path, 32- or 64-bit. 0 with
 * *info filled, or -errno: -ENOEXEC when it is no ELF file (a script, say),
 * is of the other byte order, or its headers are cut short or implausible.
 */
int elf_inspect(const char *path, struct elf_info *info)
{
	union {
		unsigned char ident[EI_NIDENT];
		Elf32_Ehdr e32;
		Elf64_Ehdr e64;
	} eh;
	size_t phentsize, phnum, len;
	unsigned char *ph = NULL;
	uint64_t phoff;
	int fd, err = -ENOEXEC;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	if ((size_t)n < EI_NIDENT || memcmp(eh.ident, ELFMAG, SELFMAG))
		goto out;
	/* the fields are in the file's byte order: only ours can run here */
	if (eh.ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		goto out;
	info->class = eh.ident[EI_CLASS];
	if (info->class == ELFCLASS64 && (size_t)n >= sizeof(eh.e64)) {
		info->type = eh.e64.e_type;
		info->machine = eh.e64.e_machine;
		phoff = eh.e64.e_phoff;
		phentsize = eh.e64.e_phentsize;
		phnum = eh.e64.e_phnum;
		len = sizeof(Elf64_Phdr);
	} else if (info->class == ELFCLASS32 && (size_t)n >= sizeof(eh.e32)) {
		info->type = eh.e32.e_type;
		info->machine = eh.e32.e_machine;
		phoff = eh.e32.e_phoff;
		phentsize = eh.e32.e_phentsize;
		phnum = eh.e32.e_phnum;
		len = sizeof(Elf32_Phdr);
	} else {
		goto out;
	}
	/* (PN_XNUM, the count kept in section 0, is above the limit too) */
	if (phentsize != len || !phnum || phnum > ELF_PHDRS_MAX || phoff > INT64_MAX)
		goto out;
	len = phnum * phentsize;
	ph = malloc(len);
	if (!ph) {
		err = -ENOMEM;
		goto out;
	}
	n = pread(fd, ph, len, (off_t)phoff);
	if (n < 0) {
		err = -errno;
		goto out;
	}
	if ((size_t)n != len)
		goto out;
	info->interp = false;
	for (size_t i = 0; i < phnum; i++) {
		uint32_t type;

		/* p_type leads both Elf32_Phdr and Elf64_Phdr */
		memcpy(&type, ph + i * phentsize, sizeof(type));
		if (type == PT_INTERP)
			info->interp = true;
	}
	err = 0;
out:
	free(ph);
	close(fd);
	return err;
}

static int main_interp(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_INTERP)
			*(const char **)data = (const char *)(info->dlpi_addr +
							      info->dlpi_phdr[i].p_vaddr);
	return 1;	/* the program itself comes first: enough */
}

/*
 * Is @path the dynamic loader, run as a program (ld.so PROG ...)? It has no
 * PT_INTERP, yet preloads LD_PRELOAD into PROG. Ours is the one uringtune
 * itself was started by.
 */
static bool is_dynamic_loader(const char *path)
{
	const char *interp = NULL;
	struct stat a, b;

	dl_iterate_phdr(main_interp, &interp);
	return interp && stat(interp, &a) == 0 && stat(path, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * Will execve() run @path in secure-execution mode (AT_SECURE), where the
 * dynamic loader ignores LD_PRELOAD? The kernel sets it when the effective
 * uid or gid then differs from the real one, or (for anyone but root)
 * file capabilities raise the process's. Returns what makes it so, or NULL.
 */
static const char *secure_exec_reason(const char *path)
{
	struct statvfs vfs;
	struct stat st;

	if (stat(path, &st) < 0)
		return NULL;
	/* a nosuid mount or no_new_privs: the bits and capabilities do nothing */
	if ((statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID)) ||
	    prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
		return NULL;
	if ((st.st_mode & S_ISUID) && st.st_uid != getuid())
		return "is set-user-ID";
	/* S_ISGID without group execute is mandatory locking, not set-group-ID */
	if ((st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) && st.st_gid != getgid())
		return "is set-group-ID";
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		return "has file capabilities";
	return NULL;
}

/*
 * Warn when the agent cannot get into the process of @path (@name as the
 * user wrote it): it runs all the same, unchanged. A script is fine (its
 * interpreter loads the agent); a file we cannot read goes unchecked.
 */
void cmd_check_reach(const char *name, const char *path, const struct elf_info *agent)
{
	struct elf_info ei;
	const char *why;
	bool elf;

	elf = elf_inspect(path, &ei) == 0;
	if (elf && !ei.interp && (ei.type == ET_EXEC || ei.type == ET_DYN) &&
	    !is_dynamic_loader(path)) {
		fprintf(stderr, "uringtune exec: %s is statically linked: the agent cannot be loaded into it (LD_PRELOAD needs the dynamic loader); running it unchanged\n",
			name);
		return;
	}
	why = secure_exec_reason(path);
	if (why) {
		fprintf(stderr, "uringtune exec: %s %s: the dynamic loader ignores LD_PRELOAD for it (secure-execution mode); running it unchanged\n",
			name, why);
		return;
	}
	if (!elf)
		return;
	/* ld.so skips a preload of another class or machine, with a message */
	if (ei.class != agent->class)
		fprintf(stderr, "uringtune exec: %s is a %d-bit program, the agent a %d-bit library: the agent cannot be loaded into it; running it unchanged\n",
			name, ei.class == ELFCLASS64 ? 64 : 32, agent->class == ELFCLASS64 ? 64 : 32);
	else if (ei.machine != agent->machine)
		fprintf(stderr, "uringtune exec: %s is built for another machine than the agent (ELF machine %u, the agent's %u): the agent cannot be loaded into it; running it unchanged\n",
			name, ei.machine, agent->machine);
}

