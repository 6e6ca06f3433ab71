/*
 * Transport-independent half of the daemon: the node table, openers (one per
 * open()), the ioctl path into nvemu_ioctl and the answer to the daemon's own
 * "which opener is this file" probe. The FUSE and CUSE front-ends only move
 * bytes between the kernel and these functions.
 */
#ifndef NVEMU_FRONT_SERVER_H
#define NVEMU_FRONT_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/types.h>

#include "front/fdprobe.h"
#include "nvemu/nvemu.h"

/*
 * Private probe the daemon's helper (fdprobe.h) sends to a file taken from a
 * caller's fd table (pidfd_getfd) to learn which opener it is. In: the
 * daemon's random token; out: the front_file. Without the right token it is
 * an ordinary (unknown) escape for the core.
 */
#define FRONT_IOCTL_WHOAMI _IOWR('N', 0xE0, uint64_t)

/* One served node. */
struct front_node {
    char name[24];              /* "nvidiactl", "nvidia0", "nvidia-uvm" */
    nvemu_node kind;
    uint32_t minor;             /* GPU index for NVEMU_NODE_GPU; 255 for ctl */
};

/*
 * One open() of one node. Lives until release (last close of that open file) and the end of the calls
 * still using it: a call answered without its thread (callermem.h) lets the caller close the file while
 * that thread still works on it.
 */
struct front_file {
    nvemu_opener *op;
    const struct front_node *node;
    pid_t pid;                  /* thread group that opened it */
    atomic_uint calls;          /* calls in progress (front_call_begin/end) */
    atomic_bool release_pending, released;
    struct front_file *prev, *next;
};

/* Blocking workload calls (WL_WAIT, WL_SLEEP) one uid may have in flight; more are refused. */
#define FRONT_BLOCKED_PER_UID 16
/* Blocking calls in flight, all callers: more than one uid may hold, a quarter of the session threads. */
#define FRONT_BLOCKED_MAX 64

/* One blocking call in flight: a FUSE interrupt (its caller got a signal) or a stop cancels it. */
struct front_blocked {
    struct front *f;
    bool used;
    pid_t tid;
    uid_t uid;
    atomic_bool cancel;
};

struct front {
    nvemu *emu;
    struct front_node *nodes;
    uint32_t node_count;
    pid_t self;                  /* the daemon's pid (reported by status) */
    uint64_t token;              /* WHOAMI secret (getrandom) */
    struct fdprobe probe;        /* helper process that sends WHOAMI */
    dev_t fs_dev;                /* FUSE: st_dev of the mount (recognises our files) */
    bool fs_dev_valid;
    unsigned cuse_major;         /* CUSE: major of our devices (0: none) */
    pthread_mutex_t files_lock;  /* guards the list below, never held across nvemu_* calls */
    struct front_file files;     /* list head of open files, freed at shutdown */
    atomic_ulong uvm_ioctls;
    atomic_ulong front_errors;   /* ioctls refused before reaching the core (bad transfer, compat) */
    pthread_mutex_t blocked_lock; /* guards blocked[] and stopping; taken before the core's lock, never after */
    struct front_blocked blocked[FRONT_BLOCKED_MAX];
    bool stopping;               /* new blocking calls are refused */
};

/*
 * Builds the node table (ctl, one per GPU, uvm) for emu and forks the fd
 * probe helper (call it before any /dev/fuse or /dev/cuse fd is opened).
 * Returns 0 or -ENOMEM.
 */
int front_init(struct front *f, nvemu *emu);
/*
 * Frees still-open files, the node table, and ends the helper. Call after
 * the transport's fds are closed. release_openers: nvemu_release each
 * still-open opener first (the emulator lives on); false when the emulator
 * is about to be destroyed anyway.
 */
void front_fini(struct front *f, bool release_openers);

/*
 * open(): creates an opener for node with the identity of thread tid (read
 * from /proc). Returns NULL with *err = -errno.
 */
struct front_file *front_open(struct front *f, const struct front_node *node, pid_t tid, int *err);
/*
 * release(): frees the opener's clients (nvemu_release) and the file, once no call uses it any more (else the
 * last front_call_end does); hands a large free heap back to the system.
 */
void front_release(struct front *f, struct front_file *ff);
/* Around every call on ff: the file is not freed between them. */
void front_call_begin(struct front_file *ff);
void front_call_end(struct front *f, struct front_file *ff);

/*
 * One ioctl from thread tid with user address arg. buf holds size bytes:
 * the first in_len came from the kernel, the rest is read here from the
 * caller's memory. On return *out_len bytes of buf are to be handed to the
 * kernel (restricted FUSE copies them out); what lies past that has already
 * been written to the caller here. Returns 0 or a negative errno; on an
 * error other than -EFAULT the struct has been written back to the caller
 * (the driver copies back on failure, a FUSE error reply does not).
 * b: the slot front_block_begin gave (NULL for a blocking cmd: refused with
 * NV_ERR_INSUFFICIENT_RESOURCES in its status, as the driver answers exhaustion).
 */
int front_ioctl(struct front *f, struct front_file *ff, pid_t tid, uint32_t cmd, uint64_t arg,
                void *buf, uint32_t size, uint32_t in_len, uint32_t out_cap, uint32_t *out_len,
                struct front_blocked *b);

/*
 * Before an ioctl that may block for long (WL_WAIT, WL_SLEEP): a slot for it,
 * or NULL when cmd does not block, when the caller's uid already has
 * FRONT_BLOCKED_PER_UID such calls in flight or the daemon stops (front_ioctl
 * then answers the call as refused). Release it with front_block_end.
 */
struct front_blocked *front_block_begin(struct front *f, struct front_file *ff, pid_t tid, uint32_t cmd);
void front_block_end(struct front *f, struct front_blocked *b);
/* Cancels b's call (its caller stopped waiting: FUSE interrupt) and wakes it; it answers -EINTR. */
void front_block_cancel(struct front_blocked *b);
/* Cancels every blocking call in flight and refuses new ones (before the session threads are stopped). */
void front_block_cancel_all(struct front *f);

/* Size of the buffer front_ioctl needs for cmd on ff (0 for UVM and probes: none). */
uint32_t front_ioctl_size(const struct front_file *ff, uint32_t cmd);

/* JSON status: the core's document plus a "daemon" object. Caller frees. */
char *front_status_json(struct front *f, const char *transport, const char *where);

#endif
