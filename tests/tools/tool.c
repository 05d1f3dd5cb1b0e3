// SPDX-License-Identifier: GPL-2.0-only
/* Helpers shared by the load generators. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tool.h"
#include "uring_abi.h"

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
	tool_usage_error("--ring: expected plain, single-issuer, defer-taskrun or sqpoll, got '%s'",
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
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	if (flags & UT_SETUP_SQPOLL)
		p.sq_thread_idle = TOOL_SQ_THREAD_IDLE_MS;
	ret = io_uring_queue_init_params(TOOL_QUEUE_DEPTH, ring, &p);
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
