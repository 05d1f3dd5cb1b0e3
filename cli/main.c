// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtune: the operator's client for uringtuned. Parses the command line,
 * asks the daemon over its unix socket, prints the answer. Every failure is
 * one line on stderr: exit 2 for usage errors, 1 for everything else.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <json-c/json.h>

#include "client.h"
#include "status_table.h"

#define UT_VERSION		"0.1.0"
#define DEFAULT_SOCKET		"/run/uringtune/uringtune.sock"
#define STATUS_REQUEST		"{\"cmd\":\"status\"}\n"

#define EXIT_USAGE		2

struct cli_opts {
	const char *socket_path;
	const char *cmd;
	bool json;
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
		"Usage: uringtune [--socket PATH] status [--json]\n"
		"       uringtune [--socket PATH] set PID FD --busy-poll-us N [--prefer] [--static]\n"
		"       uringtune [--socket PATH] reset [PID FD]\n"
		"       uringtune --help | --version\n"
		"\n"
		"Ask uringtuned about the io_uring rings it watches, or steer one.\n"
		"\n"
		"Commands:\n"
		"  status          one line per ring: NAPI busy-poll settings and how well it pays off\n"
		"  set PID FD      pin that ring's NAPI busy polling (tune mode); the tuner leaves it alone\n"
		"  reset [PID FD]  restore that ring's original NAPI settings (all rings without PID FD);\n"
		"                  the tuner then leaves those rings alone until uringtuned restarts\n"
		"\n"
		"Options:\n"
		"  --socket PATH   the daemon's control socket (default " DEFAULT_SOCKET ")\n"
		"  --json          print the daemon's JSON reply instead of a table\n"
		"  --busy-poll-us N  set: busy-poll timeout, 1 to 10000 microseconds\n"
		"  --prefer        set: prefer busy polling (prefer_busy_poll)\n"
		"  --static        set: static tracking with the NAPI IDs seen on the ring\n"
		"  -h, --help      show this help\n"
		"  -V, --version   show the version\n");
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uringtune: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see uringtune --help)\n");
	return EXIT_USAGE;
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
				return usage_error("option '%s' needs an argument", a);
			o->socket_path = argv[++i];
		} else if (strncmp(a, "--socket=", 9) == 0) {
			if (!a[9])
				return usage_error("option '%s' needs an argument", "--socket");
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
				return usage_error("option '%s' needs an argument", a);
			o->busy_poll_us = parse_number(argv[++i], 1, 10000);
			if (o->busy_poll_us < 0)
				return usage_error("--busy-poll-us: expected an integer from 1 to 10000, got '%s'",
						   argv[i]);
		} else if (strcmp(a, "--prefer") == 0) {
			o->prefer = true;
		} else if (strcmp(a, "--static") == 0) {
			o->static_ids = true;
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (!o->cmd) {
			if (strcmp(a, "status") && strcmp(a, "set") && strcmp(a, "reset"))
				return usage_error("unknown command '%s'", a);
			o->cmd = a;
		} else if (strcmp(o->cmd, "status") && o->n_pos < 2) {
			o->pos[o->n_pos++] = a;
		} else {
			return usage_error("unexpected argument '%s'", a);
		}
	}
	if (!o->cmd)
		return usage_error("no command given");
	if (strcmp(o->cmd, "set") == 0) {
		if (o->n_pos != 2)
			return usage_error("set: expected PID FD");
		if (o->busy_poll_us < 0)
			return usage_error("set: --busy-poll-us N is required");
	} else if (o->busy_poll_us >= 0 || o->prefer || o->static_ids) {
		return usage_error("--busy-poll-us, --prefer and --static go with set only");
	}
	if (strcmp(o->cmd, "reset") == 0 && o->n_pos == 1)
		return usage_error("reset: expected PID FD, or nothing for every ring");
	for (int i = 0; i < o->n_pos; i++)
		if (parse_number(o->pos[i], i == 0 ? 1 : 0, INT32_MAX) < 0)
			return usage_error("%s: expected a %s, got '%s'", o->cmd,
					   i == 0 ? "process id" : "file descriptor number",
					   o->pos[i]);
	return -1;
}

