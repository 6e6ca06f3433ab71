/*
 * The one logging module. Every component logs through it; nothing else
 * writes diagnostics. Output goes to stderr (or the file given to
 * nvemu_log_open) — never to a client's stdout.
 */
#ifndef NVEMU_LOG_H
#define NVEMU_LOG_H

#include <stdio.h>

enum nvemu_log_level {
    NVEMU_LOG_ERROR = 0,
    NVEMU_LOG_WARN = 1,
    NVEMU_LOG_INFO = 2,
    NVEMU_LOG_DEBUG = 3,
    NVEMU_LOG_TRACE = 4,
};

/* Sets the threshold; messages above it are dropped. Default: WARN, or $NVEMU_LOG_LEVEL. */
void nvemu_log_set_level(enum nvemu_log_level level);

/* Parses "error|warn|info|debug|trace" (or 0..4). Returns -1 when unknown. */
int nvemu_log_parse_level(const char *s);

/* Sends log lines to f (NULL: back to stderr). The caller keeps ownership of f. */
void nvemu_log_set_stream(FILE *f);

/* Writes one line "nvemu[LEVEL] component: message". Thread-safe. */
void nvemu_log(enum nvemu_log_level level, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define LOG_ERROR(comp, ...) nvemu_log(NVEMU_LOG_ERROR, comp, __VA_ARGS__)

/*
 * An invariant of the emulator's own state (reference counts, the object
 * tree, FIFO bookkeeping, heap ownership): never a check of caller input,
 * which gets the driver's status instead. A broken invariant is logged with
 * its place; Debug and sanitizer builds then abort (so tests and fuzzing stop
 * at the first one), Release builds (NDEBUG) go on, as the daemon must keep
 * serving other clients.
 */
#define NVEMU_ASSERT(comp, cond)                                                                       \
    do {                                                                                               \
        if (__builtin_expect(!(cond), 0))                                                              \
            nvemu_assert_failed(comp, #cond, __FILE__, __LINE__);                                      \
    } while (0)
/* NVEMU_ASSERT's failure path: logs "invariant <expr> broken at file:line"; aborts unless NDEBUG. */
void nvemu_assert_failed(const char *comp, const char *expr, const char *file, int line);
#define LOG_WARN(comp, ...)  nvemu_log(NVEMU_LOG_WARN, comp, __VA_ARGS__)
#define LOG_INFO(comp, ...)  nvemu_log(NVEMU_LOG_INFO, comp, __VA_ARGS__)
#define LOG_DEBUG(comp, ...) nvemu_log(NVEMU_LOG_DEBUG, comp, __VA_ARGS__)

#endif
