// SPDX-License-Identifier: GPL-2.0-only
/*
 * fdhold - a host with many open files: N open file descriptions of
 * /dev/null, held in as many processes as RLIMIT_NOFILE needs, until
 * SIGINT/SIGTERM. What a proxy's sockets cost a daemon that walks every
 * open file of the host (bench/scale.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "holders.h"
#include "tool.h"

#define PROG		"fdhold"
#define EXIT_RUNTIME	1
#define MAX_FILES	100000000UL

struct opts {
	unsigned long files;
	unsigned long per_proc;		/* 0: as many as the fd limit allows */
	bool have_hold;
	unsigned int hold_s;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --files N [--per-process N] [--hold SECONDS]\n"
		"  --files N          open files to hold in all (each its own open of /dev/null)\n"
		"  --per-process N    at most N in one process (default: RLIMIT_NOFILE, raised\n"
		"                     to its hard limit, less %d)\n"
		"  --hold SECONDS     hold that long, then exit (default: until SIGINT/SIGTERM)\n"
		"Prints one line per holding process, then 'ready' once all of them hold theirs.\n",
		HOLDERS_FD_RESERVE);
}

enum {
	OPT_FILES = 256,
	OPT_PER_PROC,
	OPT_HOLD,
};

static const struct option long_opts[] = {
	{ "files",		required_argument,	NULL, OPT_FILES },
	{ "per-process",	required_argument,	NULL, OPT_PER_PROC },
	{ "hold",		required_argument,	NULL, OPT_HOLD },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_FILES:
			o->files = tool_parse_ulong("--files", optarg, 1, MAX_FILES,
						    "an integer from 1 to 100000000");
			break;
		case OPT_PER_PROC:
			o->per_proc = tool_parse_ulong("--per-process", optarg, 1, MAX_FILES,
						       "a positive integer");
			break;
		case OPT_HOLD:
			o->hold_s = tool_parse_ulong("--hold", optarg, 0, INT32_MAX,
						     "a non-negative integer");
			o->have_hold = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, argv, OPT_FILES);
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->files)
		tool_usage_error("--files: required");
}

/* in a holder: n opens of /dev/null, each a file of its own (not dup: one file) */
static int open_files(unsigned long n, void *arg, struct holder_report *r)
{
	int fd;

	(void)arg;
	for (r->count = 0; r->count < n; r->count++) {
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (r->first_fd < 0)
			r->first_fd = fd;
		r->last_fd = fd;
	}
	return 0;
}

/* until SIGINT/SIGTERM, or the end of --hold */
static void hold(const struct opts *o, const sigset_t *sigs)
{
	struct timespec left = { .tv_sec = o->hold_s };

	if (!o->have_hold) {
		while (sigwaitinfo(sigs, NULL) < 0)
			;	/* EINTR from a stop/continue: keep waiting */
		return;
	}
	/* a stop/continue cuts the hold short: good enough for a load generator */
	sigtimedwait(sigs, NULL, &left);
}

int main(int argc, char **argv)
{
	unsigned long budget;
	struct holders h;
	struct opts o;
	sigset_t sigs;
	unsigned int i;
	int ret;

	tool_prog = PROG;
	parse_args(argc, argv, &o);
	ret = holders_fd_budget(&budget);
	if (ret) {
		fprintf(stderr, PROG ": RLIMIT_NOFILE: %s\n", strerror(-ret));
		return EXIT_RUNTIME;
	}
	if (o.per_proc > budget)
		tool_usage_error("--per-process: %lu is over the fd limit's %lu (hard limit less %d)",
				 o.per_proc, budget, HOLDERS_FD_RESERVE);
	if (!o.per_proc)
		o.per_proc = budget;

	/* blocked for good: collected with sigwaitinfo, a clean exit */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL)) {
		fprintf(stderr, PROG ": sigprocmask: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}
	if (holders_start(&h, o.files, o.per_proc, open_files, NULL))
		return EXIT_RUNTIME;
	for (i = 0; i < h.nr; i++)
		printf("holder pid=%d files=%u fds=%d-%d\n", h.reports[i].pid, h.reports[i].count,
		       h.reports[i].first_fd, h.reports[i].last_fd);
	printf("ready files=%lu processes=%u per_process=%lu\n", o.files, h.nr, o.per_proc);
	fflush(stdout);
	hold(&o, &sigs);
	holders_stop(&h);
	return 0;
}
