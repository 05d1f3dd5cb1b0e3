// SPDX-License-Identifier: GPL-2.0-only
/*
 * napi_trace: every io_uring ring on the host, its NAPI busy-poll settings as
 * the kernel holds them, the NAPI IDs its sockets receive on, and what its
 * waits cost and gain.
 *
 * Hooks (all tracepoints; fentry is refused and kprobes absent on our hosts):
 *   io_uring_create        new ring: map entry + ring-buffer event, per ring
 *   io_uring_register      NAPI (un)register, by the app or by us, per call
 *   io_uring_cqring_wait   a wait that must block: outcome, busy window, per wait
 *   io_uring_poll_arm      request armed poll: start of the coming wait and
 *                          the socket's NAPI ID, per arm
 *   io_uring_task_add      a poll woke a request: if its waiter sleeps, the
 *                          wake-up starts here, per poll wake-up
 *   io_uring_task_work_run / io_uring_local_work_run
 *                          the waiter runs its work: the wake-up ended, per batch
 *   iter/task_file         inventory of rings, run by user space on demand
 * No syscall, sched_switch or napi_poll tracepoint: those fire for every
 * syscall, switch or busy-poll iteration and cost ~40% of a ping-pong's RTT.
 *
 * Kernel ABI differences are bridged with CO-RE: ctx->napi_busy_poll_dt
 * (ktime, 6.11+) vs napi_busy_poll_to (us, 6.9-6.10); napi_track_mode (6.13+)
 * vs napi_enabled (6.9-6.12); no NAPI fields at all before 6.9. Every such
 * field is read through kernel_compat.bpf.h's flavour structs.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "uringtune.h"
#include "kernel_compat.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define IORING_SETUP_SQPOLL		(1U << 1)
#define IORING_REGISTER_NAPI		27
#define IORING_UNREGISTER_NAPI		28
#define S_IFMT				00170000
#define S_IFSOCK			0140000
#define ANON_INODE_FS_MAGIC		0x09041934
#define MAX_KERNEL_NAPI_WALK		64

/* NR_CPUS + 1: smaller sk_napi_id values are sender_cpu hints, not NAPI IDs */
const volatile __u32 min_napi_id = 257;

/*
 * Ring statistics live in an array of slots; a hash maps a ring to its slot.
 * The per-CPU slot cache below lets the per-wait path skip the hash (~40 ns
 * here) for an inlined array access. User space fills free_slots at start
 * and gives a slot back when its ring is gone. All sized to max_rings.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u64);		/* struct io_ring_ctx * */
	__type(value, __u32);		/* slot in ring_stats */
} ring_slots SEC(".maps");

/* mapped by user space: a tick reads every ring's counters without a syscall */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct ut_ring_stats);
} ring_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_QUEUE);
	__uint(max_entries, 16384);
	__type(value, __u32);
} free_slots SEC(".maps");

/* per CPU: the ring last used here; valid while its slot still names it */
struct slot_cache {
	__u64 ctx;
	__u32 slot;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct slot_cache);
} slot_cache SEC(".maps");

/*
 * Processes holding a ring, kept by user space (tgid -> 1): their forks are
 * reported, so a child that inherits a ring is known before its parent exits.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} holders SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/*
 * per CPU: the busy-poll window of the thread running there. A window opens
 * at the first busy-poll iteration of a thread (napi:napi_poll with the
 * busy-poll budget, in the polling task) and closes at io_uring_cqring_wait,
 * which fires right after io_cqring_wait()'s busy loop: so a window is timed
 * whatever armed the receive it waits for (a poll before each wait, or a
 * multishot receive armed once), and whatever way the wait came (a timeout,
 * min_wait, a registered ring, DEFER_TASKRUN or not).
 *
 * The clock read at the open happens inside the spin, which costs nothing
 * the spin did not already waste; later iterations cost a compare. The
 * first iteration itself (its poll returns before the tracepoint) is not in
 * the window: windows measure about one iteration short.
 *
 * The busy loop never sleeps, so a window runs on one CPU unless its thread
 * is switched out (preempted, then maybe moved). Its context switch count
 * tells: a thread seen polling here again after a switch is either that
 * window resumed or a later one after a window that ended elsewhere, and in
 * both cases the length is not known.
 */
