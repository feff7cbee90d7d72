# ioriot build: library of all modules, the ioriot binary, the Check test
# runner, benchmarks and the demo.  Output goes to $(OUTPUT); quiet unless V=1.
#
#   make                 build ./ioriot
#   make check           install missing build packages, build, run all tests
#   make bench           run the benchmarks and print their figures
#   make demo            capture a small workload, generate, replay it twice
#   make fuzz            libFuzzer on the three readers, FUZZ_SECONDS=60 each
#   make check-vm        the capture tests in a qemu guest on Debian's 6.1
#                        and 5.10 kernels, eBPF and SystemTap (VM_KERNELS=)
#   make install         PREFIX=/usr/local DESTDIR= : binaries and man page
#   SANITIZE=1           build with AddressSanitizer + UndefinedBehaviorSanitizer
#   TSAN=1               build with ThreadSanitizer

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wformat=2 \
	  -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -Iinclude -I$(OUTPUT)
LDLIBS += -pthread

# Sanitizer builds live in their own output directory so objects never mix.
ifeq ($(SANITIZE),1)
OUTPUT ?= .output/asan
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	  -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(TSAN),1)
OUTPUT ?= .output/tsan
CFLAGS += -fsanitize=thread -fno-omit-frame-pointer
LDFLAGS += -fsanitize=thread
endif
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
	      $(OUTPUT)/bench/sleep-floor

# Small programs with known syscall sequences, captured by the tests.
WORKLOAD_BINS := $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,\
		   $(wildcard tests/workloads/*.c))

# The BPF capture probe: vmlinux.h from the kernel's BTF (or VMLINUX_H=FILE
# for hosts without /sys/kernel/btf/vmlinux), compiled with clang for the BPF
# target, embedded into ioriot as a bpftool skeleton.  libbpf is linked
# statically so the binary runs on other kernels with BTF.
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
VMLINUX_H ?= $(OUTPUT)/vmlinux.h
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) \
	      -I$(dir $(VMLINUX_H)) -Iinclude -Wall -Werror
LIBBPF_LIBS := -Wl,-Bstatic -lbpf -Wl,-Bdynamic -lelf -lz
# liburing (the io_uring replay), static too.
LIBURING_LIBS := -Wl,-Bstatic -luring -Wl,-Bdynamic
# libzstd (compressed capture logs, docs/capture-format.md), static too.
LIBZSTD_LIBS := -Wl,-Bstatic -lzstd -Wl,-Bdynamic
LDLIBS += $(LIBBPF_LIBS) $(LIBURING_LIBS) $(LIBZSTD_LIBS)
SKELETON := $(OUTPUT)/capture.skel.h

.DELETE_ON_ERROR:
.PHONY: all deps check check-vm bench demo fuzz install uninstall clean

all: $(BIN)

deps:
	$(Q)scripts/install-deps.sh

$(BIN): $(OUTPUT)/src/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Every object depends on every header, the public ones and those private
# to a module (src/*/*.h): simple, and never a stale struct layout.
$(OUTPUT)/src/%.o: src/%.c $(wildcard include/ioriot/*.h src/*/*.h) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(OUTPUT)/tests/%.o: tests/%.c $(wildcard tests/*.h include/ioriot/*.h) \
		       $(wildcard tests/workloads/*.h) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CHECK_CFLAGS) -c -o $@ $<

# The runner's suite list: one NAME_suite per tests/test_NAME.c.
$(OUTPUT)/suites.h: $(wildcard tests/test_*.c) | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ $(foreach s,$(SUITE_NAMES),echo 'Suite *$(s)_suite(void);';) \
	  echo '#define SUITES $(foreach s,$(SUITE_NAMES),$(s)_suite,)'; } > $@

$(OUTPUT)/tests/check_main.o: $(OUTPUT)/suites.h

$(TEST_BIN): $(TEST_OBJS) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(OUTPUT)/bench/%: bench/%.c $(wildcard bench/*.h) $(LIB) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# Workloads are what the tests capture, not project code: built without
# sanitizers, whose runtimes add processes and syscalls of their own.
WORKLOAD_CFLAGS := -O2 -g -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE

$(OUTPUT)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h) \
		      | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -o $@ $< -pthread $(WORKLOAD_LIBS_$*)

# The uring workload uses liburing, linked as ioriot links it.
WORKLOAD_LIBS_uring := $(LIBURING_LIBS)

$(OUTPUT):
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/capture.bpf.o: src/capture/capture.bpf.c include/ioriot/event.h \
			 include/ioriot/syscall_table.h $(VMLINUX_H) | $(OUTPUT)
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

check: deps
	$(Q)$(MAKE) --no-print-directory $(BIN) $(TEST_BIN) $(WORKLOAD_BINS)
	$(Q)IORIOT_BIN=$(CURDIR)/$(BIN) IORIOT_TESTDATA=$(CURDIR)/tests/data \
		IORIOT_WORKLOADS=$(CURDIR)/$(OUTPUT)/workloads $(TEST_BIN)

bench: deps
	$(Q)$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS)
	$(Q)bench/generate.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/analyze.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/capture.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/compact.sh $(CURDIR)/$(BIN) $(OUTPUT)
	$(Q)bench/replay.sh $(CURDIR)/$(BIN) $(OUTPUT)

demo: deps
	$(Q)$(MAKE) --no-print-directory $(BIN) $(BENCH_BINS)
	$(Q)scripts/demo.sh $(CURDIR)/$(BIN) $(CURDIR)/$(OUTPUT)/bench/mkcapture \
		$(CURDIR)/$(OUTPUT)/demo
	@echo "== analyze: ioriot --analyze io.capture --top 3"
	$(Q)$(CURDIR)/$(BIN) --analyze $(CURDIR)/$(OUTPUT)/demo/io.capture --top 3

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

$(FUZZ_OUT)/libioriot.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(FUZZ_OUT)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_input.h $(FUZZ_OUT)/libioriot.a \
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

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/ioriot
	install -m 0755 scripts/ioriot-plot $(DESTDIR)$(PREFIX)/bin/ioriot-plot
	install -m 0644 docs/ioriot.8 $(DESTDIR)$(PREFIX)/share/man/man8/ioriot.8

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ioriot $(DESTDIR)$(PREFIX)/bin/ioriot-plot \
		$(DESTDIR)$(PREFIX)/share/man/man8/ioriot.8

clean:
	rm -rf .output ioriot
