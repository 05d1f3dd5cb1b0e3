/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One table of names per enum, both directions generated from it, in the
 * manner of systemd's DEFINE_STRING_TABLE_LOOKUP. Beside the enum:
 *
 *	static const char *const managed_by_names[] = {
 *		[UT_MANAGED_NONE] = "none", ...
 *	};
 *	UT_NAME_TABLE(managed_by, enum ut_managed_by, "none")
 *
 * defines managed_by_name(), the value's name (@fallback for a value the
 * table does not name), and managed_by_from_name(), 0 with the value whose
 * name it is, or -EINVAL. UT_NAME_TABLE_DECLARE() declares both. Values
 * index the table: fine for small enums, 256 entries for a u8 at most.
 */
#ifndef UT_NAME_TABLE_H
#define UT_NAME_TABLE_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define UT_NAME_TABLE_DECLARE(prefix, type)					\
	const char *prefix##_name(type v);					\
	int prefix##_from_name(const char *name, type *v)

#define UT_NAME_TABLE(prefix, type, fallback)					\
	const char *prefix##_name(type v)					\
	{									\
		const size_t n = sizeof(prefix##_names) / sizeof(prefix##_names[0]); \
										\
		if ((size_t)v < n && prefix##_names[(size_t)v])			\
			return prefix##_names[(size_t)v];			\
		return fallback;						\
	}									\
										\
	int prefix##_from_name(const char *name, type *v)			\
	{									\
		const size_t n = sizeof(prefix##_names) / sizeof(prefix##_names[0]); \
										\
		if (!name)							\
			return -EINVAL;						\
		for (size_t i = 0; i < n; i++) {				\
			if (prefix##_names[i] && !strcmp(prefix##_names[i], name)) { \
				*v = (type)i;					\
				return 0;					\
			}							\
		}								\
		return -EINVAL;							\
	}

#endif /* UT_NAME_TABLE_H */
