/*
 * Copies of a caller's memory (process_vm_readv/writev) with per-uid shares
 * and deadlines. A page the caller backs with its own FUSE file or
 * userfaultfd can keep a copy waiting in the kernel for as long as the caller
 * wants, and the thread doing it cannot be interrupted: done on a session
 * thread, 64 such calls of one user once held every session thread.
 *
 * A uid's copies run on the calling session thread (no hand-off: the fast
 * path) while it has fewer than CALLERMEM_DIRECT_PER_UID of them in flight and
 * none of them is past the deadline. Otherwise they go to copier threads: the
 * session thread waits at most the deadline and is given back (the copy
 * fails with EFAULT, logged) while the copier stays with the stuck copy,
 * counted against its uid. A uid whose copier threads are all stuck, or that
 * has too many calls waiting for one, gets EFAULT at once. So one user holds
 * at most CALLERMEM_DIRECT_PER_UID session threads for longer than the
 * deadline, whatever it does. A call whose direct copy passes the deadline is
 * answered (EFAULT) without its thread by a watchdog (struct callermem_call):
 * its caller returns and can exit, which releases the memory and so the
 * thread.
 */
#ifndef NVEMU_FRONT_CALLERMEM_H
#define NVEMU_FRONT_CALLERMEM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copies of one uid on session threads at once; past it, or once one is past the deadline, copier threads. */
#define CALLERMEM_DIRECT_PER_UID 8
/* Copier threads one uid may keep busy, and all uids together. */
#define CALLERMEM_COPIERS_PER_UID 16
#define CALLERMEM_COPIERS_MAX 256
/* Calls of one uid waiting for a copier thread of its share. */
#define CALLERMEM_WAITERS_PER_UID 32
/* How long a session thread waits for a copy (or for a copier) before it is given back. */
#define CALLERMEM_DEADLINE_MS 1000

/*
 * The call a session thread serves. give_up answers its caller (EFAULT) while the thread is stuck in a copy
 * past the deadline; it runs on the watchdog thread, at most once, and after it the call's thread must not
 * answer again (given_up is set first).
 */
struct callermem_call {
    void (*give_up)(struct callermem_call *c);
    atomic_bool given_up;
};

/* The call this thread serves from now on (NULL: none); its copies may be given up for it. */
void callermem_set_call(struct callermem_call *c);

/*
 * Reads/writes len bytes at addr of thread tid for a caller of uid. 0, or -EFAULT when a byte is
 * unreachable, the copy did not finish within the deadline, or uid's share is used up (both logged), or
 * this thread's call was given up.
 */
int callermem_read(uid_t uid, pid_t tid, uint64_t addr, void *dst, size_t len);
int callermem_write(uid_t uid, pid_t tid, uint64_t addr, const void *src, size_t len);

/* Session threads now inside a direct copy past the deadline (a stop cannot wait for them). */
unsigned callermem_stuck_direct(void);

#endif
