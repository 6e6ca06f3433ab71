/*
 * Escape handlers of the dispatcher. Each handler gets the argument block
 * (already copied in, `size` bytes) and returns 0 or a negative errno, like
 * nvidia_ioctl; *st receives the NV_STATUS it stored in the block (NV_OK when
 * it stores none) so the emulator can count errors.
 */
#ifndef NVEMU_DISPATCH_INTERNAL_H
#define NVEMU_DISPATCH_INTERNAL_H

#include "abi/nv_escape.h"
#include "dispatch/dispatch.h"
#include "rm/opener.h"

/* One dispatcher's state: its environment and what the OS layer remembers between calls. */
struct dispatch {
    struct dispatch_env env;
    uint64_t memblock_size;        /* SYS_PARAMS, 0 = not set yet */
    uint64_t map_cursor;           /* next fake CPU mapping offset handed out by RM_MAP_MEMORY */
};

struct esc_ctx {
    struct dispatch *d;
    nvemu_opener *op;
    const nvemu_access *acc;
    int32_t tid;
    uint32_t nr;
    uint32_t size;
    void *arg;
    NV_STATUS st;      /* status stored in the struct, or the failure cause */
};

typedef int (*esc_fn)(struct esc_ctx *x);

/* Which node an escape is accepted on. */
enum esc_node { ESC_CTL = 1, ESC_DEV = 2, ESC_ANY = 3 };

struct esc_row {
    uint32_t nr;
    const char *name;
    uint32_t size;          /* exact size the driver requires; 0 = the handler checks */
    enum esc_node node;
    esc_fn fn;
};

/* OS-layer escapes (os_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_os[];
/* RM escapes (rm_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_rm[];
/* The emulator-private workload escapes 0xF0-0xFF (workload_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_workload[];

/* GPreempt's NV_ESC_RM_QUERY_GROUP in compat mode (gpreempt.c). */
int esc_query_group(struct esc_ctx *x);

/* Dispatches one (possibly XFER-inner) escape. */
int dispatch_escape(struct esc_ctx *x);

#endif
