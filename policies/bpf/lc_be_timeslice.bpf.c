/*
 * Class-based timeslice policy as a gpu_ext struct_ops object: the BPF twin of
 * policies/lc_be_timeslice.c (same decisions, same trace). The class of a
 * channel group comes from its creator's process name, looked up in the
 * `process_class` map (1 = LC, 2 = BE) that the loader fills before attaching;
 * the class decides the timeslice (and, if the knob is set, the interleave
 * level) at task_init and, with hold, replaces every later SET_TIMESLICE.
 *
 * Knobs (.rodata, set before load): lc_us, be_us, lc_il, be_il (NO_LEVEL = no
 * interleave decision), hold, default_cls (class of an unlisted name), gr_only.
 * Built twice: lc_be_timeslice (LC 1 s / BE 200 us) and gpreempt (LC 1 s / BE 1 us).
 */
#include "process_class.bpf.h"

#ifndef LCBE_BE_US
#define LCBE_BE_US 200
#endif
#define LCBE_LC_US 1000000
#define NO_LEVEL 0xffffffffu

const volatile __u64 lc_us = LCBE_LC_US;
const volatile __u64 be_us = LCBE_BE_US;
const volatile __u32 lc_il = NO_LEVEL;
const volatile __u32 be_il = NO_LEVEL;
const volatile __u32 hold = 1;
const volatile __u32 default_cls = CLS_NONE;
const volatile __u32 gr_only = 1;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4096);
    __type(key, struct task_key);
    __type(value, __u32);
} task_class SEC(".maps");

static __always_inline __u32 classify(__u32 engine_type)
{
    if (gr_only && !nv_gpu_engine_is_gr(engine_type))
        return CLS_NONE;
    return current_class(default_cls);
}

SEC("struct_ops/lcbe_task_init")
int lcbe_task_init(unsigned long long *args)
{
    struct nv_gpu_task_init_ctx *ctx = (void *)args[0];
    __u32 cls = classify(ctx->engine_type);
    if (cls != CLS_LC && cls != CLS_BE)
        return 0;
    struct task_key k = {.runlist_id = ctx->runlist_id, .tsg_id = ctx->tsg_id};
    bpf_map_update_elem(&task_class, &k, &cls, BPF_ANY);
    bpf_nv_gpu_set_timeslice(ctx, cls == CLS_LC ? lc_us : be_us);
    __u32 il = cls == CLS_LC ? lc_il : be_il;
    if (il != NO_LEVEL)
        bpf_nv_gpu_set_interleave(ctx, il);
    return 0;
}

SEC("struct_ops/lcbe_timeslice_control")
int lcbe_timeslice_control(unsigned long long *args)
{
    struct nv_gpu_timeslice_control_ctx *ctx = (void *)args[0];
    if (!hold)
        return 0;
    struct task_key k = {.runlist_id = ctx->runlist_id, .tsg_id = ctx->tsg_id};
    __u32 *known = bpf_map_lookup_elem(&task_class, &k);
    /* a group created before the policy was attached is classified now */
    __u32 cls = known ? *known : classify(ctx->engine_type);
    if (cls == CLS_LC || cls == CLS_BE)
        bpf_nv_gpu_override_timeslice(ctx, cls == CLS_LC ? lc_us : be_us);
    return 0;
}

SEC("struct_ops/lcbe_task_destroy")
int lcbe_task_destroy(unsigned long long *args)
{
    struct nv_gpu_task_destroy_ctx *ctx = (void *)args[0];
    struct task_key k = {.runlist_id = ctx->runlist_id, .tsg_id = ctx->tsg_id};
    bpf_map_delete_elem(&task_class, &k);
    return 0;
}

SEC(".struct_ops")
struct nv_gpu_sched_ops lc_be_timeslice = {
    .on_task_init = (void *)lcbe_task_init,
    .on_timeslice_control = (void *)lcbe_timeslice_control,
    .on_task_destroy = (void *)lcbe_task_destroy,
};

char LICENSE[] SEC("license") = "GPL";
