/*
 * The struct_ops object behind struct policy_ops (bpf_policy.h): builds the
 * ABI ctx from the hook's task snapshot, runs the bound program in the
 * interpreter, and turns the kfuncs into the host's setters. The driver's
 * rules that are the kfuncs' own (NULL ctx -> REJECT_IDENTITY, the incoming
 * SET_TIMESLICE domain) are applied here; recording, conflicts and range
 * validation (the override domain 1..1,000,000 us included) are the host's,
 * as for a C plugin.
 */
#include "bpf/bpf_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "bpf/bpf_abi.h"
#include "bpf/bpf_attach.h"
#include "bpf/bpf_btf_json.h"
#include "bpf/bpf_wq.h"
#include "bpf/bpf_obj.h"
#include "abi/nv_abi_desc.h"
#include "nvemu/policy.h"

#define OVERRIDE_MAX_US 1000000u

struct bpf_policy {
    const struct policy_host *host;
    struct bpf_obj *obj;
    struct bpf_vm_env env;
    uint64_t prng;
    uint64_t insn_budget;
    /* the callback in progress */
    int member;
    const char *hook;
    const struct hook_task *t;         /* "current": the caller the helpers answer for */
    const struct hook_task *group;     /* the channel group trace records name, NULL when none */
    struct policy_ctx *pc;
    void *ctx;
    const struct bpf_attach_event *ev; /* the probe event in progress, NULL in a struct_ops callback */
    struct bpf_wqs wqs;                /* bpf_wq work of the programs, run when the event's programs returned */
    bool in_wq;
    /* where each program runs: its site (-1: never fired) and, for uprobes, the LIB:FUNC it is attached to */
    int *site;
    char (*target)[160];
    uint32_t sites;                    /* bit per enum bpf_attach_site with a program */
    /* a fault ends the policy */
    bool dead;
    uint64_t runs, insns;
};

/* ---- kfuncs ---- */

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

static const struct bpf_kfunc *kfuncs_of(enum bpf_abi_gen g)
{
    return g >= BPF_ABI_K1 && g < BPF_ABI_K4 ? gen_kfuncs[g] : bpf_nv_kfuncs;
}

/* The member whose ctx each decision kfunc takes (-1: no ctx). */
static const int kfunc_member[BPF_NV_KFUNC_COUNT] = {
    [BPF_NV_SET_TIMESLICE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_SET_INTERLEAVE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_OVERRIDE_TIMESLICE] = BPF_ABI_ON_TIMESLICE_CONTROL,
    [BPF_NV_REJECT_BIND] = BPF_ABI_ON_BIND,
    [BPF_NV_PREEMPT_TSG] = -1,
    [BPF_WQ_INIT] = -1,
    [BPF_WQ_SET_CALLBACK] = -1,
    [BPF_WQ_START] = -1,
};

/* ---- helpers' environment ---- */

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

static void env_init(struct bpf_policy *p)
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
        .kfuncs = kfuncs_of(p->obj->target),
        .n_kfuncs = BPF_NV_KFUNC_COUNT,
        .insn_budget = p->insn_budget,
        .max_frames = 0,
    };
}

/* ---- load-time checks beyond the loader's ---- */

/* What a program is called in messages: its ops member, or its program type and target. */
static const char *prog_role(const struct bpf_obj_prog *p, char *buf, size_t len)
{
    if (p->member >= 0)
        return bpf_abi_member_name((enum bpf_abi_member)p->member);
    snprintf(buf, len, "%s%s%s", bpf_attach_kind_name(p->kind), p->target[0] ? " on " : "", p->target);
    return buf;
}

/* The kernel's license_is_gpl_compatible(). */
static bool license_is_gpl(const char *l)
{
    static const char *const gpl[] = {"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL", "Dual MIT/GPL",
                                      "Dual MPL/GPL"};
    for (size_t i = 0; i < sizeof gpl / sizeof gpl[0]; i++)
        if (strcmp(l, gpl[i]) == 0)
            return true;
    return false;
}

static int check_object(const struct bpf_obj *obj, const struct bpf_vm_env *env, char *err, size_t errlen)
{
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        for (int k = 0; k < BPF_NV_KFUNC_COUNT; k++) {
            if (!(p->kfuncs_used & (1u << k)) || kfunc_member[k] < 0 || kfunc_member[k] == p->member)
                continue;
            char role[200];
            prog_role(p, role, sizeof role);
            snprintf(err, errlen, "%s: program %s (%s) calls %s, which takes struct %s; %s gets %s%s", obj->path,
                     p->name, role, bpf_nv_kfuncs[k].name,
                     bpf_abi_ctx_name((enum bpf_abi_member)kfunc_member[k]), role,
                     p->member >= 0 ? "struct " : "",
                     p->member >= 0 ? bpf_abi_ctx_name((enum bpf_abi_member)p->member)
                                    : p->kind == BPF_ATTACH_TRACEPOINT ? "its tracepoint record" : "struct pt_regs");
            return -1;
        }
        struct bpf_fault why;
        memset(&why, 0, sizeof why);
        if (bpf_vm_check(env, &p->prog, true, &why) ||
            bpf_vm_verify(env, &p->prog, license_is_gpl(obj->license), &why)) {
            char f[512];
            snprintf(err, errlen, "%.200s: refused at load: %s", obj->path, bpf_fault_format(&why, f, sizeof f));
            return -1;
        }
    }
    return 0;
}

