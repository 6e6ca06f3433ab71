/*
 * The driver's kfuncs as the policy runs them (bpf_policy_internal.h): each generation's table (same
 * indexes, the names that driver exports) and the rules that are the kfuncs' own (NULL or foreign ctx
 * -> REJECT_IDENTITY; K1's void setters write the ctx's output fields).
 */
#include "bpf/bpf_policy_internal.h"

#include <errno.h>
#include <stddef.h>

/* True when the kfunc was called with the ctx of the callback it belongs to. */
static bool ctx_is(const struct bpf_policy *p, uint64_t arg, int member)
{
    return p->pc && p->member == member && arg && (uintptr_t)arg == (uintptr_t)p->ctx;
}

static uint64_t kf_set_timeslice(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (!ctx_is(p, args[0], BPF_ABI_ON_TASK_INIT))
        return POLICY_REJECT_IDENTITY;
    return (uint64_t)(int64_t)p->host->set_timeslice(p->pc, args[1]);
}

static uint64_t kf_set_interleave(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (!ctx_is(p, args[0], BPF_ABI_ON_TASK_INIT))
        return POLICY_REJECT_IDENTITY;
    /* the kfunc takes a u32: the upper half of the register is not part of the value */
    return (uint64_t)(int64_t)p->host->set_interleave(p->pc, (uint32_t)args[1]);
}

static uint64_t kf_override_timeslice(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (!ctx_is(p, args[0], BPF_ABI_ON_TIMESLICE_CONTROL))
        return POLICY_REJECT_IDENTITY;
    /* the host records it as the driver does: outside 1..1,000,000 us REJECT_RANGE, still recorded */
    return (uint64_t)(int64_t)p->host->replace_timeslice(p->pc, args[1]);
}

static uint64_t kf_reject_bind(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (ctx_is(p, args[0], BPF_ABI_ON_BIND))
        p->host->reject_bind(p->pc);
    return 0;
}

/* Sleepable only (the loader refuses it elsewhere): in nvemu that is a launch probe (uprobe.s on cuLaunchKernel). */
static uint64_t kf_preempt_tsg(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (p->host->size < offsetof(struct policy_host, preempt_tsg) + sizeof p->host->preempt_tsg ||
        !p->host->preempt_tsg) {
        p->host->log(p->host, POLICY_LOG_WARN, "preempt_tsg: the host cannot preempt channel groups, -EIO");
        return (uint64_t)(int64_t)-EIO;
    }
    return (uint64_t)(int64_t)p->host->preempt_tsg(p->host, p->hook, p->group, (uint32_t)args[0], (uint32_t)args[1]);
}

static uint64_t kf_wq_init(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    return bpf_wqs_init(&((struct bpf_policy *)env_ctx)->wqs, args, call);
}

static uint64_t kf_wq_set_callback(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    return bpf_wqs_set_callback(&((struct bpf_policy *)env_ctx)->wqs, args, call);
}

static uint64_t kf_wq_start(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    (void)call;
    return bpf_wqs_start(&((struct bpf_policy *)env_ctx)->wqs, args);
}

/* K1's void setters write the task_init ctx's output fields; the driver reads them after the callback. */
static uint64_t kf_k1_set_timeslice(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (ctx_is(p, args[0], BPF_ABI_ON_TASK_INIT))
        ((struct bpf_abi_task_init_ctx_k1 *)p->ctx)->timeslice = args[1];
    return 0;
}

static uint64_t kf_k1_set_interleave(void *env_ctx, const uint64_t args[5], struct bpf_vm_call *call)
{
    struct bpf_policy *p = env_ctx;
    (void)call;
    if (ctx_is(p, args[0], BPF_ABI_ON_TASK_INIT))
        ((struct bpf_abi_task_init_ctx_k1 *)p->ctx)->interleave_level = (uint32_t)args[1];
    return 0;
}

#define CTX_ARG {.kind = BPF_ARG_CTX, .nullable = true}
#define WQ_ARG {.kind = BPF_ARG_MEM_RW, .size = 16}
#define SCALAR_ARG {.kind = BPF_ARG_SCALAR}
#define HANDLE_ARG {.kind = BPF_ARG_HANDLE}
/* bpf_wq is the kernel's, not the driver's: every generation has it */
#define KF_WQ                                                                                                      \
    [BPF_WQ_INIT] = {"bpf_wq_init", kf_wq_init, {WQ_ARG, HANDLE_ARG, SCALAR_ARG}, false},                         \
    [BPF_WQ_SET_CALLBACK] = {"bpf_wq_set_callback_impl", kf_wq_set_callback,                                      \
                             {WQ_ARG, HANDLE_ARG, SCALAR_ARG, SCALAR_ARG}, false},                                 \
    [BPF_WQ_START] = {"bpf_wq_start", kf_wq_start, {WQ_ARG, SCALAR_ARG}, false}

