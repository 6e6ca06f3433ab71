/*
 * Admission policy as a gpu_ext struct_ops object: the BPF twin of
 * policies/admission.c (same decisions, same trace). At most max_lc
 * latency-critical channel groups are admitted at GPFIFO_SCHEDULE; another LC
 * group's bind is rejected (NV_ERR_BUSY_RETRY) until an admitted one is
 * destroyed. The class comes from the creator's process name in the
 * `process_class` map (1 = LC, 2 = BE), else default_cls.
 *
 * The bind ctx carries no engine type, so the C twin's engines=gr filter is
 * the GR runlist here: gr_runlist (0 on the H200; 0xffffffff = every runlist).
 */
#include "process_class.bpf.h"

#define ALL_RUNLISTS 0xffffffffu

const volatile __u32 max_lc = 0;
const volatile __u32 default_cls = CLS_NONE;
const volatile __u32 gr_runlist = 0;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4096);
    __type(key, struct task_key);
    __type(value, __u32);
} task_admitted SEC(".maps");

__u64 admitted;

SEC("struct_ops/admission_bind")
int admission_bind(unsigned long long *args)
{
    struct nv_gpu_bind_ctx *ctx = (void *)args[0];
    if (gr_runlist != ALL_RUNLISTS && ctx->runlist_id != gr_runlist)
        return 0;
    if (current_class(default_cls) != CLS_LC)
        return 0;
    struct task_key k = {.runlist_id = ctx->runlist_id, .tsg_id = ctx->tsg_id};
    __u32 *was = bpf_map_lookup_elem(&task_admitted, &k);
    if (was && *was)
        return 0;
    __u32 no = 0, yes = 1;
    if (admitted >= max_lc) {
        bpf_map_update_elem(&task_admitted, &k, &no, BPF_ANY);
        bpf_nv_gpu_reject_bind(ctx);
        return 0;
    }
    bpf_map_update_elem(&task_admitted, &k, &yes, BPF_ANY);
    admitted++;
    return 0;
}

SEC("struct_ops/admission_task_destroy")
int admission_task_destroy(unsigned long long *args)
{
    struct nv_gpu_task_destroy_ctx *ctx = (void *)args[0];
    struct task_key k = {.runlist_id = ctx->runlist_id, .tsg_id = ctx->tsg_id};
    __u32 *was = bpf_map_lookup_elem(&task_admitted, &k);
    if (was && *was && admitted > 0)
        admitted--;
    bpf_map_delete_elem(&task_admitted, &k);
    return 0;
}

SEC(".struct_ops")
struct nv_gpu_sched_ops admission = {
    .on_bind = (void *)admission_bind,
    .on_task_destroy = (void *)admission_task_destroy,
};

char LICENSE[] SEC("license") = "GPL";
