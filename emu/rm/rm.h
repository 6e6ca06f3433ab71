/*
 * Resource server contract (emu/rm): clients, handles, the object tree, and
 * the two registries (classes, controls). Adding a class or a control is
 * adding a table row and a handler; the generic checks (parents, sizes,
 * privilege, ownership) live in one place and run in the driver's order.
 *
 * Tables are split by owner, listed once in rm_class_tables / rm_ctrl_tables and aggregated by the registry:
 *   rm_class_rows_core / rm_ctrl_rows_core            emu/rm (client, device, subdevice, memory, events ...)
 *   rm_ctrl_rows_discovery                             emu/rm/ctrl_discovery.c (GPU/GR info, class lists, names ...)
 *   rm_class_rows_fifo / rm_ctrl_rows_fifo             emu/rm/class_fifo.c, ctrl_fifo.c (TSG, ctxshare, channels, scheduling)
 *   rm_ctrl_rows_export                                emu/rm/ctrl_export.c (objects handed between clients through fds)
 */
#ifndef NVEMU_RM_H
#define NVEMU_RM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvemu/nvemu.h"
#include "abi/nv_status.h"
#include "base/typed.h"

struct rm_client;
struct rm_object;
struct rm_server;
struct gpu;            /* one emulated GPU: its profile, its fifo; see rm/gpu.h */
struct profile;        /* emu/profile/profile.h */
struct fifo_channel;
struct fifo_tsg;

/* Object families: what an hObject is, for parent rules and control export tables. */
enum rm_family {
    RM_FAM_CLIENT      = 1u << 0,
    RM_FAM_DEVICE      = 1u << 1,
    RM_FAM_SUBDEVICE   = 1u << 2,
    RM_FAM_VASPACE     = 1u << 3,
    RM_FAM_TSG         = 1u << 4,  /* KEPLER_CHANNEL_GROUP_A */
    RM_FAM_CTXSHARE    = 1u << 5,  /* FERMI_CONTEXT_SHARE_A */
    RM_FAM_CHANNEL     = 1u << 6,  /* every *_CHANNEL_GPFIFO_* class */
    RM_FAM_ENGINE_OBJ  = 1u << 7,  /* compute / copy / other engine objects under a channel */
    RM_FAM_MEMORY      = 1u << 8,
    RM_FAM_USERMODE    = 1u << 9,
    RM_FAM_EVENT       = 1u << 10,
    RM_FAM_OTHER       = 1u << 11, /* accepted classes without behaviour */
    RM_FAM_ANY         = 0xFFFFFFFFu,
};

/* Context of one RM call (alloc, control or free), built by the dispatcher. */
struct rm_call {
    struct rm_server *rs;
    nvemu_opener *op;           /* the opener whose identity is used (after REGISTER_FD redirection) */
    const nvemu_access *acc;    /* to read/write embedded user pointers */
    int32_t tid;                /* calling thread */
    struct rm_client *client;
    struct rm_object *obj;      /* control target, or the parent during alloc */
    struct gpu *gpu;            /* GPU of obj, NULL for client-level objects */
    uint32_t cmd;               /* the control being run; 0 outside rm_control */
    uint32_t params_size;       /* its params' size (the row's param_size) */
};

/* ---- class registry ---- */

enum rm_alloc_params { RM_PARAMS_NONE = 0, RM_PARAMS_OPTIONAL = 1, RM_PARAMS_REQUIRED = 2 };

/*
 * Constructor: params points at param_size bytes copied from the caller (NULL
 * when the caller passed none and the class allows that); it may write outputs
 * into params (copied back only on NV_OK). `obj` is already linked into the tree
 * with its handle; on failure the registry unlinks and frees it.
 */
typedef NV_STATUS (*rm_construct_fn)(struct rm_call *c, struct rm_object *obj, void *params);
/* Destructor: releases class state; children and dependants are already gone. Also called
 * when the constructor failed after rm_object_set_priv (so it must accept partial state). */
typedef void (*rm_destruct_fn)(struct rm_call *c, struct rm_object *obj);

