/*
 * Control rows on the core's own (non-discovery, non-FIFO) classes that the
 * libcuda trace issues. Families are coarse (RM_FAM_OTHER spans several
 * classes), so each handler also requires the object's class to be the
 * command's class, as the driver's per-class export tables do.
 */
#include <string.h>

#include "abi/nv_classes.h"
#include "abi/nv_ctrl_core.h"
#include "abi/nv_ctrl_monitoring.h"
#include "base/log.h"
#include "profile/profile.h"
#include "rm/rm_internal.h"

static bool class_matches(struct rm_call *c, uint32_t cmd)
{
    return rm_object_class(c->obj) == NV_CTRL_CMD_CLASS(cmd);
}

const struct profile *rm_call_profile(const struct rm_call *c)
{
    return c->gpu ? c->gpu->profile : rm_server_profile(c->rs);
}

NVEMU_TYPED_EXTERN_FN(NV_STATUS, rm_ctrl_canned, struct rm_call *, c, void, params)
{
    const struct profile *p = rm_call_profile(c);
    uint32_t size = c->params_size;
    bool have_cmd = false;
    for (uint32_t i = 0; p && i < p->canned_count; i++) {
        const struct profile_canned_ctrl *k = &p->canned[i];
        if (k->cmd != c->cmd || k->size != size)
            continue;
        have_cmd = true;
        /* the loader makes in_size equal size */
        if (k->in && memcmp(k->in, params, size) != 0)
            continue;
        if (k->status != NV_OK)
            return k->status;
        memcpy(params, k->out, size);
        return NV_OK;
    }
    LOG_WARN("rm", "control 0x%08x: profile %s has no recorded answer %s", c->cmd, p ? p->name : "?",
             have_cmd ? "for this input" : "(not modelled)");
    return NV_ERR_NOT_SUPPORTED;
}

/* Recorded controls on a coarse family: only the command's own class answers. */
NVEMU_TYPED_EXTERN_FN(NV_STATUS, rm_ctrl_canned_on_class, struct rm_call *, c, void, p)
{
    return class_matches(c, c->cmd) ? rm_ctrl_canned(c, p) : NV_ERR_NOT_SUPPORTED;
}

/*
 * The token: the driver (CliAddThirdPartyP2PVASpace, gpu/bus/third_party_p2p.c, 580.x) takes the first of
 * 0xFE00..0xFEFF that its per-object map lacks, but that map is keyed by VA-space handle, so the first candidate
 * is free and every registration answers 0xFE00: every recording does, two objects of one process and two
 * processes at once included (fixtures/hw/h200-580.159.04/programs2 trace-nccl-p1 lines 196-197;
 * programs3-heldout trace-pool-share-p1 and -p0). A client that chose a VA-space handle in that range would
 * see the next one; not modelled.
 */
#define P2P_TOKEN_FIRST 0xFE00u

RM_CTRL_HANDLER(p2p_register_va_space, NV503C_CTRL_REGISTER_VA_SPACE_PARAMS)
{
    if (!class_matches(c, NV503C_CTRL_CMD_REGISTER_VA_SPACE))
        return NV_ERR_NOT_SUPPORTED;
    struct rm_object *va = rm_client_find(c->client, p->hVASpace);
    if (!va || rm_object_family(va) != RM_FAM_VASPACE)
        return NV_ERR_OBJECT_NOT_FOUND;
    p->vaSpaceToken = P2P_TOKEN_FIRST;
    return NV_OK;
}

/* REGISTER_VIDMEM / UNREGISTER_VIDMEM: the memory must exist. */
static NV_STATUS p2p_vidmem(struct rm_call *c, uint32_t cmd, uint32_t hmem)
{
    if (!class_matches(c, cmd))
        return NV_ERR_NOT_SUPPORTED;
    struct rm_object *m = rm_client_find(c->client, hmem);
    if (!m || rm_object_family(m) != RM_FAM_MEMORY)
        return NV_ERR_OBJECT_NOT_FOUND;
    return NV_OK;
}

RM_CTRL_HANDLER(p2p_register_vidmem, NV503C_CTRL_REGISTER_VIDMEM_PARAMS)
{
    return p2p_vidmem(c, NV503C_CTRL_CMD_REGISTER_VIDMEM, p->hMemory);
}

RM_CTRL_HANDLER(p2p_unregister_vidmem, NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS)
{
    return p2p_vidmem(c, NV503C_CTRL_CMD_UNREGISTER_VIDMEM, p->hMemory);
}

/* Debugger exception mask: accepted, no debugger is modelled. */
RM_CTRL_HANDLER(debugger_set_exception_mask, NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS)
{
    return class_matches(c, NV83DE_CTRL_CMD_DEBUG_SET_EXCEPTION_MASK) ? NV_OK : NV_ERR_NOT_SUPPORTED;
}

#define NP RM_PRIV_USER
#define OTHER RM_FAM_OTHER
const struct rm_ctrl_row rm_ctrl_rows_core[] = {
    RM_CTRL_RECORDED(NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES, OTHER, rm_ctrl_canned_on_class),
    RM_CTRL_RECORDED(NV90E6_CTRL_CMD_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK, OTHER,
                     rm_ctrl_canned_on_class),
    RM_CTRL(NV503C_CTRL_CMD_REGISTER_VA_SPACE, NV503C_CTRL_REGISTER_VA_SPACE_PARAMS, OTHER, NP,
            p2p_register_va_space),
    RM_CTRL(NV503C_CTRL_CMD_REGISTER_VIDMEM, NV503C_CTRL_REGISTER_VIDMEM_PARAMS, OTHER, NP, p2p_register_vidmem),
    RM_CTRL(NV503C_CTRL_CMD_UNREGISTER_VIDMEM, NV503C_CTRL_UNREGISTER_VIDMEM_PARAMS, OTHER, NP,
            p2p_unregister_vidmem),
    RM_CTRL(NV83DE_CTRL_CMD_DEBUG_SET_EXCEPTION_MASK, NV83DE_CTRL_DEBUG_SET_EXCEPTION_MASK_PARAMS, OTHER, NP,
            debugger_set_exception_mask),
    RM_CTRL_RECORDED(NV2081_CTRL_CMD_UNPUBLISHED_0108, OTHER, rm_ctrl_canned_on_class),
    {.name = NULL},
};
