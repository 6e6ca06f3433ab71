/*
 * The emulator-private workload escapes 0xF0-0xFF on /dev/nvidiactl
 * (abi/nv_workload.h): decode the struct, resolve handles through the
 * resource server, and let the workload layer (fifo/workload.h) run or block
 * the participant in virtual time. The syscall returns 0 once the struct is
 * understood; the outcome is in its status field.
 */
#include <string.h>

#include "abi/nv_workload.h"
#include "dispatch/dispatch_internal.h"
#include "fifo/workload.h"
#include "rm/rm_server.h"
#include "sim/sim.h"

static int wl_register(struct esc_ctx *x)
{
    struct nvemu_wl_register *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    a->status = workload_register(x->d->env.wl, x->op, x->tid, a->name, &a->participant);
    return 0;
}

static int wl_unregister(struct esc_ctx *x)
{
    struct nvemu_wl_status *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    a->status = workload_unregister(x->d->env.wl, x->tid);
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

static int wl_submit(struct esc_ctx *x)
{
    struct nvemu_wl_submit *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    a->status = submit(x, a);
    return 0;
}

static int wl_wait(struct esc_ctx *x)
{
    struct nvemu_wl_wait *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    struct workload_done done;
    NV_STATUS st = workload_wait(x->d->env.wl, x->tid, a->kernel_id, a->deadline_ns, &done, x->d->env.lock);
    if (st == NV_OK || st == NV_ERR_GPU_IS_LOST) {
        a->kernel_id = done.kernel_id;
        a->tag = done.tag;
        a->done_ns = done.done_ns;
    }
    a->status = st;
    return 0;
}

static int wl_sleep(struct esc_ctx *x)
{
    struct nvemu_wl_sleep *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    a->status = workload_sleep(x->d->env.wl, x->tid, a->until_ns, x->d->env.lock);
    return 0;
}

static int wl_now(struct esc_ctx *x)
{
    struct nvemu_wl_now *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    a->now_ns = sim_now(x->d->env.sim);
    return 0;
}

static int wl_mark(struct esc_ctx *x)
{
    struct nvemu_wl_mark *a = x->arg;
    sim_sync_realtime(x->d->env.sim);
    char name[sizeof(a->name) + 1];
    memcpy(name, a->name, sizeof(a->name));
    name[sizeof(a->name)] = 0;
    struct sim_rec r = {.kind = SIM_REC_MARK, .engine = SIM_NONE, .runlist = SIM_NONE, .tsg = SIM_NONE,
                        .chid = SIM_NONE, .a = a->a, .b = a->b, .name = name};
    sim_trace(x->d->env.sim, &r);
    return 0;
}

const struct esc_row esc_rows_workload[] = {
    {NVEMU_ESC_WL_REGISTER, "WL_REGISTER", sizeof(struct nvemu_wl_register), ESC_CTL, wl_register},
    {NVEMU_ESC_WL_UNREGISTER, "WL_UNREGISTER", sizeof(struct nvemu_wl_status), ESC_CTL, wl_unregister},
    {NVEMU_ESC_WL_SUBMIT, "WL_SUBMIT", sizeof(struct nvemu_wl_submit), ESC_CTL, wl_submit},
    {NVEMU_ESC_WL_WAIT, "WL_WAIT", sizeof(struct nvemu_wl_wait), ESC_CTL, wl_wait},
    {NVEMU_ESC_WL_SLEEP, "WL_SLEEP", sizeof(struct nvemu_wl_sleep), ESC_CTL, wl_sleep},
    {NVEMU_ESC_WL_NOW, "WL_NOW", sizeof(struct nvemu_wl_now), ESC_CTL, wl_now},
    {NVEMU_ESC_WL_MARK, "WL_MARK", sizeof(struct nvemu_wl_mark), ESC_CTL, wl_mark},
    {0, NULL, 0, 0, NULL},
};
