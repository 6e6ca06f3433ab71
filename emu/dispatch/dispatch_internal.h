/*
 * Escape handlers of the dispatcher. Each handler gets the argument block
 * (already copied in, `size` bytes) and returns 0 or a negative errno, like
 * nvidia_ioctl; *st receives the NV_STATUS it stored in the block (NV_OK when
 * it stores none) so the emulator can count errors.
 */
#ifndef NVEMU_DISPATCH_INTERNAL_H
#define NVEMU_DISPATCH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "abi/nv_escape.h"
#include "base/typed.h"
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

/* An escape handler's untyped entry (see ESC_HANDLER); arg is x->arg. */
typedef int (*esc_fn)(struct esc_ctx *x, void *arg);

/* Which node an escape is accepted on (ESC_UVM: a /dev/nvidia-uvm request). */
enum esc_node { ESC_CTL = 1, ESC_DEV = 2, ESC_ANY = 3, ESC_UVM = 4 };

/*
 * One row of an escape table. For /dev/nvidia-uvm rows nr is UVM's plain request number, size the size of its
 * parameter block (the number does not carry it), and the dispatcher stores the handler's x->st at status_offset
 * (the block's rmStatus); pre_init rows run before UVM_INITIALIZE (the driver's NO_INIT_CHECK routes), the others
 * answer NV_ERR_ILLEGAL_ACTION on a UVM file not initialized.
 */
struct esc_row {
    uint32_t nr;
    const char *name;
    uint32_t size;          /* exact size the driver requires; 0 = the handler checks */
    enum esc_node node;
    esc_fn fn;              /* NULL: not modelled, NV_ERR_NOT_SUPPORTED at status_offset */
    uint32_t status_offset; /* where an unmodelled escape's (every UVM row's) NV_STATUS goes */
    bool gpreempt_only;     /* only with dispatch_env.gpreempt_compat (GPreempt's patched driver), else -EINVAL */
    bool pre_init;          /* UVM rows: accepted before UVM_INITIALIZE */
};

/*
 * Defines an escape handler on the argument type `type` (void: raw bytes, the
 * handler checks x->size); the body sees `x` and the typed argument `p`.
 */
#define ESC_HANDLER(fn, type) NVEMU_TYPED_FN(int, fn, struct esc_ctx *, x, type, p)

/*
 * Escape rows, one macro each, in the style of RM_CLASS / RM_CTRL: name from
 * the symbol, size from sizeof the argument type, node rule, a handler written
 * for that type, further columns (gpreempt_only) as designated initialisers.
 */
#define ESC_ROW(sym, type, node_, fn_, ...) \
    {.nr = (sym), .name = #sym, .size = sizeof(type), .node = (node_), .fn = NVEMU_TYPED_REF(fn_, type), __VA_ARGS__}
/* An escape whose argument is raw bytes: `size` exact, or 0 when the handler checks a variable size. */
#define ESC_ROW_BYTES(sym, size_, node_, fn_, ...) \
    {.nr = (sym), .name = #sym, .size = (size_), .node = (node_), .fn = NVEMU_TYPED_REF(fn_, void), __VA_ARGS__}
/* An escape the emulator does not model: size and node checked, then NV_ERR_NOT_SUPPORTED in type's field. */
#define ESC_ROW_UNSUPPORTED(sym, type, status_field, node_) \
    {.nr = (sym), .name = #sym, .size = sizeof(type), .node = (node_), .fn = NULL, \
     .status_offset = offsetof(type, status_field)}

/* OS-layer escapes (os_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_os[];
/* RM escapes (rm_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_rm[];
/* The emulator-private workload escapes 0xF0-0xFF (workload_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_workload[];

/* The /dev/nvidia-uvm requests the driver's uvm_ioctl() routes (uvm_escapes.c), terminated by name NULL. */
extern const struct esc_row esc_rows_uvm[];

/* The UVM row of request cmd, or NULL when the driver does not route cmd. */
const struct esc_row *dispatch_uvm_row(uint32_t cmd);

/* One /dev/nvidia-uvm request (x->nr the request number, x->arg its parameter block of x->size bytes). */
int dispatch_uvm(struct esc_ctx *x);

/* GPreempt's NV_ESC_RM_QUERY_GROUP in compat mode (gpreempt.c), a row of esc_rows_rm. */
NVEMU_TYPED_DECL(int, esc_query_group, struct esc_ctx *, NVOS54_PARAMETERS);

/* Dispatches one (possibly XFER-inner) escape. */
int dispatch_escape(struct esc_ctx *x);

#endif
