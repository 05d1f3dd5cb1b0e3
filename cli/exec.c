// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtune exec: start a command with the agent (liburingtune-agent.so)
 * preloaded, so that uringtuned decides, from inside the program, hybrid
 * IOPOLL at ring setup and NAPI busy polling on SINGLE_ISSUER rings (which
 * refuse a register call from any other task).
 *
 * Everything here happens before execvp(): find the command as execvp()
 * will, check it is one the agent can get into (LD_PRELOAD works only
 * through the dynamic loader, and not in secure-execution mode), find the
 * agent, set the environment it reads, and ask uringtuned whether it is
 * there to answer. What the command can live without is a warning: it runs
 * anyway. After execvp() uringtune is gone and the command's exit status is
 * the exit status.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi_names.h"
#include "agent_abi.h"
#include "agent_wire.h"
#include "exec.h"
#include "exec_cmd.h"
#include "strbuf.h"
#include "usage.h"

/* where `make install` puts the agent (the Makefile says) */
#ifndef UT_AGENT_DIR
#define UT_AGENT_DIR		"/usr/lib/uringtune"
#endif
#define AGENT_NAME		"liburingtune-agent.so"


struct exec_opts {
	int hybrid;			/* enum ut_agent_want */
	int napi;			/* UT_WANT_ON or UT_WANT_UNSET */
	const char *agent_socket;	/* NULL: the environment's, else UT_AGENT_SOCKET */
	const char *agent_lib;		/* NULL: look it up */
	bool verbose;
	char **cmd;			/* NULL-terminated, as execvp() takes it */
};

void exec_usage(FILE *f)
{
	fprintf(f,
		"Options of exec (before CMD; everything from CMD on is CMD's):\n"
		"  --hybrid on|off|auto  add HYBRID_IOPOLL to CMD's IOPOLL rings at setup (auto: as\n"
		"                  uringtuned's IOPOLL advisor says); not given: its config decides\n"
		"  --napi          NAPI busy polling on CMD's SINGLE_ISSUER rings too (uringtuned\n"
		"                  cannot register it from outside), set from inside as it decides\n"
		"  --agent-socket PATH  uringtuned's agent socket (default " UT_AGENT_SOCKET ")\n"
		"  --agent-lib PATH  the agent to preload (default: " AGENT_NAME " next to\n"
		"                  uringtune, else " UT_AGENT_DIR "/" AGENT_NAME ")\n"
		"  -v, --verbose   print uringtuned's decision; the agent prints a line per ring\n"
		"Exit status: CMD's; 127 CMD not found, 126 not executable, 1 no agent, 2 usage.\n");
}

static void exec_help(void)
{
	printf("Usage: uringtune exec [--hybrid on|off|auto] [--napi] [--agent-socket PATH]\n"
	       "                      [--agent-lib PATH] [-v] [--] CMD [ARGS...]\n"
	       "\n"
	       "Run CMD with uringtune's agent preloaded: uringtuned then decides hybrid IOPOLL\n"
	       "and NAPI busy polling for the io_uring rings CMD sets up.\n"
	       "\n");
	exec_usage(stdout);
}

/* returned by opt_value() for an option that ends the command line */
static const char opt_missing[] = "";

/*
 * Is argv[*i] the option @name, which takes a value, as "--name VALUE" or
 * "--name=VALUE"? Then its value (*i moved past a separate one), or
 * opt_missing when nothing follows. NULL when it is another option.
 */
static const char *opt_value(const char *name, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	size_t n = strlen(name);

	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	return *i + 1 < argc ? argv[++*i] : opt_missing;
}

/* a path option's value: -1 to go on, else the exit status */
static int opt_path(const char *name, const char *v, const char **dst)
{
	if (!*v)
		return cli_usage_error("option '%s' needs an argument", name);
	*dst = v;
	return -1;
}

/* --hybrid's value as enum ut_agent_want, -1 if it names none */
static int parse_hybrid(const char *s)
{
	enum ut_agent_want w;

	return agent_want_from_name(s, &w) ? -1 : (int)w;
}

/*
 * Options end at "--" or at the first argument that is not one: that is
 * CMD, and what follows is its own. Returns -1 to go on, else the exit
 * status (help, usage error).
 */
