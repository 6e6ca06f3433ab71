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

#endif
