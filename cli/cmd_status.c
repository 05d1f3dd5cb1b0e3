// SPDX-License-Identifier: GPL-2.0-only
/* `uringtune status`, with or without --ring and --json. */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ask.h"
#include "client.h"
#include "cmd_status.h"
#include "options.h"
#include "reply_parse.h"
#include "ring_view.h"
#include "status_table.h"

#define STATUS_REQUEST		"{\"cmd\":\"status\"}\n"

/* widest view drawn, whatever $COLUMNS says */
#define WIDTH_MAX		1000

#define JSON_PRETTY	(JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)

int status_out_width(void)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	long w = -1;

	if (env && *env)
		w = cli_parse_number(env, 1, WIDTH_MAX);
	if (w < 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		w = ws.ws_col;
	if (w < 0)
		w = RV_WIDTH_DEFAULT;
	if (w < RV_WIDTH_MIN)
		w = RV_WIDTH_MIN;
	return w > WIDTH_MAX ? WIDTH_MAX : (int)w;
}

/*
 * A daemon older than the "view", "pid" and "fd" keys of a status request
 * refuses them by name: then the whole status is asked for, and what is
 * needed taken from it.
 */
static bool older_daemon(const char *msg)
{
	return msg && strstr(msg, "uringtune: daemon: status: unknown key \"");
}

/* --pid or --comm: the daemon picks the rings */
static bool filtered(const struct cli_opts *o)
{
	return o->pid >= 0 || o->comm;
}

/*
 * The status request: {"cmd":"status"} with the table's view and the
 * filters, one line; NULL if out of memory.
 */
static char *status_request(const struct cli_opts *o, bool table)
{
	struct json_object *req = json_object_new_object();
	const char *s;
	char *line = NULL;

	if (!req)
		return NULL;
	json_object_object_add(req, "cmd", json_object_new_string("status"));
	if (table)
		json_object_object_add(req, "view", json_object_new_string("table"));
	if (o->pid >= 0)
		json_object_object_add(req, "pid", json_object_new_int64(o->pid));
	if (o->comm)
		json_object_object_add(req, "comm", json_object_new_string(o->comm));
	s = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s && asprintf(&line, "%s\n", s) < 0)
		line = NULL;
	json_object_put(req);
	return line;
}

/* an older daemon that does not filter: say so rather than show every ring */
static void no_filter(char **msg)
{
	char *why = cli_msgf("uringtune: --pid and --comm need a newer uringtuned (%s)",
			     *msg + strlen("uringtune: "));

	if (why) {
		free(*msg);
		*msg = why;
	}
}

/* the daemon's error, from a raw reply that opens with one: -1 and *msg; else 0 */
static int raw_error(const char *buf, size_t len, char **msg)
{
	struct json_object *reply;
	const char *why;
	int ret;

	if (!client_reply_is_error(buf, len))
		return 0;
	if (client_parse_reply(buf, len, &reply, &why)) {
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
		return -1;
	}
	ret = cli_check_error(reply, msg);
	json_object_put(reply);
	return ret;
}

/* the raw reply to @request (or, from an older daemon, to the plain status request) */
static int ask_raw(const struct cli_opts *o, const char *request, char **buf, size_t *len,
		   char **msg)
{
	if (cli_ask_raw(o->socket_path, request, buf, len, msg))
		return -1;
	if (!raw_error(*buf, *len, msg))
		return 0;
	free(*buf);
	*buf = NULL;
	if (older_daemon(*msg) && filtered(o))
		no_filter(msg);
	if (!older_daemon(*msg) || !strcmp(request, STATUS_REQUEST))
		return -1;
	free(*msg);
	*msg = NULL;
	return ask_raw(o, STATUS_REQUEST, buf, len, msg);
}

/* --json: the daemon's bytes as they came, once their framing is checked */
static int render_raw(const struct cli_opts *o, FILE *out, char **msg)
{
	const char *why;
	char *buf, *req;
	size_t len;
	int err;

	req = status_request(o, false);
	if (!req) {
		*msg = cli_msgf("uringtune: %s", strerror(ENOMEM));
		return -1;
	}
	err = ask_raw(o, req, &buf, &len, msg);
	free(req);
	if (err)
		return -1;
	if (client_check_frame(buf, len, &why)) {
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
		free(buf);
		return -1;
	}
	fwrite(buf, 1, len, out);
	free(buf);
	return 0;
}


