/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The real functions behind the interposed ones, and the real syscall(2) for
 * the agent's own calls. A leaf: libc and libdl only.
 */
#ifndef UT_AGENT_REAL_H
#define UT_AGENT_REAL_H

/*
 * dlsym(RTLD_NEXT, @name), else the definition in the object that called the
 * interposer (@caller: a liburing dlopen()ed RTLD_LOCAL is not after us in
 * the global scope, but its own internal calls still land here). Stored in
 * *@slot; NULL if there is none.
 */
void *agent_real_resolve(void **slot, const char *name, const void *caller);

/* one relaxed load once resolved: a function's address never changes */
static inline void *agent_real(void **slot, const char *name, const void *caller)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (__builtin_expect(!p, 0))
		p = agent_real_resolve(slot, name, caller);
	return p;
}

/*
 * The real syscall(2), never the agent's own interposer: the agent's
 * io_uring_register and io_uring_setup calls must neither look like the
 * program's nor run the agent again. -1 and errno, as syscall(2).
 */
long agent_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

#endif /* UT_AGENT_REAL_H */
