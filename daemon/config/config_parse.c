// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scalar typed parsers of config_parse.h: numbers, booleans, enums by
 * name, log levels and paths. Each refuses rather than guesses: no blanks,
 * signs, hex or trailing text where libc's converters would take them.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_parse.h"
#include "log.h"

/* "expected <what>, got '<value>'": every bad value is reported this way */
int config_bad_value(char *why, size_t whylen, const char *value,
		     const char *fmt, ...)
{
	char expected[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(expected, sizeof(expected), fmt, ap);
	va_end(ap);
	if (*value)
		snprintf(why, whylen, "expected %s, got '%s'", expected, value);
	else
		snprintf(why, whylen, "expected %s, got an empty value", expected);
	return -EINVAL;
}

int config_enum_from_name(const char *const *names, const char *name)
{
	for (int i = 0; name && names[i]; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	return -EINVAL;
}

/* "a, b or c": the names of an enum's values, for "expected ..." */
static const char *enum_list(const char *const *names, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; names[i]; i++) {
		const char *sep = !i ? "" : names[i + 1] ? ", " : " or ";
		int n = snprintf(buf + used, len - used, "%s%s", sep, names[i]);

		if (n < 0 || (size_t)n >= len - used)
			break;
		used += n;
	}
	return buf;
}

/*
 * One of key->names, stored as its index. Enum fields are int-sized: GCC
 * gives an enum without negative values unsigned int, which int may alias.
 */
int config_parse_enum(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	int v = config_enum_from_name(key->names, value);
	char names[128];

	if (v < 0)
		return config_bad_value(why, whylen, value, "%s",
					enum_list(key->names, names, sizeof(names)));
	*(int *)field = v;
	return 0;
}

int config_parse_log_level(const struct config_key *key, const char *value,
			   void *field, char *why, size_t whylen)
{
	int level = log_level_from_name(value);

	(void)key;
	if (level < 0)
		return config_bad_value(why, whylen, value,
					"error, warning, notice, info or debug");
	*(int *)field = level;
	return 0;
}

/* an unsigned int in [key->min, key->max], decimal digits only */
int config_parse_uint(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	unsigned long long v;
	char *end;

	/* strtoull() would skip blanks and accept a sign, even '-' */
	if (*value < '0' || *value > '9')
		goto bad;
	errno = 0;
	v = strtoull(value, &end, 10);
	if (errno || *end || v < key->min || v > key->max)
		goto bad;
	*(unsigned int *)field = (unsigned int)v;
	return 0;
bad:
	return config_bad_value(why, whylen, value, "an integer from %llu to %llu",
				key->min, key->max);
}

int config_parse_bool(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	(void)key;
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcmp(value, yes[i]) == 0) {
			*(bool *)field = true;
			return 0;
		}
		if (strcmp(value, no[i]) == 0) {
			*(bool *)field = false;
			return 0;
		}
	}
	return config_bad_value(why, whylen, value,
				"yes or no (or true/false, on/off, 1/0)");
}

/*
 * A double in [key->min, key->max] written as a plain decimal: "0.2", "5",
 * ".5", "2e-1". strtod() alone would also take blanks, a sign, "inf", "nan"
 * and hex ("0x1p-2"). No setlocale() in uringtuned: the point is '.'.
 */
int config_parse_decimal(const struct config_key *key, const char *value,
			 void *field, char *why, size_t whylen)
{
	char *end;
	double v;

	if (!((value[0] >= '0' && value[0] <= '9') || value[0] == '.') ||
	    strpbrk(value, "xX"))
		goto bad;
	/* overflow gives HUGE_VAL and underflow a value near 0: both range-checked */
	v = strtod(value, &end);
	if (end == value || *end || !(v >= (double)key->min && v <= (double)key->max))
		goto bad;
	*(double *)field = v;
	return 0;
bad:
	return config_bad_value(why, whylen, value, "a decimal from %llu to %llu",
				key->min, key->max);
}

/*
 * An absolute path that fits the field (for socket, sun_path). Whitespace is
 * refused: libinih only strips ';' comments, so "/run/x # note" would
 * otherwise silently become a path with a space in it.
 */
int config_parse_path(const struct config_key *key, const char *value,
		      void *field, char *why, size_t whylen)
{
	size_t len = strlen(value);

	if (value[0] != '/')
		return config_bad_value(why, whylen, value, "an absolute path");
	if (strpbrk(value, " \t\r\n\f\v"))
		return config_bad_value(why, whylen, value,
					"an absolute path without whitespace");
	if (len >= key->size) {
		snprintf(why, whylen,
			 "expected an absolute path of at most %zu bytes, got %zu bytes",
			 key->size - 1, len);
		return -EINVAL;
	}
	memcpy(field, value, len + 1);
	return 0;
}

/*
 * A group name as useradd(8) and systemd-sysusers accept them (a letter or
 * '_', then letters, digits, '_', '.' or '-', 31 bytes at most), or nothing:
 * no group. Not resolved here: the group may be created after the file is
 * written (the daemon looks it up when it starts).
 */
#define GROUP_NAME	"a group name (a letter or '_', then letters, digits, '_', '.' or " \
			"'-'; at most 31 bytes), or nothing"

int config_parse_group(const struct config_key *key, const char *value,
		       void *field, char *why, size_t whylen)
{
	size_t len = strlen(value);
	if (len >= key->size || len > 31)
		return config_bad_value(why, whylen, value, GROUP_NAME);
	for (size_t i = 0; i < len; i++) {
		char c = value[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
			  (i && ((c >= '0' && c <= '9') || c == '.' || c == '-'));

		if (!ok)
			return config_bad_value(why, whylen, value, GROUP_NAME);
	}
	memcpy(field, value, len + 1);
	return 0;
}
