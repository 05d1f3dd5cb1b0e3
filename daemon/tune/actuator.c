// SPDX-License-Identifier: GPL-2.0-only
/* NAPI registration on other processes' rings: pidfd_getfd + io_uring_register. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "actuator.h"
#include "io_util.h"
#include "proc_stat.h"
#include "uring_abi.h"
#include "uringtune.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open	434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* A private copy of the ring's fd, proven to be the same ring. */
static int open_ring(const struct ring_target *t, char *err, size_t errlen)
{
	struct stat st;
	int pidfd, fd, ret;

	pidfd = syscall(SYS_pidfd_open, t->pid, 0);
	if (pidfd < 0) {
		ret = -errno;
		snprintf(err, errlen, "pidfd_open(%d): %s", t->pid, strerror(-ret));
		return ret == -EINVAL ? -ESRCH : ret;
	}
	/*
	 * checked after pidfd_open: from here the pidfd pins that process;
	 * start_boottime 0 (not known): the pidfd alone, /proc not read
	 */
	if (t->start_boottime && !proc_same_start(t->pid, t->start_boottime)) {
		snprintf(err, errlen, "pid %d now names another process", t->pid);
		ret = -ESRCH;
		goto out;
	}
	fd = syscall(SYS_pidfd_getfd, pidfd, t->fd, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "pidfd_getfd(pid %d, fd %d): %s", t->pid, t->fd,
			 strerror(-ret));
		/* EBADF: fd closed; ESRCH: process exiting */
		if (ret == -EBADF)
			ret = -ESTALE;
		goto out;
	}
	if (fstat(fd, &st) || (t->ino && st.st_ino != t->ino) || !fd_is_io_uring(fd)) {
		snprintf(err, errlen, "pid %d fd %d is no longer the same io_uring ring",
			 t->pid, t->fd);
		close(fd);
		ret = -ESTALE;
		goto out;
	}
	ret = fd;
out:
	close(pidfd);
	return ret;
}

static int napi_call(int fd, unsigned int opcode, struct ut_io_uring_napi *arg,
		     const char *what, char *err, size_t errlen)
{
	if (syscall(__NR_io_uring_register, fd, opcode, arg, 1) == 0)
		return 0;
	snprintf(err, errlen, "%s: %s", what, strerror(errno));
	return -errno;
}

/*
 * REGISTER_OP with STATIC tracking empties the ring's NAPI list; then off.
 * Before 6.13 there are no tracking modes: the kernel refuses a non-zero
 * op_param (its pad/resv then) with EINVAL, and UNREGISTER alone is the way
 * off (seen on 6.12 under systemd: every stop failed to restore, tests/
 * integration/vm_systemd_6_12.sh).
 */
static int napi_off(int fd, char *err, size_t errlen)
{
	struct ut_io_uring_napi napi = {
		.opcode = UT_NAPI_REGISTER_OP,
		.op_param = UT_NAPI_TRACKING_STATIC,
	};
	int ret;

	/* UNREGISTER alone keeps the learned list (6.18): empty it first */
	ret = napi_call(fd, UT_IORING_REGISTER_NAPI, &napi, "IORING_REGISTER_NAPI (empty list)",
			err, errlen);
	if (ret && ret != -EINVAL)
		return ret;
	memset(&napi, 0, sizeof(napi));
	return napi_call(fd, UT_IORING_UNREGISTER_NAPI, &napi, "IORING_UNREGISTER_NAPI",
			 err, errlen);
}

static int napi_on(int fd, unsigned int busy_poll_us, bool prefer, bool static_ids,
		   const uint32_t *ids, unsigned int n_ids, char *err, size_t errlen)
{
	struct ut_io_uring_napi napi = {
		.busy_poll_to = busy_poll_us,
		.prefer_busy_poll = prefer,
		.opcode = UT_NAPI_REGISTER_OP,
		.op_param = static_ids ? UT_NAPI_TRACKING_STATIC : UT_NAPI_TRACKING_DYNAMIC,
	};
	int ret;

	ret = napi_call(fd, UT_IORING_REGISTER_NAPI, &napi, "IORING_REGISTER_NAPI", err, errlen);
	if (ret || !static_ids)
		return ret;
	for (unsigned int i = 0; i < n_ids && i < UT_MAX_NAPI_IDS; i++) {
		memset(&napi, 0, sizeof(napi));
		napi.opcode = UT_NAPI_STATIC_ADD_ID;
		napi.op_param = ids[i];
		ret = napi_call(fd, UT_IORING_REGISTER_NAPI, &napi,
				"IORING_REGISTER_NAPI (static add id)", err, errlen);
		/* EEXIST: already in the list */
		if (ret && ret != -EEXIST) {
			char ignored[64];

			napi_off(fd, ignored, sizeof(ignored));
			return ret;
		}
	}
	return 0;
}

int actuator_apply(const struct ring_target *t, const struct tuner_setting *s,
		   char *err, size_t errlen)
{
	int fd, ret;

	fd = open_ring(t, err, errlen);
	if (fd < 0)
		return fd;
	if (s->enabled)
		ret = napi_on(fd, s->busy_poll_us, s->prefer, s->static_ids, s->ids, s->n_ids,
			      err, errlen);
	else
		ret = napi_off(fd, err, errlen);
	close(fd);
	return ret;
}

int actuator_restore(const struct ring_target *t, const struct journal_entry *orig,
		     char *err, size_t errlen)
{
	int fd, ret;

	fd = open_ring(t, err, errlen);
	if (fd < 0)
		return fd;
	/* static IDs are not journaled: a static original comes back empty */
	if (orig->enabled)
		ret = napi_on(fd, orig->busy_poll_us, orig->prefer,
			      orig->track_mode == UT_TRACK_STATIC, NULL, 0, err, errlen);
	else
		ret = napi_off(fd, err, errlen);
	close(fd);
	return ret;
}

void actuator_target_of(const struct journal_entry *e, struct ring_target *t)
{
	t->pid = e->pid;
	t->start_boottime = e->start_boottime;
	t->fd = e->fd;
	t->ino = e->ino;
}
