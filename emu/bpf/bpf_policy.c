/*
 * The struct_ops object behind struct policy_ops (bpf_policy.h): builds the
 * ABI ctx from the hook's task snapshot, runs the bound program in the
 * interpreter, and turns the kfuncs into the host's setters. The driver's
 * rules that are the kfuncs' own (NULL ctx -> REJECT_IDENTITY, the incoming
 * SET_TIMESLICE domain) are the adapter's; recording, conflicts and range
 * validation (the override domain 1..1,000,000 us included) are the host's,
 * as for a C plugin. This file: the adapter's lifetime, its typed arguments
 * and attaching it; the kfuncs, the helpers' environment, the load-time
 * checks, running the programs and the report each have a file
 * (bpf_policy_internal.h).
 */
#include "bpf/bpf_policy_internal.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi/nv_abi_desc.h"

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
    p->obj = bpf_policy_open_for_driver(sa->path, driver, err, errlen);
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
    bpf_policy_env_init(p);
    if (bpf_policy_check_object(p->obj, &p->env, err, errlen)) {
        policy_free(p);
        return -1;
    }
    resolve_sites(p);
    *state = p;
    return 0;
}

static const struct policy_ops bpf_policy_ops = {
    .api_version = NVEMU_POLICY_API_VERSION,
    .size = sizeof(struct policy_ops),
    .name = "bpf",
    .fini = policy_fini,
    .on_task_init = bpf_policy_on_task_init,
    .on_bind = bpf_policy_on_bind,
    .on_work_submit = bpf_policy_on_work_submit,
    .on_timeslice_set = bpf_policy_on_timeslice_set,
    .on_task_destroy = bpf_policy_on_task_destroy,
    .report_json = bpf_policy_report_json,
};

uint32_t bpf_policy_sites(const void *state)
{
    const struct bpf_policy *p = state;
    return p && !p->dead ? p->sites : 0;
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