static int exec_parse(int argc, char **argv, struct exec_opts *o)
{
	const char *ignored;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		ret = -1;
		if ((v = opt_value("--hybrid", argc, argv, &i))) {
			if (v == opt_missing)
				return cli_usage_error("option '--hybrid' needs an argument");
			o->hybrid = parse_hybrid(v);
			if (o->hybrid < 0) {
				char *esc = cli_escape(v, strlen(v), false);

				cli_usage_error("--hybrid: expected on, off or auto, got '%s'",
					    esc ? esc : "?");
				free(esc);
				return EXIT_USAGE;
			}
		} else if ((v = opt_value("--agent-socket", argc, argv, &i))) {
			ret = opt_path("--agent-socket", v, &o->agent_socket);
		} else if ((v = opt_value("--agent-lib", argc, argv, &i))) {
			ret = opt_path("--agent-lib", v, &o->agent_lib);
		} else if ((v = opt_value("--socket", argc, argv, &i))) {
			/* the control socket, global: exec has nothing to ask on it */
			ret = opt_path("--socket", v, &ignored);
		} else if (strcmp(a, "--napi") == 0) {
			o->napi = UT_WANT_ON;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			o->verbose = true;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			exec_help();
			return 0;
		} else if (!strncmp(a, "--napi=", 7) || !strncmp(a, "--verbose=", 10) ||
			   !strncmp(a, "--help=", 7)) {
			return cli_usage_error("option '%.*s' takes no value, got '%s'",
					   (int)(strchr(a, '=') - a), a, a);
		} else {
			return cli_usage_error("unknown option '%s'", a);
		}
		if (ret >= 0)
			return ret;
	}
	if (i >= argc)
		return cli_usage_error("exec: expected -- CMD [ARGS...]");
	o->cmd = argv + i;
	return -1;
}

/* is @path an agent we can preload: a readable ELF shared object? 0 or -errno */
static int agent_check(const char *path, struct elf_info *info)
{
	struct stat st;
	int err;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	err = elf_inspect(path, info);
	if (!err && info->type != ET_DYN)
		err = -ENOEXEC;
	return err;
}

static void agent_error(const char *path, int err)
{
	fprintf(stderr, "uringtune exec: agent %s: %s\n", path,
		err == -ENOEXEC ? "not an ELF shared library" : strerror(-err));
}

/*
 * The agent to preload: @given (--agent-lib), else the one next to our own
 * binary (the build tree), else the installed one. 0 with *path absolute
 * and malloc'ed, or -1 when there is none (said on stderr).
 */
static int agent_find(const char *given, char **path, struct elf_info *info)
{
	static const char installed[] = UT_AGENT_DIR "/" AGENT_NAME;
	char self[PATH_MAX], *beside = NULL;
	const char *use = given;
	ssize_t len;
	int err;

	*path = NULL;
	if (!use) {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len > 0) {
			char *slash;

			self[len] = '\0';
			slash = strrchr(self, '/');
			if (slash && asprintf(&beside, "%.*s/%s", (int)(slash - self), self,
					      AGENT_NAME) < 0)
				beside = NULL;
		}
		use = beside;
		err = use ? agent_check(use, info) : -ENOENT;
		/* only a missing one sends us on: a broken one is an error */
		if (err == -ENOENT) {
			use = installed;
			err = agent_check(use, info);
		}
	} else {
		err = agent_check(use, info);
	}
	if (err == -ENOENT && !given) {
		fprintf(stderr, "uringtune exec: no agent: tried %s%s%s (see --agent-lib)\n",
			beside ? beside : "", beside ? " and " : "", installed);
		goto out;
	}
	if (err) {
		agent_error(use, err);
		goto out;
	}
	*path = realpath(use, NULL);
	if (!*path) {
		agent_error(use, -errno);
		goto out;
	}
	/* ld.so splits LD_PRELOAD at each ':' and ' ' */
	if (strpbrk(*path, ": ")) {
		fprintf(stderr, "uringtune exec: agent %s: LD_PRELOAD cannot hold a path with ':' or ' '\n",
			*path);
		free(*path);
		*path = NULL;
	}
out:
	free(beside);
	return *path ? 0 : -1;
}

/* is @agent one of the entries of @list (LD_PRELOAD)? */
static bool preload_has(const char *list, const char *agent)
{
	size_t len = strlen(agent);

	while (*list) {
		size_t n = strcspn(list, ": ");

		if (n == len && memcmp(list, agent, n) == 0)
			return true;
		list += n;
		if (*list)
			list++;
	}
	return false;
}

/* the environment the agent reads (common/agent_abi.h); 0 or -errno */
static int env_setup(const struct exec_opts *o, const char *agent)
{
	const char *old = getenv("LD_PRELOAD");
	char policy[32], *list;
	int n = 0, err = 0;

	/* first, so that its interposers come before any other preload's */
	if (!old || !*old) {
		err = setenv("LD_PRELOAD", agent, 1) ? -errno : 0;
	} else if (!preload_has(old, agent)) {
		if (asprintf(&list, "%s:%s", agent, old) < 0)
			return -ENOMEM;
		err = setenv("LD_PRELOAD", list, 1) ? -errno : 0;
		free(list);
	}
	if (err)
		return err;

	if (o->hybrid != UT_WANT_UNSET)
		n += snprintf(policy + n, sizeof(policy) - n, "hybrid=%s",
			      agent_want_name(o->hybrid));
	if (o->napi == UT_WANT_ON)
		n += snprintf(policy + n, sizeof(policy) - n, "%snapi=on", n ? "," : "");
	/* nothing said: the daemon's config rules decide, not a stale value */
	if (n ? setenv(UT_AGENT_ENV_POLICY, policy, 1) : unsetenv(UT_AGENT_ENV_POLICY))
		return -errno;
	if (o->agent_socket && setenv(UT_AGENT_ENV_SOCKET, o->agent_socket, 1))
		return -errno;
	if (o->verbose && setenv(UT_AGENT_ENV_DEBUG, "1", 1))
		return -errno;
	return 0;
}

