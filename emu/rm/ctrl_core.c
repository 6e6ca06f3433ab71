/*
 * Control rows on the core's own (non-discovery, non-FIFO) classes that the
 * libcuda trace issues. Families are coarse (RM_FAM_OTHER spans several
 * classes), so each handler also requires the object's class to be the
 * command's class, as the driver's per-class export tables do.
 */
#include <string.h>

#include "abi/nv_classes.h"
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

NV_STATUS rm_ctrl_canned(struct rm_call *c, void *params, uint32_t size)
{
    const struct profile *p = rm_call_profile(c);
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

/* Canned controls on a coarse family: only the command's own class answers. */
static NV_STATUS canned_on_class(struct rm_call *c, void *params, uint32_t size)
{
    return class_matches(c, c->cmd) ? rm_ctrl_canned(c, params, size) : NV_ERR_NOT_SUPPORTED;
}

/* NV503C_CTRL_REGISTER_VA_SPACE_PARAMS: hVASpace @0, vaSpaceToken @8 (out). */
struct nv503c_register_va_space {
    uint32_t hVASpace;
    uint32_t pad;
    uint64_t vaSpaceToken;
};
_Static_assert(sizeof(struct nv503c_register_va_space) == 16, "NV503C_CTRL_REGISTER_VA_SPACE_PARAMS");

/* First token as recorded on the H200; further registrations get distinct tokens. */
#define P2P_TOKEN_BASE 0xFE00u
#define P2P_TOKEN_STRIDE 0x100u

static NV_STATUS p2p_register_va_space(struct rm_call *c, void *params, uint32_t size)
{
    (void)size;
    if (!class_matches(c, 0x503C0102u))
        return NV_ERR_NOT_SUPPORTED;
    struct nv503c_register_va_space *p = params;
    struct rm_object *va = rm_client_find(c->client, p->hVASpace);
    if (!va || rm_object_family(va) != RM_FAM_VASPACE)
        return NV_ERR_OBJECT_NOT_FOUND;
    p->vaSpaceToken = P2P_TOKEN_BASE + P2P_TOKEN_STRIDE * c->rs->p2p_tokens++;
    return NV_OK;
}

/* REGISTER_VIDMEM {hMemory @0, offset, size, address} / UNREGISTER_VIDMEM {hMemory}: memory must exist. */
static NV_STATUS p2p_vidmem(struct rm_call *c, uint32_t cmd, const void *params)
{
    if (!class_matches(c, cmd))
        return NV_ERR_NOT_SUPPORTED;
    uint32_t hmem;
    memcpy(&hmem, params, sizeof(hmem));
    struct rm_object *m = rm_client_find(c->client, hmem);
    if (!m || rm_object_family(m) != RM_FAM_MEMORY)
        return NV_ERR_OBJECT_NOT_FOUND;
    return NV_OK;
}

static NV_STATUS p2p_register_vidmem(struct rm_call *c, void *params, uint32_t size)
{
    (void)size;
    return p2p_vidmem(c, 0x503C0104u, params);
}

static NV_STATUS p2p_unregister_vidmem(struct rm_call *c, void *params, uint32_t size)
{
    (void)size;
    return p2p_vidmem(c, 0x503C0105u, params);
}

/* Debugger exception mask: accepted, no debugger is modelled. */
static NV_STATUS debugger_set_exception_mask(struct rm_call *c, void *params, uint32_t size)
{
    (void)params;
    (void)size;
    return class_matches(c, 0x83DE0309u) ? NV_OK : NV_ERR_NOT_SUPPORTED;
}

#define NP RM_CTRL_NON_PRIVILEGED
const struct rm_ctrl_row rm_ctrl_rows_core[] = {
    {.cmd = 0xCB330101u, .name = "NV_CONF_COMPUTE_CTRL_CMD_SYSTEM_GET_CAPABILITIES", .param_size = 6,
        .families = RM_FAM_OTHER, .flags = NP | RM_CTRL_CANNED, .handler = canned_on_class},
    {.cmd = 0x90E60102u, .name = "NV90E6_CTRL_CMD_MASTER_GET_VIRTUAL_FUNCTION_ERROR_CONT_INTR_MASK", .param_size = 8,
        .families = RM_FAM_OTHER, .flags = NP | RM_CTRL_CANNED, .handler = canned_on_class},
    {.cmd = 0x503C0102u, .name = "NV503C_CTRL_CMD_REGISTER_VA_SPACE", .param_size = 16, .families = RM_FAM_OTHER,
        .flags = NP, .handler = p2p_register_va_space},
    {.cmd = 0x503C0104u, .name = "NV503C_CTRL_CMD_REGISTER_VIDMEM", .param_size = 32, .families = RM_FAM_OTHER,
        .flags = NP, .handler = p2p_register_vidmem},
    {.cmd = 0x503C0105u, .name = "NV503C_CTRL_CMD_UNREGISTER_VIDMEM", .param_size = 4, .families = RM_FAM_OTHER,
        .flags = NP, .handler = p2p_unregister_vidmem},
    {.cmd = 0x83DE0309u, .name = "NV83DE_CTRL_CMD_DEBUG_SET_EXCEPTION_MASK", .param_size = 4,
        .families = RM_FAM_OTHER, .flags = NP, .handler = debugger_set_exception_mask},
    {.cmd = 0x20810108u, .name = "NV2081_CTRL_CMD_BINAPI (0x0108)", .param_size = 992, .families = RM_FAM_OTHER,
        .flags = NP | RM_CTRL_CANNED, .handler = canned_on_class},
    {.name = NULL},
};
