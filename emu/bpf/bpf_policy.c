/*
 * The struct_ops object behind struct policy_ops (bpf_policy.h): builds the
 * ABI ctx from the hook's task snapshot, runs the bound program in the
 * interpreter, and turns the kfuncs into the host's setters. The driver's
 * rules that are the kfuncs' own (NULL ctx -> REJECT_IDENTITY, the
 * override_timeslice domain 1..1,000,000 us, the incoming SET_TIMESLICE
 * domain) are applied here; recording, conflicts and range validation are
 * the host's, as for a C plugin.
 */
#include "bpf/bpf_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/bpf_abi.h"
#include "bpf/bpf_obj.h"
#include "nvemu/policy.h"

#define OVERRIDE_MAX_US 1000000u
#define OBJECT_ARG "bpf.object="

struct bpf_policy {
    const struct policy_host *host;
    struct bpf_obj *obj;
    struct bpf_vm_env env;
    uint64_t prng;
    uint64_t insn_budget;
    /* the callback in progress */
    int member;
    const char *hook;
    const struct hook_task *t;
    struct policy_ctx *pc;
    void *ctx;
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
    if (args[1] < 1 || args[1] > OVERRIDE_MAX_US) {
        char msg[160];
        snprintf(msg, sizeof msg, "override_timeslice(%" PRIu64 " us) outside 1..%u: REJECT_RANGE, the control "
                 "answers NV_ERR_INVALID_ARGUMENT on the real driver", args[1], OVERRIDE_MAX_US);
        if (p->host->trace_note)
            p->host->trace_note(p->host, p->hook, p->t, "timeslice", msg);
        return POLICY_REJECT_RANGE;
    }
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
    return (uint64_t)(int64_t)p->host->preempt_tsg(p->host, p->hook, p->t, (uint32_t)args[0], (uint32_t)args[1]);
}

#define CTX_ARG {.kind = BPF_ARG_CTX, .nullable = true}
#define SCALAR_ARG {.kind = BPF_ARG_SCALAR}

const struct bpf_kfunc bpf_nv_kfuncs[BPF_NV_KFUNC_COUNT] = {
    [BPF_NV_SET_TIMESLICE] = {"bpf_nv_gpu_set_timeslice", kf_set_timeslice, {CTX_ARG, SCALAR_ARG}, false},
    [BPF_NV_SET_INTERLEAVE] = {"bpf_nv_gpu_set_interleave", kf_set_interleave, {CTX_ARG, SCALAR_ARG}, false},
    [BPF_NV_OVERRIDE_TIMESLICE] = {"bpf_nv_gpu_override_timeslice", kf_override_timeslice, {CTX_ARG, SCALAR_ARG},
                                   false},
    [BPF_NV_REJECT_BIND] = {"bpf_nv_gpu_reject_bind", kf_reject_bind, {CTX_ARG}, false},
    [BPF_NV_PREEMPT_TSG] = {"bpf_nv_gpu_preempt_tsg", kf_preempt_tsg, {SCALAR_ARG, SCALAR_ARG}, true},
};

/* The member whose ctx each decision kfunc takes (-1: no ctx). */
static const int kfunc_member[BPF_NV_KFUNC_COUNT] = {
    [BPF_NV_SET_TIMESLICE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_SET_INTERLEAVE] = BPF_ABI_ON_TASK_INIT,
    [BPF_NV_OVERRIDE_TIMESLICE] = BPF_ABI_ON_TIMESLICE_CONTROL,
    [BPF_NV_REJECT_BIND] = BPF_ABI_ON_BIND,
    [BPF_NV_PREEMPT_TSG] = -1,
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
        p->host->trace_note(p->host, p->hook, p->t, "printk", line);
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
        .cpu = 0,
        .kfuncs = bpf_nv_kfuncs,
        .n_kfuncs = BPF_NV_KFUNC_COUNT,
        .insn_budget = p->insn_budget,
        .max_frames = 0,
    };
}

/* ---- load-time checks beyond the loader's ---- */

/* What a program is called in messages: its ops member, or "uprobe on cuLaunchKernel". */
static const char *prog_role(const struct bpf_obj_prog *p)
{
    return p->member >= 0 ? bpf_abi_member_name((enum bpf_abi_member)p->member) : "uprobe on cuLaunchKernel";
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
            snprintf(err, errlen, "%s: program %s (%s) calls %s, which takes struct %s; %s gets %s%s", obj->path,
                     p->name, prog_role(p), bpf_nv_kfuncs[k].name,
                     bpf_abi_ctx_name((enum bpf_abi_member)kfunc_member[k]), prog_role(p),
                     p->member >= 0 ? "struct " : "",
                     p->member >= 0 ? bpf_abi_ctx_name((enum bpf_abi_member)p->member) : "struct pt_regs");
            return -1;
        }
        struct bpf_fault why;
        memset(&why, 0, sizeof why);
        if (bpf_vm_check(env, &p->prog, true, &why)) {
            char f[512];
            snprintf(err, errlen, "%.200s: refused at load: %s", obj->path, bpf_fault_format(&why, f, sizeof f));
            return -1;
        }
    }
    return 0;
}

