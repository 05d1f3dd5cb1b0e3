// SPDX-License-Identifier: GPL-2.0-only
/*
 * HYBRID_IOPOLL support: IORING_REGISTER_QUERY's answer judged
 * (uring_query_parse, and the call's arguments through a fake syscall), and
 * what the daemon makes of its evidence (hybrid_support): the query final,
 * a ring's flags a "yes", the agent's fallback a "no" that no "yes" is
 * undone by, the kernel's version the weakest.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>

#include "hybrid_support.h"
#include "uring_abi.h"
#include "uring_query.h"
#include "unit.h"

/* Linux 6.18.44's answer on the development machine */
#define MASK_618	0x7ffffULL

static struct ut_io_uring_query_hdr hdr;
static struct ut_io_uring_query_opcode op;

/* a well-formed answer of @size bytes with @mask */
static void answer(uint32_t size, uint64_t mask)
{
	memset(&hdr, 0, sizeof(hdr));
	memset(&op, 0, sizeof(op));
	hdr.query_op = UT_IO_URING_QUERY_OPCODES;
	hdr.size = size;
	op.nr_request_opcodes = 63;
	op.nr_register_opcodes = 36;
	op.ring_setup_flags = mask;
}

UT_TEST(parse_supported)
{
	uint64_t mask = 0;

	answer(sizeof(op), MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), 0);
	UT_ASSERT(mask == MASK_618);
	UT_ASSERT(uring_query_has_hybrid(mask));
	/* the first version's 40 bytes reach the setup flags too */
	answer(40, MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), 0);
	/* ... and so does an answer that ends right after them */
	answer(UT_QUERY_OPCODE_SETUP_END, MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), 0);
}

UT_TEST(parse_not_supported)
{
	uint64_t mask = 0;

	/* a kernel that accepts everything up to NO_SQARRAY: no hybrid */
	answer(sizeof(op), UT_SETUP_HYBRID_IOPOLL - 1);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), 0);
	UT_ASSERT(mask == UT_SETUP_HYBRID_IOPOLL - 1);
	UT_ASSERT(!uring_query_has_hybrid(mask));
}

UT_TEST(parse_no_query)
{
	uint64_t mask = 42;

	answer(sizeof(op), MASK_618);
	/* the register opcode unknown (6.11-6.17), fd -1 refused (older), no io_uring */
	UT_ASSERT_EQ_INT(uring_query_parse(-EINVAL, &hdr, &op, &mask), -EOPNOTSUPP);
	UT_ASSERT_EQ_INT(uring_query_parse(-EBADF, &hdr, &op, &mask), -EOPNOTSUPP);
	UT_ASSERT_EQ_INT(uring_query_parse(-ENOSYS, &hdr, &op, &mask), -EOPNOTSUPP);
	/* the query op unknown to a kernel that has the opcode */
	answer(0, 0);
	hdr.result = -EOPNOTSUPP;
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EOPNOTSUPP);
	/* other failures are not "no QUERY": they are told apart */
	answer(sizeof(op), MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(-EPERM, &hdr, &op, &mask), -EPERM);
	UT_ASSERT_EQ_INT(uring_query_parse(-EINTR, &hdr, &op, &mask), -EINTR);
	UT_ASSERT(mask == 42);
}

