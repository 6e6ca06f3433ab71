/*
 * The one entry point: nvemu_ioctl. Decodes like nvidia_ioctl (only the
 * escape number and the byte count matter), handles XFER, applies each
 * escape's node and size rule, and counts results. One coarse lock per
 * emulator (see core/emulator.h).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "core/log.h"
#include "core/emulator.h"
#include "dispatch/dispatch_internal.h"
#include "fifo/workload.h"
#include "sim/sim.h"

/* Escape rows indexed by nr, built once from the two row tables (read-only afterwards). */
static const struct esc_row *esc_index[256];
static pthread_once_t esc_once = PTHREAD_ONCE_INIT;

static void build_esc_index(void)
{
    for (const struct esc_row *r = esc_rows_os; r->name; r++)
        esc_index[r->nr & 0xFF] = r;
    for (const struct esc_row *r = esc_rows_rm; r->name; r++)
        esc_index[r->nr & 0xFF] = r;
}

static bool node_ok(enum esc_node rule, nvemu_node node)
{
    if (node == NVEMU_NODE_CTL)
        return rule & ESC_CTL;
    if (node == NVEMU_NODE_GPU)
        return rule & ESC_DEV;
    return false;
}

/* NV_ESC_IOCTL_XFER_CMD: the real argument lives at xfer.ptr; the 16-byte header is not written back. */
static int do_xfer(struct esc_ctx *x)
{
    if (x->size != sizeof(nv_ioctl_xfer_t))
        return -EINVAL;
    nv_ioctl_xfer_t xf;
    memcpy(&xf, x->arg, sizeof(xf));
    if (xf.size > NV_ABSOLUTE_MAX_IOCTL_SIZE)
        return -EINVAL;
    _Alignas(8) unsigned char inner[NV_ABSOLUTE_MAX_IOCTL_SIZE];
    if (x->acc->read(x->acc->ctx, xf.ptr, inner, xf.size) != 0)
        return -EFAULT;
    struct esc_ctx ix = *x;
    ix.nr = xf.cmd;
    ix.size = xf.size;
    ix.arg = inner;
    /* a nested XFER is not an escape the driver's switch knows */
    int rc = ix.nr == NV_ESC_IOCTL_XFER_CMD ? -EINVAL : dispatch_escape(&ix);
    x->st = ix.st;
    if (rc != -EFAULT && x->acc->write(x->acc->ctx, xf.ptr, inner, xf.size) != 0)
        rc = -EFAULT;
    return rc;
}

int dispatch_escape(struct esc_ctx *x)
{
    if (x->op->node == NVEMU_NODE_UVM) {
        LOG_INFO("dispatch", "nvidia-uvm ioctl 0x%02x is not modelled", x->nr);
        return -EINVAL;
    }
    if (x->nr == NV_ESC_RM_QUERY_GROUP)
        return x->emu->cfg.gpreempt_compat ? esc_query_group(x) : -EINVAL;
    if (x->nr >= NVEMU_ESC_PRIVATE_FIRST && x->nr <= NVEMU_ESC_PRIVATE_LAST) {
        if (x->op->node != NVEMU_NODE_CTL)
            return -EINVAL;
        return workload_escape(x->emu->wl, x->emu, x->op, x->tid, x->nr, x->size, x->arg, &x->emu->lock);
    }
    const struct esc_row *r = x->nr < 256 ? esc_index[x->nr] : NULL;
    if (!r) {
        LOG_INFO("dispatch", "unknown escape 0x%02x (size %u): -EINVAL", x->nr, x->size);
        return -EINVAL;
    }
    if (r->size && x->size != r->size)
        return -EINVAL;
    if (!node_ok(r->node, x->op->node))
        return -EINVAL;
    return r->fn(x);
}

/*
 * nvidia_ioctl's GPU-lost rule: on the node of a lost GPU everything after the
 * open wait (WAIT_OPEN_COMPLETE) fails with -EINVAL, before XFER is decoded.
 */
static bool node_gpu_lost(const struct esc_ctx *x)
{
    if (x->op->node != NVEMU_NODE_GPU || x->nr == NV_ESC_WAIT_OPEN_COMPLETE)
        return false;
    struct gpu *g = nvemu_gpu(x->emu, x->op->minor);
    if (!g || !gpu_is_lost(g))
        return false;
    LOG_INFO("fault", "ioctl 0x%02x on /dev/nvidia%u: GPU lost, -EINVAL", x->nr, x->op->minor);
    return true;
}

uint64_t nvemu_caller_caps(const nvemu_access *acc, const nvemu_opener *op)
{
    if (acc && acc->current_caps)
        return acc->current_caps(acc->ctx);
    return op->who.caps;
}

int nvemu_ioctl(nvemu *emu, nvemu_opener *op, uint32_t nr, uint32_t size, void *arg, const nvemu_access *acc)
{
    pthread_once(&esc_once, build_esc_index);
    if (!acc)
        acc = &nvemu_access_inproc;
    struct esc_ctx x = {emu, op, acc, acc->tid ? acc->tid : op->who.tid, nr & 0xFFu, size & 0x3FFFu, arg,
                        NV_OK};
    pthread_mutex_lock(&emu->lock);
    /* unmodified binaries on a REALTIME emulator: virtual time follows the wall clock */
    if (emu->cfg.clock == NVEMU_CLOCK_REALTIME)
        sim_sync_realtime(emu->sim);
    emu->ioctls++;
    int rc = node_gpu_lost(&x) ? -EINVAL : x.nr == NV_ESC_IOCTL_XFER_CMD ? do_xfer(&x) : dispatch_escape(&x);
    if (rc < 0)
        nvemu_count_error(emu, 0x80000000u | (uint32_t)-rc);
    else if (x.st != NV_OK)
        nvemu_count_error(emu, x.st);
    workload_after_ioctl(emu->wl, x.tid, &emu->lock);
    pthread_mutex_unlock(&emu->lock);
    return rc;
}
