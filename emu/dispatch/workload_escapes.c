/*
 * The emulator-private workload escapes 0xF0-0xFF on /dev/nvidiactl
 * (abi/nv_workload.h): decode the struct, resolve handles through the
 * resource server, and let the workload layer (fifo/workload.h) run or block
 * the participant in virtual time. The syscall returns 0 once the struct is
 * understood; the outcome is in its status field.
 */
#include <errno.h>
#include <string.h>

#include "base/log.h"

#include "abi/nv_workload.h"
#include "dispatch/dispatch_internal.h"
#include "fifo/fifo_rec.h"
#include "fifo/workload.h"
#include "rm/rm_server.h"
#include "sim/sim.h"

/*
 * A participant holds virtual time for every caller until it waits, so a daemon serving several users lets
 * only the allowed uid/gid take part (dispatch_env.workload_*); the others are refused with a log line.
 */
static bool wl_allowed(const struct esc_ctx *x, const char *what)
{
    const struct dispatch_env *env = &x->d->env;
    const nvemu_identity *who = &x->op->who;
    if (!env->workload_restricted || who->uid == env->workload_uid ||
        (env->workload_gid_set && who->gid == env->workload_gid))
        return true;
    LOG_INFO("dispatch", "%s from uid %u gid %u (pid %d): NV_ERR_INSUFFICIENT_PERMISSIONS (workload escapes are "
             "for uid %u%s)", what, who->uid, who->gid, who->pid, env->workload_uid,
             env->workload_gid_set ? " or its gid" : "");
    return false;
}

ESC_HANDLER(wl_register, struct nvemu_wl_register)
{
    if (!wl_allowed(x, "WL_REGISTER")) {
        p->status = NV_ERR_INSUFFICIENT_PERMISSIONS;
        return 0;
    }
    sim_sync_realtime(x->d->env.sim);
    p->status = workload_register(x->d->env.wl, x->op, x->tid, p->name, &p->participant);
    return 0;
}

ESC_HANDLER(wl_unregister, struct nvemu_wl_status)
{
    if (!wl_allowed(x, "WL_UNREGISTER")) {
        p->status = NV_ERR_INSUFFICIENT_PERMISSIONS;
        return 0;
    }
    sim_sync_realtime(x->d->env.sim);
    p->status = workload_unregister(x->d->env.wl, x->tid);
    return 0;
}

static NV_STATUS submit(struct esc_ctx *x, struct nvemu_wl_submit *a)
{
    struct fifo_kernel k = {.blocks = a->blocks, .block_ns = a->block_ns, .total_ns = a->total_ns, .tag = a->tag};
    NV_STATUS st = workload_check_kernel(&k);
    if (st != NV_OK)
        return st;
    struct rm_object *obj;
    st = rm_find_object(x->d->env.rs, x->op, a->hClient, a->hChannel, &obj);
    if (st != NV_OK)
        return st;
    struct fifo_channel *c = rm_object_channel(obj);
    if (!c)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    return workload_submit(x->d->env.wl, x->tid, c, &k, &a->kernel_id);
}

ESC_HANDLER(wl_submit, struct nvemu_wl_submit)
{
    if (!wl_allowed(x, "WL_SUBMIT")) {
        p->status = NV_ERR_INSUFFICIENT_PERMISSIONS;
        return 0;
    }
    sim_sync_realtime(x->d->env.sim);
    p->status = submit(x, p);
    return 0;
}

ESC_HANDLER(wl_wait, struct nvemu_wl_wait)
{
    if (!wl_allowed(x, "WL_WAIT")) {
        p->status = NV_ERR_INSUFFICIENT_PERMISSIONS;
        return 0;
    }
    sim_sync_realtime(x->d->env.sim);
    struct workload_done done;
    NV_STATUS st =
        workload_wait(x->d->env.wl, x->tid, p->kernel_id, p->deadline_ns, &done, x->d->env.lock, x->acc);
    /* the caller stopped waiting (signal, daemon stop): an interrupted wait, as the driver's */
    if (workload_cancelled(x->acc))
        return -EINTR;
    if (st == NV_OK || st == NV_ERR_GPU_IS_LOST) {
        p->kernel_id = done.kernel_id;
        p->tag = done.tag;
        p->done_ns = done.done_ns;
    }
    p->status = st;
    return 0;
}

ESC_HANDLER(wl_sleep, struct nvemu_wl_sleep)
{
    if (!wl_allowed(x, "WL_SLEEP")) {
        p->status = NV_ERR_INSUFFICIENT_PERMISSIONS;
        return 0;
    }
    sim_sync_realtime(x->d->env.sim);
    p->status = workload_sleep(x->d->env.wl, x->tid, p->until_ns, x->d->env.lock, x->acc);
    return workload_cancelled(x->acc) ? -EINTR : 0;
}

ESC_HANDLER(wl_now, struct nvemu_wl_now)
{
    sim_sync_realtime(x->d->env.sim);
    p->now_ns = sim_now(x->d->env.sim);
    return 0;
}

ESC_HANDLER(wl_mark, struct nvemu_wl_mark)
{
    if (!wl_allowed(x, "WL_MARK"))
        return -EPERM; /* no status field to answer in */
    sim_sync_realtime(x->d->env.sim);
    char name[sizeof(p->name) + 1];
    memcpy(name, p->name, sizeof(p->name));
    name[sizeof(p->name)] = 0;
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = p->a, .b = p->b, .name = name};
    sim_trace(x->d->env.sim, &r);
    return 0;
}

const struct esc_row esc_rows_workload[] = {
    ESC_ROW(NVEMU_ESC_WL_REGISTER, struct nvemu_wl_register, ESC_CTL, wl_register),
    ESC_ROW(NVEMU_ESC_WL_UNREGISTER, struct nvemu_wl_status, ESC_CTL, wl_unregister),
    ESC_ROW(NVEMU_ESC_WL_SUBMIT, struct nvemu_wl_submit, ESC_CTL, wl_submit),
    ESC_ROW(NVEMU_ESC_WL_WAIT, struct nvemu_wl_wait, ESC_CTL, wl_wait),
    ESC_ROW(NVEMU_ESC_WL_SLEEP, struct nvemu_wl_sleep, ESC_CTL, wl_sleep),
    ESC_ROW(NVEMU_ESC_WL_NOW, struct nvemu_wl_now, ESC_CTL, wl_now),
    ESC_ROW(NVEMU_ESC_WL_MARK, struct nvemu_wl_mark, ESC_CTL, wl_mark),
    {.name = NULL},
};
