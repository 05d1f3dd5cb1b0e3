// SPDX-License-Identifier: GPL-2.0-only
/*
 * The agent's exported symbols, and nothing else: LD_PRELOAD puts them in
 * front of libc's syscall() and liburing's functions. Each one does the
 * agent's part and then calls the real function, found with
 * dlsym(RTLD_NEXT).
 *
 * - ring setup (syscall(__NR_io_uring_setup), io_uring_queue_init{,_params},
 *   liburing's io_uring_setup): agent_setup(), once per ring: a thread-local
 *   depth makes the outermost entry the one that counts (liburing 2.3's
 *   queue_init calls queue_init_params through its PLT, which lands here);
 * - submit and wait calls: agent_poll() for that ring, then the real call;
 * - the program's own NAPI register calls: that ring is the program's now;
 * - io_uring_queue_exit: the record goes first.
 *
 * The liburing types come from <liburing.h> (2.3); liburing itself is never
 * linked, so the agent loads into any program. struct io_uring's layout
 * (flags, ring_fd) is part of liburing.so.2's ABI.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <liburing.h>

#include "agent_abi.h"
#include "agent_client.h"
#include "agent_env.h"
#include "agent_poll.h"
#include "agent_real.h"
#include "agent_rings.h"
#include "agent_setup.h"
#include "uring_abi.h"

#define EXPORT	__attribute__((visibility("default")))

/* the real function: resolved on first use, then one relaxed load */
#define REAL(name, caller) \
	((__typeof__(&name))agent_real(&real_##name, #name, (caller)))
#define CALLER	__builtin_return_address(0)

static void *real_syscall;
static void *real_io_uring_setup;
static void *real_io_uring_queue_init;
static void *real_io_uring_queue_init_params;
static void *real_io_uring_queue_init_mem;
static void *real_io_uring_queue_exit;
static void *real_io_uring_register;
static void *real_io_uring_submit;
static void *real_io_uring_submit_and_wait;
static void *real_io_uring_submit_and_wait_timeout;
static void *real_io_uring_submit_and_get_events;
static void *real_io_uring_get_events;
static void *real___io_uring_get_cqe;
static void *real_io_uring_wait_cqes;
static void *real_io_uring_wait_cqe_timeout;
static void *real_io_uring_enter;
static void *real_io_uring_enter2;

/* > 0 while this thread is inside a setup the agent already handles */
static __thread int setup_depth __attribute__((tls_model("initial-exec")));

/* the outermost entry point of a setup asks the daemon; the inner ones it calls do not */
static int outer_setup(struct agent_setup *su)
{
	int ret;

	setup_depth++;
	ret = agent_setup(su);
	setup_depth--;
	return ret;
}

/*
 * Can the program's params pointer be read? The kernel answers a bad one
 * with EFAULT; the agent must not turn that into a crash. One syscall per
 * ring setup (process_vm_readv on ourselves fails with EFAULT, not SIGSEGV).
 * If it is refused for another reason (seccomp), the agent stays out.
 */
static bool user_readable(const void *p, size_t len)
{
	char buf[sizeof(struct io_uring_params)];
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)p, .iov_len = len };
	int saved_errno = errno;
	bool ok;

	if (len > sizeof(buf))
		return false;
	ok = process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len;
	errno = saved_errno;
	return ok;
}

/* the program registers or unregisters NAPI itself: that ring is its own now */
static void app_napi(int fd)
{
	struct ut_agent_ring msg;
	int saved_errno = errno;

	if (agent_rings_app_napi(fd, &msg)) {
		agent_client_send(&msg, sizeof(msg));
		agent_debug("pid %d ring fd %d: the program registers NAPI itself; hands off",
			    (int)getpid(), fd);
	}
	errno = saved_errno;
}

/* ---- syscall(2) ---- */

static int sys_setup_call(struct agent_setup *su, __u32 flags)
{
	long (*fn)(long, ...) = REAL(syscall, NULL);
	struct io_uring_params *p = su->arg;
	long ret;

	p->flags = flags;
	ret = fn(__NR_io_uring_setup, (long)su->entries, (long)p);
	if (ret < 0)
		ret = -errno;
	p->flags = su->prog_flags;
	return ret;
}

