// SPDX-License-Identifier: GPL-2.0-only
/*
 * iopoll_load - O_DIRECT reads on a block device through an IOPOLL io_uring
 * ring (optionally HYBRID_IOPOLL), QD requests kept in flight, each timed
 * from its submission to its CQE: the load behind uringtune's IOPOLL
 * statistics, and the reference its completion times are checked against.
 *
 * An IOPOLL ring gets no completion interrupts to wake it: completions are
 * found by polling the device queue inside io_uring_enter(GETEVENTS), which
 * io_uring_wait_cqe calls when the CQ ring is empty. The device needs poll
 * queues (NVMe: nvme.poll_queues=N); without them reads fail EOPNOTSUPP.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <liburing.h>

#include "tool.h"
#include "uring_abi.h"

#define PROG			"iopoll_load"
#define EXIT_RUNTIME		1
#define EXIT_USAGE		2
/* the kernel refuses HYBRID_IOPOLL (before 6.13): the caller decides */
#define EXIT_NO_HYBRID		3

#define DEFAULT_SECONDS		2
#define DEFAULT_BS		4096
#define MIN_BS			512
#define MAX_BS			(1U << 20)
#define NSEC_PER_SEC		1000000000LL
#define NSEC_PER_USEC		1000.0
/* how often the run looks for SIGINT/SIGTERM (blocked, so not delivered) */
#define SIGNAL_CHECK_EVERY	256

struct opts {
	const char *dev;
	unsigned int qd;
	unsigned long long ios;		/* 0: run for seconds instead */
	unsigned int seconds;
	unsigned int bs;
	bool hybrid;
	bool random;
	unsigned int linger_s;
};

struct slot {
	void *buf;
	struct timespec submitted;
};

struct run {
	const struct opts *o;
	struct io_uring ring;
	int fd;
	unsigned long long dev_blocks;	/* in units of bs */
	unsigned long long next_block;	/* sequential mode */
	uint64_t rng;			/* xorshift64 state, random mode */
	struct slot *slots;
	unsigned long long submitted, completed;
	uint32_t *lat_ns;		/* one per completion, for percentiles */
	size_t lat_cap;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --dev PATH [--qd N] [--ios N | --seconds S] [--bs BYTES]\n"
		"                   [--hybrid] [--random] [--linger SECONDS]\n"
		"  --dev PATH        block device (or file) to read with O_DIRECT\n"
		"  --qd N            reads kept in flight, 1-%d (1)\n"
		"  --ios N           stop after N reads\n"
		"  --seconds S       stop submitting after S seconds (%d)\n"
		"  --bs BYTES        read size, a multiple of %d up to %u (%d)\n"
		"  --hybrid          IORING_SETUP_HYBRID_IOPOLL (Linux 6.13+; refused: exit %d)\n"
		"  --random          random block-aligned offsets (default: sequential, wrapping)\n"
		"  --linger SECONDS  keep the ring open after printing the results (0)\n",
		TOOL_QUEUE_DEPTH, DEFAULT_SECONDS, MIN_BS, MAX_BS, DEFAULT_BS, EXIT_NO_HYBRID);
}

enum {
	OPT_DEV = 256,
	OPT_QD,
	OPT_IOS,
	OPT_SECONDS,
	OPT_BS,
	OPT_HYBRID,
	OPT_RANDOM,
	OPT_LINGER,
};

