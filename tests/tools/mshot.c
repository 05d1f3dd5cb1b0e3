// SPDX-License-Identifier: GPL-2.0-only
/*
 * mshot - echo traffic over the io_uring receive patterns that servers use,
 * client and server, for the tests of uringtune.
 *
 * pingpong re-arms a single-shot recv before every wait, so every wait
 * follows a poll arm (where dynamic NAPI tracking learns a socket's NAPI
 * ID). Servers mostly arm a multishot receive once, over a ring of provided
 * buffers, and then only wait: that is what this tool does, with UDP
 * (multishot recvmsg), TCP (multishot accept, then a multishot recv on each
 * connection) and TCP with receive bundles, and a single-shot UDP recv to
 * compare with. How each wait is done (plain, with a timeout, or with a
 * minimum wait) is an option too: each one is exactly one io_uring_enter,
 * made here with the system call itself.
 *
 * One ring and one data socket per process (the TCP server: one per
 * connection), one thread, IPv4 only.
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
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <liburing.h>

#include "tool.h"
#include "uring_abi.h"

#define PROG			"mshot"
#define EXIT_RUNTIME		1
#define EXIT_NO_BUNDLE		3	/* tcp-bundle on a kernel without receive bundles */

#define RING_ENTRIES		64	/* SQ; the CQ has twice as many */
#define MAX_PAYLOAD		65507	/* largest UDP payload over IPv4; TCP too */
#define DEFAULT_COUNT		10000
#define DEFAULT_SIZE		64
#define MAX_SECONDS		86400
#define PING_TIMEOUT_S		2
#define NSEC_PER_SEC		1000000000LL
/* client: SIGALRM this often, so that a plain wait for a lost reply ends */
#define TICK_MS			250
/* how often a loop that never sleeps looks for SIGINT/SIGTERM */
#define SIGNAL_CHECK_EVERY	1024
/* --wait timeout:US and min-wait:US: at most 10 s */
#define MAX_WAIT_US		10000000
/* --wait min-wait:US: the batch each wait asks for, and its overall timeout */
#define MIN_WAIT_NR		8
#define MIN_WAIT_TIMEOUT_S	1
/* the server's exit: how long it waits for its canceled requests */
#define DRAIN_TIMEOUT_S		1

/* provided buffers: one group per ring */
#define BGID			0
/* udp-multishot: struct io_uring_recvmsg_out, the peer's address, a whole datagram */
#define UDP_BUF_SIZE		(MAX_PAYLOAD + 128)
#define UDP_NR_BUFS		16
/* TCP: small buffers, so that a bundle can hold several */
#define TCP_BUF_SIZE		4096
#define TCP_NR_BUFS		64
#define MAX_CONNS		16
/* recv: the single-shot pattern's own buffers (server: one per request) */
#define NR_SLOTS		4
#define SLOT_BUF_SIZE		65536

enum op {
	OP_RECV = 1,
	OP_SEND = 2,
	OP_ACCEPT = 3,
	OP_CANCEL = 4,
};

#define UDATA(op, idx)		((__u64)(op) << 32 | (idx))
#define UDATA_OP(d)		((unsigned int)((d) >> 32))
#define UDATA_IDX(d)		((unsigned int)((d) & 0xffffffffu))

enum mode {
	MODE_SERVER,
	MODE_CLIENT,
};

enum pattern {
	PAT_RECV,
	PAT_UDP_MSHOT,
	PAT_TCP_MSHOT,
	PAT_TCP_BUNDLE,
};

static const char *const pattern_names[] = {
	[PAT_RECV] = "recv",
	[PAT_UDP_MSHOT] = "udp-multishot",
	[PAT_TCP_MSHOT] = "tcp-multishot",
	[PAT_TCP_BUNDLE] = "tcp-bundle",
};

enum wait_mode {
	WAIT_PLAIN,
	WAIT_TIMEOUT,
	WAIT_MIN,
};

struct opts {
	enum mode mode;
	enum pattern pattern;
	struct sockaddr_in addr;
	const char *addr_str;
	unsigned int count;		/* client; 0 with --seconds */
	unsigned int size;
	const struct tool_ring_kind *ring;
	unsigned int napi_us;		/* 0 = no NAPI registration */
	bool napi_prefer;
	enum wait_mode wait;
	unsigned int wait_us;		/* timeout:US, min-wait:US */
	bool registered_ring;
	unsigned int linger_s;
	bool cpu;
	bool quiet;
	unsigned int seconds;		/* client: ping for this long instead of --count */
	unsigned int warmup_s;
	bool socket_via_scm;		/* server: a child makes the data socket */
};

static bool is_tcp(const struct opts *o)
{
	return o->pattern == PAT_TCP_MSHOT || o->pattern == PAT_TCP_BUNDLE;
}

