// SPDX-License-Identifier: GPL-2.0-only
/*
 * Wiring: the parts of the daemon started in order, told of each other,
 * and stopped in reverse. The order matters: the locks are taken before
 * anything else (instance.h), the journal is read before BPF is attached,
 * the first sweep before a previous run is settled, and that before any
 * ring is changed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "backend_pidfd.h"
#include "clock.h"
#include "daemon.h"
#include "window_feed.h"
#include "log.h"
#include "select.h"
#include "uring_query.h"

/* [select] over the process's uid and cgroup as /proc shows them now */
static bool selects(void *arg, pid_t pid, const char *comm, const char **why)
{
	const struct ut_daemon *d = arg;

	return select_process(&d->cfg.select, "/proc", pid, comm, why);
}

static uint64_t clock_now(void)
{
	return now_ns();
}

/* the daemon tuning this host, whose register calls are uringtune's */
static pid_t tuner(void *arg)
{
	struct ut_daemon *d = arg;

	return instance_tuner(&d->inst);
}

/* ... and the rings that daemon has journaled */
static bool tuned_elsewhere(void *arg, const struct ut_ring *ring)
{
	struct ut_daemon *d = arg;
	const struct ut_holder *h = &ring->obs.holder;

	return instance_tuner_journaled(&d->inst, h->pid, h->fd, h->ino, h->start_boottime);
}

int daemon_claim(struct ut_daemon *d)
{
	char err[512];
	int ret = 0;

	instance_init(&d->inst, INSTANCE_TUNE_LOCK);
	if (d->cfg.mode == UT_MODE_TUNE)
		ret = instance_claim_tuning(&d->inst, d->cfg.state_dir, err, sizeof(err));
	if (!ret)
		ret = instance_claim_state(&d->inst, d->cfg.state_dir, err, sizeof(err));
	if (!ret && d->cfg.agent.enabled)
		ret = instance_claim_page(&d->inst, d->cfg.agent.page_path, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		instance_release(&d->inst);
	}
	return ret;
}

/*
 * One pidfd per process holding a ring: thousands on a large host. The soft
 * limit (1024 under systemd) goes up to the hard one (LimitNOFILE=).
 */
static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_warn("raising the open-file limit to %llu: %s", (unsigned long long)rl.rlim_max,
			 strerror(errno));
}

/* HYBRID_IOPOLL: asked once (IORING_REGISTER_QUERY, 6.18+), else inferred, then learned */
static void probe_hybrid(struct ut_daemon *d)
{
	uint64_t mask = 0;
	char what[200];
	int ret;

	ret = uring_query_setup_flags(NULL, &mask);
	hybrid_support_init(&d->hybrid, ret, mask, d->kernel);
	hybrid_support_describe(&d->hybrid, what, sizeof(what));
	if (ret && ret != -EOPNOTSUPP)
		log_warn("hybrid IOPOLL: %s", what);
	else
		log_info("hybrid IOPOLL: %s", what);
}

static void start_identity(struct ut_daemon *d)
{
	struct utsname uts;

	raise_nofile();
	d->self_pid = getpid();
	if (uname(&uts) == 0)
		snprintf(d->kernel, sizeof(d->kernel), "%s", uts.release);
	d->napi_supported = trace_kernel_has_napi();
	d->napi_no_static = d->napi_supported && !trace_kernel_has_napi_tracking();
	if (!d->napi_supported)
		log_warn("kernel %s has no io_uring NAPI busy polling (needs 6.9+): observing only",
			 d->kernel);
	probe_hybrid(d);
}

/* the [agent] bounds hybrid = auto keeps */
static struct hv_bounds hybrid_bounds(const struct ut_config *cfg)
{
	return (struct hv_bounds){
		.min_saving = cfg->agent.hybrid_min_saving,
		.max_loss = cfg->agent.hybrid_max_loss,
	};
}

/* the verdicts a previous run kept (observe mode too: verdict_file.h) */
static void start_verdicts(struct ut_daemon *d)
{
	struct hv_bounds b = hybrid_bounds(&d->cfg);

	verdicts_init(&d->verdicts, &b);
	if (!verdict_file_open(&d->verdict_file, d->cfg.state_dir))
		verdict_file_load(&d->verdict_file, &d->verdicts);
	d->agent.verdicts = &d->verdicts;
}

