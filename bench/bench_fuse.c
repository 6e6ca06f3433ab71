/*
 * FUSE round-trip rows for `nvemu bench`. One measurement runs
 * three paths alternating per round (the order rotates each round):
 *   (a) a FUSE file system that answers every ioctl at once (the floor: kernel
 *       + libfuse round trip, same loop configuration as the daemon)
 *   (b) NVA06C GET_TIMESLICE through the daemon (front_serve, FUSE, a child)
 *   (c) the same control through nvemu_ioctl in this process (safe accessor)
 * and reports p50/p99 of each in the note. Targets (issue 3): (b)/(a) <= 1.5
 * at p50, (b) p50 <= 15 us. Needs root and /dev/fuse (the row fails without).
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "abi/nv_alloc.h"
#include "abi/nv_alloc_fifo.h"
#include "abi/nv_classes.h"
#include "abi/nv_ctrl_fifo.h"
#include "abi/nv_engine.h"
#include "abi/nv_escape.h"
#include "bench.h"
#include "front/front.h"
#include "front/inproc.h"

#define H_DEVICE 0xD0000001u
#define H_TSG 0xD0000002u
#define WARMUP 2000

/* ---- (a) the no-op file system: one file "x" ---- */

static void noop_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    if (parent != FUSE_ROOT_ID || strcmp(name, "x") != 0) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct fuse_entry_param e;
    memset(&e, 0, sizeof(e));
    e.ino = 2;
    e.attr.st_ino = 2;
    e.attr.st_mode = S_IFREG | 0666;
    e.attr.st_nlink = 1;
    e.attr_timeout = e.entry_timeout = 86400;
    fuse_reply_entry(req, &e);
}

static void noop_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    struct stat st;
    memset(&st, 0, sizeof(st));
    st.st_ino = ino;
    st.st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0666;
    st.st_nlink = 1;
    fuse_reply_attr(req, &st, 86400);
}

static void noop_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    fi->direct_io = 1;
    fi->nonseekable = 1;
    fi->noflush = 1;
    fuse_reply_open(req, fi);
}

static void noop_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd, void *arg, struct fuse_file_info *fi,
                       unsigned flags, const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
    (void)ino, (void)cmd, (void)arg, (void)fi, (void)flags;
    fuse_reply_ioctl(req, 0, in_buf, in_bufsz < out_bufsz ? in_bufsz : out_bufsz);
}

static const struct fuse_lowlevel_ops noop_ops = {
    .lookup = noop_lookup, .getattr = noop_getattr, .open = noop_open, .ioctl = noop_ioctl};

static int noop_serve(const char *dir)
{
    char *argv[] = {"nvemu-bench-noop"};
    struct fuse_args args = FUSE_ARGS_INIT(1, argv);
    struct fuse_session *se = fuse_session_new(&args, &noop_ops, sizeof(noop_ops), NULL);
    if (!se || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, dir) != 0)
        return 1;
    /* Same loop configuration as the daemon (serve.c), so the floor is comparable. */
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_clone_fd(cfg, 1);
    fuse_loop_cfg_set_max_threads(cfg, 256);
    fuse_loop_cfg_set_idle_threads(cfg, 8);
    fuse_session_loop_mt(se, cfg);
    fuse_loop_cfg_destroy(cfg);
    fuse_remove_signal_handlers(se);
    fuse_session_unmount(se);
    fuse_session_destroy(se);
    return 0;
}

