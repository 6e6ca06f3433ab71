/* The open, release and ioctl requests FUSE and CUSE serve alike. */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "base/log.h"
#include "front/callermem.h"
#include "front/server.h"
#include "front/transport.h"

/* Largest top-level ioctl struct a node accepts (front_ioctl_size never exceeds it). */
#define MAX_IOCTL 16384u

void transport_open(struct front *f, struct fuse_req *req, const struct front_node *node, struct fuse_file_info *fi)
{
    int err = 0;
    struct front_file *ff = front_open(f, node, fuse_req_ctx(req)->pid, &err);
    if (!ff) {
        fuse_reply_err(req, -err);
        return;
    }
    fi->fh = (uint64_t)(uintptr_t)ff;
    fi->direct_io = 1;
    fi->nonseekable = 1;
    if (fuse_reply_open(req, fi) != 0)
        front_release(f, ff); /* the opener died before the reply: no release will come */
}

void transport_release(struct front *f, struct fuse_req *req, struct fuse_file_info *fi)
{
    front_release(f, (struct front_file *)(uintptr_t)fi->fh);
    fuse_reply_err(req, 0);
}

/* The caller of a blocked call got a signal (or was killed): its wait ends with -EINTR. */
static void on_interrupt(fuse_req_t req, void *data)
{
    (void)req;
    front_block_cancel(data);
}

/* A call whose thread is stuck in a copy of the caller's memory, answered without it (callermem.h). */
struct ioctl_call {
    struct callermem_call cm;    /* first: give_up gets its address */
    struct front *f;
    fuse_req_t req;
};

static void give_up(struct callermem_call *c)
{
    struct ioctl_call *ic = (struct ioctl_call *)c;
    atomic_fetch_add(&ic->f->front_errors, 1);
    fuse_reply_err(ic->req, EFAULT);
}

void transport_ioctl(struct front *f, struct fuse_req *req, struct front_file *ff, uint32_t cmd, void *arg,
                     unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
    if (flags & FUSE_IOCTL_COMPAT) {
        LOG_INFO("front", "32-bit caller, ioctl 0x%x refused", cmd);
        atomic_fetch_add(&f->front_errors, 1);
        fuse_reply_err(req, ENOTTY);
        return;
    }
    _Alignas(8) char buf[MAX_IOCTL];
    uint32_t size = front_ioctl_size(ff, cmd);
    uint32_t in_len = in_bufsz < size ? (uint32_t)in_bufsz : size;
    if (in_len > 0)
        memcpy(buf, in_buf, in_len);
    uint32_t out_len = 0;
    pid_t tid = fuse_req_ctx(req)->pid;
    struct front_blocked *b = front_block_begin(f, ff, tid, cmd);
    if (b)
        fuse_req_interrupt_func(req, on_interrupt, b);
    struct ioctl_call ic = {.cm = {.give_up = give_up}, .f = f, .req = req};
    callermem_set_call(&ic.cm);
    front_call_begin(ff);
    int rc = front_ioctl(f, ff, tid, cmd, (uint64_t)(uintptr_t)arg, buf, size, in_len,
                         out_bufsz > size ? size : (uint32_t)out_bufsz, &out_len, b);
    callermem_set_call(NULL);
    /* answered by the watchdog: req is gone (an answered request gets no interrupt either) */
    bool answered = atomic_load(&ic.cm.given_up);
    if (b) {
        /* waits for an interrupt callback still running, so b is not reused under it */
        if (!answered)
            fuse_req_interrupt_func(req, NULL, NULL);
        front_block_end(f, b);
    }
    front_call_end(f, ff);
    if (answered)
        return;
    if (rc < 0)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_ioctl(req, rc, buf, out_len);
}
