/*
 * Replay engine (see replay.h). Per recorded line:
 *   1. the recorded fd is opened at the same number on the recorded path (so
 *      REGISTER_FD's ctl_fd and OS-event fds keep meaning the same thing);
 *   2. the argument block is rebuilt from `in`: auto-assigned/generated handles
 *      are mapped to the emulator's, user pointers point at fresh buffers
 *      filled from the recorded bytes (alloc params from `aparams`, control
 *      params from `pin`, embedded lists zeroed and sized from their counts);
 *   3. the syscall result, the RM status and every output byte (handles
 *      mapped, volatile fields of volatile.c skipped) are compared.
 * With opts.other_client_on_gpu, another process's client and device on GPU 0
 * exist before line 1 (other_client.h): machine state some recordings had.
 */
#include "replay.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nv_abi_desc.h"
#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_discovery.h"
#include "abi/nv_ctrl_monitoring.h"
#include "abi/nv_escape.h"
#include "base/log.h"
#include "front/inproc.h"
#include "nvemu/nvemu.h"
#include "allowlist.h"
#include "identity.h"
#include "order.h"
#include "other_client.h"
#include "rm/rm.h"
#include "trace.h"
#include "volatile.h"

#define NR_REGISTER_FD NV_ESC_REGISTER_FD
#define NR_FREE NV_ESC_RM_FREE
#define NR_CONTROL NV_ESC_RM_CONTROL
#define NR_ALLOC NV_ESC_RM_ALLOC
#define NR_MAP_MEMORY NV_ESC_RM_MAP_MEMORY
#define NR_UPDATE_MAPPING NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO
/* UVM request numbers and blocks (uvm_ioctl.h, uvm_linux_ioctl.h) the replay builds itself for older traces. */
#define UVM_INITIALIZE_REQ 0x30000001u
#define UVM_INITIALIZE_SIZE 16u
#define UVM_DEINITIALIZE_REQ 0x30000002u
#define UVM_REGISTER_GPU_VASPACE_REQ 25u
#define UVM_REGISTER_GPU_VASPACE_SIZE 32u   /* uuid[16], rmCtrlFd, hClient, hVaSpace, rmStatus */

/* Params blocks for classes whose size the recorder did not know: big enough for any class. */
#define UNKNOWN_PARAMS_BYTES 4096u

/* recorded -> emulated values (handles, addresses, seen ids), hashed: a trace of 80 k allocations took 42 s
 * when each lookup scanned every earlier pair. The hash is salted per map, so a trace cannot choose keys
 * that all land in one chain. */
struct pair64 {
    uint64_t rec, emu;
    bool used;
};

struct pairmap {
    struct pair64 *slot;
    uint32_t n, cap; /* cap: 0 or a power of two, at most half full */
    uint64_t salt;
};

struct replay_group;

struct replay {
    nvemu *emu;
    nvemu_fdtable *fds;
    struct replay_group *group;   /* the processes replayed together (replay_files) */
    uint32_t index;               /* this one's place among them */
    const char *label;            /* prefix of its report lines: "" alone, "TRACE " among several */
    struct replay_other_client *other;   /* opts.other_client_on_gpu: the other program's objects */
    nvemu_identity who;
    char fd_path[1024][64];       /* path each recorded fd was opened on ("" = not open) */
    bool fd_registered[1024];     /* REGISTER_FD succeeded on it since it was opened */
    bool fd_attached[1024];       /* ATTACH_GPUS_TO_FD succeeded on it since it was opened */
    bool fd_received[1024];       /* holds an export file another process sent (bind_import) */
    struct slot_range {
        uint32_t lo, n;
    } fd_imported[1024][4];       /* slot ranges of that file imported so far (export_import_done) */
    uint8_t fd_nimported[1024];
    bool sent;                    /* the last call sent a file: the others run before this one goes on */
    bool pid_taken;               /* who.pid is settled (take_recorded_pid) */
    struct pairmap handles;       /* recorded -> emulated auto/generated handles */
    struct pairmap addrs;         /* recorded -> emulated mapping addresses */
    bool rel_set[REPLAY_RELATIVE_COUNTERS];  /* base of each relative counter (volatile.h) */
    uint32_t ids_taken;           /* channel ids its channel and channel-group allocs took (order.h) */
    uint32_t ids_at_first;        /* ids_taken at its first channel, the base of the channel-id counter */
    uint32_t rel_rec[REPLAY_RELATIVE_COUNTERS], rel_emu[REPLAY_RELATIVE_COUNTERS];
    struct ctrl_base {
        uint32_t cmd, off, rec, emu;
    } ctrl_base[16];              /* first answer of each relative control field (replay_relative_ctrl) */
    uint32_t nctrl_base;
    struct seen {
        uint32_t id;              /* control command, or class | SEEN_CLASS */
        bool inexact;             /* some call of it differed beyond the allow-list */
    } *seen;
    uint32_t nseen, capseen;
    struct pairmap seen_ix;       /* id -> its index in seen */
    uint32_t cur_id;              /* what the call being replayed exercises (0: an escape of its own) */
    uint32_t clients[256];        /* client handles the trace allocated (the allow-list asks) */
    uint32_t nclients;
    struct ext_vaspace {
        uint32_t hclient, hvaspace;  /* the emulator's handles */
    } ext_vas[16];                /* externally owned VA spaces, in allocation order (older traces' UVM) */
    uint32_t next_ext_vas, next_ext_vas_free;
    struct unbuilt {
        uint32_t hclient, hobject;  /* recorded handles */
    } unbuilt[64];                /* objects whose alloc was skipped (unbuilt_alloc); a full set forgets the rest */
    uint32_t nunbuilt;
    const struct replay_allowed *used[8];  /* allow-list entries that covered a difference */
    uint32_t nused, allowed;
    FILE *report;
    struct replay_result *res;
    bool verbose;
    const struct buffers *current;  /* the buffers of the call being replayed (buf_owns) */
};

static uint64_t pair_hash(const struct pairmap *m, uint64_t k)
{
    k ^= m->salt;
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ull;
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebull;
    return k ^ (k >> 31);
}

static struct pair64 *pair_slot(const struct pairmap *m, uint64_t rec)
{
    uint32_t i = (uint32_t)pair_hash(m, rec) & (m->cap - 1);
    while (m->slot[i].used && m->slot[i].rec != rec)
        i = (i + 1) & (m->cap - 1);
    return &m->slot[i];
}

static bool pair_add(struct pairmap *m, uint64_t rec, uint64_t emu)
{
    if (2 * (m->n + 1) > m->cap) {
        if (m->cap >= (1u << 30))
            return false;
        struct pairmap g = {.cap = m->cap ? 2 * m->cap : 64, .n = m->n, .salt = m->salt};
        if (!g.cap || !(g.slot = calloc(g.cap, sizeof *g.slot)))
            return false;
        if (!m->cap && getentropy(&g.salt, sizeof g.salt) != 0)
            g.salt = (uint64_t)(uintptr_t)&g ^ (uint64_t)time(NULL);
        for (uint32_t i = 0; i < m->cap; i++)
            if (m->slot[i].used)
                *pair_slot(&g, m->slot[i].rec) = m->slot[i];
        free(m->slot);
        *m = g;
    }
    struct pair64 *p = pair_slot(m, rec);
    m->n += !p->used;
    *p = (struct pair64){rec, emu, true};
    return true;
}

