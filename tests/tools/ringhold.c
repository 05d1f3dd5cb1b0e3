// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringhold - create io_uring rings with chosen setup flags and hold them
 * open (or churn through create/close cycles), so that tests can watch the
 * daemon discover, classify and tune them; or, with --idle, thousands of idle
 * rings in as many processes as the fd limit needs (bench/scale.sh).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <liburing.h>

#include "holders.h"
#include "tool.h"
#include "uring_abi.h"

#define PROG			"ringhold"
#define EXIT_RUNTIME		1
#define EXIT_USAGE		2

#define QUEUE_DEPTH		8
#define SQ_THREAD_IDLE_MS	1000
#define MAX_RINGS		100000
/* --idle: rings of 4 entries, set up and never used (no mmap, no traffic) */
#define MAX_IDLE_RINGS		10000000UL
#define IDLE_ENTRIES		4
#define NSEC_PER_SEC		1000000000LL
/* churn: how often to look for SIGINT/SIGTERM (blocked, so not delivered) */
#define SIGNAL_CHECK_EVERY	64

struct flag_name {
	const char *name;
	unsigned int flags;
};

static const struct flag_name flag_names[] = {
	{ "plain",		0 },
	{ "iopoll",		UT_SETUP_IOPOLL },
	{ "sqpoll",		UT_SETUP_SQPOLL },
	{ "single-issuer",	UT_SETUP_SINGLE_ISSUER },
	{ "defer-taskrun",	UT_SETUP_DEFER_TASKRUN | UT_SETUP_SINGLE_ISSUER },
	{ "coop-taskrun",	UT_SETUP_COOP_TASKRUN },
	/* liburing 2.3 lacks HYBRID_IOPOLL but passes params.flags through */
	{ "hybrid-iopoll",	UT_SETUP_HYBRID_IOPOLL | UT_SETUP_IOPOLL },
};

#define NR_FLAG_NAMES	(sizeof(flag_names) / sizeof(flag_names[0]))

struct opts {
	unsigned int flags;
	unsigned int count;
	unsigned int napi_us;		/* 0 = no NAPI registration */
	bool napi_prefer;
	bool napi_later;		/* register only on SIGUSR2 */
	const char *comm;		/* process name to take, any bytes */
	bool have_hold;
	unsigned int hold_s;
	unsigned int churn;		/* 0 = hold rings instead */
	unsigned long idle;		/* 0 = not --idle */
	unsigned long per_proc;		/* --idle: rings per process, 0 = fd limit */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--flags LIST] [--count N] [--napi-busy-poll-us N] [--napi-prefer]\n"
		"                [--hold SECONDS] [--churn N]\n"
		"       " PROG " --idle N [--per-process N] [--flags LIST] [--hold SECONDS]\n"
		"  --flags LIST            comma list of plain, iopoll, sqpoll, single-issuer,\n"
		"                          defer-taskrun, coop-taskrun, hybrid-iopoll (plain)\n"
		"  --count N               rings to create (1)\n"
		"  --napi-busy-poll-us N   register NAPI busy polling (dynamic tracking) on each ring\n"
		"  --napi-prefer           set prefer_busy_poll in that registration\n"
		"  --napi-later            register it only on SIGUSR2, not at setup\n"
		"  --comm NAME             take this process name first (up to 15 bytes, any bytes)\n"
		"  --hold SECONDS          hold that long, then exit (default: until SIGINT/SIGTERM)\n"
		"  --churn N               create and close a ring N times, then hold only if --hold\n"
		"  --idle N                N idle rings of 4 entries (set up, never mapped or used) in\n"
		"                          as many processes as RLIMIT_NOFILE (raised to its hard\n"
		"                          limit) needs; one line per process, then 'ready'\n"
		"  --per-process N         --idle: at most N rings in one process\n"
		"While holding: SIGUSR1 closes the rings and opens new ones (same fds),\n"
		"SIGUSR2 registers NAPI on them (with --napi-later).\n");
}

