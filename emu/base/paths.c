#include "base/paths.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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

int nvemu_preload_path(char *out, size_t len)
{
    static const char *const where[] = {"%s/" NVEMU_BIN_TO_LIBDIR "/libnvemu-preload.so",
                                        "%s/tools/preload/libnvemu-preload.so"};
    for (size_t i = 0; i < sizeof where / sizeof where[0]; i++) {
        char path[PATH_MAX], real[PATH_MAX];
        int w = snprintf(path, sizeof path, where[i], nvemu_exe_dir());
        if (w <= 0 || (size_t)w >= sizeof path || !realpath(path, real))
            continue;
        if (strlen(real) < len) {
            memcpy(out, real, strlen(real) + 1);
            return 0;
        }
    }
    return -1;
}
