/*
 * Resource-server internals shared by emu/rm and emu/dispatch (engineer A).
 * Class and control modules of other owners use rm.h only.
 */
#ifndef NVEMU_RM_INTERNAL_H
#define NVEMU_RM_INTERNAL_H

#include "rm/rm.h"
#include "abi/nv_alloc.h"
#include "abi/nv_escape.h"
#include "core/emulator_internal.h"

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
    nvemu *emu;
};

struct rm_server {
    nvemu *emu;
    struct rm_client **buckets;
    uint32_t nbuckets, count;
    uint32_t client_index;                  /* next auto client index */
    uint32_t objects;                       /* live objects, clients' own objects included */
    uint32_t channel_groups;
    uint64_t p2p_tokens;                    /* NV503C REGISTER_VA_SPACE tokens handed out */
    uint32_t free_pass;
    uint32_t free_depth;                    /* nested rm_object_free_tree calls in progress */
    struct rm_object **later;               /* rm_free_later queue */
    uint32_t nlater, caplater;
    uint32_t devices_per_gpu[NV0080_MAX_DEVICES];  /* live NV01_DEVICE_0 objects by GPU index */
};

/* An empty resource server for emu, or NULL when out of memory. */
struct rm_server *rm_server_create(nvemu *emu);
/* Frees every client (with destructors). */
void rm_server_destroy(struct rm_server *rs);

/* The client with that handle (any owner), or NULL. */
struct rm_client *rm_client_lookup(struct rm_server *rs, uint32_t handle);
/* Calls fn for each client until it returns false. */
void rm_for_each_client(struct rm_server *rs, bool (*fn)(struct rm_client *cl, void *arg), void *arg);

/*
 * The ownership check (rmclientValidate, strict mode): the caller's owner
 * (REGISTER_FD target or itself) must be the client's owner. relaxed: GPreempt
 * compat mode for controls — same euid or same pid is enough.
 */
bool rm_client_usable(const struct rm_client *cl, nvemu_opener *op, bool relaxed);

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

/*
 * NV_ERR_GPU_IS_LOST (with a log line naming `what`) when o belongs to a GPU
 * that nvemu_fault_gpu_lost marked lost, else NV_OK. Frees never ask.
 */
NV_STATUS rm_check_gpu(const struct rm_object *o, const char *what);

/* Frees the clients owned by op (fd close). */
void rm_opener_gone(struct rm_server *rs, nvemu_opener *op);

/* ---- object tree (objects.c) ---- */

/* A new client owned by owner with its root object, indexed by handle; NULL when out of memory. */
struct rm_client *rm_client_new(struct rm_server *rs, uint32_t handle, nvemu_opener *owner);
/* A new object of row's class linked under parent and indexed in cl; NULL when out of memory. */
struct rm_object *rm_object_new(struct rm_client *cl, struct rm_object *parent, uint32_t handle,
                                const struct rm_class_row *row);
/* Frees o, its descendants and dependants (driver order), o last. Freeing a client's root frees the client. */
void rm_object_free_tree(struct rm_call *c, struct rm_object *o);
/* Next unused generated handle of a client, 0 when the range is exhausted. */
uint32_t rm_client_generate_handle(struct rm_client *cl);
bool rm_object_is_ancestor(const struct rm_object *anc, const struct rm_object *o);
/*
 * The object after x in a preorder walk of top's subtree (children in
 * creation order), or NULL after the last; x == top starts the walk below top.
 * Needs no stack, so any depth is safe.
 */
struct rm_object *rm_object_next_preorder(const struct rm_object *top, const struct rm_object *x);
void rm_object_set_gpu(struct rm_object *o, struct gpu *g);

#endif