static bool pair_find(const struct pairmap *m, uint64_t rec, uint64_t *emu)
{
    if (!m->cap)
        return false;
    const struct pair64 *p = pair_slot(m, rec);
    if (p->used)
        *emu = p->emu;
    return p->used;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void wr64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/*
 * Rewrites every aligned u32 of a block that is a recorded auto-assigned or
 * generated handle into the emulator's handle. Those handles (0xC1D.....,
 * 0xCAF.....) do not collide with ordinary data in practice.
 */
static void map_handles(const struct replay *r, uint8_t *b, uint32_t len)
{
    for (uint32_t off = 0; off + 4 <= len; off += 4) {
        uint64_t to;
        if (pair_find(&r->handles, rd32(b + off), &to))
            wr32(b + off, (uint32_t)to);
    }
}

/* ---- the module that answers a call, named in the mismatch list ---- */

/*
 * Who constructs a class: the owner of its class table (rm_class_tables); a class no table registers is the
 * FIFO's when its descriptor names a channel kind (an older channel interface), else the resource server's.
 */
static const char *class_owner(uint32_t hclass)
{
    for (const struct rm_class_table *t = rm_class_tables; t->rows; t++)
        for (const struct rm_class_row *row = t->rows; row->name; row++)
            if (row->hclass == hclass)
                return t->owner;
    if (nv_class_is(hclass, NV_CK_TSG) || nv_class_is(hclass, NV_CK_CTXSHARE) || nv_class_is(hclass, NV_CK_CHANNEL))
        return "emu/fifo";
    return "emu/rm";
}

/* The control tables say who answers (rm_ctrl_tables' owner); a control of a FIFO class is the FIFO's. */
static const char *ctrl_owner(uint32_t cmd)
{
    if (strcmp(class_owner(cmd >> 16), "emu/fifo") == 0)
        return "emu/fifo";
    for (const struct rm_ctrl_table *t = rm_ctrl_tables; t->rows; t++)
        for (const struct rm_ctrl_row *row = t->rows; row->name; row++)
            if (row->cmd == cmd)
                return t->owner;
    return "emu/rm";
}

/* ---- reporting ---- */

static void mismatch(struct replay *r, const struct trace_call *tc, const char *owner, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define SEEN_CLASS 0x80000000u

static bool own_client(void *ctx, uint32_t hclient)
{
    const struct replay *r = ctx;
    for (uint32_t i = 0; i < r->nclients; i++)
        if (r->clients[i] == hclient)
            return true;
    return false;
}

static struct seen *seen_entry(struct replay *r, uint32_t id)
{
    uint64_t at;
    if (pair_find(&r->seen_ix, id, &at))
        return &r->seen[at];
    if (r->nseen == r->capseen) {
        uint32_t cap = r->capseen ? 2 * r->capseen : 64;
        struct seen *n = realloc(r->seen, cap * sizeof *n);
        if (!n)
            return NULL;
        r->seen = n;
        r->capseen = cap;
    }
    if (!pair_add(&r->seen_ix, id, r->nseen))
        return NULL;
    r->seen[r->nseen] = (struct seen){id, false};
    return &r->seen[r->nseen++];
}

static void mismatch(struct replay *r, const struct trace_call *tc, const char *owner, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct replay_allow_ctx ax = {own_client, r};
    const struct replay_allowed *a = replay_allowed_for(tc, &ax);
    if (a) {
        fprintf(r->report, "%sline %d: allowed (%s): %s\n", r->label, tc->line, a->name, msg);
        r->allowed++;
        uint32_t i = 0;
        while (i < r->nused && r->used[i] != a)
            i++;
        if (i == r->nused && r->nused < sizeof r->used / sizeof r->used[0])
            r->used[r->nused++] = a;
        return;
    }
    fprintf(r->report, "%sline %d: %s [%s]\n", r->label, tc->line, msg, owner);
    r->res->mismatches++;
    struct seen *e = r->cur_id ? seen_entry(r, r->cur_id) : NULL;
    if (e)
        e->inexact = true;
}

/*
 * Compares `got` with the recorded `want` (handles in `want` mapped first),
 * skipping volatile ranges. Returns the first differing offset or -1.
 */
static long compare_block(const struct replay *r, const uint8_t *got, const uint8_t *want_rec, uint32_t len,
                          const struct replay_volatile *v, uint32_t nv, const struct nv_ctrl_embedded *e,
                          uint32_t ne)
{
    if (len == 0)
        return -1;
    uint8_t *want = malloc(len);
    if (!want)
        return 0;
    memcpy(want, want_rec, len);
    map_handles(r, want, len);
    long diff = -1;
    for (uint32_t i = 0; i < len && diff < 0; i++) {
        bool skip = false;
        for (uint32_t k = 0; k < nv && !skip; k++)
            skip = i >= v[k].off && i < v[k].off + v[k].len;
        for (uint32_t k = 0; k < ne && !skip; k++)
            skip = i >= e[k].ptr_off && i < e[k].ptr_off + 8;
        if (!skip && got[i] != want[i])
            diff = (long)i;
    }
    free(want);
    return diff;
}

static void hexdump_word(char *buf, size_t n, const uint8_t *b, uint32_t len, long off)
{
    uint32_t start = (uint32_t)off & ~3u;
    size_t k = 0;
    for (uint32_t i = start; i < start + 8 && i < len && k + 3 < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%02x", b[i]);
    buf[k] = 0;
}

static bool replay_order_in_effect(const struct replay *r);
static bool other_process_pid(void *ctx, uint32_t pid);

static void report_diff(struct replay *r, const struct trace_call *tc, const char *owner, const char *what,
                        const uint8_t *got, const uint8_t *want_rec, uint32_t len, long off)
{
    uint8_t *want = malloc(len);
    char g[24], w[24];
    if (!want)
        return;
    memcpy(want, want_rec, len);
    map_handles(r, want, len);
    hexdump_word(g, sizeof g, got, len, off);
    hexdump_word(w, sizeof w, want, len, off);
    /* a control's params ("control 0x... params"), not its argument block or a UVM block */
    uint32_t cmd = !strcmp(tc->kind, "CTRL") && !strncmp(what, "control", 7) ? tc->cmd : 0;
    const char *board = cmd ? replay_board_identity(cmd) : NULL;
    if (!board && cmd)
        board = replay_board_identity_entries(cmd, got, want, len);
    bool order = !board && cmd == NV2080_CTRL_CMD_GPU_GET_PID_INFO && replay_order_in_effect(r) &&
                 replay_order_pid_info(got, want, len, other_process_pid, r);
    free(want);
    if (order) {
        fprintf(r->report, "%sline %d: order (%s): %s differ at byte %ld: got %s, recorded %s (video memory of "
                "another process of this replay)\n", r->label, tc->line, REPLAY_ORDER_WHY, what, off, g, w);
        r->res->order++;
        return;
    }
    if (board) {
        /* a per-board answer: the trace came from another board of the profile's kind */
        fprintf(r->report, "%sline %d: board identity (%s): %s differ at byte %ld: got %s, recorded %s\n", r->label, tc->line,
                board, what, off, g, w);
        r->res->board_identity++;
        return;
    }
    mismatch(r, tc, owner, "%s differ at byte %ld: got %s, recorded %s", what, off, g, w);
}

/* ---- fds ---- */

static int ensure_fd(struct replay *r, const struct trace_call *tc)
{
    if (tc->fd < 0 || tc->fd >= (int)(sizeof r->fd_path / sizeof r->fd_path[0])) {
        errno = EMFILE;
        return -1;
    }
    char *known = r->fd_path[tc->fd];
    /*
     * The trace holds no open/close: a second REGISTER_FD on one fd number means the program closed it
     * and opened the node again (the driver refuses to register an open file twice), so reopen it; so does
     * a call on a received export file that objects were imported from (such a file is only named in
     * import params: the number was closed and opened again).
     */
    errno = 0;
    bool reopened = (tc->nr == NR_REGISTER_FD && r->fd_registered[tc->fd]) ||
                    (tc->nr == NV_ESC_ATTACH_GPUS_TO_FD && r->fd_attached[tc->fd]) ||
                    (r->fd_received[tc->fd] && r->fd_nimported[tc->fd]);
    if (known[0] && !strcmp(known, tc->path) && !reopened)
        return 0;
    r->fd_registered[tc->fd] = false;
    r->fd_attached[tc->fd] = false;
    r->fd_received[tc->fd] = false;
    r->fd_nimported[tc->fd] = 0;
    if (known[0])
        nvemu_fdtable_close(r->fds, tc->fd);
    known[0] = 0;
    if (nvemu_fdtable_open_at(r->fds, tc->fd, tc->path, &r->who) < 0)
        return -1;
    snprintf(known, sizeof r->fd_path[0], "%s", tc->path);
    return 0;
}

/* ---- processes replayed together: export files handed from one to another ---- */

/*
 * What the trace of one process cannot say: which file an fd number it received over a unix socket
 * is. A file a process exported RM objects into (OS_UNIX EXPORT_OBJECT(S)_TO_FD) is sent, as NCCL
 * and CUDA's shareable pools do, and the sender's number is free again; the next import-side call
 * (GET_EXPORT_OBJECT_INFO, IMPORT_OBJECT(S)_FROM_FD) of another process on a number it did not open
 * itself receives the oldest file sent by another process, and after the import the receiver has
 * closed it. Files in flight wait in a table of their own.
 */
#define GROUP_MAX_SENT 256u

struct replay_group {
    nvemu_fdtable *transit;
    struct sent_file {
        int fd;          /* in transit */
        uint32_t from;   /* the sender's index */
        int origin;      /* the sender's fd it left */
    } sent[GROUP_MAX_SENT];
    uint32_t nsent;
    uint32_t nprocs;
    struct replay *members;  /* the processes, nprocs of them */
    struct uuid_pair {
        uint8_t rec[16], emu[16];
    } uuids[32];         /* a GPU UUID of the recorded machine -> the emulated GPU that answered in its place */
    uint32_t nuuids;
    bool order;          /* replay_order_applies: untimed traces of several processes */
    struct order_pending {
        struct replay *r;
        int line;
        uint32_t hclass, off, got_delta, rec_delta, own_ids, cur_id;
        const char *owner;
    } pending[256];      /* channel-id differences, classed once every process has run (resolve_order) */
    uint32_t npending;
};

static bool replay_order_in_effect(const struct replay *r)
{
    return r->group->order;
}

/* A pid that another process of this replay runs under (take_recorded_pid). */
static bool other_process_pid(void *ctx, uint32_t pid)
{
    const struct replay *r = ctx;
    for (uint32_t i = 0; i < r->group->nprocs; i++) {
        const struct replay *m = &r->group->members[i];
        if (m != r && m->pid_taken && (uint32_t)m->who.pid == pid)
            return true;
    }
    return false;
}

/*
 * A channel id that differs from the recorded one in an untimed replay of several processes waits until every
 * process has run: only then is it known how many ids the others take (replay_order_channel_id). False (the
 * caller reports a mismatch now) when the order class does not apply or the allow-list covers the call.
 */
static bool defer_channel_id(struct replay *r, const struct trace_call *tc, const char *owner, uint32_t hclass,
                             uint32_t off, uint32_t got_delta, uint32_t rec_delta)
{
    struct replay_group *g = r->group;
    struct replay_allow_ctx ax = {own_client, r};
    if (!g->order || !nv_class_is(hclass, NV_CK_CHANNEL) || off != offsetof(NV_CHANNEL_ALLOC_PARAMS, cid) ||
        replay_allowed_for(tc, &ax) || g->npending == sizeof g->pending / sizeof g->pending[0])
        return false;
    g->pending[g->npending++] = (struct order_pending){r, tc->line, hclass, off, got_delta, rec_delta,
                                                      r->ids_taken - r->ids_at_first, r->cur_id, owner};
    return true;
}

/* Classes each deferred channel id as order or mismatch, now that every process's ids are counted. */
static void resolve_order(struct replay_group *g)
{
    for (uint32_t i = 0; i < g->npending; i++) {
        const struct order_pending *p = &g->pending[i];
        struct replay *r = p->r;
        uint32_t others = 0;
        for (uint32_t k = 0; k < g->nprocs; k++)
            others += &g->members[k] != r ? g->members[k].ids_taken : 0;
        if (replay_order_channel_id(p->rec_delta, p->own_ids, others)) {
            fprintf(r->report, "%sline %d: order (%s): class 0x%04x alloc params @%u (channel id): +%u from the first, "
                    "recorded +%u; ids taken since its first channel by this process: %u, by the others in all: %u\n",
                    r->label, p->line, REPLAY_ORDER_WHY, p->hclass, p->off, p->got_delta, p->rec_delta, p->own_ids,
                    others);
            r->res->order++;
            continue;
        }
        fprintf(r->report, "%sline %d: class 0x%04x alloc params @%u: +%u from the first, recorded +%u [%s]\n", r->label,
                p->line, p->hclass, p->off, p->got_delta, p->rec_delta, p->owner);
        r->res->mismatches++;
        struct seen *e = p->cur_id ? seen_entry(r, p->cur_id) : NULL;
        if (e)
            e->inexact = true;
    }
    g->npending = 0;
}

/*
 * GPU_GET_GID_INFO in binary form: the emulated GPU that answered it is the one the recorded UUID names from now
 * on (the answers themselves differ as board identity when the trace came from other boards).
 */
static void learn_uuid(struct replay *r, const struct trace_call *tc, uint32_t cmd, const uint8_t *params,
                       uint32_t plen)
{
    const size_t data = offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data);
    struct replay_group *g = r->group;
    if (!g || cmd != NV2080_CTRL_CMD_GPU_GET_GID_INFO || plen < data + 16 || !tc->pout.present ||
        tc->pout.len != plen ||
        (rd32(params + offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, flags)) &
         NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_MASK) != NV2080_GPU_CMD_GPU_GET_GID_FLAGS_FORMAT_BINARY ||
        rd32(params + offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, length)) != 16 ||
        rd32(tc->pout.data + offsetof(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, length)) != 16)
        return;
    for (uint32_t i = 0; i < g->nuuids; i++)
        if (!memcmp(g->uuids[i].rec, tc->pout.data + data, 16))
            return;
    if (g->nuuids < sizeof g->uuids / sizeof g->uuids[0]) {
        memcpy(g->uuids[g->nuuids].rec, tc->pout.data + data, 16);
        memcpy(g->uuids[g->nuuids].emu, params + data, 16);
        g->nuuids++;
    }
}

