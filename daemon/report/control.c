// SPDX-License-Identifier: GPL-2.0-only
/* The control socket server. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <stdint.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "inventory.h"
#include "io_util.h"
#include "log.h"
#include "status_json.h"


#define REQUEST_MAX	4096

int control_listen(const char *path, char *err, size_t errlen)
{
	/* 0600: only root talks to the daemon */
	return unix_listen("control socket", path, SOCK_STREAM, 0600, 16, err, errlen);
}

void control_close(int fd, const char *path)
{
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

static __attribute__((format(printf, 1, 2))) char *error_reply(const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[256];
	va_list ap;
	char *out;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(o, "error", json_object_new_string(msg));
	out = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

static char *ok_reply(void)
{
	return strdup("{\"ok\":true}");
}

/* a change written to the ring's slot of the agent's page: it lands later */
static char *ok_via_agent(struct ut_daemon *d, long long pid, long long fd)
{
	if (pid < 0 || !lifecycle_via_agent(&d->lc, (pid_t)pid, (int)fd))
		return ok_reply();
	return strdup("{\"ok\":true,\"via\":\"agent\"}");
}

/* an integer member in [min, max]; -1 if absent, -2 if of the wrong kind */
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

/* a boolean member: 0 (absent: false), or -1 if of another kind ("force":"no" is no "no") */
static int bool_member(struct json_object *req, const char *key, bool *out)
{
	struct json_object *v;

	*out = false;
	if (!json_object_object_get_ex(req, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_boolean))
		return -1;
	*out = json_object_get_boolean(v);
	return 0;
}

/* set's flags: "prefer", "static", "force"; 0, or -1 if one is not a boolean */
static int set_flags(struct json_object *req, struct tuner_setting *s, bool *force)
{
	bool prefer, static_ids;

	if (bool_member(req, "prefer", &prefer) || bool_member(req, "static", &static_ids) ||
	    bool_member(req, "force", force))
		return -1;
	s->prefer = prefer;
	s->static_ids = static_ids;
	return 0;
}

/*
 * {"cmd":"set","pid":P,"fd":F,"busy_poll_us":N,"prefer":B,"static":B,"force":B},
 * {"cmd":"reset"[,"pid","fd"]}
 */
static char *handle_change(struct ut_daemon *d, const char *cmd, struct json_object *req)
{
	long long pid = int_member(req, "pid", 1, INT32_MAX);
	long long fd = int_member(req, "fd", 0, INT32_MAX);
	struct tuner_setting s = { .enabled = true };
	bool force;
	long long us;
	char err[256];
	int ret;

	if (pid == -2 || fd == -2 || (pid == -1) != (fd == -1))
		return error_reply("%s: expected \"pid\" and \"fd\" as non-negative integers", cmd);
	if (d->cfg.mode != UT_MODE_TUNE)
		return error_reply("%s: the daemon runs in observe mode: it changes no ring", cmd);
	if (strcmp(cmd, "reset") == 0) {
		ret = lifecycle_reset(&d->lc, pid < 0 ? -1 : (pid_t)pid, (int)fd, err, sizeof(err));
		return ret ? error_reply("%s", err) : ok_via_agent(d, pid, fd);
	}
	if (pid < 0)
		return error_reply("set: expected \"pid\" and \"fd\"");
	us = int_member(req, "busy_poll_us", 1, 10000);
	if (us < 0)
		return error_reply("set: expected \"busy_poll_us\" from 1 to 10000 (the kernel's cap is 10 ms)");
	s.busy_poll_us = us;
	if (set_flags(req, &s, &force))
		return error_reply("set: expected \"prefer\", \"static\" and \"force\" as true or false");
	ret = lifecycle_set(&d->lc, (pid_t)pid, (int)fd, &s, force, err, sizeof(err));
	return ret ? error_reply("%s", err) : ok_via_agent(d, pid, fd);
}

char *control_handle(struct ut_daemon *d, const char *request)
{
	struct json_object *req, *cmd_obj, *reply;
	const char *cmd;
	char *out;

	req = json_tokener_parse(request);
	if (!req || !json_object_is_type(req, json_type_object)) {
		json_object_put(req);
		return error_reply("malformed request: expected a JSON object like "
				   "{\"cmd\":\"status\"}, got '%.64s'", request);
	}
	if (!json_object_object_get_ex(req, "cmd", &cmd_obj) ||
	    !json_object_is_type(cmd_obj, json_type_string)) {
		json_object_put(req);
		return error_reply("malformed request: no \"cmd\" string");
	}
	cmd = json_object_get_string(cmd_obj);
	if (strcmp(cmd, "status") == 0) {
		inventory_refresh_stats(&d->inv);
		reply = status_json(d);
		out = strdup(json_object_to_json_string_ext(reply, JSON_C_TO_STRING_PLAIN));
		json_object_put(reply);
	} else if (strcmp(cmd, "set") == 0 || strcmp(cmd, "reset") == 0) {
		out = handle_change(d, cmd, req);
	} else {
		out = error_reply("unknown command '%.64s' (known: status, set, reset)", cmd);
	}
	json_object_put(req);
	return out;
}

void control_serve_one(int listen_fd, struct ut_daemon *d)
{
	/* a stuck client must not stall the daemon for long */
	struct timeval rcv = { .tv_sec = 1 }, snd = { .tv_sec = 5 };
	char req[REQUEST_MAX];
	size_t have = 0;
	char *reply;
	int fd, ret;

	fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			log_warn("control socket: accept: %s", strerror(errno));
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof(rcv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));

	/* one line, or everything until the client shuts down its side */
	while (have < sizeof(req) - 1) {
		ssize_t n = read(fd, req + have, sizeof(req) - 1 - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
		if (memchr(req + have - n, '\n', n))
			break;
	}
	req[have] = '\0';

	reply = control_handle(d, req);
	if (!reply) {
		log_err("control socket: out of memory answering a request");
		goto out;
	}
	ret = write_all(fd, reply, strlen(reply));
	if (!ret)
		ret = write_all(fd, "\n", 1);
	if (ret)
		log_debug("control socket: client went away: %s", strerror(-ret));
	free(reply);
out:
	close(fd);
}