static const struct option long_opts[] = {
	{ "dev",	required_argument,	NULL, OPT_DEV },
	{ "qd",		required_argument,	NULL, OPT_QD },
	{ "ios",	required_argument,	NULL, OPT_IOS },
	{ "seconds",	required_argument,	NULL, OPT_SECONDS },
	{ "bs",		required_argument,	NULL, OPT_BS },
	{ "hybrid",	no_argument,		NULL, OPT_HYBRID },
	{ "random",	no_argument,		NULL, OPT_RANDOM },
	{ "linger",	required_argument,	NULL, OPT_LINGER },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 },
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_seconds = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->qd = 1;
	o->seconds = DEFAULT_SECONDS;
	o->bs = DEFAULT_BS;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_DEV:
			o->dev = optarg;
			break;
		case OPT_QD:
			/* tool_ring_init's ring has TOOL_QUEUE_DEPTH entries */
			o->qd = tool_parse_ulong("--qd", optarg, 1, TOOL_QUEUE_DEPTH,
						 "an integer from 1 to 8");
			break;
		case OPT_IOS:
			o->ios = tool_parse_ulong("--ios", optarg, 1, UINT32_MAX,
						  "a positive integer");
			break;
		case OPT_SECONDS:
			o->seconds = tool_parse_ulong("--seconds", optarg, 1, 86400,
						      "an integer from 1 to 86400");
			have_seconds = true;
			break;
		case OPT_BS:
			o->bs = tool_parse_ulong("--bs", optarg, MIN_BS, MAX_BS,
						 "a multiple of 512 from 512 to 1048576");
			if (o->bs % MIN_BS)
				tool_usage_error("--bs: expected a multiple of 512 from 512 to 1048576, got '%s'",
						 optarg);
			break;
		case OPT_HYBRID:
			o->hybrid = true;
			break;
		case OPT_RANDOM:
			o->random = true;
			break;
		case OPT_LINGER:
			o->linger_s = tool_parse_ulong("--linger", optarg, 0, INT32_MAX,
						       "a non-negative integer");
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, argv, OPT_DEV);
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (!o->dev)
		tool_usage_error("--dev PATH is required");
	if (o->ios && have_seconds)
		tool_usage_error("--ios: not with --seconds (one or the other ends the run)");
}

static int fail(int err, const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(-err));
	return err;
}

static bool signal_pending_now(void)
{
	sigset_t pending;

	if (sigpending(&pending))
		return false;
	return sigismember(&pending, SIGINT) || sigismember(&pending, SIGTERM);
}

/* Size of the device (BLKGETSIZE64) or file, in whole blocks of bs. */
static int open_dev(struct run *r)
{
	unsigned long long bytes;
	struct stat st;

	r->fd = open(r->o->dev, O_RDONLY | O_DIRECT);
	if (r->fd < 0)
		return fail(-errno, r->o->dev);
	if (fstat(r->fd, &st))
		return fail(-errno, "fstat");
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(r->fd, BLKGETSIZE64, &bytes))
			return fail(-errno, "ioctl(BLKGETSIZE64)");
	} else {
		bytes = st.st_size;
	}
	r->dev_blocks = bytes / r->o->bs;
	if (!r->dev_blocks) {
		fprintf(stderr, PROG ": %s: %llu bytes, smaller than one block of %u\n",
			r->o->dev, bytes, r->o->bs);
		return -EINVAL;
	}
	return 0;
}

static unsigned long long next_offset(struct run *r)
{
	unsigned long long b;

	if (r->o->random) {
		/* xorshift64: cheap, and the same sequence every run */
		r->rng ^= r->rng << 13;
		r->rng ^= r->rng >> 7;
		r->rng ^= r->rng << 17;
		b = r->rng % r->dev_blocks;
	} else {
		b = r->next_block++;
		if (r->next_block == r->dev_blocks)
			r->next_block = 0;
	}
	return b * r->o->bs;
}

static int record(struct run *r, long long ns)
{
	if (r->completed == r->lat_cap) {
		size_t cap = r->lat_cap ? r->lat_cap * 2 : 65536;
		uint32_t *p = realloc(r->lat_ns, cap * sizeof(*p));

		if (!p)
			return fail(-ENOMEM, "realloc");
		r->lat_ns = p;
		r->lat_cap = cap;
	}
	/* a completion time past 4 s is clamped: it only has to rank last */
	r->lat_ns[r->completed++] = ns < 0 ? 0 : ns > UINT32_MAX ? UINT32_MAX : ns;
	return 0;
}

/* Queue a read into a slot; stamped by the caller just before the submit. */
static void queue_read(struct run *r, unsigned int slot)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&r->ring);

	/* never NULL: at most qd <= ring entries are ever queued */
	io_uring_prep_read(sqe, r->fd, r->slots[slot].buf, r->o->bs, next_offset(r));
	io_uring_sqe_set_data64(sqe, slot);
	r->submitted++;
}

