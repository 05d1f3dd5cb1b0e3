// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtuned's configuration: the defaults and the names of its modes.
 * Reading config/uringtune.ini is config_load.c's; its keys are
 * config_keys.c's, their parsers config_parse.c's and config_lists.c's.
 */
#include <stdio.h>
#include <string.h>

#include "agent_abi.h"
#include "config.h"
#include "config_parse.h"
#include "log.h"
#include "paths.h"

#define DEFAULT_STATE_DIR	"/var/lib/uringtune"
/* what Debian's prometheus-node-exporter reads (--collector.textfile.directory) */
#define DEFAULT_TEXTFILE_DIR	"/var/lib/prometheus/node-exporter"
#define DEFAULT_AGENT_PAGE	"/run/uringtune/agent.page"
#define DEFAULT_AGENT_SLOTS_PER_UID	64

void config_defaults(struct ut_config *cfg)
{
	/* zero the padding too, so configurations compare with memcmp() */
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = UT_MODE_OBSERVE;
	snprintf(cfg->socket_path, sizeof(cfg->socket_path), "%s", UT_CONTROL_SOCKET);
	snprintf(cfg->status_group, sizeof(cfg->status_group), "%s", UT_STATUS_GROUP);
	snprintf(cfg->state_dir, sizeof(cfg->state_dir), "%s", DEFAULT_STATE_DIR);
	cfg->tick_ms = 1000;
	cfg->sweep_cpu_pct = 0.1;
	cfg->max_rings = 16384;
	cfg->log_level = LOG_INFO;

	cfg->napi.min_us = 10;
	cfg->napi.max_us = 200;
	cfg->napi.initial_us = 50;
	cfg->napi.prefer = false;
	cfg->napi.tracking = TUNER_TRACK_AUTO;
	cfg->napi.static_after_s = 30;
	cfg->napi.min_efficiency = 0.2;
	cfg->napi.wakeup_cost_us = 0;	/* measured */
	cfg->napi.min_windows = 1000;
	cfg->napi.settle_s = 5;
	cfg->napi.retry_s = 60;
	cfg->napi.change_pct = 25;
	cfg->napi.quantile_pct = 95;
	cfg->napi.headroom_pct = 50;
	/* cfg->select: every list empty, everyone is selected */

	cfg->export_textfile = true;
	/* Prometheus' usual scrape_interval: each scrape a new file, none written unread */
	cfg->export_interval_s = 15;
	/* fleet-safe: 35 series per busy-polling ring is for one host's debugging */
	cfg->export_ring_histograms = false;
	snprintf(cfg->textfile_dir, sizeof(cfg->textfile_dir), "%s", DEFAULT_TEXTFILE_DIR);

	cfg->agent.enabled = true;
	snprintf(cfg->agent.socket_path, sizeof(cfg->agent.socket_path), "%s", UT_AGENT_SOCKET);
	snprintf(cfg->agent.page_path, sizeof(cfg->agent.page_path), "%s", DEFAULT_AGENT_PAGE);
	cfg->agent.slots_per_uid = DEFAULT_AGENT_SLOTS_PER_UID;
	/* hybrid where it saves a quarter of the CPU per read for at most a tenth of the IOPS */
	cfg->agent.hybrid_min_saving = 0.25;
	cfg->agent.hybrid_max_loss = 0.10;
	/* cfg->agent lists: empty, only uringtune exec's flags ask for anything */
}

