/*
 * A GPreempt-style policy as gpu_ext's loaders attach one: struct_ops plus probes in one object.
 *  - bare uprobes the loader attaches by symbol in the application's bridge library: scope_enter(role)
 *    before the CUDA context is created, register(context, hClient, hTSG, role) after it, scope_leave();
 *  - a kprobe/kretprobe pair on nvidia_unlocked_ioctl: inside a scope, an RM_ALLOC of class 0xa06c (the
 *    channel group) is caught from the caller's NVOS21/NVOS64 block (hClass at +12, read with
 *    bpf_probe_read_user); its returned handle (hObjectNew at +8) and status on return;
 *  - on_task_init: the GR group of a process in a scope gets LC 1,000,000 us or BE 1 us by the role;
 *  - tracepoint sched_process_exit forgets the process.
 * errors[] counts what the real system never sees; the .bss history keeps each registration as a loader
 * would print it.
 */
#include "probe.bpf.h"

enum { ROLE_LC = 1, ROLE_BE = 2 };
enum { ERR_NO_SCOPE, ERR_READ, ERR_SET, ERR_UNREGISTERED, ERR_COUNT };
enum { ST_SCOPES, ST_ALLOCS_SEEN, ST_GROUPS_CAUGHT, ST_DECISIONS, ST_EXITS, ST_REGISTERED, ST_COUNT };

struct scope {
    __u32 role;
    __u32 inside;
};

struct pending {
    __u64 arg;
    __u32 size;
    __u32 pad;
};

struct reg_record {
    __u32 pid;
    __u32 role;
    __u32 hclient;
    __u32 htsg;
    char comm[16];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, struct scope);
} scopes SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, struct pending);
} pending_alloc SEC(".maps");

/* (hClient << 32 | hTSG) -> the process whose allocation the kretprobe caught, and its role then */
struct group_owner {
    __u32 tgid;
    __u32 role;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 256);
    __type(key, __u64);
    __type(value, struct group_owner);
} groups SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, ERR_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} errors SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

const volatile __u64 lc_timeslice_us = 1000000;
const volatile __u64 be_timeslice_us = 1;

struct reg_record history[8];
__u32 history_len;

static __always_inline void bump(void *map, __u32 k)
{
    __u64 *v = bpf_map_lookup_elem(map, &k);
    if (v)
        __sync_fetch_and_add(v, 1);
}

static __always_inline __u32 current_tgid(void)
{
    return bpf_get_current_pid_tgid() >> 32;
}

SEC("uprobe")
int scope_enter(struct pt_regs *ctx)
{
    __u32 tgid = current_tgid();
    struct scope s = {.role = (__u32)PARM1(ctx), .inside = 1};
    bpf_map_update_elem(&scopes, &tgid, &s, BPF_ANY);
    bump(&stats, ST_SCOPES);
    return 0;
}

SEC("uprobe")
int scope_register(struct pt_regs *ctx)
{
    __u32 tgid = current_tgid();
    struct scope *s = bpf_map_lookup_elem(&scopes, &tgid);
    if (!s) {
        bump(&errors, ERR_UNREGISTERED);
        return 0;
    }
    __u32 htsg = (__u32)PARM3(ctx);
    __u64 key = (__u64)(__u32)PARM2(ctx) << 32 | htsg;
    struct group_owner *owner = bpf_map_lookup_elem(&groups, &key);
    if (!owner || owner->tgid != tgid || s->role != (__u32)PARM4(ctx))
        bump(&errors, ERR_UNREGISTERED);
    __u32 i = history_len;
    if (i < 8) {
        history[i].pid = tgid;
        history[i].role = (__u32)PARM4(ctx);
        history[i].hclient = (__u32)PARM2(ctx);
        history[i].htsg = (__u32)PARM3(ctx);
        bpf_get_current_comm(history[i].comm, sizeof history[i].comm);
        history_len = i + 1;
    }
    bump(&stats, ST_REGISTERED);
    bpf_printk("registered channel group 0x%x of process %u with role %u", htsg, tgid, (__u32)PARM4(ctx));
    return 0;
}

