// SPDX-License-Identifier: GPL-2.0-only
/* Helpers shared by the load generators. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tool.h"
#include "uring_abi.h"

#ifndef SO_INCOMING_NAPI_ID
#define SO_INCOMING_NAPI_ID	56
#endif

#define NSEC_PER_SEC		1000000000LL

const char *tool_prog = "tool";

void tool_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(TOOL_EXIT_USAGE);
}

void tool_bad_option(int c, char **argv, int first_long)
{
	if (c == ':')
		tool_usage_error("%s: missing argument", argv[optind - 1]);
	if (optopt >= first_long)
		tool_usage_error("%s: takes no argument", argv[optind - 1]);
	if (optopt)
		tool_usage_error("unknown option '-%c' (see --help)", optopt);
	tool_usage_error("unknown option '%s' (see --help)", argv[optind - 1]);
}

static const struct tool_ring_kind ring_kinds[] = {
	{ "plain",		0 },
	/* TASKRUN_FLAG: the kernel says in the SQ flags when task work is pending */
	{ "coop-taskrun",	UT_SETUP_COOP_TASKRUN | UT_SETUP_TASKRUN_FLAG },
	{ "single-issuer",	UT_SETUP_SINGLE_ISSUER },
	/* DEFER_TASKRUN requires SINGLE_ISSUER */
	{ "defer-taskrun",	UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN },
	{ "sqpoll",		UT_SETUP_SQPOLL },
};

const struct tool_ring_kind *tool_parse_ring_kind(const char *arg)
{
	for (size_t i = 0; i < sizeof(ring_kinds) / sizeof(ring_kinds[0]); i++)
		if (!strcmp(arg, ring_kinds[i].name))
			return &ring_kinds[i];
	tool_usage_error("--ring: expected plain, coop-taskrun, single-issuer, defer-taskrun or sqpoll, got '%s'",
			 arg);
}

unsigned long tool_parse_ulong(const char *opt, const char *arg, unsigned long min,
			       unsigned long max, const char *expect)
{
	unsigned long v;
	char *end;

	/* strtoul alone would take " 5", "+5" and wrap "-1" */
	if (!isdigit((unsigned char)*arg))
		goto bad;
	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || v < min || v > max)
		goto bad;
	return v;
bad:
	tool_usage_error("%s: expected %s, got '%s'", opt, expect, arg);
}

long long tool_ts_diff_ns(const struct timespec *a, const struct timespec *b)
{
	return (a->tv_sec - b->tv_sec) * 1000000000LL + (a->tv_nsec - b->tv_nsec);
}

int tool_ring_init(struct io_uring *ring, unsigned int flags)
{
	return tool_ring_init_entries(ring, TOOL_QUEUE_DEPTH, flags);
}

int tool_ring_init_entries(struct io_uring *ring, unsigned int entries, unsigned int flags)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	if (flags & UT_SETUP_SQPOLL)
		p.sq_thread_idle = TOOL_SQ_THREAD_IDLE_MS;
	ret = io_uring_queue_init_params(entries, ring, &p);
	if (ret < 0)
		fprintf(stderr, "%s: io_uring_setup(flags=0x%x): %s\n", tool_prog, flags,
			strerror(-ret));
	return ret;
}

int tool_register_napi(int ring_fd, unsigned int busy_poll_us, bool prefer)
{
	struct ut_io_uring_napi napi = {
		.busy_poll_to = busy_poll_us,
		.prefer_busy_poll = prefer,
		.opcode = UT_NAPI_REGISTER_OP,
		.op_param = UT_NAPI_TRACKING_DYNAMIC,
	};

	if (syscall(__NR_io_uring_register, ring_fd, UT_IORING_REGISTER_NAPI, &napi, 1) < 0)
		return -errno;
	return 0;
}

void tool_parse_addr(const char *opt, const char *arg, struct sockaddr_in *sin)
{
	char host[INET_ADDRSTRLEN];
	const char *colon = strrchr(arg, ':');
	unsigned long port;
	char *end;
	size_t len;

	if (!colon)
		goto bad;
	len = colon - arg;
	if (!len || len >= sizeof(host))
		goto bad;
	memcpy(host, arg, len);
	host[len] = '\0';
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		goto bad;
	if (!isdigit((unsigned char)colon[1]))
		goto bad;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port < 1 || port > 65535)
		goto bad;
	sin->sin_port = htons(port);
	return;