/* What of the object decides which driver generations load it. */
static int collect_use(const struct bpf_obj *obj, struct bpf_abi_use *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof *u);
    uint32_t kf = 0;
    for (uint32_t i = 0; i < obj->n_progs; i++) {
        const struct bpf_obj_prog *p = &obj->progs[i];
        if (!bpf_obj_prog_runs(p))
            continue;
        kf |= p->kfuncs_used;
        if (p->member < 0)
            continue;
        u->members |= 1u << p->member;
        if (bpf_vm_ctx_reach(&p->prog, &u->ctx_reach[p->member], &u->ctx_reach_insn[p->member])) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
    }
    for (int k = 0; k < BPF_NV_KFUNC_COUNT; k++)
        if (kf & (1u << k)) {
            u->kfuncs[u->n_kfuncs].name = bpf_nv_kfuncs[k].name;
            u->kfuncs[u->n_kfuncs++].declared = obj->kfunc_declared[k];
        }
    return 0;
}

/*
 * Opens the object for a driver generation: the requested one (want), or the newest whose driver
 * loads it. The object is opened once against every kfunc to learn what it uses, then again against
 * the chosen generation's kfuncs (a weak kfunc's presence is that driver's).
 */
static struct bpf_obj *open_for_driver(const char *path, enum bpf_abi_gen want, char *err, size_t errlen)
{
    struct bpf_obj *obj = bpf_obj_open_file(path, bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err, errlen);
    if (!obj)
        return NULL;
    struct bpf_abi_use u;
    if (collect_use(obj, &u, err, errlen)) {
        bpf_obj_close(obj);
        return NULL;
    }
    char why[BPF_ABI_GEN_NEWEST + 1][384];
    uint32_t fits = 0;
    for (int g = BPF_ABI_K1; g <= BPF_ABI_GEN_NEWEST; g++)
        if (bpf_abi_gen_refuses((enum bpf_abi_gen)g, &u, why[g], sizeof why[g]) == 0)
            fits |= 1u << g;
    enum bpf_abi_gen pick = want;
    for (int g = BPF_ABI_GEN_NEWEST; !want && g >= BPF_ABI_K1; g--)
        if ((fits & (1u << g)) && !pick)
            pick = (enum bpf_abi_gen)g;
    if (!pick || !(fits & (1u << pick))) {
        if (want) {
            snprintf(err, errlen, "%.200s: the gpu_ext %s driver refuses it: %s", path, bpf_abi_gen_name(want),
                     why[want]);
        } else {
            int w = snprintf(err, errlen, "%.200s: no gpu_ext driver generation loads it:", path);
            for (int g = BPF_ABI_GEN_NEWEST; g >= BPF_ABI_K1 && w > 0 && (size_t)w < errlen; g--)
                w += snprintf(err + w, errlen - (size_t)w, "\n  %s: %s", bpf_abi_gen_name((enum bpf_abi_gen)g),
                              why[g]);
        }
        bpf_obj_close(obj);
        return NULL;
    }
    if (pick != BPF_ABI_K4) {
        bpf_obj_close(obj);
        obj = bpf_obj_open_file(path, kfuncs_of(pick), BPF_NV_KFUNC_COUNT, err, errlen);
        if (!obj)
            return NULL;
    }
    obj->target = pick;
    obj->target_fits = fits;
    return obj;
}

static const struct bpf_vm_env check_env_template = {
    .clock_ns = env_clock,
    .boot_clock_ns = env_clock,
    .current_task = env_task,
    .printk = env_printk,
    .n_kfuncs = BPF_NV_KFUNC_COUNT,
};

struct bpf_obj *bpf_policy_check_for(const char *path, enum bpf_abi_gen driver, char *err, size_t errlen)
{
    struct bpf_obj *obj = open_for_driver(path, driver, err, errlen);
    if (!obj)
        return NULL;
    uint64_t prng = 1;
    struct bpf_vm_env env = check_env_template;
    env.kfuncs = kfuncs_of(obj->target);
    env.prng_state = &prng;
    if (check_object(obj, &env, err, errlen)) {
        bpf_obj_close(obj);
        return NULL;
    }
    return obj;
}