/*
 * The UVM driver's inputs name GPUs by UUID (REGISTER_GPU, REGISTER_GPU_VASPACE, external mappings' per-GPU
 * attributes, peer access): in a block (len bytes) every UUID of the recorded machine becomes the emulated GPU's.
 */
static void map_uuids(const struct replay *r, uint8_t *b, uint32_t len)
{
    const struct replay_group *g = r->group;
    for (uint32_t off = 0; g && g->nuuids && off + 16 <= len; off++)
        for (uint32_t i = 0; i < g->nuuids; i++)
            if (!memcmp(b + off, g->uuids[i].rec, 16)) {
                memcpy(b + off, g->uuids[i].emu, 16);
                off += 15;
                break;
            }
}

#define CMD_EXPORT_OBJECT_TO_FD    0x3d05u   /* fd @16 */
#define CMD_IMPORT_OBJECT_FROM_FD  0x3d06u   /* fd @0 */
#define CMD_GET_EXPORT_OBJECT_INFO 0x3d08u   /* fd @0 */
#define CMD_EXPORT_OBJECTS_TO_FD   0x3d0bu   /* fd @0 */
#define CMD_IMPORT_OBJECTS_FROM_FD 0x3d0cu   /* fd @0 */

static bool import_side(uint32_t cmd)
{
    return cmd == CMD_IMPORT_OBJECT_FROM_FD || cmd == CMD_GET_EXPORT_OBJECT_INFO || cmd == CMD_IMPORT_OBJECTS_FROM_FD;
}

/*
 * The slots an import-side call takes from its file: IMPORT_OBJECTS_FROM_FD numObjects @648 from index @650,
 * IMPORT_OBJECT_FROM_FD slot 0, GET_EXPORT_OBJECT_INFO none.
 */
static struct slot_range import_slots(uint32_t cmd, const uint8_t *params, uint32_t plen)
{
    if (cmd == CMD_IMPORT_OBJECT_FROM_FD)
        return (struct slot_range){0, 1};
    if (cmd != CMD_IMPORT_OBJECTS_FROM_FD || plen < 652)
        return (struct slot_range){0, 0};
    return (struct slot_range){(uint32_t)params[650] | (uint32_t)params[651] << 8,
                               (uint32_t)params[648] | (uint32_t)params[649] << 8};
}

/*
 * A received file serves further imports of slots not imported from it yet (CUDA's shareable pools import
 * a pool's memory and its fabric object from one file); an import of a slot taken before, an info query
 * after imports, or any import once four ranges were taken, is about the next file sent (NCCL: one file per
 * buffer, the fd number reused).
 */
static bool file_used_up(const struct replay *r, uint32_t fd, uint32_t cmd, const uint8_t *params, uint32_t plen)
{
    uint32_t k = r->fd_nimported[fd];
    if (k == 0)
        return false;
    if (cmd == CMD_GET_EXPORT_OBJECT_INFO || k == sizeof r->fd_imported[0] / sizeof r->fd_imported[0][0])
        return true;
    struct slot_range want = import_slots(cmd, params, plen);
    for (uint32_t i = 0; i < k; i++) {
        const struct slot_range *had = &r->fd_imported[fd][i];
        if (want.lo < had->lo + had->n && had->lo < want.lo + want.n)
            return true;
    }
    return false;
}

static bool fd_in_range(const struct replay *r, uint32_t fd)
{
    return fd < sizeof r->fd_path / sizeof r->fd_path[0];
}

/* The oldest file in flight from another process, or -1. */
static int sent_from_other(const struct replay *r)
{
    for (uint32_t i = 0; r->group && i < r->group->nsent; i++)
        if (r->group->sent[i].from != r->index)
            return (int)i;
    return -1;
}

/* An import-side call of tc's process must wait for another process to send a file first. */
static bool waits_for_file(const struct replay *r, const struct trace_call *tc)
{
    if (!r->group || r->group->nprocs < 2 || tc->nr != NR_CONTROL || tc->size != 32 || !tc->pin.present ||
        tc->pin.len < 4 || !import_side(rd32(tc->in.data + 8)))
        return false;
    uint32_t fd = rd32(tc->pin.data), cmd = rd32(tc->in.data + 8);
    return fd_in_range(r, fd) &&
           (!r->fd_received[fd] || file_used_up(r, fd, cmd, tc->pin.data, tc->pin.len)) &&
           sent_from_other(r) < 0;
}