static unsigned int parse_flags(const char *arg)
{
	unsigned int flags = 0;
	const char *p = arg;
	size_t len, i;

	for (;;) {
		len = strcspn(p, ",");
		for (i = 0; i < NR_FLAG_NAMES; i++)
			if (strlen(flag_names[i].name) == len &&
			    !strncmp(p, flag_names[i].name, len))
				break;
		if (i == NR_FLAG_NAMES)
			tool_usage_error("--flags: unknown flag '%.*s' in '%s' (expected plain, iopoll, sqpoll, single-issuer, defer-taskrun, coop-taskrun, hybrid-iopoll)",
				    (int)len, p, arg);
		flags |= flag_names[i].flags;
		if (!p[len])
			return flags;
		p += len + 1;
	}
}

enum {
	OPT_FLAGS = 256,
	OPT_COUNT,
	OPT_NAPI_US,
	OPT_NAPI_PREFER,
	OPT_HOLD,
	OPT_NAPI_LATER,
	OPT_COMM,
	OPT_CHURN,
	OPT_IDLE,
	OPT_PER_PROC,
};

static const struct option long_opts[] = {
	{ "flags",		required_argument,	NULL, OPT_FLAGS },
	{ "count",		required_argument,	NULL, OPT_COUNT },
	{ "napi-busy-poll-us",	required_argument,	NULL, OPT_NAPI_US },
	{ "napi-prefer",	no_argument,		NULL, OPT_NAPI_PREFER },
	{ "hold",		required_argument,	NULL, OPT_HOLD },
	{ "napi-later",		no_argument,		NULL, OPT_NAPI_LATER },
	{ "comm",		required_argument,	NULL, OPT_COMM },
	{ "churn",		required_argument,	NULL, OPT_CHURN },
	{ "idle",		required_argument,	NULL, OPT_IDLE },
	{ "per-process",	required_argument,	NULL, OPT_PER_PROC },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_count = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->count = 1;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_FLAGS:
			o->flags = parse_flags(optarg);
			break;
		case OPT_COUNT:
			o->count = tool_parse_ulong("--count", optarg, 1, MAX_RINGS,
					       "an integer from 1 to 100000");
			have_count = true;
			break;
		case OPT_NAPI_US:
			o->napi_us = tool_parse_ulong("--napi-busy-poll-us", optarg, 1,
						 UINT32_MAX, "a positive integer");
			break;
		case OPT_NAPI_PREFER:
			o->napi_prefer = true;
			break;
		case OPT_HOLD:
			o->hold_s = tool_parse_ulong("--hold", optarg, 0, INT32_MAX,
						"a non-negative integer");
			o->have_hold = true;
			break;
		case OPT_NAPI_LATER:
			o->napi_later = true;
			break;
		case OPT_COMM:
			if (!optarg[0] || strlen(optarg) > 15)
				tool_usage_error("--comm: expected 1 to 15 bytes, got %zu", strlen(optarg));
			o->comm = optarg;
			break;
		case OPT_CHURN:
			o->churn = tool_parse_ulong("--churn", optarg, 1, UINT32_MAX,
					       "a positive integer");
			break;
		case OPT_IDLE:
			o->idle = tool_parse_ulong("--idle", optarg, 1, MAX_IDLE_RINGS,
						   "an integer from 1 to 10000000");
			break;
		case OPT_PER_PROC:
			o->per_proc = tool_parse_ulong("--per-process", optarg, 1, MAX_IDLE_RINGS,
						       "a positive integer");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, argv, OPT_FLAGS);
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (o->napi_prefer && !o->napi_us)
		tool_usage_error("--napi-prefer: needs --napi-busy-poll-us");
	if (o->napi_later && !o->napi_us)
		tool_usage_error("--napi-later: needs --napi-busy-poll-us");
	if (o->churn && have_count)
		tool_usage_error("--count: not with --churn (churn creates one ring at a time)");
	if (o->idle && (have_count || o->churn || o->napi_us))
		tool_usage_error("--idle: not with --count, --churn or --napi-busy-poll-us");
	if (o->per_proc && !o->idle)
		tool_usage_error("--per-process: needs --idle");
}

static int ring_create(const struct opts *o, struct io_uring *ring)
{
	return tool_ring_init(ring, o->flags);
}

