// SPDX-License-Identifier: GPL-2.0-only
/* `uringtune status --watch`: frames on a fixed beat, until a stop signal. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ask.h"
#include "client.h"
#include "cmd_status.h"
#include "cmd_watch.h"
#include "options.h"
#include "strbuf.h"

#define WATCH_PERIOD_S		1

#define JSON_LINE	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* --watch: the signal that stops it */
static void watch_stop(int sig)
{
	(void)sig;
	client_interrupted = 1;
}

/* first line of a frame: what is shown and when, in local time */
static void watch_title(const struct cli_opts *o, FILE *f)
{
	char when[32] = "?";
	time_t t = time(NULL);
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(f, "uringtune status");
	if (o->have_ring)
		fprintf(f, " --ring %" PRId64 ":%" PRId64, o->ring_pid, o->ring_fd);
	if (o->pid >= 0)
		fprintf(f, " --pid %" PRId64, o->pid);
	if (o->comm) {
		char *esc = cli_escape(o->comm, strlen(o->comm), true);

		fprintf(f, " --comm %s", esc ? esc : "?");
		free(esc);
	}
	fprintf(f, " - %s\n", when);
}

/* a frame on the terminal: each line cut at @width, so nothing wraps */
static void watch_put_clipped(const char *frame, int width)
{
	while (*frame) {
		size_t n = strcspn(frame, "\n");

		fwrite(frame, 1, n < (size_t)width ? n : (size_t)width, stdout);
		frame += n;
		if (*frame == '\n') {
			fputc('\n', stdout);
			frame++;
		}
	}
}

/* sleep until the monotonic @deadline or a stop signal, whichever is first */
static void watch_sleep(const struct timespec *deadline)
{
	sigset_t stop, old;
	struct timespec now, left;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	/* blocked between the check and ppoll(): a signal cannot slip in between */
	sigprocmask(SIG_BLOCK, &stop, &old);
	while (!client_interrupted) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left.tv_sec = deadline->tv_sec - now.tv_sec;
		left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_nsec += 1000000000L;
			left.tv_sec--;
		}
		if (left.tv_sec < 0)
			break;
		ppoll(NULL, 0, &left, &old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/*
 * status --watch: a frame every second until SIGINT or SIGTERM, which exit
 * 0. On a terminal each frame replaces the last; elsewhere frames follow
 * each other, a blank line after each, so the output can be logged. With
 * --json each frame is one line of JSON and failures go to stderr. A
 * failure does not stop it: it shows in place of the frame, "(retrying)".
 */
int cmd_watch(const struct cli_opts *o)
{
	struct sigaction sa = { .sa_handler = watch_stop };	/* no SA_RESTART */
	bool tty = !o->json && isatty(STDOUT_FILENO);
	struct timespec next, now;
	int ret = EXIT_SUCCESS;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	clock_gettime(CLOCK_MONOTONIC, &next);
	if (tty)
		fputs("\033[?25l", stdout);	/* hide the cursor while redrawing */

	while (!client_interrupted) {
		int width = status_out_width();
		char *frame = NULL, *msg = NULL;
		size_t len = 0;
		FILE *f;

		f = open_memstream(&frame, &len);
		if (!f) {
			fprintf(stderr, "uringtune: %s\n", strerror(errno));
			ret = EXIT_FAILURE;
			break;
		}
		if (!o->json)
			watch_title(o, f);
		/* on a terminal the whole frame is cut below, unless --wide */
		if (status_render(o, f, JSON_LINE, width, 0, &msg)) {
			if (!client_interrupted)
				cli_put_msg(o->json ? stderr : f, msg, " (retrying)");
			else
				free(msg);
		}
		if (fclose(f) == EOF) {
			free(frame);
			fprintf(stderr, "uringtune: %s\n", strerror(ENOMEM));
			ret = EXIT_FAILURE;
			break;
		}
		if (client_interrupted) {
			/* a request cut short is no frame */
			free(frame);
			break;
		}
		if (tty) {
			fputs("\033[H\033[2J", stdout);
			watch_put_clipped(frame, o->wide ? INT32_MAX : width);
		} else {
			fwrite(frame, 1, len, stdout);
			if (!o->json)
				fputc('\n', stdout);
		}
		free(frame);
		if (fflush(stdout) == EOF)
			break;	/* main() reports it */

		/* a fixed beat; a slow reply skips the beats it missed */
		next.tv_sec += WATCH_PERIOD_S;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
			next = now;
		watch_sleep(&next);
	}

	/* the echoed ^C off the line, the cursor back */
	if (tty)
		fputs("\r\033[K\033[?25h", stdout);
	return ret;
}