/* ---- harness ---- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int wait_file(const char *path)
{
    for (int i = 0; i < 500; i++) {
        if (access(path, F_OK) == 0)
            return 0;
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
    }
    return -1;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(uint64_t *v, int n, double p)
{
    return (double)v[(int)(p * (n - 1))] / 1000.0;
}

static uint32_t fd_alloc(int fd, uint32_t hroot, uint32_t hparent, uint32_t *hnew, uint32_t hclass, void *params)
{
    NVOS21_PARAMETERS a = {.hRoot = hroot, .hObjectParent = hparent, .hObjectNew = *hnew, .hClass = hclass,
                           .pAllocParms = (uint64_t)(uintptr_t)params, .status = ~0u};
    if (ioctl(fd, NV_IOCTL_REQUEST(NV_ESC_RM_ALLOC, sizeof(a)), &a) != 0)
        return ~0u;
    *hnew = a.hObjectNew;
    return a.status;
}

/* Client, device 0 and a GR0 channel group H_TSG on a daemon fd; NV_OK or the failing status. */
static uint32_t fd_setup(int fd, uint32_t *hclient)
{
    uint32_t root = 0, h = 0, st;
    if ((st = fd_alloc(fd, 0, 0, &h, NV01_ROOT_CLIENT, &root)) != 0)
        return st;
    *hclient = h;
    NV0080_ALLOC_PARAMETERS dev;
    memset(&dev, 0, sizeof(dev));
    uint32_t hd = H_DEVICE, ht = H_TSG;
    if ((st = fd_alloc(fd, h, h, &hd, NV01_DEVICE_0, &dev)) != 0)
        return st;
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp;
    memset(&gp, 0, sizeof(gp));
    gp.engineType = NV2080_ENGINE_TYPE_GR0;
    return fd_alloc(fd, h, H_DEVICE, &ht, KEPLER_CHANNEL_GROUP_A, &gp);
}

struct fuse_numbers {
    double a50, a99, b50, b99, c50, c99;
    int rounds;
};

struct servers {
    char top[32], noop_dir[64], emu_dir[64], sock[64];
    pid_t noop, daemon;
};

static int start_servers(struct servers *s, const char *profile)
{
    snprintf(s->top, sizeof(s->top), "/tmp/nvemu-bench-XXXXXX");
    s->noop = s->daemon = -1;
    if (!mkdtemp(s->top))
        return -1;
    snprintf(s->noop_dir, sizeof(s->noop_dir), "%s/noop", s->top);
    snprintf(s->emu_dir, sizeof(s->emu_dir), "%s/emu", s->top);
    snprintf(s->sock, sizeof(s->sock), "%s/s", s->top);
    mkdir(s->noop_dir, 0755);
    fflush(NULL);
    s->noop = fork();
    if (s->noop == 0)
        _exit(noop_serve(s->noop_dir));
    s->daemon = fork();
    if (s->daemon == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        struct front_opts o;
        front_opts_init(&o);
        o.mount = s->emu_dir;
        o.cfg.profile = profile;
        o.socket_path = s->sock;
        o.foreground = true;
        _exit(front_serve(&o));
    }
    char f1[96], f2[96];
    snprintf(f1, sizeof(f1), "%s/x", s->noop_dir);
    snprintf(f2, sizeof(f2), "%s/nvidiactl", s->emu_dir);
    return s->noop > 0 && s->daemon > 0 && wait_file(f1) == 0 && wait_file(f2) == 0 ? 0 : -1;
}

static void stop_servers(struct servers *s)
{
    if (s->noop > 0) {
        kill(s->noop, SIGTERM);
        waitpid(s->noop, NULL, 0);
    }
    if (s->daemon > 0) {
        kill(s->daemon, SIGTERM);
        waitpid(s->daemon, NULL, 0);
    }
    rmdir(s->noop_dir);
    rmdir(s->emu_dir);
    rmdir(s->top);
}

/* One timed call of path which (0 = a, 1 = b, 2 = c); returns ns, or 0 when the call failed. */
static uint64_t one_call(int which, int fa, int fb, uint32_t client, struct bench_env *env)
{
    NVA06C_CTRL_TIMESLICE_PARAMS ts = {0};
    NVOS54_PARAMETERS c = {.hClient = which == 2 ? env->hclient : client, .hObject = H_TSG,
                           .cmd = NVA06C_CTRL_CMD_GET_TIMESLICE, .params = (uint64_t)(uintptr_t)&ts,
                           .paramsSize = sizeof(ts), .status = ~0u};
    uint64_t t0 = now_ns();
    int rc;
    if (which == 2)
        rc = nvemu_ioctl(env->emu, env->ctl, NV_ESC_RM_CONTROL, sizeof(c), &c, env->acc);
    else
        rc = ioctl(which == 0 ? fa : fb, NV_IOCTL_REQUEST(NV_ESC_RM_CONTROL, sizeof(c)), &c);
    uint64_t dt = now_ns() - t0;
    if (rc != 0 || (which != 0 && c.status != 0))
        return 0;
    return dt ? dt : 1;
}

