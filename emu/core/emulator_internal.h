/*
 * Private layout of struct nvemu and struct nvemu_opener, shared by the core
 * modules of engineer A (emu/core, emu/dispatch, emu/rm). Other subsystems use
 * the accessors of emulator.h instead.
 */
#ifndef NVEMU_CORE_EMULATOR_INTERNAL_H
#define NVEMU_CORE_EMULATOR_INTERNAL_H

#include "core/emulator.h"
#include "abi/nv_status.h"

struct rm_server;

/*
 * An (hClient, fd) pair registered with ALLOC_OS_EVENT on an opener. Linked
 * three ways: on its opener (freed with it), and in the emulator's two hash
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

/* The OS events of all openers; hashes are seeded so no caller can choose colliding keys. */
struct os_event_table {
    struct os_event **pair, **cl;
    uint32_t nbuckets, count, seed;
};

/* Most OS events one fd may hold (the driver has no limit; past it, NV_ERR_INSUFFICIENT_RESOURCES). */
#define NVEMU_OS_EVENTS_PER_FD 16384u

struct nvemu_opener {
    nvemu *emu;
    nvemu_node node;
    uint32_t minor;
    nvemu_identity who;
    uint64_t serial;               /* open order, for status output */
    nvemu_opener *ctl;             /* REGISTER_FD target (its identity owns our clients) */
    uint32_t linked;               /* openers registered to this one; keeps it alive after close */
    bool closed;                   /* released by its front-end, kept while `linked` > 0 */
    bool gpus_attached;            /* ATTACH_GPUS_TO_FD took device references */
    struct os_event *events;
    uint32_t nevents;
    nvemu_opener *prev, *next;
};

#define NVEMU_STATUS_SLOTS 64

/* A pending nvemu_fault_busy_retry: `count` more controls `cmd` answer NV_ERR_BUSY_RETRY. */
struct busy_fault {
    uint32_t cmd, count;
};

struct nvemu {
    pthread_mutex_t lock;
    nvemu_config cfg;              /* strings below are owned copies */
    char *cfg_profile, *cfg_trace_path, *cfg_policy_path;
    char **cfg_policy_args;

    struct profile *profile;
    uint32_t gpu_count;
    struct gpu *gpus;
    struct sim *sim;
    struct hooks *hooks;
    struct workload *wl;
    struct rm_server *rm;

    nvemu_opener *openers;
    uint32_t opener_count;
    struct os_event_table os_events;
    uint64_t opener_serial;

    uint64_t memblock_size;        /* SYS_PARAMS, 0 = not set yet */
    uint64_t map_cursor;           /* next fake CPU mapping offset handed out by RM_MAP_MEMORY */

    uint64_t ioctls, errors;
    struct { NV_STATUS status; uint64_t count; } by_status[NVEMU_STATUS_SLOTS];

    struct busy_fault *busy;       /* nvemu_fault_busy_retry entries, count > 0 */
    uint32_t nbusy, capbusy;
};

/*
 * OS events (lock held). find: the entry of the (hclient, fd) pair or NULL.
 * add: a new entry on op; false when out of memory or op holds its limit.
 * remove: unlinks and frees one. drop_client: frees every entry of hclient
 * (its client was freed); drop_opener: every entry op registered.
 */
struct os_event *nvemu_os_event_find(nvemu *emu, uint32_t hclient, uint32_t fd);
bool nvemu_os_event_add(nvemu *emu, nvemu_opener *op, uint32_t hclient, uint32_t hdevice, uint32_t fd);
void nvemu_os_event_remove(nvemu *emu, struct os_event *e);
void nvemu_os_event_drop_client(nvemu *emu, uint32_t hclient);
void nvemu_os_event_drop_opener(nvemu *emu, nvemu_opener *op);

/* Counts a failing result (negative errno as 0x80000000|errno, or an NV_STATUS). */
void nvemu_count_error(nvemu *emu, NV_STATUS st);

/*
 * Lock held: true (and one pending answer used up, with a log line) when the
 * control `cmd` must answer NV_ERR_BUSY_RETRY instead of running.
 */
bool nvemu_fault_take_busy(nvemu *emu, uint32_t cmd);

/* The opener whose identity owns clients for op: its REGISTER_FD target, else op. */
static inline nvemu_opener *nvemu_owner_of(nvemu_opener *op)
{
    return op->ctl ? op->ctl : op;
}

#endif
