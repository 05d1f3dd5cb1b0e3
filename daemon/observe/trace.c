// SPDX-License-Identifier: GPL-2.0-only
/* Loading napi_trace and reading what it gathers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "log.h"
#include "napi_trace.skel.h"
#include "trace.h"

#define BTF_VMLINUX	"/sys/kernel/btf/vmlinux"
#define KERNEL_MAX	"/sys/devices/system/cpu/kernel_max"

/*
 * libbpf speaks through our logger, and only when asked to be verbose. A
 * verifier log comes as one message of many lines: one log line each.
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char *buf, *line, *save = NULL;

	if (level == LIBBPF_DEBUG || log_get_level() < LOG_DEBUG)
		return 0;
	if (vasprintf(&buf, fmt, ap) < 0)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		log_debug("libbpf: %s", line);
	free(buf);
	return 0;
}

/* MIN_NAPI_ID is NR_CPUS + 1; kernel_max is NR_CPUS - 1 */
static unsigned int min_napi_id(void)
{
	unsigned int kmax = 255;
	FILE *f = fopen(KERNEL_MAX, "re");

	if (f) {
		if (fscanf(f, "%u", &kmax) != 1)
			kmax = 255;
		fclose(f);
	}
	return kmax + 2;
}

/* has the kernel's struct io_ring_ctx one of these members (NULL-ended)? From its BTF */
static bool ring_ctx_has(const char *const *members)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	bool found = false;
	int id, i;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "io_ring_ctx", BTF_KIND_STRUCT);
	if (id > 0) {
		t = btf__type_by_id(btf, id);
		m = btf_members(t);
		for (i = 0; i < btf_vlen(t) && !found; i++, m++) {
			const char *name = btf__name_by_offset(btf, m->name_off);

			for (int k = 0; name && members[k] && !found; k++)
				found = strcmp(name, members[k]) == 0;
		}
	}
	btf__free(btf);
	return found;
}

bool trace_kernel_has_napi(void)
{
	static const char *const m[] = { "napi_busy_poll_dt", "napi_busy_poll_to", NULL };

	return ring_ctx_has(m);
}

bool trace_kernel_has_napi_tracking(void)
{
	static const char *const m[] = { "napi_track_mode", NULL };

	return ring_ctx_has(m);
}

/*
 * For benchmarks only: URINGTUNE_BENCH_SKIP="prog,prog" leaves those programs
 * out, so bench/ can measure what each hook costs.
 */
static void skip_programs(struct bpf_object *obj)
{
	const char *skip = getenv("URINGTUNE_BENCH_SKIP");
	struct bpf_program *prog;
	char list[256];

	if (!skip)
		return;
	snprintf(list, sizeof(list), ",%s,", skip);
	bpf_object__for_each_program(prog, obj) {
		char name[128];

		snprintf(name, sizeof(name), ",%s,", bpf_program__name(prog));
		if (strstr(list, name)) {
			bpf_program__set_autoload(prog, false);
			log_warn("benchmark mode: program %s not loaded", bpf_program__name(prog));
		}
	}
}

static int on_sample(void *arg, void *data, size_t size)
{
	struct ut_trace *t = arg;
	struct ut_event ev = {};

	/* copy: the record may be shorter if the programs are older */
	memcpy(&ev, data, size < sizeof(ev) ? size : sizeof(ev));
	return t->event_cb(&ev, t->event_arg);
}

int trace_open(struct ut_trace *t, unsigned int max_rings, trace_event_cb cb,
	       void *arg, char *err, size_t errlen)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->max_rings = max_rings;
	t->event_cb = cb;
	t->event_arg = arg;
	libbpf_set_print(libbpf_print);

	if (access(BTF_VMLINUX, R_OK)) {
		snprintf(err, errlen, "this kernel has no BTF (%s: %s): uringtuned needs "
			 "CONFIG_DEBUG_INFO_BTF=y to run its CO-RE BPF programs",
			 BTF_VMLINUX, strerror(errno));
		return -ENOTSUP;
	}

	t->skel = napi_trace_bpf__open();
	if (!t->skel) {
		ret = -errno;
		snprintf(err, errlen, "opening BPF object napi_trace: %s", strerror(-ret));
		return ret;
	}
	t->skel->rodata->min_napi_id = min_napi_id();
	skip_programs(t->skel->obj);
	bpf_map__set_max_entries(t->skel->maps.ring_slots, max_rings);
	bpf_map__set_max_entries(t->skel->maps.ring_stats, max_rings);
	bpf_map__set_max_entries(t->skel->maps.free_slots, max_rings);

	ret = napi_trace_bpf__load(t->skel);
	if (ret) {
		if (ret == -EPERM)
			snprintf(err, errlen, "loading BPF programs was refused (EPERM): "
				 "uringtuned needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE) "
				 "and a kernel lockdown mode that allows BPF tracing");
		else
			snprintf(err, errlen, "loading BPF programs failed: %s "
				 "(run with log_level = debug for the verifier's log)",
				 strerror(-ret));
		goto fail;
	}

	/* every slot is free until a ring takes it; before attach, no ring can */
	for (__u32 slot = 0; slot < max_rings; slot++) {
		if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.free_slots), NULL, &slot, 0)) {
			ret = -errno;
			snprintf(err, errlen, "filling the BPF slot queue: %s", strerror(-ret));
			goto fail;
		}
	}

	ret = napi_trace_bpf__attach(t->skel);
	if (ret) {
		snprintf(err, errlen, "attaching BPF programs to io_uring tracepoints failed: %s",
			 strerror(-ret));
		goto fail;
	}
	ret = trace_iter_open(t, err, errlen);
	if (ret)
		goto fail;

	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), on_sample, t, NULL);
	if (!t->rb) {
		ret = -errno;
		snprintf(err, errlen, "opening the BPF ring buffer: %s", strerror(-ret));
		goto fail;
	}
	return 0;

