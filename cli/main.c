// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtune: the operator's client for uringtuned. Parses the command line,
 * asks the daemon over its unix socket, prints the answer. Every failure is
 * one line on stderr: exit 2 for usage errors, 1 for everything else.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "client.h"
#include "json_get.h"
#include "exec.h"
#include "paths.h"
#include "usage.h"
#include "ring_view.h"
#include "status_table.h"
#include "version.h"

#define STATUS_REQUEST		"{\"cmd\":\"status\"}\n"

/* widest view drawn, whatever $COLUMNS says */
#define WIDTH_MAX		1000
#define WATCH_PERIOD_S		1

#define JSON_PRETTY	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)
#define JSON_LINE	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

struct cli_opts {
	const char *socket_path;
	const char *cmd;
	bool json;
	/* status */
	bool watch;
	bool have_ring;			/* --ring PID:FD */
	int64_t ring_pid;
	int64_t ring_fd;
	/* set / reset */
	const char *pos[2];		/* PID FD */
	int n_pos;
	long busy_poll_us;		/* -1: not given */
	bool prefer;
	bool static_ids;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uringtune [--socket PATH] status [--ring PID:FD] [--watch] [--json]\n"
		"       uringtune [--socket PATH] set PID FD --busy-poll-us N [--prefer] [--static]\n"
		"       uringtune [--socket PATH] reset [PID FD]\n"
		"       uringtune exec [--hybrid on|off|auto] [--napi] [--agent-socket PATH]\n"
		"                      [--agent-lib PATH] [-v] [--] CMD [ARGS...]\n"
		"       uringtune --help | --version\n"
		"\n"
		"Ask uringtuned about the io_uring rings it watches, or steer one.\n"
		"\n"
		"Commands:\n"
		"  status          one line per ring: NAPI busy-poll settings and how well it pays off\n"
		"  status --ring PID:FD\n"
		"                  that ring only, in detail: its settings, how its waits end and a\n"
		"                  histogram of its paid-off busy-poll window lengths\n"
		"  set PID FD      pin that ring's NAPI busy polling (tune mode); the tuner leaves it alone\n"
		"  reset [PID FD]  restore that ring's original NAPI settings (all rings without PID FD);\n"
		"                  the tuner then leaves those rings alone until uringtuned restarts\n"
		"  exec CMD [ARGS...]\n"
		"                  run CMD with uringtune's agent preloaded: uringtuned then decides\n"
		"                  hybrid IOPOLL and NAPI busy polling for the rings CMD sets up,\n"
		"                  from inside it; CMD's exit status is uringtune's\n"
		"\n"
		"Options:\n"
		"  --socket PATH   the daemon's control socket (default " UT_CONTROL_SOCKET ")\n"
		"  --json          print the daemon's JSON reply instead of a table (with --ring: that\n"
		"                  ring's object only)\n"
		"  --ring PID:FD   status: the ring held by process PID as file descriptor FD\n"
		"  --watch         status: redraw every second until Ctrl-C (SIGINT) or SIGTERM, then\n"
		"                  exit 0; keeps retrying while the daemon does not answer. Not on a\n"
		"                  terminal each frame is followed by a blank line; with --json one\n"
		"                  reply (or ring) per line, errors on stderr\n"
		"  --busy-poll-us N  set: busy-poll timeout, 1 to 10000 microseconds\n"
		"  --prefer        set: prefer busy polling (prefer_busy_poll)\n"
		"  --static        set: static tracking with the NAPI IDs seen on the ring\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n"
		"\n"
		"Bars fit the terminal: $COLUMNS, else the width of the terminal on stdout, else 80.\n"
		"\n");
	exec_usage(f);
}

/* a decimal in [min, max], or -1 */
static long parse_number(const char *s, long min, long max)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	return v;
}

/* PID:FD, both decimal; false when @s is anything else */
static bool parse_ring(const char *s, struct cli_opts *o)
{
	const char *colon = strchr(s, ':');
	char pid[24];
	long p, f;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(pid))
		return false;
	memcpy(pid, s, colon - s);
	pid[colon - s] = '\0';
	p = parse_number(pid, 1, INT32_MAX);
	f = parse_number(colon + 1, 0, INT32_MAX);
	if (p < 0 || f < 0)
		return false;
	o->have_ring = true;
	o->ring_pid = p;
	o->ring_fd = f;
	return true;
}

