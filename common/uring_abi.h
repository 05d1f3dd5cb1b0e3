/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_uring ABI pieces newer than Debian bookworm's linux-libc-dev (6.1) and
 * liburing 2.3: NAPI registration (6.9+, tracking modes 6.13+), setup
 * flags up to HYBRID_IOPOLL (6.13), receive bundles (6.10), the minimum
 * wait (6.12) and the query interface (6.18). User space only; BPF reads
 * the kernel's own types through CO-RE.
 */
#ifndef UT_URING_ABI_H
#define UT_URING_ABI_H

#include <stddef.h>

#include <linux/types.h>

#define UT_IORING_REGISTER_NAPI		27
#define UT_IORING_UNREGISTER_NAPI	28

/* io_uring_napi.opcode */
#define UT_NAPI_REGISTER_OP		0
#define UT_NAPI_STATIC_ADD_ID		1
#define UT_NAPI_STATIC_DEL_ID		2

/* io_uring_napi.op_param for REGISTER_OP, and ctx->napi_track_mode */
#define UT_NAPI_TRACKING_DYNAMIC	0
#define UT_NAPI_TRACKING_STATIC		1
#define UT_NAPI_TRACKING_INACTIVE	255

/* struct io_uring_napi, 16 bytes; REGISTER copies the previous settings back */
struct ut_io_uring_napi {
	__u32 busy_poll_to;	/* microseconds */
	__u8 prefer_busy_poll;
	__u8 opcode;
	__u8 pad[2];
	__u32 op_param;
	__u32 resv;
};

_Static_assert(sizeof(struct ut_io_uring_napi) == 16, "io_uring_napi is 16 bytes");

#define UT_SETUP_IOPOLL			(1U << 0)
#define UT_SETUP_SQPOLL			(1U << 1)
#define UT_SETUP_SQ_AFF			(1U << 2)
#define UT_SETUP_CQSIZE			(1U << 3)
#define UT_SETUP_CLAMP			(1U << 4)
#define UT_SETUP_ATTACH_WQ		(1U << 5)
#define UT_SETUP_R_DISABLED		(1U << 6)
#define UT_SETUP_SUBMIT_ALL		(1U << 7)
#define UT_SETUP_COOP_TASKRUN		(1U << 8)
#define UT_SETUP_TASKRUN_FLAG		(1U << 9)
#define UT_SETUP_SQE128			(1U << 10)
#define UT_SETUP_CQE32			(1U << 11)
#define UT_SETUP_SINGLE_ISSUER		(1U << 12)
#define UT_SETUP_DEFER_TASKRUN		(1U << 13)
#define UT_SETUP_NO_MMAP		(1U << 14)
#define UT_SETUP_REGISTERED_FD_ONLY	(1U << 15)
#define UT_SETUP_NO_SQARRAY		(1U << 16)
#define UT_SETUP_HYBRID_IOPOLL		(1U << 17)

/* io_uring_params.features */
#define UT_FEAT_RECVSEND_BUNDLE		(1U << 14)	/* 6.10 */
#define UT_FEAT_MIN_TIMEOUT		(1U << 15)	/* 6.12: min_wait_usec */

/* sqe->ioprio of SEND/RECV (and their msg forms): pick several provided buffers at once */
#define UT_IORING_RECVSEND_BUNDLE	(1U << 4)

/*
 * io_uring_enter's argument with IORING_ENTER_EXT_ARG. From 6.12 the field
 * older headers call pad is min_wait_usec: wait that long for min_complete
 * CQEs, then return with whatever has come (at least one, or until ts).
 * Older kernels refuse a non-zero pad with EINVAL.
 */
struct ut_io_uring_getevents_arg {
	__u64 sigmask;
	__u32 sigmask_sz;
	__u32 min_wait_usec;
	__u64 ts;			/* struct __kernel_timespec *, relative */
};

_Static_assert(sizeof(struct ut_io_uring_getevents_arg) == 24, "io_uring_getevents_arg is 24 bytes");

/*
 * IORING_REGISTER_QUERY (6.18, include/uapi/linux/io_uring/query.h): with
 * fd = -1 and nr_args = 0, arg is a chain of headers, each naming one query
 * and its buffer. The kernel copies min(size, its own size) bytes in,
 * answers into the buffer, zeroes the rest of it, and sets result (0 or
 * -errno; -EOPNOTSUPP for a query it does not know) and size (the bytes it
 * answered). Older kernels refuse the register opcode itself (EINVAL), or
 * fd -1 before they had any fd-less register call (EBADF).
 */
#define UT_IORING_REGISTER_QUERY	35

struct ut_io_uring_query_hdr {
	__u64 next_entry;		/* the next header, 0 at the end */
	__u64 query_data;		/* the query's buffer */
	__u32 query_op;
	__u32 size;			/* in: the buffer's; out: the answer's */
	__s32 result;			/* in: 0; out: 0 or -errno */
	__u32 resv[3];			/* must be 0 */
};

_Static_assert(sizeof(struct ut_io_uring_query_hdr) == 40, "io_uring_query_hdr is 40 bytes");

#define UT_IO_URING_QUERY_OPCODES	0

/* the answer to IO_URING_QUERY_OPCODES (its first version had 40 bytes: no nr_query_opcodes) */
struct ut_io_uring_query_opcode {
	__u32 nr_request_opcodes;	/* IORING_OP_* */
	__u32 nr_register_opcodes;	/* IORING_[UN]REGISTER_* */
	__u64 feature_flags;		/* IORING_FEAT_* */
	__u64 ring_setup_flags;		/* IORING_SETUP_*: what io_uring_setup accepts */
	__u64 enter_flags;		/* IORING_ENTER_* */
	__u64 sqe_flags;		/* IOSQE_* */
	__u32 nr_query_opcodes;
	__u32 pad;
};

_Static_assert(sizeof(struct ut_io_uring_query_opcode) == 48, "io_uring_query_opcode is 48 bytes");

/* an answer shorter than this does not reach ring_setup_flags */
#define UT_QUERY_OPCODE_SETUP_END	(offsetof(struct ut_io_uring_query_opcode, ring_setup_flags) + \
					 sizeof(__u64))

#endif /* UT_URING_ABI_H */
