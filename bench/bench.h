/*
 * `nvemu bench`: a table of benchmark rows. Each owner adds rows in its own
 * file bench/bench_<area>.c defining
 *     const struct bench_row bench_rows_<area>[] = { {...}, ..., {NULL} };
 * bench/CMakeLists.txt finds every bench_*.c and aggregates the arrays; no
 * other file changes. A row measures one number; `target` is the bound it
 * must meet (a minimum when higher_is_better, else a maximum; 0 = report only).
 */
#ifndef NVEMU_BENCH_H
#define NVEMU_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "nvemu/nvemu.h"

struct bench_ctx {
    double seconds;        /* wall time budget per row (shorter with --quick) */
    const char *profile;   /* GPU profile every row's emulator uses (--profile; "h200" by default) */
};

struct bench_result {
    double value;
    char note[160];        /* how it was measured (shown in the table and JSON) */
};

struct bench_row {
    const char *name;      /* "area.what" */
    const char *unit;      /* "calls/s", "bytes", ... */
    double target;
    bool higher_is_better;
    /* 0 on success; non-zero = the row could not run (reported as an error) */
    int (*run)(const struct bench_ctx *ctx, struct bench_result *out);
};

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);

/*
 * An emulator (ctx->profile) with /dev/nvidia0 open and one client on
 * /dev/nvidiactl (caller identity: this process), device 0, subdevice and a VA space, for rows
 * that need RM objects. Handles: hclient (auto), hdevice 0x5C000002,
 * hsubdevice 0x5C000003, hvaspace 0x5C000009.
 */
struct bench_env {
    nvemu *emu;
    nvemu_opener *ctl;
    nvemu_opener *gpu0;        /* /dev/nvidia0 of the same process */
    const nvemu_access *acc;   /* the trusted in-process accessor */
    uint32_t hclient, hdevice, hsubdevice, hvaspace;
    uint32_t channel_class;    /* the newest *_CHANNEL_GPFIFO_* class the profile exposes */
};
int bench_env_init(struct bench_env *b, const struct bench_ctx *ctx);
void bench_env_fini(struct bench_env *b);

/* RM calls through nvemu_ioctl with the env's accessor; return the NV_STATUS (0xDEAD on syscall failure). */
uint32_t bench_alloc(struct bench_env *b, uint32_t hparent, uint32_t hnew, uint32_t hclass, void *params);
uint32_t bench_free(struct bench_env *b, uint32_t hobject);

#endif
