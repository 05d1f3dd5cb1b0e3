/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An INI file read strictly, with libinih doing the parsing: every line's
 * number is known (Debian's libinih 55 gives handlers none), an overlong
 * line is an error rather than two lines, and the first error is the one
 * reported, as "PATH: what is wrong". What the sections and keys mean is
 * the caller's, through the ops below.
 */
#ifndef UT_INI_READER_H
#define UT_INI_READER_H

#include <stdbool.h>
#include <stddef.h>

/* the file being read: its position and its first error */
struct ini_reader_ctx;

/*
 * Each op reports a problem with ini_reader_error(), which stops the
 * reading. @user is ini_reader_parse()'s.
 */
struct ini_reader_ops {
	/* a "[name]" header (@len bytes, not terminated), before its line is parsed */
	void (*section)(struct ini_reader_ctx *ctx, void *user, const char *name,
			size_t len);
	/* "name = value" in [section] ("" before any header) */
	void (*key)(struct ini_reader_ctx *ctx, void *user, const char *section,
		    const char *name, const char *value);
	/* the whole file was read without error: checks across keys */
	void (*done)(struct ini_reader_ctx *ctx, void *user);
};

/*
 * Read @path through @ops. Returns 0, or the first error as a negative
 * errno with one line in @msg: "PATH: what is wrong" ("" on success).
 */
int ini_reader_parse(const char *path, const struct ini_reader_ops *ops, void *user,
		     char *msg, size_t msglen);

/* the number of the line being read, from 1 */
unsigned int ini_reader_lineno(const struct ini_reader_ctx *ctx);

/* record "PATH: <fmt>" as the error unless there is one already; stops the reading */
__attribute__((format(printf, 3, 4)))
void ini_reader_error(struct ini_reader_ctx *ctx, int err, const char *fmt, ...);

#endif /* UT_INI_READER_H */
