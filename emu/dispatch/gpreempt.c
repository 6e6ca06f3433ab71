/*
 * GPreempt-compat NV_ESC_RM_QUERY_GROUP (0x60), docs/driver-sources.md §J and issue 3.
 * Input: NVOS54 with hClient = a thread id and params = optional pointer to
 * an NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS. Finds the channel group that
 * thread created with exactly 8 channels and returns its client and handle.
 *
 * The patch's bugs are fixed here, on purpose:
 * - no fall-through into RM_FREE: the syscall returns 0 and the result is in
 *   `status` (the patch returned -1/EINVAL with the struct copied back);
 * - no global "last client that allocated an Ampere channel": every client of
 *   this emulator is searched;
 * - channels of every channel class count (the patch only tracked AMPERE_CHANNEL_GPFIFO_A).
 * The size must be the NVOS54 size (the patch read 32 bytes without checking): the row says so.
 */
#include "abi/nv_ctrl_fifo.h"
#include "dispatch/dispatch_internal.h"
#include "rm/rm_server.h"

#define GPREEMPT_GROUP_CHANNELS 8u

NVEMU_TYPED_EXTERN_FN(int, esc_query_group, struct esc_ctx *, x, NVOS54_PARAMETERS, p)
{
    uint32_t hclient, hgroup, channels[GPREEMPT_GROUP_CHANNELS];
    if (!rm_find_group_of_thread(x->d->env.rs, (int32_t)p->hClient, GPREEMPT_GROUP_CHANNELS, &hclient, &hgroup,
                                 channels)) {
        p->status = x->st = NV_ERR_OBJECT_NOT_FOUND;
        return 0;
    }
    p->hClient = hclient;
    p->hObject = hgroup;
    NV_STATUS st = NV_OK;
    if (p->params) {
        NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS d;
        if (x->acc->read(x->acc->ctx, p->params, &d, sizeof(d)) != 0) {
            st = NV_ERR_INVALID_ADDRESS;
        } else {
            d.numChannels = GPREEMPT_GROUP_CHANNELS;
            for (uint32_t i = 0; i < GPREEMPT_GROUP_CHANNELS; i++) {
                d.hClientList[i] = hclient;
                d.hChannelList[i] = channels[i];
            }
            if (x->acc->write(x->acc->ctx, p->params, &d, sizeof(d)) != 0)
                st = NV_ERR_INVALID_ADDRESS;
        }
    }
    p->status = x->st = st;
    return 0;
}