struct spin_stamp {
	__u32 tid;		/* the thread whose window is open, 0 none */
	__u32 pad;
	__u64 csw;		/* its voluntary + involuntary switches at the open */
	__u64 ts;		/* the open; 0: its length is not known */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct spin_stamp);
} spin_open SEC(".maps");

/* napi_busy_loop()'s budget (BUSY_POLL_BUDGET); softirq polls pass the NAPI's weight */
#define BUSY_POLL_BUDGET	8

/*
 * Closing a window costs a clock read (~50 ns here), outside the spin: only
 * one window in 2^WINDOW_SAMPLE_SHIFT of each ring is timed. Counts of
 * windows and of those that paid off are exact; lengths cover the sample.
 */
#define WINDOW_SAMPLE_SHIFT	4
#define WINDOW_SAMPLE_MASK	((1ULL << WINDOW_SAMPLE_SHIFT) - 1)

/*
 * A window lasts at most its timeout, plus the iteration under way when the
 * timeout passed and the tracepoint's own entry: a longer one was not timed
 * from its own start (a busy poll of the same thread outside io_uring, e.g.
 * epoll's, opened it).
 */
#define WINDOW_SLACK_NS		(20 * 1000ULL)

/*
 * per CPU: last (ring, socket file) whose NAPI ID was recorded. Reading the
 * ID costs two probe reads; the same socket is re-read only every
 * NAPI_RECHECK wake-ups (IDs change only when a flow moves queues).
 */
struct napi_seen {
	__u64 ctx;
	__u64 file;
	__u32 skip;
	__u32 pad;
};

#define NAPI_RECHECK		64

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct napi_seen);
} last_napi SEC(".maps");

/*
 * per thread (tid): the wait it sleeps in (set at io_uring_cqring_wait when
 * the wait is not satisfied) and when the completion that wakes it came;
 * what a sleep costs is the time from that completion to the task running
 * it. A hash by tid, not task storage: the completion's side reaches the
 * waiter through the request (req->ctx->submitter_task, req->tctx->task),
 * and kernels whose verifier marks pointers walked from a tracepoint's
 * argument untrusted (the 6.18 development hosts) refuse those to the task
 * storage helpers. LRU: a thread that exits asleep leaves no entry for good.
 */
struct sleeper {
	__u64 ctx;		/* the ring it waits on, 0 if not asleep */
	__u64 slept_ns;		/* the wait started sleeping */
	__u64 woken_ns;		/* first completion for it since; 0 none yet */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);	/* threads asleep in io_uring waits at once */
	__type(key, __u32);		/* tid */
	__type(value, struct sleeper);
} sleepers SEC(".maps");

/*
 * per task, its own: 1 while it has a sleep in "sleepers". The common end
 * of a task's work (it did not sleep) then costs one task storage lookup,
 * not a hash lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} asleep SEC(".maps");

__u64 events_lost;	/* ring buffer full: user space recovers at its next sweep */
__u64 rings_dropped;	/* ring map full: the ring is not traced */
__u64 slots_taken;	/* ring_stats slots given to rings ... */
__u64 slots_freed;	/* ... and back: the difference is in use */
/* io_ring_exit_work, learned from the first ring seen going away */
void *exit_work_fn;

static __always_inline void read_napi_state(struct io_ring_ctx *ctx,
					    struct ut_napi_state *st)
{
	struct io_ring_ctx___napi *napi = (void *)ctx;
	struct io_ring_ctx___napi_v69 *v69 = (void *)ctx;
	struct io_ring_ctx___napi_v611 *v611 = (void *)ctx;
	struct io_ring_ctx___napi_v613 *v613 = (void *)ctx;
	struct io_ring_ctx___napi_enabled *old = (void *)ctx;

