// SPDX-License-Identifier: GPL-2.0-only
/* `uringtune set` and `uringtune reset`: the request, and what it did in words. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "ask.h"
#include "cmd_change.h"
#include "json_get.h"
#include "options.h"

/* set and reset: the daemon answers {"ok":true} or {"error":...} */
int cmd_change(const struct cli_opts *o)
{
	struct json_object *req = json_object_new_object(), *reply = NULL, *via;
	char *line = NULL, *msg = NULL;
	const char *later = "";
	int ret = EXIT_FAILURE;

	json_object_object_add(req, "cmd", json_object_new_string(o->cmd));
	if (o->have_ring) {
		json_object_object_add(req, "pid", json_object_new_int64(o->ring_pid));
		json_object_object_add(req, "fd", json_object_new_int64(o->ring_fd));
	}
	if (strcmp(o->cmd, "set") == 0) {
		json_object_object_add(req, "busy_poll_us", json_object_new_int64(o->busy_poll_us));
		json_object_object_add(req, "prefer", json_object_new_boolean(o->prefer));
		json_object_object_add(req, "static", json_object_new_boolean(o->static_ids));
		/* only when asked: a request without it reads as before */
		if (o->force)
			json_object_object_add(req, "force", json_object_new_boolean(true));
	}
	if (asprintf(&line, "%s\n", json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN)) < 0) {
		line = NULL;
		fprintf(stderr, "uringtune: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (cli_ask(o->socket_path, line, &reply, &msg)) {
		cli_put_msg(stderr, msg, "");
		goto out;
	}
	/* a ring reached through its agent takes the change at its next call */
	via = jget(reply, "via");
	if (json_object_is_type(via, json_type_string) &&
	    !strcmp(json_object_get_string(via), "agent"))
		later = " (through its agent: at the ring's next submit or wait)";
	if (strcmp(o->cmd, "set") == 0)
		printf("ring %" PRId64 ":%" PRId64 ": NAPI busy polling pinned at %ld us%s%s%s%s\n",
		       o->ring_pid, o->ring_fd, o->busy_poll_us, o->prefer ? ", prefer" : "",
		       o->static_ids ? ", static tracking" : "",
		       o->force ? " (--force: whatever [select] says)" : "", later);
	else if (o->have_ring)
		printf("ring %" PRId64 ":%" PRId64 ": original NAPI settings restored%s\n",
		       o->ring_pid, o->ring_fd, later);
	else
		printf("every ring uringtune changed: original NAPI settings restored\n");
	ret = EXIT_SUCCESS;
out:
	json_object_put(req);
	json_object_put(reply);
	free(line);
	return ret;
}
