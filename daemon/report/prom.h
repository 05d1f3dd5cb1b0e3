/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state in the Prometheus text exposition format 0.0.4, for
 * node_exporter's textfile collector (export.c writes it to a file). Metric
 * names are an interface, like status JSON fields: add, never rename.
 */
#ifndef UT_PROM_H
#define UT_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "daemon.h"

/* Write every family to @out. 0, or a negative errno (-EIO: @out failed). */
int prom_format(const struct ut_daemon *d, FILE *out);

/* the most prom_escape() writes for @len bytes: 3 each (U+FFFD), and a NUL */
#define PROM_ESCAPED_SIZE(len)	(3 * (len) + 1)

/*
 * A label value: the bytes of @s (at most @len, up to a NUL) into @dst, which
 * has room for PROM_ESCAPED_SIZE(len), without the quotes. Backslash, double
 * quote and newline are escaped as the format wants; every byte that is
 * neither printable ASCII nor part of valid UTF-8 (other control characters
 * too) becomes U+FFFD: Prometheus parsers refuse a whole file for one
 * invalid UTF-8 byte, and comm can hold any byte. Returns the length.
 */
size_t prom_escape(char *dst, const char *s, size_t len);

#endif /* UT_PROM_H */
