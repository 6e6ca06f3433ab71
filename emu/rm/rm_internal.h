/*
 * Resource-server internals: the layouts of objects, clients and the server,
 * private to emu/rm. Other modules use rm.h and rm_server.h.
 */
#ifndef NVEMU_RM_INTERNAL_H
#define NVEMU_RM_INTERNAL_H

#include "rm/rm.h"
#include "rm/rm_server.h"
#include "abi/nv_alloc.h"
#include "abi/nv_escape.h"

#define RM_CLIENT_HANDLE_BASE   0xC1D00000u
#define RM_CLIENT_INDEX_MASK    0x000FFFFFu
#define RM_UNIQUE_HANDLE_BASE   0xCAF00000u
#define RM_UNIQUE_HANDLE_RANGE  0x00080000u

enum { FREE_SUBTREE_UNKNOWN, FREE_SUBTREE_YES, FREE_SUBTREE_NO };

struct rm_object {
    uint32_t handle;
    uint32_t hclass;
    const struct rm_class_row *row;
    enum rm_family family;
    struct rm_object *parent;
    struct rm_client *client;
    struct gpu *gpu;
    void *priv;
    struct rm_object *dup_src;              /* DUP_OBJECT: the object this one refers to */
    struct rm_object *first_child, *last_child, *prev_sibling, *next_sibling;
    struct rm_object *hash_next;
    struct rm_object **dependants;          /* freed before this object */
    uint32_t ndependants, capdependants;
    struct rm_object **depends_on;          /* objects this one is a dependant of */
    uint32_t ndepends_on, capdepends_on;
    uint32_t free_mark;                     /* free pass bookkeeping */
    uint32_t free_blockers;
    uint32_t free_index;                    /* position in the free pass's set */
    uint8_t free_subtree;                   /* FREE_SUBTREE_*: in the freed object's subtree */
    bool constructed;                       /* destructor runs only for constructed objects */
    uint32_t map_flags;                     /* NVOS33 flag bits RM_MAP_MEMORY reports for this object */
    bool free_later;                        /* queued by rm_free_later */
    bool lost;                              /* invalidated as a dependant: handle kept, NV_ERR_RESOURCE_LOST */
    uint32_t attr;                          /* class datum the core keeps (subDeviceId) */
};

struct rm_client {
    uint32_t handle;
    nvemu_opener *owner;                    /* opener whose identity owns the client */
    int32_t creator_pid;
    uint32_t creator_uid;
    struct rm_object *root;                 /* the client object itself (family CLIENT) */
    struct rm_object **buckets;             /* handle -> object, chained */
    uint32_t nbuckets, count;
    uint32_t next_generated;                /* next offset from RM_UNIQUE_HANDLE_BASE */
    struct rm_client *hash_next;
    struct rm_client *owner_prev, *owner_next; /* the owner's clients (nvemu_opener.clients) */
    bool owner_listed;                      /* in that list (an opener freed with clients left drops them) */
    struct rm_server *rs;
};

/* The OS events of all openers; hashes are seeded so no caller can choose colliding keys. */
struct os_event_table {
    struct os_event **pair, **cl;
    uint32_t nbuckets, count, seed;
};

/* A pending rm_fault_busy_retry: `count` more controls `cmd` answer NV_ERR_BUSY_RETRY. */
struct busy_fault {
    uint32_t cmd, count;
};

/* What one uid holds (quota.c). */
enum rm_quota_kind { RM_QUOTA_CLIENT, RM_QUOTA_OBJECT, RM_QUOTA_EVENT, RM_QUOTA_KINDS };
struct rm_quota_use {
    uint32_t uid;
    uint32_t used[RM_QUOTA_KINDS];
};

struct rm_server {
    struct rm_env env;
    nvemu_opener *openers;                  /* live openers, newest first */
    uint32_t opener_count;
    uint64_t opener_serial;
    struct os_event_table os_events;
    struct busy_fault *busy;                /* rm_fault_busy_retry entries, count > 0 */
    uint32_t nbusy, capbusy;
    struct rm_client **buckets;
    uint32_t nbuckets, count;
    uint32_t client_index;                  /* next auto client index */
    uint32_t objects;                       /* live objects, clients' own objects included */
    uint32_t channel_groups;
    uint32_t nvlink_peers;                  /* GPUs whose buses are mapped to each other over NVLink (ctrl_nvlink.c) */
    uint64_t channel_uids;                  /* channel unique ids handed out (class_fifo.c) */
    uint32_t free_pass;
    uint32_t free_depth;                    /* nested rm_object_free_tree calls in progress */
    struct rm_object **later;               /* rm_free_later queue */
    uint32_t nlater, caplater;
    uint32_t devices_per_gpu[NV0080_MAX_DEVICES];  /* live NV01_DEVICE_0 objects by GPU index */
    struct rm_quota_use *quota;             /* uids holding clients or objects (quota.c) */
    uint32_t nquota, capquota;
};

