// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong - UDP ping-pong over io_uring, client and server, for the tests
 * and benchmarks of uringtune.
 *
 * Both sides wait for completions inside io_uring_enter(GETEVENTS): that is
 * where io_uring runs NAPI busy polling (io_cqring_wait -> io_napi_busy_loop),
 * so busy_poll_to on either ring shows up in the measured round trip time.
 * One ring and one socket per process, IPv4 only.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <liburing.h>

#include "tool.h"
#include "uring_abi.h"

#define PROG			"pingpong"
#define EXIT_RUNTIME		1
#define EXIT_USAGE		2

#define QUEUE_DEPTH		8
#define SQ_THREAD_IDLE_MS	1000
#define MAX_PAYLOAD		65507	/* largest UDP payload over IPv4 */
#define BUF_SIZE		65536	/* recv buffers: a datagram never truncates */
#define PING_TIMEOUT_S		2
#define DEFAULT_COUNT		10000
#define DEFAULT_SIZE		64
#define NSEC_PER_SEC		1000000000LL
/* server: echo buffers, so a send still in flight never shares one with a recv */
#define NR_SLOTS		4
/* server: how often a busy loop that never sleeps looks for SIGINT/SIGTERM */
#define SIGNAL_CHECK_EVERY	1024
/* client --window: pings in flight at most (a UDP socket buffer holds ~300) */
#define MAX_WINDOW		256
#define MAX_GAP_MS		60000
#define MAX_REPLY_DELAY_US	1000000
#define MAX_SECONDS		86400

enum op {
	OP_RECV = 1,
	OP_SEND = 2,
	OP_CANCEL = 3,
	OP_DELAY = 4,		/* server --reply-delay-us: the timeout before an echo */
};

#define UDATA(op, slot)		((__u64)(op) << 32 | (slot))
#define UDATA_OP(d)		((unsigned int)((d) >> 32))
#define UDATA_SLOT(d)		((unsigned int)((d) & 0xffffffffu))

enum mode {
	MODE_SERVER,
	MODE_CLIENT,
};

struct opts {
	enum mode mode;
	struct sockaddr_in addr;
	const char *addr_str;
	unsigned int count;		/* server: 0 = until a signal */
	unsigned int size;
	const struct tool_ring_kind *ring;
	unsigned int napi_us;		/* 0 = no NAPI registration */
	bool napi_prefer;
	unsigned int linger_s;
	bool quiet;
	unsigned int window;		/* client: pings in flight (1 = ping-pong) */
	unsigned int burst;		/* client: pings per burst (0 = no gaps) */
	unsigned int gap_ms;		/* client: idle time between bursts */
	bool cpu;			/* print the process's CPU time at exit */
	unsigned int seconds;		/* client: ping for this long instead of --count */
	unsigned int warmup_s;		/* client: pings in the first seconds not counted */
	unsigned int reply_delay_us;	/* server: wait before each echo (0 = none) */
};

struct slot {
	char *buf;
	struct iovec iov;
	struct msghdr msg;
	struct sockaddr_in peer;
	struct __kernel_timespec delay;	/* --reply-delay-us, read at submission */
	unsigned int len;		/* the datagram a delayed echo sends */
	bool busy;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* Report a runtime failure; returns @err (a negative errno) for the caller. */
static int fail(int err, const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(-err));
	return err;
}

static void __attribute__((format(printf, 2, 3)))
info(const struct opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->quiet)
		return;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " server --bind ADDR:PORT [--count N] [common options]\n"
		"       " PROG " client --connect ADDR:PORT [--count N] [--size BYTES] [common options]\n"
		"common options:\n"
		"  --ring plain|coop-taskrun|single-issuer|defer-taskrun|sqpoll   setup flags (plain)\n"
		"  --napi-busy-poll-us N   register NAPI busy polling (dynamic tracking) on the ring\n"
		"  --napi-prefer           set prefer_busy_poll in that registration\n"
		"  --linger SECONDS        stay alive with the ring open after the run (0)\n"
		"  --quiet                 no informational lines on stderr\n"
		"  --cpu                   print the process's user and system CPU time at the end\n"
		"client: --count pings (%d), --size payload bytes (%d, 1-%d)\n"
		"  --window N              keep N pings in flight (1-%d; 1: ping-pong) and print\n"
		"                          the throughput\n"
		"  --burst N --gap-ms M    N pings back to back, then M ms idle, until --count\n"
		"  --seconds S             ping for S seconds instead of --count (not with --window)\n"
		"  --warmup-s W            pings in the first W seconds are not counted (with --seconds)\n"
		"server: --count N echoes N datagrams then exits; default: until SIGINT/SIGTERM\n"
		"  --reply-delay-us N      wait N us (1-%d) before each echo, in io_uring\n"
		"                          (IORING_OP_TIMEOUT): a slow server\n",
		DEFAULT_COUNT, DEFAULT_SIZE, MAX_PAYLOAD, MAX_WINDOW, MAX_REPLY_DELAY_US);
}

