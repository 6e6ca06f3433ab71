/*
 * libnvemu-preload.so: for users without root. With LD_PRELOAD set and
 * NVEMU_MOUNT naming a running daemon's FUSE mount (`nvemu daemon --mount
 * DIR` prints it), every open/stat/access of /dev/nvidiactl, /dev/nvidiaN
 * and /dev/nvidia-uvm through libc goes to DIR/<name> instead. ioctls then
 * reach the daemon through the kernel unchanged, so nothing else is wrapped.
 *
 * Cannot reach: statically linked programs, Go programs (raw syscalls, no
 * libc), anything issuing open via syscall(2) or io_uring, and setuid/
 * setcap binaries (the loader ignores LD_PRELOAD for them).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "open_mode.h"

#define EXPORT __attribute__((visibility("default")))

/* /dev/nvidiactl, /dev/nvidia-uvm and /dev/nvidia<digits> are ours; nvidia-uvm-tools, nvidia-caps/ are not. */
static int is_nvidia_node(const char *path)
{
    static const char prefix[] = "/dev/nvidia";
    if (!path || strncmp(path, prefix, sizeof(prefix) - 1) != 0)
        return 0;
    const char *rest = path + sizeof(prefix) - 1;
    if (strcmp(rest, "ctl") == 0 || strcmp(rest, "-uvm") == 0)
        return 1;
    if (*rest == '\0')
        return 0;
    for (; *rest; rest++)
        if (*rest < '0' || *rest > '9')
            return 0;
    return 1;
}

/*
 * Says once, on the program's stderr, why a /dev/nvidia* open is not redirected: the library was
 * preloaded to redirect, so doing nothing silently would leave the user guessing.
 */
static void say_why_not(const char *path, const char *why)
{
    static int said;
    if (__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        return;
    fprintf(stderr, "libnvemu-preload: %s goes to the real driver: %s (eval \"$(nvemu daemon --mount DIR)\" sets "
                    "NVEMU_MOUNT)\n", path, why);
}

/* The path to use instead of path: DIR/<name> into buf, or path itself. */
static const char *redirect(const char *path, char *buf, size_t len)
{
    if (!is_nvidia_node(path))
        return path;
    const char *dir = getenv("NVEMU_MOUNT");
    if (!dir || !*dir) {
        say_why_not(path, "NVEMU_MOUNT is not set");
        return path;
    }
    int n = snprintf(buf, len, "%s/%s", dir, path + 5);
    return n > 0 && (size_t)n < len ? buf : path;
}

static void *next(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define TAKE_MODE(flags, mode)                                  \
    do {                                                        \
        if (open_needs_mode(flags)) {                           \
            va_list ap;                                         \
            va_start(ap, flags);                                \
            mode = (mode_t)va_arg(ap, int);                     \
            va_end(ap);                                         \
        }                                                       \
    } while (0)

#define OPEN_WRAPPER(fname)                                                        \
    EXPORT int fname(const char *path, int flags, ...)                             \
    {                                                                              \
        mode_t mode = 0;                                                           \
        TAKE_MODE(flags, mode);                                                    \
        char buf[PATH_MAX];                                                        \
        int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))next(#fname); \
        if (!real) {                                                               \
            errno = ENOSYS;                                                        \
            return -1;                                                             \
        }                                                                          \
        return real(redirect(path, buf, sizeof(buf)), flags, mode);               \
    }

#define OPENAT_WRAPPER(fname)                                                      \
    EXPORT int fname(int dirfd, const char *path, int flags, ...)                  \
    {                                                                              \
        mode_t mode = 0;                                                           \
        TAKE_MODE(flags, mode);                                                    \
        char buf[PATH_MAX];                                                        \
        int (*real)(int, const char *, int, ...) = (int (*)(int, const char *, int, ...))next(#fname); \
        if (!real) {                                                               \
            errno = ENOSYS;                                                        \
            return -1;                                                             \
        }                                                                          \
        return real(dirfd, redirect(path, buf, sizeof(buf)), flags, mode);        \
    }

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)
OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

/* _FORTIFY_SOURCE entry points. */
#define OPEN2_WRAPPER(fname)                                                       \
    EXPORT int fname(const char *path, int flags)                                  \
    {                                                                              \
        char buf[PATH_MAX];                                                        \
        int (*real)(const char *, int) = (int (*)(const char *, int))next(#fname); \
        return real(redirect(path, buf, sizeof(buf)), flags);                     \
    }
#define OPENAT2_WRAPPER(fname)                                                     \
    EXPORT int fname(int dirfd, const char *path, int flags)                       \
    {                                                                              \
        char buf[PATH_MAX];                                                        \
        int (*real)(int, const char *, int) = (int (*)(int, const char *, int))next(#fname); \
        return real(dirfd, redirect(path, buf, sizeof(buf)), flags);              \
    }
OPEN2_WRAPPER(__open_2)
OPEN2_WRAPPER(__open64_2)
OPENAT2_WRAPPER(__openat_2)
OPENAT2_WRAPPER(__openat64_2)

EXPORT FILE *fopen(const char *path, const char *mode)
{
    char buf[PATH_MAX];
    FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *)) next("fopen");
    return real(redirect(path, buf, sizeof(buf)), mode);
}

/* Existence checks (stat/access) must agree with open, or callers skip the node. */
EXPORT int stat(const char *path, struct stat *st)
{
    char buf[PATH_MAX];
    int (*real)(const char *, struct stat *) = (int (*)(const char *, struct stat *))next("stat");
    return real(redirect(path, buf, sizeof(buf)), st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
    char buf[PATH_MAX];
    int (*real)(const char *, struct stat *) = (int (*)(const char *, struct stat *))next("lstat");
    return real(redirect(path, buf, sizeof(buf)), st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
    char buf[PATH_MAX];
    int (*real)(int, const char *, struct stat *, int) =
        (int (*)(int, const char *, struct stat *, int))next("fstatat");
    return real(dirfd, redirect(path, buf, sizeof(buf)), st, flags);
}

EXPORT int access(const char *path, int mode)
{
    char buf[PATH_MAX];
    int (*real)(const char *, int) = (int (*)(const char *, int))next("access");
    return real(redirect(path, buf, sizeof(buf)), mode);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
    char buf[PATH_MAX];
    int (*real)(int, const char *, int, int) = (int (*)(int, const char *, int, int))next("faccessat");
    return real(dirfd, redirect(path, buf, sizeof(buf)), mode, flags);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
    char buf[PATH_MAX];
    int (*real)(const char *, struct stat64 *) = (int (*)(const char *, struct stat64 *))next("stat64");
    return real(redirect(path, buf, sizeof(buf)), st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
    char buf[PATH_MAX];
    int (*real)(const char *, struct stat64 *) = (int (*)(const char *, struct stat64 *))next("lstat64");
    return real(redirect(path, buf, sizeof(buf)), st);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
    char buf[PATH_MAX];
    int (*real)(int, const char *, struct stat64 *, int) =
        (int (*)(int, const char *, struct stat64 *, int))next("fstatat64");
    return real(dirfd, redirect(path, buf, sizeof(buf)), st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *stx)
{
    char buf[PATH_MAX];
    int (*real)(int, const char *, int, unsigned int, struct statx *) =
        (int (*)(int, const char *, int, unsigned int, struct statx *))next("statx");
    return real(dirfd, redirect(path, buf, sizeof(buf)), flags, mask, stx);
}
