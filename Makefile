# SPDX-License-Identifier: GPL-2.0-only
#
# make            build everything into build/
# make check      install missing packages, build, run every test (LOAD=N: beside N
#                 CPU-bound processes; NEIGHBOUR=1: beside an io_uring service
#                 not the suite's; see tests/run.sh)
# make run        install missing packages, build, run the daemon in the foreground
# make bench      benchmarks (not tests), results under bench/results/
# make fuzz       run each fuzz target for FUZZ_SECONDS (see "Fuzzing" below)
# make install    install under $(DESTDIR)$(PREFIX) (see "install" below)
# make uninstall  remove what make install installed (see "uninstall" below)
# make deb        the Debian package, into build/deb/ (see "deb" below)

BUILD		?= build
CC		?= gcc
CLANG		?= clang
LLVM_STRIP	?= llvm-strip
BPFTOOL		?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
PKG_CONFIG	?= pkg-config
CONFIG		?= config/uringtune.ini

# make install: DESTDIR stages the tree (no root needed), PREFIX moves it
PREFIX		?= /usr
SBINDIR		?= $(PREFIX)/sbin
BINDIR		?= $(PREFIX)/bin
MANDIR		?= $(PREFIX)/share/man
# liburingtune-agent.so; `uringtune exec` looks here (after its own directory)
AGENTDIR	?= $(PREFIX)/lib/uringtune
SYSCONFDIR	?= /etc
# Debian's systemd 252: /lib/systemd/system
UNITDIR		?= $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd 2>/dev/null || \
			   echo /lib/systemd/system)
INSTALL		?= install
# bash completion (bash-completion's completionsdir under PREFIX, else this) and
# the status group (systemd-sysusers reads it; see "install" below)
BASHCOMPDIR	?= $(shell $(PKG_CONFIG) --define-variable=prefix=$(PREFIX) \
			   --variable=completionsdir bash-completion 2>/dev/null || \
			   echo $(PREFIX)/share/bash-completion/completions)
SYSUSERSDIR	?= $(PREFIX)/lib/sysusers.d
MAN8		:= man/uringtuned.8 man/uringtune.8
MAN5		:= man/uringtune.ini.5

# kernel-style quiet build; V=1 shows the commands
ifeq ($(V),1)
Q		:=
msg		= @true
else
Q		:= @
msg		= @printf '  %-8s %s\n' $(1) $(2)
endif

ARCH		:= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

WARN		:= -Wall -Wextra -Wformat=2 -Werror
CFLAGS		?= -O2 -g
override CFLAGS	+= $(WARN) -std=gnu11 -D_GNU_SOURCE
# CPPFLAGS and LDFLAGS: empty unless given (dpkg-buildflags' hardening in
# make deb); the shipped programs are compiled and linked with them

