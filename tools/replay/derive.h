/*
 * Derives the profile of the board a trace was recorded on (`nvemu profile from-trace`): a base profile of the
 * same kind with the trace's per-board answers (identity.h) in place of the base's, so that the trace replays
 * against it with neither mismatches nor board-identity differences.
 */
#ifndef NVEMU_REPLAY_DERIVE_H
#define NVEMU_REPLAY_DERIVE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Writes to `out` the base profile's YAML document (base_text, base_len bytes) with: name `name`; the UUID the
 * trace's GPU_GET_GID_INFO answered; for every other per-board control the trace issued successfully, its
 * recorded answer as a canned entry (per input), replacing the base's entries of that command. `trace` and
 * `base_label` only label the comments. Returns the number of per-board answers taken from the trace, or -1
 * with a message in err (the trace cannot be read or holds a malformed line).
 */
int replay_derive_profile(const char *trace, const char *base_label, const char *base_text, size_t base_len,
                          const char *name, FILE *out, char *err, size_t errlen);

#endif
