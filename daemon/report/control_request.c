// SPDX-License-Identifier: GPL-2.0-only
/* A control request: where its line ends, and what it asks (control_request.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "control_json.h"
#include "control_request.h"

/* the commands and the keys each takes besides "cmd" (for the error, too) */
static const struct {
	const char *name;
	enum control_cmd cmd;
	const char *keys;
} commands[] = {
	{ "status", CONTROL_STATUS, "view, pid, fd, comm" },
	{ "set", CONTROL_SET, "pid, fd, busy_poll_us, prefer, static, force" },
	{ "reset", CONTROL_RESET, "pid, fd" },
};

#define NR_COMMANDS	(sizeof(commands) / sizeof(commands[0]))

enum control_frame control_request_frame(const char *buf, size_t have, bool eof, size_t max,
					 size_t *len)
{
	const char *nl = memchr(buf, '\n', have);

	if (nl) {
		*len = (size_t)(nl - buf);
		return CONTROL_FRAME_LINE;
	}
	if (have >= max)
		return CONTROL_FRAME_TOO_LONG;
	if (!eof)
		return CONTROL_FRAME_MORE;
	*len = have;
	return have ? CONTROL_FRAME_LINE : CONTROL_FRAME_EMPTY;
}

static __attribute__((format(printf, 3, 4))) int refuse(char *err, size_t errlen,
							 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* @key is one of the ", "-separated words of @keys */
static bool key_listed(const char *keys, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	/* "" is in every string: strstr() would find it at p for ever */
	if (!n)
		return false;
	for (p = keys; (p = strstr(p, key)); p += n) {
		if ((p == keys || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
			return true;
	}
	return false;
}

/* an integer member in [min, max]; -1 if absent, -2 if of the wrong kind or out of range */
static long long int_member(struct json_object *req, const char *key, long long min,
			    long long max)
{
	struct json_object *v;
	long long n;

	if (!json_object_object_get_ex(req, key, &v))
		return -1;
	if (!json_object_is_type(v, json_type_int))
		return -2;
	n = json_object_get_int64(v);
	return n < min || n > max ? -2 : n;
}

/* a boolean member, false if absent; -EINVAL if of another kind ("false" is not false) */
static int bool_member(struct json_object *req, const char *key, bool *b)
{
	struct json_object *v;

	*b = false;
	if (!json_object_object_get_ex(req, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*b = json_object_get_boolean(v);
	return 0;
}

/*
 * status: "pid" and "fd", one ring; "pid" alone, that process's rings;
 * "comm", the rings of processes of that name (with "pid": both match)
 */
static int status_members(struct json_object *o, struct control_request *r, char *err,
			  size_t errlen)
{
	long long pid = int_member(o, "pid", 1, INT32_MAX);
	long long fd = int_member(o, "fd", 0, INT32_MAX);
	struct json_object *v;
	const char *comm;

	if (pid == -2 || fd == -2)
		return refuse(err, errlen, "status: expected \"pid\" and \"fd\" as non-negative "
			      "integers");
	if (fd >= 0 && pid < 0)
		return refuse(err, errlen, "status: \"fd\" goes with \"pid\" (together they name "
			      "one ring)");
	r->ring = fd >= 0;
	r->pid = pid >= 0 ? (pid_t)pid : -1;
	r->fd = r->ring ? (int)fd : -1;
	if (!json_object_object_get_ex(o, "comm", &v))
		return 0;
	comm = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	/* the kernel's comm is at most 15 bytes: a longer name would match nothing */
	if (!comm || !*comm || (size_t)json_object_get_string_len(v) >= sizeof(r->comm) ||
	    strlen(comm) != (size_t)json_object_get_string_len(v))
		return refuse(err, errlen, "status: expected \"comm\" as a process name of 1 to %zu "
			      "bytes", sizeof(r->comm) - 1);
	if (r->ring)
		return refuse(err, errlen, "status: \"comm\" goes without \"fd\" (\"pid\" and "
			      "\"fd\" name one ring)");
	memcpy(r->comm, comm, strlen(comm) + 1);
	r->by_comm = true;
	return 0;
}

/* the ring and setting members of set and reset; their keys are known already */
static int ring_members(struct json_object *o, const char *cmd, struct control_request *r,
			char *err, size_t errlen)
{
	long long pid = int_member(o, "pid", 1, INT32_MAX);
	long long fd = int_member(o, "fd", 0, INT32_MAX);
	long long us;

	if (pid == -2 || fd == -2 || (pid == -1) != (fd == -1))
		return refuse(err, errlen, "%s: expected \"pid\" and \"fd\" as non-negative integers",
			      cmd);
	r->ring = pid >= 0;
	r->pid = r->ring ? (pid_t)pid : -1;
	r->fd = r->ring ? (int)fd : -1;
	if (r->cmd != CONTROL_SET)
		return 0;
	if (!r->ring)
		return refuse(err, errlen, "set: expected \"pid\" and \"fd\"");
	us = int_member(o, "busy_poll_us", 1, 10000);
	if (us < 0)
		return refuse(err, errlen, "set: expected \"busy_poll_us\" from 1 to 10000 "
			      "(the kernel's cap is 10 ms)");
	r->busy_poll_us = (unsigned int)us;
	if (bool_member(o, "prefer", &r->prefer) || bool_member(o, "static", &r->static_ids) ||
	    bool_member(o, "force", &r->force))
		return refuse(err, errlen, "set: expected \"prefer\", \"static\" and \"force\" as "
			      "true or false");
	return 0;
}

/* status: "view", "full" (the default) or "table" */
static int view_member(struct json_object *o, struct control_request *r, char *err,
		       size_t errlen)
{
	struct json_object *v;
	const char *view;

	if (!json_object_object_get_ex(o, "view", &v))
		return 0;
	view = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
	if (view && !strcmp(view, "table"))
		r->table = true;
	else if (!view || strcmp(view, "full"))
		return refuse(err, errlen, "status: expected \"view\" as \"full\" or \"table\"");
	return 0;
}

/* the command of object @o, its keys known, its members into @r */
static int members(struct json_object *o, struct control_request *r, char *err, size_t errlen)
{
	struct json_object *cmd_obj;
	const char *cmd;
	size_t i;

	if (!json_object_object_get_ex(o, "cmd", &cmd_obj) ||
	    !json_object_is_type(cmd_obj, json_type_string))
		return refuse(err, errlen, "malformed request: no \"cmd\" string");
	cmd = json_object_get_string(cmd_obj);
	for (i = 0; i < NR_COMMANDS && strcmp(cmd, commands[i].name); i++)
		;
	if (i == NR_COMMANDS)
		return refuse(err, errlen, "unknown command '%.64s' (known: status, set, reset)", cmd);
	r->cmd = commands[i].cmd;
	json_object_object_foreach(o, key, val) {
		(void)val;
		if (strcmp(key, "cmd") && !key_listed(commands[i].keys, key))
			return refuse(err, errlen, "%s: unknown key \"%.64s\" (%s%s)", cmd, key,
				      commands[i].keys[0] ? "known: " : "it takes no other key",
				      commands[i].keys);
	}
	if (r->cmd == CONTROL_STATUS)
		return view_member(o, r, err, errlen) ? -EINVAL : status_members(o, r, err, errlen);
	return ring_members(o, cmd, r, err, errlen);
}

int control_request_parse(const char *buf, size_t len, struct control_request *r,
			  char *err, size_t errlen)
{
	struct json_tokener *tok = NULL;
	struct json_object *o = NULL;
	char why[192];
	size_t i;
	int ret;

	*r = (struct control_request){ .pid = -1, .fd = -1 };
	for (i = 0; i < len && buf[i] && strchr(" \t\r\n", buf[i]); i++)
		;
	if (i == len)
		return refuse(err, errlen, "empty request: expected a JSON object like {\"cmd\":\"status\"}");
	ret = control_json_check(buf, len, why, sizeof(why));
	if (ret)
		return refuse(err, errlen, "%s request: %s", ret == -ENOMEM ? "cannot check the" :
			      "malformed", why);
	if (buf[i] != '{')
		return refuse(err, errlen, "malformed request: expected a JSON object like "
			      "{\"cmd\":\"status\"}");
	tok = json_tokener_new();
	if (!tok || len > INT_MAX)
		return refuse(err, errlen, "cannot read the request: %s", tok ? "too long" : "out of memory");
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, buf, (int)len);
	if (!o) {
		ret = refuse(err, errlen, "malformed request: %s",
			     json_tokener_error_desc(json_tokener_get_error(tok)));
		goto out;
	}
	ret = members(o, r, err, errlen);
out:
	json_object_put(o);
	json_tokener_free(tok);
	return ret;
}
