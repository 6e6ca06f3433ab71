/*
 * Preempt-on-launch with no struct_ops instance, as drivers since gpu_ext's 0c0e77e0 load it: probes
 * alone find the best-effort channel groups and preempt them when a latency-critical process launches.
 *  - kprobe nvidia_unlocked_ioctl: an RM_ALLOC of class 0xa06c by a BE process is remembered;
 *  - kprobe nv_gpu_sched_task_init (inside that allocation): its ctx, read with bpf_probe_read_kernel,
 *    says whether the group is a GR group;
 *  - kretprobe nvidia_unlocked_ioctl: a GR group's handles (hRoot, hObjectNew) join be_groups;
 *  - sleepable uprobe on libcuda's cuLaunchKernel: an LC launch calls bpf_nv_gpu_preempt_tsg on each,
 *    at most once per cooldown;
 *  - tracepoint sched_process_exit: a BE process's groups are forgotten.
 * stats[]: LC launches, preempts that succeeded, that failed, launches in the cooldown, groups caught,
 * task_init ctx reads that failed, groups forgotten at exit.
 */
#include "probe.bpf.h"
#include "process_class.bpf.h"

#define MAX_BE 16

enum { ST_LC_LAUNCHES, ST_PREEMPT_OK, ST_PREEMPT_ERR, ST_COOLDOWN, ST_CAUGHT, ST_READ_ERR, ST_FORGOTTEN, ST_COUNT };

struct pending {
    __u64 arg;
    __u32 size;
    __u32 gr;
};

struct be_group {
    __u32 hclient;
    __u32 htsg;
    __u32 tgid;
    __u32 pad;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, struct pending);
} pending SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, MAX_BE);
    __type(key, __u32);
    __type(value, struct be_group);
} be_groups SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

const volatile __u64 cooldown_ns = 1000000;
__u64 last_preempt_ns;

static __always_inline void count(__u32 k)
{
    __u64 *v = bpf_map_lookup_elem(&stats, &k);
    if (v)
        __sync_fetch_and_add(v, 1);
}

SEC("kprobe/nvidia_unlocked_ioctl")
int lp_ioctl(struct pt_regs *ctx)
{
    unsigned long cmd = PARM2(ctx), arg = PARM3(ctx);
    if (IOC_NR(cmd) != NV_ESC_RM_ALLOC || current_class(CLS_NONE) != CLS_BE)
        return 0;
    __u32 hclass = 0;
    if (bpf_probe_read_user(&hclass, sizeof hclass, (void *)(arg + 12)) || hclass != CLASS_CHANNEL_GROUP)
        return 0;
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct pending p = {.arg = arg, .size = IOC_SIZE(cmd)};
    bpf_map_update_elem(&pending, &tgid, &p, BPF_ANY);
    return 0;
}

SEC("kprobe/nv_gpu_sched_task_init")
int lp_task_init(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct pending *p = bpf_map_lookup_elem(&pending, &tgid);
    if (!p)
        return 0;
    struct nv_gpu_task_init_ctx c;
    if (bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx))) {
        count(ST_READ_ERR);
        return 0;
    }
    p->gr = nv_gpu_engine_is_gr(c.engine_type);
    return 0;
}

SEC("kretprobe/nvidia_unlocked_ioctl")
int lp_ioctl_ret(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct pending *p = bpf_map_lookup_elem(&pending, &tgid);
    if (!p)
        return 0;
    struct pending got = *p;
    bpf_map_delete_elem(&pending, &tgid);
    __u32 status = 1;
    struct be_group g = {.tgid = tgid};
    if (!got.gr || RC(ctx) != 0 ||
        bpf_probe_read_user(&status, sizeof status, (void *)(got.arg + (got.size == 48 ? 40 : 28))) || status ||
        bpf_probe_read_user(&g.hclient, sizeof g.hclient, (void *)got.arg) ||
        bpf_probe_read_user(&g.htsg, sizeof g.htsg, (void *)(got.arg + 8)))
        return 0;
    for (__u32 i = 0; i < MAX_BE; i++) {
        __u32 k = i;
        struct be_group *slot = bpf_map_lookup_elem(&be_groups, &k);
        if (slot && !slot->hclient) {
            bpf_map_update_elem(&be_groups, &k, &g, BPF_ANY);
            count(ST_CAUGHT);
            return 0;
        }
    }
    return 0;
}

SEC("uprobe.s//usr/lib/x86_64-linux-gnu/libcuda.so:cuLaunchKernel")
int lp_launch(struct pt_regs *ctx)
{
    if (current_class(CLS_NONE) != CLS_LC || !PARM1(ctx))
        return 0;
    count(ST_LC_LAUNCHES);
    __u64 now = bpf_ktime_get_ns();
    if (last_preempt_ns && now - last_preempt_ns < cooldown_ns) {
        count(ST_COOLDOWN);
        return 0;
    }
    last_preempt_ns = now;
    for (__u32 i = 0; i < MAX_BE; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (!g || !g->hclient)
            continue;
        count(bpf_nv_gpu_preempt_tsg(g->hclient, g->htsg) == 0 ? ST_PREEMPT_OK : ST_PREEMPT_ERR);
    }
    return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int lp_exit(struct sched_process_exit_rec *rec)
{
    for (__u32 i = 0; i < MAX_BE; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (g && g->hclient && g->tgid == (__u32)rec->pid) {
            struct be_group none = {};
            bpf_map_update_elem(&be_groups, &k, &none, BPF_ANY);
            count(ST_FORGOTTEN);
        }
    }
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