UT_TEST(parse_odd_answers_are_unknown)
{
	uint64_t mask = 42;

	/* short: not up to ring_setup_flags, whatever the buffer holds */
	answer(UT_QUERY_OPCODE_SETUP_END - 1, MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	answer(0, MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	/* more than was asked */
	answer(sizeof(op) + 8, MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	/* a result that is neither 0 nor the unknown op's */
	answer(sizeof(op), MASK_618);
	hdr.result = -EINVAL;
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	hdr.result = 1;
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	/* a mask without IOPOLL (every kernel has it): the zeroed buffer, unanswered */
	answer(sizeof(op), 0);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	answer(sizeof(op), UT_SETUP_HYBRID_IOPOLL);
	UT_ASSERT_EQ_INT(uring_query_parse(0, &hdr, &op, &mask), -EPROTO);
	/* a positive return from the syscall is no answer either */
	answer(sizeof(op), MASK_618);
	UT_ASSERT_EQ_INT(uring_query_parse(1, &hdr, &op, &mask), -EPROTO);
	UT_ASSERT(mask == 42);
}

/* the fake kernel: what it was asked, and what it answers */
static struct {
	long nr, fd, opcode, nr_args;
	struct ut_io_uring_query_hdr in;	/* the header as passed */
	bool buffer_zeroed;
	int err;				/* fail with this errno */
	uint32_t size;				/* else answer this many bytes */
	uint64_t mask;
} fk;

static long fake_sys(long nr, ...)
{
	struct ut_io_uring_query_hdr *h;
	const unsigned char *p;
	va_list ap;

	va_start(ap, nr);
	fk.nr = nr;
	fk.fd = va_arg(ap, long);
	fk.opcode = va_arg(ap, long);
	h = va_arg(ap, struct ut_io_uring_query_hdr *);
	fk.nr_args = va_arg(ap, long);
	va_end(ap);
	fk.in = *h;
	p = (const unsigned char *)(uintptr_t)h->query_data;
	fk.buffer_zeroed = true;
	for (size_t i = 0; i < h->size; i++)
		fk.buffer_zeroed &= p[i] == 0;
	if (fk.err) {
		errno = fk.err;
		return -1;
	}
	memcpy((void *)(uintptr_t)h->query_data + 16, &fk.mask, sizeof(fk.mask));
	h->size = fk.size;
	return 0;
}

UT_TEST(call_arguments)
{
	uint64_t mask = 0;

	memset(&fk, 0, sizeof(fk));
	fk.size = sizeof(struct ut_io_uring_query_opcode);
	fk.mask = MASK_618;
	UT_ASSERT_EQ_INT(uring_query_setup_flags(fake_sys, &mask), 0);
	UT_ASSERT(mask == MASK_618);
	UT_ASSERT_EQ_INT(fk.nr, __NR_io_uring_register);
	UT_ASSERT_EQ_INT(fk.fd, -1);
	UT_ASSERT_EQ_INT(fk.opcode, UT_IORING_REGISTER_QUERY);
	UT_ASSERT_EQ_INT(fk.nr_args, 0);
	UT_ASSERT_EQ_INT(fk.in.query_op, UT_IO_URING_QUERY_OPCODES);
	UT_ASSERT_EQ_INT(fk.in.size, sizeof(struct ut_io_uring_query_opcode));
	UT_ASSERT_EQ_INT(fk.in.next_entry, 0);
	UT_ASSERT_EQ_INT(fk.in.result, 0);
	UT_ASSERT(!fk.in.resv[0] && !fk.in.resv[1] && !fk.in.resv[2]);
	UT_ASSERT(fk.buffer_zeroed);
	/* the errno of a refused call, sorted */
	fk.err = EINVAL;
	UT_ASSERT_EQ_INT(uring_query_setup_flags(fake_sys, &mask), -EOPNOTSUPP);
	fk.err = EPERM;
	UT_ASSERT_EQ_INT(uring_query_setup_flags(fake_sys, &mask), -EPERM);
	/* a kernel that says it answered 8 bytes */
	fk.err = 0;
	fk.size = 8;
	UT_ASSERT_EQ_INT(uring_query_setup_flags(fake_sys, &mask), -EPROTO);
}

UT_TEST(kernel_versions)
{
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6.18.44-fc-v857"), 6018);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6.12.48+deb12-cloud-amd64"), 6012);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("7.3.4+deb14-cloud-amd64"), 7003);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6.1.0-40-cloud-amd64"), 6001);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6.13"), 6013);
	UT_ASSERT_EQ_INT(hybrid_kernel_version(""), -1);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6"), -1);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("6."), -1);
	UT_ASSERT_EQ_INT(hybrid_kernel_version("v6.12"), -1);
	UT_ASSERT_EQ_INT(hybrid_kernel_version(NULL), -1);
}

UT_TEST(query_is_final)
{
	struct hybrid_support hs;

	hybrid_support_init(&hs, 0, MASK_618, "6.18.44");
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_STR_EQ(hybrid_source_name(hs.source), "query");
	UT_ASSERT(hs.flags_known && hs.setup_flags == MASK_618);
	UT_ASSERT(!hybrid_support_absent(&hs));
	/* a fallback seen later does not undo the kernel's answer */
	hybrid_support_agent_refused(&hs);
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_QUERY);

	/* the kernel says no: the one "no" the agent policy acts on */
	hybrid_support_init(&hs, 0, UT_SETUP_HYBRID_IOPOLL - 1, "6.18.44");
	UT_ASSERT_EQ_INT(hs.supported, 0);
	UT_ASSERT(hybrid_support_absent(&hs));
	hybrid_support_ring_seen(&hs, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_QUERY);
	UT_ASSERT(hybrid_support_absent(&hs));
	UT_ASSERT(!hybrid_support_absent(NULL));
}

