// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringentry - set one io_uring ring up through a chosen entry point, for the
 * agent's tests: each is a door liburingtune-agent.so must guard.
 *
 *   syscall            libc's syscall(__NR_io_uring_setup, ...) (fio's way)
 *   setup              liburing's io_uring_setup() wrapper
 *   queue_init         io_uring_queue_init()
 *   queue_init_params  io_uring_queue_init_params()
 *   queue_init_mem     io_uring_queue_init_mem() (liburing 2.5+; here from
 *                      build/libut_uring25.so)
 *
 * Prints "ring pid= fd= flags=0x.. ret=N" with the flags the program sees in
 * its params afterwards and the entry point's own return value, then
 * "ready", and holds the ring until SIGINT/SIGTERM or --hold.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <liburing.h>

#include "tool.h"

#define PROG		"ringentry"
#define ENTRIES		8

int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring, struct io_uring_params *p,
			    void *buf, size_t buf_size);

static const char *const vias[] = {
	"syscall", "setup", "queue_init", "queue_init_params", "queue_init_mem",
};

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " --via syscall|setup|queue_init|queue_init_params|queue_init_mem\n"
		"                 [--ring plain|single-issuer|defer-taskrun|sqpoll | --flags 0xHEX]\n"
		"                 [--hold SECONDS]\n"
		"  --ring KIND     setup flags by name (defer-taskrun)\n"
		"  --flags 0xHEX   raw IORING_SETUP_* flags instead (0x1: IOPOLL)\n");
}

/* the ring fd (ret: the entry point's own return), or -errno */
static int set_up(int via, unsigned int flags, struct io_uring *ring, long *ret)
{
	struct io_uring_params p;
	char buf[64];

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	switch (via) {
	case 0:
		*ret = syscall(__NR_io_uring_setup, ENTRIES, &p);
		return *ret < 0 ? -errno : (int)*ret;
	case 1:
		*ret = io_uring_setup(ENTRIES, &p);
		return (int)*ret;
	case 2:
		*ret = io_uring_queue_init(ENTRIES, ring, flags);
		break;
	case 3:
		*ret = io_uring_queue_init_params(ENTRIES, ring, &p);
		break;
	default:
		*ret = io_uring_queue_init_mem(ENTRIES, ring, &p, buf, sizeof(buf));
		break;
	}
	if (*ret < 0)
		return (int)*ret;
	/* what the program sees: its params (or, for queue_init, its ring) */
	if (via == 2)
		p.flags = ring->flags;
	if (p.flags != flags)
		fprintf(stderr, PROG ": params flags 0x%x, asked for 0x%x\n", p.flags, flags);
	return ring->ring_fd;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "via", required_argument, NULL, 'v' },
		{ "ring", required_argument, NULL, 'r' },
		{ "hold", required_argument, NULL, 'H' },
		{ "flags", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned int flags = tool_parse_ring_kind("defer-taskrun")->flags;
	char *end;
	unsigned long hold = 0;
	bool have_hold = false;
	struct io_uring ring;
	int via = -1, c, fd;
	sigset_t sigs;
	long ret;

	tool_prog = PROG;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'v':
			for (size_t i = 0; i < sizeof(vias) / sizeof(vias[0]); i++)
				if (!strcmp(optarg, vias[i]))
					via = (int)i;
			if (via < 0)
				tool_usage_error("--via: expected syscall, setup, queue_init, "
						 "queue_init_params or queue_init_mem, got '%s'", optarg);
			break;
		case 'r':
			flags = tool_parse_ring_kind(optarg)->flags;
			break;
		case 'f':
			errno = 0;
			flags = (unsigned int)strtoul(optarg, &end, 16);
			if (strncmp(optarg, "0x", 2) || errno || *end || end == optarg + 2)
				tool_usage_error("--flags: expected a hex number like 0x1, got '%s'",
						 optarg);
			break;
		case 'H':
			hold = tool_parse_ulong("--hold", optarg, 0, 86400, "seconds from 0 to 86400");
			have_hold = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			tool_bad_option(c, argv, 256);
		}
	}
	if (via < 0)
		tool_usage_error("--via is required (see --help)");

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	memset(&ring, 0, sizeof(ring));
	fd = set_up(via, flags, &ring, &ret);
	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", vias[via], strerror(-fd));
		return 1;
	}
	printf("ring pid=%d fd=%d flags=0x%x ret=%ld\nready\n", getpid(), fd, flags, ret);
	fflush(stdout);
	if (have_hold) {
		struct timespec ts = { .tv_sec = (time_t)hold };

		sigtimedwait(&sigs, NULL, &ts);
	} else {
		sigwaitinfo(&sigs, NULL);
	}
	return 0;
}
