/*
 * Attach points beside struct_ops: the program types a scheduling policy's
 * object carries next to its ops (or instead of them) and where the real
 * system runs each one.
 *   kprobe/FUNC, kretprobe/FUNC       entry / return of a driver function;
 *                                     nvemu fires nvidia_unlocked_ioctl (every
 *                                     ioctl of every node) and the hook
 *                                     functions nv_gpu_sched_task_init, _bind,
 *                                     _token_request, _task_destroy
 *   uprobe[.s][/PATH:FUNC], uretprobe  a function of a task's process, by
 *                                     symbol; a bare section is attached by
 *                                     the loader (a policy argument
 *                                     attach:PROG=LIB:FUNC)
 *   tracepoint/CAT/NAME, tp/CAT/NAME  sched:sched_process_exit (a task's
 *                                     process ends), nvidia:nvidia_dev_xid (an
 *                                     XID fault); the nvidia module defines no
 *                                     other tracepoint, so another nvidia:
 *                                     name is refused as the kernel refuses it
 *   tp_btf/NAME, raw_tp/NAME          loaded; nvemu fires none of them yet
 * The ctx of a probe is the x86-64 struct pt_regs (168 bytes, read-only):
 * arguments in di, si, dx, cx, r8, r9, the return value in ax. A tracepoint's
 * ctx is its record as the kernel's format file lays it out.
 */
#ifndef NVEMU_BPF_ATTACH_H
#define NVEMU_BPF_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hook_task;

enum bpf_attach_kind {
    BPF_ATTACH_NONE = 0,        /* not a program section nvemu knows (listed, not run) */
    BPF_ATTACH_STRUCT_OPS,
    BPF_ATTACH_KPROBE,
    BPF_ATTACH_KRETPROBE,
    BPF_ATTACH_UPROBE,
    BPF_ATTACH_URETPROBE,
    BPF_ATTACH_TRACEPOINT,
    BPF_ATTACH_TP_BTF,
    BPF_ATTACH_RAW_TP,
};

/* What a program section says: its kind, sleepable, and the target as written ("" for a bare uprobe). */
struct bpf_attach_section {
    enum bpf_attach_kind kind;
    bool sleepable;
    char target[160];           /* FUNC, PATH:FUNC, CATEGORY:NAME */
};

/*
 * Parses a program section name. 0 with *out filled (kind NONE for a section
 * that is not a program type nvemu knows), or -1 with the reason the kernel
 * would refuse it in why (a tracepoint that does not exist, a probe without
 * a function).
 */
int bpf_attach_parse_section(const char *section, struct bpf_attach_section *out, char *why, size_t len);

/* "kprobe", "uprobe", "tracepoint", ... */
const char *bpf_attach_kind_name(enum bpf_attach_kind kind);

/* The places nvemu fires, as event sites (a bit each in a policy's site mask). */
enum bpf_attach_site {
    BPF_SITE_IOCTL = 0,          /* nvidia_unlocked_ioctl */
    BPF_SITE_TASK_INIT_FN,       /* nv_gpu_sched_task_init */
    BPF_SITE_BIND_FN,            /* nv_gpu_sched_bind */
    BPF_SITE_TOKEN_FN,           /* nv_gpu_sched_token_request */
    BPF_SITE_DESTROY_FN,         /* nv_gpu_sched_task_destroy */
    BPF_SITE_PROCESS_EXIT,       /* sched:sched_process_exit */
    BPF_SITE_XID,                /* nvidia:nvidia_dev_xid */
    BPF_SITE_USER,               /* a function of a task's process (uprobes) */
    BPF_SITE_COUNT
};

/* The site a kernel-side target fires at (kprobe function or tracepoint CATEGORY:NAME), or -1 (never fired). */
int bpf_attach_site_of(enum bpf_attach_kind kind, const char *target);

/* The driver function or tracepoint a site stands for ("nvidia_unlocked_ioctl", "sched:sched_process_exit"). */
const char *bpf_attach_site_name(enum bpf_attach_site site);

/*
 * True when a uprobe target (PATH:FUNC, :FUNC or FUNC) names the user
 * function lib:func: same function, and the same library by file name with
 * any version suffix dropped (libcuda.so.1 is libcuda.so); a target without a
 * library matches the function in every library.
 */
bool bpf_attach_user_match(const char *target, const char *lib, const char *func);

/* One firing of a site. */
struct bpf_attach_event {
    enum bpf_attach_site site;
    bool ret;                    /* a return (kretprobe, uretprobe) */
    const char *lib, *func;      /* BPF_SITE_USER: the function called */
    uint64_t args[6];            /* argument registers di, si, dx, cx, r8, r9 */
    uint64_t rc;                 /* return value (ax) */
    const struct hook_task *who; /* the calling task (identity, and its group when there is one) */
    bool group;                  /* who describes a channel group: trace records of the probes name it */
    /* the caller's memory for probe_read_user: 0 or -EFAULT */
    int (*read_user)(void *ctx, uint64_t addr, void *dst, size_t len);
    void *user_ctx;
    /* kernel memory a probe may read with probe_read_kernel (the hook's ctx struct), at its own address */
    const void *kmem;
    size_t kmem_len;
    /* tracepoints: the task whose process ended (sched_process_exit), the XID (nvidia_dev_xid) */
    uint32_t xid;
    const char *xid_dev, *xid_msg;
};

/* x86-64 struct pt_regs as a probe sees it. */
struct bpf_attach_pt_regs {
    uint64_t r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
_Static_assert(sizeof(struct bpf_attach_pt_regs) == 168, "x86-64 struct pt_regs");

/* Fills the pt_regs of an event (args in di..r9, rc in ax, a nonzero sp). */
void bpf_attach_regs(const struct bpf_attach_event *ev, struct bpf_attach_pt_regs *regs);

/*
 * Writes the tracepoint record of an event into buf (len bytes) as the
 * kernel lays it out. Returns its size, or 0 when the site has no record.
 */
size_t bpf_attach_record(const struct bpf_attach_event *ev, uint8_t *buf, size_t len);

#endif