/* the table, its rings read one at a time from the daemon's table view */
static int render_table(const struct cli_opts *o, FILE *out, int cut, char **msg)
{
	struct st_table t = { .cut = cut };
	struct json_object *reply = NULL;
	const char *why;
	char *buf, *req;
	size_t len;
	int err, ret = -1;

	req = status_request(o, true);
	if (!req) {
		*msg = cli_msgf("uringtune: %s", strerror(ENOMEM));
		return -1;
	}
	err = ask_raw(o, req, &buf, &len, msg);
	free(req);
	if (err)
		return -1;
	err = reply_parse_rings(buf, len, &status_table_rings, &t, &reply, &why);
	free(buf);
	if (err == -EINVAL) {
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
		goto out;
	}
	if (err) {
		*msg = cli_msgf("uringtune: %s", strerror(-err));
		goto out;
	}
	if (cli_check_error(reply, msg))
		goto out;
	err = status_table_finish(&t, reply, out, &why);
	if (err == -EINVAL)
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
	else if (err == -ENOMEM)
		*msg = cli_msgf("uringtune: %s", strerror(ENOMEM));
	else
		ret = 0;	/* -EIO: reported by main() with the real errno */
out:
	status_table_fini(&t);
	json_object_put(reply);
	return ret;
}

/* --ring: that ring only, asked for by pid and fd */
static int render_ring(const struct cli_opts *o, FILE *out, int json_flags, int width,
		       char **msg)
{
	struct json_object *reply, *view;
	char request[96];
	const char *why, *s;
	int err, ret = -1;

	snprintf(request, sizeof(request), "{\"cmd\":\"status\",\"pid\":%" PRId64 ",\"fd\":%"
		 PRId64 "}\n", o->ring_pid, o->ring_fd);
	if (cli_ask(o->socket_path, request, &reply, msg)) {
		if (!older_daemon(*msg))
			return -1;
		free(*msg);
		*msg = NULL;
		if (cli_ask(o->socket_path, STATUS_REQUEST, &reply, msg))
			return -1;
	}
	err = rv_find(reply, o->ring_pid, o->ring_fd, &view, &why);
	if (err == -EINVAL) {
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
		goto out;
	}
	if (err) {
		*msg = cli_msgf("uringtune: no ring %" PRId64 ":%" PRId64 " (pid %" PRId64
				" fd %" PRId64 ")", o->ring_pid, o->ring_fd, o->ring_pid, o->ring_fd);
		goto out;
	}
	if (o->json) {
		s = json_object_to_json_string_ext(view, json_flags);
		if (!s) {
			*msg = cli_msgf("uringtune: %s", strerror(ENOMEM));
			goto out;
		}
		fputs(s, out);
		fputc('\n', out);
		err = 0;
	} else {
		err = rv_print(view, out, width);
	}
	if (err == -ENOMEM) {
		*msg = cli_msgf("uringtune: %s", strerror(ENOMEM));
		goto out;
	}
	/* -EIO: reported by main() with the real errno */
	ret = 0;
out:
	json_object_put(reply);
	return ret;
}

int status_render(const struct cli_opts *o, FILE *out, int json_flags, int width, int cut,
		  char **msg)
{
	if (o->have_ring)
		return render_ring(o, out, json_flags, width, msg);
	if (o->json)
		return render_raw(o, out, msg);
	return render_table(o, out, cut, msg);
}

int cmd_status(const struct cli_opts *o)
{
	int width = status_out_width();
	char *msg = NULL;

	/* cut to a terminal only: a pipe or a file gets whole lines */
	if (status_render(o, stdout, JSON_PRETTY, width,
			  !o->wide && isatty(STDOUT_FILENO) ? width : 0, &msg)) {
		cli_put_msg(stderr, msg, "");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