/*
 * Options are accepted before and after the command. Returns -1 to go on,
 * else the exit code (help/version/usage error).
 */
static int parse_args(int argc, char **argv, struct cli_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--socket") == 0) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return cli_usage_error("option '%s' needs an argument", a);
			o->socket_path = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			if (!a[9])
				return cli_usage_error("option '%s' needs an argument", "--socket");
			o->socket_path = a + 9;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			return 0;
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("uringtune " UT_VERSION "\n");
			return 0;
		} else if (strcmp(a, "--json") == 0) {
			/* only status has output to format: accept it anywhere */
			o->json = true;
		} else if (strcmp(a, "--busy-poll-us") == 0) {
			if (i + 1 >= argc)
				return cli_usage_error("option '%s' needs an argument", a);
			o->busy_poll_us = parse_number(argv[++i], 1, 10000);
			if (o->busy_poll_us < 0)
				return cli_usage_error("--busy-poll-us: expected an integer from 1 to 10000, got '%s'",
						   argv[i]);
		} else if (strcmp(a, "--ring") == 0 || strncmp(a, "--ring=", 7) == 0) {
			const char *v = a[6] ? a + 7 : NULL;

			if (!v) {
				if (i + 1 >= argc)
					return cli_usage_error("option '%s' needs an argument", a);
				v = argv[++i];
			}
			if (!parse_ring(v, o)) {
				char *esc = cli_escape(v, strlen(v), false);

				cli_usage_error("--ring: expected PID:FD, got '%s'", esc ? esc : "?");
				free(esc);
				return EXIT_USAGE;
			}
		} else if (strcmp(a, "--watch") == 0) {
			o->watch = true;
		} else if (strcmp(a, "--prefer") == 0) {
			o->prefer = true;
		} else if (strcmp(a, "--static") == 0) {
			o->static_ids = true;
		} else if (a[0] == '-' && a[1]) {
			return cli_usage_error("unknown option '%s'", a);
		} else if (!o->cmd) {
			/* exec_word() passed it by: other options came first */
			if (strcmp(a, "exec") == 0)
				return cli_usage_error("exec: its options go after it (only --socket may come before)");
			if (strcmp(a, "status") && strcmp(a, "set") && strcmp(a, "reset"))
				return cli_usage_error("unknown command '%s'", a);
			o->cmd = a;
		} else if (strcmp(o->cmd, "status") && o->n_pos < 2) {
			o->pos[o->n_pos++] = a;
		} else {
			return cli_usage_error("unexpected argument '%s'", a);
		}
	}
	if (!o->cmd)
		return cli_usage_error("no command given");
	if (strcmp(o->cmd, "set") == 0) {
		if (o->n_pos != 2)
			return cli_usage_error("set: expected PID FD");
		if (o->busy_poll_us < 0)
			return cli_usage_error("set: --busy-poll-us N is required");
	} else if (o->busy_poll_us >= 0 || o->prefer || o->static_ids) {
		return cli_usage_error("--busy-poll-us, --prefer and --static go with set only");
	}
	if (strcmp(o->cmd, "status") && (o->have_ring || o->watch))
		return cli_usage_error("--ring and --watch go with status only");
	if (strcmp(o->cmd, "reset") == 0 && o->n_pos == 1)
		return cli_usage_error("reset: expected PID FD, or nothing for every ring");
	for (int i = 0; i < o->n_pos; i++)
		if (parse_number(o->pos[i], i == 0 ? 1 : 0, INT32_MAX) < 0)
			return cli_usage_error("%s: expected a %s, got '%s'", o->cmd,
					   i == 0 ? "process id" : "file descriptor number",
					   o->pos[i]);
	return -1;
}

static char *msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* a malloc'ed message, NULL on ENOMEM (printed as such by put_msg()) */
static char *msgf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}

/* print and free a message of msgf() as one line, @suffix before the newline */
static void put_msg(FILE *f, char *msg, const char *suffix)
{
	fprintf(f, "%s%s\n", msg ? msg : "uringtune: Cannot allocate memory", suffix);
	free(msg);
}

