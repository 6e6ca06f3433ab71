#include "front/server.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_ctrl_unix.h"
#include "abi/nv_escape.h"
#include "abi/nv_status.h"
#include "abi/nv_uvm.h"
#include "abi/nv_workload.h"
#include "core/emulator.h"
#include "base/log.h"
#include "front/callermem.h"
#include "front/fdmap.h"
#include "front/ident.h"
#include "front/procmem.h"
#include "profile/profile.h"

#define CTL_MINOR 255u
/* free heap bytes, beyond what was free after the last trim, at which a release hands memory back to the system */
#define FRONT_TRIM_FREE_BYTES (16u << 20)

static atomic_size_t free_after_trim;     /* mallinfo2().fordblks after the last trim (trim_heap) */

int front_init(struct front *f, nvemu *emu)
{
    memset(f, 0, sizeof(*f));
    /* The first mallinfo2 sets glibc's allocator up when nothing did yet (a sanitizer's malloc replaces it):
     * two session threads doing that at once leave its arena count off by one, and glibc aborts when the
     * second of them exits. Here no session thread runs yet. */
    atomic_store(&free_after_trim, mallinfo2().fordblks);
    f->emu = emu;
    f->self = getpid();
    if (getrandom(&f->token, sizeof(f->token), 0) != sizeof(f->token) || f->token == 0)
        f->token = ((uint64_t)f->self << 32) ^ (uint64_t)(uintptr_t)f ^ 0x9e3779b97f4a7c15ull;
    if (fdprobe_start(&f->probe, f->token) != 0)
        LOG_WARN("front", "no fd probe helper: REGISTER_FD cannot resolve fds");
    uint32_t gpus = nvemu_gpu_count(emu);
    f->node_count = gpus + 2;
    f->nodes = calloc(f->node_count, sizeof(*f->nodes));
    if (!f->nodes)
        return -ENOMEM;
    snprintf(f->nodes[0].name, sizeof(f->nodes[0].name), "nvidiactl");
    f->nodes[0].kind = NVEMU_NODE_CTL;
    f->nodes[0].minor = CTL_MINOR;
    for (uint32_t i = 0; i < gpus; i++) {
        struct front_node *n = &f->nodes[1 + i];
        snprintf(n->name, sizeof(n->name), "nvidia%u", i);
        n->kind = NVEMU_NODE_GPU;
        n->minor = i;
    }
    struct front_node *uvm = &f->nodes[gpus + 1];
    snprintf(uvm->name, sizeof(uvm->name), "nvidia-uvm");
    uvm->kind = NVEMU_NODE_UVM;
    pthread_mutex_init(&f->files_lock, NULL);
    pthread_mutex_init(&f->blocked_lock, NULL);
    f->files.next = f->files.prev = &f->files;
    return 0;
}

void front_fini(struct front *f, bool release_openers)
{
    struct front_file *ff = f->files.next;
    while (ff != &f->files) {
        struct front_file *next = ff->next;
        if (release_openers)
            nvemu_release(f->emu, ff->op);
        free(ff);
        ff = next;
    }
    f->files.next = f->files.prev = &f->files;
    pthread_mutex_destroy(&f->files_lock);
    pthread_mutex_destroy(&f->blocked_lock);
    fdprobe_stop(&f->probe);
    free(f->nodes);
    f->nodes = NULL;
}

struct front_file *front_open(struct front *f, const struct front_node *node, pid_t tid, int *err)
{
    nvemu_identity id;
    pid_t tgid;
    *err = ident_read(tid, &id, &tgid);
    if (*err != 0)
        return NULL;
    struct front_file *ff = calloc(1, sizeof(*ff));
    if (!ff) {
        *err = -ENOMEM;
        return NULL;
    }
    ff->op = nvemu_open(f->emu, node->kind, node->minor, &id, err);
    if (!ff->op) {
        free(ff);
        return NULL;
    }
    ff->node = node;
    ff->pid = tgid;
    pthread_mutex_lock(&f->files_lock);
    ff->next = f->files.next;
    ff->prev = &f->files;
    f->files.next->prev = ff;
    f->files.next = ff;
    pthread_mutex_unlock(&f->files_lock);
    LOG_DEBUG("front", "open %s by %s pid %d tid %d uid %u", node->name, id.comm, (int)tgid, (int)tid, id.uid);
    return ff;
}

