// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_hostile - a peer of the agent socket that is not an agent: it says
 * what it likes (common/agent_abi.h), to show the daemon believes none of
 * it. See tests/tools/README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/io_uring.h>

#include "agent_abi.h"
#include "agent_wire.h"
#include "uring_abi.h"

#define PROG		"agent_hostile"
#define EXIT_USAGE	2
#define MAX_SILENT	4096

struct opts {
	const char *socket;
	unsigned int count;
	unsigned int hold_s;
	int fd;			/* RING's fd; -1: the tool's own ring */
	long long ino;		/* RING's inode; -1: the named ring's own */
	uid_t uid;
	gid_t gid;
	unsigned int slot;	/* steal: the slot to name */
	long long pid;		/* peek: the pid to look for */
	bool again;		/* silent: open again what the daemon closes */
	unsigned int timeout_ms;	/* each step's bound (default: the agent's own) */
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void die(const char *what)
{
	fprintf(stderr, PROG ": %s: %s\n", what, strerror(errno));
	exit(1);
}

/* a ring of this process, through the system call (no liburing, no agent) */
static int own_ring(uint64_t *ino)
{
	struct io_uring_params p;
	struct stat st;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0)
		die("io_uring_setup");
	if (fstat(fd, &st))
		die("fstat");
	*ino = st.st_ino;
	return fd;
}

static uint64_t ino_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/*
 * One HELLO as an agent would send it (a DEFER_TASKRUN ring, napi=on): the
 * reply's status; the page's fd in *@page if asked (else closed).
 */
static int hello_page(const struct opts *o, struct ut_agent_reply *r, int *page)
{
	struct ut_agent_hello h = {
		.type = UT_AGENT_HELLO,
		.version = UT_AGENT_PROTO_VERSION,
		.setup_flags = UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN,
		.entries = 4,
		.napi = UT_WANT_ON,
		.entry = UT_ENTRY_SYSCALL,
	};
	unsigned int nfds;
	int fd, page_fd, ret;

	fd = agent_wire_connect_ms(o->socket, o->timeout_ms);
	if (fd < 0)
		return fd;
	ret = agent_wire_send(fd, &h, sizeof(h));
	if (!ret)
		ret = agent_wire_recv_reply(fd, r, &page_fd, &nfds);
	close(fd);
	if (ret)
		return ret;
	if (page)
		*page = page_fd;
	else if (page_fd >= 0)
		close(page_fd);
	return r->status;
}

static int hello(const struct opts *o, struct ut_agent_reply *r)
{
	return hello_page(o, r, NULL);
}

/* round trips of HELLOs, for the report */
struct lat {
	uint64_t n, sum, max;
};

static int timed_hello(const struct opts *o, struct ut_agent_reply *r, struct lat *l)
{
	uint64_t t0 = now_us(), dt;
	int ret = hello(o, r);

	dt = now_us() - t0;
	l->n++;
	l->sum += dt;
	if (dt > l->max)
		l->max = dt;
	return ret;
}

/* RING or APP_NAPI for @r's slot, naming @fd and @ino, claiming everything went well */
static int ring_msg(const struct opts *o, uint32_t type, const struct ut_agent_reply *r, int fd,
		    uint64_t ino)
{
	struct ut_agent_ring m = {
		.type = type,
		.version = UT_AGENT_PROTO_VERSION,
		.slot = r->slot,
		.token = r->token,
		.fd = fd,
		.ino = ino,
		.setup_flags = UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN,
		.hybrid_added = 1,
		.napi_tried = 1,
		.napi_ret = 0,
	};
	int s, ret;

	s = agent_wire_connect_ms(o->socket, o->timeout_ms);
	if (s < 0)
		return s;
	ret = agent_wire_send(s, &m, sizeof(m));
	close(s);
	return ret;
}

static void hold(const struct opts *o)
{
	printf("ready\n");
	fflush(stdout);
	if (o->hold_s)
		sleep(o->hold_s);
	else
		pause();
}

/* HELLO + RING naming the same ring, count times */
static int cmd_flood(const struct opts *o)
{
	unsigned int i, answered = 0, refused = 0, failed = 0;
	struct ut_agent_reply r;
	struct lat l = {};
	uint64_t ino;
	int fd, ret;

	fd = own_ring(&ino);
	printf("ring pid=%d fd=%d ino=%llu\n", (int)getpid(), fd, (unsigned long long)ino);
	for (i = 0; i < o->count; i++) {
		ret = timed_hello(o, &r, &l);
		if (ret > 0 || ret < -4095) {
			failed++;
			continue;
		}
		if (ret) {
			refused++;
			continue;
		}
		answered++;
		ring_msg(o, UT_AGENT_RING, &r, o->fd >= 0 ? o->fd : fd,
			 o->ino >= 0 ? (uint64_t)o->ino : ino);
	}
	printf("flood sent=%u answered=%u refused=%u failed=%u hello_avg_us=%llu "
	       "hello_max_us=%llu\n", o->count, answered, refused, failed,
	       (unsigned long long)(l.n ? l.sum / l.n : 0), (unsigned long long)l.max);
	hold(o);
	return 0;
}

