// SPDX-License-Identifier: GPL-2.0-only
/* A JSON text generated into a buffer drained as it fills (status_writer.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_writer.h"

#define SW_INITIAL	(16UL << 10)

/* yajl's output: appended to the buffer, which grows (the caller drains it) */
static void sw_print(void *ctx, const char *s, size_t n)
{
	struct status_writer *w = ctx;
	size_t cap;
	char *p;

	if (w->err)
		return;
	/* room for the NUL that keeps the text a string */
	if (w->cap - w->len <= n) {
		for (cap = w->cap ? w->cap : SW_INITIAL; cap - w->len <= n; cap *= 2)
			;
		p = realloc(w->buf, cap);
		if (!p) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = p;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

int sw_init(struct status_writer *w)
{
	*w = (struct status_writer){ 0 };
	w->g = yajl_gen_alloc(NULL);
	if (!w->g || !yajl_gen_config(w->g, yajl_gen_print_callback, sw_print, w)) {
		sw_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void sw_fini(struct status_writer *w)
{
	if (w->g)
		yajl_gen_free(w->g);
	free(w->buf);
	*w = (struct status_writer){ 0 };
}

void sw_drop(struct status_writer *w, size_t n)
{
	if (n >= w->len)
		n = w->len;
	memmove(w->buf, w->buf + n, w->len - n + !!w->buf);
	w->len -= n;
}

void sw_newline(struct status_writer *w)
{
	/* yajl writes no raw text: this is the writer's own */
	sw_print(w, "\n", 1);
}

/* a generator call's result: anything but ok is a call out of place */
static void sw_check(struct status_writer *w, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok && !w->err)
		w->err = -EINVAL;
}

/* the member's name first, if in an object; false if nothing more may be written */
static bool sw_key(struct status_writer *w, const char *key)
{
	if (w->err)
		return false;
	if (key)
		sw_check(w, yajl_gen_string(w->g, (const unsigned char *)key, strlen(key)));
	return !w->err;
}

void sw_object(struct status_writer *w, const char *key)
{
	if (sw_key(w, key))
		sw_check(w, yajl_gen_map_open(w->g));
}

void sw_object_end(struct status_writer *w)
{
	if (!w->err)
		sw_check(w, yajl_gen_map_close(w->g));
}

void sw_array(struct status_writer *w, const char *key)
{
	if (sw_key(w, key))
		sw_check(w, yajl_gen_array_open(w->g));
}

void sw_array_end(struct status_writer *w)
{
	if (!w->err)
		sw_check(w, yajl_gen_array_close(w->g));
}

/* a number's text as a value (yajl_gen_number writes it as it is) */
static void sw_number(struct status_writer *w, const char *key, const char *num, size_t len)
{
	if (sw_key(w, key))
		sw_check(w, yajl_gen_number(w->g, num, len));
}

/* decimal digits of @v, ending at @end; where they start (snprintf is slower per value) */
static char *u64_digits(char *end, uint64_t v)
{
	char *p = end;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void sw_u64(struct status_writer *w, const char *key, uint64_t v)
{
	char buf[24], *p = u64_digits(buf + sizeof(buf), v);

	sw_number(w, key, p, (size_t)(buf + sizeof(buf) - p));
}

void sw_i64(struct status_writer *w, const char *key, int64_t v)
{
	char buf[24], *p;

	/* the magnitude as unsigned: -INT64_MIN does not fit an int64_t */
	p = u64_digits(buf + sizeof(buf), v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--p = '-';
	sw_number(w, key, p, (size_t)(buf + sizeof(buf) - p));
}

void sw_bool(struct status_writer *w, const char *key, bool v)
{
	if (sw_key(w, key))
		sw_check(w, yajl_gen_bool(w->g, v));
}

void sw_null(struct status_writer *w, const char *key)
{
	if (sw_key(w, key))
		sw_check(w, yajl_gen_null(w->g));
}

void sw_double(struct status_writer *w, const char *key, double v)
{
	char buf[40];
	int n;

	if (!isfinite(v)) {
		sw_null(w, key);
		return;
	}
	/* json-c's format: enough digits to read back the same double */
	n = snprintf(buf, sizeof(buf) - 2, "%.17g", v);
	if (n < 0 || (size_t)n >= sizeof(buf) - 2) {
		sw_null(w, key);
		return;
	}
	if (!strpbrk(buf, ".e")) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	sw_number(w, key, buf, (size_t)n);
}

/* length of the valid UTF-8 sequence at @s (@n bytes left), 0 if none */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t sw_utf8_fix(const char *s, size_t len, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, k;

	while (i < len) {
		k = utf8_len(p + i, len - i);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	return o;
}

static bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;

	while (i < len) {
		/* ASCII runs: the common case, one byte at a time is enough */
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		k = utf8_len(p + i, len - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

void sw_str(struct status_writer *w, const char *key, const char *s)
{
	size_t len;
	char *fixed;

	if (!s) {
		sw_null(w, key);
		return;
	}
	if (!sw_key(w, key))
		return;
	len = strlen(s);
	if (utf8_valid(s, len)) {
		sw_check(w, yajl_gen_string(w->g, (const unsigned char *)s, len));
		return;
	}
	fixed = malloc(3 * len + 1);
	if (!fixed) {
		w->err = -ENOMEM;
		return;
	}
	len = sw_utf8_fix(s, len, fixed);
	sw_check(w, yajl_gen_string(w->g, (const unsigned char *)fixed, len));
	free(fixed);
}

void sw_str_or_null(struct status_writer *w, const char *key, const char *s)
{
	sw_str(w, key, s && s[0] ? s : NULL);
}

void sw_json_c(struct status_writer *w, const char *key, struct json_object *o)
{
	const char *text;

	if (!o) {
		sw_null(w, key);
		return;
	}
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		w->err = w->err ? w->err : -ENOMEM;
	else
		sw_number(w, key, text, strlen(text));
	json_object_put(o);
}
