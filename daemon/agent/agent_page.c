// SPDX-License-Identifier: GPL-2.0-only
/* The policy page: slots under a sequence lock; the page and owners files that hold them. */
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
}

bool agent_page_usable(const struct ut_agent_page *pg, size_t size)
{
	return size == UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS) &&
	       pg->magic == UT_AGENT_PAGE_MAGIC && pg->version == UT_AGENT_PAGE_VERSION &&
	       pg->size == size && pg->nslots == UT_AGENT_PAGE_SLOTS;
}

bool agent_owners_usable(const struct agent_owners *own, size_t size, uint32_t nslots)
{
	return size == AGENT_OWNERS_SIZE(nslots) && own->magic == AGENT_OWNERS_MAGIC &&
	       own->version == AGENT_OWNERS_VERSION && own->nslots == nslots;
}

static void owners_init(struct agent_owners *own, uint32_t nslots)
{
	memset(own, 0, AGENT_OWNERS_SIZE(nslots));
	own->magic = AGENT_OWNERS_MAGIC;
	own->version = AGENT_OWNERS_VERSION;
	own->nslots = nslots;
}

int agent_slot_alloc(struct ut_agent_page *pg, uint64_t token)
{
	for (uint32_t i = 0; i < pg->nslots; i++) {
		struct ut_agent_slot *s = &pg->slots[i];

		if (s->token)
			continue;
		write_begin(s);
		s->token = token;
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
	s->token = 0;
	s->flags = 0;
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

void agent_owner_set(struct agent_page *ap, uint32_t idx, const struct agent_owner_rec *r)
{
	struct agent_owner_rec *o;

	if (!ap->own || idx >= ap->own->nslots)
		return;
	o = &ap->own->recs[idx];
	/*
	 * The token last (and gone first): a daemon killed half-way leaves a
	 * record whose token is not its slot's, which the next run ignores.
	 */
	__atomic_store_n(&o->token, 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	o->pid = r->pid;
	o->uid = r->uid;
	o->start_ticks = r->start_ticks;
	o->fd = r->fd;
	o->ino = r->ino;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&o->token, r->token, __ATOMIC_RELAXED);
}

/* @path mapped read-write if it is a file of @size that @usable accepts; else NULL */
static void *map_existing(const char *path, size_t size,
			  bool (*usable)(const void *map, size_t size))
{
	struct stat st;
	void *p = NULL;
	int fd;

	fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (size_t)st.st_size != size)
		goto out;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		p = NULL;
		goto out;
	}
	if (!usable(p, size)) {
		munmap(p, size);
		p = NULL;
		goto out;
	}
	/* agents get the page as a reply's fd, never by its name */
	if (st.st_mode & 077)
		fchmod(fd, 0600);
out:
	close(fd);
	return p;
}

/* a new file of @size at @path (mode 0600), @init'ed, then renamed over it; or NULL */
static void *map_new(const char *path, size_t size, void (*init)(void *map, void *arg),
		     void *arg, int *err)
{
	struct atomic_file af;
	void *p;

	*err = atomic_file_open(&af, path, NULL, 0600);
	if (*err)
		return NULL;
	if (ftruncate(af.fd, size)) {
		*err = -errno;
		goto fail;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, af.fd, 0);
	if (p == MAP_FAILED) {
		*err = -errno;
		goto fail;
	}
	init(p, arg);
	/* no fsync: the page is live state (in /run), not a record; the mapping outlives the fd */
	*err = atomic_file_commit(&af, 0);
	if (*err) {
		munmap(p, size);
		return NULL;
	}
	return p;
fail:
	atomic_file_abort(&af);
	return NULL;
}

static bool page_ok(const void *map, size_t size)
{
	return agent_page_usable(map, size);
}

static bool owners_ok(const void *map, size_t size)
{
	return agent_owners_usable(map, size, UT_AGENT_PAGE_SLOTS);
}

static void page_new(void *map, void *arg)
{
	agent_page_init(map, UT_AGENT_PAGE_SLOTS, *(pid_t *)arg);
}

static void owners_new(void *map, void *arg)
{
	(void)arg;
	owners_init(map, UT_AGENT_PAGE_SLOTS);
}

/* the page, then its owners file: each taken over if valid, else made anew */
static int map_both(struct agent_page *ap, const char *own_path, pid_t self, char *err,
		    size_t errlen)
{
	size_t size = UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS);
	size_t own_size = AGENT_OWNERS_SIZE(UT_AGENT_PAGE_SLOTS);
	int ret = 0;

	ap->pg = map_existing(ap->path, size, page_ok);
	ap->reused = ap->pg != NULL;
	if (!ap->pg)
		ap->pg = map_new(ap->path, size, page_new, &self, &ret);
	if (!ap->pg) {
		snprintf(err, errlen, "agent page %s: cannot create it: %s", ap->path,
			 strerror(-ret));
		return ret;
	}
	ap->size = size;
	/* a new page's slots are all free: an old owners file says nothing of them */
	ap->own = ap->reused ? map_existing(own_path, own_size, owners_ok) : NULL;
	ap->owners_reused = ap->own != NULL;
	if (!ap->own)
		ap->own = map_new(own_path, own_size, owners_new, NULL, &ret);
	if (!ap->own) {
		snprintf(err, errlen, "agent page %s: cannot create it: %s", own_path,
			 strerror(-ret));
		return ret;
	}
	ap->own_size = own_size;
	return 0;
}

int agent_page_open(struct agent_page *ap, const char *path, pid_t self, char *err,
		    size_t errlen)
{
	char own_path[PATH_MAX];
	int ret;

	memset(ap, 0, sizeof(*ap));
	ap->ro_fd = -1;
	snprintf(ap->path, sizeof(ap->path), "%s", path);
	if ((size_t)snprintf(own_path, sizeof(own_path), "%s.owners", path) >= sizeof(own_path)) {
		snprintf(err, errlen, "agent page %s: path too long for %s.owners beside it",
			 path, path);
		return -ENAMETOOLONG;
	}
	ret = mkdir_parents(path);
	if (ret) {
		snprintf(err, errlen, "agent page %s: cannot create its directory: %s", path,
			 strerror(-ret));
		return ret;
	}
	ret = map_both(ap, own_path, self, err, errlen);
	if (ret) {
		agent_page_close(ap);
		return ret;
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

int agent_page_mem(struct agent_page *ap, pid_t self)
{
	memset(ap, 0, sizeof(*ap));
	ap->ro_fd = -1;
	ap->in_memory = true;
	ap->size = UT_AGENT_PAGE_SIZE(UT_AGENT_PAGE_SLOTS);
	ap->own_size = AGENT_OWNERS_SIZE(UT_AGENT_PAGE_SLOTS);
	ap->pg = calloc(1, ap->size);
	ap->own = calloc(1, ap->own_size);
	if (!ap->pg || !ap->own) {
		agent_page_close(ap);
		return -ENOMEM;
	}
	agent_page_init(ap->pg, UT_AGENT_PAGE_SLOTS, self);
	owners_init(ap->own, UT_AGENT_PAGE_SLOTS);
	return 0;
}

void agent_page_close(struct agent_page *ap)
{
	if (ap->pg) {
		ap->pg->daemon_pid = 0;
		if (ap->in_memory)
			free(ap->pg);
		else
			munmap(ap->pg, ap->size);
		ap->pg = NULL;
	}
	if (ap->own) {
		if (ap->in_memory)
			free(ap->own);
		else
			munmap(ap->own, ap->own_size);
		ap->own = NULL;
	}
	if (ap->ro_fd >= 0)
		close(ap->ro_fd);
	ap->ro_fd = -1;
}
