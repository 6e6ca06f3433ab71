/*
 * Small helpers every layer had its own copy of: reading a whole file, a
 * string as the body of a JSON string, mkdir -p. One semantics each, so that
 * `scenario run --out a/b/c` and `scenario sweep --out a/b/c` behave alike.
 */
#ifndef NVEMU_BASE_UTIL_H
#define NVEMU_BASE_UTIL_H

#include <stddef.h>
#include <stdio.h>

/*
 * The whole of the regular file at path, NUL-terminated (malloc'd; *len, when
 * not NULL, its length). A file larger than max bytes, anything but a regular
 * file (a FIFO or a device would block or never end) and a read error give
 * NULL with "PATH: reason" in err.
 */
char *nvemu_slurp(const char *path, size_t max, size_t *len, char *err, size_t errlen);

/* Writes s (NULL: nothing) as the body of a JSON string: quote, backslash and control characters escaped. */
void nvemu_json_escape(FILE *f, const char *s);

/*
 * mkdir -p: creates dir and every missing parent (mode 0755); an existing
 * directory is fine. 0, or -1 with "cannot create PATH: reason" in err,
 * PATH the first part that could not be made (a file in the way included).
 */
int nvemu_mkdir_p(const char *dir, char *err, size_t errlen);

#endif
