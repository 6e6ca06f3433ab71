/*
 * nvemu-gpreempt: the GPreempt-style scheduler as a standalone program of
 * plain RM ioctls (libnvrm + the CUDA-shaped context; no emulator code), so
 * the same binary runs under `nvemu run` in CI and on a real GPU.
 *
 *   nvemu-gpreempt demo [--iterations N] [--device I] [--lc-us N] [--be-us N] [--dev-dir DIR]
 *       Builds an LC and a BE CUDA-shaped context in this process (the BE one
 *       from a second thread, so the two have different creator thread ids),
 *       finds them with the query escape when the driver has it (patched
 *       driver / GPreempt-compat emulator; a stock driver says not found and
 *       the known handles are used), sets LC/BE timeslices, then preempts the
 *       BE group N times with bWait=0, N times with bWait=1, and disables and
 *       re-enables its channels N times. One line per action, then a summary.
 *       If the driver refuses the channels (they have no GPFIFO/USERD memory),
 *       the contexts are rebuilt as bare channel groups and only the timeslice
 *       and PREEMPT bWait=0 actions are measured.
 *   nvemu-gpreempt query TID... [--dev-dir DIR]
 *       Prints the channel group each thread created (query escape).
 *
 * Exit status: 0 when every action but the query succeeded, 1 otherwise, 2 on
 * bad usage or when a context cannot be built.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cudactx.h"
#include "gpreempt.h"

#define MAX_SAMPLES 100000u

struct stat_row {
    const char *what;
    uint64_t value;
    uint32_t n, ok;
    uint64_t *wall;
};

struct demo {
    struct stat_row rows[8];
    uint32_t nrows;
    uint32_t failures;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static struct stat_row *row_of(struct demo *d, const char *what, uint64_t value)
{
    /* preempt rows are split by bWait; other actions by kind only */
    uint64_t key = strcmp(what, "preempt") == 0 ? value : 0;
    for (uint32_t i = 0; i < d->nrows; i++) {
        if (strcmp(d->rows[i].what, what) == 0 && d->rows[i].value == key)
            return &d->rows[i];
    }
    if (d->nrows == sizeof d->rows / sizeof d->rows[0])
        return NULL;
    struct stat_row *r = &d->rows[d->nrows++];
    r->what = what;
    r->value = key;
    r->wall = calloc(MAX_SAMPLES, sizeof *r->wall);
    return r;
}

static void on_action(void *ctx, const struct gp_action *a)
{
    struct demo *d = ctx;
    const char *name = a->task ? a->task->name : "-";
    printf("gpreempt action=%s task=%s value=%llu status=0x%08x (%s) wall_us=%.1f\n", a->what, name,
           (unsigned long long)a->value, a->status, nv_status_name(a->status), (double)a->wall_ns / 1000.0);
    if (strcmp(a->what, "query") == 0)
        return;
    if (a->status != NV_OK)
        d->failures++;
    struct stat_row *r = row_of(d, a->what, a->value);
    if (r && r->wall && r->n < MAX_SAMPLES) {
        r->wall[r->n++] = a->wall_ns;
        r->ok += a->status == NV_OK;
    }
}

static void summary(struct demo *d)
{
    for (uint32_t i = 0; i < d->nrows; i++) {
        struct stat_row *r = &d->rows[i];
        if (!r->n)
            continue;
        qsort(r->wall, r->n, sizeof *r->wall, cmp_u64);
        char label[48];
        if (strcmp(r->what, "preempt") == 0)
            snprintf(label, sizeof label, "preempt(bWait=%llu)", (unsigned long long)r->value);
        else
            snprintf(label, sizeof label, "%s", r->what);
        printf("gpreempt summary action=%s n=%u ok=%u p50_us=%.1f p90_us=%.1f p99_us=%.1f max_us=%.1f\n", label, r->n,
               r->ok, r->wall[r->n / 2] / 1000.0, r->wall[(r->n * 9) / 10] / 1000.0,
               r->wall[(r->n * 99) / 100] / 1000.0, r->wall[r->n - 1] / 1000.0);
        free(r->wall);
    }
}

struct opts {
    uint32_t iterations;
    uint32_t device;
    uint64_t lc_us, be_us;
    const char *dev_dir;
};

