/* Who a calling thread is, read from /proc/TID/status (an opener's identity). */
#ifndef NVEMU_FRONT_IDENT_H
#define NVEMU_FRONT_IDENT_H

#include <sys/types.h>

#include "nvemu/nvemu.h"

/*
 * Fills *id (pid = thread group, tid, effective uid, capabilities, comm) for
 * thread tid and stores its thread group in *tgid. Returns 0, or -ESRCH when
 * the thread is gone or its status cannot be parsed. Capabilities count only
 * in the daemon's own user namespace (the initial one on a host), as the
 * driver's capable() checks them in the initial namespace: a thread in
 * another user namespace (unshare -U) has none here, whatever its CapEff.
 */
int ident_read(pid_t tid, nvemu_identity *id, pid_t *tgid);

#endif
