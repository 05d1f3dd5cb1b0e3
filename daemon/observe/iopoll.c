// SPDX-License-Identifier: GPL-2.0-only
/* Loading iopoll_trace and reading its per-ring completion statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iopoll.h"
#include "iopoll_trace.skel.h"
#include "log.h"

/* does the running kernel have this tracepoint? (its btf_trace_ typedef) */
static bool kernel_has_tracepoint(const char *name)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char type[128];
	bool found;

	if (!btf)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	found = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
	btf__free(btf);
	return found;
}

int iopoll_open(struct ut_iopoll *io, unsigned int max_rings, char *err, size_t errlen)
{
	bool new_submit = kernel_has_tracepoint("io_uring_submit_req");
	int ret;

	memset(io, 0, sizeof(*io));
	io->max_rings = max_rings < 1024 ? max_rings : 1024;
	io->skel = iopoll_trace_bpf__open();
	if (!io->skel) {
		ret = -errno;
		snprintf(err, errlen, "opening BPF object iopoll_trace: %s", strerror(-ret));
		return ret;
	}
	/* the submit tracepoint was io_uring_submit_sqe before 6.3 */
	bpf_program__set_autoload(io->skel->progs.iop_submit, new_submit);
	bpf_program__set_autoload(io->skel->progs.iop_submit_sqe, !new_submit);
	bpf_map__set_max_entries(io->skel->maps.iopoll_rings, io->max_rings);

	ret = iopoll_trace_bpf__load(io->skel);
	if (ret) {
		snprintf(err, errlen, "loading the IOPOLL programs failed: %s", strerror(-ret));
		iopoll_close(io);
		return ret;
	}
	return 0;
}

int iopoll_attach(struct ut_iopoll *io, uint64_t now_ns)
{
	int ret;

	if (!io->skel || io->attached)
		return 0;
	ret = iopoll_trace_bpf__attach(io->skel);
	if (ret)
		return ret;
	io->attached = true;
	io->attached_ns = now_ns;
	return 0;
}

void iopoll_detach(struct ut_iopoll *io)
{
	if (!io->skel || !io->attached)
		return;
	iopoll_trace_bpf__detach(io->skel);
	io->attached = false;
}

void iopoll_close(struct ut_iopoll *io)
{
	iopoll_trace_bpf__destroy(io->skel);
	io->skel = NULL;
}

bool iopoll_loaded(const struct ut_iopoll *io)
{
	return io->skel != NULL && io->attached;
}

int iopoll_ring_stats(const struct ut_iopoll *io, uint64_t ctx, struct ut_iopoll_stats *out)
{
	if (!io->skel)
		return -ENOENT;
	if (bpf_map_lookup_elem(bpf_map__fd(io->skel->maps.iopoll_rings), &ctx, out))
		return -errno;
	return 0;
}

int iopoll_prune(struct ut_iopoll *io, trace_keep_cb keep, void *arg, uint64_t t0_ns)
{
	struct ut_iopoll_stats val;
	uint64_t key, next, *doomed;
	void *prev = NULL;
	size_t n = 0;
	int fd;

	if (!io->skel)
		return 0;
	fd = bpf_map__fd(io->skel->maps.iopoll_rings);
	doomed = calloc(io->max_rings, sizeof(*doomed));
	if (!doomed)
		return -ENOMEM;
	/* collect first: deleting while walking restarts a hash map walk */
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &val))
			continue;
		if (!keep(key, arg) && val.created_ns < t0_ns && n < io->max_rings)
			doomed[n++] = key;
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &doomed[i]);
	free(doomed);
	return 0;
}