	st->supported = 1;
	if (bpf_core_field_exists(v611->napi_busy_poll_dt))
		st->busy_poll_ns = BPF_CORE_READ(v611, napi_busy_poll_dt);
	else if (bpf_core_field_exists(v69->napi_busy_poll_to))
		st->busy_poll_ns = (__u64)BPF_CORE_READ(v69, napi_busy_poll_to) * 1000;
	else {
		/* before 6.9: io_uring has no NAPI busy polling */
		st->supported = 0;
		st->track_mode = UT_TRACK_INACTIVE;
		return;
	}

	st->prefer = BPF_CORE_READ(napi, napi_prefer_busy_poll);
	if (bpf_core_field_exists(v613->napi_track_mode)) {
		st->track_mode = BPF_CORE_READ(v613, napi_track_mode);
		st->enabled = st->track_mode != UT_TRACK_INACTIVE;
	} else {
		st->enabled = BPF_CORE_READ(old, napi_enabled);
		st->track_mode = st->enabled ? UT_TRACK_DYNAMIC : UT_TRACK_INACTIVE;
	}
}

#define IORING_SETUP_REGISTERED_FD_ONLY	(1U << 15)

/*
 * The inode of the file at @fd in the current task's table: what proves a
 * ring's identity before uringtune acts on it. Read here, the daemon needs
 * no right to search other users' /proc/PID/fd.
 */
static __always_inline __u64 fd_inode(int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds, *file = NULL;

	if (fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	fds = BPF_CORE_READ(fdt, fd);
	if (bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]) || !file)
		return 0;
	return BPF_CORE_READ(file, f_inode, i_ino);
}

static __always_inline void leader_comm(char *comm)
{
	struct task_struct *task = bpf_get_current_task_btf();

	bpf_probe_read_kernel(comm, UT_COMM_LEN, task->group_leader->comm);
}

static __always_inline struct ut_ring_stats *slot_stats(__u32 slot, __u64 key)
{
	struct ut_ring_stats *rs = bpf_map_lookup_elem(&ring_stats, &slot);

	return rs && rs->ctx == key ? rs : NULL;
}

static __always_inline void cache_slot(__u64 key, __u32 slot)
{
	__u32 zero = 0;
	struct slot_cache *c = bpf_map_lookup_elem(&slot_cache, &zero);

	if (c) {
		c->ctx = key;
		c->slot = slot;
	}
}

/*
 * A fresh slot for a ring, or the one it has (an io_uring_create at the
 * address of a ring whose slot is not yet given back starts that slot over).
 * tgid 0: a ring that predates the programs, made on first sight.
 */
static struct ut_ring_stats *ring_new(struct io_ring_ctx *ctx, __u64 key, __u32 tgid,
				      __u32 flags, __u64 map_flag)
{
	struct ut_ring_stats *rs;
	__u32 slot, *have;

	have = bpf_map_lookup_elem(&ring_slots, &key);
	if (have)
		slot = *have;
	else if (bpf_map_pop_elem(&free_slots, &slot))
		goto full;
	rs = bpf_map_lookup_elem(&ring_stats, &slot);
	if (!rs)
		goto full;
	__builtin_memset(rs, 0, sizeof(*rs));
	rs->ctx = key;
	rs->created_ns = bpf_ktime_get_ns();
	rs->tgid = tgid;
	rs->setup_flags = flags;
	read_napi_state(ctx, &rs->napi);
	if (!have && bpf_map_update_elem(&ring_slots, &key, &slot, map_flag)) {
		/* another CPU made it first, or the hash is full */
		rs->ctx = 0;
		bpf_map_push_elem(&free_slots, &slot, 0);
		have = bpf_map_lookup_elem(&ring_slots, &key);
		if (!have)
			goto full;
		slot = *have;
		rs = slot_stats(slot, key);
		if (!rs)
			return NULL;
	}
	if (!have)
		__sync_fetch_and_add(&slots_taken, 1);
	cache_slot(key, slot);
	return rs;
full:
	__sync_fetch_and_add(&rings_dropped, 1);
	return NULL;
}

