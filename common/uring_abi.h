/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_uring ABI pieces newer than Debian bookworm's linux-libc-dev (6.1) and
 * liburing 2.3: NAPI registration (6.9+, tracking modes 6.13+) and setup
 * flags up to HYBRID_IOPOLL (6.13). User space only; BPF reads the kernel's
 * own types through CO-RE.
 */
#ifndef UT_URING_ABI_H
#define UT_URING_ABI_H

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

#endif /* UT_URING_ABI_H */
