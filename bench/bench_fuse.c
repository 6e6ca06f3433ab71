/*
 * FUSE round-trip benchmark, one run, alternating per round (usage:
 * bench_fuse [ROUNDS]):
 *   (a) fuse_noop     a FUSE file system that answers every ioctl at once
 *                     (the floor: kernel + libfuse round trip, same loop config)
 *   (b) daemon        NVA06C GET_TIMESLICE through `nvemu daemon` (FUSE)
 *   (c) inproc        the same control through nvemu_ioctl in this process
 * Prints p50/p99 per row and (b)/(a) at p50. Targets (issue 3): (b)/(a) <= 1.5
 * and (b) p50 <= 15 us. Needs root and /dev/fuse (exit 77 otherwise).
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "front/front.h"
#include "nvemu/nvemu.h"
#include "rmraw.h"

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
    char *argv[] = {"bench_fuse"};
    struct fuse_args args = FUSE_ARGS_INIT(1, argv);
    struct fuse_session *se = fuse_session_new(&args, &noop_ops, sizeof(noop_ops), NULL);
    if (!se || fuse_set_signal_handlers(se) != 0 || fuse_session_mount(se, dir) != 0)
        return 1;
    /* Same loop configuration as the daemon (serve.c), so the floor is comparable. */
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_clone_fd(cfg, 1);
    fuse_loop_cfg_set_max_threads(cfg, 64);
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

struct inproc {
    nvemu *emu;
    nvemu_opener *op;
    uint32_t client;
};

static uint32_t inproc_call(struct inproc *ip, uint32_t nr, void *arg, uint32_t size)
{
    return (uint32_t)nvemu_ioctl(ip->emu, ip->op, nr, size, arg, &nvemu_access_inproc);
}

