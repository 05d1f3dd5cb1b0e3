// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtuned: lifecycle. Parse arguments and configuration, check
 * privileges, load the BPF programs, take the first inventory, then run the
 * sd-event loop: ring-buffer events, a reconcile tick, the control socket and
 * signals (SIGTERM/SIGINT stop, SIGHUP reloads).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "control.h"
#include "daemon.h"
#include "inventory.h"
#include "export.h"
#include "log.h"
#include "tuning.h"

#define DEFAULT_CONFIG	"/etc/uringtune/uringtune.ini"

struct loop {
	struct ut_daemon *d;
	sd_event *event;
	sd_event_source *tick;
	int control_fd;
	char status[128];	/* last STATUS= sent to the service manager */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uringtuned [-c FILE] [--foreground] [--mode observe|tune] [-v]\n"
		"\n"
		"Watches every io_uring ring on the host with BPF and tunes NAPI busy polling.\n"
		"\n"
		"  -c, --config FILE   configuration (default " DEFAULT_CONFIG ")\n"
		"      --foreground    run in the foreground (the only way it runs; for systemd\n"
		"                      Type=notify and for terminals alike)\n"
		"      --mode MODE     observe (watch only) or tune; overrides the file's mode\n"
		"  -v, --verbose       log at debug level\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n");
}

/* CAP_BPF and CAP_PERFMON load tracing programs (CAP_SYS_ADMIN implies both) */
static bool has_bpf_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
#define HAS(cap) (eff & (1ULL << (cap)))
	return HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON));
