/*
 * nvemu public contract: one emulator instance, one ioctl entry point.
 *
 * Every front-end (in-process, FUSE, CUSE), every test and every benchmark
 * goes through nvemu_open / nvemu_ioctl / nvemu_release. Nothing here knows
 * about transports: the caller supplies who is calling and how to reach the
 * caller's memory.
 */
#ifndef NVEMU_NVEMU_H
#define NVEMU_NVEMU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nvemu nvemu;               /* one emulated machine (all GPUs of a profile) */
typedef struct nvemu_opener nvemu_opener; /* one open() of one node (the driver's nv_file_private_t) */

/* Which node an opener opened. */
typedef enum nvemu_node {
    NVEMU_NODE_CTL = 0, /* /dev/nvidiactl, minor 255 */
    NVEMU_NODE_GPU = 1, /* /dev/nvidiaN, minor N */
    NVEMU_NODE_UVM = 2, /* /dev/nvidia-uvm */
} nvemu_node;

/* Linux capability bits the emulator looks at (same numbers as <linux/capability.h>). */
#define NVEMU_CAP_SYS_NICE  (1ull << 23)
#define NVEMU_CAP_SYS_ADMIN (1ull << 21)

/* Who opened a node: fixed for the opener's lifetime. */
typedef struct nvemu_identity {
    int32_t pid;
    int32_t tid;          /* thread that called open() */
    uint32_t uid;         /* effective uid */
    uint32_t gid;         /* effective gid */
    uint64_t caps;        /* effective capability mask (NVEMU_CAP_*) */
    char comm[16];        /* process name, NUL-terminated (policies classify by it) */
} nvemu_identity;

/*
 * How the emulator reaches the calling thread during one ioctl.
 * read/write return 0 on success or a negative errno (-EFAULT for a bad
 * address); they must never crash on a bad address.
 * resolve_fd maps an fd number of the caller's fd table (REGISTER_FD's ctl_fd)
 * to the opener behind it, or NULL when that fd is not an nvemu node.
 * current_caps returns the calling thread's effective capabilities now (the
 * driver checks CAP_SYS_NICE at control time, so a process that dropped it
 * loses the right on clients it already has); NULL: the opener's caps from open
 * time. Called only by checks that need it, so it may be slow (/proc).
 *
 * Staged accessors (a daemon must not touch a caller's memory while it holds
 * the emulator's lock: the read may block for as long as the caller wants, a
 * page of its own FUSE file): read serves copies made before the call and
 * answers NVEMU_ERR_NOT_STAGED for a range it has none of; write keeps the
 * bytes to copy out after the call (into staged ranges only: the same answer
 * otherwise, so a bad address fails inside the call). staged_miss (NULL: never) tells whether
 * a read or write of this call was answered NVEMU_ERR_NOT_STAGED: the
 * emulator then drops the call without counting it (every handler reads
 * caller memory, and writes memory it did not read, before it changes
 * anything; a client alloc's handle, written after the client exists, must be
 * staged up front) and nvemu_ioctl returns NVEMU_ERR_NOT_STAGED; the caller
 * copies that range in, without the lock, and issues the call again.
 */
#define NVEMU_ERR_NOT_STAGED (-4097)
typedef struct nvemu_access {
    int (*read)(void *ctx, uint64_t addr, void *dst, size_t len);
    int (*write)(void *ctx, uint64_t addr, const void *src, size_t len);
    nvemu_opener *(*resolve_fd)(void *ctx, int fd);
    uint64_t (*current_caps)(void *ctx);
    void *ctx;
    int32_t tid;          /* thread issuing this ioctl (0: the opener's tid) */
    bool (*staged_miss)(void *ctx);
    /*
     * NULL: never. True once the caller no longer waits for the answer (it
     * got a signal, the daemon stops): a blocking workload call (WL_WAIT,
     * WL_SLEEP) then returns -EINTR. Whoever makes it true calls nvemu_wake.
     */
    bool (*cancelled)(void *ctx);
} nvemu_access;

/* In-process accessor: addresses are plain pointers of this process. */
extern const nvemu_access nvemu_access_inproc;

typedef enum nvemu_clock {
    NVEMU_CLOCK_VIRTUAL = 0,  /* time moves only when every participant is blocked */
    NVEMU_CLOCK_REALTIME = 1, /* virtual time follows CLOCK_MONOTONIC */
} nvemu_clock;

typedef struct nvemu_config {
    const char *profile;      /* profile name ("h200", ...) or a path to a profile file; NULL = "h200" */
    bool gpreempt_compat;     /* answer escape 0x60 and relax the control fd check like GPreempt's patch */
    nvemu_clock clock;
    uint64_t seed;            /* seed of the one random generator */
    bool inject_latency;      /* add the measured control-path latencies to virtual time */
    const char *trace_path;   /* event trace output (CSV); NULL = no file */
    const char *policy_path;  /* policy plugin (.so) to attach; NULL = native scheduling */
    /* `--policy-arg` words ("key=value" for a plugin, "rodata:NAME=VALUE" ... for a BPF object), parsed against
       the policy kind's argument table at create time; a bad one fails nvemu_create naming it */
    const char *const *policy_args;
    int policy_nargs;
    /* "path=value" overrides of profile keys (e.g. "fifo.default_timeslice=2048us"), validated like the
       profile file's own values; see profile_load_set in emu/profile/profile.h */
    const char *const *profile_set;
    int profile_nset;
    /* Who may use the workload escapes (0xF0-0xFF: register, submit, wait, sleep, mark), whose participants
       hold virtual time for every caller: false = anyone (a program serving its own emulator); true = only
       openers whose uid is workload_uid or, with workload_gid_set, whose gid is workload_gid (others get
       NV_ERR_INSUFFICIENT_PERMISSIONS). `nvemu daemon` sets it to its own uid. */
    bool workload_restricted;
    uint32_t workload_uid;
    bool workload_gid_set;
    uint32_t workload_gid;
    /* What one uid may hold at once: clients, objects (events included), event objects; past it an alloc
       answers NV_ERR_INSUFFICIENT_RESOURCES. 0: no limit (a program serving its own emulator); `nvemu daemon`
       sets 131072, 262144 and 65536. */
    uint32_t quota_clients, quota_objects, quota_events;
    /* the driver release to answer as: "550", "575", "580" or a full version ("550.127.05"); its layouts,
       classes, controls and version strings replace the profile's (docs/driver-versions.md); NULL = the
       profile's build.driver_version */
    const char *driver;
    /* wall-clock limit of one policy callback in ms (hooks_set_callback_limit); 0 = none (the default) */
    uint32_t policy_hook_limit_ms;
    /* where this emulator's policy code is running, for a supervising process (emu/hooks/hooks.h), or NULL */
    struct hooks_watch *policy_watch;
    /* arguments already parsed against the policy kind's table (emu/base/args.h), used instead of policy_args
       when set (the scenario engine's typed policy keys); copied at create time */
    const struct arg_list *policy_arglist;
} nvemu_config;

