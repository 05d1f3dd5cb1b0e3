// SPDX-License-Identifier: GPL-2.0-only
/* The "register" backend: the actuator on a pidfd_getfd copy of the ring's fd. */
#include "actuator.h"
#include "backend_pidfd.h"
#include "ring.h"

static int pidfd_apply(void *arg, const struct ut_ring *ring, const struct tuner_setting *s,
		       char *err, size_t errlen)
{
	const struct ut_holder *h = &ring->obs.holder;
	struct ring_target t = {
		.pid = h->pid,
		.start_boottime = h->start_boottime,
		.fd = h->fd,
		.ino = h->ino,
	};

	(void)arg;
	return actuator_apply(&t, s, err, errlen);
}

static int pidfd_restore(void *arg, const struct journal_entry *e, char *err, size_t errlen)
{
	struct ring_target t;

	(void)arg;
	actuator_target_of(e, &t);
	return actuator_restore(&t, e, err, errlen);
}

void backend_pidfd_init(struct tune_backend *b)
{
	*b = (struct tune_backend){
		.name = "register",
		.journaled = true,
		.apply = pidfd_apply,
		.restore = pidfd_restore,
	};
}