/* One application: its own connection and CUDA-shaped context. */
struct app {
    const char *name;
    const struct opts *o;
    struct nvrm_os_dir dir;
    nvrm *rm;
    struct cudactx ctx;
    int32_t tid;
    NV_STATUS st;
    char err[256];
};

static void *app_build(void *arg)
{
    struct app *a = arg;
    a->tid = (int32_t)syscall(SYS_gettid);
    a->st = NV_ERR_OPERATING_SYSTEM;
    if (nvrm_transport_os_dir(&a->dir, a->o->dev_dir) != 0 || nvrm_open(&a->rm, &a->dir.tp) != 0) {
        snprintf(a->err, sizeof a->err, "open %s/nvidiactl: %s", a->o->dev_dir ? a->o->dev_dir : "/dev",
                 strerror(errno));
        return NULL;
    }
    struct cudactx_options co;
    cudactx_options_init(&co);
    co.device_instance = a->o->device;
    a->st = cudactx_create(a->rm, &co, &a->ctx, a->err, sizeof a->err);
    if (a->st != NV_OK && strncmp(a->err, "channel alloc", 13) == 0) {
        /* a driver that wants GPFIFO/USERD memory for channels: measure on a bare channel group instead */
        printf("gpreempt context=%s failed at %s; retrying with an empty, unscheduled channel group\n", a->name,
               a->err);
        co.compute_channels = 0;
        co.copy_groups = 0;
        co.schedule = false;
        co.preempt_mode = CUDACTX_PREEMPT_MODE_NONE;
        a->st = cudactx_create(a->rm, &co, &a->ctx, a->err, sizeof a->err);
    }
    if (a->st == NV_OK)
        printf("gpreempt context=%s tid=%d client=0x%08x tsg=0x%08x tsg_id=%u channels=%u channel_class=0x%04x "
               "copy_groups=%u preempt_mode_status=0x%08x\n",
               a->name, a->tid, a->ctx.hClient, a->ctx.compute.hTsg, a->ctx.compute.tsg_id, a->ctx.compute.nchannels,
               a->ctx.channel_class, a->ctx.ncopy, a->ctx.preempt_mode_status);
    return NULL;
}

static void app_done(struct app *a)
{
    if (a->st == NV_OK)
        cudactx_destroy(&a->ctx);
    nvrm_close(a->rm);
}

/* Registers app with the scheduler: through the query when the driver answers it, else with its known handles. */
static struct gp_task *register_app(struct gp_sched *s, struct app *a, struct app *querier, enum gp_class cls)
{
    struct gp_task *t = NULL;
    if (gp_add_task_query(s, querier->rm, a->name, cls, a->tid, a->ctx.hSubdevice, &t) == NV_OK) {
        bool match = t->hClient == a->ctx.hClient && t->hTsg == a->ctx.compute.hTsg;
        printf("gpreempt query tid=%d found client=0x%08x tsg=0x%08x (%s)\n", a->tid, t->hClient, t->hTsg,
               match ? "matches the context" : "does NOT match the context");
        /* on a stock driver only the creating connection may issue controls on the client */
        t->rm = a->rm;
        if (match)
            return t;
        s->ntasks--;
    } else {
        printf("gpreempt query tid=%d: no answer (stock driver or no 8-channel group): using the known handles\n",
               a->tid);
    }
    gp_add_task(s, a->rm, a->name, cls, a->ctx.hClient, a->ctx.compute.hTsg, a->ctx.hSubdevice, a->ctx.compute.nchannels,
                a->ctx.compute.hChannels, &t);
    return t;
}