/*
 * Is a daemon there, and what would it do for a program with this policy?
 * UT_AGENT_PING on @path, one reply. 0 with *reply (why NUL-terminated), or
 * -errno: -ENODATA when no answer came (timeout, or the connection closed,
 * as a daemon that predates PING does), -EBADMSG when what came is no
 * reply, -EPROTO when it is one of another protocol version.
 */
static int agent_ping(const char *path, int hybrid, int napi, struct ut_agent_reply *reply)
{
	const struct ut_agent_hello hello = {
		.type = UT_AGENT_PING,
		.version = UT_AGENT_PROTO_VERSION,
		.hybrid = (__u8)hybrid,
		.napi = (__u8)napi,
	};
	unsigned int nfds;
	int fd, err, page_fd;

	memset(reply, 0, sizeof(*reply));
	fd = agent_wire_connect(path);
	if (fd < 0)
		return fd == -ETIMEDOUT ? -ENODATA : fd;
	err = agent_wire_send(fd, &hello, sizeof(hello));
	if (!err)
		err = agent_wire_recv_reply(fd, reply, &page_fd, &nfds);
	close(fd);
	/* a PING is answered without the page; close one a daemon sent anyway */
	if (!err && page_fd >= 0)
		close(page_fd);
	if (err == -ETIMEDOUT || err == -ECONNRESET || err == -EPIPE)
		return -ENODATA;
	if (!err && reply->status > 0)
		return -EBADMSG;
	return err;
}

/*
 * Say when uringtuned will not answer the agent (the command runs all the
 * same, as if uringtune were not there); with -v what it will do.
 */
static void daemon_check(const struct exec_opts *o, const char *name)
{
	const char *sock = getenv(UT_AGENT_ENV_SOCKET), *what;
	struct ut_agent_reply reply;
	char buf[64], *why;
	int err;

	/* the one the agent will ask */
	if (!sock || !*sock)
		sock = UT_AGENT_SOCKET;
	err = agent_ping(sock, o->hybrid, o->napi, &reply);
	if (err) {
		if (err == -ENODATA)
			what = "no reply";
		else if (err == -EBADMSG)
			what = "malformed reply";
		else if (err == -EPROTO &&
			 snprintf(buf, sizeof(buf), "protocol version %u, not %u", reply.version,
				  UT_AGENT_PROTO_VERSION) > 0)
			what = buf;
		else
			what = strerror(-err);
		fprintf(stderr, "uringtune exec: no uringtuned answers on %s (%s): %s runs without uringtune's changes\n",
			sock, what, name);
		return;
	}
	why = cli_escape(reply.why, strlen(reply.why), false);
	if (why && *why)
		what = why;
	else
		what = reply.status == 0 ? "ready" :
		       reply.status > -4096 ? strerror(-reply.status) : "refused";
	if (reply.status < 0)
		fprintf(stderr, "uringtune exec: uringtuned: %s: %s runs without uringtune's changes\n",
			what, name);
	else if (o->verbose)
		fprintf(stderr, "uringtune exec: uringtuned: %s\n", what);
	free(why);
}

int exec_main(int argc, char **argv)
{
	struct exec_opts o = { .hybrid = UT_WANT_UNSET, .napi = UT_WANT_UNSET };
	char *name, *cmd_path = NULL, *agent = NULL;
	struct elf_info agent_elf;
	int ret, err;

	ret = exec_parse(argc, argv, &o);
	if (ret >= 0)
		return ret;
	/* the command as the user wrote it, safe on a terminal */
	name = cli_escape(o.cmd[0], strlen(o.cmd[0]), false);
	if (!name) {
		fprintf(stderr, "uringtune exec: %s\n", strerror(ENOMEM));
		return EXIT_FAILURE;
	}

	err = cmd_resolve(o.cmd[0], &cmd_path);
	if (err) {
		ret = cmd_error(name, o.cmd[0], err);
		goto out;
	}
	ret = EXIT_FAILURE;
	if (agent_find(o.agent_lib, &agent, &agent_elf))
		goto out;
	cmd_check_reach(name, cmd_path, &agent_elf);
	err = env_setup(&o, agent);
	if (err) {
		fprintf(stderr, "uringtune exec: setting the environment: %s\n", strerror(-err));
		goto out;
	}
	daemon_check(&o, name);

	execvp(o.cmd[0], o.cmd);
	ret = cmd_error(name, o.cmd[0], -errno);
out:
	free(agent);
	free(cmd_path);
	free(name);
	return ret;
}
