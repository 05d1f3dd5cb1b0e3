/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's status reply read a ring at a time: yajl's parser reads the
 * text and json-c objects are built from its events; each element of the
 * top-level "rings" array is handed to a callback as soon as it is whole,
 * then put. What json-c's own reader does in ~10 us a ring (its tokenizer)
 * and with the whole reply as one tree (~20 times the text: 65 MB for
 * 10 000 rings) takes ~1 us here, and one ring at a time.
 *
 * The values are json-c's as its reader makes them: integers int64, or
 * uint64 above INT64_MAX (clamped past either end), numbers with a '.' or
 * an exponent doubles, of two equal keys the last, strings as they are
 * (not checked for UTF-8: the renderers escape what they print), at most
 * 32 levels of nesting. Only RFC 8259 JSON is read (json-c also takes
 * NaN, single quotes and the like).
 */
#ifndef UT_CLI_REPLY_PARSE_H
#define UT_CLI_REPLY_PARSE_H

#include <stddef.h>

#include <json-c/json.h>

/* json-c's default depth: deeper replies are refused by both readers */
#define REPLY_MAX_DEPTH		32

/* what is done with the rings as they come */
struct reply_rings {
	/* one ring (NULL: a JSON null), borrowed for the call; 0 to go on */
	int (*ring)(struct json_object *ring, void *arg);
	/*
	 * A second top-level "rings" came, which replaces the first as it
	 * does in json-c: forget the rings handed so far. 0 to go on.
	 */
	int (*forget)(void *arg);
};

/*
 * Read @len bytes of @buf as exactly one JSON object (whitespace around it
 * allowed). 0 and *top: the object, its top-level "rings" an empty array if
 * its elements went to @ops (the caller puts it). Else -EINVAL (and *err, a
 * description valid until the next call), -ENOMEM, or what @ops returned.
 */
int reply_parse_rings(const char *buf, size_t len, const struct reply_rings *ops, void *arg,
		      struct json_object **top, const char **err);

#endif /* UT_CLI_REPLY_PARSE_H */
