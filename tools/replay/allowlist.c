#include "allowlist.h"

#include <stddef.h>
#include <string.h>

#include "abi/nv_escape.h"


/* NVOS55 (RM_DUP_OBJECT): hClientSrc at 12. A source client the trace never allocated is another process's. */
static bool dup_from_other_process(const struct trace_call *tc, const struct replay_allow_ctx *ax)
{
    if (tc->nr != NV_ESC_RM_DUP_OBJECT || tc->in.len < 16)
        return false;
    uint32_t src;
    memcpy(&src, tc->in.data + 12, 4);
    return !ax->own_client(ax->ctx, src);
}

static const struct replay_allowed allowed[] = {
    {"dup-from-other-process",
     "RM_DUP_OBJECT of an object another process shared (cudaIpcOpenMemHandle, RM_SHARE in the exporter): the "
     "exporting process is not part of the replay, so its client does not exist in the emulator",
     dup_from_other_process},
};

const struct replay_allowed *replay_allowed_for(const struct trace_call *tc, const struct replay_allow_ctx *ax)
{
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (allowed[i].applies(tc, ax))
            return &allowed[i];
    return NULL;
}
