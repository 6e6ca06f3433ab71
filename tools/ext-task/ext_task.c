/*
 * nvemu-ext-task: a tiny external scenario task (`tasks[].process`). It is
 * an ordinary RM client: libnvrm's OS transport on the daemon's nodes
 * ($NVEMU_MOUNT, else /dev) and libcuda's context (clients/cudactx); its
 * work goes through the emulator's documented workload escapes
 * (emu/fifo/workload.h, nr 0xF0-0xF6 on nvidiactl) with plain ioctl(2).
 *
 *   nvemu-ext-task [--rate R] [--think D] [--preprocess D] [--kernel D]
 *                  [--blocks N] [--repeat N] [--exit-at D]
 *
 * Requests: periodic at R per second (0 = closed loop with --think between
 * a completion and the next arrival); each is preprocess CPU time, then
 * --repeat kernels of --kernel each on the context's first compute channel;
 * done when the last one completes. One request at a time, later arrivals
 * queue, as the runner's synthetic tasks do. --exit-at makes it die at that
 * virtual time (exit status 3, nothing cleaned up): how tests see the
 * runner report a task process that crashes.
 *
 * The scenario runner's participant protocol is nvemu/scenario_task.h (its only
 * scenario header): the variables it reads, the marks it writes (inst_tsg,
 * req_arrive, req_done, req_open). At the end it frees its context, then
 * unregisters, then closes its fds.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "abi/nv_escape.h"
#include "cudactx.h"
#include "abi/nv_workload.h"
#include "nvrm.h"
#include "nvemu/scenario_task.h"

struct opts {
    double rate;
    uint64_t think_ns, pre_ns, kernel_ns;
    uint32_t blocks, repeat;
    uint64_t exit_at_ns;          /* 0 = never */
};

struct task {
    nvrm *rm;
    int ctl;
    struct cudactx ctx;
    uint32_t inst;
    uint64_t end_ns;
};

static int parse_ns(const char *s, uint64_t *out)
{
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return -1;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) == 0) {
            *out = (uint64_t)(v * units[i].scale + 0.5);
            return 0;
        }
    }
    return -1;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){.rate = 100, .kernel_ns = 100000, .blocks = 1, .repeat = 1};
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            goto bad;
        i++;
        int rc = 0;
        if (strcmp(k, "--rate") == 0)
            o->rate = strtod(v, NULL);
        else if (strcmp(k, "--think") == 0)
            rc = parse_ns(v, &o->think_ns);
        else if (strcmp(k, "--preprocess") == 0)
            rc = parse_ns(v, &o->pre_ns);
        else if (strcmp(k, "--kernel") == 0)
            rc = parse_ns(v, &o->kernel_ns);
        else if (strcmp(k, "--blocks") == 0)
            o->blocks = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(k, "--repeat") == 0)
            o->repeat = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(k, "--exit-at") == 0)
            rc = parse_ns(v, &o->exit_at_ns);
        else
            goto bad;
        if (rc)
            goto bad;
    }
    if (o->rate < 0 || o->kernel_ns == 0 || o->blocks == 0 || o->repeat == 0)
        goto bad;
    return 0;
bad:
    fprintf(stderr, "usage: nvemu-ext-task [--rate R] [--think D] [--preprocess D] [--kernel D] [--blocks N] "
                    "[--repeat N] [--exit-at D]\n");
    return -1;
}

static int esc(struct task *t, unsigned long request, void *arg)
{
    int rc;
    do
        rc = ioctl(t->ctl, request, arg);
    while (rc < 0 && errno == EINTR);
    if (rc < 0)
        fprintf(stderr, "nvemu-ext-task: escape 0x%lx: %s\n", (unsigned long)_IOC_NR(request), strerror(errno));
    return rc;
}

#define ESC(nr, type) _IOWR(NV_IOCTL_MAGIC, nr, type)

static int mark(struct task *t, const char *name, uint64_t b)
{
    struct nvemu_wl_mark m = {.a = t->inst, .b = b};
    snprintf(m.name, sizeof(m.name), "%s", name);
    return esc(t, ESC(NVEMU_ESC_WL_MARK, struct nvemu_wl_mark), &m);
}

static uint64_t now(struct task *t)
{
    struct nvemu_wl_now n = {0};
    return esc(t, ESC(NVEMU_ESC_WL_NOW, struct nvemu_wl_now), &n) == 0 ? n.now_ns : UINT64_MAX;
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 0) : dflt;
}