static bool is_multishot(const struct opts *o)
{
	return o->pattern != PAT_RECV;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* SIGALRM: only to end a wait */
static void on_tick(int sig)
{
	(void)sig;
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

static void __attribute__((noreturn)) bundle_refused(void)
{
	fprintf(stderr, PROG ": recv bundles not supported by this kernel\n");
	fflush(stdout);
	exit(EXIT_NO_BUNDLE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " server --pattern P --bind ADDR:PORT [--socket-via-scm] [common options]\n"
		"       " PROG " client --pattern P --connect ADDR:PORT [--count N | --seconds S\n"
		"             [--warmup-s W]] [--size BYTES] [common options]\n"
		"patterns:\n"
		"  recv            UDP, a single-shot recv armed before every wait (as pingpong)\n"
		"  udp-multishot   UDP, one multishot recvmsg over a provided buffer ring\n"
		"  tcp-multishot   TCP, multishot accept, then one multishot recv per connection\n"
		"  tcp-bundle      tcp-multishot with receive bundles (6.10+; exit 3 without)\n"
		"common options:\n"
		"  --ring plain|coop-taskrun|single-issuer|defer-taskrun|sqpoll   setup flags (plain)\n"
		"  --napi-busy-poll-us N   register NAPI busy polling (dynamic tracking) on the ring\n"
		"  --napi-prefer           set prefer_busy_poll in that registration\n"
		"  --wait plain|timeout:US|min-wait:US   how each io_uring_enter waits (plain)\n"
		"  --registered-ring       register the ring fd; waits go through its index\n"
		"  --linger SECONDS        client: stay alive with the ring open after the run (0)\n"
		"  --cpu                   print the process's and the ring thread's CPU time\n"
		"  --quiet                 no informational lines on stderr\n"
		"client: --count pings (%d), --size payload bytes (%d, 1-%d); --seconds S\n"
		"  instead of --count, --warmup-s W: pings in the first W seconds not counted\n"
		"server: until SIGINT/SIGTERM; --socket-via-scm: a child process makes the data\n"
		"  socket (bound; TCP: listening) and passes it over SCM_RIGHTS\n",
		DEFAULT_COUNT, DEFAULT_SIZE, MAX_PAYLOAD);
}

enum {
	OPT_PATTERN = 256,
	OPT_BIND,
	OPT_CONNECT,
	OPT_COUNT,
	OPT_SIZE,
	OPT_RING,
	OPT_NAPI_US,
	OPT_NAPI_PREFER,
	OPT_WAIT,
	OPT_REGISTERED_RING,
	OPT_LINGER,
	OPT_CPU,
	OPT_QUIET,
	OPT_SECONDS,
	OPT_WARMUP_S,
	OPT_SOCKET_VIA_SCM,
};

static const struct option long_opts[] = {
	{ "pattern",		required_argument,	NULL, OPT_PATTERN },
	{ "bind",		required_argument,	NULL, OPT_BIND },
	{ "connect",		required_argument,	NULL, OPT_CONNECT },
	{ "count",		required_argument,	NULL, OPT_COUNT },
	{ "size",		required_argument,	NULL, OPT_SIZE },
	{ "ring",		required_argument,	NULL, OPT_RING },
	{ "napi-busy-poll-us",	required_argument,	NULL, OPT_NAPI_US },
	{ "napi-prefer",	no_argument,		NULL, OPT_NAPI_PREFER },
	{ "wait",		required_argument,	NULL, OPT_WAIT },
	{ "registered-ring",	no_argument,		NULL, OPT_REGISTERED_RING },
	{ "linger",		required_argument,	NULL, OPT_LINGER },
	{ "cpu",		no_argument,		NULL, OPT_CPU },
	{ "quiet",		no_argument,		NULL, OPT_QUIET },
	{ "seconds",		required_argument,	NULL, OPT_SECONDS },
	{ "warmup-s",		required_argument,	NULL, OPT_WARMUP_S },
	{ "socket-via-scm",	no_argument,		NULL, OPT_SOCKET_VIA_SCM },
	{ "help",		no_argument,		NULL, 'h' },
	{ NULL,			0,			NULL, 0 },
};

static enum pattern parse_pattern(const char *arg)
{
	for (size_t i = 0; i < sizeof(pattern_names) / sizeof(pattern_names[0]); i++)
		if (!strcmp(arg, pattern_names[i]))
			return i;
	tool_usage_error("--pattern: expected recv, udp-multishot, tcp-multishot or tcp-bundle, got '%s'",
			 arg);
}

static void parse_wait(const char *arg, struct opts *o)
{
	static const char timeout[] = "timeout:", min_wait[] = "min-wait:";
	const char *us;

	if (!strcmp(arg, "plain")) {
		o->wait = WAIT_PLAIN;
		return;
	}
	if (!strncmp(arg, timeout, sizeof(timeout) - 1)) {
		o->wait = WAIT_TIMEOUT;
		us = arg + sizeof(timeout) - 1;
		o->wait_us = tool_parse_ulong("--wait timeout:US", us, 1, MAX_WAIT_US,
					      "microseconds from 1 to 10000000");
		return;
	}
	if (!strncmp(arg, min_wait, sizeof(min_wait) - 1)) {
		o->wait = WAIT_MIN;
		us = arg + sizeof(min_wait) - 1;
		o->wait_us = tool_parse_ulong("--wait min-wait:US", us, 1, MAX_WAIT_US,
					      "microseconds from 1 to 10000000");
		return;
	}
	tool_usage_error("--wait: expected plain, timeout:US or min-wait:US, got '%s'", arg);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_bind = false, have_connect = false, have_size = false;
	bool have_count = false, have_warmup = false, have_pattern = false;
	bool have_linger = false;
	int ac = argc - 1, c;
	char **av = argv + 1;

	memset(o, 0, sizeof(*o));
	o->size = DEFAULT_SIZE;
	o->ring = tool_parse_ring_kind("plain");
	o->wait = WAIT_PLAIN;

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
		case OPT_PATTERN:
			o->pattern = parse_pattern(optarg);
			have_pattern = true;
			break;
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
		case OPT_WAIT:
			parse_wait(optarg, o);
			break;
		case OPT_REGISTERED_RING:
			o->registered_ring = true;
			break;
		case OPT_LINGER:
			o->linger_s = tool_parse_ulong("--linger", optarg, 0, INT32_MAX,
						       "a non-negative integer");
			have_linger = true;
			break;
		case OPT_CPU:
			o->cpu = true;
			break;
		case OPT_QUIET:
			o->quiet = true;
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
		case OPT_SOCKET_VIA_SCM:
			o->socket_via_scm = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, av, OPT_PATTERN);
		}
	}
	if (optind < ac)
		tool_usage_error("unexpected argument '%s'", av[optind]);
	if (!have_pattern)
		tool_usage_error("--pattern: required (recv, udp-multishot, tcp-multishot or tcp-bundle)");

	if (o->mode == MODE_SERVER) {
		if (have_connect)
			tool_usage_error("--connect: only for the client (the server takes --bind)");
		if (!have_bind)
			tool_usage_error("server: --bind ADDR:PORT is required");
		if (have_count || have_size || o->seconds || have_warmup)
			tool_usage_error("--count, --size, --seconds, --warmup-s: only for the client");
		if (have_linger)
			tool_usage_error("--linger: only for the client (the server runs until a signal)");
	} else {
		if (have_bind)
			tool_usage_error("--bind: only for the server (the client takes --connect)");
		if (o->socket_via_scm)
			tool_usage_error("--socket-via-scm: only for the server");
		if (!have_connect)
			tool_usage_error("client: --connect ADDR:PORT is required");
		if (o->seconds && have_count)
			tool_usage_error("--seconds: not with --count");
		if (have_warmup && !o->seconds)
			tool_usage_error("--warmup-s: needs --seconds");
		if (have_warmup && o->warmup_s >= o->seconds)
			tool_usage_error("--warmup-s: must be less than --seconds");
		if (!have_count && !o->seconds)
			o->count = DEFAULT_COUNT;
	}
	if (o->napi_prefer && !o->napi_us)
		tool_usage_error("--napi-prefer: needs --napi-busy-poll-us");
}

/*
 * SIGINT, SIGTERM and SIGALRM stay blocked except while waiting in
 * io_uring_enter (its sigmask argument) or in sigtimedwait: a signal can
 * never slip in between checking stop_signal and going to sleep.
 */
static int setup_signals(sigset_t *waitmask)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction tick = { .sa_handler = on_tick };
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGALRM);
	if (sigprocmask(SIG_BLOCK, &block, waitmask))
		return fail(-errno, "sigprocmask");
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGALRM);
	/* no SA_RESTART: an interrupted wait must return -EINTR */
	sigemptyset(&sa.sa_mask);
	sigemptyset(&tick.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL) ||
	    sigaction(SIGALRM, &tick, NULL))
		return fail(-errno, "sigaction");
	/* a TCP peer gone: the send fails with EPIPE (MSG_NOSIGNAL too) */
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* A busy loop may never sleep in io_uring_enter; look for signals anyway. */
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

/* the client's SIGALRM every TICK_MS (0: off) */
static int set_tick(unsigned int ms)
{
	struct itimerval it = {
		.it_interval = { .tv_sec = 0, .tv_usec = ms * 1000 },
		.it_value = { .tv_sec = 0, .tv_usec = ms * 1000 },
	};

	if (setitimer(ITIMER_REAL, &it, NULL))
		return fail(-errno, "setitimer");
	return 0;
}

/* ------------------------------------------------------------------ ring */

struct loop {
	const struct opts *o;
	struct io_uring ring;
	sigset_t *waitmask;
	bool up;
	bool registered;		/* --registered-ring: enter through the index */
};

static int loop_setup(struct loop *l, const struct opts *o, sigset_t *waitmask)
{
	int ret;

	l->o = o;
	l->waitmask = waitmask;
	ret = tool_ring_init_entries(&l->ring, RING_ENTRIES, o->ring->flags);
	if (ret < 0)
		return ret;
	l->up = true;
	if (o->napi_us) {
		/* this single-threaded process is the submitter SINGLE_ISSUER demands */
		ret = tool_register_napi(l->ring.ring_fd, o->napi_us, o->napi_prefer);
		if (ret)
			return fail(ret, "IORING_REGISTER_NAPI");
	}
	if (o->wait == WAIT_MIN && !(l->ring.features & UT_FEAT_MIN_TIMEOUT)) {
		fprintf(stderr, PROG ": --wait min-wait: this kernel has no minimum wait (6.12+)\n");
		return -EOPNOTSUPP;
	}
	if (o->pattern == PAT_TCP_BUNDLE && !(l->ring.features & UT_FEAT_RECVSEND_BUNDLE))
		bundle_refused();
	if (o->registered_ring) {
		ret = io_uring_register_ring_fd(&l->ring);
		if (ret < 0)
			return fail(ret, "io_uring_register_ring_fd");
		l->registered = true;
	}
	return 0;
}

static void loop_exit(struct loop *l)
{
	if (!l->up)
		return;
	if (l->registered)
		io_uring_unregister_ring_fd(&l->ring);
	io_uring_queue_exit(&l->ring);
	l->up = false;
}

