/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tolerant getters for the daemon's JSON reply, shared by the renderers:
 * a field that is missing, null or of the wrong type reads as absent, so
 * an older or newer daemon prints "-" rather than garbage.
 */
#ifndef UT_CLI_JSON_GET_H
#define UT_CLI_JSON_GET_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

#include "strbuf.h"

/* NULL unless @o is an object holding @key with a non-null value */
static inline struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_is_type(o, json_type_object))
		return NULL;
	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;	/* a JSON null is a NULL json_object */
}

static inline bool jget_i64(struct json_object *o, const char *key, int64_t *val)
{
	struct json_object *v = jget(o, key);

	if (!json_object_is_type(v, json_type_int))
		return false;
	*val = json_object_get_int64(v);
	return true;
}

/* an unsigned integer @v (json-c keeps u64 counters unsigned above INT64_MAX) */
static inline bool jval_u64(struct json_object *v, uint64_t *val)
{
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*val = json_object_get_uint64(v);
	return true;
}

static inline bool jget_u64(struct json_object *o, const char *key, uint64_t *val)
{
	return jval_u64(jget(o, key), val);
}

static inline bool jget_num(struct json_object *o, const char *key, double *val)
{
	struct json_object *v = jget(o, key);

	if (!json_object_is_type(v, json_type_double) &&
	    !json_object_is_type(v, json_type_int))
		return false;
	*val = json_object_get_double(v);
	return isfinite(*val);
}

/* -1 when missing or not a boolean */
static inline int jget_bool(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	if (!json_object_is_type(v, json_type_boolean))
		return -1;
	return json_object_get_boolean(v);
}

/* escaped copy of a string field, or NULL (missing, wrong type or ENOMEM) */
static inline char *jget_esc(struct json_object *o, const char *key, bool quote)
{
	struct json_object *v = jget(o, key);

	if (!json_object_is_type(v, json_type_string))
		return NULL;
	return cli_escape(json_object_get_string(v), json_object_get_string_len(v), quote);
}

#endif /* UT_CLI_JSON_GET_H */
