/*
 * Dotted-path overrides on a parsed YAML tree (`nvemu scenario sweep --set`):
 * "tasks.be.count" walks map keys; in a sequence a segment picks an item by
 * index ("tasks.1") or by its `name:` value ("tasks.be"). The last segment of
 * a path into a mapping may name a key that is not there yet (it is added).
 */
#ifndef NVEMU_SCENARIO_YOVERRIDE_H
#define NVEMU_SCENARIO_YOVERRIDE_H

#include <stddef.h>

#include "ydoc.h"

/*
 * Replaces the node at `path` with the plain scalar `value` (typed by the
 * scenario loader like any unquoted scalar). Returns 0, or -1 with a one-line
 * reason naming the path in err.
 */
int ydoc_override(struct ynode *root, const char *path, const char *value, char *err, size_t errlen);

#endif