/* free_priority values: lower frees first among objects ready to be freed. */
#define RM_FREE_PRIO_HIGH     0u    /* channels */
#define RM_FREE_PRIO_TSG      1u    /* channel groups */
#define RM_FREE_PRIO_DEFAULT  128u

/*
 * Latency a row charges to the caller's virtual time (profile->timing.lat_*,
 * only with nvemu_config.inject_latency): a control row before its handler
 * runs, a class row once its constructor succeeded.
 */
enum rm_latency {
    RM_LAT_NONE = 0,
    RM_LAT_CONTROL,         /* lat_control_ns */
    RM_LAT_SET_TIMESLICE,   /* lat_set_timeslice_ns */
    RM_LAT_GET_TIMESLICE,   /* lat_get_timeslice_ns */
    RM_LAT_PREEMPT,         /* lat_preempt_ns */
    RM_LAT_TSG_ALLOC,       /* lat_tsg_alloc_ns (class rows) */
    RM_LAT_CHANNEL_ALLOC,   /* lat_channel_alloc_ns (class rows) */
};

struct rm_class_row {
    uint32_t hclass;
    const char *name;
    uint32_t param_size;          /* bytes copied from pAllocParms (the class table decides, not paramsSize) */
    enum rm_alloc_params params;
    uint32_t parents;             /* RM_FAM_* mask of allowed parents */
    enum rm_family family;
    bool single_instance;         /* second instance under the same parent -> NV_ERR_STATE_IN_USE */
    bool gpu_class;               /* must be in the profile's class list, else NV_ERR_NOT_SUPPORTED */
    bool any_node;                /* accepted on /dev/nvidiaN too (event classes) */
    bool internal_only;           /* user alloc -> NV_ERR_INVALID_CLASS */
    bool proprietary_only;        /* only the proprietary module has an entry: INVALID_CLASS on the open one */
    bool modelled;                /* false: accepted without behaviour (documented in the table) */
    uint8_t free_priority;        /* lower frees first among siblings (channels/TSGs before others) */
    enum rm_latency latency;      /* charged once the constructor succeeded */
    rm_construct_fn construct;    /* NULL: nothing to build */
    rm_destruct_fn destruct;
};

/*
 * One class row: name from the symbol, parameter size from sizeof the params type, every other column a
 * designated initialiser (columns left out are false / NULL / 0).
 */