/* Before an import-side call: the fd it names receives the oldest file another process sent. */
static void bind_import(struct replay *r, uint32_t cmd, const uint8_t *params, uint32_t plen)
{
    if (!r->group || r->group->nprocs < 2 || !import_side(cmd) || plen < 4)
        return;
    uint32_t fd = rd32(params);
    int i = sent_from_other(r);
    if (!fd_in_range(r, fd) || i < 0 || (r->fd_received[fd] && !file_used_up(r, fd, cmd, params, plen)))
        return;
    struct replay_group *g = r->group;
    if (nvemu_fdtable_move(g->transit, g->sent[i].fd, r->fds, (int)fd) < 0)
        return;
    memmove(&g->sent[i], &g->sent[i + 1], (g->nsent - (uint32_t)i - 1) * sizeof g->sent[0]);
    g->nsent--;
    snprintf(r->fd_path[fd], sizeof r->fd_path[0], "/dev/nvidiactl");
    r->fd_registered[fd] = r->fd_attached[fd] = false;
    r->fd_received[fd] = true;
    r->fd_nimported[fd] = 0;
}

/*
 * Before an export-side call: a file this process sent that no other has taken yet comes back to the fd it
 * left (the trace holds no close: a sender that exports into it again still had it open; CUDA's pools
 * export a pool's memory and then its fabric object into one file).
 */
static void recall_export(struct replay *r, uint32_t cmd, const uint8_t *params, uint32_t plen)
{
    struct replay_group *g = r->group;
    uint32_t off = cmd == CMD_EXPORT_OBJECT_TO_FD ? 16 : 0;
    if (!g || g->nprocs < 2 || (cmd != CMD_EXPORT_OBJECT_TO_FD && cmd != CMD_EXPORT_OBJECTS_TO_FD) ||
        plen < off + 4)
        return;
    uint32_t fd = rd32(params + off);
    if (!fd_in_range(r, fd) || r->fd_path[fd][0])
        return;
    for (uint32_t i = 0; i < g->nsent; i++) {
        if (g->sent[i].from != r->index || g->sent[i].origin != (int)fd)
            continue;
        if (nvemu_fdtable_move(g->transit, g->sent[i].fd, r->fds, (int)fd) < 0)
            return;
        memmove(&g->sent[i], &g->sent[i + 1], (g->nsent - i - 1) * sizeof g->sent[0]);
        g->nsent--;
        snprintf(r->fd_path[fd], sizeof r->fd_path[0], "/dev/nvidiactl");
        return;
    }
}

/* EXPORT_OBJECTS_TO_FD params (numObjects @2124, objects[] @76) name at least one object. */
static bool exports_an_object(const uint8_t *params, uint32_t plen)
{
    if (plen < 2128)
        return false;
    uint32_t n = (uint32_t)params[2124] | (uint32_t)params[2125] << 8;
    for (uint32_t i = 0; i < n && i < 512; i++)
        if (rd32(params + 76 + 4 * i))
            return true;
    return false;
}

/* After a successful export the file is sent (and the sender's fd closed); an import notes the slots it took. */
static void export_import_done(struct replay *r, uint32_t cmd, const uint8_t *params, uint32_t plen)
{
    struct replay_group *g = r->group;
    if (!g || g->nprocs < 2)
        return;
    uint32_t off = cmd == CMD_EXPORT_OBJECT_TO_FD ? 16 : 0;
    bool export = cmd == CMD_EXPORT_OBJECT_TO_FD || cmd == CMD_EXPORT_OBJECTS_TO_FD;
    bool import = cmd == CMD_IMPORT_OBJECT_FROM_FD || cmd == CMD_IMPORT_OBJECTS_FROM_FD;
    if ((!export && !import) || plen < off + 4)
        return;
    uint32_t fd = rd32(params + off);
    if (!fd_in_range(r, fd) || !r->fd_path[fd][0])
        return;
    if (import && !r->fd_received[fd])
        return;
    if (import) {
        if (r->fd_nimported[fd] < sizeof r->fd_imported[0] / sizeof r->fd_imported[0][0])
            r->fd_imported[fd][r->fd_nimported[fd]++] = import_slots(cmd, params, plen);
        return;
    }
    /* a call that only sets the file up (CUDA's pools: every slot 0) is followed by the one that fills it */
    if (cmd == CMD_EXPORT_OBJECTS_TO_FD && !exports_an_object(params, plen))
        return;
    if (export && g->nsent < GROUP_MAX_SENT) {
        int t = nvemu_fdtable_move(r->fds, (int)fd, g->transit, -1);
        if (t >= 0) {
            g->sent[g->nsent++] = (struct sent_file){t, r->index, (int)fd};
            r->sent = true;
        }
    } else {
        nvemu_fdtable_close(r->fds, (int)fd);
    }
    r->fd_path[fd][0] = 0;
    r->fd_registered[fd] = r->fd_attached[fd] = r->fd_received[fd] = false;
}

/*
 * Relative control fields (replay_relative_ctrl): each must have moved from the control's first answer by
 * as much as in the recording; then the recorded value is put in so the rest of the block compares.
 * False after reporting a mismatch.
 */
static bool relative_ctrl_fields(struct replay *r, const struct trace_call *tc, const char *owner, uint32_t cmd,
                                 uint8_t *params)
{
    uint32_t offs[4];
    const char *why[4];
    uint32_t n = replay_relative_ctrl(cmd, offs, why, 4);
    for (uint32_t i = 0; i < n; i++) {
        if (offs[i] + 4 > tc->pout.len)
            continue;
        uint32_t rec = rd32(tc->pout.data + offs[i]), got = rd32(params + offs[i]);
        struct ctrl_base *b = NULL;
        for (uint32_t k = 0; k < r->nctrl_base && !b; k++)
            if (r->ctrl_base[k].cmd == cmd && r->ctrl_base[k].off == offs[i])
                b = &r->ctrl_base[k];
        if (!b && r->nctrl_base < sizeof r->ctrl_base / sizeof r->ctrl_base[0]) {
            b = &r->ctrl_base[r->nctrl_base++];
            *b = (struct ctrl_base){cmd, offs[i], rec, got};
        }
        if (b && rec - b->rec != got - b->emu) {
            mismatch(r, tc, owner, "control 0x%08x params @%u: +%u from the first answer, recorded +%u (%s)", cmd,
                     offs[i], got - b->emu, rec - b->rec, why[i]);
            return false;
        }
        wr32(params + offs[i], rec);
    }
    return true;
}

/* ---- one call ---- */

struct buffers {
    void *list[8];
    uint32_t len[8];
    int n;
};

static void *buf_new(struct buffers *b, uint32_t len)
{
    if (b->n == (int)(sizeof b->list / sizeof b->list[0]))
        return NULL;
    void *p = calloc(1, len ? len : 1);
    if (p) {
        b->len[b->n] = len;
        b->list[b->n++] = p;
    }
    return p;
}

/*
 * The emulator may touch only the buffers of the call being replayed: a
 * pointer taken from the trace (an XFER's inner block, an embedded list the
 * table does not know) is an address of the recording process, never one of ours.
 */
static bool buf_owns(void *ctx, uint64_t addr, size_t len)
{
    const struct buffers *b = *(const struct buffers *const *)ctx;
    for (int i = 0; b && i < b->n; i++) {
        uint64_t lo = (uint64_t)(uintptr_t)b->list[i];
        if (addr >= lo && len <= b->len[i] && addr - lo <= b->len[i] - len)
            return true;
    }
    return false;
}

static void buf_free(struct buffers *b)
{
    for (int i = 0; i < b->n; i++)
        free(b->list[i]);
    b->n = 0;
}

/* The status word of the escapes whose status the report names (the block compare catches the others). */
static uint32_t status_offset(uint32_t nr, uint32_t size)
{
    const struct nv_escape_desc *d = nr == NR_FREE || nr == NR_CONTROL || nr == NR_ALLOC ? nv_escape_desc(nr, size) : NULL;
    return d && d->status_at != NV_ESC_NO_STATUS ? d->status_at : ~0u;
}

/* A list the replay handed behind an embedded pointer, and where its recorded bytes sit in ein/eout. */
struct list_buf {
    const struct nv_ctrl_embedded *row;
    uint8_t *data;
    uint32_t len, at;
};

/*
 * Points each embedded pointer of a control's params (rows e[0..ne)) at a fresh buffer of the replay, sized from
 * its count. A trace that recorded the lists (ein, recorders since programs4-nccl) fills them with what the
 * program passed; an older one hands them zeroed. ein holds the lists of the rows whose pointer was not NULL, in
 * row order, each count x elem bytes: one that does not add up to that is not used. Returns the lists handed.
 */