/* The ring's statistics: per-CPU cache, then the hash, then a new slot. */
static struct ut_ring_stats *ring_get(struct io_ring_ctx *ctx)
{
	__u64 key = (__u64)ctx;
	struct ut_ring_stats *rs;
	struct slot_cache *c;
	__u32 zero = 0, *slot;

	c = bpf_map_lookup_elem(&slot_cache, &zero);
	if (c && c->ctx == key) {
		rs = slot_stats(c->slot, key);
		if (rs)
			return rs;
	}
	slot = bpf_map_lookup_elem(&ring_slots, &key);
	if (slot) {
		rs = slot_stats(*slot, key);
		if (rs) {
			cache_slot(key, *slot);
			return rs;
		}
	}
	return ring_new(ctx, key, 0, BPF_CORE_READ(ctx, flags), BPF_NOEXIST);
}

SEC("tp_btf/io_uring_create")
int BPF_PROG(on_ring_create, int fd, void *ctxp, __u32 sq_entries,
	     __u32 cq_entries, __u32 flags)
{
	struct io_ring_ctx *ring = ctxp;
	__u64 key = (__u64)ring;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct ut_ring_stats *rs;
	struct ut_event *ev;

	rs = ring_new(ring, key, tgid, flags, BPF_ANY);

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&events_lost, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = UT_EV_RING_CREATE;
	ev->tgid = tgid;
	ev->tid = (__u32)bpf_get_current_pid_tgid();
	ev->fd = fd;
	ev->ctx = key;
	ev->ts_ns = rs ? rs->created_ns : bpf_ktime_get_ns();
	ev->setup_flags = flags;
	read_napi_state(ring, &ev->napi);
	ev->start_boottime = bpf_get_current_task_btf()->group_leader->start_boottime;
	/* REGISTERED_FD_ONLY: "fd" is an index in the ring's own table */
	if (!(flags & IORING_SETUP_REGISTERED_FD_ONLY))
		ev->ino = fd_inode(fd);
	leader_comm(ev->comm);
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/*
 * The kernel's own list of the ring's NAPI instances (what it busy-polls),
 * copied into its slot: after register calls (static tracking changes it
 * only through them) and on the first of every 128 waits (dynamic tracking
 * learns and forgets as traffic comes).
 */
/*
 * Walk ctx->napi_list (a ring_has_napi() kernel): the first UT_MAX_NAPI_IDS
 * ids into @ids, the number of entries (up to MAX_KERNEL_NAPI_WALK) returned.
 */
static __always_inline __u32 walk_napi_ids(struct io_ring_ctx *ctx, __u32 *ids)
{
	struct io_ring_ctx___napi *napi = (void *)ctx;
	struct list_head *pos, *head;
	__u32 n = 0;
	int i;

	head = ring_napi_head(ctx);
	pos = BPF_CORE_READ(napi, napi_list.next);
	for (i = 0; i < MAX_KERNEL_NAPI_WALK && pos && pos != head; i++) {
		if (i < UT_MAX_NAPI_IDS)
			ids[i] = napi_entry_id(pos);
		n++;
		pos = BPF_CORE_READ(pos, next);
	}
	return n;
}

static __always_inline void read_kernel_ids(struct io_ring_ctx *ctx, struct ut_ring_stats *rs)
{
	__u32 ids[UT_MAX_NAPI_IDS] = {}, n;

	if (!ring_has_napi(ctx))
		return;
	n = walk_napi_ids(ctx, ids);
	__builtin_memcpy(rs->kernel_napi_ids, ids, sizeof(ids));
	rs->n_kernel_ids = n;
	rs->kernel_ids_reads++;
}

/* Fires after the call with its result: NAPI state read here is the new one. */
SEC("tp_btf/io_uring_register")
int BPF_PROG(on_ring_register, void *ctxp, unsigned int opcode,
	     unsigned int nr_files, unsigned int nr_bufs, long ret)
{
	struct io_ring_ctx *ring = ctxp;
	struct ut_ring_stats *rs;
	struct ut_event *ev;
	__u64 id = bpf_get_current_pid_tgid();

	if (opcode != IORING_REGISTER_NAPI && opcode != IORING_UNREGISTER_NAPI)
		return 0;

	rs = ring_get(ring);
	if (rs) {
		read_napi_state(ring, &rs->napi);
		read_kernel_ids(ring, rs);
	}

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&events_lost, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = UT_EV_NAPI_REGISTER;
	ev->tgid = id >> 32;
	ev->tid = (__u32)id;
	ev->fd = -1;
	ev->ctx = (__u64)ring;
	ev->ts_ns = bpf_ktime_get_ns();
	ev->setup_flags = BPF_CORE_READ(ring, flags);
	ev->opcode = opcode;
	ev->ret = ret;
	read_napi_state(ring, &ev->napi);
	leader_comm(ev->comm);
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/*
 * The NAPI ID of the socket a request polls, recorded on its ring. Taken
 * where the kernel's own dynamic tracking takes it (io_arm_poll_handler ->
 * io_napi_add): the ID of the last packet the socket received.
 */
static __always_inline void note_napi_id(struct io_kiocb *req)
{
	struct file *file = req->file;
	struct ut_ring_stats *rs;
	struct napi_seen *seen;
	struct socket *sock;
	__u32 zero = 0, id;
	__u64 key;
	int i;

	key = (__u64)req->ctx;
	seen = bpf_map_lookup_elem(&last_napi, &zero);
	if (!seen)
		return;
	if (seen->ctx == key && seen->file == (__u64)file && seen->skip) {
		seen->skip--;
		return;
	}
	if (!file || (file->f_inode->i_mode & S_IFMT) != S_IFSOCK)
		return;
	/* private_data is untyped: two probe reads to the socket's NAPI ID */
	sock = file->private_data;
	id = BPF_CORE_READ(sock, sk, sk_napi_id);
	if (id < min_napi_id)
		return;
	seen->ctx = key;
	seen->file = (__u64)file;
	seen->skip = NAPI_RECHECK - 1;

	rs = ring_get(req->ctx);
	if (!rs || rs->last_napi_id == id)
		return;
	rs->last_napi_id = id;

	for (i = 0; i < UT_MAX_NAPI_IDS; i++) {
		__u32 cur = rs->napi_ids[i];

		if (cur == id)
			return;
		if (cur)
			continue;
		/* two CPUs may race for the slot: the loser tries the next one */
		cur = __sync_val_compare_and_swap(&rs->napi_ids[i], 0, id);
		if (cur == 0 || cur == id) {
			if (cur == 0)
				rs->napi_ids_changed_ns = bpf_ktime_get_ns();
			return;
		}
	}
	__sync_fetch_and_add(&rs->napi_ids_overflow, 1);
	return;
}

SEC("tp_btf/io_uring_poll_arm")
int BPF_PROG(on_poll_arm, struct io_kiocb *req, int mask, int events)
{
	note_napi_id(req);
	return 0;
}

/*
 * A busy-poll iteration (softirq polls, with the NAPI's weight as budget,
 * leave at the first compare): the polling thread's window opens at its
 * first one.
 */
SEC("tp_btf/napi_poll")
int BPF_PROG(on_napi_poll, struct napi_struct *napi, int work, int budget)
{
	struct task_struct *task;
	struct spin_stamp *st;
	__u32 zero = 0, tid;
	__u64 csw;

	if (budget != BUSY_POLL_BUDGET)
		return 0;
	st = bpf_map_lookup_elem(&spin_open, &zero);
	if (!st)
		return 0;
	task = bpf_get_current_task_btf();
	tid = task->pid;
	csw = task->nvcsw + task->nivcsw;
	if (st->tid == tid) {
		/* the window goes on; after a switch, its start is not known */
		if (st->csw != csw) {
			st->csw = csw;
			st->ts = 0;
		}
		return 0;
	}
	st->tid = tid;
	st->csw = csw;
	st->ts = bpf_ktime_get_ns();
	return 0;
}

/*
 * Will this wait end without sleeping? The tracepoint fires right after the
 * busy-poll loop and right before the sleep loop, which sleeps only if none
 * of these holds. Cheapest test first: the common satisfied case costs no
 * probe read.
 */
static __always_inline bool wait_satisfied(struct task_struct *task,
					   struct io_ring_ctx *ctx, int min_events)
{
	struct io_rings *r;
	__u32 head, tail;

	/* poll woke: io_uring's task work is queued on the waiter */
	if (task->task_works)
		return true;
	/* DEFER_TASKRUN rings queue their work on the ring instead */
	if (ring_local_work_pending(ctx))
		return true;
	r = BPF_CORE_READ(ctx, rings);
	head = BPF_CORE_READ(r, cq.head);
	tail = BPF_CORE_READ(r, cq.tail);
	return (int)(tail - head) >= min_events;
}

/*
 * The wait is about to sleep: stamp its thread (one storage lookup, one
 * clock read, one hash update; a sleep costs microseconds anyway).
 */
static __always_inline void sleep_begin(struct task_struct *task, struct io_ring_ctx *ring)
{
	struct sleeper sl = { .ctx = (__u64)ring };
	__u32 tid = task->pid, *flag;

	flag = bpf_task_storage_get(&asleep, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!flag)
		return;
	sl.slept_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&sleepers, &tid, &sl, BPF_ANY) == 0)
		*flag = 1;
}

