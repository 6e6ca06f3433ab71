/*
 * Replay of a recorded ioctl trace against a fresh emulator: every RM alloc,
 * control and free and every OS escape is re-issued through the in-process
 * fd table (emu/front/inproc.h) and its result compared with the recording.
 */
#ifndef NVEMU_REPLAY_H
#define NVEMU_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "trace.h"

struct replay_opts {
    const char *profile;     /* profile name or file; NULL = "h200" */
    const char *driver;      /* driver release to answer as (nvemu_config.driver); NULL = the profile's */
    bool verbose;            /* one line per call */
    /*
     * Before the first call, another process (other_client.h) opens the nodes
     * and allocates a client and a device on GPU 0, and keeps them for the whole
     * replay: for recordings made while another program still held the GPU.
     */
    bool other_client_on_gpu;
};

struct replay_result {
    uint32_t calls;          /* ioctls re-issued */
    uint32_t mismatches;     /* calls (or lines) that differed or could not be parsed */
    uint32_t board_identity; /* calls whose answer differed only in a per-board value (identity.h): not mismatches */
    uint32_t order;          /* calls of processes replayed together without times whose answer differed only where
                              * the processes' interleaving decides it (order.h): not mismatches */
    uint32_t uvm_calls;      /* /dev/nvidia-uvm ioctls re-issued (from their parameter blocks) and compared */
    uint32_t skipped_uvm;    /* /dev/nvidia-uvm ioctls recorded without a parameter block (older traces) */
    uint32_t uvm_inferred;   /* of those: UVM_REGISTER_GPU_VASPACE issued for the VA space the trace allocated */
    uint32_t skipped_rm;     /* RM allocs recorded without the params block their class needs, and the calls on
                              * the objects they made: not issued */
    uint32_t skipped_lists;  /* controls whose embedded lists were not recorded (no ein/eout): not issued */
};

/*
 * Replays `path`. Writes one line per mismatch to `report` as
 *   "line N: <what> [MODULE]"
 * (MODULE answers the call: emu/rm = dispatch and resource server, emu/profile =
 * discovery answers from the GPU profile, emu/fifo = FIFO classes and controls).
 * A line holding a NUL byte ("FILE:LINE: NUL byte ...") and a last line
 * without its newline (a cut recording) count as mismatches, and so does a trace
 * or line over the limits above (the replay stops there). Only a regular file is
 * read (a FIFO or device is refused, and a read that would block ends it).
 * Returns 0 when the replay ran (see res->mismatches), -1 when the file or the
 * emulator could not be opened or the file holds no IOCTL line at all (empty,
 * or not a trace; message on `report`).
 */
int replay_file(const char *path, const struct replay_opts *opts, FILE *report, struct replay_result *res);

/* Most traces replay_files replays together. */
#define REPLAY_MAX_PROCESSES 16u

/*
 * Replays the traces of n processes that ran at the same time, against one emulator: each keeps its
 * own fd table, handle maps and pid, and their calls are interleaved so that a file one process
 * exported RM objects into reaches the process that imports from it (replay.c, "processes replayed
 * together"). Report lines of each are prefixed with its file name when n > 1; res sums them all.
 * Returns as replay_file (-1 also when n is 0 or above REPLAY_MAX_PROCESSES).
 */
int replay_files(const char *const *paths, uint32_t n, const struct replay_opts *opts, FILE *report,
                 struct replay_result *res);

#endif
