/* SPDX-License-Identifier: GPL-2.0-only */
/* Names of io_uring setup flags, as status and logs print them. */
#ifndef UT_SETUP_FLAGS_H
#define UT_SETUP_FLAGS_H

#include <stddef.h>
#include <stdint.h>

#include "name_table.h"

/*
 * setup_flag_name(): the name of a single flag bit (1U << bit), or NULL if
 * unknown; setup_flag_from_name(): the bit of a name, or -EINVAL.
 */
UT_NAME_TABLE_DECLARE(setup_flag, unsigned int);

/*
 * "SQPOLL,SINGLE_ISSUER" into buf (unknown bits as 0x... ; "-" for none).
 * Returns buf.
 */
char *setup_flags_str(uint32_t flags, char *buf, size_t len);

#endif /* UT_SETUP_FLAGS_H */
