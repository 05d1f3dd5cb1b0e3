// SPDX-License-Identifier: GPL-2.0-only
/* The control socket: its listening socket, and the answer to one request. */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "control.h"
#include "control_request.h"
#include "inventory.h"
#include "io_util.h"
#include "log.h"

int control_listen(const char *path, char *err, size_t errlen)
{
	/*
	 * 0600: root's until control_share() gives it to the status group.
	 * The backlog holds clients between two turns of the loop, which
	 * accepts them all at once.
	 */
	return unix_listen("control socket", path, SOCK_STREAM, 0600, 128, err, errlen);
}

gid_t control_share(const char *path, const char *group)
{
	struct group *gr;

	if (!group[0]) {
		log_info("control socket %s: root's only ([daemon] status_group is empty)", path);
		return CONTROL_NO_GROUP;
	}
	errno = 0;
	gr = getgrnam(group);
	if (!gr) {
		log_info("control socket %s: root's only: group %s %s (create it to let its "
			 "members read status: systemd-sysusers, or groupadd --system %s)", path,
			 group, errno ? strerror(errno) : "does not exist", group);
		return CONTROL_NO_GROUP;
	}
	/*
	 * Without CAP_CHOWN (the unit's capability set) root may give its
	 * file only to a group it is a member of: the unit's
	 * SupplementaryGroups=uringtune. Group first, then the mode: the
	 * socket is never open to a group it does not belong to.
	 */
	if (chown(path, (uid_t)-1, gr->gr_gid) || chmod(path, 0660)) {
		log_warn("control socket %s: cannot give it to group %s: %s (the daemon must be a "
			 "member of it, as the unit's SupplementaryGroups= makes it, or hold "
			 "CAP_CHOWN): root's only", path, group, strerror(errno));
		chmod(path, 0600);
		return CONTROL_NO_GROUP;
	}
	log_info("control socket %s: root's, and group %s's (gid %u) to read status", path,
		 group, (unsigned int)gr->gr_gid);
	return gr->gr_gid;
}

void control_close(int fd, const char *path)
{
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

char *control_error_reply(const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	char msg[512];
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
static char *ok_via_agent(struct ut_daemon *d, pid_t pid, int fd)
{
	if (pid < 0 || !lifecycle_via_agent(&d->lc, pid, fd))
		return ok_reply();
	return strdup("{\"ok\":true,\"via\":\"agent\"}");
}

/* {"cmd":"set",...} and {"cmd":"reset"[,...]}, checked by control_request_parse() */
static char *handle_change(struct ut_daemon *d, const struct control_request *r)
{
	const char *cmd = r->cmd == CONTROL_SET ? "set" : "reset";
	struct tuner_setting s = {
		.enabled = true,
		.busy_poll_us = r->busy_poll_us,
		.prefer = r->prefer,
		.static_ids = r->static_ids,
	};
	char err[256];
	int ret;

	if (d->cfg.mode != UT_MODE_TUNE)
		return control_error_reply("%s: the daemon runs in observe mode: it changes no ring", cmd);
	if (r->cmd == CONTROL_RESET)
		ret = lifecycle_reset(&d->lc, r->pid, r->fd, err, sizeof(err));
	else
		ret = lifecycle_set(&d->lc, r->pid, r->fd, &s, r->force, err, sizeof(err));
	return ret ? control_error_reply("%s", err) : ok_via_agent(d, r->pid, r->fd);
}

/* what a status request selects */
static void status_select_of(const struct control_request *r, struct status_select *sel)
{
	*sel = (struct status_select){
		.table = r->table, .one = r->ring, .pid = r->pid, .fd = r->fd,
		.by_comm = r->by_comm,
	};
	memcpy(sel->comm, r->comm, sizeof(sel->comm));
}

/* a status: the stream that makes it, from the newest statistics */
static int status_answer(struct ut_daemon *d, const struct control_request *r,
			 struct control_reply *reply)
{
	struct status_select sel;

	inventory_refresh_stats(&d->inv);
	status_select_of(r, &sel);
	reply->status = malloc(sizeof(*reply->status));
	if (!reply->status || status_stream_open(reply->status, d, &sel)) {
		free(reply->status);
		reply->status = NULL;
		return -ENOMEM;
	}
	return 0;
}

int control_answer(struct ut_daemon *d, const char *request, size_t len,
		   const struct control_who *who, struct control_reply *reply)
{
	struct control_request r;
	char err[384];

	*reply = (struct control_reply){ 0 };
	/* the whole request is checked before anything is done */
	if (control_request_parse(request, len, &r, err, sizeof(err))) {
		reply->text = control_error_reply("%s", err);
	} else if (!control_access_allows(who->access, r.cmd)) {
		control_access_why(who->access, who->uid, r.cmd == CONTROL_SET ? "set" : "reset",
				   who->group, err, sizeof(err));
		reply->text = control_error_reply("%s", err);
	} else if (r.cmd != CONTROL_STATUS)
		reply->text = handle_change(d, &r);
	else
		return status_answer(d, &r, reply);
	return reply->text ? 0 : -ENOMEM;
}

char *control_handle(struct ut_daemon *d, const char *request, size_t len)
{
	const struct control_who root = { .access = CONTROL_ACCESS_ALL, .uid = 0, .group = "" };
	struct control_reply r;
	char *out;

	if (control_answer(d, request, len, &root, &r))
		return NULL;
	if (r.text)
		return r.text;
	out = status_stream_all(r.status, d);
	free(r.status);
	return out;
}