struct bpf_obj *bpf_policy_check(const char *path, char *err, size_t errlen)
{
    return bpf_policy_check_for(path, BPF_ABI_GEN_NONE, err, errlen);
}

/* ---- running a callback ---- */

static void fault_ends_policy(struct bpf_policy *p, const struct bpf_obj_prog *prog, const char *hook,
                              const struct bpf_fault *fault)
{
    char f[512], msg[1024], role[200];
    bpf_fault_format(fault, f, sizeof f);
    snprintf(msg, sizeof msg, "%.200s: %s fault in %s: %s", p->obj->path, bpf_fault_kind_name(fault->kind),
             prog ? prog_role(prog, role, sizeof role) : "a bpf_wq callback", f);
    p->dead = true;
    if (p->host->fail)
        p->host->fail(p->host, hook, p->group, msg);
    else
        p->host->log(p->host, POLICY_LOG_ERROR, msg);
}

/*
 * The bpf_wq work the event's programs started, each callback sleepable in process context: a kernel
 * worker is "current" (no task), no channel group is named. Work it starts in turn runs too, at most
 * 64 rounds (a callback that restarts itself forever would hang the kernel's worker as well).
 */
static void run_wq(struct bpf_policy *p)
{
    static const struct hook_task kworker = {.comm = "kworker/u:0"};
    struct bpf_wq_item it;
    _Alignas(8) uint8_t key[256];
    void *value;
    uint32_t vsize;
    p->in_wq = true;
    for (int round = 0; round < 64 && !p->dead && bpf_wqs_next(&p->wqs, &it, key, sizeof key, &value, &vsize);
         round++) {
        p->hook = "bpf_wq";
        p->t = &kworker;
        p->group = NULL;
        p->member = -1;
        uint64_t r0 = 0;
        struct bpf_fault fault;
        memset(&fault, 0, sizeof fault);
        int rc = bpf_vm_run_callback(&p->env, it.prog, it.callback, it.map, key,
                                     bpf_map_definition(it.map)->key_size, value, vsize, &r0, &fault);
        p->runs++;
        p->insns += fault.insns;
        if (rc)
            fault_ends_policy(p, NULL, "bpf_wq", &fault);
    }
    p->in_wq = false;
}

static void run_prog(struct bpf_policy *p, struct bpf_obj_prog *prog, const char *hook, const struct hook_task *t,
                     const struct hook_task *group, struct policy_ctx *c, void *ctx, size_t size)
{
    p->member = prog->member;
    p->hook = hook;
    p->t = t;
    p->group = group;
    p->pc = c;
    p->ctx = ctx;
    uint64_t r0 = 0;
    struct bpf_fault fault;
    memset(&fault, 0, sizeof fault);
    int rc = bpf_vm_run(&p->env, &prog->prog, ctx, size, true, &r0, &fault);
    p->runs++;
    p->insns += fault.insns;
    p->pc = NULL;
    p->ctx = NULL;
    if (rc)
        fault_ends_policy(p, prog, hook, &fault);
    else if (p->wqs.n && !p->in_wq)
        run_wq(p);
}

/* Runs every program attached at ev's site (uprobes: to its function), in object order, with its ctx. */
static void fire(struct bpf_policy *p, const struct bpf_attach_event *ev, const char *hook, struct policy_ctx *c)
{
    if (p->dead || !(p->sites & 1u << ev->site))
        return;
    for (uint32_t i = 0; i < p->obj->n_progs && !p->dead; i++) {
        struct bpf_obj_prog *prog = &p->obj->progs[i];
        if (p->site[i] != (int)ev->site)
            continue;
        bool ret_prog = prog->kind == BPF_ATTACH_KRETPROBE || prog->kind == BPF_ATTACH_URETPROBE;
        if (prog->kind != BPF_ATTACH_TRACEPOINT && ret_prog != ev->ret)
            continue;
        if (ev->site == BPF_SITE_USER && !bpf_attach_user_match(p->target[i], ev->lib, ev->func))
            continue;
        p->ev = ev;
        if (prog->kind == BPF_ATTACH_TRACEPOINT) {
            _Alignas(8) uint8_t rec[128];
            /* the record is kernel memory: a __data_loc field is read with probe_read_kernel from it */
            struct bpf_attach_event tp = *ev;
            tp.kmem = rec;
            tp.kmem_len = bpf_attach_record(ev, rec, sizeof rec);
            p->ev = &tp;
            run_prog(p, prog, hook ? hook : bpf_attach_kind_name(prog->kind), ev->who, ev->group ? ev->who : NULL,
                     c, rec, tp.kmem_len);
        } else {
            struct bpf_attach_pt_regs regs;
            bpf_attach_regs(ev, &regs);
            run_prog(p, prog, hook ? hook : bpf_attach_kind_name(prog->kind), ev->who, ev->group ? ev->who : NULL,
                     c, &regs, sizeof regs);
        }
        p->ev = NULL;
    }
}

