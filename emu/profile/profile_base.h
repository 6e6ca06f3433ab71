/*
 * Internal to emu/profile: `base: NAME|FILE` in a profile document. A small profile names the profile it
 * starts from and gives only the keys it changes.
 */
#ifndef NVEMU_PROFILE_BASE_H
#define NVEMU_PROFILE_BASE_H

#include <stddef.h>

#include "yaml/ytree.h"

/*
 * When the mapping *root has a `base` key: loads that profile's document (a built-in name, else a file path
 * relative to `file`'s directory; its own base resolved the same way, at most 8 deep), lays *root over it
 * (mappings merge key by key, canned rows add to the base's and replace those of the same control and input,
 * any other value replaces the base's) and hands back the merged tree in *root
 * without the `base` key. A document without `base` is left as it is. Returns 0, or -1 with "file:line:column:
 * message" in err (*root still owned by the caller).
 */
int profile_resolve_base(const char *file, struct ynode **root, char *err, size_t errlen);

#endif
