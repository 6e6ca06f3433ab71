/*
 * libnvrm: a small client of the NVIDIA RM ioctl interface (driver 580.x).
 * Plain RM ioctls on /dev/nvidiactl and /dev/nvidiaN — nothing here is
 * emulator-specific, so a program built on it runs unchanged on the real
 * driver and, through the in-process transport (nvrm_inproc.h), inside the
 * emulator without a daemon.
 *
 * Status convention: every call returns an NV_STATUS. The RM's own status is
 * returned as is; when the ioctl system call itself fails, the result is
 * NV_ERR_OPERATING_SYSTEM and nvrm_last_errno() tells why.
 *
 * Not thread-safe per connection: use one nvrm per thread (as GPreempt does).
 */
#ifndef NVEMU_NVRM_H
#define NVEMU_NVRM_H

#include <stdbool.h>
#include <stdint.h>

#include "abi/nv_escape.h"
#include "abi/nv_status.h"

/* How a connection reaches the driver: open(2)/ioctl(2)/close(2) or a stand-in. */
struct nvrm_transport {
    /* Returns an fd, or -1 with errno set. */
    int (*open)(void *ctx, const char *path);
    /* Returns 0, or -1 with errno set (the driver still copies the argument back unless EFAULT). */
    int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
    int (*close)(void *ctx, int fd);
    void *ctx;
};

/* The real thing: open(2) with O_RDWR|O_CLOEXEC, ioctl(2) retried on EINTR/EAGAIN, close(2). */
extern const struct nvrm_transport nvrm_transport_os;

/*
 * The OS transport with the device nodes looked up in another directory
 * ("/dev/nvidiactl" -> DIR/nvidiactl): an emulator daemon's FUSE mount for a
 * statically linked program that LD_PRELOAD cannot redirect.
 */
struct nvrm_os_dir {
    struct nvrm_transport tp;     /* pass &d->tp to nvrm_open */
    char dir[240];
};
/* Fills d; dir NULL or "" = /dev. Returns 0, or -1 (ENAMETOOLONG). */
int nvrm_transport_os_dir(struct nvrm_os_dir *d, const char *dir);

typedef struct nvrm nvrm;

/*
 * Opens /dev/nvidiactl through tp (NULL = nvrm_transport_os). Returns 0, or
 * -1 with errno set (and *out NULL). The transport must outlive the connection.
 */
int nvrm_open(nvrm **out, const struct nvrm_transport *tp);
/* Closes every node this connection opened (the driver then frees its clients). */
void nvrm_close(nvrm *rm);

/* The connection's /dev/nvidiactl descriptor (what REGISTER_FD and UVM calls name). */
int nvrm_ctl_fd(const nvrm *rm);

/*
 * Opens /dev/nvidia<minor> and registers it with this connection's control fd
 * (NV_ESC_REGISTER_FD), as libcuda does before allocating a device on it.
 * Idempotent per minor. Returns 0 or -1 with errno set.
 */
int nvrm_open_gpu(nvrm *rm, uint32_t minor);

/* ---- generic RM calls ---- */

/* Allocates a client (NV01_ROOT_CLIENT). *hClient: requested handle in (0 = let RM pick), the handle out. */
NV_STATUS nvrm_alloc_client(nvrm *rm, NvHandle *hClient);

/*
 * NV_ESC_RM_ALLOC with the 48-byte NVOS64 (as libcuda issues it). *hObject:
 * requested handle in (0 = let RM pick), the handle out. params may be NULL.
 */
NV_STATUS nvrm_alloc(nvrm *rm, NvHandle hClient, NvHandle hParent, NvHandle *hObject, uint32_t hClass,
                     void *params, uint32_t params_size);

/* NV_ESC_RM_FREE (NVOS00). Freeing the client handle frees the whole client. */
NV_STATUS nvrm_free(nvrm *rm, NvHandle hClient, NvHandle hParent, NvHandle hObject);

/* NV_ESC_RM_CONTROL (NVOS54). */
NV_STATUS nvrm_control(nvrm *rm, NvHandle hClient, NvHandle hObject, uint32_t cmd, void *params, uint32_t size);