static const struct bpf_vm_env check_env_template = {
    .clock_ns = env_clock,
    .boot_clock_ns = env_clock,
    .current_task = env_task,
    .printk = env_printk,
    .kfuncs = bpf_nv_kfuncs,
    .n_kfuncs = BPF_NV_KFUNC_COUNT,
};

struct bpf_obj *bpf_policy_check(const char *path, char *err, size_t errlen)
{
    struct bpf_obj *obj = bpf_obj_open_file(path, bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err, errlen);
    if (!obj)
        return NULL;
    uint64_t prng = 1;
    struct bpf_vm_env env = check_env_template;
    env.prng_state = &prng;
    if (check_object(obj, &env, err, errlen)) {
        bpf_obj_close(obj);
        return NULL;
    }
    return obj;
}

/* ---- running a callback ---- */

static void run_prog(struct bpf_policy *p, struct bpf_obj_prog *prog, const char *hook, const struct hook_task *t,
                     struct policy_ctx *c, void *ctx, size_t size)
{
    p->member = prog->member;
    p->hook = hook;
    p->t = t;
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
    if (rc == 0)
        return;
    char f[512], msg[1024];
    bpf_fault_format(&fault, f, sizeof f);
    snprintf(msg, sizeof msg, "%.200s: %s fault in %s: %s", p->obj->path, bpf_fault_kind_name(fault.kind),
             prog_role(prog), f);
    p->dead = true;
    if (p->host->fail)
        p->host->fail(p->host, hook, t, msg);
    else
        p->host->log(p->host, POLICY_LOG_ERROR, msg);
}

static void run(struct bpf_policy *p, int member, const char *hook, const struct hook_task *t, struct policy_ctx *c,
                void *ctx, size_t size)
{
    int pi = p->obj->member_prog[member];
    if (!p->dead && pi >= 0)
        run_prog(p, &p->obj->progs[pi], hook, t, c, ctx, size);
}

static void on_task_init(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_abi_task_init_ctx x = {
        .tsg_id = t->tsg_id, .engine_type = t->engine_type, .default_timeslice = t->timeslice_us,
        .default_interleave = t->interleave, .runlist_id = t->runlist_id,
    };
    run(state, BPF_ABI_ON_TASK_INIT, "task_init", t, c, &x, sizeof x);
}

static void on_bind(void *state, const struct hook_task *t, struct policy_ctx *c)
{
    struct bpf_abi_bind_ctx x = {
        .tsg_id = t->tsg_id, .runlist_id = t->runlist_id, .channel_count = t->channel_count,
        .timeslice_us = t->timeslice_us, .interleave_level = t->interleave, .allow = 1,
    };
    run(state, BPF_ABI_ON_BIND, "bind", t, c, &x, sizeof x);
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
    run(state, BPF_ABI_ON_TIMESLICE_CONTROL, "timeslice_set", t, c, &x, sizeof x);
}

static void on_task_destroy(void *state, const struct hook_task *t)
{
    struct bpf_abi_task_destroy_ctx x = {.tsg_id = t->tsg_id, .runlist_id = t->runlist_id,
                                         .engine_type = t->engine_type};
    run(state, BPF_ABI_ON_TASK_DESTROY, "task_destroy", t, NULL, &x, sizeof x);
}

/* A kernel launch of the task: every launch probe runs, in object order, as a uprobe on cuLaunchKernel would. */
static void on_work_submit(void *state, const struct hook_task *t, uint32_t chid, enum hook_submit_kind kind,
                           struct policy_ctx *c)
{
    struct bpf_policy *p = state;
    (void)chid;
    if (kind != HOOK_SUBMIT_WORK)
        return;
    for (uint32_t i = 0; i < p->obj->n_progs && !p->dead; i++) {
        if (!p->obj->progs[i].launch_probe)
            continue;
        uint8_t regs[BPF_ABI_PT_REGS_SIZE] = {0};
        run_prog(p, &p->obj->progs[i], "work_submit", t, c, regs, sizeof regs);
    }
}

/* ---- lifetime ---- */

static void policy_fini(void *state)
{
    struct bpf_policy *p = state;
    if (!p)
        return;
    char msg[160];
    snprintf(msg, sizeof msg, "%" PRIu64 " callbacks, %" PRIu64 " instructions", p->runs, p->insns);
    p->host->log(p->host, POLICY_LOG_INFO, msg);
    bpf_obj_close(p->obj);
    free(p);
}

