// SPDX-License-Identifier: GPL-2.0-only
/* The status reply read with yajl into json-c objects, a ring at a time. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "reply_parse.h"

struct rp {
	/* the containers being built, outermost first, and each object's pending key */
	struct json_object *stack[REPLY_MAX_DEPTH];
	char *key[REPLY_MAX_DEPTH];
	int depth;
	struct json_object *top;
	bool rings_key;		/* the top object's key now is "rings" */
	bool in_rings;		/* stack[1] is the top object's "rings" array */
	bool rings_seen;	/* rings were handed to the callback */
	const struct reply_rings *ops;
	void *arg;
	int ret;		/* why the parse stopped: -ENOMEM, -EINVAL, the callback's */
	const char *why;
};

static int rp_fail(struct rp *p, int ret, const char *why)
{
	p->ret = ret;
	p->why = why;
	return 0;	/* yajl: stop */
}

/* a whole value @v (owned; NULL is JSON null) into its container, or the ring to the callback */
static int rp_add(struct rp *p, struct json_object *v)
{
	struct json_object *parent;
	int ret;

	if (!p->depth) {
		p->top = v;
		return 1;
	}
	parent = p->stack[p->depth - 1];
	if (json_object_is_type(parent, json_type_object)) {
		ret = json_object_object_add(parent, p->key[p->depth - 1], v);
		free(p->key[p->depth - 1]);
		p->key[p->depth - 1] = NULL;
		return ret ? rp_fail(p, -ENOMEM, "out of memory") : 1;
	}
	if (p->depth == 2 && p->in_rings) {
		ret = p->ops->ring(v, p->arg);
		json_object_put(v);
		return ret ? rp_fail(p, ret, "stopped") : 1;
	}
	if (json_object_array_add(parent, v)) {
		json_object_put(v);
		return rp_fail(p, -ENOMEM, "out of memory");
	}
	return 1;
}

/* a scalar (@v NULL: out of memory, unless @null) where a value belongs */
static int rp_scalar(struct rp *p, struct json_object *v, bool null)
{
	/* the top is an object, nothing else */
	if (!p->depth) {
		json_object_put(v);
		return rp_fail(p, -EINVAL, "not a JSON object");
	}
	if (!v && !null)
		return rp_fail(p, -ENOMEM, "out of memory");
	return rp_add(p, v);
}

static int on_null(void *ctx)
{
	return rp_scalar(ctx, NULL, true);
}

static int on_bool(void *ctx, int b)
{
	return rp_scalar(ctx, json_object_new_boolean(b), false);
}

/* as json-c's reader: int64, uint64 above INT64_MAX, clamped; doubles with '.' or 'e' */
static int on_number(void *ctx, const char *s, size_t len)
{
	char buf[64], *copy = buf;
	struct json_object *v;

	if (len >= sizeof(buf)) {
		copy = strndup(s, len);
		if (!copy)
			return rp_fail(ctx, -ENOMEM, "out of memory");
	} else {
		memcpy(buf, s, len);
		buf[len] = '\0';
	}
	if (strpbrk(copy, ".eE"))
		v = json_object_new_double(strtod(copy, NULL));
	else if (copy[0] == '-')
		v = json_object_new_int64(strtoll(copy, NULL, 10));
	else {
		unsigned long long u = strtoull(copy, NULL, 10);

		v = u <= INT64_MAX ? json_object_new_int64((int64_t)u) : json_object_new_uint64(u);
	}
	if (copy != buf)
		free(copy);
	return rp_scalar(ctx, v, false);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	if (len > INT32_MAX)
		return rp_fail(ctx, -EINVAL, "a string too long");
	return rp_scalar(ctx, json_object_new_string_len((const char *)s, (int)len), false);
}

static int rp_push(struct rp *p, struct json_object *c)
{
	if (!c)
		return rp_fail(p, -ENOMEM, "out of memory");
	if (p->depth == REPLY_MAX_DEPTH) {
		json_object_put(c);
		return rp_fail(p, -EINVAL, "nested too deep");
	}
	p->stack[p->depth++] = c;
	return 1;
}

static int on_start_map(void *ctx)
{
	return rp_push(ctx, json_object_new_object());
}

static int on_map_key(void *ctx, const unsigned char *key, size_t len)
{
	struct rp *p = ctx;

	/* json-c's keys are C strings: a NUL ends them */
	p->key[p->depth - 1] = strndup((const char *)key, len);
	if (!p->key[p->depth - 1])
		return rp_fail(p, -ENOMEM, "out of memory");
	p->rings_key = p->depth == 1 && !strcmp(p->key[0], "rings");
	return 1;
}

static int on_end(void *ctx)
{
	struct rp *p = ctx;
	struct json_object *c = p->stack[--p->depth];

	p->stack[p->depth] = NULL;
	if (p->depth == 1)
		p->in_rings = false;
	return rp_add(p, c);
}

static int on_start_array(void *ctx)
{
	struct rp *p = ctx;
	int err;

	if (!rp_push(p, json_object_new_array()))
		return 0;
	if (p->depth == 2 && p->rings_key) {
		p->in_rings = true;
		/* a second "rings": the last one counts */
		if (p->rings_seen && (err = p->ops->forget(p->arg)))
			return rp_fail(p, err, "stopped");
		p->rings_seen = true;
	}
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end,
};

int reply_parse_rings(const char *buf, size_t len, const struct reply_rings *ops, void *arg,
		      struct json_object **top, const char **err)
{
	static char msg[160];
	struct rp p = { .ops = ops, .arg = arg };
	yajl_handle h;
	yajl_status st;
	unsigned char *e;
	size_t i;

	*top = NULL;
	for (i = 0; i < len && strchr(" \t\r\n", buf[i]) && buf[i]; i++)
		;
	if (i == len) {
		*err = "empty reply";
		return -EINVAL;
	}
	h = yajl_alloc(&callbacks, NULL, &p);
	if (!h) {
		*err = "out of memory";
		return -ENOMEM;
	}
	/* the renderers escape what they print: bytes that are not UTF-8 are kept */
	yajl_config(h, yajl_dont_validate_strings, 1);
	st = yajl_parse(h, (const unsigned char *)buf, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	if (st == yajl_status_error) {
		e = yajl_get_error(h, 0, (const unsigned char *)buf, len);
		snprintf(msg, sizeof(msg), "%s", e ? (const char *)e : "invalid JSON");
		/* yajl's text ends with a newline */
		msg[strcspn(msg, "\n")] = '\0';
		yajl_free_error(h, e);
		p.ret = -EINVAL;
		p.why = msg;
	} else if (st != yajl_status_ok && !p.ret) {
		p.ret = -EINVAL;
		p.why = "stopped";
	} else if (st == yajl_status_ok && !json_object_is_type(p.top, json_type_object)) {
		p.ret = -EINVAL;
		p.why = "not a JSON object";
	}
	yajl_free(h);
	if (p.ret) {
		for (int d = 0; d < REPLY_MAX_DEPTH; d++) {
			json_object_put(p.stack[d]);
			free(p.key[d]);
		}
		json_object_put(p.top);
		*err = p.why;
		return p.ret;
	}
	*top = p.top;
	return 0;
}
