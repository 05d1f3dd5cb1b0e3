/* SPDX-License-Identifier: GPL-2.0-only */
/* What the load generators (pingpong, ringhold) share. */
#ifndef UT_TOOL_H
#define UT_TOOL_H

#include <stdbool.h>
#include <time.h>
#include <netinet/in.h>

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

/*
 * "plain", "coop-taskrun" (COOP_TASKRUN|TASKRUN_FLAG), "single-issuer",
 * "defer-taskrun" or "sqpoll", else a usage error
 */
const struct tool_ring_kind *tool_parse_ring_kind(const char *arg);

/* a decimal in [min, max] or a usage error naming opt and what was expected */
unsigned long tool_parse_ulong(const char *opt, const char *arg, unsigned long min,
			       unsigned long max, const char *expect);

long long tool_ts_diff_ns(const struct timespec *a, const struct timespec *b);

/* io_uring_queue_init_params with these setup flags; prints why it failed */
int tool_ring_init(struct io_uring *ring, unsigned int flags);

/* the same with @entries SQ entries instead of TOOL_QUEUE_DEPTH */
int tool_ring_init_entries(struct io_uring *ring, unsigned int entries, unsigned int flags);

/*
 * IORING_REGISTER_NAPI with dynamic tracking (liburing 2.3 has no helper).
 * From the submitter thread, so SINGLE_ISSUER rings accept it; IOPOLL rings
 * refuse with EINVAL. Returns 0 or a negative errno.
 */
int tool_register_napi(int ring_fd, unsigned int busy_poll_us, bool prefer);

/* ADDR:PORT (IPv4 dotted quad, numeric port) or a usage error naming opt */
void tool_parse_addr(const char *opt, const char *arg, struct sockaddr_in *sin);

/* SO_INCOMING_NAPI_ID of a socket, 0 if it has none (or on error) */
unsigned int tool_socket_napi_id(int fd);

/* round trip times, for the rtt line */
struct tool_stats {
	unsigned int n;
	unsigned int cap;		/* room in samples (tool_stats_add grows it) */
	unsigned int warm;		/* --warmup-s once it has passed (stats reset) */
	double min, max, sum, sum2;	/* microseconds */
	double *samples;		/* every RTT, for percentiles */
};

/* --seconds: room for this many samples first, doubled as needed */
#define TOOL_SAMPLES_START	65536

/* one sample in microseconds; -ENOMEM (said on stderr) if it cannot grow */
int tool_stats_add(struct tool_stats *s, double us);

/* --warmup-s over: what came before is not counted (the samples stay allocated) */
void tool_stats_reset(struct tool_stats *s);

/*
 * "rtt count= min_us= avg_us= max_us= mdev_us= p50_us= p99_us= napi_id=" on
 * stdout, flushed ("rtt count=0 napi_id=" without samples); sorts them.
 */
void tool_print_rtt(struct tool_stats *st, unsigned int napi_id);

/*
 * Is ping @i to be sent? Without @seconds: while i < count. With: until that
 * much time since @start, and the samples so far are dropped once @warmup_s
 * has passed (the first ping after it is the first counted).
 */
bool tool_client_more(unsigned int count, unsigned int seconds, unsigned int warmup_s,
		      const struct timespec *start, unsigned int i, struct tool_stats *st);

/*
 * Sleep @seconds, or until SIGINT/SIGTERM, which the caller keeps blocked
 * (they end the wait, not the process).
 */
void tool_linger(unsigned int seconds);

#endif /* UT_TOOL_H */