static int fuse_measure(const struct bench_ctx *ctx, struct fuse_numbers *n)
{
    if (geteuid() != 0 || access("/dev/fuse", F_OK) != 0)
        return -1;
    int rounds = ctx->seconds < 0.5 ? 5000 : 20000;
    struct servers s = {.noop = -1, .daemon = -1};
    struct bench_env env;
    int fa = -1, fb = -1, fg = -1, rc = -1;
    uint32_t client = 0;
    uint64_t *lat = calloc((size_t)rounds * 3, sizeof(uint64_t));
    bool env_ok = false;
    if (!lat || start_servers(&s, ctx->profile) != 0)
        goto out;
    char f1[96], f2[96];
    snprintf(f1, sizeof(f1), "%s/x", s.noop_dir);
    snprintf(f2, sizeof(f2), "%s/nvidiactl", s.emu_dir);
    fa = open(f1, O_RDWR);
    fb = open(f2, O_RDWR);
    snprintf(f2, sizeof(f2), "%s/nvidia0", s.emu_dir);
    fg = open(f2, O_RDWR); /* the device alloc needs this process to hold the GPU node open */
    env_ok = bench_env_init(&env, ctx) == 0;
    if (fa < 0 || fb < 0 || fg < 0 || !env_ok || fd_setup(fb, &client) != 0)
        goto out;
    env.acc = &nvemu_access_inproc; /* the safe accessor: process_vm like the daemon's */
    NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS gp;
    memset(&gp, 0, sizeof(gp));
    gp.engineType = NV2080_ENGINE_TYPE_GR0;
    if (bench_alloc(&env, env.hdevice, H_TSG, KEPLER_CHANNEL_GROUP_A, &gp) != 0)
        goto out;
    uint64_t *l[3] = {lat, lat + rounds, lat + 2 * rounds};
    for (int r = -WARMUP; r < rounds; r++) {
        for (int k = 0; k < 3; k++) {
            int which = ((r % 3) + 3 + k) % 3; /* rotate the order each round */
            uint64_t dt = one_call(which, fa, fb, client, &env);
            if (dt == 0)
                goto out;
            if (r >= 0)
                l[which][r] = dt;
        }
    }
    for (int k = 0; k < 3; k++)
        qsort(l[k], (size_t)rounds, sizeof(uint64_t), cmp_u64);
    *n = (struct fuse_numbers){pct(l[0], rounds, 0.5), pct(l[0], rounds, 0.99), pct(l[1], rounds, 0.5),
                               pct(l[1], rounds, 0.99), pct(l[2], rounds, 0.5), pct(l[2], rounds, 0.99), rounds};
    rc = 0;
out:
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    if (fg >= 0)
        close(fg);
    if (env_ok)
        bench_env_fini(&env);
    stop_servers(&s);
    free(lat);
    return rc;
}

static void note(struct bench_result *out, const struct fuse_numbers *n)
{
    snprintf(out->note, sizeof(out->note),
             "%d rounds alternating; p50/p99 us: (a) noop %.1f/%.1f (b) daemon %.1f/%.1f (c) inproc %.2f/%.2f",
             n->rounds, n->a50, n->a99, n->b50, n->b99, n->c50, n->c99);
}

/* Why a FUSE row could not run, in its note. */
static int cannot_run(struct bench_result *out)
{
    snprintf(out->note, sizeof(out->note), "%s",
             geteuid() != 0 ? "cannot run: needs root (FUSE mounts with allow_other)"
             : access("/dev/fuse", F_OK) != 0 ? "cannot run: no /dev/fuse (FUSE not available here)"
                                              : "cannot run: the FUSE servers did not start");
    return -1;
}

static int row_ratio(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct fuse_numbers n;
    if (fuse_measure(ctx, &n) != 0)
        return cannot_run(out);
    out->value = n.b50 / n.a50;
    note(out, &n);
    return 0;
}

static int row_daemon_p50(const struct bench_ctx *ctx, struct bench_result *out)
{
    struct fuse_numbers n;
    if (fuse_measure(ctx, &n) != 0)
        return cannot_run(out);
    out->value = n.b50;
    note(out, &n);
    return 0;
}

const struct bench_row bench_rows_fuse[] = {
    {"fuse.daemon_vs_noop_p50", "ratio", 1.5, false, row_ratio},
    {"fuse.daemon_get_timeslice_p50", "us", 15.0, false, row_daemon_p50},
    {NULL, NULL, 0, false, NULL},
};