/* the parts, told of each other; nothing opened yet */
static int start_parts(struct ut_daemon *d)
{
	const struct lifecycle_env env = {
		.now = clock_now, .selects = selects, .tuner = tuner,
		.tuned_elsewhere = tuned_elsewhere, .arg = d,
	};
	char err[512];
	int ret;

	agent_server_init(&d->agent, &d->reg, &d->lc, &d->cfg);
	d->agent.hybrid = &d->hybrid;
	start_verdicts(d);
	d->inv = (struct inventory){
		.reg = &d->reg, .trace = &d->trace, .iopoll = &d->iopoll, .cfg = &d->cfg,
		.lc = &d->lc, .agent = &d->agent, .hybrid = &d->hybrid,
		.sleep_probe = &d->sleep_probe,
		.on_iopoll_window = window_feed, .on_iopoll_window_arg = &d->verdicts,
	};
	d->lc.self_pid = d->self_pid;
	d->lc.napi_supported = d->napi_supported;
	d->lc.napi_no_static = d->napi_no_static;
	backend_pidfd_init(&d->lc.pidfd);
	ret = registry_init(&d->reg);
	if (!ret)
		ret = inventory_init(&d->inv);
	if (ret) {
		log_err("out of memory");
		return ret;
	}
	/* the journal is how changes are undone: unreadable means do nothing */
	ret = lifecycle_init(&d->lc, &d->reg, &d->cfg, &env, err, sizeof(err));
	if (ret) {
		log_err("%s", err);
		return ret;
	}
	/* its fsyncs off the event loop (lifecycle.h); without the thread, on it */
	ret = journal_committer_thread(&d->committer, journal_commit_write, &d->lc.journal);
	if (ret)
		log_warn("journal: no thread to write it (%s): written on the event loop",
			 strerror(-ret));
	else
		d->lc.commit = &d->committer;
	return 0;
}

static int start_tracing(struct ut_daemon *d)
{
	char err[512];
	int ret;

	ret = trace_open(&d->trace, d->cfg.max_rings, inventory_on_event, &d->inv, err,
			 sizeof(err));
	if (ret) {
		log_err("%s", err);
		return ret;
	}
	/* IOPOLL statistics are a bonus: without them the daemon still works */
	if (iopoll_open(&d->iopoll, d->cfg.max_rings, err, sizeof(err)))
		log_warn("%s: IOPOLL completion times will not be reported", err);
	/* always: on before the first sweep, so rings found later are exact */
	inventory_iopoll_hooks(&d->inv);
	ret = inventory_sweep(&d->inv);
	if (ret)
		return ret;
	inventory_iopoll_hooks(&d->inv);
	trace_consume(&d->trace);
	inventory_refresh_stats(&d->inv);
	return 0;
}

int daemon_start(struct ut_daemon *d)
{
	int ret;

	start_identity(d);
	ret = start_parts(d);
	if (!ret)
		ret = start_tracing(d);
	if (ret)
		return ret;
	/* before anything changes a ring: what a previous run left */
	lifecycle_settle_journal(&d->lc);
	/* the agents' page: slots a previous run left are settled like the journal */
	agent_server_open(&d->agent);
	agent_server_backend(&d->agent, &d->lc.agent);
	agent_server_settle(&d->agent);
	lifecycle_tick(&d->lc);
	lifecycle_flush(&d->lc);
	/* the hybrid model's host figures, measured aside once the start-up work is done */
	ret = sleep_probe_start(&d->sleep_probe);
	if (ret)
		log_warn("the sleep probe did not start (%s): the hybrid model will not predict",
			 strerror(-ret));
	return 0;
}

void daemon_events(struct ut_daemon *d)
{
	int ret = trace_consume(&d->trace);

	if (ret < 0)
		log_err("reading BPF events: %s", strerror(-ret));
	lifecycle_flush(&d->lc);
}

void daemon_tick(struct ut_daemon *d)
{
	struct hv_bounds b;

	trace_consume(&d->trace);
	inventory_tick(&d->inv);
	inventory_refresh_stats(&d->inv);
	lifecycle_tick(&d->lc);
	lifecycle_flush(&d->lc);
	agent_server_tick(&d->agent);
	inventory_iopoll_hooks(&d->inv);
	/* a reload's bounds judge every program again */
	b = hybrid_bounds(&d->cfg);
	verdicts_set_bounds(&d->verdicts, &b);
	verdict_file_tick(&d->verdict_file, &d->verdicts, now_ns());
}

int daemon_stop(struct ut_daemon *d)
{
	int failed;

	/* restore every ring uringtune changed, whatever stopped the loop */
	failed = lifecycle_stop(&d->lc);
	agent_server_close(&d->agent);
	verdict_file_close(&d->verdict_file, &d->verdicts);
	inventory_fini(&d->inv);
	iopoll_close(&d->iopoll);
	trace_close(&d->trace);
	sleep_probe_stop(&d->sleep_probe);
	/* the lifecycle waits for its last commit; the thread is idle then */
	lifecycle_fini(&d->lc);
	journal_committer_fini(&d->committer);
	registry_free(&d->reg);
	/* last: another daemon may tune once every ring is back */
	instance_release(&d->inst);
	return failed ? -EIO : 0;
}
