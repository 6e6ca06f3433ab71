/*
 * The emulator instance: profile, GPUs (each with its fifo model), the one
 * sim, the hook framework, the workload layer, the resource server (with the
 * openers), the dispatcher and the counters. See emulator.h for the locking
 * rule.
 */
#include "core/emulator.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/emulator_internal.h"
#include "abi/nv_escape.h"
#include "base/log.h"
#include "dispatch/dispatch.h"
#include "fifo/fifo.h"
#include "fifo/workload.h"
#include "hooks/hooks.h"
#include "rm/gpu.h"
#include "rm/rm_server.h"
#include "rm/rusd.h"
#include "sim/sim.h"

void nvemu_config_init(nvemu_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->profile = "h200";
    cfg->clock = NVEMU_CLOCK_VIRTUAL;
    cfg->seed = 1;
}

/* gpu_ext's bpf_nv_gpu_preempt_tsg: PREEMPT with bWait=1 and a 100 ms manual timeout, any status but NV_OK -> -EIO. */
static int policy_preempt_tsg(void *ctx, uint32_t hclient, uint32_t htsg, char *why, size_t len)
{
    nvemu *emu = ctx;
    NV_STATUS st = emu->rm ? rm_kernel_preempt_tsg(emu->rm, hclient, htsg, 100u * 1000u * 1000u) : NV_ERR_INVALID_STATE;
    if (st == NV_OK)
        return 0;
    snprintf(why, len, "PREEMPT of 0x%08x: %s, -EIO", htsg, nv_status_name(st));
    return -EIO;
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
    if (cfg->policy_arglist && arg_list_copy(&emu->cfg_policy_arglist, cfg->policy_arglist))
        return false;
    emu->cfg.policy_arglist = cfg->policy_arglist ? &emu->cfg_policy_arglist : NULL;
    /* Only read while the profile loads, inside nvemu_create: no copy needed. */
    emu->cfg.profile_set = NULL;
    emu->cfg.profile_nset = 0;
    emu->cfg.driver = NULL;
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
    if (cfg_in->driver && !profile_use_driver(emu->profile, cfg_in->driver, perr, sizeof(perr))) {
        fail(errbuf, errlen, "%s", perr);
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
    /* before the policy loads: its hook decisions are records too */
    fifo_rec_register(emu->sim);
    struct hooks_env env;
    fifo_hooks_env_init(&env, emu->profile, emu->sim);
    env.seed = emu->cfg.seed;
    env.watch = emu->cfg.policy_watch;
    env.preempt_tsg = policy_preempt_tsg;
    env.preempt_ctx = emu;
    emu->hooks = hooks_create(&env);
    if (!emu->hooks) {
        fail(errbuf, errlen, "%s", "cannot create the hook framework");
        goto err;
    }
    if (emu->cfg.policy_path) {
        char herr[256] = "";
        const char *path = emu->cfg.policy_path;
        int prc = emu->cfg.policy_arglist
                      ? hooks_load_policy(emu->hooks, path, emu->cfg.policy_arglist, herr, sizeof(herr))
                      : hooks_load_policy_words(emu->hooks, path, emu->cfg.policy_args, emu->cfg.policy_nargs, herr,
                                                sizeof(herr));
        if (prc != 0) {
            fail(errbuf, errlen, "%s", herr[0] ? herr : "cannot load the policy");
            goto err;
        }
        hooks_set_callback_limit(emu->hooks, (uint64_t)emu->cfg.policy_hook_limit_ms * 1000000u);
    }
    emu->gpus = calloc(emu->gpu_count, sizeof(*emu->gpus));
    if (!emu->gpus) {
        fail(errbuf, errlen, "%s", "out of memory");
        goto err;
    }
    for (uint32_t i = 0; i < emu->gpu_count; i++) {
        char gerr[128];
        if (gpu_init(&emu->gpus[i], emu->profile, i, emu->sim, emu->hooks, emu->cfg.inject_latency, gerr,
                     sizeof(gerr)) != 0) {
            fail(errbuf, errlen, "%s", gerr);
            goto err;
        }
    }
    emu->wl = workload_create(emu->sim);
    struct rm_env renv = {.profile = emu->profile, .gpus = emu->gpus, .gpu_count = emu->gpu_count,
                          .gpreempt_compat = emu->cfg.gpreempt_compat,
                          .quota = {emu->cfg.quota_clients, emu->cfg.quota_objects, emu->cfg.quota_events}};
    emu->rm = rm_server_create(&renv);
    struct dispatch_env denv = {.rs = emu->rm, .wl = emu->wl, .sim = emu->sim, .profile = emu->profile,
                                .lock = &emu->lock, .gpreempt_compat = emu->cfg.gpreempt_compat,
                                .workload_restricted = emu->cfg.workload_restricted,
                                .workload_uid = emu->cfg.workload_uid,
                                .workload_gid_set = emu->cfg.workload_gid_set,
                                .workload_gid = emu->cfg.workload_gid};
    emu->dispatch = emu->rm && emu->wl ? dispatch_create(&denv) : NULL;
    if (!emu->dispatch) {
        fail(errbuf, errlen, "%s", "out of memory");
        goto err;
    }
    return emu;
err:
    nvemu_destroy(emu);
    return NULL;
}

void nvemu_destroy(nvemu *emu)
{
    if (!emu)
        return;
    dispatch_destroy(emu->dispatch);
    /* clients first: their destructors reach into the fifo models */
    rm_server_destroy(emu->rm);
    workload_destroy(emu->wl);
    for (uint32_t i = 0; emu->gpus && i < emu->gpu_count; i++)
        gpu_fini(&emu->gpus[i]);
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
    arg_list_free(&emu->cfg_policy_arglist);
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
    pthread_mutex_lock(&emu->lock);
    nvemu_opener *op = rm_opener_open(emu->rm, emu, node, minor, who);
    pthread_mutex_unlock(&emu->lock);
    if (err)
        *err = op ? 0 : -ENOMEM;
    return op;
}

/*
 * sched:sched_process_exit as the emulator sees a process end: its last device file closed (a process that
 * exits closes them all; the daemon and the scenario runner close them when a client process ends).
 */
static void process_exit_if_last(nvemu *emu, const nvemu_identity *who)
{
    for (nvemu_opener *o = rm_openers(emu->rm); o; o = o->next)
        if (!o->closed && o->who.pid == who->pid)
            return;
    struct hook_task t = {.pid = who->pid, .tid = who->pid, .uid = who->uid, .gid = who->gid};
    memcpy(t.comm, who->comm, sizeof t.comm);
    hooks_process_exit(emu->hooks, &t);
}

void nvemu_release(nvemu *emu, nvemu_opener *op)
{
    if (!op)
        return;
    pthread_mutex_lock(&emu->lock);
    /* a participant whose process closed (or lost) the fd must not hold virtual time back */
    workload_forget_opener(emu->wl, op);
    nvemu_identity who = op->who;
    rm_opener_close(emu->rm, op);
    if (hooks_wants(emu->hooks, HOOK_EVENT_PROCESS_EXIT))
        process_exit_if_last(emu, &who);
    pthread_mutex_unlock(&emu->lock);
}

const nvemu_identity *nvemu_opener_identity(const nvemu_opener *op) { return &op->who; }
uint32_t nvemu_gpu_count(const nvemu *emu) { return emu->gpu_count; }
struct gpu *nvemu_gpu(nvemu *emu, uint32_t index) { return rm_gpu(emu->rm, index); }
const struct profile *nvemu_profile(const nvemu *emu) { return emu->profile; }
struct sim *nvemu_sim(nvemu *emu) { return emu->sim; }
struct workload *nvemu_workload(nvemu *emu) { return emu->wl; }
struct hooks *nvemu_hooks(nvemu *emu) { return emu->hooks; }
struct rm_server *nvemu_rm(nvemu *emu) { return emu->rm; }
pthread_mutex_t *nvemu_lock_of(nvemu *emu) { return &emu->lock; }

/*
 * The caller's memory as nvidia_unlocked_ioctl's probes see it: the parameter block at the caller's address
 * (as dispatched: on return it holds what is copied back), anything else through the accessor. A staged
 * accessor (the daemon's) serves the block only: a probe's read must not drop and reissue the call.
 */
struct probe_mem {
    const nvemu_access *acc;
    uint64_t addr;
    const unsigned char *block;
    uint32_t size;
};

static int probe_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    const struct probe_mem *m = ctx;
    if (addr >= m->addr && len <= m->size && addr - m->addr <= m->size - len) {
        memcpy(dst, m->block + (addr - m->addr), len);
        return 0;
    }
    if (m->acc->staged_miss)
        return -EFAULT;
    return m->acc->read(m->acc->ctx, addr, dst, len) ? -EFAULT : 0;
}

