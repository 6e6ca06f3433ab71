/*
 * The alloc, free and dup paths of the resource server (docs/driver-sources.md §D and H):
 * client handles, per-client handle rules, parent rules, single instance,
 * profile class lists, parameter copy sized by the class table, ownership.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_abi_desc.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

static bool is_root_class(uint32_t hclass)
{
    return hclass == NV01_ROOT || hclass == NV01_ROOT_NON_PRIV || hclass == NV01_ROOT_CLIENT;
}

NV_STATUS rm_client_for_call(struct rm_call *c, uint32_t hclient, struct rm_client **out)
{
    struct rm_client *cl = rm_client_lookup(c->rs, hclient);
    if (!cl)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    if (!rm_client_usable(cl, c->op, false))
        return NV_ERR_INVALID_CLIENT;
    *out = cl;
    return NV_OK;
}

static NV_STATUS alloc_client(struct rm_call *c, struct rm_alloc_req *req)
{
    struct rm_server *rs = c->rs;
    uint32_t handle = req->hroot;
    if (handle != 0) {
        if (rm_client_lookup(rs, handle))
            return NV_ERR_INSERT_DUPLICATE_NAME;
    } else {
        /* the driver's counter wraps at 0xFFFFF and skips handles in use */
        for (uint32_t tries = 0;; tries++) {
            if (tries > RM_CLIENT_INDEX_MASK)
                return NV_ERR_INSUFFICIENT_RESOURCES;
            uint32_t h = RM_CLIENT_HANDLE_BASE | (rs->client_index & RM_CLIENT_INDEX_MASK);
            rs->client_index = (rs->client_index + 1) & RM_CLIENT_INDEX_MASK;
            if (!rm_client_lookup(rs, h)) {
                handle = h;
                break;
            }
        }
    }
    nvemu_opener *owner = rm_owner_of(c->op);
    NV_STATUS st = rm_quota_check(rs, owner->who.uid, RM_QUOTA_CLIENT);
    if (st != NV_OK)
        return st;
    struct rm_client *cl = rm_client_new(rs, handle, owner);
    if (!cl)
        return NV_ERR_NO_MEMORY;
    /* only the 4-byte hClient of NV0000_ALLOC_PARAMETERS is copied back */
    if (req->params && c->acc->write(c->acc->ctx, req->params, &handle, sizeof(handle)) != 0) {
        struct rm_call fc = *c;
        fc.client = cl;
        rm_object_free_tree(&fc, cl->root);
        return NV_ERR_INVALID_ADDRESS;
    }
    req->hnew = handle;
    return NV_OK;
}

static bool has_child_of_class(struct rm_object *parent, uint32_t hclass)
{
    for (struct rm_object *ch = parent->first_child; ch; ch = ch->next_sibling)
        if (ch->hclass == hclass)
            return true;
    return false;
}

/* Checks a caller-chosen child handle (docs/driver-sources.md §H). */
/*
 * Checks a caller-chosen child handle. Recorded on the H200: the client's own
 * handle -> INVALID_OBJECT_PARENT; handles in the generated range are accepted.
 */
static NV_STATUS check_new_handle(struct rm_client *cl, uint32_t h)
{
    if (h == cl->handle)
        return NV_ERR_INVALID_OBJECT_PARENT;
    if (rm_client_find(cl, h))
        return NV_ERR_INSERT_DUPLICATE_NAME;
    return NV_OK;
}

/* Creates the object and runs its constructor; on failure nothing stays behind. */
/* Room for one more object of family `family` in the quota of cl's uid. */
static NV_STATUS quota_room(struct rm_client *cl, uint32_t family)
{
    NV_STATUS st = rm_quota_check(cl->rs, cl->creator_uid, RM_QUOTA_OBJECT);
    if (st == NV_OK && family == RM_FAM_EVENT)
        st = rm_quota_check(cl->rs, cl->creator_uid, RM_QUOTA_EVENT);
    return st;
}

