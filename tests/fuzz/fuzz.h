/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the fuzz targets (tests/fuzz/fuzz_*.c, libFuzzer) share. Each target
 * feeds one surface the bytes libFuzzer makes up, at the same seam the
 * daemon or the CLI uses, and checks what that surface promises besides
 * not crashing: FUZZ_CHECK() aborts, which libFuzzer reports as a crash
 * with the input that caused it.
 */
#ifndef UT_FUZZ_H
#define UT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		abort();							\
	}									\
} while (0)

/* libFuzzer's entry point, defined by each target */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * A private directory under $TMPDIR (or /tmp), created on the first call
 * and removed with everything in it when the process exits normally.
 */
const char *fuzz_tmpdir(void);

/* @path holding exactly @size bytes of @data (created 0600 or truncated) */
void fuzz_write_file(const char *path, const void *data, size_t size);

/*
 * The next line of @data (@size bytes) from *@off: a malloc'ed copy without
 * its '\n', NUL-terminated (bytes after an embedded NUL are kept), its
 * length in *@len. NULL past the end.
 */
char *fuzz_next_line(const uint8_t *data, size_t size, size_t *off, size_t *len);

#endif /* UT_FUZZ_H */