enum {
	OPT_BIND = 256,
	OPT_CONNECT,
	OPT_COUNT,
	OPT_SIZE,
	OPT_RING,
	OPT_NAPI_US,
	OPT_NAPI_PREFER,
	OPT_LINGER,
	OPT_QUIET,
	OPT_WINDOW,
	OPT_BURST,
	OPT_GAP_MS,
	OPT_CPU,
	OPT_SECONDS,
	OPT_WARMUP_S,
	OPT_REPLY_DELAY_US,
};

static const struct option long_opts[] = {
	{ "bind",		required_argument,	NULL, OPT_BIND },
	{ "connect",		required_argument,	NULL, OPT_CONNECT },
	{ "count",		required_argument,	NULL, OPT_COUNT },
	{ "size",		required_argument,	NULL, OPT_SIZE },
	{ "ring",		required_argument,	NULL, OPT_RING },
	{ "napi-busy-poll-us",	required_argument,	NULL, OPT_NAPI_US },
	{ "napi-prefer",	no_argument,		NULL, OPT_NAPI_PREFER },
	{ "linger",		required_argument,	NULL, OPT_LINGER },
	{ "quiet",		no_argument,		NULL, OPT_QUIET },
	{ "window",		required_argument,	NULL, OPT_WINDOW },
	{ "burst",		required_argument,	NULL, OPT_BURST },
	{ "gap-ms",		required_argument,	NULL, OPT_GAP_MS },
	{ "cpu",		no_argument,		NULL, OPT_CPU },
	{ "seconds",		required_argument,	NULL, OPT_SECONDS },
	{ "warmup-s",		required_argument,	NULL, OPT_WARMUP_S },
	{ "reply-delay-us",	required_argument,	NULL, OPT_REPLY_DELAY_US },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

/* the client's --seconds and --warmup-s against --count and --window */
static void parse_client_time(const struct opts *o, bool have_count, bool have_warmup)
{
	if (o->reply_delay_us)
		tool_usage_error("--reply-delay-us: only for the server");
	if (o->seconds && have_count)
		tool_usage_error("--seconds: not with --count");
	if (o->seconds && o->window > 1)
		tool_usage_error("--seconds: not with --window");
	if (have_warmup && !o->seconds)
		tool_usage_error("--warmup-s: needs --seconds");
	if (o->warmup_s >= o->seconds && have_warmup)
		tool_usage_error("--warmup-s: must be less than --seconds");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_bind = false, have_connect = false, have_size = false;
	bool have_count = false, have_window = false, have_gap = false;
	bool have_warmup = false;
	int ac = argc - 1, c;
	char **av = argv + 1;

	memset(o, 0, sizeof(*o));
	o->size = DEFAULT_SIZE;
	o->ring = tool_parse_ring_kind("plain");
	o->window = 1;

	if (argc < 2)
		tool_usage_error("missing mode: expected 'server' or 'client' (see --help)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		exit(0);
	}
	if (!strcmp(argv[1], "server"))
		o->mode = MODE_SERVER;
	else if (!strcmp(argv[1], "client"))
		o->mode = MODE_CLIENT;
	else
		tool_usage_error("expected 'server' or 'client' first, got '%s'", argv[1]);

	/* av[0] is the mode word, which getopt skips like a program name */
	opterr = 0;
	while ((c = getopt_long(ac, av, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_BIND:
			tool_parse_addr("--bind", optarg, &o->addr);
			o->addr_str = optarg;
			have_bind = true;
			break;
		case OPT_CONNECT:
			tool_parse_addr("--connect", optarg, &o->addr);
			o->addr_str = optarg;
			have_connect = true;
			break;
		case OPT_COUNT:
			o->count = tool_parse_ulong("--count", optarg, 1, UINT32_MAX,
					       "a positive integer");
			have_count = true;
			break;
		case OPT_SIZE:
			o->size = tool_parse_ulong("--size", optarg, 1, MAX_PAYLOAD,
					      "an integer from 1 to 65507");
			have_size = true;
			break;
		case OPT_RING:
			o->ring = tool_parse_ring_kind(optarg);
			break;
		case OPT_NAPI_US:
			o->napi_us = tool_parse_ulong("--napi-busy-poll-us", optarg, 1,
						 UINT32_MAX, "a positive integer");
			break;
		case OPT_NAPI_PREFER:
			o->napi_prefer = true;
			break;
		case OPT_LINGER:
			o->linger_s = tool_parse_ulong("--linger", optarg, 0, INT32_MAX,
						  "a non-negative integer");
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case OPT_WINDOW:
			o->window = tool_parse_ulong("--window", optarg, 1, MAX_WINDOW,
						     "an integer from 1 to 256");
			have_window = true;
			break;
		case OPT_BURST:
			o->burst = tool_parse_ulong("--burst", optarg, 1, UINT32_MAX,
						    "a positive integer");
			break;
		case OPT_GAP_MS:
			o->gap_ms = tool_parse_ulong("--gap-ms", optarg, 0, MAX_GAP_MS,
						     "an integer from 0 to 60000");
			have_gap = true;
			break;
		case OPT_CPU:
			o->cpu = true;
			break;
		case OPT_SECONDS:
			o->seconds = tool_parse_ulong("--seconds", optarg, 1, MAX_SECONDS,
						      "an integer from 1 to 86400");
			break;
		case OPT_WARMUP_S:
			o->warmup_s = tool_parse_ulong("--warmup-s", optarg, 0, MAX_SECONDS,
						       "an integer from 0 to 86400");
			have_warmup = true;
			break;
		case OPT_REPLY_DELAY_US:
			o->reply_delay_us = tool_parse_ulong("--reply-delay-us", optarg, 1,
							     MAX_REPLY_DELAY_US,
							     "an integer from 1 to 1000000");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, av, OPT_BIND);
		}
	}
	if (optind < ac)
		tool_usage_error("unexpected argument '%s'", av[optind]);

	if (o->mode == MODE_SERVER) {
		if (have_connect)
			tool_usage_error("--connect: only for the client (the server takes --bind)");
		if (have_size)
			tool_usage_error("--size: only for the client");
		if (!have_bind)
			tool_usage_error("server: --bind ADDR:PORT is required");
		if (have_window || o->burst || have_gap)
			tool_usage_error("--window, --burst, --gap-ms: only for the client");
		if (o->seconds || have_warmup)
			tool_usage_error("--seconds, --warmup-s: only for the client");
	} else {
		if (have_bind)
			tool_usage_error("--bind: only for the server (the client takes --connect)");
		if (!have_connect)
			tool_usage_error("client: --connect ADDR:PORT is required");
		if (!have_count)
			o->count = DEFAULT_COUNT;
		if (o->burst && !have_gap)
			tool_usage_error("--burst: needs --gap-ms");
		if (have_gap && !o->burst)
			tool_usage_error("--gap-ms: needs --burst");
		if (o->burst && o->window > 1)
			tool_usage_error("--burst: not with --window (bursts are ping-pong)");
		parse_client_time(o, have_count, have_warmup);
		if (o->seconds)
			o->count = 0;
	}
	if (o->napi_prefer && !o->napi_us)
		tool_usage_error("--napi-prefer: needs --napi-busy-poll-us");
}

/*
 * SIGINT/SIGTERM stay blocked except while waiting in io_uring_enter (its
 * sigmask argument) or in sigtimedwait: a signal can never slip in between
 * checking stop_signal and going to sleep.
 */
static int setup_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, waitmask))
		return fail(-errno, "sigprocmask");
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	/* no SA_RESTART: an interrupted wait must return -EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return fail(-errno, "sigaction");
	return 0;
}

/* A busy server may never sleep in io_uring_enter; look for signals anyway. */
static void poll_signals(void)
{
	sigset_t pending;

	if (sigpending(&pending))
		return;
	if (sigismember(&pending, SIGTERM))
		stop_signal = SIGTERM;
	else if (sigismember(&pending, SIGINT))
		stop_signal = SIGINT;
}

