#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/paths.h"
#include "front/callermem.h"
#include "front/ctlsock.h"
#include "front/front.h"
#include "front/server.h"
#include "front/transport.h"

/*
 * Session threads (started as needed): enough that a WHOAMI probe finds a free one while others wait on the
 * core lock, and well above what one user can hold for long (callermem.h: 8 in copies past their deadline,
 * 16 + 32 for at most a deadline each; FRONT_BLOCKED_PER_UID blocking calls; 4 waiting fd probes).
 */
#define MAX_WORKERS 256
#define IDLE_WORKERS 8
/* How long a stop waits for the session threads; past it, threads stuck in a caller's memory are left behind. */
#define STOP_WAIT_MS 3000

struct loop {
    struct fuse_session *se;
    pthread_t thread;
    bool started;
    atomic_bool stopping;        /* we asked it to end: do not signal the main thread */
    bool notify_main;            /* daemon: an unexpected end stops the process (SIGTERM to itself) */
    const char *poke_path;       /* embedded: wake the loop with a request here instead of SIGUSR1 */
};

static void wake(int sig)
{
    (void)sig;
}

static void *loop_thread(void *arg)
{
    struct loop *l = arg;
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_clone_fd(cfg, 1);
    fuse_loop_cfg_set_max_threads(cfg, MAX_WORKERS);
    fuse_loop_cfg_set_idle_threads(cfg, IDLE_WORKERS);
    int rc = fuse_session_loop_mt(l->se, cfg);
    fuse_loop_cfg_destroy(cfg);
    if (!atomic_load(&l->stopping))
        LOG_INFO("front", "session loop ended (%d): the mount went away", rc);
    /* The mount was taken away (umount, connection abort): the whole daemon stops. */
    if (l->notify_main && !atomic_load(&l->stopping))
        kill(getpid(), SIGTERM);
    return NULL;
}

/*
 * A statfs on the mount: a session thread answers it, sees the session
 * exited and ends the loop. Detached, since a poke arriving after the last
 * session thread left waits until the session's fd is closed (abort).
 */
static void *poke_thread(void *arg)
{
    struct statvfs sv;
    statvfs(arg, &sv);
    free(arg);
    return NULL;
}

static void wake_loop(struct loop *l)
{
    if (!l->poke_path) {
        pthread_kill(l->thread, SIGUSR1);
        return;
    }
    char *path = strdup(l->poke_path);
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    if (!path || pthread_create(&t, &a, poke_thread, path) != 0)
        free(path);
    pthread_attr_destroy(&a);
}

/*
 * Stops a loop: mark the session exited, then wake its main thread until it notices. The loop joins its
 * session threads, and one stuck in a copy of a caller's memory (callermem.h) may never come back: with
 * give_up_ms > 0, false when the loop has not ended by then (it is left running).
 */
static bool stop_loop(struct loop *l, int give_up_ms)
{
    if (!l->started)
        return true;
    atomic_store(&l->stopping, true);
    fuse_session_exit(l->se);
    for (int waited = 0;; waited += 100) {
        if (give_up_ms > 0 && waited >= give_up_ms)
            return false;
        wake_loop(l);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (pthread_timedjoin_np(l->thread, NULL, &ts) == 0)
            break;
    }
    l->started = false;
    return true;
}

static void default_socket(char *buf, size_t len)
{
    const char *dir = getenv("XDG_RUNTIME_DIR");
    snprintf(buf, len, "%s/nvemu-%d.sock", dir && *dir ? dir : "/tmp", (int)getpid());
}

/* NAME='value'; export NAME (POSIX shell quoting), for eval "$(nvemu daemon ...)". */
static void export_line(FILE *out, const char *name, const char *value)
{
    fprintf(out, "%s='", name);
    for (const char *c = value; *c; c++)
        fputs(*c == '\'' ? "'\\''" : (char[2]){*c, 0}, out);
    fprintf(out, "'; export %s\n", name);
}

/*
 * Detaches before the control socket exists, so that its name carries the daemon's own pid: the child
 * goes on serving; the parent prints what the child reports through a pipe (the variables to export) and
 * exits 0, or 1 when the child ended first. Returns the pipe's write end in the child.
 */
