#include "front/callermem.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "base/log.h"

#define DEADLINE_NS ((uint64_t)CALLERMEM_DEADLINE_MS * 1000000ull)
/* Copier threads do nothing but one system call and a log line. */
#define COPIER_STACK (256u << 10)

/* A vanished caller and a bad address look the same to the core: the copy failed. */
static int vm_copy(pid_t tid, bool write, uint64_t addr, void *buf, size_t len)
{
    if (len == 0)
        return 0;
    struct iovec local = {.iov_base = buf, .iov_len = len};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
    ssize_t n = write ? process_vm_writev(tid, &local, 1, &remote, 1, 0)
                      : process_vm_readv(tid, &local, 1, &remote, 1, 0);
    return n == (ssize_t)len ? 0 : -EFAULT;
}

/* One copy handed to a copier thread. Freed by whichever side is last: the waiter, or the copier if abandoned. */
struct job {
    pid_t tid;
    bool write;
    uint64_t addr;
    size_t len;
    uid_t uid;
    int rc;
    bool done, abandoned;
    pthread_cond_t cv;
    unsigned char data[];
};

struct copier {
    pthread_cond_t cv;           /* a job was handed over */
    struct job *job;             /* NULL: idle */
    struct copier *next_idle;
};

/* What one uid has going on; an entry that holds nothing is removed. */
struct uid_use {
    uid_t uid;
    unsigned direct;             /* copies on session threads now */
    uint64_t direct_since[CALLERMEM_DIRECT_PER_UID]; /* 0: free slot */
    struct callermem_call *direct_call[CALLERMEM_DIRECT_PER_UID]; /* the call of that copy's thread */
    unsigned copiers;            /* copier threads busy with its copies */
    unsigned abandoned;          /* of those, copies whose waiter gave up (stuck) */
    unsigned waiters;            /* calls waiting for a copier of its share */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t copier_free;     /* a copier went idle or a share has room (monotonic clock) */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct uid_use *uses;
static unsigned nuses, capuses;
static struct copier *idle;
static unsigned copiers_total, copiers_busy;
static _Thread_local struct callermem_call *current_call;
/* Checks direct copies for the deadline this often. */
#define WATCH_NS 250000000ull

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct timespec abs_deadline(uint64_t ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t t = (uint64_t)ts.tv_nsec + ns;
    ts.tv_sec += (time_t)(t / 1000000000ull);
    ts.tv_nsec = (long)(t % 1000000000ull);
    return ts;
}

/* Lock held. The entry of uid, created when missing (NULL only when out of memory). */
static struct uid_use *use_of(uid_t uid)
{
    for (unsigned i = 0; i < nuses; i++)
        if (uses[i].uid == uid)
            return &uses[i];
    if (nuses == capuses) {
        unsigned cap = capuses ? capuses * 2 : 8;
        struct uid_use *n = realloc(uses, cap * sizeof(*n));
        if (!n)
            return NULL;
        uses = n;
        capuses = cap;
    }
    uses[nuses] = (struct uid_use){.uid = uid};
    return &uses[nuses++];
}

/* Lock held: removes uid's entry once it holds nothing (the table stays as small as the users copying). */
static void use_done(uid_t uid)
{
    for (unsigned i = 0; i < nuses; i++)
        if (uses[i].uid == uid) {
            const struct uid_use *u = &uses[i];
            if (!u->direct && !u->copiers && !u->waiters)
                uses[i] = uses[--nuses];
            return;
        }
}

static unsigned direct_stuck(const struct uid_use *u, uint64_t now)
{
    unsigned n = 0;
    for (unsigned i = 0; i < CALLERMEM_DIRECT_PER_UID; i++)
        n += u->direct_since[i] && now > u->direct_since[i] + DEADLINE_NS;
    return n;
}

/* Refusals can come in floods: one log line a second says how many. */
static void log_refused(uid_t uid, const char *why)
{
    static _Atomic uint64_t last_s;
    static atomic_uint since;
    unsigned n = atomic_fetch_add(&since, 1) + 1;
    uint64_t s = mono_ns() / 1000000000ull, prev = atomic_load(&last_s);
    if (s == prev || !atomic_compare_exchange_strong(&last_s, &prev, s))
        return;
    atomic_fetch_sub(&since, n);
    LOG_WARN("front", "uid %u: copy of its memory refused (EFAULT): %s (%u refused since the last line)",
             (unsigned)uid, why, n);
}

static void *copier_main(void *arg)
{
    struct copier *c = arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!c->job)
            pthread_cond_wait(&c->cv, &lock);
        struct job *j = c->job;
        uid_t uid = j->uid;
        pthread_mutex_unlock(&lock);
        int rc = vm_copy(j->tid, j->write, j->addr, j->data, j->len);
        pthread_mutex_lock(&lock);
        struct uid_use *u = use_of(uid);
        if (u) {
            u->copiers--;
            if (j->abandoned)
                u->abandoned--;
        }
        if (j->abandoned) {
            LOG_INFO("front", "uid %u: a copy given up after %d ms came back (%s)", (unsigned)uid,
                     CALLERMEM_DEADLINE_MS, rc == 0 ? "done" : "failed");
            pthread_cond_destroy(&j->cv);
            free(j);
        } else {
            j->rc = rc;
            j->done = true;
            pthread_cond_signal(&j->cv);
        }
        use_done(uid);
        c->job = NULL;
        c->next_idle = idle;
        idle = c;
        copiers_busy--;
        pthread_cond_broadcast(&copier_free);
    }
    return NULL;
}