SEC("tp_btf/io_uring_cqring_wait")
int BPF_PROG(on_cqring_wait, void *ctxp, int min_events)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_ring_ctx *ring = ctxp;
	struct ut_ring_stats *rs;
	struct spin_stamp *st;
	__u64 dt, dur, ts = 0, n;
	bool satisfied;
	__u32 zero = 0;

	/* this thread's window on this CPU, if one is open, ends here */
	st = bpf_map_lookup_elem(&spin_open, &zero);
	if (st && st->tid == (__u32)task->pid) {
		ts = st->ts;
		st->tid = 0;
	}
	rs = ring_get(ring);
	if (!rs)
		return 0;
	satisfied = wait_satisfied(task, ring, min_events);
	__sync_fetch_and_add(&rs->waits, 1);
	if (!satisfied)
		sleep_begin(task, ring);
	/* a ring passed to another process (or thread) shows who uses it now */
	if (rs->user_tgid != (__u32)task->tgid)
		rs->user_tgid = task->tgid;
	if (rs->wait_tid != (__u32)task->pid)
		rs->wait_tid = task->pid;
	if ((rs->waits & 127) == 1)
		read_kernel_ids(ring, rs);
	if (satisfied)
		__sync_fetch_and_add(&rs->waits_nosleep, 1);

	/*
	 * io_cqring_wait() busy-polled just before this tracepoint if the
	 * ring's NAPI list is non-empty and its timeout non-zero, unless the
	 * SQPOLL thread polls for it (settings change only through register
	 * calls, which refresh rs->napi).
	 */
	dt = rs->napi.busy_poll_ns;
	if (!dt || (rs->setup_flags & IORING_SETUP_SQPOLL) || !ring_has_napi(ring))
		return 0;
	if (BPF_CORE_READ((struct io_ring_ctx___napi *)ring, napi_list.next) ==
	    ring_napi_head(ring))
		return 0;

	n = __sync_fetch_and_add(&rs->busy_windows, 1);
	if (satisfied)
		__sync_fetch_and_add(&rs->busy_paid, 1);
	if (n & WINDOW_SAMPLE_MASK)
		return 0;
	/*
	 * In the sample. A window whose start was not seen here (no busy-poll
	 * iteration of this thread on this CPU: the NAPI was being polled by
	 * someone else, or the thread was switched out) has no known length:
	 * counted as such, never priced at the timeout.
	 */
	__sync_fetch_and_add(&rs->windows_sampled, 1);
	if (!ts) {
		__sync_fetch_and_add(&rs->windows_unstamped, 1);
		return 0;
	}
	dur = bpf_ktime_get_ns() - ts;
	if (dur > dt + WINDOW_SLACK_NS) {
		__sync_fetch_and_add(&rs->windows_overlong, 1);
		return 0;
	}
	if (satisfied) {
		__sync_fetch_and_add(&rs->busy_ns, dur);
		__sync_fetch_and_add(&rs->busy_hist[hist_slot(dur)], 1);
	} else {
		__sync_fetch_and_add(&rs->unpaid_timed, 1);
		__sync_fetch_and_add(&rs->unpaid_timed_ns, dur);
	}
	return 0;
}

