/*
 * What the attach tests' probe programs need beside nv_gpu_sched.bpf.h: x86-64 struct pt_regs and the
 * argument/return register accessors a tracing program uses, the probe_read helpers, and the
 * sched_process_exit record. Written for these tests (no vmlinux.h: no CO-RE relocations).
 */
#ifndef ATTACH_PROBE_BPF_H
#define ATTACH_PROBE_BPF_H

#include "nv_gpu_sched.bpf.h"

struct pt_regs {
    unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

#define PARM1(x) ((x)->di)
#define PARM2(x) ((x)->si)
#define PARM3(x) ((x)->dx)
#define PARM4(x) ((x)->cx)
#define RC(x) ((x)->ax)

static long (*bpf_probe_read_user)(void *dst, __u32 size, const void *unsafe_ptr) = (void *)112;
static long (*bpf_probe_read_kernel)(void *dst, __u32 size, const void *unsafe_ptr) = (void *)113;
static long (*bpf_probe_read_kernel_str)(void *dst, __u32 size, const void *unsafe_ptr) = (void *)115;

/* tracepoint/sched/sched_process_exit */
struct sched_process_exit_rec {
    __u16 common_type;
    __u8 common_flags, common_preempt_count;
    __s32 common_pid;
    char comm[16];
    __s32 pid;
    __s32 prio;
};

#define IOC_NR(cmd) ((cmd) & 0xff)
#define IOC_SIZE(cmd) (((cmd) >> 16) & 0x3fff)
#define NV_ESC_RM_ALLOC 0x2b
#define CLASS_CHANNEL_GROUP 0xa06c

#endif
