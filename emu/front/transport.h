/*
 * The two ways the daemon's nodes reach the kernel. Each creates one or more
 * libfuse sessions bound to a struct front; serve.c runs and stops them.
 */
#ifndef NVEMU_FRONT_TRANSPORT_H
#define NVEMU_FRONT_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct front;
struct front_file;
struct front_node;
struct fuse_file_info;
struct fuse_req;
struct fuse_session;

#define TRANSPORT_MAX_SESSIONS 40

struct transport {
    struct fuse_session *se[TRANSPORT_MAX_SESSIONS];
    void *udata[TRANSPORT_MAX_SESSIONS];
    int count;
    bool mounted;                  /* FUSE: the mount must be taken down at stop */
    char where[4096];              /* FUSE: mount directory; CUSE: "/dev" */
    const char *name;              /* "fuse" or "cuse" */
};

/*
 * FUSE: mounts a file system with one regular file per node at dir (created
 * when missing) and records our st_dev in f. Returns 0 or -1 after logging why.
 */
int fusefs_start(struct front *f, const char *dir, struct transport *t);

/*
 * CUSE: one character device per node through /dev/cuse (major 195, minor
 * 255 for nvidiactl and N for nvidiaN; nvidia-uvm gets a dynamic major).
 * Returns 0, or -ENODEV when /dev/cuse does not exist, or -1 after logging.
 */
int cusedev_start(struct front *f, struct transport *t);

/*
 * Serves an open of node: a new front_file in fi->fh (direct I/O, not
 * seekable; other fi flags are the caller's) or the error front_open gives.
 */
void transport_open(struct front *f, struct fuse_req *req, const struct front_node *node, struct fuse_file_info *fi);

/* Serves the release of fi's front_file (after the last reference to the file dropped). */
void transport_release(struct front *f, struct fuse_req *req, struct fuse_file_info *fi);

/*
 * Serves one libfuse ioctl request (FUSE or CUSE) on ff: a 32-bit caller is
 * refused with ENOTTY and a log line; otherwise the in_bufsz bytes the kernel
 * copied in go through front_ioctl and the reply carries its result and at
 * most out_bufsz bytes. Always replies to req.
 */
void transport_ioctl(struct front *f, struct fuse_req *req, struct front_file *ff, uint32_t cmd, void *arg,
                     unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz);

/* Frees what start created (sessions must have stopped). */
void transport_destroy(struct transport *t);

/* Takes the FUSE mount down (nothing for CUSE), leaving the sessions as they are: a stop that cannot wait. */
void transport_unmount(struct transport *t);

#endif
