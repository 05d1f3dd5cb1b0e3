// SPDX-License-Identifier: GPL-2.0-only
/* The verdict table as hybrid-verdicts.json's text, and back (verdict_file.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "verdict_file.h"

static const char *const side_keys[HV_SIDES] = { "classic", "hybrid" };

static struct json_object *side_json(const struct hv_side *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "reads", json_object_new_uint64(s->reads));
	json_object_object_add(o, "cpu_ns", json_object_new_uint64(s->cpu_ns));
	json_object_object_add(o, "wall_ns", json_object_new_uint64(s->wall_ns));
	json_object_object_add(o, "windows", json_object_new_uint64(s->windows));
	json_object_object_add(o, "rings", json_object_new_uint64(s->rings));
	return o;
}

static struct json_object *record_json(const struct hv_record *r)
{
	struct json_object *o = json_object_new_object(), *p = NULL;

	json_object_object_add(o, "comm", json_object_new_string(r->comm));
	json_object_object_add(o, "exe", json_object_new_string(r->exe));
	json_object_object_add(o, "updated", json_object_new_uint64(r->updated_unix_s));
	for (int i = 0; i < HV_SIDES; i++)
		json_object_object_add(o, side_keys[i], side_json(&r->side[i]));
	if (r->have_pred) {
		p = json_object_new_object();
		json_object_object_add(p, "cpu_per_read_saving",
				       json_object_new_double(r->pred_saving));
		json_object_object_add(p, "iops_change",
				       json_object_new_double(r->pred_iops_change));
		json_object_object_add(p, "at", json_object_new_uint64(r->pred_unix_s));
	}
	json_object_object_add(o, "predicted", p);
	json_object_object_add(o, "verdict", json_object_new_string(hv_verdict_names[r->verdict]));
	json_object_object_add(o, "why", json_object_new_string(r->why));
	return o;
}

char *verdicts_to_json(const struct verdicts *v)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	char *text = NULL;
	const char *s;

	if (!root || !arr)
		goto out;
	json_object_object_add(root, "format", json_object_new_string(VERDICT_FILE_FORMAT));
	json_object_object_add(root, "version", json_object_new_int(VERDICT_FILE_VERSION));
	for (size_t i = 0; i < v->n; i++)
		json_object_array_add(arr, record_json(&v->rec[i]));
	json_object_object_add(root, "programs", arr);
	arr = NULL;
	/* one program a line: a file people read and diff */
	s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (s)
		text = strdup(s);
out:
	json_object_put(arr);
	json_object_put(root);
	return text;
}

/* "where: expected what" into @err; -EINVAL */
__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int get_u64(struct json_object *o, const char *key, const char *where, uint64_t *out,
		   char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 0)
		return bad(err, errlen, "%s.%s: expected a non-negative integer", where, key);
	*out = json_object_get_uint64(v);
	return 0;
}

static int get_str(struct json_object *o, const char *key, const char *where, char *out,
		   size_t len, char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string) ||
	    (size_t)json_object_get_string_len(v) >= len)
		return bad(err, errlen, "%s.%s: expected a string of at most %zu bytes", where, key,
			   len - 1);
	memcpy(out, json_object_get_string(v), json_object_get_string_len(v) + 1);
	return 0;
}

static int get_num(struct json_object *o, const char *key, const char *where, double *out,
		   char *err, size_t errlen)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    !isfinite(json_object_get_double(v)))
		return bad(err, errlen, "%s.%s: expected a number", where, key);
	*out = json_object_get_double(v);
	return 0;
}

static int side_from(struct json_object *o, const char *where, struct hv_side *s, char *err,
		     size_t errlen)
{
	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, "%s: expected an object", where);
	return get_u64(o, "reads", where, &s->reads, err, errlen) ?:
	       get_u64(o, "cpu_ns", where, &s->cpu_ns, err, errlen) ?:
	       get_u64(o, "wall_ns", where, &s->wall_ns, err, errlen) ?:
	       get_u64(o, "windows", where, &s->windows, err, errlen) ?:
	       get_u64(o, "rings", where, &s->rings, err, errlen);
}

static int pred_from(struct json_object *p, const char *where, struct hv_record *r, char *err,
		     size_t errlen)
{
	if (!p)
		return 0;
	if (!json_object_is_type(p, json_type_object))
		return bad(err, errlen, "%s: expected an object or null", where);
	r->have_pred = true;
	return get_num(p, "cpu_per_read_saving", where, &r->pred_saving, err, errlen) ?:
	       get_num(p, "iops_change", where, &r->pred_iops_change, err, errlen) ?:
	       get_u64(p, "at", where, &r->pred_unix_s, err, errlen);
}