#define IORING_SETUP_DEFER_TASKRUN	(1U << 13)

/* The task that runs @req's completion: the one that waits for it. */
static __always_inline struct task_struct *req_waiter(struct io_kiocb *req)
{
	struct io_ring_ctx *ring = req->ctx;

	/* DEFER_TASKRUN rings run all their work in their submitter */
	if (ring->flags & IORING_SETUP_DEFER_TASKRUN)
		return ring->submitter_task;
	/* plain loads: the task's tid and state are all that is read of it */
	return req_task(req);
}

/*
 * A poll woke a request and queues its completion for the task that waits.
 * If that task sleeps in a wait on this ring, this is the moment busy polling
 * would have ended its window: the sleep's gap. Its wake-up starts here.
 */
SEC("tp_btf/io_uring_task_add")
int BPF_PROG(on_task_add, struct io_kiocb *req, int mask)
{
	struct task_struct *task = req_waiter(req);
	struct ut_ring_stats *rs;
	struct sleeper *sl;
	__u64 now, gap;
	__u32 tid;

	/* a multishot receive armed once is seen here, at each wake */
	note_napi_id(req);
	if (!task)
		return 0;
	tid = task->pid;
	sl = bpf_map_lookup_elem(&sleepers, &tid);
	if (!sl || !sl->ctx || sl->woken_ns)
		return 0;
	/* not asleep (a wait that ended without work, the task went on): no sample */
	if (task->__state == 0 || sl->ctx != (__u64)req->ctx) {
		sl->ctx = 0;
		return 0;
	}
	now = bpf_ktime_get_ns();
	sl->woken_ns = now;
	rs = ring_get(req->ctx);
	if (!rs)
		return 0;
	gap = now - sl->slept_ns;
	__sync_fetch_and_add(&rs->sleeps_woken, 1);
	/* hist_slot() wraps from 2^32 ns: a gap of seconds goes in the top slot */
	__sync_fetch_and_add(&rs->sleep_gap_hist[gap >= (1ULL << (UT_HIST_SLOTS - 1)) ?
						 UT_HIST_SLOTS - 1 : hist_slot(gap)], 1);
	return 0;
}

