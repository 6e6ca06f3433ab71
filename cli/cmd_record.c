/*
 * `nvemu record [-o FILE] -- CMD ARGS...`: runs CMD with libnvemu-record.so preloaded so that every
 * ioctl it (and its children) issue on /dev/nvidia* is written to FILE in the shared trace format.
 * Exits with CMD's exit status (128+signal when it was killed).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/log.h"
#include "base/paths.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: nvemu record [-o FILE] -- CMD [ARGS...]\n"
               "  Runs CMD with the ioctl recorder preloaded; writes the trace (shared line format) to FILE\n"
               "  (default nvemu-record.log; \"%%p\" in FILE gives one file per process). The library is\n"
               "  found at $NVEMU_RECORD_LIB, next to the nvemu executable, or in LIBDIR/nvemu of its install.\n"
               "  Statically linked programs (and Go binaries) bypass the preload and are not recorded.\n");
}

/* Finds the interposer library; returns 0 and fills out, or -1. */
static int find_library(char *out, size_t n)
{
    const char *env = getenv("NVEMU_RECORD_LIB");
    if (env && env[0]) {
        snprintf(out, n, "%s", env);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    snprintf(out, n, "%s/libnvemu-record.so", nvemu_exe_dir());
    if (access(out, R_OK) == 0)
        return 0;
    if (nvemu_install_path("libnvemu-record.so", out, n) != 0)
        return -1;
    return access(out, R_OK) == 0 ? 0 : -1;
}

int nvemu_cmd_record(int argc, char **argv)
{
    const char *outfile = "nvemu-record.log";
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            outfile = argv[++i];
            continue;
        }
        usage(stderr);
        return 2;
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        LOG_ERROR("record", "cannot find libnvemu-record.so (set NVEMU_RECORD_LIB)");
        return 2;
    }
    char abs_out[PATH_MAX];
    if (outfile[0] != '/' && getcwd(abs_out, sizeof abs_out)) {
        size_t len = strlen(abs_out);
        snprintf(abs_out + len, sizeof abs_out - len, "/%s", outfile);
    } else {
        snprintf(abs_out, sizeof abs_out, "%s", outfile);
    }
    if (!strstr(abs_out, "%p")) { /* "%p" names one file per process, created by the interposer */
        int fd = open(abs_out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            LOG_ERROR("record", "cannot create %s: %s", abs_out, strerror(errno));
            return 2;
        }
        close(fd);
    }

    const char *old = getenv("LD_PRELOAD");
    size_t need = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *preload = malloc(need);
    if (!preload)
        return 2;
    snprintf(preload, need, "%s%s%s", lib, old && old[0] ? ":" : "", old ? old : "");

    pid_t pid = fork();
    if (pid < 0) {
        LOG_ERROR("record", "fork: %s", strerror(errno));
        free(preload);
        return 2;
    }
    if (pid == 0) {
        setenv("LD_PRELOAD", preload, 1);
        setenv("NVEMU_RECORD_FILE", abs_out, 1);
        execvp(argv[i], argv + i);
        LOG_ERROR("record", "cannot run %s: %s", argv[i], strerror(errno));
        _exit(127);
    }
    free(preload);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    LOG_INFO("record", "trace written to %s", abs_out);
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}
