// SPDX-License-Identifier: GPL-2.0-only
/* The journal's text: see journal_format.h, and journal.h for the format. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi_names.h"
#include "journal_format.h"

/* longest entry line is about 180 bytes */
#define LINE_MAX_LEN	256
#define BLANKS		" \t\r\f\v"

enum journal_key {
	KEY_CTX,
	KEY_PID,
	KEY_START,
	KEY_FD,
	KEY_INO,
	KEY_ENABLED,
	KEY_BUSY_POLL_US,
	KEY_PREFER,
	KEY_TRACKING,
	NR_KEYS,
};

/* in the order they are written and listed in error messages */
static const char *const key_names[NR_KEYS] = {
	[KEY_CTX]		= "ctx",
	[KEY_PID]		= "pid",
	[KEY_START]		= "start",
	[KEY_FD]		= "fd",
	[KEY_INO]		= "ino",
	[KEY_ENABLED]		= "enabled",
	[KEY_BUSY_POLL_US]	= "busy_poll_us",
	[KEY_PREFER]		= "prefer",
	[KEY_TRACKING]		= "tracking",
};
#define KEY_LIST	"ctx, pid, start, fd, ino, enabled, busy_poll_us, prefer, tracking"

bool journal_entry_valid(const struct journal_entry *e)
{
	return e->ctx && e->pid > 0 && e->fd >= 0 && track_mode_name(e->track_mode);
}

int journal_parse_error(struct journal_parser *p, int ret, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->err || !p->errlen)
		return ret;
	n = snprintf(p->err, p->errlen, "%s: line %u: ", p->path, p->lineno);
	if (n < 0 || (size_t)n >= p->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return ret;
}

