// SPDX-License-Identifier: GPL-2.0-only
/* Ask uringtuned one thing; phrase every way that can fail as one line. */
#include <errno.h>
#include <grp.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ask.h"
#include "client.h"
#include "strbuf.h"

void cli_put_msg(FILE *f, char *msg, const char *suffix)
{
	fprintf(f, "%s%s\n", msg ? msg : "uringtune: Cannot allocate memory", suffix);
	free(msg);
}

/*
 * Why connecting was refused: the socket's group, if it has one that may
 * connect (the daemon's [daemon] status_group), else root only.
 */
static char *access_hint(const char *path)
{
	struct group *gr;
	struct stat st;

	if (stat(path, &st) == 0 && st.st_gid != 0 && (st.st_mode & 0060) == 0060) {
		gr = getgrgid(st.st_gid);
		if (gr)
			return cli_msgf(" (reading status needs root or membership of group %s; "
					"changes need root)", gr->gr_name);
		return cli_msgf(" (reading status needs root or membership of group %u; "
				"changes need root)", (unsigned int)st.st_gid);
	}
	return strdup(" (the socket is root-only: run as root)");
}

static char *client_error_msg(const char *path, int err, enum client_stage stage)
{
	const char *hint = "";
	char *msg, *why;

	switch (stage) {
	case CLIENT_SOCKET:
		return cli_msgf("uringtune: cannot create a unix socket: %s", strerror(-err));
	case CLIENT_CONNECT:
		if (err == -EAGAIN) {
			/* a full listen backlog: the daemon stopped accepting */
			return cli_msgf("uringtune: cannot connect to %s: timed out after %d s (is uringtuned hung?)",
					path, CLIENT_TIMEOUT_S);
		}
		if (err == -ENOENT || err == -ECONNREFUSED)
			hint = " (is uringtuned running?)";
		if (err == -EACCES || err == -EPERM) {
			why = access_hint(path);
			msg = cli_msgf("uringtune: cannot connect to %s: %s%s", path,
				       strerror(-err), why ? why : "");
			free(why);
			return msg;
		}
		return cli_msgf("uringtune: cannot connect to %s: %s%s", path, strerror(-err),
				hint);
	case CLIENT_SEND:
	case CLIENT_RECV:
		if (err == -EAGAIN)
			return cli_msgf("uringtune: no reply from uringtuned within %d s (is it hung?)",
					CLIENT_TIMEOUT_S);
		if (err == -EMSGSIZE)
			return cli_msgf("uringtune: reply from daemon larger than %lu MiB",
					CLIENT_REPLY_MAX >> 20);
		return cli_msgf("uringtune: %s %s: %s",
				stage == CLIENT_SEND ? "sending request to" : "reading reply from",
				path, strerror(-err));
	}
	return cli_msgf("uringtune: %s", strerror(-err));
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
	msg = cli_msgf("uringtune: daemon: %s", esc);
	free(esc);
	return msg;
}

int cli_ask_raw(const char *socket_path, const char *request, char **buf, size_t *len,
		char **msg)
{
	enum client_stage stage;
	int err;

	*buf = NULL;
	err = client_request(socket_path, request, buf, len, &stage);
	if (err) {
		*msg = client_error_msg(socket_path, err, stage);
		return -1;
	}
	return 0;
}

int cli_check_error(struct json_object *reply, char **msg)
{
	struct json_object *e;

	if (!json_object_object_get_ex(reply, "error", &e))
		return 0;
	*msg = daemon_error_msg(e);
	return -1;
}

int cli_ask(const char *socket_path, const char *request, struct json_object **reply,
	    char **msg)
{
	const char *why;
	char *buf;
	size_t len;
	int err;

	*reply = NULL;
	if (cli_ask_raw(socket_path, request, &buf, &len, msg))
		return -1;
	err = client_parse_reply(buf, len, reply, &why);
	free(buf);
	if (err) {
		*msg = cli_msgf("uringtune: malformed reply from daemon: %s", why);
		return -1;
	}
	if (cli_check_error(*reply, msg)) {
		json_object_put(*reply);
		*reply = NULL;
		return -1;
	}
	return 0;
}
