/*
 * The driver's ABI facts as descriptor tables, written once and walked
 * wherever a list is needed (dispatch, the front-end's pre-staging, rm, the
 * recorder, replay, the CUDA-shaped context builder, bench):
 *   - classes: id, name, kind, GPU generation, allocation params size;
 *   - escapes: number, argument layout (size, status word), node, the user
 *     pointers embedded in the argument and the fds it carries;
 *   - controls: the user pointers embedded in a control's params;
 *   - releases: the supported driver releases (550, 575, 580) and, in the
 *     manner of gVisor's nvproxy, per-release deltas against the base tables
 *     (580): a layout that is shorter or has fields at other offsets, or an
 *     interface the release does not have.
 * Layout facts only: no behaviour. Sources: docs/driver-sources.md and
 * docs/driver-versions.md (header paths per release).
 */
#ifndef NVEMU_ABI_NV_ABI_DESC_H
#define NVEMU_ABI_NV_ABI_DESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------- driver releases ---------------- */

enum nv_release { NV_REL_550, NV_REL_575, NV_REL_580, NV_REL_COUNT };
#define NV_REL_BASE NV_REL_580

struct nv_release_info {
    enum nv_release rel;
    unsigned major;
    const char *version;      /* the release answered as ("550.120"); layouts: docs/driver-versions.md */
    /* The gpu_ext struct_ops ABI generation ("K4") this release's patched driver carries; NULL: no such patch. */
    const char *bpf_abi;
};

/* The row of a release (never NULL for a valid enum value). */
const struct nv_release_info *nv_release_info(enum nv_release rel);

/*
 * The release a driver version string or a bare major ("550", "575.57.08",
 * "580.159.04") belongs to; false for a major nvemu has no tables for.
 */
bool nv_release_parse(const char *version, enum nv_release *rel);

/* ---------------- classes ---------------- */

enum nv_class_kind {
    NV_CK_ROOT = 1, NV_CK_EVENT, NV_CK_MEMORY, NV_CK_DEVICE, NV_CK_SUBDEVICE, NV_CK_VASPACE, NV_CK_TSG,
    NV_CK_CTXSHARE, NV_CK_CHANNEL, NV_CK_COMPUTE, NV_CK_COPY, NV_CK_USERMODE, NV_CK_MONITOR, NV_CK_OTHER,
};

/* GPU generations, oldest first (0: a class of no particular generation). */
enum nv_arch { NV_ARCH_NONE = 0, NV_ARCH_FERMI, NV_ARCH_KEPLER, NV_ARCH_VOLTA, NV_ARCH_TURING, NV_ARCH_AMPERE,
               NV_ARCH_ADA, NV_ARCH_HOPPER, NV_ARCH_BLACKWELL };

struct nv_class_desc {
    uint32_t id;
    const char *name;
    enum nv_class_kind kind;
    enum nv_arch arch;
    uint32_t params_size;     /* bytes the base release copies from pAllocParms (0: none) */
    bool allocatable;         /* false: an interface id (906F, A06F) only, no allocation row in any release */
};

/*
 * Every class nvemu knows, terminated by name NULL. Within a kind, rows run
 * newest first: the first row a GPU's class list names is the one a client
 * prefers (nv_class_newest).
 */
extern const struct nv_class_desc nv_class_descs[];

/* The row of class id, or NULL. */
const struct nv_class_desc *nv_class_desc(uint32_t id);

/* True when id is a class of that kind. */
bool nv_class_is(uint32_t id, enum nv_class_kind kind);

/* The newest class of `kind` among have[0..n), or 0 when none is listed. */
uint32_t nv_class_newest(enum nv_class_kind kind, const uint32_t *have, size_t n);

/* The allocation params size of class id under release rel (0: none, or an unknown class). */
uint32_t nv_class_params_size(enum nv_release rel, uint32_t id);

/* ---------------- escapes ---------------- */

enum nv_node_mask { NV_NODE_CTL = 1, NV_NODE_DEV = 2, NV_NODE_ANY = 3 };

/* How the length of an embedded pointer's target is found. */
enum nv_ptr_len {
    NV_PTR_LEN_NONE = 0,      /* end of the list */
    NV_PTR_LEN_FIELD,         /* a uint32 of the argument (len_at) */
    NV_PTR_LEN_FIXED,         /* len_at bytes */
    NV_PTR_LEN_CLASS,         /* the allocation params of the class whose id is the uint32 at len_at */
    NV_PTR_LEN_ESCAPE,        /* an inner escape: number at len_at, size at len_at + 4 (XFER) */
};

/*
 * A user pointer in an argument block (the list of an escape ends at what NULL). `out`: a CPU address the
 * driver writes (a mapping), not memory it reads.
 */
struct nv_embedded_ptr {
    uint16_t at;
    enum nv_ptr_len len;
    uint16_t len_at;
    bool out;
    const char *what;
};