static long sys_setup(long (*fn)(long, ...), long entries, struct io_uring_params *p)
{
	struct agent_setup su = {
		.entry = UT_ENTRY_SYSCALL,
		.entries = entries,
		.call = sys_setup_call,
		.arg = p,
	};
	int ret;

	if (setup_depth)
		return fn(__NR_io_uring_setup, entries, (long)p);
	if (!user_readable(p, sizeof(*p))) {
		agent_debug("pid %d: io_uring_setup params %p not readable: left to the kernel",
			    (int)getpid(), (void *)p);
		return fn(__NR_io_uring_setup, entries, (long)p);
	}
	su.prog_flags = p->flags;
	ret = outer_setup(&su);
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/*
 * Every syscall() of the program comes through here: three compares, then
 * the real one. Six longs are read whatever the call takes, as glibc's own
 * syscall() does (x86-64 and arm64 pass them in registers).
 */
EXPORT long syscall(long nr, ...)
{
	long (*fn)(long, ...) = REAL(syscall, NULL);
	long a1, a2, a3, a4, a5, a6;
	va_list ap;

	va_start(ap, nr);
	a1 = va_arg(ap, long);
	a2 = va_arg(ap, long);
	a3 = va_arg(ap, long);
	a4 = va_arg(ap, long);
	a5 = va_arg(ap, long);
	a6 = va_arg(ap, long);
	va_end(ap);
	if (__builtin_expect(!fn, 0)) {
		errno = ENOSYS;
		return -1;
	}
	if (nr == __NR_io_uring_enter) {
		/* with IORING_ENTER_REGISTERED_RING, a1 is an index, not an fd */
		agent_poll((a4 & IORING_ENTER_REGISTERED_RING) ? -1 : (int)a1, NULL);
	} else if (nr == __NR_io_uring_setup) {
		return sys_setup(fn, a1, (struct io_uring_params *)a2);
	} else if (nr == __NR_io_uring_register &&
		   (a2 == UT_IORING_REGISTER_NAPI || a2 == UT_IORING_UNREGISTER_NAPI)) {
		/* the agent's own calls use the real syscall: this is the program */
		app_napi((int)a1);
	}
	return fn(nr, a1, a2, a3, a4, a5, a6);
}

/* ---- liburing: setup and teardown ---- */

struct qi_arg {
	int (*fn)(unsigned int, struct io_uring *, unsigned int);
};

static int qi_call(struct agent_setup *su, __u32 flags)
{
	struct qi_arg *a = su->arg;
	int ret;

	ret = a->fn(su->entries, su->ring, flags);
	if (ret < 0)
		return ret;
	/* liburing copied the flags the kernel got: the program sees its own */
	su->ring->flags = su->prog_flags;
	return su->ring->ring_fd;
}

EXPORT int io_uring_queue_init(unsigned entries, struct io_uring *ring, unsigned flags)
{
	struct qi_arg a = { .fn = REAL(io_uring_queue_init, CALLER) };
	struct agent_setup su = {
		.entry = UT_ENTRY_LIBURING,
		.entries = entries,
		.prog_flags = flags,
		.ring = ring,
		.call = qi_call,
		.arg = &a,
	};
	int ret;

	if (!a.fn)
		return -ENOSYS;
	if (setup_depth)
		return a.fn(entries, ring, flags);
	ret = outer_setup(&su);
	return ret < 0 ? ret : 0;
}

struct qip_arg {
	int (*fn)(unsigned int, struct io_uring *, struct io_uring_params *);
	struct io_uring_params *p;
};

static int qip_call(struct agent_setup *su, __u32 flags)
{
	struct qip_arg *a = su->arg;
	int ret;

	a->p->flags = flags;
	ret = a->fn(su->entries, su->ring, a->p);
	/* the kernel wrote the other fields of params: those are kept */
	a->p->flags = su->prog_flags;
	if (ret < 0)
		return ret;
	su->ring->flags = su->prog_flags;
	return su->ring->ring_fd;
}

EXPORT int io_uring_queue_init_params(unsigned entries, struct io_uring *ring,
				      struct io_uring_params *p)
{
	struct qip_arg a = { .fn = REAL(io_uring_queue_init_params, CALLER), .p = p };
	struct agent_setup su = {
		.entry = UT_ENTRY_LIBURING,
		.entries = entries,
		.ring = ring,
		.call = qip_call,
		.arg = &a,
	};
	int ret;

	if (!a.fn)
		return -ENOSYS;
	/* liburing dereferences p itself: a bad one faults with or without us */
	if (setup_depth || !p)
		return a.fn(entries, ring, p);
	su.prog_flags = p->flags;
	ret = outer_setup(&su);
	return ret < 0 ? ret : 0;
}

/*
 * liburing 2.5+: the ring's memory from the program. Not in Debian's 2.3
 * headers, so declared here, as liburing declares it; a program linked with
 * a liburing that has it finds it here first.
 */
EXPORT int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring,
				   struct io_uring_params *p, void *buf, size_t buf_size);

