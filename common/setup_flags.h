/* SPDX-License-Identifier: GPL-2.0-only */
/* Names of io_uring setup flags, as status and logs print them. */
#ifndef UT_SETUP_FLAGS_H
#define UT_SETUP_FLAGS_H

#include <stddef.h>
#include <stdint.h>

/* name of a single flag bit (1U << bit), or NULL if unknown */
const char *setup_flag_name(unsigned int bit);

/*
 * "SQPOLL,SINGLE_ISSUER" into buf (unknown bits as 0x... ; "-" for none).
 * Returns buf.
 */
char *setup_flags_str(uint32_t flags, char *buf, size_t len);

#endif /* UT_SETUP_FLAGS_H */
