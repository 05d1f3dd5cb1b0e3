// SPDX-License-Identifier: GPL-2.0-only
/*
 * napi_trace's iterators: the host sweep and one process's files; and the
 * mapping of the statistics array.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "napi_trace.skel.h"
#include "trace.h"

/* records never straddle reads badly: keep the remainder and go on */
static int read_records(int fd, trace_rec_cb cb, void *arg)
{
	struct ut_ring_rec recs[64];
	size_t have = 0, whole;
	int n = 0;
	ssize_t r;

	for (;;) {
		r = read(fd, (char *)recs + have, sizeof(recs) - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return n;
		have += r;
		whole = have / sizeof(recs[0]);
		for (size_t i = 0; i < whole; i++, n++)
			cb(&recs[i], arg);
		have -= whole * sizeof(recs[0]);
		memmove(recs, (char *)recs + whole * sizeof(recs[0]), have);
	}
}

static int run_link(struct bpf_link *link, trace_rec_cb cb, void *arg)
{
	int fd, n;

	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return -errno;
	n = read_records(fd, cb, arg);
	close(fd);
	return n;
}

int trace_sweep(struct ut_trace *t, trace_rec_cb cb, void *arg)
{
	return run_link(t->skel->links.rings_iter, cb, arg);
}

int trace_scan_pid(struct ut_trace *t, pid_t pid, trace_rec_cb cb, void *arg)
{
	union bpf_iter_link_info info = { .task.pid = (__u32)pid };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info,
		    .link_info_len = sizeof(info));
	struct bpf_link *link;
	int n;

	if (!t->pid_iter)
		return -ENOTSUP;
	link = bpf_program__attach_iter(t->skel->progs.rings_iter, &opts);
	if (!link)
		/* ESRCH: the process is gone; EINVAL: a kernel before 6.1 */
		return -errno;
	n = run_link(link, cb, arg);
	bpf_link__destroy(link);
	return n;
}

/* does this kernel filter task iterators by pid? Ask for our own process */
static bool probe_pid_iter(struct ut_trace *t)
{
	union bpf_iter_link_info info = { .task.pid = (__u32)getpid() };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info,
		    .link_info_len = sizeof(info));
	struct bpf_link *link;

	link = bpf_program__attach_iter(t->skel->progs.rings_iter, &opts);
	if (!link)
		return false;
	bpf_link__destroy(link);
	return true;
}

int trace_iter_open(struct ut_trace *t, char *err, size_t errlen)
{
	struct bpf_map *map = t->skel->maps.ring_stats;
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	/* array values are laid out 8-byte aligned; the mapping is whole pages */
	t->stats_len = (size_t)t->max_rings * ((sizeof(struct ut_ring_stats) + 7) & ~7UL);
	t->stats_len = (t->stats_len + page - 1) & ~(size_t)(page - 1);
	p = mmap(NULL, t->stats_len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "mapping the BPF ring statistics: %s", strerror(errno));
		t->stats = NULL;
		return -errno;
	}
	t->stats = p;

	t->pid_iter = probe_pid_iter(t);
	if (!t->pid_iter)
		log_info("this kernel has no per-process task iterators (6.1+): "
			 "moved rings are found by host sweeps");
	return 0;
}

void trace_iter_close(struct ut_trace *t)
{
	if (t->stats)
		munmap(t->stats, t->stats_len);
	t->stats = NULL;
}
