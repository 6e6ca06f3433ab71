/*
 * GPreempt-compat NV_ESC_RM_QUERY_GROUP (0x60), fact sheet J and issue 3.
 * Input: NVOS54 with hClient = a thread id and params = optional pointer to
 * an NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS. Finds the channel group that
 * thread created with exactly 8 channels and returns its client and handle.
 *
 * The patch's bugs are fixed here, on purpose:
 * - no fall-through into RM_FREE: the syscall returns 0 and the result is in
 *   `status` (the patch returned -1/EINVAL with the struct copied back);
 * - no global "last client that allocated an Ampere channel": every client of
 *   this emulator is searched;
 * - channels of every channel class count (the patch only tracked 0xC56F).
 * The size must be the NVOS54 size (the patch read 32 bytes without checking).
 */
#include <errno.h>
#include <string.h>

#include "core/log.h"
#include "dispatch/dispatch_internal.h"
#include "fifo/fifo.h"
#include "rm/rm_internal.h"

#define GPREEMPT_GROUP_CHANNELS 8u
#define DISABLE_CHANNELS_MAX 64u

struct disable_channels_params {
    uint8_t bDisable;
    uint32_t numChannels;
    uint8_t bOnlyDisableScheduling;
    uint8_t bRewindGpPut;
    NvP64 pRunlistPreemptEvent;
    NvHandle hClientList[DISABLE_CHANNELS_MAX];
    NvHandle hChannelList[DISABLE_CHANNELS_MAX];
};
NV_ASSERT_LAYOUT(struct disable_channels_params, 536, 8);
NV_ASSERT_OFF(struct disable_channels_params, numChannels, 4);
NV_ASSERT_OFF(struct disable_channels_params, bOnlyDisableScheduling, 8);
NV_ASSERT_OFF(struct disable_channels_params, pRunlistPreemptEvent, 16);
NV_ASSERT_OFF(struct disable_channels_params, hClientList, 24);
NV_ASSERT_OFF(struct disable_channels_params, hChannelList, 280);

struct query {
    int32_t tid;
    struct rm_object *tsg;
    uint32_t channels[GPREEMPT_GROUP_CHANNELS];
};

static uint32_t channel_children(struct rm_object *tsg, uint32_t *out)
{
    uint32_t n = 0;
    for (struct rm_object *ch = tsg->first_child; ch; ch = ch->next_sibling)
        if (ch->family == RM_FAM_CHANNEL && !ch->lost) {
            if (n < GPREEMPT_GROUP_CHANNELS)
                out[n] = ch->handle;
            n++;
        }
    return n;
}

static bool search_tree(struct query *q, struct rm_object *top)
{
    for (struct rm_object *ch = top; (ch = rm_object_next_preorder(top, ch));)
        if (ch->family == RM_FAM_TSG && !ch->lost && ch->priv && !ch->dup_src &&
            fifo_tsg_creator_tid(ch->priv) == q->tid &&
            channel_children(ch, q->channels) == GPREEMPT_GROUP_CHANNELS) {
            q->tsg = ch;
            return true;
        }
    return false;
}

static bool search_client(struct rm_client *cl, void *arg)
{
    struct query *q = arg;
    struct query mine = {.tid = q->tid};
    if (search_tree(&mine, cl->root) && (!q->tsg || cl->handle < q->tsg->client->handle))
        *q = mine;
    return true;
}

int esc_query_group(struct esc_ctx *x)
{
    if (x->size != sizeof(NVOS54_PARAMETERS))
        return -EINVAL;
    NVOS54_PARAMETERS *p = x->arg;
    struct query q = {.tid = (int32_t)p->hClient};
    rm_for_each_client(x->emu->rm, search_client, &q);
    if (!q.tsg) {
        p->status = x->st = NV_ERR_OBJECT_NOT_FOUND;
        return 0;
    }
    uint32_t hclient = q.tsg->client->handle;
    p->hClient = hclient;
    p->hObject = q.tsg->handle;
    NV_STATUS st = NV_OK;
    if (p->params) {
        struct disable_channels_params d;
        if (x->acc->read(x->acc->ctx, p->params, &d, sizeof(d)) != 0) {
            st = NV_ERR_INVALID_ADDRESS;
        } else {
            d.numChannels = GPREEMPT_GROUP_CHANNELS;
            for (uint32_t i = 0; i < GPREEMPT_GROUP_CHANNELS; i++) {
                d.hClientList[i] = hclient;
                d.hChannelList[i] = q.channels[i];
            }
            if (x->acc->write(x->acc->ctx, p->params, &d, sizeof(d)) != 0)
                st = NV_ERR_INVALID_ADDRESS;
        }
    }
    p->status = x->st = st;
    return 0;
}