static NV_STATUS create_object(struct rm_call *c, struct rm_client *cl, struct rm_object *parent, uint32_t handle,
                               const struct rm_class_row *row, void *params, struct rm_object **out)
{
    NV_STATUS qst = quota_room(cl, row->family);
    if (qst != NV_OK)
        return qst;
    struct rm_object *o = rm_object_new(cl, parent, handle, row);
    if (!o)
        return NV_ERR_NO_MEMORY;
    struct rm_call cc = *c;
    cc.client = cl;
    cc.obj = parent;
    cc.gpu = parent->gpu;
    NV_STATUS st = row->construct ? row->construct(&cc, o, params) : NV_OK;
    if (st != NV_OK) {
        /* a constructor that failed after attaching class state gets its destructor */
        o->constructed = o->priv != NULL;
        rm_object_free_tree(&cc, o);
        return st;
    }
    o->constructed = true;
    if (cc.gpu)
        rm_charge_latency(cc.gpu, row->latency);
    if (o->family == RM_FAM_DEVICE && o->gpu && o->gpu->index < NV0080_MAX_DEVICES)
        c->rs->devices_per_gpu[o->gpu->index]++;
    *out = o;
    return NV_OK;
}

NV_STATUS rm_alloc(struct rm_call *c, struct rm_alloc_req *req)
{
    if (is_root_class(req->hclass)) {
        req->hclass = NV01_ROOT_CLIENT;
        return alloc_client(c, req);
    }
    const struct rm_class_row *row = rm_class_lookup(req->hclass);
    if (!row || row->internal_only ||
        (row->proprietary_only && c->rs->env.profile->kernel_module != PROFILE_MODULE_PROPRIETARY))
        return NV_ERR_INVALID_CLASS;

    _Alignas(8) unsigned char buf[512], older[512];
    void *params = NULL;
    /* the release's layout of the params (an older one is the row's type with fields missing) */
    struct nv_layout_map lay = nv_class_layout(c->rs->env.profile->release, row->hclass, row->param_size);
    if (row->params != RM_PARAMS_NONE && row->param_size > 0 && !req->legacy_memory) {
        if (req->params == 0) {
            if (row->params == RM_PARAMS_REQUIRED)
                return NV_ERR_INVALID_ARGUMENT;
        } else {
            if (row->param_size > sizeof(buf)) {
                LOG_ERROR("rm", "class 0x%04x: param size %u exceeds the alloc buffer", row->hclass,
                          row->param_size);
                return NV_ERR_NOT_SUPPORTED;
            }
            if (c->acc->read(c->acc->ctx, req->params, lay.gap ? older : buf, lay.size) != 0)
                return NV_ERR_INVALID_ADDRESS;
            if (lay.gap)
                nv_layout_to_base(&lay, older, buf, row->param_size);
            params = buf;
        }
    }

    struct rm_client *cl;
    NV_STATUS st = rm_client_for_call(c, req->hroot, &cl);
    if (st != NV_OK)
        return st;
    struct rm_object *parent = cl->root;
    if (req->hparent != 0 && req->hparent != cl->handle) {
        parent = rm_client_find(cl, req->hparent);
        if (!parent)
            return NV_ERR_OBJECT_NOT_FOUND;
        if (parent->lost)
            return NV_ERR_RESOURCE_LOST;
        if ((st = rm_check_gpu(parent, "alloc")) != NV_OK)
            return st;
    }
    if (!(parent->family & row->parents))
        return NV_ERR_INVALID_OBJECT_PARENT;

    uint32_t handle = req->hnew;
    if (handle == 0) {
        handle = rm_client_generate_handle(cl);
        if (handle == 0)
            return NV_ERR_INSUFFICIENT_RESOURCES;
    } else if ((st = check_new_handle(cl, handle)) != NV_OK) {
        return st;
    }
    if (row->single_instance && has_child_of_class(parent, row->hclass))
        return NV_ERR_STATE_IN_USE;
    if (row->gpu_class && parent->gpu && !gpu_has_class(parent->gpu, row->hclass))
        return NV_ERR_NOT_SUPPORTED;

    struct rm_object *o;
    st = create_object(c, cl, parent, handle, row, params, &o);
    if (st != NV_OK)
        return st;
    if (params && lay.gap)
        nv_layout_from_base(&lay, buf, older);
    if (params && c->acc->write(c->acc->ctx, req->params, lay.gap ? older : params, lay.size) != 0) {
        struct rm_call fc = *c;
        fc.client = cl;
        rm_object_free_tree(&fc, o);
        return NV_ERR_INVALID_ADDRESS;
    }
    req->hnew = handle;
    return NV_OK;
}

