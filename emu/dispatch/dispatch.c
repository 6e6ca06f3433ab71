/*
 * The dispatcher (dispatch.h): escape rows indexed by number, XFER, the node
 * and size rules, the GPU-lost rule; /dev/nvidia-uvm requests go to the UVM
 * rows (uvm_escapes.c).
 */
#include "dispatch/dispatch.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "base/log.h"
#include "profile/profile.h"
#include "dispatch/dispatch_internal.h"
#include "rm/gpu.h"
#include "rm/rm_server.h"

/* Escape rows indexed by nr, built once from the row tables (read-only afterwards). */
static const struct esc_row *esc_index[256];
static pthread_once_t esc_once = PTHREAD_ONCE_INIT;

static void add_escapes(const struct esc_row *rows)
{
    for (const struct esc_row *r = rows; r->name; r++) {
        if (esc_index[r->nr & 0xFF]) {
            LOG_ERROR("dispatch", "escape 0x%02x (%s): duplicate row ignored", r->nr, r->name);
            continue;
        }
        esc_index[r->nr & 0xFF] = r;
    }
}

static void build_esc_index(void)
{
    add_escapes(esc_rows_os);
    add_escapes(esc_rows_rm);
    add_escapes(esc_rows_workload);
}

static bool node_ok(enum esc_node rule, nvemu_node node)
{
    if (node == NVEMU_NODE_CTL)
        return rule & ESC_CTL;
    if (node == NVEMU_NODE_GPU)
        return rule & ESC_DEV;
    return rule & ESC_UVM;
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
    const struct esc_row *r = x->nr < 256 ? esc_index[x->nr] : NULL;
    if (!r || (r->gpreempt_only && !x->d->env.gpreempt_compat)) {
        LOG_INFO("dispatch", "unknown escape 0x%02x (size %u): -EINVAL", x->nr, x->size);
        return -EINVAL;
    }
    /* the release's layout: an older struct of an unmodelled escape has its own size and status word */
    enum nv_release rel = x->d->env.profile->release;
    if (r->size && x->size != nv_escape_size(rel, r->nr, r->size))
        return -EINVAL;
    if (!node_ok(r->node, x->op->node))
        return -EINVAL;
    if (!r->fn) {
        NV_STATUS st = NV_ERR_NOT_SUPPORTED;
        memcpy((unsigned char *)x->arg + nv_escape_status_at(rel, r->nr, r->status_offset), &st, sizeof(st));
        x->st = st;
        LOG_INFO("dispatch", "escape %s (0x%02x) is not modelled: NV_ERR_NOT_SUPPORTED", r->name, x->nr);
        return 0;
    }
    return r->fn(x, x->arg);
}

/*
 * nvidia_ioctl's GPU-lost rule: on the node of a lost GPU everything after the
 * open wait (WAIT_OPEN_COMPLETE) fails with -EINVAL, before XFER is decoded.
 */
static bool node_gpu_lost(const struct esc_ctx *x)
{
    if (x->op->node != NVEMU_NODE_GPU || x->nr == NV_ESC_WAIT_OPEN_COMPLETE)
        return false;
    struct gpu *g = rm_gpu(x->d->env.rs, x->op->minor);
    if (!g || !gpu_is_lost(g))
        return false;
    LOG_INFO("fault", "ioctl 0x%02x on /dev/nvidia%u: GPU lost, -EINVAL", x->nr, x->op->minor);
    return true;
}

struct dispatch *dispatch_create(const struct dispatch_env *env)
{
    pthread_once(&esc_once, build_esc_index);
    struct dispatch *d = calloc(1, sizeof(*d));
    if (d)
        d->env = *env;
    return d;
}

void dispatch_destroy(struct dispatch *d)
{
    free(d);
}

void dispatch_decode(nvemu_node node, unsigned long request, uint32_t *nr, uint32_t *size)
{
    if (node == NVEMU_NODE_UVM) {
        const struct esc_row *r = request <= UINT32_MAX ? dispatch_uvm_row((uint32_t)request) : NULL;
        *nr = r ? r->nr : UINT32_MAX;
        *size = r ? r->size : 0;
        return;
    }
    *nr = (uint32_t)(request & 0xFFu);
    *size = (uint32_t)((request >> 16) & 0x3FFFu);
}

int dispatch_ioctl(struct dispatch *d, nvemu_opener *op, uint32_t nr, uint32_t size, void *arg,
                   const nvemu_access *acc, int32_t tid, NV_STATUS *st)
{
    int rc;
    struct esc_ctx x = {d, op, acc, tid, nr, size, arg, NV_OK};
    if (op->node == NVEMU_NODE_UVM) {
        rc = dispatch_uvm(&x);
    } else {
        x.nr &= 0xFFu;
        x.size &= 0x3FFFu;
        rc = node_gpu_lost(&x) ? -EINVAL : x.nr == NV_ESC_IOCTL_XFER_CMD ? do_xfer(&x) : dispatch_escape(&x);
    }
    *st = x.st;
    return rc;
}
