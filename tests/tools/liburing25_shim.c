// SPDX-License-Identifier: GPL-2.0-only
/*
 * A stand-in for what liburing 2.5 added and Debian's 2.3 lacks:
 * io_uring_queue_init_mem(), the ring's memory from the caller. Built as
 * build/libut_uring25.so for build/ringentry, so that the agent's
 * interposer of that entry point runs against a real caller and a real
 * callee. Here the ring is set up with io_uring_queue_init_params() (the
 * buffer is not used) and the return value is liburing 2.5's: the bytes of
 * buf used, or -errno.
 */
#include <liburing.h>

#define SHIM_MEM_USED	4096

int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring, struct io_uring_params *p,
			    void *buf, size_t buf_size);

int io_uring_queue_init_mem(unsigned entries, struct io_uring *ring, struct io_uring_params *p,
			    void *buf, size_t buf_size)
{
	int ret;

	(void)buf;
	(void)buf_size;
	ret = io_uring_queue_init_params(entries, ring, p);
	return ret < 0 ? ret : SHIM_MEM_USED;
}
