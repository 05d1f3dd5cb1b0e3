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
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uringtune [--socket PATH] status [--json]\n"
		"       uringtune --help | --version\n"
		"\n"
		"Ask uringtuned about the io_uring rings it watches.\n"
		"\n"
		"Commands:\n"
		"  status          one line per ring: NAPI busy-poll settings and how well it pays off\n"
		"\n"
		"Options:\n"
		"  --socket PATH   the daemon's control socket (default " DEFAULT_SOCKET ")\n"
		"  --json          print the daemon's JSON reply instead of a table\n"
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
		} else if (a[0] == '-' && a[1]) {
			return usage_error("unknown option '%s'", a);
		} else if (!o->cmd) {
			if (strcmp(a, "status") != 0)
				return usage_error("unknown command '%s'", a);
			o->cmd = a;
		} else {
			return usage_error("unexpected argument '%s'", a);
		}
	}
	if (!o->cmd)
		return usage_error("no command given");
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

static int cmd_status(const struct cli_opts *o)
{
	struct json_object *reply = NULL, *e;
	enum client_stage stage;
	const char *why;
	char *buf = NULL;
	size_t len;
	int err, ret = EXIT_FAILURE;

	err = client_request(o->socket_path, STATUS_REQUEST, &buf, &len, &stage);
	if (err) {
		report_client_error(o->socket_path, err, stage);
		goto out;
	}
	if (client_parse_reply(buf, len, &reply, &why)) {
		fprintf(stderr, "uringtune: malformed reply from daemon: %s\n", why);
		goto out;
	}
	if (json_object_object_get_ex(reply, "error", &e)) {
		report_daemon_error(e);
		goto out;
	}

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
	free(buf);
	return ret;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .socket_path = DEFAULT_SOCKET };
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret < 0)
		ret = cmd_status(&o);

	/* a full disk or closed stdout must not look like success */
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (ret == EXIT_SUCCESS)
			fprintf(stderr, "uringtune: writing output: %s\n", strerror(errno));
		ret = EXIT_FAILURE;
	}
	return ret;
}
