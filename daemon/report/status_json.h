/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `uringtune status --json`: the registry as one JSON object. Field names
 * are an interface (DESIGN.md): add fields, never rename them.
 */
#ifndef UT_STATUS_JSON_H
#define UT_STATUS_JSON_H

#include <json-c/json.h>

#include "daemon.h"

struct json_object *status_json(const struct ut_daemon *d);
struct json_object *ring_json(const struct ut_daemon *d, const struct ut_ring *ring);

#endif /* UT_STATUS_JSON_H */