/* The hook function around a callback (nv_gpu_sched_task_init, ...) with the ctx struct as its argument. */
static void fire_hook_fn(struct bpf_policy *p, enum bpf_attach_site site, bool ret, const struct hook_task *t,
                         const void *ctx, size_t size)
{
    struct bpf_attach_event ev = {.site = site, .ret = ret, .who = t, .group = true, .kmem = ctx,
                                  .kmem_len = size};
    ev.args[0] = (uintptr_t)ctx;
    fire(p, &ev, NULL, NULL);
}

/* Runs member's program on ctx, sized as the target driver hands it; false when it did not run to the end. */
static bool run(struct bpf_policy *p, int member, const char *hook, const struct hook_task *t, struct policy_ctx *c,
                void *ctx)
{
    static const enum bpf_attach_site fn_site[BPF_ABI_MEMBER_COUNT] = {
        [BPF_ABI_ON_TASK_INIT] = BPF_SITE_TASK_INIT_FN, [BPF_ABI_ON_BIND] = BPF_SITE_BIND_FN,
        [BPF_ABI_ON_TASK_DESTROY] = BPF_SITE_DESTROY_FN, [BPF_ABI_ON_TIMESLICE_CONTROL] = BPF_SITE_COUNT,
    };
    enum bpf_attach_site site = fn_site[member];
    size_t size = bpf_abi_gen_ctx_size(p->obj->target, member);
    /* the hook function's argument points at the ctx inside a larger driver-owned record: a tracer built for a
     * longer ctx (an older ABI's) reads zeros past the input, not a fault */
    _Alignas(8) uint8_t record[64] = {0};
    memcpy(record, ctx, size < sizeof record ? size : sizeof record);
    if (site != BPF_SITE_COUNT)
        fire_hook_fn(p, site, false, t, record, sizeof record);
    int pi = p->obj->member_prog[member];
    bool ran = false;
    if (!p->dead && pi >= 0) {
        run_prog(p, &p->obj->progs[pi], hook, t, t, c, ctx, size);
        ran = !p->dead;
    }
    if (site != BPF_SITE_COUNT)
        fire_hook_fn(p, site, true, t, record, sizeof record);
    return ran;
}

static void on_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_policy *p = state;
    struct bpf_abi_task_init_ctx_k1 x = {
        .tsg_id = t->tsg_id, .engine_type = t->engine_type, .default_timeslice = t->timeslice_us,
        .default_interleave = t->interleave, .runlist_id = t->runlist_id,
    };
    if (!run(p, BPF_ABI_ON_TASK_INIT, "task_init", t, c, &x) || p->obj->target != BPF_ABI_K1)
        return;
    /* K1: the driver applies the output fields the void setters wrote (0 = no change); its header numbers the
     * interleave levels LOW..HIGH 1..3, one above NVA06C's */
    if (x.timeslice)
        p->host->set_timeslice(c, x.timeslice);
    if (x.interleave_level)
        p->host->set_interleave(c, x.interleave_level - 1);
}

static void on_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_abi_bind_ctx x = {
        .tsg_id = t->tsg_id, .runlist_id = t->runlist_id, .channel_count = t->channel_count,
        .timeslice_us = t->timeslice_us, .interleave_level = t->interleave, .allow = 1,
    };
    run(state, BPF_ABI_ON_BIND, "bind", t, c, &x);
}

static void on_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
{
    /* outside the override domain the driver takes the native path without asking the policy */
    if (requested_us < 1 || requested_us > OVERRIDE_MAX_US)
        return;
    struct bpf_abi_timeslice_control_ctx x = {
        .tsg_id = t->tsg_id, .requested_timeslice_us = requested_us, .engine_type = t->engine_type,
        .runlist_id = t->runlist_id, .hclient = t->hclient, .htsg = t->htsg, .gpu_instance = 0,
        .phase = BPF_ABI_TIMESLICE_PHASE,
    };
    run(state, BPF_ABI_ON_TIMESLICE_CONTROL, "timeslice_set", t, c, &x);
}

static void on_task_destroy(void *state, const struct hook_task *t)
{
    struct bpf_abi_task_destroy_ctx x = {.tsg_id = t->tsg_id, .runlist_id = t->runlist_id,
                                         .engine_type = t->engine_type};
    run(state, BPF_ABI_ON_TASK_DESTROY, "task_destroy", t, NULL, &x);
}

/* A user function of the launching process, entry then return, with the registers it is called with. */
static void fire_user(struct bpf_policy *p, const char *lib, const char *func, const uint64_t args[6],
                      const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_attach_event ev = {.site = BPF_SITE_USER, .lib = lib, .func = func, .who = t, .group = true};
    memcpy(ev.args, args, sizeof ev.args);
    fire(p, &ev, "work_submit", c);
    ev.ret = true;
    ev.rc = 0; /* CUDA_SUCCESS / cudaSuccess */
    fire(p, &ev, "work_submit", c);
}