static uint32_t embedded_lists(struct replay *r, const struct trace_call *tc, struct buffers *bufs, uint8_t *params,
                               uint32_t plen, const struct nv_ctrl_embedded *e, uint32_t ne, struct list_buf *out)
{
    uint32_t n = 0, total = 0;
    for (uint32_t i = 0; i < ne && n < NV_CTRL_MAX_EMBEDDED; i++) {
        if (e[i].ptr_off + 8 > plen || e[i].count_off + 4 > plen || !rd64(params + e[i].ptr_off))
            continue;
        uint64_t bytes = (uint64_t)rd32(params + e[i].count_off) * e[i].elem;
        /* The driver refuses lists above 1 MiB before touching them: keep the recorded pointer. */
        if (bytes == 0 || bytes > (1u << 20))
            continue;
        uint8_t *list = buf_new(bufs, (uint32_t)bytes);
        if (!list)
            continue;
        wr64(params + e[i].ptr_off, (uint64_t)(uintptr_t)list);
        out[n++] = (struct list_buf){&e[i], list, (uint32_t)bytes, total};
        total += (uint32_t)bytes;
    }
    bool recorded = tc->ein.present && tc->ein.len == total;
    for (uint32_t i = 0; recorded && i < n; i++) {
        memcpy(out[i].data, tc->ein.data + out[i].at, out[i].len);
        map_handles(r, out[i].data, out[i].len);
    }
    return n;
}

/* Compares each list the emulator answered with the recorded eout (when it holds them all). */
static void compare_lists(struct replay *r, const struct trace_call *tc, const char *owner, uint32_t cmd,
                          const struct list_buf *l, uint32_t n)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += l[i].len;
    if (tc->eout.len != total || tc->ein.len != total)
        return;
    for (uint32_t i = 0; i < n; i++) {
        long off = compare_block(r, l[i].data, tc->eout.data + l[i].at, l[i].len, NULL, 0, NULL, 0);
        if (off >= 0) {
            char what[128];
            snprintf(what, sizeof what, "control 0x%08x %s", cmd, l[i].row->what);
            report_diff(r, tc, owner, what, l[i].data, tc->eout.data + l[i].at, l[i].len, off);
            return;
        }
    }
}

/*
 * An alloc recorded without its params block (the recorder knew no size for the class: the driver takes the
 * size from its class table when paramsSize is 0, rmapiParamsCopyInit in rmapi/param_copy.c, 580.x) whose class
 * the emulator models from required params: a zeroed block cannot stand for what the program passed (NV50_P2P's
 * two subdevice handles), so the call is skipped, and so are later calls on the object it made.
 */
static bool unbuilt_alloc(const struct trace_call *tc)
{
    if (tc->nr != NR_ALLOC || (tc->size != 32 && tc->size != 48) || tc->aparams.present || !rd64(tc->in.data + 16))
        return false;
    const struct rm_class_row *row = rm_class_lookup(rd32(tc->in.data + 12));
    return row && row->modelled && row->params == RM_PARAMS_REQUIRED && row->param_size > 0;
}

/*
 * True when a FREE or CONTROL line names an object whose alloc was skipped; its free takes it out of the set, and
 * so does the free of its client (the handle may then name a new object).
 */
static bool on_unbuilt(struct replay *r, const struct trace_call *tc)
{
    uint32_t hc, h;
    if (tc->nr == NR_FREE && tc->size == 16) {
        hc = rd32(tc->in.data);
        h = rd32(tc->in.data + 8);
    } else if (tc->nr == NR_CONTROL && tc->size == 32) {
        hc = rd32(tc->in.data);
        h = rd32(tc->in.data + 4);
    } else {
        return false;
    }
    bool on = false;
    for (uint32_t i = 0; i < r->nunbuilt;) {
        struct unbuilt *u = &r->unbuilt[i];
        bool named = u->hclient == hc && u->hobject == h;
        on |= named;
        if (tc->nr == NR_FREE && u->hclient == hc && (named || h == hc))
            *u = r->unbuilt[--r->nunbuilt];
        else
            i++;
    }
    return on;
}

/*
 * A control of the embedded-pointer table whose line holds neither ein nor eout (recorders before
 * programs4-nccl) while its params point at a list the driver reads (the indices GET_SURFACE_INFO answers):
 * what the program asked is unknown, so the call cannot be compared. A list the driver only writes (build
 * strings, class list) is rebuilt faithfully as a zeroed one, and its call compared as before. A recorded list
 * that differs stays a mismatch (compare_lists).
 */
static bool lists_not_recorded(const struct trace_call *tc)
{
    if (tc->nr != NR_CONTROL || tc->size != 32 || tc->ein.present || tc->eout.present || !tc->pin.present ||
        !rd64(tc->in.data + 16))
        return false;
    const struct nv_ctrl_embedded *e;
    uint32_t ne = replay_embedded_ptrs(rd32(tc->in.data + 8), &e);
    for (uint32_t i = 0; i < ne; i++)
        if (e[i].read && e[i].ptr_off + 8 <= tc->pin.len && e[i].count_off + 4 <= tc->pin.len &&
            rd64(tc->pin.data + e[i].ptr_off) && rd32(tc->pin.data + e[i].count_off))
            return true;
    return false;
}