/* "map:NAME[KEY]=VALUE" -> name, key, value (in buf). */
static int split_map_arg(char *buf, char **name, char **key, char **value)
{
    char *lb = strchr(buf, '['), *eq = strrchr(buf, '=');
    if (!lb || !eq || eq < lb || eq == buf || eq[-1] != ']')
        return -1;
    *lb = '\0';
    eq[-1] = '\0';
    *name = buf;
    *key = lb + 1;
    *value = eq + 1;
    return **name ? 0 : -1;
}

static int apply_arg(struct bpf_policy *p, const char *arg, char *err, size_t errlen)
{
    char buf[512];
    if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) {
        snprintf(err, errlen, "argument too long: %.40s...", arg);
        return -1;
    }
    if (strncmp(buf, "rodata:", 7) == 0) {
        char *eq = strchr(buf, '=');
        *eq = '\0';
        return bpf_obj_set_var(p->obj, buf + 7, eq + 1, err, errlen);
    }
    if (strncmp(buf, "map:", 4) == 0) {
        char *name, *key, *value;
        if (split_map_arg(buf + 4, &name, &key, &value)) {
            snprintf(err, errlen, "'%s' is not map:NAME[KEY]=VALUE", arg);
            return -1;
        }
        return bpf_obj_map_set(p->obj, name, key, value, err, errlen);
    }
    if (strncmp(buf, "budget=", 7) == 0) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(buf + 7, &end, 10);
        if (errno || *end || v == 0 || buf[7] == '-') {
            snprintf(err, errlen, "budget='%s' is not a positive number", buf + 7);
            return -1;
        }
        p->insn_budget = v;
        return 0;
    }
    snprintf(err, errlen, "unknown argument '%s' (accepted: rodata:NAME=VALUE, map:NAME[KEY]=VALUE, budget=N)", arg);
    return -1;
}

static int policy_init(void **state, const struct policy_host *host, const char *const *args, int nargs, char *err,
                       size_t errlen)
{
    if (nargs < 1 || strncmp(args[0], OBJECT_ARG, strlen(OBJECT_ARG)) != 0) {
        snprintf(err, errlen, "no BPF object given");
        return -1;
    }
    struct bpf_policy *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    p->host = host;
    p->obj = bpf_obj_open_file(args[0] + strlen(OBJECT_ARG), bpf_nv_kfuncs, BPF_NV_KFUNC_COUNT, err, errlen);
    if (!p->obj) {
        free(p);
        return -1;
    }
    for (int i = 1; i < nargs; i++) {
        if (apply_arg(p, args[i], err, errlen)) {
            bpf_obj_close(p->obj);
            free(p);
            return -1;
        }
    }
    env_init(p);
    if (check_object(p->obj, &p->env, err, errlen)) {
        bpf_obj_close(p->obj);
        free(p);
        return -1;
    }
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

/* The final contents of the object's maps, as gpu_ext's loaders print them: {"map": {"key": value, ...}}. */
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
        if (m->kind != BPF_OBJ_MAP_USER || m->def.type == BPF_MAP_TYPE_RINGBUF || m->def.key_size > 256)
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
            json_bytes(f, val, m->def.value_size, false);
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
    .init = policy_init,
    .fini = policy_fini,
    .on_task_init = on_task_init,
    .on_bind = on_bind,
    .on_work_submit = on_work_submit,
    .on_timeslice_set = on_timeslice_set,
    .on_task_destroy = on_task_destroy,
    .report_json = policy_report,
};

bool bpf_policy_is_object(const char *path)
{
    unsigned char h[20];
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0)
        return false;
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    /* ELF magic, and e_machine (little-endian, offset 18) = EM_BPF 247 */
    return n == (ssize_t)sizeof h && memcmp(h, "\177ELF", 4) == 0 && h[18] == 247 && h[19] == 0;
}

int bpf_policy_attach(struct hooks *h, bpf_policy_attach_fn attach, const char *path, const char *const *args,
                      int nargs, char *err, size_t errlen)
{
    if (nargs < 0)
        nargs = 0;
    const char **all = calloc((size_t)nargs + 1, sizeof *all);
    size_t olen = strlen(OBJECT_ARG) + strlen(path) + 1;
    char *objarg = malloc(olen);
    if (!all || !objarg) {
        free(all);
        free(objarg);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    snprintf(objarg, olen, "%s%s", OBJECT_ARG, path);
    all[0] = objarg;
    for (int i = 0; i < nargs; i++)
        all[i + 1] = args[i];
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
        bool probes = false;
        for (uint32_t i = 0; i < peek->n_progs; i++)
            probes |= peek->progs[i].launch_probe;
        if (!probes)
            ops.on_work_submit = NULL;
        bpf_obj_close(peek);
        rc = attach(h, &ops, all, nargs + 1, err, errlen);
    }
    free(objarg);
    free(all);
    return rc;
}
