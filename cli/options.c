// SPDX-License-Identifier: GPL-2.0-only
/* uringtune's command line: --help, --version, options and the command word. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"
#include "options.h"
#include "strbuf.h"
#include "paths.h"
#include "usage.h"
#include "version.h"


static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uringtune [--socket PATH] status [--ring PID:FD] [--watch] [--json]\n"
		"       uringtune [--socket PATH] set PID FD --busy-poll-us N [--prefer] [--static] [--force]\n"
		"       uringtune [--socket PATH] reset [PID FD]\n"
		"       uringtune exec [--hybrid on|off|auto] [--napi] [--agent-socket PATH]\n"
		"                      [--agent-lib PATH] [-v] [--] CMD [ARGS...]\n"
		"       uringtune --help | --version\n"
		"\n"
		"Ask uringtuned about the io_uring rings it watches, or steer one.\n"
		"\n"
		"Commands:\n"
		"  status          one line per ring: NAPI busy-poll settings and how well it pays off\n"
		"  status --ring PID:FD\n"
		"                  that ring only, in detail: its settings, how its waits end and a\n"
		"                  histogram of its paid-off busy-poll window lengths\n"
		"  set PID FD      pin that ring's NAPI busy polling (tune mode); the tuner leaves it alone\n"
		"  reset [PID FD]  restore that ring's original NAPI settings (all rings without PID FD);\n"
		"                  the tuner then leaves those rings alone until uringtuned restarts\n"
		"  exec CMD [ARGS...]\n"
		"                  run CMD with uringtune's agent preloaded: uringtuned then decides\n"
		"                  hybrid IOPOLL and NAPI busy polling for the rings CMD sets up,\n"
		"                  from inside it; CMD's exit status is uringtune's\n"
		"\n"
		"Options:\n"
		"  --socket PATH   the daemon's control socket (default " UT_CONTROL_SOCKET ")\n"
		"  --json          print the daemon's JSON reply instead of a table (with --ring: that\n"
		"                  ring's object only)\n"
		"  --ring PID:FD   status: the ring held by process PID as file descriptor FD\n"
		"  --watch         status: redraw every second until Ctrl-C (SIGINT) or SIGTERM, then\n"
		"                  exit 0; keeps retrying while the daemon does not answer. Not on a\n"
		"                  terminal each frame is followed by a blank line; with --json one\n"
		"                  reply (or ring) per line, errors on stderr\n"
		"  --busy-poll-us N  set: busy-poll timeout, 1 to 10000 microseconds\n"
		"  --prefer        set: prefer busy polling (prefer_busy_poll)\n"
		"  --static        set: static tracking with the NAPI IDs seen on the ring\n"
		"  --force         set: also on a ring the daemon's [select] leaves out (refused\n"
		"                  otherwise, naming the rule); the daemon logs the override, and\n"
		"                  the pin then outlasts reloads of [select]\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n"
		"\n"
		"Bars fit the terminal: $COLUMNS, else the width of the terminal on stdout, else 80.\n"
		"\n");
	exec_usage(f);
}

long cli_parse_number(const char *s, long min, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

/* PID:FD, both decimal; false when @s is anything else */
static bool parse_ring(const char *s, struct cli_opts *o)
{
	const char *colon = strchr(s, ':');
	char pid[24];
	long p, f;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(pid))
		return false;
	memcpy(pid, s, colon - s);
	pid[colon - s] = '\0';
	p = cli_parse_number(pid, 1, INT32_MAX);
	f = cli_parse_number(colon + 1, 0, INT32_MAX);
	if (p < 0 || f < 0)
		return false;
	o->have_ring = true;
	o->ring_pid = p;
	o->ring_fd = f;
	return true;
}

/* what the options say must fit the command; -1 when it does, else EXIT_USAGE */
static int check_args(const struct cli_opts *o)
{
	if (!o->cmd)
		return cli_usage_error("no command given");
	if (strcmp(o->cmd, "set") == 0) {
		if (o->n_pos != 2)
			return cli_usage_error("set: expected PID FD");
		if (o->busy_poll_us < 0)
			return cli_usage_error("set: --busy-poll-us N is required");
	} else if (o->busy_poll_us >= 0 || o->prefer || o->static_ids || o->force) {
		return cli_usage_error("--busy-poll-us, --prefer, --static and --force go with set only");
	}
	if (strcmp(o->cmd, "status") && (o->have_ring || o->watch))
		return cli_usage_error("--ring and --watch go with status only");
	if (strcmp(o->cmd, "reset") == 0 && o->n_pos == 1)
		return cli_usage_error("reset: expected PID FD, or nothing for every ring");
	for (int i = 0; i < o->n_pos; i++)
		if (cli_parse_number(o->pos[i], i == 0 ? 1 : 0, INT32_MAX) < 0)
			return cli_usage_error("%s: expected a %s, got '%s'", o->cmd,
					   i == 0 ? "process id" : "file descriptor number",
					   o->pos[i]);
	return -1;
}

int cli_parse_args(int argc, char **argv, struct cli_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--socket") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return cli_usage_error("option '%s' needs an argument", a);
			o->socket_path = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			if (!a[9])
				return cli_usage_error("option '%s' needs an argument", "--socket");
			o->socket_path = a + 9;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("uringtune " UT_VERSION "\n");
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			/* only status has output to format: accept it anywhere */
			o->json = true;
		} else if (strcmp(a, "--busy-poll-us") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("option '%s' needs an argument", a);
			o->busy_poll_us = cli_parse_number(argv[++i], 1, 10000);
			if (o->busy_poll_us < 0)
				return cli_usage_error("--busy-poll-us: expected an integer from 1 to 10000, got '%s'",
						   argv[i]);
		} else if (strcmp(a, "--ring") == 0 || strncmp(a, "--ring=", 7) == 0) {
			const char *v = a[6] ? a + 7 : NULL;

			if (!v) {
				if (i + 1 >= argc)
					return cli_usage_error("option '%s' needs an argument", a);
				v = argv[++i];
			}
			if (!parse_ring(v, o)) {
				char *esc = cli_escape(v, strlen(v), false);

				cli_usage_error("--ring: expected PID:FD, got '%s'", esc ? esc : "?");
				free(esc);
				return EXIT_USAGE;
			}
		} else if (strcmp(a, "--watch") == 0) {
			o->watch = true;
		} else if (strcmp(a, "--prefer") == 0) {
			o->prefer = true;
		} else if (strcmp(a, "--static") == 0) {
			o->static_ids = true;
		} else if (strcmp(a, "--force") == 0) {
			o->force = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("unknown option '%s'", a);
		} else if (!o->cmd) {
			/* main()'s exec_word() passed it by: other options came first */
			if (strcmp(a, "exec") == 0)
				return cli_usage_error("exec: its options go after it (only --socket may come before)");
			if (strcmp(a, "status") && strcmp(a, "set") && strcmp(a, "reset"))
				return cli_usage_error("unknown command '%s'", a);
			o->cmd = a;
		} else if (strcmp(o->cmd, "status") && o->n_pos < 2) {
			o->pos[o->n_pos++] = a;
		} else {
			return cli_usage_error("unexpected argument '%s'", a);
		}
	}
	return check_args(o);
}
