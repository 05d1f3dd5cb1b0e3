/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The typed parsers a configuration key points at: each checks one value
 * and stores it in its field, bounded by what the key says (range, size,
 * list capacity, enum names). Scalars in config_parse.c, lists of process
 * names, users and cgroups in config_lists.c.
 */
#ifndef UT_CONFIG_PARSE_H
#define UT_CONFIG_PARSE_H

#include <stddef.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

struct config_key;

/*
 * Parse @value into @field (inside a struct ut_config). On a bad value,
 * return -EINVAL and write "expected ..., got ..." to @why.
 */
typedef int (*config_parse_fn)(const struct config_key *key, const char *value,
			       void *field, char *why, size_t whylen);

struct config_key {
	const char *section;
	const char *name;
	config_parse_fn parse;
	size_t offset;			/* of the field in struct ut_config */
	size_t size;			/* of the field: bounds strings and lists */
	size_t count;			/* lists: offset of their element count */
	unsigned long long min, max;	/* numbers; lists: max is the capacity */
	const char *const *names;	/* enums: of values 0, 1, ..., NULL-terminated */
	const char *doc;
};

/* an unsigned int in [key->min, key->max], decimal digits only */
int config_parse_uint(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
/* a double in [key->min, key->max] written as a plain decimal */
int config_parse_decimal(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen);
/* yes or no (or true/false, on/off, 1/0) */
int config_parse_bool(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
/* one of key->names, stored as its index in an enum field */
int config_parse_enum(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
/* a syslog level by name (log.c's) */
int config_parse_log_level(const struct config_key *key, const char *value,
			   void *field, char *why, size_t whylen);
/* a group name (not resolved), or "" for none */
int config_parse_group(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen);
/* an absolute path without whitespace that fits the field */
int config_parse_path(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);

/*
 * Lists, separated by commas and/or blanks, into an array of key->max
 * elements (of key->size / key->max bytes each) whose count is at
 * key->count: process names, users (names resolved now, or uids) and
 * absolute cgroup v2 paths (normalized).
 */
int config_parse_comms(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen);
int config_parse_uids(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen);
int config_parse_cgroups(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen);

/* "expected <fmt...>, got '<value>'" (or "got an empty value") in @why; -EINVAL */
__attribute__((format(printf, 4, 5)))
int config_bad_value(char *why, size_t whylen, const char *value,
		     const char *fmt, ...);

/* the index of @name in @names (NULL-terminated), -EINVAL if absent or NULL */
int config_enum_from_name(const char *const *names, const char *name);

#endif /* UT_CONFIG_PARSE_H */
