# ioriot build: library of all modules, the ioriot binary, the Check test
# runner, benchmarks and the demo.  Output goes to $(OUTPUT); quiet unless V=1.
#
#   make                 build ./ioriot
#   make check           install missing build packages, build, run all tests
#                        but the timing ones (a busy host cannot fail it);
#                        SUITE=NAME (tests/test_NAME.c) and CASE=NAME run
#                        one suite, one test case of it
#   make check-timing    only the tests of timing and throughput, a failing
#                        case tried up to CHECK_ATTEMPTS=3 times
#   make bench           run the benchmarks and print their figures
#   make bench-predict   real programs and their replays on five storage
#                        configurations: how well a replay predicts
#                        (root, about 30 min; PREDICT_RUNS=1
#                        PREDICT_PROGRAMS=sqlite for a quick run)
#   make demo            capture a small workload, generate, replay it twice,
#                        write .output/demo/report.html
#   make deb             the Debian package, in $(OUTPUT)/deb
#   make fuzz            libFuzzer on the three readers, FUZZ_SECONDS=60 each
#   make check-flags     build with -O1, -O3, -Os, dpkg-buildflags and clang,
#                        warnings as errors (scripts/check-flags.sh)
#   make check-static    cppcheck over the C sources: no finding passes
#   make check-sanitize  make check under ASan + UBSan, the replay suite under
#                        TSan
#   make check-vm        the capture tests in a qemu guest on Debian's 6.1
#                        and 5.10 kernels, eBPF and SystemTap (VM_KERNELS=)
#   make install         DESTDIR= prefix=/usr/local (sbindir, bindir, mandir,
#                        bashcompdir)
#   make deps            install the missing Debian build packages (apt-get);
#                        check, bench, demo and fuzz run it first
#   SANITIZE=1           build with AddressSanitizer + UndefinedBehaviorSanitizer
#   TSAN=1               build with ThreadSanitizer
#
# CFLAGS (default -O2 -g), CPPFLAGS, LDFLAGS and EXTRA_CFLAGS are the
# caller's, as distributions pass them: they come after the project's own
# flags, never instead of them.

prefix ?= $(if $(PREFIX),$(PREFIX),/usr/local)
sbindir ?= $(prefix)/sbin
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
bashcompdir ?= $(prefix)/share/bash-completion/completions
DESTDIR ?=
CC ?= cc

CFLAGS ?= -O2 -g
IORIOT_CPPFLAGS = -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude -I$(OUTPUT)
# Warnings are errors in the project's own targets (check, demo, bench, CI:
# they pass WERROR=1) and with WERROR=1; a plain `make` with other flags or
# another compiler only warns, as distributions build.
IORIOT_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -Wformat=2 \
		 $(if $(filter 1,$(WERROR)),-Werror)
IORIOT_LDFLAGS :=
LDLIBS += -pthread -lm

# x86-64 with GCC: a fixed-size memset or memcpy of up to 2 KiB becomes
# vector stores instead of `rep stos`/`rep movs`, whose start-up costs tens
# of cycles a call.  The generator clears an operation and an event per
# line; 4-8% of its time (docs/benchmarks-history.md §5).  Compilers or targets
# without these options go without them.
STRINGOP_FLAGS := -mmemset-strategy=vector_loop:2048:noalign,libcall:-1:noalign \
		  -mmemcpy-strategy=vector_loop:2048:noalign,libcall:-1:noalign
IORIOT_CFLAGS += $(shell $(CC) $(STRINGOP_FLAGS) -Werror -c -x c \
		   -o /dev/null /dev/null 2>/dev/null && echo "$(STRINGOP_FLAGS)")

# Sanitizer builds live in their own output directory so objects never mix.
ifeq ($(SANITIZE),1)
OUTPUT ?= .output/asan
IORIOT_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
		 -fno-sanitize-recover=undefined