# Each target compiles with its own include path (INC, set per folder
# below): the daemon sees its folders, the agent and the CLI theirs, and all
# of them common/; nobody includes across those lines by accident.
COMMON_INC	:= -Icommon -Ibpf
DAEMON_DIRS	:= daemon $(patsubst %/,%,$(wildcard daemon/*/))
DAEMON_INC	:= $(DAEMON_DIRS:%=-I%) $(COMMON_INC) -I$(BUILD)
AGENT_INC	:= -Iagent -Icommon
CLI_INC		:= -Icli -Icommon
TOOLS_INC	:= -Itests/tools $(COMMON_INC)
UNIT_INC	:= $(DAEMON_INC) -Iagent -Itests/unit
# -fms-extensions: from 6.19 the kernel embeds named structs without a member
# name ("struct ns_tree;" in a struct), and so does vmlinux.h dumped from its
# BTF; clang reads them only with it (it changes nothing for older headers)
BPF_CFLAGS	:= -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(ARCH) $(WARN) -Wno-unused-parameter \
		   -fms-extensions -Wno-microsoft-anon-tag -I$(BUILD) -Ibpf -Icommon

LIBS_BPF	:= $(shell $(PKG_CONFIG) --libs libbpf 2>/dev/null || echo -lbpf)
LIBS_SYSTEMD	:= $(shell $(PKG_CONFIG) --libs libsystemd 2>/dev/null || echo -lsystemd)
LIBS_INIH	:= $(shell $(PKG_CONFIG) --libs inih 2>/dev/null || echo -linih)
LIBS_JSON	:= $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null || echo -ljson-c)
CFLAGS_JSON	:= $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
# the status reply is generated as it is sent (daemon/report/status_writer.c)
LIBS_YAJL	:= $(shell $(PKG_CONFIG) --libs yajl 2>/dev/null || echo -lyajl)
LIBS_URING	:= $(shell $(PKG_CONFIG) --libs liburing 2>/dev/null || echo -luring)
override CFLAGS	+= $(CFLAGS_JSON)

BPF_PROGS	:= napi_trace iopoll_trace
BPF_OBJS	:= $(BPF_PROGS:%=$(BUILD)/%.bpf.o)
BPF_SKELS	:= $(BPF_PROGS:%=$(BUILD)/%.skel.h)

COMMON_SRCS	:= $(wildcard common/*.c)
DAEMON_SRCS	:= $(wildcard daemon/*.c daemon/*/*.c)
CLI_SRCS	:= $(wildcard cli/*.c)
# everything of the daemon but main(): what unit tests link against
DAEMON_LIB_SRCS	:= $(filter-out daemon/main.c,$(DAEMON_SRCS))

COMMON_OBJS	:= $(COMMON_SRCS:%.c=$(BUILD)/%.o)
DAEMON_OBJS	:= $(DAEMON_SRCS:%.c=$(BUILD)/%.o)
DAEMON_LIB_OBJS	:= $(DAEMON_LIB_SRCS:%.c=$(BUILD)/%.o)
CLI_OBJS	:= $(CLI_SRCS:%.c=$(BUILD)/%.o)

# the in-process agent (LD_PRELOAD): position independent, its own symbols
# hidden but for the interposed entry points; liburing's headers for its
# types only (it must load into programs without liburing too)
AGENT_SRCS	:= $(wildcard agent/*.c)
AGENT_OBJS	:= $(AGENT_SRCS:%.c=$(BUILD)/%.o)
# the agent socket's client side, shared with `uringtune exec`, built the agent's way
AGENT_OBJS	+= $(BUILD)/agent/agent_wire.o
AGENT_LIB	:= $(BUILD)/liburingtune-agent.so
# the agent's pure parts (policy string, page checks), for its unit tests
AGENT_PURE_OBJS	:= $(BUILD)/agent/agent_check.o

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
# test_agent_*: the agent's pure parts; the rest: the daemon's
AGENT_UNIT_SRCS	:= $(wildcard tests/unit/test_agent_*.c)
# the lifecycle's orchestration links without BPF, the actuator or the agent
# server: what it depends on is all it gets (its backend is a fake)
LIFECYCLE_OBJS	:= $(patsubst %.c,$(BUILD)/%.o,$(wildcard daemon/tune/lifecycle*.c daemon/tune/journal*.c \
		   daemon/config/*.c) daemon/tune/select.c daemon/tune/decision_log.c \
		   daemon/observe/registry.c daemon/tuner.c daemon/tuner_sleeps.c daemon/tuner_tracking.c daemon/bill.c daemon/tunable.c daemon/worker.c \
		   daemon/log.c)
DAEMON_UNIT_SRCS:= $(filter-out $(AGENT_UNIT_SRCS) tests/unit/test_lifecycle.c,$(UNIT_SRCS))
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TOOLS		:= $(BUILD)/pingpong $(BUILD)/ringhold $(BUILD)/notify_listen
# echo traffic over multishot receives, buffer rings and bundles (UDP and TCP)
TOOLS		+= $(BUILD)/mshot
# io_uring NOP throughput, for the benchmarks
TOOLS		+= $(BUILD)/nopbench
TOOLS		+= $(BUILD)/iopoll_load
# a ring through each of the agent's entry points (and liburing 2.5's, from a stand-in)
TOOLS		+= $(BUILD)/ringentry
# a peer of the agent socket that is not an agent (tests/integration/agent_hostile_*.sh)
TOOLS		+= $(BUILD)/agent_hostile
# a ring's fd moved by fork, SCM_RIGHTS and dup (tests/integration/ring_holders.sh)
TOOLS		+= $(BUILD)/ringpass
# a host with many open files (bench/scale.sh)
TOOLS		+= $(BUILD)/fdhold

DAEMON_LIBS	:= $(LIBS_BPF) $(LIBS_SYSTEMD) $(LIBS_INIH) $(LIBS_JSON) $(LIBS_YAJL)

.PHONY: all deps check run bench clean install programs
.DELETE_ON_ERROR:
.SECONDARY:

all: programs $(TOOLS) $(UNIT_BINS)

# what make install (and the package) ships, and nothing the tests use
programs: $(BUILD)/uringtuned $(BUILD)/uringtune $(AGENT_LIB)

# each goal installs only what it needs (scripts/deps.sh GROUP); `make
# deps` installs everything make check needs
deps:
	@scripts/deps.sh check

# vmlinux.h holds the kernel's type definitions for CO-RE; it is generated
# from the build host's BTF (see README: "Why vmlinux.h is generated").
# Another kernel's (README: "Building on older kernels"): BTF=FILE, its
# vmlinux (ELF with a .BTF section) or raw BTF; or VMLINUX_H=FILE, a header
# made already, used as is. vm/kernel-btf.sh makes both from a Debian kernel
# package's vmlinuz. vmlinux.h.src names the source: another one regenerates.
BTF		?= /sys/kernel/btf/vmlinux
VMLINUX_H	?=
VMLINUX_SRC	:= $(if $(VMLINUX_H),header $(abspath $(VMLINUX_H)),btf $(abspath $(BTF)))

.PHONY: FORCE
$(BUILD)/vmlinux.h.src: FORCE
	@mkdir -p $(@D)
	@echo '$(VMLINUX_SRC)' | cmp -s - $@ 2>/dev/null || echo '$(VMLINUX_SRC)' >$@

$(BUILD)/vmlinux.h: $(BUILD)/vmlinux.h.src $(wildcard $(VMLINUX_H))
ifneq ($(VMLINUX_H),)
	@test -r '$(VMLINUX_H)' || { echo "VMLINUX_H=$(VMLINUX_H): no such file (expected a header made by bpftool btf dump file ... format c)" >&2; exit 1; }
	$(call msg,CP,$@)
	$(Q)cp '$(VMLINUX_H)' $@
else
	@test -r '$(BTF)' || { if [ '$(BTF)' = /sys/kernel/btf/vmlinux ]; then \
		echo "no /sys/kernel/btf/vmlinux: the build needs a kernel with BTF (CONFIG_DEBUG_INFO_BTF=y), or BTF=FILE / VMLINUX_H=FILE of another kernel" >&2; \
		else echo "BTF=$(BTF): no such file (expected a vmlinux with a .BTF section, or raw BTF like /sys/kernel/btf/vmlinux)" >&2; fi; exit 1; }
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file '$(BTF)' format c >$@
endif
	@grep -q '^struct io_ring_ctx {' $@ || { echo "$@ (from $(VMLINUX_SRC)): no struct io_ring_ctx: not a vmlinux.h of a kernel with io_uring" >&2; rm -f $@; exit 1; }

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/uringtune.h common/hist.h $(wildcard bpf/*.bpf.h) $(BUILD)/vmlinux.h
	@mkdir -p $(@D)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The skeleton embeds the object without its DWARF (llvm-strip -g keeps
# .BTF and .BTF.ext, all CO-RE and the verifier's line info need): the
# daemon is 1.4 MB smaller; build/*.bpf.o keep theirs.
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(LLVM_STRIP) -g -o $(BUILD)/$*.bpf.nodwarf.o $<
	$(Q)$(BPFTOOL) gen skeleton $(BUILD)/$*.bpf.nodwarf.o name $*_bpf > $@

$(BUILD)/common/%.o: INC = $(COMMON_INC)
$(BUILD)/daemon/%.o: INC = $(DAEMON_INC)
$(BUILD)/cli/%.o: INC = $(CLI_INC)
$(BUILD)/tests/tools/%.o: INC = $(TOOLS_INC)
$(BUILD)/tests/unit/%.o: INC = $(UNIT_INC)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(INC) -MMD -MP -c $< -o $@

# include paths and flags live here: a changed Makefile rebuilds every object
# (dependency files name headers by path, and a moved header is not seen)
$(COMMON_OBJS) $(DAEMON_OBJS) $(CLI_OBJS) $(AGENT_OBJS) $(UNIT_SRCS:%.c=$(BUILD)/%.o) \
	$(BUILD)/tests/unit/fake_kernel.o: Makefile

# the daemon's objects that include skeletons must wait for them
$(DAEMON_OBJS): $(BPF_SKELS)

$(BUILD)/uringtuned: $(DAEMON_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(DAEMON_LIBS)

# where `uringtune exec` finds the agent once installed
$(BUILD)/cli/exec.o: override CFLAGS += -DUT_AGENT_DIR='"$(AGENTDIR)"'

$(BUILD)/uringtune: $(CLI_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS_JSON) $(LIBS_YAJL)

$(BUILD)/pingpong: $(BUILD)/tests/tools/pingpong.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/mshot: $(BUILD)/tests/tools/mshot.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/ringhold: $(BUILD)/tests/tools/ringhold.o $(BUILD)/tests/tools/tool.o \
		$(BUILD)/tests/tools/holders.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/ringpass: $(BUILD)/tests/tools/ringpass.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/iopoll_load: $(BUILD)/tests/tools/iopoll_load.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/nopbench: $(BUILD)/tests/tools/nopbench.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

$(BUILD)/libut_uring25.so: tests/tools/liburing25_shim.c
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(TOOLS_INC) -shared -fPIC -o $@ $< $(LIBS_URING)

$(BUILD)/ringentry: $(BUILD)/tests/tools/ringentry.o $(BUILD)/tests/tools/tool.o $(COMMON_OBJS) \
		$(BUILD)/libut_uring25.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) -L$(BUILD) -lut_uring25 -Wl,-rpath,'$$ORIGIN' \
		$(LIBS_URING)

$(BUILD)/agent_hostile: $(BUILD)/tests/tools/agent_hostile.o $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

$(BUILD)/fdhold: $(BUILD)/tests/tools/fdhold.o $(BUILD)/tests/tools/tool.o \
		$(BUILD)/tests/tools/holders.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_URING)

# the service manager's end of NOTIFY_SOCKET, for tests: libc only
$(BUILD)/notify_listen: $(BUILD)/tests/tools/notify_listen.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

$(BUILD)/agent/%.o: agent/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(AGENT_INC) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(BUILD)/agent/agent_wire.o: common/agent_wire.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(AGENT_INC) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

# -z nodelete: a program that dlclose()s it keeps the interposers' code mapped
$(AGENT_LIB): $(AGENT_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -fPIC -Wl,-z,nodelete -Wl,-z,now -o $@ $^ -ldl -lpthread

$(AGENT_UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o \
		$(AGENT_PURE_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^

$(BUILD)/tests/test_lifecycle: $(BUILD)/tests/unit/test_lifecycle.o $(LIFECYCLE_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LIBS_INIH)

$(DAEMON_UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o \
		$(DAEMON_LIB_OBJS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(DAEMON_LIBS)

# the agent server's fake kernel, shared with its fuzz target
$(BUILD)/tests/test_daemon_agent_server: $(BUILD)/tests/unit/fake_kernel.o

check:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory all fuzz-build sanitize-build
	@LOAD=$(LOAD) NEIGHBOUR=$(NEIGHBOUR) tests/run.sh

# the daemon, the CLI and the agent only: no tools, no tests
run:
	@scripts/deps.sh run
	@$(MAKE) --no-print-directory programs
	$(BUILD)/uringtuned -c $(CONFIG) --foreground

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	@bench/run.sh

# IOPOLL on real Debian kernels (6.1, 6.12, 7.x) in QEMU with an NVMe disk
# that polls: vm/README.md. Kernels are fetched once into .cache/vm.
.PHONY: vmtest
vmtest:
	@scripts/deps.sh vmtest deb
	@$(MAKE) --no-print-directory all
	@# the package the systemd guest installs (vm/vmtest-systemd.sh)
	@$(MAKE) --no-print-directory deb
	@vm/vmtest.sh

clean:
	rm -rf $(BUILD)

# The unit's paths follow SBINDIR and SYSCONFDIR. Installed on the host
# itself (no DESTDIR), the status group is created if missing, as the
# package does from the sysusers file: the unit does not start without it
# (SupplementaryGroups=uringtune). An existing
# SYSCONFDIR/uringtune/uringtune.ini is never overwritten: the shipped one
# goes next to it as uringtune.ini.dist, to compare by hand. Man pages are
# gzipped as Debian does (-n: no name or time stamp, reproducible).
install: $(BUILD)/uringtuned $(BUILD)/uringtune $(AGENT_LIB)
	$(Q)$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(AGENTDIR) \
		$(DESTDIR)$(SYSCONFDIR)/uringtune $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	$(call msg,INSTALL,$(DESTDIR)$(SBINDIR)/uringtuned)
	$(Q)$(INSTALL) -m 0755 $(BUILD)/uringtuned $(DESTDIR)$(SBINDIR)/uringtuned
	$(call msg,INSTALL,$(DESTDIR)$(BINDIR)/uringtune)
	$(Q)$(INSTALL) -m 0755 $(BUILD)/uringtune $(DESTDIR)$(BINDIR)/uringtune
	$(call msg,INSTALL,$(DESTDIR)$(AGENTDIR)/liburingtune-agent.so)
	$(Q)$(INSTALL) -m 0644 $(AGENT_LIB) $(DESTDIR)$(AGENTDIR)/liburingtune-agent.so
	$(call msg,INSTALL,$(DESTDIR)$(UNITDIR)/uringtune.service)
	$(Q)sed -e 's|/usr/sbin/uringtuned|$(SBINDIR)/uringtuned|' \
		-e 's|/etc/uringtune/|$(SYSCONFDIR)/uringtune/|' \
		systemd/uringtune.service >$(DESTDIR)$(UNITDIR)/uringtune.service
	$(Q)chmod 0644 $(DESTDIR)$(UNITDIR)/uringtune.service
	$(Q)conf=$(DESTDIR)$(SYSCONFDIR)/uringtune/uringtune.ini; \
	if [ -e "$$conf" ]; then \
		printf '  %-8s %s\n' INSTALL "$$conf.dist"; \
		$(INSTALL) -m 0644 config/uringtune.ini "$$conf.dist" || exit 1; \
		echo "install: kept the existing $$conf; the shipped one is $$conf.dist"; \
	else \
		printf '  %-8s %s\n' INSTALL "$$conf"; \
		$(INSTALL) -m 0644 config/uringtune.ini "$$conf" || exit 1; \
	fi
	$(call msg,INSTALL,$(DESTDIR)$(BASHCOMPDIR)/uringtune)
	$(Q)$(INSTALL) -D -m 0644 completion/uringtune.bash $(DESTDIR)$(BASHCOMPDIR)/uringtune
	$(call msg,INSTALL,$(DESTDIR)$(SYSUSERSDIR)/uringtune.conf)
	$(Q)$(INSTALL) -D -m 0644 systemd/uringtune.sysusers $(DESTDIR)$(SYSUSERSDIR)/uringtune.conf
	$(Q)if [ -z "$(DESTDIR)" ] && ! getent group uringtune >/dev/null; then \
		if command -v systemd-sysusers >/dev/null; then \
			systemd-sysusers $(SYSUSERSDIR)/uringtune.conf || exit 1; \
		else \
			groupadd --system uringtune || exit 1; \
		fi; \
		echo "install: created the system group uringtune (the unit's SupplementaryGroups=)"; \
	fi
	$(Q)for m in $(MAN8:%=8:%) $(MAN5:%=5:%); do \
		sec=$${m%%:*}; m=$${m#*:}; \
		dst=$(DESTDIR)$(MANDIR)/man$$sec/$${m##*/}.gz; \
		printf '  %-8s %s\n' INSTALL "$$dst"; \
		gzip -9 -n -c $$m >"$$dst" && chmod 0644 "$$dst" || exit 1; \
	done

# make uninstall (same PREFIX, DESTDIR and directories as make install):
# removes the programs, the agent library, the unit, the man pages, the
# bash completion, the sysusers file and uringtune.ini.dist; not the
# uringtune group (Debian leaves system groups too). The configuration is
# removed only if it is still the shipped one (as dpkg keeps a changed
# conffile): a changed one is kept, and said so. The daemon's state (/var/lib/uringtune: the journal of the rings
# it tuned) is never touched. Stop the service first (systemctl disable
# --now uringtune): a stopped daemon has put every ring back.
.PHONY: uninstall
uninstall:
	$(Q)for f in $(SBINDIR)/uringtuned $(BINDIR)/uringtune $(AGENTDIR)/liburingtune-agent.so \
		$(UNITDIR)/uringtune.service $(SYSCONFDIR)/uringtune/uringtune.ini.dist \
		$(MAN8:man/%=$(MANDIR)/man8/%.gz) $(MAN5:man/%=$(MANDIR)/man5/%.gz) \
		$(BASHCOMPDIR)/uringtune $(SYSUSERSDIR)/uringtune.conf; do \
		[ -e "$(DESTDIR)$$f" ] || [ -L "$(DESTDIR)$$f" ] || continue; \
		printf '  %-8s %s\n' RM "$(DESTDIR)$$f"; \
		rm -f "$(DESTDIR)$$f" || exit 1; \
	done
	$(Q)conf=$(DESTDIR)$(SYSCONFDIR)/uringtune/uringtune.ini; \
	if [ -e "$$conf" ]; then \
		if cmp -s config/uringtune.ini "$$conf"; then \
			printf '  %-8s %s\n' RM "$$conf"; rm -f "$$conf" || exit 1; \
		else \
			echo "uninstall: kept $$conf: it differs from the shipped one (remove it by hand)"; \
		fi; \
	fi
	$(Q)rmdir $(DESTDIR)$(AGENTDIR) $(DESTDIR)$(SYSCONFDIR)/uringtune 2>/dev/null || true

# make deb: the Debian package (debian/, debhelper), built from a copy of
# this tree as it is (uncommitted changes included) under build/deb/src/;
# build/deb/ gets uringtune_VERSION_ARCH.deb, its -dbgsym package, the
# .buildinfo and the .changes. scripts/deb.sh says what it does.
.PHONY: deb
deb:
	@scripts/deps.sh deb
	@BUILD=$(BUILD) scripts/deb.sh

# ---------------------------------------------------------------------------
# Fuzzing and sanitizers
#
# make fuzz            the libFuzzer targets (tests/fuzz/fuzz_*.c; clang with
#                      ASan and UBSan, into build-fuzz/), each run for
#                      FUZZ_SECONDS (default 60); FUZZ_TARGETS="config control"
#                      runs only those. New inputs go to build-fuzz/corpus/,
#                      crashes to build-fuzz/crashes/: the tree is not changed.
# make fuzz-build      the targets only; `make check` builds them and replays
#                      their committed corpora (tests/fuzz/corpus/TARGET/)
# make sanitize-build  the unit tests built with ASan and UBSan into
#                      build-asan/; `make check` runs them too
#                      (tests/unit/sanitized.sh)
FUZZ_BUILD	?= build-fuzz
ASAN_BUILD	?= build-asan
FUZZ_SECONDS	?= 60
FUZZ_ALL	:= config journal control agent_server agent_wire cli_json verdicts
FUZZ_TARGETS	?= $(FUZZ_ALL)
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS	:= -O1 -g $(SAN_FLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE $(CFLAGS_JSON)
# tests/unit: the agent server's fake kernel (fake_kernel.h), shared with its unit tests
FUZZ_INC	:= $(DAEMON_INC) -Icli -Itests/fuzz -Itests/unit

# what each target links besides common/ and its own file: the code under
# test, as the daemon or the CLI builds it (control: no BPF, see fake_observe.c)
FUZZ_SRCS_config	:= $(wildcard daemon/config/*.c) daemon/log.c
FUZZ_SRCS_journal	:= daemon/tune/journal.c daemon/tune/journal_format.c daemon/tune/journal_index.c \
			   daemon/tune/journal_sync.c daemon/log.c
# the daemon without its BPF edge, event loop and sockets (fake_observe.c
# stands in for what the reports read of the BPF edge)
FUZZ_SRCS_control	:= $(filter-out daemon/main.c daemon/loop.c daemon/daemon.c \
			   daemon/observe/trace%.c daemon/observe/iopoll.c daemon/observe/inventory%.c \
			   daemon/observe/holders.c daemon/observe/scan_worker.c \
			   daemon/report/control_server.c daemon/report/control_conn.c,$(DAEMON_SRCS)) \
			   tests/fuzz/fake_observe.c
# the agent server's message sequences: the same daemon, a fake kernel
FUZZ_SRCS_agent_server	:= $(FUZZ_SRCS_control) tests/unit/fake_kernel.c
FUZZ_SRCS_agent_wire	:=
FUZZ_SRCS_verdicts	:= daemon/hybrid/verdicts.c daemon/hybrid/verdict_json.c
FUZZ_SRCS_cli_json	:= cli/client.c cli/bill_view.c cli/status_table.c cli/ring_view.c cli/strbuf.c \
			   cli/reply_parse.c cli/advice_view.c cli/verdict_view.c
FUZZ_LIBS		:= $(LIBS_JSON) $(LIBS_YAJL) $(LIBS_INIH) $(LIBS_SYSTEMD)

.PHONY: fuzz fuzz-build sanitize-build

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

fuzz: fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# the product's code instrumented for coverage; the fuzzer's main() at link
$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_INC) -MMD -MP -c $< -o $@

define FUZZ_TARGET
$(FUZZ_BUILD)/fuzz_$(1): $(patsubst %.c,$(FUZZ_BUILD)/%.o,tests/fuzz/fuzz_$(1).c \
		tests/fuzz/fuzz_util.c $(FUZZ_SRCS_$(1)) $(COMMON_SRCS))
	$$(call msg,LINK,$$@)
	$$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $$@ $$^ $(FUZZ_LIBS)
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call FUZZ_TARGET,$(t))))

# the same unit tests, built into build-asan/ with the product's compiler
sanitize-build:
	@$(MAKE) -s --no-print-directory BUILD=$(ASAN_BUILD) CFLAGS="-O2 -g $(SAN_FLAGS)" \
		$(UNIT_SRCS:tests/unit/%.c=$(ASAN_BUILD)/tests/%)

clean: clean-sanitize
.PHONY: clean-sanitize
clean-sanitize:
	rm -rf $(FUZZ_BUILD) $(ASAN_BUILD)

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)
# --------------------------------------------------------------------------- (fuzzing)

# (not build/deb/: make deb's copy of the tree and its package trees)
-include $(shell find $(BUILD) -path $(BUILD)/deb -prune -o -name '*.d' -type f -print 2>/dev/null)
