/*
 * `nvemu run [daemon options] -- CMD ARGS...`: a private daemon (a child
 * process) and CMD in a private mount namespace whose /dev holds the
 * emulator's nodes (see newdev.h). Returns CMD's exit status (128+N when a
 * signal N ended it).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "cli.h"
#include "front/front.h"

#define STOP_GRACE_MS 10000

struct run_dirs {
    char top[64], fs[96], dev[96], sock[96];
};

static void run_usage(FILE *out)
{
    fprintf(out, "usage: nvemu run [daemon options] -- CMD [ARGS...]\n"
                 "Runs CMD with /dev/nvidiactl, /dev/nvidia0.., /dev/nvidia-uvm served by a private emulator\n"
                 "(needs root: a private mount namespace; without root use LD_PRELOAD=libnvemu-preload.so).\n\n"
                 "daemon options:\n");
    front_opts_usage(out, false);
}

static int make_dirs(struct run_dirs *d)
{
    snprintf(d->top, sizeof(d->top), "/tmp/nvemu-run-XXXXXX");
    if (!mkdtemp(d->top))
        return -1;
    snprintf(d->fs, sizeof(d->fs), "%s/nodes", d->top);
    snprintf(d->dev, sizeof(d->dev), "%s/dev", d->top);
    snprintf(d->sock, sizeof(d->sock), "%s/ctl.sock", d->top);
    return mkdir(d->fs, 0755) == 0 && mkdir(d->dev, 0755) == 0 ? 0 : -1;
}

static void remove_dirs(const struct run_dirs *d)
{
    umount2(d->fs, MNT_DETACH);
    rmdir(d->fs);
    rmdir(d->dev);
    unlink(d->sock);
    rmdir(d->top);
}

/* Child: the daemon, its stdout away from CMD's. Returns the fork result (pid or -1). */
static pid_t start_daemon(struct front_opts *o, const struct run_dirs *d, int *ready_rd)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        /* Own process group: a terminal's Ctrl-C goes to CMD; run stops the daemon after CMD. */
        setpgid(0, 0);
        close(p[0]);
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, STDOUT_FILENO);
        o->mount = d->fs;
        o->socket_path = d->sock;
        o->foreground = true;
        o->cuse = false;
        o->ready_fd = p[1];
        exit(front_serve(o)); /* exit, not _exit: leak checkers see the daemon too */
    }
    close(p[1]);
    *ready_rd = p[0];
    return pid;
}

static int wait_ready(int fd)
{
    char buf[4] = "";
    ssize_t n;
    do
        n = read(fd, buf, 3);
    while (n < 0 && errno == EINTR);
    close(fd);
    return n == 3 && memcmp(buf, "ok\n", 3) == 0 ? 0 : -1;
}

static void stop_daemon(pid_t pid, bool alive)
{
    if (!alive)
        return;
    kill(pid, SIGTERM);
    for (int ms = 0; ms < STOP_GRACE_MS; ms += 10) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                LOG_ERROR("run", "the daemon stopped with status 0x%x", st);
            return;
        }
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    LOG_WARN("run", "daemon %d did not stop in %d ms; killing it", (int)pid, STOP_GRACE_MS);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Waits for CMD, forwarding INT/TERM/HUP to it; notes when the daemon dies first. */
static int wait_cmd(pid_t cmd, pid_t daemon, const sigset_t *set, bool *daemon_alive)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(set, &si);
        if (sig < 0)
            continue;
        if (sig != SIGCHLD) {
            kill(cmd, sig);
            continue;
        }
        int st;
        if (*daemon_alive && waitpid(daemon, &st, WNOHANG) == daemon) {
            *daemon_alive = false;
            LOG_WARN("run", "the daemon ended (status 0x%x) before the command", st);
        }
        if (waitpid(cmd, &st, WNOHANG) == cmd)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    }
}

static int parse(int argc, char **argv, struct front_opts *o, int *cmd_at)
{
    int i = 1;
    while (i < argc) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            run_usage(stdout);
            return 0;
        }
        int r = front_opts_parse(o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0 && argv[i][0] == '-') {
            fprintf(stderr, "nvemu run: unknown option '%s'\n", argv[i]);
            run_usage(stderr);
            return 2;
        }
        if (r == 0)
            break; /* first non-option: the command */
    }
    if (i >= argc) {
        run_usage(stderr);
        return 2;
    }
    *cmd_at = i;
    return -1;
}

int nvemu_cmd_run(int argc, char **argv)
{
    struct front_opts o;
    front_opts_init(&o);
    int cmd_at = 0;
    int rc = parse(argc, argv, &o, &cmd_at);
    if (rc >= 0)
        return rc;
    if (o.cfg.profile && cli_check_profile("run", o.cfg.profile))
        return 2;
    if (o.mount || o.cuse)
        fprintf(stderr, "nvemu run: --mount/--cuse are chosen by run itself; ignoring them\n");
    if (geteuid() != 0) {
        fprintf(stderr, "nvemu run: needs root (private mount namespace). Without root run `nvemu daemon --mount DIR`\n"
                        "and start the program with LD_PRELOAD=libnvemu-preload.so NVEMU_MOUNT=DIR.\n");
        return 125;
    }
    struct run_dirs d;
    if (make_dirs(&d) != 0) {
        fprintf(stderr, "nvemu run: cannot create a work directory in /tmp: %s\n", strerror(errno));
        return 125;
    }
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        fprintf(stderr, "nvemu run: private mount namespace: %s\n", strerror(errno));
        remove_dirs(&d);
        return 125;
    }
    int ready = -1;
    pid_t daemon = start_daemon(&o, &d, &ready);
    if (daemon < 0 || wait_ready(ready) != 0) {
        fprintf(stderr, "nvemu run: the daemon did not start\n");
        if (daemon > 0)
            stop_daemon(daemon, true);
        remove_dirs(&d);
        return 125;
    }
    bool daemon_alive = true;
    if (newdev_install(d.dev, d.fs) != 0) {
        fprintf(stderr, "nvemu run: cannot build the private /dev\n");
        stop_daemon(daemon, true);
        remove_dirs(&d);
        return 125;
    }
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    fflush(NULL);
    pid_t cmd = fork();
    if (cmd == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        setenv("NVEMU_SOCKET", d.sock, 1);
        execvp(argv[cmd_at], argv + cmd_at);
        fprintf(stderr, "nvemu run: cannot run %s: %s\n", argv[cmd_at], strerror(errno));
        _exit(127);
    }
    int status = 125;
    if (cmd > 0)
        status = wait_cmd(cmd, daemon, &set, &daemon_alive);
    else
        fprintf(stderr, "nvemu run: fork: %s\n", strerror(errno));
    stop_daemon(daemon, daemon_alive);
    sigprocmask(SIG_SETMASK, &old, NULL);
    remove_dirs(&d);
    return status;
}