struct qim_arg {
	int (*fn)(unsigned int, struct io_uring *, struct io_uring_params *, void *, size_t);
	struct io_uring_params *p;
	void *buf;
	size_t buf_size;
};

static int qim_call(struct agent_setup *su, __u32 flags)
{
	struct qim_arg *a = su->arg;
	int ret;

	a->p->flags = flags;
	/* returns the bytes of buf it used, or -errno */
	ret = a->fn(su->entries, su->ring, a->p, a->buf, a->buf_size);
	a->p->flags = su->prog_flags;
	if (ret < 0)
		return ret;
	su->ring->flags = su->prog_flags;
	su->mem_used = ret;
	return su->ring->ring_fd;
}

EXPORT int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring,
				   struct io_uring_params *p, void *buf, size_t buf_size)
{
	struct qim_arg a = {
		.fn = REAL(io_uring_queue_init_mem, CALLER),
		.p = p,
		.buf = buf,
		.buf_size = buf_size,
	};
	struct agent_setup su = {
		.entry = UT_ENTRY_LIBURING,
		.entries = entries,
		.ring = ring,
		.call = qim_call,
		.arg = &a,
	};
	int ret;

	if (!a.fn)
		return -ENOSYS;
	if (setup_depth || !p)
		return a.fn(entries, ring, p, buf, buf_size);
	su.prog_flags = p->flags;
	ret = outer_setup(&su);
	return ret < 0 ? ret : su.mem_used;
}

struct setup_arg {
	int (*fn)(unsigned int, struct io_uring_params *);
	struct io_uring_params *p;
};

static int setup_call(struct agent_setup *su, __u32 flags)
{
	struct setup_arg *a = su->arg;
	int ret;

	a->p->flags = flags;
	ret = a->fn(su->entries, a->p);
	a->p->flags = su->prog_flags;
	return ret;
}

/* liburing 2.3's raw wrapper: the fd or -errno (no errno) */
EXPORT int io_uring_setup(unsigned int entries, struct io_uring_params *p)
{
	struct setup_arg a = { .fn = REAL(io_uring_setup, CALLER), .p = p };
	struct agent_setup su = {
		.entry = UT_ENTRY_LIBURING_SETUP,
		.entries = entries,
		.call = setup_call,
		.arg = &a,
	};
	int ret;

	if (!a.fn)
		return -ENOSYS;
	if (setup_depth)
		return a.fn(entries, p);
	if (!user_readable(p, sizeof(*p))) {
		agent_debug("pid %d: io_uring_setup params %p not readable: left to the kernel",
			    (int)getpid(), (void *)p);
		return a.fn(entries, p);
	}
	su.prog_flags = p->flags;
	ret = outer_setup(&su);
	return ret;
}

EXPORT void io_uring_queue_exit(struct io_uring *ring)
{
	void (*fn)(struct io_uring *) = REAL(io_uring_queue_exit, CALLER);
	int saved_errno = errno;

	agent_rings_drop(ring, ring->ring_fd);
	errno = saved_errno;
	if (fn)
		fn(ring);
}