/*
 * A kernel launch of the task: cudaLaunchKernel around cuLaunchKernel, as the CUDA runtime calls it. The
 * arguments are the launch's as far as the hook knows them: the function and stream handles stand for the
 * channel it goes to (one stream per channel), grid and block dimensions are 1.
 */
static void on_work_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                           struct policy_ctx *c)
{
    struct bpf_policy *p = state;
    if (kind == HOOK_SUBMIT_TOKEN_REQUEST) {
        /* nv_gpu_token_request_ctx: u32 channel_id @0, u64 tsg_id @8, u32 token @16 (the hook does not see the
         * token the control then returns) */
        struct {
            uint32_t channel_id;
            uint64_t tsg_id;
            uint32_t token;
        } x = {.channel_id = chid, .tsg_id = t->tsg_id};
        fire_hook_fn(p, BPF_SITE_TOKEN_FN, false, t, &x, sizeof x);
        fire_hook_fn(p, BPF_SITE_TOKEN_FN, true, t, &x, sizeof x);
        return;
    }
    uint64_t func = 0x7f5a00000000ull | (uint64_t)t->htsg << 8 | (chid & 0xffu);
    uint64_t stream = 0x7f5b00000000ull | (uint64_t)t->htsg << 8 | (chid & 0xffu);
    /* cudaLaunchKernel(func, gridDim, blockDim, args, sharedMem, stream): dim3 travels in two registers each */
    const uint64_t rt[6] = {func, 1ull | 1ull << 32, 1, 1ull | 1ull << 32, 1, 0};
    /* cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, ...blockZ, sharedMem, hStream on the stack) */
    const uint64_t drv[6] = {func, 1, 1, 1, 1, 1};
    struct bpf_attach_event outer = {.site = BPF_SITE_USER, .lib = "libcudart.so", .func = "cudaLaunchKernel",
                                     .who = t, .group = true};
    memcpy(outer.args, rt, sizeof rt);
    outer.args[5] = stream;
    fire(p, &outer, "work_submit", c);
    fire_user(p, "libcuda.so", "cuLaunchKernel", drv, t, c);
    outer.ret = true;
    fire(p, &outer, "work_submit", c);
}

/* ---- lifetime ---- */

static void policy_free(struct bpf_policy *p)
{
    bpf_wqs_free(&p->wqs);
    bpf_obj_close(p->obj);
    free(p->site);
    free(p->target);
    free(p);
}

static void policy_fini(void *state)
{
    struct bpf_policy *p = state;
    if (!p)
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "%" PRIu64 " callbacks, %" PRIu64 " instructions", p->runs, p->insns);
    p->host->log(p->host, POLICY_LOG_INFO, msg);
    policy_free(p);
}

/*
 * The arguments an object takes, the table of its policy-loader row (args.h gives their written forms).
 * Each is applied by the handler of its id; driver_abi has none: it chooses how the object is opened.
 */
const struct arg_spec bpf_policy_args[] = {
    {.name = "rodata", .type = ARG_KNOB, .id = BPF_ARG_RODATA,
     .help = "sets a global variable (a `const volatile` knob) before the first run (scenario policy.rodata)"},
    {.name = "map", .type = ARG_ELEMENT, .id = BPF_ARG_MAP,
     .help = "writes one element of a map before the first run (scenario policy.maps)"},
    {.name = "attach", .type = ARG_TARGET, .id = BPF_ARG_ATTACH,
     .help = "attaches a bare uprobe to a user function, as a loader does by symbol (scenario policy.attach)"},
    {.name = "budget", .type = ARG_COUNT, .id = BPF_ARG_BUDGET,
     .help = "instructions per callback before the run faults (default: the BPF machine's)"},
    {.name = "driver_abi", .type = ARG_CHOICE, .choices = "K1,K2,K3,K4", .id = BPF_ARG_DRIVER_ABI,
     .help = "the gpu_ext driver generation to run it as (default: the newest that loads it; scenario "
             "policy.driver_abi)"},
    {.name = NULL},
};

static int apply_rodata(struct bpf_policy *p, const struct arg *a, char *err, size_t errlen)
{
    return bpf_obj_set_var(p->obj, a->name, a->value, err, errlen);
}

static int apply_map(struct bpf_policy *p, const struct arg *a, char *err, size_t errlen)
{
    return bpf_obj_map_set(p->obj, a->name, a->key, a->value, err, errlen);
}

