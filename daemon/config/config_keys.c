// SPDX-License-Identifier: GPL-2.0-only
/* config/uringtune.ini's keys: config_keys.h */
#include <stddef.h>

#include "agent_abi.h"
#include "config.h"
#include "config_keys.h"

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

/* error messages list sections and keys in this order */
const struct config_key config_keys[] = {
	{ "daemon", "mode", config_parse_enum, ENUM(mode, config_mode_names),
	  .doc = "observe only watches rings; tune also changes their NAPI settings" },
	{ "daemon", "socket", config_parse_path, FIELD(socket_path),
	  .doc = "unix socket the uringtune CLI talks to" },
	{ "daemon", "status_group", config_parse_group, FIELD(status_group),
	  .doc = "group whose members may read status (the socket is theirs too); empty: root only" },
	{ "daemon", "state_dir", config_parse_path, FIELD(state_dir),
	  .doc = "directory for state kept across restarts" },
	{ "daemon", "tick_ms", config_parse_uint, FIELD(tick_ms), .min = 50, .max = 60000,
	  .doc = "how often statistics are read and the tuner decides" },
	{ "daemon", "sweep_cpu_pct", config_parse_decimal, FIELD(sweep_cpu_pct),
	  .min = 0, .max = 10,
	  .doc = "CPU share (% of one core) the full host sweep may use, averaged" },
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
	{ "napi", "tracking", config_parse_enum, ENUM(napi.tracking, tuner_tracking_names),
	  .doc = "how the kernel learns which NAPI instances a ring polls" },
	{ "napi", "static_after_s", config_parse_uint, FIELD(napi.static_after_s),
	  .min = 1, .max = 86400,
	  .doc = "auto tracking: NAPI IDs unchanged this long make it static" },
	{ "napi", "min_efficiency", config_parse_decimal, FIELD(napi.min_efficiency),
	  .min = 0, .max = 100,
	  .doc = "latency saved per unit of CPU spun below which NAPI goes off" },
	{ "napi", "wakeup_cost_us", config_parse_uint, FIELD(napi.wakeup_cost_us),
	  .min = 0, .max = 10000,
	  .doc = "latency one avoided sleep saves; 0: measured on this host" },
	{ "napi", "min_windows", config_parse_uint, FIELD(napi.min_windows),
	  .min = 1, .max = 100000000,
	  .doc = "busy-poll windows of evidence needed before a decision" },
	{ "napi", "settle_s", config_parse_uint, FIELD(napi.settle_s),
	  .min = 0, .max = 86400,
	  .doc = "least time between two changes of a ring" },
	{ "napi", "retry_s", config_parse_uint, FIELD(napi.retry_s),
	  .min = 1, .max = 86400,
	  .doc = "how long NAPI first stays off before a retry (then doubled, to 1 h)" },
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
	{ "export", "interval_s", config_parse_uint, FIELD(export_interval_s),
	  .min = 1, .max = 3600,
	  .doc = "how often the metrics file is rewritten" },
	{ "export", "ring_histograms", config_parse_bool, FIELD(export_ring_histograms),
	  .doc = "a histogram of paid busy-poll windows per ring, beside the host's" },

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
	{ "agent", "slots_per_uid", config_parse_uint, FIELD(agent.slots_per_uid),
	  .min = 1, .max = UT_AGENT_PAGE_SLOTS,
	  .doc = "policy-page slots (rings set up through agents) one user may hold" },
	{ "agent", "hybrid_comm", config_parse_comms, AGENT_LIST(hybrid_comm),
	  .doc = "processes whose IOPOLL rings get HYBRID_IOPOLL" },
	{ "agent", "hybrid_auto_comm", config_parse_comms, AGENT_LIST(hybrid_auto_comm),
	  .doc = "processes whose IOPOLL rings get it when the advisor says so" },
	{ "agent", "napi_comm", config_parse_comms, AGENT_LIST(napi_comm),
	  .doc = "processes whose SINGLE_ISSUER rings get NAPI busy polling" },
	{ "agent", "hybrid_min_saving", config_parse_decimal, FIELD(agent.hybrid_min_saving),
	  .min = 0, .max = 1,
	  .doc = "hybrid = auto: least CPU per read hybrid must save (0.25: 25%)" },
	{ "agent", "hybrid_max_loss", config_parse_decimal, FIELD(agent.hybrid_max_loss),
	  .min = 0, .max = 1,
	  .doc = "hybrid = auto: most IOPS hybrid may lose (0.10: 10%)" },
};

_Static_assert(ARRAY_SIZE(config_keys) == CONFIG_NR_KEYS,
	       "CONFIG_NR_KEYS is not the number of keys in config_keys[]");
