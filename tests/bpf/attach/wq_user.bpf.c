/*
 * bpf_wq as gpu_ext's deferred preemption uses it: the LC launch uprobe does not preempt itself, it starts
 * a work item whose callback (sleepable, in process context) calls bpf_nv_gpu_preempt_tsg on the BE GR
 * groups. The groups are found as in launch_preempt.bpf.c (ioctl and nv_gpu_sched_task_init probes); the
 * non-sleepable kretprobe that catches one starts a second work item that counts it.
 * stats[]: LC launches, preempt work started, preempt callbacks run, preempts that succeeded, that failed,
 * catch callbacks run, wq kfunc errors.
 */
#include "probe.bpf.h"
#include "process_class.bpf.h"

#define MAX_BE 16

enum { ST_LC_LAUNCHES, ST_STARTED, ST_PREEMPT_RUNS, ST_PREEMPT_OK, ST_PREEMPT_ERR, ST_CATCH_RUNS, ST_WQ_ERR, ST_COUNT };

struct bpf_wq {
    __u64 __opaque[2];
} __attribute__((aligned(8)));

extern int bpf_wq_init(struct bpf_wq *wq, void *p__map, unsigned int flags) __weak __ksym;
extern int bpf_wq_start(struct bpf_wq *wq, unsigned int flags) __weak __ksym;
extern int bpf_wq_set_callback_impl(struct bpf_wq *wq, int (*callback_fn)(void *map, int *key, void *value),
                                    unsigned int flags, void *aux__ign) __weak __ksym;

struct work {
    struct bpf_wq wq;
    __u64 started_ns;                    /* when the last work was started */
    __u64 ran_ns;                        /* when its callback ran */
    __u32 initialised;
    __u32 pad;
};

struct pending {
    __u64 arg;
    __u32 size;
    __u32 gr;
};

struct be_group {
    __u32 hclient;
    __u32 htsg;
};

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 2);                /* 0: preempt work, 1: catch work */
    __type(key, __u32);
    __type(value, struct work);
} work SEC(".maps");

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
__u64 last_start_ns;

static __always_inline void count(__u32 k)
{
    __u64 *v = bpf_map_lookup_elem(&stats, &k);
    if (v)
        __sync_fetch_and_add(v, 1);
}

static int preempt_cb(void *map, int *key, void *value)
{
    struct work *w = value;
    w->ran_ns = bpf_ktime_get_ns();
    count(ST_PREEMPT_RUNS);
    for (__u32 i = 0; i < MAX_BE; i++) {
        __u32 k = i;
        struct be_group *g = bpf_map_lookup_elem(&be_groups, &k);
        if (g && g->hclient)
            count(bpf_nv_gpu_preempt_tsg(g->hclient, g->htsg) == 0 ? ST_PREEMPT_OK : ST_PREEMPT_ERR);
    }
    return 0;
}

static int catch_cb(void *map, int *key, void *value)
{
    struct work *w = value;
    w->ran_ns = bpf_ktime_get_ns();
    count(ST_CATCH_RUNS);
    return 0;
}

/* Starts work item `slot` with callback cb, initialising it the first time. */
static __always_inline void start(__u32 slot, int (*cb)(void *, int *, void *))
{
    struct work *w = bpf_map_lookup_elem(&work, &slot);
    if (!w)
        return;
    if (!w->initialised) {
        if (bpf_wq_init(&w->wq, &work, 0) || bpf_wq_set_callback_impl(&w->wq, cb, 0, 0)) {
            count(ST_WQ_ERR);
            return;
        }
        w->initialised = 1;
    }
    w->started_ns = bpf_ktime_get_ns();
    if (bpf_wq_start(&w->wq, 0))
        count(ST_WQ_ERR);
}

SEC("kprobe/nvidia_unlocked_ioctl")
int wq_ioctl(struct pt_regs *ctx)
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
int wq_task_init(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct pending *p = bpf_map_lookup_elem(&pending, &tgid);
    struct nv_gpu_task_init_ctx c;
    if (p && bpf_probe_read_kernel(&c, sizeof c, (void *)PARM1(ctx)) == 0)
        p->gr = nv_gpu_engine_is_gr(c.engine_type);
    return 0;
}

SEC("kretprobe/nvidia_unlocked_ioctl")
int wq_ioctl_ret(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct pending *p = bpf_map_lookup_elem(&pending, &tgid);
    if (!p)
        return 0;
    struct pending got = *p;
    bpf_map_delete_elem(&pending, &tgid);
    struct be_group g = {};
    if (!got.gr || RC(ctx) != 0 || bpf_probe_read_user(&g.hclient, sizeof g.hclient, (void *)got.arg) ||
        bpf_probe_read_user(&g.htsg, sizeof g.htsg, (void *)(got.arg + 8)))
        return 0;
    for (__u32 i = 0; i < MAX_BE; i++) {
        __u32 k = i;
        struct be_group *slot = bpf_map_lookup_elem(&be_groups, &k);
        if (slot && !slot->hclient) {
            bpf_map_update_elem(&be_groups, &k, &g, BPF_ANY);
            start(1, catch_cb);
            return 0;
        }
    }
    return 0;
}

SEC("uprobe.s//usr/lib/x86_64-linux-gnu/libcuda.so:cuLaunchKernel")
int wq_launch(struct pt_regs *ctx)
{
    if (current_class(CLS_NONE) != CLS_LC)
        return 0;
    count(ST_LC_LAUNCHES);
    __u64 now = bpf_ktime_get_ns();
    if (last_start_ns && now - last_start_ns < cooldown_ns)
        return 0;
    last_start_ns = now;
    count(ST_STARTED);
    start(0, preempt_cb);
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