static char *client_error_msg(const char *path, int err, enum client_stage stage)
{
	const char *hint = "";

	switch (stage) {
	case CLIENT_SOCKET:
		return msgf("uringtune: cannot create a unix socket: %s", strerror(-err));
	case CLIENT_CONNECT:
		if (err == -EAGAIN) {
			/* a full listen backlog: the daemon stopped accepting */
			return msgf("uringtune: cannot connect to %s: timed out after %d s (is uringtuned hung?)",
				    path, CLIENT_TIMEOUT_S);
		}
		if (err == -ENOENT || err == -ECONNREFUSED)
			hint = " (is uringtuned running?)";
		else if (err == -EACCES || err == -EPERM)
			hint = " (the socket is root-only: run as root)";
		return msgf("uringtune: cannot connect to %s: %s%s", path, strerror(-err), hint);
	case CLIENT_SEND:
	case CLIENT_RECV:
		if (err == -EAGAIN)
			return msgf("uringtune: no reply from uringtuned within %d s (is it hung?)",
				    CLIENT_TIMEOUT_S);
		if (err == -EMSGSIZE)
			return msgf("uringtune: reply from daemon larger than %lu MiB",
				    CLIENT_REPLY_MAX >> 20);
		return msgf("uringtune: %s %s: %s",
			    stage == CLIENT_SEND ? "sending request to" : "reading reply from",
			    path, strerror(-err));
	}
	return msgf("uringtune: %s", strerror(-err));
}