static int inproc_setup(struct inproc *ip)
{
    nvemu_config cfg;
    nvemu_config_init(&cfg);
    char err[256];
    ip->emu = nvemu_create(&cfg, err, sizeof(err));
    if (!ip->emu)
        return -1;
    nvemu_identity who = {.pid = getpid(), .tid = getpid(), .uid = geteuid(), .caps = 0, .comm = "bench_fuse"};
    int e;
    ip->op = nvemu_open(ip->emu, NVEMU_NODE_CTL, 0, &who, &e);
    if (!ip->op)
        return -1;
    uint32_t root = 0;
    raw_nvos21 a = {0, 0, 0, RAW_CLASS_CLIENT, (uint64_t)(uintptr_t)&root, 4, ~0u};
    if (inproc_call(ip, RAW_ESC_RM_ALLOC, &a, sizeof(a)) != 0 || a.status != 0)
        return -1;
    ip->client = a.hObjectNew;
    raw_nv0080_alloc dev;
    memset(&dev, 0, sizeof(dev));
    raw_nvos21 d = {ip->client, ip->client, H_DEVICE, RAW_CLASS_DEVICE, (uint64_t)(uintptr_t)&dev, sizeof(dev), ~0u};
    raw_tsg_alloc tp;
    memset(&tp, 0, sizeof(tp));
    tp.engineType = RAW_ENGINE_GR0;
    raw_nvos21 t = {ip->client, H_DEVICE, H_TSG, RAW_CLASS_TSG, (uint64_t)(uintptr_t)&tp, sizeof(tp), ~0u};
    if (inproc_call(ip, RAW_ESC_RM_ALLOC, &d, sizeof(d)) != 0 || d.status != 0 ||
        inproc_call(ip, RAW_ESC_RM_ALLOC, &t, sizeof(t)) != 0 || t.status != 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20000;
    if (geteuid() != 0 || access("/dev/fuse", F_OK) != 0) {
        printf("SKIP: bench_fuse needs root and /dev/fuse\n");
        return 77;
    }
    if (rounds < 100)
        rounds = 100;
    char top[] = "/tmp/nvemu-bench-XXXXXX";
    if (!mkdtemp(top))
        return 1;
    char noop_dir[64], emu_dir[64], sock[64], noop_file[80], ctl_file[80];
    snprintf(noop_dir, sizeof(noop_dir), "%s/noop", top);
    snprintf(emu_dir, sizeof(emu_dir), "%s/emu", top);
    snprintf(sock, sizeof(sock), "%s/s", top);
    snprintf(noop_file, sizeof(noop_file), "%s/x", noop_dir);
    snprintf(ctl_file, sizeof(ctl_file), "%s/nvidiactl", emu_dir);
    mkdir(noop_dir, 0755);
    fflush(NULL);
    pid_t noop = fork();
    if (noop == 0)
        _exit(noop_serve(noop_dir));
    pid_t daemon = fork();
    if (daemon == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        struct front_opts o;
        front_opts_init(&o);
        o.mount = emu_dir;
        o.socket_path = sock;
        o.foreground = true;
        exit(front_serve(&o));
    }
    int status = 1;
    struct inproc ip = {0};
    int fa = -1, fb = -1;
    uint64_t *lat = calloc((size_t)rounds * 3, sizeof(uint64_t));
    if (!lat || wait_file(noop_file) != 0 || wait_file(ctl_file) != 0) {
        fprintf(stderr, "bench_fuse: servers did not start\n");
        goto out;
    }
    fa = open(noop_file, O_RDWR);
    fb = open(ctl_file, O_RDWR);
    uint32_t client = 0;
    if (fa < 0 || fb < 0 || raw_client_device(fb, &client, H_DEVICE) != 0 || raw_tsg(fb, client, H_DEVICE, H_TSG) != 0 ||
        inproc_setup(&ip) != 0) {
        fprintf(stderr, "bench_fuse: setup failed\n");
        goto out;
    }
    uint64_t *la = lat, *lb = lat + rounds, *lc = lat + 2 * rounds;
    int errors = 0;
    for (int r = -WARMUP; r < rounds; r++) {
        for (int k = 0; k < 3; k++) {
            int which = (r + k) % 3 < 0 ? (r + k) % 3 + 3 : (r + k) % 3; /* rotate the order each round */
            uint64_t ts = 0;
            raw_nvos54 c = {0, H_TSG, RAW_CTRL_GET_TIMESLICE, 0, (uint64_t)(uintptr_t)&ts, sizeof(ts), ~0u};
            uint64_t t0 = now_ns();
            if (which == 0) {
                c.hClient = client;
                errors += ioctl(fa, RAW_REQ(RAW_ESC_RM_CONTROL, sizeof(c)), &c) != 0;
            } else if (which == 1) {
                c.hClient = client;
                errors += ioctl(fb, RAW_REQ(RAW_ESC_RM_CONTROL, sizeof(c)), &c) != 0 || c.status != 0;
            } else {
                c.hClient = ip.client;
                errors += inproc_call(&ip, RAW_ESC_RM_CONTROL, &c, sizeof(c)) != 0 || c.status != 0;
            }
            uint64_t dt = now_ns() - t0;
            if (r >= 0)
                (which == 0 ? la : which == 1 ? lb : lc)[r] = dt;
        }
    }
    if (errors) {
        fprintf(stderr, "bench_fuse: %d calls failed\n", errors);
        goto out;
    }
    qsort(la, (size_t)rounds, sizeof(*la), cmp_u64);
    qsort(lb, (size_t)rounds, sizeof(*lb), cmp_u64);
    qsort(lc, (size_t)rounds, sizeof(*lc), cmp_u64);
    double a50 = pct(la, rounds, 0.5), b50 = pct(lb, rounds, 0.5);
    printf("bench_fuse: %d rounds, alternating (a)(b)(c)\n", rounds);
    printf("%-34s p50 %8.2f us   p99 %8.2f us\n", "(a) fuse_noop ioctl round trip", a50, pct(la, rounds, 0.99));
    printf("%-34s p50 %8.2f us   p99 %8.2f us\n", "(b) daemon GET_TIMESLICE (FUSE)", b50, pct(lb, rounds, 0.99));
    printf("%-34s p50 %8.2f us   p99 %8.2f us\n", "(c) in-process GET_TIMESLICE", pct(lc, rounds, 0.5),
           pct(lc, rounds, 0.99));
    printf("(b)/(a) at p50: %.2f (target <= 1.5: %s); (b) p50 target <= 15 us: %s\n", b50 / a50,
           b50 / a50 <= 1.5 ? "met" : "MISSED", b50 <= 15.0 ? "met" : "MISSED");
    status = 0;
out:
    if (fa >= 0)
        close(fa);
    if (fb >= 0)
        close(fb);
    if (ip.emu)
        nvemu_destroy(ip.emu);
    free(lat);
    kill(noop, SIGTERM);
    kill(daemon, SIGTERM);
    waitpid(noop, NULL, 0);
    waitpid(daemon, NULL, 0);
    rmdir(noop_dir);
    rmdir(emu_dir);
    rmdir(top);
    return status;
}