static int setup(struct task *t, struct nvrm_os_dir *dir)
{
    const char *comm = getenv(SC_ENV_COMM);
    if (comm && *comm)
        prctl(PR_SET_NAME, comm, 0, 0, 0);
    t->inst = (uint32_t)env_u64(SC_ENV_INSTANCE, 0);
    t->end_ns = env_u64(SC_ENV_END_NS, 1000000000ull);
    if (nvrm_transport_os_dir(dir, getenv(SC_ENV_MOUNT)) != 0 || nvrm_open(&t->rm, &dir->tp) != 0 ||
        nvrm_open_gpu(t->rm, 0) != 0) {
        fprintf(stderr, "nvemu-ext-task: cannot open the device nodes in %s: %s\n",
                getenv(SC_ENV_MOUNT) ? getenv(SC_ENV_MOUNT) : "/dev", strerror(errno));
        return -1;
    }
    t->ctl = nvrm_ctl_fd(t->rm);
    char why[256] = "";
    NV_STATUS st = cudactx_create(t->rm, NULL, &t->ctx, why, sizeof(why));
    if (st != NV_OK) {
        fprintf(stderr, "nvemu-ext-task: context: %s (status 0x%x)\n", why, st);
        return -1;
    }
    struct nvemu_wl_register reg = {.name = "ext-task"};
    if (esc(t, ESC(NVEMU_ESC_WL_REGISTER, struct nvemu_wl_register), &reg) != 0 || reg.status != NV_OK) {
        fprintf(stderr, "nvemu-ext-task: REGISTER: status 0x%x\n", reg.status);
        return -1;
    }
    if (mark(t, SC_MARK_TSG, t->ctx.compute.tsg_id) != 0)
        return -1;
    const char *fd = getenv(SC_ENV_READY_FD);
    if (fd && *fd) {
        int rfd = atoi(fd);
        if (write(rfd, "r", 1) != 1) {
            fprintf(stderr, "nvemu-ext-task: ready fd %d: %s\n", rfd, strerror(errno));
            return -1;
        }
        close(rfd);
    }
    /* the protocol's start: a sleep to time 0 returns on this participant's turn, once every process is ready */
    struct nvemu_wl_sleep start = {.until_ns = 0};
    if (esc(t, ESC(NVEMU_ESC_WL_SLEEP, struct nvemu_wl_sleep), &start) != 0 || start.status != NV_OK) {
        fprintf(stderr, "nvemu-ext-task: SLEEP to the start: status 0x%x\n", start.status);
        return -1;
    }
    return 0;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* The request loop (see the file comment); returns 0 once the end of the run is reached. */
static int serve(struct task *t, const struct opts *o)
{
    uint64_t period = o->rate > 0 ? (uint64_t)(1e9 / o->rate) : 0;
    uint64_t next_arrival = 0, queued = 0, next_num = 0, cur = 0, pre_until = 0;
    uint32_t left = 0;
    enum { IDLE, PRE, RUN } phase = IDLE;
    for (;;) {
        uint64_t t_now = now(t);
        if (t_now == UINT64_MAX)
            return -1;
        if (t_now >= t->end_ns)
            break;
        if (o->exit_at_ns && t_now >= o->exit_at_ns)
            _exit(3);
        if (next_arrival <= t_now) {
            if (mark(t, SC_MARK_ARRIVE, next_num++))
                return -1;
            queued++;
            next_arrival = period ? next_arrival + period : UINT64_MAX;
        }
        if (phase == IDLE && queued) {
            queued--;
            cur = next_num - queued - 1;
            phase = PRE;
            pre_until = t_now + o->pre_ns;
        }
        if (phase == PRE && t_now >= pre_until) {
            for (uint32_t k = 0; k < o->repeat; k++) {
                struct nvemu_wl_submit s = {.hClient = t->ctx.hClient, .hChannel = t->ctx.compute.hChannels[0],
                                            .blocks = o->blocks, .total_ns = o->kernel_ns, .tag = cur};
                if (esc(t, ESC(NVEMU_ESC_WL_SUBMIT, struct nvemu_wl_submit), &s) != 0 || s.status != NV_OK) {
                    fprintf(stderr, "nvemu-ext-task: SUBMIT: status 0x%x\n", s.status);
                    return -1;
                }
            }
            left = o->repeat;
            phase = RUN;
        }
        uint64_t deadline = min3(next_arrival, t->end_ns, phase == PRE ? pre_until : UINT64_MAX);
        if (o->exit_at_ns && o->exit_at_ns < deadline)
            deadline = o->exit_at_ns;
        if (phase == RUN) {
            struct nvemu_wl_wait w = {.deadline_ns = deadline};
            if (esc(t, ESC(NVEMU_ESC_WL_WAIT, struct nvemu_wl_wait), &w) != 0)
                return -1;
            if (w.status == NV_OK && --left == 0) {
                if (mark(t, SC_MARK_DONE, cur))
                    return -1;
                phase = IDLE;
                if (!period)
                    next_arrival = w.done_ns + o->think_ns;
            }
        } else {
            struct nvemu_wl_sleep sl = {.until_ns = deadline};
            if (esc(t, ESC(NVEMU_ESC_WL_SLEEP, struct nvemu_wl_sleep), &sl) != 0)
                return -1;
        }
    }
    /* The run is over: what is still pending is reported in flight, as the runner does for its own tasks. */
    if (phase != IDLE && mark(t, SC_MARK_OPEN, cur))
        return -1;
    for (uint64_t q = 0; q < queued; q++)
        if (mark(t, SC_MARK_OPEN, next_num - queued + q))
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    if (parse_args(argc, argv, &o) != 0)
        return 2;
    struct task t;
    memset(&t, 0, sizeof(t));
    struct nvrm_os_dir dir;
    int rc = setup(&t, &dir) == 0 && serve(&t, &o) == 0 ? 0 : 1;
    if (t.rm) {
        /* Teardown while still a participant (holding the baton): the next one's comes after it. */
        if (t.ctx.hClient)
            cudactx_destroy(&t.ctx);
        struct nvemu_wl_status u = {0};
        esc(&t, ESC(NVEMU_ESC_WL_UNREGISTER, struct nvemu_wl_status), &u);
        nvrm_close(t.rm);
    }
    return rc;
}
