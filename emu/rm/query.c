/*
 * Searches over every client of the server that callers outside rm need
 * (rm_server.h): GPreempt's "the group this thread created" query.
 */
#include "fifo/fifo.h"
#include "rm/rm_internal.h"

struct group_query {
    int32_t tid;
    uint32_t nchannels;
    struct rm_object *group;
    uint32_t *channels;            /* nchannels entries */
};

static uint32_t live_channels(const struct rm_object *group, uint32_t *out, uint32_t max)
{
    uint32_t n = 0;
    for (const struct rm_object *ch = group->first_child; ch; ch = ch->next_sibling)
        if (ch->family == RM_FAM_CHANNEL && !ch->lost) {
            if (n < max)
                out[n] = ch->handle;
            n++;
        }
    return n;
}

static bool search_tree(struct group_query *q, struct rm_object *top)
{
    for (struct rm_object *ch = top; (ch = rm_object_next_preorder(top, ch));)
        if (ch->family == RM_FAM_TSG && !ch->lost && ch->priv && !ch->dup_src &&
            fifo_tsg_creator_tid(ch->priv) == q->tid &&
            live_channels(ch, q->channels, q->nchannels) == q->nchannels) {
            q->group = ch;
            return true;
        }
    return false;
}

bool rm_find_group_of_thread(struct rm_server *rs, int32_t tid, uint32_t nchannels, uint32_t *hclient,
                             uint32_t *hgroup, uint32_t *hchannels)
{
    struct rm_client *best = NULL;
    for (uint32_t b = 0; b < rs->nbuckets; b++)
        for (struct rm_client *cl = rs->buckets[b]; cl; cl = cl->hash_next) {
            if (best && cl->handle >= best->handle)
                continue;
            struct group_query q = {.tid = tid, .nchannels = nchannels, .channels = hchannels};
            if (!search_tree(&q, cl->root))
                continue;
            best = cl;
            *hgroup = q.group->handle;
        }
    if (!best)
        return false;
    *hclient = best->handle;
    /* the channels of the winning group (a later, losing search may have overwritten them) */
    struct rm_object *g = rm_client_find(best, *hgroup);
    live_channels(g, hchannels, nchannels);
    return true;
}
