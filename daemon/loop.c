// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sd-event loop: ring-buffer events, the reconcile tick, the control
 * and agent sockets, the metrics export, signals (SIGTERM/SIGINT stop,
 * SIGHUP reloads), the service manager's STATUS= and watchdog.
 *
 * The loop is sd_event_loop()'s own (prepare, wait, dispatch) with every
 * dispatch timed: one dispatch runs one source's handler, and while it
 * runs nothing else is answered. The times go to d->loop_stats
 * (loop_stats.h), charged to the source's description (loop_source.h); a
 * dispatch over 20 ms is logged, at most one line a minute.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "agent_conn.h"
#include "control_server.h"
#include "export.h"
#include "log.h"
#include "loop.h"
#include "loop_source.h"
#include "reload.h"

/*
 * STATUS= for `systemctl status`: the mode and ring counts, e.g. "tune mode:
 * 12 rings, 3 tuned by uringtune (1 through the agent), 1 managed by apps".
 * Sent only when it changed (or with @force, which READY=1 needs after a
 * reload), so the service manager does not get a message every tick.
 * Without NOTIFY_SOCKET sd_notify() does nothing.
 */
static void notify_status(struct loop *l, const char *also, bool force)
{
	struct ut_daemon *d = l->d;
	size_t i, tuned = 0, app = 0, agent = 0;
	struct ut_ring *ring;
	char status[sizeof(l->status)];

	registry_for_each(&d->reg, i, ring) {
		if (ring->tune.managed_by == UT_MANAGED_URINGTUNE) {
			tuned++;
			agent += ring->agent.via;
		} else if (ring->tune.managed_by == UT_MANAGED_APP) {
			app++;
		}
	}
	snprintf(status, sizeof(status), "%s mode: %zu ring%s, %zu tuned by uringtune "
		 "(%zu through the agent), %zu managed by apps", config_mode_name(d->cfg.mode),
		 d->reg.count, d->reg.count == 1 ? "" : "s", tuned, agent, app);
	if (!force && !strcmp(status, l->status))
		return;
	memcpy(l->status, status, sizeof(status));
	sd_notifyf(0, "%s%sSTATUS=%s", also ? also : "", also ? "\n" : "", status);
}