UT_TEST(without_query_evidence_decides)
{
	struct hybrid_support hs;

	/* 6.12 (no QUERY): no, by its version; weak, so the agent still tries */
	hybrid_support_init(&hs, -EOPNOTSUPP, 0, "6.12.48+deb12-cloud-amd64");
	UT_ASSERT_EQ_INT(hs.supported, 0);
	UT_ASSERT_STR_EQ(hybrid_source_name(hs.source), "kernel-version");
	UT_ASSERT(!hs.flags_known);
	UT_ASSERT(!hybrid_support_absent(&hs));
	/* a backport: a ring with both flags is proof */
	hybrid_support_ring_seen(&hs, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_STR_EQ(hybrid_source_name(hs.source), "ring");
	/* a fallback after a hybrid ring was seen does not undo it */
	hybrid_support_agent_refused(&hs);
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT(!hybrid_support_learn(&hs, HYBRID_SRC_RING, true));

	/* 6.15 (no QUERY): yes by its version, until the agent's fallback says no */
	hybrid_support_init(&hs, -EOPNOTSUPP, 0, "6.15.2");
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_KERNEL_VERSION);
	hybrid_support_agent_refused(&hs);
	UT_ASSERT_EQ_INT(hs.supported, 0);
	UT_ASSERT_STR_EQ(hybrid_source_name(hs.source), "agent-fallback");
	UT_ASSERT(!hybrid_support_absent(&hs));
	/* ... and a hybrid ring beats that */
	hybrid_support_ring_seen(&hs, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	UT_ASSERT_EQ_INT(hs.supported, 1);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_RING);
}

UT_TEST(unknown_until_seen)
{
	struct hybrid_support hs;

	/* QUERY failed (a seccomp filter) and no version to go by */
	hybrid_support_init(&hs, -EPERM, 0, "");
	UT_ASSERT_EQ_INT(hs.supported, -1);
	UT_ASSERT_STR_EQ(hybrid_source_name(hs.source), "unknown");
	/* HYBRID_IOPOLL without IOPOLL (the kernel refuses it): no proof */
	hybrid_support_ring_seen(&hs, UT_SETUP_HYBRID_IOPOLL);
	hybrid_support_ring_seen(&hs, UT_SETUP_IOPOLL);
	hybrid_support_ring_seen(NULL, UT_SETUP_IOPOLL | UT_SETUP_HYBRID_IOPOLL);
	UT_ASSERT_EQ_INT(hs.supported, -1);
	hybrid_support_agent_refused(&hs);
	UT_ASSERT_EQ_INT(hs.supported, 0);
	UT_ASSERT_EQ_INT(hs.source, HYBRID_SRC_AGENT_FALLBACK);
	UT_ASSERT(!hybrid_support_learn(&hs, HYBRID_SRC_AGENT_FALLBACK, false));
}

UT_TEST(described)
{
	struct hybrid_support hs;
	char buf[200];

	hybrid_support_init(&hs, 0, MASK_618, "6.18.44");
	hybrid_support_describe(&hs, buf, sizeof(buf));
	UT_ASSERT_STR_EQ(buf, "supported (IORING_REGISTER_QUERY: setup flags 0x7ffff)");
	hybrid_support_init(&hs, 0, 0xffff, "6.18.44");
	hybrid_support_describe(&hs, buf, sizeof(buf));
	UT_ASSERT_STR_CONTAINS(buf, "not supported (IORING_REGISTER_QUERY");
	UT_ASSERT_STR_CONTAINS(buf, "not asked to add it");
	hybrid_support_init(&hs, -EOPNOTSUPP, 0, "6.1.0-40-cloud-amd64");
	hybrid_support_describe(&hs, buf, sizeof(buf));
	UT_ASSERT_STR_CONTAINS(buf, "not supported, going by the kernel's version (before 6.13; "
			       "no IORING_REGISTER_QUERY (6.18+))");
	hybrid_support_init(&hs, -EPROTO, 0, "x");
	hybrid_support_describe(&hs, buf, sizeof(buf));
	UT_ASSERT_STR_CONTAINS(buf, "unknown (IORING_REGISTER_QUERY failed: ");
	UT_ASSERT_STR_CONTAINS(buf, "not as documented");
	/* a short buffer is cut, never overrun */
	memset(buf, 'x', sizeof(buf));
	hybrid_support_describe(&hs, buf, 8);
	UT_ASSERT_EQ_INT(strlen(buf), 7);
}

int main(void)
{
	ut_run("parse_supported", parse_supported);
	ut_run("parse_not_supported", parse_not_supported);
	ut_run("parse_no_query", parse_no_query);
	ut_run("parse_odd_answers_are_unknown", parse_odd_answers_are_unknown);
	ut_run("call_arguments", call_arguments);
	ut_run("kernel_versions", kernel_versions);
	ut_run("query_is_final", query_is_final);
	ut_run("without_query_evidence_decides", without_query_evidence_decides);
	ut_run("unknown_until_seen", unknown_until_seen);
	ut_run("described", described);
	return ut_finish();
}