IORIOT_LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
OUTPUT ?= .output/tsan
IORIOT_CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
IORIOT_LDFLAGS += -fsanitize=thread
endif

# The version: the release (the VERSION file), and in a git checkout the
# commit `git describe` names (-dirty with uncommitted changes).  Only
# src/util/version.c gets it; $(OUTPUT)/version.stamp changes when it does,
# which rebuilds that object.
IORIOT_RELEASE := $(shell cat VERSION)
GIT_DESCRIBE := $(shell git describe --always --dirty --match 'v[0-9]*' \
		  2>/dev/null)
IORIOT_VERSION := $(IORIOT_RELEASE)$(if $(GIT_DESCRIBE),+g$(GIT_DESCRIBE))
VERSION_CPPFLAGS = -DIORIOT_VERSION='"$(IORIOT_VERSION)"'

# What every compile and link of the project's code uses; objects also
# write their header dependencies (-MMD -MP) next to themselves.
ALL_CFLAGS = $(IORIOT_CPPFLAGS) $(CPPFLAGS) $(IORIOT_CFLAGS) $(CFLAGS) \
	     $(EXTRA_CFLAGS)
ALL_LDFLAGS = $(IORIOT_LDFLAGS) $(LDFLAGS)
DEPFLAGS = -MMD -MP
OUTPUT ?= .output
ifeq ($(OUTPUT),.output)
BIN := ioriot
else
BIN := $(OUTPUT)/ioriot
endif

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