static int on_events(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct loop *l = arg;

	(void)fd, (void)revents;
	loop_source_enter(s);
	daemon_events(l->d);
	return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *arg)
{
	struct loop *l = arg;

	(void)usec;
	loop_source_enter(s);
	daemon_tick(l->d);
	notify_status(l, NULL, false);
	sd_event_source_set_time_relative(s, (uint64_t)l->d->cfg.tick_ms * 1000);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* the journal's thread wrote a commit: the rings that waited for it are changed */
static int on_journal(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct loop *l = arg;

	(void)fd, (void)revents;
	loop_source_enter(s);
	lifecycle_journal_done(&l->d->lc);
	return 0;
}

/* the agent socket's messages may name rings whose events are still queued */
static void drain_events(void *arg)
{
	daemon_events(arg);
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	struct loop *l = arg;

	loop_source_enter(s);
	log_info("received %s, stopping", strsignal(si->ssi_signo));
	/* main() restores the rings once the loop has returned */
	sd_notifyf(0, "STOPPING=1\nSTATUS=stopping: restoring %zu ring%s uringtune changed",
		   l->d->lc.journal.n, l->d->lc.journal.n == 1 ? "" : "s");
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* parse, then swap (daemon_reload): a bad file leaves the running configuration in place */
static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	struct loop *l = arg;
	struct timespec now;

	(void)si;
	loop_source_enter(s);
	/*
	 * MONOTONIC_USEC is what Type=notify-reload (systemd 253+) wants with
	 * RELOADING=1; older managers ignore it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading %s",
		   (unsigned long long)now.tv_sec * 1000000ULL + now.tv_nsec / 1000,
		   l->d->config_path);
	daemon_reload(l->d);
	/* the new settings, and the reload's outcome (uringtune_config_*), in the file now */
	export_loop_kick(&l->export);
	notify_status(l, "READY=1", true);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* one sd_event_dispatch(): one source's handler, timed and charged to it */
static int dispatch_timed(struct loop *l)
{
	struct loop_stats *st = &l->d->loop_stats;
	struct loop_slow_line line;
	char msg[256];
	uint64_t t0, t1;
	unsigned int r;
	int ret;

	loop_source_clear();
	t0 = mono_ns();
	ret = sd_event_dispatch(l->event);
	t1 = mono_ns();
	/* the exit: no source ran */
	if (sd_event_get_state(l->event) == SD_EVENT_FINISHED)
		return ret;
	r = loop_stats_record(st, loop_source_current(), t0, t1 - t0);
	if (r & LOOP_STATS_LONGEST)
		st->longest_unix = time(NULL);
	if (r & LOOP_STATS_LOG) {
		loop_stats_take(st, t1, &line);
		loop_stats_format(&line, t1, msg, sizeof(msg));
		log_warn("%s", msg);
	}
	return ret;
}

/* sd_event_loop(), but with each dispatch timed; the exit code, or -errno */
static int iterate(struct loop *l)
{
	int ret, code = 0;

	while (sd_event_get_state(l->event) != SD_EVENT_FINISHED) {
		ret = sd_event_prepare(l->event);
		if (ret == 0)
			ret = sd_event_wait(l->event, UINT64_MAX);
		if (ret > 0)
			ret = dispatch_timed(l);
		if (ret < 0)
			return ret;
	}
	ret = sd_event_get_exit_code(l->event, &code);
	return ret < 0 ? ret : code;
}

/* a signal's source, described, owned by the loop */
static int add_signal(struct loop *l, int sig, sd_event_signal_handler_t fn, const char *what)
{
	sd_event_source *s;
	int ret;

	ret = sd_event_add_signal(l->event, &s, sig, fn, l);
	if (ret < 0)
		return ret;
	loop_source_describe(s, what);
	ret = sd_event_source_set_floating(s, 1);
	sd_event_source_unref(s);
	return ret;
}

static int add_sources(struct loop *l)
{
	struct ut_daemon *d = l->d;
	sd_event_source *events;
	int ret;

	if ((ret = add_signal(l, SIGTERM, on_stop, "SIGTERM")) < 0 ||
	    (ret = add_signal(l, SIGINT, on_stop, "SIGINT")) < 0 ||
	    (ret = add_signal(l, SIGHUP, on_reload, "SIGHUP")) < 0)
		return ret;
	ret = sd_event_add_io(l->event, &events, trace_events_fd(&d->trace), EPOLLIN, on_events,
			      l);
	if (ret < 0)
		return ret;
	loop_source_describe(events, "ring-events");
	sd_event_source_set_floating(events, 1);
	sd_event_source_unref(events);
	ret = sd_event_add_time_relative(l->event, &l->tick, CLOCK_MONOTONIC,
					 (uint64_t)d->cfg.tick_ms * 1000, 0, on_tick, l);
	if (ret < 0)
		return ret;
	loop_source_describe(l->tick, "tick");
	if (d->committer.fd >= 0) {
		ret = sd_event_add_io(l->event, &events, d->committer.fd, EPOLLIN, on_journal, l);
		if (ret < 0)
			return ret;
		loop_source_describe(events, "journal-commit");
		sd_event_source_set_floating(events, 1);
		sd_event_source_unref(events);
	}
	if ((ret = control_server_start(&l->control, l->event, l->control_fd,
					 l->control_group, d)) < 0 ||
	    (ret = export_loop_start(&l->export, d, l->event)) < 0)
		return ret;
	return agent_conn_start(&d->agent, l->event, drain_events, d);
}

int loop_run(struct loop *l)
{
	struct ut_daemon *d = l->d;
	int ret;

	ret = sd_event_default(&l->event);
	if (ret < 0)
		return ret;
	ret = add_sources(l);
	if (ret < 0)
		goto out;
	if ((ret = inventory_attach_loop(&d->inv, l->event)) < 0)
		goto out;

	/* BPF is attached and the journal settled (main()): ready */
	notify_status(l, "READY=1", true);
	log_info("ready: mode %s, %zu rings, control socket %s", config_mode_name(d->cfg.mode),
		 d->reg.count, d->cfg.socket_path);

	/*
	 * With WATCHDOG_USEC set (WatchdogSec=) and WATCHDOG_PID unset or ours,
	 * sd-event sends WATCHDOG=1 every half to three quarters of the
	 * interval, from sd_event_wait() in the loop itself: a stuck loop stops
	 * the pings. The first one goes out at once, after READY=1.
	 */
	ret = sd_event_set_watchdog(l->event, true);
	if (ret < 0)
		log_warn("watchdog: %s: the service manager's WatchdogSec= will not be honoured",
			 strerror(-ret));
	else if (ret > 0)
		log_info("watchdog: WATCHDOG_USEC=%s, WATCHDOG=1 sent from the event loop",
			 getenv("WATCHDOG_USEC"));

	ret = iterate(l);
out:
	control_server_stop(l->control);
	l->control = NULL;
	export_loop_stop(&l->export);
	agent_conn_stop(&d->agent);
	inventory_detach_loop(&d->inv);
	sd_event_source_unref(l->tick);
	l->event = sd_event_unref(l->event);
	return ret;
}
