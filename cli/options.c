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
		"Usage: uringtune [--socket PATH] status [--ring PID:FD | --pid PID | --comm NAME]\n"
		"                                        [--watch] [--json] [--wide]\n"
		"       uringtune [--socket PATH] set PID:FD --busy-poll-us N [--prefer] [--static]\n"
		"                                             [--force]\n"
		"       uringtune [--socket PATH] reset [PID:FD]\n"
		"       uringtune exec [--hybrid on|off|auto] [--napi] [--agent-socket PATH]\n"
		"                      [--agent-lib PATH] [-v] [--] CMD [ARGS...]\n"
		"       uringtune --help | --version\n"
		"\n"
		"Ask uringtuned about the io_uring rings it watches, or steer one.\n"
		"A ring is named PID:FD: the process that holds it and its file descriptor\n"
		"there (set and reset also read it as two words, PID FD).\n"
		"\n"
		"Commands:\n"
		"  status          one line per ring: NAPI busy-poll settings and how well it pays off\n"
		"  status --ring PID:FD\n"
		"                  that ring only, in detail: its settings, how its waits end and a\n"
		"                  histogram of its paid-off busy-poll window lengths\n"
		"  set PID:FD      pin that ring's NAPI busy polling (tune mode); the tuner leaves it alone\n"
		"  reset [PID:FD]  restore that ring's original NAPI settings (all rings without PID:FD);\n"
		"                  the tuner then leaves those rings alone until uringtuned restarts\n"
		"  exec CMD [ARGS...]\n"
		"                  run CMD with uringtune's agent preloaded: uringtuned then decides\n"
		"                  hybrid IOPOLL and NAPI busy polling for the rings CMD sets up,\n"
		"                  from inside it; CMD's exit status is uringtune's\n"
		"\n"
		"Options (a value follows as --opt VALUE or --opt=VALUE):\n"
		"  --socket PATH   the daemon's control socket (default " UT_CONTROL_SOCKET ")\n"
		"  --json          print the daemon's JSON reply instead of a table (with --ring: that\n"
		"                  ring's object only)\n"
		"  --ring PID:FD   status: the ring held by process PID as file descriptor FD\n"
		"  --pid PID       status: the rings process PID holds\n"
		"  --comm NAME     status: the rings of processes named NAME (the kernel's comm, at\n"
		"                  most 15 bytes); with --pid, both must match\n"
		"  --wide          status: lines as long as they are (on a terminal they are cut\n"
		"                  at its width; never when the output is not a terminal)\n"
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
		"On a terminal the width is $COLUMNS, else the terminal's, else 80: bars fit it and\n"
		"table lines are cut to it (--wide: not cut).\n"
		"Status may be read by root and by members of the daemon's status group\n"
		"(uringtune by default, [daemon] status_group); set and reset are root's.\n"
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

/* a value given on the command line, quoted for an error line (NULL: out of memory) */
static char *shown(const char *v)
{
	return cli_escape(v, strlen(v), false);
}

