#include "base/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
/* Atomic so a dropped message costs one load, not the lock; -1: not yet read from the environment. */
static atomic_int log_level = -1;
static FILE *log_stream;

int nvemu_log_parse_level(const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
        if (strcasecmp(s, level_names[i]) == 0)
            return i;
    if (s[0] >= '0' && s[0] <= '4' && s[1] == '\0')
        return s[0] - '0';
    return -1;
}

static int current_level(void)
{
    int l = atomic_load(&log_level);
    if (l < 0) {
        int env = nvemu_log_parse_level(getenv("NVEMU_LOG_LEVEL"));
        int want = env >= 0 ? env : NVEMU_LOG_WARN;
        /* a concurrent nvemu_log_set_level wins over the environment */
        l = atomic_compare_exchange_strong(&log_level, &(int){-1}, want) ? want : atomic_load(&log_level);
    }
    return l;
}

void nvemu_log_set_level(enum nvemu_log_level level)
{
    atomic_store(&log_level, (int)level);
}

void nvemu_log_set_stream(FILE *f)
{
    pthread_mutex_lock(&log_lock);
    log_stream = f;
    pthread_mutex_unlock(&log_lock);
}

void nvemu_log(enum nvemu_log_level level, const char *component, const char *fmt, ...)
{
    if ((int)level > current_level())
        return;
    pthread_mutex_lock(&log_lock);
    FILE *out = log_stream ? log_stream : stderr;
    va_list ap;
    va_start(ap, fmt);
    fprintf(out, "nvemu[%s] %s: ", level_names[level], component);
    vfprintf(out, fmt, ap);
    fputc('\n', out);
    fflush(out);
    va_end(ap);
    pthread_mutex_unlock(&log_lock);
}

void nvemu_assert_failed(const char *comp, const char *expr, const char *file, int line)
{
    nvemu_log(NVEMU_LOG_ERROR, comp, "invariant %s broken at %s:%d", expr, file, line);
#ifndef NDEBUG
    abort();
#endif
}
