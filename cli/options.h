/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uringtune's command line (all but exec's, which exec.c parses): options
 * before and after the command word, checked before anything is asked.
 * Every option that takes a value takes it as "--opt VALUE" or "--opt=VALUE".
 */
#ifndef UT_CLI_OPTIONS_H
#define UT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

/* the kernel's TASK_COMM_LEN, its NUL excluded: longer names never match */
#define CLI_COMM_MAX		15

struct cli_opts {
	const char *socket_path;
	const char *cmd;
	bool json;
	/*
	 * The ring named: status --ring PID:FD; set PID:FD (or PID FD);
	 * reset PID:FD (or PID FD, or nothing: every ring)
	 */
	bool have_ring;
	int64_t ring_pid;
	int64_t ring_fd;
	/* status */
	bool watch;
	bool wide;			/* lines never cut to the terminal */
	int64_t pid;			/* --pid: that process's rings; -1 all */
	const char *comm;		/* --comm: rings of processes of that name */
	/* set */
	long busy_poll_us;		/* -1: not given */
	bool prefer;
	bool static_ids;
	bool force;			/* set: even on a ring [select] leaves out */
};

/* a decimal in [min, max], or -1 */
long cli_parse_number(const char *s, long min, long max);

/*
 * Fill @o (initialised by the caller with its defaults) from @argv. Options
 * are accepted before and after the command. Returns -1 to go on, else the
 * exit code (help/version/usage error).
 */
int cli_parse_args(int argc, char **argv, struct cli_opts *o);

#endif /* UT_CLI_OPTIONS_H */