static int apply_attach(struct bpf_policy *p, const struct arg *a, char *err, size_t errlen)
{
    struct bpf_obj_prog *prog = NULL;
    for (uint32_t i = 0; i < p->obj->n_progs && !prog; i++)
        if (strcmp(p->obj->progs[i].name, a->name) == 0) {
            prog = &p->obj->progs[i];
            snprintf(p->target[i], sizeof p->target[i], "%s", a->value);
        }
    if (!prog) {
        snprintf(err, errlen, "attach: the object has no program '%s'", a->name);
        return -1;
    }
    if (prog->kind != BPF_ATTACH_UPROBE && prog->kind != BPF_ATTACH_URETPROBE) {
        snprintf(err, errlen, "attach: program %s is a %s (section %s); only uprobes are attached by a loader",
                 prog->name, bpf_attach_kind_name(prog->kind), prog->section);
        return -1;
    }
    return 0;
}

static int apply_budget(struct bpf_policy *p, const struct arg *a, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    p->insn_budget = a->count;
    return 0;
}

typedef int (*apply_fn)(struct bpf_policy *p, const struct arg *a, char *err, size_t errlen);
static const apply_fn apply_arg[BPF_ARG_COUNT] = {
    [BPF_ARG_RODATA] = apply_rodata,
    [BPF_ARG_MAP] = apply_map,
    [BPF_ARG_ATTACH] = apply_attach,
    [BPF_ARG_BUDGET] = apply_budget,
};

/* True when a was parsed against this kind's table (a plugin's KEY=VALUE is not an object's argument). */
static bool is_own_arg(const struct arg *a)
{
    for (const struct arg_spec *s = bpf_policy_args; s->name; s++)
        if (a->spec == s)
            return true;
    return false;
}

/*
 * Where each probe runs: a site nvemu fires, or nowhere (a kprobe on a function nvemu does not model, a bare
 * uprobe nothing attached). What never runs is said once, as a warning.
 */
static void resolve_sites(struct bpf_policy *p)
{
    for (uint32_t i = 0; i < p->obj->n_progs; i++) {
        const struct bpf_obj_prog *prog = &p->obj->progs[i];
        p->site[i] = -1;
        if (!bpf_obj_prog_is_probe(prog))
            continue;
        char msg[400];
        if (prog->kind == BPF_ATTACH_UPROBE || prog->kind == BPF_ATTACH_URETPROBE) {
            if (!p->target[i][0])
                snprintf(p->target[i], sizeof p->target[i], "%s", prog->target);
            if (p->target[i][0]) {
                p->site[i] = BPF_SITE_USER;
            } else {
                snprintf(msg, sizeof msg, "program %s (section %s) is never attached: a bare %s runs where its "
                         "loader attaches it; give attach:%s=LIBRARY:FUNCTION (scenario policy.attach)", prog->name,
                         prog->section, bpf_attach_kind_name(prog->kind), prog->name);
                p->host->log(p->host, POLICY_LOG_WARN, msg);
            }
        } else {
            p->site[i] = bpf_attach_site_of(prog->kind, prog->target);
            if (p->site[i] < 0) {
                snprintf(msg, sizeof msg, "program %s (%s on %s) is attached but never runs: nvemu has no %s",
                         prog->name, bpf_attach_kind_name(prog->kind), prog->target,
                         prog->kind == BPF_ATTACH_KPROBE || prog->kind == BPF_ATTACH_KRETPROBE
                             ? "such driver function" : "such event");
                p->host->log(p->host, POLICY_LOG_WARN, msg);
            }
        }
        if (p->site[i] >= 0)
            p->sites |= 1u << p->site[i];
    }
}

enum bpf_abi_gen bpf_release_abi(uint32_t driver_major)
{
    char major[16];
    enum nv_release rel;
    snprintf(major, sizeof major, "%u", driver_major);
    if (!driver_major || !nv_release_parse(major, &rel) || !nv_release_info(rel)->bpf_abi)
        return BPF_ABI_GEN_NONE;
    return bpf_abi_gen_parse(nv_release_info(rel)->bpf_abi);
}

/* What bpf_policy_attach hands the hook framework for the object's start. */
struct start_arg {
    const char *path;
    const struct arg_list *args;
};

