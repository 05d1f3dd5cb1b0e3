// SPDX-License-Identifier: GPL-2.0-only
/* Many fds held in as many processes as the fd limit needs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "holders.h"
#include "tool.h"

int holders_fd_budget(unsigned long *budget)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	if (rl.rlim_max <= HOLDERS_FD_RESERVE)
		return -EMFILE;
	*budget = rl.rlim_max - HOLDERS_FD_RESERVE;
	return 0;
}

/* a holder: fill, report, then live until killed (or its parent dies) */
static void __attribute__((noreturn)) holder_main(int wfd, pid_t parent, unsigned long n,
						  holder_fill_fn fill, void *arg)
{
	struct holder_report r = { .pid = getpid(), .first_fd = -1, .last_fd = -1 };
	sigset_t none;
	int ret;

	/* no holder outlives its parent: Ctrl-C, a crash or kill -9 of it included */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	/* the parent blocks the signals it waits for; here they end the holder */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	ret = fill(n, arg, &r);
	r.err = ret < 0 ? -ret : 0;
	/* one write under PIPE_BUF: atomic, whatever the other holders write */
	if (write(wfd, &r, sizeof(r)) != (ssize_t)sizeof(r) || ret)
		_exit(1);
	close(wfd);
	for (;;)
		pause();
}

static int read_report(int fd, struct holder_report *r)
{
	size_t have = 0;

	while (have < sizeof(*r)) {
		ssize_t n = read(fd, (char *)r + have, sizeof(*r) - have);

		if (n > 0)
			have += (size_t)n;
		else if (n == 0)
			return -EPIPE;
		else if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* every holder's report, or the first failure (said on stderr) */
static int collect(struct holders *h, int rfd)
{
	struct holder_report r;
	unsigned int got, i;
	int ret;

	for (got = 0; got < h->nr; got++) {
		ret = read_report(rfd, &r);
		if (ret == -EPIPE) {
			for (i = 0; i < h->nr && h->reports[i].pid; i++)
				;
			fprintf(stderr, "%s: holder pid %d ended before it held its share\n",
				tool_prog, i < h->nr ? (int)h->pids[i] : -1);
			return ret;
		}
		if (ret) {
			fprintf(stderr, "%s: read from the holders: %s\n", tool_prog, strerror(-ret));
			return ret;
		}
		for (i = 0; i < h->nr && h->pids[i] != r.pid; i++)
			;
		if (i == h->nr) {
			fprintf(stderr, "%s: a report from pid %d, not a holder\n", tool_prog, r.pid);
			return -EPROTO;
		}
		h->reports[i] = r;
		if (r.err) {
			fprintf(stderr, "%s: holder pid %d stopped after %u fds: %s\n", tool_prog,
				r.pid, r.count, strerror(r.err));
			return -r.err;
		}
	}
	return 0;
}

int holders_start(struct holders *h, unsigned long total, unsigned long per_proc,
		  holder_fill_fn fill, void *arg)
{
	unsigned long left = total, n;
	unsigned int nr;
	pid_t self = getpid(), pid;
	int pfd[2], ret;

	memset(h, 0, sizeof(*h));
	if (!per_proc)
		return -EINVAL;
	nr = (unsigned int)((total + per_proc - 1) / per_proc);
	h->pids = calloc(nr ? nr : 1, sizeof(*h->pids));
	h->reports = calloc(nr ? nr : 1, sizeof(*h->reports));
	if (!h->pids || !h->reports) {
		fprintf(stderr, "%s: calloc: %s\n", tool_prog, strerror(ENOMEM));
		ret = -ENOMEM;
		goto fail;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		fprintf(stderr, "%s: pipe: %s\n", tool_prog, strerror(-ret));
		goto fail;
	}
	/* nothing buffered may be written twice by a child */
	fflush(stdout);
	fflush(stderr);
	for (; h->nr < nr; left -= n) {
		n = left < per_proc ? left : per_proc;
		pid = fork();
		if (pid < 0) {
			ret = -errno;
			fprintf(stderr, "%s: fork (holder %u of %u): %s\n", tool_prog, h->nr + 1, nr,
				strerror(-ret));
			close(pfd[0]);
			close(pfd[1]);
			goto fail;
		}
		if (!pid) {
			close(pfd[0]);
			holder_main(pfd[1], self, n, fill, arg);
		}
		h->pids[h->nr++] = pid;
	}
	/* EOF on the pipe once every holder wrote its report or died */
	close(pfd[1]);
	ret = collect(h, pfd[0]);
	close(pfd[0]);
	if (ret)
		goto fail;
	return 0;
fail:
	holders_stop(h);
	return ret;
}

void holders_stop(struct holders *h)
{
	unsigned int i;

	for (i = 0; i < h->nr; i++)
		kill(h->pids[i], SIGKILL);
	for (i = 0; i < h->nr; i++)
		while (waitpid(h->pids[i], NULL, 0) < 0 && errno == EINTR)
			;
	free(h->pids);
	free(h->reports);
	memset(h, 0, sizeof(*h));
}