#undef HAS
}

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
	int ret;

	(void)s, (void)fd, (void)revents;
	ret = trace_consume(&l->d->trace);
	if (ret < 0)
		log_err("reading BPF events: %s", strerror(-ret));
	tuning_flush(l->d);
	return 0;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *arg)
{
	struct loop *l = arg;

	(void)usec;
	/* events first: a ring announced before the sweep must not look new */
	trace_consume(&l->d->trace);
	inventory_sweep(l->d);
	inventory_refresh_stats(l->d);
	tuning_tick(l->d);
	tuning_flush(l->d);
	agent_server_tick(l->d);
	inventory_iopoll_hooks(l->d);
	export_tick(l->d);
	notify_status(l, NULL, false);
	sd_event_source_set_time_relative(s, (uint64_t)l->d->cfg.tick_ms * 1000);
	sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int on_control(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct loop *l = arg;

	(void)s, (void)revents;
	/* answer from the newest state */
	trace_consume(&l->d->trace);
	tuning_flush(l->d);
	control_serve_one(fd, l->d);
	return 0;
}

static int on_agent(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct loop *l = arg;

	(void)s, (void)fd, (void)revents;
	/* a RING message names a ring whose create event must be in first */
	trace_consume(&l->d->trace);
	tuning_flush(l->d);
	agent_server_serve_one(l->d);
	return 0;
}

static int on_stop(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	struct loop *l = arg;

	log_info("received %s, stopping", strsignal(si->ssi_signo));
	/* main() restores the rings once the loop has returned */
	sd_notifyf(0, "STOPPING=1\nSTATUS=stopping: restoring %zu ring%s uringtune changed",
		   l->d->journal.n, l->d->journal.n == 1 ? "" : "s");
	return sd_event_exit(sd_event_source_get_event(s), 0);
}

/* parse, then swap: a bad file leaves the running configuration in place */
static int on_reload(sd_event_source *s, const struct signalfd_siginfo *si, void *arg)
{
	struct loop *l = arg;
	struct ut_daemon *d = l->d;
	struct ut_config next;
	struct timespec now;
	char err[512];

	(void)s, (void)si;
	/*
	 * MONOTONIC_USEC is what Type=notify-reload (systemd 253+) wants with
	 * RELOADING=1; older managers ignore it.
	 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=reloading %s",
		   (unsigned long long)now.tv_sec * 1000000ULL + now.tv_nsec / 1000,
		   d->config_path);
	if (config_load(d->config_path, &next, err, sizeof(err))) {
		log_err("reload refused, keeping the running configuration: %s", err);
		goto out;
	}
	if (strcmp(next.socket_path, d->cfg.socket_path) ||
	    next.max_rings != d->cfg.max_rings ||
	    next.agent.enabled != d->cfg.agent.enabled ||
	    strcmp(next.agent.socket_path, d->cfg.agent.socket_path) ||
	    strcmp(next.agent.page_path, d->cfg.agent.page_path))
		log_warn("reload: socket, max_rings and [agent] enabled, socket and page take "
			 "effect at the next start");
	if (next.mode != d->cfg.mode) {
		log_warn("reload: mode change to %s takes effect at the next start",
			 config_mode_name(next.mode));
		next.mode = d->cfg.mode;
	}
	snprintf(next.socket_path, sizeof(next.socket_path), "%s", d->cfg.socket_path);
	next.max_rings = d->cfg.max_rings;
	next.agent.enabled = d->cfg.agent.enabled;
	memcpy(next.agent.socket_path, d->cfg.agent.socket_path, sizeof(next.agent.socket_path));
	memcpy(next.agent.page_path, d->cfg.agent.page_path, sizeof(next.agent.page_path));
	d->cfg = next;
	log_set_level(d->cfg.log_level);
	log_info("configuration reloaded from %s", d->config_path);
out:
	notify_status(l, "READY=1", true);
	return 0;
}

static int run_loop(struct loop *l)
{
	struct ut_daemon *d = l->d;
	int ret;

	ret = sd_event_default(&l->event);
	if (ret < 0)
		return ret;
	if ((ret = sd_event_add_signal(l->event, NULL, SIGTERM, on_stop, l)) < 0 ||
	    (ret = sd_event_add_signal(l->event, NULL, SIGINT, on_stop, l)) < 0 ||
	    (ret = sd_event_add_signal(l->event, NULL, SIGHUP, on_reload, l)) < 0 ||
	    (ret = sd_event_add_io(l->event, NULL, trace_events_fd(&d->trace), EPOLLIN,
				   on_events, l)) < 0 ||
	    (ret = sd_event_add_io(l->event, NULL, l->control_fd, EPOLLIN, on_control, l)) < 0 ||
	    (ret = sd_event_add_time_relative(l->event, &l->tick, CLOCK_MONOTONIC,
					      (uint64_t)d->cfg.tick_ms * 1000, 0, on_tick, l)) < 0)
		goto out;
	if (d->agent.listen_fd >= 0 &&
	    (ret = sd_event_add_io(l->event, NULL, d->agent.listen_fd, EPOLLIN, on_agent, l)) < 0)
		goto out;

	/* BPF is attached and the journal settled (main()): ready */
	notify_status(l, "READY=1", true);
	log_info("ready: mode %s, %zu rings, control socket %s", config_mode_name(d->cfg.mode),
		 d->reg.count, d->cfg.socket_path);

	/*
	 * With WATCHDOG_USEC set (WatchdogSec=) and WATCHDOG_PID unset or ours,
	 * sd-event sends WATCHDOG=1 every half to three quarters of the
	 * interval, from the loop itself: a stuck loop stops the pings. The
	 * first one goes out at once, after READY=1.
	 */
	ret = sd_event_set_watchdog(l->event, true);
	if (ret < 0)
		log_warn("watchdog: %s: the service manager's WatchdogSec= will not be honoured",
			 strerror(-ret));
	else if (ret > 0)
		log_info("watchdog: WATCHDOG_USEC=%s, WATCHDOG=1 sent from the event loop",
			 getenv("WATCHDOG_USEC"));

	ret = sd_event_loop(l->event);
out:
	sd_event_source_unref(l->tick);
	l->event = sd_event_unref(l->event);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "mode", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	struct ut_daemon d = { .config_path = DEFAULT_CONFIG };
	struct loop l = { .d = &d, .control_fd = -1 };
	const char *mode_arg = NULL;
	bool verbose = false;
	struct utsname uts;
	sigset_t sigs;
	char err[512];
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:vhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			d.config_path = optarg;
			break;
		case 'f':
			break;
		case 'm':
			mode_arg = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("uringtuned %s\n", UT_VERSION);
			return 0;
		case ':':
			fprintf(stderr, "uringtuned: option '%s' needs an argument (see uringtuned --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "uringtuned: unknown option '%s' (see uringtuned --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uringtuned: unexpected argument '%s' (see uringtuned --help)\n",
			argv[optind]);
		return 2;
	}

	ret = config_load(d.config_path, &d.cfg, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		return 1;
	}
	if (mode_arg && config_mode_from_name(mode_arg, &d.cfg.mode)) {
		fprintf(stderr, "uringtuned: --mode: expected observe or tune, got '%s'\n", mode_arg);
		return 2;
	}
	log_set_level(verbose ? LOG_DEBUG : d.cfg.log_level);

	if (!has_bpf_privileges()) {
		log_err("missing privileges: uringtuned loads BPF tracing programs and needs root "
			"(or CAP_BPF and CAP_PERFMON)");
		return 1;
	}

	/*
	 * Blocked from here: sd-event takes them as events later, and a stop
	 * requested while the first rings are being changed waits for the
	 * loop, which restores them, instead of killing the daemon mid-way.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	d.self_pid = getpid();
	/* nothing open yet: agent_server_close() on an early exit closes nothing */
	d.agent.listen_fd = -1;
	d.agent.page.ro_fd = -1;
	if (uname(&uts) == 0)
		snprintf(d.kernel, sizeof(d.kernel), "%s", uts.release);
	d.napi_supported = trace_kernel_has_napi();
	if (!d.napi_supported)
		log_warn("kernel %s has no io_uring NAPI busy polling (needs 6.9+): observing only",
			 d.kernel);

	ret = registry_init(&d.reg);
	if (ret) {
		log_err("out of memory");
		return 1;
	}
	/* the journal is how changes are undone: unreadable means do nothing */
	ret = tuning_init(&d, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		ret = 1;
		goto out_reg;
	}
	ret = trace_open(&d.trace, d.cfg.max_rings, inventory_on_event, &d, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		ret = 1;
		goto out_journal;
	}
	/* IOPOLL statistics are a bonus: without them the daemon still works */
	if (iopoll_open(&d.iopoll, d.cfg.max_rings, err, sizeof(err)))
		log_warn("%s: IOPOLL completion times will not be reported", err);
	/* always: on before the first sweep, so rings found later are exact */
	inventory_iopoll_hooks(&d);
	ret = inventory_sweep(&d);
	if (ret) {
		ret = 1;
		goto out_trace;
	}
	inventory_iopoll_hooks(&d);
	trace_consume(&d.trace);
	inventory_refresh_stats(&d);
	/* before anything changes a ring: what a previous run left */
	tuning_settle_journal(&d);
	/* the agents' page: slots a previous run left are settled like the journal */
	agent_server_open(&d);
	agent_server_settle(&d);
	tuning_tick(&d);
	tuning_flush(&d);
	export_tick(&d);

	l.control_fd = control_listen(d.cfg.socket_path, err, sizeof(err));
	if (l.control_fd < 0) {
		log_err("%s", err);
		ret = 1;
		goto out_trace;
	}

	ret = run_loop(&l);
	if (ret < 0) {
		log_err("event loop: %s", strerror(-ret));
		ret = 1;
	} else {
		ret = 0;
	}

	control_close(l.control_fd, d.cfg.socket_path);
out_trace:
	export_stop(&d);
	/* the agents apply it at their rings' next call, after we are gone */
	agent_server_restore_all(&d);
	agent_server_close(&d);
	/* restore every ring uringtune changed, whatever stopped the loop */
	if (d.journal.n && tuning_restore_all(&d))
		ret = 1;
	iopoll_close(&d.iopoll);
	trace_close(&d.trace);
out_journal:
	tuning_fini(&d);
out_reg:
	registry_free(&d.reg);
	return ret;
}