/* Another read? queued: reads picked for a refill but not queued yet. */
static bool want_more(const struct run *r, const struct timespec *deadline, unsigned int queued)
{
	struct timespec now;

	if (r->o->ios)
		return r->submitted + queued < r->o->ios;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return tool_ts_diff_ns(deadline, &now) > 0;
}

/*
 * Keep qd reads in flight until the run ends, then drain. Each round waits
 * for at least one CQE (polling the device in io_uring_enter), reaps all
 * that are there, and refills the freed slots in one submit.
 */
static int run_load(struct run *r, const struct timespec *deadline)
{
	unsigned int refill[TOOL_QUEUE_DEPTH], nr_refill = 0, i, head, seen;
	unsigned long long checked = 0;
	struct io_uring_cqe *cqe;
	struct timespec now;
	bool more = true;
	int ret;

	for (i = 0; i < r->o->qd && want_more(r, deadline, nr_refill); i++)
		refill[nr_refill++] = i;
	while (nr_refill || r->completed < r->submitted) {
		if (nr_refill) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			for (i = 0; i < nr_refill; i++) {
				r->slots[refill[i]].submitted = now;
				queue_read(r, refill[i]);
			}
			nr_refill = 0;
			ret = io_uring_submit(&r->ring);
			if (ret < 0)
				return fail(ret, "io_uring_submit");
		}
		ret = io_uring_wait_cqe(&r->ring, &cqe);
		if (ret == -EINTR)
			continue;
		if (ret < 0)
			return fail(ret, "io_uring_wait_cqe");
		/* one clock read per batch: every CQE here was polled by now */
		clock_gettime(CLOCK_MONOTONIC, &now);
		seen = 0;
		io_uring_for_each_cqe(&r->ring, head, cqe) {
			unsigned int slot = (unsigned int)io_uring_cqe_get_data64(cqe);

			seen++;
			if (cqe->res < 0) {
				io_uring_cq_advance(&r->ring, seen);
				if (cqe->res == -EOPNOTSUPP)
					fprintf(stderr, PROG ": read: %s (IOPOLL needs a device with poll queues, e.g. nvme.poll_queues=1)\n",
						strerror(EOPNOTSUPP));
				else
					fail(cqe->res, "read");
				return cqe->res;
			}
			ret = record(r, tool_ts_diff_ns(&now, &r->slots[slot].submitted));
			if (ret) {
				io_uring_cq_advance(&r->ring, seen);
				return ret;
			}
			if (more)
				more = want_more(r, deadline, nr_refill);
			if (more)
				refill[nr_refill++] = slot;
		}
		io_uring_cq_advance(&r->ring, seen);
		if (more && r->completed - checked >= SIGNAL_CHECK_EVERY) {
			checked = r->completed;
			/* a signal ends the run early: drain, report as usual */
			if (signal_pending_now()) {
				more = false;
				nr_refill = 0;
			}
		}
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* nearest-rank percentile of the sorted samples, in microseconds */
static double percentile_us(const struct run *r, unsigned int pct)
{
	unsigned long long rank = (r->completed * pct + 99) / 100;

	return r->lat_ns[rank ? rank - 1 : 0] / NSEC_PER_USEC;
}

static long long rusage_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

static void report(const struct run *r, long long wall_ns, long long cpu_ns)
{
	double secs = wall_ns / (double)NSEC_PER_SEC;
	double sum = 0;
	unsigned long long i;

	if (!r->completed) {
		printf("iopoll completed=0 p50_us=0 p99_us=0 iops=0 cpu_pct=0\n");
		return;
	}
	for (i = 0; i < r->completed; i++)
		sum += r->lat_ns[i];
	qsort(r->lat_ns, r->completed, sizeof(*r->lat_ns), cmp_u32);
	printf("iopoll completed=%llu p50_us=%.1f p99_us=%.1f iops=%.0f cpu_pct=%.1f"
	       " avg_us=%.1f min_us=%.1f max_us=%.1f qd=%u bs=%u hybrid=%d random=%d\n",
	       r->completed, percentile_us(r, 50), percentile_us(r, 99),
	       secs > 0 ? r->completed / secs : 0, secs > 0 ? 100.0 * cpu_ns / wall_ns : 0,
	       sum / r->completed / NSEC_PER_USEC, r->lat_ns[0] / NSEC_PER_USEC,
	       r->lat_ns[r->completed - 1] / NSEC_PER_USEC, r->o->qd, r->o->bs,
	       r->o->hybrid, r->o->random);
}

/* Keep the ring open after the results, so that a test can query the daemon. */
static void linger(const struct opts *o, const sigset_t *sigs)
{
	struct timespec deadline, now, left;
	long long ns;

	if (!o->linger_s || signal_pending_now())
		return;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += o->linger_s;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = tool_ts_diff_ns(&deadline, &now);
		if (ns <= 0)
			return;
		left.tv_sec = ns / NSEC_PER_SEC;
		left.tv_nsec = ns % NSEC_PER_SEC;
		/* SIGINT/SIGTERM are blocked: they end the wait, not the process */
		if (sigtimedwait(sigs, NULL, &left) > 0 || errno == EAGAIN)
			return;
	}
}

