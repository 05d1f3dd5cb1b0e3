/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The "register" tune backend: NAPI settings from outside the ring's
 * process through the actuator (pidfd_getfd + io_uring_register), applied
 * at once; the lifecycle journals the original settings first.
 */
#ifndef UT_BACKEND_PIDFD_H
#define UT_BACKEND_PIDFD_H

#include "tune_backend.h"

void backend_pidfd_init(struct tune_backend *b);

#endif /* UT_BACKEND_PIDFD_H */
