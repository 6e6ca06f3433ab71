/*
 * Openers (opener.h): the server's list of live openers and the fd-close
 * rule that keeps a registered control fd alive.
 */
#include "rm/opener.h"

#include <stdlib.h>

#include "base/log.h"
#include "rm/rm_internal.h"

nvemu_opener *rm_owner_of(nvemu_opener *op)
{
    return op->ctl ? op->ctl : op;
}

uint64_t rm_caller_caps(const nvemu_access *acc, const nvemu_opener *op)
{
    if (acc && acc->current_caps)
        return acc->current_caps(acc->ctx);
    return op->who.caps;
}

nvemu_opener *rm_opener_open(struct rm_server *rs, nvemu *emu, nvemu_node node, uint32_t minor,
                             const nvemu_identity *who)
{
    nvemu_opener *op = calloc(1, sizeof(*op));
    if (!op)
        return NULL;
    op->emu = emu;
    op->node = node;
    op->minor = node == NVEMU_NODE_GPU ? minor : 0;
    if (who)
        op->who = *who;
    op->who.comm[sizeof(op->who.comm) - 1] = '\0';
    op->serial = ++rs->opener_serial;
    op->next = rs->openers;
    if (rs->openers)
        rs->openers->prev = op;
    rs->openers = op;
    rs->opener_count++;
    return op;
}

void rm_opener_free(struct rm_server *rs, nvemu_opener *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        rs->openers = op->next;
    if (op->next)
        op->next->prev = op->prev;
    NVEMU_ASSERT("rm", rs->opener_count > 0);
    rs->opener_count--;
    rm_os_event_drop_opener(rs, op);
    /* clients a failed free left behind no longer have a list to leave */
    for (struct rm_client *cl = op->clients, *next; cl; cl = next) {
        next = cl->owner_next;
        cl->owner_prev = cl->owner_next = NULL;
        cl->owner_listed = false;
    }
    /* one allocation; its export entries name objects by handle, so nothing else refers to it */
    free(op->exported);
    free(op);
}

void rm_opener_close(struct rm_server *rs, nvemu_opener *op)
{
    op->closed = true;
    while (op && op->closed && op->linked == 0) {
        nvemu_opener *ctl = op->ctl;
        rm_opener_gone(rs, op);
        rm_opener_free(rs, op);
        if (!ctl)
            break;
        NVEMU_ASSERT("rm", ctl->linked > 0); /* op was one of the fds registered to ctl */
        ctl->linked--;
        op = ctl;
    }
}

nvemu_opener *rm_openers(struct rm_server *rs) { return rs->openers; }
uint32_t rm_opener_count(const struct rm_server *rs) { return rs->opener_count; }