static int ring_napi(const struct opts *o, const struct io_uring *ring)
{
	return tool_register_napi(ring->ring_fd, o->napi_us, o->napi_prefer);
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "unknown-errno";
}

/* SIGINT/SIGTERM stay blocked: the hold waits for them with sigtimedwait. */
static bool signal_pending_now(void)
{
	sigset_t pending;

	if (sigpending(&pending))
		return false;
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM);
}

/* Wait for a signal of sigs, or the end of --hold: the signal, or 0. */
static int hold(const struct opts *o, const sigset_t *sigs, const struct timespec *deadline)
{
	struct timespec now, left;
	long long ns;
	int sig;

	if (!o->have_hold) {
		while ((sig = sigwaitinfo(sigs, NULL)) < 0)
			;	/* EINTR from a stop/continue: keep waiting */
		return sig;
	}
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = tool_ts_diff_ns(deadline, &now);
		if (ns <= 0)
			return 0;
		left.tv_sec = ns / NSEC_PER_SEC;
		left.tv_nsec = ns % NSEC_PER_SEC;
		sig = sigtimedwait(sigs, NULL, &left);
		if (sig > 0)
			return sig;
		if (errno == EAGAIN)
			return 0;
	}
}

static void hold_deadline(const struct opts *o, struct timespec *deadline)
{
	clock_gettime(CLOCK_MONOTONIC, deadline);
	deadline->tv_sec += o->hold_s;
}

static int churn(const struct opts *o, const sigset_t *sigs)
{
	struct timespec deadline;
	bool napi_warned = false;
	struct io_uring ring;
	unsigned int i;
	int ret;

	for (i = 0; i < o->churn; i++) {
		/* a signal ends the churn early, as a clean exit */
		if (i % SIGNAL_CHECK_EVERY == 0 && signal_pending_now())
			break;
		ret = ring_create(o, &ring);
		if (ret)
			return ret;
		if (o->napi_us) {
			ret = ring_napi(o, &ring);
			if (ret && !napi_warned) {
				fprintf(stderr, PROG ": IORING_REGISTER_NAPI: %s (reported once)\n",
					strerror(-ret));
				napi_warned = true;
			}
		}
		io_uring_queue_exit(&ring);
	}
	printf("churned count=%u\n", i);
	fflush(stdout);
	if (i < o->churn || !o->have_hold)
		return 0;
	printf("ready\n");
	fflush(stdout);
	hold_deadline(o, &deadline);
	while (hold(o, sigs, &deadline) == SIGUSR1)
		;	/* nothing to reopen in a churn */
	return 0;
}

static int open_rings(const struct opts *o, struct io_uring *rings, unsigned int *nr)
{
	int ret;

	for (*nr = 0; *nr < o->count; (*nr)++) {
		char napi[32] = "off";

		ret = ring_create(o, &rings[*nr]);
		if (ret)
			return ret;
		if (o->napi_us && !o->napi_later) {
			/* a refusal is a result worth reporting, not a failure */
			ret = ring_napi(o, &rings[*nr]);
			snprintf(napi, sizeof(napi), "%s", ret ? errno_name(-ret) : "ok");
		}
		printf("ring pid=%d fd=%d flags=0x%x napi=%s\n", (int)getpid(),
		       rings[*nr].ring_fd, rings[*nr].flags, napi);
	}
	printf("ready\n");
	fflush(stdout);
	return 0;
}

static void close_rings(struct io_uring *rings, unsigned int nr)
{
	for (unsigned int i = 0; i < nr; i++)
		io_uring_queue_exit(&rings[i]);
}

/*
 * Hold the rings until SIGINT/SIGTERM or the end of --hold. SIGUSR1 closes
 * them and opens new ones (the fd numbers come back: tests of fd reuse);
 * SIGUSR2 registers NAPI on them now (--napi-later: an application that
 * changes its mind after uringtune tuned its ring).
 */