static int record_from(struct json_object *o, size_t i, struct hv_record *r, char *err,
		       size_t errlen)
{
	struct json_object *v;
	char where[64], sub[80];
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(where, sizeof(where), "programs[%zu]", i);
	if (!json_object_is_type(o, json_type_object))
		return bad(err, errlen, "%s: expected an object", where);
	ret = get_str(o, "comm", where, r->comm, sizeof(r->comm), err, errlen) ?:
	      get_str(o, "exe", where, r->exe, sizeof(r->exe), err, errlen) ?:
	      get_u64(o, "updated", where, &r->updated_unix_s, err, errlen);
	for (int s = 0; !ret && s < HV_SIDES; s++) {
		snprintf(sub, sizeof(sub), "%s.%s", where, side_keys[s]);
		if (!json_object_object_get_ex(o, side_keys[s], &v))
			return bad(err, errlen, "%s: missing, expected an object", sub);
		ret = side_from(v, sub, &r->side[s], err, errlen);
	}
	if (ret)
		return ret;
	snprintf(sub, sizeof(sub), "%s.predicted", where);
	if (!json_object_object_get_ex(o, "predicted", &v))
		return bad(err, errlen, "%s: missing, expected an object or null", sub);
	return pred_from(v, sub, r, err, errlen);
}

/* the tokener's complaint with its line: "line 3: unexpected character" */
static int parse(const char *text, size_t len, struct json_object **root, char *err,
		 size_t errlen)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;
	size_t off, line = 1;

	if (!tok)
		return -ENOMEM;
	*root = json_tokener_parse_ex(tok, text, (int)len);
	e = json_tokener_get_error(tok);
	off = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	/* blanks may follow the value (the file ends with a newline) */
	while (*root && off < len && strchr(" \t\r\n", text[off]) && text[off])
		off++;
	if (*root && e == json_tokener_success && off == len)
		return 0;
	if (e == json_tokener_success)
		e = *root ? json_tokener_error_parse_unexpected : json_tokener_continue;
	json_object_put(*root);
	*root = NULL;
	for (size_t i = 0; i < off && i < len; i++)
		line += text[i] == '\n';
	return bad(err, errlen, "line %zu: not JSON (%s)", line,
		   e == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(e));
}

static int header(struct json_object *root, struct json_object **progs, char *err,
		  size_t errlen)
{
	struct json_object *fmt = NULL, *ver = NULL;

	if (!json_object_is_type(root, json_type_object))
		return bad(err, errlen, "expected an object at the top");
	if (!json_object_object_get_ex(root, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_string) ||
	    strcmp(json_object_get_string(fmt), VERDICT_FILE_FORMAT))
		return bad(err, errlen, "format: expected \"%s\"", VERDICT_FILE_FORMAT);
	if (!json_object_object_get_ex(root, "version", &ver) ||
	    !json_object_is_type(ver, json_type_int) ||
	    json_object_get_int64(ver) != VERDICT_FILE_VERSION)
		return bad(err, errlen, "version: expected %d, got %s", VERDICT_FILE_VERSION,
			   ver ? json_object_to_json_string(ver) : "none");
	if (!json_object_object_get_ex(root, "programs", progs) ||
	    !json_object_is_type(*progs, json_type_array))
		return bad(err, errlen, "programs: expected an array");
	return 0;
}

/* the file's "verdict" (for people, optional) is not the one judged on load */
static bool judged_otherwise(struct json_object *o, const struct hv_record *r)
{
	struct json_object *s;

	return r && json_object_object_get_ex(o, "verdict", &s) &&
	       json_object_is_type(s, json_type_string) &&
	       hv_verdict_from_name(json_object_get_string(s)) != (int)r->verdict;
}

int verdicts_from_json(const char *text, size_t len, struct verdicts *v, size_t *dropped,
		       char *err, size_t errlen)
{
	struct json_object *root, *progs;
	struct hv_record r;
	size_t n;
	int ret;

	v->n = 0;
	*dropped = 0;
	ret = parse(text, len, &root, err, errlen);
	if (ret)
		return ret;
	ret = header(root, &progs, err, errlen);
	n = ret ? 0 : json_object_array_length(progs);
	v->dirty = false;
	for (size_t i = 0; !ret && i < n; i++) {
		struct json_object *o = json_object_array_get_idx(progs, i);

		ret = record_from(o, i, &r, err, errlen);
		if (!ret && verdicts_put(v, &r) == -ENOSPC)
			(*dropped)++;
		/* judged otherwise now (other bounds): the file is to say so */
		else if (!ret)
			v->dirty |= judged_otherwise(o, verdicts_find(v, r.comm, r.exe));
	}
	if (ret) {
		v->n = 0;
		v->dirty = false;
	}
	json_object_put(root);
	return ret;
}