#define RM_CLASS(sym, type, ...) RM_CLASS_NAMED(sym, #sym, type, __VA_ARGS__)
/* RM_CLASS for a row macro of its own: `name` is #sym stringified there, before sym expands. */
#define RM_CLASS_NAMED(sym, name_, type, ...) {.hclass = (sym), .name = (name_), .param_size = sizeof(type), __VA_ARGS__}
/* A class whose allocation takes no parameters. */
#define RM_CLASS_NO_PARAMS(sym, ...) \
    {.hclass = (sym), .name = #sym, .param_size = 0, .params = RM_PARAMS_NONE, __VA_ARGS__}

/* ---- control registry ---- */

/* Who may call a control (the driver's export flags; step 7 of the control path). */
enum rm_priv {
    RM_PRIV_USER = 1,       /* NON_PRIVILEGED: any caller */
    RM_PRIV_NICE,           /* NON_PRIVILEGED with the nice right: CAP_SYS_NICE or CAP_SYS_ADMIN */
    RM_PRIV_ADMIN,          /* PRIVILEGED: CAP_SYS_ADMIN */
    RM_PRIV_INTERNAL,       /* INTERNAL: a user call answers NV_ERR_NOT_SUPPORTED */
};

enum rm_ctrl_flags {
    RM_CTRL_COPYOUT_ON_ERROR  = 1u << 0,
    RM_CTRL_CANNED            = 1u << 1,  /* answer replayed from profile data, semantics not modelled */
};

/*
 * A control handler's untyped entry (see RM_CTRL_HANDLER): params is a private
 * copy of the row's param_size bytes (c->params_size), copied back only on
 * NV_OK (unless RM_CTRL_COPYOUT_ON_ERROR).
 */
typedef NV_STATUS (*rm_ctrl_fn)(struct rm_call *c, void *params);

/* Defines a control handler on its params type (void: raw bytes); the body sees `c` and the typed `p`. */
#define RM_CTRL_HANDLER(fn, type) NVEMU_TYPED_FN(NV_STATUS, fn, struct rm_call *, c, type, p)

/*
 * Output bytes of a control that the driver fills from the moment of the call (timestamps, counters,
 * free memory), so two answers to the same call differ on the GPU too. Either the range
 * [off, off + len) of the params, or, when `info_index` is set, the data word of every entry of a
 * {NvU32 listSize; {NvU32 index; NvU32 data}[]} list (at `off`) whose index is info_index - 1.
 * `relative`: the NvU32 at off is a count the driver keeps for the whole GPU (ChIDs): two answers differ
 * by the same amount on the GPU and in the emulator, whatever other processes took before.
 */
struct rm_ctrl_volatile {
    uint32_t off, len;
    uint32_t info_index;
    bool relative;
    const char *why;
};

struct rm_ctrl_row {
    uint32_t cmd;
    const char *name;
    uint32_t param_size;          /* registered sizeof; mismatch -> NV_ERR_INVALID_ARGUMENT (580) */
    uint32_t families;            /* RM_FAM_* the command is exported on */
    enum rm_priv priv;
    enum rm_latency latency;
    uint32_t flags;               /* RM_CTRL_* */
    rm_ctrl_fn handler;
    const struct rm_ctrl_volatile *volatile_out;  /* NULL-terminated by why == NULL; NULL: none */
};

/*
 * One control row: name from the command's symbol, size from sizeof its params type, the families it is
 * exported on, its privilege, a handler written for that params type (RM_CTRL_HANDLER), any further
 * column (latency, flags, volatile_out) as designated initialisers.
 */
#define RM_CTRL(sym, type, fam, priv_, fn, ...)                                                            \
    {.cmd = (sym), .name = #sym, .param_size = sizeof(type), .families = (fam), .priv = (priv_),            \
     .handler = NVEMU_TYPED_REF(fn, type), __VA_ARGS__}
/* A control whose params the emulator does not decode: the registered size in bytes, a raw-bytes handler. */
#define RM_CTRL_BYTES(sym, size, fam, priv_, fn, ...)                                                      \
    {.cmd = (sym), .name = #sym, .param_size = (size), .families = (fam), .priv = (priv_),                  \
     .handler = NVEMU_TYPED_REF(fn, void), __VA_ARGS__}
/*
 * A control answered from the profile's recorded bytes (a raw-bytes handler such as rm_ctrl_canned), its
 * size the sym##_PARAMS_SIZE companion of the symbol; exported as non-privileged.
 */
#define RM_CTRL_RECORDED(sym, fam, fn, ...)                                                                \
    {.cmd = (sym), .name = #sym, .param_size = sym##_PARAMS_SIZE, .families = (fam), .priv = RM_PRIV_USER,  \
     .flags = RM_CTRL_CANNED, .handler = NVEMU_TYPED_REF(fn, void), __VA_ARGS__}

/* Row arrays, each terminated by a row with cmd/hclass 0 and name NULL. */
extern const struct rm_class_row rm_class_rows_core[];
extern const struct rm_class_row rm_class_rows_fifo[];
extern const struct rm_class_row rm_class_rows_fabric[]; /* emu/rm/class_fabric.c (NV_MEMORY_FABRIC) */
extern const struct rm_ctrl_row rm_ctrl_rows_core[];
extern const struct rm_ctrl_row rm_ctrl_rows_discovery[];
extern const struct rm_ctrl_row rm_ctrl_rows_fifo[];
extern const struct rm_ctrl_row rm_ctrl_rows_monitoring[];
extern const struct rm_ctrl_row rm_ctrl_rows_export[];   /* emu/rm/ctrl_export.c (OS_UNIX object export/import) */
extern const struct rm_ctrl_row rm_ctrl_rows_nvlink[];   /* emu/rm/ctrl_nvlink.c (NVLink caps, P2P caps between GPUs) */
extern const struct rm_ctrl_row rm_ctrl_rows_pids[];     /* emu/rm/ctrl_pids.c (processes on a GPU, their memory) */
extern const struct rm_ctrl_row rm_ctrl_rows_gpu_ids[];  /* emu/rm/ctrl_gpu_ids.c (GPU-id checks: attach, drain) */
extern const struct rm_ctrl_row rm_ctrl_rows_fabric[];   /* emu/rm/class_fabric.c (NV00F8: attach/detach memory) */
extern const struct rm_ctrl_row rm_ctrl_rows_memory[];   /* emu/rm/ctrl_memory.c (NV0041: GET_SURFACE_INFO) */

/*
 * Every class table, one entry each, ending with an entry whose rows are NULL: the registry indexes them,
 * the table tests walk them, replay names a class's owner from them. A new table is an entry here
 * (registry.c) plus its rows.
 */
struct rm_class_table {
    const char *name;              /* the row array's symbol, for log lines */
    const char *owner;             /* the module whose model constructs these objects */
    const struct rm_class_row *rows;
};
extern const struct rm_class_table rm_class_tables[];

/* Every control table, in the manner of rm_class_tables. */
struct rm_ctrl_table {
    const char *name;              /* the row array's symbol, for log lines */
    const char *owner;             /* the module whose model answers these controls */
    const struct rm_ctrl_row *rows;
};
extern const struct rm_ctrl_table rm_ctrl_tables[];

/* The registered row of a class / control (from every row table), or NULL when there is none. */
const struct rm_class_row *rm_class_lookup(uint32_t hclass);
const struct rm_ctrl_row *rm_ctrl_lookup(uint32_t cmd);

/* The profile a call answers from: its GPU's, or the emulator's for client-level objects. */
const struct profile *rm_call_profile(const struct rm_call *c);

/*
 * Handler of RM_CTRL_CANNED rows: answers c->cmd with the recorded bytes of the
 * target GPU's profile (the client-level emulator profile for client
 * controls) — the first entry of that cmd and size whose `in` bytes, if any,
 * equal the caller's input; an entry with a status answers that status and writes nothing.
 * No such entry -> NV_ERR_NOT_SUPPORTED and a log line.
 */
NVEMU_TYPED_DECL(NV_STATUS, rm_ctrl_canned, struct rm_call *, void);
/* rm_ctrl_canned for rows on a coarse family (RM_FAM_OTHER): only the command's own class answers,
 * as the driver's per-class export tables do; another class -> NV_ERR_NOT_SUPPORTED. */
NVEMU_TYPED_DECL(NV_STATUS, rm_ctrl_canned_on_class, struct rm_call *, void);

/* ---- objects ---- */

/* Plain accessors: handle, class, family, parent (NULL for a client's root), owning client,
 * and GPU (NULL for objects not under a device). */
uint32_t rm_object_handle(const struct rm_object *o);
uint32_t rm_object_class(const struct rm_object *o);
enum rm_family rm_object_family(const struct rm_object *o);
struct rm_object *rm_object_parent(const struct rm_object *o);
struct gpu *rm_object_gpu(const struct rm_object *o);
/* Class state owned by the class's constructor/destructor (e.g. struct fifo_tsg *). */
void *rm_object_priv(const struct rm_object *o);
void rm_object_set_priv(struct rm_object *o, void *priv);
/* Children of o in creation order (invalidated ones skipped): calls fn for each until it returns false. */
void rm_object_for_each_child(struct rm_object *o, bool (*fn)(struct rm_object *child, void *arg), void *arg);

/* Any client of the emulator by handle, regardless of owner (controls the H200 accepts across openers,
 * e.g. FIFO_DISABLE_CHANNELS' client list), or NULL. */
struct rm_client *rm_client_by_handle(struct rm_server *rs, uint32_t hclient);
uint32_t rm_client_handle(const struct rm_client *cl);
struct rm_object *rm_client_find(struct rm_client *cl, uint32_t handle);

/*
 * Allocates an RM-internal object (e.g. the implicit TSG of a channel allocated
 * under a device, or the KERNEL_GRAPHICS_CONTEXT of a GR TSG) with a generated
 * handle from 0xCAF00000. Returns NV_OK and the object, or the constructor's status.
 */
NV_STATUS rm_alloc_internal(struct rm_call *c, struct rm_object *parent, uint32_t hclass,
                            void *params, struct rm_object **out);

/* Registers that `dependant` must be freed before `on` is (the driver's refAddDependant). */
NV_STATUS rm_add_dependant(struct rm_object *on, struct rm_object *dependant);

/*
 * For destructors: frees `o` (with its descendants and dependants) right after
 * the free in progress completes, unless that free takes it anyway. E.g. the
 * RM-allocated TSG of a channel allocated under a device goes with its channel.
 */
void rm_free_later(struct rm_call *c, struct rm_object *o);

/* Live NV01_DEVICE_0 objects on GPU g, over all clients (GPU "in use" flags). */
uint32_t rm_gpu_device_count(struct rm_server *rs, const struct gpu *g);

/*
 * A VA space allocated externally owned (libcuda's flags 0x48) has no page directory until UVM registers it
 * (UVM_REGISTER_GPU_VASPACE); until then a context share on it is refused with NV_ERR_INVALID_STATE, as on the
 * H200 (fixtures/hw/h200-580.159.04/conformance-root.txt, libcuda.alloc.ctxshare). True for any other VA space.
 */
bool rm_vaspace_usable(const struct rm_object *vas);

/*
 * UVM_REGISTER_GPU_VASPACE's RM side: marks VA space hvaspace of client hclient registered. The client is
 * looked up through the RM file the caller names (ctl, its rmCtrlFd resolved in the caller's fd table): only
 * a client of that opener (or of an fd registered to it) is found. Without one (rmCtrlFd -1 or not an RM fd)
 * only a client created by the calling process (uvm's pid) is. Never another opener's or process's client:
 * NV_ERR_INVALID_CLIENT, as for a handle that names none. NV_ERR_OBJECT_NOT_FOUND (no such VA space) or
 * NV_ERR_INVALID_ARGUMENT (not externally owned), with a log line. Caller holds the emulator lock.
 */
/*
 * UVM_REGISTER_GPU of the GPU with this UUID in VA space uvm: once the space holds two NVLink GPUs, their buses
 * are mapped to each other (SYSTEM_GET_P2P_CAPS_V2 answers peer ids). Caller holds the emulator lock.
 */
void rm_nvlink_uvm_register_gpu(struct rm_server *rs, nvemu_opener *uvm, const uint8_t uuid[16]);

NV_STATUS rm_vaspace_uvm_register(struct rm_server *rs, nvemu_opener *ctl, const nvemu_opener *uvm,
                                  uint32_t hclient, uint32_t hvaspace);

/* True for a *_USERMODE_A object allocated with bBar1Mapping = 1. */
bool rm_usermode_bar1(const struct rm_object *o);

/*
 * Looks up a channel/TSG object of a client the caller may use; NV_ERR_* as the control path would
 * (an object invalidated because something it depended on was freed -> NV_ERR_RESOURCE_LOST).
 * op NULL: at kernel privilege (RS_PRIV_LEVEL_KERNEL), where every client may be used.
 */
NV_STATUS rm_find_object(struct rm_server *rs, nvemu_opener *op, uint32_t hclient, uint32_t hobject,
                         struct rm_object **out);

/*
 * For the mapping escapes: hclient must be usable by the caller and hobject
 * (or the client itself) one of its objects of a family in `families`, on a
 * GPU that is not lost (log line naming `what`). *out gets the object a
 * duplicate refers to. NV_ERR_* as the driver's status field would carry.
 */
NV_STATUS rm_object_for_call(struct rm_call *c, uint32_t hclient, uint32_t hobject, uint32_t families,
                             const char *what, struct rm_object **out);

/* Class state of a channel / channel group object (NULL when obj is not one). */
struct fifo_channel *rm_object_channel(struct rm_object *obj);
struct fifo_tsg *rm_object_tsg(struct rm_object *obj);

#endif
