/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable string for building table cells and messages, and the CLI's
 * one way to make a string from the daemon (or the command line) safe to
 * print on one line of a terminal.
 */
#ifndef UT_CLI_STRBUF_H
#define UT_CLI_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

/* @oom latches so callers check once at the end; { 0 } is empty */
struct strbuf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
/* @len bytes of @s escaped as cli_escape() does */
void sb_add_esc(struct strbuf *sb, const char *s, size_t len, bool quote);
/* hand over the string, always NUL-terminated ("" if empty); NULL when any step ran out of memory */
char *sb_take(struct strbuf *sb);

/* a formatted, malloc'ed string; NULL on ENOMEM */
char *cli_msgf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Escape @len bytes of @s so they print on one line of a terminal as plain
 * ASCII: \n, \t, and \xNN for other control and all non-ASCII bytes; with
 * @quote also \\ and \" (for names, where the reader must be able to tell
 * every byte apart). Returns a malloc'ed string or NULL on ENOMEM.
 */
char *cli_escape(const char *s, size_t len, bool quote);

#endif /* UT_CLI_STRBUF_H */
