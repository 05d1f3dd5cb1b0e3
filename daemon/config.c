// SPDX-License-Identifier: GPL-2.0-only
/*
 * config/uringtune.ini: a table of keys, each with its parser, read with
 * ini_reader.c. Strict on purpose: a typo in a tuning daemon's configuration
 * must stop it, not be silently ignored, so any unknown section or key,
 * duplicate, empty or bad value refuses the whole file, as do [napi]
 * timeouts out of order (checked once the whole file is read). User names in
 * [select] are resolved to uids while parsing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "agent_abi.h"
#include "config.h"
#include "config_parse.h"
#include "ini_reader.h"
#include "log.h"

#define DEFAULT_SOCKET		"/run/uringtune/uringtune.sock"
#define DEFAULT_STATE_DIR	"/var/lib/uringtune"
/* what Debian's prometheus-node-exporter reads (--collector.textfile.directory) */
#define DEFAULT_TEXTFILE_DIR	"/var/lib/prometheus/node-exporter"
#define DEFAULT_AGENT_PAGE	"/run/uringtune/agent.page"

#define FIELD(f)	.offset = offsetof(struct ut_config, f), \
			.size = sizeof(((struct ut_config *)0)->f)
/* a [select] list: the array f, its count n_f, UT_SELECT_MAX elements */
#define LIST(f)		FIELD(select.f), \
			.count = offsetof(struct ut_config, select.n_##f), \
			.max = UT_SELECT_MAX

/* an enum field, its values' names in @names */
#define ENUM(f, n)	FIELD(f), .names = n

/* an [agent] list of process names */
#define AGENT_LIST(f)	FIELD(agent.f), \
			.count = offsetof(struct ut_config, agent.n_##f), \
			.max = UT_SELECT_MAX

static const char *const iopoll_stats_names[] = {
	[UT_IOPOLL_AUTO] = "auto",
	[UT_IOPOLL_ALWAYS] = "always",
	[UT_IOPOLL_OFF] = "off",
	NULL
};

static const char *const tracking_names[] = {
	[TUNER_TRACK_DYNAMIC] = "dynamic",
	[TUNER_TRACK_STATIC] = "static",
	[TUNER_TRACK_AUTO] = "auto",
	NULL
};

/* error messages list sections and keys in this order */
static const struct config_key config_keys[] = {
	{ "daemon", "mode", config_parse_enum, ENUM(mode, config_mode_names),
	  .doc = "observe only watches rings; tune also changes their NAPI settings" },
	{ "daemon", "socket", config_parse_path, FIELD(socket_path),
	  .doc = "unix socket the uringtune CLI talks to" },
	{ "daemon", "state_dir", config_parse_path, FIELD(state_dir),
	  .doc = "directory for state kept across restarts" },
	{ "daemon", "tick_ms", config_parse_uint, FIELD(tick_ms), .min = 50, .max = 60000,
	  .doc = "how often the ring registry is reconciled with the kernel" },
	{ "daemon", "max_rings", config_parse_uint, FIELD(max_rings),
	  .min = 64, .max = 1048576,
	  .doc = "capacity of the BPF map of rings" },
	{ "daemon", "log_level", config_parse_log_level, FIELD(log_level),
	  .doc = "least severe message logged" },
	{ "daemon", "iopoll_stats", config_parse_enum,
	  ENUM(iopoll_stats, iopoll_stats_names),
	  .doc = "when to time IOPOLL requests: auto, always or off" },

	/* the kernel caps a ring's busy_poll_to at 10 ms */
	{ "napi", "min_busy_poll_us", config_parse_uint, FIELD(napi.min_us),
	  .min = 1, .max = 10000,
	  .doc = "shortest busy-poll timeout the tuner gives a ring" },
	{ "napi", "max_busy_poll_us", config_parse_uint, FIELD(napi.max_us),
	  .min = 1, .max = 10000,
	  .doc = "longest busy-poll timeout the tuner gives a ring" },
	{ "napi", "initial_busy_poll_us", config_parse_uint, FIELD(napi.initial_us),
	  .min = 1, .max = 10000,
	  .doc = "timeout a ring gets when it is first tuned" },
	{ "napi", "prefer_busy_poll", config_parse_bool, FIELD(napi.prefer),
	  .doc = "the rings' prefer_busy_poll flag" },
	{ "napi", "tracking", config_parse_enum, ENUM(napi.tracking, tracking_names),
	  .doc = "how the kernel learns which NAPI instances a ring polls" },
	{ "napi", "static_after_s", config_parse_uint, FIELD(napi.static_after_s),
	  .min = 1, .max = 86400,
	  .doc = "auto tracking: NAPI IDs unchanged this long make it static" },
	{ "napi", "min_efficiency", config_parse_decimal, FIELD(napi.min_efficiency),
	  .min = 0, .max = 100,
	  .doc = "latency saved per unit of CPU spun below which NAPI goes off" },
	{ "napi", "wakeup_cost_us", config_parse_uint, FIELD(napi.wakeup_cost_us),
	  .min = 1, .max = 10000,
	  .doc = "latency one avoided sleep saves" },
	{ "napi", "min_windows", config_parse_uint, FIELD(napi.min_windows),
	  .min = 1, .max = 100000000,
	  .doc = "busy-poll windows of evidence needed before a decision" },
	{ "napi", "settle_s", config_parse_uint, FIELD(napi.settle_s),
	  .min = 0, .max = 86400,
	  .doc = "least time between two changes of a ring" },
	{ "napi", "retry_s", config_parse_uint, FIELD(napi.retry_s),
	  .min = 1, .max = 86400,
	  .doc = "how long NAPI stays off before it is tried again" },
	{ "napi", "change_pct", config_parse_uint, FIELD(napi.change_pct),
	  .min = 1, .max = 1000,
	  .doc = "timeout changes of at most this many percent are skipped" },
	{ "napi", "quantile_pct", config_parse_uint, FIELD(napi.quantile_pct),
	  .min = 50, .max = 100,
	  .doc = "percentage of paid-off windows the timeout covers" },
	{ "napi", "headroom_pct", config_parse_uint, FIELD(napi.headroom_pct),
	  .min = 0, .max = 1000,
	  .doc = "added on top of that quantile" },

	{ "export", "textfile", config_parse_bool, FIELD(export_textfile),
	  .doc = "write metrics for node_exporter's textfile collector" },
	{ "export", "textfile_dir", config_parse_path, FIELD(textfile_dir),
	  .doc = "directory node_exporter's textfile collector reads" },

	{ "select", "include_comm", config_parse_comms, LIST(include_comm),
	  .doc = "only processes with these names" },
	{ "select", "exclude_comm", config_parse_comms, LIST(exclude_comm),
	  .doc = "never processes with these names" },
	{ "select", "include_uid", config_parse_uids, LIST(include_uid),
	  .doc = "only processes of these users" },
	{ "select", "exclude_uid", config_parse_uids, LIST(exclude_uid),
	  .doc = "never processes of these users" },
	{ "select", "include_cgroup", config_parse_cgroups, LIST(include_cgroup),
	  .doc = "only processes in these cgroups" },
	{ "select", "exclude_cgroup", config_parse_cgroups, LIST(exclude_cgroup),
	  .doc = "never processes in these cgroups" },

	{ "agent", "enabled", config_parse_bool, FIELD(agent.enabled),
	  .doc = "answer liburingtune-agent.so at ring setup" },
	{ "agent", "socket", config_parse_path, FIELD(agent.socket_path),
	  .doc = "unix socket the agents ask" },
	{ "agent", "page", config_parse_path, FIELD(agent.page_path),
	  .doc = "policy page the agents map read-only" },
	{ "agent", "hybrid_comm", config_parse_comms, AGENT_LIST(hybrid_comm),
	  .doc = "processes whose IOPOLL rings get HYBRID_IOPOLL" },
	{ "agent", "hybrid_auto_comm", config_parse_comms, AGENT_LIST(hybrid_auto_comm),
	  .doc = "processes whose IOPOLL rings get it when the advisor says so" },
	{ "agent", "napi_comm", config_parse_comms, AGENT_LIST(napi_comm),
	  .doc = "processes whose SINGLE_ISSUER rings get NAPI busy polling" },
};

/* a file being loaded */
struct load_ctx {
	struct ut_config cfg;
	unsigned int set_on[ARRAY_SIZE(config_keys)];	/* line, 0 = not set */
};

void config_defaults(struct ut_config *cfg)
{
	/* zero the padding too, so configurations compare with memcmp() */
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = UT_MODE_OBSERVE;
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s", DEFAULT_SOCKET);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", DEFAULT_STATE_DIR);
	cfg->tick_ms = 1000;
	cfg->max_rings = 16384;
	cfg->log_level = LOG_INFO;

	cfg->napi.min_us = 10;
	cfg->napi.max_us = 200;
	cfg->napi.initial_us = 50;
	cfg->napi.prefer = false;
	cfg->napi.tracking = TUNER_TRACK_AUTO;
	cfg->napi.static_after_s = 30;
	cfg->napi.min_efficiency = 0.2;
	cfg->napi.wakeup_cost_us = 10;
	cfg->napi.min_windows = 1000;
	cfg->napi.settle_s = 5;
	cfg->napi.retry_s = 60;
	cfg->napi.change_pct = 25;
	cfg->napi.quantile_pct = 95;
	cfg->napi.headroom_pct = 50;
	/* cfg->select: every list empty, everyone is selected */

	cfg->export_textfile = true;
	snprintf(cfg->textfile_dir, sizeof(cfg->textfile_dir), "%s", DEFAULT_TEXTFILE_DIR);

	cfg->agent.enabled = true;
	snprintf(cfg->agent.socket_path, sizeof(cfg->agent.socket_path), "%s", UT_AGENT_SOCKET);
	snprintf(cfg->agent.page_path, sizeof(cfg->agent.page_path), "%s", DEFAULT_AGENT_PAGE);
	/* cfg->agent lists: empty, only uringtune exec's flags ask for anything */
}

const char *const config_mode_names[] = {
	[UT_MODE_OBSERVE] = "observe",
	[UT_MODE_TUNE] = "tune",
	NULL
};

const char *config_mode_name(enum ut_mode mode)
{
	/* the last entry is the NULL that ends the table */
	if ((unsigned int)mode >= ARRAY_SIZE(config_mode_names) - 1)
		return "unknown";
	return config_mode_names[mode];
}

int config_mode_from_name(const char *name, enum ut_mode *mode)
{
	int v = config_enum_from_name(config_mode_names, name);

	if (v < 0)
		return v;
	*mode = v;
	return 0;
}

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
	return section_in(name, len, ARRAY_SIZE(config_keys));
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
	for (size_t i = 0; i < ARRAY_SIZE(config_keys); i++) {
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
	for (int i = 0; i < (int)ARRAY_SIZE(config_keys); i++)
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