LIB_SRCS := $(sort $(filter-out %.bpf.c,$(wildcard src/*/*.c)))
LIB_OBJS := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(LIB_SRCS))
LIB := $(OUTPUT)/libioriot.a

TEST_SRCS := $(sort $(wildcard tests/*.c))
TEST_OBJS := $(patsubst tests/%.c,$(OUTPUT)/tests/%.o,$(TEST_SRCS))
TEST_BIN := $(OUTPUT)/check_ioriot
SUITE_NAMES := $(patsubst tests/test_%.c,%,$(sort $(wildcard tests/test_*.c)))
CHECK_CFLAGS := $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

BENCH_BINS := $(OUTPUT)/bench/mkcapture $(OUTPUT)/bench/syscall-loop \
	      $(OUTPUT)/bench/fault-loop \
	      $(OUTPUT)/bench/mkreplay $(OUTPUT)/bench/floor \
	      $(OUTPUT)/bench/sleep-floor $(OUTPUT)/bench/pingpong

# Small programs with known syscall sequences, captured by the tests.
WORKLOAD_BINS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,\
		   $(wildcard tests/workloads/*.c))

# The BPF capture probe, compiled with clang for the BPF target, embedded
# into ioriot as a bpftool skeleton.  Its kernel types come from the
# vendored vmlinux.h (src/capture/vmlinux/, x86_64: only the types and
# members the probe reads, relocated by libbpf to the running kernel's
# layout), so the build host needs no BTF.  VMLINUX_BTF=FILE builds from a
# full dump of FILE's BTF instead (`make vmlinux.h` writes it; other
# architectures always do), VMLINUX_H=FILE from a header of one's own.
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
ifeq ($(origin VMLINUX_BTF)$(BPF_ARCH),undefinedx86)
VMLINUX_H ?= src/capture/vmlinux/vmlinux.h
endif
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
VMLINUX_H ?= $(OUTPUT)/vmlinux.h
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	      -I$(dir $(VMLINUX_H)) -Iinclude -Wall -Werror
# libbpf, liburing (the io_uring replay), libzstd (compressed capture logs)
# and libjansson (reading statistics and analysis JSON).  LINK=static (the
# default) links them into the binary: one file to copy to a production
# host or into a test guest, whatever its packages.  LINK=shared links
# Debian's shared libraries, so that their security updates reach ioriot:
# the .deb does (debian/rules).  libelf and zlib, which libbpf needs, are
# shared either way.
LINK ?= static
ifeq ($(LINK),static)
STATIC_ON := -Wl,-Bstatic
STATIC_OFF := -Wl,-Bdynamic
else ifneq ($(LINK),shared)
$(error LINK=$(LINK): static or shared)
endif
LDLIBS += $(STATIC_ON) -lbpf -luring -lzstd -ljansson $(STATIC_OFF) -lelf -lz
SKELETON := $(OUTPUT)/capture.skel.h

.DELETE_ON_ERROR:
.PHONY: all deps check check-timing check-flags check-static check-sanitize \
	check-vm bench bench-predict demo fuzz install uninstall clean FORCE deb \
	vmlinux.h

all: $(BIN)

deps:
	$(Q)scripts/install-deps.sh

$(BIN): $(OUTPUT)/src/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# An object depends on the headers it included when it was last compiled
# (its .d file, from -MMD); one without a .d file (built before, or the
# file lost) is built again.  Generated headers have their own rules below.
$(OUTPUT)/src/%.o: src/%.c $(OUTPUT)/src/%.d $(OUTPUT)/cflags.stamp | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(OUTPUT)/tests/%.o: tests/%.c $(OUTPUT)/tests/%.d $(OUTPUT)/cflags.stamp | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(CHECK_CFLAGS) $(DEPFLAGS) -c -o $@ $<

DEP_FILES := $(LIB_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(OUTPUT)/src/main.d
$(DEP_FILES): ;
-include $(DEP_FILES)

# Objects are built again when the compile flags change: the stamp holds
# them, and is rewritten only when they differ.
$(OUTPUT)/cflags.stamp: FORCE | $(OUTPUT)
	$(Q)[ "$$(cat $@ 2>/dev/null)" = '$(CC) $(ALL_CFLAGS)' ] || \
		echo '$(CC) $(ALL_CFLAGS)' > $@

$(OUTPUT)/version.stamp: FORCE | $(OUTPUT)
	$(Q)[ "$$(cat $@ 2>/dev/null)" = '$(IORIOT_VERSION)' ] || \
		echo '$(IORIOT_VERSION)' > $@

$(OUTPUT)/src/util/version.o: $(OUTPUT)/version.stamp
$(OUTPUT)/src/util/version.o: IORIOT_CPPFLAGS += $(VERSION_CPPFLAGS)

# The runner's suite list: one NAME_suite per tests/test_NAME.c.
$(OUTPUT)/suites.h: $(wildcard tests/test_*.c) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ $(foreach s,$(SUITE_NAMES),echo 'Suite *$(s)_suite(void);';) \
	  echo '#define SUITES $(foreach s,$(SUITE_NAMES),$(s)_suite,)'; } > $@

$(OUTPUT)/tests/check_main.o: $(OUTPUT)/suites.h

$(TEST_BIN): $(TEST_OBJS) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(OUTPUT)/bench/%: bench/%.c $(wildcard bench/*.h include/ioriot/*.h) $(LIB) \
		   | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Workloads are what the tests capture, not project code: built without
# sanitizers, whose runtimes add processes and syscalls of their own.
WORKLOAD_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE

$(OUTPUT)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h) \
		      | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -pthread $(WORKLOAD_LIBS_$*)

# The uring workload uses liburing, linked as ioriot links it.
WORKLOAD_LIBS_uring := $(STATIC_ON) -luring $(STATIC_OFF)

$(OUTPUT):
	$(Q)mkdir -p $@

# A full dump of the kernel types of VMLINUX_BTF, again when that changes.
vmlinux.h: $(OUTPUT)/vmlinux.h

$(OUTPUT)/vmlinux.h: $(wildcard $(VMLINUX_BTF)) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "ioriot build: $(VMLINUX_BTF)" \
		"is missing: this kernel has no BTF; pass VMLINUX_BTF=FILE" \
		"(a vmlinux with BTF) or VMLINUX_H=FILE (a vmlinux.h dumped" \
		"on a host with BTF)" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/capture.bpf.o: src/capture/capture.bpf.c src/capture/cpuring.bpf.h \
			 $(wildcard src/capture/capture_*.bpf.h) \
			 include/ioriot/event.h include/ioriot/syscall_table.h \
			 $(VMLINUX_H) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(SKELETON): $(OUTPUT)/capture.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name capture_bpf > $@

$(OUTPUT)/src/capture/loader.o: $(SKELETON)

# The capture benchmark's floors: empty programs on the hooks (bench/floor).
$(OUTPUT)/bench/floor.bpf.o: bench/floor.bpf.c $(VMLINUX_H) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUTPUT)/bench/floor.skel.h: $(OUTPUT)/bench/floor.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name floor_bpf > $@

$(OUTPUT)/bench/floor: $(OUTPUT)/bench/floor.skel.h

# Syscall names of the build host's architecture, for the capture's counts
# of the syscalls it does not record.
$(OUTPUT)/syscall_names.h: scripts/gen-syscall-names.sh | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)scripts/gen-syscall-names.sh "$(CC)" > $@

$(OUTPUT)/src/capture/sysnames.o: $(OUTPUT)/syscall_names.h

# make check leaves out the test cases tagged "timing" (tests/testutil.h:
# tight bounds on how fast or how evenly something ran, which a busy host
# breaks without a bug); make check-timing runs only those, a failing case
# up to CHECK_ATTEMPTS times, each attempt printed.
CHECK_ENV = IORIOT_BIN=$(CURDIR)/$(BIN) IORIOT_TESTDATA=$(CURDIR)/tests/data \
	    IORIOT_WORKLOADS=$(CURDIR)/$(OUTPUT)/workloads \
	    $(if $(SUITE),CK_RUN_SUITE=$(SUITE)) $(if $(CASE),CK_RUN_CASE=$(CASE))
CHECK_ATTEMPTS ?= 3

check: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 $(BIN) $(TEST_BIN) $(WORKLOAD_BINS)
	$(Q)$(CHECK_ENV) CK_EXCLUDE_TAGS=timing scripts/run-check.sh $(TEST_BIN)

check-timing: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 $(BIN) $(TEST_BIN) $(WORKLOAD_BINS)
	$(Q)$(CHECK_ENV) CK_INCLUDE_TAGS=timing \
		IORIOT_CHECK_ATTEMPTS=$(CHECK_ATTEMPTS) \
		scripts/run-check.sh $(TEST_BIN)

check-flags: deps
	$(Q)scripts/check-flags.sh $(OUTPUT)/flags

# The suites under the sanitizers: all of make check under AddressSanitizer
# and UndefinedBehaviorSanitizer (built into .output/asan), then the replay
# engine's suite under ThreadSanitizer (.output/tsan; in one process, as
# TSan follows threads, not forks; ASLR off, which TSan's shadow memory
# needs on kernels with a high mmap entropy).  The timing cases are left
# out of both, as in make check.
TSAN_OUT := .output/tsan
check-sanitize: deps
	$(Q)$(MAKE) --no-print-directory SANITIZE=1 check
	$(Q)$(MAKE) --no-print-directory TSAN=1 OUTPUT=$(TSAN_OUT) WERROR=1 \
		$(TSAN_OUT)/ioriot $(TSAN_OUT)/check_ioriot
	$(Q)IORIOT_BIN=$(CURDIR)/$(TSAN_OUT)/ioriot \
		IORIOT_TESTDATA=$(CURDIR)/tests/data CK_RUN_SUITE=replay \
		CK_FORK=no CK_EXCLUDE_TAGS=timing TSAN_OPTIONS=halt_on_error=1 \
		setarch -R scripts/run-check.sh $(TSAN_OUT)/check_ioriot

# cppcheck's warning and portability checks over the C of src/, tests/,
# fuzz/ and bench/ (not the BPF programs): no finding passes.  One that is
# no bug is suppressed at its line with the reason beside it
# (/* cppcheck-suppress ID ; why */); duplicateAssignExpression is style
# only.
CPPCHECK_FLAGS = -q -j2 --std=c11 --enable=warning,portability \
	--inline-suppr --error-exitcode=1 --suppress=missingIncludeSystem \
	--suppress=duplicateAssignExpression -D_GNU_SOURCE -D__linux__ \
	-D__x86_64__ -DIORIOT_VERSION='"check"' -Iinclude -I$(OUTPUT)
check-static: deps
	$(Q)$(MAKE) --no-print-directory $(BIN)
	$(Q)cppcheck $(CPPCHECK_FLAGS) -i src/capture/capture.bpf.c \
		-i src/capture/vmlinux -i bench/floor.bpf.c src tests fuzz bench

bench: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 $(BIN) $(BENCH_BINS)
	$(Q)bench/generate.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/analyze.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/capture.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/compact.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/replay.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/fleet.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/verdict.sh $(CURDIR)/$(BIN) $(OUTPUT)

# The prediction benchmark (docs/benchmarks.md §11): bench/predict.sh
# reads PREDICT_RUNS, PREDICT_PROGRAMS, PREDICT_PACINGS and PREDICT_CONFIGS
# from the environment and writes .output/predict.tsv and predict.txt.
bench-predict: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 $(BIN)
	$(Q)bench/predict.sh $(CURDIR)/$(BIN) $(OUTPUT)

demo: deps
	$(Q)$(MAKE) --no-print-directory WERROR=1 $(BIN) $(BENCH_BINS)
	$(Q)scripts/demo.sh $(CURDIR)/$(BIN) $(CURDIR)/$(OUTPUT)/bench/mkcapture \
		$(CURDIR)/$(OUTPUT)/demo

# Fuzzing (fuzz/*.c, libFuzzer): the modules the harnesses use (the two
# readers, the generator, util) are built again with clang, coverage and
# ASan + UBSan into their own directory.  clang's -Wformat=2 also flags
# v*printf() in helpers without a format attribute, which gcc accepts.
# scripts/fuzz.sh seeds a working corpus per harness from tests/data, runs
# each for FUZZ_SECONDS and prints the figures; crash inputs go to
# $(FUZZ_OUT)/crashes/NAME/.
FUZZ_OUT := .output/fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	       -Wno-format-nonliteral -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	       -Iinclude -fsanitize=fuzzer-no-link,address,undefined \
	       -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_NAMES := $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_NAMES))
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/src/%.o,$(sort \
		   $(wildcard $(addprefix src/,$(addsuffix /*.c,\
		   caplog generate rlog util)))))

$(FUZZ_OUT)/src/%.o: src/%.c $(wildcard include/ioriot/*.h src/*/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_OUT)/src/util/version.o: FUZZ_CFLAGS += $(VERSION_CPPFLAGS)

$(FUZZ_OUT)/libioriot.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_OUT)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_input.h fuzz/rlog_confined.h $(FUZZ_OUT)/libioriot.a \
		    $(wildcard include/ioriot/*.h)
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_OUT)/libioriot.a -pthread -lzstd

fuzz:
	$(Q)scripts/install-deps.sh fuzz
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS)
	$(Q)scripts/fuzz.sh $(FUZZ_OUT) $(FUZZ_SECONDS) $(FUZZ_NAMES)

# check-vm (scripts/vm/): a Debian 12 guest with Debian 12's 6.1 and Debian
# 11's 5.10 kernel, built once into $(VM_DIR) and rebuilt when its recipe
# changes; the SystemTap module built here for each guest kernel with
# `stap -r` and the kernel's headers (unpacked by image.sh); the capture
# suite run in the guest under qemu, once per kernel, with both backends.
VM_DIR := .output/vm
VM_KERNELS ?= 6.1 5.10
VM_STAP_FLAGS := -DMAXSTRINGLEN=4096 -DMAXACTION=100000 -DMAXSKIPPED=100000 \
		 -DSTP_NO_OVERLOAD -DKRETACTIVE=1024 -DMAXTRYLOCK=1000 -s 64
VM_MODULES := $(foreach k,$(VM_KERNELS),$(VM_DIR)/kernels/$(k)/ioriot.ko)

$(VM_DIR)/root.img: scripts/vm/image.sh scripts/vm/guest-init
	$(Q)mkdir -p $(VM_DIR)
	$(Q)scripts/vm/image.sh $(VM_DIR)

$(VM_DIR)/kernels/%/ioriot.ko: systemtap/ioriot.stp scripts/vm/stap-module.sh \
			       $(VM_DIR)/root.img
	$(call msg,STAP,$@)
	$(Q)scripts/vm/stap-module.sh $(@D) systemtap/ioriot.stp $(VM_STAP_FLAGS)

check-vm:
	$(Q)scripts/install-deps.sh vm
	$(Q)$(MAKE) --no-print-directory $(BIN) $(TEST_BIN) $(WORKLOAD_BINS) \
		$(VM_DIR)/root.img $(VM_MODULES)
	$(Q)IORIOT_BIN=$(CURDIR)/$(BIN) CHECK_BIN=$(CURDIR)/$(TEST_BIN) \
		WORKLOADS=$(CURDIR)/$(OUTPUT)/workloads \
		TESTDATA=$(CURDIR)/tests/data scripts/vm/run.sh $(VM_DIR) $(VM_KERNELS)

# The Debian package (debian/, debhelper 13), built from a copy of the tree
# in $(OUTPUT)/deb; lintian's findings are printed and its errors fail.
deb: deps
	$(Q)scripts/build-deb.sh $(CURDIR)/$(OUTPUT)/deb

# ioriot is an administrator's tool (its man page is in section 8): sbin.
install: $(BIN)
	install -d $(DESTDIR)$(sbindir) $(DESTDIR)$(bindir) \
		$(DESTDIR)$(mandir)/man8 $(DESTDIR)$(mandir)/man1
	install -m 0755 $(BIN) $(DESTDIR)$(sbindir)/ioriot
	install -m 0755 scripts/ioriot-plot $(DESTDIR)$(bindir)/ioriot-plot
	install -m 0755 scripts/ioriot-sweep $(DESTDIR)$(sbindir)/ioriot-sweep
	install -m 0644 docs/ioriot.8 $(DESTDIR)$(mandir)/man8/ioriot.8
	install -m 0644 docs/ioriot-sweep.8 $(DESTDIR)$(mandir)/man8/ioriot-sweep.8
	install -m 0644 docs/ioriot-plot.1 $(DESTDIR)$(mandir)/man1/ioriot-plot.1
	install -d $(DESTDIR)$(bashcompdir)
	install -m 0644 scripts/completion/ioriot.bash $(DESTDIR)$(bashcompdir)/ioriot
	ln -sf ioriot $(DESTDIR)$(bashcompdir)/ioriot-sweep
	ln -sf ioriot $(DESTDIR)$(bashcompdir)/ioriot-plot

uninstall:
	rm -f $(DESTDIR)$(sbindir)/ioriot $(DESTDIR)$(bindir)/ioriot-plot \
		$(DESTDIR)$(sbindir)/ioriot-sweep \
		$(DESTDIR)$(mandir)/man8/ioriot.8 \
		$(DESTDIR)$(mandir)/man8/ioriot-sweep.8 \
		$(DESTDIR)$(mandir)/man1/ioriot-plot.1 \
		$(DESTDIR)$(bashcompdir)/ioriot \
		$(DESTDIR)$(bashcompdir)/ioriot-sweep \
		$(DESTDIR)$(bashcompdir)/ioriot-plot

clean:
	rm -rf .output ioriot
