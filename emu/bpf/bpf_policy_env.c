/*
 * What the helpers ask of the host (bpf_policy_internal.h): the virtual clock, the calling task,
 * bpf_printk into the host's log and trace, and the user and kernel memory a probe may read.
 */
#include "bpf/bpf_policy_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static uint64_t env_clock(void *ctx)
{
    struct bpf_policy *p = ctx;
    return p->host->now_ns ? p->host->now_ns(p->host) : 0;
}

static bool env_task(void *ctx, struct bpf_vm_task *task)
{
    struct bpf_policy *p = ctx;
    if (!p->t)
        return false;
    /* the hook's caller is the channel group's creator */
    task->pid = (uint32_t)p->t->tid;
    task->tgid = (uint32_t)p->t->pid;
    task->uid = p->t->uid;
    task->gid = p->t->gid;
    memcpy(task->comm, p->t->comm, sizeof task->comm);
    task->comm[sizeof task->comm - 1] = '\0';
    return true;
}

static void env_printk(void *ctx, const struct bpf_prog *prog, const char *line)
{
    struct bpf_policy *p = ctx;
    char msg[320];
    snprintf(msg, sizeof msg, "bpf_printk %s: %s", prog && prog->name ? prog->name : "?", line);
    p->host->log(p->host, POLICY_LOG_INFO, msg);
    if (p->host->trace_note)
        p->host->trace_note(p->host, p->hook, p->group, "printk", line);
}

static int env_read_user(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct bpf_policy *p = ctx;
    if (!p->ev || !p->ev->read_user)
        return -EFAULT;
    return p->ev->read_user(p->ev->user_ctx, addr, dst, len) ? -EFAULT : 0;
}

/* The probed hook function's ctx struct is the only kernel memory a probe reads. */
static int env_read_kernel(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct bpf_policy *p = ctx;
    if (!p->ev || !p->ev->kmem)
        return -EFAULT;
    uint64_t base = (uintptr_t)p->ev->kmem;
    if (addr < base || addr - base > p->ev->kmem_len || len > p->ev->kmem_len - (addr - base))
        return -EFAULT;
    memcpy(dst, (const uint8_t *)p->ev->kmem + (addr - base), len);
    return 0;
}

void bpf_policy_env_init(struct bpf_policy *p)
{
    p->prng = p->host->seed ? p->host->seed : 1;
    p->env = (struct bpf_vm_env){
        .ctx = p,
        .clock_ns = env_clock,
        .boot_clock_ns = env_clock,
        .prng_state = &p->prng,
        .current_task = env_task,
        .printk = env_printk,
        .read_user = env_read_user,
        .read_kernel = env_read_kernel,
        .cpu = 0,
        .kfuncs = bpf_policy_kfuncs_of(p->obj->target),
        .n_kfuncs = BPF_NV_KFUNC_COUNT,
        .insn_budget = p->insn_budget,
        .max_frames = 0,
    };
}

const struct bpf_vm_env bpf_policy_check_env = {
    .clock_ns = env_clock,
    .boot_clock_ns = env_clock,
    .current_task = env_task,
    .printk = env_printk,
    .n_kfuncs = BPF_NV_KFUNC_COUNT,
};
