// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_load(): config/uringtune.ini read by ini_reader.c, each key found in
 * config_keys[] and parsed by its typed parser into a copy of the defaults.
 * Strict on purpose: a typo in a tuning daemon's configuration must stop it,
 * not be silently ignored, so any unknown section or key, duplicate, empty
 * or bad value refuses the whole file, as do [napi] timeouts out of order
 * (checked once the whole file is read).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "config_keys.h"
#include "ini_reader.h"

/* a file being loaded */
struct load_ctx {
	struct ut_config cfg;
	unsigned int set_on[CONFIG_NR_KEYS];	/* line, 0 = not set */
};

/* is @name (@len bytes, not terminated) the section of one of the first @nr keys */
static bool section_in(const char *name, size_t len, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		if (strlen(config_keys[i].section) == len &&
		    strncmp(config_keys[i].section, name, len) == 0)
			return true;
	return false;
}

static bool section_known(const char *name, size_t len)
{
	return section_in(name, len, CONFIG_NR_KEYS);
}

static bool section_known_before(const char *name, size_t nr)
{
	return section_in(name, strlen(name), nr);
}

/* "a, b, c": the known sections, or the known keys of @section */
static const char *known_list(char *buf, size_t len, const char *section)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < CONFIG_NR_KEYS; i++) {
		const struct config_key *k = &config_keys[i];
		const char *item;
		int n;

		if (section) {
			if (strcmp(k->section, section))
				continue;
			item = k->name;
		} else {
			/* each section once, where its first key is */
			if (section_known_before(k->section, i))
				continue;
			item = k->section;
		}
		n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", item);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	return buf;
}

static void unknown_section(struct ini_reader_ctx *ini, const char *name, int len)
{
	char known[512];

	ini_reader_error(ini, -EINVAL, "[%.*s]: unknown section (known sections: %s)",
			 len, name, known_list(known, sizeof(known), NULL));
}

/* the index of [@section] @name in config_keys[], -1 if there is no such key */
static int key_find(const char *section, const char *name)
{
	for (int i = 0; i < CONFIG_NR_KEYS; i++)
		if (strcmp(config_keys[i].section, section) == 0 &&
		    strcmp(config_keys[i].name, name) == 0)
			return i;
	return -1;
}

/* a "[name]" header: refused at once if no key lives there */
static void on_section(struct ini_reader_ctx *ini, void *user, const char *name,
		       size_t len)
{
	(void)user;
	if (!section_known(name, len))
		unknown_section(ini, name, (int)len);
}

static void on_key(struct ini_reader_ctx *ini, void *user, const char *section,
		   const char *name, const char *value)
{
	struct load_ctx *ctx = user;
	const struct config_key *key;
	char why[512];
	int i;

	if (!section[0]) {
		char known[512];

		ini_reader_error(ini, -EINVAL,
				 "%s: key before any [section] (known sections: %s)",
				 name, known_list(known, sizeof(known), NULL));
		return;
	}
	if (!section_known(section, strlen(section))) {
		unknown_section(ini, section, (int)strlen(section));
		return;
	}
	if (!name[0]) {
		ini_reader_error(ini, -EINVAL, "[%s]: expected a key before '=', got '= %s'",
				 section, value);
		return;
	}
	i = key_find(section, name);
	if (i < 0) {
		char known[512];

		ini_reader_error(ini, -EINVAL, "[%s] %s: unknown key (known keys: %s)",
				 section, name, known_list(known, sizeof(known), section));
		return;
	}
	if (ctx->set_on[i]) {
		ini_reader_error(ini, -EINVAL, "[%s] %s: duplicate key, already set on line %u",
				 section, name, ctx->set_on[i]);
		return;
	}
	ctx->set_on[i] = ini_reader_lineno(ini);
	key = &config_keys[i];
	if (key->parse(key, value, (char *)&ctx->cfg + key->offset, why, sizeof(why)))
		ini_reader_error(ini, -EINVAL, "[%s] %s: %s", section, name, why);
}

/* " (the default)" if [@section] @name was not set in the file */
static const char *if_default(const struct load_ctx *ctx, const char *section,
			      const char *name)
{
	int i = key_find(section, name);

	return i >= 0 && !ctx->set_on[i] ? " (the default)" : "";
}

/* checks across keys, once the whole file is read */
static void check_napi(struct ini_reader_ctx *ini, void *user)
{
	const struct load_ctx *ctx = user;
	const struct tuner_policy *napi = &ctx->cfg.napi;

	if (napi->min_us > napi->max_us) {
		ini_reader_error(ini, -EINVAL, "[napi] max_busy_poll_us: expected at least "
				 "min_busy_poll_us (%u), got %u%s", napi->min_us, napi->max_us,
				 if_default(ctx, "napi", "max_busy_poll_us"));
	} else if (napi->initial_us < napi->min_us || napi->initial_us > napi->max_us) {
		ini_reader_error(ini, -EINVAL, "[napi] initial_busy_poll_us: expected a value "
				 "from min_busy_poll_us (%u) to max_busy_poll_us (%u), got %u%s",
				 napi->min_us, napi->max_us, napi->initial_us,
				 if_default(ctx, "napi", "initial_busy_poll_us"));
	}
}

static const struct ini_reader_ops config_ini_ops = {
	.section = on_section,
	.key = on_key,
	.done = check_napi,
};

int config_load(const char *path, struct ut_config *out, char *err, size_t errlen)
{
	struct load_ctx ctx = { 0 };
	int ret;

	/* parse into a copy: *out changes only if the whole file is good */
	config_defaults(&ctx.cfg);
	ret = ini_reader_parse(path, &config_ini_ops, &ctx, err, errlen);
	if (!ret)
		*out = ctx.cfg;
	return ret;
}
