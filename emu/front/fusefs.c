#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/log.h"
#include "front/server.h"
#include "front/transport.h"

/* ino 1 is the root directory; node i is ino NODE_INO0 + i. */
#define NODE_INO0 2u
#define ATTR_TIMEOUT 86400.0

static struct front *fs_front(fuse_req_t req)
{
    return fuse_req_userdata(req);
}

static const struct front_node *ino_node(const struct front *f, fuse_ino_t ino)
{
    if (ino < NODE_INO0 || ino - NODE_INO0 >= f->node_count)
        return NULL;
    return &f->nodes[ino - NODE_INO0];
}

static void fill_attr(fuse_ino_t ino, struct stat *st)
{
    memset(st, 0, sizeof(*st));
    st->st_ino = ino;
    if (ino == FUSE_ROOT_ID) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
    } else {
        /* Regular files: a FUSE S_IFCHR would be opened as the host's real device. */
        st->st_mode = S_IFREG | 0666;
        st->st_nlink = 1;
    }
}

static void fs_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    const struct front *f = fs_front(req);
    if (parent != FUSE_ROOT_ID) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    for (uint32_t i = 0; i < f->node_count; i++) {
        if (strcmp(f->nodes[i].name, name) != 0)
            continue;
        struct fuse_entry_param e;
        memset(&e, 0, sizeof(e));
        e.ino = NODE_INO0 + i;
        e.attr_timeout = ATTR_TIMEOUT;
        e.entry_timeout = ATTR_TIMEOUT;
        fill_attr(e.ino, &e.attr);
        fuse_reply_entry(req, &e);
        return;
    }
    fuse_reply_err(req, ENOENT);
}

static void fs_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    if (ino != FUSE_ROOT_ID && !ino_node(fs_front(req), ino)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct stat st;
    fill_attr(ino, &st);
    fuse_reply_attr(req, &st, ATTR_TIMEOUT);
}

static void fs_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    const struct front *f = fs_front(req);
    if (ino != FUSE_ROOT_ID) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    char *buf = calloc(1, size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    size_t used = 0;
    /* Entry k (k >= off) is ".", "..", then the nodes; each carries the offset of the next. */
    for (off_t k = off; k < (off_t)f->node_count + 2; k++) {
        struct stat st;
        const char *name = k == 0 ? "." : k == 1 ? ".." : f->nodes[k - 2].name;
        fill_attr(k < 2 ? FUSE_ROOT_ID : NODE_INO0 + (fuse_ino_t)(k - 2), &st);
        size_t n = fuse_add_direntry(req, buf + used, size - used, name, &st, k + 1);
        if (n > size - used)
            break;
        used += n;
    }
    fuse_reply_buf(req, buf, used);
    free(buf);
}

static void fs_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    struct front *f = fs_front(req);
    const struct front_node *node = ino_node(f, ino);
    if (!node) {
        fuse_reply_err(req, ino == FUSE_ROOT_ID ? EISDIR : ENOENT);
        return;
    }
    fi->noflush = 1;
    transport_open(f, req, node, fi);
}

static void fs_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    transport_release(fs_front(req), req, fi);
}

static void fs_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi,
                     unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
    (void)ino;
    transport_ioctl(fs_front(req), req, (struct front_file *)(uintptr_t)fi->fh, cmd, arg, flags, in_buf, in_bufsz,
                    out_bufsz);
}

static const struct fuse_lowlevel_ops fs_ops = {
    .lookup = fs_lookup,
    .getattr = fs_getattr,
    .readdir = fs_readdir,
    .open = fs_open,
    .release = fs_release,
    .ioctl = fs_ioctl,
};

/* st_dev of the FUSE mount at dir (an absolute path without blanks, as realpath gives for our dirs). */
static int mount_dev(const char *dir, dev_t *dev)
{
    FILE *fp = fopen("/proc/self/mountinfo", "re");
    if (!fp)
        return -1;
    char line[8192];
    int found = -1;
    while (fgets(line, sizeof(line), fp)) { /* the last match is the topmost mount */
        unsigned maj, min;
        char point[4096], *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*d %*d %u:%u %*s %4095s", &maj, &min, point) != 3)
            continue;
        if (strcmp(point, dir) == 0 && strncmp(dash + 3, "fuse", 4) == 0) {
            *dev = makedev(maj, min);
            found = 0;
        }
    }
    fclose(fp);
    return found;
}

int fusefs_start(struct front *f, const char *dir, struct transport *t)
{
    memset(t, 0, sizeof(*t));
    t->name = "fuse";
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        LOG_ERROR("front", "cannot create mount directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (!realpath(dir, t->where)) {
        LOG_ERROR("front", "mount directory %s: %s", dir, strerror(errno));
        return -1;
    }
    /* Refused before mounting: a file (FUSE would mount over it), or a directory another daemon serves. */
    dev_t other;
    if (mount_dev(t->where, &other) == 0) {
        LOG_ERROR("front", "%s is already a mount point (another nvemu daemon?); stop it or unmount it first "
                  "(fusermount3 -u %s)", t->where, t->where);
        return -1;
    }
    struct stat st;
    if (stat(t->where, &st) != 0 || !S_ISDIR(st.st_mode)) {
        LOG_ERROR("front", "--mount %s is not a directory", dir);
        return -1;
    }
    /* allow_other: callers of another uid (a CMD that dropped root, preload users) must reach the nodes. */
    char *argv[] = {"nvemu", "-o", "fsname=nvemu,subtype=nvemu", "-o", "allow_other", NULL};
    struct fuse_args args = FUSE_ARGS_INIT(geteuid() == 0 ? 5 : 3, argv);
    struct fuse_session *se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), f);
    fuse_opt_free_args(&args);
    if (!se) {
        LOG_ERROR("front", "fuse_session_new failed");
        return -1;
    }
    if (fuse_session_mount(se, t->where) != 0) {
        LOG_ERROR("front", "cannot mount FUSE at %s (root or fusermount3 needed, /dev/fuse must exist)", t->where);
        fuse_session_destroy(se);
        return -1;
    }
    /* stat() of the mount would wait for a session thread that is not running yet: ask mountinfo. */
    if (mount_dev(t->where, &f->fs_dev) != 0) {
        LOG_ERROR("front", "FUSE mount at %s not found in /proc/self/mountinfo", t->where);
        fuse_session_unmount(se);
        fuse_session_destroy(se);
        return -1;
    }
    f->fs_dev_valid = true;
    t->se[0] = se;
    t->count = 1;
    t->mounted = true;
    return 0;
}

void transport_unmount(struct transport *t)
{
    for (int i = 0; i < t->count && t->mounted; i++)
        fuse_session_unmount(t->se[i]);
    t->mounted = false;
}

void transport_destroy(struct transport *t)
{
    for (int i = 0; i < t->count; i++) {
        if (t->mounted)
            fuse_session_unmount(t->se[i]);
        fuse_session_destroy(t->se[i]);
        free(t->udata[i]);
    }
    t->count = 0;
}
