/* SPDX-License-Identifier: GPL-2.0-only */
/* The CLI's one way to refuse a command line. */
#ifndef UT_CLI_USAGE_H
#define UT_CLI_USAGE_H

#define EXIT_USAGE		2

/* "uringtune: <message> (see uringtune --help)" on stderr; returns EXIT_USAGE */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* UT_CLI_USAGE_H */