/* HELLOs whose rings never come */
static int cmd_hello(const struct opts *o)
{
	unsigned int i, answered = 0, refused = 0;
	struct ut_agent_reply r;
	int ret;

	for (i = 0; i < o->count; i++) {
		ret = hello(o, &r);
		if (!ret)
			answered++;
		else
			refused++;
		if (ret && i + 1 == o->count)
			printf("last status=%d why=%s\n", ret, r.why);
	}
	printf("hello sent=%u answered=%u refused=%u\n", o->count, answered, refused);
	hold(o);
	return 0;
}

/*
 * Connections that never say anything: --count of them, held until --hold
 * runs out; with --again each one the daemon closes is opened again at once.
 */
static int cmd_silent(const struct opts *o)
{
	static struct pollfd pfd[MAX_SILENT];
	unsigned int i, n = o->count < MAX_SILENT ? o->count : MAX_SILENT;
	uint64_t end = now_us() + (uint64_t)o->hold_s * 1000000, again = 0;

	for (i = 0; i < n; i++) {
		pfd[i].fd = agent_wire_connect_ms(o->socket, o->timeout_ms);
		pfd[i].events = POLLIN;
	}
	printf("silent connected=%u\n", n);
	fflush(stdout);
	while (now_us() < end) {
		if (poll(pfd, n, 10) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < n; i++) {
			if (pfd[i].fd >= 0 && !pfd[i].revents)
				continue;
			if (pfd[i].fd >= 0)
				close(pfd[i].fd);
			pfd[i].fd = -1;
			if (!o->again)
				continue;
			pfd[i].fd = agent_wire_connect_ms(o->socket, o->timeout_ms);
			pfd[i].revents = 0;
			again++;
		}
	}
	printf("silent reconnected=%llu\n", (unsigned long long)again);
	return 0;
}

/*
 * HELLO now; at a line on stdin, RING and APP_NAPI for that slot naming
 * --fd and --ino (what is not there yet), queued, and exit at once: the
 * messages are the kernel's to deliver after this process is gone.
 */
static int cmd_reuse(const struct opts *o)
{
	struct ut_agent_reply r;
	char line[16];
	int ret;

	ret = hello(o, &r);
	printf("hello pid=%d status=%d slot=%u\n", (int)getpid(), ret, r.slot);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	ring_msg(o, UT_AGENT_RING, &r, o->fd, o->ino >= 0 ? (uint64_t)o->ino : 0);
	ring_msg(o, UT_AGENT_APP_NAPI, &r, o->fd, o->ino >= 0 ? (uint64_t)o->ino : 0);
	printf("queued pid=%d\n", (int)getpid());
	return 0;
}

/* HELLO + RING naming --fd (default: its own ring) and --ino (default: that ring's) */
static int cmd_announce(const struct opts *o)
{
	struct ut_agent_reply r;
	uint64_t ino = 0, t0;
	int fd = o->fd, ret;

	if (fd < 0)
		fd = own_ring(&ino);
	else
		ino = ino_of(fd);
	if (o->ino >= 0)
		ino = o->ino;
	printf("ring pid=%d fd=%d ino=%llu\n", (int)getpid(), fd, (unsigned long long)ino);
	t0 = now_us();
	ret = hello(o, &r);
	printf("hello status=%d slot=%u us=%llu\n", ret, r.slot,
	       (unsigned long long)(now_us() - t0));
	if (!ret)
		ring_msg(o, UT_AGENT_RING, &r, fd, ino);
	hold(o);
	return 0;
}

/*
 * As root: a ring; then a child that becomes --uid/--gid, keeps the ring's
 * fd and announces it as its own. The parent holds the ring.
 */
static int cmd_inherit(const struct opts *o)
{
	struct opts child = *o;
	uint64_t ino;
	pid_t pid;
	int fd, st;

	fd = own_ring(&ino);
	printf("ring pid=%d fd=%d ino=%llu\n", (int)getpid(), fd, (unsigned long long)ino);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(o->gid, o->gid, o->gid) ||
		    setresuid(o->uid, o->uid, o->uid))
			die("dropping privileges");
		child.fd = fd;
		child.ino = ino;
		child.hold_s = o->hold_s;
		printf("child pid=%d uid=%u\n", (int)getpid(), (unsigned int)getuid());
		return cmd_announce(&child);
	}
	waitpid(pid, &st, 0);
	return 0;
}

