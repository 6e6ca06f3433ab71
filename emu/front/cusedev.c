#define FUSE_USE_VERSION 312
#include <cuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "front/server.h"
#include "front/transport.h"

#define NV_MAJOR 195u

/* What each CUSE session knows: the daemon and which node it is. */
struct cuse_node {
    struct front *f;
    const struct front_node *node;
    char devname[40];
};

static void cd_open(fuse_req_t req, struct fuse_file_info *fi)
{
    struct cuse_node *cn = fuse_req_userdata(req);
    transport_open(cn->f, req, cn->node, fi);
}

static void cd_release(fuse_req_t req, struct fuse_file_info *fi)
{
    struct cuse_node *cn = fuse_req_userdata(req);
    transport_release(cn->f, req, fi);
}

/*
 * Unrestricted ioctl: the first call carries no data; we ask the kernel (RETRY)
 * for the top-level struct, _IOC_SIZE bytes at arg, in and out. Pointers
 * nested in it (NVOS21.pAllocParms, NVOS54.params, XFER's ptr) are then read
 * by the core through the accessor with process_vm_readv: only the core's
 * dispatch knows their sizes, and it reads them synchronously, which a RETRY
 * round (the kernel re-issues the whole call) cannot serve without running
 * the escape twice.
 */
static void cd_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi, unsigned int flags,
                     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
    struct cuse_node *cn = fuse_req_userdata(req);
    struct front_file *ff = (struct front_file *)(uintptr_t)fi->fh;
    uint32_t size = front_ioctl_size(ff, (uint32_t)cmd);
    if (!(flags & FUSE_IOCTL_COMPAT) && size > 0 && in_bufsz == 0 && out_bufsz == 0) {
        struct iovec iov = {.iov_base = arg, .iov_len = size};
        fuse_reply_ioctl_retry(req, &iov, 1, &iov, 1);
        return;
    }
    transport_ioctl(cn->f, req, ff, (uint32_t)cmd, arg, flags, in_buf, in_bufsz, out_bufsz);
}

static const struct cuse_lowlevel_ops cd_ops = {
    .open = cd_open,
    .release = cd_release,
    .ioctl = cd_ioctl,
};

static int add_device(struct front *f, const struct front_node *node, struct transport *t)
{
    struct cuse_node *cn = calloc(1, sizeof(*cn));
    if (!cn)
        return -1;
    cn->f = f;
    cn->node = node;
    snprintf(cn->devname, sizeof(cn->devname), "DEVNAME=%s", node->name);
    const char *info[] = {cn->devname};
    struct cuse_info ci = {
        .dev_major = node->kind == NVEMU_NODE_UVM ? 0 : NV_MAJOR,
        .dev_minor = node->kind == NVEMU_NODE_UVM ? 0 : node->minor,
        .dev_info_argc = 1,
        .dev_info_argv = info,
        .flags = CUSE_UNRESTRICTED_IOCTL,
    };
    char *argv[] = {"nvemu", NULL};
    struct fuse_args args = FUSE_ARGS_INIT(1, argv);
    struct fuse_session *se = cuse_lowlevel_new(&args, &ci, &cd_ops, cn);
    if (!se) {
        free(cn);
        return -1;
    }
    int fd = open("/dev/cuse", O_RDWR | O_CLOEXEC);
    char mnt[32];
    snprintf(mnt, sizeof(mnt), "/dev/fd/%d", fd);
    if (fd < 0 || fuse_session_mount(se, mnt) != 0) {
        LOG_ERROR("front", "cannot attach %s to /dev/cuse: %s", node->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        fuse_session_destroy(se);
        free(cn);
        return -1;
    }
    t->se[t->count] = se;
    t->udata[t->count] = cn;
    t->count++;
    return 0;
}

int cusedev_start(struct front *f, struct transport *t)
{
    memset(t, 0, sizeof(*t));
    t->name = "cuse";
    snprintf(t->where, sizeof(t->where), "/dev");
    if (access("/dev/cuse", F_OK) != 0) {
        LOG_ERROR("front", "no /dev/cuse (kernel without CONFIG_CUSE, or cuse.ko not loaded)");
        return -ENODEV;
    }
    if (f->node_count > TRANSPORT_MAX_SESSIONS) {
        LOG_ERROR("front", "%u nodes exceed the CUSE session table", f->node_count);
        return -1;
    }
    for (uint32_t i = 0; i < f->node_count; i++) {
        if (add_device(f, &f->nodes[i], t) != 0) {
            transport_destroy(t);
            return -1;
        }
    }
    f->cuse_major = NV_MAJOR;
    return 0;
}
