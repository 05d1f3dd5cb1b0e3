// SPDX-License-Identifier: GPL-2.0-only
/* The host's short-sleep overshoot, measured by a thread at start. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "log.h"
#include "sleep_probe.h"

#define PROBE_SAMPLES		256
/* about what a hybrid ring asks for (half its fastest issue-to-poll time) */
#define PROBE_ASK_NS		4000
/* a sleep this long is the host's doing (preempted, stopped), not a sample */
#define PROBE_MAX_NS		(20 * 1000 * 1000ULL)

static uint64_t ts_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t median_of(uint64_t *v, uint32_t n, unsigned int pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(uint64_t)(n - 1) * pct / 100];
}

void sleep_probe_summarize(uint64_t asked_ns, uint64_t *wall_ns, uint64_t *cpu_ns,
			   uint64_t *sys_ns, uint32_t n, struct sleep_probe_result *out)
{
	memset(out, 0, sizeof(*out));
	out->samples = n;
	out->asked_ns = asked_ns;
	if (!n)
		return;
	for (uint32_t i = 0; i < n; i++)
		wall_ns[i] = wall_ns[i] > asked_ns ? wall_ns[i] - asked_ns : 0;
	out->overshoot_p90_ns = median_of(wall_ns, n, 90);
	out->overshoot_ns = median_of(wall_ns, n, 50);
	out->cpu_ns = median_of(cpu_ns, n, 50);
	out->syscall_ns = median_of(sys_ns, n, 50);
}

static void *probe_main(void *arg)
{
	struct sleep_probe *p = arg;
	uint64_t *wall, *cpu, *sys, w0, c0, s0;
	struct timespec ask = { 0, PROBE_ASK_NS };
	struct sleep_probe_result res;
	uint32_t n = 0;

	wall = calloc(PROBE_SAMPLES, sizeof(*wall));
	cpu = calloc(PROBE_SAMPLES, sizeof(*cpu));
	sys = calloc(PROBE_SAMPLES, sizeof(*sys));
	if (!wall || !cpu || !sys)
		goto out;
	/* the kernel's hybrid sleep has no slack; ours would have 50 us */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (uint32_t i = 0; i < PROBE_SAMPLES; i++) {
		s0 = ts_ns(CLOCK_MONOTONIC);
		syscall(SYS_getppid);
		sys[n] = ts_ns(CLOCK_MONOTONIC) - s0;
		c0 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
		w0 = ts_ns(CLOCK_MONOTONIC);
		if (clock_nanosleep(CLOCK_MONOTONIC, 0, &ask, NULL))
			continue;
		wall[n] = ts_ns(CLOCK_MONOTONIC) - w0;
		cpu[n] = ts_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		if (wall[n] < PROBE_MAX_NS)
			n++;
	}
	sleep_probe_summarize(PROBE_ASK_NS, wall, cpu, sys, n, &res);
	p->res = res;
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	log_info("hybrid IOPOLL model: a %llu us sleep lasts %.1f us more here (median of %u; "
		 "p90 %.1f us), %.1f us of CPU each",
		 (unsigned long long)(PROBE_ASK_NS / 1000), res.overshoot_ns / 1000.0, n,
		 res.overshoot_p90_ns / 1000.0, res.cpu_ns / 1000.0);
out:
	free(wall);
	free(cpu);
	free(sys);
	return NULL;
}

int sleep_probe_start(struct sleep_probe *p)
{
	int ret;

	memset(p, 0, sizeof(*p));
	ret = pthread_create(&p->thread, NULL, probe_main, p);
	if (ret)
		return -ret;
	p->started = true;
	return 0;
}

const struct sleep_probe_result *sleep_probe_result(const struct sleep_probe *p)
{
	return __atomic_load_n(&p->done, __ATOMIC_ACQUIRE) ? &p->res : NULL;
}

void sleep_probe_stop(struct sleep_probe *p)
{
	if (p->started)
		pthread_join(p->thread, NULL);
	p->started = false;
}
