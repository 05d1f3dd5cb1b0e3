// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real functions behind the interposed ones: dlsym(RTLD_NEXT), resolved
 * on first use (a program may dlopen liburing long after it started) and
 * kept in a pointer per function.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <unistd.h>

#include "agent_real.h"

/* is @p inside this very library? (then it is our interposer, not the real one) */
static bool ours(const void *p)
{
	Dl_info self, other;

	if (!dladdr((const void *)ours, &self) || !dladdr(p, &other))
		return false;
	return self.dli_fbase == other.dli_fbase;
}

/*
 * A liburing dlopen()ed with RTLD_LOCAL is not in the global scope, so
 * RTLD_NEXT does not see it; but its own internal calls (queue_init ->
 * queue_init_params) resolve through the global scope first and land on our
 * interposers. Then the real one is in the caller's own object.
 */
static void *resolve_in_caller(const char *name, const void *caller)
{
	Dl_info info;
	void *h, *p;

	if (!caller || !dladdr(caller, &info) || !info.dli_fname || !info.dli_fname[0])
		return NULL;
	h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlsym(h, name);
	/* NOLOAD took a reference: give it back (the object stays loaded) */
	dlclose(h);
	if (p && ours(p))
		return NULL;
	return p;
}

void *agent_real_resolve(void **slot, const char *name, const void *caller)
{
	int saved_errno = errno;
	void *p;

	p = dlsym(RTLD_NEXT, name);
	if (!p)
		p = resolve_in_caller(name, caller);
	if (p)
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	errno = saved_errno;
	return p;
}

static void *real_syscall;

long agent_sys(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long (*fn)(long, ...) = agent_real(&real_syscall, "syscall", NULL);

	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(nr, a1, a2, a3, a4, a5, a6);
}