/*
 * glibc keeps freed heap pages mapped: after an opener that held many clients
 * is released, a long-running daemon would keep their memory forever. Give
 * it back once much more lies free than after the last trim (trimming walks
 * the heap, and the free count stays high after it: pages are returned, the
 * chunks stay free).
 */
static void trim_heap(void)
{
    struct mallinfo2 mi = mallinfo2();
    if (mi.fordblks < atomic_load(&free_after_trim) + FRONT_TRIM_FREE_BYTES)
        return;
    malloc_trim(0);
    atomic_store(&free_after_trim, mallinfo2().fordblks);
    LOG_DEBUG("front", "returned free heap to the system (%zu bytes were free)", mi.fordblks);
}

static void release_now(struct front *f, struct front_file *ff)
{
    pthread_mutex_lock(&f->files_lock);
    ff->prev->next = ff->next;
    ff->next->prev = ff->prev;
    pthread_mutex_unlock(&f->files_lock);
    LOG_DEBUG("front", "release %s of pid %d", ff->node->name, (int)ff->pid);
    nvemu_release(f->emu, ff->op);
    free(ff);
    trim_heap();
}

/* Whoever sees the release asked for and no call left frees the file, once. */
static void release_if_unused(struct front *f, struct front_file *ff)
{
    if (atomic_load(&ff->release_pending) && atomic_load(&ff->calls) == 0 && !atomic_exchange(&ff->released, true))
        release_now(f, ff);
}

void front_release(struct front *f, struct front_file *ff)
{
    atomic_store(&ff->release_pending, true);
    release_if_unused(f, ff);
}

void front_call_begin(struct front_file *ff)
{
    atomic_fetch_add(&ff->calls, 1);
}

void front_call_end(struct front *f, struct front_file *ff)
{
    if (atomic_fetch_sub(&ff->calls, 1) == 1)
        release_if_unused(f, ff);
}

static bool blocks(const struct front_file *ff, uint32_t cmd)
{
    uint32_t nr = _IOC_NR(cmd);
    return ff->node->kind == NVEMU_NODE_CTL && (nr == NVEMU_ESC_WL_WAIT || nr == NVEMU_ESC_WL_SLEEP);
}

struct front_blocked *front_block_begin(struct front *f, struct front_file *ff, pid_t tid, uint32_t cmd)
{
    if (!blocks(ff, cmd))
        return NULL;
    uid_t uid = nvemu_opener_identity(ff->op)->uid;
    struct front_blocked *b = NULL;
    unsigned mine = 0;
    pthread_mutex_lock(&f->blocked_lock);
    for (unsigned i = 0; i < FRONT_BLOCKED_MAX; i++) {
        if (!f->blocked[i].used)
            b = b ? b : &f->blocked[i];
        else if (f->blocked[i].uid == uid)
            mine++;
    }
    if (f->stopping || mine >= FRONT_BLOCKED_PER_UID)
        b = NULL;
    if (b) {
        b->f = f;
        b->used = true;
        b->tid = tid;
        b->uid = uid;
        atomic_store(&b->cancel, false);
    }
    bool stopping = f->stopping;
    pthread_mutex_unlock(&f->blocked_lock);
    if (!b)
        LOG_WARN("front", "uid %u tid %d: %s refused with NV_ERR_INSUFFICIENT_RESOURCES (%s)", (unsigned)uid,
                 (int)tid, _IOC_NR(cmd) == NVEMU_ESC_WL_WAIT ? "WL_WAIT" : "WL_SLEEP",
                 stopping ? "the daemon stops" : "too many blocking calls of this user in flight");
    return b;
}

void front_block_end(struct front *f, struct front_blocked *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&f->blocked_lock);
    b->used = false;
    pthread_mutex_unlock(&f->blocked_lock);
}

