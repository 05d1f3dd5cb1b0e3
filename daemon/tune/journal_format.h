/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The journal's text (journal.h shows it): a header line, then one
 * "ring key=value ..." line per entry. Pure: text in, entries out, and
 * back. Reading is strict: the file is the only record of how to undo our
 * changes, so anything we did not write (a truncated line, a key we do not
 * know, a value out of range) is an error rather than a guess.
 */
#ifndef UT_JOURNAL_FORMAT_H
#define UT_JOURNAL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What identifies a ring across a daemon restart, and its original settings. */
struct journal_entry {
	uint64_t ctx;			/* kernel ring address */
	pid_t pid;
	uint64_t start_boottime;	/* process start, ns since boot */
	int fd;
	uint64_t ino;			/* the ring file's inode */
	/* the settings before uringtune's first change */
	bool enabled;
	unsigned int busy_poll_us;
	bool prefer;
	uint8_t track_mode;		/* UT_TRACK_* */
};

#define JOURNAL_HEADER		"# uringtune journal v1"

/* a file being read: where its errors point, "PATH: line N: what is wrong" */
struct journal_parser {
	const char *path;
	unsigned int lineno;	/* of the line read last */
	bool header;		/* the header was read */
	char *err;
	size_t errlen;
};

/* @ret, after writing "PATH: line N: " and the message into p->err */
__attribute__((format(printf, 3, 4)))
int journal_parse_error(struct journal_parser *p, int ret, const char *fmt, ...);

/*
 * The next line of the file, @len bytes without its newline (modified).
 * Returns 1 with *e filled for an entry line, 0 for a line without one
 * (the header, a comment, a blank line), or -EINVAL with p->err set.
 */
int journal_parse_line(struct journal_parser *p, char *line, size_t len,
		       struct journal_entry *e);

/* -EINVAL with p->err set if the file ended before its header */
int journal_parse_end(struct journal_parser *p);

/*
 * What journal_parse_line() would refuse, and what must therefore never be
 * written, or the daemon could not start again after writing it.
 */
bool journal_entry_valid(const struct journal_entry *e);

/*
 * The whole file for @n entries (index @skip left out; SIZE_MAX for none),
 * malloc'ed, its length in *len. NULL if out of memory.
 */
char *journal_format(const struct journal_entry *es, size_t n, size_t skip, size_t *len);

#endif /* UT_JOURNAL_FORMAT_H */