/*
 * Per-uid quotas (quota.c). check: NV_OK when uid may hold one more of kind k, else
 * NV_ERR_INSUFFICIENT_RESOURCES with a log line (as the driver answers when it runs out). charge/uncharge:
 * when one is created/freed (rm_client_new, rm_object_new and the frees do it; the client's creator_uid
 * pays for its objects). used: what uid holds now.
 */
NV_STATUS rm_quota_check(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k);
void rm_quota_charge(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k);
void rm_quota_uncharge(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k);
uint32_t rm_quota_used(struct rm_server *rs, uint32_t uid, enum rm_quota_kind k);

/*
 * The ownership check (rmclientValidate, strict mode): the caller's owner
 * (REGISTER_FD target or itself) must be the client's owner. relaxed: GPreempt
 * compat mode for controls — same euid or same pid is enough.
 */
bool rm_client_usable(const struct rm_client *cl, nvemu_opener *op, bool relaxed);

/*
 * Lock held: true (and one pending answer used up, with a log line) when the
 * control `cmd` must answer NV_ERR_BUSY_RETRY instead of running.
 */
bool rm_fault_take_busy(struct rm_server *rs, uint32_t cmd);

/* Charges the row latency `lat` of a call on g (profile timing; only with latency injection on). */
void rm_charge_latency(struct gpu *g, enum rm_latency lat);

/* Frees the clients owned by op (fd close). */
void rm_opener_gone(struct rm_server *rs, nvemu_opener *op);
/* Frees every OS event op registered. */
void rm_os_event_drop_opener(struct rm_server *rs, nvemu_opener *op);
/* Unlinks op from the server's list and frees it with its OS events (its clients are gone already). */
void rm_opener_free(struct rm_server *rs, nvemu_opener *op);

/* ---- object tree (objects.c) ---- */

/* A new client owned by owner with its root object, indexed by handle; NULL when out of memory. */
struct rm_client *rm_client_new(struct rm_server *rs, uint32_t handle, nvemu_opener *owner);
/* A new object of row's class linked under parent and indexed in cl; NULL when out of memory. */
struct rm_object *rm_object_new(struct rm_client *cl, struct rm_object *parent, uint32_t handle,
                                const struct rm_class_row *row);
/* Frees o, its descendants and dependants (driver order), o last. Freeing a client's root frees the client. */
void rm_object_free_tree(struct rm_call *c, struct rm_object *o);
/*
 * DUP_OBJECT's work once the source object is known: a new object in dst under hparent (0 or dst's
 * handle: the client) referring to so's original, named *hobject (0: a generated handle, written back).
 * Used by DUP_OBJECT and by OS_UNIX import (ctrl_export.c), whose source is found by an export entry.
 */
NV_STATUS rm_dup_into(struct rm_call *c, struct rm_client *dst, uint32_t hparent, uint32_t *hobject,
                      struct rm_object *so);
/* Next unused generated handle of a client, 0 when the range is exhausted. */
uint32_t rm_client_generate_handle(struct rm_client *cl);
bool rm_object_is_ancestor(const struct rm_object *anc, const struct rm_object *o);
/*
 * A memory object allocated from NV_MEMORY_ALLOCATION_PARAMS (params as answered) keeps its size, attr and
 * address space (NV0000_CTRL_CMD_CLIENT_GET_ADDR_SPACE_TYPE_*) for NV0041 GET_SURFACE_INFO (ctrl_memory.c);
 * rm_memory_untrack is its class rows' destructor.
 */
NV_STATUS rm_memory_track(struct rm_object *obj, const void *params, uint32_t addr_space);
void rm_memory_untrack(struct rm_call *c, struct rm_object *obj);
/* NV50_P2P's constructor (ctrl_nvlink.c): a P2P mapping between two subdevices, the driver's checks. */
NV_STATUS rm_p2p_construct(struct rm_call *c, struct rm_object *obj, void *params);
/* The bytes a tracked memory object was allocated with (GPU_GET_PID_INFO counts them); 0 for any other object. */
uint64_t rm_memory_size(const struct rm_object *obj);
/* The NVOS32 attr a tracked memory object was allocated with (page size, format ...); 0 for any other object. */
uint32_t rm_memory_attr(const struct rm_object *obj);
/*
 * The object after x in a preorder walk of top's subtree (children in
 * creation order), or NULL after the last; x == top starts the walk below top.
 * Needs no stack, so any depth is safe.
 */
struct rm_object *rm_object_next_preorder(const struct rm_object *top, const struct rm_object *x);
void rm_object_set_gpu(struct rm_object *o, struct gpu *g);

#endif
