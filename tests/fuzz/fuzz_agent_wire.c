// SPDX-License-Identifier: GPL-2.0-only
/*
 * agent_wire_recv_reply(), the agent's (and `uringtune exec`'s) reading of
 * the daemon's answer, fed any datagram with any number of passed fds over
 * a real SOCK_SEQPACKET pair, as a hostile or broken daemon could send it.
 * The first byte of the input says how: its low 4 bits the fds to pass
 * (0-15, from /dev/null), bit 4 in two control messages rather than one,
 * bit 5 the daemon closing without an answer; the rest is the datagram.
 *
 * What must hold besides no crash and no leak:
 *   - 0 only for a whole REPLY of this version: the type and version right,
 *     why terminated, *nfds the fds passed, *fd_out close-on-exec;
 *   - otherwise a negative errno and *fd_out -1;
 *   - no fd left open in this process either way, but the one handed over.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_wire.h"
#include "fuzz.h"

#define MAX_PASSED	15
#define MAX_DATAGRAM	4096

/* fds are numbered lowest first: any left open would be among these */
#define FD_WINDOW	64

static int devnull = -1;

static void open_fds(bool open[FD_WINDOW])
{
	for (int fd = 0; fd < FD_WINDOW; fd++)
		open[fd] = fcntl(fd, F_GETFD) >= 0;
}

static void send_reply(int sock, const uint8_t *msg, size_t len, unsigned int nfds, bool split)
{
	union {
		struct cmsghdr align;
		char buf[2 * CMSG_SPACE(MAX_PASSED * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int first = split ? nfds / 2 : nfds;
	int fds[MAX_PASSED];
	struct cmsghdr *c;

	memset(&ctl, 0, sizeof(ctl));
	for (unsigned int i = 0; i < nfds; i++)
		fds[i] = devnull;
	if (nfds) {
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(first * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(first * sizeof(int));
		memcpy(CMSG_DATA(c), fds, first * sizeof(int));
		if (nfds > first) {
			mh.msg_controllen += CMSG_SPACE((nfds - first) * sizeof(int));
			c = CMSG_NXTHDR(&mh, c);
			FUZZ_CHECK(c);
			c->cmsg_level = SOL_SOCKET;
			c->cmsg_type = SCM_RIGHTS;
			c->cmsg_len = CMSG_LEN((nfds - first) * sizeof(int));
			memcpy(CMSG_DATA(c), fds + first, (nfds - first) * sizeof(int));
		}
	}
	FUZZ_CHECK(sendmsg(sock, &mh, MSG_NOSIGNAL) == (ssize_t)len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ut_agent_reply reply;
	bool before[FD_WINDOW], after[FD_WINDOW];
	unsigned int nfds, got_nfds = 99;
	int sv[2], fd_out = -2, ret;
	bool split, hang_up;

	if (devnull < 0) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		FUZZ_CHECK(devnull >= 0);
	}
	if (!size || size - 1 > MAX_DATAGRAM)
		return -1;	/* not an input worth keeping */
	nfds = data[0] & 0x0f;
	split = data[0] & 0x10;
	hang_up = data[0] & 0x20;
	data++;
	size--;

	open_fds(before);
	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	if (!hang_up)
		send_reply(sv[1], data, size, nfds, split);
	close(sv[1]);

	ret = agent_wire_recv_reply(sv[0], &reply, &fd_out, &got_nfds);
	close(sv[0]);
	if (ret == 0) {
		FUZZ_CHECK(reply.type == UT_AGENT_REPLY && reply.version == UT_AGENT_PROTO_VERSION);
		FUZZ_CHECK(memchr(reply.why, '\0', sizeof(reply.why)));
		FUZZ_CHECK(!hang_up && size == sizeof(reply) && got_nfds == nfds);
		FUZZ_CHECK(nfds ? fd_out >= 0 : fd_out == -1);
		if (fd_out >= 0) {
			FUZZ_CHECK(fcntl(fd_out, F_GETFD) == FD_CLOEXEC);
			close(fd_out);
		}
	} else {
		FUZZ_CHECK(ret < 0 && fd_out == -1);
		FUZZ_CHECK(ret == -ECONNRESET || ret == -EBADMSG || ret == -EPROTO);
	}
	/* nothing received stayed open */
	open_fds(after);
	FUZZ_CHECK(memcmp(before, after, sizeof(before)) == 0);
	return 0;
}
