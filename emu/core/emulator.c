/*
 * The emulator instance: profile, GPUs (each with its fifo model), the one
 * sim, the hook framework, the workload driver, the resource server, the
 * openers and the counters. See emulator.h for the locking rule.
 */
#include "core/emulator.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/emulator_internal.h"
#include "core/log.h"
#include "fifo/fifo.h"
#include "fifo/workload.h"
#include "hooks/hooks.h"
#include "rm/rm_internal.h"
#include "sim/sim.h"

void nvemu_config_init(nvemu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->profile = "h200";
    cfg->clock = NVEMU_CLOCK_VIRTUAL;
    cfg->seed = 1;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static bool copy_config(nvemu *emu, const nvemu_config *cfg)
{
    emu->cfg = *cfg;
    emu->cfg_profile = strdup(cfg->profile ? cfg->profile : "h200");
    emu->cfg_trace_path = dup_or_null(cfg->trace_path);
    emu->cfg_policy_path = dup_or_null(cfg->policy_path);
    if (!emu->cfg_profile || (cfg->trace_path && !emu->cfg_trace_path) ||
        (cfg->policy_path && !emu->cfg_policy_path))
        return false;
    if (cfg->policy_nargs > 0) {
        emu->cfg_policy_args = calloc((size_t)cfg->policy_nargs + 1, sizeof(char *));
        if (!emu->cfg_policy_args)
            return false;
        for (int i = 0; i < cfg->policy_nargs; i++)
            if (!(emu->cfg_policy_args[i] = strdup(cfg->policy_args[i])))
                return false;
    }
    emu->cfg.profile = emu->cfg_profile;
    emu->cfg.trace_path = emu->cfg_trace_path;
    emu->cfg.policy_path = emu->cfg_policy_path;
    emu->cfg.policy_args = (const char *const *)emu->cfg_policy_args;
    emu->cfg.policy_nargs = cfg->policy_nargs > 0 ? cfg->policy_nargs : 0;
    /* Only read while the profile loads, inside nvemu_create: no copy needed. */
    emu->cfg.profile_set = NULL;
    emu->cfg.profile_nset = 0;
    return true;
}

static void fail(char *errbuf, size_t errlen, const char *fmt, const char *arg)
{
    if (errbuf && errlen)
        snprintf(errbuf, errlen, fmt, arg);
}

nvemu *nvemu_create(const nvemu_config *cfg_in, char *errbuf, size_t errlen)
{
    nvemu_config defaults;
    if (!cfg_in) {
        nvemu_config_init(&defaults);
        cfg_in = &defaults;
    }
    nvemu *emu = calloc(1, sizeof(*emu));
    if (!emu) {
        fail(errbuf, errlen, "%s", "out of memory");
        return NULL;
    }
    pthread_mutex_init(&emu->lock, NULL);
    if (!copy_config(emu, cfg_in)) {
        fail(errbuf, errlen, "%s", "out of memory");
        goto err;
    }
    char perr[512] = "";
    emu->profile = profile_load_set(emu->cfg.profile, cfg_in->profile_set,
                                    cfg_in->profile_nset > 0 ? cfg_in->profile_nset : 0, perr, sizeof(perr));
    if (!emu->profile) {
        fail(errbuf, errlen, "%s", perr[0] ? perr : "cannot load profile");
        goto err;
    }
    emu->gpu_count = emu->profile->gpu_count ? emu->profile->gpu_count : 1;

    struct sim_config sc = {.seed = emu->cfg.seed, .clock = emu->cfg.clock, .trace_path = emu->cfg.trace_path,
                            .keep_trace = false};
    emu->sim = sim_create(&sc);
    if (!emu->sim) {
        fail(errbuf, errlen, "cannot create the simulator (trace file %s)",
             emu->cfg.trace_path ? emu->cfg.trace_path : "-");
        goto err;
    }
    struct hooks_env env;
    fifo_hooks_env_init(&env, emu->profile, emu->sim);
    env.seed = emu->cfg.seed;
    emu->hooks = hooks_create(&env);
    if (!emu->hooks) {
        fail(errbuf, errlen, "%s", "cannot create the hook framework");
        goto err;
    }
    if (emu->cfg.policy_path) {
        char herr[256] = "";
        if (hooks_load_policy(emu->hooks, emu->cfg.policy_path, emu->cfg.policy_args, emu->cfg.policy_nargs, herr,
                              sizeof(herr)) != 0) {
            fail(errbuf, errlen, "%s", herr[0] ? herr : "cannot load the policy");
            goto err;
        }
    }
    emu->gpus = calloc(emu->gpu_count, sizeof(*emu->gpus));
    if (!emu->gpus) {
        fail(errbuf, errlen, "%s", "out of memory");
        goto err;
    }
    for (uint32_t i = 0; i < emu->gpu_count; i++) {
        struct gpu *g = &emu->gpus[i];
        const struct profile *p = emu->profile;
        g->index = i;
        g->emu = emu;
        g->profile = p;
        g->pci_bus = p->pci_bus + i;
        g->gpu_id = ((p->pci_domain & 0xFFFFu) << 16) | ((g->pci_bus & 0xFFu) << 8) | (p->pci_slot & 0xFFu);
        g->fifo = fifo_create(p, i, emu->sim, emu->hooks);
        if (!g->fifo) {
            fail(errbuf, errlen, "%s", "cannot create the FIFO model");
            goto err;
        }
        fifo_set_inject_latency(g->fifo, emu->cfg.inject_latency);
        g->class_map = calloc(0x10000 / 64, sizeof(uint64_t));
        if (!g->class_map) {
            fail(errbuf, errlen, "%s", "out of memory");
            goto err;
        }
        for (uint32_t k = 0; k < p->class_count; k++)
            if (p->classes[k] < 0x10000)
                g->class_map[p->classes[k] / 64] |= 1ull << (p->classes[k] % 64);
    }
    emu->wl = workload_create(emu->sim);
    emu->rm = rm_server_create(emu);
    if (!emu->wl || !emu->rm) {
        fail(errbuf, errlen, "%s", "out of memory");
        goto err;
    }
    return emu;
err:
    nvemu_destroy(emu);
    return NULL;
}

static void free_opener(nvemu *emu, nvemu_opener *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        emu->openers = op->next;
    if (op->next)
        op->next->prev = op->prev;
    emu->opener_count--;
    nvemu_os_event_drop_opener(emu, op);
    free(op);
}

void nvemu_destroy(nvemu *emu)
{
    if (!emu)
        return;
    /* clients first: their destructors reach into the fifo models */
    rm_server_destroy(emu->rm);
    while (emu->openers)
        free_opener(emu, emu->openers);
    free(emu->os_events.pair);
    free(emu->os_events.cl);
    workload_destroy(emu->wl);
    for (uint32_t i = 0; emu->gpus && i < emu->gpu_count; i++) {
        fifo_destroy(emu->gpus[i].fifo);
        free(emu->gpus[i].class_map);
    }
    free(emu->gpus);
    hooks_destroy(emu->hooks);
    sim_destroy(emu->sim);
    profile_free(emu->profile);
    free(emu->cfg_profile);
    free(emu->cfg_trace_path);
    free(emu->cfg_policy_path);
    for (int i = 0; emu->cfg_policy_args && i < emu->cfg.policy_nargs; i++)
        free(emu->cfg_policy_args[i]);
    free(emu->cfg_policy_args);
    free(emu->busy);
    pthread_mutex_destroy(&emu->lock);
    free(emu);
}

nvemu_opener *nvemu_open(nvemu *emu, nvemu_node node, uint32_t minor, const nvemu_identity *who, int *err)
{
    if (node == NVEMU_NODE_GPU && minor >= emu->gpu_count) {
        if (err)
            *err = -ENXIO;
        return NULL;
    }
    if (node != NVEMU_NODE_CTL && node != NVEMU_NODE_GPU && node != NVEMU_NODE_UVM) {
        if (err)
            *err = -ENODEV;
        return NULL;
    }
    nvemu_opener *op = calloc(1, sizeof(*op));
    if (!op) {
        if (err)
            *err = -ENOMEM;
        return NULL;
    }
    op->emu = emu;
    op->node = node;
    op->minor = node == NVEMU_NODE_GPU ? minor : 0;
    if (who)
        op->who = *who;
    op->who.comm[sizeof(op->who.comm) - 1] = '\0';
    pthread_mutex_lock(&emu->lock);
    op->serial = ++emu->opener_serial;
    op->next = emu->openers;
    if (emu->openers)
        emu->openers->prev = op;
    emu->openers = op;
    emu->opener_count++;
    pthread_mutex_unlock(&emu->lock);
    if (err)
        *err = 0;
    return op;
}

/*
 * fd close. The driver's registered fd holds a reference on its control fd,
 * so a control opener whose fds are still registered stays (with its clients)
 * until the last of them closes.
 */
static void finish_release(nvemu *emu, nvemu_opener *op)
{
    while (op && op->closed && op->linked == 0) {
        nvemu_opener *ctl = op->ctl;
        rm_opener_gone(emu->rm, op);
        free_opener(emu, op);
        if (!ctl)
            break;
        ctl->linked--;
        op = ctl;
    }
}

void nvemu_release(nvemu *emu, nvemu_opener *op)
{
    if (!op)
        return;
    pthread_mutex_lock(&emu->lock);
    op->closed = true;
    /* a participant whose process closed (or lost) the fd must not hold virtual time back */
    workload_forget_opener(emu->wl, op);
    finish_release(emu, op);
    pthread_mutex_unlock(&emu->lock);
}

const nvemu_identity *nvemu_opener_identity(const nvemu_opener *op) { return &op->who; }
uint32_t nvemu_opener_minor(const nvemu_opener *op) { return op->minor; }
uint32_t nvemu_gpu_count(const nvemu *emu) { return emu->gpu_count; }
struct gpu *nvemu_gpu(nvemu *emu, uint32_t index) { return index < emu->gpu_count ? &emu->gpus[index] : NULL; }
struct fifo *gpu_fifo(struct gpu *g) { return g->fifo; }
uint32_t gpu_index(const struct gpu *g) { return g->index; }
const struct profile *nvemu_profile(const nvemu *emu) { return emu->profile; }
const nvemu_config *nvemu_config_of(const nvemu *emu) { return &emu->cfg; }
struct sim *nvemu_sim(nvemu *emu) { return emu->sim; }
struct workload *nvemu_workload(nvemu *emu) { return emu->wl; }
struct hooks *nvemu_hooks(nvemu *emu) { return emu->hooks; }
pthread_mutex_t *nvemu_lock_of(nvemu *emu) { return &emu->lock; }

bool gpu_has_class(const struct gpu *g, uint32_t hclass)
{
    if (hclass >= 0x10000)
        return profile_has_class(g->profile, hclass);
    return (g->class_map[hclass / 64] >> (hclass % 64)) & 1;
}

struct gpu *nvemu_gpu_by_id(nvemu *emu, uint32_t gpu_id)
{
    for (uint32_t i = 0; i < emu->gpu_count; i++)
        if (emu->gpus[i].gpu_id == gpu_id)
            return &emu->gpus[i];
    return NULL;
}

void nvemu_count_error(nvemu *emu, NV_STATUS st)
{
    emu->errors++;
    for (int i = 0; i < NVEMU_STATUS_SLOTS; i++) {
        if (emu->by_status[i].count && emu->by_status[i].status != st)
            continue;
        emu->by_status[i].status = st;
        emu->by_status[i].count++;
        return;
    }
}

void nvemu_get_stats(nvemu *emu, nvemu_stats *out)
{
    pthread_mutex_lock(&emu->lock);
    out->ioctls = emu->ioctls;
    out->errors = emu->errors;
    out->openers = emu->opener_count;
    out->clients = emu->rm->count;
    out->objects = emu->rm->objects;
    out->channel_groups = emu->rm->channel_groups;
    pthread_mutex_unlock(&emu->lock);
}

/* snprintf into buf at *off, tracking the length needed. */
#define JSON(...)                                                                                              \
    do {                                                                                                       \
        int n_ = snprintf(buf && off < len ? buf + off : NULL, buf && off < len ? len - off : 0, __VA_ARGS__); \
        if (n_ > 0)                                                                                            \
            off += (size_t)n_;                                                                                 \
    } while (0)

struct class_count {
    uint32_t hclass, count;
};

struct count_ctx {
    struct class_count v[128];
    uint32_t n;
};

static void count_tree(struct count_ctx *cc, struct rm_object *top)
{
    for (struct rm_object *ch = top; (ch = rm_object_next_preorder(top, ch));) {
        uint32_t i = 0;
        while (i < cc->n && cc->v[i].hclass != ch->hclass)
            i++;
        if (i == cc->n && cc->n < 128)
            cc->v[cc->n++] = (struct class_count){ch->hclass, 0};
        if (i < cc->n)
            cc->v[i].count++;
    }
}

static bool count_client(struct rm_client *cl, void *arg)
{
    count_tree(arg, cl->root);
    return true;
}

static const char *node_name(nvemu_node n)
{
    return n == NVEMU_NODE_CTL ? "nvidiactl" : n == NVEMU_NODE_GPU ? "nvidia" : "nvidia-uvm";
}

size_t nvemu_status_json(nvemu *emu, char *buf, size_t len)
{
    size_t off = 0;
    if (buf && len)
        buf[0] = '\0';
    pthread_mutex_lock(&emu->lock);
    JSON("{\"profile\":\"%s\",\"gpus\":%u,\"ioctls\":%llu,\"errors\":%llu,\"clients\":%u,\"objects\":%u,"
         "\"channel_groups\":%u,\"lost_gpus\":[",
         emu->profile->name, emu->gpu_count, (unsigned long long)emu->ioctls, (unsigned long long)emu->errors,
         emu->rm->count, emu->rm->objects, emu->rm->channel_groups);
    bool first = true;
    for (uint32_t i = 0; i < emu->gpu_count; i++)
        if (emu->gpus[i].lost) {
            JSON("%s%u", first ? "" : ",", i);
            first = false;
        }
    JSON("],\"openers\":[");
    first = true;
    for (nvemu_opener *op = emu->openers; op; op = op->next) {
        char comm[sizeof(op->who.comm) * 2];
        size_t j = 0;
        for (size_t i = 0; op->who.comm[i] && j + 1 < sizeof(comm); i++)
            if (op->who.comm[i] >= 0x20 && op->who.comm[i] != '"' && op->who.comm[i] != '\\')
                comm[j++] = op->who.comm[i];
        comm[j] = '\0';
        JSON("%s{\"id\":%llu,\"node\":\"%s\",\"minor\":%u,\"pid\":%d,\"uid\":%u,\"comm\":\"%s\",\"closed\":%s}",
             first ? "" : ",", (unsigned long long)op->serial, node_name(op->node), op->minor, op->who.pid,
             op->who.uid, comm, op->closed ? "true" : "false");
        first = false;
    }
    struct count_ctx cc = {.n = 0};
    rm_for_each_client(emu->rm, count_client, &cc);
    JSON("],\"objects_by_class\":{");
    for (uint32_t i = 0; i < cc.n; i++)
        JSON("%s\"0x%04x\":%u", i ? "," : "", cc.v[i].hclass, cc.v[i].count);
    JSON("},\"errors_by_status\":{");
    first = true;
    for (int i = 0; i < NVEMU_STATUS_SLOTS; i++) {
        if (!emu->by_status[i].count)
            continue;
        NV_STATUS st = emu->by_status[i].status;
        if (st & 0x80000000u)
            JSON("%s\"errno %u\":%llu", first ? "" : ",", st & 0x7FFFFFFFu,
                 (unsigned long long)emu->by_status[i].count);
        else
            JSON("%s\"%s\":%llu", first ? "" : ",", nv_status_name(st), (unsigned long long)emu->by_status[i].count);
        first = false;
    }
    JSON("}}");
    pthread_mutex_unlock(&emu->lock);
    return off;
}
