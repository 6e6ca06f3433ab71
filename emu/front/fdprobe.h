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
#include <stdint.h>
#include <sys/types.h>

/* Callers asking or queued at once, all users together; and of one uid. */
#define FDPROBE_MAX_WAITING 16
#define FDPROBE_WAITING_PER_UID 4

struct fdprobe {
    int sock;                 /* daemon's end; -1 when no helper */
    pid_t pid;
    uint64_t token;
    pthread_mutex_t lock;     /* guards the queue below and the socket */
    pthread_cond_t turn;      /* the question being answered changed */
    uint64_t next_ticket, serving; /* questions are answered in arrival order */
    struct {
        uid_t uid;
        unsigned n;           /* 0: free */
    } waiting[FDPROBE_MAX_WAITING];
    unsigned total;           /* callers asking or queued */
};

/* Forks the helper; token is what WHOAMI must carry to be answered. Returns 0 or -1. */
int fdprobe_start(struct fdprobe *p, uint64_t token);

/*
 * Asks the helper about fd (one of our files) for a caller of uid. Returns
 * the answer (a front_file) or 0. A helper that does not answer in time is
 * replaced by a fresh one, so one stalled question never disables resolution
 * for later callers. Waiting callers hold session threads, and the answer
 * itself needs a free one: at most FDPROBE_WAITING_PER_UID callers of one uid
 * and FDPROBE_MAX_WAITING in all wait (the others get 0 at once, logged),
 * and questions are answered in arrival order, so one user's flood delays
 * another's question by at most that user's few questions ahead of it.
 */
uint64_t fdprobe_ask(struct fdprobe *p, int fd, uid_t uid);

/* Ends the helper and reaps it. */
void fdprobe_stop(struct fdprobe *p);

#endif