static int setup_ring(const struct opts *o, struct io_uring *ring)
{
	int ret;

	ret = tool_ring_init(ring, o->ring->flags);
	if (ret < 0 || !o->napi_us)
		return ret;
	/* this single-threaded process is the submitter SINGLE_ISSUER demands */
	ret = tool_register_napi(ring->ring_fd, o->napi_us, o->napi_prefer);
	if (ret) {
		fail(ret, "IORING_REGISTER_NAPI");
		io_uring_queue_exit(ring);
	}
	return ret;
}

static void print_ring_line(const struct opts *o, const struct io_uring *ring)
{
	printf("ring pid=%d fd=%d flags=0x%x napi_busy_poll_us=%u prefer=%d\n",
	       (int)getpid(), ring->ring_fd, ring->flags, o->napi_us,
	       o->napi_prefer);
	fflush(stdout);
}

/*
 * Submit whatever is queued and wait in io_uring_enter(GETEVENTS) for @nr
 * completions, until @deadline if given. Returns 0 when the caller should
 * look at the CQ (which may still be short: timeouts and foreign signals are
 * retried by the caller), -ETIME once @deadline has passed, -EINTR on
 * SIGINT/SIGTERM, or another negative errno.
 */
static int ring_wait(struct io_uring *ring, unsigned int nr,
		     const struct timespec *deadline, sigset_t *waitmask)
{
	struct __kernel_timespec ts, *tsp = NULL;
	struct io_uring_cqe *cqe;
	int ret;

	if (deadline) {
		struct timespec now;
		long long left;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = tool_ts_diff_ns(deadline, &now);
		if (left <= 0)
			return -ETIME;
		ts.tv_sec = left / NSEC_PER_SEC;
		ts.tv_nsec = left % NSEC_PER_SEC;
		tsp = &ts;
	}
	ret = io_uring_submit_and_wait_timeout(ring, &cqe, nr, tsp, waitmask);
	if (stop_signal)
		return -EINTR;
	if (ret >= 0 || ret == -ETIME || ret == -EINTR)
		return 0;
	return ret;
}

