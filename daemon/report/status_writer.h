/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A JSON text written as it is generated, for replies too large to build
 * whole (status at 10 000 rings is ~6 MB): yajl's generator keeps the state
 * (member or element, commas, nesting) and escapes strings; the text goes
 * into a buffer the caller drains (sw_drop) while the rest is not written
 * yet. No tree, no allocation per value.
 *
 * Every call takes the member's @key (NULL for an element of an array), so
 * that a member is one line: sw_u64(w, "rings", d->reg.count). Errors latch
 * in w->err (-ENOMEM, or -EINVAL for a call out of place: a bug) and later
 * calls do nothing; check once at the end.
 *
 * What it writes is what json-c wrote before it (JSON_C_TO_STRING_PLAIN),
 * value for value: integers in full (u64 above INT64_MAX too), doubles as
 * "%.17g" with ".0" added to integral ones, non-finite ones as null. Strings
 * are escaped as RFC 8259 requires ('"', '\\' and control characters; '/'
 * is not escaped, 0x7f is kept) and bytes that are not UTF-8 (a process may
 * name itself anything) are replaced by U+FFFD, so the text is always valid
 * JSON.
 */
#ifndef UT_STATUS_WRITER_H
#define UT_STATUS_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>
#include <yajl/yajl_gen.h>

struct status_writer {
	yajl_gen g;
	char *buf;		/* the text written and not yet drained, NUL-terminated */
	size_t len, cap;
	int err;		/* the first error, 0 if none */
};

/* 0, or -ENOMEM */
int sw_init(struct status_writer *w);
void sw_fini(struct status_writer *w);
/* the first @n bytes of the buffer were sent: gone */
void sw_drop(struct status_writer *w, size_t n);

/* after the whole value: a newline ends the text (a reply is one line) */
void sw_newline(struct status_writer *w);

void sw_object(struct status_writer *w, const char *key);
void sw_object_end(struct status_writer *w);
void sw_array(struct status_writer *w, const char *key);
void sw_array_end(struct status_writer *w);

void sw_u64(struct status_writer *w, const char *key, uint64_t v);
void sw_i64(struct status_writer *w, const char *key, int64_t v);
void sw_bool(struct status_writer *w, const char *key, bool v);
void sw_null(struct status_writer *w, const char *key);
/* NaN and infinities have no JSON form: null */
void sw_double(struct status_writer *w, const char *key, double v);
/* @s NULL: null */
void sw_str(struct status_writer *w, const char *key, const char *s);
/* "" (nothing to say): null */
void sw_str_or_null(struct status_writer *w, const char *key, const char *s);
/*
 * A value built with json-c (NULL: null), put by the writer: for members
 * whose owners build them as json-c objects (small ones: never per ring).
 */
void sw_json_c(struct status_writer *w, const char *key, struct json_object *o);

/*
 * @len bytes of @s as valid UTF-8 into @out (3 * @len + 1 bytes): invalid
 * sequences become U+FFFD. Its length; @out is NUL-terminated.
 */
size_t sw_utf8_fix(const char *s, size_t len, char *out);

#endif /* UT_STATUS_WRITER_H */
