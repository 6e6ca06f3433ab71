#include "base/paths.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set by the build from GNUInstallDirs: the relative path from bindir to libdir ("../lib"). */
#ifndef NVEMU_BIN_TO_LIBDIR
#define NVEMU_BIN_TO_LIBDIR "../lib"
#endif

static char exe_dir[PATH_MAX];
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;

static void read_exe_dir(void)
{
    ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
    if (n <= 0) {
        exe_dir[0] = '\0';
        return;
    }
    exe_dir[n] = '\0';
    char *slash = strrchr(exe_dir, '/');
    if (slash)
        *slash = '\0';
}

const char *nvemu_exe_dir(void)
{
    pthread_once(&exe_once, read_exe_dir);
    return exe_dir;
}

int nvemu_install_path(const char *rel, char *out, size_t len)
{
    int w = snprintf(out, len, "%s/%s/nvemu/%s", nvemu_exe_dir(), NVEMU_BIN_TO_LIBDIR, rel);
    return w > 0 && (size_t)w < len ? 0 : -1;
}
