// SPDX-License-Identifier: GPL-2.0-only
/* A growable string, and one-line escaping of strings from elsewhere. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static void sb_reserve(struct strbuf *sb, size_t more)
{
	size_t cap;
	char *p;

	if (sb->oom || sb->len + more + 1 <= sb->cap)
		return;
	cap = sb->cap ? sb->cap : 32;
	while (cap < sb->len + more + 1)
		cap *= 2;
	p = realloc(sb->p, cap);
	if (!p) {
		sb->oom = true;
		return;
	}
	sb->p = p;
	sb->cap = cap;
}

void sb_add(struct strbuf *sb, const char *s, size_t n)
{
	sb_reserve(sb, n);
	if (sb->oom)
		return;
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_add_esc(struct strbuf *sb, const char *s, size_t len, bool quote)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		char x[4] = { '\\', 'x', hex[c >> 4], hex[c & 0xf] };

		if (c == '\n')
			sb_add(sb, "\\n", 2);
		else if (c == '\t')
			sb_add(sb, "\\t", 2);
		else if (quote && (c == '\\' || c == '"')) {
			x[1] = (char)c;
			sb_add(sb, x, 2);
		} else if (c < 0x20 || c >= 0x7f)
			/* non-ASCII too: keeps widths exact and terminals inert */
			sb_add(sb, x, 4);
		else
			sb_add(sb, (const char *)&s[i], 1);
	}
}

char *sb_take(struct strbuf *sb)
{
	/* nothing added (an empty name): the buffer is new, terminate it here */
	sb_reserve(sb, 0);
	if (sb->oom) {
		free(sb->p);
		sb->p = NULL;
		return NULL;
	}
	sb->p[sb->len] = '\0';
	return sb->p;
}

char *cli_escape(const char *s, size_t len, bool quote)
{
	struct strbuf sb = { 0 };

	sb_add_esc(&sb, s, len, quote);
	return sb_take(&sb);
}

char *cli_msgf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : s;
}