/* @s is all digits of @base (no sign, no blanks, no 0x) and in [min, max] */
static int parse_u64(const char *s, int base, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	const char *digits = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";
	unsigned long long v;
	char *end;

	if (!*s || s[strspn(s, digits)])
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_value(struct journal_parser *p, enum journal_key key, const char *value,
		       struct journal_entry *e)
{
	const char *name = key_names[key];
	const char *expected;
	uint64_t v;

	switch (key) {
	case KEY_CTX:
		expected = "a nonzero hexadecimal address without 0x";
		if (parse_u64(value, 16, 1, UINT64_MAX, &v))
			goto bad;
		e->ctx = v;
		return 0;
	case KEY_PID:
		expected = "a decimal integer from 1 to 2147483647";
		if (parse_u64(value, 10, 1, INT32_MAX, &v))
			goto bad;
		e->pid = (pid_t)v;
		return 0;
	case KEY_START:
	case KEY_INO:
		expected = "a decimal integer from 0 to 18446744073709551615";
		if (parse_u64(value, 10, 0, UINT64_MAX, &v))
			goto bad;
		if (key == KEY_START)
			e->start_boottime = v;
		else
			e->ino = v;
		return 0;
	case KEY_FD:
		expected = "a decimal integer from 0 to 2147483647";
		if (parse_u64(value, 10, 0, INT32_MAX, &v))
			goto bad;
		e->fd = (int)v;
		return 0;
	case KEY_BUSY_POLL_US:
		expected = "a decimal integer from 0 to 4294967295";
		if (parse_u64(value, 10, 0, UINT32_MAX, &v))
			goto bad;
		e->busy_poll_us = (unsigned int)v;
		return 0;
	case KEY_ENABLED:
	case KEY_PREFER:
		expected = "0 or 1";
		/* strictly "0" or "1": parse_u64 would also take "01" */
		if (strcmp(value, "0") && strcmp(value, "1"))
			goto bad;
		if (key == KEY_ENABLED)
			e->enabled = value[0] == '1';
		else
			e->prefer = value[0] == '1';
		return 0;
	case KEY_TRACKING:
		expected = "dynamic, static or inactive";
		if (track_mode_from_name(value, &e->track_mode))
			goto bad;
		return 0;
	case NR_KEYS:
		break;
	}
	return journal_parse_error(p, -EINVAL, "unknown key '%s'", name);
bad:
	if (!*value)
		return journal_parse_error(p, -EINVAL, "bad %s (expected %s, got an empty value)",
					   name, expected);
	return journal_parse_error(p, -EINVAL, "bad %s (expected %s, got '%.64s')",
				   name, expected, value);
}

/* "ring key=value ...", @line without its newline; modified by strtok_r() */
static int parse_ring_line(struct journal_parser *p, char *line, struct journal_entry *e)
{
	bool seen[NR_KEYS] = { false };
	char *save = NULL, *tok;
	int ret;

	memset(e, 0, sizeof(*e));
	if (strcspn(line, BLANKS) != strlen("ring") || strncmp(line, "ring", 4))
		return journal_parse_error(p, -EINVAL,
					   "unknown line (expected 'ring key=value ...', got '%.100s')",
					   line);
	for (tok = strtok_r(line + 4, BLANKS, &save); tok;
	     tok = strtok_r(NULL, BLANKS, &save)) {
		char *eq = strchr(tok, '=');
		int key;

		if (!eq)
			return journal_parse_error(p, -EINVAL,
						   "bad field (expected key=value, got '%.64s')", tok);
		*eq = '\0';
		for (key = 0; key < NR_KEYS; key++)
			if (strcmp(tok, key_names[key]) == 0)
				break;
		if (key == NR_KEYS)
			return journal_parse_error(p, -EINVAL,
						   "unknown key '%.64s' (expected one of " KEY_LIST ")",
						   tok);
		if (seen[key])
			return journal_parse_error(p, -EINVAL,
						   "duplicate key '%s' (expected each key once)",
						   key_names[key]);
		seen[key] = true;
		ret = parse_value(p, key, eq + 1, e);
		if (ret)
			return ret;
	}
	for (int key = 0; key < NR_KEYS; key++)
		if (!seen[key])
			return journal_parse_error(p, -EINVAL,
						   "missing key '%s' (expected all of " KEY_LIST ")",
						   key_names[key]);
	return 0;
}

int journal_parse_line(struct journal_parser *p, char *line, size_t len,
		       struct journal_entry *e)
{
	char *s;
	int ret;

	if (strlen(line) != len)
		return journal_parse_error(p, -EINVAL, "bad line (expected text, got a NUL byte)");
	s = line + strspn(line, BLANKS);
	if (!*s)
		return 0;
	if (!p->header) {
		/* exactly: a different version must not be half understood */
		if (strcmp(line, JOURNAL_HEADER))
			return journal_parse_error(p, -EINVAL,
						   "bad header (expected '" JOURNAL_HEADER "', got '%.100s')",
						   line);
		p->header = true;
		return 0;
	}
	if (*s == '#')
		return 0;
	ret = parse_ring_line(p, s, e);
	return ret ? ret : 1;
}

int journal_parse_end(struct journal_parser *p)
{
	/* an empty file is not something we write: a journal went missing */
	if (p->header)
		return 0;
	p->lineno++;
	return journal_parse_error(p, -EINVAL,
				   "missing header (expected '" JOURNAL_HEADER "', got the end of the file)");
}

static int format_entry(char *buf, size_t len, const struct journal_entry *e)
{
	return snprintf(buf, len,
			"ring ctx=%" PRIx64 " pid=%d start=%" PRIu64 " fd=%d ino=%" PRIu64
			" enabled=%d busy_poll_us=%u prefer=%d tracking=%s\n",
			e->ctx, (int)e->pid, e->start_boottime, e->fd, e->ino,
			e->enabled ? 1 : 0, e->busy_poll_us, e->prefer ? 1 : 0,
			track_mode_name(e->track_mode));
}

char *journal_format(const struct journal_entry *es, size_t n, size_t skip, size_t *len)
{
	size_t size = sizeof(JOURNAL_HEADER "\n") + n * LINE_MAX_LEN;
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	*len = snprintf(buf, size, "%s\n", JOURNAL_HEADER);
	for (size_t i = 0; i < n; i++) {
		if (i == skip)
			continue;
		*len += format_entry(buf + *len, size - *len, &es[i]);
	}
	return buf;
}
