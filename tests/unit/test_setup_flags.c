// SPDX-License-Identifier: GPL-2.0-only
/*
 * setup_flag_name() and setup_flags_str(): names of single bits, their
 * comma-joined rendering in bit order, unknown bits as hex, and that a short
 * buffer is never overrun and always ends in a NUL.
 */
#include <stdint.h>
#include <string.h>

#include "setup_flags.h"
#include "uring_abi.h"
#include "unit.h"

#define CANARY		0xa5
#define CANARY_LEN	32
#define NR_KNOWN	20	/* IOPOLL (bit 0) .. SQE_MIXED (bit 19) */

UT_TEST(flag_names)
{
	static const struct {
		uint32_t flag;
		const char *name;
	} flags[] = {
		{ UT_SETUP_IOPOLL, "IOPOLL" },
		{ UT_SETUP_SQPOLL, "SQPOLL" },
		{ UT_SETUP_SQ_AFF, "SQ_AFF" },
		{ UT_SETUP_CQSIZE, "CQSIZE" },
		{ UT_SETUP_CLAMP, "CLAMP" },
		{ UT_SETUP_ATTACH_WQ, "ATTACH_WQ" },
		{ UT_SETUP_R_DISABLED, "R_DISABLED" },
		{ UT_SETUP_SUBMIT_ALL, "SUBMIT_ALL" },
		{ UT_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
		{ UT_SETUP_TASKRUN_FLAG, "TASKRUN_FLAG" },
		{ UT_SETUP_SQE128, "SQE128" },
		{ UT_SETUP_CQE32, "CQE32" },
		{ UT_SETUP_SINGLE_ISSUER, "SINGLE_ISSUER" },
		{ UT_SETUP_DEFER_TASKRUN, "DEFER_TASKRUN" },
		{ UT_SETUP_NO_MMAP, "NO_MMAP" },
		{ UT_SETUP_REGISTERED_FD_ONLY, "REGISTERED_FD_ONLY" },
		{ UT_SETUP_NO_SQARRAY, "NO_SQARRAY" },
		{ UT_SETUP_HYBRID_IOPOLL, "HYBRID_IOPOLL" },
		{ 1U << 18, "CQE_MIXED" },
		{ 1U << 19, "SQE_MIXED" },
	};

	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		unsigned int bit = (unsigned int)__builtin_ctz(flags[i].flag);

		UT_ASSERT_EQ_INT(bit, i);
		UT_ASSERT_STR_EQ(setup_flag_name(bit), flags[i].name);
	}
}

UT_TEST(flag_name_out_of_range)
{
	UT_ASSERT(setup_flag_name(NR_KNOWN - 1) != NULL);
	UT_ASSERT(setup_flag_name(NR_KNOWN) == NULL);
	UT_ASSERT(setup_flag_name(31) == NULL);
	UT_ASSERT(setup_flag_name(32) == NULL);
	UT_ASSERT(setup_flag_name(1000) == NULL);
	UT_ASSERT(setup_flag_name(~0U) == NULL);
}

UT_TEST(no_flags)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	UT_ASSERT(setup_flags_str(0, buf, sizeof(buf)) == buf);
	UT_ASSERT_STR_EQ(buf, "-");
}

UT_TEST(single_flags)
{
	char buf[64];

	UT_ASSERT_STR_EQ(setup_flags_str(UT_SETUP_IOPOLL, buf, sizeof(buf)), "IOPOLL");
	UT_ASSERT_STR_EQ(setup_flags_str(UT_SETUP_SQPOLL, buf, sizeof(buf)), "SQPOLL");
	UT_ASSERT_STR_EQ(setup_flags_str(UT_SETUP_REGISTERED_FD_ONLY, buf, sizeof(buf)),
			 "REGISTERED_FD_ONLY");
	for (unsigned int bit = 0; bit < NR_KNOWN; bit++) {
		memset(buf, 'x', sizeof(buf));
		UT_ASSERT(setup_flags_str(1U << bit, buf, sizeof(buf)) == buf);
		UT_ASSERT_STR_EQ(buf, setup_flag_name(bit));
	}
}