static int policy_start(void **state, const struct policy_host *host, const void *arg, char *err, size_t errlen)
{
    const struct start_arg *sa = arg;
    const struct arg_list *args = sa->args;
    enum bpf_abi_gen driver = BPF_ABI_GEN_NONE;
    for (int i = 0; args && i < args->n; i++) {
        if (!is_own_arg(&args->v[i])) {
            char forms[256];
            arg_table_forms(bpf_policy_args, forms, sizeof forms);
            snprintf(err, errlen, "argument '%s' is not a BPF object's (accepted: %s)",
                     args->v[i].name ? args->v[i].name : args->v[i].spec->name, forms);
            return -1;
        }
        if (args->v[i].spec->id == BPF_ARG_DRIVER_ABI && !(driver = bpf_abi_gen_parse(args->v[i].value))) {
            snprintf(err, errlen, "driver_abi='%s': the gpu_ext driver ABI is one of K1, K2, K3, K4",
                     args->v[i].value);
            return -1;
        }
    }
    struct bpf_policy *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    /* Emulating gpu_ext's driver release means emulating the one generation it carries; driver_abi= still wins. */
    if (!driver && host->size >= offsetof(struct policy_host, driver_major) + sizeof host->driver_major)
        driver = bpf_release_abi(host->driver_major);
    p->obj = open_for_driver(sa->path, driver, err, errlen);
    if (!p->obj) {
        free(p);
        return -1;
    }
    p->site = calloc(p->obj->n_progs + 1, sizeof *p->site);
    p->target = calloc(p->obj->n_progs + 1, sizeof *p->target);
    if (!p->site || !p->target) {
        snprintf(err, errlen, "out of memory");
        policy_free(p);
        return -1;
    }
    for (int i = 0; args && i < args->n; i++) {
        apply_fn apply = apply_arg[args->v[i].spec->id];
        if (apply && apply(p, &args->v[i], err, errlen)) {
            policy_free(p);
            return -1;
        }
    }
    env_init(p);
    if (check_object(p->obj, &p->env, err, errlen)) {
        policy_free(p);
        return -1;
    }
    resolve_sites(p);
    *state = p;
    return 0;
}

/* A JSON string of any text (a map's name comes from the object's symbols: quotes, backslashes, control bytes). */
static void json_name(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* JSON string of bytes: printable text up to the first NUL, else hex. */
static void json_bytes(FILE *f, const uint8_t *b, uint32_t n, bool as_string)
{
    uint32_t len = 0;
    while (as_string && len < n && b[len] >= 0x20 && b[len] < 0x7f && b[len] != '"' && b[len] != '\\')
        len++;
    bool text = as_string && len > 0;
    for (uint32_t i = len; text && i < n; i++)
        text = b[i] == 0;
    if (text) {
        fprintf(f, "\"%.*s\"", (int)len, (const char *)b);
        return;
    }
    if (n == 1 || n == 2 || n == 4 || n == 8) {
        uint64_t v = 0;
        for (uint32_t i = 0; i < n; i++)
            v |= (uint64_t)b[i] << (8 * i);
        fprintf(f, "%" PRIu64, v);
        return;
    }
    fputs("\"0x", f);
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%02x", b[i]);
    fputc('"', f);
}

/* A map value: decoded through its BTF type when the object describes it, else as before (number or hex). */
static void map_value_json(FILE *f, const struct bpf_obj *obj, const struct bpf_obj_map *m, const uint8_t *val)
{
    if (m->value_btf)
        bpf_btf_json(f, bpf_obj_btf(obj), m->value_btf, val, m->def.value_size);
    else
        json_bytes(f, val, m->def.value_size, false);
}

/* A data section as {variable: value}: its variables from the symbol table, their types from BTF. */
static void data_section_json(FILE *f, const struct bpf_obj *obj, uint32_t mi, const uint8_t *val)
{
    const struct btf *btf = bpf_obj_btf(obj);
    fputc('{', f);
    bool first = true;
    for (uint32_t i = 0; i < obj->n_vars; i++) {
        const struct bpf_obj_var *v = &obj->vars[i];
        if (v->map != mi || v->offset > obj->maps[mi].def.value_size ||
            v->size > obj->maps[mi].def.value_size - v->offset)
            continue;
        int var = btf ? btf__find_by_name_kind(btf, v->name, BTF_KIND_VAR) : -1;
        const struct btf_type *vt = var > 0 ? btf__type_by_id(btf, (uint32_t)var) : NULL;
        fprintf(f, "%s\"%s\":", first ? "" : ",", v->name);
        first = false;
        bpf_btf_json(f, btf, vt ? vt->type : 0, val + v->offset, v->size);
    }
    fputc('}', f);
}

/*
 * The final contents of the object's maps and global data as gpu_ext's loaders print them:
 * {"map": {"key": value, ...}, ".bss": {"variable": value, ...}}, values decoded through BTF.
 */
static char *policy_report(void *state)
{
    struct bpf_policy *p = state;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    fputc('{', f);
    bool first_map = true;
    for (uint32_t i = 0; i < p->obj->n_maps; i++) {
        struct bpf_obj_map *m = &p->obj->maps[i];
        if (m->kind != BPF_OBJ_MAP_USER) {
            uint32_t zero = 0;
            const uint8_t *val = bpf_map_lookup(m->map, &zero);
            if (!val)
                continue;
            fprintf(f, "%s\"%s\":", first_map ? "" : ",", m->name);
            first_map = false;
            data_section_json(f, p->obj, i, val);
            continue;
        }
        if (m->def.type == BPF_MAP_TYPE_RINGBUF || m->def.key_size > 256)
            continue;
        fputs(first_map ? "" : ",", f);
        json_name(f, m->name);
        fputc(':', f);
        fputc('{', f);
        first_map = false;
        uint8_t *key = calloc(2, m->def.key_size + 1);
        uint8_t *next = key ? key + m->def.key_size + 1 : NULL;
        bool first = true;
        for (int rc = key ? bpf_map_get_next_key(m->map, NULL, next) : -1; rc == 0;
             rc = bpf_map_get_next_key(m->map, key, next)) {
            memcpy(key, next, m->def.key_size);
            const uint8_t *val = bpf_map_lookup(m->map, key);
            if (!val)
                continue;
            fputs(first ? "" : ",", f);
            first = false;
            if (m->key_is_string) {
                json_bytes(f, key, m->def.key_size, true);
            } else {
                fputc('"', f);
                uint64_t v = 0;
                for (uint32_t b = 0; b < m->def.key_size && b < 8; b++)
                    v |= (uint64_t)key[b] << (8 * b);
                if (m->def.key_size <= 8)
                    fprintf(f, "%" PRIu64, v);
                else
                    for (uint32_t b = 0; b < m->def.key_size; b++)
                        fprintf(f, "%02x", key[b]);
                fputc('"', f);
            }
            fputc(':', f);
            map_value_json(f, p->obj, m, val);
        }
        free(key);
        fputc('}', f);
    }
    fputc('}', f);
    fclose(f);
    return text;
}

static const struct policy_ops bpf_policy_ops = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "bpf",
    .fini = policy_fini,
    .on_task_init = on_task_init,
    .on_bind = on_bind,
    .on_work_submit = on_work_submit,
    .on_timeslice_set = on_timeslice_set,
    .on_task_destroy = on_task_destroy,
    .report_json = policy_report,
};

