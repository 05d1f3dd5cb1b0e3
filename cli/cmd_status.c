// SPDX-License-Identifier: GPL-2.0-only
/* `uringtune status`, with or without --ring and --json. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <json-c/json.h>

#include "ask.h"
#include "cmd_status.h"
#include "options.h"
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

int status_render(const struct cli_opts *o, FILE *out, int json_flags, int width,
		  char **msg)
{
	struct json_object *reply, *view;
	const char *why, *s;
	int err, ret = -1;

	if (cli_ask(o->socket_path, STATUS_REQUEST, &reply, msg))
		return -1;
	view = reply;
	if (o->have_ring) {
		err = rv_find(reply, o->ring_pid, o->ring_fd, &view, &why);
		if (err == -EINVAL) {
			*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
			goto out;
		}
		if (err) {
			*msg = cli_msgf("uringtune: no ring at pid %" PRId64 " fd %" PRId64,
					o->ring_pid, o->ring_fd);
			goto out;
		}
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
	} else if (o->have_ring) {
		err = rv_print(view, out, width);
	} else {
		err = status_table_print(reply, out, &why);
		if (err == -EINVAL) {
			*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
			goto out;
		}
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

int cmd_status(const struct cli_opts *o)
{
	char *msg = NULL;

	if (status_render(o, stdout, JSON_PRETTY, status_out_width(), &msg)) {
		cli_put_msg(stderr, msg, "");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