/* ---- scheduling controls (typed wrappers) ---- */

/* NVA06C (channel group) */
NV_STATUS nvrm_tsg_set_timeslice(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint64_t us);
NV_STATUS nvrm_tsg_get_timeslice(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint64_t *us);
/* level: 0 LOW, 1 MEDIUM, 2 HIGH (needs CAP_SYS_NICE on the real driver). */
NV_STATUS nvrm_tsg_set_interleave(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint32_t level);
/* wait: bWait; timeout_us > 0 sets bManualTimeout (driver maximum 1,000,000). */
NV_STATUS nvrm_tsg_preempt(nvrm *rm, NvHandle hClient, NvHandle hTsg, bool wait, uint32_t timeout_us);
/* GPFIFO_SCHEDULE on the channel group (bSkipSubmit = bSkipEnable = 0). */
NV_STATUS nvrm_tsg_schedule(nvrm *rm, NvHandle hClient, NvHandle hTsg, bool enable);
/* GET_INFO: the hardware channel-group id (grpID). */
NV_STATUS nvrm_tsg_get_info(nvrm *rm, NvHandle hClient, NvHandle hTsg, uint32_t *tsg_id);

/* NVA06F / NVC36F (channel) */
NV_STATUS nvrm_channel_get_work_submit_token(nvrm *rm, NvHandle hClient, NvHandle hChannel, uint32_t *token);
/* RESTART_RUNLIST (NICE): expires the running timeslice on the channel's runlist. */
NV_STATUS nvrm_channel_restart_runlist(nvrm *rm, NvHandle hClient, NvHandle hChannel, bool force, bool bypass_wait);

/* NV2080 (subdevice) */
#define NVRM_DISABLE_CHANNELS_MAX 64u
/*
 * FIFO_DISABLE_CHANNELS for n (<= 64) channels; hClients[i] owns hChannels[i].
 * n > 64 -> NV_ERR_INVALID_ARGUMENT without a call.
 */
NV_STATUS nvrm_disable_channels(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, bool disable, bool only_sched,
                                uint32_t n, const NvHandle *hClients, const NvHandle *hChannels);
/* FIFO_RUNLIST_SET_SCHED_POLICY (NICE): 0 DEFAULT, 1 CHANNEL_INTERLEAVED; restore releases the lock. */
NV_STATUS nvrm_set_sched_policy(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, uint32_t policy, bool restore);

/* ---- discovery (what the GPU offers) ---- */

/* NV0080 GET_CLASSLIST_V2: up to max class ids into classes[], their number into *n. */
NV_STATUS nvrm_get_classlist(nvrm *rm, NvHandle hClient, NvHandle hDevice, uint32_t *classes, uint32_t max,
                             uint32_t *n);
/* NV2080 GPU_GET_ENGINES_V2: up to max NV2080_ENGINE_TYPE_* values into engines[], their number into *n. */
NV_STATUS nvrm_get_engines(nvrm *rm, NvHandle hClient, NvHandle hSubdevice, uint32_t *engines, uint32_t max,
                           uint32_t *n);

/* ---- GPreempt's query escape (patched driver or nvemu in GPreempt-compat mode) ---- */

/* What the query returns: the channel group and its channels (NV2080 DISABLE_CHANNELS layout). */
struct nvrm_group {
    NvHandle hClient;
    NvHandle hTsg;
    uint32_t num_channels;
    NvHandle hClients[NVRM_DISABLE_CHANNELS_MAX];
    NvHandle hChannels[NVRM_DISABLE_CHANNELS_MAX];
};

/*
 * NV_ESC_RM_QUERY_GROUP (0x60) with the creator's thread id: finds the
 * 8-channel channel group that thread created. The patched driver's syscall
 * fails with EINVAL even on success (its case falls through into RM_FREE) but
 * the struct is copied back, so the result is judged by the handles: none
 * found (or a stock driver) -> NV_ERR_OBJECT_NOT_FOUND.
 */
NV_STATUS nvrm_query_group(nvrm *rm, int32_t tid, struct nvrm_group *out);

#endif