static int demo(const struct opts *o)
{
    struct app lc = {.name = "lc", .o = o}, be = {.name = "be", .o = o};
    app_build(&lc);
    pthread_t th;
    if (pthread_create(&th, NULL, app_build, &be) != 0) {
        fprintf(stderr, "nvemu-gpreempt: cannot start a thread\n");
        app_done(&lc);
        return 2;
    }
    pthread_join(th, NULL);
    if (lc.st != NV_OK || be.st != NV_OK) {
        fprintf(stderr, "nvemu-gpreempt: cannot build the %s context: %s\n", lc.st != NV_OK ? "LC" : "BE",
                lc.st != NV_OK ? lc.err : be.err);
        app_done(&lc);
        app_done(&be);
        return 2;
    }

    struct demo d = {0};
    struct gp_config cfg;
    gp_config_init(&cfg);
    cfg.lc_us = o->lc_us;
    cfg.be_us = o->be_us;
    cfg.on_action = on_action;
    cfg.ctx = &d;
    static struct gp_sched s;
    gp_init(&s, &cfg);
    register_app(&s, &lc, &lc, GP_LC);
    struct gp_task *bt = register_app(&s, &be, &lc, GP_BE);

    gp_set_priorities(&s);
    for (uint32_t i = 0; i < s.ntasks; i++)
        gp_get_timeslice(&s, &s.tasks[i], NULL);
    for (uint32_t i = 0; i < o->iterations; i++)
        gp_preempt(&s, bt, false);
    if (bt->nchannels == 0)
        printf("gpreempt skipping PREEMPT bWait=1 and DISABLE_CHANNELS: the BE group has no channels "
               "(a waiting preempt of an empty group times out on the H200)\n");
    for (uint32_t i = 0; bt->nchannels && i < o->iterations; i++)
        gp_preempt(&s, bt, true);
    for (uint32_t i = 0; bt->nchannels && i < o->iterations; i++) {
        gp_disable(&s, bt, true);
        gp_disable(&s, bt, false);
    }
    summary(&d);
    printf("gpreempt result=%s failures=%u\n", d.failures ? "fail" : "ok", d.failures);
    app_done(&lc);
    app_done(&be);
    return d.failures ? 1 : 0;
}

static int query(const struct opts *o, int n, char **tids)
{
    struct nvrm_os_dir dir;
    nvrm *rm;
    if (nvrm_transport_os_dir(&dir, o->dev_dir) != 0 || nvrm_open(&rm, &dir.tp) != 0) {
        fprintf(stderr, "nvemu-gpreempt: open nvidiactl: %s\n", strerror(errno));
        return 2;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *end;
        long tid = strtol(tids[i], &end, 10);
        if (*end || tid <= 0) {
            fprintf(stderr, "nvemu-gpreempt: '%s' is not a thread id\n", tids[i]);
            rc = 2;
            continue;
        }
        struct nvrm_group g;
        NV_STATUS st = nvrm_query_group(rm, (int32_t)tid, &g);
        printf("gpreempt query tid=%ld status=0x%08x (%s) client=0x%08x tsg=0x%08x channels=%u\n", tid, st,
               nv_status_name(st), g.hClient, g.hTsg, g.num_channels);
        if (st != NV_OK && rc == 0)
            rc = 1;
    }
    nvrm_close(rm);
    return rc;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: nvemu-gpreempt demo [--iterations N] [--device I] [--lc-us N] [--be-us N] [--dev-dir DIR]\n"
               "       nvemu-gpreempt query TID... [--dev-dir DIR]\n");
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || *s == '-' || !*s)
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {.iterations = 10, .device = 0, .lc_us = 1000000, .be_us = 1, .dev_dir = NULL};
    static const struct option longopts[] = {
        {"iterations", required_argument, NULL, 'n'}, {"device", required_argument, NULL, 'd'},
        {"lc-us", required_argument, NULL, 'l'},      {"be-us", required_argument, NULL, 'b'},
        {"dev-dir", required_argument, NULL, 'D'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *mode = argv[1];
    optind = 2;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
        case 'd':
            if (parse_u64(optarg, &v) != 0 || v > (c == 'n' ? 10000u : 31u)) {
                fprintf(stderr, "nvemu-gpreempt: bad --%s '%s'\n", c == 'n' ? "iterations" : "device", optarg);
                return 2;
            }
            if (c == 'n')
                o.iterations = (uint32_t)v;
            else
                o.device = (uint32_t)v;
            break;
        case 'l':
        case 'b':
            if (parse_u64(optarg, &v) != 0 || v == 0) {
                fprintf(stderr, "nvemu-gpreempt: bad timeslice '%s'\n", optarg);
                return 2;
            }
            *(c == 'l' ? &o.lc_us : &o.be_us) = v;
            break;
        case 'D':
            o.dev_dir = optarg;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "demo") == 0 && optind == argc)
        return demo(&o);
    if (strcmp(mode, "query") == 0 && optind < argc)
        return query(&o, argc - optind, argv + optind);
    usage(stderr);
    return 2;
}
