/*
 * The control path (NV_ESC_RM_CONTROL): generic checks in the driver's order
 * (docs/driver-sources.md §E), parameter copy with the 1 MiB cap, copy-out only on NV_OK.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

/*
 * Privilege and access rights (step 7), with the caller's capabilities at call
 * time; they are asked for only when the row needs a right.
 */
static NV_STATUS check_privilege(const struct rm_ctrl_row *row, const struct rm_call *c)
{
    switch (row->priv) {
    case RM_PRIV_USER:
        return NV_OK;
    case RM_PRIV_NICE:
        return (rm_caller_caps(c->acc, c->op) & (NVEMU_CAP_SYS_NICE | NVEMU_CAP_SYS_ADMIN))
                   ? NV_OK
                   : NV_ERR_INSUFFICIENT_PERMISSIONS;
    case RM_PRIV_ADMIN:
        return (rm_caller_caps(c->acc, c->op) & NVEMU_CAP_SYS_ADMIN) ? NV_OK : NV_ERR_INSUFFICIENT_PERMISSIONS;
    case RM_PRIV_INTERNAL:
        return NV_ERR_NOT_SUPPORTED;
    }
    return NV_ERR_INSUFFICIENT_PERMISSIONS; /* a row without a privilege is kernel-only */
}

NV_STATUS rm_control(struct rm_call *c, NVOS54_PARAMETERS *p, bool relaxed_owner)
{
    if (p->flags & (NVOS54_FLAGS_IRQL_RAISED | NVOS54_FLAGS_LOCK_BYPASS))
        return NV_ERR_INVALID_ARGUMENT;
    if (p->cmd == 0 || (p->cmd & 0xFFFFu) == 0)
        return NV_OK;

    struct rm_client *cl = rm_client_lookup(c->rs, p->hClient);
    if (!cl)
        return NV_ERR_INVALID_CLIENT;

    if ((p->params == 0) != (p->paramsSize == 0) || p->paramsSize > RMAPI_PARAM_COPY_MAX_PARAMS_SIZE)
        return NV_ERR_INVALID_ARGUMENT;
    const struct rm_ctrl_row *row = rm_ctrl_lookup(p->cmd);
    /* the release's layout of the params: a control it lacks is unknown, an older layout maps onto the row's */
    struct nv_layout_map lay = {0};
    if (row) {
        lay = nv_ctrl_layout(c->rs->env.profile->release, p->cmd, row->param_size);
        if (lay.absent)
            row = NULL;
    }
    if (row && lay.size != p->paramsSize)
        return NV_ERR_INVALID_ARGUMENT;

    if (!rm_client_usable(cl, c->op, relaxed_owner))
        return NV_ERR_INVALID_CLIENT;
    struct rm_object *o = (p->hObject == cl->handle) ? cl->root : rm_client_find(cl, p->hObject);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (o->lost)
        return NV_ERR_RESOURCE_LOST;
    NV_STATUS st = rm_check_gpu(o, "control");
    if (st != NV_OK)
        return st;
    if (!row || !(row->families & o->family)) {
        LOG_INFO("rm", "control 0x%08x on 0x%08x (class 0x%04x): not supported", p->cmd, p->hObject,
                 rm_object_class(o));
        return NV_ERR_NOT_SUPPORTED;
    }

    /* small params live on the stack: the dispatch fast path must not allocate */
    _Alignas(8) unsigned char small[256];
    void *params = NULL;
    if (p->paramsSize) {
        params = p->paramsSize <= sizeof(small) ? small : malloc(p->paramsSize);
        if (!params)
            return NV_ERR_NO_MEMORY;
        if (c->acc->read(c->acc->ctx, p->params, params, p->paramsSize) != 0) {
            if (params != small)
                free(params);
            return NV_ERR_INVALID_ADDRESS;
        }
    }
    /* an older release's params: the handler sees the row's layout, the caller gets its own back */
    _Alignas(8) unsigned char small_base[256];
    void *base = NULL, *hp = params;
    if (lay.gap && params) {
        base = row->param_size <= sizeof(small_base) ? small_base : malloc(row->param_size);
        if (!base) {
            if (params != small)
                free(params);
            return NV_ERR_NO_MEMORY;
        }
        nv_layout_to_base(&lay, params, base, row->param_size);
        hp = base;
    }
    st = check_privilege(row, c);
    if (st == NV_OK && rm_fault_take_busy(c->rs, p->cmd)) {
        st = NV_ERR_BUSY_RETRY; /* injected: the handler does not run, nothing is copied out */
    } else if (st == NV_OK) {
        struct rm_call cc = *c;
        cc.client = cl;
        cc.obj = o->dup_src ? o->dup_src : o;
        cc.gpu = o->gpu;
        cc.cmd = p->cmd;
        cc.params_size = hp != params ? row->param_size : p->paramsSize;
        if (cc.gpu)
            rm_charge_latency(cc.gpu, row->latency);
        st = row->handler(&cc, hp);
        if (hp != params)
            nv_layout_from_base(&lay, hp, params);
        if ((st == NV_OK || (row->flags & RM_CTRL_COPYOUT_ON_ERROR)) && p->paramsSize &&
            c->acc->write(c->acc->ctx, p->params, params, p->paramsSize) != 0)
            st = NV_ERR_INVALID_ADDRESS;
    }
    if (base && base != small_base)
        free(base);
    if (params && params != small)
        free(params);
    return st;
}
