// SPDX-License-Identifier: GPL-2.0-only
/*
 * Lines reach libinih through read_line() rather than ini_parse() so that we
 * see every raw line: libinih would split an overlong line in two and parse
 * the tail as a line of its own, read an indented line after a key as a
 * continuation of that key's value, never report a section without keys, and
 * treat a directory as an empty file.
 */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "ini_reader.h"

struct ini_reader_ctx {
	const char *path;
	FILE *file;
	char *line;			/* getline() buffer */
	size_t line_cap;
	unsigned int lineno;		/* of the line being parsed */
	const struct ini_reader_ops *ops;
	void *user;
	int err;			/* first error, negative errno */
	unsigned int err_line;
	char *msg;
	size_t msglen;
};

unsigned int ini_reader_lineno(const struct ini_reader_ctx *ctx)
{
	return ctx->lineno;
}

/* record the first error only: it is the one the operator must fix first */
void ini_reader_error(struct ini_reader_ctx *ctx, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ctx->err)
		return;
	ctx->err = err;
	ctx->err_line = ctx->lineno;
	if (!ctx->msg || !ctx->msglen)
		return;
	n = snprintf(ctx->msg, ctx->msglen, "%s: ", ctx->path);
	if (n < 0 || (size_t)n >= ctx->msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->msg + n, ctx->msglen - n, fmt, ap);
	va_end(ap);
}

/*
 * libinih's reader: one line per call, like fgets(). Refuses lines that do
 * not fit @size instead of letting libinih split them, strips leading blanks
 * (no multi-line values: an indented key is a key) and passes section
 * headers to ops->section here, as libinih never tells the handler about a
 * section.
 */
static char *read_line(char *str, int size, void *stream)
{
	struct ini_reader_ctx *ctx = stream;
	size_t max = size > 2 ? (size_t)size - 2 : 0;	/* room for "\n\0" */
	size_t len;
	ssize_t n;
	char *p;

	/* stop parsing at the first error, libinih would carry on */
	if (ctx->err)
		return NULL;
	errno = 0;
	n = getline(&ctx->line, &ctx->line_cap, ctx->file);
	if (n < 0) {
		if (ferror(ctx->file)) {
			int err = errno ? errno : EIO;

			ini_reader_error(ctx, -err, "cannot read: %s", strerror(err));
		}
		return NULL;
	}
	ctx->lineno++;
	p = ctx->line;
	if (n && p[n - 1] == '\n')
		p[--n] = '\0';
	if (strlen(p) != (size_t)n) {
		ini_reader_error(ctx, -EINVAL, "line %u: expected text, got a NUL byte",
				 ctx->lineno);
		return NULL;
	}
	if ((size_t)n > max) {
		ini_reader_error(ctx, -EINVAL,
				 "line %u: too long: expected at most %zu characters, got %zd",
				 ctx->lineno, max, n);
		return NULL;
	}
	if (ctx->lineno == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	p += strspn(p, " \t\r\f\v");
	if (p[0] == '[' && ctx->ops->section) {
		char *end = strchr(p, ']');

		/* no ']': libinih reports the malformed line */
		if (end)
			ctx->ops->section(ctx, ctx->user, p + 1, end - p - 1);
		if (ctx->err)
			return NULL;
	}
	/* fits: strlen(p) <= n <= size - 2 */
	len = strlen(p);
	memcpy(str, p, len);
	str[len] = '\n';
	str[len + 1] = '\0';
	return str;
}

/* libinih's handler: 0 marks the line as an error (libinih keeps the first) */
static int handle_key(void *user, const char *section, const char *name,
		      const char *value)
{
	struct ini_reader_ctx *ctx = user;

	if (ctx->err)
		return 0;
	ctx->ops->key(ctx, ctx->user, section, name, value);
	return !ctx->err;
}

int ini_reader_parse(const char *path, const struct ini_reader_ops *ops, void *user,
		     char *msg, size_t msglen)
{
	struct ini_reader_ctx ctx = {
		.path = path,
		.ops = ops,
		.user = user,
		.msg = msg,
		.msglen = msglen,
	};
	int ret;

	if (msg && msglen)
		msg[0] = '\0';
	ctx.file = fopen(path, "re");
	if (!ctx.file) {
		ret = errno ? -errno : -EIO;
		ini_reader_error(&ctx, ret, "cannot open: %s", strerror(-ret));
		return ret;
	}

	ret = ini_parse_stream(read_line, &ctx, handle_key, &ctx);
	/*
	 * A positive return is the first line libinih failed to parse or whose
	 * key the handler refused; report whichever of that and our own error
	 * comes first in the file.
	 */
	if (ret > 0 && (!ctx.err || (unsigned int)ret < ctx.err_line)) {
		ctx.err = 0;	/* replace our error from further down */
		ctx.lineno = ret;
		ini_reader_error(&ctx, -EINVAL, "line %d: not a key = value line", ret);
	} else if (ret < 0 && !ctx.err) {
		/* -2: libinih could not allocate its line buffer */
		ini_reader_error(&ctx, -ENOMEM, "cannot parse: %s", strerror(ENOMEM));
	}
	if (!ctx.err && ops->done)
		ops->done(&ctx, user);

	free(ctx.line);
	fclose(ctx.file);
	return ctx.err;
}