/* the page a HELLO hands out, mapped; NULL if none */
static const struct ut_agent_page *page_of_hello(const struct opts *o, size_t *len)
{
	struct ut_agent_reply r;
	struct stat st;
	void *p;
	int fd = -1;

	if (hello_page(o, &r, &fd) || fd < 0 || fstat(fd, &st))
		return NULL;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	*len = st.st_size;
	return p == MAP_FAILED ? NULL : p;
}

/* RING for --slot (another process's), with the token read from the page, naming its own ring */
static int cmd_steal(const struct opts *o)
{
	const struct ut_agent_page *pg;
	struct ut_agent_reply r = { .slot = o->slot };
	uint64_t ino;
	size_t len;
	int fd;

	pg = page_of_hello(o, &len);
	if (!pg || o->slot >= pg->nslots)
		die("no page, or no such slot");
	r.token = __atomic_load_n(&pg->slots[o->slot].token, __ATOMIC_RELAXED);
	fd = own_ring(&ino);
	printf("ring pid=%d fd=%d ino=%llu\n", (int)getpid(), fd, (unsigned long long)ino);
	printf("steal slot=%u token=%s\n", o->slot, r.token ? "seen" : "none");
	ring_msg(o, UT_AGENT_RING, &r, fd, ino);
	hold(o);
	return 0;
}

/* is --pid (4 bytes) or --ino (8 bytes) anywhere in the page a HELLO hands out? */
static int cmd_peek(const struct opts *o)
{
	const struct ut_agent_page *pg;
	unsigned int used = 0, i;
	bool pid_found = false, ino_found = false;
	int32_t pid = o->pid;
	uint64_t ino = o->ino;
	size_t len, off;

	pg = page_of_hello(o, &len);
	if (!pg)
		die("no page");
	for (off = sizeof(*pg); off + sizeof(ino) <= len; off += 4) {
		pid_found |= o->pid > 0 && !memcmp((const char *)pg + off, &pid, sizeof(pid));
		ino_found |= o->ino > 0 && !memcmp((const char *)pg + off, &ino, sizeof(ino));
	}
	for (i = 0; i < pg->nslots; i++)
		used += pg->slots[i].token != 0;
	printf("page bytes=%zu slots_used=%u pid_found=%d ino_found=%d\n", len, used,
	       pid_found, ino_found);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " PROG " --socket PATH flood|hello|silent|reuse|announce|inherit|steal|peek\n"
		"           [--count N] [--hold SECONDS] [--fd FD] [--ino INODE]\n"
		"           [--uid UID --gid GID] [--slot N] [--pid PID] [--again]\n"
		"           [--timeout-ms MS]\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "hold", required_argument, NULL, 'H' },
		{ "fd", required_argument, NULL, 'f' },
		{ "ino", required_argument, NULL, 'i' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		{ "slot", required_argument, NULL, 'S' },
		{ "pid", required_argument, NULL, 'p' },
		{ "again", no_argument, NULL, 'a' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .socket = UT_AGENT_SOCKET, .count = 1, .fd = -1, .ino = -1,
			  .uid = 65534, .gid = 65534, .timeout_ms = UT_AGENT_REPLY_TIMEOUT_MS };
	const char *cmd;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o.socket = optarg; break;
		case 'n': o.count = strtoul(optarg, NULL, 10); break;
		case 'H': o.hold_s = strtoul(optarg, NULL, 10); break;
		case 'f': o.fd = atoi(optarg); break;
		case 'i': o.ino = strtoll(optarg, NULL, 10); break;
		case 'u': o.uid = strtoul(optarg, NULL, 10); break;
		case 'g': o.gid = strtoul(optarg, NULL, 10); break;
		case 'S': o.slot = strtoul(optarg, NULL, 10); break;
		case 'p': o.pid = strtoll(optarg, NULL, 10); break;
		case 'a': o.again = true; break;
		case 't': o.timeout_ms = strtoul(optarg, NULL, 10); break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	cmd = argv[optind];
	if (!strcmp(cmd, "flood"))
		return cmd_flood(&o);
	if (!strcmp(cmd, "hello"))
		return cmd_hello(&o);
	if (!strcmp(cmd, "silent"))
		return cmd_silent(&o);
	if (!strcmp(cmd, "reuse"))
		return cmd_reuse(&o);
	if (!strcmp(cmd, "announce"))
		return cmd_announce(&o);
	if (!strcmp(cmd, "inherit"))
		return cmd_inherit(&o);
	if (!strcmp(cmd, "steal"))
		return cmd_steal(&o);
	if (!strcmp(cmd, "peek"))
		return cmd_peek(&o);
	usage(stderr);
	return EXIT_USAGE;
}