NV_STATUS rm_alloc_internal(struct rm_call *c, struct rm_object *parent, uint32_t hclass, void *params,
                            struct rm_object **out)
{
    const struct rm_class_row *row = rm_class_lookup(hclass);
    if (!row || !parent)
        return NV_ERR_INVALID_CLASS;
    struct rm_client *cl = parent->client;
    uint32_t handle = rm_client_generate_handle(cl);
    if (handle == 0)
        return NV_ERR_INSUFFICIENT_RESOURCES;
    struct rm_object *o;
    NV_STATUS st = create_object(c, cl, parent, handle, row, params, &o);
    if (st == NV_OK && out)
        *out = o;
    return st;
}

NV_STATUS rm_free(struct rm_call *c, uint32_t hroot, uint32_t hobject)
{
    struct rm_client *cl;
    NV_STATUS st = rm_client_for_call(c, hroot, &cl);
    if (st != NV_OK)
        return st;
    struct rm_object *o = (hobject == cl->handle) ? cl->root : rm_client_find(cl, hobject);
    if (!o) {
        LOG_DEBUG("rm", "free of unknown object 0x%08x in client 0x%08x: no-op", hobject, hroot);
        return NV_OK;
    }
    c->client = cl;
    rm_object_free_tree(c, o);
    return NV_OK;
}

NV_STATUS rm_find_object(struct rm_server *rs, nvemu_opener *op, uint32_t hclient, uint32_t hobject, struct rm_object **out)
{
    struct rm_client *cl = rm_client_lookup(rs, hclient);
    if (!cl || (op && !rm_client_usable(cl, op, rs->env.gpreempt_compat)))
        return NV_ERR_INVALID_CLIENT;
    struct rm_object *o = rm_client_find(cl, hobject);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (o->lost)
        return NV_ERR_RESOURCE_LOST;
    NV_STATUS st = rm_check_gpu(o, "call");
    if (st != NV_OK)
        return st;
    *out = o;
    return NV_OK;
}

NV_STATUS rm_object_for_call(struct rm_call *c, uint32_t hclient, uint32_t hobject, uint32_t families,
                             const char *what, struct rm_object **out)
{
    struct rm_client *cl;
    NV_STATUS st = rm_client_for_call(c, hclient, &cl);
    if (st != NV_OK)
        return st;
    struct rm_object *o = hobject == cl->handle ? cl->root : rm_client_find(cl, hobject);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (o->lost)
        return NV_ERR_RESOURCE_LOST;
    if ((st = rm_check_gpu(o, what)) != NV_OK)
        return st;
    if (!(o->family & families))
        return NV_ERR_INVALID_OBJECT_HANDLE;
    if (out)
        *out = o->dup_src ? o->dup_src : o;
    return NV_OK;
}

/*
 * DUP_OBJECT: the new object refers to the source (class, family, class state
 * and controls act on the source). Deviation from the driver, documented: the
 * driver keeps a shared resource alive until its last reference goes; here
 * freeing the source frees its duplicates first (they are its dependants).
 */
