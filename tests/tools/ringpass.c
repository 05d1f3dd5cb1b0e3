// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringpass: moves a ring's fd between processes and fds the ways real
 * programs do, on SIGUSR1, for tests/integration/ring_holders.sh:
 *   fork   the holder forks; the child keeps the ring (the test then kills
 *          the parent)
 *   send   a receiver forked before the ring existed gets it over
 *          SCM_RIGHTS; the sender then closes its fd and stays alive.
 *          Linux 6.7 (and stable kernels since) refuses io_uring fds in
 *          SCM_RIGHTS: then "refused errno=EINVAL" is printed instead
 *   getfd  the same, but the receiver takes the fd with pidfd_getfd(2),
 *          the way left to hand a ring to another process
 *   dup    the holder dups the fd and closes the original
 *   close  the holder closes the ring and lives on
 * Prints "ring pid=P fd=F" when the ring exists, then what happened:
 * "child pid=C fd=F", "received pid=C fd=R", "moved pid=P fd=G", "closed".
 * --use: the process holding the ring afterwards waits on it every 100 ms
 * (a 10 ms timed wait), as a program using it would.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"

#define PROG "ringpass"

static volatile sig_atomic_t go, stop;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		go = 1;
	else
		stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " fork|send|getfd|dup|close [--use]\n");
}

/* a 10 ms wait for one completion that never comes: the kernel traces it */
static void use_ring(int fd)
{
	struct __kernel_timespec ts = { .tv_nsec = 10 * 1000 * 1000 };
	struct io_uring_getevents_arg arg = { .ts = (unsigned long)&ts };

	syscall(__NR_io_uring_enter, fd, 0, 1, IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG,
		&arg, sizeof(arg));
}

/* until SIGTERM/SIGINT; with use, waiting on the ring now and then */
static void hold(int fd, bool use)
{
	while (!stop) {
		if (use && fd >= 0)
			use_ring(fd);
		usleep(100 * 1000);
	}
}

static void wait_go(void)
{
	while (!go && !stop)
		pause();
}

static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	char byte = 'r';
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -errno;
}

static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	char byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

static int do_fork(struct io_uring *ring, bool use)
{
	pid_t child;

	wait_go();
	child = fork();
	if (child < 0) {
		perror(PROG ": fork");
		return 1;
	}
	if (child == 0) {
		printf("child pid=%d fd=%d\n", getpid(), ring->ring_fd);
		fflush(stdout);
		hold(ring->ring_fd, use);
		return 0;
	}
	hold(-1, false);
	return 0;
}

/* the receiver's side: the ring over SCM_RIGHTS, or taken with pidfd_getfd */
static int receive(int sock, bool getfd, bool use)
{
	int fd, pidfd, num;

	if (getfd) {
		if (read(sock, &num, sizeof(num)) != sizeof(num))
			return 1;
		pidfd = syscall(SYS_pidfd_open, getppid(), 0);
		fd = pidfd < 0 ? -1 : syscall(SYS_pidfd_getfd, pidfd, num, 0);
		if (fd < 0) {
			perror(PROG ": pidfd_getfd");
			return 1;
		}
		close(pidfd);
		/* the sender may close its fd now */
		if (write(sock, &num, sizeof(num)) != sizeof(num))
			return 1;
	} else {
		fd = recv_fd(sock);
		if (fd < 0)
			return 0;	/* refused: the sender says so */
	}
	printf("received pid=%d fd=%d\n", getpid(), fd);
	fflush(stdout);
	hold(fd, use);
	return 0;
}

static int do_send(bool getfd, bool use)
{
	struct io_uring ring;
	int sv[2], ret, num;
	pid_t child;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		perror(PROG ": socketpair");
		return 1;
	}
	/* the receiver exists before the ring: it cannot inherit it */
	child = fork();
	if (child < 0) {
		perror(PROG ": fork");
		return 1;
	}
	if (child == 0) {
		close(sv[0]);
		return receive(sv[1], getfd, use);
	}
	close(sv[1]);
	if (tool_ring_init(&ring, 0))
		return 1;
	printf("ring pid=%d fd=%d\n", getpid(), ring.ring_fd);
	fflush(stdout);
	wait_go();
	if (getfd) {
		num = ring.ring_fd;
		if (write(sv[0], &num, sizeof(num)) != sizeof(num) ||
		    read(sv[0], &num, sizeof(num)) != sizeof(num)) {
			fprintf(stderr, PROG ": the receiver did not take the ring\n");
			return 1;
		}
	} else {
		ret = send_fd(sv[0], ring.ring_fd);
		if (ret) {
			printf("refused errno=%s\n", strerrorname_np(-ret));
			fflush(stdout);
			close(sv[0]);
		}
	}
	/* the receiver holds it now: the sender lets go and lives on */
	io_uring_queue_exit(&ring);
	hold(-1, false);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	return 0;
}

static int do_dup(struct io_uring *ring, bool use)
{
	int fd;

	wait_go();
	/* well above the original: a new number, not the freed one */
	fd = fcntl(ring->ring_fd, F_DUPFD_CLOEXEC, ring->ring_fd + 10);
	if (fd < 0) {
		perror(PROG ": dup");
		return 1;
	}
	close(ring->ring_fd);
	printf("moved pid=%d fd=%d\n", getpid(), fd);
	fflush(stdout);
	hold(fd, use);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "use", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sigaction sa = { .sa_handler = on_signal };
	struct io_uring ring;
	bool use = false;
	const char *mode;
	int c;

	tool_prog = PROG;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		if (c == 'u')
			use = true;
		else if (c == 'h') {
			usage(stdout);
			return 0;
		} else
			tool_bad_option(c, argv, 0);
	}
	if (optind != argc - 1)
		tool_usage_error("expected one mode: fork, send, getfd, dup or close");
	mode = argv[optind];
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "send") || !strcmp(mode, "getfd"))
		return do_send(!strcmp(mode, "getfd"), use);
	if (strcmp(mode, "fork") && strcmp(mode, "dup") && strcmp(mode, "close"))
		tool_usage_error("unknown mode '%s': expected fork, send, getfd, dup or close", mode);
	if (tool_ring_init(&ring, 0))
		return 1;
	printf("ring pid=%d fd=%d\n", getpid(), ring.ring_fd);
	fflush(stdout);
	if (!strcmp(mode, "close")) {
		wait_go();
		io_uring_queue_exit(&ring);
		printf("closed\n");
		hold(-1, false);
		return 0;
	}
	return !strcmp(mode, "fork") ? do_fork(&ring, use) : do_dup(&ring, use);
}
