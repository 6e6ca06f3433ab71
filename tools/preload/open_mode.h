/*
 * When open/openat carry a third (mode) argument. O_TMPFILE includes the
 * O_DIRECTORY bit, so testing `flags & O_TMPFILE` would also read a mode that
 * was never passed on every O_DIRECTORY open: only O_CREAT or the whole
 * O_TMPFILE value mean a mode follows (as glibc's __OPEN_NEEDS_MODE).
 */
#ifndef NVEMU_PRELOAD_OPEN_MODE_H
#define NVEMU_PRELOAD_OPEN_MODE_H

#include <fcntl.h>
#include <stdbool.h>

static inline bool open_needs_mode(int flags)
{
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

#endif