static void print_ring_line(const struct loop *l)
{
	const struct opts *o = l->o;

	printf("ring pid=%d fd=%d flags=0x%x napi_busy_poll_us=%u prefer=%d pattern=%s tid=%d\n",
	       (int)getpid(), l->ring.ring_fd, l->ring.flags, o->napi_us, o->napi_prefer,
	       pattern_names[o->pattern], (int)syscall(SYS_gettid));
	fflush(stdout);
}

/*
 * Make the SQEs queued since the last call visible to the kernel; returns
 * how many it has yet to consume. liburing 2.3 maps SQ slot i to SQE i at
 * setup, so only the tail moves (what its own submit does).
 */
static unsigned int sq_flush(struct io_uring *ring)
{
	struct io_uring_sq *sq = &ring->sq;
	unsigned int tail = sq->sqe_tail;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		io_uring_smp_store_release(sq->ktail, tail);
	}
	return tail - IO_URING_READ_ONCE(*sq->khead);
}

/*
 * One io_uring_enter: submit whatever is queued and, with GETEVENTS in
 * @flags, wait for @wait_nr CQEs with the wait mask, @ts (relative) and
 * @min_wait_us if given. Returns what the system call returns, or -errno.
 */
static int ring_enter(struct loop *l, unsigned int flags, unsigned int wait_nr,
		      const struct __kernel_timespec *ts, unsigned int min_wait_us)
{
	struct io_uring *ring = &l->ring;
	struct ut_io_uring_getevents_arg arg;
	const void *argp = NULL;
	size_t argsz = 0;
	unsigned int submit;
	int fd = ring->ring_fd;
	long ret;

	submit = sq_flush(ring);
	if (ring->flags & IORING_SETUP_SQPOLL) {
		/* the tail store before the flag load, as liburing does */
		io_uring_smp_mb();
		if (IO_URING_READ_ONCE(*ring->sq.kflags) & IORING_SQ_NEED_WAKEUP)
			flags |= IORING_ENTER_SQ_WAKEUP;
	}
	if (flags & IORING_ENTER_GETEVENTS) {
		if (ts || min_wait_us) {
			memset(&arg, 0, sizeof(arg));
			arg.sigmask = (uintptr_t)l->waitmask;
			arg.sigmask_sz = _NSIG / 8;
			arg.min_wait_usec = min_wait_us;
			arg.ts = (uintptr_t)ts;
			flags |= IORING_ENTER_EXT_ARG;
			argp = &arg;
			argsz = sizeof(arg);
		} else {
			argp = l->waitmask;
			argsz = _NSIG / 8;
		}
	}
	if (l->registered) {
		fd = ring->enter_ring_fd;
		flags |= IORING_ENTER_REGISTERED_RING;
	}
	ret = syscall(__NR_io_uring_enter, fd, submit, wait_nr, flags, argp, argsz);
	return ret < 0 ? -errno : (int)ret;
}

/*
 * Submit what is queued and wait once, as --wait says:
 *   plain          GETEVENTS, min_complete 1, the wait mask
 *   timeout:US     the same with EXT_ARG and a relative timeout of US
 *   min-wait:US    EXT_ARG, min_complete MIN_WAIT_NR, min_wait_usec US and a
 *                  timeout of MIN_WAIT_TIMEOUT_S: up to MIN_WAIT_NR CQEs in
 *                  US, then whatever has come (at least one)
 * Returns 0 when the caller should look at the CQ (which may be empty: a
 * timeout, SIGALRM), -EINTR on SIGINT/SIGTERM, or another negative errno.
 */
static int ring_wait(struct loop *l)
{
	const struct opts *o = l->o;
	struct __kernel_timespec ts;
	int ret;

	switch (o->wait) {
	case WAIT_TIMEOUT:
		ts.tv_sec = o->wait_us / 1000000;
		ts.tv_nsec = (long long)(o->wait_us % 1000000) * 1000;
		ret = ring_enter(l, IORING_ENTER_GETEVENTS, 1, &ts, 0);
		break;
	case WAIT_MIN:
		ts.tv_sec = MIN_WAIT_TIMEOUT_S;
		ts.tv_nsec = 0;
		ret = ring_enter(l, IORING_ENTER_GETEVENTS, MIN_WAIT_NR, &ts, o->wait_us);
		break;
	default:
		ret = ring_enter(l, IORING_ENTER_GETEVENTS, 1, NULL, 0);
		break;
	}
	if (stop_signal)
		return -EINTR;
	if (ret >= 0 || ret == -ETIME || ret == -EINTR)
		return 0;
	return ret;
}

/* an SQE; a full SQ is submitted first (SQPOLL: until the thread took some) */
static struct io_uring_sqe *get_sqe(struct loop *l)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&l->ring);
	unsigned int flags = 0;
	int ret;

	if (sqe)
		return sqe;
	if (l->ring.flags & IORING_SETUP_SQPOLL)
		flags = IORING_ENTER_SQ_WAIT;
	ret = ring_enter(l, flags, 0, NULL, 0);
	if (ret < 0 && ret != -EINTR) {
		fail(ret, "io_uring_enter");
		return NULL;
	}
	sqe = io_uring_get_sqe(&l->ring);
	if (!sqe)
		fail(-EBUSY, "io_uring_get_sqe");
	return sqe;
}

/* ------------------------------------------------------- provided buffers */

/*
 * A ring of provided buffers (IORING_REGISTER_PBUF_RING), group BGID, all
 * of one size. The kernel takes them in ring order; slot_bid remembers
 * which buffer was put in each slot, so that a bundle (consecutive slots
 * from the one its CQE names) can be told buffer by buffer.
 */
struct bufring {
	struct io_uring_buf_ring *br;
	size_t br_bytes;
	char *mem;
	__u16 *slot_bid;
	unsigned int nr;
	unsigned int size;
	unsigned int mask;
	__u16 head;			/* slots the kernel has taken, by our count */
	unsigned int added;		/* put since the last commit */
	unsigned int avail;		/* in the ring (or about to be) */
};

static char *bufring_buf(const struct bufring *b, unsigned int bid)
{
	return b->mem + (size_t)bid * b->size;
}

/* give buffer @bid back; the kernel sees it at bufring_commit */
static void bufring_put(struct bufring *b, unsigned int bid)
{
	io_uring_buf_ring_add(b->br, bufring_buf(b, bid), b->size, bid, b->mask, b->added);
	b->slot_bid[(b->br->tail + b->added) & b->mask] = bid;
	b->added++;
	b->avail++;
}

static void bufring_commit(struct bufring *b)
{
	if (!b->added)
		return;
	io_uring_buf_ring_advance(b->br, b->added);
	b->added = 0;
}

static int bufring_setup(struct loop *l, struct bufring *b, unsigned int nr, unsigned int size)
{
	struct io_uring_buf_reg reg;
	unsigned int i;
	int ret;

	b->nr = nr;
	b->size = size;
	b->mask = io_uring_buf_ring_mask(nr);
	/* the kernel wants the ring page aligned */
	b->br_bytes = nr * sizeof(struct io_uring_buf);
	b->br = mmap(NULL, b->br_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b->br == MAP_FAILED) {
		b->br = NULL;
		return fail(-errno, "mmap");
	}
	/* zeroed: the kernel fills them, which valgrind does not see */
	b->mem = calloc(nr, size);
	b->slot_bid = calloc(nr, sizeof(*b->slot_bid));
	if (!b->mem || !b->slot_bid)
		return fail(-ENOMEM, "calloc");
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uintptr_t)b->br;
	reg.ring_entries = nr;
	reg.bgid = BGID;
	ret = io_uring_register_buf_ring(&l->ring, &reg, 0);
	if (ret)
		return fail(ret, "io_uring_register_buf_ring");
	io_uring_buf_ring_init(b->br);
	for (i = 0; i < nr; i++)
		bufring_put(b, i);
	bufring_commit(b);
	return 0;
}

/* after the ring is gone (it unregisters the group) */
static void bufring_free(struct bufring *b)
{
	if (b->br)
		munmap(b->br, b->br_bytes);
	free(b->mem);
	free(b->slot_bid);
	memset(b, 0, sizeof(*b));
}

