/*
 * Internal to emu/profile: parses one profile document (YAML text) into a
 * struct profile with the strict schema documented in emu/profiles/h200.yaml.
 */
#ifndef NVEMU_PROFILE_YAML_H
#define NVEMU_PROFILE_YAML_H

#include <stddef.h>
#include <stdint.h>

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

/* Largest control params the driver copies (RMAPI_PARAM_COPY_MAX_PARAMS_SIZE): a canned row's bound. */
#define CANNED_MAX_BYTES (1u << 20)

/*
 * Hex bytes, as whitespace-separated tokens so long blobs can be folded: a token is an even number of hex
 * digits, or "HH*N" = byte HH repeated N times. Returns 0 with a new buffer of at most maxlen bytes in *out,
 * or -1 with why the text is not that.
 */
int profile_hex_decode(const char *s, uint32_t maxlen, uint8_t **out, uint32_t *outlen, char *why, size_t whylen);

/* Larger profile files are a mistake, not a GPU. */
#define PROFILE_FILE_MAX (4u << 20)

#endif
