/*
 * What a policy object for the patched NVIDIA driver (gpu_ext's
 * nv_gpu_sched_ops struct_ops) needs, without vmlinux.h: the ABI structs of
 * the current driver (ctx layouts as in kernel-open/nvidia/nv-gpu-sched-hooks.c
 * of gpu_ext-kernel-modules), the kfuncs, the helpers by id, and the libbpf
 * map/section macros. Compile with `clang -g -O2 -target bpf`. The struct and
 * member names matter: nvemu checks them against its ABI through the object's
 * BTF, as the kernel would against its own.
 */
#ifndef NV_GPU_SCHED_BPF_H
#define NV_GPU_SCHED_BPF_H

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef int __s32;
typedef long long __s64;

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define __array(name, val) typeof(val) *name[]
#define __ksym __attribute__((section(".ksyms")))
#define __weak __attribute__((weak))
#define __always_inline inline __attribute__((always_inline))

enum {
    BPF_MAP_TYPE_HASH = 1,
    BPF_MAP_TYPE_ARRAY = 2,
    BPF_MAP_TYPE_PERCPU_HASH = 5,
    BPF_MAP_TYPE_PERCPU_ARRAY = 6,
    BPF_MAP_TYPE_LRU_HASH = 9,
    BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };

struct nv_gpu_task_init_ctx {
    __u64 tsg_id;
    __u32 engine_type;
    __u64 default_timeslice;
    __u32 default_interleave;
    __u32 runlist_id;
};

struct nv_gpu_bind_ctx {
    __u64 tsg_id;
    __u32 runlist_id;
    __u32 channel_count;
    __u64 timeslice_us;
    __u32 interleave_level;
    __u32 allow;
};

struct nv_gpu_task_destroy_ctx {
    __u64 tsg_id;
    __u32 runlist_id;
    __u32 engine_type;
};

struct nv_gpu_timeslice_control_ctx {
    __u64 tsg_id;
    __u64 requested_timeslice_us;
    __u32 engine_type;
    __u32 runlist_id;
    __u32 hclient;
    __u32 htsg;
    __u32 gpu_instance;
    __u32 phase;
};

struct nv_gpu_sched_ops {
    int (*on_task_init)(struct nv_gpu_task_init_ctx *ctx);
    int (*on_bind)(struct nv_gpu_bind_ctx *ctx);
    int (*on_task_destroy)(struct nv_gpu_task_destroy_ctx *ctx);
    int (*on_timeslice_control)(struct nv_gpu_timeslice_control_ctx *ctx);
};

/* Decision results (the driver's validator). */
enum { NV_GPU_APPLY = 0, NV_GPU_NOOP_DEFAULT = 1, NV_GPU_NOOP_REPEAT = 2, NV_GPU_NOOP_STALE = 3,
       NV_GPU_NOOP_CONFLICT = 4, NV_GPU_REJECT_ACTION = 5, NV_GPU_REJECT_RANGE = 6, NV_GPU_REJECT_IDENTITY = 7 };
enum { NV_GPU_INTERLEAVE_LOW = 0, NV_GPU_INTERLEAVE_MEDIUM = 1, NV_GPU_INTERLEAVE_HIGH = 2 };

extern int bpf_nv_gpu_set_timeslice(struct nv_gpu_task_init_ctx *ctx, __u64 us) __weak __ksym;
extern int bpf_nv_gpu_set_interleave(struct nv_gpu_task_init_ctx *ctx, __u32 level) __weak __ksym;
extern int bpf_nv_gpu_override_timeslice(struct nv_gpu_timeslice_control_ctx *ctx, __u64 us) __weak __ksym;
extern void bpf_nv_gpu_reject_bind(struct nv_gpu_bind_ctx *ctx) __weak __ksym;
extern int bpf_nv_gpu_preempt_tsg(__u32 hclient, __u32 htsg) __weak __ksym;

/* Helpers by their UAPI ids (include/uapi/linux/bpf.h). */
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)3;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)5;
static long (*bpf_trace_printk)(const char *fmt, __u32 fmt_size, ...) = (void *)6;
static __u32 (*bpf_get_prandom_u32)(void) = (void *)7;
static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
static __u64 (*bpf_get_current_uid_gid)(void) = (void *)15;
static long (*bpf_get_current_comm)(void *buf, __u32 size) = (void *)16;
static long (*bpf_ringbuf_output)(void *ringbuf, void *data, __u64 size, __u64 flags) = (void *)130;
static void *(*bpf_ringbuf_reserve)(void *ringbuf, __u64 size, __u64 flags) = (void *)131;
static void (*bpf_ringbuf_submit)(void *data, __u64 flags) = (void *)132;

#define bpf_printk(fmt, ...)                                                 \
    ({                                                                       \
        static const char ____fmt[] = fmt;                                   \
        bpf_trace_printk(____fmt, sizeof(____fmt), ##__VA_ARGS__);           \
    })

/* RM engine types: GR0..GR7 are 1..8. */
static __always_inline int nv_gpu_engine_is_gr(__u32 engine_type)
{
    return engine_type >= 1 && engine_type <= 8;
}

#endif