/*
 * The buffers a receive CQE of res > 0 bytes filled: one (the CQE names it),
 * or with a bundle every buffer from that one on in ring order, all full but
 * the last. Fills @bids and @lens (room for b->nr); returns how many.
 */
static int bufring_take(struct bufring *b, const struct io_uring_cqe *cqe, bool bundle,
			__u16 *bids, unsigned int *lens)
{
	unsigned int bid, n, i, res = cqe->res;

	if (!(cqe->flags & IORING_CQE_F_BUFFER)) {
		fprintf(stderr, PROG ": a receive of %u bytes without a buffer\n", res);
		return -EIO;
	}
	bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
	n = bundle ? (res + b->size - 1) / b->size : 1;
	/* the kernel sees what was put until the last commit, no more */
	if (bid >= b->nr || n > b->avail - b->added) {
		fprintf(stderr, PROG ": a receive of %u bytes in buffer %u: not one of ours\n",
			res, bid);
		return -EIO;
	}
	if (bundle && b->slot_bid[b->head & b->mask] != bid) {
		fprintf(stderr, PROG ": a bundle from buffer %u, but the ring's next is %u\n",
			bid, b->slot_bid[b->head & b->mask]);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		bids[i] = bundle ? b->slot_bid[(b->head + i) & b->mask] : bid;
		lens[i] = res - i * b->size < b->size ? res - i * b->size : b->size;
	}
	b->head += n;
	b->avail -= n;
	return n;
}

/*
 * Arm a multishot receive on @fd over the buffer ring: recvmsg into @msg's
 * name and control sizes for udp-multishot, recv (with a bundle for
 * tcp-bundle) for TCP. Its CQEs carry OP_RECV and @idx.
 */
static int arm_multishot(struct loop *l, int fd, struct msghdr *msg, unsigned int idx)
{
	struct io_uring_sqe *sqe = get_sqe(l);

	if (!sqe)
		return -EBUSY;
	if (l->o->pattern == PAT_UDP_MSHOT) {
		io_uring_prep_recvmsg_multishot(sqe, fd, msg, 0);
	} else {
		io_uring_prep_recv_multishot(sqe, fd, NULL, 0, 0);
		if (l->o->pattern == PAT_TCP_BUNDLE)
			sqe->ioprio |= UT_IORING_RECVSEND_BUNDLE;
	}
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = BGID;
	io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, idx));
	return 0;
}

/*
 * udp-multishot: the datagram in a buffer of @res bytes, as recvmsg laid it
 * out after its struct io_uring_recvmsg_out. -EIO if it is not whole.
 */
static int udp_payload(char *buf, int res, struct msghdr *msg, char **payload,
		       unsigned int *len, struct io_uring_recvmsg_out **out)
{
	struct io_uring_recvmsg_out *o = io_uring_recvmsg_validate(buf, res, msg);

	if (!o) {
		fprintf(stderr, PROG ": recvmsg: %d bytes, shorter than their header\n", res);
		return -EIO;
	}
	*payload = io_uring_recvmsg_payload(o, msg);
	*len = io_uring_recvmsg_payload_length(o, res, msg);
	if ((o->flags & MSG_TRUNC) || o->payloadlen != *len) {
		fprintf(stderr, PROG ": recvmsg: a datagram of %u bytes truncated to %u\n",
			o->payloadlen, *len);
		return -EIO;
	}
	*out = o;
	return 0;
}

/* ------------------------------------------------------------------ misc */

/* --cpu: the process's CPU time (an SQPOLL thread included), and the ring thread's */
static void print_cpu(const struct opts *o)
{
	struct timespec ts;
	struct rusage ru;

	if (!o->cpu)
		return;
	if (getrusage(RUSAGE_SELF, &ru)) {
		fail(-errno, "getrusage");
		return;
	}
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)) {
		fail(-errno, "clock_gettime");
		return;
	}
	printf("cpu user_us=%lld sys_us=%lld thread_cpu_us=%lld\n",
	       (long long)ru.ru_utime.tv_sec * 1000000 + ru.ru_utime.tv_usec,
	       (long long)ru.ru_stime.tv_sec * 1000000 + ru.ru_stime.tv_usec,
	       (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
	fflush(stdout);
}

static int set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)))
		return -errno;
	return 0;
}

/* ---------------------------------------------------------------- client */

struct client {
	const struct opts *o;
	struct loop l;
	int fd;
	struct bufring b;		/* the multishot patterns */
	struct msghdr rmsg;		/* udp-multishot: no name (connected), no control */
	char *sbuf;
	char *rbuf;			/* recv */
	__u16 *bids;			/* bufring_take's answers */
	unsigned int *lens;
	bool armed;			/* the multishot receive */
	bool seen_recv;			/* a receive has completed */
	unsigned int rearms;
	/* the ping in flight */
	unsigned int seq;
	unsigned int got;		/* bytes of its reply so far */
	unsigned char head[sizeof(unsigned int)];	/* their first bytes */
	bool replied;
	struct timespec t_reply;
};

/* @len more bytes of the reply to the ping in flight */
static int client_bytes(struct client *c, const char *data, unsigned int len)
{
	const struct opts *o = c->o;
	unsigned int got, i;

	if (!is_tcp(o) && len != o->size) {
		fprintf(stderr, PROG ": reply of %u bytes, expected %u (ping %u)\n", len, o->size,
			c->seq);
		return -EIO;
	}
	if (len > o->size - c->got) {
		fprintf(stderr, PROG ": %u bytes more than ping %u's reply of %u\n",
			len - (o->size - c->got), c->seq, o->size);
		return -EIO;
	}
	for (i = 0; i < len && c->got + i < sizeof(c->head); i++)
		c->head[c->got + i] = data[i];
	c->got += len;
	if (c->got < o->size)
		return 0;
	if (o->size >= sizeof(got)) {
		memcpy(&got, c->head, sizeof(got));
		if (got != c->seq) {
			fprintf(stderr, PROG ": reply to ping %u, expected %u\n", got, c->seq);
			return -EIO;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &c->t_reply);
	c->replied = true;
	return 0;
}

static int client_mshot_cqe(struct client *c, const struct io_uring_cqe *cqe)
{
	const struct opts *o = c->o;
	struct io_uring_recvmsg_out *out;
	unsigned int len;
	char *payload;
	int n, i, ret = 0;

	if (!(cqe->flags & IORING_CQE_F_MORE))
		c->armed = false;
	if (cqe->res < 0) {
		if (cqe->res == -EINVAL && o->pattern == PAT_TCP_BUNDLE && !c->seen_recv)
			bundle_refused();
		/* out of buffers: re-armed once they are back (at once, here) */
		if (cqe->res == -ENOBUFS)
			return 0;
		return fail(cqe->res, is_tcp(o) ? "recv" : "recvmsg");
	}
	c->seen_recv = true;
	if (!cqe->res) {
		fprintf(stderr, PROG ": %s (ping %u)\n",
			is_tcp(o) ? "the server closed the connection" : "an empty datagram",
			c->seq);
		return -EIO;
	}
	n = bufring_take(&c->b, cqe, o->pattern == PAT_TCP_BUNDLE, c->bids, c->lens);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		char *buf = bufring_buf(&c->b, c->bids[i]);

		if (!ret && o->pattern == PAT_UDP_MSHOT) {
			ret = udp_payload(buf, c->lens[i], &c->rmsg, &payload, &len, &out);
			if (!ret)
				ret = client_bytes(c, payload, len);
		} else if (!ret) {
			ret = client_bytes(c, buf, c->lens[i]);
		}
		bufring_put(&c->b, c->bids[i]);
	}
	return ret;
}

