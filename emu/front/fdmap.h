/*
 * Maps an fd number of a caller's fd table to the opener behind it
 * (REGISTER_FD's ctl_fd). Method: pidfd_open(caller's thread group) +
 * pidfd_getfd gives the daemon its own reference to the caller's open file;
 * fstat tells whether it is one of our nodes (FUSE: st_dev of our mount;
 * CUSE: our major); a helper process (fdprobe.h) then sends
 * FRONT_IOCTL_WHOAMI on that reference, which a session thread answers with
 * the front_file it was opened as. The reference keeps the file (and so the
 * opener) alive until we close it. Needs ptrace-level access to the caller
 * (root, or same uid with Yama ptrace_scope 0).
 */
#ifndef NVEMU_FRONT_FDMAP_H
#define NVEMU_FRONT_FDMAP_H

#include <sys/types.h>

#include "nvemu/nvemu.h"

struct front;

/*
 * Returns the opener behind fd in thread tid's fd table, or NULL when fd is
 * not open there or is not one of our nodes (or uid has too many questions
 * waiting for the probe, fdprobe.h). With an opener, *hold is the
 * daemon's own reference to the file: the opener stays valid until the
 * caller closes *hold (else -1), even if the process closes its fd at once.
 * The answer needs a free session thread, so front_ioctl resolves
 * REGISTER_FD before entering the core's lock.
 */
nvemu_opener *fdmap_resolve(struct front *f, pid_t tid, uid_t uid, int fd, int *hold);

#endif