/* Wait while the ring stays open, so that tests can inspect it. */
static void linger(const struct opts *o)
{
	if (!o->linger_s || stop_signal)
		return;
	info(o, "lingering %u s", o->linger_s);
	tool_linger(o->linger_s);
}

/* --cpu: this process's CPU time so far, all its threads (an SQPOLL thread too) */
static void print_cpu(const struct opts *o)
{
	struct rusage ru;

	if (!o->cpu)
		return;
	if (getrusage(RUSAGE_SELF, &ru)) {
		fail(-errno, "getrusage");
		return;
	}
	printf("cpu user_us=%lld sys_us=%lld\n",
	       (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec);
	fflush(stdout);
}

/* --burst: the idle gap, asleep outside io_uring (SIGINT/SIGTERM stay pending) */
static void burst_gap(const struct opts *o)
{
	struct timespec gap = {
		.tv_sec = o->gap_ms / 1000,
		.tv_nsec = (long)(o->gap_ms % 1000) * 1000000,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, &gap) == EINTR)
		;
}

static int client_cqe(const struct opts *o, const struct io_uring_cqe *cqe,
		      unsigned int seq, const char *rbuf, bool *got_send,
		      bool *got_recv, struct timespec *t_recv)
{
	unsigned int got;

	switch (UDATA_OP(cqe->user_data)) {
	case OP_SEND:
		if (cqe->res < 0)
			return fail(cqe->res, "send");
		if ((unsigned int)cqe->res != o->size) {
			fprintf(stderr, PROG ": send: sent %d of %u bytes (ping %u)\n",
				cqe->res, o->size, seq);
			return -EIO;
		}
		*got_send = true;
		return 0;
	case OP_RECV:
		clock_gettime(CLOCK_MONOTONIC, t_recv);
		if (cqe->res < 0)
			return fail(cqe->res, "recv");
		if ((unsigned int)cqe->res != o->size) {
			fprintf(stderr, PROG ": reply of %d bytes, expected %u (ping %u)\n",
				cqe->res, o->size, seq);
			return -EIO;
		}
		if (o->size >= sizeof(seq)) {
			memcpy(&got, rbuf, sizeof(got));
			if (got != seq) {
				fprintf(stderr, PROG ": reply to ping %u, expected %u\n",
					got, seq);
				return -EIO;
			}
		}
		*got_recv = true;
		return 0;
	}
	fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
		(unsigned long long)cqe->user_data);
	return -EIO;
}

/*
 * One ping: the recv and the send go in ONE submission, recv first, and the
 * same io_uring_enter then waits for both completions. The recv finds no
 * data and arms poll on the socket (which is also where dynamic NAPI tracking
 * learns the socket's NAPI ID) before the send leaves, so the reply can never
 * race past it; the send completes inline, and the thread sleeps or busy
 * polls in io_cqring_wait until the echo arrives: the natural "submit, then
 * wait in io_uring_enter" pattern, one syscall per round trip.
 */
static int ping_once(const struct opts *o, struct io_uring *ring, int fd,
		     unsigned int seq, char *sbuf, char *rbuf,
		     sigset_t *waitmask, struct tool_stats *st)
{
	bool got_send = false, got_recv = false;
	struct timespec t0, t1, deadline;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int head, seen;
	int ret, err;

	if (o->size >= sizeof(seq))
		memcpy(sbuf, &seq, sizeof(seq));

	/* QUEUE_DEPTH SQEs and everything submitted each round: cannot fail */
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_recv(sqe, fd, rbuf, BUF_SIZE, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, 0));
	sqe = io_uring_get_sqe(ring);
	io_uring_prep_send(sqe, fd, sbuf, o->size, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, 0));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	deadline = t0;
	deadline.tv_sec += PING_TIMEOUT_S;
	while (!got_send || !got_recv) {
		ret = ring_wait(ring, !got_send + !got_recv, &deadline, waitmask);
		if (ret == -ETIME) {
			fprintf(stderr, PROG ": no reply within %d s (ping %u)\n",
				PING_TIMEOUT_S, seq);
			return ret;
		}
		if (ret == -EINTR) {
			fprintf(stderr, PROG ": interrupted by signal %d (ping %u)\n",
				(int)stop_signal, seq);
			return ret;
		}
		if (ret < 0)
			return fail(ret, "io_uring_enter");

		err = 0;
		seen = 0;
		io_uring_for_each_cqe(ring, head, cqe) {
			seen++;
			if (!err)
				err = client_cqe(o, cqe, seq, rbuf, &got_send,
						 &got_recv, &t1);
		}
		io_uring_cq_advance(ring, seen);
		if (err)
			return err;
	}
	return tool_stats_add(st, tool_ts_diff_ns(&t1, &t0) / 1000.0);
}