/* Lock held: an idle copier, a new one, or NULL when none can be had. */
static struct copier *take_copier(void)
{
    if (idle) {
        struct copier *c = idle;
        idle = c->next_idle;
        return c;
    }
    if (copiers_total >= CALLERMEM_COPIERS_MAX)
        return NULL;
    struct copier *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    pthread_cond_init(&c->cv, NULL);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, COPIER_STACK);
    pthread_t t;
    int rc = pthread_create(&t, &a, copier_main, c);
    pthread_attr_destroy(&a);
    if (rc != 0) {
        pthread_cond_destroy(&c->cv);
        free(c);
        return NULL;
    }
    copiers_total++;
    return c;
}

/* A condition variable on the monotonic clock (the deadlines are monotonic). */
static void mono_cond_init(pthread_cond_t *cv)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(cv, &ca);
    pthread_condattr_destroy(&ca);
}

/* Lock held, u from use_of: the copy through a copier thread, waiting at most the deadline. */
static int via_copier(struct uid_use **up, uid_t uid, pid_t tid, bool write, uint64_t addr, void *buf, size_t len)
{
    struct uid_use *u = *up;
    struct timespec until = abs_deadline(DEADLINE_NS);
    struct copier *c = NULL;
    bool waited = false;
    for (;;) {
        if (u->copiers < CALLERMEM_COPIERS_PER_UID && (c = take_copier()) != NULL)
            break;
        const char *why = NULL;
        if (u->copiers > 0 && u->abandoned == u->copiers)
            why = "every copier thread of its share is stuck in a copy past the deadline";
        else if (u->waiters >= CALLERMEM_WAITERS_PER_UID)
            why = "too many of its calls wait for a copier thread";
        else if (waited && mono_ns() >= (uint64_t)until.tv_sec * 1000000000ull + (uint64_t)until.tv_nsec)
            why = "no copier thread came free within the deadline";
        if (why) {
            log_refused(uid, why);
            return -EFAULT;
        }
        u->waiters++;
        pthread_cond_timedwait(&copier_free, &lock, &until);
        waited = true;
        *up = u = use_of(uid); /* the table may have moved */
        if (!u)
            return -EFAULT;
        u->waiters--;
    }
    struct job *j = malloc(sizeof(*j) + len);
    if (!j) {
        c->next_idle = idle;
        idle = c;
        return -EFAULT;
    }
    *j = (struct job){.tid = tid, .write = write, .addr = addr, .len = len, .uid = uid};
    mono_cond_init(&j->cv);
    if (write)
        memcpy(j->data, buf, len);
    u->copiers++;
    copiers_busy++;
    c->job = j;
    pthread_cond_signal(&c->cv);
    until = abs_deadline(DEADLINE_NS);
    while (!j->done)
        if (pthread_cond_timedwait(&j->cv, &lock, &until) == ETIMEDOUT && !j->done)
            break;
    if (!j->done) {
        j->abandoned = true;
        *up = u = use_of(uid);
        if (u)
            u->abandoned++;
        LOG_WARN("front", "uid %u tid %d: a copy of %zu bytes at 0x%llx did not finish in %d ms: given up (EFAULT); "
                 "its copier thread stays with it", (unsigned)uid, (int)tid, len, (unsigned long long)addr,
                 CALLERMEM_DEADLINE_MS);
        return -EFAULT;
    }
    int rc = j->rc;
    if (rc == 0 && !write)
        memcpy(buf, j->data, len);
    pthread_cond_destroy(&j->cv);
    free(j);
    return rc;
}

