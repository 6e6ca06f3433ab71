/*
 * GPreempt's "preempt the best-effort work when a latency-critical kernel
 * launches", done the way gpu_ext does it from inside the kernel: a sleepable
 * uprobe on cuLaunchKernel calls bpf_nv_gpu_preempt_tsg on every BE channel
 * group (kernel privilege: any process's group), and the struct_ops callbacks
 * learn those groups' handles from libcuda's own SET_TIMESLICE
 * (on_timeslice_control carries hClient/hTsg) and forget them at
 * on_task_destroy. Timeslices stay native. A cooldown keeps one LC request's
 * burst of launches from preempting again and again.
 *
 * Maps the loader fills: process_class (process name -> 1 LC, 2 BE).
 * Knob (.rodata): cooldown_ns. Statistics: stats[] = launches by LC,
 * preempts that succeeded, preempts that failed, launches inside the cooldown.
 */
#include "process_class.bpf.h"

#define MAX_BE_GROUPS 16

enum { ST_LC_LAUNCHES, ST_PREEMPT_OK, ST_PREEMPT_ERR, ST_COOLDOWN, ST_COUNT };

const volatile __u64 cooldown_ns = 1000000;

struct be_group {
    __u32 hclient;
    __u32 htsg;
    __u32 runlist_id;
    __u32 pad;
    __u64 tsg_id;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, MAX_BE_GROUPS);
    __type(key, __u32);
    __type(value, struct be_group);
} be_groups SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

__u64 last_preempt_ns;

static __always_inline void count(__u32 which)
{
    __u64 *v = bpf_map_lookup_elem(&stats, &which);
    if (v)
        __sync_fetch_and_add(v, 1);
}

SEC("struct_ops/pol_timeslice_control")
int pol_timeslice_control(unsigned long long *args)
{
    struct nv_gpu_timeslice_control_ctx *ctx = (void *)args[0];
    if (!nv_gpu_engine_is_gr(ctx->engine_type) || current_class(CLS_NONE) != CLS_BE)
        return 0;
    __u32 free_slot = MAX_BE_GROUPS;
    for (__u32 i = 0; i < MAX_BE_GROUPS; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (!g)
            return 0;
        if (g->hclient == ctx->hclient && g->htsg == ctx->htsg)
            return 0;
        if (!g->hclient && free_slot == MAX_BE_GROUPS)
            free_slot = i;
    }
    if (free_slot == MAX_BE_GROUPS) {
        bpf_printk("no slot for BE group 0x%x", ctx->htsg);
        return 0;
    }
    struct be_group g = {.hclient = ctx->hclient, .htsg = ctx->htsg, .runlist_id = ctx->runlist_id,
                         .tsg_id = ctx->tsg_id};
    bpf_map_update_elem(&be_groups, &free_slot, &g, BPF_ANY);
    return 0;
}

SEC("struct_ops/pol_task_destroy")
int pol_task_destroy(unsigned long long *args)
{
    struct nv_gpu_task_destroy_ctx *ctx = (void *)args[0];
    for (__u32 i = 0; i < MAX_BE_GROUPS; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (g && g->hclient && g->tsg_id == ctx->tsg_id && g->runlist_id == ctx->runlist_id) {
            struct be_group none = {};
            bpf_map_update_elem(&be_groups, &k, &none, BPF_ANY);
        }
    }
    return 0;
}

SEC("uprobe.s//usr/lib/x86_64-linux-gnu/libcuda.so:cuLaunchKernel")
int preempt_on_launch(void *regs)
{
    if (current_class(CLS_NONE) != CLS_LC)
        return 0;
    count(ST_LC_LAUNCHES);
    __u64 now = bpf_ktime_get_ns();
    if (last_preempt_ns && now - last_preempt_ns < cooldown_ns) {
        count(ST_COOLDOWN);
        return 0;
    }
    last_preempt_ns = now;
    for (__u32 i = 0; i < MAX_BE_GROUPS; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (!g || !g->hclient)
            continue;
        int rc = bpf_nv_gpu_preempt_tsg(g->hclient, g->htsg);
        count(rc == 0 ? ST_PREEMPT_OK : ST_PREEMPT_ERR);
        if (rc)
            bpf_printk("preempt of 0x%x failed: %d", g->htsg, rc);
    }
    return 0;
}

SEC(".struct_ops")
struct nv_gpu_sched_ops preempt_on_launch_ops = {
    .on_task_destroy = (void *)pol_task_destroy,
    .on_timeslice_control = (void *)pol_timeslice_control,
};

char LICENSE[] SEC("license") = "GPL";
