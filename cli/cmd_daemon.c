/* `nvemu daemon`: serves one emulator's nodes to other processes (FUSE mount or CUSE devices). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "front/front.h"

static void daemon_usage(FILE *out)
{
    fprintf(out, "usage: nvemu daemon (--mount DIR | --cuse) [--force] [options]\n"
                 "Serves nvidiactl, nvidia0..N-1 and nvidia-uvm from one emulator.\n"
                 "A daemon killed with SIGKILL leaves its mount behind ('Transport endpoint is not connected'):\n"
                 "a new daemon on DIR says so and stops; --force unmounts it first. Control sockets of daemons\n"
                 "that are gone (nvemu-PID.sock of a dead PID, yours) are removed at start.\n\noptions:\n");
    front_opts_usage(out, true);
}

/* A FUSE mount whose daemon died: every access fails with ENOTCONN. */
static bool stale_mount(const char *dir)
{
    struct stat st;
    return stat(dir, &st) != 0 && errno == ENOTCONN;
}

/* fusermount3 -u -z DIR (any user's own mount), else a lazy umount (root). 0 when DIR is no longer stale. */
static int unmount_stale(const char *dir)
{
    pid_t pid = fork();
    if (pid == 0) {
        execlp("fusermount3", "fusermount3", "-u", "-z", dir, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (stale_mount(dir))
        umount2(dir, MNT_DETACH);
    return stale_mount(dir) ? -1 : 0;
}

/* nvemu-PID.sock files in the default socket directory whose daemon is gone (a dead PID, our uid): removed. */
static void remove_stale_sockets(void)
{
    const char *dir = getenv("XDG_RUNTIME_DIR");
    dir = dir && *dir ? dir : "/tmp";
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid, used = 0;
        if (sscanf(e->d_name, "nvemu-%d.sock%n", &pid, &used) != 1 || e->d_name[used] || pid <= 0)
            continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) || st.st_uid != getuid())
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        if (unlink(path) == 0)
            fprintf(stderr, "nvemu daemon: removed %s, the socket of a daemon that is gone\n", path);
    }
    closedir(d);
}

int nvemu_cmd_daemon(int argc, char **argv)
{
    struct front_opts o;
    front_opts_init(&o);
    bool force = false;
    for (int i = 1; i < argc;) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            daemon_usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--force") == 0) {
            force = true;
            i++;
            continue;
        }
        int r = front_opts_parse(&o, argc, argv, &i);
        if (r < 0)
            return 2;
        if (r == 0) {
            fprintf(stderr, "nvemu daemon: unknown option '%s'\n", argv[i]);
            daemon_usage(stderr);
            return 2;
        }
    }
    if (!o.mount && !o.cuse) {
        daemon_usage(stderr);
        return 2;
    }
    if (o.cfg.profile && cli_check_profile("daemon", o.cfg.profile))
        return 2;
    if (o.mount && stale_mount(o.mount)) {
        if (!force) {
            fprintf(stderr, "nvemu daemon: %s is the mount of a daemon that is gone (killed?): unmount it "
                            "(fusermount3 -u %s) or start with --force\n", o.mount, o.mount);
            return 1;
        }
        if (unmount_stale(o.mount) != 0) {
            fprintf(stderr, "nvemu daemon: cannot unmount the stale mount %s (fusermount3 -u %s as its owner)\n",
                    o.mount, o.mount);
            return 1;
        }
        fprintf(stderr, "nvemu daemon: unmounted %s, the mount of a daemon that is gone\n", o.mount);
    }
    remove_stale_sockets();
    return front_serve(&o);
}