static int client_cqe(struct client *c, const struct io_uring_cqe *cqe)
{
	const struct opts *o = c->o;

	switch (UDATA_OP(cqe->user_data)) {
	case OP_SEND:
		/* IOSQE_CQE_SKIP_SUCCESS: only a failed send completes */
		if (cqe->res < 0)
			return fail(cqe->res, "send");
		fprintf(stderr, PROG ": send: sent %d of %u bytes (ping %u)\n", cqe->res, o->size,
			c->seq);
		return -EIO;
	case OP_RECV:
		if (is_multishot(o))
			return client_mshot_cqe(c, cqe);
		if (cqe->res < 0)
			return fail(cqe->res, "recv");
		return client_bytes(c, c->rbuf, cqe->res);
	}
	fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
		(unsigned long long)cqe->user_data);
	return -EIO;
}

/* every CQE posted; buffers back to the kernel, the multishot re-armed if it ended */
static int client_reap(struct client *c)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int err = 0;

	io_uring_for_each_cqe(&c->l.ring, head, cqe) {
		seen++;
		if (!err)
			err = client_cqe(c, cqe);
	}
	io_uring_cq_advance(&c->l.ring, seen);
	if (err)
		return err;
	if (!is_multishot(c->o))
		return 0;
	bufring_commit(&c->b);
	if (c->armed)
		return 0;
	err = arm_multishot(&c->l, c->fd, &c->rmsg, 0);
	if (err)
		return err;
	c->armed = true;
	c->rearms++;
	return 0;
}

/*
 * One ping, one message in flight: recv queues its single-shot recv first
 * (as pingpong: it arms poll before the datagram leaves), then the send
 * (IOSQE_CQE_SKIP_SUCCESS: the reply is the only CQE a ping waits for);
 * then waits until the whole reply is in. The RTT runs from just before
 * the submission to the reap of the reply's last CQE.
 */
static int client_ping(struct client *c, unsigned int seq, struct tool_stats *st)
{
	const struct opts *o = c->o;
	struct timespec t0, now;
	struct io_uring_sqe *sqe;
	int ret;

	c->seq = seq;
	c->got = 0;
	c->replied = false;
	if (o->size >= sizeof(seq))
		memcpy(c->sbuf, &seq, sizeof(seq));
	if (o->pattern == PAT_RECV) {
		sqe = get_sqe(&c->l);
		if (!sqe)
			return -EBUSY;
		io_uring_prep_recv(sqe, c->fd, c->rbuf, SLOT_BUF_SIZE, 0);
		io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, 0));
	}
	sqe = get_sqe(&c->l);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_send(sqe, c->fd, c->sbuf, o->size,
			   is_tcp(o) ? MSG_WAITALL | MSG_NOSIGNAL : 0);
	sqe->flags |= IOSQE_CQE_SKIP_SUCCESS;
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, 0));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!c->replied) {
		ret = ring_wait(&c->l);
		if (ret == -EINTR) {
			fprintf(stderr, PROG ": interrupted by signal %d (ping %u)\n",
				(int)stop_signal, seq);
			return ret;
		}
		if (ret < 0)
			return fail(ret, "io_uring_enter");
		ret = client_reap(c);
		if (ret)
			return ret;
		if (c->replied)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (tool_ts_diff_ns(&now, &t0) >= PING_TIMEOUT_S * NSEC_PER_SEC) {
			fprintf(stderr, PROG ": no reply within %d s (ping %u)\n", PING_TIMEOUT_S,
				seq);
			return -ETIME;
		}
	}
	return tool_stats_add(st, tool_ts_diff_ns(&c->t_reply, &t0) / 1000.0);
}

static int client_socket(const struct opts *o)
{
	int fd, ret;

	fd = socket(AF_INET, (is_tcp(o) ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(-errno, "socket");
	if (is_tcp(o)) {
		ret = set_nodelay(fd);
		if (ret)
			goto err;
	}
	/* UDP connected: plain SEND/RECV, and datagrams from anyone else are dropped */
	if (connect(fd, (struct sockaddr *)&o->addr, sizeof(o->addr))) {
		ret = fail(-errno, "connect");
		close(fd);
		return ret;
	}
	return fd;
err:
	fail(ret, "setsockopt TCP_NODELAY");
	close(fd);
	return ret;
}

static int run_client(const struct opts *o, sigset_t *waitmask)
{
	struct client *c;
	struct tool_stats st = { 0 };
	struct timespec start;
	unsigned int i;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return fail(-ENOMEM, "calloc");
	c->o = o;
	c->fd = client_socket(o);
	if (c->fd < 0) {
		ret = c->fd;
		goto out;
	}
	c->sbuf = malloc(o->size);
	c->rbuf = calloc(1, SLOT_BUF_SIZE);
	c->bids = calloc(TCP_NR_BUFS, sizeof(*c->bids));
	c->lens = calloc(TCP_NR_BUFS, sizeof(*c->lens));
	/* --seconds: tool_stats_add grows it */
	st.cap = o->seconds ? TOOL_SAMPLES_START : o->count;
	st.samples = calloc(st.cap, sizeof(*st.samples));
	if (!c->sbuf || !c->rbuf || !c->bids || !c->lens || !st.samples) {
		ret = fail(-ENOMEM, "calloc");
		goto out;
	}
	memset(c->sbuf, 'p', o->size);

	ret = loop_setup(&c->l, o, waitmask);
	if (ret)
		goto out;
	if (is_multishot(o)) {
		ret = bufring_setup(&c->l, &c->b, is_tcp(o) ? TCP_NR_BUFS : UDP_NR_BUFS,
				    is_tcp(o) ? TCP_BUF_SIZE : UDP_BUF_SIZE);
		if (ret)
			goto out;
	}
	print_ring_line(&c->l);
	info(o, "%u %s of %u bytes to %s, pattern %s, ring %s, wait %s%s%.0u, napi busy poll %u us%s",
	     o->seconds ? o->seconds : o->count, o->seconds ? "s of pings" : "pings", o->size,
	     o->addr_str, pattern_names[o->pattern], o->ring->name,
	     o->wait == WAIT_PLAIN ? "plain" : o->wait == WAIT_TIMEOUT ? "timeout" : "min-wait",
	     o->wait == WAIT_PLAIN ? "" : ":", o->wait_us, o->napi_us,
	     o->napi_prefer ? " (prefer)" : "");

	/* armed once, in the first ping's submission, before its send */
	if (is_multishot(o)) {
		ret = arm_multishot(&c->l, c->fd, &c->rmsg, 0);
		if (ret)
			goto out;
		c->armed = true;
	}
	ret = set_tick(TICK_MS);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; tool_client_more(o->count, o->seconds, o->warmup_s, &start, i, &st); i++) {
		ret = client_ping(c, i, &st);
		if (ret)
			goto out;
		if ((i + 1) % SIGNAL_CHECK_EVERY == 0) {
			poll_signals();
			if (stop_signal) {
				fprintf(stderr, PROG ": interrupted by signal %d (ping %u)\n",
					(int)stop_signal, i + 1);
				ret = -EINTR;
				goto out;
			}
		}
	}
	set_tick(0);

	tool_print_rtt(&st, tool_socket_napi_id(c->fd));
	if (is_multishot(o))
		info(o, "multishot receive re-armed %u times", c->rearms);
	print_cpu(o);
	if (o->linger_s && !stop_signal) {
		info(o, "lingering %u s", o->linger_s);
		tool_linger(o->linger_s);
	}
	ret = 0;
out:
	set_tick(0);
	loop_exit(&c->l);
	bufring_free(&c->b);
	if (c->fd >= 0)
		close(c->fd);
	free(st.samples);
	free(c->sbuf);
	free(c->rbuf);
	free(c->bids);
	free(c->lens);
	free(c);
	return ret;
}

/* ---------------------------------------------------------------- server */

/* recv: a single-shot request's buffer, as pingpong's server has them */
struct slot {
	char *buf;
	struct iovec iov;
	struct msghdr msg;
	struct sockaddr_in peer;
	bool busy;
};

/* udp-multishot: the echo of the datagram in buffer bid (one per buffer) */
struct udp_echo {
	struct msghdr msg;
	struct iovec iov;
	struct sockaddr_in peer;
};

/* TCP: one accepted connection */
struct conn {
	int fd;				/* -1: a free slot */
	bool armed;			/* its multishot recv */
	bool want_arm;			/* that ended while the connection is up: re-arm */
	bool closing;			/* hung up or failed: closed once nothing is in flight */
	bool seen_recv;
	unsigned int nq;		/* buffers received, not yet given back */
	unsigned int nsend;		/* the first nsend of them are in the send in flight */
	unsigned int send_len;
	__u16 q_bid[TCP_NR_BUFS];
	unsigned int q_len[TCP_NR_BUFS];
	struct iovec iov[TCP_NR_BUFS];
	struct msghdr msg;
};

struct server {
	const struct opts *o;
	struct loop l;
	int fd;				/* the UDP socket or the TCP listener */
	unsigned int inflight;		/* requests whose last CQE is still to come */
	unsigned int served;		/* echo sends completed */
	unsigned int rearms;		/* receive multishots armed again after they ended */
	bool draining;			/* exiting: CQEs are only counted */
	struct bufring b;
	__u16 bids[TCP_NR_BUFS];	/* bufring_take's answers */
	unsigned int lens[TCP_NR_BUFS];
	/* recv */
	struct slot slots[NR_SLOTS];
	bool need_recv;			/* no free slot: arm on a send CQE */
	/* udp-multishot */
	struct msghdr rmsg;		/* the peer's address, no control */
	struct udp_echo echo[UDP_NR_BUFS];
	bool armed;
	/* TCP */
	bool accept_armed;
	struct conn conns[MAX_CONNS];
	unsigned int last_napi_id;	/* of the last connection closed */
};

/* ---- recv: pingpong's server, a single-shot recvmsg re-armed per datagram */

static void slot_msg(struct slot *sl, size_t len)
{
	memset(&sl->msg, 0, sizeof(sl->msg));
	sl->iov.iov_base = sl->buf;
	sl->iov.iov_len = len;
	sl->msg.msg_name = &sl->peer;
	sl->msg.msg_namelen = sizeof(sl->peer);
	sl->msg.msg_iov = &sl->iov;
	sl->msg.msg_iovlen = 1;
}

static int slot_recv(struct server *s, unsigned int idx)
{
	struct io_uring_sqe *sqe = get_sqe(&s->l);
	struct slot *sl = &s->slots[idx];

	if (!sqe)
		return -EBUSY;
	slot_msg(sl, SLOT_BUF_SIZE);
	io_uring_prep_recvmsg(sqe, s->fd, &sl->msg, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_RECV, idx));
	sl->busy = true;
	s->inflight++;
	return 0;
}