/* "OPT: expected WHAT, got 'V'": exit status 2 */
static int bad_value(const char *opt, const char *what, const char *v)
{
	char *esc = shown(v);

	cli_usage_error("%s: expected %s, got '%s'", opt, what, esc ? esc : "?");
	free(esc);
	return EXIT_USAGE;
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

#define RING_FORM	"the ring as PID:FD (a process id and a file descriptor number, e.g. 21249:4)"

/* set's and reset's ring: PID:FD, or PID FD; -1 when it is one, else EXIT_USAGE */
static int ring_of_words(struct cli_opts *o, const char *const pos[2], int n)
{
	long p, f;

	if (n == 1) {
		if (parse_ring(pos[0], o))
			return -1;
		if (!strchr(pos[0], ':') && cli_parse_number(pos[0], 1, INT32_MAX) > 0)
			return cli_usage_error("%s: expected " RING_FORM ", got the process id '%s' "
					       "alone", o->cmd, pos[0]);
		return bad_value(o->cmd, RING_FORM, pos[0]);
	}
	/* the older form, two words */
	p = cli_parse_number(pos[0], 1, INT32_MAX);
	f = cli_parse_number(pos[1], 0, INT32_MAX);
	if (p < 0)
		return bad_value(o->cmd, "a process id (or " RING_FORM ")", pos[0]);
	if (f < 0)
		return bad_value(o->cmd, "a file descriptor number after the process id", pos[1]);
	o->have_ring = true;
	o->ring_pid = p;
	o->ring_fd = f;
	return -1;
}

/* what the options say must fit the command; -1 when it does, else EXIT_USAGE */
static int check_args(struct cli_opts *o, const char *const pos[2], int n_pos)
{
	bool status;

	if (!o->cmd)
		return cli_usage_error("no command given (expected status, set, reset or exec)");
	status = !strcmp(o->cmd, "status");
	if (strcmp(o->cmd, "set") == 0) {
		if (n_pos == 0)
			return cli_usage_error("set: expected " RING_FORM);
		if (o->busy_poll_us < 0)
			return cli_usage_error("set: --busy-poll-us N is required");
	} else if (o->busy_poll_us >= 0 || o->prefer || o->static_ids || o->force) {
		return cli_usage_error("--busy-poll-us, --prefer, --static and --force go with set only");
	}
	if (!status && (o->have_ring || o->watch || o->wide || o->pid >= 0 || o->comm))
		return cli_usage_error("--ring, --pid, --comm, --wide and --watch go with status only");
	if (status && o->have_ring && (o->pid >= 0 || o->comm))
		return cli_usage_error("status: --ring names one ring; --pid and --comm go without it");
	if (n_pos)
		return ring_of_words(o, pos, n_pos);
	return -1;
}

/* the options; each is a flag or takes a value (then as --opt V or --opt=V) */
enum cli_opt {
	OPT_SOCKET,
	OPT_HELP,
	OPT_VERSION,
	OPT_JSON,
	OPT_RING,
	OPT_PID,
	OPT_COMM,
	OPT_WIDE,
	OPT_WATCH,
	OPT_BUSY_POLL,
	OPT_PREFER,
	OPT_STATIC,
	OPT_FORCE,
};

static const struct {
	const char *name;
	const char *alias;	/* a short form, or NULL */
	const char *value;	/* what the value is, or NULL for a flag */
	enum cli_opt id;
} cli_options[] = {
	{ "--socket", NULL, "PATH", OPT_SOCKET },
	{ "--help", "-h", NULL, OPT_HELP },
	{ "--version", "-V", NULL, OPT_VERSION },
	{ "--json", NULL, NULL, OPT_JSON },
	{ "--ring", NULL, "PID:FD", OPT_RING },
	{ "--pid", NULL, "PID", OPT_PID },
	{ "--comm", NULL, "NAME", OPT_COMM },
	{ "--wide", NULL, NULL, OPT_WIDE },
	{ "--watch", NULL, NULL, OPT_WATCH },
	{ "--busy-poll-us", NULL, "N", OPT_BUSY_POLL },
	{ "--prefer", NULL, NULL, OPT_PREFER },
	{ "--static", NULL, NULL, OPT_STATIC },
	{ "--force", NULL, NULL, OPT_FORCE },
};

#define NR_CLI_OPTIONS	(sizeof(cli_options) / sizeof(cli_options[0]))

/* the option @a names (its "=VALUE" aside: *inline_v), -1 if none */
static int find_option(const char *a, const char **inline_v)
{
	const char *eq = strncmp(a, "--", 2) ? NULL : strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);

	*inline_v = eq ? eq + 1 : NULL;
	for (size_t i = 0; i < NR_CLI_OPTIONS; i++) {
		if ((strlen(cli_options[i].name) == n && !strncmp(a, cli_options[i].name, n)) ||
		    (!eq && cli_options[i].alias && !strcmp(a, cli_options[i].alias)))
			return (int)i;
	}
	return -1;
}

