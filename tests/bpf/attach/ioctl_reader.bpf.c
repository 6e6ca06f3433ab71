/*
 * What an nvidia_unlocked_ioctl kprobe reads of its caller: on every RM_ALLOC, the NVOS21 block at arg
 * (hClass at +12), then the allocation parameters its pAllocParms (+16) points to, in the caller's own
 * memory; on return, the status the driver wrote and the function's result. Reads that fault are counted.
 */
#include "probe.bpf.h"

struct seen {
    __u64 cmd;
    __u64 arg;
    __u32 hclass;
    __u32 status;
    __u64 params_word;               /* the first 8 bytes at pAllocParms */
    __s64 rc;
    __u64 calls, returns, faults;
};

struct seen last;

SEC("kprobe/nvidia_unlocked_ioctl")
int rd_entry(struct pt_regs *ctx)
{
    unsigned long cmd = PARM2(ctx), arg = PARM3(ctx);
    if (IOC_NR(cmd) != NV_ESC_RM_ALLOC)
        return 0;
    last.calls++;
    last.cmd = cmd;
    last.arg = arg;
    __u64 params = 0;
    if (bpf_probe_read_user(&last.hclass, sizeof last.hclass, (void *)(arg + 12)) ||
        bpf_probe_read_user(&params, sizeof params, (void *)(arg + 16)) ||
        bpf_probe_read_user(&last.params_word, sizeof last.params_word, (void *)params))
        last.faults++;
    /* far outside anything the caller mapped */
    __u64 none;
    if (bpf_probe_read_user(&none, sizeof none, (void *)(arg + 0x10000000)))
        last.faults++;
    return 0;
}

SEC("kretprobe/nvidia_unlocked_ioctl")
int rd_return(struct pt_regs *ctx)
{
    if (!last.calls || last.returns == last.calls)
        return 0;
    last.returns++;
    last.rc = (__s64)RC(ctx);
    if (bpf_probe_read_user(&last.status, sizeof last.status, (void *)(last.arg + 28)))
        last.faults++;
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
