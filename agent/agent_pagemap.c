// SPDX-License-Identifier: GPL-2.0-only
/*
 * The policy page mapping. One per process, mapped once and kept; a reply
 * with another file (the daemon restarted) replaces it.
 *
 * A thread on the fast path may have loaded the old page pointer and be
 * about to load its generation when the page is replaced: munmap() then
 * would fault it. So the old range is not unmapped but overlaid, in one
 * mmap(MAP_FIXED), with anonymous zero pages: the daemon's file is released
 * at once, the address stays readable (a zero generation just sends that
 * one call down the slow path, which finds the new page). The overlay is
 * unmapped at the next replacement, when no thread can still be between
 * those two loads. At most one such range (about 80 KiB of address space,
 * no memory) is kept.
 *
 * The daemon owns the file: one that it truncates under us would SIGBUS the
 * reader. The daemon never does (it writes the file once at its full size).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_check.h"
#include "agent_pagemap.h"
#include "agent_rings.h"
#include "agent_state.h"

static bool is_current_locked(const struct stat *st)
{
	return agent_fast.page && st->st_dev == agent_state.page_dev &&
	       st->st_ino == agent_state.page_ino;
}

/* agent_state.lock held: make @map (already checked) the page */
static void page_switch_locked(void *map, const struct stat *st, __u32 nslots)
{
	void *old = (void *)agent_fast.page;
	size_t old_len = agent_state.page_len;

	__atomic_store_n(&agent_fast.page, (const struct ut_agent_page *)map, __ATOMIC_RELAXED);
	agent_state.page_len = st->st_size;
	agent_state.page_nslots = nslots;
	agent_state.page_dev = st->st_dev;
	agent_state.page_ino = st->st_ino;
	agent_state.page_epoch++;
	/* the old page's slot numbers mean nothing now; those rings keep their settings */
	agent_rings_forget_locked();
	__atomic_store_n(&agent_fast.seen_gen, AGENT_GEN_NONE, __ATOMIC_RELAXED);

	if (!old)
		return;
	if (agent_state.retired)
		munmap(agent_state.retired, agent_state.retired_len);
	agent_state.retired = NULL;
	if (mmap(old, old_len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE,
		 -1, 0) == MAP_FAILED)
		return;	/* the old mapping stays as it was: still readable */
	agent_state.retired = old;
	agent_state.retired_len = old_len;
}

int agent_page_adopt(int fd, const struct ut_agent_page **pg, __u32 *nslots,
		     unsigned int *epoch, const char **why)
{
	int saved_errno = errno;
	struct ut_agent_page hdr;
	struct stat st;
	void *map = MAP_FAILED;
	ssize_t n;
	int ret;

	if (fstat(fd, &st)) {
		ret = -errno;
		*why = "fstat of the page failed";
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		*why = "page is not a regular file";
		goto out_close;
	}

	pthread_mutex_lock(&agent_state.lock);
	if (is_current_locked(&st)) {
		*pg = agent_fast.page;
		*nslots = agent_state.page_nslots;
		*epoch = agent_state.page_epoch;
		pthread_mutex_unlock(&agent_state.lock);
		ret = 0;
		goto out_close;
	}
	pthread_mutex_unlock(&agent_state.lock);

	/* the header first: a bad page is never mapped */
	n = pread(fd, &hdr, sizeof(hdr), 0);
	if (n != sizeof(hdr)) {
		ret = n < 0 ? -errno : -EINVAL;
		*why = "page shorter than its header";
		goto out_close;
	}
	ret = agent_page_check(&hdr, sizeof(hdr), st.st_size, why);
	if (ret)
		goto out_close;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		*why = "mmap of the page failed";
		goto out_close;
	}
	close(fd);
	fd = -1;
	/* again on what is mapped: the file may have changed since the pread */
	memcpy(&hdr, map, sizeof(hdr));
	ret = agent_page_check(&hdr, sizeof(hdr), st.st_size, why);
	if (ret)
		goto out_unmap;

	pthread_mutex_lock(&agent_state.lock);
	if (is_current_locked(&st)) {
		/* another thread mapped the same file meanwhile */
		munmap(map, st.st_size);
	} else {
		page_switch_locked(map, &st, hdr.nslots);
	}
	*pg = agent_fast.page;
	*nslots = agent_state.page_nslots;
	*epoch = agent_state.page_epoch;
	pthread_mutex_unlock(&agent_state.lock);
	ret = 0;
	goto out;

out_unmap:
	munmap(map, st.st_size);
out_close:
	if (fd >= 0)
		close(fd);
out:
	errno = saved_errno;
	return ret;
}
