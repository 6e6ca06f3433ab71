/*
 * A tracer of the driver's hook functions, as gpu_ext's tracing objects attach one: kprobes on the
 * noinline nv_gpu_sched_task_init / _bind / _token_request / _task_destroy reading the hook's ctx with
 * bpf_probe_read_kernel (task_init as the older 48-byte layout with its output fields: the driver's ctx
 * sits at the start of a larger record, so the read succeeds), the nvidia:nvidia_dev_xid tracepoint, and
 * uprobes on the CUDA runtime as a launch tracer attaches them (cudaLaunchKernel; cudaDeviceSynchronize
 * entry and return, timing each wait per process).
 * No struct_ops: it watches, it decides nothing.
 */
#include "probe.bpf.h"

enum { H_TASK_INIT, H_BIND, H_TOKEN, H_DESTROY, H_XID, H_READ_ERR, H_GR_INIT, H_LAUNCH, H_SYNC, H_SYNC_RET,
       H_COUNT };

/* the 48-byte task_init ctx of the first ABI generation */
struct old_task_init_ctx {
    __u64 tsg_id;
    __u32 engine_type;
    __u64 default_timeslice;
    __u32 default_interleave;
    __u32 runlist_id;
    __u64 timeslice;
    __u32 interleave_level;
};

struct token_ctx {
    __u32 channel_id;
    __u64 tsg_id;
    __u32 token;
};

struct xid_rec {
    __u16 common_type;
    __u8 common_flags, common_preempt_count;
    __s32 common_pid;
    __u32 dev_loc;                       /* __data_loc char[] dev: offset | length << 16 */
    __u32 error_code;
};

struct last_xid {
    __u32 code;
    __u32 pad;
    char dev[16];
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, H_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} hooks SEC(".maps");

/* (runlist, tsg id) of every group seen at task_init -> its default timeslice */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u64);
    __type(value, __u64);
} live SEC(".maps");

struct last_xid xid;

/* process -> when its cudaDeviceSynchronize was entered */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, __u64);
} sync_start SEC(".maps");

__u64 sync_min_ns;

static __always_inline void count(__u32 k)
{
    __u64 *v = bpf_map_lookup_elem(&hooks, &k);
    if (v)
        __sync_fetch_and_add(v, 1);
}

SEC("kprobe/nv_gpu_sched_task_init")
int trace_task_init(struct pt_regs *ctx)
{
    struct old_task_init_ctx c;
    count(H_TASK_INIT);
    if (bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx))) {
        count(H_READ_ERR);
        return 0;
    }
    if (nv_gpu_engine_is_gr(c.engine_type))
        count(H_GR_INIT);
    __u64 key = (__u64)c.runlist_id << 32 | (__u32)c.tsg_id;
    bpf_map_update_elem(&live, &key, &c.default_timeslice, BPF_ANY);
    return 0;
}

SEC("kprobe/nv_gpu_sched_bind")
int trace_bind(struct pt_regs *ctx)
{
    struct nv_gpu_bind_ctx c;
    count(H_BIND);
    if (bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx)) || c.allow != 1)
        count(H_READ_ERR);
    return 0;
}

SEC("kprobe/nv_gpu_sched_token_request")
int trace_token(struct pt_regs *ctx)
{
    struct token_ctx c;
    count(H_TOKEN);
    if (bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx)))
        count(H_READ_ERR);
    return 0;
}

SEC("kprobe/nv_gpu_sched_task_destroy")
int trace_destroy(struct pt_regs *ctx)
{
    struct nv_gpu_task_destroy_ctx c;
    count(H_DESTROY);
    if (bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx))) {
        count(H_READ_ERR);
        return 0;
    }
    __u64 key = (__u64)c.runlist_id << 32 | (__u32)c.tsg_id;
    if (bpf_map_delete_elem(&live, &key))
        count(H_READ_ERR);
    return 0;
}

SEC("tracepoint/nvidia/nvidia_dev_xid")
int trace_xid(struct xid_rec *rec)
{
    count(H_XID);
    xid.code = rec->error_code;
    __u32 off = rec->dev_loc & 0xffff;
    if (off < 64)
        bpf_probe_read_kernel_str(xid.dev, sizeof xid.dev, (char *)rec + off);
    return 0;
}

SEC("uprobe/cudaLaunchKernel")
int trace_launch(struct pt_regs *ctx)
{
    if (PARM1(ctx))
        count(H_LAUNCH);
    return 0;
}

SEC("uprobe/cudaDeviceSynchronize")
int trace_sync(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    __u64 now = bpf_ktime_get_ns();
    count(H_SYNC);
    bpf_map_update_elem(&sync_start, &tgid, &now, BPF_ANY);
    return 0;
}

SEC("uretprobe/cudaDeviceSynchronize")
int trace_sync_ret(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    __u64 *t0 = bpf_map_lookup_elem(&sync_start, &tgid);
    if (!t0 || RC(ctx) != 0)
        return 0;
    __u64 d = bpf_ktime_get_ns() - *t0;
    if (!sync_min_ns || d < sync_min_ns)
        sync_min_ns = d;
    count(H_SYNC_RET);
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
