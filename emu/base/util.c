/* Small shared helpers (util.h). */
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *nvemu_slurp(const char *path, size_t max, size_t *len, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: %s", path,
                 S_ISDIR(st.st_mode)    ? "is a directory, not a file"
                 : S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file (it would be waited on)"
                                        : "is not a regular file");
        close(fd);
        return NULL;
    }
    if ((uint64_t)st.st_size > max) {
        snprintf(err, errlen, "%s: larger than %zu bytes", path, max);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) {
            /* it grew since fstat: read on, within max */
            char *nb = cap - 1 < max ? realloc(buf, cap * 2 < max + 1 ? cap * 2 : max + 1) : NULL;
            if (!nb) {
                free(buf);
                buf = NULL;
                snprintf(err, errlen, "%s: %s", path, cap - 1 < max ? "out of memory" : "larger than the limit");
                close(fd);
                return NULL;
            }
            cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory", path);
        return NULL;
    }
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

void nvemu_json_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

static int make_one(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (mkdir(path, 0755) == 0)
        return 0;
    int e = errno;
    if (e == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    snprintf(err, errlen, "cannot create %s: %s", path, e == EEXIST ? "a file is in the way" : strerror(e));
    return -1;
}

int nvemu_mkdir_p(const char *dir, char *err, size_t errlen)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path)) {
        snprintf(err, errlen, "cannot create %.64s...: path too long", dir);
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = '\0';
        int rc = make_one(path, err, errlen);
        *p = '/';
        if (rc)
            return -1;
    }
    return make_one(path, err, errlen);
}