static void replay_call(struct replay *r, const struct trace_call *tc)
{
    if (unbuilt_alloc(tc)) {
        uint32_t so = status_offset(tc->nr, tc->size);
        bool made = tc->ret == 0 && so != ~0u && rd32(tc->out.data + so) == NV_OK;
        if (made && r->nunbuilt < sizeof r->unbuilt / sizeof r->unbuilt[0])
            r->unbuilt[r->nunbuilt++] = (struct unbuilt){rd32(tc->out.data), rd32(tc->out.data + 8)};
        r->res->skipped_rm++;
        return;
    }
    if (on_unbuilt(r, tc)) {
        r->res->skipped_rm++;
        return;
    }
    if (lists_not_recorded(tc)) {
        r->res->skipped_lists++;
        return;
    }
    r->cur_id = 0;
    if (tc->nr == NR_CONTROL && tc->size == 32)
        r->cur_id = rd32(tc->in.data + 8);
    else if (tc->nr == NR_ALLOC && (tc->size == 32 || tc->size == 48))
        r->cur_id = rd32(tc->in.data + 12) | SEEN_CLASS;
    if (r->cur_id)
        seen_entry(r, r->cur_id);
    struct buffers bufs = {0};
    const char *owner = "emu/rm";
    uint32_t size = tc->size;
    uint8_t *arg = buf_new(&bufs, size);
    if (!arg) {
        mismatch(r, tc, "emu/profile", "replay out of memory");
        return;
    }
    if (size)
        memcpy(arg, tc->in.data, size);

    uint8_t *params = NULL;       /* control params or alloc params we handed in */
    uint32_t plen = 0;
    const struct nv_ctrl_embedded *emb = NULL;
    uint32_t nemb = 0, nlists = 0;
    struct list_buf lists[NV_CTRL_MAX_EMBEDDED];
    bool auto_handle = false;
    uint32_t hclass = 0;

    if (tc->nr == NR_ALLOC && (size == 32 || size == 48)) {
        hclass = rd32(arg + 12);
        owner = class_owner(hclass);
        auto_handle = rd32(arg + 8) == 0 || nv_class_is(hclass, NV_CK_ROOT);
        map_handles(r, arg, 16);
        if (rd64(arg + 16)) {
            plen = tc->aparams.present ? tc->aparams.len : UNKNOWN_PARAMS_BYTES;
            params = buf_new(&bufs, plen > UNKNOWN_PARAMS_BYTES ? plen : UNKNOWN_PARAMS_BYTES);
            if (tc->aparams.present) {
                memcpy(params, tc->aparams.data, plen);
                map_handles(r, params, plen);
            }
            wr64(arg + 16, (uint64_t)(uintptr_t)params);
        }
        if (size == 48 && rd64(arg + 24)) {
            /* RS_ACCESS_MASK behind the pointer is not recorded: ask for no specific rights. */
            uint8_t *rights = buf_new(&bufs, 4);
            wr64(arg + 24, (uint64_t)(uintptr_t)rights);
        }
    } else if (tc->nr == NR_CONTROL && size == 32) {
        owner = ctrl_owner(tc->cmd ? tc->cmd : rd32(arg + 8));
        map_handles(r, arg, 8);
        uint32_t cmd = rd32(arg + 8);
        plen = rd32(arg + 24);
        if (rd64(arg + 16)) {
            if (!tc->pin.present || tc->pin.len != plen) {
                mismatch(r, tc, "emu/profile", "control 0x%08x: pin holds %u bytes, paramsSize is %u", cmd,
                         tc->pin.present ? tc->pin.len : 0, plen);
                buf_free(&bufs);
                return;
            }
            params = buf_new(&bufs, plen);
            memcpy(params, tc->pin.data, plen);
            map_handles(r, params, plen);
            nemb = replay_embedded_ptrs(cmd, &emb);
            nlists = embedded_lists(r, tc, &bufs, params, plen, emb, nemb, lists);
            wr64(arg + 16, (uint64_t)(uintptr_t)params);
        }
    } else if (tc->nr == NR_FREE && size == 16) {
        map_handles(r, arg, 12);
    } else if (tc->nr == NR_UPDATE_MAPPING && size == 40) {
        map_handles(r, arg, 12);
        for (uint32_t off = 16; off <= 24; off += 8) {
            uint64_t to;
            if (pair_find(&r->addrs, rd64(arg + off), &to))
                wr64(arg + off, to);
        }
    } else if (size >= 12 && tc->nr < NV_ESC_CARD_INFO) { /* RM escapes: hClient, hParent, hObject first */
        map_handles(r, arg, 12);
    } else if (tc->nr == NV_ESC_ALLOC_OS_EVENT || tc->nr == NV_ESC_FREE_OS_EVENT) {
        map_handles(r, arg, 8);   /* ALLOC/FREE_OS_EVENT: hClient, hDevice */
    }

    if (tc->nr == NR_CONTROL && params) {
        recall_export(r, rd32(arg + 8), params, plen);
        bind_import(r, rd32(arg + 8), params, plen);
    }
    errno = 0;
    r->current = &bufs;
    int rc = nvemu_fdtable_ioctl(r->fds, tc->fd, tc->req, arg);
    r->current = NULL;
    int err = rc < 0 ? errno : 0;
    r->res->calls++;
    if (r->verbose)
        fprintf(r->report, "%sline %d: nr 0x%02x size %u -> %d%s%s\n", r->label, tc->line, tc->nr, size, rc,
                err ? " " : "", err ? strerror(err) : "");

    bool bad = false;
    if (rc != tc->ret || (tc->err && err != tc->err)) {
        mismatch(r, tc, owner, "nr 0x%02x: syscall returned %d (errno %d), recorded %d (errno %d)", tc->nr, rc, err,
                 tc->ret, tc->err);
        bad = true;
    }
    uint32_t so = status_offset(tc->nr, size);
    if (!bad && so != ~0u && so + 4 <= size && rd32(arg + so) != rd32(tc->out.data + so)) {
        if (tc->nr == NR_CONTROL)
            mismatch(r, tc, owner, "control 0x%08x on 0x%08x: status 0x%x, recorded 0x%x", rd32(arg + 8),
                     rd32(arg + 4), rd32(arg + so), rd32(tc->out.data + so));
        else if (tc->nr == NR_ALLOC)
            mismatch(r, tc, owner, "alloc of class 0x%04x as 0x%08x: status 0x%x, recorded 0x%x", hclass,
                     rd32(tc->in.data + 8), rd32(arg + so), rd32(tc->out.data + so));
        else
            mismatch(r, tc, owner, "free of 0x%08x: status 0x%x, recorded 0x%x", rd32(tc->in.data + 8),
                     rd32(arg + so), rd32(tc->out.data + so));
        bad = true;
    }
    if (tc->nr == NR_ALLOC && !bad && so != ~0u && so + 4 <= size && rd32(arg + so) == NV_OK &&
        (nv_class_is(hclass, NV_CK_CHANNEL) || nv_class_is(hclass, NV_CK_TSG)))
        r->ids_taken++;
    /* Learn the handle the emulator chose before comparing (it is mapped, not volatile). */
    if (tc->nr == NR_REGISTER_FD && rc == 0)
        r->fd_registered[tc->fd] = true;
    if (tc->nr == NV_ESC_ATTACH_GPUS_TO_FD && rc == 0)
        r->fd_attached[tc->fd] = true;
    if (tc->nr == NR_CONTROL && params && so != ~0u && rd32(arg + so) == NV_OK) {
        export_import_done(r, rd32(arg + 8), params, plen);
        learn_uuid(r, tc, rd32(arg + 8), params, plen);
    }
    if (tc->nr == NR_ALLOC && rc == 0 && nv_class_is(hclass, NV_CK_ROOT) &&
        r->nclients < sizeof r->clients / sizeof r->clients[0])
        r->clients[r->nclients++] = rd32(tc->out.data + 8);
    if (tc->nr == NR_ALLOC && hclass == FERMI_VASPACE_A && rc == 0 && so != ~0u && so + 4 <= size &&
        rd32(arg + so) == NV_OK && params && plen >= 8 && (rd32(params + 4) & NV_VASPACE_ALLOCATION_FLAGS_IS_EXTERNALLY_OWNED) &&
        r->next_ext_vas_free < sizeof r->ext_vas / sizeof r->ext_vas[0])
        r->ext_vas[r->next_ext_vas_free++] = (struct ext_vaspace){rd32(arg), rd32(arg + 8)};
    if (tc->nr == NR_ALLOC && auto_handle && rc == 0)
        pair_add(&r->handles, rd32(tc->out.data + 8), rd32(arg + 8));
    if (tc->nr == NR_MAP_MEMORY && size == 56 && rc == 0)
        pair_add(&r->addrs, rd64(tc->out.data + 32), rd64(arg + 32));
    if (!bad) {
        struct replay_volatile v[NV_ESC_MAX_PTRS];
        uint32_t nv = replay_volatile_escape(tc->nr, size, v, NV_ESC_MAX_PTRS);
        long off = compare_block(r, arg, tc->out.data, size, v, nv, NULL, 0);
        if (off >= 0) {
            report_diff(r, tc, owner, "argument block bytes", arg, tc->out.data, size, off);
            bad = true;
        }
    }
    if (!bad && tc->nr == NR_CONTROL && params && tc->pout.present && rd32(arg + 28) == 0 && tc->pout.len == plen)
        bad = !relative_ctrl_fields(r, tc, owner, rd32(arg + 8), params);
    if (!bad && tc->nr == NR_CONTROL && params && tc->pout.present && rd32(arg + 28) == 0) {
        struct replay_volatile v[REPLAY_MAX_CTRL_VOLATILE];
        uint32_t nv = replay_volatile_ctrl(rd32(arg + 8), tc->pout.data, tc->pout.len, v, REPLAY_MAX_CTRL_VOLATILE);
        long off = tc->pout.len == plen ? compare_block(r, params, tc->pout.data, plen, v, nv, emb, nemb) : 0;
        if (off >= 0) {
            char what[64];
            snprintf(what, sizeof what, "control 0x%08x params", rd32(arg + 8));
            report_diff(r, tc, owner, what, params, tc->pout.data, tc->pout.len < plen ? tc->pout.len : plen, off);
            bad = true;
        }
    }
    if (!bad && nlists && tc->eout.present && rd32(arg + 28) == 0)
        compare_lists(r, tc, owner, rd32(arg + 8), lists, nlists);
    if (!bad && tc->nr == NR_ALLOC && params && tc->aparams.present && rc == 0) {
        const struct replay_relative *rel;
        uint32_t nrel = replay_relative_alloc(hclass, &rel);
        for (uint32_t i = 0; i < nrel; i++) {
            if (rel[i].off + 4 > tc->aparams.len)
                continue;
            uint32_t k = rel[i].counter, rec = rd32(tc->aparams.data + rel[i].off), got = rd32(params + rel[i].off);
            if (!r->rel_set[k]) {
                r->rel_set[k] = true;
                r->rel_rec[k] = rec;
                r->rel_emu[k] = got;
                r->ids_at_first = r->ids_taken;
            }
            if (rec - r->rel_rec[k] != got - r->rel_emu[k]) {
                if (!defer_channel_id(r, tc, owner, hclass, rel[i].off, got - r->rel_emu[k], rec - r->rel_rec[k]))
                    mismatch(r, tc, owner, "class 0x%04x alloc params @%u: +%u from the first, recorded +%u", hclass,
                             rel[i].off, got - r->rel_emu[k], rec - r->rel_rec[k]);
                bad = true;
            }
            /* equal relative to the base: compare the rest of the block */
            wr32(params + rel[i].off, rec);
        }
    }
    if (!bad && tc->nr == NR_ALLOC && params && tc->aparams.present && rc == 0) {
        /* alloc params hold no pointers or driver-chosen addresses: compared whole */
        long off = compare_block(r, params, tc->aparams.data, tc->aparams.len, NULL, 0, NULL, 0);
        if (off >= 0) {
            char what[64];
            snprintf(what, sizeof what, "class 0x%04x alloc params", hclass);
            report_diff(r, tc, owner, what, params, tc->aparams.data, tc->aparams.len, off);
        }
    }
    buf_free(&bufs);
}

