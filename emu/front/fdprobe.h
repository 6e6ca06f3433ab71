/*
 * The helper process that asks "which opener is this file" (see fdmap.h).
 * The question is an ioctl on one of our own FUSE/CUSE files, i.e. a request
 * to our own session. Asked from a daemon thread, a daemon killed at that
 * moment could never finish exiting (the thread waits uninterruptibly for an
 * answer only the dying process could give, and the dying process keeps
 * /dev/fuse open). So a separate process, forked before any /dev/fuse or
 * /dev/cuse fd exists, asks instead: files travel to it over a socketpair
 * (SCM_RIGHTS); if the daemon dies the connection aborts and the helper's
 * call fails; the helper exits when the socket closes.
 */
#ifndef NVEMU_FRONT_FDPROBE_H
#define NVEMU_FRONT_FDPROBE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

struct fdprobe {
    int sock;                 /* daemon's end; -1 when no helper */
    pid_t pid;
    uint64_t token;
    pthread_mutex_t lock;     /* one question at a time */
    atomic_uint waiting;      /* callers asking or queued for the lock */
};

/* Forks the helper; token is what WHOAMI must carry to be answered. Returns 0 or -1. */
int fdprobe_start(struct fdprobe *p, uint64_t token);

/*
 * Asks the helper about fd (one of our files). Returns the answer (a
 * front_file) or 0. A helper that does not answer in time is replaced by a
 * fresh one, so one stalled question never disables resolution for later
 * callers. At most FDPROBE_MAX_WAITING callers wait at once (the others get 0
 * at once): waiting callers hold session threads, and the answer itself
 * needs a free one.
 */
#define FDPROBE_MAX_WAITING 8
uint64_t fdprobe_ask(struct fdprobe *p, int fd);

/* Ends the helper and reaps it. */
void fdprobe_stop(struct fdprobe *p);

#endif