/* liburing 2.3's raw register wrapper: a program's own NAPI call may come this way */
EXPORT int io_uring_register(unsigned int fd, unsigned int opcode, const void *arg,
			     unsigned int nr_args)
{
	int (*fn)(unsigned int, unsigned int, const void *, unsigned int) =
		REAL(io_uring_register, CALLER);

	if (!fn)
		return -ENOSYS;
	if (opcode == UT_IORING_REGISTER_NAPI || opcode == UT_IORING_UNREGISTER_NAPI)
		app_napi((int)fd);
	return fn(fd, opcode, arg, nr_args);
}

/* ---- liburing: submit and wait, each the fast path first ---- */

EXPORT int io_uring_submit(struct io_uring *ring)
{
	int (*fn)(struct io_uring *) = REAL(io_uring_submit, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring) : -ENOSYS;
}

EXPORT int io_uring_submit_and_wait(struct io_uring *ring, unsigned wait_nr)
{
	int (*fn)(struct io_uring *, unsigned) = REAL(io_uring_submit_and_wait, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring, wait_nr) : -ENOSYS;
}

EXPORT int io_uring_submit_and_wait_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
					    unsigned wait_nr, struct __kernel_timespec *ts,
					    sigset_t *sigmask)
{
	int (*fn)(struct io_uring *, struct io_uring_cqe **, unsigned,
		  struct __kernel_timespec *, sigset_t *) =
		REAL(io_uring_submit_and_wait_timeout, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring, cqe_ptr, wait_nr, ts, sigmask) : -ENOSYS;
}

EXPORT int io_uring_submit_and_get_events(struct io_uring *ring)
{
	int (*fn)(struct io_uring *) = REAL(io_uring_submit_and_get_events, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring) : -ENOSYS;
}

EXPORT int io_uring_get_events(struct io_uring *ring)
{
	int (*fn)(struct io_uring *) = REAL(io_uring_get_events, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring) : -ENOSYS;
}

/* io_uring_wait_cqe(), io_uring_wait_cqe_nr() and io_uring_peek_cqe() are inlines calling this */
EXPORT int __io_uring_get_cqe(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned submit, unsigned wait_nr, sigset_t *sigmask)
{
	int (*fn)(struct io_uring *, struct io_uring_cqe **, unsigned, unsigned, sigset_t *) =
		REAL(__io_uring_get_cqe, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring, cqe_ptr, submit, wait_nr, sigmask) : -ENOSYS;
}

EXPORT int io_uring_wait_cqes(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
			      unsigned wait_nr, struct __kernel_timespec *ts, sigset_t *sigmask)
{
	int (*fn)(struct io_uring *, struct io_uring_cqe **, unsigned,
		  struct __kernel_timespec *, sigset_t *) = REAL(io_uring_wait_cqes, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring, cqe_ptr, wait_nr, ts, sigmask) : -ENOSYS;
}

EXPORT int io_uring_wait_cqe_timeout(struct io_uring *ring, struct io_uring_cqe **cqe_ptr,
				     struct __kernel_timespec *ts)
{
	int (*fn)(struct io_uring *, struct io_uring_cqe **, struct __kernel_timespec *) =
		REAL(io_uring_wait_cqe_timeout, CALLER);

	agent_poll(-1, ring);
	return fn ? fn(ring, cqe_ptr, ts) : -ENOSYS;
}

EXPORT int io_uring_enter(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
			  unsigned int flags, sigset_t *sig)
{
	int (*fn)(unsigned int, unsigned int, unsigned int, unsigned int, sigset_t *) =
		REAL(io_uring_enter, CALLER);

	agent_poll((flags & IORING_ENTER_REGISTERED_RING) ? -1 : (int)fd, NULL);
	return fn ? fn(fd, to_submit, min_complete, flags, sig) : -ENOSYS;
}

EXPORT int io_uring_enter2(unsigned int fd, unsigned int to_submit, unsigned int min_complete,
			   unsigned int flags, sigset_t *sig, size_t sz)
{
	int (*fn)(unsigned int, unsigned int, unsigned int, unsigned int, sigset_t *, size_t) =
		REAL(io_uring_enter2, CALLER);

	agent_poll((flags & IORING_ENTER_REGISTERED_RING) ? -1 : (int)fd, NULL);
	return fn ? fn(fd, to_submit, min_complete, flags, sig, sz) : -ENOSYS;
}
