/*
 * Private layout of struct nvemu, shared by the files of emu/core only.
 * Everything else uses the accessors of emulator.h.
 */
#ifndef NVEMU_CORE_EMULATOR_INTERNAL_H
#define NVEMU_CORE_EMULATOR_INTERNAL_H

#include "core/emulator.h"
#include "abi/nv_status.h"
#include "base/args.h"

struct dispatch;

#define NVEMU_STATUS_SLOTS 64

struct nvemu {
    pthread_mutex_t lock;
    nvemu_config cfg;              /* strings below are owned copies */
    char *cfg_profile, *cfg_trace_path, *cfg_policy_path;
    char **cfg_policy_args;
    struct arg_list cfg_policy_arglist;      /* copy of cfg.policy_arglist */

    struct profile *profile;
    uint32_t gpu_count;
    struct gpu *gpus;
    struct sim *sim;
    struct hooks *hooks;
    struct workload *wl;
    struct rm_server *rm;
    struct dispatch *dispatch;

    uint64_t ioctls, errors;
    struct { NV_STATUS status; uint64_t count; } by_status[NVEMU_STATUS_SLOTS];
};

/* Counts a failing result (negative errno as 0x80000000|errno, or an NV_STATUS). */
void nvemu_count_error(nvemu *emu, NV_STATUS st);

#endif
