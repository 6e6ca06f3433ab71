/*
 * Injected NV_ERR_BUSY_RETRY answers (rm_server.h): state of one resource
 * server, changed only under the emulator lock, so a scenario that injects
 * them at the same point gets the same answers every run.
 */
#include <stdlib.h>

#include "base/log.h"
#include "rm/rm_internal.h"

static struct busy_fault *busy_entry(struct rm_server *rs, uint32_t cmd)
{
    for (uint32_t i = 0; i < rs->nbusy; i++)
        if (rs->busy[i].cmd == cmd)
            return &rs->busy[i];
    return NULL;
}

static void busy_remove(struct rm_server *rs, struct busy_fault *b)
{
    *b = rs->busy[--rs->nbusy];
}

void rm_fault_busy_retry(struct rm_server *rs, uint32_t cmd, uint32_t count)
{
    struct busy_fault *b = busy_entry(rs, cmd);
    if (!b && count) {
        if (rs->nbusy == rs->capbusy) {
            uint32_t cap = rs->capbusy ? rs->capbusy * 2 : 8;
            struct busy_fault *v = realloc(rs->busy, cap * sizeof(*v));
            if (!v) {
                LOG_ERROR("fault", "busy_retry 0x%08x x%u: out of memory, nothing injected", cmd, count);
                return;
            }
            rs->busy = v;
            rs->capbusy = cap;
        }
        b = &rs->busy[rs->nbusy++];
        b->cmd = cmd;
    }
    if (b && count)
        b->count = count;
    else if (b)
        busy_remove(rs, b);
    LOG_INFO("fault", "busy_retry: the next %u controls 0x%08x answer NV_ERR_BUSY_RETRY", count, cmd);
}

bool rm_fault_take_busy(struct rm_server *rs, uint32_t cmd)
{
    struct busy_fault *b = rs->nbusy ? busy_entry(rs, cmd) : NULL;
    if (!b)
        return false;
    uint32_t left = --b->count;
    if (left == 0)
        busy_remove(rs, b);
    LOG_INFO("fault", "busy_retry: control 0x%08x answers NV_ERR_BUSY_RETRY (%u more)", cmd, left);
    return true;
}
