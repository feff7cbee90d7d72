// SPDX-License-Identifier: GPL-2.0
/*
 * floor.bpf.c: empty BPF programs on the hooks a capture can use, for the
 * capture benchmark's floors.  Each set costs what the kernel charges to run
 * any program there, with no work of its own: the per-syscall enter/exit
 * tracepoints of the benchmark loop's syscalls (openat, pread64, close),
 * and the raw sys_enter/sys_exit tracepoints every syscall passes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define EMPTY_TP(name)						\
SEC("tracepoint/syscalls/sys_enter_" #name)			\
int enter_##name(void *ctx) { return 0; }			\
SEC("tracepoint/syscalls/sys_exit_" #name)			\
int exit_##name(void *ctx) { return 0; }

EMPTY_TP(openat)
EMPTY_TP(pread64)
EMPTY_TP(close)

SEC("tp_btf/sys_enter")
int BPF_PROG(raw_enter, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(raw_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