NV_STATUS rm_dup(struct rm_call *c, NVOS55_PARAMETERS *p)
{
    struct rm_client *dst, *src;
    NV_STATUS st = rm_client_for_call(c, p->hClient, &dst);
    if (st != NV_OK)
        return st;
    if ((st = rm_client_for_call(c, p->hClientSrc, &src)) != NV_OK)
        return st;
    struct rm_object *so = rm_client_find(src, p->hObjectSrc);
    if (!so)
        return NV_ERR_OBJECT_NOT_FOUND;
    uint32_t handle = p->hObject;
    if ((st = rm_dup_into(c, dst, p->hParent, &handle, so)) == NV_OK)
        p->hObject = handle;
    return st;
}

NV_STATUS rm_dup_into(struct rm_call *c, struct rm_client *dst, uint32_t hparent, uint32_t *hobject,
                      struct rm_object *so)
{
    NV_STATUS st;
    if (so->lost)
        return NV_ERR_RESOURCE_LOST;
    while (so->dup_src)
        so = so->dup_src;
    if ((st = rm_check_gpu(so, "dup")) != NV_OK)
        return st;
    if (so->family == RM_FAM_CLIENT)
        return NV_ERR_INVALID_OBJECT_OLD;
    struct rm_object *parent = (hparent == 0 || hparent == dst->handle) ? dst->root : rm_client_find(dst, hparent);
    if (!parent)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (parent->lost)
        return NV_ERR_RESOURCE_LOST;
    if (!(parent->family & so->row->parents))
        return NV_ERR_INVALID_OBJECT_PARENT;
    uint32_t handle = *hobject;
    if (handle == 0) {
        handle = rm_client_generate_handle(dst);
        if (handle == 0)
            return NV_ERR_INSUFFICIENT_RESOURCES;
    } else if ((st = check_new_handle(dst, handle)) != NV_OK) {
        return st;
    }
    if ((st = quota_room(dst, so->row->family)) != NV_OK)
        return st;
    struct rm_object *o = rm_object_new(dst, parent, handle, so->row);
    if (!o)
        return NV_ERR_NO_MEMORY;
    o->dup_src = so;
    o->gpu = so->gpu;
    o->constructed = true;
    if ((st = rm_add_dependant(so, o)) != NV_OK) {
        struct rm_call fc = *c;
        fc.client = dst;
        rm_object_free_tree(&fc, o);
        return st;
    }
    *hobject = handle;
    return NV_OK;
}

struct owned {
    nvemu_opener *op;
    uint32_t *handles;
    uint32_t n, cap;
    bool oom;
};

static bool collect_owned(struct rm_client *cl, void *arg)
{
    struct owned *w = arg;
    if (w->n == w->cap) {
        uint32_t nc = w->cap ? w->cap * 2 : 16;
        uint32_t *nh = realloc(w->handles, nc * sizeof(*nh));
        if (!nh) {
            w->oom = true;
            return false;
        }
        w->handles = nh;
        w->cap = nc;
    }
    w->handles[w->n++] = cl->handle;
    return true;
}

/*
 * One pass over the opener's own clients collects their handles, then each
 * is freed by handle (a free may take other objects with it): linear in the
 * opener's clients, where a walk of the server's whole client table (every
 * bucket, every other opener's clients) made each close cost what everyone
 * holds.
 */
void rm_opener_gone(struct rm_server *rs, nvemu_opener *op)
{
    struct rm_call c = {.rs = rs, .op = op, .acc = &nvemu_access_inproc};
    for (;;) {
        struct owned w = {.op = op};
        for (struct rm_client *cl = op->clients; cl && collect_owned(cl, &w); cl = cl->owner_next)
            ;
        for (uint32_t i = 0; i < w.n; i++) {
            struct rm_client *cl = rm_client_lookup(rs, w.handles[i]);
            if (cl && cl->owner == op) {
                c.client = cl;
                rm_object_free_tree(&c, cl->root);
            }
        }
        free(w.handles);
        if (!w.oom || w.n == 0)
            break;
    }
}
