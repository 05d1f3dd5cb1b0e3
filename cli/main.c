// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtune: the operator's client for uringtuned. Parses the command line,
 * asks the daemon over its unix socket, prints the answer. Every failure is
 * one line on stderr: exit 2 for usage errors, 1 for everything else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_change.h"
#include "cmd_status.h"
#include "cmd_watch.h"
#include "exec.h"
#include "options.h"
#include "paths.h"

/*
 * Where the command word is when it is exec, else 0. What follows it is
 * exec's and CMD's: cli_parse_args() must never see CMD's options. Only
 * --socket (which exec ignores) may come before it.
 */
static int exec_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0)
			i++;
		else if (strncmp(argv[i], "--socket=", 9))
			return strcmp(argv[i], "exec") == 0 ? i : 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .socket_path = UT_CONTROL_SOCKET, .busy_poll_us = -1 };
	int ret, i;

	i = exec_word(argc, argv);
	if (i)
		ret = exec_main(argc - i, argv + i);	/* returns only when CMD did not start */
	else
		ret = cli_parse_args(argc, argv, &o);
	if (ret < 0)
		ret = strcmp(o.cmd, "status") ? cmd_change(&o) :
		      o.watch ? cmd_watch(&o) : cmd_status(&o);

	/* a full disk or closed stdout must not look like success */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (ret == EXIT_SUCCESS)
			fprintf(stderr, "uringtune: writing output: %s\n", strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}