static int recv_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	unsigned int idx = UDATA_IDX(cqe->user_data);
	struct io_uring_sqe *sqe;
	struct slot *sl;
	int i;

	if (idx >= NR_SLOTS)
		goto bad;
	sl = &s->slots[idx];
	if (UDATA_OP(cqe->user_data) == OP_SEND) {
		if (cqe->res < 0)
			return fail(cqe->res, "sendmsg");
		sl->busy = false;
		s->served++;
		if (!s->need_recv)
			return 0;
		s->need_recv = false;
		return slot_recv(s, idx);
	}
	if (UDATA_OP(cqe->user_data) != OP_RECV)
		goto bad;
	if (cqe->res < 0)
		return fail(cqe->res, "recvmsg");
	/* the echo from the same buffer, and the next recvmsg into a free one */
	sqe = get_sqe(&s->l);
	if (!sqe)
		return -EBUSY;
	slot_msg(sl, cqe->res);
	io_uring_prep_sendmsg(sqe, s->fd, &sl->msg, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, idx));
	s->inflight++;
	for (i = 0; i < NR_SLOTS; i++)
		if (!s->slots[i].busy)
			return slot_recv(s, i);
	s->need_recv = true;
	return 0;
bad:
	fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
		(unsigned long long)cqe->user_data);
	return -EIO;
}

/* ---- udp-multishot */

static int udp_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	unsigned int idx = UDATA_IDX(cqe->user_data), len;
	struct io_uring_recvmsg_out *out;
	struct io_uring_sqe *sqe;
	struct udp_echo *e;
	char *payload;
	int n, ret;

	if (UDATA_OP(cqe->user_data) == OP_SEND) {
		if (idx >= UDP_NR_BUFS)
			goto bad;
		if (cqe->res < 0)
			return fail(cqe->res, "sendmsg");
		s->served++;
		bufring_put(&s->b, idx);
		return 0;
	}
	if (UDATA_OP(cqe->user_data) != OP_RECV)
		goto bad;
	if (!(cqe->flags & IORING_CQE_F_MORE))
		s->armed = false;
	if (cqe->res < 0) {
		/* out of buffers: re-armed once an echo gives one back */
		if (cqe->res == -ENOBUFS)
			return 0;
		return fail(cqe->res, "recvmsg");
	}
	n = bufring_take(&s->b, cqe, false, s->bids, s->lens);
	if (n < 0)
		return n;
	ret = udp_payload(bufring_buf(&s->b, s->bids[0]), cqe->res, &s->rmsg, &payload, &len,
			  &out);
	if (ret)
		return ret;
	e = &s->echo[s->bids[0]];
	memset(&e->peer, 0, sizeof(e->peer));
	memcpy(&e->peer, io_uring_recvmsg_name(out),
	       out->namelen < sizeof(e->peer) ? out->namelen : sizeof(e->peer));
	memset(&e->msg, 0, sizeof(e->msg));
	e->iov.iov_base = payload;
	e->iov.iov_len = len;
	e->msg.msg_name = &e->peer;
	e->msg.msg_namelen = sizeof(e->peer);
	e->msg.msg_iov = &e->iov;
	e->msg.msg_iovlen = 1;
	sqe = get_sqe(&s->l);
	if (!sqe)
		return -EBUSY;
	io_uring_prep_sendmsg(sqe, s->fd, &e->msg, 0);
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, s->bids[0]));
	s->inflight++;
	return 0;
bad:
	fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
		(unsigned long long)cqe->user_data);
	return -EIO;
}

/* ---- TCP */

static int tcp_arm_accept(struct server *s)
{
	struct io_uring_sqe *sqe = get_sqe(&s->l);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_multishot_accept(sqe, s->fd, NULL, NULL, SOCK_CLOEXEC);
	io_uring_sqe_set_data64(sqe, UDATA(OP_ACCEPT, 0));
	s->accept_armed = true;
	s->inflight++;
	return 0;
}

static int conn_arm(struct server *s, struct conn *c)
{
	int ret = arm_multishot(&s->l, c->fd, NULL, c - s->conns);

	if (ret)
		return ret;
	c->armed = true;
	c->want_arm = false;
	s->inflight++;
	return 0;
}

/* the first @n queued buffers back to the ring */
static void conn_unqueue(struct server *s, struct conn *c, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		bufring_put(&s->b, c->q_bid[i]);
	memmove(c->q_bid, c->q_bid + n, (c->nq - n) * sizeof(c->q_bid[0]));
	memmove(c->q_len, c->q_len + n, (c->nq - n) * sizeof(c->q_len[0]));
	c->nq -= n;
}

/*
 * Echo every buffer queued, in one send (one buffer) or sendmsg (several);
 * one send in flight per connection keeps the bytes in order. MSG_WAITALL:
 * the kernel retries a short send until it is whole.
 */
static int conn_send(struct server *s, struct conn *c)
{
	struct io_uring_sqe *sqe = get_sqe(&s->l);
	unsigned int i;

	if (!sqe)
		return -EBUSY;
	c->send_len = 0;
	for (i = 0; i < c->nq; i++) {
		c->iov[i].iov_base = bufring_buf(&s->b, c->q_bid[i]);
		c->iov[i].iov_len = c->q_len[i];
		c->send_len += c->q_len[i];
	}
	if (c->nq == 1) {
		io_uring_prep_send(sqe, c->fd, c->iov[0].iov_base, c->send_len,
				   MSG_WAITALL | MSG_NOSIGNAL);
	} else {
		memset(&c->msg, 0, sizeof(c->msg));
		c->msg.msg_iov = c->iov;
		c->msg.msg_iovlen = c->nq;
		io_uring_prep_sendmsg(sqe, c->fd, &c->msg, MSG_WAITALL | MSG_NOSIGNAL);
	}
	io_uring_sqe_set_data64(sqe, UDATA(OP_SEND, c - s->conns));
	c->nsend = c->nq;
	s->inflight++;
	return 0;
}

