/*
 * FIFO classes: KEPLER_CHANNEL_GROUP_A (TSG), FERMI_CONTEXT_SHARE_A
 * (subcontext) and the *_CHANNEL_GPFIFO_* channels, with the construction
 * rules of docs/driver-sources.md §D. Object priv: struct fifo_tsg * for TSGs,
 * struct fifo_channel * for channels, struct ctxshare_rm * for context shares.
 * A constructor that fails after rm_object_set_priv gets its destructor from
 * the registry (rm.h), so the destructors accept partial state.
 */
#include <stdlib.h>
#include <string.h>

#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_engine.h"
#include "base/log.h"
#include "fifo/fifo.h"
#include "rm/gpu.h"
#include "rm/opener.h"
#include "rm/rm_internal.h"

#define COMP "rm.fifo"
#define CTX_UNSET  0
#define CTX_LEGACY 1   /* channels without a context share */
#define CTX_SHARED 2   /* channels naming a FERMI_CONTEXT_SHARE_A */

/* RM-side state of a TSG, hung on the fifo TSG (fifo_tsg_user). */
struct tsg_rm {
    struct rm_object *obj;       /* the KEPLER_CHANNEL_GROUP_A object */
    struct rm_object *kgr;       /* KERNEL_GRAPHICS_CONTEXT of a GR TSG */
    uint64_t veids;              /* subcontext ids in use */
    int ctx_mode;
    bool rm_allocated;           /* implicit TSG of a channel allocated under a device */
};

struct ctxshare_rm {
    struct fifo_tsg *tsg;
    uint32_t veid;
};

static struct fifo *fifo_of(struct rm_call *c)
{
    return c->gpu ? gpu_fifo(c->gpu) : NULL;
}

/* A handle of the caller's client that must name an object of `fam`. */
static NV_STATUS find_of_family(struct rm_call *c, uint32_t h, enum rm_family fam, struct rm_object **out)
{
    struct rm_object *o = rm_client_find(c->client, h);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (rm_object_family(o) != fam)
        return NV_ERR_INVALID_OBJECT_HANDLE;
    *out = o;
    return NV_OK;
}

/*
 * The driver's system-wide channel unique id (NV_CHANNEL_ALLOC_PARAMS.cid,
 * ++currentChannelUniqueId in kernel_channel.c): one counter for every GPU
 * and client of the resource server, over the GPU profile's channel_uid_first.
 * Every recording skips exactly one id per channel group between the last
 * channel of one group and the first of the next (two interleaved processes
 * included); the consumer is not visible in the open kernel RM, so the model
 * takes that id when the group is created.
 */
static uint32_t channel_uid_next(struct rm_call *c, const struct fifo *f)
{
    return fifo_profile(f)->channel_uid_first + (uint32_t)c->rs->channel_uids++;
}

/* ---- KEPLER_CHANNEL_GROUP_A ---- */

