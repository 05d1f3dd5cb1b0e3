/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One request to uringtuned and its reply, or why there is none as one
 * line for stderr: what the status, set and reset commands share.
 */
#ifndef UT_CLI_ASK_H
#define UT_CLI_ASK_H

#include <stdio.h>

#include <json-c/json.h>

#include "strbuf.h"	/* cli_msgf() */

/* print and free a message of cli_msgf() as one line, @suffix before the newline */
void cli_put_msg(FILE *f, char *msg, const char *suffix);

/*
 * Send @request to the daemon at @socket_path. Returns 0 with *reply, a
 * reply that is not an error, to put by the caller; or -1 with *msg saying
 * why in one line (see cli_msgf()).
 */
int cli_ask(const char *socket_path, const char *request, struct json_object **reply,
	    char **msg);

/*
 * The same, the reply left as the daemon sent it: 0 with *buf (@len bytes,
 * NUL-terminated; the caller frees), which may still be the daemon's error
 * (cli_check_error()); or -1 with *msg.
 */
int cli_ask_raw(const char *socket_path, const char *request, char **buf, size_t *len,
		char **msg);

/* @reply is the daemon's error (a top-level "error"): -1 with *msg; else 0 */
int cli_check_error(struct json_object *reply, char **msg);

#endif /* UT_CLI_ASK_H */