/* nvidia_unlocked_ioctl(file, cmd, arg) entry or return; /dev/nvidia-uvm has its own entry point, not probed. */
static void probe_ioctl(nvemu *emu, nvemu_opener *op, int32_t tid, bool ret, uint64_t cmd, struct probe_mem *m,
                        int rc)
{
    if (op->node == NVEMU_NODE_UVM || !hooks_wants(emu->hooks, HOOK_EVENT_IOCTL))
        return;
    struct hook_task who = {.pid = op->who.pid, .tid = tid, .uid = op->who.uid, .gid = op->who.gid};
    memcpy(who.comm, op->who.comm, sizeof who.comm);
    hooks_ioctl(emu->hooks, ret, (uint64_t)(uintptr_t)op, cmd, m->addr, rc, &who, probe_read, m);
}

static int ioctl_at(nvemu *emu, nvemu_opener *op, uint32_t nr, uint32_t size, void *arg, const nvemu_access *acc,
                    uint64_t cmd, uint64_t user_addr)
{
    int32_t tid = acc->tid ? acc->tid : op->who.tid;
    struct probe_mem pm = {acc, user_addr, arg, size};
    pthread_mutex_lock(&emu->lock);
    probe_ioctl(emu, op, tid, false, cmd, &pm, 0);
    /* unmodified binaries on a REALTIME emulator: virtual time follows the wall clock */
    if (emu->cfg.clock == NVEMU_CLOCK_REALTIME)
        sim_sync_realtime(emu->sim);
    emu->ioctls++;
    NV_STATUS st;
    /* a dropped call must not leave the latency its rows charged before the unstaged read */
    uint64_t charged_before = acc->staged_miss ? sim_take_call_charge(emu->sim) : 0;
    int rc = dispatch_ioctl(emu->dispatch, op, nr, size, arg, acc, tid, &st);
    if (acc->staged_miss && acc->staged_miss(acc->ctx)) {
        /* nothing else changed before the unstaged read: the call is issued again once the range is copied in */
        sim_take_call_charge(emu->sim);
        sim_charge_call(emu->sim, charged_before);
        emu->ioctls--;
        pthread_mutex_unlock(&emu->lock);
        return NVEMU_ERR_NOT_STAGED;
    }
    if (charged_before)
        sim_charge_call(emu->sim, charged_before);
    if (rc < 0)
        nvemu_count_error(emu, 0x80000000u | (uint32_t)-rc);
    else if (st != NV_OK)
        nvemu_count_error(emu, st);
    workload_after_ioctl(emu->wl, tid, &emu->lock, acc);
    probe_ioctl(emu, op, tid, true, cmd, &pm, rc);
    pthread_mutex_unlock(&emu->lock);
    return rc;
}

