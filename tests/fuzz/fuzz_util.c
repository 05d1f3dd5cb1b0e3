// SPDX-License-Identifier: GPL-2.0-only
/* The fuzz targets' helpers: see fuzz.h. */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char tmpdir[PATH_MAX];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void remove_tmpdir(void)
{
	nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/uringtune-fuzz.XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		abort();
	}
	atexit(remove_tmpdir);
	return tmpdir;
}

void fuzz_write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	close(fd);
}

char *fuzz_next_line(const uint8_t *data, size_t size, size_t *off, size_t *len)
{
	const uint8_t *nl;
	char *line;

	if (*off >= size)
		return NULL;
	nl = memchr(data + *off, '\n', size - *off);
	*len = (nl ? (size_t)(nl - data) : size) - *off;
	line = malloc(*len + 1);
	FUZZ_CHECK(line);
	memcpy(line, data + *off, *len);
	line[*len] = '\0';
	*off += *len + (nl ? 1 : 0);
	return line;
}