bad:
	tool_usage_error("%s: expected ADDR:PORT (IPv4 dotted quad, port 1-65535), got '%s'",
		    opt, arg);
}

unsigned int tool_socket_napi_id(int fd)
{
	unsigned int id = 0;
	socklen_t len = sizeof(id);

	if (getsockopt(fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &id, &len))
		return 0;
	return id;
}

int tool_stats_add(struct tool_stats *s, double us)
{
	if (s->n == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : TOOL_SAMPLES_START;
		double *p = realloc(s->samples, (size_t)cap * sizeof(*p));

		if (!p || cap <= s->cap) {
			fprintf(stderr, "%s: realloc: %s\n", tool_prog, strerror(ENOMEM));
			return -ENOMEM;
		}
		s->samples = p;
		s->cap = cap;
	}
	if (!s->n || us < s->min)
		s->min = us;
	if (!s->n || us > s->max)
		s->max = us;
	s->sum += us;
	s->sum2 += us * us;
	s->samples[s->n++] = us;
	return 0;
}

void tool_stats_reset(struct tool_stats *s)
{
	s->n = 0;
	s->min = s->max = s->sum = s->sum2 = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* nearest-rank percentile of the sorted samples */
static double percentile(const struct tool_stats *s, unsigned int pct)
{
	unsigned int rank = (s->n * pct + 99) / 100;

	return s->samples[rank ? rank - 1 : 0];
}

/* Newton's method: the tools link no libm, and this is only a statistic. */
static double sqrt_nonneg(double v)
{
	double x, nx;
	int i;

	if (v <= 0)
		return 0;
	/* start above the root so that the iteration falls monotonically */
	x = v > 1 ? v : 1;
	for (i = 0; i < 200; i++) {
		nx = 0.5 * (x + v / x);
		if (nx >= x)
			break;
		x = nx;
	}
	return x;
}

void tool_print_rtt(struct tool_stats *st, unsigned int napi_id)
{
	double avg, var;

	if (!st->n) {
		/* --seconds: no ping completed after --warmup-s */
		printf("rtt count=0 napi_id=%u\n", napi_id);
		fflush(stdout);
		return;
	}
	avg = st->sum / st->n;
	var = st->sum2 / st->n - avg * avg;
	qsort(st->samples, st->n, sizeof(*st->samples), cmp_double);
	printf("rtt count=%u min_us=%.2f avg_us=%.2f max_us=%.2f mdev_us=%.2f "
	       "p50_us=%.2f p99_us=%.2f napi_id=%u\n",
	       st->n, st->min, avg, st->max, sqrt_nonneg(var), percentile(st, 50),
	       percentile(st, 99), napi_id);
	fflush(stdout);
}

bool tool_client_more(unsigned int count, unsigned int seconds, unsigned int warmup_s,
		      const struct timespec *start, unsigned int i, struct tool_stats *st)
{
	struct timespec now;
	long long ns;

	if (!seconds)
		return i < count;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = tool_ts_diff_ns(&now, start);
	if (ns >= (long long)seconds * NSEC_PER_SEC)
		return false;
	if (warmup_s && ns >= (long long)warmup_s * NSEC_PER_SEC && st->warm < warmup_s) {
		tool_stats_reset(st);
		st->warm = warmup_s;
	}
	return true;
}

void tool_linger(unsigned int seconds)
{
	struct timespec deadline, now, left;
	sigset_t set;
	long long ns;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += seconds;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = tool_ts_diff_ns(&deadline, &now);
		if (ns <= 0)
			return;
		left.tv_sec = ns / NSEC_PER_SEC;
		left.tv_nsec = ns % NSEC_PER_SEC;
		/* SIGINT/SIGTERM are blocked: they end the wait, not the process */
		if (sigtimedwait(&set, NULL, &left) > 0 || errno == EAGAIN)
			return;
	}
}
