/*
 * Another program holding a GPU while a trace replays (`nvemu replay
 * --other-client-on-gpu`). Some recordings were made while a different
 * process still had a client with an NV01_DEVICE_0 on the GPU: the driver
 * then answers for the whole machine (e.g. NV0000 GET_ID_INFO(_V2) gpuFlags
 * IN_USE before the recorded program allocated its own device). Replay
 * reproduces that state with the emulator's own objects instead of patching
 * answers: a second opener of its own process identity and fd table opens the
 * nodes and allocates a client and a device, exactly as such a program would.
 */
#ifndef NVEMU_REPLAY_OTHER_CLIENT_H
#define NVEMU_REPLAY_OTHER_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "nvemu/nvemu.h"

struct replay_other_client;

/*
 * Opens /dev/nvidiactl and every /dev/nvidia<gpu> of the emulator as another process (its own fd
 * table, pid, tid and comm "other-client"; the caller's uid and capabilities,
 * as another program of the same user) and allocates an NV01_ROOT_CLIENT and, on each GPU, an
 * NV01_DEVICE_0 with deviceId = gpu under it (the other ranks of a multi-GPU job hold every GPU).
 * Returns the holder, or NULL with a message in err when any step fails (nothing is left allocated then).
 */
struct replay_other_client *replay_other_client_hold(nvemu *emu, char *err, size_t errlen);

/* Closes the holder's fds (the emulator frees its client and device, as on process exit) and frees it.
 * NULL is a no-op. Call it before nvemu_destroy of the emulator it was made on. */
void replay_other_client_release(struct replay_other_client *oc);

#endif
