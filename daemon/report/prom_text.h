/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Pieces of the Prometheus text exposition format 0.0.4 that every family
 * of the export uses (prom.c, prom_daemon.c): label values, exact seconds,
 * HELP and TYPE lines, histogram edges. Pure.
 */
#ifndef UT_PROM_TEXT_H
#define UT_PROM_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* room for UINT64_MAX ns: "18446744073.709551615" */
#define PROM_SECONDS_SIZE	24

/* exact decimal seconds: 50000 ns is "0.00005", 2e9 ns is "2"; returns @buf */
const char *prom_seconds(char buf[PROM_SECONDS_SIZE], uint64_t ns);

/* room for a histogram bucket's le */
#define PROM_LE_SIZE		24

/*
 * The upper edge of log2 slot @slot (common/hist.h) as a bucket's le, in
 * seconds: everything in the slot is <= 2^(slot+1) - 1 ns, hist_slot_max().
 */
void prom_le(char buf[PROM_LE_SIZE], unsigned int slot);

/* a family's HELP and TYPE lines: every sample of it must follow, before the next family */
void prom_family(FILE *out, const char *name, const char *type, const char *help);

/* a counter family of two series told apart by one label */
void prom_counter_pair(FILE *out, const char *name, const char *help, const char *label,
		       const char *v1, uint64_t n1, const char *v2, uint64_t n2);

#endif /* UT_PROM_TEXT_H */