int nvemu_ioctl(nvemu *emu, nvemu_opener *op, uint32_t nr, uint32_t size, void *arg, const nvemu_access *acc)
{
    if (!acc)
        acc = &nvemu_access_inproc;
    /* the request word as the caller wrote it: _IOWR(NV_IOCTL_MAGIC, nr, size) */
    uint64_t cmd = 3ull << 30 | (uint64_t)(size & 0x3FFFu) << 16 | (uint64_t)NV_IOCTL_MAGIC << 8 | (nr & 0xFFu);
    return ioctl_at(emu, op, nr, size, arg, acc, cmd, (uint64_t)(uintptr_t)arg);
}

int nvemu_ioctl_request(nvemu *emu, nvemu_opener *op, unsigned long request, uint64_t arg, const nvemu_access *acc)
{
    if (!acc)
        acc = &nvemu_access_inproc;
    uint32_t nr, size;
    dispatch_decode(op->node, request, &nr, &size);
    /* 14 bits bound an _IOC size; the largest UVM block (MAP_EXTERNAL_ALLOCATION) is 9264 bytes */
    _Alignas(8) unsigned char buf[0x4000];
    if (size > sizeof(buf))
        return -EINVAL;
    /* the driver copies the whole block in before anything else */
    int in = acc->read(acc->ctx, arg, buf, size);
    if (in != 0)
        return in == NVEMU_ERR_NOT_STAGED ? in : -EFAULT;
    int rc = ioctl_at(emu, op, nr, size, buf, acc, request, arg);
    if (rc == NVEMU_ERR_NOT_STAGED)
        return rc;
    /* XFER's header is not written back (its result went to xfer.ptr, which may be the header itself) */
    bool xfer = op->node != NVEMU_NODE_UVM && nr == NV_ESC_IOCTL_XFER_CMD;
    if (rc != -EFAULT && !xfer && acc->write(acc->ctx, arg, buf, size) != 0)
        rc = -EFAULT;
    return rc;
}

void nvemu_wake(nvemu *emu, int32_t tid)
{
    pthread_mutex_lock(&emu->lock);
    workload_wake(emu->wl, tid);
    pthread_mutex_unlock(&emu->lock);
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
    struct rm_counts rc;
    rm_server_counts(emu->rm, &rc);
    out->openers = rm_opener_count(emu->rm);
    out->clients = rc.clients;
    out->objects = rc.objects;
    out->channel_groups = rc.channel_groups;
    pthread_mutex_unlock(&emu->lock);
}

