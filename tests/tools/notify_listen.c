// SPDX-License-Identifier: GPL-2.0-only
/*
 * notify_listen - stand in for the service manager's end of NOTIFY_SOCKET,
 * so that tests can see what a daemon tells systemd through sd_notify().
 *
 *   notify_listen PATH
 *
 * Binds an AF_UNIX datagram socket at PATH (removing whatever is there
 * first), prints "listening", then for every datagram prints its text
 * ("READY=1\nSTATUS=..." gives one line per assignment) followed by a line
 * "-- pid=PID", PID the sender's as the kernel names it (SCM_CREDENTIALS, as
 * systemd checks it against the main pid; 0 if none came). Every write is
 * flushed. SIGTERM or SIGINT: remove PATH and exit 0.
 * Bad usage: one line on stderr, exit 2; runtime failure: exit 1.
 *
 * No liburing here: it links against libc only.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG		"notify_listen"
#define EXIT_RUNTIME	1
#define EXIT_USAGE	2
/* sd_notify() messages are short; the kernel caps a datagram's size anyway */
#define MSG_MAX		(64 * 1024)

static const char *sock_path;

/* async-signal-safe: stdout is flushed after each datagram, nothing is lost */
static void on_term(int sig)
{
	(void)sig;
	unlink(sock_path);
	_exit(0);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, PROG ": %s: path longer than %zu bytes\n", path,
			sizeof(sa.sun_path) - 1);
		exit(EXIT_USAGE);
	}
	strcpy(sa.sun_path, path);

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		exit(EXIT_RUNTIME);
	}
	if (unlink(path) && errno != ENOENT) {
		fprintf(stderr, PROG ": unlink %s: %s\n", path, strerror(errno));
		exit(EXIT_RUNTIME);
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, PROG ": bind %s: %s\n", path, strerror(errno));
		exit(EXIT_RUNTIME);
	}
	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int))) {
		fprintf(stderr, PROG ": SO_PASSCRED: %s\n", strerror(errno));
		exit(EXIT_RUNTIME);
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	static char buf[MSG_MAX];
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(struct ucred))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	struct ucred cred;
	ssize_t n;
	int fd;

	if (argc != 2 || !argv[1][0] || argv[1][0] == '-') {
		fprintf(stderr, "usage: " PROG " PATH\n");
		return EXIT_USAGE;
	}
	sock_path = argv[1];

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = listen_at(sock_path);
	printf("listening\n");
	fflush(stdout);

	for (;;) {
		mh.msg_control = ctl.b;
		mh.msg_controllen = sizeof(ctl.b);
		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recv: %s\n", strerror(errno));
			return EXIT_RUNTIME;
		}
		fwrite(buf, 1, n, stdout);
		if (n && buf[n - 1] != '\n')
			putchar('\n');
		memset(&cred, 0, sizeof(cred));
		for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(cred)))
				memcpy(&cred, CMSG_DATA(c), sizeof(cred));
		printf("-- pid=%d\n", (int)cred.pid);
		if (fflush(stdout) == EOF) {
			fprintf(stderr, PROG ": writing output: %s\n", strerror(errno));
			return EXIT_RUNTIME;
		}
	}
}
