/*
 * Daemon front-end: what `nvemu daemon` and `nvemu run` share. One emulator
 * instance served to other processes through FUSE files (a mount) or CUSE
 * character devices; every open() becomes an nvemu opener and every ioctl
 * goes through nvemu_ioctl with an accessor that reaches the caller's memory
 * with process_vm_readv/writev.
 */
#ifndef NVEMU_FRONT_H
#define NVEMU_FRONT_H

#include <stdbool.h>
#include <stdio.h>

#include "nvemu/nvemu.h"

#define FRONT_MAX_POLICY_ARGS 32
#define FRONT_POLICY_HOOK_LIMIT_MS 1000u /* default --policy-hook-limit */

struct front_opts {
    nvemu_config cfg;           /* profile, compat mode, policy are passed through unchanged */
    const char *mount;          /* FUSE: directory the nodes appear in (created if missing) */
    const char *socket_path;    /* control socket; NULL: ${XDG_RUNTIME_DIR:-/tmp}/nvemu-PID.sock */
    bool cuse;                  /* serve /dev/nvidiactl... as CUSE devices instead of a FUSE mount */
    bool foreground;            /* false: detach once serving */
    int ready_fd;               /* >= 0: write "ok\n" to it once serving, then close it */
    const char *policy_args[FRONT_MAX_POLICY_ARGS];
};

/* Defaults: FUSE, no mount chosen, background, no ready fd, config from nvemu_config_init. */
void front_opts_init(struct front_opts *o);

/*
 * Consumes the daemon option at argv[*i] (and its value), advancing *i.
 * Returns 1 when consumed, 0 when argv[*i] is not a daemon option, -1 after
 * printing a reason to stderr for a bad value.
 */
int front_opts_parse(struct front_opts *o, int argc, char **argv, int *i);

/*
 * The option list, one per line, for --help texts; serving = false leaves out
 * what `nvemu run` chooses itself (--mount, --cuse, --socket, --log-file, --foreground).
 */
void front_opts_usage(FILE *out, bool serving);

/*
 * Serves until SIGTERM/SIGINT/SIGHUP or until the mount is taken away.
 * Prints "NVEMU_SOCKET=..." and "NVEMU_MOUNT=..." (FUSE) on stdout once the
 * nodes exist. Returns the process exit status (0 after a clean stop).
 */
int front_serve(struct front_opts *o);

/*
 * Serves an EXISTING emulator through FUSE at mount_dir from inside this
 * process (for the scenario runner: it keeps using emu in-process while
 * other programs reach it through the nodes, e.g. with the preload). No
 * control socket, no signal handlers, no detaching. Returns once the mount
 * is in place, or NULL with a one-line reason in err. emu must outlive it.
 */
typedef struct front_server front_server;
front_server *front_server_start(nvemu *emu, const char *mount_dir, char *err, size_t errlen);

/*
 * Stops the session threads, unmounts, releases every opener still open
 * (nvemu_release: their clients are freed) and frees the server. Callers
 * still holding a node get ENOTCONN afterwards. The emulator stays alive.
 */
void front_server_stop(front_server *s);

/*
 * What the tool needs of a daemon from outside it (the rest of the front-ends stays private):
 * ctlsock_query: sends request to the daemon's control socket at path and returns its whole answer
 * (malloc'd, NUL-terminated) in *reply; 0 or -errno.
 * newdev_install: a private /dev for `nvemu run` (newdev.h): stage, an empty directory to build in;
 * nodes_dir, the daemon's FUSE mount. 0 or -1 after logging what failed.
 */
int ctlsock_query(const char *path, const char *request, char **reply);
int newdev_install(const char *stage, const char *nodes_dir);

#endif
