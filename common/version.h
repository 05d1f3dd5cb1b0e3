/* SPDX-License-Identifier: GPL-2.0-only */
/* The version uringtuned, uringtune and the metrics report (the man pages repeat it). */
#ifndef UT_VERSION_H
#define UT_VERSION_H

#define UT_VERSION		"0.1.0"

#endif /* UT_VERSION_H */
