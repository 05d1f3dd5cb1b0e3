/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What io_uring_setup accepts on this kernel, asked with IORING_REGISTER_QUERY
 * (6.18+): a clean probe of HYBRID_IOPOLL, no ring set up. For the daemon
 * and the agent alike: no allocation, no locks, one raw syscall, nothing
 * but the caller's stack (callable from a program's setup path).
 *
 * Returns 0 and the mask of supported IORING_SETUP_* flags, or:
 *   -EOPNOTSUPP  the kernel has no such query (no IORING_REGISTER_QUERY:
 *                EINVAL for the opcode, EBADF for fd -1 before 6.11,
 *                ENOSYS without io_uring; or the query op is unknown);
 *   -EPROTO      it answered, but not as documented (short or oversized
 *                answer, an odd result, a mask without IOPOLL): unknown,
 *                never "supported";
 *   -errno       any other failure of the call (EPERM from a seccomp
 *                filter, EINTR, EFAULT): unknown too.
 */
#ifndef UT_URING_QUERY_H
#define UT_URING_QUERY_H

#include <stdint.h>

#include "uring_abi.h"

/* syscall(2)'s shape; the agent passes its real one (it interposes syscall()) */
typedef long (*uring_syscall_fn)(long nr, ...);

/* ask the kernel; @sys NULL: libc's syscall() */
int uring_query_setup_flags(uring_syscall_fn sys, uint64_t *mask);

/*
 * The answer judged (pure, for tests): @sys_ret the call's result (0 or
 * -errno), @hdr and @op as the kernel left them after a query of
 * sizeof(*op) bytes whose buffer was zeroed first.
 */
int uring_query_parse(int sys_ret, const struct ut_io_uring_query_hdr *hdr,
		      const struct ut_io_uring_query_opcode *op, uint64_t *mask);

/* does @mask (from the above) have HYBRID_IOPOLL */
static inline int uring_query_has_hybrid(uint64_t mask)
{
	return (mask & UT_SETUP_HYBRID_IOPOLL) != 0;
}

#endif /* UT_URING_QUERY_H */
