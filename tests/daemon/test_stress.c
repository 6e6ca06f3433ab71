/*
 * Run inside `nvemu run`: P processes x T threads x N mixed calls through
 * the FUSE nodes (usage: test_stress P T N). Each thread owns an fd, a
 * client, a device and up to 8 channel groups; it allocates and frees
 * channel groups, sets and reads their timeslices (checking the value it
 * set), and probes channel groups of other threads (must be refused).
 * With every thread parked at a barrier the daemon's counts must match what
 * the threads hold (no lost object); after the processes exit every client
 * must be gone. An alarm turns a deadlock into a failure.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dstat.h"
#include "rmraw.h"

#define MAX_THREADS 1024
#define SLOTS 8
#define H_DEVICE 0xD0000001u
#define H_TSG0 0xD0001000u
#define DEADLOCK_S 600

struct shared {
    pthread_barrier_t parked, resume;
    atomic_uint errors;
    atomic_ulong calls;
    atomic_uint client[MAX_THREADS];
    atomic_uint tsg[MAX_THREADS];       /* one live channel group of that thread, 0 if none */
    atomic_uint live[MAX_THREADS];
    char first_error[256];
    atomic_flag error_taken;
};

struct worker {
    struct shared *sh;
    int index, total, iters;
    unsigned seed;
};

static void report(struct shared *sh, int idx, const char *what, uint32_t st)
{
    atomic_fetch_add(&sh->errors, 1);
    if (!atomic_flag_test_and_set(&sh->error_taken))
        snprintf(sh->first_error, sizeof(sh->first_error), "thread %d: %s (status %#x)", idx, what, st);
}

static int pick_live(const uint32_t *ts, unsigned *seed)
{
    int start = (int)(rand_r(seed) % SLOTS);
    for (int k = 0; k < SLOTS; k++)
        if (ts[(start + k) % SLOTS])
            return (start + k) % SLOTS;
    return -1;
}

static int pick_free(const uint32_t *ts)
{
    for (int k = 0; k < SLOTS; k++)
        if (!ts[k])
            return k;
    return -1;
}

static void publish(struct worker *w, const uint32_t *ts)
{
    int s = -1;
    for (int k = 0; k < SLOTS; k++)
        if (ts[k])
            s = k;
    atomic_store(&w->sh->tsg[w->index], s < 0 ? 0 : H_TSG0 + (uint32_t)s);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct shared *sh = w->sh;
    uint32_t ts[SLOTS] = {0}; /* timeslice we set per slot; 0 = slot empty */
    int fd = open("/dev/nvidiactl", O_RDWR);
    uint32_t hc = 0, st;
    if (fd < 0 || (st = raw_client_device(fd, &hc, H_DEVICE)) != 0) {
        report(sh, w->index, "client/device", fd < 0 ? 0xFFFFFFFFu : st);
        pthread_barrier_wait(&sh->parked);
        pthread_barrier_wait(&sh->resume);
        return NULL;
    }
    atomic_store(&sh->client[w->index], hc);
    unsigned long calls = 2;
    for (int i = 0; i < w->iters; i++, calls++) {
        int r = (int)(rand_r(&w->seed) % 100);
        int s = pick_live(ts, &w->seed);
        if (r < 25 || s < 0) {
            int f = pick_free(ts);
            if (f < 0) {
                if ((st = raw_free(fd, hc, H_TSG0 + (uint32_t)s)) != 0)
                    report(sh, w->index, "free (full)", st);
                ts[s] = 0;
                continue;
            }
            if ((st = raw_tsg(fd, hc, H_DEVICE, H_TSG0 + (uint32_t)f)) != 0)
                report(sh, w->index, "alloc channel group", st);
            else
                ts[f] = 1; /* allocated; its timeslice is the default until set */
        } else if (r < 45) {
            if ((st = raw_free(fd, hc, H_TSG0 + (uint32_t)s)) != 0)
                report(sh, w->index, "free channel group", st);
            ts[s] = 0;
        } else if (r < 70) {
            uint64_t v = 1000 + (uint64_t)(rand_r(&w->seed) % 100000);
            if ((st = raw_timeslice(fd, hc, H_TSG0 + (uint32_t)s, RAW_CTRL_SET_TIMESLICE, &v)) != 0)
                report(sh, w->index, "SET_TIMESLICE", st);
            else
                ts[s] = (uint32_t)v;
        } else if (r < 95) {
            uint64_t v = 0;
            if ((st = raw_timeslice(fd, hc, H_TSG0 + (uint32_t)s, RAW_CTRL_GET_TIMESLICE, &v)) != 0)
                report(sh, w->index, "GET_TIMESLICE", st);
            else if (ts[s] > 1 && v != ts[s])
                report(sh, w->index, "GET_TIMESLICE returned another thread's value", (uint32_t)v);
        } else {
            int other = (int)(rand_r(&w->seed) % (unsigned)w->total);
            uint32_t oc = atomic_load(&sh->client[other]), ot = atomic_load(&sh->tsg[other]);
            uint64_t v = 0;
            if (other != w->index && oc && ot &&
                (st = raw_timeslice(fd, oc, ot, RAW_CTRL_GET_TIMESLICE, &v)) == RAW_NV_OK)
                report(sh, w->index, "foreign channel group visible", st);
        }
        publish(w, ts);
    }
    unsigned live = 0;
    for (int k = 0; k < SLOTS; k++)
        live += ts[k] != 0;
    atomic_store(&sh->live[w->index], live);
    atomic_fetch_add(&sh->calls, calls);
    pthread_barrier_wait(&sh->parked);
    pthread_barrier_wait(&sh->resume);
    for (int k = 0; k < SLOTS; k++) {
        uint64_t v = 0;
        if (ts[k] && raw_timeslice(fd, hc, H_TSG0 + (uint32_t)k, RAW_CTRL_GET_TIMESLICE, &v) != 0)
            report(sh, w->index, "channel group lost", 0);
    }
    return NULL; /* exit without freeing: the fd close must free everything */
}