fail:
	trace_close(t);
	return ret;
}

void trace_close(struct ut_trace *t)
{
	trace_iter_close(t);
	ring_buffer__free(t->rb);
	napi_trace_bpf__destroy(t->skel);
	t->rb = NULL;
	t->skel = NULL;
}

int trace_events_fd(const struct ut_trace *t)
{
	return ring_buffer__epoll_fd(t->rb);
}

int trace_consume(struct ut_trace *t)
{
	return ring_buffer__consume(t->rb);
}

static int ring_slot(const struct ut_trace *t, uint64_t ctx, uint32_t *slot)
{
	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.ring_slots), &ctx, slot))
		return -errno;
	return 0;
}

int trace_ring_stats(const struct ut_trace *t, uint64_t ctx, int32_t *slot,
		     struct ut_ring_stats *out)
{
	const struct ut_ring_stats *s;
	uint32_t u;
	int ret;

	/* none when last looked up: trace_slot_ctx() scans find it later */
	if (*slot == TRACE_SLOT_NONE)
		return -ENOENT;
	/* the slot found last time, while it is still this ring's: no syscall */
	if (*slot < 0 || (uint32_t)*slot >= t->max_rings ||
	    __atomic_load_n(&t->stats[*slot].ctx, __ATOMIC_RELAXED) != ctx) {
		*slot = TRACE_SLOT_NONE;
		ret = ring_slot(t, ctx, &u);
		if (ret)
			return ret;
		if (u >= t->max_rings)
			return -ERANGE;
		*slot = (int32_t)u;
	}
	s = &t->stats[*slot];
	memcpy(out, s, sizeof(*out));
	/* the slot was given to another ring while it was copied */
	if (out->ctx != ctx) {
		*slot = -1;
		return -ENOENT;
	}
	return 0;
}

uint64_t trace_slot_ctx(const struct ut_trace *t, uint32_t slot)
{
	return slot < t->max_rings ? __atomic_load_n(&t->stats[slot].ctx, __ATOMIC_RELAXED) : 0;
}

int trace_prune(struct ut_trace *t, trace_keep_cb keep, void *arg, uint64_t t0_ns)
{
	int slots_fd = bpf_map__fd(t->skel->maps.ring_slots);
	int free_fd = bpf_map__fd(t->skel->maps.free_slots);
	uint32_t slot, have;
	size_t left = 0;
	uint64_t ctx;

	/*
	 * The mapped slots, not the hash: memory reads, a syscall only for a
	 * ring to let go (the BPF side gives back the slots of rings it saw
	 * going; these are rings it missed).
	 */
	for (slot = 0; slot < t->max_rings; slot++) {
		struct ut_ring_stats *s = &t->stats[slot];

		ctx = __atomic_load_n(&s->ctx, __ATOMIC_RELAXED);
		if (!ctx)
			continue;
		if (keep(ctx, arg) || s->created_ns >= t0_ns ||
		    ring_slot(t, ctx, &have) || have != slot) {
			left++;
			continue;
		}
		/* unlink, clear (stale per-CPU caches then miss), give the slot back */
		if (bpf_map_delete_elem(slots_fd, &ctx))
			continue;
		__atomic_store_n(&s->ctx, 0, __ATOMIC_RELAXED);
		if (bpf_map_update_elem(free_fd, NULL, &slot, 0) == 0)
			__atomic_fetch_add(&t->skel->bss->slots_freed, 1, __ATOMIC_RELAXED);
	}
	return (int)left;
}

int trace_holder_set(const struct ut_trace *t, pid_t pid, bool holds)
{
	int fd = bpf_map__fd(t->skel->maps.holders);
	uint32_t key = (uint32_t)pid, one = 1;

	if (holds ? bpf_map_update_elem(fd, &key, &one, BPF_ANY) :
		    bpf_map_delete_elem(fd, &key))
		return errno == ENOENT ? 0 : -errno;
	return 0;
}

int trace_slots_used(const struct ut_trace *t)
{
	uint64_t taken = __atomic_load_n(&t->skel->bss->slots_taken, __ATOMIC_RELAXED);
	uint64_t freed = __atomic_load_n(&t->skel->bss->slots_freed, __ATOMIC_RELAXED);

	return (int)(taken - freed);
}

uint64_t trace_events_lost(const struct ut_trace *t)
{
	return __atomic_load_n(&t->skel->bss->events_lost, __ATOMIC_RELAXED);
}

uint64_t trace_rings_dropped(const struct ut_trace *t)
{
	return __atomic_load_n(&t->skel->bss->rings_dropped, __ATOMIC_RELAXED);
}
