/*
 * Where nvemu finds its own files (policies, the recorder library, helper
 * programs): relative to the running executable, so a build tree and an
 * installed tree (`cmake --install --prefix ANY`) both work and no build path
 * is compiled in.
 */
#ifndef NVEMU_BASE_PATHS_H
#define NVEMU_BASE_PATHS_H

#include <stddef.h>

/* Directory of the running executable (/proc/self/exe); "" when it cannot be read. */
const char *nvemu_exe_dir(void);

/*
 * <exe dir>/<bindir-to-libdir>/nvemu/rel: where `cmake --install` puts nvemu's
 * libraries relative to bin/nvemu. Returns 0, or -1 when the path does not fit.
 */
int nvemu_install_path(const char *rel, char *out, size_t len);

/*
 * Absolute path of the /dev/nvidia* redirector (libnvemu-preload.so) beside this nvemu: <libdir> of an
 * installed tree, tools/preload/ of a build tree. Returns 0, or -1 when neither holds it.
 */
int nvemu_preload_path(char *out, size_t len);

#endif
