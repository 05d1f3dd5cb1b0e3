/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * uringtuned's configuration: config/uringtune.ini parsed with libinih.
 * Parsing is all-or-nothing: a file with any error leaves *out untouched, so
 * a reload can keep the running configuration (parse, then swap).
 */
#ifndef UT_CONFIG_H
#define UT_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/un.h>

#include "name_table.h"
#include "tuner.h"

enum ut_mode {
	UT_MODE_OBSERVE,	/* watch and report, change nothing */
	UT_MODE_TUNE,		/* also act on rings */
};

#define UT_SELECT_MAX		16
#define UT_CGROUP_PATH_MAX	256

/*
 * Which processes' rings uringtune may tune. A ring is selected when no
 * include rule is set or any include rule matches, and no exclude rule
 * matches. cgroups match by path prefix at a '/' boundary ("/system.slice"
 * matches "/system.slice/nginx.service", not "/system.slice2").
 */
struct ut_select {
	char include_comm[UT_SELECT_MAX][16];
	unsigned int n_include_comm;
	char exclude_comm[UT_SELECT_MAX][16];
	unsigned int n_exclude_comm;
	uid_t include_uid[UT_SELECT_MAX];
	unsigned int n_include_uid;
	uid_t exclude_uid[UT_SELECT_MAX];
	unsigned int n_exclude_uid;
	char include_cgroup[UT_SELECT_MAX][UT_CGROUP_PATH_MAX];
	unsigned int n_include_cgroup;
	char exclude_cgroup[UT_SELECT_MAX][UT_CGROUP_PATH_MAX];
	unsigned int n_exclude_cgroup;
};

enum ut_iopoll_stats_mode {
	UT_IOPOLL_AUTO,		/* trace requests while IOPOLL rings exist */
	UT_IOPOLL_ALWAYS,	/* always: exact from a ring's first request */
	UT_IOPOLL_OFF,
};

/*
 * [agent]: the in-process agent (liburingtune-agent.so) asks at ring setup.
 * Programs started by `uringtune exec` say what they want; these rules are
 * for programs that load the agent some other way (LD_PRELOAD in a unit's
 * Environment=), by process name. exec's flags win over them.
 */
struct ut_agent_cfg {
	bool enabled;			/* listen on the agent socket at all */
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char page_path[PATH_MAX];	/* the policy page agents map */
	char hybrid_comm[UT_SELECT_MAX][16];	/* HYBRID_IOPOLL on their IOPOLL rings */
	unsigned int n_hybrid_comm;
	char hybrid_auto_comm[UT_SELECT_MAX][16];	/* ... as the IOPOLL advisor says */
	unsigned int n_hybrid_auto_comm;
	char napi_comm[UT_SELECT_MAX][16];	/* NAPI on their SINGLE_ISSUER rings */
	unsigned int n_napi_comm;
	unsigned int slots_per_uid;	/* policy-page slots one user may hold */
	/* hybrid = auto: the bounds a program's hybrid rings must keep (hybrid_auto.h) */
	double hybrid_min_saving;	/* CPU per read saved, at least (0..1) */
	double hybrid_max_loss;		/* IOPS lost, at most (0..1) */
};

struct ut_config {
	enum ut_mode mode;
	char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	/* members may read status over the socket; "": root only (control_access.h) */
	char status_group[32];
	char state_dir[PATH_MAX];
	unsigned int tick_ms;		/* statistics, decisions, holder checks */
	double sweep_cpu_pct;		/* the full host sweep's budget, % of one core */
	unsigned int max_rings;		/* capacity of the BPF ring map */
	int log_level;			/* LOG_ERR .. LOG_DEBUG */
	enum ut_iopoll_stats_mode iopoll_stats;
	struct tuner_policy napi;	/* [napi] */
	struct ut_select select;	/* [select] */
	struct ut_agent_cfg agent;	/* [agent] */
	/* [export]: Prometheus textfile for node_exporter (daemon/report/export.c) */
	bool export_textfile;		/* textfile */
	unsigned int export_interval_s;	/* interval_s: how often the file is rewritten */
	bool export_ring_histograms;	/* ring_histograms: a histogram per ring too */
	/* room for "/.uringtune.prom.XXXXXX" after it within PATH_MAX */
	char textfile_dir[PATH_MAX - 32];	/* textfile_dir */
};

void config_defaults(struct ut_config *cfg);

/*
 * Parse @path over the defaults. On error returns a negative errno, leaves
 * *out unchanged and writes one line to @err: "PATH: [section] key: what is
 * wrong" (or "PATH: what is wrong" for file-level problems).
 */
int config_load(const char *path, struct ut_config *out, char *err, size_t errlen);

/*
 * Names of the enum values (config_names.c): one table each, NULL after
 * the last, which config_keys.c also parses with; both directions from it.
 * from_name returns -EINVAL for a name that is none of them, name
 * "unknown" for such a value.
 */
extern const char *const config_mode_names[];
extern const char *const iopoll_stats_names[];
extern const char *const tuner_tracking_names[];
UT_NAME_TABLE_DECLARE(config_mode, enum ut_mode);		/* observe, tune */
UT_NAME_TABLE_DECLARE(iopoll_stats, enum ut_iopoll_stats_mode);	/* auto, always, off */
UT_NAME_TABLE_DECLARE(tuner_tracking, enum tuner_tracking);	/* dynamic, static, auto */

#endif /* UT_CONFIG_H */