/*
 * Issues UVM request tc->req with `block` (len bytes, a buffer of `bufs`; NULL for a request without one) and
 * compares the syscall result with the recorded one and the block with `want` (NULL: not compared).
 */
static void uvm_issue(struct replay *r, const struct trace_call *tc, struct buffers *bufs, uint8_t *block,
                      const uint8_t *want, uint32_t len)
{
    errno = 0;
    r->current = bufs;
    int rc = nvemu_fdtable_ioctl(r->fds, tc->fd, tc->req, block);
    r->current = NULL;
    int err = rc < 0 ? errno : 0;
    r->res->uvm_calls++;
    long off;
    if (rc != tc->ret || (tc->err && err != tc->err))
        mismatch(r, tc, "emu/dispatch", "UVM request 0x%x: syscall returned %d (errno %d), recorded %d (errno %d)",
                 tc->req, rc, err, tc->ret, tc->err);
    else if (want) {
        uint8_t *w = malloc(len ? len : 1);
        if (!w)
            return;
        memcpy(w, want, len);
        map_uuids(r, w, len);
        if ((off = compare_block(r, block, w, len, NULL, 0, NULL, 0)) >= 0)
            report_diff(r, tc, "emu/dispatch", "UVM parameters", block, w, len, off);
        free(w);
    }
}

/*
 * An older trace names no VA space in its UVM_REGISTER_GPU_VASPACE (no parameter block). libcuda registers the
 * externally owned VA space it allocated just before, so the oldest one not yet registered is registered here:
 * its context shares then succeed as they did on the GPU.
 */
static void replay_uvm_vaspace_inferred(struct replay *r, const struct trace_call *tc)
{
    if (r->next_ext_vas == r->next_ext_vas_free) {
        mismatch(r, tc, "emu/dispatch", "UVM_REGISTER_GPU_VASPACE without an externally owned VA space before it");
        return;
    }
    struct ext_vaspace v = r->ext_vas[r->next_ext_vas++];
    struct buffers bufs = {0};
    uint8_t *p = buf_new(&bufs, UVM_REGISTER_GPU_VASPACE_SIZE);
    if (!p) {
        mismatch(r, tc, "emu/dispatch", "replay out of memory");
        return;
    }
    wr32(p + 16, 0xFFFFFFFFu);
    wr32(p + 20, v.hclient);
    wr32(p + 24, v.hvaspace);
    r->res->uvm_inferred++;
    uvm_issue(r, tc, &bufs, p, NULL, 0);
    if (rd32(p + 28) != NV_OK)
        mismatch(r, tc, "emu/dispatch", "UVM_REGISTER_GPU_VASPACE of VA space 0x%08x (inferred): status 0x%x",
                 v.hvaspace, rd32(p + 28));
    buf_free(&bufs);
}

/*
 * A /dev/nvidia-uvm line. Recorded with its parameter block (pin/pout): issued from pin (handles mapped), result
 * and pout compared. UVM_INITIALIZE recorded without one: its block is the first 16 bytes of in/out (the recorder
 * copied the _IOC_SIZE its number decodes to). UVM_DEINITIALIZE takes no block. Older traces' other requests
 * carry nothing to issue: counted as skipped (REGISTER_GPU_VASPACE inferred, see above).
 */
static void replay_uvm(struct replay *r, const struct trace_call *tc)
{
    r->cur_id = 0;
    const uint8_t *in = NULL, *want = NULL;
    uint32_t len = 0;
    if (tc->pin.present && tc->pout.present) {
        if (tc->pin.len != tc->pout.len) {
            mismatch(r, tc, "emu/profile", "UVM pin and pout blocks differ in length");
            return;
        }
        in = tc->pin.data;
        want = tc->pout.data;
        len = tc->pin.len;
    } else if (tc->req == UVM_INITIALIZE_REQ && tc->in.len >= UVM_INITIALIZE_SIZE &&
               tc->out.len >= UVM_INITIALIZE_SIZE) {
        in = tc->in.data;
        want = tc->out.data;
        len = UVM_INITIALIZE_SIZE;
    } else if (tc->req == UVM_REGISTER_GPU_VASPACE_REQ) {
        r->res->skipped_uvm++;
        replay_uvm_vaspace_inferred(r, tc);
        return;
    } else if (tc->req != UVM_DEINITIALIZE_REQ) {
        r->res->skipped_uvm++;
        return;
    }
    struct buffers bufs = {0};
    uint8_t *p = len ? buf_new(&bufs, len) : NULL;
    if (len && !p) {
        mismatch(r, tc, "emu/dispatch", "replay out of memory");
        return;
    }
    if (len) {
        memcpy(p, in, len);
        map_handles(r, p, len);
        map_uuids(r, p, len);
    }
    uvm_issue(r, tc, &bufs, p, want, len);
    buf_free(&bufs);
}

/* One recorded process being replayed: its trace file and the line waiting to be issued. */
struct proc {
    struct replay *r;
    const char *path;
    FILE *f;
    pid_t unzip;
    char *line;
    size_t cap;
    int lineno;
    uint32_t ioctl_lines;
    uint64_t total;
    const char *why;
    bool cut, done, opened;
    struct trace_call tc;
    bool pending;        /* tc is parsed and waits for another process's file */
    uint64_t t_ns;       /* when its pending call was issued (t=), or its last timed call's */
};

enum step { STEP_LINE, STEP_SENT, STEP_END, STEP_WAIT };

/*
 * A process replays under the pid it had when recorded, so that answers naming processes (GPU_GET_PIDS,
 * GPU_GET_PID_INFO) name the ones the driver named: the thread id of its first call, which is the pid because
 * programs open the driver from their main thread. A pid another process of this replay already has, or none,
 * keeps the pid the replay gave it.
 */
static void take_recorded_pid(struct replay *r, int32_t tid)
{
    r->pid_taken = true;
    if (tid <= 0)
        return;
    for (uint32_t i = 0; i < r->group->nprocs; i++)
        if (&r->group->members[i] != r && r->group->members[i].who.pid == tid)
            return;
    r->who.pid = tid;
    r->who.tid = tid;
}

/*
 * Reads the process's next line: an IOCTL line becomes its pending call (false at the end of the trace);
 * a comment, a line that does not parse (reported) or one with a NUL byte (reported) is consumed.
 */
static bool proc_read(struct proc *pr)
{
    struct replay *r = pr->r;
    size_t n = trace_read_line(pr->f, &pr->line, &pr->cap, &pr->total, &pr->why);
    if (n == 0) {
        pr->done = true;
        return false;
    }
    pr->lineno++;
    char perr[160];
    /* the recorder ends every line with a newline: a last line without one was cut short */
    pr->cut = pr->line[n - 1] != '\n';
    int rc = memchr(pr->line, 0, n) ? -2 : trace_parse_line(pr->line, pr->lineno, &pr->tc, perr, sizeof perr);
    pr->ioctl_lines += rc == 0;
    if (rc == -2) {
        fprintf(r->report, "%s:%d: NUL byte in the line (not a text trace) [emu/profile]\n", pr->path, pr->lineno);
        r->res->mismatches++;
    } else if (rc < 0) {
        fprintf(r->report, "%sline %d: parse error: %s [emu/profile]\n", r->label, pr->lineno, perr);
        r->res->mismatches++;
    }
    if (rc != 0) {
        trace_call_free(&pr->tc);
        return true;
    }
    pr->pending = true;
    /* a line without a time (older recorders) keeps its place after the process's previous call */
    if (pr->tc.has_t)
        pr->t_ns = pr->tc.t_ns;
    return true;
}

/* Reads until the process has a pending call; false at the end of its trace. */
static bool proc_peek(struct proc *pr)
{
    while (!pr->done && !pr->pending)
        proc_read(pr);
    return pr->pending;
}

/* Replays the process's next line, unless it must wait for another process (force: issue it anyway). */
static enum step proc_step(struct proc *pr, bool force)
{
    struct replay *r = pr->r;
    FILE *report = r->report;
    struct replay_result *res = r->res;
    if (pr->done)
        return STEP_END;
    if (!pr->pending) {
        if (!proc_read(pr))
            return STEP_END;
        if (!pr->pending)
            return STEP_LINE;
    }
    struct trace_call *tc = &pr->tc;
    if (!force && waits_for_file(r, tc))
        return STEP_WAIT;
    if (!r->pid_taken)
        take_recorded_pid(r, tc->tid);
    pr->pending = false;
    if (!strcmp(tc->path, "/dev/nvidia-uvm")) {
        if (ensure_fd(r, tc) == 0) {
            replay_uvm(r, tc);
        } else {
            fprintf(report, "%sline %d: cannot open %s as fd %d: %s [emu/rm]\n", r->label, pr->lineno, tc->path,
                    tc->fd, strerror(errno));
            res->mismatches++;
        }
    } else if (tc->in.len != tc->size) {
        fprintf(report, "%sline %d: argument block of %u bytes not recorded whole [emu/profile]\n", r->label,
                pr->lineno, tc->size);
        res->mismatches++;
    } else if (ensure_fd(r, tc) != 0) {
        fprintf(report, "%sline %d: cannot open %s as fd %d%s%s [emu/rm]\n", r->label, pr->lineno, tc->path, tc->fd,
                errno ? ": " : "", errno ? strerror(errno) : "");
        res->mismatches++;
    } else {
        r->sent = false;
        replay_call(r, tc);
    }
    trace_call_free(tc);
    return r->sent ? STEP_SENT : STEP_LINE;
}

