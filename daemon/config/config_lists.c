// SPDX-License-Identifier: GPL-2.0-only
/*
 * The list parsers of config_parse.h: [select] and [agent] lists of process
 * names, users and cgroups. User names are resolved to uids while parsing.
 */
#include <errno.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "config_parse.h"

/*
 * [select] and [agent] lists: elements separated by commas and/or blanks. A
 * comma needs an element on each side, so "a,,b", ",a" and "a," are refused
 * as likely typos.
 */
struct list_kind {
	const char *what;		/* "process names": what the elements are */
	const char *noun;		/* "names": for "expected at most 16 names" */
	/* check one element (@len bytes, not terminated) and store it in @slot */
	int (*parse)(const char *elem, size_t len, void *slot, size_t slot_size,
		     char *why, size_t whylen);
};

#define LIST_BLANKS	" \t"

/*
 * The next element of a list at *@pos: its start and length in *@len, NULL
 * at the end. -EINVAL for an empty element.
 */
static int list_next(const char **pos, const char **elem, size_t *len)
{
	const char *p = *pos + strspn(*pos, LIST_BLANKS);

	*elem = NULL;
	if (!*p)
		return 0;
	if (*p == ',')
		return -EINVAL;
	*elem = p;
	*len = strcspn(p, LIST_BLANKS ",");
	p += *len;
	p += strspn(p, LIST_BLANKS);
	if (*p == ',') {
		p++;
		p += strspn(p, LIST_BLANKS);
		if (!*p || *p == ',')
			return -EINVAL;
	}
	*pos = p;
	return 0;
}

static int parse_list(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen,
		      const struct list_kind *kind)
{
	/* field is at key->offset of a struct ut_config, its count at key->count */
	unsigned int *count = (unsigned int *)((char *)field - key->offset + key->count);
	size_t slot_size = key->size / key->max;
	unsigned long long n = 0;
	const char *pos, *elem;
	size_t len;

	/* count first: "expected at most 16 names, got 17" names the total */
	for (pos = value; ; n++) {
		if (list_next(&pos, &elem, &len))
			return config_bad_value(why, whylen, value,
						"%s separated by commas or spaces",
						kind->what);
		if (!elem)
			break;
	}
	if (!n)
		return config_bad_value(why, whylen, value, "%s", kind->what);
	if (n > key->max) {
		snprintf(why, whylen, "expected at most %llu %s, got %llu",
			 key->max, kind->noun, n);
		return -EINVAL;
	}
	n = 0;
	for (pos = value; !list_next(&pos, &elem, &len) && elem; n++) {
		int ret = kind->parse(elem, len, (char *)field + n * slot_size,
				      slot_size, why, whylen);

		if (ret)
			return ret;
	}
	*count = (unsigned int)n;
	return 0;
}

static int parse_comm(const char *elem, size_t len, void *slot, size_t slot_size,
		      char *why, size_t whylen)
{
	/* "nginx # web" would otherwise add "#", "web" as process names */
	if (elem[0] == '#') {
		snprintf(why, whylen, "expected process names, got '%.*s' "
			 "(a comment goes on a line of its own)", (int)len, elem);
		return -EINVAL;
	}
	if (len >= slot_size) {
		snprintf(why, whylen, "expected process names of at most %zu bytes, got '%.*s'",
			 slot_size - 1, (int)len, elem);
		return -EINVAL;
	}
	memcpy(slot, elem, len);
	((char *)slot)[len] = '\0';
	return 0;
}

/* what getpwnam_r() returns for "no such user" besides 0 (see its manual) */
static bool user_unknown(int err)
{
	return err == 0 || err == ENOENT || err == ESRCH || err == EBADF || err == EPERM;
}

/* a uid in decimal, or a user name looked up now in the passwd database */
static int parse_uid(const char *elem, size_t len, void *slot, size_t slot_size,
		     char *why, size_t whylen)
{
	struct passwd pw, *res = NULL;
	char name[256], *buf = NULL;
	size_t buflen = 1024;
	int err;

	(void)slot_size;
	if (len >= sizeof(name))
		goto unknown;
	memcpy(name, elem, len);
	name[len] = '\0';
	if (strspn(name, "0123456789") == len) {
		unsigned long long v;

		errno = 0;
		v = strtoull(name, NULL, 10);
		/* (uid_t)-1 is no one: chown(2)'s "unchanged" */
		if (errno || v >= (uid_t)-1) {
			snprintf(why, whylen,
				 "expected user names or uids from 0 to %u, got '%s'",
				 (unsigned int)(uid_t)-1 - 1, name);
			return -EINVAL;
		}
		*(uid_t *)slot = (uid_t)v;
		return 0;
	}
	for (;;) {
		char *more = realloc(buf, buflen);

		if (!more) {
			err = ENOMEM;
			break;
		}
		buf = more;
		err = getpwnam_r(name, &pw, buf, buflen, &res);
		if (err != ERANGE || buflen >= (1u << 20))
			break;
		buflen *= 2;
	}
	free(buf);
	if (res) {
		*(uid_t *)slot = pw.pw_uid;
		return 0;
	}
	if (!user_unknown(err)) {
		snprintf(why, whylen, "cannot look up user '%s': %s", name, strerror(err));
		return -EINVAL;
	}
unknown:
	snprintf(why, whylen, "expected user names or uids, got unknown user '%.*s'",
		 (int)len, elem);
	return -EINVAL;
}

/*
 * An absolute cgroup v2 path as /proc/PID/cgroup shows it: repeated and
 * trailing '/' dropped ("/a//b/" is "/a/b"), "." and ".." refused.
 */
static int parse_cgroup(const char *elem, size_t len, void *slot, size_t slot_size,
			char *why, size_t whylen)
{
	char *out = slot;
	size_t n = 0, i = 0;

	if (elem[0] != '/') {
		snprintf(why, whylen, "expected absolute cgroup paths, got '%.*s'",
			 (int)len, elem);
		return -EINVAL;
	}
	while (i < len) {
		size_t clen;

		while (i < len && elem[i] == '/')
			i++;
		for (clen = 0; i + clen < len && elem[i + clen] != '/'; clen++)
			;
		if (!clen)
			break;
		if ((clen == 1 && elem[i] == '.') ||
		    (clen == 2 && elem[i] == '.' && elem[i + 1] == '.')) {
			snprintf(why, whylen, "expected absolute cgroup paths without "
				 "'.' or '..', got '%.*s'", (int)len, elem);
			return -EINVAL;
		}
		if (n + 1 + clen >= slot_size) {
			snprintf(why, whylen, "expected absolute cgroup paths of at most "
				 "%zu bytes, got %zu bytes", slot_size - 1, len);
			return -EINVAL;
		}
		out[n++] = '/';
		memcpy(out + n, elem + i, clen);
		n += clen;
		i += clen;
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

static const struct list_kind comm_list = { "process names", "names", parse_comm };
static const struct list_kind uid_list = { "user names or uids", "users", parse_uid };
static const struct list_kind cgroup_list = { "absolute cgroup paths", "cgroups",
					      parse_cgroup };

int config_parse_comms(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &comm_list);
}

int config_parse_uids(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &uid_list);
}

int config_parse_cgroups(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen)
{
	return parse_list(key, value, field, why, whylen, &cgroup_list);
}
