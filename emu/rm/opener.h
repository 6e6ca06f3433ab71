/*
 * The opener: one open() of one node, the caller as the resource server sees
 * it (the driver's nv_file_private_t, which RM's client ownership checks and
 * the device factory's "GPU node open" check refer to). The resource server
 * keeps the list of live openers; the dispatcher reads and changes the
 * OS-layer fields (REGISTER_FD target, OS events, GPU references).
 */
#ifndef NVEMU_RM_OPENER_H
#define NVEMU_RM_OPENER_H

#include <stdbool.h>
#include <stdint.h>

#include "nvemu/nvemu.h"

struct rm_server;
struct rm_export_fd;

/*
 * An (hClient, fd) pair registered with ALLOC_OS_EVENT on an opener. Linked
 * three ways: on its opener (freed with it), and in the server's two hash
 * tables, by pair (find) and by hClient (freed with the client).
 */
struct os_event {
    uint32_t hclient;
    uint32_t hdevice;
    uint32_t fd;
    nvemu_opener *owner;
    struct os_event *op_next, **op_pprev;
    struct os_event *pair_next, **pair_pprev;
    struct os_event *cl_next, **cl_pprev;
};

/* Most OS events one fd may hold (the driver has no limit; past it, NV_ERR_INSUFFICIENT_RESOURCES). */
#define NVEMU_OS_EVENTS_PER_FD 16384u

struct nvemu_opener {
    nvemu *emu;                    /* the emulator it was opened on (opaque here) */
    nvemu_node node;
    uint32_t minor;
    nvemu_identity who;
    uint64_t serial;               /* open order, for status output */
    nvemu_opener *ctl;             /* REGISTER_FD target (its identity owns our clients) */
    uint32_t linked;               /* openers registered to this one; keeps it alive after close */
    bool closed;                   /* released by its front-end, kept while `linked` > 0 */
    bool gpus_attached;            /* ATTACH_GPUS_TO_FD took device references */
    /* /dev/nvidia-uvm only (the driver's uvm_va_space_t of the file): */
    bool uvm_initialized;          /* UVM_INITIALIZE answered NV_OK on this file */
    uint32_t uvm_nvlink_gpus;      /* NVLink GPUs registered in this VA space (UVM_REGISTER_GPU), bit per index */
    uint64_t uvm_range_groups;     /* range-group ids handed out (UVM_CREATE_RANGE_GROUP counts from 1) */
    struct os_event *events;
    uint32_t nevents;
    struct rm_client *clients;     /* the clients it owns (rm_client.owner), so its close visits only them */
    struct rm_export_fd *exported; /* nvidiactl only: objects exported into this file (ctrl_export.c), or NULL */
    nvemu_opener *prev, *next;
};

/* The opener whose identity owns clients for op: its REGISTER_FD target, else op. */
nvemu_opener *rm_owner_of(nvemu_opener *op);

/*
 * The calling task's capabilities now (NVEMU_CAP_*): the driver decides
 * privileges (PRIVILEGED, the NICE right) per call with capable(), so this asks
 * the front-end (acc->current_caps) when it can tell, else uses the opener's
 * caps from open time. Only privilege checks call it: it may read /proc.
 */
uint64_t rm_caller_caps(const nvemu_access *acc, const nvemu_opener *op);

/* A new opener linked into the server's list; NULL when out of memory. */
nvemu_opener *rm_opener_open(struct rm_server *rs, nvemu *emu, nvemu_node node, uint32_t minor,
                             const nvemu_identity *who);
/*
 * fd close: marks op closed and frees it with its clients and OS events. The
 * driver's registered fd holds a reference on its control fd, so a control
 * opener whose fds are still registered stays (with its clients) until the
 * last of them closes.
 */
void rm_opener_close(struct rm_server *rs, nvemu_opener *op);
/* First live opener (newest first; follow ->next), and how many there are. */
nvemu_opener *rm_openers(struct rm_server *rs);
uint32_t rm_opener_count(const struct rm_server *rs);

#endif
