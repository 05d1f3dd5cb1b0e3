// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_load() on any file: what uringtuned reads at start, on reload and
 * (uringtuned --check-config) before a reload. The file is a memfd reached
 * through /proc/self/fd, so the real path of the code runs: fopen, getline,
 * libinih. What must hold besides no crash and no leak:
 *   - refused: -EINVAL (or another negative errno), *out untouched (parse,
 *     then swap), one non-empty line in err that starts with the path;
 *   - loaded: err empty, every field within what its key allows (strings
 *     terminated, lists within their capacity, numbers within [min, max],
 *     [napi] min <= initial <= max), and the same file loads the same again.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "config_keys.h"
#include "fuzz.h"
#include "log.h"

#define SENTINEL	0xa5

static int memfd = -1;
static char path[64];
/* big (PATH_MAX strings): not on the stack */
static struct ut_config out, again, untouched;

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* a list key's elements: names or cgroups (strings), or uids */
static void check_list(const struct config_key *k, const char *field, unsigned int n)
{
	size_t elem = k->size / k->max;

	FUZZ_CHECK(n <= k->max);
	if (k->parse == config_parse_uids)
		return;
	for (unsigned int i = 0; i < n; i++)
		FUZZ_CHECK(terminated(field + i * elem, elem) && field[i * elem]);
}

static void check_key(const struct ut_config *cfg, const struct config_key *k)
{
	const char *field = (const char *)cfg + k->offset;

	if (k->parse == config_parse_uint) {
		unsigned int v;

		memcpy(&v, field, sizeof(v));
		FUZZ_CHECK(v >= k->min && v <= k->max);
	} else if (k->parse == config_parse_decimal) {
		double v;

		memcpy(&v, field, sizeof(v));
		FUZZ_CHECK(isfinite(v) && v >= (double)k->min && v <= (double)k->max);
	} else if (k->parse == config_parse_bool) {
		FUZZ_CHECK(field[0] == 0 || field[0] == 1);
	} else if (k->parse == config_parse_enum) {
		int v, n = 0;

		memcpy(&v, field, sizeof(v));
		while (k->names[n])
			n++;
		FUZZ_CHECK(v >= 0 && v < n);
	} else if (k->parse == config_parse_log_level) {
		int v;

		memcpy(&v, field, sizeof(v));
		FUZZ_CHECK(v >= LOG_ERR && v <= LOG_DEBUG);
	} else if (k->parse == config_parse_path) {
		FUZZ_CHECK(terminated(field, k->size) && field[0] == '/');
	} else if (k->count) {
		unsigned int n;

		memcpy(&n, (const char *)cfg + k->count, sizeof(n));
		check_list(k, field, n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];
	size_t plen;
	int ret;

	if (memfd < 0) {
		log_set_level(LOG_DEBUG);
		memfd = memfd_create("uringtune.ini", MFD_CLOEXEC);
		FUZZ_CHECK(memfd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	FUZZ_CHECK(ftruncate(memfd, 0) == 0);
	FUZZ_CHECK(size == 0 || pwrite(memfd, data, size, 0) == (ssize_t)size);

	memset(&out, SENTINEL, sizeof(out));
	memset(&untouched, SENTINEL, sizeof(untouched));
	ret = config_load(path, &out, err, sizeof(err));
	FUZZ_CHECK(ret <= 0);
	FUZZ_CHECK(terminated(err, sizeof(err)));
	if (ret) {
		plen = strlen(path);
		FUZZ_CHECK(memcmp(&out, &untouched, sizeof(out)) == 0);
		FUZZ_CHECK(strncmp(err, path, plen) == 0 && strncmp(err + plen, ": ", 2) == 0);
		FUZZ_CHECK(err[plen + 2] != '\0' && !strchr(err, '\n'));
		return 0;
	}
	FUZZ_CHECK(err[0] == '\0');
	for (size_t i = 0; i < CONFIG_NR_KEYS; i++)
		check_key(&out, &config_keys[i]);
	FUZZ_CHECK(out.napi.min_us <= out.napi.initial_us);
	FUZZ_CHECK(out.napi.initial_us <= out.napi.max_us);

	memset(&again, 0, sizeof(again));
	FUZZ_CHECK(config_load(path, &again, err, sizeof(err)) == 0);
	FUZZ_CHECK(memcmp(&out, &again, sizeof(out)) == 0);
	return 0;
}