static NV_STATUS tsg_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    const NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS *p = params;
    struct fifo *f = fifo_of(c);
    if (!f)
        return NV_ERR_INVALID_STATE;
    const struct profile *prof = fifo_profile(f);
    uint32_t engine = p->engineType;
    /* with per-runlist channel RAM in HW the driver needs a valid engine type (H200: NULL -> 0x1f) even
     * when the ID spaces are global; older chips take an unset type as the default (GR0) runlist */
    if (engine == NV2080_ENGINE_TYPE_NULL) {
        if (prof->per_runlist_chram_hw)
            return NV_ERR_INVALID_ARGUMENT;
        engine = NV2080_ENGINE_TYPE_GR0;
    }

    struct rm_object *vas = NULL;
    if (p->hVASpace) {
        NV_STATUS st = find_of_family(c, p->hVASpace, RM_FAM_VASPACE, &vas);
        if (st != NV_OK)
            return st;
    }
    struct tsg_rm *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return NV_ERR_NO_MEMORY;

    struct fifo_creator who = {0};
    const nvemu_identity *id = c->op ? &c->op->who : NULL;
    if (id) {
        who.pid = id->pid;
        who.tid = id->tid;
        who.uid = id->uid;
        who.gid = id->gid;
        memcpy(who.comm, id->comm, sizeof(who.comm));
    }
    if (c->tid)
        who.tid = c->tid;
    who.hclient = rm_client_handle(c->client);
    who.htsg = rm_object_handle(obj);

    struct fifo_tsg *t;
    NV_STATUS st = fifo_tsg_create(f, engine, &who, &t);
    if (st != NV_OK) {
        free(rs);
        return st;
    }
    channel_uid_next(c, f); /* the id each channel group uses up */
    rs->obj = obj;
    fifo_tsg_set_user(t, rs);
    rm_object_set_priv(obj, t);
    if (vas && (st = rm_add_dependant(vas, obj)) != NV_OK)
        return st;
    if (NV2080_ENGINE_TYPE_IS_GR(engine)) {
        st = rm_alloc_internal(c, obj, KERNEL_GRAPHICS_CONTEXT, NULL, &rs->kgr);
        if (st != NV_OK)
            return st;
    }
    return NV_OK;
}

static void tsg_destruct(struct rm_call *c, struct rm_object *obj)
{
    (void)c;
    struct fifo_tsg *t = rm_object_priv(obj);
    if (!t)
        return;
    free(fifo_tsg_user(t));
    fifo_tsg_destroy(t);
    rm_object_set_priv(obj, NULL);
}

/* ---- FERMI_CONTEXT_SHARE_A ---- */

static bool veid_alloc(struct tsg_rm *rs, uint32_t mode, uint32_t want, uint32_t max, uint32_t *out)
{
    switch (mode) {
    case NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SYNC:
        want = 0;
        break;
    case NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SPECIFIED:
        break;
    case NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_ASYNC:
        /* async subcontexts come from the top (the H200 trace: first one gets 63) */
        for (uint32_t v = max; v-- > 1;) {
            if (!(rs->veids & (1ull << v))) {
                want = v;
                goto take;
            }
        }
        return false;
    default:
        for (uint32_t v = 1; v < max; v++) {
            if (!(rs->veids & (1ull << v))) {
                want = v;
                goto take;
            }
        }
        return false;
    }
    if (want >= max || (rs->veids & (1ull << want)))
        return false;
take:
    rs->veids |= 1ull << want;
    *out = want;
    return true;
}

static NV_STATUS ctxshare_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    NV_CTXSHARE_ALLOCATION_PARAMETERS *p = params;
    struct fifo_tsg *t = rm_object_priv(c->obj);
    struct fifo *f = fifo_of(c);
    if (!t || !f)
        return NV_ERR_INVALID_OBJECT_PARENT;
    struct tsg_rm *rs = fifo_tsg_user(t);
    struct rm_object *vas = NULL;
    if (p->hVASpace) {
        NV_STATUS st = find_of_family(c, p->hVASpace, RM_FAM_VASPACE, &vas);
        if (st != NV_OK)
            return st;
        if (!rm_vaspace_usable(vas)) {
            LOG_INFO("rm", "context share on VA space 0x%x before its UVM registration: NV_ERR_INVALID_STATE",
                     p->hVASpace);
            return NV_ERR_INVALID_STATE;
        }
    }
    uint32_t max = fifo_profile(f)->max_subcontexts;
    if (max > 64)
        max = 64;
    uint32_t mode = NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT(p->flags), veid;
    if (!veid_alloc(rs, mode, p->subctxId, max, &veid))
        return mode == NV_CTXSHARE_ALLOCATION_FLAGS_SUBCONTEXT_SPECIFIED && p->subctxId >= max
                   ? NV_ERR_INVALID_ARGUMENT
                   : NV_ERR_INSUFFICIENT_RESOURCES;
    struct ctxshare_rm *cs = malloc(sizeof(*cs));
    if (!cs) {
        rs->veids &= ~(1ull << veid);
        return NV_ERR_NO_MEMORY;
    }
    cs->tsg = t;
    cs->veid = veid;
    rm_object_set_priv(obj, cs);
    p->subctxId = veid;
    NV_STATUS st = NV_OK;
    if (vas)
        st = rm_add_dependant(vas, obj);
    if (st == NV_OK && rs->kgr)
        st = rm_add_dependant(rs->kgr, obj);
    return st;
}