UT_TEST(combinations_in_bit_order)
{
	char buf[512], want[512];
	size_t off = 0;

	UT_ASSERT_STR_EQ(setup_flags_str(UT_SETUP_SINGLE_ISSUER | UT_SETUP_SQPOLL,
					 buf, sizeof(buf)),
			 "SQPOLL,SINGLE_ISSUER");
	UT_ASSERT_STR_EQ(setup_flags_str(UT_SETUP_DEFER_TASKRUN | UT_SETUP_SINGLE_ISSUER |
					 UT_SETUP_COOP_TASKRUN | UT_SETUP_IOPOLL,
					 buf, sizeof(buf)),
			 "IOPOLL,COOP_TASKRUN,SINGLE_ISSUER,DEFER_TASKRUN");

	/* every known bit, in order */
	want[0] = '\0';
	for (unsigned int bit = 0; bit < NR_KNOWN; bit++)
		off += snprintf(want + off, sizeof(want) - off, "%s%s",
				bit ? "," : "", setup_flag_name(bit));
	UT_ASSERT_STR_EQ(setup_flags_str((1U << NR_KNOWN) - 1, buf, sizeof(buf)), want);
}

UT_TEST(unknown_bits_as_hex)
{
	char buf[512], want[512];
	size_t off = 0;

	UT_ASSERT_STR_EQ(setup_flags_str(1U << NR_KNOWN, buf, sizeof(buf)), "0x100000");
	UT_ASSERT_STR_EQ(setup_flags_str(1U << 31, buf, sizeof(buf)), "0x80000000");
	/* all unknown bits gather into one hex number after the names */
	UT_ASSERT_STR_EQ(setup_flags_str((1U << 31) | (1U << 24) | UT_SETUP_SQPOLL |
					 (1U << 20) | UT_SETUP_SINGLE_ISSUER,
					 buf, sizeof(buf)),
			 "SQPOLL,SINGLE_ISSUER,0x81100000");

	want[0] = '\0';
	for (unsigned int bit = 0; bit < NR_KNOWN; bit++)
		off += snprintf(want + off, sizeof(want) - off, "%s,",
				setup_flag_name(bit));
	snprintf(want + off, sizeof(want) - off, "0xfff00000");
	UT_ASSERT_STR_EQ(setup_flags_str(~0U, buf, sizeof(buf)), want);
}

/*
 * Every length from 0 to one past the full text: nothing written at or after
 * buf[len], a NUL within buf[0..len), the text a prefix of the full one, and
 * the full text once it fits.
 */
static void check_short_buffers(uint32_t flags)
{
	char full[512], area[512 + CANARY_LEN];
	size_t full_len;

	setup_flags_str(flags, full, sizeof(full));
	full_len = strlen(full);
	UT_ASSERT(full_len > 0);

	for (size_t len = 0; len <= full_len + 1; len++) {
		memset(area, CANARY, sizeof(area));
		UT_ASSERT(setup_flags_str(flags, area, len) == area);
		for (size_t i = len; i < len + CANARY_LEN; i++)
			UT_ASSERT_EQ_INT((unsigned char)area[i], CANARY);
		if (!len)
			continue;
		UT_ASSERT(memchr(area, '\0', len) != NULL);
		UT_ASSERT(strncmp(full, area, strlen(area)) == 0);
		if (len > full_len)
			UT_ASSERT_STR_EQ(area, full);
	}
}

UT_TEST(short_buffer)
{
	static const uint32_t cases[] = {
		0,
		UT_SETUP_IOPOLL,
		UT_SETUP_SQPOLL | UT_SETUP_SINGLE_ISSUER | UT_SETUP_DEFER_TASKRUN,
		(1U << 31) | (1U << 20),
		UT_SETUP_SQPOLL | (1U << 28),
		~0U,
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_short_buffers(cases[i]);
		if (ut_msg[0])
			return;
	}
}

int main(void)
{
	ut_run("flag_names", flag_names);
	ut_run("flag_name_out_of_range", flag_name_out_of_range);
	ut_run("no_flags", no_flags);
	ut_run("single_flags", single_flags);
	ut_run("combinations_in_bit_order", combinations_in_bit_order);
	ut_run("unknown_bits_as_hex", unknown_bits_as_hex);
	ut_run("short_buffer", short_buffer);
	return ut_finish();
}
