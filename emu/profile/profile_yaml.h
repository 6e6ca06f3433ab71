/*
 * Internal to emu/profile: parses one profile document (YAML text) into a
 * struct profile with the strict schema documented in emu/profiles/h200.yaml.
 */
#ifndef NVEMU_PROFILE_YAML_H
#define NVEMU_PROFILE_YAML_H

#include <stddef.h>

#include "profile/profile.h"

/*
 * Parses `len` bytes of YAML. `file` names the source in error messages.
 * Returns a new profile (free with profile_free) or NULL with
 * "file:line:column: message" in err.
 */
struct profile *profile_parse_yaml(const char *file, const char *text, size_t len,
                                   char *err, size_t errlen);

/* Same, after applying the "path=value" overrides in set[0..nset) to the document (see profile_load_set). */
struct profile *profile_parse_yaml_set(const char *file, const char *text, size_t len, const char *const *set,
                                       int nset, char *err, size_t errlen);

/* Larger profile files are a mistake, not a GPU. */
#define PROFILE_FILE_MAX (4u << 20)

#endif