/* Fills *cfg with defaults (h200, virtual clock, seed 1). */
void nvemu_config_init(nvemu_config *cfg);

/*
 * Creates an emulator. Returns NULL and writes a one-line reason to errbuf
 * (if given) when the profile cannot be loaded.
 */
nvemu *nvemu_create(const nvemu_config *cfg, char *errbuf, size_t errlen);

/* Frees every client, opener and object; the instance is gone afterwards. */
void nvemu_destroy(nvemu *emu);

/*
 * Opens a node. minor is the GPU index for NVEMU_NODE_GPU (ignored otherwise).
 * Returns NULL with *err = -ENXIO when the minor does not exist.
 */
nvemu_opener *nvemu_open(nvemu *emu, nvemu_node node, uint32_t minor,
                         const nvemu_identity *who, int *err);

/* Closes an opener: frees the clients it owns and its OS events, like the driver's fd close. */
void nvemu_release(nvemu *emu, nvemu_opener *op);

/*
 * One ioctl, decoded the driver's way: nr = _IOC_NR(request), size = _IOC_SIZE(request)
 * (magic and direction are ignored). arg points at `size` bytes the front-end
 * already copied in from the caller; on return they hold what must be copied
 * back. Returns 0 or a negative errno (-EINVAL, -EFAULT, -EIO, -EBUSY, ...).
 * Per the driver, arg must be copied back to the caller unless the result is -EFAULT.
 * On a /dev/nvidia-uvm opener nr is UVM's plain request number (UVM_INITIALIZE =
 * 0x30000001, UVM_REGISTER_GPU_VASPACE = 25, ...: not an _IOC word) and size the
 * size of that request's parameter block; nvemu_ioctl_request works both out.
 * Thread-safe: one coarse lock per emulator serialises calls.
 */
int nvemu_ioctl(nvemu *emu, nvemu_opener *op, uint32_t nr, uint32_t size,
                void *arg, const nvemu_access *acc);

/*
 * One ioctl as the caller issued it, for front-ends that hold only the caller's
 * address: `request` is the raw request word, `arg` the address of its block in
 * the caller's memory, read and written through acc (NULL: this process). The
 * block's size comes from the node: _IOC_SIZE(request) on /dev/nvidiactl and
 * /dev/nvidiaN, the request's parameter layout on /dev/nvidia-uvm (whose numbers
 * carry no size; one the driver does not route fails with -EINVAL). The block is
 * copied in, handled by nvemu_ioctl and copied back unless the result is -EFAULT
 * (XFER's header is never written back). Returns 0 or a negative errno
 * (NVEMU_ERR_NOT_STAGED from a staged accessor: stage the range, call again).
 */
int nvemu_ioctl_request(nvemu *emu, nvemu_opener *op, unsigned long request,
                        uint64_t arg, const nvemu_access *acc);

/* Wakes thread tid if it is blocked in a workload call, so that it sees its accessor's cancelled(). */
void nvemu_wake(nvemu *emu, int32_t tid);

/* Read-only counters for `nvemu status` and benchmarks. */
typedef struct nvemu_stats {
    uint64_t ioctls;               /* ioctls served */
    uint64_t errors;               /* ioctls that failed or stored a status other than NV_OK */
    uint32_t openers;
    uint32_t clients;
    uint32_t objects;
    uint32_t channel_groups;
} nvemu_stats;

void nvemu_get_stats(nvemu *emu, nvemu_stats *out);

/*
 * The RM user-shared-data page (NV00DE_SHARED_DATA) of GPU `gpu` as a mapping of an RM_USER_SHARED_DATA
 * object would show it now: refreshed at the current virtual time from the emulator's state (utilisation
 * from the FIFO model's busy time, clocks, power and temperatures following it, virtual-time timestamps)
 * and laid out as the answered driver release. Copies at most len bytes into buf; returns the page's size,
 * 0 when the release's page is not modelled (550), -1 for an unknown GPU. This is what a transport that
 * serves memory mappings backs the mapping with (FUSE and CUSE serve none: emu/front/README.md).
 */
long nvemu_user_shared_data(nvemu *emu, uint32_t gpu, void *buf, size_t len);

/*
 * Writes a JSON document describing the emulator state (openers, clients,
 * objects per class, channel groups, ioctls served, errors by status) into
 * buf. Returns the length it needed (like snprintf).
 */
size_t nvemu_status_json(nvemu *emu, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