/* --window: one ping in flight per slot, slot = seq % window */
struct wslot {
	char *buf;			/* the ping's payload, seq first */
	struct timespec t0;		/* submitted */
	unsigned int seq;
	bool busy;			/* until both its send CQE and its reply */
	bool sent;
	bool replied;
};

struct window {
	const struct opts *o;
	struct io_uring ring;
	int fd;
	struct wslot *slots;
	char *rbuf;
	bool recv_armed;
	unsigned int replies;
};

/*
 * The ring of --window: room for a whole window of sends and the recv in one
 * submission, and their CQEs (tool_ring_init's depth of 8 would not do).
 */
static int window_ring(const struct opts *o, struct io_uring *ring)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = o->ring->flags;
	if (p.flags & UT_SETUP_SQPOLL)
		p.sq_thread_idle = SQ_THREAD_IDLE_MS;
	ret = io_uring_queue_init_params(2 * (o->window + 1), ring, &p);
	if (ret < 0)
		return fail(ret, "io_uring_setup");
	if (!o->napi_us)
		return 0;
	ret = tool_register_napi(ring->ring_fd, o->napi_us, o->napi_prefer);
	if (ret) {
		fail(ret, "IORING_REGISTER_NAPI");
		io_uring_queue_exit(ring);
	}
	return ret;
}

static int window_cqe(struct window *w, const struct io_uring_cqe *cqe, struct tool_stats *st)
{
	const struct opts *o = w->o;
	unsigned int idx = UDATA_SLOT(cqe->user_data), got;
	struct timespec now;
	struct wslot *sl;

	if (UDATA_OP(cqe->user_data) == OP_SEND) {
		sl = &w->slots[idx];
		if (cqe->res < 0)
			return fail(cqe->res, "send");
		if ((unsigned int)cqe->res != o->size) {
			fprintf(stderr, PROG ": send: sent %d of %u bytes (ping %u)\n",
				cqe->res, o->size, sl->seq);
			return -EIO;
		}
		sl->sent = true;
		sl->busy = !sl->replied;
		return 0;
	}
	if (UDATA_OP(cqe->user_data) != OP_RECV) {
		fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
			(unsigned long long)cqe->user_data);
		return -EIO;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	w->recv_armed = false;
	if (cqe->res < 0)
		return fail(cqe->res, "recv");
	if ((unsigned int)cqe->res != o->size) {
		fprintf(stderr, PROG ": reply of %d bytes, expected %u\n", cqe->res, o->size);
		return -EIO;
	}
	/* without a sequence number in the payload, replies come in order on veth */
	got = w->replies;
	if (o->size >= sizeof(got))
		memcpy(&got, w->rbuf, sizeof(got));
	sl = &w->slots[got % o->window];
	if (!sl->busy || sl->replied || sl->seq != got) {
		fprintf(stderr, PROG ": unexpected reply to ping %u\n", got);
		return -EIO;
	}
	sl->replied = true;
	sl->busy = !sl->sent;
	w->replies++;
	/* the samples hold --count: never grows here */
	return tool_stats_add(st, tool_ts_diff_ns(&now, &sl->t0) / 1000.0);
}

/*
 * One loop: arm the recv if none is armed (first, so that it arms poll
 * before the replies to the new pings come), fill every free slot with the
 * next ping, then submit and wait for one completion. Replies queued on the
 * socket complete the next recv inline.
 */
static int window_loop(struct window *w, struct tool_stats *st, sigset_t *waitmask)
{
	const struct opts *o = w->o;
	struct timespec now, deadline;
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int next = 0, head, seen, done, i, nr_new;
	struct wslot *fresh[MAX_WINDOW];
	int ret, err;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += PING_TIMEOUT_S;
	while (w->replies < o->count) {
		if (!w->recv_armed) {
			sqe = io_uring_get_sqe(&w->ring);
			io_uring_prep_recv(sqe, w->fd, w->rbuf, BUF_SIZE, 0);
			io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, 0));
			w->recv_armed = true;
		}
		nr_new = 0;
		while (next < o->count && !w->slots[next % o->window].busy) {
			struct wslot *sl = &w->slots[next % o->window];

			sl->seq = next;
			sl->busy = true;
			sl->sent = sl->replied = false;
			if (o->size >= sizeof(next))
				memcpy(sl->buf, &next, sizeof(next));
			sqe = io_uring_get_sqe(&w->ring);
			io_uring_prep_send(sqe, w->fd, sl->buf, o->size, 0);
			io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, next % o->window));
			fresh[nr_new++] = sl;
			next++;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		for (i = 0; i < nr_new; i++)
			fresh[i]->t0 = now;

		ret = ring_wait(&w->ring, 1, &deadline, waitmask);
		if (ret == -ETIME) {
			fprintf(stderr, PROG ": no reply within %d s (ping %u)\n",
				PING_TIMEOUT_S, w->replies);
			return ret;
		}
		if (ret == -EINTR) {
			fprintf(stderr, PROG ": interrupted by signal %d (ping %u)\n",
				(int)stop_signal, w->replies);
			return ret;
		}
		if (ret < 0)
			return fail(ret, "io_uring_enter");

		done = w->replies;
		err = 0;
		seen = 0;
		io_uring_for_each_cqe(&w->ring, head, cqe) {
			seen++;
			if (!err)
				err = window_cqe(w, cqe, st);
		}
		io_uring_cq_advance(&w->ring, seen);
		if (err)
			return err;
		if (w->replies != done) {
			/* the timeout runs from the last reply, as for one ping */
			clock_gettime(CLOCK_MONOTONIC, &deadline);
			deadline.tv_sec += PING_TIMEOUT_S;
		}
	}
	return 0;
}

