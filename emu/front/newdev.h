/*
 * A private /dev for `nvemu run`. In a mount namespace of its own (the caller
 * has already made / MS_PRIVATE), a tmpfs gets a bind mount of every entry
 * of the host's /dev (directories recursively, so devpts, shm, mqueue come
 * along), copies of its symlinks, and bind mounts of the emulator's nodes;
 * the tmpfs is then moved over /dev. Nothing under the host's /dev is
 * created or changed.
 */
#ifndef NVEMU_FRONT_NEWDEV_H
#define NVEMU_FRONT_NEWDEV_H

/*
 * newdev_install (declared in front.h, the tool calls it): stage, an empty directory to build in;
 * nodes_dir, the daemon's FUSE mount (every file in it becomes /dev/<name>, hiding a host entry of
 * that name). Returns 0 or -1 after logging what failed.
 */
#include "front/front.h"

#endif
