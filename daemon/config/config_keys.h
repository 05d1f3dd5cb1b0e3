/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Every key of config/uringtune.ini: its section, name, typed parser, field
 * in struct ut_config with the bounds the parser checks, and a line of doc.
 */
#ifndef UT_CONFIG_KEYS_H
#define UT_CONFIG_KEYS_H

#include "config_parse.h"

/* how many keys config_keys[] holds (config_keys.c checks it) */
#define CONFIG_NR_KEYS	42

/* error messages list sections and keys in this order */
extern const struct config_key config_keys[];

#endif /* UT_CONFIG_KEYS_H */