/*
 * --window N: N pings in flight on one ring and socket; prints the rtt line
 * (each ping's send to its reply, queueing included) and the throughput.
 */
static int run_window(const struct opts *o, int fd, struct tool_stats *st, sigset_t *waitmask)
{
	struct timespec t0, t1;
	struct window w = { .o = o, .fd = fd };
	bool ring_up = false;
	double secs;
	unsigned int i;
	int ret;

	w.slots = calloc(o->window, sizeof(*w.slots));
	w.rbuf = calloc(1, BUF_SIZE);
	if (!w.slots || !w.rbuf) {
		ret = fail(-ENOMEM, "calloc");
		goto out;
	}
	for (i = 0; i < o->window; i++) {
		w.slots[i].buf = malloc(o->size);
		if (!w.slots[i].buf) {
			ret = fail(-ENOMEM, "malloc");
			goto out;
		}
		memset(w.slots[i].buf, 'p', o->size);
	}
	ret = window_ring(o, &w.ring);
	if (ret)
		goto out;
	ring_up = true;
	print_ring_line(o, &w.ring);
	info(o, "%u pings of %u bytes to %s, %u in flight, ring %s, napi busy poll %u us%s",
	     o->count, o->size, o->addr_str, o->window, o->ring->name, o->napi_us,
	     o->napi_prefer ? " (prefer)" : "");

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = window_loop(&w, st, waitmask);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret)
		goto out;
	secs = tool_ts_diff_ns(&t1, &t0) / 1e9;
	tool_print_rtt(st, tool_socket_napi_id(fd));
	printf("throughput pps=%.0f count=%u window=%u seconds=%.3f\n",
	       w.replies / secs, w.replies, o->window, secs);
	fflush(stdout);
	print_cpu(o);
	linger(o);
out:
	if (ring_up)
		io_uring_queue_exit(&w.ring);
	if (w.slots)
		for (i = 0; i < o->window; i++)
			free(w.slots[i].buf);
	free(w.slots);
	free(w.rbuf);
	return ret;
}

static int run_client(const struct opts *o, sigset_t *waitmask)
{
	char *sbuf = NULL, *rbuf = NULL;
	struct tool_stats st = { 0 };
	struct timespec start;
	struct io_uring ring;
	bool ring_up = false;
	unsigned int i;
	int fd, ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(-errno, "socket");
	/* connected: plain SEND/RECV, and replies from anyone else are dropped */
	if (connect(fd, (struct sockaddr *)&o->addr, sizeof(o->addr))) {
		ret = fail(-errno, "connect");
		goto out;
	}
	sbuf = calloc(1, o->size);
	rbuf = calloc(1, BUF_SIZE);
	if (!sbuf || !rbuf) {
		ret = fail(-ENOMEM, "calloc");
		goto out;
	}
	memset(sbuf, 'p', o->size);
	/* --seconds: tool_stats_add grows it */
	st.cap = o->seconds ? TOOL_SAMPLES_START : o->count;
	st.samples = calloc(st.cap, sizeof(*st.samples));
	if (!st.samples) {
		ret = fail(-ENOMEM, "calloc");
		goto out;
	}

	if (o->window > 1) {
		ret = run_window(o, fd, &st, waitmask);
		goto out;
	}

	ret = setup_ring(o, &ring);
	if (ret)
		goto out;
	ring_up = true;
	print_ring_line(o, &ring);
	info(o, "%u %s of %u bytes to %s, ring %s, napi busy poll %u us%s",
	     o->seconds ? o->seconds : o->count, o->seconds ? "s of pings" : "pings", o->size, o->addr_str, o->ring->name, o->napi_us,
	     o->napi_prefer ? " (prefer)" : "");

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; tool_client_more(o->count, o->seconds, o->warmup_s, &start, i, &st); i++) {
		ret = ping_once(o, &ring, fd, i, sbuf, rbuf, waitmask, &st);
		if (ret)
			goto out;
		if (o->burst && (i + 1) % o->burst == 0 && (o->seconds || i + 1 < o->count))
			burst_gap(o);
	}

	tool_print_rtt(&st, tool_socket_napi_id(fd));
	print_cpu(o);
	linger(o);
	ret = 0;