const struct bpf_kfunc bpf_nv_kfuncs[BPF_NV_KFUNC_COUNT] = {
    [BPF_NV_SET_TIMESLICE] = {"bpf_nv_gpu_set_timeslice", kf_set_timeslice, {CTX_ARG, SCALAR_ARG}, false},
    [BPF_NV_SET_INTERLEAVE] = {"bpf_nv_gpu_set_interleave", kf_set_interleave, {CTX_ARG, SCALAR_ARG}, false},
    [BPF_NV_OVERRIDE_TIMESLICE] = {"bpf_nv_gpu_override_timeslice", kf_override_timeslice, {CTX_ARG, SCALAR_ARG},
                                   false},
    [BPF_NV_REJECT_BIND] = {"bpf_nv_gpu_reject_bind", kf_reject_bind, {CTX_ARG}, false},
    [BPF_NV_PREEMPT_TSG] = {"bpf_nv_gpu_preempt_tsg", kf_preempt_tsg, {SCALAR_ARG, SCALAR_ARG}, true},
    KF_WQ,
};

/* Each generation's kfuncs (same indexes; a NULL name: that driver does not export it). */
#define KF_SET_TIMESLICE {"bpf_nv_gpu_set_timeslice", kf_set_timeslice, {CTX_ARG, SCALAR_ARG}, false}
#define KF_SET_INTERLEAVE {"bpf_nv_gpu_set_interleave", kf_set_interleave, {CTX_ARG, SCALAR_ARG}, false}
#define KF_REJECT_BIND {"bpf_nv_gpu_reject_bind", kf_reject_bind, {CTX_ARG}, false}
#define KF_PREEMPT_TSG {"bpf_nv_gpu_preempt_tsg", kf_preempt_tsg, {SCALAR_ARG, SCALAR_ARG}, true}
static const struct bpf_kfunc gen_kfuncs[BPF_ABI_GEN_NEWEST + 1][BPF_NV_KFUNC_COUNT] = {
    [BPF_ABI_K1] = {
        [BPF_NV_SET_TIMESLICE] = {"bpf_nv_gpu_set_timeslice", kf_k1_set_timeslice, {CTX_ARG, SCALAR_ARG}, false},
        [BPF_NV_SET_INTERLEAVE] = {"bpf_nv_gpu_set_interleave", kf_k1_set_interleave, {CTX_ARG, SCALAR_ARG},
                                   false},
        [BPF_NV_OVERRIDE_TIMESLICE] = {NULL, NULL, {SCALAR_ARG}, false},
        [BPF_NV_REJECT_BIND] = KF_REJECT_BIND,
        [BPF_NV_PREEMPT_TSG] = KF_PREEMPT_TSG,
        KF_WQ,
    },
    [BPF_ABI_K2] = {KF_SET_TIMESLICE, KF_SET_INTERLEAVE, {NULL, NULL, {SCALAR_ARG}, false}, KF_REJECT_BIND,
                    KF_PREEMPT_TSG, KF_WQ},
    [BPF_ABI_K3] = {KF_SET_TIMESLICE, KF_SET_INTERLEAVE, {NULL, NULL, {SCALAR_ARG}, false}, KF_REJECT_BIND,
                    KF_PREEMPT_TSG, KF_WQ},
};

const struct bpf_kfunc *bpf_policy_kfuncs_of(enum bpf_abi_gen g)
{
    return g >= BPF_ABI_K1 && g < BPF_ABI_K4 ? gen_kfuncs[g] : bpf_nv_kfuncs;
}

/* The member whose ctx each decision kfunc takes (-1: no ctx). */
const int bpf_policy_kfunc_member[BPF_NV_KFUNC_COUNT] = {
    [BPF_NV_SET_TIMESLICE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_SET_INTERLEAVE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_OVERRIDE_TIMESLICE] = BPF_ABI_ON_TIMESLICE_CONTROL,
    [BPF_NV_REJECT_BIND] = BPF_ABI_ON_BIND,
    [BPF_NV_PREEMPT_TSG] = -1,
    [BPF_WQ_INIT] = -1,
    [BPF_WQ_SET_CALLBACK] = -1,
    [BPF_WQ_START] = -1,
};