/*
 * The peer hung up, or the connection failed: no more echoes; what is
 * queued and not in flight goes back; shutdown ends an armed recv (its last
 * CQE then comes with 0 or an error), and conn_close closes the socket once
 * nothing is in flight.
 */
static void conn_hangup(struct server *s, struct conn *c)
{
	unsigned int i;

	if (c->closing)
		return;
	c->closing = true;
	c->want_arm = false;
	/* the send in flight gives its own buffers back when it completes */
	for (i = c->nsend; i < c->nq; i++)
		bufring_put(&s->b, c->q_bid[i]);
	c->nq = c->nsend;
	if (c->armed)
		shutdown(c->fd, SHUT_RDWR);
}

static void conn_close(struct server *s, struct conn *c)
{
	unsigned int id;

	if (!c->closing || c->armed || c->nsend || c->fd < 0)
		return;
	id = tool_socket_napi_id(c->fd);
	if (id)
		s->last_napi_id = id;
	close(c->fd);
	info(s->o, "connection %u closed", (unsigned int)(c - s->conns));
	c->fd = -1;
}

static int tcp_accept_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	struct conn *c = NULL;
	unsigned int i;
	int ret;

	if (!(cqe->flags & IORING_CQE_F_MORE))
		s->accept_armed = false;
	if (cqe->res < 0) {
		/* a connection reset before its accept: the next one will do */
		if (cqe->res == -ECONNABORTED)
			return 0;
		return fail(cqe->res, "accept");
	}
	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].fd < 0) {
			c = &s->conns[i];
			break;
		}
	if (!c) {
		info(s->o, "more than %d connections: one closed at once", MAX_CONNS);
		close(cqe->res);
		return 0;
	}
	ret = set_nodelay(cqe->res);
	if (ret) {
		fail(ret, "setsockopt TCP_NODELAY");
		close(cqe->res);
		return 0;
	}
	memset(c, 0, sizeof(*c));
	c->fd = cqe->res;
	info(s->o, "connection %u accepted", i);
	return conn_arm(s, c);
}

static int tcp_recv_cqe(struct server *s, struct conn *c, const struct io_uring_cqe *cqe)
{
	const struct opts *o = s->o;
	int n, i;

	if (!(cqe->flags & IORING_CQE_F_MORE)) {
		c->armed = false;
		/* ended with the connection up (buffers ran out, ...): arm again */
		c->want_arm = !c->closing;
	}
	if (cqe->res < 0) {
		if (cqe->res == -EINVAL && o->pattern == PAT_TCP_BUNDLE && !c->seen_recv)
			bundle_refused();
		if (cqe->res == -ENOBUFS)
			return 0;
		/* ECONNRESET and the like: that connection only */
		if (!c->closing)
			info(o, "connection %u: recv: %s", (unsigned int)(c - s->conns),
			     strerror(-cqe->res));
		conn_hangup(s, c);
		return 0;
	}
	if (!cqe->res) {
		conn_hangup(s, c);
		return 0;
	}
	c->seen_recv = true;
	n = bufring_take(&s->b, cqe, o->pattern == PAT_TCP_BUNDLE, s->bids, s->lens);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (c->closing) {
			bufring_put(&s->b, s->bids[i]);
			continue;
		}
		c->q_bid[c->nq] = s->bids[i];
		c->q_len[c->nq] = s->lens[i];
		c->nq++;
	}
	if (!c->closing && !c->nsend && c->nq)
		return conn_send(s, c);
	return 0;
}

static int tcp_send_cqe(struct server *s, struct conn *c, const struct io_uring_cqe *cqe)
{
	unsigned int sent = c->send_len;

	conn_unqueue(s, c, c->nsend);
	c->nsend = 0;
	if (cqe->res < 0 || (unsigned int)cqe->res != sent) {
		if (cqe->res < 0)
			info(s->o, "connection %u: send: %s", (unsigned int)(c - s->conns),
			     strerror(-cqe->res));
		else
			info(s->o, "connection %u: sent %d of %u bytes",
			     (unsigned int)(c - s->conns), cqe->res, sent);
		conn_hangup(s, c);
		return 0;
	}
	s->served++;
	if (!c->closing && c->nq)
		return conn_send(s, c);
	return 0;
}

static int tcp_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	unsigned int idx = UDATA_IDX(cqe->user_data);
	struct conn *c;
	int ret;

	if (UDATA_OP(cqe->user_data) == OP_ACCEPT)
		return tcp_accept_cqe(s, cqe);
	if (idx >= MAX_CONNS || s->conns[idx].fd < 0)
		goto bad;
	c = &s->conns[idx];
	switch (UDATA_OP(cqe->user_data)) {
	case OP_RECV:
		ret = tcp_recv_cqe(s, c, cqe);
		break;
	case OP_SEND:
		ret = tcp_send_cqe(s, c, cqe);
		break;
	default:
		goto bad;
	}
	conn_close(s, c);
	return ret;
bad:
	fprintf(stderr, PROG ": unexpected completion 0x%llx\n",
		(unsigned long long)cqe->user_data);
	return -EIO;
}

/* ---- the server's loop */

static int server_cqe(struct server *s, const struct io_uring_cqe *cqe)
{
	if (!(cqe->flags & IORING_CQE_F_MORE))
		s->inflight--;
	/* canceled requests complete with -ECANCELED: not an error now */
	if (s->draining) {
		if (UDATA_OP(cqe->user_data) == OP_SEND && cqe->res >= 0)
			s->served++;
		if (UDATA_OP(cqe->user_data) == OP_ACCEPT && cqe->res >= 0)
			close(cqe->res);
		return 0;
	}
	switch (s->o->pattern) {
	case PAT_RECV:
		return recv_cqe(s, cqe);
	case PAT_UDP_MSHOT:
		return udp_cqe(s, cqe);
	default:
		return tcp_cqe(s, cqe);
	}
}

/*
 * After each batch of CQEs: the buffers echoed go back to the kernel, and
 * a receive multishot that ended is armed again (once there are buffers).
 */
static int server_rearm(struct server *s)
{
	unsigned int i;
	int ret;

	if (!is_multishot(s->o))
		return 0;
	bufring_commit(&s->b);
	if (s->o->pattern == PAT_UDP_MSHOT) {
		if (s->armed || !s->b.avail)
			return 0;
		ret = arm_multishot(&s->l, s->fd, &s->rmsg, 0);
		if (ret)
			return ret;
		s->armed = true;
		s->inflight++;
		s->rearms++;
		return 0;
	}
	if (!s->accept_armed) {
		ret = tcp_arm_accept(s);
		if (ret)
			return ret;
	}
	for (i = 0; i < MAX_CONNS && s->b.avail; i++) {
		struct conn *c = &s->conns[i];

		if (c->fd < 0 || !c->want_arm || c->armed || c->closing)
			continue;
		ret = conn_arm(s, c);
		if (ret)
			return ret;
		s->rearms++;
	}
	return 0;
}

static int server_reap(struct server *s)
{
	struct io_uring_cqe *cqe;
	unsigned int head, seen = 0;
	int err = 0;

	io_uring_for_each_cqe(&s->l.ring, head, cqe) {
		seen++;
		if (!err)
			err = server_cqe(s, cqe);
	}
	io_uring_cq_advance(&s->l.ring, seen);
	if (err || s->draining)
		return err;
	return server_rearm(s);
}

/*
 * Cancel every request and reap them before exiting: a request in flight
 * holds its socket, and io_uring tears a ring down in a worker after the
 * process is gone, so the port would stay bound for a moment.
 */
