// SPDX-License-Identifier: GPL-2.0-only
/* A strict JSON check: RFC 8259 only, no duplicate keys (control_json.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_json.h"

/* a key already seen in an object being scanned: where its decoded bytes are */
struct key {
	size_t off, len;
};

struct scan {
	const char *start, *p, *end;
	int depth;
	/* decoded keys of the objects being scanned, innermost last */
	char *arena;
	size_t arena_used;
	struct key *keys;
	size_t nkeys;
	char *err;
	size_t errlen;
};

static __attribute__((format(printf, 2, 3))) int fail(struct scan *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(s->err, s->errlen, "at byte %zu: ", (size_t)(s->p - s->start));
	if (n >= 0 && (size_t)n < s->errlen) {
		va_start(ap, fmt);
		vsnprintf(s->err + n, s->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool at(struct scan *s, char c)
{
	return s->p < s->end && *s->p == c;
}

/* four hex digits after "\u"; -1 if not */
static long hex4(struct scan *s)
{
	long v = 0;
	int i;

	if (s->end - s->p < 4)
		return -1;
	for (i = 0; i < 4; i++) {
		char c = s->p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	s->p += 4;
	return v;
}

/* UTF-8 of code point @cp at @out, its length */
static size_t utf8(char *out, unsigned long cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* after "\u": one code point, a surrogate pair joined; 0 or -EINVAL */
static int unicode_escape(struct scan *s, unsigned long *cp)
{
	long hi, lo;

	hi = hex4(s);
	if (hi < 0)
		return fail(s, "\\u needs four hex digits");
	if (hi == 0)
		return fail(s, "\\u0000 in a string (a NUL would cut it short)");
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return fail(s, "an unpaired surrogate \\u%04lx in a string", hi);
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = (unsigned long)hi;
		return 0;
	}
	if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
		return fail(s, "an unpaired surrogate \\u%04lx in a string", hi);
	s->p += 2;
	lo = hex4(s);
	if (lo < 0xdc00 || lo > 0xdfff)
		return fail(s, "an unpaired surrogate \\u%04lx in a string", hi);
	*cp = 0x10000 + ((unsigned long)(hi - 0xd800) << 10) + (unsigned long)(lo - 0xdc00);
	return 0;
}

/*
 * The string at s->p (its opening quote), decoded to @out (NULL: checked
 * only) of which *n bytes are then used; the decoded text is never longer.
 */
static int string(struct scan *s, char *out, size_t *n)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	char tmp[4];
	size_t used = 0, k;
	const char *e;
	unsigned long cp = 0;
	int ret;

	for (s->p++; s->p < s->end; ) {
		unsigned char c = (unsigned char)*s->p;

		if (c == '"') {
			s->p++;
			*n = used;
			return 0;
		}
		if (c < 0x20)
			return fail(s, "a raw control character 0x%02x in a string", c);
		s->p++;
		if (c != '\\') {
			if (out)
				out[used] = (char)c;
			used++;
			continue;
		}
		if (s->p == s->end)
			break;
		c = (unsigned char)*s->p++;
		if (c == 'u') {
			ret = unicode_escape(s, &cp);
			if (ret)
				return ret;
			k = utf8(out ? out + used : tmp, cp);
			used += k;
			continue;
		}
		e = c ? strchr(esc_in, c) : NULL;
		if (!e) {
			s->p--;
			return fail(s, "an invalid escape \\%c in a string", c >= 0x20 && c < 0x7f ? c : '?');
		}
		if (out)
			out[used] = esc_out[e - esc_in];
		used++;
	}
	return fail(s, "a string without its closing quote");
}

static int number(struct scan *s)
{
	if (at(s, '-'))
		s->p++;
	if (at(s, '0'))
		s->p++;
	else if (s->p < s->end && *s->p >= '1' && *s->p <= '9')
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	else
		return fail(s, "a malformed number");
	if (at(s, '.')) {
		s->p++;
		if (!(s->p < s->end && *s->p >= '0' && *s->p <= '9'))
			return fail(s, "a malformed number (a digit must follow '.')");
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	}
	if (at(s, 'e') || at(s, 'E')) {
		s->p++;
		if (at(s, '+') || at(s, '-'))
			s->p++;
		if (!(s->p < s->end && *s->p >= '0' && *s->p <= '9'))
			return fail(s, "a malformed number (a digit must follow the exponent)");
		while (s->p < s->end && *s->p >= '0' && *s->p <= '9')
			s->p++;
	}
	return 0;
}

static int unexpected(struct scan *s)
{
	unsigned char c = (unsigned char)*s->p;

	if (c >= 0x20 && c < 0x7f)
		return fail(s, "an unexpected '%c' where a JSON value belongs", c);
	return fail(s, "an unexpected byte 0x%02x where a JSON value belongs", c);
}

static int literal(struct scan *s, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return unexpected(s);
	s->p += n;
	return 0;
}

static int value(struct scan *s);

/* one key of an object whose keys start at keys[base]: refused if seen there */
static int object_key(struct scan *s, size_t base)
{
	const char *key_at = s->p;
	size_t n, i;
	int ret;

	ret = string(s, s->arena + s->arena_used, &n);
	if (ret)
		return ret;
	for (i = base; i < s->nkeys; i++) {
		if (s->keys[i].len == n && !memcmp(s->arena + s->keys[i].off,
						    s->arena + s->arena_used, n)) {
			s->p = key_at;
			return fail(s, "duplicate key \"%.*s\" (a key may appear once in an object)",
				    (int)(n > 64 ? 64 : n), s->arena + s->arena_used);
		}
	}
	s->keys[s->nkeys++] = (struct key){ .off = s->arena_used, .len = n };
	s->arena_used += n;
	return 0;
}

static int object(struct scan *s)
{
	size_t base = s->nkeys, arena_base = s->arena_used;
	int ret;

	s->p++;
	skip_ws(s);
	if (at(s, '}')) {
		s->p++;
		return 0;
	}
	for (;;) {
		if (!at(s, '"'))
			return fail(s, "expected a quoted key");
		ret = object_key(s, base);
		if (ret)
			return ret;
		skip_ws(s);
		if (!at(s, ':'))
			return fail(s, "expected ':' after a key");
		s->p++;
		ret = value(s);
		if (ret)
			return ret;
		skip_ws(s);
		if (at(s, '}'))
			break;
		if (!at(s, ','))
			return fail(s, "expected ',' or '}' in an object");
		s->p++;
		skip_ws(s);
	}
	s->p++;
	/* this object's keys are no longer needed */
	s->nkeys = base;
	s->arena_used = arena_base;
	return 0;
}

static int array(struct scan *s)
{
	int ret;

	s->p++;
	skip_ws(s);
	if (at(s, ']')) {
		s->p++;
		return 0;
	}
	for (;;) {
		ret = value(s);
		if (ret)
			return ret;
		skip_ws(s);
		if (at(s, ']'))
			break;
		if (!at(s, ','))
			return fail(s, "expected ',' or ']' in an array");
		s->p++;
	}
	s->p++;
	return 0;
}

static int value(struct scan *s)
{
	size_t n;
	int ret;

	skip_ws(s);
	if (s->p == s->end)
		return fail(s, "the text ends where a value was expected");
	switch (*s->p) {
	case '{':
	case '[':
		if (++s->depth > CONTROL_JSON_DEPTH)
			return fail(s, "nested deeper than %d levels", CONTROL_JSON_DEPTH);
		ret = *s->p == '{' ? object(s) : array(s);
		s->depth--;
		return ret;
	case '"':
		return string(s, NULL, &n);
	case 't':
		return literal(s, "true");
	case 'f':
		return literal(s, "false");
	case 'n':
		return literal(s, "null");
	default:
		if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9'))
			return number(s);
		return unexpected(s);
	}
}

int control_json_check(const char *buf, size_t len, char *err, size_t errlen)
{
	struct scan s = {
		.start = buf, .p = buf, .end = buf + len, .err = err, .errlen = errlen,
	};
	int ret;

	/* decoded keys are never longer than their text; a key takes 2 bytes or more */
	s.arena = malloc(len + 1);
	s.keys = malloc((len / 2 + 1) * sizeof(*s.keys));
	if (!s.arena || !s.keys) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	ret = value(&s);
	if (ret)
		goto out;
	skip_ws(&s);
	if (s.p != s.end)
		ret = fail(&s, "more after the JSON value (one value per request)");
out:
	free(s.arena);
	free(s.keys);
	return ret;
}