SEC("uprobe")
int scope_leave(struct pt_regs *ctx)
{
    __u32 tgid = current_tgid();
    struct scope *s = bpf_map_lookup_elem(&scopes, &tgid);
    if (s)
        s->inside = 0;
    return 0;
}

SEC("kprobe/nvidia_unlocked_ioctl")
int ioctl_entry(struct pt_regs *ctx)
{
    unsigned long cmd = PARM2(ctx), arg = PARM3(ctx);
    if (IOC_NR(cmd) != NV_ESC_RM_ALLOC)
        return 0;
    __u32 tgid = current_tgid();
    struct scope *s = bpf_map_lookup_elem(&scopes, &tgid);
    if (!s || !s->inside)
        return 0;
    bump(&stats, ST_ALLOCS_SEEN);
    __u32 hclass = 0;
    if (bpf_probe_read_user(&hclass, sizeof hclass, (void *)(arg + 12))) {
        bump(&errors, ERR_READ);
        return 0;
    }
    if (hclass != CLASS_CHANNEL_GROUP)
        return 0;
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct pending p = {.arg = arg, .size = IOC_SIZE(cmd)};
    bpf_map_update_elem(&pending_alloc, &tid, &p, BPF_ANY);
    return 0;
}

SEC("kretprobe/nvidia_unlocked_ioctl")
int ioctl_return(struct pt_regs *ctx)
{
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct pending *p = bpf_map_lookup_elem(&pending_alloc, &tid);
    if (!p)
        return 0;
    __u64 arg = p->arg;
    __u32 status_off = p->size == 48 ? 40 : 28;   /* NVOS64 / NVOS21 */
    bpf_map_delete_elem(&pending_alloc, &tid);
    __u32 hclient = 0, handle = 0, status = 1;
    if (RC(ctx) != 0 || bpf_probe_read_user(&status, sizeof status, (void *)(arg + status_off)) ||
        bpf_probe_read_user(&hclient, sizeof hclient, (void *)arg) ||
        bpf_probe_read_user(&handle, sizeof handle, (void *)(arg + 8))) {
        bump(&errors, ERR_READ);
        return 0;
    }
    __u32 tgid = current_tgid();
    struct scope *s = bpf_map_lookup_elem(&scopes, &tgid);
    if (status == 0 && handle && s) {
        __u64 key = (__u64)hclient << 32 | handle;
        struct group_owner o = {.tgid = tgid, .role = s->role};
        bpf_map_update_elem(&groups, &key, &o, BPF_ANY);
        bump(&stats, ST_GROUPS_CAUGHT);
    }
    return 0;
}

SEC("struct_ops/gp_task_init")
int gp_task_init(unsigned long long *args)
{
    struct nv_gpu_task_init_ctx *ctx = (void *)args[0];
    if (!nv_gpu_engine_is_gr(ctx->engine_type))
        return 0;
    __u32 tgid = current_tgid();
    struct scope *s = bpf_map_lookup_elem(&scopes, &tgid);
    if (!s || !s->inside) {
        bump(&errors, ERR_NO_SCOPE);
        return 0;
    }
    __u64 us = s->role == ROLE_LC ? lc_timeslice_us : be_timeslice_us;
    if (bpf_nv_gpu_set_timeslice(ctx, us) != NV_GPU_APPLY)
        bump(&errors, ERR_SET);
    bump(&stats, ST_DECISIONS);
    return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int process_exit(struct sched_process_exit_rec *rec)
{
    __u32 tgid = rec->pid;
    if (bpf_map_delete_elem(&scopes, &tgid) == 0)
        bump(&stats, ST_EXITS);
    return 0;
}

SEC(".struct_ops.link")
struct nv_gpu_sched_ops gpreempt_style_ops = {
    .on_task_init = (void *)gp_task_init,
};

char LICENSE[] SEC("license") = "GPL";