static int hold_rings(const struct opts *o, const sigset_t *sigs)
{
	struct timespec deadline;
	struct io_uring *rings;
	unsigned int i, nr = 0;
	int ret, sig;

	rings = calloc(o->count, sizeof(*rings));
	if (!rings) {
		fprintf(stderr, PROG ": calloc: %s\n", strerror(ENOMEM));
		return -ENOMEM;
	}
	ret = open_rings(o, rings, &nr);
	hold_deadline(o, &deadline);
	while (!ret) {
		sig = hold(o, sigs, &deadline);
		if (sig == SIGUSR1) {
			close_rings(rings, nr);
			nr = 0;
			ret = open_rings(o, rings, &nr);
		} else if (sig == SIGUSR2) {
			for (i = 0; i < nr; i++) {
				int r = ring_napi(o, &rings[i]);

				printf("napi pid=%d fd=%d %s\n", (int)getpid(), rings[i].ring_fd,
				       r ? errno_name(-r) : "ok");
			}
			fflush(stdout);
		} else {
			break;
		}
	}
	fflush(stdout);
	close_rings(rings, nr);
	free(rings);
	return ret;
}

/* in a holder: n rings set up by the system call alone (no mmap: nothing uses them) */
static int open_idle_rings(unsigned long n, void *arg, struct holder_report *r)
{
	const struct opts *o = arg;
	struct io_uring_params p;
	int fd;

	for (r->count = 0; r->count < n; r->count++) {
		memset(&p, 0, sizeof(p));
		p.flags = o->flags;
		if (o->flags & UT_SETUP_SQPOLL)
			p.sq_thread_idle = SQ_THREAD_IDLE_MS;
		fd = (int)syscall(__NR_io_uring_setup, IDLE_ENTRIES, &p);
		if (fd < 0)
			return -errno;
		if (r->first_fd < 0)
			r->first_fd = fd;
		r->last_fd = fd;
	}
	return 0;
}

/* --idle: the rings in holder processes, until SIGINT/SIGTERM or --hold */
static int hold_idle(struct opts *o, const sigset_t *sigs)
{
	struct timespec deadline;
	unsigned long budget;
	struct holders h;
	unsigned int i;
	int ret;

	ret = holders_fd_budget(&budget);
	if (ret) {
		fprintf(stderr, PROG ": RLIMIT_NOFILE: %s\n", strerror(-ret));
		return ret;
	}
	if (o->per_proc > budget)
		tool_usage_error("--per-process: %lu is over the fd limit's %lu (hard limit less %d)",
				 o->per_proc, budget, HOLDERS_FD_RESERVE);
	if (!o->per_proc)
		o->per_proc = budget;
	ret = holders_start(&h, o->idle, o->per_proc, open_idle_rings, o);
	if (ret)
		return ret;
	for (i = 0; i < h.nr; i++)
		printf("holder pid=%d rings=%u fds=%d-%d\n", h.reports[i].pid, h.reports[i].count,
		       h.reports[i].first_fd, h.reports[i].last_fd);
	printf("ready rings=%lu processes=%u per_process=%lu\n", o->idle, h.nr, o->per_proc);
	fflush(stdout);
	hold_deadline(o, &deadline);
	/* SIGUSR1/SIGUSR2: nothing to reopen or register on idle rings */
	while ((ret = hold(o, sigs, &deadline)) == SIGUSR1 || ret == SIGUSR2)
		;
	holders_stop(&h);
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	sigset_t sigs;
	int ret;

	tool_prog = PROG;
	parse_args(argc, argv, &o);
	/* names with quotes, backslashes, newlines: what escaping must survive */
	if (o.comm && prctl(PR_SET_NAME, o.comm, 0, 0, 0)) {
		fprintf(stderr, PROG ": prctl(PR_SET_NAME): %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}

	/* blocked for good: hold() collects them with sigtimedwait, a clean exit */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL)) {
		fprintf(stderr, PROG ": sigprocmask: %s\n", strerror(errno));
		return EXIT_RUNTIME;
	}

	if (o.idle)
		ret = hold_idle(&o, &sigs);
	else if (o.churn)
		ret = churn(&o, &sigs);
	else
		ret = hold_rings(&o, &sigs);
	return ret ? EXIT_RUNTIME : 0;
}