void front_block_cancel(struct front_blocked *b)
{
    struct front *f = b->f;
    pthread_mutex_lock(&f->blocked_lock);
    if (b->used) {
        atomic_store(&b->cancel, true);
        nvemu_wake(f->emu, b->tid);
    }
    pthread_mutex_unlock(&f->blocked_lock);
}

void front_block_cancel_all(struct front *f)
{
    pthread_mutex_lock(&f->blocked_lock);
    f->stopping = true;
    for (unsigned i = 0; i < FRONT_BLOCKED_MAX; i++) {
        if (f->blocked[i].used) {
            atomic_store(&f->blocked[i].cancel, true);
            nvemu_wake(f->emu, f->blocked[i].tid);
        }
    }
    pthread_mutex_unlock(&f->blocked_lock);
}

/* A blocking call past the limits: its status says the resources are exhausted, the syscall succeeds. */
static void refuse_blocking(void *buf, uint32_t size, uint32_t nr)
{
    uint32_t st = NV_ERR_INSUFFICIENT_RESOURCES;
    size_t off = nr == NVEMU_ESC_WL_WAIT ? offsetof(struct nvemu_wl_wait, status)
                                         : offsetof(struct nvemu_wl_sleep, status);
    if (off + sizeof(st) <= size)
        memcpy((char *)buf + off, &st, sizeof(st));
}

uint32_t front_ioctl_size(const struct front_file *ff, uint32_t cmd)
{
    if (ff->node->kind == NVEMU_NODE_UVM)
        return 0;
    return _IOC_SIZE(cmd);
}

/*
 * REGISTER_FD names an fd of the caller. Resolving it needs another session
 * thread to answer our WHOAMI probe, so it is done here, before the core's
 * lock is taken; the accessor hands the result to the core.
 */
static void pre_resolve(struct front *f, struct procmem_ctx *c, uint32_t nr, uint32_t size, const void *buf)
{
    int ctl_fd;
    if (nr != NV_ESC_REGISTER_FD || size != sizeof(ctl_fd))
        return;
    memcpy(&ctl_fd, buf, sizeof(ctl_fd));
    c->pre_fd = ctl_fd;
    c->pre_op = fdmap_resolve(f, c->tid, c->uid, ctl_fd, &c->pre_hold);
}

/* UVM_REGISTER_GPU_VASPACE names the RM file of its client (rmCtrlFd): resolved like REGISTER_FD's ctl_fd. */
static void pre_resolve_uvm(struct front *f, struct procmem_ctx *c, uint32_t cmd, uint64_t arg)
{
    if (cmd != UVM_IOCTL_REGISTER_GPU_VASPACE || procmem_stage(c, arg, sizeof(uvm_register_gpu_vaspace_params)) != 0 ||
        !c->in[c->n_in - 1].data)
        return;
    uvm_register_gpu_vaspace_params p;
    memcpy(&p, c->in[c->n_in - 1].data, sizeof(p));
    c->pre_fd = p.rmCtrlFd;
    c->pre_op = fdmap_resolve(f, c->tid, c->uid, p.rmCtrlFd, &c->pre_hold);
}

/*
 * The NV0000 OS_UNIX export/import controls name an nvidiactl fd of the caller inside their params (the file
 * objects are exported into or imported from): resolved like REGISTER_FD's ctl_fd, after the params are staged.
 */
