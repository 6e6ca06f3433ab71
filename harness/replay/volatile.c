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

#include "rm/rm.h"

#define N(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

/* ---- top-level argument blocks, per escape ---- */

static const struct replay_volatile v_alloc32[] = {
    {16, 8, "NVOS21.pAllocParms: pointer into the recorded process"},
};
static const struct replay_volatile v_alloc48[] = {
    {16, 8, "NVOS64.pAllocParms: pointer into the recorded process"},
    {24, 8, "NVOS64.pRightsRequested: pointer into the recorded process"},
};
static const struct replay_volatile v_control[] = {
    {16, 8, "NVOS54.params: pointer into the recorded process"},
};
static const struct replay_volatile v_map_memory[] = {
    {32, 8, "NVOS33.pLinearAddress: mapping address chosen by the driver"},
};
static const struct replay_volatile v_update_mapping[] = {
    {16, 8, "NVOS56.pOldCpuAddress: mapping address of the recorded process"},
    {24, 8, "NVOS56.pNewCpuAddress: mapping address of the recorded process"},
};

struct esc_row {
    uint32_t nr, size;
    const struct replay_volatile *v;
    uint32_t n;
};

static const struct esc_row esc_rows[] = {
    {0x2B, 32, v_alloc32, N(v_alloc32)},
    {0x2B, 48, v_alloc48, N(v_alloc48)},
    {0x2A, 32, v_control, N(v_control)},
    {0x4E, 56, v_map_memory, N(v_map_memory)},
    {0x5E, 40, v_update_mapping, N(v_update_mapping)},
};

uint32_t replay_volatile_escape(uint32_t nr, uint32_t size, const struct replay_volatile **out)
{
    for (uint32_t i = 0; i < N(esc_rows); i++)
        if (esc_rows[i].nr == nr && esc_rows[i].size == size) {
            *out = esc_rows[i].v;
            return esc_rows[i].n;
        }
    *out = NULL;
    return 0;
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

#define CHANNEL_CID(cls)                                                                                   \
    {cls, 132, 0,                                                                                            \
     "NV_CHANNEL_ALLOC_PARAMS.cid: the driver's global channel unique id, counted since driver load "       \
     "(first channel: 0x34, 0x92, 0xb3, 0xd5, 0xd6, 0x10d in the six H200 recordings)"}

static const struct replay_relative relative_rows[] = {
    CHANNEL_CID(0xC36F), CHANNEL_CID(0xC46F), CHANNEL_CID(0xC56F),
    CHANNEL_CID(0xC86F), CHANNEL_CID(0xC96F), CHANNEL_CID(0xCA6F),
};

uint32_t replay_relative_alloc(uint32_t hclass, const struct replay_relative **out)
{
    for (uint32_t i = 0; i < N(relative_rows); i++)
        if (relative_rows[i].hclass == hclass) {
            *out = &relative_rows[i];
            return 1;
        }
    *out = NULL;
    return 0;
}

/* ---- embedded pointers (docs/driver-sources.md §C/E: controls with embedded_param_copy) ---- */

static const struct replay_embedded embedded_rows[] = {
    {0x00000101, 8, 0, 1, "SYSTEM_GET_BUILD_VERSION.pDriverVersionBuffer[sizeOfStrings]"},
    {0x00000101, 16, 0, 1, "SYSTEM_GET_BUILD_VERSION.pVersionBuffer[sizeOfStrings]"},
    {0x00000101, 24, 0, 1, "SYSTEM_GET_BUILD_VERSION.pTitleBuffer[sizeOfStrings]"},
    {0x00800201, 8, 0, 4, "GPU_GET_CLASSLIST.classList[numClasses]"},
    {0x0080170D, 8, 0, 4, "FIFO_GET_CHANNELLIST.pChannelHandleList[numChannels]"},
    {0x0080170D, 16, 0, 4, "FIFO_GET_CHANNELLIST.pChannelList[numChannels]"},
    {0x20801201, 8, 0, 8, "GR_GET_INFO.grInfoList[grInfoListSize]"},
};

uint32_t replay_embedded_ptrs(uint32_t cmd, const struct replay_embedded **out)
{
    uint32_t first = N(embedded_rows), n = 0;
    for (uint32_t i = 0; i < N(embedded_rows); i++)
        if (embedded_rows[i].cmd == cmd) {
            if (first == N(embedded_rows))
                first = i;
            n++;
        }
    *out = n ? &embedded_rows[first] : NULL;
    return n;
}
