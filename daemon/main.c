// SPDX-License-Identifier: GPL-2.0-only
/*
 * uringtuned: parse, start, run, stop. The parts and their order are
 * daemon.c's, the event loop loop.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "control.h"
#include "daemon.h"
#include "export.h"
#include "log.h"
#include "loop.h"

#define DEFAULT_CONFIG	"/etc/uringtune/uringtune.ini"

struct options {
	const char *config_path;
	const char *mode;		/* --mode, NULL: the file's */
	bool verbose;
	bool check_config;		/* --check-config: parse, check, exit */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uringtuned [-c FILE] [--foreground] [--mode observe|tune] [-v]\n"
		"       uringtuned --check-config [-c FILE]\n"
		"\n"
		"Watches every io_uring ring on the host with BPF and tunes NAPI busy polling.\n"
		"\n"
		"  -c, --config FILE   configuration (default " DEFAULT_CONFIG ")\n"
		"      --foreground    run in the foreground (the only way it runs; for systemd\n"
		"                      Type=notify and for terminals alike)\n"
		"      --mode MODE     observe (watch only) or tune; overrides the file's mode\n"
		"  -v, --verbose       log at debug level\n"
		"      --check-config  parse and check FILE as a start or a reload would, print\n"
		"                      \"FILE: ok\" or the error, exit 0 or 1; needs no privileges\n"
		"                      and touches nothing\n"
		"  -h, --help          this text\n"
		"  -V, --version       print the version\n");
}

/* CAP_BPF and CAP_PERFMON load tracing programs (CAP_SYS_ADMIN implies both) */
static bool has_bpf_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() == 0;
	eff = (uint64_t)data[1].effective << 32 | data[0].effective;
#define HAS(cap) (eff & (1ULL << (cap)))
	return HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON));
#undef HAS
}

/* 0 to go on, else the exit status (after --help, --version, or a usage error) */
static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "mode", required_argument, NULL, 'm' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "check-config", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:vhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			o->config_path = optarg;
			break;
		case 'f':
			break;
		case 'm':
			o->mode = optarg;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'k':
			o->check_config = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		case 'V':
			printf("uringtuned %s\n", UT_VERSION);
			return -1;
		case ':':
			fprintf(stderr, "uringtuned: option '%s' needs an argument (see uringtuned --help)\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "uringtuned: unknown option '%s' (see uringtuned --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "uringtuned: unexpected argument '%s' (see uringtuned --help)\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

/* the configuration file, --mode over it, the log level; 0 or the exit status */
static int configure(struct ut_daemon *d, const struct options *o)
{
	char err[512];

	d->config_path = o->config_path;
	d->verbose = o->verbose;
	if (config_load(d->config_path, &d->cfg, err, sizeof(err))) {
		log_err("%s", err);
		return 1;
	}
	if (o->mode && config_mode_from_name(o->mode, &d->cfg.mode)) {
		fprintf(stderr, "uringtuned: --mode: expected observe or tune, got '%s'\n", o->mode);
		return 2;
	}
	log_set_level(o->verbose ? LOG_DEBUG : d->cfg.log_level);
	if (!has_bpf_privileges()) {
		log_err("missing privileges: uringtuned loads BPF tracing programs and needs root "
			"(or CAP_BPF and CAP_PERFMON)");
		return 1;
	}
	return 0;
}

/*
 * --check-config: config_load() as a start and a reload call it, so the
 * same message; no privileges checked, nothing opened but the file.
 */
static int check_config(const struct options *o)
{
	static struct ut_config cfg;	/* big: PATH_MAX buffers */
	enum ut_mode mode;
	char err[512];

	if (config_load(o->config_path, &cfg, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (o->mode && config_mode_from_name(o->mode, &mode)) {
		fprintf(stderr, "uringtuned: --mode: expected observe or tune, got '%s'\n", o->mode);
		return 2;
	}
	printf("%s: ok\n", o->config_path);
	return 0;
}

/* the control socket and the loop, until a stop signal; 0 or 1 */
static int serve(struct ut_daemon *d)
{
	struct loop l = { .d = d };
	char err[512];
	int ret;

	l.control_fd = control_listen(d->cfg.socket_path, err, sizeof(err));
	if (l.control_fd < 0) {
		log_err("%s", err);
		return 1;
	}
	l.control_group = control_share(d->cfg.socket_path, d->cfg.status_group);
	ret = loop_run(&l);
	if (ret < 0)
		log_err("event loop: %s", strerror(-ret));
	control_close(l.control_fd, d->cfg.socket_path);
	return ret < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o = { .config_path = DEFAULT_CONFIG };
	static struct ut_daemon d;	/* big: PATH_MAX buffers */
	sigset_t sigs;
	int ret;

	/*
	 * A peer that closes its socket before the daemon's reply must cost an
	 * EPIPE, never the daemon: every socket write is MSG_NOSIGNAL too, but
	 * systemd's IgnoreSIGPIPE= does not cover `make run` or a manual start.
	 */
	signal(SIGPIPE, SIG_IGN);
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret < 0 ? 0 : ret;
	if (o.check_config)
		return check_config(&o);
	ret = configure(&d, &o);
	if (ret)
		return ret;
	/*
	 * Blocked from here: sd-event takes them as events later, and a stop
	 * requested while the first rings are being changed waits for the
	 * loop, which restores them, instead of killing the daemon mid-way.
	 */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);

	/* refused: another daemon's journal, sockets, page and textfile stay as they are */
	if (daemon_claim(&d))
		return 1;
	ret = daemon_start(&d);
	if (!ret) {
		export_now(&d);
		ret = serve(&d);
	} else {
		ret = 1;
	}
	/* a stopped daemon's metrics are stale */
	export_stop(&d);
	if (daemon_stop(&d))
		ret = 1;
	return ret;
}
