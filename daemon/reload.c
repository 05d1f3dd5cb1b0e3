// SPDX-License-Identifier: GPL-2.0-only
/*
 * SIGHUP: parse, then swap. A bad file leaves the running configuration in
 * place, and the outcome is kept for status and metrics either way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon.h"
#include "log.h"
#include "reload.h"

/* what only a start can change keeps its running value; said once per reload */
static void keep_start_only(const struct ut_config *cur, struct ut_config *next)
{
	if (strcmp(next->socket_path, cur->socket_path) || next->max_rings != cur->max_rings ||
	    strcmp(next->status_group, cur->status_group) ||
	    strcmp(next->state_dir, cur->state_dir) ||
	    next->agent.enabled != cur->agent.enabled ||
	    strcmp(next->agent.socket_path, cur->agent.socket_path) ||
	    strcmp(next->agent.page_path, cur->agent.page_path))
		log_warn("reload: socket, status_group, state_dir, max_rings and [agent] enabled, "
			 "socket and page take effect at the next start");
	if (next->mode != cur->mode) {
		log_warn("reload: mode change to %s takes effect at the next start",
			 config_mode_name(next->mode));
		next->mode = cur->mode;
	}
	memcpy(next->socket_path, cur->socket_path, sizeof(next->socket_path));
	memcpy(next->status_group, cur->status_group, sizeof(next->status_group));
	memcpy(next->state_dir, cur->state_dir, sizeof(next->state_dir));
	next->max_rings = cur->max_rings;
	next->agent.enabled = cur->agent.enabled;
	memcpy(next->agent.socket_path, cur->agent.socket_path, sizeof(next->agent.socket_path));
	memcpy(next->agent.page_path, cur->agent.page_path, sizeof(next->agent.page_path));
}

int daemon_reload(struct ut_daemon *d)
{
	static struct ut_config next;	/* big: PATH_MAX buffers */
	char err[sizeof(d->reload.error)];

	if (config_load(d->config_path, &next, err, sizeof(err))) {
		log_err("reload refused, keeping the running configuration: %s", err);
		reload_note(&d->reload, time(NULL), err);
		return -EINVAL;
	}
	keep_start_only(&d->cfg, &next);
	d->cfg = next;
	log_set_level(d->verbose ? LOG_DEBUG : d->cfg.log_level);
	reload_note(&d->reload, time(NULL), NULL);
	log_info("configuration reloaded from %s", d->config_path);
	/* rings the new [select] no longer picks go back as they were */
	lifecycle_reselect(&d->lc);
	return 0;
}