static int setup_ring(struct run *r)
{
	unsigned int flags = UT_SETUP_IOPOLL;
	int ret;

	/* liburing 2.3 lacks HYBRID_IOPOLL but passes params.flags through */
	if (r->o->hybrid)
		flags |= UT_SETUP_HYBRID_IOPOLL;
	ret = tool_ring_init(&r->ring, flags);
	if (ret == -EINVAL && r->o->hybrid) {
		fprintf(stderr, PROG ": the kernel refuses IORING_SETUP_HYBRID_IOPOLL (EINVAL; it needs Linux 6.13+)\n");
		return -EINVAL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct timespec start, end, deadline;
	long long cpu0, cpu1;
	struct run r;
	struct opts o;
	sigset_t sigs;
	unsigned int i;
	int ret, rc = EXIT_RUNTIME;

	tool_prog = PROG;
	parse_args(argc, argv, &o);
	memset(&r, 0, sizeof(r));
	r.o = &o;
	r.fd = -1;
	r.rng = 0x9e3779b97f4a7c15ULL;

	/* blocked for good: the run polls for them, linger waits for them */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL)) {
		fail(-errno, "sigprocmask");
		return EXIT_RUNTIME;
	}

	if (open_dev(&r))
		goto out_fd;
	r.slots = calloc(o.qd, sizeof(*r.slots));
	if (!r.slots) {
		fail(-ENOMEM, "calloc");
		goto out_fd;
	}
	for (i = 0; i < o.qd; i++) {
		ret = posix_memalign(&r.slots[i].buf, 4096, o.bs);
		if (ret) {
			fail(-ret, "posix_memalign");
			goto out_bufs;
		}
	}
	ret = setup_ring(&r);
	if (ret) {
		rc = ret == -EINVAL && o.hybrid ? EXIT_NO_HYBRID : EXIT_RUNTIME;
		goto out_bufs;
	}
	printf("ring pid=%d fd=%d flags=0x%x\n", (int)getpid(), r.ring.ring_fd, r.ring.flags);
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &start);
	cpu0 = rusage_cpu_ns();
	deadline = start;
	deadline.tv_sec += o.seconds;
	ret = run_load(&r, &deadline);
	clock_gettime(CLOCK_MONOTONIC, &end);
	cpu1 = rusage_cpu_ns();
	if (!ret) {
		report(&r, tool_ts_diff_ns(&end, &start), cpu1 - cpu0);
		fflush(stdout);
		linger(&o, &sigs);
		rc = 0;
	}
	io_uring_queue_exit(&r.ring);
out_bufs:
	for (i = 0; r.slots && i < o.qd; i++)
		free(r.slots[i].buf);
	free(r.slots);
	free(r.lat_ns);
out_fd:
	if (r.fd >= 0)
		close(r.fd);
	return rc;
}