out:
	if (ring_up)
		io_uring_queue_exit(&ring);
	free(st.samples);
	free(sbuf);
	free(rbuf);
	close(fd);
	return ret;
}

struct server {
	const struct opts *o;
	struct io_uring ring;
	int fd;
	struct slot slots[NR_SLOTS];
	unsigned int inflight;		/* requests submitted or queued, no CQE yet */
	unsigned int echoes;		/* sendmsg queued, or its delay */
	unsigned int delays;		/* --reply-delay-us timeouts in flight */
	unsigned int served;		/* sendmsg completed */
	bool need_recv;			/* no free slot: rearm on a send CQE */
	bool draining;			/* exiting: CQEs are only counted */
};

/* slot @idx's msghdr for @len bytes of its buffer, from or to its peer */
static void slot_msg(struct slot *sl, size_t len)
{
	/* IPv4 only, so the peer is always a sockaddr_in */
	memset(&sl->msg, 0, sizeof(sl->msg));
	sl->iov.iov_base = sl->buf;
	sl->iov.iov_len = len;
	sl->msg.msg_name = &sl->peer;
	sl->msg.msg_namelen = sizeof(sl->peer);
	sl->msg.msg_iov = &sl->iov;
	sl->msg.msg_iovlen = 1;
}

static int server_recv(struct server *s, unsigned int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	struct slot *sl = &s->slots[idx];

	/* at most NR_SLOTS requests in flight: cannot happen */
	if (!sqe)
		return fail(-EBUSY, "io_uring_get_sqe");
	slot_msg(sl, BUF_SIZE);
	io_uring_prep_recvmsg(sqe, s->fd, &sl->msg, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, idx));
	sl->busy = true;
	s->inflight++;
	return 0;
}

/* Echo what slot @idx received back to its sender, from the same buffer. */
static int server_send(struct server *s, unsigned int idx, unsigned int len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	struct slot *sl = &s->slots[idx];

	if (!sqe)
		return fail(-EBUSY, "io_uring_get_sqe");
	slot_msg(sl, len);
	io_uring_prep_sendmsg(sqe, s->fd, &sl->msg, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, idx));
	s->inflight++;
	return 0;
}

/*
 * --reply-delay-us: a pure timer (IORING_OP_TIMEOUT, count 0) first; its
 * completion queues the echo. The thread waits for it in io_uring_enter,
 * busy polling or asleep, as a server that takes that long would.
 */
static int server_delay(struct server *s, unsigned int idx, unsigned int len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	struct slot *sl = &s->slots[idx];

	if (!sqe)
		return fail(-EBUSY, "io_uring_get_sqe");
	sl->len = len;
	sl->delay.tv_sec = s->o->reply_delay_us / 1000000;
	sl->delay.tv_nsec = (long long)(s->o->reply_delay_us % 1000000) * 1000;
	io_uring_prep_timeout(sqe, &sl->delay, 0, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_DELAY, idx));
	s->inflight++;
	s->delays++;
	return 0;
}

static int free_slot(const struct slot *slots)
{
	int i;

	for (i = 0; i < NR_SLOTS; i++)
		if (!slots[i].busy)
			return i;
	return -1;
}

static int server_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	unsigned int idx = UDATA_SLOT(cqe->user_data);
	int ret, i;

	s->inflight--;
	if (UDATA_OP(cqe->user_data) == OP_DELAY)
		s->delays--;
	/* canceled requests complete with -ECANCELED: not an error now */
	if (s->draining) {
		if (UDATA_OP(cqe->user_data) == OP_SEND && cqe->res >= 0)
			s->served++;
		return 0;
	}
	if (UDATA_OP(cqe->user_data) == OP_SEND) {
		if (cqe->res < 0)
			return fail(cqe->res, "sendmsg");
		s->slots[idx].busy = false;
		s->served++;
		if (!s->need_recv)
			return 0;
		s->need_recv = false;
		return server_recv(s, idx);
	}
	if (UDATA_OP(cqe->user_data) == OP_DELAY) {
		/* a pure timer ends with -ETIME */
		if (cqe->res != -ETIME)
			return fail(cqe->res < 0 ? cqe->res : -EIO, "reply delay");
		return server_send(s, idx, s->slots[idx].len);
	}

	if (cqe->res < 0)
		return fail(cqe->res, "recvmsg");
	if (s->o->reply_delay_us)
		ret = server_delay(s, idx, cqe->res);
	else
		ret = server_send(s, idx, cqe->res);
	if (ret)
		return ret;
	s->echoes++;
	/* with --count, the last echo must not leave a recv to wait for */
	if (s->o->count && s->echoes >= s->o->count)
		return 0;
	i = free_slot(s->slots);
	if (i < 0) {
		s->need_recv = true;
		return 0;
	}
	return server_recv(s, i);
}

/* Handle every CQE already posted; no waiting. */
static int server_reap(struct server *s)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int err = 0;

	io_uring_for_each_cqe(&s->ring, head, cqe) {
		seen++;
		if (!err)
			err = server_cqe(s, cqe);
	}
	io_uring_cq_advance(&s->ring, seen);
	return err;
}