static void ctxshare_destruct(struct rm_call *c, struct rm_object *obj)
{
    (void)c;
    struct ctxshare_rm *cs = rm_object_priv(obj);
    if (!cs)
        return;
    struct tsg_rm *rs = fifo_tsg_user(cs->tsg);
    rs->veids &= ~(1ull << cs->veid);
    free(cs);
    rm_object_set_priv(obj, NULL);
}

/* ---- *_CHANNEL_GPFIFO_* ---- */

/* Channel under a device: RM allocates a TSG for it (bAllocatedByRm) and names it in hPhysChannelGroup. */
static NV_STATUS implicit_tsg(struct rm_call *c, NV_CHANNEL_ALLOC_PARAMS *p, struct rm_object **tsg_obj)
{
    if (p->hContextShare)
        return NV_ERR_INVALID_ARGUMENT;
    /* the driver hands the channel's engine type to the TSG as is; the TSG rules decide */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp = {.hVASpace = p->hVASpace, .engineType = p->engineType};
    NV_STATUS st = rm_alloc_internal(c, c->obj, KEPLER_CHANNEL_GROUP_A, &gp, tsg_obj);
    if (st != NV_OK)
        return st;
    struct fifo_tsg *t = rm_object_priv(*tsg_obj);
    ((struct tsg_rm *)fifo_tsg_user(t))->rm_allocated = true;
    p->hPhysChannelGroup = rm_object_handle(*tsg_obj);
    return NV_OK;
}

/* Checks the subcontext rules of a channel under a TSG; *ctx gets the named context share or NULL. */
static NV_STATUS channel_ctx_rules(struct rm_call *c, struct rm_object *tsg_obj, const NV_CHANNEL_ALLOC_PARAMS *p,
                                   struct rm_object **ctx)
{
    struct tsg_rm *rs = fifo_tsg_user(rm_object_priv(tsg_obj));
    *ctx = NULL;
    if (p->hVASpace)
        return NV_ERR_INVALID_ARGUMENT;
    if (p->hContextShare) {
        NV_STATUS st = find_of_family(c, p->hContextShare, RM_FAM_CTXSHARE, ctx);
        if (st != NV_OK)
            return st;
        if (rm_object_parent(*ctx) != tsg_obj)
            return NV_ERR_INVALID_ARGUMENT;
    }
    int mode = *ctx ? CTX_SHARED : CTX_LEGACY;
    if (rs->ctx_mode != CTX_UNSET && rs->ctx_mode != mode)
        return NV_ERR_INVALID_ARGUMENT;
    rs->ctx_mode = mode;
    return NV_OK;
}

