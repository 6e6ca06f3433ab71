#include "front/procmem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "front/callermem.h"
#include "front/fdmap.h"
#include "front/ident.h"

int procmem_stage(struct procmem_ctx *c, uint64_t addr, size_t len)
{
    if (c->n_in == PROCMEM_STAGED_RANGES || len > PROCMEM_STAGED_BYTES - c->bytes)
        return -E2BIG;
    struct procmem_range *r = &c->in[c->n_in];
    r->addr = addr;
    r->len = len;
    r->data = len ? malloc(len) : NULL;
    if (len && !r->data)
        return -ENOMEM;
    int rc = callermem_read(c->uid, c->tid, addr, r->data, len);
    if (rc != 0) {
        free(r->data);
        r->data = NULL;
    }
    c->n_in++;
    c->bytes += len;
    return 0;
}

int procmem_stage_missed(struct procmem_ctx *c)
{
    c->missed = false;
    return procmem_stage(c, c->miss_addr, c->miss_len);
}

void procmem_drop_writes(struct procmem_ctx *c)
{
    for (unsigned i = 0; i < c->n_out; i++) {
        c->bytes -= c->out[i].len;
        free(c->out[i].data);
    }
    c->n_out = 0;
}

int procmem_flush_writes(struct procmem_ctx *c)
{
    int rc = 0;
    for (unsigned i = 0; i < c->n_out; i++) {
        c->out[i].failed = callermem_write(c->uid, c->tid, c->out[i].addr, c->out[i].data, c->out[i].len) != 0;
        if (c->out[i].failed)
            rc = -EFAULT;
    }
    return rc;
}

void procmem_ctx_fini(struct procmem_ctx *c)
{
    procmem_drop_writes(c);
    for (unsigned i = 0; i < c->n_in; i++)
        free(c->in[i].data);
    c->n_in = 0;
    c->bytes = 0;
}

static bool within(const struct procmem_range *r, uint64_t addr, size_t len)
{
    return addr >= r->addr && addr - r->addr <= r->len && len <= r->len - (addr - r->addr);
}

static bool overlaps(const struct procmem_range *r, uint64_t addr, size_t len)
{
    return addr < r->addr + r->len && r->addr < addr + len;
}

static int acc_read(void *ctx, uint64_t addr, void *dst, size_t len)
{
    struct procmem_ctx *c = ctx;
    if (len == 0)
        return 0;
    for (unsigned i = 0; i < c->n_in; i++) {
        const struct procmem_range *r = &c->in[i];
        if (!r->data && overlaps(r, addr, len))
            return -EFAULT;
        if (r->data && within(r, addr, len)) {
            memcpy(dst, r->data + (addr - r->addr), len);
            return 0;
        }
    }
    if (!c->missed) {
        c->missed = true;
        c->miss_addr = addr;
        c->miss_len = len;
    }
    return NVEMU_ERR_NOT_STAGED;
}

/*
 * Kept for copy-out; later reads of the call see it, as they would see the
 * caller's memory. A range not staged yet is a miss like a read's (the front
 * probes it by reading it), so that a bad address fails here, inside the
 * call, with the status the handler gives it, not later at copy-out.
 */
static int acc_write(void *ctx, uint64_t addr, const void *src, size_t len)
{
    struct procmem_ctx *c = ctx;
    if (len == 0)
        return 0;
    bool staged = false;
    for (unsigned i = 0; i < c->n_in && !staged; i++) {
        if (!c->in[i].data && overlaps(&c->in[i], addr, len))
            return -EFAULT;
        staged = c->in[i].data && within(&c->in[i], addr, len);
    }
    if (!staged) {
        if (!c->missed) {
            c->missed = true;
            c->miss_addr = addr;
            c->miss_len = len;
        }
        return NVEMU_ERR_NOT_STAGED;
    }
    if (c->n_out == PROCMEM_STAGED_WRITES || len > PROCMEM_STAGED_BYTES - c->bytes)
        return -EFAULT;
    unsigned char *copy = malloc(len);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, src, len);
    c->out[c->n_out++] = (struct procmem_range){addr, len, copy, false};
    c->bytes += len;
    for (unsigned i = 0; i < c->n_in; i++) {
        struct procmem_range *r = &c->in[i];
        if (!r->data || !overlaps(r, addr, len))
            continue;
        uint64_t lo = addr > r->addr ? addr : r->addr;
        uint64_t hi = addr + len < r->addr + r->len ? addr + len : r->addr + r->len;
        memcpy(r->data + (lo - r->addr), copy + (lo - addr), hi - lo);
    }
    return 0;
}

static bool acc_staged_miss(void *ctx)
{
    const struct procmem_ctx *c = ctx;
    return c->missed;
}

static bool acc_cancelled(void *ctx)
{
    const struct procmem_ctx *c = ctx;
    return c->cancel && atomic_load(c->cancel);
}

static nvemu_opener *acc_resolve_fd(void *ctx, int fd)
{
    const struct procmem_ctx *c = ctx;
    return c->pre_fd >= 0 && fd == c->pre_fd ? c->pre_op : NULL;
}

/* CapEff of the calling thread now; a thread that vanished has no rights. */
static uint64_t acc_current_caps(void *ctx)
{
    const struct procmem_ctx *c = ctx;
    nvemu_identity id;
    pid_t tgid;
    return ident_read(c->tid, &id, &tgid) == 0 ? id.caps : 0;
}

void procmem_access(struct procmem_ctx *c, nvemu_access *acc)
{
    acc->read = acc_read;
    acc->write = acc_write;
    acc->resolve_fd = acc_resolve_fd;
    acc->current_caps = acc_current_caps;
    acc->staged_miss = acc_staged_miss;
    acc->cancelled = acc_cancelled;
    acc->ctx = c;
    acc->tid = c->tid;
}
