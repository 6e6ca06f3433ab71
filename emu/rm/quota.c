/*
 * Per-uid quotas on resource-server state (rm_internal.h): clients, objects
 * and event objects one uid may hold at once. The driver refuses an
 * allocation it has no room for with NV_ERR_INSUFFICIENT_RESOURCES; here the
 * room is shared by every local user of one daemon, so each uid gets its own
 * share and one user's millions of events cannot take the daemon's memory (or
 * stall every caller while they are freed).
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/log.h"
#include "rm/rm_internal.h"

static struct rm_quota_use *find(struct rm_server *rs, uint32_t uid, bool add)
{
    for (uint32_t i = 0; i < rs->nquota; i++)
        if (rs->quota[i].uid == uid)
            return &rs->quota[i];
    if (!add)
        return NULL;
    if (rs->nquota == rs->capquota) {
        uint32_t cap = rs->capquota ? rs->capquota * 2 : 8;
        struct rm_quota_use *q = realloc(rs->quota, cap * sizeof(*q));
        if (!q)
            return NULL;
        rs->quota = q;
        rs->capquota = cap;
    }
    rs->quota[rs->nquota] = (struct rm_quota_use){.uid = uid};
    return &rs->quota[rs->nquota++];
}

/* 0: no quota (a program serving its own emulator; the daemon sets them) */
static uint32_t limit_of(const struct rm_server *rs, enum rm_quota_kind k)
{
    uint32_t set = rs->env.quota[k];
    return set ? set : UINT32_MAX;
}

static const char *const kind_name[RM_QUOTA_KINDS] = {"clients", "objects", "events"};

NV_STATUS rm_quota_check(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k)
{
    const struct rm_quota_use *q = find(rs, uid, false);
    uint32_t used = q ? q->used[k] : 0;
    if (used < limit_of(rs, k))
        return NV_OK;
    LOG_INFO("rm", "uid %u holds %u %s (its quota): NV_ERR_INSUFFICIENT_RESOURCES", uid, used, kind_name[k]);
    return NV_ERR_INSUFFICIENT_RESOURCES;
}

void rm_quota_charge(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k)
{
    struct rm_quota_use *q = find(rs, uid, true);
    if (q)
        q->used[k]++;
}

void rm_quota_uncharge(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k)
{
    struct rm_quota_use *q = find(rs, uid, false);
    if (!q || q->used[k] == 0)
        return;
    q->used[k]--;
    for (int i = 0; i < RM_QUOTA_KINDS; i++)
        if (q->used[i])
            return;
    /* a uid holding nothing leaves the table, so it stays as long as the users holding state */
    *q = rs->quota[--rs->nquota];
}

uint32_t rm_quota_used(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k)
{
    const struct rm_quota_use *q = find(rs, uid, false);
    return q ? q->used[k] : 0;
}