/* The end of one process's replay: its limits, coverage and allow-list lines; its state freed. */
static void proc_finish(struct proc *pr)
{
    struct replay *r = pr->r;
    FILE *report = r->report;
    if (pr->pending)
        trace_call_free(&pr->tc);
    if (pr->why) {
        fprintf(report, "%s:%d: %s (at most %u bytes a line, %llu a trace) [emu/profile]\n", pr->path,
                pr->lineno + 1, pr->why, REPLAY_MAX_LINE_BYTES, (unsigned long long)REPLAY_MAX_TRACE_BYTES);
        r->res->mismatches++;
    }
    if (pr->cut) {
        fprintf(report, "%s:%d: truncated trace: the last line has no newline [emu/profile]\n", pr->path, pr->lineno);
        r->res->mismatches++;
    }
    uint32_t nctrl = 0, nctrl_ok = 0, ncls = 0, ncls_ok = 0;
    for (uint32_t i = 0; i < r->nseen; i++) {
        bool cls = r->seen[i].id & SEEN_CLASS;
        nctrl += !cls;
        ncls += cls;
        nctrl_ok += !cls && !r->seen[i].inexact;
        ncls_ok += cls && !r->seen[i].inexact;
    }
    fprintf(report, "%scoverage: %u of %u distinct controls and %u of %u classes answered exactly\n", r->label,
            nctrl_ok, nctrl, ncls_ok, ncls);
    if (r->allowed)
        fprintf(report, "%sallow-list: %u differences allowed\n", r->label, r->allowed);
    for (uint32_t i = 0; i < r->nused; i++)
        fprintf(report, "%sallow-list: %s: %s\n", r->label, r->used[i]->name, r->used[i]->why);
    free(pr->line);
    if (trace_close(pr->f, pr->unzip) != 0) {
        fprintf(report, "replay: %s: gzip could not decompress it whole\n", pr->path);
        r->res->mismatches++;
    }
    nvemu_fdtable_destroy(r->fds);
    free(r->handles.slot);
    free(r->addrs.slot);
    free(r->seen_ix.slot);
    free(r->seen);
}

/* Whether every trace's first call carries its time (t=): then the processes are replayed in time order. */
static bool all_timed(struct proc *procs, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (proc_peek(&procs[i]) && !procs[i].tc.has_t)
            return false;
    return true;
}

/*
 * Traces with times: the calls of all processes in the order they were issued on the machine (one monotonic
 * clock; ties go to the process given first), each process's own calls in its order. A call that must wait for
 * a file another process has not sent yet lets the later calls of the others go first; when every process left
 * waits, the earliest goes on without it.
 */
static void replay_timed(struct proc *procs, uint32_t n)
{
    for (;;) {
        int best = -1, first_waiting = -1;
        for (uint32_t i = 0; i < n; i++) {
            if (!proc_peek(&procs[i]))
                continue;
            bool waits = waits_for_file(procs[i].r, &procs[i].tc);
            if (waits && (first_waiting < 0 || procs[i].t_ns < procs[first_waiting].t_ns))
                first_waiting = (int)i;
            if (!waits && (best < 0 || procs[i].t_ns < procs[best].t_ns))
                best = (int)i;
        }
        if (best < 0)
            best = first_waiting;
        if (best < 0)
            return;
        proc_step(&procs[best], true);
    }
}

/* Replay processes after the first get pids no Linux process has (above PID_MAX_LIMIT and other_client.c's). */
#define REPLAY_PROC_PID_BASE 4194400

int replay_files(const char *const *paths, uint32_t n, const struct replay_opts *opts, FILE *report,
                 struct replay_result *res)
{
    memset(res, 0, sizeof *res);
    if (n == 0 || n > REPLAY_MAX_PROCESSES) {
        fprintf(report, "replay: %u traces given; 1 to %u can be replayed together\n", n, REPLAY_MAX_PROCESSES);
        return -1;
    }
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    cfg.profile = opts->profile ? opts->profile : "h200";
    cfg.driver = opts->driver;
    char err[256] = "";
    struct proc *procs = calloc(n, sizeof *procs);
    struct replay *rs = calloc(n, sizeof *rs);
    char (*labels)[80] = calloc(n, sizeof *labels);
    struct replay_group group = {.nprocs = n, .members = rs};
    struct replay_other_client *other = NULL;
    nvemu *emu = procs && rs && labels ? nvemu_create(&cfg, err, sizeof err) : NULL;
    int rc = -1;
    uint32_t opened = 0;
    if (!emu || !(group.transit = nvemu_fdtable_create(emu, false))) {
        fprintf(report, "replay: cannot create the emulator: %s\n", err[0] ? err : "out of memory");
        goto out;
    }
    if (opts->other_client_on_gpu && !(other = replay_other_client_hold(emu, err, sizeof err))) {
        fprintf(report, "replay: %s\n", err);
        goto out;
    }
    for (; opened < n; opened++) {
        struct proc *pr = &procs[opened];
        struct replay *r = &rs[opened];
        char oerr[160];
        pr->r = r;
        pr->path = paths[opened];
        if (!(pr->f = trace_open(pr->path, &pr->unzip, oerr, sizeof oerr))) {
            fprintf(report, "replay: %s: %s\n", pr->path, oerr);
            goto out;
        }
        if (!(r->fds = nvemu_fdtable_create(emu, false))) {
            fprintf(report, "replay: out of memory\n");
            trace_close(pr->f, pr->unzip);
            goto out;
        }
        pr->opened = true;
        r->emu = emu;
        r->other = other;
        r->group = &group;
        r->index = opened;
        if (n > 1) {
            const char *base = strrchr(pr->path, '/');
            snprintf(labels[opened], sizeof labels[0], "%s ", base ? base + 1 : pr->path);
        }
        r->label = labels[opened];
        nvemu_fdtable_limit(r->fds, buf_owns, &r->current);
        nvemu_identity_self(&r->who);
        if (opened > 0) {
            r->who.pid = REPLAY_PROC_PID_BASE + (int32_t)opened;
            r->who.tid = r->who.pid;
        }
        r->report = report;
        r->res = res;
        r->verbose = opts->verbose;
    }
    bool timed = n > 1 && all_timed(procs, n);
    group.order = replay_order_applies(n, timed);
    if (timed) {
        replay_timed(procs, n);
        rc = 0;
        goto out;
    }
    /*
     * Traces without times: each process runs, in the order given (start order), until its next call
     * waits for a file another process sends, or it has just sent one: then the others run, so that the
     * receiver imports before the sender goes on to free what it exported. When every process left waits
     * (a file that was never sent), the first of them goes on without it.
     */
    for (;;) {
        bool progressed = false, live = false;
        for (uint32_t i = 0; i < n; i++) {
            enum step st;
            while ((st = proc_step(&procs[i], false)) == STEP_LINE)
                progressed = true;
            progressed |= st == STEP_SENT;
            live |= st == STEP_WAIT || st == STEP_SENT;
        }
        if (!live)
            break;
        for (uint32_t i = 0; !progressed && i < n; i++)
            if (procs[i].pending && proc_step(&procs[i], true) != STEP_WAIT)
                progressed = true;
    }
    rc = 0;
out:
    resolve_order(&group);
    for (uint32_t i = 0; i < opened; i++) {
        if (!procs[i].opened)
            continue;
        proc_finish(&procs[i]);
        if (rc == 0 && procs[i].ioctl_lines == 0) {
            fprintf(report, "replay: %s: no IOCTL line: empty or not a trace\n", procs[i].path);
            rc = -1;
        }
    }
    nvemu_fdtable_destroy(group.transit);
    replay_other_client_release(other);
    if (emu)
        nvemu_destroy(emu);
    free(labels);
    free(rs);
    free(procs);
    return rc;
}

int replay_file(const char *path, const struct replay_opts *opts, FILE *report, struct replay_result *res)
{
    return replay_files(&path, 1, opts, report, res);
}