/*
 * Cancel the pending recvmsg and reap everything before exiting. A request
 * in flight holds the socket, and io_uring tears a ring down in a worker
 * after the process is gone: without this the port stays bound for a moment
 * and a server restarted on it at once fails with EADDRINUSE.
 */
static void server_drain(struct server *s, sigset_t *waitmask)
{
	struct io_uring_sqe *sqe;
	struct timespec deadline;
	int ret;

	if (!s->inflight)
		return;
	sqe = io_uring_get_sqe(&s->ring);
	if (!sqe)
		return;
	/* --reply-delay-us: the timers are on no fd; cancel every request */
	if (s->delays)
		io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	else
		io_uring_prep_cancel_fd(sqe, s->fd, IORING_ASYNC_CANCEL_ALL);
	io_uring_sqe_set_data64(sqe, UDATA(OP_CANCEL, 0));
	s->inflight++;
	s->draining = true;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec++;
	while (s->inflight) {
		ret = ring_wait(&s->ring, s->inflight, &deadline, waitmask);
		/* after SIGINT/SIGTERM, -EINTR only repeats that stop_signal is set */
		if (ret < 0 && ret != -EINTR)
			break;
		server_reap(s);
	}
}

static int run_server(const struct opts *o, sigset_t *waitmask)
{
	struct server *s;
	bool ring_up = false;
	unsigned int loops = 0;
	int ret, i;

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail(-ENOMEM, "calloc");
	s->o = o;
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		ret = fail(-errno, "socket");
		goto out;
	}
	if (bind(s->fd, (struct sockaddr *)&o->addr, sizeof(o->addr))) {
		ret = fail(-errno, "bind");
		goto out;
	}
	for (i = 0; i < NR_SLOTS; i++) {
		s->slots[i].buf = calloc(1, BUF_SIZE);
		if (!s->slots[i].buf) {
			ret = fail(-ENOMEM, "calloc");
			goto out;
		}
	}

	ret = setup_ring(o, &s->ring);
	if (ret)
		goto out;
	ring_up = true;
	print_ring_line(o, &s->ring);
	info(o, "serving on %s, ring %s, napi busy poll %u us%s", o->addr_str,
	     o->ring->name, o->napi_us, o->napi_prefer ? " (prefer)" : "");

	ret = server_recv(s, 0);
	if (ret)
		goto out;

	/*
	 * Each echo queues its sendmsg and the next recvmsg; one io_uring_enter
	 * submits both and waits for both: the send completes inline, then the
	 * thread sleeps (or busy polls) in io_cqring_wait for the next datagram.
	 */
	while (!o->count || s->served < o->count) {
		/*
		 * liburing 2.3 re-enters the wait after -EINTR, so a signal
		 * alone never ends it: wake up every 200 ms to look at
		 * stop_signal. Far above any busy-poll timeout (10 ms cap), so
		 * the kernel's busy polling is unchanged.
		 */
		struct timespec deadline;

		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_nsec += 200 * 1000 * 1000;
		if (deadline.tv_nsec >= NSEC_PER_SEC) {
			deadline.tv_sec++;
			deadline.tv_nsec -= NSEC_PER_SEC;
		}
		/*
		 * Wait for everything in flight, but with a --reply-delay-us
		 * timer pending for one completion: the next recvmsg waits for
		 * a ping that the delayed echo has yet to cause.
		 */
		ret = ring_wait(&s->ring, s->delays ? 1 : s->inflight, &deadline, waitmask);
		if (ret == -ETIME)
			ret = 0;
		if (ret == -EINTR)
			break;
		if (ret < 0) {
			fail(ret, "io_uring_enter");
			goto out;
		}
		ret = server_reap(s);
		if (ret)
			goto out;
		if (++loops % SIGNAL_CHECK_EVERY == 0)
			poll_signals();
		if (stop_signal)
			break;
	}
	/* the last echo's send CQE may be posted but not yet reaped */
	ret = server_reap(s);
	if (ret)
		goto out;
	server_drain(s, waitmask);

	printf("served count=%u napi_id=%u\n", s->served, tool_socket_napi_id(s->fd));
	fflush(stdout);
	print_cpu(o);
	if (!stop_signal)
		linger(o);
	ret = 0;
out:
	if (ring_up)
		io_uring_queue_exit(&s->ring);
	for (i = 0; i < NR_SLOTS; i++)
		free(s->slots[i].buf);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return ret;
}

int main(int argc, char **argv)
{
	sigset_t waitmask;
	struct opts o;
	int ret;

	tool_prog = PROG;
	parse_args(argc, argv, &o);
	if (setup_signals(&waitmask))
		return EXIT_RUNTIME;
	if (o.mode == MODE_SERVER)
		ret = run_server(&o, &waitmask);
	else
		ret = run_client(&o, &waitmask);
	return ret ? EXIT_RUNTIME : 0;
}
