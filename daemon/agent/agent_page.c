// SPDX-License-Identifier: GPL-2.0-only
/* The policy page: slots under a sequence lock, the file that holds them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_page.h"
#include "atomic_file.h"
#include "io_util.h"

/*
 * Writer side of the slot's sequence lock. The daemon is the only writer
 * (one thread), so no lock among writers; agents retry a read that saw an
 * odd or changed seq.
 */
static void write_begin(struct ut_agent_slot *s)
{
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void write_end(struct ut_agent_page *pg, struct ut_agent_slot *s)
{
	__atomic_store_n(&s->seq, s->seq + 1, __ATOMIC_RELEASE);
	/* the agents' one atomic load on their hot path */
	__atomic_fetch_add(&pg->gen, 1, __ATOMIC_RELEASE);
}

void agent_page_init(struct ut_agent_page *pg, uint32_t nslots, pid_t self)
{
	memset(pg, 0, UT_AGENT_PAGE_SIZE(nslots));
	pg->magic = UT_AGENT_PAGE_MAGIC;
	pg->version = UT_AGENT_PAGE_VERSION;
	pg->size = UT_AGENT_PAGE_SIZE(nslots);
	pg->nslots = nslots;
	pg->daemon_pid = self;
	for (uint32_t i = 0; i < nslots; i++)
		pg->slots[i].fd = -1;
}

bool agent_page_usable(const struct ut_agent_page *pg, size_t size)
{
	return size == UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS) &&
	       pg->magic == UT_AGENT_PAGE_MAGIC && pg->version == UT_AGENT_PAGE_VERSION &&
	       pg->size == size && pg->nslots == UT_AGENT_PAGE_SLOTS;
}

int agent_slot_alloc(struct ut_agent_page *pg, pid_t pid)
{
	for (uint32_t i = 0; i < pg->nslots; i++) {
		struct ut_agent_slot *s = &pg->slots[i];

		if (s->pid)
			continue;
		write_begin(s);
		s->pid = pid;
		s->fd = -1;
		s->ino = 0;
		s->flags = 0;
		s->napi_enabled = 0;
		s->busy_poll_us = 0;
		s->prefer_busy_poll = 0;
		s->static_ids = 0;
		s->n_ids = 0;
		memset(s->ids, 0, sizeof(s->ids));
		/* napi_gen keeps counting: an agent never mistakes a new decision for an old one */
		write_end(pg, s);
		return (int)i;
	}
	return -ENOSPC;
}

void agent_slot_free(struct ut_agent_page *pg, uint32_t idx)
{
	struct ut_agent_slot *s;

	if (idx >= pg->nslots)
		return;
	s = &pg->slots[idx];
	write_begin(s);
	s->pid = 0;
	s->fd = -1;
	s->ino = 0;
	s->flags = 0;
	write_end(pg, s);
}

void agent_slot_set_ring(struct ut_agent_page *pg, uint32_t idx, int fd, uint64_t ino)
{
	struct ut_agent_slot *s = &pg->slots[idx];

	write_begin(s);
	s->fd = fd;
	s->ino = ino;
	write_end(pg, s);
}

void agent_slot_set_flags(struct ut_agent_page *pg, uint32_t idx, uint32_t flags)
{
	struct ut_agent_slot *s = &pg->slots[idx];

	write_begin(s);
	s->flags = flags;
	write_end(pg, s);
}

void agent_slot_set_napi(struct ut_agent_page *pg, uint32_t idx, const struct tuner_setting *t)
{
	struct ut_agent_slot *s = &pg->slots[idx];
	unsigned int n = t->static_ids ? t->n_ids : 0;

	if (n > UT_AGENT_MAX_IDS)
		n = UT_AGENT_MAX_IDS;
	write_begin(s);
	s->flags |= UT_SLOT_NAPI;
	s->napi_gen++;
	s->napi_enabled = t->enabled;
	s->busy_poll_us = t->enabled ? t->busy_poll_us : 0;
	s->prefer_busy_poll = t->enabled && t->prefer;
	s->static_ids = t->enabled && n;
	s->n_ids = t->enabled ? n : 0;
	memset(s->ids, 0, sizeof(s->ids));
	memcpy(s->ids, t->ids, n * sizeof(s->ids[0]));
	write_end(pg, s);
}

void agent_slot_read(const struct ut_agent_page *pg, uint32_t idx, struct ut_agent_slot *out)
{
	/* the daemon is the only writer: its own reads need no retry */
	*out = pg->slots[idx];
}

/* the existing file, if this build can take it over; else -errno */
static int reuse(struct agent_page *ap, int fd)
{
	struct stat st;
	void *p;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size != UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS))
		return -EINVAL;
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (!agent_page_usable(p, st.st_size)) {
		munmap(p, st.st_size);
		return -EINVAL;
	}
	ap->pg = p;
	ap->size = st.st_size;
	return 0;
}

/* a new file beside @path, renamed over it once complete */
static int create(struct agent_page *ap, const char *path, pid_t self)
{
	size_t size = UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS);
	struct atomic_file af;
	void *p;
	int ret;

	ret = atomic_file_open(&af, path, NULL, 0644);
	if (ret)
		return ret;
	if (ftruncate(af.fd, size)) {
		ret = -errno;
		goto fail;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, af.fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		goto fail;
	}
	agent_page_init(p, UT_AGENT_PAGE_SLOTS, self);
	/* no fsync: the page is live state (in /run), not a record; the mapping outlives the fd */
	ret = atomic_file_commit(&af, 0);
	if (ret) {
		munmap(p, size);
		return ret;
	}
	ap->pg = p;
	ap->size = size;
	return 0;
fail:
	atomic_file_abort(&af);
	return ret;
}

int agent_page_open(struct agent_page *ap, const char *path, pid_t self, char *err,
		    size_t errlen)
{
	int fd, ret;

	memset(ap, 0, sizeof(*ap));
	ap->ro_fd = -1;
	snprintf(ap->path, sizeof(ap->path), "%s", path);
	ret = mkdir_parents(path);
	if (ret) {
		snprintf(err, errlen, "agent page %s: cannot create its directory: %s", path,
			 strerror(-ret));
		return ret;
	}
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		ret = reuse(ap, fd);
		close(fd);
		ap->reused = !ret;
	}
	if (!ap->pg) {
		ret = create(ap, path, self);
		if (ret) {
			snprintf(err, errlen, "agent page %s: cannot create it: %s", path,
				 strerror(-ret));
			return ret;
		}
	}
	ap->pg->daemon_pid = self;
	/* what agents get: a read-only open of the same file */
	ap->ro_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (ap->ro_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "agent page %s: %s", path, strerror(-ret));
		agent_page_close(ap);
		return ret;
	}
	return 0;
}

void agent_page_close(struct agent_page *ap)
{
	if (ap->pg) {
		ap->pg->daemon_pid = 0;
		munmap(ap->pg, ap->size);
		ap->pg = NULL;
	}
	if (ap->ro_fd >= 0)
		close(ap->ro_fd);
	ap->ro_fd = -1;
}
