/* Who a calling thread is, read from /proc/TID/status (an opener's identity). */
#ifndef NVEMU_FRONT_IDENT_H
#define NVEMU_FRONT_IDENT_H

#include <sys/types.h>

#include "nvemu/nvemu.h"

/*
 * Fills *id (pid = thread group, tid, effective uid, CapEff, comm) for
 * thread tid and stores its thread group in *tgid. Returns 0, or -ESRCH when
 * the thread is gone or its status cannot be parsed.
 */
int ident_read(pid_t tid, nvemu_identity *id, pid_t *tgid);

#endif