/*
 * The watchdog: a direct copy past the deadline cannot be taken from its thread, but its call can be answered
 * without it, so the caller returns (and may exit, which ends the copy).
 */
static void *watchdog(void *arg)
{
    (void)arg;
    pthread_cond_t tick;
    mono_cond_init(&tick);
    pthread_mutex_lock(&lock);
    for (;;) {
        struct timespec until = abs_deadline(WATCH_NS);
        pthread_cond_timedwait(&tick, &lock, &until);
        uint64_t now = mono_ns();
        for (unsigned i = 0; i < nuses; i++)
            for (unsigned k = 0; k < CALLERMEM_DIRECT_PER_UID; k++) {
                struct callermem_call *c = uses[i].direct_call[k];
                if (!c || !uses[i].direct_since[k] || now <= uses[i].direct_since[k] + DEADLINE_NS ||
                    atomic_load(&c->given_up))
                    continue;
                atomic_store(&c->given_up, true);
                LOG_WARN("front", "uid %u: a call stuck over %d ms in a copy of its memory is answered EFAULT "
                         "without its thread", (unsigned)uses[i].uid, CALLERMEM_DEADLINE_MS);
                c->give_up(c);
            }
    }
    return NULL;
}

static void init_once(void)
{
    mono_cond_init(&copier_free);
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, COPIER_STACK);
    pthread_t t;
    if (pthread_create(&t, &a, watchdog, NULL) != 0)
        LOG_ERROR("front", "no copy watchdog: calls stuck in a caller's memory are not answered");
    pthread_attr_destroy(&a);
}

void callermem_set_call(struct callermem_call *c)
{
    current_call = c;
}

static int bounded_copy(uid_t uid, pid_t tid, bool write, uint64_t addr, void *buf, size_t len)
{
    if (len == 0)
        return 0;
    struct callermem_call *call = current_call;
    if (call && atomic_load(&call->given_up))
        return -EFAULT; /* answered already: the rest of the call copies nothing */
    pthread_once(&once, init_once);
    pthread_mutex_lock(&lock);
    struct uid_use *u = use_of(uid);
    if (!u) {
        pthread_mutex_unlock(&lock);
        return -EFAULT;
    }
    /* read under the lock: a time taken before it can be older than a slot another thread filled meanwhile */
    uint64_t now = mono_ns();
    int slot = -1;
    if (u->direct < CALLERMEM_DIRECT_PER_UID && u->abandoned == 0 && direct_stuck(u, now) == 0)
        for (int i = 0; i < CALLERMEM_DIRECT_PER_UID && slot < 0; i++)
            if (!u->direct_since[i])
                slot = i;
    int rc;
    if (slot >= 0) {
        u->direct++;
        u->direct_since[slot] = now;
        u->direct_call[slot] = call;
        pthread_mutex_unlock(&lock);
        rc = vm_copy(tid, write, addr, buf, len);
        pthread_mutex_lock(&lock);
        u = use_of(uid);
        if (u) {
            u->direct--;
            u->direct_since[slot] = 0;
            u->direct_call[slot] = NULL;
        }
        if (call && atomic_load(&call->given_up))
            rc = -EFAULT;
    } else {
        rc = via_copier(&u, uid, tid, write, addr, buf, len);
    }
    use_done(uid);
    pthread_mutex_unlock(&lock);
    return rc;
}

int callermem_read(uid_t uid, pid_t tid, uint64_t addr, void *dst, size_t len)
{
    return bounded_copy(uid, tid, false, addr, dst, len);
}

int callermem_write(uid_t uid, pid_t tid, uint64_t addr, const void *src, size_t len)
{
    return bounded_copy(uid, tid, true, addr, (void *)src, len);
}

unsigned callermem_stuck_direct(void)
{
    pthread_mutex_lock(&lock);
    uint64_t now = mono_ns();
    unsigned n = 0;
    for (unsigned i = 0; i < nuses; i++)
        n += direct_stuck(&uses[i], now);
    pthread_mutex_unlock(&lock);
    return n;
}
