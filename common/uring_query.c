// SPDX-License-Identifier: GPL-2.0-only
/* IORING_REGISTER_QUERY for the supported setup flags (uring_query.h). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uring_query.h"

#ifndef __NR_io_uring_register
#define __NR_io_uring_register	427
#endif

int uring_query_parse(int sys_ret, const struct ut_io_uring_query_hdr *hdr,
		      const struct ut_io_uring_query_opcode *op, uint64_t *mask)
{
	switch (sys_ret) {
	case 0:
		break;
	case -EINVAL:	/* an unknown register opcode (6.11-6.17's fd-less calls) */
	case -EBADF:	/* fd -1 before any fd-less register call existed */
	case -ENOSYS:	/* no io_uring at all */
		return -EOPNOTSUPP;
	default:
		return sys_ret < 0 ? sys_ret : -EPROTO;
	}
	/* io_handle_query_entry(): -EOPNOTSUPP for a query op it does not know */
	if (hdr->result == -EOPNOTSUPP)
		return -EOPNOTSUPP;
	if (hdr->result != 0)
		return -EPROTO;
	/* it answers at most what was asked, and must reach the setup flags */
	if (hdr->size > sizeof(*op) || hdr->size < UT_QUERY_OPCODE_SETUP_END)
		return -EPROTO;
	/* every kernel with the query has IOPOLL (2019): a mask without it is no answer */
	if (!(op->ring_setup_flags & UT_SETUP_IOPOLL))
		return -EPROTO;
	*mask = op->ring_setup_flags;
	return 0;
}

int uring_query_setup_flags(uring_syscall_fn sys, uint64_t *mask)
{
	struct ut_io_uring_query_opcode op;
	struct ut_io_uring_query_hdr hdr;
	long ret;

	/* zeroed: a kernel that answers less leaves no garbage to be read as flags */
	memset(&op, 0, sizeof(op));
	memset(&hdr, 0, sizeof(hdr));
	hdr.query_data = (uint64_t)(uintptr_t)&op;
	hdr.query_op = UT_IO_URING_QUERY_OPCODES;
	hdr.size = sizeof(op);
	if (!sys)
		sys = syscall;
	/* fd -1: no ring needed; nr_args must be 0; all as longs, syscall() reads longs */
	ret = sys(__NR_io_uring_register, -1L, (long)UT_IORING_REGISTER_QUERY, &hdr, 0L);
	if (ret < 0)
		ret = errno > 0 ? -errno : -EIO;
	return uring_query_parse((int)ret, &hdr, &op, mask);
}
