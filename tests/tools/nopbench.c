// SPDX-License-Identifier: GPL-2.0-only
/*
 * nopbench - io_uring NOP throughput on one ring, for the overhead
 * benchmark of uringtune (does observing rings slow down their submissions?).
 *
 * Each loop gets --batch SQEs, preps them as NOPs and submits them with one
 * io_uring_enter that also waits for their completions; then it reaps the
 * CQEs. NOPs complete inline, so a wait never has to block: the benchmark
 * measures the submit and complete paths, which uringtune does not hook (its
 * programs run on ring creation, NAPI registration, armed polls and waits
 * that block). One ring, one thread.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <liburing.h>

#include "tool.h"
#include "uring_abi.h"

#define PROG			"nopbench"
#define EXIT_RUNTIME		1

#define DEFAULT_BATCH		32
#define MAX_BATCH		4096
#define DEFAULT_SECONDS		1
#define MAX_SECONDS		3600
/* the clock is read once per this many batches (a read costs ~50 ns here) */
#define CLOCK_EVERY		64

struct opts {
	unsigned int batch;
	unsigned int seconds;		/* 0: run --ops instead */
	unsigned long long ops;		/* 0: run --seconds instead */
	const struct tool_ring_kind *ring;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " [--batch N] [--seconds S | --ops N] [--ring KIND]\n"
		"  --batch N       NOPs per submission, each submission waits for its own (%d, 1-%d)\n"
		"  --seconds S     run for S seconds (%d)\n"
		"  --ops N         run N NOPs instead (rounded up to whole batches)\n"
		"  --ring KIND     plain, coop-taskrun, single-issuer, defer-taskrun or sqpoll (plain)\n"
		"Prints: ring pid= fd= flags=, then nop ops= batch= seconds= ops_per_s=\n",
		DEFAULT_BATCH, MAX_BATCH, DEFAULT_SECONDS);
}

enum {
	OPT_BATCH = 256,
	OPT_SECONDS,
	OPT_OPS,
	OPT_RING,
};

static const struct option long_opts[] = {
	{ "batch",	required_argument,	NULL, OPT_BATCH },
	{ "seconds",	required_argument,	NULL, OPT_SECONDS },
	{ "ops",	required_argument,	NULL, OPT_OPS },
	{ "ring",	required_argument,	NULL, OPT_RING },
	{ "help",	no_argument,		NULL, 'h' },
	{ NULL,		0,			NULL, 0 },
};

static void parse_args(int argc, char **argv, struct opts *o)
{
	bool have_seconds = false;
	int c;

	memset(o, 0, sizeof(*o));
	o->batch = DEFAULT_BATCH;
	o->seconds = DEFAULT_SECONDS;
	o->ring = tool_parse_ring_kind("plain");

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", long_opts, NULL)) != -1) {
		switch (c) {
		case OPT_BATCH:
			o->batch = tool_parse_ulong("--batch", optarg, 1, MAX_BATCH,
						    "an integer from 1 to 4096");
			break;
		case OPT_SECONDS:
			o->seconds = tool_parse_ulong("--seconds", optarg, 1, MAX_SECONDS,
						      "an integer from 1 to 3600");
			have_seconds = true;
			break;
		case OPT_OPS:
			o->ops = tool_parse_ulong("--ops", optarg, 1, UINT64_MAX,
						  "a positive integer");
			break;
		case OPT_RING:
			o->ring = tool_parse_ring_kind(optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			tool_bad_option(c, argv, OPT_BATCH);
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (o->ops && have_seconds)
		tool_usage_error("--ops: not with --seconds (one or the other)");
	if (o->ops)
		o->seconds = 0;
}

static int ring_setup(const struct opts *o, struct io_uring *ring)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = o->ring->flags;
	if (p.flags & UT_SETUP_SQPOLL)
		p.sq_thread_idle = TOOL_SQ_THREAD_IDLE_MS;
	/* a whole batch in one submission; the CQ (twice the SQ) takes it too */
	ret = io_uring_queue_init_params(o->batch, ring, &p);
	if (ret < 0)
		fprintf(stderr, PROG ": io_uring_setup(flags=0x%x): %s\n", p.flags,
			strerror(-ret));
	return ret;
}

/* One batch: submit it, wait for all of its completions, reap them. */
static int one_batch(const struct opts *o, struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	unsigned int i, head, seen = 0;
	int ret, err = 0;

	for (i = 0; i < o->batch; i++) {
		/* the SQ holds a batch and every batch is submitted: cannot fail */
		sqe = io_uring_get_sqe(ring);
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, i);
	}
	ret = io_uring_submit_and_wait(ring, o->batch);
	if (ret < 0) {
		fprintf(stderr, PROG ": io_uring_enter: %s\n", strerror(-ret));
		return ret;
	}
	/* in case the wait ended short of the batch (SQPOLL): wait again */
	while (seen < o->batch) {
		unsigned int n = 0;

		io_uring_for_each_cqe(ring, head, cqe) {
			n++;
			if (cqe->res < 0 && !err)
				err = cqe->res;
		}
		io_uring_cq_advance(ring, n);
		seen += n;
		if (err) {
			fprintf(stderr, PROG ": nop: %s\n", strerror(-err));
			return err;
		}
		if (seen < o->batch) {
			ret = io_uring_wait_cqe(ring, &cqe);
			if (ret < 0) {
				fprintf(stderr, PROG ": io_uring_wait_cqe: %s\n", strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long done = 0, batches = 0;
	struct timespec t0, now;
	struct io_uring ring;
	long long limit_ns, ns = 0;
	struct opts o;
	int ret;

	tool_prog = PROG;
	parse_args(argc, argv, &o);
	ret = ring_setup(&o, &ring);
	if (ret < 0)
		return EXIT_RUNTIME;
	printf("ring pid=%d fd=%d flags=0x%x\n", (int)getpid(), ring.ring_fd, ring.flags);
	fflush(stdout);

	limit_ns = (long long)o.seconds * 1000000000LL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ret = one_batch(&o, &ring);
		if (ret)
			break;
		done += o.batch;
		batches++;
		if (o.ops) {
			if (done >= o.ops)
				break;
		} else if (batches % CLOCK_EVERY == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (tool_ts_diff_ns(&now, &t0) >= limit_ns)
				break;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = tool_ts_diff_ns(&now, &t0);
	io_uring_queue_exit(&ring);
	if (ret)
		return EXIT_RUNTIME;
	printf("nop ops=%llu batch=%u seconds=%.3f ops_per_s=%.0f\n", done, o.batch,
	       ns / 1e9, done / (ns / 1e9));
	fflush(stdout);
	return 0;
}
