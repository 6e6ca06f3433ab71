/*
 * Requests the driver issues for itself at kernel privilege (RS_PRIV_LEVEL_KERNEL),
 * where no opener's ownership applies: gpu_ext's bpf_nv_gpu_preempt_tsg sends
 * NVA06C_CTRL_CMD_PREEMPT this way to any process's channel group.
 */
#include "fifo/fifo.h"
#include "rm/rm_internal.h"

NV_STATUS rm_kernel_preempt_tsg(struct rm_server *rs, uint32_t hclient, uint32_t hgroup, uint64_t timeout_ns)
{
    struct rm_client *cl = rm_client_lookup(rs, hclient);
    if (!cl)
        return NV_ERR_INVALID_CLIENT;
    struct rm_object *o = rm_client_find(cl, hgroup);
    if (!o)
        return NV_ERR_OBJECT_NOT_FOUND;
    if (o->lost)
        return NV_ERR_RESOURCE_LOST;
    /* a duplicate reaches the group it refers to, as a control on it would */
    struct rm_object *group = o->dup_src ? o->dup_src : o;
    struct fifo_tsg *t = rm_object_tsg(group);
    if (!t)
        return NV_ERR_NOT_SUPPORTED;
    NV_STATUS st = rm_check_gpu(group, "kernel PREEMPT");
    if (st != NV_OK)
        return st;
    return fifo_tsg_preempt(t, true, timeout_ns);
}