/* option @id with its value @v (NULL for a flag): -1 to go on, else the exit status */
static int take_option(struct cli_opts *o, enum cli_opt id, const char *v)
{
	switch (id) {
	case OPT_SOCKET:
		o->socket_path = v;
		break;
	case OPT_HELP:
		usage(stdout);
		return 0;
	case OPT_VERSION:
		printf("uringtune " UT_VERSION "\n");
		return 0;
	case OPT_JSON:
		/* only status has output to format: accept it anywhere */
		o->json = true;
		break;
	case OPT_RING:
		if (!parse_ring(v, o))
			return bad_value("--ring", "PID:FD (a process id and a file descriptor number, "
					 "e.g. 21249:4)", v);
		break;
	case OPT_PID:
		o->pid = cli_parse_number(v, 1, INT32_MAX);
		if (o->pid < 0)
			return bad_value("--pid", "a process id (an integer from 1)", v);
		break;
	case OPT_COMM:
		if (strlen(v) > CLI_COMM_MAX)
			return bad_value("--comm", "a process name of at most 15 bytes (the kernel "
					 "keeps no more of it)", v);
		o->comm = v;
		break;
	case OPT_WIDE:
		o->wide = true;
		break;
	case OPT_WATCH:
		o->watch = true;
		break;
	case OPT_BUSY_POLL:
		o->busy_poll_us = cli_parse_number(v, 1, 10000);
		if (o->busy_poll_us < 0)
			return bad_value("--busy-poll-us", "an integer from 1 to 10000", v);
		break;
	case OPT_PREFER:
		o->prefer = true;
		break;
	case OPT_STATIC:
		o->static_ids = true;
		break;
	case OPT_FORCE:
		o->force = true;
		break;
	}
	return -1;
}

int cli_parse_args(int argc, char **argv, struct cli_opts *o)
{
	const char *pos[2];
	int n_pos = 0, ret;

	o->pid = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		int k;

		if (a[0] == '-' && a[1]) {
			k = find_option(a, &v);
			if (k < 0) {
				char *esc = shown(a);

				cli_usage_error("unknown option '%s'", esc ? esc : "?");
				free(esc);
				return EXIT_USAGE;
			}
			if (!cli_options[k].value && v)
				return cli_usage_error("option '%s' takes no value, got '%s'",
						       cli_options[k].name, a);
			if (cli_options[k].value && !v) {
				if (i + 1 >= argc)
					return cli_usage_error("option '%s' needs an argument: %s %s",
							   a, a, cli_options[k].value);
				v = argv[++i];
			}
			if (v && !*v)
				return cli_usage_error("option '%s' needs an argument: %s %s",
						   cli_options[k].name, cli_options[k].name,
						   cli_options[k].value);
			ret = take_option(o, cli_options[k].id, v);
			if (ret >= 0)
				return ret;
		} else if (!o->cmd) {
			/* main()'s exec_word() passed it by: other options came first */
			if (strcmp(a, "exec") == 0)
				return cli_usage_error("exec: its options go after it (only --socket may come before)");
			if (strcmp(a, "status") && strcmp(a, "set") && strcmp(a, "reset")) {
				char *esc = shown(a);

				cli_usage_error("unknown command '%s' (expected status, set, reset or exec)",
						esc ? esc : "?");
				free(esc);
				return EXIT_USAGE;
			}
			o->cmd = a;
		} else if (strcmp(o->cmd, "status") && n_pos < 2) {
			pos[n_pos++] = a;
		} else {
			char *esc = shown(a);

			cli_usage_error("unexpected argument '%s'", esc ? esc : "?");
			free(esc);
			return EXIT_USAGE;
		}
	}
	return check_args(o, pos, n_pos);
}