static void pre_resolve_export(struct front *f, struct procmem_ctx *c, uint32_t nr, uint32_t size, const void *buf)
{
    static const struct {
        uint32_t cmd, fd_at;
    } rows[] = {
        {NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD, 16},    {NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD, 0},
        {NV0000_CTRL_CMD_OS_UNIX_GET_EXPORT_OBJECT_INFO, 0}, {NV0000_CTRL_CMD_OS_UNIX_CREATE_EXPORT_OBJECT_FD, 72},
        {NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECTS_TO_FD, 0},   {NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECTS_FROM_FD, 0},
    };
    NVOS54_PARAMETERS p;
    if (nr != NV_ESC_RM_CONTROL || size != sizeof(p) || c->pre_fd >= 0)
        return;
    memcpy(&p, buf, sizeof(p));
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int32_t fd;
        if (rows[i].cmd != p.cmd)
            continue;
        if (!p.params || p.paramsSize < rows[i].fd_at + sizeof(fd) ||
            procmem_stage(c, p.params + rows[i].fd_at, sizeof(fd)) != 0 || !c->in[c->n_in - 1].data)
            return;
        memcpy(&fd, c->in[c->n_in - 1].data, sizeof(fd));
        c->pre_fd = fd;
        c->pre_op = fdmap_resolve(f, c->tid, c->uid, fd, &c->pre_hold);
        return;
    }
}

/*
 * Copies in, before the core's lock, what the call will surely touch: every
 * user pointer the escape's descriptor names (abi/nv_abi_desc.h), with the
 * length it gives (control params, the class's allocation params under the
 * emulator's release, requested rights, XFER's inner block and the pointers of
 * that block). What a handler reads beyond these is staged when it first asks.
 */
static void pre_stage(struct procmem_ctx *c, enum nv_release rel, uint32_t nr, uint32_t size, const void *buf,
                      bool nested)
{
    const struct nv_escape_desc *d = nv_escape_desc(nr, size);
    if (!d || !d->size)
        return;
    const unsigned char *b = buf;
    for (unsigned i = 0; i < NV_ESC_MAX_PTRS && d->ptrs[i].what; i++) {
        const struct nv_embedded_ptr *e = &d->ptrs[i];
        uint64_t addr;
        uint32_t word = 0, len = 0;
        memcpy(&addr, b + e->at, sizeof(addr));
        if (e->len == NV_PTR_LEN_FIELD || e->len == NV_PTR_LEN_CLASS || e->len == NV_PTR_LEN_ESCAPE)
            memcpy(&word, b + e->len_at, sizeof(word));
        if (e->len == NV_PTR_LEN_FIELD)
            len = word;
        else if (e->len == NV_PTR_LEN_FIXED)
            len = e->len_at;
        else if (e->len == NV_PTR_LEN_CLASS)
            len = nv_class_params_size(rel, word);
        else if (e->len == NV_PTR_LEN_ESCAPE && !nested)
            memcpy(&len, b + e->len_at + sizeof(word), sizeof(len));
        if (e->out || !addr || !len || len > RMAPI_PARAM_COPY_MAX_PARAMS_SIZE)
            continue;
        if (e->len != NV_PTR_LEN_ESCAPE) {
            procmem_stage(c, addr, len);
            continue;
        }
        if (len > NV_ABSOLUTE_MAX_IOCTL_SIZE || procmem_stage(c, addr, len) != 0)
            return;
        const struct procmem_range *in = &c->in[c->n_in - 1];
        if (in->data)
            pre_stage(c, rel, word & 0xFFu, len, in->data, true);
    }
}

/*
 * The core's call on staged caller memory: each read it finds unstaged drops
 * the call (nothing changed yet); the range is copied in without the lock and
 * the call issued again from the bytes it came with.
 */
static int call_staged(struct front *f, struct front_file *ff, struct procmem_ctx *c, uint32_t nr, uint32_t size,
                       void *buf)
{
    nvemu_access acc;
    procmem_access(c, &acc);
    _Alignas(8) unsigned char orig[NV_ABSOLUTE_MAX_IOCTL_SIZE];
    uint32_t keep = size < sizeof(orig) ? size : (uint32_t)sizeof(orig);
    memcpy(orig, buf, keep);
    for (unsigned round = 0;; round++) {
        int rc = nvemu_ioctl(f->emu, ff->op, nr, size, buf, &acc);
        if (rc != NVEMU_ERR_NOT_STAGED)
            return rc;
        memcpy(buf, orig, keep);
        procmem_drop_writes(c);
        int st = round < PROCMEM_STAGED_RANGES ? procmem_stage_missed(c) : -E2BIG;
        if (st != 0) {
            LOG_INFO("front", "ioctl 0x%02x of tid %d: nested copy-in refused (%s): EFAULT", nr, (int)c->tid,
                     "too much to copy");
            return -EFAULT;
        }
    }
}

