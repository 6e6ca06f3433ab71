/*
 * The two ways the daemon's nodes reach the kernel. Each creates one or more
 * libfuse sessions bound to a struct front; serve.c runs and stops them.
 */
#ifndef NVEMU_FRONT_TRANSPORT_H
#define NVEMU_FRONT_TRANSPORT_H

#include <stdbool.h>

struct front;
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

/* Frees what start created (sessions must have stopped). */
void transport_destroy(struct transport *t);

#endif