static NV_STATUS channel_construct(struct rm_call *c, struct rm_object *obj, void *params)
{
    NV_CHANNEL_ALLOC_PARAMS *p = params;
    struct fifo *f = fifo_of(c);
    if (!f)
        return NV_ERR_INVALID_STATE;
    struct rm_object *tsg_obj = c->obj, *ctx = NULL, *vas = NULL;
    NV_STATUS st;
    /* the driver takes the unique id first, so a channel that fails later still uses one up */
    p->cid = channel_uid_next(c, f);
    /* kernel RM clears the handle of the implicit TSG before it (maybe) writes one */
    p->hPhysChannelGroup = 0;
    if (rm_object_family(c->obj) == RM_FAM_DEVICE) {
        if (p->hVASpace && (st = find_of_family(c, p->hVASpace, RM_FAM_VASPACE, &vas)) != NV_OK)
            return st;
        if ((st = implicit_tsg(c, p, &tsg_obj)) != NV_OK)
            return st;
    } else if ((st = channel_ctx_rules(c, tsg_obj, p, &ctx)) != NV_OK) {
        return st;
    }
    struct fifo_tsg *t = rm_object_priv(tsg_obj);
    struct fifo_channel *ch;
    st = fifo_channel_create(t, rm_object_handle(obj), (p->flags & NVOS04_FLAGS_DELAY_CHANNEL_SCHEDULING) != 0, &ch);
    if (st != NV_OK) {
        if (tsg_obj != c->obj)
            rm_free_later(c, tsg_obj);
        return st;
    }
    rm_object_set_priv(obj, ch);
    struct tsg_rm *rs = fifo_tsg_user(t);
    if (tsg_obj != c->obj)
        st = rm_add_dependant(tsg_obj, obj);
    if (st == NV_OK && vas)
        st = rm_add_dependant(vas, obj);
    if (st == NV_OK && ctx)
        st = rm_add_dependant(ctx, obj);
    if (st == NV_OK && rs->kgr)
        st = rm_add_dependant(rs->kgr, obj);
    return st;
}

static void channel_destruct(struct rm_call *c, struct rm_object *obj)
{
    struct fifo_channel *ch = rm_object_priv(obj);
    if (!ch)
        return;
    struct tsg_rm *rs = fifo_tsg_user(fifo_channel_tsg(ch));
    fifo_channel_destroy(ch);
    rm_object_set_priv(obj, NULL);
    /* the RM-allocated TSG of a channel under a device exists only for that channel */
    if (rs && rs->rm_allocated)
        rm_free_later(c, rs->obj);
}

/* Every channel class: the same columns under its own symbol. */
#define CHANNEL_ROW(sym)                                                                                  \
    RM_CLASS_NAMED(sym, #sym, NV_CHANNEL_ALLOC_PARAMS, .params = RM_PARAMS_REQUIRED,                       \
                   .parents = RM_FAM_DEVICE | RM_FAM_TSG, .family = RM_FAM_CHANNEL, .gpu_class = true,     \
                   .modelled = true, .free_priority = RM_FREE_PRIO_HIGH, .latency = RM_LAT_CHANNEL_ALLOC,  \
                   .construct = channel_construct, .destruct = channel_destruct)

const struct rm_class_row rm_class_rows_fifo[] = {
    RM_CLASS(KEPLER_CHANNEL_GROUP_A, NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS, .params = RM_PARAMS_REQUIRED,
     .parents = RM_FAM_DEVICE, .family = RM_FAM_TSG, .gpu_class = true, .modelled = true,
     .free_priority = RM_FREE_PRIO_TSG, .latency = RM_LAT_TSG_ALLOC, .construct = tsg_construct,
     .destruct = tsg_destruct),
    RM_CLASS(FERMI_CONTEXT_SHARE_A, NV_CTXSHARE_ALLOCATION_PARAMETERS, .params = RM_PARAMS_REQUIRED,
     .parents = RM_FAM_TSG, .family = RM_FAM_CTXSHARE, .gpu_class = true, .modelled = true,
     .free_priority = RM_FREE_PRIO_DEFAULT, .construct = ctxshare_construct, .destruct = ctxshare_destruct),
    CHANNEL_ROW(VOLTA_CHANNEL_GPFIFO_A),
    CHANNEL_ROW(TURING_CHANNEL_GPFIFO_A),
    CHANNEL_ROW(AMPERE_CHANNEL_GPFIFO_A),
    CHANNEL_ROW(HOPPER_CHANNEL_GPFIFO_A),
    CHANNEL_ROW(BLACKWELL_CHANNEL_GPFIFO_A),
    CHANNEL_ROW(BLACKWELL_CHANNEL_GPFIFO_B),
    {.name = NULL},
};