/* The current task runs the work a completion queued: its sleep is over. */
static __always_inline void sleep_end(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct ut_ring_stats *rs;
	struct sleeper *sl;
	__u32 *slot, *flag, tid;
	__u64 ctx, dur;

	flag = bpf_task_storage_get(&asleep, task, 0, 0);
	if (!flag || !*flag)
		return;
	*flag = 0;
	tid = task->pid;
	sl = bpf_map_lookup_elem(&sleepers, &tid);
	if (!sl || !sl->ctx)
		return;
	ctx = sl->ctx;
	sl->ctx = 0;
	if (!sl->woken_ns)
		return;
	dur = bpf_ktime_get_ns() - sl->woken_ns;
	slot = bpf_map_lookup_elem(&ring_slots, &ctx);
	rs = slot ? slot_stats(*slot, ctx) : NULL;
	if (!rs)
		return;
	if (dur > UT_WAKE_MAX_NS) {
		__sync_fetch_and_add(&rs->wakes_long, 1);
		return;
	}
	__sync_fetch_and_add(&rs->wakes, 1);
	__sync_fetch_and_add(&rs->wake_ns, dur);
}

SEC("tp_btf/io_uring_task_work_run")
int BPF_PROG(on_task_work_run, void *tctx, unsigned int count)
{
	sleep_end();
	return 0;
}

SEC("tp_btf/io_uring_local_work_run")
int BPF_PROG(on_local_work_run, void *ctxp, int count, unsigned int loops)
{
	sleep_end();
	return 0;
}