static void process_main(struct shared *sh, int proc, int threads, int total, int iters)
{
    pthread_t th[MAX_THREADS];
    struct worker w[MAX_THREADS];
    /* Held until exit, as CUDA does: device allocs need the process to have the GPU node open
       (without it the workers' allocs fail and report). */
    if (raw_open_gpu() < 0)
        report(sh, proc * threads, "open /dev/nvidia0", 0);
    for (int t = 0; t < threads; t++) {
        w[t] = (struct worker){sh, proc * threads + t, total, iters, (unsigned)(proc * 7919 + t * 104729 + 1)};
        pthread_create(&th[t], NULL, work, &w[t]);
    }
    for (int t = 0; t < threads; t++)
        pthread_join(th[t], NULL);
}

int main(int argc, char **argv)
{
    int procs = argc > 1 ? atoi(argv[1]) : 16, threads = argc > 2 ? atoi(argv[2]) : 4;
    int iters = argc > 3 ? atoi(argv[3]) : 10000;
    if (procs < 1 || threads < 1 || procs * threads > MAX_THREADS || iters < 1) {
        fprintf(stderr, "usage: test_stress PROCS THREADS ITERS (PROCS*THREADS <= %d)\n", MAX_THREADS);
        return 2;
    }
    int total = procs * threads;
    struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED)
        return 1;
    memset(sh, 0, sizeof(*sh));
    pthread_barrierattr_t ba;
    pthread_barrierattr_init(&ba);
    pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
    pthread_barrier_init(&sh->parked, &ba, (unsigned)total + 1);
    pthread_barrier_init(&sh->resume, &ba, (unsigned)total + 1);
    struct dstat base, now;
    if (dstat_get(&base) != 0)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    alarm(DEADLOCK_S); /* default action kills us: a hang becomes a failure */
    pid_t pids[MAX_THREADS];
    for (int p = 0; p < procs; p++) {
        pids[p] = fork();
        if (pids[p] == 0) {
            process_main(sh, p, threads, total, iters);
            _exit(0);
        }
    }
    pthread_barrier_wait(&sh->parked);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    unsigned long live = 0;
    for (int i = 0; i < total; i++)
        live += atomic_load(&sh->live[i]);
    int bad = 0;
    if (dstat_get(&now) != 0 || now.clients != base.clients + total ||
        now.channel_groups != base.channel_groups + (long)live) {
        fprintf(stderr, "parked: clients %ld (want %ld), channel groups %ld (want %ld + %lu)\n", now.clients,
                base.clients + total, now.channel_groups, base.channel_groups, live);
        bad = 1;
    }
    pthread_barrier_wait(&sh->resume);
    for (int p = 0; p < procs; p++)
        waitpid(pids[p], NULL, 0);
    if (dstat_wait_back(&base, 30000, &now) != 0) {
        fprintf(stderr, "after exit: clients %ld, openers %ld, channel groups %ld (want %ld, %ld, %ld)\n",
                now.clients, now.openers, now.channel_groups, base.clients, base.openers, base.channel_groups);
        bad = 1;
    }
    alarm(0);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    unsigned long calls = atomic_load(&sh->calls);
    printf("test_stress: %d procs x %d threads x %d iters: %lu calls in %.2f s (%.0f calls/s), %lu channel groups "
           "live at the barrier\n",
           procs, threads, iters, calls, secs, (double)calls / secs, live);
    if (atomic_load(&sh->errors)) {
        fprintf(stderr, "%u error(s); first: %s\n", atomic_load(&sh->errors), sh->first_error);
        bad = 1;
    }
    if (bad) {
        fprintf(stderr, "test_stress: FAIL\n");
        return 1;
    }
    printf("test_stress: OK\n");
    return 0;
}