#define NV_ESC_MAX_PTRS 3
#define NV_ESC_NO_FD 0xFFFFu
#define NV_ESC_NO_STATUS 0xFFFFu

/*
 * One argument layout of an escape (RM_ALLOC has two, NVOS21 and NVOS64, told
 * apart by size). size 0: the driver takes several sizes and checks itself.
 */
struct nv_escape_desc {
    uint32_t nr;
    const char *name;
    const char *layout;               /* the driver's struct name */
    uint32_t size;
    uint16_t status_at;               /* NV_STATUS word, or NV_ESC_NO_STATUS */
    uint16_t fd_at;                   /* an fd argument (int32), or NV_ESC_NO_FD */
    enum nv_node_mask nodes;
    struct nv_embedded_ptr ptrs[NV_ESC_MAX_PTRS];
};

/* Every escape layout of the base release, terminated by name NULL. */
extern const struct nv_escape_desc nv_escape_descs[];

/* The base layout of escape nr with argument size `size` (a size-0 row matches any size), or NULL. */
const struct nv_escape_desc *nv_escape_desc(uint32_t nr, uint32_t size);

/*
 * The argument size and status word of escape nr under release rel, from the
 * base values given (the dispatcher's row): a release whose struct differs
 * answers its own.
 */
uint32_t nv_escape_size(enum nv_release rel, uint32_t nr, uint32_t base_size);
uint32_t nv_escape_status_at(enum nv_release rel, uint32_t nr, uint32_t base_status_at);

/* ---------------- /dev/nvidia-uvm requests ---------------- */

/* A UVM request: plain number (not an _IOC word), its parameter block's size and rmStatus offset. */
struct nv_uvm_desc {
    uint32_t cmd;
    const char *name;
    uint32_t size;            /* 0: no parameter block (DEINITIALIZE) */
    uint32_t status_at;
};

/* Every request the driver's uvm_ioctl() routes, terminated by name NULL. */
extern const struct nv_uvm_desc nv_uvm_descs[];

/* The row of request cmd, or NULL. */
const struct nv_uvm_desc *nv_uvm_desc(uint32_t cmd);

/* ---------------- controls ---------------- */

/* A user pointer inside a control's params: the array at ptr_off holds (uint32 at count_off) elements of elem bytes. */
struct nv_ctrl_embedded {
    uint32_t cmd;
    uint32_t ptr_off;
    uint32_t count_off;
    uint32_t elem;
    const char *what;
    bool read;          /* the driver reads the entries (indices, handles), not only writes them */
};

/* Terminated by what NULL; rows of one command are adjacent, at most NV_CTRL_MAX_EMBEDDED of them. */
extern const struct nv_ctrl_embedded nv_ctrl_embedded_ptrs[];
#define NV_CTRL_MAX_EMBEDDED 3u

/*
 * The rows of control cmd in nv_ctrl_embedded_ptrs: *first set to the first
 * (NULL when none), the count returned.
 */
uint32_t nv_ctrl_embedded(uint32_t cmd, const struct nv_ctrl_embedded **first);

/* ---------------- per-release layouts ---------------- */

/*
 * How an older release's params block of a class or control maps onto the
 * base type: the base has `gap` more bytes at offset `gap_at` (appended fields:
 * gap_at = the older size). Identity (size = base size, gap 0) when the
 * release has the base layout.
 */
struct nv_layout_map {
    uint32_t size;            /* the release's params size */
    uint32_t gap_at;
    uint32_t gap;
    bool absent;              /* the release has no such control */
};

/* The mapping of control cmd's params (base size base_size) under release rel. */
struct nv_layout_map nv_ctrl_layout(enum nv_release rel, uint32_t cmd, uint32_t base_size);

/* The mapping of class id's allocation params (base size base_size) under release rel. */
struct nv_layout_map nv_class_layout(enum nv_release rel, uint32_t id, uint32_t base_size);

/* Copies a release's block `in` (m->size bytes) into a base-layout block `out` (base_size bytes). */
void nv_layout_to_base(const struct nv_layout_map *m, const void *in, void *out, uint32_t base_size);

/* Copies a base-layout block back into the release's layout (m->size bytes). */
void nv_layout_from_base(const struct nv_layout_map *m, const void *base, void *out);

/* One difference of a release from the base, for docs and `nvemu driver list`. */
struct nv_release_delta {
    enum { NV_DELTA_ESCAPE, NV_DELTA_CLASS, NV_DELTA_CONTROL } kind;
    uint32_t id;              /* escape nr, class id or control cmd */
    uint8_t releases;         /* bit per enum nv_release */
    uint32_t size;            /* the release's size (0 with absent) */
    uint32_t gap_at, gap;     /* see nv_layout_map */
    uint32_t status_at;       /* escapes: the release's status word */
    bool absent;              /* the release has no such interface */
    bool patch_only;          /* exists only in a patched driver of these releases (dispatch_env decides) */
    const char *what;
};

/* Every delta, terminated by what NULL. */
extern const struct nv_release_delta nv_release_deltas[];

#endif
