/*
 * Running the object's programs (bpf_policy_internal.h): the ABI ctx built from the hook's task
 * snapshot for each callback, the probes around it and at launches, the bpf_wq work they start, and
 * a fault ending the policy.
 */
#include "bpf/bpf_policy_internal.h"

#include <stdio.h>
#include <string.h>

#define OVERRIDE_MAX_US 1000000u

static void fault_ends_policy(struct bpf_policy *p, const struct bpf_obj_prog *prog, const char *hook,
                              const struct bpf_fault *fault)
{
    char f[512], msg[1024], role[200];
    bpf_fault_format(fault, f, sizeof f);
    snprintf(msg, sizeof msg, "%.200s: %s fault in %s: %s", p->obj->path, bpf_fault_kind_name(fault->kind),
             prog ? bpf_policy_prog_role(prog, role, sizeof role) : "a bpf_wq callback", f);
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

void bpf_policy_on_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
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

void bpf_policy_on_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_abi_bind_ctx x = {
        .tsg_id = t->tsg_id, .runlist_id = t->runlist_id, .channel_count = t->channel_count,
        .timeslice_us = t->timeslice_us, .interleave_level = t->interleave, .allow = 1,
    };
    run(state, BPF_ABI_ON_BIND, "bind", t, c, &x);
}

void bpf_policy_on_timeslice_set(void *state, const struct hook_task *t, uint64_t requested_us, struct policy_ctx *c)
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

void bpf_policy_on_task_destroy(void *state, const struct hook_task *t)
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
void bpf_policy_on_work_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
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

void bpf_policy_fire(void *state, const struct bpf_attach_event *ev)
{
    fire(state, ev, NULL, NULL);
}
