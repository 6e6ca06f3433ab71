/*
 * uprobes on an application's own functions as a task declares them (task.calls): on_request at every
 * request with (pid, tag), its return, and at_exit before the process ends, which the exit tracepoint
 * then checks came first.
 */
#include "probe.bpf.h"

struct calls {
    __u64 requests, returns, exits, exit_after_call, exit_without_call;
    __u64 last_pid_arg, last_tag, last_rc;
};

struct calls seen;

/* processes whose at_exit ran */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, __u32);
    __type(value, __u32);
} exiting SEC(".maps");

SEC("uprobe/libapp.so:on_request")
int on_request(struct pt_regs *ctx)
{
    seen.requests++;
    seen.last_pid_arg = PARM1(ctx);
    seen.last_tag = PARM2(ctx);
    return 0;
}

SEC("uretprobe/libapp.so:on_request")
int on_request_ret(struct pt_regs *ctx)
{
    seen.returns++;
    seen.last_rc = RC(ctx);
    return 0;
}

SEC("uprobe/libapp.so.2:at_exit")
int at_exit(struct pt_regs *ctx)
{
    __u32 tgid = bpf_get_current_pid_tgid() >> 32, one = 1;
    seen.exits++;
    bpf_map_update_elem(&exiting, &tgid, &one, BPF_ANY);
    return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int process_exit(struct sched_process_exit_rec *rec)
{
    __u32 pid = rec->pid;
    if (bpf_map_delete_elem(&exiting, &pid) == 0)
        seen.exit_after_call++;
    else
        seen.exit_without_call++;
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