/* Where an escape's NV_STATUS lies in a block of `size` bytes when its nested params are copied out (-1: none). */
static long nested_status_offset(uint32_t nr, uint32_t size)
{
    if (nr == NV_ESC_RM_CONTROL && size == sizeof(NVOS54_PARAMETERS))
        return (long)offsetof(NVOS54_PARAMETERS, status);
    if (nr == NV_ESC_RM_ALLOC && size == sizeof(NVOS21_PARAMETERS))
        return (long)offsetof(NVOS21_PARAMETERS, status);
    if (nr == NV_ESC_RM_ALLOC && size == sizeof(NVOS64_PARAMETERS))
        return (long)offsetof(NVOS64_PARAMETERS, status);
    return -1;
}

/*
 * A staged write failed at copy-out (read-only or vanished params). The driver copies a control's or an
 * alloc's params out inside the call and answers a failure with NV_ERR_INVALID_ADDRESS in the status, the
 * syscall returning 0; only the top-level block's own copy-out fails with EFAULT. Inside XFER the top-level
 * block is the inner one at xfer.ptr (staged too): its status word is written again.
 */
static int nested_copyout_failed(const struct procmem_ctx *c, uint32_t nr, uint32_t size, void *buf)
{
    const uint32_t bad = NV_ERR_INVALID_ADDRESS;
    if (nr != NV_ESC_IOCTL_XFER_CMD) {
        long off = nested_status_offset(nr, size);
        if (off < 0)
            return -EFAULT;
        memcpy((char *)buf + off, &bad, sizeof(bad));
        return 0;
    }
    nv_ioctl_xfer_t x;
    memcpy(&x, buf, sizeof(x));
    long off = nested_status_offset(x.cmd & 0xFFu, x.size);
    for (unsigned i = 0; i < c->n_out; i++)
        if (c->out[i].failed && c->out[i].addr == x.ptr)
            return -EFAULT;
    if (off < 0 || callermem_write(c->uid, c->tid, x.ptr + (uint64_t)off, &bad, sizeof(bad)) != 0)
        return -EFAULT;
    return 0;
}