long nvemu_user_shared_data(nvemu *emu, uint32_t gpu, void *buf, size_t len)
{
    if (gpu >= emu->gpu_count)
        return -1;
    pthread_mutex_lock(&emu->lock);
    long n = (long)rusd_page(&emu->gpus[gpu], buf, len);
    pthread_mutex_unlock(&emu->lock);
    return n;
}

struct class_count {
    uint32_t hclass, count;
};

struct count_ctx {
    struct class_count v[128];
    uint32_t n;
};

static void count_object(const struct rm_object *o, void *arg)
{
    struct count_ctx *cc = arg;
    uint32_t hclass = rm_object_class(o);
    uint32_t i = 0;
    while (i < cc->n && cc->v[i].hclass != hclass)
        i++;
    if (i == cc->n && cc->n < 128)
        cc->v[cc->n++] = (struct class_count){hclass, 0};
    if (i < cc->n)
        cc->v[i].count++;
}

static const char *node_name(nvemu_node n)
{
    return n == NVEMU_NODE_CTL ? "nvidiactl" : n == NVEMU_NODE_GPU ? "nvidia" : "nvidia-uvm";
}

struct cJSON *nvemu_status_tree(nvemu *emu)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    pthread_mutex_lock(&emu->lock);
    struct rm_counts rc;
    rm_server_counts(emu->rm, &rc);
    cJSON_AddStringToObject(root, "profile", emu->profile->name);
    cJSON_AddNumberToObject(root, "gpus", emu->gpu_count);
    cJSON_AddNumberToObject(root, "ioctls", (double)emu->ioctls);
    cJSON_AddNumberToObject(root, "errors", (double)emu->errors);
    cJSON_AddNumberToObject(root, "clients", rc.clients);
    cJSON_AddNumberToObject(root, "objects", rc.objects);
    cJSON_AddNumberToObject(root, "channel_groups", rc.channel_groups);
    cJSON *lost = cJSON_AddArrayToObject(root, "lost_gpus");
    for (uint32_t i = 0; i < emu->gpu_count; i++)
        if (gpu_is_lost(&emu->gpus[i]))
            cJSON_AddItemToArray(lost, cJSON_CreateNumber(i));
    cJSON *openers = cJSON_AddArrayToObject(root, "openers");
    for (nvemu_opener *op = rm_openers(emu->rm); op; op = op->next) {
        /* comm is the caller's: keep printable characters only, no quotes or backslashes */
        char comm[sizeof(op->who.comm) + 1];
        size_t j = 0;
        for (size_t i = 0; i < sizeof(op->who.comm) && op->who.comm[i]; i++)
            if (op->who.comm[i] >= 0x20 && op->who.comm[i] != '"' && op->who.comm[i] != '\\')
                comm[j++] = op->who.comm[i];
        comm[j] = '\0';
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "id", (double)op->serial);
        cJSON_AddStringToObject(o, "node", node_name(op->node));
        cJSON_AddNumberToObject(o, "minor", op->minor);
        cJSON_AddNumberToObject(o, "pid", op->who.pid);
        cJSON_AddNumberToObject(o, "uid", op->who.uid);
        cJSON_AddStringToObject(o, "comm", comm);
        cJSON_AddBoolToObject(o, "closed", op->closed);
        cJSON_AddItemToArray(openers, o);
    }
    struct count_ctx cc = {.n = 0};
    rm_for_each_object(emu->rm, count_object, &cc);
    cJSON *by_class = cJSON_AddObjectToObject(root, "objects_by_class");
    for (uint32_t i = 0; i < cc.n; i++) {
        char key[16];
        snprintf(key, sizeof key, "0x%04x", cc.v[i].hclass);
        cJSON_AddNumberToObject(by_class, key, cc.v[i].count);
    }
    cJSON *by_status = cJSON_AddObjectToObject(root, "errors_by_status");
    for (int i = 0; i < NVEMU_STATUS_SLOTS; i++) {
        if (!emu->by_status[i].count)
            continue;
        NV_STATUS st = emu->by_status[i].status;
        char key[32];
        if (st & 0x80000000u)
            snprintf(key, sizeof key, "errno %u", st & 0x7FFFFFFFu);
        else
            snprintf(key, sizeof key, "%s", nv_status_name(st));
        cJSON_AddNumberToObject(by_status, key, (double)emu->by_status[i].count);
    }
    pthread_mutex_unlock(&emu->lock);
    return root;
}

size_t nvemu_status_json(nvemu *emu, char *buf, size_t len)
{
    cJSON *root = nvemu_status_tree(emu);
    char *txt = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    int n = snprintf(buf, buf ? len : 0, "%s", txt ? txt : "{}");
    free(txt);
    return n > 0 ? (size_t)n : 0;
}