static void server_drain(struct server *s)
{
	struct __kernel_timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };
	struct timespec deadline, now;
	struct io_uring_sqe *sqe;
	int ret;

	if (!s->inflight)
		return;
	sqe = get_sqe(&s->l);
	if (!sqe)
		return;
	io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
	io_uring_sqe_set_data64(sqe, UDATA(OP_CANCEL, 0));
	s->inflight++;
	s->draining = true;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += DRAIN_TIMEOUT_S;
	while (s->inflight) {
		ret = ring_enter(&s->l, IORING_ENTER_GETEVENTS, 1, &ts, 0);
		/* after SIGINT/SIGTERM, -EINTR only repeats that stop_signal is set */
		if (ret < 0 && ret != -EINTR && ret != -ETIME)
			break;
		server_reap(s);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (tool_ts_diff_ns(&now, &deadline) >= 0)
			break;
	}
}

/* the data socket's NAPI ID: an open connection's, else the last one closed */
static unsigned int server_napi_id(const struct server *s)
{
	unsigned int i, id;

	if (!is_tcp(s->o))
		return tool_socket_napi_id(s->fd);
	for (i = 0; i < MAX_CONNS; i++) {
		if (s->conns[i].fd < 0)
			continue;
		id = tool_socket_napi_id(s->conns[i].fd);
		if (id)
			return id;
	}
	return s->last_napi_id;
}

static int server_socket(const struct opts *o)
{
	int fd, one = 1, ret;

	fd = socket(AF_INET, (is_tcp(o) ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(-errno, "socket");
	/* a server restarted at once: its old connections may be in TIME_WAIT */
	if (is_tcp(o) && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one))) {
		ret = fail(-errno, "setsockopt SO_REUSEADDR");
		goto err;
	}
	if (bind(fd, (struct sockaddr *)&o->addr, sizeof(o->addr))) {
		ret = fail(-errno, "bind");
		goto err;
	}
	if (is_tcp(o) && listen(fd, SOMAXCONN)) {
		ret = fail(-errno, "listen");
		goto err;
	}
	return fd;
err:
	close(fd);
	return ret;
}

/* the socket child: its socket to the parent, with one byte of data */
static int scm_send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != 1)
		return fail(-errno, "socket child: sendmsg SCM_RIGHTS");
	return 0;
}

/*
 * The parent's side: one fd from the child, or -ENOENT if the child sent
 * none (it failed, and said why). Extra fds, if any, are closed.
 */
static int scm_recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	int fd = -1, n, i;
	ssize_t len;
	char byte;

	iov.iov_base = &byte;
	iov.iov_len = 1;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	do {
		len = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	} while (len < 0 && errno == EINTR);
	if (len < 0)
		return fail(-errno, "recvmsg SCM_RIGHTS");
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int got;

			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = got;
			else
				close(got);
		}
	}
	if (fd >= 0 && (msg.msg_flags & MSG_CTRUNC)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && len > 0) {
		fprintf(stderr, PROG ": recvmsg SCM_RIGHTS: no socket in the message\n");
		return -EPROTO;
	}
	return fd < 0 ? -ENOENT : fd;
}

/* the fd passed is the data socket server_socket makes */
static int scm_check_fd(const struct opts *o, int fd)
{
	int type = 0, listening = 0;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len))
		return fail(-errno, "getsockopt SO_TYPE of the socket passed");
	len = sizeof(listening);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len))
		return fail(-errno, "getsockopt SO_ACCEPTCONN of the socket passed");
	if (type != (is_tcp(o) ? SOCK_STREAM : SOCK_DGRAM) || listening != is_tcp(o)) {
		fprintf(stderr, PROG ": the socket passed is not a %s socket\n",
			is_tcp(o) ? "listening TCP" : "UDP");
		return -EPROTO;
	}
	return 0;
}

/*
 * --socket-via-scm: a child process makes the data socket (socket, bind,
 * listen), passes it over a unix socketpair with SCM_RIGHTS, closes its
 * copy and exits; the parent waits for it. So the socket the ring receives
 * on was made by another process, as a supervisor's or systemd's are. The
 * child is forked before the ring exists and prints its own failure.
 */
static int server_socket_via_scm(const struct opts *o)
{
	int sv[2], fd = -1, status, ret;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return fail(-errno, "socketpair");
	/* nothing buffered is written twice */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		ret = fail(-errno, "fork");
		close(sv[0]);
		close(sv[1]);
		return ret;
	}
	if (!pid) {
		close(sv[0]);
		fd = server_socket(o);
		if (fd < 0)
			_exit(EXIT_RUNTIME);
		ret = scm_send_fd(sv[1], fd);
		close(fd);
		close(sv[1]);
		_exit(ret ? EXIT_RUNTIME : 0);
	}
	close(sv[1]);
	ret = scm_recv_fd(sv[0]);
	close(sv[0]);
	fd = ret;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = fail(-errno, "waitpid");
			goto err;
		}
	}
	if (WIFSIGNALED(status)) {
		fprintf(stderr, PROG ": socket child: killed by signal %d\n", WTERMSIG(status));
		ret = -ECHILD;
		goto err;
	}
	if (WEXITSTATUS(status)) {
		/* the child said why; -ENOENT: no socket came either */
		ret = -ECHILD;
		goto err;
	}
	if (fd < 0)
		return fd == -ENOENT ? fail(-EPROTO, "socket child: exited without a socket") : fd;
	ret = scm_check_fd(o, fd);
	if (ret)
		goto err;
	info(o, "data socket fd %d made by pid %d, passed with SCM_RIGHTS", fd, (int)pid);
	return fd;
err:
	if (fd >= 0)
		close(fd);
	return ret;
}

static int server_start(struct server *s)
{
	const struct opts *o = s->o;

	switch (o->pattern) {
	case PAT_RECV:
		return slot_recv(s, 0);
	case PAT_UDP_MSHOT:
		s->rmsg.msg_namelen = sizeof(struct sockaddr_in);
		if (arm_multishot(&s->l, s->fd, &s->rmsg, 0))
			return -EBUSY;
		s->armed = true;
		s->inflight++;
		return 0;
	default:
		return tcp_arm_accept(s);
	}
}

static int run_server(const struct opts *o, sigset_t *waitmask)
{
	unsigned int loops = 0, i;
	struct server *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return fail(-ENOMEM, "calloc");
	s->o = o;
	for (i = 0; i < MAX_CONNS; i++)
		s->conns[i].fd = -1;
	s->fd = o->socket_via_scm ? server_socket_via_scm(o) : server_socket(o);
	if (s->fd < 0) {
		ret = s->fd;
		goto out;
	}
	ret = loop_setup(&s->l, o, waitmask);
	if (ret)
		goto out;
	if (o->pattern == PAT_RECV) {
		for (i = 0; i < NR_SLOTS; i++) {
			s->slots[i].buf = calloc(1, SLOT_BUF_SIZE);
			if (!s->slots[i].buf) {
				ret = fail(-ENOMEM, "calloc");
				goto out;
			}
		}
	} else {
		ret = bufring_setup(&s->l, &s->b, is_tcp(o) ? TCP_NR_BUFS : UDP_NR_BUFS,
				    is_tcp(o) ? TCP_BUF_SIZE : UDP_BUF_SIZE);
		if (ret)
			goto out;
	}
	print_ring_line(&s->l);
	info(o, "serving on %s, pattern %s, ring %s, napi busy poll %u us%s", o->addr_str,
	     pattern_names[o->pattern], o->ring->name, o->napi_us,
	     o->napi_prefer ? " (prefer)" : "");

	ret = server_start(s);
	if (ret)
		goto out;
	while (!stop_signal) {
		ret = ring_wait(&s->l);
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
	}
	server_drain(s);

	printf("served count=%u napi_id=%u rearms=%u\n", s->served, server_napi_id(s), s->rearms);
	fflush(stdout);
	print_cpu(o);
	ret = 0;
out:
	loop_exit(&s->l);
	bufring_free(&s->b);
	for (i = 0; i < MAX_CONNS; i++)
		if (s->conns[i].fd >= 0)
			close(s->conns[i].fd);
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