uint32_t bpf_policy_sites(const void *state)
{
    const struct bpf_policy *p = state;
    return p && !p->dead ? p->sites : 0;
}

void bpf_policy_fire(void *state, const struct bpf_attach_event *ev)
{
    fire(state, ev, NULL, NULL);
}

bool bpf_policy_is_object(const char *path)
{
    unsigned char h[20];
    /* a FIFO or device named as a policy is no object, and must not block the question */
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
    struct stat st;
    if (fd < 0)
        return false;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return false;
    }
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    /* ELF magic, and e_machine (little-endian, offset 18) = EM_BPF 247 */
    return n == (ssize_t)sizeof h && memcmp(h, "\177ELF", 4) == 0 && h[18] == 247 && h[19] == 0;
}

int bpf_policy_attach(struct hooks *h, bpf_policy_attach_fn attach, const char *path, const struct arg_list *args,
                      char *err, size_t errlen)
{
    /* callbacks the object leaves NULL stay NULL: the host then takes the native path without a trace record,
     * as for a C plugin without that callback */
    struct policy_ops ops = bpf_policy_ops;
    const char *base = strrchr(path, '/');
    ops.name = base ? base + 1 : path;
    struct bpf_obj *peek = bpf_obj_open_file(path, bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err, errlen);
    int rc = -1;
    if (peek) {
        if (peek->member_prog[BPF_ABI_ON_TASK_INIT] < 0)
            ops.on_task_init = NULL;
        if (peek->member_prog[BPF_ABI_ON_BIND] < 0)
            ops.on_bind = NULL;
        if (peek->member_prog[BPF_ABI_ON_TIMESLICE_CONTROL] < 0)
            ops.on_timeslice_set = NULL;
        if (peek->member_prog[BPF_ABI_ON_TASK_DESTROY] < 0)
            ops.on_task_destroy = NULL;
        /* a hook function's probes need its callback though the ops member is NULL */
        uint32_t at = 0;
        for (uint32_t i = 0; i < peek->n_progs; i++) {
            const struct bpf_obj_prog *pr = &peek->progs[i];
            int site = pr->kind == BPF_ATTACH_UPROBE || pr->kind == BPF_ATTACH_URETPROBE
                           ? BPF_SITE_USER : bpf_attach_site_of(pr->kind, pr->target);
            if (bpf_obj_prog_is_probe(pr) && site >= 0)
                at |= 1u << site;
        }
        if (at & 1u << BPF_SITE_TASK_INIT_FN)
            ops.on_task_init = bpf_policy_ops.on_task_init;
        if (at & 1u << BPF_SITE_BIND_FN)
            ops.on_bind = bpf_policy_ops.on_bind;
        if (at & 1u << BPF_SITE_DESTROY_FN)
            ops.on_task_destroy = bpf_policy_ops.on_task_destroy;
        if (!(at & (1u << BPF_SITE_USER | 1u << BPF_SITE_TOKEN_FN)))
            ops.on_work_submit = NULL;
        bpf_obj_close(peek);
        const struct start_arg sa = {.path = path, .args = args};
        rc = attach(h, &ops, policy_start, &sa, err, errlen);
    }
    return rc;
}