static int detach(void)
{
    int p[2];
    if (pipe(p) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid > 0) {
        close(p[1]);
        char buf[4096];
        ssize_t n;
        size_t got = 0;
        while ((n = read(p[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
            if (n > 0) {
                fwrite(buf, 1, (size_t)n, stdout);
                got += (size_t)n;
            }
        fflush(stdout);
        _exit(got ? 0 : 1); /* the mount and the emulator belong to the child now */
    }
    close(p[0]);
    setsid();
    return p[1];
}

/* The detached daemon's stdio: /dev/null (log lines go to --log-file). */
static void quiet_stdio(void)
{
    int null = open("/dev/null", O_RDWR);
    if (null < 0)
        return;
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    if (null > STDERR_FILENO)
        close(null);
    if (chdir("/") != 0)
        LOG_WARN("front", "chdir /: %s", strerror(errno));
}

static int start_transport(struct front *f, struct front_opts *o, struct transport *t)
{
    if (o->cuse)
        return cusedev_start(f, t);
    if (!o->mount) {
        fprintf(stderr, "nvemu daemon: --mount DIR or --cuse is required\n");
        return -1;
    }
    return fusefs_start(f, o->mount, t);
}

int front_serve(struct front_opts *o)
{
    char err[256] = "";
    nvemu *emu = nvemu_create(&o->cfg, err, sizeof(err));
    if (!emu) {
        fprintf(stderr, "nvemu daemon: %s\n", err[0] ? err : "cannot create the emulator");
        return 1;
    }
    struct front f;
    struct transport t;
    struct ctlsock cs;
    struct loop loops[TRANSPORT_MAX_SESSIONS];
    memset(loops, 0, sizeof(loops));
    memset(&cs, 0, sizeof(cs));
    cs.fd = cs.stop_pipe[0] = cs.stop_pipe[1] = -1;
    int status = 1;
    if (front_init(&f, emu) != 0) {
        nvemu_destroy(emu);
        return 1;
    }
    if (start_transport(&f, o, &t) != 0) {
        if (o->cuse)
            fprintf(stderr, "nvemu daemon: CUSE unavailable (no /dev/cuse?)\n");
        front_fini(&f, false);
        nvemu_destroy(emu);
        return 1;
    }
    int report = -1;
    if (!o->foreground && (report = detach()) < 0) {
        fprintf(stderr, "nvemu daemon: cannot detach: %s\n", strerror(errno));
        goto out;
    }
    f.self = getpid();
    char sock[108];
    if (o->socket_path)
        snprintf(sock, sizeof(sock), "%s", o->socket_path);
    else
        default_socket(sock, sizeof(sock));
    if (ctlsock_open(&cs, sock, &f, t.name, t.where) != 0) {
        if (report >= 0)
            close(report);
        goto out;
    }
    /* What `eval "$(nvemu daemon ...)"` reads: the variables, exported, on the daemon's stdout. */
    FILE *env = report >= 0 ? fdopen(report, "w") : stdout;
    if (env) {
        char pid[16];
        snprintf(pid, sizeof pid, "%d", (int)f.self);
        export_line(env, "NVEMU_SOCKET", sock);
        if (!o->cuse)
            export_line(env, "NVEMU_MOUNT", t.where);
        export_line(env, "NVEMU_DAEMON_PID", pid);
        /* the redirector by its full path: its bare name resolves only in the loader's own directories */
        char preload[4096];
        if (!o->cuse && nvemu_preload_path(preload, sizeof preload) == 0)
            export_line(env, "NVEMU_PRELOAD", preload);
        fflush(env);
        if (env != stdout)
            fclose(env);
    }
    if (report >= 0)
        quiet_stdio();

    /* Only the main thread takes the stop signals; session threads get SIGUSR1 to notice a stop. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = wake;
    sigaction(SIGUSR1, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    for (int i = 0; i < t.count; i++) {
        loops[i].se = t.se[i];
        loops[i].notify_main = true;
        if (pthread_create(&loops[i].thread, NULL, loop_thread, &loops[i]) != 0) {
            LOG_ERROR("front", "cannot start session thread");
            goto stop_loops;
        }
        loops[i].started = true;
    }
    if (ctlsock_start(&cs) != 0)
        goto stop_loops;
    if (o->ready_fd >= 0) {
        if (write(o->ready_fd, "ok\n", 3) != 3)
            LOG_WARN("front", "ready pipe: %s", strerror(errno));
        close(o->ready_fd);
        o->ready_fd = -1;
    }
    LOG_INFO("front", "serving %u nodes through %s at %s, control socket %s", f.node_count, t.name, t.where, sock);
    int sig = 0;
    sigwait(&stop, &sig);
    LOG_INFO("front", "stopping on signal %d", sig);
    status = 0;
stop_loops:
    /* session threads blocked in workload calls must return before their loops can end */
    front_block_cancel_all(&f);
    bool all_ended = true;
    for (int i = 0; i < t.count; i++)
        all_ended = stop_loop(&loops[i], STOP_WAIT_MS) && all_ended;
    if (!all_ended) {
        /* a thread stuck in a caller's memory may come back at any time: nothing it uses may be freed, so the
         * nodes and the socket go and the process ends here */
        LOG_WARN("front", "%u session threads are stuck in copies of callers' memory; stopping without them",
                 callermem_stuck_direct());
        ctlsock_close(&cs);
        transport_unmount(&t);
        fflush(NULL);
        _exit(status);
    }
out:
    ctlsock_close(&cs);
    transport_destroy(&t);
    nvemu_destroy(emu);
    front_fini(&f, false);
    return status;
}

struct front_server {
    struct front f;
    struct transport t;
    struct loop loop;
};

front_server *front_server_start(nvemu *emu, const char *mount_dir, char *err, size_t errlen)
{
    front_server *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (front_init(&s->f, emu) != 0) {
        snprintf(err, errlen, "out of memory");
        free(s);
        return NULL;
    }
    if (fusefs_start(&s->f, mount_dir, &s->t) != 0) {
        snprintf(err, errlen, "cannot mount FUSE at %s (root or fusermount3 and /dev/fuse needed)", mount_dir);
        front_fini(&s->f, true);
        free(s);
        return NULL;
    }
    s->loop.se = s->t.se[0];
    s->loop.poke_path = s->t.where;
    if (pthread_create(&s->loop.thread, NULL, loop_thread, &s->loop) != 0) {
        snprintf(err, errlen, "cannot start the session thread");
        transport_destroy(&s->t);
        front_fini(&s->f, true);
        free(s);
        return NULL;
    }
    s->loop.started = true;
    LOG_INFO("front", "serving %u nodes through FUSE at %s (embedded)", s->f.node_count, s->t.where);
    return s;
}

void front_server_stop(front_server *s)
{
    if (!s)
        return;
    front_block_cancel_all(&s->f);
    stop_loop(&s->loop, 0);
    transport_destroy(&s->t);
    front_fini(&s->f, true);
    free(s);
}
