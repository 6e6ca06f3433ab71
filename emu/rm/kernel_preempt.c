/*
 * Requests the driver issues for itself at kernel privilege (RS_PRIV_LEVEL_KERNEL),
 * where no opener's ownership applies: gpu_ext's bpf_nv_gpu_preempt_tsg sends
 * NVA06C_CTRL_CMD_PREEMPT this way to any process's channel group.
 */
#include "fifo/fifo.h"
#include "rm/rm_internal.h"

NV_STATUS rm_kernel_preempt_tsg(struct rm_server *rs, uint32_t hclient, uint32_t hgroup, uint64_t timeout_ns)
{
    struct rm_object *o;
    NV_STATUS st = rm_find_object(rs, NULL, hclient, hgroup, &o);
    if (st != NV_OK)
        return st;
    /* a duplicate reaches the group it refers to, as a control on it would */
    struct rm_object *group = o->dup_src ? o->dup_src : o;
    struct fifo_tsg *t = rm_object_tsg(group);
    if (!t)
        return NV_ERR_NOT_SUPPORTED;
    return fifo_tsg_preempt(t, true, timeout_ns);
}