/* Inventory: every (process, fd) holding an io_uring ring. */
SEC("iter/task_file")
int rings_iter(struct bpf_iter__task_file *it)
{
	static const char ring_name[] = "[io_uring]";
	struct seq_file *seq = it->meta->seq;
	struct task_struct *task = it->task;
	struct file *file = it->file;
	struct ut_ring_rec rec = {};
	struct io_ring_ctx *ctx;
	char name[sizeof(ring_name)];
	int i;

	if (!task || !file)
		return 0;
	/* io_uring files are anonymous inodes named "[io_uring]" */
	if (file->f_inode->i_sb->s_magic != ANON_INODE_FS_MAGIC)
		return 0;
	if (bpf_probe_read_kernel_str(name, sizeof(name),
				      file->f_path.dentry->d_name.name) != sizeof(name))
		return 0;
	for (i = 0; i < (int)sizeof(name); i++)
		if (name[i] != ring_name[i])
			return 0;

	ctx = file->private_data;
	rec.ctx = (__u64)ctx;
	rec.ino = file->f_inode->i_ino;
	rec.tgid = task->tgid;
	rec.fd = it->fd;
	rec.start_boottime = task->group_leader->start_boottime;
	bpf_probe_read_kernel(rec.comm, sizeof(rec.comm), task->group_leader->comm);
	rec.setup_flags = BPF_CORE_READ(ctx, flags);
	read_napi_state(ctx, &rec.napi);

	if (ring_has_napi(ctx))
		rec.n_kernel_ids = walk_napi_ids(ctx, rec.kernel_napi_ids);

	bpf_seq_write(seq, &rec, sizeof(rec));
	return 0;
}

/*
 * A ring is going away: io_uring_release() -> io_ring_ctx_wait_and_kill()
 * queues ctx->exit_work once the ring's last file reference is dropped (by
 * close, exit or exec). No io_uring tracepoint marks it; this one does, for
 * every ring, whichever process held it. Its slot is given back here, so a
 * lost event costs no slot. Before the first ring goes the work's address is
 * looked up in ring_slots (a hash lookup per queued work item); after it
 * only io_ring_exit_work items are.
 */
SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(on_queue_work, int req_cpu, void *pwq, struct work_struct *work)
{
	void *fn = work->func;
	__u64 key = (__u64)work - bpf_core_field_offset(struct io_ring_ctx, exit_work);
	struct ut_ring_stats *rs;
	struct ut_event *ev;
	__u32 *slot, s;

	if (exit_work_fn && fn != exit_work_fn)
		return 0;
	slot = bpf_map_lookup_elem(&ring_slots, &key);
	if (!slot)
		return 0;
	exit_work_fn = fn;
	s = *slot;
	rs = bpf_map_lookup_elem(&ring_stats, &s);
	if (bpf_map_delete_elem(&ring_slots, &key) == 0) {
		if (rs && rs->ctx == key)
			rs->ctx = 0;
		bpf_map_push_elem(&free_slots, &s, 0);
		__sync_fetch_and_add(&slots_freed, 1);
	}

	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&events_lost, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = UT_EV_RING_GONE;
	ev->fd = -1;
	ev->ctx = key;
	ev->ts_ns = bpf_ktime_get_ns();
	bpf_ringbuf_submit(ev, 0);
	return 0;
}

/*
 * A process holding a ring forked: its child holds the ring too until it
 * closes it (exec closes it: ring fds are O_CLOEXEC). One hash lookup per
 * new process on the host; threads are skipped before it.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_process_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid;
	struct ut_event *ev;

	if ((__u32)child->tgid == ptgid || !bpf_map_lookup_elem(&holders, &ptgid))
		return 0;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		__sync_fetch_and_add(&events_lost, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = UT_EV_HOLDER_FORK;
	ev->tgid = ptgid;
	ev->tid = child->tgid;
	ev->fd = -1;
	ev->ts_ns = bpf_ktime_get_ns();
	ev->start_boottime = child->start_boottime;
	bpf_probe_read_kernel(ev->comm, sizeof(ev->comm), parent->group_leader->comm);
	bpf_ringbuf_submit(ev, 0);
	return 0;
}
