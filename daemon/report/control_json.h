/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A strict check of a control request's JSON text, before json-c reads it.
 *
 * json-c 0.16 reads some texts in a way another reader would not: of two
 * equal keys it keeps the last one silently ({"cmd":"status","cmd":"reset"}
 * is a reset), it cuts a key at an escaped NUL ("cmd\u0000x" is "cmd"), and
 * even with JSON_TOKENER_STRICT it takes 'single quotes', NaN, raw control
 * characters in strings and unpaired surrogates. A request two readers could
 * read two ways is refused here instead: RFC 8259's grammar and nothing
 * more, one value, no key twice in one object at any depth (compared after
 * unescaping: "cmd" and "c\u006dd" are the same key), no \u0000 and no
 * unpaired surrogate in any string, at most CONTROL_JSON_DEPTH levels.
 * Raw bytes are not checked for UTF-8 here (json-c's
 * JSON_TOKENER_VALIDATE_UTF8 does that).
 */
#ifndef UT_CONTROL_JSON_H
#define UT_CONTROL_JSON_H

#include <stddef.h>

/* objects and arrays nested deeper than this are refused */
#define CONTROL_JSON_DEPTH	16

/*
 * 0 if @buf (@len bytes, NULs included) is one JSON value as above;
 * -EINVAL with one line in @err ("duplicate key \"cmd\" at byte 17"),
 * -ENOMEM. Quadratic in the keys of one object: for request-sized texts.
 */
int control_json_check(const char *buf, size_t len, char *err, size_t errlen);

#endif /* UT_CONTROL_JSON_H */
