/* SPDX-License-Identifier: GPL-2.0-only */
/* What the load generators (pingpong, ringhold) share. */
#ifndef UT_TOOL_H
#define UT_TOOL_H

#include <stdbool.h>
#include <time.h>

#include <liburing.h>

#define TOOL_EXIT_USAGE		2
#define TOOL_QUEUE_DEPTH	8
#define TOOL_SQ_THREAD_IDLE_MS	1000

/* program name for messages; each tool sets it first thing in main() */
extern const char *tool_prog;

/* "prog: message" on stderr, exit 2 */
void tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * A getopt_long() error (c is ':' or '?'): one line naming the option,
 * exit 2. Long options' values start at first_long.
 */
void tool_bad_option(int c, char **argv, int first_long) __attribute__((noreturn));

/* the ring kinds the network tools take with --ring */
struct tool_ring_kind {
	const char *name;
	unsigned int flags;	/* IORING_SETUP_* */
};

/* "plain", "single-issuer", "defer-taskrun" or "sqpoll", else a usage error */
const struct tool_ring_kind *tool_parse_ring_kind(const char *arg);

/* a decimal in [min, max] or a usage error naming opt and what was expected */
unsigned long tool_parse_ulong(const char *opt, const char *arg, unsigned long min,
			       unsigned long max, const char *expect);

long long tool_ts_diff_ns(const struct timespec *a, const struct timespec *b);

/* io_uring_queue_init_params with these setup flags; prints why it failed */
int tool_ring_init(struct io_uring *ring, unsigned int flags);

/*
 * IORING_REGISTER_NAPI with dynamic tracking (liburing 2.3 has no helper).
 * From the submitter thread, so SINGLE_ISSUER rings accept it; IOPOLL rings
 * refuse with EINVAL. Returns 0 or a negative errno.
 */
int tool_register_napi(int ring_fd, unsigned int busy_poll_us, bool prefer);

#endif /* UT_TOOL_H */
