/*
 * A policy shaped like gpu_ext's process-name timeslice policy (all four
 * callbacks; process name -> timeslice and -> interleave HASH maps keyed by
 * char[16]; statistics ARRAY maps; a RINGBUF of decisions; bpf_printk; the
 * three recording kfuncs; a `.rodata` knob set before load). Written for
 * nvemu's tests and as an example: unlisted GR channel groups get
 * default_us, listed ones their map value; SET_TIMESLICE is overridden with
 * the same value so libcuda cannot undo it.
 */
#include "nv_gpu_sched.bpf.h"

const volatile __u64 default_us = 0;          /* 0: unlisted processes keep the native timeslice */
const volatile __u32 verbose = 1;

enum { ST_TASK_INIT, ST_APPLIED, ST_OVERRIDES, ST_BINDS, ST_DESTROYS, ST_NOT_APPLIED, ST_COUNT };

struct event {
    __u64 tsg_id;
    __u64 value;
    __u32 hook;                               /* 0 task_init, 1 timeslice_control */
    __s32 result;
    char comm[16];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 256);
    __type(key, char[16]);
    __type(value, __u64);
} process_timeslice SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 256);
    __type(key, char[16]);
    __type(value, __u32);
} process_interleave SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 16);
    __type(key, __u32);
    __type(value, __u64);
} result_count SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 4096);
} events SEC(".maps");

static __always_inline void count(__u32 which)
{
    __u64 *v = bpf_map_lookup_elem(&stats, &which);
    if (v)
        __sync_fetch_and_add(v, 1);
}

static __always_inline void record(__u64 tsg, __u64 value, __u32 hook, int result, const char *comm)
{
    __u32 r = (__u32)result & 15;
    __u64 *n = bpf_map_lookup_elem(&result_count, &r);
    if (n)
        __sync_fetch_and_add(n, 1);
    struct event *e = bpf_ringbuf_reserve(&events, sizeof *e, 0);
    if (!e)
        return;
    e->tsg_id = tsg;
    e->value = value;
    e->hook = hook;
    e->result = result;
    __builtin_memcpy(e->comm, comm, 16);
    bpf_ringbuf_submit(e, 0);
}

SEC("struct_ops/gx_task_init")
int gx_task_init(unsigned long long *args)
{
    struct nv_gpu_task_init_ctx *ctx = (void *)args[0];
    char comm[16] = {};
    count(ST_TASK_INIT);
    if (!nv_gpu_engine_is_gr(ctx->engine_type))
        return 0;
    bpf_get_current_comm(comm, sizeof comm);
    __u64 *ts = bpf_map_lookup_elem(&process_timeslice, comm);
    __u64 us = ts ? *ts : default_us;
    if (!us)
        return 0;
    int rc = bpf_nv_gpu_set_timeslice(ctx, us);
    count(rc == NV_GPU_APPLY ? ST_APPLIED : ST_NOT_APPLIED);
    record(ctx->tsg_id, us, 0, rc, comm);
    if (verbose)
        bpf_printk("task_init tsg %llu %s: timeslice %llu us", ctx->tsg_id, comm, us);
    __u32 *il = bpf_map_lookup_elem(&process_interleave, comm);
    if (il)
        bpf_nv_gpu_set_interleave(ctx, *il);
    return 0;
}

SEC("struct_ops/gx_bind")
int gx_bind(unsigned long long *args)
{
    (void)args;
    count(ST_BINDS);
    return 0;
}

SEC("struct_ops/gx_timeslice_control")
int gx_timeslice_control(unsigned long long *args)
{
    struct nv_gpu_timeslice_control_ctx *ctx = (void *)args[0];
    char comm[16] = {};
    bpf_get_current_comm(comm, sizeof comm);
    __u64 *ts = bpf_map_lookup_elem(&process_timeslice, comm);
    __u64 us = ts ? *ts : default_us;
    if (!us || !nv_gpu_engine_is_gr(ctx->engine_type))
        return 0;
    int rc = bpf_nv_gpu_override_timeslice(ctx, us);
    count(ST_OVERRIDES);
    record(ctx->tsg_id, us, 1, rc, comm);
    return 0;
}

SEC("struct_ops/gx_task_destroy")
int gx_task_destroy(unsigned long long *args)
{
    (void)args;
    count(ST_DESTROYS);
    return 0;
}

SEC(".struct_ops.link")
struct nv_gpu_sched_ops gpu_ext_timeslice = {
    .on_task_init = (void *)gx_task_init,
    .on_bind = (void *)gx_bind,
    .on_task_destroy = (void *)gx_task_destroy,
    .on_timeslice_control = (void *)gx_timeslice_control,
};

char LICENSE[] SEC("license") = "GPL";
