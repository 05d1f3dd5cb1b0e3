// SPDX-License-Identifier: GPL-2.0-only
/* Names of io_uring setup flags (include/uapi/linux/io_uring.h, IORING_SETUP_*). */
#include <stdio.h>
#include <string.h>

#include "setup_flags.h"

/* by bit number: IORING_SETUP_IOPOLL is 1U << 0 */
static const char *const setup_flag_names[] = {
	"IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE", "CLAMP", "ATTACH_WQ",
	"R_DISABLED", "SUBMIT_ALL", "COOP_TASKRUN", "TASKRUN_FLAG", "SQE128",
	"CQE32", "SINGLE_ISSUER", "DEFER_TASKRUN", "NO_MMAP",
	"REGISTERED_FD_ONLY", "NO_SQARRAY", "HYBRID_IOPOLL", "CQE_MIXED",
	"SQE_MIXED",
};
UT_NAME_TABLE(setup_flag, unsigned int, NULL)

char *setup_flags_str(uint32_t flags, char *buf, size_t len)
{
	size_t off = 0;
	uint32_t unknown = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 32; bit++) {
		const char *name;
		int n;

		if (!(flags & (1U << bit)))
			continue;
		name = setup_flag_name(bit);
		if (!name) {
			unknown |= 1U << bit;
			continue;
		}
		n = snprintf(buf + off, len - off, "%s%s", off ? "," : "", name);
		if (n < 0 || (size_t)n >= len - off)
			return buf;
		off += n;
	}
	if (unknown)
		snprintf(buf + off, len - off, "%s0x%x", off ? "," : "", unknown);
	else if (!off)
		snprintf(buf, len, "-");
	return buf;
}
