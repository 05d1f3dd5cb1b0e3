/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uringtune's side of the control socket: one request line out, one JSON
 * object back, then the daemon closes. No rendering here.
 */
#ifndef UT_CLI_CLIENT_H
#define UT_CLI_CLIENT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

/* per-call send/receive timeout: a hung daemon gives an error, not a hang */
#define CLIENT_TIMEOUT_S	5
/* refuse replies beyond this rather than eat the machine's memory */
#define CLIENT_REPLY_MAX	(256UL << 20)

/* where client_request() failed, so the caller can phrase the error */
enum client_stage {
	CLIENT_SOCKET,
	CLIENT_CONNECT,
	CLIENT_SEND,
	CLIENT_RECV,
};

/*
 * Set by the caller's signal handler to abandon a request: a send or
 * receive interrupted by a signal (a handler installed without SA_RESTART)
 * then fails with -EINTR instead of resuming.
 */
extern volatile sig_atomic_t client_interrupted;

/*
 * Connect to the unix socket @path, send @request, half-close, and read the
 * whole reply until EOF. On success *reply is a NUL-terminated malloc'ed
 * buffer of *len bytes (the caller frees it) and 0 is returned. On failure
 * returns a negative errno (-EAGAIN: timed out, -EMSGSIZE: reply larger than
 * CLIENT_REPLY_MAX, -EINTR: interrupted, see above) and sets *stage.
 */
int client_request(const char *path, const char *request, char **reply,
		   size_t *len, enum client_stage *stage);

/*
 * Parse @len bytes of @buf as exactly one JSON object (whitespace around it
 * allowed). On success *obj holds a reference the caller puts. On failure
 * returns -EINVAL and sets *err to a static description.
 */
int client_parse_reply(const char *buf, size_t len, struct json_object **obj,
		       const char **err);

/*
 * The framing of a reply passed on unparsed (`status --json`): one line,
 * @len bytes of @buf, holding one JSON object as the daemon writes it: '{'
 * first, '}' and the newline last, no other newline, no NUL. 0, or -EINVAL
 * and *err a static description. What is between the braces is the
 * daemon's: not checked.
 */
int client_check_frame(const char *buf, size_t len, const char **err);

/* the reply opens with the member "error": the daemon's refusal, not its answer */
bool client_reply_is_error(const char *buf, size_t len);

#endif /* UT_CLI_CLIENT_H */