/* the daemon's own error: printed as-is but kept on one line */
static char *daemon_error_msg(struct json_object *e)
{
	char *esc, *msg;

	if (json_object_is_type(e, json_type_string))
		esc = cli_escape(json_object_get_string(e), json_object_get_string_len(e), false);
	else
		esc = strdup(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	if (!esc)
		return NULL;
	msg = msgf("uringtune: daemon: %s", esc);
	free(esc);
	return msg;
}

/*
 * One request, one reply that is not an error: *reply to put by the caller.
 * Returns 0, or -1 with *msg saying why in one line (see msgf()).
 */
static int ask(const struct cli_opts *o, const char *request, struct json_object **reply,
	       char **msg)
{
	enum client_stage stage;
	struct json_object *e;
	char *buf = NULL;
	const char *why;
	size_t len;
	int err;

	*reply = NULL;
	err = client_request(o->socket_path, request, &buf, &len, &stage);
	if (err) {
		*msg = client_error_msg(o->socket_path, err, stage);
		return -1;
	}
	err = client_parse_reply(buf, len, reply, &why);
	free(buf);
	if (err) {
		*msg = msgf("uringtune: malformed reply from daemon: %s", why);
		return -1;
	}
	if (json_object_object_get_ex(*reply, "error", &e)) {
		*msg = daemon_error_msg(e);
		json_object_put(*reply);
		*reply = NULL;
		return -1;
	}
	return 0;
}

/* $COLUMNS, else the terminal on stdout, else 80; never under RV_WIDTH_MIN */
static int out_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long w = -1;

	if (env && *env)
		w = parse_number(env, 1, WIDTH_MAX);
	if (w < 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		w = ws.ws_col;
	if (w < 0)
		w = RV_WIDTH_DEFAULT;
	if (w < RV_WIDTH_MIN)
		w = RV_WIDTH_MIN;
	return w > WIDTH_MAX ? WIDTH_MAX : (int)w;
}

/*
 * Ask for the status and render it to @out: JSON (json-c @json_flags), the
 * --ring view in @width columns, or the table. Returns 0 (a failed write
 * shows in ferror(@out)), or -1 with *msg.
 */
static int status_render(const struct cli_opts *o, FILE *out, int json_flags, int width,
			 char **msg)
{
	struct json_object *reply, *view;
	const char *why, *s;
	int err, ret = -1;

	if (ask(o, STATUS_REQUEST, &reply, msg))
		return -1;
	view = reply;
	if (o->have_ring) {
		err = rv_find(reply, o->ring_pid, o->ring_fd, &view, &why);
		if (err == -EINVAL) {
			*msg = msgf("uringtune: malformed reply from daemon: %s", why);
			goto out;
		}
		if (err) {
			*msg = msgf("uringtune: no ring at pid %" PRId64 " fd %" PRId64,
				    o->ring_pid, o->ring_fd);
			goto out;
		}
	}

	if (o->json) {
		s = json_object_to_json_string_ext(view, json_flags);
		if (!s) {
			*msg = msgf("uringtune: %s", strerror(ENOMEM));
			goto out;
		}
		fputs(s, out);
		fputc('\n', out);
		err = 0;
	} else if (o->have_ring) {
		err = rv_print(view, out, width);
	} else {
		err = status_table_print(reply, out, &why);
		if (err == -EINVAL) {
			*msg = msgf("uringtune: malformed reply from daemon: %s", why);
			goto out;
		}
	}
	if (err == -ENOMEM) {
		*msg = msgf("uringtune: %s", strerror(ENOMEM));
		goto out;
	}
	/* -EIO: reported by main() with the real errno */
	ret = 0;
out:
	json_object_put(reply);
	return ret;
}

static int cmd_status(const struct cli_opts *o)
{
	char *msg = NULL;

	if (status_render(o, stdout, JSON_PRETTY, out_width(), &msg)) {
		put_msg(stderr, msg, "");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}

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
static int cmd_watch(const struct cli_opts *o)
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
		int width = out_width();
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
		if (status_render(o, f, JSON_LINE, width, &msg)) {
			if (!client_interrupted)
				put_msg(o->json ? stderr : f, msg, " (retrying)");
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
			watch_put_clipped(frame, width);
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

/* set and reset: the daemon answers {"ok":true} or {"error":...} */
static int cmd_change(const struct cli_opts *o)
{
	struct json_object *req = json_object_new_object(), *reply = NULL, *via;
	char *line = NULL, *msg = NULL;
	const char *later = "";
	int ret = EXIT_FAILURE;

	json_object_object_add(req, "cmd", json_object_new_string(o->cmd));
	if (o->n_pos == 2) {
		json_object_object_add(req, "pid", json_object_new_int64(parse_number(o->pos[0], 1, INT32_MAX)));
		json_object_object_add(req, "fd", json_object_new_int64(parse_number(o->pos[1], 0, INT32_MAX)));
	}
	if (strcmp(o->cmd, "set") == 0) {
		json_object_object_add(req, "busy_poll_us", json_object_new_int64(o->busy_poll_us));
		json_object_object_add(req, "prefer", json_object_new_boolean(o->prefer));
		json_object_object_add(req, "static", json_object_new_boolean(o->static_ids));
	}
	if (asprintf(&line, "%s\n", json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN)) < 0) {
		line = NULL;
		fprintf(stderr, "uringtune: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (ask(o, line, &reply, &msg)) {
		put_msg(stderr, msg, "");
		goto out;
	}
	/* a ring reached through its agent takes the change at its next call */
	via = jget(reply, "via");
	if (json_object_is_type(via, json_type_string) &&
	    !strcmp(json_object_get_string(via), "agent"))
		later = " (through its agent: at the ring's next submit or wait)";
	if (strcmp(o->cmd, "set") == 0)
		printf("ring pid %s fd %s: NAPI busy polling pinned at %ld us%s%s%s\n", o->pos[0],
		       o->pos[1], o->busy_poll_us, o->prefer ? ", prefer" : "",
		       o->static_ids ? ", static tracking" : "", later);
	else if (o->n_pos == 2)
		printf("ring pid %s fd %s: original NAPI settings restored%s\n", o->pos[0],
		       o->pos[1], later);
	else
		printf("every ring uringtune changed: original NAPI settings restored\n");
	ret = EXIT_SUCCESS;
out:
	json_object_put(req);
	json_object_put(reply);
	free(line);
	return ret;
}

/*
 * Where the command word is when it is exec, else 0. What follows it is
 * exec's and CMD's: parse_args() must never see CMD's options. Only
 * --socket (which exec ignores) may come before it.
 */
static int exec_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--socket") == 0)
			i++;
		else if (strncmp(argv[i], "--socket=", 9))
			return strcmp(argv[i], "exec") == 0 ? i : 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .socket_path = UT_CONTROL_SOCKET, .busy_poll_us = -1 };
	int ret, i;

	i = exec_word(argc, argv);
	if (i)
		ret = exec_main(argc - i, argv + i);	/* returns only when CMD did not start */
	else
		ret = parse_args(argc, argv, &o);
	if (ret < 0)
		ret = strcmp(o.cmd, "status") ? cmd_change(&o) :
		      o.watch ? cmd_watch(&o) : cmd_status(&o);

	/* a full disk or closed stdout must not look like success */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (ret == EXIT_SUCCESS)
			fprintf(stderr, "uringtune: writing output: %s\n", strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}