static void report_client_error(const char *path, int err, enum client_stage stage)
{
	const char *hint = "";

	switch (stage) {
	case CLIENT_SOCKET:
		fprintf(stderr, "uringtune: cannot create a unix socket: %s\n", strerror(-err));
		return;
	case CLIENT_CONNECT:
		if (err == -EAGAIN) {
			/* a full listen backlog: the daemon stopped accepting */
			fprintf(stderr, "uringtune: cannot connect to %s: timed out after %d s (is uringtuned hung?)\n",
				path, CLIENT_TIMEOUT_S);
			return;
		}
		if (err == -ENOENT || err == -ECONNREFUSED)
			hint = " (is uringtuned running?)";
		else if (err == -EACCES || err == -EPERM)
			hint = " (the socket is root-only: run as root)";
		fprintf(stderr, "uringtune: cannot connect to %s: %s%s\n", path,
			strerror(-err), hint);
		return;
	case CLIENT_SEND:
	case CLIENT_RECV:
		if (err == -EAGAIN) {
			fprintf(stderr, "uringtune: no reply from uringtuned within %d s (is it hung?)\n",
				CLIENT_TIMEOUT_S);
		} else if (err == -EMSGSIZE) {
			fprintf(stderr, "uringtune: reply from daemon larger than %lu MiB\n",
				CLIENT_REPLY_MAX >> 20);
		} else {
			fprintf(stderr, "uringtune: %s %s: %s\n",
				stage == CLIENT_SEND ? "sending request to" : "reading reply from",
				path, strerror(-err));
		}
		return;
	}
}

/* the daemon's own error: printed as-is but kept on one line */
static void report_daemon_error(struct json_object *e)
{
	char *msg;

	if (json_object_is_type(e, json_type_string))
		msg = cli_escape(json_object_get_string(e), json_object_get_string_len(e), false);
	else
		msg = strdup(json_object_to_json_string_ext(e, JSON_C_TO_STRING_PLAIN));
	fprintf(stderr, "uringtune: daemon: %s\n", msg ? msg : "(out of memory)");
	free(msg);
}

/*
 * One request, one reply that is not an error: *reply to put by the caller.
 * Every failure is reported here, as one line; returns 0 or -1.
 */
static int ask(const struct cli_opts *o, const char *request, struct json_object **reply)
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
		report_client_error(o->socket_path, err, stage);
		return -1;
	}
	err = client_parse_reply(buf, len, reply, &why);
	free(buf);
	if (err) {
		fprintf(stderr, "uringtune: malformed reply from daemon: %s\n", why);
		return -1;
	}
	if (json_object_object_get_ex(*reply, "error", &e)) {
		report_daemon_error(e);
		json_object_put(*reply);
		*reply = NULL;
		return -1;
	}
	return 0;
}

static int cmd_status(const struct cli_opts *o)
{
	struct json_object *reply = NULL;
	const char *why;
	int err, ret = EXIT_FAILURE;

	if (ask(o, STATUS_REQUEST, &reply))
		goto out;

	if (o->json) {
		const char *s = json_object_to_json_string_ext(reply,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

		if (!s) {
			fprintf(stderr, "uringtune: %s\n", strerror(ENOMEM));
			goto out;
		}
		fputs(s, stdout);
		fputc('\n', stdout);
	} else {
		err = status_table_print(reply, stdout, &why);
		if (err == -EINVAL) {
			fprintf(stderr, "uringtune: malformed reply from daemon: %s\n", why);
			goto out;
		}
		if (err == -ENOMEM) {
			fprintf(stderr, "uringtune: %s\n", strerror(ENOMEM));
			goto out;
		}
		/* -EIO: reported below with the real errno */
	}
	ret = EXIT_SUCCESS;
out:
	json_object_put(reply);
	return ret;
}

/* set and reset: the daemon answers {"ok":true} or {"error":...} */
static int cmd_change(const struct cli_opts *o)
{
	struct json_object *req = json_object_new_object(), *reply = NULL;
	char *line = NULL;
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
	if (ask(o, line, &reply))
		goto out;
	if (strcmp(o->cmd, "set") == 0)
		printf("ring pid %s fd %s: NAPI busy polling pinned at %ld us%s%s\n", o->pos[0],
		       o->pos[1], o->busy_poll_us, o->prefer ? ", prefer" : "",
		       o->static_ids ? ", static tracking" : "");
	else if (o->n_pos == 2)
		printf("ring pid %s fd %s: original NAPI settings restored\n", o->pos[0], o->pos[1]);
	else
		printf("every ring uringtune changed: original NAPI settings restored\n");
	ret = EXIT_SUCCESS;
out:
	json_object_put(req);
	json_object_put(reply);
	free(line);
	return ret;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .socket_path = DEFAULT_SOCKET, .busy_poll_us = -1 };
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret < 0)
		ret = strcmp(o.cmd, "status") == 0 ? cmd_status(&o) : cmd_change(&o);

	/* a full disk or closed stdout must not look like success */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (ret == EXIT_SUCCESS)
			fprintf(stderr, "uringtune: writing output: %s\n", strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}
