/*
 * The resource server as its callers see it: the composition root creates it
 * with the emulator's GPUs, the dispatcher hands it decoded RM escapes, and
 * status output and fault injection read or change its state. Everything is
 * called with the emulator lock held (see core/emulator.h).
 */
#ifndef NVEMU_RM_SERVER_H
#define NVEMU_RM_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/nv_escape.h"
#include "rm/gpu.h"
#include "rm/opener.h"
#include "rm/rm.h"

/* What the server needs from the emulator, fixed at creation. */
struct rm_env {
    const struct profile *profile;   /* client-level answers (NV0000 controls) */
    struct gpu *gpus;                /* owned by the caller, live until rm_server_destroy */
    uint32_t gpu_count;
    bool gpreempt_compat;            /* GPreempt's relaxed client ownership for controls */
    uint32_t quota[3];               /* per-uid quotas by enum rm_quota_kind (rm_internal.h); 0: none */
};

/* An empty resource server, or NULL when out of memory. */
struct rm_server *rm_server_create(const struct rm_env *env);
/* Frees every client (with destructors) and every opener. */
void rm_server_destroy(struct rm_server *rs);

/* The profile client-level objects answer from. */
const struct profile *rm_server_profile(const struct rm_server *rs);

/* Live clients, objects (clients' own included) and channel groups. */
struct rm_counts {
    uint32_t clients, objects, channel_groups;
};
void rm_server_counts(const struct rm_server *rs, struct rm_counts *out);

/* Calls fn for every object below every client's root, invalidated ones included, parents before children. */
void rm_for_each_object(struct rm_server *rs, void (*fn)(const struct rm_object *o, void *arg), void *arg);

/* ---- the RM escapes' semantics (dispatch decodes the structs) ---- */

struct rm_alloc_req {
    uint32_t hroot, hparent, hnew, hclass;
    uint64_t params;        /* user pointer */
    bool legacy_memory;     /* NV_ESC_RM_ALLOC_MEMORY: NVOS02 carries no param struct */
};
/* NV_ESC_RM_ALLOC. On NV_OK req->hnew holds the handle; hclass may be rewritten (root -> 0x41). */
NV_STATUS rm_alloc(struct rm_call *c, struct rm_alloc_req *req);
NV_STATUS rm_free(struct rm_call *c, uint32_t hroot, uint32_t hobject);
NV_STATUS rm_control(struct rm_call *c, NVOS54_PARAMETERS *p, bool relaxed_owner);
NV_STATUS rm_dup(struct rm_call *c, NVOS55_PARAMETERS *p);
/* Looks up a client the caller may use: NV_ERR_INVALID_OBJECT_HANDLE / NV_ERR_INVALID_CLIENT. */
NV_STATUS rm_client_for_call(struct rm_call *c, uint32_t hclient, struct rm_client **out);
/* The client with that handle (any owner), or NULL. */
struct rm_client *rm_client_lookup(struct rm_server *rs, uint32_t handle);
/* The NVOS33 flag bits RM_MAP_MEMORY reports for o. */
uint32_t rm_object_map_flags(const struct rm_object *o);

/*
 * NV_ERR_GPU_IS_LOST (with a log line naming `what`) when o belongs to a GPU
 * that was marked lost, else NV_OK. Frees never ask.
 */
NV_STATUS rm_check_gpu(const struct rm_object *o, const char *what);

/*
 * GPreempt's group query: the channel group (not a duplicate, not lost) that
 * thread `tid` created with exactly `nchannels` live channels. When several
 * clients hold one, the lowest client handle wins. Fills the client and group
 * handles and the channels' handles in creation order; false when none.
 */
bool rm_find_group_of_thread(struct rm_server *rs, int32_t tid, uint32_t nchannels, uint32_t *hclient,
                             uint32_t *hgroup, uint32_t *hchannels);

/*
 * PREEMPT (bWait=1, timeout_ns) of channel group hgroup of client hclient at
 * kernel privilege, whoever opened the client: what gpu_ext's sleepable kfunc
 * bpf_nv_gpu_preempt_tsg issues for a policy. The statuses of the control
 * path: NV_ERR_INVALID_CLIENT, NV_ERR_OBJECT_NOT_FOUND, NV_ERR_NOT_SUPPORTED
 * (not a channel group), NV_ERR_RESOURCE_LOST, NV_ERR_GPU_IS_LOST, then fifo's
 * (NV_ERR_TIMEOUT when the wait runs out).
 */
NV_STATUS rm_kernel_preempt_tsg(struct rm_server *rs, uint32_t hclient, uint32_t hgroup, uint64_t timeout_ns);

/*
 * OS events: the driver keeps one list for the machine, so a (hClient, fd)
 * pair is unique across all fds. find: the entry of the pair or NULL. add: a
 * new entry on op; false when out of memory or op holds its limit. remove:
 * unlinks and frees one. drop_client: frees every entry of hclient (its client
 * was freed). An opener's entries go with it.
 */
struct os_event *rm_os_event_find(struct rm_server *rs, uint32_t hclient, uint32_t fd);
bool rm_os_event_add(struct rm_server *rs, nvemu_opener *op, uint32_t hclient, uint32_t hdevice, uint32_t fd);
void rm_os_event_remove(struct rm_server *rs, struct os_event *e);
void rm_os_event_drop_client(struct rm_server *rs, uint32_t hclient);

/* ---- fault injection ---- */

/*
 * The next `count` NV_ESC_RM_CONTROL calls with command `cmd` that pass every
 * generic check answer NV_ERR_BUSY_RETRY without running their handler;
 * count replaces what is pending for cmd, 0 cancels it. Logs.
 */
void rm_fault_busy_retry(struct rm_server *rs, uint32_t cmd, uint32_t count);

#endif
