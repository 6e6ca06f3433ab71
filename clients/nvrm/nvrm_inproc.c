#include "nvrm_inproc.h"

#include <string.h>

static int ip_open(void *ctx, const char *path)
{
    struct nvrm_inproc *ip = ctx;
    return nvemu_fdtable_open(ip->table, path, &ip->who);
}

static int ip_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
    struct nvrm_inproc *ip = ctx;
    return nvemu_fdtable_ioctl_as(ip->table, fd, ip->who.tid, request, arg);
}

static int ip_close(void *ctx, int fd)
{
    struct nvrm_inproc *ip = ctx;
    return nvemu_fdtable_close(ip->table, fd);
}

void nvrm_inproc_init(struct nvrm_inproc *ip, nvemu_fdtable *table, const nvemu_identity *who)
{
    memset(ip, 0, sizeof *ip);
    ip->table = table;
    if (who)
        ip->who = *who;
    else
        nvemu_identity_self(&ip->who);
    ip->tp = (struct nvrm_transport){ip_open, ip_ioctl, ip_close, ip};
}
