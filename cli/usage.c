// SPDX-License-Identifier: GPL-2.0-only
/* The CLI's usage errors: one line, exit status 2. */
#include <stdarg.h>
#include <stdio.h>

#include "usage.h"

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "uringtune: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see uringtune --help)\n");
	return EXIT_USAGE;
}
