/*
 * The replay's documented table of volatile fields. A field is volatile only
 * when its value cannot be the same outside the recorded process: pointers
 * into that process (replay substitutes its own buffers), addresses the
 * driver chose for mappings, and timestamps. Handles are NOT volatile: they
 * are compared after mapping auto-assigned/generated ones.
 */
#include "volatile.h"

#include <stddef.h>
#include <string.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_alloc_fifo.h"
#include "rm/rm.h"

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* ---- top-level argument blocks, per escape: the pointers the escape descriptor names ---- */

uint32_t replay_volatile_escape(uint32_t nr, uint32_t size, struct replay_volatile *out, uint32_t cap)
{
    const struct nv_escape_desc *d = nv_escape_desc(nr, size);
    uint32_t n = 0;
    for (unsigned i = 0; d && d->size && i < NV_ESC_MAX_PTRS && d->ptrs[i].what && n < cap; i++)
        out[n++] = (struct replay_volatile){d->ptrs[i].at, sizeof(uint64_t), d->ptrs[i].what};
    return n;
}

/* ---- control params: the control table's volatile_out column (emu/rm/rm.h) ---- */

uint32_t replay_volatile_ctrl(uint32_t cmd, const uint8_t *recorded, uint32_t len, struct replay_volatile *out,
                              uint32_t cap)
{
    const struct rm_ctrl_row *row = rm_ctrl_lookup(cmd);
    uint32_t n = 0;
    for (const struct rm_ctrl_volatile *v = row ? row->volatile_out : NULL; v && v->why && n < cap; v++) {
        if (v->relative)
            continue;
        if (!v->info_index) {
            out[n++] = (struct replay_volatile){v->off, v->len, v->why};
            continue;
        }
        if (v->off + 4 > len)
            continue;
        uint32_t count;
        memcpy(&count, recorded + v->off, 4);
        for (uint32_t i = 0; i < count && v->off + 12 + 8 * i <= len && n < cap; i++) {
            uint32_t index;
            memcpy(&index, recorded + v->off + 4 + 8 * i, 4);
            if (index == v->info_index - 1)
                out[n++] = (struct replay_volatile){v->off + 8 + 8 * i, 4, v->why};
        }
    }
    return n;
}

uint32_t replay_relative_ctrl(uint32_t cmd, uint32_t *offs, const char **why, uint32_t cap)
{
    const struct rm_ctrl_row *row = rm_ctrl_lookup(cmd);
    uint32_t n = 0;
    for (const struct rm_ctrl_volatile *v = row ? row->volatile_out : NULL; v && v->why && n < cap; v++)
        if (v->relative) {
            offs[n] = v->off;
            why[n++] = v->why;
        }
    return n;
}

/* ---- relative fields of alloc params ---- */

static const struct replay_relative channel_cid = {
    0, offsetof(NV_CHANNEL_ALLOC_PARAMS, cid), 0,
    "NV_CHANNEL_ALLOC_PARAMS.cid: the driver's global channel unique id, counted since driver load "
    "(first channel: 0x34, 0x92, 0xb3, 0xd5, 0xd6, 0x10d in the six H200 recordings)"};

uint32_t replay_relative_alloc(uint32_t hclass, const struct replay_relative **out)
{
    *out = nv_class_is(hclass, NV_CK_CHANNEL) ? &channel_cid : NULL;
    return *out ? 1 : 0;
}

/* ---- embedded pointers (docs/driver-sources.md §C/E: controls with embedded_param_copy) ---- */

uint32_t replay_embedded_ptrs(uint32_t cmd, const struct nv_ctrl_embedded **out)
{
    return nv_ctrl_embedded(cmd, out);
}
