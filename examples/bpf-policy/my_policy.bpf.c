/*
 * A starting point for a gpu_ext struct_ops policy (`nvemu init bpf DIR` writes this project): the class of a
 * channel group comes from its creator's process name in the `process_class` map (1 = LC, 2 = BE; a scenario
 * fills it with policy.maps, a loader before attaching); LC groups get lc_us, BE groups be_us, at creation
 * and against every later SET_TIMESLICE. The same object runs under nvemu and on the patched driver.
 * Build: clang -g -O2 -target bpf -I PREFIX/include -c my_policy.bpf.c (the Makefile and CMakeLists.txt do).
 */
#include <nvemu/nv_gpu_sched.bpf.h>

enum { CLS_NONE = 0, CLS_LC = 1, CLS_BE = 2 };

const volatile __u64 lc_us = 1000000;   /* knobs: policy.rodata in a scenario */
const volatile __u64 be_us = 200;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, char[16]);
    __type(value, __u32);
} process_class SEC(".maps");

/* The timeslice for the calling process's class, 0 for an unlisted process or a non-GR engine. */
static __always_inline __u64 class_us(__u32 engine_type)
{
    char comm[16] = {};
    if (!nv_gpu_engine_is_gr(engine_type))
        return 0;
    bpf_get_current_comm(comm, sizeof comm);
    __u32 *cls = bpf_map_lookup_elem(&process_class, comm);
    if (!cls)
        return 0;
    return *cls == CLS_LC ? lc_us : *cls == CLS_BE ? be_us : 0;
}

SEC("struct_ops/my_task_init")
int my_task_init(unsigned long long *args)
{
    struct nv_gpu_task_init_ctx *ctx = (void *)args[0];
    __u64 us = class_us(ctx->engine_type);
    if (us)
        bpf_nv_gpu_set_timeslice(ctx, us);
    return 0;
}

SEC("struct_ops/my_timeslice_control")
int my_timeslice_control(unsigned long long *args)
{
    struct nv_gpu_timeslice_control_ctx *ctx = (void *)args[0];
    __u64 us = class_us(ctx->engine_type);
    if (us)
        bpf_nv_gpu_override_timeslice(ctx, us);
    return 0;
}

SEC(".struct_ops")
struct nv_gpu_sched_ops my_policy = {
    .on_task_init = (void *)my_task_init,
    .on_timeslice_control = (void *)my_timeslice_control,
};

char LICENSE[] SEC("license") = "GPL";