int front_ioctl(struct front *f, struct front_file *ff, pid_t tid, uint32_t cmd, uint64_t arg,
                void *buf, uint32_t size, uint32_t in_len, uint32_t out_cap, uint32_t *out_len,
                struct front_blocked *b)
{
    *out_len = 0;
    /* UVM numbers are not _IOC words: the kernel moved nothing, the core reads and writes the caller's block */
    if (ff->node->kind == NVEMU_NODE_UVM) {
        atomic_fetch_add(&f->uvm_ioctls, 1);
        struct procmem_ctx uc = {.f = f, .tid = tid, .uid = nvemu_opener_identity(ff->op)->uid, .pre_fd = -1,
                                 .pre_op = NULL, .pre_hold = -1};
        pre_resolve_uvm(f, &uc, cmd, arg);
        nvemu_access uacc;
        procmem_access(&uc, &uacc);
        int rc;
        for (unsigned round = 0;; round++) {
            rc = nvemu_ioctl_request(f->emu, ff->op, cmd, arg, &uacc);
            if (rc != NVEMU_ERR_NOT_STAGED)
                break;
            procmem_drop_writes(&uc);
            if (round == PROCMEM_STAGED_RANGES || procmem_stage_missed(&uc) != 0) {
                rc = -EFAULT;
                break;
            }
        }
        if (uc.pre_hold >= 0)
            close(uc.pre_hold);
        if (rc != -EFAULT && procmem_flush_writes(&uc) != 0)
            rc = -EFAULT;
        procmem_ctx_fini(&uc);
        return rc;
    }
    uint64_t token;
    if (cmd == FRONT_IOCTL_WHOAMI && in_len == sizeof(token) && out_cap == sizeof(token) &&
        (memcpy(&token, buf, sizeof(token)), token == f->token)) {
        uint64_t who = (uint64_t)(uintptr_t)ff;
        memcpy(buf, &who, sizeof(who));
        *out_len = sizeof(who);
        return 0;
    }
    /* The driver copies _IOC_SIZE bytes both ways whatever _IOC_DIR says; the kernel only moved what DIR
     * allowed. The rest is the caller's memory like any other: bounded by its uid's share and deadline. */
    uid_t uid = nvemu_opener_identity(ff->op)->uid;
    if (in_len < size && callermem_read(uid, tid, arg + in_len, (char *)buf + in_len, size - in_len) != 0) {
        atomic_fetch_add(&f->front_errors, 1);
        return -EFAULT;
    }
    struct procmem_ctx c = {.f = f, .tid = tid, .uid = uid, .pre_fd = -1, .pre_op = NULL, .pre_hold = -1,
                            .cancel = b ? &b->cancel : NULL};
    uint32_t nr = _IOC_NR(cmd);
    pre_resolve(f, &c, nr, size, buf);
    pre_stage(&c, nvemu_profile(f->emu)->release, nr, size, buf, false);
    pre_resolve_export(f, &c, nr, size, buf);
    int rc = 0;
    if (blocks(ff, cmd) && !b)
        refuse_blocking(buf, size, nr);
    else
        rc = call_staged(f, ff, &c, nr, size, buf);
    /* only now may the file behind REGISTER_FD's ctl_fd be released (and its opener freed) */
    if (c.pre_hold >= 0)
        close(c.pre_hold);
    /* nested results go out now that the core's lock is released */
    if (rc != -EFAULT && procmem_flush_writes(&c) != 0)
        rc = nested_copyout_failed(&c, nr, size, buf);
    procmem_ctx_fini(&c);
    if (rc == -EFAULT)
        return rc;
    /* XFER's header is not written back (its result went to xfer.ptr, which may be the header itself) */
    if (nr == NV_ESC_IOCTL_XFER_CMD)
        return rc;
    uint32_t by_kernel = rc == 0 ? (out_cap < size ? out_cap : size) : 0;
    if (by_kernel < size &&
        callermem_write(uid, tid, arg + by_kernel, (const char *)buf + by_kernel, size - by_kernel) != 0)
        return rc == 0 ? -EFAULT : rc;
    *out_len = by_kernel;
    return rc;
}

static double number_of(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* The daemon's counter summary, copied from the same status document so both read one moment. */
static void add_stats(cJSON *d, const cJSON *root)
{
    cJSON *s = cJSON_AddObjectToObject(d, "stats");
    cJSON_AddNumberToObject(s, "ioctls", number_of(root, "ioctls"));
    cJSON_AddNumberToObject(s, "errors", number_of(root, "errors"));
    cJSON_AddNumberToObject(s, "openers", cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "openers")));
    cJSON_AddNumberToObject(s, "clients", number_of(root, "clients"));
    cJSON_AddNumberToObject(s, "objects", number_of(root, "objects"));
    cJSON_AddNumberToObject(s, "channel_groups", number_of(root, "channel_groups"));
}

char *front_status_json(struct front *f, const char *transport, const char *where)
{
    cJSON *root = nvemu_status_tree(f->emu);
    if (!root)
        return NULL;
    cJSON *d = cJSON_AddObjectToObject(root, "daemon");
    cJSON_AddNumberToObject(d, "pid", f->self);
    cJSON_AddStringToObject(d, "transport", transport);
    cJSON_AddStringToObject(d, "nodes_at", where);
    cJSON_AddNumberToObject(d, "gpus", f->node_count - 2);
    cJSON_AddNumberToObject(d, "uvm_ioctls", (double)atomic_load(&f->uvm_ioctls));
    cJSON_AddNumberToObject(d, "front_errors", (double)atomic_load(&f->front_errors));
    add_stats(d, root);
    char *out = cJSON_Print(root);
    cJSON_Delete(root);
    return out;
}
